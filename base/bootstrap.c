/*
 * bootstrap.c: the job's out-of-band channel over the OpenPMIx client.
 *
 * Job information comes from what the launcher registered: PMIX_JOB_SIZE
 * (not PMIX_UNIV_SIZE, which is the slot count under Open MPI's mpirun),
 * PMIX_LOCAL_SIZE / PMIX_LOCAL_PEERS with the wildcard rank, and per proc
 * PMIX_LOCAL_RANK and PMIX_HOSTNAME. The client library answers
 * PMIX_HOSTNAME for any rank from the node and proc maps every PMIx launcher
 * registers (loomrun, mpirun, srun --mpi=pmix), so the host of every rank is
 * known at init from the local store, without a collective.
 *
 * Without any PMIx server PMIx_Init fails (UNREACHABLE) and the process
 * runs as a singleton: put/get work on a local table and a fence is a no-op.
 * If the environment says a launcher started us (PMIX_NAMESPACE is set) a
 * failing PMIx_Init is an error, never a silent singleton.
 */
#include "bootstrap_int.h"
#include "base_config_int.h"
#include "log_int.h"

#include <pmix.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* one blob of a singleton's local table */
typedef struct loom_bootstrap_kv {
    struct loom_bootstrap_kv *next;
    char                     *key;
    size_t                    len;
    unsigned char             data[];
} loom_bootstrap_kv_t;

typedef struct loom_bootstrap_state {
    int                    initialized;
    int                    fenced;      /* a fence completed: peers' data is local */
    int                    timeout;     /* seconds, 0 = forever */
    pmix_proc_t            myproc;
    loom_bootstrap_info_t  info;
    int                   *local_peers;
    int                   *node_of_rank;
    char                 **hostnames;
    char                   jobid[PMIX_MAX_NSLEN + 1];
    loom_bootstrap_kv_t   *kv;          /* singleton only */
    int                    note_fd;     /* loomrun's note pipe, -1 if none */
} loom_bootstrap_state_t;

static loom_bootstrap_state_t loom_bootstrap;
static atomic_int loom_bootstrap_noted;  /* a peer failure was noted already */

/* The host of @p rank for messages ("?" when unknown). */
static const char *loom_bootstrap_host_of(int rank)
{
    if (loom_bootstrap.hostnames == NULL || rank < 0 ||
        rank >= loom_bootstrap.info.size || loom_bootstrap.hostnames[rank] == NULL) {
        return "?";
    }
    return loom_bootstrap.hostnames[rank];
}

static loom_status_t loom_bootstrap_status_of(pmix_status_t rc)
{
    switch (rc) {
    case PMIX_SUCCESS:        return LOOM_OK;
    case PMIX_ERR_TIMEOUT:    return LOOM_ERR_TIMEOUT;
    case PMIX_ERR_NOT_FOUND:  return LOOM_ERR_NOT_FOUND;
    case PMIX_ERR_NOMEM:      return LOOM_ERR_NO_MEMORY;
    case PMIX_ERR_PROC_ABORTED:
    case PMIX_ERR_LOST_CONNECTION:
    case PMIX_ERR_PARTIAL_SUCCESS:
        return LOOM_ERR_PEER_FAILED;
    default:                  return LOOM_ERR_BOOTSTRAP;
    }
}

/* ---- reading job information -------------------------------------------- */

