/*
 * mpi_rma_big.c: the one-sided paths mpi_rma.c does not reach: transfers
 * far above the eager size (rendezvous messages through the target's
 * progress hook) with contiguous and strided types; accumulate ordering
 * (a run of MPI_REPLACE from one origin ends with the last value);
 * passive target while the target sits in a blocking MPI_Recv; lock
 * contention on a shared window (lock words in the segment) with no lost
 * update; a dynamic window's out-of-range access reported at the flush
 * (MPI_ERR_RMA_RANGE); MPI_Win_free inside an epoch (MPI_ERR_RMA_SYNC).
 *
 *   mpi_rma_big [megabytes]   size of the large transfers (default 2)
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

static int rank, size;

static void test_large(size_t mb)
{
    size_t n = mb * 1024 * 1024 / sizeof(int32_t);
    int32_t *src = malloc(n * sizeof(int32_t)), *dst = malloc(n * sizeof(int32_t)), *base;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype strided;
    MPI_Win win;

    for (size_t i = 0; i < n; ++i) {
        src[i] = (int32_t)(rank * 7 + i);
    }
    MT_OK(MPI_Win_allocate((MPI_Aint)(n * sizeof(int32_t)), sizeof(int32_t), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &base, &win));
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Put(src, (int)n, MPI_INT32_T, right, 0, (int)n, MPI_INT32_T, win));
    MT_OK(MPI_Win_fence(0, win));
    for (size_t i = 0; i < n; ++i) {
        if (base[i] != (int32_t)(left * 7 + i)) {
            MT_FAIL("large put: element %zu is %d, not %d", i, base[i], (int)(left * 7 + i));
        }
    }
    MT_OK(MPI_Win_fence(0, win));
    /* every other element back, strided at both ends, by passive target */
    MT_OK(MPI_Type_vector((int)(n / 2), 1, 2, MPI_INT32_T, &strided));
    MT_OK(MPI_Type_commit(&strided));
    memset(dst, 0, n * sizeof(int32_t));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MT_OK(MPI_Get(dst, 1, strided, right, 0, 1, strided, win));
    MT_OK(MPI_Win_unlock(right, win));
    for (size_t i = 0; i < n; i += 2) {
        if (dst[i] != (int32_t)(rank * 7 + i) || dst[i + 1] != 0) {
            MT_FAIL("large strided get: element %zu is %d", i, dst[i]);
        }
    }
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Accumulate(src, (int)n, MPI_INT32_T, right, 0, (int)n, MPI_INT32_T, MPI_SUM,
                         win));
    MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (size_t i = 0; i < n; ++i) {
        if (base[i] != (int32_t)(2 * (left * 7 + i))) {
            MT_FAIL("large accumulate: element %zu is %d", i, base[i]);
        }
    }
    MT_OK(MPI_Type_free(&strided));
    MT_OK(MPI_Win_free(&win));
    free(src);
    free(dst);
}

static void test_ordering(void)
{
    int *base, v;
    MPI_Win win;

    MT_OK(MPI_Win_allocate((MPI_Aint)(size * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &base, &win));
    MT_OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < size; ++t) {
        for (v = 1; v <= 50; ++v) {
            int x = rank * 1000 + v;

            MT_OK(MPI_Accumulate(&x, 1, MPI_INT, t, rank, 1, MPI_INT, MPI_REPLACE, win));
        }
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) {
        MT_EQ(base[r], r * 1000 + 50);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
}

/* rank 0 waits in MPI_Recv until every other rank has updated it */
static void test_blocked_target(void)
{
    int *base, one = 1, token = 0;
    MPI_Win win;

    MT_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                           &win));
    if (rank == 0) {
        for (int r = 1; r < size; ++r) {
            MT_OK(MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        }
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MT_EQ(*base, size - 1);
        MT_OK(MPI_Win_unlock(0, win));
    } else {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MT_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
        MT_OK(MPI_Win_unlock(0, win));
        MT_OK(MPI_Send(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
    }
    MT_OK(MPI_Win_free(&win));
}

static void test_shared_contention(int iters)
{
    long long *base, *zero, v;
    MPI_Aint sz;
    int du;
    MPI_Win win;

    MT_OK(MPI_Win_allocate_shared(sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                                  MPI_COMM_WORLD, &base, &win));
    MT_OK(MPI_Win_shared_query(win, 0, &sz, &du, &zero));
    for (int i = 0; i < iters; ++i) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        if (i % 2) {   /* by load/store ... */
            v = *(volatile long long *)zero;
            *(volatile long long *)zero = v + 1;
        } else {       /* ... and by get/put */
            MT_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
            MT_OK(MPI_Win_flush(0, win));
            ++v;
            MT_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
        }
        MT_OK(MPI_Win_unlock(0, win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_sync(win));
    MT_EQ(*zero, (long long)iters * size);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
}

static void test_errors(void)
{
    int mem[2] = { 0 }, x = 1, two[2] = { 1, 1 };
    MPI_Aint addr;
    MPI_Win win;

    MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Win_attach(win, mem, sizeof(mem)));
    MT_OK(MPI_Get_address(&mem[1], &addr));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    MT_OK(MPI_Put(&x, 1, MPI_INT, rank, addr, 1, MPI_INT, win));
    MT_OK(MPI_Win_flush(rank, win));
    MT_EQ(mem[1], 1);
    MT_OK(MPI_Put(two, 2, MPI_INT, rank, addr, 2, MPI_INT, win));   /* one past the region */
    MT_ERR(MPI_Win_flush(rank, win), MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);                   /* still locked */
    MT_OK(MPI_Win_unlock(rank, win));
    MT_ERR(MPI_Win_detach(win, &x), MPI_ERR_RMA_ATTACH);
    MT_OK(MPI_Win_detach(win, mem));
    MT_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 2;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    test_large(mb);
    test_ordering();
    test_blocked_target();
    test_shared_contention(200);
    test_errors();
    MT_PASS("mpi_rma_big");
    MT_OK(MPI_Finalize());
    return 0;
}
