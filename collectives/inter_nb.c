/*
 * inter_nb.c: nonblocking collectives on intercommunicators.
 *
 * Design: one generic request per operation runs a short list of steps;
 * each step posts point-to-point operations and the next step starts when
 * they have all completed. Every message of an operation uses the tag the
 * operation took when it started (loom_inter_next_tag(): all members of both
 * groups start the intercomm's collectives in the same order), on the
 * intercomm's collective context between the groups and on the hidden local
 * comm's collective context inside a group. No step starts a collective on
 * the local comm, so operations still in flight may progress in any order
 * on different ranks without mismatching.
 *
 * Steps: UP (every local rank sends its data to local rank 0), FOLD (rank 0
 * reduces them in rank order), SWAP (the local rank 0s exchange), DOWN
 * (rank 0 sends to every local rank), SCAT (rank 0 scatters by counts),
 * plus the direct ones of bcast/gather/scatter/reduce. Inside a group the
 * patterns are linear: simple, and correct for any size and op.
 */
#include "inter_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <stdlib.h>
#include <string.h>

typedef enum {
    LOOM_INB_UP, LOOM_INB_FOLD, LOOM_INB_SWAP, LOOM_INB_DOWN, LOOM_INB_SCAT,
    LOOM_INB_TOROOT, LOOM_INB_END
} loom_inb_step_t;

typedef struct {
    loom_comm_t     comm;           /* the intercomm */
    int             tag, root;
    int             step, nsteps;
    loom_inb_step_t steps[6];
    loom_request_t *reqs;
    int             nreq;
    const void     *sbuf;
    void           *rbuf;
    size_t          count, bytes;   /* elements and bytes of one contribution */
    loom_datatype_t dt;
    loom_op_t       op;
    char           *gath;           /* rank 0: contributions of local ranks 1.. */
    char           *acc;            /* rank 0: the group's reduction */
    char           *other;          /* rank 0: the other group's reduction */
    size_t         *counts;         /* SCAT: elements per local rank */
    int             both;           /* DOWN gives (mine op other): both groups' result */
    int             comm_held;      /* started: holds comm against a free (persist_refs) */
} loom_inb_t;

static loom_inb_t *loom_inb(loom_request_t req)
{
    return *(loom_inb_t **)(void *)req->priv;
}

/* The request's cleanup (it ran to its end), or an abandoned one's. */
static void loom_inb_free(loom_request_t req)
{
    loom_inb_t *s = loom_inb(req);
    loom_comm_t held;

    if (s == NULL) {
        return;
    }
    held = s->comm_held ? s->comm : NULL;
    free(s->reqs);
    free(s->gath);
    free(s->acc);
    free(s->other);
    free(s->counts);
    free(s);
    *(loom_inb_t **)(void *)req->priv = NULL;
    if (held != NULL) {
        loom_comm_persist_unref(held);   /* last: a freed intercomm goes here */
    }
}

/* A request that failed before loom_inb_start: its state and itself go. */
static void loom_inb_abandon(loom_request_t req)
{
    loom_inb_free(req);
    loom_request_release(req);   /* posted children were already started */
}

/* Post one send/receive on the intercomm (@p local 0) or its local comm. */
static loom_status_t loom_inb_post(loom_inb_t *s, int local, int send, const void *buf,
                                   size_t bytes, int peer)
{
    loom_comm_t c = local ? s->comm->local : s->comm;

    return send ? loom_p2p_isend_int(buf, bytes, peer, s->tag, c, LOOM_CTX_COLL, 0,
                                     &s->reqs[s->nreq++])
                : loom_p2p_irecv_int((void *)(uintptr_t)buf, bytes, peer, s->tag, c,
                                     LOOM_CTX_COLL, &s->reqs[s->nreq++]);
}

/* Undo the counting of a post that failed. */
static loom_status_t loom_inb_posted(loom_inb_t *s, loom_status_t st)
{
    if (st != LOOM_OK) {
        s->nreq--;
    }
    return st;
}

