/*
 * loomrun_loop.c: the event loop, shared by a single-host loomrun, the head
 * of a multi-host job and its daemons.
 *
 * The loop polls a signalfd (SIGCHLD, and SIGINT/SIGTERM/SIGHUP/SIGQUIT to
 * forward), the pipe on which PMIx upcalls report, the ranks' output pipes
 * and the role's fds (a head's or a daemon's control connections). Where
 * the roles differ it calls through lp->role (loomrun_role_ops_t): it
 * never names the head, the daemon or the hang reports, which sit above it.
 *
 * Failure policy (what held in failure-injection runs against PMIx 4.2.2,
 * see ../shared/notes/pmix.md): the first abnormal end (a signal, a non-zero
 * exit, an exit without finalizing, an abort, the timeout, a lost daemon) is
 * reported once by the head, naming the rank, its pid and host and what
 * happened; "first" in cause, not in the order ends are seen (see "Which
 * rank caused it" below); 0.25 s later every rank of the job gets SIGTERM, 2 s after that
 * SIGKILL. Deaths are seen with waitpid, not with the library's late
 * lost-connection event; a daemon reports its ranks' deaths to the head the
 * moment it reaps them. A daemon decides nothing itself: it signals its
 * ranks when the head says so, or kills them when the head is gone.
 */
#include "loomrun_int.h"
#include "compiler_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOOMRUN_EXIT_TIMEOUT 124

/* ---- failures and teardown ---------------------------------------------------- */

static void loomrun_cause_flush(loomrun_loop_t *lp);

void loomrun_fail(loomrun_loop_t *lp, int exit_status, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;

    if (lp->cause.set) {
        loomrun_cause_flush(lp);   /* a rank's failure held a moment came first */
    }
    if (lp->failed) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    lp->failed      = 1;
    lp->exit_status = exit_status;
    lp->role->report_failure(lp, msg);
    fflush(stderr);
    if (lp->phase == LOOMRUN_RUNNING) {
        lp->phase          = LOOMRUN_GRACE;
        lp->phase_deadline = loomrun_now() + LOOMRUN_GRACE_S;
    }
}

/*
 * Which rank caused it. One death often brings others: over tcp a survivor
 * sees the connection close and aborts ("a peer process failed") before
 * loomrun has reaped the dead rank; a death inside a PMIx fence fails the
 * fence at every survivor, which exits 1, and the dead rank's socket closes
 * before the kernel reports its exit, so on a loaded machine a survivor's
 * exit is often reaped first. Two defences:
 *  - the ranks say so (loomrun_note.c): a rank that saw a peer fail wrote a
 *    note before its own end, and that end is a consequence;
 *  - a rank's failure is first held as the job's "cause" and a better one
 *    may replace it: a death by a signal is reported at once; an abort or
 *    a failed exit is held LOOMRUN_CAUSE_WAIT_S for a death by a signal
 *    (for ranks that cannot note: other PMIx programs); a consequence is
 *    held up to LOOMRUN_CONSEQ_WAIT_S for the failure it follows. Between
 *    failures of the same weight the first wins. Every end is in by then
 *    when no rank is left alive, so nothing is held after that.
 * The first failure a better one replaced, or the first that came after
 * it as a consequence (or an abort), is named after it in the message. The
 * end of a rank that aborted is its abort's doing.
 */
static int loomrun_cause_weight(loomrun_cause_class_t klass, int consequence)
{
    return consequence ? 2 : klass == LOOMRUN_CAUSE_SIGNAL ? 0 : 1;
}

static void loomrun_cause_flush(loomrun_loop_t *lp)
{
    loomrun_cause_t *c = &lp->cause;

    if (c->set) {
        c->set = 0;
        loomrun_fail(lp, c->status, "%s%s%s", c->msg, c->shell, c->note);
    }
}

/*
 * Hold rank @p rk's failure as the cause unless the one held is better;
 * @p shell (may be NULL) says how loomrun's exit status follows from it,
 * shown only if it is reported as the cause.
 */
