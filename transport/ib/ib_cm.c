/*
 * ib_cm.c: on-demand RC connection through a UD queue pair.
 *
 * Every rank publishes its UD QP number (and LID/GID) in the modex. The first
 * send to a peer without a connection creates the RC QP for it (INIT) and
 * sends REQ {rank, QPN, PSN} to the peer's UD QP; the peer creates or reuses
 * its own QP for us, moves it to RTS toward our QPN and answers REP with its
 * QPN; we then move ours to RTS. When both start at once, each side connects
 * its single QP for the pair to the QPN in the other's REQ, and the REP that
 * follows is a duplicate and ignored. Datagrams may be lost: the REQ is resent
 * every LOOM_TL_IB_REQ_RESEND_NS until a REP or a REQ from the peer arrives,
 * and the peer answers every REQ (idempotent), so one delivery each way is
 * enough. Senders see LOOM_ERR_NO_RESOURCE until the connection is up.
 */
#include "ib_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOOM_TL_IB_GRH  LOOM_TL_IB_GRH_BYTES

static loom_status_t loom_tl_ib_ud_post_recv(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *b)
{
    struct ibv_sge sge = { (uintptr_t)b->data, LOOM_TL_IB_UD_BUF, b->lkey };
    struct ibv_recv_wr wr = { .wr_id = (uintptr_t)b, .sg_list = &sge, .num_sge = 1 };
    struct ibv_recv_wr *bad;

    if (ibv_post_recv(ib->ud.qp, &wr, &bad) != 0) {
        loom_error("ib", "rank %d: posting a UD receive failed: %m", ib->job->rank);
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}

/* A fresh UD QP: RESET -> INIT -> RTR -> RTS (no peer: a UD QP has none). */
static int loom_tl_ib_ud_qp_up(loom_tl_ib_iface_t *ib, struct ibv_qp *qp)
{
    struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
                                .port_num = ib->port, .qkey = LOOM_TL_IB_QKEY };

    if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_QKEY) != 0) {
        return -1;
    }
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_RTR;
    if (ibv_modify_qp(qp, &attr, IBV_QP_STATE) != 0) {
        return -1;
    }
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = 0;
    return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

loom_status_t loom_tl_ib_ud_qp_open(loom_tl_ib_iface_t *ib, const char *what, int rx_depth,
                                    int tx_depth, size_t slot_bytes, loom_tl_ib_ud_qp_t *ud_p)
{
    struct ibv_qp_init_attr init = {
        .send_cq = ib->cq, .recv_cq = ib->cq, .qp_type = IBV_QPT_UD,
        .cap = { .max_send_wr = (uint32_t)tx_depth, .max_recv_wr = (uint32_t)rx_depth,
                 .max_send_sge = 1, .max_recv_sge = 1 },
    };
    size_t bytes = (size_t)(rx_depth + tx_depth) * slot_bytes;
    loom_tl_ib_ud_qp_t ud;

    ud.mem = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (ud.mem == NULL) {
        loom_error("ib", "rank %d: no memory for the %s QP's %zu bytes of slots",
                   ib->job->rank, what, bytes);
        return LOOM_ERR_NO_MEMORY;
    }
    ud.mr = ibv_reg_mr(ib->pd, ud.mem, bytes, IBV_ACCESS_LOCAL_WRITE);
    if (ud.mr == NULL) {
        loom_error("ib", "rank %d: registering the %s QP's slots (%zu bytes) on %s failed: %m",
                   ib->job->rank, what, bytes, ib->dev_name);
        goto err_free_mem;
    }
    ud.qp = ibv_create_qp(ib->pd, &init);
    if (ud.qp == NULL) {
        loom_error("ib", "rank %d: creating the %s QP on %s failed: %m", ib->job->rank, what,
                   ib->dev_name);
        goto err_dereg_mr;
    }
    if (loom_tl_ib_ud_qp_up(ib, ud.qp) != 0) {
        loom_error("ib", "rank %d: bringing up the %s QP 0x%x on %s failed: %m", ib->job->rank,
                   what, ud.qp->qp_num, ib->dev_name);
        goto err_destroy_qp;
    }
    *ud_p = ud;
    return LOOM_OK;

err_destroy_qp:
    ibv_destroy_qp(ud.qp);
err_dereg_mr:
    ibv_dereg_mr(ud.mr);
err_free_mem:
    free(ud.mem);
    return LOOM_ERR_TRANSPORT;
}

void loom_tl_ib_ud_qp_close(loom_tl_ib_ud_qp_t *ud)
{
    if (ud->qp != NULL) {
        ibv_destroy_qp(ud->qp);
    }
    if (ud->mr != NULL) {
        ibv_dereg_mr(ud->mr);
    }
    free(ud->mem);
    *ud = (loom_tl_ib_ud_qp_t){ NULL, NULL, NULL };
}

