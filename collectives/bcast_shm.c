/*
 * bcast_shm.c: small bcast through the per-communicator segment.
 *
 *   root:    copy buf -> slot[root][n % 2]
 *   rank r:  sig, arrived[r] = n  (release)
 *            wait until arrived[q] >= n for every q (acquire); sigs agree
 *   others:  copy slot[root][n % 2] -> buf
 *
 * Every rank waits for every other, not only for the root: that keeps the
 * slot-reuse rule of coll_shm.h (operation n starts after all arrived at
 * n-1) and lets every rank compare every signature, so two ranks that both
 * think they are the root fail instead of returning different data. The
 * price is a barrier's worth of cache-line reads, small next to a message.
 */
#include "coll_shm.h"

enum phase { PH_ENTER = 0, PH_WAIT };

loom_status_t loom_coll_bcast_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t bytes = s->count * s->esize;
    loom_status_t st;

    switch ((enum phase)s->phase) {
    case PH_ENTER:
        if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
            return st;    /* the selection runs it only on a set-up segment */
        }
        if (s->rank == s->root) {
            memcpy(loom_coll_shm_slot(s, s->rank), s->rbuf, bytes);
        }
        loom_coll_shm_arrive(s);
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        if ((st = loom_coll_shm_wait(s)) != LOOM_OK) {
            return st;
        }
        if (s->rank != s->root) {
            memcpy(s->rbuf, loom_coll_shm_slot(s, s->root), bytes);
        }
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}
