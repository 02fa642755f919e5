/*
 * mpi_group.c: every MPI group call at any rank count, with its data and
 * its error classes (MPI_ERRORS_RETURN on MPI_COMM_WORLD, where group
 * errors go): Comm_group, size/rank, incl/excl, range_incl/range_excl with
 * negative strides, union/intersection/difference in MPI's order,
 * translate_ranks (MPI_PROC_NULL, MPI_UNDEFINED), compare, free, and
 * MPI_GROUP_EMPTY as a real group distinct from MPI_GROUP_NULL.
 */
#include "mpi_test_util.h"

#include <stdlib.h>

static int me, np;

/* The world ranks of @p g's members, in group order (checks the size). */
static void members(MPI_Group g, int n, int out[])
{
    MPI_Group gw;
    int size, *idx = malloc(((size_t)n + 1) * sizeof(int));

    MT_OK(MPI_Group_size(g, &size));
    MT_EQ(size, n);
    for (int i = 0; i < n; ++i) {
        idx[i] = i;
    }
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &gw));
    MT_OK(MPI_Group_translate_ranks(g, n, idx, gw, out));
    MT_OK(MPI_Group_free(&gw));
    free(idx);
}

/* @p g holds exactly world ranks want[0..n-1] in that order, and my rank fits. */
static void expect(MPI_Group g, int n, const int want[])
{
    int *got = malloc(((size_t)n + 1) * sizeof(int)), rank, mine = MPI_UNDEFINED;

    members(g, n, got);
    for (int i = 0; i < n; ++i) {
        MT_EQ(got[i], want[i]);
        if (want[i] == me) {
            mine = i;
        }
    }
    MT_OK(MPI_Group_rank(g, &rank));
    MT_EQ(rank, mine);
    free(got);
}

static void test_basics(MPI_Group gw)
{
    MPI_Group gs, gw2;
    int size, rank, r0 = 0, tr, res;

    MT_OK(MPI_Group_size(gw, &size));
    MT_OK(MPI_Group_rank(gw, &rank));
    MT_EQ(size, np);
    MT_EQ(rank, me);
    MT_OK(MPI_Comm_group(MPI_COMM_SELF, &gs));
    MT_OK(MPI_Group_size(gs, &size));
    MT_OK(MPI_Group_rank(gs, &rank));
    MT_EQ(size, 1);
    MT_EQ(rank, 0);
    MT_OK(MPI_Group_translate_ranks(gs, 1, &r0, gw, &tr));
    MT_EQ(tr, me);
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &gw2));
    MT_OK(MPI_Group_compare(gw, gw2, &res));
    MT_EQ(res, MPI_IDENT);
    MT_OK(MPI_Group_compare(gw, gs, &res));
    MT_EQ(res, np == 1 ? MPI_IDENT : MPI_UNEQUAL);
    MT_OK(MPI_Group_free(&gs));
    MT_OK(MPI_Group_free(&gw2));
    MT_CHECK(gs == MPI_GROUP_NULL && gw2 == MPI_GROUP_NULL);
}

static void test_incl_excl(MPI_Group gw, MPI_Group *odds_p, MPI_Group *evens_p)
{
    int *r = malloc(sizeof(int) * (size_t)np), *w = malloc(sizeof(int) * (size_t)np);
    int n = 0, res;
    MPI_Group rev, odds, evens;

    for (int i = 0; i < np; ++i) {
        r[i] = np - 1 - i;
    }
    MT_OK(MPI_Group_incl(gw, np, r, &rev));
    expect(rev, np, r);
    MT_OK(MPI_Group_compare(gw, rev, &res));
    MT_EQ(res, np == 1 ? MPI_IDENT : MPI_SIMILAR);
    MT_OK(MPI_Group_free(&rev));
    for (int i = 0; i < np; i += 2) {
        r[n++] = i;                          /* the evens */
    }
    MT_OK(MPI_Group_excl(gw, n, r, &odds));
    MT_OK(MPI_Group_incl(gw, n, r, &evens));
    expect(evens, n, r);
    for (int i = 1, k = 0; i < np; i += 2) {
        w[k++] = i;
    }
    expect(odds, np - n, w);
    if (np == 1) {
        MT_CHECK(odds == MPI_GROUP_EMPTY);   /* an empty result is MPI_GROUP_EMPTY */
    }
    *odds_p = odds;
    *evens_p = evens;
    free(r);
    free(w);
}

