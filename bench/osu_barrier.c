/*
 * osu_barrier: MPI_Barrier latency, OSU style (no size column).
 *
 * Validation checks what a barrier promises, with local clocks only: each
 * rank k in turn enters 20 ms late; every other rank must then spend at
 * least 10 ms inside MPI_Barrier. A barrier that lets ranks through early
 * fails. An oversubscribed scheduler can delay a rank's own entry and make
 * a correct barrier look early, so a miss is retried twice before it counts.
 */
#include "osu_util.h"

#include <stdio.h>
#include <time.h>

#define BARRIER_LATE_S   0.020
#define BARRIER_MIN_S    0.010
#define BARRIER_ATTEMPTS 3

static const osu_bench_desc_t barrier_desc = {
    .name = "osu_barrier", .title = "OSU MPI Barrier Latency Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 0, .elem_size = 1, .min_size = 0,
    .max_size = 0, .iterations = 1000, .iterations_large = 1000, .skip = 100,
    .skip_large = 100,
};

static void barrier_buffers(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                            size_t *recv_p)
{
    (void)ctx;
    (void)size;
    *send_p = 0;
    *recv_p = 0;
}

static void barrier_run(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size)
{
    (void)ctx;
    (void)sbuf;
    (void)rbuf;
    (void)size;
    MPI_Barrier(MPI_COMM_WORLD);
}

/* One try with @p late entering late; returns 1 if this rank left early. */
static int barrier_try(const osu_ctx_t *ctx, int late, int report)
{
    struct timespec ts = { 0, (long)(BARRIER_LATE_S * 1e9) };
    double t0, waited;

    MPI_Barrier(MPI_COMM_WORLD);
    if (ctx->rank == late)
        nanosleep(&ts, NULL);
    t0 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    waited = MPI_Wtime() - t0;
    if (ctx->rank == late || waited >= BARRIER_MIN_S)
        return 0;
    if (report)
        fprintf(stderr, "%s: validation failed on rank %d: left the barrier after "
                "%.3f ms while rank %d entered %.0f ms late\n", ctx->desc->name,
                ctx->rank, waited * 1e3, late, BARRIER_LATE_S * 1e3);
    return 1;
}

static int barrier_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                            int round)
{
    int errors = 0;

    (void)sbuf;
    (void)rbuf;
    (void)size;
    if (round != 0)
        return 0;
    for (int late = 0; late < ctx->nranks; late++) {
        int bad = 1;

        for (int a = 0; a < BARRIER_ATTEMPTS && bad; a++)
            bad = osu_agree(ctx, barrier_try(ctx, late, a == BARRIER_ATTEMPTS - 1)) != 0;
        errors += bad && ctx->rank == 0;
    }
    return errors;
}

static const osu_coll_ops_t barrier_ops = {
    .buffer_sizes = barrier_buffers, .run = barrier_run, .validate = barrier_validate,
    .is_barrier = 1,
};

int main(int argc, char **argv)
{
    return osu_coll_main(&barrier_desc, &barrier_ops, argc, argv);
}
