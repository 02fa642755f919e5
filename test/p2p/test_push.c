/*
 * test_push.c: the rendezvous whose first bytes travel behind the RTS
 * (RNDV_DATA, caps.rndv_push; TCP asks for it), in one process.
 *
 * A singleton with LOOM_RNDV_PUSH=4096, so the self transport pushes too:
 * real self-sends expected and unexpected, and a second send to a busy
 * peer that does not push. Then frames injected into the engine by hand
 * put RTS and RNDV_DATA in every order a receive can meet them: pushed
 * bytes held by an unexpected RTS, a receive posted between the RTS and
 * its data, a matched receive waiting for the data after its gets, a
 * receive shorter than the pushed part, a RNDV_DATA that names another
 * send or has the wrong length, an RTS whose pushed part is not a prefix,
 * a NAK for a send whose RNDV_DATA still waits in the queue, and a failed
 * peer with a receive waiting for its pushed bytes.
 * The injected RNDV_DATA carries other bytes than the sender's buffer, so
 * a receive shows which bytes came from where.
 */
#include "p2p_inject.h"

#define PUSH INJECT_PUSH
#define MSG  20000u    /* above the self transport's eager limit (8192) */

static uint8_t src_buf[MSG];     /* what injected RTS point their gets at */

/* ---- real self-sends ------------------------------------------------------------ */

static void test_config(void)
{
    /* min(LOOM_RNDV_PUSH, eager limit, frame room) */
    CU_ASSERT_EQUAL(loom_p2p_engine.peers[0].rndv_push, PUSH);
}

static void test_self_expected(void)
{
    static uint8_t s[1 << 20], r[1 << 20];
    static const size_t sizes[] = { 8193, PUSH + 8192, 65537, 1 << 20 };

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
        loom_request_t rq, sq;
        loom_msg_status_t st;

        fill(s, sizes[k], (unsigned)k);
        memset(r, 0, sizes[k]);
        CU_ASSERT_EQUAL_FATAL(loom_irecv(r, sizes[k], LOOM_BYTE, 0, 5, LOOM_COMM_WORLD, &rq),
                              LOOM_OK);
        CU_ASSERT_EQUAL_FATAL(loom_isend(s, sizes[k], LOOM_BYTE, 0, 5, LOOM_COMM_WORLD, &sq),
                              LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&rq, &st), LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&sq, NULL), LOOM_OK);
        CU_ASSERT_EQUAL(st.bytes, sizes[k]);
        CU_ASSERT(holds(r, 0, sizes[k], (unsigned)k));
    }
}

static void test_self_unexpected(void)
{
    static uint8_t s[65537], r[65537];
    loom_request_t sq;
    loom_match_unexp_t *u;
    loom_p2p_unexp_t *ux;

    fill(s, sizeof(s), 9);
    CU_ASSERT_EQUAL_FATAL(loom_isend(s, sizeof(s), LOOM_BYTE, 0, 6, LOOM_COMM_WORLD, &sq),
                          LOOM_OK);
    drain();   /* RTS and RNDV_DATA arrive with no receive posted */
    u = loom_match_unexp_find(&loom_p2p_engine.match,
                              loom_comm_ctx(LOOM_COMM_WORLD, LOOM_CTX_P2P), 0, 6);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    ux = loom_container_of(u, loom_p2p_unexp_t, m);
    CU_ASSERT_EQUAL(ux->type, LOOM_P2P_RTS);
    CU_ASSERT_EQUAL(ux->pushed, PUSH);    /* the peer was idle: it pushed */
    CU_ASSERT_EQUAL(ux->push_have, 1);    /* and the bytes wait in the record */
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_ux);
    CU_ASSERT(holds(ux->data, 0, PUSH, 9));
    CU_ASSERT_EQUAL(loom_recv(r, sizeof(r), LOOM_BYTE, 0, 6, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&sq, NULL), LOOM_OK);
    CU_ASSERT(holds(r, 0, sizeof(r), 9));
}

