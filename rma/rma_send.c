/*
 * rma_send.c: how the active-message protocol (rma_am.c) sends: requests,
 * answers and the batches of small puts and accumulates.
 *
 * Every message the layer builds lives in one block with its send record
 * (loom_rma_am_out_alloc), kept on the window's out list until the p2p
 * engine completed it; a record whose buf is NULL frees nothing more (the
 * data of a large put or get: user or window memory, rma_zcopy.c). A
 * request (tag REQ) to a rank always leaves behind the small ones queued
 * for it, so the target serves each origin's requests in the order issued.
 * Since session 16 a REQ message that fits one p2p frame (a batch, an
 * answer, a small request alone) leaves as that frame instead
 * (loom_rma_am_frame): no send request here, no receive at the target;
 * under back-pressure it leaves as a message, which queues behind the
 * frames waiting for that peer, so the order holds either way.
 * The lowest file of the protocol: it calls only the p2p engine.
 */
#include "rma_priv.h"
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

loom_status_t loom_rma_am_frame(loom_rma_win_t *w, int dest, const void *msg, size_t bytes)
{
    if (bytes > w->am_max) {
        return LOOM_ERR_NO_RESOURCE;   /* a message: the engine splits or reads it */
    }
    return loom_p2p_am_send_int(dest, w->comm, LOOM_CTX_P2P, LOOM_P2P_AM_RMA, msg, bytes);
}

