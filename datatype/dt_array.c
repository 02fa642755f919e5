/*
 * dt_array.c: subarray and darray (MPI-3.1 4.1.3, 4.1.4).
 *
 * Both are built from the other constructors, fastest-varying dimension
 * first (the last in C order, the first in Fortran order): each dimension
 * wraps the previous type in a vector (subarray) or an hindexed list of the
 * index runs this process owns (darray: block, cyclic(k) or none), strided
 * by the product of the faster dimensions; the whole is resized to lb 0 and
 * the full array's extent, as the standard defines them. The result is
 * wrapped (dt_wrap) in an object whose combiner and contents are the
 * subarray's/darray's own arguments. The process grid of a darray is
 * row-major whatever the array order.
 */
#include "dt_priv.h"

#include <stdlib.h>

static int dim_of(int f, int ndims, int order)
{
    return order == LOOM_DT_ORDER_C ? ndims - 1 - f : f;
}

static loom_status_t check_common(int ndims, int order, const loom_dt_t *old, const char *op)
{
    if (old == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: the input type is NULL", op);
    }
    if (ndims < 1 || ndims > 64) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: ndims %d is not in 1..64", op, ndims);
    }
    if (order != LOOM_DT_ORDER_C && order != LOOM_DT_ORDER_FORTRAN) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: order %d is neither C nor Fortran", op, order);
    }
    return LOOM_OK;
}

static loom_status_t subarray_check(int ndims, const int64_t sizes[], const int64_t subsizes[],
                                    const int64_t starts[], const char *op)
{
    for (int i = 0; i < ndims; ++i) {
        if (sizes[i] < 1) {
            return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: sizes[%d] = %lld is not positive", op, i,
                          (long long)sizes[i]);
        }
        if (subsizes[i] < 1 || subsizes[i] > sizes[i]) {
            return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: subsizes[%d] = %lld is not in 1..%lld", op,
                          i, (long long)subsizes[i], (long long)sizes[i]);
        }
        if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
            return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: starts[%d] = %lld is not in 0..%lld "
                          "(sizes - subsizes)", op, i, (long long)starts[i],
                          (long long)(sizes[i] - subsizes[i]));
        }
    }
    return LOOM_OK;
}

/* t := f(t): release the old t, keep the new one (nt by address: it is
 * written by the call that computes st, an argument evaluated in any order) */
static loom_status_t step(loom_dt_t **t, loom_status_t st, loom_dt_t *const *nt)
{
    loom_dt_release(*t);
    *t = st == LOOM_OK ? *nt : NULL;
    return st;
}

/* the last steps both share: displaced by disp, resized to [0, extent), wrapped */
static loom_status_t shell(loom_dt_t *t, ptrdiff_t disp, ptrdiff_t extent, loom_dt_t *outer,
                           const char *op, loom_dt_t **newtype)
{
    loom_status_t st = LOOM_OK;
    loom_dt_t *nt = NULL;

    if (outer == NULL) {
        loom_dt_release(t);
        return DT_ERR(LOOM_ERR_NO_MEMORY, "%s: out of memory", op);
    }
    if (t != NULL) {
        st = step(&t, loom_dt_create_hindexed_block(1, 1, &disp, t, &nt), &nt);
    }
    if (st == LOOM_OK) {
        st = step(&t, loom_dt_create_resized(t, 0, extent, &nt), &nt);
    }
    if (st != LOOM_OK) {
        loom_dt_release(outer);
        return st;
    }
    st = dt_wrap(outer, t, newtype);
    loom_dt_release(t);
    return st;
}

