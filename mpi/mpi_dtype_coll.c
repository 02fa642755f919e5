/*
 * mpi_dtype_coll.c: collectives with non-contiguous derived datatypes
 * (issue 20), the simplest correct way: every data-moving collective,
 * blocking and nonblocking, intra- and intercommunicator, v- and w-forms
 * and the neighbourhood ones (their block lists come from mpi_topo_nbr.c).
 * Reductions are in mpi_dtype_red.c, on the same sides.
 *
 * Design. A call whose send or receive side holds a type that needs
 * conversion (loom_mpi_type_coll_nc) is run again on "sides": the side's
 * blocks (count x type at an address each: one per peer for a v/w-form,
 * or one per rank of a regular call) are copied one after the other into
 * a temporary in an inner form, and the inner call moves that temporary
 * as MPI_BYTE with byte counts and consecutive byte displacements, so the
 * ordinary byte path (mpi_coll.c, mpi_collv.c, mpi_intercomm.c, ...) does
 * every check and every algorithm. A receive side is filled first only
 * where MPI_IN_PLACE means it holds input too, and is unpacked into the
 * user's blocks when the inner call has succeeded.
 *
 * Inner forms, per block: a contiguous type is its bytes (count x
 * extent); a non-contiguous type is the engine's packed stream (count x
 * size bytes), except that a type whose basic elements are all one
 * value+index pair (MPI_DOUBLE_INT...) has each pair expanded into the C
 * struct the basic pair type moves (16 bytes for MPI_DOUBLE_INT, where the
 * engine packs 12), so a vector of MPI_DOUBLE_INT on one rank matches
 * MPI_DOUBLE_INT x n on another and MINLOC/MAXLOC reduce it. A type mixing
 * different pair types is refused with MPI_ERR_TYPE. The "layout" form is
 * for user ops (mpi_dtype_red.c): count x extent bytes laid out as the
 * type (gaps included), so the user function gets whole elements.
 * Bytes are what a contiguous type of the same signature moves too, so
 * send and receive types may differ as MPI allows (signatures, not
 * layouts, must match).
 *
 * Roles: on an intracommunicator a rooted call's root has both sides (its
 * own block in the receive side), on an intercommunicator MPI_ROOT has
 * only the receive (gather) or send (scatter, bcast) side, the remote
 * group only the other, MPI_PROC_NULL none; the blocks of a receive side
 * number the remote group there. An insignificant side is passed as
 * (buf, 0, MPI_BYTE). MPI_IN_PLACE is passed through to the inner call
 * (which rejects it where MPI does, e.g. on an intercommunicator).
 *
 * Nonblocking forms start the inner nonblocking call on the temporaries
 * and return a generic request of our own (loom_mpi_dts_wrap) whose
 * progress, once the inner request is complete, frees the inner request
 * through MPI_Request_free (so any side storage the inner v-call attached
 * is reaped the ordinary way), unpacks the receive side, and keeps the
 * user's datatypes retained until then.
 */
#include "mpi_int.h"
#include "dt_int.h"
#include "p2p_int.h"
#include "request_int.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int loom_mpi_types_coll_nc(int n, const MPI_Datatype types[])
{
    for (int i = 0; types != NULL && i < n; ++i) {
        if (loom_mpi_type_coll_nc(types[i])) {
            return 1;
        }
    }
    return 0;
}

/* ---- pairs -------------------------------------------------------------------------- */

/* The C struct of a value+index pair: its extent and the index's offset. */
struct loom_mpi_p_fi { float v; int i; };
struct loom_mpi_p_di { double v; int i; };
struct loom_mpi_p_li { long v; int i; };
struct loom_mpi_p_ii { int v; int i; };
struct loom_mpi_p_si { short v; int i; };
struct loom_mpi_p_ldi { long double v; int i; };

typedef struct loom_mpi_pair {
    size_t ext, ioff, vsize;   /* vsize: bytes of the value in the packed stream */
} loom_mpi_pair_t;

/* The pair all of @p dt's basic elements are; 0 (and MPI_ERR_TYPE raised by the caller) if none. */
static int loom_mpi_pair_of(MPI_Datatype dt, loom_mpi_pair_t *p)
{
    MPI_Datatype b;

#define LOOM_MPI_PAIR_(base, s)                                                        \
    case base: p->ext = sizeof(struct s); p->ioff = offsetof(struct s, i); break;
    switch (dt->ebase) {
    LOOM_MPI_PAIR_(LOOM_FLOAT_INT, loom_mpi_p_fi)
    LOOM_MPI_PAIR_(LOOM_DOUBLE_INT, loom_mpi_p_di)
    LOOM_MPI_PAIR_(LOOM_LONG_INT, loom_mpi_p_li)
    LOOM_MPI_PAIR_(LOOM_2INT, loom_mpi_p_ii)
    LOOM_MPI_PAIR_(LOOM_SHORT_INT, loom_mpi_p_si)
    LOOM_MPI_PAIR_(LOOM_LONG_DOUBLE_INT, loom_mpi_p_ldi)
    default:
        return 0;
    }
#undef LOOM_MPI_PAIR_
    b = loom_mpi_type_of_base((loom_datatype_t)dt->ebase);
    if (b == MPI_DATATYPE_NULL || b->size <= sizeof(int) ||
        b->size - sizeof(int) > p->ioff) {
        return 0;
    }
    p->vsize = b->size - sizeof(int);
    return 1;
}

