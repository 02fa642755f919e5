/*
 * mpi_dtype_red.c: reductions on non-contiguous derived datatypes (issue
 * 20): reduce, allreduce, reduce_scatter(_block), scan, exscan, their
 * nonblocking forms, the intercommunicator ones, and MPI_Reduce_local.
 *
 * Design. As the data movers (mpi_dtype_coll.c), a reduction is run again
 * on converted sides (one block each: the whole send or receive buffer),
 * with an inner datatype and op chosen by the op:
 *
 *  - a predefined op reduces the basic elements underneath: the type's
 *    elements must all be one basic type (dt->ebase), the side is the
 *    packed stream and the inner type that basic type (count: packed bytes
 *    / its size). A type whose elements are all one value+index pair is
 *    expanded to the pair's C struct (mpi_dtype_coll.c), the inner type is
 *    the basic pair type, so MINLOC/MAXLOC work on it. A type mixing basic
 *    types is MPI_ERR_TYPE (MPI defines predefined ops per basic type).
 *  - a user op (MPI_Op_create) must see the user's datatype and whole
 *    elements: the side is the "layout" form, count x extent bytes laid
 *    out as the type (gaps included, zero), the inner type MPI_BYTE, and
 *    the inner op a stack proxy of the user op bound to (op, dt) with an
 *    element unit of one extent (loom_mpi_op_resolve_layout, mpi_op.c), so
 *    loom's algorithms never cut an element and the trampoline calls the
 *    function with the user's handle, element origins (tmp - true lb) and
 *    a count of elements, operand order kept for non-commutative ops
 *    (loom's algorithms honour the op's commute flag). This needs the data
 *    of one element within one extent (true extent <= extent, extent > 0);
 *    other types are MPI_ERR_TYPE with a user op.
 *
 * MPI_IN_PLACE: the receive side is filled from recvbuf and the inner call
 * gets MPI_IN_PLACE. Reduce_scatter(_block) in place read all of recvbuf
 * and write back only this rank's block; exscan leaves rank 0's recvbuf
 * untouched (MPI leaves it undefined).
 */
#include "mpi_int.h"
#include "dt_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The inner form of a reduction on @p dt with @p op. */
typedef struct loom_mpi_dtr_form {
    int              layout;
    MPI_Datatype     type;    /* inner datatype */
    size_t           esize;   /* bytes of one inner element */
    struct loom_mpi_op proxy; /* user op bound to dt (layout) */
    MPI_Op           op;      /* what the inner call gets */
} loom_mpi_dtr_form_t;

/* A user op's form: dt laid out, whole elements of one extent. */
static int loom_mpi_dtr_layout(MPI_Comm comm, MPI_Datatype dt, MPI_Op op, const char *call,
                               loom_mpi_dtr_form_t *f)
{
    ptrdiff_t lb, ext, tlb, text;
    loom_op_t lop;
    int rc;

    loom_dt_get_extent(dt->ldt, &lb, &ext);
    loom_dt_get_true_extent(dt->ldt, &tlb, &text);
    if (ext <= 0 || text > ext) {
        return loom_mpi_raise(comm, MPI_ERR_TYPE, call, "a user operation needs each element "
                              "of the derived datatype within its extent (extent %td, true "
                              "extent %td)", ext, text);
    }
    if ((rc = loom_mpi_op_resolve_layout(op, dt, &lop)) != MPI_SUCCESS) {
        return loom_mpi_raise(comm, rc, call, "binding the user operation to the derived "
                              "datatype failed");
    }
    f->layout = 1;
    f->type = MPI_BYTE;
    f->esize = 1;
    f->proxy = (struct loom_mpi_op){ .magic = LOOM_MPI_OP_MAGIC, .op = lop,
                                     .commute = op->commute, .predefined = 1,
                                     .name = "user" };
    f->op = &f->proxy;
    return MPI_SUCCESS;
}

static int loom_mpi_dtr_form(MPI_Comm comm, MPI_Datatype dt, MPI_Op op, const char *call,
                             loom_mpi_dtr_form_t *f)
{
    MPI_Datatype b;

    memset(f, 0, sizeof(*f));
    if (op == MPI_OP_NULL || op->magic != LOOM_MPI_OP_MAGIC) {
        return loom_mpi_raise(comm, MPI_ERR_OP, call, "%p is not an operation", (void *)op);
    }
    if (!op->predefined) {
        return loom_mpi_dtr_layout(comm, dt, op, call, f);
    }
    b = dt->ebase >= 0 ? loom_mpi_type_of_base((loom_datatype_t)dt->ebase) : MPI_DATATYPE_NULL;
    if (b == MPI_DATATYPE_NULL) {
        return loom_mpi_raise(comm, MPI_ERR_TYPE, call, "%s on a derived datatype whose "
                              "elements are not all one basic type", op->name);
    }
    f->type = b;
    f->esize = loom_mpi_type_extent(b);   /* a pair: its C struct, as expanded */
    f->op = op;
    return MPI_SUCCESS;
}

