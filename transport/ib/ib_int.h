/*
 * ib_int.h: the verbs transport (InfiniBand and RoCE), reliable connected.
 *
 * Design. One protection domain, one completion queue and one shared receive
 * queue (SRQ) per process; one RC queue pair per peer; one UD queue pair that
 * carries connection requests. Frames ("am") are at most LOOM_TL_IB_FRAME
 * bytes: an 8-byte transport header (sender rank, piggybacked credits, type)
 * then the caller's header and payload, copied into a pre-registered send
 * buffer, or sent inline (no copy, no registration) when small. The frame
 * format, its constants and the checks of every received frame are in
 * ib_wire.h (no verbs: unit-tested and fuzzed on any host).
 *
 * Flow control: a peer may have at most LOOM_TL_IB_CREDITS data frames and
 * LOOM_TL_IB_CTL_CREDITS credit-only frames in flight to us, and we post that
 * many SRQ buffers for every connected peer, plus LOOM_TL_IB_RX_BATCH spare
 * ones: consumed buffers are reposted in batches of LOOM_TL_IB_RX_BATCH (one
 * ibv_post_srq_recv per batch) while their credits go back at once, and the
 * spares cover the at most BATCH-1 held back. So the SRQ never runs dry and
 * receiver-not-ready cannot happen (RNR retry is 0: a flow-control bug shows
 * up as an error, not as a slowdown). Credits come back piggybacked on
 * traffic in the other direction, or in an explicit credit frame when half
 * the window is owed; credit frames are themselves paid back by piggyback
 * only, so they never cascade.
 *
 * Connection: jobs up to LOOM_IB_LAZY_THRESHOLD ranks create every QP at
 * open and publish their numbers (one per peer) in the modex; all are moved
 * INIT -> RTR -> RTS at the first reachable()/ep_create() after the fence.
 * Larger jobs publish only the UD address; the first send to a peer creates
 * its QP and sends a REQ datagram (QPN, PSN) to the peer's UD QP, which
 * creates or reuses its own QP for us, connects it and answers REP. Both
 * sides may start at once: each has exactly one QP per peer, so both
 * connect to the QPN in the other's message and the second REP is ignored.
 * REQs are resent until answered (datagrams may be lost).
 *
 * Rendezvous: mem_pack registers the sender's region (REMOTE_READ) through
 * the registration cache (ib_rcache.c, see docs/ib.md); get() registers the
 * local destination (LOCAL_WRITE) the same way and posts one RDMA READ.
 *
 * Multicast (ib_mc.c, design in docs/ib.md): a second UD queue pair with
 * MTU-sized slots carries the reliable broadcast of tl_mc_proto.h; groups
 * are joined through librdmacm (which also takes the IP-level membership
 * soft-RoCE needs) and attached to that QP; ACK/NACK datagrams go unicast to
 * the root's multicast QP, whose number every rank publishes in its address.
 *
 * Errors: every error completion and async event is logged naming both ends
 * (rank and host), the QP number and the verbs status, then reported through
 * params->err_cb; the endpoint is marked failed, its QP moved to the error
 * state (outstanding work completes with an error) and later sends return
 * it; the peer is told with FAIL datagrams on the UD QP (a QP in error drops
 * what arrives silently, so a peer that only waits would learn nothing
 * until its hang timeout) and fails its endpoint at once. A watchdog backs
 * up the RC retry timer (which soft-RoCE does not honour toward a dead
 * peer): work requests complete in the peer's adapter, not its
 * software, so a peer with work outstanding and no completion for
 * LOOM_IB_STALL_TIMEOUT seconds (default 4; longer where hosts are emulated
 * and may stall, as in test/verbs/run2.sh) is declared failed.
 */
#ifndef LOOM_TL_IB_INT_H
#define LOOM_TL_IB_INT_H

#include "tl.h"
#include "tl_mc_proto.h"
#include "ib_wire.h"
#include "list_int.h"
#include "log_int.h"

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <pthread.h>
#include <stdint.h>

