/*
 * prog_coll_rev15.c: data checks of the review of the session 15
 * collectives merge, run by test_coll_rev15.sh under forced algorithms.
 *
 *   self  alltoallv whose own block is larger (then smaller) on the send
 *         side than on the receive side, on every rank alike: an erroneous
 *         call (a rank's block to itself must match), which must fail on
 *         every rank with an error and write nothing past the receive
 *         block (a canary after it). alltoall "linear" copied the send
 *         side's count over the receive block, past the end of recvbuf.
 *   a2av  alltoallv with displacements in reverse rank order, zero counts
 *         to some peers and to itself, in place and not, then the uniform
 *         alltoall of 0 and 300 int32 in place: every block and every gap
 *         checked.
 *   zero  alltoallw, alltoallv and alltoall with every count zero and
 *         NULL buffers, in place and not (legal; nothing may be read or
 *         written): pairwise read the in-place snapshot up to the largest
 *         displacement of an empty block (a crash on NULL, an over-read
 *         otherwise); memcpy/memmove of 0 bytes from NULL is undefined
 *         (UBSan stops there).
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

#define CANARY 0x5a5a5a5a

/* the element k of the block rank q sends to rank r */
static int32_t val(int q, int r, size_t k)
{
    return (int32_t)(q * 1000003 + r * 1009 + (int)(k % 100003));
}

/* Own block: @p extra more (or, negative, fewer) elements sent than received. */
static void self_one(size_t n, int extra)
{
    size_t sc[64], sd[64], rc[64], rd[64], stot = 0, rtot = 0;
    int32_t *a, *b;
    loom_status_t st;

    for (int q = 0; q < size; ++q) {
        rc[q] = n;
        sc[q] = q == rank ? (size_t)((long)n + extra) : n;
        sd[q] = stot; stot += sc[q];
        rd[q] = rtot; rtot += rc[q];
    }
    /* our own block last on the receive side, the canary right after it */
    rd[rank] = rtot - n;
    for (int q = 0, at = 0; q < size; ++q) {
        if (q != rank) {
            rd[q] = (size_t)at * n;
            ++at;
        }
    }
    a = malloc((stot + 1) * 4);
    b = malloc((rtot + 1) * 4);
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < sc[q]; ++k) {
            a[sd[q] + k] = val(rank, q, k);
        }
    }
    for (size_t i = 0; i <= rtot; ++i) {
        b[i] = CANARY;
    }
    st = loom_alltoallv(a, sc, sd, b, rc, rd, LOOM_INT32, LOOM_COMM_WORLD);
    CHECK(st != LOOM_OK, "alltoallv n=%zu: own block %zu elements sent, %zu received, "
          "returned LOOM_OK", n, sc[rank], rc[rank]);
    CHECK(b[rtot] == CANARY, "alltoallv n=%zu: own block of %zu elements sent into %zu: "
          "the element after recvbuf was written", n, sc[rank], rc[rank]);
    free(a); free(b);
}

static void run_self(void)
{
    self_one(1000, 1);
    self_one(1000, 700);
    self_one(1000, -3);
    self_one(1, 1);
}

/* alltoallv: rank r sends (r + q) % 3 * n elements to q, the block for q
 * at the (p-1-q)-th place (reverse order), each followed by a 3-element gap */
static void a2av_one(size_t n, int in_place)
{
    size_t sc[64], sd[64], rc[64], rd[64], so = 0, ro = 0;
    int32_t *a, *b;

    for (int q = size - 1; q >= 0; --q) {
        sc[q] = (size_t)((rank + q) % 3) * n;
        rc[q] = (size_t)((q + rank) % 3) * n;
        sd[q] = so; so += sc[q] + 3;
        rd[q] = ro; ro += rc[q] + 3;
    }
    a = malloc(so * 4 + 4);
    b = malloc(ro * 4 + 4);
    for (size_t i = 0; i < ro; ++i) {
        b[i] = CANARY;
    }
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < sc[q]; ++k) {
            a[sd[q] + k] = val(rank, q, k);
            if (in_place) {
                b[rd[q] + k] = val(rank, q, k);   /* in place: sc == rc */
            }
        }
    }
    OKCALL(loom_alltoallv(in_place ? LOOM_IN_PLACE : a, sc, sd, b, rc, rd, LOOM_INT32,
                          LOOM_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
        for (size_t k = 0; k < rc[q]; ++k) {
            if (b[rd[q] + k] != val(q, rank, k)) {
                CHECK(0, "alltoallv n=%zu%s from %d [%zu]", n, in_place ? " in place" : "",
                      q, k);
                break;
            }
        }
        CHECK(b[rd[q] + rc[q]] == CANARY, "alltoallv n=%zu%s: the gap after the block from "
              "%d was written", n, in_place ? " in place" : "", q);
    }
    free(a); free(b);
}

static void a2a_in_place(size_t n)
{
    size_t tot = n * (size_t)size;
    int32_t *b = malloc(tot * 4 + 4);

    for (size_t i = 0; i < tot; ++i) {
        b[i] = val(rank, (int)(i / n), i % n);
    }
    b[tot] = CANARY;
    OKCALL(loom_alltoall(LOOM_IN_PLACE, b, n, LOOM_INT32, LOOM_COMM_WORLD));
    for (size_t i = 0; i < tot; ++i) {
        if (b[i] != val((int)(i / n), rank, i % n)) {
            CHECK(0, "alltoall in place n=%zu [%zu]", n, i);
            break;
        }
    }
    CHECK(b[tot] == CANARY, "alltoall in place n=%zu: written past the end", n);
    free(b);
}

static void run_a2av(void)
{
    static const size_t blocks[] = {0, 1, 100, 5000};

    for (size_t k = 0; k < sizeof(blocks) / sizeof(blocks[0]); ++k) {
        a2av_one(blocks[k], 0);
        a2av_one(blocks[k], 1);
    }
    a2a_in_place(1);
    a2a_in_place(300);
}

/* Every count zero and no buffer at all (NULL), in place and not: legal,
 * nothing to move; the algorithms must touch neither buffer. */
static void run_zero(void)
{
    size_t z[64], d[64];
    loom_datatype_t t[64];

    for (int q = 0; q < size; ++q) {
        z[q] = 0;
        d[q] = (size_t)q * 7;   /* ignored with a zero count */
        t[q] = LOOM_INT32;
    }
    OKCALL(loom_alltoallw(NULL, z, d, t, NULL, z, d, t, LOOM_COMM_WORLD));
    OKCALL(loom_alltoallw(LOOM_IN_PLACE, z, d, t, NULL, z, d, t, LOOM_COMM_WORLD));
    OKCALL(loom_alltoallv(NULL, z, d, NULL, z, d, LOOM_INT32, LOOM_COMM_WORLD));
    OKCALL(loom_alltoallv(LOOM_IN_PLACE, z, d, NULL, z, d, LOOM_INT32, LOOM_COMM_WORLD));
    OKCALL(loom_alltoall(NULL, NULL, 0, LOOM_INT32, LOOM_COMM_WORLD));
    OKCALL(loom_alltoall(LOOM_IN_PLACE, NULL, 0, LOOM_INT32, LOOM_COMM_WORLD));
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
    } else if (strcmp(mode, "self") == 0) {
        run_self();
    } else if (strcmp(mode, "a2av") == 0) {
        run_a2av();
    } else if (strcmp(mode, "zero") == 0) {
        run_zero();
    } else {
        CHECK(0, "usage: prog_coll_rev15 self|a2av|zero");
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
        printf("prog_coll_rev15 %s: passed on %d ranks\n", mode, size);
    }
    loom_finalize();
    return failures;
}
