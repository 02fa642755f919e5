/*
 * loomrun_proc.c: the ranks as processes: environment, fork/exec, output
 * forwarding by whole lines, signals, and removing what a job leaves behind.
 *
 * Output: each rank's stdout and stderr are pipes read by the event loop.
 * Bytes are kept per stream until a newline; only whole lines are written,
 * each with one write, so lines of different ranks never mix. A partial
 * last line is written when its stream closes; a line longer than
 * LOOMRUN_LINE_MAX is written in pieces rather than held without bound.
 */
#include "loomrun_int.h"
#include "bootstrap_int.h"
#include "compiler_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

extern char **environ;

/* ---- environment ------------------------------------------------------------ */

void loomrun_proc_free_env(char **env)
{
    if (env == NULL) {
        return;
    }
    for (char **e = env; *e != NULL; ++e) {
        free(*e);
    }
    free(env);
}

char **loomrun_proc_copy_env(char *const *env)
{
    size_t n = 0;
    char **copy;

    while (env[n] != NULL) {
        ++n;
    }
    copy = calloc(n + 1, sizeof(char *));
    for (size_t i = 0; copy != NULL && i < n; ++i) {
        copy[i] = strdup(env[i]);
        if (copy[i] == NULL) {
            loomrun_proc_free_env(copy);
            copy = NULL;
        }
    }
    return copy;
}

static char **loomrun_env_find(char **env, const char *name)
{
    size_t len = strlen(name);

    for (char **e = env; *e != NULL; ++e) {
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=') {
            return e;
        }
    }
    return NULL;
}

/* Set name=value in a malloc'd environment array (replacing any old value). */
static int loomrun_env_set(char ***env_p, const char *name, const char *value)
{
    char **slot = loomrun_env_find(*env_p, name), **grown;
    char *entry;
    size_t n = 0;

    if (asprintf(&entry, "%s=%s", name, value) < 0) {
        return -1;
    }
    if (slot != NULL) {
        free(*slot);
        *slot = entry;
        return 0;
    }
    while ((*env_p)[n] != NULL) {
        ++n;
    }
    grown = realloc(*env_p, (n + 2) * sizeof(char *));
    if (grown == NULL) {
        free(entry);
        return -1;
    }
    grown[n]     = entry;
    grown[n + 1] = NULL;
    *env_p = grown;
    return 0;
}

/* Our environment without a PMIx server's variables (PMIX_MCA_* are the
 * user's settings and stay): if loomrun itself runs under a launcher, its
 * ranks must not believe they belong to that launcher's job. */
static char **loomrun_env_base(void)
{
    size_t n = 0, k = 0;
    char **env;

    while (environ[n] != NULL) {
        ++n;
    }
    env = calloc(n + 1, sizeof(char *));
    for (size_t i = 0; env != NULL && i < n; ++i) {
        if (strncmp(environ[i], "PMIX_", 5) == 0 &&
            strncmp(environ[i], "PMIX_MCA_", 9) != 0) {
            continue;
        }
        env[k] = strdup(environ[i]);
        if (env[k++] == NULL) {
            loomrun_proc_free_env(env);
            env = NULL;
        }
    }
    return env;
}

