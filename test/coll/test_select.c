/*
 * test_select.c: the selection gives the algorithm that runs the call
 * (collectives/coll_select.c), with nothing left for the algorithm to
 * re-decide: a call that must reduce in rank order (LOOM_DETERMINISTIC=1
 * or a non-commutative op: s->ordered) gets the ordered substitute of the
 * rule's algorithm, a forced algorithm keeps working (and gets its ordered
 * substitute too), and only the on-node algorithms carry a blocking fast
 * member. The CMA set-up step: an on-node communicator (its collective
 * state forced eligible with a set-up segment) gets the probe step for a
 * large allreduce while its CMA verdict is unknown, "cma" after "yes",
 * and the message-based rule below it after "no".
 *
 * The communicator is a bare struct of 4 ranks off any node (no bootstrap:
 * the on-node algorithms are not eligible), which is all the selection
 * reads. LOOM_REDUCE_ALGORITHM is forced to rabenseifner and multicast is
 * off (LOOM_IB_MCAST_THRESHOLD=0) before the settings are read.
 */
#include "coll_int.h"
#include "coll_comm_int.h"
#include "coll_select.h"
#include "coll_fast.h"
#include "p2p_int.h"
#include "p2p_engine_int.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

static struct loom_comm comm4, node2;

static const loom_coll_alg_t *pick_on(loom_comm_t comm, loom_coll_type_t type, size_t bytes,
                                      int ordered, int vector)
{
    loom_coll_state_t s;

    memset(&s, 0, sizeof(s));
    s.comm    = comm;
    s.size    = comm->size;
    s.esize   = 8;
    s.ordered = (uint8_t)ordered;
    s.layout  = vector ? LOOM_COLL_LAYOUT_VECTOR : LOOM_COLL_LAYOUT_UNIFORM;
    return loom_coll_select(type, comm, bytes, &s);
}

/* a call of @p type on node2 selected again once its CMA step has run */
static const loom_coll_alg_t *after_cma_of(loom_coll_type_t type, size_t bytes)
{
    loom_coll_state_t s;

    memset(&s, 0, sizeof(s));
    s.comm   = &node2;
    s.size   = node2.size;
    s.esize  = 8;
    s.layout = LOOM_COLL_LAYOUT_UNIFORM;
    return loom_coll_select_after_cma(type, &node2, bytes, &s);
}

/* an allreduce on node2 selected again once its CMA step has run */
static const loom_coll_alg_t *after_cma(size_t bytes, int ordered)
{
    loom_coll_state_t s;

    memset(&s, 0, sizeof(s));
    s.comm    = &node2;
    s.size    = node2.size;
    s.esize   = 8;
    s.ordered = (uint8_t)ordered;
    s.layout  = LOOM_COLL_LAYOUT_UNIFORM;
    return loom_coll_select_after_cma(LOOM_COLL_ALLREDUCE, &node2, bytes, &s);
}

static const loom_coll_alg_t *pick(loom_coll_type_t type, size_t bytes, int ordered,
                                   int vector)
{
    return pick_on(&comm4, type, bytes, ordered, vector);
}

/* allreduce: each rule's algorithm, and in ordered calls its substitute */
static void test_allreduce(void)
{
    const loom_coll_alg_t *a;

    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_ALLREDUCE, 8, 0, 0)->name, "recursive_doubling");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_ALLREDUCE, 1 << 20, 0, 0)->name, "rabenseifner");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_ALLREDUCE, 8 << 20, 0, 0)->name, "ring");

    a = pick(LOOM_COLL_ALLREDUCE, 8, 1, 0);          /* recursive_doubling's */
    CU_ASSERT_STRING_EQUAL(a->name, "ordered");
    CU_ASSERT_PTR_EQUAL(a->progress, loom_coll_allreduce_ordered_rd);
    CU_ASSERT(a->flags & LOOM_COLL_ALG_ORDERED);
    a = pick(LOOM_COLL_ALLREDUCE, 1 << 20, 1, 0);    /* rabenseifner's */
    CU_ASSERT_PTR_EQUAL(a->progress, loom_coll_allreduce_ordered_rd);
    a = pick(LOOM_COLL_ALLREDUCE, 8 << 20, 1, 0);    /* ring's: gathers by ring */
    CU_ASSERT_STRING_EQUAL(a->name, "ordered");
    CU_ASSERT_PTR_EQUAL(a->progress, loom_coll_allreduce_ordered);
}

