/*
 * loomrun_pmix.c: loomrun as a PMIx server host (OpenPMIx 4.2).
 *
 * Each node of a job (the head's, and each daemon's) hosts one server for
 * its own ranks. It registers the namespace with what clients need to
 * derive their place: the node map and proc map of the whole job (so every
 * rank knows every rank's host), this node's local peers, per-proc info
 * arrays that begin with PMIX_RANK, then each local client before it is
 * forked. The upcalls:
 *   client_connected / client_finalized  record the fact in the rank's atomics
 *                                        (loomrun tells "exited without
 *                                        finalizing" from a plain exit by them)
 *   abort                                hand the message to the event loop,
 *                                        then release the caller
 *   fence_nb                             single node: all data is here, give it
 *                                        straight back (4.2 completes local
 *                                        fences itself, except when a rank died
 *                                        before the others entered the fence);
 *                                        several nodes: hand this node's
 *                                        contribution to the loop, which
 *                                        allgathers it through the head
 *   direct_modex                         (asked only for procs on other nodes)
 *                                        hand the request to the loop, which
 *                                        asks the proc's node through the head
 * Upcalls run on the library's progress thread: they return at once and
 * never call a blocking PMIx API (that deadlocks the server); what the loop
 * must do reaches it through the event pipe, whole, before the upcall
 * returns.
 */
#include "loomrun_int.h"

#include <pmix.h>          /* PMIx_Error_string, PMIx_Info_list_* */
#include <pmix_server.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static loomrun_job_t *loomrun_pmix_job;

/* A blocking server call succeeded (4.2 answers OPERATION_SUCCEEDED). */
static int loomrun_pmix_ok(pmix_status_t rc)
{
    return rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED;
}

static loomrun_rank_t *loomrun_pmix_rank_of(const pmix_proc_t *proc, void *server_object)
{
    loomrun_job_t *job = loomrun_pmix_job;

    if (server_object != NULL) {
        return server_object;
    }
    if (job == NULL || proc == NULL || proc->rank >= (pmix_rank_t)job->opts.nranks ||
        strcmp(proc->nspace, job->nspace) != 0) {
        return NULL;
    }
    return &job->ranks[proc->rank];
}

/* ---- upcalls (PMIx progress thread) -------------------------------------- */

