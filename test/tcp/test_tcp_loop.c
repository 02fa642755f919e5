/*
 * test_tcp_loop.c: the TCP transport's data path through its ops table,
 * with several ranks in one process (tcp_world.h: one interface and
 * listening socket on 127.0.0.1 each, an in-process modex, one thread
 * driving every rank's progress). Real sockets, no launcher.
 *
 * Covered: frames of every size between all pairs in order, with everyone
 * connecting to everyone at once (connection races); back-pressure; replies
 * sent from a frame callback (corked, in order); gets of many sizes,
 * concurrent, mixed with frames; forged and stale rkeys; a region released
 * while a peer streams it; frames overtaking long streams. Connections,
 * outsiders, failures and open's choices are in test_tcp_conn.c.
 */
#include "cunit_main.h"
#include "tcp_world.h"

#include "runtime_config_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* test_callback_replies: rank 1 answers every frame of rank 0 from the callback */
static unsigned g_echo_corked;

static void echo_from_callback(int me, int src)
{
    loom_tcp_ep_t *ep;

    if (me != 1 || src != 0) {
        return;
    }
    ep = loom_tcp_ep_of(world.ep[me][src]);
    CU_ASSERT_EQUAL(world_send(me, src, 8), LOOM_OK);
    /* inside progress: held back, not written */
    g_echo_corked += !loom_list_is_empty(&ep->txq);
    /* a larger frame (not corked itself) must still leave after it */
    CU_ASSERT_EQUAL(world_send(me, src, LOOM_TCP_SMALL_INLINE + 100), LOOM_OK);
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_all_pairs(void)
{
    const unsigned per_pair = 300;

    world_open(4, 1);
    /* everyone sends to everyone before anyone progresses: races on every pair */
    for (unsigned i = 0; i < per_pair; ++i) {
        for (int r = 0; r < world.n; ++r) {
            for (int p = 0; p < world.n; ++p) {
                double t0 = world_now();
                if (p == r) {
                    continue;
                }
                while (world_send(r, p, world_frame_size(i)) == LOOM_ERR_NO_RESOURCE &&
                       world_now() - t0 < WORLD_DEADLINE) {
                    world_progress();
                }
            }
        }
    }
    CU_ASSERT(world_wait_for(world_all_delivered));
    for (int r = 0; r < world.n; ++r) {
        CU_ASSERT_EQUAL(world.st[r].bad, 0);
        CU_ASSERT_EQUAL(world.st[r].errs, 0);
        CU_ASSERT_EQUAL(world.st[r].received, per_pair * (unsigned)(world.n - 1));
    }
    /* exactly one connection per pair, the same socket seen from both ends */
    for (int r = 0; r < world.n; ++r) {
        for (int p = r + 1; p < world.n; ++p) {
            loom_tcp_ep_t *a = loom_tcp_ep_of(world.ep[r][p]);
            loom_tcp_ep_t *b = loom_tcp_ep_of(world.ep[p][r]);
            struct sockaddr_in la, pb;
            socklen_t l1 = sizeof(la), l2 = sizeof(pb);

            CU_ASSERT_FATAL(a->conn != NULL && b->conn != NULL);
            CU_ASSERT_EQUAL(a->state, LOOM_TCP_EP_UP);
            getsockname(a->conn->fd, (struct sockaddr *)&la, &l1);
            getpeername(b->conn->fd, (struct sockaddr *)&pb, &l2);
            CU_ASSERT_EQUAL(la.sin_port, pb.sin_port);
        }
    }
    world_close();
}

/*
 * Frames offered in place (am_place_cb) and taken: bursts of large frames
 * between every pair, small ones and a get stream mixed in, arrive whole
 * and in order, and those a read cut went straight to their destination.
 */
static void test_place(void)
{
    static uint8_t src[1 << 20], dst[1 << 20];
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;
    world_get_op_t op;
    size_t placed = 0, large = 0;

    for (size_t i = 0; i < sizeof(src); ++i) {
        src[i] = (uint8_t)(i * 3 + 5);
    }
    world_open_place(3, 1);
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[2], src, sizeof(src), &rkey, &memh),
                          LOOM_OK);
    CU_ASSERT_EQUAL(world_get(1, 2, dst, sizeof(dst), (uint64_t)(uintptr_t)src, &rkey, &op),
                    LOOM_INPROGRESS);
    for (unsigned i = 0; i < 240; ++i) {
        for (int r = 0; r < world.n; ++r) {
            for (int p = 0; p < world.n; ++p) {
                double t0 = world_now();
                /* mostly large: a run of them is read in place one after another */
                size_t len = i % 8 == 7 ? world_frame_size(i) : LOOM_TCP_MAX_AM - i % 5000;

                if (p == r) {
                    continue;
                }
                large += len > LOOM_TCP_RX_PEEK;
                while (world_send(r, p, len) == LOOM_ERR_NO_RESOURCE &&
                       world_now() - t0 < WORLD_DEADLINE) {
                    world_progress();
                }
            }
        }
    }
    CU_ASSERT(world_wait_for(world_all_delivered));
    while (op.done == 0 && world_wait_for(world_all_delivered)) {
        world_progress();
    }
    CU_ASSERT_EQUAL(op.done, 1);
    CU_ASSERT_EQUAL(op.status, LOOM_OK);
    CU_ASSERT(memcmp(src, dst, sizeof(dst)) == 0);
    for (int r = 0; r < world.n; ++r) {
        CU_ASSERT_EQUAL(world.st[r].bad, 0);
        CU_ASSERT_EQUAL(world.st[r].errs, 0);
        CU_ASSERT_EQUAL(world.st[r].place_errs, 0);
        for (int p = 0; p < world.n; ++p) {
            CU_ASSERT_FALSE(world.st[r].placing[p]);
        }
        CU_ASSERT_EQUAL(world.st[r].received, 240u * (unsigned)(world.n - 1));
        placed += world.st[r].placed;
    }
    /* the large frames a read cut (about one in four here) went in place */
    CU_ASSERT(placed > large / 10);
    loom_tl_mem_release(world.iface[2], memh);
    world_close();
}

