/*
 * coll_fast.c: blocking barrier, small bcast, small reduce, small
 * allreduce, small gather, scatter, allgather and alltoall on one node
 * without a request.
 *
 * These are the `fast` members of the shm algorithms' entries: when the
 * selection gives the shared-memory algorithm (coll_api.c asks) and
 * nothing else is queued on the communicator's segment, loom_barrier(),
 * loom_bcast(), loom_reduce(), loom_allreduce(), loom_gather(),
 * loom_scatter(), loom_allgather() and loom_alltoall() run the very steps
 * of barrier_shm.c, bcast_shm.c, reduce_shm.c, allreduce_shm.c,
 * gather_shm.c, scatter_shm.c, allgather_shm.c and alltoall_shm.c
 * (same operation numbers, same slots, same signatures, so ranks on the
 * fast path and ranks on the request path agree) straight from the call:
 *
 *   copy input -> slot[r][n % 2]; sig; arrived[r] = n (release)
 *   spin on arrived[q] >= n (acquire), loom_progress_poll() every
 *       LOOM_COLL_FAST_POLL spins so point-to-point traffic still moves,
 *       and every spin when ranks outnumber cores (yielding the CPU)
 *   compare signatures; fold slot[0] op (... op slot[p-1])
 *
 * No request from the pool, no state machine, no pass over the generic
 * request list: what is left is the cache-line handoff itself. The slow
 * path (mismatch check after a few milliseconds) is the request path's.
 *
 * Ranks outnumber cores (oversubscribed): a waiter yields or spins by
 * where the ranks it waits for last ran (loom_coll_fast_spin). Each core
 * then switches once per operation between its ranks, if the scheduler
 * spread them evenly; a 3 + 1 placement of 4 ranks on 2 cores needs two
 * switches per operation on the crowded core and doubles the time, and the
 * kernel may leave it so for a whole run. Every 256 operations a rank looks
 * at the placement and the highest rank on a crowded CPU moves itself
 * (loom_coll_fast_balance), on trial: it goes back if the job got no
 * faster (LOOM_COLL_REBALANCE=0 turns this off).
 */
#include "coll_fast.h"
#include "coll_shm.h"
#include "bootstrap_int.h"
#include "coll_config_int.h"
#include "log_int.h"

#include <sched.h>

/*
 * spins between two loom_progress_poll() calls: about 160 ns of pauses, so
 * a frame that a rank waiting here must serve (a one-sided request behind
 * a fence's barrier, a rendezvous request) waits at most that long. At 32
 * (1.3 us) an 8 B fetch-and-op + MPI_Win_fence on a Win_create window took
 * 1.2 us against 0.42 at 4; the collectives' own 8 B times did not move
 * (alternating runs, np 2 and 4, session 17).
 */
#define LOOM_COLL_FAST_POLL 4u

/* ranks outnumber cores: polls in a row before yielding even when every
 * rank waited for last ran on another CPU (about 3 us here, a pause takes
 * ~40 ns: two context switches, the longest a rank being switched in there
 * should take; longer, and it was descheduled or moved here) */
#define LOOM_COLL_FAST_SPIN_MAX 64u

/* Ranks outnumber cores: tell the waiters where we run (a hint, relaxed);
 * stored only when it changed, since each store takes the line away from
 * every waiter that reads it. */
static void loom_coll_fast_cpu_put(loom_coll_shm_aux_t *aux, uint32_t cpu)
{
    if (atomic_load_explicit(&aux->cpu, memory_order_relaxed) != cpu) {
        atomic_store_explicit(&aux->cpu, cpu, memory_order_relaxed);
    }
}

/* ranks outnumber cores: fast-path operations between two looks at the
 * placement of the ranks (loom_coll_fast_balance) */
#define LOOM_COLL_FAST_BALANCE_EVERY 256u
/* moves a thread makes at most: past them the placement is the kernel's
 * (other work on the node, which it balances against, is not ours to see) */
