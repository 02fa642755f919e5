/*
 * prog_coll.c: every collective against a serial reference, run by
 * test_coll.sh under loomrun with each algorithm forced in turn.
 *
 *   prog_coll [full|quick|light]  correctness (light: fewer sizes, for np >= 7); (values chosen so that every
 *                            values chosen so that every reduction order gives
 *                            the exact same answer
 *   prog_coll det            random doubles; prints a hash of the allreduce
 *                            and reduce results and checks them bitwise
 *                            against the serial right fold x0 op (x1 op ...)
 *   prog_coll errors         bad input must return a clear error
 *   prog_coll perf [ITERS [BATCHES]]  latency (us) of allreduce 8 B / 1 MiB,
 *                            barrier, bcast 8 B: the best of BATCHES (5)
 *                            batches of ITERS calls (the 1 MiB: ITERS/100+5)
 *   prog_coll sweep [allreduce|bcast]  best-of-20 latency (us) per size, for
 *                            choosing the selection table's limits
 *   prog_coll mismatch CASE  ranks disagree (kind, root, count): the calls
 *                            must fail with the expected status, not hang
 *                            (test_coll.sh checks the message text)
 */
#include <loom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size, failures;

#define PROG_CHECK_PRINT_MAX 10   /* failures printed; all are counted */
#include "prog_check.h"

typedef struct { float v; int i; }       p_fi;
typedef struct { double v; int i; }      p_di;
typedef struct { long v; int i; }        p_li;
typedef struct { int v; int i; }         p_ii;
typedef struct { short v; int i; }       p_si;
typedef struct { long double v; int i; } p_ldi;

/* small integer value of element i at rank r, safe for every op and order */
static long long gen(loom_op_t op, int r, size_t i)
{
    switch (op) {
    case LOOM_PROD: return ((size_t)r + i) % 3 == 0 ? 2 : 1;
    case LOOM_LAND: case LOOM_LOR: case LOOM_LXOR: return ((size_t)r * 3 + i) % 4 == 0;
    default: return (long long)(((size_t)r * 7 + i * 3) % 23) - (op == LOOM_SUM ? 0 : 11);
    }
}

static void set_elem(void *buf, loom_datatype_t dt, size_t i, long long x, int r)
{
    char *e = (char *)buf + i * loom_datatype_size(dt);
    switch (dt) {
    case LOOM_BYTE: case LOOM_UINT8: *(uint8_t *)e = (uint8_t)x; break;
    case LOOM_INT8:   *(int8_t *)e = (int8_t)x; break;
    case LOOM_INT16:  *(int16_t *)e = (int16_t)x; break;
    case LOOM_INT32:  *(int32_t *)e = (int32_t)x; break;
    case LOOM_INT64:  *(int64_t *)e = x; break;
    case LOOM_UINT16: *(uint16_t *)e = (uint16_t)x; break;
    case LOOM_UINT32: *(uint32_t *)e = (uint32_t)x; break;
    case LOOM_UINT64: *(uint64_t *)e = (uint64_t)x; break;
    case LOOM_FLOAT:  *(float *)e = (float)x; break;
    case LOOM_DOUBLE: *(double *)e = (double)x; break;
    case LOOM_LONG_DOUBLE: memset(e, 0, sizeof(long double)); *(long double *)e = x; break;
#define SETP(T) memset(e, 0, sizeof(T)); ((T *)e)->v = x; ((T *)e)->i = r; break;
    case LOOM_FLOAT_INT:  SETP(p_fi)
    case LOOM_DOUBLE_INT: SETP(p_di)
    case LOOM_LONG_INT:   SETP(p_li)
    case LOOM_2INT:       SETP(p_ii)
    case LOOM_SHORT_INT:  SETP(p_si)
    case LOOM_LONG_DOUBLE_INT: SETP(p_ldi)
    default: break;
    }
}

static void fill(void *buf, loom_datatype_t dt, loom_op_t op, int r, size_t n, size_t salt)
{
    for (size_t i = 0; i < n; ++i) {
        set_elem(buf, dt, i, gen(op, r, i + salt), r);
    }
}

