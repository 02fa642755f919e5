/*
 * mpi_dtype.c: derived datatypes (issue 20) at the MPI layer: the
 * constructors, commit, envelope/contents and MPI_Get_address, over the
 * datatype engine (datatype/dt_int.h).
 *
 * Design. Every user type carries the engine's type (ldt), built with the
 * same constructor and arguments, so envelope, contents, extents and
 * element counts are the engine's. The MPI handles a type was built from
 * are kept (retained) in `inputs`, so MPI_Type_get_contents returns the
 * very handles the user passed (MPI_INT stays MPI_INT although the engine
 * knows only LOOM_INT32).
 *
 * Communication keeps today's "loom basic type x n" path (mpi_int.h) for
 * every type that is one: predefined types, MPI_Type_contiguous/dup of
 * such types (never `derived`), and a derived type that turns out at
 * commit to be contiguous (loom_dt_is_contig), with lb = true lb = 0,
 * extent = size and one non-pair basic element type: commit fills base
 * and n and it is then indistinguishable from a contiguous type. Any
 * other committed derived type is `noncontig`: loom_mpi_type_check
 * refuses it (so no call can move it as "base x n" by mistake) and the
 * calls that support it pack and unpack through the engine
 * (mpi_dtype_p2p.c). `ebase` is the loom basic type of all its elements
 * (-1 if mixed): reductions use it. A non-contiguous type holding
 * value+index pairs (`haspair`) packs a pair as its members back to back
 * (12 bytes for MPI_DOUBLE_INT), as point-to-point and MPI_Pack move the
 * padded basic pairs too (mpi_int.h); collectives take it when its
 * elements are all one pair type: they expand each pair to the C struct
 * the basic pair types move there (mpi_dtype_coll.c).
 *
 * Lifetime: `refs` counts the user handle plus internal holders (types
 * built on it, pending receives, op bindings); MPI_Type_get_contents
 * hands out extra user handles to derived inputs (`uhandles`), each
 * released by one MPI_Type_free.
 */
#include "mpi_int.h"
#include "mpi_attr_int.h"
#include "mpi_dtype_int.h"
#include "dt_int.h"
#include "mt_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(MPI_Aint) == sizeof(ptrdiff_t), "MPI_Aint is a ptrdiff_t");

/* ---- the wrapper ------------------------------------------------------------- */

static int loom_mpi_dtype_is_pair(int base)
{
    return base >= LOOM_FLOAT_INT && base <= LOOM_LONG_DOUBLE_INT;
}

loom_dt_t *loom_mpi_type_ldt(MPI_Datatype dt)
{
    if (dt->ldt != NULL) {
        return dt->ldt;
    }
    /* C long: the engine's own basic type, 4 bytes in external32 (MPI-3.1
     * Table 13.2) although its loom twin (base) is the 8-byte integer */
    if (dt == MPI_LONG || dt == MPI_UNSIGNED_LONG) {
        return loom_dt_basic_c_long(dt == MPI_UNSIGNED_LONG);
    }
    if (dt->n == 1) {
        return loom_dt_basic(dt->base);
    }
    /* a predefined "base x n" type (mpi_predefined.c): made once, kept */
    if (loom_dt_create_contiguous((int64_t)dt->n, loom_dt_basic(dt->base), &dt->ldt) !=
        LOOM_OK) {
        return NULL;
    }
    loom_dt_commit(dt->ldt);
    return dt->ldt;
}

const char *loom_mpi_type_why(MPI_Datatype dt)
{
    if (dt == MPI_DATATYPE_NULL) {
        return "is MPI_DATATYPE_NULL";
    }
    if (dt->magic != LOOM_MPI_TYPE_MAGIC || dt->user_freed) {
        return "is not a datatype (freed, or not a handle)";
    }
    if (!dt->committed) {
        return "is not committed (MPI_Type_commit)";
    }
    return dt->noncontig ? "is non-contiguous, which this call does not support yet" : "is valid";
}

/* 1 if @p dt holds value+index pair elements (see haspair). */
static int loom_mpi_dtype_haspair_of(MPI_Datatype dt)
{
    return dt->ldt != NULL && dt->derived ? dt->haspair : loom_mpi_dtype_is_pair((int)dt->base);
}

