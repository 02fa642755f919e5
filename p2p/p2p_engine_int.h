/*
 * p2p_engine_int.h: the point-to-point engine's private state and the
 * calls its files make to each other, one section per file.
 *
 * One engine per process (loom is single-threaded): the open transports,
 * one peer entry per world rank (its endpoint, the protocol thresholds
 * chosen once at init from the transport's capabilities, and the queue of
 * frames waiting for back-pressure to clear), the matching engine, and the
 * pools that keep the fast path free of malloc.
 *
 * The files form a stack (docs/p2p.md "The files as a stack"; checked by
 * test/base/test_file_stacks.sh): a file calls only files below it. Helpers
 * every layer uses and the fast paths inline are static inline here, so
 * they tie no file to another.
 *
 * Request layout: struct loom_request (request_int.h) reserves p2p[] for
 * this engine; loom_p2p_req_t is what lives there.
 */
#ifndef LOOM_P2P_ENGINE_INT_H
#define LOOM_P2P_ENGINE_INT_H

#include "p2p_int.h"
#include "p2p_proto_int.h"
#include "match_int.h"
#include "mpool_int.h"
#include "tl.h"
#include "dt_int.h"
#include "mt_int.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* internal to libloom: calls bind inside the library (no PLT, inlinable) */
#pragma GCC visibility push(hidden)

#define LOOM_P2P_MAX_IFACES   8
/* largest single get(); bigger rendezvous reads are issued in chunks */
#define LOOM_P2P_GET_CHUNK    ((size_t)1 << 30)
/* a typed rendezvous receive: iovec pieces per get_iov, bytes of its bounce
 * buffer where the transport cannot scatter (docs/p2p.md "Derived datatypes") */
#define LOOM_P2P_GET_IOV      1024
#define LOOM_P2P_DT_BOUNCE    ((size_t)256 << 10)
/* get_iov or get_riov only when the pieces average at least this many bytes
 * (unless the transport says otherwise, caps.iov_min_piece): below it the
 * kernel's per-piece cost (~40 ns a piece measured on shm with 8-byte
 * pieces) exceeds one contiguous read into the bounce plus an unpack (on the
 * sender: a pack); applied on each side to its own pieces */
#define LOOM_P2P_IOV_MIN_PIECE 512
/* a typed rendezvous send is not packed (get_riov) only when its pieces
 * average at least this many bytes (unless caps.riov_min_piece says
 * otherwise): process_vm_readv pins each remote piece on its own (~350 ns a
 * piece measured, 1 MiB in pieces of 512 B: 5x a pack + contiguous read +
 * unpack; even at 8 KiB, 0.8x at 16 KiB); up to LOOM_P2P_RIOV_INLINE pieces
 * travel in the RTS, more stay in the sender's memory for the receiver to
 * read (docs/p2p.md "Derived datatypes") */
#define LOOM_P2P_RIOV_MIN_PIECE ((size_t)8 << 10)
#define LOOM_P2P_RIOV_INLINE    128
/* rq->count of a send whose rq->tmp is its piece array (loom_p2p_riov_send_t) */
#define LOOM_P2P_TMP_RIOV       ((size_t)1)
/* rq->count of a send to this process whose rq->tmp is its loom_p2p_self_src_t */
#define LOOM_P2P_TMP_SELF       ((size_t)2)
/* rq->count of a send whose rq->tmp is a loom_p2p_fill_src_t, its copy packed as read */
#define LOOM_P2P_TMP_FILL       ((size_t)3)
/* unexpected eager messages up to this many bytes use the small pool */
#define LOOM_P2P_UNEXP_SMALL  256
/* passes between polls of a transport that serves no peer */
#define LOOM_P2P_IDLE_POLL    4096u

typedef enum loom_p2p_state {
    LOOM_STATE_UNINIT = 0,
    LOOM_STATE_INIT,
    LOOM_STATE_FINALIZED,
} loom_p2p_state_t;

/* request flags (req->flags) */
#define LOOM_REQ_FLAG_SYNC      0x01u  /* send: complete on ACK/FIN */
#define LOOM_REQ_FLAG_RNDV      0x02u  /* send: memh must be released */
#define LOOM_REQ_FLAG_MATCHED   0x04u  /* recv: matched, data moving */
#define LOOM_REQ_FLAG_STATIC    0x08u  /* not from the pool (never released) */
#define LOOM_REQ_FLAG_SSEND     0x10u  /* send: the user asked for ssend/issend */
#define LOOM_REQ_FLAG_COLL      0x20u  /* send: on the collective context */
#define LOOM_REQ_FLAG_PUSHED    0x40u  /* send: a RNDV_DATA followed its RTS */
#define LOOM_REQ_FLAG_CANCEL    0x80u  /* send: CANCEL sent; a NAK means cancelled */