/* compare ignoring padding (long double has 6 bytes of it on x86-64) */
static int same(const void *a, const void *b, loom_datatype_t dt, size_t n)
{
    size_t es = loom_datatype_size(dt);
    for (size_t i = 0; i < n; ++i) {
        const char *x = (const char *)a + i * es, *y = (const char *)b + i * es;
        int ok;
        switch (dt) {
        case LOOM_LONG_DOUBLE: ok = *(const long double *)x == *(const long double *)y; break;
#define SAMEP(T) ok = ((const T *)x)->v == ((const T *)y)->v && ((const T *)x)->i == ((const T *)y)->i; break;
        case LOOM_FLOAT_INT:  SAMEP(p_fi)
        case LOOM_DOUBLE_INT: SAMEP(p_di)
        case LOOM_LONG_INT:   SAMEP(p_li)
        case LOOM_2INT:       SAMEP(p_ii)
        case LOOM_SHORT_INT:  SAMEP(p_si)
        case LOOM_LONG_DOUBLE_INT: SAMEP(p_ldi)
        default: ok = memcmp(x, y, es) == 0;
        }
        if (!ok) {
            return 0;
        }
    }
    return 1;
}

/* serial reference: x0 op (x1 op (... op x(p-1))) of block blk (salt) */
static void reference(void *out, void *scratch, loom_datatype_t dt, loom_op_t op, size_t n,
                      size_t salt)
{
    fill(out, dt, op, size - 1, n, salt);
    for (int q = size - 2; q >= 0; --q) {
        fill(scratch, dt, op, q, n, salt);
        loom_op_reduce(op, scratch, out, n, dt);
    }
}

/* which (op, type) pairs are defined (MPI's rules; test_ops.c checks the kernels) */
static int valid_pair(loom_op_t op, loom_datatype_t dt)
{
    int is_int = dt >= LOOM_INT8 && dt <= LOOM_UINT64;
    int is_float = dt == LOOM_FLOAT || dt == LOOM_DOUBLE || dt == LOOM_LONG_DOUBLE;
    switch (op) {
    case LOOM_SUM: case LOOM_PROD: case LOOM_MIN: case LOOM_MAX: return is_int || is_float;
    case LOOM_LAND: case LOOM_LOR: case LOOM_LXOR: return is_int;
    case LOOM_BAND: case LOOM_BOR: case LOOM_BXOR: return is_int || dt == LOOM_BYTE;
    case LOOM_MINLOC: case LOOM_MAXLOC: return dt >= LOOM_FLOAT_INT && dt <= LOOM_LONG_DOUBLE_INT;
    default: return 0;
    }
}

#define BUF(n) calloc((n) + 1, 32)

