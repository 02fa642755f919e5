/*
 * p2p_recv.c: receives and frames in: the start of a receive (matching
 * against the unexpected queue, or posting), probes, and the transports'
 * am callbacks, which match arriving frames against posted receives or
 * queue them as unexpected (see p2p_proto_int.h for the frames and
 * docs/p2p.md for the design).
 *
 * An arriving EAGER frame that matches a posted receive is the fast path:
 * loom_p2p_am_handler copies it and completes the receive without leaving
 * this file. Every other frame takes loom_p2p_am_handler_all: EAGER_SYNC
 * (ACK once matched), RTS (the rendezvous, p2p_rndv.c), RNDV_DATA, the
 * ACK/FIN that complete sends (p2p_sreq.c names them), NAK and CANCEL
 * (p2p_cancel.c), and the AM frames of layers above the engine, handed to
 * p2p_am.c before any matching (session 16).
 *
 * In the p2p stack (docs/p2p.md) it sits above the frames out, the
 * rendezvous and the NAK/CANCEL frames, which it calls, and below
 * progress, peer failure and the API. The send side (p2p_send.c) is its
 * sibling: the two never call each other.
 */
#include "p2p_engine_int.h"
#include "p2p_am_int.h"
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

static __attribute__((noinline)) void loom_p2p_recv_truncated(loom_request_t req,
                                                               size_t len)
{
    loom_p2p_log_truncation(req, len);
    loom_p2p_recv_complete(req, LOOM_ERR_TRUNCATED);
}

/*
 * A typed receive takes an eager message of @p len bytes whose first
 * min(len, capacity) bytes are at @p data: unpack them straight into the
 * user's memory (from the frame, or the unexpected copy) and complete it.
 */
static __attribute__((noinline)) void loom_p2p_recv_unpack(loom_request_t req,
                                                            const void *data, size_t len)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    size_t n = len <= rq->len ? len : rq->len;
    loom_status_t st = LOOM_OK;

    if (n != 0) {
        st = loom_dt_unpack_range(rq->buf, rq->count, rq->dt, 0, n, data);
    }
    req->msg.bytes = n;
    if (st == LOOM_OK && len > rq->len) {
        loom_p2p_recv_truncated(req, len);
        return;
    }
    loom_p2p_recv_complete(req, st);
}

/* a matched eager receive has its data (of a @p len-byte message): complete it */
static inline void loom_p2p_recv_eager_done(loom_request_t req, size_t len)
{
    if (loom_unlikely(len > loom_p2p_req(req)->len)) {
        loom_p2p_recv_truncated(req, len);
        return;
    }
    loom_request_complete(req, LOOM_OK);
}

/* eager payload into a matched receive; completes it (always inlined: the
 * latency path of loom_p2p_am_handler, whatever the typed branch adds) */
static inline __attribute__((always_inline)) void loom_p2p_recv_copy(loom_request_t req, const void *data, size_t len)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    size_t n = len <= rq->len ? len : rq->len;

    if (loom_unlikely(rq->dt != NULL)) {   /* a derived datatype: the only test */
        loom_p2p_recv_unpack(req, data, len);
        return;
    }
    loom_copy_small(rq->buf, data, n);
    req->msg.bytes = n;
    loom_p2p_recv_eager_done(req, len);
}

/* an unexpected message meets its receive */
void loom_p2p_unexp_deliver(loom_request_t req, loom_p2p_unexp_t *ux)
{
    loom_status_t failed = loom_p2p_engine.peers[ux->world_src].failed;

    req->msg.source = ux->m.src;
    req->msg.tag    = ux->m.tag;
    if (ux->type == LOOM_P2P_RTS && failed != LOOM_OK) {
        /* the data stayed in the dead sender's memory: nothing to read */
        req->msg.bytes = 0;
        loom_p2p_recv_complete(req, failed);
    } else if (ux->type == LOOM_P2P_RTS) {
        loom_p2p_peer_t *peer = &loom_p2p_engine.peers[ux->world_src];
        /* its RNDV_DATA came, or is the next frame from the peer (then the
         * receive waits for it instead); anything else would be a broken
         * stream, and the gets then read the whole message */
        uint32_t pushed = ux->push_have || peer->push_ux == ux ? ux->pushed : 0;

        if (peer->push_ux == ux) {
            peer->push_ux = NULL;
        }
        loom_p2p_rndv_start(req, ux->world_src, ux->len, ux->sreq, ux->raddr, &ux->rkey,
                            pushed, ux->push_have ? ux->data : NULL, ux->riov);
        ux->riov = NULL;   /* the receive's now */
    } else {
        loom_p2p_recv_copy(req, ux->data, ux->len);
        if (ux->type == LOOM_P2P_EAGER_SYNC) {
            loom_p2p_send_ctl(ux->world_src, LOOM_P2P_ACK, ux->sreq);
        }
    }
    loom_p2p_unexp_free(ux);
}

