/*
 * test_mpi_handles.c: the C <-> Fortran handle table (mpi/mpi_f2c_int.h),
 * alone: NULL is index 0, indices are handed out in order and stay stable,
 * lookups survive many rehashes (pointers that share their low bits, as
 * heap objects do), unknown or negative indices give NULL, and dropped
 * (freed) handles convert to NULL while the others keep their indices.
 */
#include "../common/cunit_main.h"
#include "../../mpi/mpi_f2c_int.h"

#include <stdint.h>

#define NPTR 5000

static void test_basic(void)
{
    loom_mpi_htab_t t = { 0 };
    int a, b;

    CU_ASSERT_EQUAL(loom_mpi_htab_c2f(&t, NULL), 0);
    CU_ASSERT_PTR_NULL(loom_mpi_htab_f2c(&t, 0));
    CU_ASSERT_PTR_NULL(loom_mpi_htab_f2c(&t, 1));          /* empty table */
    CU_ASSERT_EQUAL(loom_mpi_htab_c2f(&t, &a), 1);
    CU_ASSERT_EQUAL(loom_mpi_htab_c2f(&t, &b), 2);
    CU_ASSERT_EQUAL(loom_mpi_htab_c2f(&t, &a), 1);          /* stable */
    CU_ASSERT_PTR_EQUAL(loom_mpi_htab_f2c(&t, 2), &b);
    CU_ASSERT_PTR_NULL(loom_mpi_htab_f2c(&t, 3));
    CU_ASSERT_PTR_NULL(loom_mpi_htab_f2c(&t, -1));
    CU_ASSERT_PTR_NULL(loom_mpi_htab_f2c(&t, INT32_MIN));
    loom_mpi_htab_free(&t);
    CU_ASSERT_PTR_NULL(loom_mpi_htab_f2c(&t, 1));
    CU_ASSERT_EQUAL(loom_mpi_htab_c2f(&t, &b), 1);          /* usable again */
    loom_mpi_htab_free(&t);
}

static void test_many(void)
{
    static char arena[NPTR * 64];
    loom_mpi_htab_t t = { 0 };
    int ok = 1;

    /* 64-byte strided pointers: the low 6 bits are always equal */
    for (int i = 0; i < NPTR; ++i) {
        ok &= loom_mpi_htab_c2f(&t, &arena[i * 64]) == i + 1;
    }
    CU_ASSERT(ok);
    for (int i = NPTR - 1; i >= 0; --i) {
        ok &= loom_mpi_htab_c2f(&t, &arena[i * 64]) == i + 1;
        ok &= loom_mpi_htab_f2c(&t, i + 1) == &arena[i * 64];
    }
    CU_ASSERT(ok);
    CU_ASSERT(t.nslots >= 2 * (size_t)NPTR);                /* at most half full */
    CU_ASSERT_PTR_NULL(loom_mpi_htab_f2c(&t, NPTR + 1));
    loom_mpi_htab_free(&t);
}

/* dropping entries (freed handles): every other pointer of a crowded table
 * goes; the rest keep their indices (the backward shift keeps probe runs
 * intact), dropped indices give NULL and are not handed out again */
static void test_drop(void)
{
    static char arena[NPTR * 64];
    loom_mpi_htab_t t = { 0 };
    int ok = 1;

    for (int i = 0; i < NPTR; ++i) {
        ok &= loom_mpi_htab_c2f(&t, &arena[i * 64]) == i + 1;
    }
    for (int i = 0; i < NPTR; i += 2) {
        loom_mpi_htab_drop(&t, &arena[i * 64]);
    }
    loom_mpi_htab_drop(&t, &arena[0]);      /* twice: no effect */
    loom_mpi_htab_drop(&t, &ok);            /* never converted: no effect */
    loom_mpi_htab_drop(&t, NULL);
    for (int i = 0; i < NPTR; ++i) {
        if (i % 2 == 0) {
            ok &= loom_mpi_htab_f2c(&t, i + 1) == NULL;
        } else {
            ok &= loom_mpi_htab_f2c(&t, i + 1) == &arena[i * 64];
            ok &= loom_mpi_htab_c2f(&t, &arena[i * 64]) == i + 1;
        }
    }
    CU_ASSERT(ok);
    /* a dropped pointer (an object at a freed one's address) gets a new index */
    CU_ASSERT_EQUAL(loom_mpi_htab_c2f(&t, &arena[0]), NPTR + 1);
    CU_ASSERT_PTR_EQUAL(loom_mpi_htab_f2c(&t, NPTR + 1), &arena[0]);
    CU_ASSERT_PTR_NULL(loom_mpi_htab_f2c(&t, 1));
    loom_mpi_htab_free(&t);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "null, order, stability, bounds", test_basic },
        { "many pointers with equal low bits", test_many },
        { "dropping freed handles", test_drop },
        { NULL, NULL },
    };
    return loom_test_run_suite("mpi handle tables", cases, NULL, NULL);
}
