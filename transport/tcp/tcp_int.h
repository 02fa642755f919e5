/*
 * tcp_int.h: the TCP transport, internal structures.
 *
 * Design. One listening socket per process, opened in open() and published
 * through the modex ("tcp.addr"); rank 0 also publishes a 16-byte job secret
 * ("tcp.secret") drawn from getrandom(). Connections are made lazily at the
 * first frame to a peer: the connecting side sends HELLO (magic, version,
 * both ranks, the secret) and may send nothing else until the accepting side
 * answers ACCEPT (which proves it knows the secret too) or RACE. A
 * connection that does not present the secret is logged, naming the remote
 * address, and dropped. When two ranks connect to each other at once, the
 * lower rank's outgoing connection wins: the higher rank adopts it and the
 * lower one answers the loser with RACE, so no frame is ever written on a
 * connection that is later dropped.
 *
 * After the handshake a connection carries length-prefixed frames: AM (the
 * engine's active messages, delivered whole and in order), GET_REQ / GET_DATA
 * / GET_ERR (rendezvous: the requester names a region its owner exposed with
 * mem_pack, by table index and random cookie; the owner streams it back in
 * chunks straight from the user buffer and the requester receives them
 * straight into the destination) and BYE (orderly close). Everything runs
 * from progress(): nonblocking sockets, one level-triggered epoll set.
 * am_send writes directly when the peer's queue is empty and otherwise
 * copies into a pooled buffer (bounded: LOOM_ERR_NO_RESOURCE beyond).
 * Inside progress() small frames are corked: what the frame callbacks send
 * (GET_REQ for a batch of RTS, FIN for every finished get, a stream newly
 * asked for) is queued and written with one sendmsg() per peer before the
 * next read and at the end of progress(), never later; frames sent outside
 * progress() still leave at once. Queued frames overtake rendezvous streams
 * that have not started their current chunk (nothing orders the two), so an
 * active message waits for at most the rest of one chunk.
 *
 * Frames are in host byte order: a peer of the other endianness fails the
 * handshake (its magic reads differently) and is refused with a message.
 *
 * Files: tcp_wire.c (frame parser, handshake checks: pure, unit-tested),
 * tcp_slots.c (index+cookie tables for regions and gets), tcp_iface.c
 * (open, addresses, progress), tcp_conn.c (connections, handshake, races,
 * failures), tcp_ep.c (send queue, am_send, get, streams).
 */
#ifndef LOOM_TCP_INT_H
#define LOOM_TCP_INT_H

#include "tl.h"
#include "list_int.h"
#include "mpool_int.h"

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#define LOOM_TCP_MAGIC        0x4c4f4f4du   /* "LOOM" */
#define LOOM_TCP_VERSION      1
#define LOOM_TCP_SECRET_LEN   16
/* largest AM frame body: a 64 KiB eager payload plus the engine's header */
#define LOOM_TCP_MAX_AM       (64u * 1024 + 512)
/*
 * Suggested eager/rendezvous switch: 64 KiB less 128 bytes, so an eager
 * frame (payload, the engine's header, the frame header) fits one TCP
 * segment over loopback (MSS 65483 with IPv4 timestamps, 65464 over IPv6).
 * A 64 KiB payload made every frame one full segment and an 85-byte one,
 * and with BBR's window counted in packets (12-20 over loopback) osu_bw at
 * 64 KiB fell to 2000-2900 MB/s, against 7000-8500 for 65440-byte messages
 * and Open MPI's 4900-5100; 64 KiB messages now go by rendezvous.
 */
#define LOOM_TCP_EAGER_LIMIT  (64u * 1024 - 128)
#define LOOM_TCP_CHUNK        (256u * 1024) /* GET_DATA chunk: interleaves streams and AMs */
#define LOOM_TCP_CHUNK_MAX    (1024u * 1024) /* GET_DATA chunk of a stream alone in its queue */
/*
 * First chunk of a stream of >= 1 MiB that has the connection to itself: a
 * short write reaches the requester at once, which copies it out while the
 * owner copies the next chunk in (measured: osu_latency 1 MiB 135 -> 115 us,
 * 2 MiB 265 -> 250 us; at 512 KiB the extra write costs more than it saves).
 */
