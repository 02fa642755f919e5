/*
 * prog_coll_s15.c: data checks for the session 15 collective paths, run
 * by test_coll_s15.sh under forced algorithms and the table.
 *
 *   red   reduce at roots 0, p/2 and p-1: int64 sums checked exactly and
 *         doubles bit for bit against the serial right fold x0 + (x1 +
 *         (... + x(p-1))) (when LOOM_DETERMINISTIC=1), in place at the root
 *         and not, counts 1 and 3 (most of reduce "cma"'s slices empty),
 *         8 KiB + 8 bytes, 64 Ki + 3 elements (slices that are no multiple
 *         of anything) and 300001 (2.3 MiB: several chunks per slice); a
 *         non-root's recvbuf must come back untouched (only the root's is
 *         written); a non-commutative user op (2x2 int64 matrix product,
 *         32-byte elements: slices and chunks must cut whole elements) in
 *         rank order; "red-hash" of root 0's doubles.
 *   release  reduce "cma" (forced) at root 0 of 8 KiB + 4 bytes of int32
 *         (one chunk) with a user op whose last call at the root (call p-1:
 *         the fold of the root's own input, after every read) waits until
 *         rank 1 has returned from the reduce (a file rank 1 creates; the
 *         name carries the root's pid, bcast first). Passes when the root
 *         releases the others after its reads; hangs (the driver's timeout
 *         fails it) when the others wait for the root's folds as well.
 *   ag    allgather of int32 blocks of 64 KiB - 4, 64 KiB + 4 and 256 KiB
 *         (around the rule that gives cma above 64 KiB when ranks
 *         outnumber cores), in place and not, three calls back to back:
 *         every block checked.
 *   a2a   alltoall (blocks of 0, 1, 1000 and 16384 int32), the same in
 *         place, alltoallv with unequal counts (zeros too) and gapped
 *         displacements, and two ialltoall in flight: every block checked.
 *
 * Exit status: the number of failures (0: passed).
 */
#include <loom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, failures, det;

#define PROG_CHECK_PRINT_MAX 10   /* failures printed; all are counted */
#include "prog_check.h"
#include "prog_values.h"

/* rank q's element i, an int64 (its double: prog_values.h) */
static int64_t ival(int q, size_t i)
{
    return (int64_t)((i * 7 + (size_t)q * 13) % 1001) - 500 + q;
}

static double dfold(size_t i)
{
    double acc = dval(size - 1, i);
    for (int q = size - 2; q >= 0; --q) {
        acc = dval(q, i) + acc;
    }
    return acc;
}

static int64_t isum(size_t i)
{
    int64_t acc = 0;
    for (int q = 0; q < size; ++q) {
        acc += ival(q, i);
    }
    return acc;
}