static pmix_status_t loomrun_pmix_client_connected(const pmix_proc_t *proc,
                                                   void *server_object,
                                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    loomrun_rank_t *rk = loomrun_pmix_rank_of(proc, server_object);

    if (rk != NULL) {
        atomic_store_explicit(&rk->connected, 1, memory_order_release);
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t loomrun_pmix_client_finalized(const pmix_proc_t *proc,
                                                   void *server_object,
                                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    loomrun_rank_t *rk = loomrun_pmix_rank_of(proc, server_object);

    /* set before the client is released: it can only exit after this */
    if (rk != NULL) {
        atomic_store_explicit(&rk->finalized, 1, memory_order_release);
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t loomrun_pmix_abort(const pmix_proc_t *proc, void *server_object,
                                        int status, const char msg[],
                                        pmix_proc_t procs[], size_t nprocs,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    loomrun_rank_t *rk = loomrun_pmix_rank_of(proc, server_object);
    loomrun_event_t ev;
    ssize_t n;

    (void)procs;
    (void)nprocs;   /* aborting part of the job is aborting the job */
    memset(&ev, 0, sizeof(ev));
    ev.type   = LOOMRUN_EVENT_ABORT;
    ev.rank   = rk ? rk->rank : (proc ? (int)proc->rank : -1);
    ev.status = status;
    snprintf(ev.msg, sizeof(ev.msg), "%s", msg ? msg : "");
    /* the event is in the pipe before the caller is released, so the loop
     * learns of the abort before it can reap the aborting rank */
    do {
        n = write(loomrun_pmix_job->event_wfd, &ev, sizeof(ev));
    } while (n < 0 && errno == EINTR);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
    return PMIX_SUCCESS;
}

static void loomrun_pmix_release_data(void *cbdata)
{
    free(cbdata);
}

/* Hand a request to the loop through the event pipe. */
static int loomrun_pmix_post(int type, void *ptr)
{
    loomrun_event_t ev;
    ssize_t n;

    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.ptr  = ptr;
    do {
        n = write(loomrun_pmix_job->event_wfd, &ev, sizeof(ev));
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof(ev) ? 0 : -1;
}

/* "nspace:*" for a whole job, else the proc list: the same string on every
 * node for the same fence, so the head can match the contributions. */
static char *loomrun_pmix_fence_id(const pmix_proc_t procs[], size_t nprocs, int *nnodes_p)
{
    loomrun_job_t *job = loomrun_pmix_job;
    char *id = NULL, *seen = calloc((size_t)job->map.nnodes, 1);
    size_t len = 0;
    FILE *f = open_memstream(&id, &len);
    int nnodes = 0;

    for (size_t i = 0; f != NULL && seen != NULL && i < nprocs; ++i) {
        pmix_rank_t r = procs[i].rank;
        fprintf(f, "%s%s:", i ? "," : "", procs[i].nspace);
        if (r == PMIX_RANK_WILDCARD || r >= (pmix_rank_t)job->opts.nranks) {
            fprintf(f, "*");
            memset(seen, 1, (size_t)job->map.nnodes);
        } else {
            fprintf(f, "%u", r);
            seen[job->map.node_of[r]] = 1;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    for (int n = 0; seen != NULL && n < job->map.nnodes; ++n) {
        nnodes += seen[n];
    }
    free(seen);
    *nnodes_p = nnodes;
    return id;
}

static pmix_status_t loomrun_pmix_fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                           const pmix_info_t info[], size_t ninfo,
                                           char *data, size_t ndata,
                                           pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    loomrun_coll_t *coll;
    char *copy = NULL;

    (void)info;
    (void)ninfo;
    /* Hand back (or on) our own copy, released through relfn, so the
     * library may free its buffer whenever it likes. */
    if (ndata > 0) {
        copy = malloc(ndata);
        if (copy == NULL) {
            return PMIX_ERR_NOMEM;
        }
        memcpy(copy, data, ndata);
    }
    if (loomrun_pmix_job->map.nnodes == 1) {
        /* one node: the contribution of this server is the whole result */
        if (cbfunc != NULL) {
            cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, loomrun_pmix_release_data, copy);
        } else {
            free(copy);
        }
        return PMIX_SUCCESS;
    }
    coll = calloc(1, sizeof(*coll));
    if (coll == NULL || (coll->id = loomrun_pmix_fence_id(procs, nprocs, &coll->nnodes)) == NULL) {
        free(coll);
        free(copy);
        return PMIX_ERR_NOMEM;
    }
    coll->data   = copy;
    coll->ndata  = ndata;
    coll->cbfunc = (void *)cbfunc;
    coll->cbdata = cbdata;
    if (loomrun_pmix_post(LOOMRUN_EVENT_FENCE, coll) != 0) {
        loomrun_coll_free(coll);
        return PMIX_ERROR;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t loomrun_pmix_direct_modex(const pmix_proc_t *proc,
                                               const pmix_info_t info[], size_t ninfo,
                                               pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    loomrun_job_t *job = loomrun_pmix_job;
    loomrun_dmdx_t *d;

    (void)info;
    (void)ninfo;
    if (proc == NULL || strcmp(proc->nspace, job->nspace) != 0 ||
        proc->rank >= (pmix_rank_t)job->opts.nranks || job->map.nnodes == 1) {
        return PMIX_ERR_NOT_FOUND;
    }
    d = calloc(1, sizeof(*d));
    if (d == NULL) {
        return PMIX_ERR_NOMEM;
    }
    d->rank   = (int)proc->rank;
    d->origin = job->my_node;
    d->cbfunc = (void *)cbfunc;
    d->cbdata = cbdata;
    if (loomrun_pmix_post(LOOMRUN_EVENT_DMODEX, d) != 0) {
        free(d);
        return PMIX_ERROR;
    }
    return PMIX_SUCCESS;
}

static pmix_server_module_t loomrun_pmix_module = {
    .client_connected = loomrun_pmix_client_connected,
    .client_finalized = loomrun_pmix_client_finalized,
    .abort            = loomrun_pmix_abort,
    .fence_nb         = loomrun_pmix_fence_nb,
    .direct_modex     = loomrun_pmix_direct_modex,
};

/* ---- host side (main thread) --------------------------------------------- */

int loomrun_pmix_init(loomrun_job_t *job)
{
    pmix_info_t info[3];
    pmix_status_t rc;

    loomrun_pmix_job = job;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, job->tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, job->tmpdir, PMIX_STRING);
    /* the node's name as the job's maps have it (hosts may share a UTS name) */
    PMIX_INFO_LOAD(&info[2], PMIX_HOSTNAME, job->map.names[job->my_node], PMIX_STRING);
    rc = PMIx_server_init(&loomrun_pmix_module, info, 3);
    for (int i = 0; i < 3; ++i) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    if (!loomrun_pmix_ok(rc)) {
        fprintf(stderr, "loomrun: PMIx_server_init (tmpdir %s) failed: %s\n",
                job->tmpdir, PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* The ranks of node @p n, "0,1,2" (PMIx_generate_ppn does not expand
 * ranges like "0-3"); with @p n < 0 every node's, "0,1;2,3" for the proc map. */
static char *loomrun_pmix_rank_list(const loomrun_map_t *map, int n)
{
    size_t len = 0;
    char *s = NULL;
    FILE *f = open_memstream(&s, &len);

    for (int k = (n < 0 ? 0 : n); f != NULL && k < (n < 0 ? map->nnodes : n + 1); ++k) {
        for (int i = 0; i < map->count[k]; ++i) {
            fprintf(f, "%s%d", i ? "," : (k > 0 && n < 0 ? ";" : ""),
                    map->ranks[map->first[k] + i]);
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return s;
}

/* "h1,h2,h3" for the node map. */
static char *loomrun_pmix_node_list(const loomrun_map_t *map)
{
    size_t len = 0;
    char *s = NULL;
    FILE *f = open_memstream(&s, &len);

    for (int k = 0; f != NULL && k < map->nnodes; ++k) {
        fprintf(f, "%s%s", k ? "," : "", map->names[k]);
    }
    if (f != NULL) {
        fclose(f);
    }
    return s;
}

/* Index of rank @p r among its node's ranks. */
static uint16_t loomrun_pmix_local_rank(const loomrun_map_t *map, int r)
{
    int n = map->node_of[r];

    for (int i = 0; i < map->count[n]; ++i) {
        if (map->ranks[map->first[n] + i] == r) {
            return (uint16_t)i;
        }
    }
    return 0;
}

/* Per-proc info: an array that must begin with PMIX_RANK. */
static pmix_status_t loomrun_pmix_add_proc(void *list, loomrun_job_t *job, int r)
{
    void *pl = PMIx_Info_list_start();
    pmix_rank_t rank = (pmix_rank_t)r;
    uint16_t lrank = loomrun_pmix_local_rank(&job->map, r);
    uint32_t zero = 0, nodeid = (uint32_t)job->map.node_of[r];
    pmix_data_array_t darray;
    pmix_status_t rc;

    if (pl == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = PMIx_Info_list_add(pl, PMIX_RANK, &rank, PMIX_PROC_RANK);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(pl, PMIX_LOCAL_RANK, &lrank, PMIX_UINT16);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(pl, PMIX_NODE_RANK, &lrank, PMIX_UINT16);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(pl, PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(pl, PMIX_APP_RANK, &rank, PMIX_PROC_RANK);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(pl, PMIX_APPNUM, &zero, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(pl, PMIX_NODEID, &nodeid, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(pl, PMIX_HOSTNAME,
                                                    job->map.names[nodeid], PMIX_STRING);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_convert(pl, &darray);
    PMIx_Info_list_release(pl);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    rc = PMIx_Info_list_add(list, PMIX_PROC_INFO_ARRAY, &darray, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
    return rc;
}

/* Job-level info: sizes, maps, local peers. */
static pmix_status_t loomrun_pmix_add_job(void *list, loomrun_job_t *job, char *ranks,
                                          char *nodemap, char *procmap)
{
    const loomrun_map_t *map = &job->map;
    uint32_t n = (uint32_t)job->opts.nranks, zero = 0;
    uint32_t local = (uint32_t)map->count[job->my_node], nnodes = (uint32_t)map->nnodes;
    pmix_rank_t leader = (pmix_rank_t)map->ranks[map->first[job->my_node]];
    pmix_status_t rc;

    rc = PMIx_Info_list_add(list, PMIX_UNIV_SIZE, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_JOB_SIZE, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_MAX_PROCS, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_APP_SIZE, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_LOCAL_SIZE, &local, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_NODE_SIZE, &local, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_APPNUM, &zero, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_JOBID, job->nspace, PMIX_STRING);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_LOCAL_PEERS, ranks, PMIX_STRING);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_NODE_MAP, nodemap, PMIX_REGEX);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_PROC_MAP, procmap, PMIX_REGEX);
    return rc;
}

int loomrun_pmix_register_job(loomrun_job_t *job)
{
    char *ranks = loomrun_pmix_rank_list(&job->map, job->my_node);
    char *allranks = loomrun_pmix_rank_list(&job->map, -1);
    char *nodes = loomrun_pmix_node_list(&job->map);
    char *nodemap = NULL, *procmap = NULL;
    void *list = PMIx_Info_list_start();
    pmix_data_array_t darray = { 0 };
    pmix_status_t rc = PMIX_ERR_NOMEM;
    const char *what = "building the job info";

    if (ranks == NULL || allranks == NULL || nodes == NULL || list == NULL) {
        goto out_free;
    }
    what = "PMIx_generate_regex";
    rc = PMIx_generate_regex(nodes, &nodemap);
    if (rc == PMIX_SUCCESS) {
        what = "PMIx_generate_ppn";
        rc = PMIx_generate_ppn(allranks, &procmap);
    }
    if (rc == PMIX_SUCCESS) {
        what = "building the job info";
        rc = loomrun_pmix_add_job(list, job, ranks, nodemap, procmap);
    }
    for (int r = 0; rc == PMIX_SUCCESS && r < job->opts.nranks; ++r) {
        rc = loomrun_pmix_add_proc(list, job, r);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_convert(list, &darray);
    }
    if (rc == PMIX_SUCCESS) {
        what = "PMIx_server_register_nspace";
        rc = PMIx_server_register_nspace(job->nspace, job->map.count[job->my_node],
                                         darray.array, darray.size, NULL, NULL);
        PMIX_DATA_ARRAY_DESTRUCT(&darray);
    }
out_free:
    if (list != NULL) {
        PMIx_Info_list_release(list);
    }
    free(procmap);
    free(nodemap);
    free(nodes);
    free(allranks);
    free(ranks);
    if (!loomrun_pmix_ok(rc)) {
        fprintf(stderr, "loomrun: registering job %s (%d ranks) with PMIx: %s failed: %s\n",
                job->nspace, job->opts.nranks, what, PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

int loomrun_pmix_setup_rank(loomrun_job_t *job, int rank, char ***env_p)
{
    pmix_proc_t proc;
    pmix_status_t rc;

    PMIX_PROC_LOAD(&proc, job->nspace, (pmix_rank_t)rank);
    rc = PMIx_server_register_client(&proc, getuid(), getgid(), &job->ranks[rank],
                                     NULL, NULL);
    if (!loomrun_pmix_ok(rc)) {
        fprintf(stderr, "loomrun: PMIx_server_register_client for rank %d failed: %s\n",
                rank, PMIx_Error_string(rc));
        return -1;
    }
    rc = PMIx_server_setup_fork(&proc, env_p);
    if (!loomrun_pmix_ok(rc)) {
        fprintf(stderr, "loomrun: PMIx_server_setup_fork for rank %d failed: %s\n",
                rank, PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

void loomrun_pmix_finalize(loomrun_job_t *job)
{
    pmix_status_t rc = PMIx_server_finalize();

    if (!loomrun_pmix_ok(rc) && !job->opts.quiet) {
        fprintf(stderr, "loomrun: PMIx_server_finalize: %s\n", PMIx_Error_string(rc));
    }
    loomrun_pmix_job = NULL;
}

/* ---- multi-node completions (loop thread) --------------------------------- */

void loomrun_coll_free(loomrun_coll_t *coll)
{
    if (coll != NULL) {
        free(coll->id);
        free(coll->data);
        free(coll);
    }
}

/* A malloc'd copy of @p data (NULL for none); -1 on ENOMEM. */
static int loomrun_pmix_dup(const void *data, size_t ndata, char **copy_p)
{
    *copy_p = NULL;
    if (ndata == 0) {
        return 0;
    }
    if ((*copy_p = malloc(ndata)) == NULL) {
        return -1;
    }
    memcpy(*copy_p, data, ndata);
    return 0;
}

void loomrun_pmix_fence_done(loomrun_coll_t *coll, int pmix_status, const void *data,
                             size_t ndata)
{
    pmix_modex_cbfunc_t cbfunc = (pmix_modex_cbfunc_t)coll->cbfunc;
    char *copy;

    if (loomrun_pmix_dup(data, ndata, &copy) != 0) {
        pmix_status = PMIX_ERR_NOMEM;
        ndata = 0;
    }
    if (cbfunc != NULL) {
        cbfunc(pmix_status, copy, ndata, coll->cbdata, loomrun_pmix_release_data, copy);
    } else {
        free(copy);
    }
    loomrun_coll_free(coll);
}

void loomrun_pmix_dmodex_done(loomrun_dmdx_t *d, int pmix_status, const void *data,
                              size_t ndata)
{
    pmix_modex_cbfunc_t cbfunc = (pmix_modex_cbfunc_t)d->cbfunc;
    char *copy;

    if (loomrun_pmix_dup(data, ndata, &copy) != 0) {
        pmix_status = PMIX_ERR_NOMEM;
        ndata = 0;
    }
    if (cbfunc != NULL) {
        cbfunc(pmix_status, copy, ndata, d->cbdata, loomrun_pmix_release_data, copy);
    } else {
        free(copy);
    }
    free(d->data);
    free(d);
}

/* The local server has the data asked for (any thread): back to the loop. */
static void loomrun_pmix_served(pmix_status_t status, char *data, size_t ndata, void *cbdata)
{
    loomrun_dmdx_t *d = cbdata;

    d->status = status;
    if (status == PMIX_SUCCESS && loomrun_pmix_dup(data, ndata, &d->data) != 0) {
        d->status = PMIX_ERR_NOMEM;
    }
    d->ndata = d->data != NULL ? ndata : 0;
    if (loomrun_pmix_post(LOOMRUN_EVENT_DMODEX_DONE, d) != 0) {
        free(d->data);
        free(d);
    }
}

int loomrun_pmix_dmodex_serve(loomrun_job_t *job, loomrun_dmdx_t *d)
{
    pmix_proc_t proc;
    pmix_status_t rc;

    PMIX_PROC_LOAD(&proc, job->nspace, (pmix_rank_t)d->rank);
    rc = PMIx_server_dmodex_request(&proc, loomrun_pmix_served, d);
    if (rc != PMIX_SUCCESS) {
        d->status = rc;
        return -1;
    }
    return 0;
}
