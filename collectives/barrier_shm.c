/*
 * barrier_shm.c: barrier through the per-communicator shared segment.
 *
 *   rank r:  arrived[r] = n  (release)
 *            wait until arrived[q] >= n for every q (acquire)
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
            return st;
        }
        atomic_store_explicit(&loom_coll_shm_ctl(s, s->rank)->arrived, s->shm_seq,
                              memory_order_release);
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        if (!loom_coll_shm_all_arrived(s)) {
            return LOOM_INPROGRESS;
        }
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}
