/*
 * loomrun_daemon.c: "loomrun --daemon", started by the head on every other
 * host of a job through the launch agent:
 *
 *     loomrun --daemon --head A,B --port P --node N --hostname NAME
 *
 * It reads the job secret (hex, one line) from its stdin, connects to the
 * first of the head's addresses that answers, says HELLO with the secret,
 * and receives the job. Then it is a loomrun for its node's ranks: PMIx
 * server (registered with the whole job's maps, so its ranks see one job),
 * fork, output, reaping, in the same event loop as the head; but it judges
 * nothing: exits, aborts and output go to the head as they happen, fences
 * and direct modex requests go up and their answers come down, and it
 * signals its ranks when the head says so.
 *
 * No orphans: if the connection to the head breaks (the head died, its
 * host vanished: keepalive notices in under a minute), the daemon kills its
 * ranks at once; if the agent stops the daemon with a signal, it stops its
 * ranks (SIGTERM, SIGKILL a second later). Its ranks die with it
 * (PR_SET_PDEATHSIG). On every way out it removes its PMIx tmpdir and the
 * job's /dev/shm segments on this host; if it is killed outright, its
 * cleanup guardian (loomrun_guard.c) does.
 *
 * Role: loomrun_role_daemon is what the shared loop calls here: every end,
 * note, abort, fence and line of output goes up the connection; a failure
 * of its own goes to its stderr; it has no --timeout and no hang reports.
 */
#include "loomrun_int.h"
#include "compiler_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOOMRUN_DAEMON_WAIT_S 60.0   /* for the secret, and for the job */

typedef struct loomrun_daemon {
    loomrun_conn_t   conn;
    int              shutdown;      /* 0 running, 1 clean end, 2 failed end */
    int              lost;          /* the head is gone */
    loomrun_coll_t  *fences;        /* handed up, waiting for FENCE_DONE */
    loomrun_dmdx_t  *reqs;          /* asked here, waiting for DMDX_RESP */
    uint32_t         next_req;
    loomrun_buf_t    stdin_q;       /* for rank 0 */
    size_t           stdin_off;
    int              stdin_eof;
} loomrun_daemon_t;

typedef struct loomrun_daemon_args {
    const char *head, *hostname;
    int         port, node;
} loomrun_daemon_args_t;

static loomrun_daemon_t loomrun_daemon_state;

/* ---- start-up ---------------------------------------------------------------- */

static int loomrun_daemon_parse(int argc, char **argv, loomrun_daemon_args_t *a)
{
    a->head = a->hostname = NULL;
    a->port = a->node = -1;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--head")) {
            a->head = argv[i + 1];
        } else if (!strcmp(argv[i], "--port")) {
            a->port = atoi(argv[i + 1]);
        } else if (!strcmp(argv[i], "--node")) {
            a->node = atoi(argv[i + 1]);
        } else if (!strcmp(argv[i], "--hostname")) {
            a->hostname = argv[i + 1];
        } else {
            break;
        }
    }
    if (a->head == NULL || a->hostname == NULL || a->port <= 0 || a->port > 65535 ||
        a->node < 0 || a->node >= LOOMRUN_MAX_NODES) {
        fprintf(stderr, "loomrun --daemon: started by the loomrun head of a multi-host "
                "job, not by hand (needs --head ADDRS --port P --node N --hostname NAME)\n");
        return -1;
    }
    return 0;
}

/* The secret, 32 hex digits and a newline, from stdin; stdin is then
 * /dev/null (the agent's stream is not for the ranks). */
