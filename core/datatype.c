/*
 * datatype.c: the predefined contiguous datatypes (size and name).
 */
#include <loom.h>

#include <stdint.h>

/* the pair types have the C layout MPI gives MPI_FLOAT_INT and friends */
struct loom_dt_float_int       { float v; int i; };
struct loom_dt_double_int      { double v; int i; };
struct loom_dt_long_int        { long v; int i; };
struct loom_dt_2int            { int v; int i; };
struct loom_dt_short_int       { short v; int i; };
struct loom_dt_long_double_int { long double v; int i; };

static const struct {
    size_t      size;
    const char *name;
} loom_datatype_table[LOOM_DATATYPE_COUNT] = {
    [LOOM_BYTE]            = { 1, "byte" },
    [LOOM_INT8]            = { sizeof(int8_t), "int8" },
    [LOOM_INT16]           = { sizeof(int16_t), "int16" },
    [LOOM_INT32]           = { sizeof(int32_t), "int32" },
    [LOOM_INT64]           = { sizeof(int64_t), "int64" },
    [LOOM_UINT8]           = { sizeof(uint8_t), "uint8" },
    [LOOM_UINT16]          = { sizeof(uint16_t), "uint16" },
    [LOOM_UINT32]          = { sizeof(uint32_t), "uint32" },
    [LOOM_UINT64]          = { sizeof(uint64_t), "uint64" },
    [LOOM_FLOAT]           = { sizeof(float), "float" },
    [LOOM_DOUBLE]          = { sizeof(double), "double" },
    [LOOM_LONG_DOUBLE]     = { sizeof(long double), "long_double" },
    [LOOM_FLOAT_INT]       = { sizeof(struct loom_dt_float_int), "float_int" },
    [LOOM_DOUBLE_INT]      = { sizeof(struct loom_dt_double_int), "double_int" },
    [LOOM_LONG_INT]        = { sizeof(struct loom_dt_long_int), "long_int" },
    [LOOM_2INT]            = { sizeof(struct loom_dt_2int), "2int" },
    [LOOM_SHORT_INT]       = { sizeof(struct loom_dt_short_int), "short_int" },
    [LOOM_LONG_DOUBLE_INT] = { sizeof(struct loom_dt_long_double_int), "long_double_int" },
};

size_t loom_datatype_size(loom_datatype_t dt)
{
    if ((unsigned)dt >= LOOM_DATATYPE_COUNT) {
        return 0;
    }
    return loom_datatype_table[dt].size;
}

const char *loom_datatype_name(loom_datatype_t dt)
{
    if ((unsigned)dt >= LOOM_DATATYPE_COUNT) {
        return NULL;
    }
    return loom_datatype_table[dt].name;
}
