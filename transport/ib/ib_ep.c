/*
 * ib_ep.c: RC queue pairs per peer: creation, INIT -> RTR -> RTS, eager
 * sends with credits, RDMA READ for rendezvous. Design in ib_int.h.
 */
#include "ib_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- buffers and queue capacity ---------------------------------------------------- */

/* Post @p nbufs more SRQ buffers (a registered chunk) for a new peer. */
loom_status_t loom_tl_ib_rx_add(loom_tl_ib_iface_t *ib, int nbufs)
{
    loom_tl_ib_chunk_t *c;
    struct ibv_recv_wr *bad;
    int i;

    if (ib->srq_posted_target + nbufs > ib->srq_size) {
        loom_error("ib", "rank %d: shared receive queue full (%d of %d buffers): too many "
                   "connected peers for %s", ib->job->rank, ib->srq_posted_target,
                   ib->srq_size, ib->dev_name);
        return LOOM_ERR_NO_RESOURCE;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    c->mem = aligned_alloc(4096, (size_t)nbufs * LOOM_TL_IB_FRAME);
    c->descs = calloc((size_t)nbufs, sizeof(*c->descs));
    if (c->mem == NULL || c->descs == NULL) {
        goto err_free_chunk;
    }
    c->mr = ibv_reg_mr(ib->pd, c->mem, (size_t)nbufs * LOOM_TL_IB_FRAME, IBV_ACCESS_LOCAL_WRITE);
    if (c->mr == NULL) {
        loom_error("ib", "rank %d: registering %d receive buffers failed: %m", ib->job->rank,
                   nbufs);
        goto err_free_chunk;
    }
    for (i = 0; i < nbufs; ++i) {
        loom_tl_ib_buf_t *b = &c->descs[i];
        struct ibv_sge sge;
        struct ibv_recv_wr wr = { .wr_id = (uintptr_t)b, .sg_list = &sge, .num_sge = 1 };
        b->kind = LOOM_TL_IB_RX;
        b->lkey = c->mr->lkey;
        b->data = (uint8_t *)c->mem + (size_t)i * LOOM_TL_IB_FRAME;
        sge = (struct ibv_sge){ (uintptr_t)b->data, LOOM_TL_IB_FRAME, b->lkey };
        if (ibv_post_srq_recv(ib->srq, &wr, &bad) != 0) {
            loom_error("ib", "rank %d: ibv_post_srq_recv failed: %m", ib->job->rank);
            return LOOM_ERR_TRANSPORT;   /* chunk stays listed; freed at close */
        }
    }
    loom_list_add_tail(&ib->rx_chunks, &c->elem);
    ib->srq_posted_target += nbufs;
    return LOOM_OK;

err_free_chunk:
    free(c->mem);
    free(c->descs);
    free(c);
    return LOOM_ERR_NO_MEMORY;
}

/* Make room in the CQ for @p entries more outstanding completions. */
loom_status_t loom_tl_ib_cq_reserve(loom_tl_ib_iface_t *ib, int entries)
{
    int want = ib->cq_need + entries;

    if (want > ib->cq_size) {
        int size = LOOM_MIN(LOOM_MAX(want, 2 * ib->cq_size), ib->dev_attr.max_cqe);
        if (size < want || ibv_resize_cq(ib->cq, size) != 0) {
            loom_error("ib", "rank %d: cannot grow the completion queue to %d entries: %m",
                       ib->job->rank, want);
            return LOOM_ERR_NO_RESOURCE;
        }
        ib->cq_size = ib->cq->cqe;
    }
    ib->cq_need = want;
    return LOOM_OK;
}

/* ---- queue pairs ------------------------------------------------------------------------- */

loom_status_t loom_tl_ib_qp_create(loom_tl_ib_iface_t *ib, struct ibv_qp **qp_p)
{
    struct ibv_qp_init_attr init = {
        .send_cq = ib->cq, .recv_cq = ib->cq, .srq = ib->srq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = LOOM_TL_IB_SQ_DEPTH, .max_send_sge = 3,
                 .max_inline_data = 128 },
    };
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = ib->port,
        /* remote write and atomics: one-sided work of the RMA layer (ib_rma.c) */
        .qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
                           IBV_ACCESS_REMOTE_ATOMIC,
    };
    struct ibv_qp *qp;

    qp = ibv_create_qp(ib->pd, &init);
    if (qp == NULL) {
        init.cap.max_inline_data = 0;
        qp = ibv_create_qp(ib->pd, &init);
    }
    if (qp == NULL) {
        loom_error("ib", "rank %d: ibv_create_qp(RC on %s) failed: %m", ib->job->rank,
                   ib->dev_name);
        return LOOM_ERR_TRANSPORT;
    }
    ib->max_inline = init.cap.max_inline_data;
    if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS) != 0) {
        loom_error("ib", "rank %d: QP 0x%x to INIT failed: %m", ib->job->rank, qp->qp_num);
        ibv_destroy_qp(qp);
        return LOOM_ERR_TRANSPORT;
    }
    *qp_p = qp;
    return LOOM_OK;
}

