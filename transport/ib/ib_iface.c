/*
 * ib_iface.c: the verbs transport's interface: device, port and GID
 * selection, open/close, the modex address, progress (completions and
 * asynchronous events) and error reporting. Design in ib_int.h.
 */
#include "ib_mc_int.h"
#include "ib_config_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t loom_tl_ib_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *loom_tl_ib_host(const loom_tl_ib_iface_t *ib, int rank)
{
    if (ib->job->hostnames == NULL || rank < 0 || rank >= ib->job->size) {
        return "?";
    }
    return ib->job->hostnames[rank];
}

void loom_tl_ib_ep_fail(loom_tl_ib_ep_t *ep, loom_status_t status, const char *what,
                        const char *why)
{
    loom_tl_ib_iface_t *ib = ep->ib;
    char msg[256];

    if (ep->state == LOOM_TL_IB_EP_FAILED) {
        return;   /* reported once; later completions are flushes */
    }
    ep->state = LOOM_TL_IB_EP_FAILED;
    ep->error = status;
    if (ep->qp != NULL) {
        /* flush what is outstanding: gets complete (in error), buffers return */
        struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
        ibv_modify_qp(ep->qp, &attr, IBV_QP_STATE);
    }
    loom_error("ib", "rank %d (%s) -> rank %d (%s): %s on %s:%u QP 0x%x failed: %s",
               ib->job->rank, loom_tl_ib_host(ib, ib->job->rank), ep->super.peer,
               loom_tl_ib_host(ib, ep->super.peer), what, ib->dev_name, ib->port,
               ep->qp ? ep->qp->qp_num : 0, why);
    /* Our QP in the error state drops what the peer sends, but tells it
     * nothing: a peer waiting only to receive would wait for its own hang
     * timeout (and soft-RoCE never reports retry exhaustion). Tell it, on the
     * UD QP, before err_cb (which may end the process). */
    if (!ep->peer_declared) {
        ep->fail_notices = LOOM_TL_IB_FAIL_NOTICES;
        loom_tl_ib_cm_notify_fail(ep, loom_tl_ib_now_ns());
    }
    snprintf(msg, sizeof(msg), "ib %s on QP 0x%x to rank %d (%s): %s", what,
             ep->qp ? ep->qp->qp_num : 0, ep->super.peer,
             loom_tl_ib_host(ib, ep->super.peer), why);
    if (ib->super.params.err_cb != NULL) {
        ib->super.params.err_cb(ib->super.params.cb_arg, ep->super.peer, status, msg);
    }
}

loom_tl_ib_ep_t *loom_tl_ib_ep_lookup(loom_tl_ib_iface_t *ib, int peer)
{
    if (peer < 0 || peer >= ib->job->size) {
        return NULL;
    }
    return ib->eps[peer];
}

/* The endpoint whose RC QP is @p qpn, NULL if none: a scan, for error paths. */
loom_tl_ib_ep_t *loom_tl_ib_ep_by_qpn(loom_tl_ib_iface_t *ib, uint32_t qpn)
{
    int peer;

    for (peer = 0; peer < ib->job->size; ++peer) {
        if (ib->eps[peer] != NULL && ib->eps[peer]->qp != NULL &&
            ib->eps[peer]->qp->qp_num == qpn) {
            return ib->eps[peer];
        }
    }
    return NULL;
}

/* ---- device, port and GID ------------------------------------------------------ */

/* LOOM_IB_DEVICE = name[:port]; empty = first device with an active port. */
static loom_status_t loom_tl_ib_pick_device(loom_tl_ib_iface_t *ib)
{
    const char *want = loom_config_str(LOOM_IB_CFG(DEVICE));
    char name[64] = "";
    int want_port = 0, num = 0, i, p;
    struct ibv_device **list;
    loom_status_t status = LOOM_ERR_UNSUPPORTED;

    if (want[0] != '\0' && sscanf(want, "%63[^:]:%d", name, &want_port) < 1) {
        loom_error("ib", "LOOM_IB_DEVICE='%s' is not name[:port]", want);
        return LOOM_ERR_CONFIG;
    }
    list = ibv_get_device_list(&num);
    if (list == NULL || num == 0) {
        loom_debug("ib", "no verbs device (%m)");
        goto out_free_list;
    }
    for (i = 0; i < num && status != LOOM_OK; ++i) {
        if (name[0] != '\0' && strcmp(name, ibv_get_device_name(list[i])) != 0) {
            continue;
        }
        ib->ctx = ibv_open_device(list[i]);
        if (ib->ctx == NULL || ibv_query_device(ib->ctx, &ib->dev_attr) != 0) {
            loom_warn("ib", "cannot open %s: %m", ibv_get_device_name(list[i]));
            goto next_device;
        }
        for (p = 1; p <= ib->dev_attr.phys_port_cnt; ++p) {
            if ((want_port && p != want_port) ||
                ibv_query_port(ib->ctx, (uint8_t)p, &ib->port_attr) != 0 ||
                ib->port_attr.state != IBV_PORT_ACTIVE) {
                continue;
            }
            ib->port = (uint8_t)p;
            snprintf(ib->dev_name, sizeof(ib->dev_name), "%s", ibv_get_device_name(list[i]));
            status = LOOM_OK;
            break;
        }
next_device:
        if (status != LOOM_OK && ib->ctx != NULL) {
            ibv_close_device(ib->ctx);
            ib->ctx = NULL;
        }
    }
    if (status != LOOM_OK && name[0] != '\0') {
        loom_error("ib", "LOOM_IB_DEVICE='%s': no such device with an active port", want);
        status = LOOM_ERR_CONFIG;
    }
out_free_list:
    if (list != NULL) {
        ibv_free_device_list(list);
    }
    return status;
}