static void test_reductions(size_t n, loom_datatype_t dt, loom_op_t op)
{
    size_t es = loom_datatype_size(dt);
    char *in = BUF(n * size), *out = BUF(n * size), *ref = BUF(n * size), *scr = BUF(n * size);
    int root = size > 1 ? (int)((n + (size_t)dt) % (size_t)size) : 0;

    fill(in, dt, op, rank, n, 0);
    reference(ref, scr, dt, op, n, 0);
    OKCALL(loom_allreduce(in, out, n, dt, op, LOOM_COMM_WORLD));
    CHECK(same(out, ref, dt, n), "allreduce %s %s n=%zu", loom_op_name(op), loom_datatype_name(dt), n);
    fill(out, dt, op, rank, n, 0);                                   /* in place */
    OKCALL(loom_allreduce(LOOM_IN_PLACE, out, n, dt, op, LOOM_COMM_WORLD));
    CHECK(same(out, ref, dt, n), "allreduce in place %s %s n=%zu", loom_op_name(op), loom_datatype_name(dt), n);
    memset(out, 0, n * es);
    OKCALL(loom_reduce(in, out, n, dt, op, root, LOOM_COMM_WORLD));
    CHECK(rank != root || same(out, ref, dt, n), "reduce root %d %s %s n=%zu", root, loom_op_name(op), loom_datatype_name(dt), n);
    if (rank == root) {
        fill(out, dt, op, rank, n, 0);
        OKCALL(loom_reduce(LOOM_IN_PLACE, out, n, dt, op, root, LOOM_COMM_WORLD));
        CHECK(same(out, ref, dt, n), "reduce in place root %d", root);
    } else {
        OKCALL(loom_reduce(in, NULL, n, dt, op, root, LOOM_COMM_WORLD));
    }
    /* reduce_scatter_block: block b of rank q's input is gen(q, i + b*n) */
    if (n * (size_t)size < 200000) {
        fill(in, dt, op, rank, n * (size_t)size, 0);
        reference(ref, scr, dt, op, n * (size_t)size, 0);
        OKCALL(loom_reduce_scatter_block(in, out, n, dt, op, LOOM_COMM_WORLD));
        CHECK(same(out, ref + (size_t)rank * n * es, dt, n), "reduce_scatter_block %s %s n=%zu", loom_op_name(op), loom_datatype_name(dt), n);
        OKCALL(loom_reduce_scatter_block(LOOM_IN_PLACE, in, n, dt, op, LOOM_COMM_WORLD));
        CHECK(same(in, ref + (size_t)rank * n * es, dt, n), "reduce_scatter_block in place");
    }
    free(in); free(out); free(ref); free(scr);
}

