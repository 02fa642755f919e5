/*
 * test_tcp_s15.c: the TCP transport's get_iov (session 15): a get whose
 * chunks are received from the socket straight into a list of pieces (a
 * typed receive's own blocks, p2p_rndv.c), on the in-process ranks of
 * tcp_world.h.
 *
 * Covered: a message of several GET_DATA chunks into thousands of pieces
 * of mixed sizes (empty ones, ones below and above the parser's direct-read
 * threshold, more pieces than one readv takes), every byte in its piece and
 * nothing written between pieces; pieces small enough that their bytes
 * arrive buffered with the chunk header; the caller's iovec array
 * scribbled over right after the call (the get keeps its own copy); and
 * a get_iov running alongside a plain get and frames in both directions.
 */
#include "cunit_main.h"
#include "tcp_world.h"

#include "runtime_config_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define POISON 0xa5
#define MAXP   4096

/* one layout: pieces with a gap after each, over a destination arena */
typedef struct layout {
    struct iovec iov[MAXP];
    size_t       n, bytes, arena;
    uint8_t     *dst;
} layout_t;

static uint8_t src_byte(size_t i)
{
    return (uint8_t)(i * 131 ^ (i >> 9) ^ (i >> 17));
}

/* @p n pieces of lengths from @p len_of, gaps of 1-7 bytes, over a poisoned arena */
static void layout_make(layout_t *l, size_t n, size_t (*len_of)(size_t))
{
    size_t at = 0;

    l->n = n;
    l->bytes = 0;
    for (size_t i = 0; i < n; ++i) {
        l->iov[i].iov_len = len_of(i);
        l->bytes += l->iov[i].iov_len;
        at += l->iov[i].iov_len + 1 + i % 7;
    }
    l->arena = at;
    l->dst = malloc(at);
    CU_ASSERT_FATAL(l->dst != NULL);
    memset(l->dst, POISON, at);
    at = 0;
    for (size_t i = 0; i < n; ++i) {
        l->iov[i].iov_base = l->dst + at;
        at += l->iov[i].iov_len + 1 + i % 7;
    }
}

/* every piece holds the source from @p off on, every gap still the poison */
static int layout_check(const layout_t *l, size_t off)
{
    size_t at = 0, s = off, bad = 0;

    for (size_t i = 0; i < l->n; ++i) {
        const uint8_t *p = l->iov[i].iov_base;

        for (; at < (size_t)(p - l->dst); ++at) {
            bad += l->dst[at] != POISON;
        }
        for (size_t k = 0; k < l->iov[i].iov_len; ++k, ++at) {
            bad += p[k] != src_byte(s++);
        }
    }
    for (; at < l->arena; ++at) {
        bad += l->dst[at] != POISON;
    }
    return bad == 0;
}

static size_t len_mixed(size_t i)
{
    static const size_t lens[] = { 0, 1, 8, 511, 512, 1024, 4095, 4096, 5000, 64, 3, 0, 9000 };

    return lens[i % (sizeof(lens) / sizeof(lens[0]))] + i % 5;
}

static size_t len_tiny(size_t i)
{
    return 1 + i % 13;
}

static world_get_op_t g_op;

static int op_done(void)
{
    return g_op.done > 0;
}

/* rank 1 reads @p l->bytes of rank 0's source from @p off into @p l's pieces */
static void get_iov_case(layout_t *l, size_t off, int scribble)
{
    size_t total = off + l->bytes;
    uint8_t *src = malloc(total);
    struct iovec *iov = malloc(l->n * sizeof(*iov));
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;
    loom_tl_ep_t *ep;
    loom_status_t st;

    CU_ASSERT_FATAL(src != NULL && iov != NULL);
    for (size_t i = 0; i < total; ++i) {
        src[i] = src_byte(i);
    }
    memcpy(iov, l->iov, l->n * sizeof(*iov));
    world_open(2, 1);
    ep = world.ep[1][0];
    CU_ASSERT_FATAL(ep->iface->ops.get_iov != NULL);
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[0], src, total, &rkey, &memh), LOOM_OK);
    memset(&g_op, 0, sizeof(g_op));
    g_op.comp.cb = world_get_done;
    st = ep->iface->ops.get_iov(ep, iov, l->n, (uint64_t)(uintptr_t)(src + off), &rkey,
                                &g_op.comp);
    CU_ASSERT_EQUAL(st, LOOM_INPROGRESS);
    if (scribble) {
        memset(iov, 0xff, l->n * sizeof(*iov));   /* the get must not read it again */
    }
    CU_ASSERT(world_wait_for(op_done));
    CU_ASSERT_EQUAL(g_op.done, 1);
    CU_ASSERT_EQUAL(g_op.status, LOOM_OK);
    CU_ASSERT(layout_check(l, off));
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    loom_tl_mem_release(world.iface[0], memh);
    world_close();
    free(iov);
    free(src);
}

