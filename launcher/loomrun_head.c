/*
 * loomrun_head.c: the head of a multi-host job.
 *
 * Start-up: draw a 16-byte job secret, listen on an ephemeral TCP port,
 * and for every node other than this one run
 *     AGENT HOST 'loomrun' --daemon --head ADDR,ADDR --port P --node N --hostname HOST
 * (the words after HOST shell-quoted, as ssh hands them to a remote shell),
 * writing the secret in hex on the agent's stdin. The daemon connects back
 * and its first frame (HELLO) must carry the secret; only then does the
 * head send it the job (namespace, maps, program, exported variables).
 * Agents run in their own process group (a terminal's ^C reaches the head
 * alone, which forwards it) and get SIGTERM if the head dies.
 *
 * While the job runs the head is a router: a daemon's ranks' output is
 * written with the rank tags, their exits and aborts are judged exactly as
 * local ones, stdin goes to the node of rank 0, and signals and the
 * teardown go to every daemon. Fences: every node's PMIx server hands its
 * contribution up (the head's own through the event pipe); when all nodes
 * taking part have contributed, the head concatenates the contributions in
 * node order and sends the result back to each, which is what a PMIx
 * server expects from its host's fence. Direct modex requests go to the
 * node of the proc asked for; the answer comes back the same way.
 *
 * End: when every rank is gone the head sends SHUTDOWN (clean or not) and
 * waits up to LOOMRUN_SHUTDOWN_S for the daemons to flush and hang up.
 *
 * Role: loomrun_role_head (end of file) is what the shared loop calls. It
 * is the single host's table (loomrun_single.c: judging, printing, signals,
 * hang reports) with the daemons added: start and stop, the control fds and
 * timers, agents reaped, signals sent on, fences and modex routed.
 */
#include "loomrun_int.h"
#include "loomrun_head.h"
#include "compiler_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOOMRUN_SHUTDOWN_S   5.0
#define LOOMRUN_STDIN_BACKLOG (1u << 20)
#define LOOMRUN_DEFAULT_AGENT "ssh -x -o BatchMode=yes"