static int loomrun_daemon_secret(uint8_t *secret)
{
    char line[2 * LOOMRUN_SECRET_LEN + 1];
    size_t got = 0;
    struct pollfd pfd = { .fd = 0, .events = POLLIN };
    int nfd;

    while (got < sizeof(line)) {
        ssize_t n;
        if (poll(&pfd, 1, (int)(LOOMRUN_DAEMON_WAIT_S * 1e3)) != 1) {
            break;
        }
        n = read(0, line + got, sizeof(line) - got);
        if (n <= 0) {
            break;
        }
        got += (size_t)n;
    }
    if (got != sizeof(line) || line[2 * LOOMRUN_SECRET_LEN] != '\n') {
        fprintf(stderr, "loomrun --daemon: no job secret on stdin (the launch agent must "
                "pass loomrun's stdin through, as ssh does)\n");
        return -1;
    }
    for (int i = 0; i < LOOMRUN_SECRET_LEN; ++i) {
        unsigned v;
        if (sscanf(line + 2 * i, "%2x", &v) != 1) {
            fprintf(stderr, "loomrun --daemon: malformed job secret on stdin\n");
            return -1;
        }
        secret[i] = (uint8_t)v;
    }
    if ((nfd = open("/dev/null", O_RDONLY)) >= 0) {
        dup2(nfd, 0);
        close(nfd);
    }
    return 0;
}

/* Wait for one whole frame (blocking, bounded). 1, or -1 with a message. */
static int loomrun_daemon_recv(loomrun_conn_t *c, loomrun_ctl_msg_t *m, char *why, size_t wlen)
{
    struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

    for (;;) {
        int rc = loomrun_conn_next(c, m, why, wlen);
        if (rc != 0) {
            return rc;
        }
        if (poll(&pfd, 1, (int)(LOOMRUN_DAEMON_WAIT_S * 1e3)) != 1) {
            snprintf(why, wlen, "no job from the head within %g s", LOOMRUN_DAEMON_WAIT_S);
            return -1;
        }
        if (loomrun_conn_fill(c) < 0) {
            snprintf(why, wlen, "the head closed the connection%s%s", errno ? ": " : "",
                     errno ? strerror(errno) : "");
            return -1;
        }
    }
}

/* The JOB message into @p job (strings copied: the buffer is reused). */
static int loomrun_daemon_take_job(loomrun_job_t *job, const loomrun_ctl_msg_t *m, int node)
{
    loomrun_ctl_list_t names = m->list[0], args = m->list[1], env = m->list[2];
    char **nv = calloc(names.n + 1, sizeof(char *));
    int *node_of = calloc(m->arr_n + 1, sizeof(int)), rc = -1, k = 0;

    job->opts.tag_output = (m->u[0] & LOOMRUN_CTL_JOB_TAG) != 0;
    job->opts.quiet      = (m->u[0] & LOOMRUN_CTL_JOB_QUIET) != 0;
    job->opts.report_bindings = (m->u[0] & LOOMRUN_CTL_JOB_REPORT_BINDINGS) != 0;
    job->opts.bind = (int)((m->u[0] & LOOMRUN_CTL_JOB_BIND_MASK) >> LOOMRUN_CTL_JOB_BIND_SHIFT);
    job->opts.nranks     = (int)m->u[1];
    job->opts.argv       = calloc(args.n + 1, sizeof(char *));
    job->opts.exports    = calloc(env.n + 1, sizeof(char *));
    snprintf(job->nspace, sizeof(job->nspace), "%s", m->s[0]);
    if (m->s[1][0] != '\0' && chdir(m->s[1]) != 0 && !job->opts.quiet) {
        fprintf(stderr, "loomrun daemon (%s): cannot change to the head's directory %s: "
                "%s; the ranks start in %s\n", job->host, m->s[1], strerror(errno),
                getenv("HOME") ? getenv("HOME") : "/");
    }
    if (nv == NULL || node_of == NULL || job->opts.argv == NULL || job->opts.exports == NULL ||
        m->u[1] < 1 || m->u[1] > LOOMRUN_MAX_RANKS || m->arr_n != m->u[1] ||
        m->u[2] != (uint32_t)node || args.n < 1) {
        goto out_free;
    }
    for (const char *s; (s = loomrun_ctl_list_next(&names)) != NULL;) {
        nv[k++] = (char *)(uintptr_t)s;
    }
    for (int i = 0; (job->opts.argv[i] = (char *)loomrun_ctl_list_next(&args)) != NULL; ++i) {
        job->opts.argv[i] = strdup(job->opts.argv[i]);
    }
    for (const char *s; (s = loomrun_ctl_list_next(&env)) != NULL;) {
        if (strchr(s, '=') != NULL) {
            job->opts.exports[job->opts.nexports++] = strdup(s);
        }
    }
    for (uint32_t r = 0; r < m->arr_n; ++r) {
        node_of[r] = (int)loomrun_ctl_arr(m, r);
    }
    rc = loomrun_map_from(nv, k, node_of, job->opts.nranks, &job->map);
    if (rc == 0 && node >= job->map.nnodes) {
        rc = -1;
    }
out_free:
    free(nv);
    free(node_of);
    return rc;
}

