/*
 * p2p_proto.c: the point-to-point protocols (see p2p_proto_int.h for the
 * frames and docs/p2p.md for the design).
 *
 *   send <= eager limit   EAGER frame (header + payload); the send completes
 *                         as soon as the transport took it. ssend: EAGER_SYNC,
 *                         completes on the receiver's ACK.
 *   send >  eager limit   rendezvous (p2p_rndv.c): RTS, the receiver get()s
 *                         into the user buffer once matched and sends FIN;
 *                         the send completes on FIN (so a rendezvous send is
 *                         synchronous, as MPI allows). On TCP the first bytes
 *                         follow the RTS in a RNDV_DATA frame.
 *
 * This file: the engine's pools, the start of sends and receives, frames
 * in (matching, the unexpected queue, the am handler), and retrying what
 * back-pressure queued. In the p2p stack (docs/p2p.md) it sits above the
 * frames out (p2p_frame.c), the rendezvous and the NAK/CANCEL frames,
 * which it calls, and below progress, peer failure and the API.
 *
 * Back-pressure: a frame the transport refuses (LOOM_ERR_NO_RESOURCE) goes
 * to its peer's queue (p2p_frame.c); progress retries the queues here
 * (after polling the transports, so incoming frames always drain and two
 * ranks sending to each other cannot deadlock).
 */
#include "p2p_engine_int.h"
#include "log_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- setup -------------------------------------------------------------------- */

loom_status_t loom_p2p_engine_setup(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    size_t large = sizeof(loom_p2p_unexp_t) + LOOM_MAX(e->max_eager, LOOM_P2P_UNEXP_SMALL);
    loom_status_t st;

    loom_match_init(&e->match);
    loom_list_init(&e->pending_peers);
    loom_list_init(&e->get_retry);
    loom_list_init(&e->generic_active);
    loom_list_init(&e->recv_reading);
    loom_list_init(&e->probed);
    e->sends_active  = 0;
    e->byes_received = 0;
    e->finalizing    = 0;
    st = loom_mpool_init(&e->req_pool, "requests", sizeof(struct loom_request), 128, 0);
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_mpool_init(&e->pending_pool, "queued frames", sizeof(loom_p2p_pending_t),
                         64, 0);
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_mpool_init(&e->unexp_small_pool, "unexpected (small)",
                         sizeof(loom_p2p_unexp_t) + LOOM_P2P_UNEXP_SMALL, 128, 0);
    if (st != LOOM_OK) {
        return st;
    }
    return loom_mpool_init(&e->unexp_large_pool, "unexpected (eager)", large, 16, 0);
}

/* messages taken by a matched probe and never received: warn, free them and
 * their handles (finalize NAKed the synchronous ones already) */
static void loom_p2p_probed_free_all(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    struct loom_message *msg, *tmp;
    size_t left = loom_list_length(&e->probed);

    if (left != 0) {
        loom_warn("p2p", "finalize: %zu messages taken by a matched probe (loom_mprobe/"
                  "loom_improbe) were never received", left);
    }
    loom_list_for_each_safe(msg, tmp, &e->probed, list) {
        loom_list_del(&msg->list);
        loom_p2p_unexp_free(msg->ux);
        free(msg);
    }
}

void loom_p2p_engine_teardown(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_match_unexp_t *u, *tmp;
    size_t left = e->match.num_unexp;

    if (left != 0) {
        loom_warn("p2p", "finalize: %zu unexpected messages were never received", left);
    }
    loom_list_for_each_safe(u, tmp, &e->match.unexp_all, all_list) {
        loom_match_unexp_remove(&e->match, u);
        loom_p2p_unexp_free(loom_container_of(u, loom_p2p_unexp_t, m));
    }
    loom_p2p_probed_free_all();
    loom_p2p_sreq_cleanup();
    loom_mpool_cleanup(&e->unexp_large_pool);
    loom_mpool_cleanup(&e->unexp_small_pool);
    loom_mpool_cleanup(&e->pending_pool);
    loom_mpool_cleanup(&e->req_pool);
}

/* ---- failing a send, draining queued frames -------------------------------------- */

