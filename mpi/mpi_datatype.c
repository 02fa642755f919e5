/*
 * mpi_datatype.c: MPI datatypes as "loom basic type x n".
 *
 * Each predefined C type maps to the loom basic type of the same size and
 * signedness (chosen at compile time from sizeof, so `long` is right on
 * LP64 and ILP32 alike). MPI_Type_contiguous multiplies n; MPI_Type_size is
 * MPI's (bytes of data: 12 for MPI_DOUBLE_INT), while the extent is the C
 * layout (16 for MPI_DOUBLE_INT). A received message's byte count is in
 * extents, but for the pairs with C padding, which point-to-point moves as
 * their data (loom_dt_basic_padded, dt_int.h), so their counts are in
 * sizes.
 *
 * MPI_C_BOOL and the complex types have loom base types of their own
 * (LOOM_BOOL, LOOM_*_COMPLEX) so that reductions accept exactly what MPI
 * allows on them (logical ops on bool, sum/prod on complex). MPI_COMPLEX
 * and MPI_DOUBLE_COMPLEX (Fortran's) are the C float/double complex
 * objects: same layout. MPI_C_COMPLEX names MPI_C_FLOAT_COMPLEX.
 */
#include "mpi_int.h"
#include "mpi_f2c_int.h"
#include "mpi_attr_int.h"
#include "dt_int.h"
#include "mt_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* The signed / unsigned loom integer type of @p sz bytes. */
#define LOOM_MPI_SINT(sz) \
    ((sz) == 1 ? LOOM_INT8 : (sz) == 2 ? LOOM_INT16 : (sz) == 4 ? LOOM_INT32 : LOOM_INT64)
#define LOOM_MPI_UINT(sz) \
    ((sz) == 1 ? LOOM_UINT8 : (sz) == 2 ? LOOM_UINT16 : (sz) == 4 ? LOOM_UINT32 : LOOM_UINT64)
#define LOOM_MPI_INT_OF(type, is_signed) \
    ((is_signed) ? LOOM_MPI_SINT(sizeof(type)) : LOOM_MPI_UINT(sizeof(type)))

