/*
 * pingpong.c: point-to-point latency and bandwidth between ranks 0 and 1,
 * written against the MPI API and built twice (loomcc and Open MPI's mpicc)
 * by transport/ib/module.mk, so loom and Open MPI run the very same loop.
 * test/verbs/bench.sh runs both in the soft-RoCE guest next to perftest.
 *
 * Latency: every round trip is timed on its own and the one-way time is
 * reported as min, median ("typical", as perftest's t_typical) and mean;
 * under emulation the mean is dominated by scheduler outliers, the median
 * is the figure to compare. Bandwidth: windows of W non-blocking sends and
 * one zero-byte acknowledgement (OSU osu_bw's scheme), the median window.
 *
 *   pingpong [-m MAXBYTES] [-n ITERS] [-w WINDOW] [-b] [-l]
 *     -b  bandwidth only, -l latency only (default both)
 * Output lines: "lat SIZE MIN MEDIAN MEAN" (us) and "bw SIZE MBPS".
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PP_MAX_WINDOW 64

static int pp_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* iterations for @p size: fewer for large messages (emulated links are slow) */
static int pp_iters(int base, size_t size)
{
    int n = base;
    if (size > 8192) {
        n = base / 4;
    }
    if (size > 131072) {
        n = base / 20;
    }
    return n < 10 ? 10 : n;
}

static void pp_latency(int rank, char *buf, size_t size, int iters, double *t)
{
    int i, warm = iters / 10 + 2;

    for (i = -warm; i < iters; ++i) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
        if (i >= 0) {
            t[i] = (MPI_Wtime() - t0) * 1e6 / 2;
        }
    }
}

static double pp_bandwidth(int rank, char *buf, size_t size, int window, int iters, double *t)
{
    MPI_Request req[PP_MAX_WINDOW];
    char ack = 0;
    int i, k, warm = 2;

    for (i = -warm; i < iters; ++i) {
        double t0 = MPI_Wtime();
        for (k = 0; k < window; ++k) {
            if (rank == 0) {
                MPI_Isend(buf, (int)size, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &req[k]);
            } else {
                MPI_Irecv(buf, (int)size, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &req[k]);
            }
        }
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        if (rank == 0) {
            MPI_Recv(&ack, 0, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(&ack, 0, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
        }
        if (i >= 0) {
            t[i] = MPI_Wtime() - t0;
        }
    }
    qsort(t, (size_t)iters, sizeof(*t), pp_cmp);
    return (double)size * window / t[iters / 2] / 1e6;
}

int main(int argc, char **argv)
{
    static const size_t bw_sizes[] = { 8, 512, 8192, 65536, 1u << 20 };
    size_t max = 1u << 20, size, k;
    int rank, nranks, iters = 2000, window = 16, opt, do_lat = 1, do_bw = 1;
    double *t;
    char *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    while ((opt = getopt(argc, argv, "m:n:w:bl")) != -1) {
        switch (opt) {
        case 'm': max = strtoull(optarg, NULL, 0); break;
        case 'n': iters = atoi(optarg); break;
        case 'w': window = atoi(optarg); break;
        case 'b': do_lat = 0; break;
        case 'l': do_bw = 0; break;
        default:
            if (rank == 0) {
                fprintf(stderr, "usage: %s [-m MAX] [-n ITERS] [-w WINDOW] [-b] [-l]\n",
                        argv[0]);
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (nranks != 2 || iters < 10 || window < 1 || window > PP_MAX_WINDOW) {
        if (rank == 0) {
            fprintf(stderr, "pingpong: needs 2 ranks, -n >= 10, 1 <= -w <= %d\n",
                    PP_MAX_WINDOW);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf = malloc(max);
    t = malloc(sizeof(*t) * (size_t)(iters > 1000 ? iters : 1000));
    if (buf == NULL || t == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(buf, 0x3c, max);
    /* warm up every path first (connections, registrations, a runtime's
     * switch from its connection-setup transport to RC) */
    pp_latency(rank, buf, 8, 1000, t);
    for (size = 8; size <= max; size *= 8) {
        pp_latency(rank, buf, size, 10, t);
    }
    for (size = 8; do_lat && size <= max; size *= 2) {
        int n = pp_iters(iters, size), i;
        double sum = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        pp_latency(rank, buf, size, n, t);
        if (rank == 0) {
            for (i = 0; i < n; ++i) {
                sum += t[i];
            }
            qsort(t, (size_t)n, sizeof(*t), pp_cmp);
            printf("lat %zu %.2f %.2f %.2f\n", size, t[0], t[n / 2], sum / n);
            fflush(stdout);
        }
    }
    for (k = 0; do_bw && k < sizeof(bw_sizes) / sizeof(bw_sizes[0]); ++k) {
        int n = pp_iters(iters / 20, size = bw_sizes[k]);
        double mbps;
        if (size > max) {
            break;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        mbps = pp_bandwidth(rank, buf, size, window, n, t);
        if (rank == 0) {
            printf("bw %zu %.2f\n", size, mbps);
            fflush(stdout);
        }
    }
    free(t);
    free(buf);
    MPI_Finalize();
    return 0;
}
