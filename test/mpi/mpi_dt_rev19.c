/*
 * mpi_dt_rev19: the review of session 19's typed sends to the rank itself
 * (LOOM_P2P_RTS_SELF, docs/p2p.md "Derived datatypes"): the corners of the
 * send's lifetime and layout that mpi_dt_s19 leaves out, every received
 * cell compared with a model.
 *
 * Design. Every rank talks to itself only, with a column of doubles
 * (8-byte pieces: the self path) at a rendezvous size:
 *   cancel    an unmatched self send cancelled (its type then freed), and
 *             a send after it delivered;
 *   freed     the send's request and type freed before the receive;
 *   persist   MPI_Send_init / MPI_Recv_init to self, three starts, new
 *             values each time;
 *   mprobe    MPI_Mprobe + MPI_Mrecv and MPI_Improbe + MPI_Imrecv;
 *   replace   MPI_Sendrecv_replace and MPI_Bsend to self;
 *   counts    a receive shorter (MPI_ERR_TRUNCATE) and longer than the
 *             send, into doubles; Get_count / Get_elements;
 *   lb        three columns as a resized column (lb below the buffer,
 *             extent one double), count 3, into another matrix (the move)
 *             and into the same matrix two columns on (overlapping spans);
 *   bottom    a column by absolute addresses from MPI_BOTTOM, received
 *             with the same absolute type shifted onto another matrix;
 *   negext    three columns right to left (a resized column of extent
 *             minus one double, count 3): the move, and overlapping spans;
 *   pairs     a struct array into a twin, a dup freed early, a count-0
 *             receive (MPI_ERR_TRUNCATE, nothing written);
 *   threads   (MPI_THREAD_MULTIPLE granted) two threads each sending
 *             itself columns on its own tag at once.
 * At the end a self send is left unmatched (its request freed) for
 * MPI_Finalize to deal with.
 */
#include "mpi_test_util.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COLS   5
#define ROWS   20000
#define POISON (-1.0)

static int rank;

static double value(int c, size_t i)
{
    return (double)rank * 1e9 + (double)c * 1e7 + (double)i;
}

static double *matrix(void)
{
    double *m = malloc(ROWS * COLS * sizeof(double));

    MT_CHECK(m != NULL);
    for (size_t i = 0; i < ROWS * COLS; i++) {
        m[i] = POISON;
    }
    return m;
}

static void fill_col(double *m, int col, int c)
{
    for (size_t i = 0; i < ROWS; i++) {
        m[i * COLS + (size_t)col] = value(c, i);
    }
}

/* column @p col of @p m: rows [0, got) hold case @p c's values, the rest poison */
static void check_col(const double *m, int col, size_t got, int c, const char *what)
{
    for (size_t i = 0; i < ROWS; i++) {
        double want = i < got ? value(c, i) : POISON;

        if (m[i * COLS + (size_t)col] != want) {
            MT_FAIL("%s: row %zu col %d holds %.17g, want %.17g", what, i, col,
                    m[i * COLS + (size_t)col], want);
        }
    }
}

static MPI_Datatype column(void)
{
    MPI_Datatype col;

    MT_OK(MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &col));
    MT_OK(MPI_Type_commit(&col));
    return col;
}