/* Connect, HELLO, JOB. 0 to run, 1 to leave quietly (the head is done), -1 error. */
static int loomrun_daemon_join(loomrun_job_t *job, loomrun_daemon_t *d,
                               const loomrun_daemon_args_t *a)
{
    uint8_t secret[LOOMRUN_SECRET_LEN];
    loomrun_ctl_msg_t m;
    char why[1024];
    int rc;

    if (loomrun_daemon_secret(secret) != 0) {
        return -1;
    }
    d->conn.fd = loomrun_net_connect(a->head, a->port, why, sizeof(why));
    if (d->conn.fd < 0) {
        fprintf(stderr, "loomrun daemon (%s): cannot reach the head: %s\n", a->hostname, why);
        return -1;
    }
    snprintf(d->conn.peer, sizeof(d->conn.peer), "the head");
    if (loomrun_conn_send(&d->conn, LOOMRUN_CTL_HELLO, LOOMRUN_CTL_MAGIC,
                          LOOMRUN_CTL_VERSION, (unsigned)a->node, (unsigned)getpid(),
                          a->hostname, (const void *)secret, sizeof(secret)) != 0) {
        fprintf(stderr, "loomrun daemon (%s): cannot send HELLO: %s\n", a->hostname,
                strerror(errno));
        return -1;
    }
    rc = loomrun_daemon_recv(&d->conn, &m, why, sizeof(why));
    if (rc == 1 && m.type == LOOMRUN_CTL_SHUTDOWN) {
        return 1;
    }
    if (rc != 1 || m.type != LOOMRUN_CTL_JOB) {
        fprintf(stderr, "loomrun daemon (%s): %s\n", a->hostname,
                rc != 1 ? why : "the head sent something else than the job");
        return -1;
    }
    if (loomrun_daemon_take_job(job, &m, a->node) != 0) {
        fprintf(stderr, "loomrun daemon (%s): the job from the head is inconsistent\n",
                a->hostname);
        return -1;
    }
    return 0;
}

/* ---- what the loop reports --------------------------------------------------------- */

static void loomrun_daemon_emit(loomrun_job_t *job, int rank, int out_fd, const char *data,
                                size_t len, int end_line)
{
    (void)job;
    loomrun_conn_send(&loomrun_daemon_state.conn, LOOMRUN_CTL_OUTPUT, (unsigned)rank,
                      (unsigned)out_fd, (unsigned)end_line, (const void *)data, len);
}

static void loomrun_daemon_rank_exit(loomrun_loop_t *lp, loomrun_rank_t *rk)
{
    loomrun_conn_send(&lp->daemon->conn, LOOMRUN_CTL_EXIT, (unsigned)rk->rank,
                      (unsigned)rk->pid, (unsigned)rk->wstatus,
                      (unsigned)atomic_load(&rk->connected), (unsigned)atomic_load(&rk->finalized));
}

static void loomrun_daemon_rank_note(loomrun_loop_t *lp, int rank, int peer)
{
    loomrun_conn_send(&lp->daemon->conn, LOOMRUN_CTL_NOTE, (unsigned)rank, peer);
}

