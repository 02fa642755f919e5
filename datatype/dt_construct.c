/*
 * dt_construct.c: the MPI type constructors (but subarray and darray,
 * dt_array.c), the object's lifetime, and the bound rules.
 *
 * Each constructor validates its arguments (a negative count or block
 * length, a NULL type, an extent or size that overflows are named in the
 * log and returned), stores its arguments as the type's contents (what
 * loom_dt_get_contents returns), builds one typed node over its input's
 * typed node, and computes size, lb/ub and true bounds with dt_set_bounds.
 * contiguous/vector/hvector are VEC nodes (no per-block memory);
 * indexed-like ones are IDX nodes with byte displacements; struct is a
 * STRUCT node; resized and dup are a one-block IDX that changes the extent.
 *
 * Bounds (MPI-3.1 4.1.6-4.1.8): lb/ub are the min/max over the blocks'
 * instances of the input's lb/ub, except that explicit markers (set by
 * resized, sticky through later constructors) win over the data when any
 * block carries one. A struct without an explicit ub has its extent
 * rounded up to the largest alignment of its basic types (the "epsilon"
 * as MPICH and Open MPI apply it on x86-64). True bounds ignore markers
 * and padding. Empty blocks and empty type maps take no part in bounds,
 * but every input's alignment counts.
 */
#include "dt_priv.h"

#include <stdlib.h>
#include <string.h>

static loom_status_t check_old(const loom_dt_t *old, const char *op)
{
    if (old == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: the input type is NULL", op);
    }
    return LOOM_OK;
}

static loom_status_t check_count(int64_t v, const char *what, const char *op)
{
    if (v < 0) {
        return DT_ERR(LOOM_ERR_INVALID_COUNT, "%s: %s is negative (%lld)", op, what,
                      (long long)v);
    }
    if ((uint64_t)v > PTRDIFF_MAX) {
        return DT_ERR(LOOM_ERR_INVALID_COUNT, "%s: %s %lld exceeds PTRDIFF_MAX", op, what,
                      (long long)v);
    }
    return LOOM_OK;
}

void loom_dt_retain(loom_dt_t *dt)
{
    if (dt != NULL && !dt->predefined) {
        __atomic_fetch_add(&dt->refs, 1, __ATOMIC_RELAXED);
    }
}

void loom_dt_release(loom_dt_t *dt)
{
    if (dt == NULL || dt->predefined ||
        __atomic_sub_fetch(&dt->refs, 1, __ATOMIC_ACQ_REL) != 0) {
        return;
    }
    for (int i = 0; i < dt->n_types; ++i) {
        loom_dt_release(dt->types[i]);
    }
    if (dt->impl != NULL) {
        loom_dt_release(dt->impl);
    } else {
        dt_node_free(dt->tnode);
    }
    dt_node_free_tree(dt->bnode);
    free(dt->ints);
    free(dt->addrs);
    free(dt->types);
    free(dt);
}

loom_dt_t *dt_alloc(loom_dt_combiner_t comb, int n_ints, const int64_t *ints, int n_addrs,
                    const ptrdiff_t *addrs, int n_types, loom_dt_t *const *types)
{
    loom_dt_t *dt = calloc(1, sizeof(*dt));

    if (dt == NULL) {
        return NULL;
    }
    dt->refs = 1;
    dt->combiner = comb;
    dt->ints = malloc(sizeof(*ints) * (size_t)(n_ints + 1));
    dt->addrs = malloc(sizeof(*addrs) * (size_t)(n_addrs + 1));
    dt->types = malloc(sizeof(*types) * (size_t)(n_types + 1));
    if (dt->ints == NULL || dt->addrs == NULL || dt->types == NULL) {
        loom_dt_release(dt);
        return NULL;
    }
    if (n_ints > 0) {
        memcpy(dt->ints, ints, sizeof(*ints) * (size_t)n_ints);
    }
    if (n_addrs > 0) {
        memcpy(dt->addrs, addrs, sizeof(*addrs) * (size_t)n_addrs);
    }
    dt->n_ints = n_ints;
    dt->n_addrs = n_addrs;
    for (int i = 0; i < n_types; ++i) {
        dt->types[i] = types[i];
        loom_dt_retain(types[i]);
        dt->n_types = i + 1;
    }
    return dt;
}

