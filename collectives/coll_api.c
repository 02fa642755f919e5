/*
 * coll_api.c: the public collective calls. Each validates its arguments
 * (naming the call, the argument and the value), resolves LOOM_IN_PLACE,
 * fills the state of one generic request, lets the selection table pick an
 * algorithm and starts it. The blocking forms are start + wait, except
 * where the selected algorithm has a `fast` member (the on-node shm
 * algorithms of barrier, bcast and allreduce): the blocking call runs it
 * directly, without a request, and takes the request path only when it
 * declines (LOOM_INPROGRESS).
 */
#include "coll_api_int.h"
#include "coll_comm_int.h"
#include "coll_shm.h"
#include "log_int.h"
#include "mt_int.h"

#include <stdint.h>

/* A call whose whole work is local: copy len bytes sbuf -> rbuf. */
static loom_status_t loom_coll_local(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);

    if (s->len > 0 && s->sbuf != s->rbuf) {
        memcpy(s->rbuf, s->sbuf, s->len);
    }
    return LOOM_OK;
}

loom_status_t loom_coll_fail(loom_request_t req, loom_status_t st, const char *who)
{
    if (req != NULL) {
        loom_request_release(req);
    }
    return loom_p2p_error(st, who);
}

/* Allocate the request and fill the common part of its state. */
loom_status_t loom_coll_begin(loom_comm_t comm, const char *who, const char *name,
                                     loom_datatype_t dt, loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st;

    st = loom_comm_check(comm, who);
    if (st == LOOM_OK && loom_unlikely(comm->local != NULL)) {
        loom_error("coll", "%s: '%s' is an intercommunicator (use loom_inter_*)", who,
                   comm->name);   /* intercomm collectives: collectives/inter_coll.c */
        st = LOOM_ERR_INVALID_COMM;
    }
    if (st != LOOM_OK) {
        return loom_p2p_error(st, who);
    }
    if (loom_unlikely(loom_coll_orphans_pending)) {
        loom_coll_orphans_sweep();
    }
    if (loom_datatype_size(dt) == 0) {
        loom_error("coll", "%s: datatype %d is not a loom datatype", who, (int)dt);
        return loom_p2p_error(LOOM_ERR_INVALID_TYPE, who);
    }
    st = loom_request_generic_alloc(comm, name, NULL, loom_coll_state_cleanup, &req);
    if (st != LOOM_OK) {
        return loom_p2p_error(st, who);
    }
    s = loom_coll_state(req);
    memset(s, 0, offsetof(loom_coll_state_t, inline_tmp));
    s->comm  = comm;
    s->rank  = comm->rank;
    s->size  = comm->size;
    s->dt    = dt;
    s->esize = loom_datatype_size(dt);
    s->unit  = 1;
    s->op    = LOOM_OP_NULL;
    s->ordered = (uint8_t)loom_coll_deterministic();
    *req_p = req;
    return LOOM_OK;
}

/* Pick the algorithm, take the tag, run the first step. */
loom_status_t loom_coll_launch(loom_request_t req, loom_coll_type_t type,
                                      size_t bytes, int local, loom_request_t *req_p)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_comm_t comm = s->comm;

    if (local) {
        req->progress_fn = loom_coll_local;
        req->alg_name    = "local";
    } else {
        const loom_coll_alg_t *alg = loom_coll_select(type, comm, bytes, s);

        req->progress_fn = alg->progress;
        req->alg_name    = alg->name;   /* named in hang reports */
    }
    s->kind     = (uint8_t)type;
    s->seq      = comm->coll_seq;
    s->tag      = loom_coll_tag_make(s->seq, type, loom_coll_kind_rooted(type) ? s->root : 0);
    req->op_seq = comm->coll_seq++;
    loom_coll_record_start(s);
    /* MPI lets the communicator be freed while the operation is pending (by
     * this thread, or another under MULTIPLE): hold it until the cleanup */
    loom_comm_persist_ref(comm);
    s->comm_held = 1;
    loom_request_generic_start(req);
    *req_p = req;
    return LOOM_OK;
}