#define LOOM_COLL_FAST_BALANCE_MOVES 2

/* per thread: sched_setaffinity(0) moves the calling thread */
static _Thread_local unsigned loom_coll_fast_balance_ops;
static _Thread_local int      loom_coll_fast_balance_seen;   /* crowded at the last look */
static _Thread_local int      loom_coll_fast_balance_moves;
static _Thread_local double   loom_coll_fast_balance_t0;     /* start of this window */
static _Thread_local double   loom_coll_fast_balance_before; /* the window before a move */
static _Thread_local int      loom_coll_fast_balance_from = -1;  /* CPU left, on trial */

/* Move this thread to @p cpu and give it back the mask @p allowed. */
static int loom_coll_fast_move(int cpu, const cpu_set_t *allowed)
{
    cpu_set_t one;

    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0) {
        return -1;
    }
    (void)sched_setaffinity(0, sizeof(*allowed), allowed);
    return 0;
}

/*
 * A move is a trial: the window of operations after it must be at least a
 * tenth faster than the one before, or the thread goes back and stops
 * moving. The job's operations advance together, so one rank's window is
 * the job's rate; other work on the node, which the kernel balances
 * against and we do not see, shows here as a slower window.
 */
static void loom_coll_fast_balance_judge(void *base, int size, int rank, double window,
                                         const cpu_set_t *allowed)
{
    int from = loom_coll_fast_balance_from;

    loom_coll_fast_balance_from = -1;
    if (window < 0.9 * loom_coll_fast_balance_before) {
        return;
    }
    loom_coll_fast_balance_moves = LOOM_COLL_FAST_BALANCE_MOVES;
    if (CPU_ISSET(from, allowed) && loom_coll_fast_move(from, allowed) == 0) {
        loom_coll_fast_cpu_put(loom_coll_shm_aux_at(base, size, rank), (uint32_t)from + 1);
    }
    loom_debug("coll", "rank %d of %d: %.1f us per operation after moving, %.1f before: "
               "back on CPU %d", rank, size, window * 1e6 / LOOM_COLL_FAST_BALANCE_EVERY,
               loom_coll_fast_balance_before * 1e6 / LOOM_COLL_FAST_BALANCE_EVERY, from);
}

/*
 * Ranks outnumber cores, and a look at the CPU hints found our CPU crowded
 * (loom_coll_shm_balance_target): move there once the next look (256
 * operations later) finds the same, i.e. the kernel did not fix it in the
 * meantime, then give the CPU mask back so this thread stays as unbound as
 * it was; keep the move only if it paid (loom_coll_fast_balance_judge).
 * Only a communicator of every rank on the node sees the whole placement.
 */
static void loom_coll_fast_balance(void *base, int size, int rank, uint32_t mycpu)
{
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    double now = loom_wtime(), window = now - loom_coll_fast_balance_t0;
    cpu_set_t allowed;
    int target;

    loom_coll_fast_balance_ops = 0;
    loom_coll_fast_balance_t0  = now;
    if (!loom_config_int(LOOM_COLL_CFG(REBALANCE))) {
        loom_coll_fast_balance_moves = LOOM_COLL_FAST_BALANCE_MOVES;
        return;
    }
    if (info == NULL || size != info->local_size ||
        sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
        return;
    }
    if (loom_coll_fast_balance_from >= 0) {
        loom_coll_fast_balance_judge(base, size, rank, window, &allowed);
        return;
    }
    target = loom_coll_shm_balance_target(loom_coll_shm_aux_at(base, size, 0), size, rank,
                                          &allowed);
    if (target < 0 || !loom_coll_fast_balance_seen) {
        loom_coll_fast_balance_seen = target >= 0;   /* the kernel may be moving it now */
        return;
    }
    loom_coll_fast_balance_seen = 0;
    if (loom_coll_fast_move(target, &allowed) == 0) {
        loom_debug("coll", "rank %d of %d: more of the node's ranks ran on CPU %u than on "
                   "CPU %d; moved there (LOOM_COLL_REBALANCE)", rank, size, mycpu - 1, target);
        loom_coll_fast_cpu_put(loom_coll_shm_aux_at(base, size, rank), (uint32_t)target + 1);
        loom_coll_fast_balance_before = window;
        loom_coll_fast_balance_from   = (int)mycpu - 1;
        ++loom_coll_fast_balance_moves;
    }
}

