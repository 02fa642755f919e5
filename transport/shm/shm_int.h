/*
 * shm_int.h: the shared-memory transport (ranks on one node).
 *
 * Segment. The lowest local rank creates one segment per node in open()
 * (shm_open 0600, O_EXCL, named "/loom-<jobid>-shm-<host>-<hash>" by the
 * bootstrap's naming rule, which loomrun also uses to clean up, and the
 * launcher's name for the host, so hosts sharing one /dev/shm do not
 * collide); the other local ranks attach at first use, which is after the
 * engine's modex fence and so after the creator's open. Each attacher
 * bumps a counter in the segment; the one that completes it unlinks the
 * name, so nothing is left in /dev/shm even if a rank crashes later
 * (close() unlinks too, for ranks that never attach; the launcher removes
 * "/loom-<jobid>*" as a last resort).
 *
 * Memory grows with the ranks, not their square. The segment holds a
 * header, the rank table and one REGION per local rank; every rank owns
 * its region, in which it RECEIVES (its FIFO, its fast boxes) and from
 * which it SENDS large frames (its fragment pool):
 *
 *   region: control line (fast boxes claimed)
 *           | receive FIFO: control line + LOOM_SHM_FIFO_SLOTS cells
 *           | LOOM_SHM_FBOX_MAX fast boxes (each an SPSC ring of
 *           |   LOOM_SHM_RING_SLOTS cells)
 *           | LOOM_SHM_FRAGS fragments of LOOM_SHM_SLOT_SIZE bytes
 *
 * A cell is LOOM_SHM_CELL bytes (three lines): the 16-byte slot header of
 * shm_ring.h, then up to LOOM_SHM_INLINE bytes of frame, so a small
 * message is detected and read in one line, as before. In an open fast
 * box a frame of up to LOOM_SHM_BOX_INLINE (560) bytes spans consecutive
 * cells instead (shm_ring.h), read in place. A larger frame, or one sent
 * through the FIFO, goes into a fragment of the sender's own pool and the
 * cell carries its index (type flag LOOM_SHM_FRAME_FRAG); the receiver
 * hands the fragment back by clearing its busy word, and the sender
 * reclaims fragments lazily when its free list runs dry. The zero-filled
 * segment is the formatted state of everything (FIFO cells free, rings
 * empty, fragments free), so the creator writes only the header, and
 * memory is used only where it is touched: per rank the FIFO (prefaulted
 * by its owner at attach) and the fragments it sends through, per active
 * pair one box.
 *
 * Memory in use, N local ranks (defaults in brackets; docs/ARCHITECTURE.md
 * has measurements): per rank 128 + 192 x FIFO_SLOTS at attach (24.7 KiB),
 * plus the touched part of FRAGS x (SLOT_SIZE + 64) (<= 129 KiB); per
 * active pair 64 + 192 x (RING_SLOTS + 2) (12.4 KiB; the two cells: the
 * spill area of spans), at most FBOX_MAX (16) per receiver. Worst case
 * 360 KiB per rank: 45 MiB at 128 ranks, 90 at 256.
 *
 * Paths of a frame from A to B, in per-pair order:
 *   - B's FIFO (shm_fifo.h, many producers): every pair starts there; one
 *     CAS per frame on the FIFO's head line;
 *   - a fast box: after LOOM_SHM_FBOX_THRESHOLD frames through the FIFO, A
 *     claims one of B's boxes (one atomic add on B's region line; at most
 *     LOOM_SHM_FBOX_MAX per receiver, first come first served) and sends
 *     an FBOX frame naming it through the FIFO, then sends every later
 *     frame through the box, the SPSC ring of shm_ring.h: no atomic
 *     read-modify-write, one line per small frame. B polls the box from
 *     the moment it takes the FBOX frame, so everything A sent through the
 *     FIFO before is delivered first; A never goes back to the FIFO.
 * A full FIFO, box or pool refuses the frame (LOOM_ERR_NO_RESOURCE, the
 * engine queues it): back-pressure, never a loss or a reordering. Incast:
 * FIFO cells are granted in claim order, and each progress pass takes a
 * bounded batch from the FIFO and from each box in turn.
 *
 * get() reads the peer's memory with one process_vm_readv (CMA), in chunks
 * and tolerating partial reads. Whether CMA works is checked at open by
 * reading ourselves (a container's seccomp policy fails it with EPERM or
 * ENOSYS) and per peer on the first get by reading a known word of the peer
 * (ptrace rules, pid namespaces). Where it does
 * not (or LOOM_SHM_CMA=off), get() sends a GET_REQ frame to the owner, whose
 * progress streams the region back as GET_DATA frames (fragments); the
 * get completes through comp->cb. Ranks decide per peer and independently:
 * every rank serves GET_REQ whatever it uses itself.
 *
 * Peer death: a peer whose process is gone (kill(pid, 0) == ESRCH, checked
 * about once a second from progress, when sends to it stay refused and when
 * a read fails with ESRCH) is reported once through err_cb; a peer that
 * closed its transport normally is not. Fragments the dead peer held are
 * taken back. A rank killed between claiming a FIFO cell and publishing it
 * (a few instructions) leaves a hole that blocks the FIFO. Each cell names
 * its claimer from right after the claim (shm_fifo.h), and once some peer
 * failed, a hole is skipped only when its claimer's process is gone
 * (ESRCH): never on a timer, since a claimer that is only stalled
 * (SIGSTOP, debugger, swap, heavy oversubscription) publishes late, and a
 * skipped cell rewritten by it would break the next lap (seq going back,
 * the FIFO "full" forever, a reused cell overwritten). Known limit: a rank
 * killed in the two instructions between its claim CAS and the identity
 * store leaves a hole that is never skipped (warned about): the FIFO stays
 * blocked, frames already in fast boxes still flow.
 */
