/*
 * shm_ring.h: the single-producer/single-consumer ring of the shm transport.
 *
 * One ring carries frames from one local rank to another: it is the "fast
 * box" a busy pair of ranks sends through (shm_int.h). It lives in
 * shared memory as one control cache line followed by a power-of-two number
 * of fixed-size, cache-line-aligned slots:
 *
 *   +-- control line ----------------------+  written by the consumer only
 *   | tail: frames consumed so far         |  (read by the producer only
 *   +--------------------------------------+   when its cached copy says full)
 *   | slot 0: seq | len | type | data ...  |  written by the producer only
 *   | slot 1: ...                          |
 *
 * Each side keeps its own position in private memory. The producer writes
 * frame number p into slot p & mask and publishes it by storing seq = p + 1
 * with release order, after the length and data. The consumer polls the seq
 * word of slot (pos & mask) with acquire order and takes the frame when it
 * equals pos + 1: positions are 64-bit and never wrap, so a stale value from
 * the previous lap (p + 1 - nslots) can never look new, and the consumer
 * never writes to a slot. Detecting a new frame touches ONE cache line: the
 * 16-byte slot header and the first 48 bytes of data share it, enough for a
 * p2p header and a small payload.
 *
 * When the consumer is done with a frame it stores tail = pos + 1 (release);
 * the producer reloads tail (acquire) only when head - cached_tail reaches
 * nslots, so in steady state the control line stays in the consumer's
 * cache. A full ring is reported to the caller (back-pressure), never waited
 * on. No function here allocates, locks or makes a system call.
 *
 * Slots sit loom_shm_ring_stride() bytes apart: the slot size plus one
 * cache line when the slot size is an even number of lines. With a
 * power-of-two stride (8 KiB slots) every slot's first line falls in the
 * same L1 set, so a lap of the ring evicts the producer's copy of the
 * line it writes next, and each small message then costs a read-for-
 * ownership with data instead of an upgrade: about 15 ns per one-way
 * 8-byte message measured here (64 slots of 8 KiB against 8 KiB + 64).
 *
 * A frame longer than one slot may SPAN up to LOOM_SHM_RING_SPAN_MAX
 * consecutive slots: its data runs on from the first slot's header over the
 * following slots' memory, headers included, so it stays contiguous and the
 * consumer reads it in place, in sequential lines, with no fragment to hand
 * back (a 256-byte message in the transport's three-line cells). The first
 * slot's header says how many slots the frame takes (its span word), the
 * producer's head and the consumer's position advance by that many, and the
 * seq words of the covered slots, which the frame's bytes overwrote, are
 * zeroed by the consumer before it releases the frame: data that happened
 * to equal a later frame number must never look published there. A frame
 * that starts near the end of the slots runs on into the ring's spill area
 * (LOOM_SHM_RING_SPAN_MAX - 1 slots after the last one, never polled), so
 * no span has to wrap. Spans only ever go to the ring's one producer and
 * consumer; the FIFO (shm_fifo.h) keeps one cell per frame.
 *
 * The ring knows nothing of ranks or segments: the receiver's region holds
 * its fast boxes (shm_seg.c lays it out, shm_send.c claims a box) and
 * test/shm/test_shm_ring.c drives rings directly across fork()ed
 * processes. The transport's boxes use 192-byte slots (three lines, so the
 * stride is the slot size) and a slot size below LOOM_SHM_SLOT_MIN, which
 * loom_shm_ring_geometry_ok is not asked about.
 */
#ifndef LOOM_SHM_RING_H
#define LOOM_SHM_RING_H

#include "compiler_int.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/** Slot header: the first 16 bytes of every slot. */
typedef struct loom_shm_slot {
    _Atomic uint64_t seq;     /* frame number + 1 once published */
    uint32_t         len;     /* bytes of data */
    uint16_t         type;    /* LOOM_SHM_FRAME_* (meaning is the user's) */
    uint16_t         rsvd;    /* ring: slots the frame spans (1..LOOM_SHM_RING_SPAN_MAX);
                               * FIFO cell: the sender (shm_fifo.h) */
    uint8_t          data[];  /* len bytes; slot_size - 16 at most */
} loom_shm_slot_t;

#define LOOM_SHM_SLOT_HDR   ((uint32_t)sizeof(loom_shm_slot_t))
#define LOOM_SHM_SLOT_MIN   256u
#define LOOM_SHM_SLOT_MAX   (1u << 20)
/** Most consecutive slots one ring frame may span (the spill area holds the rest). */
#define LOOM_SHM_RING_SPAN_MAX 3u

/** Control line of a ring, followed in memory by the slots. */
typedef struct loom_shm_ring {
    _Atomic uint64_t tail;    /* frames the consumer has released */
    uint8_t          pad[LOOM_CACHE_LINE - sizeof(uint64_t)];
} LOOM_ALIGNED(LOOM_CACHE_LINE) loom_shm_ring_t;

