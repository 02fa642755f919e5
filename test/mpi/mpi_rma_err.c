/*
 * mpi_rma_err.c: one-sided error paths must not leak locks or hang ranks.
 *
 *   - an accumulate whose op is not defined on the type (MPI_BAND on
 *     MPI_DOUBLE) fails at the origin call with MPI_ERR_OP, on a direct
 *     (allocate) and an active-message (dynamic) window, and changes nothing;
 *   - an error one target reported (a dynamic window's out-of-range put,
 *     MPI_ERR_RMA_RANGE) belongs to that target: locking another target
 *     afterwards succeeds and that lock is really released by its unlock
 *     (another rank can then lock it exclusively), only the flush/unlock of
 *     the faulty target reports the error; the same under lock_all;
 *   - MPI_Win_free with such an error pending (fence epoch, no closing
 *     fence) returns it on the faulty origin and still completes everywhere;
 *   - MPI_Win_free inside a lock epoch fails with MPI_ERR_RMA_SYNC and keeps
 *     the window's attributes (the delete callback runs only at the real free).
 * Runs at any size; the two-rank cases need at least two ranks.
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

static int rank, size;

/* a dynamic window with two ints attached per rank; addrs[r]: rank r's &mem[0] */
static MPI_Win dyn_win(int *mem, MPI_Aint *addrs)
{
    MPI_Win win;
    MPI_Aint mine;

    MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Win_attach(win, mem, 2 * sizeof(int)));
    MT_OK(MPI_Get_address(mem, &mine));
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    return win;
}

static void dyn_free(MPI_Win *win, int *mem)
{
    MT_OK(MPI_Win_detach(*win, mem));
    MT_OK(MPI_Win_free(win));
}

/* MPI_BAND on doubles is refused at the origin, for every accumulate form */
static void test_op_origin(MPI_Win win, MPI_Aint disp, double *local)
{
    int t = (rank + 1) % size;
    double one = 1.0, res = -1.0;

    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_ERR(MPI_Accumulate(&one, 1, MPI_DOUBLE, t, disp, 1, MPI_DOUBLE, MPI_BAND, win),
           MPI_ERR_OP);
    MT_ERR(MPI_Get_accumulate(&one, 1, MPI_DOUBLE, &res, 1, MPI_DOUBLE, t, disp, 1,
                              MPI_DOUBLE, MPI_BOR, win), MPI_ERR_OP);
    MT_ERR(MPI_Fetch_and_op(&one, &res, MPI_DOUBLE, t, disp, MPI_LXOR, win), MPI_ERR_OP);
    MT_OK(MPI_Accumulate(&one, 1, MPI_DOUBLE, t, disp, 1, MPI_DOUBLE, MPI_SUM, win));
    MT_OK(MPI_Win_unlock(t, win));   /* nothing deferred */
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_CHECK(*local == 1.0 && res == -1.0);
}

static void test_ops(void)
{
    double *base, dmem[2] = { 0.0, 0.0 };
    MPI_Aint addrs[64];
    MPI_Win win;

    MT_OK(MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &base, &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    *base = 0.0;
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    test_op_origin(win, 0, base);
    MT_OK(MPI_Win_free(&win));
    win = dyn_win((int *)(void *)dmem, addrs);   /* two doubles hold two ints */
    test_op_origin(win, addrs[(rank + 1) % size], dmem);
    dyn_free(&win, (int *)(void *)dmem);
}

/*
 * Rank 0 makes rank 1 report a range error inside a lock epoch on 1, then
 * locks itself: that must succeed and unlock cleanly, so rank 1 can take
 * rank 0's lock exclusively afterwards.
 */
static void test_per_target(void)
{
    int mem[2] = { 0, 0 }, two[2] = { 7, 7 }, x = 5, got = -1;
    MPI_Aint addrs[64];
    MPI_Request req;
    MPI_Win win = dyn_win(mem, addrs);

    if (rank == 0) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        MT_OK(MPI_Put(two, 2, MPI_INT, 1, addrs[1] + (MPI_Aint)sizeof(int), 2, MPI_INT,
                      win));   /* one int past rank 1's region */
        MT_OK(MPI_Rget(&got, 1, MPI_INT, 1, addrs[1], 1, MPI_INT, win, &req));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));   /* rank 1's error has arrived */
        MT_EQ(got, 0);
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));   /* not rank 1's error */
        MT_OK(MPI_Put(&x, 1, MPI_INT, 0, addrs[0], 1, MPI_INT, win));
        MT_OK(MPI_Win_unlock(0, win));
        MT_EQ(mem[0], 5);
        MT_ERR(MPI_Win_unlock(1, win), MPI_ERR_RMA_RANGE);
        MT_ERR(MPI_Win_flush(1, win), MPI_ERR_RMA_SYNC);   /* the epoch on 1 is closed */
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {   /* hangs if rank 0's lock on itself leaked */
        x = 9;
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MT_OK(MPI_Put(&x, 1, MPI_INT, 0, addrs[0], 1, MPI_INT, win));
        MT_OK(MPI_Win_unlock(0, win));
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));   /* nor 0's lock on 1 */
        MT_OK(MPI_Win_unlock(1, win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MT_EQ(mem[0], 9);
    }
    MT_EQ(mem[1], 0);
    dyn_free(&win, mem);
}

