/*
 * barrier_dissemination.c: dissemination barrier (Hensgen, Finkel, Manber).
 *
 *   p = 5     step 0 (dist 1)   step 1 (dist 2)   step 2 (dist 4)
 *   rank r:   send r+1          send r+2          send r+4
 *             recv r-1          recv r-2          recv r-4
 *
 * After ceil(log2 p) rounds every rank has heard, directly or through
 * others, from every rank. Zero-byte messages.
 */
#include "coll_int.h"

enum phase { PH_STEP = 0, PH_WAIT, PH_DONE };

loom_status_t loom_coll_barrier_dissemination(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st;
    int dist;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_STEP:
            dist = 1 << s->step;
            if (dist >= s->size) {
                s->phase = PH_DONE;
                break;
            }
            if ((st = loom_coll_recv(s, s->inline_tmp, 0,
                                     loom_pat_mod(s->rank - dist, s->size))) != LOOM_OK ||
                (st = loom_coll_send(s, s->inline_tmp, 0,
                                     loom_pat_mod(s->rank + dist, s->size))) != LOOM_OK) {
                return st;
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
