/*
 * shm_int.h: the shared-memory transport (ranks on one node).
 *
 * Design. The lowest local rank creates one segment per node in open()
 * (shm_open 0600, O_EXCL, named "/loom-<jobid>-shm-<host>-<hash>" by the
 * bootstrap's naming rule, which loomrun also uses to clean up, and the
 * launcher's name for the host, so hosts sharing one /dev/shm do not
 * collide); the other local
 * ranks attach at first use, which is after the engine's modex fence and so
 * after the creator's open. Each attacher bumps a counter in the segment; the
 * one that completes it unlinks the name, so nothing is left in /dev/shm
 * even if a rank crashes later (close() unlinks too, for ranks that never
 * attach; the launcher removes "/loom-<jobid>*" as a last resort).
 *
 *   segment: header | rank table (pid, probe address, state per local rank)
 *            | ring[src][dst] for every ordered pair of local ranks
 *
 * Rings are the SPSC rings of shm_ring.h. A frame's type says what it
 * carries: an active message for the p2p engine, or one of the two control
 * frames of the pipelined get (below).
 *
 * get() reads the peer's memory with one process_vm_readv (CMA), in chunks
 * and tolerating partial reads. Whether CMA works is checked at open by
 * reading ourselves (a container's seccomp policy fails it with EPERM or
 * ENOSYS) and per peer on the first get by reading a known word of the peer
 * (ptrace rules, pid namespaces). Where it does
 * not (or LOOM_SHM_CMA=off), get() sends a GET_REQ frame to the owner, whose
 * progress streams the region back as GET_DATA frames through the ring; the
 * get completes through comp->cb. Ranks decide per peer and independently:
 * every rank serves GET_REQ whatever it uses itself.
 *
 * Peer death: a peer whose process is gone (kill(pid, 0) == ESRCH, checked
 * about once a second from progress, when a ring to it stays full and when a
 * read fails with ESRCH) is reported once through err_cb; a peer that closed
 * its transport normally is not.
 */
#ifndef LOOM_SHM_INT_H
#define LOOM_SHM_INT_H

#include "shm_ring.h"
#include "tl.h"

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define LOOM_SHM_MAGIC        0x316d68736d6f6f6cull   /* "loomshm1" */
#define LOOM_SHM_PROBE_MAGIC  0x65626f7270616d63ull   /* "cmaprobe" */
#define LOOM_SHM_RKEY_MAGIC   0x4d48534cu             /* "LSHM" */
#define LOOM_SHM_MAX_GETS     64      /* pipelined gets in flight per peer */
#define LOOM_SHM_RX_BATCH     16      /* frames taken from one ring per poll */
#define LOOM_SHM_NAME_MAX     255

/** Frame types (slot->type). */
enum {
    LOOM_SHM_FRAME_AM       = 1,  /* p2p active message: hdr + payload */
    LOOM_SHM_FRAME_GET_REQ  = 2,  /* loom_shm_get_req_t */
    LOOM_SHM_FRAME_GET_DATA = 3,  /* loom_shm_get_data_t + bytes */
    LOOM_SHM_FRAME_GET_ERR  = 4,  /* loom_shm_get_err_t: the owner refused a GET_REQ */
};

/** State of a local rank in the segment's rank table. */
enum {
    LOOM_SHM_RANK_NONE     = 0,
    LOOM_SHM_RANK_ATTACHED = 1,
    LOOM_SHM_RANK_CLOSED   = 2,
};

typedef enum loom_shm_cma_mode {
    LOOM_SHM_CMA_AUTO,
    LOOM_SHM_CMA_ON,
    LOOM_SHM_CMA_OFF,
} loom_shm_cma_mode_t;

/** Per-peer CMA verdict: probed on the first get. */
enum {
    LOOM_SHM_CMA_UNKNOWN = 0,
    LOOM_SHM_CMA_YES,
    LOOM_SHM_CMA_NO,
};

/** One local rank's entry in the segment. */
typedef struct loom_shm_seg_rank {
    _Atomic uint32_t state;       /* LOOM_SHM_RANK_* (release on change) */
    int32_t          pid;
    uint64_t         probe_addr;  /* address of a word holding LOOM_SHM_PROBE_MAGIC */
    uint64_t         pidns;       /* inode of its pid namespace (0: unknown) */
} loom_shm_seg_rank_t;

/** Segment header, at offset 0. */
typedef struct loom_shm_seg_hdr {
    _Atomic uint64_t    magic;       /* stored last (release) by the creator */
    uint32_t            local_size;
    uint32_t            nslots;
    uint32_t            slot_size;
    _Atomic uint32_t    nattached;   /* ranks that mapped it; last one unlinks */
    uint64_t            ring_offset;
    uint64_t            ring_stride;
    uint64_t            size;
    loom_shm_seg_rank_t ranks[];     /* local_size entries */
} loom_shm_seg_hdr_t;

