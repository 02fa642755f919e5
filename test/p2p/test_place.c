/*
 * test_place.c: frames received in place (tl.h am_place_cb), in one
 * process. The test plays a byte-stream transport: it offers the engine a
 * frame's head with loom_p2p_am_place, writes the rest where the engine
 * said, and reports the end with loom_p2p_am_place_done, as TCP does.
 *
 * Covered: an EAGER taken by a posted receive (the receive completes only
 * at the end; the hang report shows it reading); receives shorter than the
 * message, shorter even than the head; an unexpected EAGER declined and
 * then delivered whole; an EAGER_SYNC whose ACK goes at the end (a real
 * issend completes by it, also when truncated); the RNDV_DATA a matched
 * rendezvous receive waits for, one naming another send (declined), one
 * longer than the receive, one whose connection fails; an EAGER declined
 * while a pushed part is announced; a placement that fails (the
 * transport's error), and, last, a peer failing with a frame half in.
 */
#include "p2p_inject.h"

#define MSG  30000u    /* an eager message over tcp; the head is HEAD bytes of its frame */
#define HEAD 200u
#define PUSH INJECT_PUSH
#define RMSG 20000u    /* a rendezvous message (self's eager limit is 8192) */

static uint8_t frame[sizeof(loom_p2p_hdr_sync_t) + MSG];
static uint8_t src_buf[RMSG];    /* what injected RTS point their gets at */

/* An EAGER (or EAGER_SYNC with @p sreq) frame of @p len payload bytes; @return its length. */
static size_t build_eager(uint8_t type, int tag, uint64_t sreq, size_t len, unsigned seed)
{
    loom_p2p_hdr_sync_t h = { .base = { .type = type,
                                        .ctx = loom_comm_ctx(LOOM_COMM_WORLD, LOOM_CTX_P2P),
                                        .src = 0, .tag = tag, .len = len },
                              .sreq = sreq };
    size_t hlen = type == LOOM_P2P_EAGER ? sizeof(h.base) : sizeof(h);

    memcpy(frame, &h, hlen);
    fill(frame + hlen, len, seed);
    return hlen + len;
}

/*
 * Play the transport: offer the frame's first HEAD bytes; if taken, write
 * the kept part of the rest to the destination. @return what place said.
 */
static int offer(size_t flen, loom_tl_place_t *pl)
{
    int took = loom_p2p_am_place(&loom_p2p_engine, 0, frame, HEAD, flen, pl);

    if (took && pl->keep != 0) {
        CU_ASSERT_FATAL(pl->keep <= flen - HEAD);
        memcpy(pl->dst, frame + HEAD, pl->keep);
    }
    return took;
}

static void test_eager_taken(void)
{
    static uint8_t r[MSG + 16];
    size_t flen = build_eager(LOOM_P2P_EAGER, 10, 0, MSG, 1);
    char pending[256];
    loom_tl_place_t pl;
    loom_request_t rq;
    loom_msg_status_t st;

    memset(r, 0xee, sizeof(r));
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, MSG, LOOM_BYTE, 0, 10, LOOM_COMM_WORLD, &rq), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(offer(flen, &pl), 1);
    CU_ASSERT_EQUAL(pl.keep, flen - HEAD);
    CU_ASSERT_PTR_EQUAL(pl.dst, r + HEAD - sizeof(loom_p2p_hdr_t));
    drain();
    CU_ASSERT_FALSE(rq->complete);                 /* until the transport says so */
    CU_ASSERT_PTR_EQUAL(loom_p2p_engine.peers[0].place_req, rq);
    loom_p2p_report_pending_with(0, pending, sizeof(pending));
    CU_ASSERT(strstr(pending, "tag 10") != NULL && strstr(pending, "reading") != NULL);
    loom_p2p_am_place_done(&loom_p2p_engine, 0, LOOM_OK);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].place_req);
    CU_ASSERT_EQUAL(loom_wait(&rq, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.bytes, MSG);
    CU_ASSERT_EQUAL(st.tag, 10);
    CU_ASSERT(holds(r, 0, MSG, 1));
    CU_ASSERT_EQUAL(r[MSG], 0xee);
}

