/*
 * mpi_win_ops.c: the one-sided communication calls (Put, Get, Accumulate,
 * Get_accumulate, Fetch_and_op, Compare_and_swap and the request forms).
 *
 * Each validates the window, counts, datatypes (any committed type, on
 * either side: the rma layer flattens the target's and packs the origin's)
 * and the op (predefined ops, MPI_REPLACE, MPI_NO_OP; user ops are not
 * allowed in RMA: MPI_ERR_OP), then calls the rma layer once. MPI_PROC_NULL
 * as target: nothing moves (a request form returns a completed request).
 *
 * Inline path first (windows in one shared segment, mpi_win_int.h): Put
 * and Get of plain types both sides are an epoch byte, a range check and
 * a memcpy; Accumulate (MPI_SUM on 32/64-bit integers, MPI_REPLACE),
 * Fetch_and_op (those and MPI_NO_OP) and Compare_and_swap (32/64-bit
 * integers) of one predefined type are the element operation done here
 * under the segment's accumulate lock, which every accumulate of such a
 * window holds (rma_ops.c), so they stay atomic per element among
 * themselves and ordered. Anything else, or anything wrong, takes the
 * general path, which reports it. Fetch_and_op and Compare_and_swap of
 * such an element on a window whose accumulates go by active message take
 * the rma layer's one-element message (loom_rma_am_atomic) instead of the
 * datatype engine.
 */
#include "mpi_win_int.h"
#include "mt_int.h"

#include <stdatomic.h>
#include <string.h>

/*
 * 1 if n elements of a committed @p dt are n x its size bytes in
 * one run from its address ("base x n", mpi_dtype.c: lb 0, extent == size),
 * what the byte paths below and the rma layer's contiguous entries move.
 * Not a type holding value+index pairs: a padded pair (MPI_DOUBLE_INT: 12
 * bytes of data in a 16-byte C struct) has size < extent, and the rma
 * layer reads pair elements as their packed data (rma_apply.c), so pairs
 * take the typed path, where the engine packs them.
 */
static inline int loom_mpi_win_run_type(MPI_Datatype dt)
{
    return !dt->noncontig && !dt->haspair && !loom_mpi_type_padpair(dt);
}

/* ---- the inline path ---- */

/* a live committed type whose data is one run of bytes from its address */
static inline int loom_mpi_win_fast_plain(MPI_Datatype dt)
{
    return dt != MPI_DATATYPE_NULL && dt->magic == LOOM_MPI_TYPE_MAGIC && !dt->user_freed &&
           dt->committed && loom_mpi_win_run_type(dt);
}

/* put/get: both sides plain with the same bytes (*bytes_p), else 0 */
static inline int loom_mpi_win_fast_bytes(int ocount, MPI_Datatype otype, int tcount,
                                          MPI_Datatype ttype, size_t *bytes_p)
{
    if (ocount < 0 || !loom_mpi_win_fast_plain(otype)) {
        return 0;
    }
    *bytes_p = (size_t)ocount * otype->size;
    return (ttype == otype && tcount == ocount) ||
           (tcount >= 0 && loom_mpi_win_fast_plain(ttype) &&
            (size_t)tcount * ttype->size == *bytes_p);
}

/* Put (@p get 0) or Get, inline: 1 if done */
static inline int loom_mpi_win_fast_putget(int get, void *origin, int ocount,
                                           MPI_Datatype otype, int target, MPI_Aint disp,
                                           int tcount, MPI_Datatype ttype, MPI_Win win)
{
    size_t bytes;
    char *t;

    if (!loom_mpi_win_valid(win) || win->fast.base == NULL ||
        !loom_mpi_win_fast_bytes(ocount, otype, tcount, ttype, &bytes) ||
        (t = loom_mpi_win_fast_addr(win, target, disp, bytes, 1)) == NULL) {
        return 0;
    }
    if (bytes == 0) {
        return 1;   /* checked, nothing moves (origin may be NULL: no memcpy of it) */
    }
    if (get) {
        memcpy(origin, t, bytes);
    } else {
        memcpy(t, origin, bytes);
    }
    return 1;
}

static inline void loom_mpi_win_fast_lock(_Atomic int *l)
{
    while (atomic_exchange_explicit(l, 1, memory_order_acquire)) {
        while (atomic_load_explicit(l, memory_order_relaxed)) {
        }
    }
}

