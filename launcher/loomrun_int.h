/*
 * loomrun_int.h: the launcher's internal pieces.
 *
 * loomrun is one single-threaded event loop (loomrun.c) plus the PMIx
 * server library's own progress thread. The two meet in few places:
 *   - the PMIx upcalls (loomrun_pmix.c) run on the PMIx thread; they record
 *     per-rank facts in atomics (connected, finalized) and send anything the
 *     loop must act on (an abort) through a pipe, never touching the loop's
 *     state or calling a blocking PMIx API;
 *   - the loop (loomrun.c) owns the ranks: it forks them (loomrun_proc.c),
 *     forwards their output line by line, reaps them with waitpid when a
 *     signalfd reports SIGCHLD, and runs the teardown: on the first abnormal
 *     end one message, 0.25 s grace, SIGTERM to the rest, SIGKILL 2 s later.
 * Nothing here depends on the rest of loom except the bootstrap's naming
 * rule for shared-memory segments (loom_bootstrap_shm_prefix_for).
 */
#ifndef LOOMRUN_INT_H
#define LOOMRUN_INT_H

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>

#include <pmix_common.h>

#define LOOMRUN_GRACE_S      0.25  /* after the first failure, before SIGTERM */
#define LOOMRUN_KILL_AFTER_S 2.0   /* SIGTERM -> SIGKILL */
#define LOOMRUN_DRAIN_S      1.0   /* output of dead ranks still read this long */
#define LOOMRUN_LINE_MAX     (1u << 20) /* longer lines are forwarded in pieces */

/** Command-line options. */
typedef struct loomrun_opts {
    int     nranks;
    char  **exports;      /* -x VAR or VAR=value, nexports entries */
    int     nexports;
    int     tag_output;
    int     quiet;
    double  timeout;      /* seconds, 0 = none */
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
} loomrun_rank_t;

/** What the PMIx thread tells the loop (written whole to a pipe). */
typedef struct loomrun_event {
    int  type;                      /* LOOMRUN_EVENT_* */
    int  rank;
    int  status;
    char msg[1024];
} loomrun_event_t;

enum { LOOMRUN_EVENT_ABORT = 1, LOOMRUN_EVENT_FENCE_UPCALL = 2 };

/** The job as the loop sees it. */
typedef struct loomrun_job {
    loomrun_opts_t   opts;
    char             host[256];
    char             nspace[PMIX_MAX_NSLEN + 1];
    char             tmpdir[PATH_MAX];
    char           **env;           /* base environment of every rank */
    loomrun_rank_t  *ranks;
    int              event_rfd, event_wfd;  /* PMIx thread -> loop */
} loomrun_job_t;

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

/** Send @p sig to every rank still alive. */
void loomrun_proc_signal_all(loomrun_job_t *job, int sig);

/** Remove @p path and everything under it (no symlink is followed). */
void loomrun_proc_remove_tree(const char *path);

/** Unlink /dev/shm segments the job's ranks left (see bootstrap_int.h). */
void loomrun_proc_remove_shm(const loomrun_job_t *job);

/** Free an environment array built by loomrun_proc_build_env or setup_fork. */
void loomrun_proc_free_env(char **env);

/** Copy an environment array (strings malloc'd). NULL on ENOMEM. */
char **loomrun_proc_copy_env(char *const *env);

#endif /* LOOMRUN_INT_H */
