/*
 * rma_zcopy.c: large contiguous puts, gets and accumulates over active
 * messages, with the data moved straight between the origin's memory and
 * the window (an accumulate's: into scratch at the target, then applied).
 *
 * The batched path (rma_send.c, rma_am.c) carries the data inside the
 * request: the origin packs it into a temporary buffer, the target
 * receives that into another and copies it into the window; a get's reply
 * goes the same way back. At 64 KiB and more those temporary buffers cost
 * more than the copies: glibc maps each one afresh and gives it back at
 * free, so every megabyte is faulted in again on both sides (docs/rma.md).
 * osc pt2pt's protocol for large transfers, which this file builds:
 *
 *   put  origin: REQ(header: PUT, ZCOPY, disp, one segment, bytes)
 *                DATA(bytes, sent from the origin buffer)
 *        target: serving the header posts the receive of DATA into the
 *                window; once it completed, ACK (the origin counts it)
 *   get  origin: posts the receive of REPLY into its result buffer, then
 *                REQ(header: GET, ZCOPY, ...)
 *        target: serving the header sends REPLY from the window (an error:
 *                an 8-byte REPLY carrying the status instead)
 *
 * DATA and REPLY messages of one origin match in the order they were sent
 * (the p2p engine does not overtake), and the target serves headers in the
 * order sent, so each posted receive meets its own data without a tag of
 * its own. Over transports with rendezvous (tcp above its eager limit,
 * 64 KiB) an early DATA waits at the target as a request-to-send: no
 * buffer holds it.
 *
 * A request served in two steps: until a put's data is in, the origin's
 * later requests are held (zc_busy, rma_am.c's held queue), as those of an
 * origin whose lock waits: an UNLOCK behind the put must not release the
 * lock while its data still arrives. A get's window must not change
 * either until it was read; there the origin waits: its UNLOCK to that
 * target leaves only once its large gets delivered their data
 * (loom_rma_zc_gets_settle), so the target holds nothing behind a get and
 * answers the UNLOCK without waiting for its send's completion (tcp: the
 * origin's FIN, a further round trip). Fence and complete flush first
 * anyway.
 *
 *   acc  origin: REQ(header: ACC, ZCOPY, op, basic, disp, one segment,
 *                bytes), DATA(bytes, from the origin buffer) as a put's
 *        target: serving the header posts the receive of DATA into a
 *                scratch buffer; once it completed, the op is applied to
 *                the window whole (by the target's CPU in its progress, as
 *                every accumulate by message: element-wise atomic against
 *                the others), then ACK
 *
 * (session 18; before, a large accumulate was packed into its request: one
 * more copy of the data at the origin, 1.3-1.8x Open MPI's time over tcp
 * at 512 KiB-4 MiB). Unlike a large put or get, the header of an origin's
 * next large accumulate is held until the one before was applied, so the
 * origin's accumulates apply in the order issued (MPI's default
 * accumulate_ordering).
 *
 * Taken only where the origin buffer is contiguous, the target type one
 * segment, and no request is returned (the R-forms keep the copying path,
 * which completes them at once).
 *
 * A put or accumulate the target cannot store (no memory for its record or
 * scratch, its receive cannot be posted) still has its DATA on the way: left unmatched, the
 * next large put of that origin would receive those bytes and the
 * origin's send (a tcp rendezvous) would never complete. So the target
 * consumes it: a 0-byte receive (a truncation: nothing stored, the sender
 * completes) from the origin's slot of win->zc_drop, allocated at window
 * creation, posted at once or retried at every pass until it is; every
 * later request of that origin, large puts too, waits until it completed,
 * then the error is the put's ACK (the origin's flush returns it).
 * LOOM_RMA_ZCOPY_FAULT (tests only) makes those failures happen.
 */
#include "rma_priv.h"
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * A data transfer at the target: a put's receive, a get's send, or an
 * accumulate's receive into scratch, applied to the window at @p acc_t
 * once it is in.
 */
typedef struct loom_rma_zc {
    struct loom_rma_zc *next;
    loom_request_t      req;
    int                 src;
    int                 get;
    loom_status_t       st;        /* put, accumulate: the answer (RANGE: data dropped) */
    void               *scratch;   /* a refused put's data lands here; an accumulate's always */
    char               *acc_t;     /* an accumulate's target bytes (NULL: none to apply) */
    uint64_t            acc_len;
    uint8_t             acc_op;
    uint8_t             acc_basic;
} loom_rma_zc_t;

/*
 * LOOM_RMA_ZCOPY_FAULT=record:N | recv:N, for tests only: at this target
 * every N-th large put or accumulate of each origin fails as if out of memory, its
 * record ("record") or its receive ("recv"; then the first post of the
 * discard fails too, so its retry runs).
 */
