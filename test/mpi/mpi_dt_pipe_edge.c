/*
 * mpi_dt_pipe_edge: the receive side's corner cases of the pipelined typed
 * rendezvous (docs/p2p.md "Derived datatypes", LOOM_P2P_RTS_PIPE), found
 * in the review of issue 20.
 *
 * Design. Rank 0 sends typed messages above the pipeline's threshold
 * (64 KiB) made of small pieces, so they pipeline over shm with CMA; rank
 * 1 receives them in the ways the pipeline must still serve: with
 * MPI_ANY_SOURCE, by MPI_Mprobe + MPI_Mrecv, posted only after the sender
 * finished packing (a barrier between), as contiguous bytes (no type on
 * the receiver), truncated below the first published bytes (the receive
 * ends before the sender packed the rest), and with a type of negative
 * lower bound and holes. Every received byte is checked; gaps keep their
 * poison. Other ranks only join the barriers.
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

#define POISON 0x5a
#define ROWS   ((size_t)40000)   /* 312.5 KiB of 8-byte pieces */

static int rank;

static double value(int c, size_t i)
{
    return (double)c * 1e7 + (double)i;
}

/* a column of ROWS doubles out of a 3-wide matrix, values of case @p c */
static double *column_make(int c, MPI_Datatype *col)
{
    double *a = malloc(ROWS * 3 * sizeof(double));

    MT_CHECK(a != NULL);
    for (size_t i = 0; i < ROWS; i++) {
        a[3 * i] = -1.0;
        a[3 * i + 1] = value(c, i);
        a[3 * i + 2] = -2.0;
    }
    MT_OK(MPI_Type_vector((int)ROWS, 1, 3, MPI_DOUBLE, col));
    MT_OK(MPI_Type_commit(col));
    return a;
}

/* @p n doubles of case @p c in @p b, the rest of @p slots poisoned */
static void check_doubles(const double *b, size_t n, size_t slots, int c)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i] != value(c, i)) {
            MT_FAIL("case %d: double %zu is %g, expected %g", c, i, b[i], value(c, i));
        }
    }
    for (size_t i = n * sizeof(double); i < slots * sizeof(double); i++) {
        MT_EQ(((const unsigned char *)b)[i], POISON);
    }
}

/* how rank 1 receives case c (see the file's comment) */
static void recv_case(int c, int mode)
{
    size_t slots = ROWS + 1;
    double *b = malloc(slots * sizeof(double));
    MPI_Status st;
    MPI_Message msg;
    int count = -1;

    MT_CHECK(b != NULL);
    memset(b, POISON, slots * sizeof(double));
    if (mode == 0) {            /* any source */
        MT_OK(MPI_Recv(b, (int)ROWS, MPI_DOUBLE, MPI_ANY_SOURCE, c, MPI_COMM_WORLD, &st));
    } else if (mode == 1) {     /* matched probe */
        MT_OK(MPI_Mprobe(0, c, MPI_COMM_WORLD, &msg, &st));
        MT_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
        MT_EQ(count, (int)ROWS);
        MT_OK(MPI_Mrecv(b, (int)ROWS, MPI_DOUBLE, &msg, &st));
    } else {                    /* contiguous bytes, posted after the pack */
        MT_OK(MPI_Recv(b, (int)(ROWS * sizeof(double)), MPI_BYTE, 0, c, MPI_COMM_WORLD,
                       &st));
    }
    MT_EQ(st.MPI_SOURCE, 0);
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    MT_EQ(count, (int)ROWS);
    check_doubles(b, ROWS, slots, c);
    free(b);
}

/* truncated to 100 doubles: fewer than the bytes packed before the RTS */
static void recv_short(int c)
{
    double b[128];
    MPI_Status st;
    int count = -1;

    memset(b, POISON, sizeof(b));
    MT_ERR(MPI_Recv(b, 100, MPI_DOUBLE, 0, c, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    MT_EQ(count, 100);
    check_doubles(b, 100, 128, c);
}

/*
 * a type with lb -8 and a hole: {int at -8, double at 8} in a 24-byte
 * extent, sent from the middle of a buffer, received as the same type
 */
static void neg_lb(int c)
{
    const size_t n = 6000;   /* 72 KiB packed */
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { -8, 8 };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, st0, t;
    size_t bytes = (n + 2) * 24;
    unsigned char *a = malloc(bytes), *e = malloc(bytes);
    MPI_Aint lb, ext;

    MT_CHECK(a != NULL && e != NULL);
    MT_OK(MPI_Type_create_struct(2, bl, disp, types, &st0));
    MT_OK(MPI_Type_create_resized(st0, -8, 24, &t));
    MT_OK(MPI_Type_commit(&t));
    MT_OK(MPI_Type_get_extent(t, &lb, &ext));
    MT_EQ(lb, -8);
    MT_EQ(ext, 24);
    memset(a, POISON, bytes);
    memset(e, POISON, bytes);
    for (size_t i = 0; i < n; i++) {   /* int at a+8+24i, double at a+24+24i */
        int v = (int)(i * 7 + (size_t)c);
        double d = value(c, i);

        memcpy(e + 8 + i * 24, &v, sizeof(v));
        memcpy(e + 24 + i * 24, &d, sizeof(d));
    }
    if (rank == 0) {
        MT_OK(MPI_Send(e + 16, (int)n, t, 1, c, MPI_COMM_WORLD));
    } else {
        MPI_Status s;
        int elems = -1;

        MT_OK(MPI_Recv(a + 16, (int)n, t, 0, c, MPI_COMM_WORLD, &s));
        MT_OK(MPI_Get_elements(&s, t, &elems));
        MT_EQ(elems, (int)(2 * n));
        for (size_t i = 0; i < bytes; i++) {
            if (a[i] != e[i]) {
                MT_FAIL("neg_lb: byte %zu is 0x%02x, expected 0x%02x", i, a[i], e[i]);
            }
        }
    }
    MT_OK(MPI_Type_free(&t));
    MT_OK(MPI_Type_free(&st0));
    free(a);
    free(e);
}

int main(int argc, char **argv)
{
    int size, c;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_CHECK(size >= 2);
    for (c = 1; c <= 4; c++) {
        if (rank == 0) {
            MPI_Datatype col;
            MPI_Request rq;
            double *a = column_make(c, &col);

            MT_OK(MPI_Isend(a + 1, 1, col, 1, c, MPI_COMM_WORLD, &rq));
            MT_OK(MPI_Barrier(MPI_COMM_WORLD));   /* packed before the receive */
            MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            MT_OK(MPI_Type_free(&col));
            free(a);
        } else {
            MT_OK(MPI_Barrier(MPI_COMM_WORLD));
            if (rank == 1) {
                if (c == 4) {
                    recv_short(c);
                } else {
                    recv_case(c, c - 1);
                }
            }
        }
    }
    if (rank <= 1) {
        neg_lb(++c);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_dt_pipe_edge");
    MT_OK(MPI_Finalize());
    return 0;
}
