/*
 * p2p_rndv.c: the rendezvous protocol (docs/p2p.md "Protocols").
 *
 * Sender: expose the buffer (mem_pack), send RTS {address, length, rkey},
 * complete on the receiver's FIN. Receiver, once a receive matched the
 * RTS: get() the message straight into the user buffer, in chunks of at
 * most LOOM_P2P_GET_CHUNK, then FIN (also after an error: the sender must
 * release its buffer).
 *
 * Pushed first bytes. Where the peer's transport asks for it
 * (caps.rndv_push: TCP, whose get is a request the owner answers with a
 * stream, so nothing moves for a round trip) and no other send to that
 * peer waits for its FIN or ACK, a RNDV_DATA frame with the first bytes
 * follows the RTS directly (one thread sends both, so nothing comes
 * between them): the receiver asks for the rest at once and the first
 * bytes travel meanwhile. The receive FINs once both are in, so the sender
 * never completes with a RNDV_DATA still queued. A peer has at most one
 * RNDV_DATA announced and not yet arrived (peer->push_req, a matched
 * receive, or peer->push_ux, an unexpected RTS that keeps the bytes in an
 * eager-sized buffer until a receive matches it, as an eager message
 * does). A RNDV_DATA that is not the one announced is a broken stream: the
 * receive waiting for it fails, an unexpected RTS forgets it and its
 * receive reads the whole message.
 *
 * Typed sends without a pack (docs/p2p.md "Derived datatypes"). Where the
 * peer's transport reads scattered on both sides (get_riov: shm with
 * process_vm_readv; self) and the send type's pieces average at least
 * LOOM_P2P_RIOV_MIN_PIECE bytes (caps.riov_min_piece where the transport
 * sets it: self, copying piece to piece, from 64 B), the sender flattens (buf, count, type)
 * into a piece array instead of packing, exposes the range spanning the
 * pieces, and sends an RTS flagged LOOM_P2P_RTS_RIOV carrying the pieces
 * (up to LOOM_P2P_RIOV_INLINE) or the key of the array, which then stays
 * exposed in its memory until FIN. The receiver copies (or reads) the
 * array when the RTS arrives, then each get reads remote pieces -> local
 * pieces (its own type's, or one range for a contiguous receive, or a
 * bounce it unpacks when its own pieces are small), following a position
 * (piece, offset) in the remote array.
 *
 * Typed sends to this very process (LOOM_P2P_RTS_SELF): where the pieces
 * average under LOOM_P2P_SELF_MAX_PIECE (a halo's columns to itself on a
 * grid of one rank per direction), the RTS hands the receive the sender's
 * (buf, count, type) instead of a packed copy or a piece list. The receive
 * copies from that layout itself: in one pass to the same places when the
 * two types have one layout and their spans do not overlap
 * (loom_dt_move_range), straight into a contiguous buffer (a pack), piece
 * to piece where the layouts differ and both sides' pieces are large,
 * else through a cache-sized bounce (pack, unpack). Before, the sender
 * packed the whole message and the receive unpacked it: two passes over
 * strided memory and a message-sized copy between them.
 */
#include "p2p_engine_int.h"
#include "iov_int.h"
#include "log_int.h"
#include "spans_int.h"

#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void loom_p2p_rndv_finish(loom_request_t req, loom_status_t status);

/* A send's piece array: loom_p2p_tmp_alloc'd, kept until FIN (rq->tmp). */
typedef struct loom_p2p_riov_send {
    loom_tl_memh_t *memh;   /* the array's exposure when it stays remote, else NULL */
    loom_tl_rkey_t  akey;   /* its key (the RTS payload then) */
    size_t          n;
    struct iovec    iov[];
} loom_p2p_riov_send_t;

/* A send to this process that did not pack: what the receive copies from. */
typedef struct loom_p2p_self_src {
    const void *buf;
    size_t      count;
    loom_dt_t  *dt;         /* a reference, dropped when the send is released */
    int         big;        /* its first pieces average LOOM_P2P_SELF_PIECEWISE or more */
} loom_p2p_self_src_t;

/* bytes of a LOOM_P2P_RTS_SELF receive's bounce (two types differ): L2-sized */
#define LOOM_P2P_SELF_CHUNK ((size_t)64 << 10)
/*
 * A typed send to this process is not packed (LOOM_P2P_RTS_SELF) when its
 * pieces average under this many bytes (judged on the first
 * LOOM_P2P_IOV_PROBE); larger ones go by get_riov, one memcpy a piece.
 * The self path's walk costs nothing a piece where the types have one
 * layout, while listing pieces costs ~20-90 instructions a piece on each
 * side: osu_halo 2-D at 2 ranks sends itself columns of 64-1024-byte rows.
 */
#define LOOM_P2P_SELF_MAX_PIECE 1024
/* a receive of two layouts copies piece to piece from pieces of this many
 * bytes on average (on both sides), below it through the bounce */
#define LOOM_P2P_SELF_PIECEWISE 256

/* The receiver's copy of a sender's pieces and its position in them. */
struct loom_p2p_riov {
    const loom_p2p_self_src_t *self;   /* LOOM_P2P_RTS_SELF: the sender's layout */
    loom_status_t error;    /* the array could not be read: the receive fails so */
    int           piecewise; /* get_riov refused this peer: one get() per piece */
    int           pipe;     /* LOOM_P2P_RTS_PIPE: no pieces; a packed copy that grows */
    size_t        avail;    /* pipe: bytes the sender published as packed */
    size_t        n;
    size_t        idx;      /* the next byte to read: piece idx, off bytes into it */
    size_t        off;
    struct iovec  iov[];
};

/*
 * Pipelined typed sends (LOOM_P2P_RTS_PIPE): the copy starts with a
 * LOOM_P2P_PIPE_HDR-byte header whose first word counts the bytes packed
 * so far (LOOM_P2P_PIPE_FAILED: the pack failed; both in p2p_proto_int.h);
 * the data follows it. Messages above LOOM_P2P_PIPE_MIN bytes: the first
 * LOOM_P2P_PIPE_FIRST bytes are packed before the RTS goes, the rest in
 * LOOM_P2P_PIPE_CHUNK steps, each published behind it.
 */
#define LOOM_P2P_PIPE_MIN    ((size_t)64 << 10)
#define LOOM_P2P_PIPE_FIRST  ((size_t)32 << 10)
#define LOOM_P2P_PIPE_CHUNK  ((size_t)64 << 10)

/* pieces a typed receive judges get_iov on before it flattens the rest */
#define LOOM_P2P_IOV_PROBE 64

/* a typed receive's bounce where each get costs a request trip (tcp) */
#define LOOM_P2P_DT_BOUNCE_FAR ((size_t)1 << 20)
/* ... in steps of this many bytes for a message of LOOM_P2P_DT_STEP_FAR_MIN or more */
#define LOOM_P2P_DT_STEP_FAR     ((size_t)256 << 10)
#define LOOM_P2P_DT_STEP_FAR_MIN ((size_t)1 << 20)

/* ---- sender ---------------------------------------------------------------------- */

/*
 * A typed send packed as the peer reads it (loom_p2p_isend_dt_fill): this
 * header, then, LOOM_P2P_FILL_HDR bytes in, the packed copy. `done` holds
 * the ranges of the copy already packed: the transport's streams (one per
 * get of the receiver) take turns, so each read packs exactly what it
 * lacks (base/spans_int.h), never the other streams' bytes ahead of time.
 */
typedef struct loom_p2p_fill_src {
    const void   *buf;
    size_t        count;
    loom_dt_t    *dt;       /* a reference, dropped when the send is released */
    loom_status_t failed;   /* a pack failed: every later read fails too */
    loom_spans_t  done;
} loom_p2p_fill_src_t;

#define LOOM_P2P_FILL_HDR ((size_t)192)   /* keeps the copy cache-line aligned */
_Static_assert(sizeof(loom_p2p_fill_src_t) <= LOOM_P2P_FILL_HDR, "fill header too small");

/* pack bytes [lo, hi) of the send into its copy */
static loom_status_t loom_p2p_fill_range(loom_p2p_fill_src_t *f, size_t lo, size_t hi)
{
    loom_status_t st = lo < hi ? loom_dt_pack_range(f->buf, f->count, f->dt, lo, hi - lo,
                                                    (char *)f + LOOM_P2P_FILL_HDR + lo)
                               : LOOM_OK;

    if (st != LOOM_OK) {
        f->failed = st;
    }
    return st;
}

