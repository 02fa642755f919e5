/*
 * reduce_scatterv_pairwise.c: reduce_scatter with per-rank counts
 * (MPI_Reduce_scatter), pairwise exchange, in rank order.
 *
 *   step s = 1..p-1 (LOOM_COLL_MAX_REQS / 2 steps in flight), rank r:
 *     send block r+s of the input to rank r+s
 *     receive rank r-s's block r into slot r-s
 *   then  out = x0 op (x1 op (... op x(p-1)))   (right fold of the slots)
 *
 *   p = 3:   s=1: 0->1 1->2 2->0     s=2: 0->2 1->0 2->1
 *
 * Every block is a whole number of the caller's elements (counts[i]), and
 * the owner folds all p contributions in rank order once they are in: the
 * result is independent of timing and equal, bit for bit, to the ordered
 * reduce_scatter_block, reduce and allreduce (the right fold of
 * coll_int.h). So this algorithm serves deterministic mode and
 * non-commutative operations as well. Temporary memory: p slots of the
 * own block (the size of one rank's input on average).
 *
 * The blocks are consecutive in the input; their offsets (prefix sums of
 * the counts) are computed once into the front of the temporary buffer
 * (loom_coll_rsv_setup, shared with the ring).
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_POST, PH_WAIT, PH_FOLD };

#define PAIRS (LOOM_COLL_MAX_REQS / 2)

loom_status_t loom_coll_rsv_setup(loom_coll_state_t *s, size_t extra, char **work_p)
{
    size_t head = LOOM_ALIGN_UP((size_t)s->size * sizeof(size_t), 16), off = 0;
    size_t *displs;
    loom_status_t st = loom_coll_tmp_alloc(s, head + extra);

    if (st != LOOM_OK) {
        return st;
    }
    displs = s->tmp;
    for (int i = 0; i < s->size; ++i) {
        displs[i] = off;
        off += s->counts[i];
    }
    s->displs = displs;
    s->layout = LOOM_COLL_LAYOUT_VECTOR;
    *work_p   = (char *)s->tmp + head;
    return LOOM_OK;
}

/* Slot k of the work area: rank k's contribution to my block. */
static char *rsv_slot(const loom_coll_state_t *s, int k)
{
    size_t head = LOOM_ALIGN_UP((size_t)s->size * sizeof(size_t), 16);

    return (char *)s->tmp + head + (size_t)k * s->counts[s->rank] * s->esize;
}

static loom_status_t rsv_pairwise_post(loom_coll_state_t *s)
{
    int p = s->size, r = s->rank;
    size_t mine = s->counts[r] * s->esize;
    loom_status_t st;

    for (int i = 0; i < PAIRS && s->step < p; ++i, ++s->step) {
        int to = loom_pat_mod(r + s->step, p), from = loom_pat_mod(r - s->step, p);

        if ((st = loom_coll_recv(s, rsv_slot(s, from), mine, from)) != LOOM_OK ||
            (st = loom_coll_send(s, loom_coll_at(s->sbuf, s->displs[to], s->esize),
                                 s->counts[to] * s->esize, to)) != LOOM_OK) {
            return st;
        }
    }
    return LOOM_OK;
}

loom_status_t loom_coll_reduce_scatterv_pairwise(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank;
    size_t n = s->counts[r], mine = n * s->esize;
    char *work;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = loom_coll_rsv_setup(s, (size_t)p * mine, &work)) != LOOM_OK) {
                return st;
            }
            memcpy(rsv_slot(s, r), loom_coll_at(s->sbuf, s->displs[r], s->esize), mine);
            s->step  = 1;
            s->phase = PH_POST;
            /* fall through */
        case PH_POST:
            if (s->step >= p) {
                s->phase = PH_FOLD;
                break;
            }
            if ((st = rsv_pairwise_post(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_POST;
            break;
        case PH_FOLD:   /* in place, the input is read for the last time above */
            memcpy(s->rbuf, rsv_slot(s, p - 1), mine);
            for (int k = p - 2; k >= 0; --k) {
                loom_coll_reduce(s, rsv_slot(s, k), s->rbuf, n);
            }
            return LOOM_OK;
        }
    }
}
