/*
 * coll_neighbor_int.h: the request state of the neighbourhood all-to-all,
 * shared by its algorithm (neighbor_alltoallv.c) and its public calls
 * (coll_api_neighbor.c), and the algorithm's request hooks the calls
 * install. Split so the algorithm's file sits below the selection and the
 * API above it (docs/collectives.md "The files as a stack").
 */
#ifndef LOOM_COLL_NEIGHBOR_INT_H
#define LOOM_COLL_NEIGHBOR_INT_H

#include "coll_int.h"

/* The state: the generic part, then the lists (neighbor_alltoallv.c, coll_api_neighbor.c). */
typedef struct loom_coll_nbr_state {
    loom_coll_state_t c;         /* sbuf/rbuf, counts/displs = send bytes/offsets,
                                  * counts2/displs2 = receive bytes/offsets */
    const int        *dests;
    const int        *sources;
    int               outdeg;
    int               indeg;
    loom_request_t   *nreqs;     /* indeg receives, then outdeg sends (NULL: none) */
} loom_coll_nbr_state_t;

_Static_assert(sizeof(loom_coll_nbr_state_t) <= LOOM_REQ_PRIV_SIZE,
               "the neighbour state must fit in a request's private area");

static inline loom_coll_nbr_state_t *loom_coll_nbr_state(loom_request_t req)
{
    return (loom_coll_nbr_state_t *)(void *)req->priv;
}

/** Name of the call's phase, for hang reports (request phase_fn). */
const char *loom_coll_neighbor_phase_name(loom_request_t req);

/**
 * Cleanup of a call that ends with requests still out (an error): cancel
 * unmatched receives, finish matched ones, let sends complete on their
 * own; then the generic cleanup (request cleanup_fn).
 */
void loom_coll_neighbor_cleanup(loom_request_t req);

#endif /* LOOM_COLL_NEIGHBOR_INT_H */
