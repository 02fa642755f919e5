/*
 * topo.c: process-topology arithmetic (see topo_int.h).
 *
 * dims_create is a branch-and-bound search over the divisors of the number
 * left for the free dimensions: factors are chosen in non-increasing order,
 * each level tries its divisors in increasing order, a list of the same
 * spread as the best replaces it when it is larger read from its smallest
 * entry up (topo_dims_better), and a branch is cut as soon as its largest
 * factor minus any factor it could still reach exceeds the best spread. A number below 2^31 has at most
 * 1600 divisors and 30 prime factors, so no level loops long and the
 * recursion is at most 31 deep (once the product is used up the remaining
 * dimensions are 1).
 */
#include "topo_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#define TOPO_MAX_DIVISORS 1600   /* most divisors of a number below 2^31 */
#define TOPO_MAX_FACTORS  32     /* entries > 1 of a factorisation below 2^31 */

typedef struct topo_dims_search {
    int divs[TOPO_MAX_DIVISORS];
    int ndivs;
    int k;                         /* free dimensions */
    int cur[TOPO_MAX_FACTORS];     /* entries chosen so far (> 1 ones) */
    int best[TOPO_MAX_FACTORS];
    int best_len;                  /* entries of best > 1 ... */
    int best_diff;                 /* ... and its max - min; -1: none yet */
} topo_dims_search_t;

/* 1 if x^j <= r (no overflow: stops as soon as the power exceeds r). */
static int topo_pow_le(int64_t x, int j, int64_t r)
{
    int64_t p = 1;

    for (int i = 0; i < j; ++i) {
        p *= x;
        if (p > r) {
            return 0;
        }
    }
    return 1;
}

/* Smallest d >= 1 with d^j >= r (r >= 1, j >= 1). */
static int topo_root_ceil(int64_t r, int j)
{
    int64_t lo = 1, hi = r;          /* the answer lies in [lo, hi] */

    if (j >= TOPO_MAX_FACTORS) {
        return r > 1 ? 2 : 1;        /* r < 2^31 <= 2^j */
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (topo_pow_le(mid, j, r - 1)) {
            lo = mid + 1;            /* mid^j < r */
        } else {
            hi = mid;
        }
    }
    return (int)lo;
}

/* Largest d >= 1 with d^j <= r (r >= 1, j >= 1). */
static int topo_root_floor(int64_t r, int j)
{
    int64_t lo = 1, hi = r;

    if (j >= TOPO_MAX_FACTORS) {
        return 1;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (topo_pow_le(mid, j, r)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return (int)lo;
}

static void topo_divisors(topo_dims_search_t *ds, int m)
{
    int n = 0, lo;

    for (int d = 1; (int64_t)d * d <= m; ++d) {
        if (m % d == 0) {
            ds->divs[n++] = d;
        }
    }
    /* the large partners, in increasing order */
    lo = n;
    for (int i = lo - 1; i >= 0; --i) {
        int q = m / ds->divs[i];
        if (q != ds->divs[n - 1]) {
            ds->divs[n++] = q;
        }
    }
    ds->ndivs = n;
}

/* First index of a divisor >= v. */
static int topo_div_lower(const topo_dims_search_t *ds, int v)
{
    int lo = 0, hi = ds->ndivs;

    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ds->divs[mid] < v) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/*
 * Of two lists of the same spread (k entries: a[0..alen) then ones), is a
 * the larger read from the smallest entry up? Fewer ones first, then the
 * entries from the last one.
 */
static int topo_dims_better(const int *a, int alen, const int *b, int blen)
{
    if (alen != blen) {
        return alen > blen;
    }
    for (int i = alen - 1; i >= 0; --i) {
        if (a[i] != b[i]) {
            return a[i] > b[i];
        }
    }
    return 0;
}

/* A complete list: cur[0..len) then k - len ones. */
static void topo_dims_consider(topo_dims_search_t *ds, int len)
{
    int diff = 0;

    if (len > 0) {
        diff = ds->cur[0] - (len < ds->k ? 1 : ds->cur[len - 1]);
    }
    if (ds->best_diff >= 0 &&
        (diff > ds->best_diff ||
         (diff == ds->best_diff && !topo_dims_better(ds->cur, len, ds->best, ds->best_len)))) {
        return;
    }
    ds->best_diff = diff;
    ds->best_len  = len;
    for (int i = 0; i < len; ++i) {
        ds->best[i] = ds->cur[i];
    }
}

/*
 * Choose entry @p depth (of k) for the remaining product @p r, each entry
 * at most @p prev. Entries are tried in increasing order.
 */
static void topo_dims_search(topo_dims_search_t *ds, int r, int depth, int prev)
{
    int left = ds->k - depth, lo;

    if (r == 1) {
        topo_dims_consider(ds, depth);
        return;
    }
    if (left == 0 || depth >= TOPO_MAX_FACTORS) {
        return;
    }
    lo = topo_root_ceil(r, left);
    if (depth > 0 && ds->best_diff >= 0 && ds->cur[0] - ds->best_diff > lo) {
        lo = ds->cur[0] - ds->best_diff;   /* anything smaller spreads too much */
    }
    for (int i = topo_div_lower(ds, lo); i < ds->ndivs; ++i) {
        int d = ds->divs[i];

        if (d > prev || d > r) {
            break;
        }
        if (r % d != 0) {
            continue;
        }
        if (depth == 0 && ds->best_diff >= 0 &&
            d - (left > 1 ? topo_root_floor(r / d, left - 1) : d) > ds->best_diff) {
            break;                         /* the spread only grows with d */
        }
        ds->cur[depth] = d;
        topo_dims_search(ds, r / d, depth + 1, d);
    }
}

loom_topo_rc_t loom_topo_dims_create(int nnodes, int ndims, int dims[])
{
    topo_dims_search_t ds;            /* 6.5 KiB of stack, no allocation */
    int64_t fixed = 1;
    int k = 0, j = 0;

    if (nnodes < 1 || ndims < 0 || (ndims > 0 && dims == NULL)) {
        return LOOM_TOPO_ERR_ARG;
    }
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] < 0) {
            return LOOM_TOPO_ERR_DIMS;
        }
        if (dims[i] == 0) {
            ++k;
        } else if (fixed <= nnodes) {
            fixed *= dims[i];
        }
    }
    if (fixed > nnodes || nnodes % fixed != 0 || (k == 0 && fixed != nnodes)) {
        return LOOM_TOPO_ERR_DIMS;
    }
    ds.k = k;
    ds.best_diff = -1;
    ds.best_len = 0;
    if (k > 0) {
        topo_divisors(&ds, (int)(nnodes / fixed));
        topo_dims_search(&ds, (int)(nnodes / fixed), 0, INT_MAX);
    }
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] == 0) {
            dims[i] = j < ds.best_len ? ds.best[j] : 1;
            ++j;
        }
    }
    return LOOM_TOPO_OK;
}

