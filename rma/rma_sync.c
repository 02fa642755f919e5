/*
 * rma_sync.c: fence, passive target (lock/unlock, lock_all, flush, sync)
 * and PSCW (post/start/complete/wait/test).
 *
 * Every call first asks the epoch state machine (rma_epoch.c) whether it
 * may run, then does the communication:
 *   fence      flush every target (done == sent), then a barrier on the
 *              window's communicator;
 *   lock       active messages: LOCK, answered when granted (the target
 *              queues it while an incompatible holder exists, and holds
 *              the origin's operations and UNLOCK until then); lock
 *              returns at once (to its own rank: at the grant); unlock
 *              sends UNLOCK behind the operations and waits for every
 *              answer (served in order: one round trip for lock, op,
 *              unlock). MPI_MODE_NOCHECK skips the protocol. Windows
 *              in a shared segment lock with CPU atomics on the
 *              target's lock word in the segment instead;
 *   flush      progress until done == sent (shared windows: a fence);
 *              windows in a shared segment never have anything in flight
 *              (their operations complete in the call), so their unlock,
 *              unlock_all and flush skip the waiting altogether;
 *   sync       a fence; on every other window also one progress pass,
 *              and so do unlock_all and the unlock of one's own lock on
 *              lock words (CMA, RDMA): a rank polling its own memory with
 *              those calls serves the requests other origins sent it by
 *              message;
 *   post/start a POST notice to each origin; start waits for one from
 *              each target; complete flushes and sends COMPLETE; wait/test
 *              count the COMPLETE notices of the post group.
 */
#include "rma_priv.h"

#include <stdlib.h>
#include <string.h>

/* lock words in a shared segment: direct windows, and CMA ones (header only) */
static int loom_rma_is_shm(const loom_rma_win_t *w)
{
    return w->direct || w->cma;
}

/*
 * Locks by LOCK/UNLOCK messages, served in order with the operations (so an
 * UNLOCK may follow them unwaited); lock words (shared segment, RDMA) are
 * not ordered with messages in flight: flush first there.
 */
static int loom_rma_locks_by_msg(const loom_rma_win_t *w)
{
    return !loom_rma_is_shm(w) && w->rdma == NULL;
}

loom_status_t loom_rma_flush(loom_rma_win_t *w, int target)
{
    loom_status_t st = loom_rma_epoch_flush(&w->ep, target);

    if (st != LOOM_OK) {
        return st;
    }
    atomic_thread_fence(memory_order_seq_cst);
    if (w->direct) {
        return LOOM_OK;   /* nothing in flight */
    }
    loom_progress();   /* serve others even when nothing of ours is pending */
    return loom_rma_am_flush(w, target);
}

void loom_rma_mem_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

/*
 * Win_sync is MPI's call for polling one's own window memory in a passive
 * epoch (the unified model): a rank that waits for another's put that way
 * makes no other MPI call, so the call serves the requests that came by
 * message (review of session 17: since puts and gets of at most 4 KiB on
 * CMA windows go by message, the origin's flush waited for ever for a
 * target polling with Win_sync; accumulates, and every operation on
 * active-message windows, did before). A window in a shared segment needs
 * no one's progress: the fence alone (the binding's inline flush of such
 * a window calls loom_rma_mem_fence, without the test).
 */
loom_status_t loom_rma_sync(loom_rma_win_t *w)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!w->direct) {
        loom_progress();
    }
    return LOOM_OK;
}

loom_status_t loom_rma_fence(loom_rma_win_t *w, int assert_flags)
{
    loom_status_t st = loom_rma_epoch_fence(&w->ep, assert_flags);
    loom_status_t bst;

    if (st != LOOM_OK) {
        return st;
    }
    atomic_thread_fence(memory_order_seq_cst);
    st  = loom_rma_am_flush(w, -1);
    bst = loom_barrier(w->comm);
    atomic_thread_fence(memory_order_seq_cst);
    return st != LOOM_OK ? st : bst;
}

/* the LOCK / UNLOCK exchange with one target: send, wait the answer */
static loom_status_t loom_rma_lock_msg(loom_rma_win_t *w, int target, loom_rma_kind_t kind,
                                       int type)
{
    loom_rma_hdr_t h = { 0 };
    loom_status_t st;

    /* another rank: an entry of its batch, so lock, the operations and unlock
     * travel as one message and are answered by one ACK (rma_am.c) */
    if (kind == LOOM_RMA_K_UNLOCK) {
        loom_rma_zc_gets_settle(w, target);   /* its window is read no more */
    }
    h.kind = (uint8_t)kind;
    h.arg  = type;
    if (target != w->rank && loom_rma_am_queue(w, target, &h, sizeof(h))) {
        return LOOM_OK;   /* counted */
    }
    st = loom_rma_am_ctrl(w, target, kind, type);

    if (st == LOOM_OK) {
        ++w->sent[target];
    }
    return st;
}

