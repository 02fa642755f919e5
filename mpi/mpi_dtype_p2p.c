/*
 * mpi_dtype_p2p.c: point-to-point with non-contiguous derived datatypes,
 * the simplest correct way (issue 20; zero-copy paths come later, in p2p/).
 *
 * Design. A send packs (buf, count, type) into a temporary (the engine's
 * packed stream, loom_dt_pack_range) and sends those bytes as MPI_PACKED
 * through the ordinary call, so every check, protocol and error of the
 * byte path applies unchanged; a blocking send frees the temporary on
 * return, a nonblocking one packs into the request's side storage
 * (mpi_request.c), freed when the request completes. A receive receives
 * MPI_PACKED bytes into a temporary of count x size bytes (so a longer
 * message is MPI_ERR_TRUNCATE exactly as on the byte path) and unpacks the
 * bytes that arrived; the status counts packed bytes, which
 * MPI_Get_count/Get_elements read through the engine. A nonblocking
 * receive is a generic loom request wrapping the inner one: its progress
 * function unpacks when the inner receive completes, before any
 * Wait/Test/Waitall/... returns it (so every completion call, and
 * MPI_Request_free, work unchanged), and it holds a reference on the
 * datatype until then (MPI_Type_free meanwhile is safe).
 */
#include "mpi_int.h"
#include "dt_int.h"
#include "request_int.h"
#include "p2p_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of count x dt's packed stream, checked to fit an int count of MPI_PACKED. */
static int loom_mpi_dt_bytes(MPI_Comm comm, int count, MPI_Datatype dt, const char *call,
                             size_t *bytes_p)
{
    if (count < 0) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "count %d is negative", count);
    }
    if (dt->size != 0 && (size_t)count > (size_t)INT_MAX / dt->size) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "%d elements of a %zu-byte "
                              "non-contiguous datatype exceed %d packed bytes", count,
                              dt->size, INT_MAX);
    }
    *bytes_p = (size_t)count * dt->size;
    return MPI_SUCCESS;
}

int loom_mpi_dt_pack_tmp(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                         const char *call, void **tmp_p, size_t *bytes_p)
{
    size_t bytes = 0;
    void *tmp;
    int rc = loom_mpi_dt_bytes(comm, count, dt, call, &bytes);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tmp = malloc(bytes > 0 ? bytes : 1);
    if (tmp == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory packing %zu bytes",
                              bytes);
    }
    loom_status_t st = loom_dt_pack_range(buf, (size_t)count, dt->ldt, 0, bytes, tmp);
    if (st != LOOM_OK) {
        free(tmp);
        return loom_mpi_raise(comm, loom_mpi_class_of(st), call, "packing failed: %s",
                              loom_strerror(st));
    }
    *tmp_p = tmp;
    *bytes_p = bytes;
    return MPI_SUCCESS;
}

int loom_mpi_dt_unpack_tmp(MPI_Comm comm, void *buf, int count, MPI_Datatype dt,
                           const void *tmp, size_t bytes, const char *call)
{
    loom_status_t st;

    if (bytes == 0) {
        return MPI_SUCCESS;
    }
    st = loom_dt_unpack_range(buf, (size_t)count, dt->ldt, 0, bytes, tmp);
    return st == LOOM_OK ? MPI_SUCCESS
           : loom_mpi_raise(comm, loom_mpi_class_of(st), call, "unpacking %zu bytes "
                            "failed: %s", bytes, loom_strerror(st));
}

/* ---- nonblocking send ---------------------------------------------------------- */

int loom_mpi_dt_isend(int sync, const void *buf, int count, MPI_Datatype dt, int dest,
                      int tag, MPI_Comm comm, MPI_Request *request, const char *call)
{
    size_t bytes = 0;
    loom_mpi_side_t *side;
    int rc = loom_mpi_dt_bytes(comm, count, dt, call, &bytes);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    side = loom_mpi_side_alloc((bytes + sizeof(size_t) - 1) / sizeof(size_t));
    if (side == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory packing %zu bytes",
                              bytes);
    }
    loom_status_t st = loom_dt_pack_range(buf, (size_t)count, dt->ldt, 0, bytes,
                                          side->arrays);
    if (st != LOOM_OK) {
        loom_mpi_side_attach(side, MPI_REQUEST_NULL);
        return loom_mpi_raise(comm, loom_mpi_class_of(st), call, "packing failed: %s",
                              loom_strerror(st));
    }
    rc = sync ? PMPI_Issend(side->arrays, (int)bytes, MPI_PACKED, dest, tag, comm, request)
              : PMPI_Isend(side->arrays, (int)bytes, MPI_PACKED, dest, tag, comm, request);
    loom_mpi_side_attach(side, rc == MPI_SUCCESS ? *request : MPI_REQUEST_NULL);
    return rc;
}