loom_status_t loom_dt_create_subarray(int ndims, const int64_t sizes[],
                                      const int64_t subsizes[], const int64_t starts[],
                                      int order, loom_dt_t *old, loom_dt_t **newtype)
{
    static const char op[] = "loom_dt_create_subarray";
    int64_t ints[3 * 64 + 2];
    ptrdiff_t stride = 0, disp = 0, v;
    loom_status_t st;
    loom_dt_t *t = NULL, *nt = NULL;

    if ((st = check_common(ndims, order, old, op)) != LOOM_OK ||
        (st = subarray_check(ndims, sizes, subsizes, starts, op)) != LOOM_OK) {
        return st;
    }
    ints[0] = ndims;
    for (int i = 0; i < ndims; ++i) {
        ints[1 + i] = sizes[i];
        ints[1 + ndims + i] = subsizes[i];
        ints[1 + 2 * ndims + i] = starts[i];
    }
    ints[1 + 3 * ndims] = order;
    stride = old->ub - old->lb;
    for (int f = 0; f < ndims && st == LOOM_OK; ++f) {
        int d = dim_of(f, ndims, order);

        if (__builtin_mul_overflow(starts[d], stride, &v) ||
            __builtin_add_overflow(disp, v, &disp)) {
            st = LOOM_ERR_INVALID_ARG;
        } else if (f == 0) {
            st = loom_dt_create_contiguous(subsizes[d], old, &t);
        } else {
            st = step(&t, loom_dt_create_hvector(subsizes[d], 1, stride, t, &nt), &nt);
        }
        if (st == LOOM_OK && __builtin_mul_overflow(stride, sizes[d], &stride)) {
            st = LOOM_ERR_INVALID_ARG;
        }
    }
    if (st != LOOM_OK) {
        loom_dt_release(t);
        return DT_ERR(st, "%s: the array's extent overflows ptrdiff_t or a step failed", op);
    }
    return shell(t, disp, stride,
                 dt_alloc(LOOM_DT_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1, &old),
                 op, newtype);
}

typedef struct darray_dim {
    int64_t g, darg;
    int     distrib, p, c;
} darray_dim_t;

static loom_status_t darray_check(const darray_dim_t *x, int i, const char *op)
{
    if (x->g < 1 || x->p < 1) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: gsizes[%d] = %lld or psizes[%d] = %d is not "
                      "positive", op, i, (long long)x->g, i, x->p);
    }
    if (x->darg != LOOM_DT_DISTRIBUTE_DFLT_DARG && x->darg < 1) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: dargs[%d] = %lld is neither positive nor the "
                      "default", op, i, (long long)x->darg);
    }
    switch (x->distrib) {
    case LOOM_DT_DISTRIBUTE_NONE:
        if (x->p != 1) {
            return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: dimension %d is not distributed but "
                          "psizes[%d] = %d (must be 1)", op, i, i, x->p);
        }
        return LOOM_OK;
    case LOOM_DT_DISTRIBUTE_BLOCK:
        if (x->darg != LOOM_DT_DISTRIBUTE_DFLT_DARG && x->darg * x->p < x->g) {
            return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: dimension %d: block %lld x %d processes "
                          "< gsize %lld", op, i, (long long)x->darg, x->p, (long long)x->g);
        }
        return LOOM_OK;
    case LOOM_DT_DISTRIBUTE_CYCLIC:
        return LOOM_OK;
    default:
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: distribs[%d] = %d is not block, cyclic or "
                      "none", op, i, x->distrib);
    }
}

/* the index runs of one dimension this process owns: (start, len) pairs */
static size_t darray_runs(const darray_dim_t *x, int64_t *lens, ptrdiff_t *starts)
{
    int64_t b, s;
    size_t n = 0;

    if (x->distrib == LOOM_DT_DISTRIBUTE_NONE) {
        lens[0] = x->g, starts[0] = 0;
        return 1;
    }
    if (x->distrib == LOOM_DT_DISTRIBUTE_BLOCK) {
        b = x->darg == LOOM_DT_DISTRIBUTE_DFLT_DARG ? (x->g + x->p - 1) / x->p : x->darg;
        s = b * x->c;
        lens[0] = s >= x->g ? 0 : (x->g - s < b ? x->g - s : b);
        starts[0] = s >= x->g ? 0 : s;
        return 1;
    }
    b = x->darg == LOOM_DT_DISTRIBUTE_DFLT_DARG ? 1 : x->darg;
    for (s = b * x->c; s < x->g; s += b * x->p) {
        lens[n] = x->g - s < b ? x->g - s : b;
        starts[n++] = s;
    }
    return n;
}

