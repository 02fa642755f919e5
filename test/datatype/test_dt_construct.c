/*
 * test_dt_construct.c: each constructor on hand-computed cases (sizes,
 * bounds, true bounds, the blocks a pack visits, as MPI-3.1 and
 * MPICH/Open MPI on x86-64 give them: negative strides and displacements,
 * resized markers that stick, the struct alignment rule, C and Fortran
 * subarrays, block and cyclic darrays); what commit must optimise (a
 * vector of contiguous blocks is one run, touching indexed blocks merge,
 * a regular indexed_block is a vector); envelope and contents for every
 * combiner, rebuilt into a type that packs identically; and the errors,
 * each with its status.
 */
#include "../common/cunit_main.h"
#include "dt_ref.h"

#define I32 loom_dt_basic(LOOM_INT32)
#define F64 loom_dt_basic(LOOM_DOUBLE)
#define I8  loom_dt_basic(LOOM_INT8)

static void expect(loom_dt_t *dt, size_t size, ptrdiff_t lb, ptrdiff_t ext, ptrdiff_t tlb,
                   ptrdiff_t text)
{
    ptrdiff_t a, b, c, d;

    CU_ASSERT_PTR_NOT_NULL_FATAL(dt);
    loom_dt_get_extent(dt, &a, &b);
    loom_dt_get_true_extent(dt, &c, &d);
    CU_ASSERT_EQUAL(loom_dt_size(dt), size);
    CU_ASSERT_EQUAL(a, lb);
    CU_ASSERT_EQUAL(b, ext);
    CU_ASSERT_EQUAL(c, tlb);
    CU_ASSERT_EQUAL(d, text);
}

static char base[1];  /* an address to offset from (never dereferenced) */

/* the committed type's merged blocks from offset 0 of one instance */
static size_t blocks(loom_dt_t *dt, struct iovec *iov, size_t max)
{
    size_t n = 0, bytes = 0;

    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(dt), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_iov(base, 1, dt, 0, SIZE_MAX, iov, max, &n, &bytes), LOOM_OK);
    CU_ASSERT_EQUAL(bytes, loom_dt_size(dt));
    return n;
}

static ptrdiff_t off_of(const struct iovec *v)
{
    return (char *)v->iov_base - base;
}

static void test_vector(void)
{
    loom_dt_t *v = NULL, *h = NULL, *neg = NULL;
    struct iovec iov[8];

    CU_ASSERT_EQUAL(loom_dt_create_vector(3, 2, 4, I32, &v), LOOM_OK);
    expect(v, 24, 0, 40, 0, 40);
    CU_ASSERT_EQUAL(blocks(v, iov, 8), 3);
    CU_ASSERT_EQUAL(off_of(&iov[2]), 32);
    CU_ASSERT_EQUAL(iov[2].iov_len, 8);
    CU_ASSERT_EQUAL(loom_dt_create_hvector(2, 1, -12, v, &h), LOOM_OK);
    expect(h, 48, -12, 52, -12, 52);
    CU_ASSERT_EQUAL(loom_dt_create_vector(3, 1, -2, I32, &neg), LOOM_OK);
    expect(neg, 12, -16, 20, -16, 20);
    CU_ASSERT_EQUAL(blocks(neg, iov, 8), 3);
    CU_ASSERT_EQUAL(off_of(&iov[1]), -8);
    loom_dt_release(v);
    loom_dt_release(h);
    loom_dt_release(neg);
}

