/*
 * scatter_shm.c: small and medium scatter through the per-communicator
 * segment, eager.
 *
 *   (previous operation eager: catch up first, loom_coll_shm_enter)
 *   root:    copy the p blocks -> slot[root][n % 2] (whole slot), or the
 *            stage [n % 2] ("stage"); sig, arrived[root] = n; own block
 *            -> recvbuf; done
 *   others:  sig, arrived[r] = n; wait until arrived[root] >= n (acquire);
 *            root's sig == ours; block r of the slot (stage) -> recvbuf
 *
 * bcast "shm" with one block per reader: the root waits for nobody, as a
 * root that sends eager messages does, and each other rank waits for the
 * root only, one wake-up per call and no message, no matching. The binomial
 * tree by messages it replaces made every inner rank wait for its parent
 * and then forward, so with ranks outnumbering cores each level cost a
 * context switch (issue 21: np 4 on 2 cores, 1-128 B, 4-18x Open MPI's
 * time). The root's p blocks share its one slot, so "shm" takes calls
 * whose p x block fits LOOM_COLL_SHM_MAX_BYTES (LOOM_COLL_ALG_SHM_ALL),
 * and it always uses the whole slot, never the control line's small field.
 *
 * "stage" is the same up to p x block = LOOM_COLL_SHM_STAGE_BYTES (64
 * KiB) through the segment's stage of this operation's parity, which
 * bcast "stage" uses too: an operation has one root, so one stage per
 * parity serves every rank (signature way STAGE, so a rank that selected
 * "shm" against one that selected "stage" fails instead of reading a stale
 * slot). Session 13: above the slot the table gave the binomial tree, whose
 * every level is a rendezvous message needing both ranks of an edge
 * running (np 8 on 2 cores, 2-32 KiB blocks, up to 2.6x Open MPI).
 *
 * Nobody has seen every arrival, so the next operation on the segment
 * catches up (coll_shm.h, "Eager operations"): two ranks that both took
 * themselves for the root learn it there. Uniform counts only (scatterv
 * takes the message algorithms).
 */
#include "coll_shm.h"

enum phase { PH_ENTER = 0, PH_WAIT };

/* The root: every block into its slot (stage), arrive, its own block out, leave. */
static loom_status_t loom_coll_scatter_shm_root(loom_coll_state_t *s, size_t blk, int stage)
{
    loom_status_t st = loom_coll_shm_enter(s);
    const char *own;

    if (st != LOOM_OK) {
        return st;    /* the selection runs it only on a set-up segment */
    }
    memcpy(loom_coll_shm_scatter_area(s, s->root, stage), s->sbuf, blk * (size_t)s->size);
    loom_coll_shm_arrive_way(s, 0, loom_coll_shm_way_of(stage));
    ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;
    own = (const char *)s->sbuf + (size_t)s->rank * blk;
    if (own != s->rbuf) {
        memcpy(s->rbuf, own, blk);
    }
    loom_coll_shm_leave(s);
    return LOOM_OK;
}

/* "shm" (@p stage 0: the root's slot) and "stage" (1: the segment's stage). */
static loom_status_t loom_coll_scatter_eager(loom_request_t req, int stage)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t blk = s->count * s->esize;
    loom_status_t st;

    switch ((enum phase)s->phase) {
    case PH_ENTER:
        if (s->rank == s->root) {
            return loom_coll_scatter_shm_root(s, blk, stage);
        }
        if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
            return st;
        }
        ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;
        loom_coll_shm_arrive_way(s, 0, loom_coll_shm_way_of(stage));
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        if ((st = loom_coll_shm_wait_root(s)) != LOOM_OK) {
            return st;
        }
        memcpy(s->rbuf, loom_coll_shm_scatter_area(s, s->root, stage) + (size_t)s->rank * blk,
               blk);
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}

loom_status_t loom_coll_scatter_shm(loom_request_t req)
{
    return loom_coll_scatter_eager(req, 0);
}

loom_status_t loom_coll_scatter_stage(loom_request_t req)
{
    return loom_coll_scatter_eager(req, 1);
}
