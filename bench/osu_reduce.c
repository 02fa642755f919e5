/*
 * osu_reduce: MPI_Reduce latency, OSU style (MPI_FLOAT, MPI_SUM, root 0;
 * sizes are bytes, count = size / 4). Validation sums integer-valued floats
 * (exact in any order) to root 0 and to the last rank, and checks that no
 * rank's send buffer changed.
 */
#include "osu_util.h"

#include <stdio.h>

static const osu_bench_desc_t reduce_desc = {
    .name = "osu_reduce", .title = "OSU MPI Reduce Latency Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .elem_size = sizeof(float),
    .min_size = sizeof(float), .max_size = 1 << 20, .iterations = 1000,
    .iterations_large = 100, .skip = 100, .skip_large = 10,
};

static void reduce_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                           size_t *recv_p)
{
    (void)ctx;
    *send_p = size;
    *recv_p = size;
}

static void reduce_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    (void)ctx;
    MPI_Reduce(sbuf, rbuf, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM, 0,
               MPI_COMM_WORLD);
}

/* Send buffer unchanged after the call (MPI forbids writing it). */
static int reduce_check_send(const osu_ctx_t *ctx, const float *s, size_t count,
                             uint32_t seed, size_t size)
{
    for (size_t i = 0; i < count; i++) {
        if (s[i] != osu_float_value(i, ctx->rank, seed)) {
            fprintf(stderr, "%s: validation failed on rank %d, size %zu: send buffer "
                    "element %zu changed to %g\n", ctx->desc->name, ctx->rank, size, i,
                    (double)s[i]);
            return 1;
        }
    }
    return 0;
}

static int reduce_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                           int round)
{
    int roots[2] = { 0, ctx->nranks - 1 }, errors = 0;
    size_t count = size / sizeof(float);
    float *s = sbuf, *r = rbuf;
    char what[64];

    for (int k = 0; k < 2; k++) {
        uint32_t seed = osu_seed(size, round, roots[k], 0x5);

        for (size_t i = 0; i < count; i++) {
            s[i] = osu_float_value(i, ctx->rank, seed);
            r[i] = -1.0f;
        }
        MPI_Reduce(s, r, (int)count, MPI_FLOAT, MPI_SUM, roots[k], MPI_COMM_WORLD);
        snprintf(what, sizeof(what), "sum at root %d", roots[k]);
        if (ctx->rank == roots[k])
            errors += osu_check_float_sum(ctx, r, count, seed, size, what);
        errors += reduce_check_send(ctx, s, count, seed, size);
    }
    return errors;
}

static const osu_coll_ops_t reduce_ops = {
    .buffer_sizes = reduce_buffers, .run = reduce_run, .validate = reduce_validate,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&reduce_desc, &reduce_ops, argc, argv);
}
