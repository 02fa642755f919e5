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

enum phase { PH_ENTER = 0, PH_WAIT };

loom_status_t loom_coll_allgather_shm(loom_request_t req)
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
    return LOOM_ERR_INTERNAL;
}
