/*
 * mpi_review10_dt.c: typed rendezvous sends without a pack (issue 20),
 * the cases the review of dtcma probed beyond mpi_dt_cma.c, each checked
 * exactly (test_mpi_review10.sh). Rank 0 sends, rank 1 receives; every
 * send type has pieces of 16 KiB (above shm's 8 KiB rule), so shm and
 * self do not pack.
 *   bottom   a struct of absolute addresses (MPI_BOTTOM) over two
 *            separate allocations, reverse order, one zero-length block;
 *   overlap  an hindexed send type whose two pieces are the same bytes
 *            (legal for a send);
 *   cancel   a send of 200 pieces (its array stays exposed at the sender)
 *            cancelled before the receive is posted; the next send of the
 *            same type on the same tag must arrive whole;
 *   persist  MPI_Send_init of a 20-piece vector started 3 times with new
 *            data, and an MPI_Ssend of it.
 */
#include "mpi_test_util.h"

#include <stdlib.h>
#include <string.h>

#define PIECE 16384

static int rank, size;

static unsigned char val(size_t k, int seed)
{
    return (unsigned char)(k * 131u + (unsigned)seed * 7u + 1u);
}

static void check_stream(const unsigned char *b, size_t n, int seed, const char *what)
{
    for (size_t k = 0; k < n; ++k) {
        if (b[k] != val(k, seed)) {
            MT_FAIL("%s: stream byte %zu is %u, expected %u", what, k, b[k], val(k, seed));
        }
    }
}

