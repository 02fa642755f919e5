/*
 * rma_epoch.c: the epoch state machine of a window (pure: no I/O).
 *
 * Access side: NONE -> FENCE (Win_fence without NOSUCCEED) -> NONE
 * (Win_fence with NOSUCCEED); NONE/FENCE -> LOCK (first Win_lock; more
 * targets may be locked; the last Win_unlock returns to NONE), LOCK_ALL
 * (Win_lock_all ... Win_unlock_all), START (Win_start ... Win_complete).
 * A fence, lock_all or start inside another passive/PSCW epoch, an unlock of
 * a target not locked, a complete without start are LOOM_RMA_ERR_SYNC, as
 * is an operation to a target outside every epoch. The exposure side
 * (Win_post ... Win_wait) is independent of the access side, except that a
 * fence inside it is an error. "FENCE" counts as an epoch after any fence
 * (MPI cannot tell a fence that opens one from one that closes one); a lock
 * may follow it (Open MPI and MPICH allow that too).
 *
 * Beside the state, every transition keeps e->ok up to date: one byte per
 * target saying what the MPI binding's inline fast path may do without
 * asking (rma_int.h, loom_rma_fast_t: 0 nothing, 1 operations, 2
 * operations and flush), and one more for flush of all targets. The
 * answers are the same as loom_rma_epoch_access and _flush give.
 */
#include "rma_priv.h"

#include <stdlib.h>
#include <string.h>

loom_status_t loom_rma_epoch_init(loom_rma_epoch_t *e, int size)
{
    memset(e, 0, sizeof(*e));
    e->size    = size;
    e->locked  = calloc((size_t)size, 1);
    e->started = calloc((size_t)size, 1);
    e->ok      = calloc((size_t)size + 1, 1);
    if (e->locked == NULL || e->started == NULL || e->ok == NULL) {
        loom_rma_epoch_fini(e);
        return LOOM_ERR_NO_MEMORY;
    }
    return LOOM_OK;
}

void loom_rma_epoch_fini(loom_rma_epoch_t *e)
{
    free(e->locked);
    free(e->started);
    free(e->ok);
    e->locked = e->started = e->ok = NULL;
}

/* every target's fast-path answer @p v, flush of all @p all */
static void loom_rma_epoch_ok_all(loom_rma_epoch_t *e, uint8_t v, uint8_t all)
{
    memset(e->ok, v, (size_t)e->size);
    e->ok[e->size] = all;
}

static int loom_rma_epoch_open(const loom_rma_epoch_t *e)
{
    return e->access == LOOM_RMA_ACCESS_NONE || e->access == LOOM_RMA_ACCESS_FENCE;
}

loom_status_t loom_rma_epoch_fence(loom_rma_epoch_t *e, int assert_flags)
{
    if (!loom_rma_epoch_open(e) || e->exposed) {
        return LOOM_RMA_ERR_SYNC;
    }
    e->access = (assert_flags & LOOM_RMA_MODE_NOSUCCEED) ? LOOM_RMA_ACCESS_NONE
                                                         : LOOM_RMA_ACCESS_FENCE;
    loom_rma_epoch_ok_all(e, e->access == LOOM_RMA_ACCESS_FENCE, 0);
    return LOOM_OK;
}

loom_status_t loom_rma_epoch_lock(loom_rma_epoch_t *e, int target)
{
    if (target < 0 || target >= e->size) {
        return LOOM_ERR_INVALID_RANK;
    }
    if (!loom_rma_epoch_open(e) &&
        (e->access != LOOM_RMA_ACCESS_LOCK || e->locked[target])) {
        return LOOM_RMA_ERR_SYNC;
    }
    if (e->access == LOOM_RMA_ACCESS_FENCE) {
        loom_rma_epoch_ok_all(e, 0, 0);   /* only locked targets from now on */
    }
    e->access = LOOM_RMA_ACCESS_LOCK;
    e->locked[target] = 1;
    e->ok[target] = 2;
    e->ok[e->size] = 2;
    ++e->nlocked;
    return LOOM_OK;
}