#define LOOM_TCP_FIRST_CHUNK  (64u * 1024)
#define LOOM_TCP_RX_BUF       (128u * 1024) /* per connection, > one whole AM frame */
#define LOOM_TCP_RX_PEEK      4096u         /* read-ahead into it while gets are outstanding */
/* below this, in-place data is read through the buffer (fewer syscalls) */
#define LOOM_TCP_DIRECT_MIN   4096u
#define LOOM_TCP_SMALL_INLINE 256u          /* bounce buffers of the small pool */
#define LOOM_TCP_TXQ_MAX      (4u << 20)    /* queued bytes per peer before NO_RESOURCE */
#define LOOM_TCP_HS_TIMEOUT   10.0          /* seconds an unauthenticated socket may idle */

#define LOOM_TCP_KEY_ADDR   "tcp.addr"
#define LOOM_TCP_KEY_SECRET "tcp.secret"

/* ---- wire format ------------------------------------------------------- */

typedef enum loom_tcp_frame_type {
    LOOM_TCP_HELLO    = 1,  /* connector -> acceptor, first frame, loom_tcp_hello_t */
    LOOM_TCP_ACCEPT   = 2,  /* acceptor -> connector, loom_tcp_hello_t */
    LOOM_TCP_RACE     = 3,  /* acceptor -> connector: my own connection wins */
    LOOM_TCP_AM       = 4,  /* engine frame */
    LOOM_TCP_GET_REQ  = 5,  /* loom_tcp_get_req_t */
    LOOM_TCP_GET_DATA = 6,  /* loom_tcp_data_hdr_t + data, body received in place */
    LOOM_TCP_GET_ERR  = 7,  /* loom_tcp_get_err_t */
    LOOM_TCP_BYE      = 8,  /* orderly close: the EOF that follows is not an error */
} loom_tcp_frame_type_t;

typedef struct loom_tcp_frame_hdr {
    uint32_t len;           /* body bytes after this header */
    uint8_t  type;          /* loom_tcp_frame_type_t */
    uint8_t  rsvd[3];
} loom_tcp_frame_hdr_t;

typedef struct loom_tcp_hello {
    uint32_t magic;
    uint16_t version;
    uint16_t rsvd;
    int32_t  src_rank;      /* sender's world rank */
    int32_t  dst_rank;      /* the rank it believes it talks to */
    uint8_t  secret[LOOM_TCP_SECRET_LEN];
} loom_tcp_hello_t;

typedef struct loom_tcp_get_req {
    uint64_t req_id;        /* requester's id, echoed in DATA/ERR */
    uint64_t raddr;         /* owner's address */
    uint64_t len;
    uint64_t cookie;        /* from the rkey */
    uint32_t region;        /* from the rkey */
    uint32_t rsvd;
} loom_tcp_get_req_t;

typedef struct loom_tcp_data_hdr {
    uint64_t req_id;
    uint64_t offset;        /* of this chunk in the requested range */
} loom_tcp_data_hdr_t;

typedef struct loom_tcp_get_err {
    uint64_t req_id;
    int32_t  status;        /* loom_status_t */
    uint32_t rsvd;
} loom_tcp_get_err_t;

/** What an rkey of this transport holds (fits LOOM_TL_RKEY_MAX). */
typedef struct loom_tcp_rkey {
    uint32_t region;
    uint32_t rsvd;
    uint64_t cookie;
    uint64_t addr;
    uint64_t len;
} loom_tcp_rkey_t;

/** The address a rank publishes. */
typedef struct loom_tcp_addr {
    uint16_t family;        /* AF_INET or AF_INET6 */
    uint16_t port;          /* network order */
    uint8_t  addr[16];      /* in_addr or in6_addr */
} loom_tcp_addr_t;

/* ---- frame parser (tcp_wire.c) ----------------------------------------- */

/**
 * A position in a list of destination pieces (get_iov): piece @p idx, @p off
 * bytes into it. The parser moves it as bytes land; the pieces belong to the
 * get that named them and stay valid while its chunk is received.
 */
typedef struct loom_tcp_scatter {
    const struct iovec *iov;    /* NULL: the body goes to one range (rx->dst) */
    size_t              cnt;
    size_t              idx;
    size_t              off;
} loom_tcp_scatter_t;

