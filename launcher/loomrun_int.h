/*
 * loomrun_int.h: the launcher's internal pieces.
 *
 * loomrun is one single-threaded event loop (loomrun_loop.c) plus the PMIx
 * server library's own progress thread. The two meet in few places:
 *   - the PMIx upcalls (loomrun_pmix.c) run on the PMIx thread; they record
 *     per-rank facts in atomics (connected, finalized) and send anything the
 *     loop must act on (an abort) through a pipe, never touching the loop's
 *     state or calling a blocking PMIx API;
 *   - the loop owns the ranks: it forks them (loomrun_proc.c), forwards
 *     their output line by line, reaps them with waitpid when a signalfd
 *     reports SIGCHLD, and runs the teardown: on the first abnormal end one
 *     message, 0.25 s grace, SIGTERM to the rest, SIGKILL 2 s later;
 *   - the ranks tell the loop through a pipe of their own when they saw a
 *     peer fail (loomrun_note.c), so that the message names the rank that
 *     failed first in cause, not a survivor whose end was seen first.
 * Nothing here depends on the rest of loom except the bootstrap's naming
 * rule for shared-memory segments (loom_bootstrap_shm_prefix_for).
 *
 * Roles. A loomrun process has one of three roles, chosen once before the
 * loop starts (loomrun_role_set): a single host (loomrun_single.c: the job
 * runs here alone), the head of a multi-host job (loomrun_head.c), or a
 * daemon on another host of one (loomrun_daemon.c). What differs between
 * them is a table of operations (loomrun_role_ops_t below: who prints the
 * failure, what a rank's end or a PMIx event leads to, extra fds and
 * timers, when the loop may end, where output goes); the loop calls
 * through lp->role and never asks which role it runs in. The head is the
 * single host plus daemons: its table reuses the single host's functions
 * for what both do (judging ends and aborts, printing, signals, hang
 * reports) and adds the control connections and the routing.
 *
 * Multi-host jobs (--host, --hostfile): the loomrun the user started is the
 * head; on every other host of the job it starts "loomrun --daemon" through
 * a launch agent (ssh, or --launch-agent). Each daemon connects back to the
 * head over TCP (loomrun_ctl.c: framed messages, the first of which must
 * carry the job's secret; loomrun_net.c: the sockets), receives the job,
 * hosts the PMIx server of its node's ranks and runs the same event loop as
 * the head; its role reports to the head what a head would decide or print
 * (exits, aborts, output). The head routes (loomrun_route.c): the PMIx fence
 * is an allgather of every node's contribution through the head, direct
 * modex requests go to the node of the proc asked for and back. Star
 * topology: every message between daemons passes through the head.
 *
 * Helpers: the hang reports (loomrun_hang.c, head and single host only:
 * ranks' "loom-report" stderr lines become one summary, on
 * LOOM_PROGRESS_TIMEOUT reports or before a --timeout teardown), and the
 * cleanup guardian (loomrun_guard.c), a process forked first by loomrun and
 * by every daemon that removes the job's files and kills its ranks if its
 * loomrun is killed outright.
 *
 * Layers, bottom to top; a file calls only files below it (checked by
 * test/launcher/test_layers.sh):
 *   util, ctl, hosts, report, bind, pmix   pure helpers, the PMIx server
 *   report_sum, net, proc                  summaries, sockets, processes and output
 *   guard                                  the cleanup guardian
 *   note                                   the ranks' notes of a peer's failure
 *   loop                                   the shared loop and the failure policy
 *   hang                                   hang reports
 *   single, route                          the single-host role; the head's routing
 *   head, daemon                           the two multi-host roles
 *   loomrun.c                              main: options, placement, the role
 * Upward calls go through the role table (loop -> role) or a hook set by
 * the role (job->emit: proc -> the role's output sink).
 */
#ifndef LOOMRUN_INT_H
#define LOOMRUN_INT_H

#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>

#include <pmix_common.h>

