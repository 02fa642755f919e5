/*
 * prog_coll_s14.c: data checks for the session 14 collective paths, run
 * by test_coll_s14.sh under forced algorithms and the table.
 *
 *   rs       reduce_scatter_block and reduce_scatter (per-rank counts):
 *            int64 sums checked exactly, doubles checked bit for bit
 *            against the serial right fold x0 + (x1 + (... + x(p-1)))
 *            (every algorithm gives it under LOOM_DETERMINISTIC=1), in
 *            place and not, counts around the 8 KiB slot (blocks of 1 and
 *            7 elements, a total of 8 KiB and 8 KiB + 8, unequal counts
 *            with zeros), two nonblocking calls in flight, a barrier and
 *            an allreduce between; a non-commutative user op (2x2 integer
 *            matrix product, exact) in rank order; "rs-hash" of the doubles.
 *   ar       allreduce of doubles at 8 KiB + 8 to 1 MiB (cma when ranks
 *            outnumber cores), int64 exactly, doubles bit for bit against
 *            the right fold (deterministic runs), in place and not;
 *            "ar-hash" of the doubles.
 *
 * Doubles are compared with the fold only when LOOM_DETERMINISTIC=1; the
 * hashes are printed by rank 0 for the driver to compare across
 * algorithms. Exit status: the number of failures (0: passed).
 */
#include <loom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures, det;

#define PROG_CHECK_PRINT_MAX 10   /* failures printed; all are counted */
#include "prog_check.h"
#include "prog_values.h"

/* rank q's element i, an int64 (its double: prog_values.h) */
static int64_t ival(int q, size_t i)
{
    return (int64_t)((i * 7 + (size_t)q * 13) % 1001) - 500;
}

/* ref[i] = x0[i] + (x1[i] + (... + x(p-1)[i])), elements [lo, lo + n) */
static void dfold(double *ref, size_t lo, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        double acc = dval(size - 1, lo + i);
        for (int q = size - 2; q >= 0; --q) {
            acc = dval(q, lo + i) + acc;
        }
        ref[i] = acc;
    }
}

static int64_t isum(size_t i)
{
    int64_t acc = 0;
    for (int q = 0; q < size; ++q) {
        acc += ival(q, i);
    }
    return acc;
}

/* the input of this rank: n doubles / int64 */
static void fill(double *d, int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        d[i] = dval(rank, i);
        v[i] = ival(rank, i);
    }
}

/* 2x2 int64 matrix product: inout = in * inout (in from the lower rank) */
static void matmul(const void *in, void *inout, size_t count, loom_datatype_t dt, void *arg)
{
    const int64_t *a = in;
    int64_t *b = inout;
    (void)dt;
    (void)arg;
    for (size_t k = 0; k < count / 4; ++k, a += 4, b += 4) {
        int64_t r0 = a[0] * b[0] + a[1] * b[2], r1 = a[0] * b[1] + a[1] * b[3];
        int64_t r2 = a[2] * b[0] + a[3] * b[2], r3 = a[2] * b[1] + a[3] * b[3];
        b[0] = r0; b[1] = r1; b[2] = r2; b[3] = r3;
    }
}

static void mat_of(int q, size_t k, int64_t *m)
{
    m[0] = 1 + (q + (int)k) % 3; m[1] = q + 1; m[2] = (int)(k % 5); m[3] = 1;
}

