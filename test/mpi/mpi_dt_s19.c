/*
 * mpi_dt_s19: typed sends from a rank to itself whose pieces are small
 * (8-byte column elements, a 24-byte struct), which session 19 stopped
 * packing (LOOM_P2P_RTS_SELF, docs/p2p.md "Derived datatypes"): the
 * receive copies from the send's layout, in one pass when both have the
 * same type, checked byte for byte.
 *
 * Design. Every rank talks to itself only (MPI_COMM_WORLD, its own rank),
 * at eager, rendezvous and multi-chunk sizes, each case with the receive
 * posted first and again unexpected:
 *   same      a column of one matrix into another column of another matrix
 *             (same type: the one-pass move);
 *   twin      the same, the receive's type built again (another handle,
 *             one layout: still the move, as in osu_halo, whose faces
 *             are built one per direction);
 *   trunc     3 instances of a resized column sent, 2 received (same type):
 *             MPI_ERR_TRUNCATE, 2 instances delivered, the third untouched;
 *   overlap   a column into another column of the SAME matrix (same type,
 *             the two layouts' spans overlap: through the bounce);
 *   contig    a column into contiguous doubles (a pack into the buffer);
 *   other     a column into a column of another stride (two types: the
 *             bounce, several 64 KiB chunks at the largest size);
 *   rows      blocks of 64 doubles into blocks of 48 (two layouts, pieces of
 *             512 and 384 bytes: copied piece to piece, the pieces of the
 *             two sides cut at other places, over a thousand of them), and
 *             into every other double (the receive's pieces are small:
 *             the piece-to-piece copy declines, the bounce takes it);
 *   struct    an array of {int, double, char} resized to 24 bytes, same
 *             type both sides (padding bytes keep their poison);
 *   negative  a column walked bottom-up (hvector with a negative stride);
 *   sendrecv, ssend, probe: the same move through MPI_Sendrecv,
 *             MPI_Issend and MPI_Probe + MPI_Recv.
 * Every cell of every receiving buffer is compared with a model: the
 * column gets the sender's values, everything else its poison.
 * argv[1] == "small": the largest size is left out (sanitizer builds).
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COLS   5
#define POISON (-1.0)

static int rank, small;

static double value(int c, size_t i)
{
    return (double)rank * 1e9 + (double)c * 1e7 + (double)i;
}

static double *matrix(size_t rows)
{
    double *m = malloc(rows * COLS * sizeof(double));

    MT_CHECK(m != NULL);
    for (size_t i = 0; i < rows * COLS; i++) {
        m[i] = POISON;
    }
    return m;
}

/* column @p col of @p m holds case @p c's values in rows [0, rows) */
static void fill_col(double *m, size_t rows, int col, int c)
{
    for (size_t i = 0; i < rows; i++) {
        m[i * COLS + (size_t)col] = value(c, i);
    }
}

/* every cell of @p m: column @p col rows [0, got) the values of case @p c,
 * (or, @p keep_col >= 0, that column's own values), the rest poison */
static void check_matrix(const double *m, size_t rows, int col, size_t got, int c,
                         int keep_col, const char *what)
{
    for (size_t i = 0; i < rows; i++) {
        for (int k = 0; k < COLS; k++) {
            double want = POISON;

            if (k == col && i < got) {
                want = value(c, i);
            } else if (k == keep_col) {
                want = value(c, i);
            }
            if (m[i * COLS + (size_t)k] != want) {
                MT_FAIL("%s: row %zu col %d holds %.17g, want %.17g (%zu rows, %zu got)",
                        what, i, k, m[i * COLS + (size_t)k], want, rows, got);
            }
        }
    }
}

/* send (sbuf, scount, stype) to ourselves and receive (rbuf, rcount, rtype):
 * receive first (@p unexpected 0) or send first; the status's doubles */
static int self_move(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                     int rcount, MPI_Datatype rtype, int unexpected, int *err_class)
{
    MPI_Request r[2];
    MPI_Status st[2];
    int n = -1, rc;

    if (unexpected) {
        MT_OK(MPI_Isend(sbuf, scount, stype, rank, 7, MPI_COMM_WORLD, &r[0]));
        MT_OK(MPI_Irecv(rbuf, rcount, rtype, rank, 7, MPI_COMM_WORLD, &r[1]));
    } else {
        MT_OK(MPI_Irecv(rbuf, rcount, rtype, rank, 7, MPI_COMM_WORLD, &r[1]));
        MT_OK(MPI_Isend(sbuf, scount, stype, rank, 7, MPI_COMM_WORLD, &r[0]));
    }
    rc = MPI_Waitall(2, r, st);
    *err_class = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        MT_EQ(rc, MPI_ERR_IN_STATUS);
        MT_EQ(st[0].MPI_ERROR, MPI_SUCCESS);
        MPI_Error_class(st[1].MPI_ERROR, err_class);
    }
    MT_EQ(st[1].MPI_SOURCE, rank);
    MT_EQ(st[1].MPI_TAG, 7);
    MT_OK(MPI_Get_elements(&st[1], MPI_DOUBLE, &n));
    return n;
}

