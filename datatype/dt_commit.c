/*
 * dt_commit.c: loom_dt_commit builds the byte program (bnode) from the
 * typed tree: a new tree whose leaves are untyped byte runs, in which
 *   - a block of contiguous children becomes one run (blocklen x size);
 *   - a vector whose blocks touch (stride == block bytes), or has one
 *     block, becomes one run: "contiguous after all" (vector of
 *     contiguous = contiguous; a struct without holes = a run);
 *   - indexed and struct blocks of runs become a list of byte runs with
 *     zero-length blocks dropped and blocks adjacent in both memory and
 *     stream order merged; equal runs at a constant distance become a
 *     vector (an indexed_block of a regular pattern costs a vector);
 *   - blocks of non-contiguous children that touch merge, one-block
 *     wrappers (resized, dup, subarray shells) dissolve into their child
 *     with the wrapper's extent.
 * So a VEC whose child is a run is the walker's tight loop (dt_walk.c).
 * The program is built once and only read after: committed types may be
 * used by any number of threads.
 */
#include "dt_priv.h"

#include <stdlib.h>

typedef struct run {
    ptrdiff_t d;
    size_t    len;
} run_t;

static dt_node_t *leaf_new(size_t len, ptrdiff_t extent)
{
    dt_node_t *n = dt_node_new(DT_LEAF, 0);

    if (n != NULL) {
        n->size = len;
        n->extent = extent;
    }
    return n;
}

static bool is_run(const dt_node_t *n)
{
    return n->kind == DT_LEAF && n->extent == (ptrdiff_t)n->size;
}

static dt_node_t *vec_new(size_t count, size_t bl, ptrdiff_t stride, dt_node_t *c,
                          ptrdiff_t extent)
{
    dt_node_t *n = dt_node_new(DT_VEC, count);

    if (n == NULL) {
        dt_node_free_tree(c);
        return NULL;
    }
    n->blocklen = bl;
    n->stride = stride;
    n->child = c;
    n->size = count * bl * c->size;
    n->extent = extent;
    return n;
}

/* bl instances of c at 0 as a node of extent `extent` (c consumed) */
static dt_node_t *one_block(size_t bl, dt_node_t *c, ptrdiff_t extent)
{
    if (bl == 1) {
        c->extent = extent;
        return c;
    }
    if (is_run(c)) {
        c->size *= bl;
        c->extent = extent;
        return c;
    }
    return vec_new(bl, 1, c->extent, c, extent);
}

static dt_node_t *norm_vec(const dt_node_t *t, loom_status_t *st)
{
    dt_node_t *c = dt_normalize(t->child, st);
    size_t bs;

    if (c == NULL) {
        return NULL;
    }
    bs = t->blocklen * c->size;
    if (t->count == 0 || bs == 0) {
        dt_node_free_tree(c);
        return leaf_new(0, t->extent);
    }
    if (is_run(c)) {
        c->size = c->extent = (ptrdiff_t)bs;
        if (t->count == 1 || t->stride == (ptrdiff_t)bs) {
            c->size = t->count * bs;
            c->extent = t->extent;
            return c;
        }
        return vec_new(t->count, 1, t->stride, c, t->extent);
    }
    if (t->count == 1) {
        return one_block(t->blocklen, c, t->extent);
    }
    return vec_new(t->count, t->blocklen, t->stride, c, t->extent);
}

/* the runs as a node: a run, a vector of equal runs, or an IDX of bytes */
static dt_node_t *runs_node(run_t *r, size_t n, ptrdiff_t extent)
{
    dt_node_t *x, *byte;
    size_t k;

    if (n == 0) {
        return leaf_new(0, extent);
    }
    if (n == 1 && r[0].d == 0) {
        return leaf_new(r[0].len, extent);
    }
    for (k = 1; k < n && r[k].len == r[0].len && r[k].d - r[k - 1].d == r[1].d - r[0].d; ++k) {
    }
    if (n > 1 && k == n && r[0].d == 0) {
        byte = leaf_new(r[0].len, (ptrdiff_t)r[0].len);
        return byte == NULL ? NULL : vec_new(n, 1, r[1].d - r[0].d, byte, extent);
    }
    x = dt_node_new(DT_IDX, n);
    byte = leaf_new(1, 1);
    if (x == NULL || byte == NULL) {
        dt_node_free(x);
        dt_node_free(byte);
        return NULL;
    }
    x->child = byte;
    for (k = 0; k < n; ++k) {
        x->blens[k] = r[k].len;
        x->displs[k] = r[k].d;
    }
    (void)dt_node_finish_idx(x);
    x->extent = extent;
    return x;
}

/* block k's child in the typed tree */
static const dt_node_t *kid_of(const dt_node_t *t, size_t k)
{
    return t->kind == DT_STRUCT ? t->kids[k] : t->child;
}