/* reduce_scatter with counts[]: doubles, int64, in place; block check */
static uint64_t rs_counts(const size_t *counts, uint64_t h, const char *what)
{
    size_t total = 0, lo = 0, mine = counts[rank];
    for (int q = 0; q < size; ++q) {
        lo += q < rank ? counts[q] : 0;
        total += counts[q];
    }
    double *d = malloc((total + 1) * 8), *dout = malloc((total + 1) * 8), *ref = malloc((mine + 1) * 8);
    int64_t *v = malloc((total + 1) * 8), *vout = malloc((total + 1) * 8);

    fill(d, v, total);
    dfold(ref, lo, mine);
    for (size_t i = 0; i < mine + 1; ++i) {
        dout[i] = -7.0;
        vout[i] = -7;
    }
    OKCALL(loom_reduce_scatter(d, dout, counts, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD));
    OKCALL(loom_reduce_scatter(v, vout, counts, LOOM_INT64, LOOM_SUM, LOOM_COMM_WORLD));
    for (size_t i = 0; i < mine; ++i) {
        CHECK(vout[i] == isum(lo + i), "%s int64 [%zu] = %lld, want %lld", what, i,
              (long long)vout[i], (long long)isum(lo + i));
    }
    CHECK(vout[mine] == -7 && dout[mine] == -7.0, "%s wrote past its block", what);
    CHECK(!det || memcmp(dout, ref, mine * 8) == 0, "%s doubles differ from the right fold", what);
    h = fnv(dout, mine * 8, h);
    /* in place: recvbuf holds every block, the result lands at its start */
    fill(d, v, total);
    OKCALL(loom_reduce_scatter(LOOM_IN_PLACE, d, counts, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD));
    CHECK(!det || memcmp(d, ref, mine * 8) == 0, "%s in place differs from the right fold", what);
    for (size_t i = 0; i < mine && !det; ++i) {
        CHECK(d[i] == dout[i] || (d[i] - dout[i]) * (d[i] - dout[i]) < 1e-12, "%s in place", what);
    }
    free(d); free(dout); free(ref); free(v); free(vout);
    return h;
}

/* reduce_scatter_block of n per rank: int64, doubles, in place, nonblocking */
static uint64_t rs_block(size_t n, uint64_t h)
{
    size_t total = n * (size_t)size, lo = n * (size_t)rank;
    double *d = malloc((total + 1) * 8), *dout = malloc((n + 1) * 8), *ref = malloc((n + 1) * 8);
    int64_t *v = malloc((total + 1) * 8), *vout = malloc((n + 1) * 8), *v2 = malloc((n + 1) * 8);
    loom_request_t r[2];

    fill(d, v, total);
    dfold(ref, lo, n);
    dout[n] = -7.0;
    vout[n] = -7;
    OKCALL(loom_ireduce_scatter_block(d, dout, n, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD, &r[0]));
    OKCALL(loom_ireduce_scatter_block(v, vout, n, LOOM_INT64, LOOM_SUM, LOOM_COMM_WORLD, &r[1]));
    OKCALL(loom_wait(&r[0], NULL));
    OKCALL(loom_wait(&r[1], NULL));
    for (size_t i = 0; i < n; ++i) {
        CHECK(vout[i] == isum(lo + i), "block n=%zu int64 [%zu] = %lld, want %lld", n, i,
              (long long)vout[i], (long long)isum(lo + i));
    }
    CHECK(vout[n] == -7 && dout[n] == -7.0, "block n=%zu wrote past its block", n);
    CHECK(!det || memcmp(dout, ref, n * 8) == 0, "block n=%zu doubles differ from the right fold", n);
    h = fnv(dout, n * 8, h);
    OKCALL(loom_reduce_scatter_block(LOOM_IN_PLACE, v, n, LOOM_INT64, LOOM_SUM, LOOM_COMM_WORLD));
    for (size_t i = 0; i < n; ++i) {
        CHECK(v[i] == isum(lo + i), "block n=%zu in place [%zu]", n, i);
    }
    /* blocking, then an allreduce on the same segment */
    fill(d, v, total);
    OKCALL(loom_reduce_scatter_block(v, v2, n, LOOM_INT64, LOOM_SUM, LOOM_COMM_WORLD));
    OKCALL(loom_allreduce(v, vout, n, LOOM_INT64, LOOM_SUM, LOOM_COMM_WORLD));
    for (size_t i = 0; i < n; ++i) {
        CHECK(v2[i] == isum(lo + i), "block n=%zu blocking [%zu]", n, i);
        CHECK(vout[i] == isum(i), "allreduce after block n=%zu [%zu]", n, i);
    }
    free(d); free(dout); free(ref); free(v); free(vout); free(v2);
    return h;
}