/* the other reductions: every ordered call gets an ORDERED algorithm */
static void test_reductions(void)
{
    static const size_t sizes[] = {8, 4096, 1 << 20, 16 << 20};
    static const loom_coll_type_t kinds[] = {LOOM_COLL_REDUCE, LOOM_COLL_ALLREDUCE,
                                             LOOM_COLL_REDUCE_SCATTER,
                                             LOOM_COLL_REDUCE_SCATTERV};

    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); ++k) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
            int vec = kinds[k] == LOOM_COLL_REDUCE_SCATTERV;
            const loom_coll_alg_t *a = pick(kinds[k], sizes[i], 1, vec);

            CU_ASSERT(a->flags & LOOM_COLL_ALG_ORDERED);
            CU_ASSERT_PTR_NULL(a->ordered);   /* a substitute needs none itself */
        }
    }
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_REDUCE_SCATTER, 8, 0, 0)->name, "ring");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_REDUCE_SCATTER, 8, 1, 0)->name, "ordered");
    CU_ASSERT_PTR_EQUAL(pick(LOOM_COLL_REDUCE_SCATTER, 8, 1, 0)->progress,
                        loom_coll_reduce_scatter_ordered);
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_REDUCE_SCATTERV, 1 << 20, 0, 1)->name, "ring");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_REDUCE_SCATTERV, 1 << 20, 1, 1)->name, "pairwise");
    /* kinds without an order keep their algorithm in deterministic mode */
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_ALLGATHER, 8, 1, 0)->name, "bruck");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_BCAST, 8, 1, 0)->name, "binomial");
}

/* multicast off (threshold 0): the table's mcast rule gives the tree below
 * it, binomial up to 32 KiB, scatter + allgather above (4 ranks) */
static void test_mcast_tree(void)
{
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_BCAST, 8, 0, 0)->name, "binomial");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_BCAST, 32 << 10, 0, 0)->name, "binomial");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_BCAST, (32 << 10) + 1, 0, 0)->name,
                           "scatter_allgather");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_BCAST, 1 << 20, 0, 0)->name, "scatter_allgather");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_BCAST, 4 << 20, 0, 0)->name, "chain");
}

/* LOOM_REDUCE_ALGORITHM=rabenseifner: it runs every commutative reduce,
 * and ordered calls get its substitute (no warning, no re-route) */
static void test_forced(void)
{
    const loom_coll_alg_t *a = pick(LOOM_COLL_REDUCE, 8, 0, 0);

    CU_ASSERT_STRING_EQUAL(a->name, "rabenseifner");
    CU_ASSERT_PTR_EQUAL(a->progress, loom_coll_reduce_rabenseifner);
    a = pick(LOOM_COLL_REDUCE, 8, 1, 0);
    CU_ASSERT_STRING_EQUAL(a->name, "ordered");
    CU_ASSERT_PTR_EQUAL(a->progress, loom_coll_reduce_ordered);
}

/* off a node nothing has a fast member; never the set-up step either */
static void test_fast_members(void)
{
    static const size_t sizes[] = {8, 4096, 65536};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
        CU_ASSERT_PTR_NULL(pick(LOOM_COLL_BARRIER, 0, 0, 0)->fast.barrier);
        CU_ASSERT_PTR_NULL(pick(LOOM_COLL_BCAST, sizes[i], 0, 0)->fast.bcast);
        CU_ASSERT_PTR_NULL(pick(LOOM_COLL_ALLREDUCE, sizes[i], 0, 0)->fast.allreduce);
        CU_ASSERT_PTR_NULL(pick(LOOM_COLL_REDUCE, sizes[i], 0, 0)->fast.reduce);
        CU_ASSERT_PTR_NULL(pick(LOOM_COLL_REDUCE, sizes[i], 1, 0)->fast.reduce);
        CU_ASSERT_PTR_NOT_EQUAL(pick(LOOM_COLL_ALLREDUCE, sizes[i], 0, 0),
                                &loom_coll_alg_setup);
    }
}

/*
 * The CMA verdict as a set-up step, on 2 ranks "on one node" (the state's
 * eligibility set by hand, the segment marked set up). Above the shm limit
 * the table's cma rule gives, while the verdict is unknown, the probe step
 * (flagged CMA, so the shm set-up step keeps the segment's turn for it);
 * after "yes" cma itself, in ordered calls too (it orders by itself);
 * after "no" still the step (whether a call takes an on-node number must
 * not depend on what a rank knows when it posts it), and once the step has
 * run what the rules below cma give. Skipped when ranks outnumber
 * cores (the table then skips cma whatever the verdict).
 */
