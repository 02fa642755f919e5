/*
 * ib_rcache.c: the verbs registration cache and its memory-event hooks.
 *
 * Registering memory costs a system call and page pinning, so regions stay
 * registered after use and are found again by address. The danger is reuse:
 * the application frees a buffer, the same virtual addresses come back
 * mapped to different physical pages, and a cached registration would then
 * expose the old pages. Two things keep the cache correct (docs/ib.md):
 *
 *  1. Memory events. This file defines mmap (MAP_FIXED replaces pages),
 *     munmap, mremap and madvise(DONTNEED/FREE/REMOVE); calls from
 *     the application and from shared libraries bind to these definitions
 *     (the executable or libloom precedes libc in symbol lookup), which
 *     invalidate every cached region overlapping the range and then make the
 *     system call. An invalidated region is deregistered at once, or when its
 *     last user releases it.
 *  2. glibc's allocator returns memory to the kernel through its own internal
 *     calls, which no symbol hook sees, so while the cache exists malloc is
 *     told never to do so (mallopt M_MMAP_MAX=0, M_TRIM_THRESHOLD=max, as
 *     Open MPI did for leave_pinned): freed heap memory stays mapped to the
 *     same pages, so a registration of it stays valid when it is reused.
 *
 * Lookup is a scan of a most-recently-used list: it runs once per rendezvous
 * (messages above the eager limit), never per small message. The cache holds
 * at most max_bytes registered; unused regions are evicted from the cold end.
 */
#include "ib_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct loom_tl_ib_region {
    loom_list_t    elem;       /* in rcache->regions while valid (MRU first) */
    uintptr_t      start;
    uintptr_t      end;
    int            access;
    int            refcount;
    int            valid;
    struct ibv_mr *mr;
};

struct loom_tl_ib_rcache {
    struct ibv_pd *pd;
    size_t         max_bytes;
    loom_list_t    regions;
    loom_tl_ib_rcache_stats_t stats;
};

/*
 * Under AddressSanitizer and ThreadSanitizer the hooks are not built and the
 * cache keeps nothing (a region is deregistered when its last user releases
 * it). Two reasons, either sufficient: the sanitizers replace malloc with
 * allocators that return memory to the kernel through raw system calls (so
 * mallopt in 2. has no effect and a cached registration could go stale
 * without any hook seeing it), and the sanitizer runtimes call mmap through
 * the PLT during their own start-up, before the instrumented hook could run
 * (TSan crashed in __tsan_func_entry). Correct, just slower: sanitizer builds
 * are for finding bugs, not for bandwidth.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LOOM_TL_IB_RCACHE_HOOKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define LOOM_TL_IB_RCACHE_HOOKS 0
#endif
#endif
#ifndef LOOM_TL_IB_RCACHE_HOOKS
#define LOOM_TL_IB_RCACHE_HOOKS 1
#endif

/* One cache per process (one ib iface); the hooks find it here (read
 * atomically: a hook's first step, before any lock or thread-local). The
 * lock covers the cache's content: hooks run on any application thread. */
static pthread_mutex_t loom_tl_ib_rcache_lock = PTHREAD_MUTEX_INITIALIZER;
static loom_tl_ib_rcache_t *loom_tl_ib_rcache_cur;

static void loom_tl_ib_region_free(loom_tl_ib_rcache_t *rc, loom_tl_ib_region_t *r)
{
    rc->stats.bytes -= r->end - r->start;
    if (ibv_dereg_mr(r->mr) != 0) {
        loom_warn("ib", "ibv_dereg_mr of [%#lx, %#lx) failed: %m",
                  (unsigned long)r->start, (unsigned long)r->end);
    }
    free(r);
}

/* Take @p r out of the lookup list; free it now if nobody uses it. */
static void loom_tl_ib_region_invalidate(loom_tl_ib_rcache_t *rc, loom_tl_ib_region_t *r)
{
    loom_list_del(&r->elem);
    r->valid = 0;
    if (r->refcount == 0) {
        loom_tl_ib_region_free(rc, r);
    }
}

#if LOOM_TL_IB_RCACHE_HOOKS

static __thread int loom_tl_ib_in_hook;

