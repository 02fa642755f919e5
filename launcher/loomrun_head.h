/*
 * loomrun_head.h: the head's state, shared by loomrun_head.c (daemons,
 * connections, the end of the job) and loomrun_route.c (fences and direct
 * modex requests between the nodes). See loomrun_head.c for the design.
 */
#ifndef LOOMRUN_HEAD_H
#define LOOMRUN_HEAD_H

#include "loomrun_int.h"

#define LOOMRUN_PENDING_MAX  64       /* connections not yet past HELLO */

enum { LOOMRUN_D_LAUNCHING, LOOMRUN_D_UP, LOOMRUN_D_GONE };

/** The head's view of one remote node. */
typedef struct loomrun_dnode {
    int             state;          /* LOOMRUN_D_* */
    pid_t           agent_pid;      /* > 0 until reaped */
    loomrun_conn_t  conn;           /* fd -1 until a valid HELLO */
} loomrun_dnode_t;

/** A fence being gathered. */
typedef struct loomrun_fence {
    struct loomrun_fence *next;
    char           *id;
    int             nexpected, narrived;
    char           *arrived;        /* per node */
    loomrun_buf_t  *blobs;          /* per node */
    loomrun_coll_t *local;          /* this node's server, when it takes part */
} loomrun_fence_t;

/* What each poll slot past the loop's own holds. */
enum { LOOMRUN_SLOT_LISTEN, LOOMRUN_SLOT_PENDING, LOOMRUN_SLOT_NODE, LOOMRUN_SLOT_STDIN };

typedef struct loomrun_head {
    int              lfd, port;
    uint8_t          secret[LOOMRUN_SECRET_LEN];
    char             addrs[512];
    char             self_exe[PATH_MAX];
    const char      *agent;
    loomrun_dnode_t *nodes;         /* by node index; my_node's entry unused */
    loomrun_conn_t   pending[LOOMRUN_PENDING_MAX];
    int              npending;
    loomrun_fence_t *fences;
    loomrun_dmdx_t  *reqs;          /* direct modex requests asked or routed here */
    uint32_t         next_req;
    double           launch_deadline;
    int              stdin_open;    /* forwarding fd 0 to rank 0's daemon */
    int              shutdown_sent;
    double           shutdown_deadline;
    int              slot_kind[2 * LOOMRUN_MAX_NODES + LOOMRUN_PENDING_MAX + 4];
    int              slot_idx[2 * LOOMRUN_MAX_NODES + LOOMRUN_PENDING_MAX + 4];
} loomrun_head_t;

/** Node @p n contributes to fence @p id (@p nnodes take part); @p local: the head's own. */
void loomrun_head_fence_add(loomrun_loop_t *lp, int n, const char *id, int nnodes,
                            const void *data, size_t len, loomrun_coll_t *local);

/** Send (or keep until its node calls back) a direct modex request. */
void loomrun_head_dmdx_route(loomrun_loop_t *lp, loomrun_dmdx_t *d);

/** An answer for request @p id of node @p origin: complete it or pass it on. */
void loomrun_head_dmdx_answer(loomrun_loop_t *lp, int origin, uint32_t id, int status,
                              const void *data, size_t len);

/** Node @p n called back: send the requests that waited for it. */
void loomrun_head_flush_reqs(loomrun_loop_t *lp, int n);

/** A local PMIx event other than an abort: a fence, a dmodex request or served data. */
void loomrun_head_event(loomrun_loop_t *lp, const loomrun_event_t *ev);

/** Free the fences and requests still held when the job ends (loomrun_head_stop). */
void loomrun_head_free_routes(loomrun_head_t *h, int nnodes);

#endif /* LOOMRUN_HEAD_H */
