/*
 * test_tcp_rev15.c: review of the TCP transport's get_iov (session 15):
 * a broken or dying owner while a get into pieces is outstanding. Rank 0
 * of the in-process world (tcp_world.h) is never progressed after the
 * connection is up; the test writes its GET_DATA frames by hand on its
 * socket, so rank 1's parser sees exactly the chunks the case wants.
 *
 * Covered: a chunk sent twice (or a chunk at an offset the get has not
 * reached) must fail the connection and the get, not complete the get with
 * pieces never written; a chunk reaching past the pieces writes nothing;
 * the owner dying in the middle of a chunk (pieces half written, some of
 * them straight from the socket) completes the get once with the error,
 * leaves the gaps between pieces alone and the get_iov count at 0 (ASan:
 * no use of the freed copy of the pieces); a get_iov the owner refuses
 * (GET_ERR) completing with the error, leaving the count at 0 and the
 * pieces alone, and the next one on that connection served.
 */
#include "cunit_main.h"
#include "tcp_world.h"

#include "runtime_config_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define POISON 0xa5
#define NPIECE 600

/* pieces of 7-56 bytes, a gap of 1-5 poisoned bytes after each */
typedef struct pieces {
    struct iovec iov[NPIECE];
    size_t       bytes, arena;
    uint8_t     *dst;
} pieces_t;

static world_get_op_t g_op;
static loom_tcp_iface_t *g_owner;   /* rank 0, out of world.iface[] while silent */

static uint8_t src_byte(size_t i)
{
    return (uint8_t)(i * 37 + (i >> 8));
}

static void pieces_make(pieces_t *p)
{
    size_t at = 0;

    p->bytes = 0;
    for (size_t i = 0; i < NPIECE; ++i) {
        p->bytes += 7 + i % 50;
        at += 7 + i % 50 + 1 + i % 5;
    }
    p->arena = at;
    p->dst = malloc(at);
    CU_ASSERT_FATAL(p->dst != NULL);
    memset(p->dst, POISON, at);
    at = 0;
    for (size_t i = 0; i < NPIECE; ++i) {
        p->iov[i].iov_base = p->dst + at;
        p->iov[i].iov_len  = 7 + i % 50;
        at += 7 + i % 50 + 1 + i % 5;
    }
}

/*
 * The pieces hold the source's first @p upto bytes (and nothing is claimed
 * past them: those bytes may be anything but a gap's poison is checked
 * everywhere). @return the number of wrong bytes.
 */
static size_t pieces_check(const pieces_t *p, size_t upto)
{
    size_t at = 0, s = 0, bad = 0;

    for (size_t i = 0; i < NPIECE; ++i) {
        const uint8_t *b = p->iov[i].iov_base;

        for (; at < (size_t)(b - p->dst); ++at) {
            bad += p->dst[at] != POISON;
        }
        for (size_t k = 0; k < p->iov[i].iov_len; ++k, ++at, ++s) {
            bad += s < upto && b[k] != src_byte(s);
        }
    }
    for (; at < p->arena; ++at) {
        bad += p->dst[at] != POISON;
    }
    return bad;
}

/* no byte of the pieces or gaps changed */
static int pieces_untouched(const pieces_t *p)
{
    for (size_t at = 0; at < p->arena; ++at) {
        if (p->dst[at] != POISON) {
            return 0;
        }
    }
    return 1;
}

static loom_tcp_iface_t *owner(void)
{
    return g_owner;
}

static loom_tcp_iface_t *reader(void)
{
    return loom_tcp_iface_of(world.iface[1]);
}

/*
 * Open two ranks, connect them, and have rank 1 get_iov @p p->bytes of
 * rank 0 into @p p's pieces. Rank 0 is never progressed again (world.iface[0]
 * NULL; owner() still reaches it). @return the get's wire id.
 */
static uint64_t start_get(pieces_t *p, uint8_t *src, loom_tl_memh_t **memh_p)
{
    loom_tl_rkey_t rkey;
    loom_tl_ep_t *ep;
    loom_tcp_get_t *g;

    world_open(2, 1);
    world_send(0, 1, 8);
    world_send(1, 0, 8);
    CU_ASSERT_FATAL(world_wait_for(world_all_delivered));
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[0], src, p->bytes, &rkey, memh_p),
                          LOOM_OK);
    ep = world.ep[1][0];
    memset(&g_op, 0, sizeof(g_op));
    g_op.comp.cb = world_get_done;
    CU_ASSERT_EQUAL_FATAL(ep->iface->ops.get_iov(ep, p->iov, NPIECE,
                                                 (uint64_t)(uintptr_t)src, &rkey, &g_op.comp),
                          LOOM_INPROGRESS);
    CU_ASSERT_EQUAL(reader()->iov_gets, 1);
    g = loom_list_head_entry(&loom_tcp_ep_of(ep)->gets, loom_tcp_get_t, link);
    g_owner = loom_tcp_iface_of(world.iface[0]);
    world.iface[0] = NULL;   /* world_progress skips it */
    return loom_tcp_slots_id(g->idx, g->cookie);
}