loom_status_t loom_coll_check_buf(const void *buf, size_t count, const char *what,
                                         const char *who)
{
    if (count > 0 && buf == NULL) {
        loom_error("coll", "%s: %s is NULL with count %zu", who, what, count);
        return LOOM_ERR_INVALID_BUFFER;
    }
    if (buf == LOOM_IN_PLACE) {
        loom_error("coll", "%s: LOOM_IN_PLACE is not valid as %s here", who, what);
        return LOOM_ERR_INVALID_BUFFER;
    }
    return LOOM_OK;
}

loom_status_t loom_coll_check_count(const loom_coll_state_t *s, size_t count,
                                           size_t blocks, const char *who)
{
    if (count != 0 && (LOOM_COLL_MAX_BYTES / s->esize) / blocks < count) {
        loom_error("coll", "%s: count %zu x %zu blocks of %zu bytes overflows (limit %zu "
                   "bytes)", who, count, blocks, s->esize, LOOM_COLL_MAX_BYTES);
        return LOOM_ERR_INVALID_COUNT;
    }
    return LOOM_OK;
}

loom_status_t loom_coll_check_req(const loom_request_t *req_p, const char *who)
{
    if (req_p == NULL) {
        loom_error("coll", "%s: req_p is NULL", who);
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, who);
    }
    return LOOM_OK;
}

loom_status_t loom_coll_check_alias(const void *sbuf, size_t sbytes, const void *rbuf,
                                    size_t rbytes, const char *who)
{
    if (sbuf == LOOM_IN_PLACE || !loom_coll_overlap(sbuf, sbytes, rbuf, rbytes)) {
        return LOOM_OK;
    }
    loom_error("coll", "%s: sendbuf [%p, +%zu bytes) and recvbuf [%p, +%zu bytes) overlap "
               "(aliased buffers); pass LOOM_IN_PLACE as sendbuf for an in-place call",
               who, sbuf, sbytes, rbuf, rbytes);
    return LOOM_ERR_INVALID_BUFFER;
}

loom_status_t loom_coll_check_root(const loom_coll_state_t *s, int root,
                                          const char *who)
{
    if (root < 0 || root >= s->size) {
        loom_error("coll", "%s: root %d is out of range for communicator %s of %d ranks",
                   who, root, s->comm->name, s->size);
        return LOOM_ERR_INVALID_ROOT;
    }
    return LOOM_OK;
}

/* ---- barrier, bcast ------------------------------------------------------------ */

static loom_status_t loom_coll_barrier_start(loom_comm_t comm, const char *who,
                                             loom_request_t *req_p)
{
    loom_request_t req;
    loom_status_t st = loom_coll_begin(comm, who, "barrier", LOOM_BYTE, &req);

    if (st != LOOM_OK) {
        return st;
    }
    return loom_coll_launch(req, LOOM_COLL_BARRIER, 0, comm->size == 1, req_p);
}

loom_status_t loom_ibarrier(loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    if (req_p == NULL) {
        loom_error("coll", "loom_ibarrier: req_p is NULL");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_ibarrier");
    }
    return loom_coll_barrier_start(comm, "loom_ibarrier", req_p);
}

loom_status_t loom_coll_finish(loom_status_t st, loom_request_t *req_p, const char *who)
{
    if (st != LOOM_OK) {
        return st;
    }
    /* *req_p is read only now: the caller's start call filled it */
    st = loom_request_wait_int(*req_p, LOOM_STATUS_IGNORE);
    return st < 0 ? loom_p2p_error(st, who) : LOOM_OK;
}

static __attribute__((noinline)) loom_status_t loom_coll_barrier_req(loom_comm_t comm)
{
    loom_request_t req = NULL;

    return loom_coll_finish(loom_coll_barrier_start(comm, "loom_barrier", &req), &req,
                            "loom_barrier");
}

