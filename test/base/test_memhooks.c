/*
 * test_memhooks.c: the process-wide memory-event hooks (base/memhooks_int.h).
 *
 * A subscriber records every event in a table; each case makes one memory
 * call on a region of its own and checks the table holds exactly the
 * expected ranges, in order, with the subscriber's argument: munmap of part
 * of a region, mmap with and without MAP_FIXED (and mmap64), madvise with
 * advices that drop pages and one that does not, mremap moving and fixed,
 * two subscribers, unsubscribing, a callback that itself unmaps memory and
 * tries to (un)subscribe (re-entry: forwarded, not reported, not deadlocked),
 * and unsubscribing while other threads unmap memory (no callback runs once
 * unsubscribe returned).
 *
 * Where the hooks are not built (sanitizer builds, builds without verbs) the
 * suite checks that the module says so and that subscribing fails, and
 * skips the rest with a message.
 */
#include "../common/cunit_main.h"
#include "memhooks_int.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 16

typedef struct event {
    void       *arg;
    const void *addr;
    size_t      len;
} event_t;

static event_t events[MAX_EVENTS];
static int nevents;
static size_t page;
static int tag_a, tag_b;   /* the subscribers' arguments */

/* The recording subscriber: no allocation, no lock (one thread). */
static void record(void *arg, const void *addr, size_t len)
{
    if (nevents < MAX_EVENTS) {
        events[nevents] = (event_t){ arg, addr, len };
    }
    ++nevents;
}

static void expect_event(int i, void *arg, const void *addr, size_t len)
{
    CU_ASSERT_FATAL(i < nevents && i < MAX_EVENTS);
    CU_ASSERT_PTR_EQUAL(events[i].arg, arg);
    CU_ASSERT_PTR_EQUAL(events[i].addr, addr);
    CU_ASSERT_EQUAL(events[i].len, len);
}

/* A fresh anonymous region of @p npages pages (no event: not MAP_FIXED). */
static char *map_pages(size_t npages, int flags)
{
    char *p = mmap(NULL, npages * page, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);

    CU_ASSERT_FATAL(p != MAP_FAILED);
    return p;
}

static int is_mapped(const void *addr, size_t len)
{
    unsigned char vec[64];

    return mincore((void *)addr, len, vec) == 0 ? 1 : (errno == ENOMEM ? 0 : -1);
}

static int suite_init(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    nevents = 0;
    return loom_memhooks_subscribe(record, &tag_a) == LOOM_OK ? 0 : -1;
}

static int suite_cleanup(void)
{
    return loom_memhooks_unsubscribe(record, &tag_a) == LOOM_OK ? 0 : -1;
}

static void test_munmap_part(void)
{
    char *p = map_pages(16, MAP_PRIVATE);

    CU_ASSERT_EQUAL(nevents, 0);
    CU_ASSERT_EQUAL(munmap(p + 2 * page, 3 * page), 0);
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, p + 2 * page, 3 * page);
    CU_ASSERT_EQUAL(is_mapped(p + 2 * page, 3 * page), 0);
    CU_ASSERT_EQUAL(is_mapped(p, 2 * page), 1);
    /* len 0 is not an event (and the call fails as libc's does) */
    nevents = 0;
    errno = 0;
    CU_ASSERT_EQUAL(munmap(p, 0), -1);
    CU_ASSERT_EQUAL(errno, EINVAL);
    CU_ASSERT_EQUAL(nevents, 0);
    nevents = 0;
    CU_ASSERT_EQUAL(munmap(p, 16 * page), 0);
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, p, 16 * page);
    nevents = 0;
}

static void test_map_fixed(void)
{
    char *p = map_pages(8, MAP_PRIVATE), *q;

    p[4 * page] = 1;
    q = mmap(p + 4 * page, 2 * page, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CU_ASSERT_PTR_EQUAL(q, p + 4 * page);
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, p + 4 * page, 2 * page);
    CU_ASSERT_EQUAL(p[4 * page], 0);   /* new pages */
    nevents = 0;
    q = mmap64(p + page, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CU_ASSERT_PTR_EQUAL(q, p + page);
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, p + page, page);
    nevents = 0;
    CU_ASSERT_EQUAL(munmap(p, 8 * page), 0);
    nevents = 0;
}

