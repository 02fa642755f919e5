/*
 * demo.c: a small real job that shows what loom does.
 *
 *   loomrun -n 4 build/release/examples/demo
 *
 * Every rank reports where it runs; a token travels around the ring of
 * ranks; rank 0 measures ping-pong latency and bandwidth to rank 1 over
 * the transport loom chose; all ranks check an allreduce against the
 * closed-form answer. Exits non-zero if any result is wrong.
 */
#include <loom.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                             \
    do {                                                                        \
        loom_status_t st_ = (call);                                             \
        if (st_ != LOOM_OK) {                                                   \
            fprintf(stderr, "rank %d: %s failed: %s\n", loom_rank(), #call,     \
                    loom_strerror(st_));                                        \
            loom_abort(1, "demo failed");                                       \
        }                                                                       \
    } while (0)

static void ring_token(int rank, int size)
{
    int token = 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    if (rank == 0) {
        token = 1;
        CHECK(loom_send(&token, 1, LOOM_INT32, next, 7, LOOM_COMM_WORLD));
        CHECK(loom_recv(&token, 1, LOOM_INT32, prev, 7, LOOM_COMM_WORLD, NULL));
        printf("ring: the token visited %d ranks and came back to rank 0\n", token);
    } else {
        CHECK(loom_recv(&token, 1, LOOM_INT32, prev, 7, LOOM_COMM_WORLD, NULL));
        ++token;
        CHECK(loom_send(&token, 1, LOOM_INT32, next, 7, LOOM_COMM_WORLD));
    }
}

static double pingpong(int rank, char *buf, size_t bytes, int iters)
{
    double t0 = 0;

    for (int i = -10; i < iters; ++i) {
        if (i == 0) {
            t0 = loom_wtime();
        }
        if (rank == 0) {
            CHECK(loom_send(buf, bytes, LOOM_BYTE, 1, 1, LOOM_COMM_WORLD));
            CHECK(loom_recv(buf, bytes, LOOM_BYTE, 1, 1, LOOM_COMM_WORLD, NULL));
        } else if (rank == 1) {
            CHECK(loom_recv(buf, bytes, LOOM_BYTE, 0, 1, LOOM_COMM_WORLD, NULL));
            CHECK(loom_send(buf, bytes, LOOM_BYTE, 0, 1, LOOM_COMM_WORLD));
        }
    }
    return (loom_wtime() - t0) / (2.0 * iters);
}

static void measure(int rank)
{
    static const size_t sizes[] = { 8, 4096, 1 << 20 };
    char *buf = malloc(1 << 20);

    if (buf == NULL) {
        loom_abort(1, "demo: out of memory");
    }
    memset(buf, rank, 1 << 20);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
        int iters = sizes[i] >= (1 << 20) ? 200 : 5000;
        double t = pingpong(rank, buf, sizes[i], iters);
        if (rank == 0) {
            printf("ping-pong rank 0 <-> rank 1: %8zu bytes  %9.2f us one-way  %9.1f MB/s\n",
                   sizes[i], t * 1e6, (double)sizes[i] / t / 1e6);
        }
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;
    double local, sum = 0;

    CHECK(loom_init(&argc, &argv));
    rank = loom_rank();
    size = loom_size();
    printf("rank %d of %d on %s (local rank %d of %d)\n", rank, size, loom_hostname(rank),
           loom_local_rank(), loom_local_size());
    fflush(stdout);
    CHECK(loom_barrier(LOOM_COMM_WORLD));

    if (size > 1) {
        ring_token(rank, size);
        measure(rank);
    }
    local = rank + 1.0;
    CHECK(loom_allreduce(&local, &sum, 1, LOOM_DOUBLE, LOOM_SUM, LOOM_COMM_WORLD));
    if (sum != size * (size + 1) / 2.0) {
        fprintf(stderr, "rank %d: allreduce gave %g, expected %g\n", rank, sum,
                size * (size + 1) / 2.0);
        loom_abort(2, "demo: wrong allreduce result");
    }
    if (rank == 0) {
        printf("allreduce: sum of 1..%d = %g on every rank (checked)\n", size, sum);
    }
    CHECK(loom_finalize());
    return 0;
}
