/*
 * prog_bcast_cma.c: bcast "cma" (collectives/bcast_cma.c), run by
 * test_coll_cma2.sh with LOOM_BCAST_ALGORITHM=cma (and with the table).
 *
 *   prog_bcast_cma data   every root: sizes around the shm limit and up to
 *                         2.3 MiB (odd byte counts, doubles), each checked
 *                         byte for byte on every rank against the root's
 *                         pattern; a small (eager shm) bcast straight after
 *                         a large one and the other way round (the catch-up
 *                         after a cma bcast whose non-roots leave early);
 *                         two ibcasts in flight with different roots; count
 *                         0; a large reduce and allreduce in between.
 *                         Prints "prog_bcast_cma: passed" on rank 0.
 *   prog_bcast_cma die    after one good large bcast (the CMA verdict is
 *                         known), the last rank posts a loom_ibcast from
 *                         root 0, drives it until it has arrived, and
 *                         exits; the others call the bcast argv[2] ms
 *                         later: the root waits for a reader that is gone
 *                         and must fail (peer failure), not hang nor succeed.
 *   prog_bcast_cma die_root  the same with the last rank as the root: it
 *                         publishes its buffer and exits; the readers read
 *                         a dead process and must fail.
 *   prog_bcast_cma die_early the last rank exits before calling the bcast.
 * Each survivor of a die mode prints "bcast after the death: <status>" and
 * exits 0 when its bcast failed.
 *   prog_bcast_cma diverge ROOT BYTES  run by the driver with a different
 *                         LOOM_BCAST_ALGORITHM (or LOOM_OVERSUBSCRIBED) per
 *                         rank: after a large bcast that every rank runs
 *                         alike, one bcast of BYTES from ROOT, then a
 *                         barrier; each rank prints "diverged bcast: <st>"
 *                         and "barrier after: <st>". A non-root that
 *                         returns success with bytes that are not the
 *                         root's prints "diverged bcast: wrong data" (the
 *                         ranks ran different algorithms of one signature).
 *   prog_bcast_cma after  a reduce (eager shm) whose rank 1 passes another
 *                         count, then a large (cma) bcast, which every rank
 *                         must fail (rank 1 and up arrive absent), then a
 *                         barrier and a large bcast, which must work again;
 *                         prints "after: passed" on rank 0.
 *   prog_bcast_cma efault the root's buffer ends in 8 unreadable pages
 *                         (PROT_NONE): each reader's process_vm_readv reads
 *                         the readable part and then fails (EFAULT; at np 2
 *                         the root's process_vm_writev of the second half
 *                         does); every rank prints "efault bcast: <status>".
 */
#include <loom.h>

#include "prog_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAXB ((size_t)2400001)

static int rank, size, failures;
static unsigned char buf[MAXB], buf2[MAXB];

static unsigned char pattern(int root, size_t n, size_t i)
{
    return (unsigned char)(root * 31 + n * 7 + i * 13 + (i >> 12));
}

static void fill(unsigned char *b, int root, size_t n, int mine)
{
    for (size_t i = 0; i < n; ++i) {
        b[i] = mine ? pattern(root, n, i) : (unsigned char)~pattern(root, n, i);
    }
}

static void check(const unsigned char *b, int root, size_t n, const char *what)
{
    for (size_t i = 0; i < n; ++i) {
        if (b[i] != pattern(root, n, i)) {
            CHECK(0, "%s root %d, %zu bytes: byte %zu is %u, expected %u", what, root, n, i,
                  b[i], pattern(root, n, i));
            return;
        }
    }
}

static void one(int root, size_t n, const char *what)
{
    loom_status_t st;

    fill(buf, root, n, rank == root);
    st = loom_bcast(buf, n, LOOM_BYTE, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "%s root %d, %zu bytes: %s", what, root, n, loom_strerror(st));
    check(buf, root, n, what);
}

