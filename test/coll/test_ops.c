/*
 * test_ops.c: every reduction kernel against a serial reference written
 * independently (64-bit integer arithmetic truncated to the type's width,
 * floating point in the type itself, pairs compared field by field), plus
 * the validity table (which op is defined for which type), user operations
 * and error reporting.
 */
#include <loom.h>
#include "../../collectives/op_int.h"

#include <CUnit/Basic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 257  /* odd, so vectorized loops also run their scalar tails */

typedef struct { float v; int i; }       p_fi;
typedef struct { double v; int i; }      p_di;
typedef struct { long v; int i; }        p_li;
typedef struct { int v; int i; }         p_ii;
typedef struct { short v; int i; }       p_si;
typedef struct { long double v; int i; } p_ldi;

static int is_int(loom_datatype_t dt)
{
    return dt >= LOOM_INT8 && dt <= LOOM_UINT64;
}

static int is_float(loom_datatype_t dt)
{
    return dt == LOOM_FLOAT || dt == LOOM_DOUBLE || dt == LOOM_LONG_DOUBLE;
}

static int is_pair(loom_datatype_t dt)
{
    return dt >= LOOM_FLOAT_INT && dt <= LOOM_LONG_DOUBLE_INT;
}

static size_t tsize(loom_datatype_t dt)
{
    static const size_t sz[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, sizeof(float), sizeof(double),
                                sizeof(long double), sizeof(p_fi), sizeof(p_di),
                                sizeof(p_li), sizeof(p_ii), sizeof(p_si), sizeof(p_ldi)};
    return sz[dt];
}

static int defined(loom_op_t op, loom_datatype_t dt)
{
    switch (op) {
    case LOOM_SUM: case LOOM_PROD: case LOOM_MIN: case LOOM_MAX:
        return is_int(dt) || is_float(dt);
    case LOOM_LAND: case LOOM_LOR: case LOOM_LXOR:
        return is_int(dt);
    case LOOM_BAND: case LOOM_BOR: case LOOM_BXOR:
        return is_int(dt) || dt == LOOM_BYTE;
    case LOOM_MINLOC: case LOOM_MAXLOC:
        return is_pair(dt);
    case LOOM_REPLACE:
        return 1;
    default:
        return 0;
    }
}

/* ---- integer reference: 64-bit, then truncated -------------------------------- */

static int64_t get_int(const void *buf, size_t i, loom_datatype_t dt)
{
    switch (dt) {
    case LOOM_BYTE: case LOOM_UINT8: return ((const uint8_t *)buf)[i];
    case LOOM_INT8:   return ((const int8_t *)buf)[i];
    case LOOM_INT16:  return ((const int16_t *)buf)[i];
    case LOOM_INT32:  return ((const int32_t *)buf)[i];
    case LOOM_INT64:  return ((const int64_t *)buf)[i];
    case LOOM_UINT16: return ((const uint16_t *)buf)[i];
    case LOOM_UINT32: return ((const uint32_t *)buf)[i];
    case LOOM_UINT64: return (int64_t)((const uint64_t *)buf)[i];
    default: return 0;
    }
}

static int64_t ref_int(loom_op_t op, int64_t a, int64_t b, loom_datatype_t dt)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    int lt = (dt == LOOM_UINT64) ? ua < ub : a < b;
    switch (op) {
    case LOOM_SUM:  return (int64_t)(ua + ub);
    case LOOM_PROD: return (int64_t)(ua * ub);
    case LOOM_MIN:  return lt ? a : b;
    case LOOM_MAX:  return lt ? b : a;
    case LOOM_LAND: return a && b;
    case LOOM_LOR:  return a || b;
    case LOOM_LXOR: return !a != !b;
    case LOOM_BAND: return a & b;
    case LOOM_BOR:  return a | b;
    case LOOM_BXOR: return a ^ b;
    case LOOM_REPLACE: return a;
    default: return 0;
    }
}

static int64_t trunc_int(int64_t x, loom_datatype_t dt)
{
    switch (dt) {
    case LOOM_BYTE: case LOOM_UINT8: return (uint8_t)x;
    case LOOM_INT8:   return (int8_t)x;
    case LOOM_INT16:  return (int16_t)x;
    case LOOM_INT32:  return (int32_t)x;
    case LOOM_UINT16: return (uint16_t)x;
    case LOOM_UINT32: return (uint32_t)x;
    default: return x;
    }
}