int loomrun_proc_build_env(loomrun_job_t *job)
{
    cpu_set_t allowed;
    long cores = loomrun_bind_allowed(&allowed);    /* what taskset/cpusets leave us */
    char **env = loomrun_env_base();
    int rc = env ? 0 : -1;

    for (int i = 0; rc == 0 && i < job->opts.nexports; ++i) {
        const char *x = job->opts.exports[i], *eq = strchr(x, '=');
        char name[256];

        if (eq != NULL) {
            snprintf(name, sizeof(name), "%.*s", (int)(eq - x), x);
            rc = loomrun_env_set(&env, name, eq + 1);
        } else if (getenv(x) != NULL) {
            rc = loomrun_env_set(&env, x, getenv(x));
        } else if (!job->opts.quiet) {
            fprintf(stderr, "loomrun: warning: -x %s: %s is not set here; not exported\n",
                    x, x);
        }
    }
    /* the ranks' progress engine yields the CPU when they outnumber cores;
     * the user's own setting wins */
    if (rc == 0 && loomrun_env_find(env, "LOOM_OVERSUBSCRIBED") == NULL) {
        int here = job->my_node >= 0 && job->map.count != NULL ?
                   job->map.count[job->my_node] : job->opts.nranks;
        rc = loomrun_env_set(&env, "LOOM_OVERSUBSCRIBED",
                             here > (cores > 0 ? cores : 1) ? "1" : "0");
    }
    if (rc == 0 && job->note_wfd > 2) {
        char fd[16];
        snprintf(fd, sizeof(fd), "%d", job->note_wfd);
        rc = loomrun_env_set(&env, LOOM_BOOTSTRAP_NOTE_ENV, fd);
    }
    if (rc != 0) {
        fprintf(stderr, "loomrun: out of memory building the ranks' environment\n");
        loomrun_proc_free_env(env);
        return -1;
    }
    job->env = env;
    return 0;
}

char *loomrun_proc_resolve(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];

    if (strchr(prog, '/') != NULL) {
        return access(prog, X_OK) == 0 ? strdup(prog) : NULL;
    }
    for (const char *p = path ? path : "/usr/bin:/bin"; ; ) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        struct stat st;

        snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? p : ".", prog);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) {
            return strdup(buf);
        }
        if (colon == NULL) {
            return NULL;
        }
        p = colon + 1;
    }
}

/* ---- fork / exec ------------------------------------------------------------ */

/* In the child, between fork and exec: async-signal-safe calls only. */
static void loomrun_proc_child(int in_fd, int out_fd, int err_fd, int note_fd, pid_t parent,
                               const cpu_set_t *bind, const char *path, char *const argv[],
                               char *const env[])
{
    sigset_t none;
    static const char msg[] = "loomrun: exec failed: ";
    static const char bind_msg[] = "loomrun: warning: cannot bind this rank; it runs unbound\n";

    /* the launcher blocks these for its signalfd and ignores SIGPIPE: give
     * the program the dispositions it expects */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    /* never outlive loomrun (a killed launcher leaves no orphan job) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) {
        _exit(127);
    }
    if ((in_fd != 0 && dup2(in_fd, 0) < 0) || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) {
        _exit(127);
    }
    /* the notes pipe (loomrun_note.c) is the one other fd the rank keeps */
    if (note_fd > 2) {
        fcntl(note_fd, F_SETFD, 0);
    }
    /* before exec, so the program's first pages are touched on its core */
    if (bind != NULL && sched_setaffinity(0, sizeof(*bind), bind) != 0) {
        (void)!write(2, bind_msg, sizeof(bind_msg) - 1);
    }
    execve(path, argv, env);
    if (write(2, msg, sizeof(msg) - 1) > 0 && write(2, path, strlen(path)) > 0) {
        const char *e = strerror(errno);
        if (write(2, ": ", 2) > 0 && write(2, e, strlen(e)) > 0) {
            (void)!write(2, "\n", 1);
        }
    }
    _exit(127);
}

/* Rank 0's stdin on a daemon: the read end for the child, the write end
 * (nonblocking) for the loop. */
static int loomrun_proc_stdin_pipe(loomrun_job_t *job, int *in_fd_p)
{
    int fds[2];

    if (pipe2(fds, O_CLOEXEC) != 0) {
        return -1;
    }
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    job->stdin_wfd = fds[1];
    *in_fd_p = fds[0];
    return 0;
}

