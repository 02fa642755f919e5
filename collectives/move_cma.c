/*
 * move_cma.c: gather, scatter, allgather and alltoall on one node, each
 * rank reading what it needs in place with process_vm_readv (CMA), as
 * bcast "cma" does (bcast_cma.c); uniform counts only.
 *
 *   every rank:  {pid, sendbuf, recvbuf} -> slot[r][n % 2]; arrived[r] = n
 *
 *   gather   root:    wait every arrival; block q of recvbuf <- rank q's
 *                     sendbuf, every q; step[root] = 4n+2
 *            others:  wait arrived[root], its signature; wait step[root]
 *   scatter  others:  wait arrived[root], its signature; recvbuf <- block
 *                     r of the root's sendbuf; step[r] = 4n+2
 *            root:    own block; wait every arrival, then every step
 *   allgather        wait every arrival; block q of recvbuf <- rank q's
 *                     sendbuf, every q; step[r] = 4n+2; wait every step
 *   alltoall         wait every arrival; block q of recvbuf <- block r of
 *                     rank q's sendbuf, every q; step[r]; wait every step
 *
 * Why (docs/collectives.md, "Large messages on one node"): the message
 * algorithms move each large block through the rendezvous protocol, a
 * handoff that needs both ranks running (np 2 allgather of 16 KiB-1 MiB
 * blocks took 2.5-5x Open MPI's time, whose vader reads single-copy).
 * Here each byte is copied once, by the rank that needs it. Gather and
 * scatter wait once per rank (LOOM_COLL_ALG_ONE_WAIT: only the root waits
 * for everybody), so the table keeps them when ranks outnumber cores;
 * allgather and alltoall wait twice (every rank reads every other, so each
 * must know all the others have read its buffer before it returns) and,
 * like allreduce "cma", are skipped there.
 *
 * A rank that leaves before seeing every other (gather's non-roots,
 * scatter's) is an eager operation for the next one, which catches up
 * (coll_shm.h). In place: gather's and allgather's sendbuf is the own
 * block of recvbuf, which nobody writes; scatter's root keeps its block
 * where it is; alltoall in place is not eligible (a peer would read block
 * r of our recvbuf while we overwrite it: LOOM_COLL_ALG_NO_IN_PLACE).
 * At p = 2, blocks from 64 KiB, gather and scatter split the copy between
 * the two ranks (below). The CMA verdict is the communicator's (the set-up step of allreduce,
 * loom_coll_allreduce_cma_probe), as for the other cma algorithms.
 */
#include "coll_shm.h"
#include "log_int.h"

enum phase { PH_ENTER = 0, PH_ARRIVED, PH_MOVED,   /* 0, 1: loom_coll_cma_enter's */
             PH_PUSHED };                         /* p = 2, split: waiting for the other's part */

/*
 * p = 2, split (session 18), blocks of LOOM_COLL_MOVE_SPLIT_MIN bytes or
 * more: gather's and scatter's single copy is shared by the two cores.
 * The rank that receives the block (gather's root, scatter's non-root)
 * reads its first LOOM_COLL_MOVE_SPLIT_READ / 64 with process_vm_readv;
 * the other writes the rest into its receive buffer with
 * process_vm_writev meanwhile and publishes `pushed` (the block's size)
 * once it landed. The root also copies its own block, so its share is the
 * smaller one in both.
 */
enum { LOOM_COLL_MOVE_SPLIT_MIN = 64 * 1024 };
#define LOOM_COLL_MOVE_SPLIT_READ(s) ((s)->kind == LOOM_COLL_GATHER ? 24 : 40)

static int loom_coll_move_splits(const loom_coll_state_t *s)
{
    return s->size == 2 && s->count * s->esize >= LOOM_COLL_MOVE_SPLIT_MIN;
}

/* bytes of the block the receiving rank reads; the other writes the rest */
static size_t loom_coll_move_split_at(const loom_coll_state_t *s)
{
    return s->count * (size_t)LOOM_COLL_MOVE_SPLIT_READ(s) / 64 * s->esize;
}

/* The writing rank: [at, blk) of @p src into rank @p q's memory at @p dst, then `pushed`. */
static loom_status_t loom_coll_move_push(loom_coll_state_t *s, int q, uint64_t dst,
                                         const char *src)
{
    return loom_coll_cma_push_rest(s, q, dst, src, loom_coll_move_split_at(s),
                                   s->count * s->esize);
}

