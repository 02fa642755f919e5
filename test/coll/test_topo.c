/*
 * test_topo.c: the process-topology arithmetic (base/topo.c)
 * in one process: dims_create against an independent brute-force search,
 * Cartesian rank <-> coordinates, shifts, sub-grids, and that the order in
 * which a Cartesian rank posts its neighbour sends puts every block in the
 * right slot at the other end, also when one rank is a neighbour twice
 * (periodic dimensions of size 1 and 2).
 */
#include "topo_int.h"

#include <CUnit/Basic.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- dims_create --------------------------------------------------------------- */

/* Brute force: every non-increasing list of k factors of m (each <= prev). */
typedef struct brute {
    int k, cur[8], best[8], best_diff;
} brute_t;

/* b->cur beats b->best read from the last (smallest) entry up */
static int brute_later(const brute_t *b)
{
    for (int i = b->k - 1; i >= 0; --i) {
        if (b->cur[i] != b->best[i]) {
            return b->cur[i] > b->best[i];
        }
    }
    return 0;
}

static void brute_walk(brute_t *b, int m, int depth, int prev)
{
    if (depth == b->k) {
        int diff;
        if (m != 1) {
            return;
        }
        diff = b->k > 0 ? b->cur[0] - b->cur[b->k - 1] : 0;
        /* same spread: the larger read from the smallest entry up wins */
        if (b->best_diff < 0 || diff < b->best_diff ||
            (diff == b->best_diff && brute_later(b))) {
            b->best_diff = diff;
            memcpy(b->best, b->cur, sizeof(b->cur));
        }
        return;
    }
    for (int d = 1; d <= prev && d <= m; ++d) {
        if (m % d == 0) {
            b->cur[depth] = d;
            brute_walk(b, m / d, depth + 1, d);
        }
    }
}

static void test_dims_brute(void)
{
    for (int n = 1; n <= 1000; ++n) {
        for (int k = 1; k <= 4; ++k) {
            brute_t b = { .k = k, .best_diff = -1 };
            int dims[4] = { 0, 0, 0, 0 };

            brute_walk(&b, n, 0, n);
            CU_ASSERT_EQUAL_FATAL(loom_topo_dims_create(n, k, dims), LOOM_TOPO_OK);
            for (int i = 0; i < k; ++i) {
                if (dims[i] != b.best[i]) {
                    fprintf(stderr, "dims_create(%d, %d): dims[%d] = %d, brute force %d\n",
                            n, k, i, dims[i], b.best[i]);
                }
                CU_ASSERT_EQUAL_FATAL(dims[i], b.best[i]);
            }
        }
    }
}

/* With fixed entries: the free ones are the brute-force answer for n / fixed. */
static void test_dims_fixed(void)
{
    for (int n = 1; n <= 360; ++n) {
        for (int f = 1; f <= 6; ++f) {
            int dims[4] = { 0, f, 0, 0 }, rc = loom_topo_dims_create(n, 4, dims);
            brute_t b = { .k = 3, .best_diff = -1 };

            if (n % f != 0) {
                CU_ASSERT_EQUAL(rc, LOOM_TOPO_ERR_DIMS);
                CU_ASSERT_EQUAL(dims[0], 0);   /* unchanged on error */
                continue;
            }
            CU_ASSERT_EQUAL_FATAL(rc, LOOM_TOPO_OK);
            brute_walk(&b, n / f, 0, n / f);
            CU_ASSERT_EQUAL(dims[0], b.best[0]);
            CU_ASSERT_EQUAL(dims[1], f);
            CU_ASSERT_EQUAL(dims[2], b.best[1]);
            CU_ASSERT_EQUAL(dims[3], b.best[2]);
        }
    }
}

