/*
 * rma_priv.h: the one-sided layer's own structures (not exported).
 *
 * Pure parts, unit-tested without a job (test/rma/):
 *   - the epoch state machine (rma_epoch.c): which synchronization call
 *     may follow which, and whether an operation to a target is inside an
 *     access epoch;
 *   - target layouts as segments and their application (rma_apply.c): a
 *     target datatype flattened to (offset, length) pieces, the range
 *     check against the target's window, and put/get/accumulate/fetch/CAS
 *     of packed origin data onto those pieces.
 * The rest: windows (rma_win.c), the shared segment (rma_shm.c), the
 * active-message protocol and the target's handler (rma_am.c), the
 * origin's operations (rma_ops.c) and synchronization (rma_sync.c).
 */
#ifndef LOOM_RMA_PRIV_H
#define LOOM_RMA_PRIV_H

#include "rma_int.h"
#include "p2p_int.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* ---- epochs (rma_epoch.c) ---- */

typedef enum loom_rma_access {
    LOOM_RMA_ACCESS_NONE = 0,
    LOOM_RMA_ACCESS_FENCE,     /* between fences */
    LOOM_RMA_ACCESS_LOCK,      /* some targets locked (Win_lock) */
    LOOM_RMA_ACCESS_LOCK_ALL,
    LOOM_RMA_ACCESS_START,     /* PSCW access (Win_start) */
} loom_rma_access_t;

typedef struct loom_rma_epoch {
    loom_rma_access_t access;
    int      size;        /* ranks in the window */
    int      nlocked;     /* ACCESS_LOCK: targets locked */
    uint8_t *locked;      /* [size]: 1 if locked by Win_lock */
    uint8_t *started;     /* [size]: 1 if in the Win_start group */
    int      exposed;     /* Win_post ... Win_wait */
    uint8_t *ok;          /* [size + 1]: loom_rma_fast_t's access (rma_epoch.c) */
} loom_rma_epoch_t;

loom_status_t loom_rma_epoch_init(loom_rma_epoch_t *e, int size);
void loom_rma_epoch_fini(loom_rma_epoch_t *e);
loom_status_t loom_rma_epoch_fence(loom_rma_epoch_t *e, int assert_flags);
loom_status_t loom_rma_epoch_lock(loom_rma_epoch_t *e, int target);
loom_status_t loom_rma_epoch_unlock(loom_rma_epoch_t *e, int target);
loom_status_t loom_rma_epoch_lock_all(loom_rma_epoch_t *e);
loom_status_t loom_rma_epoch_unlock_all(loom_rma_epoch_t *e);
loom_status_t loom_rma_epoch_start(loom_rma_epoch_t *e, int n, const int ranks[]);
loom_status_t loom_rma_epoch_complete(loom_rma_epoch_t *e);
loom_status_t loom_rma_epoch_post(loom_rma_epoch_t *e);
loom_status_t loom_rma_epoch_wait(loom_rma_epoch_t *e);
/** LOOM_OK if an operation to @p target may be issued now, else LOOM_RMA_ERR_SYNC. */
loom_status_t loom_rma_epoch_access(const loom_rma_epoch_t *e, int target);
/** loom_rma_epoch_access, answered from e->ok inline when it allows the operation. */
static inline loom_status_t loom_rma_epoch_access_fast(const loom_rma_epoch_t *e, int target)
{
    return (unsigned)target < (unsigned)e->size && e->ok[target] != 0
               ? LOOM_OK : loom_rma_epoch_access(e, target);
}
/** Flush of @p target (-1: all) allowed (passive target epochs only)? */
loom_status_t loom_rma_epoch_flush(const loom_rma_epoch_t *e, int target);
/** Window free allowed (no epoch open but a fence one)? */
loom_status_t loom_rma_epoch_idle(const loom_rma_epoch_t *e);

/* ---- segments and their application (rma_apply.c) ---- */

typedef struct loom_rma_seg {
    int64_t  off;   /* bytes from the target address (disp) */
    uint64_t len;
} loom_rma_seg_t;

/**
 * Flatten (count, dt) into segments relative to the start of the target
 * data (malloc'ed *segs_p; *bytes_p = their total). @p dt committed.
 */
loom_status_t loom_rma_seg_build(size_t count, loom_dt_t *dt, loom_rma_seg_t **segs_p,
                                 size_t *nseg_p, size_t *bytes_p);