/* Get a job-level (wildcard) or per-proc key; *val_p released by the caller. */
static pmix_status_t loom_bootstrap_pmix_get(pmix_rank_t rank, const char *key,
                                             pmix_value_t **val_p)
{
    pmix_proc_t proc;
    pmix_info_t info;
    bool optional = true;
    pmix_status_t rc;

    /* job data was registered with the server before we started: it is in
     * the local store, so do not ask the server for what is not there */
    PMIX_PROC_LOAD(&proc, loom_bootstrap.myproc.nspace, rank);
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    rc = PMIx_Get(&proc, key, &info, 1, val_p);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static int loom_bootstrap_get_uint(pmix_rank_t rank, const char *key, long *value_p)
{
    pmix_value_t *val = NULL;
    long v;

    if (loom_bootstrap_pmix_get(rank, key, &val) != PMIX_SUCCESS) {
        return -1;
    }
    switch (val->type) {
    case PMIX_UINT32: v = (long)val->data.uint32; break;
    case PMIX_UINT16: v = (long)val->data.uint16; break;
    case PMIX_INT:    v = (long)val->data.integer; break;
    case PMIX_UINT64: v = (long)val->data.uint64; break;
    case PMIX_PROC_RANK: v = (long)val->data.rank; break;
    default:          v = -1; break;
    }
    PMIX_VALUE_RELEASE(val);
    if (v < 0) {
        return -1;
    }
    *value_p = v;
    return 0;
}

static int loom_bootstrap_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Parse PMIX_LOCAL_PEERS ("0,1,2" or ranges "0-3,8") into a sorted array. */
static int loom_bootstrap_parse_peers(const char *s, int size, int *peers, int max)
{
    int n = 0;

    while (*s != '\0') {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;

        if (end == s) {
            return -1;
        }
        if (*end == '-') {
            s  = end + 1;
            hi = strtol(s, &end, 10);
            if (end == s) {
                return -1;
            }
        }
        for (long r = lo; r <= hi; ++r) {
            if (r < 0 || r >= size || n == max) {
                return -1;
            }
            peers[n++] = (int)r;
        }
        s = (*end == ',') ? end + 1 : end;
        if (*end != ',' && *end != '\0') {
            return -1;
        }
    }
    qsort(peers, (size_t)n, sizeof(int), loom_bootstrap_cmp_int);
    return n;
}

/* Fill local_peers/local_size; falls back to node_of_rank when not given. */
static loom_status_t loom_bootstrap_read_local(void)
{
    loom_bootstrap_info_t *info = &loom_bootstrap.info;
    pmix_value_t *val = NULL;
    int n = -1;
    long v;

    if (loom_bootstrap_pmix_get(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, &val) ==
        PMIX_SUCCESS) {
        if (val->type == PMIX_STRING && val->data.string != NULL) {
            n = loom_bootstrap_parse_peers(val->data.string, info->size,
                                           loom_bootstrap.local_peers, info->size);
        }
        if (n < 0) {
            loom_warn("bootstrap", "cannot parse PMIX_LOCAL_PEERS '%s': deriving "
                      "the local ranks from host names",
                      val->type == PMIX_STRING ? val->data.string : "(not a string)");
        }
        PMIX_VALUE_RELEASE(val);
    }
    if (n <= 0) {
        n = 0;
        for (int r = 0; r < info->size; ++r) {
            if (loom_bootstrap.node_of_rank[r] == loom_bootstrap.node_of_rank[info->rank]) {
                loom_bootstrap.local_peers[n++] = r;
            }
        }
    }
    info->local_size = n;
    info->local_rank = -1;
    for (int i = 0; i < n; ++i) {
        if (loom_bootstrap.local_peers[i] == info->rank) {
            info->local_rank = i;
        }
    }
    if (loom_bootstrap_get_uint(loom_bootstrap.myproc.rank, PMIX_LOCAL_RANK, &v) == 0) {
        info->local_rank = (int)v;
    }
    if (info->local_rank < 0 || info->local_rank >= n) {
        loom_error("bootstrap", "rank %d is not among its node's %d local ranks "
                   "(PMIX_LOCAL_PEERS / PMIX_LOCAL_RANK disagree)", info->rank, n);
        return LOOM_ERR_BOOTSTRAP;
    }
    return LOOM_OK;
}

/* Host of every rank, then node_of_rank: index of the host by first appearance. */
static loom_status_t loom_bootstrap_read_hosts(void)
{
    int size = loom_bootstrap.info.size, nodes = 0;

    for (int r = 0; r < size; ++r) {
        pmix_value_t *val = NULL;
        pmix_status_t rc = loom_bootstrap_pmix_get((pmix_rank_t)r, PMIX_HOSTNAME, &val);

        if (rc == PMIX_SUCCESS) {
            if (val->type == PMIX_STRING && val->data.string != NULL) {
                loom_bootstrap.hostnames[r] = strdup(val->data.string);
            }
            PMIX_VALUE_RELEASE(val);
        }
        if (loom_bootstrap.hostnames[r] == NULL) {
            loom_error("bootstrap", "no host name for rank %d of job %s (PMIX_HOSTNAME: %s): "
                       "the launcher registered no node and proc maps?", r,
                       loom_bootstrap.jobid, rc == PMIX_SUCCESS ? "not a string" :
                       PMIx_Error_string(rc));
            return LOOM_ERR_BOOTSTRAP;
        }
    }
    for (int r = 0; r < size; ++r) {
        int node = nodes;
        for (int q = 0; q < r; ++q) {
            if (strcmp(loom_bootstrap.hostnames[q], loom_bootstrap.hostnames[r]) == 0) {
                node = loom_bootstrap.node_of_rank[q];
                break;
            }
        }
        nodes += (node == nodes);
        loom_bootstrap.node_of_rank[r] = node;
    }
    return LOOM_OK;
}

/* ---- init ------------------------------------------------------------------ */

static loom_status_t loom_bootstrap_alloc(int size)
{
    loom_bootstrap.local_peers  = calloc((size_t)size, sizeof(int));
    loom_bootstrap.node_of_rank = calloc((size_t)size, sizeof(int));
    loom_bootstrap.hostnames    = calloc((size_t)size, sizeof(char *));
    if (loom_bootstrap.local_peers == NULL || loom_bootstrap.node_of_rank == NULL ||
        loom_bootstrap.hostnames == NULL) {
        loom_error("bootstrap", "cannot allocate job tables for %d ranks", size);
        return LOOM_ERR_NO_MEMORY;
    }
    return LOOM_OK;
}

static void loom_bootstrap_free_tables(void)
{
    if (loom_bootstrap.hostnames != NULL) {
        for (int r = 0; r < loom_bootstrap.info.size; ++r) {
            free(loom_bootstrap.hostnames[r]);
        }
    }
    free(loom_bootstrap.hostnames);
    free(loom_bootstrap.node_of_rank);
    free(loom_bootstrap.local_peers);
    loom_bootstrap.hostnames    = NULL;
    loom_bootstrap.node_of_rank = NULL;
    loom_bootstrap.local_peers  = NULL;
    while (loom_bootstrap.kv != NULL) {
        loom_bootstrap_kv_t *kv = loom_bootstrap.kv;
        loom_bootstrap.kv = kv->next;
        free(kv->key);
        free(kv);
    }
}

static loom_status_t loom_bootstrap_init_singleton(void)
{
    char host[256] = "localhost";
    loom_status_t status;

    gethostname(host, sizeof(host) - 1);
    snprintf(loom_bootstrap.jobid, sizeof(loom_bootstrap.jobid), "singleton.%ld",
             (long)getpid());
    loom_bootstrap.info.singleton = 1;
    loom_bootstrap.info.size      = 1;
    status = loom_bootstrap_alloc(1);
    if (status != LOOM_OK) {
        return status;
    }
    loom_bootstrap.hostnames[0] = strdup(host);
    if (loom_bootstrap.hostnames[0] == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    loom_bootstrap.local_peers[0] = 0;
    loom_bootstrap.info.local_size = 1;
    return LOOM_OK;
}

static loom_status_t loom_bootstrap_init_pmix(void)
{
    loom_bootstrap_info_t *info = &loom_bootstrap.info;
    loom_status_t status;
    long size;

    snprintf(loom_bootstrap.jobid, sizeof(loom_bootstrap.jobid), "%s",
             loom_bootstrap.myproc.nspace);
    info->rank = (int)loom_bootstrap.myproc.rank;
    if (loom_bootstrap_get_uint(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size) != 0 ||
        size < 1 || size > 0x7fffffff || info->rank >= size) {
        loom_error("bootstrap", "the launcher gave no valid PMIX_JOB_SIZE for job %s "
                   "(rank %d)", loom_bootstrap.jobid, info->rank);
        return LOOM_ERR_BOOTSTRAP;
    }
    info->size = (int)size;
    status = loom_bootstrap_alloc(info->size);
    if (status == LOOM_OK) {
        status = loom_bootstrap_read_hosts();
    }
    if (status == LOOM_OK) {
        status = loom_bootstrap_read_local();
    }
    return status;
}

/* Connect to a PMIx server; LOOM_ERR_NOT_FOUND means "be a singleton". */
static loom_status_t loom_bootstrap_connect(void)
{
    pmix_status_t rc = PMIx_Init(&loom_bootstrap.myproc, NULL, 0);

    if (rc == PMIX_SUCCESS) {
        return LOOM_OK;
    }
    if (getenv("PMIX_NAMESPACE") == NULL && getenv("PMIX_RANK") == NULL) {
        loom_debug("bootstrap", "no PMIx server (%s): running as a singleton",
                   PMIx_Error_string(rc));
        return LOOM_ERR_NOT_FOUND;
    }
    loom_error("bootstrap", "PMIx_Init failed: %s; the launcher set PMIX_NAMESPACE=%s "
               "PMIX_RANK=%s but its PMIx server cannot be reached",
               PMIx_Error_string(rc), getenv("PMIX_NAMESPACE") ? getenv("PMIX_NAMESPACE") : "",
               getenv("PMIX_RANK") ? getenv("PMIX_RANK") : "");
    return LOOM_ERR_BOOTSTRAP;
}

static void loom_bootstrap_set_cpu_info(void)
{
    loom_bootstrap_info_t *info = &loom_bootstrap.info;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    info->num_cores = cores > 0 ? (int)cores : 1;
    if (loom_config_is_set(LOOM_BASE_CFG(OVERSUBSCRIBED))) {
        info->oversubscribed = loom_config_int(LOOM_BASE_CFG(OVERSUBSCRIBED)) != 0;
    } else {
        info->oversubscribed = info->local_size > info->num_cores;
    }
    /* loomrun always sets LOOM_OVERSUBSCRIBED (0 or 1), so this share holds
     * whatever it says */
    info->threads_fit = info->num_cores / (info->local_size > 0 ? info->local_size : 1);
}

/* The launcher's note pipe (bootstrap_int.h): the fd its variable names,
 * if that is the write end of a pipe; -1 otherwise (another launcher, or a
 * wrapper closed it). */
static int loom_bootstrap_note_fd_open(void)
{
    const char *s = getenv(LOOM_BOOTSTRAP_NOTE_ENV);
    struct stat st;
    char *end;
    long fd;
    int fl;

    if (s == NULL || *s == '\0') {
        return -1;
    }
    errno = 0;
    fd = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || fd < 3 || fd > INT_MAX ||
        fstat((int)fd, &st) != 0 || !S_ISFIFO(st.st_mode) ||
        (fl = fcntl((int)fd, F_GETFL)) < 0 || (fl & O_ACCMODE) != O_WRONLY) {
        loom_debug("bootstrap", "%s=%s is not the write end of a pipe: the launcher will "
                   "not hear that a failure here follows a peer's", LOOM_BOOTSTRAP_NOTE_ENV, s);
        return -1;
    }
    return (int)fd;
}

loom_status_t loom_bootstrap_init(const loom_bootstrap_info_t **info_p)
{
    loom_bootstrap_state_t *bs = &loom_bootstrap;
    loom_status_t status;

    if (bs->initialized) {
        *info_p = &bs->info;
        return LOOM_OK;
    }
    status = loom_config_register(&loom_base_config);
    if (status != LOOM_OK) {
        return status;
    }
    memset(bs, 0, sizeof(*bs));
    bs->timeout = (int)loom_config_int(LOOM_BASE_CFG(BOOTSTRAP_TIMEOUT));
    if (bs->timeout < 0) {
        loom_error("bootstrap", "LOOM_BOOTSTRAP_TIMEOUT=%d must be >= 0 (0 = forever)",
                   bs->timeout);
        return LOOM_ERR_CONFIG;
    }
    status = loom_bootstrap_connect();
    if (status == LOOM_ERR_NOT_FOUND) {
        status = loom_bootstrap_init_singleton();
    } else if (status == LOOM_OK) {
        status = loom_bootstrap_init_pmix();
        if (status != LOOM_OK) {
            PMIx_Finalize(NULL, 0);
        }
    }
    if (status != LOOM_OK) {
        goto err_free_tables;
    }
    bs->note_fd = bs->info.singleton ? -1 : loom_bootstrap_note_fd_open();
    atomic_store(&loom_bootstrap_noted, 0);
    bs->info.local_peers  = bs->local_peers;
    bs->info.node_of_rank = bs->node_of_rank;
    bs->info.hostnames    = (const char *const *)bs->hostnames;
    bs->info.jobid        = bs->jobid;
    loom_bootstrap_set_cpu_info();
    loom_log_set_identity(bs->info.rank, bs->hostnames[bs->info.rank]);
    bs->initialized = 1;
    loom_debug("bootstrap", "job %s: rank %d of %d, local %d of %d, %d cores%s",
               bs->jobid, bs->info.rank, bs->info.size, bs->info.local_rank,
               bs->info.local_size, bs->info.num_cores,
               bs->info.oversubscribed ? ", oversubscribed" : "");
    *info_p = &bs->info;
    return LOOM_OK;

err_free_tables:
    loom_bootstrap_free_tables();
    memset(bs, 0, sizeof(*bs));
    return status;
}

const loom_bootstrap_info_t *loom_bootstrap_info(void)
{
    return loom_bootstrap.initialized ? &loom_bootstrap.info : NULL;
}

/* ---- modex ------------------------------------------------------------------ */

static loom_status_t loom_bootstrap_check_key(const char *op, const char *key)
{
    if (!loom_bootstrap.initialized) {
        loom_error("bootstrap", "%s before loom_bootstrap_init()", op);
        return LOOM_ERR_NOT_INITIALIZED;
    }
    if (key == NULL || key[0] == '\0' || strlen(key) >= PMIX_MAX_KEYLEN) {
        loom_error("bootstrap", "%s: key '%s' must have 1 to %d characters", op,
                   key ? key : "(null)", PMIX_MAX_KEYLEN - 1);
        return LOOM_ERR_INVALID_ARG;
    }
    return LOOM_OK;
}

static loom_bootstrap_kv_t *loom_bootstrap_kv_find(const char *key)
{
    for (loom_bootstrap_kv_t *kv = loom_bootstrap.kv; kv != NULL; kv = kv->next) {
        if (strcmp(kv->key, key) == 0) {
            return kv;
        }
    }
    return NULL;
}

static loom_status_t loom_bootstrap_kv_put(const char *key, const void *data, size_t len)
{
    loom_bootstrap_kv_t *old = loom_bootstrap_kv_find(key), **pp;
    loom_bootstrap_kv_t *kv = malloc(sizeof(*kv) + len);

    if (kv == NULL || (kv->key = strdup(key)) == NULL) {
        free(kv);
        loom_error("bootstrap", "put '%s': cannot allocate %zu bytes", key, len);
        return LOOM_ERR_NO_MEMORY;
    }
    kv->len = len;
    if (len > 0) {
        memcpy(kv->data, data, len);
    }
    for (pp = &loom_bootstrap.kv; old != NULL && *pp != old; pp = &(*pp)->next) {
    }
    if (old != NULL) {
        *pp = old->next;
        free(old->key);
        free(old);
    }
    kv->next = loom_bootstrap.kv;
    loom_bootstrap.kv = kv;
    return LOOM_OK;
}

loom_status_t loom_bootstrap_put(const char *key, const void *data, size_t len)
{
    pmix_value_t val;
    pmix_status_t rc;
    loom_status_t status = loom_bootstrap_check_key("bootstrap put", key);

    if (status != LOOM_OK) {
        return status;
    }
    if (data == NULL && len > 0) {
        loom_error("bootstrap", "put '%s': NULL data with length %zu", key, len);
        return LOOM_ERR_INVALID_ARG;
    }
    if (loom_bootstrap.info.singleton) {
        return loom_bootstrap_kv_put(key, data, len);
    }
    PMIX_VALUE_CONSTRUCT(&val);
    val.type          = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)(uintptr_t)data;   /* PMIx_Put copies */
    val.data.bo.size  = len;
    rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS) {
        loom_error("bootstrap", "PMIx_Put of key '%s' (%zu bytes) at rank %d failed: %s",
                   key, len, loom_bootstrap.info.rank, PMIx_Error_string(rc));
        return loom_bootstrap_status_of(rc);
    }
    return LOOM_OK;
}

