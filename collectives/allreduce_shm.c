/*
 * allreduce_shm.c: small allreduce through the per-communicator segment.
 *
 *   rank r:  copy input -> slot[r][n % 2];  sig, arrived[r] = n  (release)
 *            wait until arrived[q] >= n for every q (acquire); sigs agree
 *            result = slot[0] op (slot[1] op (... op slot[p-1]))
 *
 * Every rank folds all p inputs itself, in the same order, so the result is
 * bitwise identical on every rank and equal to the ordered algorithms'
 * (deterministic mode needs nothing more). Cost: p * n reads per rank, the
 * right trade for messages up to LOOM_COLL_SHM_MAX_BYTES, where one
 * cache-line handoff replaces log2(p) message round trips. The blocking
 * calls run the same steps without a request (coll_fast.c).
 */
#include "coll_shm.h"

enum phase { PH_ENTER = 0, PH_WAIT };

loom_status_t loom_coll_allreduce_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t bytes = s->count * s->esize;
    loom_status_t st;

    switch ((enum phase)s->phase) {
    case PH_ENTER:
        if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
            return st;    /* the selection runs it only on a set-up segment */
        }
        memcpy(loom_coll_shm_slot(s, s->rank), s->sbuf, bytes);
        loom_coll_shm_arrive(s);
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        if ((st = loom_coll_shm_wait(s)) != LOOM_OK) {
            return st;
        }
        memcpy(s->rbuf, loom_coll_shm_slot(s, s->size - 1), bytes);
        for (int q = s->size - 2; q >= 0; --q) {
            loom_coll_reduce(s, loom_coll_shm_slot(s, q), s->rbuf, s->count);
        }
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}