/* Post a receive on an allocated request (inlined like loom_p2p_isend_begin). */
static inline __attribute__((always_inline)) loom_status_t
loom_p2p_irecv_begin(loom_request_t req, void *buf, size_t bytes, int src, int tag,
                     loom_comm_t comm, uint32_t which)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    uint32_t ctx = loom_comm_ctx(comm, which);
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_match_unexp_t *u;

    rq->buf  = buf;
    rq->len  = bytes;
    rq->peer = -1;
    loom_match_posted_prep(&rq->posted, ctx, src, tag);
    /* what arrived before a sender died is still delivered: look here first */
    u = loom_match_unexp_find(&e->match, ctx, src, tag);
    if (u != NULL) {
        loom_match_unexp_remove(&e->match, u);
        loom_p2p_unexp_deliver(req, loom_container_of(u, loom_p2p_unexp_t, m));
        return LOOM_OK;
    }
    if (loom_unlikely(src >= 0 &&
                      e->peers[loom_comm_peer_world(comm, src)].failed != LOOM_OK)) {
        loom_p2p_recv_complete(req, e->peers[loom_comm_peer_world(comm, src)].failed);
        return LOOM_OK;
    }
    loom_match_posted_add(&e->match, &rq->posted);
    return LOOM_OK;
}

loom_status_t loom_p2p_irecv_int(void *buf, size_t bytes, int src, int tag,
                                 loom_comm_t comm, uint32_t which,
                                 loom_request_t *req_p)
{
    loom_request_t req = loom_request_alloc(LOOM_REQ_RECV, comm);

    if (loom_unlikely(req == NULL)) {
        return LOOM_ERR_NO_MEMORY;
    }
    *req_p = req;
    return loom_p2p_irecv_begin(req, buf, bytes, src, tag, comm, which);
}

loom_status_t loom_p2p_irecv_start(loom_request_t req, void *buf, size_t bytes, int src,
                                   int tag, loom_comm_t comm, uint32_t which)
{
    return loom_p2p_irecv_begin(req, buf, bytes, src, tag, comm, which);
}

void loom_p2p_recv_prep(loom_request_t req, void *buf, size_t count, loom_dt_t *dt)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);

    rq->buf   = buf;
    rq->len   = dt != NULL ? count * loom_dt_size(dt) : count;
    rq->peer  = -1;
    rq->count = count;
    rq->tmp   = NULL;
    rq->dt    = dt;
    if (dt != NULL) {
        loom_dt_retain(dt);   /* dropped by loom_p2p_recv_complete */
    }
}

loom_status_t loom_p2p_irecv_dt_start(loom_request_t req, void *buf, size_t count,
                                      loom_dt_t *dt, int src, int tag, loom_comm_t comm,
                                      uint32_t which)
{
    loom_p2p_recv_prep(req, buf, count, dt);
    return loom_p2p_irecv_begin(req, buf, loom_p2p_req(req)->len, src, tag, comm, which);
}

int loom_p2p_recv_cancel(loom_request_t req)
{
    if (!loom_match_posted_remove(&loom_p2p_engine.match, &loom_p2p_req(req)->posted)) {
        return 0;
    }
    req->msg.cancelled = 1;
    loom_p2p_recv_complete(req, LOOM_OK);
    return 1;
}

int loom_p2p_probe_int(int src, int tag, loom_comm_t comm, uint32_t which,
                       loom_msg_status_t *status)
{
    loom_match_unexp_t *u = loom_match_unexp_find(&loom_p2p_engine.match,
                                                  loom_comm_ctx(comm, which), src, tag);
    loom_p2p_unexp_t *ux;

    if (u == NULL) {
        return 0;
    }
    ux = loom_container_of(u, loom_p2p_unexp_t, m);
    if (status != LOOM_STATUS_IGNORE) {
        status->source    = u->src;
        status->tag       = u->tag;
        status->error     = LOOM_OK;
        status->cancelled = 0;
        status->bytes     = ux->len;
    }
    return 1;
}

