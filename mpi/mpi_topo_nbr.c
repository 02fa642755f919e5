/*
 * mpi_topo_nbr.c: the neighbourhood collectives (MPI_Neighbor_allgather(v),
 * MPI_Neighbor_alltoall(v,w) and their I forms), all five mapped onto one
 * native call, loom_(i)neighbor_alltoallv, which takes byte counts and byte
 * offsets per neighbour.
 *
 * Each side (send, receive) of a call is one of four shapes, converted to
 * (bytes, offset) per neighbour slot:
 *
 *   SAME     one block for every neighbour   (allgather's send side)
 *   UNIFORM  block i at i * count            (allgather's receive side, alltoall)
 *   VECTOR   counts[i] at displs[i], in units of the type's extent
 *   W        counts[i] of types[i] at displs[i] bytes (alltoallw)
 *
 * Offsets may be negative (MPI allows it): the buffer pointer passed to
 * loom is moved down to the lowest offset, which makes every offset
 * non-negative. Slots follow the topology's neighbour lists (topology
 * object, mpi_topo_int.h); for a Cartesian topology the sends are posted in
 * loom_topo_cart_send_slot() order, so that a rank that is a neighbour
 * twice (periodic dimension of size 1 or 2) gets each block in the right
 * slot (base/topo_int.h explains why). The converted arrays
 * live in the reusable scratch buffer for the blocking forms and in side
 * storage attached to the request for the nonblocking ones.
 *
 * Datatypes: a contiguous type (a base type times n) makes a block of
 * count x extent bytes. A call with a non-contiguous derived type on
 * either side hands its blocks (address, count, type) to
 * mpi_dtype_coll.c, which packs them and runs this call again on bytes.
 */
#include "mpi_topo_int.h"
#include "topo_int.h"
#include "mt_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum { NBR_SAME = 0, NBR_UNIFORM, NBR_VECTOR, NBR_W } loom_mpi_nbr_shape_t;

typedef struct loom_mpi_nbr_side {
    const void          *buf;
    loom_mpi_nbr_shape_t shape;
    int                  count;     /* SAME, UNIFORM */
    const int           *counts;    /* VECTOR, W */
    const int           *displs;    /* VECTOR */
    const MPI_Aint      *wdispls;   /* W */
    MPI_Datatype         type;      /* SAME, UNIFORM, VECTOR */
    const MPI_Datatype  *types;     /* W */
    const char          *what;      /* "send", "receive" */
} loom_mpi_nbr_side_t;

/* Bytes of @p count elements of @p dt (checked); the single datatype gate. */
static int loom_mpi_nbr_type_bytes(MPI_Comm comm, MPI_Datatype dt, int count, int slot,
                                   const char *what, const char *call, size_t *bytes_p)
{
    int rc = loom_mpi_type_check(dt, count);

    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(comm, rc, call, rc == MPI_ERR_COUNT
                              ? "%s count %d (neighbour %d) is negative"
                              : "%s datatype (count %d, neighbour %d) is uncommitted or "
                                "non-contiguous", what, count, slot);
    }
    *bytes_p = (size_t)count * loom_mpi_type_extent(dt);
    return MPI_SUCCESS;
}

/* Block @p i of @p sd: bytes and (signed) byte offset. */
static int loom_mpi_nbr_block(MPI_Comm comm, const loom_mpi_nbr_side_t *sd, int i,
                              const char *call, size_t *bytes_p, long long *off_p)
{
    int rc;

    switch (sd->shape) {
    case NBR_SAME:
    case NBR_UNIFORM:
        rc = loom_mpi_nbr_type_bytes(comm, sd->type, sd->count, i, sd->what, call, bytes_p);
        *off_p = sd->shape == NBR_SAME ? 0 : (long long)i * (long long)*bytes_p;
        return rc;
    case NBR_VECTOR:
        rc = loom_mpi_nbr_type_bytes(comm, sd->type, sd->counts[i], i, sd->what, call,
                                     bytes_p);
        *off_p = (long long)sd->displs[i] * (long long)loom_mpi_type_extent(sd->type);
        return rc;
    default:
        if (sd->types == NULL) {
            return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%stypes is NULL", sd->what);
        }
        rc = loom_mpi_nbr_type_bytes(comm, sd->types[i], sd->counts[i], i, sd->what, call,
                                     bytes_p);
        *off_p = sd->wdispls[i];
        return rc;
    }
}

/*
 * Convert @p n blocks of @p sd into bytes[] and offsets[] (non-negative,
 * from *base_p, the buffer moved down to the lowest offset).
 */
