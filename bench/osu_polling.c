/*
 * osu_polling: a ring exchange completed by a polling loop, OSU style.
 *
 * Every rank posts MPI_Irecv from its left neighbour and MPI_Isend to its
 * right one, then calls MPI_Testall on the pair until both completed: the
 * way codes that overlap communication with work (and halo exchanges in
 * hypre-like solvers) finish their requests. The time is one round, per
 * rank, averaged over ranks as the collective benchmarks report it.
 *
 *   rank r:  Irecv(left) ; Isend(right) ; while (!flag) Testall(2, ...)
 *
 * What it measures besides the transfer is how a library's polling call
 * behaves when ranks outnumber cores: a test that finds nothing must give
 * the core to the rank it waits for, or each round costs a time slice.
 *
 * Validation (untimed, each size and round): the data a rank receives is
 * the pattern of its left neighbour for that size and round, and the
 * receive status names the left neighbour, the tag and the size.
 */
#include "osu_util.h"

#include <stdio.h>

#define POLLING_TAG 7

static const osu_bench_desc_t polling_desc = {
    .name = "osu_polling", .title = "OSU-style MPI Testall Polling Ring Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .elem_size = 1, .min_size = 1,
    .max_size = 1u << 20, .iterations = 1000, .iterations_large = 100, .skip = 100,
    .skip_large = 10,
};

static void polling_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                            size_t *recv_p)
{
    (void)ctx;
    *send_p = size;
    *recv_p = size;
}

/* Post the pair of the ring and poll it to completion; statuses may be NULL. */
static void polling_round(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                          MPI_Status st[2])
{
    int left = (ctx->rank + ctx->nranks - 1) % ctx->nranks;
    int right = (ctx->rank + 1) % ctx->nranks;
    MPI_Request req[2];
    int flag = 0;

    MPI_Irecv(rbuf, (int)size, MPI_CHAR, left, POLLING_TAG, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, (int)size, MPI_CHAR, right, POLLING_TAG, MPI_COMM_WORLD, &req[1]);
    while (!flag)
        MPI_Testall(2, req, &flag, st != NULL ? st : MPI_STATUSES_IGNORE);
}

static void polling_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    polling_round(ctx, sbuf, rbuf, size, NULL);
}

static int polling_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                            int round)
{
    int left = (ctx->rank + ctx->nranks - 1) % ctx->nranks;
    uint32_t mine = osu_seed(size, round, ctx->rank, 0);
    uint32_t theirs = osu_seed(size, round, left, 0);
    MPI_Status st[2];
    int errors;

    osu_fill(sbuf, size, mine);
    osu_poison(rbuf, size, theirs);
    polling_round(ctx, sbuf, rbuf, size, st);
    errors = osu_check_status(ctx, &st[0], left, POLLING_TAG, size);
    errors += osu_check(ctx, rbuf, size, theirs, size, "block from the left neighbour");
    return errors;
}

static const osu_coll_ops_t polling_ops = {
    .buffer_sizes = polling_buffers, .run = polling_run, .validate = polling_validate,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&polling_desc, &polling_ops, argc, argv);
}
