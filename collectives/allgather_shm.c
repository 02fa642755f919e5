/*
 * allgather_shm.c: small allgather through the per-communicator segment.
 *
 *   rank r:  copy own block -> slot[r][n % 2]; sig, arrived[r] = n
 *            wait until arrived[q] >= n for every q (acquire); sigs agree
 *            copy slot[q][n % 2] -> block q of recvbuf, for every q != r
 *
 * Every rank needs every other rank's block, so every rank waits for every
 * arrival (no eager variant). One copy in and p-1 copies out, no message,
 * no matching: for blocks up to LOOM_COLL_SHM_MAX_BYTES (uniform counts;
 * the v variant takes the message algorithms).
 */
#include "coll_shm.h"

loom_status_t loom_coll_allgather_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t bytes = s->count * s->esize;
    loom_status_t st;

    if ((st = loom_coll_shm_exchange(s, 0, s->sbuf, bytes)) != LOOM_OK) {
        return st;
    }
    for (int q = 0; q < s->size; ++q) {
        char *dst = (char *)s->rbuf + (size_t)q * bytes;
        if (q == s->rank) {
            if (dst != s->sbuf) {
                memcpy(dst, s->sbuf, bytes);
            }
            continue;
        }
        memcpy(dst, loom_coll_shm_slot(s, q), bytes);
    }
    loom_coll_shm_leave(s);
    return LOOM_OK;
}
