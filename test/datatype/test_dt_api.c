/*
 * test_dt_api.c: the native derived-datatype API of loom.h (loom_dtype_*),
 * through the public header only.
 *
 * Every constructor is checked against a layout written out by hand here:
 * the source is an int32 array whose element i holds i, so the packed
 * stream of a type must be exactly the list of element indices the type
 * selects, in order; unpacking that stream into a zeroed array must put
 * each value back and touch nothing else. Sizes, extents and true extents
 * are checked against hand-computed values. Then pack/unpack with a
 * position (several messages in one buffer), external32 byte order,
 * freeing types in use, and every error the API reports.
 */
#include "../common/cunit_main.h"
#include "loom.h"

#include <stdint.h>
#include <string.h>

#define NSRC 64
#define BASE 16 /* src[BASE] is where negative strides start from */

static int32_t src[NSRC];

static int setup(void)
{
    for (int i = 0; i < NSRC; ++i) {
        src[i] = i - BASE;
    }
    return 0;
}

/*
 * Commit @p t, pack @p count instances from src + BASE and compare with
 * the element indices @p want (relative to BASE); unpack into zeros and
 * compare; check size, lb and extent; free @p t.
 */
static void check_layout(loom_dtype_t t, size_t count, const int *want, size_t n,
                         ptrdiff_t lb, ptrdiff_t extent)
{
    int32_t packed[NSRC], back[NSRC];
    size_t size = 0, pos = 0, upos = 0;
    ptrdiff_t glb = -1, gext = -1;

    CU_ASSERT_EQUAL_FATAL(loom_dtype_commit(t), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_size(t, &size), LOOM_OK);
    CU_ASSERT_EQUAL(size * count, n * sizeof(int32_t));
    CU_ASSERT_EQUAL(loom_dtype_extent(t, &glb, &gext), LOOM_OK);
    CU_ASSERT_EQUAL(glb, lb);
    CU_ASSERT_EQUAL(gext, extent);
    CU_ASSERT_EQUAL(loom_dtype_pack_size(count, t, &size), LOOM_OK);
    CU_ASSERT_EQUAL(size, n * sizeof(int32_t));
    CU_ASSERT_EQUAL_FATAL(loom_dtype_pack(src + BASE, count, t, packed, sizeof(packed), &pos),
                          LOOM_OK);
    CU_ASSERT_EQUAL(pos, n * sizeof(int32_t));
    for (size_t i = 0; i < n; ++i) {
        CU_ASSERT_EQUAL(packed[i], want[i]);
    }
    memset(back, 0, sizeof(back));
    CU_ASSERT_EQUAL(loom_dtype_unpack(packed, pos, &upos, back + BASE, count, t), LOOM_OK);
    CU_ASSERT_EQUAL(upos, pos);
    for (int i = 0; i < NSRC; ++i) {
        int hit = 0;

        for (size_t k = 0; k < n; ++k) {
            hit |= want[k] == i - BASE;
        }
        CU_ASSERT_EQUAL(back[i], hit ? i - BASE : 0);
    }
    CU_ASSERT_EQUAL(loom_dtype_free(&t), LOOM_OK);
    CU_ASSERT_PTR_NULL(t);
}

#define WANT(...) (const int[]){ __VA_ARGS__ }, sizeof((int[]){ __VA_ARGS__ }) / sizeof(int)

static loom_dtype_t i32(void)
{
    return loom_dtype_basic(LOOM_INT32);
}

static void test_contiguous_vector(void)
{
    loom_dtype_t t = NULL;

    CU_ASSERT_EQUAL_FATAL(loom_dtype_contiguous(3, i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(0, 1, 2), 0, 12);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_vector(3, 2, 4, i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(0, 1, 4, 5, 8, 9), 0, 40);
    /* two instances: the second starts one extent (10 elements) on */
    CU_ASSERT_EQUAL_FATAL(loom_dtype_vector(2, 1, 3, i32(), &t), LOOM_OK);
    check_layout(t, 2, WANT(0, 3, 4, 7), 0, 16);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_vector(3, 1, -2, i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(0, -2, -4), -16, 20);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_hvector(3, 2, 16, i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(0, 1, 4, 5, 8, 9), 0, 40);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_vector(0, 2, 4, i32(), &t), LOOM_OK);
    check_layout(t, 1, NULL, 0, 0, 0);
}

