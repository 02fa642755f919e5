/*
 * rma_ib.c: windows whose ranks reach each other by a transport with
 * one-sided ops (tl.h rma_*: ib's RDMA write, read and atomic verbs).
 * Transport-generic: it knows only the ops table.
 *
 * When. At Win_create/Win_allocate, a window that is neither in a shared
 * segment nor CMA (those stay: same host with shm allowed) becomes RDMA
 * if, on every rank, the p2p engine serves every other rank of the window
 * by one transport offering the ops, and every rank registered its memory
 * and got an endpoint to every rank (itself included: a loopback, so that
 * atomics on its own memory go through the adapter like the peers'). The
 * ranks agree (an allreduce), then allgather base addresses and rkeys of
 * the window memory and of a lock word per rank. Dynamic windows keep
 * active messages (regions come and go after creation).
 *
 * Operations (rma_ops.c decides with loom_rma_rdma_takes):
 *   put/get    one RDMA write/read per target segment (chunks of 1 MiB),
 *              straight from/to the origin buffer when it is contiguous,
 *              completed by the next flush; else through a packed copy,
 *              completed before the call returns;
 *   accumulate family on 8-byte elements (int64, uint64, double): the
 *              atomic verbs per element: fetch-add for SUM on integers and
 *              for NO_OP (add 0), compare-swap for Compare_and_swap, and a
 *              compare-swap loop for every other op (REPLACE, MAX, PROD,
 *              double SUM...), completed before the call returns. Every
 *              accumulate on such elements goes this way, so they are
 *              atomic with respect to each other (the adapter serialises
 *              atomics; a CPU-side apply would not be atomic with them);
 *              accumulates on other types go by active messages, applied
 *              by the target one whole operation at a time: MPI asks
 *              atomicity only among accesses with the same basic type.
 *              An element not 8-byte aligned at the target also goes by
 *              messages (every access to that location does);
 *   flush      each endpoint counts the work posted and completed; flush
 *              progresses until they are equal (rma_am.c's settle calls
 *              loom_rma_rdma_settle, so fence, unlock, complete and free
 *              wait for both kinds). The counts are per endpoint, shared
 *              by windows: a flush may wait for another window's work too.
 *   locks      a 64-bit lock word per rank: exclusive = compare-swap
 *              0 -> EXCL, shared = fetch-add 1 (undone and retried if an
 *              exclusive holder was there); unlock adds the negation. No
 *              target thread takes part.
 */
#include "rma_priv.h"
#include "p2p_rdma_int.h"
#include "comm_int.h"
#include "log_int.h"
#include "tl.h"

#include <stdlib.h>
#include <string.h>

#define LOOM_RMA_RDMA_CHUNK ((size_t)1 << 20)
#define LOOM_RMA_RDMA_EXCL  ((uint64_t)1 << 32)

typedef struct loom_rma_rdma {
    loom_tl_iface_t *iface;
    loom_tl_ep_t   **eps;        /* [size] */
    uint64_t        *base;       /* [size] window base in its owner */
    uint64_t        *ctl;        /* [size] lock word address in its owner */
    loom_tl_rkey_t  *rkey;       /* [size] of the window memory */
    loom_tl_rkey_t  *ctl_rkey;   /* [size] of the lock word */
    uint8_t         *ltype;      /* [size] lock held on each target (0: none) */
    loom_tl_memh_t  *memh;       /* this rank's window memory (NULL: empty) */
    loom_tl_memh_t  *ctl_memh;
    uint64_t        *lockw;      /* this rank's lock word (a 64-byte block) */
} loom_rma_rdma_t;

/* one rank's part of the exchange */
typedef struct loom_rma_rdma_addr {
    uint64_t       base, ctl;
    loom_tl_rkey_t rkey, ctl_rkey;
} loom_rma_rdma_addr_t;