/* the same under lock_all: only the faulty target's flush reports it */
static void test_lock_all(void)
{
    int mem[2] = { 0, 0 }, two[2] = { 3, 3 }, x = 4;
    MPI_Aint addrs[64];
    MPI_Win win = dyn_win(mem, addrs);
    int last = size - 1;

    if (rank == 0) {
        MT_OK(MPI_Win_lock_all(0, win));
        MT_OK(MPI_Put(two, 2, MPI_INT, last, addrs[last] + (MPI_Aint)sizeof(int), 2,
                      MPI_INT, win));
        MT_OK(MPI_Put(&x, 1, MPI_INT, 0, addrs[0], 1, MPI_INT, win));
        MT_OK(MPI_Win_flush(0, win));
        MT_EQ(mem[0], 4);
        MT_ERR(MPI_Win_flush(last, win), MPI_ERR_RMA_RANGE);
        MT_OK(MPI_Win_flush_all(win));   /* taken by the flush of its target */
        MT_OK(MPI_Win_unlock_all(win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, win));
    MT_OK(MPI_Win_unlock((rank + 1) % size, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    dyn_free(&win, mem);
}

/* Win_free with a range error pending: the origin gets it, nobody hangs */
static void test_free_pending(void)
{
    int mem[2] = { 0, 0 }, two[2] = { 1, 1 };
    MPI_Aint addrs[64];
    MPI_Win win = dyn_win(mem, addrs);
    int t = (rank + 1) % size;

    MT_OK(MPI_Win_fence(0, win));
    if (rank == 0) {
        MT_OK(MPI_Put(two, 2, MPI_INT, t, addrs[t] + (MPI_Aint)sizeof(int), 2, MPI_INT,
                      win));
    }
    if (rank == 0) {   /* no closing fence: Win_free completes the put */
        MT_ERR(MPI_Win_free(&win), MPI_ERR_RMA_RANGE);
    } else {
        MT_OK(MPI_Win_free(&win));
    }
    MT_CHECK(win == MPI_WIN_NULL);
    MT_EQ(mem[0], 0);
    MT_EQ(mem[1], 0);
}

static int deletes;
static int del_fn(MPI_Win w, int k, void *v, void *x)
{
    (void)w; (void)k; (void)x;
    deletes += (int)(intptr_t)v;
    return MPI_SUCCESS;
}

/* Win_free refused inside an epoch leaves the attributes alone */
static void test_free_in_epoch(void)
{
    int *base, kv, flag = 0;
    void *v = NULL;
    MPI_Win win;

    MT_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                           &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, NULL));
    MT_OK(MPI_Win_set_attr(win, kv, (void *)(intptr_t)3));
    deletes = 0;
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    MT_ERR(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    MT_CHECK(win != MPI_WIN_NULL);
    MT_EQ(deletes, 0);
    MT_OK(MPI_Win_get_attr(win, kv, &v, &flag));
    MT_CHECK(flag && (intptr_t)v == 3);
    MT_OK(MPI_Win_unlock(rank, win));
    MT_OK(MPI_Win_lock_all(0, win));
    MT_ERR(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    MT_EQ(deletes, 0);
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Win_free(&win));
    MT_EQ(deletes, 3);
    MT_OK(MPI_Win_free_keyval(&kv));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (size > 64) {
        MT_FAIL("mpi_rma_err runs on at most 64 ranks, not %d", size);
    }
    test_ops();
    if (size >= 2) {
        test_per_target();
        test_lock_all();
    }
    test_free_pending();
    test_free_in_epoch();
    MT_PASS("mpi_rma_err");
    MT_OK(MPI_Finalize());
    return 0;
}
