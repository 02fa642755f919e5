/*
 * coll_fast.c: blocking barrier, small bcast and small allreduce on one
 * node without a request.
 *
 * When the selection table gives the shared-memory algorithm and nothing
 * else is queued on the communicator's segment, loom_barrier(), loom_bcast()
 * and loom_allreduce() run the very steps of barrier_shm.c, bcast_shm.c and
 * allreduce_shm.c
 * (same operation numbers, same slots, same signatures, so ranks on the
 * fast path and ranks on the request path agree) straight from the call:
 *
 *   copy input -> slot[r][n % 2]; sig; arrived[r] = n (release)
 *   spin on arrived[q] >= n (acquire), loom_progress() every
 *       LOOM_COLL_FAST_POLL spins so point-to-point traffic still moves,
 *       and every spin when ranks outnumber cores (yielding the CPU)
 *   compare signatures; fold slot[0] op (... op slot[p-1])
 *
 * No request from the pool, no state machine, no pass over the generic
 * request list: what is left is the cache-line handoff itself. The slow
 * path (mismatch check after a few milliseconds) is the request path's.
 */
#include "coll_api_int.h"
#include "coll_fast.h"
#include "coll_shm.h"

/* spins between two loom_progress() calls when cores are not oversubscribed */
#define LOOM_COLL_FAST_POLL 32u

static inline void loom_coll_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Does the table give the shm algorithm for this call? Cached per size. */
static int loom_coll_fast_selected(loom_coll_comm_t *cc, loom_comm_t comm,
                                   loom_coll_type_t type, size_t bytes)
{
    loom_coll_state_t probe;

    if (loom_likely(cc->fast_ok[type] >= 0 && cc->fast_bytes[type] == bytes)) {
        return cc->fast_ok[type];
    }
    memset(&probe, 0, offsetof(loom_coll_state_t, inline_tmp));
    probe.comm   = comm;
    probe.layout = LOOM_COLL_LAYOUT_UNIFORM;
    cc->fast_ok[type] = (int8_t)((loom_coll_select(type, comm, bytes, &probe)->flags &
                                  LOOM_COLL_ALG_SHM) != 0);
    cc->fast_bytes[type] = bytes;
    return cc->fast_ok[type];
}

/* The segment is ready and idle: the fast path may take this call. */
static inline loom_coll_comm_t *loom_coll_fast_comm(loom_comm_t comm)
{
    loom_coll_comm_t *cc;

    if (loom_unlikely(comm == LOOM_COMM_NULL || comm->magic != LOOM_COMM_MAGIC)) {
        return NULL;
    }
    cc = comm->coll_priv;
    if (cc == NULL || cc->state != LOOM_COLL_SHM_READY || cc->next_seq != cc->done_seq ||
        loom_coll_orphans_pending) {
        return NULL;
    }
    return cc;
}

/* Take the next collective and shm operation numbers. */
static inline void loom_coll_fast_start(loom_coll_state_t *s, loom_comm_t comm,
                                        loom_coll_comm_t *cc, loom_coll_type_t type,
                                        int root)
{
    s->comm       = comm;
    s->rank       = comm->rank;
    s->size       = comm->size;
    s->kind       = (uint8_t)type;
    s->root       = root;
    s->seq        = comm->coll_seq++;
    s->shm        = cc;
    s->shm_seq    = ++cc->next_seq;
    s->peer       = 0;
    s->idle       = 0;
    s->idle_check = 0;
    s->failures_seen = 0;
    s->failed     = 0;
    s->is_child   = 0;
    loom_coll_record_put(cc, s->seq, type, root);
}

/*
 * One look at the ranks not yet seen (inline: the common case is one peer
 * line that is already there, or not yet).
 */
static inline int loom_coll_fast_arrived(loom_coll_state_t *s)
{
    const loom_coll_comm_t *cc = s->shm;
    const char *base = cc->base;

    for (; s->peer < s->size; ++s->peer) {
        const loom_coll_shm_ctl_t *c = (const void *)(base + (size_t)s->peer *
                                                      LOOM_COLL_SHM_RANK_BYTES);
        if (atomic_load_explicit(&c->arrived, memory_order_acquire) < s->shm_seq) {
            return 0;
        }
    }
    return 1;
}

/*
 * Spin until every rank arrived. Ranks on their own cores poll with a pause
 * and run loom_progress() every LOOM_COLL_FAST_POLL spins; when ranks
 * outnumber cores a waiting rank gives its core away at once (the rank it
 * waits for may be the one it keeps off the core), polling the engine once
 * per yield.
 */
static loom_status_t loom_coll_fast_spin(loom_coll_state_t *s)
{
    int oversub = loom_progress_oversubscribed();
    unsigned spins = 0;
    loom_status_t st;

    while (!loom_coll_fast_arrived(s)) {
        if (oversub) {
            loom_progress_idle();
            (void)loom_progress();
        } else if (++spins % LOOM_COLL_FAST_POLL != 0) {
            loom_coll_cpu_relax();
            continue;
        } else {
            (void)loom_progress();
        }
        st = loom_coll_idle(s);       /* the mismatch check, after a while */
        if (st != LOOM_INPROGRESS) {
            return st;
        }
    }
    st = loom_coll_shm_check(s);
    s->failed |= st != LOOM_OK;
    return st;
}

/*
 * Wait for every rank's arrival. The wait runs outside any request, so it
 * tells the progress engine which collective it is inside: a hang report
 * then names "allreduce #12 on WORLD" instead of a bare loom_progress.
 * @p call is the public name, "loom_allreduce".
 */