static void loom_tl_ib_rcache_invalidate_range(const void *addr, size_t len)
{
    uintptr_t s = (uintptr_t)addr, e = s + len;
    loom_tl_ib_rcache_t *rc;
    loom_list_t *it, *next;

    /* No cache (start-up, programs that never open ib): touch nothing. */
    if (len == 0 || __atomic_load_n(&loom_tl_ib_rcache_cur, __ATOMIC_ACQUIRE) == NULL ||
        loom_tl_ib_in_hook) {
        return;
    }
    loom_tl_ib_in_hook = 1;
    pthread_mutex_lock(&loom_tl_ib_rcache_lock);
    rc = loom_tl_ib_rcache_cur;
    if (rc != NULL) {
        for (it = rc->regions.next; it != &rc->regions; it = next) {
            loom_tl_ib_region_t *r = loom_container_of(it, loom_tl_ib_region_t, elem);
            next = it->next;
            if (r->start < e && s < r->end) {
                ++rc->stats.invalidated;
                loom_tl_ib_region_invalidate(rc, r);
            }
        }
    }
    pthread_mutex_unlock(&loom_tl_ib_rcache_lock);
    loom_tl_ib_in_hook = 0;
}

/* ---- memory-event hooks: invalidate, then the next definition -------------- */

/*
 * The hooks forward to the next definition in symbol lookup order (libc's,
 * or another interposer's such as a profiler's or another runtime's memory
 * hooks, which must keep seeing these calls). It is resolved once with
 * dlsym(RTLD_NEXT); until resolved (dlsym itself may map memory) and if it
 * cannot be resolved, the hook makes the system call itself.
 */
typedef void *(*loom_tl_ib_mmap_fn_t)(void *, size_t, int, int, int, off_t);
typedef int (*loom_tl_ib_munmap_fn_t)(void *, size_t);
typedef void *(*loom_tl_ib_mremap_fn_t)(void *, size_t, size_t, int, ...);
typedef int (*loom_tl_ib_madvise_fn_t)(void *, size_t, int);

static struct {
    int                     state;   /* 0 unresolved, 1 resolving, 2 resolved */
    loom_tl_ib_mmap_fn_t    mmap;
    loom_tl_ib_munmap_fn_t  munmap;
    loom_tl_ib_mremap_fn_t  mremap;
    loom_tl_ib_madvise_fn_t madvise;
} loom_tl_ib_next;

