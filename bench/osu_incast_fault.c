/*
 * osu_incast_fault.c: fault injection for osu_incast's validation, through
 * the MPI profiling interface (the same idea as osu_fault.c, which breaks
 * the last rank; osu_incast's receiver is rank 0). Linked only into the
 * fault copies ($(BUILD)/bench/{ompi,loom}-fault/osu_incast), never into
 * the measured program.
 *
 * LOOM_BENCH_FAULT=<name>, on rank 0's MPI_Recv of a benchmark message
 * (tags below OSU_TAG_AGREE, so the driver's verdict stays intact):
 *   incast      flip the last byte of every message (data check fails)
 *   incast-seq  flip the first byte (the sequence number: the per-sender
 *               order check fails)
 * Unset or another name: no fault.
 */
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#define FAULT_TAG_LIMIT 31000   /* osu_util.h's OSU_TAG_AGREE */

/* Byte to flip for the fault in force: 0 first, 1 last, -1 none. */
static int fault_which(MPI_Comm comm, int tag)
{
    const char *f = getenv("LOOM_BENCH_FAULT");
    int rank = -1;

    if (f == NULL || tag >= FAULT_TAG_LIMIT)
        return -1;
    PMPI_Comm_rank(comm, &rank);
    if (rank != 0)
        return -1;
    if (strcmp(f, "incast") == 0)
        return 1;
    return strcmp(f, "incast-seq") == 0 ? 0 : -1;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
    int which = fault_which(comm, tag), tsize = 0;

    PMPI_Type_size(type, &tsize);
    if (which >= 0 && rc == MPI_SUCCESS && count > 0 && tsize > 0) {
        size_t at = which == 0 ? 0 : (size_t)count * (size_t)tsize - 1;

        ((unsigned char *)buf)[at] ^= 0x5a;
    }
    return rc;
}
