/*
 * osu_coll.c: the OSU timing loop shared by the collective benchmarks.
 *
 *   for each size:
 *     validate (untimed, OSU_VALIDATE_ROUNDS rounds, verdict agreed by p2p)
 *     Barrier
 *     repeat skip + iterations:  t0 = Wtime; ops->run; timer += Wtime - t0
 *                                (after warm-up); Barrier (unless barrier)
 *     per-rank average -> avg/min/max over ranks on rank 0 -> one line
 *
 * This is OSU 5.x's loop: each call is timed alone and a barrier (untimed)
 * separates calls so no rank races ahead into the next one.
 */
#include "osu_util.h"

#include <stdio.h>
#include <stdlib.h>

/* Halve the largest size until both buffers fit the -M limit. */
static void coll_limit_max_size(osu_ctx_t *ctx, const osu_coll_ops_t *ops)
{
    osu_options_t *o = &ctx->opt;
    size_t before = o->max_size, s, r;

    for (;;) {
        ops->buffer_sizes(ctx, o->max_size, &s, &r);
        if (s + r <= o->mem_limit || o->max_size <= o->min_size ||
            o->max_size <= ctx->desc->elem_size)
            break;
        o->max_size /= 2;
        o->max_size -= o->max_size % ctx->desc->elem_size;
    }
    if (o->max_size != before && ctx->rank == 0)
        printf("# Max message size lowered from %zu to %zu bytes by the memory limit "
               "(-M %zu)\n", before, o->max_size, o->mem_limit);
}

static double coll_time(const osu_ctx_t *ctx, const osu_coll_ops_t *ops, void *sbuf,
                        void *rbuf, size_t size, int *iters_p)
{
    int iters, skip;
    double timer = 0.0;

    osu_loop_counts(ctx, size, &iters, &skip);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
        double t0 = MPI_Wtime();

        ops->run(ctx, sbuf, rbuf, size);
        if (i >= skip)
            timer += MPI_Wtime() - t0;
        if (!ops->is_barrier)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    *iters_p = iters;
    return timer * 1e6 / iters;
}

static int coll_validate(const osu_ctx_t *ctx, const osu_coll_ops_t *ops, void *sbuf,
                         void *rbuf, size_t size)
{
    int errors = 0;

    for (int round = 0; round < OSU_VALIDATE_ROUNDS; round++)
        errors += ops->validate(ctx, sbuf, rbuf, size, round);
    return osu_agree(ctx, errors);
}

int osu_coll_main(const osu_bench_desc_t *desc, const osu_coll_ops_t *ops,
                  int argc, char **argv)
{
    osu_ctx_t ctx;
    int status, failed = 0, iters = 0;
    size_t sbytes, rbytes;
    void *sbuf, *rbuf;

    if (!osu_init(&ctx, desc, &argc, &argv, &status))
        return osu_finish(&ctx, status);
    coll_limit_max_size(&ctx, ops);
    ops->buffer_sizes(&ctx, ctx.opt.max_size, &sbytes, &rbytes);
    sbuf = osu_alloc(&ctx, sbytes);
    rbuf = osu_alloc(&ctx, rbytes);
    osu_print_header(&ctx);
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        int errors = ctx.opt.validate ? coll_validate(&ctx, ops, sbuf, rbuf, size) : 0;
        int valid = errors == 0;
        double us;

        if (!valid)
            failed = osu_report_failure(&ctx, size, errors);
        if (!valid && !ctx.opt.validation_column)
            break;
        us = coll_time(&ctx, ops, sbuf, rbuf, size, &iters);
        osu_print_coll(&ctx, size, us, iters, valid);
    }
    free(sbuf);
    free(rbuf);
    return osu_finish(&ctx, failed);
}
