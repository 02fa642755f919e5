/*
 * test_tcp_loop.c: the TCP transport through its ops table, with several
 * "ranks" in one process: each rank is one interface with its own listening
 * socket on 127.0.0.1, the modex is an in-process table, and one thread
 * drives every rank's progress in turn. Real sockets, no launcher.
 *
 * Covered: frames of every size between all pairs in order, with everyone
 * connecting to everyone at once (connection races); back-pressure; gets of
 * many sizes, concurrent, mixed with frames; forged and stale rkeys; a
 * region released while a peer streams it; outsiders with a wrong secret or
 * garbage refused while the job goes on; a peer dying (named error, no
 * hang, failed gets); an orderly close; open's refusals.
 */
#include "cunit_main.h"

#include "tcp/tcp_int.h"
#include "config_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXR     5
#define MAXKEYS  32
#define DEADLINE 20.0   /* seconds any wait may take */

extern const loom_tl_ops_t loom_tl_tcp_ops;

/* ---- an in-process modex -------------------------------------------------------- */

typedef struct modex_entry {
    int     rank;
    char    key[32];
    uint8_t data[64];
    size_t  len;
} modex_entry_t;

static modex_entry_t g_modex[MAXKEYS];
static int g_nmodex;

static loom_status_t modex_put(void *arg, const char *key, const void *data, size_t len)
{
    modex_entry_t *e = &g_modex[g_nmodex];

    if (g_nmodex == MAXKEYS || len > sizeof(e->data)) {
        return LOOM_ERR_NO_RESOURCE;   /* (also runs in --open-child, outside CUnit) */
    }
    ++g_nmodex;
    e->rank = (int)(intptr_t)arg;
    snprintf(e->key, sizeof(e->key), "%s", key);
    memcpy(e->data, data, len);
    e->len = len;
    return LOOM_OK;
}

static loom_status_t modex_get(void *arg, int rank, const char *key, void *buf, size_t *len_p)
{
    (void)arg;
    for (int i = 0; i < g_nmodex; ++i) {
        if (g_modex[i].rank == rank && strcmp(g_modex[i].key, key) == 0) {
            if (*len_p < g_modex[i].len) {
                *len_p = g_modex[i].len;
                return LOOM_ERR_TRUNCATED;
            }
            memcpy(buf, g_modex[i].data, g_modex[i].len);
            *len_p = g_modex[i].len;
            return LOOM_OK;
        }
    }
    return LOOM_ERR_NOT_FOUND;
}

/* ---- the ranks ------------------------------------------------------------------ */

typedef struct frame {
    uint32_t seq;
    uint32_t src;
} frame_t;

typedef struct rank_state {
    int      rank;
    uint32_t expect[MAXR];    /* next seq from each source */
    uint32_t sent[MAXR];      /* next seq to each destination */
    size_t   received;
    size_t   bad;
    int      errs;
    int      err_peer;
    loom_status_t err_status;
    char     err_what[512];
} rank_state_t;

typedef struct world {
    int                   n;
    int                   node_of_rank[MAXR];
    const char           *hosts[MAXR];
    loom_bootstrap_info_t job[MAXR];
    loom_tl_iface_t      *iface[MAXR];
    loom_tl_ep_t         *ep[MAXR][MAXR];
    rank_state_t          st[MAXR];
} world_t;

static world_t W;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static loom_status_t send_frame(int src, int dst, size_t len);

/* test_callback_replies: rank 1 answers every frame of rank 0 from the callback */
static int g_echo;
static unsigned g_echo_corked;

static void echo_from_callback(int me, int to)
{
    loom_tcp_ep_t *ep = loom_tcp_ep_of(W.ep[me][to]);

    CU_ASSERT_EQUAL(send_frame(me, to, 8), LOOM_OK);
    /* inside progress: held back, not written */
    g_echo_corked += !loom_list_is_empty(&ep->txq);
    /* a larger frame (not corked itself) must still leave after it */
    CU_ASSERT_EQUAL(send_frame(me, to, LOOM_TCP_SMALL_INLINE + 100), LOOM_OK);
}