#ifndef LOOM_SHM_INT_H
#define LOOM_SHM_INT_H

#include "shm_fifo.h"
#include "shm_ring.h"
#include "tl.h"

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define LOOM_SHM_MAGIC        0x326d68736d6f6f6cull   /* "loomshm2" */
#define LOOM_SHM_PROBE_MAGIC  0x65626f7270616d63ull   /* "cmaprobe" */
#define LOOM_SHM_RKEY_MAGIC   0x4d48534cu             /* "LSHM" */
#define LOOM_SHM_MAX_GETS     64      /* pipelined gets in flight per peer */
#define LOOM_SHM_RX_BATCH     16      /* frames taken from the FIFO or one box per poll */
#define LOOM_SHM_CELL         192u    /* bytes of a FIFO or fast-box cell (three lines) */
#define LOOM_SHM_INLINE       (LOOM_SHM_CELL - LOOM_SHM_SLOT_HDR)   /* frame bytes in a cell */
/* frame bytes a fast box carries in place, spanning cells (shm_ring.h): 560 */
#define LOOM_SHM_BOX_INLINE   (LOOM_SHM_RING_SPAN_MAX * LOOM_SHM_CELL - LOOM_SHM_SLOT_HDR)
#define LOOM_SHM_NAME_MAX     255

/** Frame types (slot->type). */
enum {
    LOOM_SHM_FRAME_AM       = 1,  /* p2p active message: hdr + payload */
    LOOM_SHM_FRAME_GET_REQ  = 2,  /* loom_shm_get_req_t */
    LOOM_SHM_FRAME_GET_DATA = 3,  /* loom_shm_get_data_t + bytes */
    LOOM_SHM_FRAME_GET_ERR  = 4,  /* loom_shm_get_err_t: the owner refused a GET_REQ */
    LOOM_SHM_FRAME_FBOX     = 5,  /* uint32_t: the receiver's fast box the sender uses next */
    LOOM_SHM_FRAME_TYPE     = 0xff,    /* mask of the type in slot->type */
    LOOM_SHM_FRAME_FRAG     = 0x100,   /* flag: the frame is in the sender's fragment
                                        * (uint32_t index in the cell) */
};

/** Fast-box state of a pair, sender side (peer->fbox_state). */
enum {
    LOOM_SHM_FBOX_NONE    = 0,   /* FIFO; a box is claimed at the threshold */
    LOOM_SHM_FBOX_PENDING = 1,   /* box claimed, FBOX frame not sent yet (FIFO full) */
    LOOM_SHM_FBOX_OPEN    = 2,   /* every frame goes through the box */
    LOOM_SHM_FBOX_NEVER   = 3,   /* the receiver's boxes are all taken (or boxes off) */
};

/** Header line of a fragment; the frame's bytes follow. */
typedef struct loom_shm_frag_hdr {
    _Atomic uint32_t busy;   /* 1 from send until the receiver is done (it stores 0) */
    uint32_t         dst;    /* receiver's local index (written by the owner) */
    uint8_t          pad[LOOM_CACHE_LINE - 2 * sizeof(uint32_t)];
} LOOM_ALIGNED(LOOM_CACHE_LINE) loom_shm_frag_hdr_t;