loom_status_t loom_barrier(loom_comm_t comm)
{
    LOOM_MT_GUARD();
    const loom_coll_alg_t *alg = loom_coll_blocking_alg(comm, LOOM_COLL_BARRIER, 0);

    if (alg != NULL && alg->fast.barrier != NULL) {
        return alg->fast.barrier(comm);
    }
    return loom_coll_barrier_req(comm);
}

static loom_status_t loom_coll_bcast_start(void *buf, size_t count, loom_datatype_t dt,
                                           int root, loom_comm_t comm, const char *who,
                                           loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, "bcast", dt, &req);

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_state(req);
    if ((st = loom_coll_check_root(s, root, who)) != LOOM_OK ||
        (st = loom_coll_check_count(s, count, 1, who)) != LOOM_OK ||
        (st = loom_coll_check_buf(buf, count, "buf", who)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    s->rbuf   = buf;
    s->sbuf   = buf;
    s->count  = count;
    s->root   = root;
    s->layout = LOOM_COLL_LAYOUT_SPLIT;
    return loom_coll_launch(req, LOOM_COLL_BCAST, count * s->esize,
                            comm->size == 1 || count == 0, req_p);
}

loom_status_t loom_ibcast(void *buf, size_t count, loom_datatype_t dt, int root,
                          loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_bcast_start(buf, count, dt, root, comm, "loom_ibcast", req_p);
}

static __attribute__((noinline)) loom_status_t
loom_coll_bcast_req(void *buf, size_t count, loom_datatype_t dt, int root, loom_comm_t comm)
{
    loom_request_t req = NULL;

    return loom_coll_finish(loom_coll_bcast_start(buf, count, dt, root, comm, "loom_bcast",
                                                  &req), &req, "loom_bcast");
}

/* the fast member when the arguments are valid, else the request path,
 * which judges them */
loom_status_t loom_bcast(void *buf, size_t count, loom_datatype_t dt, int root,
                         loom_comm_t comm)
{
    LOOM_MT_GUARD();
    size_t esize = loom_datatype_size(dt);
    const loom_coll_alg_t *alg;

    if (esize == 0 || count == 0 || buf == NULL || buf == LOOM_IN_PLACE ||
        count > LOOM_COLL_MAX_BYTES / esize ||
        (alg = loom_coll_blocking_alg(comm, LOOM_COLL_BCAST, count * esize)) == NULL ||
        alg->fast.bcast == NULL || root < 0 || root >= comm->size) {
        return loom_coll_bcast_req(buf, count, dt, root, comm);
    }
    return alg->fast.bcast(buf, count, esize, root, comm);
}

/* ---- reductions ------------------------------------------------------------------ */

/*
 * kind: LOOM_COLL_REDUCE (root meaningful), LOOM_COLL_ALLREDUCE, or
 * LOOM_COLL_REDUCE_SCATTER (sendbuf holds size*count elements).
 */
static loom_status_t loom_coll_reduce_start(loom_coll_type_t kind, const void *sendbuf,
                                            void *recvbuf, size_t count,
                                            loom_datatype_t dt, loom_op_t op, int root,
                                            loom_comm_t comm, const char *who,
                                            const char *name, loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, name, dt, &req);
    int has_result;
    size_t nblocks;

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_state(req);
    nblocks    = kind == LOOM_COLL_REDUCE_SCATTER ? (size_t)s->size : 1;
    has_result = kind != LOOM_COLL_REDUCE || root == s->rank;
    if ((st = loom_op_check(op, dt, who)) != LOOM_OK ||
        (kind == LOOM_COLL_REDUCE && (st = loom_coll_check_root(s, root, who)) != LOOM_OK) ||
        (st = loom_coll_check_count(s, count, nblocks, who)) != LOOM_OK ||
        (st = loom_coll_state_set_op(s, op, count, who, &count)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    /* from here count and s->esize are in the op's elements (same bytes) */
    if (sendbuf == LOOM_IN_PLACE && !has_result) {
        loom_error("coll", "%s: LOOM_IN_PLACE is valid only at the root (%d), not at "
                   "rank %d", who, root, s->rank);
        return loom_coll_fail(req, LOOM_ERR_INVALID_BUFFER, who);
    }
    if ((sendbuf != LOOM_IN_PLACE &&
         (st = loom_coll_check_buf(sendbuf, count * nblocks, "sendbuf", who)) != LOOM_OK) ||
        (has_result &&
         (st = loom_coll_check_buf(recvbuf, count * (sendbuf == LOOM_IN_PLACE ? nblocks : 1),
                                   "recvbuf", who)) != LOOM_OK) ||
        (has_result &&
         (st = loom_coll_check_alias(sendbuf, count * nblocks * s->esize, recvbuf,
                                     count * s->esize, who)) != LOOM_OK)) {
        return loom_coll_fail(req, st, who);
    }
    s->in_place = sendbuf == LOOM_IN_PLACE;
    s->sbuf     = s->in_place ? recvbuf : sendbuf;
    s->rbuf     = recvbuf;
    s->count    = count;
    s->root     = root;
    s->layout   = kind == LOOM_COLL_REDUCE_SCATTER ? LOOM_COLL_LAYOUT_UNIFORM
                                                   : LOOM_COLL_LAYOUT_SPLIT;
    s->ordered |= !loom_op_is_commutative(op);
    s->len      = count * s->esize;
    return loom_coll_launch(req, kind, count * nblocks * s->esize,
                            comm->size == 1 || count == 0, req_p);
}

loom_status_t loom_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                           loom_datatype_t dt, loom_op_t op, int root, loom_comm_t comm,
                           loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_reduce_start(LOOM_COLL_REDUCE, sendbuf, recvbuf, count, dt, op, root,
                                  comm, "loom_ireduce", "reduce", req_p);
}

/*
 * A blocking reduce whose selection gives an algorithm with a fast member
 * (shm) and whose arguments it can take: run it; LOOM_INPROGRESS for the
 * request path (which judges everything else and reports), or the op/type
 * error. Admitted at every call (no cache as allreduce keeps).
 */
static __attribute__((noinline)) loom_status_t
loom_coll_reduce_fast(const void *sendbuf, void *recvbuf, size_t count, loom_datatype_t dt,
                      loom_op_t op, int root, loom_comm_t comm)
{
    size_t esize = loom_datatype_size(dt);
    const loom_coll_alg_t *alg;
    loom_coll_fast_ar_t how;
    loom_status_t st;
    int is_root;

    if (comm == LOOM_COMM_NULL || comm->magic != LOOM_COMM_MAGIC || root < 0 ||
        root >= comm->size || count == 0 || esize == 0 || sendbuf == NULL ||
        count > LOOM_COLL_MAX_BYTES / esize) {
        return LOOM_INPROGRESS;
    }
    is_root = root == comm->rank;
    if ((sendbuf == LOOM_IN_PLACE && !is_root) ||
        (is_root && (recvbuf == NULL || recvbuf == LOOM_IN_PLACE ||
                     (sendbuf != LOOM_IN_PLACE &&
                      loom_coll_overlap(sendbuf, count * esize, recvbuf, count * esize)))) ||
        (alg = loom_coll_blocking_alg(comm, LOOM_COLL_REDUCE, count * esize)) == NULL ||
        alg->fast.reduce == NULL) {
        return LOOM_INPROGRESS;
    }
    if ((st = loom_op_check(op, dt, "loom_reduce")) != LOOM_OK) {
        return loom_p2p_error(st, "loom_reduce");
    }
    if (!loom_op_count_whole(op, dt, count)) {
        return LOOM_INPROGRESS;    /* not whole elements of a user op: reported there */
    }
    how.count  = 0;
    how.dt     = dt;
    how.op     = op;
    how.esize  = esize;
    how.kernel = loom_op_kernel(op, dt);
    how.fn     = NULL;
    return alg->fast.reduce(sendbuf, recvbuf, count, &how, root, comm);
}

loom_status_t loom_reduce(const void *sendbuf, void *recvbuf, size_t count,
                          loom_datatype_t dt, loom_op_t op, int root, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;
    loom_status_t st = loom_coll_reduce_fast(sendbuf, recvbuf, count, dt, op, root, comm);

    if (st != LOOM_INPROGRESS) {
        return st;
    }
    return loom_coll_finish(loom_coll_reduce_start(LOOM_COLL_REDUCE, sendbuf, recvbuf,
                                                   count, dt, op, root, comm,
                                                   "loom_reduce", "reduce", &req),
                            &req, "loom_reduce");
}

loom_status_t loom_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
                              loom_datatype_t dt, loom_op_t op, loom_comm_t comm,
                              loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_reduce_start(LOOM_COLL_ALLREDUCE, sendbuf, recvbuf, count, dt, op, 0,
                                  comm, "loom_iallreduce", "allreduce", req_p);
}

