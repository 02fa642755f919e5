/*
 * p2p_frame.c: frames out, above the error policy and below everything
 * that speaks a protocol (docs/p2p.md "The files as a stack").
 *
 * A frame goes to the transport at once unless earlier frames to the same
 * peer wait in its queue; one the transport refuses (LOOM_ERR_NO_RESOURCE)
 * is queued, and later frames to that peer queue behind it so the order
 * per pair holds. Draining the queues is p2p_send.c's (progress retries
 * them after polling the transports; a queued frame that fails fails its
 * send, which can be a rendezvous). Control frames (ACK, FIN, BYE, NAK,
 * CANCEL) are built here too: every protocol file sends them.
 *
 * This file reads only the engine's state and calls only the transport: the rendezvous, the cancel protocol and the send and receive
 * paths all send frames, and none of them is called from here.
 */
#include "p2p_engine_int.h"
#include "log_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- sending frames, back-pressure ----------------------------------------------- */

loom_status_t loom_p2p_send_failed(loom_p2p_peer_t *peer, loom_status_t st, const void *hdr)
{
    int rank = loom_p2p_peer_rank(peer);

    loom_error("p2p", "rank %s: sending a frame of type %u to rank %d (%s) over %s "
               "failed: %s", loom_log_identity(), *(const uint8_t *)hdr, rank,
               loom_p2p_peer_host(rank), peer->ep->iface->name, loom_strerror(st));
    return st;
}

/* Queue a frame in @p item (taken from the pending pool; the queue's now). */
static loom_status_t loom_p2p_frame_queue_item(loom_p2p_peer_t *peer,
                                               loom_p2p_pending_t *item, const void *hdr,
                                               size_t hdr_len, const void *payload,
                                               size_t payload_len, loom_request_t req,
                                               int complete_on_send)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;

    memcpy(item->hdr, hdr, hdr_len);
    item->hdr_len          = (uint32_t)hdr_len;
    item->payload          = payload;
    item->payload_len      = payload_len;
    item->req              = req;
    item->complete_on_send = (uint8_t)complete_on_send;
    item->owned            = 0;
    loom_list_add_tail(&peer->pending, &item->list);
    if (!peer->in_pending) {
        peer->in_pending = 1;
        loom_list_add_tail(&e->pending_peers, &peer->pending_link);
    }
    return LOOM_INPROGRESS;
}