typedef struct loom_rma_zc_fault {
    int       recv;       /* 0: the record fails, 1: the receive */
    int       drop_fail;  /* the next discard's post fails (recv) */
    uint32_t  every;
    uint32_t *nput;       /* [size] large puts and accumulates served per origin */
} loom_rma_zc_fault_t;

enum { LOOM_RMA_ZCOPY_DEFAULT = 65536 };

static size_t loom_rma_zc_min(void)
{
    size_t v = loom_rma_env_bytes("LOOM_RMA_ZCOPY", LOOM_RMA_ZCOPY_DEFAULT);

    /* below a batch entry's size the batched path is always better */
    return v == 0 ? 0 : v < 4096 ? 4096 : v;
}

static loom_status_t loom_rma_zc_fault_init(loom_rma_win_t *w)
{
    const char *env = getenv("LOOM_RMA_ZCOPY_FAULT");
    const char *colon = env != NULL ? strchr(env, ':') : NULL;
    loom_rma_zc_fault_t *f;
    char *end;
    unsigned long n;

    if (env == NULL || *env == '\0') {
        return LOOM_OK;
    }
    n = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;
    if (colon == NULL || *end != '\0' || n == 0 || n > UINT32_MAX || colon[1] == '-' ||
        (strncmp(env, "record:", 7) != 0 && strncmp(env, "recv:", 5) != 0)) {
        loom_warn("rma", "LOOM_RMA_ZCOPY_FAULT=%s is not record:N or recv:N (N >= 1); "
                  "no fault", env);
        return LOOM_OK;
    }
    if ((f = calloc(1, sizeof(*f))) == NULL ||
        (f->nput = calloc((size_t)w->size, sizeof(*f->nput))) == NULL) {
        free(f);
        return LOOM_ERR_NO_MEMORY;
    }
    f->recv  = env[3] == 'v';   /* recv:, not record: */
    f->every = (uint32_t)n;
    w->zc_fault = f;
    return LOOM_OK;
}

