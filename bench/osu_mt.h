/*
 * osu_mt.h: what the two MPI_THREAD_MULTIPLE benchmarks (osu_latency_mt.c,
 * osu_mt_rate.c) share: their options and running one thread per pair.
 *
 * Header-only (static functions): those programs are built standalone,
 * without osu_util.c (their own option set, pthreads; bench/module.mk
 * builds them with -pthread for both Open MPI and loom), so each includes
 * this once and nothing else links it.
 *
 *   -t THREADS  -m [MIN:]MAX  -i ITERS  -x WARMUP  -c  (and -W WINDOW where
 *   the program asks for it)
 */
#ifndef OSU_MT_H
#define OSU_MT_H

#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 64

/** Options of a multi-threaded benchmark (each program sets the defaults). */
typedef struct osu_mt_opts {
    int    nthreads;
    int    iters;
    int    skip;
    int    window;       /* -W, only where the option string has it */
    int    show_valid;   /* -c: print the Validation column */
    size_t min_size;
    size_t max_size;
} osu_mt_opts_t;

/** What one pair's thread runs on: its pair number and the message size. */
typedef struct { int id; size_t size; } job_t;

/**
 * Parse @p optstring's options (a subset of "t:m:i:x:W:c") into @p o,
 * leaving the defaults of the ones not given; unknown options are ignored.
 */
static void osu_mt_parse(int argc, char **argv, const char *optstring, osu_mt_opts_t *o)
{
    int c;
    char *colon;

    while ((c = getopt(argc, argv, optstring)) != -1) {
        switch (c) {
        case 't': o->nthreads = atoi(optarg); break;
        case 'm':
            colon = strchr(optarg, ':');
            if (colon != NULL) {
                o->min_size = strtoul(optarg, NULL, 10);
                o->max_size = strtoul(colon + 1, NULL, 10);
            } else {
                o->max_size = strtoul(optarg, NULL, 10);
            }
            break;
        case 'i': o->iters = atoi(optarg); break;
        case 'x': o->skip = atoi(optarg); break;
        case 'W': o->window = atoi(optarg); break;
        case 'c': o->show_valid = 1; break;
        default: break;
        }
    }
}

/**
 * Run @p fn on @p nthreads threads, thread k on job[k] = { k, @p size },
 * and wait for all of them.
 */
static void osu_mt_run(int nthreads, size_t size, void *(*fn)(void *))
{
    pthread_t th[MAX_THREADS];
    job_t job[MAX_THREADS];

    for (int k = 0; k < nthreads; ++k) {
        job[k].id = k;
        job[k].size = size;
        pthread_create(&th[k], NULL, fn, &job[k]);
    }
    for (int k = 0; k < nthreads; ++k) {
        pthread_join(th[k], NULL);
    }
}

/**
 * MPI_Init_thread asking for MPI_THREAD_MULTIPLE, this rank and the size
 * of MPI_COMM_WORLD in @p rank and @p size, then the options (osu_mt_parse).
 * @return the thread level granted (the caller checks it).
 */
static int osu_mt_init(int *argc, char ***argv, const char *optstring, osu_mt_opts_t *o,
                       int *rank, int *size)
{
    int provided;

    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    osu_mt_parse(*argc, *argv, optstring, o);
    return provided;
}

/**
 * Validation of one size over both ranks: @p bad is this rank's verdict
 * (nonzero: a wrong byte). @return 1 when any rank saw a wrong byte.
 */
static int osu_mt_agree(int bad)
{
    int all_bad = 0;

    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all_bad;
}

/** The Validation column (empty without -c) for a size whose verdict is @p all_bad. */
static const char *osu_mt_valid_col(const osu_mt_opts_t *o, int all_bad)
{
    return o->show_valid ? (all_bad ? "              Fail" : "              Pass") : "";
}

/**
 * End of the run: destroy the threads' barrier @p bar, MPI_Finalize.
 * @return the exit status: 1 when a size failed validation (@p failed).
 */
static int osu_mt_finish(pthread_barrier_t *bar, int failed)
{
    pthread_barrier_destroy(bar);
    MPI_Finalize();
    return failed ? 1 : 0;
}

#endif /* OSU_MT_H */