void loom_p2p_send_req_fail(loom_request_t req, loom_status_t st)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);

    loom_list_del(&req->list);  /* from its peer's awaiting list, if there */
    if (req->complete) {
        return;
    }
    if (req->flags & LOOM_REQ_FLAG_PUSHED) {
        /* its RNDV_DATA may still be queued, reading the user's buffer */
        loom_p2p_pending_release_push(&loom_p2p_engine.peers[rq->peer], rq->sreq, 0);
    }
    if (req->flags & LOOM_REQ_FLAG_SYNC) {
        loom_p2p_sreq_take(rq->sreq);   /* a late ACK/FIN is then reported */
    }
    if (req->flags & LOOM_REQ_FLAG_RNDV) {
        loom_tl_mem_release(loom_p2p_engine.peers[rq->peer].ep->iface, rq->memh);
    }
    loom_request_complete(req, st);
}

/* send what a peer has queued, in order, until the transport pushes back */
static int loom_p2p_peer_drain(loom_p2p_peer_t *peer)
{
    loom_p2p_pending_t *item;
    int n = 0;

    while (!loom_list_is_empty(&peer->pending)) {
        loom_status_t st;

        item = loom_list_head_entry(&peer->pending, loom_p2p_pending_t, list);
        st = loom_tl_ep_am_send(peer->ep, item->hdr, item->hdr_len, item->payload,
                                item->payload_len);
        if (st == LOOM_ERR_NO_RESOURCE) {
            break;
        }
        loom_list_del(&item->list);
        if (st != LOOM_OK) {
            loom_p2p_send_failed(peer, st, item->hdr);
            if (item->req != NULL) {
                loom_p2p_send_req_fail(item->req, st);
            }
        } else if (item->req != NULL && item->complete_on_send) {
            loom_request_complete(item->req, LOOM_OK);
        }
        loom_p2p_pending_free(item);
        ++n;
    }
    loom_p2p_pending_unlink_idle(peer);
    return n;
}

int loom_p2p_pending_progress(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_p2p_peer_t *peer, *tmp;
    loom_list_t retry;
    int n = 0;

    loom_list_for_each_safe(peer, tmp, &e->pending_peers, pending_link) {
        n += loom_p2p_peer_drain(peer);
    }
    if (loom_list_is_empty(&e->get_retry)) {
        return n;
    }
    /* move the list aside: a get refused again re-queues itself */
    retry.next       = e->get_retry.next;
    retry.prev       = e->get_retry.prev;
    retry.next->prev = &retry;
    retry.prev->next = &retry;
    loom_list_init(&e->get_retry);
    while (!loom_list_is_empty(&retry)) {
        loom_request_t req = loom_list_head_entry(&retry, struct loom_request, list);
        loom_list_del(&req->list);
        loom_p2p_rndv_get_next(req);
        ++n;
    }
    return n;
}

/* ---- starting sends and receives ------------------------------------------------- */

/*
 * Start a send on an allocated request. Inlined into loom_p2p_isend_int (the
 * isend path pays no call for it); loom_p2p_isend_start is the out-of-line
 * copy persistent requests start with.
 */
static inline __attribute__((always_inline)) loom_status_t
loom_p2p_isend_begin(loom_request_t req, const void *buf, size_t bytes, int dest, int tag,
                     loom_comm_t comm, uint32_t which, unsigned flags)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    int wr = loom_comm_peer_world(comm, dest);
    loom_p2p_peer_t *peer = &e->peers[wr];
    loom_p2p_hdr_sync_t h;
    loom_p2p_req_t *rq;
    loom_status_t st;

    if (loom_unlikely(peer->failed != LOOM_OK)) {
        loom_error("p2p", "send to rank %d (%s): the peer failed earlier", wr,
                   loom_p2p_peer_host(wr));
        return peer->failed;
    }
    rq = loom_p2p_req(req);
    rq->buf  = (void *)buf;
    rq->len  = bytes;
    rq->peer = wr;
    req->msg.source = dest;
    req->msg.tag    = tag;
    req->msg.bytes  = bytes;
    if (flags & LOOM_P2P_FLAG_SYNC) {
        req->flags |= LOOM_REQ_FLAG_SSEND;
    }
    if (which == LOOM_CTX_COLL) {
        req->flags |= LOOM_REQ_FLAG_COLL;
    }
    h.base = (loom_p2p_hdr_t){ .type = LOOM_P2P_EAGER, .ctx = loom_comm_ctx(comm, which),
                               .src = comm->rank, .tag = tag, .len = bytes };
    ++e->sends_active;
    if (bytes > peer->eager_limit) {
        st = loom_p2p_isend_rndv(req, peer, &h.base);
    } else if (flags & LOOM_P2P_FLAG_SYNC) {
        h.base.type = LOOM_P2P_EAGER_SYNC;
        st = loom_p2p_sreq_register(req, &rq->sreq);
        if (st == LOOM_OK) {
            h.sreq = rq->sreq;
            req->flags |= LOOM_REQ_FLAG_SYNC;
            st = loom_p2p_frame_send(peer, &h, sizeof(h), buf, bytes, req, 0);
            if (st < 0) {
                loom_p2p_sreq_take(rq->sreq);
            }
        }
    } else {
        st = loom_p2p_frame_send(peer, &h.base, sizeof(h.base), buf, bytes, req, 1);
        if (st == LOOM_OK) {
            loom_request_complete(req, LOOM_OK);
        }
    }
    if (loom_unlikely(st < 0)) {
        --e->sends_active;
        return st;
    }
    if (req->flags & LOOM_REQ_FLAG_SYNC) {
        /* waits for the peer's ACK/FIN: failed with the peer if it dies */
        loom_list_add_tail(&peer->awaiting, &req->list);
    }
    return LOOM_OK;
}

