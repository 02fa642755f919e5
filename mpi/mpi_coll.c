/*
 * mpi_coll.c: the regular collectives and their nonblocking forms.
 *
 * Each blocking/nonblocking pair shares one function that validates the MPI
 * arguments once and calls loom's blocking or nonblocking entry point.
 * Reductions pass the datatype's basic type with count * n elements and the
 * resolved loom op. The other collectives move bytes (LOOM_BYTE): MPI lets
 * the send and receive sides describe the same data with different types,
 * and every rank must hand loom the same element type, so bytes are the
 * common currency. loom takes one count per call, so the send and receive
 * sizes of a block must be equal (MPI requires matching type signatures);
 * a mismatch is reported, not truncated silently.
 */
#include "mpi_int.h"
#include "mpi_intercomm_int.h"
#include "mt_int.h"

#include <limits.h>

/* Validate one (count, datatype) pair and give its size in bytes. */
static int loom_mpi_bytes(MPI_Comm comm, MPI_Datatype dt, int count, const char *what,
                          const char *call, size_t *bytes_p)
{
    int rc = loom_mpi_type_check(dt, count);

    *bytes_p = 0;
    if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
        return loom_mpi_raise(comm, rc, call, rc == MPI_ERR_COUNT
                              ? "%s count %d is negative"
                              : "%s datatype is uncommitted or non-contiguous (count %d)",
                              what, count);
    }
    *bytes_p = (size_t)count * loom_mpi_type_extent(dt);
    return MPI_SUCCESS;
}

/* Send and receive block sizes must agree (loom takes one count). */
static int loom_mpi_match(MPI_Comm comm, size_t send_bytes, size_t recv_bytes,
                          const char *call)
{
    if (send_bytes == recv_bytes) {
        return MPI_SUCCESS;
    }
    return loom_mpi_raise(comm, send_bytes > recv_bytes ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                          call, "send block is %zu bytes but receive block is %zu bytes "
                          "(the type signatures must match)", send_bytes, recv_bytes);
}

static int loom_mpi_nb_arg(MPI_Comm comm, int nb, MPI_Request *request, const char *call)
{
    if (nb && request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, call, "request is NULL");
    }
    return MPI_SUCCESS;
}

static inline int loom_mpi_coll_done(MPI_Comm comm, loom_status_t st, const char *call)
{
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, call);
}

/* ---- barrier, bcast ---------------------------------------------------------------------- */

static int loom_mpi_barrier(MPI_Comm comm, int nb, MPI_Request *request, const char *call)
{
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_nb_arg(comm, nb, request, call)) != 0) {
        return rc;
    }
    return loom_mpi_coll_done(comm, nb ? loom_ibarrier(lcomm, request)
                                       : loom_barrier(lcomm), call);
}

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_barrier(comm, NULL);
    }
    return loom_mpi_barrier(comm, 0, NULL, "MPI_Barrier");
}

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Ibarrier") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_barrier(comm, request);
    }
    return loom_mpi_barrier(comm, 1, request, "MPI_Ibarrier");
}

/* a bcast whose datatype the inline check refused: an error to raise (a
 * non-contiguous derived type went to mpi_dtype_coll.c before) */
static __attribute__((noinline)) int loom_mpi_bcast_slow(int count, MPI_Datatype datatype,
                                                         MPI_Comm comm, const char *call)
{
    size_t bytes;

    return loom_mpi_bytes(comm, datatype, count, "", call, &bytes);
}

static int loom_mpi_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                          MPI_Comm comm, int nb, MPI_Request *request, const char *call)
{
    loom_comm_t lcomm;
    size_t bytes;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_nb_arg(comm, nb, request, call)) != 0) {
        return rc;
    }
    if (loom_unlikely(loom_mpi_type_check(datatype, count) != MPI_SUCCESS)) {
        return loom_mpi_bcast_slow(count, datatype, comm, call);
    }
    bytes = (size_t)count * loom_mpi_type_extent(datatype);
    return loom_mpi_coll_done(comm, nb ? loom_ibcast(buffer, bytes, LOOM_BYTE, root, lcomm,
                                                     request)
                                       : loom_bcast(buffer, bytes, LOOM_BYTE, root, lcomm),
                              call);
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype))) {
        return loom_mpi_dtc_bcast(buffer, count, datatype, root, comm, NULL, "MPI_Bcast");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_bcast(buffer, count, datatype, root, comm, NULL);
    }
    return loom_mpi_bcast(buffer, count, datatype, root, comm, 0, NULL, "MPI_Bcast");
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype)) && request != NULL) {
        return loom_mpi_dtc_bcast(buffer, count, datatype, root, comm, request,
                                  "MPI_Ibcast");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Ibcast") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_bcast(buffer, count, datatype, root, comm, request);
    }
    return loom_mpi_bcast(buffer, count, datatype, root, comm, 1, request, "MPI_Ibcast");
}