/*
 * A persistent operation on a non-contiguous type: its arguments, in the ext
 * user[] area. While it is active, @c inner is the generic request running
 * it (so MPI_Cancel reaches the inner receive); the generic request clears
 * it before completing the persistent one, after which it releases itself.
 */
typedef struct loom_mpi_dtp_args {
    void          *buf;
    int            count;
    int            peer;
    int            tag;
    int            kind;         /* 0 send, 1 synchronous send, 2 receive */
    MPI_Datatype   dt;           /* retained until MPI_Request_free */
    MPI_Comm       comm;
    loom_request_t inner;        /* the running operation, or NULL */
    int            start_class;  /* the class a failed MPI_Start raised, or MPI_SUCCESS */
} loom_mpi_dtp_args_t;

_Static_assert(sizeof(loom_mpi_dtp_args_t) <= sizeof(((loom_request_ext_t *)0)->user),
               "the persistent operation's arguments must fit in the request");

static loom_mpi_dtp_args_t *loom_mpi_dtp_args(loom_request_t req)
{
    return (loom_mpi_dtp_args_t *)(void *)loom_request_ext(req)->user;
}

/* ---- nonblocking receive ---------------------------------------------------------- */

typedef struct loom_mpi_dtrecv {
    MPI_Request    inner;
    void          *tmp;
    size_t         cap;
    void          *buf;
    int            count;
    MPI_Datatype   dt;     /* NULL: a send (nothing to unpack) */
    loom_request_t outer;  /* a persistent request to complete, or NULL */
    void          *tmp2;   /* a collective's packed send data, freed at the end */
    uint8_t        full;   /* a collective: unpack all cap bytes */
} loom_mpi_dtrecv_t;

static loom_mpi_dtrecv_t *loom_mpi_dtrecv(loom_request_t req)
{
    return *(loom_mpi_dtrecv_t **)(void *)req->priv;
}

/* Unpack when the inner receive completes; the status becomes the outer one's. */
static loom_status_t loom_mpi_dtrecv_progress(loom_request_t req)
{
    loom_mpi_dtrecv_t *r = loom_mpi_dtrecv(req);
    loom_msg_status_t msg;
    loom_status_t st;

    if (!loom_request_is_complete(r->inner)) {
        return LOOM_INPROGRESS;
    }
    memset(&msg, 0, sizeof(msg));
    st = loom_request_wait_int(r->inner, &msg);
    r->inner = MPI_REQUEST_NULL;
    if (msg.bytes > r->cap) {
        msg.bytes = r->cap;
    }
    size_t got = r->full ? r->cap : msg.bytes;
    if (r->dt != NULL && (st == LOOM_OK || st == LOOM_ERR_TRUNCATED) && got > 0 &&
        !msg.cancelled) {
        loom_status_t ust = loom_dt_unpack_range(r->buf, (size_t)r->count, r->dt->ldt, 0,
                                                 got, r->tmp);
        st = st != LOOM_OK ? st : ust;
    }
    req->msg = msg;
    if (r->outer != NULL) {  /* a persistent request's operation: complete it */
        loom_mpi_dtp_args(r->outer)->inner = NULL;
        if (r->dt != NULL) {
            r->outer->msg = msg;
        }
        loom_request_ext_complete(r->outer, st);
    }
    return st;
}

static void loom_mpi_dtrecv_free(loom_request_t req)
{
    loom_mpi_dtrecv_t *r = loom_mpi_dtrecv(req);

    if (r != NULL) {
        free(r->tmp);
        free(r->tmp2);
        if (r->dt != NULL) {
            loom_mpi_type_release(r->dt);
        }
        free(r);
    }
}

/* Wrap the posted inner operation of @p r in a generic request (which owns @p r). */
static int loom_mpi_dt_wrap(loom_mpi_dtrecv_t *r, loom_comm_t lcomm, MPI_Comm comm,
                            MPI_Request *request, const char *call)
{
    loom_request_t req;
    loom_status_t st = loom_request_generic_alloc(lcomm, r->dt != NULL ? "recv_derived"
                                                                       : "send_derived",
                                                  loom_mpi_dtrecv_progress,
                                                  loom_mpi_dtrecv_free, &req);

    if (st != LOOM_OK) {
        if (!r->full) {
            loom_cancel(&r->inner);
        }
        loom_wait(&r->inner, LOOM_STATUS_IGNORE);
        free(r->tmp);
        free(r->tmp2);
        free(r);
        return loom_mpi_raise_loom(comm, st, call);
    }
    if (r->dt != NULL) {
        loom_mpi_type_retain(r->dt);
    }
    *(loom_mpi_dtrecv_t **)(void *)req->priv = r;
    if (r->outer != NULL) {  /* before it can run: its progress clears this */
        loom_mpi_dtp_args(r->outer)->inner = req;
    }
    loom_request_generic_start(req);
    *request = req;
    return MPI_SUCCESS;
}