/* Expand @p n packed pairs stored at the end of @p buf into C structs from its start. */
static void loom_mpi_pair_expand(char *buf, size_t n, const loom_mpi_pair_t *p)
{
    size_t psize = p->vsize + sizeof(int);
    const char *src = buf + n * (p->ext - psize);
    char one[64];

    for (size_t i = 0; i < n; ++i) {   /* writes stay behind the unread packed pairs */
        memset(one, 0, p->ext);
        memcpy(one, src + i * psize, p->vsize);
        memcpy(one + p->ioff, src + i * psize + p->vsize, sizeof(int));
        memcpy(buf + i * p->ext, one, p->ext);
    }
}

/* The reverse, in place from the start. */
static void loom_mpi_pair_contract(char *buf, size_t n, const loom_mpi_pair_t *p)
{
    size_t psize = p->vsize + sizeof(int);
    char one[64];

    for (size_t i = 0; i < n; ++i) {
        memcpy(one, buf + i * p->ext, p->ext);
        memcpy(buf + i * psize, one, p->vsize);
        memcpy(buf + i * psize + p->vsize, one + p->ioff, sizeof(int));
    }
}

/* ---- one block ---------------------------------------------------------------------- */

static ptrdiff_t loom_mpi_dtc_ext(MPI_Datatype dt)
{
    ptrdiff_t lb, ext;

    if (dt->ldt == NULL) {
        return (ptrdiff_t)loom_mpi_type_extent(dt);
    }
    loom_dt_get_extent(dt->ldt, &lb, &ext);
    return ext;
}

/* Inner bytes of one element of @p dt (0 with the class in *rc_p if it cannot move). */
static size_t loom_mpi_blk_unit(MPI_Comm comm, MPI_Datatype dt, int layout, const char *call,
                                int *rc_p)
{
    loom_mpi_pair_t p;

    *rc_p = loom_mpi_type_check_any(dt, 0);
    if (*rc_p != MPI_SUCCESS) {
        *rc_p = loom_mpi_raise(comm, *rc_p, call, "a datatype %s", loom_mpi_type_why(dt));
        return 0;
    }
    if (!dt->noncontig) {
        return loom_mpi_type_extent(dt);
    }
    if (layout) {
        return (size_t)loom_mpi_dtc_ext(dt);
    }
    if (!dt->haspair) {
        return dt->size;
    }
    if (!loom_mpi_pair_of(dt, &p)) {
        *rc_p = loom_mpi_raise(comm, MPI_ERR_TYPE, call, "a non-contiguous datatype mixes "
                               "value+index pair types with other types; collectives move "
                               "only types whose basic elements are all one pair type");
        return 0;
    }
    return dt->size / (p.vsize + sizeof(int)) * p.ext;
}

/* Copy (b->buf, count, dt) to or from (@p to_user) @p base laid out as the type. */
static loom_status_t loom_mpi_blk_layout(const loom_mpi_dtblk_t *b, char *tmp, int to_user)
{
    ptrdiff_t tlb, text;
    size_t bytes = (size_t)b->count * b->dt->size;
    char *scratch = malloc(bytes > 0 ? bytes : 1);
    char *base;
    loom_status_t st;

    if (scratch == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    loom_dt_get_true_extent(b->dt->ldt, &tlb, &text);
    base = tmp - tlb;   /* the element's origin: its first data byte lands at tmp */
    st = loom_dt_pack_range(to_user ? base : b->buf, (size_t)b->count, b->dt->ldt, 0, bytes,
                            scratch);
    if (st == LOOM_OK) {
        st = loom_dt_unpack_range(to_user ? b->buf : base, (size_t)b->count, b->dt->ldt, 0,
                                  bytes, scratch);
    }
    free(scratch);
    return st;
}

/* User block -> inner form at @p tmp (@p bytes of it). */
static loom_status_t loom_mpi_blk_in(const loom_mpi_dtblk_t *b, char *tmp, size_t bytes,
                                     int layout)
{
    loom_mpi_pair_t p;
    size_t packed = (size_t)b->count * b->dt->size;
    loom_status_t st;

    if (b->count == 0 || bytes == 0) {
        return LOOM_OK;
    }
    if (!b->dt->noncontig) {
        memcpy(tmp, b->buf, bytes);
        return LOOM_OK;
    }
    if (layout) {
        return loom_mpi_blk_layout(b, tmp, 0);
    }
    if (!b->dt->haspair || !loom_mpi_pair_of(b->dt, &p)) {
        return loom_dt_pack_range(b->buf, (size_t)b->count, b->dt->ldt, 0, packed, tmp);
    }
    st = loom_dt_pack_range(b->buf, (size_t)b->count, b->dt->ldt, 0, packed,
                            tmp + (bytes - packed));
    if (st == LOOM_OK) {
        loom_mpi_pair_expand(tmp, packed / (p.vsize + sizeof(int)), &p);
    }
    return st;
}

/* Inner form at @p tmp -> user block (tmp is scratch afterwards). */
static loom_status_t loom_mpi_blk_out(const loom_mpi_dtblk_t *b, char *tmp, size_t bytes,
                                      int layout)
{
    loom_mpi_pair_t p;
    size_t packed = (size_t)b->count * b->dt->size;

    if (b->count == 0 || bytes == 0) {
        return LOOM_OK;
    }
    if (!b->dt->noncontig) {
        memcpy(b->buf, tmp, bytes);
        return LOOM_OK;
    }
    if (layout) {
        return loom_mpi_blk_layout(b, tmp, 1);
    }
    if (b->dt->haspair && loom_mpi_pair_of(b->dt, &p)) {
        loom_mpi_pair_contract(tmp, packed / (p.vsize + sizeof(int)), &p);
    }
    return loom_dt_unpack_range(b->buf, (size_t)b->count, b->dt->ldt, 0, packed, tmp);
}

/* ---- sides -------------------------------------------------------------------------- */

void loom_mpi_dts_free(loom_mpi_dtside_t *s)
{
    free(s->tmp);
    free(s->counts);
    free(s->blk);
    memset(s, 0, sizeof(*s));
}

/* Sizes of @p n blocks into s->counts/displs (bytes, all within an int). */
static int loom_mpi_dts_size(MPI_Comm comm, loom_mpi_dtside_t *s, const char *call)
{
    size_t total = 0;
    int rc = MPI_SUCCESS;

    for (int i = 0; i < s->n; ++i) {
        const loom_mpi_dtblk_t *b = &s->blk[i];
        size_t unit = loom_mpi_blk_unit(comm, b->dt, s->layout, call, &rc);

        if (rc != MPI_SUCCESS) {
            return rc;
        }
        if (b->count < 0) {
            return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "block %d: count %d is negative",
                                  i, b->count);
        }
        if (unit != 0 && (size_t)b->count > ((size_t)INT_MAX - total) / unit) {
            return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "block %d: %d elements of a "
                                  "datatype take the converted bytes past %d", i, b->count,
                                  INT_MAX);
        }
        s->counts[i] = (int)((size_t)b->count * unit);
        s->displs[i] = (int)total;
        total += (size_t)s->counts[i];
    }
    s->bytes = total;
    return MPI_SUCCESS;
}