/* the element type an inline accumulate handles (32/64-bit integers): its size, or 0 */
static inline size_t loom_mpi_win_fast_esize(MPI_Datatype dt)
{
    if (!dt->predefined || dt->n != 1) {
        return 0;
    }
    switch (dt->base) {
    case LOOM_INT32: case LOOM_UINT32: return 4;
    case LOOM_INT64: case LOOM_UINT64: return 8;
    default:                           return 0;
    }
}

/* 1 if @p a and @p b are aligned for elements of @p esize (4 or 8) bytes: loom_op_reduce
 * loads typed elements, undefined at a disp unit 1 window's odd displacement */
static inline int loom_mpi_win_fast_aligned(const void *a, const void *b, size_t esize)
{
    return (((uintptr_t)a | (uintptr_t)b) & (esize - 1)) == 0;
}

/* elements up to which an inline sum is a plain loop (beyond, when aligned:
 * loom_op_reduce's) */
#define LOOM_MPI_WIN_FAST_LOOP 8

/*
 * Accumulate (SUM, REPLACE), Fetch_and_op (SUM, REPLACE, NO_OP), or
 * Compare_and_swap (@p compare) inline: 1 if done. Origin, target (and
 * result) are @p count elements of one predefined 32/64-bit integer type;
 * sums wrap as two's complement. Always inlined: each caller's kind and op
 * fold away.
 */
__attribute__((always_inline))
static inline int loom_mpi_win_fast_acc(loom_rma_acc_kind_t kind, const void *origin,
                                        const void *compare, void *result, int count,
                                        MPI_Datatype dt, int target, MPI_Aint disp,
                                        MPI_Op op, MPI_Win win)
{
    size_t esize;
    uint64_t old = 0;
    char *t;

    if (!loom_mpi_win_valid(win) || win->fast.base == NULL || count < 0 ||
        dt == MPI_DATATYPE_NULL || dt->magic != LOOM_MPI_TYPE_MAGIC ||
        (esize = loom_mpi_win_fast_esize(dt)) == 0 ||
        (kind != LOOM_RMA_CAS && op != MPI_REPLACE && op != MPI_SUM &&
         !(kind == LOOM_RMA_FOP && op == MPI_NO_OP)) ||
        (origin == NULL && op != MPI_NO_OP) ||
        (t = loom_mpi_win_fast_addr(win, target, disp, esize * (size_t)count, 1)) == NULL) {
        return 0;
    }
    loom_mpi_win_fast_lock(win->fast.acc_lock);
    if (kind == LOOM_RMA_ACC && op == MPI_REPLACE) {
        memmove(t, origin, esize * (size_t)count);
    } else if (kind == LOOM_RMA_ACC && count > LOOM_MPI_WIN_FAST_LOOP &&
               loom_mpi_win_fast_aligned(t, origin, esize)) {
        (void)loom_op_reduce(LOOM_SUM, origin, t, (size_t)count, dt->base);   /* vectorized */
    } else if (kind == LOOM_RMA_ACC) {
        for (size_t i = 0; i < (size_t)count; ++i) {
            loom_store_int(t + i * esize,
                           loom_load_int(t + i * esize, esize) +
                               loom_load_int((const char *)origin + i * esize, esize),
                           esize);
        }
    } else {
        old = loom_load_int(t, esize);
        if (kind == LOOM_RMA_CAS ? old == loom_load_int(compare, esize)
                                 : op == MPI_REPLACE) {
            loom_store_int(t, loom_load_int(origin, esize), esize);
        } else if (op == MPI_SUM) {
            loom_store_int(t, old + loom_load_int(origin, esize), esize);
        }
    }
    atomic_store_explicit(win->fast.acc_lock, 0, memory_order_release);
    if (kind != LOOM_RMA_ACC) {
        loom_store_int(result, old, esize);
    }
    return 1;
}

/*
 * Fetch_and_op (SUM, REPLACE, NO_OP) or Compare_and_swap of one 32/64-bit
 * integer on a window whose accumulates go by active message: the rma
 * layer's one-block message (loom_rma_am_atomic). 1 if taken, *rc_p set.
 */
