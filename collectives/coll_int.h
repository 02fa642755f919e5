/*
 * coll_int.h: the collectives layer's internal contract.
 *
 * Every collective call becomes one generic request (p2p/request_int.h)
 * whose private area holds a loom_coll_state_t: the resolved arguments, the
 * algorithm's phase and step counter, the point-to-point requests of the
 * current step and a temporary buffer. An algorithm is a progress function
 * (a switch over its own `enum phase`) that the progress engine calls until
 * it stops returning LOOM_INPROGRESS. Algorithms that are two simpler ones
 * back to back (scatter + allgather, reduce-scatter + gather) run the parts
 * as child requests with the same tag.
 *
 * Tags: every collective started on a communicator takes the next value of
 * comm->coll_seq; its tag on the communicator's collective context carries
 * the low 16 bits of that number, the collective's kind and its root (mod
 * 2048), so any number of nonblocking collectives can be in flight on one
 * communicator, and a rank that called a different collective, or the same
 * one with a different root, sends messages that never match: they wait as
 * unexpected messages, where a collective that has been waiting for a few
 * milliseconds looks for them (coll_check.c) and fails with an error naming
 * both ranks and both calls instead of hanging. Within one collective,
 * messages between two ranks rely on MPI's non-overtaking order (each
 * algorithm posts its receives from a peer in the order that peer sends).
 *
 * Reduction order: an algorithm that must respect rank order (a
 * non-commutative user op, or LOOM_DETERMINISTIC=1) computes the right fold
 * x0 op (x1 op (... op x(p-1))) for every element, which is what every such
 * path here (the shared-memory algorithms, the ordered reduce-scatter)
 * produces, bit for bit. The scan family is the exception: its canonical
 * order is the left fold ((x0 op x1) op ...) op xi, the chain's
 * (scan_chain.c), which every scan algorithm reproduces.
 *
 * Elements: an algorithm splits a vector only between elements of
 * s->esize bytes. For a reduction with a user op that has a unit
 * (loom_op_create_unit: an MPI derived type's size), the start makes that
 * unit the element (loom_coll_state_set_op), so every split point, block,
 * slice and chunk falls on the user's elements and the op is called with
 * whole ones (loom_coll_reduce converts back to basic elements).
 */
#ifndef LOOM_COLL_INT_H
#define LOOM_COLL_INT_H

#include <loom.h>
#include "comm_int.h"
#include "p2p_int.h"
#include "request_int.h"
#include "compiler_int.h"
#include "op_int.h"
#include "patterns/patterns.h"

#include <stdint.h>
#include <string.h>

typedef enum loom_coll_type {
    LOOM_COLL_BARRIER = 0,
    LOOM_COLL_BCAST,
    LOOM_COLL_REDUCE,
    LOOM_COLL_ALLREDUCE,
    LOOM_COLL_ALLGATHER,
    LOOM_COLL_GATHER,
    LOOM_COLL_SCATTER,
    LOOM_COLL_ALLTOALL,
    LOOM_COLL_REDUCE_SCATTER,
    LOOM_COLL_NEIGHBOR,          /* every neighbourhood collective (neighbor_alltoallv.c) */
    /* the scan family, reduce_scatter with per-rank counts, alltoallw */
    LOOM_COLL_SCAN,
    LOOM_COLL_EXSCAN,
    LOOM_COLL_REDUCE_SCATTERV,
    LOOM_COLL_ALLTOALLW,
    LOOM_COLL_TYPE_COUNT
} loom_coll_type_t;

/* How the vector is cut into per-rank blocks (ring, Bruck, scatter, ...). */
typedef enum loom_coll_layout {
    LOOM_COLL_LAYOUT_UNIFORM = 0, /* block i = elements [i*count, (i+1)*count) */
    LOOM_COLL_LAYOUT_SPLIT,       /* count split in p nearly equal blocks */
    LOOM_COLL_LAYOUT_VECTOR,      /* counts[i] elements at displs[i] */
} loom_coll_layout_t;