/*
 * mem_pack_fill's producer: bytes [off, off + len) of the copy, packed now
 * (@p ahead: the range the peer reads next, guessed by the transport; the
 * same work)
 */
static loom_status_t loom_p2p_fill_pack(void *arg, size_t off, size_t len, int ahead)
{
    loom_p2p_fill_src_t *f = arg;
    size_t end = off + len, at = off, lo, hi;
    loom_status_t st = f->failed;

    (void)ahead;
    while (st == LOOM_OK && loom_spans_gap(&f->done, at, end, &lo, &hi)) {
        st = loom_p2p_fill_range(f, lo, hi);
        at = hi;
    }
    if (st != LOOM_OK || len == 0) {
        return st;
    }
    loom_spans_add(&f->done, off, end, &lo, &hi);
    return loom_p2p_fill_range(f, lo, hi);   /* a gap a full set joined, if any */
}

loom_status_t loom_p2p_isend_rndv(loom_request_t req, loom_p2p_peer_t *peer,
                                  const loom_p2p_hdr_t *base)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_p2p_pending_t *push_item = NULL;
    loom_p2p_hdr_rts_t h;
    loom_status_t st;

    if (!peer->can_rndv) {
        loom_error("p2p", "send of %zu bytes to rank %d: above the eager limit (%zu) "
                   "and transport %s cannot do rendezvous (no get)", rq->len,
                   rq->peer, peer->eager_limit, peer->ep->iface->name);
        return LOOM_ERR_UNSUPPORTED;
    }
    memset(&h, 0, sizeof(h));
    h.base      = *base;
    h.base.type = LOOM_P2P_RTS;
    h.raddr     = (uint64_t)(uintptr_t)rq->buf;
    st = rq->tmp != NULL && rq->count == LOOM_P2P_TMP_FILL   /* packed as read */
         ? peer->ep->iface->ops.mem_pack_fill(peer->ep->iface, rq->buf, rq->len,
                                              loom_p2p_fill_pack, rq->tmp, &h.rkey, &rq->memh)
         : loom_tl_mem_pack(peer->ep->iface, rq->buf, rq->len, &h.rkey, &rq->memh);
    if (st != LOOM_OK) {
        loom_error("p2p", "send of %zu bytes to rank %d: cannot expose the buffer "
                   "over %s: %s", rq->len, rq->peer, peer->ep->iface->name,
                   loom_strerror(st));
        return st;
    }
    st = loom_p2p_sreq_register(req, &rq->sreq);
    if (st != LOOM_OK) {
        loom_p2p_send_rndv_release(peer, rq);
        return st;
    }
    h.sreq = rq->sreq;
    /*
     * Push only onto an idle pair: with other sends to this peer still
     * waiting for their FIN or ACK the connection is busy anyway, and pushed
     * bytes would only cost a copy on each side (osu_bw, window 64). The
     * RNDV_DATA's queue entry is reserved first: once the RTS is out, only a
     * failing transport (which fails the peer) may stop the data.
     */
    if (peer->rndv_push != 0 && peer->rndv_push < rq->len &&
        loom_list_is_empty(&peer->awaiting) &&
        (push_item = loom_mpool_get(&loom_p2p_engine.pending_pool)) != NULL) {
        h.pushed = (uint32_t)peer->rndv_push;
    }
    req->flags |= LOOM_REQ_FLAG_SYNC | LOOM_REQ_FLAG_RNDV;
    st = loom_p2p_frame_send(peer, &h, sizeof(h), NULL, 0, req, 0);
    if (push_item != NULL && st < 0) {
        loom_mpool_put(&loom_p2p_engine.pending_pool, push_item);
    } else if (push_item != NULL) {
        /* straight behind the RTS: one thread sends both, nothing comes
         * between; no request, so only the RTS stands for the send */
        loom_p2p_hdr_ctl_t d = { .type = LOOM_P2P_RNDV_DATA, .sreq = rq->sreq };

        req->flags |= LOOM_REQ_FLAG_PUSHED;
        /* fails only in the transport, the entry given back: nothing queued */
        st = loom_p2p_frame_send_reserved(peer, push_item, &d, sizeof(d), rq->buf, h.pushed);
    }
    if (st < 0) {
        loom_p2p_sreq_take(rq->sreq);
        loom_p2p_send_rndv_release(peer, rq);
    }
    return st;
}

void loom_p2p_pending_release_push(loom_p2p_peer_t *peer, uint64_t sreq, int keep)
{
    loom_p2p_pending_t *item, *tmp;

    loom_list_for_each_safe(item, tmp, &peer->pending, list) {
        uint64_t id;
        void *copy;

        if (item->hdr[0] != LOOM_P2P_RNDV_DATA || item->owned) {
            continue;
        }
        memcpy(&id, item->hdr + offsetof(loom_p2p_hdr_ctl_t, sreq), sizeof(id));
        if (id != sreq) {
            continue;
        }
        if (keep && (copy = malloc(item->payload_len)) != NULL) {
            memcpy(copy, item->payload, item->payload_len);
            item->payload = copy;
            item->owned   = 1;
            continue;
        }
        if (keep) {
            loom_error("p2p", "rank %s: out of memory keeping %zu queued bytes for rank %d; "
                       "dropped (that receive fails)", loom_log_identity(),
                       item->payload_len, (int)(peer - loom_p2p_engine.peers));
        }
        loom_list_del(&item->list);
        loom_p2p_pending_free(item);
    }
    loom_p2p_pending_unlink_idle(peer);
}

/* ---- sender: typed, not packed ----------------------------------------------------- */

/* the average local piece from which @p ep's scattered reads beat an unpack */
static inline size_t loom_p2p_iov_min_piece(const loom_tl_ep_t *ep)
{
    size_t m = ep->iface->caps.iov_min_piece;

    return m != 0 ? m : LOOM_P2P_IOV_MIN_PIECE;
}

/*
 * The bounce of typed receive @p req reading from @p ep: LOOM_P2P_DT_BOUNCE
 * (in cache for the unpack), or, where each get is a request the owner
 * answers (caps.rndv_push set: tcp), LOOM_P2P_DT_BOUNCE_FAR for a message
 * under LOOM_P2P_DT_STEP_FAR_MIN (one request for what the push left) and
 * LOOM_P2P_DT_STEP_FAR steps above: the sender packs each step as it sends
 * it (loom_p2p_isend_dt_fill), so smaller steps overlap its pack with this
 * rank's unpack (osu_column over tcp, alternating runs: 1 MiB 655 -> 588
 * us, 4 MiB 4.45 -> 4.1 ms with 1 MiB against 256 KiB steps; a 512 KiB
 * message was 5% slower in two steps than in one).
 */
static inline size_t loom_p2p_dt_bounce(loom_request_t req, const loom_tl_ep_t *ep)
{
    if (ep->iface->caps.rndv_push == 0) {
        return LOOM_P2P_DT_BOUNCE;
    }
    return req->msg.bytes >= LOOM_P2P_DT_STEP_FAR_MIN ? LOOM_P2P_DT_STEP_FAR
                                                      : LOOM_P2P_DT_BOUNCE_FAR;
}

/*
 * A typed receive of more than one bounce from @p ep where each get is a
 * request the owner answers (caps.rndv_push: tcp) takes two bounces and
 * asks for the next chunk before it unpacks the one that arrived
 * (loom_p2p_rndv_get_ahead), so the owner streams while this rank
 * unpacks; with one bounce the wire idled during every unpack.
 */
static inline int loom_p2p_dt_double(loom_request_t req, const loom_tl_ep_t *ep)
{
    return ep->iface->caps.rndv_push != 0 && req->msg.bytes > loom_p2p_dt_bounce(req, ep);
}

/*
 * The half of a double bounce (@p b bytes each) that the chunk at
 * @p offset uses: chunks start at P + k b (P: the pushed bytes), so
 * ceil(offset / b) alternates from one chunk to the next.
 */
static inline char *loom_p2p_dt_half(const loom_p2p_req_t *rq, size_t offset, size_t b)
{
    return (char *)rq->tmp + ((offset + b - 1) / b % 2) * b;
}

/* the average remote piece from which @p ep's get_riov beats a pack */
static inline size_t loom_p2p_riov_min_piece(const loom_tl_ep_t *ep)
{
    size_t m = ep->iface->caps.riov_min_piece;

    return m != 0 ? m : LOOM_P2P_RIOV_MIN_PIECE;
}