static loom_status_t loom_rma_lock_one(loom_rma_win_t *w, int type, int target, int nocheck)
{
    if (nocheck) {
        return LOOM_OK;
    }
    if (loom_rma_is_shm(w)) {
        loom_rma_shm_lock(w, target, type);
        return LOOM_OK;
    }
    if (w->rdma != NULL) {
        return loom_rma_rdma_lock(w, target, type);   /* remote atomics (rma_ib.c) */
    }
    return loom_rma_lock_msg(w, target, LOOM_RMA_K_LOCK, type);
}

static loom_status_t loom_rma_unlock_one(loom_rma_win_t *w, int target, int nocheck)
{
    if (nocheck) {
        return LOOM_OK;
    }
    if (loom_rma_is_shm(w)) {
        loom_rma_shm_unlock(w, target);
        return LOOM_OK;
    }
    if (w->rdma != NULL) {
        return loom_rma_rdma_unlock(w, target);
    }
    return loom_rma_lock_msg(w, target, LOOM_RMA_K_UNLOCK, 0);
}

/* which targets were locked with NOCHECK (no unlock message then) */
static uint8_t *loom_rma_nocheck(loom_rma_win_t *w)
{
    return w->ep.started;   /* unused while a passive epoch is open */
}

static void loom_rma_nocheck_clear(loom_rma_win_t *w)
{
    /* size > 0 always; said so for GCC, which otherwise warns of a
     * negative size after inlining the flushes before the call */
    if (w->size > 0) {
        memset(loom_rma_nocheck(w), 0, (size_t)w->size);
    }
}

/*
 * Wait for the grant of @p target and return its own answer: an error
 * deferred earlier for that target (none should be) stays for the next
 * flush of it instead of being taken for a refusal.
 */
static loom_status_t loom_rma_grant_wait(loom_rma_win_t *w, int target)
{
    loom_status_t prev = loom_rma_am_take_err(w, target);
    loom_status_t st;

    loom_rma_am_settle(w, target);
    st = loom_rma_am_take_err(w, target);
    w->deferred[target] = prev;
    return st;
}

loom_status_t loom_rma_lock(loom_rma_win_t *w, int lock_type, int target, int assert_flags)
{
    int nocheck = (assert_flags & LOOM_RMA_MODE_NOCHECK) != 0;
    loom_status_t st;

    if (lock_type != LOOM_RMA_LOCK_SHARED && lock_type != LOOM_RMA_LOCK_EXCLUSIVE) {
        return LOOM_RMA_ERR_LOCKTYPE;
    }
    if ((st = loom_rma_epoch_lock(&w->ep, target)) != LOOM_OK) {
        return st;
    }
    loom_rma_nocheck(w)[target] = (uint8_t)nocheck;
    if (loom_rma_is_shm(w)) {   /* a CAS on the lock word: nothing to undo */
        if (!nocheck) {
            loom_rma_shm_lock(w, target, lock_type);
        }
        return LOOM_OK;
    }
    st = loom_rma_lock_one(w, lock_type, target, nocheck);
    /* Active messages: the target holds our operations and UNLOCK until it
     * grants (rma_am.c), so only our own memory, accessed here, waits for
     * the grant; a refusal reaches the next flush or unlock. RDMA: granted. */
    if (st == LOOM_OK && !nocheck && loom_rma_locks_by_msg(w) && target == w->rank) {
        st = loom_rma_grant_wait(w, target);
    }
    if (st != LOOM_OK) {   /* not granted: the target holds nothing for us */
        loom_rma_nocheck(w)[target] = 0;
        loom_rma_epoch_unlock(&w->ep, target);
    }
    return st;
}