/** Where the parser gets bytes and what it does with frames. */
typedef struct loom_tcp_rx_ops {
    /**
     * Like readv() on a nonblocking socket: bytes read (filling the pieces
     * in order), 0 at end of stream, -1 with errno.
     */
    ssize_t (*readv)(void *arg, const struct iovec *iov, int cnt);
    /**
     * A whole frame other than GET_DATA (@p body valid during the call).
     * LOOM_OK: go on; LOOM_INPROGRESS: stop after this frame (the parser
     * returns LOOM_INPROGRESS); other: stop and return it.
     */
    loom_status_t (*frame)(void *arg, unsigned type, const void *body, size_t len);
    /**
     * A GET_DATA header with @p len data bytes to follow: @return where to
     * put them, or NULL to discard them.
     */
    void *(*data_begin)(void *arg, const loom_tcp_data_hdr_t *dh, size_t len);
    /**
     * Optional (NULL: never), asked before data_begin: @return 1 with @p sc
     * at the chunk's first byte to scatter its @p len data bytes into pieces
     * (session 15: a typed receive's get_iov), 0 to ask data_begin.
     */
    int (*data_scatter)(void *arg, const loom_tcp_data_hdr_t *dh, size_t len,
                        loom_tcp_scatter_t *sc);
    /** All data of the chunk announced by data_begin arrived. As frame(). */
    loom_status_t (*data_end)(void *arg, const loom_tcp_data_hdr_t *dh, size_t len);
    /**
     * Optional (NULL: never). The first @p have body bytes of an AM frame of
     * @p len are at @p head (at least min(len, LOOM_TL_PLACE_HEAD)), at least
     * LOOM_TCP_DIRECT_MIN more are to come: @return 1 with @p place filled to
     * take the frame (its rest goes to place->dst, then place_end), 0 to get
     * it whole through frame(). Asked once per frame.
     */
    int (*place)(void *arg, const void *head, size_t have, size_t len,
                 loom_tl_place_t *place);
    /** The rest of the frame place() took arrived. As frame(). */
    loom_status_t (*place_end)(void *arg);
} loom_tcp_rx_ops_t;

typedef struct loom_tcp_rx {
    uint8_t            *buf;
    size_t              cap;
    size_t              pos;        /* first unparsed byte */
    size_t              end;        /* one past the last byte read */
    size_t              max_body;   /* longer non-data frames: protocol error */
    size_t              max_data;   /* longer GET_DATA chunks: protocol error */
    size_t              fill_max;   /* owner's hint: read at most this much ahead into
                                     * buf (0: no bound), so a GET_DATA body that follows
                                     * lands in place, not in buf */
    size_t              need;       /* bytes the frame at pos still lacks (RX_NEED) */
    uint8_t            *dst;        /* in-place body (GET_DATA, or a placed AM frame's rest) */
    loom_tcp_scatter_t  sc;         /* or its pieces (sc.iov != NULL: every byte kept) */
    size_t              dst_left;   /* body bytes still to receive (0: parsing frames) */
    size_t              dst_len;    /* body bytes received in place in all */
    size_t              dst_keep;   /* the first dst_keep of them go to dst, the rest
                                     * is read and dropped */
    uint8_t             placing;    /* the in-place body is an AM frame's (place_end) */
    uint8_t             place_asked; /* place() declined the frame at pos */
    loom_tcp_data_hdr_t dh;
    int                 eof;        /* the read op returned 0 */
    int                 err;        /* errno of a failed read */
    char                why[96];    /* protocol error, for the log */
} loom_tcp_rx_t;

/** Allocate a parser buffer of @p cap bytes. */
loom_status_t loom_tcp_rx_init(loom_tcp_rx_t *rx, size_t cap, size_t max_body,
                               size_t max_data);
/** Grow the buffer (keeping unparsed bytes) and raise the limits. */
loom_status_t loom_tcp_rx_resize(loom_tcp_rx_t *rx, size_t cap, size_t max_body,
                                 size_t max_data);
void loom_tcp_rx_cleanup(loom_tcp_rx_t *rx);

/**
 * Read and dispatch until the read op would block, at most about @p budget
 * bytes. @return LOOM_OK (would block or budget spent), LOOM_INPROGRESS (a
 * callback asked to stop), LOOM_ERR_CONNECTION (end of stream, rx->eof),
 * LOOM_ERR_IO (read failed, rx->err), LOOM_ERR_TRANSPORT (protocol error,
 * rx->why), or a callback's error.
 */