#include "loomrun_ctl.h"

#define LOOMRUN_GRACE_S      0.25  /* after the first failure, before SIGTERM */
#define LOOMRUN_KILL_AFTER_S 2.0   /* SIGTERM -> SIGKILL */
#define LOOMRUN_DRAIN_S      1.0   /* output of dead ranks still read this long */
#define LOOMRUN_LINE_MAX     (1u << 20) /* longer lines are forwarded in pieces */
#define LOOMRUN_CAUSE_WAIT_S 0.2   /* an abort or exit waits this long for a death */
#define LOOMRUN_CONSEQ_WAIT_S 1.0  /* a consequence waits this long for its cause */

#define LOOMRUN_MAX_RANKS    4096
#define LOOMRUN_MAX_NODES    1024
#define LOOMRUN_SECRET_LEN   16

enum { LOOMRUN_MAP_SLOT = 0, LOOMRUN_MAP_NODE = 1 };

/** One host of --host / --hostfile: a name and its slots. */
typedef struct loomrun_host {
    char   *name;
    int     slots;
} loomrun_host_t;

/**
 * Where the ranks run: the nodes that got at least one rank, in host list
 * order. Node n hosts ranks[first[n]] .. ranks[first[n] + count[n] - 1],
 * ascending.
 */
typedef struct loomrun_map {
    int     nnodes;
    char  **names;        /* nnodes entries */
    int    *node_of;      /* node of every rank, nranks entries */
    int    *first;        /* nnodes entries: index into ranks */
    int    *count;        /* nnodes entries */
    int    *ranks;        /* nranks entries, grouped by node */
} loomrun_map_t;

/** --bind-to: where each local rank may run (loomrun_bind.c). */
enum { LOOMRUN_BIND_AUTO = 0, LOOMRUN_BIND_NONE, LOOMRUN_BIND_CORE, LOOMRUN_BIND_HWTHREAD };

/** Command-line options. */
typedef struct loomrun_opts {
    int     nranks;
    loomrun_host_t *hosts;    /* --host / --hostfile entries, nhosts of them */
    int     nhosts;
    int     map_by;           /* LOOMRUN_MAP_* */
    int     oversubscribe;    /* more ranks than slots allowed */
    const char *launch_agent; /* NULL: "ssh -x -o BatchMode=yes" */
    const char *hostname;     /* --hostname: this host's name in the host list */
    double  launch_timeout;   /* seconds a daemon may take to connect */
    char  **exports;      /* -x VAR or VAR=value, nexports entries */
    int     nexports;
    int     tag_output;
    int     quiet;
    double  timeout;      /* seconds, 0 = none */
    int     report_raw;   /* --report-raw: print the ranks' loom-report lines too */
    int     bind;         /* --bind-to: LOOMRUN_BIND_* */
    int     report_bindings; /* --report-bindings: say where each rank is bound */
    char  **argv;         /* the program and its arguments */
} loomrun_opts_t;

/** One output stream (stdout or stderr) of one rank, forwarded by lines. */
typedef struct loomrun_stream {
    int     fd;           /* read end of the rank's pipe, -1 once closed */
    int     out_fd;       /* where lines go: 1 or 2 */
    char   *buf;          /* bytes of the current unfinished line */
    size_t  len, cap;
} loomrun_stream_t;

/** One rank of the job. */
typedef struct loomrun_rank {
    int              rank;
    pid_t            pid;           /* 0 before fork */
    int              alive;         /* forked and not yet reaped */
    int              wstatus;       /* from waitpid once reaped */
    atomic_int       connected;     /* PMIx client_connected seen */
    atomic_int       finalized;     /* PMIx client_finalized seen */
    loomrun_stream_t out[2];        /* [0] stdout, [1] stderr */
    int              node;          /* index in the map */
    int              aborted;       /* it aborted the job: its own end is no news */
    int              saw_failure;   /* it noted a peer's failure (loomrun_note.c) */
    int              failed_peer;   /* the peer it named, -1 if none */
} loomrun_rank_t;

