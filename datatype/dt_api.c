/*
 * dt_api.c: the native derived-datatype API of loom.h (loom_dtype_*), a
 * thin layer over the engine (dt_int.h).
 *
 * loom_dtype_t is the engine's own object (struct loom_dt), so nothing is
 * wrapped or copied: a handle is a loom_dt_t * and the reference counting
 * is the engine's (a constructor's result holds the caller's reference,
 * each type holds references on its inputs, a cursor on its type). What
 * this file adds is the native API's conventions: size_t counts (the
 * engine takes int64_t, so anything past INT64_MAX is refused here, named),
 * ptrdiff_t displacements (copied into the engine's int64_t arrays where
 * it counts in elements), checked output pointers, MPI-style packing with
 * a position, and a refusal to free a predefined type. Each check logs
 * under "dt" naming the function, the argument and the limit; the engine
 * logs its own refusals the same way.
 */
#include "dt_priv.h"
#include "mt_int.h"

#include <stdlib.h>

_Static_assert(sizeof(ptrdiff_t) <= sizeof(int64_t), "displacements widen losslessly");

/* ---- argument checks ------------------------------------------------------- */

static loom_status_t api_count(size_t v, const char *what, const char *op, int64_t *out)
{
    if (v > (size_t)INT64_MAX) {
        return DT_ERR(LOOM_ERR_INVALID_COUNT, "%s: %s %zu exceeds the limit INT64_MAX (%lld)",
                      op, what, v, (long long)INT64_MAX);
    }
    *out = (int64_t)v;
    return LOOM_OK;
}

static loom_status_t api_type(loom_dtype_t dt, const char *what, const char *op)
{
    if (dt == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: %s is NULL", op, what);
    }
    return LOOM_OK;
}

static loom_status_t api_ptr(const void *p, const char *what, const char *op)
{
    if (p == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: %s is NULL", op, what);
    }
    return LOOM_OK;
}

/* The common head of a constructor: the input type and the output pointer. */
static loom_status_t api_ctor(loom_dtype_t old, const void *newtype_p, const char *op)
{
    loom_status_t st = api_type(old, "oldtype", op);

    return st != LOOM_OK ? st : api_ptr(newtype_p, "newtype_p", op);
}

/* An array argument: NULL is allowed only when @p n is 0. */
static loom_status_t api_array(const void *a, size_t n, const char *what, const char *op)
{
    if (n > 0 && a == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: %s is NULL (count %zu)", op, what, n);
    }
    return LOOM_OK;
}

/* @p n size_t values as a new int64_t array (each <= INT64_MAX); *out freed by the caller. */
static loom_status_t api_widen(const size_t *v, size_t n, const char *what, const char *op,
                               int64_t **out)
{
    int64_t *w = malloc((n > 0 ? n : 1) * sizeof(*w));

    if (w == NULL) {
        return DT_ERR(LOOM_ERR_NO_MEMORY, "%s: out of memory for %zu %s", op, n, what);
    }
    for (size_t i = 0; i < n; ++i) {
        if (v[i] > (size_t)INT64_MAX) {
            free(w);
            return DT_ERR(LOOM_ERR_INVALID_COUNT, "%s: %s[%zu] = %zu exceeds the limit "
                          "INT64_MAX", op, what, i, v[i]);
        }
        w[i] = (int64_t)v[i];
    }
    *out = w;
    return LOOM_OK;
}

/* ---- constructors ------------------------------------------------------------ */

loom_dtype_t loom_dtype_basic(loom_datatype_t basic)
{
    LOOM_MT_GUARD();
    return loom_dt_basic(basic);
}

loom_status_t loom_dtype_contiguous(size_t count, loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_contiguous";
    int64_t c;
    loom_status_t st = api_ctor(oldtype, newtype_p, op);

    if (st != LOOM_OK || (st = api_count(count, "count", op, &c)) != LOOM_OK) {
        return st;
    }
    return loom_dt_create_contiguous(c, oldtype, newtype_p);
}

/* vector and hvector: @p bytes says how @p stride counts */
static loom_status_t api_vector(size_t count, size_t blocklen, ptrdiff_t stride, bool bytes,
                                loom_dtype_t oldtype, loom_dtype_t *newtype_p, const char *op)
{
    int64_t c, b;
    loom_status_t st = api_ctor(oldtype, newtype_p, op);

    if (st != LOOM_OK || (st = api_count(count, "count", op, &c)) != LOOM_OK ||
        (st = api_count(blocklen, "blocklen", op, &b)) != LOOM_OK) {
        return st;
    }
    return bytes ? loom_dt_create_hvector(c, b, stride, oldtype, newtype_p)
                 : loom_dt_create_vector(c, b, stride, oldtype, newtype_p);
}

