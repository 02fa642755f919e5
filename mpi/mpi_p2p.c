/*
 * mpi_p2p.c: point-to-point calls. Each maps onto one loom call with the
 * datatype's basic type and count * n elements; ranks, tags, buffers and
 * truncation are checked by loom and come back as MPI classes. Ready mode
 * is standard mode (MPI allows it: a correct ready send is a correct
 * standard send).
 *
 * Threads: the eight hot calls (the blocking and nonblocking sends, MPI_Recv,
 * MPI_Irecv) take no engine lock of their own. Their fast path reads only
 * what is fixed while the handles are live (the communicator's and the
 * datatype's magic, flags and loom handle; the library state) and then
 * makes one native call, which takes the lock itself (LOOM_MT_GUARD in
 * p2p/). Their slow and error paths (derived types, bad arguments, raising
 * an error through the handler) lock on entry. So MPI_THREAD_MULTIPLE pays
 * one lock per call, not a lock and a nested one.
 */
#include "mpi_int.h"
#include "mt_int.h"

#include <stdlib.h>
#include <string.h>

/* Check comm, datatype and count; on success fill the loom arguments. */
static inline int loom_mpi_p2p_args(MPI_Comm comm, MPI_Datatype dt, int count,
                                    const char *call, loom_comm_t *lcomm_p,
                                    size_t *lcount_p)
{
    int rc = loom_mpi_comm_arg(comm, call, lcomm_p);

    *lcount_p = 0;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = loom_mpi_type_check(dt, count);
    if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
        return rc == MPI_ERR_COUNT
               ? loom_mpi_raise(comm, rc, call, "count %d is negative", count)
               : loom_mpi_raise(comm, rc, call, "datatype %s (count %d)",
                                loom_mpi_type_why(dt), count);
    }
    *lcount_p = (size_t)count * dt->n;
    return MPI_SUCCESS;
}

static int loom_mpi_req_arg(MPI_Comm comm, MPI_Request *request, const char *call)
{
    if (request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    return MPI_SUCCESS;
}

typedef loom_status_t (*loom_mpi_send_fn_t)(const void *, size_t, loom_datatype_t, int,
                                            int, loom_comm_t);
typedef loom_status_t (*loom_mpi_isend_fn_t)(const void *, size_t, loom_datatype_t, int,
                                             int, loom_comm_t, loom_request_t *);

/* 1 if the blocking calls' MPI arguments are good: the common case, inline.
 * A padded pair (mpi_int.h) goes the typed way; a committed type that is not
 * non-contiguous has a meaningful base, so the base alone tells. */
static inline int loom_mpi_p2p_args_ok(MPI_Comm comm, MPI_Datatype dt, int count)
{
    return loom_mpi_comm_live(comm) && loom_mpi_type_check(dt, count) == MPI_SUCCESS &&
           !loom_dt_basic_padded(dt->base);
}

/* a blocking call whose MPI arguments are bad: raise the error */
static __attribute__((noinline)) int loom_mpi_p2p_bad(MPI_Comm comm, MPI_Datatype dt,
                                                      int count, const char *call)
{
    loom_comm_t lcomm;   /* called under the lock: loom_mpi_send_slow, loom_mpi_recv_slow */
    size_t n;

    return loom_mpi_p2p_args(comm, dt, count, call, &lcomm, &n);
}

/* a native call of a hot p2p call failed: raise it, under the engine lock */
static __attribute__((noinline)) int loom_mpi_p2p_raise(MPI_Comm comm, loom_status_t st,
                                                        const char *call)
{
    LOOM_MT_GUARD();
    return loom_mpi_raise_loom(comm, st, call);
}

/* a blocking send whose arguments the inline check refused: a
 * non-contiguous derived type (packed, mpi_dtype_p2p.c) or an error */
static __attribute__((noinline)) int loom_mpi_send_slow(int sync, const void *buf, int count,
                                                        MPI_Datatype dt, int dest, int tag,
                                                        MPI_Comm comm, const char *call)
{
    LOOM_MT_GUARD();
    if (loom_mpi_comm_live(comm) && loom_mpi_type_noncontig(dt)) {
        return loom_mpi_dt_send(sync, buf, count, dt, dest, tag, comm, call);
    }
    return loom_mpi_p2p_bad(comm, dt, count, call);
}

/*
 * The blocking sends (and MPI_Recv): the argument checks inline and every
 * error out of line, so the common call keeps one value (comm) across
 * loom's call instead of saving every argument for error paths that may
 * return.
 */
static inline int loom_mpi_send(loom_mpi_send_fn_t fn, const void *buf, int count,
                                MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                                const char *call)
{
    loom_status_t st;

    if (loom_unlikely(!loom_mpi_p2p_args_ok(comm, dt, count))) {
        return loom_mpi_send_slow(fn == loom_ssend ? 's' : 0, buf, count, dt, dest, tag, comm,
                                  call);
    }
    st = fn(buf, (size_t)count * dt->n, dt->base, dest, tag, comm->comm);
    return loom_likely(st == LOOM_OK) ? MPI_SUCCESS : loom_mpi_p2p_raise(comm, st, call);
}

/* a nonblocking send whose arguments the inline check refused: a
 * non-contiguous derived type (packed, mpi_dtype_p2p.c) or an error */
static __attribute__((noinline)) int loom_mpi_isend_slow(loom_mpi_isend_fn_t fn,
                                                         const void *buf, int count,
                                                         MPI_Datatype dt, int dest, int tag,
                                                         MPI_Comm comm, MPI_Request *request,
                                                         const char *call)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    size_t n;
    int rc;

    if (loom_mpi_type_noncontig(dt) && loom_mpi_comm_live(comm)) {
        return loom_mpi_dt_isend(fn == loom_issend, buf, count, dt, dest, tag, comm, request,
                                 call);
    }
    rc = loom_mpi_p2p_args(comm, dt, count, call, &lcomm, &n);
    return rc != MPI_SUCCESS ? rc : loom_mpi_req_arg(comm, request, call);
}

