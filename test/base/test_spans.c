/*
 * test_spans.c: the produced-range set (base/spans_int.h) a typed send
 * packed as tcp reads it keeps: a fill of [off, end) produces each gap
 * loom_spans_gap names, then records the range with loom_spans_add and
 * produces the joining gap that hands back when the set was full.
 *
 * Checked against a byte model: after every fill its whole range is
 * produced, the set never claims a byte that was not, its ranges stay
 * sorted, disjoint, apart and at most LOOM_SPANS_MAX; two or three
 * streams reading their ranges in turns (a receiver's gets) produce every
 * byte exactly once; random fills (overlapping, repeated, out of order,
 * more ranges than the set holds) stay truthful and end fully produced.
 */
#include "../common/cunit_main.h"
#include "spans_int.h"

#include <stdint.h>
#include <string.h>

#define LEN 4096

static unsigned char times[LEN];   /* how often each byte was produced */
static loom_spans_t set;

static void produce(size_t lo, size_t hi)
{
    CU_ASSERT_FATAL(lo <= hi && hi <= LEN);
    for (size_t i = lo; i < hi; ++i) {
        times[i]++;
    }
}

/* the set's invariants, and every byte it claims produced */
static void check_set(void)
{
    CU_ASSERT_FATAL(set.n <= LOOM_SPANS_MAX);
    for (size_t i = 0; i < set.n; ++i) {
        CU_ASSERT_FATAL(set.lo[i] < set.hi[i]);
        CU_ASSERT_FATAL(i == 0 || set.hi[i - 1] < set.lo[i]);
        for (size_t b = set.lo[i]; b < set.hi[i]; ++b) {
            CU_ASSERT_FATAL(times[b] > 0);
        }
    }
}

/* what the sender's producer does for a read of [off, end) */
static void fill(size_t off, size_t end)
{
    size_t at = off, lo, hi;

    while (loom_spans_gap(&set, at, end, &lo, &hi)) {
        CU_ASSERT_FATAL(lo >= at && lo < hi && hi <= end);
        produce(lo, hi);
        at = hi;
    }
    loom_spans_add(&set, off, end, &lo, &hi);
    produce(lo, hi);
    for (size_t b = off; b < end; ++b) {
        CU_ASSERT_FATAL(times[b] > 0);
    }
    check_set();
}

static void reset(void)
{
    memset(times, 0, sizeof(times));
    loom_spans_init(&set);
}

/* @p k streams of @p per bytes each, read in chunks of @p chunk in turns */
static void streams_case(size_t k, size_t per, size_t chunk, size_t first)
{
    size_t next[4];

    reset();
    fill(0, first);   /* the bytes pushed behind the RTS */
    for (size_t s = 0; s < k; ++s) {
        next[s] = first + s * per;
    }
    for (int more = 1; more;) {
        more = 0;
        for (size_t s = 0; s < k; ++s) {
            size_t end = first + (s + 1) * per;
            size_t n = end - next[s] < chunk ? end - next[s] : chunk;

            if (n > 0) {
                fill(next[s], next[s] + n);
                next[s] += n;
                more = 1;
            }
        }
    }
    for (size_t b = 0; b < first + k * per; ++b) {
        CU_ASSERT_EQUAL_FATAL(times[b], 1);
    }
    CU_ASSERT_EQUAL(set.n, 1);
    CU_ASSERT_EQUAL(set.lo[0], 0);
    CU_ASSERT_EQUAL(set.hi[0], first + k * per);
}

static void test_streams(void)
{
    streams_case(1, 1000, 64, 100);
    streams_case(2, 1500, 256, 97);
    streams_case(3, 1200, 100, 13);
    streams_case(2, 2000, 2000, 0);   /* whole gets */
}

static void test_random(void)
{
    uint32_t seed = 12345;

    for (int round = 0; round < 200; ++round) {
        reset();
        for (int k = 0; k < 60; ++k) {
            size_t a, b;

            seed = seed * 1103515245u + 12345u;
            a = (seed >> 8) % LEN;
            seed = seed * 1103515245u + 12345u;
            b = a + 1 + (seed >> 8) % (round % 2 ? 64 : 700);
            fill(a, b < LEN ? b : LEN);
        }
        fill(0, LEN);
        CU_ASSERT_EQUAL(set.n, 1);
        for (size_t b = 0; b < LEN; ++b) {
            CU_ASSERT_FATAL(times[b] > 0);
        }
    }
}

/* more separate ranges than the set holds: it joins the closest and says so */
static void test_full(void)
{
    size_t lo, hi;

    reset();
    for (size_t i = 0; i < LOOM_SPANS_MAX; ++i) {
        fill(i * 100, i * 100 + 10);
    }
    CU_ASSERT_EQUAL(set.n, LOOM_SPANS_MAX);
    loom_spans_add(&set, 1000, 1010, &lo, &hi);
    CU_ASSERT_EQUAL(set.n, LOOM_SPANS_MAX);
    CU_ASSERT(hi > lo);   /* a gap of 90 bytes handed back to produce */
    CU_ASSERT_EQUAL(hi - lo, 90);
    CU_ASSERT_FALSE(loom_spans_gap(&set, lo, hi, &lo, &hi));
    /* already covered: no gap, nothing handed back */
    reset();
    fill(10, 50);
    CU_ASSERT_FALSE(loom_spans_gap(&set, 20, 40, &lo, &hi));
    loom_spans_add(&set, 20, 40, &lo, &hi);
    CU_ASSERT_EQUAL(hi - lo, 0);
    CU_ASSERT_EQUAL(set.n, 1);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "streams read in turns: every byte produced once", test_streams },
        { "random fills: truthful, fully produced at the end", test_random },
        { "a full set joins its closest ranges", test_full },
        { NULL, NULL },
    };
    return loom_test_run_suite("base produced-range set", cases, NULL, NULL);
}