/** What the PMIx thread tells the loop (written whole to a pipe). */
typedef struct loomrun_event {
    int   type;                     /* LOOMRUN_EVENT_* */
    int   rank;
    int   status;
    void *ptr;                      /* FENCE, DMODEX, DMODEX_DONE: a request */
    char  msg[1024];
} loomrun_event_t;

enum {
    LOOMRUN_EVENT_ABORT = 1,
    LOOMRUN_EVENT_FENCE_UPCALL = 2,
    LOOMRUN_EVENT_FENCE,            /* multi-node fence_nb: loomrun_coll_t */
    LOOMRUN_EVENT_DMODEX,           /* direct_modex upcall: loomrun_dmdx_t */
    LOOMRUN_EVENT_DMODEX_DONE,      /* local data for a remote request: loomrun_dmdx_t */
};

/** A fence this node's PMIx server handed to the host (multi-node jobs). */
typedef struct loomrun_coll {
    struct loomrun_coll *next;      /* daemon: fences waiting for the head */
    char       *id;                 /* names the participating procs */
    int         nnodes;             /* nodes hosting them */
    char       *data;               /* this node's contribution */
    size_t      ndata;
    void       *cbfunc;             /* pmix_modex_cbfunc_t */
    void       *cbdata;
} loomrun_coll_t;

/** A direct modex request: asked here (origin) or served here. */
typedef struct loomrun_dmdx {
    struct loomrun_dmdx *next;      /* requests waiting for an answer */
    int         sent;               /* head: forwarded to the proc's node */
    int         rank;               /* whose data */
    int         origin;             /* node that asked */
    uint32_t    id;                 /* the origin's request number */
    int         status;             /* pmix_status_t of the answer */
    char       *data;
    size_t      ndata;
    void       *cbfunc;             /* origin: pmix_modex_cbfunc_t */
    void       *cbdata;
} loomrun_dmdx_t;

struct loomrun_job;

/** Where a forwarded output piece goes (set by the role: see loomrun_proc_emit_raw). */
typedef void (*loomrun_emit_fn_t)(struct loomrun_job *job, int rank, int out_fd,
                                  const char *data, size_t len, int end_line);

/** The job as the loop sees it. */
typedef struct loomrun_job {
    loomrun_opts_t   opts;
    loomrun_map_t    map;
    int              my_node;       /* this process's node, -1 for a head without ranks */
    int              stdin_pipe;    /* rank 0 reads a pipe fed by the loop (daemons) */
    loomrun_emit_fn_t emit;         /* where the ranks' output goes (never NULL) */
    char             host[256];
    char             nspace[PMIX_MAX_NSLEN + 1];
    char             tmpdir[PATH_MAX];
    char           **env;           /* base environment of every rank */
    loomrun_rank_t  *ranks;
    int              event_rfd, event_wfd;  /* PMIx thread -> loop */
    int              note_rfd, note_wfd;    /* ranks' notes -> loop (loomrun_note.c) */
    char             note_part[32]; /* an unfinished note line */
    size_t           note_len;
    int              stdin_wfd;     /* daemon hosting rank 0: its stdin pipe, else -1 */
    int              pmix_up;       /* PMIx_server_init succeeded */
    struct loomrun_hang *hang;      /* hang reports (head / single host), else NULL */
    int              guard_fd;      /* to the cleanup guardian, -1 if none */
    pid_t            guard_pid;     /* the guardian, 0 if none */
    cpu_set_t       *bind_sets;     /* per rank, local ones filled; NULL: unbound */
} loomrun_job_t;

/** One control connection (head side: a daemon; daemon side: the head). */
typedef struct loomrun_conn {
    int            fd;              /* -1 once closed */
    loomrun_buf_t  rx, tx;          /* bytes read / frames waiting to be written */
    size_t         rx_off, tx_off;  /* consumed / written */
    int            node;            /* head side: node after HELLO, -1 before */
    double         deadline;        /* head side: HELLO expected by then */
    char           peer[64];        /* "ip:port" for messages */
} loomrun_conn_t;