static void test_indexed(void)
{
    int64_t bl[3] = { 2, 0, 3 }, d[3] = { 5, 100, -3 };
    ptrdiff_t hd[2] = { 1, -7 };
    loom_dt_t *x = NULL, *hx = NULL, *ib = NULL, *hb = NULL;

    CU_ASSERT_EQUAL(loom_dt_create_indexed(3, bl, d, I32, &x), LOOM_OK);
    /* the empty block at 100 counts for nothing */
    expect(x, 20, -12, 40, -12, 40);
    CU_ASSERT_EQUAL(loom_dt_create_hindexed(2, bl, hd, F64, &hx), LOOM_OK);
    expect(hx, 16, 1, 16, 1, 16);
    CU_ASSERT_EQUAL(loom_dt_create_indexed_block(3, 2, d, I8, &ib), LOOM_OK);
    expect(ib, 6, -3, 105, -3, 105);
    CU_ASSERT_EQUAL(loom_dt_create_hindexed_block(2, 1, hd, I32, &hb), LOOM_OK);
    expect(hb, 8, -7, 12, -7, 12);
    loom_dt_release(x);
    loom_dt_release(hx);
    loom_dt_release(ib);
    loom_dt_release(hb);
}

static void test_struct_alignment(void)
{
    int64_t bl[2] = { 1, 1 };
    ptrdiff_t d[2] = { 0, 8 }, d2[2] = { 0, 4 };
    loom_dt_t *t1[2] = { F64, I8 }, *t2[2] = { I32, I8 }, *s1 = NULL, *s2 = NULL, *c = NULL;

    CU_ASSERT_EQUAL(loom_dt_create_struct(2, bl, d, t1, &s1), LOOM_OK);
    expect(s1, 9, 0, 16, 0, 9);                 /* { double; char } */
    CU_ASSERT_EQUAL(loom_dt_create_struct(2, bl, d2, t2, &s2), LOOM_OK);
    expect(s2, 5, 0, 8, 0, 5);                  /* { int; char } */
    CU_ASSERT_EQUAL(loom_dt_create_contiguous(3, s1, &c), LOOM_OK);
    expect(c, 27, 0, 48, 0, 41);
    loom_dt_release(s1);
    loom_dt_release(s2);
    loom_dt_release(c);
    /* an input's alignment counts even with nothing of it in the struct */
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_contiguous(0, F64, &c), LOOM_OK);
    t1[0] = I8, t1[1] = c;
    CU_ASSERT_EQUAL(loom_dt_create_struct(2, bl, d2, t1, &s1), LOOM_OK);
    expect(s1, 1, 0, 8, 0, 1);
    loom_dt_release(s1);
    loom_dt_release(c);
    /* the predefined pairs: size without padding, extent with it */
    expect(loom_dt_basic(LOOM_DOUBLE_INT), 12, 0, 16, 0, 12);
    expect(loom_dt_basic(LOOM_SHORT_INT), 6, 0, 8, 0, 8);
    expect(loom_dt_basic(LOOM_LONG_DOUBLE_INT), 20, 0, 32, 0, 20);
}

static void test_resized(void)
{
    int64_t bl[2] = { 1, 1 };
    ptrdiff_t d[2] = { 0, 8 };
    loom_dt_t *r = NULL, *c = NULL, *s = NULL, *types[2], *dup = NULL;

    CU_ASSERT_EQUAL(loom_dt_create_resized(I32, -4, 16, &r), LOOM_OK);
    expect(r, 4, -4, 16, 0, 4);
    CU_ASSERT_EQUAL(loom_dt_create_contiguous(2, r, &c), LOOM_OK);
    expect(c, 8, -4, 32, 0, 20);
    /* the markers stick: a struct's bounds are its resized member's, unpadded */
    types[0] = r, types[1] = F64;
    CU_ASSERT_EQUAL(loom_dt_create_struct(2, bl, d, types, &s), LOOM_OK);
    expect(s, 12, -4, 16, 0, 16);
    CU_ASSERT_EQUAL(loom_dt_create_dup(s, &dup), LOOM_OK);
    loom_dt_release(s);                         /* dup holds its own reference */
    expect(dup, 12, -4, 16, 0, 16);
    loom_dt_release(r);
    loom_dt_release(c);
    loom_dt_release(dup);
}