static void fill(void *buf, loom_datatype_t dt, unsigned seed)
{
    unsigned char *b = buf;
    srand(seed);
    for (size_t i = 0; i < N * tsize(dt); ++i) {
        b[i] = (unsigned char)rand();
    }
    /* sprinkle zeros so logical ops see both truth values; keep floats finite */
    for (size_t i = 0; i < N; ++i) {
        int z = rand() % 5 == 0;
        switch (dt) {
        case LOOM_FLOAT:  ((float *)buf)[i] = z ? 0 : (float)(rand() % 2001 - 1000) / 7.0f; break;
        case LOOM_DOUBLE: ((double *)buf)[i] = z ? 0 : (rand() % 2001 - 1000) / 7.0; break;
        case LOOM_LONG_DOUBLE:
            memset((long double *)buf + i, 0, sizeof(long double));
            ((long double *)buf)[i] = (rand() % 2001 - 1000) / 7.0L; break;
#define PAIR_FILL(T, VT)                                                      \
            memset((T *)buf + i, 0, sizeof(T));                               \
            ((T *)buf)[i].v = (VT)(rand() % 7); ((T *)buf)[i].i = rand() % 9; break;
        case LOOM_FLOAT_INT:       PAIR_FILL(p_fi, float)
        case LOOM_DOUBLE_INT:      PAIR_FILL(p_di, double)
        case LOOM_LONG_INT:        PAIR_FILL(p_li, long)
        case LOOM_2INT:            PAIR_FILL(p_ii, int)
        case LOOM_SHORT_INT:       PAIR_FILL(p_si, short)
        case LOOM_LONG_DOUBLE_INT: PAIR_FILL(p_ldi, long double)
        default:
            if (z) {
                memset(b + i * tsize(dt), 0, tsize(dt));
            }
        }
    }
}

#define FLOAT_REF(T)                                                           \
    {                                                                          \
        const T *x = in; const T *y = io0; T *z = exp;                         \
        for (size_t i = 0; i < N; ++i) {                                       \
            T a = x[i], b = y[i];                                              \
            z[i] = op == LOOM_SUM ? a + b : op == LOOM_PROD ? a * b            \
                 : op == LOOM_MIN ? (a < b ? a : b) : op == LOOM_MAX ? (a > b ? a : b) : a; \
        }                                                                      \
    }

#define PAIR_REF(T)                                                            \
    {                                                                          \
        const T *x = in; const T *y = io0; T *z = exp;                         \
        for (size_t i = 0; i < N; ++i) {                                       \
            int better = op == LOOM_MINLOC ? x[i].v < y[i].v : x[i].v > y[i].v; \
            z[i] = y[i];                                                       \
            if (op == LOOM_REPLACE || better) {                                \
                z[i] = x[i];                                                   \
            } else if (x[i].v == y[i].v) {                                     \
                z[i].i = x[i].i < y[i].i ? x[i].i : y[i].i;                    \
            }                                                                  \
        }                                                                      \
    }

static void reference(loom_op_t op, loom_datatype_t dt, const void *in, const void *io0,
                      void *exp)
{
    memcpy(exp, io0, N * tsize(dt));
    if (is_int(dt) || dt == LOOM_BYTE) {
        for (size_t i = 0; i < N; ++i) {
            int64_t r = trunc_int(ref_int(op, get_int(in, i, dt), get_int(io0, i, dt), dt), dt);
            memcpy((char *)exp + i * tsize(dt), &r, tsize(dt)); /* little-endian */
        }
    } else if (dt == LOOM_FLOAT) FLOAT_REF(float)
    else if (dt == LOOM_DOUBLE) FLOAT_REF(double)
    else if (dt == LOOM_LONG_DOUBLE) FLOAT_REF(long double)
    else if (dt == LOOM_FLOAT_INT) PAIR_REF(p_fi)
    else if (dt == LOOM_DOUBLE_INT) PAIR_REF(p_di)
    else if (dt == LOOM_LONG_INT) PAIR_REF(p_li)
    else if (dt == LOOM_2INT) PAIR_REF(p_ii)
    else if (dt == LOOM_SHORT_INT) PAIR_REF(p_si)
    else if (dt == LOOM_LONG_DOUBLE_INT) PAIR_REF(p_ldi)
}

/* compare element by element, ignoring padding bytes of long double / pairs */
static int same(loom_datatype_t dt, const void *a, const void *b)
{
    for (size_t i = 0; i < N; ++i) {
        const char *x = (const char *)a + i * tsize(dt), *y = (const char *)b + i * tsize(dt);
        switch (dt) {
        case LOOM_LONG_DOUBLE:
            if (memcmp(x, y, 10) != 0) return 0;
            break;
#define PAIR_SAME(T) if (((const T *)x)->v != ((const T *)y)->v || ((const T *)x)->i != ((const T *)y)->i) return 0; break;
        case LOOM_FLOAT_INT:       PAIR_SAME(p_fi)
        case LOOM_DOUBLE_INT:      PAIR_SAME(p_di)
        case LOOM_LONG_INT:        PAIR_SAME(p_li)
        case LOOM_2INT:            PAIR_SAME(p_ii)
        case LOOM_SHORT_INT:       PAIR_SAME(p_si)
        case LOOM_LONG_DOUBLE_INT: PAIR_SAME(p_ldi)
        default:
            if (memcmp(x, y, tsize(dt)) != 0) return 0;
        }
    }
    return 1;
}