/* Post the inner receive: from @p message if not NULL, else (source, tag). */
static int loom_mpi_dt_post(loom_mpi_dtrecv_t *r, int source, int tag, MPI_Comm comm,
                            MPI_Message *message)
{
    if (message != NULL) {
        return PMPI_Imrecv(r->tmp, (int)r->cap, MPI_PACKED, message, &r->inner);
    }
    return PMPI_Irecv(r->tmp, (int)r->cap, MPI_PACKED, source, tag, comm, &r->inner);
}

static int loom_mpi_dt_irecv_core(void *buf, int count, MPI_Datatype dt, int source,
                                  int tag, MPI_Comm comm, MPI_Message *message,
                                  loom_request_t outer, MPI_Request *request,
                                  const char *call)
{
    loom_mpi_dtrecv_t *r;
    size_t bytes = 0;
    int rc = loom_mpi_dt_bytes(comm, count, dt, call, &bytes);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    r = calloc(1, sizeof(*r));
    if (r == NULL || (r->tmp = malloc(bytes > 0 ? bytes : 1)) == NULL) {
        free(r);
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for a %zu-byte "
                              "receive buffer", bytes);
    }
    r->cap = bytes;
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    r->outer = outer;
    rc = loom_mpi_dt_post(r, source, tag, comm, message);
    if (rc != MPI_SUCCESS) {
        free(r->tmp);
        free(r);
        return rc;
    }
    loom_comm_t lcomm = r->inner != MPI_REQUEST_NULL ? r->inner->comm
                        : message == NULL ? comm->comm : LOOM_COMM_NULL;
    return loom_mpi_dt_wrap(r, lcomm, comm, request, call);
}

int loom_mpi_dt_irecv_any(void *buf, int count, MPI_Datatype dt, int source, int tag,
                          MPI_Comm comm, MPI_Message *message, MPI_Request *request,
                          const char *call)
{
    return loom_mpi_dt_irecv_core(buf, count, dt, source, tag, comm, message, NULL, request,
                                  call);
}

int loom_mpi_dt_cancel(MPI_Request req, loom_status_t *st_p)
{
    loom_mpi_dtrecv_t *r;

    if (req->kind != LOOM_REQ_GENERIC || req->progress_fn != loom_mpi_dtrecv_progress) {
        return 0;
    }
    r = loom_mpi_dtrecv(req);
    *st_p = r != NULL && r->inner != MPI_REQUEST_NULL ? loom_cancel(&r->inner) : LOOM_OK;
    return 1;
}

int loom_mpi_dt_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag,
                      MPI_Comm comm, MPI_Request *request, const char *call)
{
    return loom_mpi_dt_irecv_any(buf, count, dt, source, tag, comm, NULL, request, call);
}