#define LOOM_TL_IB_PEER_RX      (LOOM_TL_IB_CREDITS + LOOM_TL_IB_CTL_CREDITS)
#define LOOM_TL_IB_SQ_DEPTH     64    /* send WRs per RC QP (sends + reads) */
#define LOOM_TL_IB_MAX_READS    16    /* outstanding RDMA READs per QP */
#define LOOM_TL_IB_TX_BUFS      256   /* registered send buffers per process */
#define LOOM_TL_IB_UD_DEPTH     64    /* UD recv and send slots */
#define LOOM_TL_IB_UD_BUF       256   /* UD slot size (GRH of 40 bytes + message) */
#define LOOM_TL_IB_POLL_BATCH   16
#define LOOM_TL_IB_RX_BATCH     8     /* SRQ buffers reposted per ibv_post_srq_recv */
#define LOOM_TL_IB_READ_CHUNK   (1u << 20)  /* bytes per RDMA READ work request */
#define LOOM_TL_IB_WATCH_NS     (500ull * 1000 * 1000)
#define LOOM_TL_IB_REQ_RESEND_NS   (300ull * 1000 * 1000)
#define LOOM_TL_IB_REQ_GIVEUP_NS   (60ull * 1000 * 1000 * 1000)
#define LOOM_TL_IB_FAIL_NOTICES    3   /* FAIL datagrams per failed endpoint, WATCH_NS apart */
#define LOOM_TL_IB_QKEY         0x4c4f4f4du  /* of every UD QP (connection and multicast) */
#define LOOM_TL_IB_GRH_BYTES    40    /* GRH ahead of every UD receive */
#define LOOM_TL_IB_MC_RX_DEPTH  128   /* multicast QP receive slots (GRH + MTU each) */
#define LOOM_TL_IB_MC_TX_DEPTH  32    /* multicast QP send slots (MTU each) */
#define LOOM_TL_IB_MC_MAX_JOINED 16   /* groups joined at once per process */
#define LOOM_TL_IB_RMA_OPS      256   /* one-sided work in flight per process */
#define LOOM_TL_IB_MC_MAX_LEN   (1u << 20)  /* cap of LOOM_IB_MCAST_THRESHOLD */

/* What a work request id points at: every descriptor starts with a kind. */
typedef enum loom_tl_ib_kind {
    LOOM_TL_IB_RX = 1,   /* SRQ receive buffer */
    LOOM_TL_IB_TX,       /* RC send (buffered or inline) */
    LOOM_TL_IB_GET,      /* RDMA READ */
    LOOM_TL_IB_UD_RX,    /* UD receive slot */
    LOOM_TL_IB_UD_TX,    /* UD send slot */
    LOOM_TL_IB_MC_RX,    /* multicast QP receive slot */
    LOOM_TL_IB_MC_TX,    /* multicast QP send slot */
    LOOM_TL_IB_RMA,      /* one-sided work of the RMA layer (ib_rma.c) */
} loom_tl_ib_kind_t;

/* Connection messages on the UD QP. */
typedef struct loom_tl_ib_cm_msg {
    uint32_t magic;
    uint32_t type;         /* LOOM_TL_IB_CM_REQ / _REP */
    uint32_t src;          /* sender's world rank */
    uint32_t qpn;          /* sender's RC QP for the receiver */
    uint32_t psn;
} loom_tl_ib_cm_msg_t;
#define LOOM_TL_IB_CM_MAGIC 0x6c6f6f6du
/* FAIL: the sender declared its connection to the receiver failed (its
 * watchdog, an error completion, a malformed frame); qpn is the sender's QP. */
enum { LOOM_TL_IB_CM_REQ = 1, LOOM_TL_IB_CM_REP = 2, LOOM_TL_IB_CM_FAIL = 3 };

/* What each rank publishes under "ib.addr" (rc_qpn[] only in eager mode). */
typedef struct loom_tl_ib_addr {
    uint32_t magic;
    uint16_t lid;
    uint8_t  link_layer;   /* IBV_LINK_LAYER_* */
    uint8_t  mtu;          /* enum ibv_mtu, active */
    uint8_t  gid[16];
    uint32_t ud_qpn;
    uint32_t psn;
    uint32_t mc_qpn;       /* multicast QP (0: none) */
    uint32_t num_rc;       /* entries in rc_qpn (job size, or 0 when lazy) */
    uint32_t rc_qpn[];     /* this rank's QP for each peer */
} loom_tl_ib_addr_t;
#define LOOM_TL_IB_ADDR_MAGIC 0x6c6d6962u

typedef struct loom_tl_ib_region loom_tl_ib_region_t;
typedef struct loom_tl_ib_mc_group loom_tl_ib_mc_group_t;
typedef struct loom_tl_ib_rcache loom_tl_ib_rcache_t;