static void bottom(void)
{
    unsigned char *a = malloc(PIECE), *b = malloc(2 * PIECE), *r = malloc(3 * PIECE + 1);
    int bl[3] = { PIECE, 0, 2 * PIECE };
    MPI_Aint d[3];
    MPI_Datatype ty[3] = { MPI_BYTE, MPI_BYTE, MPI_BYTE }, st;

    MT_CHECK(a != NULL && b != NULL && r != NULL);
    MPI_Get_address(b, &d[0]);   /* b first: reverse order of the stream */
    MPI_Get_address(a, &d[1]);
    MPI_Get_address(a, &d[2]);
    bl[0] = 2 * PIECE;
    bl[2] = PIECE;
    MT_OK(MPI_Type_create_struct(3, bl, d, ty, &st));
    MT_OK(MPI_Type_commit(&st));
    for (size_t k = 0; k < 2 * PIECE; ++k) {
        b[k] = val(k, 1);
    }
    for (size_t k = 0; k < PIECE; ++k) {
        a[k] = val(2 * PIECE + k, 1);
    }
    if (rank == 0) {
        MT_OK(MPI_Send(MPI_BOTTOM, 1, st, 1, 1, MPI_COMM_WORLD));
        MPI_Request req;

        MT_OK(MPI_Isend(MPI_BOTTOM, 1, st, 0, 2, MPI_COMM_SELF, &req));
        memset(r, 0xEE, 3 * PIECE + 1);
        MT_OK(MPI_Recv(r, 3 * PIECE, MPI_BYTE, 0, 2, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check_stream(r, 3 * PIECE, 1, "bottom (self)");
    } else if (rank == 1) {
        memset(r, 0xEE, 3 * PIECE + 1);
        MT_OK(MPI_Recv(r, 3 * PIECE + 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check_stream(r, 3 * PIECE, 1, "bottom");
        MT_EQ(r[3 * PIECE], 0xEE);
    }
    MT_OK(MPI_Type_free(&st));
    free(a);
    free(b);
    free(r);
}

static void overlap(void)
{
    unsigned char *s = malloc(PIECE), *r = malloc(2 * PIECE);
    int bl[2] = { PIECE, PIECE };
    MPI_Aint d[2] = { 0, 0 };
    MPI_Datatype t;

    MT_CHECK(s != NULL && r != NULL);
    MT_OK(MPI_Type_create_hindexed(2, bl, d, MPI_BYTE, &t));
    MT_OK(MPI_Type_commit(&t));
    for (size_t k = 0; k < PIECE; ++k) {
        s[k] = val(k, 2);
    }
    if (rank == 0) {
        MT_OK(MPI_Send(s, 1, t, 1, 3, MPI_COMM_WORLD));
    } else if (rank == 1) {
        memset(r, 0, 2 * PIECE);
        MT_OK(MPI_Recv(r, 2 * PIECE, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check_stream(r, PIECE, 2, "overlap, first copy");
        check_stream(r + PIECE, PIECE, 2, "overlap, second copy");
    }
    MT_OK(MPI_Type_free(&t));
    free(s);
    free(r);
}

static void cancel(void)
{
    const int n = 200;
    size_t bytes = (size_t)n * PIECE;
    unsigned char *s = malloc(2 * bytes), *r = malloc(bytes);
    MPI_Datatype v;
    MPI_Request req;
    MPI_Status status;
    int flag = 0;

    MT_CHECK(s != NULL && r != NULL);
    MT_OK(MPI_Type_vector(n, PIECE, 2 * PIECE, MPI_BYTE, &v));
    MT_OK(MPI_Type_commit(&v));
    if (rank == 0) {
        memset(s, 0x55, 2 * bytes);
        MT_OK(MPI_Isend(s, 1, v, 1, 4, MPI_COMM_WORLD, &req));
        MT_OK(MPI_Cancel(&req));
        MT_OK(MPI_Wait(&req, &status));
        MT_OK(MPI_Test_cancelled(&status, &flag));
        MT_EQ(flag, 1);
        for (size_t k = 0; k < bytes; ++k) {
            s[(k / PIECE) * 2 * PIECE + k % PIECE] = val(k, 3);
        }
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        MT_OK(MPI_Send(s, 1, v, 1, 4, MPI_COMM_WORLD));
    } else {
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (rank == 1) {
        MT_OK(MPI_Recv(r, (int)bytes, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &status));
        check_stream(r, bytes, 3, "after a cancelled send");
    }
    MT_OK(MPI_Type_free(&v));
    free(s);
    free(r);
}

static void persist(void)
{
    const int n = 20;
    size_t bytes = (size_t)n * PIECE;
    unsigned char *s = malloc(2 * bytes), *r = malloc(bytes);
    MPI_Datatype v;
    MPI_Request req;

    MT_CHECK(s != NULL && r != NULL);
    MT_OK(MPI_Type_vector(n, PIECE, 2 * PIECE, MPI_BYTE, &v));
    MT_OK(MPI_Type_commit(&v));
    if (rank == 0) {
        MT_OK(MPI_Send_init(s, 1, v, 1, 5, MPI_COMM_WORLD, &req));
    }
    for (int round = 0; round < 4; ++round) {
        if (rank == 0) {
            for (size_t k = 0; k < bytes; ++k) {
                s[(k / PIECE) * 2 * PIECE + k % PIECE] = val(k, 10 + round);
            }
            if (round < 3) {
                MT_OK(MPI_Start(&req));
                MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            } else {
                MT_OK(MPI_Ssend(s, 1, v, 1, 5, MPI_COMM_WORLD));
            }
        } else if (rank == 1) {
            memset(r, 0, bytes);
            MT_OK(MPI_Recv(r, (int)bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            check_stream(r, bytes, 10 + round, "persistent");
        }
    }
    if (rank == 0) {
        MT_OK(MPI_Request_free(&req));
    }
    MT_OK(MPI_Type_free(&v));
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_CHECK(size >= 2);
    if (argc < 2 || strcmp(argv[1], "bottom") == 0) {
        bottom();
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (argc < 2 || strcmp(argv[1], "overlap") == 0) {
        overlap();
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (argc < 2 || strcmp(argv[1], "cancel") == 0) {
        cancel();
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (argc < 2 || strcmp(argv[1], "persist") == 0) {
        persist();
    }
    MT_OK(MPI_Finalize());
    if (rank == 0) {
        printf("mpi_review10_dt: OK\n");
    }
    return 0;
}