/**
 * Build side @p s of @p n blocks (copied): inner counts and displacements,
 * a temporary, filled from the user's blocks if @p fill.
 */
int loom_mpi_dts_make(MPI_Comm comm, const loom_mpi_dtblk_t blk[], int n, int layout,
                      int fill, const char *call, loom_mpi_dtside_t *s)
{
    size_t nn = (size_t)(n > 0 ? n : 1);
    int rc;

    memset(s, 0, sizeof(*s));
    s->n = n;
    s->layout = layout;
    s->counts = malloc(2 * nn * sizeof(int));
    s->blk = malloc(nn * sizeof(*blk));
    if (s->counts == NULL || s->blk == NULL) {
        loom_mpi_dts_free(s);
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %d blocks", n);
    }
    s->displs = s->counts + nn;
    memcpy(s->blk, blk, (size_t)(n > 0 ? n : 0) * sizeof(*blk));
    if ((rc = loom_mpi_dts_size(comm, s, call)) != MPI_SUCCESS) {
        loom_mpi_dts_free(s);
        return rc;
    }
    /* zeroed: a layout's gaps and a pair's padding are defined bytes on the wire */
    s->tmp = calloc(1, s->bytes > 0 ? s->bytes : 1);
    if (s->tmp == NULL) {
        loom_mpi_dts_free(s);
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %zu converted "
                              "bytes", s->bytes);
    }
    for (int i = 0; fill && i < n; ++i) {
        loom_status_t st = loom_mpi_blk_in(&s->blk[i], s->tmp + s->displs[i],
                                           (size_t)s->counts[i], layout);
        if (st != LOOM_OK) {
            loom_mpi_dts_free(s);
            return loom_mpi_raise_loom(comm, st, call);
        }
    }
    return MPI_SUCCESS;
}

/* Unpack every block of @p s into the user's buffers. */
static loom_status_t loom_mpi_dts_unpack(loom_mpi_dtside_t *s)
{
    for (int i = 0; s->tmp != NULL && i < s->n; ++i) {
        loom_status_t st = loom_mpi_blk_out(&s->blk[i], s->tmp + s->displs[i],
                                            (size_t)s->counts[i], s->layout);
        if (st != LOOM_OK) {
            return st;
        }
    }
    return LOOM_OK;
}

/** After the inner call returned @p rc: unpack (on success) and free @p s. */
int loom_mpi_dts_out(MPI_Comm comm, loom_mpi_dtside_t *s, int rc, const char *call)
{
    if (rc == MPI_SUCCESS) {
        loom_status_t st = loom_mpi_dts_unpack(s);
        if (st != LOOM_OK) {
            rc = loom_mpi_raise_loom(comm, st, call);
        }
    }
    loom_mpi_dts_free(s);
    return rc;
}

/* ---- the nonblocking wrapper ---------------------------------------------------------- */

typedef struct loom_mpi_dtcreq {
    MPI_Request       inner;
    loom_mpi_dtside_t s, r;   /* r: unpacked at completion */
} loom_mpi_dtcreq_t;

