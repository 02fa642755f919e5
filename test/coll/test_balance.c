/*
 * test_balance.c: the placement rule of oversubscribed fast-path ranks
 * (loom_coll_shm_balance_target, collectives/coll_shm.c): from the CPU
 * hints of every rank, the highest rank on a CPU with at least two ranks
 * more than the least crowded allowed CPU moves there; nobody else, and
 * never a bound rank or one whose CPU is unknown.
 */
#include "../../collectives/coll_shm.h"

#include <CUnit/Basic.h>
#include <string.h>

#define MAXR 16

static loom_coll_shm_aux_t aux[MAXR];

/* hints from a string: "0001" = ranks 0-2 on CPU 0, rank 3 on CPU 1 ('-': unknown) */
static int place(const char *map)
{
    int n = (int)strlen(map);

    memset(aux, 0, sizeof(aux));
    for (int q = 0; q < n; ++q) {
        atomic_store(&aux[q].cpu, map[q] == '-' ? 0u : (uint32_t)(map[q] - '0') + 1);
    }
    return n;
}

static int target(const char *map, int rank, int ncpus)
{
    cpu_set_t allowed;
    int n = place(map);

    CPU_ZERO(&allowed);
    for (int c = 0; c < ncpus; ++c) {
        CPU_SET(c, &allowed);
    }
    return loom_coll_shm_balance_target(aux, n, rank, &allowed);
}

static void test_three_plus_one(void)
{
    /* ranks 0, 1, 2 on CPU 0, rank 3 on CPU 1: only rank 2 moves, to CPU 1 */
    CU_ASSERT_EQUAL(target("0001", 2, 2), 1);
    CU_ASSERT_EQUAL(target("0001", 0, 2), -1);
    CU_ASSERT_EQUAL(target("0001", 1, 2), -1);
    CU_ASSERT_EQUAL(target("0001", 3, 2), -1);
    /* the same on CPU 1: rank 3 is the highest there */
    CU_ASSERT_EQUAL(target("0111", 3, 2), 0);
    CU_ASSERT_EQUAL(target("1011", 3, 2), 0);
    CU_ASSERT_EQUAL(target("1011", 2, 2), -1);
}

static void test_all_on_one(void)
{
    /* four on CPU 0, none on CPU 1: rank 3 moves; the next look (hints
     * refreshed) finds 3 + 1 and moves rank 2 */
    CU_ASSERT_EQUAL(target("0000", 3, 2), 1);
    CU_ASSERT_EQUAL(target("0000", 2, 2), -1);
    CU_ASSERT_EQUAL(target("0001", 2, 2), 1);
}

static void test_balanced_stays(void)
{
    for (int r = 0; r < 4; ++r) {
        CU_ASSERT_EQUAL(target("0011", r, 2), -1);
        CU_ASSERT_EQUAL(target("0101", r, 2), -1);
        CU_ASSERT_EQUAL(target("0110", r, 2), -1);
    }
    /* 3 + 2 on two CPUs is as even as 5 ranks get */
    for (int r = 0; r < 5; ++r) {
        CU_ASSERT_EQUAL(target("00011", r, 2), -1);
    }
}

static void test_least_crowded(void)
{
    /* three CPUs: 4 + 2 + 0 -> the highest rank on CPU 0 goes to CPU 2 */
    CU_ASSERT_EQUAL(target("000011", 3, 3), 2);
    /* CPU 1 (2 ranks) is also two above the empty CPU 2: its highest rank
     * moves too in the same look; the next look evens out what is left */
    CU_ASSERT_EQUAL(target("000011", 5, 3), 2);
    CU_ASSERT_EQUAL(target("000011", 4, 3), -1);
    CU_ASSERT_EQUAL(target("000122", 2, 3), 1);     /* 3 + 1 + 2 -> 2 + 2 + 2 */
    /* 3 + 3 + 0: the highest rank of each full CPU moves to the empty one */
    CU_ASSERT_EQUAL(target("001101", 4, 3), 2);
    CU_ASSERT_EQUAL(target("001101", 5, 3), 2);
    CU_ASSERT_EQUAL(target("001101", 3, 3), -1);
    /* a CPU outside the mask is never a target */
    CU_ASSERT_EQUAL(target("0002", 2, 2), 1);
}

static void test_unknown_or_bound(void)
{
    cpu_set_t one;

    CU_ASSERT_EQUAL(target("00-1", 2, 2), -1);       /* our own CPU unknown */
    CU_ASSERT_EQUAL(target("000-", 2, 2), 1);        /* a peer unknown: counted nowhere */
    place("0001");
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    CU_ASSERT_EQUAL(loom_coll_shm_balance_target(aux, 4, 2, &one), -1);   /* bound */
}

int main(void)
{
    CU_pSuite s;
    unsigned failures;

    if (CU_initialize_registry() != CUE_SUCCESS) {
        return 1;
    }
    s = CU_add_suite("coll_balance", NULL, NULL);
    CU_add_test(s, "3 + 1 on two cpus", test_three_plus_one);
    CU_add_test(s, "all on one cpu", test_all_on_one);
    CU_add_test(s, "balanced placements stay", test_balanced_stays);
    CU_add_test(s, "least crowded allowed cpu", test_least_crowded);
    CU_add_test(s, "unknown cpu or bound", test_unknown_or_bound);
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failures != 0;
}