static void test_self_busy_peer(void)
{
    static uint8_t a[30000], b[30000], ra[30000], rb[30000];
    loom_request_t sa, sb;
    loom_match_unexp_t *u;

    fill(a, sizeof(a), 1);
    fill(b, sizeof(b), 2);
    CU_ASSERT_EQUAL_FATAL(loom_isend(a, sizeof(a), LOOM_BYTE, 0, 7, LOOM_COMM_WORLD, &sa),
                          LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_isend(b, sizeof(b), LOOM_BYTE, 0, 8, LOOM_COMM_WORLD, &sb),
                          LOOM_OK);
    drain();
    /* the first send waits for its FIN, so the second finds the peer busy */
    u = loom_match_unexp_find(&loom_p2p_engine.match,
                              loom_comm_ctx(LOOM_COMM_WORLD, LOOM_CTX_P2P), 0, 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_EQUAL(loom_container_of(u, loom_p2p_unexp_t, m)->pushed, 0);
    CU_ASSERT_EQUAL(loom_recv(rb, sizeof(rb), LOOM_BYTE, 0, 8, LOOM_COMM_WORLD, NULL),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv(ra, sizeof(ra), LOOM_BYTE, 0, 7, LOOM_COMM_WORLD, NULL),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&sa, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&sb, NULL), LOOM_OK);
    CU_ASSERT(holds(ra, 0, sizeof(ra), 1));
    CU_ASSERT(holds(rb, 0, sizeof(rb), 2));
}

/* ---- injected frames -------------------------------------------------------------- */

/* Its RNDV_DATA: @p len bytes of pattern @p seed (not src_buf's). */
static void inject_data(uint64_t sreq, size_t len, unsigned seed)
{
    static uint8_t frame[sizeof(loom_p2p_hdr_ctl_t) + 2 * PUSH];
    loom_p2p_hdr_ctl_t h = { .type = LOOM_P2P_RNDV_DATA, .sreq = sreq };

    memcpy(frame, &h, sizeof(h));
    fill(frame + sizeof(h), len, seed);
    loom_p2p_am_handler(&loom_p2p_engine, 0, frame, sizeof(h) + len);
}

/* src_buf holds pattern 50; pushed bytes are pattern 60 */
static void setup_src(void)
{
    fill(src_buf, sizeof(src_buf), 50);
}

static void test_unexpected_then_data_then_recv(void)
{
    static uint8_t r[MSG];
    loom_msg_status_t st;

    setup_src();
    inject_rts(20, 0x1001, MSG, PUSH, src_buf);
    CU_ASSERT_PTR_NOT_NULL(loom_p2p_engine.peers[0].push_ux);
    inject_data(0x1001, PUSH, 60);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_ux);
    CU_ASSERT_EQUAL(loom_recv(r, MSG, LOOM_BYTE, 0, 20, LOOM_COMM_WORLD, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.bytes, MSG);
    CU_ASSERT(holds(r, 0, PUSH, 60));      /* from RNDV_DATA */
    CU_ASSERT(holds(r, PUSH, MSG, 50));    /* read from the sender's buffer */
    drain();                               /* its FIN (names no send here) */
}

/*
 * The receive is posted between the RTS and its data (the RTS unexpected),
 * or before the RTS (matched at arrival): either way its gets finish and
 * it waits for the RNDV_DATA.
 */
static void test_receive_waits_for_data(void)
{
    static uint8_t r[MSG];

    for (int posted_first = 0; posted_first < 2; ++posted_first) {
        uint64_t id = 0x1002 + (uint64_t)posted_first;
        int tag = 21 + posted_first;
        loom_request_t rq;

        setup_src();
        if (!posted_first) {
            inject_rts(tag, id, MSG, PUSH, src_buf);
        }
        CU_ASSERT_EQUAL_FATAL(loom_irecv(r, MSG, LOOM_BYTE, 0, tag, LOOM_COMM_WORLD, &rq),
                              LOOM_OK);
        if (posted_first) {
            inject_rts(tag, id, MSG, PUSH, src_buf);
        }
        drain();
        CU_ASSERT_FALSE(rq->complete);     /* the gets are done, the push is not */
        CU_ASSERT_PTR_EQUAL(loom_p2p_engine.peers[0].push_req, rq);
        CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_ux);
        inject_data(id, PUSH, 61 + (unsigned)posted_first);
        CU_ASSERT_EQUAL(loom_wait(&rq, NULL), LOOM_OK);
        CU_ASSERT(holds(r, 0, PUSH, 61 + (unsigned)posted_first));
        CU_ASSERT(holds(r, PUSH, MSG, 50));
        drain();
    }
}

