/*
 * ib_rma.c: one-sided work for the RMA layer (tl.h rma_* ops) on the RC
 * queue pairs: RDMA WRITE, RDMA READ and the 8-byte atomic verbs
 * (IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP).
 *
 * Design. A window's memory is registered once (rma_reg: ibv_reg_mr with
 * remote read, write and atomic access, no registration cache: a window
 * lives long and its pages must not move). Work is posted on the same
 * queue pair as the peer's frames, so it shares its send queue depth
 * (sq_avail) and, for reads and atomics, its initiator depth (ep->reads,
 * at most LOOM_TL_IB_MAX_READS outstanding). Each work request carries a
 * descriptor from a fixed pool of LOOM_TL_IB_RMA_OPS, made on the first
 * rma_ep call with one registered 8-byte slot each for an atomic's
 * result, which is copied to the caller's pointer at completion. The
 * endpoint counts work posted and completed (rma_posted, rma_done);
 * rma_flush is the comparison, so the caller needs no callback per
 * operation. Local memory of a write above the inline size, and of every
 * read, is registered through the registration cache for the duration of
 * the work.
 *
 * Atomics on this process's own memory must go through the adapter too
 * (a CPU atomic is not atomic with respect to the adapter's), so rma_ep
 * of this rank is a loopback endpoint: a QP connected to itself.
 */
#include "ib_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- registration ------------------------------------------------------------------ */

loom_status_t loom_tl_ib_rma_reg(loom_tl_iface_t *iface, void *addr, size_t len,
                                 loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);
    struct ibv_mr *mr;

    mr = ibv_reg_mr(ib->pd, addr, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
                    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
    if (mr == NULL) {
        loom_error("ib", "rank %d (%s): registering a window of %zu bytes at %p on %s "
                   "failed: %m", ib->job->rank, loom_tl_ib_host(ib, ib->job->rank), len,
                   addr, ib->dev_name);
        return LOOM_ERR_NO_MEMORY;
    }
    memset(rkey, 0, sizeof(*rkey));
    memcpy(rkey->data, &mr->rkey, sizeof(mr->rkey));
    *memh_p = (loom_tl_memh_t *)(void *)mr;
    return LOOM_OK;
}

void loom_tl_ib_rma_dereg(loom_tl_iface_t *iface, loom_tl_memh_t *memh)
{
    (void)iface;
    if (memh != NULL) {
        ibv_dereg_mr((struct ibv_mr *)(void *)memh);
    }
}

/* ---- descriptors and the loopback endpoint ------------------------------------------ */

static loom_status_t loom_tl_ib_rma_pool(loom_tl_ib_iface_t *ib)
{
    size_t n = LOOM_TL_IB_RMA_OPS;

    ib->rma_ops = calloc(n, sizeof(*ib->rma_ops));
    ib->rma_slots = aligned_alloc(64, n * sizeof(uint64_t));
    if (ib->rma_ops == NULL || ib->rma_slots == NULL) {
        goto err_free;
    }
    ib->rma_slots_mr = ibv_reg_mr(ib->pd, ib->rma_slots, n * sizeof(uint64_t),
                                  IBV_ACCESS_LOCAL_WRITE);
    if (ib->rma_slots_mr == NULL) {
        loom_error("ib", "rank %d: registering %zu atomic result slots failed: %m",
                   ib->job->rank, n);
        goto err_free;
    }
    for (size_t i = 0; i < n; ++i) {
        ib->rma_ops[i].kind = LOOM_TL_IB_RMA;
        ib->rma_ops[i].slot = &ib->rma_slots[i];
        ib->rma_ops[i].next = i + 1 < n ? &ib->rma_ops[i + 1] : NULL;
    }
    ib->rma_free = ib->rma_ops;
    return LOOM_OK;

err_free:
    free(ib->rma_ops);
    free(ib->rma_slots);
    ib->rma_ops = NULL;
    ib->rma_slots = NULL;
    return LOOM_ERR_NO_MEMORY;
}

/* A QP connected to itself, for work on this process's own memory. */
static loom_status_t loom_tl_ib_rma_loopback(loom_tl_ib_iface_t *ib, loom_tl_ib_ep_t **ep_p)
{
    loom_tl_ib_ep_t *ep = calloc(1, sizeof(*ep));
    loom_status_t status;

    if (ep == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    ep->super.iface = &ib->super;
    ep->super.peer = ib->job->rank;
    ep->ib = ib;
    ep->sq_avail = LOOM_TL_IB_SQ_DEPTH;
    ep->peer_addr = ib->my_addr;
    ep->peer_known = 1;
    loom_list_init(&ep->conn_elem);
    status = loom_tl_ib_cq_reserve(ib, LOOM_TL_IB_SQ_DEPTH);
    if (status == LOOM_OK) {
        status = loom_tl_ib_qp_create(ib, &ep->qp);
    }
    if (status == LOOM_OK) {
        status = loom_tl_ib_ep_connect(ep, ep->qp->qp_num, ib->my_addr.psn);
    }
    if (status != LOOM_OK) {
        if (ep->qp != NULL) {
            ibv_destroy_qp(ep->qp);
        }
        free(ep);
        return status;
    }
    *ep_p = ep;
    return LOOM_OK;
}

loom_status_t loom_tl_ib_rma_ep(loom_tl_iface_t *iface, int peer, loom_tl_ep_t **ep_p)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);
    loom_status_t status = LOOM_OK;

    if (ib->rma_ops == NULL && (status = loom_tl_ib_rma_pool(ib)) != LOOM_OK) {
        return status;
    }
    if (peer == ib->job->rank) {
        if (ib->rma_self == NULL) {
            status = loom_tl_ib_rma_loopback(ib, &ib->rma_self);
        }
        if (status == LOOM_OK) {
            *ep_p = &ib->rma_self->super;
        }
        return status;
    }
    if (!iface->ops.reachable(iface, peer)) {
        return LOOM_ERR_UNREACHABLE;
    }
    return iface->ops.ep_create(iface, peer, ep_p);
}

