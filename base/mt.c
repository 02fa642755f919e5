/*
 * mt.c: the engine lock (see mt_int.h for the design).
 *
 * The lock is a futex word (0 free, 1 held, 2 held with possible sleepers:
 * the classic three-state futex mutex) plus a thread-local depth that makes
 * it recursive; the depth and the uncontended compare-and-swap / exchange
 * are inline (mt_int.h), so a thread alone never comes here. A pthread
 * mutex did the same job at about 60 more instructions per call (its
 * trylock and unlock, two calls into libc), which one thread under
 * MPI_THREAD_MULTIPLE paid on every MPI call.
 *
 * Fairness: the releasing thread may take the lock straight back, and a
 * thread that waits in loom_wait releases and retakes it every progress
 * pass, so without help a sleeping waiter could starve. The slow path
 * therefore counts the threads that wait (loom_mt_waiters) and the turns
 * those waiters got (loom_mt_turns): the progress engine yields only when
 * someone waits (loom_mt_someone_waits), and loom_mt_yield spins briefly,
 * then gives up the CPU, until a waiter has had its turn (bounded, in case
 * the waiter is descheduled or a newcomer's compare-and-swap took the lock
 * first).
 */
#include "mt_int.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

atomic_int loom_mt_active;
int loom_mt_pinned;
_Thread_local unsigned loom_mt_depth __attribute__((tls_model("initial-exec")));

atomic_int loom_mt_word;
atomic_uint loom_mt_waiters;
static atomic_uint loom_mt_turns;     /* acquisitions by those threads so far */

/*
 * How long a yielding thread waits for a waiter to take the lock: first a
 * short spin (a waiter woken on the other core takes it within about a
 * microsecond), then a few sched_yield()s (a waiter on this core needs the
 * CPU). Few: on a loaded node each sched_yield may hand the core to another
 * process for a whole time slice.
 */
#define LOOM_MT_HANDOFF_SPINS  256
#define LOOM_MT_HANDOFF_ROUNDS 2

/* 1 once a waiter took the lock since @p turns, or nobody waits */
static int loom_mt_handed_off(unsigned turns)
{
    return atomic_load_explicit(&loom_mt_turns, memory_order_relaxed) != turns ||
           atomic_load_explicit(&loom_mt_waiters, memory_order_relaxed) == 0;
}

/*
 * The lock is taken: mark the word contended (2) and sleep until a release
 * wakes us, then take it as contended (another sleeper may remain, so our
 * release must wake it). Counted as a waiter meanwhile.
 */
void loom_mt_acquire_slow(void)
{
    atomic_fetch_add_explicit(&loom_mt_waiters, 1, memory_order_relaxed);
    while (atomic_exchange_explicit(&loom_mt_word, 2, memory_order_acquire) != 0) {
        /* returns at once if the word is no longer 2 (released meanwhile) */
        (void)syscall(SYS_futex, &loom_mt_word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    }
    atomic_fetch_sub_explicit(&loom_mt_waiters, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&loom_mt_turns, 1, memory_order_relaxed);
}

void loom_mt_wake(void)
{
    (void)syscall(SYS_futex, &loom_mt_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* release the lock fully (whatever the depth); @return the depth to restore */
static unsigned loom_mt_release_all(void)
{
    unsigned depth = loom_mt_depth;

    loom_mt_depth = 0;
    loom_mt_release();
    return depth;
}

/* take the lock back at @p depth (after loom_mt_release_all) */
static void loom_mt_reacquire(unsigned depth)
{
    loom_mt_acquire();
    loom_mt_depth = depth;
}

void loom_mt_yield(void)
{
    unsigned depth, turns;

    if (loom_mt_depth == 0 || loom_mt_pinned != 0 || !loom_mt_someone_waits()) {
        return;
    }
    turns = atomic_load_explicit(&loom_mt_turns, memory_order_relaxed);
    depth = loom_mt_release_all();
    for (int k = 0; k < LOOM_MT_HANDOFF_SPINS && !loom_mt_handed_off(turns); ++k) {
        loom_cpu_relax();
    }
    for (int k = 0; k < LOOM_MT_HANDOFF_ROUNDS && !loom_mt_handed_off(turns); ++k) {
        sched_yield();
    }
    loom_mt_reacquire(depth);
}

void loom_mt_sched_yield(void)
{
    unsigned depth;

    if (loom_mt_depth == 0 || loom_mt_pinned != 0) {
        sched_yield();
        return;
    }
    depth = loom_mt_release_all();
    sched_yield();
    loom_mt_reacquire(depth);
}

unsigned loom_mt_callout_begin(void)
{
    if (!loom_mt_is_active() || loom_mt_depth == 0 || loom_mt_pinned != 0) {
        return 0;
    }
    return loom_mt_release_all();
}

void loom_mt_callout_end(unsigned depth)
{
    if (depth != 0) {
        loom_mt_reacquire(depth);
    }
}

void loom_mt_enable(void)
{
    atomic_store_explicit(&loom_mt_active, 1, memory_order_relaxed);
}

int loom_mt_held(void)
{
    return loom_mt_is_active() && loom_mt_depth != 0;
}