loom_status_t loom_dtype_vector(size_t count, size_t blocklen, ptrdiff_t stride,
                                loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    return api_vector(count, blocklen, stride, false, oldtype, newtype_p, "loom_dtype_vector");
}

loom_status_t loom_dtype_hvector(size_t count, size_t blocklen, ptrdiff_t stride,
                                 loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    return api_vector(count, blocklen, stride, true, oldtype, newtype_p, "loom_dtype_hvector");
}

/* @p n ptrdiff_t displacements as a new int64_t array; *out freed by the caller. */
static loom_status_t api_displs(const ptrdiff_t *d, size_t n, const char *op, int64_t **out)
{
    int64_t *w = malloc((n > 0 ? n : 1) * sizeof(*w));

    if (w == NULL) {
        return DT_ERR(LOOM_ERR_NO_MEMORY, "%s: out of memory for %zu displs", op, n);
    }
    for (size_t i = 0; i < n; ++i) {
        w[i] = d[i];
    }
    *out = w;
    return LOOM_OK;
}

/*
 * The indexed family. @p one_len: one length @p blocklen for all blocks
 * (the _block forms), else @p blocklens; @p bytes: displacements in bytes
 * (the h- forms), else in extents of @p oldtype.
 */
static loom_status_t api_indexed(size_t count, const size_t *blocklens, size_t blocklen,
                                 bool one_len, const ptrdiff_t *displs, bool bytes,
                                 loom_dtype_t oldtype, loom_dtype_t *newtype_p, const char *op)
{
    int64_t c, b = 0, *wbl = NULL, *wd = NULL;
    loom_status_t st = api_ctor(oldtype, newtype_p, op);

    if (st != LOOM_OK || (st = api_count(count, "count", op, &c)) != LOOM_OK ||
        (!one_len && (st = api_array(blocklens, count, "blocklens", op)) != LOOM_OK) ||
        (st = api_array(displs, count, "displs", op)) != LOOM_OK ||
        (one_len && (st = api_count(blocklen, "blocklen", op, &b)) != LOOM_OK) ||
        (!one_len && (st = api_widen(blocklens, count, "blocklens", op, &wbl)) != LOOM_OK) ||
        (!bytes && (st = api_displs(displs, count, op, &wd)) != LOOM_OK)) {
        free(wbl);
        return st;
    }
    if (one_len) {
        st = bytes ? loom_dt_create_hindexed_block(c, b, displs, oldtype, newtype_p)
                   : loom_dt_create_indexed_block(c, b, wd, oldtype, newtype_p);
    } else {
        st = bytes ? loom_dt_create_hindexed(c, wbl, displs, oldtype, newtype_p)
                   : loom_dt_create_indexed(c, wbl, wd, oldtype, newtype_p);
    }
    free(wbl);
    free(wd);
    return st;
}

loom_status_t loom_dtype_indexed(size_t count, const size_t blocklens[], const ptrdiff_t displs[],
                                 loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    return api_indexed(count, blocklens, 0, false, displs, false, oldtype, newtype_p,
                       "loom_dtype_indexed");
}

loom_status_t loom_dtype_hindexed(size_t count, const size_t blocklens[], const ptrdiff_t displs[],
                                  loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    return api_indexed(count, blocklens, 0, false, displs, true, oldtype, newtype_p,
                       "loom_dtype_hindexed");
}

loom_status_t loom_dtype_indexed_block(size_t count, size_t blocklen, const ptrdiff_t displs[],
                                       loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    return api_indexed(count, NULL, blocklen, true, displs, false, oldtype, newtype_p,
                       "loom_dtype_indexed_block");
}

loom_status_t loom_dtype_hindexed_block(size_t count, size_t blocklen, const ptrdiff_t displs[],
                                        loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    return api_indexed(count, NULL, blocklen, true, displs, true, oldtype, newtype_p,
                       "loom_dtype_hindexed_block");
}

loom_status_t loom_dtype_struct(size_t count, const size_t blocklens[], const ptrdiff_t displs[],
                                const loom_dtype_t types[], loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_struct";
    int64_t c, *wbl = NULL;
    loom_status_t st = api_ptr(newtype_p, "newtype_p", op);

    if (st != LOOM_OK || (st = api_count(count, "count", op, &c)) != LOOM_OK ||
        (st = api_array(blocklens, count, "blocklens", op)) != LOOM_OK ||
        (st = api_array(displs, count, "displs", op)) != LOOM_OK) {
        return st;
    }
    if (count > 0 && types == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: types is NULL (count %zu)", op, count);
    }
    for (size_t k = 0; k < count; ++k) {
        if (types[k] == NULL) {
            return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: types[%zu] is NULL", op, k);
        }
    }
    if ((st = api_widen(blocklens, count, "blocklens", op, &wbl)) != LOOM_OK) {
        return st;
    }
    st = loom_dt_create_struct(c, wbl, displs, types, newtype_p);
    free(wbl);
    return st;
}

