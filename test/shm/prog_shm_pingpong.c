/*
 * prog_shm_pingpong.c: rank program for the shm transport through the whole
 * stack (loomrun -n N, all ranks on one node).
 *
 *   prog_shm_pingpong check        every pair of ranks exchanges messages of
 *                                  sizes across the eager/rendezvous switch,
 *                                  each byte checked; exit 1 on any error
 *   prog_shm_pingpong perf [iters] ranks 0 and 1: one-way latency (half the
 *                                  round trip) and windowed bandwidth per
 *                                  size, OSU-style table on rank 0
 */
#include <loom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE ((size_t)4 << 20)
#define WINDOW   64

static uint8_t pattern(int src, int dst, size_t size, size_t i)
{
    return (uint8_t)((size_t)src * 31u + (size_t)dst * 17u + size * 7u + i * 2654435761u);
}

/* Every ordered pair, every size: isend to all, irecv from all, check. */
static int run_check(void)
{
    /* 153-536: frames spanning two or three fast-box cells (with the
     * 24-byte header: 177, 368, 369 and 560 bytes are the edges) */
    static const size_t sizes[] = { 0, 1, 8, 47, 48, 100, 152, 153, 256, 344, 345, 536, 537,
                                    1024, 4095, 4096, 4097, 8160,
                                    8192, 65536, 300001, ((size_t)1 << 20) + 3 };
    int rank = loom_rank(), size = loom_size(), errors = 0;
    uint8_t **sbuf = calloc((size_t)size, sizeof(*sbuf));
    uint8_t **rbuf = calloc((size_t)size, sizeof(*rbuf));
    loom_request_t *reqs = calloc(2 * (size_t)size, sizeof(*reqs));

    for (int p = 0; p < size; ++p) {
        sbuf[p] = malloc(MAX_SIZE);
        rbuf[p] = malloc(MAX_SIZE);
    }
    /* two rounds: the second runs through fast boxes the first opened */
    for (size_t s = 0; s < 2 * (sizeof(sizes) / sizeof(sizes[0])); ++s) {
        size_t n = sizes[s % (sizeof(sizes) / sizeof(sizes[0]))], nreq = 0;
        for (int p = 0; p < size; ++p) {
            for (size_t i = 0; i < n; ++i) {
                sbuf[p][i] = pattern(rank, p, n, i);
            }
            memset(rbuf[p], 0xee, n);
            loom_irecv(rbuf[p], n, LOOM_BYTE, p, (int)s, LOOM_COMM_WORLD, &reqs[nreq++]);
        }
        for (int k = 1; k <= size; ++k) {   /* staggered: not everyone to rank 0 first */
            int p = (rank + k) % size;
            loom_isend(sbuf[p], n, LOOM_BYTE, p, (int)s, LOOM_COMM_WORLD, &reqs[nreq++]);
        }
        if (loom_waitall(nreq, reqs, NULL) != LOOM_OK) {
            fprintf(stderr, "rank %d: waitall failed at size %zu\n", rank, n);
            ++errors;
        }
        for (int p = 0; p < size; ++p) {
            for (size_t i = 0; i < n; ++i) {
                if (rbuf[p][i] != pattern(p, rank, n, i)) {
                    fprintf(stderr, "rank %d: from rank %d, size %zu: byte %zu is %u, "
                            "expected %u\n", rank, p, n, i, rbuf[p][i], pattern(p, rank, n, i));
                    ++errors;
                    break;
                }
            }
        }
    }
    for (int p = 0; p < size; ++p) {
        free(sbuf[p]);
        free(rbuf[p]);
    }
    free(sbuf);
    free(rbuf);
    free(reqs);
    return errors;
}

static double latency(uint8_t *buf, size_t n, int iters)
{
    int rank = loom_rank();
    double t0 = 0;

    for (int i = -iters / 10 - 10; i < iters; ++i) {   /* warm-up first */
        if (i == 0) {
            t0 = loom_wtime();
        }
        if (rank == 0) {
            loom_send(buf, n, LOOM_BYTE, 1, 1, LOOM_COMM_WORLD);
            loom_recv(buf, n, LOOM_BYTE, 1, 1, LOOM_COMM_WORLD, NULL);
        } else {
            loom_recv(buf, n, LOOM_BYTE, 0, 1, LOOM_COMM_WORLD, NULL);
            loom_send(buf, n, LOOM_BYTE, 0, 1, LOOM_COMM_WORLD);
        }
    }
    return (loom_wtime() - t0) * 1e6 / (2.0 * iters);
}

static double bandwidth(uint8_t *buf, size_t n, int iters)
{
    loom_request_t reqs[WINDOW];
    int rank = loom_rank();
    double t0 = 0;
    char ack;

    for (int i = -2; i < iters; ++i) {
        if (i == 0) {
            t0 = loom_wtime();
        }
        for (int w = 0; w < WINDOW; ++w) {
            if (rank == 0) {
                loom_isend(buf, n, LOOM_BYTE, 1, 2, LOOM_COMM_WORLD, &reqs[w]);
            } else {
                loom_irecv(buf, n, LOOM_BYTE, 0, 2, LOOM_COMM_WORLD, &reqs[w]);
            }
        }
        loom_waitall(WINDOW, reqs, NULL);
        if (rank == 0) {
            loom_recv(&ack, 1, LOOM_BYTE, 1, 3, LOOM_COMM_WORLD, NULL);
        } else {
            loom_send(&ack, 1, LOOM_BYTE, 0, 3, LOOM_COMM_WORLD);
        }
    }
    return (double)n * WINDOW * iters / (loom_wtime() - t0) / 1e6;
}

static void run_perf(int iters)
{
    uint8_t *buf = calloc(1, MAX_SIZE);

    if (loom_rank() == 0) {
        printf("# size(B)  latency(us)  bandwidth(MB/s)\n");
    }
    for (size_t n = 0; n <= MAX_SIZE; n = n ? n * 2 : 1) {
        int it = n >= 65536 ? iters / 50 + 10 : iters;
        double lat = latency(buf, n, it);
        double bw  = bandwidth(buf, n, n >= 65536 ? 20 : it / 20 + 5);
        if (loom_rank() == 0) {
            printf("%-10zu %11.3f  %14.1f\n", n, lat, bw);
            fflush(stdout);
        }
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int errors = 0;

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 2;
    }
    if (argc > 1 && strcmp(argv[1], "perf") == 0) {
        if (loom_size() >= 2 && loom_rank() < 2) {
            run_perf(argc > 2 ? atoi(argv[2]) : 20000);
        }
    } else {
        errors = run_check();
        if (errors == 0 && loom_rank() == 0) {
            printf("OK check\n");
        }
    }
    loom_finalize();
    return errors != 0;
}
