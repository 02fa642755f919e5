/*
 * request_int.h: requests as the core and the collectives layer see them.
 *
 * Point-to-point requests are created by the p2p engine. The collectives
 * layer creates "generic" requests: a progress function and inline private
 * storage for its state machine; the progress engine calls the function
 * from loom_progress() until it returns something other than
 * LOOM_INPROGRESS, then completes the request with that status. Requests
 * come from a memory pool: no malloc per operation.
 */
#ifndef LOOM_REQUEST_INT_H
#define LOOM_REQUEST_INT_H

#include <loom.h>
#include "list_int.h"

#include <stdint.h>

typedef enum loom_request_kind {
    LOOM_REQ_SEND = 1,
    LOOM_REQ_RECV,
    LOOM_REQ_GENERIC,  /* collectives and other state machines */
} loom_request_kind_t;

/** Bytes of private state a generic request carries inline. */
#define LOOM_REQ_PRIV_SIZE 640

typedef loom_status_t (*loom_request_progress_fn_t)(loom_request_t req);
typedef void (*loom_request_cleanup_fn_t)(loom_request_t req);

/*
 * The p2p engine owns the layout of the p2p part; collectives use only the
 * fields marked "generic" and the functions below.
 */
struct loom_request_p2p;  /* defined by the p2p engine */

struct loom_request {
    loom_list_t          list;        /* in the queue that owns it now */
    uint8_t              kind;        /* loom_request_kind_t */
    uint8_t              complete;    /* generic: set by the engine */
    uint8_t              user_freed;  /* loom_request_free(): release at completion */
    uint8_t              flags;
    loom_status_t        status;      /* generic: outcome once complete */
    loom_msg_status_t    msg;         /* what the user's status gets */
    loom_comm_t          comm;
    const char          *op_name;     /* generic: "allreduce", for hang reports */
    uint64_t             op_seq;      /* generic: collective number on comm */
    /* generic, optional, for hang reports ("active ... alg=ring state=step2"):
     * the algorithm's name and a function naming the current phase; NULL
     * prints "?". Set by the collectives layer after loom_request_generic_alloc. */
    const char          *alg_name;
    const char         *(*phase_fn)(loom_request_t req);
    /* generic requests */
    loom_request_progress_fn_t progress_fn;
    loom_request_cleanup_fn_t  cleanup_fn;
    /* p2p engine state (layout private to core/p2p) */
    uint64_t             p2p[24];
    /* generic private state, 16-byte aligned */
    uint8_t              priv[LOOM_REQ_PRIV_SIZE] __attribute__((aligned(16)));
};

/**
 * Create a generic request on @p comm whose state machine is @p progress_fn.
 * The caller fills req->priv before the first loom_progress(); the engine
 * calls @p progress_fn once from loom_request_generic_start() and then from
 * every loom_progress() until it stops returning LOOM_INPROGRESS; then
 * @p cleanup_fn (may be NULL) runs and the request completes.
 */
loom_status_t loom_request_generic_alloc(loom_comm_t comm, const char *op_name,
                                         loom_request_progress_fn_t progress_fn,
                                         loom_request_cleanup_fn_t cleanup_fn,
                                         loom_request_t *req_p);

/** Start a generic request (runs its first step now). */
void loom_request_generic_start(loom_request_t req);

/** Return a completed request to the pool (internal users; users call wait/test). */
void loom_request_release(loom_request_t req);

/**
 * Block (progressing, yielding when oversubscribed) until @p req completes;
 * returns its status and releases it. For internal blocking calls.
 */
loom_status_t loom_request_wait_int(loom_request_t req, loom_msg_status_t *status);

#endif /* LOOM_REQUEST_INT_H */
