/*
 * shm_send.c: the sending side of the shm transport: choosing the path of
 * a frame (the receiver's FIFO, or the pair's fast box once it is open),
 * the fragment pool large frames travel in, and am_send / am_send_pack.
 *
 * A frame is reserved, filled, then committed. Reserve takes every
 * resource the frame needs before it claims a FIFO cell, because a
 * claimed cell must be published (the receiver waits for it in order):
 * the fragment first (when the frame exceeds a cell), then the cell or
 * box slot. Any of them missing refuses the frame as a whole.
 *
 * Fragment pool (this rank's, in its own region): a private stack of free
 * indices and a flag per fragment in flight. The receiver returns one by
 * storing 0 in its busy word; the sender looks at the busy words of the
 * fragments in flight only when the stack is empty, so returns cost the
 * sender nothing on the fast path.
 *
 * Fast box opening (see shm_int.h): after fbox_threshold frames through
 * the FIFO, one atomic add on the receiver's region line claims a box;
 * the FBOX frame announcing it is the last frame through the FIFO.
 */
#include "shm_int.h"
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

loom_status_t loom_shm_frag_init(loom_shm_iface_t *iface)
{
    uint32_t n = iface->geom.nfrags;

    iface->frag_free = malloc((size_t)n * sizeof(*iface->frag_free));
    iface->frag_out  = calloc(n, 1);
    if (iface->frag_free == NULL || iface->frag_out == NULL) {
        loom_error("shm", "out of memory for a pool of %u fragments", n);
        return LOOM_ERR_NO_MEMORY;
    }
    for (uint32_t i = 0; i < n; ++i) {
        iface->frag_free[i] = n - 1 - i;   /* pop 0 first */
    }
    iface->nfrag_free = n;
    return LOOM_OK;
}

/* The free stack is empty: take back what receivers returned. */
static void loom_shm_frag_reclaim(loom_shm_iface_t *iface)
{
    for (uint32_t i = 0; i < iface->geom.nfrags; ++i) {
        /* acquire: the receiver's reads of the fragment happened before */
        if (iface->frag_out[i] &&
            atomic_load_explicit(&loom_shm_frag(iface, iface->local_idx, i)->busy,
                                 memory_order_acquire) == 0) {
            iface->frag_out[i] = 0;
            iface->frag_free[iface->nfrag_free++] = i;
        }
    }
}

void loom_shm_frag_reclaim_peer(loom_shm_iface_t *iface, int dst)
{
    if (iface->seg == NULL || iface->frag_out == NULL) {
        return;
    }
    for (uint32_t i = 0; i < iface->geom.nfrags; ++i) {
        loom_shm_frag_hdr_t *f = loom_shm_frag(iface, iface->local_idx, i);
        if (iface->frag_out[i] && f->dst == (uint32_t)dst) {
            atomic_store_explicit(&f->busy, 0, memory_order_relaxed);
        }
    }
}

/* A free fragment for local rank @p dst, or -1. */
static int32_t loom_shm_frag_alloc(loom_shm_iface_t *iface, int dst)
{
    loom_shm_frag_hdr_t *f;
    uint32_t idx;

    if (iface->nfrag_free == 0) {
        loom_shm_frag_reclaim(iface);
        if (iface->nfrag_free == 0) {
            return -1;
        }
    }
    idx = iface->frag_free[--iface->nfrag_free];
    f = loom_shm_frag(iface, iface->local_idx, idx);
    f->dst = (uint32_t)dst;
    /* relaxed: the frame's publication (release) orders it for the receiver */
    atomic_store_explicit(&f->busy, 1, memory_order_relaxed);
    iface->frag_out[idx] = 1;
    return (int32_t)idx;
}

static void loom_shm_frag_unalloc(loom_shm_iface_t *iface, int32_t idx)
{
    atomic_store_explicit(&loom_shm_frag(iface, iface->local_idx, (uint32_t)idx)->busy, 0,
                          memory_order_relaxed);
    iface->frag_out[idx] = 0;
    iface->frag_free[iface->nfrag_free++] = (uint32_t)idx;
}

