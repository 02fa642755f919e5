/*
 * loomrun.c: start a loom job on this node.
 *
 *     loomrun -n N [options] prog [args]
 *
 * Hosts a PMIx server (loomrun_pmix.c), forks N ranks (loomrun_proc.c) and
 * runs one event loop until every rank is gone. The loop polls a signalfd
 * (SIGCHLD, and SIGINT/SIGTERM/SIGHUP/SIGQUIT to forward), the pipe on
 * which PMIx upcalls report aborts, and the ranks' output pipes.
 *
 * Failure policy (what held in failure-injection runs against PMIx 4.2.2,
 * see ../shared/notes/pmix.md): the first abnormal end (a signal, a non-zero
 * exit, an exit without finalizing, an abort, the timeout) is reported once,
 * naming the rank, its pid and host and what happened; 0.25 s later the
 * others get SIGTERM, 2 s after that SIGKILL. Deaths are seen with waitpid,
 * not with the library's late lost-connection event. PMIx_server_finalize
 * runs only after a clean job; the private tmpdir and the job's /dev/shm
 * segments are removed on every way out.
 */
#include "loomrun_int.h"

#include <loom.h>
#include "compiler_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOOMRUN_EXIT_USAGE    2
#define LOOMRUN_EXIT_NOTFOUND 127
#define LOOMRUN_EXIT_TIMEOUT  124
#define LOOMRUN_MAX_RANKS     4096

typedef enum loomrun_phase {
    LOOMRUN_RUNNING,   /* no failure yet */
    LOOMRUN_GRACE,     /* failure reported; SIGTERM at the deadline */
    LOOMRUN_TERM,      /* SIGTERM sent; SIGKILL at the deadline */
    LOOMRUN_KILL,      /* SIGKILL sent; waiting for the last reaps */
} loomrun_phase_t;

typedef struct loomrun_loop {
    loomrun_job_t   *job;
    int              sig_fd;
    int              nalive;
    loomrun_phase_t  phase;
    double           phase_deadline;   /* 0 = none */
    double           job_deadline;     /* --timeout, 0 = none */
    double           drain_deadline;   /* set once every rank is reaped */
    int              failed;           /* the one failure message was printed */
    int              exit_status;
    int              signals_seen;     /* SIGINT/SIGTERM... received */
} loomrun_loop_t;

static double loomrun_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *loomrun_signame(int sig)
{
    static char buf[32];
    const char *abbrev = sigabbrev_np(sig);

    snprintf(buf, sizeof(buf), "SIG%s", abbrev ? abbrev : "?");
    return buf;
}

/* ---- options ---------------------------------------------------------------- */

static void loomrun_usage(FILE *out)
{
    fprintf(out,
"usage: loomrun -n N [options] prog [args...]\n"
"Start N ranks of prog on this node, hosting the PMIx server they connect to.\n"
"\n"
"  -n, -np N          number of ranks (1..%d)\n"
"  -x VAR[=value]     export VAR (with this value, or loomrun's own) to every rank\n"
"      --tag-output   prefix every output line with \"[rank] \"\n"
"      --timeout S    stop the job after S seconds (exit status %d)\n"
"  -q, --quiet        no notices from loomrun (failures are still reported)\n"
"  -h, --help         this help\n"
"  -V, --version      loomrun's version\n"
"\n"
"stdin goes to rank 0; stdout and stderr of every rank come back line by line.\n"
"Exit status: 0 when every rank exits 0; otherwise the first failing rank's\n"
"status (128+signal if it was killed, its code if it aborted, 1 if it exited\n"
"without finalizing), 128+signal if loomrun was interrupted, %d on timeout.\n"
"On the first failure the job is torn down: SIGTERM, then SIGKILL 2 s later.\n"
"Ranks get LOOM_OVERSUBSCRIBED=1 when they outnumber the cores (unless set).\n",
            LOOMRUN_MAX_RANKS, LOOMRUN_EXIT_TIMEOUT, LOOMRUN_EXIT_TIMEOUT);
}