static void case_columns(size_t rows, int unexpected)
{
    MPI_Datatype col, col2, colr;
    double *a = matrix(rows), *b = matrix(rows);
    double *c = malloc(rows * sizeof(double));
    double *w = malloc(rows * (COLS + 2) * sizeof(double));
    int cls, n;

    MT_CHECK(c != NULL && w != NULL);
    MT_OK(MPI_Type_vector((int)rows, 1, COLS, MPI_DOUBLE, &col));
    MT_OK(MPI_Type_commit(&col));
    MT_OK(MPI_Type_vector((int)rows, 1, COLS + 2, MPI_DOUBLE, &col2));
    MT_OK(MPI_Type_commit(&col2));

    /* same */
    fill_col(a, rows, 1, 1);
    n = self_move(a + 1, 1, col, b + 3, 1, col, unexpected, &cls);
    MT_EQ(cls, MPI_SUCCESS);
    MT_EQ(n, rows);
    check_matrix(b, rows, 3, rows, 1, -1, "same");
    check_matrix(a, rows, 1, rows, 1, -1, "same (the sender's matrix)");

    /* twin: the receive's column built again */
    {
        MPI_Datatype twin;
        double *t = matrix(rows);

        MT_OK(MPI_Type_vector((int)rows, 1, COLS, MPI_DOUBLE, &twin));
        MT_OK(MPI_Type_commit(&twin));
        n = self_move(a + 1, 1, col, t + 0, 1, twin, unexpected, &cls);
        MT_EQ(cls, MPI_SUCCESS);
        MT_EQ(n, rows);
        check_matrix(t, rows, 0, rows, 1, -1, "twin");
        MT_OK(MPI_Type_free(&twin));
        free(t);
    }

    /* overlap: column 1 of a into column 4 of a */
    n = self_move(a + 1, 1, col, a + 4, 1, col, unexpected, &cls);
    MT_EQ(cls, MPI_SUCCESS);
    MT_EQ(n, rows);
    check_matrix(a, rows, 4, rows, 1, 1, "overlap");

    /* contig */
    for (size_t i = 0; i < rows; i++) {
        c[i] = POISON;
    }
    n = self_move(a + 1, 1, col, c, (int)rows, MPI_DOUBLE, unexpected, &cls);
    MT_EQ(cls, MPI_SUCCESS);
    MT_EQ(n, rows);
    for (size_t i = 0; i < rows; i++) {
        if (c[i] != value(1, i)) {
            MT_FAIL("contig: double %zu is %.17g, want %.17g", i, c[i], value(1, i));
        }
    }

    /* other: stride COLS into stride COLS + 2 */
    for (size_t i = 0; i < rows * (COLS + 2); i++) {
        w[i] = POISON;
    }
    n = self_move(a + 1, 1, col, w + 2, 1, col2, unexpected, &cls);
    MT_EQ(cls, MPI_SUCCESS);
    MT_EQ(n, rows);
    for (size_t i = 0; i < rows * (COLS + 2); i++) {
        double want = i % (COLS + 2) == 2 ? value(1, i / (COLS + 2)) : POISON;

        if (w[i] != want) {
            MT_FAIL("other: cell %zu is %.17g, want %.17g", i, w[i], want);
        }
    }

    /* trunc: instances of rows/3 rows of a column, resized to their rows */
    {
        size_t k = rows / 3;
        MPI_Datatype part;

        MT_OK(MPI_Type_vector((int)k, 1, COLS, MPI_DOUBLE, &colr));
        MT_OK(MPI_Type_create_resized(colr, 0, (MPI_Aint)(k * COLS * sizeof(double)), &part));
        MT_OK(MPI_Type_commit(&part));
        free(b);
        b = matrix(rows);
        n = self_move(a + 1, 3, part, b + 2, 2, part, unexpected, &cls);
        MT_EQ(cls, MPI_ERR_TRUNCATE);
        MT_EQ(n, 2 * k);
        check_matrix(b, rows, 2, 2 * k, 1, -1, "trunc");
        MT_OK(MPI_Type_free(&part));
        MT_OK(MPI_Type_free(&colr));
    }
    MT_OK(MPI_Type_free(&col));
    MT_OK(MPI_Type_free(&col2));
    free(a);
    free(b);
    free(c);
    free(w);
}