/* Claim one of the peer's fast boxes (once), at the threshold. */
static void loom_shm_fbox_claim(loom_shm_peer_t *peer)
{
    loom_shm_iface_t *iface = peer->iface;
    loom_shm_region_hdr_t *rh = (loom_shm_region_hdr_t *)peer->region;
    uint32_t idx = atomic_fetch_add_explicit(&rh->fbox_claimed, 1, memory_order_relaxed);

    if (idx >= iface->geom.fbox_max) {
        peer->fbox_state = LOOM_SHM_FBOX_NEVER;   /* the receiver's boxes are taken */
        return;
    }
    peer->fbox_idx   = idx;
    peer->fbox_state = LOOM_SHM_FBOX_PENDING;
    /* the box's pages are still untouched zeros: fault them in now (before
     * any FIFO cell is held), not one page per ten exchanges in the pair's
     * first laps (20-40 us each in a VM, inside osu_halo's timed 1 KiB loop) */
    loom_shm_ring_prefault(peer->region + iface->geom.fbox_off +
                           (uint64_t)idx * iface->geom.fbox_stride,
                           iface->geom.fbox_slots, LOOM_SHM_CELL);
    loom_debug("shm", "rank %d: fast box %u of rank %d claimed after %u frames",
               iface->job->rank, idx, peer->world_rank, peer->fifo_sent);
}

/* Announce the claimed box through the FIFO, then switch to it. @return 1 if done. */
static int loom_shm_fbox_announce(loom_shm_peer_t *peer)
{
    loom_shm_iface_t *iface = peer->iface;
    uint64_t pos;
    loom_shm_slot_t *cell = loom_shm_fifo_tx_claim(&peer->fifo_tx, (uint16_t)iface->local_idx, &pos);
    uint8_t *box;

    if (cell == NULL) {
        return 0;
    }
    memcpy(cell->data, &peer->fbox_idx, sizeof(peer->fbox_idx));
    loom_shm_fifo_tx_publish(&peer->fifo_tx, cell, pos, sizeof(peer->fbox_idx),
                             LOOM_SHM_FRAME_FBOX);
    box = peer->region + iface->geom.fbox_off + (uint64_t)peer->fbox_idx * iface->geom.fbox_stride;
    loom_shm_ring_tx_init(&peer->fbox_tx, box, iface->geom.fbox_slots, LOOM_SHM_CELL);
    peer->fbox_state = LOOM_SHM_FBOX_OPEN;
    return 1;
}

/* Take the cell (FIFO or box) for a reserved frame. @return 1, or 0 if full. */
static int loom_shm_tx_cell(loom_shm_peer_t *peer, loom_shm_txd_t *d)
{
    if (peer->fbox_state == LOOM_SHM_FBOX_NONE && peer->iface->geom.fbox_threshold != 0 &&
        peer->fifo_sent >= peer->iface->geom.fbox_threshold) {
        loom_shm_fbox_claim(peer);
    }
    if (peer->fbox_state == LOOM_SHM_FBOX_PENDING && !loom_shm_fbox_announce(peer)) {
        return 0;
    }
    if (peer->fbox_state == LOOM_SHM_FBOX_OPEN) {
        d->fifo = 0;
        d->slot = loom_shm_ring_tx_reserve_span(&peer->fbox_tx, d->span);
    } else {
        d->fifo = 1;
        d->slot = loom_shm_fifo_tx_claim(&peer->fifo_tx, (uint16_t)peer->iface->local_idx,
                                         &d->fifo_pos);
    }
    return d->slot != NULL;
}

/*
 * A frame longer than a cell: consecutive cells of an open fast box when it
 * fits LOOM_SHM_BOX_INLINE (read in place by the receiver, nothing handed
 * back), else a fragment. @return LOOM_OK, or LOOM_ERR_NO_RESOURCE (no
 * fragment free).
 */
static loom_status_t loom_shm_tx_inline_span(loom_shm_peer_t *peer, size_t len,
                                             loom_shm_txd_t *d)
{
    if (peer->fbox_state == LOOM_SHM_FBOX_OPEN && len <= LOOM_SHM_BOX_INLINE) {
        uint32_t n = loom_shm_ring_span_of((uint32_t)len, LOOM_SHM_CELL);
        if (n <= peer->fbox_tx.mask + 1u) {   /* a box of fewer cells (LOOM_SHM_RING_SLOTS) never fits it */
            d->span = n;
            return LOOM_OK;
        }
    }
    d->frag = loom_shm_frag_alloc(peer->iface, peer->local_idx);
    return d->frag < 0 ? LOOM_ERR_NO_RESOURCE : LOOM_OK;
}

loom_status_t loom_shm_tx_reserve(loom_shm_peer_t *peer, size_t len, loom_shm_txd_t *d,
                                  const char *op)
{
    loom_shm_iface_t *iface = peer->iface;

    if (loom_unlikely(peer->failed)) {
        return LOOM_ERR_PEER_FAILED;
    }
    d->frag = -1;
    d->span = 1;
    if (len > LOOM_SHM_INLINE && loom_shm_tx_inline_span(peer, len, d) != LOOM_OK) {
        return loom_shm_peer_backpressure(peer, op);
    }
    if (!loom_shm_tx_cell(peer, d)) {
        if (d->frag >= 0) {
            loom_shm_frag_unalloc(iface, d->frag);
        }
        return loom_shm_peer_backpressure(peer, op);
    }
    d->data = d->frag < 0 ? d->slot->data
                          : (uint8_t *)(loom_shm_frag(iface, iface->local_idx,
                                                      (uint32_t)d->frag) + 1);
    peer->full_count = 0;
    return LOOM_OK;
}

