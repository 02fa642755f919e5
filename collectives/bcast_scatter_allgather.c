/*
 * bcast_scatter_allgather.c: broadcast of large messages as a binomial
 * scatter followed by a ring allgather (van de Geijn).
 *
 *   blocks are indexed by virtual rank: block v goes to virtual rank v, so
 *   the blocks of a subtree [v, v + size) are contiguous in the buffer:
 *
 *   scatter (p = 4):  0 --[b2 b3]--> 2      0 --[b1]--> 1      2 --[b3]--> 3
 *   ring allgather:   p-1 steps, v sends block (v - s) to v+1, receives
 *                     block (v - s - 1) from v-1
 *
 * Each rank moves about 2 * n bytes instead of n * log2(p).
 */
#include "coll_int.h"

enum phase { PH_SC_RECV = 0, PH_SC_SEND, PH_SC_WAIT, PH_RING, PH_RING_WAIT, PH_DONE };

/* bytes of blocks [b0, b1) and where they start */
static size_t bsa_range(const loom_coll_state_t *s, int b0, int b1, size_t *off_p)
{
    size_t lo = loom_pat_block_off(s->count, s->size, b0);
    *off_p = lo * s->esize;
    return (loom_pat_block_off(s->count, s->size, b1) - lo) * s->esize;
}

static loom_status_t bsa_ring_step(loom_coll_state_t *s, int v)
{
    int p = s->size, sb, rb;
    size_t so, ro, sl, rl;
    loom_status_t st;

    sb = loom_pat_ring_ag_send_block(v, s->step, p);
    rb = loom_pat_ring_ag_recv_block(v, s->step, p);
    sl = bsa_range(s, sb, sb + 1, &so);
    rl = bsa_range(s, rb, rb + 1, &ro);
    if ((st = loom_coll_recv(s, (char *)s->rbuf + ro, rl,
                             loom_pat_rank(loom_pat_mod(v - 1, p), s->root, p))) != LOOM_OK) {
        return st;
    }
    return loom_coll_send(s, (char *)s->rbuf + so, sl,
                          loom_pat_rank(loom_pat_mod(v + 1, p), s->root, p));
}

loom_status_t loom_coll_bcast_scatter_allgather(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int v = loom_pat_vrank(s->rank, s->root, s->size);
    int children[32], n, c;
    size_t off, len;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_SC_RECV:  /* my subtree's blocks from my parent */
            if (v != 0) {
                len = bsa_range(s, v, v + loom_pat_binomial_subtree(v, s->size), &off);
                st = loom_coll_recv(s, (char *)s->rbuf + off, len,
                                    loom_pat_rank(loom_pat_binomial_parent(v), s->root,
                                                  s->size));
                if (st != LOOM_OK) {
                    return st;
                }
            }
            s->phase = PH_SC_WAIT;
            break;
        case PH_SC_SEND:  /* each child's subtree, in batches */
            n = loom_pat_binomial_children(v, s->size, children, 32);
            if (s->step >= n) {
                s->step  = 0;
                s->phase = PH_RING;
                break;
            }
            while (s->step < n && s->nreq < LOOM_COLL_MAX_REQS) {
                c = children[s->step++];
                len = bsa_range(s, c, c + loom_pat_binomial_subtree(c, s->size), &off);
                st = loom_coll_send(s, (char *)s->rbuf + off, len,
                                    loom_pat_rank(c, s->root, s->size));
                if (st != LOOM_OK) {
                    return st;
                }
            }
            s->phase = PH_SC_WAIT;
            break;
        case PH_SC_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_SC_SEND;
            break;
        case PH_RING:
            if (s->step >= s->size - 1) {
                s->phase = PH_DONE;
                break;
            }
            if ((st = bsa_ring_step(s, v)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_RING_WAIT;
            /* fall through */
        case PH_RING_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            ++s->step;
            s->phase = PH_RING;
            break;
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