void loom_tl_ib_rma_close(loom_tl_ib_iface_t *ib)
{
    if (ib->rma_self != NULL) {
        ibv_destroy_qp(ib->rma_self->qp);
        free(ib->rma_self);
        ib->rma_self = NULL;
    }
    if (ib->rma_slots_mr != NULL) {
        ibv_dereg_mr(ib->rma_slots_mr);
        ib->rma_slots_mr = NULL;
    }
    free(ib->rma_ops);
    free(ib->rma_slots);
    ib->rma_ops = NULL;
    ib->rma_slots = NULL;
    ib->rma_free = NULL;
}

/* ---- posting ------------------------------------------------------------------------- */

/* A descriptor and room on @p ep's queue, or why not (NO_RESOURCE, the endpoint's error). */
static loom_status_t loom_tl_ib_rma_start(loom_tl_ib_ep_t *ep, int is_read,
                                          loom_tl_ib_rma_op_t **op_p)
{
    loom_tl_ib_iface_t *ib = ep->ib;
    loom_tl_ib_rma_op_t *op = ib->rma_free;
    loom_status_t status;

    if (loom_unlikely(ep->state != LOOM_TL_IB_EP_CONNECTED) &&
        (status = loom_tl_ib_ep_not_ready(ep)) != LOOM_OK) {
        return status;
    }
    if (op == NULL || ep->sq_avail == 0 || (is_read && ep->reads >= LOOM_TL_IB_MAX_READS)) {
        return LOOM_ERR_NO_RESOURCE;
    }
    ib->rma_free = op->next;
    op->ep = ep;
    op->is_read = (uint8_t)is_read;
    op->region = NULL;
    op->result = NULL;
    *op_p = op;
    return LOOM_OK;
}

static void loom_tl_ib_rma_release(loom_tl_ib_rma_op_t *op)
{
    loom_tl_ib_iface_t *ib = op->ep->ib;

    if (op->region != NULL) {
        loom_tl_ib_rcache_put(ib->rcache, op->region);
        op->region = NULL;
    }
    op->next = ib->rma_free;
    ib->rma_free = op;
}

/* Post @p wr (its wr_id and flags set here); counts it on success. */
static loom_status_t loom_tl_ib_rma_post(loom_tl_ib_rma_op_t *op, struct ibv_send_wr *wr,
                                         const char *what)
{
    loom_tl_ib_ep_t *ep = op->ep;
    struct ibv_send_wr *bad;
    char why[64];

    wr->wr_id = (uintptr_t)op;
    wr->send_flags |= IBV_SEND_SIGNALED;
    if (ibv_post_send(ep->qp, wr, &bad) != 0) {
        snprintf(why, sizeof(why), "ibv_post_send: %s", strerror(errno));
        loom_tl_ib_rma_release(op);
        loom_tl_ib_ep_fail(ep, LOOM_ERR_TRANSPORT, what, why);
        return LOOM_ERR_TRANSPORT;
    }
    --ep->sq_avail;
    ep->reads += op->is_read;
    ++ep->rma_posted;
    return LOOM_OK;
}

