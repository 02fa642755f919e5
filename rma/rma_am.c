/*
 * rma_am.c: the active-message protocol of windows over the p2p engine,
 * and the target's side of it.
 *
 * Every request is one message (header, target segments, packed data) with
 * tag REQ on the window's private communicator (a large contiguous put,
 * get or accumulate: the header alone, its data apart, rma_zcopy.c). The target finds them from
 * the progress hook (p2p_int.h): a probe of its unexpected queue (no
 * progress, no allocation when nothing came), a receive of the message it
 * found into a buffer of its size, and service in arrival order once the
 * data is in (so the operations of one origin apply in the order issued:
 * MPI's default accumulate ordering, and unlock after the operations before
 * it). Each served operation answers once: an ACK (put, accumulate, lock
 * grant, unlock), or a REPLY (status + data) to a receive the origin posted
 * before sending (get-like), so "every operation to t completed" is
 * done[t] == sent[t] at the origin. Exclusive and shared locks are a
 * holder count at the target with a FIFO of waiters. PSCW notices (POST,
 * COMPLETE) need no answer: they are counted.
 *
 * Passive target needs the target to progress: it serves requests only
 * from inside a loom call (any blocking call, loom_progress, MPI_Test...).
 * The hook is not re-entered (the sends and receives it starts may run
 * progress passes).
 *
 * Allocation: a received request and its record are one block (the record,
 * then the message), and so are a send the layer builds itself (control
 * messages, replies) and its record (rma_send.c): one malloc and one free
 * per message on the target's path instead of two of each.
 *
 * Large contiguous puts, gets and accumulates (rma_zcopy.c) are served in
 * two steps: the header posts the data's receive or send, and the origin's
 * later requests are held, like those of an origin whose lock waits, until
 * a put's data moved or an accumulate's was applied (loom_rma_zc_poll from
 * each pass).
 *
 * Frames (session 16): requests and answers that fit one p2p frame come
 * through loom_rma_am_frame_in, the function the engine calls for them
 * before any matching (p2p_int.h, loom_p2p_am_set). An answer (ACK, REPLY
 * by id) is taken at once: it waits for nothing. A request first takes the
 * REQ messages that arrived before it (the engine saw every earlier frame
 * of that origin: they are in its unexpected queue, or already in `in`),
 * then is served at once when nothing is queued before it and the hook is
 * not running, else queued in `in` behind them: each origin's requests
 * are still served in the order sent, frames or messages alike.
 */
#include "rma_priv.h"
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

static loom_rma_win_t *loom_rma_wins;   /* every live window */
static int loom_rma_polling;            /* the hook is running (no re-entry) */

static int loom_rma_poll(void);
static void loom_rma_am_frame_in(uint32_t ctx, int src, const void *data, size_t len);

/* LOOM_RMA_AM=off: no frames from this rank (its messages as before session 16) */
static size_t loom_rma_am_frame_max(const loom_rma_win_t *w)
{
    const char *env = getenv("LOOM_RMA_AM");
    size_t max = SIZE_MAX;

    if (env != NULL && strcmp(env, "off") == 0) {
        return 0;
    }
    for (int r = 0; r < w->size; ++r) {
        size_t m = loom_p2p_am_max(r, w->comm);

        max = m < max ? m : max;
    }
    return max;
}

void loom_rma_am_register(loom_rma_win_t *w)
{
    w->am_ctx = loom_comm_ctx(w->comm, LOOM_CTX_P2P);
    w->peer_failures = loom_p2p_peer_failures();   /* failures before it concern no op */
    w->am_max = loom_rma_am_frame_max(w);
    w->ready  = 0;
    w->next = loom_rma_wins;
    loom_rma_wins = w;
    loom_progress_hook_set(loom_rma_poll);
    (void)loom_p2p_am_set(LOOM_P2P_AM_RMA, loom_rma_am_frame_in);
}

void loom_rma_am_ready(loom_rma_win_t *w)
{
    w->ready = 1;
}

void loom_rma_am_unregister(loom_rma_win_t *w)
{
    for (loom_rma_win_t **pp = &loom_rma_wins; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    }
    if (loom_rma_wins == NULL) {
        loom_progress_hook_set(NULL);   /* no window: progress pays nothing */
        (void)loom_p2p_am_set(LOOM_P2P_AM_RMA, NULL);
    }
}

/* ---- small records kept for reuse ---- */

/*
 * A request record (and its message) or a one-element atomic's reply
 * record is allocated and freed once per operation; at a few hundred
 * instructions a pair in glibc, that was a sizeable part of a lone
 * fetch-and-op's round trip (session 14). Small ones are allocated at one
 * size and kept, up to LOOM_RMA_SPARE_MAX of each, on the window for the
 * next. Each is a malloc'ed block of its own, so free() on any of them
 * (window destruction, error paths) stays right.
 */
enum { LOOM_RMA_IN_SMALL = 256, LOOM_RMA_SPARE_MAX = 8 };

/* a record for a message of @p bytes (the message follows it) */
static loom_rma_in_t *loom_rma_in_alloc(loom_rma_win_t *w, size_t bytes)
{
    loom_rma_in_t *in = w->in_spare;

    if (bytes > LOOM_RMA_IN_SMALL) {
        return malloc(sizeof(*in) + bytes);
    }
    if (in == NULL) {
        return malloc(sizeof(*in) + LOOM_RMA_IN_SMALL);
    }
    w->in_spare = in->next;
    --w->n_in_spare;
    return in;
}

static void loom_rma_in_free(loom_rma_win_t *w, loom_rma_in_t *in)
{
    if (in->bytes > LOOM_RMA_IN_SMALL || w->n_in_spare >= LOOM_RMA_SPARE_MAX) {
        free(in);
        return;
    }
    in->next    = w->in_spare;
    w->in_spare = in;
    ++w->n_in_spare;
}

/* a one-element atomic's reply record: status + up to 8 bytes in its own block */
static loom_rma_rop_t *loom_rma_rop_small_alloc(loom_rma_win_t *w)
{
    loom_rma_rop_t *rop = w->rop_spare;

    if (rop == NULL) {
        return malloc(sizeof(*rop) + sizeof(int64_t) + 8);
    }
    w->rop_spare = rop->next;
    --w->n_rop_spare;
    return rop;
}

/* free @p rop, keeping it if it is a one-element atomic's (tmp in its block) */
static void loom_rma_rop_free(loom_rma_win_t *w, loom_rma_rop_t *rop)
{
    if (rop->tmp != (char *)(rop + 1)) {
        free(rop->tmp);
        free(rop);
    } else if (w->n_rop_spare >= LOOM_RMA_SPARE_MAX) {
        free(rop);
    } else {
        rop->next    = w->rop_spare;
        w->rop_spare = rop;
        ++w->n_rop_spare;
    }
}