int loomrun_proc_spawn(loomrun_job_t *job, int r, const char *path, char **env)
{
    loomrun_rank_t *rk = &job->ranks[r];
    int outp[2], errp[2], in_fd = 0;
    pid_t pid, parent = getpid();

    if (pipe2(outp, O_CLOEXEC) != 0) {
        goto err_pipe;
    }
    if (pipe2(errp, O_CLOEXEC) != 0) {
        goto err_close_out;
    }
    /* stdin goes to rank 0 alone; the others read an empty stream. With
     * job->stdin_pipe (a daemon), rank 0 reads a pipe fed with what the
     * head forwards. */
    if (r != 0 && (in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        goto err_close_err;
    }
    if (r == 0 && job->stdin_pipe && loomrun_proc_stdin_pipe(job, &in_fd) != 0) {
        goto err_close_err;
    }
    pid = fork();
    if (pid == 0) {
        loomrun_proc_child(in_fd, outp[1], errp[1], job->note_wfd, parent,
                           job->bind_sets ? &job->bind_sets[r] : NULL, path, job->opts.argv,
                           env);
    }
    if (pid < 0) {
        goto err_close_in;
    }
    if (in_fd != 0) {
        close(in_fd);
    }
    close(outp[1]);
    close(errp[1]);
    fcntl(outp[0], F_SETFL, O_NONBLOCK);
    fcntl(errp[0], F_SETFL, O_NONBLOCK);
    loomrun_bind_report(job, r);
    rk->pid   = pid;
    rk->alive = 1;
    rk->out[0] = (loomrun_stream_t){ .fd = outp[0], .out_fd = 1 };
    rk->out[1] = (loomrun_stream_t){ .fd = errp[0], .out_fd = 2 };
    return 0;

err_close_in:
    if (in_fd != 0) {
        close(in_fd);
    }
err_close_err:
    close(errp[0]);
    close(errp[1]);
err_close_out:
    close(outp[0]);
    close(outp[1]);
err_pipe:
    fprintf(stderr, "loomrun: cannot start rank %d (%s): %s\n", r, path, strerror(errno));
    return -1;
}

int loomrun_proc_catches(pid_t pid, int sig)
{
    char path[64], line[256];
    unsigned long long mask = 0;
    int found = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if (pid <= 0 || sig < 1 || sig > 64 || (f = fopen(path, "r")) == NULL) {
        return 0;
    }
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        found = sscanf(line, "SigCgt: %llx", &mask) == 1;
    }
    fclose(f);
    return found && (mask >> (sig - 1) & 1);
}

void loomrun_proc_signal_all(loomrun_job_t *job, int sig)
{
    for (int r = 0; r < job->opts.nranks; ++r) {
        loomrun_rank_t *rk = &job->ranks[r];
        if (rk->alive && rk->pid > 0 && rk->node == job->my_node &&
            (sig != SIGUSR1 || loomrun_proc_catches(rk->pid, sig))) {
            kill(rk->pid, sig);
        }
    }
}

/* ---- output ------------------------------------------------------------------- */

/* Write all of @p iov to @p fd; a closed reader (EPIPE) drops the output. */
static void loomrun_write_all(int fd, struct iovec *iov, int iovcnt)
{
    while (iovcnt > 0) {
        ssize_t n = writev(fd, iov, iovcnt > IOV_MAX ? IOV_MAX : iovcnt);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN) {   /* our stdout was left non-blocking */
                struct pollfd pfd = { .fd = fd, .events = POLLOUT };
                poll(&pfd, 1, 100);
                continue;
            }
            return;                  /* EPIPE and the like: nobody reads */
        }
        while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
            n -= (ssize_t)iov->iov_len;
            ++iov;
            --iovcnt;
        }
        if (iovcnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
}

/* Forward @p len bytes of whole lines; with @p end_line a final piece
 * without its newline gets one (tagged output only: untagged bytes go out
 * exactly as the rank wrote them). Through the job's output hook, which the
 * role set: a daemon sends them to the head, a head or a single host keeps
 * the hang report lines (loomrun_hang_emit) and writes the rest. */
static void loomrun_emit(loomrun_job_t *job, loomrun_rank_t *rk, loomrun_stream_t *s,
                         const char *data, size_t len, int end_line)
{
    job->emit(job, rk->rank, s->out_fd, data, len, end_line);
}

