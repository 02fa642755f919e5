/*
 * osu_reduce_scatter: MPI_Reduce_scatter latency, OSU style (MPI_FLOAT,
 * MPI_SUM; size is the bytes of the whole vector, count = size / 4 split
 * in p blocks of count / p elements, the first count % p ranks one more).
 * Validation sums integer-valued floats (exact in any order) and checks
 * each rank's block at its offset in the vector, and that no rank's send
 * buffer changed.
 */
#include "osu_util.h"

#include <stdio.h>
#include <stdlib.h>

static const osu_bench_desc_t reduce_scatter_desc = {
    .name = "osu_reduce_scatter", .title = "OSU MPI Reduce_scatter Latency Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .elem_size = sizeof(float),
    .min_size = sizeof(float), .max_size = 1 << 20, .iterations = 1000,
    .iterations_large = 100, .skip = 100, .skip_large = 10,
};

static int *rs_counts;   /* per rank, for the current size */

static void reduce_scatter_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                                   size_t *recv_p)
{
    (void)ctx;
    *send_p = size;
    *recv_p = size / (size_t)ctx->nranks + sizeof(float);
}

/* rs_counts for @p count elements; @return this rank's first element */
static size_t reduce_scatter_split(const osu_ctx_t *ctx, size_t count)
{
    size_t p = (size_t)ctx->nranks, off = 0;

    if (rs_counts == NULL && (rs_counts = malloc(p * sizeof(int))) == NULL) {
        fprintf(stderr, "osu_reduce_scatter: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t r = 0; r < p; r++) {
        rs_counts[r] = (int)(count / p + (r < count % p));
        if ((int)r < ctx->rank)
            off += (size_t)rs_counts[r];
    }
    return off;
}

static void reduce_scatter_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    static size_t last;

    if (size != last) {
        reduce_scatter_split(ctx, size / sizeof(float));
        last = size;
    }
    MPI_Reduce_scatter(sbuf, rbuf, rs_counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static int reduce_scatter_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                                   int round)
{
    size_t count = size / sizeof(float), off = reduce_scatter_split(ctx, count);
    size_t mine = (size_t)rs_counts[ctx->rank];
    uint32_t seed = osu_seed(size, round, 0, 0x7);
    float scale = (float)ctx->nranks * (float)(ctx->nranks + 1) / 2.0f;
    float *s = sbuf, *r = rbuf;

    for (size_t i = 0; i < count; i++)
        s[i] = osu_float_value(i, ctx->rank, seed);
    for (size_t i = 0; i < mine; i++)
        r[i] = -1.0f;
    MPI_Reduce_scatter(s, r, rs_counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (size_t i = 0; i < mine; i++) {
        float want = scale * osu_float_value(off + i, 0, seed);
        if (r[i] != want) {
            fprintf(stderr, "%s: validation failed on rank %d, size %zu: element %zu of the "
                    "block is %g, expected %g\n", ctx->desc->name, ctx->rank, size, i,
                    (double)r[i], (double)want);
            return 1;
        }
    }
    for (size_t i = 0; i < count; i++) {
        if (s[i] != osu_float_value(i, ctx->rank, seed)) {
            fprintf(stderr, "%s: validation failed on rank %d, size %zu: send buffer "
                    "element %zu changed\n", ctx->desc->name, ctx->rank, size, i);
            return 1;
        }
    }
    return 0;
}

static const osu_coll_ops_t reduce_scatter_ops = {
    .buffer_sizes = reduce_scatter_buffers, .run = reduce_scatter_run,
    .validate = reduce_scatter_validate,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&reduce_scatter_desc, &reduce_scatter_ops, argc, argv);
}