/* bounds of one block of blen instances of t at d: [lo, hi) of lb/ub or true bounds */
static bool block_span(ptrdiff_t d, size_t blen, ptrdiff_t ext, ptrdiff_t *lo, ptrdiff_t *hi)
{
    ptrdiff_t span;

    if (__builtin_mul_overflow((ptrdiff_t)(blen - 1), ext, &span)) {
        return false;
    }
    *lo = d + (span < 0 ? span : 0);
    *hi = d + (span > 0 ? span : 0);
    return !__builtin_add_overflow(d, span, &span);
}

typedef struct bounds {
    ptrdiff_t lb, ub, tlb, tub, mlb, mub;
    bool any, tany, lbm, ubm;
} bounds_t;

/*
 * One block's part in the bounds. A type with no data and no markers (an
 * empty type map, e.g. contiguous(0)) takes no part; one with markers but
 * no data gives its markers only: true bounds cover data alone.
 */
static bool bounds_add(bounds_t *b, ptrdiff_t d, size_t blen, const loom_dt_t *t)
{
    ptrdiff_t lo, hi, v[4];

    if (t->size == 0 && !t->has_lb_mark && !t->has_ub_mark) {
        return true;
    }
    if (!block_span(d, blen, t->ub - t->lb, &lo, &hi) ||
        __builtin_add_overflow(lo, t->lb, &v[0]) || __builtin_add_overflow(hi, t->ub, &v[1]) ||
        __builtin_add_overflow(lo, t->true_lb, &v[2]) ||
        __builtin_add_overflow(hi, t->true_ub, &v[3])) {
        return false;
    }
    b->lb = !b->any || v[0] < b->lb ? v[0] : b->lb;
    b->ub = !b->any || v[1] > b->ub ? v[1] : b->ub;
    b->any = true;
    if (t->size > 0) {
        b->tlb = !b->tany || v[2] < b->tlb ? v[2] : b->tlb;
        b->tub = !b->tany || v[3] > b->tub ? v[3] : b->tub;
        b->tany = true;
    }
    if (t->has_lb_mark) {
        b->mlb = !b->lbm || v[0] < b->mlb ? v[0] : b->mlb;
        b->lbm = true;
    }
    if (t->has_ub_mark) {
        b->mub = !b->ubm || v[1] > b->mub ? v[1] : b->mub;
        b->ubm = true;
    }
    return true;
}

loom_status_t dt_set_bounds(loom_dt_t *dt, size_t count, const size_t *blens,
                            const ptrdiff_t *displs, loom_dt_t *const *types, bool is_struct)
{
    bounds_t b = { 0 };
    ptrdiff_t ext;

    /* alignment: every input type counts, even in empty blocks or a count of 0 */
    dt->align = is_struct ? 1 : types[0]->align;
    for (size_t k = 0; k < count; ++k) {
        const loom_dt_t *t = types[is_struct ? k : 0];

        dt->align = t->align > dt->align ? t->align : dt->align;
        if (blens[k] == 0) {
            continue;
        }
        if (!bounds_add(&b, displs[k], blens[k], t)) {
            return LOOM_ERR_INVALID_ARG;
        }
    }
    dt->lb = b.lbm ? b.mlb : b.lb;
    dt->ub = b.ubm ? b.mub : b.ub;
    dt->true_lb = b.tlb;
    dt->true_ub = b.tub;
    dt->has_lb_mark = b.lbm;
    dt->has_ub_mark = b.ubm;
    if (__builtin_sub_overflow(dt->ub, dt->lb, &ext)) {
        return LOOM_ERR_INVALID_ARG;
    }
    if (is_struct && !b.ubm && ext % (ptrdiff_t)dt->align != 0) {
        ptrdiff_t pad = (ptrdiff_t)dt->align - ext % (ptrdiff_t)dt->align;

        if (ext < 0 || __builtin_add_overflow(dt->ub, pad, &dt->ub)) {
            return LOOM_ERR_INVALID_ARG;
        }
    }
    return LOOM_OK;
}