static int loom_mpi_nbr_side(MPI_Comm comm, const loom_mpi_nbr_side_t *sd, int n,
                             const char *call, size_t *bytes, size_t *offs,
                             const char **base_p)
{
    long long lo = 0, off = 0;
    size_t one;
    int rc;

    /* the datatype is checked even without neighbours: every rank fails alike */
    if (sd->shape != NBR_W &&
        (rc = loom_mpi_nbr_type_bytes(comm, sd->type, sd->shape < NBR_VECTOR ? sd->count : 0,
                                      0, sd->what, call, &one)) != MPI_SUCCESS) {
        return rc;
    }
    if (n > 0 && sd->shape >= NBR_VECTOR &&
        (sd->counts == NULL || (sd->shape == NBR_VECTOR ? sd->displs == NULL
                                                        : sd->wdispls == NULL))) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s counts or displacements are NULL",
                              sd->what);
    }
    for (int i = 0; i < n; ++i) {
        if ((rc = loom_mpi_nbr_block(comm, sd, i, call, &bytes[i], &off)) != MPI_SUCCESS) {
            return rc;
        }
        offs[i] = (size_t)off;       /* kept signed until the base is known */
        lo = off < lo ? off : lo;
    }
    for (int i = 0; i < n; ++i) {
        offs[i] = (size_t)((long long)offs[i] - lo);
    }
    *base_p = (const char *)sd->buf + lo;
    return MPI_SUCCESS;
}

/* Where the converted lists live (scratch or side storage) and their layout. */
typedef struct loom_mpi_nbr_lists {
    loom_mpi_side_t *side;
    size_t          *sbytes, *soffs, *rbytes, *roffs;
    int             *dests, *srcs;
} loom_mpi_nbr_lists_t;

static int loom_mpi_nbr_lists(loom_mpi_nbr_lists_t *l, int indeg, int outdeg, int nb,
                              MPI_Comm comm, const char *call)
{
    size_t nsz = 2 * (size_t)(indeg + outdeg), nint = (size_t)(indeg + outdeg);
    size_t nelem = nsz + (nint * sizeof(int) + sizeof(size_t) - 1) / sizeof(size_t) + 1;
    size_t *a;

    l->side = nb ? loom_mpi_side_alloc(nelem) : NULL;
    a = nb ? (l->side != NULL ? l->side->arrays : NULL) : loom_mpi_scratch(nelem);
    if (a == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for the lists of "
                              "%d + %d neighbours", indeg, outdeg);
    }
    l->sbytes = a;
    l->soffs  = a + outdeg;
    l->rbytes = a + 2 * (size_t)outdeg;
    l->roffs  = l->rbytes + indeg;
    l->dests  = (int *)(void *)(a + nsz);
    l->srcs   = l->dests + outdeg;
    return MPI_SUCCESS;
}

/* Cartesian topologies: post the sends of each dimension positive side first. */
static void loom_mpi_nbr_cart_order(loom_mpi_nbr_lists_t *l, int outdeg)
{
    for (int i = 0; i + 1 < outdeg; i += 2) {
        int j = loom_topo_cart_send_slot(i);
        size_t b = l->sbytes[i], o = l->soffs[i];
        int d = l->dests[i];

        l->sbytes[i] = l->sbytes[j];
        l->soffs[i]  = l->soffs[j];
        l->dests[i]  = l->dests[j];
        l->sbytes[j] = b;
        l->soffs[j]  = o;
        l->dests[j]  = d;
    }
}

/* 1 if a block of @p sd (@p n of them) has a type mpi_dtype_coll.c converts. */
static int loom_mpi_nbr_derived(const loom_mpi_nbr_side_t *sd, int n)
{
    return sd->shape == NBR_W ? loom_mpi_types_coll_nc(n, sd->types)
                              : loom_mpi_type_coll_nc(sd->type);
}

/* The @p n blocks of @p sd as (address, count, type), for mpi_dtype_coll.c;
 * NULL with the class raised in *rc_p. */
