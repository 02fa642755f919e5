/*
 * rma_apply.c: target layouts as segments, their range check, and the
 * application of put/get/accumulate/fetch/CAS to them (pure: no I/O).
 *
 * The origin flattens the target datatype once (loom_dt_iov over a
 * notional base address) into (offset, length) pieces, in the type's
 * packed-stream order, and ships them with the packed origin data; the
 * target (or the origin itself, on a shared segment) walks the pieces
 * against its memory. A piece holds whole basic elements (types are built
 * of them and adjacent pieces merge only whole ones), so an accumulate
 * applies the op piece by piece with loom_op_reduce; a piece whose target
 * (or data) is not aligned for its type (disp unit 1, odd displacement)
 * goes through aligned stack buffers, as loom_op_reduce loads typed
 * elements. The target's own check of where the pieces land (its size, or
 * a dynamic window's attached regions) is here too: the active-message
 * service and the origin's operations on its own memory both use it.
 */
#include "rma_priv.h"

#include <stdlib.h>
#include <string.h>

/* the notional address the target type is laid out at: far from 0 so a
 * negative lower bound stays a valid address */
#define LOOM_RMA_SEG_ORIGIN ((uintptr_t)1 << 44)

static loom_status_t loom_rma_seg_grow(loom_rma_seg_t **segs_p, size_t *cap_p, size_t need)
{
    size_t cap = *cap_p ? *cap_p : 8;
    loom_rma_seg_t *s;

    while (cap < need) {
        cap *= 2;
    }
    if (cap == *cap_p) {
        return LOOM_OK;
    }
    s = realloc(*segs_p, cap * sizeof(*s));
    if (s == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    *segs_p = s;
    *cap_p  = cap;
    return LOOM_OK;
}

loom_status_t loom_rma_seg_build(size_t count, loom_dt_t *dt, loom_rma_seg_t **segs_p,
                                 size_t *nseg_p, size_t *bytes_p)
{
    const void *origin = (const void *)LOOM_RMA_SEG_ORIGIN;
    loom_rma_seg_t *segs = NULL;
    size_t total, pos = 0, n = 0, cap = 0, niov, got;
    struct iovec iov[64];
    loom_status_t st = loom_dt_pack_size(count, dt, &total);

    while (st == LOOM_OK && pos < total) {
        st = loom_dt_iov(origin, count, dt, pos, total - pos, iov, 64, &niov, &got);
        if (st == LOOM_OK && (niov == 0 || got == 0)) {
            st = LOOM_ERR_INTERNAL;
        }
        if (st == LOOM_OK) {
            st = loom_rma_seg_grow(&segs, &cap, n + niov);
        }
        for (size_t i = 0; st == LOOM_OK && i < niov; ++i) {
            segs[n].off   = (int64_t)((uintptr_t)iov[i].iov_base - LOOM_RMA_SEG_ORIGIN);
            segs[n++].len = iov[i].iov_len;
        }
        pos += got;
    }
    if (st == LOOM_OK && segs == NULL) {
        segs = malloc(sizeof(*segs));   /* count 0: an empty, non-NULL list */
        st = segs == NULL ? LOOM_ERR_NO_MEMORY : LOOM_OK;
    }
    if (st != LOOM_OK) {
        free(segs);
        return st;
    }
    *segs_p  = segs;
    *nseg_p  = n;
    *bytes_p = total;
    return LOOM_OK;
}

loom_status_t loom_rma_range_check(const loom_rma_seg_t *segs, size_t nseg, int64_t start,
                                   size_t winsize)
{
    for (size_t i = 0; i < nseg; ++i) {
        int64_t lo;

        if (__builtin_add_overflow(start, segs[i].off, &lo) || lo < 0 ||
            (uint64_t)lo > winsize || segs[i].len > winsize - (uint64_t)lo) {
            return LOOM_RMA_ERR_RANGE;
        }
    }
    return LOOM_OK;
}

/* bytes of the aligned bounce buffers below (a multiple of every element size) */
#define LOOM_RMA_BOUNCE 512

/* 1 if @p p is aligned for elements of @p esize bytes (the largest power of two
 * dividing esize, at most 16: what loom_op_reduce's typed loads need) */
static int loom_rma_aligned(const void *p, size_t esize)
{
    size_t a = esize & (~esize + 1);

    return ((uintptr_t)p & ((a > 16 ? 16 : a) - 1)) == 0;
}

/*
 * dst = in op dst where dst or in is not aligned for the type (a window of
 * disp unit 1 at an odd displacement, an origin buffer at an odd address):
 * loom_op_reduce reads typed elements, which is undefined there, so the
 * elements go through two aligned stack buffers a chunk at a time.
 */
static loom_status_t loom_rma_combine_bounce(loom_op_t op, loom_datatype_t basic, char *dst,
                                             const char *in, size_t len, size_t esize)
{
    _Alignas(16) char bin[LOOM_RMA_BOUNCE], bout[LOOM_RMA_BOUNCE];
    size_t chunk = LOOM_RMA_BOUNCE / esize * esize;
    loom_status_t st = LOOM_OK;

    for (size_t off = 0; off < len && st == LOOM_OK; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;

        memcpy(bin, in + off, n);
        memcpy(bout, dst + off, n);
        st = loom_op_reduce(op, bin, bout, n / esize, basic);
        if (st == LOOM_OK) {
            memcpy(dst + off, bout, n);
        }
    }
    return st;
}

/* combine one piece: dst = in op dst */
static loom_status_t loom_rma_combine(loom_op_t op, loom_datatype_t basic, char *dst,
                                      const char *in, size_t len)
{
    size_t esize = loom_datatype_size(basic);

    if (op == LOOM_RMA_OP_NO_OP) {
        return LOOM_OK;
    }
    if (op == LOOM_REPLACE) {
        memcpy(dst, in, len);
        return LOOM_OK;
    }
    if (esize == 0 || len % esize != 0) {
        return LOOM_ERR_INVALID_TYPE;
    }
    if (esize > LOOM_RMA_BOUNCE) {
        return LOOM_ERR_INVALID_TYPE;   /* no basic type is that large */
    }
    if (!loom_rma_aligned(dst, esize) || !loom_rma_aligned(in, esize)) {
        return loom_rma_combine_bounce(op, basic, dst, in, len, esize);
    }
    return loom_op_reduce(op, in, dst, len / esize, basic);
}

static void loom_rma_gather(char *tbase, const loom_rma_seg_t *segs, size_t nseg, char *out)
{
    for (size_t i = 0; i < nseg; ++i) {
        memcpy(out, tbase + segs[i].off, segs[i].len);
        out += segs[i].len;
    }
}

/*
 * Value+index pairs (MPI_DOUBLE_INT & co. with MAXLOC/MINLOC): the packed
 * stream holds each element as value bytes then the int, without the C
 * struct's padding, and the target type's segments may split elements. So
 * gather the target's stream, widen both streams to C structs, reduce,
 * narrow back and scatter. Every caller hands pairs packed: the general
 * path packs through the engine, and no contiguous entry sends the C bytes
 * of a padded pair (loom_dt_basic_padded; the MPI binding's byte paths
 * leave pair types out).
 */
static int loom_rma_pair_sizes(loom_datatype_t basic, size_t *psize_p, size_t *ioff_p)
{
    size_t psize;

    if (basic < LOOM_FLOAT_INT || basic > LOOM_LONG_DOUBLE_INT ||
        loom_dt_pack_size(1, loom_dt_basic(basic), &psize) != LOOM_OK || psize <= sizeof(int)) {
        return 0;
    }
    *psize_p = psize;
    *ioff_p  = (psize - sizeof(int) + sizeof(int) - 1) & ~(sizeof(int) - 1);
    return 1;
}

/* packed (value, int) elements -> C structs of @p ext bytes, the int at @p ioff */
static void loom_rma_pair_widen(char *wide, const char *packed, size_t n, size_t psize,
                                size_t ioff, size_t ext)
{
    size_t vsize = psize - sizeof(int);

    for (size_t i = 0; i < n; ++i) {
        memset(wide + i * ext, 0, ext);
        memcpy(wide + i * ext, packed + i * psize, vsize);
        memcpy(wide + i * ext + ioff, packed + i * psize + vsize, sizeof(int));
    }
}

/* the reverse of loom_rma_pair_widen */
static void loom_rma_pair_narrow(char *packed, const char *wide, size_t n, size_t psize,
                                 size_t ioff, size_t ext)
{
    size_t vsize = psize - sizeof(int);

    for (size_t i = 0; i < n; ++i) {
        memcpy(packed + i * psize, wide + i * ext, vsize);
        memcpy(packed + i * psize + vsize, wide + i * ext + ioff, sizeof(int));
    }
}

static loom_status_t loom_rma_apply_pair(loom_op_t op, loom_datatype_t basic, char *tbase,
                                         const loom_rma_seg_t *segs, size_t nseg,
                                         const char *in, size_t psize, size_t ioff)
{
    size_t total = 0, ext = loom_datatype_size(basic), n;
    char *t = NULL, *wt = NULL, *win = NULL;
    loom_status_t st = LOOM_ERR_NO_MEMORY;

    for (size_t i = 0; i < nseg; ++i) {
        total += segs[i].len;
    }
    if (total % psize != 0) {
        return LOOM_ERR_INVALID_TYPE;
    }
    n = total / psize;
    t = malloc(total ? total : 1);
    wt = malloc(n ? n * ext : 1);
    win = malloc(n ? n * ext : 1);
    if (t != NULL && wt != NULL && win != NULL) {
        loom_rma_gather(tbase, segs, nseg, t);
        loom_rma_pair_widen(wt, t, n, psize, ioff, ext);
        loom_rma_pair_widen(win, in, n, psize, ioff, ext);
        st = loom_op_reduce(op, win, wt, n, basic);
    }
    if (st == LOOM_OK) {
        const char *src = t;

        loom_rma_pair_narrow(t, wt, n, psize, ioff, ext);
        for (size_t i = 0; i < nseg; ++i) {
            memcpy(tbase + segs[i].off, src, segs[i].len);
            src += segs[i].len;
        }
    }
    free(t);
    free(wt);
    free(win);
    return st;
}

/*
 * One 32/64-bit integer element of @p len bytes at @p t by an accumulate,
 * fetch-and-op or CAS with SUM, REPLACE or NO_OP (CAS: any): the counter
 * case of most one-sided programs, done here rather than through
 * loom_op_reduce's dispatch and the gather (about 250 instructions less
 * per fetch-and-op at the target). Wrapping unsigned arithmetic gives the
 * two's complement sum for the signed types too. 1 if done.
 */
static int loom_rma_apply_elem(loom_rma_kind_t kind, loom_op_t op, loom_datatype_t basic,
                               char *t, size_t len, const void *in, const void *cmp,
                               void *fetch)
{
    size_t esize = basic == LOOM_INT64 || basic == LOOM_UINT64   ? 8
                   : basic == LOOM_INT32 || basic == LOOM_UINT32 ? 4 : 0;
    uint64_t old, nv;

    if (esize == 0 || len != esize ||
        (kind != LOOM_RMA_K_CAS && op != LOOM_SUM && op != LOOM_REPLACE &&
         op != LOOM_RMA_OP_NO_OP)) {
        return 0;
    }
    old = loom_load_int(t, esize);
    if (kind != LOOM_RMA_K_ACC) {
        loom_store_int(fetch, old, esize);
    }
    if (kind == LOOM_RMA_K_CAS) {
        if (old == loom_load_int(cmp, esize)) {
            loom_store_int(t, loom_load_int(in, esize), esize);
        }
        return 1;
    }
    if (op != LOOM_RMA_OP_NO_OP) {
        nv = loom_load_int(in, esize);
        loom_store_int(t, op == LOOM_SUM ? old + nv : nv, esize);
    }
    return 1;
}

/*
 * An accumulate (no fetch) of 2..LOOM_RMA_ELEMS_MAX 32/64-bit integers
 * with SUM or REPLACE on one segment: element by element as above, not
 * through loom_rma_combine's bounce buffers and loom_op_reduce's dispatch
 * (238 -> about 80 instructions for two ints at the target, session 15).
 * 1 if done.
 */
enum { LOOM_RMA_ELEMS_MAX = 8 };

static int loom_rma_apply_elems(loom_op_t op, loom_datatype_t basic, char *t, size_t len,
                                const void *in)
{
    size_t esize = basic == LOOM_INT64 || basic == LOOM_UINT64   ? 8
                   : basic == LOOM_INT32 || basic == LOOM_UINT32 ? 4 : 0;

    if (esize == 0 || len % esize != 0 || len / esize > LOOM_RMA_ELEMS_MAX ||
        (op != LOOM_SUM && op != LOOM_REPLACE)) {
        return 0;
    }
    for (size_t off = 0; off < len; off += esize) {
        (void)loom_rma_apply_elem(LOOM_RMA_K_ACC, op, basic, t + off, esize,
                                  (const char *)in + off, NULL, NULL);
    }
    return 1;
}

loom_status_t loom_rma_apply(loom_rma_kind_t kind, loom_op_t op, loom_datatype_t basic,
                             char *tbase, const loom_rma_seg_t *segs, size_t nseg,
                             const void *in, const void *cmp, void *fetch)
{
    size_t psize, ioff;

    const char *src = in;
    loom_status_t st = LOOM_OK;

    if (nseg == 1 && kind >= LOOM_RMA_K_ACC && kind <= LOOM_RMA_K_CAS &&
        loom_rma_apply_elem(kind, op, basic, tbase + segs[0].off, segs[0].len, in, cmp,
                            fetch)) {
        return LOOM_OK;
    }
    if (nseg == 1 && kind == LOOM_RMA_K_ACC && loom_rma_apply_elems(op, basic, tbase + segs[0].off,
                                                                    segs[0].len, in)) {
        return LOOM_OK;
    }
    if (kind == LOOM_RMA_K_GET || kind == LOOM_RMA_K_GACC || kind == LOOM_RMA_K_FOP ||
        kind == LOOM_RMA_K_CAS) {
        loom_rma_gather(tbase, segs, nseg, fetch);
    }
    switch (kind) {
    case LOOM_RMA_K_GET:
        return LOOM_OK;
    case LOOM_RMA_K_PUT:
        for (size_t i = 0; i < nseg; ++i) {
            memcpy(tbase + segs[i].off, src, segs[i].len);
            src += segs[i].len;
        }
        return LOOM_OK;
    case LOOM_RMA_K_CAS:
        if (nseg == 1 && memcmp(fetch, cmp, segs[0].len) == 0) {
            memcpy(tbase + segs[0].off, in, segs[0].len);
        }
        return LOOM_OK;
    case LOOM_RMA_K_ACC:
    case LOOM_RMA_K_GACC:
    case LOOM_RMA_K_FOP:
        if (op != LOOM_RMA_OP_NO_OP && op != LOOM_REPLACE &&
            loom_rma_pair_sizes(basic, &psize, &ioff)) {
            return loom_rma_apply_pair(op, basic, tbase, segs, nseg, in, psize, ioff);
        }
        for (size_t i = 0; i < nseg && st == LOOM_OK; ++i) {
            st = loom_rma_combine(op, basic, tbase + segs[i].off, src, segs[i].len);
            src += segs[i].len;
        }
        return st;
    default:
        return LOOM_ERR_INVALID_ARG;
    }
}

const char *loom_rma_strerror(loom_status_t st)
{
    switch ((int)st) {
    case (int)LOOM_RMA_ERR_SYNC:     return "RMA call outside or against its epoch";
    case (int)LOOM_RMA_ERR_RANGE:    return "target memory outside the window";
    case (int)LOOM_RMA_ERR_FLAVOR:   return "wrong window flavor";
    case (int)LOOM_RMA_ERR_SHARED:   return "memory cannot be shared";
    case (int)LOOM_RMA_ERR_ATTACH:   return "memory cannot be attached or detached";
    case (int)LOOM_RMA_ERR_LOCKTYPE: return "invalid lock type";
    case (int)LOOM_RMA_ERR_DISP:     return "invalid displacement unit";
    default:                         return loom_strerror(st);
    }
}

/* ---- a target address of the window (target side) ---- */

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

char *loom_rma_target_addr(loom_rma_win_t *w, int64_t disp, const loom_rma_seg_t *segs,
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
