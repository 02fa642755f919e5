/*
 * p2p_dt.c: the public point-to-point calls on derived datatypes
 * (loom_send_dt, loom_recv_dt, ...; docs/p2p.md "Derived datatypes").
 *
 * Design. Each call checks its arguments, then splits once:
 *   - a type that is contiguous for this count (loom_dt_is_contig: a
 *     contiguous, a vector of whole rows, a struct without gaps), or a
 *     LOOM_PROC_NULL peer, is the plain byte call on [buf + true_lb,
 *     count x size) (p2p.c): the same path, protocols and latency;
 *   - anything else starts a typed operation in the engine
 *     (loom_p2p_isend_dt_start / loom_p2p_irecv_dt_start): eager frames
 *     packed straight into the transport's buffer and unpacked straight
 *     from the frame; rendezvous read with get_iov into the type's pieces.
 * The native calls of p2p.c never come here, so they pay nothing for it.
 * Counts are elements of the type; statuses count bytes (MPI_Get_count
 * and MPI_Get_elements divide them by the type as usual).
 *
 * At the top of the p2p stack (docs/p2p.md): it calls p2p.c's public
 * calls and the engine's typed starts; nothing calls it.
 */
#include "p2p_engine_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* rank and tag of a call whose peer is @p rank: LOOM_OK or what is wrong (logged) */
static loom_status_t loom_p2p_dt_check_peer(int rank, int tag, loom_comm_t comm,
                                            int is_recv, const char *op)
{
    if (!(rank == LOOM_PROC_NULL || (rank >= 0 && rank < comm->remote_size) ||
          (is_recv && rank == LOOM_ANY_SOURCE))) {
        loom_error("p2p", "%s: rank %d is not valid for communicator '%s' of size %d "
                   "(0..%d%s, or LOOM_PROC_NULL)", op, rank, comm->name,
                   comm->remote_size, comm->remote_size - 1,
                   is_recv ? ", LOOM_ANY_SOURCE" : "");
        return LOOM_ERR_INVALID_RANK;
    }
    if (!(tag >= 0 || (is_recv && tag == LOOM_ANY_TAG))) {
        loom_error("p2p", "%s: tag %d is not valid (0..%d%s)", op, tag, LOOM_TAG_UB,
                   is_recv ? ", or LOOM_ANY_TAG" : "");
        return LOOM_ERR_INVALID_TAG;
    }
    return LOOM_OK;
}

/*
 * Validate a typed call on @p comm (NULL: skip the communicator, peer and
 * tag, for loom_imrecv_dt); *bytes_p is count x size. A NULL buffer is
 * valid: a type built from absolute addresses (MPI_BOTTOM) starts at 0.
 */
static loom_status_t loom_p2p_dt_check(size_t count, loom_dtype_t dt, int rank, int tag,
                                       loom_comm_t comm, int is_recv, const char *op,
                                       size_t *bytes_p)
{
    loom_status_t st = loom_comm_check(comm != NULL ? comm : LOOM_COMM_SELF, op);
    size_t bytes;

    if (st != LOOM_OK) {
        return st;
    }
    if (dt == NULL || !loom_dt_is_committed(dt)) {
        loom_error("p2p", "%s: the datatype is %s", op, dt == NULL ? "NULL"
                   : "not committed (commit it before communication)");
        return LOOM_ERR_INVALID_TYPE;
    }
    if (__builtin_mul_overflow(count, loom_dt_size(dt), &bytes) ||
        bytes > (size_t)SSIZE_MAX) {
        loom_error("p2p", "%s: count %zu (as signed: %zd) is negative or too large for a "
                   "datatype of %zu bytes", op, count, (ssize_t)count, loom_dt_size(dt));
        return LOOM_ERR_INVALID_COUNT;
    }
    *bytes_p = bytes;
    return comm != NULL ? loom_p2p_dt_check_peer(rank, tag, comm, is_recv, op) : LOOM_OK;
}

/*
 * 1 if (@p buf, @p count, @p dt) is one byte range: *base_p is its start
 * (buf + true lb, computed on integers: buf may be NULL, MPI_BOTTOM).
 */
