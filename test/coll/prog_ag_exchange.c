/*
 * prog_ag_exchange.c: allgather(v) data through the message algorithms
 * (recursive_doubling, ring: forced by test_coll_ag.sh), which send the own
 * block straight from sendbuf in their first exchange and copy it into the
 * result meanwhile (an extra rank of a non-power-of-two recursive doubling
 * gets it back from its buddy instead).
 *
 * For block sizes from 1 B to 1 MiB (eager and rendezvous on every
 * transport): the receive buffer is poisoned, the call made blocking, in
 * place, nonblocking (two in flight on different buffers) and as an
 * allgatherv with unequal blocks; every byte of every block is checked, and
 * sendbuf must come back unchanged. Prints "prog_ag_exchange: passed".
 *   prog_ag_exchange [max_block_bytes]
 */
#include <loom.h>

#include "prog_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

/* byte i of rank @p from's block in call @p call */
static unsigned char pat(int from, int call, size_t n, size_t i)
{
    return (unsigned char)(from * 29 + call * 7 + n * 3 + i * 13 + (i >> 9));
}

static void fill(unsigned char *b, int from, int call, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        b[i] = pat(from, call, n, i);
    }
}

/* 0 or 1 failure: the first wrong byte of the block of rank @p from */
static void check(const unsigned char *b, int from, int call, size_t n, const char *what)
{
    for (size_t i = 0; i < n; ++i) {
        if (b[i] != pat(from, call, n, i)) {
            CHECK(0, "%s, %zu-byte blocks: block of rank %d, byte %zu is %u, expected %u", what,
                  n, from, i, b[i], pat(from, call, n, i));
            return;
        }
    }
}

static void check_all(const unsigned char *r, int call, size_t n, const char *what)
{
    for (int q = 0; q < size; ++q) {
        check(r + (size_t)q * n, q, call, n, what);
    }
}

static void ag_plain(unsigned char *s, unsigned char *r, size_t n)
{
    loom_status_t st;

    fill(s, rank, 1, n);
    memset(r, 0xa5, n * (size_t)size);
    st = loom_allgather(s, r, n, LOOM_BYTE, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "allgather %zu B: %s", n, loom_strerror(st));
    check_all(r, 1, n, "allgather");
    check(s, rank, 1, n, "allgather sendbuf");
    memset(r, 0x5a, n * (size_t)size);
    fill(r + (size_t)rank * n, rank, 2, n);
    st = loom_allgather(LOOM_IN_PLACE, r, n, LOOM_BYTE, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "allgather in place %zu B: %s", n, loom_strerror(st));
    check_all(r, 2, n, "allgather in place");
}

static void ag_nonblocking(unsigned char *s, unsigned char *r, size_t n)
{
    unsigned char *s2 = s + n, *r2 = r + n * (size_t)size;
    loom_request_t q1, q2;
    loom_status_t st;

    fill(s, rank, 3, n);
    fill(s2, rank, 4, n);
    memset(r, 0x11, 2 * n * (size_t)size);
    st = loom_iallgather(s, r, n, LOOM_BYTE, LOOM_COMM_WORLD, &q1);
    CHECK(st == LOOM_OK, "iallgather #1 %zu B: %s", n, loom_strerror(st));
    st = loom_iallgather(s2, r2, n, LOOM_BYTE, LOOM_COMM_WORLD, &q2);
    CHECK(st == LOOM_OK, "iallgather #2 %zu B: %s", n, loom_strerror(st));
    st = loom_wait(&q2, NULL);
    CHECK(st == LOOM_OK, "wait iallgather #2 %zu B: %s", n, loom_strerror(st));
    st = loom_wait(&q1, NULL);
    CHECK(st == LOOM_OK, "wait iallgather #1 %zu B: %s", n, loom_strerror(st));
    check_all(r, 3, n, "iallgather #1");
    check_all(r2, 4, n, "iallgather #2");
    check(s, rank, 3, n, "iallgather #1 sendbuf");
}

/* blocks of n + q*7 bytes (q = rank), with a gap of 3 bytes between them */
static void agv(unsigned char *s, unsigned char *r, size_t n)
{
    size_t cnt[64], dsp[64], off = 0;
    loom_status_t st;

    for (int q = 0; q < size; ++q) {
        cnt[q] = n + (size_t)q * 7;
        dsp[q] = off;
        off += cnt[q] + 3;
    }
    fill(s, rank, 5, cnt[rank]);
    memset(r, 0x3c, off);
    st = loom_allgatherv(s, cnt[rank], r, cnt, dsp, LOOM_BYTE, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "allgatherv %zu B: %s", n, loom_strerror(st));
    for (int q = 0; q < size; ++q) {
        check(r + dsp[q], q, 5, cnt[q], "allgatherv");
        CHECK(r[dsp[q] + cnt[q]] == 0x3c, "allgatherv %zu B: the gap after block %d was written",
              n, q);
    }
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? (size_t)atol(argv[1]) : (size_t)1 << 20;
    static const size_t sizes[] = { 1, 100, 4099, 65536, 300001, (size_t)1 << 20 };
    unsigned char *s, *r;
    int rc;

    if (loom_init(NULL, NULL) != LOOM_OK) {
        fprintf(stderr, "prog_ag_exchange: loom_init failed\n");
        return 1;
    }
    rank = loom_rank();
    size = loom_size();
    s = malloc(2 * (max + 64 * 8));
    r = malloc(2 * (max + 64 * 8) * (size_t)size);
    if (size > 64 || s == NULL || r == NULL) {
        fprintf(stderr, "prog_ag_exchange: out of memory or more than 64 ranks\n");
        return 1;
    }
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && sizes[k] <= max; ++k) {
        ag_plain(s, r, sizes[k]);
        ag_nonblocking(s, r, sizes[k]);
        agv(s, r, sizes[k]);
    }
    if (failures == 0 && rank == 0) {
        printf("prog_ag_exchange: passed\n");
    }
    rc = failures != 0;
    free(s);
    free(r);
    loom_finalize();
    return rc;
}