static loom_mpi_dtblk_t *loom_mpi_nbr_blocks(MPI_Comm comm, const loom_mpi_nbr_side_t *sd,
                                             int n, const char *call, int *rc_p)
{
    loom_mpi_dtblk_t *b = malloc((size_t)(n > 0 ? n : 1) * sizeof(*b));
    MPI_Aint lb, ext = 0;

    if (b == NULL) {
        *rc_p = loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "%s blocks: out of memory for "
                               "%d block descriptions", sd->what, n);
        return NULL;
    }
    if (n > 0 && sd->shape >= NBR_VECTOR &&
        (sd->counts == NULL || (sd->shape == NBR_VECTOR ? sd->displs == NULL
                                                        : sd->wdispls == NULL ||
                                                          sd->types == NULL))) {
        free(b);
        *rc_p = loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s blocks: a NULL counts, "
                               "displacements or types array", sd->what);
        return NULL;
    }
    if (sd->shape != NBR_W) {
        PMPI_Type_get_extent(sd->type, &lb, &ext);
    }
    for (int i = 0; i < n; ++i) {
        char *base = (char *)(uintptr_t)sd->buf;
        switch (sd->shape) {
        case NBR_SAME:    b[i] = (loom_mpi_dtblk_t){ base, sd->count, sd->type }; break;
        case NBR_UNIFORM: b[i] = (loom_mpi_dtblk_t){ base + (MPI_Aint)i * sd->count * ext,
                                                     sd->count, sd->type }; break;
        case NBR_VECTOR:  b[i] = (loom_mpi_dtblk_t){ base + (MPI_Aint)sd->displs[i] * ext,
                                                     sd->counts[i], sd->type }; break;
        default:          b[i] = (loom_mpi_dtblk_t){ base + sd->wdispls[i], sd->counts[i],
                                                     sd->types[i] }; break;
        }
    }
    return b;
}

/* A call with a non-contiguous derived type: its blocks go to mpi_dtype_coll.c. */
static int loom_mpi_nbr_dt(const loom_mpi_nbr_side_t *snd, const loom_mpi_nbr_side_t *rcv,
                           const loom_mpi_topo_t *t, MPI_Comm comm, MPI_Request *request,
                           const char *call)
{
    int rc = MPI_SUCCESS;
    loom_mpi_dtblk_t *sb = loom_mpi_nbr_blocks(comm, snd, t->outdeg, call, &rc);
    loom_mpi_dtblk_t *rb = sb != NULL ? loom_mpi_nbr_blocks(comm, rcv, t->indeg, call, &rc)
                                      : NULL;

    if (rb != NULL) {
        rc = loom_mpi_dtc_nbr(sb, t->outdeg, rb, t->indeg, comm, request, call);
    }

    free(sb);
    free(rb);
    return rc;
}

/* One neighbourhood collective: convert, then loom_(i)neighbor_alltoallv. */
static int loom_mpi_nbr(const loom_mpi_nbr_side_t *snd, const loom_mpi_nbr_side_t *rcv,
                        MPI_Comm comm, int nb, MPI_Request *request, const char *call)
{
    const loom_mpi_topo_t *t;
    loom_mpi_nbr_lists_t l = { NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    const char *sbase = NULL, *rbase = NULL;
    loom_comm_t lcomm;
    loom_status_t st;
    int rc = loom_mpi_topo_arg(comm, 0, call, &lcomm, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nb && request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    if (snd->buf == MPI_IN_PLACE || rcv->buf == MPI_IN_PLACE) {
        return loom_mpi_raise(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not valid for "
                              "neighbourhood collectives");
    }
    if (loom_unlikely(loom_mpi_nbr_derived(snd, t->outdeg) ||
                      loom_mpi_nbr_derived(rcv, t->indeg))) {
        return loom_mpi_nbr_dt(snd, rcv, t, comm, nb ? request : NULL, call);
    }
    if ((rc = loom_mpi_nbr_lists(&l, t->indeg, t->outdeg, nb, comm, call)) != 0) {
        return rc;
    }
    if ((rc = loom_mpi_nbr_side(comm, snd, t->outdeg, call, l.sbytes, l.soffs,
                                &sbase)) != MPI_SUCCESS ||
        (rc = loom_mpi_nbr_side(comm, rcv, t->indeg, call, l.rbytes, l.roffs,
                                &rbase)) != MPI_SUCCESS) {
        if (l.side != NULL) {
            loom_mpi_side_attach(l.side, MPI_REQUEST_NULL);   /* frees it */
        }
        return rc;
    }
    memcpy(l.dests, t->out, (size_t)t->outdeg * sizeof(int));
    memcpy(l.srcs, t->in, (size_t)t->indeg * sizeof(int));
    if (t->kind == MPI_CART) {
        loom_mpi_nbr_cart_order(&l, t->outdeg);
    }
    st = nb ? loom_ineighbor_alltoallv(sbase, t->outdeg, l.dests, l.sbytes, l.soffs,
                                       (void *)(uintptr_t)rbase, t->indeg, l.srcs,
                                       l.rbytes, l.roffs, lcomm, request)
            : loom_neighbor_alltoallv(sbase, t->outdeg, l.dests, l.sbytes, l.soffs,
                                      (void *)(uintptr_t)rbase, t->indeg, l.srcs, l.rbytes,
                                      l.roffs, lcomm);
    if (l.side != NULL) {
        loom_mpi_side_attach(l.side, st == LOOM_OK ? *request : MPI_REQUEST_NULL);
    }
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, call);
}

/* ---- the ten calls -------------------------------------------------------------------- */

static int loom_mpi_nbr_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, int nb, MPI_Request *request,
                                  const char *call)
{
    loom_mpi_nbr_side_t s = { .buf = sendbuf, .shape = NBR_SAME, .count = sendcount,
                              .type = sendtype, .what = "send" };
    loom_mpi_nbr_side_t r = { .buf = recvbuf, .shape = NBR_UNIFORM, .count = recvcount,
                              .type = recvtype, .what = "receive" };

    return loom_mpi_nbr(&s, &r, comm, nb, request, call);
}

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  comm, 0, NULL, "MPI_Neighbor_allgather");
}