static loom_status_t loom_inb_up(loom_inb_t *s)
{
    loom_comm_t c = s->comm;
    loom_status_t st = LOOM_OK;

    if (c->rank != 0) {
        return loom_inb_posted(s, loom_inb_post(s, 1, 1, s->sbuf, s->bytes, 0));
    }
    s->gath = malloc(s->bytes * (size_t)c->size + 1);
    s->acc  = malloc(s->bytes + 1);
    if (s->gath == NULL || s->acc == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (int i = 1; st == LOOM_OK && i < c->size; ++i) {
        st = loom_inb_posted(s, loom_inb_post(s, 1, 0, s->gath + (size_t)i * s->bytes,
                                              s->bytes, i));
    }
    return st;
}

/* acc = x0 op (x1 op (... op x_{n-1})): rank order, for non-commutative ops. */
static loom_status_t loom_inb_fold(loom_inb_t *s)
{
    int n = s->comm->size;

    if (s->comm->rank != 0 || s->bytes == 0) {
        return LOOM_OK;
    }
    memcpy(s->gath, s->sbuf, s->bytes);   /* slot 0: my own contribution */
    memcpy(s->acc, s->gath + (size_t)(n - 1) * s->bytes, s->bytes);
    for (int i = n - 2; i >= 0; --i) {
        loom_op_apply(s->op, s->gath + (size_t)i * s->bytes, s->acc, s->count, s->dt);
    }
    return LOOM_OK;
}

static loom_status_t loom_inb_swap(loom_inb_t *s)
{
    loom_status_t st;

    if (s->comm->rank != 0) {
        return LOOM_OK;
    }
    if (s->other == NULL && (s->other = malloc(s->bytes + 1)) == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_inb_posted(s, loom_inb_post(s, 0, 0, s->other, s->bytes, 0));
    if (st != LOOM_OK) {
        return st;
    }
    return loom_inb_posted(s, loom_inb_post(s, 0, 1, s->acc, s->bytes, 0));
}

/* Rank 0 sends rbuf (filled from `other`) to every local rank. */
static loom_status_t loom_inb_down(loom_inb_t *s)
{
    loom_comm_t c = s->comm;
    loom_status_t st = LOOM_OK;

    if (c->rank != 0) {
        return loom_inb_posted(s, loom_inb_post(s, 1, 0, s->rbuf, s->bytes, 0));
    }
    if (s->both && s->bytes > 0) {
        loom_op_apply(s->op, s->acc, s->other, s->count, s->dt);
    }
    if (s->other != NULL && s->rbuf != NULL && s->bytes > 0) {
        memcpy(s->rbuf, s->other, s->bytes);
    }
    for (int i = 1; st == LOOM_OK && i < c->size; ++i) {
        st = loom_inb_posted(s, loom_inb_post(s, 1, 1, s->rbuf, s->bytes, i));
    }
    return st;
}

/* Rank 0 scatters `other` by counts (elements) to the local ranks. */
static loom_status_t loom_inb_scat(loom_inb_t *s)
{
    loom_comm_t c = s->comm;
    size_t es = loom_datatype_size(s->dt), off = 0;
    loom_status_t st = LOOM_OK;

    if (c->rank != 0) {
        return loom_inb_posted(s, loom_inb_post(s, 1, 0, s->rbuf, s->counts[c->rank] * es,
                                                0));
    }
    memcpy(s->rbuf, s->other, s->counts[0] * es);
    for (int i = 0; st == LOOM_OK && i < c->size; off += s->counts[i] * es, ++i) {
        if (i > 0) {
            st = loom_inb_posted(s, loom_inb_post(s, 1, 1, s->other + off,
                                                  s->counts[i] * es, i));
        }
    }
    return st;
}

/* Reduce: rank 0 of the sending group sends the reduction to the root. */
static loom_status_t loom_inb_toroot(loom_inb_t *s)
{
    if (s->root == LOOM_ROOT) {
        return loom_inb_posted(s, loom_inb_post(s, 0, 0, s->rbuf, s->bytes, 0));
    }
    if (s->root >= 0 && s->comm->rank == 0) {
        return loom_inb_posted(s, loom_inb_post(s, 0, 1, s->acc, s->bytes, s->root));
    }
    return LOOM_OK;
}

static loom_status_t loom_inb_run_step(loom_inb_t *s, loom_inb_step_t step)
{
    switch (step) {
    case LOOM_INB_UP:     return loom_inb_up(s);
    case LOOM_INB_FOLD:   return loom_inb_fold(s);
    case LOOM_INB_SWAP:   return loom_inb_swap(s);
    case LOOM_INB_DOWN:   return loom_inb_down(s);
    case LOOM_INB_SCAT:   return loom_inb_scat(s);
    case LOOM_INB_TOROOT: return loom_inb_toroot(s);
    default:              return LOOM_OK;
    }
}

/* Wait for the posted operations of the current step; then run the next steps. */
static loom_status_t loom_inb_progress(loom_request_t req)
{
    loom_inb_t *s = loom_inb(req);
    loom_status_t st = LOOM_OK;

    for (;;) {
        for (int i = 0; i < s->nreq; ++i) {
            if (!loom_request_is_complete(s->reqs[i])) {
                return LOOM_INPROGRESS;
            }
        }
        for (int i = 0; i < s->nreq; ++i) {
            loom_status_t r = loom_request_wait_int(s->reqs[i], NULL);
            st = st != LOOM_OK ? st : r;
        }
        s->nreq = 0;
        if (st != LOOM_OK || s->step == s->nsteps) {
            return st;
        }
        st = loom_inb_run_step(s, s->steps[s->step++]);
    }
}

/* Allocate the request and state; the caller fills the arguments and steps. */
static loom_status_t loom_inb_begin(loom_comm_t comm, const char *name, int maxreq,
                                    loom_request_t *req_p, loom_inb_t **s_p)
{
    loom_request_t req;
    loom_inb_t *s = calloc(1, sizeof(*s));
    loom_status_t st;

    if (s == NULL || (s->reqs = malloc((size_t)(maxreq + 2) * sizeof(*s->reqs))) == NULL) {
        free(s);
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_request_generic_alloc(comm, name, loom_inb_progress, loom_inb_free, &req);
    if (st != LOOM_OK) {
        free(s->reqs);
        free(s);
        return st;
    }
    *(loom_inb_t **)(void *)req->priv = s;
    s->comm = comm;
    s->tag  = loom_inter_next_tag(comm);
    *req_p = req;
    *s_p = s;
    return LOOM_OK;
}

/*
 * Run the first steps and hand the request out. MPI lets the intercomm be
 * freed while the operation is pending: it is held from here until the
 * cleanup (loom_inb_free), so a failure before this point has nothing to drop.
 */
static loom_status_t loom_inb_start(loom_request_t req, loom_request_t *req_p)
{
    loom_inb_t *s = loom_inb(req);

    loom_comm_persist_ref(s->comm);
    s->comm_held = 1;
    loom_request_generic_start(req);
    *req_p = req;
    return LOOM_OK;
}

/* ---- public ---------------------------------------------------------------------- */

static loom_status_t loom_inb_fail(loom_status_t st, const char *who)
{
    return loom_p2p_error(st, who);
}

/* Set the steps of @p s from a LOOM_INB_END-terminated list. */
static void loom_inb_steps(loom_inb_t *s, const loom_inb_step_t *steps)
{
    while (steps[s->nsteps] != LOOM_INB_END) {
        s->steps[s->nsteps] = steps[s->nsteps];
        s->nsteps++;
    }
}

loom_status_t loom_inter_ibarrier(loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    static const loom_inb_step_t steps[] = { LOOM_INB_UP, LOOM_INB_SWAP, LOOM_INB_DOWN,
                                             LOOM_INB_END };
    loom_request_t req;
    loom_inb_t *s;
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_ibarrier");

    if (st != LOOM_OK || (st = loom_inb_begin(comm, "inter_ibarrier", comm->size, &req,
                                               &s)) != LOOM_OK) {
        return loom_inb_fail(st, "loom_inter_ibarrier");
    }
    loom_inb_steps(s, steps);
    return loom_inb_start(req, req_p);
}

loom_status_t loom_inter_ibcast(void *buf, size_t bytes, int root, loom_comm_t comm,
                                loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    static const loom_inb_step_t steps[] = { LOOM_INB_DOWN, LOOM_INB_END };
    loom_request_t req;
    loom_inb_t *s;
    loom_status_t st = loom_inter_check_root_int(comm, root, "loom_inter_ibcast");

    if (st != LOOM_OK || (st = loom_inb_begin(comm, "inter_ibcast", comm->size, &req,
                                               &s)) != LOOM_OK) {
        return loom_inb_fail(st, "loom_inter_ibcast");
    }
    s->rbuf  = buf;
    s->bytes = bytes;
    if (root == LOOM_ROOT) {
        st = loom_inb_posted(s, loom_inb_post(s, 0, 1, buf, bytes, 0));
    } else if (root >= 0) {
        if (comm->rank == 0) {
            st = loom_inb_posted(s, loom_inb_post(s, 0, 0, buf, bytes, root));
        }
        loom_inb_steps(s, steps);
    }
    if (st != LOOM_OK) {
        loom_inb_abandon(req);
        return loom_inb_fail(st, "loom_inter_ibcast");
    }
    return loom_inb_start(req, req_p);
}

/*
 * Direct exchanges, posted at once: @p nr receives (buffers rbuf + rdispls,
 * peers 0..) and @p ns sends; used by igatherv/iscatterv/iallgatherv/ialltoallv.
 */
static loom_status_t loom_inb_direct(loom_comm_t comm, const char *who,
                                     const void *sbuf, const size_t *sbytes,
                                     const size_t *sdispls, int ns, int speer,
                                     void *rbuf, const size_t *rbytes,
                                     const size_t *rdispls, int nr, int rpeer,
                                     loom_request_t *req_p)
{
    loom_request_t req = LOOM_REQUEST_NULL;
    loom_inb_t *s = NULL;
    loom_status_t st = loom_inb_begin(comm, who, ns + nr, &req, &s);

    for (int i = 0; st == LOOM_OK && i < nr; ++i) {
        st = loom_inb_posted(s, loom_inb_post(s, 0, 0, (char *)rbuf + rdispls[i], rbytes[i],
                                              rpeer >= 0 ? rpeer : i));
    }
    for (int i = 0; st == LOOM_OK && i < ns; ++i) {
        st = loom_inb_posted(s, loom_inb_post(s, 0, 1, (const char *)sbuf + sdispls[i],
                                              sbytes[i], speer >= 0 ? speer : i));
    }
    if (st != LOOM_OK) {
        if (s != NULL && req != LOOM_REQUEST_NULL) {
            loom_inb_abandon(req);
        }
        return loom_inb_fail(st, who);
    }
    return loom_inb_start(req, req_p);
}

loom_status_t loom_inter_igatherv(const void *sendbuf, size_t sendbytes, void *recvbuf,
                                  const size_t recvbytes[], const size_t displs[], int root,
                                  loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    size_t zero = 0;
    loom_status_t st = loom_inter_check_root_int(comm, root, "loom_inter_igatherv");

    if (st != LOOM_OK) {
        return loom_inb_fail(st, "loom_inter_igatherv");
    }
    return loom_inb_direct(comm, "inter_igatherv", sendbuf, &sendbytes, &zero,
                           root >= 0, root, recvbuf, recvbytes, displs,
                           root == LOOM_ROOT ? comm->remote_size : 0, -1, req_p);
}

loom_status_t loom_inter_iscatterv(const void *sendbuf, const size_t sendbytes[],
                                   const size_t displs[], void *recvbuf, size_t recvbytes,
                                   int root, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    size_t zero = 0;
    loom_status_t st = loom_inter_check_root_int(comm, root, "loom_inter_iscatterv");

    if (st != LOOM_OK) {
        return loom_inb_fail(st, "loom_inter_iscatterv");
    }
    return loom_inb_direct(comm, "inter_iscatterv", sendbuf, sendbytes, displs,
                           root == LOOM_ROOT ? comm->remote_size : 0, -1, recvbuf,
                           &recvbytes, &zero, root >= 0, root, req_p);
}

loom_status_t loom_inter_ialltoallv(const void *sendbuf, const size_t sendbytes[],
                                    const size_t sdispls[], void *recvbuf,
                                    const size_t recvbytes[], const size_t rdispls[],
                                    loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_ialltoallv");

    if (st != LOOM_OK) {
        return loom_inb_fail(st, "loom_inter_ialltoallv");
    }
    return loom_inb_direct(comm, "inter_ialltoallv", sendbuf, sendbytes, sdispls,
                           comm->remote_size, -1, recvbuf, recvbytes, rdispls,
                           comm->remote_size, -1, req_p);
}

loom_status_t loom_inter_iallgatherv(const void *sendbuf, size_t sendbytes, void *recvbuf,
                                     const size_t recvbytes[], const size_t displs[],
                                     loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_iallgatherv");
    size_t *sb = NULL, *sd = NULL;

    if (st == LOOM_OK) {
        sb = malloc((size_t)comm->remote_size * sizeof(*sb) + 1);
        sd = calloc((size_t)comm->remote_size + 1, sizeof(*sd));
        st = sb == NULL || sd == NULL ? LOOM_ERR_NO_MEMORY : LOOM_OK;
    }
    for (int r = 0; st == LOOM_OK && r < comm->remote_size; ++r) {
        sb[r] = sendbytes;   /* the arrays are read only while posting */
    }
    if (st == LOOM_OK) {
        st = loom_inb_direct(comm, "inter_iallgatherv", sendbuf, sb, sd, comm->remote_size,
                             -1, recvbuf, recvbytes, displs, comm->remote_size, -1, req_p);
    }
    free(sb);
    free(sd);
    return st == LOOM_OK ? st : loom_inb_fail(st, "loom_inter_iallgatherv");
}

/* Common start of the reductions: arguments into a new request's state. */
static loom_status_t loom_inb_red_begin(loom_comm_t comm, const char *who, const void *sbuf,
                                        void *rbuf, size_t count, loom_datatype_t dt,
                                        loom_op_t op, loom_request_t *req_p, loom_inb_t **s_p)
{
    loom_status_t st = loom_op_check(op, dt, who);

    if (st != LOOM_OK || (st = loom_inb_begin(comm, who, comm->size, req_p, s_p)) != 0) {
        return st;
    }
    (*s_p)->sbuf  = sbuf;
    (*s_p)->rbuf  = rbuf;
    (*s_p)->count = count;
    (*s_p)->bytes = count * loom_datatype_size(dt);
    (*s_p)->dt    = dt;
    (*s_p)->op    = op;
    return LOOM_OK;
}

loom_status_t loom_inter_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                                 loom_datatype_t dt, loom_op_t op, int root,
                                 loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    static const loom_inb_step_t send_steps[] = { LOOM_INB_UP, LOOM_INB_FOLD,
                                                  LOOM_INB_TOROOT, LOOM_INB_END };
    static const loom_inb_step_t root_steps[] = { LOOM_INB_TOROOT, LOOM_INB_END };
    loom_request_t req;
    loom_inb_t *s;
    loom_status_t st = loom_inter_check_root_int(comm, root, "loom_inter_ireduce");

    if (st != LOOM_OK || (st = loom_inb_red_begin(comm, "inter_ireduce", sendbuf, recvbuf,
                                                   count, dt, op, &req, &s)) != LOOM_OK) {
        return loom_inb_fail(st, "loom_inter_ireduce");
    }
    s->root = root;
    loom_inb_steps(s, root >= 0 ? send_steps : root_steps);
    return loom_inb_start(req, req_p);
}

/* iallreduce; @p both: every process gets the reduction over both groups. */
static loom_status_t loom_inb_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                                        loom_datatype_t dt, loom_op_t op, loom_comm_t comm,
                                        int both, loom_request_t *req_p)
{
    static const loom_inb_step_t steps[] = { LOOM_INB_UP, LOOM_INB_FOLD, LOOM_INB_SWAP,
                                             LOOM_INB_DOWN, LOOM_INB_END };
    loom_request_t req;
    loom_inb_t *s;
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_iallreduce");

    if (st != LOOM_OK || (st = loom_inb_red_begin(comm, "inter_iallreduce", sendbuf,
                                                   recvbuf, count, dt, op, &req, &s)) != 0) {
        return loom_inb_fail(st, "loom_inter_iallreduce");
    }
    s->both = both;
    loom_inb_steps(s, steps);
    return loom_inb_start(req, req_p);
}

loom_status_t loom_inter_iallreduce_both(const void *sendbuf, void *recvbuf, size_t count,
                                         loom_datatype_t dt, loom_op_t op, loom_comm_t comm,
                                         loom_request_t *req_p)
{
    return loom_inb_allreduce(sendbuf, recvbuf, count, dt, op, comm, 1, req_p);
}

loom_status_t loom_inter_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
                                    loom_datatype_t dt, loom_op_t op, loom_comm_t comm,
                                    loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_inb_allreduce(sendbuf, recvbuf, count, dt, op, comm, 0, req_p);
}