/* every non-empty block's child is contiguous data: one list of byte runs */
static dt_node_t *norm_runs(const dt_node_t *t, dt_node_t **c, loom_status_t *st)
{
    run_t *r = malloc(sizeof(*r) * (t->count + 1));
    size_t n = 0;
    dt_node_t *x;

    if (r == NULL) {
        *st = LOOM_ERR_NO_MEMORY;
        return NULL;
    }
    for (size_t k = 0; k < t->count; ++k) {
        size_t len = c[k] == NULL ? 0 : t->blens[k] * c[k]->size;

        if (len == 0) {
            continue;
        }
        if (n > 0 && r[n - 1].d + (ptrdiff_t)r[n - 1].len == t->displs[k]) {
            r[n - 1].len += len;
        } else {
            r[n++] = (run_t){ t->displs[k], len };
        }
    }
    x = runs_node(r, n, t->extent);
    free(r);
    if (x == NULL) {
        *st = LOOM_ERR_NO_MEMORY;
    }
    return x;
}

/* general blocks: drop empty ones, merge touching ones of one child */
static dt_node_t *norm_blocks(const dt_node_t *t, dt_node_t **c, loom_status_t *st)
{
    dt_node_t *x = dt_node_new(t->kind == DT_IDX ? DT_IDX : DT_STRUCT, t->count);
    size_t n = 0;

    if (x == NULL) {
        *st = LOOM_ERR_NO_MEMORY;
        return NULL;
    }
    for (size_t k = 0; k < t->count; ++k) {
        if (c[k] == NULL) {
            continue;
        }
        if (n > 0 && t->kind == DT_IDX &&
            x->displs[n - 1] + (ptrdiff_t)x->blens[n - 1] * c[k]->extent == t->displs[k]) {
            x->blens[n - 1] += t->blens[k];
            continue;
        }
        x->blens[n] = t->blens[k];
        x->displs[n] = t->displs[k];
        if (t->kind == DT_STRUCT) {
            x->kids[n] = c[k];
            c[k] = NULL;
        }
        ++n;
    }
    x->count = n;
    if (t->kind == DT_IDX) {
        for (size_t k = 0; k < t->count && x->child == NULL; ++k) {
            x->child = c[k];
        }
        if (x->child != NULL) {
            c[0] = NULL; /* IDX: c[] all alias one normalised child */
        }
    }
    (void)dt_node_finish_idx(x);
    x->extent = t->extent;
    if (n == 1 && x->displs[0] == 0) {
        dt_node_t *kid = t->kind == DT_STRUCT ? x->kids[0] : x->child;
        size_t bl = x->blens[0];

        x->kind = DT_LEAF; /* free the shell only */
        dt_node_free(x);
        return one_block(bl, kid, t->extent);
    }
    return x;
}

static dt_node_t *norm_idx(const dt_node_t *t, loom_status_t *st)
{
    dt_node_t **c = calloc(t->count + 1, sizeof(*c)), *one = NULL, *x;
    bool all_runs = true;

    if (c == NULL) {
        *st = LOOM_ERR_NO_MEMORY;
        return NULL;
    }
    for (size_t k = 0; k < t->count && *st == LOOM_OK; ++k) {
        if (t->blens[k] == 0 || kid_of(t, k)->size == 0) {
            continue;
        }
        if (t->kind == DT_IDX && one != NULL) {
            c[k] = one;
            continue;
        }
        c[k] = dt_normalize(kid_of(t, k), st);
        one = c[k];
        all_runs = all_runs && c[k] != NULL && is_run(c[k]);
    }
    x = *st != LOOM_OK ? NULL : all_runs ? norm_runs(t, c, st) : norm_blocks(t, c, st);
    if (t->kind == DT_IDX) {
        if (all_runs || x == NULL) {
            dt_node_free_tree(one);
        }
    } else {
        for (size_t k = 0; k < t->count; ++k) {
            dt_node_free_tree(c[k]);
        }
    }
    free(c);
    return x;
}

dt_node_t *dt_normalize(const dt_node_t *t, loom_status_t *st)
{
    dt_node_t *x;

    switch (t->kind) {
    case DT_LEAF:
        x = leaf_new(t->size, t->extent);
        break;
    case DT_VEC:
        x = norm_vec(t, st);
        break;
    default:
        x = norm_idx(t, st);
        break;
    }
    if (x == NULL && *st == LOOM_OK) {
        *st = LOOM_ERR_NO_MEMORY;
    }
    return x;
}

loom_status_t loom_dt_commit(loom_dt_t *dt)
{
    loom_status_t st = LOOM_OK;
    dt_node_t *b;

    if (dt == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "loom_dt_commit: the type is NULL");
    }
    if (dt->committed) {
        return LOOM_OK;
    }
    b = dt_normalize(dt->tnode, &st);
    if (b == NULL) {
        return DT_ERR(st, "loom_dt_commit: out of memory building the byte program");
    }
    dt->bnode = b;
    dt->committed = true;
    return LOOM_OK;
}

int loom_dt_is_committed(const loom_dt_t *dt)
{
    return dt != NULL && dt->committed;
}
