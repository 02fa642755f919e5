/*
 * test_p2pext.c: the native point-to-point additions in one process (a
 * singleton job, self-sends): persistent requests (inactive semantics,
 * restart, free while active, wait/test families, errors), the matched
 * probe (the message leaves matching: a later wildcard receive or probe
 * never sees it; eager and rendezvous; PROC_NULL; truncation), cancel of
 * unmatched sends (ssend and rendezvous: withdrawn; eager: delivered),
 * loom_request_get_status, and generalized/custom extended requests. An
 * eager send held in the back-pressure queue (a stray ACK put there first
 * stands for back-pressure) is taken out of it by its cancel.
 * Runs with LOOM_ERRORS=return so errors come back as codes.
 */
#include "p2p_inject.h"   /* block_queue; cunit_main.h, loom.h, the engine's headers */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (1u << 20)   /* bytes: above any eager limit */

static void test_persist_basic(void)
{
    int v = 0, x = -1, flag = -1;
    loom_request_t s, r, arr[2];
    loom_msg_status_t st;
    size_t idx = 7;

    CU_ASSERT_EQUAL(loom_recv_init(&x, 1, LOOM_INT32, 0, 5, LOOM_COMM_WORLD, &r), LOOM_OK);
    CU_ASSERT_EQUAL(loom_send_init(&v, 1, LOOM_INT32, 0, 5, 0, LOOM_COMM_WORLD, &s), LOOM_OK);
    /* inactive: wait/test return at once, empty status, handle kept */
    st.source = 9;
    CU_ASSERT_EQUAL(loom_wait(&r, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.source, LOOM_ANY_SOURCE);
    CU_ASSERT_EQUAL(st.bytes, 0);
    CU_ASSERT_PTR_NOT_NULL(r);
    CU_ASSERT_EQUAL(loom_test(&r, &flag, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 1);
    arr[0] = r;
    arr[1] = s;
    CU_ASSERT_EQUAL(loom_waitany(2, arr, &idx, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(idx, (size_t)-1);                    /* inactive = null */
    for (int i = 0; i < 100; ++i) {
        v = i;
        arr[0] = r;
        arr[1] = s;
        CU_ASSERT_EQUAL(loom_startall(2, arr), LOOM_OK);
        CU_ASSERT_EQUAL(loom_start(&arr[0]), LOOM_ERR_INVALID_REQUEST);   /* active */
        CU_ASSERT_EQUAL(loom_waitall(2, arr, NULL), LOOM_OK);
        CU_ASSERT_PTR_EQUAL(arr[0], r);
        CU_ASSERT_PTR_EQUAL(arr[1], s);
        CU_ASSERT_EQUAL(x, i);
    }
    CU_ASSERT_EQUAL(loom_request_free(&r), LOOM_OK);
    CU_ASSERT_PTR_NULL(r);
    /* freed while active: completes in the background */
    CU_ASSERT_EQUAL(loom_start(&s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_request_free(&s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv(&x, 1, LOOM_INT32, 0, 5, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(x, 99);
}

static void test_persist_errors(void)
{
    int v = 0;
    loom_request_t r = LOOM_REQUEST_NULL, q;

    CU_ASSERT_EQUAL(loom_start(&r), LOOM_ERR_INVALID_REQUEST);
    CU_ASSERT_EQUAL(loom_start(NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_send_init(&v, 1, LOOM_INT32, 1, 0, 0, LOOM_COMM_WORLD, &q),
                    LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_recv_init(&v, 1, LOOM_INT32, 0, -3, LOOM_COMM_WORLD, &q),
                    LOOM_ERR_INVALID_TAG);
    CU_ASSERT_EQUAL(loom_send_init(&v, 1, LOOM_INT32, 0, 0, 0, LOOM_COMM_WORLD, NULL),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_irecv(&v, 1, LOOM_INT32, LOOM_PROC_NULL, 0, LOOM_COMM_WORLD, &q),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_start(&q), LOOM_ERR_INVALID_REQUEST);   /* not persistent */
    CU_ASSERT_EQUAL(loom_wait(&q, NULL), LOOM_OK);
}

/* rendezvous persistent ssend/recv, restarted, with get_status */
static void test_persist_rndv(void)
{
    uint8_t *a = calloc(1, BIG), *b = calloc(1, BIG);
    loom_request_t s, r;
    loom_msg_status_t st;
    int flag = 0;

    CU_ASSERT_EQUAL(loom_send_init(a, BIG, LOOM_BYTE, 0, 6, 1, LOOM_COMM_WORLD, &s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv_init(b, BIG, LOOM_BYTE, LOOM_ANY_SOURCE, LOOM_ANY_TAG,
                                   LOOM_COMM_WORLD, &r), LOOM_OK);
    for (int i = 0; i < 5; ++i) {
        memset(a, i + 1, BIG);
        CU_ASSERT_EQUAL(loom_start(&s), LOOM_OK);
        CU_ASSERT_EQUAL(loom_start(&r), LOOM_OK);
        do {
            CU_ASSERT_EQUAL(loom_request_get_status(r, &flag, &st), LOOM_OK);
        } while (!flag);
        CU_ASSERT_EQUAL(st.bytes, BIG);
        CU_ASSERT_EQUAL(st.tag, 6);
        CU_ASSERT_EQUAL(loom_wait(&s, NULL), LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&r, &st), LOOM_OK);
        CU_ASSERT_EQUAL(b[0], i + 1);
        CU_ASSERT_EQUAL(b[BIG - 1], i + 1);
    }
    CU_ASSERT_EQUAL(loom_request_free(&s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_request_free(&r), LOOM_OK);
    free(a);
    free(b);
}

static void test_mprobe(void)
{
    uint8_t *big = malloc(BIG), *in = malloc(BIG);
    int one = 1, two = 2, x = 0, flag = 0;
    loom_request_t s1, s2, s3, rr;
    loom_message_t m1 = LOOM_MESSAGE_NULL, m2 = LOOM_MESSAGE_NULL;
    loom_msg_status_t st;

    memset(big, 0x3c, BIG);
    CU_ASSERT_EQUAL(loom_isend(&one, 1, LOOM_INT32, 0, 1, LOOM_COMM_WORLD, &s1), LOOM_OK);
    CU_ASSERT_EQUAL(loom_isend(big, BIG, LOOM_BYTE, 0, 2, LOOM_COMM_WORLD, &s2), LOOM_OK);
    CU_ASSERT_EQUAL(loom_isend(&two, 1, LOOM_INT32, 0, 1, LOOM_COMM_WORLD, &s3), LOOM_OK);
    CU_ASSERT_EQUAL(loom_mprobe(LOOM_ANY_SOURCE, LOOM_ANY_TAG, LOOM_COMM_WORLD, &m1, &st),
                    LOOM_OK);
    CU_ASSERT_EQUAL(st.tag, 1);
    CU_ASSERT_EQUAL(st.bytes, 4);
    CU_ASSERT_EQUAL(loom_improbe(0, 2, LOOM_COMM_WORLD, &flag, &m2, &st), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(st.bytes, BIG);
    /* both out of matching: a wildcard receive takes the third message */
    CU_ASSERT_EQUAL(loom_recv(&x, 1, LOOM_INT32, LOOM_ANY_SOURCE, LOOM_ANY_TAG,
                              LOOM_COMM_WORLD, &st), LOOM_OK);
    CU_ASSERT_EQUAL(x, 2);
    CU_ASSERT_EQUAL(loom_iprobe(LOOM_ANY_SOURCE, LOOM_ANY_TAG, LOOM_COMM_WORLD, &flag, NULL),
                    LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    /* the rendezvous data is read only now */
    CU_ASSERT_EQUAL(loom_imrecv(in, BIG, LOOM_BYTE, &m2, &rr), LOOM_OK);
    CU_ASSERT_PTR_NULL(m2);
    CU_ASSERT_EQUAL(loom_wait(&rr, &st), LOOM_OK);
    CU_ASSERT_EQUAL(in[BIG / 2], 0x3c);
    CU_ASSERT_EQUAL(st.bytes, BIG);
    CU_ASSERT_EQUAL(loom_mrecv(&x, 1, LOOM_INT32, &m1, &st), LOOM_OK);
    CU_ASSERT_EQUAL(x, 1);
    CU_ASSERT_EQUAL(loom_waitall(1, &s1, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&s2, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&s3, NULL), LOOM_OK);
    /* PROC_NULL, nothing there, misuse */
    CU_ASSERT_EQUAL(loom_mprobe(LOOM_PROC_NULL, 0, LOOM_COMM_WORLD, &m1, &st), LOOM_OK);
    CU_ASSERT_PTR_EQUAL(m1, LOOM_MESSAGE_NO_PROC);
    CU_ASSERT_EQUAL(loom_mrecv(&x, 1, LOOM_INT32, &m1, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.source, LOOM_PROC_NULL);
    CU_ASSERT_PTR_NULL(m1);
    CU_ASSERT_EQUAL(loom_improbe(0, 77, LOOM_COMM_WORLD, &flag, &m1, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT_EQUAL(loom_mrecv(&x, 1, LOOM_INT32, &m1, NULL), LOOM_ERR_INVALID_REQUEST);
    CU_ASSERT_EQUAL(loom_mprobe(0, 0, LOOM_COMM_WORLD, NULL, NULL), LOOM_ERR_INVALID_ARG);
    free(big);
    free(in);
}

static void test_mprobe_truncate(void)
{
    int v[3] = { 1, 2, 3 }, x[2] = { 0, 0 };
    loom_message_t m;
    loom_msg_status_t st;

    CU_ASSERT_EQUAL(loom_send(v, 3, LOOM_INT32, 0, 9, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_mprobe(0, 9, LOOM_COMM_WORLD, &m, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_mrecv(x, 2, LOOM_INT32, &m, &st), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(x[1], 2);
    CU_ASSERT_EQUAL(loom_iprobe(0, 9, LOOM_COMM_WORLD, &x[0], NULL), LOOM_OK);
    CU_ASSERT_EQUAL(x[0], 0);   /* consumed */
}

static void test_cancel_sends(void)
{
    uint8_t *big = malloc(BIG);
    int v = 4, x = 0;
    loom_request_t s;
    loom_msg_status_t st;

    /* unmatched ssend and rendezvous: withdrawn */
    CU_ASSERT_EQUAL(loom_issend(&v, 1, LOOM_INT32, 0, 11, LOOM_COMM_WORLD, &s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_cancel(&s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_cancel(&s), LOOM_OK);       /* twice: still one CANCEL */
    CU_ASSERT_EQUAL(loom_wait(&s, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.cancelled, 1);
    CU_ASSERT_EQUAL(loom_isend(big, BIG, LOOM_BYTE, 0, 12, LOOM_COMM_WORLD, &s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_cancel(&s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&s, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.cancelled, 1);
    CU_ASSERT_EQUAL(loom_iprobe(LOOM_ANY_SOURCE, LOOM_ANY_TAG, LOOM_COMM_WORLD, &x, NULL),
                    LOOM_OK);
    CU_ASSERT_EQUAL(x, 0);                            /* both gone */
    /* matched before the cancel: completes, not cancelled */
    CU_ASSERT_EQUAL(loom_issend(&v, 1, LOOM_INT32, 0, 13, LOOM_COMM_WORLD, &s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv(&x, 1, LOOM_INT32, 0, 13, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_cancel(&s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&s, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.cancelled, 0);
    CU_ASSERT_EQUAL(x, 4);
    free(big);
}

static void test_cancel_queued(void)
{
    int a = 1, b = 2, x = 0, flag = 1;
    loom_request_t sa, sb;
    loom_msg_status_t st;

    block_queue();
    CU_ASSERT_EQUAL(loom_isend(&a, 1, LOOM_INT32, 0, 14, LOOM_COMM_WORLD, &sa), LOOM_OK);
    CU_ASSERT_EQUAL(loom_isend(&b, 1, LOOM_INT32, 0, 14, LOOM_COMM_WORLD, &sb), LOOM_OK);
    CU_ASSERT_FALSE(sa->complete);                  /* queued, not on the wire */
    CU_ASSERT_EQUAL(loom_cancel(&sa), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&sa, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.cancelled, 1);
    CU_ASSERT_EQUAL(loom_wait(&sb, &st), LOOM_OK);  /* the queue drains */
    CU_ASSERT_EQUAL(st.cancelled, 0);
    CU_ASSERT_EQUAL(loom_recv(&x, 1, LOOM_INT32, 0, 14, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(x, 2);                          /* only the second arrived */
    for (int i = 0; i < 8; ++i) {
        loom_progress();
    }
    CU_ASSERT_EQUAL(loom_iprobe(0, 14, LOOM_COMM_WORLD, &flag, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT(loom_list_is_empty(&loom_p2p_engine.peers[0].pending));
}

/* a generalized request: completed by its owner, status from its callback */
static int greq_calls;

static loom_status_t greq_finish(loom_request_t req, loom_msg_status_t *status, int release)
{
    (void)req;
    greq_calls += release ? 100 : 1;
    if (status != LOOM_STATUS_IGNORE) {
        status->source = 42;
        status->tag    = 43;
        status->error  = LOOM_OK;
        status->cancelled = 0;
        status->bytes  = 8;
    }
    return LOOM_OK;
}

static void test_greq(void)
{
    loom_request_t g, arr[2];
    loom_msg_status_t st[2];
    int flag = -1;

    CU_ASSERT_EQUAL(loom_request_greq_alloc(LOOM_COMM_WORLD, greq_finish, &g), LOOM_OK);
    CU_ASSERT_EQUAL(loom_test(&g, &flag, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    loom_request_ext_complete(g, LOOM_OK);
    CU_ASSERT_EQUAL(loom_request_get_status(g, &flag, &st[0]), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(greq_calls, 1);
    arr[0] = g;
    arr[1] = LOOM_REQUEST_NULL;
    CU_ASSERT_EQUAL(loom_waitall(2, arr, st), LOOM_OK);
    CU_ASSERT_EQUAL(greq_calls, 101);
    CU_ASSERT_EQUAL(st[0].source, 42);
    CU_ASSERT_PTR_NULL(arr[0]);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "persistent: inactive, restart 100 times, free while active", test_persist_basic },
        { "persistent: errors", test_persist_errors },
        { "persistent rendezvous ssend/recv with get_status", test_persist_rndv },
        { "matched probe: out of matching, eager and rendezvous", test_mprobe },
        { "matched probe: truncation consumes the message", test_mprobe_truncate },
        { "cancel of unmatched and matched sends", test_cancel_sends },
        { "cancel of an eager send still queued", test_cancel_queued },
        { "generalized request", test_greq },
        { NULL, NULL },
    };

    return loom_test_run_singleton("p2p_ext", cases);
}