/* a non-commutative user op: products of 2x2 matrices in rank order */
static void rs_noncomm(size_t per)
{
    size_t n = per * (size_t)size;
    int64_t *in = malloc(n * 32), *out = malloc(per * 32 + 8), want[4], m[4], acc[4];
    loom_op_t op;

    for (size_t k = 0; k < n; ++k) {
        mat_of(rank, k, in + 4 * k);
    }
    OKCALL(loom_op_create_unit(matmul, NULL, 0, 32, &op));
    OKCALL(loom_reduce_scatter_block(in, out, per * 4, LOOM_INT64, op, LOOM_COMM_WORLD));
    for (size_t k = 0; k < per; ++k) {
        size_t g = (size_t)rank * per + k;
        mat_of(size - 1, g, acc);
        for (int q = size - 2; q >= 0; --q) {
            mat_of(q, g, m);
            memcpy(want, acc, sizeof(want));
            matmul(m, want, 4, LOOM_INT64, NULL);
            memcpy(acc, want, sizeof(acc));
        }
        CHECK(memcmp(out + 4 * k, acc, 32) == 0, "non-commutative block per=%zu [%zu]", per, k);
    }
    OKCALL(loom_op_free(&op));
    free(in); free(out);
}

static void run_rs(void)
{
    static const size_t blocks[] = {1, 7, 64, 1024 / 8 + 1};
    size_t *counts = malloc((size_t)size * sizeof(size_t));
    uint64_t h = 14695981039346656037ull;
    size_t slot = 8192 / 8;

    for (size_t k = 0; k < sizeof(blocks) / sizeof(blocks[0]); ++k) {
        h = rs_block(blocks[k], h);
    }
    h = rs_block(slot / (size_t)size, h);          /* the whole slot or just under */
    h = rs_block(slot / (size_t)size + 1, h);      /* just over */
    for (int q = 0; q < size; ++q) {               /* unequal, zeros, total 8 KiB */
        counts[q] = q % 3 == 1 ? 0 : (size_t)q + 1;
    }
    h = rs_counts(counts, h, "counts small");
    for (int q = 0; q < size; ++q) {
        counts[q] = slot / (size_t)size;
    }
    counts[0] += slot - slot / (size_t)size * (size_t)size;   /* total exactly 8 KiB */
    h = rs_counts(counts, h, "counts 8 KiB");
    counts[size - 1] += 1;                                    /* 8 KiB + 8 */
    h = rs_counts(counts, h, "counts 8 KiB + 8");
    OKCALL(loom_barrier(LOOM_COMM_WORLD));
    rs_noncomm(1);
    rs_noncomm(9);
    if (rank == 0) {
        printf("rs-hash %016llx\n", (unsigned long long)h);
    }
    free(counts);
}

static void run_ar(void)
{
    static const size_t bytes[] = {8192 + 8, 16384, 16384 + 8, 65536, 300000, 1 << 20};
    uint64_t h = 14695981039346656037ull;

    for (size_t k = 0; k < sizeof(bytes) / sizeof(bytes[0]); ++k) {
        size_t n = bytes[k] / 8;
        double *d = malloc(n * 8), *out = malloc(n * 8), *ref = malloc(n * 8);
        int64_t *v = malloc(n * 8), *vout = malloc(n * 8);

        fill(d, v, n);
        dfold(ref, 0, n);
        OKCALL(loom_allreduce(d, out, n, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD));
        CHECK(!det || memcmp(out, ref, n * 8) == 0, "allreduce %zu B differs from the right fold",
              bytes[k]);
        h = fnv(out, n * 8, h);
        OKCALL(loom_allreduce(v, vout, n, LOOM_INT64, LOOM_SUM, LOOM_COMM_WORLD));
        OKCALL(loom_allreduce(LOOM_IN_PLACE, v, n, LOOM_INT64, LOOM_SUM, LOOM_COMM_WORLD));
        for (size_t i = 0; i < n; ++i) {
            CHECK(vout[i] == isum(i) && v[i] == isum(i), "allreduce %zu B int64 [%zu]", bytes[k], i);
        }
        free(d); free(out); free(ref); free(v); free(vout);
    }
    if (rank == 0) {
        printf("ar-hash %016llx\n", (unsigned long long)h);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "rs";
    const char *e = getenv("LOOM_DETERMINISTIC");

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 2;
    }
    rank = loom_rank();
    size = loom_size();
    det  = e != NULL && strcmp(e, "1") == 0;
    if (strcmp(mode, "rs") == 0) {
        run_rs();
    } else if (strcmp(mode, "ar") == 0) {
        run_ar();
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    OKCALL(loom_barrier(LOOM_COMM_WORLD));
    if (failures) {
        fprintf(stderr, "rank %d: %d failures\n", rank, failures);
    } else if (rank == 0) {
        printf("prog_coll_s14 %s: passed on %d ranks\n", mode, size);
    }
    loom_finalize();
    return failures != 0;
}