/** Producer side: private to the one process that writes the ring. */
typedef struct loom_shm_ring_tx {
    loom_shm_ring_t *ring;
    uint8_t         *slots;
    uint64_t         head;        /* next frame number to write */
    uint64_t         tail_cache;  /* last tail read from the control line */
    uint32_t         mask;        /* nslots - 1 */
    uint32_t         stride;      /* loom_shm_ring_stride(slot_size) */
} loom_shm_ring_tx_t;

/** Consumer side: private to the one process that reads the ring. */
typedef struct loom_shm_ring_rx {
    loom_shm_slot_t *cur;         /* slot of frame pos: the one line an idle poll reads */
    uint64_t         pos;         /* next frame number to read */
    loom_shm_ring_t *ring;
    uint8_t         *slots;
    uint32_t         mask;
    uint32_t         stride;
} loom_shm_ring_rx_t;

/** Distance between consecutive slots of @p slot_size bytes (an odd number of lines). */
static inline size_t loom_shm_ring_stride(uint32_t slot_size)
{
    return (slot_size / LOOM_CACHE_LINE) % 2 == 0 ? (size_t)slot_size + LOOM_CACHE_LINE
                                                  : (size_t)slot_size;
}

/** Bytes one ring occupies (control line + slots + the spill area of spans). */
static inline size_t loom_shm_ring_bytes(uint32_t nslots, uint32_t slot_size)
{
    return sizeof(loom_shm_ring_t) +
           ((size_t)nslots + LOOM_SHM_RING_SPAN_MAX - 1) * loom_shm_ring_stride(slot_size);
}

/** Bytes of frame a run of @p n slots @p stride apart carries (one header). */
static inline uint32_t loom_shm_ring_span_bytes(uint32_t n, uint32_t stride)
{
    return n * stride - LOOM_SHM_SLOT_HDR;
}

/**
 * Slots a frame of @p len bytes spans in a ring of slots @p stride apart,
 * when len is more than one slot carries (pure; test_shm_ring.c checks it).
 */
static inline uint32_t loom_shm_ring_span_of(uint32_t len, uint32_t stride)
{
    return (len + LOOM_SHM_SLOT_HDR + stride - 1) / stride;
}

/** Largest frame a ring of @p slot_size slots carries. */
static inline uint32_t loom_shm_ring_max_frame(uint32_t slot_size)
{
    return slot_size - LOOM_SHM_SLOT_HDR;
}

/**
 * Check a ring geometry: @p nslots a power of two >= 2, @p slot_size a
 * multiple of the cache line in [LOOM_SHM_SLOT_MIN, LOOM_SHM_SLOT_MAX].
 * @return 1 if valid.
 */
static inline int loom_shm_ring_geometry_ok(uint64_t nslots, uint64_t slot_size)
{
    return nslots >= 2 && nslots <= (1u << 20) && (nslots & (nslots - 1)) == 0 &&
           slot_size >= LOOM_SHM_SLOT_MIN && slot_size <= LOOM_SHM_SLOT_MAX &&
           slot_size % LOOM_CACHE_LINE == 0;
}

/**
 * Format a ring in fresh (zeroed or reused) memory. Must happen before
 * either side attaches; the segment's creator does it for every ring.
 */
void loom_shm_ring_format(void *mem, uint32_t nslots, uint32_t slot_size);

/**
 * Map the control line and the first line of every slot (and of the
 * spill area) into this process's page tables, so the first lap of small
 * frames takes no page faults (a minor fault costs about a microsecond in a VM, more than ten
 * 8-byte messages). Where the pages do not exist yet (a fast box of the
 * zero-filled segment) the first process to call this allocates them;
 * payload pages beyond a slot's first line are still mapped on first
 * use. Safe while the ring is in use.
 */
void loom_shm_ring_prefault(void *mem, uint32_t nslots, uint32_t slot_size);

/** Attach the producer side to a formatted ring at @p mem. */
void loom_shm_ring_tx_init(loom_shm_ring_tx_t *tx, void *mem, uint32_t nslots,
                           uint32_t slot_size);

/** Attach the consumer side to a formatted ring at @p mem. */
void loom_shm_ring_rx_init(loom_shm_ring_rx_t *rx, void *mem, uint32_t nslots,
                           uint32_t slot_size);

/**
 * Reserve the next @p n slots (1..LOOM_SHM_RING_SPAN_MAX) for one frame
 * of up to loom_shm_ring_span_bytes(n, stride) bytes. @return the first
 * slot (its data is the caller's to fill), or NULL when fewer than n are
 * free (always, for n above the ring's slots). Nothing is visible to the
 * consumer until loom_shm_ring_tx_commit_span.
 */
static inline loom_shm_slot_t *loom_shm_ring_tx_reserve_span(loom_shm_ring_tx_t *tx, uint32_t n)
{
    if (loom_unlikely(tx->head + n - tx->tail_cache > (uint64_t)tx->mask + 1)) {
        /* acquire: the consumer's reads of the slots we are about to reuse
         * happened before it released them */
        tx->tail_cache = atomic_load_explicit(&tx->ring->tail, memory_order_acquire);
        if (tx->head + n - tx->tail_cache > (uint64_t)tx->mask + 1) {
            return NULL;
        }
    }
    return (loom_shm_slot_t *)(tx->slots + (size_t)(tx->head & tx->mask) * tx->stride);
}