static void check_dims(int n, int k, const int *in, const int *want)
{
    int dims[16];

    memcpy(dims, in, (size_t)k * sizeof(int));
    CU_ASSERT_EQUAL_FATAL(loom_topo_dims_create(n, k, dims), LOOM_TOPO_OK);
    for (int i = 0; i < k; ++i) {
        if (dims[i] != want[i]) {
            fprintf(stderr, "dims_create(%d, %d): dims[%d] = %d, want %d\n", n, k, i,
                    dims[i], want[i]);
        }
        CU_ASSERT_EQUAL(dims[i], want[i]);
    }
}

static void test_dims_cases(void)
{
    static const int z[16] = { 0 };
    int d[4];

    /* MPI-3.1 7.5.2's examples */
    check_dims(6, 2, z, (const int[]){ 3, 2 });
    check_dims(7, 2, z, (const int[]){ 7, 1 });
    check_dims(6, 3, (const int[]){ 0, 3, 0 }, (const int[]){ 2, 3, 1 });
    memcpy(d, (const int[]){ 0, 3, 0 }, sizeof(int) * 3);
    CU_ASSERT_EQUAL(loom_topo_dims_create(7, 3, d), LOOM_TOPO_ERR_DIMS);
    /* large and awkward: a greedy prime assignment gets these wrong */
    check_dims(1000000000, 3, z, (const int[]){ 1000, 1000, 1000 });
    check_dims(453600, 3, z, (const int[]){ 81, 80, 70 });
    check_dims(360, 3, z, (const int[]){ 10, 6, 6 });     /* spread 4 like 9x8x5 */
    check_dims(71400, 3, z, (const int[]){ 51, 40, 35 });   /* spread 16 like 50x42x34 */
    check_dims(190512, 10, z, (const int[]){ 7, 7, 4, 3, 3, 3, 3, 3, 2, 2 });
    check_dims(13824, 11, z, (const int[]){ 4, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2 });
    check_dims(INT_MAX, 2, z, (const int[]){ INT_MAX, 1 });   /* a prime */
    check_dims(2095133040, 4, z, (const int[]){ 221, 216, 210, 209 });
    check_dims(1, 3, z, (const int[]){ 1, 1, 1 });
    check_dims(4, 3, (const int[]){ 2, 2, 1 }, (const int[]){ 2, 2, 1 });
    /* more dimensions than prime factors: ones at the end */
    check_dims(12, 5, z, (const int[]){ 3, 2, 2, 1, 1 });
    {   /* more dimensions than factors of any int: 30 twos, then ones */
        int big[40] = { 0 };
        CU_ASSERT_EQUAL(loom_topo_dims_create(1 << 30, 40, big), LOOM_TOPO_OK);
        for (int i = 0; i < 40; ++i) {
            CU_ASSERT_EQUAL(big[i], i < 30 ? 2 : 1);
        }
    }
    check_dims(INT_MAX, 5, z, (const int[]){ INT_MAX, 1, 1, 1, 1 });
    /* ndims 0: only nnodes 1 fits (an empty product) */
    CU_ASSERT_EQUAL(loom_topo_dims_create(1, 0, NULL), LOOM_TOPO_OK);
    CU_ASSERT_EQUAL(loom_topo_dims_create(2, 0, NULL), LOOM_TOPO_ERR_DIMS);
    /* errors */
    CU_ASSERT_EQUAL(loom_topo_dims_create(0, 2, d), LOOM_TOPO_ERR_ARG);
    CU_ASSERT_EQUAL(loom_topo_dims_create(-4, 2, d), LOOM_TOPO_ERR_ARG);
    CU_ASSERT_EQUAL(loom_topo_dims_create(4, -1, d), LOOM_TOPO_ERR_ARG);
    memcpy(d, (const int[]){ 0, -2 }, sizeof(int) * 2);
    CU_ASSERT_EQUAL(loom_topo_dims_create(4, 2, d), LOOM_TOPO_ERR_DIMS);
    memcpy(d, (const int[]){ 2, 2 }, sizeof(int) * 2);
    CU_ASSERT_EQUAL(loom_topo_dims_create(8, 2, d), LOOM_TOPO_ERR_DIMS);  /* 4 != 8 */
    memcpy(d, (const int[]){ 16, 0 }, sizeof(int) * 2);
    CU_ASSERT_EQUAL(loom_topo_dims_create(8, 2, d), LOOM_TOPO_ERR_DIMS);
}