/* X(ident, MPI name, loom base, MPI_Type_size) */
#define LOOM_MPI_DATATYPE_MAP(X)                                                      \
    X(char,               "MPI_CHAR",               LOOM_MPI_INT_OF(char, CHAR_MIN < 0), \
      sizeof(char))                                                                   \
    X(signed_char,        "MPI_SIGNED_CHAR",        LOOM_INT8,   1)                   \
    X(unsigned_char,      "MPI_UNSIGNED_CHAR",      LOOM_UINT8,  1)                   \
    X(byte,               "MPI_BYTE",               LOOM_BYTE,   1)                   \
    X(packed,             "MPI_PACKED",             LOOM_BYTE,   1)                   \
    X(short,              "MPI_SHORT",              LOOM_MPI_SINT(sizeof(short)),     \
      sizeof(short))                                                                  \
    X(unsigned_short,     "MPI_UNSIGNED_SHORT",     LOOM_MPI_UINT(sizeof(short)),     \
      sizeof(short))                                                                  \
    X(int,                "MPI_INT",                LOOM_MPI_SINT(sizeof(int)),       \
      sizeof(int))                                                                    \
    X(unsigned,           "MPI_UNSIGNED",           LOOM_MPI_UINT(sizeof(int)),       \
      sizeof(int))                                                                    \
    X(long,               "MPI_LONG",               LOOM_MPI_SINT(sizeof(long)),      \
      sizeof(long))                                                                   \
    X(unsigned_long,      "MPI_UNSIGNED_LONG",      LOOM_MPI_UINT(sizeof(long)),      \
      sizeof(long))                                                                   \
    X(long_long,          "MPI_LONG_LONG_INT",      LOOM_MPI_SINT(sizeof(long long)), \
      sizeof(long long))                                                              \
    X(unsigned_long_long, "MPI_UNSIGNED_LONG_LONG", LOOM_MPI_UINT(sizeof(long long)), \
      sizeof(long long))                                                              \
    X(float,              "MPI_FLOAT",              LOOM_FLOAT,  sizeof(float))       \
    X(double,             "MPI_DOUBLE",             LOOM_DOUBLE, sizeof(double))      \
    X(long_double,        "MPI_LONG_DOUBLE",        LOOM_LONG_DOUBLE,                 \
      sizeof(long double))                                                            \
    X(wchar,              "MPI_WCHAR",              LOOM_MPI_INT_OF(wchar_t, WCHAR_MIN < 0), \
      sizeof(wchar_t))                                                                \
    X(c_bool,             "MPI_C_BOOL",             LOOM_BOOL,   sizeof(_Bool))       \
    X(int8,               "MPI_INT8_T",             LOOM_INT8,   1)                   \
    X(int16,              "MPI_INT16_T",            LOOM_INT16,  2)                   \
    X(int32,              "MPI_INT32_T",            LOOM_INT32,  4)                   \
    X(int64,              "MPI_INT64_T",            LOOM_INT64,  8)                   \
    X(uint8,              "MPI_UINT8_T",            LOOM_UINT8,  1)                   \
    X(uint16,             "MPI_UINT16_T",           LOOM_UINT16, 2)                   \
    X(uint32,             "MPI_UINT32_T",           LOOM_UINT32, 4)                   \
    X(uint64,             "MPI_UINT64_T",           LOOM_UINT64, 8)                   \
    X(aint,               "MPI_AINT",               LOOM_MPI_SINT(sizeof(MPI_Aint)),  \
      sizeof(MPI_Aint))                                                               \
    X(offset,             "MPI_OFFSET",             LOOM_MPI_SINT(sizeof(MPI_Offset)),\
      sizeof(MPI_Offset))                                                             \
    X(count,              "MPI_COUNT",              LOOM_MPI_SINT(sizeof(MPI_Count)), \
      sizeof(MPI_Count))                                                              \
    X(float_int,          "MPI_FLOAT_INT",          LOOM_FLOAT_INT,                   \
      sizeof(float) + sizeof(int))                                                    \
    X(double_int,         "MPI_DOUBLE_INT",         LOOM_DOUBLE_INT,                  \
      sizeof(double) + sizeof(int))                                                   \
    X(long_int,           "MPI_LONG_INT",           LOOM_LONG_INT,                    \
      sizeof(long) + sizeof(int))                                                     \
    X(2int,               "MPI_2INT",               LOOM_2INT,   2 * sizeof(int))     \
    X(short_int,          "MPI_SHORT_INT",          LOOM_SHORT_INT,                   \
      sizeof(short) + sizeof(int))                                                    \
    X(long_double_int,    "MPI_LONG_DOUBLE_INT",    LOOM_LONG_DOUBLE_INT,             \
      sizeof(long double) + sizeof(int))                                              \
    X(c_float_complex,    "MPI_C_FLOAT_COMPLEX",    LOOM_FLOAT_COMPLEX,               \
      sizeof(float _Complex))                                                         \
    X(c_double_complex,   "MPI_C_DOUBLE_COMPLEX",   LOOM_DOUBLE_COMPLEX,              \
      sizeof(double _Complex))                                                        \
    X(c_long_double_complex, "MPI_C_LONG_DOUBLE_COMPLEX", LOOM_LONG_DOUBLE_COMPLEX,   \
      sizeof(long double _Complex))

#define LOOM_MPI_DT_DEFINE_(ident, mpi_name, base_, size_)                  \
    struct loom_mpi_datatype loom_mpi_dt_##ident = {                        \
        .magic = LOOM_MPI_TYPE_MAGIC, .base = (base_), .n = 1,              \
        .size = (size_), .predefined = 1, .committed = 1, .refs = 1,        \
        .name = mpi_name,                                                   \
    };
LOOM_MPI_DATATYPE_MAP(LOOM_MPI_DT_DEFINE_)
#undef LOOM_MPI_DT_DEFINE_

