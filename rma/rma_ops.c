/*
 * rma_ops.c: the origin's operations (put, get, the accumulate family) and
 * the requests of their R-forms.
 *
 * An operation checks its epoch, flattens the target type into segments,
 * converts the displacement to bytes and checks the range against the
 * target's size (dynamic windows: the target checks), packs the origin
 * data, then either
 *   - applies it itself into the shared segment (SHARED windows, and
 *     ALLOCATE ones on one host: direct load/store; accumulates under the segment's accumulate lock, so they
 *     are atomic per element and ordered), or
 *   - sends one active message (rma_am.c); get-like operations first post
 *     the receive of their reply.
 * Fast path (windows in a shared segment, each side's type one contiguous
 * range, no request): range check and one memcpy, or the accumulate
 * applied in place under the accumulate lock: no allocation, no packing.
 * Origin data is always copied out before the call returns, so R-requests
 * of put and accumulate complete at once; those of get-like operations
 * complete when the reply is unpacked.
 */
#include "rma_priv.h"

#include <stdlib.h>
#include <string.h>

/* ---- R-requests: a generic request whose state is one "done" flag ---- */

static loom_status_t loom_rma_ureq_progress(loom_request_t req)
{
    return *(volatile int *)(void *)req->priv ? LOOM_OK : LOOM_INPROGRESS;
}

loom_status_t loom_rma_ureq_alloc(loom_rma_win_t *w, loom_request_t *req_p)
{
    loom_status_t st = loom_request_generic_alloc(w->comm, "rma", loom_rma_ureq_progress,
                                                  NULL, req_p);

    if (st == LOOM_OK) {
        *(int *)(void *)(*req_p)->priv = 0;
    }
    return st;
}

void loom_rma_ureq_done(loom_request_t req)
{
    *(volatile int *)(void *)req->priv = 1;
}

void loom_rma_ureq_start(loom_request_t req)
{
    loom_request_generic_start(req);
}

loom_status_t loom_rma_null_request(loom_rma_win_t *w, loom_request_t *req_p)
{
    loom_status_t st = loom_rma_ureq_alloc(w, req_p);

    if (st == LOOM_OK) {
        loom_rma_ureq_done(*req_p);
        loom_rma_ureq_start(*req_p);
    }
    return st;
}

/* ---- one operation ---- */

typedef struct loom_rma_opdesc {
    loom_rma_kind_t  kind;
    int              target;
    ptrdiff_t        disp;
    size_t           tcount;
    loom_dt_t       *tdt;
    const void      *origin;    /* packed from (origin, ocount, odt) */
    size_t           ocount;
    loom_dt_t       *odt;
    const void      *compare;   /* CAS: one element */
    void            *result;    /* fetched data to (result, rcount, rdt) */
    size_t           rcount;
    loom_dt_t       *rdt;
    loom_datatype_t  basic;
    loom_op_t        op;
} loom_rma_opdesc_t;

static int loom_rma_fetches(loom_rma_kind_t k)
{
    return k == LOOM_RMA_K_GET || k == LOOM_RMA_K_GACC || k == LOOM_RMA_K_FOP ||
           k == LOOM_RMA_K_CAS;
}

static int loom_rma_sends_data(const loom_rma_opdesc_t *d)
{
    return d->kind != LOOM_RMA_K_GET && !(d->op == LOOM_RMA_OP_NO_OP && d->origin == NULL);
}

/* target byte start, checked (dynamic: the address; the target checks) */
static loom_status_t loom_rma_target_start(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                           const loom_rma_seg_t *segs, size_t nseg,
                                           int64_t *start_p)
{
    if (w->flavor == LOOM_RMA_FLAVOR_DYNAMIC) {
        *start_p = (int64_t)d->disp;
        return LOOM_OK;
    }
    /* disp x unit past 64 bits would wrap onto the window's first bytes */
    if (d->disp < 0 ||
        __builtin_mul_overflow((int64_t)d->disp, (int64_t)w->units[d->target], start_p)) {
        return LOOM_RMA_ERR_RANGE;
    }
    return loom_rma_range_check(segs, nseg, *start_p, w->sizes[d->target]);
}

/*
 * A dynamic window's operation addressed from its first target byte, not
 * from disp: disp may be MPI_BOTTOM (0) with the addresses in the target
 * type, and the target reads address 0 as "outside every region" (such a
 * put failed MPI_ERR_RMA_RANGE at its flush, review of session 15). The
 * segments become relative to the first one; no segments: unchanged.
 */
static loom_status_t loom_rma_dyn_rebase(loom_rma_seg_t *segs, size_t nseg, int64_t *start_p)
{
    int64_t first;

    if (nseg == 0) {
        return LOOM_OK;
    }
    first = segs[0].off;
    if (__builtin_add_overflow(*start_p, first, start_p)) {
        return LOOM_RMA_ERR_RANGE;
    }
    for (size_t i = 0; i < nseg; ++i) {
        if (__builtin_sub_overflow(segs[i].off, first, &segs[i].off)) {
            return LOOM_RMA_ERR_RANGE;
        }
    }
    return LOOM_OK;
}

/*
 * Load/store at target address @p t: a piece of the shared segment, or this
 * rank's own memory (an operation to itself). @p lock: the accumulate lock
 * to hold around it, or NULL.
 */
