/*
 * bcast_binomial.c: binomial-tree broadcast (virtual ranks, root = 0).
 *
 *   p = 8:  step 1: 0 -> 4      each rank receives once from its parent
 *           step 2: 0 -> 2, 4 -> 6      (v minus its lowest set bit), then
 *           step 3: 0->1 2->3 4->5 6->7 sends to its children, largest first
 *
 * log2(p) latency; every rank forwards the whole message, so it is for
 * small and medium sizes.
 */
#include "coll_int.h"

enum phase { PH_RECV = 0, PH_RECV_WAIT, PH_SEND, PH_SEND_WAIT, PH_DONE };

loom_status_t loom_coll_bcast_binomial(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int v = loom_pat_vrank(s->rank, s->root, s->size);
    size_t bytes = s->count * s->esize;
    int children[32], n;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_RECV:
            if (v != 0) {
                st = loom_coll_recv(s, s->rbuf, bytes,
                                    loom_pat_rank(loom_pat_binomial_parent(v), s->root, s->size));
                if (st != LOOM_OK) {
                    return st;
                }
            }
            s->phase = PH_RECV_WAIT;
            /* fall through */
        case PH_RECV_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_SEND;
            /* fall through */
        case PH_SEND:     /* children in batches of LOOM_COLL_MAX_REQS */
            n = loom_pat_binomial_children(v, s->size, children, 32);
            if (s->step >= n) {
                s->phase = PH_DONE;
                break;
            }
            while (s->step < n && s->nreq < LOOM_COLL_MAX_REQS) {
                st = loom_coll_send(s, s->rbuf, bytes,
                                    loom_pat_rank(children[s->step], s->root, s->size));
                if (st != LOOM_OK) {
                    return st;
                }
                ++s->step;
            }
            s->phase = PH_SEND_WAIT;
            /* fall through */
        case PH_SEND_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_SEND;
            break;
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