void loom_tl_ib_ah_attr_fill(const loom_tl_ib_iface_t *ib, const loom_tl_ib_addr_t *a,
                             struct ibv_ah_attr *ah)
{
    memset(ah, 0, sizeof(*ah));
    ah->dlid = a->lid;
    ah->port_num = ib->port;
    if (ib->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET || a->lid == 0) {
        ah->is_global = 1;
        memcpy(ah->grh.dgid.raw, a->gid, 16);
        ah->grh.sgid_index = (uint8_t)ib->gid_index;
        ah->grh.hop_limit = 64;
    }
}

struct ibv_ah *loom_tl_ib_ah_create(loom_tl_ib_iface_t *ib, const loom_tl_ib_addr_t *a)
{
    struct ibv_ah_attr ah;

    loom_tl_ib_ah_attr_fill(ib, a, &ah);
    return ibv_create_ah(ib->pd, &ah);
}

loom_status_t loom_tl_ib_ep_connect(loom_tl_ib_ep_t *ep, uint32_t remote_qpn,
                                    uint32_t remote_psn)
{
    loom_tl_ib_iface_t *ib = ep->ib;
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_RTR,
        .path_mtu = (enum ibv_mtu)LOOM_MIN(ep->peer_addr.mtu, ib->my_addr.mtu),
        .dest_qp_num = remote_qpn, .rq_psn = remote_psn,
        .max_dest_rd_atomic = (uint8_t)LOOM_MIN(LOOM_TL_IB_MAX_READS,
                                                ib->dev_attr.max_qp_rd_atom),
        .min_rnr_timer = 12,
    };
    char why[96];

    loom_tl_ib_ah_attr_fill(ib, &ep->peer_addr, &attr.ah_attr);
    if (ibv_modify_qp(ep->qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                      IBV_QP_MIN_RNR_TIMER) != 0) {
        snprintf(why, sizeof(why), "to RTR (remote QP 0x%x): %s", remote_qpn, strerror(errno));
        goto err_fail;
    }
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = ib->my_addr.psn;
    attr.timeout = 15;         /* 4.096 us * 2^15 = 134 ms per try, ~1 s to declare a peer dead */
    attr.retry_cnt = 7;
    attr.rnr_retry = 0;        /* credits make RNR impossible: make a bug loud */
    attr.max_rd_atomic = (uint8_t)LOOM_MIN(LOOM_TL_IB_MAX_READS, ib->dev_attr.max_qp_rd_atom);
    if (ibv_modify_qp(ep->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
                      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
        snprintf(why, sizeof(why), "to RTS: %s", strerror(errno));
        goto err_fail;
    }
    ep->remote_qpn = remote_qpn;
    ep->state = LOOM_TL_IB_EP_CONNECTED;
    ep->credits = LOOM_TL_IB_CREDITS;
    ep->ctl_credits = LOOM_TL_IB_CTL_CREDITS;
    loom_debug("ib", "rank %d: QP 0x%x connected to rank %d QP 0x%x", ib->job->rank,
               ep->qp->qp_num, ep->super.peer, remote_qpn);
    return LOOM_OK;

err_fail:
    loom_tl_ib_ep_fail(ep, LOOM_ERR_CONNECTION, "connection", why);
    return LOOM_ERR_CONNECTION;
}

