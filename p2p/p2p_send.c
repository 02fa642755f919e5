/*
 * p2p_send.c: sends: the start of a send (eager or rendezvous), and
 * retrying what back-pressure queued (see p2p_proto_int.h for the frames
 * and docs/p2p.md for the design).
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
 * Back-pressure: a frame the transport refuses (LOOM_ERR_NO_RESOURCE) goes
 * to its peer's queue (p2p_frame.c); progress retries the queues here
 * (after polling the transports, so incoming frames always drain and two
 * ranks sending to each other cannot deadlock), and the gets of receives
 * that met back-pressure.
 *
 * In the p2p stack (docs/p2p.md) it sits above the frames out, the
 * rendezvous and the send ids (p2p_sreq.c), and below progress, peer
 * failure and the API. The receive side (p2p_recv.c) is its sibling: the
 * two never call each other, frames go through the transports.
 */
#include "p2p_engine_int.h"
#include "log_int.h"

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
        loom_p2p_send_rndv_release(&loom_p2p_engine.peers[rq->peer], rq);
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
        size_t offset = loom_p2p_req(req)->offset;

        loom_list_del(&req->list);
        loom_p2p_rndv_get_next(req);
        /* a read that waits again where it was (a pipelined sender still
         * packing) is no work: an oversubscribed waiter then yields to it */
        n += !(e->get_retry.prev == &req->list && loom_p2p_req(req)->offset == offset);
    }
    return n;
}

/* ---- starting sends --------------------------------------------------------------- */

/*
 * The part of every send's start before the protocol: the peer (NULL, and
 * *st_p, if it failed earlier), the request's fields and the header.
 */
