/*
 * test_self.c: the point-to-point engine in one process (a singleton job):
 * self-sends at every size across the eager/rendezvous boundary (up to
 * 64 MiB), ordering across protocols with wildcards, truncation (the message
 * is consumed by that receive only), probe, cancel, ssend, PROC_NULL,
 * communicator isolation, request calls, generic requests, hang reports
 * (SIGUSR1: the handler loom installs, or leaves alone, and the block it
 * writes), and a table of bad inputs that must return errors, never crash.
 * Runs with LOOM_ERRORS=return so errors come back as codes.
 */
#include "../common/cunit_main.h"
#include <loom.h>
#include "p2p_int.h"
#include "comm_int.h"
#include "request_int.h"
#include "p2p_engine_int.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; ++i) {
        p[i] = (uint8_t)(i * 7 + seed + (i >> 12));
    }
}

static int check(const uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; ++i) {
        if (p[i] != (uint8_t)(i * 7 + seed + (i >> 12))) {
            fprintf(stderr, "byte %zu of %zu differs\n", i, n);
            return 0;
        }
    }
    return 1;
}

static const size_t sizes[] = {
    0, 1, 7, 8, 63, 64, 255, 256, 257, 1000, 4095, 4096, 8191, 8192, 8193, 16384,
    65535, 65536, 65537, 1u << 20, (1u << 20) + 3, 16u << 20, 64u << 20,
};

/* isend first (message unexpected at the receiver), then recv */
static void test_sizes_unexpected(void)
{
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
        size_t n = sizes[k];
        uint8_t *s = malloc(n + 1), *r = malloc(n + 1);
        loom_request_t req;
        loom_msg_status_t st;

        fill(s, n, (unsigned)k);
        memset(r, 0, n + 1);
        CU_ASSERT_EQUAL_FATAL(loom_isend(s, n, LOOM_BYTE, 0, (int)k, LOOM_COMM_WORLD, &req),
                              LOOM_OK);
        CU_ASSERT_EQUAL(loom_recv(r, n, LOOM_BYTE, 0, (int)k, LOOM_COMM_WORLD, &st), LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&req, LOOM_STATUS_IGNORE), LOOM_OK);
        CU_ASSERT_PTR_NULL(req);
        CU_ASSERT_EQUAL(st.bytes, n);
        CU_ASSERT_EQUAL(st.source, 0);
        CU_ASSERT_EQUAL(st.tag, (int)k);
        CU_ASSERT_EQUAL(st.error, LOOM_OK);
        CU_ASSERT_TRUE(check(r, n, (unsigned)k));
        free(s);
        free(r);
    }
}

/* irecv first (expected), then send */
static void test_sizes_expected(void)
{
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
        size_t n = sizes[k];
        uint8_t *s = malloc(n + 1), *r = malloc(n + 1);
        loom_request_t rreq, sreq;
        loom_msg_status_t st;

        fill(s, n, (unsigned)k + 100);
        memset(r, 0, n + 1);
        CU_ASSERT_EQUAL_FATAL(loom_irecv(r, n + 1, LOOM_BYTE, LOOM_ANY_SOURCE, LOOM_ANY_TAG,
                                         LOOM_COMM_WORLD, &rreq), LOOM_OK);
        CU_ASSERT_EQUAL(loom_isend(s, n, LOOM_BYTE, 0, 42, LOOM_COMM_WORLD, &sreq), LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&rreq, &st), LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&sreq, LOOM_STATUS_IGNORE), LOOM_OK);
        CU_ASSERT_EQUAL(st.bytes, n);
        CU_ASSERT_EQUAL(st.tag, 42);
        CU_ASSERT_TRUE(check(r, n, (unsigned)k + 100));
        free(s);
        free(r);
    }
}