static __attribute__((noinline)) loom_status_t
loom_coll_allreduce_req(const void *sendbuf, void *recvbuf, size_t count, loom_datatype_t dt,
                        loom_op_t op, loom_comm_t comm)
{
    loom_request_t req = NULL;

    return loom_coll_finish(loom_coll_reduce_start(LOOM_COLL_ALLREDUCE, sendbuf, recvbuf,
                                                   count, dt, op, 0, comm,
                                                   "loom_allreduce", "allreduce", &req),
                            &req, "loom_allreduce");
}

/*
 * A blocking allreduce the admission below did not see before (another
 * count, type or op, or a user op): does the selection's algorithm have a
 * fast member that may take it? LOOM_OK with the call admitted into @p cc
 * (fast_ar_*: element size, kernel, NULL for loom_op_apply, type, op and
 * the fast member), LOOM_INPROGRESS to leave it to the request path (which
 * validates and reports), or the op/type error. Predefined pairs are
 * remembered (cc->fast_ar); user ops may be freed, so they are admitted
 * every time (cc->fast_ar_user).
 */
static __attribute__((noinline)) loom_status_t
loom_coll_allreduce_admit(loom_coll_comm_t *cc, loom_comm_t comm, const void *sbuf,
                          void *rbuf, size_t count, loom_datatype_t dt, loom_op_t op)
{
    size_t esize = loom_datatype_size(dt);
    const loom_coll_alg_t *alg;
    loom_op_kernel_fn_t kernel;
    loom_coll_fast_ar_t *how;
    loom_status_t st;

    if (esize == 0 || count > LOOM_COLL_MAX_BYTES / esize ||
        (sbuf != LOOM_IN_PLACE && loom_coll_overlap(sbuf, count * esize, rbuf, count * esize)) ||
        (alg = loom_coll_blocking_alg(comm, LOOM_COLL_ALLREDUCE, count * esize)) == NULL ||
        alg->fast.allreduce == NULL) {
        return LOOM_INPROGRESS;
    }
    if ((st = loom_op_check(op, dt, "loom_allreduce")) != LOOM_OK) {
        return loom_p2p_error(st, "loom_allreduce");
    }
    if (!loom_op_count_whole(op, dt, count)) {
        return LOOM_INPROGRESS;    /* not whole elements of a user op: reported there */
    }
    kernel = loom_op_kernel(op, dt);
    how    = kernel != NULL ? &cc->fast_ar : &cc->fast_ar_user;
    how->count  = kernel != NULL ? count : 0;
    how->dt     = dt;
    how->op     = op;
    how->esize  = esize;
    how->kernel = kernel;
    how->fn     = alg->fast.allreduce;
    return LOOM_OK;
}