/** LOOM_OK if every segment at byte @p start lies in [0, @p winsize), else RANGE. */
loom_status_t loom_rma_range_check(const loom_rma_seg_t *segs, size_t nseg, int64_t start,
                                   size_t winsize);

/**
 * The address of target bytes [disp + segs...) at this rank (target side),
 * or NULL if some segment lies outside the window (dynamic: outside the
 * attached regions; one operation may span regions attached side by side).
 */
char *loom_rma_target_addr(loom_rma_win_t *win, int64_t disp, const loom_rma_seg_t *segs,
                           size_t nseg);

/** What loom_rma_apply does. */
typedef enum loom_rma_kind {
    LOOM_RMA_K_PUT = 1,
    LOOM_RMA_K_GET,
    LOOM_RMA_K_ACC,
    LOOM_RMA_K_GACC,
    LOOM_RMA_K_FOP,
    LOOM_RMA_K_CAS,
    /* control messages (rma_am.c) */
    LOOM_RMA_K_LOCK,
    LOOM_RMA_K_UNLOCK,
    LOOM_RMA_K_ACK,
    LOOM_RMA_K_POST,
    LOOM_RMA_K_COMPLETE,
    LOOM_RMA_K_BATCH,      /* small puts/accumulates in one message (rma_am.c) */
    LOOM_RMA_K_REPLY,      /* a get-like request's answer by id (session 16, rma_am.c) */
} loom_rma_kind_t;

/**
 * Apply one operation at target address @p tbase: PUT copies @p in to the
 * segments; GET gathers them to @p fetch; ACC/GACC/FOP gather (GACC, FOP)
 * then combine @p in with @p op on @p basic elements; CAS gathers one
 * element and replaces it by @p in if it equals @p cmp. @p in and @p fetch
 * are packed streams of the segments' total bytes, as the datatype engine
 * packs them: a value+index pair element is its value's bytes then the
 * int's, without the C struct's padding (12 bytes for LOOM_DOUBLE_INT), in
 * the stream and in the segments alike (loom_dt_basic_padded).
 * @return LOOM_OK, LOOM_ERR_INVALID_TYPE (a segment not whole elements),
 * LOOM_ERR_INVALID_OP (op undefined on the type).
 */
loom_status_t loom_rma_apply(loom_rma_kind_t kind, loom_op_t op, loom_datatype_t basic,
                             char *tbase, const loom_rma_seg_t *segs, size_t nseg,
                             const void *in, const void *cmp, void *fetch);

/* ---- windows ---- */

/* header of the shared segment (FLAVOR_SHARED); rank data follows */
typedef struct loom_rma_shm_hdr {
    atomic_int acc_lock;      /* serialises accumulates (element-wise atomicity) */
    int        pad[15];
    atomic_int lockw[];       /* per rank: 0 free, >0 shared holders, -1 exclusive */
} loom_rma_shm_hdr_t;

typedef struct loom_rma_region {
    char  *base;
    size_t size;
} loom_rma_region_t;

/* a received request waiting for its data, or being served (FIFO) */
typedef struct loom_rma_in {
    struct loom_rma_in *next;
    loom_request_t      req;
    int                 src;
    size_t              bytes;
    char               *buf;
} loom_rma_in_t;

/* small puts/accumulates to one target, sent as one BATCH message (rma_am.c) */
typedef struct loom_rma_agg {
    char    *buf;     /* LOOM_RMA_AGG_BYTES, or NULL */
    size_t   len;     /* header + entries so far */
    uint64_t n;       /* entries */
    uint64_t nfetch;  /* of them get-like: answered by their own REPLY */
    uint64_t gen;     /* batches pushed so far (loom_rma_rop_t.batch) */
} loom_rma_agg_t;

/* a send in flight (its buffer freed when it completes) */
typedef struct loom_rma_out {
    struct loom_rma_out *next;
    loom_request_t       req;
    void                *buf;
    size_t               cap;   /* bytes after it (loom_rma_am_out_get), else 0 */
} loom_rma_out_t;