static void loomrun_daemon_event(loomrun_loop_t *lp, loomrun_event_t *ev)
{
    loomrun_daemon_t *d = lp->daemon;
    loomrun_coll_t *c;
    loomrun_dmdx_t *q;

    switch (ev->type) {
    case LOOMRUN_EVENT_ABORT:
        loomrun_note_read(lp);   /* the head hears a note before its abort */
        loomrun_conn_send(&d->conn, LOOMRUN_CTL_ABORT, (unsigned)ev->rank, ev->status, ev->msg);
        break;
    case LOOMRUN_EVENT_FENCE:
        c = ev->ptr;
        c->next = d->fences;
        d->fences = c;
        loomrun_conn_send(&d->conn, LOOMRUN_CTL_FENCE, (unsigned)c->nnodes, c->id,
                          (const void *)c->data, c->ndata);
        break;
    case LOOMRUN_EVENT_DMODEX:
        q = ev->ptr;
        q->id = ++d->next_req;
        q->next = d->reqs;
        d->reqs = q;
        loomrun_conn_send(&d->conn, LOOMRUN_CTL_DMDX_REQ, (unsigned)q->origin, q->id,
                          (unsigned)q->rank);
        break;
    case LOOMRUN_EVENT_DMODEX_DONE:
        q = ev->ptr;
        loomrun_conn_send(&d->conn, LOOMRUN_CTL_DMDX_RESP, (unsigned)q->origin, q->id,
                          q->status, (const void *)q->data, q->ndata);
        free(q->data);
        free(q);
        break;
    default:
        break;
    }
}

static int loomrun_daemon_done(const loomrun_loop_t *lp)
{
    return lp->daemon->shutdown != 0 || lp->daemon->lost;
}

/* ---- messages from the head --------------------------------------------------------- */

static void loomrun_daemon_fence_done(loomrun_daemon_t *d, const loomrun_ctl_msg_t *m)
{
    for (loomrun_coll_t **pp = &d->fences; *pp != NULL; pp = &(*pp)->next) {
        loomrun_coll_t *c = *pp;
        if (strcmp(c->id, m->s[0]) == 0) {
            *pp = c->next;
            loomrun_pmix_fence_done(c, (int)m->u[0], m->blob, m->blob_len);
            return;
        }
    }
}

static void loomrun_daemon_dmdx(loomrun_loop_t *lp, const loomrun_ctl_msg_t *m)
{
    loomrun_daemon_t *d = lp->daemon;
    loomrun_dmdx_t *q;

    if (m->type == LOOMRUN_CTL_DMDX_RESP) {
        for (loomrun_dmdx_t **pp = &d->reqs; *pp != NULL; pp = &(*pp)->next) {
            if ((*pp)->id == m->u[1]) {
                q = *pp;
                *pp = q->next;
                loomrun_pmix_dmodex_done(q, (int)m->u[2], m->blob, m->blob_len);
                return;
            }
        }
        return;
    }
    /* a request for one of our ranks' data: the answer comes as an event */
    q = calloc(1, sizeof(*q));
    if (q == NULL) {
        return;
    }
    *q = (loomrun_dmdx_t){ .rank = (int)m->u[2], .origin = (int)m->u[0], .id = m->u[1] };
    if (m->u[2] >= (uint32_t)lp->job->opts.nranks ||
        loomrun_pmix_dmodex_serve(lp->job, q) != 0) {
        loomrun_conn_send(&d->conn, LOOMRUN_CTL_DMDX_RESP, m->u[0], m->u[1],
                          q->status ? q->status : PMIX_ERR_NOT_FOUND, (const void *)NULL,
                          (size_t)0);
        free(q);
    }
}

/* Queue bytes for rank 0's stdin (empty: end of input). */
static void loomrun_daemon_stdin(loomrun_loop_t *lp, const loomrun_ctl_msg_t *m)
{
    loomrun_daemon_t *d = lp->daemon;

    if (m->blob_len == 0) {
        d->stdin_eof = 1;
    } else if (lp->job->stdin_wfd >= 0) {
        loomrun_buf_t *b = &d->stdin_q;
        if (b->len + m->blob_len > b->cap) {
            size_t cap = LOOM_MAX(b->cap * 2, b->len + m->blob_len);
            uint8_t *p = realloc(b->p, cap);
            if (p == NULL) {
                return;
            }
            b->p = p;
            b->cap = cap;
        }
        memcpy(b->p + b->len, m->blob, m->blob_len);
        b->len += m->blob_len;
    }
}