/* several chunks (256 KiB-1 MiB each) into 3000 mixed pieces, some empty */
static void test_many_pieces(void)
{
    static layout_t l;

    layout_make(&l, 3000, len_mixed);
    CU_ASSERT(l.bytes > 3 * LOOM_TCP_CHUNK);
    get_iov_case(&l, 12345, 0);
    free(l.dst);
}

/* tiny pieces: the chunk's bytes arrive buffered with its header, copied piece by piece */
static void test_tiny_pieces(void)
{
    static layout_t l;

    layout_make(&l, 400, len_tiny);
    CU_ASSERT(l.bytes < LOOM_TCP_DIRECT_MIN);
    get_iov_case(&l, 7, 1);
    free(l.dst);
}

/* a get_iov while a plain get and frames flow both ways on the same connection */
static int mixed_done(void);
static world_get_op_t g_plain;

static int mixed_done(void)
{
    return g_op.done > 0 && g_plain.done > 0 && world_all_delivered();
}

static void test_mixed(void)
{
    static layout_t l;
    size_t plain = (size_t)3 << 20;
    uint8_t *src, *pdst;
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;
    loom_tl_ep_t *ep;
    size_t total;

    layout_make(&l, 2000, len_mixed);
    total = l.bytes + plain;
    src = malloc(total);
    pdst = calloc(1, plain);
    CU_ASSERT_FATAL(src != NULL && pdst != NULL);
    for (size_t i = 0; i < total; ++i) {
        src[i] = src_byte(i);
    }
    world_open(2, 1);
    ep = world.ep[1][0];
    CU_ASSERT_FATAL(ep->iface->ops.get_iov != NULL);
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[0], src, total, &rkey, &memh), LOOM_OK);
    memset(&g_op, 0, sizeof(g_op));
    g_op.comp.cb = world_get_done;
    CU_ASSERT_EQUAL(world_get(1, 0, pdst, plain, (uint64_t)(uintptr_t)(src + l.bytes), &rkey,
                              &g_plain), LOOM_INPROGRESS);
    CU_ASSERT_EQUAL(ep->iface->ops.get_iov(ep, l.iov, l.n, (uint64_t)(uintptr_t)src, &rkey,
                                           &g_op.comp), LOOM_INPROGRESS);
    for (unsigned i = 0; i < 40; ++i) {
        CU_ASSERT_EQUAL(world_send(0, 1, world_frame_size(i)), LOOM_OK);
        CU_ASSERT_EQUAL(world_send(1, 0, world_frame_size(i + 1)), LOOM_OK);
        world_progress();
    }
    CU_ASSERT(world_wait_for(mixed_done));
    CU_ASSERT_EQUAL(g_op.status, LOOM_OK);
    CU_ASSERT_EQUAL(g_plain.status, LOOM_OK);
    CU_ASSERT(layout_check(&l, 0));
    CU_ASSERT(memcmp(pdst, src + l.bytes, plain) == 0);
    CU_ASSERT_EQUAL(world.st[0].bad + world.st[1].bad, 0);
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    loom_tl_mem_release(world.iface[0], memh);
    world_close();
    free(l.dst);
    free(pdst);
    free(src);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "get_iov: several chunks into 3000 mixed pieces, gaps untouched", test_many_pieces },
        { "get_iov: tiny pieces from the buffer, the caller's array scribbled after the call",
          test_tiny_pieces },
        { "get_iov alongside a plain get and frames both ways", test_mixed },
        { NULL, NULL },
    };

    loom_runtime_config_load();
    return loom_test_run_suite("tcp transport: get_iov into pieces", cases, NULL, NULL);
}
