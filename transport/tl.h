/*
 * tl.h: the transport interface. One ops table, many transports.
 *
 * A transport moves two kinds of traffic between ranks:
 *   - active messages ("am"): a frame of at most caps.max_am bytes, sent as
 *     two gathered pieces (a protocol header and a payload) and delivered
 *     whole, in order per pair of ranks, to the receiver's am callback;
 *   - one-sided reads ("get"): the receiver of a rendezvous pulls a region
 *     the sender exposed with mem_pack (RDMA READ on verbs,
 *     process_vm_readv on shared memory, a request-and-stream on TCP).
 *
 * Dependencies point one way (layers.txt): a transport uses base/ (status,
 * log, config, lists, pools, bootstrap) and knows nothing of tag matching,
 * protocols or collectives. The p2p engine (p2p/) drives transports
 * only through the inline wrappers at the end of this file.
 *
 * Each transport defines a `const loom_tl_ops_t` with designated
 * initializers; ops it leaves NULL answer LOOM_ERR_UNSUPPORTED (the default
 * table in tl.c), except the optional ones (multicast, receiving in place),
 * which stay NULL for "not offered". Its iface struct embeds
 * loom_tl_iface_t as the first member and its ep struct embeds
 * loom_tl_ep_t; it gets back to its own structs with loom_container_of.
 *
 * Threading: every op is called from the thread that drives progress; none
 * may block waiting for a peer, except open (which may use the bootstrap
 * fence-free calls) and close.
 */
#ifndef LOOM_TL_H
#define LOOM_TL_H

#include <loom.h>
#include "compiler_int.h"
#include "bootstrap_int.h"
#include "config_int.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

typedef struct loom_tl_iface loom_tl_iface_t;
typedef struct loom_tl_ep    loom_tl_ep_t;
typedef struct loom_tl_memh  loom_tl_memh_t;   /* transport-private */
typedef struct loom_tl_mc    loom_tl_mc_t;     /* a multicast group, see mc_join */

/** What a transport can do; the p2p engine picks its thresholds from it once. */
typedef struct loom_tl_caps {
    size_t   max_am;          /**< largest frame (header + payload) for am_send */
    size_t   max_inline;      /**< frames up to this size cost no extra copy/registration */
    size_t   eager_limit;     /**< transport's suggested eager/rendezvous switch (payload bytes) */
    int      can_get;         /**< 1 if get() works (else rendezvous is unavailable) */
    size_t   rndv_push;       /**< payload bytes of a rendezvous message to send right
                               *   behind its RTS (0: none), for a transport whose get
                               *   must first ask the owner (a round trip before data) */
    int      can_mcast;       /**< 1 if the transport offers multicast */
    int      latency_ns;      /**< rough one-way small-message latency, for selection */
    size_t   iov_min_piece;   /**< get_iov/get_riov's local pieces beat a contiguous
                               *   get plus an unpack from this many bytes on average
                               *   (0: the engine's default, tuned for a kernel copy) */
    size_t   riov_min_piece;  /**< get_riov's remote pieces beat a pack plus a
                               *   contiguous get from this many bytes on average
                               *   (0: the engine's default, tuned for a kernel copy) */
} loom_tl_caps_t;

/** Rendezvous key: what the receiver needs to read the sender's region. */
#define LOOM_TL_RKEY_MAX 32
typedef struct loom_tl_rkey {
    uint8_t data[LOOM_TL_RKEY_MAX];
} loom_tl_rkey_t;

/**
 * Received frame. @p data is valid only during the call; the callee copies
 * what it keeps. @p src is the sender's world rank. Called from progress().
 */
typedef void (*loom_tl_am_cb_t)(void *arg, int src, const void *data, size_t len);

/**
 * A peer failed (connection closed, process gone, error completion). @p what
 * names the operation and the transport's own diagnosis; the transport has
 * already logged the error naming both ends. Called from progress() or
 * from an op that found the failure.
 */
typedef void (*loom_tl_peer_err_cb_t)(void *arg, int peer, loom_status_t status,
                                      const char *what);

/**
 * Producer of a frame's payload for am_send_pack: writes exactly @p len
 * bytes, the next ones of the message, at @p dst (the transport's own
 * buffer: a ring slot, a registered bounce buffer). Called from inside
 * am_send_pack only, zero or more times, in order; never fails.
 */
typedef void (*loom_tl_pack_cb_t)(void *arg, void *dst, size_t len);

