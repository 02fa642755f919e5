/*
 * dt_ref.h: an independent model of MPI derived types for the datatype
 * tests and the fuzz target. Every type is described here the way the
 * standard defines it (a list of blocks, each "bl instances of a kid at a
 * byte displacement, one kid extent apart"; subarray and darray by
 * enumerating the array's elements and testing ownership index by index),
 * and alongside the test builds the same type with the engine (ref->dt).
 *
 * ref_flatten lists every basic element of (count, type) as an (offset,
 * length, basic type) entry, in type-map order, with no merging: the
 * packed stream is those bytes in that order. Bounds are computed by
 * visiting every instance (no span arithmetic), with the explicit markers
 * of resized types and the struct alignment rule. Nothing here calls the
 * engine but to build ref->dt, so an engine bug cannot hide in both.
 */
#ifndef LOOM_TEST_DT_REF_H
#define LOOM_TEST_DT_REF_H

#include "dt_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct ref ref_t;
struct ref {
    int        basic;      /* >= 0: a plain basic element */
    size_t     n;          /* blocks */
    int64_t   *bl;
    ptrdiff_t *disp;
    ref_t    **kid;
    bool       is_struct;  /* struct rounding of the extent */
    bool       resized;    /* explicit bounds rlb, rlb + rext */
    ptrdiff_t  rlb, rext;
    /* computed by ref_finish */
    ptrdiff_t  lb, ub, tlb, tub;
    bool       lbm, ubm, any;
    size_t     size, align, nelems;
    loom_dt_t *dt;         /* the engine's type (one reference) */
};

typedef struct ref_ent {
    ptrdiff_t off;
    size_t    len;
    int       basic;
} ref_ent_t;

typedef struct ref_list {
    ref_ent_t *e;
    size_t     n, cap;
} ref_list_t;

static inline size_t ref_basic_size(int b)
{
    static const size_t s[] = { [LOOM_BYTE] = 1, [LOOM_INT8] = 1, [LOOM_INT16] = 2,
        [LOOM_INT32] = 4, [LOOM_INT64] = 8, [LOOM_UINT8] = 1, [LOOM_UINT16] = 2,
        [LOOM_UINT32] = 4, [LOOM_UINT64] = 8, [LOOM_FLOAT] = 4, [LOOM_DOUBLE] = 8,
        [LOOM_LONG_DOUBLE] = 16, [LOOM_FLOAT_COMPLEX] = 8, [LOOM_DOUBLE_COMPLEX] = 16,
        [LOOM_LONG_DOUBLE_COMPLEX] = 32, [LOOM_BOOL] = 1 };
    return s[b];
}

static inline size_t ref_basic_align(int b)
{
    switch (b) {
    case LOOM_FLOAT_COMPLEX: return 4;
    case LOOM_DOUBLE_COMPLEX: return 8;
    case LOOM_LONG_DOUBLE_COMPLEX: return 16;
    default: return ref_basic_size(b);
    }
}

static inline ref_t *ref_new(size_t n)
{
    ref_t *r = calloc(1, sizeof(*r));

    r->basic = -1;
    r->n = n;
    r->bl = calloc(n + 1, sizeof(*r->bl));
    r->disp = calloc(n + 1, sizeof(*r->disp));
    r->kid = calloc(n + 1, sizeof(*r->kid));
    return r;
}

static inline void ref_free(ref_t *r)
{
    if (r == NULL) {
        return;
    }
    loom_dt_release(r->dt);
    free(r->bl);
    free(r->disp);
    free(r->kid);
    free(r);
}

static inline ptrdiff_t ref_ext(const ref_t *r)
{
    return r->ub - r->lb;
}

