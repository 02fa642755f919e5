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

#include <stdint.h>

/* internal to libloom: calls bind inside the library (no PLT, inlinable) */
#pragma GCC visibility push(hidden)

#define LOOM_P2P_FLAG_SYNC 0x1u   /* complete only once the receive matched */

loom_status_t loom_p2p_isend_int(const void *buf, size_t bytes, int dest, int tag,
                                 loom_comm_t comm, uint32_t which, unsigned flags,
                                 loom_request_t *req_p);

loom_status_t loom_p2p_irecv_int(void *buf, size_t bytes, int src, int tag,
                                 loom_comm_t comm, uint32_t which,
                                 loom_request_t *req_p);

/**
 * Look for a message matching (@p src, @p tag) on @p comm's context @p which
 * in the unexpected queue, without receiving it; fills @p status (may be
 * LOOM_STATUS_IGNORE) when found. Does not progress. @return 1 if found.
 */
int loom_p2p_probe_int(int src, int tag, loom_comm_t comm, uint32_t which,
                       loom_msg_status_t *status);

/**
 * As loom_p2p_probe_int for any tag from @p src (not a wildcard), but skip
 * the messages whose tag has bits @p skip_val under @p skip_mask: the
 * earliest other one. For the collectives' mismatch check (slow path: it
 * walks the unexpected messages in arrival order).
 */
int loom_p2p_probe_skip_int(int src, loom_comm_t comm, uint32_t which, uint32_t skip_mask,
                            uint32_t skip_val, loom_msg_status_t *status);

/** 1 if a request is complete (does not progress, does not release). */
static inline int loom_request_is_complete(loom_request_t req)
{
    return req->complete;
}

/**
 * Apply the LOOM_ERRORS policy to a failed public call @p op: abort the job
 * (LOOM_ERRORS=abort, the default) with a message naming @p op and the
 * error, or return @p status (LOOM_ERRORS=return). Call with a negative
 * status only, once, where the public call fails.
 */
loom_status_t loom_p2p_error(loom_status_t status, const char *op);

/**
 * Number of peers this process has found failed so far. It only grows, so a
 * waiter compares it with the value it saw last and scans its ranks with
 * loom_p2p_peer_failed() only when it moved.
 */
unsigned loom_p2p_peer_failures(void);

/** LOOM_OK, or why world rank @p world_rank is unusable (e.g. PEER_FAILED). */
loom_status_t loom_p2p_peer_failed(int world_rank);

/**
 * A blocking collective that waits outside a generic request (the on-node
 * fast path, which polls loom_progress() itself) says what it is inside,
 * for hang reports: loom_progress_coll_enter() before its wait loop,
 * loom_progress_coll_leave() after; @p c lives on the caller's stack. Two
 * stores each, so the fast path can afford it. @p alg and @p state may be
 * NULL ("?" in the report); @p state may be updated while waiting.
 */
typedef struct loom_progress_coll {
    struct loom_progress_coll *prev;
    const char  *call;    /* "loom_allreduce" */
    const char  *kind;    /* "allreduce" */
    loom_comm_t  comm;
    uint64_t     seq;     /* the collective's number on comm */
    const char  *alg;     /* "shm" */
    const char  *state;   /* phase, e.g. "wait-arrivals" */
} loom_progress_coll_t;

/** Innermost collective registered by loom_progress_coll_enter (or NULL). */
extern loom_progress_coll_t *loom_progress_coll_top;

static inline void loom_progress_coll_enter(loom_progress_coll_t *c)
{
    c->prev = loom_progress_coll_top;
    loom_progress_coll_top = c;
}

static inline void loom_progress_coll_leave(loom_progress_coll_t *c)
{
    loom_progress_coll_top = c->prev;
}

/**
 * One progress pass that never yields, counted as the polling waiter's
 * (hang reports): for loops that decide their own yields, such as the
 * collectives' on-node fast path. @return events processed.
 */
int loom_progress_poll(void);

/** 1 when ranks outnumber cores and idle loops must yield the CPU. */
int loom_progress_oversubscribed(void);

/** Called by a blocking loop that found nothing to do (yields when oversubscribed). */
void loom_progress_idle(void);

/**
 * A layer above the engine (rma/: the targets of its windows) polls here:
 * every progress pass calls @p fn (one test when none is set). It may start
 * sends and receives; its own progress calls re-enter it, so it guards
 * itself. One hook; NULL removes it. @return events the hook handled.
 */
typedef int (*loom_progress_hook_fn_t)(void);
extern loom_progress_hook_fn_t loom_progress_hook;
void loom_progress_hook_set(loom_progress_hook_fn_t fn);

/*
 * Frames for a layer above the engine (p2p_am.c, session 16): one frame,
 * never matched, no request on either side. The receiver's engine hands it
 * to the function registered for its id, from the progress pass that polls
 * the transport, before any matching. Such frames travel in the peer's
 * frame stream like eager messages: what a rank sent to a peer before one
 * (messages, other frames) reaches the peer's engine before it.
 */

/** Handler ids (one per layer). */
enum { LOOM_P2P_AM_RMA = 0, LOOM_P2P_AM_IDS = 4 };

/**
 * A frame's handler: @p ctx is the context id the sender named
 * (loom_comm_ctx of its communicator), @p src its rank in that
 * communicator, [@p data, + @p len) the payload, valid during the call
 * only (copy what is kept; no alignment promised). Called from a progress
 * pass, with the engine in the state a progress hook sees: it may send
 * (frames, messages) and post receives, not wait.
 */
typedef void (*loom_p2p_am_fn_t)(uint32_t ctx, int src, const void *data, size_t len);

/**
 * Register @p fn for frames of @p id (NULL removes it; frames that arrive
 * for an id without a function are logged and dropped).
 * @return LOOM_OK, LOOM_ERR_INVALID_ARG for an id >= LOOM_P2P_AM_IDS.
 */
loom_status_t loom_p2p_am_set(uint8_t id, loom_p2p_am_fn_t fn);

/**
 * Largest payload loom_p2p_am_send_int takes to communicator rank @p dest
 * of @p comm (the transport's max_am less the header, at most the peer's
 * eager limit). Fixed for the peer's life: ask once.
 */
size_t loom_p2p_am_max(int dest, loom_comm_t comm);

/**
 * One frame of @p len bytes at @p data to communicator rank @p dest of
 * @p comm, handled there by the function registered for @p id with the
 * context of (@p comm, @p which). The data is copied out before this
 * returns (the caller keeps its buffer); no request, nothing to complete.
 * @return LOOM_OK: handed to the transport; LOOM_ERR_NO_RESOURCE: nothing
 * sent, back-pressure (the transport is full, or earlier frames to that
 * peer wait in the engine's queue and this one must not overtake them):
 * the caller keeps it and retries later, or sends it as a message (which
 * queues behind the waiting frames, so the order holds);
 * LOOM_ERR_INVALID_ARG: @p len above loom_p2p_am_max (nothing sent); the
 * peer's failure, or a transport error (logged).
 */
loom_status_t loom_p2p_am_send_int(int dest, loom_comm_t comm, uint32_t which, uint8_t id,
                                   const void *data, size_t len);

#pragma GCC visibility pop

#endif /* LOOM_P2P_INT_H */