static int loomrun_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int loomrun_usage_error(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "loomrun: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(loomrun --help shows the options)\n");
    return LOOMRUN_EXIT_USAGE;
}

/* The value of option argv[*i] (inline "--opt=v" or the next word). */
static const char *loomrun_optval(int argc, char **argv, int *i, const char *inline_val)
{
    if (inline_val != NULL) {
        return inline_val;
    }
    if (*i + 1 >= argc) {
        return NULL;
    }
    return argv[++*i];
}

static int loomrun_parse_count(const char *v, int *n_p)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n < 1 || n > LOOMRUN_MAX_RANKS) {
        return -1;
    }
    *n_p = (int)n;
    return 0;
}

static int loomrun_valid_export(const char *x)
{
    size_t len = strcspn(x, "=");

    if (len == 0 || !(x[0] == '_' || (x[0] >= 'A' && x[0] <= 'Z') ||
                      (x[0] >= 'a' && x[0] <= 'z'))) {
        return 0;
    }
    for (size_t i = 1; i < len; ++i) {
        char c = x[i];
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9'))) {
            return 0;
        }
    }
    return 1;
}

/* One option at argv[*i]; returns -1 to go on, or an exit status. */
static int loomrun_parse_one(loomrun_opts_t *o, int argc, char **argv, int *i)
{
    char *arg = argv[*i], *eq = NULL, name[64];
    const char *v;

    snprintf(name, sizeof(name), "%s", arg);
    if (strncmp(arg, "--", 2) == 0 && (eq = strchr(arg, '=')) != NULL) {
        name[LOOM_MIN((size_t)(eq - arg), sizeof(name) - 1)] = '\0';
        ++eq;
    }
    if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
        loomrun_usage(stdout);
        return 0;
    }
    if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
        printf("loomrun (loom) %s\n", LOOM_VERSION_STRING);
        return 0;
    }
    if (!strcmp(name, "--tag-output")) {
        o->tag_output = 1;
    } else if (!strcmp(name, "-q") || !strcmp(name, "--quiet")) {
        o->quiet = 1;
    } else if (!strcmp(name, "-n") || !strcmp(name, "-np") || !strcmp(name, "--np") ||
               !strcmp(name, "--n")) {
        v = loomrun_optval(argc, argv, i, eq);
        if (v == NULL || loomrun_parse_count(v, &o->nranks) != 0) {
            return loomrun_usage_error("-n needs a number of ranks from 1 to 4096, "
                                       "not '%s'", v ? v : "");
        }
    } else if (!strcmp(name, "-x")) {
        v = loomrun_optval(argc, argv, i, NULL);
        if (v == NULL || !loomrun_valid_export(v)) {
            return loomrun_usage_error("-x needs VAR or VAR=value (VAR a variable "
                                       "name), not '%s'", v ? v : "");
        }
        o->exports[o->nexports++] = (char *)v;
    } else if (!strcmp(name, "--timeout")) {
        char *end;
        v = loomrun_optval(argc, argv, i, eq);
        o->timeout = v ? strtod(v, &end) : -1;
        if (v == NULL || end == v || *end != '\0' || !(o->timeout > 0) ||
            !isfinite(o->timeout)) {
            return loomrun_usage_error("--timeout needs a positive number of seconds, "
                                       "not '%s'", v ? v : "");
        }
    } else {
        return loomrun_usage_error("unknown option '%s'", arg);
    }
    return -1;
}

/* Parse the command line; returns -1 to run, or the status to exit with. */
static int loomrun_parse_args(loomrun_opts_t *o, int argc, char **argv)
{
    int i, rc;

    memset(o, 0, sizeof(*o));
    o->exports = calloc((size_t)argc, sizeof(char *));
    if (o->exports == NULL) {
        fprintf(stderr, "loomrun: out of memory\n");
        return 1;
    }
    for (i = 1; i < argc && argv[i][0] == '-'; ++i) {
        if (!strcmp(argv[i], "--")) {
            ++i;
            break;
        }
        if ((rc = loomrun_parse_one(o, argc, argv, &i)) >= 0) {
            return rc;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "loomrun: no program to run\n");
        loomrun_usage(stderr);
        return LOOMRUN_EXIT_USAGE;
    }
    if (o->nranks == 0) {
        return loomrun_usage_error("how many ranks? give -n N (before %s)", argv[i]);
    }
    o->argv = &argv[i];
    return -1;
}

