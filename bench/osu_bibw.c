/*
 * osu_bibw: bidirectional bandwidth between two ranks, OSU style.
 *
 *   both ranks: W x Irecv(size) -> W x Isend(size) -> Waitall(sends)
 *               -> Waitall(receives)       } skip + iterations times
 *   bandwidth = 2 * size * W * iterations / time, in MB/s (10^6 bytes)
 *
 * Rank 0 sends with tag 100 and receives tag 10, rank 1 the reverse, as in
 * OSU. The untimed validation round exchanges a full window both ways at
 * once, each message with its own slice and pattern.
 */
#include "osu_util.h"

#include <stdlib.h>

#define TAG_TO_1 100
#define TAG_TO_0 10

static const osu_bench_desc_t bibw_desc = {
    .name = "osu_bibw", .title = "OSU MPI Bi-Directional Bandwidth Test",
    .kind = OSU_KIND_BANDWIDTH, .show_size = 1, .has_window = 1, .exact_np = 2,
    .elem_size = 1, .min_size = 1, .max_size = 1 << 22, .iterations = 100,
    .iterations_large = 20, .skip = 10, .skip_large = 2,
};

static double bibw_time(const osu_ctx_t *ctx, char *sbuf, char *rbuf, size_t size)
{
    static MPI_Request sreq[OSU_MAX_WINDOW], rreq[OSU_MAX_WINDOW];
    int iters, skip, peer = 1 - ctx->rank, w = ctx->opt.window;
    int stag = ctx->rank == 0 ? TAG_TO_1 : TAG_TO_0;
    int rtag = ctx->rank == 0 ? TAG_TO_0 : TAG_TO_1;
    double t_start = 0.0, t_end;

    osu_loop_counts(ctx, size, &iters, &skip);
    osu_sync(ctx);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t_start = MPI_Wtime();
        for (int j = 0; j < w; j++)
            MPI_Irecv(rbuf, (int)size, MPI_CHAR, peer, rtag, MPI_COMM_WORLD, &rreq[j]);
        for (int j = 0; j < w; j++)
            MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, stag, MPI_COMM_WORLD, &sreq[j]);
        MPI_Waitall(w, sreq, MPI_STATUSES_IGNORE);
        MPI_Waitall(w, rreq, MPI_STATUSES_IGNORE);
    }
    t_end = MPI_Wtime();
    return (double)size / 1e6 * iters * w * 2 / (t_end - t_start);
}

static size_t bibw_buffer_bytes(const osu_ctx_t *ctx)
{
    size_t need = 1;

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

    if (!osu_init(&ctx, &bibw_desc, &argc, &argv, &status))
        return osu_finish(&ctx, status);
    osu_limit_max_size(&ctx, 2);
    bytes = bibw_buffer_bytes(&ctx);
    sbuf = osu_alloc(&ctx, bytes);
    rbuf = osu_alloc(&ctx, bytes);
    osu_print_header(&ctx);
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        int errors = 0;

        for (int round = 0; ctx.opt.validate && round < OSU_VALIDATE_ROUNDS; round++)
            errors += osu_window_validate(&ctx, sbuf, rbuf, size, round, TAG_TO_1, 1, 1);
        errors = ctx.opt.validate ? osu_agree(&ctx, errors) : 0;
        valid = errors == 0;
        if (!valid)
            failed = osu_report_failure(&ctx, size, errors);
        if (!valid && !ctx.opt.validation_column)
            break;
        osu_print_p2p(&ctx, size, bibw_time(&ctx, sbuf, rbuf, size), valid);
    }
    free(sbuf);
    free(rbuf);
    return osu_finish(&ctx, failed);
}