loom_status_t loom_bootstrap_fence(void)
{
    pmix_info_t info[2];
    bool collect = true;
    int timeout = loom_bootstrap.timeout;
    size_t ninfo = 1;
    pmix_status_t rc;

    if (!loom_bootstrap.initialized) {
        loom_error("bootstrap", "fence before loom_bootstrap_init()");
        return LOOM_ERR_NOT_INITIALIZED;
    }
    if (loom_bootstrap.info.singleton) {
        loom_bootstrap.fenced = 1;
        return LOOM_OK;
    }
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        loom_error("bootstrap", "PMIx_Commit at rank %d failed: %s",
                   loom_bootstrap.info.rank, PMIx_Error_string(rc));
        return loom_bootstrap_status_of(rc);
    }
    PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (timeout > 0) {
        PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
        ninfo = 2;
    }
    rc = PMIx_Fence(NULL, 0, info, ninfo);
    for (size_t i = 0; i < ninfo; ++i) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    if (rc != PMIX_SUCCESS) {
        loom_error("bootstrap", "PMIx_Fence of job %s (%d ranks) failed at rank %d: %s%s",
                   loom_bootstrap.jobid, loom_bootstrap.info.size,
                   loom_bootstrap.info.rank, PMIx_Error_string(rc),
                   rc == PMIX_ERR_TIMEOUT ? " (raise LOOM_BOOTSTRAP_TIMEOUT?)" :
                   ": a rank of the job probably died");
        /* every rank's fence fails when one dies (or never comes): whatever
         * this rank does next follows from that */
        loom_bootstrap_note_peer_failure(-1);
        return loom_bootstrap_status_of(rc);
    }
    loom_bootstrap.fenced = 1;
    return LOOM_OK;
}

