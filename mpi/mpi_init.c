/*
 * mpi_init.c: the MPI environment: init/finalize, thread level, versions,
 * processor name, timers, memory allocation and addresses.
 *
 * MPI_Init asks loom to return every error (LOOM_ERRORS=return) because the
 * error handlers live in this layer: MPI_ERRORS_ARE_FATAL aborts here, with
 * the name of the MPI call, and MPI_ERRORS_RETURN must get the error back.
 */
#include "mpi_int.h"
#include "mpi_f2c_int.h"
#include "mpi_attr_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef LOOM_BUILD_CONFIG
#define LOOM_BUILD_CONFIG "unknown"
#endif

_Static_assert(MPI_ANY_SOURCE == LOOM_ANY_SOURCE, "MPI_ANY_SOURCE must be loom's");
_Static_assert(MPI_ANY_TAG == LOOM_ANY_TAG, "MPI_ANY_TAG must be loom's");
_Static_assert(MPI_PROC_NULL == LOOM_PROC_NULL, "MPI_PROC_NULL must be loom's");
_Static_assert(MPI_UNDEFINED == LOOM_UNDEFINED, "MPI_UNDEFINED must be loom's");
_Static_assert(MPI_SUCCESS == (int)LOOM_OK, "a LOOM_OK status needs no conversion");

loom_mpi_state_t loom_mpi_state = LOOM_MPI_STATE_PRE_INIT;

static int       loom_mpi_thread_level = MPI_THREAD_SINGLE;
static pthread_t loom_mpi_main_thread;

void loom_mpi_thread_init(void)
{
    loom_mpi_main_thread = pthread_self();
}

