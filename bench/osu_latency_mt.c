/*
 * osu_latency_mt.c: multi-threaded ping-pong latency (MPI_THREAD_MULTIPLE),
 * in the manner of OSU's osu_latency_mt.
 *
 * Two ranks; each runs T threads (-t, default 2) and thread i of rank 0
 * ping-pongs with thread i of rank 1 on its own tag, all pairs at once on
 * MPI_COMM_WORLD. The reported latency is the one-way time averaged over
 * every pair's round trips (half the round trip), per size, in the OSU
 * output format ("# Size" column, values of width 20, two decimals), so
 * compare.sh parses it as it parses osu_latency. Validation (on by default,
 * untimed, once per size): every pair exchanges data that depends on the
 * size, the pair and the direction, and a wrong byte fails the run; -c adds
 * the Validation column. The program asks for MPI_THREAD_MULTIPLE and exits
 * with an error when the library does not grant it; -T single (or funneled,
 * serialized) asks for that level instead and runs its one pair (-t 1 only)
 * on the main thread.
 *
 *   osu_latency_mt [-t THREADS] [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-c]
 *                  [-T single|funneled|serialized|multiple]
 *
 * Written once against the MPI API: built with Open MPI's mpicc and with
 * loomcc (bench/module.mk).
 */
#include "osu_mt.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
static osu_mt_opts_t opt = { .nthreads = 2, .iters = 10000, .skip = 100,
                            .min_size = 0, .max_size = 1 << 22 };
static pthread_barrier_t bar;
static double pair_time[MAX_THREADS];
static int pair_bad[MAX_THREADS];

static unsigned char pattern(size_t size, int pair, int dir, size_t i)
{
    return (unsigned char)(size * 7 + (size_t)pair * 31 + (size_t)dir * 101 + i);
}

static int check(const unsigned char *buf, size_t size, int pair, int dir)
{
    for (size_t i = 0; i < size; ++i) {
        if (buf[i] != pattern(size, pair, dir, i)) {
            fprintf(stderr, "osu_latency_mt: rank %d pair %d size %zu: byte %zu wrong\n",
                    rank, pair, size, i);
            return 1;
        }
    }
    return 0;
}

/* one round trip of @p size bytes with @p peer: rank 0 sends first */
static void round_trip(unsigned char *s, unsigned char *r, size_t size, int peer, int tag)
{
    if (rank == 0) {
        MPI_Send(s, (int)size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
        MPI_Recv(r, (int)size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(r, (int)size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(s, (int)size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
    }
}

static void *pair_thread(void *arg)
{
    job_t *j = arg;
    int peer = 1 - rank, tag = j->id, n = j->size > 8192 ? opt.iters / 10 + 1 : opt.iters;
    int warm = j->size > 8192 ? opt.skip / 10 + 1 : opt.skip;
    unsigned char *s = malloc(j->size + 1), *r = malloc(j->size + 1);
    double t0 = 0;

    for (size_t i = 0; i < j->size; ++i) {   /* validation round, untimed */
        s[i] = pattern(j->size, j->id, rank, i);
    }
    memset(r, 0, j->size + 1);
    round_trip(s, r, j->size, peer, tag);
    pair_bad[j->id] = check(r, j->size, j->id, peer);
    pthread_barrier_wait(&bar);
    for (int i = 0; i < n + warm; ++i) {
        if (i == warm) {
            t0 = MPI_Wtime();
        }
        round_trip(s, r, j->size, peer, tag);
    }
    pair_time[j->id] = (MPI_Wtime() - t0) * 1e6 / (2.0 * n);
    free(s);
    free(r);
    return NULL;
}

int main(int argc, char **argv)
{
    int all_bad = 0;
    int size, provided = osu_mt_init(&argc, &argv, "t:m:i:x:cT:", &opt, &rank, &size);

    if (!osu_mt_usable(&opt, "osu_latency_mt", rank, provided, size)) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (opt.iters < 1 || opt.skip < 0) {
        if (rank == 0) {
            fprintf(stderr, "osu_latency_mt: needs 1 or more iterations (got %d), a warmup "
                    ">= 0 (got %d)\n", opt.iters, opt.skip);
        }
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        printf("# OSU MPI Multi-threaded Latency Test (loom bench)\n");
        printf("# Number of sending/receiving threads: %d, thread level %s\n", opt.nthreads,
               osu_mt_level_name(opt.level));
        printf("%-10s%*s%s\n", "# Size", 20, "Latency (us)", opt.show_valid ? "        Validation" : "");
    }
    pthread_barrier_init(&bar, NULL, (unsigned)opt.nthreads);
    for (size_t sz = opt.min_size; sz <= opt.max_size; sz = sz ? sz * 2 : 1) {
        double sum = 0;
        int bad = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        osu_mt_run(opt.nthreads, opt.level, sz, pair_thread);
        for (int t = 0; t < opt.nthreads; ++t) {
            sum += pair_time[t];
            bad |= pair_bad[t];
        }
        all_bad = osu_mt_agree(bad);
        if (rank == 0) {
            printf("%-10zu%*.*f%s\n", sz, 20, 2, sum / opt.nthreads,
                   osu_mt_valid_col(&opt, all_bad));
            fflush(stdout);
        }
        if (all_bad) {
            break;
        }
    }
    return osu_mt_finish(&bar, all_bad);
}
