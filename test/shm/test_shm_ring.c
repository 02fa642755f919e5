/*
 * test_shm_ring.c: the shm transport's SPSC ring on its own, between two
 * fork()ed processes sharing an anonymous mapping: ordering, wraparound,
 * back-pressure on a full ring, variable sizes, and a million checksummed
 * frames.
 */
#include "cunit_main.h"

#include "hash_int.h"
#include "shm/shm_ring.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the producer reports back through shared memory. */
typedef struct ring_report {
    _Atomic uint64_t checksum;
    _Atomic uint64_t full_events;
    _Atomic int      done;
} ring_report_t;

static void *shared_map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* Frame i's length in [0, max] and its k-th byte: both sides compute them. */
static uint32_t frame_len(uint64_t i, uint32_t max)
{
    return (uint32_t)(mix(i + 1) % ((uint64_t)max + 1));
}

static uint8_t frame_byte(uint64_t i, uint32_t k)
{
    return (uint8_t)(i * 131u + k * 7u + (k >> 8));
}

/* Producer process: n frames of pseudo-random sizes; spins (yielding) when full. */
static void producer(void *mem, uint32_t nslots, uint32_t slot_size, uint64_t n,
                     uint32_t max_len, ring_report_t *rep)
{
    loom_shm_ring_tx_t tx;
    uint8_t buf[LOOM_SHM_SLOT_MAX];
    uint64_t sum = LOOM_HASH_FNV1A64_INIT, full = 0;

    loom_shm_ring_tx_init(&tx, mem, nslots, slot_size);
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t len = frame_len(i, max_len);
        for (uint32_t k = 0; k < len; ++k) {
            buf[k] = frame_byte(i, k);
        }
        sum = loom_hash_fnv1a64(sum, buf, len);
        /* split each frame in two pieces like am_send does */
        while (!loom_shm_ring_tx_send2(&tx, (uint16_t)i, buf, len / 3, buf + len / 3,
                                       len - len / 3)) {
            ++full;
            sched_yield();
        }
    }
    atomic_store(&rep->checksum, sum);
    atomic_store(&rep->full_events, full);
    atomic_store(&rep->done, 1);
}

/*
 * Consume n frames, checking order (type carries the low bits of the frame
 * number), length and, if @p verify, every byte. @return mismatches.
 */
static uint64_t consumer(void *mem, uint32_t nslots, uint32_t slot_size, uint64_t n,
                         uint32_t max_len, int verify, uint64_t *sum_p, uint64_t *slots_p)
{
    loom_shm_ring_rx_t rx;
    uint64_t bad = 0, sum = LOOM_HASH_FNV1A64_INIT;
    time_t deadline = time(NULL) + 60;

    loom_shm_ring_rx_init(&rx, mem, nslots, slot_size);
    for (uint64_t i = 0; i < n;) {
        loom_shm_slot_t *slot = loom_shm_ring_rx_peek(&rx);
        if (slot == NULL) {
            sched_yield();
            if (time(NULL) > deadline) {
                return bad + (n - i);   /* producer stalled: count the rest */
            }
            continue;
        }
        if (slot->type != (uint16_t)i || slot->len != frame_len(i, max_len)) {
            ++bad;
        } else if (verify) {
            for (uint32_t k = 0; k < slot->len; ++k) {
                bad += slot->data[k] != frame_byte(i, k);
            }
        }
        sum = loom_hash_fnv1a64(sum, slot->data, slot->len);
        *slots_p += loom_shm_ring_rx_span(slot);
        loom_shm_ring_rx_release(&rx);
        ++i;
    }
    *sum_p = sum;
    return bad;
}