static void test_cma_setup(void)
{
    loom_coll_comm_t *cc = loom_coll_comm_get(&node2);
    const loom_coll_alg_t *a;

    CU_ASSERT_FATAL(cc != NULL);
    cc->eligible = 1;
    cc->state    = LOOM_COLL_SHM_READY;
    cc->cma      = LOOM_COLL_CMA_UNKNOWN;
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, 8, 0, 0)->name, "shm");
    /* the eager bcast on one node, with its fast member, up to the shm limit */
    a = pick_on(&node2, LOOM_COLL_BCAST, 8 << 10, 0, 0);
    CU_ASSERT_STRING_EQUAL(a->name, "shm");
    CU_ASSERT_PTR_NOT_NULL(a->fast.bcast);
    /* above it the staged eager bcast to 64 KiB when ranks outnumber cores,
     * else (and above 64 KiB) bcast cma, which waits once per rank and so
     * stays in the table either way: the probe step while unknown */
    if (loom_progress_oversubscribed()) {
        CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_BCAST, (8 << 10) + 1, 0, 0)->name,
                               "stage");
    } else {
        CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_BCAST, (8 << 10) + 1, 0, 0),
                            &loom_coll_alg_cma_setup);
    }
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_BCAST, (64 << 10) + 1, 0, 0),
                        &loom_coll_alg_cma_setup);
    cc->cma = LOOM_COLL_CMA_YES;
    a = pick_on(&node2, LOOM_COLL_BCAST, 1 << 20, 0, 0);
    CU_ASSERT_STRING_EQUAL(a->name, "cma");
    CU_ASSERT_PTR_EQUAL(a->progress, loom_coll_bcast_cma);
    cc->cma = LOOM_COLL_CMA_UNKNOWN;
    if (loom_progress_oversubscribed()) {
        return;    /* test_cma_shared_cores */
    }
    a = pick_on(&node2, LOOM_COLL_ALLREDUCE, 64 << 10, 0, 0);
    CU_ASSERT_PTR_EQUAL(a, &loom_coll_alg_cma_setup);
    CU_ASSERT_STRING_EQUAL(a->name, "cma-probe");
    CU_ASSERT(a->flags & LOOM_COLL_ALG_CMA);
    CU_ASSERT_PTR_NULL(a->fast.allreduce);
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, 64 << 10, 1, 0),
                        &loom_coll_alg_cma_setup);
    /* a forced reduce (rabenseifner here) never waits for the verdict
     * (the table's reduce: test_select_reduce.c) */
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_REDUCE, 64 << 10, 0, 0)->name,
                           "rabenseifner");

    cc->cma = LOOM_COLL_CMA_YES;
    a = pick_on(&node2, LOOM_COLL_ALLREDUCE, 64 << 10, 0, 0);
    CU_ASSERT_STRING_EQUAL(a->name, "cma");
    CU_ASSERT_PTR_EQUAL(a->progress, loom_coll_allreduce_cma);
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, 64 << 10, 1, 0)->progress,
                        loom_coll_allreduce_cma);

    /* after the step, "yes" keeps cma */
    CU_ASSERT_PTR_EQUAL(after_cma(64 << 10, 0)->progress, loom_coll_allreduce_cma);

    /* "no": a call the table gives cma still gets the step (it takes the
     * on-node number on every rank, whether or not a rank knew the verdict
     * when it posted the call); the step spends the operation and selects
     * again, now skipping cma */
    cc->cma = LOOM_COLL_CMA_NO;
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, 8 << 10, 0, 0)->name, "shm");
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, 16 << 10, 0, 0),
                        &loom_coll_alg_cma_setup);
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, 1 << 20, 1, 0),
                        &loom_coll_alg_cma_setup);
    CU_ASSERT_STRING_EQUAL(after_cma(16 << 10, 0)->name, "recursive_doubling");
    CU_ASSERT_STRING_EQUAL(after_cma(1 << 20, 0)->name, "rabenseifner");
    CU_ASSERT_STRING_EQUAL(after_cma(8 << 20, 0)->name, "ring");
    CU_ASSERT_PTR_EQUAL(after_cma(1 << 20, 1)->progress, loom_coll_allreduce_ordered_rd);
    /* other kinds are unchanged */
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_REDUCE, 64 << 10, 0, 0)->name,
                           "rabenseifner");
}

/*
 * Allreduce when ranks outnumber cores (session 14): recursive doubling to
 * 16 KiB, then cma (its shared rule: the table's own skip of cma there
 * does not apply to a rule that names the condition) to 4 MiB, the ring
 * above; off the node never; after "no" the rules below cma. The engine's
 * oversubscribed flag is set by hand (no bootstrap here).
 */
