/*
 * mpi_intercomm.c: MPI intercommunicators: Intercomm_create/merge,
 * Comm_remote_size, and the MPI side of the intercomm collectives.
 *
 * Construction maps onto loom_intercomm_create/merge (collectives/
 * comm_create.c); dup/split/free of an intercomm go through the ordinary
 * MPI_Comm_* calls (loom dispatches on the communicator kind).
 *
 * Collectives: mpi_coll.c / mpi_collv.c hand calls on an intercomm here.
 * Counts and displacements become byte arrays indexed by remote rank
 * (every MPI type here is contiguous), rooted calls keep MPI's root
 * convention (MPI_ROOT == LOOM_ROOT, MPI_PROC_NULL == LOOM_PROC_NULL), and
 * reductions use the base type. A non-NULL request pointer selects the
 * nonblocking form (collectives/inter_nb.c).
 */
#include "mpi_intercomm_int.h"
#include "mpi_group_int.h"
#include "mt_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(MPI_ROOT == LOOM_ROOT && MPI_PROC_NULL == LOOM_PROC_NULL,
               "intercomm root conventions must agree");

int loom_mpi_inter_flag(loom_comm_t lcomm)
{
    return loom_comm_is_inter(lcomm);
}

int loom_mpi_inter_req(MPI_Comm comm, MPI_Request *request, const char *call)
{
    if (request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm, lpeer = LOOM_COMM_NULL, lnew = LOOM_COMM_NULL;
    int rc = loom_mpi_comm_arg(local_comm, "MPI_Intercomm_create", &lcomm);
    loom_status_t st;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newintercomm == NULL) {
        return loom_mpi_raise(local_comm, MPI_ERR_ARG, "MPI_Intercomm_create",
                              "newintercomm is NULL");
    }
    *newintercomm = MPI_COMM_NULL;
    if (loom_comm_rank(lcomm) == local_leader) {
        /* peer_comm is significant at the leader only; a bad one fails the leader's
         * part and the failure reaches every member through the local broadcast */
        lpeer = loom_mpi_comm_get(peer_comm);
    }
    st = loom_intercomm_create(lcomm, local_leader, lpeer, remote_leader, tag, &lnew);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(local_comm, st, "MPI_Intercomm_create");
    }
    return loom_mpi_comm_wrap(local_comm, lnew, "MPI_Intercomm_create", newintercomm);
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm, lnew = LOOM_COMM_NULL;
    int rc = loom_mpi_comm_arg(intercomm, "MPI_Intercomm_merge", &lcomm);
    loom_status_t st;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newintracomm == NULL) {
        return loom_mpi_raise(intercomm, MPI_ERR_ARG, "MPI_Intercomm_merge",
                              "newintracomm is NULL");
    }
    *newintracomm = MPI_COMM_NULL;
    st = loom_intercomm_merge(lcomm, high, &lnew);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(intercomm, st, "MPI_Intercomm_merge");
    }
    return loom_mpi_comm_wrap(intercomm, lnew, "MPI_Intercomm_merge", newintracomm);
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_remote_size", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (size == NULL || !loom_comm_is_inter(lcomm)) {
        return loom_mpi_raise(comm, size == NULL ? MPI_ERR_ARG : MPI_ERR_COMM,
                              "MPI_Comm_remote_size", size == NULL ? "size is NULL"
                              : "communicator is not an intercommunicator");
    }
    *size = loom_comm_remote_size(lcomm);
    return MPI_SUCCESS;
}

static int loom_mpi_inter_int_cmp(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;

    return (a > b) - (a < b);
}