void loom_p2p_riov_send_release(loom_p2p_peer_t *peer, void *pieces)
{
    loom_p2p_riov_send_t *s = pieces;

    if (s->memh != NULL) {
        loom_tl_mem_release(peer->ep->iface, s->memh);
        s->memh = NULL;
    }
}

/*
 * Send the RTS @p h (with @p plen bytes of @p payload) of a typed send whose
 * region and copies are set up: its id registered, the frame sent. On a
 * failure both are undone and the region released. The frame's status.
 */
static loom_status_t loom_p2p_rts_send(loom_request_t req, loom_p2p_peer_t *peer,
                                       loom_p2p_hdr_rts_t *h, const void *payload,
                                       size_t plen)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_status_t st = loom_p2p_sreq_register(req, &rq->sreq);

    if (st != LOOM_OK) {
        loom_p2p_send_rndv_release(peer, rq);
        return st;
    }
    h->sreq = rq->sreq;
    req->flags |= LOOM_REQ_FLAG_SYNC | LOOM_REQ_FLAG_RNDV;
    st = loom_p2p_frame_send(peer, h, sizeof(*h), payload, plen, req, 0);
    if (st < 0) {
        loom_p2p_sreq_take(rq->sreq);
        loom_p2p_send_rndv_release(peer, rq);
    }
    return st;
}

/*
 * The @p len-byte stream of (buf, count, dt) as pieces in a new array
 * (*out): LOOM_ERR_UNSUPPORTED where they average under
 * @p min_piece bytes (judged on the first 64 pieces, then on
 * all of them) or are too many for the RTS's count.
 */
static loom_status_t loom_p2p_riov_flatten(const void *buf, size_t count, loom_dt_t *dt,
                                           size_t len, size_t min_piece,
                                           loom_p2p_riov_send_t **out)
{
    struct iovec probe[64];
    size_t n = 0, bytes = 0, max;
    loom_p2p_riov_send_t *s;
    loom_status_t st = loom_dt_iov(buf, count, dt, 0, len, probe, 64, &n, &bytes);

    if (st != LOOM_OK || bytes < n * min_piece) {
        return st != LOOM_OK ? st : LOOM_ERR_UNSUPPORTED;
    }
    max = bytes == len ? n : LOOM_MIN(len / min_piece, (size_t)UINT32_MAX);
    s = loom_p2p_tmp_alloc(sizeof(*s) + max * sizeof(struct iovec));
    if (s == NULL) {
        return LOOM_ERR_UNSUPPORTED;   /* the pack path reports memory */
    }
    if (bytes == len) {
        memcpy(s->iov, probe, n * sizeof(struct iovec));
    } else if ((st = loom_dt_iov(buf, count, dt, 0, len, s->iov, max, &n, &bytes)) != LOOM_OK ||
               bytes < len) {
        loom_p2p_tmp_free(s);
        return st != LOOM_OK ? st : LOOM_ERR_UNSUPPORTED;
    }
    s->n    = n;
    s->memh = NULL;
    *out = s;
    return LOOM_OK;
}

/*
 * Expose the range spanning the pieces of @p s (the RTS's key) and, when
 * they do not travel inline, the array itself; fill the RTS's fields.
 * *payload_p / *plen_p: what the RTS carries.
 */
static loom_status_t loom_p2p_riov_expose(loom_p2p_req_t *rq, loom_p2p_peer_t *peer,
                                          loom_p2p_riov_send_t *s, loom_p2p_hdr_rts_t *h,
                                          const void **payload_p, size_t *plen_p)
{
    loom_tl_iface_t *iface = peer->ep->iface;
    size_t span = 0, alen = s->n * sizeof(struct iovec);
    uintptr_t lo = 0;
    loom_status_t st = loom_dt_iov_span(s->iov, s->n, &lo, &span);

    if (st == LOOM_OK) {
        st = loom_tl_mem_pack(iface, (const void *)lo, span, &h->rkey, &rq->memh);
    }
    if (st != LOOM_OK) {
        return st;
    }
    h->base.reserved[0] = LOOM_P2P_RTS_RIOV;
    h->rsvd = (uint32_t)s->n;
    if (s->n <= LOOM_P2P_RIOV_INLINE && sizeof(*h) + alen <= iface->caps.max_am) {
        *payload_p = s->iov;
        *plen_p    = alen;
        return LOOM_OK;
    }
    st = loom_tl_mem_pack(iface, s->iov, alen, &s->akey, &s->memh);
    if (st != LOOM_OK) {
        s->memh = NULL;
        loom_tl_mem_release(iface, rq->memh);
        return st;
    }
    h->base.reserved[0] |= LOOM_P2P_RTS_RIOV_REMOTE;
    h->raddr   = (uint64_t)(uintptr_t)s->iov;
    *payload_p = &s->akey;
    *plen_p    = sizeof(s->akey);
    return LOOM_OK;
}

loom_status_t loom_p2p_isend_dt_riov(loom_request_t req, loom_p2p_peer_t *peer,
                                     const loom_p2p_hdr_t *base, const void *buf,
                                     size_t count, loom_dt_t *dt)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_tl_ep_t *ep = peer->ep;
    loom_p2p_riov_send_t *s = NULL;
    loom_p2p_hdr_rts_t h;
    const void *payload = NULL;
    size_t plen = 0;
    loom_status_t st;

    if (!peer->can_rndv || ep->iface->ops.get_riov == NULL ||
        ep->iface->ops.get_riov(ep, NULL, 0, NULL, 0, NULL, NULL) != LOOM_OK ||
        (st = loom_p2p_riov_flatten(buf, count, dt, rq->len, loom_p2p_riov_min_piece(ep),
                                     &s)) == LOOM_ERR_UNSUPPORTED) {
        return LOOM_ERR_UNSUPPORTED;
    }
    if (st != LOOM_OK) {
        return st;
    }
    memset(&h, 0, sizeof(h));
    h.base      = *base;
    h.base.type = LOOM_P2P_RTS;
    if ((st = loom_p2p_riov_expose(rq, peer, s, &h, &payload, &plen)) != LOOM_OK) {
        loom_p2p_tmp_free(s);
        return st;
    }
    rq->tmp   = s;
    rq->count = LOOM_P2P_TMP_RIOV;
    loom_debug("p2p", "typed send of %zu bytes to rank %d not packed: %zu pieces, %s",
               rq->len, rq->peer, s->n,
               s->memh != NULL ? "their array read from this rank" : "inline in the RTS");
    return loom_p2p_rts_send(req, peer, &h, payload, plen);
}

/* ---- sender: typed, to this very process ------------------------------------------ */

void loom_p2p_self_src_release(void *src)
{
    loom_dt_release(((loom_p2p_self_src_t *)src)->dt);
}

/* The bytes (count, dt) at @p buf can touch: [*lo_p, *lo_p + *len_p). */
static void loom_p2p_dt_span(const void *buf, size_t count, const loom_dt_t *dt,
                             uintptr_t *lo_p, size_t *len_p)
{
    ptrdiff_t lb, extent, tlb, textent, last;

    loom_dt_get_extent(dt, &lb, &extent);
    loom_dt_get_true_extent(dt, &tlb, &textent);
    last = (ptrdiff_t)(count - 1) * extent;   /* the last instance's origin */
    *lo_p  = (uintptr_t)buf + (uintptr_t)(tlb + LOOM_MIN(last, (ptrdiff_t)0));
    *len_p = (size_t)(textent + (last < 0 ? -last : last));
}

/* the average of (buf, count, dt)'s first pieces from stream byte @p off (0: none) */
static size_t loom_p2p_dt_pieces_avg(const void *buf, size_t count, const loom_dt_t *dt,
                                     size_t off, size_t len)
{
    struct iovec probe[LOOM_P2P_IOV_PROBE];
    size_t n = 0, bytes = 0;

    if (loom_dt_iov(buf, count, dt, off, len, probe, LOOM_P2P_IOV_PROBE, &n, &bytes) !=
            LOOM_OK || n == 0) {
        return 0;
    }
    return bytes / n;
}