static loom_status_t darray_dim(const darray_dim_t *x, ptrdiff_t *stride, loom_dt_t **t)
{
    size_t max = (size_t)(x->g / (x->darg > 0 ? x->darg : 1)) + 2, n;
    int64_t *lens = malloc(sizeof(*lens) * max);
    ptrdiff_t *displs = malloc(sizeof(*displs) * max), ext;
    loom_status_t st = LOOM_ERR_NO_MEMORY;
    loom_dt_t *nt = NULL;

    if (lens != NULL && displs != NULL) {
        n = darray_runs(x, lens, displs);
        st = LOOM_OK;
        for (size_t k = 0; k < n && st == LOOM_OK; ++k) {
            if (__builtin_mul_overflow(displs[k], *stride, &displs[k])) {
                st = LOOM_ERR_INVALID_ARG;
            }
        }
        if (st == LOOM_OK && __builtin_mul_overflow(*stride, x->g, &ext)) {
            st = LOOM_ERR_INVALID_ARG;
        }
        if (st == LOOM_OK) {
            st = step(t, loom_dt_create_hindexed((int64_t)n, lens, displs, *t, &nt), &nt);
        }
        if (st == LOOM_OK) {
            st = step(t, loom_dt_create_resized(*t, 0, ext, &nt), &nt);
            *stride = ext;
        }
    }
    free(lens);
    free(displs);
    return st;
}

/* MPI's contents: {size, rank, ndims, gsizes[], distribs[], dargs[], psizes[], order} */
static void darray_contents(int64_t *ints, int size, int rank, int ndims, const int64_t gsizes[],
                            const int distribs[], const int64_t dargs[], const int psizes[],
                            int order)
{
    ints[0] = size, ints[1] = rank, ints[2] = ndims, ints[3 + 4 * ndims] = order;
    for (int i = 0; i < ndims; ++i) {
        ints[3 + i] = gsizes[i];
        ints[3 + ndims + i] = distribs[i];
        ints[3 + 2 * ndims + i] = dargs[i];
        ints[3 + 3 * ndims + i] = psizes[i];
    }
}

loom_status_t loom_dt_create_darray(int size, int rank, int ndims, const int64_t gsizes[],
                                    const int distribs[], const int64_t dargs[],
                                    const int psizes[], int order, loom_dt_t *old,
                                    loom_dt_t **newtype)
{
    static const char op[] = "loom_dt_create_darray";
    int64_t ints[4 * 64 + 4], nprocs = 1;
    darray_dim_t x[64];
    ptrdiff_t stride;
    loom_status_t st;
    loom_dt_t *t;

    if ((st = check_common(ndims, order, old, op)) != LOOM_OK) {
        return st;
    }
    if (size < 1 || rank < 0 || rank >= size) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: rank %d is not in 0..%d", op, rank, size - 1);
    }
    for (int i = ndims - 1, r = rank; i >= 0; --i) {
        x[i] = (darray_dim_t){ gsizes[i], dargs[i], distribs[i], psizes[i], 0 };
        if ((st = darray_check(&x[i], i, op)) != LOOM_OK) {
            return st;
        }
        x[i].c = r % psizes[i];
        r /= psizes[i];
        nprocs *= psizes[i];
        if (nprocs > size) {
            break;
        }
    }
    if (nprocs != size) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: the process grid's product is not the size %d",
                      op, size);
    }
    darray_contents(ints, size, rank, ndims, gsizes, distribs, dargs, psizes, order);
    t = old;
    loom_dt_retain(t);
    stride = old->ub - old->lb;
    for (int f = 0; f < ndims; ++f) {
        if ((st = darray_dim(&x[dim_of(f, ndims, order)], &stride, &t)) != LOOM_OK) {
            loom_dt_release(t);
            return DT_ERR(st, "%s: building dimension %d failed (extent overflow?)", op,
                          dim_of(f, ndims, order));
        }
    }
    return shell(t, 0, stride,
                 dt_alloc(LOOM_DT_COMBINER_DARRAY, 4 * ndims + 4, ints, 0, NULL, 1, &old),
                 op, newtype);
}