/* The receiving rank: LOOM_OK once rank @p q's part landed (it failed: the error). */
static loom_status_t loom_coll_move_wait_push(loom_coll_state_t *s, int q)
{
    size_t got;

    return loom_coll_cma_pushed(s, q, s->count * s->esize, &got);
}

/* A non-root: LOOM_OK once the root arrived with our signature. */
static loom_status_t loom_coll_move_root_arrived(loom_coll_state_t *s)
{
    if (atomic_load_explicit(&loom_coll_shm_ctl(s, s->root)->arrived,
                             memory_order_acquire) < s->shm_seq) {
        return loom_coll_idle(s);
    }
    return loom_coll_shm_check_root(s);
}

/* Every rank arrived (signatures agree); a failure leaves flagged. */
static loom_status_t loom_coll_move_all_arrived(loom_coll_state_t *s)
{
    loom_status_t st = loom_coll_shm_wait(s);

    if (st != LOOM_OK) {
        return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
    }
    s->peer = 0;
    return LOOM_OK;
}

/* Every rank published step 2 (or one failed); then leave. */
static loom_status_t loom_coll_move_all_done(loom_coll_state_t *s)
{
    loom_status_t st = loom_coll_cma_wait(s, 2);

    if (st == LOOM_INPROGRESS) {
        return st;
    }
    s->failed |= st != LOOM_OK;
    loom_coll_shm_leave(s);
    return st;
}

/* Our own block from sendbuf to recvbuf (at byte offset @p off of it). */
static void loom_coll_move_own(loom_coll_state_t *s, const void *src, size_t off)
{
    char *dst = (char *)s->rbuf + off;

    if (src != dst) {
        memcpy(dst, src, s->count * s->esize);
    }
}

/* Read from every other rank q: its sendbuf + @p src_off(q) -> our recvbuf
 * + q blocks; @p src_blk: the source is block r of q's sendbuf (alltoall). */
static loom_status_t loom_coll_move_read_all(loom_coll_state_t *s, int src_blk)
{
    size_t blk = s->count * s->esize, src_off = src_blk ? (size_t)s->rank * blk : 0;
    loom_status_t st = LOOM_OK;

    for (int i = 1; i < s->size && st == LOOM_OK; ++i) {
        int q = (s->rank + i) % s->size;   /* spread the readers over the owners */
        st = loom_coll_cma_read(s, q, (char *)s->rbuf + (size_t)q * blk,
                                loom_coll_cma_info(s, q)->sbuf + src_off, blk);
    }
    return st;
}

/* allgather (src_blk 0) and alltoall (1): every rank reads every other. */
static loom_status_t loom_coll_move_all(loom_request_t req, int src_blk)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t blk = s->count * s->esize;
    loom_status_t st;

    if ((st = loom_coll_cma_enter(s)) != LOOM_OK) {
        return st;
    }
    if (s->phase == PH_ARRIVED) {
        if ((st = loom_coll_move_all_arrived(s)) != LOOM_OK) {
            return st;
        }
        loom_coll_move_own(s, (const char *)s->sbuf + (src_blk ? (size_t)s->rank * blk : 0),
                           (size_t)s->rank * blk);
        if ((st = loom_coll_move_read_all(s, src_blk)) != LOOM_OK) {
            return loom_coll_cma_fail(s, st);
        }
        loom_coll_cma_step(s, 2);
        s->phase = PH_MOVED;
    }
    return loom_coll_move_all_done(s);
}

loom_status_t loom_coll_allgather_cma(loom_request_t req)
{
    return loom_coll_move_all(req, 0);
}

loom_status_t loom_coll_alltoall_cma(loom_request_t req)
{
    return loom_coll_move_all(req, 1);
}

/* A non-root of gather: wait for the root's end (or its failure). */
static loom_status_t loom_coll_gather_cma_wait_root(loom_coll_state_t *s)
{
    loom_status_t st;

    if (s->phase == PH_ARRIVED) {
        if ((st = loom_coll_move_root_arrived(s)) != LOOM_OK) {
            return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
        }
        if (loom_coll_move_splits(s) &&
            (st = loom_coll_move_push(s, s->root, loom_coll_cma_info(s, s->root)->rbuf +
                                                      (size_t)s->rank * s->count * s->esize,
                                      s->sbuf)) != LOOM_OK) {
            return loom_coll_cma_fail(s, st);
        }
        s->phase = PH_MOVED;
    }
    if (atomic_load_explicit(&loom_coll_shm_ctl(s, s->root)->step, memory_order_acquire) <
        (s->shm_seq << 2 | 2)) {
        return loom_coll_idle(s);
    }
    loom_coll_shm_leave(s);
    if (loom_unlikely(loom_coll_cma_info(s, s->root)->bad)) {
        loom_error("coll", "gather #%llu on %s: rank %d stops: the root (%d) could not "
                   "read the blocks", (unsigned long long)s->seq, s->comm->name, s->rank,
                   s->root);
        s->failed = 1;
        return LOOM_ERR_PEER_FAILED;
    }
    ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;   /* we did not see the others */
    return LOOM_OK;
}