#define LOOM_COLL_MAX_REQS   8     /* point-to-point requests in flight per step */
#define LOOM_COLL_INLINE_TMP 128   /* temporary bytes kept inside the request */

/* tag = seq (16 bits) | kind (4 bits) << 16 | root mod 2048 << 20: 31 bits */
#define LOOM_COLL_TAG_SEQ_BITS   16
#define LOOM_COLL_TAG_SEQ_MASK   0xffffu
#define LOOM_COLL_TAG_KIND_SHIFT 16
#define LOOM_COLL_TAG_ROOT_SHIFT 20
#define LOOM_COLL_TAG_ROOT_MASK  0x7ffu
/* kind of a notice: "your collective #seq does not match mine", sent empty
 * to a rank whose message showed the mismatch, the error code (negated) in
 * the root field, so a rank left waiting for the others fails too */
#define LOOM_COLL_KIND_NOTICE    15u
/* kind of the messages of loom_comm_create_group's context agreement among
 * a subset of the communicator (comm_create.c); the mismatch check leaves
 * them alone */
#define LOOM_COLL_KIND_CREATE    14u

_Static_assert(LOOM_COLL_TYPE_COUNT <= LOOM_COLL_KIND_CREATE,
               "collective kinds must fit in the tag's 4 bits below the create and "
               "notice kinds");

static inline int loom_coll_tag_make(uint64_t seq, int kind, int root)
{
    return (int)((uint32_t)(seq & LOOM_COLL_TAG_SEQ_MASK) |
                 (uint32_t)kind << LOOM_COLL_TAG_KIND_SHIFT |
                 ((uint32_t)root & LOOM_COLL_TAG_ROOT_MASK) << LOOM_COLL_TAG_ROOT_SHIFT);
}

typedef struct loom_coll_state {
    /* arguments, LOOM_IN_PLACE resolved by the API layer */
    const void     *sbuf;
    void           *rbuf;
    size_t          count;      /* elements (per rank for gather-like calls) */
    size_t          esize;      /* bytes per element */
    size_t          unit;       /* basic elements of dt per element: 1, or a user
                                 * op's element (loom_coll_state_set_op) */
    const size_t   *counts;     /* VECTOR layout: per-rank counts ... */
    const size_t   *displs;     /* ... and displacements, in elements */
    const size_t   *counts2;    /* alltoallv: receive side */
    const size_t   *displs2;
    const loom_datatype_t *types;   /* alltoallw: per-peer send types (counts in */
    const loom_datatype_t *types2;  /* their elements, displs in bytes), receive types */
    loom_comm_t     comm;
    loom_datatype_t dt;
    loom_op_t       op;
    int             root;
    int             tag;
    int             rank;
    int             size;
    uint8_t         layout;     /* loom_coll_layout_t */
    uint8_t         ordered;    /* reduce in rank order (deterministic) */
    uint8_t         in_place;
    uint8_t         tmp_kind;
    uint8_t         kind;       /* loom_coll_type_t */
    uint8_t         is_child;   /* a part of a composed algorithm */
    uint8_t         comm_held;  /* launched: holds comm against a free (persist_refs) */
    uint8_t         failed;     /* an error was found (leftovers are dropped) */
    uint8_t         op_held;    /* holds a reference on a user op (loom_op_retain) */
    uint64_t        seq;        /* comm->coll_seq at the call (messages) */
    /* the state machine */
    int             phase;
    int             step;
    int             peer;
    int             nreq;
    size_t          off;        /* algorithm scratch (pipeline offset, ...) */
    size_t          len;
    loom_request_t  reqs[LOOM_COLL_MAX_REQS];
    loom_request_t  child;
    void           *tmp;
    size_t          tmp_bytes;
    void           *shm;        /* per-communicator shared-memory state */
    uint64_t        shm_seq;
    /* slow path: how long this collective has waited, expected receive sizes */
    uint32_t        idle;
    uint32_t        failures_seen; /* the p2p engine's peer-failure count last checked */
    double          idle_check;   /* loom_wtime() of the next mismatch check */
    double          idle_step;
    size_t          rlen[LOOM_COLL_MAX_REQS];
    uint8_t         inline_tmp[LOOM_COLL_INLINE_TMP] LOOM_ALIGNED(16);
} loom_coll_state_t;

