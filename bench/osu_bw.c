/*
 * osu_bw: unidirectional bandwidth between two ranks, OSU style.
 *
 *   rank 0: W x Isend(size) -> Waitall -> Recv(4-byte ack)   } skip + iterations
 *   rank 1: W x Irecv(size) -> Waitall -> Send(4-byte ack)   } times
 *   bandwidth = size * W * iterations / time, in MB/s (10^6 bytes)
 *
 * As in OSU the timed window reuses one buffer per side; the untimed
 * validation round before each size gives every message of the window its
 * own slice and pattern (osu_window_validate).
 */
#include "osu_util.h"

#include <stdlib.h>

#define BW_TAG  100
#define ACK_TAG 101

static const osu_bench_desc_t bw_desc = {
    .name = "osu_bw", .title = "OSU MPI Bandwidth Test", .kind = OSU_KIND_BANDWIDTH,
    .show_size = 1, .has_window = 1, .exact_np = 2, .elem_size = 1, .min_size = 1,
    .max_size = 1 << 22, .iterations = 100, .iterations_large = 20, .skip = 10,
    .skip_large = 2,
};

static double bw_time(const osu_ctx_t *ctx, char *sbuf, char *rbuf, size_t size)
{
    static MPI_Request reqs[OSU_MAX_WINDOW];
    int iters, skip, peer = 1 - ctx->rank, w = ctx->opt.window;
    double t_start = 0.0, t_end;

    osu_loop_counts(ctx, size, &iters, &skip);
    osu_sync(ctx);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t_start = MPI_Wtime();
        if (ctx->rank == 0) {
            for (int j = 0; j < w; j++)
                MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, BW_TAG, MPI_COMM_WORLD, &reqs[j]);
            MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(rbuf, 4, MPI_CHAR, peer, ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < w; j++)
                MPI_Irecv(rbuf, (int)size, MPI_CHAR, peer, BW_TAG, MPI_COMM_WORLD, &reqs[j]);
            MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
            MPI_Send(sbuf, 4, MPI_CHAR, peer, ACK_TAG, MPI_COMM_WORLD);
        }
    }
    t_end = MPI_Wtime();
    return (double)size / 1e6 * iters * w / (t_end - t_start);
}

/* Largest buffer any size needs: the validation window or one message. */
static size_t bw_buffer_bytes(const osu_ctx_t *ctx)
{
    size_t need = 4;

    for (size_t s = ctx->opt.min_size; s <= ctx->opt.max_size; s = osu_next_size(ctx, s)) {
        size_t b = s * (size_t)osu_validation_window(ctx, s);

        need = b > need ? b : need;
    }
    return need;
}

int main(int argc, char **argv)
{
    osu_ctx_t ctx;
    int status, failed = 0, valid;
    char *sbuf, *rbuf;
    size_t bytes;

    if (!osu_init(&ctx, &bw_desc, &argc, &argv, &status))
        return osu_finish(&ctx, status);
    osu_limit_max_size(&ctx, 2);
    bytes = bw_buffer_bytes(&ctx);
    sbuf = osu_alloc(&ctx, bytes);
    rbuf = osu_alloc(&ctx, bytes);
    osu_print_header(&ctx);
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        int errors = 0;

        for (int round = 0; ctx.opt.validate && round < OSU_VALIDATE_ROUNDS; round++)
            errors += osu_window_validate(&ctx, sbuf, rbuf, size, round, BW_TAG,
                                          ctx.rank == 0, ctx.rank == 1);
        errors = ctx.opt.validate ? osu_agree(&ctx, errors) : 0;
        valid = errors == 0;
        if (!valid)
            failed = osu_report_failure(&ctx, size, errors);
        if (!valid && !ctx.opt.validation_column)
            break;
        osu_print_p2p(&ctx, size, bw_time(&ctx, sbuf, rbuf, size), valid);
    }
    free(sbuf);
    free(rbuf);
    return osu_finish(&ctx, failed);
}
