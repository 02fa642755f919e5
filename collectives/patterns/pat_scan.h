/*
 * pat_scan.h: rank arithmetic of the recursive-doubling scan and exscan
 * (collectives/scan_recursive_doubling.c), pure and unit-tested alone
 * (test/coll/test_scan_patterns.c simulates every p in 1..64).
 *
 * Step with mask m = 2^k: rank r pairs with r ^ m when that rank exists.
 * Each rank's "half" of its group of 2m ranks is [r & ~(m-1), +m), clipped
 * to p: the ranges whose partial (or, in deterministic mode, whose inputs)
 * the two partners exchange. A rank whose partner is missing keeps an
 * incomplete partial from then on but never passes it to a rank that
 * folds it into a result (checked by the simulation).
 */
#ifndef LOOM_PAT_SCAN_H
#define LOOM_PAT_SCAN_H

/** The first mask >= @p m (a power of two) whose partner r ^ mask exists; >= p: none. */
static inline int loom_pat_scan_next_mask(int r, int m, int p)
{
    while (m < p && (r ^ m) >= p) {
        m <<= 1;
    }
    return m;
}

/** Ranks [*lo_p, *hi_p) of the half of rank @p q's group of 2m, within p. */
static inline void loom_pat_scan_half(int q, int m, int p, int *lo_p, int *hi_p)
{
    int lo = q & ~(m - 1);

    *lo_p = lo;
    *hi_p = lo + m < p ? lo + m : p;
}

#endif /* LOOM_PAT_SCAN_H */
