/*
 * reduce_cma.c: large reduce on one node, the root reading every input in
 * place with process_vm_readv (CMA) and folding it into its result.
 *
 *   rank r:  {pid, sendbuf} -> slot[r][n % 2]; arrived[r] = n
 *   root:    wait every arrival (signatures agree)
 *            in chunks of LOOM_COLL_CMA_WORKSET / 2 (p = 2) or / 3:
 *              acc  = x[p-1] (read from rank p-1's sendbuf straight into
 *                     recvbuf)
 *              acc  = x[q] op acc  for q = p-2 .. 0  (peers' chunks read
 *                     into a scratch chunk, ours used where it lies)
 *              [last chunk, right after its last read of a peer:
 *               step[root] = 4n+2; the folds left touch only the root]
 *   others:  wait arrived[root] >= n, root's signature == ours;
 *            wait step[root] >= 4n+2: the root no longer reads our sendbuf;
 *            done without seeing the others (the next operation catches up)
 *
 * Each rank waits once (the non-roots for the root only), so when ranks
 * outnumber cores a call costs one scheduling round, and the table keeps
 * this algorithm there (LOOM_COLL_ALG_ONE_WAIT; at np 4 on 2 cores it beat
 * binomial and rabenseifner 2-10x from 32 KiB up, docs/collectives.md).
 * The non-roots used to wait for every arrival as well: a second round.
 * They wait for the root's reads only, not its folds (session 15): the
 * step is published after the last read of the last chunk, so at p = 2
 * the non-root returns while the root folds the last chunk (up to 512
 * KiB; OSU's average over the ranks counts the non-root's time too).
 *
 * One handoff per call instead of one per message of a tree or of the
 * reduce-scatter + gather (docs/collectives.md, issue 21): every input byte
 * is read once, by the root, with one single-copy read, and folded where
 * it lands. The non-roots leave only once the root has read their inputs:
 * the buffer is the user's again when the call returns. The fold x0 op (x1
 * op (... x(p-1))) is that of reduce "shm", allreduce "shm"/"cma" and the
 * ordered algorithms: LOOM_DETERMINISTIC gives the same bits, and
 * non-commutative and user ops get their operands in rank order (whole
 * elements: a chunk holds whole elements, s->esize <= LOOM_COLL_CMA_MAX_ESIZE).
 * MPI_IN_PLACE at the root (s->sbuf == s->rbuf): each chunk of our input is
 * copied to the scratch's upper half before the read overwrites it.
 *
 * At p = 2 from 64 KiB the other rank does not wait idle: it writes the
 * end of its input into the root's result while the root reads the start
 * (the split, below; docs/collectives.md "Session 18").
 *
 * Whether process_vm_readv is allowed is the communicator's CMA verdict,
 * found by the same set-up step as allreduce's (coll_select.c,
 * loom_coll_allreduce_cma_probe), which probes a byte of each process's own
 * rather than a buffer of the call, so it serves reduce too. A call whose
 * step found "yes" comes here with the operation entered and its buffers
 * published.
 */
#include "coll_shm.h"
#include "log_int.h"

#include <stdlib.h>

enum phase { PH_ENTER = 0, PH_ARRIVED, PH_ROOT_WAIT,   /* 0, 1: loom_coll_cma_enter's */
             PH_PUSH, PH_FOLD };                        /* p = 2, split: non-root, root */

/*
 * p = 2, split (session 18): from LOOM_COLL_REDUCE_SPLIT_MIN bytes the
 * root reads the first LOOM_COLL_REDUCE_SPLIT_READ / 64 of the non-root's
 * input, and the non-root writes the rest into the root's result with
 * process_vm_writev meanwhile, so the two cores share the copy the root
 * did alone; the root folds its own input into both parts.
 */
enum { LOOM_COLL_REDUCE_SPLIT_MIN = 64 * 1024, LOOM_COLL_REDUCE_SPLIT_READ = 26 };

/* the non-root's writes in pieces of this many bytes (the root folds each as it lands) */
#define LOOM_COLL_REDUCE_PUSH_PIECE ((size_t)256 * 1024)

/* whole elements; the peer chunk below WORKSET / 2, our in-place copy above */
static size_t loom_coll_reduce_cma_chunk(const loom_coll_state_t *s)
{
    size_t streams = s->size <= 2 ? 2 : 3;
    return LOOM_COLL_CMA_WORKSET / streams / s->esize * s->esize;
}

/*
 * The root has read rank @p q's chunk. After the last read of the last
 * chunk (@p final; the fold reads peers from p-1 down, so the lowest peer
 * is read last) no peer's memory is touched again: release the others.
 */