/* the common tail: bounds, node extent, size; frees dt on error */
static loom_status_t finish(loom_dt_t *dt, size_t count, const size_t *blens,
                            const ptrdiff_t *displs, loom_dt_t *const *types, bool is_struct,
                            const char *op, loom_dt_t **newtype)
{
    loom_status_t st = dt_set_bounds(dt, count, blens, displs, types, is_struct);

    if (st != LOOM_OK) {
        loom_dt_release(dt);
        return DT_ERR(st, "%s: the type's bounds overflow ptrdiff_t", op);
    }
    if (dt->impl == NULL) {
        dt->tnode->extent = dt->ub - dt->lb;
    }
    dt->size = dt->tnode->size;
    dt->nelems = dt->tnode->nelems;
    *newtype = dt;
    return LOOM_OK;
}

static loom_status_t no_memory(loom_dt_t *dt, const char *op)
{
    loom_dt_release(dt);
    return DT_ERR(LOOM_ERR_NO_MEMORY, "%s: out of memory", op);
}

static loom_status_t size_overflow(loom_dt_t *dt, const char *op)
{
    loom_dt_release(dt);
    return DT_ERR(LOOM_ERR_INVALID_COUNT, "%s: the type's size overflows size_t", op);
}

/* VEC node: count blocks of blocklen x old, stride bytes apart */
static loom_status_t make_vec(loom_dt_t *dt, int64_t count, int64_t blocklen, ptrdiff_t stride,
                              loom_dt_t *old, const char *op, loom_dt_t **newtype)
{
    dt_node_t *n = dt_node_new(DT_VEC, (size_t)count);
    size_t blens[2] = { (size_t)blocklen, (size_t)blocklen };
    ptrdiff_t displs[2] = { 0, 0 };

    if (n == NULL) {
        return no_memory(dt, op);
    }
    dt->tnode = n;
    n->blocklen = (size_t)blocklen;
    n->stride = stride;
    n->child = old->tnode;
    if (__builtin_mul_overflow(n->count * n->blocklen, old->size, &n->size) ||
        (n->blocklen != 0 && n->count > SIZE_MAX / n->blocklen) ||
        __builtin_mul_overflow(n->count * n->blocklen, old->nelems, &n->nelems)) {
        return size_overflow(dt, op);
    }
    if (count > 1 && __builtin_mul_overflow((ptrdiff_t)(count - 1), stride, &displs[1])) {
        loom_dt_release(dt);
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: count %lld x stride %td overflows", op,
                      (long long)count, stride);
    }
    return finish(dt, count == 0 ? 0 : count == 1 ? 1 : 2, blens, displs, &old, false, op,
                  newtype);
}

loom_status_t loom_dt_create_contiguous(int64_t count, loom_dt_t *old, loom_dt_t **newtype)
{
    static const char op[] = "loom_dt_create_contiguous";
    loom_status_t st;
    loom_dt_t *dt;

    if ((st = check_old(old, op)) != LOOM_OK || (st = check_count(count, "count", op)) != LOOM_OK) {
        return st;
    }
    dt = dt_alloc(LOOM_DT_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &old);
    if (dt == NULL) {
        return no_memory(NULL, op);
    }
    return make_vec(dt, count, 1, old->ub - old->lb, old, op, newtype);
}

static loom_status_t vector_args(int64_t count, int64_t blocklen, const loom_dt_t *old,
                                 const char *op)
{
    loom_status_t st;

    if ((st = check_old(old, op)) != LOOM_OK || (st = check_count(count, "count", op)) != LOOM_OK ||
        (st = check_count(blocklen, "blocklength", op)) != LOOM_OK) {
        return st;
    }
    return LOOM_OK;
}