static int loom_mpi_win_am_atomic(const void *origin, const void *compare, void *result,
                                  MPI_Datatype dt, int target, MPI_Aint disp, MPI_Op op,
                                  MPI_Win win, const char *call, int *rc_p)
{
    loom_rma_am_atomic_t a = {
        .origin = origin, .compare = compare, .result = result, .target = target,
        .disp = disp, .op = LOOM_REPLACE,
    };
    loom_status_t st;

    if (!loom_mpi_win_valid(win) || result == NULL || target < 0 ||
        dt == MPI_DATATYPE_NULL || dt->magic != LOOM_MPI_TYPE_MAGIC ||
        loom_mpi_win_fast_esize(dt) == 0 || (compare == NULL && op != MPI_SUM &&
                                             op != MPI_REPLACE && op != MPI_NO_OP) ||
        (origin == NULL && op != MPI_NO_OP)) {
        return 0;
    }
    a.basic = dt->base;
    if (compare == NULL) {
        a.op = op == MPI_SUM ? LOOM_SUM : op == MPI_NO_OP ? LOOM_RMA_OP_NO_OP : LOOM_REPLACE;
    }
    if (loom_rma_am_atomic(win->rwin, &a, &st) != 0) {
        return 0;
    }
    *rc_p = st == LOOM_OK ? MPI_SUCCESS
          : loom_mpi_win_raise(win, loom_mpi_win_class_of(st), call, "target %d, disp %lld: %s",
                               target, (long long)disp, loom_rma_strerror(st));
    return 1;
}

/* ---- the general path ---- */

/* the element type an accumulate works on: the basic type of @p dt */
static int loom_mpi_win_basic(MPI_Datatype dt, loom_datatype_t *basic_p)
{
    if (dt->predefined) {
        *basic_p = dt->base;
        return dt->n == 1 ? MPI_SUCCESS : MPI_ERR_TYPE;
    }
    if (dt->ebase < 0) {
        return MPI_ERR_TYPE;
    }
    *basic_p = (loom_datatype_t)dt->ebase;
    return MPI_SUCCESS;
}

static int loom_mpi_win_type(MPI_Win win, MPI_Datatype dt, int count, const char *what,
                             const char *call, struct loom_dt **ldt_p)
{
    int rc = loom_mpi_type_check_any(dt, count);

    if (rc == MPI_SUCCESS && (*ldt_p = loom_mpi_type_ldt(dt)) == NULL) {
        rc = MPI_ERR_TYPE;
    }
    if (rc != MPI_SUCCESS) {
        return loom_mpi_win_raise(win, rc, call, "%s: %s", what,
                                  rc == MPI_ERR_COUNT ? "negative count"
                                                      : "not a committed datatype");
    }
    return MPI_SUCCESS;
}

static int loom_mpi_win_op(MPI_Win win, MPI_Op op, const char *call, loom_op_t *lop_p)
{
    if (op == MPI_NO_OP) {
        *lop_p = LOOM_RMA_OP_NO_OP;
        return MPI_SUCCESS;
    }
    if (op == MPI_OP_NULL || op->magic != LOOM_MPI_OP_MAGIC || !op->predefined) {
        return loom_mpi_win_raise(win, MPI_ERR_OP, call, "%s: RMA takes predefined "
                                  "operations, MPI_REPLACE and MPI_NO_OP only",
                                  op == MPI_OP_NULL ? "MPI_OP_NULL" : "a user operation");
    }
    *lop_p = op->op;
    return MPI_SUCCESS;
}

/* MPI_PROC_NULL target: nothing moves; a request form gets a completed request */
static int loom_mpi_win_null_req(MPI_Win win, MPI_Request *request, const char *call)
{
    loom_status_t st;

    if (request == NULL) {
        return MPI_SUCCESS;
    }
    *request = MPI_REQUEST_NULL;
    st = loom_rma_null_request(win->rwin, request);
    return st == LOOM_OK ? MPI_SUCCESS
                         : loom_mpi_win_raise(win, MPI_ERR_NO_MEM, call, "no memory for the "
                                              "request of an operation to MPI_PROC_NULL");
}

typedef struct loom_mpi_rma_call {
    const void  *oaddr;
    int          ocount;
    MPI_Datatype otype;
    void        *raddr;
    int          rcount;
    MPI_Datatype rtype;
    int          target;
    MPI_Aint     disp;
    int          tcount;
    MPI_Datatype ttype;
} loom_mpi_rma_call_t;

/* a committed type whose data is one run of bytes from its address (no gaps, lb 0) */
static int loom_mpi_win_plain(MPI_Datatype dt, int count)
{
    return loom_mpi_type_check_any(dt, count) == MPI_SUCCESS && loom_mpi_win_run_type(dt);
}