void loomrun_proc_emit_raw(loomrun_job_t *job, int rank, int out_fd, const char *data,
                           size_t len, int end_line)
{
    struct iovec iov[64];
    char prefix[24];
    size_t plen;
    int k = 0;

    if (!job->opts.tag_output) {
        iov[0] = (struct iovec){ (void *)(uintptr_t)data, len };
        loomrun_write_all(out_fd, iov, 1);
        return;
    }
    plen = (size_t)snprintf(prefix, sizeof(prefix), "[%d] ", rank);
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(data + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - data) + 1 : len;

        iov[k++] = (struct iovec){ prefix, plen };
        iov[k++] = (struct iovec){ (void *)(uintptr_t)(data + start), end - start };
        if (nl == NULL && end_line) {
            iov[k++] = (struct iovec){ "\n", 1 };
        }
        start = end;
        if (k > (int)LOOM_ARRAY_SIZE(iov) - 3) {
            loomrun_write_all(out_fd, iov, k);
            k = 0;
        }
    }
    loomrun_write_all(out_fd, iov, k);
}

void loomrun_proc_stream_close(loomrun_job_t *job, loomrun_rank_t *rk, int which)
{
    loomrun_stream_t *s = &rk->out[which];

    if (s->len > 0) {
        loomrun_emit(job, rk, s, s->buf, s->len, 1);
    }
    if (s->fd >= 0) {
        close(s->fd);
    }
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
    s->fd  = -1;
}

/* Append @p n bytes to the stream's line buffer (growing it). */
static int loomrun_stream_append(loomrun_stream_t *s, const char *data, size_t n)
{
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        char *buf;

        while (cap < s->len + n) {
            cap *= 2;
        }
        buf = realloc(s->buf, cap);
        if (buf == NULL) {
            return -1;
        }
        s->buf = buf;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
    return 0;
}

void loomrun_proc_stream_read(loomrun_job_t *job, loomrun_rank_t *rk, int which)
{
    loomrun_stream_t *s = &rk->out[which];
    char chunk[65536];
    const char *last;
    ssize_t n;
    size_t keep;

    do {
        n = read(s->fd, chunk, sizeof(chunk));
    } while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN) {
        return;
    }
    if (n <= 0) {
        loomrun_proc_stream_close(job, rk, which);
        return;
    }
    if (loomrun_stream_append(s, chunk, (size_t)n) != 0) {
        /* no memory to hold the line: forward what we have as it is */
        loomrun_emit(job, rk, s, s->buf, s->len, 0);
        loomrun_emit(job, rk, s, chunk, (size_t)n, 0);
        s->len = 0;
        return;
    }
    last = memrchr(s->buf, '\n', s->len);
    keep = last ? s->len - (size_t)(last - s->buf) - 1 : s->len;
    if (keep >= LOOMRUN_LINE_MAX) {
        keep = 0;   /* an endless line: forward it in pieces */
    }
    if (s->len > keep) {
        loomrun_emit(job, rk, s, s->buf, s->len - keep, keep == 0);
        memmove(s->buf, s->buf + s->len - keep, keep);
        s->len = keep;
    }
}

/* ---- leftovers ---------------------------------------------------------------- */

static int loomrun_remove_one(const char *path, const struct stat *st, int flag,
                              struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void loomrun_proc_remove_tree(const char *path)
{
    if (path[0] != '\0') {
        nftw(path, loomrun_remove_one, 16, FTW_DEPTH | FTW_PHYS);
    }
}

void loomrun_proc_remove_shm_prefix(const char *name)
{
    struct dirent *de;
    size_t len = strlen(name);
    DIR *dir;

    if (len == 0 || (dir = opendir("/dev/shm")) == NULL) {
        return;
    }
    while ((de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, name, len) == 0) {
            unlinkat(dirfd(dir), de->d_name, 0);
        }
    }
    closedir(dir);
}

void loomrun_proc_remove_shm(const loomrun_job_t *job)
{
    char prefix[LOOM_BOOTSTRAP_SHM_PREFIX_MAX];

    if (loom_bootstrap_shm_prefix_for(job->nspace, prefix, sizeof(prefix)) == LOOM_OK) {
        loomrun_proc_remove_shm_prefix(prefix + 1);   /* shm_open's "/name" is /dev/shm/name */
    }
}
