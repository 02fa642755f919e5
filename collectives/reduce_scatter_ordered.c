/*
 * reduce_scatter_ordered.c: reduce-scatter in a fixed reduction order.
 *
 *   every rank r:  send block k of its input to rank k     (p-1 sends)
 *                  receive block r of every rank k         (p-1 receives)
 *                  out = x0 op (x1 op (... op x(p-1)))     (right fold)
 *
 * The owner of a block holds all p contributions before reducing, so the
 * result is independent of message timing, algorithm and block split: this
 * is the reduction half of deterministic mode (and of non-commutative user
 * operations). Cost: p-1 messages per rank at once and a temporary of p
 * blocks, versus log2(p) rounds for recursive halving.
 *
 * Used as "ordered" for reduce_scatter_block and as the first half of the
 * ordered allreduce and reduce. Blocks follow s->layout; the own block's
 * result goes to s->rbuf.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_POST, PH_WAIT, PH_FOLD };

#define PAIRS (LOOM_COLL_MAX_REQS / 2)

loom_status_t loom_coll_reduce_scatter_ordered(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, to, from;
    size_t mine = loom_coll_block_len(s, r) * s->esize;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:  /* tmp slot k = rank k's contribution to my block */
            if ((st = loom_coll_tmp_alloc(s, mine * (size_t)p)) != LOOM_OK) {
                return st;
            }
            memcpy((char *)s->tmp + (size_t)r * mine,
                   loom_coll_at(s->sbuf, loom_coll_block_off(s, r), s->esize), mine);
            s->step  = 1;
            s->phase = PH_POST;
            /* fall through */
        case PH_POST:
            if (s->step >= p) {
                s->phase = PH_FOLD;
                break;
            }
            for (int i = 0; i < PAIRS && s->step < p; ++i, ++s->step) {
                to   = loom_pat_mod(r + s->step, p);
                from = loom_pat_mod(r - s->step, p);
                if ((st = loom_coll_recv(s, (char *)s->tmp + (size_t)from * mine, mine,
                                         from)) != LOOM_OK ||
                    (st = loom_coll_send(s, loom_coll_at(s->sbuf, loom_coll_block_off(s, to),
                                                         s->esize),
                                         loom_coll_block_len(s, to) * s->esize, to)) != LOOM_OK) {
                    return st;
                }
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_POST;
            break;
        case PH_FOLD:
            memmove(s->rbuf, (char *)s->tmp + (size_t)(p - 1) * mine, mine);
            for (int k = p - 2; k >= 0; --k) {
                loom_coll_reduce(s, (char *)s->tmp + (size_t)k * mine, s->rbuf,
                                 loom_coll_block_len(s, r));
            }
            return LOOM_OK;
        }
    }
}
