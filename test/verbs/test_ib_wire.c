/*
 * test_ib_wire.c: the verbs transport's RC frame checks
 * (transport/ib/ib_wire.c), on the host, no verbs: every length rule
 * (short, empty, at the frame limit and past it, credit frames with a
 * body), every header field (sender out of range, ourselves, unknown type,
 * credits past a window), what the body handed to am_cb is, and the checks
 * against the receiver's state (the QP's peer, credits outstanding), each
 * rejection with a reason that names the value.
 */
#include "cunit_main.h"

#include "ib/ib_wire.h"

#include <string.h>

static uint8_t frame[LOOM_TL_IB_FRAME + 16];
static char why[160];

static size_t make(uint32_t src, uint16_t credits, uint8_t ctl, uint8_t type, size_t body)
{
    loom_tl_ib_hdr_t h = { src, credits, ctl, type };

    memcpy(frame, &h, sizeof(h));
    memset(frame + sizeof(h), 0x6b, body);
    return sizeof(h) + body;
}

static loom_status_t decode(size_t len, int size, int me, loom_tl_ib_frame_t *f)
{
    why[0] = '\0';
    return loom_tl_ib_frame_decode(frame, len, size, me, why, sizeof(why), f);
}

static void test_decode_data(void)
{
    loom_tl_ib_frame_t f;
    size_t n = make(2, 3, 1, LOOM_TL_IB_FRAME_DATA, 100);

    CU_ASSERT_EQUAL(decode(n, 4, 0, &f), LOOM_OK);
    CU_ASSERT_EQUAL(f.hdr.src, 2);
    CU_ASSERT_EQUAL(f.hdr.credits, 3);
    CU_ASSERT_EQUAL(f.hdr.ctl_credits, 1);
    CU_ASSERT_PTR_EQUAL(f.body, frame + sizeof(loom_tl_ib_hdr_t));
    CU_ASSERT_EQUAL(f.body_len, 100);
    CU_ASSERT_STRING_EQUAL(why, "");   /* nothing formatted on success */
    /* an empty data frame and a full one */
    n = make(2, 0, 0, LOOM_TL_IB_FRAME_DATA, 0);
    CU_ASSERT_EQUAL(decode(n, 4, 0, &f), LOOM_OK);
    CU_ASSERT_EQUAL(f.body_len, 0);
    n = make(2, 0, 0, LOOM_TL_IB_FRAME_DATA, LOOM_TL_IB_FRAME - sizeof(loom_tl_ib_hdr_t));
    CU_ASSERT_EQUAL(decode(n, 4, 0, &f), LOOM_OK);
    CU_ASSERT_EQUAL(f.body_len, LOOM_TL_IB_FRAME - sizeof(loom_tl_ib_hdr_t));
    /* output untouched on failure */
    memset(&f, 0xa5, sizeof(f));
    CU_ASSERT_EQUAL(decode(n + 1, 4, 0, &f), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(f.hdr.src, 0xa5a5a5a5u);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "8193 bytes"));
}

static void test_decode_length(void)
{
    loom_tl_ib_frame_t f;
    size_t i;

    make(1, 0, 0, LOOM_TL_IB_FRAME_DATA, 0);
    for (i = 0; i < sizeof(loom_tl_ib_hdr_t); ++i) {
        CU_ASSERT_EQUAL(decode(i, 4, 0, &f), LOOM_ERR_TRUNCATED);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "bytes"));
    }
    CU_ASSERT_EQUAL(loom_tl_ib_frame_decode(NULL, 8, 4, 0, why, sizeof(why), &f),
                    LOOM_ERR_TRUNCATED);
    /* a credit frame is the header alone */
    CU_ASSERT_EQUAL(decode(make(1, 2, 0, LOOM_TL_IB_FRAME_CREDIT, 0), 4, 0, &f), LOOM_OK);
    CU_ASSERT_PTR_NULL(f.body);
    CU_ASSERT_EQUAL(f.body_len, 0);
    CU_ASSERT_EQUAL(decode(make(1, 2, 0, LOOM_TL_IB_FRAME_CREDIT, 1), 4, 0, &f),
                    LOOM_ERR_TRUNCATED);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "credit frame of 9 bytes from rank 1"));
    /* no reason buffer: still refused, nothing written */
    CU_ASSERT_EQUAL(loom_tl_ib_frame_decode(frame, 3, 4, 0, NULL, 0, &f), LOOM_ERR_TRUNCATED);
}

