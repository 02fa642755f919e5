/*
 * mpi_typex.c: the MPI_Count forms of the datatype queries (MPI-3.1 4.1.5,
 * 4.1.7, 4.1.11), MPI_Type_get_true_extent, and the status setters used by
 * generalized requests and layered libraries (MPI_Status_set_elements(_x),
 * MPI_Status_set_cancelled).
 *
 * Design. Every type here is "loom base type x n" (mpi_int.h), so the
 * queries are arithmetic on the base: size and extent as in
 * mpi_datatype.c; the true extent drops the trailing padding of the last
 * element (for the value+index pairs, the bytes after the int: 12 for
 * MPI_DOUBLE_INT whose extent is 16); elements count basic elements, two
 * per pair. A status records bytes, so set_elements stores count basic
 * elements as bytes and Get_elements / Get_count read them back. A
 * non-contiguous type, and a padded pair (MPI_DOUBLE_INT: mpi_int.h),
 * counts packed bytes instead, through the engine.
 */
#include "mpi_int.h"
#include "dt_int.h"
#include "mt_int.h"

#include <limits.h>
#include <stddef.h>

struct loom_mpi_tx_fi  { float v; int i; };
struct loom_mpi_tx_di  { double v; int i; };
struct loom_mpi_tx_li  { long v; int i; };
struct loom_mpi_tx_ii  { int v; int i; };
struct loom_mpi_tx_si  { short v; int i; };
struct loom_mpi_tx_ldi { long double v; int i; };

/* Bytes of one base element up to the end of its data (no trailing padding). */
static size_t loom_mpi_base_true_size(loom_datatype_t b)
{
    switch (b) {
    case LOOM_FLOAT_INT:       return offsetof(struct loom_mpi_tx_fi, i) + sizeof(int);
    case LOOM_DOUBLE_INT:      return offsetof(struct loom_mpi_tx_di, i) + sizeof(int);
    case LOOM_LONG_INT:        return offsetof(struct loom_mpi_tx_li, i) + sizeof(int);
    case LOOM_2INT:            return offsetof(struct loom_mpi_tx_ii, i) + sizeof(int);
    case LOOM_SHORT_INT:       return offsetof(struct loom_mpi_tx_si, i) + sizeof(int);
    case LOOM_LONG_DOUBLE_INT: return offsetof(struct loom_mpi_tx_ldi, i) + sizeof(int);
    default:                   return loom_datatype_size(b);
    }
}

/* Basic elements per base element: two for a value+index pair. */
static size_t loom_mpi_base_elements(loom_datatype_t b)
{
    return b >= LOOM_FLOAT_INT && b <= LOOM_LONG_DOUBLE_INT ? 2 : 1;
}

static int loom_mpi_typex_bad(MPI_Datatype dt, const char *call)
{
    return loom_mpi_raise(NULL, MPI_ERR_TYPE, call, "%p is not a datatype%s", (void *)dt,
                          dt == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_typex_bad(datatype, "MPI_Type_size_x");
    }
    if (size == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_size_x", "size is NULL");
    }
    *size = (MPI_Count)datatype->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_typex_bad(datatype, "MPI_Type_get_extent_x");
    }
    if (lb == NULL || extent == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_get_extent_x", "%s is NULL",
                              lb == NULL ? "lb" : "extent");
    }
    if (datatype->ldt != NULL) {
        ptrdiff_t l, e;
        loom_dt_get_extent(datatype->ldt, &l, &e);
        *lb = l;
        *extent = e;
        return MPI_SUCCESS;
    }
    *lb     = 0;
    *extent = (MPI_Count)loom_mpi_type_extent(datatype);
    return MPI_SUCCESS;
}