/** Per-request p2p state, overlaid on loom_request::p2p. */
typedef struct loom_p2p_req {
    loom_match_posted_t posted;   /* recv: entry in the matching engine */
    void               *buf;
    size_t              len;      /* send: bytes; recv: capacity */
    int                 peer;     /* world rank of the other side */
    uint32_t            push_wait; /* recv: bytes of the sender's RNDV_DATA still awaited */
    /* rendezvous */
    size_t              msg_len;  /* recv: sender's length */
    size_t              offset;   /* recv: bytes read so far */
    size_t              inflight; /* recv: bytes of the get in flight */
    uint64_t            sreq;     /* send: own id (p2p_sreq.c); recv: the sender's */
    uint64_t            raddr;
    loom_tl_comp_t      comp;
    union {
        loom_tl_memh_t *memh;     /* send: exposed region */
        struct loom_p2p_riov *riov; /* recv: the sender's pieces (an RTS flagged
                                   * LOOM_P2P_RTS_RIOV: it did not pack), or NULL */
    };
    loom_tl_rkey_t      rkey;     /* recv */
    loom_list_t         reading;  /* recv: on loom_p2p_engine.recv_reading while matched
                                   * to a rendezvous (hang reports, peer failure) */
    /* typed (non-contiguous) operations, docs/p2p.md "Derived datatypes" */
    loom_dt_t          *dt;       /* recv: the type (a reference, dropped at completion);
                                   * NULL: buf is contiguous (every native call) */
    size_t              count;    /* recv: elements of dt at buf (len = count x size);
                                   * send: LOOM_P2P_TMP_RIOV if tmp is the piece array,
                                   * LOOM_P2P_TMP_SELF if it is a loom_p2p_self_src_t,
                                   * LOOM_P2P_TMP_FILL if a loom_p2p_fill_src_t */
    void               *tmp;      /* send: packed copy of a rendezvous (malloc, exposed),
                                   * or its piece array (loom_p2p_riov_send_t);
                                   * recv: bounce of a get or placed frame (malloc or an
                                   * unexpected-pool entry, see loom_p2p_recv_tmp_free) */
} loom_p2p_req_t;

_Static_assert(sizeof(loom_p2p_req_t) <= sizeof(((struct loom_request *)0)->p2p),
               "loom_p2p_req_t must fit in loom_request::p2p");

static inline loom_p2p_req_t *loom_p2p_req(loom_request_t req)
{
    return (loom_p2p_req_t *)(void *)req->p2p;
}

static inline loom_request_t loom_p2p_req_from_posted(loom_match_posted_t *p)
{
    return loom_container_of((void *)p, struct loom_request, p2p);
}

/** A frame waiting for back-pressure to clear (slow path only). */
typedef struct loom_p2p_pending {
    loom_list_t      list;
    loom_request_t   req;          /* completed when sent if complete_on_send */
    const void      *payload;      /* the user's buffer (kept until completion) */
    size_t           payload_len;
    uint32_t         hdr_len;
    uint8_t          complete_on_send;
    uint8_t          owned;        /* payload is the engine's copy (malloc), freed with it */
    uint8_t          hdr[LOOM_P2P_HDR_MAX];
} loom_p2p_pending_t;

/** An unexpected message: header, and for eager the payload inline. */
typedef struct loom_p2p_unexp {
    loom_match_unexp_t m;
    uint8_t            type;       /* EAGER, EAGER_SYNC or RTS */
    uint8_t            pool;       /* LOOM_P2P_UNEXP_POOL_* */
    int                world_src;
    size_t             len;
    uint64_t           sreq;
    uint64_t           raddr;
    loom_tl_rkey_t     rkey;
    uint32_t           pushed;     /* RTS: bytes its RNDV_DATA brings (into data[]) */
    uint8_t            push_have;  /* RTS: that RNDV_DATA arrived */
    struct loom_p2p_riov *riov;    /* RTS: the sender's pieces (it did not pack), or NULL */
    uint8_t            data[] LOOM_ALIGNED(16);
} loom_p2p_unexp_t;

enum {
    LOOM_P2P_UNEXP_POOL_SMALL = 0,
    LOOM_P2P_UNEXP_POOL_LARGE,
    LOOM_P2P_UNEXP_POOL_MALLOC,
};

/** Everything the engine knows about one world rank. */
typedef struct loom_p2p_peer {
    loom_tl_ep_t  *ep;
    size_t         eager_limit;   /* payload bytes sent eagerly */
    size_t         rndv_push;     /* payload bytes sent behind an RTS (RNDV_DATA) */
    uint8_t        can_rndv;      /* transport has get() */
    uint8_t        bye;           /* its BYE arrived (finalize) */
    uint8_t        in_pending;    /* on loom_p2p_engine.pending_peers */
    uint8_t        can_peek;      /* transport has am_peek (loom_recv's direct path) */
    loom_status_t  failed;        /* LOOM_OK, or why the peer is unusable */
    loom_list_t    pending;       /* loom_p2p_pending_t, in send order */
    loom_list_t    awaiting;      /* send requests waiting for its ACK/FIN */
    loom_list_t    pending_link;
    /* the rendezvous whose RNDV_DATA comes next from this peer (it follows
     * its RTS directly, so there is at most one): a matched receive, or an
     * unexpected RTS that keeps the bytes until a receive matches it */
    loom_request_t      push_req;
    loom_p2p_unexp_t   *push_ux;
    /* the frame a transport receives in place for a matched receive (tl.h
     * am_place_cb): at most one, frames from a peer arrive in order */
    loom_request_t      place_req;
    uint8_t             place_type;   /* its frame: EAGER, EAGER_SYNC or RNDV_DATA */
} loom_p2p_peer_t;

