/*
 * test_patterns.c: every collective pattern simulated for every rank count
 * 1..64 in one process: who sends what to whom, checked against what the
 * other end expects, and that the end state is what the collective promises.
 * Contributions are tracked as 64-bit rank masks, so a double count (a rank
 * reduced twice) shows up as an overlap.
 */
#include "../../collectives/patterns/patterns.h"

#include <CUnit/Basic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 64
#define ALL(p) ((p) == 64 ? ~0ull : ((1ull << (p)) - 1))

static void test_blocks(void)
{
    for (int n = 1; n <= MAXP; ++n) {
        for (size_t count = 0; count < 200; count += 7) {
            size_t next = 0;
            for (int i = 0; i < n; ++i) {
                CU_ASSERT_EQUAL_FATAL(loom_pat_block_off(count, n, i), next);
                next += loom_pat_block_len(count, n, i);
            }
            CU_ASSERT_EQUAL_FATAL(next, count);
            CU_ASSERT_EQUAL(loom_pat_block_off(count, n, n), count);
        }
    }
}

static void test_binomial(void)
{
    for (int p = 1; p <= MAXP; ++p) {
        int seen[MAXP] = {0};
        int stack[MAXP], top = 0;
        stack[top++] = 0;
        seen[0] = 1;
        CU_ASSERT_EQUAL(loom_pat_binomial_parent(0), -1);
        CU_ASSERT_EQUAL(loom_pat_binomial_subtree(0, p), p);
        while (top > 0) {
            int v = stack[--top], ch[MAXP], sum = 1;
            int n = loom_pat_binomial_children(v, p, ch, MAXP);
            for (int i = 0; i < n; ++i) {
                CU_ASSERT_FATAL(ch[i] > v && ch[i] < p);
                CU_ASSERT_EQUAL_FATAL(loom_pat_binomial_parent(ch[i]), v);
                CU_ASSERT_FATAL(!seen[ch[i]]);
                seen[ch[i]] = 1;
                stack[top++] = ch[i];
                sum += loom_pat_binomial_subtree(ch[i], p);
                /* largest subtree first, and subtrees are contiguous in order */
                if (i > 0) {
                    CU_ASSERT(ch[i] < ch[i - 1]);
                    CU_ASSERT_EQUAL(ch[i] + loom_pat_binomial_subtree(ch[i], p), ch[i - 1]);
                }
            }
            if (n > 0) {
                CU_ASSERT_EQUAL(ch[n - 1], v + 1);
            }
            CU_ASSERT_EQUAL_FATAL(sum, loom_pat_binomial_subtree(v, p));
        }
        for (int v = 0; v < p; ++v) {
            CU_ASSERT_FATAL(seen[v]);
        }
        for (int root = 0; root < p; ++root) {
            for (int r = 0; r < p; ++r) {
                CU_ASSERT_EQUAL(loom_pat_rank(loom_pat_vrank(r, root, p), root, p), r);
            }
            CU_ASSERT_EQUAL(loom_pat_vrank(root, root, p), 0);
        }
    }
}

/* recursive doubling allreduce: pre, doubling among newranks, post */
static void test_recursive_doubling(void)
{
    for (int p = 1; p <= MAXP; ++p) {
        uint64_t have[MAXP], next[MAXP];
        loom_pat_rd_t rd[MAXP];
        for (int r = 0; r < p; ++r) {
            loom_pat_rd_init(&rd[r], r, p);
            have[r] = 1ull << r;
        }
        CU_ASSERT_EQUAL(rd[0].pof2 + rd[0].rem, p);
        for (int r = 0; r < p; ++r) { /* pre-step */
            if (rd[r].newrank < 0) {
                int b = rd[r].buddy;
                CU_ASSERT_EQUAL_FATAL(rd[b].buddy, r);
                CU_ASSERT_FATAL(rd[b].newrank >= 0);
                CU_ASSERT_EQUAL_FATAL(have[b] & have[r], 0);
                have[b] |= have[r];
            }
        }
        for (int n = 0; n < rd[0].pof2; ++n) { /* newrank -> real, carried ranks */
            int real = loom_pat_rd_real(&rd[0], n);
            CU_ASSERT_EQUAL_FATAL(rd[real].newrank, n);
            uint64_t want = 0;
            for (int q = loom_pat_rd_first(&rd[0], n); q < loom_pat_rd_first(&rd[0], n + 1); ++q) {
                want |= 1ull << q;
            }
            CU_ASSERT_EQUAL_FATAL(have[real], want);
        }
        CU_ASSERT_EQUAL(loom_pat_rd_first(&rd[0], rd[0].pof2), p);
        for (int d = 1; d < rd[0].pof2; d *= 2) {
            memcpy(next, have, sizeof(have));
            for (int r = 0; r < p; ++r) {
                if (rd[r].newrank < 0) {
                    continue;
                }
                int partner = loom_pat_rd_real(&rd[r], rd[r].newrank ^ d);
                CU_ASSERT_EQUAL_FATAL(loom_pat_rd_real(&rd[r], rd[partner].newrank ^ d), r);
                CU_ASSERT_EQUAL_FATAL(have[r] & have[partner], 0);
                next[r] = have[r] | have[partner];
            }
            memcpy(have, next, sizeof(have));
        }
        for (int r = 0; r < p; ++r) { /* post-step */
            if (rd[r].newrank < 0) {
                have[r] = have[rd[r].buddy];
            }
            CU_ASSERT_EQUAL_FATAL(have[r], ALL(p));
        }
    }
}

