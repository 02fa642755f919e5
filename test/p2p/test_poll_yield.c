/*
 * test_poll_yield.c: the user's polling calls (loom_test, loom_testall,
 * loom_testany, loom_iprobe, loom_improbe, loom_request_get_status,
 * loom_progress) give the CPU away after a pass
 * that found nothing when ranks outnumber cores, and only then: a poll that
 * moved a frame, or any poll of a rank with a core of its own, makes no
 * syscall. A singleton job started with LOOM_OVERSUBSCRIBED=1; this binary
 * defines sched_yield itself, so the library's calls land here and are
 * counted (the static link binds them to the program's definition).
 */
#include "../common/cunit_main.h"
#include <loom.h>
#include "p2p_engine_int.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long yields;

int sched_yield(void)
{
    ++yields;
    return 0;
}

#define POLLS 50

/* An unmatched receive: every test of it finds nothing and yields once. */
static void test_idle_polls_yield(void)
{
    loom_request_t req, arr[1];
    loom_message_t msg;
    size_t idx;
    int v = 0, flag = 1;

    CU_ASSERT_EQUAL_FATAL(loom_irecv(&v, 1, LOOM_INT32, 0, 1, LOOM_COMM_WORLD, &req),
                          LOOM_OK);
    arr[0] = req;
    yields = 0;
    for (int i = 0; i < POLLS; ++i) {
        CU_ASSERT_EQUAL(loom_test(&req, &flag, LOOM_STATUS_IGNORE), LOOM_OK);
        CU_ASSERT_EQUAL(flag, 0);
    }
    CU_ASSERT_EQUAL(yields, POLLS);
    for (int i = 0; i < POLLS; ++i) {
        CU_ASSERT_EQUAL(loom_testall(1, arr, &flag, LOOM_STATUS_IGNORE), LOOM_OK);
        CU_ASSERT_EQUAL(loom_testany(1, arr, &idx, &flag, LOOM_STATUS_IGNORE), LOOM_OK);
        CU_ASSERT_EQUAL(loom_iprobe(0, 2, LOOM_COMM_WORLD, &flag, LOOM_STATUS_IGNORE),
                        LOOM_OK);
        CU_ASSERT_EQUAL(flag, 0);
        CU_ASSERT_EQUAL(loom_progress(), 0);
        CU_ASSERT_EQUAL(loom_improbe(0, 2, LOOM_COMM_WORLD, &flag, &msg, LOOM_STATUS_IGNORE),
                        LOOM_OK);
        CU_ASSERT_EQUAL(flag, 0);
        CU_ASSERT_EQUAL(loom_request_get_status(req, &flag, LOOM_STATUS_IGNORE), LOOM_OK);
        CU_ASSERT_EQUAL(flag, 0);
    }
    CU_ASSERT_EQUAL(yields, 7 * POLLS);
    CU_ASSERT_EQUAL(loom_cancel(&req), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&req, LOOM_STATUS_IGNORE), LOOM_OK);
}

/* A poll whose pass delivers the message completes the test without a yield. */
static void test_busy_poll_does_not_yield(void)
{
    loom_request_t rreq, sreq;
    int in = 0, out = 42, flag = 0;

    CU_ASSERT_EQUAL_FATAL(loom_irecv(&in, 1, LOOM_INT32, 0, 3, LOOM_COMM_WORLD, &rreq),
                          LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_isend(&out, 1, LOOM_INT32, 0, 3, LOOM_COMM_WORLD, &sreq),
                          LOOM_OK);
    yields = 0;
    for (int i = 0; i < POLLS && !flag; ++i) {
        CU_ASSERT_EQUAL(loom_test(&rreq, &flag, LOOM_STATUS_IGNORE), LOOM_OK);
    }
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(in, 42);
    CU_ASSERT_EQUAL(yields, 0);
    CU_ASSERT_EQUAL(loom_wait(&sreq, LOOM_STATUS_IGNORE), LOOM_OK);
}

/* With a core of its own a rank spins: no poll yields. */
static void test_not_oversubscribed_never_yields(void)
{
    loom_request_t req;
    int v = 0, flag = 1;

    loom_p2p_engine.oversubscribed = 0;
    CU_ASSERT_EQUAL_FATAL(loom_irecv(&v, 1, LOOM_INT32, 0, 4, LOOM_COMM_WORLD, &req),
                          LOOM_OK);
    yields = 0;
    for (int i = 0; i < POLLS; ++i) {
        CU_ASSERT_EQUAL(loom_test(&req, &flag, LOOM_STATUS_IGNORE), LOOM_OK);
        CU_ASSERT_EQUAL(loom_iprobe(0, 5, LOOM_COMM_WORLD, &flag, LOOM_STATUS_IGNORE),
                        LOOM_OK);
        (void)loom_progress();
    }
    CU_ASSERT_EQUAL(yields, 0);
    CU_ASSERT_EQUAL(loom_cancel(&req), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&req, LOOM_STATUS_IGNORE), LOOM_OK);
    loom_p2p_engine.oversubscribed = 1;
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "idle polls yield once each when oversubscribed", test_idle_polls_yield },
        { "a poll that delivers a message does not yield", test_busy_poll_does_not_yield },
        { "a rank with its own core never yields in a poll",
          test_not_oversubscribed_never_yields },
        { NULL, NULL },
    };
    int rc;

    setenv("LOOM_ERRORS", "return", 1);
    setenv("LOOM_OVERSUBSCRIBED", "1", 1);
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
    if (loom_init(NULL, NULL) != LOOM_OK) {
        fprintf(stderr, "loom_init failed\n");
        return 1;
    }
    if (!loom_p2p_engine.oversubscribed) {
        fprintf(stderr, "LOOM_OVERSUBSCRIBED=1 did not make the engine oversubscribed\n");
        return 1;
    }
    rc = loom_test_run_suite("p2p_poll_yield", cases, NULL, NULL);
    return loom_finalize() == LOOM_OK ? rc : 1;
}
