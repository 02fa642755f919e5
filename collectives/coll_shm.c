/*
 * coll_shm.c: creation, mapping and ordering of the per-communicator
 * collective segment (see coll_shm.h).
 *
 *   rank 0                              rank q > 0
 *   shm_open(O_CREAT|O_EXCL), zero
 *   send "created" (status byte) ---->  recv, shm_open + mmap
 *   recv "mapped" from every q   <----  send "mapped" (status byte)
 *   shm_unlink
 *   send the verdict (all mapped?) ---> recv: use the segment, or unmap
 *                                       and fall back to messages
 */
#include "coll_shm.h"
#include "bootstrap_int.h"
#include "coll_config_int.h"
#include "log_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>


static void loom_coll_shm_name(loom_coll_comm_t *cc, loom_comm_t comm)
{
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    const char *job = info && info->jobid ? info->jobid : "nojob";

    /* split gives every color the same context id: the creator's world rank
     * tells the colors' segments apart */
    snprintf(cc->name, sizeof(cc->name), "/loom-%s-coll-%u-%d", job, comm->context_id,
             loom_comm_to_world(comm, 0));
    for (char *c = cc->name + 1; *c; ++c) {
        if (*c == '/') {
            *c = '_';
        }
    }
}

/*
 * Create (rank 0) or open (others) and map the segment. A failure is not an
 * error of the job (the algorithms fall back to messages): logged at info.
 */
static loom_status_t loom_coll_shm_map(loom_coll_comm_t *cc, loom_comm_t comm, int create)
{
    int fd, flags = O_RDWR | (create ? O_CREAT | O_EXCL : 0);
    long long fault = loom_config_int(LOOM_COLL_CFG(SHM_FAULT));
    void *base;

    cc->size = LOOM_ALIGN_UP(LOOM_COLL_SHM_SEG_BYTES(comm->size), (size_t)4096);
    if (loom_unlikely(fault == comm->rank)) {
        loom_info("coll", "%s: rank %d: LOOM_COLL_SHM_FAULT: not mapping %s", comm->name,
                  comm->rank, cc->name);
        return LOOM_ERR_IO;
    }
    fd = shm_open(cc->name, flags, 0600);
    if (fd < 0 && create && errno == EEXIST) {
        /* left over by a killed job with the same id: replace it */
        shm_unlink(cc->name);
        fd = shm_open(cc->name, flags, 0600);
    }
    if (fd < 0) {
        loom_info("coll", "%s: rank %d: shm_open(%s) for the collective segment: %m",
                  comm->name, comm->rank, cc->name);
        return LOOM_ERR_IO;
    }
    /* posix_fallocate, not ftruncate: a full /dev/shm fails here, not with
     * SIGBUS at the first store */
    if (create && (errno = posix_fallocate(fd, 0, (off_t)cc->size)) != 0) {
        loom_info("coll", "%s: rank %d: reserving %zu bytes for %s: %m", comm->name,
                  comm->rank, cc->size, cc->name);
        close(fd);
        shm_unlink(cc->name);
        return LOOM_ERR_IO;
    }
    base = mmap(NULL, cc->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        loom_info("coll", "%s: rank %d: mmap of %zu bytes of %s: %m", comm->name,
                  comm->rank, cc->size, cc->name);
        if (create) {
            shm_unlink(cc->name);
        }
        return LOOM_ERR_IO;
    }
    cc->base = base;
    return LOOM_OK;
}

enum { SETUP_START = 0, SETUP_NOTIFY, SETUP_COLLECT, SETUP_VERDICT, SETUP_OPEN,
       SETUP_ANSWER, SETUP_DONE };

/* One batch of 1-byte messages between rank 0 and ranks [s->peer, ...). */
static loom_status_t loom_coll_shm_batch(loom_coll_state_t *s, int send, uint8_t *bytes)
{
    loom_status_t st;

    while (s->nreq < LOOM_COLL_MAX_REQS && s->peer < s->size) {
        st = send ? loom_coll_send(s, &bytes[0], 1, s->peer)
                  : loom_coll_recv(s, &bytes[s->peer % LOOM_COLL_MAX_REQS], 1, s->peer);
        if (st != LOOM_OK) {
            return st;
        }
        ++s->peer;
    }
    return LOOM_OK;
}

