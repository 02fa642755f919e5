/*
 * bootstrap_int.h: the job's out-of-band channel, over a PMIx client.
 *
 * Gives each process its place in the job (rank, size, local rank and size,
 * the host of every rank) and the "modex": each transport publishes an
 * opaque address blob with loom_bootstrap_put(), every rank calls
 * loom_bootstrap_fence() once, then reads peers' blobs with
 * loom_bootstrap_get(). Started without any PMIx server (plain ./app), the
 * process is a singleton: size 1, and put/fence/get work on local data.
 *
 * Works unchanged under loomrun, Open MPI's mpirun and Slurm's srun --mpi=pmix
 * (see ../shared/notes/pmix.md for the library's behaviour).
 */
#ifndef LOOM_BOOTSTRAP_INT_H
#define LOOM_BOOTSTRAP_INT_H

#include <loom.h>
#include <stddef.h>

typedef struct loom_bootstrap_info {
    int          rank;
    int          size;
    int          local_rank;
    int          local_size;
    int          singleton;       /* 1 when no launcher was found */
    int          oversubscribed;  /* 1 when idle polling must yield the CPU */
    int          num_cores;       /* online cores of this node */
    int          threads_fit;     /* MULTIPLE: threads per rank idle in blocking loops that
                                   * fit the cores before they must yield (cores / local
                                   * ranks) */
    const int   *local_peers;     /* world ranks on this node, ascending, local_size entries */
    const int   *node_of_rank;    /* node index of every rank (same node <=> equal), size entries */
    const char *const *hostnames; /* host name of every rank, size entries */
    const char  *jobid;           /* PMIx namespace (or "singleton.<pid>") */
} loom_bootstrap_info_t;

/** Connect to the launcher (or become a singleton). Fills the info. */
loom_status_t loom_bootstrap_init(const loom_bootstrap_info_t **info_p);

/** The info filled by loom_bootstrap_init() (NULL before). */
const loom_bootstrap_info_t *loom_bootstrap_info(void);

/** Publish @p len bytes under @p key for every rank to read after the fence. */
loom_status_t loom_bootstrap_put(const char *key, const void *data, size_t len);

/**
 * Commit what was put and wait for every rank of the job (PMIx_Fence with
 * data collection). Fails (naming the cause) if a rank died or on timeout.
 */
loom_status_t loom_bootstrap_fence(void);

/**
 * Read the blob @p rank published under @p key into @p buf. *len_p holds the
 * buffer size on entry and the blob's size on success. LOOM_ERR_TRUNCATED if
 * the buffer is too small (*len_p then holds the size needed; with *len_p
 * = 0 on entry this is a quiet size query). LOOM_ERR_NOT_FOUND (not logged)
 * if @p rank published nothing under @p key.
 */
loom_status_t loom_bootstrap_get(int rank, const char *key, void *buf, size_t *len_p);

/*
 * Telling loomrun that a failure is a consequence. When a rank fails
 * because a peer died (its PMIx fence or get failed, or a transport saw the
 * peer go), loomrun must not name it as the job's culprit even if its own
 * end reaches loomrun first. loomrun gives every rank the write end of one
 * pipe, shared by the node's ranks, and its number in LOOM_BOOTSTRAP_NOTE_ENV;
 * a rank that sees a peer fail writes one line "RANK PEER\n" (PEER -1 when
 * unknown) there before it can fail itself. A line is shorter than
 * PIPE_BUF, so lines of different ranks never mix, and it is in the pipe
 * before the rank's exit, abort or death can be seen. Under other launchers
 * (no such variable) this is a no-op.
 */
#define LOOM_BOOTSTRAP_NOTE_ENV "LOOMRUN_NOTE_FD"

/**
 * Tell the launcher that this rank saw rank @p peer fail (-1: some peer),
 * so that its own failure, if one follows, is taken as a consequence. Only
 * the first call of a process writes; later calls do nothing. Safe before
 * loom_bootstrap_init() (then nothing is written).
 */
void loom_bootstrap_note_peer_failure(int peer);

/** Ask the launcher to abort the whole job with @p code, showing @p msg. */
void loom_bootstrap_abort(int code, const char *msg) __attribute__((noreturn));

/** Disconnect from the launcher. */
void loom_bootstrap_finalize(void);

/*
 * Shared-memory segment naming rule, shared by every transport that creates
 * POSIX shm segments and by loomrun, which removes what a crashed job left:
 *     "/loom-" + jobid with every character outside [A-Za-z0-9._-]
 *     replaced by '_' + "-"
 * A transport appends its own suffix (e.g. "shm-r3") to this prefix; loomrun
 * unlinks every /dev/shm entry that starts with the prefix (without '/')
 * after the job ends, cleanly or not.
 */

/** Longest prefix loom_bootstrap_shm_prefix_for() writes, with its NUL. */
#define LOOM_BOOTSTRAP_SHM_PREFIX_MAX 160

/**
 * Write the shm segment name prefix of job @p jobid into @p buf.
 * @return LOOM_OK, LOOM_ERR_INVALID_ARG (empty jobid) or LOOM_ERR_TRUNCATED
 *         (@p len too small; LOOM_BOOTSTRAP_SHM_PREFIX_MAX always suffices).
 */
loom_status_t loom_bootstrap_shm_prefix_for(const char *jobid, char *buf, size_t len);

/**
 * The shm segment name prefix of this job (after loom_bootstrap_init()).
 * @return as loom_bootstrap_shm_prefix_for(); LOOM_ERR_NOT_INITIALIZED before init.
 */
loom_status_t loom_bootstrap_shm_prefix(char *buf, size_t len);

#endif /* LOOM_BOOTSTRAP_INT_H */