/* Every divisor-rich number below 2^31 answers at once, for many dimensions. */
static void test_dims_fast(void)
{
    static const int z[16] = { 0 };
    static const int ns[] = { 2095133040, 1102701600, 735134400, 1073741824, 1162261467 };

    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); ++i) {
        for (int k = 1; k <= 16; ++k) {
            int dims[16];
            long long prod = 1;

            memcpy(dims, z, sizeof(dims));
            CU_ASSERT_EQUAL_FATAL(loom_topo_dims_create(ns[i], k, dims), LOOM_TOPO_OK);
            for (int j = 0; j < k; ++j) {
                prod *= dims[j];
                CU_ASSERT(j == 0 || dims[j] <= dims[j - 1]);
            }
            CU_ASSERT_EQUAL(prod, ns[i]);
        }
    }
}

/* ---- Cartesian grids ------------------------------------------------------------- */

/* Every grid of up to 3 dimensions of sizes 1..4, every periodicity: f(grid). */
static void for_grids(void (*f)(int ndims, const int *dims, const int *periods))
{
    for (int nd = 1; nd <= 3; ++nd) {
        int combos = 1;
        for (int i = 0; i < nd; ++i) {
            combos *= 4 * 2;
        }
        for (int c = 0; c < combos; ++c) {
            int dims[3], periods[3], x = c;
            for (int i = 0; i < nd; ++i) {
                dims[i] = x % 4 + 1;
                x /= 4;
                periods[i] = x % 2;
                x /= 2;
            }
            f(nd, dims, periods);
        }
    }
}

static void grid_rank_coords(int nd, const int *dims, const int *periods)
{
    int n = (int)loom_topo_cart_size(nd, dims, 1000), coords[3], r2, bad;

    for (int r = 0; r < n; ++r) {
        loom_topo_cart_coords(nd, dims, r, coords);
        for (int d = 0; d < nd; ++d) {
            CU_ASSERT_FATAL(coords[d] >= 0 && coords[d] < dims[d]);
        }
        CU_ASSERT_EQUAL_FATAL(loom_topo_cart_rank(nd, dims, periods, coords, &r2, NULL),
                              LOOM_TOPO_OK);
        CU_ASSERT_EQUAL_FATAL(r2, r);
        /* one period further along each dimension: wrap, or an error naming it */
        for (int d = 0; d < nd; ++d) {
            int c[3];
            memcpy(c, coords, sizeof(c));
            c[d] += (r % 2) ? dims[d] : -dims[d] * 3;
            bad = -1;
            if (periods[d]) {
                CU_ASSERT_EQUAL(loom_topo_cart_rank(nd, dims, periods, c, &r2, &bad),
                                LOOM_TOPO_OK);
                CU_ASSERT_EQUAL(r2, r);
            } else {
                CU_ASSERT_EQUAL(loom_topo_cart_rank(nd, dims, periods, c, &r2, &bad),
                                LOOM_TOPO_ERR_ARG);
                CU_ASSERT_EQUAL(bad, d);
            }
        }
    }
}

static void test_cart_rank_coords(void)
{
    for_grids(grid_rank_coords);
    CU_ASSERT_EQUAL(loom_topo_cart_size(2, (const int[]){ 3, 0 }, 100), -1);
    CU_ASSERT_EQUAL(loom_topo_cart_size(2, (const int[]){ 30, 30 }, 100), -1);
    CU_ASSERT_EQUAL(loom_topo_cart_size(0, NULL, 100), 1);
}

