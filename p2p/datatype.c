/*
 * datatype.c: the predefined contiguous datatypes (size and name).
 * Complex types have C99's _Complex layout (two parts, real first), which
 * is also Fortran's COMPLEX layout, so MPI_COMPLEX maps here too.
 */
#include "datatype_int.h"
#include "mt_int.h"

#include <stdint.h>

/* the pair types have the C layout MPI gives MPI_FLOAT_INT and friends */
struct loom_dt_float_int       { float v; int i; };
struct loom_dt_double_int      { double v; int i; };
struct loom_dt_long_int        { long v; int i; };
struct loom_dt_2int            { int v; int i; };
struct loom_dt_short_int       { short v; int i; };
struct loom_dt_long_double_int { long double v; int i; };

static const char *const loom_datatype_names[LOOM_DATATYPE_COUNT] = {
    [LOOM_BYTE]            = "byte",
    [LOOM_INT8]            = "int8",
    [LOOM_INT16]           = "int16",
    [LOOM_INT32]           = "int32",
    [LOOM_INT64]           = "int64",
    [LOOM_UINT8]           = "uint8",
    [LOOM_UINT16]          = "uint16",
    [LOOM_UINT32]          = "uint32",
    [LOOM_UINT64]          = "uint64",
    [LOOM_FLOAT]           = "float",
    [LOOM_DOUBLE]          = "double",
    [LOOM_LONG_DOUBLE]     = "long_double",
    [LOOM_FLOAT_INT]       = "float_int",
    [LOOM_DOUBLE_INT]      = "double_int",
    [LOOM_LONG_INT]        = "long_int",
    [LOOM_2INT]            = "2int",
    [LOOM_SHORT_INT]       = "short_int",
    [LOOM_LONG_DOUBLE_INT] = "long_double_int",
    [LOOM_FLOAT_COMPLEX]       = "float_complex",
    [LOOM_DOUBLE_COMPLEX]      = "double_complex",
    [LOOM_LONG_DOUBLE_COMPLEX] = "long_double_complex",
    [LOOM_BOOL]                = "bool",
};

const uint8_t loom_datatype_sizes[LOOM_DATATYPE_COUNT] = {
    [LOOM_BYTE]            = 1,
    [LOOM_INT8]            = sizeof(int8_t),
    [LOOM_INT16]           = sizeof(int16_t),
    [LOOM_INT32]           = sizeof(int32_t),
    [LOOM_INT64]           = sizeof(int64_t),
    [LOOM_UINT8]           = sizeof(uint8_t),
    [LOOM_UINT16]          = sizeof(uint16_t),
    [LOOM_UINT32]          = sizeof(uint32_t),
    [LOOM_UINT64]          = sizeof(uint64_t),
    [LOOM_FLOAT]           = sizeof(float),
    [LOOM_DOUBLE]          = sizeof(double),
    [LOOM_LONG_DOUBLE]     = sizeof(long double),
    [LOOM_FLOAT_INT]       = sizeof(struct loom_dt_float_int),
    [LOOM_DOUBLE_INT]      = sizeof(struct loom_dt_double_int),
    [LOOM_LONG_INT]        = sizeof(struct loom_dt_long_int),
    [LOOM_2INT]            = sizeof(struct loom_dt_2int),
    [LOOM_SHORT_INT]       = sizeof(struct loom_dt_short_int),
    [LOOM_LONG_DOUBLE_INT] = sizeof(struct loom_dt_long_double_int),
    [LOOM_FLOAT_COMPLEX]       = sizeof(float _Complex),
    [LOOM_DOUBLE_COMPLEX]      = sizeof(double _Complex),
    [LOOM_LONG_DOUBLE_COMPLEX] = sizeof(long double _Complex),
    [LOOM_BOOL]                = sizeof(_Bool),
};

size_t loom_datatype_size(loom_datatype_t dt)
{
    LOOM_MT_GUARD();
    if ((unsigned)dt >= LOOM_DATATYPE_COUNT) {
        return 0;
    }
    return loom_datatype_sizes[dt];
}

const char *loom_datatype_name(loom_datatype_t dt)
{
    LOOM_MT_GUARD();
    if ((unsigned)dt >= LOOM_DATATYPE_COUNT) {
        return NULL;
    }
    return loom_datatype_names[dt];
}