typedef enum loom_tl_ib_ep_state {
    LOOM_TL_IB_EP_IDLE = 0,     /* no QP yet (lazy) */
    LOOM_TL_IB_EP_INIT,         /* QP in INIT, not connected */
    LOOM_TL_IB_EP_CONNECTING,   /* REQ sent, waiting for REP */
    LOOM_TL_IB_EP_CONNECTED,    /* RTS */
    LOOM_TL_IB_EP_FAILED,
} loom_tl_ib_ep_state_t;

typedef struct loom_tl_ib_iface loom_tl_ib_iface_t;

/* A UD queue pair and its slots: one registered block, receive slots first. */
typedef struct loom_tl_ib_ud_qp {
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t       *mem;
} loom_tl_ib_ud_qp_t;

typedef struct loom_tl_ib_ep {
    loom_tl_ep_t           super;
    loom_tl_ib_iface_t    *ib;
    struct ibv_qp         *qp;
    struct ibv_ah         *ah;          /* for UD connection messages */
    loom_tl_ib_ep_state_t  state;
    int                    peer_known;  /* peer's modex blob read */
    loom_tl_ib_addr_t      peer_addr;   /* header only (rc_qpn not kept) */
    uint32_t               remote_qpn;
    int                    credits;     /* data frames we may still send */
    int                    ctl_credits; /* credit frames we may still send */
    int                    credits_owed;      /* buffers freed, not yet reported */
    int                    ctl_credits_owed;
    int                    sq_avail;
    int                    reads;       /* outstanding RDMA READs */
    uint64_t               req_first_ns;
    uint64_t               req_last_ns;
    unsigned               comps;       /* send/read completions, for the watchdog */
    unsigned               comps_seen;
    uint64_t               stall_since_ns;
    loom_status_t          error;
    int                    peer_declared;     /* the peer's FAIL datagram failed us */
    int                    fail_notices;      /* FAIL datagrams still to send the peer */
    uint64_t               fail_notice_ns;    /* when the last one went */
    loom_list_t            conn_elem;   /* in ib->connecting */
    uint64_t               rma_posted;  /* one-sided work posted (ib_rma.c) */
    uint64_t               rma_done;    /* ... and completed (in error too) */
    loom_status_t          rma_error;   /* first one-sided work that failed */
} loom_tl_ib_ep_t;

/* A receive buffer (SRQ) or send buffer; data follows the descriptor. */
typedef struct loom_tl_ib_buf {
    uint8_t               kind;
    uint32_t              lkey;
    struct loom_tl_ib_buf *next;      /* free list (send buffers) */
    loom_tl_ib_ep_t      *ep;         /* send: the endpoint, for SQ accounting */
    uint8_t              *data;
} loom_tl_ib_buf_t;

/* An RDMA READ, posted in chunks of the port's maximum message size. */
typedef struct loom_tl_ib_get_op {
    uint8_t               kind;
    struct loom_tl_ib_get_op *next;
    loom_tl_ib_ep_t      *ep;
    loom_tl_ib_region_t  *region;
    loom_tl_comp_t       *comp;
    uint8_t              *local;
    uint64_t              raddr;
    size_t                len;
    size_t                posted;      /* bytes posted so far */
    int                   inflight;    /* chunks posted, not completed */
    uint32_t              rkey;
    loom_status_t         status;
} loom_tl_ib_get_op_t;

/* One-sided work of the RMA layer (ib_rma.c): a write, read or atomic. */
typedef struct loom_tl_ib_rma_op {
    uint8_t               kind;        /* LOOM_TL_IB_RMA */
    uint8_t               is_read;     /* holds an initiator slot (read, atomic) */
    struct loom_tl_ib_rma_op *next;
    loom_tl_ib_ep_t      *ep;
    loom_tl_ib_region_t  *region;      /* local memory of a write/read, or NULL */
    uint64_t             *slot;        /* registered 8 bytes of an atomic's result */
    uint64_t             *result;      /* where the caller wants it, or NULL */
} loom_tl_ib_rma_op_t;

/* A chunk of registered buffers (receive pool or send pool). */
typedef struct loom_tl_ib_chunk {
    loom_list_t        elem;
    struct ibv_mr     *mr;
    void              *mem;
    loom_tl_ib_buf_t  *descs;
} loom_tl_ib_chunk_t;

