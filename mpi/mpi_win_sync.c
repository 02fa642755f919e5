/*
 * mpi_win_sync.c: the synchronization calls of windows: Win_fence, the
 * passive-target calls (lock/unlock, lock_all/unlock_all, flush family,
 * Win_sync) and PSCW (post/start/complete/wait/test). Groups become window
 * ranks here (mpi_win.c); the epoch rules and the protocol are the rma
 * layer's (rma/rma_sync.c). Flush_local(_all) is flush(_all): the layer
 * has no cheaper local-only completion in stage 1.
 *
 * A window in one shared segment (its inline view, mpi_win_int.h) has
 * nothing in flight: its operations completed when they returned. Its
 * flush calls are then the epoch check (one byte of the view) and a full
 * fence, so that the origin's stores are visible before anything it does
 * after the flush, as MPI's "complete at the target" asks.
 */
#include "mpi_win_int.h"
#include "mt_int.h"

#include <stdlib.h>

/* a flush of @p rank (@p all: every rank) of a window with an inline view, in a passive
 * epoch: 1 if done */
static inline int loom_mpi_win_fast_flush(MPI_Win win, int all, int rank)
{
    const loom_rma_fast_t *f;

    if (!loom_mpi_win_valid(win)) {
        return 0;
    }
    f = &win->fast;
    if (f->base == NULL || (!all && (unsigned)rank >= (unsigned)f->size) ||
        f->access[all ? f->size : rank] != 2) {
        return 0;
    }
    loom_rma_mem_fence();   /* out of line (TSan refuses inline fences) */
    return 1;
}

#define LOOM_MPI_WIN_MODES (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | \
                            MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

/* a rank argument: MPI_PROC_NULL does nothing, a negative one is MPI_ERR_RANK */
static loom_status_t loom_mpi_win_rank_op(int rank, loom_status_t (*fn)(loom_rma_win_t *, int),
                                          loom_rma_win_t *rwin)
{
    if (rank == MPI_PROC_NULL) {
        return LOOM_OK;
    }
    return rank < 0 ? LOOM_ERR_INVALID_RANK : fn(rwin, rank);
}

static int loom_mpi_win_check(MPI_Win win, int assert_flags, const char *call)
{
    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, call);
    }
    if (assert_flags & ~LOOM_MPI_WIN_MODES) {
        return loom_mpi_win_raise(win, MPI_ERR_ASSERT, call, "assert 0x%x has bits that "
                                  "are no MPI_MODE_*", (unsigned)assert_flags);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_check(win, assert, "MPI_Win_fence");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_rma_fence(win->rwin, assert), "MPI_Win_fence");
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_check(win, assert, "MPI_Win_lock");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, rank == MPI_PROC_NULL ? LOOM_OK
                                        : loom_rma_lock(win->rwin, lock_type, rank, assert),
                                     "MPI_Win_lock");
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_unlock");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_mpi_win_rank_op(rank, loom_rma_unlock, win->rwin),
                                     "MPI_Win_unlock");
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_check(win, assert, "MPI_Win_lock_all");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_rma_lock_all(win->rwin, assert), "MPI_Win_lock_all");
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_unlock_all");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_rma_unlock_all(win->rwin), "MPI_Win_unlock_all");
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win)
{
    LOOM_MT_GUARD();
    if (loom_mpi_win_fast_flush(win, 0, rank)) {
        return MPI_SUCCESS;
    }
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_flush");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_mpi_win_rank_op(rank, loom_rma_flush, win->rwin),
                                     "MPI_Win_flush");
}

#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    LOOM_MT_GUARD();
    if (loom_mpi_win_fast_flush(win, 0, rank)) {
        return MPI_SUCCESS;
    }
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_flush_local");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_mpi_win_rank_op(rank, loom_rma_flush, win->rwin),
                                     "MPI_Win_flush_local");
}

#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win)
{
    LOOM_MT_GUARD();
    if (loom_mpi_win_fast_flush(win, 1, 0)) {
        return MPI_SUCCESS;
    }
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_flush_all");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_rma_flush(win->rwin, -1), "MPI_Win_flush_all");
}

#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win)
{
    LOOM_MT_GUARD();
    if (loom_mpi_win_fast_flush(win, 1, 0)) {
        return MPI_SUCCESS;
    }
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_flush_local_all");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_rma_flush(win->rwin, -1), "MPI_Win_flush_local_all");
}

#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_sync");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_rma_sync(win->rwin), "MPI_Win_sync");
}

/* post or start: the group as window ranks */
static int loom_mpi_win_group_call(int start, MPI_Group group, int assert, MPI_Win win,
                                   const char *call)
{
    int rc = loom_mpi_win_check(win, assert, call), *ranks, n;
    loom_status_t st;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = loom_mpi_win_group_ranks(win, group, call, &ranks, &n)) != MPI_SUCCESS) {
        return rc;
    }
    st = start ? loom_rma_start(win->rwin, n, ranks, assert)
               : loom_rma_post(win->rwin, n, ranks, assert);
    free(ranks);
    return loom_mpi_win_raise_loom(win, st, call);
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    LOOM_MT_GUARD();
    return loom_mpi_win_group_call(0, group, assert, win, "MPI_Win_post");
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    LOOM_MT_GUARD();
    return loom_mpi_win_group_call(1, group, assert, win, "MPI_Win_start");
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_complete");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_rma_complete(win->rwin), "MPI_Win_complete");
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_wait");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_rma_wait(win->rwin), "MPI_Win_wait");
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int *flag)
{
    LOOM_MT_GUARD();
    if (flag == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Win_test", "flag is NULL");
    }
    int rc = loom_mpi_win_check(win, 0, "MPI_Win_test");

    return rc != MPI_SUCCESS ? rc
           : loom_mpi_win_raise_loom(win, loom_rma_test(win->rwin, flag), "MPI_Win_test");
}
