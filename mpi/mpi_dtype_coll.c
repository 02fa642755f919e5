/*
 * mpi_dtype_coll.c: blocking collectives with non-contiguous derived
 * datatypes (issue 20), the simplest correct way.
 *
 * Design. A collective whose send or receive type needs packing is run
 * again on "views" of its buffers: a non-contiguous send buffer is packed
 * into a temporary and passed as MPI_PACKED bytes; a non-contiguous
 * receive buffer becomes a temporary of its packed size (filled from the
 * user's buffer first when MPI_IN_PLACE means it holds input too), passed
 * as MPI_PACKED and unpacked into the user's buffer afterwards. The
 * packed stream of (buf, k x count, type) is the concatenation of the k
 * blocks, so a gather's or alltoall's whole receive buffer is one view.
 * The call itself then takes the ordinary byte path (mpi_coll.c), with
 * all its checks. Bytes are what MPI_PACKED and a contiguous type of the
 * same signature move alike, so ranks may mix derived and basic types.
 *
 * Reductions reduce the packed basic elements: the type's elements must
 * all be one non-pair basic type (ebase), the op predefined (a user
 * function would be handed the basic type, not the user's). Anything else
 * is MPI_ERR_TYPE naming the call, as are the nonblocking v-forms and the
 * w-forms (not handled here yet: loom_mpi_type_check refuses the type
 * there). The v-forms pack block by block into a temporary with
 * consecutive byte displacements. The nonblocking forms of bcast, gather,
 * scatter, allgather, alltoall, reduce and allreduce start the inner
 * nonblocking call on the temporaries and return a request wrapping it
 * (mpi_dtype_p2p.c) that unpacks and frees them when it completes.
 */
#include "mpi_int.h"
#include "dt_int.h"

#include <limits.h>
#include <stdlib.h>

/* One buffer argument as the inner call sees it. */
typedef struct loom_mpi_view {
    const void  *ubuf;   /* the user's buffer */
    int          ucount; /* instances of utype it covers */
    MPI_Datatype utype;
    void        *buf;    /* what the inner call gets */
    int          count;
    MPI_Datatype type;
    void        *tmp;    /* owned temporary, or NULL */
} loom_mpi_view_t;

/* Identity view (nothing to pack). */
static void loom_mpi_view_plain(loom_mpi_view_t *v, const void *buf, int count,
                                MPI_Datatype dt)
{
    v->ubuf = buf;
    v->ucount = count;
    v->utype = dt;
    v->buf = (void *)buf;
    v->count = count;
    v->type = dt;
    v->tmp = NULL;
}

/*
 * View of @p k x @p count instances of @p dt at @p buf: packed when dt is
 * non-contiguous (and @p fill: the user's data packed into it, for input).
 */
static int loom_mpi_view(MPI_Comm comm, const void *buf, int k, int count, MPI_Datatype dt,
                         int fill, const char *call, loom_mpi_view_t *v)
{
    size_t bytes;

    loom_mpi_view_plain(v, buf, count, dt);
    if (buf == MPI_IN_PLACE || !loom_mpi_type_noncontig(dt)) {
        return MPI_SUCCESS;
    }
    if (count < 0 || k < 0) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "count %d is negative", count);
    }
    if ((size_t)count * (size_t)k > (size_t)INT_MAX) {   /* ucount is an int, even if empty */
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "%d x %d elements of a "
                              "non-contiguous datatype exceed %d", k, count, INT_MAX);
    }
    if (dt->size != 0 && (size_t)count * (size_t)k > (size_t)INT_MAX / dt->size) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "%d x %d elements of a %zu-byte "
                              "non-contiguous datatype exceed %d packed bytes", k, count,
                              dt->size, INT_MAX);
    }
    bytes = (size_t)k * (size_t)count * dt->size;
    v->ucount = k * count;
    v->tmp = malloc(bytes > 0 ? bytes : 1);
    if (v->tmp == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %zu packed "
                              "bytes", bytes);
    }
    v->buf = v->tmp;
    v->count = (int)((size_t)count * dt->size);
    v->type = MPI_PACKED;
    if (fill && bytes > 0) {
        loom_status_t st = loom_dt_pack_range(buf, (size_t)v->ucount, dt->ldt, 0, bytes,
                                              v->tmp);
        if (st != LOOM_OK) {
            free(v->tmp);
            v->tmp = NULL;
            return loom_mpi_raise_loom(comm, st, call);
        }
    }
    return MPI_SUCCESS;
}

