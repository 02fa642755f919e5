/*
 * test_rma_pure.c: the pure parts of the one-sided layer, without a job:
 * the epoch state machine (every legal and illegal transition), target
 * layouts as segments and their range check (contiguous, vector, negative
 * lower bound, count 0), and the application of put/get/accumulate/
 * get_accumulate/fetch-and-op/compare-and-swap, every predefined op plus
 * REPLACE and NO_OP, with exact values, and which pairs are padded.
 */
#include "../common/cunit_main.h"
#include "rma_priv.h"

#include <string.h>

#define I32 loom_dt_basic(LOOM_INT32)

static void test_epoch_fence_lock(void)
{
    loom_rma_epoch_t e;

    CU_ASSERT_EQUAL_FATAL(loom_rma_epoch_init(&e, 3), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 0), LOOM_RMA_ERR_SYNC);   /* no epoch */
    CU_ASSERT_EQUAL(loom_rma_epoch_flush(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_unlock(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_complete(&e), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_wait(&e), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_fence(&e, 0), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 2), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 3), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_rma_epoch_fence(&e, LOOM_RMA_MODE_NOSUCCEED), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 0), LOOM_RMA_ERR_SYNC);
    /* lock two targets; fence, lock_all and start are refused inside */
    CU_ASSERT_EQUAL(loom_rma_epoch_lock(&e, 1), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_lock(&e, 1), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_lock(&e, 2), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 1), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_flush(&e, 2), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_flush(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_flush(&e, -1), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_fence(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_lock_all(&e), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_idle(&e), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_unlock(&e, 1), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 2), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_unlock(&e, 2), LOOM_OK);
    CU_ASSERT_EQUAL(e.access, LOOM_RMA_ACCESS_NONE);
    CU_ASSERT_EQUAL(loom_rma_epoch_idle(&e), LOOM_OK);
    /* lock_all */
    CU_ASSERT_EQUAL(loom_rma_epoch_lock_all(&e), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 0), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_lock(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_unlock(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_unlock_all(&e), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_unlock_all(&e), LOOM_RMA_ERR_SYNC);
    loom_rma_epoch_fini(&e);
}

static void test_epoch_pscw(void)
{
    loom_rma_epoch_t e;
    int g[] = { 0, 2 }, bad[] = { 5 };

    CU_ASSERT_EQUAL_FATAL(loom_rma_epoch_init(&e, 3), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_start(&e, 1, bad), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_rma_epoch_start(&e, 2, g), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 2), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 1), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_start(&e, 2, g), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_lock(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_flush(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_post(&e), LOOM_OK);    /* exposure beside access */
    CU_ASSERT_EQUAL(loom_rma_epoch_post(&e), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_complete(&e), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_access(&e, 0), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_fence(&e, 0), LOOM_RMA_ERR_SYNC);   /* still exposed */
    CU_ASSERT_EQUAL(loom_rma_epoch_wait(&e), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_wait(&e), LOOM_RMA_ERR_SYNC);
    CU_ASSERT_EQUAL(loom_rma_epoch_fence(&e, 0), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_start(&e, 2, g), LOOM_OK);        /* after a fence */
    loom_rma_epoch_fini(&e);
}

static void test_segments(void)
{
    loom_rma_seg_t *s;
    size_t n, bytes;
    loom_dt_t *vec, *neg;

    CU_ASSERT_EQUAL_FATAL(loom_rma_seg_build(5, I32, &s, &n, &bytes), LOOM_OK);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(s[0].off, 0);
    CU_ASSERT_EQUAL(s[0].len, 20);
    CU_ASSERT_EQUAL(bytes, 20);
    CU_ASSERT_EQUAL(loom_rma_range_check(s, n, 0, 20), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_range_check(s, n, 4, 20), LOOM_RMA_ERR_RANGE);
    CU_ASSERT_EQUAL(loom_rma_range_check(s, n, -4, 40), LOOM_RMA_ERR_RANGE);
    free(s);
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_vector(3, 1, 2, I32, &vec), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(vec), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_rma_seg_build(2, vec, &s, &n, &bytes), LOOM_OK);
    /* extent 20: 0, 8, 16 | 20, 28, 36; 16 and 20 touch and merge */
    CU_ASSERT_EQUAL(bytes, 24);
    CU_ASSERT_EQUAL(n, 5);
    CU_ASSERT_EQUAL(s[1].off, 8);
    CU_ASSERT_EQUAL(s[2].off, 16);
    CU_ASSERT_EQUAL(s[2].len, 8);
    CU_ASSERT_EQUAL(s[3].off, 28);
    CU_ASSERT_EQUAL(loom_rma_range_check(s, n, 0, 40), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_range_check(s, n, 0, 39), LOOM_RMA_ERR_RANGE);
    free(s);
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_hvector(2, 1, -8, I32, &neg), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(neg), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_rma_seg_build(1, neg, &s, &n, &bytes), LOOM_OK);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(s[1].off, -8);
    CU_ASSERT_EQUAL(loom_rma_range_check(s, n, 0, 64), LOOM_RMA_ERR_RANGE);
    CU_ASSERT_EQUAL(loom_rma_range_check(s, n, 8, 64), LOOM_OK);
    free(s);
    CU_ASSERT_EQUAL_FATAL(loom_rma_seg_build(0, I32, &s, &n, &bytes), LOOM_OK);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(bytes, 0);
    free(s);
    loom_dt_release(vec);
    loom_dt_release(neg);
}

