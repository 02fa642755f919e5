/*
 * iov_int.h: the one copy between two lists of memory pieces in the same
 * address space.
 *
 * Design. Two struct iovec lists describe the same byte stream cut at
 * different places (a typed send's pieces and a typed receive's, a
 * remote and a local list the self transport serves). loom_iov_copy walks
 * both at once and copies each overlap of a piece of one with a piece of
 * the other with one memcpy, in stream order; empty pieces on either side
 * are skipped. It stops when the destination is full (the usual case:
 * callers size it to the bytes they want) or when the source ends first,
 * which it reports, so each caller decides whether that is an error.
 * No state, no allocation; the lists are not changed.
 */
#ifndef LOOM_IOV_INT_H
#define LOOM_IOV_INT_H

#include "compiler_int.h"

#include <string.h>
#include <sys/uio.h>

/**
 * Copy the bytes of the @p sn pieces of @p src into the @p dn pieces of
 * @p dst, in order, until every piece of @p dst is full.
 * @return 1 when @p dst was filled, 0 when @p src ended first (what came
 * before that point was copied).
 */
static inline int loom_iov_copy(const struct iovec *dst, size_t dn, const struct iovec *src,
                                size_t sn)
{
    size_t i = 0, j = 0, io = 0, jo = 0;

    while (i < dn) {
        size_t n;

        if (io == dst[i].iov_len) {
            ++i;
            io = 0;
            continue;
        }
        if (j == sn) {
            return 0;
        }
        if (jo == src[j].iov_len) {
            ++j;
            jo = 0;
            continue;
        }
        n = LOOM_MIN(dst[i].iov_len - io, src[j].iov_len - jo);
        memcpy((char *)dst[i].iov_base + io, (const char *)src[j].iov_base + jo, n);
        io += n;
        jo += n;
    }
    return 1;
}

#endif /* LOOM_IOV_INT_H */