/*
 * An insignificant argument (a non-root's receive side): never touched, but
 * the inner call must not see a non-contiguous type again.
 */
static void loom_mpi_view_unused(loom_mpi_view_t *v)
{
    if (loom_mpi_type_noncontig(v->type)) {
        size_t bytes = (size_t)(v->count > 0 ? v->count : 0) * v->type->size;
        v->count = bytes > INT_MAX ? INT_MAX : (int)bytes;
        v->type = MPI_PACKED;
    }
}

/* Unpack an output view (if the inner call succeeded) and free it. */
static int loom_mpi_view_out(MPI_Comm comm, loom_mpi_view_t *v, int rc, const char *call)
{
    if (v->tmp != NULL && rc == MPI_SUCCESS) {
        rc = loom_mpi_dt_unpack_tmp(comm, (void *)v->ubuf, v->ucount, v->utype, v->tmp,
                                    (size_t)v->ucount * v->utype->size, call);
    }
    free(v->tmp);
    v->tmp = NULL;
    return rc;
}

static void loom_mpi_view_free(loom_mpi_view_t *v)
{
    free(v->tmp);
    v->tmp = NULL;
}

/* The extent of @p dt (displacements of the v-collectives count in it). */
static ptrdiff_t loom_mpi_vext(MPI_Datatype dt)
{
    ptrdiff_t lb, ext;

    loom_dt_get_extent(dt->ldt, &lb, &ext);
    return ext;
}

/* This rank and the size of intracommunicator @p comm (checked by the caller). */
static void loom_mpi_dtc_rank(MPI_Comm comm, int *rank, int *size)
{
    PMPI_Comm_rank(comm, rank);
    PMPI_Comm_size(comm, size);
}

/*
 * Nonblocking: hand the temporaries of inner request @p inner to a wrapping
 * request that unpacks @p rv at completion (mpi_dtype_p2p.c).
 */
static int loom_mpi_dtc_nb(int rc, MPI_Request inner, loom_mpi_view_t *sv, loom_mpi_view_t *rv,
                           MPI_Comm comm, MPI_Request *request, const char *call)
{
    if (rc != MPI_SUCCESS) {
        loom_mpi_view_free(sv);
        loom_mpi_view_free(rv);
        return rc;
    }
    rc = loom_mpi_dt_wrap_coll(inner, rv->tmp, (void *)rv->ubuf, rv->ucount, rv->utype,
                               sv->tmp, comm, request, call);
    sv->tmp = rv->tmp = NULL;
    return rc;
}

int loom_mpi_dtc_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                       MPI_Request *request, const char *call)
{
    loom_mpi_view_t v, none;
    MPI_Request inner = MPI_REQUEST_NULL;
    int rank, size, rc = loom_mpi_comm_live(comm) ? MPI_SUCCESS
                                              : loom_mpi_comm_arg_error(comm, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    loom_mpi_dtc_rank(comm, &rank, &size);
    rc = loom_mpi_view(comm, buf, 1, count, dt, rank == root, call, &v);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request != NULL) {
        loom_mpi_view_plain(&none, NULL, 0, dt);
        rc = PMPI_Ibcast(v.buf, v.count, v.type, root, comm, &inner);
        return rank == root ? loom_mpi_dtc_nb(rc, inner, &v, &none, comm, request, call)
                            : loom_mpi_dtc_nb(rc, inner, &none, &v, comm, request, call);
    }
    rc = PMPI_Bcast(v.buf, v.count, v.type, root, comm);
    return rank == root ? (loom_mpi_view_free(&v), rc) : loom_mpi_view_out(comm, &v, rc, call);
}

