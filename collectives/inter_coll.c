/*
 * inter_coll.c: collectives on intercommunicators (MPI-3.1 section 5.2.2).
 *
 * Design: straightforward and blocking. Data that crosses between the
 * groups moves in point-to-point messages on the intercomm's collective
 * context (dest/source ranks name the remote group), one tag per operation
 * from loom_inter_next_tag() (every member of both groups starts the
 * intercomm's collectives in the same order). Work inside one group runs
 * as an ordinary collective on the intercomm's hidden local intracomm.
 *
 *   barrier:   local barrier, leaders (local rank 0) swap, local barrier
 *   bcast:     root -> remote rank 0 -> local bcast there
 *   gatherv/scatterv, allgatherv, alltoallv: direct messages between the
 *              processes concerned (linear; each pair exchanges one block)
 *   reduce:    local reduce to rank 0 of the sending group -> root
 *   allreduce: local reduce to rank 0, leaders swap, local bcast
 *   reduce_scatter: like allreduce, then a local scatterv of the result
 *
 * Roots follow MPI: in the root's group the root passes LOOM_ROOT and the
 * others LOOM_PROC_NULL; the other group passes the root's remote rank.
 * Counts of the byte-moving forms are in bytes (the MPI layer converts).
 */
#include "inter_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <stdlib.h>

/* Validate @p root; a LOOM_PROC_NULL caller takes the operation's tag here. */
static loom_status_t loom_inter_check_root(loom_comm_t comm, int root, const char *who)
{
    loom_status_t st = loom_inter_check_root_int(comm, root, who);

    if (st == LOOM_OK && root == LOOM_PROC_NULL) {
        (void)loom_inter_next_tag(comm);   /* the others take this operation's tag */
    }
    return st;
}

/* A batch of point-to-point operations on the intercomm's collective context. */
typedef struct {
    loom_comm_t     comm;
    int             tag, n;
    loom_status_t   st;
    loom_request_t *reqs;
} loom_inter_batch_t;

static loom_status_t loom_inter_batch_init(loom_inter_batch_t *b, loom_comm_t comm, int max)
{
    b->comm = comm;
    b->tag  = loom_inter_next_tag(comm);
    b->n    = 0;
    b->st   = LOOM_OK;
    b->reqs = malloc((size_t)(max > 0 ? max : 1) * sizeof(*b->reqs));
    return b->reqs == NULL ? LOOM_ERR_NO_MEMORY : LOOM_OK;
}

static void loom_inter_batch_add(loom_inter_batch_t *b, int send, void *buf, size_t bytes,
                                 int peer)
{
    loom_status_t st;

    if (b->st != LOOM_OK) {
        return;
    }
    st = send ? loom_p2p_isend_int(buf, bytes, peer, b->tag, b->comm, LOOM_CTX_COLL, 0,
                                   &b->reqs[b->n])
              : loom_p2p_irecv_int(buf, bytes, peer, b->tag, b->comm, LOOM_CTX_COLL,
                                   &b->reqs[b->n]);
    if (st == LOOM_OK) {
        b->n++;
    } else {
        b->st = st;
    }
}

/* Wait for every operation of the batch; the first error wins. */
static loom_status_t loom_inter_batch_wait(loom_inter_batch_t *b)
{
    loom_status_t st = b->st;

    for (int i = 0; i < b->n; ++i) {
        loom_status_t s = loom_request_wait_int(b->reqs[i], NULL);
        if (st == LOOM_OK) {
            st = s;
        }
    }
    free(b->reqs);
    return st;
}

static loom_status_t loom_inter_done(loom_status_t st, const char *who)
{
    return st == LOOM_OK ? st : loom_p2p_error(st, who);
}

loom_status_t loom_inter_barrier(loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_barrier");
    char a = 0, b = 0;

    if (st == LOOM_OK && (st = loom_barrier(comm->local)) == LOOM_OK) {
        st = loom_inter_exchange(comm, &a, 1, &b, 1);
    }
    return loom_inter_done(st, "loom_inter_barrier");
}

