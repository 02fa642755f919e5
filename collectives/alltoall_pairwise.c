/*
 * alltoall_pairwise.c: pairwise-exchange alltoall(v).
 *
 *   step s = 1..p-1, rank r: send block for r+s, receive block from r-s
 *   (LOOM_COLL_MAX_REQS / 2 steps in flight at once)
 *
 *   p = 4:   s=1: 0->1 1->2 2->3 3->0     every ordered pair exactly once,
 *            s=2: 0->2 1->3 2->0 3->1     each rank sends and receives one
 *            s=3: 0->3 1->0 2->1 3->2     block per step
 *
 * In place: the send side is a copy of the receive buffer taken first.
 * The own block r moves after the first window is posted (a2a_own_block).
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_POST, PH_WAIT, PH_DONE };

#define WINDOW (LOOM_COLL_MAX_REQS / 2)

/* elements of recvbuf the in-place snapshot copies */
static size_t a2a_extent(const loom_coll_state_t *s)
{
    size_t hi = 0;
    if (s->layout != LOOM_COLL_LAYOUT_VECTOR) {
        return s->count * (size_t)s->size;
    }
    /* an empty block's displacement points nowhere (it may lie past the
     * buffer, or the buffer be NULL): only blocks with elements count */
    for (int i = 0; i < s->size; ++i) {
        if (s->counts2[i] > 0) {
            hi = LOOM_MAX(hi, s->displs2[i] + s->counts2[i]);
        }
    }
    return hi;
}

/* send side: counts/displs; receive side: counts2/displs2 (or uniform) */
static size_t a2a_soff(const loom_coll_state_t *s, int i, size_t *n)
{
    int v = s->layout == LOOM_COLL_LAYOUT_VECTOR;
    *n = v ? s->counts[i] : s->count;
    return v ? s->displs[i] : (size_t)i * s->count;
}

static size_t a2a_roff(const loom_coll_state_t *s, int i, size_t *n)
{
    int v = s->layout == LOOM_COLL_LAYOUT_VECTOR;
    *n = v ? s->counts2[i] : s->count;
    return v ? s->displs2[i] : (size_t)i * s->count;
}

/* The own block, sendbuf (or the in-place snapshot) -> recvbuf. It runs
 * after the first window is posted (session 16), as allgather's own block
 * does since session 11: copied first, it held every send's RTS back by a
 * block's memcpy (np 2, 1 MiB blocks: the peer's read started only after
 * our 1 MiB copy). The copy touches only block r of recvbuf, which
 * no receive targets (uniform: block from; vector: the caller's displs2,
 * which MPI forbids to overlap a written block). */
static void a2a_own_block(loom_coll_state_t *s)
{
    size_t sn, rn, so = a2a_soff(s, s->rank, &sn), ro = a2a_roff(s, s->rank, &rn);

    if (LOOM_MIN(sn, rn) > 0) {
        memmove(loom_coll_at(s->rbuf, ro, s->esize), loom_coll_at(s->sbuf, so, s->esize),
                LOOM_MIN(sn, rn) * s->esize);
    }
}

loom_status_t loom_coll_alltoall_pairwise(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, to, from, first;
    size_t so, sn, ro, rn, ext;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if (s->in_place) {   /* send from a snapshot of recvbuf */
                ext = a2a_extent(s) * s->esize;
                if ((st = loom_coll_tmp_alloc(s, ext)) != LOOM_OK) {
                    return st;
                }
                if (ext > 0) {
                    memcpy(s->tmp, s->rbuf, ext);
                }
                s->sbuf = s->tmp;
            }
            s->step  = 1;
            s->phase = PH_POST;
            /* fall through */
        case PH_POST:
            if (s->step >= p) {
                if (p == 1) {   /* nothing was posted */
                    a2a_own_block(s);
                }
                s->phase = PH_DONE;
                break;
            }
            first = s->step == 1;
            for (int i = 0; i < WINDOW && s->step < p; ++i, ++s->step) {
                to   = loom_pat_mod(r + s->step, p);
                from = loom_pat_mod(r - s->step, p);
                so = a2a_soff(s, to, &sn);
                ro = a2a_roff(s, from, &rn);
                if ((st = loom_coll_recv(s, loom_coll_at(s->rbuf, ro, s->esize), rn * s->esize,
                                         from)) != LOOM_OK ||
                    (st = loom_coll_send(s, loom_coll_at(s->sbuf, so, s->esize), sn * s->esize,
                                         to)) != LOOM_OK) {
                    return st;
                }
            }
            if (first) {   /* while the peers move the first window */
                a2a_own_block(s);
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
