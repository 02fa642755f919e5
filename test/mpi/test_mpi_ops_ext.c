/*
 * test_mpi_ops_ext.c: the basic types appended to loom_datatype_t for MPI
 * (complex float/double/long double, bool): which operations are defined
 * (sum and prod on complex, land/lor/lxor on bool, replace on both, every
 * other pair refused with LOOM_ERR_INVALID_OP and the buffer untouched),
 * exact values of each kernel, sizes and names. The older types are
 * covered by test/coll/test_ops.c.
 */
#include "../common/cunit_main.h"
#include <loom.h>

#include <complex.h>
#include <stdbool.h>
#include <string.h>

#define N 19

static int allowed(loom_op_t op, loom_datatype_t dt)
{
    if (op == LOOM_REPLACE) {
        return 1;
    }
    if (dt == LOOM_BOOL) {
        return op == LOOM_LAND || op == LOOM_LOR || op == LOOM_LXOR;
    }
    return op == LOOM_SUM || op == LOOM_PROD;
}

static void test_defined(void)
{
    static char in[N * 32], io[N * 32], io0[N * 32];
    const loom_datatype_t types[] = {LOOM_FLOAT_COMPLEX, LOOM_DOUBLE_COMPLEX,
                                     LOOM_LONG_DOUBLE_COMPLEX, LOOM_BOOL};

    memset(in, 0, sizeof(in));
    memset(io0, 0, sizeof(io0));
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); ++t) {
        for (int op = LOOM_SUM; op < LOOM_OP_PREDEFINED_COUNT; ++op) {
            loom_status_t st;

            memcpy(io, io0, sizeof(io));
            st = loom_op_reduce(op, in, io, N, types[t]);
            if (allowed(op, types[t])) {
                CU_ASSERT_EQUAL(st, LOOM_OK);
            } else {
                CU_ASSERT_EQUAL(st, LOOM_ERR_INVALID_OP);
                CU_ASSERT(memcmp(io, io0, sizeof(io)) == 0);
            }
        }
    }
    CU_ASSERT_EQUAL(loom_datatype_size(LOOM_FLOAT_COMPLEX), sizeof(float complex));
    CU_ASSERT_EQUAL(loom_datatype_size(LOOM_DOUBLE_COMPLEX), sizeof(double complex));
    CU_ASSERT_EQUAL(loom_datatype_size(LOOM_LONG_DOUBLE_COMPLEX),
                    sizeof(long double complex));
    CU_ASSERT_EQUAL(loom_datatype_size(LOOM_BOOL), sizeof(bool));
    CU_ASSERT_STRING_EQUAL(loom_datatype_name(LOOM_DOUBLE_COMPLEX), "double_complex");
    CU_ASSERT_STRING_EQUAL(loom_datatype_name(LOOM_BOOL), "bool");
}

#define COMPLEX_VALUES(T, DT)                                                      \
    do {                                                                           \
        T a[N], b[N], s[N], p[N];                                                  \
        for (int i = 0; i < N; ++i) {                                              \
            a[i] = (T)((i % 5) - 2) + (T)(i % 3) * I;                              \
            b[i] = (T)(1 - i % 4) + (T)((i % 2) - 1) * I;                          \
            s[i] = b[i];                                                           \
            p[i] = b[i];                                                           \
        }                                                                          \
        CU_ASSERT_EQUAL(loom_op_reduce(LOOM_SUM, a, s, N, DT), LOOM_OK);           \
        CU_ASSERT_EQUAL(loom_op_reduce(LOOM_PROD, a, p, N, DT), LOOM_OK);          \
        for (int i = 0; i < N; ++i) {                                              \
            double ar = (i % 5) - 2, ai = i % 3, br = 1 - i % 4, bi = (i % 2) - 1; \
            CU_ASSERT(creal(s[i]) == ar + br && cimag(s[i]) == ai + bi);           \
            CU_ASSERT(creal(p[i]) == ar * br - ai * bi &&                          \
                      cimag(p[i]) == ar * bi + ai * br);                           \
        }                                                                          \
    } while (0)

static void test_complex_values(void)
{
    COMPLEX_VALUES(float complex, LOOM_FLOAT_COMPLEX);
    COMPLEX_VALUES(double complex, LOOM_DOUBLE_COMPLEX);
    COMPLEX_VALUES(long double complex, LOOM_LONG_DOUBLE_COMPLEX);
}

static void test_bool_values(void)
{
    const bool a[4] = {false, false, true, true}, b[4] = {false, true, false, true};
    const bool land[4] = {false, false, false, true}, lor[4] = {false, true, true, true};
    const bool lxor[4] = {false, true, true, false};
    bool r[4];

    memcpy(r, b, sizeof(r));
    CU_ASSERT_EQUAL(loom_op_reduce(LOOM_LAND, a, r, 4, LOOM_BOOL), LOOM_OK);
    CU_ASSERT(memcmp(r, land, sizeof(r)) == 0);
    memcpy(r, b, sizeof(r));
    CU_ASSERT_EQUAL(loom_op_reduce(LOOM_LOR, a, r, 4, LOOM_BOOL), LOOM_OK);
    CU_ASSERT(memcmp(r, lor, sizeof(r)) == 0);
    memcpy(r, b, sizeof(r));
    CU_ASSERT_EQUAL(loom_op_reduce(LOOM_LXOR, a, r, 4, LOOM_BOOL), LOOM_OK);
    CU_ASSERT(memcmp(r, lxor, sizeof(r)) == 0);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "which operations are defined", test_defined },
        { "complex sum and product", test_complex_values },
        { "bool logical operations", test_bool_values },
        { NULL, NULL },
    };
    return loom_test_run_suite("ops on complex and bool", cases, NULL, NULL);
}
