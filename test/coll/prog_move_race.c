/*
 * prog_move_race.c: the eager shm gather and scatter and the blocking fast
 * members of gather, scatter, allgather and alltoall (session 12) under
 * back-to-back calls, run by test_coll_move_race.sh.
 *
 *   prog_move_race stress ITERS  ITERS rounds; round k picks a block size
 *                         from a list at and around the thresholds (the
 *                         8-byte control-line field, 1 KiB, 8 KiB / p, 8 KiB,
 *                         the scatter stage's 64 KiB / p)
 *                         and a root k % p, then runs gather, scatter,
 *                         allgather, alltoall (and a bcast now and then)
 *                         back to back, the root's input changing every
 *                         call and in place at the root every other round.
 *                         Ranks take turns at being slow (a yield or a
 *                         short sleep before a call), so a contributor runs
 *                         a call ahead of a root still copying out, a root
 *                         refills its slot while a reader is behind, and
 *                         the roots change under ranks that are not done.
 *                         Every byte is checked (a pattern of round, call,
 *                         sender, receiver and offset); prints
 *                         "stress: passed" on rank 0.
 *   prog_move_race diverge KIND ROOT BYTES  run by the driver with other
 *                         settings on some ranks (LOOM_OVERSUBSCRIBED,
 *                         LOOM_<KIND>_ALGORITHM), so that the ranks' tables
 *                         answer differently: after a warm-up barrier, one
 *                         KIND (gather|scatter|allgather|alltoall) of BYTES
 *                         per block from ROOT, then two barriers; each rank
 *                         prints "diverged KIND: <status>" ("wrong data"
 *                         when it returned success with bytes that are not
 *                         the senders'), "barrier after: <status>" and
 *                         "second barrier: <status>" (the second may not
 *                         come: its peer may have left after failing).
 *                         MOVE_RACE_BYTES in a rank's environment: its
 *                         BYTES (ranks passing different counts).
 *                         A 5th argument LATE: that rank calls KIND 50 ms
 *                         after the others (so a rank on the segment finds
 *                         the other's message before the other finds it).
 */
#include <loom.h>

#include "prog_check.h"

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXB ((size_t)65537)   /* a block of the scatter stage's limit at p = 1, + 1 */

static int rank, size, failures;

/* byte @p i of the block sender @p from gives @p to in round @p k, call @p c */
static unsigned char pat(unsigned k, int c, int from, int to, size_t i)
{
    return (unsigned char)(k * 131u + (unsigned)c * 29u + (unsigned)from * 17u +
                           (unsigned)to * 7u + i * 3u + (i >> 8));
}

static void fill_block(unsigned char *b, unsigned k, int c, int from, int to, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        b[i] = pat(k, c, from, to, i);
    }
}

/* the first wrong byte of the block from @p from, or -1 */
static long bad_block(const unsigned char *b, unsigned k, int c, int from, int to, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (b[i] != pat(k, c, from, to, i)) {
            return (long)i;
        }
    }
    return -1;
}

/* Rank (k + 1) % p is slow in round k: a yield, every 7th round a 50-200 us sleep. */
static void maybe_slow(unsigned k, int c)
{
    if ((int)((k + (unsigned)c) % (unsigned)size) != rank) {
        return;
    }
    if (k % 7 == 0) {
        nanosleep(&(struct timespec){0, 50000 + 50000 * (long)(k % 4)}, NULL);
    } else {
        sched_yield();
    }
}

/* gather of @p n bytes per rank from @p root (in place at the root if @p inpl) */
static void race_gather(unsigned k, size_t n, int root, int inpl, unsigned char *a,
                        unsigned char *b)
{
    loom_status_t st;
    long at;

    maybe_slow(k, 0);
    fill_block(a, k, 0, rank, root, n);
    memset(b, 0xee, n * (size_t)size);
    if (rank == root && inpl) {
        memcpy(b + (size_t)root * n, a, n);
    }
    st = loom_gather(rank == root && inpl ? LOOM_IN_PLACE : a, rank == root ? b : NULL, n,
                     LOOM_BYTE, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "round %u gather %zu B root %d: %s", k, n, root, loom_strerror(st));
    for (int q = 0; rank == root && st == LOOM_OK && q < size; ++q) {
        at = bad_block(b + (size_t)q * n, k, 0, q, root, n);
        CHECK(at < 0, "round %u gather %zu B root %d%s: block of rank %d wrong at byte %ld",
              k, n, root, inpl ? " in place" : "", q, at);
    }
}