static loom_status_t loom_p2p_frame_queue(loom_p2p_peer_t *peer, const void *hdr,
                                          size_t hdr_len, const void *payload,
                                          size_t payload_len, loom_request_t req,
                                          int complete_on_send)
{
    loom_p2p_pending_t *item = loom_mpool_get(&loom_p2p_engine.pending_pool);

    if (item == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    return loom_p2p_frame_queue_item(peer, item, hdr, hdr_len, payload, payload_len, req,
                                     complete_on_send);
}

/*
 * Hand a frame to the transport unless earlier frames to @p peer wait in
 * its queue. LOOM_ERR_NO_RESOURCE: the caller queues it (behind the others,
 * or back-pressure); LOOM_OK: sent; other: the transport failed (logged).
 */
static inline loom_status_t loom_p2p_frame_try(loom_p2p_peer_t *peer, const void *hdr,
                                               size_t hdr_len, const void *payload,
                                               size_t payload_len)
{
    loom_status_t st;

    if (loom_unlikely(!loom_list_is_empty(&peer->pending))) {
        return LOOM_ERR_NO_RESOURCE;
    }
    st = loom_tl_ep_am_send(peer->ep, hdr, hdr_len, payload, payload_len);
    if (loom_likely(st == LOOM_OK) || st == LOOM_ERR_NO_RESOURCE) {
        return st;
    }
    return loom_p2p_send_failed(peer, st, hdr);
}

loom_status_t loom_p2p_frame_send(loom_p2p_peer_t *peer, const void *hdr,
                                  size_t hdr_len, const void *payload,
                                  size_t payload_len, loom_request_t req,
                                  int complete_on_send)
{
    loom_status_t st = loom_p2p_frame_try(peer, hdr, hdr_len, payload, payload_len);

    if (loom_likely(st != LOOM_ERR_NO_RESOURCE)) {
        return st;
    }
    return loom_p2p_frame_queue(peer, hdr, hdr_len, payload, payload_len, req,
                                complete_on_send);
}

loom_status_t loom_p2p_frame_send_reserved(loom_p2p_peer_t *peer, loom_p2p_pending_t *item,
                                           const void *hdr, size_t hdr_len,
                                           const void *payload, size_t payload_len)
{
    loom_status_t st = loom_p2p_frame_try(peer, hdr, hdr_len, payload, payload_len);

    if (st != LOOM_ERR_NO_RESOURCE) {
        loom_mpool_put(&loom_p2p_engine.pending_pool, item);
        return st;
    }
    return loom_p2p_frame_queue_item(peer, item, hdr, hdr_len, payload, payload_len, NULL, 0);
}

/* ---- typed frames: the payload packed from a datatype cursor ---------------------- */

/*
 * The bounce buffer of typed eager sends on a transport without
 * am_send_pack: one, of the largest eager limit, made at the first such
 * send (am_send copies or queues the payload before it returns, and one
 * thread at a time runs the engine, under MPI_THREAD_MULTIPLE too: no
 * progress pass, hence no yield of the engine lock, runs between packing
 * and am_send, so one is enough); freed at finalize.
 */
static void  *loom_p2p_dt_bounce;
static size_t loom_p2p_dt_bounce_len;

static void loom_p2p_frame_pack_cb(void *arg, void *dst, size_t len)
{
    size_t got = 0;

    /* the range lies inside the stream (checked when the send started) */
    (void)loom_dt_cursor_pack(arg, dst, len, &got);
}

/* Pack the frame's payload into the bounce buffer (made on first use); NULL: no memory. */
static void *loom_p2p_frame_bounce(loom_dt_cursor_t *cur, size_t len)
{
    if (loom_p2p_dt_bounce_len < len) {
        size_t want = LOOM_MAX(len, loom_p2p_engine.max_eager);
        void *p = realloc(loom_p2p_dt_bounce, want != 0 ? want : 1);

        if (p == NULL) {
            return NULL;
        }
        loom_p2p_dt_bounce     = p;
        loom_p2p_dt_bounce_len = want;
    }
    loom_p2p_frame_pack_cb(cur, loom_p2p_dt_bounce, len);
    return loom_p2p_dt_bounce;
}

/* Queue a typed frame as a packed copy the queue owns (freed with the entry). */
static loom_status_t loom_p2p_frame_queue_dt(loom_p2p_peer_t *peer, const void *hdr,
                                             size_t hdr_len, loom_dt_cursor_t *cur,
                                             size_t payload_len, loom_request_t req,
                                             int complete_on_send)
{
    loom_p2p_pending_t *item = loom_mpool_get(&loom_p2p_engine.pending_pool);
    void *copy = malloc(payload_len != 0 ? payload_len : 1);
    size_t got = 0;

    if (item == NULL || copy == NULL) {
        if (item != NULL) {
            loom_mpool_put(&loom_p2p_engine.pending_pool, item);
        }
        free(copy);
        return LOOM_ERR_NO_MEMORY;
    }
    if (loom_dt_cursor_seek(cur, 0) == LOOM_OK) {
        (void)loom_dt_cursor_pack(cur, copy, payload_len, &got);
    }
    loom_p2p_frame_queue_item(peer, item, hdr, hdr_len, copy, payload_len, req,
                              complete_on_send);
    item->owned = 1;
    return LOOM_INPROGRESS;
}

loom_status_t loom_p2p_frame_send_dt(loom_p2p_peer_t *peer, const void *hdr, size_t hdr_len,
                                     loom_dt_cursor_t *cur, size_t payload_len,
                                     loom_request_t req, int complete_on_send)
{
    loom_tl_ep_t *ep = peer->ep;
    loom_status_t st = LOOM_ERR_NO_RESOURCE;

    if (loom_list_is_empty(&peer->pending)) {
        if (ep->iface->ops.am_send_pack != NULL) {
            st = ep->iface->ops.am_send_pack(ep, hdr, hdr_len, loom_p2p_frame_pack_cb, cur,
                                             payload_len);
        } else {
            void *packed = loom_p2p_frame_bounce(cur, payload_len);

            st = packed != NULL ? loom_tl_ep_am_send(ep, hdr, hdr_len, packed, payload_len)
                                : LOOM_ERR_NO_MEMORY;
        }
        if (st != LOOM_OK && st != LOOM_ERR_NO_RESOURCE && st != LOOM_ERR_NO_MEMORY) {
            return loom_p2p_send_failed(peer, st, hdr);
        }
    }
    if (st != LOOM_ERR_NO_RESOURCE) {
        return st;
    }
    return loom_p2p_frame_queue_dt(peer, hdr, hdr_len, cur, payload_len, req,
                                   complete_on_send);
}

/* ---- whole-message temporaries of typed rendezvous ------------------------------- */

/*
 * A typed rendezvous packs its send into a copy and reads its receive
 * through a bounce: buffers of 64 KiB and more, made and dropped once per
 * message. malloc serves those with fresh mappings (mmap above its
 * threshold), and faulting their pages in costs more than the copy itself
 * (a quarter of a 1 MiB halo exchange's time, measured with perf). So the
 * engine keeps a few such buffers for the next message: at most
 * LOOM_P2P_TMP_KEEP of them and LOOM_P2P_TMP_BYTES in all, the smallest
 * that fits is reused (by a request of LOOM_P2P_TMP_MIN or more only), and
 * a buffer that does not fit the cache is freed
 * (the largest kept one makes room for a larger newcomer). Each buffer
 * carries its size in a header line in front. Single-threaded, as the
 * engine; emptied at finalize.
 */
#define LOOM_P2P_TMP_KEEP  8
#define LOOM_P2P_TMP_BYTES ((size_t)64 << 20)
#define LOOM_P2P_TMP_MIN   ((size_t)64 << 10)
#define LOOM_P2P_TMP_HDR   ((size_t)64)

static void  *loom_p2p_tmp_cache[LOOM_P2P_TMP_KEEP];
static size_t loom_p2p_tmp_cached;   /* bytes kept */

static size_t loom_p2p_tmp_size(const void *p)
{
    return *(const size_t *)((const char *)p - LOOM_P2P_TMP_HDR);
}

void *loom_p2p_tmp_alloc(size_t len)
{
    int best = -1;
    char *p;

    /* a small buffer (a piece array) never takes a kept one: it would hold
     * a message-sized copy for a few KiB, and the next copy was malloc'd
     * afresh (brk, page faults) */
    for (int i = 0; i < LOOM_P2P_TMP_KEEP && len >= LOOM_P2P_TMP_MIN; ++i) {
        void *c = loom_p2p_tmp_cache[i];

        if (c != NULL && loom_p2p_tmp_size(c) >= len &&
            (best < 0 || loom_p2p_tmp_size(c) < loom_p2p_tmp_size(loom_p2p_tmp_cache[best]))) {
            best = i;
        }
    }
    if (best >= 0) {
        p = loom_p2p_tmp_cache[best];
        loom_p2p_tmp_cache[best] = NULL;
        loom_p2p_tmp_cached -= loom_p2p_tmp_size(p);
        return p;
    }
    if (len > SIZE_MAX - LOOM_P2P_TMP_HDR || (p = malloc(LOOM_P2P_TMP_HDR + len)) == NULL) {
        return NULL;
    }
    *(size_t *)p = len;
    return p + LOOM_P2P_TMP_HDR;
}

void loom_p2p_tmp_free(void *buf)
{
    size_t len;
    int slot = -1;

    if (buf == NULL) {
        return;
    }
    len = loom_p2p_tmp_size(buf);
    for (int i = 0; i < LOOM_P2P_TMP_KEEP && len >= LOOM_P2P_TMP_MIN; ++i) {
        void *c = loom_p2p_tmp_cache[i];

        if (c == NULL) {
            slot = i;
            break;
        }
        if (loom_p2p_tmp_size(c) < len &&
            (slot < 0 || loom_p2p_tmp_size(c) < loom_p2p_tmp_size(loom_p2p_tmp_cache[slot]))) {
            slot = i;   /* else evict the smallest kept one that is smaller */
        }
    }
    if (slot >= 0 && loom_p2p_tmp_cache[slot] != NULL) {
        void *old = loom_p2p_tmp_cache[slot];

        loom_p2p_tmp_cached -= loom_p2p_tmp_size(old);
        loom_p2p_tmp_cache[slot] = NULL;
        free((char *)old - LOOM_P2P_TMP_HDR);
    }
    if (slot < 0 || loom_p2p_tmp_cached + len > LOOM_P2P_TMP_BYTES) {
        free((char *)buf - LOOM_P2P_TMP_HDR);
        return;
    }
    loom_p2p_tmp_cache[slot] = buf;
    loom_p2p_tmp_cached += len;
}

void loom_p2p_frame_cleanup(void)
{
    free(loom_p2p_dt_bounce);
    loom_p2p_dt_bounce     = NULL;
    loom_p2p_dt_bounce_len = 0;
    for (int i = 0; i < LOOM_P2P_TMP_KEEP; ++i) {
        if (loom_p2p_tmp_cache[i] != NULL) {
            free((char *)loom_p2p_tmp_cache[i] - LOOM_P2P_TMP_HDR);
            loom_p2p_tmp_cache[i] = NULL;
        }
    }
    loom_p2p_tmp_cached = 0;
}

void loom_p2p_send_ctl(int world_rank, uint8_t type, uint64_t sreq)
{
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[world_rank];
    loom_p2p_hdr_ctl_t h = { .type = type, .sreq = sreq };
    loom_status_t st;

    if (peer->failed != LOOM_OK) {
        return;
    }
    st = loom_p2p_frame_send(peer, &h, sizeof(h), NULL, 0, NULL, 0);
    if (st < 0) {
        loom_error("p2p", "cannot send %s to rank %d: %s",
                   type == LOOM_P2P_ACK ? "ACK" : type == LOOM_P2P_FIN ? "FIN" :
                   type == LOOM_P2P_NAK ? "NAK" : type == LOOM_P2P_CANCEL ? "CANCEL" : "BYE",
                   world_rank, loom_strerror(st));
    }
}
