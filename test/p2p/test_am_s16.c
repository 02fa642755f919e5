/*
 * test_am_s16.c: the p2p engine's frames for layers above it (session 16,
 * p2p/p2p_am.c): registration of a handler id, dispatch of a frame to it
 * before any matching (context, source rank, payload, in the order sent
 * and behind the messages sent before it), the size limit, a frame sent
 * under back-pressure (refused with LOOM_ERR_NO_RESOURCE while frames wait
 * in the peer's queue, nothing delivered; sent once the queue drained),
 * and frames the engine drops (no handler for the id, shorter than the
 * header). A singleton job: every frame goes to rank 0, this process,
 * through the self transport.
 */
#include "p2p_inject.h"

enum { MAX_SEEN = 16 };

typedef struct {
    uint32_t ctx;
    int      src;
    size_t   len;
    int      msg_before;   /* the message of tag 7 was in the unexpected queue */
    uint8_t  data[256];
} seen_t;

static seen_t seen[MAX_SEEN];
static int nseen;

static void record(uint32_t ctx, int src, const void *data, size_t len)
{
    seen_t *s = &seen[nseen < MAX_SEEN ? nseen : MAX_SEEN - 1];

    s->ctx = ctx;
    s->src = src;
    s->len = len;
    s->msg_before = loom_p2p_probe_int(0, 7, LOOM_COMM_WORLD, LOOM_CTX_P2P,
                                       LOOM_STATUS_IGNORE);
    memcpy(s->data, data, len < sizeof(s->data) ? len : sizeof(s->data));
    ++nseen;
}

static void reset(void)
{
    nseen = 0;
    memset(seen, 0, sizeof(seen));
}

static loom_status_t am_send(const void *data, size_t len)
{
    return loom_p2p_am_send_int(0, LOOM_COMM_WORLD, LOOM_CTX_P2P, LOOM_P2P_AM_RMA, data, len);
}

static void test_register(void)
{
    CU_ASSERT_EQUAL(loom_p2p_am_set(LOOM_P2P_AM_IDS, record), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_p2p_am_set(LOOM_P2P_AM_RMA, record), LOOM_OK);
    CU_ASSERT(loom_p2p_am_max(0, LOOM_COMM_WORLD) >= 64);
}

/* three frames in order, with their context and source; the data is the caller's at return */
static void test_dispatch(void)
{
    uint8_t buf[200];
    size_t lens[3] = { 0, 8, sizeof(buf) };

    reset();
    CU_ASSERT_EQUAL_FATAL(loom_p2p_am_set(LOOM_P2P_AM_RMA, record), LOOM_OK);
    for (int i = 0; i < 3; ++i) {
        fill(buf, sizeof(buf), (unsigned)i);
        CU_ASSERT_EQUAL(am_send(buf, lens[i]), LOOM_OK);
        memset(buf, 0xee, sizeof(buf));   /* copied out: the frame keeps the pattern */
    }
    CU_ASSERT_EQUAL(nseen, 0);   /* delivered by progress, never inside the send */
    drain();
    CU_ASSERT_EQUAL_FATAL(nseen, 3);
    for (int i = 0; i < 3; ++i) {
        CU_ASSERT_EQUAL(seen[i].ctx, loom_comm_ctx(LOOM_COMM_WORLD, LOOM_CTX_P2P));
        CU_ASSERT_EQUAL(seen[i].src, 0);
        CU_ASSERT_EQUAL(seen[i].len, lens[i]);
        CU_ASSERT(holds(seen[i].data, 0, lens[i], (unsigned)i));
    }
}