/* Is (count > 0, dt, op) the allreduce admitted last on @p cc, reusably? */
static inline int loom_coll_allreduce_cached(const loom_coll_comm_t *cc, size_t count,
                                             loom_datatype_t dt, loom_op_t op)
{
    return cc->fast_ar.count == count && cc->fast_ar.dt == dt && cc->fast_ar.op == op;
}

/* A blocking allreduce not admitted before: admit it and run the fast
 * member, or take the request path. */
static __attribute__((noinline)) loom_status_t
loom_coll_allreduce_new(const void *sendbuf, void *recvbuf, size_t count, loom_datatype_t dt,
                        loom_op_t op, loom_comm_t comm)
{
    loom_coll_comm_t *cc = comm->coll_priv;
    const loom_coll_fast_ar_t *how;
    loom_status_t st = loom_coll_allreduce_admit(cc, comm, sendbuf, recvbuf, count, dt, op);

    if (st != LOOM_OK) {
        return st != LOOM_INPROGRESS ? st
                                     : loom_coll_allreduce_req(sendbuf, recvbuf, count, dt,
                                                               op, comm);
    }
    how = loom_coll_allreduce_cached(cc, count, dt, op) ? &cc->fast_ar : &cc->fast_ar_user;
    return how->fn(sendbuf, recvbuf, count, dt, how, comm);
}