static void test_eager_truncated(void)
{
    static uint8_t r[MSG];
    /* past the head, and within it (nothing of the rest is kept) */
    static const size_t caps[] = { 10000, HEAD - sizeof(loom_p2p_hdr_t) - 50, 0 };

    for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); ++k) {
        size_t flen = build_eager(LOOM_P2P_EAGER, 11, 0, MSG, 2 + (unsigned)k);
        loom_tl_place_t pl;
        loom_request_t rq;
        loom_msg_status_t st;

        memset(r, 0xee, sizeof(r));
        CU_ASSERT_EQUAL_FATAL(loom_irecv(r, caps[k], LOOM_BYTE, 0, 11, LOOM_COMM_WORLD, &rq),
                              LOOM_OK);
        CU_ASSERT_EQUAL_FATAL(offer(flen, &pl), 1);
        CU_ASSERT_EQUAL(pl.keep, caps[k] > HEAD - sizeof(loom_p2p_hdr_t)
                                     ? caps[k] - (HEAD - sizeof(loom_p2p_hdr_t)) : 0);
        loom_p2p_am_place_done(&loom_p2p_engine, 0, LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&rq, &st), LOOM_ERR_TRUNCATED);
        CU_ASSERT_EQUAL(st.bytes, caps[k]);
        CU_ASSERT(holds(r, 0, caps[k], 2 + (unsigned)k));
        CU_ASSERT_EQUAL(r[caps[k]], 0xee);
    }
}

static void test_eager_unexpected(void)
{
    static uint8_t r[MSG];
    size_t flen = build_eager(LOOM_P2P_EAGER, 12, 0, MSG, 5);
    loom_tl_place_t pl;
    loom_msg_status_t st;
    int flag = 1;

    /* nothing posted: declined, and nothing of it is kept yet */
    CU_ASSERT_EQUAL(offer(flen, &pl), 0);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].place_req);
    CU_ASSERT_EQUAL(loom_iprobe(0, 12, LOOM_COMM_WORLD, &flag, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(flag, 0);
    /* the transport then delivers it whole */
    loom_p2p_am_handler(&loom_p2p_engine, 0, frame, flen);
    CU_ASSERT_EQUAL(loom_recv(r, MSG, LOOM_BYTE, 0, 12, LOOM_COMM_WORLD, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.bytes, MSG);
    CU_ASSERT(holds(r, 0, MSG, 5));
}

/* A real issend to self, taken out of the unexpected queue and delivered in place. */
static void test_sync_acked_at_end(void)
{
    static uint8_t s[500], r[MSG];
    loom_match_unexp_t *u;
    loom_p2p_unexp_t *ux;
    loom_request_t sq, rq;
    loom_tl_place_t pl;
    uint64_t sreq;
    size_t flen;

    CU_ASSERT_EQUAL_FATAL(loom_issend(s, sizeof(s), LOOM_BYTE, 0, 13, LOOM_COMM_WORLD, &sq),
                          LOOM_OK);
    drain();
    u = loom_match_unexp_find(&loom_p2p_engine.match,
                              loom_comm_ctx(LOOM_COMM_WORLD, LOOM_CTX_P2P), 0, 13);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    ux = loom_container_of(u, loom_p2p_unexp_t, m);
    CU_ASSERT_EQUAL_FATAL(ux->type, LOOM_P2P_EAGER_SYNC);
    sreq = ux->sreq;
    loom_match_unexp_remove(&loom_p2p_engine.match, u);
    CU_ASSERT_EQUAL_FATAL(ux->pool, LOOM_P2P_UNEXP_POOL_LARGE);   /* 500 bytes */
    loom_mpool_put(&loom_p2p_engine.unexp_large_pool, ux);
    /* the same send, as a large frame arriving in place, into a receive too
     * short for it: truncated, and acknowledged all the same */
    flen = build_eager(LOOM_P2P_EAGER_SYNC, 13, sreq, MSG, 6);
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, MSG - 10, LOOM_BYTE, 0, 13, LOOM_COMM_WORLD, &rq),
                          LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(offer(flen, &pl), 1);
    drain();
    CU_ASSERT_FALSE(sq->complete);                 /* no ACK before the data is in */
    loom_p2p_am_place_done(&loom_p2p_engine, 0, LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&rq, NULL), LOOM_ERR_TRUNCATED);
    CU_ASSERT(holds(r, 0, MSG - 10, 6));
    CU_ASSERT_EQUAL(loom_wait(&sq, NULL), LOOM_OK);  /* its ACK went */
}

