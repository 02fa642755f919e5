/*
 * mpi_dtype_p2p.c: point-to-point with non-contiguous derived datatypes
 * (issue 20), and with the padded value+index pairs (MPI_DOUBLE_INT & co.,
 * whose 12 bytes of data travel without the C struct's padding: mpi_int.h),
 * on the engine's typed calls.
 *
 * Design. Every call forwards (buf, count, type) to the native typed call
 * (loom_send_dt, loom_irecv_dt, loom_mrecv_dt, loom_send_init_dt, ...;
 * p2p/p2p_dt.c) with the type's engine object (loom_mpi_type_ldt): the engine packs
 * eager frames straight into the transport and unpacks them straight from
 * it, and reads a rendezvous into the type's pieces, so no call here
 * builds a copy of the whole message. The requests are the engine's own
 * (a receive holds a reference on the engine type until it completes, a
 * persistent one until it is freed), so every completion call, MPI_Cancel,
 * MPI_Start and MPI_Request_free work on them unchanged. Statuses count
 * packed bytes, which MPI_Get_count/Get_elements read through the engine.
 * Buffered mode alone still packs (its data is copied into the attached
 * buffer anyway, mpi_bsend.c).
 *
 * The collectives on non-contiguous types (mpi_dtype_coll.c) still move
 * packed temporaries: loom_mpi_dt_pack_tmp / loom_mpi_dt_unpack_tmp, and
 * loom_mpi_dt_wrap_coll, a generic request that completes a nonblocking
 * collective's inner request and then unpacks its temporary.
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

/*
 * A NULL buffer is MPI_BOTTOM, which only a derived type's absolute
 * displacements can use: @p count > 0 elements of a padded pair (mpi_int.h)
 * at address 0 are an error, as on the contiguous path.
 */
static int loom_mpi_dt_buf_ok(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                              const char *call)
{
    if (buf == NULL && count > 0 && !dt->noncontig) {
        return loom_mpi_raise(comm, MPI_ERR_BUFFER, call, "buffer is NULL for %d elements "
                              "of %s", count, dt->name);
    }
    return MPI_SUCCESS;
}

int loom_mpi_dt_pack_tmp(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                         const char *call, void **tmp_p, size_t *bytes_p)
{
    size_t bytes = 0;
    void *tmp;
    int rc = loom_mpi_dt_bytes(comm, count, dt, call, &bytes);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_dt_buf_ok(comm, buf, count, dt, call)) != 0) {
        return rc;
    }
    tmp = malloc(bytes > 0 ? bytes : 1);
    if (tmp == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory packing %zu bytes",
                              bytes);
    }
    loom_status_t st = loom_dt_pack_range(buf, (size_t)count, loom_mpi_type_ldt(dt), 0, bytes,
                                          tmp);
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
    st = loom_dt_unpack_range(buf, (size_t)count, loom_mpi_type_ldt(dt), 0, bytes, tmp);
    return st == LOOM_OK ? MPI_SUCCESS
           : loom_mpi_raise(comm, loom_mpi_class_of(st), call, "unpacking %zu bytes "
                            "failed: %s", bytes, loom_strerror(st));
}

/* An engine outcome as an MPI return on @p comm (its status' error field kept). */
static int loom_mpi_dt_ret(MPI_Comm comm, loom_status_t st, const char *call)
{
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, call);
}

