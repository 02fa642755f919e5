/*
 * reduce_rabenseifner.c: reduce for large vectors as a recursive-halving
 * reduce-scatter followed by a binomial gather of the blocks to the root.
 *
 *   pof2 = 4, root newrank 0 (after the non-power-of-two pre-step):
 *     halving  d=2, d=1 as in allreduce_rabenseifner.c -> newrank n owns block n
 *     gather   d=1: 1 -> 0 (block 1), 3 -> 2 (block 3)
 *              d=2: 2 -> 0 (blocks [2,4))
 *     (relative to the root: newrank n ^ root_newrank)
 *   an extra root (even rank < 2*rem) gets the result from its buddy.
 *
 * Each rank sends about n bytes in all, against n log2(p) for the tree.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_PRE_WAIT, PH_HALVE, PH_HALVE_WAIT, PH_GATHER,
             PH_GATHER_WAIT, PH_FINAL, PH_FINAL_WAIT, PH_DONE };

static size_t rr_range(const loom_coll_state_t *s, int pof2, int b, int d, size_t *n_p)
{
    size_t lo = loom_pat_block_off(s->count, pof2, b);
    *n_p = loom_pat_block_off(s->count, pof2, b + d) - lo;
    return lo;
}

/* newrank that collects the result: the root's, or its buddy's for an extra root */
static int rr_newroot(const loom_coll_state_t *s)
{
    loom_pat_rd_t rr;
    loom_pat_rd_init(&rr, s->root, s->size);
    return rr.newrank >= 0 ? rr.newrank : s->root / 2;
}

static loom_status_t rr_halve_post(loom_coll_state_t *s, const loom_pat_rd_t *rd, char *acc)
{
    int keep, send, peer = loom_pat_rd_real(rd, rd->newrank ^ s->step);
    size_t so, sn, kn;
    loom_status_t st;

    loom_pat_halving_step(rd->newrank, s->step, &keep, &send);
    so = rr_range(s, rd->pof2, send, s->step, &sn);
    (void)rr_range(s, rd->pof2, keep, s->step, &kn);
    if ((st = loom_coll_recv(s, acc + s->count * s->esize, kn * s->esize, peer)) != LOOM_OK) {
        return st;
    }
    return loom_coll_send(s, acc + so * s->esize, sn * s->esize, peer);
}

/* one gather step; returns 1 in *sent_p if this rank handed its blocks on */
static loom_status_t rr_gather_post(loom_coll_state_t *s, const loom_pat_rd_t *rd,
                                    char *acc, int *sent_p)
{
    int d = s->step, vn = rd->newrank ^ rr_newroot(s), peer = rd->newrank ^ d;
    size_t off, n;

    *sent_p = 0;
    if ((vn & (2 * d - 1)) == d) {
        off = rr_range(s, rd->pof2, rd->newrank & ~(d - 1), d, &n);
        *sent_p = 1;
        return loom_coll_send(s, acc + off * s->esize, n * s->esize, loom_pat_rd_real(rd, peer));
    }
    off = rr_range(s, rd->pof2, peer & ~(d - 1), d, &n);
    return loom_coll_recv(s, acc + off * s->esize, n * s->esize, loom_pat_rd_real(rd, peer));
}

loom_status_t loom_coll_reduce_rabenseifner(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t bytes = s->count * s->esize, kn, ko;
    char *acc = s->tmp, *in;
    int keep, send, sent;
    loom_pat_rd_t rd;
    loom_status_t st;

    loom_pat_rd_init(&rd, s->rank, s->size);
    for (;;) {
        acc = s->tmp;
        in  = acc != NULL ? acc + bytes : NULL;
        switch ((enum phase)s->phase) {
        case PH_START:
            if (rd.newrank < 0) {       /* extra: hand over; an extra root waits */
                if ((st = loom_coll_send(s, s->sbuf, bytes, rd.buddy)) != LOOM_OK ||
                    (s->rank == s->root &&
                     (st = loom_coll_recv(s, s->rbuf, bytes, rd.buddy)) != LOOM_OK)) {
                    return st;
                }
                s->phase = PH_FINAL_WAIT;
                break;
            }
            if ((st = loom_coll_tmp_alloc(s, 2 * bytes)) != LOOM_OK) {
                return st;
            }
            acc = s->tmp;
            in  = acc + bytes;
            memcpy(acc, s->sbuf, bytes);
            if (rd.buddy >= 0 && (st = loom_coll_recv(s, in, bytes, rd.buddy)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_PRE_WAIT;
            /* fall through */
        case PH_PRE_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            if (rd.buddy >= 0) {
                loom_coll_reduce(s, in, acc, s->count);
            }
            s->step  = rd.pof2 / 2;
            s->phase = PH_HALVE;
            /* fall through */
        case PH_HALVE:
            if (s->step < 1) {
                s->step  = 1;
                s->phase = PH_GATHER;
                break;
            }
            if ((st = rr_halve_post(s, &rd, acc)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_HALVE_WAIT;
            /* fall through */
        case PH_HALVE_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            loom_pat_halving_step(rd.newrank, s->step, &keep, &send);
            ko = rr_range(s, rd.pof2, keep, s->step, &kn);
            loom_coll_reduce(s, in, acc + ko * s->esize, kn);
            s->step /= 2;
            s->phase = PH_HALVE;
            break;
        case PH_GATHER:
            if (s->step >= rd.pof2) {
                s->phase = PH_FINAL;
                break;
            }
            if ((st = rr_gather_post(s, &rd, acc, &sent)) != LOOM_OK) {
                return st;
            }
            s->phase = sent ? PH_FINAL_WAIT : PH_GATHER_WAIT;
            break;
        case PH_GATHER_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->step *= 2;
            s->phase = PH_GATHER;
            break;
        case PH_FINAL:                  /* the collecting newrank holds everything */
            if (s->rank == s->root) {
                memcpy(s->rbuf, acc, bytes);
            } else if ((st = loom_coll_send(s, acc, bytes, s->root)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_FINAL_WAIT;
            /* fall through */
        case PH_FINAL_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_DONE;
            /* fall through */
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