loom_status_t loom_p2p_isend_dt_self(loom_request_t req, loom_p2p_peer_t *peer,
                                     const loom_p2p_hdr_t *base, const void *buf,
                                     size_t count, loom_dt_t *dt)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_p2p_self_src_t *src;
    loom_p2p_hdr_rts_t h;
    uintptr_t lo;
    size_t span;
    loom_status_t st;

    size_t avg;

    if (rq->peer != loom_p2p_engine.world_rank || !peer->can_rndv || count == 0 ||
        (avg = loom_p2p_dt_pieces_avg(buf, count, dt, 0, rq->len)) == 0 ||
        avg >= LOOM_P2P_SELF_MAX_PIECE) {
        return LOOM_ERR_UNSUPPORTED;   /* large pieces: get_riov copies piece to piece */
    }
    if ((src = loom_p2p_tmp_alloc(sizeof(*src))) == NULL) {
        return LOOM_ERR_UNSUPPORTED;   /* the pack path reports memory */
    }
    memset(&h, 0, sizeof(h));
    h.base      = *base;
    h.base.type = LOOM_P2P_RTS;
    h.base.reserved[0] = LOOM_P2P_RTS_SELF;
    loom_p2p_dt_span(buf, count, dt, &lo, &span);
    h.raddr     = (uint64_t)lo;   /* not read: the receive finds the send by sreq */
    if ((st = loom_tl_mem_pack(peer->ep->iface, (const void *)lo, span, &h.rkey,
                               &rq->memh)) != LOOM_OK) {
        loom_p2p_tmp_free(src);
        return LOOM_ERR_UNSUPPORTED;
    }
    src->buf   = buf;
    src->count = count;
    src->dt    = dt;
    src->big   = avg >= LOOM_P2P_SELF_PIECEWISE;
    loom_dt_retain(dt);
    rq->tmp   = src;
    rq->count = LOOM_P2P_TMP_SELF;
    loom_debug("p2p", "typed send of %zu bytes to rank %d not packed: to this process, "
               "its receive copies from the send's layout", rq->len, rq->peer);
    return loom_p2p_rts_send(req, peer, &h, NULL, 0);
}

/* ---- sender: typed, packed while the receiver reads (pipelined) -------------------- */

/* the packed copy's progress word: its first bytes, the data after them */
static inline uint64_t *loom_p2p_pipe_word(void *tmp)
{
    return (uint64_t *)tmp;
}

/* pack bytes [from, to) of (buf, count, dt) and publish them as packed */
static loom_status_t loom_p2p_pipe_pack(void *tmp, const void *buf, size_t count,
                                        loom_dt_t *dt, size_t from, size_t to)
{
    char *data = (char *)tmp + LOOM_P2P_PIPE_HDR;
    loom_status_t st;

    for (size_t at = from; at < to; at += LOOM_MIN(to - at, LOOM_P2P_PIPE_CHUNK)) {
        size_t n = LOOM_MIN(to - at, LOOM_P2P_PIPE_CHUNK);

        st = loom_dt_pack_range(buf, count, dt, at, n, data + at);
        if (st != LOOM_OK) {
            return st;
        }
        /* the bytes before the word: a reader that sees the word sees them */
        __atomic_store_n(loom_p2p_pipe_word(tmp), (uint64_t)(at + n), __ATOMIC_RELEASE);
    }
    return LOOM_OK;
}

loom_status_t loom_p2p_isend_dt_pipe(loom_request_t req, loom_p2p_peer_t *peer,
                                     const loom_p2p_hdr_t *base, const void *buf,
                                     size_t count, loom_dt_t *dt)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_tl_ep_t *ep = peer->ep;
    size_t first = LOOM_MIN(rq->len, LOOM_P2P_PIPE_FIRST);
    loom_p2p_hdr_rts_t h;
    loom_status_t st;

    if (!peer->can_rndv || rq->len <= LOOM_P2P_PIPE_MIN || ep->iface->ops.get_riov == NULL ||
        ep->iface->ops.get_riov(ep, NULL, 0, NULL, 0, NULL, NULL) != LOOM_OK) {
        return LOOM_ERR_UNSUPPORTED;
    }
    if ((rq->tmp = loom_p2p_tmp_alloc(LOOM_P2P_PIPE_HDR + rq->len)) == NULL) {
        return LOOM_ERR_UNSUPPORTED;   /* the whole pack reports memory */
    }
    rq->count = 0;   /* tmp is a packed copy: freed where the region is released */
    *loom_p2p_pipe_word(rq->tmp) = 0;
    memset(&h, 0, sizeof(h));
    h.base      = *base;
    h.base.type = LOOM_P2P_RTS;
    h.base.reserved[0] = LOOM_P2P_RTS_PIPE;
    h.raddr     = (uint64_t)(uintptr_t)rq->tmp + LOOM_P2P_PIPE_HDR;
    h.rsvd      = (uint32_t)first;
    if ((st = loom_p2p_pipe_pack(rq->tmp, buf, count, dt, 0, first)) != LOOM_OK ||
        (st = loom_tl_mem_pack(ep->iface, rq->tmp, LOOM_P2P_PIPE_HDR + rq->len, &h.rkey,
                               &rq->memh)) != LOOM_OK) {
        goto err_free_tmp;
    }
    if ((st = loom_p2p_rts_send(req, peer, &h, NULL, 0)) < 0) {
        return st;
    }
    loom_debug("p2p", "typed send of %zu bytes to rank %d packed while read: RTS after "
               "%zu bytes, the rest in steps of %zu", rq->len, rq->peer, first,
               LOOM_P2P_PIPE_CHUNK);
    /*
     * The rest while the receiver reads what is published. Nothing here
     * runs progress (and the call holds the MULTIPLE lock), so no FIN can
     * release the copy before the last byte is packed, and a get the owner
     * serves itself (shm without CMA) is served only after this.
     */
    if (loom_p2p_pipe_pack(rq->tmp, buf, count, dt, first, rq->len) != LOOM_OK) {
        /* not for a committed type within its stream; the receiver fails */
        loom_error("p2p", "typed send of %zu bytes to rank %d: the pack failed after the "
                   "first %zu bytes (the receive fails)", rq->len, rq->peer, first);
        __atomic_store_n(loom_p2p_pipe_word(rq->tmp), LOOM_P2P_PIPE_FAILED, __ATOMIC_RELEASE);
    }
    return st;

err_free_tmp:
    loom_p2p_tmp_free(rq->tmp);
    rq->tmp = NULL;
    return st;
}

/* ---- sender: typed, packed as the transport sends it (mem_pack_fill) --------------- */

void loom_p2p_fill_src_release(void *src)
{
    loom_dt_release(((loom_p2p_fill_src_t *)src)->dt);
}

loom_status_t loom_p2p_isend_dt_fill(loom_request_t req, loom_p2p_peer_t *peer,
                                     const loom_p2p_hdr_t *base, const void *buf,
                                     size_t count, loom_dt_t *dt)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_p2p_fill_src_t *f;
    loom_status_t st;

    if (!peer->can_rndv || peer->ep->iface->ops.mem_pack_fill == NULL ||
        (f = loom_p2p_tmp_alloc(LOOM_P2P_FILL_HDR + rq->len)) == NULL) {
        return LOOM_ERR_UNSUPPORTED;   /* (no memory: the whole pack reports it) */
    }
    *f = (loom_p2p_fill_src_t){ .buf = buf, .count = count, .dt = dt, .failed = LOOM_OK };
    loom_spans_init(&f->done);
    /* the bytes pushed behind the RTS are read at once */
    st = loom_p2p_fill_pack(f, 0, LOOM_MIN(rq->len, peer->rndv_push), 0);
    if (st != LOOM_OK) {
        loom_p2p_tmp_free(f);
        return st;
    }
    loom_dt_retain(dt);
    rq->tmp   = f;
    rq->count = LOOM_P2P_TMP_FILL;
    rq->buf   = (char *)f + LOOM_P2P_FILL_HDR;
    loom_debug("p2p", "typed send of %zu bytes to rank %d packed as %s reads it",
               rq->len, rq->peer, peer->ep->iface->name);
    st = loom_p2p_isend_rndv(req, peer, base);
    if (st < 0) {
        loom_p2p_send_tmp_drop(peer, rq);   /* (a release on the way already did: NULL) */
    }
    return st;
}

/* ---- receiver ------------------------------------------------------------------ */

/*
 * No memory for the pieces an RTS announces (up to one per 16 bytes of the
 * message, a peer's claim): that receive alone fails with
 * LOOM_ERR_NO_MEMORY (an empty list carrying the error); the job goes on.
 */