static void test_cma_shared_cores(void)
{
    loom_coll_comm_t *cc = node2.coll_priv;
    int saved = loom_p2p_engine.oversubscribed;

    CU_ASSERT_FATAL(cc != NULL);
    loom_p2p_engine.oversubscribed = 1;
    cc->cma = LOOM_COLL_CMA_UNKNOWN;
    /* session 14: cma above 16 KiB when ranks share cores too (its shared
     * rule), recursive doubling to 16 KiB; "no": the rules below it */
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, 16 << 10, 0, 0)->name,
                           "recursive_doubling");
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, (16 << 10) + 4, 0, 0),
                        &loom_coll_alg_cma_setup);
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, 1 << 20, 1, 0),
                        &loom_coll_alg_cma_setup);
    cc->cma = LOOM_COLL_CMA_YES;
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, 4 << 20, 0, 0)->progress,
                        loom_coll_allreduce_cma);
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_ALLREDUCE, (4 << 20) + 4, 0, 0)->name,
                           "ring");
    /* off the node never (a per-node rule) */
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_ALLREDUCE, 1 << 20, 0, 0)->name, "rabenseifner");
    cc->cma = LOOM_COLL_CMA_NO;
    CU_ASSERT_STRING_EQUAL(after_cma(64 << 10, 0)->name, "rabenseifner");
    CU_ASSERT_PTR_EQUAL(after_cma(64 << 10, 1)->progress, loom_coll_allreduce_ordered_rd);
    cc->cma = LOOM_COLL_CMA_UNKNOWN;
    loom_p2p_engine.oversubscribed = saved;
}

/*
 * Small gather and scatter on one node: the eager slot algorithms (session
 * 12); scatter while the root's p blocks fit its slot, then the stage
 * (session 13, whether or not ranks outnumber cores). Off the node,
 * and for the v variants, the message algorithms. After test_cma_setup
 * (node2's segment is set up).
 */
static void test_gather_scatter_shm(void)
{
    loom_coll_comm_t *cc = node2.coll_priv;
    int shared = loom_progress_oversubscribed();

    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_GATHER, 1, 0, 0)->name, "shm");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_GATHER, 8 << 10, 0, 0)->name, "shm");
    /* above it cma to 32 KiB (session 13), at 2 ranks at every size
     * (session 18: both ranks share the copy): the set-up step while the
     * CMA verdict is unknown, cma after "yes", binomial after "no", then
     * linear */
    cc->cma = LOOM_COLL_CMA_UNKNOWN;
    if (shared) {    /* the staged eager gather first (p x block <= 64 KiB) */
        CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_GATHER, (8 << 10) + 1, 0, 0)->fast.move,
                            loom_coll_fast_gather_stage);
    } else {
        CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_GATHER, (8 << 10) + 1, 0, 0),
                            &loom_coll_alg_cma_setup);
    }
    cc->cma = LOOM_COLL_CMA_YES;
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_GATHER, 32 << 10, 0, 0)->name,
                           shared ? "stage" : "cma");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_GATHER, (32 << 10) + 1, 0, 0)->name,
                           "cma");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_GATHER, 4 << 20, 0, 0)->name, "cma");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_GATHER, 8, 0, 1)->name, "linear");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_SCATTER, 1, 0, 0)->name, "shm");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_SCATTER, 4 << 10, 0, 0)->name, "shm");
    /* above the slot, the stage (session 13) to 8 KiB blocks, and to
     * p x block = 64 KiB when ranks outnumber cores; then cma (any block
     * size at 2 ranks) */
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_SCATTER, (4 << 10) + 1, 0, 0)->fast.move,
                        loom_coll_fast_scatter_stage);
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_SCATTER, 8 << 10, 0, 0)->name, "stage");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_SCATTER, 32 << 10, 0, 0)->name,
                           shared ? "stage" : "cma");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_SCATTER, (32 << 10) + 1, 0, 0)->name,
                           "cma");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_SCATTER, 1 << 20, 0, 0)->name, "cma");
    cc->cma = LOOM_COLL_CMA_NO;    /* the step's answer on "no": the rules below cma */
    CU_ASSERT_STRING_EQUAL(after_cma_of(LOOM_COLL_GATHER, 16 << 10)->name, "binomial");
    CU_ASSERT_STRING_EQUAL(after_cma_of(LOOM_COLL_SCATTER, 16 << 10)->name, "binomial");
    CU_ASSERT_STRING_EQUAL(after_cma_of(LOOM_COLL_GATHER, 1 << 20)->name, "linear");
    CU_ASSERT_STRING_EQUAL(after_cma_of(LOOM_COLL_SCATTER, 1 << 20)->name, "linear");
    cc->cma = LOOM_COLL_CMA_UNKNOWN;
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_SCATTER, 8, 0, 1)->name, "linear");
    /* shm (its fast member): allgather up to 1 KiB blocks, at 2 ranks up
     * to the 8 KiB slot (session 18); alltoall up to 4 KiB blocks */
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLGATHER, 1 << 10, 0, 0)->fast.move,
                        loom_coll_fast_allgather);
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLGATHER, 2 << 10, 0, 0)->fast.move,
                        loom_coll_fast_allgather);
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLGATHER, 8 << 10, 0, 0)->fast.move,
                        loom_coll_fast_allgather);
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_ALLTOALL, 1 << 10, 0, 0)->fast.move,
                        loom_coll_fast_alltoall);
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_ALLTOALL, (4 << 10) + 4, 0, 0)->name,
                           "pairwise");
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_GATHER, 8, 0, 0)->fast.move,
                        loom_coll_fast_gather);
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_SCATTER, 8, 0, 0)->fast.move,
                        loom_coll_fast_scatter);
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_GATHER, 8, 0, 0)->name, "binomial");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_SCATTER, 8, 0, 0)->name, "binomial");
    /* off a node never a rule of ranks sharing cores (a per-node property):
     * a large allgather is the ring whatever this node says */
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_ALLGATHER, 1 << 20, 0, 0)->name, "ring");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_SCATTER, 1 << 20, 0, 0)->name, "linear");
}

