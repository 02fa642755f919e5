/*
 * reduce_scatterv_ring.c: reduce_scatter with per-rank counts around a ring.
 *
 *   p = 4, rank r, step s = 0..p-2:
 *     send partial block (r-s-1) to r+1; receive block (r-s-2) from r-1
 *     and fold it into the local copy          -> r ends owning block r
 *
 *   block b travels b+1 -> b+2 -> ... -> b, each hop folding its input in
 *
 * p-1 steps, each moving one whole block (counts[b] elements; blocks of 0
 * elements are sent empty, to keep the steps in lock step). Works on a copy
 * of the input, so an in-place call overwrites its recvbuf only at the end.
 *
 * The fold of block b starts at rank b+1, a rotation of rank order: right
 * for commutative operations only. Calls that must reduce in rank order
 * (LOOM_DETERMINISTIC=1, non-commutative operations) get the pairwise
 * algorithm from the selection instead (this entry's .ordered), which
 * folds in rank order (as the block ring does).
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_STEP, PH_WAIT, PH_DONE };

/* The work area: the copy of the whole input, then the receive buffer. */
static char *rsv_ring_acc(const loom_coll_state_t *s)
{
    return (char *)s->tmp + LOOM_ALIGN_UP((size_t)s->size * sizeof(size_t), 16);
}

loom_status_t loom_coll_reduce_scatterv_ring(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, sb, rb;
    size_t total = s->count, big = 0;
    char *acc, *in;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            for (int i = 0; i < p; ++i) {
                big = LOOM_MAX(big, s->counts[i]);
            }
            if ((st = loom_coll_rsv_setup(s, (total + big) * s->esize, &acc)) != LOOM_OK) {
                return st;
            }
            memcpy(acc, s->sbuf, total * s->esize);
            s->off   = total;          /* where the receive buffer starts */
            s->phase = PH_STEP;
            /* fall through */
        case PH_STEP:
            if (s->step >= p - 1) {
                s->phase = PH_DONE;
                break;
            }
            acc = rsv_ring_acc(s);
            in  = loom_coll_at(acc, s->off, s->esize);
            sb  = loom_pat_ring_rs_send_block(r, s->step, p);
            rb  = loom_pat_ring_rs_recv_block(r, s->step, p);
            if ((st = loom_coll_recv(s, in, s->counts[rb] * s->esize,
                                     loom_pat_mod(r - 1, p))) != LOOM_OK ||
                (st = loom_coll_send(s, loom_coll_at(acc, s->displs[sb], s->esize),
                                     s->counts[sb] * s->esize,
                                     loom_pat_mod(r + 1, p))) != LOOM_OK) {
                return st;
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            acc = rsv_ring_acc(s);
            rb  = loom_pat_ring_rs_recv_block(r, s->step, p);
            loom_coll_reduce(s, loom_coll_at(acc, s->off, s->esize),
                             loom_coll_at(acc, s->displs[rb], s->esize), s->counts[rb]);
            ++s->step;
            s->phase = PH_STEP;
            break;
        case PH_DONE:
            acc = rsv_ring_acc(s);
            memcpy(s->rbuf, loom_coll_at(acc, s->displs[r], s->esize),
                   s->counts[r] * s->esize);
            return LOOM_OK;
        }
    }
}