struct loom_tl_ib_iface {
    loom_tl_iface_t       super;
    const loom_bootstrap_info_t *job;
    struct ibv_context   *ctx;
    struct ibv_pd        *pd;
    struct ibv_cq        *cq;
    struct ibv_srq       *srq;
    loom_tl_ib_ud_qp_t    ud;         /* DEPTH recv slots, then DEPTH send slots */
    loom_tl_ib_buf_t      ud_rx[LOOM_TL_IB_UD_DEPTH];
    loom_tl_ib_buf_t      ud_tx[LOOM_TL_IB_UD_DEPTH];
    loom_tl_ib_buf_t     *ud_tx_free;
    char                  dev_name[64];
    uint8_t               port;
    int                   gid_index;
    struct ibv_port_attr  port_attr;
    struct ibv_device_attr dev_attr;
    loom_tl_ib_addr_t     my_addr;    /* header of what we published */
    int                   lazy;       /* connect on demand */
    int                   all_connected;
    uint32_t              max_inline;
    int                   cq_size;
    int                   cq_need;
    int                   srq_size;
    int                   srq_posted_target;
    struct ibv_recv_wr    rx_wr[LOOM_TL_IB_RX_BATCH];   /* consumed buffers not yet */
    struct ibv_sge        rx_sge[LOOM_TL_IB_RX_BATCH];  /* reposted (a chain)       */
    int                   rx_held;
    loom_tl_ib_ep_t     **eps;        /* by world rank; NULL until needed */
    loom_list_t           rx_chunks;
    loom_list_t           connecting;
    loom_tl_ib_chunk_t    tx_chunk;
    loom_tl_ib_buf_t     *tx_free;
    loom_tl_ib_get_op_t  *get_ops;    /* array */
    loom_tl_ib_get_op_t  *get_free;
    loom_tl_ib_rcache_t  *rcache;
    unsigned              progress_count;
    uint64_t              watch_last_ns;
    uint64_t              stall_ns;       /* LOOM_IB_STALL_TIMEOUT */
    int                   stall_fault;    /* LOOM_IB_STALL_FAULT names this rank (test) */
    /* multicast (ib_mc.c) */
    loom_tl_ib_ud_qp_t    mc;           /* RX_DEPTH receive slots, then TX_DEPTH send slots */
    loom_tl_ib_buf_t     *mc_bufs;      /* their descriptors */
    loom_tl_ib_buf_t     *mc_tx_free;
    uint32_t              mc_mtu;       /* bytes of UD payload (active MTU) */
    size_t                mc_max_len;   /* LOOM_IB_MCAST_THRESHOLD, capped */
    double                mc_drop;      /* LOOM_IB_MCAST_DROP */
    uint64_t              mc_rand;
    unsigned long         mc_dropped;   /* by LOOM_IB_MCAST_DROP */
    unsigned long         mc_bad;       /* malformed datagrams */
    unsigned long         mc_done;      /* broadcasts completed by multicast */
    unsigned long         mc_sent;      /* fragments multicast (first sends and resends) */
    unsigned long         mc_resent;    /* fragments sent again */
    unsigned long         mc_nacks;     /* NACKs sent */
    unsigned long         mc_staged;    /* fragments that arrived early and were kept */
    struct rdma_event_channel *mc_ch;
    struct rdma_cm_id    *mc_cm;
    loom_list_t           mc_groups;
    /* one-sided work (ib_rma.c), made on the first rma_ep call */
    loom_tl_ib_rma_op_t  *rma_ops;      /* LOOM_TL_IB_RMA_OPS descriptors */
    loom_tl_ib_rma_op_t  *rma_free;
    uint64_t             *rma_slots;    /* their atomic result slots, registered */
    struct ibv_mr        *rma_slots_mr;
    loom_tl_ib_ep_t      *rma_self;     /* loopback endpoint (QP connected to itself) */
    int                   mc_joined;    /* groups holding a membership */
    int                   mc_active;    /* groups with a broadcast in flight */
};

/* ib_iface.c */
extern const loom_tl_ops_t loom_tl_ib_ops;
loom_tl_ib_ep_t *loom_tl_ib_ep_lookup(loom_tl_ib_iface_t *ib, int peer);
loom_tl_ib_ep_t *loom_tl_ib_ep_by_qpn(loom_tl_ib_iface_t *ib, uint32_t qpn);
/**
 * Fail @p ep once: log naming both ends, the QP and @p why; move its QP to
 * the error state (outstanding work completes in error, buffers return);
 * tell the peer with FAIL datagrams (loom_tl_ib_cm_notify_fail) unless the
 * peer told us; report through err_cb. Later calls do nothing.
 */