static void loom_rma_rdma_release(loom_rma_rdma_t *r)
{
    if (r->iface != NULL) {
        if (r->memh != NULL) {
            r->iface->ops.rma_dereg(r->iface, r->memh);
        }
        if (r->ctl_memh != NULL) {
            r->iface->ops.rma_dereg(r->iface, r->ctl_memh);
        }
    }
    free(r->eps);
    free(r->base);
    free(r->ctl);
    free(r->rkey);
    free(r->ctl_rkey);
    free(r->ltype);
    free(r->lockw);
    free(r);
}

/* the one transport with one-sided ops serving every other rank, or NULL */
static loom_tl_iface_t *loom_rma_rdma_iface(const loom_rma_win_t *w)
{
    loom_tl_iface_t *iface = NULL;

    for (int r = 0; r < w->size; ++r) {
        loom_tl_iface_t *i;

        if (r == w->rank) {
            continue;
        }
        i = loom_p2p_peer_iface(loom_comm_to_world(w->comm, r));
        if (i == NULL || i->ops.rma_put == NULL || (iface != NULL && i != iface)) {
            return NULL;
        }
        iface = i;
    }
    return iface;
}

/* this rank's side: arrays, registrations, endpoints */
static loom_status_t loom_rma_rdma_local(loom_rma_win_t *w, loom_rma_rdma_t *r,
                                         loom_rma_rdma_addr_t *mine)
{
    size_t n = (size_t)w->size;
    loom_status_t st = LOOM_OK;

    r->eps = calloc(n, sizeof(*r->eps));
    r->base = calloc(n, sizeof(*r->base));
    r->ctl = calloc(n, sizeof(*r->ctl));
    r->rkey = calloc(n, sizeof(*r->rkey));
    r->ctl_rkey = calloc(n, sizeof(*r->ctl_rkey));
    r->ltype = calloc(n, sizeof(*r->ltype));
    r->lockw = aligned_alloc(64, 64);
    if (!r->eps || !r->base || !r->ctl || !r->rkey || !r->ctl_rkey || !r->ltype || !r->lockw) {
        return LOOM_ERR_NO_MEMORY;
    }
    memset(r->lockw, 0, 64);
    memset(mine, 0, sizeof(*mine));
    if (w->bytes > 0) {
        st = r->iface->ops.rma_reg(r->iface, w->base, w->bytes, &mine->rkey, &r->memh);
    }
    if (st == LOOM_OK) {
        st = r->iface->ops.rma_reg(r->iface, r->lockw, 64, &mine->ctl_rkey, &r->ctl_memh);
    }
    for (int t = 0; st == LOOM_OK && t < w->size; ++t) {
        st = r->iface->ops.rma_ep(r->iface, loom_comm_to_world(w->comm, t), &r->eps[t]);
    }
    mine->base = (uint64_t)(uintptr_t)w->base;
    mine->ctl = (uint64_t)(uintptr_t)r->lockw;
    return st;
}

/* agree (every rank ready?) and exchange the addresses */
static loom_status_t loom_rma_rdma_agree(loom_rma_win_t *w, loom_rma_rdma_t *r,
                                         const loom_rma_rdma_addr_t *mine, int *ok_p)
{
    size_t words = sizeof(*mine) / sizeof(uint64_t);
    uint64_t *all;
    int all_ok = 0;
    loom_status_t st = loom_allreduce(ok_p, &all_ok, 1, LOOM_INT32, LOOM_MIN, w->comm);

    if (st != LOOM_OK || !all_ok) {
        *ok_p = 0;
        return st;
    }
    if ((all = malloc(sizeof(*mine) * (size_t)w->size)) == NULL) {
        return LOOM_ERR_NO_MEMORY;   /* the others go on: the job cannot */
    }
    st = loom_allgather(mine, all, words, LOOM_UINT64, w->comm);
    for (int t = 0; st == LOOM_OK && t < w->size; ++t) {
        loom_rma_rdma_addr_t a;

        memcpy(&a, all + (size_t)t * words, sizeof(a));
        r->base[t] = a.base;
        r->ctl[t] = a.ctl;
        r->rkey[t] = a.rkey;
        r->ctl_rkey[t] = a.ctl_rkey;
    }
    free(all);
    return st;
}