loom_status_t loom_inter_bcast(void *buf, size_t bytes, int root, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_root(comm, root, "loom_inter_bcast");
    loom_inter_batch_t b;

    if (st != LOOM_OK || root == LOOM_PROC_NULL) {
        return loom_inter_done(st, "loom_inter_bcast");
    }
    if ((st = loom_inter_batch_init(&b, comm, 1)) != LOOM_OK) {
        return loom_inter_done(st, "loom_inter_bcast");
    }
    if (root == LOOM_ROOT) {
        loom_inter_batch_add(&b, 1, buf, bytes, 0);
    } else if (comm->rank == 0) {
        loom_inter_batch_add(&b, 0, buf, bytes, root);
    }
    st = loom_inter_batch_wait(&b);
    if (st == LOOM_OK && root >= 0) {
        st = loom_bcast(buf, bytes, LOOM_BYTE, 0, comm->local);
    }
    return loom_inter_done(st, "loom_inter_bcast");
}

loom_status_t loom_inter_gatherv(const void *sendbuf, size_t sendbytes, void *recvbuf,
                                 const size_t recvbytes[], const size_t displs[], int root,
                                 loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_root(comm, root, "loom_inter_gatherv");
    loom_inter_batch_t b;

    if (st != LOOM_OK || root == LOOM_PROC_NULL ||
        (st = loom_inter_batch_init(&b, comm, comm->remote_size)) != LOOM_OK) {
        return loom_inter_done(st, "loom_inter_gatherv");
    }
    if (root == LOOM_ROOT) {
        for (int r = 0; r < comm->remote_size; ++r) {
            loom_inter_batch_add(&b, 0, (char *)recvbuf + displs[r], recvbytes[r], r);
        }
    } else {
        loom_inter_batch_add(&b, 1, (void *)(uintptr_t)sendbuf, sendbytes, root);
    }
    return loom_inter_done(loom_inter_batch_wait(&b), "loom_inter_gatherv");
}

loom_status_t loom_inter_scatterv(const void *sendbuf, const size_t sendbytes[],
                                  const size_t displs[], void *recvbuf, size_t recvbytes,
                                  int root, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_root(comm, root, "loom_inter_scatterv");
    loom_inter_batch_t b;

    if (st != LOOM_OK || root == LOOM_PROC_NULL ||
        (st = loom_inter_batch_init(&b, comm, comm->remote_size)) != LOOM_OK) {
        return loom_inter_done(st, "loom_inter_scatterv");
    }
    if (root == LOOM_ROOT) {
        for (int r = 0; r < comm->remote_size; ++r) {
            loom_inter_batch_add(&b, 1, (char *)(uintptr_t)sendbuf + displs[r],
                                 sendbytes[r], r);
        }
    } else {
        loom_inter_batch_add(&b, 0, recvbuf, recvbytes, root);
    }
    return loom_inter_done(loom_inter_batch_wait(&b), "loom_inter_scatterv");
}

loom_status_t loom_inter_alltoallv(const void *sendbuf, const size_t sendbytes[],
                                   const size_t sdispls[], void *recvbuf,
                                   const size_t recvbytes[], const size_t rdispls[],
                                   loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_alltoallv");
    loom_inter_batch_t b;

    if (st != LOOM_OK ||
        (st = loom_inter_batch_init(&b, comm, 2 * comm->remote_size)) != LOOM_OK) {
        return loom_inter_done(st, "loom_inter_alltoallv");
    }
    for (int r = 0; r < comm->remote_size; ++r) {
        loom_inter_batch_add(&b, 0, (char *)recvbuf + rdispls[r], recvbytes[r], r);
    }
    for (int r = 0; r < comm->remote_size; ++r) {
        loom_inter_batch_add(&b, 1, (char *)(uintptr_t)sendbuf + sdispls[r], sendbytes[r], r);
    }
    return loom_inter_done(loom_inter_batch_wait(&b), "loom_inter_alltoallv");
}

loom_status_t loom_inter_allgatherv(const void *sendbuf, size_t sendbytes, void *recvbuf,
                                    const size_t recvbytes[], const size_t displs[],
                                    loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_allgatherv");
    size_t *sb = NULL, *sd = NULL;

    if (st == LOOM_OK) {
        sb = malloc((size_t)comm->remote_size * sizeof(*sb) + 1);
        sd = calloc((size_t)comm->remote_size + 1, sizeof(*sd));
        st = sb == NULL || sd == NULL ? LOOM_ERR_NO_MEMORY : LOOM_OK;
    }
    if (st == LOOM_OK) {
        for (int r = 0; r < comm->remote_size; ++r) {
            sb[r] = sendbytes;   /* the same block to every remote process */
        }
        st = loom_inter_alltoallv(sendbuf, sb, sd, recvbuf, recvbytes, displs, comm);
    }
    free(sb);
    free(sd);
    return st;
}