loom_status_t loom_rma_epoch_unlock(loom_rma_epoch_t *e, int target)
{
    if (target < 0 || target >= e->size) {
        return LOOM_ERR_INVALID_RANK;
    }
    if (e->access != LOOM_RMA_ACCESS_LOCK || !e->locked[target]) {
        return LOOM_RMA_ERR_SYNC;
    }
    e->locked[target] = 0;
    e->ok[target] = 0;
    if (--e->nlocked == 0) {
        e->access = LOOM_RMA_ACCESS_NONE;
        e->ok[e->size] = 0;
    }
    return LOOM_OK;
}

loom_status_t loom_rma_epoch_lock_all(loom_rma_epoch_t *e)
{
    if (!loom_rma_epoch_open(e)) {
        return LOOM_RMA_ERR_SYNC;
    }
    e->access = LOOM_RMA_ACCESS_LOCK_ALL;
    loom_rma_epoch_ok_all(e, 2, 2);
    return LOOM_OK;
}

loom_status_t loom_rma_epoch_unlock_all(loom_rma_epoch_t *e)
{
    if (e->access != LOOM_RMA_ACCESS_LOCK_ALL) {
        return LOOM_RMA_ERR_SYNC;
    }
    e->access = LOOM_RMA_ACCESS_NONE;
    loom_rma_epoch_ok_all(e, 0, 0);
    return LOOM_OK;
}

loom_status_t loom_rma_epoch_start(loom_rma_epoch_t *e, int n, const int ranks[])
{
    if (!loom_rma_epoch_open(e)) {
        return LOOM_RMA_ERR_SYNC;
    }
    for (int i = 0; i < n; ++i) {
        if (ranks[i] < 0 || ranks[i] >= e->size) {
            return LOOM_ERR_INVALID_RANK;
        }
    }
    memset(e->started, 0, (size_t)e->size);
    for (int i = 0; i < n; ++i) {
        e->started[ranks[i]] = 1;
    }
    memcpy(e->ok, e->started, (size_t)e->size);
    e->ok[e->size] = 0;
    e->access = LOOM_RMA_ACCESS_START;
    return LOOM_OK;
}

loom_status_t loom_rma_epoch_complete(loom_rma_epoch_t *e)
{
    if (e->access != LOOM_RMA_ACCESS_START) {
        return LOOM_RMA_ERR_SYNC;
    }
    memset(e->started, 0, (size_t)e->size);
    e->access = LOOM_RMA_ACCESS_NONE;
    loom_rma_epoch_ok_all(e, 0, 0);
    return LOOM_OK;
}

loom_status_t loom_rma_epoch_post(loom_rma_epoch_t *e)
{
    if (e->exposed) {
        return LOOM_RMA_ERR_SYNC;
    }
    e->exposed = 1;
    return LOOM_OK;
}

loom_status_t loom_rma_epoch_wait(loom_rma_epoch_t *e)
{
    if (!e->exposed) {
        return LOOM_RMA_ERR_SYNC;
    }
    e->exposed = 0;
    return LOOM_OK;
}

loom_status_t loom_rma_epoch_access(const loom_rma_epoch_t *e, int target)
{
    if (target < 0 || target >= e->size) {
        return LOOM_ERR_INVALID_RANK;
    }
    switch (e->access) {
    case LOOM_RMA_ACCESS_FENCE:
    case LOOM_RMA_ACCESS_LOCK_ALL:
        return LOOM_OK;
    case LOOM_RMA_ACCESS_LOCK:
        return e->locked[target] ? LOOM_OK : LOOM_RMA_ERR_SYNC;
    case LOOM_RMA_ACCESS_START:
        return e->started[target] ? LOOM_OK : LOOM_RMA_ERR_SYNC;
    default:
        return LOOM_RMA_ERR_SYNC;
    }
}

loom_status_t loom_rma_epoch_flush(const loom_rma_epoch_t *e, int target)
{
    if (target >= e->size) {
        return LOOM_ERR_INVALID_RANK;
    }
    if (e->access == LOOM_RMA_ACCESS_LOCK_ALL) {
        return LOOM_OK;
    }
    if (e->access != LOOM_RMA_ACCESS_LOCK) {
        return LOOM_RMA_ERR_SYNC;
    }
    return target < 0 || e->locked[target] ? LOOM_OK : LOOM_RMA_ERR_SYNC;
}

loom_status_t loom_rma_epoch_idle(const loom_rma_epoch_t *e)
{
    return loom_rma_epoch_open(e) && !e->exposed ? LOOM_OK : LOOM_RMA_ERR_SYNC;
}