/* The element base of a type (see ebase), -1 if mixed. */
static int loom_mpi_dtype_ebase_of(MPI_Datatype dt)
{
    return dt->ldt != NULL && dt->derived ? dt->ebase : (int)dt->base;
}

/*
 * Wrap engine type @p ldt (whose reference this takes) built by @p call
 * from the @p ninputs handles @p inputs (retained here).
 */
static int loom_mpi_dtype_wrap(loom_dt_t *ldt, MPI_Datatype const inputs[], int ninputs,
                               const char *call, MPI_Datatype *newtype)
{
    MPI_Datatype dt = calloc(1, sizeof(*dt));
    MPI_Datatype *in = malloc((size_t)(ninputs > 0 ? ninputs : 1) * sizeof(*in));

    if (dt == NULL || in == NULL) {
        free(dt);
        free(in);
        loom_dt_release(ldt);
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory for a datatype");
    }
    dt->magic    = LOOM_MPI_TYPE_MAGIC;
    dt->base     = LOOM_BYTE;
    dt->n        = loom_dt_size(ldt);
    dt->size     = loom_dt_size(ldt);
    dt->refs     = 1;
    dt->uhandles = 1;
    dt->ldt      = ldt;
    dt->derived  = 1;
    dt->ebase    = ninputs > 0 ? loom_mpi_dtype_ebase_of(inputs[0]) : -1;
    dt->inputs   = in;
    dt->ninputs  = ninputs;
    for (int i = 0; i < ninputs; ++i) {
        in[i] = inputs[i];
        loom_mpi_type_retain(inputs[i]);
        if (loom_mpi_dtype_ebase_of(inputs[i]) != dt->ebase) {
            dt->ebase = -1;
        }
        dt->haspair |= (uint8_t)loom_mpi_dtype_haspair_of(inputs[i]);
    }
    *newtype = dt;
    return MPI_SUCCESS;
}

void loom_mpi_dtype_destroy(MPI_Datatype dt)
{
    loom_dt_release(dt->ldt);
    for (int i = 0; i < dt->ninputs; ++i) {
        loom_mpi_type_release(dt->inputs[i]);
    }
    free(dt->inputs);
}

/* Check the old type and the output pointer of a constructor. */
static int loom_mpi_dtype_args(MPI_Datatype old, MPI_Datatype *newtype, const char *call)
{
    if (!loom_mpi_type_is_valid(old)) {
        return loom_mpi_raise(NULL, MPI_ERR_TYPE, call, "oldtype %s", loom_mpi_type_why(old));
    }
    if (newtype == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "newtype is NULL");
    }
    return MPI_SUCCESS;
}

/* Turn the engine's answer into the new handle (or the error raised). */
static int loom_mpi_dtype_finish(loom_status_t st, loom_dt_t *ldt, MPI_Datatype const in[],
                                 int nin, const char *call, MPI_Datatype *newtype)
{
    if (st != LOOM_OK) {
        int cls = st == LOOM_ERR_INVALID_COUNT ? MPI_ERR_COUNT
                  : st == LOOM_ERR_INVALID_TYPE ? MPI_ERR_TYPE
                  : st == LOOM_ERR_NO_MEMORY    ? MPI_ERR_NO_MEM : MPI_ERR_ARG;
        return loom_mpi_raise(NULL, cls, call, "the datatype engine refused the arguments: "
                              "%s (%s)", loom_status_name(st), loom_strerror(st));
    }
    return loom_mpi_dtype_wrap(ldt, in, nin, call, newtype);
}

/* Widen @p n ints (NULL if n == 0 allowed) into a new int64_t array. */
static int64_t *loom_mpi_dtype_widen(const int *v, int n)
{
    int64_t *w = malloc((size_t)(n > 0 ? n : 1) * sizeof(*w));

    if (w != NULL) {
        for (int i = 0; i < n; ++i) {
            w[i] = v[i];
        }
    }
    return w;
}

/* Check a count and its arrays (each of @p narr may be NULL only if count is 0). */
static int loom_mpi_dtype_count(int count, int narr, const void *a, const void *b,
                                const char *call)
{
    if (count < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_COUNT, call, "count %d is negative", count);
    }
    if (count > 0 && (a == NULL || (narr > 1 && b == NULL))) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "an array argument is NULL "
                              "(count %d)", count);
    }
    return MPI_SUCCESS;
}

/* ---- constructors ------------------------------------------------------------- */