/* bounds, size, alignment from the blocks (kids finished), visiting every instance */
static inline void ref_finish(ref_t *r)
{
    ptrdiff_t lb = 0, ub = 0, tlb = 0, tub = 0, mlb = 0, mub = 0;
    bool any = false, tany = false, lbm = false, ubm = false;

    r->align = 1;
    r->size = r->nelems = 0;
    for (size_t k = 0; k < r->n; ++k) {
        ref_t *c = r->kid[k];

        r->align = c->align > r->align ? c->align : r->align;
        r->size += (size_t)r->bl[k] * c->size;
        r->nelems += (size_t)r->bl[k] * c->nelems;
        /* an empty type map (no data, no markers) has no part in bounds */
        for (int64_t j = 0; j < r->bl[k] && (c->size > 0 || c->lbm || c->ubm); ++j) {
            ptrdiff_t d = r->disp[k] + (ptrdiff_t)j * ref_ext(c);
            ptrdiff_t a = d + c->lb, b = d + c->ub, ta = d + c->tlb, tb = d + c->tub;

            if (!any) {
                lb = a, ub = b, any = true;
            }
            lb = a < lb ? a : lb;
            ub = b > ub ? b : ub;
            if (c->size > 0) { /* true bounds: data only */
                if (!tany) {
                    tlb = ta, tub = tb, tany = true;
                }
                tlb = ta < tlb ? ta : tlb;
                tub = tb > tub ? tb : tub;
            }
            if (c->lbm) {
                mlb = !lbm || a < mlb ? a : mlb;
                lbm = true;
            }
            if (c->ubm) {
                mub = !ubm || b > mub ? b : mub;
                ubm = true;
            }
        }
    }
    r->any = any;
    r->lb = lbm ? mlb : lb;
    r->ub = ubm ? mub : ub;
    r->tlb = tlb;
    r->tub = tub;
    r->lbm = lbm;
    r->ubm = ubm;
    if (r->is_struct && !ubm) {
        while ((r->ub - r->lb) % (ptrdiff_t)r->align != 0) {
            r->ub++;
        }
    }
    if (r->resized) {
        r->lb = r->rlb;
        r->ub = r->rlb + r->rext;
        r->lbm = r->ubm = true;
    }
}

static inline ref_t *ref_basic(int b);

/* the MINLOC pairs: a struct of the value and an int */
static inline ref_t *ref_pair(int b, int vt, ptrdiff_t ioff)
{
    ref_t *r = ref_new(2);

    r->bl[0] = r->bl[1] = 1;
    r->disp[1] = ioff;
    r->kid[0] = ref_basic(vt);
    r->kid[1] = ref_basic(LOOM_INT32);
    r->is_struct = true;
    ref_finish(r);
    r->dt = loom_dt_basic(b);
    return r;
}

/* predefined refs are shared and never freed (static table) */
static inline ref_t *ref_basic(int b)
{
    static ref_t *tab[LOOM_DATATYPE_COUNT];

    if (tab[b] != NULL) {
        return tab[b];
    }
    switch (b) {
    case LOOM_FLOAT_INT: return tab[b] = ref_pair(b, LOOM_FLOAT, 4);
    case LOOM_DOUBLE_INT: return tab[b] = ref_pair(b, LOOM_DOUBLE, 8);
    case LOOM_LONG_INT: return tab[b] = ref_pair(b, LOOM_INT64, 8);
    case LOOM_2INT: return tab[b] = ref_pair(b, LOOM_INT32, 4);
    case LOOM_SHORT_INT: return tab[b] = ref_pair(b, LOOM_INT16, 4);
    case LOOM_LONG_DOUBLE_INT: return tab[b] = ref_pair(b, LOOM_LONG_DOUBLE, 16);
    default: break;
    }
    tab[b] = ref_new(0);
    tab[b]->basic = b;
    tab[b]->size = ref_basic_size(b);
    tab[b]->ub = tab[b]->tub = (ptrdiff_t)tab[b]->size;
    tab[b]->align = ref_basic_align(b);
    tab[b]->nelems = 1;
    tab[b]->any = true;
    tab[b]->dt = loom_dt_basic(b);
    return tab[b];
}

static inline void ref_push(ref_list_t *l, ptrdiff_t off, size_t len, int basic)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->e = realloc(l->e, l->cap * sizeof(*l->e));
    }
    l->e[l->n++] = (ref_ent_t){ off, len, basic };
}