int loom_mpi_dt_wrap_coll(MPI_Request inner, void *rtmp, void *ubuf, int ucount,
                          MPI_Datatype utype, void *stmp, MPI_Comm comm,
                          MPI_Request *request, const char *call)
{
    loom_mpi_dtrecv_t *r = calloc(1, sizeof(*r));

    if (r == NULL) {
        loom_wait(&inner, LOOM_STATUS_IGNORE);
        free(rtmp);
        free(stmp);
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    r->inner = inner;
    r->tmp   = rtmp;
    r->tmp2  = stmp;
    r->full  = 1;
    if (rtmp != NULL) {
        r->buf   = ubuf;
        r->count = ucount;
        r->dt    = utype;
        r->cap   = (size_t)ucount * utype->size;
    }
    return loom_mpi_dt_wrap(r, comm->comm, comm, request, call);
}

/* ---- blocking ---------------------------------------------------------------------- */

int loom_mpi_dt_send(int mode, const void *buf, int count, MPI_Datatype dt, int dest,
                     int tag, MPI_Comm comm, const char *call)
{
    void *tmp;
    size_t bytes = 0;
    int rc = loom_mpi_dt_pack_tmp(comm, buf, count, dt, call, &tmp, &bytes);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    switch (mode) {
    case 's': rc = PMPI_Ssend(tmp, (int)bytes, MPI_PACKED, dest, tag, comm); break;
    case 'b': rc = PMPI_Bsend(tmp, (int)bytes, MPI_PACKED, dest, tag, comm); break;
    default:  rc = PMPI_Send(tmp, (int)bytes, MPI_PACKED, dest, tag, comm); break;
    }
    free(tmp);
    return rc;
}

/* Receive into a temporary (from @p message if not NULL) and unpack what arrived. */
int loom_mpi_dt_recv_any(void *buf, int count, MPI_Datatype dt, int source, int tag,
                         MPI_Comm comm, MPI_Message *message, MPI_Status *status,
                         const char *call)
{
    MPI_Status local;
    MPI_Status *sp = status == MPI_STATUS_IGNORE ? &local : status;
    size_t bytes = 0;
    void *tmp;
    int rc = loom_mpi_dt_bytes(comm, count, dt, call, &bytes);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tmp = malloc(bytes > 0 ? bytes : 1);
    if (tmp == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for a %zu-byte "
                              "receive buffer", bytes);
    }
    sp->loom_bytes_ = 0;
    rc = message != NULL ? PMPI_Mrecv(tmp, (int)bytes, MPI_PACKED, message, sp)
                         : PMPI_Recv(tmp, (int)bytes, MPI_PACKED, source, tag, comm, sp);
    if (rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE) {
        size_t got = sp->loom_bytes_ < bytes ? sp->loom_bytes_ : bytes;
        int urc = loom_mpi_dt_unpack_tmp(comm, buf, count, dt, tmp, got, call);
        rc = rc != MPI_SUCCESS ? rc : urc;
    }
    free(tmp);
    return rc;
}

/* Sendrecv with either side (or both) non-contiguous: pack, exchange bytes, unpack. */
int loom_mpi_dt_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         int dest, int sendtag, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                         MPI_Status *status, const char *call)
{
    MPI_Status local;
    MPI_Status *sp = status == MPI_STATUS_IGNORE ? &local : status;
    void *stmp = NULL, *rtmp = NULL;
    size_t sbytes = 0, rbytes = 0;
    int rc = MPI_SUCCESS;
    int spk = loom_mpi_type_noncontig(sendtype), rpk = loom_mpi_type_noncontig(recvtype);

    if (spk && (rc = loom_mpi_dt_pack_tmp(comm, sendbuf, sendcount, sendtype, call, &stmp,
                                          &sbytes)) != MPI_SUCCESS) {
        return rc;
    }
    if (rpk && (rc = loom_mpi_dt_bytes(comm, recvcount, recvtype, call, &rbytes)) == 0 &&
        (rtmp = malloc(rbytes > 0 ? rbytes : 1)) == NULL) {
        rc = loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %zu bytes",
                            rbytes);
    }
    if (rc == MPI_SUCCESS) {
        sp->loom_bytes_ = 0;
        rc = PMPI_Sendrecv(spk ? stmp : sendbuf, spk ? (int)sbytes : sendcount,
                           spk ? MPI_PACKED : sendtype, dest, sendtag,
                           rpk ? rtmp : recvbuf, rpk ? (int)rbytes : recvcount,
                           rpk ? MPI_PACKED : recvtype, source, recvtag, comm, sp);
        if (rpk && (rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE)) {
            size_t got = sp->loom_bytes_ < rbytes ? sp->loom_bytes_ : rbytes;
            int urc = loom_mpi_dt_unpack_tmp(comm, recvbuf, recvcount, recvtype, rtmp, got,
                                             call);
            rc = rc != MPI_SUCCESS ? rc : urc;
        }
    }
    free(stmp);
    free(rtmp);
    return rc;
}

/* ---- persistent requests ---------------------------------------------------------- */