/* Ranks outnumber cores: where we run, for the waiters' choice; now and
 * then, a look at the placement. */
static __attribute__((noinline)) void loom_coll_fast_oversub_start(void *base, int size,
                                                                   int rank)
{
    uint32_t cpu = (uint32_t)(sched_getcpu() + 1);

    loom_coll_fast_cpu_put(loom_coll_shm_aux_at(base, size, rank), cpu);
    if (++loom_coll_fast_balance_ops >= LOOM_COLL_FAST_BALANCE_EVERY &&
        (loom_coll_fast_balance_moves < LOOM_COLL_FAST_BALANCE_MOVES ||
         loom_coll_fast_balance_from >= 0)) {
        loom_coll_fast_balance(base, size, rank, cpu);
    }
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
    s->failed     = 0;            /* the slow path's fields: loom_coll_fast_wait_slow */
    loom_coll_record_put(cc, s->seq, type, root);
    if (loom_unlikely(cc->oversub)) {
        loom_coll_fast_oversub_start(cc->base, s->size, s->rank);
    }
}

/*
 * One look at the ranks [s->peer, end) not yet seen (inline: the common
 * case is one peer line that is already there, or not yet).
 */
static inline int loom_coll_fast_arrived(loom_coll_state_t *s, int end)
{
    const loom_coll_comm_t *cc = s->shm;
    const char *base = cc->base;

    for (; s->peer < end; ++s->peer) {
        const loom_coll_shm_ctl_t *c = (const void *)(base + (size_t)s->peer *
                                                      LOOM_COLL_SHM_RANK_BYTES);
        if (atomic_load_explicit(&c->arrived, memory_order_acquire) < s->shm_seq) {
            return 0;
        }
    }
    return 1;
}

/*
 * Ranks outnumber cores: give the core away now? Yes if a rank still
 * missing last ran on our CPU (or we do not know where it ran): we may be
 * what keeps it off. If every missing rank runs elsewhere, spinning sees
 * its arrival at once, where a yield would hand the core to a rank that
 * has nothing to do but yield it back (a context switch each way); the
 * spin is bounded (LOOM_COLL_FAST_SPIN_MAX) in case that rank was
 * descheduled there or moved here.
 */
static int loom_coll_fast_should_yield(const loom_coll_state_t *s, uint32_t mycpu, int end)
{
    for (int q = s->peer; q < end; ++q) {
        const loom_coll_shm_ctl_t *c = loom_coll_shm_ctl(s, q);
        uint32_t cpu;

        if (atomic_load_explicit(&c->arrived, memory_order_acquire) >= s->shm_seq) {
            continue;
        }
        cpu = atomic_load_explicit(&loom_coll_shm_aux(s, q)->cpu, memory_order_relaxed);
        if (cpu == 0 || cpu == mycpu) {
            return 1;
        }
    }
    return 0;
}

/*
 * Spin until every rank arrived. Ranks on their own cores poll with a pause
 * and run loom_progress_poll() every LOOM_COLL_FAST_POLL spins. When ranks
 * outnumber cores a waiting rank gives its core away at once when a rank
 * it waits for may need that core (loom_coll_fast_should_yield), polling
 * the engine once per yield, and spins as above (at most
 * LOOM_COLL_FAST_SPIN_MAX polls in a row) when all of them run elsewhere.
 */