static void loomrun_daemon_msg(loomrun_loop_t *lp, const loomrun_ctl_msg_t *m)
{
    loomrun_daemon_t *d = lp->daemon;

    switch (m->type) {
    case LOOMRUN_CTL_SIGNAL:
        if (m->u[0] > 0 && m->u[0] < 65) {
            loomrun_proc_signal_all(lp->job, (int)m->u[0]);
        }
        break;
    case LOOMRUN_CTL_STDIN:
        loomrun_daemon_stdin(lp, m);
        break;
    case LOOMRUN_CTL_FENCE_DONE:
        loomrun_daemon_fence_done(d, m);
        break;
    case LOOMRUN_CTL_DMDX_REQ:
    case LOOMRUN_CTL_DMDX_RESP:
        loomrun_daemon_dmdx(lp, m);
        break;
    case LOOMRUN_CTL_SHUTDOWN:
        d->shutdown = m->u[0] ? 1 : 2;
        if (lp->drain_deadline == 0) {
            lp->drain_deadline = loomrun_now() + LOOMRUN_DRAIN_S;
        }
        break;
    default:
        fprintf(stderr, "loomrun daemon (%s): ignoring an unexpected %s message from the "
                "head\n", lp->job->host, loomrun_ctl_type_name(m->type));
    }
}

/* The head is gone: nothing of the job may outlive it. */
static void loomrun_daemon_lost(loomrun_loop_t *lp, const char *why)
{
    lp->daemon->lost = 1;
    loomrun_conn_close(&lp->daemon->conn);
    if (lp->nalive > 0) {
        loomrun_fail(lp, 1, "%s: killing this host's %d rank(s)", why, lp->nalive);
    }
    loomrun_proc_signal_all(lp->job, SIGKILL);
    lp->phase = LOOMRUN_KILL;
    lp->phase_deadline = 0;
    lp->drain_deadline = loomrun_now() + LOOMRUN_DRAIN_S;
}

/* Handle the frames already read; with @p fill, read first. */
static void loomrun_daemon_read(loomrun_loop_t *lp, int fill)
{
    loomrun_daemon_t *d = lp->daemon;
    loomrun_ctl_msg_t m;
    char why[256] = "", what[512];
    int rc = fill ? loomrun_conn_fill(&d->conn) : 0, err = errno, k = 0;

    while (d->conn.fd >= 0 && (k = loomrun_conn_next(&d->conn, &m, why, sizeof(why))) == 1) {
        loomrun_daemon_msg(lp, &m);
    }
    if (k < 0) {
        snprintf(what, sizeof(what), "bad message from the head: %s", why);
        loomrun_daemon_lost(lp, what);
    } else if (rc < 0) {
        snprintf(what, sizeof(what), "lost the connection to the head%s%s",
                 err ? ": " : "", err ? strerror(err) : "");
        loomrun_daemon_lost(lp, what);
    }
}

/* ---- poll ----------------------------------------------------------------------- */

static int loomrun_daemon_poll_fill(loomrun_loop_t *lp, struct pollfd *pfd, int n)
{
    loomrun_daemon_t *d = lp->daemon;
    loomrun_job_t *job = lp->job;

    if (job->stdin_wfd >= 0 && d->stdin_eof && d->stdin_off == d->stdin_q.len) {
        close(job->stdin_wfd);   /* rank 0 sees the end of its input */
        job->stdin_wfd = -1;
    }
    pfd[n++] = (struct pollfd){ .fd = d->conn.fd,
                                .events = (short)(POLLIN | (d->conn.tx.len > d->conn.tx_off ?
                                                            POLLOUT : 0)) };
    pfd[n++] = (struct pollfd){ .fd = d->stdin_off < d->stdin_q.len ? job->stdin_wfd : -1,
                                .events = POLLOUT };
    return n;
}

static void loomrun_daemon_write_stdin(loomrun_loop_t *lp)
{
    loomrun_daemon_t *d = lp->daemon;
    ssize_t n = write(lp->job->stdin_wfd, d->stdin_q.p + d->stdin_off,
                      d->stdin_q.len - d->stdin_off);

    if (n > 0) {
        d->stdin_off += (size_t)n;
        if (d->stdin_off == d->stdin_q.len) {
            d->stdin_off = d->stdin_q.len = 0;
        }
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        /* rank 0 closed its stdin: drop the rest */
        close(lp->job->stdin_wfd);
        lp->job->stdin_wfd = -1;
        d->stdin_off = d->stdin_q.len = 0;
    }
}