static int loom_p2p_dt_contig(const void *buf, size_t count, loom_dtype_t dt,
                              void **base_p)
{
    ptrdiff_t true_lb = 0;

    if (!loom_dt_is_contig(dt, count)) {
        return 0;
    }
    loom_dt_get_true_extent(dt, &true_lb, NULL);
    *base_p = count == 0 || loom_dt_size(dt) == 0 ? (void *)buf
              : (void *)((uintptr_t)buf + (uintptr_t)true_lb);
    return 1;
}

/* the world rank a blocking call waits on (-1: any) */
static int loom_p2p_dt_wait_peer(loom_comm_t comm, int rank)
{
    return rank >= 0 ? loom_comm_peer_world(comm, rank) : -1;
}

/* ---- sends --------------------------------------------------------------------------- */

/* Start a typed send on a new request (checked arguments, a real peer). */
static loom_status_t loom_p2p_dt_isend_new(const void *buf, size_t count, loom_dtype_t dt,
                                           int dest, int tag, loom_comm_t comm,
                                           unsigned flags, loom_request_t *req_p)
{
    loom_request_t req = loom_request_alloc(LOOM_REQ_SEND, comm);
    loom_status_t st;

    if (req == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_p2p_isend_dt_start(req, buf, count, dt, dest, tag, comm, LOOM_CTX_P2P, flags);
    if (st < 0) {
        loom_request_release(req);
        return st;
    }
    *req_p = req;
    return LOOM_OK;
}

static loom_status_t loom_p2p_dt_send_common(const void *buf, size_t count, loom_dtype_t dt,
                                             int dest, int tag, loom_comm_t comm,
                                             unsigned flags, const char *op)
{
    size_t bytes = 0;
    void *base;
    loom_request_t req;
    loom_status_t st = loom_p2p_dt_check(count, dt, dest, tag, comm, 0, op, &bytes);

    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, op);
    }
    if (dest == LOOM_PROC_NULL) {
        return LOOM_OK;
    }
    if (loom_p2p_dt_contig(buf, count, dt, &base)) {
        return (flags & LOOM_P2P_FLAG_SYNC) ? loom_ssend(base, bytes, LOOM_BYTE, dest, tag, comm)
                                            : loom_send(base, bytes, LOOM_BYTE, dest, tag, comm);
    }
    st = loom_p2p_dt_isend_new(buf, count, dt, dest, tag, comm, flags, &req);
    if (st == LOOM_OK) {
        if (!req->complete) {
            loom_progress_wait_on(req, loom_p2p_dt_wait_peer(comm, dest), op);
        }
        st = req->status;
        loom_request_release(req);
    }
    return st < 0 ? loom_p2p_error_inline(st, op) : st;
}

loom_status_t loom_send_dt(const void *buf, size_t count, loom_dtype_t dt, int dest, int tag,
                           loom_comm_t comm)
{
    LOOM_MT_GUARD();
    return loom_p2p_dt_send_common(buf, count, dt, dest, tag, comm, 0, "loom_send_dt");
}

loom_status_t loom_ssend_dt(const void *buf, size_t count, loom_dtype_t dt, int dest,
                            int tag, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    return loom_p2p_dt_send_common(buf, count, dt, dest, tag, comm, LOOM_P2P_FLAG_SYNC,
                                   "loom_ssend_dt");
}

static loom_status_t loom_p2p_dt_isend_common(const void *buf, size_t count,
                                              loom_dtype_t dt, int dest, int tag,
                                              loom_comm_t comm, unsigned flags,
                                              loom_request_t *req_p, const char *op)
{
    size_t bytes = 0;
    void *base;
    loom_status_t st = loom_p2p_dt_check(count, dt, dest, tag, comm, 0, op, &bytes);

    if (st == LOOM_OK && req_p == NULL) {
        loom_error("p2p", "%s: req_p is NULL", op);
        st = LOOM_ERR_INVALID_ARG;
    }
    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, op);
    }
    if (dest == LOOM_PROC_NULL || loom_p2p_dt_contig(buf, count, dt, &base)) {
        base = dest == LOOM_PROC_NULL ? NULL : base;
        bytes = dest == LOOM_PROC_NULL ? 0 : bytes;
        return (flags & LOOM_P2P_FLAG_SYNC)
               ? loom_issend(base, bytes, LOOM_BYTE, dest, tag, comm, req_p)
               : loom_isend(base, bytes, LOOM_BYTE, dest, tag, comm, req_p);
    }
    st = loom_p2p_dt_isend_new(buf, count, dt, dest, tag, comm, flags, req_p);
    return st < 0 ? loom_p2p_error_inline(st, op) : st;
}

