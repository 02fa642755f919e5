/*
 * osu_allgather: MPI_Allgather latency, OSU style (MPI_CHAR, size bytes per
 * rank). Validation: each rank contributes its own pattern; every rank
 * checks every block of its poisoned receive buffer.
 */
#include "osu_util.h"

#include <stdio.h>

static const osu_bench_desc_t allgather_desc = {
    .name = "osu_allgather", .title = "OSU MPI Allgather Latency Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .elem_size = 1, .min_size = 1,
    .max_size = 1 << 20, .iterations = 1000, .iterations_large = 100, .skip = 100,
    .skip_large = 10,
};

static void allgather_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                              size_t *recv_p)
{
    *send_p = size;
    *recv_p = size * (size_t)ctx->nranks;
}

static void allgather_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    (void)ctx;
    MPI_Allgather(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
}

static int allgather_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                              int round)
{
    char what[64];
    int errors = 0;

    osu_fill(sbuf, size, osu_seed(size, round, ctx->rank, 0x6));
    for (int r = 0; r < ctx->nranks; r++)
        osu_poison((char *)rbuf + (size_t)r * size, size, osu_seed(size, round, r, 0x6));
    MPI_Allgather(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < ctx->nranks && errors == 0; r++) {
        snprintf(what, sizeof(what), "block from rank %d", r);
        errors += osu_check(ctx, (char *)rbuf + (size_t)r * size, size,
                            osu_seed(size, round, r, 0x6), size, what);
    }
    return errors;
}

static const osu_coll_ops_t allgather_ops = {
    .buffer_sizes = allgather_buffers, .run = allgather_run,
    .validate = allgather_validate,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&allgather_desc, &allgather_ops, argc, argv);
}
