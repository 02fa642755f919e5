/*
 * mpi_collv.c: the v-collectives (allgatherv, gatherv, scatterv,
 * alltoallv) and their nonblocking forms.
 *
 * MPI gives int counts and displacements in units of the datatype's extent;
 * loom takes size_t arrays, here in bytes (LOOM_BYTE, see mpi_coll.c). The
 * blocking forms convert into a reusable scratch buffer; the nonblocking
 * forms convert into side storage attached to the request (mpi_request.c),
 * which loom reads until the operation completes and which is freed when
 * MPI_Wait/Test* completes it.
 */
#include "mpi_int.h"
#include "mpi_intercomm_int.h"
#include "mt_int.h"

#include <limits.h>

/* Where converted arrays live: scratch (blocking) or side storage (nonblocking). */
typedef struct loom_mpi_vbuf {
    loom_mpi_side_t *side;
    size_t          *arrays;
} loom_mpi_vbuf_t;

static int loom_mpi_vbuf_get(loom_mpi_vbuf_t *vb, size_t nelem, int nb, MPI_Comm comm,
                             const char *call)
{
    vb->side   = nb ? loom_mpi_side_alloc(nelem) : NULL;
    vb->arrays = nb ? (vb->side != NULL ? vb->side->arrays : NULL)
                    : loom_mpi_scratch(nelem);
    if (vb->arrays == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                              "out of memory for %zu counts and displacements", nelem);
    }
    return MPI_SUCCESS;
}

/* Release or attach the side storage once loom has (or has not) started. */
static int loom_mpi_vbuf_done(loom_mpi_vbuf_t *vb, loom_status_t st, MPI_Comm comm,
                              MPI_Request *request, const char *call)
{
    if (vb->side != NULL) {
        loom_mpi_side_attach(vb->side, st == LOOM_OK ? *request : MPI_REQUEST_NULL);
    }
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, call);
}

/* Drop the storage of a call that failed before loom started. */
static void loom_mpi_vbuf_discard(loom_mpi_vbuf_t *vb)
{
    if (vb->side != NULL) {
        loom_mpi_side_attach(vb->side, MPI_REQUEST_NULL);  /* frees it */
        vb->side = NULL;
    }
}

/*
 * Convert @p n MPI counts and displacements of type @p dt into byte counts
 * (@p counts_out) and byte offsets (@p displs_out).
 */
static int loom_mpi_v_convert(MPI_Comm comm, const int counts[], const int displs[],
                              int n, MPI_Datatype dt, const char *what, const char *call,
                              size_t *counts_out, size_t *displs_out)
{
    size_t ext;
    int rc = loom_mpi_type_check(dt, 0);

    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(comm, rc, call, "%s datatype is uncommitted or non-contiguous",
                              what);
    }
    if (counts == NULL || displs == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s %s array is NULL", what,
                              counts == NULL ? "counts" : "displacements");
    }
    ext = loom_mpi_type_extent(dt);
    for (int i = 0; i < n; ++i) {
        if (counts[i] < 0) {
            return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "%s count[%d] = %d is negative",
                                  what, i, counts[i]);
        }
        /* size_t offsets: a block before the buffer start cannot be expressed. */
        if (displs[i] < 0) {
            return loom_mpi_raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                                  "%s displacement[%d] = %d is negative (loom's offsets "
                                  "are unsigned)", what, i, displs[i]);
        }
        counts_out[i] = (size_t)counts[i] * ext;
        displs_out[i] = (size_t)displs[i] * ext;
    }
    return MPI_SUCCESS;
}

/* The local send/receive block: its bytes, checked against the v-array entry. */
static int loom_mpi_v_own(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                          size_t expect, const char *what, const char *call,
                          size_t *bytes_p)
{
    int rc = loom_mpi_type_check(dt, count);

    if (buf == MPI_IN_PLACE) {
        if (expect == (size_t)-1) {
            return loom_mpi_raise(comm, MPI_ERR_BUFFER, call,
                                  "MPI_IN_PLACE is only valid at the root");
        }
        *bytes_p = expect;
        return MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(comm, rc, call, rc == MPI_ERR_COUNT
                              ? "%s count %d is negative"
                              : "%s datatype is uncommitted or non-contiguous (count %d)",
                              what, count);
    }
    *bytes_p = (size_t)count * loom_mpi_type_extent(dt);
    if (expect != (size_t)-1 && *bytes_p != expect) {
        return loom_mpi_raise(comm, *bytes_p > expect ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                              call, "own %s block is %zu bytes but the counts array says "
                              "%zu (the type signatures must match)", what, *bytes_p,
                              expect);
    }
    return MPI_SUCCESS;
}

/* ---- allgatherv ---------------------------------------------------------------------------- */