/**
 * Producer of a region's bytes for mem_pack_fill: makes bytes [@p off,
 * @p off + @p len) of the region valid before the transport reads them for
 * a peer (a typed send packing as it is read). Called from the owner's
 * progress; LOOM_OK, or an error the reading peer's get then fails with.
 * With @p ahead set it is a hint, not a need: a peer just finished reading
 * the range before @p off, and the connection has nothing else to send, so
 * the producer may make [@p off, @p off + @p len) now, while it would
 * otherwise wait for the peer's next request (its outcome is ignored: a
 * real read of those bytes asks again). Every range lies inside the region.
 */
typedef loom_status_t (*loom_tl_fill_cb_t)(void *arg, size_t off, size_t len, int ahead);

/** Completion of an asynchronous get. Embedded in the caller's request. */
typedef struct loom_tl_comp {
    void (*cb)(struct loom_tl_comp *self, loom_status_t status);
} loom_tl_comp_t;

/**
 * Multicast group membership, as mc_join gets it. @p key names the group
 * job-wide: the same on every member, different for every set of members
 * that may be live at once (the caller hashes the communicator's context id
 * and its member list into it). @p members are world ranks in member order
 * (a communicator's rank order); this process is members[my_index].
 */
typedef struct loom_tl_mc_params {
    uint64_t   key;
    const int *members;
    int        num_members;
    int        my_index;
} loom_tl_mc_params_t;

/** Generic part of a multicast group; first member of the transport's own. */
struct loom_tl_mc {
    loom_tl_iface_t *iface;
    uint64_t         key;
    int              joined;   /* 1: this process is a member and may mc_bcast */
    int              agreed;   /* the caller's: 0 not yet agreed, 1 every member
                                * joined (use mc_bcast), -1 some did not (do not) */
    size_t           max_len;  /* largest mc_bcast this group carries */
};

/**
 * Receiving a frame in place (optional, for a transport that reads frames
 * from a byte stream): the first bytes of a frame are in, the rest is not.
 * At least min(len, LOOM_TL_PLACE_HEAD) of its bytes are at @p head
 * (@p have of its @p len; have < len), so the callee sees the whole header.
 * The callee either takes the frame (@return 1, @p place filled): the
 * transport then writes the frame's bytes [have, have + place->keep) to
 * place->dst as they arrive, reads and drops the rest of the frame,
 * delivers nothing else from @p src meanwhile, and calls place_done_cb
 * once the frame is complete; or declines it (@return 0): the frame comes
 * whole through am_cb as usual, and is not offered again. Taking a frame
 * is receiving it: frames from one peer stay in order. Called from
 * progress(); @p head is valid during the call only.
 */
#define LOOM_TL_PLACE_HEAD 128

typedef struct loom_tl_place {
    void   *dst;
    size_t  keep;     /**< bytes of the rest to write to dst (<= len - have) */
} loom_tl_place_t;

typedef int (*loom_tl_am_place_cb_t)(void *arg, int src, const void *head, size_t have,
                                     size_t len, loom_tl_place_t *place);

/**
 * The frame taken by the last am_place_cb from @p src is complete
 * (@p status LOOM_OK), or will not be (an error: the connection failed
 * mid-frame; called before err_cb reports the peer). Called from progress().
 * The engine also ends a taken frame itself when err_cb reports @p src
 * failed, so a transport stops writing to place->dst before it calls
 * err_cb (and only the transport serving @p src reports it).
 */
typedef void (*loom_tl_am_place_done_cb_t)(void *arg, int src, loom_status_t status);

/** What open() gets from the p2p engine. */
typedef struct loom_tl_params {
    const loom_bootstrap_info_t *job;
    loom_tl_am_cb_t              am_cb;
    loom_tl_peer_err_cb_t        err_cb;
    void                        *cb_arg;
    loom_tl_am_place_cb_t        am_place_cb;       /* NULL: every frame to am_cb */
    loom_tl_am_place_done_cb_t   am_place_done_cb;  /* set with am_place_cb */
} loom_tl_params_t;

