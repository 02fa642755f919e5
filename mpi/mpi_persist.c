/*
 * mpi_persist.c: persistent requests (MPI_{Send,Ssend,Rsend,Bsend,Recv}_init,
 * MPI_Start, MPI_Startall), generalized requests (MPI_Grequest_start,
 * MPI_Grequest_complete; MPI_Status_set_* are mpi_typex.c's),
 * MPI_Request_get_status, and the cancel/free of both kinds for
 * mpi_request.c.
 *
 * Both kinds are loom "extended" requests (p2p/request_int.h): an
 * MPI_Request stays a loom_request_t, so arrays mixing them with ordinary
 * requests go to loom_waitall & co. unchanged. A persistent send or receive
 * is loom_send_init/loom_recv_init; a persistent buffered send is a custom
 * persistent request whose start runs the buffered send (mpi_bsend.c) and
 * completes at once. A generalized request keeps the user's callbacks in
 * the request's ext user[] area; loom calls back (finish) when a Wait/Test
 * returns it, which runs query_fn and then free_fn, as MPI-3.1 12.2 says.
 *
 * Ready mode is standard mode (a correct ready send is a correct standard
 * send).
 */
#include "mpi_p2pext_int.h"
#include "mt_int.h"

#include <stdio.h>
#include <string.h>

/* ---- persistent requests --------------------------------------------------------- */

static int loom_mpi_init_args(MPI_Comm comm, MPI_Datatype dt, int count,
                              MPI_Request *request, const char *call, loom_comm_t *lcomm_p)
{
    int rc = loom_mpi_comm_arg(comm, call, lcomm_p);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    *request = MPI_REQUEST_NULL;
    rc = loom_mpi_type_check(dt, count);
    if (rc != MPI_SUCCESS) {
        return rc == MPI_ERR_COUNT
               ? loom_mpi_raise(comm, rc, call, "count %d is negative", count)
               : loom_mpi_raise(comm, rc, call, "datatype %s (count %d)",
                                loom_mpi_type_why(dt), count);
    }
    return MPI_SUCCESS;
}

static int loom_mpi_send_init(const void *buf, int count, MPI_Datatype dt, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request, int sync,
                              const char *call)
{
    loom_comm_t lcomm;
    loom_status_t st;
    int rc;

    if (loom_mpi_type_noncontig(dt) && loom_mpi_comm_live(comm)) {   /* mpi_dtype_p2p.c */
        return loom_mpi_dt_persist_init(sync, (void *)buf, count, dt, dest, tag, comm,
                                        request, call);
    }
    rc = loom_mpi_init_args(comm, dt, count, request, call, &lcomm);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    st = loom_send_init(buf, (size_t)count * dt->n, dt->base, dest, tag, sync, lcomm,
                        request);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, call);
}

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    return loom_mpi_send_init(buf, count, datatype, dest, tag, comm, request, 0,
                              "MPI_Send_init");
}

#pragma weak MPI_Ssend_init = PMPI_Ssend_init
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    return loom_mpi_send_init(buf, count, datatype, dest, tag, comm, request, 1,
                              "MPI_Ssend_init");
}

#pragma weak MPI_Rsend_init = PMPI_Rsend_init
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    return loom_mpi_send_init(buf, count, datatype, dest, tag, comm, request, 0,
                              "MPI_Rsend_init");
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    loom_status_t st;
    int rc;

    if (loom_mpi_type_noncontig(datatype) && loom_mpi_comm_live(comm)) {   /* mpi_dtype_p2p.c */
        return loom_mpi_dt_persist_init(2, buf, count, datatype, source, tag, comm, request,
                                        "MPI_Recv_init");
    }
    rc = loom_mpi_init_args(comm, datatype, count, request, "MPI_Recv_init", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    st = loom_recv_init(buf, (size_t)count * datatype->n, datatype->base, source, tag,
                        lcomm, request);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Recv_init");
}

/* A persistent buffered send's arguments, in its ext user[] area. */
typedef struct loom_mpi_bsend_args {
    const void  *buf;
    int          count;
    int          dest;
    int          tag;
    MPI_Datatype dt;
    MPI_Comm     comm;
} loom_mpi_bsend_args_t;

_Static_assert(sizeof(loom_mpi_bsend_args_t) <= sizeof(((loom_request_ext_t *)0)->user),
               "the buffered send's arguments must fit in the request");

