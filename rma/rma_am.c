/*
 * rma_am.c: the active-message protocol of windows over the p2p engine,
 * and the target's side of it.
 *
 * Every request is one message (header, target segments, packed data) with
 * tag REQ on the window's private communicator. The target finds them from
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
 */
#include "rma_priv.h"
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

static loom_rma_win_t *loom_rma_wins;   /* every live window */
static int loom_rma_polling;            /* the hook is running (no re-entry) */

static int loom_rma_poll(void);

void loom_rma_am_register(loom_rma_win_t *w)
{
    w->next = loom_rma_wins;
    loom_rma_wins = w;
    loom_progress_hook_set(loom_rma_poll);
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
    }
}

loom_status_t loom_rma_am_send(loom_rma_win_t *w, int dest, int tag, void *buf, size_t bytes)
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
    o->next = w->out;
    w->out = o;
    return LOOM_OK;
}

loom_status_t loom_rma_am_ctrl(loom_rma_win_t *w, int dest, loom_rma_kind_t kind, int arg)
{
    loom_rma_hdr_t *h = calloc(1, sizeof(*h));

    if (h == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    h->kind = (uint8_t)kind;
    h->arg  = arg;
    return loom_rma_am_send(w, dest, LOOM_RMA_TAG_REQ, h, sizeof(*h));
}

/* ---- the target's service ---- */

/* 1 if the addresses [lo, hi) lie in attached regions (possibly several adjacent ones) */
static int loom_rma_dyn_covered(const loom_rma_win_t *w, uintptr_t lo, uintptr_t hi)
{
    while (lo < hi) {
        int i;

        for (i = 0; i < w->nregions; ++i) {
            uintptr_t b = (uintptr_t)w->regions[i].base;

            if (lo >= b && lo - b < w->regions[i].size) {
                lo = b + w->regions[i].size;
                break;
            }
        }
        if (i == w->nregions) {
            return 0;
        }
    }
    return 1;
}

char *loom_rma_am_target_addr(loom_rma_win_t *w, int64_t disp, const loom_rma_seg_t *segs,
                              size_t nseg)
{
    if (w->flavor != LOOM_RMA_FLAVOR_DYNAMIC) {
        return loom_rma_range_check(segs, nseg, disp, w->bytes) == LOOM_OK ? w->base + disp
                                                                           : NULL;
    }
    /* every segment inside attached memory; one operation may span regions
     * attached next to each other (MPICH rma/win_dynamic_rma_flush_get) */
    for (size_t i = 0; i < nseg; ++i) {
        uintptr_t lo = (uintptr_t)(disp + segs[i].off);

        if (segs[i].len > 0 && (disp + segs[i].off < 0 || UINTPTR_MAX - lo < segs[i].len ||
                                !loom_rma_dyn_covered(w, lo, lo + segs[i].len))) {
            return NULL;
        }
    }
    return (char *)(uintptr_t)disp;
}

/* the data of a get-like operation back to @p src: int64 status + data */
static void loom_rma_am_serve_op(loom_rma_win_t *w, int src, const loom_rma_hdr_t *h,
                                 const char *body)
{
    const loom_rma_seg_t *segs = (const loom_rma_seg_t *)(const void *)body;
    const char *data = body + h->nseg * sizeof(*segs);
    int fetches = h->kind != LOOM_RMA_K_PUT && h->kind != LOOM_RMA_K_ACC;
    char *reply = fetches ? malloc(sizeof(int64_t) + h->bytes) : NULL;
    char *t = loom_rma_am_target_addr(w, h->disp, segs, h->nseg);
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
                            data + h->bytes, reply ? reply + sizeof(int64_t) : NULL);
    }
    if (!fetches) {
        loom_rma_am_ctrl(w, src, LOOM_RMA_K_ACK, st);
        return;
    }
    if (reply == NULL) {   /* no memory: the origin's receive still needs an answer */
        loom_error("rma", "rank %d: no memory for a reply of %llu bytes to rank %d; "
                   "answering with the error only", w->rank,
                   (unsigned long long)h->bytes, src);
        if ((reply = malloc(sizeof(int64_t))) == NULL) {
            return;   /* not even 8 bytes */
        }
        st64 = st;
        memcpy(reply, &st64, sizeof(st64));
        loom_rma_am_send(w, src, LOOM_RMA_TAG_REPLY, reply, sizeof(int64_t));
        return;
    }
    st64 = st;
    memcpy(reply, &st64, sizeof(st64));
    loom_rma_am_send(w, src, LOOM_RMA_TAG_REPLY, reply, sizeof(int64_t) + h->bytes);
}

static int loom_rma_lock_grantable(const loom_rma_win_t *w, int type)
{
    return w->excl < 0 && (type == LOOM_RMA_LOCK_SHARED || w->nshared == 0);
}

static void loom_rma_lock_grant(loom_rma_win_t *w, int src, int type)
{
    if (type == LOOM_RMA_LOCK_SHARED) {
        ++w->nshared;
    } else {
        w->excl = src;
    }
    loom_rma_am_ctrl(w, src, LOOM_RMA_K_ACK, LOOM_OK);
}