/* True extent of a valid type: n - 1 whole elements and the last one's data. */
static size_t loom_mpi_true_extent(MPI_Datatype dt)
{
    if (dt->n == 0) {
        return 0;
    }
    return (dt->n - 1) * loom_datatype_size(dt->base) + loom_mpi_base_true_size(dt->base);
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                              MPI_Aint *true_extent)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_typex_bad(datatype, "MPI_Type_get_true_extent");
    }
    if (true_lb == NULL || true_extent == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_get_true_extent", "%s is NULL",
                              true_lb == NULL ? "true_lb" : "true_extent");
    }
    if (datatype->ldt != NULL) {
        loom_dt_get_true_extent(datatype->ldt, true_lb, true_extent);
        return MPI_SUCCESS;
    }
    *true_lb     = 0;
    *true_extent = (MPI_Aint)loom_mpi_true_extent(datatype);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_typex_bad(datatype, "MPI_Type_get_true_extent_x");
    }
    if (true_lb == NULL || true_extent == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_get_true_extent_x",
                              "%s is NULL", true_lb == NULL ? "true_lb" : "true_extent");
    }
    if (datatype->ldt != NULL) {
        ptrdiff_t l, e;
        loom_dt_get_true_extent(datatype->ldt, &l, &e);
        *true_lb = l;
        *true_extent = e;
        return MPI_SUCCESS;
    }
    *true_lb     = 0;
    *true_extent = (MPI_Count)loom_mpi_true_extent(datatype);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    LOOM_MT_GUARD();
    size_t unit;

    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_typex_bad(datatype, "MPI_Get_elements_x");
    }
    if (status == MPI_STATUS_IGNORE || count == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Get_elements_x", "%s is NULL",
                              count == NULL ? "count" : "status");
    }
    if (loom_mpi_type_packed(datatype)) {
        int64_t el = 0;
        loom_dt_get_elements(loom_mpi_type_ldt(datatype), status->loom_bytes_, &el);
        *count = el == LOOM_UNDEFINED ? MPI_UNDEFINED : (MPI_Count)el;
        return MPI_SUCCESS;
    }
    unit = loom_datatype_size(datatype->base);
    if (status->loom_bytes_ % unit != 0 ||
        status->loom_bytes_ / unit >
            (size_t)LLONG_MAX / loom_mpi_base_elements(datatype->base)) {
        *count = MPI_UNDEFINED;
    } else {
        *count = (MPI_Count)(status->loom_bytes_ / unit *
                             loom_mpi_base_elements(datatype->base));
    }
    return MPI_SUCCESS;
}

/*
 * A non-contiguous type's status counts packed bytes: whole instances of
 * its elements, then the shortest prefix of one instance holding the rest
 * (found by asking the engine, byte by byte: a rare call).
 */
static int loom_mpi_status_set_packed(MPI_Status *status, MPI_Datatype dt, MPI_Count count,
                                      const char *call)
{
    loom_dt_t *ldt = loom_mpi_type_ldt(dt);
    size_t ne = loom_dt_num_elements(ldt), size = loom_dt_size(ldt), rest, b = 0;
    int64_t el = 0;

    if (count < 0 || (ne == 0 && count > 0) ||
        (ne > 0 && (size_t)count / ne > SIZE_MAX / (size > 0 ? size : 1))) {
        return loom_mpi_raise(NULL, MPI_ERR_COUNT, call, "count %lld is negative or not "
                              "representable for this datatype", count);
    }
    rest = ne > 0 ? (size_t)count % ne : 0;
    while (rest > 0 && b < size &&
           (loom_dt_get_elements(ldt, b, &el) != LOOM_OK || el == LOOM_UNDEFINED ||
            (size_t)el < rest)) {
        ++b;
    }
    status->loom_bytes_ = (ne > 0 ? (size_t)count / ne : 0) * size + b;
    return MPI_SUCCESS;
}

/*
 * Store @p count basic elements of @p dt in @p status as bytes. Any count an
 * MPI_Count holds is accepted as long as its bytes fit the status's size_t
 * (MPI-3.1 8.7.1 sets no other limit; Open MPI keeps the full count too).
 */
static int loom_mpi_status_set(MPI_Status *status, MPI_Datatype dt, MPI_Count count,
                               const char *call)
{
    size_t per_pair, pairs, size, half;

    if (!loom_mpi_type_is_valid(dt)) {
        return loom_mpi_typex_bad(dt, call);
    }
    if (status == MPI_STATUS_IGNORE) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "status is NULL");
    }
    if (loom_mpi_type_packed(dt)) {
        return loom_mpi_status_set_packed(status, dt, count, call);
    }
    /* a value+index pair is two basic elements: count them in whole pairs */
    per_pair = loom_mpi_base_elements(dt->base);
    size     = loom_datatype_size(dt->base);
    pairs    = (size_t)(count < 0 ? 0 : count) / per_pair;
    half     = (size_t)(count < 0 ? 0 : count) % per_pair * size / per_pair;
    if (count < 0 || pairs > SIZE_MAX / size || pairs * size > SIZE_MAX - half) {
        return loom_mpi_raise(NULL, MPI_ERR_COUNT, call,
                              "count %lld is %s", count,
                              count < 0 ? "negative"
                                        : "too large: its bytes overflow a size_t");
    }
    status->loom_bytes_ = pairs * size + half;
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    LOOM_MT_GUARD();
    return loom_mpi_status_set(status, datatype, count, "MPI_Status_set_elements");
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count)
{
    LOOM_MT_GUARD();
    return loom_mpi_status_set(status, datatype, count, "MPI_Status_set_elements_x");
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    LOOM_MT_GUARD();
    if (status == MPI_STATUS_IGNORE) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled",
                              "status is NULL");
    }
    status->loom_cancelled_ = flag != 0;
    return MPI_SUCCESS;
}