static void loom_coll_reduce_cma_read_done(const loom_coll_state_t *s, int q, int final)
{
    if (final && q == (s->root == 0 ? 1 : 0)) {
        loom_coll_cma_step(s, 2);
    }
}

/* acc (n bytes at byte offset off of the result) = x0 op (x1 op (... x(p-1))),
 * the last chunk when @p final. */
static loom_status_t loom_coll_reduce_cma_fold(loom_coll_state_t *s, size_t off, size_t n,
                                               int final)
{
    char *acc = (char *)s->rbuf + off, *peer = ((loom_coll_comm_t *)s->shm)->cma_tmp;
    const char *own = (const char *)s->sbuf + off;
    int last = s->size - 1;
    loom_status_t st = LOOM_OK;

    if (own == acc && s->rank != last) {   /* in place: acc is our input */
        memcpy(peer + LOOM_COLL_CMA_WORKSET / 2, own, n);
        own = peer + LOOM_COLL_CMA_WORKSET / 2;
    }
    if (s->rank != last) {
        st = loom_coll_cma_read(s, last, acc, loom_coll_cma_info(s, last)->sbuf + off, n);
        if (st == LOOM_OK) {
            loom_coll_reduce_cma_read_done(s, last, final);
        }
    } else if (own != acc) {
        memcpy(acc, own, n);
    }
    for (int q = last - 1; q >= 0 && st == LOOM_OK; --q) {
        if (q == s->rank) {
            loom_coll_reduce(s, own, acc, n / s->esize);
        } else if ((st = loom_coll_cma_read(s, q, peer, loom_coll_cma_info(s, q)->sbuf + off,
                                            n)) == LOOM_OK) {
            loom_coll_reduce_cma_read_done(s, q, final);
            loom_coll_reduce(s, peer, acc, n / s->esize);
        }
    }
    return st;
}

/* The root's whole result, chunk by chunk. */
static loom_status_t loom_coll_reduce_cma_root(loom_coll_state_t *s)
{
    size_t len = s->count * s->esize, chunk = loom_coll_reduce_cma_chunk(s);
    loom_coll_comm_t *cc = s->shm;
    loom_status_t st = LOOM_OK;

    if (s->size > 1 && len > 0 && cc->cma_tmp == NULL &&
        (cc->cma_tmp = malloc(LOOM_COLL_CMA_WORKSET)) == NULL) {
        loom_error("coll", "%s: cannot allocate %zu bytes of scratch for reduce",
                   s->comm->name, LOOM_COLL_CMA_WORKSET);
        return LOOM_ERR_NO_MEMORY;
    }
    for (size_t pos = 0; pos < len && st == LOOM_OK; pos += chunk) {
        st = loom_coll_reduce_cma_fold(s, pos, len - pos < chunk ? len - pos : chunk,
                                       len - pos <= chunk);
    }
    return st;
}

/*
 * Whether this call splits the copy (the same answer on both ranks: the
 * root's published buffers, the signature's count, type and op): p = 2,
 * the root's result is not its input (the non-root writes there), and the
 * fold's operands stay in rank order, x0 op x1, with the non-root's x1 in
 * the result: the root is rank 0, or the op commutes exactly.
 */
static int loom_coll_reduce_cma_splits(const loom_coll_state_t *s)
{
    const loom_coll_cma_info_t *root = loom_coll_cma_info(s, s->root);

    return s->size == 2 && s->count * s->esize >= LOOM_COLL_REDUCE_SPLIT_MIN &&
           root->sbuf != root->rbuf &&
           (s->root == 0 || loom_op_commutes_exactly(s->op, s->dt));
}

/* bytes of the vector the root reads; the non-root writes the rest (whole elements) */
static size_t loom_coll_reduce_cma_split_at(const loom_coll_state_t *s)
{
    return s->count * LOOM_COLL_REDUCE_SPLIT_READ / 64 * s->esize;
}

/* The root, split: [0, at) read and folded. */
static loom_status_t loom_coll_reduce_cma_root_read(loom_coll_state_t *s)
{
    size_t at = loom_coll_reduce_cma_split_at(s), chunk = loom_coll_reduce_cma_chunk(s);
    int q = 1 - s->rank;
    loom_status_t st = LOOM_OK;

    for (size_t pos = 0; pos < at && st == LOOM_OK; pos += chunk) {
        size_t n = at - pos < chunk ? at - pos : chunk;
        char *acc = (char *)s->rbuf + pos;

        st = loom_coll_cma_read(s, q, acc, loom_coll_cma_info(s, q)->sbuf + pos, n);
        if (st == LOOM_OK) {
            loom_coll_reduce(s, (const char *)s->sbuf + pos, acc, n / s->esize);
        }
    }
    s->off = at;
    return st;
}