static MPI_Datatype const loom_mpi_dt_predefined[] = {
#define LOOM_MPI_DT_ADDR_(ident, mpi_name, base_, size_) &loom_mpi_dt_##ident,
    LOOM_MPI_DATATYPE_MAP(LOOM_MPI_DT_ADDR_)
#undef LOOM_MPI_DT_ADDR_
};

size_t loom_mpi_type_predefined_count(void)
{
    return LOOM_ARRAY_SIZE(loom_mpi_dt_predefined);
}

MPI_Datatype loom_mpi_type_predefined(size_t i)
{
    return i < LOOM_ARRAY_SIZE(loom_mpi_dt_predefined) ? loom_mpi_dt_predefined[i]
                                                       : MPI_DATATYPE_NULL;
}

MPI_Datatype loom_mpi_type_of_base(loom_datatype_t base)
{
    switch (base) {
    case LOOM_BYTE:            return MPI_BYTE;
    case LOOM_INT8:            return MPI_INT8_T;
    case LOOM_INT16:           return MPI_INT16_T;
    case LOOM_INT32:           return MPI_INT32_T;
    case LOOM_INT64:           return MPI_INT64_T;
    case LOOM_UINT8:           return MPI_UINT8_T;
    case LOOM_UINT16:          return MPI_UINT16_T;
    case LOOM_UINT32:          return MPI_UINT32_T;
    case LOOM_UINT64:          return MPI_UINT64_T;
    case LOOM_FLOAT:           return MPI_FLOAT;
    case LOOM_DOUBLE:          return MPI_DOUBLE;
    case LOOM_LONG_DOUBLE:     return MPI_LONG_DOUBLE;
    case LOOM_FLOAT_INT:       return MPI_FLOAT_INT;
    case LOOM_DOUBLE_INT:      return MPI_DOUBLE_INT;
    case LOOM_LONG_INT:        return MPI_LONG_INT;
    case LOOM_2INT:            return MPI_2INT;
    case LOOM_SHORT_INT:       return MPI_SHORT_INT;
    case LOOM_LONG_DOUBLE_INT: return MPI_LONG_DOUBLE_INT;
    case LOOM_FLOAT_COMPLEX:   return MPI_C_FLOAT_COMPLEX;
    case LOOM_DOUBLE_COMPLEX:  return MPI_C_DOUBLE_COMPLEX;
    case LOOM_LONG_DOUBLE_COMPLEX: return MPI_C_LONG_DOUBLE_COMPLEX;
    case LOOM_BOOL:            return MPI_C_BOOL;
    case LOOM_DATATYPE_COUNT:  break;
    }
    return MPI_DATATYPE_NULL;
}

int loom_mpi_type_is_valid(MPI_Datatype dt)
{
    return dt != MPI_DATATYPE_NULL && dt->magic == LOOM_MPI_TYPE_MAGIC && !dt->user_freed;
}

void loom_mpi_type_retain(MPI_Datatype dt)
{
    ++dt->refs;
}

void loom_mpi_type_release(MPI_Datatype dt)
{
    if (--dt->refs == 0 && !dt->predefined) {
        loom_mpi_objext_free(&dt->ext);
        loom_mpi_dtype_destroy(dt);
        dt->magic = LOOM_MPI_DEAD_MAGIC;
        free(dt);
    }
}

static int loom_mpi_type_bad(MPI_Datatype dt, const char *call)
{
    if (dt == MPI_DATATYPE_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_TYPE, call, "datatype is MPI_DATATYPE_NULL");
    }
    return loom_mpi_raise(NULL, MPI_ERR_TYPE, call,
                          "%p is not a datatype (freed, or not a handle)", (void *)dt);
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_type_bad(datatype, "MPI_Type_size");
    }
    if (size == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_size", "size is NULL");
    }
    *size = datatype->size > INT_MAX ? MPI_UNDEFINED : (int)datatype->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_type_bad(datatype, "MPI_Type_get_extent");
    }
    if (lb == NULL || extent == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_get_extent", "%s is NULL",
                              lb == NULL ? "lb" : "extent");
    }
    if (datatype->ldt != NULL) {
        loom_dt_get_extent(datatype->ldt, lb, extent);
        return MPI_SUCCESS;
    }
    *lb     = 0;
    *extent = (MPI_Aint)loom_mpi_type_extent(datatype);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_type_bad(datatype, "MPI_Type_get_name");
    }
    if (type_name == NULL || resultlen == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_get_name", "%s is NULL",
                              type_name == NULL ? "type_name" : "resultlen");
    }
    memcpy(type_name, datatype->name, sizeof(datatype->name));
    *resultlen = (int)strlen(datatype->name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_type_bad(datatype, "MPI_Type_set_name");
    }
    if (type_name == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_set_name", "type_name is NULL");
    }
    snprintf(datatype->name, sizeof(datatype->name), "%s", type_name);
    return MPI_SUCCESS;
}