static void test_apply_ops(void)
{
    static const struct { loom_op_t op; int32_t t, in, want; } c[] = {
        { LOOM_SUM, 6, 3, 9 },   { LOOM_PROD, 6, 3, 18 }, { LOOM_MIN, 6, 3, 3 },
        { LOOM_MAX, 6, 3, 6 },   { LOOM_LAND, 6, 0, 0 },  { LOOM_LOR, 0, 3, 1 },
        { LOOM_LXOR, 6, 3, 0 },  { LOOM_BAND, 6, 3, 2 },  { LOOM_BOR, 6, 3, 7 },
        { LOOM_BXOR, 6, 3, 5 },  { LOOM_REPLACE, 6, 3, 3 }, { LOOM_RMA_OP_NO_OP, 6, 3, 6 },
    };
    loom_rma_seg_t seg = { 0, 4 };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); ++i) {
        int32_t t = c[i].t, f = -1;

        CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_GACC, c[i].op, LOOM_INT32, (char *)&t, &seg,
                                       1, &c[i].in, NULL, &f), LOOM_OK);
        CU_ASSERT_EQUAL(t, c[i].want);
        CU_ASSERT_EQUAL(f, c[i].t);
    }
    {
        struct { int32_t v, i; } t = { 5, 1 }, in = { 7, 2 };
        loom_rma_seg_t s8 = { 0, 8 };

        CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_ACC, LOOM_MAXLOC, LOOM_2INT, (char *)&t,
                                       &s8, 1, &in, NULL, NULL), LOOM_OK);
        CU_ASSERT_EQUAL(t.v, 7);
        CU_ASSERT_EQUAL(t.i, 2);
    }
    {
        double d = 1.5, in = 2.25;
        loom_rma_seg_t s8 = { 0, 8 };
        loom_rma_seg_t bad = { 0, 6 };

        CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_ACC, LOOM_SUM, LOOM_DOUBLE, (char *)&d,
                                       &s8, 1, &in, NULL, NULL), LOOM_OK);
        CU_ASSERT_EQUAL(d, 3.75);
        CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_ACC, LOOM_SUM, LOOM_DOUBLE, (char *)&d,
                                       &bad, 1, &in, NULL, NULL), LOOM_ERR_INVALID_TYPE);
        CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_ACC, LOOM_BAND, LOOM_DOUBLE, (char *)&d,
                                       &s8, 1, &in, NULL, NULL), LOOM_ERR_INVALID_OP);
    }
}

/* MAXLOC on packed double+int pairs whose target pieces split each element */
static void test_apply_pairs(void)
{
    struct { double v; int i; } t[2] = { { 1.0, 1 }, { 5.0, 2 } };
    loom_rma_seg_t segs[4] = { { 0, 8 }, { 8, 4 }, { 16, 8 }, { 24, 4 } };
    char in[24], fetch[24];
    double v;
    int i;

    v = 3.0, i = 7;
    memcpy(in, &v, 8), memcpy(in + 8, &i, 4);
    v = 4.0, i = 8;
    memcpy(in + 12, &v, 8), memcpy(in + 20, &i, 4);
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_GACC, LOOM_MAXLOC, LOOM_DOUBLE_INT, (char *)t,
                                   segs, 4, in, NULL, fetch), LOOM_OK);
    CU_ASSERT(t[0].v == 3.0 && t[0].i == 7);
    CU_ASSERT(t[1].v == 5.0 && t[1].i == 2);
    memcpy(&v, fetch, 8), memcpy(&i, fetch + 8, 4);
    CU_ASSERT(v == 1.0 && i == 1);   /* the old values, packed */
    memcpy(&v, fetch + 12, 8), memcpy(&i, fetch + 20, 4);
    CU_ASSERT(v == 5.0 && i == 2);
    /* a stream that is not whole pairs */
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_ACC, LOOM_MINLOC, LOOM_DOUBLE_INT, (char *)t,
                                   segs, 3, in, NULL, NULL), LOOM_ERR_INVALID_TYPE);
}