/* every basic element of one instance at byte d, in type-map order */
static inline void ref_flatten1(const ref_t *r, ptrdiff_t d, ref_list_t *l)
{
    if (r->basic >= 0) {
        ref_push(l, d, r->size, r->basic);
        return;
    }
    for (size_t k = 0; k < r->n; ++k) {
        for (int64_t j = 0; j < r->bl[k]; ++j) {
            ref_flatten1(r->kid[k], d + r->disp[k] + (ptrdiff_t)j * ref_ext(r->kid[k]), l);
        }
    }
}

static inline void ref_flatten(const ref_t *r, size_t count, ref_list_t *l)
{
    l->n = 0;
    for (size_t i = 0; i < count; ++i) {
        ref_flatten1(r, (ptrdiff_t)i * ref_ext(r), l);
    }
}

/* the blocks merged where one ends where the next begins (no empty ones) */
static inline size_t ref_merge(const ref_list_t *l, ptrdiff_t *off, size_t *len)
{
    size_t m = 0;

    for (size_t i = 0; i < l->n; ++i) {
        if (m > 0 && off[m - 1] + (ptrdiff_t)len[m - 1] == l->e[i].off) {
            len[m - 1] += l->e[i].len;
        } else {
            off[m] = l->e[i].off;
            len[m++] = l->e[i].len;
        }
    }
    return m;
}

/* pack: the stream of the entries' bytes (base + off) */
static inline void ref_pack(const ref_list_t *l, const char *base, char *out)
{
    for (size_t i = 0; i < l->n; ++i) {
        memcpy(out, base + l->e[i].off, l->e[i].len);
        out += l->e[i].len;
    }
}

static inline void ref_unpack(const ref_list_t *l, char *base, const char *in)
{
    for (size_t i = 0; i < l->n; ++i) {
        memcpy(base + l->e[i].off, in, l->e[i].len);
        in += l->e[i].len;
    }
}

/* elements in the first nb bytes; LOOM_UNDEFINED inside one */
static inline int64_t ref_elements(const ref_list_t *l, size_t nb)
{
    int64_t e = 0;

    for (size_t i = 0; i < l->n && nb > 0; ++i) {
        if (nb < l->e[i].len) {
            return LOOM_UNDEFINED;
        }
        nb -= l->e[i].len;
        ++e;
    }
    return e;
}

/* span of the entries: [*lo, *hi) */
static inline void ref_span(const ref_list_t *l, ptrdiff_t *lo, ptrdiff_t *hi)
{
    *lo = 0, *hi = 0;
    for (size_t i = 0; i < l->n; ++i) {
        *lo = l->e[i].off < *lo ? l->e[i].off : *lo;
        *hi = l->e[i].off + (ptrdiff_t)l->e[i].len > *hi ? l->e[i].off + (ptrdiff_t)l->e[i].len
                                                         : *hi;
    }
}

/* ---- random nested types: a ref and the engine's type built alongside ---- */

typedef struct ref_rng {
    uint64_t s;
    const uint8_t *data; /* the fuzzer's bytes, if any: used before s */
    size_t len, pos;
} ref_rng_t;

static inline int ref_rnd(ref_rng_t *g, int n)
{
    uint64_t v;

    if (g->data != NULL) {
        v = g->pos < g->len ? g->data[g->pos++] : 0;
    } else {
        g->s ^= g->s << 13;
        g->s ^= g->s >> 7;
        g->s ^= g->s << 17;
        v = g->s >> 11;
    }
    return n <= 0 ? 0 : (int)(v % (uint64_t)n);
}

static inline int ref_rnd_range(ref_rng_t *g, int lo, int hi)
{
    return lo + ref_rnd(g, hi - lo + 1);
}

/* a count or block length: 0 now and then, mostly 1..3 */
static inline int64_t ref_count(ref_rng_t *g)
{
    return ref_rnd(g, 8) == 0 ? 0 : ref_rnd_range(g, 1, 3);
}

static const int ref_basics[] = { LOOM_BYTE, LOOM_INT8, LOOM_INT16, LOOM_INT32, LOOM_INT64,
    LOOM_FLOAT, LOOM_DOUBLE, LOOM_FLOAT_INT, LOOM_DOUBLE_INT, LOOM_SHORT_INT, LOOM_2INT,
    LOOM_FLOAT_COMPLEX, LOOM_DOUBLE_COMPLEX, LOOM_BOOL, LOOM_UINT16 };