static void test_ranges(MPI_Group gw)
{
    int down[1][3] = { { np - 1, 0, -2 } }, every3[1][3] = { { 0, np - 1, 3 } };
    int *w = malloc(sizeof(int) * (size_t)np), n = 0;
    MPI_Group g;

    for (int i = np - 1; i >= 0; i -= 2) {
        w[n++] = i;
    }
    MT_OK(MPI_Group_range_incl(gw, 1, down, &g));
    expect(g, n, w);
    MT_OK(MPI_Group_free(&g));
    n = 0;
    for (int i = 0; i < np; ++i) {
        if (i % 3 != 0) {
            w[n++] = i;
        }
    }
    MT_OK(MPI_Group_range_excl(gw, 1, every3, &g));
    expect(g, n, w);
    if (n == 0) {
        MT_CHECK(g == MPI_GROUP_EMPTY);
    }
    MT_OK(MPI_Group_free(&g));
    free(w);
}

static void test_set_ops(MPI_Group gw, MPI_Group odds, MPI_Group evens)
{
    int *w = malloc(sizeof(int) * (size_t)np), n = 0, res;
    MPI_Group u, x, d;

    for (int i = 1; i < np; i += 2) w[n++] = i;
    for (int i = 0; i < np; i += 2) w[n++] = i;
    MT_OK(MPI_Group_union(odds, evens, &u));          /* odds, then evens */
    expect(u, np, w);
    MT_OK(MPI_Group_compare(u, gw, &res));
    MT_EQ(res, np == 1 ? MPI_IDENT : MPI_SIMILAR);
    MT_OK(MPI_Group_union(gw, odds, &x));             /* nothing new: world order */
    MT_OK(MPI_Group_compare(x, gw, &res));
    MT_EQ(res, MPI_IDENT);
    MT_OK(MPI_Group_free(&x));
    MT_OK(MPI_Group_intersection(u, evens, &x));      /* evens in u's order */
    MT_OK(MPI_Group_compare(x, evens, &res));
    MT_EQ(res, MPI_IDENT);
    MT_OK(MPI_Group_difference(gw, odds, &d));        /* evens in world order */
    MT_OK(MPI_Group_compare(d, evens, &res));
    MT_EQ(res, MPI_IDENT);
    MT_OK(MPI_Group_free(&d));
    MT_OK(MPI_Group_difference(evens, gw, &d));
    MT_CHECK(d == MPI_GROUP_EMPTY);
    MT_OK(MPI_Group_free(&d));
    MT_OK(MPI_Group_intersection(odds, evens, &d));
    MT_CHECK(d == MPI_GROUP_EMPTY);
    MT_OK(MPI_Group_compare(odds, evens, &res));
    MT_EQ(res, MPI_UNEQUAL);
    MT_OK(MPI_Group_free(&u));
    MT_OK(MPI_Group_free(&x));
    free(w);
}

static void test_translate(MPI_Group gw, MPI_Group evens)
{
    int in[3] = { me, MPI_PROC_NULL, 0 }, out[3];

    MT_OK(MPI_Group_translate_ranks(gw, 3, in, evens, out));
    MT_EQ(out[0], me % 2 == 0 ? me / 2 : MPI_UNDEFINED);
    MT_EQ(out[1], MPI_PROC_NULL);
    MT_EQ(out[2], 0);
    MT_OK(MPI_Group_translate_ranks(gw, 0, NULL, evens, NULL));
}

