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
