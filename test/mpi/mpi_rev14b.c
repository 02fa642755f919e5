/*
 * mpi_rev14b.c: review of session 14 (collectives and one-sided).
 *
 *   rsfirst: the first on-node collectives of a communicator posted
 *   nonblocking, rank 0 late: the other ranks select their
 *   Ireduce_scatter_block while the segment's set-up is still under way,
 *   rank 0 once it is done. Every rank must select the same algorithm: the
 *   selection after the set-up used one block's bytes where the launch used
 *   the whole input (np 2, blocks of 6 ints: 24 B against 48 B, on both
 *   sides of the table's 32-byte "ring" rule), so rank 0 ran "shm" and rank
 *   1 "ring" and the call never completed (the driver's timeout) or gave
 *   wrong data. Checks the sums exactly.
 *
 *   mpirun -n 2 mpi_rev14b rsfirst
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RS_BLOCK 6

static int rev_fail(const char *what, int rank, int i, long got, long want)
{
    fprintf(stderr, "mpi_rev14b: rank %d: %s[%d] = %ld, expected %ld\n", rank, what, i, got,
            want);
    return 1;
}

/* The late rank sleeps so the others post both calls before it takes part. */
static void rev_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

static int rev_rsfirst(void)
{
    MPI_Comm comm;
    MPI_Request req[2];
    int rank, size, bad = 0, one, sum;
    int *in, out[RS_BLOCK];

    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    in = malloc(sizeof(int) * RS_BLOCK * (size_t)size);
    for (int i = 0; i < RS_BLOCK * size; ++i) {
        in[i] = rank * 1000 + i;
    }
    if (rank == 0) {
        rev_sleep_ms(300);
    }
    one = rank + 1;
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm, &req[0]);
    if (rank == 0) {
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    }
    MPI_Ireduce_scatter_block(in, out, RS_BLOCK, MPI_INT, MPI_SUM, comm, &req[1]);
    if (rank == 0) {
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    } else {
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    if (sum != size * (size + 1) / 2) {
        bad |= rev_fail("allreduce", rank, 0, sum, size * (size + 1) / 2);
    }
    for (int i = 0; i < RS_BLOCK; ++i) {
        long want = 0;
        for (int q = 0; q < size; ++q) {
            want += q * 1000 + rank * RS_BLOCK + i;
        }
        if (out[i] != want) {
            bad |= rev_fail("reduce_scatter_block", rank, i, out[i], want);
        }
    }
    free(in);
    MPI_Comm_free(&comm);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0, any = 0;
    const char *mode = argc > 1 ? argv[1] : "";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "rsfirst") == 0) {
        bad = rev_rsfirst();
    } else {
        if (rank == 0) {
            fprintf(stderr, "mpi_rev14b: unknown mode '%s' (rsfirst)\n", mode);
        }
        bad = 1;
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any) {
        printf("mpi_rev14b %s: passed on %d ranks\n", mode, size);
    }
    MPI_Finalize();
    return any != 0;
}