static loom_mpi_dtcreq_t *loom_mpi_dtcreq(loom_request_t req)
{
    return *(loom_mpi_dtcreq_t **)(void *)req->priv;
}

static loom_status_t loom_mpi_dtcreq_progress(loom_request_t req)
{
    loom_mpi_dtcreq_t *c = loom_mpi_dtcreq(req);
    loom_status_t st;

    if (c->inner != MPI_REQUEST_NULL && !loom_request_is_complete(c->inner)) {
        return LOOM_INPROGRESS;
    }
    st = c->inner != MPI_REQUEST_NULL ? c->inner->status : LOOM_OK;
    if (c->inner != MPI_REQUEST_NULL) {
        /* the MPI way: side storage of an inner v-call is reaped with it */
        (void)PMPI_Request_free(&c->inner);
    }
    if (st == LOOM_OK) {
        st = loom_mpi_dts_unpack(&c->r);
    }
    return st;
}

static void loom_mpi_dtcreq_free(loom_request_t req)
{
    loom_mpi_dtcreq_t *c = loom_mpi_dtcreq(req);

    if (c == NULL) {
        return;
    }
    for (int i = 0; i < c->r.n && c->r.blk != NULL; ++i) {
        loom_mpi_type_release(c->r.blk[i].dt);
    }
    loom_mpi_dts_free(&c->s);
    loom_mpi_dts_free(&c->r);
    free(c);
}

/**
 * Nonblocking: the inner call returned @p rc and @p inner; *request becomes
 * a request that completes with it, unpacking @p r (either side may be
 * empty: zeroed). Takes over both sides in every case.
 */
int loom_mpi_dts_wrap(int rc, MPI_Request inner, loom_mpi_dtside_t *s, loom_mpi_dtside_t *r,
                      MPI_Comm comm, MPI_Request *request, const char *call)
{
    loom_mpi_dtcreq_t *c = rc == MPI_SUCCESS ? calloc(1, sizeof(*c)) : NULL;
    loom_request_t req;
    loom_status_t st = LOOM_ERR_NO_MEMORY;

    if (c != NULL) {
        st = loom_request_generic_alloc(comm->comm, "coll_derived", loom_mpi_dtcreq_progress,
                                        loom_mpi_dtcreq_free, &req);
    }
    if (rc != MPI_SUCCESS || st != LOOM_OK) {
        if (inner != MPI_REQUEST_NULL) {
            (void)PMPI_Wait(&inner, MPI_STATUS_IGNORE);   /* reaps any side storage */
        }
        loom_mpi_dts_free(s);
        loom_mpi_dts_free(r);
        free(c);
        return rc != MPI_SUCCESS ? rc : loom_mpi_raise_loom(comm, st, call);
    }
    c->inner = inner;
    c->s = *s;
    c->r = *r;
    memset(s, 0, sizeof(*s));
    memset(r, 0, sizeof(*r));
    for (int i = 0; i < c->r.n && c->r.blk != NULL; ++i) {
        loom_mpi_type_retain(c->r.blk[i].dt);
    }
    *(loom_mpi_dtcreq_t **)(void *)req->priv = c;
    loom_request_generic_start(req);
    *request = req;
    return MPI_SUCCESS;
}

/* ---- roles ---------------------------------------------------------------------------- */

/* Peers whose blocks a side holds: the group, or the remote group of an intercomm. */
static int loom_mpi_dtc_peers(MPI_Comm comm, int *inter_p)
{
    int size;

    *inter_p = loom_comm_is_inter(comm->comm);
    if (*inter_p) {
        return loom_comm_remote_size(comm->comm);
    }
    PMPI_Comm_size(comm, &size);
    return size;
}

/* A rooted call's role: 'r' root, 'l' another rank, 'n' none (intercomm MPI_PROC_NULL). */
static int loom_mpi_dtc_role(MPI_Comm comm, int inter, int root)
{
    int rank;

    if (inter) {
        return root == MPI_ROOT ? 'r' : root == MPI_PROC_NULL ? 'n' : 'l';
    }
    PMPI_Comm_rank(comm, &rank);
    return rank == root ? 'r' : 'l';
}

/*
 * @p n blocks of (count, dt), block i at buf + i x count extents; or (a
 * v-form: @p count LOOM_MPI_DTC_V) counts[i] at displs[i] extents.
 */
#define LOOM_MPI_DTC_V INT_MIN
static loom_mpi_dtblk_t *loom_mpi_dtc_blocks(MPI_Comm comm, const void *buf, int n, int count,
                                             const int counts[], const int displs[],
                                             MPI_Datatype dt, const char *call,
                                             int *rc_p)
{
    loom_mpi_dtblk_t *b = malloc((size_t)(n > 0 ? n : 1) * sizeof(*b));
    ptrdiff_t ext = loom_mpi_type_check_any(dt, 0) == MPI_SUCCESS ? loom_mpi_dtc_ext(dt) : 0;

    if (b == NULL) {
        *rc_p = loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %d blocks", n);
        return NULL;
    }
    if (n > 0 && count == LOOM_MPI_DTC_V && (counts == NULL || displs == NULL)) {
        free(b);
        *rc_p = loom_mpi_raise(comm, MPI_ERR_ARG, call, "counts or displacements are NULL");
        return NULL;
    }
    for (int i = 0; i < n; ++i) {
        b[i].count = counts != NULL ? counts[i] : count;
        b[i].dt = dt;
        b[i].buf = (char *)(uintptr_t)buf +
                   (displs != NULL ? (ptrdiff_t)displs[i] : (ptrdiff_t)i * count) * ext;
    }
    return b;
}

