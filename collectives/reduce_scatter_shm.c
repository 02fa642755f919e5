/*
 * reduce_scatter_shm.c: small reduce_scatter (block and per-rank counts)
 * through the per-communicator segment.
 *
 *   rank r:  copy its whole input (every block) -> slot[r][n % 2];
 *            sig, arrived[r] = n                               (release)
 *            wait until arrived[q] >= n for every q (acquire); sigs agree
 *            out = slot[0][block r] op (slot[1][block r] op (...
 *                  op slot[p-1][block r]))
 *            (an empty block r: done after the arrival, session 18)
 *
 * allreduce "shm" with each rank folding only its own block: one arrival
 * round and no message, where the ring (reduce_scatter_block) and the
 * pairwise exchange (reduce_scatter with per-rank counts) take p - 1
 * dependent message steps, each a wake-up of the peer when ranks
 * outnumber cores (session 14: np 8, 4-16 B, 1.6-3.1x Open MPI's time).
 * Only for inputs that fit the slot (LOOM_COLL_SHM_MAX_BYTES of the whole
 * vector), always in the slot proper (loom_coll_shm_slot_whole): s->count
 * is one block, so loom_coll_shm_slot would give the 8-byte field of the
 * control line to an input of p blocks. Every rank reads p blocks of its own size, from the other
 * cores' caches.
 *
 * The fold is the right fold in rank order, that of the pairwise exchange,
 * the ordered reduce_scatter_block and the shared-memory reductions, so
 * LOOM_DETERMINISTIC gives the same bits whatever the algorithm, and
 * non-commutative operations get their operands in rank order. In place
 * (sendbuf = recvbuf holding every block) the input is copied to the slot
 * before anything is written to the result.
 */
#include "coll_shm.h"

/* bytes before block r: r blocks of s->count (block), prefix sum (counts) */
static size_t loom_coll_rs_shm_offset(const loom_coll_state_t *s, size_t *n_p)
{
    size_t off = 0;

    if (s->layout != LOOM_COLL_LAYOUT_VECTOR) {
        *n_p = s->count;
        return (size_t)s->rank * s->count * s->esize;
    }
    for (int i = 0; i < s->rank; ++i) {
        off += s->counts[i];
    }
    *n_p = s->counts[s->rank];
    return off * s->esize;
}

/*
 * Shared by both kinds: s->count is the block (block) or the total (counts).
 * A rank whose block is empty (per-rank counts with zeros: a vector of
 * fewer elements than ranks, as OSU's 4 and 8 B sizes give) only
 * contributes: it publishes and returns, as reduce's non-roots do, and the
 * next operation catches up (coll_shm.h, "Eager operations").
 */
static loom_status_t loom_coll_rs_shm_run(loom_coll_state_t *s, size_t total)
{
    size_t n, off = loom_coll_rs_shm_offset(s, &n);
    loom_status_t st;

    if (n == 0 && s->phase == 0) {
        if ((st = loom_coll_shm_publish_in(s, 1, s->sbuf, total * s->esize)) != LOOM_OK) {
            return st;
        }
        ((loom_coll_comm_t *)s->shm)->eager_seq = s->seq;   /* we did not see the others */
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    if ((st = loom_coll_shm_exchange(s, 1, s->sbuf, total * s->esize)) != LOOM_OK) {
        return st;
    }
    if (n > 0) {
        memcpy(s->rbuf, (const char *)loom_coll_shm_slot_whole(s, s->size - 1) + off, n * s->esize);
        for (int q = s->size - 2; q >= 0; --q) {
            loom_coll_reduce(s, (const char *)loom_coll_shm_slot_whole(s, q) + off, s->rbuf, n);
        }
    }
    loom_coll_shm_leave(s);
    return LOOM_OK;
}

/** reduce_scatter_block: p blocks of s->count elements in every input. */
loom_status_t loom_coll_reduce_scatter_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);

    return loom_coll_rs_shm_run(s, s->count * (size_t)s->size);
}

/** reduce_scatter: block i of s->counts[i] elements, s->count the total. */
loom_status_t loom_coll_reduce_scatterv_shm(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);

    return loom_coll_rs_shm_run(s, s->count);
}