loom_status_t loom_isend_dt(const void *buf, size_t count, loom_dtype_t dt, int dest,
                            int tag, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_p2p_dt_isend_common(buf, count, dt, dest, tag, comm, 0, req_p,
                                    "loom_isend_dt");
}

loom_status_t loom_issend_dt(const void *buf, size_t count, loom_dtype_t dt, int dest,
                             int tag, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_p2p_dt_isend_common(buf, count, dt, dest, tag, comm, LOOM_P2P_FLAG_SYNC,
                                    req_p, "loom_issend_dt");
}

/* ---- receives ------------------------------------------------------------------------ */

/* Post a typed receive on a new request (checked arguments, not LOOM_PROC_NULL). */
static loom_status_t loom_p2p_dt_irecv_new(void *buf, size_t count, loom_dtype_t dt, int src,
                                           int tag, loom_comm_t comm, loom_request_t *req_p)
{
    loom_request_t req = loom_request_alloc(LOOM_REQ_RECV, comm);

    if (req == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    *req_p = req;
    return loom_p2p_irecv_dt_start(req, buf, count, dt, src, tag, comm, LOOM_CTX_P2P);
}

/* Wait for receive @p req, copy its status, release it: its outcome (error policy applied). */
static loom_status_t loom_p2p_dt_recv_finish(loom_request_t req, int world_peer,
                                             loom_msg_status_t *status, const char *op)
{
    loom_status_t st;

    if (!req->complete) {
        loom_progress_wait_on(req, world_peer, op);
    }
    if (status != LOOM_STATUS_IGNORE) {
        *status = req->msg;
    }
    st = req->status;
    loom_request_release(req);
    return st < 0 ? loom_p2p_error_inline(st, op) : st;
}

loom_status_t loom_recv_dt(void *buf, size_t count, loom_dtype_t dt, int src, int tag,
                           loom_comm_t comm, loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    size_t bytes = 0;
    void *base;
    loom_request_t req;
    loom_status_t st = loom_p2p_dt_check(count, dt, src, tag, comm, 1, "loom_recv_dt",
                                         &bytes);

    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_recv_dt");
    }
    if (src == LOOM_PROC_NULL) {
        return loom_recv(NULL, 0, LOOM_BYTE, src, tag, comm, status);
    }
    if (loom_p2p_dt_contig(buf, count, dt, &base)) {
        return loom_recv(base, bytes, LOOM_BYTE, src, tag, comm, status);
    }
    st = loom_p2p_dt_irecv_new(buf, count, dt, src, tag, comm, &req);
    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_recv_dt");
    }
    return loom_p2p_dt_recv_finish(req, loom_p2p_dt_wait_peer(comm, src), status,
                                   "loom_recv_dt");
}

loom_status_t loom_irecv_dt(void *buf, size_t count, loom_dtype_t dt, int src, int tag,
                            loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    size_t bytes = 0;
    void *base;
    loom_status_t st = loom_p2p_dt_check(count, dt, src, tag, comm, 1, "loom_irecv_dt",
                                         &bytes);

    if (st == LOOM_OK && req_p == NULL) {
        loom_error("p2p", "loom_irecv_dt: req_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_irecv_dt");
    }
    if (src == LOOM_PROC_NULL) {
        return loom_irecv(NULL, 0, LOOM_BYTE, src, tag, comm, req_p);
    }
    if (loom_p2p_dt_contig(buf, count, dt, &base)) {
        return loom_irecv(base, bytes, LOOM_BYTE, src, tag, comm, req_p);
    }
    st = loom_p2p_dt_irecv_new(buf, count, dt, src, tag, comm, req_p);
    return st < 0 ? loom_p2p_error_inline(st, "loom_irecv_dt") : st;
}

