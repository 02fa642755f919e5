/*
 * scatter_binomial.c: binomial-tree scatter (virtual ranks, root = 0).
 *
 *   p = 8:  step 1: 0->4 (blocks 4..7)
 *           step 2: 0->2 (2,3)  4->6 (6,7)
 *           step 3: 0->1 2->3 4->5 6->7
 *
 * The mirror of gather_binomial.c: each rank receives its subtree's blocks
 * (contiguous in virtual-rank order) and forwards each child's part whole.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_RECV_WAIT, PH_SEND, PH_SEND_WAIT, PH_DONE };

loom_status_t loom_coll_scatter_binomial(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, v = loom_pat_vrank(s->rank, s->root, p), children[32], n, c;
    int sub = loom_pat_binomial_subtree(v, p);
    size_t blk = s->count * s->esize;
    const char *buf;
    loom_status_t st;

    n = loom_pat_binomial_children(v, p, children, 32);
    for (;;) {
        buf = (v == 0 && s->root == 0) ? (const char *)s->sbuf : (const char *)s->tmp;
        switch ((enum phase)s->phase) {
        case PH_START:
            if (!(v == 0 && s->root == 0)) {
                if ((st = loom_coll_tmp_alloc(s, (size_t)sub * blk)) != LOOM_OK) {
                    return st;
                }
                buf = s->tmp;
            }
            if (v == 0 && s->root != 0) {   /* rank order -> virtual order */
                for (int u = 0; u < p; ++u) {
                    memcpy((char *)s->tmp + (size_t)u * blk,
                           (const char *)s->sbuf + (size_t)loom_pat_rank(u, s->root, p) * blk, blk);
                }
            }
            if (v != 0) {
                st = loom_coll_recv(s, s->tmp, (size_t)sub * blk,
                                    loom_pat_rank(loom_pat_binomial_parent(v), s->root, p));
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
            if (s->rbuf != buf) {
                memcpy(s->rbuf, buf, blk);
            }
            s->phase = PH_SEND;
            /* fall through */
        case PH_SEND:
            if (s->step >= n) {
                s->phase = PH_DONE;
                break;
            }
            for (; s->step < n && s->nreq < LOOM_COLL_MAX_REQS; ++s->step) {
                c = children[s->step];
                st = loom_coll_send(s, buf + (size_t)(c - v) * blk,
                                    (size_t)loom_pat_binomial_subtree(c, p) * blk,
                                    loom_pat_rank(c, s->root, p));
                if (st != LOOM_OK) {
                    return st;
                }
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