int loom_p2p_probe_skip_int(int src, loom_comm_t comm, uint32_t which, uint32_t skip_mask,
                            uint32_t skip_val, loom_msg_status_t *status)
{
    uint32_t ctx = loom_comm_ctx(comm, which);
    loom_match_unexp_t *u;

    loom_list_for_each(u, &loom_p2p_engine.match.unexp_all, all_list) {
        if (u->ctx == ctx && u->src == src && ((uint32_t)u->tag & skip_mask) != skip_val) {
            return loom_p2p_probe_int(src, u->tag, comm, which, status);
        }
    }
    return 0;
}

/* ---- arriving frames --------------------------------------------------------------- */

/* The posted receive an arriving message with header @p h matches (its
 * status source and tag filled), or NULL: the message is unexpected. */
static inline loom_request_t loom_p2p_match_arrival(const loom_p2p_hdr_t *h)
{
    loom_match_posted_t *p = loom_match_posted_take(&loom_p2p_engine.match, h->ctx, h->src,
                                                    h->tag);
    loom_request_t req;

    if (p == NULL) {
        return NULL;
    }
    req = loom_p2p_req_from_posted(p);
    req->msg.source = h->src;
    req->msg.tag    = h->tag;
    return req;
}

static loom_p2p_unexp_t *loom_p2p_unexp_alloc(size_t data_len)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_p2p_unexp_t *ux;
    uint8_t pool;

    if (data_len <= LOOM_P2P_UNEXP_SMALL) {
        pool = LOOM_P2P_UNEXP_POOL_SMALL;
        ux = loom_mpool_get(&e->unexp_small_pool);
    } else if (data_len <= e->max_eager) {
        pool = LOOM_P2P_UNEXP_POOL_LARGE;
        ux = loom_mpool_get(&e->unexp_large_pool);
    } else {
        /* a peer configured with a larger LOOM_EAGER_LIMIT than ours */
        pool = LOOM_P2P_UNEXP_POOL_MALLOC;
        ux = malloc(sizeof(*ux) + data_len);
    }
    if (ux == NULL) {
        loom_error("p2p", "rank %s: out of memory holding an unexpected message of "
                   "%zu bytes (%zu unexpected messages held)", loom_log_identity(),
                   data_len, e->match.num_unexp);
        loom_abort(1, "out of memory for unexpected messages");
    }
    ux->pool = pool;
    ux->riov = NULL;
    return ux;
}

static void loom_p2p_recv_eager(int world_src, const loom_p2p_hdr_t *h, uint64_t sreq,
                                const void *payload, size_t payload_len)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_request_t req = loom_p2p_match_arrival(h);
    loom_p2p_unexp_t *ux;

    if (loom_likely(req != NULL)) {
        loom_p2p_recv_copy(req, payload, payload_len);
        if (h->type == LOOM_P2P_EAGER_SYNC) {
            loom_p2p_send_ctl(world_src, LOOM_P2P_ACK, sreq);
        }
        return;
    }
    ux = loom_p2p_unexp_alloc(payload_len);
    ux->type      = h->type;
    ux->world_src = world_src;
    ux->len       = payload_len;
    ux->sreq      = sreq;
    if (payload_len != 0) {
        memcpy(ux->data, payload, payload_len);
    }
    loom_match_unexp_add(&e->match, &ux->m, h->ctx, h->src, h->tag);
    if (loom_unlikely(e->finalizing) && h->type == LOOM_P2P_EAGER_SYNC) {
        loom_p2p_nak_unexp(ux);   /* no receive will be posted any more */
    }
}

/* an RTS, with the pieces of a typed send that did not pack (@p payload), or
 * the news of one packed while read (LOOM_P2P_RTS_PIPE) or not packed at all
 * because it comes from this process (LOOM_P2P_RTS_SELF) */