static loom_status_t loom_coll_fast_spin(loom_coll_state_t *s, int end)
{
    int oversub = ((loom_coll_comm_t *)s->shm)->oversub;
    uint32_t mycpu = oversub ? (uint32_t)(sched_getcpu() + 1) : 0;
    unsigned spins = 0;
    loom_status_t st;

    while (!loom_coll_fast_arrived(s, end)) {
        ++spins;
        if (oversub && (spins >= LOOM_COLL_FAST_SPIN_MAX ||
                        loom_coll_fast_should_yield(s, mycpu, end))) {
            spins = 0;
            loom_progress_idle();
            mycpu = (uint32_t)(sched_getcpu() + 1);   /* we may come back elsewhere */
            loom_coll_fast_cpu_put(loom_coll_shm_aux(s, s->rank), mycpu);
            (void)loom_progress_poll();
        } else if (spins % LOOM_COLL_FAST_POLL != 0) {
            loom_cpu_relax();
            continue;
        } else {
            (void)loom_progress_poll();
        }
        st = loom_coll_idle(s);       /* the mismatch check, after a while */
        if (st != LOOM_INPROGRESS) {
            return st;
        }
    }
    return LOOM_OK;
}

/*
 * The wait proper, out of line: only a rank that finds somebody missing
 * comes here. The wait runs outside any request, so it tells the progress
 * engine which collective it is inside: a hang report then names
 * "allreduce #12 on WORLD" instead of a bare loom_progress.
 */
static __attribute__((noinline)) loom_status_t
loom_coll_fast_wait_slow(loom_coll_state_t *s, const char *call, int end)
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

    s->idle          = 0;
    s->idle_check    = 0;
    s->failures_seen = 0;
    s->is_child      = 0;
    loom_progress_coll_enter(&pc);
    st = loom_coll_fast_spin(s, end);
    loom_progress_coll_leave(&pc);
    return st;
}

/*
 * Wait for every rank's arrival, then compare signatures. @p call is the
 * public name, "loom_allreduce". The last rank to arrive finds everybody
 * there at the first look and skips the waiting machinery.
 */
static inline loom_status_t loom_coll_fast_wait(loom_coll_state_t *s, const char *call)
{
    loom_status_t st;

    if (loom_unlikely(!loom_coll_fast_arrived(s, s->size)) &&
        (st = loom_coll_fast_wait_slow(s, call, s->size)) != LOOM_OK) {
        return st;
    }
    st = loom_coll_shm_check(s);
    s->failed |= st != LOOM_OK;
    ((loom_coll_comm_t *)s->shm)->synced_seq = s->shm_seq;
    return st;
}

/*
 * The previous operation was eager (coll_shm.h): wait until every rank
 * arrived at it and compare its signatures, as loom_coll_shm_catch_up
 * does on the request path. On a mismatch the caller still arrives at
 * this operation, as absent (loom_coll_shm_arrive_as): the others find the
 * same mismatch, or that this rank took no part in this one.
 */
static __attribute__((noinline)) loom_status_t
loom_coll_fast_catch_up(loom_coll_state_t *s, const char *call)
{
    loom_coll_comm_t *cc = s->shm;
    uint64_t n = s->shm_seq, seq = s->seq;
    loom_status_t st = LOOM_OK;

    s->shm_seq = n - 1;
    if (!loom_coll_fast_arrived(s, s->size)) {
        st = loom_coll_fast_wait_slow(s, call, s->size);
    }
    if (st == LOOM_OK) {
        s->seq = cc->eager_seq;
        st = loom_coll_shm_check_sigs(s, LOOM_COLL_SHM_SIG_ABSENT);
        s->seq = seq;
    }
    s->shm_seq     = n;
    s->peer        = 0;
    cc->synced_seq = n - 1;
    s->failed |= st != LOOM_OK;
    return st;
}

/* LOOM_OK, or the previous (eager) operation's mismatch */
static inline loom_status_t loom_coll_fast_pre(loom_coll_state_t *s, const char *call)
{
    if (loom_likely(loom_coll_shm_synced(s))) {
        return LOOM_OK;
    }
    return loom_coll_fast_catch_up(s, call);
}