typedef struct loom_p2p_engine {
    loom_p2p_state_t             state;
    const loom_bootstrap_info_t *job;
    int                          world_rank;
    int                          world_size;
    loom_p2p_peer_t             *peers;        /* world_size entries */
    loom_tl_iface_t             *ifaces[LOOM_P2P_MAX_IFACES];
    int                          num_ifaces;
    /* progress polls the transports that serve a peer on every pass and the
     * others (open, serving nobody here) only every LOOM_P2P_IDLE_POLL passes:
     * a socket transport's poll is a syscall */
    loom_tl_iface_t             *busy_ifaces[LOOM_P2P_MAX_IFACES];
    int                          num_busy;
    loom_tl_iface_t             *idle_ifaces[LOOM_P2P_MAX_IFACES];
    int                          num_idle;
    unsigned                     idle_tick;
    int                          oversubscribed;
    size_t                       max_eager;    /* largest eager limit of any peer */
    loom_match_t                 match;
    loom_mpool_t                 req_pool;
    loom_mpool_t                 pending_pool;
    loom_mpool_t                 unexp_small_pool;
    loom_mpool_t                 unexp_large_pool;
    loom_list_t                  pending_peers;  /* peers with queued frames */
    loom_list_t                  get_retry;      /* recv requests whose get hit NO_RESOURCE */
    loom_list_t                  generic_active; /* generic requests in progress */
    size_t                       sends_active;   /* send requests not yet complete */
    size_t                       byes_received;
    int                          finalizing;     /* in loom_p2p_drain: unmatched syncs are NAKed */
    loom_list_t                  recv_reading;   /* matched rendezvous receives */
    loom_list_t                  probed;         /* messages taken by a matched probe and
                                                  * not received yet (struct loom_message) */
    int                          errors_return;  /* LOOM_ERRORS=return */
    double                       progress_timeout;
    unsigned                     mt_idle_spin;   /* LOOM_MT_IDLE_SPIN (progress.c) */
    unsigned                     peer_failures;  /* peers found failed so far */
    struct loom_progress_waiter *waiter;         /* innermost blocking loop (never NULL
                                                  * once initialized: the bottom is the
                                                  * waiter of loom_progress()/loom_test) */
} loom_p2p_engine_t;

/** The engine (defined in p2p_engine.c, the bottom of the stack). */
extern loom_p2p_engine_t loom_p2p_engine;

/* ---- small helpers of every file, inline (they were inlined where the
 * fast paths use them, and being here keeps them out of the call graph) - */

/** The world rank of @p peer. */
static inline int loom_p2p_peer_rank(const loom_p2p_peer_t *peer)
{
    return (int)(peer - loom_p2p_engine.peers);
}

/** The launcher's name of world rank @p world_rank's host ("?" if unknown). */
static inline const char *loom_p2p_peer_host(int world_rank)
{
    const loom_bootstrap_info_t *job = loom_p2p_engine.job;
    return job != NULL && job->hostnames != NULL ? job->hostnames[world_rank] : "?";
}

/** Give an unexpected message (out of the matching engine) back to its pool. */
static inline void loom_p2p_unexp_free(loom_p2p_unexp_t *ux)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;

    if (e->peers != NULL && e->peers[ux->world_src].push_ux == ux) {
        e->peers[ux->world_src].push_ux = NULL;
    }
    if (loom_unlikely(ux->riov != NULL)) {
        free(ux->riov);   /* an RTS never delivered (cancelled, finalize) */
        ux->riov = NULL;
    }
    switch (ux->pool) {
    case LOOM_P2P_UNEXP_POOL_SMALL:
        loom_mpool_put(&loom_p2p_engine.unexp_small_pool, ux);
        break;
    case LOOM_P2P_UNEXP_POOL_LARGE:
        loom_mpool_put(&loom_p2p_engine.unexp_large_pool, ux);
        break;
    default:
        free(ux);
        break;
    }
}

/** Take @p peer off the list of peers with queued frames once its queue is empty. */
static inline void loom_p2p_pending_unlink_idle(loom_p2p_peer_t *peer)
{
    if (peer->in_pending && loom_list_is_empty(&peer->pending)) {
        loom_list_del(&peer->pending_link);
        peer->in_pending = 0;
    }
}

/** Give a queued frame back to the pool (and the engine's copy of its payload). */
static inline void loom_p2p_pending_free(loom_p2p_pending_t *item)
{
    if (item->owned) {
        free((void *)item->payload);
    }
    loom_mpool_put(&loom_p2p_engine.pending_pool, item);
}

/* ---- p2p_error.c: the error policy and the words of messages --------------- */

/* loom_p2p_error (LOOM_ERRORS): p2p_int.h */

/** Abort the job: @p op failed with @p status and LOOM_ERRORS is abort. */
void loom_p2p_error_abort(loom_status_t status, const char *op) __attribute__((noreturn));

/**
 * loom_p2p_error inline, for the public calls of p2p.c: the policy's test
 * stays in the caller and only an abort calls out (as the compiler
 * arranged it when p2p.c held loom_p2p_error).
 */
static inline loom_status_t loom_p2p_error_inline(loom_status_t status, const char *op)
{
    if (loom_p2p_engine.errors_return || loom_p2p_engine.state != LOOM_STATE_INIT) {
        return status;
    }
    loom_p2p_error_abort(status, op);
}

/** Log that a receive truncates a message of @p msg_len bytes. */
void loom_p2p_log_truncation(loom_request_t req, size_t msg_len);

/* ---- p2p_frame.c: frames out and their back-pressure queue ----------------- */

/** Log that sending a frame (header @p hdr) to @p peer failed with @p st; returns @p st. */
loom_status_t loom_p2p_send_failed(loom_p2p_peer_t *peer, loom_status_t st, const void *hdr);