static void test_subarray(void)
{
    int64_t sizes[2] = { 4, 5 }, sub[2] = { 2, 3 }, start[2] = { 1, 2 };
    loom_dt_t *c = NULL, *f = NULL;
    struct iovec iov[8];

    CU_ASSERT_EQUAL(loom_dt_create_subarray(2, sizes, sub, start, LOOM_DT_ORDER_C, I32, &c),
                    LOOM_OK);
    expect(c, 24, 0, 80, 28, 32);
    CU_ASSERT_EQUAL(blocks(c, iov, 8), 2);      /* rows 1 and 2, columns 2..4 */
    CU_ASSERT_EQUAL(off_of(&iov[0]), 28);
    CU_ASSERT_EQUAL(iov[0].iov_len, 12);
    CU_ASSERT_EQUAL(off_of(&iov[1]), 48);
    CU_ASSERT_EQUAL(loom_dt_create_subarray(2, sizes, sub, start, LOOM_DT_ORDER_FORTRAN, I32,
                                            &f), LOOM_OK);
    expect(f, 24, 0, 80, 36, 40);
    CU_ASSERT_EQUAL(blocks(f, iov, 8), 3);      /* columns 2..4, rows 1..2 */
    CU_ASSERT_EQUAL(off_of(&iov[0]), 36);
    CU_ASSERT_EQUAL(iov[0].iov_len, 8);
    loom_dt_release(c);
    loom_dt_release(f);
}

static void test_darray(void)
{
    int64_t g = 10, dflt = LOOM_DT_DISTRIBUTE_DFLT_DARG, two = 2;
    int block = LOOM_DT_DISTRIBUTE_BLOCK, cyc = LOOM_DT_DISTRIBUTE_CYCLIC, p3 = 3, p2 = 2;
    loom_dt_t *b1 = NULL, *b2 = NULL, *cy = NULL;
    struct iovec iov[8];

    CU_ASSERT_EQUAL(loom_dt_create_darray(3, 1, 1, &g, &block, &dflt, &p3, 0, I32, &b1), LOOM_OK);
    expect(b1, 16, 0, 40, 16, 16);              /* rank 1 of 3: 4..7 */
    CU_ASSERT_EQUAL(loom_dt_create_darray(3, 2, 1, &g, &block, &dflt, &p3, 0, I32, &b2), LOOM_OK);
    expect(b2, 8, 0, 40, 32, 8);                /* rank 2: 8..9 */
    CU_ASSERT_EQUAL(loom_dt_create_darray(2, 1, 1, &g, &cyc, &two, &p2, 0, I32, &cy), LOOM_OK);
    expect(cy, 16, 0, 40, 8, 24);               /* cyclic(2), rank 1: 2,3,6,7 */
    CU_ASSERT_EQUAL(blocks(cy, iov, 8), 2);
    CU_ASSERT_EQUAL(off_of(&iov[1]), 24);
    loom_dt_release(b1);
    loom_dt_release(b2);
    loom_dt_release(cy);
}

