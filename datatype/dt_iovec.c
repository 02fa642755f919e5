/*
 * dt_iovec.c: arithmetic on flat piece lists (struct iovec arrays), as the
 * typed rendezvous uses them (docs/p2p.md "Derived datatypes"): a position
 * in a list is (piece index, bytes into that piece), and a read of n
 * stream bytes moves it past n bytes of pieces. loom_dt_iov builds such
 * lists from a type; these helpers only walk them, so they know nothing
 * of types and cost O(pieces passed).
 */
#include "dt_int.h"

loom_status_t loom_dt_iov_skip(const struct iovec *iov, size_t n, size_t *idx, size_t *off,
                               size_t bytes)
{
    size_t i = *idx, o = *off;

    while (bytes != 0 && i < n) {
        size_t left = iov[i].iov_len - o;

        if (bytes < left) {
            o += bytes;
            bytes = 0;
            break;
        }
        bytes -= left;
        o = 0;
        ++i;
    }
    *idx = i;
    *off = o;
    return bytes == 0 ? LOOM_OK : LOOM_ERR_TRUNCATED;
}

loom_status_t loom_dt_iov_span(const struct iovec *iov, size_t n, uintptr_t *lo_p,
                               size_t *len_p)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;

    for (size_t i = 0; i < n; ++i) {
        uintptr_t b = (uintptr_t)iov[i].iov_base;

        if (iov[i].iov_len == 0) {
            continue;
        }
        if (b > UINTPTR_MAX - iov[i].iov_len) {
            return LOOM_ERR_INVALID_ARG;
        }
        lo = b < lo ? b : lo;
        hi = b + iov[i].iov_len > hi ? b + iov[i].iov_len : hi;
    }
    *lo_p  = lo <= hi ? lo : 0;
    *len_p = lo <= hi ? hi - lo : 0;
    return LOOM_OK;
}