typedef struct loom_tl_ops {
    /**
     * Open the transport on this process and publish its address with
     * loom_bootstrap_put() (the engine fences once after every transport has
     * opened). LOOM_ERR_UNSUPPORTED when the transport cannot run here (no
     * device, a single local rank for shm): the engine then skips it quietly.
     */
    loom_status_t (*open)(const loom_tl_params_t *params, loom_tl_iface_t **iface_p);

    /** Fill the capabilities. Never fails after a successful open. */
    void (*query)(loom_tl_iface_t *iface, loom_tl_caps_t *caps_p);

    /** 1 if this transport can reach world rank @p peer (after the fence). */
    int (*reachable)(loom_tl_iface_t *iface, int peer);

    /**
     * Create the endpoint to @p peer from the address it published. May defer
     * the real connection to the first send (lazy connection).
     */
    loom_status_t (*ep_create)(loom_tl_iface_t *iface, int peer, loom_tl_ep_t **ep_p);

    /** Destroy an endpoint (at finalize). */
    void (*ep_destroy)(loom_tl_ep_t *ep);

    /**
     * Send one frame: @p hdr then @p payload (either length may be 0), total
     * at most caps.max_am. Both buffers may be reused as soon as this returns.
     * Never blocks. LOOM_OK: sent (or safely queued in transport-owned
     * memory); LOOM_ERR_NO_RESOURCE: back-pressure, nothing was sent, the
     * caller queues and retries after progress; other: peer/transport error.
     */
    loom_status_t (*am_send)(loom_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                             const void *payload, size_t payload_len);

    /**
     * Optional (NULL where not offered): am_send whose payload is produced
     * by @p pack straight into the transport's buffer, for non-contiguous
     * data (a datatype cursor) with no intermediate copy. Same limits,
     * return codes and ordering as am_send; on LOOM_ERR_NO_RESOURCE @p pack
     * was not called. Where NULL the caller packs into a buffer of its own
     * and calls am_send.
     */
    loom_status_t (*am_send_pack)(loom_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                  loom_tl_pack_cb_t pack, void *pack_arg, size_t payload_len);

    /*
     * Receiving in place (optional: both NULL where not offered). A blocking
     * receive from one peer spins on am_peek instead of a whole progress
     * pass, and takes a frame it can match without the callback.
     */

    /**
     * The next frame from @p ep's peer, left in place: its bytes (and
     * *len_p), valid until am_consume or the next progress(); NULL if no
     * frame is there, or if what comes next is not a plain am frame (an
     * internal frame, a frame progress must judge): progress() delivers it.
     * Never calls am_cb, never blocks; a frame peeked and not consumed is
     * delivered by progress() as usual.
     */
    const void *(*am_peek)(loom_tl_ep_t *ep, size_t *len_p);

    /** Hand back the frame the last am_peek on @p ep returned (it is taken). */
    void (*am_consume)(loom_tl_ep_t *ep);

    /**
     * Expose [addr, addr+len) of this process for peers to get(); fills @p rkey
     * and a handle that stays valid until mem_release. May register memory
     * (verbs, through a registration cache).
     */
    loom_status_t (*mem_pack)(loom_tl_iface_t *iface, const void *addr, size_t len,
                              loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p);

    /**
     * Optional (NULL where not offered): mem_pack of a region whose bytes
     * do not exist yet: before the transport reads any of them for a peer it
     * calls @p fill(@p fill_arg, offset, length). Offered only where the
     * owner's own progress serves every read (tcp's GET_DATA streams); a
     * peer that reads by itself (CMA, RDMA) could not wait for the bytes.
     */
    loom_status_t (*mem_pack_fill)(loom_tl_iface_t *iface, const void *addr, size_t len,
                                   loom_tl_fill_cb_t fill, void *fill_arg,
                                   loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p);

    /** Stop exposing a region packed by mem_pack or mem_pack_fill. */
    void (*mem_release)(loom_tl_iface_t *iface, loom_tl_memh_t *memh);

    /**
     * Read @p len bytes at @p raddr of the peer (exposed with @p rkey) into
     * @p local. LOOM_OK: done now (comp not called); LOOM_INPROGRESS:
     * comp->cb is called from a later progress() with the outcome;
     * LOOM_ERR_NO_RESOURCE: retry later; other: error.
     */
    loom_status_t (*get)(loom_tl_ep_t *ep, void *local, size_t len, uint64_t raddr,
                         const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp);

    /**
     * Optional (NULL where not offered): get() scattering straight into
     * @p iovcnt local pieces (their lengths sum to the bytes read), for a
     * receiver whose datatype is not contiguous. Same return codes as get;
     * LOOM_ERR_UNSUPPORTED when this peer cannot be read that way now (the
     * caller then gets into a buffer and unpacks).
     */
    loom_status_t (*get_iov)(loom_tl_ep_t *ep, const struct iovec *iov, size_t iovcnt,
                             uint64_t raddr, const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp);

    /**
     * Optional (NULL where not offered): get() scattered on both sides, for
     * a sender that did not pack its non-contiguous datatype: read the
     * first sum(@p liov lengths) bytes of the remote pieces @p riov (in
     * order; every piece the read touches lies in the region of @p rkey)
     * into the @p lcnt local pieces. Either side may hold any number of
     * pieces (the transport batches them). Same return codes as get_iov.
     * Called with @p lcnt and @p rcnt 0, it only answers whether this peer
     * can be read so now: LOOM_OK, or LOOM_ERR_UNSUPPORTED (then the sender
     * packs and the receiver uses get or get_iov).
     */
    loom_status_t (*get_riov)(loom_tl_ep_t *ep, const struct iovec *liov, size_t lcnt,
                              const struct iovec *riov, size_t rcnt,
                              const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp);

    /*
     * Multicast (optional: NULL, and caps.can_mcast 0, where not offered).
     * A group is created once per key and lives until close; the reliable
     * broadcast on it is ordered and exactly-once for the caller.
     */

    /**
     * Find the group of @p params->key, or create it and join it. Local: may
     * block for this process's own join (bounded, a few seconds at most),
     * never for a peer. A failed join still returns a group, with joined = 0,
     * so that the caller can remember the outcome of its agreement in
     * agreed: joining is collective in effect, and the caller must agree
     * with every member (e.g. an allreduce of joined) before the first
     * mc_bcast. LOOM_OK with *mc_p set; an error only for bad arguments or
     * memory.
     */
    loom_status_t (*mc_join)(loom_tl_iface_t *iface, const loom_tl_mc_params_t *params,
                             loom_tl_mc_t **mc_p);

    /**
     * Broadcast @p len bytes (at most mc->max_len) from member @p root to
     * every member of the group, into @p buf (the root's source, the
     * others' destination). Collective: every member calls it, in the same
     * order on the group, with the same root and len, once the group is
     * agreed. The buffer belongs to the transport until completion (the
     * root's is read again for resends). LOOM_OK: done now (comp not
     * called); LOOM_INPROGRESS: comp->cb is called from a later progress();
     * LOOM_ERR_NO_RESOURCE: a previous mc_bcast of this group is still in
     * flight here, call again after progress; other: error (logged).
     */
    loom_status_t (*mc_bcast)(loom_tl_mc_t *mc, int root, void *buf, size_t len,
                              loom_tl_comp_t *comp);

    /**
     * Leave the group and free it. Only with no mc_bcast in flight; the
     * group key must not be joined again by this process (the others'
     * groups would be out of step). close leaves every group left.
     */
    void (*mc_leave)(loom_tl_mc_t *mc);

    /** Poll once; deliver frames and completions. @return events processed. */
    int (*progress)(loom_tl_iface_t *iface);

    /** Release everything; after the engine's final fence. */
    void (*close)(loom_tl_iface_t *iface);

    /*
     * One-sided operations for the RMA layer (optional: all NULL where not
     * offered; a transport offers all of them or none). Work goes onto
     * endpoints from rma_ep; each endpoint counts the one-sided work posted
     * on it and the completions, and rma_flush compares the two: there is
     * no per-operation callback, so a put or an atomic costs no allocation
     * in the caller. Remote memory is named by an address and the rkey
     * rma_reg exported on its owner. None of these blocks; all return
     * LOOM_ERR_NO_RESOURCE when the queue or the descriptors are full
     * (nothing was posted: progress, then call again).
     */

    /**
     * Register [addr, addr+len) of this process once, for remote read,
     * write and 8-byte atomics by peers, until rma_dereg (no registration
     * cache: a window lives long). Fills @p rkey for the peers.
     */
    loom_status_t (*rma_reg)(loom_tl_iface_t *iface, void *addr, size_t len,
                             loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p);

    /** Undo rma_reg (no one-sided work may target the region any more). */
    void (*rma_dereg)(loom_tl_iface_t *iface, loom_tl_memh_t *memh);

    /**
     * The endpoint for one-sided work to world rank @p peer, this process
     * included (a loopback connection, so that atomics on this process's
     * own memory go through the same adapter as the peers'). May differ
     * from the p2p endpoint; lives until close. LOOM_ERR_UNREACHABLE if
     * @p peer cannot be reached this way.
     */
    loom_status_t (*rma_ep)(loom_tl_iface_t *iface, int peer, loom_tl_ep_t **ep_p);

    /**
     * Write @p len bytes at @p local to @p raddr of the peer (RDMA WRITE).
     * @p local must stay unchanged until rma_flush says the work completed.
     * LOOM_OK: posted (counted); NO_RESOURCE; other: error (logged).
     */
    loom_status_t (*rma_put)(loom_tl_ep_t *ep, const void *local, size_t len, uint64_t raddr,
                             const loom_tl_rkey_t *rkey);

    /** Read @p len bytes at @p raddr of the peer into @p local (RDMA READ); as rma_put. */
    loom_status_t (*rma_get)(loom_tl_ep_t *ep, void *local, size_t len, uint64_t raddr,
                             const loom_tl_rkey_t *rkey);

    /**
     * An 8-byte atomic at @p raddr (8-byte aligned) of the peer: FADD adds
     * @p value; CSWAP writes @p value if the target equals @p compare. The
     * target's old value is written to @p result (any alignment; NULL: not
     * wanted) by the time rma_flush reports the work complete. As rma_put.
     */
    loom_status_t (*rma_atomic)(loom_tl_ep_t *ep, int op, uint64_t value, uint64_t compare,
                                uint64_t *result, uint64_t raddr, const loom_tl_rkey_t *rkey);

    /**
     * LOOM_OK when every one-sided work posted on @p ep so far completed
     * (written at the target, read, results stored), LOOM_INPROGRESS
     * while some is outstanding (call progress), or the error that failed
     * the endpoint (work was lost). Never blocks.
     */
    loom_status_t (*rma_flush)(loom_tl_ep_t *ep);
} loom_tl_ops_t;