/* why the last persistent buffered start failed (MPI_Start raises it) */
static char loom_mpi_bsend_start_why[320];
static int  loom_mpi_bsend_start_class;

static loom_status_t loom_mpi_bsend_start(loom_request_t req)
{
    const loom_mpi_bsend_args_t *a = (const void *)loom_request_ext(req)->user;
    int rc = loom_mpi_bsend_try(a->buf, a->count, a->dt, a->dest, a->tag, a->comm,
                                loom_mpi_bsend_start_why, sizeof(loom_mpi_bsend_start_why));

    if (rc != MPI_SUCCESS) {
        loom_mpi_bsend_start_class = rc;
        return LOOM_ERR_INVALID_BUFFER;   /* MPI_Start raises the class kept above */
    }
    loom_request_ext_complete(req, LOOM_OK);
    return LOOM_OK;
}

#pragma weak MPI_Bsend_init = PMPI_Bsend_init
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    loom_mpi_bsend_args_t *a;
    loom_status_t st;
    int rc = loom_mpi_init_args(comm, datatype, count, request, "MPI_Bsend_init", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* the rank and tag are checked now, as a send_init checks them */
    if (!(dest == MPI_PROC_NULL || (dest >= 0 && dest < loom_comm_size(lcomm)))) {
        return loom_mpi_raise(comm, MPI_ERR_RANK, "MPI_Bsend_init",
                              "rank %d is not valid (0..%d, or MPI_PROC_NULL)", dest,
                              loom_comm_size(lcomm) - 1);
    }
    if (tag < 0) {
        return loom_mpi_raise(comm, MPI_ERR_TAG, "MPI_Bsend_init",
                              "tag %d is not valid (0..%d)", tag, LOOM_TAG_UB);
    }
    st = loom_request_persist_custom(lcomm, "bsend", loom_mpi_bsend_start, request);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(comm, st, "MPI_Bsend_init");
    }
    a = (void *)loom_request_ext(*request)->user;
    *a = (loom_mpi_bsend_args_t){ .buf = buf, .count = count, .dest = dest, .tag = tag,
                                  .dt = datatype, .comm = comm };
    return MPI_SUCCESS;
}

/* raise a failed start: a buffered one says why in its own words */
static int loom_mpi_start_error(MPI_Request req, loom_status_t st, const char *call)
{
    MPI_Comm comm = loom_mpi_comm_of(req->comm);
    loom_request_ext_t *x = loom_request_ext(req);

    if (req->ext == LOOM_REQ_EXT_PERSIST && x->start_fn == loom_mpi_bsend_start &&
        st == LOOM_ERR_INVALID_BUFFER && loom_mpi_bsend_start_class != MPI_SUCCESS) {
        int cls = loom_mpi_bsend_start_class;

        loom_mpi_bsend_start_class = MPI_SUCCESS;
        return loom_mpi_raise(comm, cls, call, "buffered send: %s",
                              loom_mpi_bsend_start_why);
    }
    int dcls = loom_mpi_dt_persist_start_class(req);
    if (dcls != MPI_SUCCESS) {
        return dcls;   /* a derived-type start raised it already, naming the cause */
    }
    return loom_mpi_raise_loom(comm, st, call);
}