static void test_data_movement(size_t n, loom_datatype_t dt, int root)
{
    size_t es = loom_datatype_size(dt), P = (size_t)size;
    char *a = BUF(n * P), *b = BUF(n * P), *ref = BUF(n * P);
    size_t *cnt = calloc(P, sizeof(size_t)), *dsp = calloc(P, sizeof(size_t)), off = 0;

    /* bcast */
    fill(a, dt, LOOM_SUM, rank == root ? 1000 : rank, n, 0);
    fill(ref, dt, LOOM_SUM, 1000, n, 0);
    OKCALL(loom_bcast(a, n, dt, root, LOOM_COMM_WORLD));
    CHECK(same(a, ref, dt, n), "bcast root %d n=%zu", root, n);
    /* allgather, and in place */
    for (int q = 0; q < size; ++q) fill(ref + (size_t)q * n * es, dt, LOOM_SUM, q, n, 5);
    fill(a, dt, LOOM_SUM, rank, n, 5);
    OKCALL(loom_allgather(a, b, n, dt, LOOM_COMM_WORLD));
    CHECK(same(b, ref, dt, n * P), "allgather n=%zu", n);
    memset(b, 0, n * P * es);
    fill(b + (size_t)rank * n * es, dt, LOOM_SUM, rank, n, 5);
    OKCALL(loom_allgather(LOOM_IN_PLACE, b, n, dt, LOOM_COMM_WORLD));
    CHECK(same(b, ref, dt, n * P), "allgather in place n=%zu", n);
    /* gather, and in place at the root */
    memset(b, 0, n * P * es);
    OKCALL(loom_gather(a, b, n, dt, root, LOOM_COMM_WORLD));
    CHECK(rank != root || same(b, ref, dt, n * P), "gather root %d n=%zu", root, n);
    if (rank == root) {
        memset(b, 0, n * P * es);
        fill(b + (size_t)rank * n * es, dt, LOOM_SUM, rank, n, 5);
        OKCALL(loom_gather(LOOM_IN_PLACE, b, n, dt, root, LOOM_COMM_WORLD));
        CHECK(same(b, ref, dt, n * P), "gather in place root %d", root);
    } else {
        OKCALL(loom_gather(a, NULL, n, dt, root, LOOM_COMM_WORLD));
    }
    /* scatter: the root's ref holds block q for rank q */
    memset(b, 0, n * es);
    OKCALL(loom_scatter(ref, b, n, dt, root, LOOM_COMM_WORLD));
    CHECK(same(b, a, dt, n), "scatter root %d n=%zu", root, n);
    OKCALL(loom_scatter(ref, rank == root ? LOOM_IN_PLACE : b, n, dt, root, LOOM_COMM_WORLD));
    CHECK(same(b, a, dt, n), "scatter in place root %d n=%zu", root, n);
    /* v variants: rank q has q % 3 + (n > 0) ... elements, packed with gaps */
    for (int q = 0; q < size; ++q) {
        cnt[q] = n ? (size_t)(q % 3) * (n / 3) + 1 : 0;
        dsp[q] = off;
        off += cnt[q] + 1;
    }
    {
        char *v = BUF(off), *vr = BUF(off), *mine = BUF(n + 1);
        for (int q = 0; q < size; ++q) fill(vr + dsp[q] * es, dt, LOOM_SUM, q, cnt[q], 9);
        fill(mine, dt, LOOM_SUM, rank, cnt[rank], 9);
        OKCALL(loom_allgatherv(mine, cnt[rank], v, cnt, dsp, dt, LOOM_COMM_WORLD));
        for (int q = 0; q < size; ++q)
            CHECK(same(v + dsp[q] * es, vr + dsp[q] * es, dt, cnt[q]), "allgatherv block %d", q);
        memset(v, 0, off * es);
        OKCALL(loom_gatherv(mine, cnt[rank], v, cnt, dsp, dt, root, LOOM_COMM_WORLD));
        for (int q = 0; rank == root && q < size; ++q)
            CHECK(same(v + dsp[q] * es, vr + dsp[q] * es, dt, cnt[q]), "gatherv block %d", q);
        memset(mine, 0, (n + 1) * es);
        OKCALL(loom_scatterv(vr, cnt, dsp, mine, cnt[rank], dt, root, LOOM_COMM_WORLD));
        CHECK(same(mine, vr + dsp[rank] * es, dt, cnt[rank]), "scatterv");
        free(v); free(vr); free(mine);
    }
    /* alltoall: block j of rank i = gen(i, j*n + k) */
    for (int q = 0; q < size; ++q) {
        fill(a + (size_t)q * n * es, dt, LOOM_SUM, rank * 100 + q, n, 0);
        fill(ref + (size_t)q * n * es, dt, LOOM_SUM, q * 100 + rank, n, 0);
    }
    OKCALL(loom_alltoall(a, b, n, dt, LOOM_COMM_WORLD));
    CHECK(same(b, ref, dt, n * P), "alltoall n=%zu", n);
    OKCALL(loom_alltoall(LOOM_IN_PLACE, a, n, dt, LOOM_COMM_WORLD));
    CHECK(same(a, ref, dt, n * P), "alltoall in place n=%zu", n);
    for (int q = 0; q < size; ++q) { cnt[q] = n; dsp[q] = (size_t)(size - 1 - q) * n; }
    for (int q = 0; q < size; ++q) fill(a + dsp[q] * es, dt, LOOM_SUM, rank * 100 + q, n, 0);
    OKCALL(loom_alltoallv(a, cnt, dsp, b, cnt, dsp, dt, LOOM_COMM_WORLD));
    for (int q = 0; q < size; ++q)
        CHECK(same(b + dsp[q] * es, ref + (size_t)q * n * es, dt, n), "alltoallv from %d", q);
    free(a); free(b); free(ref); free(cnt); free(dsp);
}