/* scatter of @p n bytes per rank from @p root (in place at the root if @p inpl) */
static void race_scatter(unsigned k, size_t n, int root, int inpl, unsigned char *a,
                         unsigned char *b)
{
    loom_status_t st;
    long at;

    maybe_slow(k, 1);
    if (rank == root) {
        for (int q = 0; q < size; ++q) {
            fill_block(a + (size_t)q * n, k, 1, root, q, n);
        }
    }
    memset(b, 0xee, n);
    st = loom_scatter(rank == root ? a : NULL, rank == root && inpl ? LOOM_IN_PLACE : b, n,
                      LOOM_BYTE, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "round %u scatter %zu B root %d: %s", k, n, root, loom_strerror(st));
    if (st == LOOM_OK && !(rank == root && inpl)) {
        at = bad_block(b, k, 1, root, rank, n);
        CHECK(at < 0, "round %u scatter %zu B root %d: wrong at byte %ld", k, n, root, at);
    }
    if (rank == root) {   /* the root's input, changed at once: nobody may read it now */
        memset(a, 0x5a, n * (size_t)size);
    }
}

static void race_allgather(unsigned k, size_t n, int inpl, unsigned char *a, unsigned char *b)
{
    loom_status_t st;
    long at;

    maybe_slow(k, 2);
    memset(b, 0xee, n * (size_t)size);
    fill_block(inpl ? b + (size_t)rank * n : a, k, 2, rank, 0, n);
    st = loom_allgather(inpl ? LOOM_IN_PLACE : a, b, n, LOOM_BYTE, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "round %u allgather %zu B: %s", k, n, loom_strerror(st));
    for (int q = 0; st == LOOM_OK && q < size; ++q) {
        at = bad_block(b + (size_t)q * n, k, 2, q, 0, n);
        CHECK(at < 0, "round %u allgather %zu B: block of rank %d wrong at byte %ld", k, n,
              q, at);
    }
    memset(a, 0x5a, n);
}

static void race_alltoall(unsigned k, size_t n, unsigned char *a, unsigned char *b)
{
    loom_status_t st;
    long at;

    maybe_slow(k, 3);
    for (int q = 0; q < size; ++q) {
        fill_block(a + (size_t)q * n, k, 3, rank, q, n);
    }
    memset(b, 0xee, n * (size_t)size);
    st = loom_alltoall(a, b, n, LOOM_BYTE, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "round %u alltoall %zu B: %s", k, n, loom_strerror(st));
    for (int q = 0; st == LOOM_OK && q < size; ++q) {
        at = bad_block(b + (size_t)q * n, k, 3, q, rank, n);
        CHECK(at < 0, "round %u alltoall %zu B: block from rank %d wrong at byte %ld", k, n,
              q, at);
    }
    memset(a, 0x5a, n * (size_t)size);
}

static int run_stress(unsigned iters)
{
    size_t p = (size_t)size, slot = 8192 / p, stage = 65536 / p;
    size_t sizes[] = { 1, 7, 8, 9, 16, 1023, 1024, 1025, slot - 1, slot, slot + 1,
                       4096, 8191, 8192, 8193, stage - 1, stage, stage + 1 };
    size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
    unsigned char *a = malloc(MAXB * p), *b = malloc(MAXB * p);

    if (a == NULL || b == NULL) {
        CHECK(0, "out of memory");
        return 1;
    }
    for (unsigned k = 0; k < iters && failures < 20; ++k) {
        size_t n = sizes[k % nsizes];
        int root = (int)(k % p), inpl = (k / nsizes) % 2;

        race_gather(k, n, root, inpl, a, b);
        race_scatter(k, n, (root + 1) % size, inpl, a, b);
        race_gather(k + 1, n, (root + 1) % size, !inpl, a, b);
        if (n * p <= 65536) {   /* the eager scatter's range (shm, stage) */
            race_scatter(k + 1, n, root, !inpl, a, b);
        }
        if (n * p <= 8192) {    /* the shm alltoall's range */
            race_alltoall(k, n, a, b);
        }
        race_allgather(k, n, inpl, a, b);
        if (k % 5 == 0) {       /* an eager bcast between the eager calls */
            unsigned char x[16];
            memset(x, rank == root ? (int)k : 0, sizeof(x));
            CHECK(loom_bcast(x, sizeof(x), LOOM_BYTE, root, LOOM_COMM_WORLD) == LOOM_OK &&
                  x[15] == (unsigned char)k, "round %u bcast", k);
        }
    }
    CHECK(loom_barrier(LOOM_COMM_WORLD) == LOOM_OK, "final barrier");
    free(a);
    free(b);
    if (rank == 0 && failures == 0) {
        printf("stress: passed (%u rounds, np %d)\n", iters, size);
    }
    return failures != 0;
}

