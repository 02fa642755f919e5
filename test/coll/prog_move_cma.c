/*
 * prog_move_cma.c: gather, scatter, allgather and alltoall "cma"
 * (collectives/move_cma.c), run by test_coll_cma2.sh with
 * LOOM_{GATHER,SCATTER,ALLGATHER,ALLTOALL}_ALGORITHM=cma (and with the table).
 *
 *   prog_move_cma data   block sizes 1 B to 300001 B (odd counts) and
 *                        doubles; gather and scatter from every root, in
 *                        place at the root and not; allgather in place and
 *                        not; alltoall (in place too: the selection gives it
 *                        the message algorithm, which must still be right);
 *                        a small eager bcast between them (the catch-up
 *                        after a gather or scatter whose non-roots leave
 *                        early); every byte checked against its pattern.
 *                        Prints "prog_move_cma: passed" on rank 0.
 *   prog_move_cma die    after a good large gather, the last rank posts a
 *                        loom_iallgather, drives it until it has arrived and
 *                        exits; the others call the allgather argv[2] ms
 *                        later: they read a dead process or wait for it,
 *                        and must fail (peer failure) or be stopped by the
 *                        launcher, never hang nor succeed. Each survivor
 *                        prints "allgather after the death: <status>".
 */
#include <loom.h>

#include "prog_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXBLK ((size_t)300001)

static int rank, size, failures;
static unsigned char *sbuf, *rbuf;

/* byte i of the block that rank @p from sends to rank @p to */
static unsigned char pat(int from, int to, size_t n, size_t i)
{
    return (unsigned char)(from * 37 + to * 11 + n * 5 + i * 3 + (i >> 10));
}

static int check_block(const unsigned char *b, int from, int to, size_t n, const char *what,
                       int root)
{
    for (size_t i = 0; i < n; ++i) {
        if (b[i] != pat(from, to, n, i)) {
            CHECK(0, "%s root %d, %zu-byte blocks: block from %d, byte %zu is %u, expected %u",
                  what, root, n, from, i, b[i], pat(from, to, n, i));
            return 1;
        }
    }
    return 0;
}

static void fill_block(unsigned char *b, int from, int to, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        b[i] = pat(from, to, n, i);
    }
}

static void gather(int root, size_t n, int in_place)
{
    int ip = in_place && rank == root;
    loom_status_t st;

    memset(rbuf, 0xee, n * (size_t)size);
    fill_block(ip ? rbuf + (size_t)rank * n : sbuf, rank, root, n);
    st = loom_gather(ip ? LOOM_IN_PLACE : sbuf, rbuf, n, LOOM_BYTE, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "gather root %d, %zu B: %s", root, n, loom_strerror(st));
    for (int q = 0; rank == root && q < size; ++q) {
        if (check_block(rbuf + (size_t)q * n, q, root, n, "gather", root)) {
            break;
        }
    }
}

static void scatter(int root, size_t n, int in_place)
{
    int ip = in_place && rank == root;
    loom_status_t st;

    memset(rbuf, 0xee, n);
    for (int q = 0; rank == root && q < size; ++q) {
        fill_block(sbuf + (size_t)q * n, root, q, n);
    }
    st = loom_scatter(sbuf, ip ? LOOM_IN_PLACE : rbuf, n, LOOM_BYTE, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "scatter root %d, %zu B: %s", root, n, loom_strerror(st));
    (void)check_block(ip ? sbuf + (size_t)rank * n : rbuf, root, rank, n, "scatter", root);
}

static void allgather(size_t n, int in_place)
{
    loom_status_t st;

    memset(rbuf, 0xee, n * (size_t)size);
    fill_block(in_place ? rbuf + (size_t)rank * n : sbuf, rank, 0, n);
    st = loom_allgather(in_place ? LOOM_IN_PLACE : sbuf, rbuf, n, LOOM_BYTE, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "allgather %zu B%s: %s", n, in_place ? " in place" : "",
          loom_strerror(st));
    for (int q = 0; q < size; ++q) {
        if (check_block(rbuf + (size_t)q * n, q, 0, n, "allgather", -1)) {
            break;
        }
    }
}

