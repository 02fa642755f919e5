/*
 * osu_alltoall: MPI_Alltoall latency, OSU style (MPI_CHAR, size bytes per
 * pair). Validation: the block rank s sends to rank d carries the pattern of
 * (s, d), so a block delivered to the wrong rank or slot is caught.
 */
#include "osu_util.h"

#include <stdio.h>

static const osu_bench_desc_t alltoall_desc = {
    .name = "osu_alltoall",
    .title = "OSU MPI All-to-All Personalized Exchange Latency Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .elem_size = 1, .min_size = 1,
    .max_size = 1 << 20, .iterations = 1000, .iterations_large = 100, .skip = 100,
    .skip_large = 10,
};

static void alltoall_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                             size_t *recv_p)
{
    *send_p = size * (size_t)ctx->nranks;
    *recv_p = size * (size_t)ctx->nranks;
}

static void alltoall_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    (void)ctx;
    MPI_Alltoall(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
}

static int alltoall_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                             int round)
{
    char what[64];
    int errors = 0;

    for (int r = 0; r < ctx->nranks; r++) {
        osu_fill((char *)sbuf + (size_t)r * size, size, osu_seed(size, round, ctx->rank, r));
        osu_poison((char *)rbuf + (size_t)r * size, size, osu_seed(size, round, r, ctx->rank));
    }
    MPI_Alltoall(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < ctx->nranks && errors == 0; r++) {
        snprintf(what, sizeof(what), "block from rank %d", r);
        errors += osu_check(ctx, (char *)rbuf + (size_t)r * size, size,
                            osu_seed(size, round, r, ctx->rank), size, what);
    }
    return errors;
}

static const osu_coll_ops_t alltoall_ops = {
    .buffer_sizes = alltoall_buffers, .run = alltoall_run, .validate = alltoall_validate,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&alltoall_desc, &alltoall_ops, argc, argv);
}