/* ---- reductions ---------------------------------------------------------------------------- */

/* Validate a reduction's datatype, count and op; fill loom's count and op. */
int loom_mpi_red_args(MPI_Comm comm, MPI_Datatype dt, int count, MPI_Op op,
                      const char *call, size_t *lcount_p, loom_op_t *lop_p)
{
    int rc = loom_mpi_type_check(dt, count);

    *lcount_p = 0;
    *lop_p    = LOOM_OP_NULL;
    if (rc != MPI_SUCCESS) {
        return rc == MPI_ERR_COUNT
               ? loom_mpi_raise(comm, rc, call, "count %d is negative", count)
               : loom_mpi_raise(comm, rc, call, "datatype %s (count %d)",
                                loom_mpi_type_why(dt), count);
    }
    rc = loom_mpi_op_resolve(op, dt, lop_p);
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(comm, rc, call, rc == MPI_ERR_OP
                              ? "%p is not an operation" : "out of memory binding op %p",
                              (void *)op);
    }
    *lcount_p = (size_t)count * dt->n;
    return MPI_SUCCESS;
}

typedef enum loom_mpi_red_kind {
    LOOM_MPI_RED_REDUCE,
    LOOM_MPI_RED_ALLREDUCE,
    LOOM_MPI_RED_SCATTER_BLOCK,
} loom_mpi_red_kind_t;

static int loom_mpi_reduction(loom_mpi_red_kind_t kind, const void *sendbuf,
                              void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              int root, MPI_Comm comm, int nb, MPI_Request *request,
                              const char *call)
{
    loom_comm_t lcomm;
    size_t n;
    loom_op_t lop;
    loom_datatype_t b;
    loom_status_t st = LOOM_ERR_INTERNAL;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_nb_arg(comm, nb, request, call)) != 0 ||
        (rc = loom_mpi_red_args(comm, datatype, count, op, call, &n, &lop)) != 0) {
        return rc;
    }
    b = datatype->base;
    switch (kind) {
    case LOOM_MPI_RED_REDUCE:
        st = nb ? loom_ireduce(sendbuf, recvbuf, n, b, lop, root, lcomm, request)
                : loom_reduce(sendbuf, recvbuf, n, b, lop, root, lcomm);
        break;
    case LOOM_MPI_RED_ALLREDUCE:
        st = nb ? loom_iallreduce(sendbuf, recvbuf, n, b, lop, lcomm, request)
                : loom_allreduce(sendbuf, recvbuf, n, b, lop, lcomm);
        break;
    case LOOM_MPI_RED_SCATTER_BLOCK:
        st = nb ? loom_ireduce_scatter_block(sendbuf, recvbuf, n, b, lop, lcomm, request)
                : loom_reduce_scatter_block(sendbuf, recvbuf, n, b, lop, lcomm);
        break;
    }
    return loom_mpi_coll_done(comm, st, call);
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, int root, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype))) {
        return loom_mpi_dtr(LOOM_MPI_DTR_REDUCE, sendbuf, recvbuf, count, NULL, datatype, op,
                            root, comm, NULL, "MPI_Reduce");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_reduce(sendbuf, recvbuf, count, datatype, op, root, comm,
                                     "MPI_Reduce", NULL);
    }
    return loom_mpi_reduction(LOOM_MPI_RED_REDUCE, sendbuf, recvbuf, count, datatype, op,
                              root, comm, 0, NULL, "MPI_Reduce");
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype)) && request != NULL) {
        return loom_mpi_dtr(LOOM_MPI_DTR_REDUCE, sendbuf, recvbuf, count, NULL, datatype, op,
                            root, comm, request, "MPI_Ireduce");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Ireduce") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_reduce(sendbuf, recvbuf, count, datatype, op, root, comm,
                                     "MPI_Ireduce", request);
    }
    return loom_mpi_reduction(LOOM_MPI_RED_REDUCE, sendbuf, recvbuf, count, datatype, op,
                              root, comm, 1, request, "MPI_Ireduce");
}

