/*
 * coll_check.c: mismatched collective calls become errors, not hangs.
 *
 * A collective's tag carries its sequence number, kind and root
 * (coll_int.h), so a message of another rank's different call never
 * matches our receives: it waits in the unexpected queue of the
 * communicator's collective context. Nothing is checked on the fast path;
 * a collective that has waited a few milliseconds (then at doubling
 * intervals, up to half a second) looks at the earliest unexpected message
 * from each rank:
 *
 *   its number is one we started   (recent[], one store per start)
 *     and kind or root differ     -> "bcast #12 on WORLD: rank 0 used root 0
 *                                     but rank 3 used root 1"
 *     and ours is done            -> a message we never asked for: the
 *                                     ranks passed different counts
 *     and ours runs in shm        -> the other rank chose a message-based
 *                                     algorithm: different counts (or
 *                                     LOOM_<COLL>_ALGORITHM settings)
 *     and ours failed             -> dropped quietly
 *   else (a later collective, or ours still to post it) -> fine
 *
 * A message found wrong is received into a scratch buffer (so a sender
 * waiting for a rendezvous is released) and the collective fails with the
 * error. When the communicator has a shared segment, the slow path also
 * publishes the tag of the collective it waits in, and compares the other
 * ranks' with its own records: two ranks that both think they are the root
 * of a reduce wait to receive, send nothing, and are still caught. Counts that differ inside one algorithm show up as a receive of
 * the wrong size (loom_coll_wait in coll_util.c).
 *
 * Ranks whose selections differ for one call (a LOOM_<COLL>_ALGORITHM or
 * LOOM_OVERSUBSCRIBED set on some ranks only), one running it through the
 * segment and returning at once (an eager root or contributor), the other
 * by messages: the rank waiting for messages finds the other's arrival in
 * the segment carrying its call's number (loom_coll_check_ways) and fails,
 * naming both ranks; the eager rank fails at its next call on the segment,
 * whose catch-up finds the first rank at another collective.
 */
#include "coll_shm.h"
#include "log_int.h"

#include <stdio.h>
#include <stdlib.h>

#define LOOM_COLL_IDLE_CALLS  256      /* waits between clock reads */
#define LOOM_COLL_CHECK_FIRST 0.002    /* seconds before the first check */
#define LOOM_COLL_CHECK_MAX   0.5      /* longest interval between checks */

static const char *const loom_coll_kind_names[LOOM_COLL_TYPE_COUNT] = {
    [LOOM_COLL_BARRIER] = "barrier",     [LOOM_COLL_BCAST] = "bcast",
    [LOOM_COLL_REDUCE] = "reduce",       [LOOM_COLL_ALLREDUCE] = "allreduce",
    [LOOM_COLL_ALLGATHER] = "allgather", [LOOM_COLL_GATHER] = "gather",
    [LOOM_COLL_SCATTER] = "scatter",     [LOOM_COLL_ALLTOALL] = "alltoall",
    [LOOM_COLL_REDUCE_SCATTER] = "reduce_scatter_block",
    [LOOM_COLL_NEIGHBOR] = "neighbor_alltoallv",
    [LOOM_COLL_SCAN] = "scan",           [LOOM_COLL_EXSCAN] = "exscan",
    [LOOM_COLL_REDUCE_SCATTERV] = "reduce_scatter", [LOOM_COLL_ALLTOALLW] = "alltoallw",
};

const char *loom_coll_kind_name(int kind)
{
    return kind >= 0 && kind < LOOM_COLL_TYPE_COUNT ? loom_coll_kind_names[kind] : "?";
}

static const char *loom_coll_kind_var(int kind)
{
    static const char *const vars[LOOM_COLL_TYPE_COUNT] = {
        "BARRIER", "BCAST", "REDUCE", "ALLREDUCE", "ALLGATHER", "GATHER", "SCATTER",
        "ALLTOALL", "REDUCE_SCATTER", [LOOM_COLL_NEIGHBOR] = "NEIGHBOR",
        [LOOM_COLL_SCAN] = "SCAN", [LOOM_COLL_EXSCAN] = "EXSCAN",
        [LOOM_COLL_REDUCE_SCATTERV] = "REDUCE_SCATTERV", [LOOM_COLL_ALLTOALLW] = "ALLTOALLW",
    };
    return kind >= 0 && kind < LOOM_COLL_TYPE_COUNT ? vars[kind] : "?";
}