static inline int loom_mpi_isend(loom_mpi_isend_fn_t fn, const void *buf, int count,
                                 MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                                 MPI_Request *request, const char *call)
{
    loom_status_t st;

    if (loom_unlikely(!loom_mpi_p2p_args_ok(comm, dt, count) || request == NULL)) {
        return loom_mpi_isend_slow(fn, buf, count, dt, dest, tag, comm, request, call);
    }
    st = fn(buf, (size_t)count * dt->n, dt->base, dest, tag, comm->comm, request);
    return loom_likely(st == LOOM_OK) ? MPI_SUCCESS : loom_mpi_p2p_raise(comm, st, call);
}

#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm)
{
    /* LOOM_MT_NO_GUARD: one guarded native call; slow and error paths lock */
    return loom_mpi_send(loom_send, buf, count, datatype, dest, tag, comm, "MPI_Send");
}

#pragma weak MPI_Ssend = PMPI_Ssend
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    /* LOOM_MT_NO_GUARD: one guarded native call; slow and error paths lock */
    return loom_mpi_send(loom_ssend, buf, count, datatype, dest, tag, comm, "MPI_Ssend");
}

#pragma weak MPI_Rsend = PMPI_Rsend
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    /* LOOM_MT_NO_GUARD: one guarded native call; slow and error paths lock */
    return loom_mpi_send(loom_send, buf, count, datatype, dest, tag, comm, "MPI_Rsend");
}

#pragma weak MPI_Isend = PMPI_Isend
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    /* LOOM_MT_NO_GUARD: one guarded native call; slow and error paths lock */
    return loom_mpi_isend(loom_isend, buf, count, datatype, dest, tag, comm, request,
                          "MPI_Isend");
}

#pragma weak MPI_Issend = PMPI_Issend
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    /* LOOM_MT_NO_GUARD: one guarded native call; slow and error paths lock */
    return loom_mpi_isend(loom_issend, buf, count, datatype, dest, tag, comm, request,
                          "MPI_Issend");
}

#pragma weak MPI_Irsend = PMPI_Irsend
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    /* LOOM_MT_NO_GUARD: one guarded native call; slow and error paths lock */
    return loom_mpi_isend(loom_isend, buf, count, datatype, dest, tag, comm, request,
                          "MPI_Irsend");
}

/* MPI_Recv whose arguments the inline check refused: a non-contiguous
 * derived type (received into a temporary, mpi_dtype_p2p.c) or an error */
static __attribute__((noinline)) int loom_mpi_recv_slow(void *buf, int count,
                                                        MPI_Datatype datatype, int source,
                                                        int tag, MPI_Comm comm,
                                                        MPI_Status *status)
{
    LOOM_MT_GUARD();
    if (loom_mpi_comm_live(comm) && loom_mpi_type_noncontig(datatype)) {
        return loom_mpi_dt_recv_any(buf, count, datatype, source, tag, comm, NULL, status,
                                    "MPI_Recv");
    }
    return loom_mpi_p2p_bad(comm, datatype, count, "MPI_Recv");
}

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Status *status)
{
    /* LOOM_MT_NO_GUARD: one guarded native call; slow and error paths lock */
    loom_status_t st;

    if (loom_unlikely(!loom_mpi_p2p_args_ok(comm, datatype, count))) {
        return loom_mpi_recv_slow(buf, count, datatype, source, tag, comm, status);
    }
    int serr = loom_mpi_status_error_get(status);
    st = loom_recv(buf, (size_t)count * datatype->n, datatype->base, source, tag,
                   comm->comm, (loom_msg_status_t *)status);
    loom_mpi_status_error_put(status, serr);
    if (loom_likely(st == LOOM_OK)) {
        return MPI_SUCCESS;
    }
    return loom_mpi_p2p_raise(comm, st, "MPI_Recv");
}

/* MPI_Irecv whose arguments the inline check refused: a non-contiguous
 * derived type (received into a temporary, mpi_dtype_p2p.c) or an error */
