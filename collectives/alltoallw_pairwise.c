/*
 * alltoallw_pairwise.c: alltoallw (per-peer counts, datatypes and byte
 * displacements) by pairwise exchange.
 *
 *   step s = 1..p-1, rank r: send block for r+s, receive block from r-s
 *   (LOOM_COLL_MAX_REQS / 2 steps in flight at once)
 *
 *   p = 3:   s=1: 0->1 1->2 2->0     s=2: 0->2 1->0 2->1
 *
 * Each message is sent and received in the same step on both ends, so a
 * window of steps never waits for a message its peer posts later. The
 * block for rank i is counts[i] elements of types[i] at byte displs[i]
 * (s->counts/displs/types: send side; counts2/displs2/types2: receive
 * side); only contiguous loom types exist, so a block is its bytes.
 * In place: the send side is the receive side, read from a snapshot of
 * recvbuf taken first (loom_coll_a2a_snapshot, shared with linear).
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_POST, PH_WAIT, PH_DONE };

#define WINDOW (LOOM_COLL_MAX_REQS / 2)

loom_status_t loom_coll_a2a_snapshot(loom_coll_state_t *s, size_t at,
                                     loom_coll_a2a_block_fn_t recv)
{
    size_t ext = 0, off, n;
    loom_status_t st;

    for (int i = 0; s->in_place && i < s->size; ++i) {
        if ((n = recv(s, i, &off)) > 0) {
            ext = LOOM_MAX(ext, off + n);
        }
    }
    if ((st = loom_coll_tmp_alloc(s, at + ext)) != LOOM_OK) {
        return st;
    }
    if (s->in_place) {   /* ext 0: every block empty, recvbuf may be NULL */
        if (ext > 0) {
            memcpy((char *)s->tmp + at, s->rbuf, ext);
        }
        s->sbuf = (char *)s->tmp + at;
    }
    return LOOM_OK;
}

/* The own block: a local copy (the API checked the two sizes agree). */
void loom_coll_a2aw_self(loom_coll_state_t *s)
{
    size_t so, ro, n = loom_coll_a2aw_send(s, s->rank, &so);

    (void)loom_coll_a2aw_recv(s, s->rank, &ro);
    if (n > 0) {
        memmove((char *)s->rbuf + ro, (const char *)s->sbuf + so, n);
    }
}

static loom_status_t a2aw_pairwise_post(loom_coll_state_t *s)
{
    int p = s->size, r = s->rank;
    size_t so, ro, sn, rn;
    loom_status_t st;

    for (int i = 0; i < WINDOW && s->step < p; ++i, ++s->step) {
        int to = loom_pat_mod(r + s->step, p), from = loom_pat_mod(r - s->step, p);

        sn = loom_coll_a2aw_send(s, to, &so);
        rn = loom_coll_a2aw_recv(s, from, &ro);
        if ((st = loom_coll_recv(s, (char *)s->rbuf + ro, rn, from)) != LOOM_OK ||
            (st = loom_coll_send(s, (const char *)s->sbuf + so, sn, to)) != LOOM_OK) {
            return st;
        }
    }
    return LOOM_OK;
}

loom_status_t loom_coll_alltoallw_pairwise(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = loom_coll_a2a_snapshot(s, 0, loom_coll_a2aw_recv)) != LOOM_OK) {
                return st;
            }
            loom_coll_a2aw_self(s);
            s->step  = 1;
            s->phase = PH_POST;
            /* fall through */
        case PH_POST:
            if (s->step >= s->size) {
                s->phase = PH_DONE;
                break;
            }
            if ((st = a2aw_pairwise_post(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_POST;
            break;
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
