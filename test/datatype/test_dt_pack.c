/*
 * test_dt_pack.c: the datatype engine's data movement against the
 * reference model (dt_ref.h), on a few hundred random nested types
 * (vectors of structs of indexed of subarrays ..., fixed seed) built by
 * the engine and by the model alongside:
 *   - size, lb/extent, true lb/extent, element count equal the model's;
 *   - a whole pack equals the model's stream (the bytes of its flattened
 *     element list), and so does a pack in random pieces through a cursor;
 *   - for small types, pack [0,k) then [k,end) equals the whole for every k;
 *   - an unpack in random pieces writes exactly what the model writes (and
 *     nothing else: the rest of the buffer keeps its pattern);
 *   - the iovec pieces, across calls with tiny iovec arrays and byte
 *     limits, are the model's blocks after merging adjacent ones;
 *   - get_elements of partial byte counts equals the model's count, with
 *     LOOM_UNDEFINED inside an element;
 *   - external32 is the model's elements each byte-reversed, and unpacks
 *     back to the original values.
 */
#include "../common/cunit_main.h"
#include "dt_ref.h"

#include <stdio.h>

#define NTYPES 800

static ref_rng_t rng = { .s = 0x9e3779b97f4a7c15ull };

static void fill_random(char *p, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        p[i] = (char)ref_rnd(&rng, 256);
    }
}

typedef struct mem {
    char  *raw, *base;
    size_t len;
} mem_t;

/* a buffer covering [lo, hi) with 32 guard bytes each side, base at 0 */
static mem_t mem_new(ptrdiff_t lo, ptrdiff_t hi, int pattern)
{
    mem_t m;

    m.len = (size_t)(hi - lo) + 64;
    m.raw = malloc(m.len);
    if (pattern < 0) {
        fill_random(m.raw, m.len);
    } else {
        memset(m.raw, pattern, m.len);
    }
    m.base = m.raw + 32 - lo;
    return m;
}

static void check_bounds(const ref_t *r)
{
    ptrdiff_t lb, ext, tlb, text;

    loom_dt_get_extent(r->dt, &lb, &ext);
    loom_dt_get_true_extent(r->dt, &tlb, &text);
    CU_ASSERT_EQUAL(loom_dt_size(r->dt), r->size);
    CU_ASSERT_EQUAL(loom_dt_num_elements(r->dt), r->nelems);
    CU_ASSERT_EQUAL(lb, r->lb);
    CU_ASSERT_EQUAL(ext, r->ub - r->lb);
    if (r->size > 0) {
        CU_ASSERT_EQUAL(tlb, r->tlb);
        CU_ASSERT_EQUAL(text, r->tub - r->tlb);
    }
}

static void check_pack(const ref_t *r, size_t count, const mem_t *m, const char *want,
                       size_t total)
{
    char *got = malloc(total + 1);
    loom_dt_cursor_t cur;
    size_t pos = 0, n;

    CU_ASSERT_EQUAL_FATAL(loom_dt_pack_range(m->base, count, r->dt, 0, total, got), LOOM_OK);
    CU_ASSERT(memcmp(got, want, total) == 0);
    /* random pieces through a cursor */
    memset(got, 0, total + 1);
    CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_init(&cur, m->base, count, r->dt), LOOM_OK);
    do {
        CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_pack(&cur, got + pos,
                                                  (size_t)ref_rnd(&rng, 40) + 1, &n), LOOM_OK);
        pos += n;
    } while (n > 0);
    CU_ASSERT_EQUAL(pos, total);
    CU_ASSERT(memcmp(got, want, total) == 0);
    loom_dt_cursor_fini(&cur);
    /* every split point (small types) or a few */
    for (size_t t = 0; t < (total <= 200 ? total + 1 : 8); ++t) {
        size_t k = total <= 200 ? t : (size_t)ref_rnd(&rng, (int)total + 1);

        memset(got, 0, total);
        CU_ASSERT_EQUAL(loom_dt_pack_range(m->base, count, r->dt, 0, k, got), LOOM_OK);
        CU_ASSERT_EQUAL(loom_dt_pack_range(m->base, count, r->dt, k, total - k, got + k),
                        LOOM_OK);
        CU_ASSERT(memcmp(got, want, total) == 0);
    }
    free(got);
}

