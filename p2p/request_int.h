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
    uint8_t              ext;         /* loom_request_ext_kind_t: 0 for ordinary requests */
    uint8_t              inactive;    /* persistent: not started, or completed and returned */
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
    /* p2p engine state (layout private to p2p/) */
    uint64_t             p2p[24];
    /* generic private state, 16-byte aligned */
    uint8_t              priv[LOOM_REQ_PRIV_SIZE] __attribute__((aligned(16)));
};

/*
 * Requests that outlive or extend the ordinary life cycle (request.c
 * "extended requests"): persistent requests keep their handle across
 * completions (loom_start restarts them); generalized requests (MPI
 * Grequest) are completed by their owner and report their status through
 * a callback. Their state lives in priv[] as a loom_request_ext_t, so an
 * ordinary request pays only one test of req->ext where the user completes
 * it.
 */
typedef enum loom_request_ext_kind {
    LOOM_REQ_EXT_NONE = 0,
    LOOM_REQ_EXT_PERSIST,   /* persistent send/recv, or one with a start_fn */
    LOOM_REQ_EXT_GREQ,      /* completed by loom_request_ext_complete */
} loom_request_ext_kind_t;

/*
 * Callbacks of an extended request. start: starts the operation of a
 * persistent request that is not a plain send or receive (MPI buffered
 * mode); it completes @p req with loom_request_ext_complete or returns an
 * error (the request then stays inactive). finish: a generalized request
 * is returned to the user: fill @p status (may be LOOM_STATUS_IGNORE) and
 * return the operation's outcome; @p release is 1 when the request is then
 * released (the owner frees its own state), 0 for a non-destructive query.
 */
typedef loom_status_t (*loom_request_start_fn_t)(loom_request_t req);
typedef loom_status_t (*loom_request_finish_fn_t)(loom_request_t req,
                                                  loom_msg_status_t *status, int release);

/** State of an extended request, at the start of its priv[]. */
typedef struct loom_request_ext {
    loom_request_start_fn_t  start_fn;   /* persistent: NULL = p2p send/recv below */
    loom_request_finish_fn_t finish_fn;  /* greq */
    void                    *buf;        /* persistent p2p: the operation's arguments */
    size_t                   bytes;
    int                      peer;       /* comm rank (or ANY_SOURCE / PROC_NULL) */
    int                      tag;
    unsigned                 flags;      /* LOOM_P2P_FLAG_* */
    uint8_t                  is_recv;
    struct loom_dt          *dt;         /* persistent p2p of a non-contiguous type (a
                                          * reference until the request is freed), or
                                          * NULL; then bytes counts elements of it */
    uint64_t                 user[12];   /* the owner's state (MPI layer) */
} loom_request_ext_t;

_Static_assert(sizeof(loom_request_ext_t) <= LOOM_REQ_PRIV_SIZE,
               "loom_request_ext_t must fit in loom_request::priv");

static inline loom_request_ext_t *loom_request_ext(loom_request_t req)
{
    return (loom_request_ext_t *)(void *)req->priv;
}

/** 1 if @p req is a persistent request that is not active (ignored by waits). */
static inline int loom_request_is_inactive(loom_request_t req)
{
    return req->inactive != 0;
}

/**
 * Create an inactive persistent request on @p comm whose loom_start()
 * calls @p start_fn (kind LOOM_REQ_GENERIC); the caller fills the ext's
 * user[] state.
 */
loom_status_t loom_request_persist_custom(loom_comm_t comm, const char *op_name,
                                          loom_request_start_fn_t start_fn,
                                          loom_request_t *req_p);

/** Create a generalized request on @p comm (active until loom_request_ext_complete). */
loom_status_t loom_request_greq_alloc(loom_comm_t comm, loom_request_finish_fn_t finish_fn,
                                      loom_request_t *req_p);

/** Complete an extended request (a greq, or a custom persistent start) with @p status. */
void loom_request_ext_complete(loom_request_t req, loom_status_t status);

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