/* Check @p count and @p buf (loom_mpi_dt_buf_ok) of @p dt; its engine type in *ldt_p. */
static int loom_mpi_dt_args(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                            const char *call, loom_dt_t **ldt_p)
{
    int rc;

    *ldt_p = loom_mpi_type_ldt(dt);
    if (count < 0) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "count %d is negative", count);
    }
    if ((rc = loom_mpi_dt_buf_ok(comm, buf, count, dt, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (*ldt_p == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory making the "
                              "engine's form of %s", dt->name);
    }
    return MPI_SUCCESS;
}

/* ---- sends ------------------------------------------------------------------------- */

int loom_mpi_dt_isend(int sync, const void *buf, int count, MPI_Datatype dt, int dest,
                      int tag, MPI_Comm comm, MPI_Request *request, const char *call)
{
    loom_dt_t *ldt;
    int rc = loom_mpi_dt_args(comm, buf, count, dt, call, &ldt);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    return loom_mpi_dt_ret(comm, sync ? loom_issend_dt(buf, (size_t)count, ldt, dest, tag,
                                                       comm->comm, request)
                                      : loom_isend_dt(buf, (size_t)count, ldt, dest, tag,
                                                      comm->comm, request), call);
}

int loom_mpi_dt_send(int mode, const void *buf, int count, MPI_Datatype dt, int dest,
                     int tag, MPI_Comm comm, const char *call)
{
    void *tmp;
    size_t bytes = 0;
    loom_dt_t *ldt;
    int rc = loom_mpi_dt_args(comm, buf, count, dt, call, &ldt);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (mode == 's') {
        return loom_mpi_dt_ret(comm, loom_ssend_dt(buf, (size_t)count, ldt, dest, tag,
                                                   comm->comm), call);
    }
    if (mode != 'b') {
        return loom_mpi_dt_ret(comm, loom_send_dt(buf, (size_t)count, ldt, dest, tag,
                                                  comm->comm), call);
    }
    /* buffered: the bytes are copied into the attached buffer anyway */
    rc = loom_mpi_dt_pack_tmp(comm, buf, count, dt, call, &tmp, &bytes);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = PMPI_Bsend(tmp, (int)bytes, MPI_PACKED, dest, tag, comm);
    free(tmp);
    return rc;
}

/* ---- receives ---------------------------------------------------------------------- */

/* Blocking receive (from @p message if not NULL) straight into the type's memory. */
int loom_mpi_dt_recv_any(void *buf, int count, MPI_Datatype dt, int source, int tag,
                         MPI_Comm comm, MPI_Message *message, MPI_Status *status,
                         const char *call)
{
    loom_request_t req = LOOM_REQUEST_NULL;
    loom_status_t st;
    loom_dt_t *ldt;
    int rc = loom_mpi_dt_args(comm, buf, count, dt, call, &ldt);
    int serr = loom_mpi_status_error_get(status);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (message == NULL) {
        st = loom_recv_dt(buf, (size_t)count, ldt, source, tag, comm->comm,
                          (loom_msg_status_t *)status);
        loom_mpi_status_error_put(status, serr);
        return loom_mpi_dt_ret(comm, st, call);
    }
    st = loom_imrecv_dt(buf, (size_t)count, ldt, (loom_message_t *)message, &req);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(NULL, st, call);
    }
    comm = loom_mpi_comm_of(req->comm);
    st = loom_wait(&req, (loom_msg_status_t *)status);
    loom_mpi_status_error_put(status, serr);
    return loom_mpi_dt_ret(comm, st, call);
}

int loom_mpi_dt_irecv_any(void *buf, int count, MPI_Datatype dt, int source, int tag,
                          MPI_Comm comm, MPI_Message *message, MPI_Request *request,
                          const char *call)
{
    loom_dt_t *ldt;
    int rc = loom_mpi_dt_args(comm, buf, count, dt, call, &ldt);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    if (message != NULL) {
        return loom_mpi_dt_ret(NULL, loom_imrecv_dt(buf, (size_t)count, ldt,
                                                    (loom_message_t *)message, request),
                               call);
    }
    return loom_mpi_dt_ret(comm, loom_irecv_dt(buf, (size_t)count, ldt, source, tag,
                                               comm->comm, request), call);
}

int loom_mpi_dt_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag,
                      MPI_Comm comm, MPI_Request *request, const char *call)
{
    return loom_mpi_dt_irecv_any(buf, count, dt, source, tag, comm, NULL, request, call);
}

/*
 * Sendrecv with either side (or both) non-contiguous: post the receive,
 * send, complete the receive (as mpi_p2p.c does for contiguous types, so
 * two ranks that Sendrecv with each other never deadlock). The MPI calls
 * route each side to its typed or plain path.
 */