void loom_shm_tx_commit(loom_shm_peer_t *peer, loom_shm_txd_t *d, uint32_t len, uint16_t type)
{
    if (d->frag >= 0) {
        uint32_t idx = (uint32_t)d->frag;
        memcpy(d->slot->data, &idx, sizeof(idx));
        type |= LOOM_SHM_FRAME_FRAG;
    }
    if (d->fifo) {
        loom_shm_fifo_tx_publish(&peer->fifo_tx, d->slot, d->fifo_pos, len, type);
        ++peer->fifo_sent;
    } else {
        loom_shm_ring_tx_commit_span(&peer->fbox_tx, d->slot, len, type, d->span);
    }
}

loom_status_t loom_shm_tx_send2(loom_shm_peer_t *peer, uint16_t type, const void *a,
                                size_t a_len, const void *b, size_t b_len, const char *op)
{
    loom_shm_txd_t d;
    loom_status_t status = loom_shm_tx_reserve(peer, a_len + b_len, &d, op);

    if (status == LOOM_OK) {
        loom_copy_small(d.data, a, a_len);
        loom_copy_small(d.data + a_len, b, b_len);
        loom_shm_tx_commit(peer, &d, (uint32_t)(a_len + b_len), type);
    }
    return status;
}

/* am_send's everything-else: size check, FIFO, fragments, back-pressure */
static __attribute__((noinline)) loom_status_t
loom_shm_ep_am_send_slow(loom_shm_peer_t *peer, const void *hdr, size_t hdr_len,
                         const void *payload, size_t payload_len)
{
    if (loom_unlikely(hdr_len + payload_len > peer->max_frame)) {
        loom_error("shm", "am_send of %zu bytes to rank %d exceeds max_am (%u)",
                   hdr_len + payload_len, peer->world_rank, peer->max_frame);
        return LOOM_ERR_INVALID_ARG;
    }
    return loom_shm_tx_send2(peer, LOOM_SHM_FRAME_AM, hdr, hdr_len, payload, payload_len,
                             "am_send");
}

/*
 * The latency path: a header and a payload of at most 32 bytes each (word
 * moves, no call; 64 bytes always fit a cell) to a live peer whose fast
 * box is open, has room and was not refused before: one line written, no
 * atomic read-modify-write.
 */
loom_status_t loom_shm_ep_am_send(loom_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                  const void *payload, size_t payload_len)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);
    loom_shm_slot_t *slot;

    if (loom_likely(hdr_len <= 32 && payload_len <= 32 &&
                    peer->fbox_state == LOOM_SHM_FBOX_OPEN && !peer->failed &&
                    peer->full_count == 0 &&
                    (slot = loom_shm_ring_tx_reserve(&peer->fbox_tx)) != NULL)) {
        loom_copy_le32(slot->data, hdr, hdr_len);
        loom_copy_le32(slot->data + hdr_len, payload, payload_len);
        loom_shm_ring_tx_commit(&peer->fbox_tx, slot, (uint32_t)(hdr_len + payload_len),
                                LOOM_SHM_FRAME_AM);
        return LOOM_OK;
    }
    return loom_shm_ep_am_send_slow(peer, hdr, hdr_len, payload, payload_len);
}

loom_status_t loom_shm_ep_am_send_pack(loom_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                       loom_tl_pack_cb_t pack, void *pack_arg,
                                       size_t payload_len)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);
    loom_shm_txd_t d;
    loom_status_t status;

    if (loom_unlikely(hdr_len + payload_len > peer->max_frame)) {
        loom_error("shm", "am_send_pack of %zu bytes to rank %d exceeds max_am (%u)",
                   hdr_len + payload_len, peer->world_rank, peer->max_frame);
        return LOOM_ERR_INVALID_ARG;
    }
    status = loom_shm_tx_reserve(peer, hdr_len + payload_len, &d, "am_send_pack");
    if (status != LOOM_OK) {
        return status;   /* pack not called */
    }
    loom_copy_small(d.data, hdr, hdr_len);
    if (payload_len != 0) {
        pack(pack_arg, d.data + hdr_len, payload_len);   /* straight into the cell or fragment */
    }
    loom_shm_tx_commit(peer, &d, (uint32_t)(hdr_len + payload_len), LOOM_SHM_FRAME_AM);
    return LOOM_OK;
}