/*
 * The common call (a predefined op and type admitted before) costs the
 * checks below, the cache compare and one jump to the fast member; every
 * other way out is a jump too, so this function needs no stack frame.
 */
loom_status_t loom_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                             loom_datatype_t dt, loom_op_t op, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_coll_comm_t *cc;

    if (loom_unlikely(comm == LOOM_COMM_NULL || comm->magic != LOOM_COMM_MAGIC) ||
        (cc = comm->coll_priv) == NULL || !loom_coll_comm_fast_ready(cc) || count == 0 ||
        sendbuf == NULL || recvbuf == NULL || recvbuf == LOOM_IN_PLACE) {
        return loom_coll_allreduce_req(sendbuf, recvbuf, count, dt, op, comm);
    }
    if (loom_unlikely(!loom_coll_allreduce_cached(cc, count, dt, op))) {
        return loom_coll_allreduce_new(sendbuf, recvbuf, count, dt, op, comm);
    }
    if (sendbuf != LOOM_IN_PLACE &&
        loom_coll_overlap(sendbuf, count * cc->fast_ar.esize, recvbuf,
                          count * cc->fast_ar.esize)) {
        return loom_coll_allreduce_req(sendbuf, recvbuf, count, dt, op, comm);
    }
    return cc->fast_ar.fn(sendbuf, recvbuf, count, dt, &cc->fast_ar, comm);
}

loom_status_t loom_ireduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                         loom_datatype_t dt, loom_op_t op,
                                         loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_reduce_start(LOOM_COLL_REDUCE_SCATTER, sendbuf, recvbuf, count, dt,
                                  op, 0, comm, "loom_ireduce_scatter_block",
                                  "reduce_scatter_block", req_p);
}

loom_status_t loom_reduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                        loom_datatype_t dt, loom_op_t op, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;
    return loom_coll_finish(loom_coll_reduce_start(LOOM_COLL_REDUCE_SCATTER, sendbuf,
                                                   recvbuf, count, dt, op, 0, comm,
                                                   "loom_reduce_scatter_block",
                                                   "reduce_scatter_block", &req),
                            &req, "loom_reduce_scatter_block");
}

/* ---- gather family ------------------------------------------------------------------- */

/*
 * counts/displs of a v collective: not NULL, and counts[i] x element size,
 * their sum and displs[i] + counts[i] within LOOM_COLL_MAX_BYTES. Gives the
 * total element count and the extent (largest displs[i] + counts[i]).
 */