static void test_truncated_within_push(void)
{
    static uint8_t r[1000 + 16];
    loom_request_t rq;
    loom_msg_status_t st;

    setup_src();
    memset(r, 0xee, sizeof(r));
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, 1000, LOOM_BYTE, 0, 23, LOOM_COMM_WORLD, &rq), LOOM_OK);
    inject_rts(23, 0x1004, MSG, PUSH, src_buf);
    inject_data(0x1004, PUSH, 63);
    CU_ASSERT_EQUAL(loom_wait(&rq, &st), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(st.bytes, 1000);
    CU_ASSERT(holds(r, 0, 1000, 63));
    CU_ASSERT_EQUAL(r[1000], 0xee);        /* nothing past the buffer */
    drain();
}

static void test_truncated_past_push(void)
{
    static uint8_t r[PUSH + 100 + 16];
    loom_request_t rq;
    loom_msg_status_t st;

    setup_src();
    memset(r, 0xee, sizeof(r));
    inject_rts(24, 0x1005, MSG, PUSH, src_buf);
    inject_data(0x1005, PUSH, 64);
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, PUSH + 100, LOOM_BYTE, 0, 24, LOOM_COMM_WORLD, &rq),
                          LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&rq, &st), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(st.bytes, PUSH + 100);
    CU_ASSERT(holds(r, 0, PUSH, 64));
    CU_ASSERT(holds(r, PUSH, PUSH + 100, 50));
    CU_ASSERT_EQUAL(r[PUSH + 100], 0xee);
    drain();
}