/* one reduce of n doubles and n int64 to @p root; returns the hash */
static uint64_t red_one(size_t n, int root, int in_place, uint64_t h)
{
    double *d = malloc(n * 8 + 8), *dr = malloc(n * 8 + 8);
    int64_t *v = malloc(n * 8 + 8), *vr = malloc(n * 8 + 8);
    int me = rank == root, inp = in_place && me;
    size_t bad = 0;

    for (size_t i = 0; i < n; ++i) {
        d[i] = dval(rank, i);
        v[i] = ival(rank, i);
        dr[i] = inp ? d[i] : -7.0;
        vr[i] = inp ? v[i] : -7;
    }
    OKCALL(loom_reduce(inp ? LOOM_IN_PLACE : d, inp ? (void *)d : dr, n, LOOM_DOUBLE,
                       LOOM_SUM, root, LOOM_COMM_WORLD));
    OKCALL(loom_reduce(inp ? LOOM_IN_PLACE : v, inp ? (void *)v : vr, n, LOOM_INT64,
                       LOOM_SUM, root, LOOM_COMM_WORLD));
    const double *dres = inp ? d : dr;
    const int64_t *vres = inp ? v : vr;
    for (size_t i = 0; i < n && bad < 3; ++i) {
        if (me) {
            bad += vres[i] != isum(i);
            CHECK(vres[i] == isum(i), "reduce int64 n=%zu root %d%s [%zu]: %lld, want %lld",
                  n, root, inp ? " in place" : "", i, (long long)vres[i], (long long)isum(i));
            if (det) {
                double want = dfold(i);
                bad += memcmp(&dres[i], &want, 8) != 0;
                CHECK(memcmp(&dres[i], &want, 8) == 0, "reduce double n=%zu root %d%s [%zu]: "
                      "%.17g, want the right fold %.17g", n, root, inp ? " in place" : "", i,
                      dres[i], want);
            }
        } else {
            bad += dr[i] != -7.0 || vr[i] != -7;
            CHECK(dr[i] == -7.0 && vr[i] == -7, "reduce n=%zu root %d: non-root %d's recvbuf "
                  "written at [%zu]", n, root, rank, i);
        }
    }
    if (me && root == 0) {
        h = fnv(dres, n * 8, h);
    }
    free(d); free(dr); free(v); free(vr);
    return h;
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

/* a non-commutative user op over n matrices, to root p-1 */
static void red_noncomm(size_t n)
{
    int64_t *in = malloc(n * 32), *out = malloc(n * 32), want[4], m[4], acc[4];
    int root = size - 1;
    loom_op_t op;

    for (size_t k = 0; k < n; ++k) {
        mat_of(rank, k, in + 4 * k);
    }
    OKCALL(loom_op_create_unit(matmul, NULL, 0, 32, &op));
    OKCALL(loom_reduce(in, out, n * 4, LOOM_INT64, op, root, LOOM_COMM_WORLD));
    for (size_t k = 0; rank == root && k < n; ++k) {
        mat_of(size - 1, k, acc);
        for (int q = size - 2; q >= 0; --q) {
            mat_of(q, k, m);
            memcpy(want, acc, sizeof(want));
            matmul(m, want, 4, LOOM_INT64, NULL);
            memcpy(acc, want, sizeof(acc));
        }
        if (memcmp(out + 4 * k, acc, 32) != 0) {
            CHECK(0, "non-commutative reduce n=%zu [%zu]", n, k);
            break;
        }
    }
    OKCALL(loom_op_free(&op));
    free(in); free(out);
}

static void run_red(void)
{
    static const size_t counts[] = {1, 3, 8192 / 8 + 1, 65536 + 3, 300001};
    uint64_t h = 14695981039346656037ull;
    int roots[3] = {0, size / 2, size - 1};

    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); ++k) {
        for (int j = 0; j < 3; ++j) {
            if (j > 0 && roots[j] == roots[j - 1]) {
                continue;
            }
            h = red_one(counts[k], roots[j], 0, h);
            h = red_one(counts[k], roots[j], 1, h);
        }
    }
    red_noncomm(7);
    red_noncomm(40001);      /* 1.28 MiB: chunks of whole 32-byte elements */
    if (rank == 0) {
        printf("red-hash %016llx\n", (unsigned long long)h);
    }
}

static char release_path[64];
static int release_calls;

/* sum; at the root, the p-1st call waits for rank 1's file */
static void release_op(const void *in, void *inout, size_t count, loom_datatype_t dt,
                       void *arg)
{
    const int32_t *a = in;
    int32_t *b = inout;

    (void)dt;
    (void)arg;
    for (size_t i = 0; i < count; ++i) {
        b[i] += a[i];
    }
    if (rank == 0 && ++release_calls == size - 1) {
        while (access(release_path, F_OK) != 0) {
            usleep(1000);   /* no bound: a root that waits for us hangs here */
        }
    }
}