/* The reduction of my group's @p sendbuf at local rank 0 (in *tmp_p, malloc'd). */
static loom_status_t loom_inter_local_reduce(loom_comm_t comm, const void *sendbuf,
                                             size_t count, loom_datatype_t dt, loom_op_t op,
                                             void **tmp_p)
{
    size_t esize = loom_datatype_size(dt);

    *tmp_p = malloc(count * esize + 1);
    if (*tmp_p == NULL || esize == 0) {
        return *tmp_p == NULL ? LOOM_ERR_NO_MEMORY : LOOM_ERR_INVALID_TYPE;
    }
    return loom_reduce(sendbuf, *tmp_p, count, dt, op, 0, comm->local);
}

loom_status_t loom_inter_reduce(const void *sendbuf, void *recvbuf, size_t count,
                                loom_datatype_t dt, loom_op_t op, int root,
                                loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_root(comm, root, "loom_inter_reduce");
    loom_inter_batch_t b;
    void *tmp = NULL;

    if (st != LOOM_OK || root == LOOM_PROC_NULL) {
        return loom_inter_done(st, "loom_inter_reduce");
    }
    if (root >= 0) {
        st = loom_inter_local_reduce(comm, sendbuf, count, dt, op, &tmp);
    }
    if (st == LOOM_OK && (st = loom_inter_batch_init(&b, comm, 1)) == LOOM_OK) {
        if (root == LOOM_ROOT) {
            loom_inter_batch_add(&b, 0, recvbuf, count * loom_datatype_size(dt), 0);
        } else if (comm->rank == 0) {
            loom_inter_batch_add(&b, 1, tmp, count * loom_datatype_size(dt), root);
        }
        st = loom_inter_batch_wait(&b);
    }
    free(tmp);
    return loom_inter_done(st, "loom_inter_reduce");
}

/* Local reduce of @p count elements to rank 0, leaders swap into @p out (at rank 0). */
static loom_status_t loom_inter_reduce_swap(const void *sendbuf, void *out, size_t count,
                                            loom_datatype_t dt, loom_op_t op,
                                            loom_comm_t comm)
{
    void *tmp = NULL;
    size_t bytes = count * loom_datatype_size(dt);
    loom_status_t st = loom_inter_local_reduce(comm, sendbuf, count, dt, op, &tmp);
    int tag = loom_inter_next_tag(comm);

    if (st == LOOM_OK && comm->rank == 0) {
        st = loom_inter_swap(comm, tmp, bytes, out, bytes, 0, tag, LOOM_CTX_COLL);
    }
    free(tmp);
    return st;
}

loom_status_t loom_inter_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                                   loom_datatype_t dt, loom_op_t op, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_allreduce");

    if (st == LOOM_OK &&
        (st = loom_inter_reduce_swap(sendbuf, recvbuf, count, dt, op, comm)) == LOOM_OK) {
        st = loom_bcast(recvbuf, count, dt, 0, comm->local);
    }
    return loom_inter_done(st, "loom_inter_allreduce");
}

loom_status_t loom_inter_reduce_scatter(const void *sendbuf, void *recvbuf,
                                        const size_t recvcounts[], loom_datatype_t dt,
                                        loom_op_t op, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_reduce_scatter");
    size_t total = 0, *displs = NULL;
    void *full = NULL;

    if (st == LOOM_OK) {
        displs = malloc((size_t)comm->size * sizeof(*displs));
        for (int r = 0; displs != NULL && r < comm->size; ++r) {
            displs[r] = total;
            total += recvcounts[r];
        }
        full = malloc(total * loom_datatype_size(dt) + 1);
        st = displs == NULL || full == NULL ? LOOM_ERR_NO_MEMORY : LOOM_OK;
    }
    if (st == LOOM_OK &&
        (st = loom_inter_reduce_swap(sendbuf, full, total, dt, op, comm)) == LOOM_OK) {
        st = loom_scatterv(full, recvcounts, displs, recvbuf, recvcounts[comm->rank], dt, 0,
                           comm->local);
    }
    free(displs);
    free(full);
    return loom_inter_done(st, "loom_inter_reduce_scatter");
}