static void alltoall(size_t n, int in_place)
{
    unsigned char *src = in_place ? rbuf : sbuf;
    loom_status_t st;

    memset(rbuf, 0xee, n * (size_t)size);
    for (int q = 0; q < size; ++q) {
        fill_block(src + (size_t)q * n, rank, q, n);
    }
    st = loom_alltoall(in_place ? LOOM_IN_PLACE : sbuf, rbuf, n, LOOM_BYTE, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "alltoall %zu B%s: %s", n, in_place ? " in place" : "",
          loom_strerror(st));
    for (int q = 0; q < size; ++q) {
        if (check_block(rbuf + (size_t)q * n, q, rank, n, "alltoall", -1)) {
            break;
        }
    }
}

static void doubles(int root)
{
    static double d[8 * 20000], g[8 * 20000];
    size_t n = 20000;
    loom_status_t st;

    for (size_t i = 0; i < n; ++i) {
        d[i] = rank * 1e6 + (double)i;
    }
    st = loom_allgather(d, g, n, LOOM_DOUBLE, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK, "double allgather: %s", loom_strerror(st));
    for (int q = 0; q < size; ++q) {
        CHECK(g[(size_t)q * n + 7] == q * 1e6 + 7, "double allgather block %d", q);
    }
    st = loom_gather(d, g, n, LOOM_DOUBLE, root, LOOM_COMM_WORLD);
    CHECK(st == LOOM_OK && (rank != root || g[(size_t)(size - 1) * n + 3] ==
                            (size - 1) * 1e6 + 3), "double gather root %d", root);
}

static void run_data(void)
{
    static const size_t blks[] = { 1, 4096, 4097, 65536, MAXBLK };
    unsigned char small = 0;

    for (size_t k = 0; k < sizeof(blks) / sizeof(blks[0]); ++k) {
        size_t n = blks[k];
        for (int root = 0; root < size; ++root) {
            gather(root, n, root % 2);
            scatter(root, n, root % 2 == 0);
            small = (unsigned char)(rank == root ? 42 + root : 0);
            CHECK(loom_bcast(&small, 1, LOOM_BYTE, root, LOOM_COMM_WORLD) == LOOM_OK &&
                  small == 42 + root, "small bcast after gather/scatter root %d", root);
        }
        allgather(n, 0);
        allgather(n, 1);
        alltoall(n, 0);
        alltoall(n, 1);
    }
    for (int root = 0; root < size; ++root) {
        doubles(root);
    }
    CHECK(loom_barrier(LOOM_COMM_WORLD) == LOOM_OK, "final barrier");
}

static int run_die(int delay_ms)
{
    size_t n = 100000;
    loom_request_t req;
    loom_status_t st;
    int flag = 0;

    gather(0, n, 0);
    if (failures != 0) {
        return 1;
    }
    fill_block(sbuf, rank, 0, n);
    if (rank == size - 1) {
        if (loom_iallgather(sbuf, rbuf, n, LOOM_BYTE, LOOM_COMM_WORLD, &req) == LOOM_OK) {
            for (int k = 0; k < 3 && !flag; ++k) {
                (void)loom_test(&req, &flag, NULL);   /* publishes, arrives */
            }
        }
        _exit(0);
    }
    usleep((useconds_t)delay_ms * 1000);   /* the last rank is gone */
    st = loom_allgather(sbuf, rbuf, n, LOOM_BYTE, LOOM_COMM_WORLD);
    fprintf(stderr, "[rank %d] allgather after the death: %s\n", rank, loom_strerror(st));
    _exit(st == LOOM_OK ? 5 : 0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "data";
    int rc;

    if (loom_init(NULL, NULL) != LOOM_OK) {
        fprintf(stderr, "prog_move_cma: loom_init failed\n");
        return 1;
    }
    rank = loom_rank();
    size = loom_size();
    sbuf = malloc(MAXBLK * (size_t)size);
    rbuf = malloc(MAXBLK * (size_t)size);
    if (sbuf == NULL || rbuf == NULL) {
        fprintf(stderr, "prog_move_cma: out of memory\n");
        return 1;
    }
    if (strcmp(mode, "die") == 0) {
        return run_die(argc > 2 ? atoi(argv[2]) : 300);
    }
    run_data();
    if (failures == 0 && rank == 0) {
        printf("prog_move_cma: passed\n");
    }
    rc = failures != 0;
    free(sbuf);
    free(rbuf);
    loom_finalize();
    return rc;
}