loom_status_t loom_dt_create_vector(int64_t count, int64_t blocklen, int64_t stride,
                                    loom_dt_t *old, loom_dt_t **newtype)
{
    static const char op[] = "loom_dt_create_vector";
    int64_t ints[3] = { count, blocklen, stride };
    ptrdiff_t bstride;
    loom_status_t st;
    loom_dt_t *dt;

    if ((st = vector_args(count, blocklen, old, op)) != LOOM_OK) {
        return st;
    }
    if (__builtin_mul_overflow(stride, old->ub - old->lb, &bstride)) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: stride %lld x extent %td overflows", op,
                      (long long)stride, old->ub - old->lb);
    }
    dt = dt_alloc(LOOM_DT_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &old);
    if (dt == NULL) {
        return no_memory(NULL, op);
    }
    return make_vec(dt, count, blocklen, bstride, old, op, newtype);
}

loom_status_t loom_dt_create_hvector(int64_t count, int64_t blocklen, ptrdiff_t stride,
                                     loom_dt_t *old, loom_dt_t **newtype)
{
    static const char op[] = "loom_dt_create_hvector";
    int64_t ints[2] = { count, blocklen };
    loom_status_t st;
    loom_dt_t *dt;

    if ((st = vector_args(count, blocklen, old, op)) != LOOM_OK) {
        return st;
    }
    dt = dt_alloc(LOOM_DT_COMBINER_HVECTOR, 2, ints, 1, &stride, 1, &old);
    if (dt == NULL) {
        return no_memory(NULL, op);
    }
    return make_vec(dt, count, blocklen, stride, old, op, newtype);
}

/*
 * IDX or STRUCT node from per-block arrays (blens NULL: all `blen`;
 * displs in bytes, or in units of `unit` bytes if idispls is given).
 */
typedef struct idx_args {
    int64_t          count;
    const int64_t   *blens;
    int64_t          blen;
    const ptrdiff_t *displs;
    const int64_t   *idispls;
    loom_dt_t *const *types;   /* STRUCT: count of them; else one */
    bool             is_struct;
} idx_args_t;

static loom_status_t idx_fill(dt_node_t *n, const idx_args_t *a, const char *op)
{
    ptrdiff_t unit = a->idispls != NULL ? a->types[0]->ub - a->types[0]->lb : 0;
    loom_status_t st;

    for (size_t k = 0; k < n->count; ++k) {
        int64_t bl = a->blens != NULL ? a->blens[k] : a->blen;

        if ((st = check_count(bl, "a block length", op)) != LOOM_OK) {
            return st;
        }
        if (a->is_struct && a->types[k] == NULL) {
            return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: type %zu is NULL", op, k);
        }
        n->blens[k] = (size_t)bl;
        if (a->idispls == NULL) {
            n->displs[k] = a->displs[k];
        } else if (__builtin_mul_overflow((ptrdiff_t)a->idispls[k], unit, &n->displs[k])) {
            return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: displacement %zu (%lld) x extent %td "
                          "overflows", op, k, (long long)a->idispls[k], unit);
        }
        if (a->is_struct) {
            n->kids[k] = a->types[k]->tnode;
        }
    }
    return LOOM_OK;
}

static loom_status_t make_idx(loom_dt_t *dt, const idx_args_t *a, const char *op,
                              loom_dt_t **newtype)
{
    dt_node_t *n = dt_node_new(a->is_struct ? DT_STRUCT : DT_IDX, (size_t)a->count);
    loom_status_t st;

    if (n == NULL) {
        return no_memory(dt, op);
    }
    dt->tnode = n;
    n->child = a->is_struct ? NULL : a->types[0]->tnode;
    if ((st = idx_fill(n, a, op)) != LOOM_OK) {
        loom_dt_release(dt);
        return st;
    }
    if (!dt_node_finish_idx(n)) {
        return size_overflow(dt, op);
    }
    return finish(dt, n->count, n->blens, n->displs, a->types, a->is_struct, op, newtype);
}

