/*
 * test_dt_iovec.c: the piece-list arithmetic of datatype/dt_iovec.c that
 * the typed rendezvous's reads follow (a position in the sender's pieces):
 *   - loom_dt_iov_skip moves (piece, offset) exactly, inside a piece, to a
 *     piece edge, across empty pieces, and stops at the end with
 *     LOOM_ERR_TRUNCATED; skipping in random steps lands where one skip of
 *     their sum does;
 *   - loom_dt_iov_span is the smallest range holding the non-empty pieces
 *     in any order, (0, 0) for none, and refuses a piece that wraps.
 */
#include "../common/cunit_main.h"
#include "dt_int.h"

#include <stdint.h>

static void test_skip_edges(void)
{
    struct iovec v[4] = {
        { (void *)0x1000, 10 }, { (void *)0x2000, 0 }, { (void *)0x3000, 5 }, { (void *)0x4000, 7 },
    };
    size_t idx = 0, off = 0;

    CU_ASSERT_EQUAL(loom_dt_iov_skip(v, 4, &idx, &off, 3), LOOM_OK);
    CU_ASSERT_EQUAL(idx, 0);
    CU_ASSERT_EQUAL(off, 3);
    /* to the end of piece 0: the position is the start of piece 1 (an empty
     * piece is passed over by the next bytes) */
    CU_ASSERT_EQUAL(loom_dt_iov_skip(v, 4, &idx, &off, 7), LOOM_OK);
    CU_ASSERT_EQUAL(idx, 1);
    CU_ASSERT_EQUAL(off, 0);
    CU_ASSERT_EQUAL(loom_dt_iov_skip(v, 4, &idx, &off, 6), LOOM_OK);
    CU_ASSERT_EQUAL(idx, 3);
    CU_ASSERT_EQUAL(off, 1);
    CU_ASSERT_EQUAL(loom_dt_iov_skip(v, 4, &idx, &off, 0), LOOM_OK);
    CU_ASSERT_EQUAL(idx, 3);
    CU_ASSERT_EQUAL(off, 1);
    CU_ASSERT_EQUAL(loom_dt_iov_skip(v, 4, &idx, &off, 6), LOOM_OK);
    CU_ASSERT_EQUAL(idx, 4);
    CU_ASSERT_EQUAL(off, 0);
    CU_ASSERT_EQUAL(loom_dt_iov_skip(v, 4, &idx, &off, 1), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(idx, 4);
    idx = 2;
    off = 4;
    CU_ASSERT_EQUAL(loom_dt_iov_skip(v, 4, &idx, &off, 9), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(idx, 4);
    CU_ASSERT_EQUAL(off, 0);
}

static void test_skip_random(void)
{
    enum { N = 3000 };
    static struct iovec v[N];
    uint64_t s = 0x243f6a8885a308d3ull;
    size_t total = 0;

    for (int i = 0; i < N; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i].iov_base = (void *)(uintptr_t)(0x10000 + 4096 * i);
        v[i].iov_len  = (size_t)(s >> 33) % 2001;   /* 0..2000, empty ones too */
        total += v[i].iov_len;
    }
    for (int round = 0; round < 20; ++round) {
        size_t idx = 0, off = 0, done = 0, want_idx = 0, want_off = 0;

        while (done < total) {
            size_t step;

            s = s * 6364136223846793005ull + 1442695040888963407ull;
            step = (size_t)(s >> 33) % 70000;
            step = step > total - done ? total - done : step;
            CU_ASSERT_EQUAL_FATAL(loom_dt_iov_skip(v, N, &idx, &off, step), LOOM_OK);
            done += step;
            want_idx = 0;
            want_off = 0;
            CU_ASSERT_EQUAL_FATAL(loom_dt_iov_skip(v, N, &want_idx, &want_off, done), LOOM_OK);
            CU_ASSERT_EQUAL_FATAL(idx, want_idx);
            CU_ASSERT_EQUAL_FATAL(off, want_off);
            CU_ASSERT_FATAL(idx == N || off == 0 || off < v[idx].iov_len);
        }
    }
}

static void test_span(void)
{
    struct iovec v[3] = {
        { (void *)0x5000, 100 }, { (void *)0x1000, 0 }, { (void *)0x2000, 8 },
    };
    struct iovec wrap[1] = { { (void *)(UINTPTR_MAX - 4), 8 } };
    uintptr_t lo = 1;
    size_t len = 1;

    CU_ASSERT_EQUAL(loom_dt_iov_span(v, 3, &lo, &len), LOOM_OK);
    CU_ASSERT_EQUAL(lo, 0x2000);   /* the empty piece at 0x1000 is not data */
    CU_ASSERT_EQUAL(len, 0x5000 + 100 - 0x2000);
    CU_ASSERT_EQUAL(loom_dt_iov_span(v + 1, 1, &lo, &len), LOOM_OK);
    CU_ASSERT_EQUAL(lo, 0);
    CU_ASSERT_EQUAL(len, 0);
    CU_ASSERT_EQUAL(loom_dt_iov_span(wrap, 1, &lo, &len), LOOM_ERR_INVALID_ARG);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "skip: inside, edges, empty pieces, end", test_skip_edges },
        { "skip: random steps equal one skip", test_skip_random },
        { "span of pieces in any order", test_span },
        { NULL, NULL },
    };
    return loom_test_run_suite("datatype iovec", cases, NULL, NULL);
}