static void test_madvise(void)
{
    char *p = map_pages(8, MAP_PRIVATE), *s = map_pages(4, MAP_SHARED);

    p[page] = 1;
    CU_ASSERT_EQUAL(madvise(p + page, 2 * page, MADV_DONTNEED), 0);
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, p + page, 2 * page);
    CU_ASSERT_EQUAL(p[page], 0);   /* dropped */
    nevents = 0;
    CU_ASSERT_EQUAL(madvise(p + 4 * page, page, MADV_FREE), 0);
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, p + 4 * page, page);
    nevents = 0;
    CU_ASSERT_EQUAL(madvise(s, 4 * page, MADV_REMOVE), 0);   /* shmem: supported */
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, s, 4 * page);
    nevents = 0;
    /* advices that keep the pages are no events */
    CU_ASSERT_EQUAL(madvise(p, 8 * page, MADV_WILLNEED), 0);
    CU_ASSERT_EQUAL(madvise(p, 8 * page, MADV_NORMAL), 0);
    CU_ASSERT_EQUAL(nevents, 0);
    CU_ASSERT_EQUAL(munmap(p, 8 * page), 0);
    CU_ASSERT_EQUAL(munmap(s, 4 * page), 0);
    nevents = 0;
}

static void test_mremap(void)
{
    char *p = map_pages(2, MAP_PRIVATE), *t = map_pages(4, MAP_PRIVATE), *q;

    /* moved or grown in place: the old range is an event */
    q = mremap(p, 2 * page, 6 * page, MREMAP_MAYMOVE);
    CU_ASSERT_FATAL(q != MAP_FAILED);
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, p, 2 * page);
    /* MREMAP_FIXED: the target range (replaced) first, then the old one */
    nevents = 0;
    p = mremap(q, 6 * page, 3 * page, MREMAP_MAYMOVE | MREMAP_FIXED, t);
    CU_ASSERT_PTR_EQUAL(p, t);
    CU_ASSERT_EQUAL(nevents, 2);
    expect_event(0, &tag_a, t, 3 * page);
    expect_event(1, &tag_a, q, 6 * page);
    nevents = 0;
    CU_ASSERT_EQUAL(munmap(t, 4 * page), 0);
    nevents = 0;
}

/* Two subscribers: both see each event, in subscription order, with their
 * own argument; after unsubscribing, only the other one does. */
static void test_two_subscribers(void)
{
    char *p = map_pages(4, MAP_PRIVATE);

    CU_ASSERT_EQUAL_FATAL(loom_memhooks_subscribe(record, &tag_b), LOOM_OK);
    CU_ASSERT_EQUAL(munmap(p, page), 0);
    CU_ASSERT_EQUAL(nevents, 2);
    expect_event(0, &tag_a, p, page);
    expect_event(1, &tag_b, p, page);
    nevents = 0;
    CU_ASSERT_EQUAL(loom_memhooks_unsubscribe(record, &tag_b), LOOM_OK);
    CU_ASSERT_EQUAL(loom_memhooks_unsubscribe(record, &tag_b), LOOM_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(munmap(p + page, 3 * page), 0);
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, p + page, 3 * page);
    nevents = 0;
}

/* After unsubscribing, no more calls; subscribing again brings them back. */
static void test_unsubscribe(void)
{
    char *p = map_pages(4, MAP_PRIVATE);

    CU_ASSERT_EQUAL_FATAL(loom_memhooks_unsubscribe(record, &tag_a), LOOM_OK);
    CU_ASSERT_EQUAL(munmap(p, page), 0);
    CU_ASSERT_EQUAL(madvise(p + page, page, MADV_DONTNEED), 0);
    CU_ASSERT_PTR_EQUAL(mmap(p + page, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                             -1, 0), p + page);
    CU_ASSERT_EQUAL(nevents, 0);
    CU_ASSERT_EQUAL_FATAL(loom_memhooks_subscribe(record, &tag_a), LOOM_OK);
    CU_ASSERT_EQUAL(munmap(p + page, 3 * page), 0);
    CU_ASSERT_EQUAL(nevents, 1);
    expect_event(0, &tag_a, p + page, 3 * page);
    nevents = 0;
}

