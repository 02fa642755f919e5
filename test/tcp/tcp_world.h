/*
 * tcp_world.h: several "ranks" of the TCP transport in one process, for
 * the loopback suites (test_tcp_loop.c: frames and gets; test_tcp_conn.c:
 * connections, outsiders, failures, open's choices). Each rank is one
 * interface opened through the real ops table with its own listening socket
 * on 127.0.0.1; the modex is an in-process table; one thread drives every
 * rank's progress in turn (world_progress). Real sockets, no launcher.
 *
 * Frames carry (source, sequence) and a payload that is a function of both;
 * the receive callback counts frames out of order or corrupted in
 * world_rank_t.bad, so "delivered and bad == 0" means every frame arrived
 * whole and in order. Peer errors are recorded (count, peer, status, text)
 * for the failure tests to check. Every wait gives up after
 * WORLD_DEADLINE seconds, so a lost frame fails a test, never hangs it.
 */
#ifndef LOOM_TEST_TCP_WORLD_H
#define LOOM_TEST_TCP_WORLD_H

#include "tcp/tcp_int.h"

#include <stddef.h>
#include <stdint.h>

#define WORLD_MAXR     5
#define WORLD_DEADLINE 20.0   /* seconds any wait may take */

/** What one rank has received, and the errors its transport reported. */
typedef struct world_rank {
    int      rank;
    uint32_t expect[WORLD_MAXR];   /* next seq from each source */
    uint32_t sent[WORLD_MAXR];     /* next seq to each destination */
    size_t   received;
    size_t   bad;
    int      errs;
    int      err_peer;
    loom_status_t err_status;
    char     err_what[512];
    /* frames received in place (world_open_place), one at a time per source */
    uint8_t  pbuf[WORLD_MAXR][LOOM_TCP_MAX_AM];
    int      placing[WORLD_MAXR];  /* a frame from that source is being placed */
    size_t   place_len[WORLD_MAXR];
    size_t   placed;               /* frames completed in place */
    int      place_errs;           /* placements ended by an error */
    loom_status_t place_status;
    int      errs_at_place_err;    /* errs when the last placement failed */
} world_rank_t;

/** Called by world_on_am after rank @p me took a frame (good or bad) from @p src. */
typedef void (*world_frame_fn_t)(int me, int src);

typedef struct world {
    int                   n;
    int                   node_of_rank[WORLD_MAXR];
    const char           *hosts[WORLD_MAXR];
    loom_bootstrap_info_t job[WORLD_MAXR];
    loom_tl_iface_t      *iface[WORLD_MAXR];   /* NULL: closed or "dead" */
    loom_tl_ep_t         *ep[WORLD_MAXR][WORLD_MAXR];
    world_rank_t          st[WORLD_MAXR];
    world_frame_fn_t      on_frame;            /* a test's hook, or NULL */
} world_t;

/** The one world (world_open fills it; tests read and poke it). */
extern world_t world;

/** A get with its completion (done counts completions, status the last). */
typedef struct world_get_op {
    loom_tl_comp_t comp;
    int            done;
    loom_status_t  status;
} world_get_op_t;

/** Seconds on the monotonic clock. */
double world_now(void);

/** The in-process modex (arg: the putting rank as intptr_t). */
loom_status_t world_modex_put(void *arg, const char *key, const void *data, size_t len);
loom_status_t world_modex_get(void *arg, int rank, const char *key, void *buf,
                              size_t *len_p);

/** The transport callbacks the world's ranks use (arg: their world_rank_t, or NULL). */
void world_on_am(void *arg, int src, const void *data, size_t len);
void world_on_err(void *arg, int peer, loom_status_t status, const char *what);

/**
 * Open @p n ranks (on one node if @p same_node, else one node each) and an
 * endpoint from every rank to every other; checks open's caps and
 * reachability with CUnit (fatal on failure).
 */
void world_open(int n, int same_node);

/**
 * world_open, with every rank taking the frames the transport offers in
 * place (am_place_cb) into its pbuf; a completed one is checked as
 * world_on_am checks a whole frame.
 */
void world_open_place(int n, int same_node);

/** Destroy every endpoint and close every interface still open. */
void world_close(void);

/** One progress call on every open interface. */
void world_progress(void);

/**
 * Send frame number st[src].sent[dst] of @p len bytes (at least 8) from
 * @p src to @p dst, split between header and payload in varying places.
 * @return the transport's status (the sequence advances only on LOOM_OK).
 */
loom_status_t world_send(int src, int dst, size_t len);

/** 1 when every frame sent so far has been received. */
int world_all_delivered(void);

/** Progress every rank until @p cond holds. @return 0 if the deadline passed. */
int world_wait_for(int (*cond)(void));

/** Frame size number @p i of a mix: tiny, inline limit, pages, the largest AM. */
size_t world_frame_size(unsigned i);

/** Completion of a world_get_op_t: counts it and keeps the status. */
void world_get_done(loom_tl_comp_t *comp, loom_status_t status);

/**
 * Rank @p r reads @p len bytes at @p raddr of rank @p owner's region into
 * @p dst; @p op completes through world_get_done (and is marked done at
 * once when the get finished inline).
 * @return the transport's status.
 */
loom_status_t world_get(int r, int owner, void *dst, size_t len, uint64_t raddr,
                        const loom_tl_rkey_t *rkey, world_get_op_t *op);

#endif /* LOOM_TEST_TCP_WORLD_H */