/* Run producer in a child and consumer here; check both ends agree. */
static void run_pair(uint32_t nslots, uint32_t slot_size, uint64_t n, uint32_t max_len,
                     int verify, int expect_full)
{
    size_t bytes = loom_shm_ring_bytes(nslots, slot_size);
    void *mem = shared_map(bytes + sizeof(ring_report_t));
    ring_report_t *rep;
    uint64_t sum = 0, bad, slots = 0;
    int wstatus = 0;
    pid_t pid;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    rep = (ring_report_t *)((uint8_t *)mem + bytes);
    loom_shm_ring_format(mem, nslots, slot_size);
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        producer(mem, nslots, slot_size, n, max_len, rep);
        _exit(0);
    }
    if (expect_full) {
        /* let the producer fill the ring before we start: its next send
         * must then be refused at least once */
        loom_shm_slot_t *last = (loom_shm_slot_t *)((uint8_t *)mem + sizeof(loom_shm_ring_t) +
                                                    (size_t)(nslots - 1) *
                                                    loom_shm_ring_stride(slot_size));
        time_t deadline = time(NULL) + 20;
        while (atomic_load(&last->seq) != nslots && time(NULL) <= deadline) {
            sched_yield();
        }
        usleep(1000);
    }
    bad = consumer(mem, nslots, slot_size, n, max_len, verify, &sum, &slots);
    CU_ASSERT_EQUAL(waitpid(pid, &wstatus, 0), pid);
    CU_ASSERT(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(atomic_load(&rep->done), 1);
    CU_ASSERT_EQUAL(atomic_load(&rep->checksum), sum);
    if (expect_full) {
        CU_ASSERT(atomic_load(&rep->full_events) > 0);
    }
    /* the ring is empty again: tail caught up with every frame's slots */
    CU_ASSERT_EQUAL(atomic_load(&((loom_shm_ring_t *)mem)->tail), slots);
    CU_ASSERT(slots >= n);
    CU_ASSERT(max_len + LOOM_SHM_SLOT_HDR > loom_shm_ring_stride(slot_size) ? slots > n
                                                                            : slots == n);
    munmap(mem, bytes + sizeof(ring_report_t));
}

static void test_geometry(void)
{
    CU_ASSERT(loom_shm_ring_geometry_ok(64, 8192));
    CU_ASSERT(loom_shm_ring_geometry_ok(2, LOOM_SHM_SLOT_MIN));
    CU_ASSERT(!loom_shm_ring_geometry_ok(63, 8192));      /* not a power of two */
    CU_ASSERT(!loom_shm_ring_geometry_ok(1, 8192));
    CU_ASSERT(!loom_shm_ring_geometry_ok(64, 8200));      /* not cache-line aligned */
    CU_ASSERT(!loom_shm_ring_geometry_ok(64, 128));       /* too small */
    CU_ASSERT(!loom_shm_ring_geometry_ok(64, (uint64_t)LOOM_SHM_SLOT_MAX * 2));
    CU_ASSERT_EQUAL(loom_shm_ring_max_frame(8192), 8192 - 16);
    CU_ASSERT_EQUAL(sizeof(loom_shm_ring_t), LOOM_CACHE_LINE);
    /* a slot header plus a 24-byte p2p header and 8 bytes fit one line */
    CU_ASSERT(LOOM_SHM_SLOT_HDR + 24 + 8 <= LOOM_CACHE_LINE);
    /* slots are an odd number of lines apart (consecutive slot headers in
     * different cache sets), never closer than the slot size */
    for (uint32_t sz = LOOM_SHM_SLOT_MIN; sz <= 65536; sz += LOOM_CACHE_LINE) {
        size_t st = loom_shm_ring_stride(sz);
        CU_ASSERT(st >= sz && st <= sz + LOOM_CACHE_LINE && st % LOOM_CACHE_LINE == 0);
        CU_ASSERT((st / LOOM_CACHE_LINE) % 2 == 1);
    }
    CU_ASSERT_EQUAL(loom_shm_ring_stride(8192), 8192 + 64);
    /* the spill area: LOOM_SHM_RING_SPAN_MAX - 1 slots after the last */
    CU_ASSERT_EQUAL(loom_shm_ring_bytes(64, 8192),
                    64 + (64 + LOOM_SHM_RING_SPAN_MAX - 1) * (size_t)(8192 + 64));
}