static void test_decode_fields(void)
{
    loom_tl_ib_frame_t f;

    CU_ASSERT_EQUAL(decode(make(4, 0, 0, LOOM_TL_IB_FRAME_DATA, 4), 4, 0, &f),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "sender rank 4 out of range (job of 4 ranks)"));
    CU_ASSERT_EQUAL(decode(make(0xffffffffu, 0, 0, LOOM_TL_IB_FRAME_DATA, 4), 4, 0, &f),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(decode(make(3, 0, 0, LOOM_TL_IB_FRAME_DATA, 4), 4, 3, &f),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "is the receiver itself"));
    CU_ASSERT_EQUAL(decode(make(0, 0, 0, LOOM_TL_IB_FRAME_DATA, 4), 0, -1, &f),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(decode(make(1, 0, 0, 0, 4), 4, 0, &f), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(decode(make(1, 0, 0, 3, 0), 4, 0, &f), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "unknown frame type 3 from rank 1"));
    /* credits: up to each window, not past it */
    CU_ASSERT_EQUAL(decode(make(1, LOOM_TL_IB_CREDITS, LOOM_TL_IB_CTL_CREDITS,
                                LOOM_TL_IB_FRAME_DATA, 4), 4, 0, &f), LOOM_OK);
    CU_ASSERT_EQUAL(decode(make(1, LOOM_TL_IB_CREDITS + 1, 0, LOOM_TL_IB_FRAME_DATA, 4),
                           4, 0, &f), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "returns 17 data"));
    CU_ASSERT_EQUAL(decode(make(1, 0, LOOM_TL_IB_CTL_CREDITS + 1, LOOM_TL_IB_FRAME_CREDIT, 0),
                           4, 0, &f), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(decode(make(1, 0xffff, 0xff, LOOM_TL_IB_FRAME_CREDIT, 0), 4, 0, &f),
                    LOOM_ERR_INVALID_ARG);
}

static void test_check_peer(void)
{
    loom_tl_ib_frame_t f;

    CU_ASSERT_EQUAL_FATAL(decode(make(2, 3, 1, LOOM_TL_IB_FRAME_DATA, 10), 4, 0, &f), LOOM_OK);
    /* 3 data and 1 credit frame outstanding: exactly enough */
    CU_ASSERT_EQUAL(loom_tl_ib_frame_check_peer(&f, 2, LOOM_TL_IB_CREDITS - 3,
                                                LOOM_TL_IB_CTL_CREDITS - 1, why, sizeof(why)),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_tl_ib_frame_check_peer(&f, 2, LOOM_TL_IB_CREDITS - 2,
                                                LOOM_TL_IB_CTL_CREDITS - 1, why, sizeof(why)),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "while only 2 and 1 are outstanding"));
    CU_ASSERT_EQUAL(loom_tl_ib_frame_check_peer(&f, 2, 0, LOOM_TL_IB_CTL_CREDITS, why,
                                                sizeof(why)), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_tl_ib_frame_check_peer(&f, 2, -1, 0, why, sizeof(why)),
                    LOOM_ERR_INVALID_ARG);
    /* sender is not the QP's peer, or the QP is no endpoint's */
    CU_ASSERT_EQUAL(loom_tl_ib_frame_check_peer(&f, 1, 0, 0, why, sizeof(why)),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "claiming rank 2 arrived on the QP of rank 1"));
    CU_ASSERT_EQUAL(loom_tl_ib_frame_check_peer(&f, -1, 0, 0, why, sizeof(why)),
                    LOOM_ERR_INVALID_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "no known peer"));
    /* nothing returned: accepted whatever we hold */
    CU_ASSERT_EQUAL_FATAL(decode(make(1, 0, 0, LOOM_TL_IB_FRAME_DATA, 0), 4, 0, &f), LOOM_OK);
    CU_ASSERT_EQUAL(loom_tl_ib_frame_check_peer(&f, 1, LOOM_TL_IB_CREDITS,
                                                LOOM_TL_IB_CTL_CREDITS, NULL, 0), LOOM_OK);
}

/* A sender and a receiver that follow the protocol are never refused, and
 * the sender's credits come back to exactly the window. */
static void test_honest_exchange(void)
{
    int credits = LOOM_TL_IB_CREDITS, ctl = LOOM_TL_IB_CTL_CREDITS;   /* rank 0 toward 1 */
    int owed = 0, ctl_owed = 0;   /* rank 1: frames of rank 0 consumed, not yet returned */
    loom_tl_ib_frame_t f;
    int round, ok = 1;

    for (round = 0; round < 1000; ++round) {
        if (credits > 0 && round % 3 != 2) {   /* rank 0 sends data */
            --credits;
            ++owed;
            continue;
        }
        /* rank 1 returns what it owes, in a credit frame or piggybacked */
        make(1, (uint16_t)owed, (uint8_t)ctl_owed,
             round % 2 ? LOOM_TL_IB_FRAME_CREDIT : LOOM_TL_IB_FRAME_DATA, 0);
        ok &= decode(sizeof(loom_tl_ib_hdr_t), 2, 0, &f) == LOOM_OK;
        ok &= loom_tl_ib_frame_check_peer(&f, 1, credits, ctl, why, sizeof(why)) == LOOM_OK;
        credits += f.hdr.credits;
        ctl += f.hdr.ctl_credits;
        owed = 0;
        ctl_owed = 0;
        if (ctl > 0 && round % 5 == 0) {   /* rank 0 sends a credit frame */
            --ctl;
            ++ctl_owed;
        }
    }
    CU_ASSERT_TRUE(ok);
    CU_ASSERT_TRUE(credits + owed == LOOM_TL_IB_CREDITS);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "decode a data frame", test_decode_data },
        { "decode: lengths", test_decode_length },
        { "decode: header fields", test_decode_fields },
        { "check against the QP's peer and credits", test_check_peer },
        { "honest exchange never refused", test_honest_exchange },
        { NULL, NULL },
    };
    return loom_test_run_suite("ib_wire", cases, NULL, NULL);
}