/* Rank 0's steps: notify every rank, collect their answers, send the verdict. */
static loom_status_t loom_coll_shm_setup_root(loom_coll_state_t *s, uint8_t *msg)
{
    switch (s->step) {
    case SETUP_NOTIFY:   /* "created" to every rank, in batches */
        if (s->peer == s->size) {
            s->peer = 1;
            s->step = SETUP_COLLECT;
            return LOOM_OK;
        }
        return loom_coll_shm_batch(s, 1, msg);
    case SETUP_COLLECT:  /* every rank's "mapped" */
        for (int i = 0; i < LOOM_COLL_MAX_REQS; ++i) {
            msg[0] &= msg[8 + i] | (uint8_t)(s->peer <= 1);
        }
        if (s->peer == s->size) {
            s->peer = 1;
            s->step = SETUP_VERDICT;
            return LOOM_OK;
        }
        memset(&msg[8], 1, LOOM_COLL_MAX_REQS);
        return loom_coll_shm_batch(s, 0, &msg[8]);
    case SETUP_VERDICT:  /* all mapped, or fall back: the same answer everywhere */
        if (s->peer == s->size) {
            s->step = SETUP_DONE;
            return LOOM_OK;
        }
        return loom_coll_shm_batch(s, 1, msg);
    }
    return LOOM_ERR_INTERNAL;
}

