/*
 * p2p_mcast_int.h: multicast groups of communicators, for the collectives
 * layer (collectives/bcast_mcast.c), which must not see a transport.
 *
 * Design. The first multicast broadcast on a communicator looks up its
 * entry here (keyed by context id and member list) and, when one transport
 * serves every other member from this process and offers multicast, joins
 * that transport's group (mc_join). Whether every member joined is then
 * agreed by the caller (an allreduce), and the outcome is stored in the
 * entry: from then on every rank of the communicator takes the same branch,
 * multicast or the tree algorithms, without talking. Entries live until
 * finalize (there is no hook on communicator destruction here; a new
 * communicator with the same context id and members finds the old entry,
 * which is consistent because its members went through the same calls).
 */
#ifndef LOOM_P2P_MCAST_INT_H
#define LOOM_P2P_MCAST_INT_H

#include <loom.h>
#include "comm_int.h"
#include "tl.h"

#include <stddef.h>
#include <stdint.h>

typedef struct loom_p2p_mc {
    uint32_t      context_id;
    uint64_t      key;
    int           size;
    int           agreed;      /* 0: not yet; 1: multicast; -1: tree algorithms */
    int           agreeing;    /* a call's agreement is in flight: later calls
                                * wait for its outcome (bcast_mcast.c) */
    int           local_ok;    /* this process joined */
    char          why[96];     /* why not, when local_ok is 0 */
    loom_tl_mc_t *mc;          /* NULL when no transport could */
} loom_p2p_mc_t;

/** One multicast broadcast in flight: completion, owned by the caller. */
typedef struct loom_p2p_mc_op {
    loom_tl_comp_t comp;
    int            done;
    loom_status_t  status;
} loom_p2p_mc_op_t;

/** Largest broadcast sent by multicast (LOOM_IB_MCAST_THRESHOLD, capped; 0 = off). */
size_t loom_p2p_mc_threshold(void);

/**
 * The entry of @p comm, created (and the group joined, when possible) on
 * first use. Local; never fails for lack of multicast (local_ok says).
 * @return LOOM_OK, or LOOM_ERR_NO_MEMORY.
 */
loom_status_t loom_p2p_mc_get(loom_comm_t comm, loom_p2p_mc_t **entry_p);

/** Record the agreed outcome (@p all_ok: every member joined). */
void loom_p2p_mc_agree(loom_p2p_mc_t *e, int all_ok);

/**
 * Reliable broadcast of @p len bytes from comm rank @p root on an agreed
 * entry. LOOM_OK: done; LOOM_INPROGRESS: op->done becomes 1 from a later
 * progress, with op->status; LOOM_ERR_NO_RESOURCE: an earlier one is still
 * in flight on this communicator, call again; other: error (logged).
 */
loom_status_t loom_p2p_mc_bcast(loom_p2p_mc_t *e, int root, void *buf, size_t len,
                                loom_p2p_mc_op_t *op);

#endif /* LOOM_P2P_MCAST_INT_H */