/* ---- the pushed part of a rendezvous --------------------------------------------- */

static size_t build_push(uint64_t sreq, size_t len, unsigned seed)
{
    loom_p2p_hdr_ctl_t h = { .type = LOOM_P2P_RNDV_DATA, .sreq = sreq };

    memcpy(frame, &h, sizeof(h));
    fill(frame + sizeof(h), len, seed);
    return sizeof(h) + len;
}

static void test_push_taken(void)
{
    static uint8_t r[RMSG];
    loom_tl_place_t pl;
    loom_request_t rq;
    size_t flen;

    fill(src_buf, RMSG, 50);
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, RMSG, LOOM_BYTE, 0, 20, LOOM_COMM_WORLD, &rq), LOOM_OK);
    inject_rts(20, 0x2001, RMSG, PUSH, src_buf);
    drain();                                       /* the gets are done */
    CU_ASSERT_PTR_EQUAL(loom_p2p_engine.peers[0].push_req, rq);
    /* a RNDV_DATA of another send is not taken (whole, it fails the receive) */
    flen = build_push(0x2999, PUSH, 60);
    CU_ASSERT_EQUAL(offer(flen, &pl), 0);
    CU_ASSERT_PTR_EQUAL(loom_p2p_engine.peers[0].push_req, rq);
    /* its own is */
    flen = build_push(0x2001, PUSH, 61);
    CU_ASSERT_EQUAL_FATAL(offer(flen, &pl), 1);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_req);
    CU_ASSERT_EQUAL(pl.keep, flen - HEAD);
    drain();
    CU_ASSERT_FALSE(rq->complete);
    loom_p2p_am_place_done(&loom_p2p_engine, 0, LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&rq, NULL), LOOM_OK);
    CU_ASSERT(holds(r, 0, PUSH, 61));
    for (size_t i = PUSH; i < RMSG; ++i) {
        if (r[i] != src_buf[i]) {
            CU_FAIL("byte past the pushed part not from the sender's buffer");
            break;
        }
    }
    drain();                                       /* its FIN (names no send here) */
}

/* The pushed part is longer than the receive; then a pushed part that fails to arrive. */
static void test_push_short_and_failed(void)
{
    static uint8_t r[RMSG];
    loom_tl_place_t pl;
    loom_request_t rq;
    loom_msg_status_t st;
    size_t flen;

    fill(src_buf, RMSG, 52);
    memset(r, 0xee, sizeof(r));
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, 1000, LOOM_BYTE, 0, 25, LOOM_COMM_WORLD, &rq), LOOM_OK);
    inject_rts(25, 0x2003, RMSG, PUSH, src_buf);
    flen = build_push(0x2003, PUSH, 62);
    CU_ASSERT_EQUAL_FATAL(offer(flen, &pl), 1);
    /* the head already brought more than the receive takes: nothing more kept */
    CU_ASSERT_EQUAL(pl.keep, 1000 - (HEAD - sizeof(loom_p2p_hdr_ctl_t)));
    loom_p2p_am_place_done(&loom_p2p_engine, 0, LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&rq, &st), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(st.bytes, 1000);
    CU_ASSERT(holds(r, 0, 1000, 62));
    CU_ASSERT_EQUAL(r[1000], 0xee);
    drain();

    /* the connection fails while the pushed part arrives: the receive ends
     * with that error once its gets are over, and sends FIN all the same */
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, RMSG, LOOM_BYTE, 0, 26, LOOM_COMM_WORLD, &rq), LOOM_OK);
    inject_rts(26, 0x2004, RMSG, PUSH, src_buf);
    flen = build_push(0x2004, PUSH, 63);
    CU_ASSERT_EQUAL_FATAL(offer(flen, &pl), 1);
    loom_p2p_am_place_done(&loom_p2p_engine, 0, LOOM_ERR_CONNECTION);
    CU_ASSERT_EQUAL(loom_wait(&rq, NULL), LOOM_ERR_CONNECTION);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].place_req);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].push_req);
    drain();
}

