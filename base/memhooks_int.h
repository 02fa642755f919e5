/*
 * memhooks_int.h: process-wide memory-event hooks. A subscriber (the verbs
 * registration cache, transport/ib/ib_rcache.c) is told when a virtual
 * address range stops being backed by the pages it had: unmapped, mapped
 * over, moved, or discarded.
 *
 * How (base/memhooks.c): the module defines mmap and mmap64 (with MAP_FIXED,
 * which replaces pages without any munmap), munmap, mremap (the old range,
 * and the new one with MREMAP_FIXED) and madvise (MADV_DONTNEED, MADV_FREE,
 * MADV_REMOVE). Calls from the application and from shared libraries bind
 * to these definitions, since the executable or libloom.so precedes libc in
 * symbol lookup. Each hook calls the subscribers with the range, then the
 * next definition in lookup order (libc's, or another interposer's such as
 * a profiler's, which must keep seeing the calls), resolved once with
 * dlsym(RTLD_NEXT); while that is being resolved (dlsym may itself map
 * memory) or if it cannot be, the hook makes the system call itself.
 *
 * Cost and safety:
 *  - With nobody subscribed (start-up, programs that never open ib) a hook
 *    reads one atomic counter and touches nothing else: no lock, no
 *    thread-local, so it is safe in the dynamic loader's and libc's start-up.
 *  - With subscribers, a hook sets a thread-local guard and takes the read
 *    side of a rwlock around the callbacks. The guard makes a hook re-entered
 *    on the same thread (a callback or a signal handler calling munmap, a
 *    callback's free) skip the callbacks and just forward the call, so a
 *    callback must not depend on seeing memory events it causes itself.
 *  - Subscribing and unsubscribing take the write side: once
 *    loom_memhooks_unsubscribe() returns, no thread is still in or will enter
 *    that callback, and its argument may be freed. A callback must not
 *    (un)subscribe, and nobody may unsubscribe while holding a lock that a
 *    callback takes (the registration cache unsubscribes before taking its
 *    own lock).
 *  - Ranges are reported as the caller passed them (not page-rounded, and
 *    reported whether or not the system call then succeeds); len 0 is not
 *    reported.
 *
 * Not seen: glibc's malloc returning memory through its internal calls (an
 *  mmapped chunk freed, a heap trimmed), shmdt, raw syscall(SYS_munmap). A
 *  subscriber that must see every reuse of heap memory stops malloc from
 *  releasing it (the registration cache sets mallopt M_MMAP_MAX=0 and
 *  M_TRIM_THRESHOLD=max).
 *
 * When: the hooks are built only when the verbs transport is (LOOM_HAVE_IBV,
 *  its only subscriber: programs built without verbs keep libc's mmap and
 *  munmap untouched, as before the module existed), and never under
 *  AddressSanitizer, ThreadSanitizer or MemorySanitizer. Those replace malloc
 *  with allocators that return memory to the kernel by raw system calls (no
 *  hook could see the reuse, and mallopt has no effect), and their runtimes
 *  call mmap through the PLT during their own start-up, before an
 *  instrumented hook could run (under TSan every program crashed in
 *  __tsan_func_entry). Then loom_memhooks_available() is 0 and subscribing
 *  fails with LOOM_ERR_UNSUPPORTED; the registration cache then keeps
 *  nothing.
 */
#ifndef LOOM_MEMHOOKS_INT_H
#define LOOM_MEMHOOKS_INT_H

#include <loom.h>
#include <stddef.h>

/** At most this many subscribers at a time. */
#define LOOM_MEMHOOKS_MAX_SUBSCRIBERS 4

/**
 * A memory event: [@p addr, @p addr + @p len) is being unmapped, replaced or
 * discarded (called before the system call). Runs on the thread that made
 * the call, possibly inside libc or another library: it must not block on
 * anything the caller may hold, and must not (un)subscribe.
 */
typedef void (*loom_memhooks_cb_t)(void *arg, const void *addr, size_t len);

/**
 * @brief Whether this build has the hooks.
 * @return 1 if the hooks are built (verbs present, no sanitizer replacing
 *         malloc), 0 if subscribing would fail.
 */
int loom_memhooks_available(void);

/**
 * @brief Call @p cb with @p arg on every memory event from now on.
 * @return LOOM_OK; LOOM_ERR_INVALID_ARG if @p cb is NULL;
 *         LOOM_ERR_UNSUPPORTED if the hooks are not built
 *         (loom_memhooks_available() is 0); LOOM_ERR_NO_RESOURCE if
 *         LOOM_MEMHOOKS_MAX_SUBSCRIBERS are already subscribed.
 */
loom_status_t loom_memhooks_subscribe(loom_memhooks_cb_t cb, void *arg);

/**
 * @brief Stop calling @p cb with @p arg (the pair given to subscribe).
 * On return no thread runs or will run that callback.
 * @return LOOM_OK; LOOM_ERR_NOT_FOUND if the pair is not subscribed.
 */
loom_status_t loom_memhooks_unsubscribe(loom_memhooks_cb_t cb, void *arg);

#endif /* LOOM_MEMHOOKS_INT_H */
