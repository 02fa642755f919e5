/*
 * test_shm_fifo.c: the shm transport's many-producer receive FIFO
 * (transport/shm/shm_fifo.h) on its own: zero-filled memory is an empty
 * FIFO, a full one refuses, frames of one producer arrive in order with
 * their bytes intact while several producers race for cells. The race
 * runs in threads of one process, so ThreadSanitizer checks the memory
 * ordering of claim, publish and release (the transport runs the same code
 * across processes). A claim left unpublished for a while (a stalled
 * producer) is waited for and taken in order once published.
 */
#include "cunit_main.h"

#include "shm/shm_fifo.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CELL      192u
#define NPROD     4
#define PER_PROD  20000u

static uint8_t frame_byte(uint32_t src, uint64_t seq, uint32_t k)
{
    return (uint8_t)(src * 37u + seq * 131u + k * 7u);
}

static uint32_t frame_len(uint64_t seq)
{
    return (uint32_t)(8 + seq % (CELL - LOOM_SHM_SLOT_HDR - 8 + 1));
}

static void *fifo_alloc(uint32_t ncells)
{
    void *mem = NULL;
    if (posix_memalign(&mem, LOOM_CACHE_LINE, loom_shm_fifo_bytes(ncells, CELL)) != 0) {
        return NULL;
    }
    memset(mem, 0, loom_shm_fifo_bytes(ncells, CELL));   /* as ftruncate leaves it */
    return mem;
}

/* Zero-filled memory is empty; a full FIFO refuses; frees come back in order. */
static void test_fifo_basic(void)
{
    const uint32_t n = 8;
    void *mem = fifo_alloc(n);
    loom_shm_fifo_tx_t tx;
    loom_shm_fifo_rx_t rx;
    loom_shm_slot_t *cell;
    uint64_t pos;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    loom_shm_fifo_tx_init(&tx, mem, n, CELL);
    loom_shm_fifo_rx_init(&rx, mem, n, CELL);
    CU_ASSERT_PTR_NULL(loom_shm_fifo_rx_peek(&rx));
    CU_ASSERT_FALSE(loom_shm_fifo_rx_ready(&rx));
    for (uint64_t i = 0; i < n; ++i) {
        cell = loom_shm_fifo_tx_claim(&tx, 3, &pos);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
        CU_ASSERT_EQUAL(pos, i);
        memcpy(cell->data, &i, sizeof(i));
        loom_shm_fifo_tx_publish(&tx, cell, pos, sizeof(i), 1);
    }
    CU_ASSERT_PTR_NULL(loom_shm_fifo_tx_claim(&tx, 3, &pos));   /* full */
    for (uint64_t lap = 0; lap < 3; ++lap) {
        for (uint64_t i = 0; i < n; ++i) {
            uint64_t v = ~0ull, want = lap * n + i;
            CU_ASSERT_TRUE(loom_shm_fifo_rx_ready(&rx));
            cell = loom_shm_fifo_rx_peek(&rx);
            CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
            memcpy(&v, cell->data, sizeof(v));
            CU_ASSERT_EQUAL(v, want);
            CU_ASSERT_EQUAL(cell->len, sizeof(v));
            CU_ASSERT_EQUAL(cell->type, 1);
            CU_ASSERT_EQUAL(loom_shm_fifo_src(cell), 3);
            loom_shm_fifo_rx_release(&rx);
            /* the freed cell takes the next lap's frame at once */
            cell = loom_shm_fifo_tx_claim(&tx, 3, &pos);
            CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
            want += n;
            CU_ASSERT_EQUAL(pos, want);
            memcpy(cell->data, &want, sizeof(want));
            loom_shm_fifo_tx_publish(&tx, cell, pos, sizeof(want), 1);
            CU_ASSERT_PTR_NULL(loom_shm_fifo_tx_claim(&tx, 3, &pos));
        }
    }
    free(mem);
}

/*
 * A producer claims a cell and stalls (no publish) while another publishes
 * behind it: the consumer sees a hole naming the stalled claimer and waits;
 * the late publish is taken first, then the rest, and the FIFO goes on for
 * laps. A freed cell names nobody until its next claim.
 */