static void test_every_pair(void)
{
    static char in[N * 32], io[N * 32], io0[N * 32], exp[N * 32];
    int checked = 0;

    for (int op = LOOM_SUM; op < LOOM_OP_PREDEFINED_COUNT; ++op) {
        for (int dt = 0; dt <= LOOM_LONG_DOUBLE_INT; ++dt) {  /* the later ones: test/mpi/test_mpi_ops_ext.c */
            loom_status_t st;
            fill(in, dt, 17u * (unsigned)op + (unsigned)dt);
            fill(io0, dt, 1000u + 31u * (unsigned)op + (unsigned)dt);
            memcpy(io, io0, sizeof(io));
            st = loom_op_reduce(op, in, io, N, dt);
            if (!defined(op, dt)) {
                CU_ASSERT_EQUAL(st, LOOM_ERR_INVALID_OP);
                CU_ASSERT(memcmp(io, io0, sizeof(io)) == 0); /* untouched */
                continue;
            }
            CU_ASSERT_EQUAL_FATAL(st, LOOM_OK);
            reference(op, dt, in, io0, exp);
            if (!same(dt, io, exp)) {
                fprintf(stderr, "mismatch: op %s type %s\n", loom_op_name(op), "?");
                CU_FAIL("kernel differs from the reference");
            }
            ++checked;
        }
    }
    CU_ASSERT(checked > 100);
}

/*
 * loom_op_kernel gives the table's kernel (NULL where undefined, for replace
 * and user ops); where loom_op_commutes_exactly says operands may swap,
 * in op inout and inout op in give the same bits (allreduce_cma.c relies on
 * it), including signed zeros; min/max on floating point must say no.
 */
static void test_kernel_and_commutes(void)
{
    static char a[N * 32], b[N * 32], ab[N * 32], ba[N * 32];
    int swapped = 0;

    for (int op = LOOM_SUM; op < LOOM_OP_PREDEFINED_COUNT; ++op) {
        for (int dt = 0; dt <= LOOM_LONG_DOUBLE_INT; ++dt) {  /* the later ones: test/mpi/test_mpi_ops_ext.c */
            loom_op_kernel_fn_t k = loom_op_kernel(op, dt);
            CU_ASSERT((k != NULL) == (defined(op, dt) && op != LOOM_REPLACE));
            if (!loom_op_commutes_exactly(op, dt)) {
                continue;
            }
            CU_ASSERT_FATAL(k != NULL);
            fill(a, dt, 5u * (unsigned)op + (unsigned)dt);
            fill(b, dt, 900u + 3u * (unsigned)op + (unsigned)dt);
            if (dt == LOOM_FLOAT) {          /* signed zeros on both sides */
                ((float *)a)[0] = -0.0f;
                ((float *)b)[0] = 0.0f;
            }
            memcpy(ab, b, sizeof(ab));
            memcpy(ba, a, sizeof(ba));
            k(a, ab, N);
            k(b, ba, N);
            CU_ASSERT(same(dt, ab, ba));
            ++swapped;
        }
    }
    CU_ASSERT(swapped > 50);
    CU_ASSERT(loom_op_commutes_exactly(LOOM_SUM, LOOM_FLOAT));
    CU_ASSERT(loom_op_commutes_exactly(LOOM_MIN, LOOM_INT32));
    CU_ASSERT(loom_op_commutes_exactly(LOOM_MINLOC, LOOM_2INT));
    CU_ASSERT(!loom_op_commutes_exactly(LOOM_MIN, LOOM_FLOAT));
    CU_ASSERT(!loom_op_commutes_exactly(LOOM_MAX, LOOM_DOUBLE));
    CU_ASSERT(!loom_op_commutes_exactly(LOOM_MINLOC, LOOM_FLOAT_INT));
    CU_ASSERT(!loom_op_commutes_exactly(LOOM_REPLACE, LOOM_INT32));
    CU_ASSERT(!loom_op_commutes_exactly(LOOM_BAND, LOOM_FLOAT));
    CU_ASSERT(!loom_op_commutes_exactly(LOOM_OP_PREDEFINED_COUNT, LOOM_INT32));
    CU_ASSERT(loom_op_kernel(LOOM_OP_NULL, LOOM_INT32) == NULL);
    CU_ASSERT(loom_op_kernel(LOOM_SUM, LOOM_DATATYPE_COUNT) == NULL);
}