static struct loom_p2p_riov *loom_p2p_riov_nomem(int world_src,
                                                 const loom_p2p_hdr_rts_t *h)
{
    struct loom_p2p_riov *r = malloc(sizeof(*r));

    loom_error("p2p", "rank %s: out of memory holding the %u pieces (%zu bytes) of a "
               "%llu-byte rendezvous send from rank %d (%s) (its receive fails)",
               loom_log_identity(), h->rsvd, (size_t)h->rsvd * sizeof(struct iovec),
               (unsigned long long)h->base.len, world_src, loom_p2p_peer_host(world_src));
    if (r == NULL) {
        loom_abort(1, "out of memory for a rendezvous's pieces");   /* a few bytes */
    }
    r->n = 0;
    r->idx = r->off = 0;
    r->self = NULL;
    r->error = LOOM_ERR_NO_MEMORY;
    r->piecewise = 0;
    r->pipe = 0;
    r->avail = 0;
    return r;
}

/*
 * An RTS flagged LOOM_P2P_RTS_SELF: the send it names (sreq) is in this
 * process's own table, and its layout is what the receive copies from. No
 * address in the frame is trusted: from any other rank, or naming no such
 * send, the receive fails.
 */
static struct loom_p2p_riov *loom_p2p_self_take(int world_src, const loom_p2p_hdr_rts_t *h)
{
    struct loom_p2p_riov *r = malloc(sizeof(*r));
    loom_request_t send = world_src == loom_p2p_engine.world_rank
                          ? loom_p2p_sreq_find(h->sreq) : NULL;
    const loom_p2p_req_t *sq = send != NULL ? loom_p2p_req(send) : NULL;

    if (r == NULL) {
        return loom_p2p_riov_nomem(world_src, h);
    }
    memset(r, 0, sizeof(*r));
    r->error = LOOM_OK;
    if (sq == NULL || sq->count != LOOM_P2P_TMP_SELF || sq->tmp == NULL) {
        loom_error("p2p", "rank %s: a rendezvous send from rank %d (%s) claims to be this "
                   "process's own typed send, and is not (its receive fails)",
                   loom_log_identity(), world_src, loom_p2p_peer_host(world_src));
        r->error = LOOM_ERR_TRANSPORT;
        return r;
    }
    r->self = sq->tmp;
    return r;
}

/* an RTS flagged LOOM_P2P_RTS_PIPE: no pieces, its first rsvd bytes packed */
static struct loom_p2p_riov *loom_p2p_pipe_take(int world_src, const loom_p2p_hdr_rts_t *h)
{
    struct loom_p2p_riov *r = malloc(sizeof(*r));

    if (r == NULL) {
        return loom_p2p_riov_nomem(world_src, h);
    }
    memset(r, 0, sizeof(*r));
    r->error = LOOM_OK;
    r->pipe  = 1;
    r->avail = h->rsvd;
    return r;
}

struct loom_p2p_riov *loom_p2p_riov_take(int world_src, const loom_p2p_hdr_rts_t *h,
                                         const void *payload, size_t len)
{
    loom_tl_ep_t *ep = loom_p2p_engine.peers[world_src].ep;
    size_t bytes = (size_t)h->rsvd * sizeof(struct iovec);
    struct loom_p2p_riov *r;
    loom_tl_rkey_t akey;

    if (h->base.reserved[0] & LOOM_P2P_RTS_PIPE) {
        return loom_p2p_pipe_take(world_src, h);
    }
    if (h->base.reserved[0] & LOOM_P2P_RTS_SELF) {
        return loom_p2p_self_take(world_src, h);
    }
    if ((r = malloc(sizeof(*r) + bytes)) == NULL) {
        return loom_p2p_riov_nomem(world_src, h);
    }
    r->n = h->rsvd;
    r->idx = r->off = 0;
    r->self = NULL;
    r->error = LOOM_OK;
    r->piecewise = 0;
    r->pipe = 0;
    r->avail = 0;
    if (!(h->base.reserved[0] & LOOM_P2P_RTS_RIOV_REMOTE)) {
        memcpy(r->iov, payload, LOOM_MIN(len, bytes));
        return r;
    }
    memcpy(&akey, payload, sizeof(akey));
    {
        struct iovec l = { r->iov, bytes };
        struct iovec rr = { (void *)(uintptr_t)h->raddr, bytes };

        r->error = ep->iface->ops.get_riov != NULL
                   ? ep->iface->ops.get_riov(ep, &l, 1, &rr, 1, &akey, NULL)
                   : LOOM_ERR_UNSUPPORTED;
    }
    if (r->error != LOOM_OK) {
        r->error = r->error == LOOM_INPROGRESS ? LOOM_ERR_TRANSPORT : r->error;
        loom_error("p2p", "rank %s: cannot read the %u pieces of a rendezvous send from "
                   "rank %d (%s) over %s: %s (its receive fails)", loom_log_identity(),
                   h->rsvd, world_src, loom_p2p_peer_host(world_src), ep->iface->name,
                   loom_strerror(r->error));
    }
    return r;
}

static void loom_p2p_rndv_get_done(loom_tl_comp_t *comp, loom_status_t status);

/*
 * Bytes [offset, offset + len) of the message arrived at @p src: copy them
 * into the receive's buffer, or unpack them into its typed memory.
 */
static void loom_p2p_rndv_copy_in(loom_request_t req, size_t offset, const void *src,
                                  size_t len)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_status_t st;

    if (rq->dt == NULL) {
        memcpy((char *)rq->buf + offset, src, len);
        return;
    }
    st = loom_dt_unpack_range(rq->buf, rq->count, rq->dt, offset, len, src);
    if (st != LOOM_OK && req->msg.error == LOOM_OK) {
        req->msg.error = st;   /* reported when the receive completes */
    }
}

/*
 * A rendezvous receive is done when its gets are (rq->offset reached the
 * bytes it takes, nothing in flight) and its pushed bytes arrived: FIN
 * goes only then, so the sender never completes (and frees its buffer)
 * with a RNDV_DATA of it still queued. An error stops the gets but still
 * waits for the push, unless the peer failed.
 */
static void loom_p2p_rndv_try_finish(loom_request_t req)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);

    if (rq->push_wait == 0 && rq->inflight == 0 && rq->offset >= req->msg.bytes) {
        loom_p2p_rndv_finish(req, req->msg.error);
    }
}

/* the gets failed with @p status: stop reading, finish once the push is in */
static void loom_p2p_rndv_get_failed(loom_request_t req, loom_status_t status)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);

    req->msg.error = status;
    rq->offset     = req->msg.bytes;
    rq->inflight   = 0;
    loom_p2p_rndv_try_finish(req);
}

/*
 * The pushed bytes will not come: the receive ends with @p status once its
 * gets are over (a get in flight or waiting to be retried still finishes
 * it, failing or not, so the transport never writes into a completed one).
 */
void loom_p2p_rndv_push_abandon(loom_request_t req, loom_status_t status)
{
    loom_p2p_req(req)->push_wait = 0;
    req->msg.error = status;
    loom_p2p_rndv_try_finish(req);
}

/*
 * Start reading a matched rendezvous of @p msg_len bytes. @p pushed bytes
 * of it come (or came, at @p push_data) in a RNDV_DATA frame: the gets
 * read only what follows them.
 */
void loom_p2p_rndv_start(loom_request_t req, int world_src, size_t msg_len,
                         uint64_t sreq, uint64_t raddr, const loom_tl_rkey_t *rkey,
                         uint32_t pushed, const void *push_data,
                         struct loom_p2p_riov *riov)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);

    rq->peer      = world_src;
    rq->msg_len   = msg_len;
    rq->sreq      = sreq;
    rq->raddr     = raddr;
    rq->rkey      = *rkey;
    rq->inflight  = 0;
    rq->push_wait = 0;
    rq->comp.cb   = loom_p2p_rndv_get_done;
    rq->riov      = riov;
    req->flags   |= LOOM_REQ_FLAG_MATCHED;
    loom_list_add_tail(&loom_p2p_engine.recv_reading, &rq->reading);
    req->msg.bytes = msg_len <= rq->len ? msg_len : rq->len;
    req->msg.error = LOOM_OK;
    if (msg_len > rq->len) {
        loom_p2p_log_truncation(req, msg_len);
        req->msg.error = LOOM_ERR_TRUNCATED;  /* kept until the FIN went out */
    }
    rq->offset = LOOM_MIN((size_t)pushed, req->msg.bytes);
    if (push_data != NULL && rq->offset != 0) {
        loom_p2p_rndv_copy_in(req, 0, push_data, rq->offset);
    } else if (push_data == NULL && pushed != 0) {
        rq->push_wait = pushed;
        loom_p2p_engine.peers[world_src].push_req = req;
    }
    loom_p2p_rndv_get_next(req);
}

