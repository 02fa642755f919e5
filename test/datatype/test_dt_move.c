/*
 * test_dt_move.c: loom_dt_move_range (the walker's MOVE op: the memory of
 * a byte range of (src, count, dt) copied to the same places of (dst,
 * count, dt), no stream between), checked against an independent path,
 * the pack of the range from src unpacked into a copy of dst:
 *   - vectors of 1, 4, 8, 16 and 24-byte blocks (every specialised loop
 *     and the generic one), positive and negative strides, one and three
 *     instances; a vector of vectors (planes of rows); an indexed list of
 *     byte runs resized with padding (commit's form of a struct: the
 *     runs loop); a struct mixing them;
 *   - every (offset, length) on a grid, so ranges start and end inside
 *     blocks and instances;
 *   - both buffers checked whole: what the range covers equals the
 *     reference, every other byte of dst keeps its poison, src unchanged;
 *   - a range past the stream's end is refused and writes nothing;
 *   - loom_dt_same_layout: two handles built alike have one layout; another
 *     stride, block length, count, resize or field order, or a type not
 *     committed, has not.
 */
#include "../common/cunit_main.h"
#include "dt_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MEM 8192

static unsigned char src[MEM], dst[MEM], ref[MEM], before[MEM];

/* the range [off, off + len) of the type at src + at moved to dst + at */
static void check_range(loom_dt_t *dt, size_t count, size_t at, size_t off, size_t len)
{
    unsigned char packed[MEM];

    memset(dst, 0xa5, MEM);
    memset(ref, 0xa5, MEM);
    memcpy(before, src, MEM);
    CU_ASSERT_EQUAL_FATAL(loom_dt_pack_range(src + at, count, dt, off, len, packed), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_unpack_range(ref + at, count, dt, off, len, packed), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_move_range(dst + at, src + at, count, dt, off, len), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(memcmp(dst, ref, MEM), 0);
    CU_ASSERT_EQUAL_FATAL(memcmp(src, before, MEM), 0);
}

/* every offset and length on a grid of (count, dt) at src + at */
static void check_type(loom_dt_t *dt, size_t count, size_t at)
{
    size_t total = loom_dt_size(dt) * count;

    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(dt), LOOM_OK);
    for (size_t off = 0; off < total; off += 5) {
        for (size_t len = 1; off + len <= total; len += 7) {
            check_range(dt, count, at, off, len);
        }
    }
    check_range(dt, count, at, 0, total);
}

static void fill(void)
{
    for (size_t i = 0; i < MEM; ++i) {
        src[i] = (unsigned char)(i * 13 + 7);
    }
}

static void test_vectors(void)
{
    static const size_t bs[] = { 1, 4, 8, 16, 24 };

    fill();
    for (size_t b = 0; b < 5; ++b) {
        for (int sign = 1; sign >= -1; sign -= 2) {
            loom_dt_t *v = NULL;
            ptrdiff_t stride = sign * (ptrdiff_t)(bs[b] * 3);
            /* negative strides walk down from the middle of the buffers */
            size_t at = sign > 0 ? 0 : MEM / 2;

            CU_ASSERT_EQUAL_FATAL(loom_dt_create_hvector(11, (int64_t)bs[b], stride,
                                                         loom_dt_basic(LOOM_INT8), &v),
                                  LOOM_OK);
            check_type(v, 1, at);
            check_type(v, 3, at);
            loom_dt_release(v);
        }
    }
}

static void test_nested(void)
{
    loom_dt_t *row = NULL, *plane = NULL, *runs = NULL, *rs = NULL, *s = NULL;
    int64_t bl[3] = { 4, 1, 2 }, sbl[2] = { 1, 2 };
    ptrdiff_t d[3] = { 0, 8, 17 }, sd[2] = { 0, 200 };
    loom_dt_t *types[3] = { loom_dt_basic(LOOM_INT8), loom_dt_basic(LOOM_INT64),
                            loom_dt_basic(LOOM_INT8) };
    loom_dt_t *st[2] = { NULL, NULL };

    fill();
    /* planes of rows: 6 rows of 8 doubles, 10 apart; planes 900 bytes apart */
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_vector(6, 8, 10, loom_dt_basic(LOOM_DOUBLE), &row),
                          LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_hvector(3, 1, 900, row, &plane), LOOM_OK);
    check_type(plane, 2, 0);
    /* a struct's runs {4 bytes, 8 bytes at 8, 2 bytes at 17}, resized to 24 */
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_struct(3, bl, d, types, &runs), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_resized(runs, 0, 24, &rs), LOOM_OK);
    check_type(rs, 40, 0);
    /* a struct of the two */
    st[0] = row;
    st[1] = rs;
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_struct(2, sbl, sd, st, &s), LOOM_OK);
    check_type(s, 3, 0);
    loom_dt_release(row);
    loom_dt_release(plane);
    loom_dt_release(runs);
    loom_dt_release(rs);
    loom_dt_release(s);
}