int loom_mpi_dtype_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype,
                              const char *call)
{
    loom_dt_t *ldt = NULL;
    loom_dt_t *lold = loom_mpi_type_ldt(old);
    loom_status_t st = lold == NULL ? LOOM_ERR_NO_MEMORY
                       : loom_dt_create_contiguous(count, lold, &ldt);

    return loom_mpi_dtype_finish(st, ldt, &old, 1, call, newtype);
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    const char *call = "MPI_Type_vector";
    loom_dt_t *ldt = NULL;
    int rc = loom_mpi_dtype_args(oldtype, newtype, call);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_dtype_count(count, 0, "", "", call)) != 0) {
        return rc;
    }
    if (blocklength < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "blocklength %d is negative",
                              blocklength);
    }
    loom_status_t st = loom_dt_create_vector(count, blocklength, stride,
                                             loom_mpi_type_ldt(oldtype), &ldt);
    return loom_mpi_dtype_finish(st, ldt, &oldtype, 1, call, newtype);
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    const char *call = "MPI_Type_create_hvector";
    loom_dt_t *ldt = NULL;
    int rc = loom_mpi_dtype_args(oldtype, newtype, call);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_dtype_count(count, 0, "", "", call)) != 0) {
        return rc;
    }
    if (blocklength < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "blocklength %d is negative",
                              blocklength);
    }
    loom_status_t st = loom_dt_create_hvector(count, blocklength, stride,
                                              loom_mpi_type_ldt(oldtype), &ldt);
    return loom_mpi_dtype_finish(st, ldt, &oldtype, 1, call, newtype);
}

/* The indexed family: @p hd byte displacements (else @p d in extents), @p bl lengths
 * (NULL: one length @p blen for all). */
static int loom_mpi_dtype_indexed(int count, const int *bl, int blen, const int *d,
                                  const MPI_Aint *hd, MPI_Datatype old, MPI_Datatype *newtype,
                                  const char *call)
{
    loom_dt_t *ldt = NULL, *lold;
    int64_t *wbl = NULL, *wd = NULL;
    loom_status_t st = LOOM_ERR_NO_MEMORY;
    const void *displs = hd != NULL ? (const void *)hd : (const void *)d;
    int rc = loom_mpi_dtype_args(old, newtype, call);

    if (rc == MPI_SUCCESS) {
        /* the lengths: an array (indexed, hindexed) or one value (the _block forms) */
        rc = loom_mpi_dtype_count(count, 2, displs, bl != NULL ? (const void *)bl : "",
                                  call);
    }
    if (rc == MPI_SUCCESS && bl == NULL && blen < 0) {
        rc = loom_mpi_raise(NULL, MPI_ERR_ARG, call, "blocklength %d is negative", blen);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    lold = loom_mpi_type_ldt(old);
    wbl = bl != NULL ? loom_mpi_dtype_widen(bl, count) : NULL;
    wd = hd == NULL ? loom_mpi_dtype_widen(d, count) : NULL;
    if ((bl == NULL || wbl != NULL) && (hd != NULL || wd != NULL) && lold != NULL) {
        if (bl != NULL && hd != NULL) {
            st = loom_dt_create_hindexed(count, wbl, hd, lold, &ldt);
        } else if (bl != NULL) {
            st = loom_dt_create_indexed(count, wbl, wd, lold, &ldt);
        } else if (hd != NULL) {
            st = loom_dt_create_hindexed_block(count, blen, hd, lold, &ldt);
        } else {
            st = loom_dt_create_indexed_block(count, blen, wd, lold, &ldt);
        }
    }
    free(wbl);
    free(wd);
    return loom_mpi_dtype_finish(st, ldt, &old, 1, call, newtype);
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    if (count > 0 && array_of_blocklengths == NULL) {  /* NULL means "one length" below */
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_indexed",
                              "array_of_blocklengths is NULL (count %d)", count);
    }
    return loom_mpi_dtype_indexed(count, array_of_blocklengths, 0, array_of_displacements,
                                  NULL, oldtype, newtype, "MPI_Type_indexed");
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    if (count > 0 && array_of_blocklengths == NULL) {  /* NULL means "one length" below */
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_create_hindexed",
                              "array_of_blocklengths is NULL (count %d)", count);
    }
    return loom_mpi_dtype_indexed(count, array_of_blocklengths, 0, NULL,
                                  array_of_displacements, oldtype, newtype,
                                  "MPI_Type_create_hindexed");
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    return loom_mpi_dtype_indexed(count, NULL, blocklength, array_of_displacements, NULL,
                                  oldtype, newtype, "MPI_Type_create_indexed_block");
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    return loom_mpi_dtype_indexed(count, NULL, blocklength, NULL, array_of_displacements,
                                  oldtype, newtype, "MPI_Type_create_hindexed_block");
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_block_lengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    const char *call = "MPI_Type_create_struct";
    loom_dt_t *ldt = NULL, **lt;
    int64_t *wbl;
    loom_status_t st = LOOM_ERR_NO_MEMORY;
    int rc = loom_mpi_dtype_count(count, 2, array_of_block_lengths, array_of_displacements,
                                  call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newtype == NULL || (count > 0 && array_of_types == NULL)) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                              newtype == NULL ? "newtype" : "array_of_types");
    }
    for (int i = 0; i < count; ++i) {
        if (!loom_mpi_type_is_valid(array_of_types[i])) {
            return loom_mpi_raise(NULL, MPI_ERR_TYPE, call, "array_of_types[%d] %s", i,
                                  loom_mpi_type_why(array_of_types[i]));
        }
    }
    lt = malloc((size_t)(count > 0 ? count : 1) * sizeof(*lt));
    wbl = loom_mpi_dtype_widen(array_of_block_lengths, count);
    if (lt != NULL && wbl != NULL) {
        st = LOOM_OK;
        for (int i = 0; i < count && st == LOOM_OK; ++i) {
            lt[i] = loom_mpi_type_ldt(array_of_types[i]);
            st = lt[i] == NULL ? LOOM_ERR_NO_MEMORY : LOOM_OK;
        }
        if (st == LOOM_OK) {
            st = loom_dt_create_struct(count, wbl, array_of_displacements, lt, &ldt);
        }
    }
    free(lt);
    free(wbl);
    return loom_mpi_dtype_finish(st, ldt, array_of_types, count, call, newtype);
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    const char *call = "MPI_Type_create_resized";
    loom_dt_t *ldt = NULL;
    int rc = loom_mpi_dtype_args(oldtype, newtype, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    loom_status_t st = loom_dt_create_resized(loom_mpi_type_ldt(oldtype), lb, extent, &ldt);
    return loom_mpi_dtype_finish(st, ldt, &oldtype, 1, call, newtype);
}

