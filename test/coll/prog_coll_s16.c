/*
 * prog_coll_s16.c: data checks for the session 16 collective paths, run
 * by test_coll_s16.sh under forced algorithms and the table.
 *
 *   a2a   alltoall of int32 blocks around the shm rule's new limits (the
 *         slot holds p x block <= 8 KiB: 256, 512, 513, 1023, 1024 and
 *         1025 elements, i.e. 1 KiB to just above 4 KiB), 0 elements and
 *         16384 (64 KiB: pairwise/linear's rendezvous), each three times
 *         back to back through the blocking call (shm's fast member on
 *         repeated slots), once in place, and once through ialltoall (the
 *         request path): every block checked, and the bytes past recvbuf
 *         untouched. Also alltoallv with zero and unequal counts and gaps
 *         (pairwise's own block now moves after the first window is posted).
 *
 * Exit status: the number of failures (0: passed).
 */
#include <loom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

#define PROG_CHECK_PRINT_MAX 10   /* failures printed; all are counted */
#include "prog_check.h"

/* the element k of the block rank q sends to rank r (call j) */
static int32_t val(int q, int r, size_t k, int j)
{
    return (int32_t)(q * 1000003 + r * 1009 + (int)(k % 100003) + j * 7);
}

static void fill(int32_t *a, size_t n, int j)
{
    for (int r = 0; r < size; ++r) {
        for (size_t k = 0; k < n; ++k) {
            a[(size_t)r * n + k] = val(rank, r, k, j);
        }
    }
}

/* recvbuf b (n per block, a guard word past it) after call j */
static void check(const int32_t *b, size_t n, int j, const char *how)
{
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < n; ++k) {
            if (b[(size_t)q * n + k] != val(q, rank, k, j)) {
                CHECK(0, "alltoall %s n=%zu call %d: block from %d [%zu] is %d, not %d", how,
                      n, j, q, k, (int)b[(size_t)q * n + k], (int)val(q, rank, k, j));
                return;
            }
        }
    }
    CHECK(b[(size_t)size * n] == (int32_t)0x5a5a5a5a, "alltoall %s n=%zu call %d: the word "
          "past recvbuf was written", how, n, j);
}

static void a2a_one(size_t n)
{
    size_t tot = n * (size_t)size + 1;
    int32_t *a = malloc(tot * 4), *b = malloc(tot * 4);
    loom_request_t req;

    for (int j = 0; j < 3; ++j) {   /* blocking, back to back */
        fill(a, n, j);
        memset(b, 0x5a, tot * 4);
        OKCALL(loom_alltoall(a, b, n, LOOM_INT32, LOOM_COMM_WORLD));
        check(b, n, j, "blocking");
    }
    fill(b, n, 3);                  /* in place */
    OKCALL(loom_alltoall(LOOM_IN_PLACE, b, n, LOOM_INT32, LOOM_COMM_WORLD));
    check(b, n, 3, "in place");
    fill(a, n, 4);                  /* the request path */
    memset(b, 0x5a, tot * 4);
    OKCALL(loom_ialltoall(a, b, n, LOOM_INT32, LOOM_COMM_WORLD, &req));
    OKCALL(loom_wait(&req, NULL));
    check(b, n, 4, "ialltoall");
    free(a); free(b);
}

/* alltoallv: rank r sends (r + q) % 3 * n elements to q (zeros too), each
 * block 3 elements after the one before */
static void a2av_one(size_t n)
{
    size_t sc[64], sd[64], rc[64], rd[64], so = 0, ro = 0;
    int32_t *a, *b;

    for (int q = 0; q < size; ++q) {
        sc[q] = (size_t)((rank + q) % 3) * n;
        rc[q] = (size_t)((q + rank) % 3) * n;
        sd[q] = so; so += sc[q] + 3;
        rd[q] = ro; ro += rc[q] + 3;
    }
    a = malloc(so * 4 + 4);
    b = malloc(ro * 4 + 4);
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < sc[q]; ++k) {
            a[sd[q] + k] = val(rank, q, k, 0);
        }
    }
    memset(b, 0x5a, ro * 4 + 4);
    OKCALL(loom_alltoallv(a, sc, sd, b, rc, rd, LOOM_INT32, LOOM_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < rc[q]; ++k) {
            if (b[rd[q] + k] != val(q, rank, k, 0)) {
                CHECK(0, "alltoallv n=%zu from %d [%zu]", n, q, k);
                break;
            }
        }
        CHECK(b[rd[q] + rc[q]] == (int32_t)0x5a5a5a5a, "alltoallv n=%zu: the gap after the "
              "block from %d was written", n, q);
    }
    free(a); free(b);
}

static void run_a2a(void)
{
    static const size_t blocks[] = {0, 256, 512, 513, 1023, 1024, 1025, 16384};

    for (size_t k = 0; k < sizeof(blocks) / sizeof(blocks[0]); ++k) {
        a2a_one(blocks[k]);
        a2av_one(blocks[k]);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 1;
    }
    rank = loom_comm_rank(LOOM_COMM_WORLD);
    size = loom_comm_size(LOOM_COMM_WORLD);
    if (size > 64) {
        CHECK(0, "at most 64 ranks");
    } else if (strcmp(mode, "a2a") == 0) {
        run_a2a();
    } else {
        CHECK(0, "usage: prog_coll_s16 a2a");
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
        printf("prog_coll_s16 %s: passed on %d ranks\n", mode, size);
    }
    loom_finalize();
    return failures != 0;
}
