/*
 * reduce_scatter_ring.c: reduce_scatter_block around a ring.
 *
 *   p = 4, rank r, step s = 0..p-2:
 *     send partial block (r-s-1) to r+1; receive block (r-s-2) from r-1
 *     and fold it into the local copy          -> r ends owning block r
 *
 * p-1 steps of n/p bytes. Works on a copy of the input (the caller's
 * buffer stays unchanged, and in-place calls overwrite block 0 only at
 * the end).
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_STEP, PH_WAIT, PH_DONE };

loom_status_t loom_coll_reduce_scatter_ring(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, sb, rb;
    size_t blk = s->count * s->esize;
    char *acc = s->tmp, *in = acc != NULL ? acc + (size_t)p * blk : NULL;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            s->layout = LOOM_COLL_LAYOUT_UNIFORM;
            if ((st = loom_coll_tmp_alloc(s, (size_t)(p + 1) * blk)) != LOOM_OK) {
                return st;
            }
            acc = s->tmp;
            in  = acc + (size_t)p * blk;
            memcpy(acc, s->sbuf, (size_t)p * blk);
            s->phase = PH_STEP;
            /* fall through */
        case PH_STEP:
            if (s->step >= p - 1) {
                s->phase = PH_DONE;
                break;
            }
            sb = loom_pat_ring_rs_send_block(r, s->step, p);
            if ((st = loom_coll_recv(s, in, blk, loom_pat_mod(r - 1, p))) != LOOM_OK ||
                (st = loom_coll_send(s, acc + (size_t)sb * blk, blk,
                                     loom_pat_mod(r + 1, p))) != LOOM_OK) {
                return st;
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            rb = loom_pat_ring_rs_recv_block(r, s->step, p);
            loom_coll_reduce(s, in, acc + (size_t)rb * blk, s->count);
            ++s->step;
            s->phase = PH_STEP;
            break;
        case PH_DONE:
            memcpy(s->rbuf, acc + (size_t)r * blk, blk);
            return LOOM_OK;
        }
    }
}
