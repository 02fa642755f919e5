/*
 * ib_mc.c: multicast groups of the verbs transport: the multicast UD queue
 * pair and its registered slots, joining a group through librdmacm and
 * attaching it to that QP, leaving. The reliable broadcast on a group is in
 * ib_mc_bcast.c; design in docs/ib.md ("Multicast").
 *
 * Group address: 239.X.Y.Z, X.Y.Z a hash of the job id and the group key
 * (the communicator's context id and members), so different groups of a job
 * and different jobs on one fabric rarely share an address; when they do,
 * every datagram carries the 64-bit key and the receiver drops what is not
 * its group's, so a collision costs bandwidth, never correctness.
 */
#include "ib_mc_int.h"
#include "ib_config_int.h"
#include "hash_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define LOOM_TL_IB_MC_JOIN_MS 5000

static loom_tl_ib_iface_t *loom_tl_ib_mc_cur;   /* for loom_tl_ib_mc_stats (tests) */

void loom_tl_ib_mc_stats(loom_tl_ib_mc_stats_t *st)
{
    loom_tl_ib_iface_t *ib = __atomic_load_n(&loom_tl_ib_mc_cur, __ATOMIC_ACQUIRE);

    memset(st, 0, sizeof(*st));
    if (ib != NULL) {
        *st = (loom_tl_ib_mc_stats_t){ ib->mc_done, ib->mc_sent, ib->mc_resent, ib->mc_nacks,
                                       ib->mc_dropped, ib->mc_staged, ib->mc_bad,
                                       ib->mc_joined };
    }
}

