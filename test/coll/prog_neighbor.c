/*
 * prog_neighbor.c: the native neighbourhood collective
 * (loom_(i)neighbor_alltoallv) at any number of ranks, run by
 * test_neighbor.sh under loomrun: list-order matching of repeated
 * neighbours, LOOM_PROC_NULL slots, a rank talking to itself, byte offsets,
 * then the errors: bad arguments (returned at once, on every rank) and
 * ranks that disagree on a block's size (LOOM_ERR_INVALID_COUNT, or
 * LOOM_ERR_TRUNCATED when the block is larger), after which the
 * communicator still works. Prints "prog_neighbor: passed" on rank 0.
 */
#include <loom.h>

#include "prog_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

/*
 * Rank r sends to r+1 three times (blocks 10r+0, 10r+1, 10r+2, posted in that
 * order) and once to LOOM_PROC_NULL; it receives from r-1 three times into
 * slots laid out back to front, plus one LOOM_PROC_NULL slot and one block
 * from itself. The k-th receive from r-1 must hold r-1's k-th block.
 */
static void run_order(int nonblocking)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int self = size > 1 ? rank : LOOM_PROC_NULL;   /* at np 1, prev is self already */
    int dests[5] = { next, LOOM_PROC_NULL, next, self, next };
    int srcs[5] = { prev, prev, LOOM_PROC_NULL, prev, self };
    int sb[5] = { 10 * rank, -1, 10 * rank + 1, 1000 + rank, 10 * rank + 2 }, rb[5];
    size_t sbytes[5], soff[5], rbytes[5], roff[5];
    loom_status_t st;

    for (int i = 0; i < 5; ++i) {
        sbytes[i] = rbytes[i] = sizeof(int);
        soff[i] = (size_t)i * sizeof(int);
        roff[i] = (size_t)(4 - i) * sizeof(int);    /* back to front */
        rb[i] = -7;
    }
    if (nonblocking) {
        loom_request_t req;
        st = loom_ineighbor_alltoallv(sb, 5, dests, sbytes, soff, rb, 5, srcs, rbytes, roff,
                                      LOOM_COMM_WORLD, &req);
        if (st == LOOM_OK) {
            st = loom_wait(&req, LOOM_STATUS_IGNORE);
        }
    } else {
        st = loom_neighbor_alltoallv(sb, 5, dests, sbytes, soff, rb, 5, srcs, rbytes, roff,
                                     LOOM_COMM_WORLD);
    }
    CHECK(st == LOOM_OK, "neighbor_alltoallv: %s", loom_status_name(st));
    CHECK(rb[4] == 10 * prev, "slot 0 = %d, want %d", rb[4], 10 * prev);
    CHECK(rb[3] == 10 * prev + 1, "slot 1 = %d, want %d", rb[3], 10 * prev + 1);
    CHECK(rb[2] == -7, "PROC_NULL slot = %d, want untouched", rb[2]);
    CHECK(rb[1] == 10 * prev + 2, "slot 3 = %d, want %d", rb[1], 10 * prev + 2);
    CHECK(rb[0] == (size > 1 ? 1000 + rank : -7), "self slot = %d", rb[0]);
}

static void run_errors(void)
{
    int x = 0, y = 0, bad = size, ring = (rank + 1) % size, prev = (rank + size - 1) % size;
    size_t four = 4, eight = 8, zero = 0;

    CHECK(loom_neighbor_alltoallv(&x, 1, &bad, &four, &zero, &y, 0, NULL, NULL, NULL,
                                  LOOM_COMM_WORLD) == LOOM_ERR_INVALID_RANK, "rank = size");
    CHECK(loom_neighbor_alltoallv(&x, -1, NULL, NULL, NULL, &y, 0, NULL, NULL, NULL,
                                  LOOM_COMM_WORLD) == LOOM_ERR_INVALID_ARG, "negative degree");
    CHECK(loom_neighbor_alltoallv(&x, 1, &ring, NULL, &zero, &y, 0, NULL, NULL, NULL,
                                  LOOM_COMM_WORLD) == LOOM_ERR_INVALID_ARG, "NULL counts");
    CHECK(loom_neighbor_alltoallv(LOOM_IN_PLACE, 1, &ring, &four, &zero, &y, 0, NULL, NULL,
                                  NULL, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_BUFFER,
          "IN_PLACE");
    CHECK(loom_ineighbor_alltoallv(&x, 0, NULL, NULL, NULL, &y, 0, NULL, NULL, NULL,
                                   LOOM_COMM_WORLD, NULL) == LOOM_ERR_INVALID_ARG, "NULL req_p");
    CHECK(loom_neighbor_alltoallv(&x, 0, NULL, NULL, NULL, &y, 0, NULL, NULL, NULL,
                                  LOOM_COMM_NULL) == LOOM_ERR_INVALID_COMM, "NULL comm");
    /* sizes that disagree: everyone sends 4 bytes but expects 8, then the reverse */
    {
        long long big = 0, small = 0;
        loom_status_t st = loom_neighbor_alltoallv(&x, 1, &ring, &four, &zero, &big, 1, &prev,
                                                   &eight, &zero, LOOM_COMM_WORLD);
        CHECK(st == LOOM_ERR_INVALID_COUNT, "short block: %s", loom_status_name(st));
        st = loom_neighbor_alltoallv(&big, 1, &ring, &eight, &zero, &small, 1, &prev, &four,
                                     &zero, LOOM_COMM_WORLD);
        CHECK(st == LOOM_ERR_TRUNCATED, "long block: %s", loom_status_name(st));
    }
    CHECK(loom_barrier(LOOM_COMM_WORLD) == LOOM_OK, "barrier after the errors");
}

int main(void)
{
    setenv("LOOM_ERRORS", "return", 0);
    if (loom_init(NULL, NULL) != LOOM_OK) {
        return 2;
    }
    rank = loom_rank();
    size = loom_size();
    run_order(0);
    run_order(1);
    run_errors();
    run_order(1);            /* the communicator still works after failed calls */
    if (loom_barrier(LOOM_COMM_WORLD) != LOOM_OK) {
        ++failures;
    }
    if (rank == 0 && failures == 0) {
        printf("prog_neighbor: passed on %d ranks\n", size);
    }
    loom_finalize();
    return failures ? 1 : 0;
}