/* ---- failures and teardown ---------------------------------------------------- */

/* Report the first abnormal end (once) and start the teardown. */
static void loomrun_fail(loomrun_loop_t *lp, int exit_status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void loomrun_fail(loomrun_loop_t *lp, int exit_status, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;

    if (lp->failed) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    lp->failed      = 1;
    lp->exit_status = exit_status;
    if (lp->nalive > 0) {
        fprintf(stderr, "loomrun: %s; stopping the job (%d of %d ranks still running)\n",
                msg, lp->nalive, lp->job->opts.nranks);
    } else {
        fprintf(stderr, "loomrun: %s\n", msg);
    }
    fflush(stderr);
    if (lp->phase == LOOMRUN_RUNNING) {
        lp->phase          = LOOMRUN_GRACE;
        lp->phase_deadline = loomrun_now() + LOOMRUN_GRACE_S;
    }
}

/* Advance the teardown when its deadline has passed. */
static void loomrun_teardown_step(loomrun_loop_t *lp, double now)
{
    if (lp->phase_deadline == 0 || now < lp->phase_deadline) {
        return;
    }
    if (lp->phase == LOOMRUN_GRACE) {
        loomrun_proc_signal_all(lp->job, SIGTERM);
        lp->phase          = LOOMRUN_TERM;
        lp->phase_deadline = now + LOOMRUN_KILL_AFTER_S;
    } else if (lp->phase == LOOMRUN_TERM) {
        if (lp->nalive > 0 && !lp->job->opts.quiet) {
            fprintf(stderr, "loomrun: %d rank(s) still running 2 s after SIGTERM: "
                    "sending SIGKILL\n", lp->nalive);
        }
        loomrun_proc_signal_all(lp->job, SIGKILL);
        lp->phase          = LOOMRUN_KILL;
        lp->phase_deadline = 0;
    }
}

static void loomrun_timeout(loomrun_loop_t *lp)
{
    loomrun_job_t *job = lp->job;
    char list[1024] = "";
    size_t len = 0;
    int shown = 0;

    for (int r = 0; r < job->opts.nranks && len < sizeof(list) - 64; ++r) {
        if (!job->ranks[r].alive) {
            continue;
        }
        if (shown++ == 8) {
            len += (size_t)snprintf(list + len, sizeof(list) - len, ", ...");
            break;
        }
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%srank %d (pid %d)",
                                shown > 1 ? ", " : "", r, (int)job->ranks[r].pid);
    }
    loomrun_fail(lp, LOOMRUN_EXIT_TIMEOUT, "the job exceeded --timeout %g s on host %s; "
                 "still running: %s", job->opts.timeout, job->host, list);
    job->opts.timeout = 0;
    lp->job_deadline  = 0;
}

/* ---- events -------------------------------------------------------------------- */

static void loomrun_read_events(loomrun_loop_t *lp)
{
    loomrun_job_t *job = lp->job;
    loomrun_event_t ev;

    while (read(job->event_rfd, &ev, sizeof(ev)) == (ssize_t)sizeof(ev)) {
        if (ev.type == LOOMRUN_EVENT_ABORT) {
            int st = ev.status & 0xff;
            pid_t pid = (ev.rank >= 0 && ev.rank < job->opts.nranks) ?
                        job->ranks[ev.rank].pid : -1;
            /* an abort is a failure even with status 0 */
            loomrun_fail(lp, st ? st : 1, "rank %d (pid %d on %s) aborted the job "
                         "with status %d: %s", ev.rank, (int)pid, job->host, ev.status,
                         ev.msg[0] ? ev.msg : "(no message)");
        }
    }
}

