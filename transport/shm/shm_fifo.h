/*
 * shm_fifo.h: the many-producer/single-consumer receive FIFO of the shm
 * transport, one per local rank, in that rank's region of the segment.
 *
 * Cells are loom_shm_slot_t (shm_ring.h) of a fixed size, a power of two
 * of them. A producer claims position p with one compare-and-swap on the
 * shared head (its own cache line), writes the cell p & mask, and
 * publishes it; the consumer alone reads cells in position order. Cell
 * state lives in the seq word, counted in laps (lap = p / ncells):
 *
 *   seq == 2 * lap        free for the producer of position p
 *   seq == 2 * lap + 1    published frame p, for the consumer
 *
 * and the consumer frees a cell by storing 2 * (lap + 1). Zero-filled
 * memory is therefore an empty FIFO (no formatting: producers may claim
 * cells before the consumer has mapped the segment), and, as in the ring,
 * positions are 64-bit and never wrap, so a stale word never looks new.
 *
 * Order: positions are claimed in increasing order by each producer, and
 * consumed in position order, so frames of one producer arrive in the
 * order sent. A claimed cell is always published (the caller reserves
 * every other resource first), so the consumer never waits on a claim
 * that will not complete, except a producer killed between claim and
 * publish.
 *
 * Claimer identity: right after its claim CAS the producer stores its
 * local index + 1 in the cell's rsvd word (relaxed; the header line it
 * writes anyway, so the fast path stays one CAS and one release store);
 * the consumer zeroes that word when it frees the cell, so a non-zero
 * value in an unpublished cell names THIS lap's claimer, never a stale
 * one. A hole (head past pos, cell unpublished) may be skipped only when
 * that claimer's process is gone (shm_iface.c, kill(pid, 0) == ESRCH):
 * a dead process cannot publish late, so skipping needs no CAS and no
 * producer ever writes a cell the consumer has handed to the next lap.
 * Never on a timer: a live claimer stalled for any time (SIGSTOP,
 * debugger, swap) publishes late and its frame is delivered in order.
 * A claimer killed in the two instructions between its CAS and the
 * identity store leaves an unidentified hole, which is never skipped
 * (the FIFO stays blocked and a warning says so; see shm_int.h).
 *
 * A full FIFO (the cell at the head still holds the previous lap's frame)
 * makes the claim fail: back-pressure, never a wait. No function here
 * allocates, locks or makes a system call.
 */
#ifndef LOOM_SHM_FIFO_H
#define LOOM_SHM_FIFO_H

#include "shm_ring.h"

/** Control line of a FIFO: the next position to claim, CAS'd by producers. */
typedef struct loom_shm_fifo_ctl {
    _Atomic uint64_t head;
    uint8_t          pad[LOOM_CACHE_LINE - sizeof(uint64_t)];
} LOOM_ALIGNED(LOOM_CACHE_LINE) loom_shm_fifo_ctl_t;

/** A producer's view of one FIFO (private; one per destination). */
typedef struct loom_shm_fifo_tx {
    loom_shm_fifo_ctl_t *ctl;
    uint8_t             *cells;
    uint32_t             mask;       /* ncells - 1 */
    uint32_t             shift;      /* log2(ncells) */
    uint32_t             cell_size;
} loom_shm_fifo_tx_t;

/** The consumer's side (private to the FIFO's owner). */
typedef struct loom_shm_fifo_rx {
    loom_shm_slot_t *cur;        /* cell of position pos */
    uint64_t         want;       /* seq of a published frame at pos: 2 * lap + 1 */
    uint64_t         pos;
    uint8_t         *cells;
    uint32_t         mask;
    uint32_t         shift;
    uint32_t         cell_size;
} loom_shm_fifo_rx_t;

/** Bytes of a FIFO of @p ncells cells of @p cell_size bytes (control line included). */
static inline size_t loom_shm_fifo_bytes(uint32_t ncells, uint32_t cell_size)
{
    return sizeof(loom_shm_fifo_ctl_t) + (size_t)ncells * cell_size;
}

static inline loom_shm_slot_t *loom_shm_fifo_cell(uint8_t *cells, uint64_t pos, uint32_t mask,
                                                  uint32_t cell_size)
{
    return (loom_shm_slot_t *)(cells + (size_t)(pos & mask) * cell_size);
}

/** Attach a producer to the FIFO at @p mem (zero-filled or in use). */
static inline void loom_shm_fifo_tx_init(loom_shm_fifo_tx_t *tx, void *mem, uint32_t ncells,
                                         uint32_t cell_size)
{
    tx->ctl       = mem;
    tx->cells     = (uint8_t *)mem + sizeof(loom_shm_fifo_ctl_t);
    tx->mask      = ncells - 1;
    tx->shift     = (uint32_t)__builtin_ctz(ncells);
    tx->cell_size = cell_size;
}

