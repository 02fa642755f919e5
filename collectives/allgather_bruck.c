/*
 * allgather_bruck.c: Bruck's allgather, ceil(log2 p) steps for any p.
 *
 *   tmp[j] holds the block of rank (r + j) mod p; tmp[0] is our own.
 *   p = 5:  dist 1: send tmp[0]    to r-1, receive tmp[1]    from r+1
 *           dist 2: send tmp[0..1] to r-2, receive tmp[2..3] from r+2
 *           dist 4: send tmp[0]    to r-4, receive tmp[4]    from r+4
 *   finally block (r + j) mod p = tmp[j] is copied into place.
 *
 * Fewest steps of any allgather; the extra copy makes it a small-block
 * algorithm. Needs equal blocks.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_STEP, PH_WAIT, PH_DONE };

loom_status_t loom_coll_allgather_bruck(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, dist, cnt;
    size_t blk = s->count * s->esize;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = loom_coll_tmp_alloc(s, (size_t)p * blk)) != LOOM_OK) {
                return st;
            }
            memcpy(s->tmp, s->sbuf, blk);
            s->phase = PH_STEP;
            /* fall through */
        case PH_STEP:
            dist = 1 << s->step;
            if (dist >= p) {
                s->phase = PH_DONE;
                break;
            }
            cnt = loom_pat_bruck_ag_count(dist, p);
            if ((st = loom_coll_recv(s, (char *)s->tmp + (size_t)dist * blk, (size_t)cnt * blk,
                                     loom_pat_mod(r + dist, p))) != LOOM_OK ||
                (st = loom_coll_send(s, s->tmp, (size_t)cnt * blk,
                                     loom_pat_mod(r - dist, p))) != LOOM_OK) {
                return st;
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            ++s->step;
            s->phase = PH_STEP;
            break;
        case PH_DONE:
            for (int j = 0; j < p; ++j) {
                memcpy((char *)s->rbuf + (size_t)loom_pat_mod(r + j, p) * blk,
                       (char *)s->tmp + (size_t)j * blk, blk);
            }
            return LOOM_OK;
        }
    }
}