static void loom_rma_am_lock(loom_rma_win_t *w, int src, int type)
{
    if (w->nwait == 0 && loom_rma_lock_grantable(w, type)) {
        loom_rma_lock_grant(w, src, type);
        return;
    }
    if (w->nwait == w->cap_wait) {
        int cap = w->cap_wait ? 2 * w->cap_wait : 8;
        loom_rma_waiter_t *q = realloc(w->waiters, (size_t)cap * sizeof(*q));

        if (q == NULL) {
            loom_rma_am_ctrl(w, src, LOOM_RMA_K_ACK, LOOM_ERR_NO_MEMORY);
            return;
        }
        w->waiters  = q;
        w->cap_wait = cap;
    }
    w->waiters[w->nwait].src    = src;
    w->waiters[w->nwait++].type = type;
}

static void loom_rma_am_unlock(loom_rma_win_t *w, int src)
{
    int i = 0;

    if (w->excl == src) {
        w->excl = -1;
    } else if (w->nshared > 0) {
        --w->nshared;
    }
    loom_rma_am_ctrl(w, src, LOOM_RMA_K_ACK, LOOM_OK);
    while (i < w->nwait && loom_rma_lock_grantable(w, w->waiters[i].type)) {
        loom_rma_lock_grant(w, w->waiters[i].src, w->waiters[i].type);
        ++i;
    }
    if (i > 0) {
        memmove(w->waiters, w->waiters + i, (size_t)(w->nwait - i) * sizeof(*w->waiters));
        w->nwait -= i;
    }
}

static void loom_rma_am_serve(loom_rma_win_t *w, int src, const char *buf, size_t bytes)
{
    loom_rma_hdr_t h;

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
    case LOOM_RMA_K_ACK:
        if (h.arg != LOOM_OK && w->deferred[src] == LOOM_OK) {
            w->deferred[src] = h.arg;
        }
        ++w->done[src];
        break;
    default:
        loom_rma_am_serve_op(w, src, &h, buf + sizeof(h));
        break;
    }
}

/* take what arrived: every REQ message in the unexpected queue */
static int loom_rma_am_take(loom_rma_win_t *w)
{
    loom_msg_status_t ms;
    int n = 0;

    while (loom_p2p_probe_int(LOOM_ANY_SOURCE, LOOM_RMA_TAG_REQ, w->comm, LOOM_CTX_P2P, &ms)) {
        loom_rma_in_t *in = calloc(1, sizeof(*in));

        if (in == NULL || (in->buf = malloc(ms.bytes ? ms.bytes : 1)) == NULL ||
            loom_p2p_irecv_int(in->buf, ms.bytes, ms.source, LOOM_RMA_TAG_REQ, w->comm,
                               LOOM_CTX_P2P, &in->req) != LOOM_OK) {
            loom_error("rma", "rank %d: cannot receive a request of %zu bytes from rank %d",
                       w->rank, ms.bytes, ms.source);
            if (in != NULL) {
                free(in->buf);
            }
            free(in);
            break;
        }
        in->src   = ms.source;
        in->bytes = ms.bytes;
        *w->in_tail = in;
        w->in_tail  = &in->next;
        ++n;
    }
    return n;
}

static int loom_rma_am_poll_win(loom_rma_win_t *w)
{
    int n = loom_rma_am_take(w);

    while (w->in != NULL && loom_request_is_complete(w->in->req)) {
        loom_rma_in_t *in = w->in;

        w->in = in->next;
        if (w->in == NULL) {
            w->in_tail = &w->in;
        }
        loom_request_release(in->req);
        loom_rma_am_serve(w, in->src, in->buf, in->bytes);
        free(in->buf);
        free(in);
        ++n;
    }
    for (loom_rma_rop_t **pp = &w->rops; *pp != NULL;) {
        loom_rma_rop_t *rop = *pp;

        if (!loom_request_is_complete(rop->req)) {
            pp = &rop->next;
            continue;
        }
        *pp = rop->next;
        if (*pp == NULL) {
            w->rops_tail = pp;
        }
        loom_rma_rop_finish(w, rop);
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
        free(o->buf);
        free(o);
    }
    return n;
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

void loom_rma_rop_finish(loom_rma_win_t *w, loom_rma_rop_t *rop)
{
    int64_t st64;

    memcpy(&st64, rop->tmp, sizeof(st64));
    loom_request_release(rop->req);
    if (st64 == LOOM_OK) {
        loom_dt_unpack_range(rop->result, rop->rcount, rop->rdt, 0, rop->bytes,
                             rop->tmp + sizeof(int64_t));
    } else if (w->deferred[rop->target] == LOOM_OK) {
        w->deferred[rop->target] = (loom_status_t)st64;
    }
    ++w->done[rop->target];
    if (rop->ureq != NULL) {
        loom_rma_ureq_done(rop->ureq);
    }
    loom_dt_release(rop->rdt);
    free(rop->tmp);
    free(rop);
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

void loom_rma_am_settle(loom_rma_win_t *w, int target)
{
    loom_rma_rdma_settle(w, target);   /* RDMA windows: the counted completions too */
    while (!loom_rma_am_flushed(w, target)) {
        loom_progress();
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
    while (w->out != NULL || w->in != NULL) {
        loom_progress();
    }
}