static void case_cancel(void)
{
    MPI_Datatype col = column(), col2 = column();
    double *a = matrix(), *b = matrix();
    MPI_Request r;
    MPI_Status st;
    int flag = 0;

    fill_col(a, 1, 10);
    MT_OK(MPI_Isend(a, 1, col, rank, 21, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Cancel(&r));
    MT_OK(MPI_Type_free(&col));
    MT_OK(MPI_Wait(&r, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);
    fill_col(a, 1, 11);
    MT_OK(MPI_Isend(a + 1, 1, col2, rank, 21, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Recv(b + 2, 1, col2, rank, 21, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_col(b, 2, ROWS, 11, "cancel: the send after");
    MT_OK(MPI_Type_free(&col2));
    free(a);
    free(b);
}

static void case_freed(void)
{
    MPI_Datatype col = column(), col2 = column();
    double *a = matrix(), *b = matrix();
    MPI_Request r;

    fill_col(a, 3, 12);
    MT_OK(MPI_Isend(a + 3, 1, col, rank, 22, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Request_free(&r));
    MT_OK(MPI_Type_free(&col));
    MT_OK(MPI_Recv(b, 1, col2, rank, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_col(b, 0, ROWS, 12, "freed");
    MT_OK(MPI_Type_free(&col2));
    free(a);
    free(b);
}

static void case_persist(void)
{
    MPI_Datatype col = column();
    double *a = matrix(), *b = matrix();
    MPI_Request r[2];

    MT_OK(MPI_Send_init(a + 1, 1, col, rank, 23, MPI_COMM_WORLD, &r[0]));
    MT_OK(MPI_Recv_init(b + 4, 1, col, rank, 23, MPI_COMM_WORLD, &r[1]));
    for (int k = 0; k < 3; k++) {
        fill_col(a, 1, 20 + k);
        MT_OK(MPI_Start(&r[k % 2 == 0 ? 0 : 1]));
        MT_OK(MPI_Start(&r[k % 2 == 0 ? 1 : 0]));
        MT_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        check_col(b, 4, ROWS, 20 + k, "persist");
    }
    MT_OK(MPI_Request_free(&r[0]));
    MT_OK(MPI_Request_free(&r[1]));
    MT_OK(MPI_Type_free(&col));
    free(a);
    free(b);
}

static void case_mprobe(void)
{
    MPI_Datatype col = column();
    double *a = matrix(), *b = matrix();
    MPI_Request r, rr;
    MPI_Message msg;
    MPI_Status st;
    int n = -1, flag = 0;

    fill_col(a, 0, 30);
    MT_OK(MPI_Isend(a, 1, col, rank, 24, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Mprobe(rank, 24, MPI_COMM_WORLD, &msg, &st));
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    MT_EQ(n, ROWS);
    MT_OK(MPI_Mrecv(b + 1, 1, col, &msg, &st));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_col(b, 1, ROWS, 30, "mrecv");
    fill_col(a, 0, 31);
    MT_OK(MPI_Isend(a, 1, col, rank, 24, MPI_COMM_WORLD, &r));
    while (!flag) {
        MT_OK(MPI_Improbe(rank, 24, MPI_COMM_WORLD, &flag, &msg, &st));
    }
    MT_OK(MPI_Imrecv(b + 1, 1, col, &msg, &rr));
    MT_OK(MPI_Wait(&rr, &st));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_col(b, 1, ROWS, 31, "imrecv");
    MT_OK(MPI_Type_free(&col));
    free(a);
    free(b);
}

static void case_replace(void)
{
    MPI_Datatype col = column();
    double *a = matrix(), *b = matrix();
    int size = ROWS * (int)sizeof(double) + MPI_BSEND_OVERHEAD, bsize;
    void *bbuf = malloc((size_t)size), *det;

    MT_CHECK(bbuf != NULL);
    fill_col(a, 2, 40);
    MT_OK(MPI_Sendrecv_replace(a + 2, 1, col, rank, 25, rank, 25, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
    check_col(a, 2, ROWS, 40, "sendrecv_replace");
    MT_OK(MPI_Buffer_attach(bbuf, size));
    MT_OK(MPI_Bsend(a + 2, 1, col, rank, 25, MPI_COMM_WORLD));
    fill_col(a, 2, 41);   /* the buffered copy is what arrives */
    MT_OK(MPI_Recv(b + 3, 1, col, rank, 25, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_col(b, 3, ROWS, 40, "bsend");
    MT_OK(MPI_Buffer_detach(&det, &bsize));
    free(bbuf);
    MT_OK(MPI_Type_free(&col));
    free(a);
    free(b);
}

static void case_counts(void)
{
    MPI_Datatype col = column();
    double *a = matrix(), *d = malloc((ROWS + 7) * sizeof(double));
    MPI_Request r;
    MPI_Status st;
    int n = -1, cls;

    MT_CHECK(d != NULL);
    fill_col(a, 4, 50);
    for (int longer = 0; longer < 2; longer++) {
        int cnt = longer ? ROWS + 7 : ROWS / 2;
        int rc;

        for (size_t i = 0; i < ROWS + 7; i++) {
            d[i] = POISON;
        }
        MT_OK(MPI_Isend(a + 4, 1, col, rank, 26, MPI_COMM_WORLD, &r));
        rc = MPI_Recv(d, cnt, MPI_DOUBLE, rank, 26, MPI_COMM_WORLD, &st);
        MPI_Error_class(rc, &cls);
        MT_EQ(cls, longer ? MPI_SUCCESS : MPI_ERR_TRUNCATE);
        MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MT_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
        MT_EQ(n, longer ? ROWS : ROWS / 2);
        for (size_t i = 0; i < ROWS + 7; i++) {
            double want = i < (size_t)n ? value(50, i) : POISON;

            if (d[i] != want) {
                MT_FAIL("counts (%s): double %zu holds %.17g, want %.17g",
                        longer ? "longer" : "shorter", i, d[i], want);
            }
        }
    }
    free(d);
    MT_OK(MPI_Type_free(&col));
    free(a);
}

/* three columns as one resized column: lb 16 bytes below, extent 8 */
static void case_lb(void)
{
    MPI_Datatype col = column(), rc;
    double *a = matrix(), *b = matrix();
    int n = -1;
    MPI_Request r;
    MPI_Status st;

    MT_OK(MPI_Type_create_resized(col, -16, (MPI_Aint)sizeof(double), &rc));
    MT_OK(MPI_Type_commit(&rc));
    for (int c = 0; c < 3; c++) {
        fill_col(a, c, 60 + c);
    }
    MT_OK(MPI_Isend(a, 3, rc, rank, 27, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Recv(b + 1, 3, rc, rank, 27, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int c = 0; c < 3; c++) {
        check_col(b, c + 1, ROWS, 60 + c, "lb: another matrix");
    }
    /* columns 0-1 onto 2-3 of the same matrix: spans overlap, bytes do not */
    MT_OK(MPI_Isend(a, 2, rc, rank, 27, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Recv(a + 2, 2, rc, rank, 27, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_OK(MPI_Get_elements(&st, MPI_DOUBLE, &n));
    MT_EQ(n, 2 * ROWS);
    check_col(a, 2, ROWS, 60, "lb: same matrix col 2");
    check_col(a, 3, ROWS, 61, "lb: same matrix col 3");
    check_col(a, 0, ROWS, 60, "lb: same matrix col 0");
    MT_OK(MPI_Type_free(&rc));
    MT_OK(MPI_Type_free(&col));
    free(a);
    free(b);
}

/* three columns right to left: a resized column of extent minus one double */
static void case_negext(void)
{
    MPI_Datatype col = column(), rc;
    double *a = matrix(), *b = matrix();
    MPI_Aint lb, ext;
    MPI_Request r;
    int rcode;

    rcode = MPI_Type_create_resized(col, 0, -(MPI_Aint)sizeof(double), &rc);
    if (rcode != MPI_SUCCESS) {   /* a negative extent refused: nothing to check */
        MT_OK(MPI_Type_free(&col));
        free(a);
        free(b);
        return;
    }
    MT_OK(MPI_Type_commit(&rc));
    MT_OK(MPI_Type_get_extent(rc, &lb, &ext));
    MT_EQ(ext, -(MPI_Aint)sizeof(double));
    for (int c = 0; c < 3; c++) {
        fill_col(a, c, 90 + c);
    }
    /* columns 2, 1, 0 of a into 4, 3, 2 of b (the move) */
    MT_OK(MPI_Isend(a + 2, 3, rc, rank, 29, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Recv(b + 4, 3, rc, rank, 29, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int c = 0; c < 3; c++) {
        check_col(b, c + 2, ROWS, 90 + c, "negext: another matrix");
    }
    /* columns 1, 0 of a into 4, 3 of a: spans overlap, bytes do not */
    MT_OK(MPI_Isend(a + 1, 2, rc, rank, 29, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Recv(a + 4, 2, rc, rank, 29, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_col(a, 4, ROWS, 91, "negext: same matrix col 4");
    check_col(a, 3, ROWS, 90, "negext: same matrix col 3");
    MT_OK(MPI_Type_free(&rc));
    MT_OK(MPI_Type_free(&col));
    free(a);
    free(b);
}

/* {double, int} pairs (12 bytes of 16) into a twin handle, a dup of the
 * column (freed before the receive), a receive of count 0 */
static void case_pairs(void)
{
    typedef struct { double d; int i; } pair_t;
    size_t n = ROWS;
    pair_t *p = malloc(n * sizeof(pair_t)), *q = malloc(n * sizeof(pair_t));
    int bl[2] = { 1, 1 }, cls, cnt = -1;
    MPI_Aint disp[2] = { offsetof(pair_t, d), offsetof(pair_t, i) };
    MPI_Datatype types[2] = { MPI_DOUBLE, MPI_INT }, st0, mine, twin, col = column(), dup;
    double *a = matrix(), *b = matrix(), d0 = POISON;
    MPI_Request r;
    MPI_Status st;

    MT_CHECK(p != NULL && q != NULL);
    MT_OK(MPI_Type_create_struct(2, bl, disp, types, &st0));
    MT_OK(MPI_Type_create_resized(st0, 0, sizeof(pair_t), &mine));
    MT_OK(MPI_Type_commit(&mine));
    MT_OK(MPI_Type_create_resized(st0, 0, sizeof(pair_t), &twin));
    MT_OK(MPI_Type_commit(&twin));
    for (size_t i = 0; i < n; i++) {
        memset(&p[i], 0x5a, sizeof(p[i]));
        memset(&q[i], 0xa5, sizeof(q[i]));
        p[i].d = value(100, i);
        p[i].i = (int)i;
    }
    MT_OK(MPI_Isend(p, (int)n, mine, rank, 30, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Recv(q, (int)n, twin, rank, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < n; i++) {
        if (q[i].d != value(100, i) || q[i].i != (int)i) {
            MT_FAIL("pairs: pair %zu holds {%.17g, %d}, want {%.17g, %d}", i, q[i].d,
                    q[i].i, value(100, i), (int)i);
        }
    }
    MT_OK(MPI_Type_dup(col, &dup));
    fill_col(a, 0, 101);
    MT_OK(MPI_Isend(a, 1, dup, rank, 31, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Type_free(&dup));
    MT_OK(MPI_Recv(b + 1, 1, col, rank, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_col(b, 1, ROWS, 101, "dup");
    MT_OK(MPI_Isend(a, 1, col, rank, 32, MPI_COMM_WORLD, &r));
    MPI_Error_class(MPI_Recv(&d0, 0, MPI_DOUBLE, rank, 32, MPI_COMM_WORLD, &st), &cls);
    MT_EQ(cls, MPI_ERR_TRUNCATE);
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
    MT_EQ(cnt, 0);
    MT_CHECK(d0 == POISON);
    MT_OK(MPI_Type_free(&col));
    MT_OK(MPI_Type_free(&st0));
    MT_OK(MPI_Type_free(&mine));
    MT_OK(MPI_Type_free(&twin));
    free(p);
    free(q);
    free(a);
    free(b);
}

/* a column by absolute addresses, received shifted onto another matrix */
static void case_bottom(void)
{
    double *a = matrix(), *b = matrix();
    int *bl = malloc(ROWS * sizeof(int));
    MPI_Aint *disp = malloc(ROWS * sizeof(MPI_Aint));
    MPI_Datatype abs_col;
    MPI_Request r;

    MT_CHECK(bl != NULL && disp != NULL);
    for (size_t i = 0; i < ROWS; i++) {
        bl[i] = 1;
        MT_OK(MPI_Get_address(a + i * COLS + 1, &disp[i]));
    }
    MT_OK(MPI_Type_create_hindexed(ROWS, bl, disp, MPI_DOUBLE, &abs_col));
    MT_OK(MPI_Type_commit(&abs_col));
    fill_col(a, 1, 70);
    MT_OK(MPI_Isend(MPI_BOTTOM, 1, abs_col, rank, 28, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Recv((char *)MPI_BOTTOM + ((uintptr_t)b - (uintptr_t)a), 1, abs_col, rank, 28,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_col(b, 1, ROWS, 70, "bottom");
    MT_OK(MPI_Type_free(&abs_col));
    free(bl);
    free(disp);
    free(a);
    free(b);
}

/* one thread's self sends on its own tag */
static void *thread_body(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Datatype col = column();
    double *a = matrix(), *b = matrix();
    MPI_Request r[2];

    for (int k = 0; k < 20; k++) {
        fill_col(a, t, 80 + 10 * t + k);
        MT_OK(MPI_Irecv(b + 4 - t, 1, col, rank, 40 + t, MPI_COMM_WORLD, &r[1]));
        MT_OK(MPI_Isend(a + t, 1, col, rank, 40 + t, MPI_COMM_WORLD, &r[0]));
        MT_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        check_col(b, 4 - t, ROWS, 80 + 10 * t + k, "threads");
    }
    MT_OK(MPI_Type_free(&col));
    free(a);
    free(b);
    return NULL;
}

static void case_threads(void)
{
    pthread_t th[2];

    for (int t = 0; t < 2; t++) {
        MT_CHECK(pthread_create(&th[t], NULL, thread_body, (void *)(intptr_t)t) == 0);
    }
    for (int t = 0; t < 2; t++) {
        MT_CHECK(pthread_join(th[t], NULL) == 0);
    }
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Datatype col;
    MPI_Request r;
    double *left;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    case_cancel();
    case_freed();
    case_persist();
    case_mprobe();
    case_replace();
    case_counts();
    case_lb();
    case_bottom();
    case_negext();
    case_pairs();
    if (provided == MPI_THREAD_MULTIPLE) {
        case_threads();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* left unmatched for MPI_Finalize (its type freed, its buffer kept) */
    col = column();
    left = matrix();
    MT_OK(MPI_Isend(left, 1, col, rank, 99, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Request_free(&r));
    MT_OK(MPI_Type_free(&col));
    MT_PASS("mpi_dt_rev19");
    MPI_Finalize();
    free(left);
    return 0;
}