static void test_subscribe_errors(void)
{
    static int tags[LOOM_MEMHOOKS_MAX_SUBSCRIBERS];
    int i;

    CU_ASSERT_EQUAL(loom_memhooks_subscribe(NULL, &tag_b), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_memhooks_unsubscribe(record, &tag_b), LOOM_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(loom_memhooks_unsubscribe(NULL, NULL), LOOM_ERR_NOT_FOUND);
    /* the suite's subscriber holds one slot */
    for (i = 1; i < LOOM_MEMHOOKS_MAX_SUBSCRIBERS; ++i) {
        CU_ASSERT_EQUAL(loom_memhooks_subscribe(record, &tags[i]), LOOM_OK);
    }
    CU_ASSERT_EQUAL(loom_memhooks_subscribe(record, &tag_b), LOOM_ERR_NO_RESOURCE);
    for (i = 1; i < LOOM_MEMHOOKS_MAX_SUBSCRIBERS; ++i) {
        CU_ASSERT_EQUAL(loom_memhooks_unsubscribe(record, &tags[i]), LOOM_OK);
    }
    CU_ASSERT_EQUAL(nevents, 0);
}

/* ---- re-entry: a callback that unmaps memory and calls the module ------------ */

static char *reenter_scratch;
static loom_status_t reenter_sub_status, reenter_unsub_status;

static void reenter(void *arg, const void *addr, size_t len)
{
    record(arg, addr, len);
    if (reenter_scratch != NULL) {
        char *s = reenter_scratch;
        reenter_scratch = NULL;
        CU_ASSERT_EQUAL(munmap(s, page), 0);   /* forwarded, not reported */
        reenter_sub_status = loom_memhooks_subscribe(record, &tag_b);
        reenter_unsub_status = loom_memhooks_unsubscribe(reenter, &tag_b);
    }
}

static void test_reentrant(void)
{
    char *p = map_pages(2, MAP_PRIVATE), *s = map_pages(1, MAP_PRIVATE);

    CU_ASSERT_EQUAL_FATAL(loom_memhooks_subscribe(reenter, &tag_b), LOOM_OK);
    reenter_scratch = s;
    CU_ASSERT_EQUAL(munmap(p, 2 * page), 0);
    CU_ASSERT_EQUAL(nevents, 2);   /* the outer munmap, once per subscriber */
    expect_event(0, &tag_a, p, 2 * page);
    expect_event(1, &tag_b, p, 2 * page);
    CU_ASSERT_EQUAL(is_mapped(s, page), 0);   /* the nested munmap took effect */
    CU_ASSERT_EQUAL(reenter_sub_status, LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(reenter_unsub_status, LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_memhooks_unsubscribe(reenter, &tag_b), LOOM_OK);
    nevents = 0;
}

/* ---- unsubscribing while other threads unmap --------------------------------- */

#define RACE_THREADS 2
#define RACE_ROUNDS  400

static int race_inside, race_calls, race_late, race_stop;

/* Counts calls; race_late counts the ones that began after unsubscribe.
 * Stays inside a while, so an unsubscribe that did not wait would see it. */
static void race_cb(void *arg, const void *addr, size_t len)
{
    volatile int spin;

    (void)addr;
    (void)len;
    __atomic_add_fetch(&race_inside, 1, __ATOMIC_ACQ_REL);
    if (__atomic_load_n((int *)arg, __ATOMIC_ACQUIRE)) {
        __atomic_add_fetch(&race_late, 1, __ATOMIC_RELAXED);
    }
    for (spin = 0; spin < 2000; ++spin) {
    }
    __atomic_add_fetch(&race_calls, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&race_inside, 1, __ATOMIC_ACQ_REL);
}

static void *race_thread(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE)) {
        void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            munmap(p, page);
        }
    }
    return NULL;
}