static void test_empty(MPI_Group gw)
{
    MPI_Group e = MPI_GROUP_EMPTY, g;
    int size = -1, rank = 0, res, r0 = 0, out = 0;

    MT_CHECK(MPI_GROUP_EMPTY != MPI_GROUP_NULL);
    MT_OK(MPI_Group_size(MPI_GROUP_EMPTY, &size));
    MT_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &rank));
    MT_EQ(size, 0);
    MT_EQ(rank, MPI_UNDEFINED);
    MT_OK(MPI_Group_incl(gw, 0, NULL, &g));
    MT_CHECK(g == MPI_GROUP_EMPTY);
    MT_OK(MPI_Group_compare(g, MPI_GROUP_EMPTY, &res));
    MT_EQ(res, MPI_IDENT);
    MT_OK(MPI_Group_free(&g));
    MT_OK(MPI_Group_free(&e));                   /* allowed; MPI_GROUP_EMPTY lives on */
    MT_CHECK(e == MPI_GROUP_NULL);
    MT_OK(MPI_Group_union(MPI_GROUP_EMPTY, gw, &g));
    MT_OK(MPI_Group_compare(g, gw, &res));
    MT_EQ(res, MPI_IDENT);
    MT_OK(MPI_Group_free(&g));
    MT_OK(MPI_Group_translate_ranks(gw, 1, &r0, MPI_GROUP_EMPTY, &out));
    MT_EQ(out, MPI_UNDEFINED);
}

static void test_errors(MPI_Group gw)
{
    int dup[2] = { 0, 0 }, big[1] = { np }, neg[1] = { -1 }, size, res;
    int zero[1][3] = { { 0, np - 1, 0 } }, out[1][3] = { { 0, np, 1 } };
    int never[1][3] = { { np - 1, 0, 1 } }, over[2][3] = { { 0, 0, 1 }, { 0, np - 1, 1 } };
    MPI_Group g = MPI_GROUP_NULL, nul = MPI_GROUP_NULL;

    MT_ERR(MPI_Group_incl(gw, 2, dup, &g), MPI_ERR_RANK);
    MT_ERR(MPI_Group_incl(gw, 1, big, &g), MPI_ERR_RANK);
    MT_ERR(MPI_Group_incl(gw, 1, neg, &g), MPI_ERR_RANK);
    MT_ERR(MPI_Group_incl(gw, -1, dup, &g), MPI_ERR_ARG);
    MT_ERR(MPI_Group_excl(gw, 2, dup, &g), MPI_ERR_RANK);
    MT_ERR(MPI_Group_excl(gw, 1, big, &g), MPI_ERR_RANK);
    MT_ERR(MPI_Group_range_incl(gw, 1, zero, &g), MPI_ERR_ARG);
    MT_ERR(MPI_Group_range_excl(gw, 1, out, &g), MPI_ERR_RANK);
    MT_ERR(MPI_Group_range_incl(gw, 2, over, &g), MPI_ERR_RANK);
    if (np > 1) {
        MT_ERR(MPI_Group_range_incl(gw, 1, never, &g), MPI_ERR_ARG);
    }
    MT_ERR(MPI_Group_translate_ranks(gw, 1, big, gw, neg), MPI_ERR_RANK);
    MT_ERR(MPI_Group_translate_ranks(gw, -1, big, gw, neg), MPI_ERR_ARG);
    MT_ERR(MPI_Group_size(MPI_GROUP_NULL, &size), MPI_ERR_GROUP);
    MT_ERR(MPI_Group_rank(MPI_GROUP_NULL, &size), MPI_ERR_GROUP);
    MT_ERR(MPI_Group_compare(gw, MPI_GROUP_NULL, &res), MPI_ERR_GROUP);
    MT_ERR(MPI_Group_union(MPI_GROUP_NULL, gw, &g), MPI_ERR_GROUP);
    MT_ERR(MPI_Group_free(&nul), MPI_ERR_GROUP);
    MT_ERR(MPI_Group_free(NULL), MPI_ERR_ARG);
    MT_ERR(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM);
    MT_ERR(MPI_Group_size(gw, NULL), MPI_ERR_ARG);
    MT_CHECK(g == MPI_GROUP_NULL);               /* failed calls made no group */
}

int main(int argc, char **argv)
{
    MPI_Group gw, odds, evens;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &gw));
    test_basics(gw);
    test_incl_excl(gw, &odds, &evens);
    test_ranges(gw);
    test_set_ops(gw, odds, evens);
    test_translate(gw, evens);
    test_empty(gw);
    test_errors(gw);
    MT_OK(MPI_Group_free(&odds));
    MT_OK(MPI_Group_free(&evens));
    MT_OK(MPI_Group_free(&gw));
    MT_PASS("mpi_group");
    MT_OK(MPI_Finalize());
    return 0;
}