_Static_assert(sizeof(loom_coll_state_t) <= LOOM_REQ_PRIV_SIZE,
               "loom_coll_state_t must fit in a request's private area");

static inline loom_coll_state_t *loom_coll_state(loom_request_t req)
{
    return (loom_coll_state_t *)(void *)req->priv;
}

/* ---- blocks of the vector ------------------------------------------------------ */

static inline size_t loom_coll_block_off(const loom_coll_state_t *s, int i)
{
    switch (s->layout) {
    case LOOM_COLL_LAYOUT_SPLIT:  return loom_pat_block_off(s->count, s->size, i);
    case LOOM_COLL_LAYOUT_VECTOR: return s->displs[i];
    default:                      return (size_t)i * s->count;
    }
}

static inline size_t loom_coll_block_len(const loom_coll_state_t *s, int i)
{
    switch (s->layout) {
    case LOOM_COLL_LAYOUT_SPLIT:  return loom_pat_block_len(s->count, s->size, i);
    case LOOM_COLL_LAYOUT_VECTOR: return s->counts[i];
    default:                      return s->count;
    }
}

/* ---- helpers used by every algorithm (coll_util.c) -------------------------------- */

/** Post a send of @p bytes to comm rank @p peer with the collective's tag. */
loom_status_t loom_coll_send(loom_coll_state_t *s, const void *buf, size_t bytes, int peer);

/** Post a receive of @p bytes from comm rank @p peer with the collective's tag. */
loom_status_t loom_coll_recv(loom_coll_state_t *s, void *buf, size_t bytes, int peer);

/**
 * LOOM_INPROGRESS while any posted request (or the child) is incomplete;
 * then releases them and returns LOOM_OK or the first error.
 */
loom_status_t loom_coll_wait(loom_coll_state_t *s);

/** Temporary buffer: inline when tiny, from a pool up to 64 KiB, else malloc. */
loom_status_t loom_coll_tmp_alloc(loom_coll_state_t *s, size_t bytes);

/** Release the temporary buffer and any requests still attached (cleanup_fn). */
void loom_coll_state_cleanup(loom_request_t req);

/**
 * The slow path of a collective that must wait: every call counts; after a
 * few milliseconds of waiting (then at growing intervals) it looks for
 * messages of this communicator's collectives that show a mismatch (another
 * collective, another root, another count: coll_check.c).
 * @return LOOM_INPROGRESS, or the mismatch error (already logged).
 */
loom_status_t loom_coll_idle(loom_coll_state_t *s);

/**
 * The mismatch check itself (@p shm: the caller runs a shared-memory
 * algorithm past its setup, so any message of its own number is a mismatch).
 * @return LOOM_OK if nothing is wrong, or the error (logged).
 */
loom_status_t loom_coll_check_mismatch(loom_coll_state_t *s, int shm);

/** Name of a collective kind ("allreduce"). */
const char *loom_coll_kind_name(int kind);

/** 1 if collectives of @p kind have a root. */
static inline int loom_coll_kind_rooted(int kind)
{
    return kind == LOOM_COLL_BCAST || kind == LOOM_COLL_REDUCE ||
           kind == LOOM_COLL_GATHER || kind == LOOM_COLL_SCATTER;
}

/** Remember the kind and root of the collective just started (coll_check.c). */
void loom_coll_record_start(loom_coll_state_t *s);

/** Mark this collective done (@p failed: its leftover messages are dropped). */
void loom_coll_record_done(const loom_coll_state_t *s, int failed);

/**
 * Requests and temporary buffers a failed collective left behind (a send
 * the peer never matched, a receive whose data is still moving): kept here
 * and released once they complete. Swept at every collective start.
 */