/* 200 messages alternating eager and rendezvous, same key: arrival order holds */
static void test_order_across_protocols(void)
{
    enum { N = 200 };
    static uint8_t bufs[N][20000], out[20000];
    loom_request_t reqs[N];

    for (int i = 0; i < N; ++i) {
        size_t n = (i % 3 == 0) ? 20000 : (size_t)(i % 50) + 4;
        memset(bufs[i], 0, sizeof(bufs[i]));
        memcpy(bufs[i], &i, sizeof(i));
        CU_ASSERT_EQUAL_FATAL(loom_isend(bufs[i], n, LOOM_BYTE, 0, 9, LOOM_COMM_WORLD,
                                         &reqs[i]), LOOM_OK);
    }
    for (int i = 0; i < N; ++i) {
        loom_msg_status_t st;
        int got = -1;
        int tag = (i % 2) ? LOOM_ANY_TAG : 9;
        int src = (i % 4) < 2 ? LOOM_ANY_SOURCE : 0;
        CU_ASSERT_EQUAL(loom_recv(out, sizeof(out), LOOM_BYTE, src, tag, LOOM_COMM_WORLD,
                                  &st), LOOM_OK);
        memcpy(&got, out, sizeof(got));
        CU_ASSERT_EQUAL(got, i);
        CU_ASSERT_EQUAL(st.bytes, (i % 3 == 0) ? 20000u : (size_t)(i % 50) + 4);
    }
    CU_ASSERT_EQUAL(loom_waitall(N, reqs, NULL), LOOM_OK);
}

