/*
 * gather_shm.c: small gather through the per-communicator segment, eager.
 *
 *   (previous operation eager: catch up first, loom_coll_shm_enter)
 *   others:  copy own block -> slot[r][n % 2]; sig, arrived[r] = n; done
 *   root:    sig, arrived[root] = n; wait until arrived[q] >= n for every
 *            q (acquire); sigs agree; slot[q][n % 2] -> block q of recvbuf
 *
 * reduce "shm" with copies instead of the fold: the ranks that only
 * contribute publish and return, as senders of eager messages do; only the
 * root waits, once, for every arrival. No message, no matching, no tree:
 * the binomial gather by messages it replaces made every inner rank wait
 * for its children before it could forward (issue 21: np 2, small blocks,
 * up to 1.8x Open MPI's time). A block of up to LOOM_COLL_SHM_SMALL bytes
 * travels in its rank's control line (loom_coll_shm_slot), with the
 * arrival. The root's own block goes straight from sendbuf to recvbuf
 * (nothing when in place), so it publishes only its arrival. The next
 * operation on the segment catches up (coll_shm.h, "Eager operations"): a
 * non-root that named another root fails there, the root already here.
 * Uniform counts only (gatherv takes the message algorithms).
 *
 * "stage" (session 13) is the same for p x block up to
 * LOOM_COLL_SHM_STAGE_BYTES: rank q's block goes to block q of the
 * segment's stage of this operation's parity (the one bcast and scatter
 * "stage" use; the p writers' blocks are disjoint, and the eager rule
 * keeps a writer of operation n + 2 out until the root has copied n out),
 * signature way STAGE. The table gives it only when ranks outnumber cores,
 * where a non-root of "cma" (which waits for the root's end) waits for
 * the root to be scheduled.
 */
#include "coll_shm.h"

enum phase { PH_ENTER = 0, PH_WAIT };

/* A non-root: its block into its slot (stage), arrive, leave. */
static loom_status_t loom_coll_gather_shm_put(loom_coll_state_t *s, size_t blk, int stage)
{
    loom_status_t st;

    if (!stage) {
        return loom_coll_shm_publish(s, s->sbuf, blk);
    }
    if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
        return st;    /* the selection runs it only on a set-up segment */
    }
    memcpy(loom_coll_shm_gather_block(s, s->rank, blk, 1), s->sbuf, blk);
    loom_coll_shm_arrive_way(s, 0, LOOM_COLL_SHM_WAY_STAGE);
    return LOOM_OK;
}

/* "shm" (@p stage 0: every rank's slot) and "stage" (1: the segment's stage). */
static loom_status_t loom_coll_gather_eager(loom_request_t req, int stage)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t blk = s->count * s->esize;
    loom_status_t st;

    switch ((enum phase)s->phase) {
    case PH_ENTER:
        if (s->rank != s->root) {
            if ((st = loom_coll_gather_shm_put(s, blk, stage)) != LOOM_OK) {
                return st;
            }
            ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;
            loom_coll_shm_leave(s);
            return LOOM_OK;
        }
        if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
            return st;    /* the selection runs it only on a set-up segment */
        }
        ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;
        loom_coll_shm_arrive_way(s, 0, loom_coll_shm_way_of(stage));
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        if ((st = loom_coll_shm_wait(s)) != LOOM_OK) {
            return st;
        }
        for (int q = 0; q < s->size; ++q) {
            char *dst = (char *)s->rbuf + (size_t)q * blk;
            if (q != s->rank) {
                memcpy(dst, loom_coll_shm_gather_block(s, q, blk, stage), blk);
            } else if (dst != s->sbuf) {
                memcpy(dst, s->sbuf, blk);
            }
        }
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}

loom_status_t loom_coll_gather_shm(loom_request_t req)
{
    return loom_coll_gather_eager(req, 0);
}

loom_status_t loom_coll_gather_stage(loom_request_t req)
{
    return loom_coll_gather_eager(req, 1);
}
