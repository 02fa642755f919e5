/*
 * osu_fault.c: fault injection through the MPI profiling interface, to
 * prove the benchmarks' validation fails when an MPI library returns wrong
 * data. Linked into a copy of each benchmark (never the measured ones), it
 * wraps MPI_X and calls PMPI_X, so it works with any library that has the
 * profiling interface (Open MPI; loom's MPI_X are weak aliases of PMPI_X).
 *
 * LOOM_BENCH_FAULT=<call> picks the call to break:
 *   recv, waitall, testall, bcast, reduce, allreduce, allgather, alltoall,
 *   gather, scatter, reduce_scatter:
 *       the last rank flips the last byte it received (bcast: non-roots;
 *       reduce: at the root; gather: when it is the root; waitall, testall: of the last posted MPI_Irecv,
 *       once the call completed it)
 *   barrier: every rank returns from MPI_Barrier at once
 * Unset or another name: no fault.
 */
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

static int fault_is(const char *call, MPI_Comm comm)
{
    const char *f = getenv("LOOM_BENCH_FAULT");
    int rank = 0, size = 1;

    if (f == NULL || strcmp(f, call) != 0)
        return 0;
    if (strcmp(call, "barrier") == 0)
        return 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    return rank == size - 1;
}

static void fault_flip(void *buf, int count, MPI_Datatype type, int blocks)
{
    int tsize = 0;

    PMPI_Type_size(type, &tsize);
    if (count > 0 && tsize > 0)
        ((unsigned char *)buf)[(size_t)count * (size_t)tsize * (size_t)blocks - 1] ^= 0x5a;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);

    /* Leave the driver's own verdict messages (tags >= 31000) intact. */
    if (tag < 31000 && fault_is("recv", comm))
        fault_flip(buf, count, type, 1);
    return rc;
}

static void *last_irecv_buf;
static int last_irecv_count;
static MPI_Datatype last_irecv_type;

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    if (fault_is("waitall", comm) || fault_is("testall", comm)) {
        last_irecv_buf = buf;
        last_irecv_count = count;
        last_irecv_type = type;
    }
    return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status stats[])
{
    int rc = PMPI_Waitall(count, reqs, stats);

    if (last_irecv_buf != NULL) {
        fault_flip(last_irecv_buf, last_irecv_count, last_irecv_type, 1);
        last_irecv_buf = NULL;
    }
    return rc;
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status stats[])
{
    int rc = PMPI_Testall(count, reqs, flag, stats);

    if (*flag && last_irecv_buf != NULL) {
        fault_flip(last_irecv_buf, last_irecv_count, last_irecv_type, 1);
        last_irecv_buf = NULL;
    }
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int rc = PMPI_Bcast(buf, count, type, root, comm), rank = 0;

    PMPI_Comm_rank(comm, &rank);
    if (rank != root && fault_is("bcast", comm))
        fault_flip(buf, count, type, 1);
    return rc;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    const char *f = getenv("LOOM_BENCH_FAULT");
    int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm), rank = 0;

    /* Break the root's result whichever rank it is, and only for float data
     * so the driver's statistics (doubles) stay right. */
    PMPI_Comm_rank(comm, &rank);
    if (rank == root && type == MPI_FLOAT && f != NULL && strcmp(f, "reduce") == 0)
        fault_flip(rbuf, count, type, 1);
    return rc;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);

    if (fault_is("allreduce", comm))
        fault_flip(rbuf, count, type, 1);
    return rc;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm), size = 1;

    PMPI_Comm_size(comm, &size);
    if (fault_is("allgather", comm))
        fault_flip(rbuf, rcount, rtype, size);
    return rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm), size = 1;

    PMPI_Comm_size(comm, &size);
    if (fault_is("alltoall", comm))
        fault_flip(rbuf, rcount, rtype, size);
    return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    int size = 1, rank = 0;

    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    if (rank == root && fault_is("gather", comm))
        fault_flip(rbuf, rcount, rtype, size);
    return rc;
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);

    if (fault_is("scatter", comm))
        fault_flip(rbuf, rcount, rtype, 1);
    return rc;
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm)
{
    int rc = PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm), rank = 0;

    PMPI_Comm_rank(comm, &rank);
    if (fault_is("reduce_scatter", comm))
        fault_flip(rbuf, rcounts[rank], type, 1);
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    if (fault_is("barrier", comm))
        return MPI_SUCCESS;
    return PMPI_Barrier(comm);
}
