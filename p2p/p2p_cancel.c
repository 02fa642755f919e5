/*
 * p2p_cancel.c: the NAK and CANCEL frames: a send that ends without its
 * receive (docs/p2p.md "The files as a stack").
 *
 * A NAK tells a sender its synchronous or rendezvous send will never be
 * matched: the receiver finalized with it unexpected (p2p_finalize.c), or
 * dropped it at the sender's CANCEL. Cancelling a send ends the same way:
 * CANCEL asks the receiver, whose NAK (the message was still unmatched)
 * completes the send cancelled; an eager send still in the back-pressure
 * queue is taken out of it locally.
 *
 * In the stack: above the frames and the rendezvous (a cancelled
 * rendezvous send's queued RNDV_DATA is released), below the receive path,
 * whose am handler passes NAK and CANCEL frames here, and below finalize
 * and loom_cancel, which start the exchange.
 */
#include "p2p_engine_int.h"
#include "log_int.h"

void loom_p2p_nak_unexp(loom_p2p_unexp_t *ux)
{
    if (ux->type == LOOM_P2P_RTS || ux->type == LOOM_P2P_EAGER_SYNC) {
        loom_warn("p2p", "rank %s: loom_finalize: the %s of %zu bytes from rank %d (%s) "
                  "with tag %d was never received; telling the sender", loom_log_identity(),
                  ux->type == LOOM_P2P_RTS ? "rendezvous send" : "ssend", ux->len,
                  ux->world_src, loom_p2p_peer_host(ux->world_src), ux->m.tag);
        loom_p2p_send_ctl(ux->world_src, LOOM_P2P_NAK, ux->sreq);
    }
}

/* the receiver dropped send @p req at its CANCEL: it completes cancelled */
static void loom_p2p_send_cancelled(loom_request_t req, int world_src, uint64_t sreq)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;

    loom_list_del(&req->list);   /* from the peer's awaiting list */
    if (req->flags & LOOM_REQ_FLAG_PUSHED) {
        loom_p2p_pending_release_push(&e->peers[world_src], sreq, 1);
    }
    if (req->flags & LOOM_REQ_FLAG_RNDV) {
        loom_p2p_send_rndv_release(&e->peers[world_src], loom_p2p_req(req));
    }
    req->msg.cancelled = 1;
    loom_request_complete(req, LOOM_OK);
}

/* an eager send whose frame still waits in the back-pressure queue: out of it */
static int loom_p2p_send_unqueue(loom_request_t req)
{
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[loom_p2p_req(req)->peer];
    loom_p2p_pending_t *item;

    loom_list_for_each(item, &peer->pending, list) {
        if (item->req == req && item->complete_on_send) {
            loom_list_del(&item->list);
            loom_p2p_pending_free(item);
            loom_p2p_pending_unlink_idle(peer);
            req->msg.cancelled = 1;
            loom_request_complete(req, LOOM_OK);
            return 1;
        }
    }
    return 0;   /* on the wire already: it will be delivered */
}

int loom_p2p_send_cancel(loom_request_t req)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);

    if (!req->complete && !(req->flags & LOOM_REQ_FLAG_SYNC)) {
        return loom_p2p_send_unqueue(req);
    }
    if (req->complete || !(req->flags & LOOM_REQ_FLAG_SYNC) ||
        (req->flags & LOOM_REQ_FLAG_CANCEL) ||
        loom_p2p_engine.peers[rq->peer].failed != LOOM_OK) {
        return 0;
    }
    req->flags |= LOOM_REQ_FLAG_CANCEL;
    loom_p2p_send_ctl(rq->peer, LOOM_P2P_CANCEL, rq->sreq);
    return 1;
}

void loom_p2p_recv_cancel_frame(int world_src, uint64_t sreq)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_match_unexp_t *u;

    loom_list_for_each(u, &e->match.unexp_all, all_list) {
        loom_p2p_unexp_t *ux = loom_container_of(u, loom_p2p_unexp_t, m);

        if (ux->world_src != world_src || ux->sreq != sreq ||
            (ux->type != LOOM_P2P_RTS && ux->type != LOOM_P2P_EAGER_SYNC)) {
            continue;
        }
        /* its pushed bytes still to come would find no home: keep it */
        if (e->peers[world_src].push_ux == ux || e->finalizing) {
            return;
        }
        loom_match_unexp_remove(&e->match, u);
        loom_p2p_unexp_free(ux);
        loom_p2p_send_ctl(world_src, LOOM_P2P_NAK, sreq);
        return;
    }
    /* matched (or probed) already: its ACK/FIN completes the send */
}

void loom_p2p_recv_nak(int world_src, uint64_t sreq)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_request_t req = loom_p2p_sreq_find(sreq);
    loom_p2p_req_t *rq;

    /* only a send to that very peer that still waits for its ACK or FIN */
    if (req == NULL || loom_p2p_req(req)->peer != world_src ||
        !(req->flags & LOOM_REQ_FLAG_SYNC)) {
        loom_error("p2p", "rank %s: NAK from rank %d (%s) names no waiting send (id 0x%llx); "
                   "dropped", loom_log_identity(), world_src, loom_p2p_peer_host(world_src),
                   (unsigned long long)sreq);
        return;
    }
    loom_p2p_sreq_take(sreq);
    rq = loom_p2p_req(req);
    if (req->flags & LOOM_REQ_FLAG_CANCEL) {
        loom_p2p_send_cancelled(req, world_src, sreq);
        return;
    }
    loom_warn("p2p", "rank %s: rank %d (%s) finalized without receiving this rank's %s of "
              "%zu bytes with tag %d (destination %d in its communicator): the send "
              "completes with %s", loom_log_identity(), world_src,
              loom_p2p_peer_host(world_src),
              (req->flags & LOOM_REQ_FLAG_RNDV) ? "rendezvous send" : "ssend", rq->len,
              req->msg.tag, req->msg.source, loom_status_name(LOOM_ERR_CANCELED));
    loom_list_del(&req->list);   /* from the peer's awaiting list */
    if (req->flags & LOOM_REQ_FLAG_PUSHED) {
        /* its RNDV_DATA may still wait in the queue: it goes, from a copy */
        loom_p2p_pending_release_push(&e->peers[world_src], sreq, 1);
    }
    if (req->flags & LOOM_REQ_FLAG_RNDV) {
        loom_p2p_send_rndv_release(&e->peers[world_src], rq);
    }
    loom_request_complete(req, LOOM_ERR_CANCELED);
}
