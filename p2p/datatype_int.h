/*
 * datatype_int.h: the datatype size table, readable inline on the fast
 * path (loom_datatype_size() is the checked public form).
 */
#ifndef LOOM_DATATYPE_INT_H
#define LOOM_DATATYPE_INT_H

#include <loom.h>
#include <stdint.h>

/** Size in bytes of each predefined datatype, indexed by loom_datatype_t. */
extern const uint8_t loom_datatype_sizes[LOOM_DATATYPE_COUNT];

/** Size of @p dt, which the caller has checked is < LOOM_DATATYPE_COUNT. */
static inline size_t loom_datatype_size_unchecked(loom_datatype_t dt)
{
    return loom_datatype_sizes[dt];
}

#endif /* LOOM_DATATYPE_INT_H */