loom_status_t loom_inter_ireduce_scatter(const void *sendbuf, void *recvbuf,
                                         const size_t recvcounts[], loom_datatype_t dt,
                                         loom_op_t op, loom_comm_t comm,
                                         loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    static const loom_inb_step_t steps[] = { LOOM_INB_UP, LOOM_INB_FOLD, LOOM_INB_SWAP,
                                             LOOM_INB_SCAT, LOOM_INB_END };
    loom_request_t req;
    loom_inb_t *s;
    size_t total = 0, *counts;
    loom_status_t st = loom_inter_check_int(comm, "loom_inter_ireduce_scatter");

    if (st != LOOM_OK) {
        return loom_inb_fail(st, "loom_inter_ireduce_scatter");
    }
    if ((counts = malloc((size_t)comm->size * sizeof(*counts))) == NULL) {
        return loom_inb_fail(LOOM_ERR_NO_MEMORY, "loom_inter_ireduce_scatter");
    }
    for (int r = 0; r < comm->size; ++r) {
        counts[r] = recvcounts[r];
        total += recvcounts[r];
    }
    st = loom_inb_red_begin(comm, "inter_ireduce_scatter", sendbuf, recvbuf, total, dt, op,
                            &req, &s);
    if (st != LOOM_OK) {
        free(counts);
        return loom_inb_fail(st, "loom_inter_ireduce_scatter");
    }
    s->counts = counts;
    loom_inb_steps(s, steps);
    return loom_inb_start(req, req_p);
}