/*
 * A predefined datatype and a predefined op on a live communicator need no
 * resolving: predefined types are one base element, always committed and
 * never freed; a predefined op is its loom op. Small allreduces are a few
 * hundred instructions end to end, so this case skips the generic argument
 * path (which handles everything else and reports the errors).
 */
static inline int loom_mpi_red_predefined(MPI_Comm comm, MPI_Datatype dt, int count,
                                          MPI_Op op)
{
    return loom_mpi_comm_live(comm) && dt != MPI_DATATYPE_NULL &&
           dt->magic == LOOM_MPI_TYPE_MAGIC && dt->predefined && count >= 0 &&
           op != MPI_OP_NULL && op->magic == LOOM_MPI_OP_MAGIC && op->predefined;
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype))) {
        return loom_mpi_dtr(LOOM_MPI_DTR_ALLREDUCE, sendbuf, recvbuf, count, NULL, datatype, op,
                            0, comm, NULL, "MPI_Allreduce");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_reduce(sendbuf, recvbuf, count, datatype, op, INT_MIN, comm,
                                     "MPI_Allreduce", NULL);
    }
    if (__builtin_expect(loom_mpi_red_predefined(comm, datatype, count, op), 1)) {
        return loom_mpi_coll_done(comm, loom_allreduce(sendbuf, recvbuf, (size_t)count,
                                                       datatype->base, op->op, comm->comm),
                                  "MPI_Allreduce");
    }
    return loom_mpi_reduction(LOOM_MPI_RED_ALLREDUCE, sendbuf, recvbuf, count, datatype,
                              op, 0, comm, 0, NULL, "MPI_Allreduce");
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype)) && request != NULL) {
        return loom_mpi_dtr(LOOM_MPI_DTR_ALLREDUCE, sendbuf, recvbuf, count, NULL, datatype, op,
                            0, comm, request, "MPI_Iallreduce");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Iallreduce") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_reduce(sendbuf, recvbuf, count, datatype, op, INT_MIN, comm,
                                     "MPI_Iallreduce", request);
    }
    return loom_mpi_reduction(LOOM_MPI_RED_ALLREDUCE, sendbuf, recvbuf, count, datatype,
                              op, 0, comm, 1, request, "MPI_Iallreduce");
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype))) {
        return loom_mpi_dtr(LOOM_MPI_DTR_RSB, sendbuf, recvbuf, recvcount, NULL, datatype,
                            op, 0, comm, NULL, "MPI_Reduce_scatter_block");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype,
                                             op, comm, "MPI_Reduce_scatter_block", NULL);
    }
    return loom_mpi_reduction(LOOM_MPI_RED_SCATTER_BLOCK, sendbuf, recvbuf, recvcount,
                              datatype, op, 0, comm, 0, NULL, "MPI_Reduce_scatter_block");
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype)) && request != NULL) {
        return loom_mpi_dtr(LOOM_MPI_DTR_RSB, sendbuf, recvbuf, recvcount, NULL, datatype,
                            op, 0, comm, request, "MPI_Ireduce_scatter_block");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Ireduce_scatter_block") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype,
                                             op, comm, "MPI_Ireduce_scatter_block", request);
    }
    return loom_mpi_reduction(LOOM_MPI_RED_SCATTER_BLOCK, sendbuf, recvbuf, recvcount,
                              datatype, op, 0, comm, 1, request,
                              "MPI_Ireduce_scatter_block");
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(datatype))) {
        return loom_mpi_dtr_local(inbuf, inoutbuf, count, datatype, op);
    }
    size_t n;
    loom_op_t lop;
    loom_status_t st;
    int rc = loom_mpi_red_args(NULL, datatype, count, op, "MPI_Reduce_local", &n, &lop);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    st = loom_op_reduce(lop, inbuf, inoutbuf, n, datatype->base);
    return loom_mpi_coll_done(NULL, st, "MPI_Reduce_local");
}

/* ---- data movement: allgather, alltoall, gather, scatter ------------------------------------ */

typedef enum loom_mpi_move_kind {
    LOOM_MPI_MOVE_ALLGATHER,
    LOOM_MPI_MOVE_ALLTOALL,
    LOOM_MPI_MOVE_GATHER,
    LOOM_MPI_MOVE_SCATTER,
} loom_mpi_move_kind_t;