static void test_indexed_family(void)
{
    loom_dtype_t t = NULL;
    size_t bl[] = { 2, 1, 3 };
    ptrdiff_t d[] = { 5, 0, 8 }, hd[] = { 20, 0, 32 };
    ptrdiff_t db[] = { 6, 1, 10 }, hdb[] = { 24, 4, 40 };

    CU_ASSERT_EQUAL_FATAL(loom_dtype_indexed(3, bl, d, i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(5, 6, 0, 8, 9, 10), 0, 44);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_hindexed(3, bl, hd, i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(5, 6, 0, 8, 9, 10), 0, 44);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_indexed_block(3, 2, db, i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(6, 7, 1, 2, 10, 11), 4, 44);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_hindexed_block(3, 2, hdb, i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(6, 7, 1, 2, 10, 11), 4, 44);
    /* count 0 takes NULL arrays */
    CU_ASSERT_EQUAL_FATAL(loom_dtype_indexed(0, NULL, NULL, i32(), &t), LOOM_OK);
    check_layout(t, 1, NULL, 0, 0, 0);
}

static void test_subarray_darray(void)
{
    loom_dtype_t t = NULL;
    size_t sizes[] = { 4, 5 }, sub[] = { 2, 3 }, starts[] = { 1, 1 };
    size_t g[] = { 4, 4 }, g1[] = { 6 };
    loom_dtype_distrib_t bb[] = { LOOM_DTYPE_DISTRIBUTE_BLOCK, LOOM_DTYPE_DISTRIBUTE_BLOCK };
    loom_dtype_distrib_t cy[] = { LOOM_DTYPE_DISTRIBUTE_CYCLIC };
    int dflt[] = { LOOM_DTYPE_DARG_DEFAULT, LOOM_DTYPE_DARG_DEFAULT }, one[] = { 1 };
    int grid[] = { 2, 2 }, two[] = { 2 };

    /* C order: rows 1..2, columns 1..3 of a 4x5 array */
    CU_ASSERT_EQUAL_FATAL(loom_dtype_subarray(2, sizes, sub, starts, LOOM_DTYPE_ORDER_C, i32(),
                                              &t), LOOM_OK);
    check_layout(t, 1, WANT(6, 7, 8, 11, 12, 13), 0, 80);
    /* Fortran order: dimension 0 (size 4) is fastest, index i + 4 j */
    CU_ASSERT_EQUAL_FATAL(loom_dtype_subarray(2, sizes, sub, starts, LOOM_DTYPE_ORDER_FORTRAN,
                                              i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(5, 6, 9, 10, 13, 14), 0, 80);
    /* rank 3 of a 2x2 grid owns the lower right 2x2 block of a 4x4 array */
    CU_ASSERT_EQUAL_FATAL(loom_dtype_darray(4, 3, 2, g, bb, dflt, grid, LOOM_DTYPE_ORDER_C,
                                            i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(10, 11, 14, 15), 0, 64);
    /* rank 1 of 2, cyclic(1) over 6 elements */
    CU_ASSERT_EQUAL_FATAL(loom_dtype_darray(2, 1, 1, g1, cy, one, two, LOOM_DTYPE_ORDER_C,
                                            i32(), &t), LOOM_OK);
    check_layout(t, 1, WANT(1, 3, 5), 0, 24);
}

static void test_resized_dup(void)
{
    loom_dtype_t r = NULL, v = NULL, d = NULL;

    CU_ASSERT_EQUAL_FATAL(loom_dtype_resized(i32(), 0, 12, &r), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_dup(r, &d), LOOM_OK);
    check_layout(r, 3, WANT(0, 3, 6), 0, 12);
    check_layout(d, 2, WANT(0, 3), 0, 12);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_vector(2, 2, 3, i32(), &v), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_commit(v), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_dup(v, &d), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_free(&v), LOOM_OK);
    check_layout(d, 1, WANT(0, 1, 3, 4), 0, 20);
}

static void test_struct(void)
{
    struct rec { int32_t a; double b; char c; } in[2] = { { 1, 2.5, 'x' }, { -3, 0.25, 'y' } };
    struct rec out[2];
    size_t bl[] = { 1, 1, 1 };
    ptrdiff_t d[] = { offsetof(struct rec, a), offsetof(struct rec, b),
                      offsetof(struct rec, c) };
    loom_dtype_t ty[] = { i32(), loom_dtype_basic(LOOM_DOUBLE), loom_dtype_basic(LOOM_INT8) };
    loom_dtype_t t = NULL;
    unsigned char buf[64];
    size_t size = 0, pos = 0, upos = 0;
    ptrdiff_t lb = -1, ext = -1, tlb = -1, text = -1;

    CU_ASSERT_EQUAL_FATAL(loom_dtype_struct(3, bl, d, ty, &t), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_commit(t), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_size(t, &size), LOOM_OK);
    CU_ASSERT_EQUAL(size, 13);
    CU_ASSERT_EQUAL(loom_dtype_extent(t, &lb, &ext), LOOM_OK);
    CU_ASSERT_EQUAL(lb, 0);
    CU_ASSERT_EQUAL(ext, (ptrdiff_t)sizeof(struct rec)); /* padded like C: 24 */
    CU_ASSERT_EQUAL(loom_dtype_true_extent(t, &tlb, &text), LOOM_OK);
    CU_ASSERT_EQUAL(tlb, 0);
    CU_ASSERT_EQUAL(text, (ptrdiff_t)offsetof(struct rec, c) + 1);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_pack(in, 2, t, buf, sizeof(buf), &pos), LOOM_OK);
    CU_ASSERT_EQUAL(pos, 26);
    CU_ASSERT(memcmp(buf, &in[0].a, 4) == 0 && memcmp(buf + 4, &in[0].b, 8) == 0);
    CU_ASSERT(buf[12] == 'x' && buf[25] == 'y');
    memset(out, 0, sizeof(out));
    CU_ASSERT_EQUAL(loom_dtype_unpack(buf, pos, &upos, out, 2, t), LOOM_OK);
    CU_ASSERT(out[0].a == 1 && out[0].b == 2.5 && out[0].c == 'x');
    CU_ASSERT(out[1].a == -3 && out[1].b == 0.25 && out[1].c == 'y');
    CU_ASSERT_EQUAL(loom_dtype_free(&t), LOOM_OK);
}

/* two messages in one buffer, unpacked in order; external32 of a vector */
static void test_positions_external32(void)
{
    int32_t a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 0 };
    double x[2] = { 1.0, -2.0 }, y[2] = { 0 };
    unsigned char buf[64], ext[64];
    size_t pos = 0, upos = 0, xsz = 0;
    loom_dtype_t v = NULL;

    CU_ASSERT_EQUAL_FATAL(loom_dtype_vector(3, 1, 2, i32(), &v), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_commit(v), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_pack(a, 1, v, buf, sizeof(buf), &pos), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_pack(x, 2, loom_dtype_basic(LOOM_DOUBLE), buf, sizeof(buf),
                                    &pos), LOOM_OK);
    CU_ASSERT_EQUAL(pos, 12 + 16);
    CU_ASSERT_EQUAL(loom_dtype_unpack(buf, pos, &upos, b, 1, v), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_unpack(buf, pos, &upos, y, 2, loom_dtype_basic(LOOM_DOUBLE)),
                    LOOM_OK);
    CU_ASSERT_EQUAL(upos, pos);
    CU_ASSERT(b[0] == 1 && b[1] == 0 && b[2] == 3 && b[3] == 0 && b[4] == 5 && b[5] == 0);
    CU_ASSERT(y[0] == 1.0 && y[1] == -2.0);

    pos = upos = 0;
    memset(b, 0, sizeof(b));
    CU_ASSERT_EQUAL(loom_dtype_external32_size(1, v, &xsz), LOOM_OK);
    CU_ASSERT_EQUAL(xsz, 12);
    CU_ASSERT_EQUAL(loom_dtype_pack_external32(a, 1, v, ext, sizeof(ext), &pos), LOOM_OK);
    CU_ASSERT_EQUAL(pos, 12);
    CU_ASSERT(memcmp(ext, "\0\0\0\x01\0\0\0\x03\0\0\0\x05", 12) == 0);
    CU_ASSERT_EQUAL(loom_dtype_unpack_external32(ext, pos, &upos, b, 1, v), LOOM_OK);
    CU_ASSERT(b[0] == 1 && b[2] == 3 && b[4] == 5 && b[1] == 0);
    CU_ASSERT_EQUAL(loom_dtype_free(&v), LOOM_OK);
}