loom_status_t loom_tcp_rx_progress(loom_tcp_rx_t *rx, const loom_tcp_rx_ops_t *ops,
                                   void *arg, size_t budget);

/** Fill a HELLO / ACCEPT / RACE body. */
void loom_tcp_hello_pack(loom_tcp_hello_t *h, int src, int dst, const uint8_t *secret);

/**
 * Check a handshake body received by @p my_rank of a @p size-rank job.
 * @return LOOM_OK and *src_p, or LOOM_ERR_CONNECTION with @p why (size
 * @p why_len) saying what was wrong.
 */
loom_status_t loom_tcp_hello_check(const void *body, size_t len, int my_rank, int size,
                                   const uint8_t *secret, int *src_p, char *why,
                                   size_t why_len);

/* ---- index + cookie tables (tcp_slots.c) -------------------------------- */

typedef struct loom_tcp_slot {
    void     *obj;
    uint64_t  cookie;       /* 0: free */
    uint32_t  next_free;
} loom_tcp_slot_t;

/**
 * Objects by (index, cookie): the index finds the slot in O(1), the random
 * 64-bit cookie makes stale or forged references miss. Grows to max_slots.
 */
typedef struct loom_tcp_slots {
    loom_tcp_slot_t *v;
    uint32_t         cap;
    uint32_t         max_slots;
    uint32_t         free_head;   /* UINT32_MAX: none */
    uint32_t         used;
    uint64_t         rng;         /* splitmix64 state */
} loom_tcp_slots_t;

loom_status_t loom_tcp_slots_init(loom_tcp_slots_t *t, uint32_t max_slots);
void loom_tcp_slots_cleanup(loom_tcp_slots_t *t);
/** Store @p obj. LOOM_ERR_NO_RESOURCE at max_slots. */
loom_status_t loom_tcp_slots_add(loom_tcp_slots_t *t, void *obj, uint32_t *idx_p,
                                 uint64_t *cookie_p);
/** @return the object at @p idx if @p cookie matches, else NULL. */
void *loom_tcp_slots_find(const loom_tcp_slots_t *t, uint32_t idx, uint64_t cookie);
/** One 64-bit id from an index and the low 32 bits of its cookie. */
static inline uint64_t loom_tcp_slots_id(uint32_t idx, uint64_t cookie)
{
    return ((cookie & 0xffffffffull) << 32) | idx;
}
/** @return the object named by a loom_tcp_slots_id() id, else NULL. */
void *loom_tcp_slots_find_id(const loom_tcp_slots_t *t, uint64_t id);
void loom_tcp_slots_remove(loom_tcp_slots_t *t, uint32_t idx);
/** 64 random bits from the table's generator (never 0). */
uint64_t loom_tcp_slots_random(loom_tcp_slots_t *t);

/* ---- objects ------------------------------------------------------------ */

typedef struct loom_tcp_iface loom_tcp_iface_t;
typedef struct loom_tcp_ep    loom_tcp_ep_t;

/** Access to the modex; tests substitute an in-process one. */
typedef struct loom_tcp_modex {
    loom_status_t (*put)(void *arg, const char *key, const void *data, size_t len);
    loom_status_t (*get)(void *arg, int rank, const char *key, void *buf, size_t *len_p);
    void *arg;
} loom_tcp_modex_t;

typedef enum loom_tcp_conn_state {
    LOOM_TCP_CONN_CONNECTING,   /* outgoing, nonblocking connect() in flight */
    LOOM_TCP_CONN_HS_SENT,      /* outgoing, HELLO sent, waiting for ACCEPT/RACE */
    LOOM_TCP_CONN_HS_WAIT,      /* incoming, waiting for HELLO */
    LOOM_TCP_CONN_UP,           /* frames flow */
    LOOM_TCP_CONN_DEAD,         /* closed, freed at the end of progress() */
} loom_tcp_conn_state_t;