/* the pairs whose C bytes are not their packed stream (loom_dt_basic_padded, dt_int.h) */
static void test_pair_padded(void)
{
    CU_ASSERT_EQUAL(loom_dt_basic_padded(LOOM_DOUBLE_INT), 1);
    CU_ASSERT_EQUAL(loom_dt_basic_padded(LOOM_LONG_INT), 1);
    CU_ASSERT_EQUAL(loom_dt_basic_padded(LOOM_SHORT_INT), 1);
    CU_ASSERT_EQUAL(loom_dt_basic_padded(LOOM_LONG_DOUBLE_INT), 1);
    CU_ASSERT_EQUAL(loom_dt_basic_padded(LOOM_FLOAT_INT), 0);
    CU_ASSERT_EQUAL(loom_dt_basic_padded(LOOM_2INT), 0);
    CU_ASSERT_EQUAL(loom_dt_basic_padded(LOOM_DOUBLE), 0);
    CU_ASSERT_EQUAL(loom_dt_basic_padded(LOOM_INT32), 0);
}

static void test_apply_moves(void)
{
    int32_t mem[6] = { 0 }, in[3] = { 1, 2, 3 }, out[3] = { 0 }, f, cmp, nv;
    loom_rma_seg_t segs[2] = { { 4, 8 }, { 20, 4 } };   /* mem[1..2], mem[5] */
    loom_rma_seg_t one = { 0, 4 };

    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_PUT, LOOM_OP_NULL, LOOM_INT32, (char *)mem,
                                   segs, 2, in, NULL, NULL), LOOM_OK);
    CU_ASSERT(mem[0] == 0 && mem[1] == 1 && mem[2] == 2 && mem[3] == 0 && mem[5] == 3);
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_GET, LOOM_OP_NULL, LOOM_INT32, (char *)mem,
                                   segs, 2, NULL, NULL, out), LOOM_OK);
    CU_ASSERT(out[0] == 1 && out[1] == 2 && out[2] == 3);
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_ACC, LOOM_SUM, LOOM_INT32, (char *)mem,
                                   segs, 2, in, NULL, NULL), LOOM_OK);
    CU_ASSERT(mem[1] == 2 && mem[2] == 4 && mem[5] == 6);
    /* fetch-and-op and compare-and-swap on mem[0] */
    nv = 9;
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_FOP, LOOM_SUM, LOOM_INT32, (char *)mem, &one,
                                   1, &nv, NULL, &f), LOOM_OK);
    CU_ASSERT(f == 0 && mem[0] == 9);
    cmp = 8;
    nv = 100;
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_CAS, LOOM_REPLACE, LOOM_INT32, (char *)mem, &one,
                                   1, &nv, &cmp, &f), LOOM_OK);
    CU_ASSERT(f == 9 && mem[0] == 9);   /* no match: unchanged */
    cmp = 9;
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_CAS, LOOM_REPLACE, LOOM_INT32, (char *)mem, &one,
                                   1, &nv, &cmp, &f), LOOM_OK);
    CU_ASSERT(f == 9 && mem[0] == 100);
    CU_ASSERT_STRING_EQUAL(loom_rma_strerror(LOOM_RMA_ERR_SYNC),
                           "RMA call outside or against its epoch");
}

/* one 32/64-bit element's op at an odd address (the element path): old value fetched,
 * the sum wraps, the bytes around it untouched */
