/*
 * test_mc_proto.c: the reliable multicast protocol's pure logic
 * (transport/tl_mc_proto.c), on the host, no verbs: fragmentation
 * arithmetic, the decoder's checks (every field, every type, truncation),
 * fragment tracking with gaps and duplicates, the NACK bitmap both ways,
 * and a lossy simulation (one root, several receivers, datagrams dropped
 * at random in both directions) that must converge with every byte right
 * and a bounded number of rounds.
 */
#include "cunit_main.h"

#include "tl_mc_proto.h"

#include <stdlib.h>
#include <string.h>

static uint8_t pkt[64 + 8192];

static size_t make_data(uint32_t src, uint32_t op, uint32_t len, uint32_t frag,
                        uint32_t fsize, size_t body)
{
    loom_tl_mc_hdr_t h = { LOOM_TL_MC_MAGIC, LOOM_TL_MC_DATA, 0, src, 42, op, len, frag, fsize };

    loom_tl_mc_encode(pkt, &h);
    memset(pkt + sizeof(h), 0x5a, body);
    return sizeof(h) + body;
}

static void test_frag_math(void)
{
    CU_ASSERT_EQUAL(loom_tl_mc_nfrags(0, 100), 0);
    CU_ASSERT_EQUAL(loom_tl_mc_nfrags(1, 100), 1);
    CU_ASSERT_EQUAL(loom_tl_mc_nfrags(100, 100), 1);
    CU_ASSERT_EQUAL(loom_tl_mc_nfrags(101, 100), 2);
    CU_ASSERT_EQUAL(loom_tl_mc_frag_len(101, 100, 0), 100);
    CU_ASSERT_EQUAL(loom_tl_mc_frag_len(101, 100, 1), 1);
    CU_ASSERT_EQUAL(loom_tl_mc_frag_len(65536, 4064, 16), 65536 - 16 * 4064);
}

static void test_decode_data(void)
{
    loom_tl_mc_pkt_t p;
    size_t n;

    n = make_data(1, 7, 5000, 1, 4064, 5000 - 4064);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 3, 65536, &p), LOOM_OK);
    CU_ASSERT_EQUAL(p.hdr.op, 7);
    CU_ASSERT_EQUAL(p.hdr.frag, 1);
    CU_ASSERT_EQUAL(p.body_len, 5000 - 4064);
    CU_ASSERT_PTR_EQUAL(p.body, pkt + sizeof(loom_tl_mc_hdr_t));
    /* body one byte short or long */
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n - 1, 3, 65536, &p), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n + 1, 3, 65536, &p), LOOM_ERR_TRUNCATED);
    /* fragment past the end, sender out of range, too large, zero sizes */
    n = make_data(1, 7, 5000, 2, 4064, 10);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 3, 65536, &p), LOOM_ERR_INVALID_ARG);
    n = make_data(3, 7, 100, 0, 4064, 100);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 3, 65536, &p), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 4, 65536, &p), LOOM_OK);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 4, 99, &p), LOOM_ERR_INVALID_ARG);
    n = make_data(0, 7, 100, 0, 0, 100);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 4, 65536, &p), LOOM_ERR_INVALID_ARG);
    n = make_data(0, 7, 0, 0, 100, 0);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 4, 65536, &p), LOOM_ERR_INVALID_ARG);
    /* short header, bad magic, unknown flag */
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, 31, 4, 65536, &p), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(NULL, 0, 4, 65536, &p), LOOM_ERR_TRUNCATED);
    n = make_data(0, 7, 100, 0, 100, 100);
    pkt[0] ^= 1;
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 4, 65536, &p), LOOM_ERR_INVALID_ARG);
    pkt[0] ^= 1;
    pkt[3] = 0x80;
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 4, 65536, &p), LOOM_ERR_INVALID_ARG);
    pkt[3] = LOOM_TL_MC_FLAG_POLL;
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, n, 4, 65536, &p), LOOM_OK);
}

