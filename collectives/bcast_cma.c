/*
 * bcast_cma.c: large bcast on one node, every non-root reading the root's
 * buffer in place with process_vm_readv (CMA).
 *
 *   (previous operation eager: catch up first, loom_coll_shm_enter)
 *   every rank:  {pid, buf} -> slot[r][n % 2]; arrived[r] = n
 *   non-root r:  wait arrived[root] >= n; root's signature == ours
 *                buf <- root's buf   (one process_vm_readv, single copy)
 *                step[r] = 4n+2; done (the next operation catches up)
 *   root:        wait every arrival (signatures agree), then every
 *                step >= 4n+2: nobody reads our buffer any more; done
 *
 * Why (docs/collectives.md, "Large bcast"): the message algorithms move a
 * large vector through the rendezvous protocol once per tree edge or ring
 * step (scatter + allgather: 2(p-1) handoffs; chain: p-1 hops per
 * segment), and every handoff needs both of its ranks running at once;
 * with 4 ranks on 2 cores each one is a context switch. Here every byte
 * is copied once, by the rank that needs it, in parallel, and each rank
 * waits once: a non-root for the root's arrival, the root for the end of
 * every read (its buffer is the user's again when it returns). That is
 * one scheduling round per call whatever p, as Open MPI's vader gets from
 * its single-copy path.
 *
 * A non-root leaves without seeing the others, like the eager shm bcast
 * (bcast_shm.c): the next on-node operation waits for every arrival at
 * this one first (loom_coll_shm_catch_up), which keeps the slot-reuse rule.
 * The root saw every arrival and every signature (a rank that called
 * something else, or another root, is reported there); a non-root compares
 * the root's signature before it reads, so it never reads a buffer of
 * another call. A failed read is flagged in the reader's slot (bad) and
 * its step published, so the root stops with a peer failure instead of
 * waiting; a dead peer is found by the waits' idle path, a dead root by
 * the read (ESRCH).
 *
 * At p = 2 from 64 KiB the root writes the second half into the reader's
 * buffer while the reader reads the first (the split, below).
 *
 * Whether process_vm_readv is allowed is the communicator's CMA verdict,
 * found by the set-up step that allreduce and reduce use
 * (loom_coll_allreduce_cma_probe, given by the selection while it is
 * unknown): a call whose step found "yes" comes here with the operation
 * entered, its pid and buffer published and every rank arrived. Bcast
 * moves bytes: the MPI binding hands non-contiguous datatypes to its own
 * packing path (mpi_dtype_coll.c), so the buffer is one contiguous range.
 */
#include "coll_shm.h"
#include "log_int.h"

enum phase { PH_ENTER = 0, PH_ARRIVED, PH_ROOT_READS,   /* 0, 1: loom_coll_cma_enter's */
             PH_PUSHED };                               /* p = 2, split: the non-root */

/*
 * p = 2, split (session 18): from LOOM_COLL_BCAST_SPLIT_MIN bytes the
 * non-root reads the first half of the root's buffer and the root writes
 * the second half into the non-root's with process_vm_writev meanwhile:
 * the two cores share the copy the non-root made alone.
 */
enum { LOOM_COLL_BCAST_SPLIT_MIN = 64 * 1024 };

static int loom_coll_bcast_cma_splits(const loom_coll_state_t *s)
{
    return s->size == 2 && s->count * s->esize >= LOOM_COLL_BCAST_SPLIT_MIN;
}

/* bytes the non-root reads; the root writes the rest */
static size_t loom_coll_bcast_cma_split_at(const loom_coll_state_t *s)
{
    return s->count / 2 * s->esize;
}

/* A non-root, after publishing: LOOM_OK once the root's buffer is in ours,
 * LOOM_INPROGRESS while the root has not arrived, or the error. */
static loom_status_t loom_coll_bcast_cma_read(loom_coll_state_t *s)
{
    loom_coll_comm_t *cc = s->shm;
    size_t len = s->count * s->esize, got;
    loom_status_t st;

    if (s->phase == PH_ARRIVED) {
        size_t n = loom_coll_bcast_cma_splits(s) ? loom_coll_bcast_cma_split_at(s)
                                                 : len;

        if (atomic_load_explicit(&loom_coll_shm_ctl(s, s->root)->arrived,
                                 memory_order_acquire) < s->shm_seq) {
            return loom_coll_idle(s);
        }
        if ((st = loom_coll_shm_check_root(s)) != LOOM_OK ||
            (st = loom_coll_cma_read(s, s->root, s->rbuf,
                                     loom_coll_cma_info(s, s->root)->rbuf, n)) != LOOM_OK) {
            return loom_coll_cma_fail(s, st);
        }
        s->phase = PH_PUSHED;
    }
    if (loom_coll_bcast_cma_splits(s) &&
        (st = loom_coll_cma_pushed(s, s->root, len, &got)) != LOOM_OK) {
        return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
    }
    if (loom_unlikely(loom_coll_cma_info(s, s->root)->bad)) {
        /* the root failed this call (another rank's mismatch) and may have
         * left: what we read need not be its data */
        loom_error("coll", "bcast #%llu on %s: rank %d stops: the root (%d) failed this call",
                   (unsigned long long)s->seq, s->comm->name, s->rank, s->root);
        return loom_coll_cma_fail(s, LOOM_ERR_PEER_FAILED);
    }
    cc->eager_seq = s->seq;    /* we leave without seeing the others */
    loom_coll_cma_step(s, 2);
    loom_coll_shm_leave(s);
    return LOOM_OK;
}

/* The root: every arrival (signatures), then every reader's end. */
static loom_status_t loom_coll_bcast_cma_root(loom_coll_state_t *s)
{
    loom_status_t st;

    if (s->phase == PH_ARRIVED) {
        if ((st = loom_coll_shm_wait(s)) != LOOM_OK) {
            return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
        }
        s->peer = 0;
        if (loom_coll_bcast_cma_splits(s) &&
            (st = loom_coll_cma_push_rest(s, 1 - s->rank,
                                          loom_coll_cma_info(s, 1 - s->rank)->rbuf, s->rbuf,
                                          loom_coll_bcast_cma_split_at(s),
                                          s->count * s->esize)) != LOOM_OK) {
            return loom_coll_cma_fail(s, st);
        }
        loom_coll_cma_step(s, 2);    /* ours: nothing to read */
        s->phase = PH_ROOT_READS;
    }
    if ((st = loom_coll_cma_wait(s, 2)) != LOOM_OK) {
        return st == LOOM_INPROGRESS ? st : (loom_coll_shm_leave(s), s->failed = 1, st);
    }
    loom_coll_shm_leave(s);
    return LOOM_OK;
}

/* Selected only on a communicator whose CMA verdict is "yes". */
loom_status_t loom_coll_bcast_cma(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st;

    if ((st = loom_coll_cma_enter(s)) != LOOM_OK) {
        return st;
    }
    if (s->rank == s->root) {
        return loom_coll_bcast_cma_root(s);
    }
    return loom_coll_bcast_cma_read(s);
}