/* Side of @p n blocks (see loom_mpi_dtc_blocks), converted only if @p dt needs it. */
static int loom_mpi_dtc_side(MPI_Comm comm, const void *buf, int n, int count,
                             const int counts[], const int displs[], MPI_Datatype dt,
                             int fill, const char *call, loom_mpi_dtside_t *s)
{
    loom_mpi_dtblk_t *b;
    int rc;

    memset(s, 0, sizeof(*s));
    if (buf == MPI_IN_PLACE || !loom_mpi_type_coll_nc(dt)) {
        return MPI_SUCCESS;
    }
    if ((b = loom_mpi_dtc_blocks(comm, buf, n, count, counts, displs, dt, call, &rc)) == NULL) {
        return rc;
    }
    rc = loom_mpi_dts_make(comm, b, n, 0, fill, call, s);
    free(b);
    return rc;
}

/* Finish a call: blocking (request NULL) unpacks @p r and frees both; else wraps. */
static int loom_mpi_dtc_end(int rc, MPI_Request inner, loom_mpi_dtside_t *s,
                            loom_mpi_dtside_t *r, MPI_Comm comm, MPI_Request *request,
                            const char *call)
{
    if (request != NULL) {
        return loom_mpi_dts_wrap(rc, inner, s, r, comm, request, call);
    }
    loom_mpi_dts_free(s);
    return loom_mpi_dts_out(comm, r, rc, call);
}

/* A type the inner call may see: a converted one is never passed on (no recursion). */
static MPI_Datatype loom_mpi_dtc_t(MPI_Datatype dt)
{
    return loom_mpi_type_coll_nc(dt) ? MPI_BYTE : dt;
}

static int loom_mpi_dtc_c(int count, MPI_Datatype dt)
{
    return loom_mpi_type_coll_nc(dt) ? 0 : count;
}

/*
 * The inner (buf, count, type) of a regular side: one block's bytes, or the
 * user's own (with a converted type only where it is insignificant or in
 * place: then 0 bytes).
 */
#define LOOM_MPI_DTC_ARG(sd, ubuf, ucount, utype)                                  \
    ((sd).blk != NULL ? (void *)(sd).tmp : (void *)(uintptr_t)(ubuf)),            \
    ((sd).blk != NULL ? ((sd).n > 0 ? (sd).counts[0] : 0)                         \
                      : loom_mpi_dtc_c((ucount), (utype))),                         \
    ((sd).blk != NULL ? MPI_BYTE : loom_mpi_dtc_t(utype))

/* An insignificant side: nothing the inner call may look at twice. */
static void loom_mpi_dtc_unused(MPI_Datatype *type, int *count)
{
    if (loom_mpi_type_coll_nc(*type)) {
        *type = MPI_BYTE;
        *count = 0;
    }
}

/* ---- bcast and the regular movers ------------------------------------------------------ */

int loom_mpi_dtc_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                       MPI_Request *request, const char *call)
{
    loom_mpi_dtside_t v, none;
    MPI_Request inner = MPI_REQUEST_NULL;
    int inter, role, rc;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    (void)loom_mpi_dtc_peers(comm, &inter);
    role = loom_mpi_dtc_role(comm, inter, root);
    memset(&none, 0, sizeof(none));
    if (role == 'n') {
        loom_mpi_dtc_unused(&dt, &count);
        return request != NULL ? PMPI_Ibcast(buf, count, dt, root, comm, request)
                               : PMPI_Bcast(buf, count, dt, root, comm);
    }
    rc = loom_mpi_dtc_side(comm, buf, 1, count, NULL, NULL, dt, role == 'r', call, &v);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = request != NULL ? PMPI_Ibcast(LOOM_MPI_DTC_ARG(v, buf, count, dt), root, comm, &inner)
                         : PMPI_Bcast(LOOM_MPI_DTC_ARG(v, buf, count, dt), root, comm);
    return role == 'r' ? loom_mpi_dtc_end(rc, inner, &v, &none, comm, request, call)
                       : loom_mpi_dtc_end(rc, inner, &none, &v, comm, request, call);
}

typedef int (*loom_mpi_dtc_fn_t)(const void *, int, MPI_Datatype, void *, int,
                                 MPI_Datatype, int, MPI_Comm, MPI_Request *);

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

/*
 * Run @p fn with @p sk send and @p rk receive blocks (0: the side is
 * insignificant here); the receive side is filled when sbuf is in place.
 */