static void loom_p2p_recv_rts(int world_src, const loom_p2p_hdr_rts_t *h,
                              const void *payload, size_t len)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_p2p_peer_t *peer = &e->peers[world_src];
    loom_request_t req = loom_p2p_match_arrival(&h->base);
    struct loom_p2p_riov *riov = NULL;
    loom_p2p_unexp_t *ux;

    if (loom_unlikely(h->base.reserved[0] &
                      (LOOM_P2P_RTS_RIOV | LOOM_P2P_RTS_PIPE | LOOM_P2P_RTS_SELF))) {
        riov = loom_p2p_riov_take(world_src, h, payload, len);
    }
    if (req != NULL) {
        loom_p2p_rndv_start(req, world_src, h->base.len, h->sreq, h->raddr, &h->rkey,
                            h->pushed, NULL, riov);
        return;
    }
    /* unexpected rendezvous: the header, and the pushed bytes when they come */
    ux = loom_p2p_unexp_alloc(h->pushed);
    ux->type      = LOOM_P2P_RTS;
    ux->world_src = world_src;
    ux->len       = h->base.len;
    ux->sreq      = h->sreq;
    ux->raddr     = h->raddr;
    ux->rkey      = h->rkey;
    ux->pushed    = h->pushed;
    ux->push_have = 0;
    ux->riov      = riov;
    if (h->pushed != 0) {
        peer->push_ux = ux;
    }
    loom_match_unexp_add(&e->match, &ux->m, h->base.ctx, h->base.src, h->base.tag);
    if (loom_unlikely(e->finalizing)) {
        loom_p2p_nak_unexp(ux);   /* no receive will be posted any more */
    }
}

/* the send request an ACK/FIN names, checked against what it must be */
static loom_request_t loom_p2p_ctl_req(int world_src, const loom_p2p_hdr_ctl_t *h)
{
    loom_request_t req = loom_p2p_sreq_find(h->sreq);
    unsigned want = h->type == LOOM_P2P_FIN ? LOOM_REQ_FLAG_RNDV : 0;

    /* a live id, but from another peer or for the other protocol, is no reply */
    if (req != NULL && loom_p2p_req(req)->peer == world_src &&
        (req->flags & LOOM_REQ_FLAG_RNDV) == want) {
        return loom_p2p_sreq_take(h->sreq);
    }
    loom_error("p2p", "rank %s: %s from rank %d (%s) names no waiting %s (id 0x%llx); "
               "dropped", loom_log_identity(), h->type == LOOM_P2P_ACK ? "ACK" : "FIN",
               world_src, loom_p2p_peer_host(world_src),
               h->type == LOOM_P2P_ACK ? "ssend" : "rendezvous send",
               (unsigned long long)h->sreq);
    return NULL;
}

static void loom_p2p_recv_ctl(int world_src, const loom_p2p_hdr_ctl_t *h)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_request_t req;

    switch (h->type) {
    case LOOM_P2P_ACK:
    case LOOM_P2P_FIN:
        req = loom_p2p_ctl_req(world_src, h);
        if (req == NULL) {
            break;
        }
        loom_list_del(&req->list);
        if (h->type == LOOM_P2P_FIN) {
            if ((req->flags & LOOM_REQ_FLAG_PUSHED) &&
                !loom_list_is_empty(&e->peers[world_src].pending)) {
                /* cannot happen with a correct peer (it FINs after the data
                 * came); the user's buffer is the user's again in any case */
                loom_p2p_pending_release_push(&e->peers[world_src], h->sreq, 1);
            }
            loom_p2p_send_rndv_release(&e->peers[world_src], loom_p2p_req(req));
        }
        loom_request_complete(req, LOOM_OK);
        break;
    case LOOM_P2P_NAK:
        loom_p2p_recv_nak(world_src, h->sreq);
        break;
    case LOOM_P2P_CANCEL:
        loom_p2p_recv_cancel_frame(world_src, h->sreq);
        break;
    default: /* BYE */
        if (!e->peers[world_src].bye) {
            e->peers[world_src].bye = 1;
            ++e->byes_received;
        }
        break;
    }
}

static void loom_p2p_bad_frame(int world_src, unsigned type, size_t len)
{
    loom_error("p2p", "rank %s: malformed frame (type %u, %zu bytes) from rank %d (%s); "
               "dropped", loom_log_identity(), type, len, world_src,
               loom_p2p_peer_host(world_src));
}