static void test_backpressure(void)
{
    unsigned accepted = 0;
    loom_status_t st;

    world_open(2, 1);
    CU_ASSERT_EQUAL(world_send(0, 1, 8), LOOM_OK);
    CU_ASSERT(world_wait_for(world_all_delivered));
    /* rank 1 does not progress: rank 0 must hit back-pressure, boundedly */
    while ((st = world_send(0, 1, LOOM_TCP_MAX_AM)) == LOOM_OK && accepted < 100000) {
        ++accepted;
        loom_tl_iface_progress(world.iface[0]);
    }
    CU_ASSERT_EQUAL(st, LOOM_ERR_NO_RESOURCE);
    CU_ASSERT(accepted > 4);
    CU_ASSERT(accepted < 1000);   /* 4 MiB queue + socket buffers, not unbounded */
    /* too large is a plain error */
    {
        static uint8_t big[LOOM_TCP_MAX_AM + 1];
        CU_ASSERT_EQUAL(loom_tl_ep_am_send(world.ep[0][1], big, 1, big, LOOM_TCP_MAX_AM),
                        LOOM_ERR_INVALID_ARG);
    }
    CU_ASSERT(world_wait_for(world_all_delivered));
    CU_ASSERT_EQUAL(world.st[1].bad, 0);
    CU_ASSERT_EQUAL(world.st[1].received, accepted + 1);
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    world_close();
}

static void test_callback_replies(void)
{
    const unsigned n = 200;
    loom_tcp_iface_t *i1;

    world_open(2, 1);
    i1 = loom_tcp_iface_of(world.iface[1]);
    CU_ASSERT_EQUAL(world_send(0, 1, 8), LOOM_OK);   /* connect first */
    CU_ASSERT(world_wait_for(world_all_delivered));
    world.on_frame = echo_from_callback;
    g_echo_corked = 0;
    for (unsigned i = 0; i < n; ++i) {
        CU_ASSERT_EQUAL(world_send(0, 1, world_frame_size(i) % 2000), LOOM_OK);
        if (i % 7 == 0) {
            world_progress();
            /* nothing stays corked once progress() returns */
            CU_ASSERT(loom_list_is_empty(&i1->corked));
            CU_ASSERT_FALSE(i1->corking);
        }
    }
    CU_ASSERT(world_wait_for(world_all_delivered));
    world.on_frame = NULL;
    CU_ASSERT_EQUAL(world.st[0].received, 2 * n);   /* in order (world_on_am checks sequence) */
    CU_ASSERT_EQUAL(g_echo_corked, n);
    CU_ASSERT_EQUAL(world.st[0].bad + world.st[1].bad, 0);
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    /* outside progress a frame is written at once */
    CU_ASSERT_EQUAL(world_send(1, 0, 8), LOOM_OK);
    CU_ASSERT(loom_list_is_empty(&loom_tcp_ep_of(world.ep[1][0])->txq));
    CU_ASSERT(world_wait_for(world_all_delivered));
    world_close();
}

/* ---- gets ---- */

static world_get_op_t *g_ops;
static int g_nops;

static int gets_done(void)
{
    for (int i = 0; i < g_nops; ++i) {
        if (!g_ops[i].done) {
            return 0;
        }
    }
    return 1;
}