int loom_mpi_inter_compare(loom_comm_t a, loom_comm_t b, int *result)
{
    int n = loom_comm_remote_size(a), same = 1, *ra, *rb, remote;

    if (!loom_comm_is_inter(a) || !loom_comm_is_inter(b) || n != loom_comm_remote_size(b)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if ((ra = malloc(2 * (size_t)n * sizeof(int) + 1)) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    rb = ra + n;
    for (int i = 0; i < n; ++i) {
        ra[i] = loom_comm_remote_world_rank(a, i);
        rb[i] = loom_comm_remote_world_rank(b, i);
        same &= ra[i] == rb[i];
    }
    qsort(ra, (size_t)n, sizeof(int), loom_mpi_inter_int_cmp);
    qsort(rb, (size_t)n, sizeof(int), loom_mpi_inter_int_cmp);
    remote = same ? MPI_CONGRUENT
             : memcmp(ra, rb, (size_t)n * sizeof(int)) == 0 ? MPI_SIMILAR : MPI_UNEQUAL;
    free(ra);
    if (*result == MPI_UNEQUAL || remote == MPI_UNEQUAL) {
        *result = MPI_UNEQUAL;
    } else if (*result == MPI_SIMILAR || remote == MPI_SIMILAR) {
        *result = MPI_SIMILAR;
    }
    return MPI_SUCCESS;
}

/* ---- collectives --------------------------------------------------------------- */

static int loom_mpi_inter_done(MPI_Comm comm, loom_status_t st, const char *call)
{
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, call);
}

/* MPI_IN_PLACE has no meaning on an intercommunicator (MPI-3.1 5.2.2). */
static int loom_mpi_inter_no_in_place(MPI_Comm comm, const void *a, const void *b,
                                      const char *call)
{
    if (a == MPI_IN_PLACE || b == MPI_IN_PLACE) {
        return loom_mpi_raise(comm, MPI_ERR_BUFFER, call,
                              "MPI_IN_PLACE is not allowed on an intercommunicator");
    }
    return MPI_SUCCESS;
}

/* Check (count, type); bytes of one element in *ext_p. */
static int loom_mpi_inter_type(MPI_Comm comm, MPI_Datatype dt, int count, const char *call,
                               size_t *ext_p)
{
    int rc = loom_mpi_type_check(dt, count);

    *ext_p = 0;
    if (rc != MPI_SUCCESS) {
        return rc == MPI_ERR_COUNT
               ? loom_mpi_raise(comm, rc, call, "count %d is negative", count)
               : loom_mpi_raise(comm, rc, call, "datatype %s (count %d)",
                                loom_mpi_type_why(dt), count);
    }
    *ext_p = loom_mpi_type_extent(dt);
    return MPI_SUCCESS;
}

/*
 * Byte counts and displacements of @p n blocks: from @p counts / @p displs,
 * or (@p counts NULL) @p each elements at i * @p each. Arrays in *c_p, *d_p.
 */
static int loom_mpi_inter_vec(MPI_Comm comm, int n, const int counts[], const int displs[],
                              int each, size_t ext, const char *call, size_t **c_p,
                              size_t **d_p)
{
    size_t *c = malloc((size_t)n * sizeof(*c) + 1), *d = malloc((size_t)n * sizeof(*d) + 1);

    *c_p = c;
    *d_p = d;
    if (c == NULL || d == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %d blocks", n);
    }
    for (int i = 0; i < n; ++i) {
        int ci = counts != NULL ? counts[i] : each;
        int di = counts != NULL ? (displs != NULL ? displs[i] : 0) : i * each;
        if (ci < 0 || di < 0) {
            return loom_mpi_raise(comm, MPI_ERR_COUNT, call, "block %d: count %d or "
                                  "displacement %d is negative", i, ci, di);
        }
        c[i] = (size_t)ci * ext;
        d[i] = (size_t)di * ext;
    }
    return MPI_SUCCESS;
}

int loom_mpi_inter_barrier(MPI_Comm comm, MPI_Request *req)
{
    return loom_mpi_inter_done(comm, req ? loom_inter_ibarrier(comm->comm, req)
                                           : loom_inter_barrier(comm->comm), "MPI_Barrier");
}

int loom_mpi_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                         MPI_Request *req)
{
    size_t ext;
    int rc = loom_mpi_inter_type(comm, dt, count, "MPI_Bcast", &ext);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return loom_mpi_inter_done(comm, req ? loom_inter_ibcast(buf, (size_t)count * ext, root,
                                                            comm->comm, req)
                                   : loom_inter_bcast(buf, (size_t)count * ext, root,
                                                      comm->comm), "MPI_Bcast");
}

int loom_mpi_inter_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           const int rcounts[], const int displs[], int rcount_all,
                           MPI_Datatype rdt, int root, MPI_Comm comm, const char *call,
                           MPI_Request *req)
{
    size_t sext = 0, rext = 0, *c = NULL, *d = NULL;
    int n = loom_comm_remote_size(comm->comm), rc = MPI_SUCCESS;

    if (loom_mpi_inter_no_in_place(comm, sbuf, rbuf, call) != MPI_SUCCESS) {
        return MPI_ERR_BUFFER;
    }
    if (root == MPI_ROOT) {
        rc = loom_mpi_inter_type(comm, rdt, rcounts ? 0 : rcount_all, call, &rext);
        if (rc == MPI_SUCCESS) {
            rc = loom_mpi_inter_vec(comm, n, rcounts, displs, rcount_all, rext, call, &c, &d);
        }
    } else if (root != MPI_PROC_NULL) {
        rc = loom_mpi_inter_type(comm, sdt, scount, call, &sext);
    }
    if (rc == MPI_SUCCESS) {
        loom_status_t st =
            req ? loom_inter_igatherv(sbuf, (size_t)scount * sext, rbuf, c, d, root,
                                      comm->comm, req)
                : loom_inter_gatherv(sbuf, (size_t)scount * sext, rbuf, c, d, root,
                                     comm->comm);
        rc = loom_mpi_inter_done(comm, st, call);
    }
    free(c);
    free(d);
    return rc;
}

