/*
 * mpi_fixes10.c: review fixes of stage 10 (test_mpi_fixes10.sh), each case
 * checked exactly.
 *
 *   mpi_fixes10 interfree [rounds]
 *     Intercommunicator nonblocking collectives (Ibarrier, Ibcast,
 *     Iallreduce, Ireduce) started on a dup of an intercomm (even world
 *     ranks against odd ones) that is freed before they are waited for:
 *     MPI lets them complete normally; ASan saw their state machines read
 *     the freed intercomm.
 *   mpi_fixes10 alloc [rounds]
 *     Win_allocate windows (a shared segment on one host, heap memory and
 *     active messages with LOOM_TRANSPORTS=self,tcp): the ranks agree on
 *     the path with one allreduce. LOOM_TRANSPORTS differing per rank
 *     cannot be tested here: the collectives' own choice
 *     (collectives/coll_comm.c) already mismatches in the window's
 *     communicator dup, before the segment is reached. After each
 *     window: a put ring and a Fetch_and_op sum under fence, then a
 *     lock/put/unlock to the next rank, checked exactly.
 */
#include "mpi_test_util.h"

#include <stdlib.h>
#include <string.h>

static int rank, size, rounds = 20;

static void case_interfree(void)
{
    MPI_Comm local, inter;
    int color = rank % 2, lrank, lsize, rsize;

    MT_CHECK(size >= 2);
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
    MT_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 31, &inter));
    MT_OK(MPI_Comm_rank(local, &lrank));
    MT_OK(MPI_Comm_size(local, &lsize));
    MT_OK(MPI_Comm_remote_size(inter, &rsize));
    for (int r = 0; r < rounds; ++r) {
        MPI_Comm dup;
        MPI_Request reqs[4];
        long mine = rank + 1 + r, sum = -1, red = -1, b = color == 0 && lrank == 0 ? 500 + r : -1;
        long want = 0;
        int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;

        for (int w = 1 - color; w < size; w += 2) {
            want += w + 1 + r;   /* the other group's contributions */
        }
        MT_OK(MPI_Comm_dup(inter, &dup));
        MT_OK(MPI_Ibarrier(dup, &reqs[0]));
        MT_OK(MPI_Ibcast(&b, 1, MPI_LONG, root, dup, &reqs[1]));
        MT_OK(MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, dup, &reqs[2]));
        MT_OK(MPI_Ireduce(&mine, &red, 1, MPI_LONG, MPI_SUM, root, dup, &reqs[3]));
        MT_OK(MPI_Comm_free(&dup));
        MT_EQ(dup == MPI_COMM_NULL, 1);
        MT_OK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
        MT_EQ(sum, want);
        MT_EQ(b, color == 1 || lrank == 0 ? 500 + r : -1);
        MT_EQ(red, root == MPI_ROOT ? want : -1);
    }
    MT_OK(MPI_Comm_free(&inter));
    MT_OK(MPI_Comm_free(&local));
    (void)lsize;
    (void)rsize;
}

/* one Win_allocate window: fence ring + fetch-and-op sum, then a locked put */
static void alloc_round(int r)
{
    int *mem = NULL, one = 1, old = -1, me = rank + 100 + r, next = (rank + 1) % size;
    MPI_Win win;

    MT_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &mem, &win));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int i = 0; i < 4; ++i) {
        mem[i] = i == 2 ? 0 : -1;
    }
    MT_OK(MPI_Win_unlock(rank, win));
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Put(&me, 1, MPI_INT, next, 0, 1, MPI_INT, win));
    MT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 2, MPI_SUM, win));
    MT_OK(MPI_Win_fence(0, win));
    MT_EQ(mem[0], (rank + size - 1) % size + 100 + r);
    MT_EQ(mem[1], -1);
    MT_EQ(mem[2], rank == 0 ? size : 0);
    MT_CHECK(old >= 0 && old < size);
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
    MT_OK(MPI_Put(&me, 1, MPI_INT, next, 3, 1, MPI_INT, win));
    MT_OK(MPI_Win_unlock(next, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    MT_EQ(mem[3], (rank + size - 1) % size + 100 + r);
    MT_OK(MPI_Win_unlock(rank, win));
    MT_OK(MPI_Win_free(&win));
}

static void case_alloc(void)
{
    for (int r = 0; r < rounds; ++r) {
        alloc_round(r);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "interfree";

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (argc > 2) {
        rounds = atoi(argv[2]);
    }
    if (strcmp(mode, "interfree") == 0) {
        case_interfree();
    } else if (strcmp(mode, "alloc") == 0) {
        case_alloc();
    } else {
        MT_FAIL("unknown mode %s", mode);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("mpi_fixes10 %s: passed on %d ranks\n", mode, size);
    }
    MT_OK(MPI_Finalize());
    return 0;
}
