/*
 * coll_comm_int.h: what the collectives layer keeps per communicator
 * (comm->coll_priv, created on first use, freed with the communicator).
 *
 * - The shared-memory segment of the on-node algorithms (coll_shm.c) and the
 *   order of shared-memory operations on this communicator.
 * - The kind and root of the last LOOM_COLL_RECENT collectives started
 *   here, indexed by sequence number, so the mismatch check (coll_check.c)
 *   can tell a message of another rank's collective #n from ours: recorded
 *   by one store at each start, read only on the slow path.
 * - The blocking calls' cached selection answer per kind (the algorithm
 *   for the last size asked, coll_select.c) and the arguments the blocking
 *   allreduce admitted last (coll_api.c).
 */
#ifndef LOOM_COLL_COMM_INT_H
#define LOOM_COLL_COMM_INT_H

#include "coll_int.h"

enum { LOOM_COLL_SHM_NONE = 0, LOOM_COLL_SHM_SETUP, LOOM_COLL_SHM_READY,
       LOOM_COLL_SHM_FAILED };

/* may every rank read every other rank's memory with process_vm_readv?
 * Agreed by all ranks in the first operation that needs it */
enum { LOOM_COLL_CMA_UNKNOWN = 0, LOOM_COLL_CMA_YES, LOOM_COLL_CMA_NO };

#define LOOM_COLL_RECENT 64u   /* power of two, well below 2^16 */

/* recent[] entry: seq & 0xffff | kind << 16 | root11 << 20 | flags */
#define LOOM_COLL_REC_DONE   (1ull << 32)
#define LOOM_COLL_REC_FAILED (1ull << 33)
#define LOOM_COLL_REC_VALID  (1ull << 34)

typedef struct loom_coll_comm {
    int       eligible;      /* every rank on this node */
    int       state;         /* LOOM_COLL_SHM_* */
    int       cma;           /* LOOM_COLL_CMA_* */
    int       oversub;       /* ranks outnumber cores (fast path: spin or yield) */
    uint64_t  pid;           /* ours, published by allreduce_cma.c */
    void     *cma_tmp;       /* its scratch (2 chunks), made at first use */
    void     *base;
    size_t    size;
    uint64_t  next_seq;      /* number given to the last shm operation started */
    uint64_t  done_seq;      /* last shm operation completed here */
    /* every rank is known to have arrived at shm operation synced_seq: an
     * operation n may publish (slots, signature, arrival) only once
     * synced_seq >= n - 1 (coll_shm.h, "eager" operations) */
    uint64_t  synced_seq;
    uint64_t  eager_seq;     /* collective number of the last eager shm operation */
    uint64_t  recent[LOOM_COLL_RECENT];
    /* blocking calls: the algorithm the selection gives for fast_bytes
     * (NULL: not asked yet) */
    size_t                  fast_bytes[LOOM_COLL_TYPE_COUNT];
    const loom_coll_alg_t  *fast_alg[LOOM_COLL_TYPE_COUNT];
    /* blocking allreduce (coll_api.c): the last (count, type, predefined
     * op) admitted, reused while the calls repeat it, and the admission of
     * a call with a user op (which may be freed: admitted every time) */
    loom_coll_fast_ar_t fast_ar;
    loom_coll_fast_ar_t fast_ar_user;
    char      name[128];
} loom_coll_comm_t;

/** Record the start of collective @p seq (coll_check.c reads it). */
static inline void loom_coll_record_put(loom_coll_comm_t *cc, uint64_t seq, int kind,
                                        int root)
{
    cc->recent[seq % LOOM_COLL_RECENT] =
        (uint32_t)loom_coll_tag_make(seq, kind, loom_coll_kind_rooted(kind) ? root : 0) |
        LOOM_COLL_REC_VALID;
}

/**
 * May a blocking call run its algorithm's fast member now? The on-node
 * segment is set up, no on-node operation is in flight on it (a
 * nonblocking one keeps its number order), and no failed collective left
 * requests behind (the request path sweeps them).
 */
static inline int loom_coll_comm_fast_ready(const loom_coll_comm_t *cc)
{
    return cc->state == LOOM_COLL_SHM_READY && cc->next_seq == cc->done_seq &&
           !loom_coll_orphans_pending;
}

/**
 * The algorithm the blocking call of @p type on @p bytes runs on @p cc's
 * communicator (coll_select.c), remembered in cc->fast_alg; NULL for an
 * intercommunicator. Its fast member, if any, takes the call.
 */
const loom_coll_alg_t *loom_coll_select_blocking(loom_coll_comm_t *cc, loom_comm_t comm,
                                                 loom_coll_type_t type, size_t bytes);

/** The per-communicator state, created on first use (NULL: out of memory). */
loom_coll_comm_t *loom_coll_comm_get(loom_comm_t comm);

/** 1 if every rank of @p comm is on this node and its segment has not
 *  failed (cached per communicator; coll_comm.c). */
int loom_coll_shm_eligible(loom_comm_t comm);

/**
 * 1 if every rank of @p comm is on this node and shared memory is allowed
 * (LOOM_TRANSPORTS): fixed when the communicator's state is made, so every
 * rank gives the same answer at any moment. Unlike
 * loom_coll_shm_eligible(), it does not change when the segment's set-up
 * verdict arrives (at different times on different ranks), so a choice
 * between message algorithms may depend on it (coll_select.c).
 */
int loom_coll_comm_one_node(loom_comm_t comm);

#endif /* LOOM_COLL_COMM_INT_H */