/* Rabenseifner: halving reduce-scatter then doubling allgather over pof2 blocks */
static void test_halving_doubling(void)
{
    for (int pof2 = 1; pof2 <= MAXP; pof2 *= 2) {
        static uint64_t blk[MAXP][MAXP], nblk[MAXP][MAXP];
        uint64_t own[MAXP];
        int lo[MAXP], hi[MAXP];
        for (int n = 0; n < pof2; ++n) {
            for (int b = 0; b < pof2; ++b) {
                blk[n][b] = 1ull << n;
            }
            lo[n] = 0;
            hi[n] = pof2;
        }
        for (int d = pof2 / 2; d >= 1; d /= 2) {
            memcpy(nblk, blk, sizeof(blk));
            for (int n = 0; n < pof2; ++n) {
                int keep, send, pk, ps, partner = n ^ d;
                loom_pat_halving_step(n, d, &keep, &send);
                loom_pat_halving_step(partner, d, &pk, &ps);
                CU_ASSERT_EQUAL_FATAL(ps, keep);   /* partner sends what I keep */
                CU_ASSERT_EQUAL_FATAL(pk, send);
                CU_ASSERT_FATAL(keep >= lo[n] && keep + d <= hi[n]);
                CU_ASSERT_FATAL(send >= lo[n] && send + d <= hi[n]);
                for (int b = keep; b < keep + d; ++b) {
                    CU_ASSERT_EQUAL_FATAL(blk[n][b] & blk[partner][b], 0);
                    nblk[n][b] = blk[n][b] | blk[partner][b];
                }
            }
            memcpy(blk, nblk, sizeof(blk));
            for (int n = 0; n < pof2; ++n) {
                int keep, send;
                loom_pat_halving_step(n, d, &keep, &send);
                lo[n] = keep;
                hi[n] = keep + d;
            }
        }
        for (int n = 0; n < pof2; ++n) {
            CU_ASSERT_EQUAL_FATAL(lo[n], n);
            CU_ASSERT_EQUAL_FATAL(blk[n][n], ALL(pof2));
            own[n] = 1ull << n; /* blocks held, as a mask */
        }
        for (int d = 1; d < pof2; d *= 2) {
            uint64_t nown[MAXP];
            for (int n = 0; n < pof2; ++n) {
                int have, recv, ph, pr;
                loom_pat_doubling_step(n, d, &have, &recv);
                loom_pat_doubling_step(n ^ d, d, &ph, &pr);
                CU_ASSERT_EQUAL_FATAL(ph, recv);
                CU_ASSERT_EQUAL_FATAL(pr, have);
                for (int b = have; b < have + d; ++b) {
                    CU_ASSERT_FATAL((own[n] & (1ull << b)) != 0);
                }
                nown[n] = own[n] | own[n ^ d];
            }
            memcpy(own, nown, sizeof(own));
        }
        for (int n = 0; n < pof2; ++n) {
            CU_ASSERT_EQUAL_FATAL(own[n], ALL(pof2));
        }
    }
}

static void test_ring(void)
{
    for (int p = 1; p <= MAXP; ++p) {
        static uint64_t part[MAXP][MAXP];
        uint64_t have[MAXP];
        for (int r = 0; r < p; ++r) {
            have[r] = 1ull << r;
            for (int b = 0; b < p; ++b) {
                part[r][b] = 1ull << r;
            }
        }
        for (int s = 0; s < p - 1; ++s) {
            uint64_t nhave[MAXP];
            static uint64_t npart[MAXP][MAXP];
            memcpy(npart, part, sizeof(part));
            for (int r = 0; r < p; ++r) {
                int left = loom_pat_mod(r - 1, p);
                int ab = loom_pat_ring_ag_recv_block(r, s, p);
                CU_ASSERT_EQUAL_FATAL(loom_pat_ring_ag_send_block(left, s, p), ab);
                CU_ASSERT_FATAL((have[left] & (1ull << ab)) != 0);
                CU_ASSERT_FATAL((have[r] & (1ull << ab)) == 0);
                nhave[r] = have[r] | (1ull << ab);
                int rb = loom_pat_ring_rs_recv_block(r, s, p);
                CU_ASSERT_EQUAL_FATAL(loom_pat_ring_rs_send_block(left, s, p), rb);
                CU_ASSERT_EQUAL_FATAL(part[r][rb] & part[left][rb], 0);
                npart[r][rb] = part[r][rb] | part[left][rb];
            }
            memcpy(have, nhave, sizeof(have));
            memcpy(part, npart, sizeof(part));
        }
        for (int r = 0; r < p; ++r) {
            CU_ASSERT_EQUAL_FATAL(have[r], ALL(p));
            CU_ASSERT_EQUAL_FATAL(part[r][r], ALL(p));
        }
        /* pairwise exchange: every ordered pair meets exactly once */
        for (int r = 0; r < p; ++r) {
            uint64_t met = 1ull << r;
            for (int s = 1; s < p; ++s) {
                int to = loom_pat_mod(r + s, p), from = loom_pat_mod(r - s, p);
                CU_ASSERT_EQUAL_FATAL(loom_pat_mod(from + s, p), r);
                CU_ASSERT_FATAL((met & (1ull << to)) == 0);
                met |= 1ull << to;
            }
            CU_ASSERT_EQUAL_FATAL(met, ALL(p));
        }
    }
}

