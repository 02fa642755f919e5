/*
 * prog_reduce_cma.c: reduce "cma" (collectives/reduce_cma.c), run by
 * test_reduce_cma.sh with LOOM_REDUCE_ALGORITHM=cma.
 *
 *   prog_reduce_cma data   every root: a large sum of doubles (several
 *                          chunks, exact: the values are small integers),
 *                          the same in place at the root, count 0, and a
 *                          non-commutative user op (affine maps x -> a x + b
 *                          over uint64, composed: operand order matters)
 *                          against the serial fold x0 op (x1 op (...)).
 *                          Prints "prog_reduce_cma: passed" on rank 0.
 *   prog_reduce_cma die    after one good large reduce (the CMA verdict is
 *                          known), the last rank posts a loom_ireduce to
 *                          root 0, drives it until it has published its
 *                          buffer and arrived, and exits; the others call
 *                          the reduce 0.3 s (or argv[2] ms) later, so the
 *                          root reads a dead process: every other rank's
 *                          reduce must fail (peer failure), not hang nor
 *                          succeed. Each prints "reduce after the death:
 *                          <status>" and exits 0 when it failed.
 *   prog_reduce_cma die_early  the same, the last rank exiting before it
 *                          calls the reduce (the others wait for its arrival).
 */
#include <loom.h>

#include "prog_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 300001            /* doubles: 2.3 MiB, five chunks of the fold */
#define M 40000             /* affine maps (16 bytes each): 625 KiB */

static int rank, size, failures;

static double din[N], dout[N];
static uint64_t ain[2 * M], aout[2 * M], aref[2 * M];

static double value(int root, int r, size_t i)
{
    return (double)(root * 100 + r * 10 + (int)(i % 7));
}

/* inout = in o inout: x -> a1 (a2 x + b2) + b1 */
static void compose(const void *in, void *inout, size_t count, loom_datatype_t dt, void *arg)
{
    const uint64_t *f = in;
    uint64_t *g = inout;

    (void)dt;
    (void)arg;
    for (size_t k = 0; k + 1 < count; k += 2) {
        g[k + 1] = f[k] * g[k + 1] + f[k + 1];
        g[k]     = f[k] * g[k];
    }
}

static void affine(int r, uint64_t *m)
{
    for (size_t k = 0; k < M; ++k) {
        m[2 * k]     = 3 + 2 * (uint64_t)(r + k % 5);
        m[2 * k + 1] = 7 * (uint64_t)r + k;
    }
}

static void check_sum(int root, int in_place)
{
    loom_status_t st;

    for (size_t i = 0; i < N; ++i) {
        din[i]  = value(root, rank, i);
        dout[i] = in_place && rank == root ? din[i] : -1;
    }
    st = loom_reduce(in_place && rank == root ? LOOM_IN_PLACE : din, dout, N, LOOM_DOUBLE,
                     LOOM_SUM, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "reduce root %d%s: %s", root, in_place ? " in place" : "",
          loom_strerror(st));
    for (size_t i = 0; rank == root && i < N; ++i) {
        double want = 0;
        for (int r = 0; r < size; ++r) {
            want += value(root, r, i);
        }
        if (dout[i] != want) {
            CHECK(0, "reduce root %d%s: [%zu] = %g, expected %g", root,
                  in_place ? " in place" : "", i, dout[i], want);
            break;
        }
    }
}

static void check_affine(loom_op_t op, int root, int in_place)
{
    loom_status_t st;

    affine(size - 1, aref);
    for (int r = size - 2; r >= 0; --r) {
        affine(r, ain);
        compose(ain, aref, 2 * M, LOOM_UINT64, NULL);
    }
    affine(rank, ain);
    if (in_place && rank == root) {
        memcpy(aout, ain, sizeof(ain));
    }
    st = loom_reduce(in_place && rank == root ? LOOM_IN_PLACE : ain, aout, 2 * M, LOOM_UINT64,
                     op, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "affine reduce root %d: %s", root, loom_strerror(st));
    CHECK(rank != root || memcmp(aout, aref, sizeof(aref)) == 0,
          "affine reduce root %d%s: not x0 o (x1 o ...)", root, in_place ? " in place" : "");
}

static void run_data(void)
{
    loom_op_t op;
    loom_status_t st;
    double x = 5, y = -1;

    CHECK(loom_op_create_unit(compose, NULL, 0, 16, &op) == LOOM_OK, "op create");
    for (int root = 0; root < size; ++root) {
        check_sum(root, 0);
        check_sum(root, 1);
        check_affine(op, root, root % 2);
        st = loom_reduce(&x, &y, 0, LOOM_DOUBLE, LOOM_SUM, root, LOOM_COMM_WORLD);
        CHECK(st == LOOM_OK && y == -1, "count 0 root %d: %s, recvbuf %g", root,
              loom_strerror(st), y);
    }
    loom_op_free(&op);
    CHECK(loom_barrier(LOOM_COMM_WORLD) == LOOM_OK, "final barrier");
}

static int run_die(int arrive, int delay_ms)
{
    loom_request_t req;
    loom_status_t st;
    int flag = 0;

    check_sum(0, 0);
    if (failures != 0) {
        return 1;
    }
    if (rank == size - 1) {
        for (size_t i = 0; i < N; ++i) {
            din[i] = 1;
        }
        if (arrive && loom_ireduce(din, NULL, N, LOOM_DOUBLE, LOOM_SUM, 0, LOOM_COMM_WORLD,
                                   &req) == LOOM_OK) {
            for (int k = 0; k < 3 && !flag; ++k) {
                (void)loom_test(&req, &flag, NULL);   /* publishes, arrives */
            }
        }
        _exit(0);
    }
    usleep((useconds_t)delay_ms * 1000);   /* the last rank is gone before the root reads */
    st = loom_reduce(din, dout, N, LOOM_DOUBLE, LOOM_SUM, 0, LOOM_COMM_WORLD);
    fprintf(stderr, "[rank %d] reduce after the death: %s\n", rank, loom_strerror(st));
    _exit(st == LOOM_OK ? 5 : 0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "data";

    if (loom_init(NULL, NULL) != LOOM_OK) {
        fprintf(stderr, "prog_reduce_cma: loom_init failed\n");
        return 1;
    }
    rank = loom_rank();
    size = loom_size();
    if (strcmp(mode, "die") == 0 || strcmp(mode, "die_early") == 0) {
        return run_die(strcmp(mode, "die") == 0, argc > 2 ? atoi(argv[2]) : 300);
    }
    run_data();
    if (failures == 0 && rank == 0) {
        printf("prog_reduce_cma: passed\n");
    }
    loom_finalize();
    return failures != 0;
}