/* How many slots a frame spans, and what a run of slots carries. */
static void test_span_arith(void)
{
    CU_ASSERT_EQUAL(loom_shm_ring_span_of(176, 192), 1);   /* one three-line cell, full */
    CU_ASSERT_EQUAL(loom_shm_ring_span_of(177, 192), 2);
    CU_ASSERT_EQUAL(loom_shm_ring_span_of(24 + 256, 192), 2);   /* a 256-byte message */
    CU_ASSERT_EQUAL(loom_shm_ring_span_of(368, 192), 2);
    CU_ASSERT_EQUAL(loom_shm_ring_span_of(369, 192), 3);
    CU_ASSERT_EQUAL(loom_shm_ring_span_of(560, 192), 3);
    CU_ASSERT_EQUAL(loom_shm_ring_span_of(561, 192), 4);
    CU_ASSERT_EQUAL(loom_shm_ring_span_of(0, 320), 1);
    CU_ASSERT_EQUAL(loom_shm_ring_span_of(305, 320), 2);
    for (uint32_t n = 1; n <= LOOM_SHM_RING_SPAN_MAX; ++n) {
        uint32_t cap = loom_shm_ring_span_bytes(n, 192);
        CU_ASSERT_EQUAL(cap, n * 192 - 16);
        CU_ASSERT_EQUAL(loom_shm_ring_span_of(cap, 192), n);
        CU_ASSERT_EQUAL(loom_shm_ring_span_of(cap + 1, 192), n + 1);
    }
}

/*
 * A spanning frame's bytes overwrite the seq words of the slots it covers.
 * Frames of two slots carry, where the covered slot's seq word lies, the
 * number the NEXT lap's frame at that slot will publish; once the ring is
 * read, frames of one slot follow. The consumer must see each covered slot
 * as empty until the producer really writes it (without the release's
 * zeroing, peek took the stale bytes for a frame).
 */
static void test_span_stale_seq(void)
{
    const uint32_t nslots = 8, cell = 192, len = 300;
    size_t bytes = loom_shm_ring_bytes(nslots, cell);
    void *mem = shared_map(bytes);
    loom_shm_ring_tx_t tx;
    loom_shm_ring_rx_t rx;
    uint8_t buf[512];

    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    loom_shm_ring_format(mem, nslots, cell);
    loom_shm_ring_tx_init(&tx, mem, nslots, cell);
    loom_shm_ring_rx_init(&rx, mem, nslots, cell);
    for (uint64_t f = 0; f < nslots; f += 2) {
        uint64_t lure = f + 1 + nslots + 1;   /* seq of frame f+1 of the next lap */
        memset(buf, (int)f, sizeof(buf));
        memcpy(buf + cell - LOOM_SHM_SLOT_HDR, &lure, sizeof(lure));
        CU_ASSERT_FATAL(loom_shm_ring_tx_send2(&tx, 7, buf, 10, buf + 10, len - 10));
    }
    CU_ASSERT_EQUAL(tx.head, nslots);
    for (uint64_t f = 0; f < nslots; f += 2) {
        loom_shm_slot_t *slot = loom_shm_ring_rx_peek(&rx);
        CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
        CU_ASSERT_EQUAL(slot->len, len);
        CU_ASSERT_EQUAL(loom_shm_ring_rx_span(slot), 2);
        CU_ASSERT_EQUAL(slot->data[0], (uint8_t)f);
        CU_ASSERT_EQUAL(slot->data[len - 1], (uint8_t)f);
        loom_shm_ring_rx_release(&rx);
    }
    CU_ASSERT_EQUAL(rx.pos, nslots);
    CU_ASSERT_EQUAL(atomic_load(&((loom_shm_ring_t *)mem)->tail), nslots);
    /* next lap, one frame of one slot at slot 0; slot 1 was covered */
    CU_ASSERT_FATAL(loom_shm_ring_tx_send2(&tx, 9, buf, 4, buf, 4));
    CU_ASSERT_PTR_NOT_NULL_FATAL(loom_shm_ring_rx_peek(&rx));
    loom_shm_ring_rx_release(&rx);
    CU_ASSERT_PTR_NULL(loom_shm_ring_rx_peek(&rx));
    CU_ASSERT(!loom_shm_ring_rx_ready(&rx));
    munmap(mem, bytes);
}