static int loom_mpi_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, int nb,
                               MPI_Request *request, const char *call)
{
    loom_comm_t lcomm;
    loom_mpi_vbuf_t vb;
    loom_status_t st;
    size_t *rc_b, *rd_b, sb;
    int size, rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nb && request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    size = loom_comm_size(lcomm);
    if ((rc = loom_mpi_vbuf_get(&vb, 2 * (size_t)size, nb, comm, call)) != 0) {
        return rc;
    }
    rc_b = vb.arrays;
    rd_b = vb.arrays + size;
    if ((rc = loom_mpi_v_convert(comm, recvcounts, displs, size, recvtype, "receive", call,
                                 rc_b, rd_b)) != 0 ||
        (rc = loom_mpi_v_own(comm, sendbuf, sendcount, sendtype,
                             rc_b[loom_comm_rank(lcomm)], "send", call, &sb)) != 0) {
        loom_mpi_vbuf_discard(&vb);
        return rc;
    }
    st = nb ? loom_iallgatherv(sendbuf, sb, recvbuf, rc_b, rd_b, LOOM_BYTE, lcomm, request)
            : loom_allgatherv(sendbuf, sb, recvbuf, rc_b, rd_b, LOOM_BYTE, lcomm);
    return loom_mpi_vbuf_done(&vb, st, comm, request, call);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(sendtype) || loom_mpi_type_coll_nc(recvtype))) {
        return loom_mpi_dtc_gatherv('a', sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                   displs, recvtype, 0, comm, NULL, "MPI_Allgatherv");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                         displs, 0, recvtype, comm, "MPI_Allgatherv", NULL);
    }
    return loom_mpi_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm, 0, NULL, "MPI_Allgatherv");
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely((loom_mpi_type_coll_nc(sendtype) ||
                       loom_mpi_type_coll_nc(recvtype))) && request != NULL) {
        return loom_mpi_dtc_gatherv('a', sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                   displs, recvtype, 0, comm, request, "MPI_Iallgatherv");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Iallgatherv") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                         displs, 0, recvtype, comm, "MPI_Iallgatherv", request);
    }
    return loom_mpi_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm, 1, request, "MPI_Iallgatherv");
}

/* ---- gatherv, scatterv ---------------------------------------------------------------------- */

/* Rooted v-collective arguments: the v side is the root's. */
typedef struct loom_mpi_rootv {
    int          gather;     /* 1: gatherv (v side receives), 0: scatterv */
    const void  *ownbuf;     /* non-v side buffer (MPI_IN_PLACE possible at root) */
    int          owncount;
    MPI_Datatype owntype;
    const int   *counts;
    const int   *displs;
    MPI_Datatype vtype;
    int          root;
} loom_mpi_rootv_t;

static int loom_mpi_rootv(const loom_mpi_rootv_t *a, const void *sendbuf, void *recvbuf,
                          MPI_Comm comm, int nb, MPI_Request *request, const char *call)
{
    loom_comm_t lcomm;
    loom_mpi_vbuf_t vb = { NULL, NULL };
    loom_status_t st;
    size_t *c_b = NULL, *d_b = NULL, own;
    int size, rank, rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nb && request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    size = loom_comm_size(lcomm);
    rank = loom_comm_rank(lcomm);
    if (rank == a->root) {
        if ((rc = loom_mpi_vbuf_get(&vb, 2 * (size_t)size, nb, comm, call)) != 0) {
            return rc;
        }
        c_b = vb.arrays;
        d_b = vb.arrays + size;
        rc = loom_mpi_v_convert(comm, a->counts, a->displs, size, a->vtype,
                                a->gather ? "receive" : "send", call, c_b, d_b);
    }
    if (rc == MPI_SUCCESS) {
        rc = loom_mpi_v_own(comm, a->ownbuf, a->owncount, a->owntype,
                            rank == a->root ? c_b[rank] : (size_t)-1,
                            a->gather ? "send" : "receive", call, &own);
    }
    if (rc != MPI_SUCCESS) {
        loom_mpi_vbuf_discard(&vb);
        return rc;
    }
    if (a->gather) {
        st = nb ? loom_igatherv(sendbuf, own, recvbuf, c_b, d_b, LOOM_BYTE, a->root, lcomm,
                                request)
                : loom_gatherv(sendbuf, own, recvbuf, c_b, d_b, LOOM_BYTE, a->root, lcomm);
    } else {
        st = nb ? loom_iscatterv(sendbuf, c_b, d_b, recvbuf, own, LOOM_BYTE, a->root,
                                 lcomm, request)
                : loom_scatterv(sendbuf, c_b, d_b, recvbuf, own, LOOM_BYTE, a->root,
                                lcomm);
    }
    return loom_mpi_vbuf_done(&vb, st, comm, request, call);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(sendtype) || loom_mpi_type_coll_nc(recvtype))) {
        return loom_mpi_dtc_gatherv('g', sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                   displs, recvtype, root, comm, NULL, "MPI_Gatherv");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                      displs, 0, recvtype, root, comm, "MPI_Gatherv", NULL);
    }
    loom_mpi_rootv_t a = { 1, sendbuf, sendcount, sendtype, recvcounts, displs, recvtype,
                           root };

    return loom_mpi_rootv(&a, sendbuf, recvbuf, comm, 0, NULL, "MPI_Gatherv");
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely((loom_mpi_type_coll_nc(sendtype) ||
                       loom_mpi_type_coll_nc(recvtype))) && request != NULL) {
        return loom_mpi_dtc_gatherv('g', sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                   displs, recvtype, root, comm, request, "MPI_Igatherv");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Igatherv") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                      displs, 0, recvtype, root, comm, "MPI_Igatherv", request);
    }
    loom_mpi_rootv_t a = { 1, sendbuf, sendcount, sendtype, recvcounts, displs, recvtype,
                           root };

    return loom_mpi_rootv(&a, sendbuf, recvbuf, comm, 1, request, "MPI_Igatherv");
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(sendtype) || loom_mpi_type_coll_nc(recvtype))) {
        return loom_mpi_dtc_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                                     recvcount, recvtype, root, comm, NULL, "MPI_Scatterv");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_scatterv(sendbuf, sendcounts, displs, 0, sendtype, recvbuf,
                                       recvcount, recvtype, root, comm, "MPI_Scatterv", NULL);
    }
    loom_mpi_rootv_t a = { 0, recvbuf, recvcount, recvtype, sendcounts, displs, sendtype,
                           root };

    return loom_mpi_rootv(&a, sendbuf, recvbuf, comm, 0, NULL, "MPI_Scatterv");
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely((loom_mpi_type_coll_nc(sendtype) ||
                       loom_mpi_type_coll_nc(recvtype))) && request != NULL) {
        return loom_mpi_dtc_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                                     recvcount, recvtype, root, comm, request, "MPI_Iscatterv");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Iscatterv") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_scatterv(sendbuf, sendcounts, displs, 0, sendtype, recvbuf,
                                       recvcount, recvtype, root, comm, "MPI_Iscatterv", request);
    }
    loom_mpi_rootv_t a = { 0, recvbuf, recvcount, recvtype, sendcounts, displs, sendtype,
                           root };

    return loom_mpi_rootv(&a, sendbuf, recvbuf, comm, 1, request, "MPI_Iscatterv");
}

