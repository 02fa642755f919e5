/*
 * test_match.c: the tag-matching engine alone, without processes:
 * ordering with wildcards (sequence numbers across buckets and the wildcard
 * queue), context isolation, the unexpected queue (exact and wildcard
 * lookups, probe without removal), cancel, and a seeded random workload
 * checked against a brute-force reference model.
 */
#include "../common/cunit_main.h"
#include "match_int.h"

#include <stdlib.h>
#include <string.h>

static loom_match_t tm;

static int test_match_setup(void)
{
    loom_match_init(&tm);
    return 0;
}

static void post(loom_match_posted_t *p, uint32_t ctx, int src, int tag)
{
    loom_match_posted_prep(p, ctx, src, tag);
    loom_match_posted_add(&tm, p);
}

static void test_exact_fifo(void)
{
    loom_match_posted_t a, b;

    loom_match_init(&tm);
    post(&a, 0, 1, 5);
    post(&b, 0, 1, 5);
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 1, 5), &a);
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 1, 5), &b);
    CU_ASSERT_PTR_NULL(loom_match_posted_take(&tm, 0, 1, 5));
    CU_ASSERT_EQUAL(tm.num_posted, 0);
}

static void test_wildcard_order(void)
{
    loom_match_posted_t e1, w_src, e2, w_all, w_tag;

    loom_match_init(&tm);
    post(&e1, 0, 1, 5);                          /* seq 1 */
    post(&w_src, 0, LOOM_ANY_SOURCE, 5);         /* seq 2 */
    post(&e2, 0, 1, 5);                          /* seq 3 */
    post(&w_all, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG);
    post(&w_tag, 0, 2, LOOM_ANY_TAG);
    /* (1,5): e1 is older than w_src */
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 1, 5), &e1);
    /* (1,5) again: w_src (seq 2) is older than e2 (seq 3) */
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 1, 5), &w_src);
    /* (2,7): only the wildcards accept it; w_all is older than w_tag */
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 2, 7), &w_all);
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 2, 7), &w_tag);
    CU_ASSERT_PTR_NULL(loom_match_posted_take(&tm, 0, 2, 7));
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 1, 5), &e2);
    CU_ASSERT_EQUAL(tm.num_posted, 0);
}

static void test_wildcard_first(void)
{
    loom_match_posted_t w, e;

    loom_match_init(&tm);
    post(&w, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG);
    post(&e, 0, 3, 9);
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 3, 9), &w);
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 3, 9), &e);
}

static void test_context_isolation(void)
{
    loom_match_posted_t a, w;
    loom_match_unexp_t u;

    loom_match_init(&tm);
    post(&a, 0, 1, 5);
    post(&w, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG);
    CU_ASSERT_PTR_NULL(loom_match_posted_take(&tm, 1, 1, 5));
    CU_ASSERT_PTR_NULL(loom_match_posted_take(&tm, 2, 1, 5));
    loom_match_unexp_add(&tm, &u, 4, 1, 5);
    CU_ASSERT_PTR_NULL(loom_match_unexp_find(&tm, 0, 1, 5));
    CU_ASSERT_PTR_NULL(loom_match_unexp_find(&tm, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG));
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 4, LOOM_ANY_SOURCE, LOOM_ANY_TAG), &u);
}

static void test_unexpected(void)
{
    loom_match_unexp_t u1, u2, u3;

    loom_match_init(&tm);
    loom_match_unexp_add(&tm, &u1, 0, 1, 5);
    loom_match_unexp_add(&tm, &u2, 0, 2, 5);
    loom_match_unexp_add(&tm, &u3, 0, 1, 6);
    CU_ASSERT_EQUAL(tm.num_unexp, 3);
    /* probe: found, not removed */
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, LOOM_ANY_SOURCE, 5), &u1);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, LOOM_ANY_SOURCE, 5), &u1);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, 1, LOOM_ANY_TAG), &u1);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, 1, 6), &u3);
    CU_ASSERT_PTR_NULL(loom_match_unexp_find(&tm, 0, 3, LOOM_ANY_TAG));
    CU_ASSERT_PTR_NULL(loom_match_unexp_find(&tm, 0, 2, 6));
    loom_match_unexp_remove(&tm, &u1);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, LOOM_ANY_SOURCE, 5), &u2);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, 1, LOOM_ANY_TAG), &u3);
    CU_ASSERT_PTR_EQUAL(loom_match_unexp_find(&tm, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG), &u2);
    loom_match_unexp_remove(&tm, &u2);
    loom_match_unexp_remove(&tm, &u3);
    CU_ASSERT_EQUAL(tm.num_unexp, 0);
    CU_ASSERT_PTR_NULL(loom_match_unexp_find(&tm, 0, LOOM_ANY_SOURCE, LOOM_ANY_TAG));
}

