/*
 * mt.c: the engine lock (see mt_int.h for the design).
 *
 * A pthread mutex plus a thread-local depth make it recursive without a
 * recursive mutex. Fairness: pthread mutexes let the releasing thread take
 * the lock straight back, and a thread that waits in loom_wait releases and
 * retakes it every progress pass, so without help a sleeping waiter could
 * starve. loom_mt_yield therefore counts the threads that wait for the lock
 * (loom_mt_waiters) and the acquisitions (loom_mt_turns): when someone
 * waits, the yielding thread spins briefly, then gives up the CPU, until another
 * thread has had its turn (bounded, in case the waiter is descheduled).
 * Both counters are touched only in MULTIPLE mode.
 */
#include "mt_int.h"

#include <pthread.h>
#include <sched.h>

int loom_mt_active;
int loom_mt_pinned;

static pthread_mutex_t loom_mt_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local unsigned loom_mt_depth;
static unsigned loom_mt_waiters;   /* threads blocked in loom_mt_lock (atomic) */
static unsigned loom_mt_turns;     /* acquisitions so far (atomic) */

/*
 * How long a yielding thread waits for a waiter to take the lock: first a
 * short spin (a waiter woken on the other core takes it within about a
 * microsecond), then a few sched_yield()s (a waiter on this core needs the
 * CPU). Few: on a loaded node each sched_yield may hand the core to another
 * process for a whole time slice.
 */
#define LOOM_MT_HANDOFF_SPINS  256
#define LOOM_MT_HANDOFF_ROUNDS 2

/* 1 once another thread took the lock since @p turns, or nobody waits */
static int loom_mt_handed_off(unsigned turns)
{
    return __atomic_load_n(&loom_mt_turns, __ATOMIC_RELAXED) != turns ||
           __atomic_load_n(&loom_mt_waiters, __ATOMIC_RELAXED) == 0;
}

static void loom_mt_acquire(void)
{
    if (pthread_mutex_trylock(&loom_mt_mutex) != 0) {
        __atomic_add_fetch(&loom_mt_waiters, 1, __ATOMIC_RELAXED);
        pthread_mutex_lock(&loom_mt_mutex);
        __atomic_sub_fetch(&loom_mt_waiters, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&loom_mt_turns, 1, __ATOMIC_RELAXED);
}

void loom_mt_lock(void)
{
    if (loom_mt_depth++ == 0) {
        loom_mt_acquire();
    }
}

void loom_mt_unlock(void)
{
    if (--loom_mt_depth == 0) {
        pthread_mutex_unlock(&loom_mt_mutex);
    }
}

void loom_mt_yield(void)
{
    unsigned depth = loom_mt_depth, turns;

    if (depth == 0 || loom_mt_pinned != 0 ||
        __atomic_load_n(&loom_mt_waiters, __ATOMIC_RELAXED) == 0) {
        return;
    }
    turns = __atomic_load_n(&loom_mt_turns, __ATOMIC_RELAXED);
    loom_mt_depth = 0;
    pthread_mutex_unlock(&loom_mt_mutex);
    for (int k = 0; k < LOOM_MT_HANDOFF_SPINS && !loom_mt_handed_off(turns); ++k) {
        loom_cpu_relax();
    }
    for (int k = 0; k < LOOM_MT_HANDOFF_ROUNDS && !loom_mt_handed_off(turns); ++k) {
        sched_yield();
    }
    loom_mt_acquire();
    loom_mt_depth = depth;
}

unsigned loom_mt_callout_begin(void)
{
    unsigned depth = loom_mt_depth;

    if (!loom_mt_active || depth == 0 || loom_mt_pinned != 0) {
        return 0;
    }
    loom_mt_depth = 0;
    pthread_mutex_unlock(&loom_mt_mutex);
    return depth;
}

void loom_mt_callout_end(unsigned depth)
{
    if (depth != 0) {
        loom_mt_acquire();
        loom_mt_depth = depth;
    }
}

void loom_mt_enable(void)
{
    loom_mt_active = 1;
}

int loom_mt_held(void)
{
    return loom_mt_active && loom_mt_depth != 0;
}
