/*
 * scatter_shm.c: small scatter through the per-communicator segment, eager.
 *
 *   (previous operation eager: catch up first, loom_coll_shm_enter)
 *   root:    copy the p blocks -> slot[root][n % 2] (whole slot); sig,
 *            arrived[root] = n; own block -> recvbuf; done
 *   others:  sig, arrived[r] = n; wait until arrived[root] >= n (acquire);
 *            root's sig == ours; block r of slot[root][n % 2] -> recvbuf
 *
 * bcast "shm" with one block per reader: the root waits for nobody, as a
 * root that sends eager messages does, and each other rank waits for the
 * root only, one wake-up per call and no message, no matching. The binomial
 * tree by messages it replaces made every inner rank wait for its parent
 * and then forward, so with ranks outnumbering cores each level cost a
 * context switch (issue 21: np 4 on 2 cores, 1-128 B, 4x Open MPI's time).
 * The root's p blocks share its one slot, so the selection gives it calls
 * whose p x block fits LOOM_COLL_SHM_MAX_BYTES (LOOM_COLL_ALG_SHM_ALL),
 * and it always uses the whole slot, never the control line's small field.
 * Nobody has seen every arrival, so the next operation on the segment
 * catches up (coll_shm.h, "Eager operations"): two ranks that both took
 * themselves for the root learn it there. Uniform counts only (scatterv
 * takes the message algorithms).
 */
#include "coll_shm.h"

enum phase { PH_ENTER = 0, PH_WAIT };

/* The root: every block into its slot, arrive, its own block out, leave. */
static loom_status_t loom_coll_scatter_shm_root(loom_coll_state_t *s, size_t blk)
{
    loom_status_t st = loom_coll_shm_publish_in(s, 1, s->sbuf, blk * (size_t)s->size);
    const char *own;

    if (st != LOOM_OK) {
        return st;    /* the selection runs it only on a set-up segment */
    }
    ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;
    own = (const char *)s->sbuf + (size_t)s->rank * blk;
    if (own != s->rbuf) {
        memcpy(s->rbuf, own, blk);
    }
    loom_coll_shm_leave(s);
    return LOOM_OK;
}

loom_status_t loom_coll_scatter_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t blk = s->count * s->esize;
    loom_status_t st;

    switch ((enum phase)s->phase) {
    case PH_ENTER:
        if (s->rank == s->root) {
            return loom_coll_scatter_shm_root(s, blk);
        }
        if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
            return st;
        }
        ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;
        loom_coll_shm_arrive(s);
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        if ((st = loom_coll_shm_wait_root(s)) != LOOM_OK) {
            return st;
        }
        memcpy(s->rbuf, (const char *)loom_coll_shm_slot_whole(s, s->root) +
                        (size_t)s->rank * blk, blk);
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}