static void test_eager_while_push_announced(void)
{
    static uint8_t r[MSG];
    loom_tl_place_t pl;
    loom_request_t rq;
    size_t flen;

    fill(src_buf, RMSG, 51);
    inject_rts(21, 0x2002, RMSG, PUSH, src_buf);            /* unexpected: the push comes next */
    CU_ASSERT_PTR_NOT_NULL(loom_p2p_engine.peers[0].push_ux);
    flen = build_eager(LOOM_P2P_EAGER, 22, 0, MSG, 7);
    CU_ASSERT_EQUAL_FATAL(loom_irecv(r, MSG, LOOM_BYTE, 0, 22, LOOM_COMM_WORLD, &rq), LOOM_OK);
    CU_ASSERT_EQUAL(offer(flen, &pl), 0);          /* judged whole: a broken stream */
    loom_p2p_am_handler(&loom_p2p_engine, 0, frame, flen);
    /* (fatal: else the receive below would wait for the push forever) */
    CU_ASSERT_PTR_NULL_FATAL(loom_p2p_engine.peers[0].push_ux);
    CU_ASSERT_EQUAL(loom_wait(&rq, NULL), LOOM_OK);   /* the message itself is fine */
    CU_ASSERT(holds(r, 0, MSG, 7));
    /* the RTS forgot its push: its receive reads all of it from the sender */
    CU_ASSERT_EQUAL(loom_recv(r, RMSG, LOOM_BYTE, 0, 21, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT(memcmp(r, src_buf, RMSG) == 0);
    drain();
}

/* A receive for tag @p tag, and an EAGER for it taken in place, not yet complete. */
static loom_request_t post_and_take(int tag)
{
    static uint8_t r[MSG];
    size_t flen = build_eager(LOOM_P2P_EAGER, tag, 0, MSG, 8);
    loom_tl_place_t pl;
    loom_request_t rq;

    if (loom_irecv(r, MSG, LOOM_BYTE, 0, tag, LOOM_COMM_WORLD, &rq) != LOOM_OK ||
        offer(flen, &pl) != 1) {
        CU_FAIL_FATAL("receive not posted, or the frame not taken");
    }
    return rq;
}

static void test_place_fails(void)
{
    loom_request_t rq = post_and_take(23);

    loom_p2p_am_place_done(&loom_p2p_engine, 0, LOOM_ERR_CONNECTION);
    CU_ASSERT_EQUAL(loom_wait(&rq, NULL), LOOM_ERR_CONNECTION);
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].place_req);
    /* a late word from the transport finds nothing */
    loom_p2p_am_place_done(&loom_p2p_engine, 0, LOOM_ERR_CONNECTION);
}

/* last: rank 0 (this process) is declared failed, as LOOM_ERRORS=return does it */
static void test_peer_failure(void)
{
    loom_request_t rq = post_and_take(24);

    loom_p2p_peer_err_handler(NULL, 0, LOOM_ERR_PEER_FAILED, "declared failed by the test");
    CU_ASSERT_PTR_NULL(loom_p2p_engine.peers[0].place_req);
    CU_ASSERT_EQUAL(loom_wait(&rq, NULL), LOOM_ERR_PEER_FAILED);
    loom_p2p_am_place_done(&loom_p2p_engine, 0, LOOM_ERR_PEER_FAILED);   /* ignored */
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "EAGER taken by a posted receive, complete at the end", test_eager_taken },
        { "receives shorter than the message, and than the head", test_eager_truncated },
        { "unexpected EAGER declined, then delivered whole", test_eager_unexpected },
        { "EAGER_SYNC: the ACK goes once the data is in", test_sync_acked_at_end },
        { "the pushed part of a matched rendezvous, and another send's",
          test_push_taken },
        { "a pushed part longer than the receive; one that fails to arrive",
          test_push_short_and_failed },
        { "EAGER while a pushed part is announced: judged whole",
          test_eager_while_push_announced },
        { "a placement the transport fails", test_place_fails },
        { "a peer failing with a frame half in", test_peer_failure },
        { NULL, NULL },
    };

    return inject_main("p2p_place", cases);
}
