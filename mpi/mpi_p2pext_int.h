/*
 * mpi_p2pext_int.h: what the point-to-point additions (mpi_bsend.c,
 * mpi_persist.c, mpi_mprobe.c) share with each other and with the
 * completion calls of mpi_request.c.
 */
#ifndef LOOM_MPI_P2PEXT_INT_H
#define LOOM_MPI_P2PEXT_INT_H

#include "mpi_int.h"
#include "request_int.h"

/**
 * Buffered send: copy the message into the attached buffer and start a
 * send from there. @return MPI_SUCCESS or an MPI error class, with a
 * sentence saying what was wrong in @p why (nothing raised: the caller
 * raises once, naming itself).
 */
int loom_mpi_bsend_try(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                       MPI_Comm comm, char *why, size_t why_len);

/** MPI_Cancel of a persistent or generalized request (req->ext != 0). */
int loom_mpi_ext_cancel(MPI_Request req);

/** MPI_Request_free of a generalized request: free_fn now or at completion. */
int loom_mpi_greq_free(MPI_Request *request);

#endif /* LOOM_MPI_P2PEXT_INT_H */