loom_status_t loom_tl_ib_ud_open(loom_tl_ib_iface_t *ib)
{
    loom_status_t status;
    int i;

    status = loom_tl_ib_ud_qp_open(ib, "connection UD", LOOM_TL_IB_UD_DEPTH,
                                   LOOM_TL_IB_UD_DEPTH, LOOM_TL_IB_UD_BUF, &ib->ud);
    for (i = 0; i < LOOM_TL_IB_UD_DEPTH && status == LOOM_OK; ++i) {
        loom_tl_ib_buf_t *rx = &ib->ud_rx[i], *tx = &ib->ud_tx[i];
        rx->kind = LOOM_TL_IB_UD_RX;
        rx->lkey = ib->ud.mr->lkey;
        rx->data = ib->ud.mem + (size_t)i * LOOM_TL_IB_UD_BUF;
        tx->kind = LOOM_TL_IB_UD_TX;
        tx->lkey = ib->ud.mr->lkey;
        tx->data = ib->ud.mem + (size_t)(LOOM_TL_IB_UD_DEPTH + i) * LOOM_TL_IB_UD_BUF;
        tx->next = ib->ud_tx_free;
        ib->ud_tx_free = tx;
        status = loom_tl_ib_ud_post_recv(ib, rx);
    }
    return status;   /* on failure ud_close releases what exists */
}

void loom_tl_ib_ud_close(loom_tl_ib_iface_t *ib)
{
    loom_tl_ib_ud_qp_close(&ib->ud);
}

static loom_status_t loom_tl_ib_cm_send(loom_tl_ib_ep_t *ep, uint32_t type)
{
    loom_tl_ib_iface_t *ib = ep->ib;
    loom_tl_ib_buf_t *slot = ib->ud_tx_free;
    loom_tl_ib_cm_msg_t msg = { LOOM_TL_IB_CM_MAGIC, type, (uint32_t)ib->job->rank,
                                ep->qp ? ep->qp->qp_num : 0, ib->my_addr.psn };
    struct ibv_sge sge;
    struct ibv_send_wr wr = { 0 }, *bad;

    if (ep->ah == NULL) {
        ep->ah = loom_tl_ib_ah_create(ib, &ep->peer_addr);
        if (ep->ah == NULL) {
            loom_tl_ib_ep_fail(ep, LOOM_ERR_CONNECTION, "connection", "ibv_create_ah failed");
            return LOOM_ERR_CONNECTION;
        }
    }
    if (slot == NULL) {
        return LOOM_ERR_NO_RESOURCE;   /* REQs are resent; a lost REP makes one */
    }
    memcpy(slot->data, &msg, sizeof(msg));
    sge = (struct ibv_sge){ (uintptr_t)slot->data, sizeof(msg), slot->lkey };
    wr.wr_id = (uintptr_t)slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = ep->ah;
    wr.wr.ud.remote_qpn = ep->peer_addr.ud_qpn;
    wr.wr.ud.remote_qkey = LOOM_TL_IB_QKEY;
    if (ibv_post_send(ib->ud.qp, &wr, &bad) != 0) {
        loom_error("ib", "rank %d: UD send to rank %d failed: %m", ib->job->rank,
                   ep->super.peer);
        return LOOM_ERR_TRANSPORT;
    }
    ib->ud_tx_free = slot->next;
    return LOOM_OK;
}

void loom_tl_ib_cm_notify_fail(loom_tl_ib_ep_t *ep, uint64_t now)
{
    if (ep->fail_notices <= 0 || !ep->peer_known || ep->peer_addr.ud_qpn == 0) {
        return;   /* nothing due, or the peer's UD address is unknown */
    }
    if (ep->fail_notice_ns != 0 && now - ep->fail_notice_ns < LOOM_TL_IB_REQ_RESEND_NS) {
        return;
    }
    if (loom_tl_ib_cm_send(ep, LOOM_TL_IB_CM_FAIL) == LOOM_OK) {
        --ep->fail_notices;
        ep->fail_notice_ns = now;
    }
}

/* The peer failed its connection to us: fail ours now, not at a timeout of
 * our own (we may have nothing outstanding that would ever time out). */
static void loom_tl_ib_cm_failed_by_peer(loom_tl_ib_iface_t *ib, const loom_tl_ib_cm_msg_t *msg)
{
    loom_tl_ib_ep_t *ep = NULL;
    char why[160];

    if (loom_tl_ib_ep_get_or_create(ib, (int)msg->src, &ep) != LOOM_OK ||
        ep->state == LOOM_TL_IB_EP_FAILED) {
        return;
    }
    if (ep->state == LOOM_TL_IB_EP_CONNECTED && msg->qpn != ep->remote_qpn) {
        loom_warn("ib", "rank %d: failure notice from rank %d names its QP 0x%x, connected to "
                  "0x%x; ignored", ib->job->rank, ep->super.peer, msg->qpn, ep->remote_qpn);
        return;
    }
    snprintf(why, sizeof(why), "rank %d (%s) declared the connection failed (its QP 0x%x)",
             ep->super.peer, loom_tl_ib_host(ib, ep->super.peer), msg->qpn);
    ep->peer_declared = 1;
    loom_tl_ib_ep_fail(ep, LOOM_ERR_PEER_FAILED, "connection", why);
}