static int loom_mpi_dtc_run(loom_mpi_dtc_fn_t fn, const void *sbuf, int scount,
                            MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                            int root, MPI_Comm comm, int sk, int rk, MPI_Request *request,
                            const char *call)
{
    loom_mpi_dtside_t sv, rv;
    MPI_Request inner = MPI_REQUEST_NULL;
    int rc;

    memset(&sv, 0, sizeof(sv));
    memset(&rv, 0, sizeof(rv));
    if (sk == 0) {
        loom_mpi_dtc_unused(&stype, &scount);
    }
    if (rk == 0) {
        loom_mpi_dtc_unused(&rtype, &rcount);
    }
    /* the whole buffer is k x count elements: an int, as MPI counts are */
    if ((size_t)sk * (size_t)(scount > 0 ? scount : 0) > (size_t)INT_MAX ||
        (size_t)rk * (size_t)(rcount > 0 ? rcount : 0) > (size_t)INT_MAX) {
        return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "%d blocks of %d elements exceed %d",
                              sk > rk ? sk : rk, sk > rk ? scount : rcount, INT_MAX);
    }
    rc = sk > 0 ? loom_mpi_dtc_side(comm, sbuf, sk, scount, NULL, NULL, stype, 1, call, &sv)
                : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && rk > 0) {
        rc = loom_mpi_dtc_side(comm, rbuf, rk, rcount, NULL, NULL, rtype,
                               sbuf == MPI_IN_PLACE, call, &rv);
    }
    if (rc != MPI_SUCCESS) {
        loom_mpi_dts_free(&sv);
        return rc;
    }
    rc = fn(LOOM_MPI_DTC_ARG(sv, sbuf, scount, stype), LOOM_MPI_DTC_ARG(rv, rbuf, rcount, rtype),
            root, comm, request != NULL ? &inner : NULL);
    return loom_mpi_dtc_end(rc, inner, &sv, &rv, comm, request, call);
}

/* The four regular data movers; @p which: 'g'ather, 's'catter, 'a'llgather, 't'oall. */
int loom_mpi_dtc_move(int which, const void *sbuf, int scount, MPI_Datatype stype,
                      void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                      MPI_Request *request, const char *call)
{
    int inter, n, role;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    n = loom_mpi_dtc_peers(comm, &inter);
    switch (which) {
    case 'g':
        role = loom_mpi_dtc_role(comm, inter, root);
        return loom_mpi_dtc_run(loom_mpi_dtc_gather_fn, sbuf, scount, stype, rbuf, rcount,
                                rtype, root, comm, role == 'l' || (!inter) ? 1 : 0,
                                role == 'r' ? n : 0, request, call);
    case 's':
        /* the root's MPI_IN_PLACE is its recvbuf: nothing to receive there */
        role = loom_mpi_dtc_role(comm, inter, root);
        return loom_mpi_dtc_run(loom_mpi_dtc_scatter_fn, sbuf, scount, stype, rbuf, rcount,
                                rtype, root, comm, role == 'r' ? n : 0,
                                (role == 'l' || !inter) && rbuf != MPI_IN_PLACE ? 1 : 0,
                                request, call);
    case 'a':
        return loom_mpi_dtc_run(loom_mpi_dtc_allgather_fn, sbuf, scount, stype, rbuf,
                                rcount, rtype, root, comm, 1, n, request, call);
    default:
        return loom_mpi_dtc_run(loom_mpi_dtc_alltoall_fn, sbuf, scount, stype, rbuf, rcount,
                                rtype, root, comm, n, n, request, call);
    }
}

/* ---- v-forms ------------------------------------------------------------------------- */

/* Gatherv ('g'), allgatherv ('a'): a plain send side, a v receive side. */
int loom_mpi_dtc_gatherv(int which, const void *sbuf, int scount, MPI_Datatype stype,
                         void *rbuf, const int rcounts[], const int rdispls[],
                         MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *request,
                         const char *call)
{
    loom_mpi_dtside_t sv, rv;
    MPI_Request inner = MPI_REQUEST_NULL;
    int inter, n, role = 'r', rc, want_s, want_r;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    n = loom_mpi_dtc_peers(comm, &inter);
    if (which == 'g') {
        role = loom_mpi_dtc_role(comm, inter, root);
    }
    want_s = which == 'a' || role == 'l' || !inter;
    want_r = which == 'a' || role == 'r';
    memset(&rv, 0, sizeof(rv));
    if (!want_s) {
        loom_mpi_dtc_unused(&stype, &scount);
    }
    rc = want_s ? loom_mpi_dtc_side(comm, sbuf, 1, scount, NULL, NULL, stype, 1, call, &sv)
                : loom_mpi_dtc_side(comm, MPI_IN_PLACE, 0, 0, NULL, NULL, stype, 0, call, &sv);
    if (rc == MPI_SUCCESS && want_r) {
        rc = loom_mpi_dtc_side(comm, rbuf, n, LOOM_MPI_DTC_V, rcounts, rdispls, rtype,
                               sbuf == MPI_IN_PLACE, call, &rv);
    }
    if (rc != MPI_SUCCESS) {
        loom_mpi_dts_free(&sv);
        return rc;
    }
    if (!want_r && loom_mpi_type_coll_nc(rtype)) {
        rtype = MPI_BYTE;   /* insignificant: counts are not read */
    }
    {
        const int *rc_a = rv.blk != NULL ? rv.counts : rcounts;
        const int *rd_a = rv.blk != NULL ? rv.displs : rdispls;
        void *rb = rv.blk != NULL ? (void *)rv.tmp : rbuf;
        MPI_Datatype rt = rv.blk != NULL ? MPI_BYTE : loom_mpi_dtc_t(rtype);

        if (which == 'a') {
            rc = request != NULL
                 ? PMPI_Iallgatherv(LOOM_MPI_DTC_ARG(sv, sbuf, scount, stype), rb, rc_a, rd_a,
                                    rt, comm, &inner)
                 : PMPI_Allgatherv(LOOM_MPI_DTC_ARG(sv, sbuf, scount, stype), rb, rc_a, rd_a,
                                   rt, comm);
        } else {
            rc = request != NULL
                 ? PMPI_Igatherv(LOOM_MPI_DTC_ARG(sv, sbuf, scount, stype), rb, rc_a, rd_a,
                                 rt, root, comm, &inner)
                 : PMPI_Gatherv(LOOM_MPI_DTC_ARG(sv, sbuf, scount, stype), rb, rc_a, rd_a,
                                rt, root, comm);
        }
    }
    return loom_mpi_dtc_end(rc, inner, &sv, &rv, comm, request, call);
}