static loom_status_t idx_check(loom_dt_combiner_t comb, const idx_args_t *a, const char *op)
{
    loom_status_t st;

    if ((st = check_count(a->count, "count", op)) != LOOM_OK) {
        return st;
    }
    if (a->count > INT32_MAX / 2 - 2) {
        return DT_ERR(LOOM_ERR_INVALID_COUNT, "%s: count %lld exceeds %d", op,
                      (long long)a->count, INT32_MAX / 2 - 2);
    }
    if (!a->is_struct && (st = check_old(a->types[0], op)) != LOOM_OK) {
        return st;
    }
    if (a->count > 0 && a->blens == NULL && comb != LOOM_DT_COMBINER_INDEXED_BLOCK &&
        comb != LOOM_DT_COMBINER_HINDEXED_BLOCK) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: the block lengths array is NULL", op);
    }
    if (a->blens == NULL && (st = check_count(a->blen, "blocklength", op)) != LOOM_OK) {
        return st;
    }
    if (a->count > 0 && a->displs == NULL && a->idispls == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: the displacements array is NULL", op);
    }
    return LOOM_OK;
}

/* the new object with MPI's contents: ints {count, blocklen | blens[],
 * [element displs[]]}, addrs {byte displs[]} */
static loom_dt_t *idx_alloc(loom_dt_combiner_t comb, const idx_args_t *a)
{
    size_t nc = (size_t)a->count, ni = 0, na = 0;
    int64_t *ints = malloc(sizeof(*ints) * (2 * nc + 2));
    loom_dt_t *dt;

    if (ints == NULL) {
        return NULL;
    }
    ints[ni++] = a->count;
    if (a->blens == NULL) {
        ints[ni++] = a->blen;
    } else {
        for (size_t k = 0; k < nc; ++k) {
            ints[ni++] = a->blens[k];
        }
    }
    if (a->idispls != NULL) {
        for (size_t k = 0; k < nc; ++k) {
            ints[ni++] = a->idispls[k];
        }
    } else {
        na = nc;
    }
    dt = dt_alloc(comb, (int)ni, ints, (int)na, a->displs, a->is_struct ? (int)nc : 1, a->types);
    free(ints);
    return dt;
}

static loom_status_t idx_common(loom_dt_combiner_t comb, const idx_args_t *a, const char *op,
                                loom_dt_t **newtype)
{
    loom_status_t st = idx_check(comb, a, op);
    loom_dt_t *dt;

    if (st != LOOM_OK) {
        return st;
    }
    dt = idx_alloc(comb, a);
    if (dt == NULL) {
        return no_memory(NULL, op);
    }
    return make_idx(dt, a, op, newtype);
}

loom_status_t loom_dt_create_indexed(int64_t count, const int64_t blocklens[],
                                     const int64_t displs[], loom_dt_t *old,
                                     loom_dt_t **newtype)
{
    idx_args_t a = { count, blocklens, 0, NULL, displs, &old, false };

    return idx_common(LOOM_DT_COMBINER_INDEXED, &a, "loom_dt_create_indexed", newtype);
}

loom_status_t loom_dt_create_hindexed(int64_t count, const int64_t blocklens[],
                                      const ptrdiff_t displs[], loom_dt_t *old,
                                      loom_dt_t **newtype)
{
    idx_args_t a = { count, blocklens, 0, displs, NULL, &old, false };

    return idx_common(LOOM_DT_COMBINER_HINDEXED, &a, "loom_dt_create_hindexed", newtype);
}

loom_status_t loom_dt_create_indexed_block(int64_t count, int64_t blocklen,
                                           const int64_t displs[], loom_dt_t *old,
                                           loom_dt_t **newtype)
{
    idx_args_t a = { count, NULL, blocklen, NULL, displs, &old, false };

    return idx_common(LOOM_DT_COMBINER_INDEXED_BLOCK, &a, "loom_dt_create_indexed_block",
                      newtype);
}

loom_status_t loom_dt_create_hindexed_block(int64_t count, int64_t blocklen,
                                            const ptrdiff_t displs[], loom_dt_t *old,
                                            loom_dt_t **newtype)
{
    idx_args_t a = { count, NULL, blocklen, displs, NULL, &old, false };

    return idx_common(LOOM_DT_COMBINER_HINDEXED_BLOCK, &a, "loom_dt_create_hindexed_block",
                      newtype);
}