/* One reaped rank: is its end abnormal? */
static void loomrun_classify_exit(loomrun_loop_t *lp, loomrun_rank_t *rk)
{
    const char *host = lp->job->host;
    int st = rk->wstatus, connected, finalized;

    connected = atomic_load_explicit(&rk->connected, memory_order_acquire);
    finalized = atomic_load_explicit(&rk->finalized, memory_order_acquire);
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        loomrun_fail(lp, 128 + sig, "rank %d (pid %d on %s) was killed by signal %d "
                     "(%s: %s)%s%s", rk->rank, (int)rk->pid, host, sig,
                     loomrun_signame(sig), strsignal(sig),
                     WCOREDUMP(st) ? ", core dumped" : "",
                     connected ? "" : ", before it connected to loomrun (PMIx_Init)");
    } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        loomrun_fail(lp, WEXITSTATUS(st), "rank %d (pid %d on %s) exited with status %d%s",
                     rk->rank, (int)rk->pid, host, WEXITSTATUS(st),
                     WEXITSTATUS(st) == 127 && !connected ? " (could it be executed?)" : "");
    } else if (connected && !finalized) {
        loomrun_fail(lp, 1, "rank %d (pid %d on %s) exited with status 0 without "
                     "finalizing: it connected (PMIx_Init) but never called "
                     "loom_finalize/PMIx_Finalize", rk->rank, (int)rk->pid, host);
    }
}

static void loomrun_reap(loomrun_loop_t *lp)
{
    loomrun_job_t *job = lp->job;
    pid_t pid;
    int st;

    /* aborts reported before the aborting rank could exit are handled first */
    loomrun_read_events(lp);
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        for (int r = 0; r < job->opts.nranks; ++r) {
            loomrun_rank_t *rk = &job->ranks[r];
            if (rk->alive && rk->pid == pid) {
                rk->alive   = 0;
                rk->wstatus = st;
                --lp->nalive;
                loomrun_classify_exit(lp, rk);
                break;
            }
        }
    }
    if (lp->nalive == 0 && lp->drain_deadline == 0) {
        lp->drain_deadline = loomrun_now() + LOOMRUN_DRAIN_S;
    }
}

static void loomrun_on_signal(loomrun_loop_t *lp, int sig)
{
    ++lp->signals_seen;
    if (lp->signals_seen > 1) {
        /* asked again: no more patience */
        loomrun_proc_signal_all(lp->job, SIGKILL);
        lp->phase          = LOOMRUN_KILL;
        lp->phase_deadline = 0;
        return;
    }
    loomrun_proc_signal_all(lp->job, sig);
    loomrun_fail(lp, 128 + sig, "received %s: forwarded it to the ranks", loomrun_signame(sig));
}

static void loomrun_read_signals(loomrun_loop_t *lp)
{
    struct signalfd_siginfo si[16];
    ssize_t n;

    while ((n = read(lp->sig_fd, si, sizeof(si))) > 0) {
        for (size_t i = 0; i < (size_t)n / sizeof(si[0]); ++i) {
            if (si[i].ssi_signo == SIGCHLD) {
                loomrun_reap(lp);
            } else {
                loomrun_on_signal(lp, (int)si[i].ssi_signo);
            }
        }
    }
}

/* ---- the loop ------------------------------------------------------------------ */

static int loomrun_poll_timeout(const loomrun_loop_t *lp, double now)
{
    double next = 0, ms;
    const double deadlines[3] = { lp->phase_deadline, lp->job_deadline, lp->drain_deadline };

    for (int i = 0; i < 3; ++i) {
        if (deadlines[i] > 0 && (next == 0 || deadlines[i] < next)) {
            next = deadlines[i];
        }
    }
    if (next == 0) {
        return -1;
    }
    ms = ceil((next - now) * 1e3);
    return ms < 0 ? 0 : (ms > 60000 ? 60000 : (int)ms);
}