static void check_unpack(const ref_t *r, size_t count, const ref_list_t *l, ptrdiff_t lo,
                         ptrdiff_t hi, size_t total)
{
    mem_t a = mem_new(lo, hi, 0xa5), b = mem_new(lo, hi, 0xa5);
    char *stream = malloc(total + 1);
    loom_dt_cursor_t cur;
    size_t pos = 0;

    fill_random(stream, total);
    ref_unpack(l, b.base, stream);
    CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_init(&cur, a.base, count, r->dt), LOOM_OK);
    while (pos < total) {
        size_t n = (size_t)ref_rnd(&rng, 30) + 1;

        n = n < total - pos ? n : total - pos;
        CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_unpack(&cur, stream + pos, n), LOOM_OK);
        pos += n;
    }
    CU_ASSERT_EQUAL(loom_dt_cursor_unpack(&cur, stream, 1), LOOM_ERR_TRUNCATED);
    loom_dt_cursor_fini(&cur);
    CU_ASSERT(memcmp(a.raw, b.raw, a.len) == 0);
    /* two ranges in order, split anywhere (inside an instance too: a bounce's chunks) */
    for (int t = 0; t < 4; ++t) {
        size_t k = (size_t)ref_rnd(&rng, (int)total + 1);

        memset(a.raw, 0xa5, a.len);
        CU_ASSERT_EQUAL(loom_dt_unpack_range(a.base, count, r->dt, 0, k, stream), LOOM_OK);
        CU_ASSERT_EQUAL(loom_dt_unpack_range(a.base, count, r->dt, k, total - k, stream + k),
                        LOOM_OK);
        CU_ASSERT(memcmp(a.raw, b.raw, a.len) == 0);
    }
    free(a.raw);
    free(b.raw);
    free(stream);
}

static void check_iov(const ref_t *r, size_t count, const ref_list_t *l, const mem_t *m,
                      size_t total)
{
    ptrdiff_t *off = malloc(sizeof(*off) * (l->n + 1)), *goff = malloc(sizeof(*goff) * (l->n + 1));
    size_t *len = malloc(sizeof(*len) * (l->n + 1)), *glen = malloc(sizeof(*glen) * (l->n + 1));
    size_t nref = ref_merge(l, off, len), ngot = 0, pos = 0, guard = 0;
    loom_dt_cursor_t cur;

    CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_init(&cur, m->base, count, r->dt), LOOM_OK);
    while (pos < total && guard++ < 10 * total + 10) {
        struct iovec iov[3];
        size_t n, bytes, sum = 0, maxi = (size_t)ref_rnd(&rng, 3) + 1;

        CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_iov(&cur, (size_t)ref_rnd(&rng, 64) + 1, iov, maxi,
                                                 &n, &bytes), LOOM_OK);
        CU_ASSERT(n <= maxi);
        for (size_t i = 0; i < n; ++i) {
            ptrdiff_t o = (char *)iov[i].iov_base - m->base;

            sum += iov[i].iov_len;
            CU_ASSERT_FATAL(ngot <= l->n);
            if (ngot > 0 && goff[ngot - 1] + (ptrdiff_t)glen[ngot - 1] == o) {
                glen[ngot - 1] += iov[i].iov_len;
            } else {
                goff[ngot] = o;
                glen[ngot++] = iov[i].iov_len;
            }
        }
        CU_ASSERT_EQUAL(sum, bytes);
        pos += bytes;
    }
    loom_dt_cursor_fini(&cur);
    CU_ASSERT_EQUAL(pos, total);
    CU_ASSERT_EQUAL_FATAL(ngot, nref);
    for (size_t i = 0; i < nref; ++i) {
        CU_ASSERT_EQUAL(goff[i], off[i]);
        CU_ASSERT_EQUAL(glen[i], len[i]);
    }
    free(off), free(len), free(goff), free(glen);
}

static void check_elements(const ref_t *r, const ref_list_t *l, size_t total)
{
    for (int t = 0; t < 6; ++t) {
        size_t nb = t == 0 ? total : (size_t)ref_rnd(&rng, (int)total + 1);
        int64_t e = -5;

        CU_ASSERT_EQUAL(loom_dt_get_elements(r->dt, nb, &e), LOOM_OK);
        CU_ASSERT_EQUAL(e, ref_elements(l, nb));
    }
}

/* external32 of the model: each element big-endian (complex: per part) */
static void ref_x32(const ref_list_t *l, const char *base, char *out)
{
    for (size_t i = 0; i < l->n; ++i) {
        size_t len = l->e[i].len, part = len;

        if (l->e[i].basic == LOOM_FLOAT_COMPLEX || l->e[i].basic == LOOM_DOUBLE_COMPLEX) {
            part = len / 2;
        }
        for (size_t p = 0; p < len; p += part) {
            for (size_t j = 0; j < part; ++j) {
                out[p + j] = base[l->e[i].off + (ptrdiff_t)(p + part - 1 - j)];
            }
        }
        out += len;
    }
}

static void check_external32(const ref_t *r, size_t count, const ref_list_t *l,
                             const mem_t *m, ptrdiff_t lo, ptrdiff_t hi, size_t total)
{
    char *want = malloc(total + 1), *got = malloc(total + 1);
    mem_t a = mem_new(lo, hi, 0x5a), b = mem_new(lo, hi, 0x5a);
    size_t sz = 0, pos = 0;

    CU_ASSERT_EQUAL(loom_dt_external32_size(count, r->dt, &sz), LOOM_OK);
    CU_ASSERT_EQUAL(sz, total);
    ref_x32(l, m->base, want);
    CU_ASSERT_EQUAL_FATAL(loom_dt_pack_external32(m->base, count, r->dt, got, total, &pos),
                          LOOM_OK);
    CU_ASSERT_EQUAL(pos, total);
    CU_ASSERT(memcmp(got, want, total) == 0);
    /* back: the model writes the native stream, the engine converts */
    ref_pack(l, m->base, want);
    ref_unpack(l, b.base, want);
    pos = 0;
    CU_ASSERT_EQUAL(loom_dt_unpack_external32(got, total, &pos, a.base, count, r->dt), LOOM_OK);
    CU_ASSERT_EQUAL(pos, total);
    CU_ASSERT(memcmp(a.raw, b.raw, a.len) == 0);
    free(want), free(got), free(a.raw), free(b.raw);
}

