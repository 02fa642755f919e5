/*
 * mt.c: the engine lock (see mt_int.h for the design).
 *
 * Two ways in. The word: a futex (0 free, 1 held, 2 held with possible
 * sleepers: the classic three-state futex mutex), one compare-and-swap to
 * take and one exchange to release when nobody waits. The bias: the thread
 * that took the word LOOM_MT_BIAS_STREAK times in a row, with no other
 * thread taking it or waiting meanwhile, is made the owner when it releases
 * it (loom_mt_bias = its token) and from then on enters with a plain store
 * (its own depth = 1) and a load (is the bias still mine?), and leaves with a
 * plain store. No atomic read-modify-write: at one thread under
 * MPI_THREAD_MULTIPLE those two were most of what a call paid over SINGLE.
 *
 * Revoking: a thread that took the word and finds a bias clears it, runs
 * membarrier(PRIVATE_EXPEDITED) and waits until the owner's depth is 0. The barrier
 * runs on every CPU that runs a thread of this process, so either the
 * owner's depth = 1 is visible before it returns (we wait for the owner
 * to leave), or the owner's later check sees the bias gone (it backs out
 * and takes the word, behind us). This is the asymmetric Dekker handshake
 * (liburcu's membarrier flavour, folly's asymmetric barriers): the rare
 * side pays a system call so the common side pays no fence. The revoker
 * counts as a waiter meanwhile, so an owner blocked in a wait yields at its
 * next progress pass. Biasing needs the kernel's membarrier (registered in
 * loom_mt_enable); without it the lock is the word alone. A revocation
 * costs a few microseconds; the streak keeps threads that alternate from
 * revoking often (never more than once per LOOM_MT_BIAS_STREAK takes).
 *
 * Lifetimes: the owner's depth is thread-local, so the bias must not outlive
 * its thread. Each thread that takes the word arms a pthread key destructor
 * (loom_mt_thread_exit) that, as it exits, lets go of the lock if it ends
 * inside it, drops its bias with a compare-and-swap, and waits while a
 * revoker announces in loom_mt_revoking that it reads that flag. It never
 * takes the word: its joiner may hold the lock. A forked child drops a
 * bias or word held by a thread it does not have (loom_mt_fork_child).
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
#include "base_config_int.h"
#include "log_int.h"

#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

atomic_int loom_mt_active;
int loom_mt_pinned;
_Thread_local atomic_uint loom_mt_depth __attribute__((tls_model("initial-exec")));
/* this thread's exit hook is armed (loom_mt_arm); it is exiting */
static _Thread_local unsigned char loom_mt_armed, loom_mt_exiting;

atomic_int loom_mt_word;
atomic_uint loom_mt_waiters;
atomic_uintptr_t loom_mt_bias;
static atomic_uint loom_mt_turns;     /* acquisitions by waiters so far */
/* the owner token a revoker is reading the flag of (0: none) */
static atomic_uintptr_t loom_mt_revoking;

/* biasing allowed (membarrier registered); set before threads call */
static int loom_mt_bias_ok;
/* checks of a taken word before sleeping on it (LOOM_MT_SPIN; set before threads call) */
static unsigned loom_mt_spins;
/* the last taker of the word and its run of takes (touched with the word held) */
static uintptr_t loom_mt_last;
static unsigned loom_mt_streak;
/* the exit hook's key and the fork handler are set up (loom_mt_enable) */
static pthread_key_t loom_mt_exit_key;
static int loom_mt_hooks_ok;

/* takes of the word in a row, by one thread alone, before it gets the bias */
#define LOOM_MT_BIAS_STREAK 1024u

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
 * The word is taken: before sleeping, watch it for loom_mt_spins checks and
 * take it as soon as it is free. Counted as a waiter already, so a holder
 * in a progress pass yields to us at its next pass (loom_mt_yield), and
 * that hand-off then costs no futex wake-up and no sleep, which is most of
 * what two threads sharing the engine lock paid. Bounded: a holder that
 * runs long (or is descheduled) sends us to sleep on the futex.
 * @return 1 when the word is ours
 */
static int loom_mt_spin_word(void)
{
    for (unsigned k = 0; k < loom_mt_spins; ++k) {
        int expected = 0;

        if (atomic_load_explicit(&loom_mt_word, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&loom_mt_word, &expected, 1,
                                                    memory_order_acquire,
                                                    memory_order_relaxed)) {
            return 1;
        }
        loom_cpu_relax();
    }
    return 0;
}

/*
 * The word is taken: spin for it a while (loom_mt_spin_word), then mark it
 * contended (2) and sleep until a release wakes us, then take it as
 * contended (another sleeper may remain, so our release must wake it).
 * Counted as a waiter meanwhile.
 */