static inline loom_status_t loom_coll_fast_end(loom_coll_state_t *s, loom_status_t st,
                                               const char *who)
{
    loom_coll_comm_t *cc = s->shm;

    cc->done_seq = s->shm_seq;
    if (loom_unlikely(st != LOOM_OK) && cc->synced_seq < s->shm_seq) {
        cc->eager_seq = s->seq;   /* left unsynced: the next one's catch-up names it */
    }
    cc->recent[s->seq % LOOM_COLL_RECENT] |= LOOM_COLL_REC_DONE |
                                             (s->failed ? LOOM_COLL_REC_FAILED : 0);
    return st == LOOM_OK ? LOOM_OK : loom_p2p_error(st, who);
}

/*
 * First steps of an eager operation (bcast, reduce, gather, scatter: some
 * ranks return without seeing the others): take its numbers, catch up on
 * the eager operation before it, and name this one the last eager one.
 * @return LOOM_OK, or the previous operation's mismatch (the caller still
 * arrives, as absent).
 */
static inline loom_status_t loom_coll_fast_eager_start(loom_coll_state_t *s, loom_comm_t comm,
                                                       loom_coll_type_t type, int root,
                                                       size_t count, size_t esize,
                                                       const char *call)
{
    loom_coll_comm_t *cc = comm->coll_priv;    /* idle: loom_coll_comm_fast_ready */
    loom_status_t st;

    loom_coll_fast_start(s, comm, cc, type, root);
    s->count = count;
    s->esize = esize;
    st = loom_coll_fast_pre(s, call);
    cc->eager_seq = s->seq;
    return st;
}

loom_status_t loom_coll_fast_barrier(loom_comm_t comm)
{
    loom_coll_comm_t *cc = comm->coll_priv;    /* idle: loom_coll_comm_fast_ready */
    loom_coll_state_t s;

    loom_status_t st;

    loom_coll_fast_start(&s, comm, cc, LOOM_COLL_BARRIER, 0);
    s.count = 0;
    s.esize = 1;
    st = loom_coll_fast_pre(&s, "loom_barrier");
    loom_coll_shm_arrive_as(&s, st != LOOM_OK);
    if (st == LOOM_OK) {
        st = loom_coll_fast_wait(&s, "loom_barrier");
    }
    return loom_coll_fast_end(&s, st, "loom_barrier");
}

/* result = slot[0] op (slot[1] op (... op slot[p-1])), the shm algorithm's
 * fold, with the admitted kernel (or loom_op_apply on the type and op) */
static inline void loom_coll_fast_fold(loom_coll_state_t *s, void *rbuf,
                                       const loom_coll_fast_ar_t *how)
{
    loom_op_kernel_fn_t kernel = how->kernel;

    if (kernel == NULL) {
        s->unit = 1;    /* the fold takes the whole vector: whole elements of any op */
        s->dt   = how->dt;
        s->op   = how->op;
    }
    loom_copy_small(rbuf, loom_coll_shm_slot(s, s->size - 1), s->count * s->esize);
    for (int q = s->size - 2; q >= 0; --q) {
        if (loom_likely(kernel != NULL)) {
            kernel(loom_coll_shm_slot(s, q), rbuf, s->count);
        } else {
            loom_coll_reduce(s, loom_coll_shm_slot(s, q), rbuf, s->count);
        }
    }
}

