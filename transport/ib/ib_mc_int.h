/*
 * ib_mc_int.h: a multicast group of the verbs transport, shared by group
 * setup (ib_mc.c) and the reliable broadcast (ib_mc_bcast.c).
 *
 * A group numbers its broadcasts in call order: op is the number of the one
 * in flight (active) or of the next one. Every member keeps the fragments of
 * the broadcast after the current one that arrive early (a faster root that
 * already started it) in a staging buffer of mc_max_len bytes, so a rank that
 * is a little late does not make the root send everything twice; further
 * ones are dropped and recovered by NACK. Memory per group is fixed at
 * join: the staging buffer, three fragment bitmaps (held, staged, to
 * resend) and one ACK bit per member; no allocation per broadcast.
 */
#ifndef LOOM_TL_IB_MC_INT_H
#define LOOM_TL_IB_MC_INT_H

#include "ib_int.h"

/* Both sides wait LOOM_TL_IB_MC_QUIET_MIN_NS of silence before asking (the
 * receiver NACKs what it misses, the root polls with its last fragment),
 * doubling the wait each time nothing comes of it, up to _MAX; any sign of
 * progress resets it. Short when datagrams are merely lost, gentle when a
 * member is just late to call. */
#define LOOM_TL_IB_MC_NACK_GAP_NS  (500ull * 1000)           /* gap NACKs at most this often */
#define LOOM_TL_IB_MC_QUIET_MIN_NS (2ull * 1000 * 1000)
#define LOOM_TL_IB_MC_QUIET_MAX_NS (64ull * 1000 * 1000)
#define LOOM_TL_IB_MC_GIVEUP_NS    (60ull * 1000 * 1000 * 1000)

struct loom_tl_ib_mc_group {
    loom_tl_mc_t         super;
    loom_tl_ib_iface_t  *ib;
    loom_list_t          elem;         /* in ib->mc_groups */
    int                  n;            /* members */
    int                  me;           /* my member index */
    int                 *members;      /* world ranks */
    struct ibv_ah      **ahs;          /* unicast to each member's multicast QP */
    uint32_t            *qpns;         /* each member's multicast QP */
    struct ibv_ah       *mc_ah;        /* the group */
    union ibv_gid        mgid;
    uint16_t             mlid;
    struct sockaddr_in   maddr;
    int                  cm_joined;
    int                  attached;
    uint32_t             frag_size;    /* group path MTU minus our header */
    uint64_t            *words;        /* storage of the three bitmaps */
    /* the broadcast in flight */
    int                  active;
    int                  in_call;      /* inside mc_bcast: complete by return value */
    int                  root;
    uint32_t             op;
    uint8_t             *buf;
    size_t               len;
    uint32_t             nfrags;
    loom_tl_comp_t      *comp;
    loom_status_t        result;       /* of a broadcast finished inside mc_bcast */
    uint64_t             start_ns;
    uint64_t             last_ns;      /* last sign of progress */
    uint64_t             nack_ns;      /* last NACK sent (root: last poll) */
    uint64_t             quiet_ns;     /* silence before the next NACK or poll */
    /* root */
    uint32_t             next_send;    /* first fragment not sent yet */
    uint64_t            *resend;       /* fragments to send again */
    uint64_t            *acked;        /* members that hold everything */
    int                  nacked;
    /* receiver */
    loom_tl_mc_track_t   track;
    /* fragments of broadcast op + active, early */
    uint8_t             *stage;
    loom_tl_mc_track_t   stage_track;
    uint32_t             stage_len;
    int                  stage_valid;
};

/* ib_mc.c */
void loom_tl_ib_mc_free(loom_tl_ib_mc_group_t *g);
void loom_tl_ib_mc_unjoin(loom_tl_ib_mc_group_t *g);

/* ib_mc_bcast.c */
loom_status_t loom_tl_ib_mc_post_recv(loom_tl_ib_iface_t *ib, loom_tl_ib_buf_t *b);
void loom_tl_ib_mc_finish(loom_tl_ib_mc_group_t *g, loom_status_t status);

#endif /* LOOM_TL_IB_MC_INT_H */