static void check_one(const ref_t *r, size_t count)
{
    ref_list_t l = { 0 };
    ptrdiff_t lo, hi;
    size_t total = count * r->size;
    mem_t m;
    char *want;

    check_bounds(r);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(r->dt), LOOM_OK);
    ref_flatten(r, count, &l);
    ref_span(&l, &lo, &hi);
    m = mem_new(lo, hi, -1);
    want = malloc(total + 1);
    ref_pack(&l, m.base, want);
    check_pack(r, count, &m, want, total);
    check_unpack(r, count, &l, lo, hi, total);
    check_iov(r, count, &l, &m, total);
    check_elements(r, &l, total);
    check_external32(r, count, &l, &m, lo, hi, total);
    free(want);
    free(m.raw);
    free(l.e);
}

static void test_random_types(void)
{
    int done = 0, empty = 0;
    size_t bytes = 0, largest = 0;

    for (int i = 0; i < NTYPES; ++i) {
        ref_arena_t a = { 0 };
        ref_t *r = ref_gen(&rng, &a, 1 + i % 4);

        CU_ASSERT_EQUAL(a.failures, 0);
        if (a.failures == 0 && r->size <= 32768) {
            size_t count = (size_t)ref_rnd(&rng, 3) + 1;

            check_one(r, count);
            ++done;
            empty += r->size == 0;
            bytes += count * r->size;
            largest = count * r->size > largest ? count * r->size : largest;
        }
        ref_arena_free(&a);
    }
    CU_ASSERT(done > NTYPES / 2);
    CU_ASSERT(empty < done / 4);
    printf("\n  %d random types checked (%d empty), %zu stream bytes, largest %zu\n", done,
           empty, bytes, largest);
}

/* the basic types alone, counts 0..3 */
static void test_basic_types(void)
{
    for (size_t i = 0; i < sizeof(ref_basics) / sizeof(ref_basics[0]); ++i) {
        for (size_t count = 0; count < 4; ++count) {
            check_one(ref_basic(ref_basics[i]), count);
        }
    }
}

/* the cursor contract: seek back re-packs the same bytes, pieces alternate */
static void test_cursor_seek(void)
{
    int32_t src[64], dst[64] = { 0 };
    char a[96], b[96];
    loom_dt_t *v = NULL;
    loom_dt_cursor_t cur, out;
    size_t n = 0, n2 = 0;

    for (int i = 0; i < 64; ++i) {
        src[i] = i * 0x01010101;
    }
    CU_ASSERT_EQUAL_FATAL(loom_dt_create_vector(8, 3, 8, loom_dt_basic(LOOM_INT32), &v), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(v), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_init(&cur, src, 1, v), LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_cursor_init(&out, dst, 1, v), LOOM_OK);
    loom_dt_release(v); /* the cursors hold their own references */
    CU_ASSERT_EQUAL(loom_dt_cursor_pack(&cur, a, 37, &n), LOOM_OK);
    CU_ASSERT_EQUAL(n, 37);
    CU_ASSERT_EQUAL(loom_dt_cursor_seek(&cur, 5), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_cursor_pack(&cur, b + 5, 32, &n2), LOOM_OK);
    CU_ASSERT(memcmp(a + 5, b + 5, 32) == 0);
    CU_ASSERT_EQUAL(loom_dt_cursor_pack(&cur, a + 37, 96, &n), LOOM_OK);
    CU_ASSERT_EQUAL(n, 96 - 37);
    CU_ASSERT_EQUAL(loom_dt_cursor_pack(&cur, a, 96, &n), LOOM_OK);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(loom_dt_cursor_seek(&cur, 97), LOOM_ERR_TRUNCATED);
    CU_ASSERT_EQUAL(loom_dt_cursor_unpack(&out, a, 50), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_cursor_unpack(&out, a + 50, 46), LOOM_OK);
    for (int i = 0; i < 64; ++i) {
        CU_ASSERT_EQUAL(dst[i], i % 8 < 3 ? src[i] : 0);
    }
    loom_dt_cursor_fini(&cur);
    loom_dt_cursor_fini(&out);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "basic types vs the model", test_basic_types },
        { "random nested types vs the model", test_random_types },
        { "cursor: seek back, alternate, end", test_cursor_seek },
        { NULL, NULL },
    };
    return loom_test_run_suite("datatype pack", cases, NULL, NULL);
}
