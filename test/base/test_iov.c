/*
 * test_iov.c: loom_iov_copy (base/iov_int.h), the copy between two piece
 * lists the self transport's get_riov and the p2p send-to-self receive
 * share: the same 300-byte stream cut into pieces at other places on each
 * side (every cut from a pseudo-random sequence, empty pieces included),
 * checked against the stream; a destination shorter than the source is
 * filled and nothing after it written; a source that ends first is
 * reported with what came before it copied; empty lists.
 */
#include "../common/cunit_main.h"
#include "iov_int.h"

#include <stdint.h>
#include <string.h>

#define LEN 300

static unsigned char stream[LEN], out[LEN + 16];

/* cut @p n bytes of @p base into pieces (sizes 0-40 from @p seed): the count */
static size_t cut(unsigned char *base, size_t n, uint32_t seed, struct iovec *iov)
{
    size_t k = 0, at = 0;

    while (at < n) {
        size_t len;

        seed = seed * 1103515245u + 12345u;
        len = (seed >> 16) % 41;
        len = len > n - at ? n - at : len;
        iov[k++] = (struct iovec){ .iov_base = base + at, .iov_len = len };
        at += len;
    }
    return k;
}

static void test_cuts(void)
{
    struct iovec d[LEN + 1], s[LEN + 1];

    for (size_t i = 0; i < LEN; ++i) {
        stream[i] = (unsigned char)(i * 7 + 3);
    }
    for (uint32_t seed = 1; seed < 200; ++seed) {
        size_t want = seed % 3 == 0 ? LEN / 2 : LEN;   /* a third: a shorter destination */
        size_t dn = cut(out, want, seed, d), sn = cut(stream, LEN, seed * 31 + 7, s);

        memset(out, 0xee, sizeof(out));
        CU_ASSERT_EQUAL_FATAL(loom_iov_copy(d, dn, s, sn), 1);
        CU_ASSERT_EQUAL_FATAL(memcmp(out, stream, want), 0);
        for (size_t i = want; i < sizeof(out); ++i) {
            CU_ASSERT_EQUAL_FATAL(out[i], 0xee);
        }
    }
}

static void test_source_short(void)
{
    struct iovec d[LEN + 1], s[LEN + 1];
    size_t dn = cut(out, LEN, 5, d), sn = cut(stream, 100, 9, s);

    memset(out, 0xee, sizeof(out));
    CU_ASSERT_EQUAL(loom_iov_copy(d, dn, s, sn), 0);
    CU_ASSERT_EQUAL(memcmp(out, stream, 100), 0);
    CU_ASSERT_EQUAL(out[100], 0xee);
    /* nothing to fill is filled; something to fill from nothing is not */
    CU_ASSERT_EQUAL(loom_iov_copy(d, 0, s, sn), 1);
    CU_ASSERT_EQUAL(loom_iov_copy(d, dn, s, 0), 0);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "a stream cut at other places on each side", test_cuts },
        { "a source that ends first", test_source_short },
        { NULL, NULL },
    };
    return loom_test_run_suite("base piece-list copy", cases, NULL, NULL);
}
