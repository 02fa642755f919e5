/*
 * test_tcp_s20.c: the TCP transport's mem_pack_fill (session 20): a region
 * whose bytes are produced by the owner's fill callback just before each
 * GET_DATA chunk that reads them (a typed send packing as the peer reads,
 * p2p_rndv.c), on the in-process ranks of tcp_world.h.
 *
 * Covered: a get of several chunks from an offset inside the region, whose
 * bytes exist only once filled (the region starts poisoned), every byte
 * right, every call inside the region and in increasing order, and every
 * byte read filled first, and one hint for the next range when the stream
 * ends, inside the region too; two gets of one region at once (two streams
 * taking turns); a fill that fails on the first chunk (GET_ERR at once)
 * and one that fails half way (GET_ERR after the chunks already sent):
 * the requester's get fails with the callback's status, the connection
 * carries frames on afterwards, nothing is counted as a transport error.
 */
#include "cunit_main.h"
#include "tcp_world.h"

#include "runtime_config_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0xa5
#define MAXCALLS 256

/* the owner's producer: writes src_byte(off) at region[off], records calls */
typedef struct filler {
    uint8_t *region;
    size_t   len;
    size_t   fail_from;   /* a call reaching past this offset fails (SIZE_MAX: never) */
    size_t   ncalls, bad_calls, aheads;
    size_t   off[MAXCALLS], n[MAXCALLS];
} filler_t;

static filler_t g_fill;
static world_get_op_t g_a, g_b;

static uint8_t src_byte(size_t i)
{
    return (uint8_t)(i * 131 ^ (i >> 9) ^ (i >> 17));
}

static loom_status_t fill_cb(void *arg, size_t off, size_t len, int ahead)
{
    filler_t *f = arg;

    if (off > f->len || len > f->len - off) {   /* hints too stay inside the region */
        f->bad_calls++;
        return LOOM_ERR_INVALID_ARG;
    }
    if (ahead) {   /* a hint after a stream: the next range, not a need */
        f->aheads++;
        return LOOM_OK;
    }
    if (off + len > f->fail_from) {
        return LOOM_ERR_NO_MEMORY;
    }
    if (f->ncalls < MAXCALLS) {
        f->off[f->ncalls] = off;
        f->n[f->ncalls]   = len;
    }
    f->ncalls++;
    for (size_t i = off; i < off + len; ++i) {
        f->region[i] = src_byte(i);
    }
    return LOOM_OK;
}

static int a_done(void)
{
    return g_a.done > 0;
}

static int both_done(void)
{
    return g_a.done > 0 && g_b.done > 0;
}

static int frames_done(void)
{
    return world_all_delivered();
}

/* rank 0 exposes @p len poisoned bytes through mem_pack_fill */
static void fill_open(size_t len, size_t fail_from, loom_tl_rkey_t *rkey,
                      loom_tl_memh_t **memh)
{
    memset(&g_fill, 0, sizeof(g_fill));
    g_fill.region = malloc(len);
    CU_ASSERT_FATAL(g_fill.region != NULL);
    memset(g_fill.region, POISON, len);
    g_fill.len = len;
    g_fill.fail_from = fail_from;
    world_open(2, 1);
    CU_ASSERT_FATAL(world.iface[0]->ops.mem_pack_fill != NULL);
    CU_ASSERT_EQUAL_FATAL(world.iface[0]->ops.mem_pack_fill(world.iface[0], g_fill.region,
                                                            len, fill_cb, &g_fill, rkey,
                                                            memh), LOOM_OK);
    memset(&g_a, 0, sizeof(g_a));
    memset(&g_b, 0, sizeof(g_b));
}

static void fill_close(loom_tl_memh_t *memh)
{
    loom_tl_mem_release(world.iface[0], memh);
    world_close();
    free(g_fill.region);
}

/* @p n bytes at @p dst are the source's from region offset @p off */
static int same_as_source(const uint8_t *dst, size_t off, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (dst[i] != src_byte(off + i)) {
            return 0;
        }
    }
    return 1;
}