int loom_tl_ib_gid_ipv4(const uint8_t gid[16], struct in_addr *addr_p)
{
    static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

    if (memcmp(gid, v4mapped, sizeof(v4mapped)) != 0) {
        return 0;
    }
    if (addr_p != NULL) {
        memcpy(&addr_p->s_addr, gid + 12, 4);   /* both in network order */
    }
    return 1;
}

/* On RoCE, the RoCE v2 GID holding an IPv4-mapped interface address; else any
 * RoCE v2 GID; else index 0. LOOM_IB_GID_INDEX overrides. */
static loom_status_t loom_tl_ib_pick_gid(loom_tl_ib_iface_t *ib)
{
    long long forced = loom_config_int(LOOM_IB_CFG(GID_INDEX));
    struct ibv_gid_entry entry;
    int i, any_v2 = -1, v4 = -1;

    if (ib->port_attr.link_layer != IBV_LINK_LAYER_ETHERNET && forced < 0) {
        ib->gid_index = 0;   /* InfiniBand: routed by LID, GID only for info */
    } else if (forced >= 0) {
        if (forced >= ib->port_attr.gid_tbl_len) {
            loom_error("ib", "LOOM_IB_GID_INDEX=%lld out of range (table of %d)", forced,
                       ib->port_attr.gid_tbl_len);
            return LOOM_ERR_CONFIG;
        }
        ib->gid_index = (int)forced;
    } else {
        for (i = 0; i < ib->port_attr.gid_tbl_len; ++i) {
            if (ibv_query_gid_ex(ib->ctx, ib->port, (uint32_t)i, &entry, 0) != 0 ||
                entry.gid_type != IBV_GID_TYPE_ROCE_V2) {
                continue;
            }
            if (any_v2 < 0) {
                any_v2 = i;
            }
            if (loom_tl_ib_gid_ipv4(entry.gid.raw, NULL)) {
                v4 = i;
                break;
            }
        }
        ib->gid_index = v4 >= 0 ? v4 : (any_v2 >= 0 ? any_v2 : 0);
    }
    if (ibv_query_gid(ib->ctx, ib->port, ib->gid_index, (union ibv_gid *)ib->my_addr.gid)) {
        loom_error("ib", "ibv_query_gid(%s:%u, index %d) failed: %m", ib->dev_name, ib->port,
                   ib->gid_index);
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}

/* ---- open ------------------------------------------------------------------------ */

static loom_status_t loom_tl_ib_open_resources(loom_tl_ib_iface_t *ib)
{
    struct ibv_srq_init_attr sattr = { 0 };
    int peers = ib->job->size - 1;

    ib->pd = ibv_alloc_pd(ib->ctx);
    if (ib->pd == NULL) {
        loom_error("ib", "ibv_alloc_pd(%s) failed: %m", ib->dev_name);
        return LOOM_ERR_TRANSPORT;
    }
    ib->srq_size = LOOM_MIN(LOOM_MAX(peers, 1) * LOOM_TL_IB_PEER_RX + 16,
                            ib->dev_attr.max_srq_wr);
    ib->cq_size = LOOM_MIN(2 * LOOM_TL_IB_UD_DEPTH + LOOM_TL_IB_TX_BUFS + ib->srq_size +
                           (ib->lazy ? 0 : peers * LOOM_TL_IB_SQ_DEPTH),
                           ib->dev_attr.max_cqe);
    ib->cq = ibv_create_cq(ib->ctx, ib->cq_size, NULL, NULL, 0);
    if (ib->cq == NULL) {
        loom_error("ib", "ibv_create_cq(%s, %d entries) failed: %m", ib->dev_name, ib->cq_size);
        return LOOM_ERR_TRANSPORT;
    }
    ib->cq_size = ib->cq->cqe;
    ib->cq_need = 2 * LOOM_TL_IB_UD_DEPTH + LOOM_TL_IB_TX_BUFS;
    sattr.attr.max_wr = (uint32_t)ib->srq_size;
    sattr.attr.max_sge = 1;
    ib->srq = ibv_create_srq(ib->pd, &sattr);
    if (ib->srq == NULL) {
        loom_error("ib", "ibv_create_srq(%s, %d entries) failed: %m", ib->dev_name,
                   ib->srq_size);
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}

/* Registered send buffers and RDMA READ descriptors. */
static loom_status_t loom_tl_ib_open_tx(loom_tl_ib_iface_t *ib)
{
    loom_tl_ib_chunk_t *c = &ib->tx_chunk;
    int i, nget = LOOM_TL_IB_MAX_READS * 16;

    c->mem = aligned_alloc(4096, (size_t)LOOM_TL_IB_TX_BUFS * LOOM_TL_IB_FRAME);
    c->descs = calloc(LOOM_TL_IB_TX_BUFS, sizeof(*c->descs));
    ib->get_ops = calloc((size_t)nget, sizeof(*ib->get_ops));
    if (c->mem == NULL || c->descs == NULL || ib->get_ops == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    c->mr = ibv_reg_mr(ib->pd, c->mem, (size_t)LOOM_TL_IB_TX_BUFS * LOOM_TL_IB_FRAME,
                       IBV_ACCESS_LOCAL_WRITE);
    if (c->mr == NULL) {
        loom_error("ib", "registering %d send buffers failed: %m", LOOM_TL_IB_TX_BUFS);
        return LOOM_ERR_TRANSPORT;
    }
    for (i = LOOM_TL_IB_TX_BUFS - 1; i >= 0; --i) {
        loom_tl_ib_buf_t *b = &c->descs[i];
        b->kind = LOOM_TL_IB_TX;
        b->lkey = c->mr->lkey;
        b->data = (uint8_t *)c->mem + (size_t)i * LOOM_TL_IB_FRAME;
        b->next = ib->tx_free;
        ib->tx_free = b;
    }
    for (i = nget - 1; i >= 0; --i) {
        ib->get_ops[i].kind = LOOM_TL_IB_GET;
        ib->get_ops[i].next = ib->get_free;
        ib->get_free = &ib->get_ops[i];
    }
    return LOOM_OK;
}

/* Eager mode: one QP per peer now, their numbers published for the peers. */
static loom_status_t loom_tl_ib_publish(loom_tl_ib_iface_t *ib)
{
    size_t n = ib->lazy ? 0 : (size_t)ib->job->size;
    size_t len = sizeof(loom_tl_ib_addr_t) + n * sizeof(uint32_t);
    loom_tl_ib_addr_t *addr = calloc(1, len);
    loom_status_t status = LOOM_OK;
    int peer;

    if (addr == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    *addr = ib->my_addr;
    addr->num_rc = (uint32_t)n;
    for (peer = 0; peer < (int)n && status == LOOM_OK; ++peer) {
        loom_tl_ib_ep_t *ep;
        if (peer == ib->job->rank) {
            continue;
        }
        status = loom_tl_ib_ep_get_or_create(ib, peer, &ep);
        if (status == LOOM_OK) {
            addr->rc_qpn[peer] = ep->qp->qp_num;
        }
    }
    if (status == LOOM_OK) {
        status = loom_bootstrap_put("ib.addr", addr, len);
    }
    free(addr);
    return status;
}

static void loom_tl_ib_close(loom_tl_iface_t *iface);
static void loom_tl_ib_query(loom_tl_iface_t *iface, loom_tl_caps_t *caps_p);

static loom_status_t loom_tl_ib_open(const loom_tl_params_t *params, loom_tl_iface_t **iface_p)
{
    loom_tl_ib_iface_t *ib;
    loom_status_t status;

    if ((status = loom_config_register(&loom_ib_config)) != LOOM_OK) {
        return status;
    }
    ib = calloc(1, sizeof(*ib));
    if (ib == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    ib->job = params->job;
    ib->super.params = *params;
    loom_list_init(&ib->rx_chunks);
    loom_list_init(&ib->connecting);
    ib->lazy = params->job->size > loom_config_int(LOOM_IB_CFG(LAZY_THRESHOLD));
    ib->stall_ns = (uint64_t)(loom_config_double(LOOM_IB_CFG(STALL_TIMEOUT)) * 1e9);
    ib->stall_fault = loom_config_int(LOOM_IB_CFG(STALL_FAULT)) == params->job->rank;
    ib->eps = calloc((size_t)params->job->size, sizeof(*ib->eps));
    status = ib->eps ? loom_tl_ib_pick_device(ib) : LOOM_ERR_NO_MEMORY;
    if (status != LOOM_OK) {
        free(ib->eps);
        free(ib);
        return status;
    }
    status = loom_tl_ib_pick_gid(ib);
    if (status == LOOM_OK) {
        status = loom_tl_ib_open_resources(ib);
    }
    if (status == LOOM_OK) {
        status = loom_tl_ib_open_tx(ib);
    }
    if (status == LOOM_OK) {   /* spare receive buffers, see ib_int.h */
        status = loom_tl_ib_cq_reserve(ib, LOOM_TL_IB_RX_BATCH);
    }
    if (status == LOOM_OK) {
        status = loom_tl_ib_rx_add(ib, LOOM_TL_IB_RX_BATCH);
    }
    if (status == LOOM_OK) {
        status = loom_tl_ib_rcache_create(ib->pd,
                                          (size_t)loom_config_int(LOOM_IB_CFG(RCACHE_MAX)),
                                          &ib->rcache);
    }
    if (status == LOOM_OK) {
        status = loom_tl_ib_ud_open(ib);
    }
    if (status == LOOM_OK) {
        status = loom_tl_ib_mc_open(ib);
    }
    if (status == LOOM_OK) {
        ib->my_addr.magic = LOOM_TL_IB_ADDR_MAGIC;
        ib->my_addr.lid = ib->port_attr.lid;
        ib->my_addr.link_layer = ib->port_attr.link_layer;
        ib->my_addr.mtu = (uint8_t)ib->port_attr.active_mtu;
        ib->my_addr.ud_qpn = ib->ud.qp->qp_num;
        ib->my_addr.mc_qpn = ib->mc.qp != NULL ? ib->mc.qp->qp_num : 0;
        ib->my_addr.psn = (uint32_t)(loom_tl_ib_now_ns() ^ ((uint64_t)ib->job->rank << 12)) &
                          0xffffff;
        status = loom_tl_ib_publish(ib);
    }
    if (status != LOOM_OK) {
        loom_tl_ib_close(&ib->super);
        return status;
    }
    fcntl(ib->ctx->async_fd, F_SETFL, fcntl(ib->ctx->async_fd, F_GETFL) | O_NONBLOCK);
    loom_info("ib", "using %s:%u (%s, gid index %d, mtu %d, %s connection)", ib->dev_name,
              ib->port, ib->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "IB",
              ib->gid_index, 128 << ib->port_attr.active_mtu, ib->lazy ? "on-demand" : "eager");
    loom_tl_iface_init(&ib->super, "ib", &loom_tl_ib_ops, params);
    *iface_p = &ib->super;
    return LOOM_OK;
}

static void loom_tl_ib_close(loom_tl_iface_t *iface)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);
    loom_list_t *it;

    loom_tl_ib_rma_close(ib);
    loom_tl_ib_ep_destroy_all(ib);
    loom_tl_ib_mc_close(ib);
    loom_tl_ib_ud_close(ib);
    if (ib->srq != NULL) {
        ibv_destroy_srq(ib->srq);
    }
    while (!loom_list_is_empty(&ib->rx_chunks)) {
        it = ib->rx_chunks.next;
        loom_list_del(it);
        loom_tl_ib_chunk_t *c = loom_container_of(it, loom_tl_ib_chunk_t, elem);
        ibv_dereg_mr(c->mr);
        free(c->mem);
        free(c->descs);
        free(c);
    }
    if (ib->tx_chunk.mr != NULL) {
        ibv_dereg_mr(ib->tx_chunk.mr);
    }
    free(ib->tx_chunk.mem);
    free(ib->tx_chunk.descs);
    free(ib->get_ops);
    if (ib->rcache != NULL) {
        loom_tl_ib_rcache_destroy(ib->rcache);
    }
    if (ib->cq != NULL) {
        ibv_destroy_cq(ib->cq);
    }
    if (ib->pd != NULL) {
        ibv_dealloc_pd(ib->pd);
    }
    if (ib->ctx != NULL) {
        ibv_close_device(ib->ctx);
    }
    free(ib->eps);
    free(ib);
}

/* ---- query, reachability, endpoints ------------------------------------------------ */

static void loom_tl_ib_query(loom_tl_iface_t *iface, loom_tl_caps_t *caps_p)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);

    memset(caps_p, 0, sizeof(*caps_p));
    caps_p->max_am = LOOM_TL_IB_FRAME - sizeof(loom_tl_ib_hdr_t);
    caps_p->max_inline = ib->max_inline > sizeof(loom_tl_ib_hdr_t) ?
                         ib->max_inline - sizeof(loom_tl_ib_hdr_t) : 0;
    caps_p->eager_limit = caps_p->max_am - 64;
    caps_p->can_get = 1;
    caps_p->can_mcast = ib->mc.qp != NULL;
    caps_p->latency_ns = 2000;
}

static int loom_tl_ib_reachable(loom_tl_iface_t *iface, int peer)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);
    loom_tl_ib_ep_t *ep;

    if (peer == ib->job->rank || peer < 0 || peer >= ib->job->size) {
        return 0;
    }
    if (!ib->lazy && !ib->all_connected && loom_tl_ib_connect_all(ib) != LOOM_OK) {
        return 0;
    }
    if (loom_tl_ib_ep_get_or_create(ib, peer, &ep) != LOOM_OK) {
        return 0;
    }
    if (!ep->peer_known && loom_tl_ib_ep_read_peer(ep, NULL) != LOOM_OK) {
        return 0;
    }
    return ep->peer_known && ep->state != LOOM_TL_IB_EP_FAILED;
}

