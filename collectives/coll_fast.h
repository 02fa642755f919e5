/*
 * coll_fast.h: the blocking calls' shortcut to the on-node shared-memory
 * algorithms (coll_fast.c). Each returns LOOM_INPROGRESS when it does not
 * apply (segment not set up yet or busy, size or selection not shm, an
 * argument the request path must judge); the caller then takes the request
 * path. Any other status is the call's result (LOOM_ERRORS applied).
 */
#ifndef LOOM_COLL_FAST_H
#define LOOM_COLL_FAST_H

#include <loom.h>

/** loom_barrier() on the shared segment. */
loom_status_t loom_coll_fast_barrier(loom_comm_t comm);

/** loom_bcast() of at most LOOM_COLL_SHM_MAX_BYTES on the shared segment. */
loom_status_t loom_coll_fast_bcast(void *buf, size_t count, loom_datatype_t dt, int root,
                                   loom_comm_t comm);

/**
 * loom_allreduce() itself: at most LOOM_COLL_SHM_MAX_BYTES on the shared
 * segment, everything else (and every argument error) handed on to
 * loom_coll_allreduce_req() as a tail call, so the common call is one jump
 * from the public entry point. Never returns LOOM_INPROGRESS.
 */
loom_status_t loom_coll_fast_allreduce(const void *sbuf, void *rbuf, size_t count,
                                       loom_datatype_t dt, loom_op_t op, loom_comm_t comm);

/** The request path of loom_allreduce() (coll_api.c). */
loom_status_t loom_coll_allreduce_req(const void *sbuf, void *rbuf, size_t count,
                                      loom_datatype_t dt, loom_op_t op, loom_comm_t comm);

#endif /* LOOM_COLL_FAST_H */