/* Fill @p pfd with the loop's fds; returns the count. */
static int loomrun_poll_fill(loomrun_loop_t *lp, struct pollfd *pfd, int *open_streams_p)
{
    loomrun_job_t *job = lp->job;
    int n = 0, open_streams = 0;

    pfd[n++] = (struct pollfd){ .fd = job->event_rfd, .events = POLLIN };
    pfd[n++] = (struct pollfd){ .fd = lp->sig_fd, .events = POLLIN };
    for (int r = 0; r < job->opts.nranks; ++r) {
        for (int w = 0; w < 2; ++w) {
            int fd = job->ranks[r].out[w].fd;
            pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
            open_streams += fd >= 0;   /* poll ignores negative fds */
        }
    }
    *open_streams_p = open_streams;
    return n;
}

static void loomrun_loop_run(loomrun_loop_t *lp)
{
    loomrun_job_t *job = lp->job;
    struct pollfd *pfd = calloc(2 + 2 * (size_t)job->opts.nranks, sizeof(*pfd));
    int open_streams = 1;

    while (pfd != NULL && (lp->nalive > 0 || open_streams > 0)) {
        int n = loomrun_poll_fill(lp, pfd, &open_streams), rc;
        double now = loomrun_now();

        if (lp->nalive == 0 && (open_streams == 0 || now >= lp->drain_deadline)) {
            break;
        }
        rc = poll(pfd, (nfds_t)n, loomrun_poll_timeout(lp, now));
        if (rc < 0 && errno != EINTR) {
            fprintf(stderr, "loomrun: poll: %s\n", strerror(errno));
            break;
        }
        if (rc > 0 && pfd[0].revents) {
            loomrun_read_events(lp);
        }
        if (rc > 0 && pfd[1].revents) {
            loomrun_read_signals(lp);
        }
        for (int i = 2; rc > 0 && i < n; ++i) {
            if (pfd[i].revents && pfd[i].fd >= 0) {
                loomrun_proc_stream_read(job, &job->ranks[(i - 2) / 2], (i - 2) % 2);
            }
        }
        now = loomrun_now();
        if (lp->job_deadline > 0 && now >= lp->job_deadline && lp->nalive > 0) {
            loomrun_timeout(lp);
        }
        loomrun_teardown_step(lp, now);
    }
    /* what a grandchild still holds open is not waited for: flush and close */
    for (int r = 0; r < job->opts.nranks; ++r) {
        loomrun_proc_stream_close(job, &job->ranks[r], 0);
        loomrun_proc_stream_close(job, &job->ranks[r], 1);
    }
    free(pfd);
}

/* ---- setup ------------------------------------------------------------------- */

/* Make sure fds 0-2 exist so no pipe of ours lands on them. */
static void loomrun_std_fds(void)
{
    for (int fd = 0; fd < 3; ++fd) {
        if (fcntl(fd, F_GETFD) < 0) {
            int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (nfd >= 0 && nfd != fd) {
                dup2(nfd, fd);
                close(nfd);
            }
        }
    }
}

