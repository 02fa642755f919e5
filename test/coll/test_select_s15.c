/*
 * test_select_s15.c: the session 15 rules of the selection tables
 * (collectives/coll_select.c), the table's answers with nothing forced.
 *   - alltoall above bruck's 256 B (and above shm): pairwise to 4 ranks,
 *     linear at 5-16, pairwise beyond; off any node the same (message
 *     algorithms), alltoallv (per-rank counts) too.
 *   - allgather when ranks outnumber cores (the engine's flag set by hand;
 *     "one node" is a communicator state made eligible with a set-up
 *     segment): recursive doubling to 64 KiB blocks, above it the CMA
 *     set-up step while the verdict is unknown, cma after "yes", recursive
 *     doubling again after "no"; with a core each cma above 4 KiB as
 *     before; off the node the ring.
 */
#include "coll_int.h"
#include "coll_comm_int.h"
#include "coll_select.h"
#include "p2p_int.h"
#include "p2p_engine_int.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

static struct loom_comm comm4, comm5, comm8, comm16, comm17, node8;

static const loom_coll_alg_t *pick_at(loom_comm_t comm, loom_coll_type_t type, size_t bytes,
                                      int vector, int after)
{
    loom_coll_state_t s;

    memset(&s, 0, sizeof(s));
    s.comm   = comm;
    s.size   = comm->size;
    s.esize  = 4;
    s.layout = vector ? LOOM_COLL_LAYOUT_VECTOR : LOOM_COLL_LAYOUT_UNIFORM;
    return after ? loom_coll_select_after_cma(type, comm, bytes, &s)
                 : loom_coll_select(type, comm, bytes, &s);
}

static const char *a2a(loom_comm_t comm, size_t bytes, int vector)
{
    return pick_at(comm, LOOM_COLL_ALLTOALL, bytes, vector, 0)->name;
}

static void test_alltoall(void)
{
    CU_ASSERT_STRING_EQUAL(a2a(&comm8, 256, 0), "bruck");
    CU_ASSERT_STRING_EQUAL(a2a(&comm4, 257, 0), "pairwise");
    CU_ASSERT_STRING_EQUAL(a2a(&comm4, 1 << 20, 0), "pairwise");
    CU_ASSERT_STRING_EQUAL(a2a(&comm5, 257, 0), "linear");
    CU_ASSERT_STRING_EQUAL(a2a(&comm8, 2 << 10, 0), "linear");
    CU_ASSERT_STRING_EQUAL(a2a(&comm8, 1 << 20, 0), "linear");
    CU_ASSERT_STRING_EQUAL(a2a(&comm16, 64 << 10, 0), "linear");
    CU_ASSERT_STRING_EQUAL(a2a(&comm17, 64 << 10, 0), "pairwise");
    /* alltoallv: the same rules (linear takes per-rank counts) */
    CU_ASSERT_STRING_EQUAL(a2a(&comm8, 8, 1), "linear");
    CU_ASSERT_STRING_EQUAL(a2a(&comm4, 8, 1), "pairwise");
    CU_ASSERT_PTR_EQUAL(pick_at(&comm8, LOOM_COLL_ALLTOALL, 4096, 0, 0)->progress,
                        loom_coll_alltoallw_linear);
}

static void test_allgather_shared(void)
{
    loom_coll_comm_t *cc = loom_coll_comm_get(&node8);
    int saved = loom_p2p_engine.oversubscribed;

    CU_ASSERT_FATAL(cc != NULL);
    cc->eligible = 1;
    cc->state    = LOOM_COLL_SHM_READY;
    cc->cma      = LOOM_COLL_CMA_UNKNOWN;

    loom_p2p_engine.oversubscribed = 1;
    CU_ASSERT_STRING_EQUAL(pick_at(&node8, LOOM_COLL_ALLGATHER, 64 << 10, 0, 0)->name,
                           "recursive_doubling");
    CU_ASSERT_PTR_EQUAL(pick_at(&node8, LOOM_COLL_ALLGATHER, (64 << 10) + 4, 0, 0),
                        &loom_coll_alg_cma_setup);
    cc->cma = LOOM_COLL_CMA_YES;
    CU_ASSERT_PTR_EQUAL(pick_at(&node8, LOOM_COLL_ALLGATHER, 1 << 20, 0, 0)->progress,
                        loom_coll_allgather_cma);
    CU_ASSERT_STRING_EQUAL(pick_at(&node8, LOOM_COLL_ALLGATHER, 32 << 10, 0, 0)->name,
                           "recursive_doubling");
    cc->cma = LOOM_COLL_CMA_NO;
    CU_ASSERT_STRING_EQUAL(pick_at(&node8, LOOM_COLL_ALLGATHER, 1 << 20, 0, 1)->name,
                           "recursive_doubling");
    /* off the node never a shared rule */
    CU_ASSERT_STRING_EQUAL(pick_at(&comm8, LOOM_COLL_ALLGATHER, 1 << 20, 0, 0)->name, "ring");

    loom_p2p_engine.oversubscribed = 0;
    cc->cma = LOOM_COLL_CMA_YES;
    CU_ASSERT_PTR_EQUAL(pick_at(&node8, LOOM_COLL_ALLGATHER, 8 << 10, 0, 0)->progress,
                        loom_coll_allgather_cma);
    cc->cma = LOOM_COLL_CMA_NO;
    CU_ASSERT_STRING_EQUAL(pick_at(&node8, LOOM_COLL_ALLGATHER, 1 << 20, 0, 1)->name, "ring");
    cc->cma = LOOM_COLL_CMA_UNKNOWN;
    loom_p2p_engine.oversubscribed = saved;
}

static void fake(struct loom_comm *c, int size, const char *name)
{
    c->size = size;
    strcpy(c->name, name);
}

int main(void)
{
    struct loom_comm *all[] = {&comm4, &comm5, &comm8, &comm16, &comm17, &node8};
    CU_pSuite suite;
    unsigned failed;

    unsetenv("LOOM_ALLTOALL_ALGORITHM");
    unsetenv("LOOM_ALLGATHER_ALGORITHM");
    fake(&comm4, 4, "fake4");
    fake(&comm5, 5, "fake5");
    fake(&comm8, 8, "fake8");
    fake(&comm16, 16, "fake16");
    fake(&comm17, 17, "fake17");
    fake(&node8, 8, "node8");
    if (loom_coll_init() != LOOM_OK || CU_initialize_registry() != CUE_SUCCESS) {
        return 1;
    }
    suite = CU_add_suite("coll_select_s15", NULL, NULL);
    CU_add_test(suite, "alltoall: linear at 5-16 ranks", test_alltoall);
    CU_add_test(suite, "allgather: cma above 64 KiB when ranks outnumber cores",
                test_allgather_shared);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failed = CU_get_number_of_failures();
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
        free(all[i]->coll_priv);
    }
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}