void loom_coll_record_start(loom_coll_state_t *s)
{
    loom_coll_comm_t *cc = loom_coll_comm_get(s->comm);

    if (cc != NULL) {
        loom_coll_record_put(cc, s->seq, s->kind, s->root);
    }
}

static uint64_t *loom_coll_record(loom_comm_t comm, uint64_t seq)
{
    loom_coll_comm_t *cc = comm->coll_priv;
    uint64_t *rec;

    if (cc == NULL) {
        return NULL;
    }
    rec = &cc->recent[seq % LOOM_COLL_RECENT];
    if (!(*rec & LOOM_COLL_REC_VALID) || (*rec & LOOM_COLL_TAG_SEQ_MASK) !=
        (seq & LOOM_COLL_TAG_SEQ_MASK)) {
        return NULL;
    }
    return rec;
}

void loom_coll_record_done(const loom_coll_state_t *s, int failed)
{
    uint64_t *rec = loom_coll_record(s->comm, s->seq);

    if (rec != NULL) {
        *rec |= LOOM_COLL_REC_DONE | (failed ? LOOM_COLL_REC_FAILED : 0);
    }
}

static const char *loom_coll_call_name(char *buf, size_t len, int kind, int root);

/*
 * Has a rank of the communicator failed? The p2p engine counts the peers it
 * found failed; only when that count moved since this collective last looked
 * are the communicator's ranks scanned. A failed rank fails the collective
 * (it can never arrive, send or receive), on every rank that learns of it.
 */
static loom_status_t loom_coll_check_peers(loom_coll_state_t *s)
{
    char call[64];

    s->failures_seen = loom_p2p_peer_failures();
    for (int r = 0; r < s->size; ++r) {
        int w = loom_comm_to_world(s->comm, r);
        loom_status_t st = loom_p2p_peer_failed(w);

        if (st == LOOM_OK) {
            continue;
        }
        loom_coll_call_name(call, sizeof(call), s->kind, s->root);
        loom_error("coll", "%s #%llu on %s: rank %d (world rank %d) failed: the collective "
                   "cannot complete (%s)", call, (unsigned long long)s->seq,
                   s->comm->name, r, w, loom_status_name(st));
        return st;
    }
    return LOOM_OK;
}

loom_status_t loom_coll_idle(loom_coll_state_t *s)
{
    loom_coll_comm_t *cc = s->shm;
    loom_status_t st;
    double now;
    int shm;

    if (loom_unlikely(loom_p2p_peer_failures() != s->failures_seen)) {
        st = loom_coll_check_peers(s);
        if (st != LOOM_OK) {
            s->failed = 1;
            return st;
        }
    }
    if (loom_likely(++s->idle < LOOM_COLL_IDLE_CALLS)) {
        return LOOM_INPROGRESS;
    }
    s->idle = 0;
    now = loom_wtime();
    if (s->idle_check == 0) {
        s->idle_step  = LOOM_COLL_CHECK_FIRST;
        s->idle_check = now + s->idle_step;
        return LOOM_INPROGRESS;
    }
    if (now < s->idle_check) {
        return LOOM_INPROGRESS;
    }
    s->idle_step  = s->idle_step * 2 < LOOM_COLL_CHECK_MAX ? s->idle_step * 2
                                                            : LOOM_COLL_CHECK_MAX;
    s->idle_check = now + s->idle_step;
    /* past the segment's setup and our turn: no message of ours is legal */
    shm = cc != NULL && cc->state == LOOM_COLL_SHM_READY &&
          cc->done_seq + 1 == s->shm_seq;
    st = loom_coll_check_mismatch(s, shm);
    if (st != LOOM_OK) {
        s->failed = 1;
        return st;
    }
    return LOOM_INPROGRESS;
}

/* "bcast (root 3)" / "allreduce" */
static const char *loom_coll_call_name(char *buf, size_t len, int kind, int root)
{
    if (loom_coll_kind_rooted(kind)) {
        snprintf(buf, len, "%s (root %d)", loom_coll_kind_name(kind), root);
    } else {
        snprintf(buf, len, "%s", loom_coll_kind_name(kind));
    }
    return buf;
}

