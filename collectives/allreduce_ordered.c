/*
 * allreduce_ordered.c: deterministic allreduce (and the path of
 * non-commutative operations).
 *
 *   1. ordered reduce-scatter: rank k receives block k from every rank and
 *      folds x0 op (x1 op (... op x(p-1))) itself (reduce_scatter_ordered.c)
 *   2. allgather of the p reduced blocks, in place: a ring (s->off = 0,
 *      "ordered" and the ring's substitute) or recursive doubling (s->off =
 *      1, loom_coll_allreduce_ordered_rd: the substitute the selection
 *      gives for recursive_doubling and rabenseifner in ordered calls)
 *
 * Every element is reduced by one rank in one fixed order, so the bits do
 * not depend on the algorithm, the block split or where ranks run, and
 * they equal the shared-memory algorithm's result.
 */
#include "coll_int.h"

enum phase { PH_RS = 0, PH_RS_WAIT, PH_AG_WAIT, PH_DONE };

loom_status_t loom_coll_allreduce_ordered(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_coll_state_t args;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_RS:
            args        = *s;
            args.layout = LOOM_COLL_LAYOUT_SPLIT;
            args.rbuf   = loom_coll_at(s->rbuf, loom_coll_block_off(s, s->rank), s->esize);
            st = loom_coll_child_start(s, "allreduce/reduce_scatter",
                                       loom_coll_reduce_scatter_ordered, &args);
            if (st != LOOM_OK) {
                return st;
            }
            s->phase = PH_RS_WAIT;
            /* fall through */
        case PH_RS_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            args          = *s;
            args.layout   = LOOM_COLL_LAYOUT_SPLIT;
            args.sbuf     = loom_coll_at(s->rbuf, loom_coll_block_off(s, s->rank), s->esize);
            args.in_place = 1;
            st = loom_coll_child_start(s, "allreduce/allgather",
                                       s->off ? loom_coll_allgather_recursive_doubling
                                              : loom_coll_allgather_ring, &args);
            if (st != LOOM_OK) {
                return st;
            }
            s->phase = PH_AG_WAIT;
            /* fall through */
        case PH_AG_WAIT:
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

loom_status_t loom_coll_allreduce_ordered_rd(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);

    s->off = 1;
    return loom_coll_allreduce_ordered(req);
}