/* The arguments of the four regular data-movement collectives. */
typedef struct loom_mpi_move {
    loom_mpi_move_kind_t kind;
    const void          *sendbuf;
    int                  sendcount;
    MPI_Datatype         sendtype;
    void                *recvbuf;
    int                  recvcount;
    MPI_Datatype         recvtype;
    int                  root;       /* gather, scatter */
} loom_mpi_move_t;

/*
 * The block size in bytes, from the side that is significant on this rank:
 * both for allgather/alltoall (checked equal unless in place), the receive
 * side at a gather root and the send side at a scatter root, the other side
 * elsewhere.
 */
static int loom_mpi_move_bytes(const loom_mpi_move_t *m, MPI_Comm comm, int is_root,
                               const char *call, size_t *bytes_p)
{
    size_t sb = 0, rb = 0;
    int need_send, need_recv, rc;

    switch (m->kind) {
    case LOOM_MPI_MOVE_GATHER:
        need_recv = is_root;
        need_send = !is_root || m->sendbuf != MPI_IN_PLACE;
        break;
    case LOOM_MPI_MOVE_SCATTER:
        need_send = is_root;
        need_recv = !is_root || m->recvbuf != MPI_IN_PLACE;
        break;
    default:
        need_recv = 1;
        need_send = m->sendbuf != MPI_IN_PLACE;
        break;
    }
    if (need_send &&
        (rc = loom_mpi_bytes(comm, m->sendtype, m->sendcount, "send", call, &sb)) != 0) {
        return rc;
    }
    if (need_recv &&
        (rc = loom_mpi_bytes(comm, m->recvtype, m->recvcount, "receive", call, &rb)) != 0) {
        return rc;
    }
    if (need_send && need_recv && (rc = loom_mpi_match(comm, sb, rb, call)) != 0) {
        return rc;
    }
    *bytes_p = need_recv ? rb : sb;
    return MPI_SUCCESS;
}

static int loom_mpi_move(const loom_mpi_move_t *m, MPI_Comm comm, int nb,
                         MPI_Request *request, const char *call)
{
    loom_comm_t lcomm;
    size_t bytes;
    loom_status_t st = LOOM_ERR_INTERNAL;
    const void *sb = m->sendbuf;
    void *rb = m->recvbuf;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS || (rc = loom_mpi_nb_arg(comm, nb, request, call)) != 0 ||
        (rc = loom_mpi_move_bytes(m, comm, loom_comm_rank(lcomm) == m->root, call,
                                  &bytes)) != 0) {
        return rc;
    }
    switch (m->kind) {
    case LOOM_MPI_MOVE_ALLGATHER:
        st = nb ? loom_iallgather(sb, rb, bytes, LOOM_BYTE, lcomm, request)
                : loom_allgather(sb, rb, bytes, LOOM_BYTE, lcomm);
        break;
    case LOOM_MPI_MOVE_ALLTOALL:
        st = nb ? loom_ialltoall(sb, rb, bytes, LOOM_BYTE, lcomm, request)
                : loom_alltoall(sb, rb, bytes, LOOM_BYTE, lcomm);
        break;
    case LOOM_MPI_MOVE_GATHER:
        st = nb ? loom_igather(sb, rb, bytes, LOOM_BYTE, m->root, lcomm, request)
                : loom_gather(sb, rb, bytes, LOOM_BYTE, m->root, lcomm);
        break;
    case LOOM_MPI_MOVE_SCATTER:
        st = nb ? loom_iscatter(sb, rb, bytes, LOOM_BYTE, m->root, lcomm, request)
                : loom_scatter(sb, rb, bytes, LOOM_BYTE, m->root, lcomm);
        break;
    }
    return loom_mpi_coll_done(comm, st, call);
}