loom_status_t loom_dt_create_struct(int64_t count, const int64_t blocklens[],
                                    const ptrdiff_t displs[], loom_dt_t *const types[],
                                    loom_dt_t **newtype)
{
    static const char op[] = "loom_dt_create_struct";
    idx_args_t a = { count, blocklens, 0, displs, NULL, types, true };

    if (count > 0 && types == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: the types array is NULL", op);
    }
    for (int64_t k = 0; k < count; ++k) {
        if (types[k] == NULL) {
            return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: type %lld is NULL", op, (long long)k);
        }
    }
    return idx_common(LOOM_DT_COMBINER_STRUCT, &a, op, newtype);
}

/* one block of one instance at 0 (resized, dup, the array types' shell) */
static loom_status_t make_shell(loom_dt_t *dt, loom_dt_t *inner, const char *op)
{
    dt_node_t *n = dt_node_new(DT_IDX, 1);

    if (n == NULL) {
        return no_memory(dt, op);
    }
    dt->tnode = n;
    n->child = inner->tnode;
    n->blens[0] = 1;
    n->displs[0] = 0;
    (void)dt_node_finish_idx(n);
    return LOOM_OK;
}

loom_status_t loom_dt_create_resized(loom_dt_t *old, ptrdiff_t lb, ptrdiff_t extent,
                                     loom_dt_t **newtype)
{
    static const char op[] = "loom_dt_create_resized";
    ptrdiff_t addrs[2] = { lb, extent }, ub;
    loom_status_t st;
    loom_dt_t *dt;

    if ((st = check_old(old, op)) != LOOM_OK) {
        return st;
    }
    if (__builtin_add_overflow(lb, extent, &ub)) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: lb %td + extent %td overflows", op, lb, extent);
    }
    dt = dt_alloc(LOOM_DT_COMBINER_RESIZED, 0, NULL, 2, addrs, 1, &old);
    if (dt == NULL) {
        return no_memory(NULL, op);
    }
    if ((st = make_shell(dt, old, op)) != LOOM_OK) {
        return st;
    }
    dt->size = old->size;
    dt->nelems = old->nelems;
    dt->align = old->align;
    dt->lb = lb;
    dt->ub = ub;
    dt->true_lb = old->true_lb;
    dt->true_ub = old->true_ub;
    dt->has_lb_mark = dt->has_ub_mark = true;
    dt->tnode->extent = extent;
    *newtype = dt;
    return LOOM_OK;
}

/* a new type `comb` that is `inner` under another name (dup, subarray, darray) */
loom_status_t dt_wrap(loom_dt_t *dt, loom_dt_t *inner, loom_dt_t **newtype)
{
    loom_dt_retain(inner);
    dt->impl = inner;
    dt->tnode = inner->tnode;
    dt->size = inner->size;
    dt->nelems = inner->nelems;
    dt->align = inner->align;
    dt->lb = inner->lb;
    dt->ub = inner->ub;
    dt->true_lb = inner->true_lb;
    dt->true_ub = inner->true_ub;
    dt->has_lb_mark = inner->has_lb_mark;
    dt->has_ub_mark = inner->has_ub_mark;
    *newtype = dt;
    return LOOM_OK;
}

loom_status_t loom_dt_create_dup(loom_dt_t *old, loom_dt_t **newtype)
{
    static const char op[] = "loom_dt_create_dup";
    loom_status_t st;
    loom_dt_t *dt;

    if ((st = check_old(old, op)) != LOOM_OK) {
        return st;
    }
    dt = dt_alloc(LOOM_DT_COMBINER_DUP, 0, NULL, 0, NULL, 1, &old);
    if (dt == NULL) {
        return no_memory(NULL, op);
    }
    st = dt_wrap(dt, old, newtype);
    if (st == LOOM_OK && old->committed) {
        st = loom_dt_commit(dt);
    }
    return st;
}