/** Send one frame, or queue it behind earlier ones (INPROGRESS when queued). */
loom_status_t loom_p2p_frame_send(loom_p2p_peer_t *peer, const void *hdr,
                                  size_t hdr_len, const void *payload,
                                  size_t payload_len, loom_request_t req,
                                  int complete_on_send);

/**
 * Send one frame with @p item (reserved from the pending pool) ready to
 * queue it, so only a transport error can fail it; the item is used or
 * given back. No request: completing or failing the send is the caller's.
 */
loom_status_t loom_p2p_frame_send_reserved(loom_p2p_peer_t *peer, loom_p2p_pending_t *item,
                                           const void *hdr, size_t hdr_len,
                                           const void *payload, size_t payload_len);

/** Send an ACK, FIN, BYE or NAK (not to a failed peer; errors are logged). */
void loom_p2p_send_ctl(int world_rank, uint8_t type, uint64_t sreq);

/* ---- request.c (objects) and request_wait.c (the user's calls) ------------ */

/*
 * The state of a request that has just started: a new one (loom_request_alloc)
 * or an inactive persistent one made active again (loom_start).
 */
static inline void loom_request_restart(loom_request_t req)
{
    req->complete      = 0;
    req->inactive      = 0;
    req->flags         = 0;
    req->status        = LOOM_INPROGRESS;
    req->msg.source    = LOOM_ANY_SOURCE;
    req->msg.tag       = LOOM_ANY_TAG;
    req->msg.error     = LOOM_OK;
    req->msg.cancelled = 0;
    req->msg.bytes     = 0;
    loom_list_init(&req->list);
}

/** Take a request from the pool (NULL when out of memory; logged). */
loom_request_t loom_request_alloc(loom_request_kind_t kind, loom_comm_t comm);

/** Return a completed request to the pool (inline: the blocking calls' exit path). */
static inline void loom_p2p_req_release(loom_request_t req)
{
    req->kind = 0;
    loom_mpool_put(&loom_p2p_engine.req_pool, req);
}

/** Mark @p req complete with @p status; releases it if the user freed it. */
static inline void loom_request_complete(loom_request_t req, loom_status_t status)
{
    req->status    = status;
    req->msg.error = status;
    req->complete  = 1;
    /* counted by loom_p2p_isend_int once the send was started */
    if (req->kind == LOOM_REQ_SEND) {
        --loom_p2p_engine.sends_active;
    }
    if (loom_unlikely(req->user_freed)) {
        if (req->ext == LOOM_REQ_EXT_PERSIST) {
            loom_comm_persist_unref(req->comm);   /* its hold on a freed comm */
            loom_dt_release(loom_request_ext(req)->dt);   /* a typed one's type */
        }
        loom_p2p_req_release(req);
    }
}

/**
 * A temporary of @p len bytes for a typed rendezvous (a send's packed copy,
 * a receive's bounce or placed frame), reused from the few the engine
 * keeps where one fits; NULL: no memory. Free with loom_p2p_tmp_free only
 * (p2p_frame.c).
 */
void *loom_p2p_tmp_alloc(size_t len);

/** Give back a loom_p2p_tmp_alloc buffer (kept for reuse or freed); NULL is ignored. */
void loom_p2p_tmp_free(void *buf);

/*
 * Drop what a typed receive holds: its bounce buffer and its reference on
 * the type (the user may have freed the type meanwhile, MPI_Type_free).
 */
static inline void loom_p2p_recv_dt_drop(loom_p2p_req_t *rq)
{
    loom_p2p_tmp_free(rq->tmp);
    rq->tmp = NULL;
    loom_dt_release(rq->dt);
    rq->dt = NULL;
}

/**
 * Complete receive @p req as loom_request_complete does, after dropping
 * what a typed receive holds. Every completion of a receive goes through
 * here except the eager fast path's, which tests rq->dt itself (the one
 * test the contiguous path pays, docs/p2p.md "Derived datatypes").
 */
static inline void loom_p2p_recv_complete(loom_request_t req, loom_status_t status)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);

    if (loom_unlikely(rq->dt != NULL)) {
        loom_p2p_recv_dt_drop(rq);
    }
    loom_request_complete(req, status);
}

/**
 * A rendezvous send's region is no longer exposed (FIN, NAK, failure):
 * release it, and the packed copy a typed send exposed instead of its buffer.
 */
/** Give back a send's piece array (p2p_rndv.c): its exposure, its memory. */
void loom_p2p_riov_send_release(loom_p2p_peer_t *peer, void *pieces);

/** Drop the type reference of a send to this process (p2p_rndv.c). */
void loom_p2p_self_src_release(void *src);

/** Drop the type reference of a send packed as it is read (p2p_rndv.c). */
void loom_p2p_fill_src_release(void *src);

/** Give back what a send's rq->tmp holds (after its exposure, if any, is released). */
static inline void loom_p2p_send_tmp_drop(loom_p2p_peer_t *peer, loom_p2p_req_t *rq)
{
    if (loom_unlikely(rq->tmp != NULL)) {
        if (rq->count == LOOM_P2P_TMP_RIOV) {
            loom_p2p_riov_send_release(peer, rq->tmp);   /* p2p_rndv.c */
        } else if (rq->count == LOOM_P2P_TMP_SELF) {
            loom_p2p_self_src_release(rq->tmp);
        } else if (rq->count == LOOM_P2P_TMP_FILL) {
            loom_p2p_fill_src_release(rq->tmp);
        }
        loom_p2p_tmp_free(rq->tmp);
        rq->tmp = NULL;
    }
}