typedef enum loomrun_phase {
    LOOMRUN_RUNNING,   /* no failure yet */
    LOOMRUN_GRACE,     /* failure reported; SIGTERM at the deadline */
    LOOMRUN_TERM,      /* SIGTERM sent; SIGKILL at the deadline */
    LOOMRUN_KILL,      /* SIGKILL sent; waiting for the last reaps */
} loomrun_phase_t;

struct loomrun_head;
struct loomrun_daemon;

/* What a rank's failure was; a signal death outweighs the others, and a
 * failure of a rank that saw a peer fail first weighs least (loomrun_loop.c). */
typedef enum loomrun_cause_class {
    LOOMRUN_CAUSE_SIGNAL = 0,       /* killed by a signal */
    LOOMRUN_CAUSE_EXIT,             /* non-zero exit, or exit without finalizing */
    LOOMRUN_CAUSE_ABORT,            /* loom_abort / PMIx_Abort */
} loomrun_cause_class_t;

/** The first failure of a rank, held a moment while a better cause may come. */
typedef struct loomrun_cause {
    int                   set;
    loomrun_cause_class_t klass;
    int                   consequence;     /* the rank had seen a peer fail */
    int                   status;          /* loomrun's exit status if it is the cause */
    double                deadline;        /* reported then at the latest */
    char                  msg[1024];
    char                  shell[128];      /* how the exit status follows, if not plainly */
    char                  note[1100];      /* a failure it explains, for the message */
} loomrun_cause_t;

struct loomrun_role_ops;

/** The event loop's state (head, single host, or daemon). */
typedef struct loomrun_loop {
    loomrun_job_t   *job;
    int              sig_fd;
    int              nalive;           /* ranks alive: whole job (head) or this node */
    loomrun_phase_t  phase;
    double           phase_deadline;   /* 0 = none */
    double           job_deadline;     /* --timeout, 0 = none */
    double           drain_deadline;   /* set once every rank is reaped */
    int              failed;           /* the one failure message was printed */
    int              exit_status;
    int              signals_seen;     /* SIGINT/SIGTERM... received */
    loomrun_cause_t  cause;            /* a rank's failure not reported yet */
    const struct loomrun_role_ops *role; /* set once, before the loop runs */
    /* the role's own state, seen only by its files */
    struct loomrun_head   *head;       /* head: loomrun_head.c, loomrun_route.c */
    struct loomrun_daemon *daemon;     /* daemon: loomrun_daemon.c */
} loomrun_loop_t;

/**
 * What a role does where the roles differ. The shared loop and its helpers
 * (loomrun_loop.c, loomrun_note.c) call through lp->role and never ask which
 * role they run in. Three tables: loomrun_role_single (loomrun_single.c),
 * loomrun_role_head (loomrun_head.c: the single host's judging plus the
 * daemons) and the daemon's (loomrun_daemon.c: judges nothing, tells the
 * head). Every member is set in every table.
 */