/** Attach the consumer (the FIFO's owner, once) to the FIFO at @p mem. */
static inline void loom_shm_fifo_rx_init(loom_shm_fifo_rx_t *rx, void *mem, uint32_t ncells,
                                         uint32_t cell_size)
{
    rx->cells     = (uint8_t *)mem + sizeof(loom_shm_fifo_ctl_t);
    rx->mask      = ncells - 1;
    rx->shift     = (uint32_t)__builtin_ctz(ncells);
    rx->cell_size = cell_size;
    rx->pos       = 0;
    rx->want      = 1;
    rx->cur       = loom_shm_fifo_cell(rx->cells, 0, rx->mask, cell_size);
}

/** The source (local index) of a published cell, or UINT32_MAX if none was stored. */
static inline uint32_t loom_shm_fifo_src(const loom_shm_slot_t *cell)
{
    return (uint32_t)cell->rsvd - 1u;
}

/**
 * Claim the next cell for producer @p src (its local index, stored in the
 * cell as the claimer). @return the cell (the caller MUST fill and publish
 * it with loom_shm_fifo_tx_publish, passing *@p pos_p), or NULL when the
 * FIFO is full.
 */
static inline loom_shm_slot_t *loom_shm_fifo_tx_claim(loom_shm_fifo_tx_t *tx, uint16_t src,
                                                      uint64_t *pos_p)
{
    uint64_t pos = atomic_load_explicit(&tx->ctl->head, memory_order_relaxed);

    for (;;) {
        loom_shm_slot_t *cell = loom_shm_fifo_cell(tx->cells, pos, tx->mask, tx->cell_size);
        uint64_t free_seq = (pos >> tx->shift) * 2;
        /* acquire: the consumer's reads of the frame it freed happened before */
        uint64_t seq = atomic_load_explicit(&cell->seq, memory_order_acquire);

        if (seq == free_seq) {
            if (atomic_compare_exchange_weak_explicit(&tx->ctl->head, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                /* who claimed it, for a consumer facing a hole (relaxed: the
                 * consumer reads it racily, and after the publish's release) */
                __atomic_store_n(&cell->rsvd, (uint16_t)(src + 1u), __ATOMIC_RELAXED);
                *pos_p = pos;
                return cell;
            }
            /* another producer took it: pos now holds the new head */
        } else if ((int64_t)(seq - free_seq) < 0) {
            return NULL;   /* the previous lap's frame is still there: full */
        } else {
            pos = atomic_load_explicit(&tx->ctl->head, memory_order_relaxed);
        }
    }
}

/** Publish the cell claimed at @p pos, holding @p len bytes of frame @p type. */
static inline void loom_shm_fifo_tx_publish(loom_shm_fifo_tx_t *tx, loom_shm_slot_t *cell,
                                            uint64_t pos, uint32_t len, uint16_t type)
{
    cell->len  = len;
    cell->type = type;
    /* release: length, type, source and data are visible before the seq */
    atomic_store_explicit(&cell->seq, (pos >> tx->shift) * 2 + 1, memory_order_release);
}

/** 1 if the next frame is published (the idle poll: one relaxed load). */
static inline int loom_shm_fifo_rx_ready(const loom_shm_fifo_rx_t *rx)
{
    return atomic_load_explicit(&rx->cur->seq, memory_order_relaxed) == rx->want;
}

/** @return the next published frame, or NULL. Touches one line. */
static inline loom_shm_slot_t *loom_shm_fifo_rx_peek(loom_shm_fifo_rx_t *rx)
{
    /* acquire: pairs with the producer's release of seq */
    if (atomic_load_explicit(&rx->cur->seq, memory_order_acquire) != rx->want) {
        return NULL;
    }
    return rx->cur;
}

/** Free the frame returned by the last peek for the next lap's producer. */
static inline void loom_shm_fifo_rx_release(loom_shm_fifo_rx_t *rx)
{
    /* no claimer yet for the next lap (see Claimer identity above) */
    __atomic_store_n(&rx->cur->rsvd, (uint16_t)0, __ATOMIC_RELAXED);
    /* release: our reads of the cell are done before a producer reuses it */
    atomic_store_explicit(&rx->cur->seq, rx->want + 1, memory_order_release);
    ++rx->pos;
    rx->want = (rx->pos >> rx->shift) * 2 + 1;
    rx->cur  = loom_shm_fifo_cell(rx->cells, rx->pos, rx->mask, rx->cell_size);
}

/**
 * The claimer of a hole at the consumer's position: @p head is the FIFO's
 * head. @return -1 if there is no hole (the next frame is published, or
 * nobody claimed it yet), 0 if the claimer has not stored its identity,
 * else its local index + 1. The caller may skip the hole with
 * loom_shm_fifo_rx_release only once that claimer's process is gone.
 */
static inline int loom_shm_fifo_rx_hole(const loom_shm_fifo_rx_t *rx, uint64_t head)
{
    if (head <= rx->pos || loom_shm_fifo_rx_ready(rx)) {
        return -1;
    }
    return __atomic_load_n(&rx->cur->rsvd, __ATOMIC_RELAXED);
}

#endif /* LOOM_SHM_FIFO_H */
