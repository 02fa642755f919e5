/*
 * patterns.c: out-of-line rank arithmetic (see patterns.h).
 */
#include "patterns.h"

int loom_pat_binomial_subtree(int v, int p)
{
    int low;

    if (v == 0) {
        return p;
    }
    low = v & -v;
    return low < p - v ? low : p - v;
}

int loom_pat_binomial_children(int v, int p, int *children, int max)
{
    int n = 0, top;

    /* masks below v's lowest set bit (below the first power of two >= p for the root) */
    top = (v == 0) ? (1 << loom_pat_log2_ceil(p)) : (v & -v);
    for (int mask = top >> 1; mask >= 1; mask >>= 1) {
        if (v + mask < p && n < max) {
            children[n++] = v + mask;
        }
    }
    return n;
}

void loom_pat_rd_init(loom_pat_rd_t *rd, int r, int p)
{
    rd->p    = p;
    rd->pof2 = loom_pat_pof2_floor(p);
    rd->rem  = p - rd->pof2;
    if (r < 2 * rd->rem) {
        if (r % 2 == 0) {
            rd->newrank = -1;
            rd->buddy   = r + 1;
        } else {
            rd->newrank = r / 2;
            rd->buddy   = r - 1;
        }
    } else {
        rd->newrank = r - rd->rem;
        rd->buddy   = -1;
    }
}

int loom_pat_bruck_a2a_count(int dist, int p)
{
    int n = 0;

    for (int j = 0; j < p; ++j) {
        n += (j & dist) != 0;
    }
    return n;
}
