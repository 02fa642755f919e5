/*
 * mpi_scan.c: MPI_Scan, MPI_Exscan, MPI_Reduce_scatter, MPI_Alltoallw and
 * their nonblocking forms, checked element by element against results
 * every rank computes itself from every rank's (generated) input.
 *
 * Run under loomrun at any size, with the algorithms forced by the driver
 * (LOOM_SCAN_ALGORITHM etc., test_mpi_scan.sh). Covers: int sums (exact),
 * a non-commutative user op (2x2 matrix product on MPI_Type_contiguous(4,
 * MPI_INT)), doubles whose sum depends on the bracketing, MPI_IN_PLACE,
 * zero counts, per-rank counts with zeros, per-peer types and byte
 * displacements, several nonblocking calls in flight, error classes. Under
 * LOOM_DETERMINISTIC=1 the doubles must equal the canonical fold bit for
 * bit (scan: the left fold; reduce_scatter: x0 + (x1 + (...))), and rank
 * 0 prints a hash of them that the driver compares across algorithms.
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

static int rank, size, det;
static uint64_t dhash = 1469598103934665603ull;

static void hash_bytes(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; ++i) {
        dhash = (dhash ^ c[i]) * 1099511628211ull;
    }
}

/* ---- inputs ---------------------------------------------------------------------------- */

static int gen_int(int r, int i) { return (r + 1) * 1000 + i * 7 - r * i; }

/* values whose sum changes with the bracketing */
static double gen_dbl(int r, int i)
{
    static const double v[] = { 1e16, 1.0, -1e16, 0.1, 3.3e-3, -7.77, 1e-9, 2.5e15 };
    return v[(r + i) % 8] * (1.0 + (double)i / 7.0) + (double)r / 3.0;
}

/* 2x2 matrices (row major) on contiguous(4, int): a non-commutative product */
static void mat_gen(int r, int i, unsigned m[4])
{
    m[0] = 1u + (unsigned)(r % 3);
    m[1] = (unsigned)(r + i + 1);
    m[2] = (unsigned)((r * 5 + i) % 4);
    m[3] = 1u + (unsigned)(i % 2);
}

/* out = a * b, wrapping (unsigned) */
static void mat_mul(const unsigned a[4], const unsigned b[4], unsigned out[4])
{
    unsigned t[4] = { a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                      a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3] };
    memcpy(out, t, sizeof(t));
}

/* MPI user function: inout = in * inout (in comes from the lower ranks) */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned *a = in, *b = inout;
    (void)dt;
    for (int k = 0; k < *len; ++k) {
        mat_mul(a + 4 * k, b + 4 * k, b + 4 * k);
    }
}

static MPI_Datatype mat_type;
static MPI_Op mat;

/* ---- scan / exscan --------------------------------------------------------------------- */

/* expected prefix of ranks [0, last] (left fold) for element i */
static long long exp_int(int last, int i)
{
    long long s = 0;
    for (int q = 0; q <= last; ++q) {
        s += gen_int(q, i);
    }
    return s;
}

static double exp_dbl(int last, int i)
{
    double s = gen_dbl(0, i);
    for (int q = 1; q <= last; ++q) {
        s = s + gen_dbl(q, i);
    }
    return s;
}

static void exp_mat(int last, int i, unsigned out[4])
{
    mat_gen(0, i, out);
    for (int q = 1; q <= last; ++q) {
        unsigned m[4];
        mat_gen(q, i, m);
        mat_mul(out, m, out);
    }
}

/* without LOOM_DETERMINISTIC the bracketing may differ: within rounding of
 * the magnitudes of ranks [0, last] (the inputs cancel on purpose) */
static void check_dbl(double got, double want, int last, const char *what, int i)
{
    double mag = 0, diff = got > want ? got - want : want - got;

    for (int q = 0; q <= last; ++q) {
        double v = gen_dbl(q, i);
        mag += v < 0 ? -v : v;
    }
    if (det ? memcmp(&got, &want, sizeof(got)) != 0 : !(diff <= 1e-14 * mag)) {
        MT_FAIL("%s[%d] = %.17g, expected %.17g%s", what, i, got, want,
                det ? " bit for bit (LOOM_DETERMINISTIC=1)" : "");
    }
    if (det) {
        hash_bytes(&got, sizeof(got));
    }
}