static void loom_p2p_rndv_finish(loom_request_t req, loom_status_t status)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);

    loom_list_del(&rq->reading);
    if (rq->riov != NULL) {
        free(rq->riov);
        rq->riov = NULL;
    }
    /* FIN even after an error: the sender must release its buffer */
    loom_p2p_send_ctl(rq->peer, LOOM_P2P_FIN, rq->sreq);
    loom_p2p_recv_complete(req, status);
}

/*
 * One get of a typed receive, of at most the rest of the message: scattered
 * straight into the type's pieces where the transport offers get_iov (one
 * call for many blocks, no pack) and the pieces are not small (at least
 * loom_p2p_iov_min_piece bytes on average), else (or once the transport
 * refused get_iov for this peer, or the pieces were small) into a bounce
 * buffer of at most
 * LOOM_P2P_DT_BOUNCE bytes, unpacked when it arrived. It reads no further
 * than @p end (the message's bytes, or what a pipelined sender packed so
 * far). *chunk_p: bytes the get covers.
 */
static loom_status_t loom_p2p_rndv_get_dt(loom_request_t req, loom_p2p_peer_t *peer,
                                          size_t end, size_t *chunk_p)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    size_t rest = end - rq->offset, b;
    loom_tl_ep_t *ep = peer->ep;
    loom_status_t st;
    char *dst;

    if (rq->tmp == NULL && ep->iface->ops.get_iov != NULL) {
        struct iovec iov[LOOM_P2P_GET_IOV];
        size_t n = 0, want = LOOM_MIN(rest, LOOM_P2P_GET_CHUNK);

        /*
         * Judged on the first LOOM_P2P_IOV_PROBE pieces: flattening 1024
         * pieces only to refuse them (a column of doubles) cost ~90
         * instructions a piece, 25x the unpack of the same 8 KiB.
         */
        st = loom_dt_iov(rq->buf, rq->count, rq->dt, rq->offset, want, iov,
                         LOOM_P2P_IOV_PROBE, &n, chunk_p);
        if (st == LOOM_OK && n == LOOM_P2P_IOV_PROBE && *chunk_p < want &&
            *chunk_p >= n * loom_p2p_iov_min_piece(ep)) {
            st = loom_dt_iov(rq->buf, rq->count, rq->dt, rq->offset, want, iov,
                             LOOM_P2P_GET_IOV, &n, chunk_p);
        }
        if (st != LOOM_OK) {
            return st;
        }
        if (*chunk_p >= n * loom_p2p_iov_min_piece(ep)) {
            st = ep->iface->ops.get_iov(ep, iov, n, rq->raddr + rq->offset, &rq->rkey,
                                        &rq->comp);
            if (st != LOOM_ERR_UNSUPPORTED) {
                return st;
            }
        }
    }
    if (rq->peer == loom_p2p_engine.world_rank) {
        /* a send to self: its packed stream is in this very process, unpack from it */
        *chunk_p = rest;
        loom_p2p_rndv_copy_in(req, rq->offset,
                              (const void *)(uintptr_t)(rq->raddr + rq->offset), rest);
        return LOOM_OK;
    }
    b = loom_p2p_dt_bounce(req, ep);
    if (rq->tmp == NULL) {
        rq->tmp = loom_p2p_tmp_alloc(loom_p2p_dt_double(req, ep) ? 2 * b
                                                                : LOOM_MIN(req->msg.bytes, b));
        if (rq->tmp == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
    }
    *chunk_p = LOOM_MIN(rest, b);
    dst = loom_p2p_dt_double(req, ep) ? loom_p2p_dt_half(rq, rq->offset, b) : rq->tmp;
    st = loom_tl_ep_get(ep, dst, *chunk_p, rq->raddr + rq->offset, &rq->rkey, &rq->comp);
    if (st == LOOM_OK) {
        loom_p2p_rndv_copy_in(req, rq->offset, dst, *chunk_p);
    }
    return st;
}

/*
 * One plain get() of the rest of the sender's current piece (at most the
 * bounce), where the transport refused get_riov for this peer although the
 * sender could read us (CMA allowed one way only): into a contiguous
 * receive directly, else into the bounce, unpacked when it arrived.
 */
static loom_status_t loom_p2p_rndv_get_piece(loom_request_t req, loom_p2p_peer_t *peer,
                                             size_t *chunk_p)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    struct loom_p2p_riov *r = rq->riov;
    size_t n;
    void *dst = (char *)rq->buf + rq->offset;
    loom_status_t st;

    while (r->idx < r->n && r->off == r->iov[r->idx].iov_len) {
        ++r->idx;   /* empty pieces */
        r->off = 0;
    }
    if (r->idx >= r->n) {
        return LOOM_ERR_TRANSPORT;   /* the pieces end before the message */
    }
    n = LOOM_MIN(req->msg.bytes - rq->offset, r->iov[r->idx].iov_len - r->off);
    if (rq->dt != NULL) {
        if (rq->tmp == NULL &&
            (rq->tmp = loom_p2p_tmp_alloc(LOOM_MIN(req->msg.bytes, LOOM_P2P_DT_BOUNCE))) == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        n   = LOOM_MIN(n, LOOM_P2P_DT_BOUNCE);
        dst = rq->tmp;
    }
    *chunk_p = n;
    st = loom_tl_ep_get(peer->ep, dst, n,
                        (uint64_t)(uintptr_t)r->iov[r->idx].iov_base + r->off, &rq->rkey,
                        &rq->comp);
    if (st == LOOM_OK || st == LOOM_INPROGRESS) {
        (void)loom_dt_iov_skip(r->iov, r->n, &r->idx, &r->off, n);
    }
    if (st == LOOM_OK && rq->dt != NULL) {
        loom_p2p_rndv_copy_in(req, rq->offset, rq->tmp, n);
    }
    return st;
}

/*
 * One read of a rendezvous whose sender did not pack (rq->riov): remote
 * pieces from the position in its array into the receive's pieces (one
 * range for a contiguous receive; a bounce, unpacked, where its own pieces
 * are small, as loom_p2p_rndv_get_dt decides). *chunk_p: bytes it covers.
 */
static loom_status_t loom_p2p_rndv_get_riov(loom_request_t req, loom_p2p_peer_t *peer,
                                            size_t *chunk_p)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    struct loom_p2p_riov *r = rq->riov;
    size_t rest = req->msg.bytes - rq->offset, ln = 1;
    struct iovec liov[LOOM_P2P_GET_IOV], saved, *first;
    loom_tl_ep_t *ep = peer->ep;
    loom_status_t st = LOOM_OK;
    int bounce = rq->dt != NULL && rq->tmp != NULL;

    if (r->error != LOOM_OK || ep->iface->ops.get_riov == NULL || r->idx >= r->n) {
        return r->error != LOOM_OK ? r->error : LOOM_ERR_TRANSPORT;
    }
    if (r->piecewise) {
        return loom_p2p_rndv_get_piece(req, peer, chunk_p);
    }
    *chunk_p = LOOM_MIN(rest, LOOM_P2P_GET_CHUNK);
    liov[0].iov_base = (char *)rq->buf + rq->offset;
    liov[0].iov_len  = *chunk_p;
    if (rq->dt != NULL && !bounce) {
        st = loom_dt_iov(rq->buf, rq->count, rq->dt, rq->offset, *chunk_p, liov,
                         LOOM_P2P_GET_IOV, &ln, chunk_p);
        bounce = st == LOOM_OK && *chunk_p < ln * loom_p2p_iov_min_piece(ep);
    }
    if (st == LOOM_OK && bounce) {
        if (rq->tmp == NULL &&
            (rq->tmp = loom_p2p_tmp_alloc(LOOM_MIN(req->msg.bytes, LOOM_P2P_DT_BOUNCE))) == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        *chunk_p = LOOM_MIN(rest, LOOM_P2P_DT_BOUNCE);
        liov[0].iov_base = rq->tmp;
        liov[0].iov_len  = *chunk_p;
        ln = 1;
    }
    if (st != LOOM_OK) {
        return st;
    }
    first = &r->iov[r->idx];   /* the position may be inside a piece */
    saved = *first;
    first->iov_base = (char *)first->iov_base + r->off;
    first->iov_len -= r->off;
    st = ep->iface->ops.get_riov(ep, liov, ln, first, r->n - r->idx, &rq->rkey, &rq->comp);
    *first = saved;
    if (st == LOOM_ERR_UNSUPPORTED) {
        r->piecewise = 1;   /* nothing read: the same bytes, one piece at a time */
        return loom_p2p_rndv_get_piece(req, peer, chunk_p);
    }
    if (st == LOOM_OK || st == LOOM_INPROGRESS) {
        (void)loom_dt_iov_skip(r->iov, r->n, &r->idx, &r->off, *chunk_p);
    }
    if (st == LOOM_OK && bounce) {
        loom_p2p_rndv_copy_in(req, rq->offset, rq->tmp, *chunk_p);
    }
    return st;
}

