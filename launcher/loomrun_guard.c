/*
 * loomrun_guard.c: the cleanup guardian. loomrun (and every daemon) forks
 * it first, before the job has anything to leave behind. It holds one end
 * of a socket pair and learns, as they are made, what the job would leave
 * if loomrun died without cleaning up (SIGKILL, the OOM killer, a crash):
 *
 *   'D' path     the private PMIx tmpdir, to remove
 *   'S' name     a /dev/shm name prefix (the job's segments), to unlink
 *   'P' + fd     a pidfd of a rank (SCM_RIGHTS), to kill
 *   'Q'          loomrun cleaned up itself: leave quietly
 *
 * When the socket reads end-of-file without a 'Q', loomrun is gone: the
 * guardian SIGKILLs the ranks still alive through their pidfds (no pid
 * reuse race: a pidfd names one process), waits up to 2 s for them to die
 * (a dying rank may still create a segment), removes the directory and the
 * segments, says so on stderr, and exits. Ranks also die with loomrun by
 * PR_SET_PDEATHSIG; the guardian is what removes the files, and covers a
 * rank that cleared its death signal.
 *
 * The guardian runs in its own process group and ignores the terminal's
 * signals (^C or a kill of the job's process group are for loomrun, which
 * forwards them and then tells the guardian to go), re-executes itself as
 * "loomrun-guard --guard 3 PID WHO" (so that "pkill -f" of loomrun's own
 * command line spares it) and keeps no other descriptor of loomrun's: a
 * daemon's connection to the head in particular must close when the daemon
 * dies.
 */
#include "loomrun_int.h"
#include "bootstrap_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOOMRUN_GUARD_MSG_MAX  (PATH_MAX + 8)
#define LOOMRUN_GUARD_WAIT_MS  2000    /* for the killed ranks to be gone */
#define LOOMRUN_GUARD_MAX_DIRS 4

typedef struct loomrun_guard {
    char   *dirs[LOOMRUN_GUARD_MAX_DIRS];
    int     ndirs;
    char   *shm;              /* /dev/shm name prefix, or NULL */
    int    *pidfds;
    int     npidfds, cap;
} loomrun_guard_t;

static int loomrun_guard_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

static int loomrun_guard_pidfd_kill(int pidfd, int sig)
{
#ifdef SYS_pidfd_send_signal
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
#else
    (void)pidfd;
    (void)sig;
    errno = ENOSYS;
    return -1;
#endif
}

/* ---- the guardian process ------------------------------------------------------- */

/* One message into @p g; 0, 1 on 'Q', -1 on end of file or error. */
static int loomrun_guard_recv(int fd, loomrun_guard_t *g)
{
    char buf[LOOMRUN_GUARD_MSG_MAX + 1], cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { buf, LOOMRUN_GUARD_MSG_MAX };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                         .msg_controllen = sizeof(cbuf) };
    struct cmsghdr *cm;
    ssize_t n;

    do {
        n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        return -1;
    }
    buf[n] = '\0';
    cm = CMSG_FIRSTHDR(&mh);
    if (buf[0] == 'P' && cm != NULL && cm->cmsg_type == SCM_RIGHTS) {
        int pidfd, *grown;
        memcpy(&pidfd, CMSG_DATA(cm), sizeof(int));
        if (g->npidfds == g->cap) {
            g->cap = g->cap ? 2 * g->cap : 64;
            grown = realloc(g->pidfds, (size_t)g->cap * sizeof(int));
            if (grown == NULL) {
                close(pidfd);   /* PDEATHSIG still covers that rank */
                return 0;
            }
            g->pidfds = grown;
        }
        g->pidfds[g->npidfds++] = pidfd;
    } else if (buf[0] == 'D' && g->ndirs < LOOMRUN_GUARD_MAX_DIRS && n > 1) {
        g->dirs[g->ndirs++] = strdup(buf + 1);
    } else if (buf[0] == 'S' && g->shm == NULL && n > 1) {
        g->shm = strdup(buf + 1);
    } else if (buf[0] == 'Q') {
        return 1;
    }
    return 0;
}

/* loomrun is gone: kill, wait, remove. */
static void loomrun_guard_clean(loomrun_guard_t *g, pid_t owner, const char *who)
{
    int killed = 0;

    for (int i = 0; i < g->npidfds; ++i) {
        /* a pidfd polls readable once its process has exited (a zombie too) */
        struct pollfd pfd = { .fd = g->pidfds[i], .events = POLLIN };
        if (poll(&pfd, 1, 0) == 0) {
            killed += loomrun_guard_pidfd_kill(g->pidfds[i], SIGKILL) == 0;
        }
    }
    for (int i = 0; i < g->npidfds; ++i) {
        struct pollfd pfd = { .fd = g->pidfds[i], .events = POLLIN };
        poll(&pfd, 1, LOOMRUN_GUARD_WAIT_MS);
        close(g->pidfds[i]);
    }
    for (int i = 0; i < g->ndirs; ++i) {
        if (g->dirs[i] != NULL) {
            loomrun_proc_remove_tree(g->dirs[i]);
        }
    }
    if (g->shm != NULL) {
        loomrun_proc_remove_shm_prefix(g->shm);
    }
    fprintf(stderr, "%s (pid %d) ended without cleaning up: its guardian killed %d "
            "rank(s) still running and removed the job's files%s%s\n", who, (int)owner,
            killed, g->ndirs ? " in " : "", g->ndirs ? g->dirs[0] : "");
}

