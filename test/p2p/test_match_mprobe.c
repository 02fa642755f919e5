/*
 * test_match_mprobe.c: the matching engine's matched-probe operation
 * (loom_match_unexp_take), alone: it takes the earliest matching
 * unexpected message (exact and wildcard lookups), removes it from both
 * the bucket and the arrival list so no later find, take or wildcard
 * receive sees it, leaves the order of the others intact, keeps contexts
 * apart, and hands back a self-linked entry. A seeded random workload is
 * checked against a brute-force model of MPI matching with stolen
 * messages.
 */
#include "../common/cunit_main.h"
#include "match_int.h"

#include <stdlib.h>

static loom_match_t tm;

static void test_take_exact(void)
{
    loom_match_unexp_t u1, u2, u3;

    loom_match_init(&tm);
    loom_match_unexp_add(&tm, &u1, 0, 1, 5);
    loom_match_unexp_add(&tm, &u2, 0, 1, 5);
    loom_match_unexp_add(&tm, &u3, 0, 2, 5);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 0, 1, 5), &u1);
    CU_ASSERT_EQUAL(tm.num_unexp, 2);
    /* taken: self-linked, and neither a find nor a take sees it again */
    CU_ASSERT_PTR_EQUAL(u1.hash_list.next, &u1.hash_list);
    CU_ASSERT_PTR_EQUAL(u1.all_list.next, &u1.all_list);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, 1, 5), &u2);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 0, 1, 5), &u2);
    CU_ASSERT_PTR_NULL(loom_match_unexp_take(&tm, 0, 1, 5));
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 0, 2, 5), &u3);
    CU_ASSERT_EQUAL(tm.num_unexp, 0);
    CU_ASSERT_PTR_NULL(loom_match_unexp_take(&tm, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG));
}

static void test_take_wildcard(void)
{
    loom_match_unexp_t a, b, c, d;

    loom_match_init(&tm);
    loom_match_unexp_add(&tm, &a, 0, 3, 7);
    loom_match_unexp_add(&tm, &b, 0, 1, 5);
    loom_match_unexp_add(&tm, &c, 0, 2, 5);
    loom_match_unexp_add(&tm, &d, 0, 1, 6);
    /* the earliest arrival that matches, whatever its bucket */
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 0, LOOM_ANY_SOURCE, 5), &b);
    /* the probed message is gone for a later wildcard receive or probe */
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, LOOM_ANY_SOURCE, 5), &c);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, 1, LOOM_ANY_TAG), &d);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG), &a);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 0, 1, LOOM_ANY_TAG), &d);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG), &c);
    CU_ASSERT_EQUAL(tm.num_unexp, 0);
}

static void test_take_contexts(void)
{
    loom_match_unexp_t a, b;

    loom_match_init(&tm);
    loom_match_unexp_add(&tm, &a, 4, 1, 5);
    loom_match_unexp_add(&tm, &b, 6, 1, 5);
    CU_ASSERT_PTR_NULL(loom_match_unexp_take(&tm, 5, LOOM_ANY_SOURCE, LOOM_ANY_TAG));
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 6, LOOM_ANY_SOURCE, LOOM_ANY_TAG), &b);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 4, 1, 5), &a);
}

/* a taken entry stays out even when more messages of its key arrive */
static void test_take_then_arrivals(void)
{
    loom_match_unexp_t a, b;

    loom_match_init(&tm);
    loom_match_unexp_add(&tm, &a, 0, 1, 5);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_take(&tm, 0, 1, 5), &a);
    loom_match_unexp_add(&tm, &b, 0, 1, 5);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG), &b);
    CU_ASSERT_EQUAL(tm.num_unexp, 1);
    /* the prober may re-queue nothing: the taken entry is independent */
    CU_ASSERT_PTR_EQUAL(a.all_list.next, &a.all_list);
}

#define N_MSG 600

/* random arrivals and takes, against a list in arrival order */
static void test_take_random_model(void)
{
    static loom_match_unexp_t u[N_MSG];
    static int gone[N_MSG];
    int added = 0, bad = 0;

    srand(12345);
    loom_match_init(&tm);
    for (int step = 0; step < 4 * N_MSG; ++step) {
        if (added < N_MSG && rand() % 2 == 0) {
            loom_match_unexp_add(&tm, &u[added], (uint32_t)(rand() % 2), rand() % 4,
                                 rand() % 3);
            gone[added++] = 0;
            continue;
        }
        uint32_t ctx = (uint32_t)(rand() % 2);
        int src = rand() % 5 - 1, tag = rand() % 4 - 1;   /* -1: wildcard */
        int want = -1;

        for (int i = 0; i < added && want < 0; ++i) {
            if (!gone[i] && u[i].ctx == ctx && (src < 0 || u[i].src == src) &&
                (tag < 0 || u[i].tag == tag)) {
                want = i;
            }
        }
        loom_match_unexp_t *got = loom_match_unexp_take(&tm, ctx, src, tag);
        if ((want < 0 && got != NULL) || (want >= 0 && got != &u[want])) {
            bad = 1;
        }
        if (want >= 0) {
            gone[want] = 1;
        }
    }
    CU_ASSERT_FALSE(bad);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "take exact", test_take_exact },
        { "take wildcard", test_take_wildcard },
        { "take keeps contexts apart", test_take_contexts },
        { "taken entry stays out", test_take_then_arrivals },
        { "random workload vs model", test_take_random_model },
        { NULL, NULL },
    };

    return loom_test_run_suite("match_mprobe", cases, NULL, NULL);
}