/* Returns 1 when loom_tl_ib_next's pointers may be used (NULL = syscall). */
static int loom_tl_ib_next_ready(void)
{
    int expected = 0;

    if (__atomic_load_n(&loom_tl_ib_next.state, __ATOMIC_ACQUIRE) == 2) {
        return 1;
    }
    if (!__atomic_compare_exchange_n(&loom_tl_ib_next.state, &expected, 1, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return 0;   /* another thread (or this one, re-entered) is resolving */
    }
    /* dlsym returns void *; POSIX guarantees it converts to a function pointer */
    *(void **)&loom_tl_ib_next.mmap = dlsym(RTLD_NEXT, "mmap");
    *(void **)&loom_tl_ib_next.munmap = dlsym(RTLD_NEXT, "munmap");
    *(void **)&loom_tl_ib_next.mremap = dlsym(RTLD_NEXT, "mremap");
    *(void **)&loom_tl_ib_next.madvise = dlsym(RTLD_NEXT, "madvise");
    __atomic_store_n(&loom_tl_ib_next.state, 2, __ATOMIC_RELEASE);
    return 1;
}

/* mmap with MAP_FIXED replaces whatever was mapped there, without munmap. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (flags & MAP_FIXED) {
        loom_tl_ib_rcache_invalidate_range(addr, len);
    }
    if (loom_tl_ib_next_ready() && loom_tl_ib_next.mmap != NULL) {
        return loom_tl_ib_next.mmap(addr, len, prot, flags, fd, off);
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
    loom_tl_ib_rcache_invalidate_range(addr, len);
    if (loom_tl_ib_next_ready() && loom_tl_ib_next.munmap != NULL) {
        return loom_tl_ib_next.munmap(addr, len);
    }
    return (int)syscall(SYS_munmap, addr, len);
}

void *mremap(void *old_addr, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    va_list ap;

    if (flags & MREMAP_FIXED) {
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
        loom_tl_ib_rcache_invalidate_range(new_addr, new_len);
    }
    loom_tl_ib_rcache_invalidate_range(old_addr, old_len);
    if (loom_tl_ib_next_ready() && loom_tl_ib_next.mremap != NULL) {
        return loom_tl_ib_next.mremap(old_addr, old_len, new_len, flags, new_addr);
    }
    return (void *)syscall(SYS_mremap, old_addr, old_len, new_len, flags, new_addr);
}

int madvise(void *addr, size_t len, int advice)
{
    if (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE) {
        loom_tl_ib_rcache_invalidate_range(addr, len);
    }
    if (loom_tl_ib_next_ready() && loom_tl_ib_next.madvise != NULL) {
        return loom_tl_ib_next.madvise(addr, len, advice);
    }
    return (int)syscall(SYS_madvise, addr, len, advice);
}

#endif /* LOOM_TL_IB_RCACHE_HOOKS */

/* ---- the cache ------------------------------------------------------------------ */

loom_status_t loom_tl_ib_rcache_create(struct ibv_pd *pd, size_t max_bytes,
                                       loom_tl_ib_rcache_t **rcache_p)
{
    loom_tl_ib_rcache_t *rc;

    rc = calloc(1, sizeof(*rc));
    if (rc == NULL) {
        loom_error("ib", "cannot allocate the registration cache: %m");
        return LOOM_ERR_NO_MEMORY;
    }
    rc->pd = pd;
    rc->max_bytes = max_bytes;
    loom_list_init(&rc->regions);
    rc->stats.caching = LOOM_TL_IB_RCACHE_HOOKS;
#if LOOM_TL_IB_RCACHE_HOOKS
    /* see 2. above: freed heap memory must stay mapped to the same pages */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
#else
    loom_info("ib", "sanitizer build: the registration cache keeps nothing (every "
              "rendezvous registers its buffers and deregisters them after use)");
#endif
    pthread_mutex_lock(&loom_tl_ib_rcache_lock);
    __atomic_store_n(&loom_tl_ib_rcache_cur, rc, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&loom_tl_ib_rcache_lock);
    *rcache_p = rc;
    return LOOM_OK;
}

void loom_tl_ib_rcache_destroy(loom_tl_ib_rcache_t *rc)
{
    pthread_mutex_lock(&loom_tl_ib_rcache_lock);
    while (!loom_list_is_empty(&rc->regions)) {
        loom_tl_ib_region_t *r = loom_container_of(rc->regions.next, loom_tl_ib_region_t,
                                                   elem);
        if (r->refcount != 0) {
            loom_warn("ib", "region [%#lx, %#lx) still in use at close",
                      (unsigned long)r->start, (unsigned long)r->end);
            r->refcount = 0;
        }
        loom_tl_ib_region_invalidate(rc, r);
    }
    if (loom_tl_ib_rcache_cur == rc) {
        __atomic_store_n(&loom_tl_ib_rcache_cur, NULL, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&loom_tl_ib_rcache_lock);
    free(rc);
}

/* Evict unused regions from the cold end until @p need more bytes fit. */
static void loom_tl_ib_rcache_evict(loom_tl_ib_rcache_t *rc, size_t need)
{
    loom_list_t *it, *prev;

    for (it = rc->regions.prev; it != &rc->regions && rc->stats.bytes + need > rc->max_bytes;
         it = prev) {
        loom_tl_ib_region_t *r = loom_container_of(it, loom_tl_ib_region_t, elem);
        prev = it->prev;
        if (r->refcount == 0) {
            ++rc->stats.evicted;
            loom_tl_ib_region_invalidate(rc, r);
        }
    }
}

static loom_tl_ib_region_t *loom_tl_ib_rcache_find(loom_tl_ib_rcache_t *rc, uintptr_t s,
                                                   uintptr_t e, int access)
{
    loom_list_t *it;

    for (it = rc->regions.next; it != &rc->regions; it = it->next) {
        loom_tl_ib_region_t *r = loom_container_of(it, loom_tl_ib_region_t, elem);
        if (r->start <= s && e <= r->end && (r->access & access) == access) {
            return r;
        }
    }
    return NULL;
}

static loom_status_t loom_tl_ib_rcache_add(loom_tl_ib_rcache_t *rc, uintptr_t s, uintptr_t e,
                                           int access, loom_tl_ib_region_t **region_p)
{
    loom_tl_ib_region_t *r;
    size_t len = e - s;

    if (len > rc->max_bytes) {
        loom_error("ib", "cannot register %zu bytes: larger than LOOM_IB_RCACHE_MAX (%zu)",
                   len, rc->max_bytes);
        return LOOM_ERR_NO_RESOURCE;
    }
    loom_tl_ib_rcache_evict(rc, len);
    r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    r->mr = ibv_reg_mr(rc->pd, (void *)s, len, access);
    if (r->mr == NULL) {
        loom_error("ib", "ibv_reg_mr(%#lx, %zu bytes, access %#x) failed: %m "
                   "(registered by the cache: %zu bytes)", (unsigned long)s, len, access,
                   rc->stats.bytes);
        free(r);
        return errno == ENOMEM ? LOOM_ERR_NO_MEMORY : LOOM_ERR_TRANSPORT;
    }
    r->start = s;
    r->end = e;
    r->access = access;
    r->valid = 1;
    rc->stats.bytes += len;
    ++rc->stats.regs;
    if (rc->stats.bytes > rc->max_bytes) {
        loom_debug("ib", "registration cache above LOOM_IB_RCACHE_MAX: %zu bytes in use",
                   rc->stats.bytes);
    }
    loom_list_add_head(&rc->regions, &r->elem);
    *region_p = r;
    return LOOM_OK;
}

loom_status_t loom_tl_ib_rcache_get(loom_tl_ib_rcache_t *rc, const void *addr, size_t len,
                                    int access, loom_tl_ib_region_t **region_p)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t s = (uintptr_t)addr & ~(page - 1);
    uintptr_t e = LOOM_ALIGN_UP((uintptr_t)addr + (len ? len : 1), page);
    loom_tl_ib_region_t *r;
    loom_status_t status = LOOM_OK;

    pthread_mutex_lock(&loom_tl_ib_rcache_lock);
    r = loom_tl_ib_rcache_find(rc, s, e, access);
    if (r != NULL) {
        ++rc->stats.hits;
        loom_list_del(&r->elem);
        loom_list_add_head(&rc->regions, &r->elem);
    } else {
        status = loom_tl_ib_rcache_add(rc, s, e, access, &r);
    }
    if (status == LOOM_OK) {
        ++r->refcount;
        *region_p = r;
    }
    pthread_mutex_unlock(&loom_tl_ib_rcache_lock);
    return status;
}

void loom_tl_ib_rcache_put(loom_tl_ib_rcache_t *rc, loom_tl_ib_region_t *r)
{
    pthread_mutex_lock(&loom_tl_ib_rcache_lock);
    if (--r->refcount == 0) {
        if (!r->valid) {
            loom_tl_ib_region_free(rc, r);
        } else if (!LOOM_TL_IB_RCACHE_HOOKS) {
            loom_tl_ib_region_invalidate(rc, r);   /* nothing sees reuse: keep nothing */
        } else if (rc->stats.bytes > rc->max_bytes) {
            ++rc->stats.evicted;
            loom_tl_ib_region_invalidate(rc, r);
        }
    }
    pthread_mutex_unlock(&loom_tl_ib_rcache_lock);
}

struct ibv_mr *loom_tl_ib_region_mr(const loom_tl_ib_region_t *region)
{
    return region->mr;
}

void loom_tl_ib_rcache_stats(const loom_tl_ib_rcache_t *rc, loom_tl_ib_rcache_stats_t *st)
{
    pthread_mutex_lock(&loom_tl_ib_rcache_lock);
    *st = rc->stats;
    pthread_mutex_unlock(&loom_tl_ib_rcache_lock);
}

loom_tl_ib_rcache_t *loom_tl_ib_rcache_current(void)
{
    return __atomic_load_n(&loom_tl_ib_rcache_cur, __ATOMIC_ACQUIRE);
}