/* one scan or exscan of each kind with n elements; nb: nonblocking; ip: in place */
static void test_scan_one(int ex, int n, int nb, int ip)
{
    int *si = malloc((size_t)(n + 1) * sizeof(int)), *ri = malloc((size_t)(n + 1) * sizeof(int));
    double *sd = malloc((size_t)(n + 1) * sizeof(double)), *rd = malloc((size_t)(n + 1) * sizeof(double));
    unsigned *sm = malloc((size_t)(n + 1) * 16), *rm = malloc((size_t)(n + 1) * 16);
    int (*fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm) = ex ? MPI_Exscan : MPI_Scan;
    int (*ifn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *) =
        ex ? MPI_Iexscan : MPI_Iscan;
    const char *name = ex ? "exscan" : "scan";
    MPI_Request rq[3];
    int last = ex ? rank - 1 : rank;

    for (int i = 0; i <= n; ++i) {
        si[i] = gen_int(rank, i);
        sd[i] = gen_dbl(rank, i);
        mat_gen(rank, i, sm + 4 * i);
        ri[i] = -12345;
        rd[i] = -12345.0;
        for (int k = 0; k < 4; ++k) {
            rm[4 * i + k] = 0xdeadu;
        }
    }
    if (ip) {
        memcpy(ri, si, (size_t)n * sizeof(int));
        memcpy(rd, sd, (size_t)n * sizeof(double));
        memcpy(rm, sm, (size_t)n * 16);
    }
    const void *a = ip ? MPI_IN_PLACE : si, *b = ip ? MPI_IN_PLACE : sd, *c = ip ? MPI_IN_PLACE : sm;
    if (nb) {
        MT_OK(ifn(a, ri, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
        MT_OK(ifn(b, rd, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
        MT_OK(ifn(c, rm, n, mat_type, mat, MPI_COMM_WORLD, &rq[2]));
        MT_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    } else {
        MT_OK(fn(a, ri, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        MT_OK(fn(b, rd, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        MT_OK(fn(c, rm, n, mat_type, mat, MPI_COMM_WORLD));
    }
    for (int i = 0; i < n; ++i) {
        if (last < 0) {   /* exscan at rank 0: untouched (in place: still the input) */
            MT_EQ(ri[i], ip ? si[i] : -12345);
            continue;
        }
        if (ri[i] != (int)exp_int(last, i)) {
            MT_FAIL("%s%s%s n=%d int[%d] = %d, expected %d", name, nb ? " (nb)" : "",
                    ip ? " in place" : "", n, i, ri[i], (int)exp_int(last, i));
        }
        check_dbl(rd[i], exp_dbl(last, i), last, name, i);
        unsigned m[4];
        exp_mat(last, i, m);
        if (memcmp(m, rm + 4 * i, 16) != 0) {
            MT_FAIL("%s n=%d matrix[%d] = {%u %u %u %u}, expected {%u %u %u %u}", name, n, i,
                    rm[4 * i], rm[4 * i + 1], rm[4 * i + 2], rm[4 * i + 3], m[0], m[1], m[2], m[3]);
        }
    }
    MT_EQ(ri[n], -12345);   /* nothing written past the end */
    MT_CHECK(rm[4 * n] == 0xdeadu);
    free(si); free(ri); free(sd); free(rd); free(sm); free(rm);
}

static void test_scan(void)
{
    static const int ns[] = { 0, 1, 5, 300, 5000 };
    for (int ex = 0; ex < 2; ++ex) {
        for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); ++k) {
            for (int v = 0; v < 4; ++v) {
                test_scan_one(ex, ns[k], v & 1, v >> 1);
            }
        }
    }
}

/* ---- reduce_scatter --------------------------------------------------------------------- */

static int rs_count(int i, int salt) { return (i * 3 + salt) % 4 == 1 ? 0 : (i * 5 + salt) % 9; }

static void test_reduce_scatter_one(int salt, int nb, int ip)
{
    int counts[64], off[65], total = 0, mine;
    for (int i = 0; i < size; ++i) {
        counts[i] = rs_count(i, salt);
        off[i] = total;
        total += counts[i];
    }
    mine = counts[rank];
    int *si = malloc((size_t)(total + 1) * sizeof(int)), *ri = malloc((size_t)(total + 1) * sizeof(int));
    double *sd = malloc((size_t)(total + 1) * sizeof(double)), *rd = malloc((size_t)(total + 1) * sizeof(double));
    unsigned *sm = malloc((size_t)(total + 1) * 16), *rm = malloc((size_t)(total + 1) * 16);
    MPI_Request rq[3];

    for (int i = 0; i <= total; ++i) {
        si[i] = gen_int(rank, i);
        sd[i] = gen_dbl(rank, i);
        mat_gen(rank, i, sm + 4 * i);
        ri[i] = -777;
        rd[i] = -777.0;
        memset(rm + 4 * i, 0x5a, 16);
    }
    if (ip) {
        memcpy(ri, si, (size_t)total * sizeof(int));
        memcpy(rd, sd, (size_t)total * sizeof(double));
        memcpy(rm, sm, (size_t)total * 16);
    }
    const void *a = ip ? MPI_IN_PLACE : si, *b = ip ? MPI_IN_PLACE : sd, *c = ip ? MPI_IN_PLACE : sm;
    if (nb) {
        MT_OK(MPI_Ireduce_scatter(a, ri, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
        MT_OK(MPI_Ireduce_scatter(b, rd, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
        MT_OK(MPI_Ireduce_scatter(c, rm, counts, mat_type, mat, MPI_COMM_WORLD, &rq[2]));
        MT_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    } else {
        MT_OK(MPI_Reduce_scatter(a, ri, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        MT_OK(MPI_Reduce_scatter(b, rd, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        MT_OK(MPI_Reduce_scatter(c, rm, counts, mat_type, mat, MPI_COMM_WORLD));
    }
    for (int j = 0; j < mine; ++j) {
        int i = off[rank] + j;
        long long s = 0;
        double d = gen_dbl(size - 1, i);       /* x0 + (x1 + (... + x(p-1))) */
        unsigned m[4], q4[4];
        for (int q = 0; q < size; ++q) {
            s += gen_int(q, i);
        }
        for (int q = size - 2; q >= 0; --q) {
            d = gen_dbl(q, i) + d;
        }
        MT_EQ(ri[j], (int)s);
        check_dbl(rd[j], d, size - 1, "reduce_scatter", i);
        mat_gen(0, i, m);
        for (int q = 1; q < size; ++q) {
            mat_gen(q, i, q4);
            mat_mul(m, q4, m);
        }
        if (memcmp(m, rm + 4 * j, 16) != 0) {
            MT_FAIL("reduce_scatter salt %d matrix[%d] wrong (non-commutative order?)", salt, j);
        }
    }
    if (!ip) {
        MT_EQ(ri[mine], -777);
    }
    free(si); free(ri); free(sd); free(rd); free(sm); free(rm);
}

static void test_reduce_scatter(void)
{
    for (int salt = 0; salt < 3; ++salt) {
        for (int v = 0; v < 4; ++v) {
            test_reduce_scatter_one(salt, v & 1, v >> 1);
        }
    }
    /* every count zero */
    int zero[64] = { 0 }, x = 5, y = 6;
    MT_OK(MPI_Reduce_scatter(&x, &y, zero, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_EQ(y, 6);
}

/* ---- alltoallw -------------------------------------------------------------------------- */

/* block from rank i to rank j: c elements; the sender uses MPI_INT or a
 * contiguous pair, the receiver bytes or ints: same bytes, other types */
static int w_count(int i, int j) { return (i + 2 * j) % 4; }   /* ints, 0..3 */

static void test_alltoallw_one(int nb, int ip)
{
    int sc[64], sdp[64], rc[64], rdp[64], soff = 0, roff = 0;
    MPI_Datatype st[64], rt[64], pair;
    MPI_Request rq;

    MT_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MT_OK(MPI_Type_commit(&pair));
    for (int j = 0; j < size; ++j) {
        int c = w_count(rank, j);
        if (ip) {
            c = w_count(rank, j) + w_count(j, rank);   /* symmetric for in place */
        }
        st[j] = (c % 2 == 0 && (rank + j) % 2) ? pair : MPI_INT;
        sc[j] = st[j] == pair ? c / 2 : c;
        sdp[j] = soff;
        soff += c * 4 + 8;                             /* 8-byte gap */
    }
    for (int i = 0; i < size; ++i) {
        int c = ip ? w_count(i, rank) + w_count(rank, i) : w_count(i, rank);
        rt[i] = (i % 2) ? MPI_BYTE : MPI_INT;
        rc[i] = rt[i] == MPI_BYTE ? c * 4 : c;
        rdp[i] = roff + 4;
        roff += c * 4 + 12;
    }
    if (ip) {   /* in place: the receive side describes both */
        for (int j = 0; j < size; ++j) {
            rdp[j] = sdp[j];
            rt[j] = MPI_INT;
            rc[j] = w_count(j, rank) + w_count(rank, j);
        }
        roff = soff;
    }
    unsigned char *sb = malloc((size_t)soff + 1), *rb = malloc((size_t)roff + 1);
    memset(rb, 0xee, (size_t)roff + 1);
    for (int j = 0; j < size; ++j) {
        int c = ip ? rc[j] : w_count(rank, j);
        for (int k = 0; k < c; ++k) {
            int v = rank * 10000 + j * 100 + k;
            memcpy((ip ? rb : sb) + sdp[j] + 4 * k, &v, 4);
        }
    }
    if (nb) {
        MT_OK(MPI_Ialltoallw(ip ? MPI_IN_PLACE : sb, sc, sdp, st, rb, rc, rdp, rt,
                             MPI_COMM_WORLD, &rq));
        MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        MT_OK(MPI_Alltoallw(ip ? MPI_IN_PLACE : sb, sc, sdp, st, rb, rc, rdp, rt,
                            MPI_COMM_WORLD));
    }
    for (int i = 0; i < size; ++i) {
        int c = ip ? rc[i] : w_count(i, rank), end = rdp[i] + 4 * c;
        for (int k = 0; k < c; ++k) {
            int v;
            memcpy(&v, rb + rdp[i] + 4 * k, 4);
            if (v != i * 10000 + rank * 100 + k) {
                MT_FAIL("alltoallw%s%s: element %d from rank %d = %d, expected %d",
                        nb ? " (nb)" : "", ip ? " in place" : "", k, i, v,
                        i * 10000 + rank * 100 + k);
            }
        }
        if (!ip) {   /* the gap after each block is untouched */
            MT_EQ(rb[end], 0xee);
        }
    }
    free(sb);
    free(rb);
    MT_OK(MPI_Type_free(&pair));
}

static void test_alltoallw(void)
{
    for (int v = 0; v < 4; ++v) {
        test_alltoallw_one(v & 1, v >> 1);
    }
}

/* ---- several nonblocking calls in flight ------------------------------------------------ */

static void test_inflight(void)
{
    enum { N = 33 };
    int a[N], b[N], c[N], d[N], counts[64], cw[64], dw[64], w[64];
    int x = rank + 1, wr[64];
    MPI_Datatype ti[64];
    MPI_Request rq[5];

    for (int i = 0; i < N; ++i) {
        a[i] = gen_int(rank, i);
    }
    for (int i = 0; i < size; ++i) {
        counts[i] = 1;
        cw[i] = 1;
        dw[i] = 4 * i;
        ti[i] = MPI_INT;
        w[i] = rank * 100 + i;
    }
    int *rsin = malloc((size_t)size * sizeof(int)), rsout = -1;
    for (int i = 0; i < size; ++i) {
        rsin[i] = rank + i;
    }
    MT_OK(MPI_Iscan(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
    MT_OK(MPI_Iexscan(a, c, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
    MT_OK(MPI_Ireduce_scatter(rsin, &rsout, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]));
    MT_OK(MPI_Ialltoallw(w, cw, dw, ti, wr, cw, dw, ti, MPI_COMM_WORLD, &rq[3]));
    MT_OK(MPI_Iscan(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD, &rq[4]));
    MT_OK(MPI_Waitall(5, rq, MPI_STATUSES_IGNORE));
    int fact = 1, rs = 0;
    for (int q = 0; q <= rank; ++q) {
        fact *= q + 1;
    }
    for (int q = 0; q < size; ++q) {
        rs += q + rank;
    }
    MT_EQ(x, fact);
    MT_EQ(rsout, rs);
    for (int i = 0; i < N; ++i) {
        MT_EQ(b[i], (int)exp_int(rank, i));
        if (rank > 0) {
            MT_EQ(c[i], (int)exp_int(rank - 1, i));
        }
    }
    for (int i = 0; i < size; ++i) {
        MT_EQ(wr[i], i * 100 + rank);
    }
    (void)d;
    free(rsin);
    /* exscan: rank 0's recvbuf is never written, so it may be NULL there */
    int e = -1;
    MT_OK(MPI_Exscan(&x, rank == 0 ? NULL : &e, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (rank > 0) {
        MT_EQ(e, fact / (rank + 1));   /* x grows with the rank: the max below is rank-1's */
    }
}

/* ---- errors ------------------------------------------------------------------------------ */

static void test_errors(void)
{
    int x = 1, y = 0, counts[64], neg[64], z[64];
    MPI_Datatype t[64], bad[64];
    MPI_Request rq;

    for (int i = 0; i < size; ++i) {
        counts[i] = 1;
        neg[i] = i == size - 1 ? -1 : 1;
        z[i] = 0;
        t[i] = MPI_INT;
        bad[i] = i == 0 ? MPI_DATATYPE_NULL : MPI_INT;
    }
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_ERR(MPI_Scan(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MT_ERR(MPI_Scan(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MT_ERR(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    MT_ERR(MPI_Scan(&x, &y, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    MT_ERR(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    MT_ERR(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
    MT_ERR(MPI_Iexscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
    MT_ERR(MPI_Reduce_scatter(&x, &y, neg, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MT_ERR(MPI_Reduce_scatter(&x, &y, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG);
    MT_ERR(MPI_Ireduce_scatter(&x, &y, counts, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &rq),
           MPI_ERR_OP);
    MT_ERR(MPI_Alltoallw(&x, counts, z, bad, &y, counts, z, t, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MT_ERR(MPI_Alltoallw(&x, neg, z, t, &y, counts, z, t, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MT_ERR(MPI_Alltoallw(&x, counts, z, t, &y, counts, NULL, t, MPI_COMM_WORLD), MPI_ERR_ARG);
    MT_ERR(MPI_Ialltoallw(&x, counts, z, t, &y, counts, z, t, MPI_COMM_WORLD, NULL),
           MPI_ERR_REQUEST);
    /* the own block: 4 bytes sent, 2 received */
    MPI_Datatype bt[64];
    int two[64];
    for (int i = 0; i < size; ++i) {
        bt[i] = MPI_BYTE;
        two[i] = 2;
    }
    MT_ERR(MPI_Alltoallw(&x, counts, z, t, &y, two, z, bt, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    MT_ERR(MPI_Scan(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* MPI_Reduce_local with the non-commutative op: in * inout */
    unsigned m1[4] = { 1, 2, 3, 4 }, m2[4] = { 5, 6, 7, 8 }, want[4];
    mat_mul(m1, m2, want);
    MT_OK(MPI_Reduce_local(m1, m2, 1, mat_type, mat));
    MT_CHECK(memcmp(m2, want, sizeof(want)) == 0);
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));   /* nothing left over */
}

/* "mismatch": rank 0 calls MPI_Scan, the others MPI_Exscan; the job must
 * end with an error naming both calls (the driver checks), not hang */
static void run_mismatch(void)
{
    int x = rank + 1, y = 0;

    if (rank == 0) {
        MT_OK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    } else {
        MT_OK(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* "mismatch_w": rank 0 sends rank 1 two ints where rank 1 expects one:
 * rank 1's alltoallw fails with MPI_ERR_TRUNCATE, the others complete,
 * and the communicator still works (the failed call's leftovers settled) */
static void run_mismatch_w(void)
{
    int sc[64], sd[64], rc[64], rd[64], sb[128], rb[64];
    MPI_Datatype t[64];

    for (int i = 0; i < size; ++i) {
        sc[i] = rank == 0 && i == 1 ? 2 : 1;
        sd[i] = 8 * i;
        rc[i] = 1;
        rd[i] = 4 * i;
        t[i] = MPI_INT;
        sb[2 * i] = sb[2 * i + 1] = rank;
    }
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (rank == 1) {
        MT_ERR(MPI_Alltoallw(sb, sc, sd, t, rb, rc, rd, t, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    } else {
        MT_OK(MPI_Alltoallw(sb, sc, sd, t, rb, rc, rd, t, MPI_COMM_WORLD));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    int x = 1, y = 0;
    MT_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_EQ(y, size);
    MT_PASS("mpi_scan mismatch_w");
}

int main(int argc, char **argv)
{
    const char *e = getenv("LOOM_DETERMINISTIC");

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (argc > 1 && strcmp(argv[1], "mismatch") == 0) {
        run_mismatch();
        MT_OK(MPI_Finalize());
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "mismatch_w") == 0) {
        run_mismatch_w();
        MT_OK(MPI_Finalize());
        return 0;
    }
    MT_CHECK(size <= 64);
    det = e != NULL && strcmp(e, "1") == 0;
    MT_OK(MPI_Type_contiguous(4, MPI_INT, &mat_type));
    MT_OK(MPI_Type_commit(&mat_type));
    MT_OK(MPI_Op_create(mat_op, 0, &mat));

    test_scan();
    test_reduce_scatter();
    test_alltoallw();
    test_inflight();
    test_errors();

    uint64_t h = dhash, all = 0;
    MT_OK(MPI_Reduce(&h, &all, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD));
    if (det && rank == 0) {
        printf("dhash %016llx\n", (unsigned long long)all);
    }
    MT_OK(MPI_Op_free(&mat));
    MT_OK(MPI_Type_free(&mat_type));
    MT_PASS("mpi_scan");
    MT_OK(MPI_Finalize());
    return 0;
}