loom_status_t loom_rma_rdma_setup(loom_rma_win_t *w)
{
    loom_rma_rdma_t *r = NULL;
    loom_rma_rdma_addr_t mine;
    loom_status_t st;
    int ok;

    if (w->direct || w->cma || w->size < 2 ||
        (w->flavor != LOOM_RMA_FLAVOR_CREATE && w->flavor != LOOM_RMA_FLAVOR_ALLOCATE)) {
        return LOOM_OK;   /* the same on every rank: no agreement needed */
    }
    ok = (r = calloc(1, sizeof(*r))) != NULL &&
         (r->iface = loom_rma_rdma_iface(w)) != NULL &&
         loom_rma_rdma_local(w, r, &mine) == LOOM_OK;
    st = loom_rma_rdma_agree(w, r, &mine, &ok);
    if (st != LOOM_OK || !ok) {
        if (r != NULL) {
            loom_rma_rdma_release(r);
        }
        return st;
    }
    w->rdma = r;
    loom_info("rma", "rank %d: window of %zu bytes over %s one-sided ops", w->rank, w->bytes,
               r->iface->name);
    return LOOM_OK;
}

void loom_rma_rdma_free(loom_rma_win_t *w)
{
    if (w->rdma != NULL) {
        loom_rma_rdma_release(w->rdma);
        w->rdma = NULL;
    }
}

int loom_rma_rdma_takes(const loom_rma_win_t *w, loom_rma_kind_t kind, loom_datatype_t basic)
{
    if (w->rdma == NULL) {
        return 0;
    }
    if (kind == LOOM_RMA_K_PUT || kind == LOOM_RMA_K_GET) {
        return 1;
    }
    return basic == LOOM_INT64 || basic == LOOM_UINT64 || basic == LOOM_DOUBLE;
}

/* ---- completion ---- */

static void loom_rma_rdma_settle_one(loom_rma_win_t *w, int t)
{
    loom_tl_ep_t *ep = w->rdma->eps[t];
    loom_status_t st;

    /* only the transport's own progress: the adapter completes the work
     * without any peer's help, and a whole loom_progress pass (every
     * transport, every window's service) costs more than the poll itself */
    while ((st = ep->iface->ops.rma_flush(ep)) == LOOM_INPROGRESS) {
        ep->iface->ops.progress(ep->iface);
    }
    if (st != LOOM_OK && w->deferred[t] == LOOM_OK) {
        w->deferred[t] = st;
    }
}

void loom_rma_rdma_settle(loom_rma_win_t *w, int target)
{
    if (w->rdma == NULL) {
        return;
    }
    for (int t = target < 0 ? 0 : target; t < (target < 0 ? w->size : target + 1); ++t) {
        loom_rma_rdma_settle_one(w, t);
    }
}

/* settle @p t and return the error of this wait (an older one stays deferred) */
static loom_status_t loom_rma_rdma_wait(loom_rma_win_t *w, int t)
{
    loom_status_t prev = w->deferred[t];
    loom_status_t st;

    w->deferred[t] = LOOM_OK;
    loom_rma_rdma_settle_one(w, t);
    st = w->deferred[t];
    w->deferred[t] = prev;
    return st;
}

/* ---- posting, with progress under back-pressure ---- */

static loom_status_t loom_rma_rdma_rw(loom_rma_win_t *w, int get, int t, void *local,
                                      size_t len, uint64_t raddr)
{
    loom_tl_ep_t *ep = w->rdma->eps[t];
    loom_status_t st;

    for (;;) {
        st = get ? ep->iface->ops.rma_get(ep, local, len, raddr, &w->rdma->rkey[t])
                 : ep->iface->ops.rma_put(ep, local, len, raddr, &w->rdma->rkey[t]);
        if (st != LOOM_ERR_NO_RESOURCE) {
            return st;
        }
        loom_progress();
    }
}