/** Rendezvous key as packed by mem_pack. */
typedef struct loom_shm_rkey {
    uint32_t magic;
    int32_t  pid;
    uint64_t addr;
    uint64_t len;
    uint32_t memh_idx;   /* the owner's registry entry, checked on GET_REQ */
    uint32_t memh_gen;
} loom_shm_rkey_t;

/** GET_REQ payload. */
typedef struct loom_shm_get_req {
    uint32_t id;      /* requester's slot index | generation << 8 */
    uint32_t memh_idx;
    uint32_t memh_gen;
    uint32_t rsvd;
    uint64_t raddr;
    uint64_t len;
} loom_shm_get_req_t;

/** GET_ERR payload. */
typedef struct loom_shm_get_err {
    uint32_t id;
    int32_t  status;
} loom_shm_get_err_t;

/**
 * A region exposed by mem_pack (owner side). Entries live in chunks that
 * never move; an entry is exposed while its generation is odd.
 */
typedef struct loom_shm_memh {
    uint64_t addr;
    uint64_t len;
    uint32_t gen;
    uint32_t next_free;   /* free list: index + 1, 0 ends it */
    uint32_t idx;         /* its own index */
    uint32_t rsvd;
} loom_shm_memh_t;

#define LOOM_SHM_MEMH_CHUNK 256u

/** GET_DATA header, followed by the bytes at [offset, offset + n). */
typedef struct loom_shm_get_data {
    uint32_t id;
    uint32_t rsvd;
    uint64_t offset;
} loom_shm_get_data_t;

/** A pipelined get this rank is waiting for (requester side). */
typedef struct loom_shm_get_op {
    loom_tl_comp_t *comp;
    uint8_t        *local;
    uint64_t        len;
    uint64_t        received;
    uint32_t        gen;
} loom_shm_get_op_t;

/** A region this rank streams to a requester (owner side). */
typedef struct loom_shm_stream {
    uint32_t       id;
    int32_t        status;   /* not LOOM_OK: answer GET_ERR instead of data */
    const uint8_t *addr;
    uint64_t       len;
    uint64_t       sent;
} loom_shm_stream_t;

typedef struct loom_shm_iface loom_shm_iface_t;

/** Everything about one local peer; its ep is embedded (no allocation). */
typedef struct loom_shm_peer {
    loom_tl_ep_t        ep;
    loom_shm_iface_t   *iface;
    loom_shm_ring_tx_t  tx;          /* this rank -> peer */
    loom_shm_ring_rx_t  rx;          /* peer -> this rank */
    uint32_t            max_frame;
    int                 failed;
    int                 world_rank;
    int                 local_idx;
    int                 cma;         /* LOOM_SHM_CMA_UNKNOWN/YES/NO */
    pid_t               pid;         /* 0 until the peer attached */
    uint32_t            full_count;  /* consecutive sends refused */
    /* requester side of pipelined gets */
    uint64_t            gets_free;   /* bit i set: gets[i] is free */
    loom_shm_get_op_t   gets[LOOM_SHM_MAX_GETS];
    /* owner side: FIFO of regions to stream */
    uint32_t            stream_head;
    uint32_t            stream_count;
    loom_shm_stream_t   streams[LOOM_SHM_MAX_GETS];
} loom_shm_peer_t;

struct loom_shm_iface {
    loom_tl_iface_t      super;
    const loom_bootstrap_info_t *job;
    loom_shm_seg_hdr_t  *seg;            /* NULL until mapped */
    size_t               seg_size;
    uint32_t             nslots;
    uint32_t             slot_size;
    pid_t                pid;            /* getpid(), cached */
    int                  local_idx;
    int                  local_size;
    int                  creator;
    int                  unlinked;
    int                  in_progress;    /* progress is not reentrant */
    loom_shm_cma_mode_t  cma_mode;
    int                  cma_notice;     /* fallback notice printed */
    uint32_t             attach_backoff; /* progress calls until next attach try */
    uint32_t             rr;             /* round-robin start among peers */
    uint32_t             nstreams;       /* owner-side streams in flight */
    uint32_t             ngets;          /* requester-side gets in flight */
    uint32_t             check_count;    /* progress calls since the liveness clock */
    struct timespec      last_check;
    int                 *local_of_rank;  /* world rank -> local index, or -1 */
    loom_shm_peer_t     *peers;          /* local_size entries (own one unused) */
    loom_shm_peer_t    **poll;           /* the local_size - 1 others */
    loom_shm_memh_t    **memh_chunks;    /* registry of exposed regions */
    uint32_t             memh_nchunks;
    uint32_t             memh_free;      /* free list head: index + 1, 0 = empty */
    char                 seg_name[LOOM_SHM_NAME_MAX + 1];
};

extern const loom_tl_ops_t loom_tl_shm_ops;