#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  comm, 1, request, "MPI_Ineighbor_allgather");
}

static int loom_mpi_nbr_allgatherv(const void *sendbuf, int sendcount,
                                   MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm, int nb,
                                   MPI_Request *request, const char *call)
{
    loom_mpi_nbr_side_t s = { .buf = sendbuf, .shape = NBR_SAME, .count = sendcount,
                              .type = sendtype, .what = "send" };
    loom_mpi_nbr_side_t r = { .buf = recvbuf, .shape = NBR_VECTOR, .counts = recvcounts,
                              .displs = displs, .type = recvtype, .what = "receive" };

    return loom_mpi_nbr(&s, &r, comm, nb, request, call);
}

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                   displs, recvtype, comm, 0, NULL,
                                   "MPI_Neighbor_allgatherv");
}

#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                   displs, recvtype, comm, 1, request,
                                   "MPI_Ineighbor_allgatherv");
}

static int loom_mpi_nbr_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, int nb, MPI_Request *request,
                                 const char *call)
{
    loom_mpi_nbr_side_t s = { .buf = sendbuf, .shape = NBR_UNIFORM, .count = sendcount,
                              .type = sendtype, .what = "send" };
    loom_mpi_nbr_side_t r = { .buf = recvbuf, .shape = NBR_UNIFORM, .count = recvcount,
                              .type = recvtype, .what = "receive" };

    return loom_mpi_nbr(&s, &r, comm, nb, request, call);
}

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm, 0, NULL, "MPI_Neighbor_alltoall");
}

#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm, 1, request, "MPI_Ineighbor_alltoall");
}

static int loom_mpi_nbr_alltoallv(const void *sendbuf, const int sendcounts[],
                                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, int nb,
                                  MPI_Request *request, const char *call)
{
    loom_mpi_nbr_side_t s = { .buf = sendbuf, .shape = NBR_VECTOR, .counts = sendcounts,
                              .displs = sdispls, .type = sendtype, .what = "send" };
    loom_mpi_nbr_side_t r = { .buf = recvbuf, .shape = NBR_VECTOR, .counts = recvcounts,
                              .displs = rdispls, .type = recvtype, .what = "receive" };

    return loom_mpi_nbr(&s, &r, comm, nb, request, call);
}

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                  recvcounts, rdispls, recvtype, comm, 0, NULL,
                                  "MPI_Neighbor_alltoallv");
}

#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                  recvcounts, rdispls, recvtype, comm, 1, request,
                                  "MPI_Ineighbor_alltoallv");
}

static int loom_mpi_nbr_alltoallw(const void *sendbuf, const int sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void *recvbuf, const int recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, int nb, MPI_Request *request,
                                  const char *call)
{
    loom_mpi_nbr_side_t s = { .buf = sendbuf, .shape = NBR_W, .counts = sendcounts,
                              .wdispls = sdispls, .types = sendtypes, .what = "send" };
    loom_mpi_nbr_side_t r = { .buf = recvbuf, .shape = NBR_W, .counts = recvcounts,
                              .wdispls = rdispls, .types = recvtypes, .what = "receive" };

    return loom_mpi_nbr(&s, &r, comm, nb, request, call);
}

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                  recvcounts, rdispls, recvtypes, comm, 0, NULL,
                                  "MPI_Neighbor_alltoallw");
}

#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    return loom_mpi_nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                  recvcounts, rdispls, recvtypes, comm, 1, request,
                                  "MPI_Ineighbor_alltoallw");
}
