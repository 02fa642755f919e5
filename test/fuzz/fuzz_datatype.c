/*
 * fuzz_datatype.c: libFuzzer target for the derived-datatype engine
 * (datatype/): the input bytes drive the random-type generator of the
 * tests' reference model (test/datatype/dt_ref.h), which builds a nested
 * type with the engine and describes it independently.
 *
 * Input: byte 0 = nesting depth (mod 5), then the generator's choices
 * (counts, block lengths, displacements, constructors), then the count
 * (1..4), then piece lengths for a cursor pack, an unpack and an iovec
 * walk. Checked beyond "no crash" (abort on a mismatch): construction
 * never fails on the generator's valid arguments; size and bounds equal
 * the model's; the whole pack and the pack in pieces equal the model's
 * stream; the unpack in pieces writes what the model writes and nothing
 * else; the iovec pieces are the model's merged blocks; get_elements
 * agrees at a fuzzed byte count.
 */
#include "../datatype/dt_ref.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#include <stdio.h>

#define check(cond) check_at((cond), __LINE__)

static void check_at(int cond, int line)
{
    if (!cond) {
        fprintf(stderr, "fuzz_datatype: check at line %d failed\n", line);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("LOOM_LOG", "error", 1);
    return 0;
}

static size_t piece(ref_rng_t *g)
{
    return (size_t)ref_rnd(g, 97) + 1;
}

static void check_stream(const ref_t *r, size_t count, const ref_list_t *l, ref_rng_t *g,
                         ptrdiff_t lo, ptrdiff_t hi)
{
    size_t total = count * r->size, span = (size_t)(hi - lo), pos = 0, n;
    char *mem = malloc(span + 1), *mem2 = malloc(span + 1), *want = malloc(total + 1);
    char *got = malloc(total + 1), *base = mem - lo, *base2 = mem2 - lo;
    loom_dt_cursor_t cur;

    for (size_t i = 0; i < span; ++i) {
        mem[i] = (char)(i * 131 + 7);
    }
    ref_pack(l, base, want);
    check(loom_dt_cursor_init(&cur, base, count, r->dt) == LOOM_OK);
    do {
        check(loom_dt_cursor_pack(&cur, got + pos, piece(g), &n) == LOOM_OK);
        pos += n;
    } while (n > 0);
    check(pos == total && memcmp(got, want, total) == 0);
    /* unpack the stream in pieces over a copy: the model's result is mem */
    memcpy(mem2, mem, span);
    for (size_t i = 0; i < l->n; ++i) {
        memset(base2 + l->e[i].off, 0, l->e[i].len);
    }
    loom_dt_cursor_fini(&cur);
    check(loom_dt_cursor_init(&cur, base2, count, r->dt) == LOOM_OK);
    for (pos = 0; pos < total; pos += n) {
        n = piece(g);
        n = n < total - pos ? n : total - pos;
        check(loom_dt_cursor_unpack(&cur, want + pos, n) == LOOM_OK);
    }
    ref_unpack(l, base, want); /* overlapping types: the last write wins in both */
    check(memcmp(mem, mem2, span) == 0);
    loom_dt_cursor_fini(&cur);
    free(mem), free(mem2), free(want), free(got);
}

static void check_iov(const ref_t *r, size_t count, const ref_list_t *l, ref_rng_t *g)
{
    ptrdiff_t *off = malloc(sizeof(*off) * (l->n + 1));
    size_t *len = malloc(sizeof(*len) * (l->n + 1));
    size_t nref = ref_merge(l, off, len), m = 0, pos = 0, total = count * r->size;
    static char base[1];
    struct iovec iov[4];

    while (pos < total) {
        size_t n = 0, bytes = 0, maxi = (size_t)ref_rnd(g, 4) + 1;

        check(loom_dt_iov(base, count, r->dt, pos, piece(g), iov, maxi, &n, &bytes) == LOOM_OK);
        check(bytes > 0 && n <= maxi);
        for (size_t i = 0; i < n; ++i) {
            ptrdiff_t o = (char *)iov[i].iov_base - base;

            /* a piece continues the model's block m or starts block m + 1 */
            if (m < nref && o == off[m] && iov[i].iov_len <= len[m]) {
                off[m] += (ptrdiff_t)iov[i].iov_len;
                len[m] -= iov[i].iov_len;
            } else {
                check(0);
            }
            if (len[m] == 0) {
                ++m;
            }
        }
        pos += bytes;
    }
    check(m == nref);
    free(off), free(len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ref_rng_t g = { .data = data, .len = size, .pos = 1 };
    ref_arena_t a = { 0 };
    ref_list_t l = { 0 };
    ref_t *r;
    size_t count;
    ptrdiff_t lo, hi, lb, ext;
    int64_t e;

    if (size < 2) {
        return 0;
    }
    r = ref_gen(&g, &a, data[0] % 5);
    check(a.failures == 0);
    count = (size_t)ref_rnd(&g, 4) + 1;
    loom_dt_get_extent(r->dt, &lb, &ext);
    check(loom_dt_size(r->dt) == r->size && lb == r->lb && ext == r->ub - r->lb);
    if (r->size * count <= 65536 && loom_dt_commit(r->dt) == LOOM_OK) {
        ref_flatten(r, count, &l);
        ref_span(&l, &lo, &hi);
        if (hi - lo <= (1 << 20)) {
            check_stream(r, count, &l, &g, lo, hi);
            check_iov(r, count, &l, &g);
            e = -1;
            size_t nb = (size_t)ref_rnd(&g, (int)(count * r->size) + 1);
            check(loom_dt_get_elements(r->dt, nb, &e) == LOOM_OK && e == ref_elements(&l, nb));
        }
    }
    free(l.e);
    ref_arena_free(&a);
    return 0;
}