loom_status_t loom_p2p_isend_int(const void *buf, size_t bytes, int dest, int tag,
                                 loom_comm_t comm, uint32_t which, unsigned flags,
                                 loom_request_t *req_p)
{
    loom_request_t req = loom_request_alloc(LOOM_REQ_SEND, comm);
    loom_status_t st;

    if (loom_unlikely(req == NULL)) {
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_p2p_isend_begin(req, buf, bytes, dest, tag, comm, which, flags);
    if (loom_unlikely(st < 0)) {
        loom_request_release(req);
        return st;
    }
    *req_p = req;
    return LOOM_OK;
}

loom_status_t loom_p2p_isend_start(loom_request_t req, const void *buf, size_t bytes,
                                   int dest, int tag, loom_comm_t comm, uint32_t which,
                                   unsigned flags)
{
    return loom_p2p_isend_begin(req, buf, bytes, dest, tag, comm, which, flags);
}

static __attribute__((noinline)) void loom_p2p_recv_truncated(loom_request_t req,
                                                               size_t len)
{
    loom_p2p_log_truncation(req, len);
    loom_request_complete(req, LOOM_ERR_TRUNCATED);
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

/* eager payload into a matched receive; completes it */
static inline void loom_p2p_recv_copy(loom_request_t req, const void *data, size_t len)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    size_t n = len <= rq->len ? len : rq->len;

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
        loom_request_complete(req, failed);
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
                            pushed, ux->push_have ? ux->data : NULL);
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
        loom_request_complete(req, e->peers[loom_comm_peer_world(comm, src)].failed);
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

int loom_p2p_recv_cancel(loom_request_t req)
{
    if (!loom_match_posted_remove(&loom_p2p_engine.match, &loom_p2p_req(req)->posted)) {
        return 0;
    }
    req->msg.cancelled = 1;
    loom_request_complete(req, LOOM_OK);
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

static void loom_p2p_recv_rts(int world_src, const loom_p2p_hdr_rts_t *h)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_p2p_peer_t *peer = &e->peers[world_src];
    loom_request_t req = loom_p2p_match_arrival(&h->base);
    loom_p2p_unexp_t *ux;

    if (req != NULL) {
        loom_p2p_rndv_start(req, world_src, h->base.len, h->sreq, h->raddr, &h->rkey,
                            h->pushed, NULL);
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
            loom_tl_mem_release(e->peers[world_src].ep->iface, loom_p2p_req(req)->memh);
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
        if (loom_unlikely(len != sizeof(h.rts))) {
            break;
        }
        memcpy(&h.rts, data, sizeof(h.rts));
        if (loom_unlikely(h.rts.pushed != 0 &&
                          (h.rts.pushed >= h.rts.base.len ||
                           h.rts.pushed > loom_p2p_engine.peers[src].ep->iface->caps.max_am -
                                          sizeof(loom_p2p_hdr_ctl_t)))) {
            break;   /* a pushed part is a strict prefix, in one frame */
        }
        loom_p2p_recv_rts(src, &h.rts);
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
    loom_p2p_place_into(rq->buf, req->msg.bytes, (const char *)head + hlen, have - hlen,
                        place);
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
        loom_request_complete(req, status);
        return;
    }
    if (peer->place_type == LOOM_P2P_EAGER_SYNC) {
        loom_p2p_send_ctl(src, LOOM_P2P_ACK, rq->sreq);
    }
    loom_p2p_recv_eager_done(req, rq->msg_len);
}