/* Check the int arrays of subarray/darray: @p n arrays of @p ndims values. */
static int loom_mpi_dtype_dims(int ndims, const int *const arr[], const char *const names[],
                               int n, const char *call)
{
    if (ndims <= 0) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "ndims %d is not positive", ndims);
    }
    for (int i = 0; i < n; ++i) {
        if (arr[i] == NULL) {
            return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL", names[i]);
        }
    }
    return MPI_SUCCESS;
}

static int loom_mpi_dtype_order(int order, const char *call, int *lorder)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "order %d is neither MPI_ORDER_C "
                              "nor MPI_ORDER_FORTRAN", order);
    }
    *lorder = order == MPI_ORDER_C ? LOOM_DT_ORDER_C : LOOM_DT_ORDER_FORTRAN;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int size_array[], const int subsize_array[],
                              const int start_array[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    static const char *const names[] = { "array_of_sizes", "array_of_subsizes",
                                         "array_of_starts" };
    const char *call = "MPI_Type_create_subarray";
    const int *const arr[] = { size_array, subsize_array, start_array };
    loom_dt_t *ldt = NULL;
    loom_status_t st = LOOM_ERR_NO_MEMORY;
    int lorder = 0, rc = loom_mpi_dtype_args(oldtype, newtype, call);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_dtype_dims(ndims, arr, names, 3, call)) != 0 ||
        (rc = loom_mpi_dtype_order(order, call, &lorder)) != 0) {
        return rc;
    }
    int64_t *s = loom_mpi_dtype_widen(size_array, ndims);
    int64_t *ss = loom_mpi_dtype_widen(subsize_array, ndims);
    int64_t *st0 = loom_mpi_dtype_widen(start_array, ndims);
    if (s != NULL && ss != NULL && st0 != NULL) {
        st = loom_dt_create_subarray(ndims, s, ss, st0, lorder, loom_mpi_type_ldt(oldtype),
                                     &ldt);
    }
    free(s);
    free(ss);
    free(st0);
    return loom_mpi_dtype_finish(st, ldt, &oldtype, 1, call, newtype);
}

