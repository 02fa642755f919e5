/*
 * mpi_fixes1_nbc.c: a user operation freed while nonblocking reductions
 * that use it are in flight (regression for MPICH's coll/nonblocking3).
 *
 * MPI_Op_free right after MPI_Ireduce is legal (MPI-3.1 5.9.5): the pending
 * operation completes with the op. Loom retired the op at once, and the
 * reduction's progress then called through a NULL slot (SIGSEGV) or, once
 * the slot was reused, a different function. Here every reduction starts
 * with a freshly created op that is freed immediately; a second op (a
 * different function) is created in between to take a reused slot; several
 * reductions on two communicators are in flight, completed by Waitall in
 * reverse order. Results are checked exactly.
 */
#include "mpi_test_util.h"

#define N     8
#define ROUNDS 20

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; ++i) {
        ((int *)inout)[i] += ((int *)in)[i];
    }
}

/* a different function: must never be called for the sums */
static void poison(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)dt;
    for (int i = 0; i < *len; ++i) {
        ((int *)inout)[i] = -12345;
    }
}

static MPI_Op fresh_sum(void)
{
    MPI_Op op;

    MT_OK(MPI_Op_create(my_sum, 1, &op));
    return op;
}

int main(int argc, char **argv)
{
    int rank, size, sbuf[4][N], rbuf[4][N];
    MPI_Comm comms[2];
    MPI_Request reqs[4];
    MPI_Op op, other;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]));
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[1]));
    for (int round = 0; round < ROUNDS; ++round) {
        for (int k = 0; k < 4; ++k) {
            for (int i = 0; i < N; ++i) {
                sbuf[k][i] = rank + i + k + round;
                rbuf[k][i] = -1;
            }
            op = fresh_sum();
            if (k % 2 == 0) {
                MT_OK(MPI_Ireduce(sbuf[k], rbuf[k], N, MPI_INT, op, round % size,
                                  comms[k / 2], &reqs[k]));
            } else {
                MT_OK(MPI_Iallreduce(sbuf[k], rbuf[k], N, MPI_INT, op, comms[k / 2],
                                     &reqs[k]));
            }
            MT_OK(MPI_Op_free(&op));
            MT_CHECK(op == MPI_OP_NULL);
            MT_OK(MPI_Op_create(poison, 1, &other));   /* may take a freed slot */
            MT_OK(MPI_Op_free(&other));
        }
        for (int k = 3; k >= 0; --k) {
            MT_OK(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE));
        }
        for (int k = 0; k < 4; ++k) {
            /* comms[1] ranks in reverse: its root (rank round % size there) is
             * world rank size - 1 - round % size */
            int root = k / 2 == 0 ? round % size : size - 1 - round % size;

            if (k % 2 == 1 || rank == root) {
                for (int i = 0; i < N; ++i) {
                    MT_EQ(rbuf[k][i], size * (size - 1) / 2 + size * (i + k + round));
                }
            }
        }
    }
    MT_OK(MPI_Comm_free(&comms[0]));
    MT_OK(MPI_Comm_free(&comms[1]));
    MT_OK(MPI_Finalize());
    if (rank == 0) {
        printf("mpi_fixes1_nbc: ok\n");
    }
    return 0;
}
