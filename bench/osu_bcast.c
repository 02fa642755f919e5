/*
 * osu_bcast: MPI_Bcast latency, OSU style (MPI_CHAR, root 0).
 * Validation broadcasts a size- and round-dependent pattern from root 0 (the
 * timed root) and from the last rank, into poisoned buffers everywhere else.
 */
#include "osu_util.h"

#include <stdio.h>

static const osu_bench_desc_t bcast_desc = {
    .name = "osu_bcast", .title = "OSU MPI Broadcast Latency Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .elem_size = 1, .min_size = 1,
    .max_size = 1 << 20, .iterations = 1000, .iterations_large = 100, .skip = 100,
    .skip_large = 10,
};

static void bcast_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                          size_t *recv_p)
{
    (void)ctx;
    *send_p = size;
    *recv_p = 0;
}

static void bcast_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    (void)ctx;
    (void)rbuf;
    MPI_Bcast(sbuf, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static int bcast_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                          int round)
{
    int roots[2] = { 0, ctx->nranks - 1 }, errors = 0;
    char what[64];

    (void)rbuf;
    for (int k = 0; k < 2; k++) {
        uint32_t seed = osu_seed(size, round, roots[k], 0xb);

        if (ctx->rank == roots[k])
            osu_fill(sbuf, size, seed);
        else
            osu_poison(sbuf, size, seed);
        MPI_Bcast(sbuf, (int)size, MPI_CHAR, roots[k], MPI_COMM_WORLD);
        snprintf(what, sizeof(what), "buffer after bcast from root %d", roots[k]);
        errors += osu_check(ctx, sbuf, size, seed, size, what);
    }
    return errors;
}

static const osu_coll_ops_t bcast_ops = {
    .buffer_sizes = bcast_buffers, .run = bcast_run, .validate = bcast_validate,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&bcast_desc, &bcast_ops, argc, argv);
}