/** rma_atomic's operations. */
enum { LOOM_TL_ATOMIC_FADD = 1, LOOM_TL_ATOMIC_CSWAP = 2 };

/** Generic part of every transport's interface; first member of its own. */
struct loom_tl_iface {
    loom_tl_ops_t    ops;     /* copy of the transport's table, NULLs defaulted */
    const char      *name;    /* "self", "shm", "tcp", "ib" */
    loom_tl_caps_t   caps;
    loom_tl_params_t params;
};

/** Generic part of every endpoint; first member of the transport's own. */
struct loom_tl_ep {
    loom_tl_iface_t *iface;
    int              peer;    /* world rank */
};

/** A transport as the registry knows it. */
typedef struct loom_tl_component {
    const char          *name;
    const loom_tl_ops_t *ops;
    loom_config_table_t *config;   /**< its LOOM_* variables (NULL: none); the
                                    *   runtime registers every one */
} loom_tl_component_t;

/** Every transport built into this library, in order of preference. */
extern const loom_tl_component_t *const loom_tl_components[];
extern const size_t loom_tl_num_components;

/**
 * Fill @p iface's generic part (call at the end of open, once the
 * transport can answer query): copy @p ops with NULL entries replaced by
 * defaults that return LOOM_ERR_UNSUPPORTED. Transports call this in open.
 */