static void run_release(void)
{
    size_t n = 8192 / 4 + 1;
    int32_t *in = malloc(n * 4), *out = malloc(n * 4);
    int32_t pid = (int32_t)getpid();
    loom_op_t op;

    OKCALL(loom_bcast(&pid, 1, LOOM_INT32, 0, LOOM_COMM_WORLD));
    snprintf(release_path, sizeof(release_path), "/tmp/loom-s15-release-%d", (int)pid);
    for (size_t i = 0; i < n; ++i) {
        in[i] = rank + (int32_t)i;
    }
    OKCALL(loom_op_create(release_op, NULL, 1, &op));
    OKCALL(loom_reduce(in, out, n, LOOM_INT32, op, 0, LOOM_COMM_WORLD));
    if (rank == 1) {
        FILE *f = fopen(release_path, "w");
        CHECK(f != NULL, "cannot create %s", release_path);
        if (f != NULL) {
            fclose(f);
        }
    }
    for (size_t i = 0; rank == 0 && i < n; ++i) {
        int32_t want = (int32_t)(size * (size - 1) / 2) + size * (int32_t)i;
        if (out[i] != want) {
            CHECK(0, "release reduce [%zu]: %d, want %d", i, (int)out[i], (int)want);
            break;
        }
    }
    OKCALL(loom_barrier(LOOM_COMM_WORLD));
    if (rank == 0) {
        unlink(release_path);
    }
    OKCALL(loom_op_free(&op));
    free(in); free(out);
}

/* the element k of the block rank q sends to rank r */
static int32_t a2a_val(int q, int r, size_t k)
{
    return (int32_t)(q * 1000003 + r * 1009 + (int)(k % 100003));
}

static void a2a_uniform(size_t n)
{
    size_t tot = n * (size_t)size + 1;
    int32_t *a = malloc(tot * 4), *b = malloc(tot * 4);

    for (int r = 0; r < size; ++r) {
        for (size_t k = 0; k < n; ++k) {
            a[(size_t)r * n + k] = a2a_val(rank, r, k);
        }
    }
    memset(b, 0xee, tot * 4);
    OKCALL(loom_alltoall(a, b, n, LOOM_INT32, LOOM_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < n; ++k) {
            if (b[(size_t)q * n + k] != a2a_val(q, rank, k)) {
                CHECK(0, "alltoall n=%zu from %d [%zu]", n, q, k);
                break;
            }
        }
    }
    OKCALL(loom_alltoall(LOOM_IN_PLACE, a, n, LOOM_INT32, LOOM_COMM_WORLD));
    CHECK(n == 0 || memcmp(a, b, n * (size_t)size * 4) == 0, "alltoall in place n=%zu", n);
    free(a); free(b);
}

/* alltoallv: rank r sends (r + q) % 3 * n elements to q (zeros too), each
 * block at a gap of 5 elements after the one before */
static void a2a_vector(size_t n)
{
    size_t sc[64], sd[64], rc[64], rd[64], so = 0, ro = 0;
    int32_t *a, *b;

    for (int q = 0; q < size; ++q) {
        sc[q] = (size_t)((rank + q) % 3) * n;
        rc[q] = (size_t)((q + rank) % 3) * n;
        sd[q] = so; so += sc[q] + 5;
        rd[q] = ro; ro += rc[q] + 5;
    }
    a = malloc(so * 4 + 4);
    b = malloc(ro * 4 + 4);
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < sc[q]; ++k) {
            a[sd[q] + k] = a2a_val(rank, q, k);
        }
    }
    memset(b, 0xee, ro * 4 + 4);
    OKCALL(loom_alltoallv(a, sc, sd, b, rc, rd, LOOM_INT32, LOOM_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < rc[q]; ++k) {
            if (b[rd[q] + k] != a2a_val(q, rank, k)) {
                CHECK(0, "alltoallv n=%zu from %d [%zu]", n, q, k);
                break;
            }
        }
        CHECK(((const uint8_t *)&b[rd[q] + rc[q]])[0] == 0xee, "alltoallv n=%zu: the gap after "
              "the block from %d was written", n, q);
    }
    free(a); free(b);
}

