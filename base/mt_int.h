/*
 * mt_int.h: the engine lock for MPI_THREAD_MULTIPLE.
 *
 * loom serializes concurrent calls with one process-wide lock, taken only
 * when the granted thread level is MULTIPLE (loom_mt_active, a plain global
 * set once by loom_init_thread before a second thread may call). Every
 * public entry point (each PMPI_* in mpi/, each native function of
 * include/loom.h) starts with LOOM_MT_GUARD(): in SINGLE, FUNNELED and
 * SERIALIZED runs that is one predictable branch on loom_mt_active, with no
 * TLS access, no atomic and no lock. In MULTIPLE runs the lock is recursive
 * per thread (a thread-local depth; the mutex is taken at depth 0 -> 1), so
 * an entry point that calls another one (an MPI call built on a native
 * one, an attribute callback that calls MPI) does not deadlock itself.
 *
 * Blocking waits do not hold the lock while they spin: the progress engine
 * calls loom_mt_yield() once per pass (p2p/progress.c), which releases the
 * lock fully (whatever the depth), lets one waiting thread in when there is
 * one, and takes it back with the same depth. Waiting threads sleep in the
 * mutex instead of spinning, so on an oversubscribed node they do not
 * starve the thread that progresses.
 *
 * The guard uses __attribute__((cleanup)) (GCC and clang), so no return
 * path of a guarded function needs editing; scripts/mt_guard.py checks that
 * every entry point has it.
 */
#ifndef LOOM_MT_INT_H
#define LOOM_MT_INT_H

#include "compiler_int.h"

/** 1 once the granted thread level is MULTIPLE (set before threads call). */
extern int loom_mt_active;

/** Take the engine lock (recursive per thread). MULTIPLE mode only. */
void loom_mt_lock(void);

/** Drop one level of the engine lock. MULTIPLE mode only. */
void loom_mt_unlock(void);

/**
 * Let another thread in: release the lock fully, hand it to a thread that
 * waits for it (if any), take it back at the same depth. A no-op when this
 * thread does not hold it. MULTIPLE mode only.
 */
void loom_mt_yield(void);

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

static inline int loom_mt_enter(void)
{
    if (loom_unlikely(loom_mt_active)) {
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
