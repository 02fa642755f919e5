/*
 * mpi_stub.h: what the generated stubs (build/<config>/gen/mpi_stubs.c, made
 * by mpi/gen_mpi.py from mpi/mpi_api.txt) call to report a function outside
 * loom's MPI subset.
 */
#ifndef LOOM_MPI_STUB_H
#define LOOM_MPI_STUB_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/**
 * Raise MPI_ERR_UNSUPPORTED_OPERATION for MPI call @p call, whose missing
 * feature is @p what, on @p comm's error handler (MPI_COMM_NULL or a handle
 * that is not a live communicator: MPI_COMM_WORLD's). Returns the class when
 * the handler returns.
 */
int loom_mpi_unsupported(MPI_Comm comm, const char *call, const char *what);

#pragma GCC visibility pop

#endif /* LOOM_MPI_STUB_H */