loom_status_t loom_rma_zc_init(loom_rma_win_t *w)
{
    w->zc_min  = loom_rma_zc_min();
    w->zc_drop = calloc((size_t)w->size, sizeof(*w->zc_drop));   /* st: LOOM_OK */
    if (w->zc_drop == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    return loom_rma_zc_fault_init(w);
}

void loom_rma_zc_fini(loom_rma_win_t *w)
{
    /* a discard still posted here (its origin broke off) is left, not
     * released under the engine's feet */
    free(w->zc_drop);
    if (w->zc_fault != NULL) {
        free(w->zc_fault->nput);
        free(w->zc_fault);
    }
}

/* ---- origin ---- */

static loom_rma_out_t *loom_rma_zc_hdr(const loom_rma_hdr_t *proto, const loom_rma_seg_t *seg,
                                       size_t *len_p)
{
    loom_rma_out_t *o = loom_rma_am_out_alloc(sizeof(loom_rma_hdr_t) + sizeof(*seg));
    loom_rma_hdr_t h = *proto;
    char *p;

    if (o == NULL) {
        return NULL;
    }
    h.pad  = LOOM_RMA_HDR_ZCOPY;
    h.nseg = 1;
    p = loom_rma_am_out_data(o);
    memcpy(p, &h, sizeof(h));
    memcpy(p + sizeof(h), seg, sizeof(*seg));
    *len_p = sizeof(h) + sizeof(*seg);
    return o;
}

/* the reply's receive, straight into @p local (rma_am.c's loom_rma_rop_finish ends it) */
static loom_status_t loom_rma_zc_get(loom_rma_win_t *w, int target, loom_rma_out_t *o,
                                     size_t len, void *local, size_t bytes)
{
    loom_rma_rop_t *rop = calloc(1, sizeof(*rop));
    loom_status_t st;

    if (rop == NULL) {
        free(o);
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_p2p_irecv_int(local, bytes, target, LOOM_RMA_TAG_REPLY, w->comm, LOOM_CTX_P2P,
                            &rop->req);
    if (st != LOOM_OK) {
        free(o);
        free(rop);
        return st;
    }
    if ((st = loom_rma_am_out_send(w, target, LOOM_RMA_TAG_REQ, o, len)) != LOOM_OK) {
        loom_rma_rop_unpost(rop);
        return st;
    }
    rop->target = target;
    rop->bytes  = bytes;
    rop->result = local;
    loom_rma_rop_track(w, rop);
    ++w->sent[target];
    ++w->zc_gets[target];
    return LOOM_OK;
}

void loom_rma_zc_gets_settle(loom_rma_win_t *w, int target)
{
    while (w->zc_gets[target] != 0) {
        loom_progress();
    }
}

/*
 * The header, then the data from @p local (a put's or an accumulate's). A
 * data send that fails after its header left (no request memory, a failed
 * peer) leaves the target waiting for it: the operation is not counted and
 * the error is the call's, and that origin's later requests to the target
 * stay held.
 */
static loom_status_t loom_rma_zc_put(loom_rma_win_t *w, int target, loom_rma_out_t *o,
                                     size_t len, const void *local, size_t bytes, int acc)
{
    loom_rma_out_t *d = loom_rma_am_out_alloc(0);
    loom_status_t st;

    if (d == NULL) {
        free(o);
        return LOOM_ERR_NO_MEMORY;
    }
    if ((st = loom_rma_am_out_send(w, target, LOOM_RMA_TAG_REQ, o, len)) != LOOM_OK) {
        free(d);
        return st;
    }
    st = loom_p2p_isend_int(local, bytes, target, LOOM_RMA_TAG_DATA, w->comm, LOOM_CTX_P2P, 0,
                            &d->req);
    if (st != LOOM_OK) {
        loom_error("rma", "rank %d: the %zu data bytes of %s to rank %d cannot be sent "
                   "after its header: %s", w->rank, bytes, acc ? "an accumulate" : "a put",
                   target, loom_strerror(st));
        free(d);
        return st;
    }
    d->next = w->out;   /* d->buf NULL: the user's memory, not freed */
    w->out  = d;
    ++w->sent[target];
    return LOOM_OK;
}

loom_status_t loom_rma_zc_start(loom_rma_win_t *w, int target, const loom_rma_hdr_t *h,
                                const loom_rma_seg_t *seg, void *local)
{
    size_t len;
    loom_rma_out_t *o = loom_rma_zc_hdr(h, seg, &len);

    if (o == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    return h->kind == LOOM_RMA_K_GET
               ? loom_rma_zc_get(w, target, o, len, local, (size_t)h->bytes)
               : loom_rma_zc_put(w, target, o, len, local, (size_t)h->bytes,
                                 h->kind == LOOM_RMA_K_ACC);
}

/* ---- target ---- */

/* the fault this put or accumulate meets (LOOM_RMA_ZCOPY_FAULT): 0 none, 1 record, 2 receive */
static int loom_rma_zc_fault_at(loom_rma_win_t *w, int src, int get)
{
    loom_rma_zc_fault_t *f = w->zc_fault;

    if (f == NULL || get || ++f->nput[src] % f->every != 0) {
        return 0;
    }
    f->drop_fail = f->recv;
    return f->recv ? 2 : 1;
}

/* post the 0-byte receive that consumes a dropped put's or accumulate's data; 0 if not */
static int loom_rma_zc_drop_post(loom_rma_win_t *w, int src)
{
    static char sink;
    loom_rma_zc_drop_t *d = &w->zc_drop[src];
    loom_status_t st = LOOM_ERR_NO_MEMORY;

    if (w->zc_fault == NULL || !w->zc_fault->drop_fail) {
        st = loom_p2p_irecv_int(&sink, 0, src, LOOM_RMA_TAG_DATA, w->comm, LOOM_CTX_P2P,
                                &d->req);
    }
    if (w->zc_fault != NULL) {
        w->zc_fault->drop_fail = 0;
    }
    if (st != LOOM_OK) {
        d->req = LOOM_REQUEST_NULL;   /* retried at the next pass */
        return 0;
    }
    return 1;
}

/*
 * The put or accumulate of @p src cannot be stored (@p st): its data is
 * consumed by a 0-byte receive, then @p st answers it; the origin's later
 * requests wait.
 */
static void loom_rma_zc_drop(loom_rma_win_t *w, int src, loom_status_t st)
{
    w->zc_drop[src].st  = st;
    w->zc_drop[src].req = LOOM_REQUEST_NULL;
    ++w->zc_ndrop;
    (void)loom_rma_zc_drop_post(w, src);
}

/*
 * Post the receive of a put's data: into the window, or (@p t NULL) a
 * scratch buffer; an accumulate's always into scratch, applied at its end.
 */
static loom_status_t loom_rma_zc_recv(loom_rma_win_t *w, loom_rma_zc_t *z,
                                      const loom_rma_hdr_t *h, const loom_rma_seg_t *seg,
                                      char *t)
{
    static char sink;
    void *buf = t != NULL ? t + seg->off : NULL;
    size_t bytes = (size_t)h->bytes;

    if (t != NULL && h->kind == LOOM_RMA_K_ACC) {
        if ((z->scratch = malloc(bytes)) == NULL) {
            return LOOM_ERR_NO_MEMORY;   /* the caller consumes the data */
        }
        buf = z->scratch;
        z->acc_t     = t + seg->off;
        z->acc_len   = h->bytes;
        z->acc_op    = h->op;
        z->acc_basic = h->basic;
    } else if (t == NULL) {
        /* the origin sends the data anyway: take it whole, then drop it
         * (a short receive would log a truncation); no memory: truncate */
        z->scratch = malloc(bytes);
        buf = z->scratch != NULL ? z->scratch : &sink;
        bytes = z->scratch != NULL ? bytes : 0;
        z->st = LOOM_RMA_ERR_RANGE;
    }
    return loom_p2p_irecv_int(buf, bytes, z->src, LOOM_RMA_TAG_DATA, w->comm, LOOM_CTX_P2P,
                              &z->req);
}

/* "a put", "a get", "an accumulate" */
static const char *loom_rma_zc_name(const loom_rma_hdr_t *h)
{
    return h->kind == LOOM_RMA_K_GET   ? "a get"
           : h->kind == LOOM_RMA_K_ACC ? "an accumulate" : "a put";
}

void loom_rma_zc_serve(loom_rma_win_t *w, int src, const loom_rma_hdr_t *h,
                       const loom_rma_seg_t *seg, char *t)
{
    int get = h->kind == LOOM_RMA_K_GET;
    int fault = loom_rma_zc_fault_at(w, src, get);
    loom_rma_zc_t *z = fault == 1 ? NULL : calloc(1, sizeof(*z));
    loom_status_t st;

    if (z == NULL) {
        loom_error("rma", "rank %d: no memory to serve %s of %llu bytes from rank %d",
                   w->rank, loom_rma_zc_name(h), (unsigned long long)h->bytes, src);
        st = LOOM_ERR_NO_MEMORY;
        goto err_answer;
    }
    z->src = src;
    z->get = get;
    if (get && t == NULL) {
        st = LOOM_RMA_ERR_RANGE;
        goto err_free_z;
    }
    st = get     ? loom_p2p_isend_int(t + seg->off, (size_t)h->bytes, src, LOOM_RMA_TAG_REPLY,
                                      w->comm, LOOM_CTX_P2P, 0, &z->req)
         : fault ? LOOM_ERR_NO_MEMORY
                 : loom_rma_zc_recv(w, z, h, seg, t);
    if (st != LOOM_OK) {
        loom_error("rma", "rank %d: cannot %s the %llu data bytes of %s of rank %d: %s",
                   w->rank, get ? "send" : "receive", (unsigned long long)h->bytes,
                   loom_rma_zc_name(h), src, loom_strerror(st));
        free(z->scratch);
        goto err_free_z;
    }
    z->next = w->zc;
    w->zc   = z;
    w->zc_busy[src] += !get;   /* a get: its origin's UNLOCK waits for the data */
    return;

err_free_z:
    free(z);
err_answer:
    if (get) {
        loom_rma_am_reply_err(w, src, 0, st);   /* the status alone */
    } else {
        loom_rma_zc_drop(w, src, st);   /* its data is on the way: consume it first */
    }
}

/* the discards: post those not posted yet, answer those done; how many ended */
static int loom_rma_zc_drop_poll(loom_rma_win_t *w)
{
    int n = 0;

    for (int src = 0; src < w->size; ++src) {
        loom_rma_zc_drop_t *d = &w->zc_drop[src];
        loom_status_t st = d->st;

        if (st == LOOM_OK ||
            (d->req == LOOM_REQUEST_NULL && !loom_rma_zc_drop_post(w, src)) ||
            !loom_request_is_complete(d->req)) {
            continue;
        }
        loom_request_release(d->req);
        d->req = LOOM_REQUEST_NULL;
        d->st  = LOOM_OK;   /* the origin's requests go on */
        loom_rma_am_ctrl(w, src, LOOM_RMA_K_ACK, st);
        ++n;
    }
    w->zc_ndrop -= n;
    return n;
}

int loom_rma_zc_poll(loom_rma_win_t *w)
{
    int n = w->zc_ndrop != 0 ? loom_rma_zc_drop_poll(w) : 0;

    for (loom_rma_zc_t **pp = &w->zc; *pp != NULL;) {
        loom_rma_zc_t *z = *pp;
        loom_status_t st;

        if (!loom_request_is_complete(z->req)) {
            pp = &z->next;
            continue;
        }
        *pp = z->next;
        st = z->st != LOOM_OK ? z->st : z->req->msg.error;
        loom_request_release(z->req);
        if (st == LOOM_OK && z->acc_t != NULL) {
            loom_rma_seg_t whole = { .off = 0, .len = z->acc_len };

            st = loom_rma_apply(LOOM_RMA_K_ACC, (loom_op_t)z->acc_op,
                                (loom_datatype_t)z->acc_basic, z->acc_t, &whole, 1,
                                z->scratch, NULL, NULL);
        }
        if (!z->get) {
            loom_rma_am_ctrl(w, z->src, LOOM_RMA_K_ACK, st);
            --w->zc_busy[z->src];
        }
        free(z->scratch);
        free(z);
        ++n;
    }
    return n;
}
