/*
 * gather_binomial.c: binomial-tree gather (virtual ranks, root = 0).
 *
 *   p = 8:  step 1: 1->0 3->2 5->4 7->6     (1 block each)
 *           step 2: 2->0 6->4               (2 blocks: the subtree)
 *           step 3: 4->0                    (4 blocks)
 *
 * A subtree [v, v + size) is contiguous in virtual-rank order, so each rank
 * gathers its subtree into one buffer and forwards it whole; the root
 * rotates virtual order back to rank order (no copy when root = 0). A leaf
 * sends its own buffer. Inner ranks hold their subtree (the root all p
 * blocks when root != 0): coll_select.c takes it for small blocks only.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_RECV, PH_RECV_WAIT, PH_SEND_WAIT, PH_DONE };

loom_status_t loom_coll_gather_binomial(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, v = loom_pat_vrank(s->rank, s->root, p), children[32], n, c, leaf;
    int sub = loom_pat_binomial_subtree(v, p);
    size_t blk = s->count * s->esize;
    char *buf;
    loom_status_t st;

    n = loom_pat_binomial_children(v, p, children, 32);
    leaf = n == 0 && v != 0;
    for (;;) {
        buf = (v == 0 && s->root == 0) ? (char *)s->rbuf
            : leaf                     ? (char *)s->sbuf
                                       : (char *)s->tmp;
        switch ((enum phase)s->phase) {
        case PH_START:
            if (!(v == 0 && s->root == 0) && !leaf &&
                (st = loom_coll_tmp_alloc(s, (size_t)sub * blk)) != LOOM_OK) {
                return st;
            }
            buf = (v == 0 && s->root == 0) ? (char *)s->rbuf
                : leaf                     ? (char *)s->sbuf
                                           : (char *)s->tmp;
            if (buf != s->sbuf) {
                memcpy(buf, s->sbuf, blk);
            }
            s->phase = PH_RECV;
            /* fall through */
        case PH_RECV:  /* children's subtrees, in batches */
            if (s->step >= n) {
                if (v == 0) {
                    s->phase = PH_DONE;
                    break;
                }
                st = loom_coll_send(s, buf, (size_t)sub * blk,
                                    loom_pat_rank(loom_pat_binomial_parent(v), s->root, p));
                if (st != LOOM_OK) {
                    return st;
                }
                s->phase = PH_SEND_WAIT;
                break;
            }
            for (; s->step < n && s->nreq < LOOM_COLL_MAX_REQS; ++s->step) {
                c = children[s->step];
                st = loom_coll_recv(s, buf + (size_t)(c - v) * blk,
                                    (size_t)loom_pat_binomial_subtree(c, p) * blk,
                                    loom_pat_rank(c, s->root, p));
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
            s->phase = PH_RECV;
            break;
        case PH_SEND_WAIT:
            return loom_coll_wait(s);
        case PH_DONE:
            if (buf != s->rbuf) {  /* root != 0: virtual order -> rank order */
                for (int u = 0; u < p; ++u) {
                    memcpy((char *)s->rbuf + (size_t)loom_pat_rank(u, s->root, p) * blk,
                           buf + (size_t)u * blk, blk);
                }
            }
            return LOOM_OK;
        }
    }
}