/** Reserve the next slot (loom_shm_ring_tx_reserve_span of one). */
static inline loom_shm_slot_t *loom_shm_ring_tx_reserve(loom_shm_ring_tx_t *tx)
{
    return loom_shm_ring_tx_reserve_span(tx, 1);
}

/** Publish a frame of @p len bytes taking @p n slots from @p slot (the last reserve). */
static inline void loom_shm_ring_tx_commit_span(loom_shm_ring_tx_t *tx, loom_shm_slot_t *slot,
                                                uint32_t len, uint16_t type, uint32_t n)
{
    slot->len  = len;
    slot->type = type;
    slot->rsvd = (uint16_t)n;
    /* release: length, type, span and data are visible before the new seq */
    atomic_store_explicit(&slot->seq, tx->head + 1, memory_order_release);
    tx->head += n;
}

/** Publish the slot returned by the last reserve, holding @p len bytes. */
static inline void loom_shm_ring_tx_commit(loom_shm_ring_tx_t *tx, loom_shm_slot_t *slot,
                                           uint32_t len, uint16_t type)
{
    loom_shm_ring_tx_commit_span(tx, slot, len, type, 1);
}

/**
 * Copy a frame of two gathered pieces into the ring, spanning slots when it
 * is longer than one carries (at most loom_shm_ring_span_bytes of
 * LOOM_SHM_RING_SPAN_MAX slots).
 * @return 1 if sent, 0 if the ring is full (nothing written).
 */
static inline int loom_shm_ring_tx_send2(loom_shm_ring_tx_t *tx, uint16_t type,
                                         const void *a, size_t a_len,
                                         const void *b, size_t b_len)
{
    uint32_t len = (uint32_t)(a_len + b_len);
    uint32_t n = loom_shm_ring_span_of(len, tx->stride);
    loom_shm_slot_t *slot = loom_shm_ring_tx_reserve_span(tx, n);

    if (slot == NULL) {
        return 0;
    }
    loom_copy_small(slot->data, a, a_len);   /* inline for frames of a line or two */
    loom_copy_small(slot->data + a_len, b, b_len);
    loom_shm_ring_tx_commit_span(tx, slot, len, type, n);
    return 1;
}

/** @return the next published frame, or NULL if none. Touches one line. */
static inline loom_shm_slot_t *loom_shm_ring_rx_peek(loom_shm_ring_rx_t *rx)
{
    loom_shm_slot_t *slot = rx->cur;
    /* acquire: pairs with the producer's release of seq, so len and data
     * read below are the ones it wrote */
    if (atomic_load_explicit(&slot->seq, memory_order_acquire) != rx->pos + 1) {
        return NULL;
    }
    return slot;
}

/** 1 if a frame is published (the idle poll: one load, nothing else). */
static inline int loom_shm_ring_rx_ready(const loom_shm_ring_rx_t *rx)
{
    /* relaxed: only a hint; peek's acquire load orders the reads of the frame */
    return atomic_load_explicit(&rx->cur->seq, memory_order_relaxed) == rx->pos + 1;
}

/**
 * Slots the frame at @p slot (from the last peek) takes; a span word out
 * of range (only a scribbled segment writes one) counts as 1; the caller
 * refuses a frame whose span word is not the count its length takes
 * (shm_iface.c), in range or not, before it is released.
 */
static inline uint32_t loom_shm_ring_rx_span(const loom_shm_slot_t *slot)
{
    uint32_t n = slot->rsvd;
    return n - 1u < LOOM_SHM_RING_SPAN_MAX ? n : 1u;
}

/* the seq words a spanning frame's bytes overwrote: no later poll may see them as published */
static inline void loom_shm_ring_rx_unspan(loom_shm_ring_rx_t *rx, uint32_t n)
{
    for (uint32_t k = 1; k < n; ++k) {
        loom_shm_slot_t *s = (loom_shm_slot_t *)((uint8_t *)rx->cur + (size_t)k * rx->stride);
        atomic_store_explicit(&s->seq, 0, memory_order_relaxed);
    }
}

/** Hand the frame returned by the last peek back to the producer. */
static inline void loom_shm_ring_rx_release(loom_shm_ring_rx_t *rx)
{
    uint32_t n = loom_shm_ring_rx_span(rx->cur);

    if (loom_unlikely(n != 1)) {
        loom_shm_ring_rx_unspan(rx, n);   /* ordered before the producer's reuse by tail */
    }
    rx->pos += n;
    rx->cur = (loom_shm_slot_t *)(rx->slots + (size_t)(rx->pos & rx->mask) * rx->stride);
    /* release: our reads of the slot are done before the producer reuses it */
    atomic_store_explicit(&rx->ring->tail, rx->pos, memory_order_release);
}

#endif /* LOOM_SHM_RING_H */
