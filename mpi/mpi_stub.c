/*
 * mpi_stub.c: the one helper behind every "unsupported" stub.
 *
 * The stubs themselves are generated (mpi/gen_mpi.py writes one for each
 * function of mpi/mpi_api.txt that no hand-written mpi/ source implements): each
 * links, sets its output handles to the null handle and returns through
 * loom_mpi_unsupported(), so a program fails loudly under
 * MPI_ERRORS_ARE_FATAL or can take another path under MPI_ERRORS_RETURN;
 * it never gets silently wrong results.
 */
#include "mpi_int.h"
#include "mpi_stub.h"

int loom_mpi_unsupported(MPI_Comm comm, const char *call, const char *what)
{
    if (comm != MPI_COMM_NULL && comm->magic != LOOM_MPI_COMM_MAGIC) {
        comm = MPI_COMM_NULL;  /* raised on MPI_COMM_WORLD */
    }
    return loom_mpi_raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                          "%s is outside loom's MPI subset (%s)", call, what);
}
