/*
 * allgather_ring.c: ring allgather (also allgatherv, and the second half of
 * the ring and ordered allreduces).
 *
 *   p = 4, step s = 0..p-2, rank r:
 *     send block (r - s) to r+1, receive block (r - s - 1) from r-1
 *
 *   r=0: [0 . . .] -> [0 . . 3] -> [0 . 2 3] -> [0 1 2 3]
 *
 * p-1 steps, each rank sends n(p-1)/p bytes: large blocks. Blocks follow
 * s->layout, so per-rank counts work unchanged.
 *
 * Step 0 sends the own block straight from sendbuf and copies it into the
 * result while that message moves (docs/collectives.md, "allgather at np 2").
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_STEP, PH_WAIT, PH_DONE };

loom_status_t loom_coll_allgather_ring(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, sb, rb;
    void *own;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            s->phase = PH_STEP;
            /* fall through */
        case PH_STEP:
            if (s->step >= p - 1) {
                s->phase = PH_DONE;
                break;
            }
            sb = loom_pat_ring_ag_send_block(r, s->step, p);
            rb = loom_pat_ring_ag_recv_block(r, s->step, p);
            own = loom_coll_at(s->rbuf, loom_coll_block_off(s, sb), s->esize);
            if ((st = loom_coll_recv(s, loom_coll_at(s->rbuf, loom_coll_block_off(s, rb), s->esize),
                                     loom_coll_block_len(s, rb) * s->esize,
                                     loom_pat_mod(r - 1, p))) != LOOM_OK ||
                (st = loom_coll_send(s, s->step == 0 ? s->sbuf : own,
                                     loom_coll_block_len(s, sb) * s->esize,
                                     loom_pat_mod(r + 1, p))) != LOOM_OK) {
                return st;
            }
            if (s->step == 0 && s->sbuf != own) {   /* own block: while the first block moves */
                memcpy(own, s->sbuf, loom_coll_block_len(s, r) * s->esize);
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            ++s->step;
            s->phase = PH_STEP;
            break;
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