static inline __attribute__((always_inline)) loom_p2p_peer_t *
loom_p2p_send_prep(loom_request_t req, const void *buf, size_t bytes, int dest, int tag,
                   loom_comm_t comm, uint32_t which, unsigned flags, loom_p2p_hdr_sync_t *h,
                   loom_status_t *st_p)
{
    int wr = loom_comm_peer_world(comm, dest);
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[wr];
    loom_p2p_req_t *rq;

    if (loom_unlikely(peer->failed != LOOM_OK)) {
        loom_error("p2p", "send to rank %d (%s): the peer failed earlier", wr,
                   loom_p2p_peer_host(wr));
        *st_p = peer->failed;
        return NULL;
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
    h->base = (loom_p2p_hdr_t){ .type = LOOM_P2P_EAGER, .ctx = loom_comm_ctx(comm, which),
                                .src = comm->rank, .tag = tag, .len = bytes };
    ++loom_p2p_engine.sends_active;
    return peer;
}

/* The part after the protocol started (@p st): undo the count, or wait for ACK/FIN. */
static inline __attribute__((always_inline)) loom_status_t
loom_p2p_send_started(loom_request_t req, loom_p2p_peer_t *peer, loom_status_t st)
{
    if (loom_unlikely(st < 0)) {
        --loom_p2p_engine.sends_active;
        return st;
    }
    if (req->flags & LOOM_REQ_FLAG_SYNC) {
        /* waits for the peer's ACK/FIN: failed with the peer if it dies */
        loom_list_add_tail(&peer->awaiting, &req->list);
    }
    return LOOM_OK;
}

/*
 * Start a send on an allocated request. Inlined into loom_p2p_isend_int (the
 * isend path pays no call for it); loom_p2p_isend_start is the out-of-line
 * copy persistent requests start with.
 */
static inline __attribute__((always_inline)) loom_status_t
loom_p2p_isend_begin(loom_request_t req, const void *buf, size_t bytes, int dest, int tag,
                     loom_comm_t comm, uint32_t which, unsigned flags)
{
    loom_p2p_hdr_sync_t h;
    loom_status_t st = LOOM_OK;
    loom_p2p_peer_t *peer = loom_p2p_send_prep(req, buf, bytes, dest, tag, comm, which,
                                               flags, &h, &st);
    loom_p2p_req_t *rq = loom_p2p_req(req);

    if (loom_unlikely(peer == NULL)) {
        return st;
    }
    if (bytes > peer->eager_limit) {
        rq->tmp = NULL;
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
    return loom_p2p_send_started(req, peer, st);
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

/* ---- typed sends (non-contiguous datatypes) ------------------------------------- */

/* An eager typed send: EAGER (complete once handed over) or EAGER_SYNC (on ACK). */
static loom_status_t loom_p2p_isend_dt_eager(loom_request_t req, loom_p2p_peer_t *peer,
                                             loom_p2p_hdr_sync_t *h, loom_dt_cursor_t *cur,
                                             unsigned flags)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_status_t st;

    if (!(flags & LOOM_P2P_FLAG_SYNC)) {
        st = loom_p2p_frame_send_dt(peer, &h->base, sizeof(h->base), cur, rq->len, req, 1);
        if (st == LOOM_OK) {
            loom_request_complete(req, LOOM_OK);
        }
        return st;
    }
    h->base.type = LOOM_P2P_EAGER_SYNC;
    st = loom_p2p_sreq_register(req, &rq->sreq);
    if (st != LOOM_OK) {
        return st;
    }
    h->sreq = rq->sreq;
    req->flags |= LOOM_REQ_FLAG_SYNC;
    st = loom_p2p_frame_send_dt(peer, h, sizeof(*h), cur, rq->len, req, 0);
    if (st < 0) {
        loom_p2p_sreq_take(rq->sreq);
    }
    return st;
}

/*
 * A typed rendezvous send: not packed where the transport reads scattered
 * on both sides and the pieces are large (loom_p2p_isend_dt_riov), else
 * packed once into a copy that is exposed in place of the buffer (rq->tmp,
 * freed when the region is released). The receiver reads it as it reads
 * any rendezvous, scattering into its own type.
 */
static loom_status_t loom_p2p_isend_dt_rndv(loom_request_t req, loom_p2p_peer_t *peer,
                                            const loom_p2p_hdr_t *base, const void *buf,
                                            size_t count, loom_dt_t *dt)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_status_t st;

    st = loom_p2p_isend_dt_self(req, peer, base, buf, count, dt);
    if (st != LOOM_ERR_UNSUPPORTED) {
        return st;   /* to this process, small pieces: the receive copies from our layout */
    }
    st = loom_p2p_isend_dt_riov(req, peer, base, buf, count, dt);
    if (st != LOOM_ERR_UNSUPPORTED) {
        return st;   /* not packed: the receiver reads the pieces (p2p_rndv.c) */
    }
    st = loom_p2p_isend_dt_pipe(req, peer, base, buf, count, dt);
    if (st != LOOM_ERR_UNSUPPORTED) {
        return st;   /* packed in steps the receiver reads as they are ready */
    }
    st = loom_p2p_isend_dt_fill(req, peer, base, buf, count, dt);
    if (st != LOOM_ERR_UNSUPPORTED) {
        return st;   /* packed chunk by chunk as the transport sends it */
    }
    rq->tmp = loom_p2p_tmp_alloc(rq->len);
    if (rq->tmp == NULL) {
        loom_error("p2p", "send of %zu bytes to rank %d: out of memory packing a "
                   "non-contiguous datatype", rq->len, rq->peer);
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_dt_pack_range(buf, count, dt, 0, rq->len, rq->tmp);
    if (st == LOOM_OK) {
        rq->buf = rq->tmp;
        st = loom_p2p_isend_rndv(req, peer, base);
    }
    if (st < 0) {
        loom_p2p_tmp_free(rq->tmp);   /* (a release on the way already freed it: NULL) */
        rq->tmp = NULL;
    }
    return st;
}

loom_status_t loom_p2p_isend_dt_start(loom_request_t req, const void *buf, size_t count,
                                      loom_dt_t *dt, int dest, int tag, loom_comm_t comm,
                                      uint32_t which, unsigned flags)
{
    size_t bytes = count * loom_dt_size(dt);
    loom_p2p_hdr_sync_t h;
    loom_dt_cursor_t cur;
    loom_status_t st = LOOM_OK;
    loom_p2p_peer_t *peer = loom_p2p_send_prep(req, buf, bytes, dest, tag, comm, which,
                                               flags, &h, &st);

    if (peer == NULL) {
        return st;
    }
    loom_p2p_req(req)->tmp   = NULL;
    loom_p2p_req(req)->count = 0;   /* tmp, if any, is a packed copy (until riov says) */
    if (bytes > peer->eager_limit) {
        st = loom_p2p_isend_dt_rndv(req, peer, &h.base, buf, count, dt);
    } else if ((st = loom_dt_cursor_borrow(&cur, buf, count, dt)) == LOOM_OK) {
        /* packed (or copied into a queued frame) before this call returns,
         * while the caller holds dt: the cursor needs no reference */
        st = loom_p2p_isend_dt_eager(req, peer, &h, &cur, flags);
        loom_dt_cursor_fini(&cur);
    }
    return loom_p2p_send_started(req, peer, st);
}