/** Epoll data: the listener or a connection. */
typedef struct loom_tcp_conn {
    int                   fd;
    int                   is_listener;
    loom_tcp_conn_state_t state;
    loom_tcp_iface_t     *iface;
    loom_tcp_ep_t        *ep;          /* NULL until the handshake names the peer */
    uint32_t              events;      /* epoll interest */
    loom_tcp_rx_t         rx;
    loom_list_t           link;        /* iface->pending or iface->dead */
    double                t_accept;    /* for the handshake timeout */
    char                  remote[64];  /* "addr:port" */
    uint8_t               hs[sizeof(loom_tcp_frame_hdr_t) + sizeof(loom_tcp_hello_t)];
    size_t                hs_off;      /* bytes of hs already written */
} loom_tcp_conn_t;

typedef enum loom_tcp_ep_state {
    LOOM_TCP_EP_IDLE,           /* no connection yet */
    LOOM_TCP_EP_CONNECTING,     /* our outgoing connection is being set up */
    LOOM_TCP_EP_WAIT_PEER,      /* lost a race: the peer's connection will come */
    LOOM_TCP_EP_UP,
    LOOM_TCP_EP_CLOSED,         /* the peer said BYE */
    LOOM_TCP_EP_FAILED,
} loom_tcp_ep_state_t;

typedef enum loom_tcp_tx_kind {
    LOOM_TCP_TX_BOUNCE,         /* a whole frame copied into data[] */
    LOOM_TCP_TX_STREAM,         /* GET_DATA chunks from an exposed region */
    LOOM_TCP_TX_HEAD,           /* a small frame held in head[] (GET_ERR of a cut stream) */
} loom_tcp_tx_kind_t;

typedef enum loom_tcp_tx_mem {
    LOOM_TCP_MEM_SMALL,         /* from iface->tx_small */
    LOOM_TCP_MEM_LARGE,         /* from iface->tx_large */
    LOOM_TCP_MEM_HEAP,          /* malloc: pools exhausted with a frame half written */
} loom_tcp_tx_mem_t;

typedef struct loom_tcp_region loom_tcp_region_t;

#define LOOM_TCP_TX_HEAD_LEN (sizeof(loom_tcp_frame_hdr_t) + sizeof(loom_tcp_data_hdr_t))

/** One queued frame (or a stream of chunks, one frame at a time). */
typedef struct loom_tcp_tx {
    loom_list_t        link;
    uint8_t            kind;        /* loom_tcp_tx_kind_t */
    uint8_t            mem;         /* loom_tcp_tx_mem_t */
    uint8_t            err_after;   /* stream cut: send GET_ERR after this chunk */
    size_t             off;         /* bytes of the current frame written */
    size_t             len;         /* bytes of the current frame */
    /* streams only */
    loom_tcp_region_t *region;      /* NULL once cut */
    uint64_t           req_id;
    const uint8_t     *base;        /* start of the requested range */
    size_t             next_off;    /* offset of the current chunk in the range */
    size_t             total;       /* length of the range */
    uint8_t           *copy;        /* the current chunk, copied when the region was released */
    uint8_t            head[LOOM_TCP_TX_HEAD_LEN];
    uint8_t            data[];      /* bounce copies: the whole frame */
} loom_tcp_tx_t;

/** A region exposed by mem_pack. */
struct loom_tcp_region {
    const uint8_t *addr;
    size_t         len;
    uint32_t       idx;
    uint64_t       cookie;
    unsigned       streams;         /* queued GET_DATA streams reading it */
    loom_tl_fill_cb_t fill;         /* mem_pack_fill: produces bytes before a chunk, or NULL */
    void             *fill_arg;
};

/** An outstanding get, at the requester. */
typedef struct loom_tcp_get {
    loom_list_t     link;           /* ep->gets */
    loom_tcp_ep_t  *ep;
    uint8_t        *dst;
    struct iovec   *iov;            /* get_iov: a copy of the pieces (owned, freed at
                                     * completion), dst NULL; plain get: NULL */
    size_t          iovcnt;
    size_t          len;
    size_t          received;
    uint32_t        idx;
    uint64_t        cookie;
    loom_tl_comp_t *comp;
} loom_tcp_get_t;

struct loom_tcp_ep {
    loom_tl_ep_t         super;
    loom_tcp_ep_state_t  state;
    loom_tcp_conn_t     *conn;
    loom_list_t          txq;           /* control frames first, then streams */
    loom_list_t         *ctl_last;      /* last control frame in txq, or &txq */
    size_t               txq_bytes;
    loom_list_t          gets;
    loom_list_t          cork_link;     /* in iface->corked: write its queue at uncork */
    int                  engine_owned;  /* handed out by ep_create */
    int                  have_addr;
    loom_tcp_addr_t      addr;
    char                 addr_str[64];
};