static inline void loom_p2p_send_rndv_release(loom_p2p_peer_t *peer, loom_p2p_req_t *rq)
{
    loom_tl_mem_release(peer->ep->iface, rq->memh);
    loom_p2p_send_tmp_drop(peer, rq);
}

/**
 * Create an inactive persistent send (@p is_recv 0) or receive on @p comm
 * for checked arguments (@p bytes bytes at @p buf, comm rank @p peer);
 * loom_start() runs loom_p2p_isend_start / loom_p2p_irecv_start on it.
 */
loom_status_t loom_request_persist_p2p(void *buf, size_t bytes, int peer, int tag,
                                       unsigned flags, int is_recv, loom_comm_t comm,
                                       loom_request_t *req_p);

/**
 * loom_request_persist_p2p for (@p buf, @p count, @p dt), a committed
 * non-contiguous type; the request holds a reference on @p dt until freed.
 */
loom_status_t loom_request_persist_p2p_dt(void *buf, size_t count, loom_dt_t *dt, int peer,
                                          int tag, unsigned flags, int is_recv,
                                          loom_comm_t comm, loom_request_t *req_p);

/** Copy a completed request's outcome into @p status (may be IGNORE). */
void loom_request_status_copy(loom_request_t req, loom_msg_status_t *status);

/* ---- progress.c ----------------------------------------------------------- */

/** One progress pass (no init check). @return events processed. */
int loom_progress_int(void);

/** Run every active generic request once. @return how many completed. */
int loom_request_generic_progress(void);

/**
 * State of one blocking loop (idle yielding, LOOM_PROGRESS_TIMEOUT, hang
 * reports). Blocking loops nest (a loop's progress may run a collective
 * that waits), so the engine keeps them as a stack: init pushes, fini pops;
 * the report names the innermost one. Lives on the blocking call's stack.
 */
typedef struct loom_progress_waiter {
    uint64_t    idle;      /* consecutive passes that found nothing */
    double      start;     /* loom_wtime() when this idle stretch was first seen (0: not yet) */
    int         reported;  /* this idle stretch was reported (timeout) */
    int         what_is_op;/* @what is a collective's op_name: the call is "loom_<what>" */
    const char *what;      /* "loom_wait", "loom_finalize", ... */
    int         mt_idle;   /* MULTIPLE: counted in loom_progress_mt_idlers (until fini) */
    struct loom_progress_waiter *prev;
    /* loom_probe: what it looks for (for the report) */
    loom_comm_t probe_comm;
    int         probe_src;
    int         probe_tag;
} loom_progress_waiter_t;

static inline void loom_progress_waiter_init(loom_progress_waiter_t *w, const char *what)
{
    w->idle       = 0;
    w->start      = 0;
    w->reported   = 0;
    w->what_is_op = 0;
    w->mt_idle    = 0;
    w->what       = what;
    w->probe_comm = NULL;
    w->prev       = loom_p2p_engine.waiter;
    loom_p2p_engine.waiter = w;
}

/** MULTIPLE: threads of this rank idle in a blocking loop (progress.c). */
extern atomic_int loom_progress_mt_idlers;

/**
 * 1 when an idle loop should give its core away instead of spinning: ranks
 * outnumber cores, or (MULTIPLE) more of this rank's threads idle in
 * blocking loops than its share of the cores (the comment above
 * loom_progress_wait_step).
 */
static inline int loom_progress_crowded(void)
{
    return loom_p2p_engine.oversubscribed ||
           (loom_unlikely(loom_mt_is_active()) &&
            atomic_load_explicit(&loom_progress_mt_idlers, memory_order_relaxed) >
                loom_p2p_engine.job->threads_fit);
}

/** Empty passes after which even an uncrowded MULTIPLE wait yields once
 * per pass (progress.c: a runnable sibling outside loom is not counted). */
#define LOOM_PROGRESS_MT_LONE_SPIN 1024u

/**
 * The crowding rule's verdict on one pass of a blocking wait (pure, checked
 * case by case in test/p2p/test_mt_crowd.c; the reasons are above
 * loom_progress_wait_step): 1 when the waiting thread should give its core
 * away now.
 * @param crowded  loom_progress_crowded()
 * @param oversub  ranks outnumber cores (the engine's oversubscribed)
 * @param mt       MULTIPLE mode (other threads of this rank may wait)
 * @param moved    the pass moved frames
 * @param done     the wait's own condition now holds (it ends)
 * @param idle     empty passes of this wait in a row before this one
 * @param spin     LOOM_MT_IDLE_SPIN
 */
static inline int loom_progress_yield_verdict(int crowded, int oversub, int mt, int moved,
                                              int done, unsigned idle, unsigned spin)
{
    if (done) {
        return 0;
    }
    if (!crowded) {   /* a sibling outside loom may need the core: not for long */
        return mt && !moved && idle >= LOOM_PROGRESS_MT_LONE_SPIN;
    }
    if (moved) {
        return mt;   /* frames for another of this rank's threads: its turn */
    }
    return oversub || idle >= spin;
}

/** MULTIPLE: a blocking loop that went idle ends (loom_progress_waiter_fini). */
void loom_progress_mt_idle_end(loom_progress_waiter_t *w);

