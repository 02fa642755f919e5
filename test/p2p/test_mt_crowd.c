/*
 * test_mt_crowd.c: under MPI_THREAD_MULTIPLE the threads of a rank that
 * idle in blocking loops are counted (progress.c, loom_progress_mt_idlers),
 * and idle loops give their core away (loom_progress_crowded) once more of
 * them idle than the rank's share of the cores (bootstrap's threads_fit),
 * not before, and the count goes back to 0 when the loops end. A singleton
 * job, not oversubscribed; threads block in loom_recv from self until the
 * main thread sends them their messages. This binary defines sched_yield,
 * so the library's calls land here and are counted. The yield verdict
 * (how soon a crowded wait yields) is checked case by case.
 */
#include "../common/cunit_main.h"
#include <loom.h>
#include "p2p_engine_int.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static atomic_ulong yields;

int sched_yield(void)
{
    atomic_fetch_add(&yields, 1);
    return 0;
}

#define MAX_THREADS 16
#define TAG0        100

static int values[MAX_THREADS];

static void *recv_thread(void *arg)
{
    int t = (int)(intptr_t)arg;

    if (loom_recv(&values[t], 1, LOOM_INT32, 0, TAG0 + t, LOOM_COMM_WORLD,
                  LOOM_STATUS_IGNORE) != LOOM_OK) {
        values[t] = -1;
    }
    return NULL;
}

/* wait (up to 10 s) until @p n threads idle in blocking loops */
static int wait_idlers(int n)
{
    for (int k = 0; k < 100000; ++k) {
        if (atomic_load(&loom_progress_mt_idlers) == n) {
            return 1;
        }
        struct timespec ts = { 0, 100000 };
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* @p n threads block in loom_recv; check the count and the verdict, then
 * release them and check both went back */
static void run_idle(int n, int want_crowded)
{
    pthread_t th[MAX_THREADS];

    for (int t = 0; t < n; ++t) {
        values[t] = 0;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[t], NULL, recv_thread, (void *)(intptr_t)t),
                              0);
    }
    CU_ASSERT(wait_idlers(n));
    CU_ASSERT_EQUAL(loom_progress_crowded(), want_crowded);
    if (want_crowded) {
        unsigned long before = atomic_load(&yields);
        for (int k = 0; k < 100000 && atomic_load(&yields) == before; ++k) {
            struct timespec ts = { 0, 100000 };
            nanosleep(&ts, NULL);
        }
        CU_ASSERT(atomic_load(&yields) > before);   /* the idle loops give their cores away */
    }
    for (int t = 0; t < n; ++t) {
        int v = 1000 + t;
        CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, 0, TAG0 + t, LOOM_COMM_WORLD), LOOM_OK);
    }
    for (int t = 0; t < n; ++t) {
        pthread_join(th[t], NULL);
        CU_ASSERT_EQUAL(values[t], 1000 + t);
    }
    CU_ASSERT_EQUAL(atomic_load(&loom_progress_mt_idlers), 0);
    CU_ASSERT_EQUAL(loom_progress_crowded(), 0);
}

/* as many idle threads as the rank's share of the cores: they spin */
static void test_fit_spins(void)
{
    run_idle(loom_p2p_engine.job->threads_fit, 0);
}

/* one more: crowded, the idle loops yield */
static void test_crowd_yields(void)
{
    run_idle(loom_p2p_engine.job->threads_fit + 1, 1);
}

/*
 * The verdict, case by case (written out here, not derived from the
 * function): done never yields; not crowded yields only in MULTIPLE mode
 * from the 1024th empty pass on; frames that moved without completing the
 * wait yield in MULTIPLE mode only; an empty pass yields at once when ranks
 * outnumber cores, else only from the spin-th empty pass on.
 */
static void test_verdict(void)
{
    static const struct {
        int crowded, oversub, mt, moved, done;
        unsigned idle, spin;
        int want;
    } cases[] = {
        { 0, 0, 1, 0, 0, 1000, 64, 0 },   /* not crowded: spin on */
        { 0, 0, 1, 1, 0, 0, 64, 0 },
        { 0, 0, 1, 0, 0, 1023, 64, 0 },   /* ... up to the lone spin */
        { 0, 0, 1, 0, 0, 1024, 64, 1 },   /* then yield: a sibling outside loom */
        { 0, 0, 1, 1, 0, 5000, 64, 0 },
        { 0, 0, 0, 0, 0, 100000, 64, 0 }, /* one thread (not MULTIPLE): never */
        { 1, 0, 1, 0, 1, 1000, 64, 0 },   /* done: return, no yield */
        { 1, 1, 1, 1, 1, 0, 64, 0 },
        { 1, 0, 1, 1, 0, 0, 64, 1 },      /* another thread's frames */
        { 1, 1, 1, 1, 0, 0, 64, 1 },
        { 1, 1, 0, 1, 0, 0, 64, 0 },      /* one thread: its own protocol moved */
        { 1, 0, 1, 0, 0, 0, 64, 0 },      /* crowded threads: spin first */
        { 1, 0, 1, 0, 0, 63, 64, 0 },
        { 1, 0, 1, 0, 0, 64, 64, 1 },
        { 1, 0, 1, 0, 0, 5000, 64, 1 },
        { 1, 0, 1, 0, 0, 0, 0, 1 },       /* LOOM_MT_IDLE_SPIN=0: at once */
        { 1, 1, 0, 0, 0, 0, 64, 1 },      /* ranks outnumber cores: at once */
        { 1, 1, 1, 0, 0, 0, 64, 1 },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        int got = loom_progress_yield_verdict(cases[i].crowded, cases[i].oversub, cases[i].mt,
                                              cases[i].moved, cases[i].done, cases[i].idle,
                                              cases[i].spin);
        if (got != cases[i].want) {
            fprintf(stderr, "verdict case %zu: got %d, want %d\n", i, got, cases[i].want);
        }
        CU_ASSERT_EQUAL(got, cases[i].want);
    }
}

/* the default spin reaches the engine; a crowded idle loop still yields
 * (test_crowd_yields) after it */
static void test_spin_default(void)
{
    CU_ASSERT_EQUAL(loom_p2p_engine.mt_idle_spin, 64u);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "the yield verdict, case by case", test_verdict },
        { "LOOM_MT_IDLE_SPIN defaults to 64", test_spin_default },
        { "threads idle within the rank's cores spin", test_fit_spins },
        { "one idle thread more makes the rank crowded", test_crowd_yields },
        { NULL, NULL },
    };
    int provided = -1, rc;

    setenv("LOOM_ERRORS", "return", 1);
    setenv("LOOM_OVERSUBSCRIBED", "0", 1);
    unsetenv("LOOM_MT_IDLE_SPIN");
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
    if (loom_init_thread(NULL, NULL, LOOM_THREAD_MULTIPLE, &provided) != LOOM_OK ||
        provided != LOOM_THREAD_MULTIPLE) {
        fprintf(stderr, "loom_init_thread(MULTIPLE) failed\n");
        return 1;
    }
    if (loom_p2p_engine.oversubscribed || loom_p2p_engine.job->threads_fit < 1 ||
        loom_p2p_engine.job->threads_fit + 1 > MAX_THREADS) {
        fprintf(stderr, "unexpected job: oversubscribed %d, threads_fit %d\n",
                loom_p2p_engine.oversubscribed, loom_p2p_engine.job->threads_fit);
        return 1;
    }
    rc = loom_test_run_suite("p2p_mt_crowd", cases, NULL, NULL);
    return loom_finalize() == LOOM_OK ? rc : 1;
}