/* an origin operation awaiting its reply (get-like) */
typedef struct loom_rma_rop {
    struct loom_rma_rop *next;
    loom_request_t       req;      /* the receive of the reply */
    int                  target;
    char                *tmp;      /* int64 status + data; NULL: the data comes
                                      straight into result (rma_zcopy.c) */
    size_t               bytes;    /* data bytes */
    void                *result;   /* unpack here */
    size_t               rcount;
    loom_dt_t           *rdt;      /* retained */
    loom_request_t       ureq;     /* user request (Rget...) or NULL */
    uint64_t             batch;    /* queued in batch (agg gen + 1) to target, or 0 */
    uint32_t             id;       /* answered by a REPLY request naming it (req
                                      NULL: no receive posted), or 0 (session 16) */
    uint8_t              failed;   /* id: its request could not be sent (the status
                                      is in tmp): the next pass finishes it */
} loom_rma_rop_t;

typedef struct loom_rma_waiter {
    int src;
    int type;
} loom_rma_waiter_t;

/* an origin's lock at this target (win->lkst) */
enum { LOOM_RMA_LK_NONE = 0, LOOM_RMA_LK_SHARED, LOOM_RMA_LK_EXCL, LOOM_RMA_LK_WAIT };

struct loom_rma_win {
    struct loom_rma_win *next;     /* all windows (the progress hook walks them) */
    loom_comm_t          comm;     /* private duplicate */
    int                  rank, size;
    loom_rma_flavor_t    flavor;
    char                *base;
    size_t               bytes;
    int                  disp_unit;
    int                  own_mem;  /* ALLOCATE: free base */
    uint64_t            *sizes;    /* [size] every rank's size */
    int                 *units;    /* [size] every rank's disp unit */
    /* shared segment: SHARED windows, and ALLOCATE ones whose ranks share a
     * host (direct: every operation is load/store into it) */
    int                  direct;
    void                *seg;
    size_t               seg_bytes;
    char               **shm_base; /* [size] every rank's piece, here */
    loom_rma_shm_hdr_t  *shm;
    /* CREATE windows on one host (rma_cma.c): process_vm_readv/writev into
     * the owner's memory; shm is then a header-only segment (lock words) */
    int                  cma;
    int                  cma_acc;  /* every access by CMA, accumulates by read-modify-
                                      write (LOOM_RMA_CMA=passive or acc on every
                                      rank), else those by active messages */
    size_t               cma_msg_max; /* origin: puts/gets of 1..this many bytes go by
                                         active message (LOOM_RMA_CMA_MSG; 0 with cma_acc) */
    uint64_t            *cma_pid;  /* [size] */
    uint64_t            *cma_base; /* [size] window base in its owner's process */
    /* RDMA windows (rma_ib.c): put/get/8-byte atomics/locks through a
     * transport's one-sided ops; NULL for every other window */
    struct loom_rma_rdma *rdma;
    /* dynamic flavor */
    loom_rma_region_t   *regions;
    int                  nregions, cap_regions;
    /* origin */
    uint64_t            *sent, *done;  /* [size] operations issued / completed */
    loom_rma_agg_t      *agg;          /* [size] operations not sent yet (rma_am.c) */
    loom_status_t       *deferred;     /* [size] first error each target reported,
                                          until a flush of it takes it */
    loom_rma_rop_t      *rops, **rops_tail;
    int                 *posts;        /* [size] Win_post notices received */
    /* target */
    loom_rma_in_t       *in, **in_tail;
    loom_rma_in_t       *held, **held_tail; /* requests of origins whose LOCK waits */
    loom_rma_in_t       *in_spare;     /* freed small request records, for reuse */
    loom_rma_rop_t      *rop_spare;    /* freed one-element reply records, for reuse */
    loom_rma_out_t      *out_spare;    /* freed small send records (rma_send.c) */
    int                  n_in_spare, n_rop_spare, n_out_spare;
    loom_rma_out_t      *out;
    struct loom_rma_zc  *zc;           /* data moving to/from this window (rma_zcopy.c) */
    uint32_t            *zc_busy;      /* [size] puts and accumulates of each origin, in zc */
    uint32_t            *zc_gets;      /* origin: [size] large gets awaiting data */
    size_t               zc_min;       /* origin: puts, gets, accumulates of this many
                                          bytes or more go by rma_zcopy.c (0: none) */
    struct loom_rma_zc_drop *zc_drop;  /* [size] a put's or accumulate's data this
                                          target could not store: discard it, then
                                          answer (rma_zcopy.c) */
    int                  zc_ndrop;     /* origins with a discard pending */
    struct loom_rma_zc_fault *zc_fault; /* LOOM_RMA_ZCOPY_FAULT (tests), or NULL */
    int                  excl;         /* exclusive holder or -1 */
    int                  nshared;
    uint8_t             *lkst;         /* [size] each origin's lock here (LOOM_RMA_LK_*) */
    loom_rma_waiter_t   *waiters;      /* [size]: one LOCK per origin at most */
    int                  nwait;
    int                 *completes;    /* [size] Win_complete notices received */
    int                 *post_ranks, npost;
    int                 *start_ranks, nstart;
    loom_rma_epoch_t     ep;
    loom_rma_hints_t     hints;
    /* the p2p engine's frames for layers (session 16, rma_am.c) */
    int                  ready;        /* created: frames that arrive are served */
    uint32_t             am_ctx;       /* the context frames to this window name */
    size_t               am_max;       /* largest message sent as one frame (0: none,
                                          LOOM_RMA_AM=off) */
    uint32_t             rop_seq;      /* the last id of an answer awaited by id */
    unsigned             peer_failures; /* loom_p2p_peer_failures() when the rops awaited
                                           by id were last checked against failed peers */
};

