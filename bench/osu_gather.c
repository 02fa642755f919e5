/*
 * osu_gather: MPI_Gather latency, OSU style (MPI_CHAR, size bytes per rank,
 * root 0). Validation gathers each rank's own pattern to root 0 (the timed
 * root) and to the last rank, into a poisoned receive buffer, and checks
 * every block there.
 */
#include "osu_util.h"

#include <stdio.h>

static const osu_bench_desc_t gather_desc = {
    .name = "osu_gather", .title = "OSU MPI Gather Latency Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .elem_size = 1, .min_size = 1,
    .max_size = 1 << 20, .iterations = 1000, .iterations_large = 100, .skip = 100,
    .skip_large = 10,
};

static void gather_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                           size_t *recv_p)
{
    *send_p = size;
    *recv_p = size * (size_t)ctx->nranks;
}

static void gather_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    (void)ctx;
    MPI_Gather(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static int gather_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                           int round)
{
    int roots[2] = { 0, ctx->nranks - 1 }, errors = 0;
    char what[64];

    for (int k = 0; k < 2; k++) {
        osu_fill(sbuf, size, osu_seed(size, round, ctx->rank, 0xc + k));
        for (int r = 0; r < ctx->nranks; r++)
            osu_poison((char *)rbuf + (size_t)r * size, size,
                       osu_seed(size, round, r, 0xc + k));
        MPI_Gather(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, roots[k],
                   MPI_COMM_WORLD);
        for (int r = 0; ctx->rank == roots[k] && r < ctx->nranks && errors == 0; r++) {
            snprintf(what, sizeof(what), "block from rank %d at root %d", r, roots[k]);
            errors += osu_check(ctx, (char *)rbuf + (size_t)r * size, size,
                                osu_seed(size, round, r, 0xc + k), size, what);
        }
    }
    return errors;
}

static const osu_coll_ops_t gather_ops = {
    .buffer_sizes = gather_buffers, .run = gather_run, .validate = gather_validate,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&gather_desc, &gather_ops, argc, argv);
}
