/*
 * ib_rcache.c: the verbs registration cache.
 *
 * Registering memory costs a system call and page pinning, so regions stay
 * registered after use and are found again by address. The danger is reuse:
 * the application frees a buffer, the same virtual addresses come back
 * mapped to different physical pages, and a cached registration would then
 * expose the old pages. Two things keep the cache correct (docs/ib.md):
 *
 *  1. Memory events. The cache subscribes to the process-wide memory hooks
 *     (base/memhooks_int.h: munmap, mremap, madvise(DONTNEED/FREE/REMOVE),
 *     mmap with MAP_FIXED) while it exists; each event invalidates every
 *     cached region overlapping the range, before the system call is made.
 *     An invalidated region is deregistered at once, or when its last user
 *     releases it.
 *  2. glibc's allocator returns memory to the kernel through its own internal
 *     calls, which no symbol hook sees, so while the cache exists malloc is
 *     told never to do so (mallopt M_MMAP_MAX=0, M_TRIM_THRESHOLD=max, as
 *     Open MPI did for leave_pinned): freed heap memory stays mapped to the
 *     same pages, so a registration of it stays valid when it is reused.
 *
 * Where the hooks are not built (AddressSanitizer, ThreadSanitizer: see
 * memhooks_int.h) the cache keeps nothing: a region is deregistered when its
 * last user releases it. Correct, just slower: sanitizer builds are for
 * finding bugs, not for bandwidth.
 *
 * Lookup is a scan of a most-recently-used list: it runs once per rendezvous
 * (messages above the eager limit), never per small message. The cache holds
 * at most max_bytes registered; unused regions are evicted from the cold end.
 */
#include "ib_int.h"
#include "memhooks_int.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
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

/* One cache per process (one ib iface), found here by
 * loom_tl_ib_rcache_current(). The lock covers the cache's content: memory
 * events arrive on any application thread. */
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

/* Memory event (base/memhooks.c; len is never 0): invalidate every region
 * overlapping [addr, addr + len). */
static void loom_tl_ib_rcache_on_unmap(void *arg, const void *addr, size_t len)
{
    loom_tl_ib_rcache_t *rc = arg;
    uintptr_t s = (uintptr_t)addr, e = s + len;
    loom_list_t *it, *next;

    pthread_mutex_lock(&loom_tl_ib_rcache_lock);
    for (it = rc->regions.next; it != &rc->regions; it = next) {
        loom_tl_ib_region_t *r = loom_container_of(it, loom_tl_ib_region_t, elem);
        next = it->next;
        if (r->start < e && s < r->end) {
            ++rc->stats.invalidated;
            loom_tl_ib_region_invalidate(rc, r);
        }
    }
    pthread_mutex_unlock(&loom_tl_ib_rcache_lock);
}

/* ---- the cache ------------------------------------------------------------------ */

loom_status_t loom_tl_ib_rcache_create(struct ibv_pd *pd, size_t max_bytes,
                                       loom_tl_ib_rcache_t **rcache_p)
{
    loom_tl_ib_rcache_t *rc;
    loom_status_t status;

    rc = calloc(1, sizeof(*rc));
    if (rc == NULL) {
        loom_error("ib", "cannot allocate the registration cache: %m");
        return LOOM_ERR_NO_MEMORY;
    }
    rc->pd = pd;
    rc->max_bytes = max_bytes;
    loom_list_init(&rc->regions);
    if (!loom_memhooks_available()) {
        loom_info("ib", "sanitizer build: the registration cache keeps nothing (every "
                  "rendezvous registers its buffers and deregisters them after use)");
    } else if ((status = loom_memhooks_subscribe(loom_tl_ib_rcache_on_unmap, rc)) != LOOM_OK) {
        loom_warn("ib", "cannot subscribe the registration cache to the memory hooks "
                  "(%s): it keeps nothing", loom_status_name(status));
    } else {
        /* see 2. above: freed heap memory must stay mapped to the same pages */
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, -1);
        rc->stats.caching = 1;
    }
    pthread_mutex_lock(&loom_tl_ib_rcache_lock);
    __atomic_store_n(&loom_tl_ib_rcache_cur, rc, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&loom_tl_ib_rcache_lock);
    *rcache_p = rc;
    return LOOM_OK;
}

void loom_tl_ib_rcache_destroy(loom_tl_ib_rcache_t *rc)
{
    /* first, and without the cache's lock (the callback takes it): once this
     * returns no memory event reaches rc */
    if (rc->stats.caching) {
        loom_memhooks_unsubscribe(loom_tl_ib_rcache_on_unmap, rc);
    }
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
        } else if (!rc->stats.caching) {
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
