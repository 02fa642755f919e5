/*
 * barrier_shm.c: barrier through the per-communicator shared segment.
 *
 *   rank r:  sig, arrived[r] = n  (release)
 *            wait until arrived[q] >= n for every q (acquire); sigs agree
 *
 * One cache-line write per rank and p reads; no message at all once the
 * segment exists (its first use sets it up by point-to-point, coll_shm.c).
 */
#include "coll_shm.h"

enum phase { PH_ENTER = 0, PH_WAIT };

loom_status_t loom_coll_barrier_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st;

    switch ((enum phase)s->phase) {
    case PH_ENTER:
        if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
            return st;    /* the selection runs it only on a set-up segment */
        }
        loom_coll_shm_arrive(s);
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        if ((st = loom_coll_shm_wait(s)) != LOOM_OK) {
            return st;
        }
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}