/*
 * Gather, scatter, allgather, alltoall: @p sk and @p rk are the numbers of
 * blocks in the send and receive buffers of this rank (0: insignificant).
 */
typedef int (*loom_mpi_dtc_fn_t)(const void *, int, MPI_Datatype, void *, int,
                                 MPI_Datatype, int, MPI_Comm, MPI_Request *);

static int loom_mpi_dtc_run(loom_mpi_dtc_fn_t fn, const void *sbuf, int scount,
                            MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                            int root, MPI_Comm comm, int sk, int rk, MPI_Request *request,
                            const char *call)
{
    loom_mpi_view_t sv, rv;
    MPI_Request inner = MPI_REQUEST_NULL;
    int rc;

    loom_mpi_view_plain(&sv, sbuf, scount, stype);
    loom_mpi_view_plain(&rv, rbuf, rcount, rtype);
    if (sk == 0) {
        loom_mpi_view_unused(&sv);
    }
    if (rk == 0) {
        loom_mpi_view_unused(&rv);
    }
    rc = sk > 0 ? loom_mpi_view(comm, sbuf, sk, scount, stype, 1, call, &sv) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && rk > 0) {
        rc = loom_mpi_view(comm, rbuf, rk, rcount, rtype, sbuf == MPI_IN_PLACE, call, &rv);
    }
    if (rc != MPI_SUCCESS) {
        loom_mpi_view_free(&sv);
        return rc;
    }
    rc = fn(sv.buf, sv.count, sv.type, rv.buf, rv.count, rv.type, root, comm,
            request != NULL ? &inner : NULL);
    if (request != NULL) {
        return loom_mpi_dtc_nb(rc, inner, &sv, &rv, comm, request, call);
    }
    loom_mpi_view_free(&sv);
    return loom_mpi_view_out(comm, &rv, rc, call);
}

static int loom_mpi_dtc_gather_fn(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                                  MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *q)
{
    return q != NULL ? PMPI_Igather(s, sc, st, r, rc, rt, root, comm, q)
                     : PMPI_Gather(s, sc, st, r, rc, rt, root, comm);
}

static int loom_mpi_dtc_scatter_fn(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                                   MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *q)
{
    return q != NULL ? PMPI_Iscatter(s, sc, st, r, rc, rt, root, comm, q)
                     : PMPI_Scatter(s, sc, st, r, rc, rt, root, comm);
}

static int loom_mpi_dtc_allgather_fn(const void *s, int sc, MPI_Datatype st, void *r,
                                     int rc, MPI_Datatype rt, int root, MPI_Comm comm,
                                     MPI_Request *q)
{
    (void)root;
    return q != NULL ? PMPI_Iallgather(s, sc, st, r, rc, rt, comm, q)
                     : PMPI_Allgather(s, sc, st, r, rc, rt, comm);
}

static int loom_mpi_dtc_alltoall_fn(const void *s, int sc, MPI_Datatype st, void *r,
                                    int rc, MPI_Datatype rt, int root, MPI_Comm comm,
                                    MPI_Request *q)
{
    (void)root;
    return q != NULL ? PMPI_Ialltoall(s, sc, st, r, rc, rt, comm, q)
                     : PMPI_Alltoall(s, sc, st, r, rc, rt, comm);
}

/* The four regular data movers; @p which: 'g'ather, 's'catter, 'a'llgather, 't'oall. */
int loom_mpi_dtc_move(int which, const void *sbuf, int scount, MPI_Datatype stype,
                      void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                      MPI_Request *request, const char *call)
{
    int rank, size, is_root;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    loom_mpi_dtc_rank(comm, &rank, &size);
    is_root = rank == root;
    switch (which) {
    case 'g':
        return loom_mpi_dtc_run(loom_mpi_dtc_gather_fn, sbuf, scount, stype, rbuf, rcount,
                                rtype, root, comm, 1, is_root ? size : 0, request, call);
    case 's':
        /* the root's MPI_IN_PLACE is its recvbuf: nothing to receive there */
        return loom_mpi_dtc_run(loom_mpi_dtc_scatter_fn, sbuf, scount, stype, rbuf, rcount,
                                rtype, root, comm, is_root ? size : 0,
                                rbuf == MPI_IN_PLACE ? 0 : 1, request, call);
    case 'a':
        return loom_mpi_dtc_run(loom_mpi_dtc_allgather_fn, sbuf, scount, stype, rbuf,
                                rcount, rtype, root, comm, 1, size, request, call);
    default:
        return loom_mpi_dtc_run(loom_mpi_dtc_alltoall_fn, sbuf, scount, stype, rbuf, rcount,
                                rtype, root, comm, size, size, request, call);
    }
}