/* Wait (up to 5 s) until race_calls leaves @p calls or a callback is running. */
static int wait_for_call(int calls)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        if (__atomic_load_n(&race_inside, __ATOMIC_ACQUIRE) != 0 ||
            __atomic_load_n(&race_calls, __ATOMIC_ACQUIRE) != calls) {
            return 1;
        }
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (t.tv_sec - t0.tv_sec < 5);
    return 0;
}

static void test_unsubscribe_concurrent(void)
{
    pthread_t th[RACE_THREADS];
    int gone = 0, round, i, calls;

    /* the suite's recorder is for one thread: out for this case */
    CU_ASSERT_EQUAL_FATAL(loom_memhooks_unsubscribe(record, &tag_a), LOOM_OK);
    for (i = 0; i < RACE_THREADS; ++i) {
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, race_thread, NULL), 0);
    }
    for (round = 0; round < RACE_ROUNDS; ++round) {
        __atomic_store_n(&gone, 0, __ATOMIC_RELEASE);
        calls = __atomic_load_n(&race_calls, __ATOMIC_ACQUIRE);
        CU_ASSERT_EQUAL_FATAL(loom_memhooks_subscribe(race_cb, &gone), LOOM_OK);
        /* until a thread is in the callback (so unsubscribe races with it) */
        CU_ASSERT(wait_for_call(calls));
        CU_ASSERT_EQUAL_FATAL(loom_memhooks_unsubscribe(race_cb, &gone), LOOM_OK);
        /* no callback in flight once unsubscribe returned, and none starts */
        CU_ASSERT_EQUAL(__atomic_load_n(&race_inside, __ATOMIC_ACQUIRE), 0);
        __atomic_store_n(&gone, 1, __ATOMIC_RELEASE);
    }
    calls = __atomic_load_n(&race_calls, __ATOMIC_ACQUIRE);
    usleep(20000);   /* the threads keep unmapping: still no calls */
    CU_ASSERT_EQUAL(__atomic_load_n(&race_calls, __ATOMIC_ACQUIRE), calls);
    __atomic_store_n(&race_stop, 1, __ATOMIC_RELEASE);
    for (i = 0; i < RACE_THREADS; ++i) {
        pthread_join(th[i], NULL);
    }
    CU_ASSERT_EQUAL(race_late, 0);
    printf("\n  %d rounds, %d callbacks from %d unmapping threads\n", RACE_ROUNDS, calls,
           RACE_THREADS);
    CU_ASSERT_EQUAL(nevents, 0);
    CU_ASSERT_EQUAL(loom_memhooks_subscribe(record, &tag_a), LOOM_OK);
}

/* ---- without hooks ----------------------------------------------------------- */

static void test_unavailable(void)
{
    CU_ASSERT_EQUAL(loom_memhooks_available(), 0);
    CU_ASSERT_EQUAL(loom_memhooks_subscribe(record, &tag_a), LOOM_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(loom_memhooks_subscribe(NULL, &tag_a), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_memhooks_unsubscribe(record, &tag_a), LOOM_ERR_NOT_FOUND);
    printf("\n  memory hooks not built in this build (%s: sanitizer or no verbs): "
           "event checks skipped\n", LOOM_BUILD_CONFIG);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "munmap of part of a region", test_munmap_part },
        { "mmap/mmap64 MAP_FIXED over a region", test_map_fixed },
        { "madvise DONTNEED/FREE/REMOVE, not WILLNEED", test_madvise },
        { "mremap, moving and MREMAP_FIXED", test_mremap },
        { "two subscribers", test_two_subscribers },
        { "unsubscribe stops the calls", test_unsubscribe },
        { "subscribe/unsubscribe errors", test_subscribe_errors },
        { "re-entry from a callback", test_reentrant },
        { "unsubscribe while threads unmap", test_unsubscribe_concurrent },
        { NULL, NULL },
    };
    static const loom_test_case_t unavailable[] = {
        { "hooks reported absent", test_unavailable },
        { NULL, NULL },
    };

    if (!loom_memhooks_available()) {
        return loom_test_run_suite("base memhooks (not built)", unavailable, NULL, NULL);
    }
    return loom_test_run_suite("base memhooks", cases, suite_init, suite_cleanup);
}