/*
 * A receive from a send to this process, two layouts, the send's pieces
 * large: up to LOOM_P2P_GET_IOV pieces of each side listed, then copied
 * piece to piece (no bounce). LOOM_ERR_UNSUPPORTED, nothing copied, when
 * the receive's own pieces turn out small. *chunk_p: bytes it covers.
 */
static loom_status_t loom_p2p_self_piecewise(loom_request_t req, const loom_p2p_self_src_t *s,
                                             size_t rest, size_t *chunk_p)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    struct iovec from[LOOM_P2P_GET_IOV], to[LOOM_P2P_GET_IOV];
    size_t nf = 0, bf = 0, nt = 0, bt = 0;
    loom_status_t st = loom_dt_iov(s->buf, s->count, s->dt, rq->offset, rest, from,
                                   LOOM_P2P_GET_IOV, &nf, &bf);

    if (st != LOOM_OK ||
        (st = loom_dt_iov(rq->buf, rq->count, rq->dt, rq->offset, bf, to, LOOM_P2P_GET_IOV,
                          &nt, &bt)) != LOOM_OK) {
        return st;
    }
    if (bt < nt * LOOM_P2P_SELF_PIECEWISE) {
        return LOOM_ERR_UNSUPPORTED;   /* our pieces are small: the bounce, nothing copied */
    }
    if (rq->offset == 0) {
        loom_debug("p2p", "typed receive of %zu bytes from this process: piece to piece "
                   "(two layouts)", rest);
    }
    (void)loom_iov_copy(to, nt, from, nf);   /* bt <= bf: the receive's pieces fill first */
    *chunk_p = bt;
    return LOOM_OK;
}

/*
 * One copy of a receive from a send to this process (LOOM_P2P_RTS_SELF)
 * out of the sender's layout: all of it in one pass (one layout, no
 * overlap; or a contiguous receive), piece to piece where the two layouts
 * differ and both have large pieces, else at most LOOM_P2P_SELF_CHUNK
 * bytes through the bounce. *chunk_p: bytes it covers.
 */
static loom_status_t loom_p2p_rndv_get_self(loom_request_t req, size_t *chunk_p)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    const loom_p2p_self_src_t *s = rq->riov->self;
    size_t rest = req->msg.bytes - rq->offset, slen, dlen;
    uintptr_t slo, dlo;
    loom_status_t st;
    int one;   /* the two types have one layout (asked once: O(blocks) for indexed) */

    if (rq->dt == NULL) {
        *chunk_p = rest;
        return loom_dt_pack_range(s->buf, s->count, s->dt, rq->offset, rest,
                                  (char *)rq->buf + rq->offset);
    }
    one = rq->tmp == NULL && loom_dt_same_layout(rq->dt, s->dt);
    if (one) {
        loom_p2p_dt_span(s->buf, s->count, s->dt, &slo, &slen);
        loom_p2p_dt_span(rq->buf, rq->count, rq->dt, &dlo, &dlen);
        if (slo + slen <= dlo || dlo + dlen <= slo) {
            loom_debug("p2p", "typed receive of %zu bytes from this process: moved in one "
                       "pass (one layout)", rest);
            *chunk_p = rest;
            return loom_dt_move_range(rq->buf, s->buf, s->count, s->dt, rq->offset, rest);
        }
    }
    if (rq->tmp == NULL && s->big && !one &&
        (st = loom_p2p_self_piecewise(req, s, rest, chunk_p)) != LOOM_ERR_UNSUPPORTED) {
        return st;
    }
    if (rq->tmp == NULL) {
        loom_debug("p2p", "typed receive of %zu bytes from this process: through a bounce "
                   "(%s)", rest, one ? "the layouts overlap" : "two layouts");
        if ((rq->tmp = loom_p2p_tmp_alloc(LOOM_MIN(req->msg.bytes, LOOM_P2P_SELF_CHUNK))) ==
            NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
    }
    *chunk_p = LOOM_MIN(rest, LOOM_P2P_SELF_CHUNK);
    st = loom_dt_pack_range(s->buf, s->count, s->dt, rq->offset, *chunk_p, rq->tmp);
    if (st == LOOM_OK) {
        loom_p2p_rndv_copy_in(req, rq->offset, rq->tmp, *chunk_p);
    }
    return st;
}

/*
 * Order the read of a pipelined sender's progress word before the reads of
 * the bytes it covers (two get_riov calls: the kernel's loads, which a
 * fence in program order between the calls orders too). gcc refuses
 * atomic_thread_fence under -fsanitize=thread (-Wtsan, an error with
 * WERROR=1), and TSan sees neither the kernel's loads nor the other
 * process's stores: there a compiler barrier, enough on x86's TSO.
 */
static inline void loom_p2p_pipe_acquire(void)
{
#if defined(__SANITIZE_THREAD__) && (defined(__x86_64__) || defined(__i386__))
    __asm__ __volatile__("" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

/*
 * The sender's progress word of a pipelined receive, read twice in one
 * get_riov (the kernel copies the two pieces one after the other). The
 * sender stores it whole (8 aligned bytes), but process_vm_readv copies
 * with no promise of a single 8-byte load (rep movsb on FSRM cpus): a read
 * crossing a store could mix the bytes of two values and claim bytes not
 * yet packed (at a carry: 0x00ff8000 -> 0x01008000 read as 0x01ff8000).
 * Two reads that agree were not torn (values only grow); two that differ
 * keep the last known count. *word_p, or the transport's answer.
 */
static loom_status_t loom_p2p_pipe_word_read(loom_tl_ep_t *ep, const loom_p2p_req_t *rq,
                                             size_t known, uint64_t *word_p)
{
    uint64_t w[2] = { 0, 0 };
    void *at = (void *)(uintptr_t)(rq->raddr - LOOM_P2P_PIPE_HDR);
    struct iovec l = { w, sizeof(w) };
    struct iovec r[2] = { { at, sizeof(w[0]) }, { at, sizeof(w[0]) } };
    loom_status_t st = ep->iface->ops.get_riov(ep, &l, 1, r, 2, &rq->rkey, NULL);

    *word_p = w[0] == w[1] ? w[1] : known;
    return st;
}

/*
 * The end of what a pipelined sender packed (LOOM_P2P_RTS_PIPE), at most
 * @p want: read again from its copy's header when the receive caught up.
 * A peer that cannot be read synchronously (get_riov refused: CMA one way)
 * serves its gets from its own progress, which runs only after its pack
 * ended: all of it is there. *end_p, or an error (the sender failed).
 */
static loom_status_t loom_p2p_pipe_avail(loom_request_t req, loom_p2p_peer_t *peer,
                                         size_t want, size_t *end_p)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    struct loom_p2p_riov *r = rq->riov;
    uint64_t word = 0;

    if (r->avail <= rq->offset && r->avail < want) {
        loom_status_t st = loom_p2p_pipe_word_read(peer->ep, rq, r->avail, &word);

        if (st == LOOM_ERR_UNSUPPORTED) {
            word = rq->msg_len;
        } else if (st != LOOM_OK) {
            return st == LOOM_INPROGRESS ? LOOM_ERR_TRANSPORT : st;
        }
        loom_p2p_pipe_acquire();   /* the word, then the bytes */
        if (word == LOOM_P2P_PIPE_FAILED || word > rq->msg_len) {
            return LOOM_ERR_TRANSPORT;
        }
        r->avail = LOOM_MAX(r->avail, (size_t)word);
    }
    *end_p = LOOM_MIN(r->avail, want);
    return LOOM_OK;
}

void loom_p2p_rndv_get_next(loom_request_t req)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[rq->peer];
    size_t want = req->msg.bytes;
    int pipe = rq->riov != NULL && rq->riov->pipe;

    while (rq->offset < want) {
        size_t end = want, chunk;
        loom_status_t st = pipe ? loom_p2p_pipe_avail(req, peer, want, &end) : LOOM_OK;

        if (st == LOOM_OK && end <= rq->offset) {
            /*
             * The sender is still packing: look again at the next progress.
             * Give the CPU away meanwhile: where the two ranks share a core
             * (a loaded machine) spinning here would stop the very pack it
             * waits for until the time slice ends (measured with both ranks
             * on one cpu: 2-3x the whole pack's time at 256-512 KiB); alone
             * on its core the call returns at once.
             */
            loom_list_add_tail(&loom_p2p_engine.get_retry, &req->list);
            sched_yield();
            return;
        }
        chunk = LOOM_MIN(end - rq->offset, LOOM_P2P_GET_CHUNK);
        if (st != LOOM_OK) {
            /* reported below */
        } else if (rq->riov != NULL && rq->riov->self != NULL) {
            st = loom_p2p_rndv_get_self(req, &chunk);
        } else if (rq->riov != NULL && !pipe) {
            st = loom_p2p_rndv_get_riov(req, peer, &chunk);
        } else if (rq->dt != NULL) {
            st = loom_p2p_rndv_get_dt(req, peer, end, &chunk);
        } else {
            st = loom_tl_ep_get(peer->ep, (char *)rq->buf + rq->offset, chunk,
                                rq->raddr + rq->offset, &rq->rkey, &rq->comp);
        }
        if (st == LOOM_OK) {
            rq->offset += chunk;
            continue;
        }
        if (st == LOOM_INPROGRESS) {
            rq->inflight = chunk;
            return;
        }
        if (st == LOOM_ERR_NO_RESOURCE) {
            loom_list_add_tail(&loom_p2p_engine.get_retry, &req->list);
            return;
        }
        loom_error("p2p", "rank %s: rendezvous read of %zu bytes at offset %zu from "
                   "rank %d (%s) over %s failed: %s", loom_log_identity(), chunk,
                   rq->offset, rq->peer, loom_p2p_peer_host(rq->peer),
                   peer->ep->iface->name, loom_strerror(st));
        loom_p2p_rndv_get_failed(req, st);
        return;
    }
    loom_p2p_rndv_try_finish(req);
}

