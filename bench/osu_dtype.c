/*
 * osu_dtype.c: the helpers of the derived-datatype benchmarks
 * (osu_dtype.h): option extraction, the timed ping-pong, exact values.
 */
#include "osu_dtype.h"

#include <stdio.h>
#include <string.h>

const char *osu_dt_take_opt(int *argc, char **argv, char flag, const char *dflt)
{
    const char *val = dflt;

    for (int i = 1; i < *argc; i++) {
        int take;

        if (argv[i][0] != '-' || argv[i][1] != flag)
            continue;
        if (argv[i][2] != '\0') {
            val = argv[i] + 2;
            take = 1;
        } else if (i + 1 < *argc) {
            val = argv[i + 1];
            take = 2;
        } else {
            continue;
        }
        memmove(&argv[i], &argv[i + take], (size_t)(*argc - i - take + 1) * sizeof(*argv));
        *argc -= take;
        i--;
    }
    return val;
}

double osu_dt_pingpong(const osu_ctx_t *ctx, void *sbuf, void *rbuf, int count,
                       MPI_Datatype type, size_t size)
{
    int iters, skip, peer = 1 - ctx->rank;
    double t_start = 0.0;

    osu_loop_counts(ctx, size, &iters, &skip);
    osu_sync(ctx);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t_start = MPI_Wtime();
        if (ctx->rank == 0) {
            MPI_Send(sbuf, count, type, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, count, type, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, count, type, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(rbuf, count, type, peer, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t_start) * 1e6 / (2.0 * iters);
}

double osu_dt_value(size_t i, int r, int round)
{
    uint32_t h = osu_seed(i, round, r, 7);

    return (double)(h & 0xffffffu);
}

int osu_dt_fail(const osu_ctx_t *ctx, size_t size, const char *what, size_t at,
                double got, double want)
{
    fprintf(stderr, "%s: validation failed on rank %d, size %zu: %s: element %zu is %.17g, "
            "expected %.17g\n", ctx->desc->name, ctx->rank, size, what, at, got, want);
    return 1;
}
