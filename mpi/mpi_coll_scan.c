/*
 * mpi_coll_scan.c: MPI_Scan, MPI_Exscan, MPI_Reduce_scatter, MPI_Alltoallw
 * and their nonblocking forms, mapped onto loom_scan, loom_exscan,
 * loom_reduce_scatter and loom_alltoallw.
 *
 * Reductions pass the datatype's basic type with count x n elements and
 * the resolved loom op (as mpi_coll.c): a block of a reduce_scatter is
 * recvcounts[i] x n basic elements, always whole elements of the MPI type,
 * so a user function sees whole elements. Alltoallw passes each peer's
 * basic type and count x n elements with MPI's byte displacements; every
 * datatype this binding can build is contiguous ("basic type x n",
 * mpi_int.h), so no type needs packing here. The converted arrays live in
 * the blocking scratch or, for the nonblocking forms, in side storage
 * attached to the request (mpi_request.c), as in mpi_collv.c.
 */
#include "mpi_int.h"
#include "mpi_intercomm_int.h"
#include "mt_int.h"

static int loom_mpi_scan_done(MPI_Comm comm, loom_status_t st, const char *call)
{
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, call);
}

/* Communicator and request of call @p call; the loom communicator in *lcomm_p. */
static int loom_mpi_scan_common(MPI_Comm comm, int nb, MPI_Request *request,
                                const char *call, loom_comm_t *lcomm_p)
{
    int rc = loom_mpi_comm_arg(comm, call, lcomm_p);

    if (rc == MPI_SUCCESS && nb && request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    return rc;
}

/* ---- scan, exscan -------------------------------------------------------------------- */

static int loom_mpi_scan(int ex, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int nb,
                         MPI_Request *request, const char *call)
{
    loom_comm_t lcomm;
    loom_op_t lop;
    loom_status_t st;
    size_t n;
    loom_datatype_t b;
    int rc = loom_mpi_scan_common(comm, nb, request, call, &lcomm);

    if (rc != MPI_SUCCESS ||
        (rc = loom_mpi_red_args(comm, datatype, count, op, call, &n, &lop)) != MPI_SUCCESS) {
        return rc;
    }
    b = datatype->base;
    if (ex) {
        st = nb ? loom_iexscan(sendbuf, recvbuf, n, b, lop, lcomm, request)
                : loom_exscan(sendbuf, recvbuf, n, b, lop, lcomm);
    } else {
        st = nb ? loom_iscan(sendbuf, recvbuf, n, b, lop, lcomm, request)
                : loom_scan(sendbuf, recvbuf, n, b, lop, lcomm);
    }
    return loom_mpi_scan_done(comm, st, call);
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype))) {
        return loom_mpi_dtr(LOOM_MPI_DTR_SCAN, sendbuf, recvbuf, count, NULL, datatype, op,
                            0, comm, NULL, "MPI_Scan");
    }
    return loom_mpi_scan(0, sendbuf, recvbuf, count, datatype, op, comm, 0, NULL,
                         "MPI_Scan");
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype)) && request != NULL) {
        return loom_mpi_dtr(LOOM_MPI_DTR_SCAN, sendbuf, recvbuf, count, NULL, datatype, op,
                            0, comm, request, "MPI_Iscan");
    }
    return loom_mpi_scan(0, sendbuf, recvbuf, count, datatype, op, comm, 1, request,
                         "MPI_Iscan");
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype))) {
        return loom_mpi_dtr(LOOM_MPI_DTR_EXSCAN, sendbuf, recvbuf, count, NULL, datatype, op,
                            0, comm, NULL, "MPI_Exscan");
    }
    return loom_mpi_scan(1, sendbuf, recvbuf, count, datatype, op, comm, 0, NULL,
                         "MPI_Exscan");
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype)) && request != NULL) {
        return loom_mpi_dtr(LOOM_MPI_DTR_EXSCAN, sendbuf, recvbuf, count, NULL, datatype, op,
                            0, comm, request, "MPI_Iexscan");
    }
    return loom_mpi_scan(1, sendbuf, recvbuf, count, datatype, op, comm, 1, request,
                         "MPI_Iexscan");
}