static loom_status_t api_order(loom_dtype_order_t order, const char *op, int *lorder)
{
    if (order != LOOM_DTYPE_ORDER_C && order != LOOM_DTYPE_ORDER_FORTRAN) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: order %d is neither LOOM_DTYPE_ORDER_C nor "
                      "LOOM_DTYPE_ORDER_FORTRAN", op, (int)order);
    }
    *lorder = order == LOOM_DTYPE_ORDER_C ? LOOM_DT_ORDER_C : LOOM_DT_ORDER_FORTRAN;
    return LOOM_OK;
}

/* the dimension count of subarray/darray: the engine's limit is 64 */
static loom_status_t api_ndims(int ndims, const char *op)
{
    if (ndims < 1 || ndims > 64) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: ndims %d is not in 1..64", op, ndims);
    }
    return LOOM_OK;
}

loom_status_t loom_dtype_subarray(int ndims, const size_t sizes[], const size_t subsizes[],
                                  const size_t starts[], loom_dtype_order_t order,
                                  loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_subarray";
    int64_t *s = NULL, *ss = NULL, *st0 = NULL;
    int lorder;
    loom_status_t st = api_ctor(oldtype, newtype_p, op);

    if (st != LOOM_OK || (st = api_ndims(ndims, op)) != LOOM_OK ||
        (st = api_order(order, op, &lorder)) != LOOM_OK ||
        (st = api_ptr(sizes, "sizes", op)) != LOOM_OK ||
        (st = api_ptr(subsizes, "subsizes", op)) != LOOM_OK ||
        (st = api_ptr(starts, "starts", op)) != LOOM_OK) {
        return st;
    }
    if ((st = api_widen(sizes, (size_t)ndims, "sizes", op, &s)) == LOOM_OK &&
        (st = api_widen(subsizes, (size_t)ndims, "subsizes", op, &ss)) == LOOM_OK &&
        (st = api_widen(starts, (size_t)ndims, "starts", op, &st0)) == LOOM_OK) {
        st = loom_dt_create_subarray(ndims, s, ss, st0, lorder, oldtype, newtype_p);
    }
    free(s);
    free(ss);
    free(st0);
    return st;
}

/* darray's per-dimension arrays in the engine's terms */
static loom_status_t api_darray_dims(int ndims, const loom_dtype_distrib_t *distribs,
                                     const int *dargs, int *ldist, int64_t *ldargs,
                                     const char *op)
{
    for (int i = 0; i < ndims; ++i) {
        if (distribs[i] != LOOM_DTYPE_DISTRIBUTE_BLOCK &&
            distribs[i] != LOOM_DTYPE_DISTRIBUTE_CYCLIC &&
            distribs[i] != LOOM_DTYPE_DISTRIBUTE_NONE) {
            return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: distribs[%d] = %d is not a "
                          "loom_dtype_distrib_t", op, i, (int)distribs[i]);
        }
        ldist[i] = distribs[i] == LOOM_DTYPE_DISTRIBUTE_BLOCK    ? LOOM_DT_DISTRIBUTE_BLOCK
                   : distribs[i] == LOOM_DTYPE_DISTRIBUTE_CYCLIC ? LOOM_DT_DISTRIBUTE_CYCLIC
                                                                 : LOOM_DT_DISTRIBUTE_NONE;
        if (dargs[i] != LOOM_DTYPE_DARG_DEFAULT && dargs[i] <= 0) {
            return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: dargs[%d] = %d is neither positive nor "
                          "LOOM_DTYPE_DARG_DEFAULT", op, i, dargs[i]);
        }
        ldargs[i] = dargs[i] == LOOM_DTYPE_DARG_DEFAULT ? LOOM_DT_DISTRIBUTE_DFLT_DARG
                                                        : (int64_t)dargs[i];
    }
    return LOOM_OK;
}