static int loom_mpi_init_common(int *argc, char ***argv, int required, const char *call)
{
    loom_status_t st;
    int provided;

    if (loom_mpi_state != LOOM_MPI_STATE_PRE_INIT) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, call, "%s",
                              loom_mpi_state == LOOM_MPI_STATE_INITIALIZED
                                  ? "MPI is already initialized"
                                  : "MPI was finalized and cannot be initialized again");
    }
    /* The MPI error handlers decide what an error does, so loom must return it. */
    if (setenv("LOOM_ERRORS", "return", 1) != 0) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, call, "setenv(LOOM_ERRORS): %m");
    }
    st = loom_init_thread(argc, argv, required, &provided);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(NULL, st, call);
    }
    loom_mpi_state = LOOM_MPI_STATE_INITIALIZED;
    loom_mpi_thread_level = provided;
    loom_mpi_thread_init();
    return MPI_SUCCESS;
}

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int *argc, char ***argv)
{
    LOOM_MT_GUARD();
    return loom_mpi_init_common(argc, argv, MPI_THREAD_SINGLE, "MPI_Init");
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    LOOM_MT_GUARD();
    int rc;

    if (provided == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Init_thread", "provided is NULL");
    }
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Init_thread",
                              "required thread level %d is not one of "
                              "MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE", required);
    }
    /* every level is granted as asked: MULTIPLE turns the engine lock on
     * (loom_init_thread), the others take no lock */
    rc = loom_mpi_init_common(argc, argv, required, "MPI_Init_thread");
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *provided = loom_mpi_thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int *flag)
{
    LOOM_MT_GUARD();
    if (flag == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Initialized", "flag is NULL");
    }
    *flag = loom_mpi_state != LOOM_MPI_STATE_PRE_INIT;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int *flag)
{
    LOOM_MT_GUARD();
    if (flag == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Finalized", "flag is NULL");
    }
    *flag = loom_mpi_state == LOOM_MPI_STATE_FINALIZED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void)
{
    LOOM_MT_GUARD();
    loom_status_t st;
    int rc;

    if (loom_mpi_state != LOOM_MPI_STATE_INITIALIZED) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, "MPI_Finalize", "%s",
                              loom_mpi_state == LOOM_MPI_STATE_PRE_INIT
                                  ? "MPI is not initialized"
                                  : "MPI is already finalized");
    }
    /* MPI-3.1 8.7.1: first free MPI_COMM_SELF's attributes, while MPI works */
    rc = loom_mpi_attr_finalize_self();
    loom_mpi_side_reap(1);  /* operations whose requests the user freed */
    loom_mpi_scratch_free();
    st = loom_finalize();
    loom_mpi_state = LOOM_MPI_STATE_FINALIZED;
    loom_mpi_comm_cleanup();
    loom_mpi_handles_cleanup();   /* the Fortran handle tables, after the comms */
    loom_mpi_attr_cleanup();
    loom_mpi_errcode_cleanup();
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(NULL, st, "MPI_Finalize");
    }
    return rc;
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    /* LOOM_MT_NO_GUARD: abort must not wait for a thread that holds the lock */
    char msg[256];
    char label[MPI_MAX_OBJECT_NAME + 32];

    if (comm != MPI_COMM_NULL && comm->magic == LOOM_MPI_COMM_MAGIC &&
        comm->name[0] != '\0') {
        snprintf(label, sizeof(label), "%s", comm->name);
    } else {
        snprintf(label, sizeof(label), "communicator %p", (void *)comm);
    }
    /* loom aborts the whole job: MPI allows that for any communicator. */
    snprintf(msg, sizeof(msg), "MPI_Abort called on %s with error code %d", label,
             errorcode);
    loom_abort(errorcode, msg);
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int *provided)
{
    LOOM_MT_GUARD();
    if (provided == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Query_thread", "provided is NULL");
    }
    *provided = loom_mpi_thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int *flag)
{
    LOOM_MT_GUARD();
    if (flag == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Is_thread_main", "flag is NULL");
    }
    if (loom_mpi_state == LOOM_MPI_STATE_PRE_INIT) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, "MPI_Is_thread_main",
                              "called before MPI_Init");
    }
    *flag = pthread_equal(pthread_self(), loom_mpi_main_thread) != 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int *version, int *subversion)
{
    LOOM_MT_GUARD();
    if (version == NULL || subversion == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Get_version", "%s is NULL",
                              version == NULL ? "version" : "subversion");
    }
    *version    = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char *version, int *resultlen)
{
    LOOM_MT_GUARD();
    int len;

    if (version == NULL || resultlen == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Get_library_version", "%s is NULL",
                              version == NULL ? "version" : "resultlen");
    }
    len = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                   "loom %s (MPI %d.%d subset over the loom native API, %s build)",
                   LOOM_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION, LOOM_BUILD_CONFIG);
    *resultlen = len < MPI_MAX_LIBRARY_VERSION_STRING ? len
                                                      : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    LOOM_MT_GUARD();
    if (name == NULL || resultlen == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Get_processor_name", "%s is NULL",
                              name == NULL ? "name" : "resultlen");
    }
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, "MPI_Get_processor_name",
                              "gethostname: %m");
    }
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void)
{
    /* LOOM_MT_NO_GUARD: a clock read; touches no engine state */
    return loom_wtime();
}

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void)
{
    /* LOOM_MT_NO_GUARD: a clock read; touches no engine state */
    return loom_wtick();
}

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    LOOM_MT_GUARD();
    void *p = NULL;
    int err;

    /* no hints are understood: any key is accepted and ignored */
    if (info != MPI_INFO_NULL && !loom_mpi_info_is_valid(info)) {
        return loom_mpi_raise(NULL, MPI_ERR_INFO, "MPI_Alloc_mem",
                              "%p is not an info object", (void *)info);
    }
    if (baseptr == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Alloc_mem", "baseptr is NULL");
    }
    if (size < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_SIZE, "MPI_Alloc_mem",
                              "size %td is negative", size);
    }
    /* Cache-line aligned, so that registration and copies start aligned. */
    err = posix_memalign(&p, 64, size > 0 ? (size_t)size : 1);
    if (err != 0) {
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem",
                              "cannot allocate %td bytes: %s", size, strerror(err));
    }
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void *base)
{
    LOOM_MT_GUARD();
    free(base);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    LOOM_MT_GUARD();
    if (address == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Get_address", "address is NULL");
    }
    *address = (MPI_Aint)(intptr_t)location;
    return MPI_SUCCESS;
}

#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    LOOM_MT_GUARD();
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    LOOM_MT_GUARD();
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