/* Copy a found blob out; LOOM_ERR_TRUNCATED when @p buf is too small. */
static loom_status_t loom_bootstrap_copy_out(int rank, const char *key, const void *data,
                                             size_t len, void *buf, size_t *len_p)
{
    size_t cap = *len_p;

    *len_p = len;
    if (len > cap && cap == 0) {
        return LOOM_ERR_TRUNCATED;   /* a size query, not an error */
    }
    if (len > cap) {
        loom_error("bootstrap", "get '%s' from rank %d (%s): blob of %zu bytes does not "
                   "fit the %zu-byte buffer", key, rank, loom_bootstrap_host_of(rank),
                   len, cap);
        return LOOM_ERR_TRUNCATED;
    }
    if (len > 0) {
        memcpy(buf, data, len);
    }
    return LOOM_OK;
}

static loom_status_t loom_bootstrap_get_singleton(const char *key, void *buf,
                                                  size_t *len_p)
{
    loom_bootstrap_kv_t *kv = loom_bootstrap_kv_find(key);

    if (kv == NULL) {
        loom_debug("bootstrap", "get '%s': nothing was put under that key", key);
        return LOOM_ERR_NOT_FOUND;
    }
    return loom_bootstrap_copy_out(0, key, kv->data, kv->len, buf, len_p);
}

