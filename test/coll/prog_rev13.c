/*
 * prog_rev13.c: cases found in the review of the session 13 merge (scatter
 * and gather "stage", rules that apply only when ranks outnumber cores),
 * run by test_coll_rev13.sh. Each case prints "<case>: passed" on rank 0
 * when every rank's data were right; the exit status counts failures.
 *
 *   prog_rev13 verdict   the segment's set-up verdict reaches the ranks at
 *                        different times: an ibarrier (the first on-node
 *                        operation of a fresh dup) is started by every rank,
 *                        rank 0 waits for it (so it knows the verdict), the
 *                        others do not, then every rank calls an allgather
 *                        of 32 KiB blocks (the table's rule for ranks that
 *                        share cores: recursive doubling, a message
 *                        algorithm). The driver makes rank 1 fail the
 *                        mapping (LOOM_COLL_SHM_FAULT=1). A rank's choice of
 *                        a message algorithm must not hang on whether it
 *                        has heard the verdict yet; every block is checked.
 *   prog_rev13 chain N   N rounds of bcast "stage", scatter "stage" and
 *                        gather "stage" back to back with no barrier, the
 *                        root moving, one rank slow in turn; every byte.
 */
#include <loom.h>

#include "prog_check.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, failures;

static unsigned char pat(unsigned k, int from, int to, size_t i)
{
    return (unsigned char)(k * 37u + (unsigned)from * 11u + (unsigned)to * 5u + i * 3u +
                           (i >> 9));
}

static void fill(unsigned char *b, unsigned k, int from, int to, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        b[i] = pat(k, from, to, i);
    }
}

/* the first wrong byte of @p b, or -1 */
static long bad(const unsigned char *b, unsigned k, int from, int to, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (b[i] != pat(k, from, to, i)) {
            return (long)i;
        }
    }
    return -1;
}

static int run_verdict(void)
{
    size_t blk = 32 * 1024;
    unsigned char *sb = malloc(blk), *rb = malloc(blk * (size_t)size);
    loom_comm_t comm;
    loom_request_t req;
    loom_status_t st;
    long at;

    CHECK(sb != NULL && rb != NULL, "out of memory");
    if (sb == NULL || rb == NULL || loom_comm_dup(LOOM_COMM_WORLD, &comm) != LOOM_OK) {
        return 1;
    }
    fill(sb, 1, rank, -1, blk);
    memset(rb, 0xee, blk * (size_t)size);
    CHECK((st = loom_ibarrier(comm, &req)) == LOOM_OK, "ibarrier: %s", loom_strerror(st));
    if (rank == 0) {
        CHECK((st = loom_wait(&req, NULL)) == LOOM_OK, "wait: %s", loom_strerror(st));
    }
    st = loom_allgather(sb, rb, blk, LOOM_BYTE, comm);
    CHECK(st == LOOM_OK, "allgather of %zu-byte blocks: %s", blk, loom_strerror(st));
    for (int q = 0; st == LOOM_OK && q < size; ++q) {
        at = bad(rb + (size_t)q * blk, 1, q, -1, blk);
        CHECK(at < 0, "allgather: block of rank %d wrong at byte %ld", q, at);
    }
    if (rank != 0) {
        CHECK((st = loom_wait(&req, NULL)) == LOOM_OK, "wait: %s", loom_strerror(st));
    }
    CHECK((st = loom_barrier(comm)) == LOOM_OK, "barrier: %s", loom_strerror(st));
    loom_comm_free(&comm);
    free(sb);
    free(rb);
    return failures != 0;
}

/* rank (k + c) % p yields before call c of round k, now and then sleeps */
static void slow(unsigned k, int c)
{
    if ((int)((k + (unsigned)c) % (unsigned)size) == rank) {
        if (k % 5 == 0) {
            usleep(100);
        } else {
            sched_yield();
        }
    }
}

/* One round: bcast, scatter, gather through the stage, no barrier. */
static void chain_round(unsigned k, unsigned char *a, unsigned char *b, size_t blk)
{
    int root = (int)(k % (unsigned)size), r2 = (int)((k + 1) % (unsigned)size);
    size_t whole = blk * (size_t)size;
    loom_status_t st;

    slow(k, 0);
    fill(a, k, root, -1, whole);
    if (rank != root) {
        memset(a, 0, whole);
    }
    CHECK((st = loom_bcast(a, whole, LOOM_BYTE, root, LOOM_COMM_WORLD)) == LOOM_OK,
          "round %u bcast: %s", k, loom_strerror(st));
    CHECK(bad(a, k, root, -1, whole) < 0, "round %u: bcast of %zu from %d wrong at %ld", k,
          whole, root, bad(a, k, root, -1, whole));
    slow(k, 1);
    for (int q = 0; q < size && rank == r2; ++q) {
        fill(a + (size_t)q * blk, k, r2, q, blk);
    }
    memset(b, 0, blk);
    CHECK((st = loom_scatter(a, b, blk, LOOM_BYTE, r2, LOOM_COMM_WORLD)) == LOOM_OK,
          "round %u scatter: %s", k, loom_strerror(st));
    CHECK(bad(b, k, r2, rank, blk) < 0, "round %u: scatter block from %d wrong at %ld", k, r2,
          bad(b, k, r2, rank, blk));
    slow(k, 2);
    fill(b, k + 1, rank, root, blk);
    memset(a, 0, whole);
    CHECK((st = loom_gather(b, a, blk, LOOM_BYTE, root, LOOM_COMM_WORLD)) == LOOM_OK,
          "round %u gather: %s", k, loom_strerror(st));
    for (int q = 0; q < size && rank == root; ++q) {
        CHECK(bad(a + (size_t)q * blk, k + 1, q, root, blk) < 0,
              "round %u: gather block of %d wrong at %ld", k, q,
              bad(a + (size_t)q * blk, k + 1, q, root, blk));
    }
}

static int run_chain(unsigned iters)
{
    /* p x block just under the 64 KiB stage, above the 8 KiB slot */
    size_t blk = (64 * 1024) / (size_t)size - 3;
    unsigned char *a = malloc(64 * 1024), *b = malloc(blk);

    CHECK(a != NULL && b != NULL, "out of memory");
    for (unsigned k = 0; a != NULL && b != NULL && k < iters && failures < 10; ++k) {
        chain_round(k, a, b, blk);
    }
    free(a);
    free(b);
    return failures != 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rc = 2;

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 2;
    }
    rank = loom_rank();
    size = loom_size();
    if (strcmp(mode, "verdict") == 0) {
        rc = run_verdict();
    } else if (strcmp(mode, "chain") == 0) {
        rc = run_chain(argc > 2 ? (unsigned)atoi(argv[2]) : 200);
    } else {
        CHECK(0, "usage: prog_rev13 verdict | chain [N]");
    }
    if (failures) {
        fprintf(stderr, "rank %d: %d failures\n", rank, failures);
    } else if (rank == 0) {
        printf("%s: passed\n", mode);
    }
    loom_finalize();
    return rc;
}