static void test_get(void)
{
    const size_t big = (size_t)8 << 20;
    const size_t chunk = LOOM_TCP_CHUNK;
    const size_t offs[] = { 0, 5, 0, 0, 3, 0, 1 };
    const size_t lens[] = { 1, 1000, chunk - 1, chunk, 3 * chunk + 7, big, big - 1 };
    enum { NG = sizeof(lens) / sizeof(lens[0]) };
    uint8_t *src = malloc(big), *dst[2][NG];
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey, forged;
    loom_tcp_rkey_t rk;
    world_get_op_t ops[2 * NG + 4];

    CU_ASSERT_FATAL(src != NULL);
    for (size_t i = 0; i < big; ++i) {
        src[i] = (uint8_t)(i ^ (i >> 9) ^ (i >> 17));
    }
    world_open(3, 1);
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[0], src, big, &rkey, &memh), LOOM_OK);
    memcpy(&rk, rkey.data, sizeof(rk));
    g_ops = ops;
    g_nops = 0;
    /* ranks 1 and 2 read every range concurrently, with frames in between */
    for (int r = 1; r <= 2; ++r) {
        for (int i = 0; i < NG; ++i) {
            dst[r - 1][i] = calloc(1, lens[i]);
            CU_ASSERT_FATAL(dst[r - 1][i] != NULL);
            CU_ASSERT_EQUAL(world_get(r, 0, dst[r - 1][i], lens[i],
                                      (uint64_t)(uintptr_t)src + offs[i], &rkey,
                                      &ops[g_nops++]), LOOM_INPROGRESS);
            world_send(0, r, world_frame_size((unsigned)i));
            world_send(r, 0, world_frame_size((unsigned)i + 3));
        }
    }
    CU_ASSERT(loom_tl_ep_get(world.ep[1][0], dst[0][0], 0, 0, &rkey, &ops[g_nops].comp) ==
              LOOM_OK);
    /* a forged cookie, a range past the region: refused by the owner */
    forged = rkey;
    rk.cookie ^= 1;
    memcpy(forged.data, &rk, sizeof(rk));
    CU_ASSERT_EQUAL(world_get(1, 0, dst[0][1], 10, (uint64_t)(uintptr_t)src, &forged,
                              &ops[g_nops++]), LOOM_INPROGRESS);
    CU_ASSERT_EQUAL(world_get(2, 0, dst[1][1], 1000, (uint64_t)(uintptr_t)src + big - 999,
                              &rkey, &ops[g_nops++]), LOOM_INPROGRESS);
    CU_ASSERT(world_wait_for(gets_done));
    CU_ASSERT(world_wait_for(world_all_delivered));
    for (int k = 0; k < 2 * NG; ++k) {
        int r = k / NG, i = k % NG;
        CU_ASSERT_EQUAL(ops[k].done, 1);
        CU_ASSERT_EQUAL(ops[k].status, LOOM_OK);
        CU_ASSERT(memcmp(dst[r][i], src + offs[i], lens[i]) == 0);
    }
    CU_ASSERT_EQUAL(ops[2 * NG].status, LOOM_ERR_INVALID_BUFFER);
    CU_ASSERT_EQUAL(ops[2 * NG + 1].status, LOOM_ERR_INVALID_BUFFER);
    /* once released, the key is stale */
    loom_tl_mem_release(world.iface[0], memh);
    g_ops = &ops[2 * NG + 2];
    g_nops = 1;
    CU_ASSERT_EQUAL(world_get(1, 0, dst[0][1], 10, (uint64_t)(uintptr_t)src, &rkey, g_ops),
                    LOOM_INPROGRESS);
    CU_ASSERT(world_wait_for(gets_done));
    CU_ASSERT_EQUAL(g_ops[0].status, LOOM_ERR_INVALID_BUFFER);
    for (int r = 0; r < 3; ++r) {
        CU_ASSERT_EQUAL(world.st[r].errs, 0);
        CU_ASSERT_EQUAL(world.st[r].bad, 0);
    }
    world_close();
    for (int k = 0; k < 2 * NG; ++k) {
        free(dst[k / NG][k % NG]);
    }
    free(src);
}