static void loomrun_daemon_poll_handle(loomrun_loop_t *lp, struct pollfd *pfd, int from, int to)
{
    loomrun_daemon_t *d = lp->daemon;

    if (to - from < 2) {
        return;
    }
    if (pfd[from].revents != 0 && d->conn.fd >= 0) {
        if ((pfd[from].revents & POLLOUT) && loomrun_conn_flush(&d->conn) != 0) {
            loomrun_daemon_lost(lp, "lost the connection to the head");
            return;
        }
        if (pfd[from].revents & (POLLIN | POLLHUP | POLLERR)) {
            loomrun_daemon_read(lp, 1);
        }
    }
    if (pfd[from + 1].revents != 0 && lp->job->stdin_wfd >= 0) {
        loomrun_daemon_write_stdin(lp);
    }
}

/* ---- the role ---------------------------------------------------------------------- */

/* Only the head reports; a daemon's own trouble goes to its stderr. */
static void loomrun_daemon_report_failure(loomrun_loop_t *lp, const char *msg)
{
    fprintf(stderr, "loomrun daemon (%s): %s\n", lp->job->host, msg);
}

static void loomrun_daemon_report_kill(loomrun_loop_t *lp)
{
    (void)lp;   /* the head says it */
}

/* The agent (ssh) or the host stops the daemon: the head will see its
 * connection close; the ranks here must not outlive it. */
static void loomrun_daemon_on_signal(loomrun_loop_t *lp, int sig)
{
    loomrun_fail(lp, 128 + sig, "received %s: stopping this node's ranks",
                 loomrun_signame(sig));
    loomrun_proc_signal_all(lp->job, SIGTERM);
    lp->phase          = LOOMRUN_TERM;
    lp->phase_deadline = loomrun_now() + 1.0;
}

static int loomrun_daemon_role_start(loomrun_loop_t *lp)
{
    (void)lp;   /* loomrun_daemon_main joins the head and starts the ranks */
    return 0;
}

static void loomrun_daemon_hangup(loomrun_daemon_t *d);

static void loomrun_daemon_role_stop(loomrun_loop_t *lp)
{
    loomrun_daemon_hangup(lp->daemon);
}

static void loomrun_daemon_signal_remote(loomrun_loop_t *lp, int sig)
{
    (void)lp;   /* the head signals the other hosts */
    (void)sig;
}

static int loomrun_daemon_reaped(loomrun_loop_t *lp, pid_t pid, int wstatus)
{
    (void)lp;
    (void)pid;
    (void)wstatus;
    return 0;
}

static double loomrun_daemon_tick(loomrun_loop_t *lp, double now)
{
    (void)lp;
    (void)now;
    return 0;
}

/* No --timeout and no hang reports here: the head asks and collects. */
static int loomrun_daemon_no_timeout(loomrun_loop_t *lp, double now)
{
    (void)lp;
    (void)now;
    return 0;
}

static const loomrun_role_ops_t loomrun_role_daemon = {
    .start          = loomrun_daemon_role_start,
    .stop           = loomrun_daemon_role_stop,
    .report_failure = loomrun_daemon_report_failure,
    .report_kill    = loomrun_daemon_report_kill,
    .on_signal      = loomrun_daemon_on_signal,
    .signal_remote  = loomrun_daemon_signal_remote,
    .event          = loomrun_daemon_event,
    .reaped         = loomrun_daemon_reaped,
    .rank_ended     = loomrun_daemon_rank_exit,
    .rank_noted     = loomrun_daemon_rank_note,
    .tick           = loomrun_daemon_tick,
    .poll_fill      = loomrun_daemon_poll_fill,
    .poll_handle    = loomrun_daemon_poll_handle,
    .timeout_begin  = loomrun_daemon_no_timeout,
    .timeout_check  = loomrun_daemon_no_timeout,
    .may_end        = loomrun_daemon_done,
    .emit           = loomrun_daemon_emit,
};

/* ---- main ------------------------------------------------------------------------- */

