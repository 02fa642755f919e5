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

loom_status_t loom_coll_allreduce_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st = loom_coll_shm_exchange(s, 0, s->sbuf, s->count * s->esize);

    if (st != LOOM_OK) {
        return st;
    }
    loom_coll_shm_fold_slots(s, s->rbuf);
    loom_coll_shm_leave(s);
    return LOOM_OK;
}