/* A send of a packed temporary that completes @p outer when it is done. */
static int loom_mpi_dt_send_core(const loom_mpi_dtp_args_t *a, loom_request_t outer,
                                 MPI_Request *request, const char *call)
{
    loom_mpi_dtrecv_t *r = calloc(1, sizeof(*r));
    size_t bytes;
    int rc;

    if (r == NULL) {
        return loom_mpi_raise(a->comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    rc = loom_mpi_dt_pack_tmp(a->comm, a->buf, a->count, a->dt, call, &r->tmp, &bytes);
    if (rc != MPI_SUCCESS) {
        free(r);
        return rc;
    }
    r->outer = outer;
    rc = a->kind == 1
         ? PMPI_Issend(r->tmp, (int)bytes, MPI_PACKED, a->peer, a->tag, a->comm, &r->inner)
         : PMPI_Isend(r->tmp, (int)bytes, MPI_PACKED, a->peer, a->tag, a->comm, &r->inner);
    if (rc != MPI_SUCCESS) {
        free(r->tmp);
        free(r);
        return rc;
    }
    return loom_mpi_dt_wrap(r, a->comm->comm, a->comm, request, call);
}

/*
 * MPI_Start: run the operation as a nonblocking one whose generic request
 * completes this persistent request (and is released on its own).
 */
static loom_status_t loom_mpi_dtp_start(loom_request_t req)
{
    loom_mpi_dtp_args_t *a = loom_mpi_dtp_args(req);
    MPI_Request inner = MPI_REQUEST_NULL;
    int rc;

    a->inner = NULL;
    rc = a->kind == 2
         ? loom_mpi_dt_irecv_core(a->buf, a->count, a->dt, a->peer, a->tag, a->comm,
                                  NULL, req, &inner, "MPI_Start")
         : loom_mpi_dt_send_core(a, req, &inner, "MPI_Start");
    if (rc != MPI_SUCCESS) {
        /* raised above, naming the cause: MPI_Start returns that class */
        int cls = MPI_ERR_OTHER;
        PMPI_Error_class(rc, &cls);
        a->inner = NULL;
        a->start_class = cls;
        return LOOM_ERR_INTERNAL;
    }
    loom_request_free(&inner);  /* released on completion; a->inner tracks it until then */
    return LOOM_OK;
}

int loom_mpi_dt_persist_start_class(MPI_Request req)
{
    if (req->ext != LOOM_REQ_EXT_PERSIST || loom_request_ext(req)->start_fn !=
        loom_mpi_dtp_start) {
        return MPI_SUCCESS;
    }
    loom_mpi_dtp_args_t *a = loom_mpi_dtp_args(req);
    int cls = a->start_class;
    a->start_class = MPI_SUCCESS;
    return cls;
}

int loom_mpi_dt_persist_cancel(MPI_Request req, loom_status_t *st_p)
{
    if (req->ext != LOOM_REQ_EXT_PERSIST || loom_request_ext(req)->start_fn !=
        loom_mpi_dtp_start) {
        return 0;
    }
    loom_mpi_dtp_args_t *a = loom_mpi_dtp_args(req);
    *st_p = LOOM_OK;
    if (!req->inactive && a->inner != NULL) {  /* the running operation takes the cancel */
        loom_mpi_dt_cancel(a->inner, st_p);
    }
    return 1;
}

int loom_mpi_dt_persist_init(int kind, void *buf, int count, MPI_Datatype dt, int peer,
                             int tag, MPI_Comm comm, MPI_Request *request, const char *call)
{
    loom_mpi_dtp_args_t *a;
    size_t bytes;
    int rc = loom_mpi_dt_bytes(comm, count, dt, call, &bytes);
    int size = loom_comm_size(comm->comm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    /* the peer and tag are checked now, as a send_init checks them */
    if (!(peer == MPI_PROC_NULL || (peer >= 0 && peer < size) ||
          (kind == 2 && peer == MPI_ANY_SOURCE))) {
        return loom_mpi_raise(comm, MPI_ERR_RANK, call, "rank %d is not valid (0..%d)", peer,
                              size - 1);
    }
    if (tag < 0 && !(kind == 2 && tag == MPI_ANY_TAG)) {
        return loom_mpi_raise(comm, MPI_ERR_TAG, call, "tag %d is not valid", tag);
    }
    loom_status_t st = loom_request_persist_custom(comm->comm, kind == 2 ? "recv_derived"
                                                   : "send_derived", loom_mpi_dtp_start,
                                                   request);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(comm, st, call);
    }
    a = (void *)loom_request_ext(*request)->user;
    *a = (loom_mpi_dtp_args_t){ .buf = buf, .count = count, .peer = peer, .tag = tag,
                                .kind = kind, .dt = dt, .comm = comm, .inner = NULL,
                                .start_class = MPI_SUCCESS };
    loom_mpi_type_retain(dt);
    return MPI_SUCCESS;
}

void loom_mpi_dt_persist_forget(MPI_Request req)
{
    if (req->ext == LOOM_REQ_EXT_PERSIST && loom_request_ext(req)->start_fn ==
        loom_mpi_dtp_start) {
        loom_mpi_dtp_args_t *a = (void *)loom_request_ext(req)->user;
        if (a->dt != NULL) {
            loom_mpi_type_release(a->dt);
            a->dt = NULL;
        }
    }
}