static void test_data_names_another_send(void)
{
    static uint8_t r[MSG];
    loom_request_t rq;

    /* a posted receive whose RNDV_DATA names another send: it fails, named */
    setup_src();
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, MSG, LOOM_BYTE, 0, 25, LOOM_COMM_WORLD, &rq), LOOM_OK);
    inject_rts(25, 0x1006, MSG, PUSH, src_buf);
    inject_data(0x9999, PUSH, 65);
    CU_ASSERT_EQUAL(loom_wait(&rq, NULL), LOOM_ERR_TRANSPORT);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_req);
    drain();

    /* an unexpected RTS whose RNDV_DATA has the wrong length forgets the
     * push: its receive then reads the whole message from the sender */
    inject_rts(26, 0x1007, MSG, PUSH, src_buf);
    inject_data(0x1007, PUSH - 1, 66);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_ux);
    CU_ASSERT_EQUAL(loom_recv(r, MSG, LOOM_BYTE, 0, 26, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT(holds(r, 0, MSG, 50));
    drain();

    /* an RTS while an announced RNDV_DATA is still missing */
    inject_rts(27, 0x1008, MSG, PUSH, src_buf);
    inject_rts(28, 0x1009, MSG, PUSH, src_buf);
    inject_data(0x1009, PUSH, 67);
    CU_ASSERT_EQUAL(loom_recv(r, MSG, LOOM_BYTE, 0, 27, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT(holds(r, 0, MSG, 50));       /* all of it read */
    CU_ASSERT_EQUAL(loom_recv(r, MSG, LOOM_BYTE, 0, 28, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT(holds(r, 0, PUSH, 67));
    CU_ASSERT(holds(r, PUSH, MSG, 50));
    drain();
}

static void test_push_not_a_prefix(void)
{
    int flag = 1;

    /* pushed >= length is malformed: dropped, nothing is unexpected */
    inject_rts(29, 0x100a, PUSH, PUSH, src_buf);
    CU_ASSERT_EQUAL(loom_iprobe(0, 29, LOOM_COMM_WORLD, &flag, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_ux);
    /* a RNDV_DATA nobody announced is dropped too, and changes nothing */
    inject_data(0x100b, 10, 68);
    CU_ASSERT_EQUAL(loom_iprobe(0, LOOM_ANY_TAG, LOOM_COMM_WORLD, &flag, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_req);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_ux);
    /* an RTS pushing more than one frame holds is malformed too */
    inject_rts(29, 0x100c, 1u << 20, (uint32_t)loom_p2p_engine.ifaces[0]->caps.max_am, src_buf);
    CU_ASSERT_EQUAL(loom_iprobe(0, 29, LOOM_COMM_WORLD, &flag, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
}

static void test_nak_with_data_queued(void)
{
    static uint8_t s[MSG], r[MSG];
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[0];
    loom_p2p_pending_t *item, *data = NULL;
    loom_p2p_hdr_ctl_t nak = { .type = LOOM_P2P_NAK };
    loom_request_t sq;

    fill(s, MSG, 70);
    block_queue();
    CU_ASSERT_EQUAL_FATAL(loom_isend(s, MSG, LOOM_BYTE, 0, 40, LOOM_COMM_WORLD, &sq), LOOM_OK);
    CU_ASSERT(sq->flags & LOOM_REQ_FLAG_PUSHED);
    /* the receiver finalized and NAKs: the send ends while its RNDV_DATA is
     * still queued; the queue keeps a copy, the user's buffer is free */
    nak.sreq = loom_p2p_req(sq)->sreq;
    loom_p2p_am_handler(&loom_p2p_engine, 0, &nak, sizeof(nak));
    CU_ASSERT_EQUAL(loom_wait(&sq, NULL), LOOM_ERR_CANCELED);
    loom_list_for_each(item, &peer->pending, list) {
        if (item->hdr[0] == LOOM_P2P_RNDV_DATA) {
            data = item;
        }
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    CU_ASSERT_EQUAL(data->owned, 1);
    CU_ASSERT_PTR_NOT_EQUAL(data->payload, s);
    CU_ASSERT_EQUAL(data->payload_len, PUSH);
    memset(s, 0, sizeof(s));               /* the user reuses the buffer */
    CU_ASSERT(holds(data->payload, 0, PUSH, 70));
    drain();                               /* the stray ACK, the RTS, the copy */
    CU_ASSERT(loom_list_is_empty(&peer->pending));
    /* the (here still queued) RTS arrived with the kept bytes behind it */
    CU_ASSERT_EQUAL(loom_recv(r, MSG, LOOM_BYTE, 0, 40, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT(holds(r, 0, PUSH, 70));
    drain();
}

/* last: rank 0 (this process) is declared failed, as LOOM_ERRORS=return does it */
static void test_peer_failure(void)
{
    static uint8_t r[MSG];
    loom_request_t rq;
    loom_msg_status_t st;

    setup_src();
    inject_rts(51, 0x1051, MSG, PUSH, src_buf);        /* unexpected, its data held */
    inject_data(0x1051, PUSH, 71);
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, MSG, LOOM_BYTE, 0, 50, LOOM_COMM_WORLD, &rq), LOOM_OK);
    inject_rts(50, 0x1050, MSG, PUSH, src_buf);        /* matched: waits for its data */
    drain();
    CU_ASSERT_FALSE(rq->complete);
    loom_p2p_peer_err_handler(NULL, 0, LOOM_ERR_PEER_FAILED, "declared failed by the test");
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_req);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_ux);
    CU_ASSERT_EQUAL(loom_wait(&rq, &st), LOOM_ERR_PEER_FAILED);
    /* the held RTS: the rest of the data stayed with the failed sender */
    CU_ASSERT_EQUAL(loom_recv(r, MSG, LOOM_BYTE, 0, 51, LOOM_COMM_WORLD, NULL),
                    LOOM_ERR_PEER_FAILED);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "LOOM_RNDV_PUSH sets the pushed bytes", test_config },
        { "self-sends with a push, receive posted first", test_self_expected },
        { "self-send with a push, unexpected: the bytes wait", test_self_unexpected },
        { "a second send to a busy peer does not push", test_self_busy_peer },
        { "unexpected RTS, its data, then the receive", test_unexpected_then_data_then_recv },
        { "receive posted between the RTS and its data, or before both",
          test_receive_waits_for_data },
        { "receive shorter than the pushed part", test_truncated_within_push },
        { "receive ending past the pushed part", test_truncated_past_push },
        { "RNDV_DATA for another send or of the wrong length", test_data_names_another_send },
        { "malformed RTS and stray RNDV_DATA are dropped", test_push_not_a_prefix },
        { "a NAK ends a send whose RNDV_DATA is queued: it goes from a copy",
          test_nak_with_data_queued },
        { "a failed peer ends the receives waiting for pushed data", test_peer_failure },
        { NULL, NULL },
    };

    return inject_main("p2p_push", cases);
}