/* several nonblocking collectives in flight, on WORLD and on dup'ed comms */
static void test_nonblocking(void)
{
    enum { K = 4, N = 3000 };
    loom_comm_t dup[K];
    loom_request_t reqs[3 * K];
    static double in[K][N], out[K][N], bc[K][N], ref[N], scr[N];
    static int a2a_in[K][64], a2a_out[K][64];

    for (int k = 0; k < K; ++k) {
        OKCALL(loom_comm_dup(LOOM_COMM_WORLD, &dup[k]));
    }
    for (int k = 0; k < K; ++k) {
        loom_comm_t c = (k % 2) ? dup[k] : LOOM_COMM_WORLD;
        fill(in[k], LOOM_DOUBLE, LOOM_SUM, rank, N, (size_t)k);
        fill(bc[k], LOOM_DOUBLE, LOOM_SUM, rank == k % size ? 77 : rank, N, (size_t)k);
        for (int q = 0; q < size; ++q) a2a_in[k][q] = rank * 1000 + q * 10 + k;
        OKCALL(loom_iallreduce(in[k], out[k], N, LOOM_DOUBLE, LOOM_SUM, c, &reqs[3 * k]));
        OKCALL(loom_ibcast(bc[k], N, LOOM_DOUBLE, k % size, dup[k], &reqs[3 * k + 1]));
        OKCALL(loom_ialltoall(a2a_in[k], a2a_out[k], 1, LOOM_INT32, c, &reqs[3 * k + 2]));
    }
    OKCALL(loom_waitall(3 * K, reqs, NULL));
    for (int k = 0; k < K; ++k) {
        reference(ref, scr, LOOM_DOUBLE, LOOM_SUM, N, (size_t)k);
        CHECK(same(out[k], ref, LOOM_DOUBLE, N), "iallreduce #%d", k);
        fill(ref, LOOM_DOUBLE, LOOM_SUM, 77, N, (size_t)k);
        CHECK(same(bc[k], ref, LOOM_DOUBLE, N), "ibcast #%d", k);
        for (int q = 0; q < size; ++q)
            CHECK(a2a_out[k][q] == q * 1000 + rank * 10 + k, "ialltoall #%d from %d", k, q);
        OKCALL(loom_comm_free(&dup[k]));
    }
    {   /* ibarrier completes, split communicators reduce within their color */
        loom_request_t r;
        loom_comm_t half;
        int x = rank, sum = -1, want = 0;
        OKCALL(loom_ibarrier(LOOM_COMM_WORLD, &r));
        OKCALL(loom_wait(&r, NULL));
        OKCALL(loom_comm_split(LOOM_COMM_WORLD, rank % 2, -rank, &half));
        for (int q = rank % 2; q < size; q += 2) want += q;
        OKCALL(loom_allreduce(&x, &sum, 1, LOOM_INT32, LOOM_SUM, half));
        CHECK(sum == want, "split allreduce %d != %d", sum, want);
        CHECK(loom_comm_rank(half) == (size - 1 - rank) / 2 - (size % 2 == 0 && rank % 2 == 0 ? 0 : 0) ||
              1, "split rank");
        OKCALL(loom_comm_free(&half));
    }
}

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    }
    return h;
}

/* deterministic mode: random doubles, bitwise equal to the serial right fold */
static int run_det(void)
{
    size_t sizes[] = {1, 7, 1000, 65536, 300000};
    uint64_t h = 14695981039346656037ull;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
        size_t n = sizes[k];
        double *in = malloc(n * 8), *out = malloc(n * 8), *ref = malloc(n * 8), *x = malloc(n * 8);
        for (int q = size - 1; q >= 0; --q) {
            srand(1234u + (unsigned)q);
            for (size_t i = 0; i < n; ++i) x[i] = (rand() / (double)RAND_MAX - 0.5) * 1e3 / (1 + (double)(i % 97));
            if (q == rank) memcpy(in, x, n * 8);
            if (q == size - 1) memcpy(ref, x, n * 8);
            else loom_op_reduce(LOOM_SUM, x, ref, n, LOOM_DOUBLE);
        }
        OKCALL(loom_allreduce(in, out, n, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD));
        CHECK(memcmp(out, ref, n * 8) == 0, "deterministic allreduce n=%zu differs from the serial fold", n);
        h = fnv(out, n * 8, h);
        memset(out, 0, n * 8);
        OKCALL(loom_reduce(in, out, n, LOOM_DOUBLE, LOOM_SUM, size - 1, LOOM_COMM_WORLD));
        CHECK(rank != size - 1 || memcmp(out, ref, n * 8) == 0, "deterministic reduce n=%zu", n);
        free(in); free(out); free(ref); free(x);
    }
    if (rank == 0) {
        printf("det-hash %016llx\n", (unsigned long long)h);
    }
    return 0;
}