/* 3k blocks of 64 doubles (70 apart) into 4k blocks of 48 (50 apart) */
static void case_rows(size_t rows, int unexpected)
{
    size_t k = rows / 48 + 1, ns = 3 * k * 70, nr = 4 * k * 50;
    double *a = malloc(ns * sizeof(double)), *b = malloc(nr * sizeof(double));
    MPI_Datatype s64, r48;
    int cls, n;

    MT_CHECK(a != NULL && b != NULL);
    MT_OK(MPI_Type_vector((int)(3 * k), 64, 70, MPI_DOUBLE, &s64));
    MT_OK(MPI_Type_vector((int)(4 * k), 48, 50, MPI_DOUBLE, &r48));
    MT_OK(MPI_Type_commit(&s64));
    MT_OK(MPI_Type_commit(&r48));
    for (size_t i = 0; i < ns; i++) {
        a[i] = i % 70 < 64 ? value(5, i / 70 * 64 + i % 70) : -2.0;
    }
    for (size_t i = 0; i < nr; i++) {
        b[i] = POISON;
    }
    n = self_move(a, 1, s64, b, 1, r48, unexpected, &cls);
    MT_EQ(cls, MPI_SUCCESS);
    MT_EQ(n, 192 * k);
    for (size_t i = 0; i < nr; i++) {
        double want = i % 50 < 48 ? value(5, i / 50 * 48 + i % 50) : POISON;

        if (b[i] != want) {
            MT_FAIL("rows: cell %zu is %.17g, want %.17g", i, b[i], want);
        }
    }
    /* the same rows into every other double: the receive's pieces are small
     * (the piece-to-piece copy declines, the bounce takes it) */
    {
        MPI_Datatype odd;
        double *c = malloc(2 * 192 * k * sizeof(double));

        MT_CHECK(c != NULL);
        MT_OK(MPI_Type_vector((int)(192 * k), 1, 2, MPI_DOUBLE, &odd));
        MT_OK(MPI_Type_commit(&odd));
        for (size_t i = 0; i < 2 * 192 * k; i++) {
            c[i] = POISON;
        }
        n = self_move(a, 1, s64, c, 1, odd, unexpected, &cls);
        MT_EQ(cls, MPI_SUCCESS);
        MT_EQ(n, 192 * k);
        for (size_t i = 0; i < 2 * 192 * k; i++) {
            double want = i % 2 == 1 ? POISON : value(5, i / 2);

            if (c[i] != want) {
                MT_FAIL("rows into every other double: cell %zu is %.17g, want %.17g", i,
                        c[i], want);
            }
        }
        MT_OK(MPI_Type_free(&odd));
        free(c);
    }
    MT_OK(MPI_Type_free(&s64));
    MT_OK(MPI_Type_free(&r48));
    free(a);
    free(b);
}