/*
 * A chunk of a double-bounced typed receive arrived (loom_p2p_dt_double):
 * ask for the next one into the other half first, then unpack this one.
 * Any outcome of that get but "in flight" is left to get_next, after the
 * unpack (a get done at once is read again; a refused one is retried or
 * reported there), so nothing completes the receive before its bytes are
 * in place.
 */
static void loom_p2p_rndv_get_ahead(loom_request_t req, loom_p2p_peer_t *peer)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    size_t b = loom_p2p_dt_bounce(req, peer->ep), off = rq->offset, n = rq->inflight;
    const char *data = loom_p2p_dt_half(rq, off, b);
    loom_status_t st = LOOM_OK;

    rq->offset   = off + n;
    rq->inflight = 0;
    if (rq->offset < req->msg.bytes) {
        size_t chunk = LOOM_MIN(req->msg.bytes - rq->offset, b);

        st = loom_tl_ep_get(peer->ep, loom_p2p_dt_half(rq, rq->offset, b), chunk,
                            rq->raddr + rq->offset, &rq->rkey, &rq->comp);
        if (st == LOOM_INPROGRESS) {
            rq->inflight = chunk;
        }
    }
    loom_p2p_rndv_copy_in(req, off, data, n);
    if (st != LOOM_INPROGRESS) {
        loom_p2p_rndv_get_next(req);
    }
}

static void loom_p2p_rndv_get_done(loom_tl_comp_t *comp, loom_status_t status)
{
    loom_p2p_req_t *rq = loom_container_of(comp, loom_p2p_req_t, comp);
    loom_request_t req = loom_container_of((void *)rq, struct loom_request, p2p);
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[rq->peer];

    if (status != LOOM_OK) {
        loom_error("p2p", "rank %s: rendezvous read of %zu bytes from rank %d (%s) "
                   "failed: %s", loom_log_identity(), rq->inflight, rq->peer,
                   loom_p2p_peer_host(rq->peer), loom_strerror(status));
        loom_p2p_rndv_get_failed(req, status);
        return;
    }
    if (rq->dt != NULL && rq->tmp != NULL && rq->riov == NULL &&
        loom_p2p_dt_double(req, peer->ep)) {
        loom_p2p_rndv_get_ahead(req, peer);   /* the next get first, then unpack */
        return;
    }
    if (rq->dt != NULL && rq->tmp != NULL) {   /* a typed receive's bounce: unpack it */
        loom_p2p_rndv_copy_in(req, rq->offset, rq->tmp, rq->inflight);
    }
    rq->offset  += rq->inflight;
    rq->inflight = 0;
    loom_p2p_rndv_get_next(req);
}

/*
 * The RNDV_DATA a peer announced did not come next (a broken stream): the
 * receive waiting for it fails, an unexpected RTS forgets it (its receive
 * then gets the whole message).
 */
void loom_p2p_push_lost(int world_src)
{
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[world_src];
    loom_request_t req = peer->push_req;

    loom_error("p2p", "rank %s: rank %d (%s) announced the first bytes of a rendezvous "
               "send (RNDV_DATA) that did not come next; %s", loom_log_identity(),
               world_src, loom_p2p_peer_host(world_src),
               req != NULL ? "the receive waiting for them fails"
                           : "its receive will read the whole message instead");
    peer->push_req = NULL;
    if (peer->push_ux != NULL) {
        peer->push_ux->pushed = 0;
        peer->push_ux = NULL;
    }
    if (req != NULL) {
        loom_p2p_rndv_push_abandon(req, LOOM_ERR_TRANSPORT);
    }
}

int loom_p2p_rndv_place(int world_src, const void *head, size_t have, size_t len,
                        loom_tl_place_t *place)
{
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[world_src];
    loom_request_t req = peer->push_req;
    loom_p2p_hdr_ctl_t h;
    loom_p2p_req_t *rq;

    if (req == NULL || have < sizeof(h) || loom_p2p_req(req)->dt != NULL) {
        return 0;   /* for an unexpected RTS, not the one, or typed: judged whole */
    }
    memcpy(&h, head, sizeof(h));
    rq = loom_p2p_req(req);
    if (h.sreq != rq->sreq || len - sizeof(h) != rq->push_wait) {
        return 0;
    }
    loom_p2p_place_into(rq->buf, LOOM_MIN((size_t)rq->push_wait, req->msg.bytes),
                        (const char *)head + sizeof(h), have - sizeof(h), place);
    peer->push_req   = NULL;
    peer->place_req  = req;
    peer->place_type = LOOM_P2P_RNDV_DATA;
    return 1;
}

void loom_p2p_rndv_placed(loom_request_t req, loom_status_t status)
{
    if (status != LOOM_OK) {
        loom_p2p_rndv_push_abandon(req, status);
        return;
    }
    loom_p2p_req(req)->push_wait = 0;
    loom_p2p_rndv_try_finish(req);
}

/* the first bytes of the rendezvous whose RTS came just before */
void loom_p2p_recv_rndv_data(int world_src, uint64_t sreq, const void *data, size_t len)
{
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[world_src];
    loom_request_t req = peer->push_req;
    loom_p2p_unexp_t *ux = peer->push_ux;

    if (req != NULL && loom_p2p_req(req)->sreq == sreq &&
        len == loom_p2p_req(req)->push_wait) {
        loom_p2p_req_t *rq = loom_p2p_req(req);

        peer->push_req = NULL;
        if (req->msg.bytes != 0) {
            loom_p2p_rndv_copy_in(req, 0, data, LOOM_MIN(len, req->msg.bytes));
        }
        rq->push_wait = 0;
        loom_p2p_rndv_try_finish(req);
    } else if (ux != NULL && ux->sreq == sreq && len == ux->pushed) {
        peer->push_ux = NULL;
        memcpy(ux->data, data, len);
        ux->push_have = 1;
    } else if (req == NULL && ux == NULL) {
        loom_error("p2p", "rank %s: RNDV_DATA of %zu bytes from rank %d (%s) follows no "
                   "rendezvous request (id 0x%llx); dropped", loom_log_identity(), len,
                   world_src, loom_p2p_peer_host(world_src), (unsigned long long)sreq);
    } else {
        loom_p2p_push_lost(world_src);
    }
}

