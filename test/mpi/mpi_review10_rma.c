/*
 * mpi_review10_rma.c: defects found reviewing issue 23 stage 2 (rma2),
 * each a section checked exactly (test_mpi_review10.sh).
 *
 *   mpi_review10_rma envmix|overflow
 *
 *   envmix:   LOOM_RMA_CMA differs per rank (rank 0 sets "off" after
 *             MPI_Init, the others keep the default, then the roles swap
 *             with "acc" on rank 0 only): Win_create is collective, so
 *             every rank must take the same path; a rank that skipped the
 *             CMA set-up's collectives left the others waiting in them
 *             (hang) or matched them with the next window's.
 *             After each Win_create: a put ring and a Fetch_and_op sum
 *             under fence, checked exactly.
 *   overflow: a displacement whose product with the disp unit overflows
 *             64 bits ((2^62 + 1) x 4 wraps to 4) must be
 *             MPI_ERR_RMA_RANGE, not a put at byte 4 of the target; on
 *             Win_allocate (shared segment fast path), Win_create (CMA)
 *             and through a derived (non-contiguous) target type.
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* a put ring and a fetch-and-op sum on a Win_create window, under fence */
static void ring_and_sum(void)
{
    int buf[4] = { -1, -1, 0, -1 }, one = 1, old = -1, me = rank + 100;
    MPI_Win win;

    MT_OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Put(&me, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
    MT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 2, MPI_SUM, win));
    MT_OK(MPI_Win_fence(0, win));
    MT_EQ(buf[0], (rank + size - 1) % size + 100);
    MT_EQ(buf[1], -1);
    MT_EQ(buf[3], -1);
    MT_CHECK(old >= 0 && old < size);
    MT_EQ(buf[2], rank == 0 ? size : 0);
    MT_OK(MPI_Win_free(&win));
}

static void envmix(void)
{
    if (rank == 0) {
        setenv("LOOM_RMA_CMA", "off", 1);
    }
    ring_and_sum();
    ring_and_sum();
    if (rank == 0) {
        setenv("LOOM_RMA_CMA", "acc", 1);
    }
    ring_and_sum();
    if (rank == 0) {
        unsetenv("LOOM_RMA_CMA");
    } else {
        setenv("LOOM_RMA_CMA", "off", 1);
    }
    ring_and_sum();
}

/* every out-of-range form on @p win (16 ints at each rank, all -1) */
static void overflow_on(MPI_Win win, int *mem)
{
    const MPI_Aint huge = ((MPI_Aint)1 << 62) + 1;   /* x 4 = 2^64 + 4 */
    int v[2] = { 7, 8 }, got[2] = { 0, 0 }, one = 1, old = 0;
    int target = (rank + 1) % size;
    MPI_Datatype vec;

    MT_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    MT_OK(MPI_Type_commit(&vec));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    MT_ERR(MPI_Put(v, 1, MPI_INT, target, huge, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Put(v, 2, MPI_INT, target, huge, 1, vec, win), MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Get(got, 1, MPI_INT, target, huge, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Accumulate(&one, 1, MPI_INT, target, huge, 1, MPI_INT, MPI_SUM, win),
           MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Fetch_and_op(&one, &old, MPI_INT, target, huge, MPI_SUM, win),
           MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Put(v, 1, MPI_INT, target, -huge, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    MT_OK(MPI_Win_unlock(target, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int i = 0; i < 16; ++i) {
        if (mem[i] != -1) {
            MT_FAIL("int %d of rank %d's window is %d: an out-of-range operation wrote it",
                    i, rank, mem[i]);
        }
    }
    MT_OK(MPI_Win_unlock(rank, win));
    MT_EQ(got[0], 0);
    MT_OK(MPI_Type_free(&vec));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void overflow(void)
{
    int *mem, *own = malloc(16 * sizeof(int));
    MPI_Win win;

    MT_CHECK(own != NULL);
    MT_OK(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int i = 0; i < 16; ++i) {
        mem[i] = -1;
    }
    MT_OK(MPI_Win_unlock(rank, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    overflow_on(win, mem);
    MT_OK(MPI_Win_free(&win));

    for (int i = 0; i < 16; ++i) {
        own[i] = -1;
    }
    MT_OK(MPI_Win_create(own, 16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    overflow_on(win, own);
    MT_OK(MPI_Win_free(&win));
    free(own);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (strcmp(mode, "envmix") == 0) {
        envmix();
    } else if (strcmp(mode, "overflow") == 0) {
        overflow();
    } else {
        MT_FAIL("usage: mpi_review10_rma envmix|overflow");
    }
    MT_OK(MPI_Finalize());
    if (rank == 0) {
        printf("mpi_review10_rma %s: OK\n", mode);
    }
    return 0;
}
