/*
 * mpi_dt_fill: typed rendezvous sends over tcp packed as tcp reads them
 * (session 20, loom_p2p_isend_dt_fill, docs/p2p.md "Derived datatypes"):
 * the corners of the send's lifetime, since its bytes are packed while
 * the receiver reads, long after the send call returned.
 *
 * Design. Rank 0 sends to rank 1 (the others idle at the barriers), a
 * column of doubles (8-byte pieces) at sizes around tcp's pushed bytes and
 * its read steps, every received cell compared with a model:
 *   freed     MPI_Type_free right after MPI_Isend, before the receive is
 *             even posted: the send keeps its type until it is packed;
 *   many      eight typed sends of different sizes at once to one peer,
 *             received in reverse order of posting (their streams take
 *             turns on one connection);
 *   contig    a column received into contiguous doubles (one read of the
 *             rest, many chunks);
 *   trunc     a column received into fewer doubles: MPI_ERR_TRUNCATE, the
 *             prefix delivered, nothing written past it;
 *   persist   MPI_Send_init of a column started three times, new values
 *             each time, received with MPI_ANY_SOURCE;
 *   cancel    an unmatched typed Isend cancelled (its type freed then),
 *             then a send on the same tag delivered;
 *   ssend     MPI_Issend completes only after the receive matched.
 * argv[1] == "small": the largest size is left out (sanitizer builds).
 */
#include "mpi_test_util.h"

#include <stdlib.h>
#include <string.h>

#define COLS 4

static int rank, size, small;

static double value(int round, size_t i)
{
    return (double)round * 1e7 + (double)i + 0.5;
}

/* a matrix of @p rows x COLS doubles whose column 1 (the one sent) holds round @p round */
static double *matrix(size_t rows, int round)
{
    double *m = malloc(rows * COLS * sizeof(double));

    MT_CHECK(m != NULL);
    for (size_t i = 0; i < rows * COLS; ++i) {
        m[i] = -1.0;
    }
    for (size_t i = 0; i < rows; ++i) {
        m[i * COLS + 1] = value(round, i);
    }
    return m;
}

static MPI_Datatype column(size_t rows)
{
    MPI_Datatype t;

    MT_OK(MPI_Type_vector((int)rows, 1, COLS, MPI_DOUBLE, &t));
    MT_OK(MPI_Type_commit(&t));
    return t;
}

/* @p got holds @p n doubles of round @p round (then -1.0 up to @p cap) */
static void check_doubles(const double *got, size_t n, size_t cap, int round, const char *what)
{
    for (size_t i = 0; i < cap; ++i) {
        double want = i < n ? value(round, i) : -1.0;

        if (got[i] != want) {
            MT_FAIL("%s: double %zu of %zu is %.17g, want %.17g", what, i, n, got[i], want);
        }
    }
}

static double *doubles(size_t n)
{
    double *d = malloc(n * sizeof(double));

    MT_CHECK(d != NULL);
    for (size_t i = 0; i < n; ++i) {
        d[i] = -1.0;
    }
    return d;
}