/* Write a GET_DATA frame of @p len source bytes from @p off, its first @p cut bytes only. */
static void send_chunk(uint64_t id, size_t off, size_t len, size_t cut)
{
    size_t hl = sizeof(loom_tcp_frame_hdr_t) + sizeof(loom_tcp_data_hdr_t);
    loom_tcp_frame_hdr_t fh = { .len = (uint32_t)(sizeof(loom_tcp_data_hdr_t) + len),
                                .type = LOOM_TCP_GET_DATA };
    loom_tcp_data_hdr_t dh = { .req_id = id, .offset = off };
    uint8_t *buf = malloc(hl + len);
    size_t n = LOOM_MIN(hl + len, hl + cut);

    CU_ASSERT_FATAL(buf != NULL);
    memcpy(buf, &fh, sizeof(fh));
    memcpy(buf + sizeof(fh), &dh, sizeof(dh));
    for (size_t k = 0; k < len; ++k) {
        buf[hl + k] = src_byte(off + k);
    }
    CU_ASSERT_EQUAL(send(owner()->peers[1]->conn->fd, buf, n, MSG_NOSIGNAL), (ssize_t)n);
    free(buf);
}

static int rank1_failed(void)
{
    return world.st[1].errs > 0 && g_op.done > 0;
}

static void finish(pieces_t *p, uint8_t *src, loom_tl_memh_t *memh)
{
    world.iface[0] = &g_owner->super;
    loom_tl_mem_release(world.iface[0], memh);
    world_close();
    free(p->dst);
    free(src);
}

static uint8_t *make_src(const pieces_t *p)
{
    uint8_t *src = malloc(p->bytes);

    CU_ASSERT_FATAL(src != NULL);
    for (size_t i = 0; i < p->bytes; ++i) {
        src[i] = src_byte(i);
    }
    return src;
}

/* the get failed with a protocol error, reported once, naming the chunk */
static void check_protocol_failure(void)
{
    CU_ASSERT(world_wait_for(rank1_failed));
    CU_ASSERT_EQUAL(g_op.done, 1);
    CU_ASSERT_EQUAL(g_op.status, LOOM_ERR_TRANSPORT);
    CU_ASSERT_EQUAL(world.st[1].errs, 1);
    CU_ASSERT_EQUAL(world.st[1].err_peer, 0);
    CU_ASSERT(strstr(world.st[1].err_what, "data chunk") != NULL);
    CU_ASSERT_EQUAL(reader()->iov_gets, 0);
}

/*
 * The first half sent twice: the get has counted all its bytes but the
 * second half of its pieces was never written. It must not complete LOOM_OK.
 */
static void test_chunk_twice(void)
{
    static pieces_t p;
    loom_tl_memh_t *memh;
    uint8_t *src;
    uint64_t id;

    pieces_make(&p);
    src = make_src(&p);
    id = start_get(&p, src, &memh);
    send_chunk(id, 0, p.bytes / 2, p.bytes);
    send_chunk(id, 0, p.bytes - p.bytes / 2, p.bytes);
    check_protocol_failure();
    CU_ASSERT_EQUAL(pieces_check(&p, p.bytes / 2), 0);
    finish(&p, src, memh);
}

/* a chunk past the bytes received so far (a hole before it) fails the get too */
static void test_chunk_ahead(void)
{
    static pieces_t p;
    loom_tl_memh_t *memh;
    uint8_t *src;
    uint64_t id;

    pieces_make(&p);
    src = make_src(&p);
    id = start_get(&p, src, &memh);
    send_chunk(id, p.bytes / 2, p.bytes - p.bytes / 2, p.bytes);
    check_protocol_failure();
    CU_ASSERT(pieces_untouched(&p));
    finish(&p, src, memh);
}

/* a chunk reaching one byte past the pieces: nothing written, the get fails */
static void test_chunk_past_pieces(void)
{
    static pieces_t p;
    loom_tl_memh_t *memh;
    uint8_t *src;
    uint64_t id;

    pieces_make(&p);
    src = make_src(&p);
    id = start_get(&p, src, &memh);
    send_chunk(id, 0, p.bytes + 1, p.bytes + 1);
    check_protocol_failure();
    CU_ASSERT(pieces_untouched(&p));
    finish(&p, src, memh);
}

