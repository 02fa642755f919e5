/*
 * allreduce_recursive_doubling.c: recursive doubling with the
 * non-power-of-two pre/post step (coll_rd_prepost.c).
 *
 *   p = 6 (pof2 = 4, rem = 2):
 *     pre:   0 -> 1, 2 -> 3           (extras hand their vector over)
 *     d = 1: newranks 0<->1, 2<->3    (exchange whole vectors, fold)
 *     d = 2: newranks 0<->2, 1<->3
 *     post:  1 -> 0, 3 -> 2           (extras get the result)
 *
 * log2(p) (+2) steps of n bytes: the latency algorithm for small vectors.
 * Both ends of an exchange compute a op b and b op a, which are the same
 * bits for the (commutative) predefined operations. Calls that must
 * reduce in rank order get the ordered allreduce from the selection (with
 * a recursive-doubling allgather: this entry's .ordered).
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_PRE_WAIT, PH_STEP, PH_STEP_WAIT, PH_POST, PH_POST_WAIT,
             PH_DONE };

loom_status_t loom_coll_allreduce_recursive_doubling(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t bytes = s->count * s->esize;
    loom_pat_rd_t rd;
    loom_status_t st;
    int d;

    loom_pat_rd_init(&rd, s->rank, s->size);
    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = loom_coll_rd_pre_start(s, &rd)) != LOOM_OK) {
                return st;
            }
            if (rd.newrank < 0) {        /* extra: wait for the result */
                s->phase = PH_POST_WAIT;
                break;
            }
            s->phase = PH_PRE_WAIT;
            /* fall through */
        case PH_PRE_WAIT:
            if ((st = loom_coll_rd_pre_fold(s, &rd)) != LOOM_OK) {
                return st;
            }
            s->step  = 1;
            s->phase = PH_STEP;
            /* fall through */
        case PH_STEP:
            d = s->step;
            if (d >= rd.pof2) {
                s->phase = PH_POST;
                break;
            }
            s->peer = loom_pat_rd_real(&rd, rd.newrank ^ d);
            if ((st = loom_coll_recv(s, s->tmp, bytes, s->peer)) != LOOM_OK ||
                (st = loom_coll_send(s, s->rbuf, bytes, s->peer)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_STEP_WAIT;
            /* fall through */
        case PH_STEP_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            loom_coll_reduce(s, s->tmp, s->rbuf, s->count);
            s->step *= 2;
            s->phase = PH_STEP;
            break;
        case PH_POST:
            if ((st = loom_coll_rd_post(s, &rd)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_POST_WAIT;
            /* fall through */
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