extern int loom_coll_orphans_pending;
void loom_coll_orphans_sweep(void);

/** Receive (and drop) the unexpected message @p src sent with @p tag. */
loom_status_t loom_coll_orphan_drain(loom_comm_t comm, int src, int tag, size_t bytes);

/** Send an empty message with @p tag to @p dst, released once sent. */
loom_status_t loom_coll_orphan_send(loom_comm_t comm, int dst, int tag);

/** Reduce @p n elements (of s->esize bytes): inout = in op inout. */
static inline void loom_coll_reduce(const loom_coll_state_t *s, const void *in,
                                    void *inout, size_t n)
{
    loom_op_apply(s->op, in, inout, n * s->unit, s->dt);
}

/**
 * Set the reduction @p op of a collective on @p count elements of s->dt per
 * block (checked by loom_op_check). A user op made with a unit
 * (loom_op_create_unit) makes the collective's element the op's element:
 * s->esize becomes the unit, s->unit the basic elements in it, and the
 * count is returned in those elements in *count_p, so that every algorithm,
 * which splits only between elements of s->esize bytes, splits on the
 * user's elements. LOOM_ERR_INVALID_COUNT (logged) when @p count is not a
 * whole number of them. Every reduction's start calls it.
 */
/**
 * Set @p s's operation and hold it until the state is cleaned up: a user
 * operation freed (loom_op_free) while a nonblocking reduction is in
 * flight stays callable until that reduction ends (MPI_Op_free after
 * MPI_Ireduce is legal).
 */
void loom_coll_state_hold_op(loom_coll_state_t *s, loom_op_t op);

loom_status_t loom_coll_state_set_op(loom_coll_state_t *s, loom_op_t op, size_t count,
                                     const char *who, size_t *count_p);

static inline char *loom_coll_at(const void *base, size_t elems, size_t esize)
{
    return (char *)base + elems * esize;
}

/**
 * Start a child collective (same comm, same tag) running @p progress_fn on
 * state @p args (copied); the parent waits for it with loom_coll_wait().
 */
loom_status_t loom_coll_child_start(loom_coll_state_t *s, const char *name,
                                    loom_request_progress_fn_t progress_fn,
                                    const loom_coll_state_t *args);

/* ---- the non-power-of-two pre/post steps (coll_rd_prepost.c) --------------------------- */

/**
 * Pre-step start: the input goes to recvbuf; an extra rank (rd->newrank < 0)
 * sends its vector to its buddy and posts the receive of the result (it
 * then only waits); a rank with a buddy posts the receive of the buddy's
 * vector into a new temporary of the vector's size.
 */
loom_status_t loom_coll_rd_pre_start(loom_coll_state_t *s, const loom_pat_rd_t *rd);

/** Pre-step end: wait (LOOM_INPROGRESS meanwhile), fold the buddy's vector. */
loom_status_t loom_coll_rd_pre_fold(loom_coll_state_t *s, const loom_pat_rd_t *rd);

/** Post-step: send the result to the buddy (if any); wait with loom_coll_wait. */
loom_status_t loom_coll_rd_post(loom_coll_state_t *s, const loom_pat_rd_t *rd);

/* ---- algorithms ---------------------------------------------------------------------- */

/*
 * The blocking call of an algorithm without a request (coll_fast.c), for
 * the kinds that have one; coll_api.c calls it when the selection gives
 * that algorithm and the communicator's collective state lets it run now
 * (loom_coll_comm_fast_ready: no on-node operation in flight, nothing
 * left behind by a failed one). It then takes the call: the status is the
 * call's result (LOOM_ERRORS applied). The arguments are validated and
 * resolved by the caller (esize: bytes per element; for allreduce, what
 * the caller admitted for (count, dt, op): element size, kernel, op). A
 * fast member has at most six arguments, in the registers where the
 * public call has its own where it can, so the caller reaches it by a
 * jump.
 */