static void test_names_and_errors(void)
{
    int x = 1, y = 2;
    CU_ASSERT_STRING_EQUAL(loom_op_name(LOOM_SUM), "sum");
    CU_ASSERT_STRING_EQUAL(loom_op_name(LOOM_MAXLOC), "maxloc");
    CU_ASSERT_PTR_NULL(loom_op_name(LOOM_OP_NULL));
    CU_ASSERT_PTR_NULL(loom_op_name((loom_op_t)999));
    CU_ASSERT_EQUAL(loom_op_reduce(LOOM_BAND, &x, &y, 1, LOOM_DOUBLE), LOOM_ERR_INVALID_OP);
    CU_ASSERT_EQUAL(loom_op_reduce(LOOM_SUM, &x, &y, 1, (loom_datatype_t)77), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_op_reduce(LOOM_OP_NULL, &x, &y, 1, LOOM_INT32), LOOM_ERR_INVALID_OP);
    CU_ASSERT_EQUAL(loom_op_reduce((loom_op_t)999, &x, &y, 1, LOOM_INT32), LOOM_ERR_INVALID_OP);
    CU_ASSERT_EQUAL(loom_op_reduce(LOOM_SUM, NULL, &y, 1, LOOM_INT32), LOOM_ERR_INVALID_BUFFER);
    CU_ASSERT_EQUAL(loom_op_reduce(LOOM_SUM, NULL, NULL, 0, LOOM_INT32), LOOM_OK);
    CU_ASSERT_EQUAL(loom_op_reduce(LOOM_SUM, &x, &y, 1, LOOM_INT32), LOOM_OK);
    CU_ASSERT_EQUAL(y, 3);
}

/* non-commutative user op: 2x2 integer matrix product, inout = in * inout */
static void matmul(const void *in, void *inout, size_t count, loom_datatype_t dt, void *arg)
{
    const int *a = in;
    int *b = inout;
    (void)dt;
    ++*(int *)arg;
    for (size_t k = 0; k < count; ++k, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof(c));
    }
}

static void test_user_op(void)
{
    int calls = 0;
    loom_op_t op, op2;
    int a[4] = {1, 1, 0, 1}, b[4] = {1, 0, 1, 1};

    CU_ASSERT_EQUAL(loom_op_create(NULL, NULL, 1, &op), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL_FATAL(loom_op_create(matmul, &calls, 0, &op), LOOM_OK);
    CU_ASSERT(op >= LOOM_OP_PREDEFINED_COUNT);
    CU_ASSERT_FALSE(loom_op_is_commutative(op));
    CU_ASSERT_TRUE(loom_op_is_commutative(LOOM_SUM));
    CU_ASSERT_PTR_NOT_NULL(loom_op_name(op));
    CU_ASSERT_EQUAL(loom_op_reduce(op, a, b, 1, LOOM_2INT), LOOM_OK);
    CU_ASSERT_EQUAL(calls, 1);
    CU_ASSERT(b[0] == 2 && b[1] == 1 && b[2] == 1 && b[3] == 1);
    CU_ASSERT_EQUAL(loom_op_create(matmul, &calls, 1, &op2), LOOM_OK);
    CU_ASSERT_NOT_EQUAL(op, op2);
    CU_ASSERT_EQUAL(loom_op_free(&op), LOOM_OK);
    CU_ASSERT_EQUAL(op, LOOM_OP_NULL);
    CU_ASSERT_EQUAL(loom_op_free(&op), LOOM_ERR_INVALID_OP);
    {
        loom_op_t sum = LOOM_SUM;
        CU_ASSERT_EQUAL(loom_op_free(&sum), LOOM_ERR_INVALID_OP);
    }
    CU_ASSERT_EQUAL(loom_op_free(&op2), LOOM_OK);
    loom_op_cleanup();
}

int main(void)
{
    CU_pSuite s;
    unsigned failures;

    if (CU_initialize_registry() != CUE_SUCCESS) {
        return 2;
    }
    s = CU_add_suite("coll_ops", NULL, NULL);
    CU_add_test(s, "every op x type against a serial reference", test_every_pair);
    CU_add_test(s, "kernels and exact commutativity", test_kernel_and_commutes);
    CU_add_test(s, "names and errors", test_names_and_errors);
    CU_add_test(s, "user operations", test_user_op);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failures != 0;
}