void loom_tl_ib_ep_fail(loom_tl_ib_ep_t *ep, loom_status_t status, const char *what,
                        const char *why);
/** Host name of world rank @p rank, "?" if unknown. */
const char *loom_tl_ib_host(const loom_tl_ib_iface_t *ib, int rank);
uint64_t loom_tl_ib_now_ns(void);
/** 1 if @p gid is IPv4-mapped (::ffff:a.b.c.d, a RoCE v2 GID of an IPv4
 *  interface: what rdma_cm binds to), with the address in @p addr_p if not NULL. */
int loom_tl_ib_gid_ipv4(const uint8_t gid[16], struct in_addr *addr_p);

/* ib_ep.c: queue pairs, connection, send, get */
loom_status_t loom_tl_ib_ep_get_or_create(loom_tl_ib_iface_t *ib, int peer,
                                          loom_tl_ib_ep_t **ep_p);
loom_status_t loom_tl_ib_ep_qp_init(loom_tl_ib_ep_t *ep);
loom_status_t loom_tl_ib_qp_create(loom_tl_ib_iface_t *ib, struct ibv_qp **qp_p);
loom_status_t loom_tl_ib_ep_connect(loom_tl_ib_ep_t *ep, uint32_t remote_qpn,
                                    uint32_t remote_psn);
/** Address vector toward @p a: LID on InfiniBand, GID with a GRH on RoCE. */
void loom_tl_ib_ah_attr_fill(const loom_tl_ib_iface_t *ib, const loom_tl_ib_addr_t *a,
                             struct ibv_ah_attr *ah);
/** An address handle toward @p a (UD sends); NULL if ibv_create_ah fails. */
struct ibv_ah *loom_tl_ib_ah_create(loom_tl_ib_iface_t *ib, const loom_tl_ib_addr_t *a);
loom_status_t loom_tl_ib_ep_read_peer(loom_tl_ib_ep_t *ep, uint32_t *rc_qpn_p);
loom_status_t loom_tl_ib_connect_all(loom_tl_ib_iface_t *ib);
void loom_tl_ib_ep_destroy_all(loom_tl_ib_iface_t *ib);
loom_status_t loom_tl_ib_am_send(loom_tl_ep_t *tl_ep, const void *hdr, size_t hdr_len,
                                 const void *payload, size_t payload_len);
loom_status_t loom_tl_ib_get(loom_tl_ep_t *tl_ep, void *local, size_t len, uint64_t raddr,
                             const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp);
void loom_tl_ib_send_credits(loom_tl_ib_ep_t *ep);
void loom_tl_ib_get_complete(loom_tl_ib_get_op_t *op, int ok);
/** Slow path of send and get: LOOM_OK when @p ep became usable, else why not. */
loom_status_t loom_tl_ib_ep_not_ready(loom_tl_ib_ep_t *ep);
loom_status_t loom_tl_ib_rx_add(loom_tl_ib_iface_t *ib, int nbufs);
loom_status_t loom_tl_ib_cq_reserve(loom_tl_ib_iface_t *ib, int entries);

/* ib_cm.c: UD connection requests */
loom_status_t loom_tl_ib_ud_open(loom_tl_ib_iface_t *ib);
/**
 * Create a UD QP (connection or multicast, named by @p what in errors) with
 * @p rx_depth receive and @p tx_depth send slots of @p slot_bytes each in one
 * registered block, receive slots first, and move it to RTS. @p ud_p is
 * written only on success; on failure nothing is left behind.
 */
loom_status_t loom_tl_ib_ud_qp_open(loom_tl_ib_iface_t *ib, const char *what, int rx_depth,
                                    int tx_depth, size_t slot_bytes, loom_tl_ib_ud_qp_t *ud_p);
/** Release what loom_tl_ib_ud_qp_open made (any part may be NULL); zeroes @p ud. */
void loom_tl_ib_ud_qp_close(loom_tl_ib_ud_qp_t *ud);
void loom_tl_ib_ud_close(loom_tl_ib_iface_t *ib);
loom_status_t loom_tl_ib_cm_start(loom_tl_ib_ep_t *ep);
void loom_tl_ib_cm_handle(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *slot, uint32_t len);
void loom_tl_ib_cm_ud_tx_done(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *slot);
void loom_tl_ib_cm_progress(loom_tl_ib_iface_t *ib);
/** Send @p ep's peer the next FAIL datagram if one is due (see ep_fail). */
void loom_tl_ib_cm_notify_fail(loom_tl_ib_ep_t *ep, uint64_t now);