/* a type freed while others are built on it keeps working through them */
static void test_free_in_use(void)
{
    loom_dtype_t c = NULL, v = NULL, s = NULL;
    size_t bl[] = { 1 };
    ptrdiff_t d[] = { 0 };

    CU_ASSERT_EQUAL_FATAL(loom_dtype_contiguous(2, i32(), &c), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_vector(2, 1, 2, c, &v), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_free(&c), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_struct(1, bl, d, &v, &s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_free(&v), LOOM_OK);
    check_layout(s, 1, WANT(0, 1, 4, 5), 0, 24);
}

static void test_errors_constructors(void)
{
    loom_dtype_t t = (loom_dtype_t)&t, in = i32();  /* t must stay untouched */
    loom_dtype_t const sentinel = t;
    size_t bl[] = { 1, SIZE_MAX }, sz[] = { 4, 4 }, sub[] = { 5, 1 }, st[] = { 0, 0 };
    ptrdiff_t d[] = { 0, 1 };
    loom_dtype_t ty[] = { in, NULL };
    loom_dtype_distrib_t bad[] = { (loom_dtype_distrib_t)7, LOOM_DTYPE_DISTRIBUTE_NONE };
    loom_dtype_distrib_t ok[] = { LOOM_DTYPE_DISTRIBUTE_BLOCK, LOOM_DTYPE_DISTRIBUTE_BLOCK };
    int dargs[] = { LOOM_DTYPE_DARG_DEFAULT, LOOM_DTYPE_DARG_DEFAULT }, zero[] = { 0, 0 };
    int grid[] = { 2, 2 };

    CU_ASSERT_PTR_NULL(loom_dtype_basic((loom_datatype_t)LOOM_DATATYPE_COUNT));
    CU_ASSERT_EQUAL(loom_dtype_contiguous(1, NULL, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_contiguous(1, in, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_contiguous(SIZE_MAX, in, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dtype_vector(SIZE_MAX, 1, 1, in, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dtype_vector(1, SIZE_MAX, 1, in, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dtype_vector(2, 1, PTRDIFF_MAX, in, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_hvector(1, 1, 1, NULL, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_indexed(2, NULL, d, in, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_indexed(2, bl, NULL, in, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_indexed(2, bl, d, in, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dtype_hindexed(2, bl, d, in, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dtype_hindexed(1, bl, d, NULL, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_indexed_block(2, 1, NULL, in, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_indexed_block(2, SIZE_MAX, d, in, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dtype_hindexed_block(1, 1, d, in, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_struct(2, bl, d, ty, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_struct(2, sz, d, NULL, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_struct(2, sz, d, ty, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_struct(1, NULL, d, ty, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_struct(1, bl + 1, d, ty, &t), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dtype_subarray(0, sz, sub, st, LOOM_DTYPE_ORDER_C, in, &t),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_subarray(65, sz, sub, st, LOOM_DTYPE_ORDER_C, in, &t),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_subarray(2, sz, sub, st, (loom_dtype_order_t)3, in, &t),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_subarray(2, NULL, sub, st, LOOM_DTYPE_ORDER_C, in, &t),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_subarray(2, sz, sub, st, LOOM_DTYPE_ORDER_C, in, &t),
                    LOOM_ERR_INVALID_ARG); /* subsizes[0] 5 > sizes[0] 4 */
    CU_ASSERT_EQUAL(loom_dtype_subarray(2, bl, sz, st, LOOM_DTYPE_ORDER_C, in, &t),
                    LOOM_ERR_INVALID_COUNT); /* sizes[1] past INT64_MAX */
    CU_ASSERT_EQUAL(loom_dtype_darray(4, 0, 2, sz, bad, dargs, grid, LOOM_DTYPE_ORDER_C, in,
                                      &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_darray(4, 0, 2, sz, ok, zero, grid, LOOM_DTYPE_ORDER_C, in, &t),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_darray(4, 4, 2, sz, ok, dargs, grid, LOOM_DTYPE_ORDER_C, in,
                                      &t), LOOM_ERR_INVALID_ARG); /* rank out of range */
    CU_ASSERT_EQUAL(loom_dtype_darray(4, 0, 2, sz, ok, dargs, NULL, LOOM_DTYPE_ORDER_C, in,
                                      &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_darray(4, 0, 0, sz, ok, dargs, grid, LOOM_DTYPE_ORDER_C, in,
                                      &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_resized(in, PTRDIFF_MAX, 8, &t), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_resized(NULL, 0, 8, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_dup(NULL, &t), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_dup(in, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_PTR_EQUAL(t, sentinel);
}

static void test_errors_lifetime_queries(void)
{
    loom_dtype_t in = i32(), v = NULL, none = NULL;
    size_t size = 7;
    ptrdiff_t lb = 7;

    CU_ASSERT_EQUAL(loom_dtype_commit(NULL), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_free(NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_free(&none), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_free(&in), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_PTR_EQUAL(in, i32());
    CU_ASSERT_EQUAL(loom_dtype_size(NULL, &size), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_size(in, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_extent(NULL, &lb, NULL), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_true_extent(NULL, &lb, NULL), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_pack_size(1, NULL, &size), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_pack_size(1, in, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_pack_size(SIZE_MAX, in, &size), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dtype_external32_size(1, NULL, &size), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_external32_size(1, in, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT(size == 7 && lb == 7);
    /* extent and true extent take NULL outputs */
    CU_ASSERT_EQUAL(loom_dtype_extent(in, NULL, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_true_extent(in, NULL, NULL), LOOM_OK);
    /* queries work before commit */
    CU_ASSERT_EQUAL_FATAL(loom_dtype_vector(2, 1, 3, in, &v), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_size(v, &size), LOOM_OK);
    CU_ASSERT_EQUAL(size, 8);
    CU_ASSERT_EQUAL(loom_dtype_free(&v), LOOM_OK);
}

static void test_errors_pack(void)
{
    int32_t a[8] = { 0 };
    unsigned char buf[16];
    size_t pos = 4;
    loom_dtype_t v = NULL, in = i32();

    CU_ASSERT_EQUAL_FATAL(loom_dtype_vector(2, 1, 2, in, &v), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_pack(a, 1, v, buf, sizeof(buf), &pos), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_unpack(buf, sizeof(buf), &pos, a, 1, v), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_pack_external32(a, 1, v, buf, sizeof(buf), &pos),
                    LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL_FATAL(loom_dtype_commit(v), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_pack(a, 1, NULL, buf, sizeof(buf), &pos),
                    LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dtype_pack(a, 1, v, buf, sizeof(buf), NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_pack(a, SIZE_MAX, v, buf, sizeof(buf), &pos),
                    LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_dtype_pack(a, 1, v, NULL, sizeof(buf), &pos),
                    LOOM_ERR_INVALID_BUFFER);
    pos = 17;
    CU_ASSERT_EQUAL(loom_dtype_pack(a, 1, v, buf, sizeof(buf), &pos), LOOM_ERR_INVALID_ARG);
    pos = 12; /* 8 bytes do not fit the 4 left: nothing written, position kept */
    memset(buf, 0xee, sizeof(buf));
    CU_ASSERT_EQUAL(loom_dtype_pack(a, 1, v, buf, sizeof(buf), &pos), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(pos, 12);
    CU_ASSERT(buf[12] == 0xee && buf[15] == 0xee);
    CU_ASSERT_EQUAL(loom_dtype_unpack(buf, sizeof(buf), &pos, a, 1, v), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(pos, 12);
    CU_ASSERT_EQUAL(loom_dtype_pack_external32(a, 2, v, buf, sizeof(buf), &pos),
                    LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(loom_dtype_unpack_external32(buf, sizeof(buf), &pos, a, 2, v),
                    LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(loom_dtype_pack_external32(a, 1, v, buf, sizeof(buf), NULL),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_dtype_unpack_external32(NULL, 8, &pos, a, 1, v),
                    LOOM_ERR_INVALID_BUFFER);
    CU_ASSERT_EQUAL(loom_dtype_unpack_external32(buf, sizeof(buf), &pos, a, 1, NULL),
                    LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(pos, 12);
    pos = 0;
    CU_ASSERT_EQUAL(loom_dtype_unpack(NULL, sizeof(buf), &pos, a, 1, v),
                    LOOM_ERR_INVALID_BUFFER);
    /* count 0 is a no-op even with NULL buffers */
    pos = 0;
    CU_ASSERT_EQUAL(loom_dtype_pack(NULL, 0, v, NULL, 0, &pos), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dtype_unpack(NULL, 0, &pos, NULL, 0, v), LOOM_OK);
    CU_ASSERT_EQUAL(pos, 0);
    CU_ASSERT_EQUAL(loom_dtype_free(&v), LOOM_OK);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "contiguous, vector, hvector", test_contiguous_vector },
        { "indexed, hindexed, indexed_block, hindexed_block", test_indexed_family },
        { "subarray (C, Fortran) and darray (block, cyclic)", test_subarray_darray },
        { "resized and dup", test_resized_dup },
        { "struct: size, padded extent, true extent, round trip", test_struct },
        { "positions across messages, external32 bytes", test_positions_external32 },
        { "freeing types in use", test_free_in_use },
        { "errors: constructors", test_errors_constructors },
        { "errors: lifetime and queries", test_errors_lifetime_queries },
        { "errors: pack, unpack, external32", test_errors_pack },
        { NULL, NULL },
    };
    return loom_test_run_suite("datatype native API", cases, setup, NULL);
}
