/*
 * test_mt.c: the engine lock (base/mt.c) on its own, with plain pthreads:
 * off until enabled; recursive per thread (the guard nests and releases on
 * every return); mutual exclusion (a non-atomic counter stays exact);
 * loom_mt_yield lets a waiting thread in and restores the depth, and keeps
 * the lock when nobody waits; loom_mt_sched_yield releases the lock around
 * its sched_yield (a sleeping thread gets in) and restores the depth; a
 * pinned stretch does neither. The bias: a thread alone gets it and then
 * holds the lock without touching the word; another thread revokes it and
 * gets in only after the owner left, or when the owner yields.
 */
#include "../common/cunit_main.h"
#include "mt_int.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>

static int guarded_depth2(void)
{
    LOOM_MT_GUARD();
    return loom_mt_held();
}

static int guarded_depth1(void)
{
    LOOM_MT_GUARD();
    if (!loom_mt_held()) {
        return 0;
    }
    return guarded_depth2() && loom_mt_held();   /* still held after the inner return */
}

/* runs first: before loom_mt_enable() the guard takes nothing */
static void test_off_until_enabled(void)
{
    CU_ASSERT_EQUAL(loom_mt_is_active(), 0);
    CU_ASSERT_EQUAL(guarded_depth1(), 0);
    CU_ASSERT_EQUAL(loom_mt_held(), 0);
    loom_mt_enable();
    CU_ASSERT_EQUAL(loom_mt_is_active(), 1);
}

static void test_recursive(void)
{
    CU_ASSERT_EQUAL(guarded_depth1(), 1);
    CU_ASSERT_EQUAL(loom_mt_held(), 0);   /* released on return */
}

#define COUNT_THREADS 4
#define COUNT_ITERS   20000
static long counter;

static void count_once(void)
{
    LOOM_MT_GUARD();
    long v = counter;   /* read-modify-write in two steps: needs the lock */
    sched_yield();
    counter = v + 1;
}

static void *count_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < COUNT_ITERS / 100; ++i) {
        count_once();
    }
    for (int i = 0; i < COUNT_ITERS - COUNT_ITERS / 100; ++i) {
        LOOM_MT_GUARD();
        ++counter;
    }
    return NULL;
}

static void test_mutual_exclusion(void)
{
    pthread_t th[COUNT_THREADS];

    counter = 0;
    for (int i = 0; i < COUNT_THREADS; ++i) {
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, count_thread, NULL), 0);
    }
    for (int i = 0; i < COUNT_THREADS; ++i) {
        pthread_join(th[i], NULL);
    }
    CU_ASSERT_EQUAL(counter, (long)COUNT_THREADS * COUNT_ITERS);
}

static int other_ran;        /* set by the other thread while it holds the lock */
static int other_started;

static void *other_thread(void *arg)
{
    (void)arg;
    __atomic_store_n(&other_started, 1, __ATOMIC_RELEASE);
    LOOM_MT_GUARD();
    other_ran = 1;
    return NULL;
}

/* holding the lock, yield until the other thread got in (bounded) */
static int yield_until_other_ran(int rounds)
{
    for (int k = 0; k < rounds; ++k) {
        loom_mt_yield();
        if (other_ran) {
            return 1;
        }
        sched_yield();
    }
    return 0;
}

/* the same with loom_mt_sched_yield (no sched_yield of our own with the lock) */
static int sched_yield_until_other_ran(int rounds)
{
    for (int k = 0; k < rounds; ++k) {
        loom_mt_sched_yield();
        if (other_ran) {
            return 1;
        }
    }
    return 0;
}

/* start other_thread and wait until it is about to take the lock */
static void other_start(pthread_t *th)
{
    other_ran = 0;
    other_started = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(th, NULL, other_thread, NULL), 0);
    while (!__atomic_load_n(&other_started, __ATOMIC_ACQUIRE)) {
        sched_yield();
    }
}

/*
 * Held at depth 2, @p yield_until must let a waiting thread in and give
 * the depth back: both unlocks are still needed afterwards.
 */
static void check_yield_releases(int (*yield_until)(int rounds))
{
    pthread_t th;

    loom_mt_lock();
    loom_mt_lock();
    other_start(&th);
    CU_ASSERT_EQUAL(yield_until(100000), 1);
    CU_ASSERT_EQUAL(loom_mt_held(), 1);   /* the depth came back */
    loom_mt_unlock();
    CU_ASSERT_EQUAL(loom_mt_held(), 1);
    loom_mt_unlock();
    CU_ASSERT_EQUAL(loom_mt_held(), 0);
    pthread_join(th, NULL);
}

static void test_yield_hands_off(void)
{
    check_yield_releases(yield_until_other_ran);
}

static void test_pinned_does_not_yield(void)
{
    pthread_t th;

    loom_mt_lock();
    other_start(&th);
    loom_mt_pin();
    CU_ASSERT_EQUAL(yield_until_other_ran(200), 0);
    loom_mt_unpin();
    CU_ASSERT_EQUAL(yield_until_other_ran(100000), 1);
    loom_mt_unlock();
    pthread_join(th, NULL);
}

/* nobody waits: loom_mt_yield keeps the lock (no release, no hand-off) */
static void test_yield_alone_keeps_lock(void)
{
    loom_mt_lock();
    CU_ASSERT_EQUAL(loom_mt_someone_waits(), 0);
    loom_mt_yield();
    CU_ASSERT_EQUAL(loom_mt_held(), 1);
    CU_ASSERT_NOT_EQUAL(atomic_load(&loom_mt_word), 2);   /* never contended */
    loom_mt_unlock();
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_word), 0);
}