void loom_rma_am_spares_free(loom_rma_win_t *w)
{
    while (w->in_spare != NULL) {
        loom_rma_in_t *in = w->in_spare;

        w->in_spare = in->next;
        free(in);
    }
    while (w->rop_spare != NULL) {
        loom_rma_rop_t *rop = w->rop_spare;

        w->rop_spare = rop->next;
        free(rop);
    }
    w->n_in_spare = w->n_rop_spare = 0;
    loom_rma_am_out_spares_free(w);
}

/* ---- the target's service ---- */

/*
 * The answer of a get-like request whose header named id @p h->arg: a
 * REPLY (loom_rma_reply_t, then the data) in the block @p o (from
 * loom_rma_am_out_get, sizeof(reply) + h->bytes), fetched into already;
 * sent as a frame when it fits, else as a REQ message.
 */
static void loom_rma_am_reply_id(loom_rma_win_t *w, int src, const loom_rma_hdr_t *h,
                                 loom_rma_out_t *o, loom_status_t st)
{
    loom_rma_reply_t r = { .kind = LOOM_RMA_K_REPLY, .status = st, .id = (uint32_t)h->arg,
                           .bytes = st == LOOM_OK ? (uint32_t)h->bytes : 0 };

    memcpy(loom_rma_am_out_data(o), &r, sizeof(r));
    (void)loom_rma_am_out_send(w, src, LOOM_RMA_TAG_REQ, o, sizeof(r) + r.bytes);
}

/* the data of a get-like operation back to @p src: int64 status + data (or a
 * REPLY by id: header + data) */
static void loom_rma_am_serve_op(loom_rma_win_t *w, int src, const loom_rma_hdr_t *h,
                                 const char *body)
{
    const loom_rma_seg_t *segs = (const loom_rma_seg_t *)(const void *)body;
    const char *data = body + h->nseg * sizeof(*segs);
    int fetches = h->kind != LOOM_RMA_K_PUT && h->kind != LOOM_RMA_K_ACC;
    size_t rhead = fetches && h->arg != 0 ? sizeof(loom_rma_reply_t) : sizeof(int64_t);
    loom_rma_out_t *o = fetches ? loom_rma_am_out_get(w, rhead + h->bytes) : NULL;
    char *reply = o != NULL ? loom_rma_am_out_data(o) : NULL;
    char *t = loom_rma_target_addr(w, h->disp, segs, h->nseg);
    loom_status_t st = LOOM_OK;
    int64_t st64;

    if (fetches && reply == NULL) {
        st = LOOM_ERR_NO_MEMORY;
    } else if (t == NULL) {
        st = LOOM_RMA_ERR_RANGE;
        loom_debug("rma", "rank %d: request of rank %d outside the window (disp %lld)",
                   w->rank, src, (long long)h->disp);
    } else {
        st = loom_rma_apply((loom_rma_kind_t)h->kind, (loom_op_t)h->op,
                            (loom_datatype_t)h->basic, t, segs, h->nseg, data,
                            data + h->bytes, reply ? reply + rhead : NULL);
    }
    if (!fetches) {
        loom_rma_am_ctrl(w, src, LOOM_RMA_K_ACK, st);
        return;
    }
    if (reply == NULL) {   /* no memory: the origin's receive still needs an answer */
        loom_error("rma", "rank %d: no memory for a reply of %llu bytes to rank %d; "
                   "answering with the error only", w->rank,
                   (unsigned long long)h->bytes, src);
        loom_rma_am_reply_err(w, src, (uint32_t)h->arg, st);
        return;
    }
    if (h->arg != 0) {
        loom_rma_am_reply_id(w, src, h, o, st);
        return;
    }
    st64 = st;
    memcpy(reply, &st64, sizeof(st64));
    loom_rma_am_out_send(w, src, LOOM_RMA_TAG_REPLY, o, sizeof(int64_t) + h->bytes);
}

static int loom_rma_lock_grantable(const loom_rma_win_t *w, int type)
{
    return w->excl < 0 && (type == LOOM_RMA_LOCK_SHARED || w->nshared == 0);
}

/* @p src now holds the lock (no answer sent) */
static void loom_rma_lock_take(loom_rma_win_t *w, int src, int type)
{
    if (type == LOOM_RMA_LOCK_SHARED) {
        ++w->nshared;
        w->lkst[src] = LOOM_RMA_LK_SHARED;
    } else {
        w->excl = src;
        w->lkst[src] = LOOM_RMA_LK_EXCL;
    }
}

/* a queued LOCK granted: take it and answer */
static void loom_rma_lock_grant(loom_rma_win_t *w, int src, int type)
{
    loom_rma_lock_take(w, src, type);
    loom_rma_am_ctrl(w, src, LOOM_RMA_K_ACK, LOOM_OK);
}

/*
 * The origin does not wait for the grant (rma_sync.c): the operations and
 * the UNLOCK it sends meanwhile are held (loom_rma_am_hold) until then.
 * One LOCK per origin at a time (its epoch rules), so the FIFO of waiters,
 * sized at creation, never grows. Returns 1 if granted now (nothing sent:
 * the caller answers), 0 if queued (answered at the grant), or an error.
 */
static int loom_rma_am_lock_try(loom_rma_win_t *w, int src, int type)
{
    if (w->lkst[src] != LOOM_RMA_LK_NONE || w->nwait >= w->size) {
        loom_error("rma", "rank %d: a second lock request from rank %d before its unlock",
                   w->rank, src);
        return LOOM_RMA_ERR_SYNC;
    }
    if (w->nwait == 0 && loom_rma_lock_grantable(w, type)) {
        loom_rma_lock_take(w, src, type);
        return 1;
    }
    w->lkst[src] = LOOM_RMA_LK_WAIT;
    w->waiters[w->nwait].src    = src;
    w->waiters[w->nwait++].type = type;
    return 0;
}

/* take back the queued LOCK of @p src (its batch could not be held) */
static void loom_rma_am_unwait(loom_rma_win_t *w, int src)
{
    for (int i = 0; i < w->nwait; ++i) {
        if (w->waiters[i].src == src) {
            memmove(w->waiters + i, w->waiters + i + 1,
                    (size_t)(w->nwait - i - 1) * sizeof(*w->waiters));
            --w->nwait;
            break;
        }
    }
    w->lkst[src] = LOOM_RMA_LK_NONE;
}

static void loom_rma_am_lock(loom_rma_win_t *w, int src, int type)
{
    int r = loom_rma_am_lock_try(w, src, type);

    if (r != 0) {
        loom_rma_am_ctrl(w, src, LOOM_RMA_K_ACK, r == 1 ? LOOM_OK : r);
    }
}