static int loom_mpi_type_new(const struct loom_mpi_datatype *tmpl, const char *call,
                             MPI_Datatype *newtype)
{
    MPI_Datatype dt = malloc(sizeof(*dt));

    if (dt == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory for a datatype");
    }
    *dt = *tmpl;
    dt->magic      = LOOM_MPI_TYPE_MAGIC;
    dt->predefined = 0;
    dt->user_freed = 0;
    dt->refs       = 1;
    dt->name[0]    = '\0';
    dt->ext        = NULL;  /* attributes are copied by their callbacks only */
    *newtype = dt;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    struct loom_mpi_datatype tmpl;

    if (!loom_mpi_type_is_valid(oldtype)) {
        return loom_mpi_type_bad(oldtype, "MPI_Type_contiguous");
    }
    if (newtype == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_contiguous", "newtype is NULL");
    }
    if (count < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_COUNT, "MPI_Type_contiguous",
                              "count %d is negative", count);
    }
    if (oldtype->derived) {
        return loom_mpi_dtype_contiguous(count, oldtype, newtype, "MPI_Type_contiguous");
    }
    /* Keep n * count and the byte size representable (and an int count * n in size_t). */
    if (oldtype->n != 0 && (size_t)count > (SIZE_MAX >> 32) / oldtype->n) {
        return loom_mpi_raise(NULL, MPI_ERR_COUNT, "MPI_Type_contiguous",
                              "count %d x %zu elements of %s is too large", count,
                              oldtype->n, loom_datatype_name(oldtype->base));
    }
    tmpl           = *oldtype;
    tmpl.n         = oldtype->n * (size_t)count;
    tmpl.size      = oldtype->size * (size_t)count;
    tmpl.committed = 0;
    int rc = loom_mpi_type_new(&tmpl, "MPI_Type_contiguous", newtype);
    if (rc == MPI_SUCCESS &&
        (rc = loom_mpi_dtype_shadow(*newtype, oldtype, count, "MPI_Type_contiguous")) != 0) {
        free(*newtype);
        *newtype = MPI_DATATYPE_NULL;
    }
    return rc;
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    int rc;

    if (!loom_mpi_type_is_valid(oldtype)) {
        return loom_mpi_type_bad(oldtype, "MPI_Type_dup");
    }
    if (newtype == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_dup", "newtype is NULL");
    }
    if (oldtype->derived) {
        rc = loom_mpi_dtype_dup(oldtype, newtype, "MPI_Type_dup");
    } else {
        rc = loom_mpi_type_new(oldtype, "MPI_Type_dup", newtype);
        if (rc == MPI_SUCCESS &&
            (rc = loom_mpi_dtype_shadow(*newtype, oldtype, -1, "MPI_Type_dup")) != 0) {
            free(*newtype);
        }
    }
    if (rc != MPI_SUCCESS) {
        *newtype = MPI_DATATYPE_NULL;
        return rc;
    }
    rc = loom_mpi_attr_copy_all(LOOM_MPI_ATTR_TYPE, oldtype, oldtype->ext, *newtype,
                                &(*newtype)->ext);
    if (rc != MPI_SUCCESS) {
        (*newtype)->user_freed = 1;
        loom_mpi_type_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return loom_mpi_raise(NULL, rc, "MPI_Type_dup",
                              "copying the attributes failed with error %d", rc);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype *datatype)
{
    LOOM_MT_GUARD();
    if (datatype == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_commit", "datatype is NULL");
    }
    if (!loom_mpi_type_is_valid(*datatype)) {
        return loom_mpi_type_bad(*datatype, "MPI_Type_commit");
    }
    if ((*datatype)->derived) {
        return loom_mpi_dtype_commit(*datatype);
    }
    if ((*datatype)->ldt != NULL) {
        loom_dt_commit((*datatype)->ldt);
    }
    (*datatype)->committed = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype *datatype)
{
    LOOM_MT_GUARD();
    MPI_Datatype dt;
    int rc;

    if (datatype == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_free", "datatype is NULL");
    }
    dt = *datatype;
    if (!loom_mpi_type_is_valid(dt)) {
        return loom_mpi_type_bad(dt, "MPI_Type_free");
    }
    if (dt->predefined) {
        return loom_mpi_raise(NULL, MPI_ERR_TYPE, "MPI_Type_free",
                              "%s is predefined and cannot be freed", dt->name);
    }
    if (dt->uhandles > 1) {  /* another handle from MPI_Type_get_contents */
        --dt->uhandles;
        loom_mpi_type_release(dt);
        *datatype = MPI_DATATYPE_NULL;
        return MPI_SUCCESS;
    }
    /* delete callbacks first; one failing makes the call fail, type kept */
    rc = loom_mpi_attr_delete_all(LOOM_MPI_ATTR_TYPE, dt, dt->ext);
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(NULL, rc, "MPI_Type_free",
                              "an attribute delete callback returned error %d", rc);
    }
    dt->user_freed = 1;
    dt->uhandles   = 0;
    loom_mpi_handle_forget(LOOM_MPI_H_TYPE, dt);
    loom_mpi_type_release(dt);  /* op bindings may still hold it */
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* Validate the arguments of Get_count / Get_elements. */
static int loom_mpi_count_args(const MPI_Status *status, MPI_Datatype dt, int *count,
                               const char *call)
{
    if (!loom_mpi_type_is_valid(dt)) {
        return loom_mpi_type_bad(dt, call);
    }
    if (status == MPI_STATUS_IGNORE || count == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                              count == NULL ? "count" : "status");
    }
    return MPI_SUCCESS;
}

