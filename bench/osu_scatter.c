/*
 * osu_scatter: MPI_Scatter latency, OSU style (MPI_CHAR, size bytes per
 * rank, root 0). Validation scatters a pattern per destination from root 0
 * (the timed root) and from the last rank; every rank checks its poisoned
 * receive buffer.
 */
#include "osu_util.h"

#include <stdio.h>

static const osu_bench_desc_t scatter_desc = {
    .name = "osu_scatter", .title = "OSU MPI Scatter Latency Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .elem_size = 1, .min_size = 1,
    .max_size = 1 << 20, .iterations = 1000, .iterations_large = 100, .skip = 100,
    .skip_large = 10,
};

static void scatter_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                            size_t *recv_p)
{
    *send_p = size * (size_t)ctx->nranks;
    *recv_p = size;
}

static void scatter_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    (void)ctx;
    MPI_Scatter(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static int scatter_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                            int round)
{
    int roots[2] = { 0, ctx->nranks - 1 }, errors = 0;
    char what[64];

    for (int k = 0; k < 2; k++) {
        uint32_t mine = osu_seed(size, round, ctx->rank, 0xe + k);

        for (int r = 0; ctx->rank == roots[k] && r < ctx->nranks; r++)
            osu_fill((char *)sbuf + (size_t)r * size, size, osu_seed(size, round, r, 0xe + k));
        osu_poison(rbuf, size, mine);
        MPI_Scatter(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, roots[k],
                    MPI_COMM_WORLD);
        snprintf(what, sizeof(what), "block from root %d", roots[k]);
        errors += osu_check(ctx, rbuf, size, mine, size, what);
    }
    return errors;
}

static const osu_coll_ops_t scatter_ops = {
    .buffer_sizes = scatter_buffers, .run = scatter_run, .validate = scatter_validate,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&scatter_desc, &scatter_ops, argc, argv);
}