/* Read the peer's modex blob (header kept; our QPN in its table returned). */
loom_status_t loom_tl_ib_ep_read_peer(loom_tl_ib_ep_t *ep, uint32_t *rc_qpn_p)
{
    loom_tl_ib_iface_t *ib = ep->ib;
    size_t len = sizeof(loom_tl_ib_addr_t) + (size_t)ib->job->size * sizeof(uint32_t);
    loom_tl_ib_addr_t *a = malloc(len);
    loom_status_t status;

    if (a == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    status = loom_bootstrap_get(ep->super.peer, "ib.addr", a, &len);
    if (status == LOOM_OK && (len < sizeof(*a) || a->magic != LOOM_TL_IB_ADDR_MAGIC ||
                              a->link_layer != ib->my_addr.link_layer)) {
        loom_debug("ib", "rank %d: rank %d's ib address is unusable here", ib->job->rank,
                   ep->super.peer);
        status = LOOM_ERR_UNREACHABLE;
    }
    if (status == LOOM_OK) {
        ep->peer_addr = *a;
        ep->peer_known = 1;
        if (rc_qpn_p != NULL) {
            *rc_qpn_p = a->num_rc > (uint32_t)ib->job->rank ? a->rc_qpn[ib->job->rank] : 0;
        }
    }
    free(a);
    return status;
}

/* Give @p ep its QP (INIT) and post receive buffers for the peer. */
loom_status_t loom_tl_ib_ep_qp_init(loom_tl_ib_ep_t *ep)
{
    loom_tl_ib_iface_t *ib = ep->ib;
    loom_status_t status;

    status = loom_tl_ib_cq_reserve(ib, LOOM_TL_IB_SQ_DEPTH + LOOM_TL_IB_PEER_RX);
    if (status == LOOM_OK) {
        status = loom_tl_ib_rx_add(ib, LOOM_TL_IB_PEER_RX);
    }
    if (status == LOOM_OK) {
        status = loom_tl_ib_qp_create(ib, &ep->qp);
    }
    if (status == LOOM_OK) {
        ep->state = LOOM_TL_IB_EP_INIT;
    }
    return status;
}

/* The endpoint for @p peer; in on-demand mode it gets no QP until used. */
loom_status_t loom_tl_ib_ep_get_or_create(loom_tl_ib_iface_t *ib, int peer,
                                          loom_tl_ib_ep_t **ep_p)
{
    loom_tl_ib_ep_t *ep = ib->eps[peer];
    loom_status_t status = LOOM_OK;

    if (ep != NULL) {
        *ep_p = ep;
        return LOOM_OK;
    }
    ep = calloc(1, sizeof(*ep));
    if (ep == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    ep->super.iface = &ib->super;
    ep->super.peer = peer;
    ep->ib = ib;
    ep->sq_avail = LOOM_TL_IB_SQ_DEPTH;
    ep->state = LOOM_TL_IB_EP_IDLE;
    loom_list_init(&ep->conn_elem);
    if (!ib->lazy) {
        status = loom_tl_ib_ep_qp_init(ep);
    }
    if (status != LOOM_OK) {
        free(ep);
        return status;
    }
    ib->eps[peer] = ep;
    *ep_p = ep;
    return LOOM_OK;
}

/* Eager mode, after the fence: every QP to RTS with the peers' numbers. */
loom_status_t loom_tl_ib_connect_all(loom_tl_ib_iface_t *ib)
{
    int peer;
    uint32_t qpn;

    ib->all_connected = 1;
    for (peer = 0; peer < ib->job->size; ++peer) {
        loom_tl_ib_ep_t *ep = ib->eps[peer];
        if (ep == NULL || ep->state != LOOM_TL_IB_EP_INIT) {
            continue;
        }
        if (loom_tl_ib_ep_read_peer(ep, &qpn) != LOOM_OK || qpn == 0) {
            continue;   /* unreachable: reported by reachable() */
        }
        loom_tl_ib_ep_connect(ep, qpn, ep->peer_addr.psn);
    }
    return LOOM_OK;
}

void loom_tl_ib_ep_destroy_all(loom_tl_ib_iface_t *ib)
{
    int peer;

    for (peer = 0; ib->eps != NULL && peer < ib->job->size; ++peer) {
        loom_tl_ib_ep_t *ep = ib->eps[peer];
        if (ep == NULL) {
            continue;
        }
        loom_list_del(&ep->conn_elem);
        if (ep->qp != NULL) {
            ibv_destroy_qp(ep->qp);
        }
        if (ep->ah != NULL) {
            ibv_destroy_ah(ep->ah);
        }
        free(ep);
        ib->eps[peer] = NULL;
    }
}

/* ---- sending ------------------------------------------------------------------------------ */

static loom_status_t loom_tl_ib_post(loom_tl_ib_ep_t *ep, loom_tl_ib_buf_t *b,
                                     struct ibv_sge *sge, int nsge, int flags)
{
    struct ibv_send_wr wr = {
        .wr_id = (uintptr_t)b, .sg_list = sge, .num_sge = nsge, .opcode = IBV_WR_SEND,
        .send_flags = IBV_SEND_SIGNALED | (unsigned)flags,
    };
    struct ibv_send_wr *bad;
    char why[64];

    if (ibv_post_send(ep->qp, &wr, &bad) != 0) {
        snprintf(why, sizeof(why), "ibv_post_send: %s", strerror(errno));
        b->next = ep->ib->tx_free;
        ep->ib->tx_free = b;
        loom_tl_ib_ep_fail(ep, LOOM_ERR_TRANSPORT, "send", why);
        return LOOM_ERR_TRANSPORT;
    }
    --ep->sq_avail;
    return LOOM_OK;
}

/* Return owed credits in a credit-only frame (paid back by piggyback only). */
void loom_tl_ib_send_credits(loom_tl_ib_ep_t *ep)
{
    loom_tl_ib_iface_t *ib = ep->ib;
    loom_tl_ib_hdr_t *h;
    loom_tl_ib_buf_t *b = ib->tx_free;
    struct ibv_sge sge;

    if (ep->state != LOOM_TL_IB_EP_CONNECTED || ep->ctl_credits == 0 || ep->sq_avail == 0 ||
        b == NULL) {
        return;   /* retried when credits, SQ room or a buffer come back */
    }
    ib->tx_free = b->next;
    b->ep = ep;
    h = (loom_tl_ib_hdr_t *)b->data;
    h->src = (uint32_t)ib->job->rank;
    h->credits = (uint16_t)ep->credits_owed;
    h->ctl_credits = (uint8_t)ep->ctl_credits_owed;
    h->type = LOOM_TL_IB_FRAME_CREDIT;
    sge = (struct ibv_sge){ (uintptr_t)h, sizeof(*h), b->lkey };
    if (loom_tl_ib_post(ep, b, &sge, 1, 0) == LOOM_OK) {
        --ep->ctl_credits;
        ep->credits_owed = 0;
        ep->ctl_credits_owed = 0;
    }
}

/* Slow path of send and get: LOOM_OK when the endpoint became usable. */
loom_status_t loom_tl_ib_ep_not_ready(loom_tl_ib_ep_t *ep)
{
    loom_status_t status;

    if (ep->state == LOOM_TL_IB_EP_FAILED) {
        return ep->error;
    }
    if (!ep->ib->lazy && !ep->ib->all_connected) {
        loom_tl_ib_connect_all(ep->ib);
        if (ep->state == LOOM_TL_IB_EP_CONNECTED) {
            return LOOM_OK;
        }
    }
    if (ep->state == LOOM_TL_IB_EP_IDLE || ep->state == LOOM_TL_IB_EP_INIT) {
        status = loom_tl_ib_cm_start(ep);
        return status == LOOM_OK ? LOOM_ERR_NO_RESOURCE : status;
    }
    return ep->state == LOOM_TL_IB_EP_FAILED ? ep->error : LOOM_ERR_NO_RESOURCE;
}

loom_status_t loom_tl_ib_am_send(loom_tl_ep_t *tl_ep, const void *hdr, size_t hdr_len,
                                 const void *payload, size_t payload_len)
{
    loom_tl_ib_ep_t *ep = loom_container_of(tl_ep, loom_tl_ib_ep_t, super);
    loom_tl_ib_iface_t *ib = ep->ib;
    size_t total = sizeof(loom_tl_ib_hdr_t) + hdr_len + payload_len;
    loom_tl_ib_hdr_t h, *hp = &h;
    loom_tl_ib_buf_t *b = ib->tx_free;
    struct ibv_sge sge[3];
    int nsge = 0, flags = 0;
    loom_status_t status;

    if (loom_unlikely(ep->state != LOOM_TL_IB_EP_CONNECTED) &&
        (status = loom_tl_ib_ep_not_ready(ep)) != LOOM_OK) {
        return status;
    }
    if (loom_unlikely(total > LOOM_TL_IB_FRAME)) {
        loom_error("ib", "frame of %zu bytes to rank %d exceeds the maximum of %d", total,
                   ep->super.peer, LOOM_TL_IB_FRAME);
        return LOOM_ERR_INVALID_ARG;
    }
    if (ep->credits == 0 || ep->sq_avail == 0 || b == NULL) {
        return LOOM_ERR_NO_RESOURCE;
    }
    ib->tx_free = b->next;
    b->ep = ep;
    if (total > ib->max_inline) {
        hp = (loom_tl_ib_hdr_t *)b->data;   /* copy into the registered buffer */
        memcpy(b->data + sizeof(h), hdr, hdr_len);
        memcpy(b->data + sizeof(h) + hdr_len, payload, payload_len);
        sge[nsge++] = (struct ibv_sge){ (uintptr_t)b->data, (uint32_t)total, b->lkey };
    } else {
        flags = IBV_SEND_INLINE;   /* gathered straight from the caller's memory */
        sge[nsge++] = (struct ibv_sge){ (uintptr_t)&h, sizeof(h), 0 };
        if (hdr_len) {
            sge[nsge++] = (struct ibv_sge){ (uintptr_t)hdr, (uint32_t)hdr_len, 0 };
        }
        if (payload_len) {
            sge[nsge++] = (struct ibv_sge){ (uintptr_t)payload, (uint32_t)payload_len, 0 };
        }
    }
    hp->src = (uint32_t)ib->job->rank;
    hp->credits = (uint16_t)ep->credits_owed;
    hp->ctl_credits = (uint8_t)ep->ctl_credits_owed;
    hp->type = LOOM_TL_IB_FRAME_DATA;
    status = loom_tl_ib_post(ep, b, sge, nsge, flags);
    if (status == LOOM_OK) {
        --ep->credits;
        ep->credits_owed = 0;
        ep->ctl_credits_owed = 0;
    }
    return status;
}

/* ---- rendezvous get ------------------------------------------------------------------------ */

/* Post chunks of @p op while the QP has room; 0 chunks posted is not an error. */
static loom_status_t loom_tl_ib_get_post(loom_tl_ib_get_op_t *op)
{
    loom_tl_ib_ep_t *ep = op->ep;
    size_t chunk = LOOM_MIN(ep->ib->port_attr.max_msg_sz, LOOM_TL_IB_READ_CHUNK);
    struct ibv_send_wr wr = { 0 }, *bad;
    struct ibv_sge sge;
    char why[64];

    while (op->posted < op->len && ep->sq_avail > 0 && ep->reads < LOOM_TL_IB_MAX_READS) {
        size_t n = LOOM_MIN(chunk, op->len - op->posted);
        sge = (struct ibv_sge){ (uintptr_t)(op->local + op->posted), (uint32_t)n,
                                loom_tl_ib_region_mr(op->region)->lkey };
        wr.wr_id = (uintptr_t)op;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_RDMA_READ;
        wr.send_flags = IBV_SEND_SIGNALED;
        wr.wr.rdma.remote_addr = op->raddr + op->posted;
        wr.wr.rdma.rkey = op->rkey;
        if (ibv_post_send(ep->qp, &wr, &bad) != 0) {
            snprintf(why, sizeof(why), "ibv_post_send: %s", strerror(errno));
            loom_tl_ib_ep_fail(ep, LOOM_ERR_TRANSPORT, "RDMA read", why);
            return LOOM_ERR_TRANSPORT;
        }
        op->posted += n;
        ++op->inflight;
        --ep->sq_avail;
        ++ep->reads;
    }
    return LOOM_OK;
}

static void loom_tl_ib_get_finish(loom_tl_ib_get_op_t *op)
{
    loom_tl_ib_iface_t *ib = op->ep->ib;
    loom_tl_comp_t *comp = op->comp;
    loom_status_t status = op->status;

    loom_tl_ib_rcache_put(ib->rcache, op->region);
    op->next = ib->get_free;
    ib->get_free = op;
    comp->cb(comp, status);
}

/* One chunk of @p op completed (@p ok: successfully): post more or finish. */
void loom_tl_ib_get_complete(loom_tl_ib_get_op_t *op, int ok)
{
    loom_tl_ib_ep_t *ep = op->ep;

    ++ep->sq_avail;
    ++ep->comps;
    --ep->reads;
    --op->inflight;
    if (!ok && op->status == LOOM_OK) {
        op->status = ep->error != LOOM_OK ? ep->error : LOOM_ERR_TRANSPORT;
    }
    if (op->status == LOOM_OK && op->posted < op->len &&
        loom_tl_ib_get_post(op) != LOOM_OK) {
        op->status = ep->error;
    }
    if (op->inflight == 0 && (op->posted == op->len || op->status != LOOM_OK)) {
        loom_tl_ib_get_finish(op);
    }
}

loom_status_t loom_tl_ib_get(loom_tl_ep_t *tl_ep, void *local, size_t len, uint64_t raddr,
                             const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp)
{
    loom_tl_ib_ep_t *ep = loom_container_of(tl_ep, loom_tl_ib_ep_t, super);
    loom_tl_ib_iface_t *ib = ep->ib;
    loom_tl_ib_get_op_t *op = ib->get_free;
    loom_status_t status;

    if (loom_unlikely(ep->state != LOOM_TL_IB_EP_CONNECTED) &&
        (status = loom_tl_ib_ep_not_ready(ep)) != LOOM_OK) {
        return status;
    }
    if (op == NULL || ep->sq_avail == 0 || ep->reads >= LOOM_TL_IB_MAX_READS) {
        return LOOM_ERR_NO_RESOURCE;
    }
    if (len == 0) {
        return LOOM_OK;
    }
    status = loom_tl_ib_rcache_get(ib->rcache, local, len, IBV_ACCESS_LOCAL_WRITE, &op->region);
    if (status != LOOM_OK) {
        return status;
    }
    ib->get_free = op->next;
    op->ep = ep;
    op->comp = comp;
    op->local = local;
    op->raddr = raddr;
    op->len = len;
    op->posted = 0;
    op->inflight = 0;
    op->status = LOOM_OK;
    memcpy(&op->rkey, rkey->data, sizeof(op->rkey));
    status = loom_tl_ib_get_post(op);
    if (status != LOOM_OK) {
        if (op->inflight == 0) {   /* nothing posted: undo; the caller sees the error */
            loom_tl_ib_rcache_put(ib->rcache, op->region);
            op->next = ib->get_free;
            ib->get_free = op;
            return status;
        }
        op->status = status;       /* completes (in error) when the posted chunks flush */
    }
    return LOOM_INPROGRESS;
}