loom_status_t loom_coll_fast_allreduce(const void *sbuf, void *rbuf, size_t count,
                                       loom_datatype_t dt, const loom_coll_fast_ar_t *how,
                                       loom_comm_t comm)
{
    (void)dt;    /* how->dt: the type is read only by loom_op_apply's fold */
    loom_coll_comm_t *cc = comm->coll_priv;    /* idle: loom_coll_comm_fast_ready */
    size_t esize = how->esize;
    loom_coll_state_t s;
    loom_status_t st;

    loom_coll_fast_start(&s, comm, cc, LOOM_COLL_ALLREDUCE, 0);
    s.count = count;
    s.esize = esize;
    if (loom_unlikely((st = loom_coll_fast_pre(&s, "loom_allreduce")) != LOOM_OK)) {
        loom_coll_shm_arrive_as(&s, 1);
        return loom_coll_fast_end(&s, st, "loom_allreduce");
    }
    loom_copy_small(loom_coll_shm_slot(&s, s.rank), sbuf == LOOM_IN_PLACE ? rbuf : sbuf,
                    count * esize);
    loom_coll_shm_arrive(&s);
    st = loom_coll_fast_wait(&s, "loom_allreduce");
    if (st == LOOM_OK) {
        loom_coll_fast_fold(&s, rbuf, how);
    }
    return loom_coll_fast_end(&s, st, "loom_allreduce");
}

/*
 * Wait for rank @p q's arrival only, then compare its signature with ours
 * (the eager operations: bcast's non-roots wait for the root).
 */
static inline loom_status_t loom_coll_fast_wait_one(loom_coll_state_t *s, int q,
                                                    const char *call)
{
    size_t par = s->shm_seq & 1;
    uint64_t mine, theirs;
    loom_status_t st;

    s->peer = q;
    if (loom_unlikely(!loom_coll_fast_arrived(s, q + 1)) &&
        (st = loom_coll_fast_wait_slow(s, call, q + 1)) != LOOM_OK) {
        return st;
    }
    mine   = loom_coll_shm_ctl(s, s->rank)->sig[par];
    theirs = loom_coll_shm_ctl(s, q)->sig[par];
    if (loom_likely(mine == theirs)) {
        return LOOM_OK;
    }
    s->failed = 1;
    return loom_coll_shm_sig_error(s->comm, s->seq, mine, q, theirs);
}

/* bcast_shm.c's eager steps: the root publishes and returns, the others
 * wait for the root only */
loom_status_t loom_coll_fast_bcast(void *buf, size_t count, size_t esize, int root,
                                   loom_comm_t comm)
{
    loom_coll_state_t s;
    loom_status_t st = loom_coll_fast_eager_start(&s, comm, LOOM_COLL_BCAST, root, count,
                                                  esize, "loom_bcast");

    if (s.rank == root) {
        if (st == LOOM_OK) {
            loom_copy_small(loom_coll_shm_slot(&s, s.rank), buf, count * esize);
        }
        loom_coll_shm_arrive_as(&s, st != LOOM_OK);
        return loom_coll_fast_end(&s, st, "loom_bcast");
    }
    loom_coll_shm_arrive_as(&s, st != LOOM_OK);
    if (st == LOOM_OK && (st = loom_coll_fast_wait_one(&s, root, "loom_bcast")) == LOOM_OK) {
        loom_copy_small(buf, loom_coll_shm_slot(&s, root), count * esize);
    }
    return loom_coll_fast_end(&s, st, "loom_bcast");
}

/* reduce_shm.c's eager steps: every rank publishes its input, only the
 * root waits (for everybody) and folds */
loom_status_t loom_coll_fast_reduce(const void *sbuf, void *rbuf, size_t count,
                                    const loom_coll_fast_ar_t *how, int root,
                                    loom_comm_t comm)
{
    loom_coll_state_t s;
    loom_status_t st = loom_coll_fast_eager_start(&s, comm, LOOM_COLL_REDUCE, root, count,
                                                  how->esize, "loom_reduce");

    if (st == LOOM_OK) {
        loom_copy_small(loom_coll_shm_slot(&s, s.rank), sbuf == LOOM_IN_PLACE ? rbuf : sbuf,
                        count * how->esize);
    }
    loom_coll_shm_arrive_as(&s, st != LOOM_OK);
    if (s.rank != root || st != LOOM_OK) {
        return loom_coll_fast_end(&s, st, "loom_reduce");
    }
    st = loom_coll_fast_wait(&s, "loom_reduce");
    if (st == LOOM_OK) {
        loom_coll_fast_fold(&s, rbuf, how);
    }
    return loom_coll_fast_end(&s, st, "loom_reduce");
}