/* a ref of n blocks of one kid, displacements in bytes */
static inline ref_t *ref_blocks(ref_t *kid, size_t n, const int64_t *bl, const ptrdiff_t *d,
                                bool is_struct)
{
    ref_t *r = ref_new(n);

    for (size_t k = 0; k < n; ++k) {
        r->bl[k] = bl[k];
        r->disp[k] = d[k];
        r->kid[k] = kid;
    }
    r->is_struct = is_struct;
    ref_finish(r);
    /* the kid's alignment counts even when no block holds one */
    r->align = kid->align > r->align ? kid->align : r->align;
    return r;
}

/* the elements of an array of dims sizes (order) whose index passes own() */
typedef bool (*ref_own_fn)(void *ctx, int dim, int64_t idx);

static inline ref_t *ref_array(ref_t *kid, int nd, const int64_t *sizes, int order,
                               ref_own_fn own, void *ctx)
{
    int64_t idx[8] = { 0 }, total = 1, lin, mul;
    size_t n = 0;
    ref_t *r;

    for (int i = 0; i < nd; ++i) {
        total *= sizes[i];
    }
    r = ref_new((size_t)total);
    for (int64_t e = 0; e < total; ++e) {
        bool in = true;

        /* e in array order: the fastest dimension varies fastest */
        lin = e;
        for (int f = 0; f < nd; ++f) {
            int d = order == LOOM_DT_ORDER_C ? nd - 1 - f : f;

            idx[d] = lin % sizes[d];
            lin /= sizes[d];
        }
        for (int d = 0; d < nd; ++d) {
            in = in && own(ctx, d, idx[d]);
        }
        if (!in) {
            continue;
        }
        lin = 0, mul = 1;
        for (int f = 0; f < nd; ++f) {
            int d = order == LOOM_DT_ORDER_C ? nd - 1 - f : f;

            lin += idx[d] * mul;
            mul *= sizes[d];
        }
        r->bl[n] = 1;
        r->disp[n] = (ptrdiff_t)lin * ref_ext(kid);
        r->kid[n++] = kid;
    }
    r->n = n;
    r->resized = true;
    r->rlb = 0;
    r->rext = (ptrdiff_t)total * ref_ext(kid);
    ref_finish(r);
    r->align = kid->align > r->align ? kid->align : r->align;
    return r;
}

typedef struct ref_sub {
    const int64_t *sub, *start;
} ref_sub_t;

static inline bool ref_sub_own(void *ctx, int d, int64_t i)
{
    ref_sub_t *s = ctx;

    return i >= s->start[d] && i < s->start[d] + s->sub[d];
}

typedef struct ref_dar {
    const int *distrib, *psize;
    const int64_t *darg, *gsize;
    int coord[8];
} ref_dar_t;

static inline bool ref_dar_own(void *ctx, int d, int64_t i)
{
    ref_dar_t *s = ctx;
    int64_t b;

    switch (s->distrib[d]) {
    case LOOM_DT_DISTRIBUTE_BLOCK:
        b = s->darg[d] == LOOM_DT_DISTRIBUTE_DFLT_DARG
                ? (s->gsize[d] + s->psize[d] - 1) / s->psize[d] : s->darg[d];
        return i / b == s->coord[d];
    case LOOM_DT_DISTRIBUTE_CYCLIC:
        b = s->darg[d] == LOOM_DT_DISTRIBUTE_DFLT_DARG ? 1 : s->darg[d];
        return (i / b) % s->psize[d] == s->coord[d];
    default:
        return true;
    }
}


/* every ref a generator made, freed together */
typedef struct ref_arena {
    ref_t **v;
    size_t  n, cap;
    int     failures;  /* engine constructor calls that failed */
} ref_arena_t;

static inline ref_t *ref_keep(ref_arena_t *a, ref_t *r, loom_status_t st, loom_dt_t *dt)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 32;
        a->v = realloc(a->v, a->cap * sizeof(*a->v));
    }
    a->v[a->n++] = r;
    r->dt = st == LOOM_OK ? dt : NULL;
    a->failures += st != LOOM_OK;
    return r;
}