static loom_status_t loom_rma_rdma_atomic(loom_rma_win_t *w, int t, int op, uint64_t value,
                                          uint64_t compare, uint64_t *result, uint64_t raddr,
                                          const loom_tl_rkey_t *rkey)
{
    loom_tl_ep_t *ep = w->rdma->eps[t];
    loom_status_t st;

    while ((st = ep->iface->ops.rma_atomic(ep, op, value, compare, result, raddr, rkey)) ==
           LOOM_ERR_NO_RESOURCE) {
        loom_progress();
    }
    return st;
}

loom_status_t loom_rma_rdma_putget(loom_rma_win_t *w, int get, int target, int64_t start,
                                   const loom_rma_seg_t *segs, size_t nseg, void *local,
                                   int wait)
{
    uint64_t tbase = w->rdma->base[target] + (uint64_t)start;
    char *p = local;
    loom_status_t st = LOOM_OK;

    for (size_t i = 0; st == LOOM_OK && i < nseg; ++i) {
        for (uint64_t off = 0; st == LOOM_OK && off < segs[i].len;
             off += LOOM_RMA_RDMA_CHUNK) {
            size_t n = (size_t)LOOM_MIN(segs[i].len - off, (uint64_t)LOOM_RMA_RDMA_CHUNK);

            st = loom_rma_rdma_rw(w, get, target, p, n, tbase + (uint64_t)segs[i].off + off);
            p += n;
        }
    }
    if (wait) {
        loom_status_t wst = loom_rma_rdma_wait(w, target);

        st = st != LOOM_OK ? st : wst;
    }
    return st;
}

/* ---- accumulates by atomics ---- */

/* the new value of one element: @p old combined with @p in by @p op */
static loom_status_t loom_rma_rdma_combine(loom_op_t op, loom_datatype_t basic, uint64_t old,
                                           uint64_t in, uint64_t *new_p)
{
    static const loom_rma_seg_t one = { 0, sizeof(uint64_t) };
    loom_status_t st = LOOM_OK;

    if (op == LOOM_REPLACE) {
        *new_p = in;
        return LOOM_OK;
    }
    st = loom_rma_apply(LOOM_RMA_K_ACC, op, basic, (char *)&old, &one, 1, &in, NULL, NULL);
    *new_p = old;
    return st;
}

/* any op on one element by a compare-swap loop: read by CAS, combine, CAS until it held */
static loom_status_t loom_rma_rdma_cas_loop(loom_rma_win_t *w, const loom_rma_cma_op_t *o,
                                            uint64_t raddr, uint64_t in, uint64_t *fetch)
{
    uint64_t guess = 0, seen, next;
    loom_status_t st;

    for (;;) {
        if ((st = loom_rma_rdma_combine(o->op, o->basic, guess, in, &next)) != LOOM_OK) {
            return st;
        }
        st = loom_rma_rdma_atomic(w, o->target, LOOM_TL_ATOMIC_CSWAP, next, guess, &seen,
                                  raddr, &w->rdma->rkey[o->target]);
        if (st == LOOM_OK) {
            st = loom_rma_rdma_wait(w, o->target);
        }
        if (st != LOOM_OK || seen == guess) {
            break;
        }
        guess = seen;
    }
    if (st == LOOM_OK && fetch != NULL) {
        memcpy(fetch, &seen, sizeof(seen));
    }
    return st;
}

/* one element at @p raddr; @p pos its byte in the packed streams */
static loom_status_t loom_rma_rdma_elem(loom_rma_win_t *w, const loom_rma_cma_op_t *o,
                                        uint64_t raddr, size_t pos)
{
    uint64_t in = 0, cmp = 0;
    uint64_t *fetch = o->fetch != NULL ? (uint64_t *)(void *)((char *)o->fetch + pos) : NULL;
    const loom_tl_rkey_t *rkey = &w->rdma->rkey[o->target];
    int integer = o->basic == LOOM_INT64 || o->basic == LOOM_UINT64;

    if (o->in != NULL) {
        memcpy(&in, (const char *)o->in + pos, sizeof(in));
    }
    if (o->kind == LOOM_RMA_K_CAS) {
        memcpy(&cmp, o->cmp, sizeof(cmp));
        return loom_rma_rdma_atomic(w, o->target, LOOM_TL_ATOMIC_CSWAP, in, cmp, fetch,
                                    raddr, rkey);
    }
    if (o->op == LOOM_RMA_OP_NO_OP || (o->op == LOOM_SUM && integer)) {
        return loom_rma_rdma_atomic(w, o->target, LOOM_TL_ATOMIC_FADD,
                                    o->op == LOOM_SUM ? in : 0, 0, fetch, raddr, rkey);
    }
    return loom_rma_rdma_cas_loop(w, o, raddr, in, fetch);
}