static loom_status_t loom_rma_op_local(const loom_rma_opdesc_t *d, char *t, atomic_int *lock,
                                       const loom_rma_seg_t *segs, size_t nseg,
                                       const void *data, size_t bytes)
{
    void *fetch = NULL;
    loom_status_t st;

    if (loom_rma_fetches(d->kind) && (fetch = malloc(bytes ? bytes : 1)) == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    if (lock != NULL) {
        while (atomic_exchange_explicit(lock, 1, memory_order_acquire)) {
        }
    }
    st = loom_rma_apply(d->kind, d->op, d->basic, t, segs, nseg, data, d->compare, fetch);
    if (lock != NULL) {
        atomic_store_explicit(lock, 0, memory_order_release);
    }
    if (st == LOOM_OK && fetch != NULL) {
        st = loom_dt_unpack_range(d->result, d->rcount, d->rdt, 0, bytes, fetch);
    }
    free(fetch);
    return st;
}

static int loom_rma_is_acc(loom_rma_kind_t k)
{
    return k != LOOM_RMA_K_PUT && k != LOOM_RMA_K_GET;
}

/*
 * The receive of a get-like operation's reply (status + @p bytes of data);
 * with @p id (session 16) none: the REPLY request naming @p id fills tmp.
 */
static loom_status_t loom_rma_rop_post(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                       size_t bytes, loom_request_t ureq, uint32_t id,
                                       loom_rma_rop_t **rop_p)
{
    loom_rma_rop_t *rop = calloc(1, sizeof(*rop));
    loom_status_t st = LOOM_OK;

    if (rop == NULL || (rop->tmp = malloc(sizeof(int64_t) + bytes)) == NULL) {
        free(rop);
        return LOOM_ERR_NO_MEMORY;
    }
    rop->id = id;
    if (id == 0) {
        st = loom_p2p_irecv_int(rop->tmp, sizeof(int64_t) + bytes, d->target,
                                LOOM_RMA_TAG_REPLY, w->comm, LOOM_CTX_P2P, &rop->req);
    }
    if (st != LOOM_OK) {
        free(rop->tmp);
        free(rop);
        return st;
    }
    rop->target = d->target;
    rop->bytes  = bytes;
    rop->result = d->result;
    rop->rcount = d->rcount;
    rop->rdt    = d->rdt;
    rop->ureq   = ureq;
    *rop_p = rop;
    return LOOM_OK;
}

/*
 * Small get-like requests but an R-form's are answered by a REPLY request
 * naming an id (session 16: a frame, no receive posted); written into the
 * message's header (arg), 0 for the others.
 */
enum { LOOM_RMA_REPLY_ID_MAX = 4096 };

static uint32_t loom_rma_op_reply_id(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                     char *msg, size_t bytes, loom_request_t ureq)
{
    loom_rma_hdr_t h;

    if (!loom_rma_fetches(d->kind) || ureq != NULL || bytes > LOOM_RMA_REPLY_ID_MAX) {
        return 0;
    }
    memcpy(&h, msg, sizeof(h));
    h.arg = (int32_t)loom_rma_rop_id(w);
    memcpy(msg, &h, sizeof(h));
    return (uint32_t)h.arg;
}

/*
 * One active message; get-like: the reply's receive first. The operation
 * counts (sent[t], the reply queue) only once its request left: a failed
 * send cancels the receive, so a flush does not wait for an answer that
 * never comes.
 */
static loom_status_t loom_rma_op_am(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                    char *msg, size_t msgbytes, size_t bytes,
                                    loom_request_t ureq)
{
    loom_rma_rop_t *rop = NULL;
    loom_status_t st;

    if (!loom_rma_fetches(d->kind) && loom_rma_am_queue(w, d->target, msg, msgbytes)) {
        free(msg);   /* copied into the batch, counted */
        return LOOM_OK;
    }
    if (loom_rma_fetches(d->kind) &&
        (st = loom_rma_rop_post(w, d, bytes, ureq,
                                loom_rma_op_reply_id(w, d, msg, bytes, ureq), &rop)) != LOOM_OK) {
        free(msg);
        return st;
    }
    /* a small get-like one joins the batch too (answered by its REPLY), but
     * not an R-form's: its request's wait would not send the batch */
    if (rop != NULL && ureq == NULL &&
        loom_rma_am_queue_fetch(w, d->target, msg, msgbytes, rop)) {
        free(msg);   /* copied, counted */
        loom_dt_retain(d->rdt);
        loom_rma_rop_track(w, rop);
        return LOOM_OK;
    }
    st = loom_rma_am_send(w, d->target, LOOM_RMA_TAG_REQ, msg, msgbytes);
    if (st != LOOM_OK) {
        if (rop != NULL) {
            loom_rma_rop_unpost(rop);
        }
        return st;
    }
    if (rop != NULL) {
        loom_dt_retain(d->rdt);
        loom_rma_rop_track(w, rop);
    }
    ++w->sent[d->target];
    return LOOM_OK;
}

/* header + segments + packed origin data (+ compare element) */
static loom_status_t loom_rma_msg_build(const loom_rma_opdesc_t *d, const loom_rma_seg_t *segs,
                                        size_t nseg, int64_t start, size_t bytes,
                                        char **msg_p, size_t *msgbytes_p)
{
    size_t cmpbytes = d->kind == LOOM_RMA_K_CAS ? bytes : 0;
    size_t data = loom_rma_sends_data(d) ? bytes : 0;
    size_t total = sizeof(loom_rma_hdr_t) + nseg * sizeof(*segs) + data + cmpbytes;
    char *msg = calloc(1, total);
    loom_rma_hdr_t *h = (loom_rma_hdr_t *)(void *)msg;
    char *p;
    loom_status_t st = LOOM_OK;

    if (msg == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    h->kind  = (uint8_t)d->kind;
    h->op    = (uint8_t)d->op;
    h->basic = (uint8_t)d->basic;
    h->disp  = start;
    h->nseg  = nseg;
    h->bytes = bytes;
    p = msg + sizeof(*h);
    memcpy(p, segs, nseg * sizeof(*segs));
    p += nseg * sizeof(*segs);
    if (data) {
        st = loom_dt_pack_range(d->origin, d->ocount, d->odt, 0, bytes, p);
    }
    if (cmpbytes) {
        memcpy(p + data, d->compare, cmpbytes);
    }
    if (st != LOOM_OK) {
        free(msg);
        return st;
    }
    *msg_p = msg;
    *msgbytes_p = total;
    return LOOM_OK;
}

/*
 * Pack the origin data and apply the operation here: windows in a shared
 * segment (any target), and any other window's operations to this rank
 * itself, which its own progress would apply anyway (accumulates stay
 * atomic: the hook runs in this process too; CMA windows with CMA
 * accumulates hold the segment's lock as the other origins do). A bad
 * address of a dynamic window is kept for the next flush, as the target's
 * answer would be. Such a window's other origins need this rank's progress,
 * so the call makes one pass, as sending the request to itself did.
 */
static loom_status_t loom_rma_op_here(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                      const loom_rma_seg_t *segs, size_t nseg, int64_t start,
                                      size_t bytes)
{
    atomic_int *lock = NULL;
    char *t, *msg;
    size_t dummy;
    loom_status_t st;

    if (w->direct) {
        t = w->shm_base[d->target] + start;
        lock = loom_rma_is_acc(d->kind) ? &w->shm->acc_lock : NULL;
    } else if ((t = loom_rma_target_addr(w, start, segs, nseg)) == NULL) {
        if (w->deferred[d->target] == LOOM_OK) {
            w->deferred[d->target] = LOOM_RMA_ERR_RANGE;
        }
        return LOOM_OK;
    } else if (w->cma && w->cma_acc && loom_rma_is_acc(d->kind)) {
        lock = &w->shm->acc_lock;
    }
    st = loom_rma_msg_build(d, segs, 0, start, bytes, &msg, &dummy);
    if (st == LOOM_OK) {
        st = loom_rma_op_local(d, t, lock, segs, nseg, msg + sizeof(loom_rma_hdr_t), bytes);
        free(msg);
    }
    if (!w->direct) {
        loom_progress();   /* a rank spinning on itself still serves the others */
    }
    return st;
}

static loom_status_t loom_rma_op_check(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                       size_t bytes)
{
    size_t obytes, rbytes;
    loom_status_t st = loom_rma_epoch_access(&w->ep, d->target);

    if (st != LOOM_OK) {
        return st;
    }
    if (loom_rma_sends_data(d) && d->kind != LOOM_RMA_K_CAS) {
        st = loom_dt_pack_size(d->ocount, d->odt, &obytes);
        if (st == LOOM_OK && obytes != bytes) {
            return LOOM_ERR_INVALID_TYPE;   /* origin and target signatures differ */
        }
    }
    if (st == LOOM_OK && loom_rma_fetches(d->kind)) {
        st = loom_dt_pack_size(d->rcount, d->rdt, &rbytes);
        if (st == LOOM_OK && rbytes != bytes) {
            return LOOM_ERR_INVALID_TYPE;
        }
    }
    return st;
}

/* ---- the fast path: shared segment, contiguous types on both sides ---- */

/* origin/result layout of (count, dt) as one byte range at buf + *lb_p, or 0 */
static int loom_rma_contig(const void *buf, size_t count, loom_dt_t *dt, size_t bytes,
                           ptrdiff_t *lb_p)
{
    ptrdiff_t ext;
    size_t b;

    if (buf == NULL || !loom_dt_is_contig(dt, count) ||
        loom_dt_pack_size(count, dt, &b) != LOOM_OK || b != bytes) {
        return 0;
    }
    loom_dt_get_true_extent(dt, lb_p, &ext);
    return 1;
}

/* target byte @p start of [disp * unit + lb, + bytes), checked; 0 with *st_p if out of range */
static int loom_rma_direct_range(const loom_rma_win_t *w, int target, ptrdiff_t disp,
                                 ptrdiff_t lb, size_t bytes, int64_t *start_p,
                                 loom_status_t *st_p)
{
    int64_t start = 0;
    int wraps = __builtin_mul_overflow((int64_t)disp, (int64_t)w->units[target], &start) ||
                __builtin_add_overflow(start, (int64_t)lb, &start);

    /* wraps: past 64 bits, which would land on the window's first bytes */
    if (disp < 0 || wraps || start < 0 || (uint64_t)start > w->sizes[target] ||
        bytes > w->sizes[target] - (uint64_t)start) {
        *st_p = bytes == 0 && disp >= 0 ? LOOM_OK : LOOM_RMA_ERR_RANGE;
        return 0;
    }
    *start_p = start;
    return 1;
}

static void loom_rma_direct_copy(loom_rma_win_t *w, int get, int target, int64_t start,
                                 void *origin, size_t bytes)
{
    char *t = w->shm_base[target] + start;

    if (get) {
        memcpy(origin, t, bytes);
    } else {
        memcpy(t, origin, bytes);
    }
}

/* put/get of contiguous bytes on an RDMA window: one write/read, completed by the flush */
static int loom_rma_putget_rdma(loom_rma_win_t *w, int get, void *origin, size_t bytes,
                                int target, ptrdiff_t disp, loom_status_t *st_p)
{
    loom_rma_seg_t seg = { 0, bytes };
    int64_t start;

    if ((*st_p = loom_rma_epoch_access(&w->ep, target)) != LOOM_OK ||
        !loom_rma_direct_range(w, target, disp, 0, bytes, &start, st_p)) {
        return 0;
    }
    *st_p = loom_rma_rdma_putget(w, get, target, start, &seg, 1, origin, 0);
    return 0;
}

int loom_rma_putget_bytes(loom_rma_win_t *w, int get, void *origin, size_t bytes,
                          int target, ptrdiff_t disp, loom_status_t *st_p)
{
    int64_t start;

    if (w->rdma != NULL) {
        return loom_rma_putget_rdma(w, get, origin, bytes, target, disp, st_p);
    }
    if ((!w->direct && !w->cma) ||
        (loom_rma_cma_by_msg(w, get ? LOOM_RMA_K_GET : LOOM_RMA_K_PUT, bytes) &&
         target != w->rank)) {
        return 1;
    }
    if ((*st_p = loom_rma_epoch_access_fast(&w->ep, target)) != LOOM_OK) {
        return 0;
    }
    if (!loom_rma_direct_range(w, target, disp, 0, bytes, &start, st_p)) {
        return 0;
    }
    if (w->cma && target == w->rank) {   /* this rank's own memory */
        memcpy(get ? origin : w->base + start, get ? w->base + start : origin, bytes);
        *st_p = LOOM_OK;
        return 0;
    }
    if (w->cma) {
        *st_p = bytes == 0 ? LOOM_OK : loom_rma_cma_putget(w, target, !get, origin, start, bytes);
        return 0;
    }
    loom_rma_direct_copy(w, get, target, start, origin, bytes);
    *st_p = LOOM_OK;
    return 0;
}

/* the element operation at @p t (accumulate lock held); old values to @p old */
static loom_status_t loom_rma_acc_here(loom_rma_acc_kind_t kind, loom_op_t op,
                                       loom_datatype_t basic, char *t, const void *origin,
                                       const void *compare, void *old, size_t count,
                                       size_t bytes)
{
    if (old != NULL) {
        memcpy(old, t, bytes);
    }
    if (kind == LOOM_RMA_CAS) {
        if (memcmp(old, compare, bytes) == 0) {
            memcpy(t, origin, bytes);
        }
        return LOOM_OK;
    }
    if (op == LOOM_REPLACE) {
        memcpy(t, origin, bytes);
        return LOOM_OK;
    }
    return op == LOOM_RMA_OP_NO_OP ? LOOM_OK : loom_op_reduce(op, origin, t, count, basic);
}

/*
 * The accumulate family on contiguous 8-byte elements of an RDMA window:
 * the atomics straight from the origin and into the result, no packing.
 * 1 if not taken (another type, or not 8-byte aligned at the target:
 * the general path then uses messages, as it would).
 */
static int loom_rma_acc_rdma(loom_rma_win_t *w, loom_rma_acc_kind_t kind, loom_op_t op,
                             loom_datatype_t basic, const void *origin, const void *compare,
                             void *result, size_t count, int target, ptrdiff_t disp,
                             loom_status_t *st_p)
{
    static const loom_rma_kind_t kinds[] = {
        [LOOM_RMA_ACC] = LOOM_RMA_K_ACC, [LOOM_RMA_FOP] = LOOM_RMA_K_FOP,
        [LOOM_RMA_CAS] = LOOM_RMA_K_CAS,
    };
    size_t bytes = sizeof(uint64_t) * count;
    loom_rma_seg_t seg = { 0, bytes };
    loom_rma_cma_op_t o = {
        .kind = kinds[kind], .target = target, .segs = &seg, .nseg = 1, .bytes = bytes,
        .in = origin, .cmp = compare, .fetch = kind == LOOM_RMA_ACC ? NULL : result,
        .op = op, .basic = basic,
    };
    loom_status_t st;

    if ((kind != LOOM_RMA_ACC && kind != LOOM_RMA_FOP && kind != LOOM_RMA_CAS) ||
        !loom_rma_rdma_takes(w, o.kind, basic)) {
        return 1;
    }
    if ((*st_p = loom_rma_epoch_access(&w->ep, target)) != LOOM_OK ||
        !loom_rma_direct_range(w, target, disp, 0, bytes, &o.start, st_p)) {
        return 0;
    }
    if (kind != LOOM_RMA_CAS && op != LOOM_RMA_OP_NO_OP && op != LOOM_REPLACE &&
        (*st_p = loom_op_reduce(op, NULL, NULL, 0, basic)) != LOOM_OK) {
        return 0;
    }
    if ((st = loom_rma_rdma_acc(w, &o)) == LOOM_ERR_UNSUPPORTED) {
        return 1;
    }
    *st_p = st;
    return 0;
}

static int loom_rma_acc_contig_am(loom_rma_win_t *w, loom_op_t op, loom_datatype_t basic,
                                  const void *origin, size_t bytes, int target,
                                  ptrdiff_t disp, loom_status_t *st_p);

int loom_rma_acc_contig(loom_rma_win_t *w, loom_rma_acc_kind_t kind, loom_op_t op,
                        loom_datatype_t basic, const void *origin, const void *compare,
                        void *result, size_t count, int target, ptrdiff_t disp,
                        loom_status_t *st_p)
{
    size_t esize = loom_datatype_size(basic), bytes = esize * count;
    unsigned char old[64];
    int fetch = kind != LOOM_RMA_ACC;
    int64_t start;

    if (w->rdma != NULL) {
        return loom_rma_acc_rdma(w, kind, op, basic, origin, compare, result, count, target,
                                 disp, st_p);
    }
    if (!w->direct && kind == LOOM_RMA_ACC) {
        return loom_rma_acc_contig_am(w, op, basic, origin, bytes, target, disp, st_p);
    }
    if (!w->direct || esize == 0 || (fetch && (count != 1 || esize > sizeof(old)))) {
        return 1;
    }
    if ((*st_p = loom_rma_epoch_access(&w->ep, target)) != LOOM_OK ||
        !loom_rma_direct_range(w, target, disp, 0, bytes, &start, st_p)) {
        return 0;
    }
    if (kind != LOOM_RMA_CAS && op != LOOM_RMA_OP_NO_OP && op != LOOM_REPLACE &&
        (*st_p = loom_op_reduce(op, NULL, NULL, 0, basic)) != LOOM_OK) {
        return 0;   /* not defined on the type: refused at the origin, as ever */
    }
    while (atomic_exchange_explicit(&w->shm->acc_lock, 1, memory_order_acquire)) {
    }
    *st_p = loom_rma_acc_here(kind, op, basic, w->shm_base[target] + start, origin, compare,
                              fetch ? old : NULL, count, bytes);
    atomic_store_explicit(&w->shm->acc_lock, 0, memory_order_release);
    if (fetch) {
        memcpy(result, old, bytes);
    }
    return 0;
}

/*
 * An operation on a window in a shared segment whose target, origin and
 * result types are each one contiguous byte range: no segment list, no
 * packing, no allocation. Put and get are one memcpy; the accumulate
 * family applies under the segment's accumulate lock like the general
 * path. Returns 1 if it did not apply (the general path runs), else 0
 * with *st_p set.
 */
static int loom_rma_op_fast(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                            loom_status_t *st_p)
{
    ptrdiff_t tlb, text, olb = 0, rlb = 0;
    size_t bytes;
    int64_t start;
    loom_rma_seg_t seg;
    const char *in = NULL;
    char *fetch = NULL;

    if (!w->direct || d->disp < 0 || !loom_dt_is_contig(d->tdt, d->tcount) ||
        loom_dt_pack_size(d->tcount, d->tdt, &bytes) != LOOM_OK) {
        return 1;
    }
    if (loom_rma_sends_data(d) &&
        (d->kind == LOOM_RMA_K_CAS ? d->origin == NULL
                                   : !loom_rma_contig(d->origin, d->ocount, d->odt, bytes,
                                                      &olb))) {
        return 1;
    }
    if (loom_rma_fetches(d->kind) && !loom_rma_contig(d->result, d->rcount, d->rdt, bytes, &rlb)) {
        return 1;
    }
    if (loom_rma_sends_data(d)) {
        in = (const char *)d->origin + olb;
    }
    if (loom_rma_fetches(d->kind)) {
        fetch = (char *)d->result + rlb;
        if (in != NULL && fetch < in + bytes && in < fetch + bytes) {
            return 1;   /* result overlaps origin: the general path copies first */
        }
    }
    if ((*st_p = loom_rma_epoch_access(&w->ep, d->target)) != LOOM_OK) {
        return 0;
    }
    loom_dt_get_true_extent(d->tdt, &tlb, &text);
    if (!loom_rma_direct_range(w, d->target, d->disp, tlb, bytes, &start, st_p)) {
        return 0;
    }
    if (d->kind == LOOM_RMA_K_PUT || d->kind == LOOM_RMA_K_GET) {
        loom_rma_direct_copy(w, d->kind == LOOM_RMA_K_GET, d->target, start,
                             d->kind == LOOM_RMA_K_PUT ? (void *)(uintptr_t)in : fetch, bytes);
        *st_p = LOOM_OK;
        return 0;
    }
    seg.off = 0;
    seg.len = bytes;
    while (atomic_exchange_explicit(&w->shm->acc_lock, 1, memory_order_acquire)) {
    }
    *st_p = loom_rma_apply(d->kind, d->op, d->basic, w->shm_base[d->target] + start, &seg, 1,
                           in, d->compare, fetch);
    atomic_store_explicit(&w->shm->acc_lock, 0, memory_order_release);
    return 0;
}

/* how a CMA window (rma_cma.c) or an RDMA one (rma_ib.c, accumulates) runs one */
typedef loom_status_t (*loom_rma_packed_fn_t)(loom_rma_win_t *w, const loom_rma_cma_op_t *o);

/*
 * A CMA window, or an accumulate on an RDMA window: pack the origin, move
 * or combine now by @p run, unpack the result.
 */
static loom_status_t loom_rma_op_packed(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                        const loom_rma_seg_t *segs, size_t nseg,
                                        int64_t start, size_t bytes, loom_rma_packed_fn_t run)
{
    loom_rma_cma_op_t o = {
        .kind = d->kind, .target = d->target, .start = start, .segs = segs, .nseg = nseg,
        .bytes = bytes, .cmp = d->compare, .op = d->op, .basic = d->basic,
    };
    char *in = NULL, *fetch = NULL;
    loom_status_t st = LOOM_OK;

    if (loom_rma_sends_data(d) && (in = malloc(bytes ? bytes : 1)) == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    if (in != NULL && d->kind != LOOM_RMA_K_CAS) {
        st = loom_dt_pack_range(d->origin, d->ocount, d->odt, 0, bytes, in);
    } else if (in != NULL) {
        memcpy(in, d->origin, bytes);
    }
    if (st == LOOM_OK && loom_rma_fetches(d->kind) &&
        (fetch = malloc(bytes ? bytes : 1)) == NULL) {
        st = LOOM_ERR_NO_MEMORY;
    }
    o.in = in;
    o.fetch = fetch;
    if (st == LOOM_OK) {
        st = run(w, &o);
    }
    if (st == LOOM_OK && fetch != NULL) {
        st = loom_dt_unpack_range(d->result, d->rcount, d->rdt, 0, bytes, fetch);
    }
    free(in);
    free(fetch);
    return st;
}

/*
 * Put or get on an RDMA window: straight from/to a contiguous origin
 * buffer, completed by the next flush (@p wait 0: no request to complete
 * now), else through a packed copy, completed here.
 */
static loom_status_t loom_rma_op_rdma(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                      const loom_rma_seg_t *segs, size_t nseg, int64_t start,
                                      size_t bytes, int wait)
{
    int get = d->kind == LOOM_RMA_K_GET;
    const void *buf = get ? d->result : d->origin;
    ptrdiff_t lb;
    char *tmp;
    loom_status_t st = LOOM_OK;

    if (loom_rma_contig(buf, get ? d->rcount : d->ocount, get ? d->rdt : d->odt, bytes, &lb)) {
        return loom_rma_rdma_putget(w, get, d->target, start, segs, nseg,
                                    (char *)(uintptr_t)buf + lb, wait);
    }
    if ((tmp = malloc(bytes ? bytes : 1)) == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    if (!get) {
        st = loom_dt_pack_range(d->origin, d->ocount, d->odt, 0, bytes, tmp);
    }
    if (st == LOOM_OK) {
        st = loom_rma_rdma_putget(w, get, d->target, start, segs, nseg, tmp, 1);
    }
    if (st == LOOM_OK && get) {
        st = loom_dt_unpack_range(d->result, d->rcount, d->rdt, 0, bytes, tmp);
    }
    free(tmp);
    return st;
}

/* an RDMA window's share (rma_ib.c); LOOM_ERR_UNSUPPORTED: use active messages */
static loom_status_t loom_rma_op_rdma_any(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                          const loom_rma_seg_t *segs, size_t nseg,
                                          int64_t start, size_t bytes, int wait)
{
    if (!loom_rma_rdma_takes(w, d->kind, d->basic)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    if (!loom_rma_is_acc(d->kind)) {
        return loom_rma_op_rdma(w, d, segs, nseg, start, bytes, wait);
    }
    return loom_rma_op_packed(w, d, segs, nseg, start, bytes, loom_rma_rdma_acc);
}

/*
 * Active messages: a put, get or accumulate (not MPI_NO_OP) of at least
 * win->zc_min bytes whose target is one segment and origin buffer one run
 * of bytes goes by rma_zcopy.c (no request: the R-forms complete at once
 * on the copying path). 1 if taken, with *st_p.
 */
static int loom_rma_op_zc(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                          const loom_rma_seg_t *segs, size_t nseg, int64_t start,
                          size_t bytes, loom_request_t ureq, loom_status_t *st_p)
{
    int get = d->kind == LOOM_RMA_K_GET;
    const void *buf = get ? d->result : d->origin;
    int acc = d->kind == LOOM_RMA_K_ACC && d->op != LOOM_RMA_OP_NO_OP;
    loom_rma_hdr_t h = { .kind = (uint8_t)d->kind, .op = (uint8_t)d->op,
                         .basic = (uint8_t)d->basic, .disp = start, .bytes = bytes };
    ptrdiff_t lb;

    if (w->zc_min == 0 || bytes < w->zc_min || nseg != 1 || ureq != NULL ||
        (d->kind != LOOM_RMA_K_PUT && !get && !acc) ||
        !loom_rma_contig(buf, get ? d->rcount : d->ocount, get ? d->rdt : d->odt, bytes, &lb)) {
        return 0;
    }
    *st_p = loom_rma_zc_start(w, d->target, &h, segs, (char *)(uintptr_t)buf + lb);
    return 1;
}

static loom_status_t loom_rma_op_general(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                         loom_request_t *req_p)
{
    loom_rma_seg_t *segs;
    size_t nseg, bytes, msgbytes;
    int64_t start;
    char *msg;
    loom_request_t ureq = NULL;
    int taken = 0;   /* by RDMA (rma_ib.c), or no bytes to move */
    loom_status_t st = loom_rma_seg_build(d->tcount, d->tdt, &segs, &nseg, &bytes);

    if (st != LOOM_OK) {
        return st;
    }
    if ((st = loom_rma_op_check(w, d, bytes)) == LOOM_OK) {
        st = loom_rma_target_start(w, d, segs, nseg, &start);
    }
    if (st == LOOM_OK && w->flavor == LOOM_RMA_FLAVOR_DYNAMIC) {
        st = loom_rma_dyn_rebase(segs, nseg, &start);
    }
    if (st == LOOM_OK && req_p != NULL) {
        st = loom_rma_ureq_alloc(w, &ureq);
    }
    if (st == LOOM_OK && bytes == 0) {
        /*
         * Checked (epoch, range) and done: nothing moves or comes back. The
         * target is not asked: it addressed a window without memory (size 0,
         * base NULL) or a dynamic one at MPI_BOTTOM as NULL, "outside", and
         * such a put of count 0 failed MPI_ERR_RMA_RANGE at its flush.
         */
        taken = 1;
        if (ureq != NULL) {
            loom_rma_ureq_done(ureq);
        }
    } else if (st == LOOM_OK && w->rdma != NULL) {
        st = loom_rma_op_rdma_any(w, d, segs, nseg, start, bytes, ureq != NULL);
        taken = st != LOOM_ERR_UNSUPPORTED;
        st = taken ? st : LOOM_OK;   /* not by RDMA: as on any other window */
        if (taken && ureq != NULL) {
            loom_rma_ureq_done(ureq);   /* its buffers are free: complete at return */
        }
    }
    if (st != LOOM_OK || taken) {
        /* done by RDMA, or failed */
    } else if (w->direct || d->target == w->rank) {
        st = loom_rma_op_here(w, d, segs, nseg, start, bytes);
        if (ureq != NULL) {
            loom_rma_ureq_done(ureq);
        }
    } else if (st == LOOM_OK && w->cma && (w->cma_acc || !loom_rma_is_acc(d->kind)) &&
               !loom_rma_cma_by_msg(w, d->kind, bytes)) {
        st = loom_rma_op_packed(w, d, segs, nseg, start, bytes, loom_rma_cma_op);
        if (ureq != NULL) {
            loom_rma_ureq_done(ureq);
        }
    } else if (st == LOOM_OK && loom_rma_op_zc(w, d, segs, nseg, start, bytes, ureq, &st)) {
        /* a large contiguous put or get, data straight between memories */
    } else if (st == LOOM_OK) {
        st = loom_rma_msg_build(d, segs, nseg, start, bytes, &msg, &msgbytes);
        if (st == LOOM_OK) {
            st = loom_rma_op_am(w, d, msg, msgbytes, bytes,
                                loom_rma_fetches(d->kind) ? ureq : NULL);
        }
        if (ureq != NULL && !loom_rma_fetches(d->kind)) {
            loom_rma_ureq_done(ureq);   /* the data is copied: locally complete */
        }
    }
    free(segs);
    if (ureq != NULL) {
        if (st != LOOM_OK) {
            loom_rma_ureq_done(ureq);
        }
        loom_rma_ureq_start(ureq);
        *req_p = ureq;
    }
    return st;
}

/* the largest put or accumulate built on the stack by loom_rma_op_am_small */
enum { LOOM_RMA_AM_SMALL = 512 };

/* a small put or accumulate of @p bytes to @p d's target goes by active message on @p w */
static int loom_rma_am_small_path(const loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                  size_t bytes)
{
    if (w->direct || w->rdma != NULL || w->flavor == LOOM_RMA_FLAVOR_DYNAMIC ||
        d->target == w->rank || d->disp < 0) {
        return 0;
    }
    if (d->kind == LOOM_RMA_K_PUT) {   /* CMA windows: process_vm_writev above the limit */
        return !w->cma || loom_rma_cma_by_msg(w, d->kind, bytes);
    }
    return d->kind == LOOM_RMA_K_ACC && !(w->cma && w->cma_acc) &&
           (d->op != LOOM_RMA_OP_NO_OP || d->origin != NULL);
}

/*
 * Send a request of @p kind, @p op on @p basic elements at byte @p start of
 * @p target's window, with its one segment @p seg and seg->len bytes of
 * @p data, built on the stack: queued in the target's batch, or alone when
 * no batch buffer is there. @p data is copied before the return.
 */
static void loom_rma_am_small_send(loom_rma_win_t *w, int target, loom_rma_kind_t kind,
                                   loom_op_t op, loom_datatype_t basic, int64_t start,
                                   const loom_rma_seg_t *seg, const void *data,
                                   loom_status_t *st_p)
{
    _Alignas(8) char msg[sizeof(loom_rma_hdr_t) + sizeof(loom_rma_seg_t) + LOOM_RMA_AM_SMALL];
    loom_rma_hdr_t h = { .kind = (uint8_t)kind, .op = (uint8_t)op, .basic = (uint8_t)basic,
                         .disp = start, .nseg = 1, .bytes = seg->len };
    size_t len = sizeof(h) + sizeof(*seg) + seg->len;
    loom_rma_out_t *o;

    memcpy(msg, &h, sizeof(h));
    memcpy(msg + sizeof(h), seg, sizeof(*seg));
    memcpy(msg + sizeof(h) + sizeof(*seg), data, seg->len);
    *st_p = LOOM_OK;
    if (loom_rma_am_queue(w, target, msg, len)) {
        return;   /* copied into the batch, counted */
    }
    if ((o = loom_rma_am_out_alloc(len)) == NULL) {   /* no batch buffer: alone */
        *st_p = LOOM_ERR_NO_MEMORY;
        return;
    }
    memcpy(loom_rma_am_out_data(o), msg, len);
    if ((*st_p = loom_rma_am_out_send(w, target, LOOM_RMA_TAG_REQ, o, len)) == LOOM_OK) {
        ++w->sent[target];
    }
}

/* the byte where @p disp of @p target starts, if [that, + @p seg) is in its window */
static int loom_rma_am_small_start(const loom_rma_win_t *w, int target, ptrdiff_t disp,
                                   const loom_rma_seg_t *seg, int64_t *start_p,
                                   loom_status_t *st_p)
{
    if (__builtin_mul_overflow((int64_t)disp, (int64_t)w->units[target], start_p) ||
        loom_rma_range_check(seg, 1, *start_p, w->sizes[target]) != LOOM_OK) {
        *st_p = LOOM_RMA_ERR_RANGE;
        return 0;
    }
    return 1;
}

/*
 * A put or accumulate of at most LOOM_RMA_AM_SMALL bytes between a
 * contiguous origin buffer and a contiguous target type, on a window whose
 * operations to that target go by active message: the request (header,
 * one segment, the data) is built on the stack and queued in the target's
 * batch, as loom_rma_op_general would after building the segment list
 * and packing into two allocations (about 1 300 instructions of a 2 000
 * instruction MPI_Accumulate of 8 bytes, session 15). The origin buffer
 * is copied before the return: the caller may reuse it at once. Returns 1
 * if it did not apply (the general path runs, and reports any error), else
 * 0 with *@p st_p.
 */
static int loom_rma_op_am_small(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                loom_status_t *st_p)
{
    loom_rma_seg_t seg;
    ptrdiff_t tlb, text, olb;
    size_t bytes;
    int64_t start;

    if (!loom_dt_is_contig(d->tdt, d->tcount) ||
        loom_dt_pack_size(d->tcount, d->tdt, &bytes) != LOOM_OK || bytes == 0 ||
        bytes > LOOM_RMA_AM_SMALL || !loom_rma_am_small_path(w, d, bytes) ||
        !loom_rma_contig(d->origin, d->ocount, d->odt, bytes, &olb)) {
        return 1;
    }
    if ((*st_p = loom_rma_epoch_access_fast(&w->ep, d->target)) != LOOM_OK) {
        return 0;
    }
    loom_dt_get_true_extent(d->tdt, &tlb, &text);
    seg.off = tlb;
    seg.len = bytes;
    if (!loom_rma_am_small_start(w, d->target, d->disp, &seg, &start, st_p)) {
        return 0;
    }
    loom_rma_am_small_send(w, d->target, d->kind, d->op, d->basic, start, &seg,
                           (const char *)d->origin + olb, st_p);
    return 0;
}

/*
 * loom_rma_acc_contig's accumulate on a window whose accumulates to
 * @p target go by active message: the same stack-built request as
 * loom_rma_op_am_small, reached from the MPI binding before it looks up
 * any loom type (MPI_Accumulate of 8 bytes on a CMA window: the declined
 * shared-segment path, two type lookups and the general entry were about
 * 330 of its instructions). 1 if not taken.
 */
static int loom_rma_acc_contig_am(loom_rma_win_t *w, loom_op_t op, loom_datatype_t basic,
                                  const void *origin, size_t bytes, int target,
                                  ptrdiff_t disp, loom_status_t *st_p)
{
    loom_rma_opdesc_t d = { .kind = LOOM_RMA_K_ACC, .target = target, .disp = disp,
                            .op = op, .origin = origin };
    loom_rma_seg_t seg = { .off = 0, .len = bytes };
    int64_t start;

    if (op == LOOM_RMA_OP_NO_OP || origin == NULL || bytes == 0 ||
        bytes > LOOM_RMA_AM_SMALL || loom_dt_basic_padded(basic) ||
        !loom_rma_am_small_path(w, &d, bytes)) {
        return 1;   /* a padded pair's C bytes are not the packed stream the target reads */
    }
    if ((*st_p = loom_rma_epoch_access_fast(&w->ep, target)) != LOOM_OK) {
        return 0;
    }
    if (op != LOOM_REPLACE && (*st_p = loom_op_reduce(op, NULL, NULL, 0, basic)) != LOOM_OK) {
        return 0;   /* not defined on the type: refused at the origin, as ever */
    }
    if (!loom_rma_am_small_start(w, target, disp, &seg, &start, st_p)) {
        return 0;
    }
    loom_rma_am_small_send(w, target, LOOM_RMA_K_ACC, op, basic, start, &seg, origin, st_p);
    return 0;
}

static loom_status_t loom_rma_op(loom_rma_win_t *w, const loom_rma_opdesc_t *d,
                                 loom_request_t *req_p)
{
    loom_status_t st;

    if (req_p == NULL && loom_rma_op_fast(w, d, &st) == 0) {
        return st;
    }
    if (req_p == NULL && loom_rma_op_am_small(w, d, &st) == 0) {
        return st;
    }
    return loom_rma_op_general(w, d, req_p);
}

loom_status_t loom_rma_put(loom_rma_win_t *w, const void *origin, size_t ocount,
                           loom_dt_t *odt, int target, ptrdiff_t disp, size_t tcount,
                           loom_dt_t *tdt, loom_request_t *req_p)
{
    loom_rma_opdesc_t d = {
        .kind = LOOM_RMA_K_PUT, .target = target, .disp = disp, .tcount = tcount,
        .tdt = tdt, .origin = origin, .ocount = ocount, .odt = odt,
    };

    return loom_rma_op(w, &d, req_p);
}

loom_status_t loom_rma_get(loom_rma_win_t *w, void *origin, size_t ocount,
                           loom_dt_t *odt, int target, ptrdiff_t disp, size_t tcount,
                           loom_dt_t *tdt, loom_request_t *req_p)
{
    loom_rma_opdesc_t d = {
        .kind = LOOM_RMA_K_GET, .target = target, .disp = disp, .tcount = tcount,
        .tdt = tdt, .result = origin, .rcount = ocount, .rdt = odt,
    };

    return loom_rma_op(w, &d, req_p);
}

loom_status_t loom_rma_acc(loom_rma_win_t *w, const loom_rma_acc_args_t *a,
                           loom_request_t *req_p)
{
    static const loom_rma_kind_t kinds[] = {
        [LOOM_RMA_ACC] = LOOM_RMA_K_ACC, [LOOM_RMA_GET_ACC] = LOOM_RMA_K_GACC,
        [LOOM_RMA_FOP] = LOOM_RMA_K_FOP, [LOOM_RMA_CAS] = LOOM_RMA_K_CAS,
    };
    loom_rma_opdesc_t d = {
        .target = a->target, .disp = a->disp, .tcount = a->tcount, .tdt = a->tdt,
        .origin = a->origin, .ocount = a->ocount, .odt = a->odt, .compare = a->compare,
        .result = a->result, .rcount = a->rcount, .rdt = a->rdt, .basic = a->basic,
        .op = a->op,
    };

    if (a->kind < LOOM_RMA_ACC || a->kind > LOOM_RMA_CAS) {
        return LOOM_ERR_INVALID_ARG;
    }
    d.kind = kinds[a->kind];
    if (d.kind != LOOM_RMA_K_CAS && d.op != LOOM_RMA_OP_NO_OP && d.op != LOOM_REPLACE) {
        /* an op not defined on the type fails here, not later at the target */
        loom_status_t st = loom_op_reduce(d.op, NULL, NULL, 0, d.basic);

        if (st != LOOM_OK) {
            return st;
        }
    }
    if ((d.kind == LOOM_RMA_K_ACC || d.kind == LOOM_RMA_K_GACC) &&
        d.op == LOOM_RMA_OP_NO_OP) {
        d.origin = NULL;   /* MPI_NO_OP: no origin data moves */
    }
    return loom_rma_op(w, &d, req_p);
}