static __attribute__((noinline)) int loom_mpi_irecv_slow(void *buf, int count,
                                                         MPI_Datatype datatype, int source,
                                                         int tag, MPI_Comm comm,
                                                         MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    size_t n;
    int rc;

    if (loom_mpi_type_noncontig(datatype) && loom_mpi_comm_live(comm)) {
        return loom_mpi_dt_irecv(buf, count, datatype, source, tag, comm, request,
                                 "MPI_Irecv");
    }
    rc = loom_mpi_p2p_args(comm, datatype, count, "MPI_Irecv", &lcomm, &n);
    return rc != MPI_SUCCESS ? rc : loom_mpi_req_arg(comm, request, "MPI_Irecv");
}

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    /* LOOM_MT_NO_GUARD: one guarded native call; slow and error paths lock */
    loom_status_t st;

    if (loom_unlikely(!loom_mpi_p2p_args_ok(comm, datatype, count) || request == NULL)) {
        return loom_mpi_irecv_slow(buf, count, datatype, source, tag, comm, request);
    }
    st = loom_irecv(buf, (size_t)count * datatype->n, datatype->base, source, tag,
                    comm->comm, request);
    return loom_likely(st == LOOM_OK) ? MPI_SUCCESS
                                      : loom_mpi_p2p_raise(comm, st, "MPI_Irecv");
}

/* Post the receive, send, then complete the receive (so two ranks that
 * Sendrecv with each other never deadlock, whatever the message size). */
static int loom_mpi_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             int dest, int sendtag, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Status *status, const char *call)
{
    loom_comm_t lcomm;
    size_t sn, rn;
    loom_request_t rreq = LOOM_REQUEST_NULL;
    loom_status_t st, rst;
    int rc;

    if ((loom_mpi_type_noncontig(sendtype) || loom_mpi_type_noncontig(recvtype)) &&
        loom_mpi_comm_live(comm)) {
        return loom_mpi_dt_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                    recvcount, recvtype, source, recvtag, comm, status, call);
    }
    if ((rc = loom_mpi_p2p_args(comm, sendtype, sendcount, call, &lcomm, &sn)) != 0 ||
        (rc = loom_mpi_p2p_args(comm, recvtype, recvcount, call, &lcomm, &rn)) != 0) {
        return rc;
    }
    st = loom_irecv(recvbuf, rn, recvtype->base, source, recvtag, lcomm, &rreq);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(comm, st, call);
    }
    st = loom_send(sendbuf, sn, sendtype->base, dest, sendtag, lcomm);
    if (st != LOOM_OK) {
        loom_cancel(&rreq);
        loom_wait(&rreq, LOOM_STATUS_IGNORE);
        return loom_mpi_raise_loom(comm, st, call);
    }
    int serr = loom_mpi_status_error_get(status);
    rst = loom_wait(&rreq, (loom_msg_status_t *)status);
    loom_mpi_status_error_put(status, serr);
    return rst == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, rst, call);
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    LOOM_MT_GUARD();
    return loom_mpi_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                             recvcount, recvtype, source, recvtag, comm, status,
                             "MPI_Sendrecv");
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                          int sendtag, int source, int recvtag, MPI_Comm comm,
                          MPI_Status *status)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    size_t n, bytes;
    void *copy;
    int rc;

    if (loom_mpi_type_noncontig(datatype) && loom_mpi_comm_live(comm)) {
        rc = loom_mpi_dt_pack_tmp(comm, buf, count, datatype, "MPI_Sendrecv_replace", &copy,
                                  &bytes);
        if (rc == MPI_SUCCESS) {
            rc = loom_mpi_dt_sendrecv(copy, (int)bytes, MPI_PACKED, dest, sendtag, buf, count,
                                      datatype, source, recvtag, comm, status,
                                      "MPI_Sendrecv_replace");
            free(copy);
        }
        return rc;
    }
    rc = loom_mpi_p2p_args(comm, datatype, count, "MPI_Sendrecv_replace", &lcomm, &n);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* The outgoing data must survive the incoming: send from a copy. */
    bytes = n * loom_datatype_size(datatype->base);
    copy = malloc(bytes > 0 ? bytes : 1);
    if (copy == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, "MPI_Sendrecv_replace",
                              "out of memory for a %zu-byte copy", bytes);
    }
    if (bytes > 0) {
        memcpy(copy, buf, bytes);
    }
    rc = loom_mpi_sendrecv(copy, count, datatype, dest, sendtag, buf, count, datatype,
                           source, recvtag, comm, status, "MPI_Sendrecv_replace");
    free(copy);
    return rc;
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    loom_status_t st;
    int rc = loom_mpi_comm_arg(comm, "MPI_Probe", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    int serr = loom_mpi_status_error_get(status);
    st = loom_probe(source, tag, lcomm, (loom_msg_status_t *)status);
    loom_mpi_status_error_put(status, serr);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Probe");
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    loom_status_t st;
    int rc = loom_mpi_comm_arg(comm, "MPI_Iprobe", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Iprobe", "flag is NULL");
    }
    int serr = loom_mpi_status_error_get(status);
    st = loom_iprobe(source, tag, lcomm, flag, (loom_msg_status_t *)status);
    loom_mpi_status_error_put(status, serr);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Iprobe");
}