loom_status_t loom_tl_ib_mc_open(loom_tl_ib_iface_t *ib)
{
    size_t slot, thr = (size_t)loom_config_int(LOOM_IB_CFG(MCAST_THRESHOLD));
    int i, n = LOOM_TL_IB_MC_RX_DEPTH + LOOM_TL_IB_MC_TX_DEPTH;
    loom_status_t status;

    loom_list_init(&ib->mc_groups);
    ib->mc_mtu = 128u << ib->port_attr.active_mtu;
    ib->mc_max_len = thr < LOOM_TL_IB_MC_MAX_LEN ? thr : LOOM_TL_IB_MC_MAX_LEN;
    ib->mc_drop = loom_config_double(LOOM_IB_CFG(MCAST_DROP));
    ib->mc_rand = 0x9e3779b97f4a7c15ull ^ ((uint64_t)ib->job->rank << 32) ^ loom_tl_ib_now_ns();
    __atomic_store_n(&loom_tl_ib_mc_cur, ib, __ATOMIC_RELEASE);
    if (ib->mc_max_len == 0) {
        return LOOM_OK;   /* multicast off: no QP, caps.can_mcast 0 */
    }
    slot = LOOM_TL_IB_GRH_BYTES + ib->mc_mtu;
    ib->mc_bufs = calloc((size_t)n, sizeof(*ib->mc_bufs));
    if (ib->mc_bufs == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    status = loom_tl_ib_cq_reserve(ib, n);
    if (status == LOOM_OK) {
        status = loom_tl_ib_ud_qp_open(ib, "multicast UD", LOOM_TL_IB_MC_RX_DEPTH,
                                       LOOM_TL_IB_MC_TX_DEPTH, slot, &ib->mc);
    }
    for (i = 0; i < n && status == LOOM_OK; ++i) {
        loom_tl_ib_buf_t *b = &ib->mc_bufs[i];
        b->lkey = ib->mc.mr->lkey;
        b->data = ib->mc.mem + (size_t)i * slot;
        if (i < LOOM_TL_IB_MC_RX_DEPTH) {
            b->kind = LOOM_TL_IB_MC_RX;
            status = loom_tl_ib_mc_post_recv(ib, b);
        } else {
            b->kind = LOOM_TL_IB_MC_TX;
            b->next = ib->mc_tx_free;
            ib->mc_tx_free = b;
        }
    }
    return status;   /* on failure mc_close releases what exists */
}

void loom_tl_ib_mc_close(loom_tl_ib_iface_t *ib)
{
    if (__atomic_load_n(&loom_tl_ib_mc_cur, __ATOMIC_ACQUIRE) == ib) {
        __atomic_store_n(&loom_tl_ib_mc_cur, NULL, __ATOMIC_RELEASE);
    }
    while (ib->mc_groups.next != NULL && !loom_list_is_empty(&ib->mc_groups)) {
        loom_tl_ib_mc_group_t *g = loom_container_of(ib->mc_groups.next,
                                                     loom_tl_ib_mc_group_t, elem);
        loom_tl_ib_mc_leave(&g->super);
    }
    if (ib->mc_cm != NULL) {
        rdma_destroy_id(ib->mc_cm);
    }
    if (ib->mc_ch != NULL) {
        rdma_destroy_event_channel(ib->mc_ch);
    }
    loom_tl_ib_ud_qp_close(&ib->mc);
    free(ib->mc_bufs);
}

/* ---- joining ---------------------------------------------------------------------- */

/* The rdma_cm id, bound to this port's IPv4 address (RoCE: the v4-mapped GID). */
static loom_status_t loom_tl_ib_mc_cm_open(loom_tl_ib_iface_t *ib, const char **why_p)
{
    struct sockaddr_in sin = { .sin_family = AF_INET };

    if (ib->mc_cm != NULL) {
        return LOOM_OK;
    }
    if (!loom_tl_ib_gid_ipv4(ib->my_addr.gid, &sin.sin_addr)) {
        *why_p = "the port has no IPv4 address for rdma_cm (RoCE v2 GID of an IPv4 interface)";
        return LOOM_ERR_UNSUPPORTED;
    }
    ib->mc_ch = rdma_create_event_channel();
    if (ib->mc_ch == NULL || rdma_create_id(ib->mc_ch, &ib->mc_cm, ib, RDMA_PS_UDP) != 0) {
        *why_p = "rdma_create_event_channel/rdma_create_id failed";
        return LOOM_ERR_TRANSPORT;
    }
    if (rdma_bind_addr(ib->mc_cm, (struct sockaddr *)&sin) != 0) {
        *why_p = "rdma_bind_addr to the port's address failed";
        rdma_destroy_id(ib->mc_cm);
        ib->mc_cm = NULL;
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}

/* Wait (bounded) for the answer to our join; fill the group's address. */
static loom_status_t loom_tl_ib_mc_cm_wait(loom_tl_ib_mc_group_t *g, const char **why_p)
{
    loom_tl_ib_iface_t *ib = g->ib;
    struct pollfd pfd = { .fd = ib->mc_ch->fd, .events = POLLIN };
    struct rdma_cm_event *ev;
    loom_status_t status = LOOM_ERR_TIMEOUT;

    *why_p = "no answer from rdma_cm within 5 s";
    while (poll(&pfd, 1, LOOM_TL_IB_MC_JOIN_MS) == 1) {
        if (rdma_get_cm_event(ib->mc_ch, &ev) != 0) {
            *why_p = "rdma_get_cm_event failed";
            return LOOM_ERR_TRANSPORT;
        }
        if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN && ev->param.ud.private_data == g) {
            memcpy(&g->mgid, ev->param.ud.ah_attr.grh.dgid.raw, 16);
            g->mlid = ev->param.ud.ah_attr.dlid;
            status = LOOM_OK;
        } else if (ev->event == RDMA_CM_EVENT_MULTICAST_ERROR) {
            *why_p = "rdma_cm reports a multicast join error";
            status = LOOM_ERR_TRANSPORT;
        }
        rdma_ack_cm_event(ev);
        if (status != LOOM_ERR_TIMEOUT) {
            return status;
        }
    }
    return status;
}

/* Join g->maddr, attach the QP, make the multicast address handle. */
static loom_status_t loom_tl_ib_mc_attach(loom_tl_ib_mc_group_t *g, const char **why_p)
{
    loom_tl_ib_iface_t *ib = g->ib;
    struct ibv_ah_attr ah = { 0 };
    loom_status_t status = loom_tl_ib_mc_cm_open(ib, why_p);

    if (status != LOOM_OK) {
        return status;
    }
    if (rdma_join_multicast(ib->mc_cm, (struct sockaddr *)&g->maddr, g) != 0) {
        *why_p = errno == EADDRINUSE ? "the group address is in use by another group here"
                                     : "rdma_join_multicast failed";
        return LOOM_ERR_TRANSPORT;
    }
    g->cm_joined = 1;
    status = loom_tl_ib_mc_cm_wait(g, why_p);
    if (status != LOOM_OK) {
        return status;
    }
    if (ibv_attach_mcast(ib->mc.qp, &g->mgid, g->mlid) != 0) {
        *why_p = "ibv_attach_mcast failed";
        return LOOM_ERR_TRANSPORT;
    }
    g->attached = 1;
    ah.dlid = g->mlid;
    ah.port_num = ib->port;
    ah.is_global = 1;
    memcpy(ah.grh.dgid.raw, g->mgid.raw, 16);
    ah.grh.sgid_index = (uint8_t)ib->gid_index;
    ah.grh.hop_limit = 1;
    g->mc_ah = ibv_create_ah(ib->pd, &ah);
    if (g->mc_ah == NULL) {
        *why_p = "ibv_create_ah for the group failed";
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}

/* Unicast address handles and QP numbers of every member; the group MTU. */
static loom_status_t loom_tl_ib_mc_members(loom_tl_ib_mc_group_t *g, const char **why_p)
{
    loom_tl_ib_iface_t *ib = g->ib;
    uint32_t mtu = ib->mc_mtu;

    for (int m = 0; m < g->n; ++m) {
        loom_tl_ib_ep_t *ep;

        if (m == g->me) {
            continue;
        }
        ep = loom_tl_ib_ep_lookup(ib, g->members[m]);
        if (ep == NULL || !ep->peer_known || ep->peer_addr.mc_qpn == 0) {
            *why_p = "a member is not reached over this device or has no multicast QP";
            return LOOM_ERR_UNREACHABLE;
        }
        g->qpns[m] = ep->peer_addr.mc_qpn;
        if (128u << ep->peer_addr.mtu < mtu) {
            mtu = 128u << ep->peer_addr.mtu;
        }
        g->ahs[m] = loom_tl_ib_ah_create(ib, &ep->peer_addr);
        if (g->ahs[m] == NULL) {
            *why_p = "ibv_create_ah toward a member failed";
            return LOOM_ERR_TRANSPORT;
        }
    }
    g->frag_size = mtu - (uint32_t)sizeof(loom_tl_mc_hdr_t);
    return LOOM_OK;
}

static loom_tl_ib_mc_group_t *loom_tl_ib_mc_alloc(loom_tl_ib_iface_t *ib,
                                                  const loom_tl_mc_params_t *params)
{
    loom_tl_ib_mc_group_t *g = calloc(1, sizeof(*g));
    size_t n = (size_t)params->num_members;
    uint32_t frags = loom_tl_mc_nfrags(ib->mc_max_len, 64);   /* bound for any MTU */
    size_t words = loom_tl_mc_track_words(frags);

    if (g == NULL) {
        return NULL;
    }
    g->members = malloc(n * sizeof(int));
    g->ahs = calloc(n, sizeof(*g->ahs));
    g->qpns = calloc(n, sizeof(*g->qpns));
    g->acked = calloc(loom_tl_mc_track_words((uint32_t)n), sizeof(uint64_t));
    g->words = calloc(3 * words, sizeof(uint64_t));
    if (g->members == NULL || g->ahs == NULL || g->qpns == NULL || g->acked == NULL ||
        g->words == NULL) {
        loom_tl_ib_mc_free(g);
        return NULL;
    }
    memcpy(g->members, params->members, n * sizeof(int));
    g->ib = ib;
    g->n = params->num_members;
    g->me = params->my_index;
    g->super.iface = &ib->super;
    g->super.key = params->key;
    g->super.max_len = ib->mc_max_len;
    g->track.bits = g->words;
    g->stage_track.bits = g->words + words;
    g->resend = g->words + 2 * words;
    g->track.max_frags = g->stage_track.max_frags = frags;
    return g;
}

void loom_tl_ib_mc_free(loom_tl_ib_mc_group_t *g)
{
    for (int m = 0; g->ahs != NULL && m < g->n; ++m) {
        if (g->ahs[m] != NULL) {
            ibv_destroy_ah(g->ahs[m]);
        }
    }
    free(g->members);
    free(g->ahs);
    free(g->qpns);
    free(g->acked);
    free(g->words);
    free(g->stage);
    free(g);
}

/* Everything that may fail locally; @return the reason, NULL when joined. */
static const char *loom_tl_ib_mc_try_join(loom_tl_ib_mc_group_t *g)
{
    loom_tl_ib_iface_t *ib = g->ib;
    const char *why = NULL;
    uint64_t h;

    if (ib->mc.qp == NULL) {
        return "multicast is off here (LOOM_IB_MCAST_THRESHOLD=0)";
    }
    if (loom_config_int(LOOM_IB_CFG(MCAST_FAULT)) == ib->job->rank) {
        return "LOOM_IB_MCAST_FAULT names this rank (test)";
    }
    if (ib->mc_joined >= LOOM_TL_IB_MC_MAX_JOINED) {
        return "too many groups joined here already";
    }
    if (loom_tl_ib_mc_members(g, &why) != LOOM_OK) {
        return why;
    }
    g->stage = malloc(ib->mc_max_len);
    if (g->stage == NULL) {
        return "out of memory for the staging buffer";
    }
    h = loom_hash_fnv1a64(LOOM_HASH_FNV1A64_INIT, ib->job->jobid, strlen(ib->job->jobid));
    h = loom_hash_fnv1a64(h, &g->super.key, sizeof(g->super.key));
    g->maddr.sin_family = AF_INET;
    g->maddr.sin_addr.s_addr = htonl(0xef000000u | (uint32_t)((h ^ (h >> 24) ^ (h >> 48)) &
                                                               0xffffffu));
    if (loom_tl_ib_mc_attach(g, &why) != LOOM_OK) {
        return why;
    }
    return NULL;
}

loom_status_t loom_tl_ib_mc_join(loom_tl_iface_t *iface, const loom_tl_mc_params_t *params,
                                 loom_tl_mc_t **mc_p)
{
    loom_tl_ib_iface_t *ib = loom_container_of(iface, loom_tl_ib_iface_t, super);
    loom_tl_ib_mc_group_t *g;
    const char *why;
    char addr[INET_ADDRSTRLEN];

    if (params == NULL || params->members == NULL || params->num_members < 1 ||
        params->my_index < 0 || params->my_index >= params->num_members) {
        loom_error("ib", "mc_join: bad group parameters");
        return LOOM_ERR_INVALID_ARG;
    }
    for (loom_list_t *it = ib->mc_groups.next; it != &ib->mc_groups; it = it->next) {
        g = loom_container_of(it, loom_tl_ib_mc_group_t, elem);
        if (g->super.key == params->key && g->n == params->num_members) {
            *mc_p = &g->super;
            return LOOM_OK;
        }
    }
    g = loom_tl_ib_mc_alloc(ib, params);
    if (g == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    why = loom_tl_ib_mc_try_join(g);
    loom_list_add_tail(&ib->mc_groups, &g->elem);
    if (why != NULL) {
        loom_tl_ib_mc_unjoin(g);
        loom_info("ib", "rank %d (%s): no multicast for group %016llx of %d ranks: %s",
                  ib->job->rank, ib->job->hostnames ? ib->job->hostnames[ib->job->rank] : "?",
                  (unsigned long long)g->super.key, g->n, why);
    } else {
        ++ib->mc_joined;
        g->super.joined = 1;
        inet_ntop(AF_INET, &g->maddr.sin_addr, addr, sizeof(addr));
        loom_debug("ib", "rank %d: joined multicast group %016llx (%s, %d members, "
                   "fragments of %u bytes)", ib->job->rank, (unsigned long long)g->super.key,
                   addr, g->n, g->frag_size);
    }
    *mc_p = &g->super;
    return LOOM_OK;
}

/* Drop the membership (the group object stays, to remember the outcome). */
void loom_tl_ib_mc_unjoin(loom_tl_ib_mc_group_t *g)
{
    loom_tl_ib_iface_t *ib = g->ib;

    if (g->mc_ah != NULL) {
        ibv_destroy_ah(g->mc_ah);
        g->mc_ah = NULL;
    }
    if (g->attached) {
        ibv_detach_mcast(ib->mc.qp, &g->mgid, g->mlid);
        g->attached = 0;
    }
    if (g->cm_joined) {
        rdma_leave_multicast(ib->mc_cm, (struct sockaddr *)&g->maddr);
        g->cm_joined = 0;
    }
    if (g->super.joined) {
        g->super.joined = 0;
        --ib->mc_joined;
    }
}

void loom_tl_ib_mc_leave(loom_tl_mc_t *mc)
{
    loom_tl_ib_mc_group_t *g = loom_container_of(mc, loom_tl_ib_mc_group_t, super);

    if (g->active) {
        loom_tl_ib_mc_finish(g, LOOM_ERR_CANCELED);
    }
    loom_tl_ib_mc_unjoin(g);
    loom_list_del(&g->elem);
    loom_tl_ib_mc_free(g);
}