/* one get of several chunks from inside the region: filled in order, then read */
static void test_fill_one_get(void)
{
    size_t len = ((size_t)3 << 20) + 12345, off = 777, n = len - 777 - 100;
    uint8_t *dst = malloc(n);
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;

    CU_ASSERT_FATAL(dst != NULL);
    fill_open(len, SIZE_MAX, &rkey, &memh);
    CU_ASSERT_EQUAL(world_get(1, 0, dst, n, (uint64_t)(uintptr_t)(g_fill.region + off), &rkey,
                              &g_a), LOOM_INPROGRESS);
    CU_ASSERT(world_wait_for(a_done));
    CU_ASSERT_EQUAL(g_a.status, LOOM_OK);
    CU_ASSERT(same_as_source(dst, off, n));
    /* several calls (one a chunk), each where the last ended, covering the range */
    CU_ASSERT(g_fill.ncalls >= 3 && g_fill.ncalls <= MAXCALLS);
    CU_ASSERT_EQUAL(g_fill.bad_calls, 0);
    CU_ASSERT_EQUAL(g_fill.off[0], off);
    for (size_t i = 1; i < g_fill.ncalls && i < MAXCALLS; ++i) {
        CU_ASSERT_EQUAL(g_fill.off[i], g_fill.off[i - 1] + g_fill.n[i - 1]);
    }
    CU_ASSERT_EQUAL(g_fill.off[g_fill.ncalls - 1] + g_fill.n[g_fill.ncalls - 1], off + n);
    CU_ASSERT_EQUAL(g_fill.aheads, 1);   /* the stream's end: a hint for the next range */
    CU_ASSERT_EQUAL(g_fill.region[off - 1], POISON);   /* nothing outside the gets filled */
    CU_ASSERT_EQUAL(g_fill.region[off + n], POISON);
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    fill_close(memh);
    free(dst);
}

/* two gets of one region at once: two streams in turn, both filled and right */
static void test_fill_two_gets(void)
{
    size_t half = (size_t)2 << 20, len = 2 * half;
    uint8_t *dst = malloc(len);
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;

    CU_ASSERT_FATAL(dst != NULL);
    fill_open(len, SIZE_MAX, &rkey, &memh);
    CU_ASSERT_EQUAL(world_get(1, 0, dst, half, (uint64_t)(uintptr_t)g_fill.region, &rkey,
                              &g_a), LOOM_INPROGRESS);
    CU_ASSERT_EQUAL(world_get(1, 0, dst + half, half,
                              (uint64_t)(uintptr_t)(g_fill.region + half), &rkey, &g_b),
                    LOOM_INPROGRESS);
    CU_ASSERT(world_wait_for(both_done));
    CU_ASSERT_EQUAL(g_a.status, LOOM_OK);
    CU_ASSERT_EQUAL(g_b.status, LOOM_OK);
    CU_ASSERT(same_as_source(dst, 0, len));
    CU_ASSERT_EQUAL(g_fill.bad_calls, 0);
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    fill_close(memh);
    free(dst);
}

/* a fill failing at @p fail_from: the get fails with its status; frames still flow */
static void fill_fail_case(size_t fail_from)
{
    size_t len = (size_t)3 << 20;
    uint8_t *dst = malloc(len);
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;

    CU_ASSERT_FATAL(dst != NULL);
    fill_open(len, fail_from, &rkey, &memh);
    CU_ASSERT_EQUAL(world_get(1, 0, dst, len, (uint64_t)(uintptr_t)g_fill.region, &rkey,
                              &g_a), LOOM_INPROGRESS);
    CU_ASSERT(world_wait_for(a_done));
    CU_ASSERT_EQUAL(g_a.done, 1);
    CU_ASSERT_EQUAL(g_a.status, LOOM_ERR_NO_MEMORY);
    for (unsigned i = 0; i < 20; ++i) {   /* the connection is whole */
        CU_ASSERT_EQUAL(world_send(0, 1, world_frame_size(i)), LOOM_OK);
        CU_ASSERT_EQUAL(world_send(1, 0, world_frame_size(i + 3)), LOOM_OK);
    }
    CU_ASSERT(world_wait_for(frames_done));
    CU_ASSERT_EQUAL(world.st[0].bad + world.st[1].bad, 0);
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    fill_close(memh);
    free(dst);
}

static void test_fill_fails_first(void)
{
    fill_fail_case(0);
}

static void test_fill_fails_midway(void)
{
    fill_fail_case((size_t)3 << 19);   /* 1.5 MiB: after the first chunks went */
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "one get: filled chunk by chunk, in order, then read", test_fill_one_get },
        { "two gets of one region at once", test_fill_two_gets },
        { "a fill failing at the first chunk: GET_ERR at once", test_fill_fails_first },
        { "a fill failing half way: GET_ERR after the chunks sent", test_fill_fails_midway },
        { NULL, NULL },
    };

    loom_runtime_config_load();
    return loom_test_run_suite("tcp transport: regions filled as they are read", cases, NULL,
                               NULL);
}
