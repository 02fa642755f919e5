/*
 * bcast_chain.c: pipelined chain broadcast for very large messages.
 *
 *   virtual ranks 0 -> 1 -> 2 -> ... -> p-1, message cut in segments:
 *
 *   step:    0      1      2      3    ...
 *   v=0:   s0->   s1->   s2->   s3->
 *   v=1:   <-s0   <-s1   <-s2   <-s3      receive segment k while
 *                 s0->   s1->   s2->      forwarding segment k-1
 *   v=2:          <-s0   <-s1   <-s2
 *
 * Time ~ (nseg + p - 2) * segment time: bandwidth-optimal once the
 * message is much larger than p segments.
 */
#include "coll_int.h"

#define LOOM_COLL_CHAIN_SEG ((size_t)128 * 1024)

enum phase { PH_STEP = 0, PH_WAIT, PH_DONE };

loom_status_t loom_coll_bcast_chain(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int v = loom_pat_vrank(s->rank, s->root, s->size);
    size_t bytes = s->count * s->esize;
    size_t nseg = (bytes + LOOM_COLL_CHAIN_SEG - 1) / LOOM_COLL_CHAIN_SEG;
    size_t k, off;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_STEP:
            k = (size_t)s->step;
            if (k > nseg) {
                s->phase = PH_DONE;
                break;
            }
            if (v == 0 && k < nseg) {        /* the root feeds segment k */
                off = k * LOOM_COLL_CHAIN_SEG;
                st = loom_coll_send(s, (char *)s->rbuf + off,
                                    LOOM_MIN(LOOM_COLL_CHAIN_SEG, bytes - off),
                                    loom_pat_rank(1, s->root, s->size));
                if (st != LOOM_OK) {
                    return st;
                }
            }
            if (v > 0 && k < nseg) {         /* receive segment k */
                off = k * LOOM_COLL_CHAIN_SEG;
                st = loom_coll_recv(s, (char *)s->rbuf + off,
                                    LOOM_MIN(LOOM_COLL_CHAIN_SEG, bytes - off),
                                    loom_pat_rank(v - 1, s->root, s->size));
                if (st != LOOM_OK) {
                    return st;
                }
            }
            if (v > 0 && v + 1 < s->size && k >= 1) {   /* forward segment k-1 */
                off = (k - 1) * LOOM_COLL_CHAIN_SEG;
                st = loom_coll_send(s, (char *)s->rbuf + off,
                                    LOOM_MIN(LOOM_COLL_CHAIN_SEG, bytes - off),
                                    loom_pat_rank(v + 1, s->root, s->size));
                if (st != LOOM_OK) {
                    return st;
                }
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
            return LOOM_OK;
        }
    }
}