/** Pop @p w (the innermost waiter) off the stack of blocking loops. */
static inline void loom_progress_waiter_fini(loom_progress_waiter_t *w)
{
    if (loom_unlikely(w->mt_idle)) {
        loom_progress_mt_idle_end(w);
    }
    loom_p2p_engine.waiter = w->prev;
}

/**
 * One pass of a blocking loop: progress; when nothing happened, yield if
 * oversubscribed and (rarely) read the clock: after LOOM_PROGRESS_TIMEOUT
 * seconds without an event, report what this rank waits for (once per idle
 * stretch).
 */
void loom_progress_wait_step(loom_progress_waiter_t *w);

/**
 * Block until @p req completes. It waits on world rank @p world_peer (-1:
 * any): between full passes the loop polls only the transport that serves
 * that peer, so the spin that waits for its frame is short, and the frame
 * is handled without the rest of a pass. Full passes still run every few
 * polls (other transports, queued frames, collectives, timeouts, reports).
 */
void loom_progress_wait_on(loom_request_t req, int world_peer, const char *what);

/**
 * One progress pass for a user's polling call (loom_progress, loom_test,
 * loom_iprobe, ...): loom_progress_poll(), then, when the pass found nothing
 * and ranks outnumber cores, sched_yield().
 */
int loom_progress_poll_user(void);

/** Set up the waiter stack (init). */
void loom_progress_setup(void);

/* ---- p2p_report.c: hang reports (docs/p2p.md "Hang reports") --------------- */

/** Set by the SIGUSR1 handler; the progress loop writes a report. */
extern volatile sig_atomic_t loom_p2p_report_asked;

/** Install the SIGUSR1 handler unless the application has its own (init). */
void loom_p2p_report_signal_install(void);

/** Put back the SIGUSR1 disposition found at init (finalize). */
void loom_p2p_report_signal_restore(void);

/**
 * Write the "loom-report" block (one write() per line) for the innermost
 * blocking call @p w, which has waited @p waited seconds; @p timeout: it
 * was LOOM_PROGRESS_TIMEOUT (adds one human-readable warning line).
 */
void loom_p2p_report_write(const loom_progress_waiter_t *w, double waited, int timeout);

/** The SIGUSR1 report from the progress loop (clears the flag). */
void loom_p2p_report_asked_run(void);

/**
 * Describe the user's operation pending with world rank @p peer into
 * @p buf ("loom_recv from rank 2 tag 5 on WORLD"); "" when there is none.
 */
void loom_p2p_report_pending_with(int peer, char *buf, size_t len);

/* ---- comm.c (engine-private) ---------------------------------------------------- */

/** The live communicator after @p prev (NULL: the first); NULL at the end. */
loom_comm_t loom_comm_live_next(loom_comm_t prev);

/** 1 if world rank @p world_rank belongs to @p comm. */
int loom_comm_has_world(loom_comm_t comm, int world_rank);

/**
 * Send one frame whose payload is the next @p payload_len bytes of the
 * packed stream at @p cur (a typed eager send): packed straight into the
 * transport's buffer (am_send_pack), else into the engine's bounce buffer
 * and sent with am_send; queued behind earlier frames, or on
 * back-pressure, as a packed copy the queue owns. Returns as
 * loom_p2p_frame_send.
 */
loom_status_t loom_p2p_frame_send_dt(loom_p2p_peer_t *peer, const void *hdr, size_t hdr_len,
                                     loom_dt_cursor_t *cur, size_t payload_len,
                                     loom_request_t req, int complete_on_send);

/** Free the typed sends' bounce buffer and the kept temporaries (finalize). */
void loom_p2p_frame_cleanup(void);

/* ---- p2p_send.c --------------------------------------------------------------- */

/**
 * Start a send of (@p buf, @p count, @p dt), a committed type that is not
 * contiguous, on @p req: eager frames packed by loom_p2p_frame_send_dt;
 * rendezvous from a packed copy (rq->tmp) exposed in place of the buffer.
 * The type is not needed after the call. On failure @p req is left for
 * the caller to release.
 */
loom_status_t loom_p2p_isend_dt_start(loom_request_t req, const void *buf, size_t count,
                                      loom_dt_t *dt, int dest, int tag, loom_comm_t comm,
                                      uint32_t which, unsigned flags);

/**
 * Start a send on @p req (fresh from the pool, or a persistent request
 * being restarted); on failure @p req is left for the caller to release.
 */
loom_status_t loom_p2p_isend_start(loom_request_t req, const void *buf, size_t bytes,
                                   int dest, int tag, loom_comm_t comm, uint32_t which,
                                   unsigned flags);

/**
 * Fail send @p req with @p st (its peer failed, or its queued frame could
 * not be sent): off its peer's lists, its pushed data and memory released.
 */
void loom_p2p_send_req_fail(loom_request_t req, loom_status_t st);

/** Retry queued frames and gets. @return frames/gets that went out. */
int loom_p2p_pending_progress(void);

/* ---- p2p_recv.c --------------------------------------------------------------- */

/** Start a receive on @p req; see loom_p2p_isend_start(). Cannot fail. */
loom_status_t loom_p2p_irecv_start(loom_request_t req, void *buf, size_t bytes, int src,
                                   int tag, loom_comm_t comm, uint32_t which);

/**
 * Start a receive into (@p buf, @p count, @p dt), a committed type, on
 * @p req: takes a reference on @p dt until the receive completes. Cannot
 * fail.
 */
loom_status_t loom_p2p_irecv_dt_start(loom_request_t req, void *buf, size_t count,
                                      loom_dt_t *dt, int src, int tag, loom_comm_t comm,
                                      uint32_t which);