/* MPI's distribution constants to the engine's; -1 if none. */
static int loom_mpi_dtype_distrib(int d)
{
    return d == MPI_DISTRIBUTE_BLOCK    ? LOOM_DT_DISTRIBUTE_BLOCK
           : d == MPI_DISTRIBUTE_CYCLIC ? LOOM_DT_DISTRIBUTE_CYCLIC
           : d == MPI_DISTRIBUTE_NONE   ? LOOM_DT_DISTRIBUTE_NONE : -1;
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsize_array[],
                            const int distrib_array[], const int darg_array[],
                            const int psize_array[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    static const char *const names[] = { "array_of_gsizes", "array_of_distribs",
                                         "array_of_dargs", "array_of_psizes" };
    const char *call = "MPI_Type_create_darray";
    const int *const arr[] = { gsize_array, distrib_array, darg_array, psize_array };
    loom_dt_t *ldt = NULL;
    loom_status_t st = LOOM_ERR_NO_MEMORY;
    int lorder = 0, rc = loom_mpi_dtype_args(oldtype, newtype, call);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_dtype_dims(ndims, arr, names, 4, call)) != 0 ||
        (rc = loom_mpi_dtype_order(order, call, &lorder)) != 0) {
        return rc;
    }
    int64_t *g = loom_mpi_dtype_widen(gsize_array, ndims);
    int64_t *da = loom_mpi_dtype_widen(darg_array, ndims);
    int *dist = malloc((size_t)ndims * sizeof(*dist));
    if (g != NULL && da != NULL && dist != NULL) {
        st = LOOM_OK;
        for (int i = 0; i < ndims; ++i) {
            dist[i] = loom_mpi_dtype_distrib(distrib_array[i]);
            if (dist[i] < 0) {
                st = LOOM_ERR_INVALID_ARG;
            }
        }
        if (st == LOOM_OK) {
            st = loom_dt_create_darray(size, rank, ndims, g, dist, da, psize_array, lorder,
                                       loom_mpi_type_ldt(oldtype), &ldt);
        }
    }
    free(g);
    free(da);
    free(dist);
    return loom_mpi_dtype_finish(st, ldt, &oldtype, 1, call, newtype);
}

/* ---- commit ---------------------------------------------------------------- */

/*
 * Commit a derived type: build the engine's program, then see whether it
 * is "base x n" after all (see the file comment).
 */
int loom_mpi_dtype_commit(MPI_Datatype dt)
{
    ptrdiff_t lb, ext, tlb, text;
    size_t bsize;

    loom_status_t st = loom_dt_commit(dt->ldt);
    if (st != LOOM_OK) {
        return loom_mpi_raise(NULL, loom_mpi_class_of(st), "MPI_Type_commit",
                              "the datatype engine failed: %s", loom_strerror(st));
    }
    loom_dt_get_extent(dt->ldt, &lb, &ext);
    loom_dt_get_true_extent(dt->ldt, &tlb, &text);
    dt->committed = 1;
    dt->noncontig = 1;
    if (dt->ebase >= 0 && !loom_mpi_dtype_is_pair(dt->ebase) && lb == 0 && tlb == 0 &&
        ext >= 0 && (size_t)ext == dt->size && loom_dt_is_contig(dt->ldt, 1)) {
        bsize = loom_datatype_size((loom_datatype_t)dt->ebase);
        if (bsize > 0 && dt->size % bsize == 0) {
            dt->base = (loom_datatype_t)dt->ebase;
            dt->n = dt->size / bsize;
            dt->noncontig = 0;
        }
    }
    return MPI_SUCCESS;
}

/* ---- envelope and contents ------------------------------------------------ */