/* two nonblocking alltoalls in flight */
static void a2a_two(size_t n)
{
    size_t tot = n * (size_t)size;
    int32_t *a[2], *b[2];
    loom_request_t req[2];

    for (int j = 0; j < 2; ++j) {
        a[j] = malloc(tot * 4);
        b[j] = malloc(tot * 4);
        for (size_t i = 0; i < tot; ++i) {
            a[j][i] = a2a_val(rank, (int)(i / n), i % n) + j;
        }
    }
    OKCALL(loom_ialltoall(a[0], b[0], n, LOOM_INT32, LOOM_COMM_WORLD, &req[0]));
    OKCALL(loom_ialltoall(a[1], b[1], n, LOOM_INT32, LOOM_COMM_WORLD, &req[1]));
    OKCALL(loom_waitall(2, req, NULL));
    for (int j = 0; j < 2; ++j) {
        for (size_t i = 0; i < tot; ++i) {
            if (b[j][i] != a2a_val((int)(i / n), rank, i % n) + j) {
                CHECK(0, "ialltoall #%d n=%zu [%zu]", j, n, i);
                break;
            }
        }
        free(a[j]); free(b[j]);
    }
}

static void ag_one(size_t n, int in_place)
{
    size_t tot = n * (size_t)size;
    int32_t *in = malloc(n * 4), *out = malloc(tot * 4);

    for (size_t k = 0; k < n; ++k) {
        in[k] = a2a_val(rank, 0, k);
    }
    memset(out, 0xee, tot * 4);
    if (in_place) {
        memcpy(out + (size_t)rank * n, in, n * 4);
    }
    OKCALL(loom_allgather(in_place ? LOOM_IN_PLACE : in, out, n, LOOM_INT32, LOOM_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < n; ++k) {
            if (out[(size_t)q * n + k] != a2a_val(q, 0, k)) {
                CHECK(0, "allgather n=%zu%s from %d [%zu]", n, in_place ? " in place" : "", q,
                      k);
                break;
            }
        }
    }
    free(in); free(out);
}

static void run_ag(void)
{
    static const size_t blocks[] = {16384 - 1, 16384 + 1, 65536};

    for (size_t k = 0; k < sizeof(blocks) / sizeof(blocks[0]); ++k) {
        for (int rep = 0; rep < 3; ++rep) {
            ag_one(blocks[k], rep == 1);
        }
    }
}

static void run_a2a(void)
{
    static const size_t blocks[] = {0, 1, 1000, 16384};

    for (size_t k = 0; k < sizeof(blocks) / sizeof(blocks[0]); ++k) {
        a2a_uniform(blocks[k]);
        a2a_vector(blocks[k]);
    }
    a2a_two(700);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *d = getenv("LOOM_DETERMINISTIC");

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 1;
    }
    rank = loom_comm_rank(LOOM_COMM_WORLD);
    size = loom_comm_size(LOOM_COMM_WORLD);
    det = d != NULL && strcmp(d, "1") == 0;
    if (size > 64) {
        CHECK(0, "at most 64 ranks");
    } else if (strcmp(mode, "red") == 0) {
        run_red();
    } else if (strcmp(mode, "release") == 0) {
        if (size > 1) {
            run_release();
        }
    } else if (strcmp(mode, "ag") == 0) {
        run_ag();
    } else if (strcmp(mode, "a2a") == 0) {
        run_a2a();
    } else {
        CHECK(0, "usage: prog_coll_s15 red|release|ag|a2a");
    }
    OKCALL(loom_barrier(LOOM_COMM_WORLD));
    if (failures == 0) {
        OKCALL(loom_allreduce(LOOM_IN_PLACE, &failures, 1, LOOM_INT32, LOOM_SUM,
                              LOOM_COMM_WORLD));
    } else {
        int sum = 0;
        (void)loom_allreduce(&failures, &sum, 1, LOOM_INT32, LOOM_SUM, LOOM_COMM_WORLD);
    }
    if (rank == 0 && failures == 0) {
        printf("prog_coll_s15 %s: passed on %d ranks\n", mode, size);
    }
    loom_finalize();
    return failures;
}
