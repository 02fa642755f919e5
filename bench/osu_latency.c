/*
 * osu_latency: ping-pong latency between two ranks, OSU style.
 *
 *   rank 0: Send(size) -> Recv(size)      } repeated skip + iterations times;
 *   rank 1: Recv(size) -> Send(size)      } latency = time / (2 * iterations)
 *
 * Before the warm-up of each size, OSU_VALIDATE_ROUNDS untimed round trips
 * carry patterns that depend on size, round and direction, and the receiver
 * checks data and status (source, tag, count).
 */
#include "osu_util.h"

#include <stdlib.h>

#define LAT_TAG 1

static const osu_bench_desc_t latency_desc = {
    .name = "osu_latency", .title = "OSU MPI Latency Test", .kind = OSU_KIND_LATENCY,
    .show_size = 1, .exact_np = 2, .elem_size = 1, .min_size = 0, .max_size = 1 << 22,
    .iterations = 10000, .iterations_large = 1000, .skip = 100, .skip_large = 10,
};

/* One checked round trip; the two directions carry different patterns. */
static int latency_validate(const osu_ctx_t *ctx, char *sbuf, char *rbuf, size_t size)
{
    int peer = 1 - ctx->rank, errors = 0;
    MPI_Status st;

    for (int round = 0; round < OSU_VALIDATE_ROUNDS; round++) {
        uint32_t ping = osu_seed(size, round, 0, 1), pong = osu_seed(size, round, 1, 0);

        if (ctx->rank == 0) {
            osu_fill(sbuf, size, ping);
            osu_poison(rbuf, size, pong);
            MPI_Send(sbuf, (int)size, MPI_CHAR, peer, LAT_TAG, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, LAT_TAG, MPI_COMM_WORLD, &st);
            errors += osu_check_status(ctx, &st, peer, LAT_TAG, size);
            errors += osu_check(ctx, rbuf, size, pong, size, "pong from rank 1");
        } else {
            osu_poison(rbuf, size, ping);
            MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, LAT_TAG, MPI_COMM_WORLD, &st);
            errors += osu_check_status(ctx, &st, peer, LAT_TAG, size);
            errors += osu_check(ctx, rbuf, size, ping, size, "ping from rank 0");
            osu_fill(sbuf, size, pong);
            MPI_Send(sbuf, (int)size, MPI_CHAR, peer, LAT_TAG, MPI_COMM_WORLD);
        }
    }
    return errors;
}

/* OSU's timed loop; returns the one-way latency in microseconds (rank 0). */
static double latency_time(const osu_ctx_t *ctx, char *sbuf, char *rbuf, size_t size)
{
    int iters, skip, peer = 1 - ctx->rank;
    double t_start = 0.0, t_end;

    osu_loop_counts(ctx, size, &iters, &skip);
    osu_sync(ctx);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t_start = MPI_Wtime();
        if (ctx->rank == 0) {
            MPI_Send(sbuf, (int)size, MPI_CHAR, peer, LAT_TAG, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, LAT_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, LAT_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_CHAR, peer, LAT_TAG, MPI_COMM_WORLD);
        }
    }
    t_end = MPI_Wtime();
    return (t_end - t_start) * 1e6 / (2.0 * iters);
}

int main(int argc, char **argv)
{
    osu_ctx_t ctx;
    int status, failed = 0, valid;
    char *sbuf, *rbuf;

    if (!osu_init(&ctx, &latency_desc, &argc, &argv, &status))
        return osu_finish(&ctx, status);
    osu_limit_max_size(&ctx, 2);
    sbuf = osu_alloc(&ctx, ctx.opt.max_size);
    rbuf = osu_alloc(&ctx, ctx.opt.max_size);
    osu_print_header(&ctx);
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        int errors = ctx.opt.validate
                   ? osu_agree(&ctx, latency_validate(&ctx, sbuf, rbuf, size)) : 0;

        valid = errors == 0;
        if (!valid)
            failed = osu_report_failure(&ctx, size, errors);
        if (!valid && !ctx.opt.validation_column)
            break;
        osu_print_p2p(&ctx, size, latency_time(&ctx, sbuf, rbuf, size), valid);
    }
    free(sbuf);
    free(rbuf);
    return osu_finish(&ctx, failed);
}