loom_status_t loom_rma_rdma_acc(loom_rma_win_t *w, const loom_rma_cma_op_t *o)
{
    uint64_t tbase = w->rdma->base[o->target] + (uint64_t)o->start;
    loom_status_t st = LOOM_OK, wst;
    size_t pos = 0;

    for (size_t i = 0; i < o->nseg; ++i) {
        if (((tbase + (uint64_t)o->segs[i].off) & 7) != 0 || (o->segs[i].len & 7) != 0) {
            return LOOM_ERR_UNSUPPORTED;   /* not 8-byte elements on 8-byte boundaries */
        }
    }
    for (size_t i = 0; st == LOOM_OK && i < o->nseg; ++i) {
        for (uint64_t off = 0; st == LOOM_OK && off < o->segs[i].len; off += 8, pos += 8) {
            st = loom_rma_rdma_elem(w, o, tbase + (uint64_t)o->segs[i].off + off, pos);
        }
    }
    wst = loom_rma_rdma_wait(w, o->target);
    return st != LOOM_OK ? st : wst;
}

/* ---- locks ---- */

loom_status_t loom_rma_rdma_lock(loom_rma_win_t *w, int t, int type)
{
    loom_rma_rdma_t *r = w->rdma;
    int excl = type == LOOM_RMA_LOCK_EXCLUSIVE;
    uint64_t old = 0;
    loom_status_t st;

    for (;;) {
        st = excl ? loom_rma_rdma_atomic(w, t, LOOM_TL_ATOMIC_CSWAP, LOOM_RMA_RDMA_EXCL, 0,
                                         &old, r->ctl[t], &r->ctl_rkey[t])
                  : loom_rma_rdma_atomic(w, t, LOOM_TL_ATOMIC_FADD, 1, 0, &old, r->ctl[t],
                                         &r->ctl_rkey[t]);
        if (st == LOOM_OK) {
            st = loom_rma_rdma_wait(w, t);
        }
        if (st != LOOM_OK || (excl ? old == 0 : old < LOOM_RMA_RDMA_EXCL)) {
            break;
        }
        if (!excl) {   /* an exclusive holder: take our share back, then retry */
            st = loom_rma_rdma_atomic(w, t, LOOM_TL_ATOMIC_FADD, (uint64_t)-1, 0, NULL,
                                      r->ctl[t], &r->ctl_rkey[t]);
            if (st == LOOM_OK) {
                st = loom_rma_rdma_wait(w, t);
            }
            if (st != LOOM_OK) {
                break;
            }
        }
        loom_progress();   /* serve others while the holder works */
    }
    if (st == LOOM_OK) {
        r->ltype[t] = (uint8_t)(excl ? 2 : 1);
    }
    return st;
}

loom_status_t loom_rma_rdma_unlock(loom_rma_win_t *w, int t)
{
    loom_rma_rdma_t *r = w->rdma;
    uint64_t delta = r->ltype[t] == 2 ? (uint64_t)0 - LOOM_RMA_RDMA_EXCL : (uint64_t)-1;
    loom_status_t st;

    if (r->ltype[t] == 0) {
        return LOOM_OK;
    }
    r->ltype[t] = 0;
    st = loom_rma_rdma_atomic(w, t, LOOM_TL_ATOMIC_FADD, delta, 0, NULL, r->ctl[t],
                              &r->ctl_rkey[t]);
    if (st == LOOM_OK) {
        st = loom_rma_rdma_wait(w, t);
    }
    return st;
}