/* what commit must make of "contiguous after all" types */
static void test_commit_optimisations(void)
{
    int64_t bl[3] = { 2, 3, 1 }, d[3] = { 0, 2, 5 }, db[4] = { 0, 3, 6, 9 };
    int64_t bl2[2] = { 1, 1 };
    ptrdiff_t sd[2] = { 0, 4 };
    loom_dt_t *v = NULL, *x = NULL, *ib = NULL, *s = NULL, *cs = NULL, *types[2] = { I32, I32 };
    struct iovec iov[8];

    CU_ASSERT_EQUAL(loom_dt_create_vector(4, 2, 2, I32, &v), LOOM_OK);
    CU_ASSERT_EQUAL(blocks(v, iov, 8), 1);
    CU_ASSERT(loom_dt_is_contig(v, 5));
    CU_ASSERT_EQUAL(loom_dt_create_indexed(3, bl, d, I32, &x), LOOM_OK);
    CU_ASSERT_EQUAL(blocks(x, iov, 8), 1);
    CU_ASSERT(loom_dt_is_contig(x, 1));
    CU_ASSERT_EQUAL(loom_dt_create_struct(2, bl2, sd, types, &s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_create_contiguous(7, s, &cs), LOOM_OK);
    CU_ASSERT_EQUAL(blocks(cs, iov, 8), 1);
    CU_ASSERT(loom_dt_is_contig(cs, 3));
    CU_ASSERT_EQUAL(loom_dt_create_indexed_block(4, 2, db, I32, &ib), LOOM_OK);
    CU_ASSERT_EQUAL(blocks(ib, iov, 8), 4);
    CU_ASSERT(!loom_dt_is_contig(ib, 1));
    CU_ASSERT(loom_dt_is_contig(loom_dt_basic(LOOM_DOUBLE), 9));
    CU_ASSERT(loom_dt_is_contig(loom_dt_basic(LOOM_DOUBLE_INT), 1));
    CU_ASSERT(!loom_dt_is_contig(loom_dt_basic(LOOM_DOUBLE_INT), 2));
    {
        /* one block of several elements past 0 (a subarray of one row): one range */
        int64_t bl1[1] = { 3 }, d1[1] = { 2 };
        loom_dt_t *one = NULL;

        CU_ASSERT_EQUAL(loom_dt_create_indexed(1, bl1, d1, I32, &one), LOOM_OK);
        CU_ASSERT_EQUAL(loom_dt_commit(one), LOOM_OK);
        CU_ASSERT(loom_dt_is_contig(one, 1));
        CU_ASSERT(loom_dt_is_contig(one, 2));   /* lb 8, extent 12 = size: back to back */
        loom_dt_release(one);
    }
    loom_dt_release(v);
    loom_dt_release(x);
    loom_dt_release(ib);
    loom_dt_release(s);
    loom_dt_release(cs);
}

/* rebuild a type from its contents with the same constructor */
static loom_status_t rebuild(loom_dt_combiner_t comb, const int64_t *in, const ptrdiff_t *ad,
                             loom_dt_t **ty, loom_dt_t **out)
{
    int64_t n = in[0];

    switch (comb) {
    case LOOM_DT_COMBINER_DUP: return loom_dt_create_dup(ty[0], out);
    case LOOM_DT_COMBINER_CONTIGUOUS: return loom_dt_create_contiguous(in[0], ty[0], out);
    case LOOM_DT_COMBINER_VECTOR: return loom_dt_create_vector(in[0], in[1], in[2], ty[0], out);
    case LOOM_DT_COMBINER_HVECTOR: return loom_dt_create_hvector(in[0], in[1], ad[0], ty[0], out);
    case LOOM_DT_COMBINER_INDEXED: return loom_dt_create_indexed(n, in + 1, in + 1 + n, ty[0], out);
    case LOOM_DT_COMBINER_HINDEXED: return loom_dt_create_hindexed(n, in + 1, ad, ty[0], out);
    case LOOM_DT_COMBINER_INDEXED_BLOCK:
        return loom_dt_create_indexed_block(n, in[1], in + 2, ty[0], out);
    case LOOM_DT_COMBINER_HINDEXED_BLOCK:
        return loom_dt_create_hindexed_block(n, in[1], ad, ty[0], out);
    case LOOM_DT_COMBINER_STRUCT: return loom_dt_create_struct(n, in + 1, ad, ty, out);
    case LOOM_DT_COMBINER_RESIZED: return loom_dt_create_resized(ty[0], ad[0], ad[1], out);
    case LOOM_DT_COMBINER_SUBARRAY:
        return loom_dt_create_subarray((int)n, in + 1, in + 1 + n, in + 1 + 2 * n,
                                       (int)in[1 + 3 * n], ty[0], out);
    case LOOM_DT_COMBINER_DARRAY: {
        int nd = (int)in[2], dist[8], ps[8];

        for (int i = 0; i < nd; ++i) {
            dist[i] = (int)in[3 + nd + i];
            ps[i] = (int)in[3 + 3 * nd + i];
        }
        return loom_dt_create_darray((int)in[0], (int)in[1], nd, in + 3, dist, in + 3 + 2 * nd,
                                     ps, (int)in[3 + 4 * nd], ty[0], out);
    }
    default: return LOOM_ERR_INVALID_TYPE;
    }
}

/* random types: contents rebuild a type with the same bounds and stream */
static void test_envelope_contents(void)
{
    ref_rng_t g = { .s = 12345 };
    int seen[16] = { 0 };

    for (int i = 0; i < 300; ++i) {
        ref_arena_t a = { 0 };
        ref_t *r = ref_gen(&g, &a, 2);
        int ni, na, nt;
        loom_dt_combiner_t comb;
        int64_t ints[512];
        ptrdiff_t addrs[64], l1, e1, l2, e2;
        loom_dt_t *types[64], *re = NULL;

        CU_ASSERT_EQUAL_FATAL(a.failures, 0);
        loom_dt_get_envelope(r->dt, &ni, &na, &nt, &comb);
        seen[comb] = 1;
        if (comb == LOOM_DT_COMBINER_NAMED) {
            CU_ASSERT(ni == 0 && na == 0 && nt == 0);
            CU_ASSERT_EQUAL(loom_dt_get_contents(r->dt, 9, 9, 9, ints, addrs, types),
                            LOOM_ERR_INVALID_TYPE);
            ref_arena_free(&a);
            continue;
        }
        CU_ASSERT_FATAL(ni <= 512 && na <= 64 && nt <= 64);
        if (ni > 0) {
            CU_ASSERT_EQUAL(loom_dt_get_contents(r->dt, ni - 1, na, nt, ints, addrs, types),
                            LOOM_ERR_INVALID_ARG);
        }
        CU_ASSERT_EQUAL_FATAL(loom_dt_get_contents(r->dt, ni, na, nt, ints, addrs, types),
                              LOOM_OK);
        CU_ASSERT_EQUAL_FATAL(rebuild(comb, ints, addrs, types, &re), LOOM_OK);
        loom_dt_get_extent(r->dt, &l1, &e1);
        loom_dt_get_extent(re, &l2, &e2);
        CU_ASSERT(l1 == l2 && e1 == e2 && loom_dt_size(re) == loom_dt_size(r->dt));
        loom_dt_get_true_extent(r->dt, &l1, &e1);
        loom_dt_get_true_extent(re, &l2, &e2);
        CU_ASSERT(loom_dt_size(re) == 0 || (l1 == l2 && e1 == e2));
        for (int k = 0; k < nt; ++k) {
            loom_dt_release(types[k]);
        }
        loom_dt_release(re);
        ref_arena_free(&a);
    }
    for (int c = LOOM_DT_COMBINER_NAMED; c <= LOOM_DT_COMBINER_RESIZED; ++c) {
        CU_ASSERT(seen[c]);
    }
}

static void test_errors(void)
{
    int64_t bl[2] = { 1, -1 }, d[2] = { 0, 1 }, sizes[2] = { 4, 4 }, sub[2] = { 2, 5 };
    int64_t start[2] = { 0, 0 }, g = 10, dflt = LOOM_DT_DISTRIBUTE_DFLT_DARG, small = 2;
    ptrdiff_t hd[2] = { 0, 1 };
    int block = LOOM_DT_DISTRIBUTE_BLOCK, none = LOOM_DT_DISTRIBUTE_NONE, bad = 7, p3 = 3;
    loom_dt_t *t = (loom_dt_t *)0x1, *u = NULL, *types[2] = { I32, NULL };
    char buf[64];
    size_t pos = 0;

    CU_ASSERT_EQUAL(loom_dt_create_contiguous(-1, I32, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dt_create_contiguous(1, NULL, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dt_create_vector(2, -1, 1, I32, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dt_create_indexed(2, bl, d, I32, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dt_create_hindexed(-2, bl, hd, I32, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dt_create_struct(2, d, hd, types, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dt_create_hvector(3, 1, PTRDIFF_MAX / 2, I32, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dt_create_vector(INT64_MAX / 2, 4, 1, I32, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dt_create_resized(I32, PTRDIFF_MAX, 1, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dt_create_subarray(2, sizes, sub, start, 0, I32, &t), LOOM_ERR_INVALID_ARG);
    sub[1] = 2, start[1] = 3;
    CU_ASSERT_EQUAL(loom_dt_create_subarray(2, sizes, sub, start, 0, I32, &t), LOOM_ERR_INVALID_ARG);
    start[1] = 2;
    CU_ASSERT_EQUAL(loom_dt_create_subarray(2, sizes, sub, start, 5, I32, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dt_create_subarray(0, sizes, sub, start, 0, I32, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dt_create_darray(3, 3, 1, &g, &block, &dflt, &p3, 0, I32, &t),
                    LOOM_ERR_INVALID_ARG);      /* rank out of range */
    CU_ASSERT_EQUAL(loom_dt_create_darray(4, 0, 1, &g, &block, &dflt, &p3, 0, I32, &t),
                    LOOM_ERR_INVALID_ARG);      /* grid of 3 for 4 processes */
    CU_ASSERT_EQUAL(loom_dt_create_darray(3, 0, 1, &g, &block, &small, &p3, 0, I32, &t),
                    LOOM_ERR_INVALID_ARG);      /* 3 blocks of 2 < 10 */
    CU_ASSERT_EQUAL(loom_dt_create_darray(3, 0, 1, &g, &none, &dflt, &p3, 0, I32, &t),
                    LOOM_ERR_INVALID_ARG);      /* not distributed over 3 */
    CU_ASSERT_EQUAL(loom_dt_create_darray(3, 0, 1, &g, &bad, &dflt, &p3, 0, I32, &t),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dt_create_indexed(2, NULL, d, I32, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dt_create_hindexed(2, bl, NULL, I32, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dt_create_struct(2, bl, hd, NULL, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dt_create_indexed_block(1, -3, d, I32, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_PTR_EQUAL(t, (loom_dt_t *)0x1);   /* untouched on error */
    /* empty types are valid: size 0, bounds 0 */
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_struct(0, NULL, NULL, NULL, &u), LOOM_OK);
    expect(u, 0, 0, 0, 0, 0);
    CU_ASSERT_EQUAL(loom_dt_commit(u), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_pack_range(buf, 5, u, 0, 0, buf + 32), LOOM_OK);
    loom_dt_release(u);
    u = NULL;
    CU_ASSERT_PTR_NULL(loom_dt_basic(LOOM_DATATYPE_COUNT));
    /* movement: uncommitted, past the end, short buffers */
    CU_ASSERT_EQUAL(loom_dt_create_contiguous(2, I32, &u), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_pack_range(buf, 1, u, 0, 8, buf + 32), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dt_commit(u), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_pack_range(buf, 1, u, 4, 5, buf + 32), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(loom_dt_pack_range(buf, SIZE_MAX / 4, u, 0, 1, buf + 32),
                    LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dt_pack_external32(buf, 2, u, buf + 32, 15, &pos), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(pos, 0);
    loom_dt_release(u);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "vector, hvector, negative strides", test_vector },
        { "indexed family", test_indexed },
        { "struct alignment and the pairs", test_struct_alignment },
        { "resized markers, dup", test_resized },
        { "subarray C and Fortran", test_subarray },
        { "darray block and cyclic", test_darray },
        { "commit: contiguous after all", test_commit_optimisations },
        { "envelope and contents rebuild the type", test_envelope_contents },
        { "errors", test_errors },
        { NULL, NULL },
    };
    return loom_test_run_suite("datatype constructors", cases, NULL, NULL);
}
