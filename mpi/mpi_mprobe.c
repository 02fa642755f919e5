/*
 * mpi_mprobe.c: matched probe and receive (MPI_Mprobe, MPI_Improbe,
 * MPI_Mrecv, MPI_Imrecv), on loom_mprobe & co.
 *
 * An MPI_Message is a loom_message_t: the probed message is out of the
 * matching engine (no other receive or probe can take it) until
 * MPI_Mrecv/MPI_Imrecv receives it; a rendezvous message's data is read
 * only then. MPI_MESSAGE_NO_PROC (from MPI_PROC_NULL) is
 * LOOM_MESSAGE_NO_PROC; receiving it completes at once with the
 * MPI_PROC_NULL status.
 */
#include "mpi_p2pext_int.h"
#include "mt_int.h"

_Static_assert((void *)MPI_MESSAGE_NO_PROC == (void *)LOOM_MESSAGE_NO_PROC &&
               (void *)MPI_MESSAGE_NULL == (void *)LOOM_MESSAGE_NULL,
               "MPI message handles must be loom's");

static int loom_mpi_mprobe_args(MPI_Comm comm, MPI_Message *message, const char *call,
                                loom_comm_t *lcomm_p)
{
    int rc = loom_mpi_comm_arg(comm, call, lcomm_p);

    if (rc == MPI_SUCCESS && message == NULL) {
        rc = loom_mpi_raise(comm, MPI_ERR_ARG, call, "message is NULL");
    }
    return rc;
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                MPI_Status *status)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    loom_status_t st;
    int rc = loom_mpi_mprobe_args(comm, message, "MPI_Mprobe", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    int serr = loom_mpi_status_error_get(status);
    st = loom_mprobe(source, tag, lcomm, (loom_message_t *)message,
                     (loom_msg_status_t *)status);
    loom_mpi_status_error_put(status, serr);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Mprobe");
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    loom_status_t st;
    int rc = loom_mpi_mprobe_args(comm, message, "MPI_Improbe", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Improbe", "flag is NULL");
    }
    int serr = loom_mpi_status_error_get(status);
    st = loom_improbe(source, tag, lcomm, flag, (loom_message_t *)message,
                      (loom_msg_status_t *)status);
    loom_mpi_status_error_put(status, serr);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Improbe");
}

/* a message handle MPI_Mrecv may take; the type and count checked */
static int loom_mpi_mrecv_args(MPI_Datatype dt, int count, MPI_Message *message,
                               const char *call)
{
    int rc;

    if (message == NULL || *message == MPI_MESSAGE_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, call, "message is %s",
                              message == NULL ? "NULL"
                              : "MPI_MESSAGE_NULL (not from MPI_Mprobe/MPI_Improbe)");
    }
    rc = loom_mpi_type_check(dt, count);
    if (rc != MPI_SUCCESS) {
        return rc == MPI_ERR_COUNT
               ? loom_mpi_raise(NULL, rc, call, "count %d is negative", count)
               : loom_mpi_raise(NULL, rc, call, "datatype %s (count %d)",
                                loom_mpi_type_why(dt), count);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    LOOM_MT_GUARD();
    loom_request_t req = LOOM_REQUEST_NULL;
    loom_status_t st;
    MPI_Comm comm;
    int rc;

    if (loom_mpi_type_noncontig(datatype) && message != NULL &&
        *message != MPI_MESSAGE_NULL) {
        return loom_mpi_dt_recv_any(buf, count, datatype, 0, 0, NULL, message, status,
                                    "MPI_Mrecv");
    }
    rc = loom_mpi_mrecv_args(datatype, count, message, "MPI_Mrecv");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    st = loom_imrecv(buf, (size_t)count * datatype->n, datatype->base,
                     (loom_message_t *)message, &req);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(NULL, st, "MPI_Mrecv");
    }
    comm = loom_mpi_comm_of(req->comm);
    int serr = loom_mpi_status_error_get(status);
    st = loom_wait(&req, (loom_msg_status_t *)status);
    loom_mpi_status_error_put(status, serr);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Mrecv");
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_status_t st;
    int rc;

    if (loom_mpi_type_noncontig(datatype) && message != NULL &&
        *message != MPI_MESSAGE_NULL) {
        return loom_mpi_dt_irecv_any(buf, count, datatype, 0, 0, NULL, message, request,
                                     "MPI_Imrecv");
    }
    rc = loom_mpi_mrecv_args(datatype, count, message, "MPI_Imrecv");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, "MPI_Imrecv", "request is NULL");
    }
    st = loom_imrecv(buf, (size_t)count * datatype->n, datatype->base,
                     (loom_message_t *)message, request);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(NULL, st, "MPI_Imrecv");
}
