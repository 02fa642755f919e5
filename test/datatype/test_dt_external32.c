/*
 * test_dt_external32.c: external32 byte order and sizes on known values
 * (MPI-3.1 13.5.2: big-endian, IEEE formats, long double as binary128,
 * pairs without padding), round trips of every basic type including
 * long double, and get_elements on partial data of the pairs and of a
 * struct (counts, and LOOM_UNDEFINED inside an element).
 */
#include "../common/cunit_main.h"
#include "dt_ref.h"

static void pack_bytes(const void *in, size_t count, loom_datatype_t b, const char *want,
                       size_t n)
{
    unsigned char out[64];
    size_t pos = 0, sz = 0;

    CU_ASSERT_EQUAL(loom_dt_external32_size(count, loom_dt_basic(b), &sz), LOOM_OK);
    CU_ASSERT_EQUAL(sz, n);
    CU_ASSERT_EQUAL_FATAL(loom_dt_pack_external32(in, count, loom_dt_basic(b), out, sizeof(out),
                                                  &pos), LOOM_OK);
    CU_ASSERT_EQUAL(pos, n);
    CU_ASSERT(memcmp(out, want, n) == 0);
}

static void test_known_values(void)
{
    int32_t i32 = 0x01020304;
    int16_t i16 = 0x0102;
    uint64_t u64 = 0x0102030405060708ull;
    double one = 1.0;
    float fone = 1.0f;
    float _Complex fc = 1.0f + 2.0f * __extension__ 1.0iF;
    struct { double v; int i; } di = { 1.0, 7 };
    struct { short v; int i; } si = { 0x0102, 0x0a0b0c0d };
    long double ld = 1.0L;

    pack_bytes(&i32, 1, LOOM_INT32, "\x01\x02\x03\x04", 4);
    pack_bytes(&i16, 1, LOOM_INT16, "\x01\x02", 2);
    pack_bytes(&u64, 1, LOOM_UINT64, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    pack_bytes(&one, 1, LOOM_DOUBLE, "\x3f\xf0\0\0\0\0\0\0", 8);
    pack_bytes(&fone, 1, LOOM_FLOAT, "\x3f\x80\0\0", 4);
    pack_bytes(&fc, 1, LOOM_FLOAT_COMPLEX, "\x3f\x80\0\0\x40\0\0\0", 8);
    pack_bytes(&di, 1, LOOM_DOUBLE_INT, "\x3f\xf0\0\0\0\0\0\0\0\0\0\x07", 12);
    pack_bytes(&si, 1, LOOM_SHORT_INT, "\x01\x02\x0a\x0b\x0c\x0d", 6);
    pack_bytes(&ld, 1, LOOM_LONG_DOUBLE, "\x3f\xff\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
}

static void test_round_trips(void)
{
    long double ld[4] = { 1.5L, -3.25L, 1e300L * 1e300L, 0x1.23456789abcdef12p-16400L };
    long double back[4];
    struct { long double v; int i; } ldi[2] = { { -0.5L, 3 }, { 2.0L, -9 } }, ldi2[2];
    double d[3] = { -0.0, 3.141592653589793, 1e-310 }, d2[3];
    unsigned char buf[256];
    size_t pos = 0, rpos = 0;
    loom_dt_t *ldt = loom_dt_basic(LOOM_LONG_DOUBLE);

    CU_ASSERT_EQUAL(loom_dt_pack_external32(ld, 4, ldt, buf, sizeof(buf), &pos), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_pack_external32(ldi, 2, loom_dt_basic(LOOM_LONG_DOUBLE_INT), buf,
                                            sizeof(buf), &pos), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_pack_external32(d, 3, loom_dt_basic(LOOM_DOUBLE), buf, sizeof(buf),
                                            &pos), LOOM_OK);
    CU_ASSERT_EQUAL(pos, 64 + 40 + 24);
    CU_ASSERT_EQUAL(loom_dt_unpack_external32(buf, pos, &rpos, back, 4, ldt), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_unpack_external32(buf, pos, &rpos, ldi2, 2,
                                              loom_dt_basic(LOOM_LONG_DOUBLE_INT)), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_unpack_external32(buf, pos, &rpos, d2, 3,
                                              loom_dt_basic(LOOM_DOUBLE)), LOOM_OK);
    CU_ASSERT_EQUAL(rpos, pos);
    for (int i = 0; i < 4; ++i) {
        CU_ASSERT(back[i] == ld[i]);
    }
    CU_ASSERT(ldi2[0].v == -0.5L && ldi2[0].i == 3 && ldi2[1].v == 2.0L && ldi2[1].i == -9);
    CU_ASSERT(memcmp(d, d2, sizeof(d)) == 0);
    rpos = pos - 1;
    CU_ASSERT_EQUAL(loom_dt_unpack_external32(buf, pos, &rpos, d2, 1,
                                              loom_dt_basic(LOOM_DOUBLE)), LOOM_ERR_TRUNCATED);
}

static void test_get_elements(void)
{
    int64_t e = 0, bl[2] = { 2, 1 };
    ptrdiff_t d[2] = { 0, 16 };
    loom_dt_t *types[2] = { loom_dt_basic(LOOM_DOUBLE_INT), loom_dt_basic(LOOM_INT16) };
    loom_dt_t *s = NULL, *dint = types[0];
    static const struct { size_t nb; int64_t e; } cases[] = {
        { 0, 0 }, { 8, 1 }, { 12, 2 }, { 20, 3 }, { 24, 4 }, { 26, 5 }, { 27, LOOM_UNDEFINED },
        { 34, 6 }, { 52, 10 }, { 5, LOOM_UNDEFINED },
    };

    CU_ASSERT_EQUAL(loom_dt_get_elements(dint, 12 * 3, &e), LOOM_OK);
    CU_ASSERT_EQUAL(e, 6);
    CU_ASSERT_EQUAL(loom_dt_get_elements(dint, 12 * 3 + 8, &e), LOOM_OK);
    CU_ASSERT_EQUAL(e, 7);
    CU_ASSERT_EQUAL(loom_dt_get_elements(dint, 12 * 3 + 9, &e), LOOM_OK);
    CU_ASSERT_EQUAL(e, LOOM_UNDEFINED);
    /* { 2 x double_int, short }: 26 bytes, 5 elements per instance */
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_struct(2, bl, d, types, &s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_size(s), 26);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        e = -1;
        CU_ASSERT_EQUAL(loom_dt_get_elements(s, cases[i].nb, &e), LOOM_OK);
        CU_ASSERT_EQUAL(e, cases[i].e);
    }
    loom_dt_release(s);
}

/* C long: 4 big-endian bytes (MPI-3.1 Table 13.2), sign- or zero-extended back;
 * a value past 32 bits refuses the whole pack; LONG_INT's value is one */
static void test_c_long(void)
{
    loom_dt_t *sl = loom_dt_basic_c_long(0), *ul = loom_dt_basic_c_long(1), *v = NULL;
    long in[3] = { 0x01020304L, -2L, 7L }, back[3] = { 0 };
    unsigned long uin[2] = { 0xfffffffeUL, 5UL }, uback[2] = { 0 };
    struct { long v; int i; } li = { -3L, 9 }, li2 = { 0, 0 };
    unsigned char out[32];
    size_t pos = 0, rpos = 0, sz = 0;

    CU_ASSERT_EQUAL(loom_dt_basic_of(sl), sizeof(long) == 8 ? LOOM_INT64 : LOOM_INT32);
    CU_ASSERT_EQUAL(loom_dt_basic_of(ul), sizeof(long) == 8 ? LOOM_UINT64 : LOOM_UINT32);
    CU_ASSERT_EQUAL(loom_dt_size(sl), sizeof(long));
    CU_ASSERT_EQUAL(loom_dt_external32_size(3, sl, &sz), LOOM_OK);
    CU_ASSERT_EQUAL(sz, 12);
    CU_ASSERT_EQUAL_FATAL(loom_dt_pack_external32(in, 3, sl, out, sizeof(out), &pos), LOOM_OK);
    CU_ASSERT_EQUAL(pos, 12);
    CU_ASSERT(memcmp(out, "\x01\x02\x03\x04\xff\xff\xff\xfe\0\0\0\x07", 12) == 0);
    CU_ASSERT_EQUAL(loom_dt_unpack_external32(out, pos, &rpos, back, 3, sl), LOOM_OK);
    CU_ASSERT(back[0] == in[0] && back[1] == -2L && back[2] == 7L);
    pos = rpos = 0;
    CU_ASSERT_EQUAL(loom_dt_pack_external32(uin, 2, ul, out, sizeof(out), &pos), LOOM_OK);
    CU_ASSERT(memcmp(out, "\xff\xff\xff\xfe\0\0\0\x05", 8) == 0);
    CU_ASSERT_EQUAL(loom_dt_unpack_external32(out, pos, &rpos, uback, 2, ul), LOOM_OK);
    CU_ASSERT(uback[0] == 0xfffffffeUL && uback[1] == 5UL);
    /* the pair: 4 + 4 bytes */
    pos = rpos = 0;
    CU_ASSERT_EQUAL(loom_dt_external32_size(1, loom_dt_basic(LOOM_LONG_INT), &sz), LOOM_OK);
    CU_ASSERT_EQUAL(sz, 8);
    CU_ASSERT_EQUAL(loom_dt_pack_external32(&li, 1, loom_dt_basic(LOOM_LONG_INT), out,
                                            sizeof(out), &pos), LOOM_OK);
    CU_ASSERT(memcmp(out, "\xff\xff\xff\xfd\0\0\0\x09", 8) == 0);
    CU_ASSERT_EQUAL(loom_dt_unpack_external32(out, pos, &rpos, &li2, 1,
                                              loom_dt_basic(LOOM_LONG_INT)), LOOM_OK);
    CU_ASSERT(li2.v == -3L && li2.i == 9);
    if (sizeof(long) == 8) {
        /* out of range, inside a derived type: refused, nothing written */
        long big[3] = { 1L, (long)INT32_MAX + 1, 2L };
        unsigned long ubig[1] = { (unsigned long)UINT32_MAX + 1 };

        CU_ASSERT_EQUAL_FATAL(loom_dt_create_contiguous(3, sl, &v), LOOM_OK);
        CU_ASSERT_EQUAL_FATAL(loom_dt_commit(v), LOOM_OK);
        memset(out, 0xee, sizeof(out));
        pos = 0;
        CU_ASSERT_EQUAL(loom_dt_pack_external32(big, 1, v, out, sizeof(out), &pos),
                        LOOM_ERR_INVALID_ARG);
        CU_ASSERT_EQUAL(pos, 0);
        CU_ASSERT(out[0] == 0xee && out[11] == 0xee);
        big[1] = INT32_MIN - 1L;
        CU_ASSERT_EQUAL(loom_dt_pack_external32(big, 1, v, out, sizeof(out), &pos),
                        LOOM_ERR_INVALID_ARG);
        big[1] = INT32_MIN;
        CU_ASSERT_EQUAL(loom_dt_pack_external32(big, 1, v, out, sizeof(out), &pos), LOOM_OK);
        CU_ASSERT_EQUAL(loom_dt_pack_external32(ubig, 1, ul, out, sizeof(out), &pos),
                        LOOM_ERR_INVALID_ARG);
        loom_dt_release(v);
    }
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "external32 known values", test_known_values },
        { "external32 round trips (long double too)", test_round_trips },
        { "get_elements on partial data", test_get_elements },
        { "C long: 4 bytes in external32, range checked", test_c_long },
        { NULL, NULL },
    };
    return loom_test_run_suite("datatype external32", cases, NULL, NULL);
}
