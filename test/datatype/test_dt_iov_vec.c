/*
 * test_dt_iov_vec.c: loom_dt_iov over vectors of contiguous blocks (the
 * tight loop of dt_walk.c iov_strided that the typed rendezvous's get_iov
 * probe runs on every message), checked against the pack of the same
 * range, an independent path (copy_blocks):
 *   - for vectors of 1, 8 and 24-byte blocks, positive and negative
 *     strides, one and three instances, nested in an hvector and behind a
 *     contiguous field the first block extends (a struct), every (offset,
 *     length) on a grid and every array size from 1 to past the pieces:
 *     the bytes the pieces hold, in order, are the packed bytes of
 *     [offset, offset + *bytes), *bytes is the whole range unless the
 *     array filled, and no piece touches the next (they are maximal);
 *   - the first piece is the rest of a block entered in the middle.
 */
#include "../common/cunit_main.h"
#include "dt_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MEM 4096

static unsigned char mem[MEM];

/* compare the pieces of [off, off + len) of (buf, count, dt) with its pack */
static void check_range(const void *buf, size_t count, loom_dt_t *dt, size_t off, size_t len,
                        size_t max_iov)
{
    struct iovec iov[64];
    unsigned char packed[MEM], got[MEM];
    size_t n = 0, bytes = 0, at = 0;

    CU_ASSERT_EQUAL_FATAL(loom_dt_iov(buf, count, dt, off, len, iov, max_iov, &n, &bytes),
                          LOOM_OK);
    CU_ASSERT_FATAL(n <= max_iov && bytes <= len);
    if (n < max_iov) {
        CU_ASSERT_EQUAL_FATAL(bytes, len);   /* only a full array stops short */
    }
    for (size_t i = 0; i < n; ++i) {
        CU_ASSERT_FATAL(iov[i].iov_len > 0 && at + iov[i].iov_len <= bytes);
        memcpy(got + at, iov[i].iov_base, iov[i].iov_len);
        at += iov[i].iov_len;
        if (i > 0) {
            CU_ASSERT_FATAL((char *)iov[i - 1].iov_base + iov[i - 1].iov_len !=
                      (char *)iov[i].iov_base);
        }
    }
    CU_ASSERT_EQUAL_FATAL(at, bytes);
    CU_ASSERT_EQUAL_FATAL(loom_dt_pack_range(buf, count, dt, off, bytes, packed), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(memcmp(got, packed, bytes), 0);
}

/* every offset and length on a grid, every array size up to @p max_iov */
static void check_type(loom_dt_t *dt, const void *buf, size_t count)
{
    size_t total = loom_dt_size(dt) * count;

    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(dt), LOOM_OK);
    for (size_t off = 0; off < total; off += 3) {
        for (size_t len = 1; off + len <= total; len += 5) {
            for (size_t m = 1; m <= 40; m += 3) {
                check_range(buf, count, dt, off, len, m);
            }
        }
    }
}

static void test_blocks(void)
{
    static const size_t bs[] = { 1, 8, 24 };

    for (size_t i = 0; i < MEM; ++i) {
        mem[i] = (unsigned char)(i * 7 + 1);
    }
    for (size_t b = 0; b < 3; ++b) {
        for (int sign = 1; sign >= -1; sign -= 2) {
            loom_dt_t *v = NULL;
            ptrdiff_t stride = sign * (ptrdiff_t)(bs[b] * 3);
            /* negative strides walk down from the middle of the buffer */
            const void *buf = mem + (sign > 0 ? 0 : MEM / 2);

            CU_ASSERT_EQUAL_FATAL(loom_dt_create_hvector(9, (int)bs[b], stride, loom_dt_basic(LOOM_INT8),
                                                         &v), LOOM_OK);
            check_type(v, buf, 1);
            check_type(v, buf, 3);
            loom_dt_release(v);
        }
    }
}

static void test_nested(void)
{
    loom_dt_t *v = NULL, *h = NULL, *s = NULL;
    int64_t bl[2] = { 16, 1 };
    ptrdiff_t d[2] = { 0, 16 };
    loom_dt_t *types[2] = { loom_dt_basic(LOOM_INT8), NULL };

    /* a column of 8-byte blocks, three columns one plane apart */
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_hvector(10, 8, 40, loom_dt_basic(LOOM_INT8), &v), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_hvector(3, 1, 600, v, &h), LOOM_OK);
    check_type(h, mem, 1);
    /* 16 bytes, then the vector from byte 16: its first block extends them */
    types[1] = v;
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_struct(2, bl, d, types, &s), LOOM_OK);
    check_type(s, mem, 2);
    loom_dt_release(v);
    loom_dt_release(h);
    loom_dt_release(s);
}

static void test_first_piece(void)
{
    loom_dt_t *v = NULL;
    struct iovec iov[4];
    size_t n = 0, bytes = 0;

    CU_ASSERT_EQUAL_FATAL(loom_dt_create_hvector(5, 8, 32, loom_dt_basic(LOOM_INT8), &v), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(v), LOOM_OK);
    /* from byte 11: 5 bytes of block 1, then blocks 2 and 3, then 2 of 4 */
    CU_ASSERT_EQUAL(loom_dt_iov(mem, 1, v, 11, 23, iov, 4, &n, &bytes), LOOM_OK);
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_EQUAL(bytes, 23);
    CU_ASSERT_PTR_EQUAL(iov[0].iov_base, mem + 32 + 3);
    CU_ASSERT_EQUAL(iov[0].iov_len, 5);
    CU_ASSERT_PTR_EQUAL(iov[1].iov_base, mem + 64);
    CU_ASSERT_PTR_EQUAL(iov[3].iov_base, mem + 128);
    CU_ASSERT_EQUAL(iov[3].iov_len, 2);
    /* two pieces only: the array fills after 13 bytes */
    CU_ASSERT_EQUAL(loom_dt_iov(mem, 1, v, 11, 23, iov, 2, &n, &bytes), LOOM_OK);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(bytes, 13);
    loom_dt_release(v);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "vectors of 1, 8, 24-byte blocks against their pack", test_blocks },
        { "nested and extended by a field before them", test_nested },
        { "the first piece is the rest of a block", test_first_piece },
        { NULL, NULL },
    };
    return loom_test_run_suite("datatype pieces of vectors", cases, NULL, NULL);
}