static loom_status_t loom_coll_fast_wait(loom_coll_state_t *s, const char *call)
{
    loom_progress_coll_t pc = {
        .call  = call,
        .kind  = call + sizeof("loom_") - 1,
        .comm  = s->comm,
        .seq   = s->seq,
        .alg   = "shm",
        .state = "wait-arrivals",
    };
    loom_status_t st;

    loom_progress_coll_enter(&pc);
    st = loom_coll_fast_spin(s);
    loom_progress_coll_leave(&pc);
    return st;
}

static inline loom_status_t loom_coll_fast_end(loom_coll_state_t *s, loom_status_t st,
                                               const char *who)
{
    loom_coll_comm_t *cc = s->shm;

    cc->done_seq = s->shm_seq;
    cc->recent[s->seq % LOOM_COLL_RECENT] |= LOOM_COLL_REC_DONE |
                                             (s->failed ? LOOM_COLL_REC_FAILED : 0);
    return st == LOOM_OK ? LOOM_OK : loom_p2p_error(st, who);
}

/* loom_op_check, skipped for the predefined pair checked last time */
static inline loom_status_t loom_coll_fast_op_check(loom_coll_comm_t *cc, loom_op_t op,
                                                    loom_datatype_t dt)
{
    uint32_t key = 1u + (uint32_t)op * 64u + (uint32_t)dt;
    loom_status_t st;

    if (loom_likely(cc->fast_opdt == key)) {
        return LOOM_OK;
    }
    st = loom_op_check(op, dt, "loom_allreduce");
    if (st == LOOM_OK && (int)op < LOOM_OP_PREDEFINED_COUNT && (unsigned)dt < 64u) {
        cc->fast_opdt = key;          /* user ops may be freed: checked every time */
    }
    return st;
}

loom_status_t loom_coll_fast_barrier(loom_comm_t comm)
{
    loom_coll_comm_t *cc = loom_coll_fast_comm(comm);
    loom_coll_state_t s;

    if (cc == NULL || !loom_coll_fast_selected(cc, comm, LOOM_COLL_BARRIER, 0)) {
        return LOOM_INPROGRESS;
    }
    loom_coll_fast_start(&s, comm, cc, LOOM_COLL_BARRIER, 0);
    s.count = 0;
    s.esize = 1;
    loom_coll_shm_arrive(&s);
    return loom_coll_fast_end(&s, loom_coll_fast_wait(&s, "loom_barrier"), "loom_barrier");
}

loom_status_t loom_coll_fast_allreduce(const void *sbuf, void *rbuf, size_t count,
                                       loom_datatype_t dt, loom_op_t op, loom_comm_t comm)
{
    loom_coll_comm_t *cc = loom_coll_fast_comm(comm);
    size_t esize = loom_datatype_size(dt);
    loom_coll_state_t s;
    loom_status_t st;

    if (cc == NULL || esize == 0 || count == 0 || sbuf == NULL || rbuf == NULL ||
        rbuf == LOOM_IN_PLACE || count > LOOM_COLL_SHM_MAX_BYTES / esize ||
        (sbuf != LOOM_IN_PLACE && loom_coll_overlap(sbuf, count * esize, rbuf, count * esize)) ||
        !loom_coll_fast_selected(cc, comm, LOOM_COLL_ALLREDUCE, count * esize)) {
        return LOOM_INPROGRESS;       /* the request path validates and reports */
    }
    if ((st = loom_coll_fast_op_check(cc, op, dt)) != LOOM_OK) {
        return loom_p2p_error(st, "loom_allreduce");
    }
    loom_coll_fast_start(&s, comm, cc, LOOM_COLL_ALLREDUCE, 0);
    s.count = count;
    s.esize = esize;
    s.dt    = dt;
    s.op    = op;
    memcpy(loom_coll_shm_slot(&s, s.rank), sbuf == LOOM_IN_PLACE ? rbuf : sbuf,
           count * esize);
    loom_coll_shm_arrive(&s);
    st = loom_coll_fast_wait(&s, "loom_allreduce");
    if (st == LOOM_OK) {
        memcpy(rbuf, loom_coll_shm_slot(&s, s.size - 1), count * esize);
        for (int q = s.size - 2; q >= 0; --q) {
            loom_coll_reduce(&s, loom_coll_shm_slot(&s, q), rbuf, count);
        }
    }
    return loom_coll_fast_end(&s, st, "loom_allreduce");
}

loom_status_t loom_coll_fast_bcast(void *buf, size_t count, loom_datatype_t dt, int root,
                                   loom_comm_t comm)
{
    loom_coll_comm_t *cc = loom_coll_fast_comm(comm);
    size_t esize = loom_datatype_size(dt);
    loom_coll_state_t s;
    loom_status_t st;

    if (cc == NULL || esize == 0 || count == 0 || buf == NULL || buf == LOOM_IN_PLACE ||
        root < 0 || root >= comm->size || count > LOOM_COLL_SHM_MAX_BYTES / esize ||
        !loom_coll_fast_selected(cc, comm, LOOM_COLL_BCAST, count * esize)) {
        return LOOM_INPROGRESS;       /* the request path validates and reports */
    }
    loom_coll_fast_start(&s, comm, cc, LOOM_COLL_BCAST, root);
    s.count = count;
    s.esize = esize;
    if (s.rank == root) {
        memcpy(loom_coll_shm_slot(&s, s.rank), buf, count * esize);
    }
    loom_coll_shm_arrive(&s);
    st = loom_coll_fast_wait(&s, "loom_bcast");
    if (st == LOOM_OK && s.rank != root) {
        memcpy(buf, loom_coll_shm_slot(&s, root), count * esize);
    }
    return loom_coll_fast_end(&s, st, "loom_bcast");
}
