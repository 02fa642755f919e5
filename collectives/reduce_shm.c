/*
 * reduce_shm.c: small reduce through the per-communicator segment, eager.
 *
 *   (previous operation eager: catch up first, loom_coll_shm_enter)
 *   rank r:  copy input -> slot[r][n % 2]; sig, arrived[r] = n
 *   others:  done (they wait for nobody)
 *   root:    wait until arrived[q] >= n for every q (acquire); sigs agree
 *            result = x0 op (x1 op (... op x(p-1)))   (allreduce_shm.c's fold)
 *
 * The ranks that only contribute publish and return, as a sender of eager
 * messages does; only the root waits. Nobody else saw every arrival, so the
 * next operation on the segment catches up (coll_shm.h, "Eager
 * operations"), which also compares every rank's signature of this one: a
 * non-root that named another root (and so also returned) fails there, the
 * root already here. The root copies its own input to its slot too, so an
 * in-place root's input survives the fold and the fold is the very one of
 * allreduce shm and of the ordered algorithms (LOOM_DETERMINISTIC: the same
 * bits; non-commutative and user ops: operands in rank order, whole
 * vectors, so whole elements).
 */
#include "coll_shm.h"

enum phase { PH_ENTER = 0, PH_WAIT };

loom_status_t loom_coll_reduce_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st;

    switch ((enum phase)s->phase) {
    case PH_ENTER:
        if ((st = loom_coll_shm_publish(s, s->sbuf, s->count * s->esize)) != LOOM_OK) {
            return st;
        }
        ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;
        if (s->rank != s->root) {
            loom_coll_shm_leave(s);
            return LOOM_OK;
        }
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        if ((st = loom_coll_shm_wait(s)) != LOOM_OK) {
            return st;
        }
        loom_coll_shm_fold_slots(s, s->rbuf);
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}
