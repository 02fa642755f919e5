/*
 * osu_mt_rate.c: message rate with T threads per rank (MPI_THREAD_MULTIPLE).
 *
 * Two ranks; thread i of rank 0 streams windows of W nonblocking sends
 * (-W, default 64) to thread i of rank 1, which pre-posts W receives and
 * answers each window with a zero-byte ack, all pairs at once on
 * MPI_COMM_WORLD with a tag per pair. Reported per size: the aggregate
 * messages per second over all pairs in the -i timed windows (first value
 * column, so compare.sh treats it like a bandwidth: higher is better) and
 * MB/s. The clock runs from all of rank 0's pairs ready (after the
 * validation window and the -x warm-up windows: the last pair's arrival at
 * the start barrier) to all done (the last pair's last ack), each pair
 * reading the clock itself, so thread start-up is not timed and neither
 * is the time a woken thread waits for a core. Run with -t 1, 2
 * and 4 to see how the rate scales with threads. Validation (default on,
 * untimed, once per size) checks every byte of one window per pair; -c adds
 * the Validation column. It asks for MPI_THREAD_MULTIPLE and fails without it;
 * -T single (or funneled, serialized) asks for that level instead and runs
 * its one pair (-t 1 only) on the main thread: the single-threaded run that
 * MULTIPLE with -t 1 is measured against (compare.sh: mt_rate1s).
 *
 *   osu_mt_rate [-t THREADS] [-m [MIN:]MAX] [-i WINDOWS] [-x WARMUP] [-W WINDOW] [-c]
 *               [-T single|funneled|serialized|multiple]
 *
 * Built with Open MPI's mpicc and with loomcc (bench/module.mk).
 */
#include "osu_mt.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define MAX_WINDOW  1024

static int rank;
static osu_mt_opts_t opt = { .nthreads = 1, .iters = 1000, .skip = 10, .window = 64,
                            .min_size = 1, .max_size = 1 << 16 };
static pthread_barrier_t bar;
static int pair_bad[MAX_THREADS];

static unsigned char pattern(size_t size, int pair, int k, size_t i)
{
    return (unsigned char)(size * 5 + (size_t)pair * 29 + (size_t)k * 13 + i);
}

/* one window: rank 0 sends, rank 1 receives and acks */
static void one_window(job_t *j, unsigned char *buf, MPI_Request *req, int fill_check)
{
    int peer = 1 - rank, tag = j->id, ack = 0;

    for (int k = 0; k < opt.window; ++k) {
        unsigned char *b = buf + (size_t)k * j->size;
        if (rank == 0) {
            if (fill_check) {
                for (size_t i = 0; i < j->size; ++i) {
                    b[i] = pattern(j->size, j->id, k, i);
                }
            }
            MPI_Isend(b, (int)j->size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[k]);
        } else {
            MPI_Irecv(b, (int)j->size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[k]);
        }
    }
    MPI_Waitall(opt.window, req, MPI_STATUSES_IGNORE);
    if (rank == 0) {
        MPI_Recv(&ack, 0, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Send(&ack, 0, MPI_INT, peer, tag, MPI_COMM_WORLD);
    for (int k = 0; fill_check && k < opt.window; ++k) {
        for (size_t i = 0; i < j->size; ++i) {
            if (buf[(size_t)k * j->size + i] != pattern(j->size, j->id, k, i)) {
                fprintf(stderr, "osu_mt_rate: pair %d size %zu message %d byte %zu wrong\n",
                        j->id, j->size, k, i);
                pair_bad[j->id] = 1;
                return;
            }
        }
    }
}

/*
 * The timed windows of one size: each pair's clock at its arrival at the
 * start barrier and at its last window's end. The run's time is the last
 * end minus the last arrival. Pair 0 reading the clock after the barrier
 * would start late whenever another pair, the barrier's last arrival, kept
 * the core and ran its windows before pair 0 was scheduled: two threads on
 * one core (ranks bound to cores) then ran their pairs one after the other
 * and the rate came out up to twice the true one.
 */
static double t_ready[MAX_THREADS], t_done[MAX_THREADS];

/** The time of the timed windows: last end minus last arrival. */
static double timed_span(int nthreads)
{
    double start = t_ready[0], end = t_done[0];

    for (int k = 1; k < nthreads; ++k) {
        start = t_ready[k] > start ? t_ready[k] : start;
        end = t_done[k] > end ? t_done[k] : end;
    }
    return end - start;
}

static void *pair_thread(void *arg)
{
    job_t *j = arg;
    unsigned char *buf = calloc((size_t)opt.window, j->size + 1);
    MPI_Request req[MAX_WINDOW];

    pair_bad[j->id] = 0;
    one_window(j, buf, req, 1);   /* validation, untimed */
    for (int i = 0; i < opt.skip; ++i) {
        one_window(j, buf, req, 0);   /* warm-up, untimed */
    }
    /* the clock runs from all pairs ready to all pairs done (timed_span):
     * thread start-up and the warm-up stay out, so -t 1 at MULTIPLE (one
     * thread created) and -T single (none) time the same windows */
    t_ready[j->id] = MPI_Wtime();
    pthread_barrier_wait(&bar);
    for (int i = 0; i < opt.iters; ++i) {
        one_window(j, buf, req, 0);
    }
    t_done[j->id] = MPI_Wtime();
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    int all_bad = 0;
    int size, provided = osu_mt_init(&argc, &argv, "t:m:i:x:W:cT:", &opt, &rank, &size);

    if (!osu_mt_usable(&opt, "osu_mt_rate", rank, provided, size)) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (opt.window < 1 || opt.window > MAX_WINDOW || opt.iters < 1 || opt.skip < 0) {
        if (rank == 0) {
            fprintf(stderr, "osu_mt_rate: needs a window of 1..%d (got %d), 1 or more "
                    "windows (got %d), a warmup >= 0 (got %d)\n", MAX_WINDOW, opt.window,
                    opt.iters, opt.skip);
        }
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        printf("# OSU MPI Multi-threaded Message Rate Test (loom bench)\n");
        printf("# Threads per rank: %d, window %d, thread level %s\n", opt.nthreads, opt.window,
               osu_mt_level_name(opt.level));
        printf("%-10s%*s%*s%s\n", "# Size", 20, "Messages/s", 20, "MB/s",
               opt.show_valid ? "        Validation" : "");
    }
    pthread_barrier_init(&bar, NULL, (unsigned)opt.nthreads);
    for (size_t sz = opt.min_size; sz <= opt.max_size; sz *= 2) {
        int bad = 0;
        double t;
        MPI_Barrier(MPI_COMM_WORLD);
        osu_mt_run(opt.nthreads, opt.level, sz, pair_thread);
        for (int k = 0; k < opt.nthreads; ++k) {
            bad |= pair_bad[k];
        }
        t = timed_span(opt.nthreads);
        all_bad = osu_mt_agree(bad);
        if (rank == 0) {
            double msgs = (double)opt.nthreads * opt.window * opt.iters;
            printf("%-10zu%*.*f%*.*f%s\n", sz, 20, 2, msgs / t, 20, 2, msgs * sz / t / 1e6,
                   osu_mt_valid_col(&opt, all_bad));
            fflush(stdout);
        }
        if (all_bad) {
            break;
        }
    }
    return osu_mt_finish(&bar, all_bad);
}