/*
 * Take the lock alone until it is biased to this thread (the kernel has
 * membarrier here; where it has not, the lock stays unbiased and so do the
 * bias tests' checks of the bias). @return 1 when it is biased to us.
 */
static int make_biased(void)
{
    for (int k = 0; k < 4096; ++k) {
        LOOM_MT_GUARD();
    }
    return atomic_load(&loom_mt_bias) == loom_mt_self();
}

/* one thread alone gets the bias: then it holds the lock without the word */
static void test_bias_alone(void)
{
    if (!loom_mt_bias_enabled()) {
        CU_ASSERT_EQUAL(make_biased(), 0);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(make_biased(), 1);
    loom_mt_lock();
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_word), 0);        /* no read-modify-write */
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_depth), 1);          /* through the bias */
    loom_mt_unlock();
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_depth), 0);
}

/* another thread revokes the bias, and gets in only once the owner is out */
static void test_bias_revoked(void)
{
    pthread_t th;
    int early = 0;

    CU_ASSERT_EQUAL(make_biased(), loom_mt_bias_enabled());
    loom_mt_lock();
    other_start(&th);
    for (int k = 0; k < 2000; ++k) {
        early |= __atomic_load_n(&other_ran, __ATOMIC_RELAXED);
        sched_yield();
    }
    CU_ASSERT_EQUAL(early, 0);   /* kept out while the owner holds the lock */
    loom_mt_unlock();
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(other_ran, 1);
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_bias), 0);   /* revoked, not re-biased */
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_word), 0);
}

/* a biased owner that yields lets the revoker in and comes back at its depth */
static void test_bias_yield(void)
{
    pthread_t th;

    CU_ASSERT_EQUAL(make_biased(), loom_mt_bias_enabled());
    loom_mt_lock();
    loom_mt_lock();
    other_start(&th);
    CU_ASSERT_EQUAL(yield_until_other_ran(100000), 1);
    CU_ASSERT_EQUAL(loom_mt_held(), 1);
    loom_mt_unlock();
    loom_mt_unlock();
    CU_ASSERT_EQUAL(loom_mt_held(), 0);
    pthread_join(th, NULL);
}

/* a waiter is counted while it sleeps, and uncounted once it got the lock */
static void test_waiter_counted(void)
{
    pthread_t th;
    int seen = 0;

    loom_mt_lock();
    other_start(&th);
    for (int k = 0; k < 100000 && !seen; ++k) {
        seen = loom_mt_someone_waits();
        sched_yield();
    }
    CU_ASSERT_EQUAL(seen, 1);
    loom_mt_unlock();
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(other_ran, 1);
    CU_ASSERT_EQUAL(loom_mt_someone_waits(), 0);
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_word), 0);
}

static void test_sched_yield_releases(void)
{
    check_yield_releases(sched_yield_until_other_ran);
}

static void test_pinned_sched_yield_keeps_lock(void)
{
    pthread_t th;

    loom_mt_lock();
    other_start(&th);
    loom_mt_pin();
    CU_ASSERT_EQUAL(sched_yield_until_other_ran(200), 0);
    loom_mt_unpin();
    loom_mt_unlock();
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(other_ran, 1);
}

/*
 * Two threads take turns: each takes the lock alone long enough to get the
 * bias, then hands the turn over and keeps taking it while the other one
 * starts (and revokes the bias under it). The counter stays exact.
 */
#define BIAS_ROUNDS 40
#define BIAS_ALONE  2048
#define BIAS_RACE   500
static atomic_int bias_turn;

static void *bias_turn_thread(void *arg)
{
    int me = (int)(intptr_t)arg;

    for (int r = 0; r < BIAS_ROUNDS; ++r) {
        while (atomic_load(&bias_turn) != me) {
            sched_yield();
        }
        for (int k = 0; k < BIAS_ALONE; ++k) {
            LOOM_MT_GUARD();
            ++counter;
        }
        atomic_store(&bias_turn, 1 - me);
        for (int k = 0; k < BIAS_RACE; ++k) {
            LOOM_MT_GUARD();
            ++counter;
        }
    }
    return NULL;
}

static void test_bias_turns(void)
{
    pthread_t th[2];

    counter = 0;
    atomic_store(&bias_turn, 0);
    for (intptr_t i = 0; i < 2; ++i) {
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, bias_turn_thread, (void *)i), 0);
    }
    for (int i = 0; i < 2; ++i) {
        pthread_join(th[i], NULL);
    }
    CU_ASSERT_EQUAL(counter, 2L * BIAS_ROUNDS * (BIAS_ALONE + BIAS_RACE));
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "off until enabled", test_off_until_enabled },
        { "recursive per thread", test_recursive },
        { "mutual exclusion", test_mutual_exclusion },
        { "yield lets a waiter in", test_yield_hands_off },
        { "pinned stretch does not yield", test_pinned_does_not_yield },
        { "yield with nobody waiting keeps the lock", test_yield_alone_keeps_lock },
        { "waiters are counted", test_waiter_counted },
        { "sched_yield releases the lock", test_sched_yield_releases },
        { "pinned sched_yield keeps the lock", test_pinned_sched_yield_keeps_lock },
        { "one thread alone gets the bias", test_bias_alone },
        { "another thread revokes the bias", test_bias_revoked },
        { "a biased owner yields to the revoker", test_bias_yield },
        { "mutual exclusion after the bias", test_mutual_exclusion },
        { "threads taking turns revoke each other's bias", test_bias_turns },
        { NULL, NULL },
    };
    return loom_test_run_suite("engine lock", cases, NULL, NULL);
}
