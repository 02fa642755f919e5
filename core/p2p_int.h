/*
 * p2p_int.h: the point-to-point engine's internal entry points, for the
 * collectives layer and communicator creation. Arguments are NOT validated
 * (the public wrappers do that); sizes are in bytes; ranks are comm ranks;
 * @p which is LOOM_CTX_P2P or LOOM_CTX_COLL (comm_int.h).
 */
#ifndef LOOM_P2P_INT_H
#define LOOM_P2P_INT_H

#include <loom.h>
#include "comm_int.h"
#include "request_int.h"

#define LOOM_P2P_FLAG_SYNC 0x1u   /* complete only once the receive matched */

loom_status_t loom_p2p_isend_int(const void *buf, size_t bytes, int dest, int tag,
                                 loom_comm_t comm, uint32_t which, unsigned flags,
                                 loom_request_t *req_p);

loom_status_t loom_p2p_irecv_int(void *buf, size_t bytes, int src, int tag,
                                 loom_comm_t comm, uint32_t which,
                                 loom_request_t *req_p);

/** 1 if a request is complete (does not progress, does not release). */
static inline int loom_request_is_complete(loom_request_t req)
{
    return req->complete;
}

/** 1 when ranks outnumber cores and idle loops must yield the CPU. */
int loom_progress_oversubscribed(void);

/** Called by a blocking loop that found nothing to do (yields when oversubscribed). */
void loom_progress_idle(void);

#endif /* LOOM_P2P_INT_H */