/**
 * Make @p req (allocated, not posted) a receive into (@p buf, @p count,
 * @p dt), @p dt NULL for contiguous bytes at @p buf: its fields, not its
 * matching entry. For loom_imrecv and the typed receives.
 */
void loom_p2p_recv_prep(loom_request_t req, void *buf, size_t count, loom_dt_t *dt);

/** An unexpected message meets its receive @p req (matched probe: loom_mrecv). */
void loom_p2p_unexp_deliver(loom_request_t req, loom_p2p_unexp_t *ux);

/**
 * The message of a matched probe (*@p msg_p, neither NULL nor NO_PROC) is
 * received by @p req, prepared by the caller (p2p.c, for loom_imrecv and
 * loom_imrecv_dt): matched, delivered, *msg_p set to LOOM_MESSAGE_NULL and
 * *@p req_p to @p req.
 */
void loom_p2p_mrecv_take(loom_request_t req, loom_message_t *msg_p, loom_request_t *req_p);

/** The transports' am callback. */
void loom_p2p_am_handler(void *arg, int src, const void *data, size_t len);

/** 1 if @p peer announced a RNDV_DATA that has not come yet (it must come next). */
static inline int loom_p2p_push_announced(const loom_p2p_peer_t *peer)
{
    return peer->push_req != NULL || peer->push_ux != NULL;
}

/*
 * A frame of which @p got bytes of payload are at @p data arrives for a
 * receive that takes @p want bytes of it at @p buf: copy what is there and
 * point @p place at the rest (tl.h am_place_cb).
 */
static inline void loom_p2p_place_into(void *buf, size_t want, const void *data, size_t got,
                                       loom_tl_place_t *place)
{
    size_t n = got < want ? got : want;

    if (n != 0) {
        memcpy(buf, data, n);
    }
    place->dst  = want != 0 ? (char *)buf + n : NULL;
    place->keep = want - n;
}

/** The transports' offer of a frame still arriving (tl.h am_place_cb). */
int loom_p2p_am_place(void *arg, int src, const void *head, size_t have, size_t len,
                      loom_tl_place_t *place);

/** The frame taken by loom_p2p_am_place arrived, or will not (tl.h am_place_done_cb). */
void loom_p2p_am_place_done(void *arg, int src, loom_status_t status);

/** Cancel a posted receive. @return 1 if it was cancelled. */
int loom_p2p_recv_cancel(loom_request_t req);

/* ---- p2p_setup.c (engine-private) ------------------------------------------------ */

/** Create the engine's pools and matching engine (init). */
loom_status_t loom_p2p_engine_setup(void);

/** Release pools and unexpected messages (finalize). */
void loom_p2p_engine_teardown(void);

/* ---- p2p_rndv.c: the rendezvous protocol ------------------------------------------ */

/** Start rendezvous send @p req (header fields in @p base): mem_pack, RTS, RNDV_DATA. */
loom_status_t loom_p2p_isend_rndv(loom_request_t req, loom_p2p_peer_t *peer,
                                  const loom_p2p_hdr_t *base);

/**
 * Rendezvous send @p sreq ends (FIN, NAK, failure) and its buffer goes back
 * to the user: its RNDV_DATA, if still queued for @p peer, must not read it
 * any more. @p keep: copy the bytes into the queue (the frame still goes,
 * so the peer's stream stays whole), else drop the frame.
 */
void loom_p2p_pending_release_push(loom_p2p_peer_t *peer, uint64_t sreq, int keep);

/**
 * Start reading the rendezvous matched by receive @p req: @p pushed bytes
 * come in a RNDV_DATA frame (already here at @p push_data, or next from
 * the peer when NULL); the gets read the rest.
 */
void loom_p2p_rndv_start(loom_request_t req, int world_src, size_t msg_len,
                         uint64_t sreq, uint64_t raddr, const loom_tl_rkey_t *rkey,
                         uint32_t pushed, const void *push_data,
                         struct loom_p2p_riov *riov);

/**
 * Typed rendezvous send @p req of (@p buf, @p count, @p dt) without a pack:
 * where @p peer's transport reads scattered on both sides (get_riov) and
 * the pieces are large enough, an RTS flagged LOOM_P2P_RTS_RIOV describes
 * them. LOOM_ERR_UNSUPPORTED: not here (nothing sent; the caller packs).
 */
loom_status_t loom_p2p_isend_dt_riov(loom_request_t req, loom_p2p_peer_t *peer,
                                     const loom_p2p_hdr_t *base, const void *buf,
                                     size_t count, loom_dt_t *dt);

/**
 * Typed rendezvous send @p req of (@p buf, @p count, @p dt) to this very
 * process (@p peer is its own): an RTS flagged LOOM_P2P_RTS_SELF hands the
 * receive the sender's (buf, count, dt) to copy from, no pack.
 * LOOM_ERR_UNSUPPORTED: not here (nothing sent; the caller packs).
 */
loom_status_t loom_p2p_isend_dt_self(loom_request_t req, loom_p2p_peer_t *peer,
                                     const loom_p2p_hdr_t *base, const void *buf,
                                     size_t count, loom_dt_t *dt);