/* The MPI handle of the basic type all of @p dt's elements are, for a reduction. */
static int loom_mpi_dtc_red_type(MPI_Comm comm, MPI_Datatype dt, MPI_Op op, const char *call,
                                 MPI_Datatype *basic_p)
{
    MPI_Datatype b = dt->ebase >= 0 ? loom_mpi_type_of_base((loom_datatype_t)dt->ebase)
                                    : MPI_DATATYPE_NULL;

    if (b == MPI_DATATYPE_NULL || (b->base >= LOOM_FLOAT_INT &&
                                   b->base <= LOOM_LONG_DOUBLE_INT)) {
        return loom_mpi_raise(comm, MPI_ERR_TYPE, call, "the non-contiguous datatype mixes "
                              "basic types or holds value+index pairs: reductions on it are "
                              "not supported yet");
    }
    if (op == MPI_OP_NULL || op->magic != LOOM_MPI_OP_MAGIC || !op->predefined) {
        return loom_mpi_raise(comm, MPI_ERR_TYPE, call, "only predefined operations reduce "
                              "non-contiguous datatypes (the op is %s)",
                              op != MPI_OP_NULL && op->magic == LOOM_MPI_OP_MAGIC
                                  ? "a user op" : "not an operation");
    }
    *basic_p = b;
    return MPI_SUCCESS;
}

/* Reduce to @p root, or allreduce (@p all), on the packed basic elements. */
int loom_mpi_dtc_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        int all, int root, MPI_Comm comm, MPI_Request *request,
                        const char *call)
{
    loom_mpi_view_t sv, rv;
    MPI_Request inner = MPI_REQUEST_NULL;
    MPI_Datatype b = MPI_DATATYPE_NULL;
    int rank = 0, size, rc, n, want_r;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    loom_mpi_dtc_rank(comm, &rank, &size);
    if ((rc = loom_mpi_dtc_red_type(comm, dt, op, call, &b)) != MPI_SUCCESS) {
        return rc;
    }
    want_r = all || rank == root;
    /* in place: the input is in recvbuf */
    rc = loom_mpi_view(comm, sbuf == MPI_IN_PLACE ? rbuf : sbuf, 1, count, dt, 1, call, &sv);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    loom_mpi_view_plain(&rv, rbuf, count, dt);
    loom_mpi_view_unused(&rv);
    if (want_r && (rc = loom_mpi_view(comm, rbuf, 1, count, dt, 0, call, &rv)) != 0) {
        loom_mpi_view_free(&sv);
        return rc;
    }
    n = (int)((size_t)count * dt->size / loom_datatype_size(b->base));
    if (request != NULL) {
        rc = all ? PMPI_Iallreduce(sv.buf, rv.buf, n, b, op, comm, &inner)
                 : PMPI_Ireduce(sv.buf, want_r ? rv.buf : NULL, n, b, op, root, comm, &inner);
        if (!want_r) {
            rv.tmp = NULL;
        }
        return loom_mpi_dtc_nb(rc, inner, &sv, &rv, comm, request, call);
    }
    rc = all ? PMPI_Allreduce(sv.buf, rv.buf, n, b, op, comm)
             : PMPI_Reduce(sv.buf, want_r ? rv.buf : NULL, n, b, op, root, comm);
    loom_mpi_view_free(&sv);
    return loom_mpi_view_out(comm, &rv, rc, call);
}

/* ---- v-collectives ------------------------------------------------------------------ */

