/*
 * test_scan_patterns.c: the recursive-doubling scan and exscan
 * (collectives/patterns/pat_scan.h) simulated for every rank count 1..64
 * in one process.
 *
 * Partials and results are tracked as rank intervals [lo, hi] folded in
 * order; a fold whose operands are not adjacent (lower range on the left)
 * marks the partial broken, and a broken partial, a gap or a wrong order
 * reaching a result fails the test. The deterministic variant tracks which
 * input slots each rank holds valid; every rank must end with 0..r.
 */
#include "../../collectives/patterns/pat_scan.h"

#include <CUnit/Basic.h>
#include <stdint.h>
#include <string.h>

#define MAXP 64

typedef struct { int lo, hi, ok; } ival_t;   /* hi < lo: empty */

/* a op b: defined when both are sound and b starts right after a */
static ival_t ival_fold(ival_t a, ival_t b)
{
    ival_t r = { a.lo, b.hi, a.ok && b.ok && a.hi + 1 == b.lo };
    return r;
}

/* the masks rank r takes part in, by loom_pat_scan_next_mask */
static void test_masks(void)
{
    for (int p = 1; p <= MAXP; ++p) {
        for (int r = 0; r < p; ++r) {
            int m = 1;
            for (int want = 1; want < p; want <<= 1) {
                if ((r ^ want) >= p) {
                    continue;
                }
                m = loom_pat_scan_next_mask(r, m, p);
                CU_ASSERT_EQUAL_FATAL(m, want);
                m <<= 1;
            }
            CU_ASSERT_FATAL(loom_pat_scan_next_mask(r, m, p) >= p);
        }
    }
}

/* one exchange of the partial-based algorithm between r and q = r ^ m */
static void scan_step(int r, int q, int ex, const ival_t *part, ival_t *npart,
                      ival_t *res, int *has)
{
    ival_t in = part[q];

    if (q < r) {
        CU_ASSERT_FATAL(in.ok);       /* what reaches a result is sound ... */
        if (ex && !has[r]) {
            CU_ASSERT_EQUAL_FATAL(in.hi, r - 1);   /* ... and adjacent */
            res[r] = in;
            has[r] = 1;
        } else {
            res[r] = ival_fold(in, res[r]);
            CU_ASSERT_FATAL(res[r].ok);
        }
        npart[r] = ival_fold(in, part[r]);
    } else {
        npart[r] = ival_fold(part[r], in);
    }
}

static void test_scan_partials(void)
{
    for (int ex = 0; ex < 2; ++ex) {
        for (int p = 1; p <= MAXP; ++p) {
            ival_t part[MAXP], npart[MAXP], res[MAXP];
            int has[MAXP];
            for (int r = 0; r < p; ++r) {
                part[r] = (ival_t){ r, r, 1 };
                res[r]  = (ival_t){ r, r, 1 };
                has[r]  = !ex;
            }
            for (int m = 1; m < p; m <<= 1) {
                memcpy(npart, part, sizeof(part));
                for (int r = 0; r < p; ++r) {
                    if ((r ^ m) < p) {
                        scan_step(r, r ^ m, ex, part, npart, res, has);
                    }
                }
                memcpy(part, npart, sizeof(part));
            }
            for (int r = 0; r < p; ++r) {
                CU_ASSERT_EQUAL_FATAL(has[r], !ex || r > 0);
                if (has[r]) {
                    CU_ASSERT_EQUAL_FATAL(res[r].lo, 0);
                    CU_ASSERT_EQUAL_FATAL(res[r].hi, ex ? r - 1 : r);
                }
            }
        }
    }
}

/* deterministic mode: the inputs of the halves travel; rank r needs 0..r */
static void test_scan_inputs(void)
{
    for (int p = 1; p <= MAXP; ++p) {
        uint64_t valid[MAXP], nvalid[MAXP];
        for (int r = 0; r < p; ++r) {
            valid[r] = 1ull << r;
        }
        for (int m = 1; m < p; m <<= 1) {
            memcpy(nvalid, valid, sizeof(valid));
            for (int r = 0; r < p; ++r) {
                int q = r ^ m, lo, hi, qlo, qhi;
                if (q >= p) {
                    continue;
                }
                loom_pat_scan_half(r, m, p, &lo, &hi);
                loom_pat_scan_half(q, m, p, &qlo, &qhi);
                /* the halves split the group: adjacent, disjoint, non-empty */
                CU_ASSERT_FATAL(lo <= r && r < hi && qlo <= q && q < qhi);
                CU_ASSERT_FATAL(q < r ? qhi == lo : hi == qlo);
                for (int k = qlo; k < qhi; ++k) {   /* slots as the partner holds them */
                    nvalid[r] = (nvalid[r] & ~(1ull << k)) | (valid[q] & (1ull << k));
                }
            }
            memcpy(valid, nvalid, sizeof(valid));
        }
        for (int r = 0; r < p; ++r) {
            uint64_t need = r == 63 ? ~0ull : (1ull << (r + 1)) - 1;
            CU_ASSERT_EQUAL_FATAL(valid[r] & need, need);
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
    s = CU_add_suite("scan_patterns", NULL, NULL);
    CU_add_test(s, "partners and masks", test_masks);
    CU_add_test(s, "scan/exscan partials fold in rank order", test_scan_partials);
    CU_add_test(s, "deterministic inputs reach every rank", test_scan_inputs);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failures != 0;
}