static void test_past_end(void)
{
    loom_dt_t *v = NULL;

    fill();
    memset(dst, 0xa5, MEM);
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_hvector(4, 8, 32, loom_dt_basic(LOOM_INT8), &v), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(v), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_move_range(dst, src, 1, v, 30, 3), LOOM_ERR_TRUNCATED);
    for (size_t i = 0; i < MEM; ++i) {
        CU_ASSERT_EQUAL_FATAL(dst[i], 0xa5);
    }
    loom_dt_release(v);
}

/* a vector of @p n blocks of @p bl doubles @p stride apart, committed unless @p raw */
static loom_dt_t *vec(int64_t n, int64_t bl, int64_t stride, int raw)
{
    loom_dt_t *v = NULL;

    CU_ASSERT_EQUAL_FATAL(loom_dt_create_vector(n, bl, stride, loom_dt_basic(LOOM_DOUBLE), &v),
                          LOOM_OK);
    if (!raw) {
        CU_ASSERT_EQUAL_FATAL(loom_dt_commit(v), LOOM_OK);
    }
    return v;
}

static void test_same_layout(void)
{
    loom_dt_t *a = vec(10, 2, 5, 0), *b = vec(10, 2, 5, 0), *raw = vec(10, 2, 5, 1);
    loom_dt_t *other[4] = { vec(10, 2, 6, 0), vec(10, 1, 5, 0), vec(9, 2, 5, 0), NULL };
    loom_dt_t *s1 = NULL, *s2 = NULL, *s3 = NULL;
    int64_t bl[2] = { 1, 1 };
    ptrdiff_t d[2] = { 0, 8 };
    loom_dt_t *t12[2] = { loom_dt_basic(LOOM_DOUBLE), loom_dt_basic(LOOM_INT32) };
    loom_dt_t *t21[2] = { loom_dt_basic(LOOM_INT32), loom_dt_basic(LOOM_DOUBLE) };

    CU_ASSERT_EQUAL_FATAL(loom_dt_create_resized(a, 0, 1000, &other[3]), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(other[3]), LOOM_OK);
    CU_ASSERT(loom_dt_same_layout(a, a));
    CU_ASSERT(loom_dt_same_layout(a, b));
    CU_ASSERT(loom_dt_same_layout(b, a));
    CU_ASSERT(!loom_dt_same_layout(a, raw));
    for (int i = 0; i < 4; ++i) {
        CU_ASSERT(!loom_dt_same_layout(a, other[i]));
        loom_dt_release(other[i]);
    }
    /* structs: the same fields alike; in another order (4-byte field first) not */
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_struct(2, bl, d, t12, &s1), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_struct(2, bl, d, t12, &s2), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_struct(2, bl, d, t21, &s3), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(s1), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(s2), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(s3), LOOM_OK);
    CU_ASSERT(loom_dt_same_layout(s1, s2));
    CU_ASSERT(!loom_dt_same_layout(s1, s3));
    loom_dt_release(s1);
    loom_dt_release(s2);
    loom_dt_release(s3);
    loom_dt_release(a);
    loom_dt_release(b);
    loom_dt_release(raw);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "vectors of 1-24 byte blocks against pack + unpack", test_vectors },
        { "planes of rows, struct runs, a struct of both", test_nested },
        { "a range past the end writes nothing", test_past_end },
        { "two types of one layout, and others", test_same_layout },
        { NULL, NULL },
    };
    return loom_test_run_suite("datatype move between two buffers", cases, NULL, NULL);
}