long long loom_topo_cart_size(int ndims, const int dims[], long long limit)
{
    long long n = 1;

    for (int i = 0; i < ndims; ++i) {
        if (dims[i] < 1) {
            return -1;
        }
        n *= dims[i];
        if (n > limit) {
            return -1;
        }
    }
    return n;
}

/* x mod n in [0, n) for any sign of x. */
static long long topo_wrap(long long x, int n)
{
    long long m = x % n;

    return m < 0 ? m + n : m;
}

loom_topo_rc_t loom_topo_cart_rank(int ndims, const int dims[], const int periods[],
                                   const int coords[], int *rank_p, int *bad_dim_p)
{
    long long rank = 0;

    for (int d = 0; d < ndims; ++d) {
        long long c = coords[d];

        if (c < 0 || c >= dims[d]) {
            if (!periods[d]) {
                if (bad_dim_p != NULL) {
                    *bad_dim_p = d;
                }
                return LOOM_TOPO_ERR_ARG;
            }
            c = topo_wrap(c, dims[d]);
        }
        rank = rank * dims[d] + c;
    }
    *rank_p = (int)rank;
    return LOOM_TOPO_OK;
}

void loom_topo_cart_coords(int ndims, const int dims[], int rank, int coords[])
{
    for (int d = ndims - 1; d >= 0; --d) {
        coords[d] = rank % dims[d];
        rank /= dims[d];
    }
}

/* Rank of @p rank moved to coordinate @p c along @p dir (stride: its weight). */
static int topo_cart_move(int rank, int cur, long long c, int n, int period, int stride)
{
    if (c < 0 || c >= n) {
        if (!period) {
            return LOOM_TOPO_PROC_NULL;
        }
        c = topo_wrap(c, n);
    }
    return rank + (int)(c - cur) * stride;
}

void loom_topo_cart_shift(int ndims, const int dims[], const int periods[], int rank,
                          int direction, int disp, int *src_p, int *dst_p)
{
    int stride = 1, cur, n = dims[direction];

    for (int d = ndims - 1; d > direction; --d) {
        stride *= dims[d];
    }
    cur = (rank / stride) % n;
    *dst_p = topo_cart_move(rank, cur, (long long)cur + disp, n, periods[direction], stride);
    *src_p = topo_cart_move(rank, cur, (long long)cur - disp, n, periods[direction], stride);
}

void loom_topo_cart_sub(int ndims, const int dims[], const int remain[], int rank,
                        int *color_p, int *key_p)
{
    int color = 0, key = 0, cmul = 1, kmul = 1;

    for (int d = ndims - 1; d >= 0; --d) {
        int c = rank % dims[d];

        rank /= dims[d];
        if (remain[d]) {
            key += c * kmul;
            kmul *= dims[d];
        } else {
            color += c * cmul;
            cmul *= dims[d];
        }
    }
    *color_p = color;
    *key_p   = key;
}

void loom_topo_cart_neighbors(int ndims, const int dims[], const int periods[], int rank,
                              int nbrs[])
{
    for (int d = 0; d < ndims; ++d) {
        loom_topo_cart_shift(ndims, dims, periods, rank, d, 1, &nbrs[2 * d],
                             &nbrs[2 * d + 1]);
    }
}

loom_topo_rc_t loom_topo_graph_check(int nnodes, const int index[], const int edges[],
                                     int *bad_node_p, int *bad_edge_p)
{
    int prev = 0;

    *bad_node_p = -1;
    *bad_edge_p = -1;
    if (nnodes < 0) {
        return LOOM_TOPO_ERR_ARG;
    }
    for (int i = 0; i < nnodes; ++i) {
        if (index[i] < prev) {
            *bad_node_p = i;
            return LOOM_TOPO_ERR_ARG;
        }
        prev = index[i];
    }
    for (int e = 0; e < prev; ++e) {
        if (edges[e] < 0 || edges[e] >= nnodes) {
            *bad_edge_p = e;
            return LOOM_TOPO_ERR_ARG;
        }
    }
    return LOOM_TOPO_OK;
}