static void loomrun_cause(loomrun_loop_t *lp, const loomrun_rank_t *rk,
                          loomrun_cause_class_t klass, int status, const char *shell,
                          const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void loomrun_cause(loomrun_loop_t *lp, const loomrun_rank_t *rk,
                          loomrun_cause_class_t klass, int status, const char *shell,
                          const char *fmt, ...)
{
    loomrun_cause_t *c = &lp->cause;
    char msg[sizeof(c->msg)];
    int w = loomrun_cause_weight(klass, rk->saw_failure);
    size_t len;
    va_list ap;

    if (lp->failed) {
        return;
    }
    va_start(ap, fmt);
    len = (size_t)vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (rk->saw_failure && len < sizeof(msg)) {
        if (rk->failed_peer >= 0) {
            snprintf(msg + len, sizeof(msg) - len, " (after it saw rank %d fail)",
                     rk->failed_peer);
        } else {
            snprintf(msg + len, sizeof(msg) - len, " (after it saw a peer fail)");
        }
    }
    if (c->set && w >= loomrun_cause_weight(c->klass, c->consequence)) {
        /* (two consequences follow a third failure, not each other) */
        if ((w == 2 || klass == LOOMRUN_CAUSE_ABORT) && !c->consequence &&
            c->note[0] == '\0') {
            snprintf(c->note, sizeof(c->note), "; as a consequence, %s", msg);
        }
        return;   /* the one held explains it as well or better */
    }
    if (c->set && (c->consequence || c->klass == LOOMRUN_CAUSE_ABORT)) {
        snprintf(c->note, sizeof(c->note), "; as a consequence, %s", c->msg);
    }
    /* a consequence waits for its cause from the first one on; a cause
     * waits (less) for a death by a signal from now on */
    if (w == 1 || !c->set) {
        c->deadline = loomrun_now() + (w == 2 ? LOOMRUN_CONSEQ_WAIT_S : LOOMRUN_CAUSE_WAIT_S);
    }
    c->set         = 1;
    c->klass       = klass;
    c->consequence = rk->saw_failure;
    c->status      = status;
    memcpy(c->msg, msg, sizeof(c->msg));
    snprintf(c->shell, sizeof(c->shell), "%s", shell != NULL ? shell : "");
    if (w == 0) {
        loomrun_cause_flush(lp);
    }
}

/*
 * loomrun's exit status after an abort with @p code, and in @p shell what
 * to tell when that is not the code itself. A shell sees 8 bits: like Open
 * MPI's mpirun and MPICH's mpiexec, loomrun exits with the code modulo 256
 * (-1 gives 255, 263 gives 7). An abort is a failure even with a code of 0
 * (or 256): then loomrun exits with 1.
 */
static int loomrun_abort_status(int code, char *shell, size_t len)
{
    int st = code & 0xff;   /* two's complement: the mathematical modulo */

    shell[0] = '\0';
    if (st == 0) {
        snprintf(shell, len, "; loomrun exits with 1 (%s%d%s: an abort never exits 0)",
                 code != 0 ? "" : "code ", code, code != 0 ? " mod 256 is 0" : "");
        return 1;
    }
    if (st != code) {
        snprintf(shell, len, "; loomrun exits with %d (%d mod 256)", st, code);
    }
    return st;
}

void loomrun_abort_seen(loomrun_loop_t *lp, loomrun_rank_t *rk, const char *host, int status,
                        const char *msg)
{
    char shell[128];
    int st = loomrun_abort_status(status, shell, sizeof(shell));

    rk->aborted = 1;
    loomrun_note_read(lp);   /* a note it wrote before it aborted is in by now */
    loomrun_cause(lp, rk, LOOMRUN_CAUSE_ABORT, st, shell, "rank %d (pid %d on %s) aborted "
                  "the job with status %d: %s", rk->rank, (int)rk->pid, host, status,
                  msg != NULL && msg[0] ? msg : "(no message)");
}

void loomrun_signal_job(loomrun_loop_t *lp, int sig)
{
    loomrun_proc_signal_all(lp->job, sig);
    lp->role->signal_remote(lp, sig);
}

/* Advance the teardown when its deadline has passed. */
static void loomrun_teardown_step(loomrun_loop_t *lp, double now)
{
    if (lp->phase_deadline == 0 || now < lp->phase_deadline) {
        return;
    }
    if (lp->phase == LOOMRUN_GRACE) {
        loomrun_signal_job(lp, SIGTERM);
        lp->phase          = LOOMRUN_TERM;
        lp->phase_deadline = now + LOOMRUN_KILL_AFTER_S;
    } else if (lp->phase == LOOMRUN_TERM) {
        lp->role->report_kill(lp);
        loomrun_signal_job(lp, SIGKILL);
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

    for (int r = 0; r < job->opts.nranks && len < sizeof(list) - 96; ++r) {
        if (!job->ranks[r].alive) {
            continue;
        }
        if (shown++ == 8) {
            len += (size_t)snprintf(list + len, sizeof(list) - len, ", ...");
            break;
        }
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%srank %d (pid %d on %s)",
                                shown > 1 ? ", " : "", r, (int)job->ranks[r].pid,
                                job->map.names[job->ranks[r].node]);
    }
    loomrun_fail(lp, LOOMRUN_EXIT_TIMEOUT, "the job exceeded --timeout %g s; "
                 "still running: %s", job->opts.timeout, list);
    job->opts.timeout = 0;
    lp->job_deadline  = 0;
}

/* ---- events -------------------------------------------------------------------- */

void loomrun_abort_event(loomrun_loop_t *lp, loomrun_event_t *ev)
{
    loomrun_job_t *job = lp->job;

    ev->msg[sizeof(ev->msg) - 1] = '\0';
    if (ev->rank >= 0 && ev->rank < job->opts.nranks) {
        loomrun_rank_t *rk = &job->ranks[ev->rank];
        loomrun_abort_seen(lp, rk, job->map.names[rk->node], ev->status, ev->msg);
    } else {
        char shell[128];
        int st = loomrun_abort_status(ev->status, shell, sizeof(shell));
        loomrun_fail(lp, st, "rank %d aborted the job with status %d: %s%s", ev->rank,
                     ev->status, ev->msg[0] ? ev->msg : "(no message)", shell);
    }
}

static void loomrun_read_events(loomrun_loop_t *lp)
{
    loomrun_event_t ev;

    while (read(lp->job->event_rfd, &ev, sizeof(ev)) == (ssize_t)sizeof(ev)) {
        lp->role->event(lp, &ev);
    }
}

void loomrun_classify_exit(loomrun_loop_t *lp, loomrun_rank_t *rk)
{
    const char *host = lp->job->map.names[rk->node];
    int st = rk->wstatus, connected, finalized;

    connected = atomic_load_explicit(&rk->connected, memory_order_acquire);
    finalized = atomic_load_explicit(&rk->finalized, memory_order_acquire);
    if (rk->aborted) {
        return;   /* reported as the abort */
    }
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        loomrun_cause(lp, rk, LOOMRUN_CAUSE_SIGNAL, 128 + sig, NULL, "rank %d (pid %d on %s) was "
                      "killed by signal %d (%s: %s)%s%s", rk->rank, (int)rk->pid, host, sig,
                      loomrun_signame(sig), strsignal(sig), WCOREDUMP(st) ? ", core dumped" : "",
                      connected ? "" : ", before it connected to loomrun (PMIx_Init)");
    } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        loomrun_cause(lp, rk, LOOMRUN_CAUSE_EXIT, WEXITSTATUS(st), NULL, "rank %d (pid %d on %s) "
                      "exited with status %d%s", rk->rank, (int)rk->pid, host, WEXITSTATUS(st),
                      WEXITSTATUS(st) == 127 && !connected ? " (could it be executed?)" : "");
    } else if (connected && !finalized) {
        loomrun_cause(lp, rk, LOOMRUN_CAUSE_EXIT, 1, NULL, "rank %d (pid %d on %s) exited with status "
                      "0 without finalizing: it connected (PMIx_Init) but never called "
                      "loom_finalize/PMIx_Finalize", rk->rank, (int)rk->pid, host);
    }
}

