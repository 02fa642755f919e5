/*
 * memhooks.c: the process-wide memory-event hooks (design in memhooks_int.h).
 *
 * The module owns the interposed symbols (mmap, mmap64, munmap, mremap,
 * madvise), their forwarding to the next definition, and a small table of
 * subscribers. A hook reports the range to the subscribers, then forwards.
 *
 * Table: LOOM_MEMHOOKS_MAX_SUBSCRIBERS slots, written under the write side of
 * a rwlock, read under its read side by the hooks (which run concurrently on
 * any thread; glibc's default rwlock lets readers in while a writer waits, so
 * a hook never waits for another hook). loom_memhooks_nsubs counts the
 * filled slots and is the one atomic a hook reads when nobody subscribed.
 *
 * Built only with the verbs transport and without a sanitizer that replaces
 * malloc (LOOM_MEMHOOKS below; the reasons are in memhooks_int.h); otherwise
 * this file defines no libc symbol and subscribing fails.
 */
#include "memhooks_int.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LOOM_MEMHOOKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define LOOM_MEMHOOKS 0
#endif
#endif
#if !defined(LOOM_MEMHOOKS) && !LOOM_HAVE_IBV
#define LOOM_MEMHOOKS 0   /* no subscriber in this build: leave libc's symbols alone */
#endif
#ifndef LOOM_MEMHOOKS
#define LOOM_MEMHOOKS 1
#endif

int loom_memhooks_available(void)
{
    return LOOM_MEMHOOKS;
}

#if LOOM_MEMHOOKS

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct loom_memhooks_sub {
    loom_memhooks_cb_t cb;    /* NULL: free slot */
    void              *arg;
} loom_memhooks_sub_t;

static pthread_rwlock_t loom_memhooks_lock = PTHREAD_RWLOCK_INITIALIZER;
static loom_memhooks_sub_t loom_memhooks_subs[LOOM_MEMHOOKS_MAX_SUBSCRIBERS];
static int loom_memhooks_nsubs;   /* filled slots; read atomically first by every hook */

/* Set while this thread runs the callbacks or changes the table: a hook
 * re-entered on it (a callback's own munmap, a signal handler's) forwards
 * without reporting instead of taking the lock again. */
static __thread int loom_memhooks_in_hook;

/* Report [addr, addr + len) to every subscriber. */
static void loom_memhooks_notify(const void *addr, size_t len)
{
    int i;

    /* Nobody subscribed (start-up, programs that never open ib): touch nothing. */
    if (len == 0 || __atomic_load_n(&loom_memhooks_nsubs, __ATOMIC_ACQUIRE) == 0 ||
        loom_memhooks_in_hook) {
        return;
    }
    loom_memhooks_in_hook = 1;
    pthread_rwlock_rdlock(&loom_memhooks_lock);
    for (i = 0; i < LOOM_MEMHOOKS_MAX_SUBSCRIBERS; ++i) {
        if (loom_memhooks_subs[i].cb != NULL) {
            loom_memhooks_subs[i].cb(loom_memhooks_subs[i].arg, addr, len);
        }
    }
    pthread_rwlock_unlock(&loom_memhooks_lock);
    loom_memhooks_in_hook = 0;
}

loom_status_t loom_memhooks_subscribe(loom_memhooks_cb_t cb, void *arg)
{
    loom_status_t status = LOOM_ERR_NO_RESOURCE;
    int i;

    if (cb == NULL || loom_memhooks_in_hook) {
        return LOOM_ERR_INVALID_ARG;   /* no callback, or called from one */
    }
    loom_memhooks_in_hook = 1;
    pthread_rwlock_wrlock(&loom_memhooks_lock);
    for (i = 0; i < LOOM_MEMHOOKS_MAX_SUBSCRIBERS; ++i) {
        if (loom_memhooks_subs[i].cb == NULL) {
            loom_memhooks_subs[i].cb = cb;
            loom_memhooks_subs[i].arg = arg;
            __atomic_add_fetch(&loom_memhooks_nsubs, 1, __ATOMIC_RELEASE);
            status = LOOM_OK;
            break;
        }
    }
    pthread_rwlock_unlock(&loom_memhooks_lock);
    loom_memhooks_in_hook = 0;
    return status;
}

loom_status_t loom_memhooks_unsubscribe(loom_memhooks_cb_t cb, void *arg)
{
    loom_status_t status = LOOM_ERR_NOT_FOUND;
    int i;

    if (loom_memhooks_in_hook) {
        return LOOM_ERR_INVALID_ARG;   /* from a callback: would wait for itself */
    }
    loom_memhooks_in_hook = 1;
    pthread_rwlock_wrlock(&loom_memhooks_lock);
    for (i = 0; i < LOOM_MEMHOOKS_MAX_SUBSCRIBERS; ++i) {
        if (cb != NULL && loom_memhooks_subs[i].cb == cb && loom_memhooks_subs[i].arg == arg) {
            loom_memhooks_subs[i].cb = NULL;
            loom_memhooks_subs[i].arg = NULL;
            __atomic_sub_fetch(&loom_memhooks_nsubs, 1, __ATOMIC_RELEASE);
            status = LOOM_OK;
            break;
        }
    }
    pthread_rwlock_unlock(&loom_memhooks_lock);
    loom_memhooks_in_hook = 0;
    return status;
}