/* shift by disp = coordinates +- disp, computed independently */
static void grid_shift(int nd, const int *dims, const int *periods)
{
    int n = (int)loom_topo_cart_size(nd, dims, 1000);

    for (int r = 0; r < n; ++r) {
        for (int d = 0; d < nd; ++d) {
            for (int disp = -9; disp <= 9; ++disp) {
                int src, dst, coords[3], c[3], want;

                loom_topo_cart_shift(nd, dims, periods, r, d, disp, &src, &dst);
                loom_topo_cart_coords(nd, dims, r, coords);
                for (int s = -1; s <= 1; s += 2) {
                    memcpy(c, coords, sizeof(c));
                    c[d] += s * disp;
                    if (loom_topo_cart_rank(nd, dims, periods, c, &want, NULL) !=
                        LOOM_TOPO_OK) {
                        want = LOOM_TOPO_PROC_NULL;
                    }
                    CU_ASSERT_EQUAL_FATAL(s > 0 ? dst : src, want);
                }
            }
        }
    }
}

static void test_cart_shift(void)
{
    for_grids(grid_shift);
}

/* sub: same color iff same dropped coordinates; key orders the kept ones */
static void grid_sub(int nd, const int *dims, const int *periods)
{
    int n = (int)loom_topo_cart_size(nd, dims, 1000);

    (void)periods;
    for (int mask = 0; mask < (1 << nd); ++mask) {
        int remain[3], sub_size = 1, ncolors = 1;
        for (int d = 0; d < nd; ++d) {
            remain[d] = mask >> d & 1;
            sub_size *= remain[d] ? dims[d] : 1;
            ncolors  *= remain[d] ? 1 : dims[d];
        }
        for (int a = 0; a < n; ++a) {
            int ca, ka, xa[3];
            loom_topo_cart_sub(nd, dims, remain, a, &ca, &ka);
            loom_topo_cart_coords(nd, dims, a, xa);
            CU_ASSERT_FATAL(ca >= 0 && ca < ncolors && ka >= 0 && ka < sub_size);
            for (int b = 0; b < n; ++b) {
                int cb, kb, xb[3], same = 1, before = 0, decided = 0;
                loom_topo_cart_sub(nd, dims, remain, b, &cb, &kb);
                loom_topo_cart_coords(nd, dims, b, xb);
                for (int d = 0; d < nd; ++d) {
                    if (!remain[d]) {
                        same &= xa[d] == xb[d];
                    } else if (!decided && xa[d] != xb[d]) {
                        decided = 1;
                        before = xa[d] < xb[d];
                    }
                }
                CU_ASSERT_EQUAL_FATAL(ca == cb, same);
                if (same && a != b) {
                    CU_ASSERT_EQUAL_FATAL(ka < kb, before);
                }
            }
        }
    }
}

static void test_cart_sub(void)
{
    for_grids(grid_sub);
}

/*
 * Simulate a neighbour alltoall: each rank posts its receives in slot order
 * and its sends in loom_topo_cart_send_slot() order; messages between a pair
 * match in order. The block of sender slot 2d+1 (positive direction) must
 * land in receiver slot 2d (the receiver's negative neighbour) and vice versa.
 */
static void grid_match(int nd, const int *dims, const int *periods)
{
    int n = (int)loom_topo_cart_size(nd, dims, 1000), nb = 2 * nd;
    int nbrs[64][6];

    for (int r = 0; r < n; ++r) {
        loom_topo_cart_neighbors(nd, dims, periods, r, nbrs[r]);
    }
    for (int r = 0; r < n; ++r) {
        for (int q = 0; q < n; ++q) {
            int sends[6], ns = 0, recvs[6], nr = 0;
            for (int i = 0; i < nb; ++i) {
                int slot = loom_topo_cart_send_slot(i);
                if (nbrs[r][slot] == q) {
                    sends[ns++] = slot;
                }
                if (nbrs[q][i] == r) {
                    recvs[nr++] = i;     /* q receives from r into slot i */
                }
            }
            CU_ASSERT_EQUAL_FATAL(ns, nr);
            for (int k = 0; k < ns; ++k) {
                CU_ASSERT_EQUAL_FATAL(recvs[k], sends[k] ^ 1);
            }
        }
    }
}