/* ---- alltoallv -------------------------------------------------------------------------------- */

static int loom_mpi_alltoallv(const void *sendbuf, const int sendcounts[],
                              const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, int nb,
                              MPI_Request *request, const char *call)
{
    loom_comm_t lcomm;
    loom_mpi_vbuf_t vb;
    loom_status_t st;
    size_t *a;
    int size, rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nb && request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    size = loom_comm_size(lcomm);
    if ((rc = loom_mpi_vbuf_get(&vb, 4 * (size_t)size, nb, comm, call)) != 0) {
        return rc;
    }
    a = vb.arrays;  /* send counts, send displs, recv counts, recv displs */
    rc = loom_mpi_v_convert(comm, recvcounts, rdispls, size, recvtype, "receive", call,
                            a + 2 * size, a + 3 * size);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
        rc = loom_mpi_v_convert(comm, sendcounts, sdispls, size, sendtype, "send", call,
                                a, a + size);
    } else if (rc == MPI_SUCCESS) {  /* in place: the send side is the receive side */
        for (int i = 0; i < 2 * size; ++i) {
            a[i] = a[2 * size + i];
        }
    }
    if (rc != MPI_SUCCESS) {
        loom_mpi_vbuf_discard(&vb);
        return rc;
    }
    st = nb ? loom_ialltoallv(sendbuf, a, a + size, recvbuf, a + 2 * size, a + 3 * size,
                              LOOM_BYTE, lcomm, request)
            : loom_alltoallv(sendbuf, a, a + size, recvbuf, a + 2 * size, a + 3 * size,
                             LOOM_BYTE, lcomm);
    return loom_mpi_vbuf_done(&vb, st, comm, request, call);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(sendtype) || loom_mpi_type_coll_nc(recvtype))) {
        return loom_mpi_dtc_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                      recvcounts, rdispls, recvtype, comm, NULL,
                                      "MPI_Alltoallv");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_alltoallv(sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf,
                                        recvcounts, rdispls, 0, recvtype, comm,
                                        "MPI_Alltoallv", NULL);
    }
    return loom_mpi_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm, 0, NULL, "MPI_Alltoallv");
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely((loom_mpi_type_coll_nc(sendtype) ||
                       loom_mpi_type_coll_nc(recvtype))) && request != NULL) {
        return loom_mpi_dtc_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                      recvcounts, rdispls, recvtype, comm, request,
                                      "MPI_Ialltoallv");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Ialltoallv") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_alltoallv(sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf,
                                        recvcounts, rdispls, 0, recvtype, comm,
                                        "MPI_Ialltoallv", request);
    }
    return loom_mpi_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm, 1, request, "MPI_Ialltoallv");
}
