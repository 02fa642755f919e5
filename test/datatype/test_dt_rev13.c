/*
 * test_dt_rev13.c: what loom_dt_is_contig promises its callers (p2p's byte
 * path, the RMA fast path: one memcpy of count x size bytes at buf + true
 * lb), checked against the reference model (dt_ref.h) since session 13
 * widened it to one block of any length at a displacement.
 *
 * Design. For random nested types (fixed seed) and hand-made edge cases
 * (one block past 0, resized so that lb != true lb, negative lb and
 * displacements, one-block structs, count 2 of a one-row subarray whose
 * extent is the whole array, a block of value+index pairs), whenever the
 * engine says (type, count) is contiguous the model's flattened elements
 * must be one range in stream order starting at the true lb, of count x
 * size bytes, and a pack must equal that range's bytes. The hand-made
 * cases also check the verdict itself, both ways.
 */
#include "../common/cunit_main.h"
#include "dt_ref.h"

#include <stdio.h>

#define NTYPES 1500

static ref_rng_t rng = { .s = 0x51ed270b27a3c6f1ull };

/*
 * 1 if (dt, count) is, per the model @p r, one range at its true lb: the
 * claim loom_dt_is_contig makes (logged when it fails)
 */
static int one_range_at_true_lb(const ref_t *r, size_t count)
{
    ref_list_t l = { 0 };
    size_t m, total = count * r->size, *len;
    ptrdiff_t *off, tlb = 0;
    int ok;

    ref_flatten(r, count, &l);
    off = malloc((l.n + 1) * sizeof(*off));
    len = malloc((l.n + 1) * sizeof(*len));
    CU_ASSERT_FATAL(off != NULL && len != NULL);
    m = ref_merge(&l, off, len);
    loom_dt_get_true_extent(r->dt, &tlb, NULL);
    ok = total == 0 || (m == 1 && off[0] == tlb && len[0] == total);
    if (!ok) {
        printf("\n  contiguous per loom_dt_is_contig, count %zu, size %zu, true lb %td: "
               "%zu ranges, the first %td + %zu\n", count, r->size, tlb, m,
               m ? off[0] : 0, m ? len[0] : 0);
    }
    free(off);
    free(len);
    free(l.e);
    return ok;
}

/* a contiguous (r, count) packs as the bytes at its true lb */
static void check_pack_is_memcpy(const ref_t *r, size_t count)
{
    size_t total = count * r->size;
    ptrdiff_t tlb = 0, lo = 0, hi = 0;
    ref_list_t l = { 0 };
    char *raw, *got;

    if (total == 0) {
        return;
    }
    ref_flatten(r, count, &l);
    ref_span(&l, &lo, &hi);
    raw = malloc((size_t)(hi - lo));
    got = malloc(total);
    CU_ASSERT_FATAL(raw != NULL && got != NULL);
    for (ptrdiff_t i = 0; i < hi - lo; ++i) {
        raw[i] = (char)(i * 31 + 7);
    }
    loom_dt_get_true_extent(r->dt, &tlb, NULL);
    CU_ASSERT_EQUAL(loom_dt_pack_range(raw - lo, count, r->dt, 0, total, got), LOOM_OK);
    CU_ASSERT(memcmp(got, raw - lo + tlb, total) == 0);
    free(raw);
    free(got);
    free(l.e);
}

static void check_claim(const ref_t *r, size_t count)
{
    if (loom_dt_is_contig(r->dt, count)) {
        CU_ASSERT(one_range_at_true_lb(r, count));
        check_pack_is_memcpy(r, count);
    }
}

static void test_random_types(void)
{
    int contig = 0, done = 0;

    for (int i = 0; i < NTYPES; ++i) {
        ref_arena_t a = { 0 };
        ref_t *r = ref_gen(&rng, &a, 1 + i % 3);

        if (a.failures == 0 && r->size <= 65536) {
            CU_ASSERT_EQUAL_FATAL(loom_dt_commit(r->dt), LOOM_OK);
            for (size_t count = 0; count < 4; ++count) {
                contig += loom_dt_is_contig(r->dt, count) && count > 1 && r->size > 0;
                check_claim(r, count);
            }
            ++done;
        }
        ref_arena_free(&a);
    }
    CU_ASSERT(done > NTYPES / 2);
    printf("\n  %d random types, %d contiguous at count > 1\n", done, contig);
}