static void check_elem(loom_rma_kind_t kind, loom_op_t op, loom_datatype_t dt, size_t es,
                       uint64_t old, uint64_t in, uint64_t cmp)
{
    unsigned char mem[24], f[8] = { 0 }, inb[8], cmpb[8];
    loom_rma_seg_t seg = { 5, es };   /* mem + 3 + 5: odd */
    uint64_t mask = es == 8 ? UINT64_MAX : UINT32_MAX, want = old, got = 0, fetched = 0;
    uint32_t v4;

    memset(mem, 0xa5, sizeof(mem));
    if (es == 8) {
        memcpy(mem + 8, &old, 8);
        memcpy(inb, &in, 8);
        memcpy(cmpb, &cmp, 8);
    } else {
        v4 = (uint32_t)old;
        memcpy(mem + 8, &v4, 4);
        v4 = (uint32_t)in;
        memcpy(inb, &v4, 4);
        v4 = (uint32_t)cmp;
        memcpy(cmpb, &v4, 4);
    }
    if (kind == LOOM_RMA_K_CAS) {
        want = (old & mask) == (cmp & mask) ? in : old;
    } else if (op == LOOM_SUM) {
        want = old + in;
    } else if (op == LOOM_REPLACE) {
        want = in;
    }
    CU_ASSERT_EQUAL(loom_rma_apply(kind, op, dt, (char *)mem + 3, &seg, 1, inb, cmpb, f),
                    LOOM_OK);
    memcpy(&got, mem + 8, es);   /* little-endian host: the low bytes */
    memcpy(&fetched, f, es);
    CU_ASSERT_EQUAL(got, want & mask);
    if (kind != LOOM_RMA_K_ACC) {
        CU_ASSERT_EQUAL(fetched, old & mask);
    }
    for (size_t i = 0; i < sizeof(mem); ++i) {
        if (i < 8 || i >= 8 + es) {
            CU_ASSERT_EQUAL(mem[i], 0xa5);
        }
    }
}

static void test_apply_elem(void)
{
    static const loom_datatype_t dts[] = { LOOM_INT32, LOOM_UINT32, LOOM_INT64, LOOM_UINT64 };
    static const loom_op_t ops[] = { LOOM_SUM, LOOM_REPLACE, LOOM_RMA_OP_NO_OP };
    static const loom_rma_kind_t kinds[] = { LOOM_RMA_K_ACC, LOOM_RMA_K_GACC, LOOM_RMA_K_FOP };
    int64_t t2[2] = { 5, 7 }, in2[2] = { 1, 2 }, f2[2] = { 0 };
    loom_rma_seg_t two = { 0, 16 };

    for (size_t d = 0; d < 4; ++d) {
        size_t es = d < 2 ? 4 : 8;

        for (size_t k = 0; k < 3; ++k) {
            for (size_t o = 0; o < 3; ++o) {
                check_elem(kinds[k], ops[o], dts[d], es, UINT64_MAX - 1, 5, 0);   /* wraps */
                check_elem(kinds[k], ops[o], dts[d], es, 0x7fffffff, 1, 0);
            }
        }
        check_elem(LOOM_RMA_K_CAS, LOOM_REPLACE, dts[d], es, 41, 99, 41);   /* hit */
        check_elem(LOOM_RMA_K_CAS, LOOM_REPLACE, dts[d], es, 41, 99, 42);   /* miss */
    }
    /* two elements, and another op: the general path, same answers */
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_FOP, LOOM_SUM, LOOM_INT64, (char *)t2, &two, 1,
                                   in2, NULL, f2), LOOM_OK);
    CU_ASSERT(t2[0] == 6 && t2[1] == 9 && f2[0] == 5 && f2[1] == 7);
    two.len = 8;
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_FOP, LOOM_MAX, LOOM_INT64, (char *)t2, &two, 1,
                                   in2 + 1, NULL, f2), LOOM_OK);
    CU_ASSERT(t2[0] == 6 && f2[0] == 6);
    in2[1] = 10;
    CU_ASSERT_EQUAL(loom_rma_apply(LOOM_RMA_K_FOP, LOOM_MAX, LOOM_INT64, (char *)t2, &two, 1,
                                   in2 + 1, NULL, f2), LOOM_OK);
    CU_ASSERT(t2[0] == 10 && f2[0] == 6);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "epochs: fence, lock, lock_all", test_epoch_fence_lock },
        { "epochs: PSCW", test_epoch_pscw },
        { "segments and range checks", test_segments },
        { "apply: every op, REPLACE, NO_OP, pairs, errors", test_apply_ops },
        { "apply: put, get, accumulate, fetch-and-op, CAS", test_apply_moves },
        { "apply: MAXLOC on packed pairs split by the target's pieces", test_apply_pairs },
        { "pairs with padding: their C bytes are not the packed stream", test_pair_padded },
        { "apply: one 32/64-bit element (SUM, REPLACE, NO_OP, CAS), unaligned",
          test_apply_elem },
        { NULL, NULL },
    };
    return loom_test_run_suite("rma pure parts", cases, NULL, NULL);
}
