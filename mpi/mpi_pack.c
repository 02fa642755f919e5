/*
 * mpi_pack.c: MPI_Pack, MPI_Unpack and MPI_Pack_size for the datatypes the
 * binding builds today: every committed type is contiguous (a loom basic
 * type times n), so a packed element is the bytes communication moves for
 * it (loom_mpi_type_extent: the C layout, 16 bytes for MPI_DOUBLE_INT), and
 * packing is one memcpy at *position. Pack_size says exactly that many bytes;
 * MPI_Pack_size's contract is "an upper bound", and the buffered sends
 * (mpi_bsend.c) count the same bytes. The external32 forms and the
 * non-contiguous constructors wait for the datatype engine (issue 20) and
 * stay generated stubs.
 *
 * Errors (MPI-3.1 4.2): a bad type MPI_ERR_TYPE, a negative count or size
 * MPI_ERR_COUNT, a position outside the buffer MPI_ERR_ARG, and data that
 * does not fit the output buffer (pack) or is not in the input buffer
 * (unpack) MPI_ERR_TRUNCATE, naming both sizes. The communicator only picks
 * the error handler.
 */
#include "mpi_int.h"

#include <limits.h>
#include <string.h>

/* Check (count, type, communicator); the packed bytes of count elements in *bytes_p. */
static int loom_mpi_pack_args(MPI_Comm comm, MPI_Datatype dt, int count, const char *call,
                              size_t *bytes_p)
{
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = loom_mpi_type_check(dt, count);
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(comm, rc, call, rc == MPI_ERR_COUNT ? "count %d is negative"
                              : "datatype is not a committed datatype (count %d)", count);
    }
    *bytes_p = (size_t)count * loom_mpi_type_extent(dt);
    if (*bytes_p > INT_MAX) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "%d elements of %zu bytes do not "
                              "fit an int position (limit %d bytes)", count,
                              loom_mpi_type_extent(dt), INT_MAX);
    }
    return MPI_SUCCESS;
}

/* The buffer of @p size bytes (@p what) and *position inside it. */
static int loom_mpi_pack_pos(MPI_Comm comm, const void *buf, int size, const int *position,
                             const char *what, const char *call)
{
    if (position == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "position is NULL");
    }
    if (size < 0) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "%s size %d is negative", what,
                              size);
    }
    if (*position < 0 || *position > size) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "position %d is outside the %d-byte "
                              "%s buffer", *position, size, what);
    }
    if (buf == NULL && size > 0) {
        return loom_mpi_raise(comm, MPI_ERR_BUFFER, call, "the %s buffer is NULL", what);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
              int outsize, int *position, MPI_Comm comm)
{
    size_t bytes;
    int rc = loom_mpi_pack_args(comm, datatype, incount, "MPI_Pack", &bytes);

    if (rc == MPI_SUCCESS) {
        rc = loom_mpi_pack_pos(comm, outbuf, outsize, position, "output", "MPI_Pack");
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (bytes > (size_t)(outsize - *position)) {
        return loom_mpi_raise(comm, MPI_ERR_TRUNCATE, "MPI_Pack", "%zu packed bytes do not "
                              "fit the %d bytes left of the %d-byte output buffer at "
                              "position %d", bytes, outsize - *position, outsize, *position);
    }
    if (bytes > 0 && inbuf == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_BUFFER, "MPI_Pack", "inbuf is NULL");
    }
    memcpy((char *)outbuf + *position, inbuf, bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    size_t bytes;
    int rc = loom_mpi_pack_args(comm, datatype, outcount, "MPI_Unpack", &bytes);

    if (rc == MPI_SUCCESS) {
        rc = loom_mpi_pack_pos(comm, inbuf, insize, position, "input", "MPI_Unpack");
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (bytes > (size_t)(insize - *position)) {
        return loom_mpi_raise(comm, MPI_ERR_TRUNCATE, "MPI_Unpack", "%d elements need %zu "
                              "packed bytes; the %d-byte input buffer has %d left at "
                              "position %d", outcount, bytes, insize, insize - *position,
                              *position);
    }
    if (bytes > 0 && outbuf == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_BUFFER, "MPI_Unpack", "outbuf is NULL");
    }
    memcpy(outbuf, (const char *)inbuf + *position, bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    size_t bytes;
    int rc = loom_mpi_pack_args(comm, datatype, incount, "MPI_Pack_size", &bytes);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (size == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Pack_size", "size is NULL");
    }
    *size = (int)bytes;
    return MPI_SUCCESS;
}