/* tags on the window's private communicator */
enum { LOOM_RMA_TAG_REQ = 1, LOOM_RMA_TAG_REPLY = 2, LOOM_RMA_TAG_DATA = 3 };

/* an active message's header; segments, data and the CAS compare follow */
typedef struct loom_rma_hdr {
    uint8_t  kind;
    uint8_t  op;
    uint8_t  basic;
    uint8_t  pad;
    int32_t  arg;      /* lock type; ACK: status */
    int64_t  disp;     /* target bytes from the window base (dynamic: address) */
    uint64_t nseg;
    uint64_t bytes;    /* data bytes */
} loom_rma_hdr_t;

/*
 * Small messages of the protocol (BATCH, control messages, requests sent
 * alone, REPLY by id) leave as one p2p frame (p2p_int.h, loom_p2p_am_send_int)
 * when they fit one, else, or under back-pressure, as a message with tag
 * REQ: the frame refuses to overtake queued frames, so both keep the
 * order sent. A REPLY (session 16, loom_rma_reply_t) carries the rop's id,
 * its status and the data; it answers a
 * get-like request whose header's arg named that id (0: the old REPLY
 * message to a posted receive).
 */

/* a REPLY by id (session 16): this, then @c bytes of data (16 bytes: a
 * fetch-and-op's answer fits the shm transport's one-line frame) */
typedef struct loom_rma_reply {
    uint8_t  kind;     /* LOOM_RMA_K_REPLY, where every request has its kind */
    uint8_t  pad[3];
    int32_t  status;
    uint32_t id;       /* the rop's (its request header's arg) */
    uint32_t bytes;    /* data bytes (0 with an error) */
} loom_rma_reply_t;

/* a new id for a reply awaited by id (never 0) */
static inline uint32_t loom_rma_rop_id(loom_rma_win_t *win)
{
    if (++win->rop_seq == 0) {
        ++win->rop_seq;
    }
    return win->rop_seq;
}

/* an active message's header flag (pad): a large put, get or accumulate
 * whose data moves as a message of its own, from/to user memory and the
 * window (an accumulate's: into scratch at the target, rma_zcopy.c) */
enum { LOOM_RMA_HDR_ZCOPY = 1 };

static inline size_t loom_rma_pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* rma_env.c */
/**
 * The byte count in environment variable @p name, or @p dflt when it is
 * unset or empty; a value that is not a plain decimal count, or is one
 * past 64 bits, is warned about (naming the variable) and @p dflt taken.
 */
size_t loom_rma_env_bytes(const char *name, size_t dflt);

/* rma_send.c: sending requests, answers and batches */
/**
 * Send @p bytes at @p msg to @p dest as one frame when the window allows
 * frames of that size (the data is copied before the return).
 * LOOM_OK: sent; LOOM_ERR_NO_RESOURCE: not sent (too large for a frame,
 * or back-pressure): the caller sends it as a REQ message instead; other:
 * the peer's failure.
 */
loom_status_t loom_rma_am_frame(loom_rma_win_t *win, int dest, const void *msg,
                                size_t bytes);
loom_status_t loom_rma_am_send(loom_rma_win_t *win, int dest, int tag, void *buf,
                               size_t bytes);
loom_status_t loom_rma_am_ctrl(loom_rma_win_t *win, int dest, loom_rma_kind_t kind,
                               int arg);