/* A span starting at the last slot runs into the spill area, in place, and
 * the next frame goes where the span's count says; a span needs that many
 * free slots. */
static void test_span_spill(void)
{
    const uint32_t nslots = 4, cell = 192;
    uint32_t len = loom_shm_ring_span_bytes(LOOM_SHM_RING_SPAN_MAX, cell);
    size_t bytes = loom_shm_ring_bytes(nslots, cell);
    uint8_t *mem = shared_map(bytes + 64);
    loom_shm_ring_tx_t tx;
    loom_shm_ring_rx_t rx;
    uint8_t buf[1024];
    loom_shm_slot_t *slot;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    memset(mem + bytes, 0xa5, 64);   /* guard after the spill area */
    loom_shm_ring_format(mem, nslots, cell);
    loom_shm_ring_tx_init(&tx, mem, nslots, cell);
    loom_shm_ring_rx_init(&rx, mem, nslots, cell);
    for (uint32_t k = 0; k < sizeof(buf); ++k) {
        buf[k] = (uint8_t)(k * 13 + 1);
    }
    for (uint32_t i = 0; i + 1 < nslots; ++i) {   /* move to the last slot */
        CU_ASSERT_FATAL(loom_shm_ring_tx_send2(&tx, 1, buf, 1, buf, 1));
        CU_ASSERT_PTR_NOT_NULL_FATAL(loom_shm_ring_rx_peek(&rx));
        loom_shm_ring_rx_release(&rx);
    }
    /* 3 slots free of 4 after one more small frame: a span of 3 fits now,
     * not after a second small frame */
    CU_ASSERT_FATAL(loom_shm_ring_tx_send2(&tx, 2, buf, 100, buf + 100, len - 100));
    CU_ASSERT_EQUAL(tx.head, nslots - 1 + LOOM_SHM_RING_SPAN_MAX);
    CU_ASSERT(!loom_shm_ring_tx_send2(&tx, 3, buf, 0, buf, 2 * cell));   /* 2 slots: 1 free */
    slot = loom_shm_ring_rx_peek(&rx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
    CU_ASSERT_EQUAL(slot->len, len);
    CU_ASSERT_EQUAL(memcmp(slot->data, buf, 100), 0);
    CU_ASSERT_EQUAL(memcmp(slot->data + 100, buf + 100, len - 100), 0);
    loom_shm_ring_rx_release(&rx);
    CU_ASSERT_EQUAL(rx.pos, nslots - 1 + LOOM_SHM_RING_SPAN_MAX);
    CU_ASSERT_PTR_NULL(loom_shm_ring_rx_peek(&rx));
    CU_ASSERT_FATAL(loom_shm_ring_tx_send2(&tx, 4, buf, 0, buf, 2 * cell));
    slot = loom_shm_ring_rx_peek(&rx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
    CU_ASSERT_EQUAL(slot->type, 4);
    CU_ASSERT_EQUAL((uint8_t *)slot, mem + 64 + (size_t)((nslots - 1 + 3) & (nslots - 1)) * cell);
    loom_shm_ring_rx_release(&rx);
    for (int k = 0; k < 64; ++k) {
        CU_ASSERT_EQUAL(mem[bytes + k], 0xa5);
    }
    munmap(mem, bytes + 64);
}

/* One process: exactly nslots frames fit; one release makes room for one. */
static void test_full_ring(void)
{
    const uint32_t nslots = 4, slot_size = 256;
    size_t bytes = loom_shm_ring_bytes(nslots, slot_size);
    void *mem = shared_map(bytes);
    loom_shm_ring_tx_t tx;
    loom_shm_ring_rx_t rx;
    loom_shm_slot_t *slot;
    uint64_t v;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    loom_shm_ring_format(mem, nslots, slot_size);
    loom_shm_ring_tx_init(&tx, mem, nslots, slot_size);
    loom_shm_ring_rx_init(&rx, mem, nslots, slot_size);
    CU_ASSERT_PTR_NULL(loom_shm_ring_rx_peek(&rx));
    for (v = 0; v < nslots; ++v) {
        CU_ASSERT(loom_shm_ring_tx_send2(&tx, 7, &v, sizeof(v), NULL, 0));
    }
    CU_ASSERT(!loom_shm_ring_tx_send2(&tx, 7, &v, sizeof(v), NULL, 0));
    CU_ASSERT_PTR_NULL(loom_shm_ring_tx_reserve(&tx));
    CU_ASSERT_EQUAL(tx.head, nslots);   /* a refused send wrote nothing */

    slot = loom_shm_ring_rx_peek(&rx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
    CU_ASSERT_EQUAL(slot->len, sizeof(v));
    CU_ASSERT_EQUAL(*(uint64_t *)slot->data, 0);
    loom_shm_ring_rx_release(&rx);
    CU_ASSERT(loom_shm_ring_tx_send2(&tx, 7, &v, sizeof(v), NULL, 0));   /* v == nslots */
    CU_ASSERT(!loom_shm_ring_tx_send2(&tx, 7, &v, sizeof(v), NULL, 0));

    for (uint64_t want = 1; want <= nslots; ++want) {
        slot = loom_shm_ring_rx_peek(&rx);
        CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
        CU_ASSERT_EQUAL(*(uint64_t *)slot->data, want);
        loom_shm_ring_rx_release(&rx);
    }
    /* after a full lap the old seq values must not look new */
    CU_ASSERT_PTR_NULL(loom_shm_ring_rx_peek(&rx));
    munmap(mem, bytes);
}

static long minor_faults(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/*
 * How many of the ring's pages that hold a slot's first line are in this
 * process's page tables (/proc/self/pagemap "present" bit, readable without
 * privileges); -1 if pagemap cannot be read.
 */
static int slot_pages_present(const void *mem, uint32_t nslots, uint32_t slot_size)
{
    const uint8_t *slots = (const uint8_t *)mem + sizeof(loom_shm_ring_t);
    size_t stride = loom_shm_ring_stride(slot_size);
    int fd = open("/proc/self/pagemap", O_RDONLY), n = 0;

    for (uint32_t i = 0; fd >= 0 && i < nslots; ++i) {
        uint64_t entry = 0;
        off_t at = (off_t)((uintptr_t)(slots + (size_t)i * stride) / 4096 * sizeof(entry));

        if (pread(fd, &entry, sizeof(entry), at) != (ssize_t)sizeof(entry)) {
            close(fd);
            return -1;
        }
        n += (int)(entry >> 63);
    }
    if (fd >= 0) {
        close(fd);
    }
    return fd >= 0 ? n : -1;
}

/* Send a lap of 8-byte frames through a ring that another process formatted,
 * mapped fresh here (no page tables yet); @return the minor faults taken.
 * *present_p: slot_pages_present() just before the lap. */
static long lap_faults(int prefault, int pending, int *present_p)
{
    const uint32_t nslots = 64, slot_size = 8192;
    size_t bytes = loom_shm_ring_bytes(nslots, slot_size);
    int fd = memfd_create("loom-test-ring", 0);
    loom_shm_ring_tx_t tx;
    loom_shm_ring_rx_t rx;
    void *mem;
    long before;
    pid_t pid;

    CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, (off_t)bytes) == 0);
    pid = fork();
    if (pid == 0) {   /* the segment creator: formats, then leaves */
        void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        loom_shm_ring_tx_t ctx;
        uint64_t v = 42;
        if (m == MAP_FAILED) {
            _exit(1);
        }
        loom_shm_ring_format(m, nslots, slot_size);
        loom_shm_ring_tx_init(&ctx, m, nslots, slot_size);
        for (int i = 0; i < pending; ++i) {   /* frames sent before we attach */
            loom_shm_ring_tx_send2(&ctx, 3, &v, sizeof(v), NULL, 0);
        }
        _exit(0);
    }
    CU_ASSERT_FATAL(pid > 0);
    waitpid(pid, NULL, 0);
    mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CU_ASSERT_FATAL(mem != MAP_FAILED);
    close(fd);
    if (prefault) {
        loom_shm_ring_prefault(mem, nslots, slot_size);
    }
    *present_p = slot_pages_present(mem, nslots, slot_size);
    loom_shm_ring_rx_init(&rx, mem, nslots, slot_size);
    for (int i = 0; i < pending; ++i) {   /* prefault left them intact */
        loom_shm_slot_t *slot = loom_shm_ring_rx_peek(&rx);
        CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
        CU_ASSERT_EQUAL(slot->type, 3);
        CU_ASSERT_EQUAL(*(uint64_t *)slot->data, 42);
        loom_shm_ring_rx_release(&rx);
    }
    CU_ASSERT_PTR_NULL(loom_shm_ring_rx_peek(&rx));
    loom_shm_ring_tx_init(&tx, mem, nslots, slot_size);
    before = minor_faults();
    for (uint64_t v = 0; v < nslots; ++v) {
        CU_ASSERT(loom_shm_ring_tx_send2(&tx, 7, &v, sizeof(v), NULL, 0));
        CU_ASSERT_PTR_NOT_NULL(loom_shm_ring_rx_peek(&rx));
        loom_shm_ring_rx_release(&rx);
    }
    before = minor_faults() - before;
    munmap(mem, bytes);
    return before;
}

/*
 * After prefault every slot's first line is mapped here, so a lap of small
 * frames maps no page; on a fresh mapping none is, and each slot (one page
 * apart) faults once: both checks can fail. The mapping is checked in the
 * page tables (pagemap) rather than by counting faults during the lap: the
 * host here reclaims cold pages (a DAMON pageout scheme), so an unrelated
 * code page of the test may fault in the lap now and then.
 */
static void test_prefault(void)
{
    int cold_present, warm_present;
    long cold = lap_faults(0, 0, &cold_present), warm = lap_faults(1, 5, &warm_present);

    CU_ASSERT(cold >= 32);
    CU_ASSERT(warm < cold);
    CU_ASSERT_EQUAL(cold_present, 0);
    CU_ASSERT_EQUAL(warm_present, 64);
}

static void test_wraparound_sizes(void)
{
    /* tiny ring: thousands of laps, every size from 0 to a full slot */
    run_pair(8, 256, 200000, loom_shm_ring_max_frame(256), 1, 0);
}

static void test_backpressure_across_processes(void)
{
    run_pair(4, 512, 50000, loom_shm_ring_max_frame(512), 1, 1);
}

static void test_large_slots(void)
{
    run_pair(64, 8192, 20000, loom_shm_ring_max_frame(8192), 1, 0);
}

static void test_million_checksummed(void)
{
    run_pair(64, 512, 1000000, 200, 0, 0);
}

static void test_span_wraparound(void)
{
    /* the transport's three-line cells: every size up to a span of three,
     * spans running into the spill area lap after lap */
    run_pair(8, 192, 200000, loom_shm_ring_span_bytes(LOOM_SHM_RING_SPAN_MAX, 192), 1, 0);
    run_pair(4, 192, 50000, loom_shm_ring_span_bytes(LOOM_SHM_RING_SPAN_MAX, 192), 1, 0);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "geometry", test_geometry },
        { "full ring refuses, release makes room", test_full_ring },
        { "wraparound with every size", test_wraparound_sizes },
        { "prefault: no page faults on the first lap", test_prefault },
        { "back-pressure across processes", test_backpressure_across_processes },
        { "8k slots, variable sizes", test_large_slots },
        { "1M frames checksummed", test_million_checksummed },
        { "span arithmetic", test_span_arith },
        { "spans: covered slots never look published", test_span_stale_seq },
        { "spans: spill area, free slots", test_span_spill },
        { "spans across processes, every size", test_span_wraparound },
        { NULL, NULL },
    };
    return loom_test_run_suite("shm ring", cases, NULL, NULL);
}