/* Side of @p count elements of @p dt at @p buf (one block), in form @p f. */
static int loom_mpi_dtr_side(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                             const loom_mpi_dtr_form_t *f, int fill, const char *call,
                             loom_mpi_dtside_t *s)
{
    loom_mpi_dtblk_t b = { (char *)(uintptr_t)buf, count, dt };

    return loom_mpi_dts_make(comm, &b, 1, f->layout, fill, call, s);
}

/* Inner elements of @p count user elements. */
static int loom_mpi_dtr_n(const loom_mpi_dtr_form_t *f, MPI_Datatype dt, int count)
{
    ptrdiff_t lb, ext;

    if (f->layout) {
        loom_dt_get_extent(dt->ldt, &lb, &ext);
        return (int)((size_t)count * (size_t)ext);
    }
    if (dt->haspair) {   /* pairs: the packed pair is the pair type's size */
        return (int)((size_t)count * (dt->size / f->type->size));
    }
    return (int)((size_t)count * dt->size / f->esize);
}

/* The total elements of the send side and this rank's share of the result. */
static int loom_mpi_dtr_counts(MPI_Comm comm, loom_mpi_dtr_kind_t kind, int count,
                               const int rcounts[], const char *call, int *total_p,
                               int *mine_p)
{
    int size, rank;
    long long total = 0;

    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    *total_p = *mine_p = count;
    if (kind == LOOM_MPI_DTR_RSB) {
        total = (long long)count * size;
    } else if (kind == LOOM_MPI_DTR_RS) {
        if (rcounts == NULL) {
            return loom_mpi_raise(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
        }
        for (int i = 0; i < size; ++i) {
            if (rcounts[i] < 0) {
                return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "recvcounts[%d] = %d is "
                                      "negative", i, rcounts[i]);
            }
            total += rcounts[i];
        }
        *mine_p = rcounts[rank];
    } else {
        return MPI_SUCCESS;
    }
    if (total > INT_MAX) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "%lld elements in all exceed %d",
                              total, INT_MAX);
    }
    *total_p = (int)total;
    return MPI_SUCCESS;
}

/* Start the inner reduction of @p kind on the converted sides. */
static int loom_mpi_dtr_inner(loom_mpi_dtr_kind_t kind, const void *sb, void *rb, int n,
                              const int *ncounts, const loom_mpi_dtr_form_t *f, int root,
                              MPI_Comm comm, MPI_Request *q)
{
    switch (kind) {
    case LOOM_MPI_DTR_REDUCE:
        return q ? PMPI_Ireduce(sb, rb, n, f->type, f->op, root, comm, q)
                 : PMPI_Reduce(sb, rb, n, f->type, f->op, root, comm);
    case LOOM_MPI_DTR_ALLREDUCE:
        return q ? PMPI_Iallreduce(sb, rb, n, f->type, f->op, comm, q)
                 : PMPI_Allreduce(sb, rb, n, f->type, f->op, comm);
    case LOOM_MPI_DTR_RSB:
        return q ? PMPI_Ireduce_scatter_block(sb, rb, n, f->type, f->op, comm, q)
                 : PMPI_Reduce_scatter_block(sb, rb, n, f->type, f->op, comm);
    case LOOM_MPI_DTR_RS:
        return q ? PMPI_Ireduce_scatter(sb, rb, ncounts, f->type, f->op, comm, q)
                 : PMPI_Reduce_scatter(sb, rb, ncounts, f->type, f->op, comm);
    case LOOM_MPI_DTR_SCAN:
        return q ? PMPI_Iscan(sb, rb, n, f->type, f->op, comm, q)
                 : PMPI_Scan(sb, rb, n, f->type, f->op, comm);
    default:
        return q ? PMPI_Iexscan(sb, rb, n, f->type, f->op, comm, q)
                 : PMPI_Exscan(sb, rb, n, f->type, f->op, comm);
    }
}

/* Which sides this rank has: send input, receive output. */
static void loom_mpi_dtr_roles(loom_mpi_dtr_kind_t kind, MPI_Comm comm, int root,
                               int *want_s, int *want_r)
{
    int rank;

    *want_s = *want_r = 1;
    if (kind != LOOM_MPI_DTR_REDUCE) {
        return;
    }
    if (loom_comm_is_inter(comm->comm)) {
        *want_s = root != MPI_ROOT && root != MPI_PROC_NULL;
        *want_r = root == MPI_ROOT;
        return;
    }
    PMPI_Comm_rank(comm, &rank);
    *want_r = rank == root;
}

