/*
 * mpi_pack.c: MPI_Pack, MPI_Unpack, MPI_Pack_size and the external32 forms.
 * A contiguous "base x n" type packs as its bytes (loom_mpi_type_extent):
 * one memcpy at *position. A non-contiguous derived type, and a padded
 * value+index pair (MPI_DOUBLE_INT: mpi_int.h), pack the engine's packed
 * stream (loom_dt_pack_range: size bytes per instance, 12 for
 * MPI_DOUBLE_INT), which is also what point-to-point sends for them.
 * Pack_size says exactly that many bytes; MPI_Pack_size's contract is "an
 * upper bound", and the buffered sends (mpi_bsend.c) count the same bytes.
 * external32 (MPI-3.1 13.5.2) is the engine's, for every type.
 *
 * Errors (MPI-3.1 4.2): a bad type MPI_ERR_TYPE, a negative count or size
 * MPI_ERR_COUNT, a position outside the buffer MPI_ERR_ARG, and data that
 * does not fit the output buffer (pack) or is not in the input buffer
 * (unpack) MPI_ERR_TRUNCATE, naming both sizes. The communicator only picks
 * the error handler.
 */
#include "mpi_int.h"
#include "dt_int.h"
#include "mt_int.h"

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
    rc = loom_mpi_type_check_any(dt, count);
    if (rc != MPI_SUCCESS) {
        return rc == MPI_ERR_COUNT
               ? loom_mpi_raise(comm, rc, call, "count %d is negative", count)
               : loom_mpi_raise(comm, rc, call, "datatype %s (count %d)",
                                loom_mpi_type_why(dt), count);
    }
    *bytes_p = (size_t)count * (loom_mpi_type_packed(dt) ? dt->size
                                                         : loom_mpi_type_extent(dt));
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
    LOOM_MT_GUARD();
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
    if (bytes > 0 && inbuf == NULL && !datatype->noncontig) {  /* MPI_BOTTOM */
        return loom_mpi_raise(comm, MPI_ERR_BUFFER, "MPI_Pack", "inbuf is NULL");
    }
    if (loom_mpi_type_packed(datatype)) {
        loom_status_t st = loom_dt_pack_range(inbuf, (size_t)incount,
                                              loom_mpi_type_ldt(datatype), 0, bytes,
                                              (char *)outbuf + *position);
        if (st != LOOM_OK) {
            return loom_mpi_raise_loom(comm, st, "MPI_Pack");
        }
    } else {
        memcpy((char *)outbuf + *position, inbuf, bytes);
    }
    *position += (int)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    LOOM_MT_GUARD();
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
    if (bytes > 0 && outbuf == NULL && !datatype->noncontig) {  /* MPI_BOTTOM */
        return loom_mpi_raise(comm, MPI_ERR_BUFFER, "MPI_Unpack", "outbuf is NULL");
    }
    if (loom_mpi_type_packed(datatype)) {
        loom_status_t st = loom_dt_unpack_range(outbuf, (size_t)outcount,
                                                loom_mpi_type_ldt(datatype), 0,
                                                bytes, (const char *)inbuf + *position);
        if (st != LOOM_OK) {
            return loom_mpi_raise_loom(comm, st, "MPI_Unpack");
        }
    } else {
        memcpy(outbuf, (const char *)inbuf + *position, bytes);
    }
    *position += (int)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    LOOM_MT_GUARD();
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

/* ---- external32 (MPI-3.1 13.5.2): the engine's big-endian portable form ---- */

/* Check datarep, the type and count; the engine type in *ldt_p. */
static int loom_mpi_ext32_args(const char *datarep, MPI_Datatype dt, int count,
                               const char *call, loom_dt_t **ldt_p)
{
    int rc = loom_mpi_type_check_any(dt, count);

    if (datarep == NULL || strcmp(datarep, "external32") != 0) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "datarep \"%s\" is not \"external32\" "
                              "(the only one supported)", datarep == NULL ? "(null)" : datarep);
    }
    if (rc != MPI_SUCCESS) {
        if (rc == MPI_ERR_COUNT) {
            return loom_mpi_raise(NULL, rc, call, "count %d is negative", count);
        }
        return loom_mpi_raise(NULL, rc, call, "datatype %s", loom_mpi_type_why(dt));
    }
    *ldt_p = loom_mpi_type_ldt(dt);
    if (*ldt_p == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory for the datatype");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    LOOM_MT_GUARD();
    loom_dt_t *ldt;
    size_t bytes;
    int rc = loom_mpi_ext32_args(datarep, datatype, incount, "MPI_Pack_external_size", &ldt);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (size == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Pack_external_size", "size is NULL");
    }
    loom_status_t st = loom_dt_external32_size((size_t)incount, ldt, &bytes);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(NULL, st, "MPI_Pack_external_size");
    }
    *size = (MPI_Aint)bytes;
    return MPI_SUCCESS;
}

/* The buffer size and position of the external32 calls. */
static int loom_mpi_ext32_pos(MPI_Aint size, const MPI_Aint *position, const char *call)
{
    if (position == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "position is NULL");
    }
    if (size < 0 || *position < 0 || *position > size) {
        return loom_mpi_raise(NULL, size < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG, call,
                              "position %td is outside the %td-byte buffer", *position, size);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position)
{
    LOOM_MT_GUARD();
    const char *call = "MPI_Pack_external";
    loom_dt_t *ldt;
    size_t pos, need = 0;
    int rc = loom_mpi_ext32_args(datarep, datatype, incount, call, &ldt);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_ext32_pos(outsize, position, call)) != 0) {
        return rc;
    }
    pos = (size_t)*position;
    loom_status_t st = loom_dt_pack_external32(inbuf, (size_t)incount, ldt, outbuf,
                                               (size_t)outsize, &pos);
    if (st == LOOM_ERR_TRUNCATED) {
        loom_dt_external32_size((size_t)incount, ldt, &need);
        return loom_mpi_raise(NULL, MPI_ERR_TRUNCATE, call, "%zu external32 bytes do not "
                              "fit the %td bytes left at position %td", need,
                              outsize - *position, *position);
    }
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(NULL, st, call);
    }
    *position = (MPI_Aint)pos;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount,
                         MPI_Datatype datatype)
{
    LOOM_MT_GUARD();
    const char *call = "MPI_Unpack_external";
    loom_dt_t *ldt;
    size_t pos;
    int rc = loom_mpi_ext32_args(datarep, datatype, outcount, call, &ldt);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_ext32_pos(insize, position, call)) != 0) {
        return rc;
    }
    pos = (size_t)*position;
    loom_status_t st = loom_dt_unpack_external32(inbuf, (size_t)insize, &pos, outbuf,
                                                 (size_t)outcount, ldt);
    if (st == LOOM_ERR_TRUNCATED) {
        return loom_mpi_raise(NULL, MPI_ERR_TRUNCATE, call, "%d elements need more than the "
                              "%td bytes left of the input at position %td", outcount,
                              insize - *position, *position);
    }
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(NULL, st, call);
    }
    *position = (MPI_Aint)pos;
    return MPI_SUCCESS;
}