/* release what @p src holds and grant the waiters that now can (no answer to @p src) */
static void loom_rma_am_release(loom_rma_win_t *w, int src)
{
    int i = 0;

    if (w->lkst[src] == LOOM_RMA_LK_EXCL) {
        w->excl = -1;
    } else if (w->lkst[src] == LOOM_RMA_LK_SHARED) {
        --w->nshared;
    }
    w->lkst[src] = LOOM_RMA_LK_NONE;
    while (i < w->nwait && loom_rma_lock_grantable(w, w->waiters[i].type)) {
        loom_rma_lock_grant(w, w->waiters[i].src, w->waiters[i].type);
        ++i;
    }
    if (i > 0) {
        memmove(w->waiters, w->waiters + i, (size_t)(w->nwait - i) * sizeof(*w->waiters));
        w->nwait -= i;
    }
}

static void loom_rma_am_unlock(loom_rma_win_t *w, int src)
{
    loom_rma_am_release(w, src);
    loom_rma_am_ctrl(w, src, LOOM_RMA_K_ACK, LOOM_OK);
}

/*
 * A put or accumulate of a BATCH: applied, no answer of its own. An
 * MPI_Accumulate with MPI_NO_OP carries no data (rma_ops.c sends none, as
 * for a get-like one's: loom_rma_am_fetch_entry); its h.bytes are the
 * target's, not the request's (review of session 18: such an accumulate
 * batched behind a LOCK was refused as malformed, MPI_ERR_ARG at the flush).
 */
static loom_status_t loom_rma_am_apply_one(loom_rma_win_t *w, int src, const char *req,
                                           size_t bytes)
{
    loom_rma_hdr_t h;
    const loom_rma_seg_t *segs;
    uint64_t data;
    char *t;

    memcpy(&h, req, sizeof(h));
    data = h.kind == LOOM_RMA_K_ACC && h.op == LOOM_RMA_OP_NO_OP ? 0 : h.bytes;
    if ((h.kind != LOOM_RMA_K_PUT && h.kind != LOOM_RMA_K_ACC) ||
        h.nseg > (bytes - sizeof(h)) / sizeof(*segs) ||
        data > bytes - sizeof(h) - h.nseg * sizeof(*segs)) {
        loom_error("rma", "rank %d: a malformed batched request (kind %d, %zu bytes) from "
                   "rank %d", w->rank, h.kind, bytes, src);
        return LOOM_ERR_INVALID_ARG;
    }
    segs = (const loom_rma_seg_t *)(const void *)(req + sizeof(h));
    if ((t = loom_rma_target_addr(w, h.disp, segs, h.nseg)) == NULL) {
        loom_debug("rma", "rank %d: request of rank %d outside the window (disp %lld)",
                   w->rank, src, (long long)h.disp);
        return LOOM_RMA_ERR_RANGE;
    }
    return loom_rma_apply((loom_rma_kind_t)h.kind, (loom_op_t)h.op, (loom_datatype_t)h.basic,
                          t, segs, h.nseg, req + sizeof(h) + h.nseg * sizeof(*segs), NULL,
                          NULL);
}

/*
 * The entries of a BATCH after a LOCK that must wait: a BATCH of their
 * own, held until the grant (the LOCK is answered by the grant, they by
 * the held batch's ACK). 0, or an error: no memory.
 */