/* reduce_scatter's inner counts (@p ncounts: one per rank of the group). */
static int *loom_mpi_dtr_ncounts(MPI_Comm comm, loom_mpi_dtr_kind_t kind, const int rcounts[],
                                 MPI_Datatype dt, const loom_mpi_dtr_form_t *f,
                                 const char *call)
{
    int size, *nc;

    if (kind != LOOM_MPI_DTR_RS) {
        return NULL;
    }
    PMPI_Comm_size(comm, &size);
    if ((nc = malloc((size_t)size * sizeof(int))) == NULL) {
        loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %d counts", size);
        return NULL;
    }
    for (int i = 0; i < size; ++i) {
        nc[i] = loom_mpi_dtr_n(f, dt, rcounts[i]);
    }
    return nc;
}

int loom_mpi_dtr(loom_mpi_dtr_kind_t kind, const void *sbuf, void *rbuf, int count,
                 const int rcounts[], MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                 MPI_Request *request, const char *call)
{
    loom_mpi_dtr_form_t f;
    loom_mpi_dtside_t sv, rv;
    MPI_Request inner = MPI_REQUEST_NULL;
    int rc, total, mine, want_s, want_r, rank, in_place = sbuf == MPI_IN_PLACE, *nc = NULL;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    if ((rc = loom_mpi_dtr_form(comm, dt, op, call, &f)) != MPI_SUCCESS ||
        (rc = loom_mpi_dtr_counts(comm, kind, count, rcounts, call, &total, &mine)) != 0) {
        return rc;
    }
    if (count < 0) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "count %d is negative", count);
    }
    loom_mpi_dtr_roles(kind, comm, root, &want_s, &want_r);
    memset(&sv, 0, sizeof(sv));
    memset(&rv, 0, sizeof(rv));
    rc = want_s && !in_place ? loom_mpi_dtr_side(comm, sbuf, total, dt, &f, 1, call, &sv)
                             : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && want_r) {
        rc = loom_mpi_dtr_side(comm, rbuf, in_place ? total : mine, dt, &f, in_place, call,
                               &rv);
    }
    if (rc == MPI_SUCCESS && kind == LOOM_MPI_DTR_RS &&
        (nc = loom_mpi_dtr_ncounts(comm, kind, rcounts, dt, &f, call)) == NULL) {
        rc = MPI_ERR_NO_MEM;
    }
    if (rc != MPI_SUCCESS) {
        loom_mpi_dts_free(&sv);
        loom_mpi_dts_free(&rv);
        return rc;
    }
    rc = loom_mpi_dtr_inner(kind, in_place ? MPI_IN_PLACE : (const void *)sv.tmp,
                            want_r ? (void *)rv.tmp : rbuf,
                            loom_mpi_dtr_n(&f, dt, kind == LOOM_MPI_DTR_RS ? 0 : count), nc,
                            &f, root, comm, request != NULL ? &inner : NULL);
    free(nc);
    if (rv.blk != NULL) {
        rv.blk[0].count = mine;   /* in place: only this rank's result goes back */
        PMPI_Comm_rank(comm, &rank);
        if (kind == LOOM_MPI_DTR_EXSCAN && rank == 0) {
            rv.n = 0;   /* undefined at rank 0: left as the user had it */
        }
    }
    if (request != NULL) {
        return loom_mpi_dts_wrap(rc, inner, &sv, &rv, comm, request, call);
    }
    loom_mpi_dts_free(&sv);
    return loom_mpi_dts_out(comm, &rv, rc, call);
}

int loom_mpi_dtr_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt,
                       MPI_Op op)
{
    const char *call = "MPI_Reduce_local";
    loom_mpi_dtr_form_t f;
    loom_mpi_dtside_t iv, ov;
    int rc = loom_mpi_dtr_form(NULL, dt, op, call, &f);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (count < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_COUNT, call, "count %d is negative", count);
    }
    if ((rc = loom_mpi_dtr_side(NULL, inbuf, count, dt, &f, 1, call, &iv)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = loom_mpi_dtr_side(NULL, inoutbuf, count, dt, &f, 1, call, &ov)) != 0) {
        loom_mpi_dts_free(&iv);
        return rc;
    }
    rc = PMPI_Reduce_local(iv.tmp, ov.tmp, loom_mpi_dtr_n(&f, dt, count), f.type, f.op);
    loom_mpi_dts_free(&iv);
    return loom_mpi_dts_out(NULL, &ov, rc, call);
}
