/*
 * shm_ring.c: out-of-line setup of the SPSC ring (the fast path is inline in
 * shm_ring.h).
 */
#include "shm_ring.h"

void loom_shm_ring_format(void *mem, uint32_t nslots, uint32_t slot_size)
{
    loom_shm_ring_t *ring  = mem;
    uint8_t         *slots = (uint8_t *)mem + sizeof(*ring);
    size_t           stride = loom_shm_ring_stride(slot_size);

    atomic_store_explicit(&ring->tail, 0, memory_order_relaxed);
    for (uint32_t i = 0; i < nslots; ++i) {
        loom_shm_slot_t *slot = (loom_shm_slot_t *)(slots + (size_t)i * stride);
        atomic_store_explicit(&slot->seq, 0, memory_order_relaxed);
        slot->len  = 0;
        slot->type = 0;
    }
    /* the segment's creator publishes the whole segment with one release
     * store of its magic after formatting every ring */
}

void loom_shm_ring_tx_init(loom_shm_ring_tx_t *tx, void *mem, uint32_t nslots,
                           uint32_t slot_size)
{
    tx->ring       = mem;
    tx->slots      = (uint8_t *)mem + sizeof(loom_shm_ring_t);
    tx->mask       = nslots - 1;
    tx->stride     = (uint32_t)loom_shm_ring_stride(slot_size);
    tx->tail_cache = atomic_load_explicit(&tx->ring->tail, memory_order_acquire);
    tx->head       = tx->tail_cache;
}

void loom_shm_ring_rx_init(loom_shm_ring_rx_t *rx, void *mem, uint32_t nslots,
                           uint32_t slot_size)
{
    rx->ring      = mem;
    rx->slots     = (uint8_t *)mem + sizeof(loom_shm_ring_t);
    rx->mask      = nslots - 1;
    rx->stride    = (uint32_t)loom_shm_ring_stride(slot_size);
    rx->pos       = atomic_load_explicit(&rx->ring->tail, memory_order_acquire);
    rx->cur       = (loom_shm_slot_t *)(rx->slots + (size_t)(rx->pos & rx->mask) * rx->stride);
}

void loom_shm_ring_prefault(void *mem, uint32_t nslots, uint32_t slot_size)
{
    loom_shm_ring_t *ring  = mem;
    uint8_t         *slots = (uint8_t *)mem + sizeof(*ring);
    size_t           stride = loom_shm_ring_stride(slot_size);

    /* adding 0 is a write that changes nothing, so it is safe even while the
     * other side already uses the ring; it maps the page writable here */
    atomic_fetch_add_explicit(&ring->tail, 0, memory_order_relaxed);
    for (uint32_t i = 0; i < nslots + LOOM_SHM_RING_SPAN_MAX - 1; ++i) {   /* and the spill */
        loom_shm_slot_t *slot = (loom_shm_slot_t *)(slots + (size_t)i * stride);
        atomic_fetch_add_explicit(&slot->seq, 0, memory_order_relaxed);
    }
}