static void on_am(void *arg, int src, const void *data, size_t len)
{
    rank_state_t *s = arg;
    frame_t f;

    if (len < sizeof(f)) {
        ++s->bad;
        return;
    }
    memcpy(&f, data, sizeof(f));
    if ((int)f.src != src || f.seq != s->expect[src]) {
        ++s->bad;
    }
    for (size_t i = sizeof(f); i < len; ++i) {
        if (((const uint8_t *)data)[i] != (uint8_t)(f.seq * 7 + i + (size_t)src)) {
            ++s->bad;
            break;
        }
    }
    s->expect[src] = f.seq + 1;
    ++s->received;
    if (g_echo && s->rank == 1 && src == 0) {
        echo_from_callback(1, 0);
    }
}

static void on_err(void *arg, int peer, loom_status_t status, const char *what)
{
    rank_state_t *s = arg;

    ++s->errs;
    s->err_peer = peer;
    s->err_status = status;
    snprintf(s->err_what, sizeof(s->err_what), "%s", what);
}

static void world_open(int n, int same_node)
{
    memset(&W, 0, sizeof(W));
    g_nmodex = 0;
    W.n = n;
    for (int r = 0; r < n; ++r) {
        W.node_of_rank[r] = same_node ? 0 : r;
        W.hosts[r] = same_node ? "loophost" : "otherhost";
    }
    for (int r = 0; r < n; ++r) {
        loom_tl_params_t params = { &W.job[r], on_am, on_err, &W.st[r] };
        loom_tcp_modex_t modex = { modex_put, modex_get, (void *)(intptr_t)r };

        W.job[r] = (loom_bootstrap_info_t){ .rank = r, .size = n, .local_size = n,
                                            .node_of_rank = W.node_of_rank,
                                            .hostnames = W.hosts, .jobid = "tcp-test" };
        W.st[r].rank = r;
        CU_ASSERT_EQUAL_FATAL(loom_tcp_iface_open_modex(&params, &modex, &W.iface[r]),
                              LOOM_OK);
        CU_ASSERT_STRING_EQUAL(W.iface[r]->name, "tcp");
        CU_ASSERT(W.iface[r]->caps.max_am >= 64 * 1024 && W.iface[r]->caps.can_get);
    }
    /* (the engine fences here) */
    for (int r = 0; r < n; ++r) {
        for (int p = 0; p < n; ++p) {
            if (p == r) {
                CU_ASSERT_FALSE(W.iface[r]->ops.reachable(W.iface[r], p));
                continue;
            }
            CU_ASSERT(W.iface[r]->ops.reachable(W.iface[r], p));
            CU_ASSERT_EQUAL_FATAL(W.iface[r]->ops.ep_create(W.iface[r], p, &W.ep[r][p]),
                                  LOOM_OK);
        }
    }
}

static void world_close(void)
{
    for (int r = 0; r < W.n; ++r) {
        if (W.iface[r] == NULL) {
            continue;
        }
        for (int p = 0; p < W.n; ++p) {
            if (W.ep[r][p] != NULL) {
                W.iface[r]->ops.ep_destroy(W.ep[r][p]);
            }
        }
        W.iface[r]->ops.close(W.iface[r]);
        W.iface[r] = NULL;
    }
}

static void progress_all(void)
{
    for (int r = 0; r < W.n; ++r) {
        if (W.iface[r] != NULL) {
            loom_tl_iface_progress(W.iface[r]);
        }
    }
}

/* Send frame number st.sent[dst] of @p len bytes from @p src to @p dst. */
static loom_status_t send_frame(int src, int dst, size_t len)
{
    static uint8_t buf[LOOM_TCP_MAX_AM];
    frame_t f = { .seq = W.st[src].sent[dst], .src = (uint32_t)src };
    loom_status_t st;

    len = LOOM_MAX(len, sizeof(f));
    memcpy(buf, &f, sizeof(f));
    for (size_t i = sizeof(f); i < len; ++i) {
        buf[i] = (uint8_t)(f.seq * 7 + i + (size_t)src);
    }
    /* the header / payload split is the engine's business: vary it */
    st = loom_tl_ep_am_send(W.ep[src][dst], buf, LOOM_MIN(len, 24 + f.seq % 5),
                            buf + LOOM_MIN(len, 24 + f.seq % 5),
                            len - LOOM_MIN(len, 24 + f.seq % 5));
    if (st == LOOM_OK) {
        ++W.st[src].sent[dst];
    }
    return st;
}

static int all_delivered(void)
{
    for (int r = 0; r < W.n; ++r) {
        for (int p = 0; p < W.n; ++p) {
            if (p != r && W.st[p].expect[r] != W.st[r].sent[p]) {
                return 0;
            }
        }
    }
    return 1;
}