static void test_cart_neighbor_matching(void)
{
    int nbrs[4];

    for_grids(grid_match);
    /* a periodic ring of 2: both neighbours are the other rank */
    loom_topo_cart_neighbors(1, (const int[]){ 2 }, (const int[]){ 1 }, 0, nbrs);
    CU_ASSERT(nbrs[0] == 1 && nbrs[1] == 1);
    loom_topo_cart_neighbors(2, (const int[]){ 1, 3 }, (const int[]){ 0, 0 }, 0, nbrs);
    CU_ASSERT(nbrs[0] == LOOM_TOPO_PROC_NULL && nbrs[1] == LOOM_TOPO_PROC_NULL);
    CU_ASSERT(nbrs[2] == LOOM_TOPO_PROC_NULL && nbrs[3] == 1);
}

/* ---- graphs -------------------------------------------------------------------------- */

static void test_graph(void)
{
    /* MPI-3.1 example 7.4 (4 nodes) */
    static const int index[] = { 2, 3, 4, 6 }, edges[] = { 1, 3, 0, 3, 0, 2 };
    int first, count, bad = 99, bade = 99;

    CU_ASSERT_EQUAL(loom_topo_graph_check(4, index, edges, &bad, &bade), LOOM_TOPO_OK);
    CU_ASSERT(bad == -1 && bade == -1);
    loom_topo_graph_neighbors(index, 0, &first, &count);
    CU_ASSERT(first == 0 && count == 2);
    loom_topo_graph_neighbors(index, 3, &first, &count);
    CU_ASSERT(first == 4 && count == 2 && edges[first] == 0 && edges[first + 1] == 2);
    CU_ASSERT_EQUAL(loom_topo_graph_check(4, (const int[]){ 2, 1, 4, 6 }, edges, &bad,
                                          &bade), LOOM_TOPO_ERR_ARG);
    CU_ASSERT(bad == 1 && bade == -1);
    CU_ASSERT_EQUAL(loom_topo_graph_check(2, (const int[]){ -1, 0 }, edges, &bad, &bade),
                    LOOM_TOPO_ERR_ARG);
    CU_ASSERT(bad == 0 && bade == -1);
    CU_ASSERT_EQUAL(loom_topo_graph_check(3, (const int[]){ 1, 2, 3 },
                                          (const int[]){ 1, 3, 0 }, &bad, &bade),
                    LOOM_TOPO_ERR_ARG);
    CU_ASSERT(bad == -1 && bade == 1);
    CU_ASSERT_EQUAL(loom_topo_graph_check(-1, index, edges, &bad, &bade),
                    LOOM_TOPO_ERR_ARG);
    CU_ASSERT_EQUAL(loom_topo_graph_check(0, NULL, NULL, &bad, &bade), LOOM_TOPO_OK);
    CU_ASSERT_EQUAL(loom_topo_map_identity(3, 4), 3);
    CU_ASSERT_EQUAL(loom_topo_map_identity(4, 4), -1);
}

int main(void)
{
    CU_pSuite s;

    if (CU_initialize_registry() != CUE_SUCCESS) {
        return CU_get_error();
    }
    s = CU_add_suite("topo", NULL, NULL);
    CU_add_test(s, "dims_create = brute force, n <= 1000, 1-4 dims", test_dims_brute);
    CU_add_test(s, "dims_create with a fixed entry", test_dims_fixed);
    CU_add_test(s, "dims_create cases and errors", test_dims_cases);
    CU_add_test(s, "dims_create on divisor-rich numbers", test_dims_fast);
    CU_add_test(s, "cart rank <-> coords, wrap, errors", test_cart_rank_coords);
    CU_add_test(s, "cart shift", test_cart_shift);
    CU_add_test(s, "cart sub colors and keys", test_cart_sub);
    CU_add_test(s, "cart neighbour blocks land in the right slot", test_cart_neighbor_matching);
    CU_add_test(s, "graph check and neighbours", test_graph);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    {
        unsigned failed = CU_get_number_of_failures();
        CU_cleanup_registry();
        return failed ? 1 : 0;
    }
}