/** First line of a rank's region. */
typedef struct loom_shm_region_hdr {
    _Atomic uint32_t fbox_claimed;   /* boxes handed out (senders add 1; may pass the max) */
    uint8_t          pad[LOOM_CACHE_LINE - sizeof(uint32_t)];
} LOOM_ALIGNED(LOOM_CACHE_LINE) loom_shm_region_hdr_t;

/** Sizes chosen by the LOOM_SHM_* settings; the same on every local rank. */
typedef struct loom_shm_geom {
    uint32_t fifo_slots;      /* cells of a receive FIFO (power of two) */
    uint32_t fbox_slots;      /* cells of a fast box (power of two) */
    uint32_t fbox_max;        /* fast boxes per receiver */
    uint32_t fbox_threshold;  /* frames through the FIFO before a box (0: no boxes) */
    uint32_t nfrags;          /* fragments per sender */
    uint32_t frag_size;       /* bytes of a fragment: the largest frame */
    /* derived: offsets inside a region, and the region stride */
    uint64_t fifo_off;
    uint64_t fbox_off;
    uint64_t fbox_stride;
    uint64_t frag_off;
    uint64_t frag_stride;
    uint64_t region_bytes;
} loom_shm_geom_t;

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
    _Atomic uint32_t    nattached;   /* ranks that mapped it; last one unlinks */
    loom_shm_geom_t     geom;
    uint64_t            region_offset;
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
    loom_shm_ring_tx_t  fbox_tx;     /* this rank -> peer, once fbox_state is OPEN */
    loom_shm_fifo_tx_t  fifo_tx;     /* the peer's receive FIFO */
    loom_shm_ring_rx_t  fbox_rx;     /* peer -> this rank; cur NULL until it sent FBOX */
    uint8_t            *region;      /* the peer's region of the segment */
    uint32_t            max_frame;
    uint32_t            fifo_sent;   /* frames sent through its FIFO (box threshold) */
    uint32_t            fbox_state;  /* LOOM_SHM_FBOX_* */
    uint32_t            fbox_idx;    /* the box claimed in the peer's region */
    loom_shm_frag_hdr_t *peek_frag;  /* fragment of the frame am_peek returned */
    int                 peek_fifo;   /* 1: that frame is in our FIFO, 0: in the box */
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
    loom_shm_geom_t      geom;
    uint8_t             *region;         /* this rank's region */
    loom_shm_fifo_rx_t   fifo_rx;        /* this rank's receive FIFO */
    loom_shm_peer_t    **boxes;          /* peers whose fast box we poll (fbox_max) */
    uint32_t             nboxes;
    uint32_t             box_rr;         /* round-robin start among boxes */
    uint32_t            *frag_free;      /* stack of free fragment indices */
    uint32_t             nfrag_free;
    uint8_t             *frag_out;       /* 1: fragment sent, not seen back yet */
    pid_t                pid;            /* getpid(), cached */
    int                  local_idx;
    int                  local_size;
    int                  creator;
    int                  unlinked;
    int                  in_progress;    /* progress is not reentrant */
    loom_shm_cma_mode_t  cma_mode;
    int                  cma_notice;     /* fallback notice printed */
    uint32_t             attach_backoff; /* progress calls until next attach try */
    uint32_t             nstreams;       /* owner-side streams in flight */
    uint32_t             ngets;          /* requester-side gets in flight */
    uint32_t             check_count;    /* progress calls since the liveness clock */
    uint32_t             nfailed;        /* peers declared failed */
    uint32_t             hole_ticks;     /* liveness checks the FIFO stayed blocked at hole_pos */
    uint64_t             hole_pos;
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

/**
 * Fill @p geom's offsets from its settings (fifo_slots ... frag_size).
 * @return LOOM_ERR_CONFIG, naming the settings, if they are out of range.
 */
loom_status_t loom_shm_geom_init(loom_shm_geom_t *geom);

/** Region of local rank @p idx in the mapped segment. */
static inline uint8_t *loom_shm_seg_region(const loom_shm_iface_t *iface, int idx)
{
    return (uint8_t *)iface->seg + iface->seg->region_offset +
           (uint64_t)idx * iface->geom.region_bytes;
}

/** Create, size and map the segment (the lowest local rank). */
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
 * A send to @p peer found its FIFO, box or our fragment pool full: count,
 * look for a dead peer now and then. @return LOOM_ERR_NO_RESOURCE or the peer's failure.
 */
loom_status_t loom_shm_peer_backpressure(loom_shm_peer_t *peer, const char *op);

/* shm_send.c */

