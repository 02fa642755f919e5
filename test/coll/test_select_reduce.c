/*
 * test_select_reduce.c: the selection of a large reduce on one node
 * (collectives/coll_select.c, reduce_cma.c), apart from test_select.c
 * because that suite forces LOOM_REDUCE_ALGORITHM, and the table's answer
 * is what is checked here. On 2 ranks "on one node" (the collective state
 * forced eligible with a set-up segment): up to the shm limit "shm"; above
 * it, while the CMA verdict is unknown, the CMA set-up step (the one
 * allreduce uses; it serves reduce); after "yes" "cma" itself, in ordered
 * calls too (it folds in rank order); after "no" still the step, and once
 * it has run the message-based rules below cma. Off any node (4 ranks, no
 * segment) the message-based rules. Ranks outnumbering cores change
 * nothing: reduce cma waits once per rank, so the table keeps it.
 */
#include "coll_int.h"
#include "coll_comm_int.h"
#include "coll_select.h"
#include "p2p_int.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

static struct loom_comm comm4, node2;

static const loom_coll_alg_t *pick_at(loom_comm_t comm, size_t bytes, int ordered, int after)
{
    loom_coll_state_t s;

    memset(&s, 0, sizeof(s));
    s.comm    = comm;
    s.size    = comm->size;
    s.esize   = 8;
    s.ordered = (uint8_t)ordered;
    s.layout  = LOOM_COLL_LAYOUT_UNIFORM;
    return after ? loom_coll_select_after_cma(LOOM_COLL_REDUCE, comm, bytes, &s)
                 : loom_coll_select(LOOM_COLL_REDUCE, comm, bytes, &s);
}

/* off any node: shm and cma are not eligible */
static void test_off_node(void)
{
    CU_ASSERT_STRING_EQUAL(pick_at(&comm4, 8, 0, 0)->name, "binomial");
    CU_ASSERT_STRING_EQUAL(pick_at(&comm4, 64 << 10, 0, 0)->name, "binomial");
    CU_ASSERT_STRING_EQUAL(pick_at(&comm4, 1 << 20, 0, 0)->name, "rabenseifner");
    CU_ASSERT_STRING_EQUAL(pick_at(&comm4, 1 << 20, 1, 0)->name, "ordered");
}

static void test_cma_verdicts(void)
{
    loom_coll_comm_t *cc = loom_coll_comm_get(&node2);
    const loom_coll_alg_t *a;

    CU_ASSERT_FATAL(cc != NULL);
    cc->eligible = 1;
    cc->state    = LOOM_COLL_SHM_READY;
    cc->cma      = LOOM_COLL_CMA_UNKNOWN;
    CU_ASSERT_STRING_EQUAL(pick_at(&node2, 8 << 10, 0, 0)->name, "shm");
    /* reduce cma waits once per rank: kept when ranks outnumber cores too */
    a = pick_at(&node2, (8 << 10) + 1, 0, 0);
    CU_ASSERT_PTR_EQUAL(a, &loom_coll_alg_cma_setup);
    CU_ASSERT_STRING_EQUAL(a->name, "cma-probe");
    CU_ASSERT_PTR_EQUAL(pick_at(&node2, 16 << 20, 1, 0), &loom_coll_alg_cma_setup);

    cc->cma = LOOM_COLL_CMA_YES;
    a = pick_at(&node2, 64 << 10, 0, 0);
    CU_ASSERT_STRING_EQUAL(a->name, "cma");
    CU_ASSERT_PTR_EQUAL(a->progress, loom_coll_reduce_cma);
    CU_ASSERT(a->flags & LOOM_COLL_ALG_CMA);
    CU_ASSERT_PTR_NULL(a->fast.reduce);
    CU_ASSERT_PTR_EQUAL(pick_at(&node2, 64 << 10, 1, 0)->progress, loom_coll_reduce_cma);
    CU_ASSERT_PTR_EQUAL(pick_at(&node2, 16 << 20, 0, 1)->progress, loom_coll_reduce_cma);

    cc->cma = LOOM_COLL_CMA_NO;
    CU_ASSERT_PTR_EQUAL(pick_at(&node2, 64 << 10, 0, 0), &loom_coll_alg_cma_setup);
    CU_ASSERT_STRING_EQUAL(pick_at(&node2, 64 << 10, 0, 1)->name, "binomial");
    CU_ASSERT_STRING_EQUAL(pick_at(&node2, 1 << 20, 0, 1)->name, "rabenseifner");
    CU_ASSERT_PTR_EQUAL(pick_at(&node2, 1 << 20, 1, 1)->progress, loom_coll_reduce_ordered);
    CU_ASSERT_STRING_EQUAL(pick_at(&node2, 8 << 10, 0, 0)->name, "shm");
}

int main(void)
{
    CU_pSuite suite;
    unsigned failed;

    unsetenv("LOOM_REDUCE_ALGORITHM");
    unsetenv("LOOM_DETERMINISTIC");
    comm4.size = 4;
    strcpy(comm4.name, "fake4");
    node2.size = 2;
    strcpy(node2.name, "node2");
    if (loom_coll_init() != LOOM_OK || CU_initialize_registry() != CUE_SUCCESS) {
        return 1;
    }
    suite = CU_add_suite("coll_select_reduce", NULL, NULL);
    CU_add_test(suite, "reduce off node: message-based rules", test_off_node);
    CU_add_test(suite, "reduce on node: shm, the CMA step, cma or the rules below",
                test_cma_verdicts);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failed = CU_get_number_of_failures();
    free(comm4.coll_priv);
    free(node2.coll_priv);
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}
