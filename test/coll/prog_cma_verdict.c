/*
 * prog_cma_verdict.c: large nonblocking allreduces posted while ranks
 * differ in what they know of the communicator's CMA verdict, run by
 * test_cma_verdict.sh under LOOM_SHM_CMA=off (the verdict is "no").
 *
 * Rank 0 posts a large loom_iallreduce and waits for it (so it knows the
 * verdict), then posts a second; the other ranks sleep first, then post
 * both back to back (so the second is posted before they know). Each call
 * must take the same on-node operation number on every rank whatever a
 * rank knew when it posted it: otherwise the on-node collectives that
 * follow (small bcasts and allreduces, which run in the shared segment)
 * pair different operations and fail or deliver wrong data. Then the same
 * again with the verdict known everywhere, and a mix of blocking calls.
 * Every result is checked exactly. Prints "prog_cma_verdict: passed" on
 * rank 0.
 */
#include <loom.h>

#include "prog_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N (64 * 1024)   /* 512 KiB of doubles: above the shm limit, so "cma" */

static int rank, size, failures;

static double in1[N], out1[N], in2[N], out2[N];

/* rank r's element i of input k; the sum over ranks is exact in a double */
static double value(int k, int r, size_t i)
{
    return (double)(k * 1000 + r * 10 + (int)(i % 7));
}

static double sum(int k, size_t i)
{
    double s = 0;
    for (int r = 0; r < size; ++r) {
        s += value(k, r, i);
    }
    return s;
}

static void fill(int k, double *in, double *out)
{
    for (size_t i = 0; i < N; ++i) {
        in[i]  = value(k, rank, i);
        out[i] = -1;
    }
}

static void check(const char *what, int k, const double *out)
{
    size_t bad = 0, first = 0;

    for (size_t i = 0; i < N; ++i) {
        if (out[i] != sum(k, i) && bad++ == 0) {
            first = i;
        }
    }
    CHECK(bad == 0, "%s: %zu wrong elements, first [%zu] = %g, expected %g", what, bad,
          first, out[first], sum(k, first));
}

/* Two large iallreduces; rank 0 waits for the first before posting the second. */
static void skewed_pair(int k, int skew_us)
{
    loom_request_t r[2];
    loom_status_t st;

    fill(k, in1, out1);
    fill(k + 1, in2, out2);
    if (rank == 0) {
        CHECK((st = loom_iallreduce(in1, out1, N, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD,
                                    &r[0])) == LOOM_OK, "iallreduce 1: %s", loom_strerror(st));
        CHECK((st = loom_wait(&r[0], NULL)) == LOOM_OK, "wait 1: %s", loom_strerror(st));
        CHECK((st = loom_iallreduce(in2, out2, N, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD,
                                    &r[1])) == LOOM_OK, "iallreduce 2: %s", loom_strerror(st));
        CHECK((st = loom_wait(&r[1], NULL)) == LOOM_OK, "wait 2: %s", loom_strerror(st));
    } else {
        usleep((useconds_t)skew_us);
        CHECK((st = loom_iallreduce(in1, out1, N, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD,
                                    &r[0])) == LOOM_OK, "iallreduce 1: %s", loom_strerror(st));
        CHECK((st = loom_iallreduce(in2, out2, N, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD,
                                    &r[1])) == LOOM_OK, "iallreduce 2: %s", loom_strerror(st));
        CHECK((st = loom_waitall(2, r, NULL)) == LOOM_OK, "waitall: %s", loom_strerror(st));
    }
    check("first large iallreduce", k, out1);
    check("second large iallreduce", k + 1, out2);
}

/* Small on-node collectives, the last rank late: they pair up by number. */
static void small_ones(int round)
{
    loom_status_t st;

    for (int j = 0; j < 3; ++j) {
        int32_t v = rank == size - 1 ? 42 + 10 * round + j : -1, x = rank + 1, y = 0;
        if (rank == size - 1) {
            usleep(100000);
        }
        CHECK((st = loom_bcast(&v, 1, LOOM_INT32, size - 1, LOOM_COMM_WORLD)) == LOOM_OK,
              "round %d bcast %d: %s", round, j, loom_strerror(st));
        CHECK(v == 42 + 10 * round + j, "round %d bcast %d: got %d, expected %d", round, j,
              (int)v, 42 + 10 * round + j);
        CHECK((st = loom_allreduce(&x, &y, 1, LOOM_INT32, LOOM_SUM, LOOM_COMM_WORLD)) ==
              LOOM_OK, "round %d allreduce %d: %s", round, j, loom_strerror(st));
        CHECK(y == size * (size + 1) / 2, "round %d allreduce %d: got %d, expected %d",
              round, j, (int)y, size * (size + 1) / 2);
    }
}

int main(void)
{
    loom_status_t st;

    if (loom_init(NULL, NULL) != LOOM_OK) {
        fprintf(stderr, "prog_cma_verdict: loom_init failed\n");
        return 1;
    }
    rank = loom_rank();
    size = loom_size();

    skewed_pair(1, 300000);   /* the verdict found by the first, known to rank 0 only */
    small_ones(0);
    skewed_pair(3, 100000);   /* known everywhere now */
    small_ones(1);
    /* blocking and nonblocking large calls, interleaved with small ones */
    fill(5, in1, out1);
    CHECK((st = loom_allreduce(in1, out1, N, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD)) ==
          LOOM_OK, "blocking allreduce: %s", loom_strerror(st));
    check("blocking large allreduce", 5, out1);
    small_ones(2);

    CHECK(loom_barrier(LOOM_COMM_WORLD) == LOOM_OK, "final barrier");
    if (failures == 0 && rank == 0) {
        printf("prog_cma_verdict: passed\n");
    }
    loom_finalize();
    return failures != 0;
}