/** A control message; an ACK's @p n: how many operations it answers (0: one). */
loom_status_t loom_rma_am_ctrl_n(loom_rma_win_t *win, int dest, loom_rma_kind_t kind,
                                 int arg, uint64_t n);
/** A send record with @p bytes of message after it (buf NULL), or NULL. */
loom_rma_out_t *loom_rma_am_out_alloc(size_t bytes);
/**
 * As loom_rma_am_out_alloc, from the window's kept small records when
 * @p bytes is small (the target's answers: ACK, a fetch's REPLY).
 */
loom_rma_out_t *loom_rma_am_out_get(loom_rma_win_t *win, size_t bytes);
/** Free a finished send record (and its buf), keeping a small one for reuse. */
void loom_rma_am_out_free(loom_rma_win_t *win, loom_rma_out_t *o);
/** Free the window's kept send records. */
void loom_rma_am_out_spares_free(loom_rma_win_t *win);
/** The message that follows @p o. */
void *loom_rma_am_out_data(loom_rma_out_t *o);
/**
 * Send the @p bytes of message that follow @p o; a REQ leaves behind the
 * requests queued for @p dest. On failure frees @p o.
 */
loom_status_t loom_rma_am_out_send(loom_rma_win_t *win, int dest, int tag,
                                   loom_rma_out_t *o, size_t bytes);
/**
 * Cancel the posted receive of @p rop's reply (its request was never
 * sent), wait until it completed, and free @p rop (not on win->rops).
 */
void loom_rma_rop_unpost(loom_rma_rop_t *rop);
/** Track @p rop (its request is sent or batched) on @p win->rops, in issue order. */
static inline void loom_rma_rop_track(loom_rma_win_t *win, loom_rma_rop_t *rop)
{
    *win->rops_tail = rop;
    win->rops_tail  = &rop->next;
}
/** Unlink the rop at @p pp (a link of @p win->rops) and return it. */
static inline loom_rma_rop_t *loom_rma_rop_untrack(loom_rma_win_t *win, loom_rma_rop_t **pp)
{
    loom_rma_rop_t *rop = *pp;

    *pp = rop->next;
    if (*pp == NULL) {
        win->rops_tail = pp;
    }
    return rop;
}
/**
 * A get-like request's reply that carries the error @p st alone: a REPLY
 * by @p id, or with @p id 0 an 8-byte REPLY message.
 */
void loom_rma_am_reply_err(loom_rma_win_t *win, int dest, uint32_t id, loom_status_t st);
/** Send what is queued for @p dest (-1: every rank). */
void loom_rma_am_push_all(loom_rma_win_t *win, int dest);
/**
 * Queue a small put or accumulate request (@p msg, @p bytes: header,
 * segments, data) to @p dest behind the ones before it; it leaves with
 * them as one message at the next request to @p dest, settle or drain,
 * or when the batch is full. Counts it in sent[dest]. 1 if queued (the
 * message was copied: the caller still owns @p msg), 0 if too large.
 */
int loom_rma_am_queue(loom_rma_win_t *win, int dest, const void *msg, size_t bytes);
/**
 * As loom_rma_am_queue for a small get-like request whose reply @p rop
 * (posted, not yet on win->rops) awaits: the target answers it with its
 * REPLY, not the batch's ACK. If the batch cannot be sent, the receive is
 * cancelled and @p rop completes with the error.
 */
int loom_rma_am_queue_fetch(loom_rma_win_t *win, int dest, const void *msg, size_t bytes,
                            loom_rma_rop_t *rop);

/* rma_zcopy.c: large contiguous puts, gets and accumulates, data straight from memory */
/**
 * Origin: the operation @p h (kind PUT, GET or ACC; op, basic, disp: the
 * target's start, bytes) on @p h->bytes at @p local, contiguous, to or
 * from target bytes [start + seg.off, + bytes) by a header and a data
 * message of their own. Counts it in sent[target]. LOOM_OK or a send error
 * (nothing counted).
 */
loom_status_t loom_rma_zc_start(loom_rma_win_t *win, int target, const loom_rma_hdr_t *h,
                                const loom_rma_seg_t *seg, void *local);