int loom_mpi_inter_scatterv(const void *sbuf, const int scounts[], const int displs[],
                            int scount_all, MPI_Datatype sdt, void *rbuf, int rcount,
                            MPI_Datatype rdt, int root, MPI_Comm comm, const char *call,
                            MPI_Request *req)
{
    size_t sext = 0, rext = 0, *c = NULL, *d = NULL;
    int n = loom_comm_remote_size(comm->comm), rc = MPI_SUCCESS;

    if (loom_mpi_inter_no_in_place(comm, sbuf, rbuf, call) != MPI_SUCCESS) {
        return MPI_ERR_BUFFER;
    }
    if (root == MPI_ROOT) {
        rc = loom_mpi_inter_type(comm, sdt, scounts ? 0 : scount_all, call, &sext);
        if (rc == MPI_SUCCESS) {
            rc = loom_mpi_inter_vec(comm, n, scounts, displs, scount_all, sext, call, &c, &d);
        }
    } else if (root != MPI_PROC_NULL) {
        rc = loom_mpi_inter_type(comm, rdt, rcount, call, &rext);
    }
    if (rc == MPI_SUCCESS) {
        loom_status_t st =
            req ? loom_inter_iscatterv(sbuf, c, d, rbuf, (size_t)rcount * rext, root,
                                       comm->comm, req)
                : loom_inter_scatterv(sbuf, c, d, rbuf, (size_t)rcount * rext, root,
                                      comm->comm);
        rc = loom_mpi_inter_done(comm, st, call);
    }
    free(c);
    free(d);
    return rc;
}

int loom_mpi_inter_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                              const int rcounts[], const int displs[], int rcount_all,
                              MPI_Datatype rdt, MPI_Comm comm, const char *call,
                              MPI_Request *req)
{
    size_t sext, rext, *c = NULL, *d = NULL;
    int n = loom_comm_remote_size(comm->comm), rc;

    if (loom_mpi_inter_no_in_place(comm, sbuf, rbuf, call) != MPI_SUCCESS) {
        return MPI_ERR_BUFFER;
    }
    if ((rc = loom_mpi_inter_type(comm, sdt, scount, call, &sext)) == 0 &&
        (rc = loom_mpi_inter_type(comm, rdt, rcounts ? 0 : rcount_all, call, &rext)) == 0 &&
        (rc = loom_mpi_inter_vec(comm, n, rcounts, displs, rcount_all, rext, call, &c,
                                 &d)) == 0) {
        loom_status_t st =
            req ? loom_inter_iallgatherv(sbuf, (size_t)scount * sext, rbuf, c, d, comm->comm,
                                         req)
                : loom_inter_allgatherv(sbuf, (size_t)scount * sext, rbuf, c, d, comm->comm);
        rc = loom_mpi_inter_done(comm, st, call);
    }
    free(c);
    free(d);
    return rc;
}

int loom_mpi_inter_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                             int scount_all, MPI_Datatype sdt, void *rbuf,
                             const int rcounts[], const int rdispls[], int rcount_all,
                             MPI_Datatype rdt, MPI_Comm comm, const char *call,
                              MPI_Request *req)
{
    size_t sext, rext, *sc = NULL, *sd = NULL, *rc_ = NULL, *rd = NULL;
    int n = loom_comm_remote_size(comm->comm), rc;

    if (loom_mpi_inter_no_in_place(comm, sbuf, rbuf, call) != MPI_SUCCESS) {
        return MPI_ERR_BUFFER;
    }
    if ((rc = loom_mpi_inter_type(comm, sdt, scounts ? 0 : scount_all, call, &sext)) == 0 &&
        (rc = loom_mpi_inter_type(comm, rdt, rcounts ? 0 : rcount_all, call, &rext)) == 0 &&
        (rc = loom_mpi_inter_vec(comm, n, scounts, sdispls, scount_all, sext, call, &sc,
                                 &sd)) == 0 &&
        (rc = loom_mpi_inter_vec(comm, n, rcounts, rdispls, rcount_all, rext, call, &rc_,
                                 &rd)) == 0) {
        loom_status_t st =
            req ? loom_inter_ialltoallv(sbuf, sc, sd, rbuf, rc_, rd, comm->comm, req)
                : loom_inter_alltoallv(sbuf, sc, sd, rbuf, rc_, rd, comm->comm);
        rc = loom_mpi_inter_done(comm, st, call);
    }
    free(sc);
    free(sd);
    free(rc_);
    free(rd);
    return rc;
}

/*
 * One side of an intercommunicator alltoallw into byte counts and byte
 * offsets (@p n remote ranks; every type contiguous, MPI's displacements
 * already in bytes).
 */