loom_status_t loom_bootstrap_get(int rank, const char *key, void *buf, size_t *len_p)
{
    pmix_info_t info[2];
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    loom_status_t status = loom_bootstrap_check_key("bootstrap get", key);
    int timeout = loom_bootstrap.timeout;
    bool optional = true;
    size_t ninfo = 0;

    if (status != LOOM_OK) {
        return status;
    }
    if (rank < 0 || rank >= loom_bootstrap.info.size || len_p == NULL ||
        (buf == NULL && *len_p > 0)) {
        loom_error("bootstrap", "get '%s': invalid rank %d (job size %d) or buffer",
                   key, rank, loom_bootstrap.info.size);
        return LOOM_ERR_INVALID_ARG;
    }
    if (loom_bootstrap.info.singleton) {
        return loom_bootstrap_get_singleton(key, buf, len_p);
    }
    /* after a collecting fence every blob is local: a missing key is missing
     * now, not worth a round trip (and a wait) to the server */
    if (loom_bootstrap.fenced) {
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_OPTIONAL, &optional, PMIX_BOOL);
    }
    if (timeout > 0) {
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_TIMEOUT, &timeout, PMIX_INT);
    }
    PMIX_PROC_LOAD(&proc, loom_bootstrap.myproc.nspace, (pmix_rank_t)rank);
    rc = PMIx_Get(&proc, key, ninfo ? info : NULL, ninfo, &val);
    for (size_t i = 0; i < ninfo; ++i) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    if (rc != PMIX_SUCCESS) {
        if (rc == PMIX_ERR_NOT_FOUND) {
            loom_debug("bootstrap", "get '%s' from rank %d (%s): not published", key,
                       rank, loom_bootstrap_host_of(rank));
        } else {
            loom_error("bootstrap", "PMIx_Get of key '%s' from rank %d (%s) at rank %d "
                       "failed: %s", key, rank, loom_bootstrap_host_of(rank),
                       loom_bootstrap.info.rank, PMIx_Error_string(rc));
        }
        if (loom_bootstrap_status_of(rc) == LOOM_ERR_PEER_FAILED || rc == PMIX_ERR_TIMEOUT) {
            loom_bootstrap_note_peer_failure(rank);   /* it died, or never published */
        }
        return loom_bootstrap_status_of(rc);
    }
    if (val->type != PMIX_BYTE_OBJECT) {
        loom_error("bootstrap", "get '%s' from rank %d (%s): value has PMIx type %d, "
                   "not a byte object", key, rank, loom_bootstrap_host_of(rank), val->type);
        status = LOOM_ERR_BOOTSTRAP;
    } else {
        status = loom_bootstrap_copy_out(rank, key, val->data.bo.bytes, val->data.bo.size,
                                         buf, len_p);
    }
    PMIX_VALUE_RELEASE(val);
    return status;
}