typedef loom_status_t (*loom_coll_fast_barrier_fn_t)(loom_comm_t comm);
typedef loom_status_t (*loom_coll_fast_bcast_fn_t)(void *buf, size_t count, size_t esize,
                                                   int root, loom_comm_t comm);
/* what the blocking allreduce admitted for a call (coll_api.c), kept in
 * the communicator's collective state */
typedef struct loom_coll_fast_ar loom_coll_fast_ar_t;
typedef loom_status_t (*loom_coll_fast_allreduce_fn_t)(const void *sbuf, void *rbuf,
                                                       size_t count, loom_datatype_t dt,
                                                       const loom_coll_fast_ar_t *how,
                                                       loom_comm_t comm);
struct loom_coll_fast_ar {
    size_t                        count;   /* reusable for this count (0: not) */
    loom_datatype_t               dt;
    loom_op_t                     op;
    size_t                        esize;
    loom_op_kernel_fn_t           kernel;  /* NULL: through loom_op_apply */
    loom_coll_fast_allreduce_fn_t fn;      /* the selected algorithm's fast member */
};
/* reduce: @p how is the caller's admission of (count, type, op), @p sbuf
 * may be LOOM_IN_PLACE at the root */
typedef loom_status_t (*loom_coll_fast_reduce_fn_t)(const void *sbuf, void *rbuf,
                                                    size_t count,
                                                    const loom_coll_fast_ar_t *how,
                                                    int root, loom_comm_t comm);
/* gather and scatter: @p bytes per rank's block; @p sbuf (gather) or
 * @p rbuf (scatter) may be LOOM_IN_PLACE at the root */
typedef loom_status_t (*loom_coll_fast_move_fn_t)(const void *sbuf, void *rbuf, size_t bytes,
                                                  int root, loom_comm_t comm);
/* one member, of the table's kind (NULL: none) */
typedef union loom_coll_fast {
    loom_coll_fast_barrier_fn_t   barrier;
    loom_coll_fast_bcast_fn_t     bcast;
    loom_coll_fast_allreduce_fn_t allreduce;
    loom_coll_fast_reduce_fn_t    reduce;
    loom_coll_fast_move_fn_t      move;       /* gather, scatter */
} loom_coll_fast_t;

typedef struct loom_coll_alg {
    const char                 *name;
    loom_request_progress_fn_t  progress;
    unsigned                    flags;
    const char                 *desc;
    /* what runs the call instead when it must reduce in rank order
     * (s->ordered: LOOM_DETERMINISTIC=1 or a non-commutative op); NULL when
     * this algorithm needs no substitute. Applied by the selection. */
    const struct loom_coll_alg *ordered;
    /* optional: the blocking call without a request (coll_fast.c) */
    loom_coll_fast_t            fast;
} loom_coll_alg_t;

#define LOOM_COLL_ALG_SHM      0x1u  /* needs every rank of comm on this node */
#define LOOM_COLL_ALG_ORDERED  0x2u  /* reduces in rank order (deterministic) */
#define LOOM_COLL_ALG_VECTOR   0x4u  /* handles per-rank counts (v variants) */
#define LOOM_COLL_ALG_CMA      0x8u  /* on-node, reads peers' buffers with
                                      * process_vm_readv (any size) */
#define LOOM_COLL_ALG_MCAST    0x10u /* transport multicast, agreed per
                                      * communicator (bcast_mcast.c) */
#define LOOM_COLL_ALG_SHM_ALL  0x20u /* with SHM: a rank's slot holds all p of
                                      * its blocks (alltoall_shm.c) */
#define LOOM_COLL_ALG_ONE_WAIT 0x40u /* with CMA: each rank waits once (only
                                      * the root for everybody), so the table
                                      * keeps it when ranks outnumber cores */
#define LOOM_COLL_ALG_SHM_STAGE 0x100u /* with SHM: up to the segment's stage
                                        * (LOOM_COLL_SHM_STAGE_BYTES), not the slot */