/* The PMIx server and this node's ranks; on failure the head is told why. */
static int loomrun_daemon_start(loomrun_loop_t *lp)
{
    loomrun_job_t *job = lp->job;
    char *path = loomrun_proc_resolve(job->opts.argv[0]);
    char msg[PATH_MAX + 128];
    int rc = -1;

    if (path == NULL) {
        snprintf(msg, sizeof(msg), "%s: no such executable program%s", job->opts.argv[0],
                 strchr(job->opts.argv[0], '/') ? "" : " in PATH");
        loomrun_conn_send(&lp->daemon->conn, LOOMRUN_CTL_ERROR, 127u, msg);
        return -1;
    }
    setenv("HWLOC_COMPONENTS", "-pci", 0);
    if (loomrun_pmix_init(job) == 0) {
        job->pmix_up = 1;
        rc = loomrun_pmix_register_job(job) == 0 ? loomrun_launch(lp, path) : -1;
    }
    free(path);
    /* STARTED first: after ERROR the head counts the ranks without a pid as
     * never started */
    for (int r = 0; r < job->opts.nranks; ++r) {
        if (job->ranks[r].pid > 0) {
            loomrun_conn_send(&lp->daemon->conn, LOOMRUN_CTL_STARTED, (unsigned)r,
                              (unsigned)job->ranks[r].pid);
        }
    }
    if (rc != 0) {
        snprintf(msg, sizeof(msg), "cannot start the ranks there (see the daemon's message "
                 "above)");
        loomrun_conn_send(&lp->daemon->conn, LOOMRUN_CTL_ERROR, 1u, msg);
    }
    return rc;
}

/* Write what is still queued to the head (bounded), then hang up. */
static void loomrun_daemon_hangup(loomrun_daemon_t *d)
{
    double deadline = loomrun_now() + 2.0;

    while (d->conn.fd >= 0 && d->conn.tx.len > d->conn.tx_off && loomrun_now() < deadline) {
        struct pollfd pfd = { .fd = d->conn.fd, .events = POLLOUT };
        if (poll(&pfd, 1, 100) < 0 || loomrun_conn_flush(&d->conn) != 0) {
            break;
        }
    }
    loomrun_conn_close(&d->conn);
}

int loomrun_daemon_main(int argc, char **argv)
{
    loomrun_daemon_t *d = &loomrun_daemon_state;
    loomrun_daemon_args_t a;
    loomrun_job_t job;
    loomrun_loop_t lp;
    int rc;

    memset(&job, 0, sizeof(job));
    memset(&lp, 0, sizeof(lp));
    d->conn.fd = -1;
    lp.job = &job;
    lp.daemon = d;
    loomrun_role_set(&lp, &loomrun_role_daemon);
    job.event_rfd = job.event_wfd = job.stdin_wfd = job.guard_fd = -1;
    job.note_rfd = job.note_wfd = -1;
    job.stdin_pipe = 1;
    signal(SIGPIPE, SIG_IGN);
    if (loomrun_daemon_parse(argc, argv, &a) != 0) {
        return 2;
    }
    snprintf(job.host, sizeof(job.host), "%s", a.hostname);
    rc = loomrun_daemon_join(&job, d, &a);
    if (rc != 0) {
        loomrun_conn_close(&d->conn);
        return rc < 0 ? 1 : 0;
    }
    job.my_node = a.node;
    loomrun_guard_start(&job, "loomrun daemon");
    if (loomrun_signals_init(&lp) != 0 || loomrun_job_init(&job) != 0 ||
        loomrun_proc_build_env(&job) != 0 || loomrun_daemon_start(&lp) != 0) {
        lp.failed = 1;
    }
    /* what came with the job (stdin, a signal) is in the buffer already */
    loomrun_daemon_read(&lp, 0);
    loomrun_loop_run(&lp);
    if (!lp.failed && d->shutdown == 1 && job.pmix_up) {
        loomrun_pmix_finalize(&job);
    }
    lp.role->stop(&lp);   /* what is queued for the head goes, then hang up */
    loomrun_proc_remove_shm(&job);
    loomrun_proc_remove_tree(job.tmpdir);
    loomrun_guard_stop(&job);
    fflush(stdout);
    fflush(stderr);
    /* as the head: no library destructors after a failure */
    _exit(lp.failed || d->shutdown != 1 ? 1 : 0);
}