/*
 * @p buf, or a valid address when it is NULL: MPI allows any buffer when
 * nothing moves (count 0), and the rma layer's copies would hand NULL to a
 * 0-byte memcpy, which C leaves undefined (UBSan aborts).
 */
static void *loom_mpi_win_buf(const void *buf)
{
    static char nothing;

    return buf != NULL ? (void *)(uintptr_t)buf : &nothing;
}

static int loom_mpi_win_raise_st(MPI_Win win, loom_status_t st, const loom_mpi_rma_call_t *c,
                                 const char *call)
{
    return loom_mpi_win_raise(win, loom_mpi_win_class_of(st), call, "target %d, disp %lld: %s",
                              c->target, (long long)c->disp, loom_rma_strerror(st));
}

static int loom_mpi_win_putget(int get, const loom_mpi_rma_call_t *c, MPI_Win win,
                               MPI_Request *request, const char *call)
{
    struct loom_dt *odt, *tdt;
    loom_status_t st;
    int rc;

    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, call);
    }
    /* plain bytes both sides of the same length: a shared window copies directly */
    if (request == NULL && c->target != MPI_PROC_NULL && loom_mpi_win_plain(c->otype, c->ocount) &&
        loom_mpi_win_plain(c->ttype, c->tcount) &&
        (size_t)c->ocount * c->otype->size == (size_t)c->tcount * c->ttype->size &&
        loom_rma_putget_bytes(win->rwin, get, loom_mpi_win_buf(c->oaddr),
                              (size_t)c->ocount * c->otype->size, c->target, c->disp, &st) == 0) {
        return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_win_raise_st(win, st, c, call);
    }
    if ((rc = loom_mpi_win_type(win, c->otype, c->ocount, "origin", call, &odt)) != 0 ||
        (rc = loom_mpi_win_type(win, c->ttype, c->tcount, "target", call, &tdt)) != 0) {
        return rc;
    }
    if (c->target == MPI_PROC_NULL) {
        return loom_mpi_win_null_req(win, request, call);
    }
    if (request != NULL) {
        *request = MPI_REQUEST_NULL;
    }
    st = get ? loom_rma_get(win->rwin, (void *)(uintptr_t)c->oaddr, (size_t)c->ocount, odt,
                            c->target, c->disp, (size_t)c->tcount, tdt, request)
             : loom_rma_put(win->rwin, c->oaddr, (size_t)c->ocount, odt, c->target, c->disp,
                            (size_t)c->tcount, tdt, request);
    if (st != LOOM_OK) {
        return loom_mpi_win_raise(win, loom_mpi_win_class_of(st), call,
                                  "target %d, disp %lld: %s", c->target,
                                  (long long)c->disp, loom_rma_strerror(st));
    }
    return MPI_SUCCESS;
}

/*
 * 0 if the rma layer's contiguous path would reduce at an address not
 * aligned for @p dt's elements (origin, or the target's element of a window
 * in one shared segment: disp unit 1 at an odd displacement); that path
 * hands both to loom_op_reduce, whose typed loads are undefined there.
 */
static int loom_mpi_win_acc_fast_aligned(MPI_Win win, const loom_mpi_rma_call_t *c,
                                         MPI_Datatype dt)
{
    size_t esize = loom_datatype_size(dt->base);
    size_t a = esize & (~esize + 1);   /* its largest power-of-two divisor */
    const char *t;

    a = a > 16 ? 16 : a == 0 ? 1 : a;
    if (((uintptr_t)c->oaddr & (a - 1)) != 0) {
        return 0;
    }
    t = loom_mpi_win_fast_addr(win, c->target, c->disp, 0, 0);
    return t == NULL || ((uintptr_t)t & (a - 1)) == 0;
}

/*
 * Accumulate of plain types, Fetch_and_op, Compare_and_swap of one
 * predefined element, on a window in a shared segment: the rma layer's
 * contiguous path, before any loom type is looked up. 1 if not taken (the
 * general path runs), else 0 with *rc_p set.
 */