/* ---- converted arrays: blocking scratch or nonblocking side storage ---------------- */

static size_t *loom_mpi_scan_arrays(size_t nelem, int nb, MPI_Comm comm, const char *call,
                                    loom_mpi_side_t **side_p)
{
    size_t *a;

    *side_p = nb ? loom_mpi_side_alloc(nelem) : NULL;
    a = nb ? (*side_p != NULL ? (*side_p)->arrays : NULL) : loom_mpi_scratch(nelem);
    if (a == NULL) {
        (void)loom_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "out of memory for %zu counts and displacements", nelem);
    }
    return a;
}

/* Attach (loom started) or free (it did not) the side storage; raise @p st. */
static int loom_mpi_scan_arrays_done(loom_mpi_side_t *side, loom_status_t st,
                                     MPI_Comm comm, MPI_Request *request, const char *call)
{
    if (side != NULL) {
        loom_mpi_side_attach(side, st == LOOM_OK ? *request : MPI_REQUEST_NULL);
    }
    return loom_mpi_scan_done(comm, st, call);
}

/* ---- reduce_scatter ---------------------------------------------------------------------- */

static int loom_mpi_reduce_scatter(const void *sendbuf, void *recvbuf,
                                   const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, int nb, MPI_Request *request,
                                   const char *call)
{
    loom_comm_t lcomm;
    loom_mpi_side_t *side = NULL;
    loom_op_t lop;
    loom_status_t st;
    size_t *counts, none;
    int size, rc = loom_mpi_scan_common(comm, nb, request, call, &lcomm);

    if (rc != MPI_SUCCESS ||
        (rc = loom_mpi_red_args(comm, datatype, 0, op, call, &none, &lop)) != MPI_SUCCESS) {
        return rc;
    }
    if (recvcounts == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    }
    size = loom_comm_size(lcomm);
    for (int i = 0; i < size; ++i) {
        if (recvcounts[i] < 0) {
            return loom_mpi_raise(comm, MPI_ERR_COUNT, call,
                                  "recvcounts[%d] = %d is negative", i, recvcounts[i]);
        }
    }
    if ((counts = loom_mpi_scan_arrays((size_t)size, nb, comm, call, &side)) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < size; ++i) {
        counts[i] = (size_t)recvcounts[i] * datatype->n;
    }
    st = nb ? loom_ireduce_scatter(sendbuf, recvbuf, counts, datatype->base, lop, lcomm,
                                   request)
            : loom_reduce_scatter(sendbuf, recvbuf, counts, datatype->base, lop, lcomm);
    return loom_mpi_scan_arrays_done(side, st, comm, request, call);
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype))) {
        return loom_mpi_dtr(LOOM_MPI_DTR_RS, sendbuf, recvbuf, 0, recvcounts, datatype, op,
                            0, comm, NULL, "MPI_Reduce_scatter");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op,
                                             comm, "MPI_Reduce_scatter", NULL);
    }
    return loom_mpi_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, 0,
                                   NULL, "MPI_Reduce_scatter");
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype)) && request != NULL) {
        return loom_mpi_dtr(LOOM_MPI_DTR_RS, sendbuf, recvbuf, 0, recvcounts, datatype, op,
                            0, comm, request, "MPI_Ireduce_scatter");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Ireduce_scatter") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype,
                                               op, comm, "MPI_Ireduce_scatter", request);
    }
    return loom_mpi_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, 1,
                                   request, "MPI_Ireduce_scatter");
}

/* ---- alltoallw ------------------------------------------------------------------------------ */

/*
 * One side (@p what) of an alltoallw into loom's arrays: counts x n basic
 * elements, byte displacements, basic types.
 */
