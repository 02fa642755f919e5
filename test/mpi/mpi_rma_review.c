/*
 * mpi_rma_review.c: defects found reviewing the inline one-sided path
 * (session 11), one function each, on Win_allocate, Win_allocate_shared
 * and Win_create windows (the first two take the inline path on one host,
 * the last the general one: both must answer alike):
 *
 *   mpi_rma_review
 *
 *   - count 0 with a NULL buffer (MPI allows any buffer when nothing
 *     moves): Put, Get, Accumulate, Get_accumulate succeed inside an epoch,
 *     also at the end of the target's piece, and still fail with
 *     MPI_ERR_RMA_SYNC outside every epoch; the inline path passed NULL to
 *     memcpy (undefined: UBSan aborts).
 */
#include "mpi_win_kinds.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;


#define WBYTES 64

static MPI_Win win_open(int kind, char **base_p)
{
    return win_open_bytes(kind, WBYTES, base_p);
}

/* count 0, NULL buffers */
static void test_count0(MPI_Win win)
{
    int t = (rank + 1) % size;

    MT_ERR(MPI_Put(NULL, 0, MPI_INT, t, 0, 0, MPI_INT, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Get(NULL, 0, MPI_INT, t, 0, 0, MPI_INT, win), MPI_ERR_RMA_SYNC);
    MT_OK(MPI_Win_lock_all(0, win));
    for (MPI_Aint disp = 0; disp <= WBYTES; disp += WBYTES) {
        MT_OK(MPI_Put(NULL, 0, MPI_INT, t, disp, 0, MPI_INT, win));
        MT_OK(MPI_Get(NULL, 0, MPI_INT, t, disp, 0, MPI_INT, win));
        MT_OK(MPI_Put(NULL, 0, MPI_BYTE, t, disp, 0, MPI_BYTE, win));
        MT_OK(MPI_Accumulate(NULL, 0, MPI_INT, t, disp, 0, MPI_INT, MPI_SUM, win));
        MT_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, t, disp, 0, MPI_INT,
                                 MPI_SUM, win));
    }
    MT_OK(MPI_Win_flush_all(win));
    MT_OK(MPI_Win_unlock_all(win));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int kind = 0; kind < W_KINDS; ++kind) {
        char *base;
        MPI_Win win = win_open(kind, &base);

        test_count0(win);
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        win_close(kind, &win, base);
        if (rank == 0) {
            printf("  %s: ok\n", kind_names[kind]);
        }
    }
    MT_PASS("mpi_rma_review");
    MT_OK(MPI_Finalize());
    return 0;
}