/* a handle MPI_Start may take: @return MPI_SUCCESS or the raised class */
static int loom_mpi_start_arg(MPI_Request *request, const char *call)
{
    MPI_Request r;

    if (request == NULL || *request == MPI_REQUEST_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, call, "request is %s",
                              request == NULL ? "NULL" : "MPI_REQUEST_NULL");
    }
    r = *request;
    if (r->kind == 0 || r->ext != LOOM_REQ_EXT_PERSIST) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, call, "request %p is not a persistent "
                              "request (made by MPI_Send_init & co.)", (void *)r);
    }
    if (!r->inactive) {
        return loom_mpi_raise(loom_mpi_comm_of(r->comm), MPI_ERR_REQUEST, call,
                              "persistent request %p is already active: complete it "
                              "(MPI_Wait & co.) before starting it again", (void *)r);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_status_t st;
    int rc = loom_mpi_start_arg(request, "MPI_Start");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    st = loom_start(request);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_start_error(*request, st, "MPI_Start");
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    LOOM_MT_GUARD();
    if (count < 0 || (count > 0 && array_of_requests == NULL)) {
        return loom_mpi_raise(NULL, count < 0 ? MPI_ERR_COUNT : MPI_ERR_REQUEST,
                              "MPI_Startall", count < 0 ? "count %d is negative"
                              : "the request array is NULL (count %d)", count);
    }
    /* check them all first, so a bad handle starts nothing */
    for (int i = 0; i < count; ++i) {
        int rc = loom_mpi_start_arg(&array_of_requests[i], "MPI_Startall");
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    for (int i = 0; i < count; ++i) {
        loom_status_t st = loom_start(&array_of_requests[i]);
        if (st != LOOM_OK) {
            return loom_mpi_start_error(array_of_requests[i], st, "MPI_Startall");
        }
    }
    return MPI_SUCCESS;
}

/* ---- generalized requests ------------------------------------------------------------ */

typedef struct loom_mpi_greq {
    MPI_Grequest_query_function  *query_fn;
    MPI_Grequest_free_function   *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void                         *extra_state;
    int                           freed;   /* MPI_Request_free came before completion */
} loom_mpi_greq_t;

_Static_assert(sizeof(loom_mpi_greq_t) <= sizeof(((loom_request_ext_t *)0)->user),
               "a generalized request's state must fit in the request");

static loom_mpi_greq_t *loom_mpi_greq(MPI_Request req)
{
    return (loom_mpi_greq_t *)(void *)loom_request_ext(req)->user;
}

/*
 * The loom status carrying an error code the user's callback returned: the
 * classes with a loom twin keep their class through loom_mpi_class_of;
 * any other becomes MPI_ERR_OTHER (loom keeps no MPI codes).
 */
static loom_status_t loom_mpi_greq_status(int code)
{
    int cls = MPI_ERR_OTHER;

    if (code == MPI_SUCCESS) {
        return LOOM_OK;
    }
    PMPI_Error_class(code, &cls);
    switch (cls) {
    case MPI_ERR_ARG:      return LOOM_ERR_INVALID_ARG;
    case MPI_ERR_NO_MEM:   return LOOM_ERR_NO_MEMORY;
    case MPI_ERR_TRUNCATE: return LOOM_ERR_TRUNCATED;
    case MPI_ERR_RANK:     return LOOM_ERR_INVALID_RANK;
    case MPI_ERR_TAG:      return LOOM_ERR_INVALID_TAG;
    case MPI_ERR_COUNT:    return LOOM_ERR_INVALID_COUNT;
    case MPI_ERR_TYPE:     return LOOM_ERR_INVALID_TYPE;
    case MPI_ERR_COMM:     return LOOM_ERR_INVALID_COMM;
    case MPI_ERR_REQUEST:  return LOOM_ERR_INVALID_REQUEST;
    case MPI_ERR_BUFFER:   return LOOM_ERR_INVALID_BUFFER;
    case MPI_ERR_IO:       return LOOM_ERR_IO;
    case MPI_ERR_INTERN:   return LOOM_ERR_INTERNAL;
    default:               return LOOM_ERR_NOT_FOUND;   /* class MPI_ERR_OTHER */
    }
}

/* loom's finish callback: query_fn fills the status; then free_fn (@p release) */
static loom_status_t loom_mpi_greq_finish(loom_request_t req, loom_msg_status_t *status,
                                          int release)
{
    loom_mpi_greq_t *g = loom_mpi_greq(req);
    MPI_Status s = { .MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG,
                     .MPI_ERROR = MPI_SUCCESS, .loom_cancelled_ = 0, .loom_bytes_ = 0 };
    int rc = g->query_fn != NULL ? g->query_fn(g->extra_state, &s) : MPI_SUCCESS;
    loom_status_t st;

    if (release && g->free_fn != NULL) {
        int frc = g->free_fn(g->extra_state);
        rc = rc != MPI_SUCCESS ? rc : frc;
    }
    st = loom_mpi_greq_status(rc);
    if (status != LOOM_STATUS_IGNORE) {
        status->source    = s.MPI_SOURCE;
        status->tag       = s.MPI_TAG;
        status->error     = st;
        status->cancelled = s.loom_cancelled_;
        status->bytes     = s.loom_bytes_;
    }
    return st;
}

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_mpi_greq_t *g;
    loom_status_t st;

    if (request == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, "MPI_Grequest_start", "request is NULL");
    }
    if (loom_mpi_state != LOOM_MPI_STATE_INITIALIZED) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, "MPI_Grequest_start",
                              "MPI is not initialized");
    }
    st = loom_request_greq_alloc(MPI_COMM_WORLD->comm, loom_mpi_greq_finish, request);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(NULL, st, "MPI_Grequest_start");
    }
    g = loom_mpi_greq(*request);
    g->query_fn    = query_fn;
    g->free_fn     = free_fn;
    g->cancel_fn   = cancel_fn;
    g->extra_state = extra_state;
    g->freed       = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request)
{
    LOOM_MT_GUARD();
    loom_mpi_greq_t *g;

    if (request == MPI_REQUEST_NULL || request->kind == 0 ||
        request->ext != LOOM_REQ_EXT_GREQ || request->complete) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                              "request %p is %s", (void *)request,
                              request == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL"
                              : request->kind == 0 || request->ext != LOOM_REQ_EXT_GREQ
                              ? "not a generalized request (MPI_Grequest_start)"
                              : "already complete");
    }
    g = loom_mpi_greq(request);
    if (g->freed && g->free_fn != NULL) {
        /* freed by the user before: the request goes now, free_fn with it */
        g->free_fn(g->extra_state);
    }
    loom_request_ext_complete(request, LOOM_OK);
    return MPI_SUCCESS;
}