static void loomrun_head_node_gone(loomrun_loop_t *lp, int n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- launching ----------------------------------------------------------------- */

/* Append @p word to @p f quoted for a POSIX shell (ssh runs it through one). */
static void loomrun_head_quote(FILE *f, const char *word)
{
    if (word[0] != '\0' && strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_./:,=+-@%") == strlen(word)) {
        fputs(word, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = word; *p != '\0'; ++p) {
        if (*p == '\'') {
            fputs("'\\''", f);
        } else {
            fputc(*p, f);
        }
    }
    fputc('\'', f);
}

/* argv for the agent: its own words, the host, the quoted daemon command. */
static char **loomrun_head_agent_argv(loomrun_head_t *h, const loomrun_job_t *job, int n)
{
    char *copy = strdup(h->agent), *save = NULL, **argv;
    char node[16], port[16];
    const char *words[] = { h->self_exe, "--daemon", "--head", h->addrs, "--port", port,
                            "--node", node, "--hostname", job->map.names[n] };
    int k = 0;

    argv = calloc(strlen(h->agent) + 2 + LOOM_ARRAY_SIZE(words) + 1, sizeof(char *));
    if (copy == NULL || argv == NULL) {
        free(copy);
        free(argv);
        return NULL;
    }
    snprintf(node, sizeof(node), "%d", n);
    snprintf(port, sizeof(port), "%d", h->port);
    for (char *w = strtok_r(copy, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
        argv[k++] = strdup(w);
    }
    free(copy);
    argv[k++] = strdup(job->map.names[n]);
    for (size_t i = 0; i < LOOM_ARRAY_SIZE(words); ++i) {
        size_t len = 0;
        FILE *f = open_memstream(&argv[k], &len);
        if (f != NULL) {
            loomrun_head_quote(f, words[i]);
            fclose(f);
        }
        ++k;
    }
    for (int i = 0; i < k; ++i) {
        if (argv[i] == NULL) {
            loomrun_proc_free_env(argv);
            return NULL;
        }
    }
    return argv;
}

/* In the agent's child, before exec: async-signal-safe calls only. */
static void loomrun_head_agent_child(int in_fd, pid_t parent, char **argv)
{
    sigset_t none;
    static const char msg[] = "loomrun: cannot run the launch agent ";

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent || dup2(in_fd, 0) < 0) {
        _exit(127);
    }
    execvp(argv[0], argv);
    if (write(2, msg, sizeof(msg) - 1) > 0 && write(2, argv[0], strlen(argv[0])) > 0) {
        const char *e = strerror(errno);
        if (write(2, ": ", 2) > 0 && write(2, e, strlen(e)) > 0) {
            (void)!write(2, "\n", 1);
        }
    }
    _exit(127);
}

/* Start the agent for node @p n; the secret goes down its stdin. 0 or -1. */
static int loomrun_head_launch_node(loomrun_head_t *h, loomrun_job_t *job, int n)
{
    char **argv = loomrun_head_agent_argv(h, job, n), line[2 * LOOMRUN_SECRET_LEN + 2];
    int fds[2] = { -1, -1 };
    pid_t pid = -1, parent = getpid();

    if (argv != NULL && pipe2(fds, O_CLOEXEC) == 0) {
        pid = fork();
        if (pid == 0) {
            loomrun_head_agent_child(fds[0], parent, argv);
        }
    }
    loomrun_proc_free_env(argv);
    if (fds[0] >= 0) {
        close(fds[0]);
    }
    if (pid < 0) {
        fprintf(stderr, "loomrun: cannot start the launch agent for host %s: %s\n",
                job->map.names[n], strerror(errno));
        if (fds[1] >= 0) {
            close(fds[1]);
        }
        return -1;
    }
    for (int i = 0; i < LOOMRUN_SECRET_LEN; ++i) {
        snprintf(line + 2 * i, 3, "%02x", h->secret[i]);
    }
    line[2 * LOOMRUN_SECRET_LEN] = '\n';
    /* a pipe holds 33 bytes without blocking; an agent that died early
     * shows up as EPIPE here and as its exit status in the reaper */
    if (write(fds[1], line, sizeof(line) - 1) < 0 && errno != EPIPE) {
        fprintf(stderr, "loomrun: writing to the launch agent of host %s: %s\n",
                job->map.names[n], strerror(errno));
    }
    close(fds[1]);
    setpgid(pid, pid);   /* also here: no race with a signal to the group */
    h->nodes[n].agent_pid = pid;
    return 0;
}

static int loomrun_head_setup(loomrun_head_t *h, const loomrun_job_t *job)
{
    ssize_t len;

    h->lfd = -1;
    h->agent = job->opts.launch_agent ? job->opts.launch_agent : LOOMRUN_DEFAULT_AGENT;
    if (getrandom(h->secret, sizeof(h->secret), 0) != (ssize_t)sizeof(h->secret)) {
        fprintf(stderr, "loomrun: getrandom for the job secret: %s\n", strerror(errno));
        return -1;
    }
    len = readlink("/proc/self/exe", h->self_exe, sizeof(h->self_exe) - 1);
    if (len <= 0) {
        fprintf(stderr, "loomrun: cannot find loomrun's own path (/proc/self/exe): %s\n",
                strerror(errno));
        return -1;
    }
    h->self_exe[len] = '\0';
    if (loomrun_net_addrs(h->addrs, sizeof(h->addrs)) != 0) {
        fprintf(stderr, "loomrun: this host (%s) has no IPv4 address for the daemons to "
                "call back to\n", job->host);
        return -1;
    }
    h->lfd = loomrun_net_listen(&h->port);
    return h->lfd >= 0 ? 0 : -1;
}

static int loomrun_head_start(loomrun_loop_t *lp)
{
    loomrun_job_t *job = lp->job;
    loomrun_head_t *h = calloc(1, sizeof(*h));

    if (h == NULL || (h->nodes = calloc((size_t)job->map.nnodes, sizeof(*h->nodes))) == NULL) {
        free(h);
        fprintf(stderr, "loomrun: out of memory\n");
        /* no daemon exists yet: the job fails, and this host's part runs
         * down as a single host's would (the head's operations need h) */
        loomrun_role_set(lp, &loomrun_role_single);
        return -1;
    }
    lp->head = h;
    for (int n = 0; n < job->map.nnodes; ++n) {
        h->nodes[n].conn.fd = -1;
        h->nodes[n].state = n == job->my_node ? LOOMRUN_D_GONE : LOOMRUN_D_LAUNCHING;
    }
    /* remote ranks count as running until their daemon says otherwise */
    for (int r = 0; r < job->opts.nranks; ++r) {
        if (job->ranks[r].node != job->my_node) {
            job->ranks[r].alive = 1;
            ++lp->nalive;
        }
    }
    h->stdin_open = job->ranks[0].node != job->my_node;
    h->launch_deadline = loomrun_now() + job->opts.launch_timeout;
    if (loomrun_head_setup(h, job) != 0) {
        goto err_fail_all;
    }
    for (int n = 0; n < job->map.nnodes; ++n) {
        if (n != job->my_node && loomrun_head_launch_node(h, job, n) != 0) {
            goto err_fail_all;
        }
    }
    return 0;

err_fail_all:
    for (int n = 0; n < job->map.nnodes; ++n) {
        if (h->nodes[n].state == LOOMRUN_D_LAUNCHING) {
            loomrun_head_node_gone(lp, n, "not started");
        }
    }
    return -1;
}

/* ---- nodes going away ------------------------------------------------------------ */

/* Node @p n is gone for good: its ranks count as ended. The first time a
 * node is lost before the end of the job this is the job's failure. */
static void loomrun_head_node_gone(loomrun_loop_t *lp, int n, const char *fmt, ...)
{
    loomrun_head_t *h = lp->head;
    loomrun_job_t *job = lp->job;
    int lost = 0;
    char why[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    for (int i = 0; i < job->map.count[n]; ++i) {
        loomrun_rank_t *rk = &job->ranks[job->map.ranks[job->map.first[n] + i]];
        if (rk->alive) {
            rk->alive = 0;
            --lp->nalive;
            ++lost;
        }
    }
    loomrun_conn_close(&h->nodes[n].conn);
    h->nodes[n].state = LOOMRUN_D_GONE;
    if (lost > 0) {
        loomrun_fail(lp, 1, "host %s: %s (its %d rank(s) are lost)", job->map.names[n],
                     why, lost);
    }
    if (h->nodes[n].agent_pid > 0) {
        kill(-h->nodes[n].agent_pid, SIGTERM);
    }
    if (lp->nalive == 0 && lp->drain_deadline == 0) {
        lp->drain_deadline = loomrun_now() + LOOMRUN_DRAIN_S;
    }
}

static int loomrun_head_reaped(loomrun_loop_t *lp, pid_t pid, int wstatus)
{
    loomrun_head_t *h = lp->head;

    for (int n = 0; n < lp->job->map.nnodes; ++n) {
        if (h->nodes[n].agent_pid != pid) {
            continue;
        }
        h->nodes[n].agent_pid = 0;
        if (h->nodes[n].state == LOOMRUN_D_LAUNCHING) {
            char how[64];
            if (WIFSIGNALED(wstatus)) {
                snprintf(how, sizeof(how), "was killed by %s", loomrun_signame(WTERMSIG(wstatus)));
            } else {
                snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(wstatus));
            }
            loomrun_head_node_gone(lp, n, "could not start loomrun there: the launch agent "
                                   "(%s) %s before the daemon called back", h->agent, how);
        }
        return 1;
    }
    return 0;
}

/* ---- control messages ---------------------------------------------------------- */

/* A HELLO on a pending connection: NULL if it is a daemon of this job. */
static const char *loomrun_head_check_hello(loomrun_loop_t *lp, const loomrun_ctl_msg_t *m)
{
    loomrun_head_t *h = lp->head;
    static char why[256];
    uint8_t diff = 0;
    uint32_t n;

    if (m->type != LOOMRUN_CTL_HELLO) {
        snprintf(why, sizeof(why), "first message is %s, not HELLO",
                 loomrun_ctl_type_name(m->type));
        return why;
    }
    if (m->u[0] != LOOMRUN_CTL_MAGIC || m->u[1] != LOOMRUN_CTL_VERSION) {
        snprintf(why, sizeof(why), "not loomrun's protocol (magic %#x version %u)",
                 m->u[0], m->u[1]);
        return why;
    }
    for (size_t i = 0; i < LOOMRUN_SECRET_LEN; ++i) {   /* no early exit */
        diff |= (uint8_t)((i < m->blob_len ? m->blob[i] : 0) ^ h->secret[i]);
    }
    if (m->blob_len != LOOMRUN_SECRET_LEN || diff != 0) {
        return "wrong job secret";
    }
    n = m->u[2];
    if (n >= (uint32_t)lp->job->map.nnodes || (int)n == lp->job->my_node ||
        h->nodes[n].state != LOOMRUN_D_LAUNCHING) {
        snprintf(why, sizeof(why), "claims node %u, which is not waiting for a daemon", n);
        return why;
    }
    return NULL;
}

/* Node @p n's daemon is in: give it the job. */
static void loomrun_head_send_job(loomrun_loop_t *lp, int n)
{
    loomrun_job_t *job = lp->job;
    loomrun_conn_t *c = &lp->head->nodes[n].conn;
    unsigned flags = (job->opts.tag_output ? LOOMRUN_CTL_JOB_TAG : 0) |
                     (job->opts.quiet ? LOOMRUN_CTL_JOB_QUIET : 0) |
                     (job->opts.report_bindings ? LOOMRUN_CTL_JOB_REPORT_BINDINGS : 0) |
                     ((unsigned)job->opts.bind << LOOMRUN_CTL_JOB_BIND_SHIFT);
    char cwd[PATH_MAX], **exports = calloc((size_t)job->opts.nexports + 1, sizeof(char *));
    int nx = 0, argc = 0;

    if (getcwd(cwd, sizeof(cwd)) == NULL) {
        cwd[0] = '\0';
    }
    /* VAR without a value is exported with the head's value */
    for (int i = 0; exports != NULL && i < job->opts.nexports; ++i) {
        const char *x = job->opts.exports[i], *v = getenv(x);
        if (strchr(x, '=') != NULL) {
            exports[nx++] = strdup(x);
        } else if (v != NULL && asprintf(&exports[nx], "%s=%s", x, v) >= 0) {
            ++nx;
        }
    }
    while (job->opts.argv[argc] != NULL) {
        ++argc;
    }
    if (exports == NULL ||
        loomrun_conn_send(c, LOOMRUN_CTL_JOB, flags, (unsigned)job->opts.nranks, (unsigned)n,
                          job->nspace, cwd, job->host, job->map.names, job->map.nnodes,
                          job->opts.argv, argc, exports, nx, job->map.node_of,
                          job->opts.nranks) != 0) {
        loomrun_head_node_gone(lp, n, "cannot send the job to its daemon (%s)", c->peer);
    }
    loomrun_proc_free_env(exports);
}

static void loomrun_head_pending_msg(loomrun_loop_t *lp, int i)
{
    loomrun_head_t *h = lp->head;
    loomrun_conn_t *c = &h->pending[i];
    loomrun_ctl_msg_t m;
    const char *bad;
    char why[256];
    int rc = loomrun_conn_fill(c), n;

    if (rc == 0) {
        return;
    }
    rc = rc < 0 ? -2 : loomrun_conn_next(c, &m, why, sizeof(why));
    if (rc == 0) {
        return;
    }
    bad = rc == -2 ? "closed before HELLO" : rc < 0 ? why : loomrun_head_check_hello(lp, &m);
    if (bad != NULL) {
        fprintf(stderr, "loomrun: refused a control connection from %s: %s\n", c->peer, bad);
        loomrun_conn_close(c);
    } else {
        n = (int)m.u[2];
        h->nodes[n].conn = *c;     /* the connection moves, buffers and all */
        h->nodes[n].state = LOOMRUN_D_UP;
        c->fd = -1;
        memset(&c->rx, 0, sizeof(c->rx));
        memset(&c->tx, 0, sizeof(c->tx));
        if (lp->phase != LOOMRUN_RUNNING) {
            loomrun_conn_send(&h->nodes[n].conn, LOOMRUN_CTL_SHUTDOWN, 0u);
            loomrun_head_node_gone(lp, n, "called back after the job failed");
        } else {
            loomrun_head_send_job(lp, n);
            loomrun_head_flush_reqs(lp, n);
        }
    }
    h->pending[i] = h->pending[--h->npending];
}

/* A rank of node @p n, from a message; NULL (and the daemon dropped) if not. */
static loomrun_rank_t *loomrun_head_rank(loomrun_loop_t *lp, int n, uint32_t r)
{
    if (r >= (uint32_t)lp->job->opts.nranks || lp->job->ranks[r].node != n) {
        loomrun_head_node_gone(lp, n, "its daemon sent a message about rank %u, which "
                               "is not one of its ranks", r);
        return NULL;
    }
    return &lp->job->ranks[r];
}

static void loomrun_head_exit_msg(loomrun_loop_t *lp, int n, const loomrun_ctl_msg_t *m)
{
    loomrun_rank_t *rk = loomrun_head_rank(lp, n, m->u[0]);

    if (rk == NULL || !rk->alive) {
        return;
    }
    rk->pid     = (pid_t)m->u[1];
    rk->wstatus = (int)m->u[2];
    atomic_store(&rk->connected, m->u[3] != 0);
    atomic_store(&rk->finalized, m->u[4] != 0);
    rk->alive = 0;
    --lp->nalive;
    loomrun_classify_exit(lp, rk);
    if (lp->nalive == 0 && lp->drain_deadline == 0) {
        lp->drain_deadline = loomrun_now() + LOOMRUN_DRAIN_S;
    }
}

static void loomrun_head_node_msg(loomrun_loop_t *lp, int n, const loomrun_ctl_msg_t *m)
{
    loomrun_job_t *job = lp->job;
    loomrun_rank_t *rk;

    switch (m->type) {
    case LOOMRUN_CTL_STARTED:
        if ((rk = loomrun_head_rank(lp, n, m->u[0])) != NULL) {
            rk->pid = (pid_t)m->u[1];
        }
        break;
    case LOOMRUN_CTL_OUTPUT:
        if (loomrun_head_rank(lp, n, m->u[0]) != NULL) {
            job->emit(job, (int)m->u[0], m->u[1] == 2 ? 2 : 1,
                              (const char *)m->blob, m->blob_len, m->u[2] != 0);
        }
        break;
    case LOOMRUN_CTL_NOTE:
        if (loomrun_head_rank(lp, n, m->u[0]) != NULL) {
            loomrun_note_seen(lp, (int)m->u[0], (int)m->u[1]);
        }
        break;
    case LOOMRUN_CTL_EXIT:
        loomrun_head_exit_msg(lp, n, m);
        break;
    case LOOMRUN_CTL_ABORT:
        if ((rk = loomrun_head_rank(lp, n, m->u[0])) != NULL) {
            loomrun_abort_seen(lp, rk, job->map.names[n], (int)m->u[1], m->s[0]);
        }
        break;
    case LOOMRUN_CTL_FENCE:
        loomrun_head_fence_add(lp, n, m->s[0], (int)m->u[0], m->blob, m->blob_len, NULL);
        break;
    case LOOMRUN_CTL_DMDX_REQ:
    case LOOMRUN_CTL_DMDX_RESP:
        if (m->u[0] >= (uint32_t)job->map.nnodes || m->u[0] == (uint32_t)n) {
            /* a request names its origin; a response goes back to it */
            if (m->type == LOOMRUN_CTL_DMDX_RESP || m->u[0] != (uint32_t)n) {
                loomrun_head_node_gone(lp, n, "its daemon sent a direct modex message "
                                       "with a bad node %u", m->u[0]);
                break;
            }
        }
        if (m->type == LOOMRUN_CTL_DMDX_RESP) {
            loomrun_head_dmdx_answer(lp, (int)m->u[0], m->u[1], (int)m->u[2], m->blob,
                                     m->blob_len);
        } else if (m->u[2] < (uint32_t)job->opts.nranks) {
            loomrun_dmdx_t *d = calloc(1, sizeof(*d));
            if (d != NULL) {
                *d = (loomrun_dmdx_t){ .rank = (int)m->u[2], .origin = n, .id = m->u[1] };
                loomrun_head_dmdx_route(lp, d);
            }
        }
        break;
    case LOOMRUN_CTL_ERROR:
        loomrun_fail(lp, m->u[0] > 0 && m->u[0] < 256 ? (int)m->u[0] : 1, "host %s: %s",
                     job->map.names[n], m->s[0]);
        for (int i = 0; i < job->map.count[n]; ++i) {   /* never started */
            rk = &job->ranks[job->map.ranks[job->map.first[n] + i]];
            if (rk->alive && rk->pid == 0) {
                rk->alive = 0;
                --lp->nalive;
            }
        }
        break;
    default:
        loomrun_head_node_gone(lp, n, "its daemon sent an unexpected %s message",
                               loomrun_ctl_type_name(m->type));
    }
}

static void loomrun_head_node_read(loomrun_loop_t *lp, int n)
{
    loomrun_dnode_t *d = &lp->head->nodes[n];
    loomrun_ctl_msg_t m;
    char why[256] = "";
    int rc = loomrun_conn_fill(&d->conn), err = errno, k = 0;

    /* frames that arrived before an EOF still count */
    while (d->conn.fd >= 0 && (k = loomrun_conn_next(&d->conn, &m, why, sizeof(why))) == 1) {
        loomrun_head_node_msg(lp, n, &m);
    }
    if (d->conn.fd < 0) {
        return;
    }
    if (k < 0) {
        loomrun_head_node_gone(lp, n, "bad message from its daemon (%s): %s", d->conn.peer, why);
    } else if (rc < 0) {
        /* after SHUTDOWN this is the daemon's goodbye (its ranks are gone) */
        loomrun_head_node_gone(lp, n, "lost the connection to its daemon (%s)%s%s",
                               d->conn.peer, err ? ": " : "", err ? strerror(err) : "");
    }
}

/* ---- poll ----------------------------------------------------------------------- */

static int loomrun_head_slot(loomrun_head_t *h, struct pollfd *pfd, int n, int fd, short ev,
                             int kind, int idx, int base)
{
    pfd[n] = (struct pollfd){ .fd = fd, .events = ev };
    h->slot_kind[n - base] = kind;
    h->slot_idx[n - base]  = idx;
    return n + 1;
}

static int loomrun_head_poll_fill(loomrun_loop_t *lp, struct pollfd *pfd, int n)
{
    loomrun_head_t *h = lp->head;
    int base = n, r0 = lp->job->map.node_of[0];

    if (h->lfd >= 0) {
        n = loomrun_head_slot(h, pfd, n, h->lfd, POLLIN, LOOMRUN_SLOT_LISTEN, 0, base);
    }
    for (int i = 0; i < h->npending; ++i) {
        n = loomrun_head_slot(h, pfd, n, h->pending[i].fd, POLLIN, LOOMRUN_SLOT_PENDING, i, base);
    }
    for (int k = 0; k < lp->job->map.nnodes; ++k) {
        loomrun_conn_t *c = &h->nodes[k].conn;
        if (c->fd >= 0) {
            short ev = (short)(POLLIN | (c->tx.len > c->tx_off ? POLLOUT : 0));
            n = loomrun_head_slot(h, pfd, n, c->fd, ev, LOOMRUN_SLOT_NODE, k, base);
        }
    }
    /* stdin for rank 0's daemon, while it keeps up */
    if (h->stdin_open && h->nodes[r0].conn.fd >= 0 &&
        h->nodes[r0].conn.tx.len - h->nodes[r0].conn.tx_off < LOOMRUN_STDIN_BACKLOG) {
        n = loomrun_head_slot(h, pfd, n, 0, POLLIN, LOOMRUN_SLOT_STDIN, r0, base);
    }
    return n;
}

static void loomrun_head_accept(loomrun_loop_t *lp)
{
    loomrun_head_t *h = lp->head;
    loomrun_conn_t c;

    while (loomrun_net_accept(h->lfd, &c) == 0) {
        if (h->npending == LOOMRUN_PENDING_MAX) {
            fprintf(stderr, "loomrun: refused a control connection from %s: %d others "
                    "have not said HELLO yet\n", c.peer, LOOMRUN_PENDING_MAX);
            loomrun_conn_close(&c);
            continue;
        }
        c.deadline = loomrun_now() + LOOMRUN_CTL_HELLO_TIMEOUT_S;
        h->pending[h->npending++] = c;
    }
}

static void loomrun_head_stdin(loomrun_loop_t *lp, int n)
{
    loomrun_head_t *h = lp->head;
    char buf[65536];
    ssize_t got = read(0, buf, sizeof(buf));

    if (got < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (got <= 0) {
        h->stdin_open = 0;   /* EOF (or an error: the same for rank 0) */
        got = 0;
    }
    loomrun_conn_send(&h->nodes[n].conn, LOOMRUN_CTL_STDIN, (const void *)buf, (size_t)got);
}

static void loomrun_head_poll_handle(loomrun_loop_t *lp, struct pollfd *pfd, int from, int to)
{
    loomrun_head_t *h = lp->head;
    int npending = h->npending;

    /* pending connections are handled last to first: a finished one is
     * replaced by the last, whose slot has been handled already */
    for (int i = to - 1; i >= from; --i) {
        int kind = h->slot_kind[i - from], idx = h->slot_idx[i - from];

        if (pfd[i].revents == 0) {
            continue;
        }
        if (kind == LOOMRUN_SLOT_LISTEN) {
            loomrun_head_accept(lp);
        } else if (kind == LOOMRUN_SLOT_PENDING && idx < npending) {
            loomrun_head_pending_msg(lp, idx);
        } else if (kind == LOOMRUN_SLOT_NODE && h->nodes[idx].conn.fd == pfd[i].fd) {
            if ((pfd[i].revents & POLLOUT) && loomrun_conn_flush(&h->nodes[idx].conn) != 0) {
                loomrun_head_node_gone(lp, idx, "lost the connection to its daemon (%s): %s",
                                       h->nodes[idx].conn.peer, strerror(errno));
                continue;
            }
            if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                loomrun_head_node_read(lp, idx);
            }
        } else if (kind == LOOMRUN_SLOT_STDIN && h->stdin_open) {
            loomrun_head_stdin(lp, idx);
        }
    }
}

/* ---- time, signals, end ------------------------------------------------------------ */

static double loomrun_min_deadline(double a, double b)
{
    return a == 0 ? b : (b == 0 ? a : LOOM_MIN(a, b));
}

static double loomrun_head_tick(loomrun_loop_t *lp, double now)
{
    loomrun_head_t *h = lp->head;
    loomrun_job_t *job = lp->job;
    double next = 0;
    int waiting = 0;

    for (int i = h->npending - 1; i >= 0; --i) {
        if (now >= h->pending[i].deadline) {
            fprintf(stderr, "loomrun: refused a control connection from %s: no HELLO "
                    "within %g s\n", h->pending[i].peer, LOOMRUN_CTL_HELLO_TIMEOUT_S);
            loomrun_conn_close(&h->pending[i]);
            h->pending[i] = h->pending[--h->npending];
        } else {
            next = loomrun_min_deadline(next, h->pending[i].deadline);
        }
    }
    for (int n = 0; n < job->map.nnodes; ++n) {
        if (h->nodes[n].state != LOOMRUN_D_LAUNCHING) {
            continue;
        }
        if (now >= h->launch_deadline) {
            loomrun_head_node_gone(lp, n, "its daemon did not call back within %g s "
                                   "(launch agent: %s; this host's addresses %s, port %d)",
                                   job->opts.launch_timeout, h->agent, h->addrs, h->port);
        } else {
            waiting = 1;
        }
    }
    if (waiting) {
        next = loomrun_min_deadline(next, h->launch_deadline);
    }
    if (lp->nalive == 0 && !h->shutdown_sent) {
        h->shutdown_sent = 1;
        h->shutdown_deadline = now + LOOMRUN_SHUTDOWN_S;
        for (int n = 0; n < job->map.nnodes; ++n) {
            if (h->nodes[n].conn.fd >= 0) {
                loomrun_conn_send(&h->nodes[n].conn, LOOMRUN_CTL_SHUTDOWN, lp->failed ? 0u : 1u);
            }
        }
    }
    if (h->shutdown_sent) {
        next = loomrun_min_deadline(next, h->shutdown_deadline);
    }
    return next;
}

static int loomrun_head_busy(const loomrun_loop_t *lp)
{
    const loomrun_head_t *h = lp->head;

    if (!h->shutdown_sent) {
        return 1;
    }
    if (loomrun_now() >= h->shutdown_deadline) {
        return 0;
    }
    for (int n = 0; n < lp->job->map.nnodes; ++n) {
        if (h->nodes[n].conn.fd >= 0) {
            return 1;
        }
    }
    return 0;
}

static void loomrun_head_signal(loomrun_loop_t *lp, int sig)
{
    loomrun_head_t *h = lp->head;

    for (int n = 0; n < lp->job->map.nnodes; ++n) {
        if (h->nodes[n].conn.fd >= 0) {
            loomrun_conn_send(&h->nodes[n].conn, LOOMRUN_CTL_SIGNAL, (unsigned)sig);
        }
    }
}

static void loomrun_head_stop(loomrun_loop_t *lp)
{
    loomrun_head_t *h = lp->head;
    double deadline = loomrun_now() + 2.0;
    int left = 0;

    for (int n = 0; n < lp->job->map.nnodes; ++n) {
        if (h->nodes[n].conn.fd >= 0 && !lp->job->opts.quiet) {
            fprintf(stderr, "loomrun: the daemon on host %s did not finish within %g s of "
                    "the job's end; leaving it\n", lp->job->map.names[n], LOOMRUN_SHUTDOWN_S);
        }
        loomrun_conn_close(&h->nodes[n].conn);
        left += h->nodes[n].agent_pid > 0;
    }
    for (int i = 0; i < h->npending; ++i) {
        loomrun_conn_close(&h->pending[i]);
    }
    if (h->lfd >= 0) {
        close(h->lfd);
    }
    /* agents (ssh) end when their daemon does; give them a moment, then go */
    while (left > 0 && loomrun_now() < deadline) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid > 0) {
            for (int n = 0; n < lp->job->map.nnodes; ++n) {
                if (h->nodes[n].agent_pid == pid) {
                    h->nodes[n].agent_pid = 0;
                    --left;
                }
            }
        } else {
            usleep(10000);
        }
    }
    for (int n = 0; n < lp->job->map.nnodes; ++n) {
        if (h->nodes[n].agent_pid > 0) {
            kill(-h->nodes[n].agent_pid, SIGTERM);
        }
    }
    loomrun_head_free_routes(h, lp->job->map.nnodes);
    free(h->nodes);
    free(h);
    lp->head = NULL;
}