/* diverge mode: one call the ranks may select differently (see the top) */
static int run_diverge(const char *kind, int root, size_t n, int late)
{
    unsigned char *a = calloc(MAXB, (size_t)size), *b = calloc(MAXB, (size_t)size);
    int c = -1, wrong = 0;
    loom_status_t st = LOOM_OK;

    if (a == NULL || b == NULL) {
        return 2;
    }
    (void)loom_barrier(LOOM_COMM_WORLD);     /* the segment exists from here */
    (void)loom_barrier(LOOM_COMM_WORLD);
    if (rank == late) {
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    if (getenv("MOVE_RACE_BYTES") != NULL) {   /* this rank's own count */
        n = (size_t)atol(getenv("MOVE_RACE_BYTES"));
    }
    if (strcmp(kind, "gather") == 0) {
        c = 0;
        fill_block(a, 1, c, rank, root, n);
        st = loom_gather(a, b, n, LOOM_BYTE, root, LOOM_COMM_WORLD);
        for (int q = 0; st == LOOM_OK && rank == root && q < size; ++q) {
            wrong |= bad_block(b + (size_t)q * n, 1, c, q, root, n) >= 0;
        }
    } else if (strcmp(kind, "scatter") == 0) {
        c = 1;
        for (int q = 0; q < size; ++q) {
            fill_block(a + (size_t)q * n, 1, c, root, q, n);
        }
        st = loom_scatter(a, b, n, LOOM_BYTE, root, LOOM_COMM_WORLD);
        wrong = st == LOOM_OK && bad_block(b, 1, c, root, rank, n) >= 0;
    } else if (strcmp(kind, "allgather") == 0) {
        c = 2;
        fill_block(a, 1, c, rank, 0, n);
        st = loom_allgather(a, b, n, LOOM_BYTE, LOOM_COMM_WORLD);
        for (int q = 0; st == LOOM_OK && q < size; ++q) {
            wrong |= bad_block(b + (size_t)q * n, 1, c, q, 0, n) >= 0;
        }
    } else if (strcmp(kind, "alltoall") == 0) {
        c = 3;
        for (int q = 0; q < size; ++q) {
            fill_block(a + (size_t)q * n, 1, c, rank, q, n);
        }
        st = loom_alltoall(a, b, n, LOOM_BYTE, LOOM_COMM_WORLD);
        for (int q = 0; st == LOOM_OK && q < size; ++q) {
            wrong |= bad_block(b + (size_t)q * n, 1, c, q, rank, n) >= 0;
        }
    }
    CHECK(c >= 0, "unknown diverge kind '%s'", kind);
    fprintf(stderr, "[rank %d] diverged %s: %s\n", rank, kind,
            wrong ? "wrong data" : loom_strerror(st));
    st = loom_barrier(LOOM_COMM_WORLD);
    fprintf(stderr, "[rank %d] barrier after: %s\n", rank, loom_strerror(st));
    st = loom_barrier(LOOM_COMM_WORLD);
    fprintf(stderr, "[rank %d] second barrier: %s\n", rank, loom_strerror(st));
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "stress";
    int rc = 2;

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 2;
    }
    rank = loom_rank();
    size = loom_size();
    if (strcmp(mode, "stress") == 0) {
        rc = run_stress(argc > 2 ? (unsigned)atoi(argv[2]) : 300);
    } else if (strcmp(mode, "diverge") == 0 && argc > 4) {
        rc = run_diverge(argv[2], atoi(argv[3]), (size_t)atol(argv[4]),
                         argc > 5 ? atoi(argv[5]) : -1);
    } else {
        CHECK(0, "usage: prog_move_race stress [ITERS] | diverge KIND ROOT BYTES [LATE]");
    }
    if (failures) {
        fprintf(stderr, "rank %d: %d failures\n", rank, failures);
    }
    loom_finalize();
    return rc;
}
