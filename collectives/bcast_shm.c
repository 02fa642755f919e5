/*
 * bcast_shm.c: small bcast through the per-communicator segment, eager.
 *
 *   (previous operation eager: wait for every arrival at it, compare its
 *    signatures: loom_coll_shm_enter -> loom_coll_shm_catch_up)
 *   root:    copy buf -> slot[root][n % 2]; sig, arrived[root] = n; done
 *   others:  sig, arrived[r] = n; wait until arrived[root] >= n (acquire);
 *            root's sig == ours; copy slot[root][n % 2] -> buf
 *
 * The root waits for nobody, as a root that sends eager messages does;
 * each other rank waits for the root only. Nobody has seen everybody arrive,
 * so the next operation on the segment catches up first (coll_shm.h,
 * "Eager operations"): it waits until every rank arrived at this one and
 * compares all their signatures, which keeps the slot-reuse rule and
 * reports two ranks that both took themselves for the root (at that next
 * operation, as the message algorithms do). When ranks outnumber cores
 * this saves the root the context switches of waiting for ranks that are
 * not running (issue 21: 10-15x Open MPI's time at np 4 on 2 cores).
 *
 * "stage" is the same above the slots' 8 KiB, up to
 * LOOM_COLL_SHM_STAGE_BYTES: the root copies into the segment's stage of
 * this operation's parity instead of its slot (one stage per parity: one
 * root per bcast). Two copies instead of "cma"'s one, but the root leaves
 * at once: with ranks outnumbering cores a root that waits for its
 * readers (cma) waits for them to be scheduled (docs/collectives.md).
 */
#include "coll_shm.h"

enum phase { PH_ENTER = 0, PH_WAIT };

/* The root of "stage": its data into the stage, then its arrival. */
static loom_status_t loom_coll_bcast_stage_publish(loom_coll_state_t *s, size_t bytes)
{
    loom_status_t st = loom_coll_shm_enter(s);

    if (st != LOOM_OK) {
        return st;    /* the selection runs it only on a set-up segment */
    }
    memcpy(loom_coll_shm_stage(s), s->rbuf, bytes);
    loom_coll_shm_arrive_way(s, 0, LOOM_COLL_SHM_WAY_STAGE);
    return LOOM_OK;
}

/* "shm" (@p stage 0: the root's slot) and "stage" (1: the stage). */
static loom_status_t loom_coll_bcast_eager(loom_request_t req, int stage)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_coll_comm_t *cc;
    size_t bytes = s->count * s->esize;
    loom_status_t st;

    switch ((enum phase)s->phase) {
    case PH_ENTER:
        if (s->rank == s->root) {
            st = stage ? loom_coll_bcast_stage_publish(s, bytes)
                       : loom_coll_shm_publish(s, s->rbuf, bytes);
            if (st != LOOM_OK) {
                return st;
            }
            cc = s->shm;
            cc->eager_seq = s->seq;
            loom_coll_shm_leave(s);
            return LOOM_OK;
        }
        if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
            return st;    /* the selection runs it only on a set-up segment */
        }
        cc = s->shm;
        cc->eager_seq = s->seq;
        loom_coll_shm_arrive_way(s, 0, loom_coll_shm_way_of(stage));
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        if ((st = loom_coll_shm_wait_root(s)) != LOOM_OK) {
            return st;
        }
        memcpy(s->rbuf, stage ? loom_coll_shm_stage(s) : loom_coll_shm_slot(s, s->root),
               bytes);
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}

loom_status_t loom_coll_bcast_shm(loom_request_t req)
{
    return loom_coll_bcast_eager(req, 0);
}

loom_status_t loom_coll_bcast_stage(loom_request_t req)
{
    return loom_coll_bcast_eager(req, 1);
}