static int loom_mpi_win_acc_fast(loom_rma_acc_kind_t kind, const loom_mpi_rma_call_t *c,
                                 const void *compare, MPI_Op op, MPI_Win win,
                                 const char *call, int *rc_p)
{
    MPI_Datatype dt = c->ttype;
    loom_status_t st;
    loom_op_t lop = LOOM_REPLACE;

    if (!loom_mpi_win_valid(win) || c->target == MPI_PROC_NULL || c->oaddr == NULL ||
        !loom_mpi_win_plain(dt, c->tcount) || dt->derived || dt->n != 1 ||
        c->otype != dt || c->ocount != c->tcount ||
        (kind != LOOM_RMA_ACC && c->raddr == NULL) || (kind == LOOM_RMA_CAS && compare == NULL)) {
        return 1;
    }
    if (kind != LOOM_RMA_CAS) {
        if (op == MPI_NO_OP || op == MPI_OP_NULL || op->magic != LOOM_MPI_OP_MAGIC ||
            !op->predefined) {
            return 1;
        }
        lop = op->op;
    }
    if (!loom_mpi_win_acc_fast_aligned(win, c, dt)) {
        return 1;   /* the general path combines through an aligned bounce (rma_apply.c) */
    }
    if (loom_rma_acc_contig(win->rwin, kind, lop, dt->base, c->oaddr, compare, c->raddr,
                            (size_t)c->tcount, c->target, c->disp, &st) != 0) {
        return 1;
    }
    *rc_p = st == LOOM_OK ? MPI_SUCCESS : loom_mpi_win_raise_st(win, st, c, call);
    return 0;
}

static int loom_mpi_win_acc(loom_rma_acc_kind_t kind, const loom_mpi_rma_call_t *c,
                            const void *compare, MPI_Op op, MPI_Win win,
                            MPI_Request *request, const char *call)
{
    loom_rma_acc_args_t a = {
        .kind = kind, .origin = c->oaddr, .ocount = (size_t)c->ocount, .result = c->raddr,
        .rcount = (size_t)c->rcount, .compare = compare, .target = c->target,
        .disp = c->disp, .tcount = (size_t)c->tcount,
    };
    loom_status_t st;
    int rc;

    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, call);
    }
    if ((rc = loom_mpi_win_type(win, c->ttype, c->tcount, "target", call, &a.tdt)) != 0 ||
        (rc = loom_mpi_win_op(win, op, call, &a.op)) != 0) {
        return rc;
    }
    if (c->otype != MPI_DATATYPE_NULL || a.op != LOOM_RMA_OP_NO_OP) {
        if ((rc = loom_mpi_win_type(win, c->otype, c->ocount, "origin", call, &a.odt)) != 0) {
            return rc;
        }
    } else {
        a.origin = NULL;
    }
    if (kind != LOOM_RMA_ACC &&
        (rc = loom_mpi_win_type(win, c->rtype, c->rcount, "result", call, &a.rdt)) != 0) {
        return rc;
    }
    if (loom_mpi_win_basic(c->ttype, &a.basic) != MPI_SUCCESS) {
        return loom_mpi_win_raise(win, MPI_ERR_TYPE, call, "the target datatype is not "
                                  "made of one predefined type");
    }
    if (c->target == MPI_PROC_NULL) {
        return loom_mpi_win_null_req(win, request, call);
    }
    if (request != NULL) {
        *request = MPI_REQUEST_NULL;
    }
    st = loom_rma_acc(win->rwin, &a, request);
    if (st != LOOM_OK) {
        return loom_mpi_win_raise(win, loom_mpi_win_class_of(st), call,
                                  "target %d, disp %lld: %s", c->target,
                                  (long long)c->disp, loom_rma_strerror(st));
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                              target_rank, target_disp, target_count, target_datatype };

    if (loom_mpi_win_fast_putget(0, (void *)(uintptr_t)origin_addr, origin_count,
                                 origin_datatype, target_rank, target_disp, target_count,
                                 target_datatype, win)) {
        return MPI_SUCCESS;
    }
    return loom_mpi_win_putget(0, &c, win, NULL, "MPI_Put");
}

#pragma weak MPI_Rput = PMPI_Rput
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                              target_rank, target_disp, target_count, target_datatype };

    if (request == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Rput", "request is NULL");
    }
    return loom_mpi_win_putget(0, &c, win, request, "MPI_Rput");
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                              target_rank, target_disp, target_count, target_datatype };

    if (loom_mpi_win_fast_putget(1, origin_addr, origin_count, origin_datatype, target_rank,
                                 target_disp, target_count, target_datatype, win)) {
        return MPI_SUCCESS;
    }
    return loom_mpi_win_putget(1, &c, win, NULL, "MPI_Get");
}

