/*
 * prog_values.h: the inputs and hash the collective data-check programs
 * share (prog_coll_s14.c, prog_coll_s15.c): rank q's element i as a double
 * with many significant bits (so a fold in another order shows in the
 * bits), and an FNV-1a hash of bytes for the LOOM_DETERMINISTIC
 * comparisons across algorithms. Header-only, static functions.
 */
#ifndef LOOM_TEST_PROG_VALUES_H
#define LOOM_TEST_PROG_VALUES_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a over @p n bytes at @p p, continuing from @p h */
static inline uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    }
    return h;
}

/* rank q's element i: a double with many significant bits */
static inline double dval(int q, size_t i)
{
    uint64_t x = (uint64_t)(q + 1) * 0x9e3779b97f4a7c15ull ^ (i * 0xbf58476d1ce4e5b9ull);
    x ^= x >> 29;
    return ((double)(x % 2000003) - 1000001.0) / (1.0 + (double)(i % 97)) * 1e-3;
}

#endif /* LOOM_TEST_PROG_VALUES_H */