static inline void ref_arena_free(ref_arena_t *a)
{
    for (size_t i = 0; i < a->n; ++i) {
        ref_free(a->v[i]);
    }
    free(a->v);
    *a = (ref_arena_t){ 0 };
}

static inline ref_t *ref_gen(ref_rng_t *g, ref_arena_t *a, int depth);

static inline ref_t *ref_gen_vector(ref_rng_t *g, ref_arena_t *a, ref_t *kid, int which)
{
    int64_t c = ref_count(g), bl = ref_count(g), bls[4];
    int64_t stride = ref_rnd_range(g, -3, 4);
    ptrdiff_t hs = ref_rnd_range(g, -40, 40), d[4];
    loom_dt_t *dt = NULL;
    loom_status_t st;

    for (int64_t k = 0; k < c; ++k) {
        bls[k] = bl;
        d[k] = which == 0 ? (ptrdiff_t)k * stride * ref_ext(kid) : (ptrdiff_t)k * hs;
    }
    st = which == 0 ? loom_dt_create_vector(c, bl, stride, kid->dt, &dt)
                    : loom_dt_create_hvector(c, bl, hs, kid->dt, &dt);
    return ref_keep(a, ref_blocks(kid, (size_t)c, bls, d, false), st, dt);
}

static inline ref_t *ref_gen_indexed(ref_rng_t *g, ref_arena_t *a, ref_t *kid, int which)
{
    int n = (int)ref_count(g), same = (int)ref_count(g);
    int64_t bl[4], id[4];
    ptrdiff_t d[4], hd[4];
    loom_dt_t *dt = NULL;
    loom_status_t st;

    for (int k = 0; k < n; ++k) {
        bl[k] = (which & 2) ? same : ref_count(g);
        id[k] = ref_rnd_range(g, -3, 5);
        hd[k] = ref_rnd_range(g, -24, 48);
        d[k] = (which & 1) ? hd[k] : (ptrdiff_t)id[k] * ref_ext(kid);
    }
    switch (which) {
    case 0: st = loom_dt_create_indexed(n, bl, id, kid->dt, &dt); break;
    case 1: st = loom_dt_create_hindexed(n, bl, hd, kid->dt, &dt); break;
    case 2: st = loom_dt_create_indexed_block(n, same, id, kid->dt, &dt); break;
    default: st = loom_dt_create_hindexed_block(n, same, hd, kid->dt, &dt); break;
    }
    return ref_keep(a, ref_blocks(kid, (size_t)n, bl, d, false), st, dt);
}

static inline ref_t *ref_gen_struct(ref_rng_t *g, ref_arena_t *a, int depth)
{
    int n = ref_rnd_range(g, 1, 3);
    int64_t bl[3];
    ptrdiff_t d[3];
    loom_dt_t *types[3], *dt = NULL;
    ref_t *r = ref_new((size_t)n);
    loom_status_t st;

    for (int k = 0; k < n; ++k) {
        r->kid[k] = ref_gen(g, a, depth - 1);
        r->bl[k] = bl[k] = ref_count(g);
        r->disp[k] = d[k] = ref_rnd_range(g, -16, 48);
        types[k] = r->kid[k]->dt;
        if (types[k] == NULL) {
            types[k] = loom_dt_basic(LOOM_BYTE);
        }
    }
    r->is_struct = true;
    ref_finish(r);
    st = loom_dt_create_struct(n, bl, d, types, &dt);
    return ref_keep(a, r, st, dt);
}

static inline ref_t *ref_gen_resized(ref_rng_t *g, ref_arena_t *a, ref_t *kid, bool dup)
{
    ref_t *r = ref_new(1);
    loom_dt_t *dt = NULL;
    loom_status_t st;

    r->bl[0] = 1;
    r->kid[0] = kid;
    if (!dup) {
        r->resized = true;
        r->rlb = ref_rnd_range(g, -16, 16);
        r->rext = ref_rnd_range(g, 0, 48);
    }
    ref_finish(r);
    st = dup ? loom_dt_create_dup(kid->dt, &dt)
             : loom_dt_create_resized(kid->dt, r->rlb, r->rext, &dt);
    return ref_keep(a, r, st, dt);
}