void loom_tl_ib_cm_ud_tx_done(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *slot)
{
    slot->next = ib->ud_tx_free;
    ib->ud_tx_free = slot;
}

/* Peer address and a QP in INIT, whatever the endpoint had so far. */
static loom_status_t loom_tl_ib_cm_prepare(loom_tl_ib_ep_t *ep)
{
    loom_status_t status = LOOM_OK;

    if (!ep->peer_known) {
        status = loom_tl_ib_ep_read_peer(ep, NULL);
    }
    if (status == LOOM_OK && ep->qp == NULL) {
        status = loom_tl_ib_ep_qp_init(ep);
    }
    if (status != LOOM_OK && ep->state != LOOM_TL_IB_EP_FAILED) {
        loom_tl_ib_ep_fail(ep, LOOM_ERR_CONNECTION, "connection", loom_strerror(status));
    }
    return status;
}

loom_status_t loom_tl_ib_cm_start(loom_tl_ib_ep_t *ep)
{
    loom_status_t status = loom_tl_ib_cm_prepare(ep);

    if (status != LOOM_OK) {
        return status;
    }
    ep->state = LOOM_TL_IB_EP_CONNECTING;
    ep->req_first_ns = ep->req_last_ns = loom_tl_ib_now_ns();
    loom_list_add_tail(&ep->ib->connecting, &ep->conn_elem);
    status = loom_tl_ib_cm_send(ep, LOOM_TL_IB_CM_REQ);
    return status == LOOM_ERR_NO_RESOURCE ? LOOM_OK : status;
}

static void loom_tl_ib_cm_connected(loom_tl_ib_ep_t *ep, const loom_tl_ib_cm_msg_t *msg)
{
    loom_list_del(&ep->conn_elem);
    loom_tl_ib_ep_connect(ep, msg->qpn, msg->psn);
}

void loom_tl_ib_cm_handle(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *slot, uint32_t len)
{
    loom_tl_ib_cm_msg_t msg;
    loom_tl_ib_ep_t *ep = NULL;

    memcpy(&msg, slot->data + LOOM_TL_IB_GRH, sizeof(msg));
    if (len < LOOM_TL_IB_GRH + sizeof(msg) || msg.magic != LOOM_TL_IB_CM_MAGIC ||
        msg.src >= (uint32_t)ib->job->size || msg.src == (uint32_t)ib->job->rank) {
        loom_warn("ib", "rank %d: malformed connection datagram (%u bytes) ignored",
                  ib->job->rank, len);
    } else if (msg.type == LOOM_TL_IB_CM_FAIL) {
        loom_tl_ib_cm_failed_by_peer(ib, &msg);
    } else if (loom_tl_ib_ep_get_or_create(ib, (int)msg.src, &ep) == LOOM_OK &&
               ep->state != LOOM_TL_IB_EP_FAILED && loom_tl_ib_cm_prepare(ep) == LOOM_OK) {
        if (ep->state == LOOM_TL_IB_EP_CONNECTED) {
            if (ep->remote_qpn != msg.qpn) {
                loom_warn("ib", "rank %d: rank %d announces QP 0x%x, connected to 0x%x; "
                          "ignored", ib->job->rank, ep->super.peer, msg.qpn, ep->remote_qpn);
            }
        } else {
            loom_tl_ib_cm_connected(ep, &msg);
        }
        if (msg.type == LOOM_TL_IB_CM_REQ && ep->state == LOOM_TL_IB_EP_CONNECTED) {
            loom_tl_ib_cm_send(ep, LOOM_TL_IB_CM_REP);
        }
    }
    loom_tl_ib_ud_post_recv(ib, slot);
}

void loom_tl_ib_cm_progress(loom_tl_ib_iface_t *ib)
{
    uint64_t now = loom_tl_ib_now_ns();
    loom_list_t *it, *next;

    for (it = ib->connecting.next; it != &ib->connecting; it = next) {
        loom_tl_ib_ep_t *ep = loom_container_of(it, loom_tl_ib_ep_t, conn_elem);
        next = it->next;
        if (now - ep->req_first_ns > LOOM_TL_IB_REQ_GIVEUP_NS) {
            loom_list_del(&ep->conn_elem);
            loom_tl_ib_ep_fail(ep, LOOM_ERR_UNREACHABLE, "connection",
                               "no answer to the connection request");
        } else if (now - ep->req_last_ns > LOOM_TL_IB_REQ_RESEND_NS) {
            ep->req_last_ns = now;
            loom_tl_ib_cm_send(ep, LOOM_TL_IB_CM_REQ);
        }
    }
}