#define LOOM_MPI_MOVE_INIT(kind_, root_)                                              \
    { .kind = (kind_), .sendbuf = sendbuf, .sendcount = sendcount,                    \
      .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,               \
      .recvtype = recvtype, .root = (root_) }

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(sendtype) || loom_mpi_type_coll_nc(recvtype))) {
        return loom_mpi_dtc_move('a', sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, 0, comm, NULL, "MPI_Allgather");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
                                         recvcount, recvtype, comm, "MPI_Allgather", NULL);
    }
    loom_mpi_move_t m = LOOM_MPI_MOVE_INIT(LOOM_MPI_MOVE_ALLGATHER, -1);

    return loom_mpi_move(&m, comm, 0, NULL, "MPI_Allgather");
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely((loom_mpi_type_coll_nc(sendtype) ||
                       loom_mpi_type_coll_nc(recvtype))) && request != NULL) {
        return loom_mpi_dtc_move('a', sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, 0, comm, request, "MPI_Iallgather");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Iallgather") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
                                         recvcount, recvtype, comm, "MPI_Iallgather", request);
    }
    loom_mpi_move_t m = LOOM_MPI_MOVE_INIT(LOOM_MPI_MOVE_ALLGATHER, -1);

    return loom_mpi_move(&m, comm, 1, request, "MPI_Iallgather");
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(sendtype) || loom_mpi_type_coll_nc(recvtype))) {
        return loom_mpi_dtc_move('t', sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, 0, comm, NULL, "MPI_Alltoall");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_alltoallv(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf,
                                        NULL, NULL, recvcount, recvtype, comm,
                                        "MPI_Alltoall", NULL);
    }
    loom_mpi_move_t m = LOOM_MPI_MOVE_INIT(LOOM_MPI_MOVE_ALLTOALL, -1);

    return loom_mpi_move(&m, comm, 0, NULL, "MPI_Alltoall");
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely((loom_mpi_type_coll_nc(sendtype) ||
                       loom_mpi_type_coll_nc(recvtype))) && request != NULL) {
        return loom_mpi_dtc_move('t', sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, 0, comm, request, "MPI_Ialltoall");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Ialltoall") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_alltoallv(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf,
                                        NULL, NULL, recvcount, recvtype, comm,
                                        "MPI_Ialltoall", request);
    }
    loom_mpi_move_t m = LOOM_MPI_MOVE_INIT(LOOM_MPI_MOVE_ALLTOALL, -1);

    return loom_mpi_move(&m, comm, 1, request, "MPI_Ialltoall");
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(sendtype) || loom_mpi_type_coll_nc(recvtype))) {
        return loom_mpi_dtc_move('g', sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, root, comm, NULL, "MPI_Gather");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
                                      recvcount, recvtype, root, comm, "MPI_Gather", NULL);
    }
    loom_mpi_move_t m = LOOM_MPI_MOVE_INIT(LOOM_MPI_MOVE_GATHER, root);

    return loom_mpi_move(&m, comm, 0, NULL, "MPI_Gather");
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely((loom_mpi_type_coll_nc(sendtype) ||
                       loom_mpi_type_coll_nc(recvtype))) && request != NULL) {
        return loom_mpi_dtc_move('g', sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, root, comm, request, "MPI_Igather");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Igather") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
                                      recvcount, recvtype, root, comm, "MPI_Igather", request);
    }
    loom_mpi_move_t m = LOOM_MPI_MOVE_INIT(LOOM_MPI_MOVE_GATHER, root);

    return loom_mpi_move(&m, comm, 1, request, "MPI_Igather");
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_mpi_type_coll_nc(sendtype) || loom_mpi_type_coll_nc(recvtype))) {
        return loom_mpi_dtc_move('s', sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, root, comm, NULL, "MPI_Scatter");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_scatterv(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype, root, comm, "MPI_Scatter", NULL);
    }
    loom_mpi_move_t m = LOOM_MPI_MOVE_INIT(LOOM_MPI_MOVE_SCATTER, root);

    return loom_mpi_move(&m, comm, 0, NULL, "MPI_Scatter");
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (loom_unlikely((loom_mpi_type_coll_nc(sendtype) ||
                       loom_mpi_type_coll_nc(recvtype))) && request != NULL) {
        return loom_mpi_dtc_move('s', sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, root, comm, request, "MPI_Iscatter");
    }
    if (LOOM_MPI_INTER_IS(comm)) {   /* intercommunicator: mpi_intercomm.c */
        return loom_mpi_inter_req(comm, request, "MPI_Iscatter") != MPI_SUCCESS
               ? MPI_ERR_REQUEST
               : loom_mpi_inter_scatterv(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype, root, comm, "MPI_Iscatter", request);
    }
    loom_mpi_move_t m = LOOM_MPI_MOVE_INIT(LOOM_MPI_MOVE_SCATTER, root);

    return loom_mpi_move(&m, comm, 1, request, "MPI_Iscatter");
}