/* the payload bytes an RTS must carry; SIZE_MAX where its flags are not valid */
static size_t loom_p2p_rts_payload(const loom_p2p_hdr_rts_t *h)
{
    uint8_t f = h->base.reserved[0];

    if (f == 0) {
        return 0;
    }
    if (f == LOOM_P2P_RTS_PIPE) {   /* the bytes ready when it left: within the message */
        return h->pushed == 0 && h->rsvd <= h->base.len ? 0 : SIZE_MAX;
    }
    if (f == LOOM_P2P_RTS_SELF) {   /* whose sender loom_p2p_self_take checks */
        return h->pushed == 0 && h->rsvd == 0 ? 0 : SIZE_MAX;
    }
    /* pieces hold 64 bytes or more on average (caps.riov_min_piece): at most
     * one per 16 bytes of the message keeps the copy within its size */
    if (f & ~(LOOM_P2P_RTS_RIOV | LOOM_P2P_RTS_RIOV_REMOTE) || !(f & LOOM_P2P_RTS_RIOV) ||
        h->pushed != 0 || h->rsvd == 0 || h->rsvd > h->base.len / sizeof(struct iovec)) {
        return SIZE_MAX;
    }
    return (f & LOOM_P2P_RTS_RIOV_REMOTE) ? sizeof(loom_tl_rkey_t)
                                          : (size_t)h->rsvd * sizeof(struct iovec);
}

static __attribute__((noinline)) void loom_p2p_am_handler_all(int src, const void *data,
                                                               size_t len)
{
    uint8_t type = len > 0 ? *(const uint8_t *)data : 0;
    const loom_p2p_peer_t *peer = &loom_p2p_engine.peers[src];
    union {
        loom_p2p_hdr_t      base;
        loom_p2p_hdr_sync_t sync;
        loom_p2p_hdr_rts_t  rts;
        loom_p2p_hdr_ctl_t  ctl;
    } h;

    if (loom_unlikely(loom_p2p_push_announced(peer)) && type != LOOM_P2P_RNDV_DATA) {
        loom_p2p_push_lost(src);   /* the announced RNDV_DATA must come next */
    }
    switch (type) {
    case LOOM_P2P_EAGER:
        if (loom_unlikely(len < sizeof(h.base))) {
            break;
        }
        memcpy(&h.base, data, sizeof(h.base));
        loom_p2p_recv_eager(src, &h.base, 0, (const char *)data + sizeof(h.base),
                            len - sizeof(h.base));
        return;
    case LOOM_P2P_EAGER_SYNC:
        if (loom_unlikely(len < sizeof(h.sync))) {
            break;
        }
        memcpy(&h.sync, data, sizeof(h.sync));
        loom_p2p_recv_eager(src, &h.sync.base, h.sync.sreq,
                            (const char *)data + sizeof(h.sync), len - sizeof(h.sync));
        return;
    case LOOM_P2P_RTS:
        if (loom_unlikely(len < sizeof(h.rts))) {
            break;
        }
        memcpy(&h.rts, data, sizeof(h.rts));
        if (loom_unlikely(len - sizeof(h.rts) != loom_p2p_rts_payload(&h.rts))) {
            break;   /* the pieces of an unpacked typed send, or nothing */
        }
        if (loom_unlikely(h.rts.pushed != 0 &&
                          (h.rts.pushed >= h.rts.base.len ||
                           h.rts.pushed > loom_p2p_engine.peers[src].ep->iface->caps.max_am -
                                          sizeof(loom_p2p_hdr_ctl_t)))) {
            break;   /* a pushed part is a strict prefix, in one frame */
        }
        loom_p2p_recv_rts(src, &h.rts, (const char *)data + sizeof(h.rts),
                          len - sizeof(h.rts));
        return;
    case LOOM_P2P_ACK:
    case LOOM_P2P_FIN:
    case LOOM_P2P_BYE:
    case LOOM_P2P_NAK:
    case LOOM_P2P_CANCEL:
        if (loom_unlikely(len != sizeof(h.ctl))) {
            break;
        }
        memcpy(&h.ctl, data, sizeof(h.ctl));
        loom_p2p_recv_ctl(src, &h.ctl);
        return;
    case LOOM_P2P_RNDV_DATA:
        if (loom_unlikely(len < sizeof(h.ctl))) {
            break;
        }
        memcpy(&h.ctl, data, sizeof(h.ctl));
        loom_p2p_recv_rndv_data(src, h.ctl.sreq, (const char *)data + sizeof(h.ctl),
                                len - sizeof(h.ctl));
        return;
    case LOOM_P2P_AM:
        loom_p2p_am_dispatch(src, data, len);   /* a layer's frame: never matched */
        return;
    default:
        break;
    }
    loom_p2p_bad_frame(src, type, len);
}