/*
 * A buffer with per-rank counts and displacements (in extents of dt): as a
 * packed temporary with byte counts and consecutive byte displacements
 * when dt is non-contiguous (and @p fill: the blocks packed into it).
 */
typedef struct loom_mpi_vview {
    void        *ubuf;
    const int   *ucounts, *udispls;
    MPI_Datatype utype;
    int          n;
    void        *buf;
    const int   *counts, *displs;
    MPI_Datatype type;
    void        *tmp;
    int         *arr;     /* counts then displs of the packed form */
} loom_mpi_vview_t;

static void loom_mpi_vview_free(loom_mpi_vview_t *v)
{
    free(v->tmp);
    free(v->arr);
    v->tmp = NULL;
    v->arr = NULL;
}

/* Pack (@p unpack 0) or unpack block i of @p v between the user buffer and tmp. */
static loom_status_t loom_mpi_vview_block(loom_mpi_vview_t *v, int i, int unpack)
{
    char *ub = (char *)v->ubuf + (ptrdiff_t)v->udispls[i] * loom_mpi_vext(v->utype);
    size_t bytes = (size_t)v->counts[i];
    char *tb = (char *)v->tmp + v->displs[i];

    return unpack ? loom_dt_unpack_range(ub, (size_t)v->ucounts[i], v->utype->ldt, 0, bytes,
                                         tb)
                  : loom_dt_pack_range(ub, (size_t)v->ucounts[i], v->utype->ldt, 0, bytes,
                                       tb);
}

static int loom_mpi_vview(MPI_Comm comm, void *buf, int n, const int counts[],
                          const int displs[], MPI_Datatype dt, int fill, const char *call,
                          loom_mpi_vview_t *v)
{
    size_t total = 0;

    *v = (loom_mpi_vview_t){ .ubuf = buf, .ucounts = counts, .udispls = displs, .utype = dt,
                             .n = n, .buf = buf, .counts = counts, .displs = displs,
                             .type = dt };
    if (buf == MPI_IN_PLACE || !loom_mpi_type_noncontig(dt)) {
        return MPI_SUCCESS;
    }
    if (counts == NULL || displs == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "counts or displacements are NULL");
    }
    for (int i = 0; i < n; ++i) {
        if (counts[i] < 0) {
            return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "count[%d] = %d is negative", i,
                                  counts[i]);
        }
        /* each term checked by division: total stays <= INT_MAX, never wraps */
        if (dt->size != 0 && (size_t)counts[i] > ((size_t)INT_MAX - total) / dt->size) {
            return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "count[%d] = %d elements of a "
                                  "%zu-byte non-contiguous datatype take the packed bytes "
                                  "past %d", i, counts[i], dt->size, INT_MAX);
        }
        total += (size_t)counts[i] * dt->size;
    }
    v->arr = malloc(2 * (size_t)(n > 0 ? n : 1) * sizeof(int));
    v->tmp = malloc(total > 0 ? total : 1);
    if (v->arr == NULL || v->tmp == NULL) {
        loom_mpi_vview_free(v);
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %zu packed "
                              "bytes", total);
    }
    total = 0;
    for (int i = 0; i < n; ++i) {
        v->arr[i] = (int)((size_t)counts[i] * dt->size);
        v->arr[n + i] = (int)total;
        total += (size_t)v->arr[i];
    }
    v->buf = v->tmp;
    v->counts = v->arr;
    v->displs = v->arr + n;
    v->type = MPI_PACKED;
    for (int i = 0; fill && i < n; ++i) {
        loom_status_t st = loom_mpi_vview_block(v, i, 0);
        if (st != LOOM_OK) {
            loom_mpi_vview_free(v);
            return loom_mpi_raise_loom(comm, st, call);
        }
    }
    return MPI_SUCCESS;
}

static int loom_mpi_vview_out(MPI_Comm comm, loom_mpi_vview_t *v, int rc, const char *call)
{
    for (int i = 0; v->tmp != NULL && rc == MPI_SUCCESS && i < v->n; ++i) {
        loom_status_t st = loom_mpi_vview_block(v, i, 1);
        if (st != LOOM_OK) {
            rc = loom_mpi_raise_loom(comm, st, call);
        }
    }
    loom_mpi_vview_free(v);
    return rc;
}