/*
 * The owner dies with 2/3 of a chunk written: the reader has scattered part
 * of it (from its buffer and straight from the socket) when the connection
 * ends. The get completes once with the failure; the gaps are untouched.
 */
static void test_death_mid_chunk(void)
{
    static pieces_t p;
    loom_tl_memh_t *memh;
    loom_tcp_conn_t *conn;
    uint8_t *src;
    uint64_t id;
    size_t cut;

    pieces_make(&p);
    src = make_src(&p);
    id = start_get(&p, src, &memh);
    cut = p.bytes * 2 / 3;
    send_chunk(id, 0, p.bytes, cut);
    conn = loom_tcp_ep_of(world.ep[1][0])->conn;
    for (double t0 = world_now();
         conn->rx.dst_len - conn->rx.dst_left < cut && world_now() - t0 < WORLD_DEADLINE;) {
        loom_tl_iface_progress(world.iface[1]);
    }
    CU_ASSERT_EQUAL(conn->rx.dst_len - conn->rx.dst_left, cut);
    CU_ASSERT_EQUAL(g_op.done, 0);
    shutdown(owner()->peers[1]->conn->fd, SHUT_RDWR);
    CU_ASSERT(world_wait_for(rank1_failed));
    for (int i = 0; i < 10; ++i) {
        world_progress();
    }
    CU_ASSERT_EQUAL(g_op.done, 1);
    CU_ASSERT_EQUAL(g_op.status, LOOM_ERR_PEER_FAILED);
    CU_ASSERT_EQUAL(world.st[1].errs, 1);
    CU_ASSERT_EQUAL(reader()->iov_gets, 0);
    CU_ASSERT_EQUAL(pieces_check(&p, cut), 0);
    finish(&p, src, memh);
}

static int get_done(void)
{
    return g_op.done > 0;
}

/*
 * The owner refuses the range (GET_ERR: it reaches past the region): the
 * get completes once with the owner's error, the count of get_iov gets is
 * back to 0 (else data_scatter is asked for every later chunk), the pieces
 * are untouched and the connection still carries a get_iov.
 */
static void test_refused_then_ok(void)
{
    static pieces_t p;
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;
    loom_tl_ep_t *ep;
    uint8_t *src;

    pieces_make(&p);
    src = make_src(&p);
    world_open(2, 1);
    ep = world.ep[1][0];
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[0], src, p.bytes, &rkey, &memh),
                          LOOM_OK);
    memset(&g_op, 0, sizeof(g_op));
    g_op.comp.cb = world_get_done;
    CU_ASSERT_EQUAL_FATAL(ep->iface->ops.get_iov(ep, p.iov, NPIECE,
                                                 (uint64_t)(uintptr_t)(src + 1), &rkey,
                                                 &g_op.comp), LOOM_INPROGRESS);
    CU_ASSERT(world_wait_for(get_done));
    CU_ASSERT_EQUAL(g_op.done, 1);
    CU_ASSERT(g_op.status < 0);
    CU_ASSERT_EQUAL(reader()->iov_gets, 0);
    CU_ASSERT(pieces_untouched(&p));
    memset(&g_op, 0, sizeof(g_op));
    g_op.comp.cb = world_get_done;
    CU_ASSERT_EQUAL_FATAL(ep->iface->ops.get_iov(ep, p.iov, NPIECE, (uint64_t)(uintptr_t)src,
                                                 &rkey, &g_op.comp), LOOM_INPROGRESS);
    CU_ASSERT(world_wait_for(get_done));
    CU_ASSERT_EQUAL(g_op.status, LOOM_OK);
    CU_ASSERT_EQUAL(reader()->iov_gets, 0);
    CU_ASSERT_EQUAL(pieces_check(&p, p.bytes), 0);
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    loom_tl_mem_release(world.iface[0], memh);
    world_close();
    free(p.dst);
    free(src);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "get_iov: a chunk sent twice fails the get, never completes it", test_chunk_twice },
        { "get_iov: a chunk ahead of the bytes received fails the get", test_chunk_ahead },
        { "get_iov: a chunk past the pieces writes nothing and fails the get",
          test_chunk_past_pieces },
        { "get_iov: the owner dies mid-chunk: one failed completion, gaps intact",
          test_death_mid_chunk },
        { "get_iov: refused by the owner, then served: counts and pieces right",
          test_refused_then_ok },
        { NULL, NULL },
    };

    loom_runtime_config_load();
    return loom_test_run_suite("tcp transport: get_iov review (broken and dying owners)",
                               cases, NULL, NULL);
}
