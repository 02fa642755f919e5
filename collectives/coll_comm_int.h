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
 * - The blocking fast path's cached selection answer (coll_fast.c).
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
    uint64_t  recent[LOOM_COLL_RECENT];
    /* fast path: does the selection give the shm algorithm for these bytes? */
    size_t    fast_bytes[LOOM_COLL_TYPE_COUNT];
    int8_t    fast_ok[LOOM_COLL_TYPE_COUNT];   /* -1 unknown, 0 no, 1 yes */
    /* fast allreduce: the last (count, type, predefined op) it took, with
     * its element size and kernel (count 0: none) */
    size_t              fast_ar_count;
    loom_datatype_t     fast_ar_dt;
    loom_op_t           fast_ar_op;
    size_t              fast_ar_esize;
    loom_op_kernel_fn_t fast_ar_kernel;
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

/** The per-communicator state, created on first use (NULL: out of memory). */
loom_coll_comm_t *loom_coll_comm_get(loom_comm_t comm);

#endif /* LOOM_COLL_COMM_INT_H */