loom_status_t loom_coll_check_vec(const loom_coll_state_t *s, const size_t *counts,
                                  const size_t *displs, const char *what, const char *who,
                                  size_t *total_p, size_t *extent_p)
{
    size_t limit = LOOM_COLL_MAX_BYTES / s->esize, total = 0, extent = 0;

    if (counts == NULL || displs == NULL) {
        loom_error("coll", "%s: %s %s is NULL", who, what,
                   counts == NULL ? "counts" : "displs");
        return LOOM_ERR_INVALID_ARG;
    }
    for (int i = 0; i < s->size; ++i) {
        if (counts[i] > limit || total > limit - counts[i]) {
            loom_error("coll", "%s: %scounts[%d] = %zu elements of %zu bytes: %s "
                       "overflows (limit %zu elements)", who, what, i, counts[i], s->esize,
                       counts[i] > limit ? "the count" : "the sum of the counts", limit);
            return LOOM_ERR_INVALID_COUNT;
        }
        if (displs[i] > limit - counts[i]) {
            loom_error("coll", "%s: %sdispls[%d] = %zu + %scounts[%d] = %zu elements of "
                       "%zu bytes overflows (limit %zu elements)", who, what, i, displs[i],
                       what, i, counts[i], s->esize, limit);
            return LOOM_ERR_INVALID_COUNT;
        }
        total += counts[i];
        if (counts[i] > 0 && displs[i] + counts[i] > extent) {
            extent = displs[i] + counts[i];
        }
    }
    *total_p  = total;
    *extent_p = extent;
    return LOOM_OK;
}