loom_status_t loom_coll_gather_cma(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t blk = s->count * s->esize;
    loom_status_t st;

    if ((st = loom_coll_cma_enter(s)) != LOOM_OK) {
        return st;
    }
    if (s->rank != s->root) {
        return loom_coll_gather_cma_wait_root(s);
    }
    if (s->phase == PH_ARRIVED) {
        if ((st = loom_coll_move_all_arrived(s)) != LOOM_OK) {
            return st;
        }
        loom_coll_move_own(s, s->sbuf, (size_t)s->rank * blk);
        st = loom_coll_move_splits(s)
                 ? loom_coll_cma_read(s, 1 - s->rank, (char *)s->rbuf + (size_t)(1 - s->rank) * blk,
                                      loom_coll_cma_info(s, 1 - s->rank)->sbuf,
                                      loom_coll_move_split_at(s))
                 : loom_coll_move_read_all(s, 0);
        if (st != LOOM_OK) {
            return loom_coll_cma_fail(s, st);
        }
        s->phase = PH_PUSHED;
    }
    /* split: the other's part landed; its slot is read no more after this */
    if (loom_coll_move_splits(s) && (st = loom_coll_move_wait_push(s, 1 - s->rank)) != LOOM_OK) {
        return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
    }
    loom_coll_cma_step(s, 2);
    loom_coll_shm_leave(s);
    return LOOM_OK;
}

/* A non-root of scatter: read our block of the root's sendbuf. */
static loom_status_t loom_coll_scatter_cma_read(loom_coll_state_t *s)
{
    size_t blk = s->count * s->esize;
    loom_status_t st;

    if (s->phase == PH_ARRIVED) {
        size_t n = loom_coll_move_splits(s) ? loom_coll_move_split_at(s) : blk;

        if ((st = loom_coll_move_root_arrived(s)) != LOOM_OK) {
            return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
        }
        if ((st = loom_coll_cma_read(s, s->root, s->rbuf, loom_coll_cma_info(s, s->root)->sbuf +
                                     (size_t)s->rank * blk, n)) != LOOM_OK) {
            return loom_coll_cma_fail(s, st);
        }
        s->phase = PH_PUSHED;
    }
    if (loom_coll_move_splits(s) && (st = loom_coll_move_wait_push(s, s->root)) != LOOM_OK) {
        return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
    }
    if (loom_unlikely(loom_coll_cma_info(s, s->root)->bad)) {
        loom_error("coll", "scatter #%llu on %s: rank %d stops: the root (%d) failed this "
                   "call", (unsigned long long)s->seq, s->comm->name, s->rank, s->root);
        return loom_coll_cma_fail(s, LOOM_ERR_PEER_FAILED);
    }
    ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;   /* we did not see the others */
    loom_coll_cma_step(s, 2);
    loom_coll_shm_leave(s);
    return LOOM_OK;
}

loom_status_t loom_coll_scatter_cma(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t blk = s->count * s->esize;
    loom_status_t st;

    if ((st = loom_coll_cma_enter(s)) != LOOM_OK) {
        return st;
    }
    if (s->rank != s->root) {
        return loom_coll_scatter_cma_read(s);
    }
    if (s->phase == PH_ARRIVED) {
        if ((st = loom_coll_move_all_arrived(s)) != LOOM_OK) {
            return st;
        }
        /* split: the other's block, after its first part, into its recvbuf */
        if (loom_coll_move_splits(s) &&
            (st = loom_coll_move_push(s, 1 - s->rank, loom_coll_cma_info(s, 1 - s->rank)->rbuf,
                                      (const char *)s->sbuf +
                                          (size_t)(1 - s->rank) * blk)) != LOOM_OK) {
            return loom_coll_cma_fail(s, st);
        }
        /* our block of sendbuf into recvbuf (in place: it is there) */
        if ((const char *)s->sbuf + (size_t)s->rank * blk != s->rbuf) {
            memcpy(s->rbuf, (const char *)s->sbuf + (size_t)s->rank * blk, blk);
        }
        loom_coll_cma_step(s, 2);
        s->phase = PH_MOVED;
    }
    return loom_coll_move_all_done(s);
}