/**
 * Typed rendezvous send @p req of (@p buf, @p count, @p dt), packed while
 * the receiver reads: where @p peer's transport reads synchronously
 * (get_riov) and the message is large, the RTS (flagged
 * LOOM_P2P_RTS_PIPE) leaves after the first bytes are packed and the
 * rest is packed in steps the receiver reads as they are published.
 * LOOM_ERR_UNSUPPORTED: not here (nothing sent; the caller packs whole).
 */
loom_status_t loom_p2p_isend_dt_pipe(loom_request_t req, loom_p2p_peer_t *peer,
                                     const loom_p2p_hdr_t *base, const void *buf,
                                     size_t count, loom_dt_t *dt);

/**
 * Typed rendezvous send @p req of (@p buf, @p count, @p dt), packed as the
 * peer reads it: where @p peer's transport serves every read from this
 * process's progress (mem_pack_fill: tcp), the packed copy is exposed
 * before it exists and each chunk is packed when the transport is about
 * to send it, so the pack overlaps the transfer and the receiver's unpack.
 * LOOM_ERR_UNSUPPORTED: not here (nothing sent; the caller packs whole).
 */
loom_status_t loom_p2p_isend_dt_fill(loom_request_t req, loom_p2p_peer_t *peer,
                                     const loom_p2p_hdr_t *base, const void *buf,
                                     size_t count, loom_dt_t *dt);

/**
 * The pieces an RTS flagged LOOM_P2P_RTS_RIOV from @p world_src describes
 * (in its @p len-byte @p payload, or read from the sender's memory): a
 * malloc'd copy the receive reads from (freed when it ends). A failed read
 * is kept in it and fails the receive; NULL only when out of memory.
 */
struct loom_p2p_riov *loom_p2p_riov_take(int world_src, const loom_p2p_hdr_rts_t *h,
                                         const void *payload, size_t len);

/** Issue the receive's next gets (also a retry after NO_RESOURCE); FIN when done. */
void loom_p2p_rndv_get_next(loom_request_t req);

/** The pushed bytes of @p req will not come: it ends with @p status after its gets. */
void loom_p2p_rndv_push_abandon(loom_request_t req, loom_status_t status);

/** The RNDV_DATA @p world_src announced did not come next (a broken stream). */
void loom_p2p_push_lost(int world_src);

/** A RNDV_DATA frame arrived from @p world_src. */
void loom_p2p_recv_rndv_data(int world_src, uint64_t sreq, const void *data, size_t len);

/**
 * A RNDV_DATA frame from @p world_src is arriving (@p have of its @p len
 * bytes at @p head): 1 if it is the one a matched receive waits for, which
 * then takes it in place (peer->place_req), else 0.
 */
int loom_p2p_rndv_place(int world_src, const void *head, size_t have, size_t len,
                        loom_tl_place_t *place);

/** The RNDV_DATA loom_p2p_rndv_place took arrived (LOOM_OK), or will not. */
void loom_p2p_rndv_placed(loom_request_t req, loom_status_t status);

/* ---- p2p_cancel.c: NAK and CANCEL frames -------------------------------------------- */

/** While finalizing: tell the sender of unexpected @p ux it will never be received. */
void loom_p2p_nak_unexp(loom_p2p_unexp_t *ux);

/**
 * A NAK from @p world_src for our send @p sreq: warn, complete it with
 * ERR_CANCELED; or, when the send asked for it (CANCEL), complete it
 * cancelled.
 */
void loom_p2p_recv_nak(int world_src, uint64_t sreq);

/**
 * Withdraw send @p req if it is not matched yet: one that waits for an ACK
 * or FIN (an EAGER_SYNC or RTS is out) sends CANCEL; an eager send still in
 * the back-pressure queue is taken out of it and completes cancelled.
 * @return 1 if cancelled or asked, 0 if the send cannot be cancelled any
 * more (complete, or an eager frame already handed to the transport).
 */
int loom_p2p_send_cancel(loom_request_t req);

/** A CANCEL frame from @p world_src for its send @p sreq (drop it, NAK, if unmatched). */
void loom_p2p_recv_cancel_frame(int world_src, uint64_t sreq);

/* ---- p2p_finalize.c --------------------------------------------------------------- */

/* loom_p2p_drain: p2p_setup_int.h */

/*
 * A probed message: the unexpected entry (eager data, or a rendezvous RTS
 * whose data stays with the sender until loom_mrecv reads it), out of the
 * matching engine, and the communicator it arrived on (for the receive's
 * request: status, error reports). On the engine's probed list until it is
 * received, so finalize can NAK and free one that never is.
 */
struct loom_message {
    loom_list_t        list;
    loom_comm_t        comm;
    loom_p2p_unexp_t  *ux;
};

/* ---- p2p_failure.c ----------------------------------------------------------------- */

/** The transports' peer-failure callback. */
void loom_p2p_peer_err_handler(void *arg, int peer, loom_status_t status,
                               const char *what);

/* ---- p2p_sreq.c --------------------------------------------------------------- */

/** Give a send waiting for ACK/FIN an id for the wire. */
loom_status_t loom_p2p_sreq_register(loom_request_t req, uint64_t *id_p);

/** The request @p id names (still in the table); NULL if the id is unknown. */
loom_request_t loom_p2p_sreq_find(uint64_t id);

/** The request an ACK/FIN names, removed from the table; NULL if the id is unknown. */
loom_request_t loom_p2p_sreq_take(uint64_t id);

/** Free the table (finalize). */
void loom_p2p_sreq_cleanup(void);

#pragma GCC visibility pop

#endif /* LOOM_P2P_ENGINE_INT_H */
