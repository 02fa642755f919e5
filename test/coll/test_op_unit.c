/*
 * test_op_unit.c: user operations with an element size (loom_op_create_unit)
 * in one process (a singleton job, LOOM_ERRORS=return).
 *
 * The unit as the op layer reports it (basic elements per element, 1 for
 * predefined ops and ops made without a unit), the errors for a unit that
 * is not a whole number of the datatype's elements and for a count that is
 * not a whole number of units (loom_op_reduce and every reduction), and
 * that the function then gets whole elements with the collective's
 * datatype. The splitting itself needs several ranks: test/mpi/mpi_userop.c.
 */
#include "../common/cunit_main.h"
#include <loom.h>
#include "../../collectives/op_int.h"

#include <stdlib.h>
#include <string.h>

/* a triple of doubles: field 0 max, field 1 sum, field 2 left operand */
typedef struct { double f[3]; } triple_t;

typedef struct {
    int             calls;
    size_t          last_count;
    loom_datatype_t last_dt;
} seen_t;

static void triple_op(const void *in_, void *io_, size_t count, loom_datatype_t dt, void *arg)
{
    const triple_t *in = in_;
    triple_t *io = io_;
    seen_t *seen = arg;

    ++seen->calls;
    seen->last_count = count;
    seen->last_dt    = dt;
    for (size_t i = 0; i < count / 3; ++i) {
        io[i].f[0] = in[i].f[0] > io[i].f[0] ? in[i].f[0] : io[i].f[0];
        io[i].f[1] += in[i].f[1];
        io[i].f[2] = in[i].f[2];
    }
}

static void test_unit_of(void)
{
    seen_t seen = {0};
    loom_op_t plain, tri, odd;

    CU_ASSERT_EQUAL(loom_op_create_unit(NULL, NULL, 1, 24, &tri), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_op_create_unit(triple_op, NULL, 1, 24, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL_FATAL(loom_op_create(triple_op, &seen, 1, &plain), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_op_create_unit(triple_op, &seen, 0, 24, &tri), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_op_create_unit(triple_op, &seen, 1, 6, &odd), LOOM_OK);
    CU_ASSERT_EQUAL(loom_op_unit(LOOM_SUM, LOOM_DOUBLE), 1);
    CU_ASSERT_EQUAL(loom_op_unit(plain, LOOM_DOUBLE), 1);
    CU_ASSERT_EQUAL(loom_op_unit(tri, LOOM_DOUBLE), 3);
    CU_ASSERT_EQUAL(loom_op_unit(tri, LOOM_BYTE), 24);
    CU_ASSERT_EQUAL(loom_op_unit(odd, LOOM_INT16), 3);
    CU_ASSERT_FALSE(loom_op_is_commutative(tri));
    CU_ASSERT_EQUAL(loom_op_check(tri, LOOM_DOUBLE, "t"), LOOM_OK);
    /* 6-byte elements are not whole int32 or double elements */
    CU_ASSERT_EQUAL(loom_op_check(odd, LOOM_INT32, "t"), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_op_check(odd, LOOM_INT16, "t"), LOOM_OK);
    CU_ASSERT_EQUAL(loom_op_check(tri, LOOM_LONG_DOUBLE_INT, "t"), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_op_free(&plain), LOOM_OK);
    CU_ASSERT_EQUAL(loom_op_free(&tri), LOOM_OK);
    CU_ASSERT_EQUAL(loom_op_free(&odd), LOOM_OK);
}

static void test_reduce_local(void)
{
    seen_t seen = {0};
    triple_t a[2] = {{{1, 2, 3}}, {{7, 1, 5}}}, b[2] = {{{4, 5, 6}}, {{0, 2, 9}}};
    loom_op_t tri;

    CU_ASSERT_EQUAL_FATAL(loom_op_create_unit(triple_op, &seen, 0, 24, &tri), LOOM_OK);
    CU_ASSERT_EQUAL(loom_op_reduce(tri, a, b, 4, LOOM_DOUBLE), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_op_reduce(tri, a, b, 9, LOOM_INT32), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(seen.calls, 0);
    CU_ASSERT_EQUAL(loom_op_reduce(tri, a, b, 6, LOOM_DOUBLE), LOOM_OK);
    CU_ASSERT_EQUAL(seen.calls, 1);
    CU_ASSERT_EQUAL(seen.last_count, 6);
    CU_ASSERT_EQUAL(seen.last_dt, LOOM_DOUBLE);
    CU_ASSERT(b[0].f[0] == 4 && b[0].f[1] == 7 && b[0].f[2] == 3);
    CU_ASSERT(b[1].f[0] == 7 && b[1].f[1] == 3 && b[1].f[2] == 5);
    CU_ASSERT_EQUAL(loom_op_free(&tri), LOOM_OK);
}

/* every reduction on one rank: whole units pass, the rest are refused */
static void test_collectives(void)
{
    seen_t seen = {0};
    triple_t in[4] = {{{1, 2, 3}}, {{4, 5, 6}}, {{7, 8, 9}}, {{1, 1, 1}}}, out[4];
    loom_request_t req;
    loom_op_t tri;

    CU_ASSERT_EQUAL_FATAL(loom_op_create_unit(triple_op, &seen, 1, 24, &tri), LOOM_OK);
    CU_ASSERT_EQUAL(loom_allreduce(in, out, 5, LOOM_DOUBLE, tri, LOOM_COMM_WORLD),
                    LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_reduce(in, out, 4, LOOM_DOUBLE, tri, 0, LOOM_COMM_WORLD),
                    LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_iallreduce(in, out, 2, LOOM_DOUBLE, tri, LOOM_COMM_WORLD, &req),
                    LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_reduce_scatter_block(in, out, 1, LOOM_DOUBLE, tri, LOOM_COMM_WORLD),
                    LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_allreduce(in, out, 9, LOOM_INT32, tri, LOOM_COMM_WORLD),
                    LOOM_ERR_INVALID_COUNT);
    memset(out, 0, sizeof(out));
    CU_ASSERT_EQUAL(loom_allreduce(in, out, 12, LOOM_DOUBLE, tri, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
    memset(out, 0, sizeof(out));
    CU_ASSERT_EQUAL(loom_reduce_scatter_block(in, out, 6, LOOM_DOUBLE, tri, LOOM_COMM_WORLD),
                    LOOM_OK);
    CU_ASSERT_EQUAL(memcmp(in, out, 2 * sizeof(triple_t)), 0);
    CU_ASSERT_EQUAL(loom_op_free(&tri), LOOM_OK);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "unit of an op, unit against datatype", test_unit_of },
        { "loom_op_reduce: whole elements only", test_reduce_local },
        { "reductions refuse a count of part elements", test_collectives },
        { NULL, NULL },
    };

    return loom_test_run_singleton("coll_op_unit", cases);
}