loom_status_t loom_dtype_darray(int size, int rank, int ndims, const size_t gsizes[],
                                const loom_dtype_distrib_t distribs[], const int dargs[],
                                const int psizes[], loom_dtype_order_t order,
                                loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_darray";
    int64_t *g = NULL, *ld = NULL;
    int *dist = NULL, lorder;
    loom_status_t st = api_ctor(oldtype, newtype_p, op);

    if (st != LOOM_OK || (st = api_ndims(ndims, op)) != LOOM_OK ||
        (st = api_order(order, op, &lorder)) != LOOM_OK ||
        (st = api_ptr(gsizes, "gsizes", op)) != LOOM_OK ||
        (st = api_ptr(distribs, "distribs", op)) != LOOM_OK ||
        (st = api_ptr(dargs, "dargs", op)) != LOOM_OK ||
        (st = api_ptr(psizes, "psizes", op)) != LOOM_OK) {
        return st;
    }
    dist = malloc((size_t)ndims * sizeof(*dist));
    ld = malloc((size_t)ndims * sizeof(*ld));
    if (dist == NULL || ld == NULL) {
        st = DT_ERR(LOOM_ERR_NO_MEMORY, "%s: out of memory for %d dimensions", op, ndims);
    } else if ((st = api_darray_dims(ndims, distribs, dargs, dist, ld, op)) == LOOM_OK &&
               (st = api_widen(gsizes, (size_t)ndims, "gsizes", op, &g)) == LOOM_OK) {
        st = loom_dt_create_darray(size, rank, ndims, g, dist, ld, psizes, lorder, oldtype,
                                   newtype_p);
    }
    free(dist);
    free(ld);
    free(g);
    return st;
}

loom_status_t loom_dtype_resized(loom_dtype_t oldtype, ptrdiff_t lb, ptrdiff_t extent,
                                 loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    loom_status_t st = api_ctor(oldtype, newtype_p, "loom_dtype_resized");

    return st != LOOM_OK ? st : loom_dt_create_resized(oldtype, lb, extent, newtype_p);
}

loom_status_t loom_dtype_dup(loom_dtype_t oldtype, loom_dtype_t *newtype_p)
{
    LOOM_MT_GUARD();
    loom_status_t st = api_ctor(oldtype, newtype_p, "loom_dtype_dup");

    return st != LOOM_OK ? st : loom_dt_create_dup(oldtype, newtype_p);
}

/* ---- lifetime and queries ------------------------------------------------------ */

loom_status_t loom_dtype_commit(loom_dtype_t dt)
{
    LOOM_MT_GUARD();
    loom_status_t st = api_type(dt, "dt", "loom_dtype_commit");

    return st != LOOM_OK ? st : loom_dt_commit(dt);
}

loom_status_t loom_dtype_free(loom_dtype_t *dt_p)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_free";
    loom_status_t st = api_ptr(dt_p, "dt_p", op);

    if (st != LOOM_OK || (st = api_type(*dt_p, "*dt_p", op)) != LOOM_OK) {
        return st;
    }
    if ((*dt_p)->predefined) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: *dt_p is a predefined (basic) type, which "
                      "is never freed", op);
    }
    loom_dt_release(*dt_p);
    *dt_p = NULL;
    return LOOM_OK;
}

loom_status_t loom_dtype_size(loom_dtype_t dt, size_t *size_p)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_size";
    loom_status_t st = api_type(dt, "dt", op);

    if (st != LOOM_OK || (st = api_ptr(size_p, "size_p", op)) != LOOM_OK) {
        return st;
    }
    *size_p = loom_dt_size(dt);
    return LOOM_OK;
}

loom_status_t loom_dtype_extent(loom_dtype_t dt, ptrdiff_t *lb_p, ptrdiff_t *extent_p)
{
    LOOM_MT_GUARD();
    loom_status_t st = api_type(dt, "dt", "loom_dtype_extent");

    if (st == LOOM_OK) {
        loom_dt_get_extent(dt, lb_p, extent_p);
    }
    return st;
}

loom_status_t loom_dtype_true_extent(loom_dtype_t dt, ptrdiff_t *true_lb_p,
                                     ptrdiff_t *true_extent_p)
{
    LOOM_MT_GUARD();
    loom_status_t st = api_type(dt, "dt", "loom_dtype_true_extent");

    if (st == LOOM_OK) {
        loom_dt_get_true_extent(dt, true_lb_p, true_extent_p);
    }
    return st;
}

/* ---- packing ------------------------------------------------------------------- */

loom_status_t loom_dtype_pack_size(size_t count, loom_dtype_t dt, size_t *size_p)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_pack_size";
    loom_status_t st = api_type(dt, "dt", op);

    if (st != LOOM_OK || (st = api_ptr(size_p, "size_p", op)) != LOOM_OK) {
        return st;
    }
    return loom_dt_pack_size(count, dt, size_p);
}