static void test_wildcard_posted_order(void)
{
    int a = -1, b = -1, c = -1, one = 1, two = 2, three = 3;
    loom_request_t r[3];
    loom_msg_status_t st[3];

    CU_ASSERT_EQUAL(loom_irecv(&a, 1, LOOM_INT32, 0, 5, LOOM_COMM_WORLD, &r[0]), LOOM_OK);
    CU_ASSERT_EQUAL(loom_irecv(&b, 1, LOOM_INT32, LOOM_ANY_SOURCE, LOOM_ANY_TAG,
                               LOOM_COMM_WORLD, &r[1]), LOOM_OK);
    CU_ASSERT_EQUAL(loom_irecv(&c, 1, LOOM_INT32, 0, 5, LOOM_COMM_WORLD, &r[2]), LOOM_OK);
    CU_ASSERT_EQUAL(loom_send(&one, 1, LOOM_INT32, 0, 5, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_send(&two, 1, LOOM_INT32, 0, 6, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_send(&three, 1, LOOM_INT32, 0, 5, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_waitall(3, r, st), LOOM_OK);
    CU_ASSERT_EQUAL(a, 1);
    CU_ASSERT_EQUAL(b, 2);
    CU_ASSERT_EQUAL(st[1].tag, 6);
    CU_ASSERT_EQUAL(c, 3);
}

static void test_truncation(void)
{
    static uint8_t big[1 << 20], small[1 << 19];
    uint8_t msg[100], out[50], out2[100];
    loom_msg_status_t st;
    loom_request_t sreq;

    fill(msg, sizeof(msg), 3);
    CU_ASSERT_EQUAL(loom_send(msg, 100, LOOM_BYTE, 0, 1, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_send(msg, 100, LOOM_BYTE, 0, 1, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv(out, 50, LOOM_BYTE, 0, 1, LOOM_COMM_WORLD, &st),
                    LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(st.error, LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(st.bytes, 50);
    CU_ASSERT_TRUE(check(out, 50, 3));
    /* the next message is intact */
    CU_ASSERT_EQUAL(loom_recv(out2, 100, LOOM_BYTE, 0, 1, LOOM_COMM_WORLD, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.bytes, 100);
    CU_ASSERT_TRUE(check(out2, 100, 3));
    /* rendezvous: truncated receive, the sender still completes */
    fill(big, sizeof(big), 4);
    CU_ASSERT_EQUAL(loom_isend(big, sizeof(big), LOOM_BYTE, 0, 2, LOOM_COMM_WORLD, &sreq),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv(small, sizeof(small), LOOM_BYTE, 0, 2, LOOM_COMM_WORLD, &st),
                    LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(st.bytes, sizeof(small));
    CU_ASSERT_TRUE(check(small, sizeof(small), 4));
    CU_ASSERT_EQUAL(loom_wait(&sreq, LOOM_STATUS_IGNORE), LOOM_OK);
}

static void test_probe(void)
{
    static uint8_t big[100000];
    int flag = 7, v = 11, out = 0;
    loom_msg_status_t st;
    loom_request_t sreq;

    CU_ASSERT_EQUAL(loom_iprobe(LOOM_ANY_SOURCE, 77, LOOM_COMM_WORLD, &flag, &st), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, 0, 77, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_iprobe(LOOM_ANY_SOURCE, 77, LOOM_COMM_WORLD, &flag, &st), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(st.bytes, sizeof(int));
    CU_ASSERT_EQUAL(st.tag, 77);
    CU_ASSERT_EQUAL(loom_probe(0, LOOM_ANY_TAG, LOOM_COMM_WORLD, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.tag, 77);
    CU_ASSERT_EQUAL(loom_recv(&out, 1, LOOM_INT32, 0, 77, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(out, 11);
    /* a rendezvous message is probed by its header alone */
    CU_ASSERT_EQUAL(loom_isend(big, sizeof(big), LOOM_BYTE, 0, 78, LOOM_COMM_WORLD, &sreq),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_probe(LOOM_ANY_SOURCE, 78, LOOM_COMM_WORLD, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.bytes, sizeof(big));
    CU_ASSERT_EQUAL(loom_recv(big, sizeof(big), LOOM_BYTE, 0, 78, LOOM_COMM_WORLD, NULL),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&sreq, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_iprobe(LOOM_ANY_SOURCE, LOOM_ANY_TAG, LOOM_COMM_WORLD, &flag, &st),
                    LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
}

static void test_cancel(void)
{
    int x = 0, v = 5;
    loom_request_t r, s;
    loom_msg_status_t st;

    CU_ASSERT_EQUAL(loom_irecv(&x, 1, LOOM_INT32, 0, 3, LOOM_COMM_WORLD, &r), LOOM_OK);
    CU_ASSERT_EQUAL(loom_cancel(&r), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&r, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.cancelled, 1);
    /* the cancelled receive does not take the next message */
    CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, 0, 3, LOOM_COMM_WORLD), LOOM_OK);
    loom_progress();
    CU_ASSERT_EQUAL(x, 0);
    CU_ASSERT_EQUAL(loom_recv(&x, 1, LOOM_INT32, 0, 3, LOOM_COMM_WORLD, &st), LOOM_OK);
    CU_ASSERT_EQUAL(x, 5);
    CU_ASSERT_EQUAL(st.cancelled, 0);
    /* an eager standard send is delivered: the cancel has no effect
     * (test_p2pext.c cancels the sends that can be withdrawn) */
    CU_ASSERT_EQUAL(loom_isend(&v, 1, LOOM_INT32, 0, 4, LOOM_COMM_WORLD, &s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_cancel(&s), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&s, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.cancelled, 0);
    CU_ASSERT_EQUAL(loom_recv(&x, 1, LOOM_INT32, 0, 4, LOOM_COMM_WORLD, NULL), LOOM_OK);
}

static void test_ssend(void)
{
    int v = 9, x = 0, flag = 1;
    loom_request_t s, r;

    CU_ASSERT_EQUAL(loom_issend(&v, 1, LOOM_INT32, 0, 8, LOOM_COMM_WORLD, &s), LOOM_OK);
    for (int i = 0; i < 100; ++i) {
        CU_ASSERT_EQUAL(loom_test(&s, &flag, NULL), LOOM_OK);
    }
    CU_ASSERT_EQUAL(flag, 0); /* not matched yet */
    CU_ASSERT_EQUAL(loom_irecv(&x, 1, LOOM_INT32, 0, 8, LOOM_COMM_WORLD, &r), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&s, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&r, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(x, 9);
}

/* ACK/FIN replies are checked against the table of waiting sends */
static void test_bogus_replies(void)
{
    int v = 3, x = 0;
    loom_request_t s;
    loom_p2p_hdr_ctl_t h = { .type = LOOM_P2P_ACK };
    uint64_t id;

    CU_ASSERT_EQUAL_FATAL(loom_issend(&v, 1, LOOM_INT32, 0, 31, LOOM_COMM_WORLD, &s), LOOM_OK);
    id = loom_p2p_req(s)->sreq;
    for (int i = 0; i < 4; ++i) {
        loom_progress();              /* the EAGER_SYNC is now unexpected */
    }
    h.sreq = 0;                       /* never valid */
    loom_p2p_am_handler(&loom_p2p_engine, 0, &h, sizeof(h));
    h.sreq = id + ((uint64_t)1 << 32); /* right slot, wrong generation */
    loom_p2p_am_handler(&loom_p2p_engine, 0, &h, sizeof(h));
    h.sreq = id | 0xfffffu;           /* a slot beyond the table */
    loom_p2p_am_handler(&loom_p2p_engine, 0, &h, sizeof(h));
    h.type = LOOM_P2P_FIN;            /* right id, wrong protocol */
    h.sreq = id;
    loom_p2p_am_handler(&loom_p2p_engine, 0, &h, sizeof(h));
    CU_ASSERT_FALSE(s->complete);
    /* the real ACK still completes it, once */
    CU_ASSERT_EQUAL(loom_recv(&x, 1, LOOM_INT32, 0, 31, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&s, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(x, 3);
    h.type = LOOM_P2P_ACK;            /* a duplicate of it is dropped */
    loom_p2p_am_handler(&loom_p2p_engine, 0, &h, sizeof(h));
}

static void test_proc_null(void)
{
    int v = 1, flag = 0;
    loom_request_t r;
    loom_msg_status_t st;

    CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, LOOM_PROC_NULL, 0, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_ssend(&v, 1, LOOM_INT32, LOOM_PROC_NULL, 0, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv(&v, 1, LOOM_INT32, LOOM_PROC_NULL, 0, LOOM_COMM_WORLD, &st),
                    LOOM_OK);
    CU_ASSERT_EQUAL(st.source, LOOM_PROC_NULL);
    CU_ASSERT_EQUAL(st.bytes, 0);
    CU_ASSERT_EQUAL(loom_irecv(&v, 1, LOOM_INT32, LOOM_PROC_NULL, 0, LOOM_COMM_WORLD, &r),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_test(&r, &flag, &st), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(st.source, LOOM_PROC_NULL);
    CU_ASSERT_EQUAL(loom_isend(&v, 1, LOOM_INT32, LOOM_PROC_NULL, 0, LOOM_COMM_WORLD, &r),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&r, NULL), LOOM_OK);
}

static void test_comm_isolation(void)
{
    loom_comm_t c = LOOM_COMM_NULL;
    int a = 1, b = 2, x = 0, y = 0;

    CU_ASSERT_EQUAL_FATAL(loom_comm_create_int("test", loom_comm_context_next(), 0, 1,
                                               NULL, &c), LOOM_OK);
    CU_ASSERT_EQUAL(loom_comm_size(c), 1);
    CU_ASSERT_EQUAL(loom_send(&a, 1, LOOM_INT32, 0, 1, c), LOOM_OK);
    CU_ASSERT_EQUAL(loom_send(&b, 1, LOOM_INT32, 0, 1, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_send(&b, 1, LOOM_INT32, 0, 1, LOOM_COMM_SELF), LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv(&x, 1, LOOM_INT32, LOOM_ANY_SOURCE, LOOM_ANY_TAG,
                              LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv(&y, 1, LOOM_INT32, 0, 1, c, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(x, 2);
    CU_ASSERT_EQUAL(y, 1);
    CU_ASSERT_EQUAL(loom_recv(&y, 1, LOOM_INT32, 0, 1, LOOM_COMM_SELF, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(y, 2);
    /* collective context of the same communicator is separate too */
    {
        loom_request_t s, r;
        CU_ASSERT_EQUAL(loom_p2p_isend_int(&a, sizeof(a), 0, 1, c, LOOM_CTX_COLL, 0, &s),
                        LOOM_OK);
        CU_ASSERT_EQUAL(loom_iprobe(0, 1, c, &x, NULL), LOOM_OK);
        CU_ASSERT_EQUAL(x, 0);
        CU_ASSERT_EQUAL(loom_p2p_irecv_int(&y, sizeof(y), 0, 1, c, LOOM_CTX_COLL, &r),
                        LOOM_OK);
        CU_ASSERT_EQUAL(loom_request_wait_int(r, NULL), LOOM_OK);
        CU_ASSERT_EQUAL(loom_request_wait_int(s, NULL), LOOM_OK);
        CU_ASSERT_EQUAL(y, 1);
    }
    {
        loom_comm_t stale = c;
        CU_ASSERT_EQUAL(loom_comm_free(&c), LOOM_OK);
        CU_ASSERT_PTR_NULL(c);
        CU_ASSERT_EQUAL(loom_send(&a, 1, LOOM_INT32, 0, 1, stale), LOOM_ERR_INVALID_COMM);
        CU_ASSERT_EQUAL(loom_comm_rank(stale), -1);
    }
}

static void test_bad_input(void)
{
    int v = 0, flag;
    loom_request_t r = LOOM_REQUEST_NULL;
    loom_comm_t w = LOOM_COMM_WORLD;
    loom_comm_t world = LOOM_COMM_WORLD;

    CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, 1, 0, w), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, -5, 0, w), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, LOOM_ANY_SOURCE, 0, w), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_recv(&v, 1, LOOM_INT32, 3, 0, w, NULL), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, 0, -1, w), LOOM_ERR_INVALID_TAG);
    CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, 0, -7, w), LOOM_ERR_INVALID_TAG);
    CU_ASSERT_EQUAL(loom_irecv(&v, 1, LOOM_INT32, 0, -7, w, &r), LOOM_ERR_INVALID_TAG);
    CU_ASSERT_EQUAL(loom_send(NULL, 1, LOOM_INT32, 0, 0, w), LOOM_ERR_INVALID_BUFFER);
    CU_ASSERT_EQUAL(loom_recv(NULL, 4, LOOM_BYTE, 0, 0, w, NULL), LOOM_ERR_INVALID_BUFFER);
    CU_ASSERT_EQUAL(loom_send(&v, 1, (loom_datatype_t)99, 0, 0, w), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_send(&v, 1, (loom_datatype_t)-1, 0, 0, w), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_send(&v, (size_t)-1, LOOM_INT32, 0, 0, w), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_isend(&v, (size_t)-3, LOOM_BYTE, 0, 0, w, &r), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(loom_send(&v, 1, LOOM_INT32, 0, 0, LOOM_COMM_NULL), LOOM_ERR_INVALID_COMM);
    CU_ASSERT_EQUAL(loom_isend(&v, 1, LOOM_INT32, 0, 0, w, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_iprobe(0, 0, w, NULL, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_iprobe(4, 0, w, &flag, NULL), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_wait(NULL, NULL), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_cancel(&r), LOOM_ERR_INVALID_REQUEST);
    CU_ASSERT_EQUAL(loom_comm_free(&world), LOOM_ERR_INVALID_COMM);
    CU_ASSERT_EQUAL(loom_comm_size(LOOM_COMM_NULL), -1);
    CU_ASSERT_EQUAL(loom_comm_world_rank(w, 1), -1);
    CU_ASSERT_EQUAL(loom_init(NULL, NULL), LOOM_ERR_ALREADY_INIT);
    /* a zero-count NULL buffer is fine */
    CU_ASSERT_EQUAL(loom_send(NULL, 0, LOOM_INT32, 0, LOOM_TAG_UB, w), LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv(NULL, 0, LOOM_INT32, 0, LOOM_TAG_UB, w, NULL), LOOM_OK);
}

static void test_requests(void)
{
    int v[4] = { 1, 2, 3, 4 }, x[4] = { 0 };
    loom_request_t r[4] = { LOOM_REQUEST_NULL, LOOM_REQUEST_NULL, LOOM_REQUEST_NULL,
                            LOOM_REQUEST_NULL };
    size_t idx = 99, count = 0;
    int flag = 1;
    loom_msg_status_t st;

    CU_ASSERT_EQUAL(loom_waitany(4, r, &idx, &st), LOOM_OK);
    CU_ASSERT_EQUAL(idx, (size_t)-1);
    CU_ASSERT_EQUAL(loom_irecv(&x[2], 1, LOOM_INT32, 0, 20, LOOM_COMM_WORLD, &r[2]), LOOM_OK);
    CU_ASSERT_EQUAL(loom_testany(4, r, &idx, &flag, &st), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT_EQUAL(loom_testall(4, r, &flag, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT_EQUAL(loom_send(&v[2], 1, LOOM_INT32, 0, 20, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_waitany(4, r, &idx, &st), LOOM_OK);
    CU_ASSERT_EQUAL(idx, 2);
    CU_ASSERT_PTR_NULL(r[2]);
    CU_ASSERT_EQUAL(x[2], 3);
    CU_ASSERT_EQUAL(loom_get_count(&st, LOOM_INT32, &count), LOOM_OK);
    CU_ASSERT_EQUAL(count, 1);
    CU_ASSERT_EQUAL(loom_get_count(&st, LOOM_INT16, &count), LOOM_OK);
    CU_ASSERT_EQUAL(count, 2);
    /* freeing a pending receive: it still completes in the background */
    CU_ASSERT_EQUAL(loom_irecv(&x[0], 1, LOOM_INT32, 0, 21, LOOM_COMM_WORLD, &r[0]), LOOM_OK);
    CU_ASSERT_EQUAL(loom_request_free(&r[0]), LOOM_OK);
    CU_ASSERT_PTR_NULL(r[0]);
    CU_ASSERT_EQUAL(loom_send(&v[0], 1, LOOM_INT32, 0, 21, LOOM_COMM_WORLD), LOOM_OK);
    for (int i = 0; i < 10 && x[0] == 0; ++i) {
        loom_progress();
    }
    CU_ASSERT_EQUAL(x[0], 1);
    /* testall completes everything at once */
    CU_ASSERT_EQUAL(loom_isend(&v[1], 1, LOOM_INT32, 0, 22, LOOM_COMM_WORLD, &r[1]), LOOM_OK);
    CU_ASSERT_EQUAL(loom_irecv(&x[1], 1, LOOM_INT32, 0, 22, LOOM_COMM_WORLD, &r[3]), LOOM_OK);
    flag = 0;
    for (int i = 0; i < 10 && !flag; ++i) {
        CU_ASSERT_EQUAL(loom_testall(4, r, &flag, NULL), LOOM_OK);
    }
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(x[1], 2);
    for (int i = 0; i < 4; ++i) {
        CU_ASSERT_PTR_NULL(r[i]);
    }
}

static int generic_steps;

static loom_status_t generic_step(loom_request_t req)
{
    int *left = (int *)req->priv;
    ++generic_steps;
    return --*left > 0 ? LOOM_INPROGRESS : LOOM_OK;
}

static void test_generic(void)
{
    loom_request_t req;

    CU_ASSERT_EQUAL_FATAL(loom_request_generic_alloc(LOOM_COMM_WORLD, "test", generic_step,
                                                     NULL, &req), LOOM_OK);
    *(int *)req->priv = 5;
    generic_steps = 0;
    loom_request_generic_start(req);
    CU_ASSERT_EQUAL(generic_steps, 1);
    CU_ASSERT_FALSE(loom_request_is_complete(req));
    CU_ASSERT_EQUAL(loom_wait(&req, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(generic_steps, 5);
}

static void test_many_outstanding(void)
{
    enum { N = 10000 };
    static int in[N], out[N];
    static loom_request_t r[2 * N];

    for (int i = 0; i < N; ++i) {
        in[i] = i;
        out[i] = -1;
        CU_ASSERT_EQUAL_FATAL(loom_irecv(&out[i], 1, LOOM_INT32, 0, i % 17, LOOM_COMM_WORLD,
                                         &r[i]), LOOM_OK);
    }
    for (int i = 0; i < N; ++i) {
        CU_ASSERT_EQUAL_FATAL(loom_isend(&in[i], 1, LOOM_INT32, 0, i % 17, LOOM_COMM_WORLD,
                                         &r[N + i]), LOOM_OK);
    }
    CU_ASSERT_EQUAL(loom_waitall(2 * N, r, NULL), LOOM_OK);
    for (int i = 0; i < N; ++i) {
        if (out[i] != i) {
            CU_FAIL("a receive got the wrong message");
            break;
        }
    }
}

/* ---- hang reports ------------------------------------------------------------- */

static void app_usr1(int sig)
{
    (void)sig;
}

static int usr1_is(void (*handler)(int))
{
    struct sigaction sa;

    return sigaction(SIGUSR1, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) &&
           sa.sa_handler == handler;
}

/*
 * In a child (loom initializes once per process): with the default
 * disposition loom installs its handler and puts SIG_DFL back at finalize;
 * with the application's own handler loom leaves it alone. Exit code: 0 ok.
 */
static int usr1_child(int app_has_handler)
{
    pid_t pid = fork();
    int status;

    if (pid == 0) {
        int ok;
        if (app_has_handler) {
            signal(SIGUSR1, app_usr1);
        }
        if (loom_init(NULL, NULL) != LOOM_OK) {
            _exit(2);
        }
        ok = app_has_handler ? usr1_is(app_usr1) : !usr1_is(SIG_DFL);
        ok &= loom_finalize() == LOOM_OK;
        ok &= usr1_is(app_has_handler ? app_usr1 : SIG_DFL);
        _exit(ok ? 0 : 1);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int usr1_default_rc = -1, usr1_app_rc = -1;

static void test_usr1_handler(void)
{
    CU_ASSERT_EQUAL(usr1_default_rc, 0);   /* installed, then SIG_DFL again */
    CU_ASSERT_EQUAL(usr1_app_rc, 0);       /* the application's own: untouched */
    CU_ASSERT_FALSE(usr1_is(SIG_DFL));     /* this process: loom's */
}

/* run fn with stderr going to a file; returns what it wrote (static buffer) */
static const char *capture_stderr(int (*fn)(void))
{
    static char text[8192];
    FILE *f = tmpfile();
    int saved = dup(2);
    size_t n = 0;

    text[0] = '\0';
    if (f == NULL || saved < 0) {
        return text;
    }
    fflush(stderr);
    dup2(fileno(f), 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void test_usr1_report(void)
{
    char line[160];
    int v = 0;
    loom_request_t r;
    const char *text;

    CU_ASSERT_EQUAL_FATAL(loom_irecv(&v, 1, LOOM_INT32, 0, 99, LOOM_COMM_WORLD, &r), LOOM_OK);
    text = capture_stderr(loom_progress);
    CU_ASSERT_PTR_NULL(strstr(text, "loom-report"));   /* nobody asked */
    CU_ASSERT_EQUAL(raise(SIGUSR1), 0);                 /* the process lives on */
    text = capture_stderr(loom_progress);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "loom-report 0 begin host="));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, " call=loom_progress\n"));
    snprintf(line, sizeof(line), "\nloom-report 0 coll comm=WORLD count=%llu\n",
             (unsigned long long)LOOM_COMM_WORLD->coll_seq);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, line));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nloom-report 0 pending op=recv comm=WORLD peer=0 "
                                        "world=0 tag=99 bytes=4 proto=eager state=posted "
                                        "coll=0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nloom-report 0 end\n"));
    text = capture_stderr(loom_progress);               /* once per signal */
    CU_ASSERT_PTR_NULL(strstr(text, "loom-report"));
    CU_ASSERT_EQUAL(loom_cancel(&r), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&r, NULL), LOOM_OK);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "every size 0..64 MiB, unexpected", test_sizes_unexpected },
        { "every size 0..64 MiB, expected", test_sizes_expected },
        { "order across eager and rendezvous, wildcards", test_order_across_protocols },
        { "posted wildcard and exact receives keep order", test_wildcard_posted_order },
        { "truncation consumes one message only", test_truncation },
        { "probe and iprobe", test_probe },
        { "cancel", test_cancel },
        { "ssend completes only once matched", test_ssend },
        { "stale, corrupt and misdirected ACK/FIN are dropped", test_bogus_replies },
        { "LOOM_PROC_NULL", test_proc_null },
        { "communicator and context isolation, freed comm", test_comm_isolation },
        { "bad input returns errors", test_bad_input },
        { "waitany, testany, testall, request_free, get_count", test_requests },
        { "generic requests", test_generic },
        { "10,000 outstanding requests", test_many_outstanding },
        { "SIGUSR1 handler: installed, restored, or left to the application",
          test_usr1_handler },
        { "SIGUSR1 writes the hang report from the progress loop", test_usr1_report },
        { NULL, NULL },
    };
    int v = 0, rc;

    setenv("LOOM_ERRORS", "return", 1);
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
    if (loom_send(&v, 1, LOOM_INT32, 0, 0, LOOM_COMM_WORLD) != LOOM_ERR_NOT_INITIALIZED ||
        loom_initialized() || loom_finalize() != LOOM_ERR_NOT_INITIALIZED) {
        fprintf(stderr, "calls before loom_init must fail with NOT_INITIALIZED\n");
        return 1;
    }
    usr1_default_rc = usr1_child(0);
    usr1_app_rc     = usr1_child(1);
    if (loom_init(NULL, NULL) != LOOM_OK) {
        fprintf(stderr, "loom_init failed\n");
        return 1;
    }
    rc = loom_test_run_suite("p2p_self", cases, NULL, NULL);
    if (loom_finalize() != LOOM_OK || !loom_finalized() ||
        loom_send(&v, 1, LOOM_INT32, 0, 0, LOOM_COMM_WORLD) != LOOM_ERR_FINALIZED ||
        loom_init(NULL, NULL) != LOOM_ERR_FINALIZED) {
        fprintf(stderr, "finalize, or calls after it, misbehaved\n");
        return 1;
    }
    return rc;
}