/**
 * Target: serve the header @p h of @p src: post the receive of a put's data
 * into window memory @p t, or of an accumulate's into scratch (applied to
 * @p t once in), or send a get's data from it (@p t NULL: the target bytes
 * are not in the window: the data is received and dropped, the get
 * answered by the error alone). Until that data moved, loom_rma_zc_busy(src)
 * holds the origin's later requests.
 */
void loom_rma_zc_serve(loom_rma_win_t *win, int src, const loom_rma_hdr_t *h,
                       const loom_rma_seg_t *seg, char *t);
/**
 * Target: reap finished data transfers (a put's ACK leaves then) and
 * discards (posting those not posted yet). @return how many ended.
 */
int loom_rma_zc_poll(loom_rma_win_t *win);
/** A discard (see loom_rma_zc_serve) pending for origin @p src: its answer, else LOOM_OK. */
typedef struct loom_rma_zc_drop {
    loom_status_t  st;
    loom_request_t req;   /* the 0-byte receive that consumes the data, once posted */
} loom_rma_zc_drop_t;
/** 1 while data of @p src's operations still moves to or from this window. */
static inline int loom_rma_zc_busy(const loom_rma_win_t *win, int src)
{
    return win->zc_busy[src] != 0 || win->zc_drop[src].st != LOOM_OK;
}
/**
 * 1 while a put's or accumulate's data of @p src that this target could not
 * store must still be consumed: every later request of @p src waits, large
 * puts and gets too (a put's receive would match that data).
 */
static inline int loom_rma_zc_dropping(const loom_rma_win_t *win, int src)
{
    return win->zc_drop[src].st != LOOM_OK;
}
/**
 * Set up the window's large-transfer state: LOOM_RMA_ZCOPY, and the
 * test-only LOOM_RMA_ZCOPY_FAULT. LOOM_OK or LOOM_ERR_NO_MEMORY.
 */
loom_status_t loom_rma_zc_init(loom_rma_win_t *win);
void loom_rma_zc_fini(loom_rma_win_t *win);
/**
 * Origin: progress until the large gets from @p target delivered their
 * data, before an UNLOCK to it: the target sends them from its window and
 * does not hold our later requests behind them, so the lock must not be
 * released while the window is still read.
 */
void loom_rma_zc_gets_settle(loom_rma_win_t *win, int target);

/* rma_am.c */
/** Free the window's kept small records (at its destruction). */
void loom_rma_am_spares_free(loom_rma_win_t *win);
/**
 * Link a window being created: frames and messages for it are taken from
 * now on (a peer may send as soon as its own creation returned), served
 * once loom_rma_am_ready says so. Before the creation's last collective.
 */
void loom_rma_am_register(loom_rma_win_t *win);
/** The window is complete: serve what arrived for it. */
void loom_rma_am_ready(loom_rma_win_t *win);
void loom_rma_am_unregister(loom_rma_win_t *win);
/**
 * Progress until every operation to @p target (-1: all) completed; return
 * and clear the first error @p target (-1: any target) reported.
 */
loom_status_t loom_rma_am_flush(loom_rma_win_t *win, int target);
/** Progress until every operation to @p target (-1: all) completed (errors stay). */
void loom_rma_am_settle(loom_rma_win_t *win, int target);
/** Return and clear the deferred error of @p target (-1: the first of any target). */
loom_status_t loom_rma_am_take_err(loom_rma_win_t *win, int target);
/** Progress until the window's sends left (before free). */
void loom_rma_am_drain(loom_rma_win_t *win);
/** Finish a reply (origin side): unpack, count, complete the user request. */
void loom_rma_rop_finish(loom_rma_win_t *win, loom_rma_rop_t *rop);

/* rma_shm.c */
/** Map the segment; @p required (SHARED): failing is an error, else fall back (0). */
loom_status_t loom_rma_shm_create(loom_rma_win_t *win, int required);
void loom_rma_shm_free(loom_rma_win_t *win);
/** 1 if every rank of the window is on this rank's host. */
int loom_rma_shm_one_host(loom_rma_win_t *win);
/**
 * A segment of the header only (accumulate lock, lock words) for a CMA
 * window; on failure every rank leaves win->shm NULL and returns LOOM_OK
 * (the window then uses active messages), or a communication error.
 */
loom_status_t loom_rma_shm_create_hdr(loom_rma_win_t *win);