/* ib_mc.c: multicast groups and reliable broadcast */
loom_status_t loom_tl_ib_mc_open(loom_tl_ib_iface_t *ib);
void loom_tl_ib_mc_close(loom_tl_ib_iface_t *ib);
void loom_tl_ib_mc_rx(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *slot, uint32_t len);
void loom_tl_ib_mc_tx_done(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *slot);
void loom_tl_ib_mc_progress(loom_tl_ib_iface_t *ib);
loom_status_t loom_tl_ib_mc_join(loom_tl_iface_t *iface, const loom_tl_mc_params_t *params,
                                 loom_tl_mc_t **mc_p);
loom_status_t loom_tl_ib_mc_bcast(loom_tl_mc_t *mc, int root, void *buf, size_t len,
                                  loom_tl_comp_t *comp);
void loom_tl_ib_mc_leave(loom_tl_mc_t *mc);
/** Multicast counters of the open ib transport (all 0 when none), for tests. */
typedef struct loom_tl_ib_mc_stats {
    unsigned long done, sent, resent, nacks, dropped, staged, bad;
    int           groups_joined;
} loom_tl_ib_mc_stats_t;
void loom_tl_ib_mc_stats(loom_tl_ib_mc_stats_t *st);

/* ib_rma.c: one-sided work for the RMA layer (tl.h rma_* ops) */
loom_status_t loom_tl_ib_rma_reg(loom_tl_iface_t *iface, void *addr, size_t len,
                                 loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p);
void loom_tl_ib_rma_dereg(loom_tl_iface_t *iface, loom_tl_memh_t *memh);
loom_status_t loom_tl_ib_rma_ep(loom_tl_iface_t *iface, int peer, loom_tl_ep_t **ep_p);
loom_status_t loom_tl_ib_rma_put(loom_tl_ep_t *tl_ep, const void *local, size_t len,
                                 uint64_t raddr, const loom_tl_rkey_t *rkey);
loom_status_t loom_tl_ib_rma_get(loom_tl_ep_t *tl_ep, void *local, size_t len,
                                 uint64_t raddr, const loom_tl_rkey_t *rkey);
loom_status_t loom_tl_ib_rma_atomic(loom_tl_ep_t *tl_ep, int op, uint64_t value,
                                    uint64_t compare, uint64_t *result, uint64_t raddr,
                                    const loom_tl_rkey_t *rkey);
loom_status_t loom_tl_ib_rma_flush(loom_tl_ep_t *tl_ep);
/** A one-sided work request completed (@p ok: successfully). */
void loom_tl_ib_rma_complete(loom_tl_ib_rma_op_t *op, int ok);
/** Release the descriptors and the loopback endpoint (at close). */
void loom_tl_ib_rma_close(loom_tl_ib_iface_t *ib);

/* ib_rcache.c: registration cache (see docs/ib.md) */
loom_status_t loom_tl_ib_rcache_create(struct ibv_pd *pd, size_t max_bytes,
                                       loom_tl_ib_rcache_t **rcache_p);
void loom_tl_ib_rcache_destroy(loom_tl_ib_rcache_t *rc);
loom_status_t loom_tl_ib_rcache_get(loom_tl_ib_rcache_t *rc, const void *addr, size_t len,
                                    int access, loom_tl_ib_region_t **region_p);
void loom_tl_ib_rcache_put(loom_tl_ib_rcache_t *rc, loom_tl_ib_region_t *region);
struct ibv_mr *loom_tl_ib_region_mr(const loom_tl_ib_region_t *region);
/** Counters for tests: registrations made, lookups served from the cache,
 *  regions invalidated by memory events, evictions; caching is 0 where the
 *  memory hooks are not built (sanitizer builds, base/memhooks_int.h): then
 *  the cache keeps nothing (ib_rcache.c). */
typedef struct loom_tl_ib_rcache_stats {
    unsigned long regs, hits, invalidated, evicted;
    size_t        bytes;
    int           caching;
} loom_tl_ib_rcache_stats_t;
void loom_tl_ib_rcache_stats(const loom_tl_ib_rcache_t *rc, loom_tl_ib_rcache_stats_t *st);
/** The cache of the open ib transport (NULL when closed): for tests. */
loom_tl_ib_rcache_t *loom_tl_ib_rcache_current(void);

#endif /* LOOM_TL_IB_INT_H */