/* Gatherv ('g'), allgatherv ('a'): a plain send side, a v receive side. */
int loom_mpi_dtc_gatherv(int which, const void *sbuf, int scount, MPI_Datatype stype,
                         void *rbuf, const int rcounts[], const int rdispls[],
                         MPI_Datatype rtype, int root, MPI_Comm comm, const char *call)
{
    loom_mpi_view_t sv;
    loom_mpi_vview_t rv;
    int rank, size, rc, want_r;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    loom_mpi_dtc_rank(comm, &rank, &size);
    want_r = which == 'a' || rank == root;
    if ((rc = loom_mpi_view(comm, sbuf, 1, scount, stype, 1, call, &sv)) != MPI_SUCCESS) {
        return rc;
    }
    rc = loom_mpi_vview(comm, want_r ? rbuf : MPI_IN_PLACE, size, rcounts, rdispls, rtype,
                        sbuf == MPI_IN_PLACE, call, &rv);
    if (rc != MPI_SUCCESS) {
        loom_mpi_view_free(&sv);
        return rc;
    }
    if (!want_r) {
        rv.buf = rbuf;
        rv.type = loom_mpi_type_noncontig(rtype) ? MPI_PACKED : rtype;
    }
    rc = which == 'a' ? PMPI_Allgatherv(sv.buf, sv.count, sv.type, rv.buf, rv.counts,
                                        rv.displs, rv.type, comm)
                      : PMPI_Gatherv(sv.buf, sv.count, sv.type, rv.buf, rv.counts,
                                     rv.displs, rv.type, root, comm);
    loom_mpi_view_free(&sv);
    return loom_mpi_vview_out(comm, &rv, rc, call);
}

int loom_mpi_dtc_scatterv(const void *sbuf, const int scounts[], const int sdispls[],
                          MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                          int root, MPI_Comm comm, const char *call)
{
    loom_mpi_vview_t sv;
    loom_mpi_view_t rv;
    int rank, size, rc;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    loom_mpi_dtc_rank(comm, &rank, &size);
    rc = loom_mpi_vview(comm, rank == root ? (void *)sbuf : MPI_IN_PLACE, size, scounts,
                        sdispls, stype, 1, call, &sv);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank != root) {
        sv.buf = (void *)sbuf;
        sv.type = loom_mpi_type_noncontig(stype) ? MPI_PACKED : stype;
    }
    if ((rc = loom_mpi_view(comm, rbuf, 1, rcount, rtype, 0, call, &rv)) != MPI_SUCCESS) {
        loom_mpi_vview_free(&sv);
        return rc;
    }
    rc = PMPI_Scatterv(sv.buf, sv.counts, sv.displs, sv.type, rv.buf, rv.count, rv.type,
                       root, comm);
    loom_mpi_vview_free(&sv);
    return loom_mpi_view_out(comm, &rv, rc, call);
}

int loom_mpi_dtc_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                           MPI_Datatype stype, void *rbuf, const int rcounts[],
                           const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    const char *call = "MPI_Alltoallv";
    loom_mpi_vview_t sv, rv;
    int rank, size, rc;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    loom_mpi_dtc_rank(comm, &rank, &size);
    rc = loom_mpi_vview(comm, (void *)sbuf, size, scounts, sdispls, stype, 1, call, &sv);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = loom_mpi_vview(comm, rbuf, size, rcounts, rdispls, rtype, sbuf == MPI_IN_PLACE,
                        call, &rv);
    if (rc != MPI_SUCCESS) {
        loom_mpi_vview_free(&sv);
        return rc;
    }
    rc = PMPI_Alltoallv(sv.buf, sv.counts, sv.displs, sv.type, rv.buf, rv.counts, rv.displs,
                        rv.type, comm);
    loom_mpi_vview_free(&sv);
    return loom_mpi_vview_out(comm, &rv, rc, call);
}