/* One reaped child: the role's (a head's launch agent), one of this node's
 * ranks, or neither (the cleanup guardian). */
static void loomrun_reaped(loomrun_loop_t *lp, pid_t pid, int st)
{
    loomrun_job_t *job = lp->job;

    if (lp->role->reaped(lp, pid, st)) {
        return;
    }
    for (int r = 0; r < job->opts.nranks; ++r) {
        loomrun_rank_t *rk = &job->ranks[r];
        if (rk->alive && rk->pid == pid && rk->node == job->my_node) {
            rk->alive   = 0;
            rk->wstatus = st;
            --lp->nalive;
            loomrun_note_read(lp);   /* a note it wrote before its end is in by now */
            lp->role->rank_ended(lp, rk);
            return;
        }
    }
}

/* Reap what has ended; @p first (the child whose SIGCHLD woke us, if
 * known) first: several children reaped in one sweep come in process
 * table order, not in the order they died. */
static void loomrun_reap(loomrun_loop_t *lp, pid_t first)
{
    pid_t pid;
    int st;

    /* aborts reported before the aborting rank could exit are handled first */
    loomrun_read_events(lp);
    if (first > 0 && waitpid(first, &st, WNOHANG) == first) {
        loomrun_reaped(lp, first, st);
    }
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        loomrun_reaped(lp, pid, st);
    }
    if (lp->nalive == 0 && lp->drain_deadline == 0) {
        lp->drain_deadline = loomrun_now() + LOOMRUN_DRAIN_S;
    }
}