static loom_status_t loom_tl_ib_ep_create(loom_tl_iface_t *iface, int peer, loom_tl_ep_t **ep_p)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);
    loom_tl_ib_ep_t *ep;
    loom_status_t status;

    if (!loom_tl_ib_reachable(iface, peer)) {
        return LOOM_ERR_UNREACHABLE;
    }
    status = loom_tl_ib_ep_get_or_create(ib, peer, &ep);
    if (status == LOOM_OK) {
        *ep_p = &ep->super;
    }
    return status;
}

static void loom_tl_ib_ep_destroy(loom_tl_ep_t *ep)
{
    (void)ep;   /* QPs live until close: the peer may still be sending to us */
}

/* ---- memory ------------------------------------------------------------------------- */

static loom_status_t loom_tl_ib_mem_pack(loom_tl_iface_t *iface, const void *addr, size_t len,
                                         loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);
    loom_tl_ib_region_t *region;
    loom_status_t status;
    uint32_t key;

    status = loom_tl_ib_rcache_get(ib->rcache, addr, len, IBV_ACCESS_REMOTE_READ, &region);
    if (status != LOOM_OK) {
        return status;
    }
    key = loom_tl_ib_region_mr(region)->rkey;
    memset(rkey, 0, sizeof(*rkey));
    memcpy(rkey->data, &key, sizeof(key));
    *memh_p = (loom_tl_memh_t *)region;
    return LOOM_OK;
}