/* ---- persistent requests ----------------------------------------------------------- */

loom_status_t loom_send_init_dt(const void *buf, size_t count, loom_dtype_t dt, int dest,
                                int tag, int sync, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    size_t bytes = 0;
    void *base;
    loom_status_t st = loom_p2p_dt_check(count, dt, dest, tag, comm, 0, "loom_send_init_dt",
                                         &bytes);

    if (st == LOOM_OK && req_p == NULL) {
        loom_error("p2p", "loom_send_init_dt: req_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_send_init_dt");
    }
    if (dest == LOOM_PROC_NULL || loom_p2p_dt_contig(buf, count, dt, &base)) {
        return loom_send_init(dest == LOOM_PROC_NULL ? NULL : base,
                              dest == LOOM_PROC_NULL ? 0 : bytes, LOOM_BYTE, dest, tag,
                              sync, comm, req_p);
    }
    st = loom_request_persist_p2p_dt((void *)buf, count, dt, dest, tag,
                                     sync ? LOOM_P2P_FLAG_SYNC : 0, 0, comm, req_p);
    return st < 0 ? loom_p2p_error_inline(st, "loom_send_init_dt") : st;
}

loom_status_t loom_recv_init_dt(void *buf, size_t count, loom_dtype_t dt, int src, int tag,
                                loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    size_t bytes = 0;
    void *base;
    loom_status_t st = loom_p2p_dt_check(count, dt, src, tag, comm, 1, "loom_recv_init_dt",
                                         &bytes);

    if (st == LOOM_OK && req_p == NULL) {
        loom_error("p2p", "loom_recv_init_dt: req_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_recv_init_dt");
    }
    if (src == LOOM_PROC_NULL || loom_p2p_dt_contig(buf, count, dt, &base)) {
        return loom_recv_init(src == LOOM_PROC_NULL ? NULL : base,
                              src == LOOM_PROC_NULL ? 0 : bytes, LOOM_BYTE, src, tag, comm,
                              req_p);
    }
    st = loom_request_persist_p2p_dt(buf, count, dt, src, tag, 0, 1, comm, req_p);
    return st < 0 ? loom_p2p_error_inline(st, "loom_recv_init_dt") : st;
}

/* ---- matched probe ------------------------------------------------------------------- */

loom_status_t loom_imrecv_dt(void *buf, size_t count, loom_dtype_t dt, loom_message_t *msg_p,
                             loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    struct loom_message *msg;
    loom_request_t req;
    size_t bytes = 0;
    void *base;
    loom_status_t st = loom_p2p_dt_check(count, dt, 0, 0, NULL, 1, "loom_imrecv_dt", &bytes);

    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_imrecv_dt");
    }
    if (msg_p == NULL || *msg_p == LOOM_MESSAGE_NULL || *msg_p == LOOM_MESSAGE_NO_PROC ||
        req_p == NULL) {
        return loom_imrecv(NULL, 0, LOOM_BYTE, msg_p, req_p);   /* checks, PROC_NULL */
    }
    if (loom_p2p_dt_contig(buf, count, dt, &base)) {
        return loom_imrecv(base, bytes, LOOM_BYTE, msg_p, req_p);
    }
    msg = *msg_p;
    req = loom_request_alloc(LOOM_REQ_RECV, msg->comm);
    if (req == NULL) {
        return loom_p2p_error_inline(LOOM_ERR_NO_MEMORY, "loom_imrecv_dt");
    }
    loom_p2p_recv_prep(req, buf, count, dt);
    loom_p2p_mrecv_take(req, msg_p, req_p);
    return LOOM_OK;
}

loom_status_t loom_mrecv_dt(void *buf, size_t count, loom_dtype_t dt, loom_message_t *msg_p,
                            loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    loom_request_t req;
    loom_status_t st = loom_imrecv_dt(buf, count, dt, msg_p, &req);

    if (st != LOOM_OK) {
        return st;
    }
    return loom_p2p_dt_recv_finish(req, -1, status, "loom_mrecv_dt");
}