loom_status_t loom_rma_unlock(loom_rma_win_t *w, int target)
{
    loom_status_t st, ost;
    int nocheck;

    if (target < 0 || target >= w->size) {
        return LOOM_ERR_INVALID_RANK;
    }
    if (w->ep.access != LOOM_RMA_ACCESS_LOCK || !w->ep.locked[target]) {
        return LOOM_RMA_ERR_SYNC;
    }
    nocheck = loom_rma_nocheck(w)[target];
    if (w->direct) {   /* nothing in flight; the lock word's release orders the stores */
        if (nocheck) {
            atomic_thread_fence(memory_order_seq_cst);
        } else {
            loom_rma_shm_unlock(w, target);
        }
        loom_rma_nocheck(w)[target] = 0;
        return loom_rma_epoch_unlock(&w->ep, target);
    }
    if (!loom_rma_locks_by_msg(w)) {   /* the operations, then the lock word */
        /* Its own lock: one pass for the others first. A rank that polls
         * its own memory with lock / read / unlock of itself makes no other
         * MPI call, and what other origins sent it by message waits for it
         * (accumulates; on CMA windows, since session 17, puts and gets of
         * at most 4 KiB): their flush waited for ever (review of session
         * 17). Another target's unlock pays nothing (a pass is about 220
         * instructions); by message, the unlock's own wait progresses;
         * direct windows need no one's progress. */
        if (target == w->rank) {
            loom_progress();
        }
        ost = loom_rma_am_flush(w, target);
        st  = loom_rma_unlock_one(w, target, nocheck);
        st  = st == LOOM_OK ? loom_rma_am_flush(w, target) : st;
    } else {   /* served in order: the UNLOCK goes behind the operations, one wait */
        st  = loom_rma_unlock_one(w, target, nocheck);
        ost = loom_rma_am_flush(w, target);   /* operations, grant, the unlock's answer */
    }
    loom_rma_nocheck(w)[target] = 0;
    loom_rma_epoch_unlock(&w->ep, target);
    return ost != LOOM_OK ? ost : st;
}

/*
 * Lock_all failed (a LOCK not sent to target @p nsent, or a refused grant):
 * unlock every target that granted, take the errors of this exchange, and
 * close the epoch, so nobody stays locked for us. Returns @p st.
 */
static loom_status_t loom_rma_lock_all_undo(loom_rma_win_t *w, int nsent, loom_status_t st)
{
    loom_rma_am_settle(w, -1);
    for (int r = 0; r < nsent; ++r) {
        if (w->deferred[r] == LOOM_OK) {   /* granted */
            (void)loom_rma_unlock_one(w, r, loom_rma_nocheck(w)[r]);
        }
    }
    loom_rma_am_settle(w, -1);
    (void)loom_rma_am_take_err(w, -1);
    memset(loom_rma_nocheck(w), 0, (size_t)w->size);
    loom_rma_epoch_unlock_all(&w->ep);
    return st;
}

loom_status_t loom_rma_lock_all(loom_rma_win_t *w, int assert_flags)
{
    int nocheck = (assert_flags & LOOM_RMA_MODE_NOCHECK) != 0;
    loom_status_t st = loom_rma_epoch_lock_all(&w->ep);
    int r;

    if (st != LOOM_OK) {
        return st;
    }
    memset(loom_rma_nocheck(w), nocheck, (size_t)w->size);
    for (r = 0; r < w->size && st == LOOM_OK; ++r) {
        st = loom_rma_lock_one(w, LOOM_RMA_LOCK_SHARED, r, nocheck);
    }
    if (st != LOOM_OK) {
        return loom_rma_lock_all_undo(w, r - 1, st);
    }
    if (nocheck || loom_rma_is_shm(w)) {
        return LOOM_OK;
    }
    if (loom_rma_locks_by_msg(w)) {
        /* the other targets hold our operations until they grant (rma_am.c);
         * our own memory is accessed here, so its grant is waited for */
        st = loom_rma_grant_wait(w, w->rank);
        return st != LOOM_OK ? loom_rma_lock_all_undo(w, w->size, st) : LOOM_OK;
    }
    loom_rma_am_settle(w, -1);
    for (r = 0; r < w->size && st == LOOM_OK; ++r) {
        st = w->deferred[r];   /* no operation yet: only the grants answered */
    }
    return st != LOOM_OK ? loom_rma_lock_all_undo(w, w->size, st) : LOOM_OK;
}

loom_status_t loom_rma_unlock_all(loom_rma_win_t *w)
{
    loom_status_t st, ost;

    if (w->ep.access != LOOM_RMA_ACCESS_LOCK_ALL) {
        return LOOM_RMA_ERR_SYNC;
    }
    if (w->direct) {
        atomic_thread_fence(memory_order_seq_cst);
    }
    /* lock words (CMA, RDMA): the operations before they are released;
     * messages: each UNLOCK goes behind the operations to its target (served
     * in order), and one wait covers everything */
    ost = LOOM_OK;
    if (!w->direct && !loom_rma_locks_by_msg(w)) {
        loom_progress();   /* serve the others first, as loom_rma_unlock does */
        ost = loom_rma_am_flush(w, -1);
    }
    st  = LOOM_OK;
    for (int r = 0; r < w->size && st == LOOM_OK; ++r) {
        st = loom_rma_unlock_one(w, r, loom_rma_nocheck(w)[r]);
    }
    if (!w->direct) {
        loom_status_t fst = loom_rma_am_flush(w, -1);

        if (loom_rma_locks_by_msg(w)) {
            ost = fst;
        } else if (st == LOOM_OK) {
            st = fst;
        }
    }
    loom_rma_nocheck_clear(w);
    loom_rma_epoch_unlock_all(&w->ep);
    return ost != LOOM_OK ? ost : st;
}

