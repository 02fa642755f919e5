/*
 * ib_mc_bcast.c: reliable, ordered, exactly-once broadcast on a multicast
 * group (wire format and bookkeeping in ../tl_mc_proto.h, group in
 * ib_mc_int.h, the protocol in docs/ib.md "Multicast").
 *
 *   root                                   receiver
 *   DATA 0..n-1 (multicast, last: POLL) -> copy into the buffer, mark
 *                                          gap (fragment past high+1): NACK
 *                                          POLL and still missing: NACK
 *   NACK -> resend what it names        <- NACK {first, bitmap} (unicast)
 *   all members ACKed: done             <- ACK once complete; ACK again to
 *                                          a POLL of a broadcast done here
 *   silence: send the last fragment again   silence: NACK what is missing
 *   (POLL); the silence allowed doubles     (the same doubling, ib_mc_int.h)
 *   while nothing comes of it
 *
 * The root reads its fragments again from the caller's buffer (it is the
 * transport's until completion), so nothing is kept per fragment; send
 * slots are pre-registered and a full send queue just waits for
 * completions. Any datagram may be lost (LOOM_IB_MCAST_DROP drops received
 * ones on purpose): the timers on both sides recover every case.
 */
#include "ib_mc_int.h"

#include <string.h>

loom_status_t loom_tl_ib_mc_post_recv(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *b)
{
    struct ibv_sge sge = { (uintptr_t)b->data, LOOM_TL_IB_GRH_BYTES + ib->mc_mtu, b->lkey };
    struct ibv_recv_wr wr = { .wr_id = (uintptr_t)b, .sg_list = &sge, .num_sge = 1 };
    struct ibv_recv_wr *bad;

    if (ibv_post_recv(ib->mc.qp, &wr, &bad) != 0) {
        loom_error("ib", "rank %d: posting a multicast receive failed: %m", ib->job->rank);
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}

void loom_tl_ib_mc_tx_done(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *slot)
{
    slot->next = ib->mc_tx_free;
    ib->mc_tx_free = slot;
}

/* Post @p len bytes of @p slot to @p ah / @p qpn; the slot comes back at completion. */
static int loom_tl_ib_mc_post(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *slot, size_t len,
                              struct ibv_ah *ah, uint32_t qpn)
{
    struct ibv_sge sge = { (uintptr_t)slot->data, (uint32_t)len, slot->lkey };
    struct ibv_send_wr wr = { 0 }, *bad;

    wr.wr_id = (uintptr_t)slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = ah;
    wr.wr.ud.remote_qpn = qpn;
    wr.wr.ud.remote_qkey = LOOM_TL_IB_QKEY;
    if (ibv_post_send(ib->mc.qp, &wr, &bad) != 0) {
        loom_error("ib", "rank %d: multicast QP send failed: %m", ib->job->rank);
        return 0;
    }
    ib->mc_tx_free = slot->next;
    return 1;
}

static void loom_tl_ib_mc_hdr(const loom_tl_ib_mc_group_t *g, loom_tl_mc_hdr_t *h, int type,
                              uint32_t op)
{
    memset(h, 0, sizeof(*h));
    h->magic = LOOM_TL_MC_MAGIC;
    h->type = (uint8_t)type;
    h->src = (uint32_t)g->me;
    h->key = g->super.key;
    h->op = op;
}

/* Fragment @p i of the broadcast in flight, to the group. @return 0 if no slot. */
static int loom_tl_ib_mc_send_data(loom_tl_ib_mc_group_t *g, uint32_t i)
{
    loom_tl_ib_buf_t *slot = g->ib->mc_tx_free;
    size_t flen = loom_tl_mc_frag_len(g->len, g->frag_size, i);
    loom_tl_mc_hdr_t h;

    if (slot == NULL) {
        return 0;
    }
    loom_tl_ib_mc_hdr(g, &h, LOOM_TL_MC_DATA, g->op);
    h.len = (uint32_t)g->len;
    h.frag = i;
    h.frag_size = g->frag_size;
    h.flags = i + 1 == g->nfrags ? LOOM_TL_MC_FLAG_POLL : 0;
    loom_tl_mc_encode(slot->data, &h);
    memcpy(slot->data + sizeof(h), g->buf + (size_t)i * g->frag_size, flen);
    ++g->ib->mc_sent;
    return loom_tl_ib_mc_post(g->ib, slot, sizeof(h) + flen, g->mc_ah, 0xffffff);
}

/* ACK or NACK of broadcast @p op to member @p m (lost when no slot: timers recover). */
static void loom_tl_ib_mc_send_ctl(loom_tl_ib_mc_group_t *g, int m, int type, uint32_t op,
                                   uint32_t first, const uint8_t *mask, size_t mask_len)
{
    loom_tl_ib_buf_t *slot = g->ib->mc_tx_free;
    loom_tl_mc_hdr_t h;

    if (slot == NULL || g->ahs[m] == NULL) {
        return;
    }
    loom_tl_ib_mc_hdr(g, &h, type, op);
    h.frag = first;
    loom_tl_mc_encode(slot->data, &h);
    if (mask_len > 0) {
        memcpy(slot->data + sizeof(h), mask, mask_len);
    }
    loom_tl_ib_mc_post(g->ib, slot, sizeof(h) + mask_len, g->ahs[m], g->qpns[m]);
}

/* Receiver: tell the root what is missing below @p upto. */
static void loom_tl_ib_mc_nack(loom_tl_ib_mc_group_t *g, uint32_t upto, uint64_t now)
{
    uint8_t mask[LOOM_TL_MC_NACK_BYTES];
    uint32_t first;
    size_t n = loom_tl_mc_track_nack(&g->track, upto, mask, &first);

    if (n > 0) {
        ++g->ib->mc_nacks;
        g->nack_ns = now;
        loom_tl_ib_mc_send_ctl(g, g->root, LOOM_TL_MC_NACK, g->op, first, mask, n);
    }
}

void loom_tl_ib_mc_finish(loom_tl_ib_mc_group_t *g, loom_status_t status)
{
    loom_tl_comp_t *comp = g->comp;

    g->active = 0;
    ++g->op;
    --g->ib->mc_active;
    g->comp = NULL;
    if (status == LOOM_OK && g->nfrags > 0 && g->n > 1) {
        ++g->ib->mc_done;
    }
    if (g->in_call) {
        g->result = status;
    } else if (comp != NULL) {
        comp->cb(comp, status);
    }
}

/* Receiver: the buffer is complete; ACK (a lost ACK is asked again by POLL). */
static void loom_tl_ib_mc_recv_done(loom_tl_ib_mc_group_t *g)
{
    loom_tl_ib_mc_send_ctl(g, g->root, LOOM_TL_MC_ACK, g->op, 0, NULL, 0);
    loom_tl_ib_mc_finish(g, LOOM_OK);
}

/* Root: send what was asked again, then what was never sent, while slots last. */
static void loom_tl_ib_mc_push(loom_tl_ib_mc_group_t *g)
{
    for (;;) {
        uint32_t i = loom_tl_mc_bits_next(g->resend, g->nfrags, 0);
        if (i < g->nfrags) {
            if (!loom_tl_ib_mc_send_data(g, i)) {
                return;
            }
            ++g->ib->mc_resent;
            g->resend[i / 64] &= ~((uint64_t)1 << (i % 64));
        } else if (g->next_send < g->nfrags) {
            if (!loom_tl_ib_mc_send_data(g, g->next_send)) {
                return;
            }
            ++g->next_send;
        } else {
            return;
        }
    }
}

/* A fragment of a broadcast: the one in flight here, or early (staged). */
static void loom_tl_ib_mc_rx_data(loom_tl_ib_mc_group_t *g, const loom_tl_mc_pkt_t *p,
                                  uint64_t now)
{
    const loom_tl_mc_hdr_t *h = &p->hdr;
    uint32_t stage_op = g->op + (g->active ? 1u : 0u);

    if (g->active && h->op == g->op && g->root != g->me && (int)h->src == g->root) {
        if (h->len != g->len || h->frag_size != g->frag_size) {
            loom_error("ib", "rank %d: multicast broadcast #%u of group %016llx: root rank %d "
                       "sends %u bytes, this rank expects %zu (counts differ)",
                       g->ib->job->rank, g->op, (unsigned long long)g->super.key,
                       g->members[g->root], h->len, g->len);
            loom_tl_ib_mc_finish(g, LOOM_ERR_TRUNCATED);
            return;
        }
        if (loom_tl_mc_track_mark(&g->track, h->frag)) {
            memcpy(g->buf + (size_t)h->frag * g->frag_size, p->body, p->body_len);
            g->last_ns = now;
            g->quiet_ns = LOOM_TL_IB_MC_QUIET_MIN_NS;
        }
        if (loom_tl_mc_track_complete(&g->track)) {
            loom_tl_ib_mc_recv_done(g);
        } else if ((g->track.have < g->track.high || (h->flags & LOOM_TL_MC_FLAG_POLL)) &&
                   now - g->nack_ns > LOOM_TL_IB_MC_NACK_GAP_NS) {
            loom_tl_ib_mc_nack(g, (h->flags & LOOM_TL_MC_FLAG_POLL) ? g->nfrags
                                                                 : g->track.high, now);
        }
    } else if (h->op == stage_op && h->frag_size == g->frag_size) {
        if (!g->stage_valid || g->stage_len != h->len) {
            g->stage_valid = 1;
            g->stage_len = h->len;
            loom_tl_mc_track_reset(&g->stage_track, loom_tl_mc_nfrags(h->len, h->frag_size));
        }
        if (loom_tl_mc_track_mark(&g->stage_track, h->frag)) {
            ++g->ib->mc_staged;
            memcpy(g->stage + (size_t)h->frag * g->frag_size, p->body, p->body_len);
        }
    } else if ((int32_t)(h->op - g->op) < 0 && (h->flags & LOOM_TL_MC_FLAG_POLL)) {
        /* done here: the root did not get our ACK */
        loom_tl_ib_mc_send_ctl(g, (int)h->src, LOOM_TL_MC_ACK, h->op, 0, NULL, 0);
    }
}

static void loom_tl_ib_mc_rx_ctl(loom_tl_ib_mc_group_t *g, const loom_tl_mc_pkt_t *p,
                                 uint64_t now)
{
    const loom_tl_mc_hdr_t *h = &p->hdr;
    uint32_t m = h->src;

    if (!g->active || g->root != g->me || h->op != g->op || (int)m == g->me) {
        return;   /* late or early: the sender's timers ask again */
    }
    g->last_ns = now;
    g->quiet_ns = LOOM_TL_IB_MC_QUIET_MIN_NS;
    if (h->type == LOOM_TL_MC_NACK) {
        loom_tl_mc_nack_apply(g->resend, g->nfrags, h->frag, p->body, p->body_len);
        loom_tl_ib_mc_push(g);
    } else if (!(g->acked[m / 64] >> (m % 64) & 1u)) {
        g->acked[m / 64] |= (uint64_t)1 << (m % 64);
        if (++g->nacked == g->n - 1) {
            loom_tl_ib_mc_finish(g, LOOM_OK);
        }
    }
}

static int loom_tl_ib_mc_drop(loom_tl_ib_iface_t *ib)
{
    uint64_t x = ib->mc_rand;

    x ^= x << 13;   /* xorshift64 */
    x ^= x >> 7;
    x ^= x << 17;
    ib->mc_rand = x;
    return (double)(x >> 11) * (1.0 / 9007199254740992.0) < ib->mc_drop;
}

void loom_tl_ib_mc_rx(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *slot, uint32_t len)
{
    loom_tl_mc_pkt_t p;
    loom_tl_mc_hdr_t h;
    uint64_t now;

    if (ib->mc_drop > 0 && loom_tl_ib_mc_drop(ib)) {
        ++ib->mc_dropped;
        goto repost;
    }
    if (len < LOOM_TL_IB_GRH_BYTES + sizeof(h)) {
        ++ib->mc_bad;
        goto repost;
    }
    memcpy(&h, slot->data + LOOM_TL_IB_GRH_BYTES, sizeof(h));
    for (loom_list_t *it = ib->mc_groups.next; it != &ib->mc_groups; it = it->next) {
        loom_tl_ib_mc_group_t *g = loom_container_of(it, loom_tl_ib_mc_group_t, elem);
        if (g->super.key != h.key || !g->super.joined) {
            continue;
        }
        if (loom_tl_mc_decode(slot->data + LOOM_TL_IB_GRH_BYTES, len - LOOM_TL_IB_GRH_BYTES,
                              g->n, ib->mc_max_len, &p) != LOOM_OK) {
            if (ib->mc_bad++ == 0) {
                loom_warn("ib", "rank %d: malformed multicast datagram (%u bytes) dropped "
                          "(reported once)", ib->job->rank, len);
            }
        } else if ((int)p.hdr.src != g->me) {   /* not our own multicast looped back */
            now = loom_tl_ib_now_ns();
            if (p.hdr.type == LOOM_TL_MC_DATA) {
                loom_tl_ib_mc_rx_data(g, &p, now);
            } else {
                loom_tl_ib_mc_rx_ctl(g, &p, now);
            }
        }
        break;
    }
repost:
    loom_tl_ib_mc_post_recv(ib, slot);
}

/* Receiver: take what came early for this broadcast. */
static void loom_tl_ib_mc_unstage(loom_tl_ib_mc_group_t *g)
{
    uint32_t i;

    if (!g->stage_valid) {
        return;
    }
    g->stage_valid = 0;
    if (g->stage_len != g->len || g->root == g->me) {
        return;
    }
    for (i = loom_tl_mc_bits_next(g->stage_track.bits, g->nfrags, 0); i < g->nfrags;
         i = loom_tl_mc_bits_next(g->stage_track.bits, g->nfrags, i + 1)) {
        loom_tl_mc_track_mark(&g->track, i);
        memcpy(g->buf + (size_t)i * g->frag_size, g->stage + (size_t)i * g->frag_size,
               loom_tl_mc_frag_len(g->len, g->frag_size, i));
    }
}

loom_status_t loom_tl_ib_mc_bcast(loom_tl_mc_t *mc, int root, void *buf, size_t len,
                                  loom_tl_comp_t *comp)
{
    loom_tl_ib_mc_group_t *g = loom_container_of(mc, loom_tl_ib_mc_group_t, super);
    uint64_t now = loom_tl_ib_now_ns();

    if (g->active) {
        return LOOM_ERR_NO_RESOURCE;
    }
    if (!mc->joined || root < 0 || root >= g->n || len > mc->max_len) {
        loom_error("ib", "mc_bcast: group %016llx: %s (root %d of %d, %zu bytes, limit %zu)",
                   (unsigned long long)mc->key, mc->joined ? "bad arguments" : "not joined",
                   root, g->n, len, mc->max_len);
        return LOOM_ERR_INVALID_ARG;
    }
    g->active = 1;
    g->in_call = 1;
    g->result = LOOM_INPROGRESS;
    ++g->ib->mc_active;
    g->root = root;
    g->buf = buf;
    g->len = len;
    g->comp = comp;
    g->nfrags = loom_tl_mc_nfrags(len, g->frag_size);
    g->start_ns = g->last_ns = now;
    g->nack_ns = 0;
    g->quiet_ns = LOOM_TL_IB_MC_QUIET_MIN_NS;
    loom_tl_mc_track_reset(&g->track, g->nfrags);
    loom_tl_ib_mc_unstage(g);
    if (g->nfrags == 0 || g->n == 1) {
        loom_tl_ib_mc_finish(g, LOOM_OK);
    } else if (root == g->me) {
        g->next_send = 0;
        g->nacked = 0;
        memset(g->resend, 0, loom_tl_mc_track_words(g->nfrags) * sizeof(uint64_t));
        memset(g->acked, 0, loom_tl_mc_track_words((uint32_t)g->n) * sizeof(uint64_t));
        loom_tl_ib_mc_push(g);
    } else if (loom_tl_mc_track_complete(&g->track)) {
        loom_tl_ib_mc_recv_done(g);
    } else if (g->track.have < g->track.high) {   /* staged with a gap: ask now */
        loom_tl_ib_mc_nack(g, g->track.high, now);
    }
    g->in_call = 0;
    return g->result == LOOM_INPROGRESS ? LOOM_INPROGRESS : g->result;
}

/* A member whose connection failed, or the broadcast stuck for too long. */
static loom_status_t loom_tl_ib_mc_check(loom_tl_ib_mc_group_t *g, uint64_t now)
{
    for (int m = 0; m < g->n; ++m) {
        loom_tl_ib_ep_t *ep = m == g->me ? NULL : loom_tl_ib_ep_lookup(g->ib, g->members[m]);
        int waited_for = g->root == g->me ? !(g->acked[m / 64] >> (m % 64) & 1u)
                                          : m == g->root;
        if (ep != NULL && waited_for && ep->state == LOOM_TL_IB_EP_FAILED) {
            loom_error("ib", "rank %d: multicast broadcast #%u of group %016llx: member "
                       "rank %d failed", g->ib->job->rank, g->op,
                       (unsigned long long)g->super.key, g->members[m]);
            return LOOM_ERR_PEER_FAILED;
        }
    }
    if (now - g->last_ns > LOOM_TL_IB_MC_GIVEUP_NS) {
        loom_error("ib", "rank %d: multicast broadcast #%u of group %016llx (root rank %d, "
                   "%zu bytes): no progress for %llu s", g->ib->job->rank, g->op,
                   (unsigned long long)g->super.key, g->members[g->root], g->len,
                   (unsigned long long)(LOOM_TL_IB_MC_GIVEUP_NS / 1000000000ull));
        return LOOM_ERR_TIMEOUT;
    }
    return LOOM_OK;
}

static void loom_tl_ib_mc_timers(loom_tl_ib_mc_group_t *g, uint64_t now)
{
    uint64_t quiet = now - (g->last_ns > g->nack_ns ? g->last_ns : g->nack_ns);
    int root = g->root == g->me;
    loom_status_t status;

    if (quiet > g->quiet_ns && (!root || g->next_send == g->nfrags)) {
        if ((status = loom_tl_ib_mc_check(g, now)) != LOOM_OK) {
            loom_tl_ib_mc_finish(g, status);
            return;
        }
        g->nack_ns = now;
        g->quiet_ns = g->quiet_ns * 2 < LOOM_TL_IB_MC_QUIET_MAX_NS ? g->quiet_ns * 2
                                                                  : LOOM_TL_IB_MC_QUIET_MAX_NS;
        if (root) {   /* poll: the last fragment asks every member to answer */
            g->resend[(g->nfrags - 1) / 64] |= (uint64_t)1 << ((g->nfrags - 1) % 64);
        } else {
            loom_tl_ib_mc_nack(g, g->nfrags, now);
        }
    }
    if (root) {
        loom_tl_ib_mc_push(g);
    }
}

void loom_tl_ib_mc_progress(loom_tl_ib_iface_t *ib)
{
    uint64_t now = loom_tl_ib_now_ns();

    for (loom_list_t *it = ib->mc_groups.next; it != &ib->mc_groups; ) {
        loom_tl_ib_mc_group_t *g = loom_container_of(it, loom_tl_ib_mc_group_t, elem);
        it = it->next;   /* a completion callback may start the next broadcast */
        if (g->active) {
            loom_tl_ib_mc_timers(g, now);
        }
    }
}