/* allgather (counts == NULL) and allgatherv */
static loom_status_t loom_coll_allgather_start(const void *sendbuf, size_t sendcount,
                                               void *recvbuf, const size_t *recvcounts,
                                               const size_t *displs, loom_datatype_t dt,
                                               loom_comm_t comm, const char *who,
                                               loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, "allgather", dt, &req);
    size_t total, own_off, extent;

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_state(req);
    if (recvcounts != NULL || displs != NULL) {
        if ((st = loom_coll_check_vec(s, recvcounts, displs, "recv", who, &total,
                                      &extent)) != LOOM_OK) {
            return loom_coll_fail(req, st, who);
        }
        if (sendbuf != LOOM_IN_PLACE && sendcount != recvcounts[s->rank]) {
            loom_error("coll", "%s: rank %d sends %zu elements but recvcounts[%d] is %zu",
                       who, s->rank, sendcount, s->rank, recvcounts[s->rank]);
            return loom_coll_fail(req, LOOM_ERR_INVALID_COUNT, who);
        }
        own_off = displs[s->rank];
        s->layout = LOOM_COLL_LAYOUT_VECTOR;
        s->counts = recvcounts;
        s->displs = displs;
        sendcount = recvcounts[s->rank];
    } else {
        if ((st = loom_coll_check_count(s, sendcount, (size_t)s->size, who)) != LOOM_OK) {
            return loom_coll_fail(req, st, who);
        }
        total   = sendcount * (size_t)s->size;
        extent  = total;
        own_off = sendcount * (size_t)s->rank;
        s->layout = LOOM_COLL_LAYOUT_UNIFORM;
    }
    if ((sendbuf != LOOM_IN_PLACE &&
         (st = loom_coll_check_buf(sendbuf, sendcount, "sendbuf", who)) != LOOM_OK) ||
        (st = loom_coll_check_buf(recvbuf, total, "recvbuf", who)) != LOOM_OK ||
        (st = loom_coll_check_alias(sendbuf, sendcount * s->esize, recvbuf,
                                    extent * s->esize, who)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    s->in_place = sendbuf == LOOM_IN_PLACE;
    s->rbuf  = recvbuf;
    s->count = s->layout == LOOM_COLL_LAYOUT_UNIFORM ? sendcount : total;
    /* local part: the own block into place (a no-op when in place) */
    s->sbuf  = s->in_place ? loom_coll_at(recvbuf, own_off, s->esize) : sendbuf;
    s->len   = sendcount * s->esize;
    if (comm->size == 1 || total == 0) {
        s->rbuf = loom_coll_at(recvbuf, own_off, s->esize);
        return loom_coll_launch(req, LOOM_COLL_ALLGATHER, 0, 1, req_p);
    }
    return loom_coll_launch(req, LOOM_COLL_ALLGATHER, total * s->esize / (size_t)s->size,
                            0, req_p);
}

const loom_coll_alg_t *loom_coll_move_fast(const void *own, const void *whole, size_t count,
                                           loom_datatype_t dt, int root, loom_comm_t comm,
                                           loom_coll_type_t type)
{
    size_t esize = loom_datatype_size(dt), bytes, own_bytes;
    int rooted = type == LOOM_COLL_GATHER || type == LOOM_COLL_SCATTER, is_root;
    const loom_coll_alg_t *alg;

    /* gather and scatter "stage" move blocks up to the stage; the
     * selection below bounds every algorithm's blocks exactly */
    size_t limit = rooted ? LOOM_COLL_SHM_STAGE_BYTES : LOOM_COLL_SHM_MAX_BYTES;

    if (esize == 0 || count == 0 || count > limit / esize ||
        (alg = loom_coll_blocking_alg(comm, type, count * esize)) == NULL ||
        alg->fast.move == NULL || (rooted && (root < 0 || root >= comm->size))) {
        return NULL;
    }
    bytes     = count * esize;
    own_bytes = type == LOOM_COLL_ALLTOALL ? bytes * (size_t)comm->size : bytes;
    is_root   = !rooted || comm->rank == root;
    if (own == NULL || (own == LOOM_IN_PLACE && !is_root) ||
        (is_root && (whole == NULL || whole == LOOM_IN_PLACE ||
                     (own != LOOM_IN_PLACE &&
                      loom_coll_overlap(own, own_bytes, whole, bytes * (size_t)comm->size))))) {
        return NULL;
    }
    return alg;
}

loom_status_t loom_iallgather(const void *sendbuf, void *recvbuf, size_t count,
                              loom_datatype_t dt, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_allgather_start(sendbuf, count, recvbuf, NULL, NULL, dt, comm,
                                     "loom_iallgather", req_p);
}

loom_status_t loom_allgather(const void *sendbuf, void *recvbuf, size_t count,
                             loom_datatype_t dt, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    const loom_coll_alg_t *alg = loom_coll_move_fast(sendbuf, recvbuf, count, dt, 0, comm,
                                                     LOOM_COLL_ALLGATHER);
    loom_request_t req = NULL;

    if (alg != NULL) {
        return alg->fast.move(sendbuf, recvbuf, count * loom_datatype_size(dt), 0, comm);
    }
    return loom_coll_finish(loom_coll_allgather_start(sendbuf, count, recvbuf, NULL, NULL,
                                                      dt, comm, "loom_allgather", &req),
                            &req, "loom_allgather");
}

loom_status_t loom_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                               const size_t recvcounts[], const size_t displs[],
                               loom_datatype_t dt, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    if (recvcounts == NULL || displs == NULL) {
        loom_error("coll", "loom_iallgatherv: recvcounts or displs is NULL");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_iallgatherv");
    }
    return loom_coll_allgather_start(sendbuf, sendcount, recvbuf, recvcounts, displs, dt,
                                     comm, "loom_iallgatherv", req_p);
}

loom_status_t loom_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                              const size_t recvcounts[], const size_t displs[],
                              loom_datatype_t dt, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;
    if (recvcounts == NULL || displs == NULL) {
        loom_error("coll", "loom_allgatherv: recvcounts or displs is NULL");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_allgatherv");
    }
    return loom_coll_finish(loom_coll_allgather_start(sendbuf, sendcount, recvbuf,
                                                      recvcounts, displs, dt, comm,
                                                      "loom_allgatherv", &req),
                            &req, "loom_allgatherv");
}