static void test_fifo_stalled_claim(void)
{
    const uint32_t n = 4;
    void *mem = fifo_alloc(n);
    loom_shm_fifo_tx_t tx;
    loom_shm_fifo_rx_t rx;
    loom_shm_slot_t *stalled, *cell;
    uint64_t spos = 0, pos = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    loom_shm_fifo_tx_init(&tx, mem, n, CELL);
    loom_shm_fifo_rx_init(&rx, mem, n, CELL);
    CU_ASSERT_EQUAL(loom_shm_fifo_rx_hole(&rx, tx.ctl->head), -1);   /* empty: no hole */
    stalled = loom_shm_fifo_tx_claim(&tx, 2, &spos);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stalled);
    cell = loom_shm_fifo_tx_claim(&tx, 1, &pos);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
    loom_shm_fifo_tx_publish(&tx, cell, pos, 0, 7);
    for (int i = 0; i < 5; ++i) {   /* the consumer polls; the claimer is alive: wait */
        CU_ASSERT_PTR_NULL(loom_shm_fifo_rx_peek(&rx));
        CU_ASSERT_EQUAL(loom_shm_fifo_rx_hole(&rx, tx.ctl->head), 2 + 1);
    }
    loom_shm_fifo_tx_publish(&tx, stalled, spos, 0, 6);   /* late */
    CU_ASSERT_EQUAL(loom_shm_fifo_rx_hole(&rx, tx.ctl->head), -1);
    cell = loom_shm_fifo_rx_peek(&rx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
    CU_ASSERT(cell->type == 6 && loom_shm_fifo_src(cell) == 2);
    loom_shm_fifo_rx_release(&rx);
    cell = loom_shm_fifo_rx_peek(&rx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
    CU_ASSERT(cell->type == 7 && loom_shm_fifo_src(cell) == 1);
    loom_shm_fifo_rx_release(&rx);
    CU_ASSERT_EQUAL(stalled->rsvd, 0);   /* freed: no claimer */
    for (uint64_t i = 0; i < 4 * n; ++i) {   /* laps go on, in order */
        cell = loom_shm_fifo_tx_claim(&tx, 3, &pos);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
        CU_ASSERT_EQUAL(pos, i + 2);
        loom_shm_fifo_tx_publish(&tx, cell, pos, 0, (uint16_t)i);
        cell = loom_shm_fifo_rx_peek(&rx);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
        CU_ASSERT(cell->type == (uint16_t)i && loom_shm_fifo_src(cell) == 3);
        loom_shm_fifo_rx_release(&rx);
    }
    free(mem);
}

typedef struct race {
    void            *mem;
    uint32_t         ncells;
    uint32_t         src;
    _Atomic uint64_t full;   /* claims refused (back-pressure seen) */
} race_t;

static void *producer(void *arg)
{
    race_t *r = arg;
    loom_shm_fifo_tx_t tx;

    loom_shm_fifo_tx_init(&tx, r->mem, r->ncells, CELL);
    for (uint64_t seq = 0; seq < PER_PROD; ++seq) {
        uint32_t len = frame_len(seq);
        uint64_t pos;
        loom_shm_slot_t *cell;

        while ((cell = loom_shm_fifo_tx_claim(&tx, (uint16_t)r->src, &pos)) == NULL) {
            atomic_fetch_add_explicit(&r->full, 1, memory_order_relaxed);
            sched_yield();
        }
        memcpy(cell->data, &seq, sizeof(seq));
        for (uint32_t k = sizeof(seq); k < len; ++k) {
            cell->data[k] = frame_byte(r->src, seq, k);
        }
        loom_shm_fifo_tx_publish(&tx, cell, pos, len, 1);
    }
    return NULL;
}

/* @return frames that were wrong (order, length, bytes, source). */
static uint64_t consume(void *mem, uint32_t ncells, uint64_t total)
{
    loom_shm_fifo_rx_t rx;
    uint64_t next[NPROD] = { 0 }, bad = 0;

    loom_shm_fifo_rx_init(&rx, mem, ncells, CELL);
    for (uint64_t got = 0; got < total;) {
        loom_shm_slot_t *cell = loom_shm_fifo_rx_peek(&rx);
        uint64_t seq;

        if (cell == NULL) {
            sched_yield();
            continue;
        }
        memcpy(&seq, cell->data, sizeof(seq));
        uint32_t src = loom_shm_fifo_src(cell);

        if (src >= NPROD || seq != next[src] || cell->len != frame_len(seq)) {
            ++bad;
        } else {
            for (uint32_t k = sizeof(seq); k < cell->len; ++k) {
                if (cell->data[k] != frame_byte(src, seq, k)) {
                    ++bad;
                    break;
                }
            }
            ++next[src];
        }
        loom_shm_fifo_rx_release(&rx);
        ++got;
    }
    return bad;
}

static void race(uint32_t ncells)
{
    void *mem = fifo_alloc(ncells);
    race_t r[NPROD];
    pthread_t th[NPROD];
    uint64_t full = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    for (uint32_t i = 0; i < NPROD; ++i) {
        r[i].mem = mem;
        r[i].ncells = ncells;
        r[i].src = i;
        atomic_init(&r[i].full, 0);
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, producer, &r[i]), 0);
    }
    CU_ASSERT_EQUAL(consume(mem, ncells, (uint64_t)NPROD * PER_PROD), 0);
    for (uint32_t i = 0; i < NPROD; ++i) {
        pthread_join(th[i], NULL);
        full += atomic_load(&r[i].full);
    }
    if (ncells == 2) {
        CU_ASSERT(full > 0);   /* a 2-cell FIFO under 4 producers is full often */
    }
    free(mem);
}

static void test_fifo_race_small(void)
{
    race(2);
}

static void test_fifo_race(void)
{
    race(128);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "zero-filled is empty, full refuses, laps", test_fifo_basic },
        { "stalled claim: waited for, published late, laps go on", test_fifo_stalled_claim },
        { "4 producers, 2 cells: order and bytes per producer", test_fifo_race_small },
        { "4 producers, 128 cells: order and bytes per producer", test_fifo_race },
        { NULL, NULL },
    };
    return loom_test_run_suite("shm receive FIFO", cases, NULL, NULL);
}