/* ---- sanitizer support ------------------------------------------------------ */

/*
 * LeakSanitizer calls this hook (when a program defines it) for built-in
 * suppressions. OpenPMIx 4.2.2 keeps a few small allocations after
 * PMIx_Finalize / PMIx_server_finalize (pmix_rte_init, value loads): without
 * this every SANITIZE=address run of a PMIx program would fail on a leak
 * that is not ours. Only frames inside libpmix are suppressed. The prototype
 * is here, not in a header: nobody calls it but the sanitizer runtime.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}

/* ... and without a "Suppressions used" report on every rank's stderr
 * (LSAN_OPTIONS still overrides this default). */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

/* ThreadSanitizer, likewise: uninstrumented libpmix and the libevent it
 * runs on report races and "double locks" of their own (libpmix's listener
 * thread closes a pipe PMIx_server_finalize writes to; libevent's lock
 * callbacks are invisible to TSan). Reports inside those libraries only. */
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
    return "race:libpmix.so\n"
           "race:libevent\n"
           "mutex:libpmix.so\n"
           "mutex:libevent\n"
           "called_from_lib:libpmix.so\n"
           "called_from_lib:libevent_core\n"
           "called_from_lib:libevent_pthreads\n";
}

/* ---- abort, finalize, naming --------------------------------------------- */

