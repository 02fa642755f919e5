/*
 * mt_int.h: the engine lock for MPI_THREAD_MULTIPLE.
 *
 * loom serializes concurrent calls with one process-wide lock, taken only
 * when the granted thread level is MULTIPLE (loom_mt_active, set once by
 * loom_init_thread before a second thread may call, read with a relaxed
 * atomic load: a plain load in the machine code, and a read TSan accepts
 * from any thread). Every public entry point (each PMPI_* in mpi/, each
 * native function of include/loom.h) starts with LOOM_MT_GUARD(): in
 * SINGLE, FUNNELED and SERIALIZED runs that is one predictable branch on
 * loom_mt_active, with no TLS access, no atomic and no lock. In MULTIPLE
 * runs the lock is recursive per thread (a thread-local depth; the lock is
 * taken at depth 0 -> 1), so an entry point that calls another one (an MPI
 * call built on a native one, an attribute callback that calls MPI) does
 * not deadlock itself.
 *
 * What MULTIPLE pays per call at one thread, kept small because issue 24
 * wants it no slower than a SINGLE run: the hot MPI calls that forward to
 * one native call take no lock of their own (mpi/mpi_p2p.c), the depth is
 * counted inline (a nested call costs a load and a store of a
 * thread-local), and the thread-local uses the initial-exec TLS model (one
 * %fs-relative access, no __tls_get_addr call); the outermost level of a
 * thread the lock is biased to (one that took it many times in a row,
 * alone) enters with a store of its depth and a check of the bias and
 * leaves with a store (loom_mt_bias below); any other thread takes a futex
 * word (one compare-and-swap, one exchange, mt.c). Waiters and hand-offs
 * are counted on the slow path only.
 *
 * Blocking waits do not hold the lock while they spin: the progress engine
 * calls loom_mt_yield() once per pass (p2p/progress.c), which releases the
 * lock fully (whatever the depth), lets one waiting thread in when there is
 * one, and takes it back with the same depth. Waiting threads sleep in the
 * kernel (futex) instead of spinning, so on an oversubscribed node they do
 * not starve the thread that progresses.
 *
 * The guard uses __attribute__((cleanup)) (GCC and clang), so no return
 * path of a guarded function needs editing; scripts/mt_guard.py checks that
 * every entry point has it.
 */
#ifndef LOOM_MT_INT_H
#define LOOM_MT_INT_H

#include "compiler_int.h"

#include <stdatomic.h>
#include <stdint.h>

/** 1 once the granted thread level is MULTIPLE (set before threads call). */
extern atomic_int loom_mt_active;

/**
 * 1 when MULTIPLE mode is on. A relaxed load: the same plain load as a
 * non-atomic int, and no data race for TSan when threads read it.
 */
static inline int loom_mt_is_active(void)
{
    return atomic_load_explicit(&loom_mt_active, memory_order_relaxed);
}

/*
 * The calling thread's lock depth (0: it does not hold the lock), with
 * LOOM_MT_WORD set when the hold is through the word rather than the bias.
 * Only touched in MULTIPLE mode, only written by its own thread; a revoker
 * reads the bias owner's (below), hence atomic (relaxed: plain moves).
 * Initial-exec: libloom is loaded with the program (or dlopen'ed into
 * glibc's static TLS reserve, which these few bytes fit).
 */
extern _Thread_local atomic_uint loom_mt_depth __attribute__((tls_model("initial-exec")));

/* the depth's flag: this thread holds the lock through the word */
#define LOOM_MT_WORD 0x80000000u

/* the calling thread's depth word (count and LOOM_MT_WORD) */
static inline unsigned loom_mt_depth_get(void)
{
    return atomic_load_explicit(&loom_mt_depth, memory_order_relaxed);
}

/*
 * The lock word (mt.c): 0 free, 1 held, 2 held and a thread may sleep on it
 * (futex). Taking a free word is one compare-and-swap, releasing it one
 * exchange; the futex calls happen only when a thread had to wait.
 */
extern atomic_int loom_mt_word;

/*
 * The bias (mt.c): a thread that took the word many times in a row with
 * nobody else asking becomes the lock's owner (loom_mt_bias holds its
 * token, the address of its own loom_mt_depth) and from then on enters
 * with plain stores and loads: its depth = 1, then check that the bias is
 * still its own. Another thread takes the word, clears the bias, runs a
 * process-wide memory barrier (membarrier: the owner's store is then
 * visible, or the owner's check sees the bias gone) and waits until that
 * owner's depth is 0. So one thread alone pays no atomic read-modify-write,
 * and the depth it keeps anyway is the flag that says it is inside.
 *
 * The flag is per thread, not one global: a thread that read the bias as
 * its own and was then preempted before its store may run that store (and
 * the 0 that backs it out) long after the bias moved to another thread;
 * with one shared flag that late 0 erased the new owner's 1 and a revoker
 * walked in beside it. Its own depth only ever says where it is. A depth
 * is nonzero only while its thread holds the lock (through the bias or the
 * word) or is between that store and the check: a thread waiting for the
 * word has depth 0, so a revoker never waits for a thread that waits for
 * it.
 */
extern atomic_uintptr_t loom_mt_bias;

/** Take the word (depth 0 -> LOOM_MT_WORD | 1): may wait, may revoke a bias. */
void loom_mt_acquire_word(void);

/** Release the word (after the depth went to 0 from a hold through it); may bias it. */
void loom_mt_release_word(void);

/* this thread's token: the address of its loom_mt_depth */
static inline uintptr_t loom_mt_self(void)
{
    return (uintptr_t)&loom_mt_depth;
}