/* Log what message @p ms (tag decoded) says about our call @p rec. */
static loom_status_t loom_coll_mismatch_report(loom_coll_state_t *s, uint64_t seq,
                                               uint64_t rec, const loom_msg_status_t *ms,
                                               int shm)
{
    loom_comm_t comm = s->comm;
    int k1 = (int)(rec >> LOOM_COLL_TAG_KIND_SHIFT & 0xf);
    int r1 = (int)(rec >> LOOM_COLL_TAG_ROOT_SHIFT & LOOM_COLL_TAG_ROOT_MASK);
    int k2 = (int)((uint32_t)ms->tag >> LOOM_COLL_TAG_KIND_SHIFT & 0xf);
    int r2 = (int)((uint32_t)ms->tag >> LOOM_COLL_TAG_ROOT_SHIFT & LOOM_COLL_TAG_ROOT_MASK);
    unsigned long long n = (unsigned long long)seq;
    char c1[48], c2[48], by[80] = "";

    if (seq != s->seq) {            /* found later, by another collective */
        snprintf(by, sizeof(by), " (found in %s #%llu)", loom_coll_kind_name(s->kind),
                 (unsigned long long)s->seq);
    }

    if (k1 != k2) {
        loom_error("coll", "collective #%llu on %s: rank %d called %s but rank %d called "
                   "%s%s", n, comm->name, comm->rank,
                   loom_coll_call_name(c1, sizeof(c1), k1, r1), ms->source,
                   loom_coll_call_name(c2, sizeof(c2), k2, r2), by);
        return LOOM_ERR_INVALID_ARG;
    }
    if (r1 != r2) {
        loom_error("coll", "%s #%llu on %s: rank %d used root %d but rank %d used root %d%s",
                   loom_coll_kind_name(k1), n, comm->name, comm->rank, r1, ms->source, r2,
                   by);
        return LOOM_ERR_INVALID_ROOT;
    }
    if (shm) {
        loom_error("coll", "%s #%llu on %s: rank %d runs the shared-memory algorithm but "
                   "rank %d sent it a %zu-byte message: the ranks passed different counts "
                   "or datatypes (or different LOOM_%s_ALGORITHM settings)",
                   loom_coll_kind_name(k1), n, comm->name, comm->rank, ms->source,
                   ms->bytes, loom_coll_kind_var(k1));
    } else {
        loom_error("coll", "%s #%llu on %s: rank %d had finished its part when rank %d sent "
                   "it another %zu-byte message: the ranks passed different counts or "
                   "datatypes (or different LOOM_%s_ALGORITHM settings)%s",
                   loom_coll_kind_name(k1), n, comm->name, comm->rank, ms->source,
                   ms->bytes, loom_coll_kind_var(k1), by);
    }
    return LOOM_ERR_INVALID_COUNT;
}

/*
 * Rank ms->source found that its call #seq does not match ours (it logged
 * both calls) and told us: we fail too, rather than wait for it forever.
 */
static loom_status_t loom_coll_notice_report(loom_coll_state_t *s, uint64_t seq,
                                             uint64_t rec, const loom_msg_status_t *ms)
{
    int k1 = (int)(rec >> LOOM_COLL_TAG_KIND_SHIFT & 0xf);
    int r1 = (int)(rec >> LOOM_COLL_TAG_ROOT_SHIFT & LOOM_COLL_TAG_ROOT_MASK);
    loom_status_t st = -(int)((uint32_t)ms->tag >> LOOM_COLL_TAG_ROOT_SHIFT &
                              LOOM_COLL_TAG_ROOT_MASK);
    char c1[48];

    if (st != LOOM_ERR_INVALID_ROOT && st != LOOM_ERR_INVALID_COUNT) {
        st = LOOM_ERR_INVALID_ARG;
    }
    for (int q = 0; q < s->comm->size; ++q) {   /* the other ranks' notices too */
        loom_msg_status_t other;
        while (loom_p2p_probe_int(q, ms->tag, s->comm, LOOM_CTX_COLL, &other) &&
               loom_coll_orphan_drain(s->comm, q, ms->tag, other.bytes) == LOOM_OK) {
        }
    }
    loom_error("coll", "collective #%llu on %s: rank %d called %s, which rank %d found not "
               "to match its own call (%s; rank %d logged both calls)",
               (unsigned long long)seq, s->comm->name, s->comm->rank,
               loom_coll_call_name(c1, sizeof(c1), k1, r1), ms->source,
               st == LOOM_ERR_INVALID_ROOT ? "another root" :
               st == LOOM_ERR_INVALID_COUNT ? "another count or datatype" : "another call",
               ms->source);
    return st;
}