/* RDMA WRITE (@p read 0) or READ of [local, +len) at raddr */
static loom_status_t loom_tl_ib_rma_rw(loom_tl_ep_t *tl_ep, int read, void *local, size_t len,
                                       uint64_t raddr, const loom_tl_rkey_t *rkey)
{
    loom_tl_ib_ep_t *ep = loom_container_of(tl_ep, loom_tl_ib_ep_t, super);
    struct ibv_send_wr wr = { 0 };
    struct ibv_sge sge = { (uintptr_t)local, (uint32_t)len, 0 };
    loom_tl_ib_rma_op_t *op;
    loom_status_t status;

    if (len > ep->ib->port_attr.max_msg_sz) {
        loom_error("ib", "rank %d: one-sided %s of %zu bytes to rank %d exceeds the port's "
                   "maximum message of %u bytes", ep->ib->job->rank, read ? "read" : "write",
                   len, ep->super.peer, ep->ib->port_attr.max_msg_sz);
        return LOOM_ERR_INVALID_ARG;
    }
    if ((status = loom_tl_ib_rma_start(ep, read, &op)) != LOOM_OK) {
        return status;
    }
    if (!read && len <= ep->ib->max_inline) {
        wr.send_flags = IBV_SEND_INLINE;   /* no registration for small puts */
    } else if (len > 0) {
        status = loom_tl_ib_rcache_get(ep->ib->rcache, local, len,
                                       read ? IBV_ACCESS_LOCAL_WRITE : 0, &op->region);
        if (status != LOOM_OK) {
            loom_tl_ib_rma_release(op);
            return status;
        }
        sge.lkey = loom_tl_ib_region_mr(op->region)->lkey;
    }
    wr.sg_list = &sge;
    wr.num_sge = len > 0 ? 1 : 0;
    wr.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
    wr.wr.rdma.remote_addr = raddr;
    memcpy(&wr.wr.rdma.rkey, rkey->data, sizeof(wr.wr.rdma.rkey));
    return loom_tl_ib_rma_post(op, &wr, read ? "RDMA read" : "RDMA write");
}

loom_status_t loom_tl_ib_rma_put(loom_tl_ep_t *tl_ep, const void *local, size_t len,
                                 uint64_t raddr, const loom_tl_rkey_t *rkey)
{
    return loom_tl_ib_rma_rw(tl_ep, 0, (void *)(uintptr_t)local, len, raddr, rkey);
}

loom_status_t loom_tl_ib_rma_get(loom_tl_ep_t *tl_ep, void *local, size_t len,
                                 uint64_t raddr, const loom_tl_rkey_t *rkey)
{
    return loom_tl_ib_rma_rw(tl_ep, 1, local, len, raddr, rkey);
}

loom_status_t loom_tl_ib_rma_atomic(loom_tl_ep_t *tl_ep, int op_kind, uint64_t value,
                                    uint64_t compare, uint64_t *result, uint64_t raddr,
                                    const loom_tl_rkey_t *rkey)
{
    loom_tl_ib_ep_t *ep = loom_container_of(tl_ep, loom_tl_ib_ep_t, super);
    struct ibv_send_wr wr = { 0 };
    struct ibv_sge sge;
    loom_tl_ib_rma_op_t *op;
    loom_status_t status;

    if ((raddr & 7) != 0 ||
        (op_kind != LOOM_TL_ATOMIC_FADD && op_kind != LOOM_TL_ATOMIC_CSWAP)) {
        loom_error("ib", "rank %d: atomic %d at %#llx of rank %d: not an 8-byte aligned "
                   "fetch-add or compare-swap", ep->ib->job->rank, op_kind,
                   (unsigned long long)raddr, ep->super.peer);
        return LOOM_ERR_INVALID_ARG;
    }
    if ((status = loom_tl_ib_rma_start(ep, 1, &op)) != LOOM_OK) {
        return status;
    }
    op->result = result;
    sge = (struct ibv_sge){ (uintptr_t)op->slot, sizeof(uint64_t),
                            ep->ib->rma_slots_mr->lkey };
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op_kind == LOOM_TL_ATOMIC_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD
                                               : IBV_WR_ATOMIC_CMP_AND_SWP;
    wr.wr.atomic.remote_addr = raddr;
    memcpy(&wr.wr.atomic.rkey, rkey->data, sizeof(wr.wr.atomic.rkey));
    wr.wr.atomic.compare_add = op_kind == LOOM_TL_ATOMIC_FADD ? value : compare;
    wr.wr.atomic.swap = value;
    return loom_tl_ib_rma_post(op, &wr, "atomic");
}

/* ---- completion --------------------------------------------------------------------- */

void loom_tl_ib_rma_complete(loom_tl_ib_rma_op_t *op, int ok)
{
    loom_tl_ib_ep_t *ep = op->ep;

    ++ep->sq_avail;
    ++ep->comps;
    ep->reads -= op->is_read;
    ++ep->rma_done;
    if (!ok && ep->rma_error == LOOM_OK) {
        ep->rma_error = ep->error != LOOM_OK ? ep->error : LOOM_ERR_TRANSPORT;
    }
    if (ok && op->result != NULL) {
        memcpy(op->result, op->slot, sizeof(uint64_t));
    }
    loom_tl_ib_rma_release(op);
}

loom_status_t loom_tl_ib_rma_flush(loom_tl_ep_t *tl_ep)
{
    loom_tl_ib_ep_t *ep = loom_container_of(tl_ep, loom_tl_ib_ep_t, super);

    if (ep->rma_done != ep->rma_posted) {
        return ep->state == LOOM_TL_IB_EP_FAILED && ep->qp == NULL ? ep->error
                                                                   : LOOM_INPROGRESS;
    }
    if (ep->rma_error != LOOM_OK) {
        return ep->rma_error;
    }
    return ep->state == LOOM_TL_IB_EP_FAILED ? ep->error : LOOM_OK;
}
