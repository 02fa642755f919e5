/*
 * mpi_profile.c: the profiling interface. This program defines MPI_Send,
 * MPI_Allreduce and MPI_Wait itself, as a profiling tool would, counting
 * calls and forwarding to PMPI_*; with every MPI_X a weak alias of PMPI_X
 * in libloom_mpi, the program's definitions win and the library still
 * works underneath. Any number of ranks.
 */
#include "mpi_test_util.h"

static int sends, allreduces, waits;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm)
{
    ++sends;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    ++allreduces;
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    ++waits;
    return PMPI_Wait(request, status);
}

int main(int argc, char **argv)
{
    int rank, size, x, sum = 0;
    MPI_Request req;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    x = rank;
    MT_OK(MPI_Irecv(&x, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Send(&rank, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_EQ(x, (rank + size - 1) % size);
    MT_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_EQ(sum, size * (size - 1) / 2);
    /* the library's own calls go to PMPI_*: Sendrecv does not count as a send */
    MT_OK(MPI_Sendrecv(&rank, 1, MPI_INT, rank, 1, &x, 1, MPI_INT, rank, 1,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_EQ(sends, 1);
    MT_EQ(allreduces, 1);
    MT_EQ(waits, 1);
    MT_PASS("mpi_profile");
    MT_OK(MPI_Finalize());
    return 0;
}