/* ---- PSCW ---- */

static loom_status_t loom_rma_ranks_copy(int n, const int ranks[], int **dst_p, int *n_p)
{
    int *r = malloc(((size_t)n + 1) * sizeof(int));

    if (r == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    memcpy(r, ranks, (size_t)n * sizeof(int));
    free(*dst_p);
    *dst_p = r;
    *n_p = n;
    return LOOM_OK;
}

loom_status_t loom_rma_post(loom_rma_win_t *w, int n, const int ranks[], int assert_flags)
{
    loom_status_t st;

    for (int i = 0; i < n; ++i) {
        if (ranks[i] < 0 || ranks[i] >= w->size) {
            return LOOM_ERR_INVALID_RANK;
        }
    }
    if ((st = loom_rma_epoch_post(&w->ep)) != LOOM_OK) {
        return st;
    }
    if ((st = loom_rma_ranks_copy(n, ranks, &w->post_ranks, &w->npost)) != LOOM_OK) {
        loom_rma_epoch_wait(&w->ep);
        return st;
    }
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n && st == LOOM_OK && !(assert_flags & LOOM_RMA_MODE_NOCHECK); ++i) {
        st = loom_rma_am_ctrl(w, ranks[i], LOOM_RMA_K_POST, 0);
    }
    return st;
}

loom_status_t loom_rma_start(loom_rma_win_t *w, int n, const int ranks[], int assert_flags)
{
    loom_status_t st = loom_rma_epoch_start(&w->ep, n, ranks);

    if (st != LOOM_OK) {
        return st;
    }
    if ((st = loom_rma_ranks_copy(n, ranks, &w->start_ranks, &w->nstart)) != LOOM_OK) {
        loom_rma_epoch_complete(&w->ep);
        return st;
    }
    for (int i = 0; i < n && !(assert_flags & LOOM_RMA_MODE_NOCHECK); ++i) {
        while (w->posts[ranks[i]] == 0) {
            loom_progress();
        }
        --w->posts[ranks[i]];
    }
    return LOOM_OK;
}

loom_status_t loom_rma_complete(loom_rma_win_t *w)
{
    loom_status_t st = loom_rma_epoch_complete(&w->ep);
    loom_status_t ost;

    if (st != LOOM_OK) {
        return st;
    }
    atomic_thread_fence(memory_order_seq_cst);
    ost = loom_rma_am_flush(w, -1);
    for (int i = 0; i < w->nstart; ++i) {   /* every target, or it waits forever */
        loom_status_t cst = loom_rma_am_ctrl(w, w->start_ranks[i], LOOM_RMA_K_COMPLETE, 0);

        st = st != LOOM_OK ? st : cst;
    }
    w->nstart = 0;
    return ost != LOOM_OK ? ost : st;
}

static int loom_rma_completed(const loom_rma_win_t *w)
{
    for (int i = 0; i < w->npost; ++i) {
        if (w->completes[w->post_ranks[i]] == 0) {
            return 0;
        }
    }
    return 1;
}

static void loom_rma_wait_done(loom_rma_win_t *w)
{
    for (int i = 0; i < w->npost; ++i) {
        --w->completes[w->post_ranks[i]];
    }
    w->npost = 0;
    loom_rma_epoch_wait(&w->ep);
    atomic_thread_fence(memory_order_seq_cst);
}

loom_status_t loom_rma_wait(loom_rma_win_t *w)
{
    if (!w->ep.exposed) {
        return LOOM_RMA_ERR_SYNC;
    }
    while (!loom_rma_completed(w)) {
        loom_progress();
    }
    loom_rma_wait_done(w);
    return LOOM_OK;
}

loom_status_t loom_rma_test(loom_rma_win_t *w, int *flag_p)
{
    if (!w->ep.exposed) {
        return LOOM_RMA_ERR_SYNC;
    }
    loom_progress();
    *flag_p = loom_rma_completed(w);
    if (*flag_p) {
        loom_rma_wait_done(w);
    }
    return LOOM_OK;
}