/* two nonblocking bcasts in flight, roots r1 and r2 */
static void two_in_flight(int r1, int r2, size_t n)
{
    loom_request_t req[2];
    loom_status_t st;

    fill(buf, r1, n, rank == r1);
    fill(buf2, r2, n + 1, rank == r2);
    st = loom_ibcast(buf, n, LOOM_BYTE, r1, LOOM_COMM_WORLD, &req[0]);
    CHECK(st == LOOM_OK, "ibcast 1: %s", loom_strerror(st));
    st = loom_ibcast(buf2, n + 1, LOOM_BYTE, r2, LOOM_COMM_WORLD, &req[1]);
    CHECK(st == LOOM_OK, "ibcast 2: %s", loom_strerror(st));
    st = loom_waitall(2, req, NULL);
    CHECK(st == LOOM_OK, "waitall: %s", loom_strerror(st));
    check(buf, r1, n, "ibcast 1");
    check(buf2, r2, n + 1, "ibcast 2");
}

static void doubles(int root)
{
    static double d[150001];
    size_t n = sizeof(d) / sizeof(d[0]);
    loom_status_t st;

    for (size_t i = 0; i < n; ++i) {
        d[i] = rank == root ? (double)i * 0.5 + root : -1;
    }
    st = loom_bcast(d, n, LOOM_DOUBLE, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "double bcast root %d: %s", root, loom_strerror(st));
    for (size_t i = 0; i < n; ++i) {
        if (d[i] != (double)i * 0.5 + root) {
            CHECK(0, "double bcast root %d: [%zu] = %g", root, i, d[i]);
            break;
        }
    }
}

static void mixed(int root)
{
    static double x[20000], y[20000];
    loom_status_t st;

    for (size_t i = 0; i < 20000; ++i) {
        x[i] = rank + (double)(i % 3);
    }
    st = loom_allreduce(x, y, 20000, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK && y[1] == size * (size - 1) / 2.0 + size, "allreduce: %s, %g",
          loom_strerror(st), y[1]);
    st = loom_reduce(x, y, 20000, LOOM_DOUBLE, LOOM_SUM, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK && (rank != root || y[2] == size * (size - 1) / 2.0 + 2 * size),
          "reduce root %d: %s", root, loom_strerror(st));
}

static void run_data(void)
{
    static const size_t sizes[] = { 8192, 8193, 16384, 65537, 1048576, MAXB };
    double z = 3;

    for (int root = 0; root < size; ++root) {
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
            one(root, sizes[k], "bcast");
        }
        one(root, 100, "small after large");
        one((root + 1) % size, 300000, "large after small");
        one(root, 300000, "large after large");
        doubles(root);
        mixed(root);
        two_in_flight(root, (root + size - 1) % size, 200000);
        CHECK(loom_bcast(&z, 0, LOOM_DOUBLE, root, LOOM_COMM_WORLD) == LOOM_OK && z == 3,
              "count 0 root %d", root);
    }
    CHECK(loom_barrier(LOOM_COMM_WORLD) == LOOM_OK, "final barrier");
}

/* mode: 0 die (a reader dies), 1 die_root, 2 die_early */
static int run_die(int mode, int delay_ms)
{
    int root = mode == 1 ? size - 1 : 0;
    loom_request_t req;
    loom_status_t st;
    int flag = 0;

    one(0, 300000, "bcast before the death");
    if (failures != 0) {
        return 1;
    }
    if (rank == size - 1) {
        if (mode != 2 && loom_ibcast(buf, 300000, LOOM_BYTE, root, LOOM_COMM_WORLD,
                                     &req) == LOOM_OK) {
            for (int k = 0; k < 3 && !flag; ++k) {
                (void)loom_test(&req, &flag, NULL);   /* publishes, arrives */
            }
        }
        _exit(0);
    }
    usleep((useconds_t)delay_ms * 1000);   /* the last rank is gone */
    st = loom_bcast(buf, 300000, LOOM_BYTE, root, LOOM_COMM_WORLD);
    fprintf(stderr, "[rank %d] bcast after the death: %s\n", rank, loom_strerror(st));
    _exit(st == LOOM_OK ? 5 : 0);
}

