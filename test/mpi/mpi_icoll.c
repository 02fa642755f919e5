/*
 * mpi_icoll.c: nonblocking collectives of the MPI binding as an ordinary
 * MPI program (any number of ranks): Ibarrier, Ibcast, Ireduce,
 * Iallreduce, Iallgather, Ialltoall, Igather, Iscatter,
 * Ireduce_scatter_block, several outstanding at once and completed with
 * Waitall / Test loops / Waitany, overlapping point-to-point traffic.
 */
#include "mpi_test_util.h"

#include <string.h>

#define NOPS 9

static int rank, size;

int main(int argc, char **argv)
{
    MPI_Request reqs[NOPS + 2];
    int bc[64], red_in[8], red_out[8], ar[8], *ag, *a2a_s, *a2a_r, *g, sc[2], *sc_all;
    int *rsb_s, rsb_r[2], ring_s, ring_r = -1, flag = 0, idx, done = 0;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    ag     = malloc((size_t)size * 2 * sizeof(int));
    a2a_s  = malloc((size_t)size * sizeof(int));
    a2a_r  = malloc((size_t)size * sizeof(int));
    g      = malloc((size_t)size * 2 * sizeof(int));
    sc_all = malloc((size_t)size * 2 * sizeof(int));
    rsb_s  = malloc((size_t)size * 2 * sizeof(int));
    MT_CHECK(ag && a2a_s && a2a_r && g && sc_all && rsb_s);

    for (int round = 0; round < 3; ++round) {
        int root = round % size;

        for (int i = 0; i < 64; ++i) {
            bc[i] = rank == root ? i * round : -1;
        }
        for (int i = 0; i < 8; ++i) {
            red_in[i] = rank + i;
            ar[i] = rank * i;
        }
        for (int j = 0; j < size; ++j) {
            a2a_s[j] = rank * 100 + j;
            sc_all[2 * j] = j + round;
            sc_all[2 * j + 1] = -j;
            rsb_s[2 * j] = j;
            rsb_s[2 * j + 1] = rank;
        }
        int mine[2] = { rank, round };

        /* everything in flight at once, plus a point-to-point ring */
        MT_OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[0]));
        MT_OK(MPI_Ibcast(bc, 64, MPI_INT, root, MPI_COMM_WORLD, &reqs[1]));
        MT_OK(MPI_Ireduce(red_in, red_out, 8, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD,
                          &reqs[2]));
        MT_OK(MPI_Iallreduce(MPI_IN_PLACE, ar, 8, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                             &reqs[3]));
        MT_OK(MPI_Iallgather(mine, 2, MPI_INT, ag, 2, MPI_INT, MPI_COMM_WORLD, &reqs[4]));
        MT_OK(MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, MPI_COMM_WORLD,
                            &reqs[5]));
        MT_OK(MPI_Igather(mine, 2, MPI_INT, g, 2, MPI_INT, root, MPI_COMM_WORLD, &reqs[6]));
        MT_OK(MPI_Iscatter(sc_all, 2, MPI_INT, sc, 2, MPI_INT, root, MPI_COMM_WORLD,
                           &reqs[7]));
        MT_OK(MPI_Ireduce_scatter_block(rsb_s, rsb_r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        &reqs[8]));
        ring_s = rank;
        MT_OK(MPI_Irecv(&ring_r, 1, MPI_INT, (rank + size - 1) % size, 9, MPI_COMM_WORLD,
                        &reqs[9]));
        MT_OK(MPI_Isend(&ring_s, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD,
                        &reqs[10]));

        if (round == 0) {
            MT_OK(MPI_Waitall(NOPS + 2, reqs, MPI_STATUSES_IGNORE));
        } else if (round == 1) {
            do {
                MT_OK(MPI_Testall(NOPS + 2, reqs, &flag, MPI_STATUSES_IGNORE));
            } while (!flag);
        } else {
            for (done = 0; done < NOPS + 2; ++done) {
                MT_OK(MPI_Waitany(NOPS + 2, reqs, &idx, MPI_STATUS_IGNORE));
                MT_CHECK(idx >= 0 && idx < NOPS + 2 && reqs[idx] == MPI_REQUEST_NULL);
            }
            MT_OK(MPI_Waitany(NOPS + 2, reqs, &idx, MPI_STATUS_IGNORE));
            MT_EQ(idx, MPI_UNDEFINED);
        }

        for (int i = 0; i < 64; ++i) {
            MT_EQ(bc[i], i * round);
        }
        if (rank == root) {
            for (int i = 0; i < 8; ++i) {
                MT_EQ(red_out[i], size * (size - 1) / 2 + size * i);
            }
            for (int r = 0; r < size; ++r) {
                MT_CHECK(g[2 * r] == r && g[2 * r + 1] == round);
            }
        }
        for (int i = 0; i < 8; ++i) {
            MT_EQ(ar[i], (size - 1) * i);
        }
        for (int r = 0; r < size; ++r) {
            MT_CHECK(ag[2 * r] == r && ag[2 * r + 1] == round);
            MT_EQ(a2a_r[r], r * 100 + rank);
        }
        MT_CHECK(sc[0] == rank + round && sc[1] == -rank);
        MT_CHECK(rsb_r[0] == size * rank && rsb_r[1] == size * (size - 1) / 2);
        MT_EQ(ring_r, (rank + size - 1) % size);
    }

    /* a freed nonblocking collective still completes; the barrier orders it */
    MT_OK(MPI_Ibcast(bc, 64, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]));
    MT_OK(MPI_Request_free(&reqs[0]));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));

    free(ag);
    free(a2a_s);
    free(a2a_r);
    free(g);
    free(sc_all);
    free(rsb_s);
    MT_PASS("mpi_icoll");
    MT_OK(MPI_Finalize());
    return 0;
}
