/*
 * alltoall_shm.c: small alltoall through the per-communicator segment.
 *
 *   rank r:  copy all p send blocks -> slot[r][n % 2]; sig, arrived[r] = n
 *            wait until arrived[q] >= n for every q (acquire); sigs agree
 *            block r of slot[q][n % 2] -> block q of recvbuf, every q
 *
 * The slot holds p blocks, so the selection gives it only calls whose
 * p x block fits LOOM_COLL_SHM_MAX_BYTES (LOOM_COLL_ALG_SHM_ALL): always
 * the slot, never the control line's small field (which holds one 8-byte
 * block). In place, the send blocks are recvbuf's and go to our slot
 * before anything is written back. Uniform counts only (alltoallv takes
 * the message algorithms).
 */
#include "coll_shm.h"

loom_status_t loom_coll_alltoall_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t blk = s->count * s->esize;
    loom_status_t st;

    if ((st = loom_coll_shm_exchange(s, 1, s->sbuf, blk * (size_t)s->size)) != LOOM_OK) {
        return st;
    }
    for (int q = 0; q < s->size; ++q) {
        memcpy((char *)s->rbuf + (size_t)q * blk,
               (char *)loom_coll_shm_slot_whole(s, q) + (size_t)s->rank * blk, blk);
    }
    loom_coll_shm_leave(s);
    return LOOM_OK;
}