static int loom_mpi_inter_wside(MPI_Comm comm, int n, const int counts[], const int displs[],
                                const MPI_Datatype types[], const char *what,
                                const char *call, size_t *c, size_t *d)
{
    size_t ext;

    if (counts == NULL || displs == NULL || types == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "an array of the %s side is NULL",
                              what);
    }
    for (int i = 0; i < n; ++i) {
        int rc = loom_mpi_inter_type(comm, types[i], counts[i], call, &ext);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        if (displs[i] < 0) {
            return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s displacement %d of block %d "
                                  "is negative", what, displs[i], i);
        }
        c[i] = (size_t)counts[i] * ext;
        d[i] = (size_t)displs[i];
    }
    return MPI_SUCCESS;
}

int loom_mpi_inter_alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                             const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                             const int rdispls[], const MPI_Datatype rtypes[],
                             MPI_Comm comm, const char *call, MPI_Request *req)
{
    size_t n = (size_t)loom_comm_remote_size(comm->comm);
    size_t *b = malloc(4 * n * sizeof(*b) + 1);
    int rc;

    if (loom_mpi_inter_no_in_place(comm, sbuf, rbuf, call) != MPI_SUCCESS) {
        free(b);
        return MPI_ERR_BUFFER;
    }
    if (b == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for %zu blocks", n);
    }
    if ((rc = loom_mpi_inter_wside(comm, (int)n, scounts, sdispls, stypes, "send", call, b,
                                   b + n)) == 0 &&
        (rc = loom_mpi_inter_wside(comm, (int)n, rcounts, rdispls, rtypes, "receive", call,
                                   b + 2 * n, b + 3 * n)) == 0) {
        loom_status_t st =
            req ? loom_inter_ialltoallv(sbuf, b, b + n, rbuf, b + 2 * n, b + 3 * n,
                                        comm->comm, req)
                : loom_inter_alltoallv(sbuf, b, b + n, rbuf, b + 2 * n, b + 3 * n,
                                       comm->comm);
        rc = loom_mpi_inter_done(comm, st, call);
    }
    free(b);
    return rc;
}

/* Resolve a reduction's (count, type, op). */
static int loom_mpi_inter_red(MPI_Comm comm, MPI_Datatype dt, int count, MPI_Op op,
                              const char *call, loom_op_t *lop_p)
{
    size_t ext;
    int rc = loom_mpi_inter_type(comm, dt, count, call, &ext);

    if (rc == MPI_SUCCESS && (rc = loom_mpi_op_resolve(op, dt, lop_p)) != MPI_SUCCESS) {
        return loom_mpi_raise(comm, rc, call, "%p is not an operation for this datatype",
                              (void *)op);
    }
    return rc;
}

int loom_mpi_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                          MPI_Op op, int root, MPI_Comm comm, const char *call,
                          MPI_Request *req)
{
    loom_op_t lop;
    size_t n;
    loom_status_t st;
    int rc = loom_mpi_inter_red(comm, dt, count, op, call, &lop);

    if (loom_mpi_inter_no_in_place(comm, sbuf, rbuf, call) != MPI_SUCCESS) {
        return MPI_ERR_BUFFER;
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = (size_t)count * dt->n;
    if (req != NULL) {
        st = root == INT_MIN
             ? loom_inter_iallreduce(sbuf, rbuf, n, dt->base, lop, comm->comm, req)
             : loom_inter_ireduce(sbuf, rbuf, n, dt->base, lop, root, comm->comm, req);
    } else {
        st = root == INT_MIN ? loom_inter_allreduce(sbuf, rbuf, n, dt->base, lop, comm->comm)
             : loom_inter_reduce(sbuf, rbuf, n, dt->base, lop, root, comm->comm);
    }
    return loom_mpi_inter_done(comm, st, call);
}

int loom_mpi_inter_reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                  int rcount_all, MPI_Datatype dt, MPI_Op op,
                                  MPI_Comm comm, const char *call, MPI_Request *req)
{
    int n = loom_comm_size(comm->comm), rc;
    size_t *c = NULL, *d = NULL;
    loom_op_t lop;

    if (loom_mpi_inter_no_in_place(comm, sbuf, rbuf, call) != MPI_SUCCESS) {
        return MPI_ERR_BUFFER;
    }
    if ((rc = loom_mpi_inter_red(comm, dt, rcounts ? 0 : rcount_all, op, call, &lop)) == 0 &&
        (rc = loom_mpi_inter_vec(comm, n, rcounts, NULL, rcount_all, dt->n, call, &c,
                                 &d)) == 0) {
        loom_status_t st =
            req ? loom_inter_ireduce_scatter(sbuf, rbuf, c, dt->base, lop, comm->comm, req)
                : loom_inter_reduce_scatter(sbuf, rbuf, c, dt->base, lop, comm->comm);
        rc = loom_mpi_inter_done(comm, st, call);
    }
    free(c);
    free(d);
    return rc;
}
