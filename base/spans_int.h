/*
 * spans_int.h: a small set of byte ranges already produced, for a copy
 * filled out of order (a typed send packed as a transport reads it, whose
 * reads take turns between streams: p2p_rndv.c).
 *
 * Design. At most LOOM_SPANS_MAX disjoint, non-adjacent ranges [lo, hi),
 * sorted. loom_spans_gap names the first part of a wanted range the set
 * does not cover, so the caller produces exactly what is missing, and
 * loom_spans_add records a range once produced. When an addition would
 * need one range more than the set holds, the two neighbours with the
 * smallest gap between them are joined and that gap is handed back: the
 * caller produces it too (a little more work, never a wrong claim). Pure
 * arithmetic: no allocation, no I/O; test/base/test_spans.c.
 */
#ifndef LOOM_SPANS_INT_H
#define LOOM_SPANS_INT_H

#include <stddef.h>
#include <string.h>

#define LOOM_SPANS_MAX 4

typedef struct loom_spans {
    size_t n;
    size_t lo[LOOM_SPANS_MAX + 1], hi[LOOM_SPANS_MAX + 1];   /* one spare while adding */
} loom_spans_t;

static inline void loom_spans_init(loom_spans_t *s)
{
    s->n = 0;
}

/**
 * The first part of [@p at, @p end) that @p s does not cover, in
 * [*lo_p, *hi_p). @return 0 when all of it is covered.
 */
static inline int loom_spans_gap(const loom_spans_t *s, size_t at, size_t end, size_t *lo_p,
                                 size_t *hi_p)
{
    for (size_t i = 0; i < s->n && at < end; ++i) {
        if (s->hi[i] <= at) {
            continue;
        }
        if (s->lo[i] > at) {
            *lo_p = at;
            *hi_p = s->lo[i] < end ? s->lo[i] : end;
            return 1;
        }
        at = s->hi[i];
    }
    if (at >= end) {
        return 0;
    }
    *lo_p = at;
    *hi_p = end;
    return 1;
}

/* Drop range @p i, moving the ones after it down. */
static inline void loom_spans_drop(loom_spans_t *s, size_t i)
{
    memmove(&s->lo[i], &s->lo[i + 1], (s->n - i - 1) * sizeof(s->lo[0]));
    memmove(&s->hi[i], &s->hi[i + 1], (s->n - i - 1) * sizeof(s->hi[0]));
    s->n--;
}

/**
 * Record [@p lo, @p hi) as produced (nothing if it is empty). If the set
 * was full, two neighbours are joined: [*fill_lo_p, *fill_hi_p) is the gap
 * between them, which the caller must produce too; else that range is
 * empty.
 */
static inline void loom_spans_add(loom_spans_t *s, size_t lo, size_t hi, size_t *fill_lo_p,
                                  size_t *fill_hi_p)
{
    size_t i = 0, best = 0;

    *fill_lo_p = *fill_hi_p = 0;
    if (lo >= hi) {
        return;
    }
    while (i < s->n && s->lo[i] < lo) {
        ++i;
    }
    memmove(&s->lo[i + 1], &s->lo[i], (s->n - i) * sizeof(s->lo[0]));
    memmove(&s->hi[i + 1], &s->hi[i], (s->n - i) * sizeof(s->hi[0]));
    s->lo[i] = lo;
    s->hi[i] = hi;
    s->n++;
    for (i = 0; i + 1 < s->n;) {   /* join what overlaps or touches */
        if (s->lo[i + 1] <= s->hi[i]) {
            s->hi[i] = s->hi[i] > s->hi[i + 1] ? s->hi[i] : s->hi[i + 1];
            loom_spans_drop(s, i + 1);
        } else {
            ++i;
        }
    }
    if (s->n <= LOOM_SPANS_MAX) {
        return;
    }
    for (i = 1; i + 1 < s->n; ++i) {   /* full: join across the smallest gap */
        if (s->lo[i + 1] - s->hi[i] < s->lo[best + 1] - s->hi[best]) {
            best = i;
        }
    }
    *fill_lo_p = s->hi[best];
    *fill_hi_p = s->lo[best + 1];
    s->hi[best] = s->hi[best + 1];
    loom_spans_drop(s, best + 1);
}

#endif /* LOOM_SPANS_INT_H */