/*
 * The transports' am callback. The latency path, an EAGER frame that a
 * posted receive takes, is handled here without a call; every other frame
 * (and an EAGER that is unexpected) goes through loom_p2p_am_handler_all.
 */
void loom_p2p_am_handler(void *arg, int src, const void *data, size_t len)
{
    loom_p2p_hdr_t h;
    loom_request_t req;

    (void)arg;
    /* (an announced RNDV_DATA must come next: anything else goes the long way) */
    if (loom_likely(len >= sizeof(h) && *(const uint8_t *)data == LOOM_P2P_EAGER) &&
        loom_likely(!loom_p2p_push_announced(&loom_p2p_engine.peers[src]))) {
        memcpy(&h, data, sizeof(h));
        req = loom_p2p_match_arrival(&h);
        if (loom_likely(req != NULL)) {
            loom_p2p_recv_copy(req, (const char *)data + sizeof(h), len - sizeof(h));
            return;
        }
    }
    loom_p2p_am_handler_all(src, data, len);
}

/*
 * A transport offers a frame whose payload is still arriving: an EAGER or
 * EAGER_SYNC that a posted receive matches now (this is its arrival: the
 * peer's frames stay in order) is taken, and the rest of its payload goes
 * straight into the receive buffer; so does the RNDV_DATA a matched
 * rendezvous receive waits for. Anything else is declined and comes whole
 * through loom_p2p_am_handler, which also judges a malformed frame.
 */
int loom_p2p_am_place(void *arg, int src, const void *head, size_t have, size_t len,
                      loom_tl_place_t *place)
{
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[src];
    uint8_t type = *(const uint8_t *)head;
    loom_p2p_hdr_sync_t h = { .sreq = 0 };
    size_t hlen = type == LOOM_P2P_EAGER ? sizeof(h.base) : sizeof(h);
    loom_request_t req;
    loom_p2p_req_t *rq;

    (void)arg;
    if (type == LOOM_P2P_RNDV_DATA) {
        return loom_p2p_rndv_place(src, head, have, len, place);
    }
    if ((type != LOOM_P2P_EAGER && type != LOOM_P2P_EAGER_SYNC) || have < hlen ||
        loom_p2p_push_announced(peer)) {
        return 0;
    }
    memcpy(&h, head, hlen);
    req = loom_p2p_match_arrival(&h.base);
    if (req == NULL) {
        return 0;   /* unexpected: kept whole, as any eager message */
    }
    rq = loom_p2p_req(req);
    req->msg.bytes = LOOM_MIN(len - hlen, rq->len);
    rq->peer    = src;
    rq->msg_len = len - hlen;
    rq->sreq    = h.sreq;
    if (rq->dt != NULL) {
        /* a typed receive: the bytes land in a bounce buffer, unpacked at the end */
        rq->tmp = loom_p2p_tmp_alloc(req->msg.bytes != 0 ? req->msg.bytes : 1);
        if (rq->tmp == NULL) {
            loom_abort(1, "out of memory for a typed receive's bounce buffer");
        }
    }
    loom_p2p_place_into(rq->dt != NULL ? rq->tmp : rq->buf, req->msg.bytes,
                        (const char *)head + hlen, have - hlen, place);
    peer->place_req  = req;
    peer->place_type = type;
    return 1;
}

void loom_p2p_am_place_done(void *arg, int src, loom_status_t status)
{
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[src];
    loom_request_t req = peer->place_req;
    loom_p2p_req_t *rq;

    (void)arg;
    if (req == NULL) {
        return;   /* already failed with its peer */
    }
    peer->place_req = NULL;
    if (peer->place_type == LOOM_P2P_RNDV_DATA) {
        loom_p2p_rndv_placed(req, status);
        return;
    }
    rq = loom_p2p_req(req);
    if (status != LOOM_OK) {
        loom_p2p_recv_complete(req, status);
        return;
    }
    if (peer->place_type == LOOM_P2P_EAGER_SYNC) {
        loom_p2p_send_ctl(src, LOOM_P2P_ACK, rq->sreq);
    }
    if (rq->dt != NULL) {
        loom_p2p_recv_unpack(req, rq->tmp, rq->msg_len);
        return;
    }
    loom_p2p_recv_eager_done(req, rq->msg_len);
}