static void loom_tl_ib_mem_release(loom_tl_iface_t *iface, loom_tl_memh_t *memh)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);

    loom_tl_ib_rcache_put(ib->rcache, (loom_tl_ib_region_t *)memh);
}

/* ---- progress ------------------------------------------------------------------------ */

static void loom_tl_ib_async_events(loom_tl_ib_iface_t *ib)
{
    struct ibv_async_event ev;
    int peer;

    while (ibv_get_async_event(ib->ctx, &ev) == 0) {
        loom_tl_ib_ep_t *hit = NULL;
        for (peer = 0; peer < ib->job->size && hit == NULL; ++peer) {
            if (ib->eps[peer] && ib->eps[peer]->qp == ev.element.qp) {
                hit = ib->eps[peer];
            }
        }
        if (hit != NULL && (ev.event_type == IBV_EVENT_QP_FATAL ||
                            ev.event_type == IBV_EVENT_QP_REQ_ERR ||
                            ev.event_type == IBV_EVENT_QP_ACCESS_ERR)) {
            loom_tl_ib_ep_fail(hit, LOOM_ERR_TRANSPORT, "async event",
                               ibv_event_type_str(ev.event_type));
        } else if (ev.event_type != IBV_EVENT_COMM_EST &&
                   ev.event_type != IBV_EVENT_SQ_DRAINED) {
            loom_error("ib", "rank %d (%s): asynchronous event on %s:%u: %s", ib->job->rank,
                       loom_tl_ib_host(ib, ib->job->rank), ib->dev_name, ib->port,
                       ibv_event_type_str(ev.event_type));
            for (peer = 0; ev.event_type == IBV_EVENT_PORT_ERR && peer < ib->job->size; ++peer) {
                if (ib->eps[peer] != NULL) {
                    loom_tl_ib_ep_fail(ib->eps[peer], LOOM_ERR_TRANSPORT, "port",
                                       ibv_event_type_str(ev.event_type));
                }
            }
        }
        ibv_ack_async_event(&ev);
    }
}