int loom_mpi_dtc_scatterv(const void *sbuf, const int scounts[], const int sdispls[],
                          MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                          int root, MPI_Comm comm, MPI_Request *request, const char *call)
{
    loom_mpi_dtside_t sv, rv;
    MPI_Request inner = MPI_REQUEST_NULL;
    int inter, n, role, rc, want_r;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    n = loom_mpi_dtc_peers(comm, &inter);
    role = loom_mpi_dtc_role(comm, inter, root);
    want_r = (role == 'l' || !inter) && rbuf != MPI_IN_PLACE;
    memset(&sv, 0, sizeof(sv));
    if (role == 'r') {
        rc = loom_mpi_dtc_side(comm, sbuf, n, LOOM_MPI_DTC_V, scounts, sdispls, stype, 1,
                               call, &sv);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    } else if (loom_mpi_type_coll_nc(stype)) {
        stype = MPI_BYTE;
    }
    if (!want_r) {
        loom_mpi_dtc_unused(&rtype, &rcount);
    }
    rc = want_r ? loom_mpi_dtc_side(comm, rbuf, 1, rcount, NULL, NULL, rtype, 0, call, &rv)
                : loom_mpi_dtc_side(comm, MPI_IN_PLACE, 0, 0, NULL, NULL, rtype, 0, call, &rv);
    if (rc != MPI_SUCCESS) {
        loom_mpi_dts_free(&sv);
        return rc;
    }
    {
        const int *sc_a = sv.blk != NULL ? sv.counts : scounts;
        const int *sd_a = sv.blk != NULL ? sv.displs : sdispls;
        const void *sb = sv.blk != NULL ? (const void *)sv.tmp : sbuf;
        MPI_Datatype st = sv.blk != NULL ? MPI_BYTE : loom_mpi_dtc_t(stype);

        rc = request != NULL
             ? PMPI_Iscatterv(sb, sc_a, sd_a, st, LOOM_MPI_DTC_ARG(rv, rbuf, rcount, rtype),
                              root, comm, &inner)
             : PMPI_Scatterv(sb, sc_a, sd_a, st, LOOM_MPI_DTC_ARG(rv, rbuf, rcount, rtype),
                             root, comm);
    }
    return loom_mpi_dtc_end(rc, inner, &sv, &rv, comm, request, call);
}

int loom_mpi_dtc_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                           MPI_Datatype stype, void *rbuf, const int rcounts[],
                           const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                           MPI_Request *request, const char *call)
{
    loom_mpi_dtside_t sv, rv;
    MPI_Request inner = MPI_REQUEST_NULL;
    int inter, n, rc;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    n = loom_mpi_dtc_peers(comm, &inter);
    rc = loom_mpi_dtc_side(comm, sbuf, n, LOOM_MPI_DTC_V, scounts, sdispls, stype, 1, call, &sv);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = loom_mpi_dtc_side(comm, rbuf, n, LOOM_MPI_DTC_V, rcounts, rdispls, rtype,
                           sbuf == MPI_IN_PLACE, call, &rv);
    if (rc != MPI_SUCCESS) {
        loom_mpi_dts_free(&sv);
        return rc;
    }
    {
        const void *sb = sv.blk != NULL ? (const void *)sv.tmp : sbuf;
        const int *sc_a = sv.blk != NULL ? sv.counts : scounts;
        const int *sd_a = sv.blk != NULL ? sv.displs : sdispls;
        MPI_Datatype st = sv.blk != NULL ? MPI_BYTE : loom_mpi_dtc_t(stype);
        void *rb = rv.blk != NULL ? (void *)rv.tmp : rbuf;
        const int *rc_a = rv.blk != NULL ? rv.counts : rcounts;
        const int *rd_a = rv.blk != NULL ? rv.displs : rdispls;
        MPI_Datatype rt = rv.blk != NULL ? MPI_BYTE : loom_mpi_dtc_t(rtype);

        rc = request != NULL
             ? PMPI_Ialltoallv(sb, sc_a, sd_a, st, rb, rc_a, rd_a, rt, comm, &inner)
             : PMPI_Alltoallv(sb, sc_a, sd_a, st, rb, rc_a, rd_a, rt, comm);
    }
    return loom_mpi_dtc_end(rc, inner, &sv, &rv, comm, request, call);
}