/* Keep @p fd (as fd 3) and stderr, nothing else of loomrun's. */
static int loomrun_guard_fds(int fd)
{
    int null = open("/dev/null", O_RDWR);

    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        if (null > 2) {
            close(null);
        }
    }
    if (fd != 3 && dup2(fd, 3) < 0) {
        return -1;
    }
    close_range(4, ~0u, 0);
    return 3;
}

static void __attribute__((noreturn)) loomrun_guard_main(int fd, pid_t owner, const char *who)
{
    loomrun_guard_t g = { .ndirs = 0 };
    sigset_t none;
    int rc;

    /* out of the job's process group: a signal to the group (^C, kill -9
     * -PGID) is for loomrun, which tells us when to go, or dies and we
     * clean up */
    setpgid(0, 0);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_NAME, "loomrun-guard");
    fd = loomrun_guard_fds(fd);
    if (fd < 0) {
        _exit(1);
    }
    while ((rc = loomrun_guard_recv(fd, &g)) == 0) {
    }
    if (rc < 0) {
        loomrun_guard_clean(&g, owner, who);
    }
    /* _exit: nothing of loomrun's (atexit, stdio buffers) runs twice */
    _exit(0);
}

int loomrun_guard_exec_main(int argc, char **argv)
{
    int type = 0;
    socklen_t len = sizeof(type);

    if (argc != 5 || atoi(argv[2]) != 3 ||
        getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET) {
        fprintf(stderr, "loomrun --guard: started by loomrun itself, not by hand\n");
        return 2;
    }
    loomrun_guard_main(3, (pid_t)atoi(argv[3]), argv[4]);
}

/* In the forked child: become the guardian in a fresh image, so that its
 * command line is not loomrun's (a "pkill -f loomrun-args" meant for loomrun
 * must not take the guardian with it); in this image if exec fails. */
static void __attribute__((noreturn)) loomrun_guard_child(int fd, pid_t owner, const char *who)
{
    char pid_s[24];
    char *args[] = { "loomrun-guard", "--guard", "3", pid_s, (char *)(uintptr_t)who, NULL };

    snprintf(pid_s, sizeof(pid_s), "%d", (int)owner);
    fd = loomrun_guard_fds(fd);
    if (fd == 3 && fcntl(3, F_SETFD, 0) == 0) {
        execv("/proc/self/exe", args);
    }
    loomrun_guard_main(fd, owner, who);
}

/* ---- loomrun's side --------------------------------------------------------------- */

int loomrun_guard_start(loomrun_job_t *job, const char *who)
{
    pid_t owner = getpid(), pid;
    int sv[2];

    job->guard_fd = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        fprintf(stderr, "%s: no cleanup guardian (socketpair: %s)\n", who, strerror(errno));
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        close(sv[0]);
        loomrun_guard_child(sv[1], owner, who);
    }
    close(sv[1]);
    if (pid < 0) {
        fprintf(stderr, "%s: no cleanup guardian (fork: %s)\n", who, strerror(errno));
        close(sv[0]);
        return -1;
    }
    job->guard_fd  = sv[0];
    job->guard_pid = pid;
    return 0;
}

/* Send one message (with @p pass_fd if >= 0); a lost guardian is not an error. */
static void loomrun_guard_send(loomrun_job_t *job, char type, const char *text, int pass_fd)
{
    char buf[LOOMRUN_GUARD_MSG_MAX], cbuf[CMSG_SPACE(sizeof(int))];
    size_t len = (size_t)snprintf(buf, sizeof(buf), "%c%s", type, text ? text : "");
    struct iovec iov = { buf, len < sizeof(buf) ? len : sizeof(buf) - 1 };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

    if (job->guard_fd < 0) {
        return;
    }
    if (pass_fd >= 0) {
        struct cmsghdr *cm;
        memset(cbuf, 0, sizeof(cbuf));
        mh.msg_control    = cbuf;
        mh.msg_controllen = sizeof(cbuf);
        cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type  = SCM_RIGHTS;
        cm->cmsg_len   = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
    }
    while (sendmsg(job->guard_fd, &mh, MSG_NOSIGNAL) < 0) {
        if (errno != EINTR) {
            close(job->guard_fd);   /* the guardian died: go on without */
            job->guard_fd = -1;
            return;
        }
    }
}

void loomrun_guard_files(loomrun_job_t *job)
{
    char prefix[LOOM_BOOTSTRAP_SHM_PREFIX_MAX];

    if (job->tmpdir[0] != '\0') {
        loomrun_guard_send(job, 'D', job->tmpdir, -1);
    }
    if (loom_bootstrap_shm_prefix_for(job->nspace, prefix, sizeof(prefix)) == LOOM_OK) {
        loomrun_guard_send(job, 'S', prefix + 1, -1);   /* "/name" is /dev/shm/name */
    }
}

void loomrun_guard_proc(loomrun_job_t *job, pid_t pid)
{
    int pidfd;

    if (job->guard_fd < 0 || (pidfd = loomrun_guard_pidfd_open(pid)) < 0) {
        return;   /* an old kernel: PR_SET_PDEATHSIG alone ends the rank */
    }
    loomrun_guard_send(job, 'P', NULL, pidfd);
    close(pidfd);
}

void loomrun_guard_stop(loomrun_job_t *job)
{
    double deadline = loomrun_now() + 1.0;

    loomrun_guard_send(job, 'Q', NULL, -1);
    if (job->guard_fd >= 0) {
        close(job->guard_fd);
        job->guard_fd = -1;
    }
    /* it leaves at once: reap it rather than leave a zombie to an init
     * that may not reap (containers) */
    while (job->guard_pid > 0 && waitpid(job->guard_pid, NULL, WNOHANG) == 0 &&
           loomrun_now() < deadline) {
        struct timespec ts = { 0, 2 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    job->guard_pid = 0;
}
