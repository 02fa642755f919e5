/*
 * reduce_ordered.c: deterministic reduce.
 *
 *   1. ordered reduce-scatter (reduce_scatter_ordered.c): rank k folds
 *      block k of every rank in rank order
 *   2. every rank sends its block to the root, which receives each block
 *      straight into place
 *
 * Same bits as the ordered allreduce and the shared-memory allreduce.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_RS_WAIT, PH_GATHER, PH_GATHER_WAIT, PH_DONE };

loom_status_t loom_coll_reduce_ordered(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_coll_state_t args;
    int is_root = s->rank == s->root;
    size_t mine = loom_pat_block_len(s->count, s->size, s->rank) * s->esize;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            s->layout = LOOM_COLL_LAYOUT_SPLIT;
            if (!is_root && (st = loom_coll_tmp_alloc(s, mine)) != LOOM_OK) {
                return st;
            }
            args      = *s;
            args.rbuf = is_root ? loom_coll_at(s->rbuf, loom_coll_block_off(s, s->rank), s->esize)
                                : s->tmp;
            st = loom_coll_child_start(s, "reduce/reduce_scatter",
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
            if (!is_root) {
                if ((st = loom_coll_send(s, s->tmp, mine, s->root)) != LOOM_OK) {
                    return st;
                }
                s->phase = PH_GATHER_WAIT;
                s->step  = s->size;
                break;
            }
            s->step  = 0;
            s->phase = PH_GATHER;
            /* fall through */
        case PH_GATHER:            /* root: blocks of every rank, in batches */
            if (s->step >= s->size) {
                s->phase = PH_DONE;
                break;
            }
            for (; s->step < s->size && s->nreq < LOOM_COLL_MAX_REQS; ++s->step) {
                if (s->step == s->root) {
                    continue;
                }
                st = loom_coll_recv(s, loom_coll_at(s->rbuf, loom_coll_block_off(s, s->step), s->esize),
                                    loom_coll_block_len(s, s->step) * s->esize, s->step);
                if (st != LOOM_OK) {
                    return st;
                }
            }
            s->phase = PH_GATHER_WAIT;
            /* fall through */
        case PH_GATHER_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_GATHER;
            break;
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