/* ---- alltoallw ----------------------------------------------------------------------- */

/* One w-side as @p n blocks (types and byte displacements of their own). */
static int loom_mpi_dtc_wside(MPI_Comm comm, const void *buf, int n, const int counts[],
                              const int displs[], const MPI_Datatype types[], int fill,
                              const char *call, loom_mpi_dtside_t *s)
{
    loom_mpi_dtblk_t *b;
    int rc;

    memset(s, 0, sizeof(*s));
    if (n > 0 && (counts == NULL || displs == NULL || types == NULL)) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "a counts, displacements or types "
                              "array is NULL");
    }
    if ((b = malloc((size_t)(n > 0 ? n : 1) * sizeof(*b))) == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %d blocks", n);
    }
    for (int i = 0; i < n; ++i) {
        b[i] = (loom_mpi_dtblk_t){ (char *)(uintptr_t)buf + displs[i], counts[i], types[i] };
    }
    rc = loom_mpi_dts_make(comm, b, n, 0, fill, call, s);
    free(b);
    return rc;
}

int loom_mpi_dtc_w_any(MPI_Comm comm, const void *sbuf, const MPI_Datatype stypes[],
                       const MPI_Datatype rtypes[])
{
    int inter, n;

    if (!loom_mpi_comm_live(comm) || comm->comm == LOOM_COMM_NULL) {
        return 0;   /* the ordinary path reports the communicator */
    }
    n = loom_mpi_dtc_peers(comm, &inter);
    return (sbuf != MPI_IN_PLACE && loom_mpi_types_coll_nc(n, stypes)) ||
           loom_mpi_types_coll_nc(n, rtypes);
}

/* Alltoallw with a converted type on either side: both sides become bytes (alltoallv). */
int loom_mpi_dtc_alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                           const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                           const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                           MPI_Request *request, const char *call)
{
    loom_mpi_dtside_t sv, rv;
    MPI_Request inner = MPI_REQUEST_NULL;
    int inter, n, rc = MPI_SUCCESS, in_place = sbuf == MPI_IN_PLACE;

    if (!loom_mpi_comm_live(comm)) {
        return loom_mpi_comm_arg_error(comm, call);
    }
    n = loom_mpi_dtc_peers(comm, &inter);
    memset(&sv, 0, sizeof(sv));
    if (!in_place) {
        rc = loom_mpi_dtc_wside(comm, sbuf, n, scounts, sdispls, stypes, 1, call, &sv);
    }
    if (rc == MPI_SUCCESS) {
        rc = loom_mpi_dtc_wside(comm, rbuf, n, rcounts, rdispls, rtypes, in_place, call, &rv);
    }
    if (rc != MPI_SUCCESS) {
        loom_mpi_dts_free(&sv);
        return rc;
    }
    {
        const void *sb = in_place ? MPI_IN_PLACE : (const void *)sv.tmp;
        const int *sc_a = in_place ? rv.counts : sv.counts;
        const int *sd_a = in_place ? rv.displs : sv.displs;

        rc = request != NULL
             ? PMPI_Ialltoallv(sb, sc_a, sd_a, MPI_BYTE, rv.tmp, rv.counts, rv.displs, MPI_BYTE,
                               comm, &inner)
             : PMPI_Alltoallv(sb, sc_a, sd_a, MPI_BYTE, rv.tmp, rv.counts, rv.displs, MPI_BYTE,
                              comm);
    }
    return loom_mpi_dtc_end(rc, inner, &sv, &rv, comm, request, call);
}

/* ---- neighbourhood ------------------------------------------------------------------- */

/**
 * A neighbourhood collective whose blocks (@p sblk to the out-neighbours,
 * @p rblk from the in-neighbours, from mpi_topo_nbr.c) hold a converted
 * type: both sides become bytes, moved by MPI_(I)Neighbor_alltoallv.
 */
int loom_mpi_dtc_nbr(const loom_mpi_dtblk_t sblk[], int outdeg, const loom_mpi_dtblk_t rblk[],
                     int indeg, MPI_Comm comm, MPI_Request *request, const char *call)
{
    loom_mpi_dtside_t sv, rv;
    MPI_Request inner = MPI_REQUEST_NULL;
    int rc = loom_mpi_dts_make(comm, sblk, outdeg, 0, 1, call, &sv);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = loom_mpi_dts_make(comm, rblk, indeg, 0, 0, call, &rv)) != MPI_SUCCESS) {
        loom_mpi_dts_free(&sv);
        return rc;
    }
    rc = request != NULL
         ? PMPI_Ineighbor_alltoallv(sv.tmp, sv.counts, sv.displs, MPI_BYTE, rv.tmp, rv.counts,
                                    rv.displs, MPI_BYTE, comm, &inner)
         : PMPI_Neighbor_alltoallv(sv.tmp, sv.counts, sv.displs, MPI_BYTE, rv.tmp, rv.counts,
                                   rv.displs, MPI_BYTE, comm);
    return loom_mpi_dtc_end(rc, inner, &sv, &rv, comm, request, call);
}
