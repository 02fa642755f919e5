/*
 * coll_shm.h: the per-communicator shared-memory segment of the on-node
 * collective algorithms (barrier "shm", allreduce "shm").
 *
 * When every rank of a communicator is on this node, the first shared-memory
 * collective on it creates a segment "/loom-<jobid>-coll-<context id>"
 * -<world rank of comm rank 0>" (mode 0600; split gives every color one context id, the suffix tells them apart): the lowest rank creates and zeroes it and tells the others
 * by point-to-point message; they map it and answer; the creator unlinks
 * the name once every rank has mapped it, so nothing is left in /dev/shm
 * even if the job is killed afterwards. The mapping is released when the
 * communicator is freed (comm->coll_priv_free).
 *
 * Layout: per rank one cache line holding its arrival counter (C11 atomic,
 * written only by that rank with release order, read by the others with
 * acquire), then two data slots of LOOM_COLL_SHM_MAX_BYTES used alternately
 * by consecutive operations. Shared-memory operations on one communicator
 * run one at a time, in the order they were started (all ranks start
 * collectives in the same order), so the n-th operation publishes arrival
 * n. Reusing slot parity n%2 at operation n is safe: a rank starts n only
 * after seeing every rank arrive at n-1, i.e. after every rank finished
 * reading the slots of n-2.
 */
#ifndef LOOM_COLL_SHM_H
#define LOOM_COLL_SHM_H

#include "coll_int.h"

#include <stdatomic.h>

/** Largest allreduce that runs on the shared-memory algorithm (per rank). */
#define LOOM_COLL_SHM_MAX_BYTES ((size_t)8192)

typedef struct loom_coll_shm_ctl {
    _Atomic uint64_t arrived;   /* number of the last operation this rank joined */
    char             pad[LOOM_CACHE_LINE - sizeof(uint64_t)];
} loom_coll_shm_ctl_t;

/** 1 if every rank of @p comm is on this node (cached per communicator). */
int loom_coll_shm_eligible(loom_comm_t comm);

/**
 * Called first by a shared-memory algorithm's progress function: sets up
 * the segment on first use and waits for this operation's turn.
 * @return LOOM_OK once s->shm_seq is this operation's number and the
 * segment may be used, LOOM_INPROGRESS meanwhile, or an error.
 */
loom_status_t loom_coll_shm_enter(loom_coll_state_t *s);

/** Mark this operation done (lets the next one on the comm run). */
void loom_coll_shm_leave(loom_coll_state_t *s);

/** Control line of comm rank @p r. */
loom_coll_shm_ctl_t *loom_coll_shm_ctl(const loom_coll_state_t *s, int r);

/** Data slot of comm rank @p r for this operation (parity of s->shm_seq). */
void *loom_coll_shm_slot(const loom_coll_state_t *s, int r);

/**
 * Publish arrival at this operation, then report whether every rank has
 * arrived (s->peer counts ranks seen so far). @return 1 when all arrived.
 */
int loom_coll_shm_all_arrived(loom_coll_state_t *s);

#endif /* LOOM_COLL_SHM_H */