#define LOOM_COLL_ALG_SHARED_CORES 0x200u /* the table gives it only when
                                          * ranks outnumber cores (bcast
                                          * stage; forcing runs it anyway) */
#define LOOM_COLL_ALG_NO_IN_PLACE 0x80u /* cannot run an in-place call
                                         * (alltoall cma) */

/**
 * The algorithm that runs this call: the forced LOOM_<COLL>_ALGORITHM or
 * the first eligible rule of the table, its ordered substitute when
 * s->ordered. Never re-decided by the algorithm. When the answer depends
 * on a communicator set-up not yet done, it is that set-up step, which
 * runs the set-up and then this selection: loom_coll_alg_setup (the
 * on-node segment), loom_coll_alg_cma_setup (the process_vm_readv
 * verdict), or the multicast agreement.
 */
const loom_coll_alg_t *loom_coll_select(loom_coll_type_t type, loom_comm_t comm,
                                        size_t bytes, const loom_coll_state_t *s);

/** The selection's answer for a call that waits for the segment's set-up. */
extern const loom_coll_alg_t loom_coll_alg_setup;

/** The selection's answer for an allreduce that would run "cma" while this
 *  rank does not know the communicator's CMA verdict to be "yes" (the probe,
 *  or on "no" the operation spent, then loom_coll_select_after_cma). */
extern const loom_coll_alg_t loom_coll_alg_cma_setup;

/**
 * The selection of a call whose CMA step (loom_coll_alg_cma_setup) has
 * run: the verdict is known then, the same on every rank; "no" gives what
 * the table gives below cma.
 */
const loom_coll_alg_t *loom_coll_select_after_cma(loom_coll_type_t type, loom_comm_t comm,
                                                  size_t bytes, const loom_coll_state_t *s);

/** 1 under LOOM_DETERMINISTIC=1. */
int loom_coll_deterministic(void);

#define LOOM_COLL_PROTO(name) loom_status_t name(loom_request_t req)
LOOM_COLL_PROTO(loom_coll_barrier_dissemination);
LOOM_COLL_PROTO(loom_coll_barrier_shm);
LOOM_COLL_PROTO(loom_coll_bcast_binomial);
LOOM_COLL_PROTO(loom_coll_bcast_scatter_allgather);
LOOM_COLL_PROTO(loom_coll_bcast_chain);
LOOM_COLL_PROTO(loom_coll_bcast_shm);
LOOM_COLL_PROTO(loom_coll_bcast_cma);
LOOM_COLL_PROTO(loom_coll_bcast_stage);     /* bcast_shm.c */
LOOM_COLL_PROTO(loom_coll_gather_cma);      /* move_cma.c */
LOOM_COLL_PROTO(loom_coll_scatter_cma);
LOOM_COLL_PROTO(loom_coll_allgather_cma);
LOOM_COLL_PROTO(loom_coll_alltoall_cma);
LOOM_COLL_PROTO(loom_coll_reduce_binomial);
LOOM_COLL_PROTO(loom_coll_reduce_rabenseifner);
LOOM_COLL_PROTO(loom_coll_reduce_ordered);
LOOM_COLL_PROTO(loom_coll_reduce_shm);
LOOM_COLL_PROTO(loom_coll_allreduce_recursive_doubling);
LOOM_COLL_PROTO(loom_coll_allreduce_rabenseifner);
LOOM_COLL_PROTO(loom_coll_allreduce_ring);
LOOM_COLL_PROTO(loom_coll_allreduce_shm);
LOOM_COLL_PROTO(loom_coll_allreduce_ordered);
LOOM_COLL_PROTO(loom_coll_allreduce_ordered_rd);   /* gathers by recursive doubling */
LOOM_COLL_PROTO(loom_coll_allreduce_cma);
LOOM_COLL_PROTO(loom_coll_allreduce_cma_probe);
LOOM_COLL_PROTO(loom_coll_reduce_cma);    /* the CMA set-up step's work */
LOOM_COLL_PROTO(loom_coll_allgather_recursive_doubling);
LOOM_COLL_PROTO(loom_coll_allgather_ring);
LOOM_COLL_PROTO(loom_coll_allgather_bruck);
LOOM_COLL_PROTO(loom_coll_allgather_shm);
LOOM_COLL_PROTO(loom_coll_gather_binomial);
LOOM_COLL_PROTO(loom_coll_gather_linear);
LOOM_COLL_PROTO(loom_coll_gather_shm);
LOOM_COLL_PROTO(loom_coll_gather_stage);    /* gather_shm.c */
LOOM_COLL_PROTO(loom_coll_scatter_binomial);
LOOM_COLL_PROTO(loom_coll_scatter_linear);
LOOM_COLL_PROTO(loom_coll_scatter_shm);
LOOM_COLL_PROTO(loom_coll_scatter_stage);   /* scatter_shm.c */
LOOM_COLL_PROTO(loom_coll_alltoall_pairwise);
LOOM_COLL_PROTO(loom_coll_alltoall_bruck);
LOOM_COLL_PROTO(loom_coll_alltoall_shm);
LOOM_COLL_PROTO(loom_coll_reduce_scatter_ring);
LOOM_COLL_PROTO(loom_coll_reduce_scatter_ordered);
LOOM_COLL_PROTO(loom_coll_reduce_scatter_shm);    /* reduce_scatter_shm.c */
LOOM_COLL_PROTO(loom_coll_neighbor_linear);
/* pieces used by the composed algorithms */
LOOM_COLL_PROTO(loom_coll_reduce_scatter_halving);
/* scan and exscan (s->kind tells which), reduce_scatter with per-rank
 * counts, alltoallw (s->counts/displs/counts2/displs2 in bytes) */