/*
 * reduce_scatter on one node (session 14): shm while the whole input fits
 * the slot (both kinds, ordered calls too: it folds in rank order), the
 * message algorithms above it, at 2 ranks to 32 B, and off the node.
 */
static void test_reduce_scatter_shm(void)
{
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_REDUCE_SCATTER, 32, 0, 0)->name, "ring");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_REDUCE_SCATTER, 40, 0, 0)->name, "shm");
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_REDUCE_SCATTER, 8 << 10, 1, 0)->progress,
                        loom_coll_reduce_scatter_shm);
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_REDUCE_SCATTER, (8 << 10) + 8, 0, 0)->name,
                           "ring");
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_REDUCE_SCATTERV, 32, 0, 1)->name,
                           "pairwise");
    CU_ASSERT_PTR_EQUAL(pick_on(&node2, LOOM_COLL_REDUCE_SCATTERV, 40, 1, 1)->progress,
                        loom_coll_reduce_scatterv_shm);
    CU_ASSERT_STRING_EQUAL(pick_on(&node2, LOOM_COLL_REDUCE_SCATTERV, (8 << 10) + 8, 0, 1)->name,
                           "pairwise");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_REDUCE_SCATTER, 64, 0, 0)->name, "ring");
    CU_ASSERT_STRING_EQUAL(pick(LOOM_COLL_REDUCE_SCATTERV, 64, 0, 1)->name, "pairwise");
}

int main(void)
{
    CU_pSuite suite;
    unsigned failed;

    setenv("LOOM_REDUCE_ALGORITHM", "rabenseifner", 1);
    setenv("LOOM_IB_MCAST_THRESHOLD", "0", 1);
    comm4.size = 4;
    strcpy(comm4.name, "fake4");
    node2.size = 2;
    strcpy(node2.name, "node2");
    if (loom_coll_init() != LOOM_OK || CU_initialize_registry() != CUE_SUCCESS) {
        return 1;
    }
    suite = CU_add_suite("coll_select", NULL, NULL);
    CU_add_test(suite, "allreduce: rules and ordered substitutes", test_allreduce);
    CU_add_test(suite, "reductions: ordered calls get ordered algorithms", test_reductions);
    CU_add_test(suite, "forced algorithm and its substitute", test_forced);
    CU_add_test(suite, "bcast: multicast off gives the tree", test_mcast_tree);
    CU_add_test(suite, "fast members only on node", test_fast_members);
    CU_add_test(suite, "allreduce: the CMA set-up step and each verdict", test_cma_setup);
    CU_add_test(suite, "allreduce: cma when ranks outnumber cores", test_cma_shared_cores);
    CU_add_test(suite, "gather, scatter: eager slots on one node", test_gather_scatter_shm);
    CU_add_test(suite, "reduce_scatter: shm on one node", test_reduce_scatter_shm);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failed = CU_get_number_of_failures();
    free(comm4.coll_priv);
    free(node2.coll_priv);
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}