static void case_freed(size_t rows)
{
    double *m = matrix(rows, 1), *r = doubles(rows);
    MPI_Datatype t = column(rows);
    MPI_Request q;

    if (rank == 0) {
        MT_OK(MPI_Isend(m + 1, 1, t, 1, 1, MPI_COMM_WORLD, &q));
        MT_OK(MPI_Type_free(&t));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        MT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MT_OK(MPI_Type_free(&t));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1) {
            MT_OK(MPI_Recv(r, (int)rows, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            check_doubles(r, rows, rows, 1, "freed");
        }
    }
    free(m);
    free(r);
}

static void case_many(size_t rows)
{
    enum { N = 8 };
    double *m[N], *r[N];
    MPI_Datatype t[N];
    MPI_Request q[N];

    for (int k = 0; k < N; ++k) {
        size_t n = rows / (size_t)(k + 1) + (size_t)k;

        m[k] = matrix(n, 10 + k);
        r[k] = matrix(n, 0);
        t[k] = column(n);
    }
    for (int k = N - 1; k >= 0 && rank == 1; --k) {
        MT_OK(MPI_Irecv(r[k] + 1, 1, t[k], 0, 20 + k, MPI_COMM_WORLD, &q[k]));
    }
    for (int k = 0; k < N && rank == 0; ++k) {
        MT_OK(MPI_Isend(m[k] + 1, 1, t[k], 1, 20 + k, MPI_COMM_WORLD, &q[k]));
    }
    if (rank <= 1) {
        MT_OK(MPI_Waitall(N, q, MPI_STATUSES_IGNORE));
    }
    for (int k = 0; k < N; ++k) {
        size_t n = rows / (size_t)(k + 1) + (size_t)k;

        if (rank == 1 && memcmp(r[k], m[k], n * COLS * sizeof(double)) != 0) {
            MT_FAIL("many: message %d (%zu rows) differs", k, n);
        }
        MT_OK(MPI_Type_free(&t[k]));
        free(m[k]);
        free(r[k]);
    }
}

static void case_contig_trunc(size_t rows)
{
    double *m = matrix(rows, 2), *r = doubles(rows + 8);
    MPI_Datatype t = column(rows);
    MPI_Status st;
    int n;

    if (rank == 0) {
        MT_OK(MPI_Send(m + 1, 1, t, 1, 2, MPI_COMM_WORLD));
        MT_OK(MPI_Send(m + 1, 1, t, 1, 3, MPI_COMM_WORLD));
    } else if (rank == 1) {
        MT_OK(MPI_Recv(r, (int)rows + 8, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &st));
        MT_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
        MT_EQ(n, (int)rows);
        check_doubles(r, rows, rows + 8, 2, "contig");
        for (size_t i = 0; i < rows + 8; ++i) {
            r[i] = -1.0;
        }
        MT_ERR(MPI_Recv(r, (int)rows - 3, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &st),
               MPI_ERR_TRUNCATE);
        check_doubles(r, rows - 3, rows + 8, 2, "trunc");
    }
    MT_OK(MPI_Type_free(&t));
    free(m);
    free(r);
}

static void case_persist(size_t rows)
{
    double *m = matrix(rows, 0), *r = doubles(rows);
    MPI_Datatype t = column(rows);
    MPI_Request q;

    if (rank == 0) {
        MT_OK(MPI_Send_init(m + 1, 1, t, 1, 4, MPI_COMM_WORLD, &q));
    }
    for (int round = 3; round < 6; ++round) {
        for (size_t i = 0; i < rows; ++i) {
            m[i * COLS + 1] = value(round, i);
        }
        if (rank == 0) {
            MT_OK(MPI_Start(&q));
            MT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        } else if (rank == 1) {
            MT_OK(MPI_Recv(r, (int)rows, MPI_DOUBLE, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
            check_doubles(r, rows, rows, round, "persist");
        }
    }
    if (rank == 0) {
        MT_OK(MPI_Request_free(&q));
    }
    MT_OK(MPI_Type_free(&t));
    free(m);
    free(r);
}

static void case_cancel_ssend(size_t rows)
{
    double *m = matrix(rows, 7), *r = doubles(rows);
    MPI_Datatype t = column(rows);
    MPI_Request q;
    MPI_Status st;
    int cancelled = 0, done = 1;

    if (rank == 0) {
        MT_OK(MPI_Isend(m + 1, 1, t, 1, 5, MPI_COMM_WORLD, &q));
        MT_OK(MPI_Cancel(&q));
        MT_OK(MPI_Wait(&q, &st));
        MT_OK(MPI_Test_cancelled(&st, &cancelled));
        MT_OK(MPI_Type_free(&t));
        t = column(rows);
        MT_OK(MPI_Issend(m + 1, 1, t, 1, 6, MPI_COMM_WORLD, &q));
        MT_OK(MPI_Test(&q, &done, MPI_STATUS_IGNORE));
        MT_EQ(done, 0);   /* rank 1 posts only after the barrier */
    }
    MT_OK(MPI_Bcast(&cancelled, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else if (rank == 1) {
        MT_OK(MPI_Recv(r, (int)rows, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check_doubles(r, rows, rows, 7, "ssend");
        if (!cancelled) {   /* the cancel lost the race: the message is ours */
            MT_OK(MPI_Recv(r, (int)rows, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
            check_doubles(r, rows, rows, 7, "uncancelled");
        }
    }
    MT_OK(MPI_Type_free(&t));
    free(m);
    free(r);
}

int main(int argc, char **argv)
{
    size_t rows[] = { 12000, 140000, 700000 };
    int nrows = 3;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size < 2) {
        MT_FAIL("mpi_dt_fill needs 2 ranks or more");
    }
    small = argc > 1 && strcmp(argv[1], "small") == 0;
    if (small) {
        nrows = 2;
    }
    for (int k = 0; k < nrows; ++k) {
        case_freed(rows[k]);
        case_many(rows[k]);
        case_contig_trunc(rows[k]);
        case_persist(rows[k]);
        case_cancel_ssend(rows[k]);
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MT_PASS("mpi_dt_fill");
    MPI_Finalize();
    return 0;
}