/*
 * The root, split: fold ours into what the other rank wrote, as it lands.
 * Once all of it landed, the other rank's slot is read no more: step 2
 * lets it leave (before, it could run ahead to the operation after next,
 * which reuses the slot, and reset the count we read).
 */
static loom_status_t loom_coll_reduce_cma_root_fold(loom_coll_state_t *s)
{
    size_t len = s->count * s->esize, got;
    loom_status_t st;

    while (s->off < len) {
        if ((st = loom_coll_cma_pushed(s, 1 - s->rank, s->off + 1, &got)) != LOOM_OK) {
            return st;
        }
        if (got == len) {
            loom_coll_cma_step(s, 2);
        }
        loom_coll_reduce(s, (const char *)s->sbuf + s->off, (char *)s->rbuf + s->off,
                         (got - s->off) / s->esize);
        s->off = got;
    }
    return LOOM_OK;
}

/* The non-root, split: [at, len) of our input into the root's result. */
static loom_status_t loom_coll_reduce_cma_push(loom_coll_state_t *s)
{
    size_t len = s->count * s->esize;
    size_t piece = LOOM_COLL_REDUCE_PUSH_PIECE / s->esize * s->esize;
    uint64_t dst = loom_coll_cma_info(s, s->root)->rbuf;
    loom_status_t st = LOOM_OK;

    if (piece == 0) {
        piece = s->esize;
    }
    for (size_t pos = loom_coll_reduce_cma_split_at(s); pos < len && st == LOOM_OK;
         pos += piece) {
        st = loom_coll_cma_push_rest(s, s->root, dst, s->sbuf, pos,
                                     len - pos < piece ? len : pos + piece);
    }
    return st;
}

/* A non-root: LOOM_OK once the root has published its end (it failed: the
 * error), else in progress. */
static loom_status_t loom_coll_reduce_cma_wait_root(loom_coll_state_t *s)
{
    uint64_t want = s->shm_seq << 2 | 2;
    loom_status_t st;

    if (s->phase == PH_ARRIVED) {
        if (atomic_load_explicit(&loom_coll_shm_ctl(s, s->root)->arrived,
                                 memory_order_acquire) < s->shm_seq) {
            return loom_coll_idle(s);
        }
        /* the root's signature: never wait for the end of another call's root */
        if ((st = loom_coll_shm_check_root(s)) != LOOM_OK) {
            return st;
        }
        s->phase = loom_coll_reduce_cma_splits(s) ? PH_PUSH : PH_ROOT_WAIT;
    }
    if (s->phase == PH_PUSH) {
        if ((st = loom_coll_reduce_cma_push(s)) != LOOM_OK) {
            loom_coll_cma_info(s, s->rank)->bad = 1;   /* the root stops waiting for it */
            return st;
        }
        s->phase = PH_ROOT_WAIT;
    }
    if (atomic_load_explicit(&loom_coll_shm_ctl(s, s->root)->step, memory_order_acquire) <
        want) {
        return loom_coll_idle(s);
    }
    if (loom_unlikely(loom_coll_cma_info(s, s->root)->bad)) {
        loom_error("coll", "reduce #%llu on %s: rank %d stops: the root (%d) could not "
                   "read or fold the inputs", (unsigned long long)s->seq, s->comm->name,
                   s->rank, s->root);
        return LOOM_ERR_PEER_FAILED;
    }
    return LOOM_OK;
}

/* Selected only on a communicator whose CMA verdict is "yes". */
loom_status_t loom_coll_reduce_cma(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st;

    if ((st = loom_coll_cma_enter(s)) != LOOM_OK) {
        return st;
    }
    if (s->rank == s->root) {
        if (s->phase == PH_ARRIVED) {
            if ((st = loom_coll_shm_wait(s)) != LOOM_OK) {
                return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
            }
            s->peer = 0;
            st = loom_coll_reduce_cma_splits(s) ? loom_coll_reduce_cma_root_read(s)
                                                : loom_coll_reduce_cma_root(s);
            if (st != LOOM_OK) {
                return loom_coll_cma_fail(s, st);
            }
            s->phase = loom_coll_reduce_cma_splits(s) ? PH_FOLD : PH_ROOT_WAIT;
        }
        if (s->phase == PH_FOLD && (st = loom_coll_reduce_cma_root_fold(s)) != LOOM_OK) {
            return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
        }
        loom_coll_cma_step(s, 2);   /* published already unless nothing was read */
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    if ((st = loom_coll_reduce_cma_wait_root(s)) != LOOM_OK) {
        return st == LOOM_INPROGRESS ? st : (loom_coll_shm_leave(s), s->failed = 1, st);
    }
    ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;   /* we did not see the others */
    loom_coll_shm_leave(s);
    return LOOM_OK;
}