/* the same move through Sendrecv, Issend and Probe */
static void case_calls(size_t rows)
{
    MPI_Datatype col;
    MPI_Request r;
    MPI_Status st;
    double *a = matrix(rows), *b;
    int n;

    MT_OK(MPI_Type_vector((int)rows, 1, COLS, MPI_DOUBLE, &col));
    MT_OK(MPI_Type_commit(&col));
    fill_col(a, rows, 0, 2);
    for (int how = 0; how < 3; how++) {
        b = matrix(rows);
        if (how == 0) {
            MT_OK(MPI_Sendrecv(a, 1, col, rank, 3, b + 4, 1, col, rank, 3, MPI_COMM_WORLD,
                               &st));
        } else if (how == 1) {
            MT_OK(MPI_Issend(a, 1, col, rank, 3, MPI_COMM_WORLD, &r));
            MT_OK(MPI_Recv(b + 4, 1, col, rank, 3, MPI_COMM_WORLD, &st));
            MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            MT_OK(MPI_Isend(a, 1, col, rank, 3, MPI_COMM_WORLD, &r));
            MT_OK(MPI_Probe(rank, 3, MPI_COMM_WORLD, &st));
            MT_OK(MPI_Get_elements(&st, MPI_DOUBLE, &n));
            MT_EQ(n, rows);
            MT_OK(MPI_Recv(b + 4, 1, col, rank, 3, MPI_COMM_WORLD, &st));
            MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        MT_OK(MPI_Get_elements(&st, MPI_DOUBLE, &n));
        MT_EQ(n, rows);
        check_matrix(b, rows, 4, rows, 2, -1, how == 0 ? "sendrecv" : how == 1 ? "ssend"
                                                                      : "probe");
        free(b);
    }
    MT_OK(MPI_Type_free(&col));
    free(a);
}

/* a column walked bottom-up: the type's lower bound is below the buffer */
static void case_negative(size_t rows, int unexpected)
{
    MPI_Datatype up;
    double *a = matrix(rows), *b = matrix(rows);
    int cls, n;

    MT_OK(MPI_Type_create_hvector((int)rows, 1, -(MPI_Aint)(COLS * sizeof(double)),
                                  MPI_DOUBLE, &up));
    MT_OK(MPI_Type_commit(&up));
    fill_col(a, rows, 2, 3);
    n = self_move(a + (rows - 1) * COLS + 2, 1, up, b + (rows - 1) * COLS + 0, 1, up,
                  unexpected, &cls);
    MT_EQ(cls, MPI_SUCCESS);
    MT_EQ(n, rows);
    check_matrix(b, rows, 0, rows, 3, -1, "negative");
    MT_OK(MPI_Type_free(&up));
    free(a);
    free(b);
}

typedef struct particle {
    int    id;
    double x;
    char   tag;
} particle_t;

static void case_struct(size_t n, int unexpected)
{
    int bl[3] = { 1, 1, 1 };
    MPI_Aint d[3] = { offsetof(particle_t, id), offsetof(particle_t, x),
                      offsetof(particle_t, tag) };
    MPI_Datatype t[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, raw, pt;
    particle_t *s = malloc(n * sizeof(*s)), *r = malloc(n * sizeof(*r));
    int got;

    MT_CHECK(s != NULL && r != NULL);
    MT_OK(MPI_Type_create_struct(3, bl, d, t, &raw));
    MT_OK(MPI_Type_create_resized(raw, 0, sizeof(particle_t), &pt));
    MT_OK(MPI_Type_commit(&pt));
    memset(s, 0x11, n * sizeof(*s));
    memset(r, 0x5a, n * sizeof(*r));
    for (size_t i = 0; i < n; i++) {
        s[i].id  = (int)i ^ rank;
        s[i].x   = value(4, i);
        s[i].tag = (char)('a' + i % 26);
    }
    MPI_Status st;
    MPI_Request q[2];

    if (unexpected) {
        MT_OK(MPI_Isend(s, (int)n, pt, rank, 9, MPI_COMM_WORLD, &q[0]));
        MT_OK(MPI_Irecv(r, (int)n, pt, rank, 9, MPI_COMM_WORLD, &q[1]));
    } else {
        MT_OK(MPI_Irecv(r, (int)n, pt, rank, 9, MPI_COMM_WORLD, &q[1]));
        MT_OK(MPI_Isend(s, (int)n, pt, rank, 9, MPI_COMM_WORLD, &q[0]));
    }
    MT_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    MT_OK(MPI_Wait(&q[1], &st));
    MT_OK(MPI_Get_count(&st, pt, &got));
    MT_EQ(got, n);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = (const unsigned char *)&r[i];

        for (size_t b = 0; b < sizeof(particle_t); b++) {
            int in_field = (b >= (size_t)d[0] && b < (size_t)d[0] + sizeof(int)) ||
                           (b >= (size_t)d[1] && b < (size_t)d[1] + sizeof(double)) ||
                           b == (size_t)d[2];
            unsigned char want = in_field ? ((const unsigned char *)&s[i])[b] : 0x5a;

            if (p[b] != want) {
                MT_FAIL("struct: particle %zu byte %zu is 0x%02x, want 0x%02x", i, b, p[b],
                        want);
            }
        }
    }
    MT_OK(MPI_Type_free(&raw));
    MT_OK(MPI_Type_free(&pt));
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    size_t rows[] = { 30, 3000, 40000, 300000 };
    int nrows = 4;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    small = argc > 1 && strcmp(argv[1], "small") == 0;
    if (small) {
        nrows = 3;
    }
    for (int k = 0; k < nrows; k++) {
        for (int unexpected = 0; unexpected < 2; unexpected++) {
            case_columns(rows[k], unexpected);
            case_negative(rows[k], unexpected);
            case_rows(rows[k], unexpected);
            case_struct(rows[k], unexpected);
        }
        case_calls(rows[k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MT_PASS("mpi_dt_s19");
    MPI_Finalize();
    return 0;
}