struct loom_tcp_iface {
    loom_tl_iface_t      super;
    loom_tcp_modex_t     modex;
    int                  rank;
    int                  size;
    int                  epfd;
    loom_tcp_conn_t      listener;
    loom_tcp_addr_t      my_addr;
    char                 my_addr_str[64];
    int                  have_secret;
    uint8_t              secret[LOOM_TCP_SECRET_LEN];
    loom_tcp_ep_t      **peers;         /* size entries, created on demand */
    loom_list_t          pending;       /* accepted, not yet authenticated */
    loom_list_t          dead;          /* closed conns to free after dispatch */
    loom_list_t          corked;        /* endpoints with frames held back by corking */
    int                  corking;       /* in progress(): small frames wait for uncork */
    int                  in_get_cb;     /* in a get's completion: a GET_REQ leaves at once */
    size_t               iov_gets;      /* get_iov gets outstanding (0: a data chunk is
                                         * never scattered, data_scatter not asked) */
    loom_tcp_conn_t     *hot;           /* a chunk body arrives on it: read before epoll */
    unsigned             hot_polls;
    loom_mpool_t         tx_small;
    loom_mpool_t         tx_large;
    loom_mpool_t         region_pool;
    loom_mpool_t         get_pool;
    loom_tcp_slots_t     regions;
    loom_tcp_slots_t     get_table;
    int                  closing;       /* in close(): no callbacks any more */
    unsigned             poll_count;
    unsigned             num_eps;       /* endpoints handed to the engine */
    unsigned             num_conns;     /* connections not yet freed */
};

/* ---- tcp_iface.c ---------------------------------------------------------- */

/** open() with an explicit modex (the transport's open passes the bootstrap's). */
loom_status_t loom_tcp_iface_open_modex(const loom_tl_params_t *params,
                                        const loom_tcp_modex_t *modex,
                                        loom_tl_iface_t **iface_p);
/** The address published by @p iface (for tests that connect from outside). */
const loom_tcp_addr_t *loom_tcp_iface_addr(loom_tl_iface_t *iface);
/** Load the job secret from the modex once (after the fence). */
loom_status_t loom_tcp_iface_secret(loom_tcp_iface_t *iface);
/** Fill @p a from a socket address (AF_INET or AF_INET6). */
void loom_tcp_addr_from_sockaddr(loom_tcp_addr_t *a, const struct sockaddr *sa);
/** Format an address as "a.b.c.d:port" / "[v6]:port". */
void loom_tcp_addr_format(const loom_tcp_addr_t *a, char *buf, size_t len);
/** "rank@host" of rank @p r of @p iface's job. */
const char *loom_tcp_host_of(const loom_tcp_iface_t *iface, int r);
/** Change the epoll interest of @p conn. */
loom_status_t loom_tcp_conn_set_events(loom_tcp_conn_t *conn, uint32_t events);

/* ---- tcp_conn.c ----------------------------------------------------------- */

loom_tcp_ep_t *loom_tcp_ep_get_or_create(loom_tcp_iface_t *iface, int peer);
loom_status_t loom_tcp_ep_connect(loom_tcp_ep_t *ep);
loom_status_t loom_tcp_conn_accept(loom_tcp_iface_t *iface);
/** Handle epoll events of a connection. */
void loom_tcp_conn_events(loom_tcp_conn_t *conn, uint32_t events);
/** Read on iface->hot without asking epoll. @return 1 if bytes arrived. */
int loom_tcp_conn_read_hot(loom_tcp_iface_t *iface);
/** Close a connection (freed later by loom_tcp_conn_reap). */
void loom_tcp_conn_close(loom_tcp_conn_t *conn);
void loom_tcp_conn_reap(loom_tcp_iface_t *iface);
/** Drop unauthenticated connections older than LOOM_TCP_HS_TIMEOUT. */
void loom_tcp_conn_expire(loom_tcp_iface_t *iface);
/**
 * The peer failed: log naming both ends and the operation, fail queued
 * frames and outstanding gets, close the connection, call err_cb.
 */
void loom_tcp_ep_fail(loom_tcp_ep_t *ep, loom_status_t status, const char *op,
                      const char *detail);