static void test_dissemination(void)
{
    for (int p = 1; p <= MAXP; ++p) {
        uint64_t know[MAXP], nk[MAXP];
        int steps = 0;
        for (int r = 0; r < p; ++r) {
            know[r] = 1ull << r;
        }
        for (int dist = 1; dist < p; dist *= 2, ++steps) {
            for (int r = 0; r < p; ++r) {
                nk[r] = know[r] | know[loom_pat_mod(r - dist, p)];
            }
            memcpy(know, nk, sizeof(know));
        }
        CU_ASSERT_EQUAL(steps, loom_pat_log2_ceil(p));
        for (int r = 0; r < p; ++r) {
            CU_ASSERT_EQUAL_FATAL(know[r], ALL(p));
        }
    }
}

static void test_bruck_allgather(void)
{
    for (int p = 1; p <= MAXP; ++p) {
        static int tmp[MAXP][MAXP];
        int filled[MAXP];
        for (int r = 0; r < p; ++r) {
            tmp[r][0] = r;
            filled[r] = 1;
        }
        for (int dist = 1; dist < p; dist *= 2) {
            int cnt = loom_pat_bruck_ag_count(dist, p);
            for (int r = 0; r < p; ++r) {
                int from = loom_pat_mod(r + dist, p);
                CU_ASSERT_FATAL(filled[r] == dist && filled[from] >= cnt);
                for (int j = 0; j < cnt; ++j) {
                    tmp[r][dist + j] = tmp[from][j];
                }
            }
            for (int r = 0; r < p; ++r) {
                filled[r] += cnt;
            }
        }
        for (int r = 0; r < p; ++r) {
            CU_ASSERT_EQUAL_FATAL(filled[r], p);
            for (int j = 0; j < p; ++j) {
                CU_ASSERT_EQUAL_FATAL(tmp[r][j], loom_pat_mod(r + j, p));
            }
        }
    }
}

static void test_bruck_alltoall(void)
{
    for (int p = 1; p <= MAXP; ++p) {
        static int src[MAXP][MAXP], dst[MAXP][MAXP], ns[MAXP][MAXP], nd[MAXP][MAXP];
        for (int r = 0; r < p; ++r) {
            for (int j = 0; j < p; ++j) {
                src[r][j] = r;
                dst[r][j] = loom_pat_mod(r + j, p);
            }
        }
        for (int dist = 1; dist < p; dist *= 2) {
            int cnt = 0;
            memcpy(ns, src, sizeof(src));
            memcpy(nd, dst, sizeof(dst));
            for (int j = 0; j < p; ++j) {
                cnt += (j & dist) != 0;
            }
            CU_ASSERT_EQUAL_FATAL(loom_pat_bruck_a2a_count(dist, p), cnt);
            for (int r = 0; r < p; ++r) {
                int from = loom_pat_mod(r - dist, p);
                for (int j = 0; j < p; ++j) {
                    if (j & dist) {
                        ns[r][j] = src[from][j];
                        nd[r][j] = dst[from][j];
                    }
                }
            }
            memcpy(src, ns, sizeof(src));
            memcpy(dst, nd, sizeof(dst));
        }
        for (int r = 0; r < p; ++r) {
            for (int j = 0; j < p; ++j) {
                CU_ASSERT_EQUAL_FATAL(dst[r][j], r);
                CU_ASSERT_EQUAL_FATAL(src[r][j], loom_pat_mod(r - j, p));
            }
        }
    }
}

int main(void)
{
    CU_pSuite s;
    unsigned failures;

    if (CU_initialize_registry() != CUE_SUCCESS) {
        return 2;
    }
    s = CU_add_suite("coll_patterns", NULL, NULL);
    CU_add_test(s, "block partition", test_blocks);
    CU_add_test(s, "binomial tree covers each rank once", test_binomial);
    CU_add_test(s, "recursive doubling with pre/post step", test_recursive_doubling);
    CU_add_test(s, "recursive halving/doubling blocks", test_halving_doubling);
    CU_add_test(s, "ring allgather/reduce-scatter, pairwise", test_ring);
    CU_add_test(s, "dissemination", test_dissemination);
    CU_add_test(s, "bruck allgather", test_bruck_allgather);
    CU_add_test(s, "bruck alltoall", test_bruck_alltoall);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failures != 0;
}