static void test_release_while_streaming(void)
{
    const size_t big = (size_t)32 << 20;
    uint8_t *src = malloc(big), *dst = malloc(big);
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;
    world_get_op_t op;
    double t0 = world_now();

    CU_ASSERT_FATAL(src != NULL && dst != NULL);
    memset(src, 0x5a, big);
    world_open(2, 1);
    world_send(0, 1, 8);
    world_send(1, 0, 8);
    CU_ASSERT(world_wait_for(world_all_delivered));
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[0], src, big, &rkey, &memh), LOOM_OK);
    CU_ASSERT_EQUAL(world_get(1, 0, dst, big, (uint64_t)(uintptr_t)src, &rkey, &op),
                    LOOM_INPROGRESS);
    /* rank 0 starts streaming into a socket that rank 1 does not drain yet */
    while (loom_tcp_iface_of(world.iface[0])->regions.used == 1 &&
           ((loom_tcp_region_t *)memh)->streams == 0 && world_now() - t0 < WORLD_DEADLINE) {
        loom_tl_iface_progress(world.iface[0]);
    }
    CU_ASSERT_EQUAL(((loom_tcp_region_t *)memh)->streams, 1);
    loom_tl_mem_release(world.iface[0], memh);
    memset(src, 0, big);
    free(src);   /* the sanitizers would see any later read of it */
    g_ops = &op;
    g_nops = 1;
    CU_ASSERT(world_wait_for(gets_done));
    CU_ASSERT_EQUAL(op.status, LOOM_ERR_CANCELED);
    /* the connection is still good */
    world_send(0, 1, 1000);
    CU_ASSERT(world_wait_for(world_all_delivered));
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    world_close();
    free(dst);
}

static size_t g_received_at_get_done;   /* frames rank 1 had at the first completion */

static void on_get_done_count(loom_tl_comp_t *comp, loom_status_t status)
{
    world_get_done(comp, status);
    if (g_received_at_get_done == SIZE_MAX) {
        g_received_at_get_done = world.st[1].received;
    }
}

/* Frames queued behind long streams overtake the chunks not yet started. */
static void test_am_overtakes_stream(void)
{
    const size_t big = (size_t)32 << 20, part = big / 4;
    uint8_t *src = malloc(big), *dst = calloc(1, big);
    loom_tcp_ep_t *ep;
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;
    loom_tcp_tx_t *tx;
    world_get_op_t ops[4];
    int seen_stream = 0, order_ok = 1;

    CU_ASSERT_FATAL(src != NULL && dst != NULL);
    for (size_t i = 0; i < big; ++i) {
        src[i] = (uint8_t)(i * 131 + (i >> 20));
    }
    world_open(2, 1);
    world_send(0, 1, 8);
    CU_ASSERT(world_wait_for(world_all_delivered));
    ep = loom_tcp_ep_of(world.ep[0][1]);
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[0], src, big, &rkey, &memh), LOOM_OK);
    g_received_at_get_done = SIZE_MAX;
    for (int i = 0; i < 4; ++i) {
        ops[i] = (world_get_op_t){ .comp.cb = on_get_done_count };
        CU_ASSERT_EQUAL(loom_tl_ep_get(world.ep[1][0], dst + i * part, part,
                                       (uint64_t)(uintptr_t)(src + i * part), &rkey,
                                       &ops[i].comp), LOOM_INPROGRESS);
    }
    for (double t0 = world_now();
         loom_list_length(&ep->txq) < 4 && world_now() - t0 < WORLD_DEADLINE;) {
        loom_tl_iface_progress(world.iface[0]);   /* rank 1 does not read: the streams wait */
    }
    for (unsigned i = 0; i < 10; ++i) {
        CU_ASSERT_EQUAL(world_send(0, 1, i % 2 ? 8 : 3000), LOOM_OK);
    }
    /* control frames first (after a chunk already half written), then streams */
    loom_list_for_each(tx, &ep->txq, link) {
        if (tx->kind == LOOM_TCP_TX_STREAM && (tx->off == 0 || &tx->link != ep->txq.next)) {
            seen_stream = 1;
        } else if (tx->kind == LOOM_TCP_TX_BOUNCE && seen_stream) {
            order_ok = 0;
        }
    }
    CU_ASSERT(seen_stream && order_ok);
    g_ops = ops;
    g_nops = 4;
    CU_ASSERT(world_wait_for(gets_done));
    CU_ASSERT(world_wait_for(world_all_delivered));
    for (int i = 0; i < 4; ++i) {
        CU_ASSERT_EQUAL(ops[i].status, LOOM_OK);
    }
    CU_ASSERT(memcmp(dst, src, big) == 0);
    CU_ASSERT_EQUAL(g_received_at_get_done, 11);   /* all frames before any get is done */
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs + (int)world.st[1].bad, 0);
    loom_tl_mem_release(world.iface[0], memh);
    world_close();
    free(src);
    free(dst);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "frames between all pairs, simultaneous connects", test_all_pairs },
        { "frames received in place, in order with the rest", test_place },
        { "back-pressure is bounded and lossless", test_backpressure },
        { "replies from a frame callback: corked, in order", test_callback_replies },
        { "gets: sizes, concurrency, forged and stale keys", test_get },
        { "region released while streaming", test_release_while_streaming },
        { "frames overtake a long stream", test_am_overtakes_stream },
        { NULL, NULL },
    };

    loom_runtime_config_load();
    return loom_test_run_suite("tcp transport: frames and gets", cases, NULL, NULL);
}