/* ---- tcp_ep.c -------------------------------------------------------------- */

/**
 * Send a frame of @p type made of @p a and @p b. @p force: queue whatever the
 * bound (control frames found in progress). LOOM_OK / NO_RESOURCE / error.
 */
loom_status_t loom_tcp_ep_send_frame(loom_tcp_ep_t *ep, unsigned type, const void *a,
                                     size_t a_len, const void *b, size_t b_len,
                                     int force);
/** Write queued frames until the socket would block. */
loom_status_t loom_tcp_ep_flush(loom_tcp_ep_t *ep);
/** Write what corking held back, on every endpoint that has some. */
void loom_tcp_iface_uncork(loom_tcp_iface_t *iface);
/** Release every queued frame (after a failure or at close). */
void loom_tcp_ep_drop_txq(loom_tcp_ep_t *ep);
/** Complete every outstanding get of @p ep with @p status. */
void loom_tcp_ep_fail_gets(loom_tcp_ep_t *ep, loom_status_t status);
/** Frame handler for an established connection. */
loom_status_t loom_tcp_ep_rx_frame(loom_tcp_ep_t *ep, unsigned type, const void *body,
                                   size_t len);
void *loom_tcp_ep_rx_data_begin(loom_tcp_ep_t *ep, const loom_tcp_data_hdr_t *dh,
                                size_t len);
/** A chunk of a get_iov get: 1 with @p sc at its first byte, else 0. */
int loom_tcp_ep_rx_data_scatter(loom_tcp_ep_t *ep, const loom_tcp_data_hdr_t *dh, size_t len,
                                loom_tcp_scatter_t *sc);
loom_status_t loom_tcp_ep_rx_data_end(loom_tcp_ep_t *ep, const loom_tcp_data_hdr_t *dh,
                                      size_t len);
/** Offer an AM frame whose body is still arriving to the engine (am_place_cb). */
int loom_tcp_ep_rx_place(loom_tcp_ep_t *ep, const void *head, size_t have, size_t len,
                         loom_tl_place_t *place);
/** The frame the engine took is complete (am_place_done_cb). */
void loom_tcp_ep_rx_place_end(loom_tcp_ep_t *ep);

/** tl.h am_send_pack: the frame built once in a pooled tx buffer (tcp_ep.c). */
loom_status_t loom_tcp_am_send_pack(loom_tl_ep_t *tl_ep, const void *hdr, size_t hdr_len,
                                    loom_tl_pack_cb_t pack, void *pack_arg, size_t payload_len);
loom_status_t loom_tcp_am_send(loom_tl_ep_t *tl_ep, const void *hdr, size_t hdr_len,
                               const void *payload, size_t payload_len);
loom_status_t loom_tcp_get(loom_tl_ep_t *tl_ep, void *local, size_t len, uint64_t raddr,
                           const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp);
/** tl.h get_iov: the chunks received straight into the pieces (tcp_ep.c). */
loom_status_t loom_tcp_get_iov(loom_tl_ep_t *tl_ep, const struct iovec *iov, size_t iovcnt,
                               uint64_t raddr, const loom_tl_rkey_t *rkey,
                               loom_tl_comp_t *comp);
loom_status_t loom_tcp_mem_pack(loom_tl_iface_t *tl_iface, const void *addr, size_t len,
                                 loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p);
loom_status_t loom_tcp_mem_pack_fill(loom_tl_iface_t *tl_iface, const void *addr, size_t len,
                                      loom_tl_fill_cb_t fill, void *fill_arg,
                                      loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p);
void loom_tcp_mem_release(loom_tl_iface_t *tl_iface, loom_tl_memh_t *memh);

static inline loom_tcp_iface_t *loom_tcp_iface_of(loom_tl_iface_t *iface)
{
    return loom_container_of(iface, loom_tcp_iface_t, super);
}

static inline loom_tcp_ep_t *loom_tcp_ep_of(loom_tl_ep_t *ep)
{
    return loom_container_of(ep, loom_tcp_ep_t, super);
}

static inline loom_tcp_iface_t *loom_tcp_ep_iface(const loom_tcp_ep_t *ep)
{
    return loom_tcp_iface_of(ep->super.iface);
}

#endif /* LOOM_TCP_INT_H */