void loom_bootstrap_note_peer_failure(int peer)
{
    char line[32];
    int fd = loom_bootstrap.note_fd, n;

    if (!loom_bootstrap.initialized || fd < 0 ||
        atomic_exchange(&loom_bootstrap_noted, 1) != 0) {
        return;
    }
    n = snprintf(line, sizeof(line), "%d %d\n", loom_bootstrap.info.rank,
                 peer >= 0 && peer < loom_bootstrap.info.size ? peer : -1);
    /* one write of a few bytes: whole or nothing, never blocks (loomrun made
     * the pipe non-blocking); a lost note only makes loomrun less sure */
    if (write(fd, line, (size_t)n) != n) {
        loom_debug("bootstrap", "rank %d could not tell loomrun that it saw a peer fail: %s",
                   loom_bootstrap.info.rank, strerror(errno));
    }
}

void loom_bootstrap_abort(int code, const char *msg)
{
    const char *text = (msg != NULL && *msg != '\0') ? msg : "(no message)";
    int rank = loom_bootstrap.initialized ? loom_bootstrap.info.rank : 0;

    fflush(stdout);
    if (loom_bootstrap.initialized && !loom_bootstrap.info.singleton) {
        /* blocks until the launcher has the message; it then kills the job */
        pmix_status_t rc = PMIx_Abort(code, text, NULL, 0);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "loom: rank %d aborted the job with status %d: %s "
                    "(PMIx_Abort failed: %s)\n", rank, code, text, PMIx_Error_string(rc));
        }
    } else {
        /* the shell sees the code modulo 256, as under mpirun: say so */
        char shell[64] = "";
        if (code < 0 || code > 255) {
            snprintf(shell, sizeof(shell), "; exit status %d (%d mod 256)", code & 0xff, code);
        }
        fprintf(stderr, "loom: rank %d (%s) aborted with status %d: %s%s\n", rank,
                loom_bootstrap.initialized ? loom_bootstrap_host_of(rank) : "no job",
                code, text, shell);
    }
    fflush(stderr);
    /* _exit: no atexit handler may block on a job that is going away */
    _exit(code);
}

