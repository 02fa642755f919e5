/*
 * test_dt_s14.c: the cursor entry points session 14 changed (datatype/
 * dt_cursor.c): a borrowed cursor (loom_dt_cursor_borrow, what an eager
 * typed send packs its frame with) takes no reference on its type, and a
 * cursor's pack and unpack walk without checking the range again, so
 * their own bounds must hold: a pack stops at the end of the stream, an
 * unpack past it is refused (LOOM_ERR_TRUNCATED) before anything is
 * written and leaves the position where it was.
 *
 * The type is a vector of 5 blocks of 3 int32 at a stride of 4: 60 packed
 * bytes of an 80-byte buffer, 4-byte gaps after each block. A reference
 * taken or dropped wrongly shows as a double free or a use after free
 * (run under ASan by make check).
 */
#include "../common/cunit_main.h"
#include "dt_int.h"

#include <stdint.h>
#include <string.h>

static loom_dt_t *vec_type(void)
{
    loom_dt_t *v = NULL;

    CU_ASSERT_EQUAL_FATAL(loom_dt_create_vector(5, 3, 4, loom_dt_basic(LOOM_INT32), &v),
                          LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(v), LOOM_OK);
    return v;
}

/* borrow: same bytes as init, in pieces; fini drops no reference */
static void test_borrow_pack(void)
{
    int32_t src[20], want[15], got[16];
    loom_dt_t *v = vec_type();
    loom_dt_cursor_t cur;
    size_t len = 0, pos = 0;

    for (int i = 0; i < 20; i++) {
        src[i] = 1000 + i;
    }
    for (int b = 0, k = 0; b < 5; b++) {
        for (int j = 0; j < 3; j++) {
            want[k++] = src[b * 4 + j];
        }
    }
    memset(got, 0x77, sizeof(got));
    CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_borrow(&cur, src, 1, v), LOOM_OK);
    CU_ASSERT_EQUAL(cur.total, 60);
    for (size_t step = 7; pos < 60; pos += len) {   /* pieces across block edges */
        CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_pack(&cur, (char *)got + pos, step, &len),
                              LOOM_OK);
        CU_ASSERT_FATAL(len > 0);
    }
    CU_ASSERT_EQUAL(loom_dt_cursor_pack(&cur, (char *)got + 60, 4, &len), LOOM_OK);
    CU_ASSERT_EQUAL(len, 0);   /* at the end: nothing more, nothing written */
    CU_ASSERT_EQUAL(memcmp(got, want, 60), 0);
    CU_ASSERT_EQUAL(got[15], 0x77777777);
    loom_dt_cursor_fini(&cur);
    CU_ASSERT_PTR_NULL(cur.dt);
    loom_dt_cursor_fini(&cur);   /* twice: harmless */
    loom_dt_release(v);          /* the only reference: the cursor took none */
}

/* unpack past the end: refused, nothing written, position kept */
static void test_unpack_bounds(void)
{
    int32_t dst[20], stream[16];
    loom_dt_t *v = vec_type();
    loom_dt_cursor_t cur;

    for (int i = 0; i < 16; i++) {
        stream[i] = -i - 1;
    }
    memset(dst, 0x11, sizeof(dst));
    CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_init(&cur, dst, 1, v), LOOM_OK);
    loom_dt_release(v);   /* the cursor's reference keeps the type alive */
    CU_ASSERT_EQUAL(loom_dt_cursor_unpack(&cur, stream, 20), LOOM_OK);
    CU_ASSERT_EQUAL(cur.pos, 20);
    CU_ASSERT_EQUAL(loom_dt_cursor_unpack(&cur, stream + 5, 44), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(cur.pos, 20);
    CU_ASSERT_EQUAL(dst[6], 0x11111111);   /* stream byte 20 lands at element 6 */
    CU_ASSERT_EQUAL(loom_dt_cursor_unpack(&cur, stream + 5, 40), LOOM_OK);
    CU_ASSERT_EQUAL(cur.pos, 60);
    for (int b = 0, k = 0; b < 5; b++) {
        for (int j = 0; j < 4; j++) {
            if (j < 3) {
                CU_ASSERT_EQUAL(dst[b * 4 + j], -(++k));
            } else {
                CU_ASSERT_EQUAL(dst[b * 4 + j], 0x11111111);   /* the gaps */
            }
        }
    }
    CU_ASSERT_EQUAL(loom_dt_cursor_unpack(&cur, stream, 1), LOOM_ERR_TRUNCATED);
    loom_dt_cursor_fini(&cur);   /* drops the last reference */
}

/* borrow checks as init does */
static void test_borrow_checks(void)
{
    loom_dt_t *v = NULL;
    loom_dt_cursor_t cur;

    CU_ASSERT_EQUAL(loom_dt_cursor_borrow(&cur, NULL, 1, NULL), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_vector(2, 1, 2, loom_dt_basic(LOOM_INT32), &v),
                          LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_cursor_borrow(&cur, NULL, 1, v), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(v), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_cursor_borrow(&cur, NULL, SIZE_MAX / 2, v),
                    LOOM_ERR_INVALID_COUNT);
    loom_dt_release(v);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "borrowed cursor: packs in pieces, takes no reference", test_borrow_pack },
        { "cursor unpack past the end: refused, nothing written", test_unpack_bounds },
        { "borrowed cursor: checks the type and count", test_borrow_checks },
        { NULL, NULL },
    };

    return loom_test_run_suite("datatype: cursors (session 14)", cases, NULL, NULL);
}