LOOM_COLL_PROTO(loom_coll_scan_chain);
LOOM_COLL_PROTO(loom_coll_scan_recursive_doubling);
LOOM_COLL_PROTO(loom_coll_reduce_scatterv_pairwise);
LOOM_COLL_PROTO(loom_coll_reduce_scatterv_ring);
LOOM_COLL_PROTO(loom_coll_reduce_scatterv_shm);   /* reduce_scatter_shm.c */
LOOM_COLL_PROTO(loom_coll_alltoallw_linear);
LOOM_COLL_PROTO(loom_coll_alltoallw_pairwise);

/**
 * reduce_scatterv: the block offsets (prefix sums of s->counts) into the
 * front of a new temporary of @p extra more bytes, whose start is *work_p
 * (16-byte aligned); sets the VECTOR layout.
 */
loom_status_t loom_coll_rsv_setup(loom_coll_state_t *s, size_t extra, char **work_p);

/** alltoallw: bytes and byte offset of the block for/from rank @p i. */
static inline size_t loom_coll_a2aw_send(const loom_coll_state_t *s, int i, size_t *off_p)
{
    *off_p = s->displs[i];
    return s->counts[i] * loom_datatype_size(s->types[i]);
}

static inline size_t loom_coll_a2aw_recv(const loom_coll_state_t *s, int i, size_t *off_p)
{
    *off_p = s->displs2[i];
    return s->counts2[i] * loom_datatype_size(s->types2[i]);
}

/** Bytes and byte offset of rank @p i's block on one side of an alltoall family call. */
typedef size_t (*loom_coll_a2a_block_fn_t)(const loom_coll_state_t *s, int i, size_t *off_p);

/**
 * In place: snapshot the receive side (its blocks located by @p recv) into
 * tmp from byte @p at, and read the send side from there; tmp is allocated
 * (at + the snapshot) either way. Empty blocks do not count (recvbuf may be
 * NULL when all are).
 */
loom_status_t loom_coll_a2a_snapshot(loom_coll_state_t *s, size_t at,
                                     loom_coll_a2a_block_fn_t recv);

/** alltoallw: copy the own block (send side -> receive side). */
void loom_coll_a2aw_self(loom_coll_state_t *s);

#endif /* LOOM_COLL_INT_H */