static __attribute__((noinline)) void loom_mt_wait_word(void)
{
    atomic_fetch_add_explicit(&loom_mt_waiters, 1, memory_order_relaxed);
    if (!loom_mt_spin_word()) {
        while (atomic_exchange_explicit(&loom_mt_word, 2, memory_order_acquire) != 0) {
            /* returns at once if the word is no longer 2 (released meanwhile) */
            (void)syscall(SYS_futex, &loom_mt_word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
        }
    }
    atomic_fetch_sub_explicit(&loom_mt_waiters, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&loom_mt_turns, 1, memory_order_relaxed);
}

/*
 * We hold the word and the lock is biased to another thread: take the bias
 * away and wait until its owner is out (see the top of the file).
 */
static __attribute__((noinline)) void loom_mt_revoke(void)
{
    uintptr_t owner = atomic_load_explicit(&loom_mt_bias, memory_order_relaxed);
    const atomic_uint *owner_depth = (const atomic_uint *)owner;

    /* announce whose flag we are about to read, then check the owner did not
     * drop the bias as it exits (loom_mt_thread_exit): either we see it
     * dropped, or the owner sees our announcement and waits for us before
     * its flag goes away (both sides sequentially consistent) */
    atomic_store_explicit(&loom_mt_revoking, owner, memory_order_seq_cst);
    if (atomic_load_explicit(&loom_mt_bias, memory_order_seq_cst) != owner) {
        atomic_store_explicit(&loom_mt_revoking, 0, memory_order_release);
        return;
    }
    atomic_store_explicit(&loom_mt_bias, 0, memory_order_relaxed);
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) {
        /* registered in loom_mt_enable (and inherited by fork), so only a
         * filter installed since (seccomp) can fail it; without the barrier
         * two threads could both be inside */
        loom_error("mt", "membarrier(PRIVATE_EXPEDITED) failed revoking the engine lock's "
                   "bias: %m");
        abort();
    }
    atomic_fetch_add_explicit(&loom_mt_waiters, 1, memory_order_relaxed);
    /* the owner's depth outlives this wait: an exiting owner waits
     * while loom_mt_revoking names it (loom_mt_thread_exit) */
    for (unsigned k = 0; atomic_load_explicit(owner_depth, memory_order_acquire); ++k) {
        if (k < LOOM_MT_HANDOFF_SPINS) {
            loom_cpu_relax();
        } else {
            sched_yield();
        }
    }
    atomic_fetch_sub_explicit(&loom_mt_waiters, 1, memory_order_relaxed);
    atomic_store_explicit(&loom_mt_revoking, 0, memory_order_release);
}

/*
 * Arm the calling thread's exit hook (once per thread, at its first take of
 * the word): a thread that ends while it owns the bias gives it back, and
 * one that ends inside the lock lets it go. Not once it is exiting (the
 * hook ran). A thread whose hook could not be armed never gets the bias.
 */
static __attribute__((noinline)) void loom_mt_arm(void)
{
    if (loom_mt_hooks_ok && !loom_mt_exiting &&
        pthread_setspecific(loom_mt_exit_key, (void *)&loom_mt_depth) == 0) {
        loom_mt_armed = 1;
    }
}

/* 1 when the calling thread (the word's holder) may get the bias */
static int loom_mt_may_bias(void)
{
    return loom_mt_bias_ok && loom_mt_armed && !loom_mt_exiting;
}

void loom_mt_acquire_word(void)
{
    int expected = 0;
    uintptr_t self = loom_mt_self();

    if (loom_unlikely(!atomic_compare_exchange_strong_explicit(
            &loom_mt_word, &expected, 1, memory_order_acquire, memory_order_relaxed))) {
        loom_mt_wait_word();
    }
    if (loom_unlikely(!loom_mt_armed)) {
        loom_mt_arm();
    }
    if (loom_mt_last == self) {
        ++loom_mt_streak;
    } else {
        loom_mt_last   = self;
        loom_mt_streak = 0;
    }
    /* acquire: a bias an exiting owner dropped (0) orders its last stretch before ours */
    if (loom_unlikely(atomic_load_explicit(&loom_mt_bias, memory_order_acquire) != 0)) {
        loom_mt_revoke();
    }
    atomic_store_explicit(&loom_mt_depth, LOOM_MT_WORD | 1u, memory_order_relaxed);
}

