/*
 * scan_recursive_doubling.c: scan and exscan (s->kind) in ceil(log2 p)
 * exchanges.
 *
 *   step k (mask m = 2^k), rank r, partner q = r ^ m (skipped if q >= p):
 *     exchange partials: each sends the reduction of its half of the group
 *     of 2m ranks, [r & ~(m-1), +m)
 *     q < r: the partner's half is lower:  result  = in op result
 *                                          partial = in op partial
 *     q > r: the partner's half is higher: partial = partial op in
 *
 *   p = 4:  m=1: 0<->1 2<->3      m=2: 0<->2 1<->3
 *           rank 3: result x3 -> (x2 op x3) -> (x0 op x1) op (x2 op x3)
 *
 * The lower range is always the left operand, so non-commutative
 * operations are right. A rank whose partner is missing (q >= p) holds an
 * incomplete partial from then on, but never sends again: every later
 * partner above it is missing too, and the ones below need only ranks
 * below them. Exscan starts with no result (rank 0 never gets one and its
 * recvbuf is left untouched) and takes the first lower partial as it is.
 *
 * Deterministic mode (s->ordered: LOOM_DETERMINISTIC=1 and an operation
 * whose bracketing changes the bits, floating point or user-defined): the
 * same exchanges carry the inputs themselves, placed by rank in p slots
 * (a recursive-doubling allgather of the ranges), and every rank folds
 * ((x0 op x1) op ...) op x(r) at the end: the chain's bracketing, bit for
 * bit, for p x count elements of temporary memory.
 */
#include "coll_int.h"
#include "patterns/pat_scan.h"

enum phase { PH_START = 0, PH_STEP, PH_WAIT, PH_DONE };

/* Deterministic mode: post the exchange of the ranges' inputs with s->peer. */
static loom_status_t scan_rd_post_inputs(loom_coll_state_t *s, int m, size_t bytes)
{
    int lo, hi, plo, phi;
    loom_status_t st;

    loom_pat_scan_half(s->rank, m, s->size, &lo, &hi);
    loom_pat_scan_half(s->peer, m, s->size, &plo, &phi);
    if ((st = loom_coll_recv(s, (char *)s->tmp + (size_t)plo * bytes,
                             (size_t)(phi - plo) * bytes, s->peer)) != LOOM_OK) {
        return st;
    }
    return loom_coll_send(s, (char *)s->tmp + (size_t)lo * bytes,
                          (size_t)(hi - lo) * bytes, s->peer);
}

/* Deterministic mode, the end: left fold of slots 0..last into recvbuf. */
static void scan_rd_fold_inputs(loom_coll_state_t *s, size_t bytes)
{
    int last = s->kind == LOOM_COLL_EXSCAN ? s->rank - 1 : s->rank;
    char *slot = s->tmp;

    if (last < 0) {
        return;                       /* exscan at rank 0: undefined, untouched */
    }
    for (int k = 1; k <= last; ++k) { /* slot k = P(k-1) op x(k) */
        loom_coll_reduce(s, slot + (size_t)(k - 1) * bytes, slot + (size_t)k * bytes,
                         s->count);
    }
    memcpy(s->rbuf, slot + (size_t)last * bytes, bytes);
}

/* After an exchange: fold the partner's partial (tmp half 1 - s->off) in. */
static void scan_rd_combine(loom_coll_state_t *s, size_t bytes)
{
    char *partial = (char *)s->tmp + s->off * bytes;
    char *in = (char *)s->tmp + (1 - s->off) * bytes;

    if (s->peer < s->rank) {
        if (s->kind == LOOM_COLL_EXSCAN && !s->len) {
            memcpy(s->rbuf, in, bytes);   /* the first lower range */
            s->len = 1;
        } else {
            loom_coll_reduce(s, in, s->rbuf, s->count);
        }
        loom_coll_reduce(s, in, partial, s->count);
    } else {
        loom_coll_reduce(s, partial, in, s->count);   /* partial op in, into in */
        s->off = 1 - s->off;
    }
}

loom_status_t loom_coll_scan_recursive_doubling(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, m;
    size_t bytes = s->count * s->esize;
    char *partial;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = loom_coll_tmp_alloc(s, (s->ordered ? (size_t)p : 2) * bytes)) !=
                LOOM_OK) {
                return st;
            }
            /* deterministic: slot r = x(r); else tmp half 0 = the partial */
            memcpy((char *)s->tmp + (s->ordered ? (size_t)r * bytes : 0), s->sbuf, bytes);
            if (!s->ordered && s->kind == LOOM_COLL_SCAN && s->rbuf != s->sbuf) {
                memcpy(s->rbuf, s->sbuf, bytes);
            }
            s->off   = 0;     /* which tmp half holds the partial */
            s->len   = 0;     /* exscan: a result exists */
            s->step  = 1;     /* the mask */
            s->phase = PH_STEP;
            /* fall through */
        case PH_STEP:
            m = loom_pat_scan_next_mask(r, s->step, p);
            if (m >= p) {
                s->phase = PH_DONE;
                break;
            }
            s->step = m;
            s->peer = r ^ m;
            partial = (char *)s->tmp + s->off * bytes;
            st = s->ordered ? scan_rd_post_inputs(s, m, bytes)
                            : loom_coll_recv(s, (char *)s->tmp + (1 - s->off) * bytes,
                                             bytes, s->peer);
            if (st != LOOM_OK ||
                (!s->ordered && (st = loom_coll_send(s, partial, bytes, s->peer)) != LOOM_OK)) {
                return st;
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            if (!s->ordered) {
                scan_rd_combine(s, bytes);
            }
            s->step <<= 1;
            s->phase = PH_STEP;
            break;
        case PH_DONE:
            if (s->ordered) {
                scan_rd_fold_inputs(s, bytes);
            }
            return LOOM_OK;
        }
    }
}