static const int loom_mpi_dtype_combiners[] = {
    [LOOM_DT_COMBINER_NAMED] = MPI_COMBINER_NAMED,
    [LOOM_DT_COMBINER_DUP] = MPI_COMBINER_DUP,
    [LOOM_DT_COMBINER_CONTIGUOUS] = MPI_COMBINER_CONTIGUOUS,
    [LOOM_DT_COMBINER_VECTOR] = MPI_COMBINER_VECTOR,
    [LOOM_DT_COMBINER_HVECTOR] = MPI_COMBINER_HVECTOR,
    [LOOM_DT_COMBINER_INDEXED] = MPI_COMBINER_INDEXED,
    [LOOM_DT_COMBINER_HINDEXED] = MPI_COMBINER_HINDEXED,
    [LOOM_DT_COMBINER_INDEXED_BLOCK] = MPI_COMBINER_INDEXED_BLOCK,
    [LOOM_DT_COMBINER_HINDEXED_BLOCK] = MPI_COMBINER_HINDEXED_BLOCK,
    [LOOM_DT_COMBINER_STRUCT] = MPI_COMBINER_STRUCT,
    [LOOM_DT_COMBINER_SUBARRAY] = MPI_COMBINER_SUBARRAY,
    [LOOM_DT_COMBINER_DARRAY] = MPI_COMBINER_DARRAY,
    [LOOM_DT_COMBINER_RESIZED] = MPI_COMBINER_RESIZED,
};

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype type, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    LOOM_MT_GUARD();
    loom_dt_combiner_t c;

    if (!loom_mpi_type_is_valid(type)) {
        return loom_mpi_raise(NULL, MPI_ERR_TYPE, "MPI_Type_get_envelope", "datatype %s",
                              loom_mpi_type_why(type));
    }
    if (num_integers == NULL || num_addresses == NULL || num_datatypes == NULL ||
        combiner == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_get_envelope",
                              "an output argument is NULL");
    }
    if (loom_mpi_dtype_f90_info(type, combiner, (int[2]){ 0, 0 }, num_integers)) {
        *num_addresses = *num_datatypes = 0;  /* mpi_dtype_f90.c: {r} or {p, r} */
        return MPI_SUCCESS;
    }
    if (type->predefined) {
        *num_integers = *num_addresses = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    loom_dt_get_envelope(type->ldt, num_integers, num_addresses, num_datatypes, &c);
    *combiner = loom_mpi_dtype_combiners[c];
    return MPI_SUCCESS;
}

/* Hand out input handle @p in: a derived one gains a user handle (freed by the user). */
static MPI_Datatype loom_mpi_dtype_handout(MPI_Datatype in)
{
    if (!in->predefined) {
        loom_mpi_type_retain(in);
        ++in->uhandles;
        in->user_freed = 0;
    }
    return in;
}

/* The engine's order and distribution constants in contents back to MPI's. */
static void loom_mpi_dtype_unmap(loom_dt_combiner_t c, int ints[], int ni)
{
    static const int dist[] = { [LOOM_DT_DISTRIBUTE_BLOCK] = MPI_DISTRIBUTE_BLOCK,
                                [LOOM_DT_DISTRIBUTE_CYCLIC] = MPI_DISTRIBUTE_CYCLIC,
                                [LOOM_DT_DISTRIBUTE_NONE] = MPI_DISTRIBUTE_NONE };

    if (c != LOOM_DT_COMBINER_SUBARRAY && c != LOOM_DT_COMBINER_DARRAY) {
        return;
    }
    ints[ni - 1] = ints[ni - 1] == LOOM_DT_ORDER_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    if (c == LOOM_DT_COMBINER_DARRAY) {
        int nd = ints[2];
        for (int i = 3 + nd; i < 3 + 2 * nd; ++i) {
            ints[i] = ints[i] >= 0 && ints[i] <= 2 ? dist[ints[i]] : ints[i];
        }
    }
}

