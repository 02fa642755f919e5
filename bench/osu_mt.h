/*
 * osu_mt.h: what the two MPI_THREAD_MULTIPLE benchmarks (osu_latency_mt.c,
 * osu_mt_rate.c) share: their options and running one thread per pair.
 *
 * Header-only (static functions): those programs are built standalone,
 * without osu_util.c (their own option set, pthreads; bench/module.mk
 * builds them with -pthread for both Open MPI and loom), so each includes
 * this once and nothing else links it.
 *
 *   -t THREADS  -m [MIN:]MAX  -i ITERS  -x WARMUP  -c  (and -W WINDOW, -T LEVEL
 *   where the program asks for them)
 *
 * -T single|funneled|serialized|multiple picks the thread level asked for
 * (default multiple). Below MULTIPLE only -t 1 is allowed and the one pair
 * runs on the main thread, no thread is created: that is "the
 * single-threaded run" the issue measures MULTIPLE with one thread against
 * (compare.sh's mt_rate1s series).
 */
#ifndef OSU_MT_H
#define OSU_MT_H

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 64
#define OSU_MT_STR_(x) #x
#define OSU_MT_STR(x)  OSU_MT_STR_(x)

/** Options of a multi-threaded benchmark (each program sets the defaults). */
typedef struct osu_mt_opts {
    int    nthreads;
    int    iters;
    int    skip;
    int    window;       /* -W, only where the option string has it */
    int    show_valid;   /* -c: print the Validation column */
    int    level;        /* -T: the thread level asked for (-1: unknown name) */
    size_t min_size;
    size_t max_size;
} osu_mt_opts_t;

/** What one pair's thread runs on: its pair number and the message size. */
typedef struct { int id; size_t size; } job_t;

/** The MPI_THREAD_* level named @p name (single, ..., multiple); -1 if none. */
static int osu_mt_level_of(const char *name)
{
    static const char *const names[] = { "single", "funneled", "serialized", "multiple" };
    static const int levels[] = { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED,
                                  MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE };

    for (int k = 0; k < 4; ++k) {
        if (strcmp(name, names[k]) == 0) {
            return levels[k];
        }
    }
    return -1;
}

/** The name of thread level @p level (for messages and the output header). */
static const char *osu_mt_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:     return "SINGLE";
    case MPI_THREAD_FUNNELED:   return "FUNNELED";
    case MPI_THREAD_SERIALIZED: return "SERIALIZED";
    case MPI_THREAD_MULTIPLE:   return "MULTIPLE";
    default:                    return "unknown";
    }
}

/**
 * Parse @p optstring's options (a subset of "t:m:i:x:W:cT:") into @p o,
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
        case 'T': o->level = osu_mt_level_of(optarg); break;
        default: break;
        }
    }
}

/**
 * Run @p fn on @p nthreads threads, thread k on job[k] = { k, @p size },
 * and wait for all of them. Below MULTIPLE (@p level) the one job runs on
 * the calling (main) thread.
 */
static void osu_mt_run(int nthreads, int level, size_t size, void *(*fn)(void *))
{
    pthread_t th[MAX_THREADS];
    job_t job[MAX_THREADS];

    if (level != MPI_THREAD_MULTIPLE) {
        job[0].id = 0;
        job[0].size = size;
        fn(&job[0]);
        return;
    }
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
 * The options (osu_mt_parse), then MPI_Init_thread asking for the level of
 * -T (MPI_THREAD_MULTIPLE by default; SINGLE when -T named no level, which
 * osu_mt_usable then rejects), this rank and the size of MPI_COMM_WORLD in
 * @p rank and @p size.
 * @return the thread level granted (the caller checks it: osu_mt_usable).
 */
static int osu_mt_init(int *argc, char ***argv, const char *optstring, osu_mt_opts_t *o,
                       int *rank, int *size)
{
    int provided;

    o->level = MPI_THREAD_MULTIPLE;
    osu_mt_parse(*argc, *argv, optstring, o);
    MPI_Init_thread(argc, argv, o->level < 0 ? MPI_THREAD_SINGLE : o->level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return provided;
}

/**
 * The checks both programs share: a known -T level, granted (@p provided),
 * 2 ranks (@p size), 1..MAX_THREADS threads, and one thread below MULTIPLE.
 * Rank 0 (@p rank) prints what was wrong on behalf of @p prog.
 * @return 1 when the run can go ahead.
 */
static int osu_mt_usable(const osu_mt_opts_t *o, const char *prog, int rank, int provided,
                         int size)
{
    const char *why = NULL;

    if (o->level < 0) {
        why = "-T takes single, funneled, serialized or multiple";
    } else if (provided < o->level) {
        why = "the library did not grant the thread level asked for";
    } else if (size != 2) {
        why = "it runs on exactly 2 ranks";
    } else if (o->nthreads < 1 || o->nthreads > MAX_THREADS) {
        why = "-t takes 1.." OSU_MT_STR(MAX_THREADS) " threads";
    } else if (o->level != MPI_THREAD_MULTIPLE && o->nthreads != 1) {
        why = "below MPI_THREAD_MULTIPLE only -t 1 runs";
    }
    if (why != NULL && rank == 0) {
        fprintf(stderr, "%s: %s (asked for %s, granted %s, %d ranks, %d threads)\n", prog, why,
                osu_mt_level_name(o->level), osu_mt_level_name(provided), size, o->nthreads);
    }
    return why == NULL;
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