/* gather_shm.c's eager steps: the non-roots publish their block (in their
 * slot, or block r of the stage: @p stage) and return, the root waits for
 * everybody and copies the blocks out */
static inline loom_status_t loom_coll_fast_gather_in(const void *sbuf, void *rbuf, size_t bytes,
                                                     int root, loom_comm_t comm, int stage)
{
    loom_coll_state_t s;
    loom_status_t st = loom_coll_fast_eager_start(&s, comm, LOOM_COLL_GATHER, root, bytes, 1,
                                                  "loom_gather");
    enum loom_coll_shm_way way = loom_coll_shm_way_of(stage);

    if (s.rank != root) {
        if (st == LOOM_OK) {
            loom_copy_small(loom_coll_shm_gather_block(&s, s.rank, bytes, stage), sbuf, bytes);
        }
        loom_coll_shm_arrive_way(&s, st != LOOM_OK, way);
        return loom_coll_fast_end(&s, st, "loom_gather");
    }
    loom_coll_shm_arrive_way(&s, st != LOOM_OK, way);
    if (st == LOOM_OK && (st = loom_coll_fast_wait(&s, "loom_gather")) == LOOM_OK) {
        for (int q = 0; q < s.size; ++q) {
            char *dst = (char *)rbuf + (size_t)q * bytes;
            if (q != root) {
                loom_copy_small(dst, loom_coll_shm_gather_block(&s, q, bytes, stage), bytes);
            } else if (sbuf != LOOM_IN_PLACE) {
                memcpy(dst, sbuf, bytes);
            }
        }
    }
    return loom_coll_fast_end(&s, st, "loom_gather");
}

loom_status_t loom_coll_fast_gather(const void *sbuf, void *rbuf, size_t bytes, int root,
                                    loom_comm_t comm)
{
    return loom_coll_fast_gather_in(sbuf, rbuf, bytes, root, comm, 0);
}

loom_status_t loom_coll_fast_gather_stage(const void *sbuf, void *rbuf, size_t bytes, int root,
                                          loom_comm_t comm)
{
    return loom_coll_fast_gather_in(sbuf, rbuf, bytes, root, comm, 1);
}

/* scatter_shm.c's eager steps: the root publishes its p blocks (in its
 * whole slot, or in the stage: @p stage) and returns, the others wait for
 * the root only */
static inline loom_status_t loom_coll_fast_scatter_in(const void *sbuf, void *rbuf, size_t bytes,
                                                      int root, loom_comm_t comm, int stage)
{
    loom_coll_state_t s;
    loom_status_t st = loom_coll_fast_eager_start(&s, comm, LOOM_COLL_SCATTER, root, bytes, 1,
                                                  "loom_scatter");
    enum loom_coll_shm_way way = loom_coll_shm_way_of(stage);

    if (s.rank == root) {
        if (st == LOOM_OK) {
            memcpy(loom_coll_shm_scatter_area(&s, root, stage), sbuf, bytes * (size_t)s.size);
        }
        loom_coll_shm_arrive_way(&s, st != LOOM_OK, way);
        if (st == LOOM_OK && rbuf != LOOM_IN_PLACE) {
            memcpy(rbuf, (const char *)sbuf + (size_t)s.rank * bytes, bytes);
        }
        return loom_coll_fast_end(&s, st, "loom_scatter");
    }
    loom_coll_shm_arrive_way(&s, st != LOOM_OK, way);
    if (st == LOOM_OK && (st = loom_coll_fast_wait_one(&s, root, "loom_scatter")) == LOOM_OK) {
        loom_copy_small(rbuf, loom_coll_shm_scatter_area(&s, root, stage) + (size_t)s.rank * bytes,
                        bytes);
    }
    return loom_coll_fast_end(&s, st, "loom_scatter");
}

