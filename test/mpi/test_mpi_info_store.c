/*
 * test_mpi_info_store.c: the ordered key/value store under MPI_Info
 * (mpi/mpi_info_int.h), alone: set/replace keeps the order of first
 * setting, delete shifts later keys down, nthkey bounds, merge, clear and
 * reuse, and a store grown to many keys.
 */
#include "../common/cunit_main.h"
#include "../../mpi/mpi_info_int.h"

#include <stdio.h>
#include <string.h>

static void test_set_get_order(void)
{
    loom_mpi_kvstore_t s = { 0 };

    CU_ASSERT_PTR_NULL(loom_mpi_kvstore_get(&s, "a"));
    CU_ASSERT_PTR_NULL(loom_mpi_kvstore_nthkey(&s, 0));
    CU_ASSERT_EQUAL(loom_mpi_kvstore_set(&s, "a", "1"), 0);
    CU_ASSERT_EQUAL(loom_mpi_kvstore_set(&s, "b", "2"), 0);
    CU_ASSERT_EQUAL(loom_mpi_kvstore_set(&s, "c", "3"), 0);
    CU_ASSERT_EQUAL(loom_mpi_kvstore_set(&s, "a", "one"), 0);  /* in place */
    CU_ASSERT_EQUAL(s.n, 3);
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_nthkey(&s, 0), "a");
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_nthkey(&s, 2), "c");
    CU_ASSERT_PTR_NULL(loom_mpi_kvstore_nthkey(&s, 3));
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_get(&s, "a"), "one");
    CU_ASSERT_PTR_NULL(loom_mpi_kvstore_get(&s, "A"));         /* case sensitive */
    CU_ASSERT_EQUAL(loom_mpi_kvstore_delete(&s, "b"), 1);
    CU_ASSERT_EQUAL(loom_mpi_kvstore_delete(&s, "b"), 0);
    CU_ASSERT_EQUAL(s.n, 2);
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_nthkey(&s, 1), "c");
    CU_ASSERT_EQUAL(loom_mpi_kvstore_delete(&s, "c"), 1);      /* the last one */
    CU_ASSERT_EQUAL(loom_mpi_kvstore_delete(&s, "a"), 1);
    CU_ASSERT_EQUAL(s.n, 0);
    loom_mpi_kvstore_clear(&s);
    CU_ASSERT_PTR_NULL(s.items);
}

static void test_merge_clear_many(void)
{
    loom_mpi_kvstore_t a = { 0 }, b = { 0 };
    char key[16], val[16];

    for (int i = 0; i < 100; ++i) {
        snprintf(key, sizeof(key), "k%d", i);
        snprintf(val, sizeof(val), "v%d", i * i);
        CU_ASSERT_EQUAL_FATAL(loom_mpi_kvstore_set(&a, key, val), 0);
    }
    CU_ASSERT_EQUAL(a.n, 100);
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_get(&a, "k99"), "v9801");
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_nthkey(&a, 57), "k57");
    CU_ASSERT_EQUAL(loom_mpi_kvstore_set(&b, "k5", "mine"), 0);
    CU_ASSERT_EQUAL(loom_mpi_kvstore_set(&b, "zz", "last"), 0);
    CU_ASSERT_EQUAL(loom_mpi_kvstore_merge(&b, &a), 0);         /* a's values win */
    CU_ASSERT_EQUAL(b.n, 101);
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_get(&b, "k5"), "v25");
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_nthkey(&b, 0), "k5");
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_nthkey(&b, 1), "zz");
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_nthkey(&b, 2), "k0");
    loom_mpi_kvstore_clear(&a);
    CU_ASSERT_EQUAL(a.n, 0);
    CU_ASSERT_EQUAL(loom_mpi_kvstore_set(&a, "again", "yes"), 0);  /* reusable */
    CU_ASSERT_STRING_EQUAL(loom_mpi_kvstore_get(&a, "again"), "yes");
    loom_mpi_kvstore_clear(&a);
    loom_mpi_kvstore_clear(&b);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "set, replace, order, delete", test_set_get_order },
        { "merge, clear, many keys", test_merge_clear_many },
        { NULL, NULL },
    };
    return loom_test_run_suite("mpi info store", cases, NULL, NULL);
}
