/*
 * mpi_dt_s13: the typed paths session 13 changed (docs/p2p.md "Derived
 * datatypes"), checked byte for byte: a subarray of one row (one block of
 * bytes past 0, now the plain byte path), the faces of a 3-D halo (a
 * vector of planes of rows, now copied a plane at a time), at eager,
 * rendezvous and pipelined sizes, and a 2.4 MB strided message (over tcp
 * a typed receive of more than one bounce, now double-buffered).
 *
 * Design. Every rank sends to the next one (ring; one rank: to itself) and
 * receives from the previous one with ANOTHER type of the same signature
 * (row -> contiguous doubles or a vector of stride 2; 3-D face -> a vector
 * of rows with a gap, or another face's subarray). The sender's array is
 * filled by MPI_Unpack of a stream of values (sender, case, position)
 * into its type, everything else -2; the receiver's buffer is poisoned,
 * and after the receive MPI_Pack with the receive type must give the
 * stream back (the first `want` values, poison after them), and unpacking
 * a poison stream over the type's pieces must leave the whole buffer
 * poison (nothing outside the type's map was written). Each case also
 * runs: received with MPI_ANY_SOURCE (status source and tag checked);
 * truncated (into a strided type 7 doubles short: MPI_ERR_TRUNCATE in the
 * status, the first values delivered, MPI_Get_elements of them); and
 * received as a type of
 * 3 doubles (MPI_Get_count MPI_UNDEFINED where the doubles are not a
 * multiple of 3, MPI_Get_elements the doubles).
 * argv[1] == "small": the largest sizes are left out (sanitizer builds).
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size, small;

static double value(int src, int c, size_t i)
{
    return (double)src * 1e9 + (double)c * 1e7 + (double)i;
}

#include "mpi_dt_layout.h"

/* mode: 0 plain, 1 any source, 2 truncated, 3 received as triples */
static void exchange(int c, const layout_t *s, const layout_t *r0, size_t n, int mode)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, count = -1, elems = -1;
    MPI_Datatype triple;
    layout_t r = *r0, tr = strided((int)n - 7);
    size_t want = mode == 2 ? n - 7 : n;
    char *a = fill_send(s, n, rank, c), *b;
    MPI_Request rq[2];
    MPI_Status st[2];

    MT_OK(MPI_Type_contiguous(3, MPI_DOUBLE, &triple));
    MT_OK(MPI_Type_commit(&triple));
    if (mode == 2) {
        r = tr;
    } else if (mode == 3) {
        r = (layout_t){ triple, (int)(n / 3 + 1), (n / 3 + 1) * 3 * sizeof(double) };
    }
    b = malloc(r.bytes);
    MT_CHECK(b != NULL);
    memset(b, POISON, r.bytes);
    MT_OK(MPI_Irecv(b, r.count, r.type, mode == 1 ? MPI_ANY_SOURCE : prev, c, MPI_COMM_WORLD,
                    &rq[0]));
    MT_OK(MPI_Isend(a, s->count, s->type, next, c, MPI_COMM_WORLD, &rq[1]));
    if (mode == 2) {
        MT_ERR(MPI_Waitall(2, rq, st), MPI_ERR_IN_STATUS);
        MT_EQ(st[0].MPI_ERROR, MPI_ERR_TRUNCATE);
        MT_EQ(st[1].MPI_ERROR, MPI_SUCCESS);
    } else {
        MT_OK(MPI_Waitall(2, rq, st));
    }
    MT_EQ(st[0].MPI_SOURCE, prev);
    MT_EQ(st[0].MPI_TAG, c);
    MT_OK(MPI_Get_count(&st[0], r.type, &count));
    MT_OK(MPI_Get_elements(&st[0], r.type, &elems));
    MT_EQ(elems, (int)want);
    if (mode == 3) {
        MT_EQ(count, n % 3 == 0 ? (int)(n / 3) : MPI_UNDEFINED);
    } else if (r.type == MPI_DOUBLE) {
        MT_EQ(count, (int)want);
    } else {
        MT_EQ(count, 1);
    }
    check_recv(&r, b, want, prev, c);
    MT_OK(MPI_Type_free(&triple));
    layout_free(&tr);
    free(a);
    free(b);
}

static void run_case(int c, const layout_t *s, const layout_t *r, size_t n)
{
    for (int mode = 0; mode < 4; mode++) {
        exchange(c * 4 + mode, s, r, n, mode);
    }
}

int main(int argc, char **argv)
{
    static const int rows[] = { 32, 3000, 70000 };
    static const int nw[][2] = { { 4, 2 }, { 16, 3 }, { 32, 4 }, { 48, 5 }, { 96, 5 } };
    int c = 1;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    small = argc > 1 && strcmp(argv[1], "small") == 0;

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) - (small ? 1 : 0); i++) {
        layout_t s = row_subarray(rows[i]), d = contig_doubles((size_t)rows[i]);
        layout_t v = strided(rows[i]);

        run_case(c++, &s, &d, (size_t)rows[i]);
        run_case(c++, &s, &v, (size_t)rows[i]);
        run_case(c++, &v, &s, (size_t)rows[i]);
        layout_free(&s);
        layout_free(&v);
    }
    if (!small) {
        /* 2.4 MB, strided on both sides: over tcp, several chunks of a double bounce */
        layout_t v = strided(300000);

        run_case(c++, &v, &v, 300000);
        layout_free(&v);
    }
    for (size_t i = 0; i < sizeof(nw) / sizeof(nw[0]) - (small ? 1 : 0); i++) {
        int n = nw[i][0], w = nw[i][1];
        size_t cnt = (size_t)n * (size_t)n * (size_t)w;
        layout_t f0 = face3d(0, n, w), f1 = face3d(1, n, w), f2 = face3d(2, n, w);
        layout_t g = gapped_rows(n * w, n), d = contig_doubles(cnt);

        run_case(c++, &f0, &g, cnt);
        run_case(c++, &f2, &d, cnt);
        run_case(c++, &f1, &f0, cnt);
        run_case(c++, &f2, &f1, cnt);
        layout_free(&f0);
        layout_free(&f1);
        layout_free(&f2);
        layout_free(&g);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("mpi_dt_s13: passed on %d ranks (%d cases)\n", size, (c - 1) * 4);
    }
    MT_OK(MPI_Finalize());
    return 0;
}