/* diverge mode: one bcast that the ranks select differently (see the top) */
static int run_diverge(int root, size_t n)
{
    loom_status_t st;
    int wrong = 0;

    fill(buf2, 0, 300000, rank == 0);
    st = loom_bcast(buf2, 300000, LOOM_BYTE, 0, LOOM_COMM_WORLD);   /* the CMA verdict */
    fill(buf, root, n, rank == root);
    st = st != LOOM_OK ? st : loom_bcast(buf, n, LOOM_BYTE, root, LOOM_COMM_WORLD);
    for (size_t i = 0; st == LOOM_OK && i < n && !wrong; ++i) {
        wrong = buf[i] != pattern(root, n, i);
    }
    fprintf(stderr, "[rank %d] diverged bcast: %s\n", rank,
            wrong ? "wrong data" : loom_strerror(st));
    st = loom_barrier(LOOM_COMM_WORLD);
    fprintf(stderr, "[rank %d] barrier after: %s\n", rank, loom_strerror(st));
    _exit(0);
}

/* efault mode: a partly unreadable root buffer (see the top) */
static int run_efault(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 80 * page;
    unsigned char *b = buf;
    loom_status_t st;

    one(0, 300000, "bcast before");                      /* the CMA verdict */
    if (rank == 0) {
        b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED || mprotect(b + n - 8 * page, 8 * page, PROT_NONE) != 0) {
            perror("prog_bcast_cma: mmap/mprotect");
            _exit(1);
        }
    }
    st = loom_bcast(b, n, LOOM_BYTE, 0, LOOM_COMM_WORLD);
    fprintf(stderr, "[rank %d] efault bcast: %s\n", rank, loom_strerror(st));
    _exit(0);
}

/* after mode: the calls after a mismatch work again (see the top) */
static int run_after(void)
{
    double x[2] = { 1, 2 }, y[2];
    loom_status_t st;

    one(0, 300000, "bcast before");                      /* the CMA verdict */
    (void)loom_reduce(x, y, rank == 1 ? 2 : 1, LOOM_DOUBLE, LOOM_SUM, 0, LOOM_COMM_WORLD);
    fill(buf, 0, 300000, rank == 0);
    st = loom_bcast(buf, 300000, LOOM_BYTE, 0, LOOM_COMM_WORLD);
    CHECK(st != LOOM_OK, "the bcast after the mismatched reduce succeeded");
    st = loom_barrier(LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "the barrier after the failed bcast: %s", loom_strerror(st));
    one(size - 1, 300000, "the bcast after the barrier");
    if (failures == 0 && rank == 0) {
        printf("after: passed\n");
    }
    loom_finalize();   /* the communicator works again */
    return failures != 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "data";
    int delay = argc > 2 ? atoi(argv[2]) : 300;

    if (loom_init(NULL, NULL) != LOOM_OK) {
        fprintf(stderr, "prog_bcast_cma: loom_init failed\n");
        return 1;
    }
    rank = loom_rank();
    size = loom_size();
    if (strcmp(mode, "die") == 0) {
        return run_die(0, delay);
    }
    if (strcmp(mode, "die_root") == 0) {
        return run_die(1, delay);
    }
    if (strcmp(mode, "die_early") == 0) {
        return run_die(2, delay);
    }
    if (strcmp(mode, "efault") == 0) {
        return run_efault();
    }
    if (strcmp(mode, "after") == 0) {
        return run_after();
    }
    if (strcmp(mode, "diverge") == 0 && argc > 3) {
        return run_diverge(atoi(argv[2]), (size_t)atol(argv[3]));
    }
    run_data();
    if (failures == 0 && rank == 0) {
        printf("prog_bcast_cma: passed\n");
    }
    loom_finalize();
    return failures != 0;
}