static int loomrun_signals_init(loomrun_loop_t *lp)
{
    sigset_t set;

    /* the PMIx thread writes to sockets of dead clients */
    signal(SIGPIPE, SIG_IGN);
    /* blocked before PMIx starts its thread, so that thread inherits it and
     * every one of these reaches the signalfd */
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
        (lp->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        fprintf(stderr, "loomrun: signalfd: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

static int loomrun_job_init(loomrun_job_t *job)
{
    const char *tmp = getenv("TMPDIR");
    int fds[2];

    gethostname(job->host, sizeof(job->host) - 1);
    snprintf(job->nspace, sizeof(job->nspace), "loomrun.%.32s.%ld.%lx", job->host,
             (long)getpid(), (unsigned long)time(NULL) & 0xffffff);
    snprintf(job->tmpdir, sizeof(job->tmpdir), "%s/loomrun.XXXXXX",
             (tmp != NULL && *tmp != '\0') ? tmp : "/tmp");
    if (mkdtemp(job->tmpdir) == NULL) {   /* mode 0700 */
        fprintf(stderr, "loomrun: cannot create a private directory %s: %s\n",
                job->tmpdir, strerror(errno));
        job->tmpdir[0] = '\0';
        return -1;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        fprintf(stderr, "loomrun: pipe: %s\n", strerror(errno));
        return -1;
    }
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    job->event_rfd = fds[0];
    job->event_wfd = fds[1];
    job->ranks = calloc((size_t)job->opts.nranks, sizeof(*job->ranks));
    if (job->ranks == NULL) {
        fprintf(stderr, "loomrun: out of memory for %d ranks\n", job->opts.nranks);
        return -1;
    }
    for (int r = 0; r < job->opts.nranks; ++r) {
        job->ranks[r].rank = r;
        job->ranks[r].out[0].fd = job->ranks[r].out[1].fd = -1;
    }
    return 0;
}

/* Register and fork every rank. */
static int loomrun_launch(loomrun_loop_t *lp, const char *path)
{
    loomrun_job_t *job = lp->job;

    for (int r = 0; r < job->opts.nranks; ++r) {
        char **env = loomrun_proc_copy_env(job->env);
        int rc = env ? loomrun_pmix_setup_rank(job, r, &env) : -1;

        if (rc == 0) {
            rc = loomrun_proc_spawn(job, r, path, env);
        }
        loomrun_proc_free_env(env);
        if (rc != 0) {
            return -1;
        }
        ++lp->nalive;
    }
    return 0;
}

int main(int argc, char **argv)
{
    loomrun_job_t job;
    loomrun_loop_t lp;
    char *path;
    int rc;

    memset(&job, 0, sizeof(job));
    memset(&lp, 0, sizeof(lp));
    lp.job = &job;
    job.event_rfd = job.event_wfd = -1;
    rc = loomrun_parse_args(&job.opts, argc, argv);
    if (rc >= 0) {
        free(job.opts.exports);
        return rc;
    }
    path = loomrun_proc_resolve(job.opts.argv[0]);
    if (path == NULL) {
        fprintf(stderr, "loomrun: %s: no such executable program%s\n", job.opts.argv[0],
                strchr(job.opts.argv[0], '/') ? "" : " in PATH");
        free(job.opts.exports);
        return LOOMRUN_EXIT_NOTFOUND;
    }
    loomrun_std_fds();
    if (loomrun_signals_init(&lp) != 0 || loomrun_job_init(&job) != 0 ||
        loomrun_proc_build_env(&job) != 0) {
        lp.failed = 1;
        lp.exit_status = 1;
        goto out_cleanup;
    }
    /* The server's hwloc discovery of PCI devices reads the whole PCI name
     * database: useless for a single-node job, and it made each start take
     * seconds under AddressSanitizer. Only loomrun's own process is affected
     * (the ranks' environment is already built); a user setting wins. */
    setenv("HWLOC_COMPONENTS", "-pci", 0);
    if (loomrun_pmix_init(&job) != 0) {
        lp.failed = 1;
        lp.exit_status = 1;
        goto out_cleanup;
    }
    if (loomrun_pmix_register_job(&job) != 0 || loomrun_launch(&lp, path) != 0) {
        /* the ranks already started must go: report and tear down */
        loomrun_fail(&lp, 1, "the job could not be started");
    }
    if (job.opts.timeout > 0) {
        lp.job_deadline = loomrun_now() + job.opts.timeout;
    }
    loomrun_loop_run(&lp);
    if (!lp.failed) {
        loomrun_pmix_finalize(&job);
    }
out_cleanup:
    loomrun_proc_remove_shm(&job);
    loomrun_proc_remove_tree(job.tmpdir);
    free(path);
    fflush(stdout);
    fflush(stderr);
    if (lp.failed) {
        /* the PMIx thread may still be busy with dead clients: leave without
         * running the library's destructors (they crashed in 4.2.2) */
        _exit(lp.exit_status);
    }
    loomrun_proc_free_env(job.env);
    free(job.ranks);
    free(job.opts.exports);
    return 0;
}