void loom_tl_iface_init(loom_tl_iface_t *iface, const char *name,
                        const loom_tl_ops_t *ops, const loom_tl_params_t *params);

/* Fast-path dispatch: one-liners through the table. */
static inline loom_status_t loom_tl_ep_am_send(loom_tl_ep_t *ep, const void *hdr,
                                               size_t hdr_len, const void *payload,
                                               size_t payload_len)
{
    return ep->iface->ops.am_send(ep, hdr, hdr_len, payload, payload_len);
}

static inline const void *loom_tl_ep_am_peek(loom_tl_ep_t *ep, size_t *len_p)
{
    return ep->iface->ops.am_peek(ep, len_p);
}

static inline void loom_tl_ep_am_consume(loom_tl_ep_t *ep)
{
    ep->iface->ops.am_consume(ep);
}

static inline loom_status_t loom_tl_ep_get(loom_tl_ep_t *ep, void *local, size_t len,
                                           uint64_t raddr, const loom_tl_rkey_t *rkey,
                                           loom_tl_comp_t *comp)
{
    return ep->iface->ops.get(ep, local, len, raddr, rkey, comp);
}

static inline int loom_tl_iface_progress(loom_tl_iface_t *iface)
{
    return iface->ops.progress(iface);
}

static inline loom_status_t loom_tl_mem_pack(loom_tl_iface_t *iface, const void *addr,
                                             size_t len, loom_tl_rkey_t *rkey,
                                             loom_tl_memh_t **memh_p)
{
    return iface->ops.mem_pack(iface, addr, len, rkey, memh_p);
}

static inline void loom_tl_mem_release(loom_tl_iface_t *iface, loom_tl_memh_t *memh)
{
    iface->ops.mem_release(iface, memh);
}

#endif /* LOOM_TL_H */