loom_status_t loom_coll_fast_scatter(const void *sbuf, void *rbuf, size_t bytes, int root,
                                     loom_comm_t comm)
{
    return loom_coll_fast_scatter_in(sbuf, rbuf, bytes, root, comm, 0);
}

loom_status_t loom_coll_fast_scatter_stage(const void *sbuf, void *rbuf, size_t bytes, int root,
                                           loom_comm_t comm)
{
    return loom_coll_fast_scatter_in(sbuf, rbuf, bytes, root, comm, 1);
}

/* allgather_shm.c's steps: every rank publishes its block, waits for
 * everybody and copies every block out */
loom_status_t loom_coll_fast_allgather(const void *sbuf, void *rbuf, size_t bytes, int root,
                                       loom_comm_t comm)
{
    (void)root;
    loom_coll_comm_t *cc = comm->coll_priv;    /* idle: loom_coll_comm_fast_ready */
    char *own = (char *)rbuf + (size_t)comm->rank * bytes;
    loom_coll_state_t s;
    loom_status_t st;

    loom_coll_fast_start(&s, comm, cc, LOOM_COLL_ALLGATHER, 0);
    s.count = bytes;
    s.esize = 1;
    if (loom_unlikely((st = loom_coll_fast_pre(&s, "loom_allgather")) != LOOM_OK)) {
        loom_coll_shm_arrive_as(&s, 1);
        return loom_coll_fast_end(&s, st, "loom_allgather");
    }
    loom_copy_small(loom_coll_shm_slot(&s, s.rank), sbuf == LOOM_IN_PLACE ? own : sbuf, bytes);
    loom_coll_shm_arrive(&s);
    if ((st = loom_coll_fast_wait(&s, "loom_allgather")) == LOOM_OK) {
        for (int q = 0; q < s.size; ++q) {
            if (q != s.rank) {
                loom_copy_small((char *)rbuf + (size_t)q * bytes, loom_coll_shm_slot(&s, q),
                                bytes);
            }
        }
        if (sbuf != LOOM_IN_PLACE) {
            loom_copy_small(own, sbuf, bytes);
        }
    }
    return loom_coll_fast_end(&s, st, "loom_allgather");
}

/* alltoall_shm.c's steps: every rank publishes its p blocks in its whole
 * slot, waits for everybody and copies its block of every slot out */
loom_status_t loom_coll_fast_alltoall(const void *sbuf, void *rbuf, size_t bytes, int root,
                                      loom_comm_t comm)
{
    (void)root;
    loom_coll_comm_t *cc = comm->coll_priv;    /* idle: loom_coll_comm_fast_ready */
    loom_coll_state_t s;
    loom_status_t st;

    loom_coll_fast_start(&s, comm, cc, LOOM_COLL_ALLTOALL, 0);
    s.count = bytes;
    s.esize = 1;
    if (loom_unlikely((st = loom_coll_fast_pre(&s, "loom_alltoall")) != LOOM_OK)) {
        loom_coll_shm_arrive_as(&s, 1);
        return loom_coll_fast_end(&s, st, "loom_alltoall");
    }
    memcpy(loom_coll_shm_slot_whole(&s, s.rank), sbuf == LOOM_IN_PLACE ? rbuf : sbuf,
           bytes * (size_t)s.size);
    loom_coll_shm_arrive(&s);
    if ((st = loom_coll_fast_wait(&s, "loom_alltoall")) == LOOM_OK) {
        for (int q = 0; q < s.size; ++q) {
            loom_copy_small((char *)rbuf + (size_t)q * bytes,
                            (const char *)loom_coll_shm_slot_whole(&s, q) +
                            (size_t)s.rank * bytes, bytes);
        }
    }
    return loom_coll_fast_end(&s, st, "loom_alltoall");
}