#pragma weak MPI_Rget = PMPI_Rget
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                              target_rank, target_disp, target_count, target_datatype };

    if (request == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Rget", "request is NULL");
    }
    return loom_mpi_win_putget(1, &c, win, request, "MPI_Rget");
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                              target_rank, target_disp, target_count, target_datatype };
    int rc;

    if (origin_datatype == target_datatype && origin_count == target_count &&
        loom_mpi_win_fast_acc(LOOM_RMA_ACC, origin_addr, NULL, NULL, origin_count,
                              origin_datatype, target_rank, target_disp, op, win)) {
        return MPI_SUCCESS;
    }
    if (loom_mpi_win_acc_fast(LOOM_RMA_ACC, &c, NULL, op, win, "MPI_Accumulate", &rc) == 0) {
        return rc;
    }
    return loom_mpi_win_acc(LOOM_RMA_ACC, &c, NULL, op, win, NULL, "MPI_Accumulate");
}

#pragma weak MPI_Raccumulate = PMPI_Raccumulate
int PMPI_Raccumulate(const void *origin_addr, int origin_count,
                     MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                     int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                              target_rank, target_disp, target_count, target_datatype };

    if (request == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Raccumulate", "request is NULL");
    }
    return loom_mpi_win_acc(LOOM_RMA_ACC, &c, NULL, op, win, request, "MPI_Raccumulate");
}

#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, int result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPI_Win win)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, origin_count, origin_datatype, result_addr,
                              result_count, result_datatype, target_rank, target_disp,
                              target_count, target_datatype };

    return loom_mpi_win_acc(LOOM_RMA_GET_ACC, &c, NULL, op, win, NULL,
                            "MPI_Get_accumulate");
}

#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, int result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win, MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, origin_count, origin_datatype, result_addr,
                              result_count, result_datatype, target_rank, target_disp,
                              target_count, target_datatype };

    if (request == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Rget_accumulate",
                                  "request is NULL");
    }
    return loom_mpi_win_acc(LOOM_RMA_GET_ACC, &c, NULL, op, win, request,
                            "MPI_Rget_accumulate");
}

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, 1, datatype, result_addr, 1, datatype,
                              target_rank, target_disp, 1, datatype };
    int rc;

    if (result_addr != NULL &&
        loom_mpi_win_fast_acc(LOOM_RMA_FOP, origin_addr, NULL, result_addr, 1, datatype,
                              target_rank, target_disp, op, win)) {
        return MPI_SUCCESS;
    }
    if (loom_mpi_win_am_atomic(origin_addr, NULL, result_addr, datatype, target_rank,
                               target_disp, op, win, "MPI_Fetch_and_op", &rc)) {
        return rc;
    }
    if (loom_mpi_win_acc_fast(LOOM_RMA_FOP, &c, NULL, op, win, "MPI_Fetch_and_op", &rc) == 0) {
        return rc;
    }
    return loom_mpi_win_acc(LOOM_RMA_FOP, &c, NULL, op, win, NULL, "MPI_Fetch_and_op");
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                          void *result_addr, MPI_Datatype datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Win win)
{
    LOOM_MT_GUARD();
    loom_mpi_rma_call_t c = { origin_addr, 1, datatype, result_addr, 1, datatype,
                              target_rank, target_disp, 1, datatype };
    int rc;

    if (result_addr != NULL && compare_addr != NULL && origin_addr != NULL &&
        loom_mpi_win_fast_acc(LOOM_RMA_CAS, origin_addr, compare_addr, result_addr, 1,
                              datatype, target_rank, target_disp, MPI_REPLACE, win)) {
        return MPI_SUCCESS;
    }
    if (origin_addr != NULL && compare_addr != NULL &&
        loom_mpi_win_am_atomic(origin_addr, compare_addr, result_addr, datatype, target_rank,
                               target_disp, MPI_REPLACE, win, "MPI_Compare_and_swap", &rc)) {
        return rc;
    }
    if (loom_mpi_win_acc_fast(LOOM_RMA_CAS, &c, compare_addr, MPI_REPLACE, win,
                                 "MPI_Compare_and_swap", &rc) == 0) {
        return rc;
    }
    return loom_mpi_win_acc(LOOM_RMA_CAS, &c, compare_addr, MPI_REPLACE, win, NULL,
                            "MPI_Compare_and_swap");
}