static void test_cancel(void)
{
    loom_match_posted_t a, b, w;

    loom_match_init(&tm);
    post(&a, 0, 1, 5);
    post(&b, 0, 1, 5);
    post(&w, 0, LOOM_ANY_SOURCE, 5);
    CU_ASSERT_TRUE(loom_match_posted_is_queued(&a));
    CU_ASSERT_EQUAL(loom_match_posted_remove(&tm, &a), 1);
    CU_ASSERT_EQUAL(loom_match_posted_remove(&tm, &a), 0);
    CU_ASSERT_FALSE(loom_match_posted_is_queued(&a));
    CU_ASSERT_EQUAL(loom_match_posted_remove(&tm, &w), 1);
    CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, 0, 1, 5), &b);
    /* a matched receive cannot be cancelled any more */
    CU_ASSERT_EQUAL(loom_match_posted_remove(&tm, &b), 0);
    CU_ASSERT_PTR_NULL(loom_match_posted_take(&tm, 0, 1, 5));
    CU_ASSERT_EQUAL(tm.num_posted, 0);
}

/* ---- random workload against a reference model ------------------------------------ */

#define RND_OPS   20000
#define RND_MAX   512
#define RND_SRCS  4
#define RND_TAGS  3
#define RND_CTXS  2

typedef struct {
    loom_match_posted_t p;
    uint64_t order;      /* reference posting order */
    int      live;
} rnd_recv_t;

typedef struct {
    loom_match_unexp_t u;
    uint64_t order;
    int      live;
} rnd_msg_t;

static rnd_recv_t rnd_recvs[RND_MAX];
static rnd_msg_t  rnd_msgs[RND_MAX];

static int rnd_accepts(int rsrc, int rtag, int src, int tag)
{
    return (rsrc == LOOM_ANY_SOURCE || rsrc == src) && (rtag == LOOM_ANY_TAG || rtag == tag);
}

/* the earliest live receive accepting (ctx, src, tag), by brute force */
static rnd_recv_t *rnd_ref_recv(uint32_t ctx, int src, int tag)
{
    rnd_recv_t *best = NULL;

    for (int i = 0; i < RND_MAX; ++i) {
        rnd_recv_t *r = &rnd_recvs[i];
        if (r->live && r->p.ctx == ctx && rnd_accepts(r->p.src, r->p.tag, src, tag) &&
            (best == NULL || r->order < best->order)) {
            best = r;
        }
    }
    return best;
}

static rnd_msg_t *rnd_ref_msg(uint32_t ctx, int src, int tag)
{
    rnd_msg_t *best = NULL;

    for (int i = 0; i < RND_MAX; ++i) {
        rnd_msg_t *m = &rnd_msgs[i];
        if (m->live && m->u.ctx == ctx && rnd_accepts(src, tag, m->u.src, m->u.tag) &&
            (best == NULL || m->order < best->order)) {
            best = m;
        }
    }
    return best;
}

static int rnd_free_slot_recv(void)
{
    for (int i = 0; i < RND_MAX; ++i) {
        if (!rnd_recvs[i].live) {
            return i;
        }
    }
    return -1;
}

static int rnd_free_slot_msg(void)
{
    for (int i = 0; i < RND_MAX; ++i) {
        if (!rnd_msgs[i].live) {
            return i;
        }
    }
    return -1;
}