static int wait_for(int (*cond)(void))
{
    double t0 = now();

    while (!cond()) {
        if (now() - t0 > DEADLINE) {
            return 0;
        }
        progress_all();
    }
    return 1;
}

static size_t frame_size(unsigned i)
{
    switch (i % 6) {
    case 0: return 8;
    case 1: return 100 + i % 300;
    case 2: return LOOM_TCP_SMALL_INLINE + 1;
    case 3: return 4096 + i;
    case 4: return LOOM_TCP_MAX_AM;
    default: return 20000 + (i * 7919) % 40000;
    }
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_all_pairs(void)
{
    const unsigned per_pair = 300;

    world_open(4, 1);
    /* everyone sends to everyone before anyone progresses: races on every pair */
    for (unsigned i = 0; i < per_pair; ++i) {
        for (int r = 0; r < W.n; ++r) {
            for (int p = 0; p < W.n; ++p) {
                double t0 = now();
                if (p == r) {
                    continue;
                }
                while (send_frame(r, p, frame_size(i)) == LOOM_ERR_NO_RESOURCE &&
                       now() - t0 < DEADLINE) {
                    progress_all();
                }
            }
        }
    }
    CU_ASSERT(wait_for(all_delivered));
    for (int r = 0; r < W.n; ++r) {
        CU_ASSERT_EQUAL(W.st[r].bad, 0);
        CU_ASSERT_EQUAL(W.st[r].errs, 0);
        CU_ASSERT_EQUAL(W.st[r].received, per_pair * (unsigned)(W.n - 1));
    }
    /* exactly one connection per pair, the same socket seen from both ends */
    for (int r = 0; r < W.n; ++r) {
        for (int p = r + 1; p < W.n; ++p) {
            loom_tcp_ep_t *a = loom_tcp_ep_of(W.ep[r][p]), *b = loom_tcp_ep_of(W.ep[p][r]);
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

static void test_backpressure(void)
{
    unsigned accepted = 0;
    loom_status_t st;

    world_open(2, 1);
    CU_ASSERT_EQUAL(send_frame(0, 1, 8), LOOM_OK);
    CU_ASSERT(wait_for(all_delivered));
    /* rank 1 does not progress: rank 0 must hit back-pressure, boundedly */
    while ((st = send_frame(0, 1, LOOM_TCP_MAX_AM)) == LOOM_OK && accepted < 100000) {
        ++accepted;
        loom_tl_iface_progress(W.iface[0]);
    }
    CU_ASSERT_EQUAL(st, LOOM_ERR_NO_RESOURCE);
    CU_ASSERT(accepted > 4);
    CU_ASSERT(accepted < 1000);   /* 4 MiB queue + socket buffers, not unbounded */
    /* too large is a plain error */
    {
        static uint8_t big[LOOM_TCP_MAX_AM + 1];
        CU_ASSERT_EQUAL(loom_tl_ep_am_send(W.ep[0][1], big, 1, big, LOOM_TCP_MAX_AM),
                        LOOM_ERR_INVALID_ARG);
    }
    CU_ASSERT(wait_for(all_delivered));
    CU_ASSERT_EQUAL(W.st[1].bad, 0);
    CU_ASSERT_EQUAL(W.st[1].received, accepted + 1);
    CU_ASSERT_EQUAL(W.st[0].errs + W.st[1].errs, 0);
    world_close();
}

static void test_callback_replies(void)
{
    const unsigned n = 200;
    loom_tcp_iface_t *i1;

    world_open(2, 1);
    i1 = loom_tcp_iface_of(W.iface[1]);
    CU_ASSERT_EQUAL(send_frame(0, 1, 8), LOOM_OK);   /* connect first */
    CU_ASSERT(wait_for(all_delivered));
    g_echo = 1;
    g_echo_corked = 0;
    for (unsigned i = 0; i < n; ++i) {
        CU_ASSERT_EQUAL(send_frame(0, 1, frame_size(i) % 2000), LOOM_OK);
        if (i % 7 == 0) {
            progress_all();
            /* nothing stays corked once progress() returns */
            CU_ASSERT(loom_list_is_empty(&i1->corked));
            CU_ASSERT_FALSE(i1->corking);
        }
    }
    CU_ASSERT(wait_for(all_delivered));
    g_echo = 0;
    CU_ASSERT_EQUAL(W.st[0].received, 2 * n);   /* in order (on_am checks sequence) */
    CU_ASSERT_EQUAL(g_echo_corked, n);
    CU_ASSERT_EQUAL(W.st[0].bad + W.st[1].bad, 0);
    CU_ASSERT_EQUAL(W.st[0].errs + W.st[1].errs, 0);
    /* outside progress a frame is written at once */
    CU_ASSERT_EQUAL(send_frame(1, 0, 8), LOOM_OK);
    CU_ASSERT(loom_list_is_empty(&loom_tcp_ep_of(W.ep[1][0])->txq));
    CU_ASSERT(wait_for(all_delivered));
    world_close();
}

/* ---- gets ---- */

typedef struct get_op {
    loom_tl_comp_t comp;
    int            done;
    loom_status_t  status;
} get_op_t;

static void on_get_done(loom_tl_comp_t *comp, loom_status_t status)
{
    get_op_t *g = loom_container_of(comp, get_op_t, comp);

    g->done++;
    g->status = status;
}

static get_op_t *g_ops;
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

static loom_status_t start_get(int r, int owner, void *dst, size_t len, uint64_t raddr,
                               const loom_tl_rkey_t *rkey, get_op_t *op)
{
    loom_status_t st;

    op->comp.cb = on_get_done;
    op->done = 0;
    st = loom_tl_ep_get(W.ep[r][owner], dst, len, raddr, rkey, &op->comp);
    if (st == LOOM_OK) {
        op->done = 1;
        op->status = LOOM_OK;
    }
    return st;
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
    get_op_t ops[2 * NG + 4];

    CU_ASSERT_FATAL(src != NULL);
    for (size_t i = 0; i < big; ++i) {
        src[i] = (uint8_t)(i ^ (i >> 9) ^ (i >> 17));
    }
    world_open(3, 1);
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(W.iface[0], src, big, &rkey, &memh), LOOM_OK);
    memcpy(&rk, rkey.data, sizeof(rk));
    g_ops = ops;
    g_nops = 0;
    /* ranks 1 and 2 read every range concurrently, with frames in between */
    for (int r = 1; r <= 2; ++r) {
        for (int i = 0; i < NG; ++i) {
            dst[r - 1][i] = calloc(1, lens[i]);
            CU_ASSERT_FATAL(dst[r - 1][i] != NULL);
            CU_ASSERT_EQUAL(start_get(r, 0, dst[r - 1][i], lens[i],
                                      (uint64_t)(uintptr_t)src + offs[i], &rkey,
                                      &ops[g_nops++]), LOOM_INPROGRESS);
            send_frame(0, r, frame_size((unsigned)i));
            send_frame(r, 0, frame_size((unsigned)i + 3));
        }
    }
    CU_ASSERT(loom_tl_ep_get(W.ep[1][0], dst[0][0], 0, 0, &rkey, &ops[g_nops].comp) ==
              LOOM_OK);
    /* a forged cookie, a range past the region: refused by the owner */
    forged = rkey;
    rk.cookie ^= 1;
    memcpy(forged.data, &rk, sizeof(rk));
    CU_ASSERT_EQUAL(start_get(1, 0, dst[0][1], 10, (uint64_t)(uintptr_t)src, &forged,
                              &ops[g_nops++]), LOOM_INPROGRESS);
    CU_ASSERT_EQUAL(start_get(2, 0, dst[1][1], 1000, (uint64_t)(uintptr_t)src + big - 999,
                              &rkey, &ops[g_nops++]), LOOM_INPROGRESS);
    CU_ASSERT(wait_for(gets_done));
    CU_ASSERT(wait_for(all_delivered));
    for (int k = 0; k < 2 * NG; ++k) {
        int r = k / NG, i = k % NG;
        CU_ASSERT_EQUAL(ops[k].done, 1);
        CU_ASSERT_EQUAL(ops[k].status, LOOM_OK);
        CU_ASSERT(memcmp(dst[r][i], src + offs[i], lens[i]) == 0);
    }
    CU_ASSERT_EQUAL(ops[2 * NG].status, LOOM_ERR_INVALID_BUFFER);
    CU_ASSERT_EQUAL(ops[2 * NG + 1].status, LOOM_ERR_INVALID_BUFFER);
    /* once released, the key is stale */
    loom_tl_mem_release(W.iface[0], memh);
    g_ops = &ops[2 * NG + 2];
    g_nops = 1;
    CU_ASSERT_EQUAL(start_get(1, 0, dst[0][1], 10, (uint64_t)(uintptr_t)src, &rkey, g_ops),
                    LOOM_INPROGRESS);
    CU_ASSERT(wait_for(gets_done));
    CU_ASSERT_EQUAL(g_ops[0].status, LOOM_ERR_INVALID_BUFFER);
    for (int r = 0; r < 3; ++r) {
        CU_ASSERT_EQUAL(W.st[r].errs, 0);
        CU_ASSERT_EQUAL(W.st[r].bad, 0);
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
    get_op_t op;
    double t0 = now();

    CU_ASSERT_FATAL(src != NULL && dst != NULL);
    memset(src, 0x5a, big);
    world_open(2, 1);
    send_frame(0, 1, 8);
    send_frame(1, 0, 8);
    CU_ASSERT(wait_for(all_delivered));
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(W.iface[0], src, big, &rkey, &memh), LOOM_OK);
    CU_ASSERT_EQUAL(start_get(1, 0, dst, big, (uint64_t)(uintptr_t)src, &rkey, &op),
                    LOOM_INPROGRESS);
    /* rank 0 starts streaming into a socket that rank 1 does not drain yet */
    while (loom_tcp_iface_of(W.iface[0])->regions.used == 1 &&
           ((loom_tcp_region_t *)memh)->streams == 0 && now() - t0 < DEADLINE) {
        loom_tl_iface_progress(W.iface[0]);
    }
    CU_ASSERT_EQUAL(((loom_tcp_region_t *)memh)->streams, 1);
    loom_tl_mem_release(W.iface[0], memh);
    memset(src, 0, big);
    free(src);   /* the sanitizers would see any later read of it */
    g_ops = &op;
    g_nops = 1;
    CU_ASSERT(wait_for(gets_done));
    CU_ASSERT_EQUAL(op.status, LOOM_ERR_CANCELED);
    /* the connection is still good */
    send_frame(0, 1, 1000);
    CU_ASSERT(wait_for(all_delivered));
    CU_ASSERT_EQUAL(W.st[0].errs + W.st[1].errs, 0);
    world_close();
    free(dst);
}

static size_t g_received_at_get_done;   /* frames rank 1 had at the first completion */

static void on_get_done_count(loom_tl_comp_t *comp, loom_status_t status)
{
    on_get_done(comp, status);
    if (g_received_at_get_done == SIZE_MAX) {
        g_received_at_get_done = W.st[1].received;
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
    get_op_t ops[4];
    int seen_stream = 0, order_ok = 1;

    CU_ASSERT_FATAL(src != NULL && dst != NULL);
    for (size_t i = 0; i < big; ++i) {
        src[i] = (uint8_t)(i * 131 + (i >> 20));
    }
    world_open(2, 1);
    send_frame(0, 1, 8);
    CU_ASSERT(wait_for(all_delivered));
    ep = loom_tcp_ep_of(W.ep[0][1]);
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(W.iface[0], src, big, &rkey, &memh), LOOM_OK);
    g_received_at_get_done = SIZE_MAX;
    for (int i = 0; i < 4; ++i) {
        ops[i] = (get_op_t){ .comp.cb = on_get_done_count };
        CU_ASSERT_EQUAL(loom_tl_ep_get(W.ep[1][0], dst + i * part, part,
                                       (uint64_t)(uintptr_t)(src + i * part), &rkey,
                                       &ops[i].comp), LOOM_INPROGRESS);
    }
    for (double t0 = now(); loom_list_length(&ep->txq) < 4 && now() - t0 < DEADLINE;) {
        loom_tl_iface_progress(W.iface[0]);   /* rank 1 does not read: the streams wait */
    }
    for (unsigned i = 0; i < 10; ++i) {
        CU_ASSERT_EQUAL(send_frame(0, 1, i % 2 ? 8 : 3000), LOOM_OK);
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
    CU_ASSERT(wait_for(gets_done));
    CU_ASSERT(wait_for(all_delivered));
    for (int i = 0; i < 4; ++i) {
        CU_ASSERT_EQUAL(ops[i].status, LOOM_OK);
    }
    CU_ASSERT(memcmp(dst, src, big) == 0);
    CU_ASSERT_EQUAL(g_received_at_get_done, 11);   /* all frames before any get is done */
    CU_ASSERT_EQUAL(W.st[0].errs + W.st[1].errs + (int)W.st[1].bad, 0);
    loom_tl_mem_release(W.iface[0], memh);
    world_close();
    free(src);
    free(dst);
}

/* ---- outsiders ---- */

static int connect_to(int r)
{
    const loom_tcp_addr_t *a = loom_tcp_iface_addr(W.iface[r]);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = a->port };
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memcpy(&sin.sin_addr, a->addr, 4);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    return fd;
}

/* Progress the job until the outsider's socket is closed by rank @p r. */
static int refused(int fd)
{
    double t0 = now();
    char c;

    while (now() - t0 < DEADLINE) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        progress_all();
        if (poll(&pfd, 1, 1) == 1) {
            ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
            return n == 0 || (n < 0 && errno == ECONNRESET);
        }
    }
    return 0;
}

static void send_hello(int fd, int src, int dst, const uint8_t *secret, uint32_t magic)
{
    uint8_t buf[sizeof(loom_tcp_frame_hdr_t) + sizeof(loom_tcp_hello_t)];
    loom_tcp_frame_hdr_t fh = { .len = sizeof(loom_tcp_hello_t), .type = LOOM_TCP_HELLO };
    loom_tcp_hello_t h;

    loom_tcp_hello_pack(&h, src, dst, secret);
    h.magic = magic;
    memcpy(buf, &fh, sizeof(fh));
    memcpy(buf + sizeof(fh), &h, sizeof(h));
    CU_ASSERT_EQUAL(send(fd, buf, sizeof(buf), MSG_NOSIGNAL), (ssize_t)sizeof(buf));
}

static void test_outsiders(void)
{
    uint8_t wrong[LOOM_TCP_SECRET_LEN] = { 1, 2, 3 }, secret[LOOM_TCP_SECRET_LEN];
    size_t len = sizeof(secret);
    static const char garbage[] = "GET / HTTP/1.0\r\n\r\n";
    loom_tcp_frame_hdr_t huge = { .len = 1u << 30, .type = LOOM_TCP_HELLO };
    int fd;

    world_open(2, 1);
    send_frame(0, 1, 8);
    CU_ASSERT(wait_for(all_delivered));
    CU_ASSERT_EQUAL_FATAL(modex_get(NULL, 0, LOOM_TCP_KEY_SECRET, secret, &len), LOOM_OK);

    fd = connect_to(1);                          /* wrong secret */
    send_hello(fd, 0, 1, wrong, LOOM_TCP_MAGIC);
    CU_ASSERT(refused(fd));
    close(fd);
    fd = connect_to(1);                          /* not loom at all */
    CU_ASSERT(send(fd, garbage, sizeof(garbage), MSG_NOSIGNAL) > 0);
    CU_ASSERT(refused(fd));
    close(fd);
    fd = connect_to(0);                          /* a frame length meant to exhaust memory */
    CU_ASSERT(send(fd, &huge, sizeof(huge), MSG_NOSIGNAL) > 0);
    CU_ASSERT(refused(fd));
    close(fd);
    fd = connect_to(1);                          /* right secret, but rank 0 is connected */
    send_hello(fd, 0, 1, secret, LOOM_TCP_MAGIC);
    CU_ASSERT(refused(fd));
    close(fd);
    fd = connect_to(1);                          /* connects and goes away */
    close(fd);

    /* the job goes on */
    for (unsigned i = 0; i < 50; ++i) {
        send_frame(0, 1, frame_size(i));
        send_frame(1, 0, frame_size(i + 1));
    }
    CU_ASSERT(wait_for(all_delivered));
    CU_ASSERT_EQUAL(W.st[0].errs + W.st[1].errs, 0);
    CU_ASSERT_EQUAL(W.st[0].bad + W.st[1].bad, 0);
    CU_ASSERT(loom_list_is_empty(&loom_tcp_iface_of(W.iface[1])->pending));
    world_close();
}

/* ---- failures ---- */

static int errs_seen(void)
{
    return W.st[0].errs > 0 && W.st[1].errs > 0;
}

static void test_peer_death(void)
{
    uint8_t *src = calloc(1, 1 << 20), *dst = malloc(1 << 20);
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;
    get_op_t op;
    loom_tcp_iface_t *dying;

    world_open(3, 1);
    for (int r = 0; r < 3; ++r) {
        for (int p = 0; p < 3; ++p) {
            if (p != r) {
                send_frame(r, p, 100);
            }
        }
    }
    CU_ASSERT(wait_for(all_delivered));
    /* rank 0 asks rank 2 for data that rank 2 will never send */
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(W.iface[2], src, 1 << 20, &rkey, &memh), LOOM_OK);
    CU_ASSERT_EQUAL(start_get(0, 2, dst, 1 << 20, (uint64_t)(uintptr_t)src, &rkey, &op),
                    LOOM_INPROGRESS);
    /* rank 2 dies: its sockets close without a BYE, it never progresses again */
    dying = loom_tcp_iface_of(W.iface[2]);
    for (int p = 0; p < 2; ++p) {
        shutdown(dying->peers[p]->conn->fd, SHUT_RDWR);
    }
    W.iface[2] = NULL;   /* progress_all skips it */
    W.n = 2;
    CU_ASSERT(wait_for(errs_seen));
    for (int r = 0; r < 2; ++r) {
        CU_ASSERT_EQUAL(W.st[r].errs, 1);
        CU_ASSERT_EQUAL(W.st[r].err_peer, 2);
        CU_ASSERT_EQUAL(W.st[r].err_status, LOOM_ERR_PEER_FAILED);
        /* both ends named: "rank r@host (addr) and rank 2@host (addr)" */
        CU_ASSERT(strstr(W.st[r].err_what, "rank 2@loophost") != NULL);
        CU_ASSERT(strstr(W.st[r].err_what, r == 0 ? "rank 0@loophost" : "rank 1@loophost")
                  != NULL);
        CU_ASSERT(strstr(W.st[r].err_what, "127.0.0.1:") != NULL);
        CU_ASSERT(strstr(W.st[r].err_what, "receive") != NULL);
    }
    CU_ASSERT_EQUAL(op.done, 1);
    CU_ASSERT_EQUAL(op.status, LOOM_ERR_PEER_FAILED);
    /* sending to the dead peer fails at once, the others still talk */
    CU_ASSERT_EQUAL(send_frame(0, 2, 10), LOOM_ERR_PEER_FAILED);
    send_frame(0, 1, 5000);
    send_frame(1, 0, 5000);
    CU_ASSERT(wait_for(all_delivered));
    CU_ASSERT_EQUAL(W.st[0].errs + W.st[1].errs, 2);
    W.n = 3;
    W.iface[2] = &dying->super;
    loom_tl_mem_release(W.iface[2], memh);
    world_close();
    free(src);
    free(dst);
}

static int rank1_gone(void)
{
    loom_tcp_ep_t *ep = loom_tcp_ep_of(W.ep[0][1]);
    return ep->state == LOOM_TCP_EP_CLOSED && ep->conn == NULL;
}

static void test_orderly_close(void)
{
    world_open(2, 1);
    send_frame(0, 1, 8);
    send_frame(1, 0, 8);
    CU_ASSERT(wait_for(all_delivered));
    W.iface[1]->ops.close(W.iface[1]);
    W.iface[1] = NULL;
    W.ep[1][0] = NULL;
    CU_ASSERT(wait_for(rank1_gone));
    CU_ASSERT_EQUAL(W.st[0].errs, 0);
    CU_ASSERT_EQUAL(send_frame(0, 1, 8), LOOM_ERR_CONNECTION);
    world_close();
}

/* A rank whose engine chose other transports still serves a peer that chose tcp. */
static void test_idle_iface_serves(void)
{
    world_open(2, 1);
    W.iface[1]->ops.ep_destroy(W.ep[1][0]);   /* rank 1's engine uses "shm" for 0 */
    W.ep[1][0] = NULL;
    CU_ASSERT_EQUAL(loom_tcp_iface_of(W.iface[1])->num_eps, 0);
    for (unsigned i = 0; i < 20; ++i) {
        CU_ASSERT_EQUAL(send_frame(0, 1, frame_size(i)), LOOM_OK);
    }
    CU_ASSERT(wait_for(all_delivered));
    CU_ASSERT_EQUAL(W.st[1].bad, 0);
    CU_ASSERT(loom_tcp_iface_of(W.iface[1])->num_conns > 0);
    world_close();
}

/* Child of open_with_if(): open with the environment it was given, report on fd 3. */
static int open_child(int same_node)
{
    static const int nodes_same[] = { 0, 0 }, nodes_diff[] = { 0, 1 };
    static const char *const hosts[] = { "a", "b" };
    loom_bootstrap_info_t job = { .rank = 0, .size = 2, .local_size = 1,
                                  .node_of_rank = same_node ? nodes_same : nodes_diff,
                                  .hostnames = hosts, .jobid = "if" };
    loom_tl_params_t params = { &job, on_am, on_err, NULL };
    loom_tcp_modex_t modex = { modex_put, modex_get, NULL };
    loom_tl_iface_t *iface = NULL;
    loom_tcp_addr_t a = { 0 };
    loom_status_t st;

    loom_config_init();
    st = loom_tcp_iface_open_modex(&params, &modex, &iface);
    if (st == LOOM_OK) {
        a = *loom_tcp_iface_addr(iface);
        iface->ops.close(iface);
    }
    if (write(3, &st, sizeof(st)) < 0 || write(3, &a, sizeof(a)) < 0) {
        return 2;
    }
    return 0;
}

/* LOOM_TCP_IF is read once per process: try each value in a fresh process. */
static int open_with_if(const char *value, int same_node, loom_tcp_addr_t *addr_p)
{
    int fds[2], ws = 0;
    pid_t pid;
    loom_status_t st = LOOM_ERR_INTERNAL;

    CU_ASSERT_FATAL(pipe(fds) == 0);
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        if (value != NULL) {
            setenv("LOOM_TCP_IF", value, 1);
        } else {
            unsetenv("LOOM_TCP_IF");
        }
        dup2(fds[1], 3);
        execl("/proc/self/exe", "test_tcp_loop", "--open-child", same_node ? "1" : "0",
              (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    CU_ASSERT(read(fds[0], &st, sizeof(st)) == sizeof(st));
    CU_ASSERT(read(fds[0], addr_p, sizeof(*addr_p)) == sizeof(*addr_p));
    close(fds[0]);
    waitpid(pid, &ws, 0);
    CU_ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    return st;
}

static void test_open_choices(void)
{
    loom_bootstrap_info_t job = { .rank = 0, .size = 1, .local_size = 1 };
    loom_tl_params_t params = { &job, on_am, on_err, NULL };
    loom_tcp_modex_t modex = { modex_put, modex_get, NULL };
    loom_tl_iface_t *iface = NULL;
    loom_tcp_addr_t a;
    const uint32_t lo = htonl(INADDR_LOOPBACK);

    /* alone: nobody to talk to */
    CU_ASSERT_EQUAL(loom_tcp_iface_open_modex(&params, &modex, &iface), LOOM_ERR_UNSUPPORTED);
    /* one node: loopback only */
    CU_ASSERT_EQUAL(open_with_if(NULL, 1, &a), LOOM_OK);
    CU_ASSERT(a.family == AF_INET && memcmp(a.addr, &lo, 4) == 0 && a.port != 0);
    /* explicit interface name and address */
    CU_ASSERT_EQUAL(open_with_if("lo", 0, &a), LOOM_OK);
    CU_ASSERT(memcmp(a.addr, &lo, 4) == 0);
    CU_ASSERT_EQUAL(open_with_if("127.0.0.1", 0, &a), LOOM_OK);
    CU_ASSERT(memcmp(a.addr, &lo, 4) == 0);
    /* nonsense is a configuration error, not a silent fallback */
    CU_ASSERT_EQUAL(open_with_if("no-such-if0", 0, &a), LOOM_ERR_CONFIG);
    /* several nodes, nothing said: some address of this host */
    {
        loom_status_t st = open_with_if(NULL, 0, &a);
        CU_ASSERT(st == LOOM_OK || st == LOOM_ERR_UNSUPPORTED);
    }
}

int main(int argc, char **argv)
{
    static const loom_test_case_t cases[] = {
        { "frames between all pairs, simultaneous connects", test_all_pairs },
        { "back-pressure is bounded and lossless", test_backpressure },
        { "replies from a frame callback: corked, in order", test_callback_replies },
        { "gets: sizes, concurrency, forged and stale keys", test_get },
        { "region released while streaming", test_release_while_streaming },
        { "frames overtake a long stream", test_am_overtakes_stream },
        { "outsiders refused, the job goes on", test_outsiders },
        { "peer death: named error, failed get, no hang", test_peer_death },
        { "orderly close is not an error", test_orderly_close },
        { "an idle interface still serves", test_idle_iface_serves },
        { "open: listening address choices", test_open_choices },
        { NULL, NULL },
    };

    if (argc == 3 && strcmp(argv[1], "--open-child") == 0) {
        return open_child(atoi(argv[2]));
    }
    loom_config_init();
    return loom_test_run_suite("tcp transport", cases, NULL, NULL);
}
