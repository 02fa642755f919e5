/*
 * coll_fast.h: the blocking calls' shortcut to the on-node shared-memory
 * algorithms (coll_fast.c): the `fast` members of the shm algorithms'
 * entries (coll_select.c), which coll_api.c calls when the selection gives
 * those algorithms. The caller has validated the arguments and found the
 * communicator's segment set up and idle (loom_coll_comm_fast_ready), so
 * they always take the call: the status is the call's result (LOOM_ERRORS
 * applied).
 */
#ifndef LOOM_COLL_FAST_H
#define LOOM_COLL_FAST_H

#include "coll_int.h"

/** loom_barrier() on the shared segment. */
loom_status_t loom_coll_fast_barrier(loom_comm_t comm);

/** loom_bcast() of at most LOOM_COLL_SHM_MAX_BYTES on the shared segment. */
loom_status_t loom_coll_fast_bcast(void *buf, size_t count, size_t esize, int root,
                                   loom_comm_t comm);

/**
 * loom_allreduce() of at most LOOM_COLL_SHM_MAX_BYTES on the shared
 * segment: slot[0] op (... op slot[p-1]) with the element size, kernel,
 * type and op the caller admitted (@p how); @p sbuf may be LOOM_IN_PLACE.
 */
loom_status_t loom_coll_fast_allreduce(const void *sbuf, void *rbuf, size_t count,
                                       loom_datatype_t dt, const loom_coll_fast_ar_t *how,
                                       loom_comm_t comm);

/**
 * loom_reduce() of at most LOOM_COLL_SHM_MAX_BYTES on the shared segment
 * (reduce_shm.c's eager steps): every rank's input to its slot, the root
 * folds slot[0] op (... op slot[p-1]) into @p rbuf; @p how as for
 * allreduce; @p sbuf may be LOOM_IN_PLACE at the root.
 */
loom_status_t loom_coll_fast_reduce(const void *sbuf, void *rbuf, size_t count,
                                    const loom_coll_fast_ar_t *how, int root,
                                    loom_comm_t comm);

/**
 * loom_gather() of blocks of @p bytes (the root's p blocks within
 * LOOM_COLL_SHM_MAX_BYTES each) on the shared segment (gather_shm.c's
 * eager steps): the non-roots copy their block into their slot and
 * return, the root waits for every arrival and copies the blocks out;
 * @p sbuf may be LOOM_IN_PLACE at the root.
 */
loom_status_t loom_coll_fast_gather(const void *sbuf, void *rbuf, size_t bytes, int root,
                                    loom_comm_t comm);

/**
 * loom_gather() as loom_coll_fast_gather, through the segment's stage
 * (gather "stage": p x @p bytes within LOOM_COLL_SHM_STAGE_BYTES).
 */
loom_status_t loom_coll_fast_gather_stage(const void *sbuf, void *rbuf, size_t bytes, int root,
                                          loom_comm_t comm);

/**
 * loom_scatter() of blocks of @p bytes (p x @p bytes within
 * LOOM_COLL_SHM_MAX_BYTES) on the shared segment (scatter_shm.c's eager
 * steps): the root copies its p blocks into its slot and returns, the
 * others wait for the root only; @p rbuf may be LOOM_IN_PLACE at the root.
 */
loom_status_t loom_coll_fast_scatter(const void *sbuf, void *rbuf, size_t bytes, int root,
                                     loom_comm_t comm);

/**
 * loom_scatter() as loom_coll_fast_scatter, through the segment's stage
 * (scatter "stage": p x @p bytes within LOOM_COLL_SHM_STAGE_BYTES).
 */
loom_status_t loom_coll_fast_scatter_stage(const void *sbuf, void *rbuf, size_t bytes, int root,
                                           loom_comm_t comm);

/**
 * loom_allgather() of blocks of @p bytes (at most LOOM_COLL_SHM_MAX_BYTES)
 * on the shared segment (allgather_shm.c's steps; @p root unused);
 * @p sbuf may be LOOM_IN_PLACE.
 */
loom_status_t loom_coll_fast_allgather(const void *sbuf, void *rbuf, size_t bytes, int root,
                                       loom_comm_t comm);

/**
 * loom_alltoall() of blocks of @p bytes (p x @p bytes within
 * LOOM_COLL_SHM_MAX_BYTES) on the shared segment (alltoall_shm.c's steps;
 * @p root unused); @p sbuf may be LOOM_IN_PLACE.
 */
loom_status_t loom_coll_fast_alltoall(const void *sbuf, void *rbuf, size_t bytes, int root,
                                      loom_comm_t comm);

#endif /* LOOM_COLL_FAST_H */