/*
 * The checks pack and unpack share: the type, the position inside the
 * @p bufsize-byte packed buffer, and room there for the @p count
 * instances' bytes (*bytes_p).
 */
static loom_status_t api_pack_args(size_t count, loom_dtype_t dt, const void *packed,
                                   size_t bufsize, const size_t *position_p,
                                   size_t *bytes_p, const char *op)
{
    loom_status_t st = api_type(dt, "dt", op);

    if (st != LOOM_OK || (st = api_ptr(position_p, "position_p", op)) != LOOM_OK ||
        (st = dt_check_committed(dt, op)) != LOOM_OK ||
        (st = dt_stream_size(count, dt, op, bytes_p)) != LOOM_OK) {
        return st;
    }
    if (*position_p > bufsize) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: position %zu is past the end of the "
                      "%zu-byte buffer", op, *position_p, bufsize);
    }
    if (*bytes_p > bufsize - *position_p) {
        return DT_ERR(LOOM_ERR_TRUNCATED, "%s: %zu packed bytes (count %zu) do not fit the "
                      "%zu bytes left of the %zu-byte buffer at position %zu", op, *bytes_p,
                      count, bufsize - *position_p, bufsize, *position_p);
    }
    if (*bytes_p > 0 && packed == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_BUFFER, "%s: the packed buffer is NULL", op);
    }
    return LOOM_OK;
}

loom_status_t loom_dtype_pack(const void *inbuf, size_t count, loom_dtype_t dt, void *outbuf,
                              size_t outsize, size_t *position_p)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_pack";
    size_t bytes;
    loom_status_t st = api_pack_args(count, dt, outbuf, outsize, position_p, &bytes, op);

    if (st != LOOM_OK || bytes == 0) {
        return st;
    }
    st = loom_dt_pack_range(inbuf, count, dt, 0, bytes, (char *)outbuf + *position_p);
    if (st == LOOM_OK) {
        *position_p += bytes;
    }
    return st;
}

loom_status_t loom_dtype_unpack(const void *inbuf, size_t insize, size_t *position_p,
                                void *outbuf, size_t count, loom_dtype_t dt)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_unpack";
    size_t bytes;
    loom_status_t st = api_pack_args(count, dt, inbuf, insize, position_p, &bytes, op);

    if (st != LOOM_OK || bytes == 0) {
        return st;
    }
    st = loom_dt_unpack_range(outbuf, count, dt, 0, bytes, (const char *)inbuf + *position_p);
    if (st == LOOM_OK) {
        *position_p += bytes;
    }
    return st;
}

loom_status_t loom_dtype_external32_size(size_t count, loom_dtype_t dt, size_t *size_p)
{
    LOOM_MT_GUARD();
    const char *op = "loom_dtype_external32_size";
    loom_status_t st = api_type(dt, "dt", op);

    if (st != LOOM_OK || (st = api_ptr(size_p, "size_p", op)) != LOOM_OK) {
        return st;
    }
    return loom_dt_external32_size(count, dt, size_p);
}

/* external32's own checks: the type and the position pointer (the engine does the rest) */
static loom_status_t api_x32_args(loom_dtype_t dt, const void *buf, size_t bufsize,
                                  const size_t *position_p, const char *op)
{
    loom_status_t st = api_type(dt, "dt", op);

    if (st != LOOM_OK || (st = api_ptr(position_p, "position_p", op)) != LOOM_OK) {
        return st;
    }
    if (buf == NULL && bufsize > 0) {
        return DT_ERR(LOOM_ERR_INVALID_BUFFER, "%s: the external32 buffer is NULL", op);
    }
    return LOOM_OK;
}

loom_status_t loom_dtype_pack_external32(const void *inbuf, size_t count, loom_dtype_t dt,
                                         void *outbuf, size_t outsize, size_t *position_p)
{
    LOOM_MT_GUARD();
    loom_status_t st = api_x32_args(dt, outbuf, outsize, position_p,
                                    "loom_dtype_pack_external32");

    return st != LOOM_OK ? st
                         : loom_dt_pack_external32(inbuf, count, dt, outbuf, outsize, position_p);
}

loom_status_t loom_dtype_unpack_external32(const void *inbuf, size_t insize, size_t *position_p,
                                           void *outbuf, size_t count, loom_dtype_t dt)
{
    LOOM_MT_GUARD();
    loom_status_t st = api_x32_args(dt, inbuf, insize, position_p,
                                    "loom_dtype_unpack_external32");

    return st != LOOM_OK ? st
                         : loom_dt_unpack_external32(inbuf, insize, position_p, outbuf, count, dt);
}
