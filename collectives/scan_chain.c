/*
 * scan_chain.c: inclusive (scan) and exclusive (exscan) prefix reductions
 * along the chain of ranks, one file for both (s->kind tells which).
 *
 *   scan,  p = 4:    x0 --P0--> 1 --P1--> 2 --P2--> 3
 *                    rank r: receive P(r-1) from r-1,
 *                            P(r) = P(r-1) op x(r) -> recvbuf, send it to r+1
 *
 *   exscan, p = 4:   0 --x0--> 1 --P1--> 2 --P2--> 3
 *                    rank r > 0: receive P(r-1) from r-1 -> recvbuf,
 *                            send P(r-1) op x(r) to r+1 (rank 0 sends x0 and
 *                            leaves its recvbuf untouched: MPI leaves it undefined)
 *
 * P(r) = (((x0 op x1) op x2) ... op x(r)): the operands stay in rank order,
 * so non-commutative operations are right, and the bracketing is the left
 * fold, which is the canonical order of the scan family: the recursive-
 * doubling algorithm reproduces it bit for bit in deterministic mode.
 * Latency p-1 hops: the choice for 2 ranks and for the largest vectors
 * (each rank sends the vector once, no log2 p factor).
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_RECV, PH_SEND, PH_WAIT_SEND, PH_DONE };

/* Exscan at r > 0 after the receive: tmp[0..n) = P(r-1); make the next. */
static void scan_chain_exscan_fold(loom_coll_state_t *s, size_t bytes)
{
    char *prev = s->tmp, *next = prev + bytes;

    if (s->rank < s->size - 1) {     /* P(r) = P(r-1) op x(r), before recvbuf changes */
        memcpy(next, s->sbuf, bytes);
        loom_coll_reduce(s, prev, next, s->count);
    }
    memcpy(s->rbuf, prev, bytes);
}

loom_status_t loom_coll_scan_chain(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, ex = s->kind == LOOM_COLL_EXSCAN;
    size_t bytes = s->count * s->esize;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            /* scan: the prefix received; exscan: that and the one to pass on */
            if ((st = loom_coll_tmp_alloc(s, (ex ? 2 : 1) * bytes)) != LOOM_OK) {
                return st;
            }
            if (!ex && s->sbuf != s->rbuf) {
                memcpy(s->rbuf, s->sbuf, bytes);
            }
            s->phase = PH_RECV;
            if (r > 0 && (st = loom_coll_recv(s, s->tmp, bytes, r - 1)) != LOOM_OK) {
                return st;
            }
            /* fall through */
        case PH_RECV:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            if (r > 0 && ex) {
                scan_chain_exscan_fold(s, bytes);
            } else if (r > 0) {
                loom_coll_reduce(s, s->tmp, s->rbuf, s->count);
            }
            s->phase = PH_SEND;
            /* fall through */
        case PH_SEND:
            s->phase = PH_WAIT_SEND;
            if (r < p - 1) {
                const void *out = !ex ? s->rbuf : r == 0 ? s->sbuf
                                                         : (char *)s->tmp + bytes;
                if ((st = loom_coll_send(s, out, bytes, r + 1)) != LOOM_OK) {
                    return st;
                }
            }
            /* fall through */
        case PH_WAIT_SEND:
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
