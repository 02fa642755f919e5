/*
 * test_tcp_rev13.c: gets asked from inside a get's completion (session 13's
 * review: a typed receive over tcp asks for its next chunk before it
 * unpacks the one that arrived, and tcp writes such a GET_REQ at once,
 * tcp_ep.c "in_get_cb"), on the in-process ranks of tcp_world.h.
 *
 * Covered: a chain of gets, each asked from the previous one's completion
 * (in order, every byte, each completed from a later progress and never
 * inside the get call that asked for it: no recursion), and such a get
 * whose immediate write fails (the socket shut for writing first): the
 * contract of tl.h holds (a get that answers LOOM_INPROGRESS completes
 * from a later progress; any other answer never completes), where the
 * failed write used to complete it inside the call that then answered
 * LOOM_INPROGRESS, so the caller went on using a finished request.
 */
#include "cunit_main.h"
#include "tcp_world.h"

#include "runtime_config_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define CHAIN 24                      /* gets in the chain */
#define PIECE ((size_t)96 << 10)      /* bytes each reads (the last: fewer) */

/* one get of the chain or of the failure case, and what its completion saw */
typedef struct chain_op {
    loom_tl_comp_t comp;
    int            idx;
    int            done;
    int            inside;    /* completed while its own get call was running */
    loom_status_t  status;
} chain_op_t;

static struct {
    chain_op_t     ops[CHAIN + 1];
    uint8_t       *src, *dst;
    loom_tl_rkey_t rkey;
    int            calling;   /* index of the get whose call is running, or -1 */
    int            depth, max_depth, order_bad, next;
    int            fail;      /* failure case: shut the socket before the next get */
    loom_status_t  fail_st;   /* what that get answered */
} g;

static size_t piece_len(int i)
{
    return i == CHAIN - 1 ? PIECE / 3 + 5 : PIECE;
}

static void chain_done(loom_tl_comp_t *comp, loom_status_t status);

/* rank 1 asks for piece @p i of rank 0's region */
static loom_status_t chain_ask(int i)
{
    chain_op_t *op = &g.ops[i];
    loom_status_t st;

    op->comp.cb = chain_done;
    op->idx     = i;
    g.calling   = i;
    st = loom_tl_ep_get(world.ep[1][0], g.dst + (size_t)i * PIECE, piece_len(i),
                        (uint64_t)(uintptr_t)(g.src + (size_t)i * PIECE), &g.rkey, &op->comp);
    g.calling   = -1;
    return st;
}

static void chain_done(loom_tl_comp_t *comp, loom_status_t status)
{
    chain_op_t *op = loom_container_of(comp, chain_op_t, comp);

    op->done++;
    op->status = status;
    op->inside = op->idx == g.calling;
    g.order_bad += op->idx != g.next++;
    if (status != LOOM_OK || op->idx + 1 >= CHAIN) {
        return;
    }
    if (++g.depth > g.max_depth) {
        g.max_depth = g.depth;
    }
    if (g.fail) {
        /* the next GET_REQ's write fails: EPIPE */
        CU_ASSERT_EQUAL(shutdown(loom_tcp_ep_of(world.ep[1][0])->conn->fd, SHUT_WR), 0);
    }
    g.fail_st = chain_ask(op->idx + 1);
    CU_ASSERT(g.fail_st == LOOM_INPROGRESS || g.fail);
    --g.depth;
}

static int chain_over(void)
{
    if (g.fail) {   /* the second get refused, or failed */
        return g.ops[0].done && (g.ops[1].done || g.fail_st != LOOM_INPROGRESS);
    }
    for (int i = 0; i < CHAIN; ++i) {
        if (g.ops[i].done == 0) {
            return 0;
        }
    }
    return 1;
}

static void chain_setup(int fail)
{
    size_t total = (size_t)(CHAIN - 1) * PIECE + piece_len(CHAIN - 1);
    loom_tl_memh_t *memh;

    memset(&g, 0, sizeof(g));
    g.calling = -1;
    g.fail    = fail;
    g.src     = malloc(total);
    g.dst     = calloc(1, total);
    CU_ASSERT_FATAL(g.src != NULL && g.dst != NULL);
    for (size_t i = 0; i < total; ++i) {
        g.src[i] = (uint8_t)(i * 7 ^ (i >> 11));
    }
    world_open(2, 1);
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[0], g.src, total, &g.rkey, &memh),
                          LOOM_OK);
    CU_ASSERT_EQUAL(chain_ask(0), LOOM_INPROGRESS);
    CU_ASSERT(world_wait_for(chain_over));
    for (int i = 0; i < CHAIN; ++i) {
        CU_ASSERT_EQUAL(g.ops[i].inside, 0);
    }
    CU_ASSERT_EQUAL(g.order_bad, 0);
    CU_ASSERT_EQUAL(g.max_depth, 1);   /* each completion from progress, none nested */
    if (fail) {
        /* refused, or failed from a later progress: never both, never inside the call */
        CU_ASSERT_EQUAL(g.ops[1].done, g.fail_st == LOOM_INPROGRESS ? 1 : 0);
        CU_ASSERT(g.ops[1].done == 0 || g.ops[1].status < 0);
        CU_ASSERT(g.fail_st == LOOM_INPROGRESS || g.fail_st < 0);
        CU_ASSERT_EQUAL(world.st[1].errs, 1);
        CU_ASSERT_EQUAL(world.st[1].err_peer, 0);
    } else {
        for (int i = 0; i < CHAIN; ++i) {
            CU_ASSERT_EQUAL(g.ops[i].done, 1);
            CU_ASSERT_EQUAL(g.ops[i].status, LOOM_OK);
        }
        CU_ASSERT(memcmp(g.dst, g.src, total) == 0);
        CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    }
    loom_tl_mem_release(world.iface[0], memh);
    world_close();
    free(g.src);
    free(g.dst);
}

static void test_chain(void)
{
    chain_setup(0);
}

static void test_chain_write_fails(void)
{
    chain_setup(1);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "gets asked from completions: in order, every byte, none nested", test_chain },
        { "a get asked from a completion whose write fails: never completed inside the call",
          test_chain_write_fails },
        { NULL, NULL },
    };

    loom_runtime_config_load();
    return loom_test_run_suite("tcp transport: gets from completions", cases, NULL, NULL);
}