static inline ref_t *ref_gen_subarray(ref_rng_t *g, ref_arena_t *a, ref_t *kid)
{
    int nd = ref_rnd_range(g, 1, 3), order = ref_rnd(g, 2);
    int64_t sizes[3], sub[3], start[3];
    ref_sub_t s = { sub, start };
    loom_dt_t *dt = NULL;
    loom_status_t st;

    for (int i = 0; i < nd; ++i) {
        sizes[i] = ref_rnd_range(g, 1, 4);
        sub[i] = ref_rnd_range(g, 1, (int)sizes[i]);
        start[i] = ref_rnd_range(g, 0, (int)(sizes[i] - sub[i]));
    }
    st = loom_dt_create_subarray(nd, sizes, sub, start, order, kid->dt, &dt);
    return ref_keep(a, ref_array(kid, nd, sizes, order, ref_sub_own, &s), st, dt);
}

static inline ref_t *ref_gen_darray(ref_rng_t *g, ref_arena_t *a, ref_t *kid)
{
    int nd = ref_rnd_range(g, 1, 3), order = ref_rnd(g, 2), size = 1, rank, r;
    int distrib[3], psize[3];
    int64_t gsize[3], darg[3];
    ref_dar_t s = { distrib, psize, darg, gsize, { 0 } };
    loom_dt_t *dt = NULL;
    loom_status_t st;

    for (int i = 0; i < nd; ++i) {
        gsize[i] = ref_rnd_range(g, 1, 6);
        distrib[i] = ref_rnd(g, 3);
        psize[i] = distrib[i] == LOOM_DT_DISTRIBUTE_NONE ? 1 : ref_rnd_range(g, 1, 3);
        darg[i] = ref_rnd(g, 2) ? LOOM_DT_DISTRIBUTE_DFLT_DARG : ref_rnd_range(g, 1, 3);
        if (distrib[i] == LOOM_DT_DISTRIBUTE_BLOCK && darg[i] > 0 &&
            darg[i] * psize[i] < gsize[i]) {
            darg[i] = LOOM_DT_DISTRIBUTE_DFLT_DARG;
        }
        size *= psize[i];
    }
    rank = ref_rnd(g, size);
    r = rank;
    for (int i = nd - 1; i >= 0; --i) {
        s.coord[i] = r % psize[i];
        r /= psize[i];
    }
    st = loom_dt_create_darray(size, rank, nd, gsize, distrib, darg, psize, order, kid->dt,
                               &dt);
    return ref_keep(a, ref_array(kid, nd, gsize, order, ref_dar_own, &s), st, dt);
}

/* a random type of nesting depth <= depth (its dt NULL if the engine failed) */
static inline ref_t *ref_gen(ref_rng_t *g, ref_arena_t *a, int depth)
{
    ref_t *kid;
    int which;

    if (depth <= 0 || ref_rnd(g, 4) == 0) {
        return ref_basic(ref_basics[ref_rnd(g, (int)(sizeof(ref_basics) /
                                                     sizeof(ref_basics[0])))]);
    }
    which = ref_rnd(g, 12);
    if (which == 7) {
        return ref_gen_struct(g, a, depth);
    }
    kid = ref_gen(g, a, depth - 1);
    if (kid->dt == NULL) {
        return kid;
    }
    switch (which) {
    case 0: {
        int64_t c = ref_count(g);
        ptrdiff_t z = 0;
        loom_dt_t *dt = NULL;
        loom_status_t st = loom_dt_create_contiguous(c, kid->dt, &dt);

        return ref_keep(a, ref_blocks(kid, 1, &c, &z, false), st, dt);
    }
    case 1: case 2: return ref_gen_vector(g, a, kid, which - 1);
    case 3: case 4: case 5: case 6: return ref_gen_indexed(g, a, kid, which - 3);
    case 8: return ref_gen_resized(g, a, kid, false);
    case 9: return ref_gen_subarray(g, a, kid);
    case 10: return ref_gen_darray(g, a, kid);
    default: return ref_gen_resized(g, a, kid, true);
    }
}

#endif /* LOOM_TEST_DT_REF_H */
