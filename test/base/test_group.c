/*
 * test_group.c: the group set algebra (base/group.c) against brute-force
 * references written here: for a few thousand random groups (random subsets
 * of 0..W-1 in random order, empty ones included) every operation's result,
 * order included, must equal the quadratic loop that reads MPI-3.1's
 * definition literally; and every error rule (rank out of range or listed
 * twice -> INVALID_RANK, negative count, stride 0, a range that never
 * reaches its last rank -> INVALID_ARG) is hit on purpose.
 */
#include "../common/cunit_main.h"
#include "group_int.h"

#include <string.h>

#define W     14      /* process identities 0..W-1 */
#define ITERS 3000

static unsigned long long test_rng = 88172645463325252ull;

static int rnd(int n)
{
    test_rng ^= test_rng << 13;
    test_rng ^= test_rng >> 7;
    test_rng ^= test_rng << 17;
    return (int)(test_rng % (unsigned long long)n);
}

/* A random group: n distinct identities (offset so they differ from ranks). */
static int random_group(int g[])
{
    int perm[W], n = rnd(W + 1);

    for (int i = 0; i < W; ++i) {
        perm[i] = i;
    }
    for (int i = W - 1; i > 0; --i) {
        int j = rnd(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < n; ++i) {
        g[i] = 100 + perm[i];
    }
    return n;
}

static int ref_has(int n, const int g[], int id)
{
    for (int i = 0; i < n; ++i) {
        if (g[i] == id) {
            return 1;
        }
    }
    return 0;
}

static void check_list(const int *got, int ngot, const int *want, int nwant)
{
    CU_ASSERT_EQUAL_FATAL(ngot, nwant);
    for (int i = 0; i < nwant; ++i) {
        CU_ASSERT_EQUAL_FATAL(got[i], want[i]);
    }
}

static void test_set_ops(void)
{
    int g1[W], g2[W], out[2 * W], ref[2 * W], n1, n2, k, nr;

    for (int it = 0; it < ITERS; ++it) {
        n1 = random_group(g1);
        n2 = random_group(g2);
        /* union: all of g1, then g2's others in g2 order */
        nr = 0;
        for (int i = 0; i < n1; ++i) ref[nr++] = g1[i];
        for (int i = 0; i < n2; ++i) if (!ref_has(n1, g1, g2[i])) ref[nr++] = g2[i];
        CU_ASSERT_EQUAL_FATAL(loom_group_union(n1, g1, n2, g2, out, &k), LOOM_OK);
        check_list(out, k, ref, nr);
        /* intersection, difference: g1 order */
        nr = 0;
        for (int i = 0; i < n1; ++i) if (ref_has(n2, g2, g1[i])) ref[nr++] = g1[i];
        CU_ASSERT_EQUAL_FATAL(loom_group_intersection(n1, g1, n2, g2, out, &k), LOOM_OK);
        check_list(out, k, ref, nr);
        nr = 0;
        for (int i = 0; i < n1; ++i) if (!ref_has(n2, g2, g1[i])) ref[nr++] = g1[i];
        CU_ASSERT_EQUAL_FATAL(loom_group_difference(n1, g1, n2, g2, out, &k), LOOM_OK);
        check_list(out, k, ref, nr);
    }
}

static int ref_compare(int n1, const int g1[], int n2, const int g2[])
{
    int same = n1 == n2;

    for (int i = 0; same && i < n1; ++i) {
        same = g1[i] == g2[i];
    }
    if (same) {
        return LOOM_GROUP_IDENT;
    }
    if (n1 != n2) {
        return LOOM_GROUP_UNEQUAL;
    }
    for (int i = 0; i < n1; ++i) {
        if (!ref_has(n2, g2, g1[i])) {
            return LOOM_GROUP_UNEQUAL;
        }
    }
    return LOOM_GROUP_SIMILAR;
}

static void test_compare(void)
{
    int g1[W], g2[W], n1, n2;
    int a[] = { 5, 7, 9 }, b[] = { 9, 5, 7 }, c[] = { 5, 7, 8 };

    CU_ASSERT_EQUAL(loom_group_compare(0, NULL, 0, NULL), LOOM_GROUP_IDENT);
    CU_ASSERT_EQUAL(loom_group_compare(3, a, 3, a), LOOM_GROUP_IDENT);
    CU_ASSERT_EQUAL(loom_group_compare(3, a, 3, b), LOOM_GROUP_SIMILAR);
    CU_ASSERT_EQUAL(loom_group_compare(3, a, 3, c), LOOM_GROUP_UNEQUAL);
    CU_ASSERT_EQUAL(loom_group_compare(3, a, 2, a), LOOM_GROUP_UNEQUAL);
    for (int it = 0; it < ITERS; ++it) {
        n1 = random_group(g1);
        if (rnd(2)) {               /* often a permutation of g1, to hit SIMILAR */
            n2 = n1;
            memcpy(g2, g1, sizeof(g1));
            if (n2 > 1 && rnd(2)) {
                int i = rnd(n2), j = rnd(n2), t = g2[i];
                g2[i] = g2[j];
                g2[j] = t;
            }
        } else {
            n2 = random_group(g2);
        }
        CU_ASSERT_EQUAL_FATAL(loom_group_compare(n1, g1, n2, g2), ref_compare(n1, g1, n2, g2));
    }
}

static void test_incl_excl(void)
{
    int g[W], ranks[W], out[W], ref[W], n, m, nr;

    for (int it = 0; it < ITERS; ++it) {
        n = random_group(g);
        m = n == 0 ? 0 : rnd(n + 1);
        for (int i = 0; i < m; ++i) {       /* m distinct ranks of g, random order */
            do {
                ranks[i] = rnd(n);
            } while (ref_has(i, ranks, ranks[i]));
        }
        CU_ASSERT_EQUAL_FATAL(loom_group_incl(n, g, m, ranks, out), LOOM_OK);
        for (int i = 0; i < m; ++i) ref[i] = g[ranks[i]];
        check_list(out, m, ref, m);
        CU_ASSERT_EQUAL_FATAL(loom_group_excl(n, g, m, ranks, out), LOOM_OK);
        nr = 0;
        for (int r = 0; r < n; ++r) if (!ref_has(m, ranks, r)) ref[nr++] = g[r];
        check_list(out, n - m, ref, nr);
    }
}

static void test_incl_errors(void)
{
    int g[4] = { 10, 11, 12, 13 }, out[8];
    int dup[] = { 1, 2, 1 }, hi[] = { 0, 4 }, neg[] = { -1 }, five[] = { 0, 1, 2, 3, 0 };

    CU_ASSERT_EQUAL(loom_group_incl(4, g, 3, dup, out), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_group_incl(4, g, 2, hi, out), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_group_incl(4, g, 1, neg, out), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_group_incl(4, g, 5, five, out), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_group_incl(4, g, -1, dup, out), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_group_excl(4, g, 3, dup, out), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_group_excl(4, g, 2, hi, out), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_group_excl(4, g, -2, hi, out), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_group_incl(4, g, 0, NULL, out), LOOM_OK);
    CU_ASSERT_EQUAL(loom_group_excl(4, g, 4, (int[]){ 3, 1, 0, 2 }, out), LOOM_OK);
}

/* Brute-force expansion of the triplets (no validity rules). */
static int ref_expand(int n, int r[][3], int out[])
{
    int k = 0;

    for (int i = 0; i < n; ++i) {
        for (int j = r[i][0]; r[i][2] > 0 ? j <= r[i][1] : j >= r[i][1]; j += r[i][2]) {
            out[k++] = j;
        }
    }
    return k;
}

static void test_ranges(void)
{
    int out[W], ref[4 * W], k, nr, r[3][3];

    for (int it = 0; it < ITERS; ++it) {
        int size = 1 + rnd(W), n = rnd(4), ok = 1;

        for (int i = 0; i < n; ++i) {
            int a = rnd(size), b = rnd(size), s = 1 + rnd(4);
            r[i][0] = a;
            r[i][1] = b;
            r[i][2] = a <= b ? s : -s;
        }
        nr = ref_expand(n, r, ref);
        for (int i = 0; i < nr && ok; ++i) {
            ok = !ref_has(i, ref, ref[i]);
        }
        CU_ASSERT_EQUAL_FATAL(loom_group_range_expand(size, n, (const int (*)[3])r, out, &k),
                              ok ? LOOM_OK : LOOM_ERR_INVALID_RANK);
        if (ok) {
            check_list(out, k, ref, nr);
        }
    }
}

static void test_range_errors(void)
{
    int out[8], k = -1;
    /* the standard's example shape: 7 down to 1 by -3 = 7, 4, 1 */
    const int down[1][3] = { { 7, 1, -3 } }, zero[1][3] = { { 1, 3, 0 } };
    const int never[1][3] = { { 5, 2, 1 } }, never2[1][3] = { { 2, 5, -1 } };
    const int hi[1][3] = { { 0, 8, 1 } }, lo[1][3] = { { -1, 3, 1 } };
    const int overlap[2][3] = { { 0, 3, 1 }, { 3, 5, 2 } }, single[1][3] = { { 6, 6, -5 } };

    CU_ASSERT_EQUAL(loom_group_range_expand(8, 1, down, out, &k), LOOM_OK);
    CU_ASSERT_EQUAL(k, 3);
    CU_ASSERT(out[0] == 7 && out[1] == 4 && out[2] == 1);
    CU_ASSERT_EQUAL(loom_group_range_expand(8, 1, single, out, &k), LOOM_OK);
    CU_ASSERT(k == 1 && out[0] == 6);
    CU_ASSERT_EQUAL(loom_group_range_expand(8, 1, zero, out, &k), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_group_range_expand(8, 1, never, out, &k), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_group_range_expand(8, 1, never2, out, &k), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_group_range_expand(8, 1, hi, out, &k), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_group_range_expand(8, 1, lo, out, &k), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_group_range_expand(8, 2, overlap, out, &k), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_group_range_expand(8, -1, down, out, &k), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_group_range_expand(8, 0, NULL, out, &k), LOOM_OK);
    CU_ASSERT_EQUAL(k, 0);
}

static void test_translate(void)
{
    int g1[W], g2[W], r1[W + 1], r2[W + 1], n1, n2;

    for (int it = 0; it < ITERS; ++it) {
        n1 = random_group(g1);
        n2 = random_group(g2);
        for (int i = 0; i < n1; ++i) {
            r1[i] = i;
        }
        r1[n1] = LOOM_PROC_NULL;
        CU_ASSERT_EQUAL_FATAL(loom_group_translate(n1, g1, n1 + 1, r1, n2, g2, r2), LOOM_OK);
        for (int i = 0; i < n1; ++i) {
            int want = LOOM_UNDEFINED;
            for (int j = 0; j < n2; ++j) {
                if (g2[j] == g1[i]) {
                    want = j;
                }
            }
            CU_ASSERT_EQUAL_FATAL(r2[i], want);
        }
        CU_ASSERT_EQUAL_FATAL(r2[n1], LOOM_PROC_NULL);
        r1[0] = n1;                  /* one past the end */
        CU_ASSERT_EQUAL_FATAL(loom_group_translate(n1, g1, 1, r1, n2, g2, r2),
                              LOOM_ERR_INVALID_RANK);
    }
    CU_ASSERT_EQUAL(loom_group_translate(0, NULL, -1, r1, 0, NULL, r2), LOOM_ERR_INVALID_ARG);
}

static void test_rank_of(void)
{
    int g[] = { 4, 2, 9 };

    CU_ASSERT_EQUAL(loom_group_rank_of(3, g, 9), 2);
    CU_ASSERT_EQUAL(loom_group_rank_of(3, g, 4), 0);
    CU_ASSERT_EQUAL(loom_group_rank_of(3, g, 5), LOOM_UNDEFINED);
    CU_ASSERT_EQUAL(loom_group_rank_of(0, NULL, 5), LOOM_UNDEFINED);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "union, intersection, difference vs reference", test_set_ops },
        { "compare vs reference", test_compare },
        { "incl, excl vs reference", test_incl_excl },
        { "incl, excl errors", test_incl_errors },
        { "range triplets vs reference", test_ranges },
        { "range triplet errors", test_range_errors },
        { "translate ranks", test_translate },
        { "rank of a process", test_rank_of },
        { NULL, NULL },
    };
    return loom_test_run_suite("core group", cases, NULL, NULL);
}