int loom_mpi_greq_free(MPI_Request *request)
{
    MPI_Request req = *request;
    loom_mpi_greq_t *g = loom_mpi_greq(req);
    int rc = MPI_SUCCESS;

    if (req->complete && g->free_fn != NULL) {
        rc = g->free_fn(g->extra_state);
    } else {
        g->freed = 1;
    }
    loom_request_free(request);   /* released now, or when MPI_Grequest_complete runs */
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : loom_mpi_raise(NULL, rc, "MPI_Request_free",
                                              "the generalized request's free_fn failed");
}

int loom_mpi_ext_cancel(MPI_Request req)
{
    if (req->ext == LOOM_REQ_EXT_GREQ) {
        loom_mpi_greq_t *g = loom_mpi_greq(req);
        int rc = g->cancel_fn != NULL ? g->cancel_fn(g->extra_state, req->complete)
                                      : MPI_SUCCESS;
        return rc == MPI_SUCCESS ? MPI_SUCCESS
                                 : loom_mpi_raise(NULL, rc, "MPI_Cancel",
                                                  "the generalized request's cancel_fn "
                                                  "failed");
    }
    /* persistent on a non-contiguous type: the running inner operation is cancelled */
    loom_status_t dst;
    if (loom_mpi_dt_persist_cancel(req, &dst)) {
        return dst == LOOM_OK ? MPI_SUCCESS
                              : loom_mpi_raise_loom(loom_mpi_comm_of(req->comm), dst,
                                                    "MPI_Cancel");
    }
    /* persistent: an active send or receive is cancelled as any other (a
     * buffered one is complete once started); inactive: nothing to cancel */
    if (!req->inactive && (req->kind == LOOM_REQ_RECV || req->kind == LOOM_REQ_SEND)) {
        loom_status_t st = loom_cancel(&req);
        return st == LOOM_OK ? MPI_SUCCESS
                             : loom_mpi_raise_loom(loom_mpi_comm_of(req->comm), st,
                                                   "MPI_Cancel");
    }
    return MPI_SUCCESS;
}

/* ---- non-destructive test, status setters ---------------------------------------------- */

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    LOOM_MT_GUARD();
    loom_status_t st;

    if (flag == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Request_get_status", "flag is NULL");
    }
    int serr = loom_mpi_status_error_get(status);
    st = loom_request_get_status(request, flag, (loom_msg_status_t *)status);
    loom_mpi_status_error_put(status, serr);
    if (st == LOOM_ERR_INVALID_REQUEST || st == LOOM_ERR_NOT_INITIALIZED ||
        st == LOOM_ERR_FINALIZED) {
        return loom_mpi_raise_loom(NULL, st, "MPI_Request_get_status");
    }
    return st == LOOM_OK ? MPI_SUCCESS
                         : loom_mpi_raise_loom(loom_mpi_comm_of(request->comm), st,
                                               "MPI_Request_get_status");
}