typedef struct loomrun_role_ops {
    /** Start the role's part of the job before this host's ranks (a head:
     *  its daemons). 0, or -1 (the job fails). */
    int    (*start)(loomrun_loop_t *lp);
    /** After the loop: close and free what the role holds. */
    void   (*stop)(loomrun_loop_t *lp);
    /** Print the failure message @p msg (loomrun_fail, once per process). */
    void   (*report_failure)(loomrun_loop_t *lp, const char *msg);
    /** The teardown is about to SIGKILL the ranks left 2 s after SIGTERM. */
    void   (*report_kill)(loomrun_loop_t *lp);
    /** loomrun received @p sig (SIGINT, SIGTERM, SIGHUP or SIGQUIT). */
    void   (*on_signal)(loomrun_loop_t *lp, int sig);
    /** Send @p sig to the ranks on other hosts (loomrun_signal_job). */
    void   (*signal_remote)(loomrun_loop_t *lp, int sig);
    /** An event of the PMIx thread: an abort, a fence, a direct modex. */
    void   (*event)(loomrun_loop_t *lp, loomrun_event_t *ev);
    /** A reaped child that is no rank of this host: 1 if it was the role's. */
    int    (*reaped)(loomrun_loop_t *lp, pid_t pid, int wstatus);
    /** A rank of this host ended (rk->wstatus): judge it, or tell the head. */
    void   (*rank_ended)(loomrun_loop_t *lp, loomrun_rank_t *rk);
    /** Rank @p rank saw @p peer (-1: some peer) fail (loomrun_note_seen). */
    void   (*rank_noted)(loomrun_loop_t *lp, int rank, int peer);
    /** Before each poll: the role's timers; returns its next deadline (0 none). */
    double (*tick)(loomrun_loop_t *lp, double now);
    /** Add the role's fds to @p pfd from index @p n; returns the new count. */
    int    (*poll_fill)(loomrun_loop_t *lp, struct pollfd *pfd, int n);
    /** Handle the role's fds in @p pfd[from..to). */
    void   (*poll_handle)(loomrun_loop_t *lp, struct pollfd *pfd, int from, int to);
    /** --timeout is over: ask for hang reports; 1 if it waits for them. */
    int    (*timeout_begin)(loomrun_loop_t *lp, double now);
    /** After each loop turn: 1 when the wait for those reports ended. */
    int    (*timeout_check)(loomrun_loop_t *lp, double now);
    /** Once every rank is reaped and drained: may the loop end? */
    int    (*may_end)(const loomrun_loop_t *lp);
    /** Where the ranks' output goes (job->emit). */
    loomrun_emit_fn_t emit;
} loomrun_role_ops_t;

/* ---- loomrun_util.c: stateless helpers ------------------------------------ */

/** Monotonic seconds. */
double loomrun_now(void);

/** "SIGKILL" for 9 (a static buffer). */
const char *loomrun_signame(int sig);

/* ---- loomrun_loop.c: the event loop shared by head and daemons ------------ */