/*
 * Judge the earliest unexpected message from @p src. @return LOOM_OK and
 * *more_p = 1 if it was dropped (look at the next one), LOOM_OK and
 * *more_p = 0 if it is legal, or the mismatch.
 */
static loom_status_t loom_coll_check_one(loom_coll_state_t *s, int src, int shm,
                                         int *more_p)
{
    loom_comm_t comm = s->comm;
    loom_msg_status_t ms;
    uint64_t d, seq, rec, *recp;
    loom_status_t st = LOOM_OK;
    int mine;

    *more_p = 0;
    /* a create_group message is no collective's: look past it (a mismatch
     * may be queued behind one that waits for a later create_group here) */
    if (!loom_p2p_probe_skip_int(src, comm, LOOM_CTX_COLL,
                                 0xfu << LOOM_COLL_TAG_KIND_SHIFT,
                                 LOOM_COLL_KIND_CREATE << LOOM_COLL_TAG_KIND_SHIFT, &ms)) {
        return LOOM_OK;
    }
    d = (comm->coll_seq - (uint32_t)ms.tag) & LOOM_COLL_TAG_SEQ_MASK;
    if (d == 0 || d > LOOM_COLL_RECENT) {
        return LOOM_OK;               /* a collective we have not started yet */
    }
    seq  = comm->coll_seq - d;
    recp = loom_coll_record(comm, seq);
    if (recp == NULL) {
        return LOOM_OK;
    }
    rec  = *recp;
    mine = ((uint32_t)rec & ~LOOM_COLL_TAG_SEQ_MASK) ==
           ((uint32_t)ms.tag & ~LOOM_COLL_TAG_SEQ_MASK);
    if (rec & LOOM_COLL_REC_FAILED) {
        /* leftovers of a collective that already failed here: drop */
    } else if (((uint32_t)ms.tag >> LOOM_COLL_TAG_KIND_SHIFT & 0xf) == LOOM_COLL_KIND_NOTICE) {
        if (!(rec & LOOM_COLL_REC_DONE)) {  /* a call that completed here stays so */
            st = loom_coll_notice_report(s, seq, rec, &ms);
            *recp |= LOOM_COLL_REC_FAILED;
        }
    } else if (!mine || (rec & LOOM_COLL_REC_DONE) || (shm && seq == s->seq)) {
        st = loom_coll_mismatch_report(s, seq, rec, &ms, shm && seq == s->seq);
        *recp |= LOOM_COLL_REC_FAILED;
        /* the sender may wait for us in its call: tell it (best effort) */
        (void)loom_coll_orphan_send(comm, src, (int)(((uint32_t)ms.tag &
                                    LOOM_COLL_TAG_SEQ_MASK) |
                                    LOOM_COLL_KIND_NOTICE << LOOM_COLL_TAG_KIND_SHIFT |
                                    ((uint32_t)-st & LOOM_COLL_TAG_ROOT_MASK) <<
                                    LOOM_COLL_TAG_ROOT_SHIFT));
    } else {
        return LOOM_OK;               /* ours, its receive not posted yet */
    }
    if (loom_coll_orphan_drain(comm, src, ms.tag, ms.bytes) != LOOM_OK) {
        return st != LOOM_OK ? st : LOOM_ERR_NO_MEMORY;
    }
    *more_p = st == LOOM_OK;
    return st;
}

static loom_coll_shm_ctl_t *loom_coll_check_ctl(const loom_coll_comm_t *cc, int r)
{
    return (loom_coll_shm_ctl_t *)(void *)((char *)cc->base +
                                           (size_t)r * LOOM_COLL_SHM_RANK_BYTES);
}