/**
 * Take the lock (depth 0 -> 1): through the bias when it is ours, else the
 * word. The depth is stored before the bias is read, whoever the owner is
 * (session 16: no read of the bias before the store, 3 instructions less on
 * the owner's path): only the owner's depth is ever read by another thread
 * (a revoker), so a non-owner's brief 1, backed out before it takes the
 * word, is seen by nobody; the owner's is the store of the handshake.
 */
static inline void loom_mt_acquire(void)
{
    uintptr_t self = loom_mt_self();

#ifdef LOOM_MT_TEST_WINDOW
    if (atomic_load_explicit(&loom_mt_bias, memory_order_relaxed) == self) {
        LOOM_MT_TEST_WINDOW();   /* a test's seam: the owner stalls before its store */
    }
#endif
    atomic_store_explicit(&loom_mt_depth, 1, memory_order_relaxed);
    /* the store before the load: the compiler's part here, the CPU's by
     * the revoker's membarrier */
    atomic_signal_fence(memory_order_seq_cst);
    if (loom_likely(atomic_load_explicit(&loom_mt_bias, memory_order_acquire) == self)) {
        return;
    }
    atomic_store_explicit(&loom_mt_depth, 0, memory_order_release);   /* not ours, or revoked */
    loom_mt_acquire_word();
}

/** Release a hold whose count just went to 0; @p d: the depth word before. */
static inline void loom_mt_release(unsigned d)
{
    if (loom_likely(!(d & LOOM_MT_WORD))) {
        atomic_store_explicit(&loom_mt_depth, 0, memory_order_release);   /* the bias */
        return;
    }
    atomic_store_explicit(&loom_mt_depth, 0, memory_order_relaxed);
    loom_mt_release_word();
}

/** Take the engine lock (recursive per thread). MULTIPLE mode only. */
static inline void loom_mt_lock(void)
{
    unsigned d = loom_mt_depth_get();

    if (loom_likely(d == 0)) {
        loom_mt_acquire();
    } else {
        atomic_store_explicit(&loom_mt_depth, d + 1, memory_order_relaxed);
    }
}

/** Drop one level of the engine lock. MULTIPLE mode only. */
static inline void loom_mt_unlock(void)
{
    unsigned d = loom_mt_depth_get();

    if (loom_likely(d == 1)) {
        atomic_store_explicit(&loom_mt_depth, 0, memory_order_release);   /* the bias */
    } else if (d == (LOOM_MT_WORD | 1u)) {
        loom_mt_release(d);
    } else {
        atomic_store_explicit(&loom_mt_depth, d - 1, memory_order_relaxed);
    }
}

/**
 * Let another thread in: release the lock fully, hand it to a thread that
 * waits for it (if any), take it back at the same depth. A no-op when this
 * thread does not hold it, inside a pinned stretch, or when no thread waits
 * (loom_mt_someone_waits). MULTIPLE mode only.
 */
void loom_mt_yield(void);

/** Threads blocked in loom_mt_acquire (kept by its slow path only). */
extern atomic_uint loom_mt_waiters;

/**
 * 1 when some thread waits for the engine lock (a relaxed load of
 * loom_mt_waiters): the progress engine calls loom_mt_yield only then, so a
 * thread alone never leaves its pass.
 */
static inline int loom_mt_someone_waits(void)
{
    return atomic_load_explicit(&loom_mt_waiters, memory_order_relaxed) != 0;
}

/**
 * Give the CPU away (sched_yield) without holding the engine lock: when this
 * thread holds it and no pinned stretch runs, release it fully around the
 * sched_yield and take it back at the same depth; otherwise a plain
 * sched_yield. For an idle waiter on an oversubscribed node, so a thread
 * that sleeps on the lock can run meanwhile. MULTIPLE mode only.
 */
void loom_mt_sched_yield(void);

/**
 * Before calling user code that may not return (an MPI error handler may
 * longjmp out, or block for long): release the lock fully when this thread
 * holds it and no pinned stretch or progress pass is running, so a handler
 * that never returns does not leave the lock held by this thread forever.
 * @return the depth to give loom_mt_callout_end() (0: nothing released).
 */
unsigned loom_mt_callout_begin(void);

/** After the user code: take the lock back at @p depth (0: nothing to do). */
void loom_mt_callout_end(unsigned depth);

/** Turn MULTIPLE mode on (loom_init_thread; before other threads call). */
void loom_mt_enable(void);

/**
 * > 0 while the lock holder is inside a stretch that must not let another
 * thread in (it walks a list that the other thread's call could change,
 * and calls something that runs progress). A plain int: only the lock
 * holder touches it, and SINGLE runs pay a plain increment.
 */
extern int loom_mt_pinned;

/** Begin a stretch in which progress passes do not yield the lock. */
static inline void loom_mt_pin(void)
{
    ++loom_mt_pinned;
}

/** End the stretch begun by loom_mt_pin(). */
static inline void loom_mt_unpin(void)
{
    --loom_mt_pinned;
}

/** 1 when the calling thread holds the engine lock (MULTIPLE mode). */
int loom_mt_held(void);

/** 1 when the lock may be biased (the kernel has membarrier; tests ask). */
int loom_mt_bias_enabled(void);

static inline int loom_mt_enter(void)
{
    if (loom_unlikely(loom_mt_is_active())) {
        loom_mt_lock();
        return 1;
    }
    return 0;
}

static inline void loom_mt_leave(const int *held)
{
    if (loom_unlikely(*held)) {
        loom_mt_unlock();
    }
}

/**
 * First statement of every public entry point: takes the engine lock in
 * MULTIPLE mode and releases it on every return path (cleanup attribute).
 */
#define LOOM_MT_GUARD() \
    int loom_mt_guard_ __attribute__((cleanup(loom_mt_leave), unused)) = loom_mt_enter()

#endif /* LOOM_MT_INT_H */