/** Report the first abnormal end (once) and start the teardown. */
void loomrun_fail(loomrun_loop_t *lp, int exit_status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Classify a rank's end (local or reported by its daemon). */
void loomrun_classify_exit(loomrun_loop_t *lp, loomrun_rank_t *rk);

/** Rank @p rk (on @p host) aborted the job with @p status and @p msg. */
void loomrun_abort_seen(loomrun_loop_t *lp, loomrun_rank_t *rk, const char *host, int status,
                        const char *msg);

/** A rank aborted the job (a LOOMRUN_EVENT_ABORT of this host): judge it. */
void loomrun_abort_event(loomrun_loop_t *lp, loomrun_event_t *ev);

/** Send @p sig to every rank of the job (this node's, and through the role others'). */
void loomrun_signal_job(loomrun_loop_t *lp, int sig);

/** Give the loop its role (once, before anything runs); sets job->emit too. */
void loomrun_role_set(loomrun_loop_t *lp, const loomrun_role_ops_t *role);

/** Block the loop's signals and open the signalfd. 0 or -1. */
int  loomrun_signals_init(loomrun_loop_t *lp);

/** Private tmpdir, event pipe, rank table. 0 or -1. */
int  loomrun_job_init(loomrun_job_t *job);

/** Register and fork this node's ranks. 0 or -1. */
int  loomrun_launch(loomrun_loop_t *lp, const char *path);

/** Run until every rank is gone (and, on a head, every daemon done). */
void loomrun_loop_run(loomrun_loop_t *lp);

/* ---- loomrun_note.c: ranks telling that they saw a peer fail ---------------- */

/** The note pipe (job->note_rfd/note_wfd, non-blocking). 0 or -1. */
int  loomrun_note_init(loomrun_job_t *job);

/**
 * Read the notes the ranks wrote (loom_bootstrap_note_peer_failure) and
 * mark those ranks; a daemon tells the head. Called before any end of a
 * rank is judged: a note is written before the end it explains.
 */
void loomrun_note_read(loomrun_loop_t *lp);

/** Rank @p rank saw rank @p peer (-1: some peer) fail: mark it (head: from a daemon). */
void loomrun_note_seen(loomrun_loop_t *lp, int rank, int peer);

/* ---- loomrun_net.c: control channel sockets and framed I/O ----------------- */

/** Listen on an ephemeral TCP port on every address. fd or -1. */
int  loomrun_net_listen(int *port_p);

/** This host's IPv4 addresses, "a,b,c", loopback last. 0 or -1. */
int  loomrun_net_addrs(char *buf, size_t len);

/** Connect to the first of @p addrs ("a,b") that answers. fd, or -1 and @p why. */
int  loomrun_net_connect(const char *addrs, int port, char *why, size_t wlen);

/** Accept one connection into @p c. 0 or -1. */
int  loomrun_net_accept(int lfd, loomrun_conn_t *c);

/** Queue one frame (see loomrun_ctl_pack) and write what the socket takes. 0 or -1. */
int  loomrun_conn_send(loomrun_conn_t *c, loomrun_ctl_type_t type, ...);

/** Write queued bytes. 0 (maybe some left) or -1 (connection broken). */
int  loomrun_conn_flush(loomrun_conn_t *c);

/** Read what is there: 1 bytes read, 0 nothing, -1 EOF (errno 0) or error. */
int  loomrun_conn_fill(loomrun_conn_t *c);

/** Next whole frame: 1 (in @p msg, valid until the next fill), 0 none, -1 bad. */
int  loomrun_conn_next(loomrun_conn_t *c, loomrun_ctl_msg_t *msg, char *why, size_t wlen);

/** Close and free. */
void loomrun_conn_close(loomrun_conn_t *c);

/* ---- loomrun_single.c: the role of a job on this host alone ---------------- */

/** The single-host role: it judges every end itself and prints. */
extern const loomrun_role_ops_t loomrun_role_single;

/** Print a failure as the job's (the single host and the head). */
void loomrun_single_report_failure(loomrun_loop_t *lp, const char *msg);

/** Say that SIGKILL follows (the single host and the head). */
void loomrun_single_report_kill(loomrun_loop_t *lp);

/** A signal to loomrun: forward it to the job, SIGKILL the second time. */
void loomrun_single_on_signal(loomrun_loop_t *lp, int sig);

/** The single-host and head reaction to a PMIx event: abort judged, others ignored. */
void loomrun_single_event(loomrun_loop_t *lp, loomrun_event_t *ev);

/* ---- loomrun_head.c: the head of a multi-host job -------------------------- */

/** The head role: the single host's, plus starting and routing the daemons. */
extern const loomrun_role_ops_t loomrun_role_head;

/* ---- loomrun_daemon.c: loomrun --daemon on the other hosts ------------------ */

/** The daemon's main; argv[1] is "--daemon". Returns the exit status. */
int  loomrun_daemon_main(int argc, char **argv);

/* ---- loomrun_hang.c: hang reports and their summary ------------------------- */

/** Keep the ranks' hang reports (head or single host only). 0 or -1. */
int  loomrun_hang_init(loomrun_job_t *job);

/** Free what loomrun_hang_init made. */
void loomrun_hang_fini(loomrun_job_t *job);

/**
 * The output hook of a head or single host (job->emit): rank @p rank's
 * output to @p out_fd, its "loom-report" lines kept when hang reports are on
 * (job->hang), the rest written by loomrun_proc_emit_raw.
 */
void loomrun_hang_emit(loomrun_job_t *job, int rank, int out_fd, const char *data, size_t len,
                       int end_line);

/**
 * Output of rank @p rank on its way out: keep its "loom-report" lines.
 * Returns 1 if it forwarded the rest itself, 0 if the caller forwards all.
 */
int  loomrun_hang_filter(loomrun_job_t *job, int rank, int out_fd, const char *data,
                         size_t len, int end_line);

/** --timeout: SIGUSR1 to the ranks that catch it. 1 if waiting for reports. */
int  loomrun_hang_timeout_begin(loomrun_loop_t *lp, double now);

/** After each loop turn: print a summary when due. 1 when a --timeout wait ended. */
int  loomrun_hang_check(loomrun_loop_t *lp, double now);

/** When the --timeout wait for reports ends (0 none). */
double loomrun_hang_deadline(const loomrun_loop_t *lp);

/* ---- loomrun_hosts.c: host lists and rank placement (pure) --------------- */

/**
 * Add the hosts of a --host list ("a:2,b,c:4") to @p o. A host named twice
 * gets the sum of its slots. 0, or -1 with a message in @p why.
 */
int  loomrun_hosts_parse_list(loomrun_opts_t *o, const char *list, char *why, size_t wlen);

/** Add the hosts of an Open MPI style hostfile ("name [slots=N]" lines). */
int  loomrun_hosts_parse_file(loomrun_opts_t *o, const char *path, char *why, size_t wlen);

/**
 * Place @p nranks ranks on the hosts by slot (fill each host in turn) or by
 * node (round robin); past the slots only with @p oversubscribe. Fills
 * @p map (freed by loomrun_map_free). 0, or -1 with a message.
 */
int  loomrun_map_build(const loomrun_host_t *hosts, int nhosts, int nranks, int map_by,
                       int oversubscribe, loomrun_map_t *map, char *why, size_t wlen);

/** One node on this host: the single-host job. 0 or -1 (ENOMEM). */
int  loomrun_map_single(const char *host, int nranks, loomrun_map_t *map);

/**
 * Rebuild a map from @p nnodes names and the node of each of @p nranks
 * ranks (what a daemon receives). 0, or -1 if a node index is out of range.
 */
int  loomrun_map_from(char *const *names, int nnodes, const int *node_of, int nranks,
                      loomrun_map_t *map);

/** Free what loomrun_map_build filled. */
void loomrun_map_free(loomrun_map_t *map);

/** Is @p name this host (its name, short name, --hostname, localhost)? */
int  loomrun_hosts_is_local(const char *name, const char *override);

/* ---- loomrun_pmix.c: hosting the PMIx server ----------------------------- */

/** Start the server with @p job->tmpdir as its private tmpdir. 0 or -1. */
int  loomrun_pmix_init(loomrun_job_t *job);

/** Register the namespace (job-level and per-rank info). 0 or -1. */
int  loomrun_pmix_register_job(loomrun_job_t *job);

/**
 * Register rank @p rank and add the PMIx variables to @p env_p (an
 * environment array whose strings are all malloc'd). 0 or -1.
 */
int  loomrun_pmix_setup_rank(loomrun_job_t *job, int rank, char ***env_p);

/** Orderly shutdown after a clean run (never after a failure). */
void loomrun_pmix_finalize(loomrun_job_t *job);

/** Hand the combined fence data (or an error) to the local server. */
void loomrun_pmix_fence_done(loomrun_coll_t *coll, int pmix_status, const void *data,
                             size_t ndata);

/** Answer a direct modex request asked here (consumes @p d). */
void loomrun_pmix_dmodex_done(loomrun_dmdx_t *d, int pmix_status, const void *data,
                              size_t ndata);

/**
 * Ask the local server for rank @p d->rank's data for a remote node; the
 * answer comes back as a LOOMRUN_EVENT_DMODEX_DONE event. 0 or -1.
 */
int  loomrun_pmix_dmodex_serve(loomrun_job_t *job, loomrun_dmdx_t *d);

/** Free a fence request (the local server must have been answered). */
void loomrun_coll_free(loomrun_coll_t *coll);

/* ---- loomrun_proc.c: processes, output, files ------------------------------ */

/** Build the ranks' base environment: ours, -x exports, LOOM_OVERSUBSCRIBED. */
int  loomrun_proc_build_env(loomrun_job_t *job);

/** Find @p prog in PATH (or check it if it has a '/'); malloc'd path or NULL. */
char *loomrun_proc_resolve(const char *prog);

/** Fork and exec rank @p r with @p env. 0 or -1 (message printed). */
int  loomrun_proc_spawn(loomrun_job_t *job, int r, const char *path, char **env);

/** Read what @p s has, forward complete lines; at EOF flush and close. */
void loomrun_proc_stream_read(loomrun_job_t *job, loomrun_rank_t *rk, int which);

/** Forward a partial last line and close the stream. */
void loomrun_proc_stream_close(loomrun_job_t *job, loomrun_rank_t *rk, int which);

/**
 * Forward @p len bytes of rank @p rank's output to @p out_fd (1 or 2), with
 * the rank tag when asked; @p end_line ends a last piece without newline.
 */
void loomrun_proc_emit_raw(loomrun_job_t *job, int rank, int out_fd, const char *data,
                           size_t len, int end_line);

/** Does process @p pid catch signal @p sig (a handler, per /proc/PID/status)? */
int  loomrun_proc_catches(pid_t pid, int sig);

/**
 * Send @p sig to every rank still alive on this node. SIGUSR1 (the
 * request for a hang report) only goes to ranks that catch it: by default
 * it would kill them.
 */
void loomrun_proc_signal_all(loomrun_job_t *job, int sig);

/** Remove @p path and everything under it (no symlink is followed). */
void loomrun_proc_remove_tree(const char *path);

/** Unlink /dev/shm segments the job's ranks left (see bootstrap_int.h). */
void loomrun_proc_remove_shm(const loomrun_job_t *job);

/** Unlink every /dev/shm entry whose name starts with @p name. */
void loomrun_proc_remove_shm_prefix(const char *name);

/* ---- loomrun_guard.c: what cleans up if loomrun is killed -------------------- */

/**
 * Fork the cleanup guardian (first thing, before the job makes anything);
 * @p who names loomrun in its message. 0, or -1 (the job runs unguarded).
 */
int  loomrun_guard_start(loomrun_job_t *job, const char *who);

/** "loomrun --guard 3 PID WHO": the guardian's re-executed image. Exit status. */
int  loomrun_guard_exec_main(int argc, char **argv);

/** Tell the guardian the job's tmpdir and /dev/shm prefix (after job_init). */
void loomrun_guard_files(loomrun_job_t *job);

/** Tell the guardian about a rank just forked (loomrun_launch, after each fork). */
void loomrun_guard_proc(loomrun_job_t *job, pid_t pid);

/** loomrun cleaned up itself: the guardian leaves quietly. */
void loomrun_guard_stop(loomrun_job_t *job);

/* ---- binding (loomrun_bind.c) ---- */

/** LOOMRUN_BIND_* for a --bind-to word, or -1. */
int  loomrun_bind_parse(const char *name);

/** The cpus loomrun may run on (its affinity mask) into @p set; @return how many. */
int  loomrun_bind_allowed(cpu_set_t *set);

/**
 * Plan this host's binding: fills job->bind_sets for its ranks, or leaves
 * it NULL (--bind-to none, or auto with more ranks than cores).
 * @return 0, or -1 (out of memory, reported).
 */
int  loomrun_bind_plan(loomrun_job_t *job);

/** With --report-bindings, print rank @p r's binding on stderr. */
void loomrun_bind_report(const loomrun_job_t *job, int r);

/** Free an environment array built by loomrun_proc_build_env or setup_fork. */
void loomrun_proc_free_env(char **env);

/** Copy an environment array (strings malloc'd). NULL on ENOMEM. */
char **loomrun_proc_copy_env(char *const *env);

#endif /* LOOMRUN_INT_H */