void loom_bootstrap_finalize(void)
{
    if (!loom_bootstrap.initialized) {
        return;
    }
    if (!loom_bootstrap.info.singleton) {
        pmix_status_t rc = PMIx_Finalize(NULL, 0);
        if (rc != PMIX_SUCCESS) {
            loom_warn("bootstrap", "PMIx_Finalize at rank %d: %s", loom_bootstrap.info.rank,
                      PMIx_Error_string(rc));
        }
    }
    loom_bootstrap_free_tables();
    memset(&loom_bootstrap, 0, sizeof(loom_bootstrap));
}

loom_status_t loom_bootstrap_shm_prefix_for(const char *jobid, char *buf, size_t len)
{
    static const char head[] = "/loom-";
    size_t n = sizeof(head) - 1, jl;

    if (jobid == NULL || jobid[0] == '\0' || buf == NULL) {
        return LOOM_ERR_INVALID_ARG;
    }
    jl = strlen(jobid);
    if (n + jl + 2 > len) {
        return LOOM_ERR_TRUNCATED;
    }
    memcpy(buf, head, n);
    for (size_t i = 0; i < jl; ++i) {
        char c = jobid[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        buf[n++] = ok ? c : '_';
    }
    buf[n++] = '-';
    buf[n]   = '\0';
    return LOOM_OK;
}

loom_status_t loom_bootstrap_shm_prefix(char *buf, size_t len)
{
    if (!loom_bootstrap.initialized) {
        return LOOM_ERR_NOT_INITIALIZED;
    }
    return loom_bootstrap_shm_prefix_for(loom_bootstrap.jobid, buf, len);
}