static void loomrun_read_signals(loomrun_loop_t *lp)
{
    struct signalfd_siginfo si[16];
    ssize_t n;

    while ((n = read(lp->sig_fd, si, sizeof(si))) > 0) {
        for (size_t i = 0; i < (size_t)n / sizeof(si[0]); ++i) {
            if (si[i].ssi_signo == SIGCHLD) {
                loomrun_reap(lp, (pid_t)si[i].ssi_pid);
            } else {
                ++lp->signals_seen;
                lp->role->on_signal(lp, (int)si[i].ssi_signo);
            }
        }
    }
}

/* ---- the loop ------------------------------------------------------------------ */

static int loomrun_poll_timeout(const loomrun_loop_t *lp, double now, double extra)
{
    double next = 0, ms;
    const double deadlines[5] = { lp->phase_deadline, lp->job_deadline, lp->drain_deadline,
                                  extra, lp->cause.set ? lp->cause.deadline : 0 };

    for (int i = 0; i < 5; ++i) {
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

/* Fill @p pfd with the loop's own fds; returns the count. */
static int loomrun_poll_fill(loomrun_loop_t *lp, struct pollfd *pfd, int *open_streams_p)
{
    loomrun_job_t *job = lp->job;
    int n = 0, open_streams = 0;

    pfd[n++] = (struct pollfd){ .fd = job->event_rfd, .events = POLLIN };
    pfd[n++] = (struct pollfd){ .fd = lp->sig_fd, .events = POLLIN };
    pfd[n++] = (struct pollfd){ .fd = job->note_rfd, .events = POLLIN };
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

/* May the loop end? Every rank reaped, its output read (or the drain time
 * over), and the role done (a head: every daemon finished; a daemon: the
 * head said so, or is gone). */
static int loomrun_loop_over(const loomrun_loop_t *lp, int open_streams, double now)
{
    int drained = lp->nalive == 0 && (open_streams == 0 || now >= lp->drain_deadline);

    return drained && lp->role->may_end(lp);
}

static void loomrun_loop_dispatch(loomrun_loop_t *lp, struct pollfd *pfd, int nown, int n)
{
    loomrun_job_t *job = lp->job;

    if (pfd[0].revents) {
        loomrun_read_events(lp);
    }
    if (pfd[1].revents) {
        loomrun_read_signals(lp);
    }
    if (pfd[2].revents) {
        loomrun_note_read(lp);
    }
    for (int i = 3; i < nown; ++i) {
        if (pfd[i].revents && pfd[i].fd >= 0) {
            loomrun_proc_stream_read(job, &job->ranks[(i - 3) / 2], (i - 3) % 2);
        }
    }
    lp->role->poll_handle(lp, pfd, nown, n);
}

void loomrun_loop_run(loomrun_loop_t *lp)
{
    loomrun_job_t *job = lp->job;
    size_t cap = 3 + 2 * (size_t)job->opts.nranks + 2 * LOOMRUN_MAX_NODES + 8;
    struct pollfd *pfd = calloc(cap, sizeof(*pfd));
    int open_streams = 1;

    while (pfd != NULL) {
        int nown = loomrun_poll_fill(lp, pfd, &open_streams), n = nown, rc;
        double now = loomrun_now(), extra = lp->role->tick(lp, now);

        n = lp->role->poll_fill(lp, pfd, n);
        if (lp->cause.set && (now >= lp->cause.deadline || lp->nalive == 0)) {
            loomrun_cause_flush(lp);   /* nothing better came, or nothing more can */
        }
        if (loomrun_loop_over(lp, open_streams, now)) {
            break;
        }
        rc = poll(pfd, (nfds_t)n, loomrun_poll_timeout(lp, now, extra));
        if (rc < 0 && errno != EINTR) {
            fprintf(stderr, "loomrun: poll: %s\n", strerror(errno));
            break;
        }
        if (rc > 0) {
            loomrun_loop_dispatch(lp, pfd, nown, n);
        }
        now = loomrun_now();
        if (lp->job_deadline > 0 && now >= lp->job_deadline && lp->nalive > 0) {
            /* the ranks that can say where they are blocked say it first */
            lp->job_deadline = 0;
            if (!lp->role->timeout_begin(lp, now)) {
                loomrun_timeout(lp);
            }
        }
        if (lp->role->timeout_check(lp, now)) {
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

void loomrun_role_set(loomrun_loop_t *lp, const loomrun_role_ops_t *role)
{
    lp->role      = role;
    lp->job->emit = role->emit;
}

int loomrun_signals_init(loomrun_loop_t *lp)
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

int loomrun_job_init(loomrun_job_t *job)
{
    const char *tmp = getenv("TMPDIR");
    int fds[2];

    snprintf(job->tmpdir, sizeof(job->tmpdir), "%s/loomrun.XXXXXX",
             (tmp != NULL && *tmp != '\0') ? tmp : "/tmp");
    if (mkdtemp(job->tmpdir) == NULL) {   /* mode 0700 */
        fprintf(stderr, "loomrun: cannot create a private directory %s on %s: %s\n",
                job->tmpdir, job->host, strerror(errno));
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
    if (loomrun_note_init(job) != 0) {
        return -1;
    }
    job->ranks = calloc((size_t)job->opts.nranks, sizeof(*job->ranks));
    if (job->ranks == NULL) {
        fprintf(stderr, "loomrun: out of memory for %d ranks\n", job->opts.nranks);
        return -1;
    }
    for (int r = 0; r < job->opts.nranks; ++r) {
        job->ranks[r].rank = r;
        job->ranks[r].node = job->map.node_of[r];
        job->ranks[r].out[0].fd = job->ranks[r].out[1].fd = -1;
    }
    loomrun_guard_files(job);
    return 0;
}

int loomrun_launch(loomrun_loop_t *lp, const char *path)
{
    loomrun_job_t *job = lp->job;
    int n = job->my_node;

    if (loomrun_bind_plan(job) != 0) {
        return -1;
    }
    for (int i = 0; n >= 0 && i < job->map.count[n]; ++i) {
        int r = job->map.ranks[job->map.first[n] + i];
        char **env = loomrun_proc_copy_env(job->env);
        int rc = env ? loomrun_pmix_setup_rank(job, r, &env) : -1;

        if (rc == 0) {
            rc = loomrun_proc_spawn(job, r, path, env);
        }
        if (rc == 0) {
            loomrun_guard_proc(job, job->ranks[r].pid);
        }
        loomrun_proc_free_env(env);
        if (rc != 0) {
            return -1;
        }
        ++lp->nalive;
    }
    return 0;
}