/* shm_seg.c */

/** Characters of the host name kept in a segment name. */
#define LOOM_SHM_HOST_CHARS 48

/**
 * Segment name for a job on a host: loom_bootstrap_shm_prefix_for(jobid) +
 * "shm-" + host + "-" + 8 hex digits, i.e. "/loom-<jobid>-shm-<host>-<hash>",
 * with every byte of @p jobid and @p host outside [A-Za-z0-9._-] replaced
 * by '_', the host cut to LOOM_SHM_HOST_CHARS, and the hash (FNV-1a of the
 * whole host name) telling apart names the rule maps alike. The host part
 * keeps hosts that share one /dev/shm (containers, a shared tmpfs) from
 * colliding on one name; loomrun still removes "/loom-<jobid>-*".
 * @p host is the launcher's name for this rank's host (the same for every
 * local rank); NULL or "" counts as "?".
 * @return LOOM_ERR_INVALID_ARG if it does not fit in @p len bytes.
 */
loom_status_t loom_shm_seg_name(const char *jobid, const char *host, char *buf, size_t len);

/** Create, size, format and map the segment (the lowest local rank). */
loom_status_t loom_shm_seg_create(loom_shm_iface_t *iface);

/**
 * Map the segment another rank created and check its geometry.
 * @return LOOM_OK, LOOM_INPROGRESS if it does not exist yet, or an error.
 */
loom_status_t loom_shm_seg_attach(loom_shm_iface_t *iface);

/** Mark this rank closed, unmap, and unlink the name if still there. */
void loom_shm_seg_detach(loom_shm_iface_t *iface);

/* shm_iface.c */

/** Make sure the segment is mapped; logs and fails if it cannot be. */
loom_status_t loom_shm_iface_attach(loom_shm_iface_t *iface, const char *op);

/**
 * Declare @p peer failed (once): log naming both ends, the transport and
 * @p op, fail its pipelined gets, and call the engine's err_cb.
 */
void loom_shm_peer_fail(loom_shm_peer_t *peer, loom_status_t status, const char *op,
                        const char *why);

/** Learn the peer's pid from the segment once it attached. @return pid or 0. */
pid_t loom_shm_peer_pid(loom_shm_peer_t *peer);

/**
 * A send to @p peer found its ring full: count, look for a dead peer now
 * and then. @return LOOM_ERR_NO_RESOURCE or the peer's failure.
 */
loom_status_t loom_shm_peer_backpressure(loom_shm_peer_t *peer, const char *op);

/* shm_memh.c */

loom_status_t loom_shm_mem_pack(loom_tl_iface_t *tl, const void *addr, size_t len,
                                loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p);
void loom_shm_mem_release(loom_tl_iface_t *tl, loom_tl_memh_t *memh);

/**
 * Owner side of a pipelined get: is [addr, addr + len) inside the region
 * registry entry @p idx exposes in generation @p gen? @return 1 if so.
 */
int loom_shm_memh_covers(loom_shm_iface_t *iface, uint32_t idx, uint32_t gen,
                         uint64_t addr, uint64_t len);

/** Free the registry (close). */
void loom_shm_memh_cleanup(loom_shm_iface_t *iface);

/* shm_get.c */

loom_status_t loom_shm_ep_get(loom_tl_ep_t *ep, void *local, size_t len, uint64_t raddr,
                              const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp);

/** tl.h get_iov by process_vm_readv (shm_get_iov.c); UNSUPPORTED unless CMA is "yes". */
loom_status_t loom_shm_ep_get_iov(loom_tl_ep_t *ep, const struct iovec *iov, size_t iovcnt,
                                  uint64_t raddr, const loom_tl_rkey_t *rkey,
                                  loom_tl_comp_t *comp);

/** Handle a GET_REQ or GET_DATA frame from @p peer. */
void loom_shm_get_frame(loom_shm_peer_t *peer, const loom_shm_slot_t *slot);

/** Push chunks of the owner-side streams. @return frames sent. */
int loom_shm_get_push(loom_shm_iface_t *iface);

/** Complete every pipelined get from @p peer with @p status (peer failed). */
void loom_shm_get_abort(loom_shm_peer_t *peer, loom_status_t status);

/** Inode of this process's pid namespace, 0 if unknown. */
uint64_t loom_shm_pidns(void);

/**
 * Settle the CMA mode at open: allow local peers to read us (Yama), and
 * check that process_vm_readv works at all (seccomp). Prints the one-line
 * notice when large messages will use the pipelined copy.
 * @return LOOM_ERR_TRANSPORT if LOOM_SHM_CMA=on cannot be honoured.
 */
loom_status_t loom_shm_cma_init(loom_shm_iface_t *iface);

/** Address of this process's CMA probe word (published in the rank table). */
uint64_t loom_shm_probe_addr(void);

#endif /* LOOM_SHM_INT_H */