/* Rank q's steps: map once rank 0 created, answer, take the verdict. */
static loom_status_t loom_coll_shm_setup_peer(loom_coll_state_t *s, loom_coll_comm_t *cc,
                                              uint8_t *msg)
{
    loom_status_t st;

    switch (s->step) {
    case SETUP_OPEN:
        msg[0] = msg[8] && loom_coll_shm_map(cc, s->comm, 0) == LOOM_OK;
        if ((st = loom_coll_send(s, &msg[0], 1, 0)) != LOOM_OK ||
            (st = loom_coll_recv(s, &msg[16], 1, 0)) != LOOM_OK) {
            return st;
        }
        s->step = SETUP_ANSWER;
        return LOOM_OK;
    case SETUP_ANSWER:
        msg[0] = msg[16];
        s->step = SETUP_DONE;
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}

/* Every rank: use the segment, or release it and fall back with a notice. */
static loom_status_t loom_coll_shm_setup_done(loom_coll_state_t *s, loom_coll_comm_t *cc,
                                              int ok)
{
    if (s->rank == 0 && cc->base != NULL) {
        shm_unlink(cc->name);
    }
    if (ok) {
        cc->state = LOOM_COLL_SHM_READY;
        return LOOM_OK;
    }
    if (cc->base != NULL) {
        munmap(cc->base, cc->size);
        cc->base = NULL;
    }
    cc->state = LOOM_COLL_SHM_FAILED;
    if (s->rank == 0) {
        loom_info("coll", "%s: the shared-memory segment %s for on-node collectives could "
                  "not be set up on every rank; using message-based algorithms",
                  s->comm->name, cc->name);
    }
    return LOOM_ERR_UNSUPPORTED;
}

/* The setup handshake; runs inside the first shm operation on a comm. */
static loom_status_t loom_coll_shm_setup(loom_coll_state_t *s, loom_coll_comm_t *cc)
{
    /* [0] what we send; [8..15] what we receive; [16] the verdict */
    uint8_t *msg = s->inline_tmp;
    loom_status_t st;

    for (;;) {
        if (s->nreq > 0 && (st = loom_coll_wait(s)) != LOOM_OK) {
            return st;  /* in progress, or a failed message */
        }
        switch (s->step) {
        case SETUP_START:
            loom_coll_shm_name(cc, s->comm);
            if (s->rank == 0) {
                msg[0] = loom_coll_shm_map(cc, s->comm, 1) == LOOM_OK;
                s->peer = 1;
                s->step = SETUP_NOTIFY;
            } else {
                if ((st = loom_coll_recv(s, &msg[8], 1, 0)) != LOOM_OK) {
                    return st;
                }
                s->step = SETUP_OPEN;
            }
            break;
        case SETUP_DONE:
            return loom_coll_shm_setup_done(s, cc, msg[0]);
        default:
            st = s->rank == 0 ? loom_coll_shm_setup_root(s, msg)
                              : loom_coll_shm_setup_peer(s, cc, msg);
            if (st != LOOM_OK) {
                return st;
            }
            break;
        }
    }
}

/*
 * The setup failed (a rank called another collective, a peer died): no rank
 * completes a setup that another left, so every rank drops the segment and
 * the operations after this one use the message-based algorithms.
 */
static void loom_coll_shm_setup_failed(loom_coll_state_t *s, loom_coll_comm_t *cc)
{
    if (cc->base != NULL) {
        if (s->rank == 0) {
            shm_unlink(cc->name);
        }
        munmap(cc->base, cc->size);
        cc->base = NULL;
    }
    cc->state = LOOM_COLL_SHM_FAILED;
    loom_coll_shm_leave(s);
}

loom_status_t loom_coll_shm_enter(loom_coll_state_t *s)
{
    loom_coll_comm_t *cc;
    loom_status_t st;

    if (s->shm == NULL) {            /* first call: take this operation's number */
        cc = loom_coll_comm_get(s->comm);
        if (cc == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        s->shm     = cc;
        s->shm_seq = ++cc->next_seq;
        s->step    = SETUP_START;
        s->peer    = 0;
    }
    cc = s->shm;
    if (cc->done_seq + 1 != s->shm_seq) {
        /* an earlier shm operation is still running (and watches for
         * mismatches itself: failing here would leave our number unused) */
        return LOOM_INPROGRESS;
    }
    if (cc->state != LOOM_COLL_SHM_READY) {
        if (cc->state == LOOM_COLL_SHM_FAILED) {
            return LOOM_ERR_UNSUPPORTED;
        }
        cc->state = LOOM_COLL_SHM_SETUP;
        st = loom_coll_shm_setup(s, cc);
        if (st != LOOM_OK) {
            if (st != LOOM_INPROGRESS) {
                loom_coll_shm_setup_failed(s, cc);
            }
            return st;
        }
        s->peer = 0;
    }
    if (!loom_coll_shm_synced(s)) {
        return loom_coll_shm_catch_up(s);
    }
    return LOOM_OK;
}

loom_status_t loom_coll_shm_catch_up(loom_coll_state_t *s)
{
    loom_coll_comm_t *cc = s->shm;
    uint64_t n = s->shm_seq, seq = s->seq;
    loom_status_t st;
    int all;

    s->shm_seq = n - 1;              /* the checks below read operation n-1 */
    all = loom_coll_shm_all_arrived(s);
    s->seq = cc->eager_seq;
    st = all ? loom_coll_shm_check_sigs(s, LOOM_COLL_SHM_SIG_ABSENT) : LOOM_OK;
    s->seq     = seq;
    s->shm_seq = n;
    if (!all) {
        return loom_coll_idle(s);
    }
    s->peer        = 0;
    cc->synced_seq = n - 1;
    if (st != LOOM_OK) {
        s->failed = 1;
        /* the others wait for it; those that compare our signature (and
         * would read our slot) fail too instead of reading stale data */
        loom_coll_shm_arrive_as(s, 1);
    }
    return st;
}

void loom_coll_shm_leave(loom_coll_state_t *s)
{
    loom_coll_comm_t *cc = s->shm;
    cc->done_seq = s->shm_seq;
}

int loom_coll_shm_all_arrived(loom_coll_state_t *s)
{
    while (s->peer < s->size) {
        loom_coll_shm_ctl_t *c = loom_coll_shm_ctl(s, s->peer);
        if (atomic_load_explicit(&c->arrived, memory_order_acquire) < s->shm_seq) {
            return 0;
        }
        ++s->peer;
    }
    return 1;
}

/* How many of the @p size ranks hint CPU @p cpu (the highest of them in *last_p). */
static int loom_coll_shm_ranks_on(const loom_coll_shm_aux_t *aux, int size, uint32_t cpu,
                                  int *last_p)
{
    int n = 0;

    for (int q = 0; q < size; ++q) {
        if (atomic_load_explicit(&aux[q].cpu, memory_order_relaxed) == cpu) {
            ++n;
            *last_p = q;
        }
    }
    return n;
}

int loom_coll_shm_balance_target(const loom_coll_shm_aux_t *aux, int size, int rank,
                                 const cpu_set_t *allowed)
{
    uint32_t mine = atomic_load_explicit(&aux[rank].cpu, memory_order_relaxed);
    int count = CPU_COUNT(allowed), seen = 0, best = -1, best_n = size, last = -1, ignored;
    int crowd;

    if (mine == 0 || count < 2) {
        return -1;                    /* where we run is not known, or we are bound */
    }
    crowd = loom_coll_shm_ranks_on(aux, size, mine, &last);
    if (last != rank) {
        return -1;                    /* the highest rank on our CPU moves, or none */
    }
    for (int c = 0; c < CPU_SETSIZE && seen < count; ++c) {
        int n;

        if (!CPU_ISSET(c, allowed)) {
            continue;
        }
        ++seen;
        n = loom_coll_shm_ranks_on(aux, size, (uint32_t)c + 1, &ignored);
        if ((uint32_t)c + 1 != mine && n < best_n) {
            best   = c;
            best_n = n;
        }
    }
    return best >= 0 && crowd - best_n >= 2 ? best : -1;
}

/* the way of a signature in messages (enum loom_coll_shm_way); the stage
 * serves bcast, scatter and gather "stage" alike, so it is not named for
 * one of them */
static const char *loom_coll_shm_way_name(uint64_t sig)
{
    static const char *const names[] = { "shared-memory slots", "segment's 64 KiB stage",
                                         "in-place reads (cma)", "?" };
    return names[sig >> LOOM_COLL_SHM_SIG_WAY_SHIFT & 3];
}

/* Same call, same root and size, data travelling different ways: the
 * ranks selected different algorithms (coll_shm.h, enum loom_coll_shm_way). */
static loom_status_t loom_coll_shm_way_error(loom_comm_t comm, uint64_t seq, uint64_t mine,
                                             int peer, uint64_t theirs)
{
    const char *kind = loom_coll_kind_name((int)(mine >> 48 & 0xf));

    loom_error("coll", "%s #%llu on %s: rank %d runs it through the %s but rank %d through "
               "the %s (the ranks selected different algorithms: is a LOOM_<COLL>_ALGORITHM or "
               "LOOM_OVERSUBSCRIBED set differently on them?)", kind, (unsigned long long)seq,
               comm->name, comm->rank, loom_coll_shm_way_name(mine), peer,
               loom_coll_shm_way_name(theirs));
    return LOOM_ERR_INVALID_ARG;
}

loom_status_t loom_coll_shm_sig_error(loom_comm_t comm, uint64_t seq, uint64_t mine,
                                      int peer, uint64_t theirs)
{
    int k1 = (int)(mine >> 48 & 0xf), k2 = (int)(theirs >> 48 & 0xf);
    int r1 = (int)(mine >> 52 & 0x7ff), r2 = (int)(theirs >> 52 & 0x7ff);
    unsigned s1 = (unsigned)(mine >> 32 & 0xffff), s2 = (unsigned)(theirs >> 32 & 0xffff);

    if ((theirs & LOOM_COLL_SHM_SIG_ABSENT) && !(mine & LOOM_COLL_SHM_SIG_ABSENT)) {
        loom_error("coll", "%s #%llu on %s: rank %d has nothing from rank %d, which failed "
                   "this call on the mismatch of the collective before it",
                   loom_coll_kind_name(k1), (unsigned long long)seq, comm->name,
                   comm->rank, peer);
        return LOOM_ERR_INVALID_ARG;
    }
    if (s1 != s2) {
        loom_error("coll", "collective #%llu on %s: rank %d is at collective #%u (mod "
                   "65536) but rank %d at #%u, both in the shared-memory %s: a rank "
                   "skipped or added a collective, or ran one by messages that the other "
                   "ran here (the ranks selected different algorithms: is a "
                   "LOOM_<COLL>_ALGORITHM or LOOM_OVERSUBSCRIBED set differently on them?)",
                   (unsigned long long)seq, comm->name, comm->rank, s1, peer, s2,
                   loom_coll_kind_name(k1));
        return LOOM_ERR_INVALID_ARG;
    }
    if (k1 != k2) {
        loom_error("coll", "collective #%llu on %s: rank %d called %s but rank %d called %s",
                   (unsigned long long)seq, comm->name, comm->rank, loom_coll_kind_name(k1),
                   peer, loom_coll_kind_name(k2));
        return LOOM_ERR_INVALID_ARG;
    }
    if (r1 != r2) {
        loom_error("coll", "%s #%llu on %s: rank %d used root %d but rank %d used root %d",
                   loom_coll_kind_name(k1), (unsigned long long)seq, comm->name,
                   comm->rank, r1, peer, r2);
        return LOOM_ERR_INVALID_ROOT;
    }
    if ((mine ^ theirs) & LOOM_COLL_SHM_SIG_BYTES_MASK) {
        loom_error("coll", "%s #%llu on %s: rank %d passed %u bytes but rank %d "
                   "passed %u bytes (different counts or datatypes)", loom_coll_kind_name(k1),
                   (unsigned long long)seq, comm->name, comm->rank,
                   (unsigned)(mine & LOOM_COLL_SHM_SIG_BYTES_MASK), peer,
                   (unsigned)(theirs & LOOM_COLL_SHM_SIG_BYTES_MASK));
        return LOOM_ERR_INVALID_COUNT;
    }
    return loom_coll_shm_way_error(comm, seq, mine, peer, theirs);
    return LOOM_ERR_INVALID_COUNT;
}

loom_status_t loom_coll_shm_wait(loom_coll_state_t *s)
{
    loom_status_t st;

    if (!loom_coll_shm_all_arrived(s)) {
        return loom_coll_idle(s);
    }
    st = loom_coll_shm_check(s);
    s->failed |= st != LOOM_OK;
    ((loom_coll_comm_t *)s->shm)->synced_seq = s->shm_seq;
    return st;
}

loom_status_t loom_coll_shm_wait_root(loom_coll_state_t *s)
{
    loom_status_t st;

    if (atomic_load_explicit(&loom_coll_shm_ctl(s, s->root)->arrived,
                             memory_order_acquire) < s->shm_seq) {
        return loom_coll_idle(s);
    }
    if ((st = loom_coll_shm_check_root(s)) != LOOM_OK) {
        s->failed = 1;
    }
    return st;
}

loom_status_t loom_coll_shm_publish_in(loom_coll_state_t *s, int whole, const void *src,
                                       size_t bytes)
{
    loom_status_t st = loom_coll_shm_enter(s);

    if (st != LOOM_OK) {
        return st;    /* the selection runs it only on a set-up segment */
    }
    memcpy(whole ? loom_coll_shm_slot_whole(s, s->rank) : loom_coll_shm_slot(s, s->rank),
           src, bytes);
    loom_coll_shm_arrive(s);
    return LOOM_OK;
}

loom_status_t loom_coll_shm_exchange(loom_coll_state_t *s, int whole, const void *src,
                                     size_t bytes)
{
    loom_status_t st;

    if (s->phase == 0) {
        if ((st = loom_coll_shm_publish_in(s, whole, src, bytes)) != LOOM_OK) {
            return st;
        }
        s->phase = 1;
    }
    return loom_coll_shm_wait(s);
}

void loom_coll_shm_fold_slots(loom_coll_state_t *s, void *dst)
{
    memcpy(dst, loom_coll_shm_slot(s, s->size - 1), s->count * s->esize);
    for (int q = s->size - 2; q >= 0; --q) {
        loom_coll_reduce(s, loom_coll_shm_slot(s, q), dst, s->count);
    }
}
