/*
 * allgather_recursive_doubling.c: recursive-doubling allgather with the
 * non-power-of-two pre/post step.
 *
 *   p = 6 (pof2 = 4, rem = 2; newrank n carries ranks [first(n), first(n+1))):
 *     pre:   0 -> 1, 2 -> 3        (extras hand their block over)
 *     d = 1: n <-> n^1 exchange the blocks of ranks they carry
 *     d = 2: n <-> n^2 exchange ranges twice as long
 *     post:  1 -> 0, 3 -> 2        (whole result to the extras)
 *
 * The ranges are contiguous in rank order, so every exchange is one
 * message straight into the result: log2(p) (+2) steps.
 *
 * The own block is not copied into the result before the first exchange:
 * that exchange sends straight from sendbuf and the copy runs while the
 * peer reads it (a copy first, then a send from the fresh copy, cost 2-4x
 * at np 2 on shm; docs/collectives.md). An extra rank skips the copy: its
 * buddy sends the whole result back, its own block included.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_PRE_WAIT, PH_STEP, PH_STEP_WAIT, PH_POST_WAIT, PH_DONE };

/* bytes of the blocks of ranks [r0, r1), offset in *off_p */
static size_t agrd_span(const loom_coll_state_t *s, int r0, int r1, size_t *off_p)
{
    size_t lo = r0 < s->size ? loom_coll_block_off(s, r0) : 0;
    size_t hi = r1 < s->size ? loom_coll_block_off(s, r1)
                             : loom_coll_block_off(s, s->size - 1) + loom_coll_block_len(s, s->size - 1);
    *off_p = lo * s->esize;
    return (hi - lo) * s->esize;
}

/* own block into the result, unless in place */
static void agrd_copy_own(loom_coll_state_t *s)
{
    void *own = loom_coll_at(s->rbuf, loom_coll_block_off(s, s->rank), s->esize);

    if (s->sbuf != own) {
        memcpy(own, s->sbuf, loom_coll_block_len(s, s->rank) * s->esize);
    }
}

loom_status_t loom_coll_allgather_recursive_doubling(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t total, off, len, roff, rlen, z;
    loom_pat_rd_t rd;
    loom_status_t st;
    int d, lo, plo, first;

    loom_pat_rd_init(&rd, s->rank, s->size);
    total = agrd_span(s, 0, s->size, &z);
    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if (rd.newrank < 0) {   /* the whole result comes back, own block included */
                len = agrd_span(s, s->rank, s->rank + 1, &off);
                if ((st = loom_coll_send(s, s->sbuf, len, rd.buddy)) != LOOM_OK ||
                    (st = loom_coll_recv(s, s->rbuf, total, rd.buddy)) != LOOM_OK) {
                    return st;
                }
                s->phase = PH_POST_WAIT;
                break;
            }
            if (rd.buddy >= 0) {   /* else the copy overlaps the first exchange */
                agrd_copy_own(s);
                len = agrd_span(s, rd.buddy, rd.buddy + 1, &off);
                if ((st = loom_coll_recv(s, (char *)s->rbuf + off, len, rd.buddy)) != LOOM_OK) {
                    return st;
                }
            }
            s->phase = PH_PRE_WAIT;
            /* fall through */
        case PH_PRE_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->step  = 1;
            s->phase = PH_STEP;
            /* fall through */
        case PH_STEP:
            d = s->step;
            if (d >= rd.pof2) {
                if (rd.buddy >= 0 && (st = loom_coll_send(s, s->rbuf, total, rd.buddy)) != LOOM_OK) {
                    return st;
                }
                s->phase = PH_POST_WAIT;
                break;
            }
            lo  = rd.newrank & ~(d - 1);
            plo = (rd.newrank ^ d) & ~(d - 1);
            len  = agrd_span(s, loom_pat_rd_first(&rd, lo), loom_pat_rd_first(&rd, lo + d), &off);
            rlen = agrd_span(s, loom_pat_rd_first(&rd, plo), loom_pat_rd_first(&rd, plo + d), &roff);
            s->peer = loom_pat_rd_real(&rd, rd.newrank ^ d);
            first = d == 1 && rd.buddy < 0;   /* the range is this rank's block alone */
            if ((st = loom_coll_recv(s, (char *)s->rbuf + roff, rlen, s->peer)) != LOOM_OK ||
                (st = loom_coll_send(s, first ? s->sbuf : (char *)s->rbuf + off, len,
                                     s->peer)) != LOOM_OK) {
                return st;
            }
            if (first) {
                agrd_copy_own(s);
            }
            s->phase = PH_STEP_WAIT;
            /* fall through */
        case PH_STEP_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->step *= 2;
            s->phase = PH_STEP;
            break;
        case PH_POST_WAIT:
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