/* One node: publish what we wait in, compare what the others wait in. */
static loom_status_t loom_coll_check_waiting(loom_coll_state_t *s)
{
    loom_comm_t comm = s->comm;
    loom_coll_comm_t *cc = comm->coll_priv;
    uint32_t tag = (uint32_t)loom_coll_tag_make(s->seq, s->kind,
                                                loom_coll_kind_rooted(s->kind) ? s->root : 0);
    loom_msg_status_t ms = { .bytes = 0 };
    loom_status_t st;

    if (cc == NULL || cc->state != LOOM_COLL_SHM_READY) {
        return LOOM_OK;
    }
    atomic_store_explicit(&loom_coll_check_ctl(cc, comm->rank)->waiting[s->seq & 1],
                          (uint64_t)tag | 1ull << 32, memory_order_relaxed);
    for (int i = 0; i < 2 * comm->size; ++i) {
        int q = i / 2;
        uint64_t w = atomic_load_explicit(&loom_coll_check_ctl(cc, q)->waiting[i & 1],
                                          memory_order_relaxed);
        uint64_t d = (comm->coll_seq - (uint32_t)w) & LOOM_COLL_TAG_SEQ_MASK;
        uint64_t *recp;

        if (q == comm->rank || !(w >> 32) || d == 0 || d > LOOM_COLL_RECENT) {
            continue;
        }
        recp = loom_coll_record(comm, comm->coll_seq - d);
        if (recp == NULL || (*recp & LOOM_COLL_REC_FAILED) ||
            ((uint32_t)*recp & ~LOOM_COLL_TAG_SEQ_MASK) ==
            ((uint32_t)w & ~LOOM_COLL_TAG_SEQ_MASK)) {
            continue;
        }
        ms.source = q;
        ms.tag    = (int)(uint32_t)w;
        st = loom_coll_mismatch_report(s, comm->coll_seq - d, *recp, &ms, 0);
        *recp |= LOOM_COLL_REC_FAILED;
        return st;
    }
    return LOOM_OK;
}

/*
 * This collective runs by messages (s->shm == NULL) on a communicator with
 * a segment: has a rank arrived in the segment at an operation we never
 * numbered (beyond cc->next_seq) carrying this collective's number? Then
 * it ran this call through the segment (an eager root or contributor that
 * returned at once) and sends us nothing: fail instead of waiting for it.
 * Its arrival's signature is stable while we read it: it may publish its
 * next operation only once we arrive at this one.
 */
static loom_status_t loom_coll_check_ways(loom_coll_state_t *s)
{
    loom_comm_t comm = s->comm;
    loom_coll_comm_t *cc = comm->coll_priv;

    if (s->shm != NULL || cc == NULL || cc->state != LOOM_COLL_SHM_READY) {
        return LOOM_OK;
    }
    for (int q = 0; q < comm->size; ++q) {
        const loom_coll_shm_ctl_t *c = loom_coll_check_ctl(cc, q);
        uint64_t a = atomic_load_explicit(&c->arrived, memory_order_acquire), sig;

        if (q == comm->rank || a <= cc->next_seq) {
            continue;
        }
        sig = c->sig[a & 1];
        if ((sig >> 32 & LOOM_COLL_TAG_SEQ_MASK) == (s->seq & LOOM_COLL_TAG_SEQ_MASK)) {
            loom_error("coll", "%s #%llu on %s: rank %d runs it by messages but rank %d "
                       "through the shared-memory segment (the ranks passed different "
                       "counts or datatypes, or selected different algorithms: is a "
                       "LOOM_%s_ALGORITHM or LOOM_OVERSUBSCRIBED set differently on "
                       "them?)", loom_coll_kind_name(s->kind),
                       (unsigned long long)s->seq, comm->name, comm->rank, q,
                       loom_coll_kind_var(s->kind));
            return LOOM_ERR_INVALID_ARG;
        }
    }
    return LOOM_OK;
}

/* Judge (and drain) the earliest unexpected messages from every rank. */
static loom_status_t loom_coll_check_messages(loom_coll_state_t *s, int shm)
{
    loom_comm_t comm = s->comm;
    loom_status_t st;
    int more;

    if (!loom_p2p_probe_int(LOOM_ANY_SOURCE, LOOM_ANY_TAG, comm, LOOM_CTX_COLL,
                            LOOM_STATUS_IGNORE)) {
        return LOOM_OK;
    }
    for (int q = 0; q < comm->size; ++q) {
        do {
            st = loom_coll_check_one(s, q, shm, &more);
            if (st != LOOM_OK) {
                return st;
            }
        } while (more);
    }
    return LOOM_OK;
}

loom_status_t loom_coll_check_mismatch(loom_coll_state_t *s, int shm)
{
    loom_status_t st = loom_coll_check_messages(s, shm);

    if (st == LOOM_OK && ((st = loom_coll_check_ways(s)) != LOOM_OK ||
                          (st = loom_coll_check_waiting(s)) != LOOM_OK)) {
        /* found without a message: drop what already came for that call, so
         * no sender is left waiting on a rendezvous we will never match */
        (void)loom_coll_check_messages(s, shm);
    }
    return st;
}