/* *count_p = bytes / unit if whole and it fits an int, else MPI_UNDEFINED. */
static void loom_mpi_whole(size_t bytes, size_t unit, size_t mult, int *count_p)
{
    if (unit == 0) {
        *count_p = bytes == 0 ? 0 : MPI_UNDEFINED;
    } else if (bytes % unit != 0 || bytes / unit > (size_t)INT_MAX / mult) {
        *count_p = MPI_UNDEFINED;
    } else {
        *count_p = (int)(bytes / unit * mult);
    }
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_count_args(status, datatype, count, "MPI_Get_count");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (loom_mpi_type_packed(datatype)) {
        /* the status counts packed bytes */
        loom_mpi_whole(status->loom_bytes_, datatype->size, 1, count);
        return MPI_SUCCESS;
    }
    loom_mpi_whole(status->loom_bytes_, loom_mpi_type_extent(datatype), 1, count);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_count_args(status, datatype, count, "MPI_Get_elements");
    loom_datatype_t b;
    size_t pair;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (loom_mpi_type_packed(datatype)) {
        int64_t el = 0;
        loom_dt_get_elements(loom_mpi_type_ldt(datatype), status->loom_bytes_, &el);
        *count = el == LOOM_UNDEFINED || el > INT_MAX ? MPI_UNDEFINED : (int)el;
        return MPI_SUCCESS;
    }
    /* A value+index pair is two basic elements in MPI. */
    b = datatype->base;
    pair = b >= LOOM_FLOAT_INT && b <= LOOM_LONG_DOUBLE_INT ? 2 : 1;
    loom_mpi_whole(status->loom_bytes_, loom_datatype_size(b), pair, count);
    return MPI_SUCCESS;
}