static int loom_mpi_w_convert(MPI_Comm comm, int size, const int counts[],
                              const int displs[], const MPI_Datatype types[],
                              const char *what, const char *call, size_t *lcounts,
                              size_t *ldispls, loom_datatype_t *ltypes)
{
    int rc;

    if (counts == NULL || displs == NULL || types == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s%s array is NULL", what,
                              counts == NULL ? "counts" : displs == NULL ? "displs"
                                                                         : "types");
    }
    for (int i = 0; i < size; ++i) {
        if ((rc = loom_mpi_type_check(types[i], counts[i])) != MPI_SUCCESS) {
            return loom_mpi_raise(comm, rc, call, rc == MPI_ERR_COUNT
                                  ? "%scounts[%d] = %d is negative"
                                  : "%stypes[%d] is uncommitted or non-contiguous (count %d)",
                                  what, i, counts[i]);
        }
        if (displs[i] < 0) {   /* size_t offsets: nothing before the buffer start */
            return loom_mpi_raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                                  "%sdispls[%d] = %d is negative (loom's offsets are "
                                  "unsigned)", what, i, displs[i]);
        }
        lcounts[i] = (size_t)counts[i] * types[i]->n;
        ldispls[i] = (size_t)displs[i];
        ltypes[i]  = types[i]->base;
    }
    return MPI_SUCCESS;
}

/* MPI_Alltoallw's arguments */
typedef struct loom_mpi_w {
    const void         *sendbuf;
    const int          *sendcounts, *sdispls;
    const MPI_Datatype *sendtypes;
    void               *recvbuf;
    const int          *recvcounts, *rdispls;
    const MPI_Datatype *recvtypes;
} loom_mpi_w_t;

static int loom_mpi_alltoallw(const loom_mpi_w_t *w, MPI_Comm comm, int nb,
                              MPI_Request *request, const char *call)
{
    loom_comm_t lcomm;
    loom_mpi_side_t *side = NULL;
    loom_status_t st;
    loom_datatype_t *lt;
    size_t *a, p;
    int in_place = w->sendbuf == MPI_IN_PLACE;
    int size, rc = loom_mpi_scan_common(comm, nb, request, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    size = loom_comm_size(lcomm);
    p = (size_t)size;
    /* send counts, displs; recv counts, displs; then 2p types (in the next 2p) */
    _Static_assert(sizeof(loom_datatype_t) <= sizeof(size_t), "types fit size_t slots");
    if ((a = loom_mpi_scan_arrays(6 * p, nb, comm, call, &side)) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    lt = (loom_datatype_t *)(void *)(a + 4 * p);
    rc = loom_mpi_w_convert(comm, size, w->recvcounts, w->rdispls, w->recvtypes, "recv",
                            call, a + 2 * p, a + 3 * p, lt + p);
    if (rc == MPI_SUCCESS && !in_place) {
        rc = loom_mpi_w_convert(comm, size, w->sendcounts, w->sdispls, w->sendtypes, "send",
                                call, a, a + p, lt);
    }
    if (rc != MPI_SUCCESS) {
        if (side != NULL) {
            loom_mpi_side_attach(side, MPI_REQUEST_NULL);   /* frees it */
        }
        return rc;
    }
    st = nb ? loom_ialltoallw(w->sendbuf, a, a + p, lt, w->recvbuf, a + 2 * p, a + 3 * p,
                              lt + p, lcomm, request)
            : loom_alltoallw(w->sendbuf, a, a + p, lt, w->recvbuf, a + 2 * p, a + 3 * p,
                             lt + p, lcomm);
    return loom_mpi_scan_arrays_done(side, st, comm, request, call);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_dtc_w_any(comm, sendbuf, sendtypes, recvtypes))) {
        return loom_mpi_dtc_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                      recvcounts, rdispls, recvtypes, comm, NULL,
                                      "MPI_Alltoallw");
    }
    loom_mpi_w_t w = { sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                       rdispls, recvtypes };

    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                        recvcounts, rdispls, recvtypes, comm,
                                        "MPI_Alltoallw", NULL);
    }
    return loom_mpi_alltoallw(&w, comm, 0, NULL, "MPI_Alltoallw");
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_dtc_w_any(comm, sendbuf, sendtypes, recvtypes)) &&
        request != NULL) {
        return loom_mpi_dtc_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                      recvcounts, rdispls, recvtypes, comm, request,
                                      "MPI_Ialltoallw");
    }
    loom_mpi_w_t w = { sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                       rdispls, recvtypes };

    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Ialltoallw") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                          recvcounts, rdispls, recvtypes, comm,
                                          "MPI_Ialltoallw", request);
    }
    return loom_mpi_alltoallw(&w, comm, 1, request, "MPI_Ialltoallw");
}