static loom_status_t loom_rma_am_hold_rest(loom_rma_win_t *w, int src, const char *rest,
                                           size_t bytes, uint64_t n)
{
    loom_rma_in_t *in = loom_rma_in_alloc(w, sizeof(loom_rma_hdr_t) + bytes);
    loom_rma_hdr_t h = { 0 };

    if (in == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    h.kind  = LOOM_RMA_K_BATCH;
    h.nseg  = n;
    h.bytes = bytes;
    in->next  = NULL;
    in->req   = NULL;
    in->src   = src;
    in->bytes = sizeof(h) + bytes;
    in->buf   = (char *)(in + 1);
    memcpy(in->buf, &h, sizeof(h));
    memcpy(in->buf + sizeof(h), rest, bytes);
    *w->held_tail = in;
    w->held_tail  = &in->next;
    return LOOM_OK;
}

/* a get-like entry of a BATCH: answered by its own REPLY, not the batch's ACK */
static int loom_rma_am_entry_fetches(const loom_rma_hdr_t *e)
{
    return e->kind == LOOM_RMA_K_GET || e->kind == LOOM_RMA_K_GACC ||
           e->kind == LOOM_RMA_K_FOP || e->kind == LOOM_RMA_K_CAS;
}

/* serve a get-like entry of @p len bytes at @p req, checked; its REPLY answers it */
static loom_status_t loom_rma_am_fetch_entry(loom_rma_win_t *w, int src,
                                             const loom_rma_hdr_t *e, const char *req,
                                             size_t len)
{
    size_t room = len - sizeof(*e), data = 0;

    if (e->kind != LOOM_RMA_K_GET && (e->op != LOOM_RMA_OP_NO_OP || e->kind == LOOM_RMA_K_CAS)) {
        data = e->kind == LOOM_RMA_K_CAS ? 2 * e->bytes : e->bytes;
    }
    if (e->nseg > room / sizeof(loom_rma_seg_t) || e->bytes > UINT32_MAX ||
        data > room - e->nseg * sizeof(loom_rma_seg_t)) {
        loom_error("rma", "rank %d: a malformed batched request (kind %d, %zu bytes) from "
                   "rank %d", w->rank, e->kind, len, src);
        loom_rma_am_reply_err(w, src, (uint32_t)e->arg, LOOM_ERR_INVALID_ARG);
        return LOOM_OK;
    }
    loom_rma_am_serve_op(w, src, e, req + sizeof(*e));
    return LOOM_OK;
}

/*
 * One entry of a BATCH (@p len bytes at @p req); returns its status and
 * sets *@p wait_p if it is a LOCK that waits (the rest must be held),
 * *@p own_p if it is get-like (answered by its REPLY, not the ACK).
 */
static loom_status_t loom_rma_am_batch_entry(loom_rma_win_t *w, int src, const char *req,
                                             size_t len, int *wait_p, int *own_p)
{
    loom_rma_hdr_t e;
    int r;

    memcpy(&e, req, sizeof(e));
    *own_p = loom_rma_am_entry_fetches(&e);
    if (*own_p) {
        return loom_rma_am_fetch_entry(w, src, &e, req, len);
    }
    switch ((loom_rma_kind_t)e.kind) {
    case LOOM_RMA_K_LOCK:
        r = loom_rma_am_lock_try(w, src, e.arg);
        *wait_p = r == 0;
        return r == 1 || r == 0 ? LOOM_OK : (loom_status_t)r;
    case LOOM_RMA_K_UNLOCK:
        loom_rma_am_release(w, src);
        return LOOM_OK;
    default:
        return loom_rma_am_apply_one(w, src, req, len);
    }
}

/*
 * The @p n entries at @p rest that cannot be held for their LOCK: the
 * get-like ones answered by an error REPLY now; returns how many others
 * the ACK answers.
 */
static uint64_t loom_rma_am_refuse_rest(loom_rma_win_t *w, int src, const char *rest,
                                        size_t bytes, uint64_t n, loom_status_t st)
{
    uint64_t others = 0;
    size_t off = 0;

    for (uint64_t i = 0; i < n; ++i) {
        uint64_t len;
        loom_rma_hdr_t e;

        if (bytes - off < sizeof(len) + sizeof(e)) {
            others += n - i;   /* malformed: answered by the ACK */
            break;
        }
        memcpy(&len, rest + off, sizeof(len));
        memcpy(&e, rest + off + sizeof(len), sizeof(e));
        if (loom_rma_am_entry_fetches(&e)) {
            loom_rma_am_reply_err(w, src, (uint32_t)e.arg, st);
        } else {
            ++others;
        }
        off += sizeof(len) + loom_rma_pad8((size_t)len);
        off  = off > bytes ? bytes : off;
    }
    return others;
}

/*
 * The entries of a BATCH in order, then one ACK for all of them (the first
 * error) but the get-like ones, each answered by its REPLY. A LOCK that must wait ends the service here: the entries after it
 * are held as a BATCH of their own, and the LOCK is answered at its grant.
 */
static void loom_rma_am_serve_batch(loom_rma_win_t *w, int src, const loom_rma_hdr_t *h,
                                    const char *body, size_t bytes)
{
    loom_status_t st = LOOM_OK, est;
    uint64_t n, answered = 0, own_n = 0;
    size_t off = 0;
    int wait = 0, own = 0;

    for (n = 0; n < h->nseg && !wait; ++n) {
        uint64_t len;

        if (bytes - off < sizeof(len)) {
            break;
        }
        memcpy(&len, body + off, sizeof(len));
        off += sizeof(len);
        if (len < sizeof(loom_rma_hdr_t) || len > bytes - off) {
            break;
        }
        est = loom_rma_am_batch_entry(w, src, body + off, (size_t)len, &wait, &own);
        st  = st == LOOM_OK ? est : st;
        answered += !wait && !own;
        own_n    += own;
        off += loom_rma_pad8((size_t)len);
        off  = off > bytes ? bytes : off;
    }
    if (wait && n < h->nseg &&
        (est = loom_rma_am_hold_rest(w, src, body + off, bytes - off, h->nseg - n)) != LOOM_OK) {
        loom_error("rma", "rank %d: no memory to hold %llu requests of rank %d until its "
                   "lock; refusing the lock", w->rank, (unsigned long long)(h->nseg - n), src);
        loom_rma_am_unwait(w, src);   /* the LOCK and the rest answered with the error */
        answered += 1 + loom_rma_am_refuse_rest(w, src, body + off, bytes - off, h->nseg - n,
                                                est);
        st = st == LOOM_OK ? est : st;
    } else if (!wait && n < h->nseg) {
        loom_error("rma", "rank %d: a batch from rank %d ends after %llu of its %llu "
                   "requests", w->rank, src, (unsigned long long)n,
                   (unsigned long long)h->nseg);
        answered = h->nseg - own_n;   /* get-like ones among the rest: lost */
        st = st == LOOM_OK ? LOOM_ERR_INVALID_ARG : st;
    }
    if (answered > 0) {
        loom_rma_am_ctrl_n(w, src, LOOM_RMA_K_ACK, st, answered);
    }
}

/* a large put, get or accumulate's header (rma_zcopy.c): its one segment, checked here */
static void loom_rma_am_serve_zc(loom_rma_win_t *w, int src, const loom_rma_hdr_t *h,
                                 const char *body, size_t bytes)
{
    loom_rma_seg_t seg;
    char *t;

    if (h->nseg != 1 || bytes < sizeof(seg)) {
        loom_error("rma", "rank %d: a malformed large %s request from rank %d", w->rank,
                   h->kind == LOOM_RMA_K_GET   ? "get"
                   : h->kind == LOOM_RMA_K_ACC ? "accumulate" : "put", src);
        return;
    }
    memcpy(&seg, body, sizeof(seg));
    if ((t = loom_rma_target_addr(w, h->disp, &seg, 1)) == NULL) {
        loom_debug("rma", "rank %d: large request of rank %d outside the window (disp %lld)",
                   w->rank, src, (long long)h->disp);
    }
    loom_rma_zc_serve(w, src, h, &seg, t);
}

/* an ACK from @p src: operations answered (a batch's counts all), its error kept */
static void loom_rma_am_ack(loom_rma_win_t *w, int src, const loom_rma_hdr_t *h)
{
    if (h->arg != LOOM_OK && w->deferred[src] == LOOM_OK) {
        w->deferred[src] = h->arg;
    }
    w->done[src] += h->nseg != 0 ? h->nseg : 1;
}

/* the operation to @p src that awaits the REPLY by @p id, unlinked from w->rops; or NULL */
static loom_rma_rop_t *loom_rma_rop_take_id(loom_rma_win_t *w, int src, uint32_t id)
{
    for (loom_rma_rop_t **pp = &w->rops; *pp != NULL; pp = &(*pp)->next) {
        loom_rma_rop_t *rop = *pp;

        if (rop->id == id && rop->target == src && rop->req == NULL) {
            return loom_rma_rop_untrack(w, pp);
        }
    }
    return NULL;
}

/*
 * A REPLY by id (@p bytes at @p msg: header, data) from @p src: its
 * operation's result and status, finished here. Ownership: the data is
 * copied into the rop's tmp, then unpacked as a posted receive's would be.
 */
static void loom_rma_am_reply_in(loom_rma_win_t *w, int src, const char *msg, size_t bytes)
{
    loom_rma_reply_t h;
    loom_rma_rop_t *rop;
    int64_t st64;

    if (bytes < sizeof(h)) {
        loom_error("rma", "rank %d: a reply of %zu bytes from rank %d is shorter than its "
                   "header; dropped", w->rank, bytes, src);
        return;
    }
    memcpy(&h, msg, sizeof(h));
    if ((rop = loom_rma_rop_take_id(w, src, h.id)) == NULL) {
        loom_error("rma", "rank %d: a reply (id %u) from rank %d that no operation awaits; "
                   "dropped", w->rank, (unsigned)h.id, src);
        return;
    }
    st64 = h.status;
    if (st64 == LOOM_OK && (h.bytes != rop->bytes || bytes - sizeof(h) < h.bytes)) {
        loom_error("rma", "rank %d: a reply of %u bytes from rank %d to an operation of "
                   "%zu bytes", w->rank, (unsigned)h.bytes, src, rop->bytes);
        st64 = LOOM_ERR_INVALID_ARG;
    }
    if (st64 == LOOM_OK) {
        memcpy(rop->tmp + sizeof(st64), msg + sizeof(h), rop->bytes);
    }
    memcpy(rop->tmp, &st64, sizeof(st64));
    loom_rma_rop_finish(w, rop);
}

static void loom_rma_am_serve(loom_rma_win_t *w, int src, const char *buf, size_t bytes)
{
    loom_rma_hdr_t h;

    if (bytes > 0 && (uint8_t)buf[0] == LOOM_RMA_K_REPLY) {
        loom_rma_am_reply_in(w, src, buf, bytes);   /* a header of its own */
        return;
    }
    if (bytes < sizeof(h)) {
        loom_error("rma", "rank %d: a request of %zu bytes from rank %d is shorter than "
                   "its header", w->rank, bytes, src);
        return;
    }
    memcpy(&h, buf, sizeof(h));
    switch ((loom_rma_kind_t)h.kind) {
    case LOOM_RMA_K_LOCK:     loom_rma_am_lock(w, src, h.arg);   break;
    case LOOM_RMA_K_UNLOCK:   loom_rma_am_unlock(w, src);        break;
    case LOOM_RMA_K_POST:     ++w->posts[src];                   break;
    case LOOM_RMA_K_COMPLETE: ++w->completes[src];               break;
    case LOOM_RMA_K_ACK:      loom_rma_am_ack(w, src, &h);       break;
    case LOOM_RMA_K_BATCH:
        loom_rma_am_serve_batch(w, src, &h, buf + sizeof(h), bytes - sizeof(h));
        break;
    case LOOM_RMA_K_PUT:
    case LOOM_RMA_K_GET:
    case LOOM_RMA_K_ACC:
        if ((h.pad & LOOM_RMA_HDR_ZCOPY) != 0) {
            loom_rma_am_serve_zc(w, src, &h, buf + sizeof(h), bytes - sizeof(h));
            break;
        }
        /* fall through */
    default:
        loom_rma_am_serve_op(w, src, &h, buf + sizeof(h));
        break;
    }
}

/* take the REQ message @p ms found and every later one in the unexpected queue */
static __attribute__((noinline)) int loom_rma_am_take_from(loom_rma_win_t *w,
                                                           loom_msg_status_t *ms)
{
    int n = 0;

    do {
        loom_rma_in_t *in = loom_rma_in_alloc(w, ms->bytes);   /* the message follows */

        if (in != NULL) {
            in->next = NULL;
            in->buf  = (char *)(in + 1);
        }
        if (in == NULL ||
            loom_p2p_irecv_int(in->buf, ms->bytes, ms->source, LOOM_RMA_TAG_REQ, w->comm,
                               LOOM_CTX_P2P, &in->req) != LOOM_OK) {
            loom_error("rma", "rank %d: cannot receive a request of %zu bytes from rank %d",
                       w->rank, ms->bytes, ms->source);
            free(in);
            break;
        }
        in->src   = ms->source;
        in->bytes = ms->bytes;
        *w->in_tail = in;
        w->in_tail  = &in->next;
        ++n;
    } while (loom_p2p_probe_int(LOOM_ANY_SOURCE, LOOM_RMA_TAG_REQ, w->comm, LOOM_CTX_P2P, ms));
    return n;
}

/* take what arrived: every REQ message in the unexpected queue (one probe when none) */
static inline int loom_rma_am_take(loom_rma_win_t *w)
{
    loom_msg_status_t ms;

    if (!loom_p2p_probe_int(LOOM_ANY_SOURCE, LOOM_RMA_TAG_REQ, w->comm, LOOM_CTX_P2P, &ms)) {
        return 0;
    }
    return loom_rma_am_take_from(w, &ms);
}

/* the origin @p src's requests wait (its LOCK is queued, or its data still moves) */
static int loom_rma_am_blocked(const loom_rma_win_t *w, int src)
{
    return w->lkst[src] == LOOM_RMA_LK_WAIT || loom_rma_zc_busy(w, src);
}

/* the header of a large put or get (rma_zcopy.c)? (a large accumulate's waits: order) */
static int loom_rma_am_is_zc(const loom_rma_in_t *in)
{
    loom_rma_hdr_t h;

    memcpy(&h, in->buf, sizeof(h));
    return (h.kind == LOOM_RMA_K_PUT || h.kind == LOOM_RMA_K_GET) &&
           (h.pad & LOOM_RMA_HDR_ZCOPY) != 0;
}

/* 1 if a request of @p src lies in the held queue before @p end (NULL: anywhere) */
static int loom_rma_am_held_from(const loom_rma_win_t *w, int src, const loom_rma_in_t *end)
{
    for (const loom_rma_in_t *in = w->held; in != end; in = in->next) {
        if (in->src == src) {
            return 1;
        }
    }
    return 0;
}

/*
 * 1 if @p in (not before @p before in the held queue) must wait: an
 * operation or UNLOCK from an origin whose LOCK is queued here, or any
 * request but an answer from an origin whose large put or accumulate is
 * still moving its data (rma_zcopy.c: its UNLOCK must not release the lock
 * before). Answers (ACK) never wait (an ACK held here could be what the
 * holder waits for); nor do LOCK and PSCW notices behind a queued LOCK; nor
 * does the next large put or get of an origin whose data moves, when none
 * of its requests waits before it: transfers of one epoch may overlap
 * (MPI leaves conflicting ones undefined), so its receive is posted at
 * once instead of a round trip after the last one's end; but while the
 * data of a put this target could not store is consumed, it waits too
 * (its receive would match that data).
 */
static int loom_rma_am_waits(const loom_rma_win_t *w, const loom_rma_in_t *in,
                             const loom_rma_in_t *before)
{
    loom_rma_kind_t k;

    if (!loom_rma_am_blocked(w, in->src) || in->bytes < sizeof(loom_rma_hdr_t)) {
        return 0;
    }
    /* the kind byte alone: a frame served in place is not aligned (session 16) */
    k = (loom_rma_kind_t)*(const uint8_t *)in->buf;
    if (k == LOOM_RMA_K_ACK || k == LOOM_RMA_K_REPLY) {
        return 0;
    }
    if (w->lkst[in->src] != LOOM_RMA_LK_WAIT) {   /* only data moving */
        return !loom_rma_am_is_zc(in) || loom_rma_zc_dropping(w, in->src) ||
               loom_rma_am_held_from(w, in->src, before);
    }
    return k != LOOM_RMA_K_LOCK && k != LOOM_RMA_K_POST && k != LOOM_RMA_K_COMPLETE;
}

static int loom_rma_am_must_hold(const loom_rma_win_t *w, const loom_rma_in_t *in)
{
    return loom_rma_am_waits(w, in, NULL);
}

/*
 * Serve the held requests whose origin got its lock, in arrival order. An
 * UNLOCK served here may grant another origin, whose requests may lie
 * before it: so each serve starts the scan again from the head.
 */
static int loom_rma_am_held_serve(loom_rma_win_t *w)
{
    loom_rma_in_t **pp = &w->held;
    int n = 0;

    while (*pp != NULL) {
        loom_rma_in_t *in = *pp;

        if (loom_rma_am_waits(w, in, in)) {
            pp = &in->next;
            continue;
        }
        *pp = in->next;
        if (w->held_tail == &in->next) {
            w->held_tail = pp;
        }
        loom_rma_am_serve(w, in->src, in->buf, in->bytes);
        loom_rma_in_free(w, in);
        ++n;
        pp = &w->held;
    }
    return n;
}

/*
 * Everything but the take: data of large transfers, the received requests
 * in order, the answers of get-like operations, finished sends. Out of
 * line: an idle pass (nothing taken, nothing pending) never enters it.
 */
static __attribute__((noinline)) int loom_rma_am_poll_work(loom_rma_win_t *w, int n)
{
    if ((w->zc != NULL || w->zc_ndrop != 0) && loom_rma_zc_poll(w) > 0 && w->held != NULL) {
        n += loom_rma_am_held_serve(w);   /* an origin's data moved: its requests go on */
    }

    while (w->in != NULL && (w->in->req == NULL || loom_request_is_complete(w->in->req))) {
        loom_rma_in_t *in = w->in;

        w->in = in->next;
        if (w->in == NULL) {
            w->in_tail = &w->in;
        }
        if (in->req != NULL) {   /* (a frame's record has none) */
            loom_request_release(in->req);
        }
        ++n;
        if (loom_rma_am_must_hold(w, in)) {
            in->next = NULL;
            *w->held_tail = in;
            w->held_tail  = &in->next;
            continue;
        }
        loom_rma_am_serve(w, in->src, in->buf, in->bytes);
        loom_rma_in_free(w, in);   /* and its message */
        if (w->held != NULL) {
            n += loom_rma_am_held_serve(w);   /* it may have granted a lock */
        }
    }
    for (loom_rma_rop_t **pp = &w->rops; *pp != NULL;) {
        loom_rma_rop_t *rop = *pp;

        if (rop->req == NULL ? !rop->failed : !loom_request_is_complete(rop->req)) {
            pp = &rop->next;   /* (answered by id: finished by its REPLY) */
            continue;
        }
        loom_rma_rop_finish(w, loom_rma_rop_untrack(w, pp));
        ++n;
    }
    for (loom_rma_out_t **pp = &w->out; *pp != NULL;) {
        loom_rma_out_t *o = *pp;

        if (!loom_request_is_complete(o->req)) {
            pp = &o->next;
            continue;
        }
        *pp = o->next;
        loom_request_release(o->req);
        loom_rma_am_out_free(w, o);
    }
    return n;
}

/*
 * 1 if a pass has something to look at besides new requests: requests
 * received or held, answers awaited whose receive completed, sends in
 * flight, large transfers. A waiting rop whose receive has not completed
 * is not work: a flush spinning for one reply tests that one flag only.
 */
static inline int loom_rma_am_pending(const loom_rma_win_t *w)
{
    return w->in != NULL || w->out != NULL || w->zc != NULL || w->zc_ndrop != 0 ||
           (w->rops != NULL && (w->rops->next != NULL || w->rops->failed ||
                                (w->rops->req != NULL && loom_request_is_complete(w->rops->req))));
}

static int loom_rma_am_poll_win(loom_rma_win_t *w)
{
    int n;

    if (loom_unlikely(!w->ready)) {
        return 0;   /* being created: what came waits (frames in `in`) */
    }
    n = loom_rma_am_take(w);

    if (n == 0 && !loom_rma_am_pending(w)) {
        return 0;   /* the idle pass: one probe and a few loads (session 15) */
    }
    return loom_rma_am_poll_work(w, n);
}

static int loom_rma_poll(void)
{
    int n = 0;

    if (loom_rma_polling) {
        return 0;
    }
    loom_rma_polling = 1;
    for (loom_rma_win_t *w = loom_rma_wins; w != NULL; w = w->next) {
        n += loom_rma_am_poll_win(w);
    }
    loom_rma_polling = 0;
    return n;
}

/* ---- frames (session 16): requests and answers handed over by the engine ---- */

static loom_rma_win_t *loom_rma_win_of_ctx(uint32_t ctx)
{
    for (loom_rma_win_t *w = loom_rma_wins; w != NULL; w = w->next) {
        if (w->am_ctx == ctx) {
            return w;
        }
    }
    return NULL;
}

/* queue the frame (@p len bytes at @p data, of @p src) in `in`, behind what came before */
static void loom_rma_am_frame_queue(loom_rma_win_t *w, int src, const void *data, size_t len)
{
    loom_rma_in_t *in = loom_rma_in_alloc(w, len);

    if (in == NULL) {
        loom_error("rma", "rank %d: no memory to keep a request of %zu bytes from rank %d; "
                   "dropped", w->rank, len, src);
        return;
    }
    in->next  = NULL;
    in->req   = NULL;   /* complete: nothing to receive */
    in->src   = src;
    in->bytes = len;
    in->buf   = (char *)(in + 1);
    memcpy(in->buf, data, len);
    *w->in_tail = in;
    w->in_tail  = &in->next;
}

/*
 * A request frame served where it lies (nothing of its window queued before
 * it, the hook not running): 1, or 0 if it must be queued instead (its
 * origin's lock waits, or its data still moves; or the frame is not 8-byte
 * aligned, as a tcp receive buffer may hand it: the service reads segments
 * in place). The frame is the engine's: served in the call, nothing kept.
 */
static int loom_rma_am_frame_serve(loom_rma_win_t *w, int src, const void *data, size_t len)
{
    loom_rma_in_t here = { .src = src, .bytes = len, .buf = (char *)(uintptr_t)data };

    if (loom_rma_polling || w->in != NULL || !w->ready || ((uintptr_t)data & 7) != 0 ||
        loom_rma_am_must_hold(w, &here)) {
        return 0;
    }
    loom_rma_polling = 1;   /* the hook must not run inside (a send's progress) */
    loom_rma_am_serve(w, src, data, len);
    if (w->held != NULL) {
        (void)loom_rma_am_held_serve(w);   /* it may have granted a lock */
    }
    loom_rma_polling = 0;
    return 1;
}

/*
 * The engine's function for rma frames (loom_p2p_am_set): @p src is the
 * sender's rank in the window's communicator, @p data valid in the call.
 * Answers are taken at once; a request goes behind the REQ messages that
 * arrived before it, then is served or queued (see the top of the file).
 */
static void loom_rma_am_frame_in(uint32_t ctx, int src, const void *data, size_t len)
{
    loom_rma_win_t *w = loom_rma_win_of_ctx(ctx);
    uint8_t kind = len > 0 ? *(const uint8_t *)data : 0;
    loom_rma_hdr_t h;

    if (w == NULL || len < sizeof(loom_rma_reply_t) || src < 0 || src >= w->size) {
        loom_error("rma", "rank %d: a frame of %zu bytes from rank %d for %s; dropped",
                   w != NULL ? w->rank : -1, len, src,
                   w == NULL ? "no window here" : "this window is malformed");
        return;
    }
    if (w->ready && kind == LOOM_RMA_K_REPLY) {
        loom_rma_am_reply_in(w, src, data, len);
        return;
    }
    if (w->ready && kind == LOOM_RMA_K_ACK && len >= sizeof(h)) {
        memcpy(&h, data, sizeof(h));
        loom_rma_am_ack(w, src, &h);
        return;
    }
    /* the messages before it, in order (also inside the hook, and while the
     * window is being created: the hook would take them behind it) */
    (void)loom_rma_am_take(w);
    if (!loom_rma_am_frame_serve(w, src, data, len)) {
        loom_rma_am_frame_queue(w, src, data, len);
    }
}

/*
 * A large get's reply came straight into the result (rma_zcopy.c): all its
 * bytes, or an 8-byte reply that carries the target's error instead.
 */
static int64_t loom_rma_rop_direct_status(const loom_rma_rop_t *rop)
{
    int64_t st64;

    if (rop->req->msg.error == LOOM_OK && rop->req->msg.bytes == rop->bytes) {
        return LOOM_OK;
    }
    if (rop->req->msg.error == LOOM_OK && rop->req->msg.bytes == sizeof(st64)) {
        memcpy(&st64, rop->result, sizeof(st64));
        return st64 != LOOM_OK ? st64 : LOOM_ERR_INVALID_ARG;
    }
    return rop->req->msg.error != LOOM_OK ? rop->req->msg.error : LOOM_ERR_INVALID_ARG;
}

void loom_rma_rop_finish(loom_rma_win_t *w, loom_rma_rop_t *rop)
{
    int64_t st64;

    if (rop->tmp == NULL) {
        st64 = loom_rma_rop_direct_status(rop);
    } else if (rop->req != NULL && rop->req->msg.error != LOOM_OK) {
        /* the reply's receive failed (its peer did): tmp holds no reply, its
         * status word was never written (a cancelled receive completes
         * LOOM_OK, its status set by the canceller) */
        st64 = rop->req->msg.error;
    } else {
        memcpy(&st64, rop->tmp, sizeof(st64));
    }
    if (rop->req != NULL) {   /* (none when answered by id) */
        loom_request_release(rop->req);
    }
    if (st64 != LOOM_OK && w->deferred[rop->target] == LOOM_OK) {
        w->deferred[rop->target] = (loom_status_t)st64;
    }
    if (rop->tmp == NULL) {   /* the data came in place */
        --w->zc_gets[rop->target];   /* an UNLOCK to it may leave (rma_zcopy.c) */
    } else if (st64 != LOOM_OK) {
        /* an error reply (or a cancelled receive) carries the status alone:
         * the rest of tmp is not data, the result stays as it was */
    } else if (rop->rdt == NULL) {   /* loom_rma_am_atomic's: plain bytes */
        memcpy(rop->result, rop->tmp + sizeof(int64_t), rop->bytes);
    } else {
        loom_dt_unpack_range(rop->result, rop->rcount, rop->rdt, 0, rop->bytes,
                             rop->tmp + sizeof(int64_t));
    }
    ++w->done[rop->target];
    if (rop->ureq != NULL) {
        loom_rma_ureq_done(rop->ureq);
    }
    if (rop->rdt != NULL) {
        loom_dt_release(rop->rdt);
    }
    loom_rma_rop_free(w, rop);
}

/* ---- one fetch-and-op / compare-and-swap element by active message ---- */

/*
 * The record of the reply (status + @p esize bytes, in one block with it),
 * awaited by id (session 16: no receive posted, the REPLY request that
 * names the id fills it, loom_rma_am_reply_in).
 */
static loom_status_t loom_rma_am_atomic_rop(loom_rma_win_t *w, int target, size_t esize,
                                            void *result, loom_rma_rop_t **rop_p)
{
    loom_rma_rop_t *rop = loom_rma_rop_small_alloc(w);   /* esize <= 8 */

    if (rop == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    memset(rop, 0, sizeof(*rop));
    rop->tmp = (char *)(rop + 1);
    rop->id  = loom_rma_rop_id(w);
    rop->target = target;
    rop->bytes  = esize;
    rop->result = result;
    *rop_p = rop;
    return LOOM_OK;
}

/* the request: header, one segment, the origin element, the compare element */
enum { LOOM_RMA_AM_ATOMIC_MAX = sizeof(loom_rma_hdr_t) + sizeof(loom_rma_seg_t) + 16 };

/* build it at @p p (LOOM_RMA_AM_ATOMIC_MAX bytes); its length */
static size_t loom_rma_am_atomic_msg(const loom_rma_am_atomic_t *a, int64_t start,
                                     size_t esize, uint32_t id, char *p)
{
    size_t data = a->origin != NULL ? esize : 0, cmp = a->compare != NULL ? esize : 0;
    loom_rma_hdr_t h = { 0 };
    loom_rma_seg_t seg = { 0, esize };

    h.kind  = (uint8_t)(a->compare != NULL ? LOOM_RMA_K_CAS : LOOM_RMA_K_FOP);
    h.arg   = (int32_t)id;   /* answered by a REPLY naming it */
    h.op    = (uint8_t)a->op;
    h.basic = (uint8_t)a->basic;
    h.disp  = start;
    h.nseg  = 1;
    h.bytes = esize;
    memcpy(p, &h, sizeof(h));
    memcpy(p + sizeof(h), &seg, sizeof(seg));
    if (data) {
        memcpy(p + sizeof(h) + sizeof(seg), a->origin, data);
    }
    if (cmp) {
        memcpy(p + sizeof(h) + sizeof(seg) + data, a->compare, cmp);
    }
    return sizeof(h) + sizeof(seg) + data + cmp;
}

/* the request sent alone (it does not fit its target's batch); 0 or an error */
static loom_status_t loom_rma_am_atomic_alone(loom_rma_win_t *w, int target, const char *msg,
                                              size_t bytes)
{
    loom_rma_out_t *o = loom_rma_am_out_alloc(bytes);

    if (o == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    memcpy(loom_rma_am_out_data(o), msg, bytes);
    return loom_rma_am_out_send(w, target, LOOM_RMA_TAG_REQ, o, bytes);
}

/* windows whose accumulates to @p target go by active message (rma_ops.c's choice) */
static int loom_rma_am_atomic_path(const loom_rma_win_t *w, int target)
{
    /* not over RDMA: its 8-byte atomics are the window's one path (rma_ib.c) */
    return !w->direct && !(w->cma && w->cma_acc) && w->rdma == NULL &&
           w->flavor != LOOM_RMA_FLAVOR_DYNAMIC && target != w->rank;
}

int loom_rma_am_atomic(loom_rma_win_t *w, const loom_rma_am_atomic_t *a, loom_status_t *st_p)
{
    size_t esize = loom_datatype_size(a->basic), bytes;
    int64_t start;
    loom_rma_rop_t *rop;
    _Alignas(8) char msg[LOOM_RMA_AM_ATOMIC_MAX];

    if (!loom_rma_am_atomic_path(w, a->target) || esize == 0 || esize > 8 ||
        (a->origin == NULL && a->op != LOOM_RMA_OP_NO_OP)) {
        return 1;
    }
    if ((*st_p = loom_rma_epoch_access_fast(&w->ep, a->target)) != LOOM_OK) {
        return 0;
    }
    if (a->disp < 0 ||
        __builtin_mul_overflow((int64_t)a->disp, (int64_t)w->units[a->target], &start) ||
        (uint64_t)start > w->sizes[a->target] || esize > w->sizes[a->target] - (uint64_t)start) {
        *st_p = LOOM_RMA_ERR_RANGE;
        return 0;
    }
    if ((*st_p = loom_rma_am_atomic_rop(w, a->target, esize, a->result, &rop)) != LOOM_OK) {
        return 0;
    }
    bytes = loom_rma_am_atomic_msg(a, start, esize, rop->id, msg);   /* built here, not malloc'ed */
    if (loom_rma_am_queue_fetch(w, a->target, msg, bytes, rop)) {
        loom_rma_rop_track(w, rop);   /* copied into the batch, counted */
        return 0;
    }
    if ((*st_p = loom_rma_am_atomic_alone(w, a->target, msg, bytes)) != LOOM_OK) {
        loom_rma_rop_unpost(rop);
        return 0;
    }
    loom_rma_rop_track(w, rop);
    ++w->sent[a->target];
    return 0;
}

static int loom_rma_am_flushed(const loom_rma_win_t *w, int target)
{
    if (target >= 0) {
        return w->done[target] == w->sent[target];
    }
    for (int r = 0; r < w->size; ++r) {
        if (w->done[r] != w->sent[r]) {
            return 0;
        }
    }
    return 1;
}

/*
 * The rops to failed target @p t awaiting a REPLY by id, finished with its
 * error @p st; returns how many of its rops are left (posted receives: the
 * engine fails those, the hook finishes them).
 */
static uint64_t loom_rma_am_fail_rops(loom_rma_win_t *w, int t, loom_status_t st)
{
    int64_t st64 = st;
    uint64_t left = 0;

    for (loom_rma_rop_t **pp = &w->rops; *pp != NULL;) {
        loom_rma_rop_t *rop = *pp;

        if (rop->target != t || rop->req != NULL) {
            left += rop->target == t;
            pp = &rop->next;
            continue;
        }
        (void)loom_rma_rop_untrack(w, pp);
        loom_error("rma", "rank %d: an operation awaiting its reply (id %u, %zu bytes) from "
                   "rank %d, which failed: it completes with %s", w->rank, (unsigned)rop->id,
                   rop->bytes, t, loom_strerror(st));
        memcpy(rop->tmp, &st64, sizeof(st64));   /* the status word, no data */
        loom_rma_rop_finish(w, rop);
    }
    return left;
}

/*
 * A target that failed answers nothing more: no REPLY by id (no receive
 * was posted that the engine could fail with the peer, as it fails an
 * R-form's), no ACK of a batch, a LOCK or an accumulate. What is queued
 * for it is sent first (the send fails: those operations are uncounted,
 * their get-likes failed, as for any failed batch); its rops awaiting an
 * id finish with the peer's error, and the rest of what was sent to it
 * counts as answered with that error (session 16 review: a flush, an
 * unlock or a fence returns the error instead of waiting for ever). Cheap
 * when no peer failed since the last look: one call and a compare.
 */
static void loom_rma_am_fail_peers(loom_rma_win_t *w)
{
    unsigned failures = loom_p2p_peer_failures();

    if (loom_likely(failures == w->peer_failures)) {
        return;
    }
    w->peer_failures = failures;
    for (int t = 0; t < w->size; ++t) {
        loom_status_t st = loom_p2p_peer_failed(loom_comm_world_rank(w->comm, t));
        uint64_t left;

        if (st == LOOM_OK || t == w->rank) {
            continue;
        }
        /* what is queued for it fails to leave now and is uncounted there
         * (loom_rma_am_push): only what left counts as answered below */
        loom_rma_am_push_all(w, t);
        left = loom_rma_am_fail_rops(w, t, st);
        if (w->sent[t] - left <= w->done[t]) {
            continue;   /* nothing else awaited from it: no error to report */
        }
        loom_error("rma", "rank %d: %llu operations to rank %d, which failed, will not be "
                   "answered: they complete with %s", w->rank,
                   (unsigned long long)(w->sent[t] - left - w->done[t]), t,
                   loom_strerror(st));
        w->done[t] = w->sent[t] - left;
        if (w->deferred[t] == LOOM_OK) {
            w->deferred[t] = st;
        }
    }
}

/*
 * Each pass sends what was queued since the last one: under
 * MPI_THREAD_MULTIPLE another thread may queue a request to @p target while
 * this one waits (its progress passes let that thread in), and the request
 * counts in sent[] at once; waiting for it without sending it would never end.
 */
void loom_rma_am_settle(loom_rma_win_t *w, int target)
{
    if (target >= 0 && w->agg[target].n == 0 && w->rdma == NULL &&
        w->done[target] == w->sent[target]) {
        return;   /* nothing queued, nothing in flight (a CMA put's flush and unlock) */
    }
    loom_rma_am_push_all(w, target);
    loom_rma_rdma_settle(w, target);   /* RDMA windows: the counted completions too */
    while (!loom_rma_am_flushed(w, target)) {
        loom_progress();
        loom_rma_am_fail_peers(w);   /* a failed target answers nothing more */
        if (target < 0 || w->agg[target].n != 0) {   /* a pass shorter by a call when not */
            loom_rma_am_push_all(w, target);
        }
    }
}

loom_status_t loom_rma_am_take_err(loom_rma_win_t *w, int target)
{
    loom_status_t st = LOOM_OK;

    if (target >= 0) {
        st = w->deferred[target];
        w->deferred[target] = LOOM_OK;
        return st;
    }
    for (int r = 0; r < w->size; ++r) {
        if (st == LOOM_OK) {
            st = w->deferred[r];
        }
        w->deferred[r] = LOOM_OK;
    }
    return st;
}

loom_status_t loom_rma_am_flush(loom_rma_win_t *w, int target)
{
    loom_rma_am_settle(w, target);
    return loom_rma_am_take_err(w, target);
}

void loom_rma_am_drain(loom_rma_win_t *w)
{
    loom_rma_am_push_all(w, -1);
    while (w->out != NULL || w->in != NULL || w->zc != NULL) {
        loom_progress();
    }
}
