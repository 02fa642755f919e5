/*
 * p2p_am.c: frames for layers above the engine (session 16, issue 23).
 *
 * A layer (rma/) that answers its own small messages does not need the
 * engine's matching: no receive is posted for them, so each went through
 * the unexpected queue, a probe, a receive and a request at both ends.
 * Here it registers a function for an id (loom_p2p_am_set) and sends one
 * AM frame (p2p_proto_int.h: a 16-byte header and the payload) that the
 * receiving engine hands to that function before any matching
 * (loom_p2p_am_dispatch, from p2p_recv.c's frame switch).
 *
 * Ordering: the frame goes to the transport only when nothing waits in
 * the peer's queue of frames (back-pressure), so it never overtakes a
 * message sent before it; frames from a peer arrive in order (tl.h), so
 * the receiver's engine has seen every earlier frame of that peer when the
 * function runs. Under back-pressure nothing is sent and nothing is
 * allocated: LOOM_ERR_NO_RESOURCE, and the caller keeps the frame (or
 * sends it as a message, which queues behind the waiting frames).
 *
 * Ownership: loom_p2p_am_send_int's data is the caller's again when it
 * returns (transports copy or queue it, tl.h am_send); a handler's data is
 * the transport's, valid during the call only.
 *
 * In the p2p stack it sits beside the frames out (it calls the transport
 * and the engine's peer table only); the receive path calls it.
 */
#include "p2p_engine_int.h"
#include "p2p_am_int.h"
#include "log_int.h"

#include <string.h>

static loom_p2p_am_fn_t loom_p2p_am_fns[LOOM_P2P_AM_IDS];

loom_status_t loom_p2p_am_set(uint8_t id, loom_p2p_am_fn_t fn)
{
    if (id >= LOOM_P2P_AM_IDS) {
        loom_error("p2p", "rank %s: no frame handler id %u (ids 0..%d)", loom_log_identity(),
                   id, LOOM_P2P_AM_IDS - 1);
        return LOOM_ERR_INVALID_ARG;
    }
    loom_p2p_am_fns[id] = fn;
    return LOOM_OK;
}

/* the payload limit to the peer entry @p peer */
static size_t loom_p2p_am_peer_max(const loom_p2p_peer_t *peer)
{
    size_t max_am = peer->ep->iface->caps.max_am;
    size_t room = max_am > sizeof(loom_p2p_hdr_am_t) ? max_am - sizeof(loom_p2p_hdr_am_t) : 0;

    return room < peer->eager_limit ? room : peer->eager_limit;
}

size_t loom_p2p_am_max(int dest, loom_comm_t comm)
{
    return loom_p2p_am_peer_max(&loom_p2p_engine.peers[loom_comm_peer_world(comm, dest)]);
}

static __attribute__((noinline)) loom_status_t loom_p2p_am_too_long(int wr, uint8_t id,
                                                                    size_t len, size_t max)
{
    loom_error("p2p", "rank %s: a frame of %zu bytes for handler %u to rank %d (%s) "
               "exceeds the %zu bytes one frame carries there", loom_log_identity(), len,
               id, wr, loom_p2p_peer_host(wr), max);
    return LOOM_ERR_INVALID_ARG;
}

loom_status_t loom_p2p_am_send_int(int dest, loom_comm_t comm, uint32_t which, uint8_t id,
                                   const void *data, size_t len)
{
    int wr = loom_comm_peer_world(comm, dest);
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[wr];
    loom_p2p_hdr_am_t h;
    loom_status_t st;

    if (loom_unlikely(peer->failed != LOOM_OK)) {
        return peer->failed;
    }
    if (loom_unlikely(len > loom_p2p_am_peer_max(peer))) {
        return loom_p2p_am_too_long(wr, id, len, loom_p2p_am_peer_max(peer));
    }
    if (loom_unlikely(!loom_list_is_empty(&peer->pending))) {
        return LOOM_ERR_NO_RESOURCE;   /* behind the queued frames, not before them */
    }
    h = (loom_p2p_hdr_am_t){ .type = LOOM_P2P_AM, .id = id,
                             .ctx = loom_comm_ctx(comm, which), .src = comm->rank };
    st = loom_tl_ep_am_send(peer->ep, &h, sizeof(h), data, len);
    if (loom_likely(st == LOOM_OK) || st == LOOM_ERR_NO_RESOURCE) {
        return st;
    }
    return loom_p2p_send_failed(peer, st, &h);
}

void loom_p2p_am_dispatch(int world_src, const void *frame, size_t len)
{
    loom_p2p_hdr_am_t h;
    loom_p2p_am_fn_t fn;

    if (loom_unlikely(len < sizeof(h))) {
        loom_error("p2p", "rank %s: a frame for a layer of %zu bytes from rank %d (%s) is "
                   "shorter than its header; dropped", loom_log_identity(), len, world_src,
                   loom_p2p_peer_host(world_src));
        return;
    }
    memcpy(&h, frame, sizeof(h));
    fn = h.id < LOOM_P2P_AM_IDS ? loom_p2p_am_fns[h.id] : NULL;
    if (loom_unlikely(fn == NULL)) {
        loom_error("p2p", "rank %s: a frame for handler %u from rank %d (%s), which no "
                   "layer registered here; dropped", loom_log_identity(), h.id, world_src,
                   loom_p2p_peer_host(world_src));
        return;
    }
    fn(h.ctx, h.src, (const char *)frame + sizeof(h), len - sizeof(h));
}