/* a receive is posted: it takes an unexpected message or is queued */
static int rnd_post(uint64_t order, uint32_t ctx, int src, int tag)
{
    rnd_msg_t *want = rnd_ref_msg(ctx, src, tag);
    loom_match_unexp_t *got = loom_match_unexp_find(&tm, ctx, src, tag);
    int slot;

    if (want != NULL || got != NULL) {
        if (want == NULL || got != &want->u) {
            return 0;
        }
        loom_match_unexp_remove(&tm, got);
        want->live = 0;
        return 1;
    }
    slot = rnd_free_slot_recv();
    if (slot < 0) {
        return 1;
    }
    rnd_recvs[slot].order = order;
    rnd_recvs[slot].live = 1;
    post(&rnd_recvs[slot].p, ctx, src, tag);
    return 1;
}

/* a message arrives: it matches a posted receive or becomes unexpected */
static int rnd_arrive(uint64_t order, uint32_t ctx, int src, int tag)
{
    rnd_recv_t *want = rnd_ref_recv(ctx, src, tag);
    loom_match_posted_t *got = loom_match_posted_take(&tm, ctx, src, tag);
    int slot;

    if (want != NULL || got != NULL) {
        if (want == NULL || got != &want->p) {
            return 0;
        }
        want->live = 0;
        return 1;
    }
    slot = rnd_free_slot_msg();
    if (slot < 0) {
        return 1;
    }
    rnd_msgs[slot].order = order;
    rnd_msgs[slot].live = 1;
    loom_match_unexp_add(&tm, &rnd_msgs[slot].u, ctx, src, tag);
    return 1;
}

static void test_random_vs_reference(void)
{
    unsigned seed = 12345;
    int bad = 0;

    loom_match_init(&tm);
    memset(rnd_recvs, 0, sizeof(rnd_recvs));
    memset(rnd_msgs, 0, sizeof(rnd_msgs));
    srand(seed);
    for (uint64_t op = 1; op <= RND_OPS && !bad; ++op) {
        uint32_t ctx = (uint32_t)(rand() % RND_CTXS) * 2;
        int src = rand() % RND_SRCS, tag = rand() % RND_TAGS;
        int kind = rand() % 10;

        if (kind < 4) {
            bad = !rnd_arrive(op, ctx, src, tag);
        } else if (kind < 9) {
            int wild = rand() % 4;
            bad = !rnd_post(op, ctx, (wild & 1) ? LOOM_ANY_SOURCE : src,
                            (wild & 2) ? LOOM_ANY_TAG : tag);
        } else {
            int i = rand() % RND_MAX;   /* cancel a random receive */
            if (rnd_recvs[i].live) {
                bad = loom_match_posted_remove(&tm, &rnd_recvs[i].p) != 1;
                rnd_recvs[i].live = 0;
            }
        }
        if (bad) {
            fprintf(stderr, "mismatch at op %llu (seed %u)\n", (unsigned long long)op, seed);
        }
    }
    CU_ASSERT_FALSE(bad);
}

static void test_many_keys(void)
{
    enum { N = 5000 };
    static loom_match_posted_t p[N];

    loom_match_init(&tm);
    for (int i = 0; i < N; ++i) {
        post(&p[i], (uint32_t)(i % 7) * 2, i % 13, i);
    }
    CU_ASSERT_EQUAL(tm.num_posted, N);
    for (int i = N; i-- > 0;) {
        CU_ASSERT_PTR_EQUAL(loom_match_posted_take(&tm, (uint32_t)(i % 7) * 2, i % 13, i),
                            &p[i]);
    }
    CU_ASSERT_EQUAL(tm.num_posted, 0);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "exact receives match in posting order", test_exact_fifo },
        { "wildcards and exact receives keep MPI order", test_wildcard_order },
        { "an older wildcard wins over a newer exact receive", test_wildcard_first },
        { "contexts never cross", test_context_isolation },
        { "unexpected queue: exact, wildcard, probe", test_unexpected },
        { "cancel removes only a still-posted receive", test_cancel },
        { "seeded random workload matches a reference model", test_random_vs_reference },
        { "5000 distinct keys through the hash", test_many_keys },
        { NULL, NULL },
    };
    return loom_test_run_suite("match", cases, test_match_setup, NULL);
}