/* MPI_Type_get_contents of an MPI_Type_create_f90_* type: its @p ni integers. */
static int loom_mpi_dtype_f90_contents(const int f90[2], int ni, int max_integers,
                                       int array_of_integers[])
{
    if (max_integers < ni || array_of_integers == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Type_get_contents", "the integer "
                              "array holds %d; the type has %d", array_of_integers == NULL
                              ? 0 : max_integers, ni);
    }
    for (int i = 0; i < ni; ++i) {
        array_of_integers[i] = f90[i];
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype mtype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    LOOM_MT_GUARD();
    const char *call = "MPI_Type_get_contents";
    int ni, na, nt, f90[2];
    loom_dt_combiner_t c;

    if (loom_mpi_type_is_valid(mtype) && loom_mpi_dtype_f90_info(mtype, &na, f90, &ni)) {
        return loom_mpi_dtype_f90_contents(f90, ni, max_integers, array_of_integers);
    }
    if (!loom_mpi_type_is_valid(mtype) || mtype->predefined) {
        return loom_mpi_raise(NULL, MPI_ERR_TYPE, call, "datatype %s",
                              loom_mpi_type_is_valid(mtype)
                                  ? "is predefined (MPI_COMBINER_NAMED): it has no contents"
                                  : loom_mpi_type_why(mtype));
    }
    loom_dt_get_envelope(mtype->ldt, &ni, &na, &nt, &c);
    if (max_integers < ni || max_addresses < na || max_datatypes < nt) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "the arrays hold %d/%d/%d "
                              "integers/addresses/datatypes; the type has %d/%d/%d",
                              max_integers, max_addresses, max_datatypes, ni, na, nt);
    }
    if ((ni > 0 && array_of_integers == NULL) || (na > 0 && array_of_addresses == NULL) ||
        (nt > 0 && array_of_datatypes == NULL) || nt != mtype->ninputs) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "an output array is NULL");
    }
    int64_t *ints = malloc((size_t)(ni > 0 ? ni : 1) * sizeof(*ints));
    loom_dt_t **types = malloc((size_t)(nt > 0 ? nt : 1) * sizeof(*types));
    loom_status_t st = ints == NULL || types == NULL ? LOOM_ERR_NO_MEMORY
        : loom_dt_get_contents(mtype->ldt, ni, na, nt, ints, array_of_addresses, types);
    if (st == LOOM_OK) {
        for (int i = 0; i < ni; ++i) {
            array_of_integers[i] = (int)ints[i];
        }
        loom_mpi_dtype_unmap(c, array_of_integers, ni);
        for (int i = 0; i < nt; ++i) {
            loom_dt_release(types[i]);
            array_of_datatypes[i] = loom_mpi_dtype_handout(mtype->inputs[i]);
        }
    }
    free(ints);
    free(types);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(NULL, st, call);
}

/*
 * Give a "base x n" type @p dt made from @p old by MPI_Type_contiguous
 * (@p count) or MPI_Type_dup (@p count < 0) its engine record, for the
 * queries. Returns MPI_SUCCESS or the class raised (dt then has no record).
 */
int loom_mpi_dtype_shadow(MPI_Datatype dt, MPI_Datatype old, int count, const char *call)
{
    loom_dt_t *lold = loom_mpi_type_ldt(old), *ldt = NULL;
    loom_status_t st = lold == NULL ? LOOM_ERR_NO_MEMORY
                       : count < 0 ? loom_dt_create_dup(lold, &ldt)
                                   : loom_dt_create_contiguous(count, lold, &ldt);
    MPI_Datatype *in = st == LOOM_OK ? malloc(sizeof(*in)) : NULL;

    dt->ldt = NULL;
    dt->inputs = NULL;
    dt->ninputs = 0;
    dt->derived = 0;
    dt->noncontig = 0;
    dt->uhandles = 1;
    if (in == NULL) {
        loom_dt_release(ldt);
        return loom_mpi_raise(NULL, st != LOOM_OK ? loom_mpi_class_of(st) : MPI_ERR_NO_MEM,
                              call, "the datatype engine failed: %s",
                              loom_strerror(st != LOOM_OK ? st : LOOM_ERR_NO_MEMORY));
    }
    if (loom_dt_is_committed(lold)) {
        loom_dt_commit(ldt);
    }
    dt->ldt = ldt;
    dt->inputs = in;
    dt->ninputs = 1;
    in[0] = old;
    loom_mpi_type_retain(old);
    dt->ebase = loom_mpi_dtype_ebase_of(old);
    dt->haspair = (uint8_t)loom_mpi_dtype_haspair_of(old);
    return MPI_SUCCESS;
}

/* MPI_Type_dup of a derived type: the engine's dup, same state. */
int loom_mpi_dtype_dup(MPI_Datatype old, MPI_Datatype *newtype, const char *call)
{
    loom_dt_t *ldt = NULL;
    loom_status_t st = loom_dt_create_dup(old->ldt, &ldt);
    int rc = loom_mpi_dtype_finish(st, ldt, &old, 1, call, newtype);

    if (rc == MPI_SUCCESS) {
        (*newtype)->base      = old->base;
        (*newtype)->n         = old->n;
        (*newtype)->committed = old->committed;
        (*newtype)->noncontig = old->noncontig;
    }
    return rc;
}