/* ---- the role ------------------------------------------------------------------- */

static void loomrun_head_role_stop(loomrun_loop_t *lp)
{
    if (lp->head != NULL) {   /* NULL if loomrun_head_start ran out of memory */
        loomrun_head_stop(lp);
    }
}

/* Aborts are judged as a single host judges them; the rest is routing. */
static void loomrun_head_role_event(loomrun_loop_t *lp, loomrun_event_t *ev)
{
    if (ev->type == LOOMRUN_EVENT_ABORT) {
        loomrun_single_event(lp, ev);
    } else {
        loomrun_head_event(lp, ev);
    }
}

static void loomrun_head_rank_noted(loomrun_loop_t *lp, int rank, int peer)
{
    (void)lp;
    (void)rank;
    (void)peer;
}

/* The head's timers, and the hang reports' deadline: the earlier. */
static double loomrun_head_role_tick(loomrun_loop_t *lp, double now)
{
    double extra = loomrun_hang_deadline(lp), tick = loomrun_head_tick(lp, now);

    return (extra == 0 || (tick > 0 && tick < extra)) ? tick : extra;
}

static int loomrun_head_may_end(const loomrun_loop_t *lp)
{
    return !loomrun_head_busy(lp);
}

const loomrun_role_ops_t loomrun_role_head = {
    .start          = loomrun_head_start,
    .stop           = loomrun_head_role_stop,
    .report_failure = loomrun_single_report_failure,
    .report_kill    = loomrun_single_report_kill,
    .on_signal      = loomrun_single_on_signal,
    .signal_remote  = loomrun_head_signal,
    .event          = loomrun_head_role_event,
    .reaped         = loomrun_head_reaped,
    .rank_ended     = loomrun_classify_exit,
    .rank_noted     = loomrun_head_rank_noted,
    .tick           = loomrun_head_role_tick,
    .poll_fill      = loomrun_head_poll_fill,
    .poll_handle    = loomrun_head_poll_handle,
    .timeout_begin  = loomrun_hang_timeout_begin,
    .timeout_check  = loomrun_hang_check,
    .may_end        = loomrun_head_may_end,
    .emit           = loomrun_hang_emit,
};