/* Hold @p b for reposting; post the held chain once it is a full batch (the
 * spare buffers posted at open cover those held back, see ib_int.h). */
static loom_status_t loom_tl_ib_rx_repost(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *b)
{
    int i = ib->rx_held++;
    struct ibv_recv_wr *bad;

    ib->rx_sge[i] = (struct ibv_sge){ (uintptr_t)b->data, LOOM_TL_IB_FRAME, b->lkey };
    ib->rx_wr[i] = (struct ibv_recv_wr){ .wr_id = (uintptr_t)b, .sg_list = &ib->rx_sge[i],
                                         .num_sge = 1 };
    if (i > 0) {
        ib->rx_wr[i - 1].next = &ib->rx_wr[i];
    }
    if (ib->rx_held < LOOM_TL_IB_RX_BATCH) {
        return LOOM_OK;
    }
    ib->rx_held = 0;
    if (ibv_post_srq_recv(ib->srq, &ib->rx_wr[0], &bad) != 0) {
        loom_error("ib", "rank %d: ibv_post_srq_recv of %d buffers failed: %m",
                   ib->job->rank, LOOM_TL_IB_RX_BATCH);
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}

/* A frame that failed ib_wire's checks: the peer broke the protocol. Fail the
 * endpoint of the QP it arrived on (the claimed sender may be anyone). */
static void loom_tl_ib_rx_bad(loom_tl_ib_iface_t *ib, uint32_t qpn, loom_status_t status,
                              const char *why)
{
    loom_tl_ib_ep_t *ep = loom_tl_ib_ep_by_qpn(ib, qpn);

    if (ep != NULL) {
        loom_tl_ib_ep_fail(ep, status, "receive (malformed frame)", why);
    } else {
        loom_error("ib", "rank %d (%s): malformed frame on %s:%u QP 0x%x (no endpoint) "
                   "dropped: %s", ib->job->rank, loom_tl_ib_host(ib, ib->job->rank),
                   ib->dev_name, ib->port, qpn, why);
    }
}

/* The endpoint of the validated sender of @p f, NULL (and the frame refused)
 * when it did not come from that peer's QP or returns too many credits. */
static loom_tl_ib_ep_t *loom_tl_ib_rx_peer(loom_tl_ib_iface_t *ib, const loom_tl_ib_frame_t *f,
                                           uint32_t qpn)
{
    loom_tl_ib_ep_t *ep = loom_tl_ib_ep_lookup(ib, (int)f->hdr.src);
    loom_tl_ib_ep_t *owner = ep;
    char why[160];
    loom_status_t status;

    if (loom_unlikely(ep == NULL || ep->qp == NULL || ep->qp->qp_num != qpn)) {
        owner = loom_tl_ib_ep_by_qpn(ib, qpn);   /* error path only: a scan */
    }
    status = loom_tl_ib_frame_check_peer(f, owner ? owner->super.peer : -1,
                                         owner ? owner->credits : 0,
                                         owner ? owner->ctl_credits : 0, why, sizeof(why));
    if (loom_unlikely(status != LOOM_OK)) {
        loom_tl_ib_rx_bad(ib, qpn, LOOM_ERR_TRANSPORT, why);
        return NULL;
    }
    return ep;
}

/* A receive on the SRQ: validate (ib_wire.h), deliver, repost (batched),
 * account the credit. */
static void loom_tl_ib_rx(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *b, uint32_t len,
                          uint32_t qpn)
{
    loom_tl_ib_frame_t f;
    loom_tl_ib_ep_t *ep = NULL;
    char why[160];
    loom_status_t status;

    status = loom_tl_ib_frame_decode(b->data, len, ib->job->size, ib->job->rank, why,
                                     sizeof(why), &f);
    if (loom_unlikely(status != LOOM_OK)) {
        loom_tl_ib_rx_bad(ib, qpn, LOOM_ERR_TRANSPORT, why);
    } else if ((ep = loom_tl_ib_rx_peer(ib, &f, qpn)) != NULL) {
        ep->credits += f.hdr.credits;
        ep->ctl_credits += f.hdr.ctl_credits;
        if (f.hdr.type == LOOM_TL_IB_FRAME_DATA) {
            ib->super.params.am_cb(ib->super.params.cb_arg, (int)f.hdr.src, f.body,
                                   f.body_len);
        }
    }
    if (loom_tl_ib_rx_repost(ib, b) != LOOM_OK) {
        return;
    }
    if (ep != NULL) {
        if (f.hdr.type == LOOM_TL_IB_FRAME_DATA) {
            ++ep->credits_owed;
        } else {
            ++ep->ctl_credits_owed;
        }
        if (ep->credits_owed >= LOOM_TL_IB_CREDITS / 2) {
            loom_tl_ib_send_credits(ep);
        }
    }
}

static const char *loom_tl_ib_wc_what(const loom_tl_ib_buf_t *b)
{
    switch (b->kind) {
    case LOOM_TL_IB_TX: return "send";
    case LOOM_TL_IB_GET: return "RDMA read";
    case LOOM_TL_IB_RMA: return "one-sided (RDMA write/read/atomic)";
    case LOOM_TL_IB_RX: return "receive";
    case LOOM_TL_IB_MC_RX: return "multicast receive";
    case LOOM_TL_IB_MC_TX: return "multicast send";
    default: return "connection datagram";
    }
}

static void loom_tl_ib_wc_error(loom_tl_ib_iface_t *ib, struct ibv_wc *wc)
{
    loom_tl_ib_buf_t *b = (loom_tl_ib_buf_t *)(uintptr_t)wc->wr_id;
    loom_tl_ib_ep_t *ep = NULL;

    if (b->kind == LOOM_TL_IB_TX || b->kind == LOOM_TL_IB_GET) {
        ep = b->kind == LOOM_TL_IB_TX ? b->ep : ((loom_tl_ib_get_op_t *)b)->ep;
    } else if (b->kind == LOOM_TL_IB_RMA) {
        ep = ((loom_tl_ib_rma_op_t *)(void *)b)->ep;
    }
    if (ep == NULL) {
        ep = loom_tl_ib_ep_by_qpn(ib, wc->qp_num);
    }
    if (ep != NULL) {
        loom_tl_ib_ep_fail(ep, wc->status == IBV_WC_RETRY_EXC_ERR ? LOOM_ERR_PEER_FAILED :
                           LOOM_ERR_TRANSPORT, loom_tl_ib_wc_what(b),
                           ibv_wc_status_str(wc->status));
    } else if (wc->status != IBV_WC_WR_FLUSH_ERR) {
        loom_error("ib", "rank %d (%s): %s completion on QP 0x%x failed: %s", ib->job->rank,
                   loom_tl_ib_host(ib, ib->job->rank), loom_tl_ib_wc_what(b), wc->qp_num,
                   ibv_wc_status_str(wc->status));
    }
}

static void loom_tl_ib_completion(loom_tl_ib_iface_t *ib, struct ibv_wc *wc)
{
    loom_tl_ib_buf_t *b = (loom_tl_ib_buf_t *)(uintptr_t)wc->wr_id;
    loom_tl_ib_get_op_t *op;

    if (loom_unlikely(wc->status != IBV_WC_SUCCESS)) {
        loom_tl_ib_wc_error(ib, wc);
    }
    switch (b->kind) {
    case LOOM_TL_IB_RX:
        if (wc->status == IBV_WC_SUCCESS) {
            loom_tl_ib_rx(ib, b, wc->byte_len, wc->qp_num);
        }
        break;
    case LOOM_TL_IB_TX:
        ++b->ep->sq_avail;
        ++b->ep->comps;
        b->next = ib->tx_free;
        ib->tx_free = b;
        if (loom_unlikely(b->ep->credits_owed >= LOOM_TL_IB_CREDITS / 2)) {
            loom_tl_ib_send_credits(b->ep);   /* it waited for SQ room or a buffer */
        }
        break;
    case LOOM_TL_IB_GET:
        op = (loom_tl_ib_get_op_t *)b;
        loom_tl_ib_get_complete(op, wc->status == IBV_WC_SUCCESS);
        break;
    case LOOM_TL_IB_UD_RX:
        if (wc->status == IBV_WC_SUCCESS) {
            loom_tl_ib_cm_handle(ib, b, wc->byte_len);
        }
        break;
    case LOOM_TL_IB_UD_TX:
        loom_tl_ib_cm_ud_tx_done(ib, b);
        break;
    case LOOM_TL_IB_MC_RX:
        if (wc->status == IBV_WC_SUCCESS) {
            loom_tl_ib_mc_rx(ib, b, wc->byte_len);
        } else if (wc->status != IBV_WC_WR_FLUSH_ERR) {
            loom_tl_ib_mc_post_recv(ib, b);
        }
        break;
    case LOOM_TL_IB_MC_TX:
        loom_tl_ib_mc_tx_done(ib, b);
        break;
    case LOOM_TL_IB_RMA:
        loom_tl_ib_rma_complete((loom_tl_ib_rma_op_t *)(void *)b,
                                wc->status == IBV_WC_SUCCESS);
        break;
    }
}

/* Declare failed a peer with work outstanding and no completion for a while. */
static void loom_tl_ib_watchdog(loom_tl_ib_iface_t *ib)
{
    uint64_t now = loom_tl_ib_now_ns();
    char why[128];
    int peer;

    if (now - ib->watch_last_ns < LOOM_TL_IB_WATCH_NS) {
        return;
    }
    ib->watch_last_ns = now;
    for (peer = 0; peer < ib->job->size; ++peer) {
        loom_tl_ib_ep_t *ep = ib->eps[peer];
        if (ep != NULL && ep->fail_notices > 0) {
            loom_tl_ib_cm_notify_fail(ep, now);   /* datagrams may be lost: resend */
        }
        if (ep == NULL || ep->state != LOOM_TL_IB_EP_CONNECTED) {
            continue;
        }
        /* (LOOM_IB_STALL_FAULT, tests: every peer looks stalled here) */
        if (!ib->stall_fault &&
            (ep->sq_avail == LOOM_TL_IB_SQ_DEPTH || ep->comps != ep->comps_seen)) {
            ep->stall_since_ns = 0;
            ep->comps_seen = ep->comps;
        } else if (ep->stall_since_ns == 0) {
            ep->stall_since_ns = now;
        } else if (now - ep->stall_since_ns > ib->stall_ns) {
            snprintf(why, sizeof(why), "no completion for %.1f s with %d work requests "
                     "outstanding (peer dead or unreachable)",
                     (double)(now - ep->stall_since_ns) * 1e-9,
                     LOOM_TL_IB_SQ_DEPTH - ep->sq_avail);
            loom_tl_ib_ep_fail(ep, LOOM_ERR_PEER_FAILED,
                               ep->reads ? "RDMA read" : "send", why);
        }
    }
}

static int loom_tl_ib_progress(loom_tl_iface_t *iface)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);
    struct ibv_wc wc[LOOM_TL_IB_POLL_BATCH];
    int n, i, total = 0;

    do {
        n = ibv_poll_cq(ib->cq, LOOM_TL_IB_POLL_BATCH, wc);
        for (i = 0; i < n; ++i) {
            loom_tl_ib_completion(ib, &wc[i]);
        }
        total += n > 0 ? n : 0;
    } while (n == LOOM_TL_IB_POLL_BATCH);
    if (n < 0) {
        loom_error("ib", "rank %d: ibv_poll_cq failed (%d)", ib->job->rank, n);
    }
    if (loom_unlikely(ib->mc_active > 0)) {   /* a broadcast in flight: its timers */
        loom_tl_ib_mc_progress(ib);
    }
    /* the slow duties every 128 passes, busy or idle: an idle pass is
     * usually a wait for the next completion, which they must not delay
     * (they used to run on every idle pass: a clock read each time and a
     * read() system call every 64, on the path of every round trip) */
    if (loom_unlikely((++ib->progress_count & 127) == 0)) {
        if ((ib->progress_count & 1023) == 0) {
            loom_tl_ib_async_events(ib);
        }
        if (!loom_list_is_empty(&ib->connecting)) {
            loom_tl_ib_cm_progress(ib);
        }
        loom_tl_ib_watchdog(ib);
    }
    return total;
}

const loom_tl_ops_t loom_tl_ib_ops = {
    .open        = loom_tl_ib_open,
    .query       = loom_tl_ib_query,
    .reachable   = loom_tl_ib_reachable,
    .ep_create   = loom_tl_ib_ep_create,
    .ep_destroy  = loom_tl_ib_ep_destroy,
    .am_send     = loom_tl_ib_am_send,
    .mem_pack    = loom_tl_ib_mem_pack,
    .mem_release = loom_tl_ib_mem_release,
    .get         = loom_tl_ib_get,
    .mc_join     = loom_tl_ib_mc_join,
    .mc_bcast    = loom_tl_ib_mc_bcast,
    .mc_leave    = loom_tl_ib_mc_leave,
    .progress    = loom_tl_ib_progress,
    .close       = loom_tl_ib_close,
    .rma_reg     = loom_tl_ib_rma_reg,
    .rma_dereg   = loom_tl_ib_rma_dereg,
    .rma_ep      = loom_tl_ib_rma_ep,
    .rma_put     = loom_tl_ib_rma_put,
    .rma_get     = loom_tl_ib_rma_get,
    .rma_atomic  = loom_tl_ib_rma_atomic,
    .rma_flush   = loom_tl_ib_rma_flush,
};
