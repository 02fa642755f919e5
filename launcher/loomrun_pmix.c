/*
 * loomrun_pmix.c: loomrun as a PMIx server host (OpenPMIx 4.2).
 *
 * The job lives on this node only, so the host's part is small: register
 * the namespace with what clients need to derive their place (node map,
 * proc map, per-proc info arrays that begin with PMIX_RANK), register each
 * client before it is forked, and answer four upcalls:
 *   client_connected / client_finalized  record the fact in the rank's atomics
 *                                        (loomrun tells "exited without
 *                                        finalizing" from a plain exit by them)
 *   abort                                hand the message to the event loop,
 *                                        then release the caller
 *   fence_nb                             single node: all data is here, give it
 *                                        straight back (4.2 completes local
 *                                        fences itself, except when a rank died
 *                                        before the others entered the fence)
 * Upcalls run on the library's progress thread: they return at once and
 * never call a blocking PMIx API (that deadlocks the server).
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

static pmix_status_t loomrun_pmix_fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                           const pmix_info_t info[], size_t ninfo,
                                           char *data, size_t ndata,
                                           pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *copy = NULL;

    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    /* one node: the contribution of this server is the whole result. Hand
     * back our own copy (released through relfn) so the library may free
     * its buffer whenever it likes. */
    if (ndata > 0) {
        copy = malloc(ndata);
        if (copy == NULL) {
            return PMIX_ERR_NOMEM;
        }
        memcpy(copy, data, ndata);
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, loomrun_pmix_release_data, copy);
    } else {
        free(copy);
    }
    return PMIX_SUCCESS;
}

static pmix_server_module_t loomrun_pmix_module = {
    .client_connected = loomrun_pmix_client_connected,
    .client_finalized = loomrun_pmix_client_finalized,
    .abort            = loomrun_pmix_abort,
    .fence_nb         = loomrun_pmix_fence_nb,
};

/* ---- host side (main thread) --------------------------------------------- */

int loomrun_pmix_init(loomrun_job_t *job)
{
    pmix_info_t info[2];
    pmix_status_t rc;

    loomrun_pmix_job = job;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, job->tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, job->tmpdir, PMIX_STRING);
    rc = PMIx_server_init(&loomrun_pmix_module, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (!loomrun_pmix_ok(rc)) {
        fprintf(stderr, "loomrun: PMIx_server_init (tmpdir %s) failed: %s\n",
                job->tmpdir, PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* "0,1,...,n-1": PMIx_generate_ppn does not expand ranges like "0-3". */
static char *loomrun_pmix_rank_list(int n)
{
    size_t cap = (size_t)n * 8 + 16, len = 0;
    char *s = malloc(cap);

    if (s == NULL) {
        return NULL;
    }
    s[0] = '\0';
    for (int r = 0; r < n; ++r) {
        len += (size_t)snprintf(s + len, cap - len, r ? ",%d" : "%d", r);
    }
    return s;
}

/* Per-proc info: an array that must begin with PMIX_RANK. */
static pmix_status_t loomrun_pmix_add_proc(void *list, loomrun_job_t *job, int r)
{
    void *pl = PMIx_Info_list_start();
    pmix_rank_t rank = (pmix_rank_t)r;
    uint16_t lrank = (uint16_t)r;
    uint32_t zero = 0;
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
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(pl, PMIX_NODEID, &zero, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(pl, PMIX_HOSTNAME, job->host, PMIX_STRING);
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
    uint32_t n = (uint32_t)job->opts.nranks, one = 1, zero = 0;
    pmix_rank_t leader = 0;
    pmix_status_t rc;

    rc = PMIx_Info_list_add(list, PMIX_UNIV_SIZE, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_JOB_SIZE, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_MAX_PROCS, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_APP_SIZE, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_LOCAL_SIZE, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_NODE_SIZE, &n, PMIX_UINT32);
    if (rc == PMIX_SUCCESS) rc = PMIx_Info_list_add(list, PMIX_NUM_NODES, &one, PMIX_UINT32);
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
    char *ranks = loomrun_pmix_rank_list(job->opts.nranks);
    char *nodemap = NULL, *procmap = NULL;
    void *list = PMIx_Info_list_start();
    pmix_data_array_t darray = { 0 };
    pmix_status_t rc = PMIX_ERR_NOMEM;
    const char *what = "building the job info";

    if (ranks == NULL || list == NULL) {
        goto out_free;
    }
    what = "PMIx_generate_regex";
    rc = PMIx_generate_regex(job->host, &nodemap);
    if (rc == PMIX_SUCCESS) {
        what = "PMIx_generate_ppn";
        rc = PMIx_generate_ppn(ranks, &procmap);
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
        rc = PMIx_server_register_nspace(job->nspace, job->opts.nranks, darray.array,
                                         darray.size, NULL, NULL);
        PMIX_DATA_ARRAY_DESTRUCT(&darray);
    }
out_free:
    if (list != NULL) {
        PMIx_Info_list_release(list);
    }
    free(procmap);
    free(nodemap);
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