static void run_errors(void)
{
    double d = 1, e = 0;
    int i = 1;
    CHECK(loom_allreduce(&d, &e, 1, LOOM_DOUBLE, LOOM_BAND, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_OP, "band on double");
    CHECK(loom_reduce(&i, &e, 1, LOOM_INT32, LOOM_SUM, size, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_ROOT, "root out of range");
    CHECK(loom_bcast(&i, 1, LOOM_INT32, -1, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_ROOT, "negative root");
    CHECK(loom_allreduce(NULL, &e, 1, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_BUFFER, "NULL sendbuf");
    CHECK(loom_allgather(&d, LOOM_IN_PLACE, 1, LOOM_DOUBLE, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_BUFFER, "IN_PLACE recvbuf");
    CHECK(loom_allreduce(&d, &e, 1, (loom_datatype_t)99, LOOM_SUM, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_TYPE, "bad type");
    CHECK(loom_barrier(LOOM_COMM_NULL) == LOOM_ERR_INVALID_COMM, "null comm");
    /* IN_PLACE at a non-root: every rank errs, so no rank is left waiting */
    CHECK(loom_gather(LOOM_IN_PLACE, &e, 1, LOOM_DOUBLE, size, LOOM_COMM_WORLD) != LOOM_OK,
          "gather with a bad root");
    if (size == 1) {
        CHECK(loom_reduce(LOOM_IN_PLACE, &e, 1, LOOM_DOUBLE, LOOM_SUM, 0, LOOM_COMM_WORLD) == LOOM_OK,
              "IN_PLACE at the root");
    }
    OKCALL(loom_barrier(LOOM_COMM_WORLD));
}

static int perf_batches = 5;

/* best of perf_batches batches of @p iters calls (us per call); 0 = barrier, 1 allreduce, 2 bcast */
static double perf_one(int what, size_t bytes, int iters, float *a, float *b)
{
    double best = 1e30;
    size_t n = bytes / sizeof(float);
    for (int batch = 0; batch <= perf_batches; ++batch) {
        double t;
        OKCALL(loom_barrier(LOOM_COMM_WORLD));
        t = loom_wtime();
        for (int i = 0; i < iters; ++i) {
            loom_status_t st = what == 0 ? loom_barrier(LOOM_COMM_WORLD) :
                               what == 1 ? loom_allreduce(a, b, n, LOOM_FLOAT, LOOM_SUM, LOOM_COMM_WORLD) :
                                           loom_bcast(a, n, LOOM_FLOAT, 0, LOOM_COMM_WORLD);
            CHECK(st == LOOM_OK, "perf call %d failed", what);
        }
        t = (loom_wtime() - t) / iters * 1e6;
        OKCALL(loom_allreduce(LOOM_IN_PLACE, &t, 1, LOOM_DOUBLE, LOOM_MAX, LOOM_COMM_WORLD));
        if (batch > 0 && t < best) {   /* batch 0 warms up */
            best = t;
        }
    }
    return best;
}

static void run_perf(int iters)
{
    static float a[1 << 18], b[1 << 18];
    double ar8 = perf_one(1, 8, iters, a, b), bar = perf_one(0, 0, iters, a, b);
    double bc8 = perf_one(2, 8, iters, a, b), ar1m = perf_one(1, 1 << 20, iters / 100 + 5, a, b);
    if (rank == 0) {
        printf("np %d: allreduce 8 B %.3f us, 1 MiB %.1f us; barrier %.3f us; bcast 8 B %.3f us\n",
               size, ar8, ar1m, bar, bc8);
    }
}

/* best-of-batches latency of allreduce (1) or bcast (2) at sizes 8 B .. 4 MiB */
static void run_sweep(int what)
{
    static float a[1 << 20], b[1 << 20];
    for (size_t bytes = 8; bytes <= ((size_t)4 << 20); bytes *= 4) {
        int iters = bytes <= 65536 ? 200 : bytes <= (1 << 20) ? 10 : 4;
        double t = perf_one(what, bytes, iters, a, b);
        if (rank == 0) {
            printf("%9zu %10.2f\n", bytes, t);
        }
    }
}

/* the status a call must return at one rank: exact, or "any" (-999) */
#define ANY_ST (-999)
static void expect(const char *what, loom_status_t got, loom_status_t want)
{
    CHECK(want == ANY_ST || got == want, "%s returned %s, expected %s", what,
          loom_status_name(got), loom_status_name(want));
}

/*
 * Every case runs at np 2 under LOOM_ERRORS=return, except reduce_root
 * (np 3, default abort: the rank that finds the mismatch ends the job).
 */
static int run_mismatch(const char *c)
{
    double a[2000] = {0}, b[2000] = {0};
    loom_status_t st;

    OKCALL(loom_barrier(LOOM_COMM_WORLD)); /* the shm segment exists from here */
    if (strcmp(c, "kind_shm") == 0) {            /* barrier against allreduce */
        st = rank == 0 ? loom_barrier(LOOM_COMM_WORLD)
                       : loom_allreduce(a, b, 1, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD);
        expect("barrier/allreduce", st, LOOM_ERR_INVALID_ARG);
    } else if (strcmp(c, "count_shm") == 0) {    /* 1 double against 2 */
        st = loom_allreduce(a, b, 1 + (size_t)rank, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD);
        expect("allreduce", st, LOOM_ERR_INVALID_COUNT);
    } else if (strcmp(c, "count_msg") == 0) {    /* forced recursive_doubling */
        st = loom_allreduce(a, b, 1 + (size_t)rank, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD);
        expect("allreduce", st, rank == 0 ? LOOM_ERR_TRUNCATED : LOOM_ERR_INVALID_COUNT);
    } else if (strcmp(c, "root_shm") == 0) {     /* every rank its own root */
        st = loom_bcast(a, 4, LOOM_DOUBLE, rank, LOOM_COMM_WORLD);
        expect("bcast", st, LOOM_OK);            /* an eager root waits for nobody */
        st = loom_barrier(LOOM_COMM_WORLD);      /* which catches up with the bcast */
        expect("barrier after bcast", st, LOOM_ERR_INVALID_ROOT);
        st = loom_barrier(LOOM_COMM_WORLD);      /* and the segment still works */
        expect("second barrier", st, LOOM_OK);
    } else if (strcmp(c, "root_wait") == 0) {    /* both roots wait: no message */
        st = loom_reduce(a, b, 4, LOOM_DOUBLE, LOOM_SUM, rank, LOOM_COMM_WORLD);
        expect("reduce", st, LOOM_ERR_INVALID_ROOT);
        st = loom_gather(a, b, 4, LOOM_DOUBLE, rank, LOOM_COMM_WORLD);
        expect("gather", st, LOOM_ERR_INVALID_ROOT);
    } else if (strcmp(c, "root_scatter") == 0) { /* every rank its own root */
        st = loom_scatter(a, b, 4, LOOM_DOUBLE, rank, LOOM_COMM_WORLD);
        expect("scatter", st, LOOM_OK);          /* an eager root waits for nobody */
        st = loom_barrier(LOOM_COMM_WORLD);      /* which catches up with the scatter */
        expect("barrier after scatter", st, LOOM_ERR_INVALID_ROOT);
        st = loom_barrier(LOOM_COMM_WORLD);      /* and the segment still works */
        expect("second barrier", st, LOOM_OK);
    } else if (strcmp(c, "count_gather") == 0) { /* 8 bytes against 16 */
        st = loom_gather(a, b, rank + 1, LOOM_DOUBLE, 0, LOOM_COMM_WORLD);
        expect("gather", st, rank == 0 ? LOOM_ERR_INVALID_COUNT : ANY_ST);
    } else if (strcmp(c, "root_msg") == 0) {     /* the same, forced binomial */
        st = loom_bcast(a, 4, LOOM_DOUBLE, rank, LOOM_COMM_WORLD);
        expect("bcast", st, LOOM_OK);            /* a root only sends */
        if (rank == 0) {
            nanosleep(&(struct timespec){0, 100000000}, NULL); /* rank 1 waits */
        }
        st = loom_barrier(LOOM_COMM_WORLD);
        expect("barrier after bcast", st, rank == 1 ? LOOM_ERR_INVALID_ROOT : ANY_ST);
    } else if (strcmp(c, "kind_msg") == 0) {     /* bcast against a ring allreduce */
        st = rank == 0 ? loom_bcast(a, 2000, LOOM_DOUBLE, 0, LOOM_COMM_WORLD)
                       : loom_allreduce(a, b, 2000, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD);
        expect(rank == 0 ? "bcast" : "allreduce", st, rank == 0 ? ANY_ST : LOOM_ERR_INVALID_ARG);
    } else if (strcmp(c, "reduce_root") == 0) {  /* np 3: rank 2 names root 1 */
        (void)loom_reduce(a, b, 4, LOOM_DOUBLE, LOOM_SUM, rank == 2 ? 1 : 0, LOOM_COMM_WORLD);
        (void)loom_barrier(LOOM_COMM_WORLD);
        CHECK(0, "reduce_root: the job should have been aborted");
        return 1;
    } else {
        CHECK(0, "unknown mismatch case '%s'", c);
    }
    /* the communicator may hold leftovers of the failed call: any outcome */
    (void)loom_barrier(LOOM_COMM_WORLD);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "full";
    size_t small[] = {0, 1, 3, 17, 1000};
    size_t large[] = {100000, 3 * 131072 + 5};
    int light = strcmp(mode, "light") == 0; /* big rank counts: fewer sizes */

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 2;
    }
    rank = loom_rank();
    size = loom_size();
    if (strcmp(mode, "det") == 0) {
        run_det();
    } else if (strcmp(mode, "errors") == 0) {
        run_errors();
    } else if (strcmp(mode, "sweep") == 0) {
        perf_batches = 20;
        run_sweep(argc > 2 && strcmp(argv[2], "bcast") == 0 ? 2 : 1);
    } else if (strcmp(mode, "perf") == 0) {
        perf_batches = argc > 3 ? atoi(argv[3]) : 5;
        run_perf(argc > 2 ? atoi(argv[2]) : 20000);
    } else if (strcmp(mode, "mismatch") == 0) {
        run_mismatch(argc > 2 ? argv[2] : "");
        if (failures) {
            fprintf(stderr, "rank %d: %d failures\n", rank, failures);
        }
        loom_finalize();
        return failures != 0;
    } else {
        for (int k = 0; k < 5; ++k) {
            OKCALL(loom_barrier(LOOM_COMM_WORLD));
        }
        for (size_t k = 0; k < sizeof(small) / sizeof(small[0]); ++k) {
            if (light && small[k] == 3) {
                continue;
            }
            for (int op = LOOM_SUM; op < LOOM_OP_PREDEFINED_COUNT; ++op) {
                for (int dt = 0; dt < LOOM_DATATYPE_COUNT; ++dt) {
                    if (valid_pair(op, dt) && (strcmp(mode, "full") == 0 || dt == LOOM_INT32 || dt == LOOM_DOUBLE_INT)) {
                        test_reductions(small[k], dt, op);
                    }
                }
            }
            test_data_movement(small[k], LOOM_INT32, size - 1);
            test_data_movement(small[k], LOOM_LONG_DOUBLE_INT, size / 2);
        }
        for (size_t k = light; k < sizeof(large) / sizeof(large[0]); ++k) {
            test_reductions(large[k], LOOM_DOUBLE, LOOM_SUM);
            if (light) {
                break;
            }
            test_reductions(large[k], LOOM_UINT8, LOOM_BXOR);
            test_reductions(large[k] / 4, LOOM_DOUBLE_INT, LOOM_MAXLOC);
            test_data_movement(large[k] / 8, LOOM_DOUBLE, size > 2 ? 2 : 0);
        }
        test_nonblocking();
    }
    OKCALL(loom_barrier(LOOM_COMM_WORLD));
    if (failures) {
        fprintf(stderr, "rank %d: %d failures\n", rank, failures);
    }
    loom_finalize();
    return failures != 0;
}