static void test_decode_ctl(void)
{
    loom_tl_mc_hdr_t h = { LOOM_TL_MC_MAGIC, LOOM_TL_MC_ACK, 0, 2, 42, 9, 0, 0, 0 };
    loom_tl_mc_pkt_t p;

    loom_tl_mc_encode(pkt, &h);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, sizeof(h), 3, 100, &p), LOOM_OK);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, sizeof(h) + 1, 3, 100, &p), LOOM_ERR_INVALID_ARG);
    h.type = LOOM_TL_MC_NACK;
    loom_tl_mc_encode(pkt, &h);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, sizeof(h), 3, 100, &p), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, sizeof(h) + 1, 3, 100, &p), LOOM_OK);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, sizeof(h) + LOOM_TL_MC_NACK_BYTES, 3, 100, &p),
                    LOOM_OK);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, sizeof(h) + LOOM_TL_MC_NACK_BYTES + 1, 3, 100, &p),
                    LOOM_ERR_INVALID_ARG);
    h.type = 9;
    loom_tl_mc_encode(pkt, &h);
    CU_ASSERT_EQUAL(loom_tl_mc_decode(pkt, sizeof(h), 3, 100, &p), LOOM_ERR_INVALID_ARG);
}

static void test_track_gaps(void)
{
    uint64_t bits[16];
    loom_tl_mc_track_t t = { bits, 1000, 0, 0, 0 };
    uint8_t mask[LOOM_TL_MC_NACK_BYTES];
    uint32_t first = 99;
    size_t n;

    loom_tl_mc_track_reset(&t, 200);
    CU_ASSERT_EQUAL(loom_tl_mc_track_mark(&t, 0), 1);
    CU_ASSERT_EQUAL(loom_tl_mc_track_mark(&t, 0), 0);     /* duplicate */
    CU_ASSERT_EQUAL(loom_tl_mc_track_mark(&t, 200), 0);   /* out of range */
    CU_ASSERT_EQUAL(loom_tl_mc_track_mark(&t, 3), 1);     /* gap: 1 and 2 */
    CU_ASSERT_EQUAL(t.high, 4);
    CU_ASSERT(t.have < t.high);
    n = loom_tl_mc_track_nack(&t, t.high, mask, &first);
    CU_ASSERT_EQUAL(first, 1);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(mask[0], 0x3);   /* fragments 1 and 2 */
    /* a timeout NACK covers everything missing up to the end */
    n = loom_tl_mc_track_nack(&t, 200, mask, &first);
    CU_ASSERT_EQUAL(first, 1);
    CU_ASSERT_EQUAL(n, (199 - 1) / 8 + 1);
    CU_ASSERT_EQUAL(mask[0], 0xfb);  /* 1, 2, 4..8 missing, 3 held */
    for (uint32_t i = 0; i < 200; ++i) {
        loom_tl_mc_track_mark(&t, i);
    }
    CU_ASSERT(loom_tl_mc_track_complete(&t));
    CU_ASSERT_EQUAL(loom_tl_mc_track_nack(&t, 200, mask, &first), 0);
    /* reset clears, and an empty broadcast is complete at once */
    loom_tl_mc_track_reset(&t, 0);
    CU_ASSERT(loom_tl_mc_track_complete(&t));
    loom_tl_mc_track_reset(&t, 5000);   /* clamped to max_frags */
    CU_ASSERT_EQUAL(t.nfrags, 1000);
}

static void test_nack_apply(void)
{
    uint64_t resend[4] = { 0 };
    uint8_t mask[LOOM_TL_MC_NACK_BYTES] = { 0 };

    mask[0] = 0x81;   /* first + 0, first + 7 */
    mask[2] = 0x01;   /* first + 16 */
    CU_ASSERT_EQUAL(loom_tl_mc_nack_apply(resend, 200, 100, mask, 3), 3);
    CU_ASSERT_EQUAL(loom_tl_mc_bits_next(resend, 200, 0), 100);
    CU_ASSERT_EQUAL(loom_tl_mc_bits_next(resend, 200, 101), 107);
    CU_ASSERT_EQUAL(loom_tl_mc_bits_next(resend, 200, 108), 116);
    CU_ASSERT_EQUAL(loom_tl_mc_bits_next(resend, 200, 117), 200);
    CU_ASSERT_EQUAL(loom_tl_mc_nack_apply(resend, 200, 100, mask, 3), 0);   /* already set */
    /* bits past the broadcast's end are ignored: 105 is set, 112 and 121 are not */
    CU_ASSERT_EQUAL(loom_tl_mc_nack_apply(resend, 110, 105, mask, 3), 1);
    CU_ASSERT_EQUAL(loom_tl_mc_bits_next(resend, 200, 101), 105);
    CU_ASSERT_EQUAL(loom_tl_mc_bits_next(resend, 200, 117), 200);
    memset(mask, 0xff, sizeof(mask));
    CU_ASSERT_EQUAL(loom_tl_mc_nack_apply(resend, 120, 118, mask, sizeof(mask)), 2);
    CU_ASSERT_EQUAL(loom_tl_mc_bits_next(resend, 119, 117), 118);
}

