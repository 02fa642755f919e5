/*
 * test_rma_fastview.c: the epoch state machine's per-target answers for the
 * MPI binding's inline path (rma_epoch.c, e->ok; rma_int.h,
 * loom_rma_fast_t.access), without a job.
 *
 * The bytes must say exactly what loom_rma_epoch_access and
 * loom_rma_epoch_flush say: ok[t] >= 1 iff an operation to t may be issued,
 * ok[t] == 2 iff also a flush of t is allowed, ok[size] == 2 iff a flush of
 * every target is. Checked after every step of fixed sequences (fence then
 * lock, lock then more targets, lock_all, PSCW after a fence, NOSUCCEED)
 * and of long random sequences of every transition, legal or not (a
 * refused transition must leave the bytes as they were), at window sizes
 * 1..6.
 */
#include "../common/cunit_main.h"
#include "rma_priv.h"

#include <string.h>

/* every byte of e->ok against the state machine's own answers */
static int fastview_consistent(const loom_rma_epoch_t *e)
{
    for (int t = 0; t < e->size; ++t) {
        int acc = loom_rma_epoch_access(e, t) == LOOM_OK;
        int fl  = acc && loom_rma_epoch_flush(e, t) == LOOM_OK;

        if ((e->ok[t] >= 1) != acc || (e->ok[t] == 2) != fl) {
            return 0;
        }
    }
    return (e->ok[e->size] == 2) == (loom_rma_epoch_flush(e, -1) == LOOM_OK);
}

static void test_fastview_fixed(void)
{
    loom_rma_epoch_t e;
    int grp[2] = { 0, 2 };

    CU_ASSERT_EQUAL_FATAL(loom_rma_epoch_init(&e, 4), LOOM_OK);
    CU_ASSERT(fastview_consistent(&e));
    CU_ASSERT_EQUAL(e.ok[1], 0);
    CU_ASSERT_EQUAL(loom_rma_epoch_fence(&e, 0), LOOM_OK);
    CU_ASSERT(fastview_consistent(&e));
    CU_ASSERT_EQUAL(e.ok[3], 1);          /* operations, no flush */
    CU_ASSERT_EQUAL(loom_rma_epoch_lock(&e, 1), LOOM_OK);
    CU_ASSERT(fastview_consistent(&e));
    CU_ASSERT_EQUAL(e.ok[1], 2);
    CU_ASSERT_EQUAL(e.ok[3], 0);          /* the fence epoch's access is gone */
    CU_ASSERT_EQUAL(e.ok[4], 2);          /* flush_all allowed */
    CU_ASSERT_EQUAL(loom_rma_epoch_lock(&e, 3), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_unlock(&e, 1), LOOM_OK);
    CU_ASSERT(fastview_consistent(&e));
    CU_ASSERT_EQUAL(e.ok[1], 0);
    CU_ASSERT_EQUAL(e.ok[4], 2);
    CU_ASSERT_EQUAL(loom_rma_epoch_unlock(&e, 3), LOOM_OK);
    CU_ASSERT(fastview_consistent(&e));
    CU_ASSERT_EQUAL(e.ok[4], 0);
    CU_ASSERT_EQUAL(loom_rma_epoch_lock_all(&e), LOOM_OK);
    CU_ASSERT(fastview_consistent(&e));
    CU_ASSERT_EQUAL(loom_rma_epoch_unlock_all(&e), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_fence(&e, 0), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_fence(&e, LOOM_RMA_MODE_NOSUCCEED), LOOM_OK);
    CU_ASSERT(fastview_consistent(&e));
    CU_ASSERT_EQUAL(e.ok[0], 0);
    CU_ASSERT_EQUAL(loom_rma_epoch_fence(&e, 0), LOOM_OK);
    CU_ASSERT_EQUAL(loom_rma_epoch_start(&e, 2, grp), LOOM_OK);   /* after a fence */
    CU_ASSERT(fastview_consistent(&e));
    CU_ASSERT_EQUAL(e.ok[0], 1);
    CU_ASSERT_EQUAL(e.ok[1], 0);
    CU_ASSERT_EQUAL(e.ok[2], 1);
    CU_ASSERT_EQUAL(loom_rma_epoch_complete(&e), LOOM_OK);
    CU_ASSERT(fastview_consistent(&e));
    loom_rma_epoch_fini(&e);
}

/* one random transition (legal or not); a refused one must change nothing */
static void fastview_step(loom_rma_epoch_t *e, uint32_t *seed)
{
    uint8_t before[8];
    int t, grp[6], n = 0;
    loom_status_t st;

    *seed = *seed * 1103515245u + 12345u;
    t = (int)((*seed >> 8) % (uint32_t)(e->size + 1)) - (e->size == 0);
    memcpy(before, e->ok, (size_t)e->size + 1);
    for (int r = 0; r < e->size; ++r) {
        if ((*seed >> (16 + r)) & 1u) {
            grp[n++] = r;
        }
    }
    switch ((*seed >> 24) % 9) {
    case 0:  st = loom_rma_epoch_fence(e, 0); break;
    case 1:  st = loom_rma_epoch_fence(e, LOOM_RMA_MODE_NOSUCCEED); break;
    case 2:  st = loom_rma_epoch_lock(e, t); break;
    case 3:  st = loom_rma_epoch_unlock(e, t); break;
    case 4:  st = loom_rma_epoch_lock_all(e); break;
    case 5:  st = loom_rma_epoch_unlock_all(e); break;
    case 6:  st = loom_rma_epoch_start(e, n, grp); break;
    case 7:  st = loom_rma_epoch_complete(e); break;
    default: st = (*seed & 1u) ? loom_rma_epoch_post(e) : loom_rma_epoch_wait(e); break;
    }
    if (st != LOOM_OK) {
        CU_ASSERT(memcmp(before, e->ok, (size_t)e->size + 1) == 0);
    }
}

static void test_fastview_random(void)
{
    for (int size = 1; size <= 6; ++size) {
        loom_rma_epoch_t e;
        uint32_t seed = 0x5eed0000u + (uint32_t)size;
        int bad = 0;

        CU_ASSERT_EQUAL_FATAL(loom_rma_epoch_init(&e, size), LOOM_OK);
        for (int step = 0; step < 20000 && !bad; ++step) {
            fastview_step(&e, &seed);
            bad = !fastview_consistent(&e);
        }
        CU_ASSERT_EQUAL(bad, 0);
        loom_rma_epoch_fini(&e);
    }
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "fast view: fence, lock, lock_all, PSCW after a fence", test_fastview_fixed },
        { "fast view: random transitions at sizes 1..6", test_fastview_random },
        { NULL, NULL },
    };
    return loom_test_run_suite("rma fast view", cases, NULL, NULL);
}