int loom_mpi_dt_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         int dest, int sendtag, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                         MPI_Status *status, const char *call)
{
    MPI_Request rreq = MPI_REQUEST_NULL;
    int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rreq);

    (void)call;   /* each inner call names itself in its error */
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = PMPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    if (rc != MPI_SUCCESS) {
        PMPI_Cancel(&rreq);
        PMPI_Wait(&rreq, MPI_STATUS_IGNORE);
        return rc;
    }
    return PMPI_Wait(&rreq, status);
}

/* ---- persistent requests ---------------------------------------------------------- */

int loom_mpi_dt_persist_init(int kind, void *buf, int count, MPI_Datatype dt, int peer,
                             int tag, MPI_Comm comm, MPI_Request *request, const char *call)
{
    loom_dt_t *ldt;
    int rc = loom_mpi_dt_args(comm, buf, count, dt, call, &ldt);
    int size = loom_comm_size(comm->comm);
    loom_status_t st;

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
    st = kind == 2 ? loom_recv_init_dt(buf, (size_t)count, ldt, peer, tag, comm->comm,
                                       request)
                   : loom_send_init_dt(buf, (size_t)count, ldt, peer, tag, kind == 1,
                                       comm->comm, request);
    return loom_mpi_dt_ret(comm, st, call);
}

/* The persistent typed operations are the engine's own requests now: nothing to do. */
void loom_mpi_dt_persist_forget(MPI_Request req)
{
    (void)req;
}

int loom_mpi_dt_persist_cancel(MPI_Request req, loom_status_t *st_p)
{
    (void)req;
    (void)st_p;
    return 0;
}

int loom_mpi_dt_persist_start_class(MPI_Request req)
{
    (void)req;
    return MPI_SUCCESS;
}

/* ---- nonblocking collectives on packed temporaries (mpi_dtype_coll.c) ------------ */

typedef struct loom_mpi_dtrecv {
    MPI_Request    inner;
    void          *tmp;    /* packed receive data, unpacked at the end (or NULL) */
    size_t         cap;
    void          *buf;
    int            count;
    MPI_Datatype   dt;     /* NULL: nothing to unpack */
    void          *tmp2;   /* the collective's packed send data, freed at the end */
} loom_mpi_dtrecv_t;

static loom_mpi_dtrecv_t *loom_mpi_dtrecv(loom_request_t req)
{
    return *(loom_mpi_dtrecv_t **)(void *)req->priv;
}

/* Unpack all cap bytes when the inner collective completes; its status becomes ours. */
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
    if (r->dt != NULL && (st == LOOM_OK || st == LOOM_ERR_TRUNCATED) && r->cap > 0 &&
        !msg.cancelled) {
        loom_status_t ust = loom_dt_unpack_range(r->buf, (size_t)r->count,
                                                 loom_mpi_type_ldt(r->dt), 0, r->cap, r->tmp);
        st = st != LOOM_OK ? st : ust;
    }
    req->msg = msg;
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

int loom_mpi_dt_wrap_coll(MPI_Request inner, void *rtmp, void *ubuf, int ucount,
                          MPI_Datatype utype, void *stmp, MPI_Comm comm,
                          MPI_Request *request, const char *call)
{
    loom_mpi_dtrecv_t *r = calloc(1, sizeof(*r));
    loom_request_t req;
    loom_status_t st;

    if (r == NULL) {
        loom_wait(&inner, LOOM_STATUS_IGNORE);
        free(rtmp);
        free(stmp);
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    *r = (loom_mpi_dtrecv_t){ .inner = inner, .tmp = rtmp, .tmp2 = stmp };
    if (rtmp != NULL) {
        r->buf   = ubuf;
        r->count = ucount;
        r->dt    = utype;
        r->cap   = (size_t)ucount * utype->size;
    }
    st = loom_request_generic_alloc(comm->comm, "coll_derived", loom_mpi_dtrecv_progress,
                                    loom_mpi_dtrecv_free, &req);
    if (st != LOOM_OK) {
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
    loom_request_generic_start(req);
    *request = req;
    return MPI_SUCCESS;
}