/* rma_cma.c */
/** One operation on a CMA window, target side described by segments. */
typedef struct loom_rma_cma_op {
    loom_rma_kind_t        kind;
    int                    target;
    int64_t                start;   /* target bytes from its base */
    const loom_rma_seg_t  *segs;
    size_t                 nseg;
    size_t                 bytes;   /* total of the segments */
    const void            *in;      /* packed origin data (put, accumulates) */
    const void            *cmp;     /* CAS */
    void                  *fetch;   /* packed result (get-like) */
    loom_op_t              op;
    loom_datatype_t        basic;
} loom_rma_cma_op_t;

/** Collective at Win_create: make the window CMA if every rank can (else unchanged). */
loom_status_t loom_rma_cma_setup(loom_rma_win_t *win);
/** 1 if a put or get (@p kind) of @p bytes to another rank of CMA window @p w goes by message. */
static inline int loom_rma_cma_by_msg(const loom_rma_win_t *w, loom_rma_kind_t kind, size_t bytes)
{
    return w->cma && bytes != 0 && bytes <= w->cma_msg_max &&
           (kind == LOOM_RMA_K_PUT || kind == LOOM_RMA_K_GET);
}
void loom_rma_cma_free(loom_rma_win_t *win);
/** Run @p o now (complete at return); LOOM_ERR_PEER_FAILED, _TRANSPORT, _INVALID_TYPE. */
loom_status_t loom_rma_cma_op(loom_rma_win_t *win, const loom_rma_cma_op_t *o);
/**
 * A put (@p write) or get of @p bytes between @p buf and the target's bytes
 * [start, start + bytes): one system call, nothing around it (the inline
 * Put/Get of a CMA window). LOOM_OK, LOOM_ERR_PEER_FAILED or _TRANSPORT.
 */
loom_status_t loom_rma_cma_putget(loom_rma_win_t *win, int target, int write, void *buf,
                                  int64_t start, size_t bytes);
void loom_rma_shm_lock(loom_rma_win_t *win, int target, int type);
void loom_rma_shm_unlock(loom_rma_win_t *win, int target);

/* rma_ib.c: windows over a transport's one-sided ops (RDMA) */
/**
 * Collective at Win_create (CREATE and ALLOCATE flavors, neither direct
 * nor CMA): make the window RDMA if every rank's other ranks are served
 * by one transport with one-sided ops and every rank registered its
 * memory; else leave win->rdma NULL (active messages). A communication
 * error only.
 */
loom_status_t loom_rma_rdma_setup(loom_rma_win_t *win);
/** Deregister and free (after the free's barrier: no peer targets us). */
void loom_rma_rdma_free(loom_rma_win_t *win);
/** 1 if an operation of @p kind on @p basic elements goes by RDMA on this window. */
int loom_rma_rdma_takes(const loom_rma_win_t *win, loom_rma_kind_t kind,
                        loom_datatype_t basic);
/**
 * Put (@p get 0) or get the packed stream @p local to or from the target's
 * segments at byte @p start; @p wait: complete before returning (else at
 * the next flush). LOOM_OK, or the error of the posting.
 */
loom_status_t loom_rma_rdma_putget(loom_rma_win_t *win, int get, int target, int64_t start,
                                   const loom_rma_seg_t *segs, size_t nseg, void *local,
                                   int wait);
/**
 * An accumulate-like operation on 8-byte elements by remote atomics,
 * complete at return (results in o->fetch). LOOM_ERR_UNSUPPORTED, with
 * nothing done, if an element is not 8-byte aligned at the target (the
 * caller uses active messages: every operation on that location then does).
 */
loom_status_t loom_rma_rdma_acc(loom_rma_win_t *win, const loom_rma_cma_op_t *o);
/** Passive target locks on the target's lock word by remote atomics. */
loom_status_t loom_rma_rdma_lock(loom_rma_win_t *win, int target, int type);
loom_status_t loom_rma_rdma_unlock(loom_rma_win_t *win, int target);
/**
 * Progress until the one-sided work to @p target (-1: all) completed; a
 * failure is kept in win->deferred like a target's reported error.
 */
void loom_rma_rdma_settle(loom_rma_win_t *win, int target);

/* generic requests of Rput & co. (rma_ops.c) */
loom_status_t loom_rma_ureq_alloc(loom_rma_win_t *win, loom_request_t *req_p);
void loom_rma_ureq_done(loom_request_t req);
void loom_rma_ureq_start(loom_request_t req);

#endif /* LOOM_RMA_PRIV_H */