static loom_status_t loom_rma_am_send_raw(loom_rma_win_t *w, int dest, int tag, void *buf,
                                          size_t bytes)
{
    loom_rma_out_t *o = malloc(sizeof(*o));
    loom_status_t st;

    if (o == NULL) {
        free(buf);
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_p2p_isend_int(buf, bytes, dest, tag, w->comm, LOOM_CTX_P2P, 0, &o->req);
    if (st != LOOM_OK) {
        free(buf);
        free(o);
        return st;
    }
    o->buf = buf;
    o->cap = 0;
    o->next = w->out;
    w->out = o;
    return LOOM_OK;
}

/* ---- batches of small puts and accumulates (origin) ---- */

/*
 * A BATCH message is a header (kind BATCH, nseg = entries, bytes = the
 * entries' bytes), then per entry a uint64_t length and the request
 * (header, segments, data) padded to 8 bytes. The target applies them in
 * order and answers one ACK whose nseg counts them (rma_am.c's serve),
 * but for the get-like entries (session 13), each answered by its REPLY
 * to the receive its origin posted before queueing it: lock, get, unlock
 * to a rank is then one message out and two back.
 * Requests up to LOOM_RMA_AGG_MAX bytes are batched: puts of a few hundred
 * bytes cost one message per batch instead of a message and an answer
 * each (issue 23, tcp put bandwidth).
 */
enum { LOOM_RMA_AGG_BYTES = 32768, LOOM_RMA_AGG_MAX = 4096 };

/*
 * The get-like requests of a batch that could not be sent: cancel their
 * receives (those awaiting a REPLY by id: marked failed); each then
 * completes with @p st (the status word of its reply buffer) at the next
 * pass and counts as answered, as it counted as sent.
 */
static void loom_rma_am_push_failed(loom_rma_win_t *w, int dest, loom_status_t st)
{
    loom_rma_agg_t *a = &w->agg[dest];
    int64_t st64 = st;

    for (loom_rma_rop_t *rop = w->rops; rop != NULL && a->nfetch > 0; rop = rop->next) {
        if (rop->target == dest && rop->batch == a->gen + 1) {
            memcpy(rop->tmp, &st64, sizeof(st64));
            if (rop->req != NULL) {
                (void)loom_cancel(&rop->req);   /* nothing can match it: never sent */
            } else {
                rop->failed = 1;   /* no receive: the hook's next pass finishes it */
            }
            --a->nfetch;
        }
    }
}

/*
 * Send the batch @p a to @p dest. A send the engine finished at once (an
 * eager message copied out: shm, and tcp while its socket takes it) leaves
 * the buffer to the next batch: a 32 KiB block is not a small allocation,
 * and malloc and free of it cost about 1000 instructions per batch, more
 * than the rest of a lone fetch-and-op. Else the send takes the buffer.
 */
static loom_status_t loom_rma_am_push_send(loom_rma_win_t *w, int dest, loom_rma_agg_t *a,
                                           const char *msg, size_t len)
{
    loom_request_t req;
    loom_status_t st = loom_rma_am_frame(w, dest, msg, len);
    loom_rma_out_t *o;

    if (st != LOOM_ERR_NO_RESOURCE) {
        return st;   /* one frame, copied out (the buffer stays), or the peer failed */
    }
    st = loom_p2p_isend_int(msg, len, dest, LOOM_RMA_TAG_REQ, w->comm, LOOM_CTX_P2P, 0, &req);
    if (st != LOOM_OK) {
        return st;   /* the buffer stays for the next batch */
    }
    if (loom_request_is_complete(req)) {
        st = req->msg.error;
        loom_request_release(req);
        return st;
    }
    while ((o = malloc(sizeof(*o))) == NULL && !loom_request_is_complete(req)) {
        loom_progress();   /* no memory for the record: wait until the buffer is free */
    }
    if (o == NULL) {
        st = req->msg.error;
        loom_request_release(req);
        return st;
    }
    o->req  = req;
    o->buf  = a->buf;   /* freed when the send completes */
    o->cap  = 0;
    o->next = w->out;
    w->out  = o;
    a->buf  = NULL;
    return LOOM_OK;
}

/* send what is queued for @p dest; a failed send takes its operations out of the count */
static void loom_rma_am_push(loom_rma_win_t *w, int dest)
{
    loom_rma_agg_t *a = &w->agg[dest];
    loom_rma_hdr_t h = { 0 };
    loom_status_t st;

    if (a->n == 0) {
        return;
    }
    if (a->n == 1) {
        /* one entry leaves as the request it is: served and answered alone
         * as it would be in the batch (a lone fetch-and-op's 40 bytes fewer,
         * no batch to walk at the target; session 16) */
        uint64_t len;

        memcpy(&len, a->buf + sizeof(h), sizeof(len));
        st = loom_rma_am_push_send(w, dest, a, a->buf + sizeof(h) + sizeof(len), (size_t)len);
    } else {
        h.kind  = LOOM_RMA_K_BATCH;
        h.nseg  = a->n;
        h.bytes = a->len - sizeof(h);
        memcpy(a->buf, &h, sizeof(h));
        st = loom_rma_am_push_send(w, dest, a, a->buf, a->len);
    }
    if (st != LOOM_OK) {
        loom_error("rma", "rank %d: cannot send %llu queued operations to rank %d: %s",
                   w->rank, (unsigned long long)a->n, dest, loom_strerror(st));
        w->sent[dest] -= a->n - a->nfetch;   /* those complete with the error */
        if (w->deferred[dest] == LOOM_OK) {
            w->deferred[dest] = st;
        }
        loom_rma_am_push_failed(w, dest, st);
    }
    a->len = a->buf != NULL ? sizeof(h) : 0;   /* a kept buffer: the next batch's */
    a->n   = 0;
    a->nfetch = 0;
    ++a->gen;
}

void loom_rma_am_push_all(loom_rma_win_t *w, int dest)
{
    for (int r = dest < 0 ? 0 : dest; r < (dest < 0 ? w->size : dest + 1); ++r) {
        loom_rma_am_push(w, r);
    }
}

int loom_rma_am_queue(loom_rma_win_t *w, int dest, const void *msg, size_t bytes)
{
    loom_rma_agg_t *a = &w->agg[dest];
    size_t need = sizeof(uint64_t) + loom_rma_pad8(bytes);
    uint64_t len = bytes;

    if (bytes > LOOM_RMA_AGG_MAX) {
        return 0;
    }
    if (a->n > 0 && a->len + need > LOOM_RMA_AGG_BYTES) {
        loom_rma_am_push(w, dest);
    }
    if (a->buf == NULL) {   /* (a->len: the header's, once a buffer is there) */
        if ((a->buf = malloc(LOOM_RMA_AGG_BYTES)) == NULL) {
            return 0;   /* sent alone, as if too large */
        }
        a->len = sizeof(loom_rma_hdr_t);
    }
    memcpy(a->buf + a->len, &len, sizeof(len));
    memcpy(a->buf + a->len + sizeof(len), msg, bytes);
    memset(a->buf + a->len + sizeof(len) + bytes, 0, loom_rma_pad8(bytes) - bytes);
    a->len += need;
    ++a->n;
    ++w->sent[dest];
    return 1;
}

int loom_rma_am_queue_fetch(loom_rma_win_t *w, int dest, const void *msg, size_t bytes,
                            loom_rma_rop_t *rop)
{
    if (!loom_rma_am_queue(w, dest, msg, bytes)) {
        return 0;
    }
    rop->batch = w->agg[dest].gen + 1;   /* after the push a full batch made */
    ++w->agg[dest].nfetch;
    return 1;
}

void loom_rma_rop_unpost(loom_rma_rop_t *rop)
{
    if (rop->req != NULL) {   /* (one answered by id posted nothing) */
        (void)loom_cancel(&rop->req);   /* nothing can match it: its request never left */
        while (!loom_request_is_complete(rop->req)) {
            loom_progress();
        }
        loom_request_release(rop->req);
    }
    if (rop->tmp != (char *)(rop + 1)) {   /* else in rop's own block */
        free(rop->tmp);
    }
    free(rop);
}

void loom_rma_am_reply_err(loom_rma_win_t *w, int dest, uint32_t id, loom_status_t st)
{
    loom_rma_out_t *o = loom_rma_am_out_get(w, sizeof(loom_rma_reply_t));
    loom_rma_reply_t h = { .kind = LOOM_RMA_K_REPLY, .status = st, .id = id };
    int64_t st64 = st;

    if (o == NULL) {
        loom_error("rma", "rank %d: no memory to answer rank %d (%s)", w->rank, dest,
                   loom_rma_strerror(st));
        return;
    }
    if (id != 0) {   /* the header alone: status, no data */
        memcpy(loom_rma_am_out_data(o), &h, sizeof(h));
        (void)loom_rma_am_out_send(w, dest, LOOM_RMA_TAG_REQ, o, sizeof(h));
        return;
    }
    memcpy(loom_rma_am_out_data(o), &st64, sizeof(st64));
    (void)loom_rma_am_out_send(w, dest, LOOM_RMA_TAG_REPLY, o, sizeof(st64));
}

/* every request to @p dest goes behind the ones queued for it */
loom_status_t loom_rma_am_send(loom_rma_win_t *w, int dest, int tag, void *buf, size_t bytes)
{
    loom_status_t st;

    if (tag == LOOM_RMA_TAG_REQ) {
        loom_rma_am_push(w, dest);
        st = loom_rma_am_frame(w, dest, buf, bytes);
        if (st != LOOM_ERR_NO_RESOURCE) {
            free(buf);   /* copied out as a frame, or the peer failed */
            return st;
        }
    }
    return loom_rma_am_send_raw(w, dest, tag, buf, bytes);
}

/* a send record with @p bytes of message after it (o->buf NULL: nothing else to free) */
loom_rma_out_t *loom_rma_am_out_alloc(size_t bytes)
{
    loom_rma_out_t *o = malloc(sizeof(*o) + bytes);

    if (o != NULL) {
        o->buf = NULL;
        o->cap = 0;
    }
    return o;
}

/*
 * Small records (an ACK, a fetch's REPLY: one per operation at a target)
 * are allocated at one size and kept on the window for the next, up to
 * LOOM_RMA_OUT_SPARES; each is a malloc'ed block of its own, so free() of
 * one stays right.
 */
enum { LOOM_RMA_OUT_SMALL = 64, LOOM_RMA_OUT_SPARES = 8 };

loom_rma_out_t *loom_rma_am_out_get(loom_rma_win_t *w, size_t bytes)
{
    loom_rma_out_t *o = w->out_spare;

    if (bytes > LOOM_RMA_OUT_SMALL) {
        return loom_rma_am_out_alloc(bytes);
    }
    if (o == NULL) {
        o = malloc(sizeof(*o) + LOOM_RMA_OUT_SMALL);
    } else {
        w->out_spare = o->next;
        --w->n_out_spare;
    }
    if (o != NULL) {
        o->buf = NULL;
        o->cap = LOOM_RMA_OUT_SMALL;
    }
    return o;
}

void loom_rma_am_out_free(loom_rma_win_t *w, loom_rma_out_t *o)
{
    free(o->buf);
    if (o->cap != LOOM_RMA_OUT_SMALL || w->n_out_spare >= LOOM_RMA_OUT_SPARES) {
        free(o);
        return;
    }
    o->next      = w->out_spare;
    w->out_spare = o;
    ++w->n_out_spare;
}

void loom_rma_am_out_spares_free(loom_rma_win_t *w)
{
    while (w->out_spare != NULL) {
        loom_rma_out_t *o = w->out_spare;

        w->out_spare = o->next;
        free(o);
    }
    w->n_out_spare = 0;
}

void *loom_rma_am_out_data(loom_rma_out_t *o)
{
    return o + 1;
}

/* send the message that follows @p o (from loom_rma_am_out_alloc); frees @p o on failure */
loom_status_t loom_rma_am_out_send(loom_rma_win_t *w, int dest, int tag, loom_rma_out_t *o,
                                   size_t bytes)
{
    loom_status_t st;

    if (tag == LOOM_RMA_TAG_REQ) {
        loom_rma_am_push(w, dest);   /* behind the queued requests */
        st = loom_rma_am_frame(w, dest, loom_rma_am_out_data(o), bytes);
        if (st == LOOM_OK) {
            loom_rma_am_out_free(w, o);   /* copied out: the record is free again */
            return LOOM_OK;
        }
        if (st != LOOM_ERR_NO_RESOURCE) {
            free(o);
            return st;
        }
    }
    st = loom_p2p_isend_int(loom_rma_am_out_data(o), bytes, dest, tag, w->comm, LOOM_CTX_P2P,
                            0, &o->req);
    if (st != LOOM_OK) {
        free(o);
        return st;
    }
    if (loom_request_is_complete(o->req)) {   /* copied out already: no list, no later pass */
        st = o->req->msg.error;
        loom_request_release(o->req);
        loom_rma_am_out_free(w, o);
        return st;
    }
    o->next = w->out;
    w->out = o;
    return LOOM_OK;
}

/* a control message; an ACK's @p n: how many operations it answers (0: one) */
loom_status_t loom_rma_am_ctrl_n(loom_rma_win_t *w, int dest, loom_rma_kind_t kind, int arg,
                                 uint64_t n)
{
    loom_rma_out_t *o = loom_rma_am_out_get(w, sizeof(loom_rma_hdr_t));
    loom_rma_hdr_t *h;

    if (o == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    h = loom_rma_am_out_data(o);
    memset(h, 0, sizeof(*h));
    h->kind = (uint8_t)kind;
    h->arg  = arg;
    h->nseg = n;
    return loom_rma_am_out_send(w, dest, LOOM_RMA_TAG_REQ, o, sizeof(*h));
}

loom_status_t loom_rma_am_ctrl(loom_rma_win_t *w, int dest, loom_rma_kind_t kind, int arg)
{
    return loom_rma_am_ctrl_n(w, dest, kind, arg, 0);
}
