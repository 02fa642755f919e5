/*
 * test_select_s16.c: the session 16 rules of the selection tables
 * (collectives/coll_select.c), the table's answers with nothing forced.
 *   - alltoall shm on one node up to 4 ranks while p x block fits the
 *     8 KiB slot, up to 4 KiB blocks (session 15: 1 KiB): np 2 to 4 KiB,
 *     np 4 to 2 KiB; from 5 ranks to 1 KiB as before (np 5: a 1028-byte
 *     block would fit the slot, but stays linear); above, the message
 *     algorithms as before (pairwise to 4 ranks, linear at 5-16); off the
 *     node no shm at any size; alltoallv (per-rank counts) never shm.
 */
#include "coll_int.h"
#include "coll_comm_int.h"
#include "coll_select.h"
#include "p2p_int.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

static struct loom_comm node2, node4, node5, node8, comm2;

static const char *a2a(loom_comm_t comm, size_t bytes, int vector)
{
    loom_coll_state_t s;

    memset(&s, 0, sizeof(s));
    s.comm   = comm;
    s.size   = comm->size;
    s.esize  = 4;
    s.layout = vector ? LOOM_COLL_LAYOUT_VECTOR : LOOM_COLL_LAYOUT_UNIFORM;
    return loom_coll_select(LOOM_COLL_ALLTOALL, comm, bytes, &s)->name;
}

/* a communicator whose on-node segment is set up (every rank on the node) */
static void on_node(struct loom_comm *c)
{
    loom_coll_comm_t *cc = loom_coll_comm_get(c);

    CU_ASSERT_FATAL(cc != NULL);
    cc->eligible = 1;
    cc->state    = LOOM_COLL_SHM_READY;
}

static void test_alltoall_shm(void)
{
    on_node(&node2);
    on_node(&node4);
    on_node(&node5);
    on_node(&node8);
    CU_ASSERT_STRING_EQUAL(a2a(&node2, 1024, 0), "shm");
    CU_ASSERT_STRING_EQUAL(a2a(&node2, 2048, 0), "shm");
    CU_ASSERT_STRING_EQUAL(a2a(&node2, 4096, 0), "shm");
    CU_ASSERT_STRING_EQUAL(a2a(&node2, 4100, 0), "pairwise");
    CU_ASSERT_STRING_EQUAL(a2a(&node4, 2048, 0), "shm");
    CU_ASSERT_STRING_EQUAL(a2a(&node4, 2052, 0), "pairwise");
    CU_ASSERT_STRING_EQUAL(a2a(&node5, 1024, 0), "shm");
    CU_ASSERT_STRING_EQUAL(a2a(&node5, 1028, 0), "linear");
    CU_ASSERT_STRING_EQUAL(a2a(&node8, 1024, 0), "shm");
    CU_ASSERT_STRING_EQUAL(a2a(&node8, 1028, 0), "linear");
    /* off the node: messages (bruck to 256 B, then pairwise at 2 ranks) */
    CU_ASSERT_STRING_EQUAL(a2a(&comm2, 2048, 0), "pairwise");
    CU_ASSERT_STRING_EQUAL(a2a(&comm2, 256, 0), "bruck");
    /* alltoallv: shm takes uniform blocks only */
    CU_ASSERT_STRING_EQUAL(a2a(&node2, 2048, 1), "pairwise");
}

static void fake(struct loom_comm *c, int size, const char *name)
{
    c->size = size;
    strcpy(c->name, name);
}

int main(void)
{
    struct loom_comm *all[] = {&node2, &node4, &node5, &node8, &comm2};
    CU_pSuite suite;
    unsigned failed;

    unsetenv("LOOM_ALLTOALL_ALGORITHM");
    fake(&node2, 2, "node2");
    fake(&node4, 4, "node4");
    fake(&node5, 5, "node5");
    fake(&node8, 8, "node8");
    fake(&comm2, 2, "fake2");
    if (loom_coll_init() != LOOM_OK || CU_initialize_registry() != CUE_SUCCESS) {
        return 1;
    }
    suite = CU_add_suite("coll_select_s16", NULL, NULL);
    CU_add_test(suite, "alltoall: shm to 4 KiB blocks at up to 4 ranks while p x block fits the slot",
                test_alltoall_shm);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failed = CU_get_number_of_failures();
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
        free(all[i]->coll_priv);
    }
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}