/** Where a frame being sent goes: reserved by loom_shm_tx_reserve. */
typedef struct loom_shm_txd {
    loom_shm_slot_t *slot;       /* the FIFO cell or box slot */
    uint64_t         fifo_pos;   /* claimed FIFO position (fifo 1) */
    int              fifo;       /* 1: FIFO cell, 0: fast-box slot */
    int32_t          frag;       /* fragment index, or -1: the frame is inline */
    uint32_t         span;       /* box slots the frame spans (1 in the FIFO) */
    uint8_t         *data;       /* where the frame's len bytes go */
} loom_shm_txd_t;

/**
 * Reserve room for a frame of @p len bytes (at most peer->max_frame) to
 * @p peer: a cell, or in an open fast box up to LOOM_SHM_BOX_INLINE bytes
 * of consecutive cells, and a fragment beyond that. Opens the
 * pair's fast box when its time has come. The caller MUST commit a
 * reservation that returned LOOM_OK.
 * @return LOOM_OK, LOOM_ERR_NO_RESOURCE (full: nothing reserved) or the
 *         peer's failure.
 */
loom_status_t loom_shm_tx_reserve(loom_shm_peer_t *peer, size_t len, loom_shm_txd_t *d,
                                  const char *op);

/** Publish the frame reserved in @p d: @p len bytes of frame type @p type. */
void loom_shm_tx_commit(loom_shm_peer_t *peer, loom_shm_txd_t *d, uint32_t len, uint16_t type);

/** Send a frame of two gathered pieces. @return as loom_shm_tx_reserve. */
loom_status_t loom_shm_tx_send2(loom_shm_peer_t *peer, uint16_t type, const void *a,
                                size_t a_len, const void *b, size_t b_len, const char *op);

/** The fragment @p idx of local rank @p owner's pool (idx < nfrags). */
static inline loom_shm_frag_hdr_t *loom_shm_frag(const loom_shm_iface_t *iface, int owner,
                                                 uint32_t idx)
{
    return (loom_shm_frag_hdr_t *)(loom_shm_seg_region(iface, owner) + iface->geom.frag_off +
                                   (uint64_t)idx * iface->geom.frag_stride);
}

/** Allocate the private fragment bookkeeping (free stack, in-flight flags). */
loom_status_t loom_shm_frag_init(loom_shm_iface_t *iface);

/** Take back every fragment sent to local rank @p dst (it failed). */
void loom_shm_frag_reclaim_peer(loom_shm_iface_t *iface, int dst);

/** am_send / am_send_pack of the ops table. */
loom_status_t loom_shm_ep_am_send(loom_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                  const void *payload, size_t payload_len);
loom_status_t loom_shm_ep_am_send_pack(loom_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                       loom_tl_pack_cb_t pack, void *pack_arg,
                                       size_t payload_len);

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

/**
 * Check that @p key is @p peer's and covers [raddr, raddr + len) before
 * @p op ("get", "get_iov") reads it; LOOM_ERR_INVALID_ARG, logged, if not.
 */
loom_status_t loom_shm_get_check(loom_shm_peer_t *peer, const char *op, size_t len,
                                 uint64_t raddr, const loom_shm_rkey_t *key);

/**
 * The outcome of a failed process_vm_readv (@p rc) of @p n bytes at
 * @p raddr of @p peer into @p pieces local pieces, for @p op: the peer
 * failed (ESRCH) or LOOM_ERR_TRANSPORT, logged with both ends.
 */
loom_status_t loom_shm_cma_error(loom_shm_peer_t *peer, const char *op, ssize_t rc,
                                 uint64_t raddr, size_t n, size_t pieces);

/** Decide once whether process_vm_readv may read @p peer (sets peer->cma). */
loom_status_t loom_shm_cma_probe(loom_shm_peer_t *peer);

/** tl.h get_riov by process_vm_readv (shm_get_iov.c); UNSUPPORTED unless CMA is "yes". */
loom_status_t loom_shm_ep_get_riov(loom_tl_ep_t *ep, const struct iovec *liov, size_t lcnt,
                                   const struct iovec *riov, size_t rcnt,
                                   const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp);

/** tl.h get_iov by process_vm_readv (shm_get_iov.c); UNSUPPORTED unless CMA is "yes". */
loom_status_t loom_shm_ep_get_iov(loom_tl_ep_t *ep, const struct iovec *iov, size_t iovcnt,
                                  uint64_t raddr, const loom_tl_rkey_t *rkey,
                                  loom_tl_comp_t *comp);

/** Handle a GET_REQ, GET_DATA or GET_ERR frame (@p len bytes at @p data) from @p peer. */
void loom_shm_get_frame(loom_shm_peer_t *peer, uint32_t type, const uint8_t *data,
                        uint32_t len);

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
