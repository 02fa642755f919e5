/*
 * osu_allreduce: MPI_Allreduce latency, OSU style (MPI_FLOAT, MPI_SUM; sizes
 * are bytes, count = size / 4). Validation sums integer-valued floats, exact
 * in any reduction order, and every rank checks every element.
 */
#include "osu_util.h"

static const osu_bench_desc_t allreduce_desc = {
    .name = "osu_allreduce", .title = "OSU MPI Allreduce Latency Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .elem_size = sizeof(float),
    .min_size = sizeof(float), .max_size = 1 << 20, .iterations = 1000,
    .iterations_large = 100, .skip = 100, .skip_large = 10,
};

static void allreduce_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                              size_t *recv_p)
{
    (void)ctx;
    *send_p = size;
    *recv_p = size;
}

static void allreduce_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    (void)ctx;
    MPI_Allreduce(sbuf, rbuf, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
}

static int allreduce_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                              int round)
{
    size_t count = size / sizeof(float);
    uint32_t seed = osu_seed(size, round, 0, 0xa);
    float *s = sbuf, *r = rbuf;

    for (size_t i = 0; i < count; i++) {
        s[i] = osu_float_value(i, ctx->rank, seed);
        r[i] = -1.0f;
    }
    MPI_Allreduce(s, r, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    return osu_check_float_sum(ctx, r, count, seed, size, "allreduce result");
}

static const osu_coll_ops_t allreduce_ops = {
    .buffer_sizes = allreduce_buffers, .run = allreduce_run,
    .validate = allreduce_validate,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&allreduce_desc, &allreduce_ops, argc, argv);
}