/* a message sent before a frame reached the engine before the frame's handler ran */
static void test_after_message(void)
{
    int64_t v = 42, got = 0;

    reset();
    CU_ASSERT_EQUAL_FATAL(loom_send(&v, 1, LOOM_INT64, 0, 7, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(am_send(&v, sizeof(v)), LOOM_OK);
    drain();
    CU_ASSERT_EQUAL_FATAL(nseen, 1);
    CU_ASSERT_EQUAL(seen[0].msg_before, 1);
    CU_ASSERT_EQUAL(loom_recv(&got, 1, LOOM_INT64, 0, 7, LOOM_COMM_WORLD, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(got, 42);
}

static void test_too_long(void)
{
    size_t max = loom_p2p_am_max(0, LOOM_COMM_WORLD);
    uint8_t *buf = calloc(1, max + 1);

    reset();
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    CU_ASSERT_EQUAL(am_send(buf, max + 1), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(am_send(buf, max), LOOM_OK);
    drain();
    CU_ASSERT_EQUAL(nseen, 1);
    CU_ASSERT_EQUAL(seen[0].len, max);
    free(buf);
}

/*
 * Back-pressure: while a frame waits in the peer's queue, a frame is
 * refused (it would overtake it) and nothing is queued or delivered; the
 * caller keeps it and sends it again once progress drained the queue.
 */
static void test_back_pressure(void)
{
    uint8_t buf[24];

    reset();
    fill(buf, sizeof(buf), 9);
    block_queue();   /* a stray ACK waits for peer 0 (logged when it arrives) */
    CU_ASSERT_EQUAL(am_send(buf, sizeof(buf)), LOOM_ERR_NO_RESOURCE);
    CU_ASSERT_EQUAL(loom_list_is_empty(&loom_p2p_engine.peers[0].pending), 0);
    drain();
    CU_ASSERT_EQUAL(nseen, 0);   /* the refused frame went nowhere */
    CU_ASSERT(loom_list_is_empty(&loom_p2p_engine.peers[0].pending));
    CU_ASSERT_EQUAL(am_send(buf, sizeof(buf)), LOOM_OK);   /* the caller's retry */
    drain();
    CU_ASSERT_EQUAL_FATAL(nseen, 1);
    CU_ASSERT(holds(seen[0].data, 0, sizeof(buf), 9));
}

/* no handler for the id, or shorter than the header: logged and dropped */
static void test_dropped(void)
{
    uint8_t buf[8] = { LOOM_P2P_AM, LOOM_P2P_AM_RMA };
    loom_p2p_hdr_am_t h = { .type = LOOM_P2P_AM, .id = LOOM_P2P_AM_IDS };

    reset();
    loom_p2p_am_handler(&loom_p2p_engine, 0, buf, sizeof(buf));   /* short */
    loom_p2p_am_handler(&loom_p2p_engine, 0, &h, sizeof(h));      /* unknown id */
    CU_ASSERT_EQUAL(nseen, 0);
    CU_ASSERT_EQUAL(loom_p2p_am_set(LOOM_P2P_AM_RMA, NULL), LOOM_OK);
    CU_ASSERT_EQUAL(am_send(buf, sizeof(buf)), LOOM_OK);
    drain();
    CU_ASSERT_EQUAL(nseen, 0);
    CU_ASSERT_EQUAL(loom_p2p_am_set(LOOM_P2P_AM_RMA, record), LOOM_OK);
    CU_ASSERT_EQUAL(am_send(buf, sizeof(buf)), LOOM_OK);
    drain();
    CU_ASSERT_EQUAL(nseen, 1);
    CU_ASSERT_EQUAL(loom_p2p_am_set(LOOM_P2P_AM_RMA, NULL), LOOM_OK);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "a handler is registered for an id in range", test_register },
        { "frames reach the handler in order, with context, source and data",
          test_dispatch },
        { "a message sent before a frame is in the engine when it is handled",
          test_after_message },
        { "a frame above loom_p2p_am_max is refused", test_too_long },
        { "under back-pressure a frame is refused, then sent by the caller's retry",
          test_back_pressure },
        { "frames without a handler or shorter than the header are dropped", test_dropped },
        { NULL, NULL },
    };

    return inject_main("p2p_am_s16", cases);
}
