/*
 * reduce_binomial.c: binomial-tree reduction towards the root.
 *
 *   p = 8 (virtual ranks):  step 1: 1->0 3->2 5->4 7->6
 *                           step 2: 2->0 6->4
 *                           step 3: 4->0
 *   each rank folds its children's partial results (smallest subtree
 *   first) into its own, then sends the partial to its parent.
 *
 * log2(p) latency, n bytes per level: small and medium messages.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_CHILD, PH_CHILD_WAIT, PH_SEND_WAIT, PH_DONE };

loom_status_t loom_coll_reduce_binomial(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int v = loom_pat_vrank(s->rank, s->root, s->size);
    size_t bytes = s->count * s->esize;
    int children[32], n;
    char *acc, *in;
    loom_status_t st;

    n = loom_pat_binomial_children(v, s->size, children, 32);
    for (;;) {
        /* root accumulates in recvbuf; others in tmp[0, bytes); receive into the rest */
        acc = v == 0 ? (char *)s->rbuf : (char *)s->tmp;
        in  = s->tmp != NULL ? (char *)s->tmp + (v == 0 ? 0 : bytes) : NULL;
        switch ((enum phase)s->phase) {
        case PH_START:
            if (n > 0 || v != 0) {
                st = loom_coll_tmp_alloc(s, bytes * (size_t)((v != 0) + (n > 0)));
                if (st != LOOM_OK) {
                    return st;
                }
                acc = v == 0 ? (char *)s->rbuf : (char *)s->tmp;
                in  = (char *)s->tmp + (v == 0 ? 0 : bytes);
            }
            if (acc != s->sbuf) {
                memcpy(acc, s->sbuf, bytes);
            }
            s->step  = n - 1;                  /* smallest subtree first */
            s->phase = PH_CHILD;
            /* fall through */
        case PH_CHILD:
            if (s->step < 0) {
                if (v == 0) {
                    s->phase = PH_DONE;
                    break;
                }
                st = loom_coll_send(s, acc, bytes,
                                    loom_pat_rank(loom_pat_binomial_parent(v), s->root, s->size));
                if (st != LOOM_OK) {
                    return st;
                }
                s->phase = PH_SEND_WAIT;
                break;
            }
            st = loom_coll_recv(s, in, bytes, loom_pat_rank(children[s->step], s->root, s->size));
            if (st != LOOM_OK) {
                return st;
            }
            s->phase = PH_CHILD_WAIT;
            /* fall through */
        case PH_CHILD_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            loom_coll_reduce(s, in, acc, s->count);
            --s->step;
            s->phase = PH_CHILD;
            break;
        case PH_SEND_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_DONE;
            /* fall through */
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
