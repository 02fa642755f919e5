/*
 * allreduce_ring.c: ring reduce-scatter followed by ring allgather.
 *
 *   p = 4, vector in 4 blocks, rank r:
 *   reduce-scatter, step s = 0..p-2: send partial block (r-s-1) to r+1,
 *       receive block (r-s-2) from r-1 and fold it in   -> r owns block r
 *   allgather, step s = 0..p-2: send block (r-s) to r+1, receive block
 *       (r-s-1) from r-1 straight into the result
 *
 * 2(p-1) steps of n/p bytes: bandwidth-optimal, latency linear in p; for
 * the largest messages. Commutative reductions only: for calls that must
 * reduce in rank order the selection gives "ordered" instead (its entry's
 * .ordered), whose allgather is this ring.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_RS, PH_RS_WAIT, PH_AG, PH_AG_WAIT, PH_DONE };

static loom_status_t ring_post(loom_coll_state_t *s, int sb, int rb, void *rdst)
{
    int p = s->size;
    loom_status_t st;

    st = loom_coll_recv(s, rdst, loom_coll_block_len(s, rb) * s->esize,
                        loom_pat_mod(s->rank - 1, p));
    if (st != LOOM_OK) {
        return st;
    }
    return loom_coll_send(s, loom_coll_at(s->rbuf, loom_coll_block_off(s, sb), s->esize),
                          loom_coll_block_len(s, sb) * s->esize, loom_pat_mod(s->rank + 1, p));
}

loom_status_t loom_coll_allreduce_ring(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, rb;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = loom_coll_tmp_alloc(s, loom_coll_block_len(s, 0) * s->esize)) != LOOM_OK) {
                return st;
            }
            if (s->sbuf != s->rbuf) {
                memcpy(s->rbuf, s->sbuf, s->count * s->esize);
            }
            s->phase = PH_RS;
            /* fall through */
        case PH_RS:
            if (s->step >= p - 1) {
                s->step  = 0;
                s->phase = PH_AG;
                break;
            }
            st = ring_post(s, loom_pat_ring_rs_send_block(r, s->step, p),
                           loom_pat_ring_rs_recv_block(r, s->step, p), s->tmp);
            if (st != LOOM_OK) {
                return st;
            }
            s->phase = PH_RS_WAIT;
            /* fall through */
        case PH_RS_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            rb = loom_pat_ring_rs_recv_block(r, s->step, p);
            loom_coll_reduce(s, s->tmp, loom_coll_at(s->rbuf, loom_coll_block_off(s, rb), s->esize),
                             loom_coll_block_len(s, rb));
            ++s->step;
            s->phase = PH_RS;
            break;
        case PH_AG:
            if (s->step >= p - 1) {
                s->phase = PH_DONE;
                break;
            }
            rb = loom_pat_ring_ag_recv_block(r, s->step, p);
            st = ring_post(s, loom_pat_ring_ag_send_block(r, s->step, p), rb,
                           loom_coll_at(s->rbuf, loom_coll_block_off(s, rb), s->esize));
            if (st != LOOM_OK) {
                return st;
            }
            s->phase = PH_AG_WAIT;
            /* fall through */
        case PH_AG_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            ++s->step;
            s->phase = PH_AG;
            break;
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