/* one block of @p bl int32 at element @p d, optionally resized, as model and engine */
static ref_t *one_block(ref_arena_t *a, int64_t bl, ptrdiff_t d, int resize, ptrdiff_t rlb,
                        ptrdiff_t rext)
{
    ptrdiff_t bd = d * 4;
    loom_dt_t *t = NULL, *rt = NULL;
    ref_t *r = ref_blocks(ref_basic(LOOM_INT32), 1, &bl, &bd, false);

    loom_status_t st = loom_dt_create_hindexed(1, &bl, &bd, loom_dt_basic(LOOM_INT32), &t);

    ref_keep(a, r, st, t);   /* (t read after the call: a statement of its own) */
    if (!resize) {
        return r;
    }
    ref_t *x = ref_new(1);
    x->bl[0] = 1;
    x->disp[0] = 0;
    x->kid[0] = r;
    x->resized = true;
    x->rlb = rlb;
    x->rext = rext;
    ref_finish(x);
    st = loom_dt_create_resized(t, rlb, rext, &rt);
    return ref_keep(a, x, st, rt);
}

static void expect(const ref_t *r, size_t count, int want)
{
    CU_ASSERT_FATAL(r->dt != NULL);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(r->dt), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_is_contig(r->dt, count) != 0, want);
    check_claim(r, count);
}

static void test_edges(void)
{
    ref_arena_t a = { 0 };
    ref_t *r;

    r = one_block(&a, 3, 2, 0, 0, 0);      /* lb 8, extent 12 = size */
    expect(r, 1, 1);
    expect(r, 3, 1);
    r = one_block(&a, 3, 2, 1, 0, 12);     /* lb 0 != true lb 8, extent = size */
    expect(r, 1, 1);
    expect(r, 2, 1);
    r = one_block(&a, 3, 2, 1, -4, 12);    /* negative lb */
    expect(r, 2, 1);
    r = one_block(&a, 3, 2, 1, 0, 20);     /* extent past the block: count 2 has a gap */
    expect(r, 1, 1);
    expect(r, 2, 0);
    r = one_block(&a, 3, -5, 0, 0, 0);     /* a negative displacement */
    expect(r, 1, 1);
    expect(r, 2, 1);
    r = one_block(&a, 2, 1, 1, 0, 4);      /* extent below the block: instances overlap */
    expect(r, 1, 1);
    expect(r, 2, 0);
    ref_arena_free(&a);
}

/* a one-row subarray (one block of bytes past 0, extent the whole array), a one-block struct */
static void test_subarray_struct(void)
{
    ref_arena_t a = { 0 };
    int64_t sizes[2] = { 3, 7 }, sub[2] = { 1, 5 }, starts[2] = { 1, 1 };
    int64_t bl[1] = { 4 };
    ptrdiff_t d[1] = { 12 };
    ref_sub_t own = { sub, starts };
    loom_dt_t *s = NULL, *st = NULL;
    loom_dt_t *types[1] = { loom_dt_basic(LOOM_INT16) };
    ref_t *sr, *tr = ref_blocks(ref_basic(LOOM_INT16), 1, bl, d, true);

    loom_status_t rc = loom_dt_create_struct(1, bl, d, types, &st);

    ref_keep(&a, tr, rc, st);
    expect(tr, 1, 1);
    expect(tr, 2, 1);   /* lb 12, extent 8 = size: instances back to back */
    sr = ref_array(ref_basic(LOOM_INT32), 2, sizes, LOOM_DT_ORDER_C, ref_sub_own, &own);
    rc = loom_dt_create_subarray(2, sizes, sub, starts, LOOM_DT_ORDER_C,
                                 loom_dt_basic(LOOM_INT32), &s);
    ref_keep(&a, sr, rc, s);
    expect(sr, 1, 1);
    expect(sr, 2, 0);   /* extent 84 > 20: a gap between instances */
    ref_arena_free(&a);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "is_contig's claim holds on random types", test_random_types },
        { "is_contig: one block at a displacement, resized, negative lb, overlap",
          test_edges },
        { "is_contig: one-row subarray, one-block struct", test_subarray_struct },
        { NULL, NULL },
    };

    return loom_test_run_suite("datatype: contiguity (review of session 13)", cases, NULL,
                               NULL);
}