void loom_mt_release_word(void)
{
    if (loom_mt_streak >= LOOM_MT_BIAS_STREAK && !loom_mt_someone_waits() && loom_mt_may_bias()) {
        /* published by the release below: the next taker of the word sees it */
        atomic_store_explicit(&loom_mt_bias, loom_mt_last, memory_order_relaxed);
        loom_mt_streak = 0;
    }
    if (atomic_exchange_explicit(&loom_mt_word, 0, memory_order_release) == 2) {
        (void)syscall(SYS_futex, &loom_mt_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

/* release the lock fully (whatever the depth); @return the count to restore */
static unsigned loom_mt_release_all(void)
{
    unsigned d = loom_mt_depth_get();

    loom_mt_release(d);
    return d & ~LOOM_MT_WORD;
}

/* take the lock back at @p count (after loom_mt_release_all), through
 * whichever way it comes */
static void loom_mt_reacquire(unsigned count)
{
    loom_mt_acquire();
    atomic_store_explicit(&loom_mt_depth, (loom_mt_depth_get() & LOOM_MT_WORD) | count,
                          memory_order_relaxed);
}

void loom_mt_yield(void)
{
    unsigned depth, turns;

    if (loom_mt_depth_get() == 0 || loom_mt_pinned != 0 || !loom_mt_someone_waits()) {
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

    if (loom_mt_depth_get() == 0 || loom_mt_pinned != 0) {
        sched_yield();
        return;
    }
    depth = loom_mt_release_all();
    sched_yield();
    loom_mt_reacquire(depth);
}

unsigned loom_mt_callout_begin(void)
{
    if (!loom_mt_is_active() || loom_mt_depth_get() == 0 || loom_mt_pinned != 0) {
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

/*
 * pthread key destructor of a thread that took the word, run as it exits
 * (a bias is only given to such a thread). It does not take the word: the
 * thread joining this one may hold the engine lock (a user callback run
 * under it), and would wait for us forever. Instead: let go of the lock if
 * the thread ends inside it (pthread_exit from a callback), drop the bias
 * if it is ours (a new thread may reuse our token), and wait while a
 * revoker still reads our depth (freed with our TLS); that revoker
 * sees it 0 and is done within a few loads.
 */
static void loom_mt_thread_exit(void *arg)
{
    uintptr_t self = loom_mt_self();

    (void)arg;
    loom_mt_exiting = 1;
    if (loom_mt_depth_get() != 0) {
        /* let go, with any pinned stretch it had open */
        loom_mt_pinned = 0;
        loom_mt_release(loom_mt_depth_get());
    }
    (void)atomic_compare_exchange_strong_explicit(&loom_mt_bias, &self, 0,
                                                  memory_order_seq_cst, memory_order_seq_cst);
    self = loom_mt_self();
    while (atomic_load_explicit(&loom_mt_revoking, memory_order_seq_cst) == self) {
        sched_yield();
    }
}

/*
 * In a forked child only the forking thread lives: a bias or a word held by
 * another thread would never be given back, and its waiters are gone.
 */
static void loom_mt_fork_child(void)
{
    uintptr_t bias = atomic_load_explicit(&loom_mt_bias, memory_order_relaxed);

    if (bias != 0 && bias != loom_mt_self()) {
        atomic_store_explicit(&loom_mt_bias, 0, memory_order_relaxed);
    }
    /* held by us through the word: ours, no sleeper; else free (a thread
     * that held it, or revoked our bias holding it, is not in the child) */
    atomic_store_explicit(&loom_mt_word, (loom_mt_depth_get() & LOOM_MT_WORD) ? 1 : 0,
                          memory_order_relaxed);
    atomic_store_explicit(&loom_mt_waiters, 0, memory_order_relaxed);
    atomic_store_explicit(&loom_mt_revoking, 0, memory_order_relaxed);
    loom_mt_last   = 0;
    loom_mt_streak = 0;
}

/* once per process: the exit hook's key and the fork handler */
static void loom_mt_setup_once(void)
{
    loom_mt_hooks_ok = pthread_key_create(&loom_mt_exit_key, loom_mt_thread_exit) == 0 &&
                       pthread_atfork(NULL, NULL, loom_mt_fork_child) == 0;
}

void loom_mt_enable(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    (void)pthread_once(&once, loom_mt_setup_once);
    loom_mt_spins = (unsigned)loom_config_int(LOOM_BASE_CFG(MT_SPIN));
    /* the bias needs the expedited barrier (registering is per process)
     * and the exit hook; without either the lock is the word alone */
    loom_mt_bias_ok = loom_mt_hooks_ok &&
                      syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    atomic_store_explicit(&loom_mt_active, 1, memory_order_relaxed);
}

int loom_mt_held(void)
{
    return loom_mt_is_active() && loom_mt_depth_get() != 0;
}

int loom_mt_bias_enabled(void)
{
    return loom_mt_bias_ok;
}