/* ---- a lossy broadcast, simulated ------------------------------------------------- */

#define SIM_RECV 5
#define SIM_LEN  50000u
#define SIM_FS   1000u

static uint64_t sim_rand = 88172645463325252ull;

static int sim_lost(double p)
{
    sim_rand ^= sim_rand << 13;
    sim_rand ^= sim_rand >> 7;
    sim_rand ^= sim_rand << 17;
    return (double)(sim_rand >> 11) / 9007199254740992.0 < p;
}

/* Rounds: the root multicasts what is to send (resend set, then new ones);
 * each receiver takes what survives, then NACKs (gap/timeout) or ACKs;
 * control datagrams are lost too. Returns the rounds used. */
static int sim_run(double loss, uint8_t dst[SIM_RECV][SIM_LEN], const uint8_t *src)
{
    uint32_t nf = loom_tl_mc_nfrags(SIM_LEN, SIM_FS);
    uint64_t tb[SIM_RECV][1], resend[1] = { 0 };
    loom_tl_mc_track_t t[SIM_RECV];
    int acked[SIM_RECV] = { 0 }, nacked = 0, round;
    uint32_t next = 0;

    for (int r = 0; r < SIM_RECV; ++r) {
        t[r] = (loom_tl_mc_track_t){ tb[r], 64, 0, 0, 0 };
        loom_tl_mc_track_reset(&t[r], nf);
    }
    for (round = 1; round < 1000 && nacked < SIM_RECV; ++round) {
        uint32_t i, sent = 0;
        if (next == nf) {   /* everything sent once: poll with the last one */
            resend[0] |= (uint64_t)1 << (nf - 1);
        }
        while (sent < 16) {  /* a send queue of 16 per round */
            i = loom_tl_mc_bits_next(resend, nf, 0);
            if (i < nf) {
                resend[0] &= ~((uint64_t)1 << i);
            } else if (next < nf) {
                i = next++;
            } else {
                break;
            }
            ++sent;
            for (int r = 0; r < SIM_RECV; ++r) {
                if (!sim_lost(loss) && loom_tl_mc_track_mark(&t[r], i)) {
                    memcpy(dst[r] + (size_t)i * SIM_FS, src + (size_t)i * SIM_FS,
                           loom_tl_mc_frag_len(SIM_LEN, SIM_FS, i));
                }
            }
        }
        for (int r = 0; r < SIM_RECV; ++r) {
            uint8_t mask[LOOM_TL_MC_NACK_BYTES];
            uint32_t first;
            size_t n;
            if (loom_tl_mc_track_complete(&t[r])) {
                if (!acked[r] && !sim_lost(loss)) {
                    acked[r] = 1;
                    ++nacked;
                }
                continue;
            }
            n = loom_tl_mc_track_nack(&t[r], next == nf ? nf : t[r].high, mask, &first);
            if (n > 0 && !sim_lost(loss)) {
                loom_tl_mc_nack_apply(resend, nf, first, mask, n);
            }
        }
    }
    return round;
}

static void test_lossy_simulation(void)
{
    static uint8_t src[SIM_LEN], dst[SIM_RECV][SIM_LEN];
    static const double loss[] = { 0.0, 0.05, 0.3, 0.5 };

    for (size_t i = 0; i < SIM_LEN; ++i) {
        src[i] = (uint8_t)(i * 131 + 7);
    }
    for (size_t k = 0; k < sizeof(loss) / sizeof(loss[0]); ++k) {
        int rounds;
        memset(dst, 0, sizeof(dst));
        rounds = sim_run(loss[k], dst, src);
        CU_ASSERT(rounds < 1000);
        if (loss[k] == 0.0) {
            CU_ASSERT(rounds <= 5);   /* 50 fragments at 16 a round, then ACKs */
        }
        for (int r = 0; r < SIM_RECV; ++r) {
            CU_ASSERT_EQUAL(memcmp(dst[r], src, SIM_LEN), 0);
        }
    }
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "fragment arithmetic", test_frag_math },
        { "decode data fragments", test_decode_data },
        { "decode ACK and NACK", test_decode_ctl },
        { "track gaps and duplicates", test_track_gaps },
        { "NACK bitmap applied at the root", test_nack_apply },
        { "lossy broadcast converges (0..50% loss)", test_lossy_simulation },
        { NULL, NULL },
    };
    return loom_test_run_suite("multicast protocol", cases, NULL, NULL);
}