/* ---- the hooks: report, then the next definition ----------------------------- */

/*
 * The next definition in symbol lookup order (libc's, or another
 * interposer's), resolved once with dlsym(RTLD_NEXT); until resolved (dlsym
 * itself may map memory) and if it cannot be resolved, the hook makes the
 * system call itself.
 */
typedef void *(*loom_memhooks_mmap_fn_t)(void *, size_t, int, int, int, off_t);
typedef int (*loom_memhooks_munmap_fn_t)(void *, size_t);
typedef void *(*loom_memhooks_mremap_fn_t)(void *, size_t, size_t, int, ...);
typedef int (*loom_memhooks_madvise_fn_t)(void *, size_t, int);

static struct {
    int                        state;   /* 0 unresolved, 1 resolving, 2 resolved */
    loom_memhooks_mmap_fn_t    mmap;
    loom_memhooks_munmap_fn_t  munmap;
    loom_memhooks_mremap_fn_t  mremap;
    loom_memhooks_madvise_fn_t madvise;
} loom_memhooks_next;

/* Returns 1 when loom_memhooks_next's pointers may be used (NULL = syscall). */
static int loom_memhooks_next_ready(void)
{
    int expected = 0;

    if (__atomic_load_n(&loom_memhooks_next.state, __ATOMIC_ACQUIRE) == 2) {
        return 1;
    }
    if (!__atomic_compare_exchange_n(&loom_memhooks_next.state, &expected, 1, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return 0;   /* another thread (or this one, re-entered) is resolving */
    }
    /* dlsym returns void *; POSIX guarantees it converts to a function pointer */
    *(void **)&loom_memhooks_next.mmap = dlsym(RTLD_NEXT, "mmap");
    *(void **)&loom_memhooks_next.munmap = dlsym(RTLD_NEXT, "munmap");
    *(void **)&loom_memhooks_next.mremap = dlsym(RTLD_NEXT, "mremap");
    *(void **)&loom_memhooks_next.madvise = dlsym(RTLD_NEXT, "madvise");
    __atomic_store_n(&loom_memhooks_next.state, 2, __ATOMIC_RELEASE);
    return 1;
}

/* mmap with MAP_FIXED replaces whatever was mapped there, without munmap. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (flags & MAP_FIXED) {
        loom_memhooks_notify(addr, len);
    }
    if (loom_memhooks_next_ready() && loom_memhooks_next.mmap != NULL) {
        return loom_memhooks_next.mmap(addr, len, prot, flags, fd, off);
    }
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* the name _FILE_OFFSET_BITS=64 callers bind to (same call on 64-bit) */
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    return mmap(addr, len, prot, flags, fd, (off_t)off);
}

int munmap(void *addr, size_t len)
{
    loom_memhooks_notify(addr, len);
    if (loom_memhooks_next_ready() && loom_memhooks_next.munmap != NULL) {
        return loom_memhooks_next.munmap(addr, len);
    }
    return (int)syscall(SYS_munmap, addr, len);
}

/* The old range goes away; with MREMAP_FIXED the new one replaces what was there. */
void *mremap(void *old_addr, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    va_list ap;

    if (flags & MREMAP_FIXED) {
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
        loom_memhooks_notify(new_addr, new_len);
    }
    loom_memhooks_notify(old_addr, old_len);
    if (loom_memhooks_next_ready() && loom_memhooks_next.mremap != NULL) {
        return loom_memhooks_next.mremap(old_addr, old_len, new_len, flags, new_addr);
    }
    return (void *)syscall(SYS_mremap, old_addr, old_len, new_len, flags, new_addr);
}

/* These advices drop the pages: the range reads back as zeros or new pages. */
int madvise(void *addr, size_t len, int advice)
{
    if (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE) {
        loom_memhooks_notify(addr, len);
    }
    if (loom_memhooks_next_ready() && loom_memhooks_next.madvise != NULL) {
        return loom_memhooks_next.madvise(addr, len, advice);
    }
    return (int)syscall(SYS_madvise, addr, len, advice);
}

#else /* !LOOM_MEMHOOKS */

loom_status_t loom_memhooks_subscribe(loom_memhooks_cb_t cb, void *arg)
{
    (void)arg;
    return cb == NULL ? LOOM_ERR_INVALID_ARG : LOOM_ERR_UNSUPPORTED;
}

loom_status_t loom_memhooks_unsubscribe(loom_memhooks_cb_t cb, void *arg)
{
    (void)cb;
    (void)arg;
    return LOOM_ERR_NOT_FOUND;
}

#endif /* LOOM_MEMHOOKS */
