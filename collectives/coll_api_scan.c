/*
 * coll_api_scan.c: the public scan, exscan, reduce_scatter (per-rank
 * counts) and alltoallw calls. As in coll_api.c, each validates its
 * arguments (naming the call, the argument and the value), resolves
 * LOOM_IN_PLACE, fills the state of one generic request and lets the
 * selection table pick the algorithm; the blocking forms are start + wait.
 *
 * Deterministic mode for the scan family: the chain's left fold is the
 * canonical order; recursive doubling reproduces it by carrying the inputs
 * (s->ordered) when the operation's bracketing can change the bits
 * (floating point, user operations). Integer and logical predefined
 * operations are exactly associative, so they keep the cheap exchange.
 */
#include "coll_api_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <stdint.h>

/* 1 if (a op b) op c has the bits of a op (b op c) for predefined @p op on @p dt. */
static int loom_coll_associates_exactly(loom_op_t op, loom_datatype_t dt)
{
    int fp = dt == LOOM_FLOAT || dt == LOOM_DOUBLE || dt == LOOM_LONG_DOUBLE ||
             dt == LOOM_FLOAT_INT || dt == LOOM_DOUBLE_INT || dt == LOOM_LONG_DOUBLE_INT;

    return (int)op > LOOM_OP_NULL && (int)op < LOOM_OP_PREDEFINED_COUNT && !fp;
}

/* ---- scan, exscan ------------------------------------------------------------------- */

static loom_status_t loom_coll_scan_start(loom_coll_type_t kind, const void *sendbuf,
                                          void *recvbuf, size_t count, loom_datatype_t dt,
                                          loom_op_t op, loom_comm_t comm, const char *who,
                                          loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, kind == LOOM_COLL_SCAN ? "scan" : "exscan",
                                       dt, &req);
    int ex = kind == LOOM_COLL_EXSCAN;

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_state(req);
    s->ordered = (uint8_t)(loom_coll_deterministic() && !loom_coll_associates_exactly(op, dt));
    if ((st = loom_op_check(op, dt, who)) != LOOM_OK ||
        (st = loom_coll_check_count(s, count, s->ordered ? (size_t)s->size : 1, who)) !=
        LOOM_OK ||
        /* from here count and s->esize are in the op's elements (same bytes) */
        (st = loom_coll_state_set_op(s, op, count, who, &count)) != LOOM_OK ||
        (sendbuf != LOOM_IN_PLACE &&
         (st = loom_coll_check_buf(sendbuf, count, "sendbuf", who)) != LOOM_OK) ||
        /* exscan never writes rank 0's recvbuf: it may be NULL there */
        ((!ex || s->rank > 0 || sendbuf == LOOM_IN_PLACE) &&
         (st = loom_coll_check_buf(recvbuf, count, "recvbuf", who)) != LOOM_OK) ||
        (st = loom_coll_check_alias(sendbuf, count * s->esize, recvbuf, count * s->esize,
                                    who)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    s->in_place = sendbuf == LOOM_IN_PLACE;
    s->sbuf     = s->in_place ? recvbuf : sendbuf;
    s->rbuf     = recvbuf;
    s->count    = count;
    s->layout   = LOOM_COLL_LAYOUT_UNIFORM;
    s->len      = ex ? 0 : count * s->esize;   /* the local case: scan copies */
    return loom_coll_launch(req, kind, count * s->esize, comm->size == 1 || count == 0,
                            req_p);
}

loom_status_t loom_iscan(const void *sendbuf, void *recvbuf, size_t count,
                         loom_datatype_t dt, loom_op_t op, loom_comm_t comm,
                         loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_scan_start(LOOM_COLL_SCAN, sendbuf, recvbuf, count, dt, op, comm,
                                "loom_iscan", req_p);
}

loom_status_t loom_scan(const void *sendbuf, void *recvbuf, size_t count,
                        loom_datatype_t dt, loom_op_t op, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;

    return loom_coll_finish(loom_coll_scan_start(LOOM_COLL_SCAN, sendbuf, recvbuf, count,
                                                 dt, op, comm, "loom_scan", &req),
                            &req, "loom_scan");
}

loom_status_t loom_iexscan(const void *sendbuf, void *recvbuf, size_t count,
                           loom_datatype_t dt, loom_op_t op, loom_comm_t comm,
                           loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_scan_start(LOOM_COLL_EXSCAN, sendbuf, recvbuf, count, dt, op, comm,
                                "loom_iexscan", req_p);
}

loom_status_t loom_exscan(const void *sendbuf, void *recvbuf, size_t count,
                          loom_datatype_t dt, loom_op_t op, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;

    return loom_coll_finish(loom_coll_scan_start(LOOM_COLL_EXSCAN, sendbuf, recvbuf, count,
                                                 dt, op, comm, "loom_exscan", &req),
                            &req, "loom_exscan");
}

/* ---- reduce_scatter with per-rank counts ------------------------------------------- */

/*
 * recvcounts: not NULL, the sum within LOOM_COLL_MAX_BYTES, each count whole
 * elements of @p op (a user op with a unit is only ever applied to whole
 * elements; the algorithms reduce whole blocks); gives the sum.
 */
static loom_status_t loom_coll_check_counts(const loom_coll_state_t *s, const size_t *counts,
                                            loom_op_t op, const char *who, size_t *total_p)
{
    size_t limit = LOOM_COLL_MAX_BYTES / s->esize, total = 0;
    size_t unit = loom_op_unit(op, s->dt);

    if (counts == NULL) {
        loom_error("coll", "%s: recvcounts is NULL", who);
        return LOOM_ERR_INVALID_ARG;
    }
    for (int i = 0; i < s->size; ++i) {
        if (counts[i] > limit - total) {
            loom_error("coll", "%s: recvcounts[%d] = %zu elements of %zu bytes: the sum of "
                       "the counts overflows (limit %zu elements)", who, i, counts[i],
                       s->esize, limit);
            return LOOM_ERR_INVALID_COUNT;
        }
        if (counts[i] % unit != 0) {
            loom_error("coll", "%s: recvcounts[%d] = %zu of datatype '%s' is not a whole "
                       "number of elements of operation '%s' (%zu '%s' each)", who, i,
                       counts[i], loom_datatype_name(s->dt), loom_op_name(op), unit,
                       loom_datatype_name(s->dt));
            return LOOM_ERR_INVALID_COUNT;
        }
        total += counts[i];
    }
    *total_p = total;
    return LOOM_OK;
}

static loom_status_t loom_coll_rsv_start(const void *sendbuf, void *recvbuf,
                                         const size_t *counts, loom_datatype_t dt,
                                         loom_op_t op, loom_comm_t comm, const char *who,
                                         loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, "reduce_scatter", dt, &req);
    size_t total = 0, mine;
    int in_place = sendbuf == LOOM_IN_PLACE;

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_state(req);
    if ((st = loom_op_check(op, dt, who)) != LOOM_OK ||
        (st = loom_coll_check_counts(s, counts, op, who, &total)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    mine = counts[s->rank];
    if ((!in_place && (st = loom_coll_check_buf(sendbuf, total, "sendbuf", who)) != LOOM_OK) ||
        (st = loom_coll_check_buf(recvbuf, in_place ? total : mine, "recvbuf", who)) !=
        LOOM_OK ||
        (st = loom_coll_check_alias(sendbuf, total * s->esize, recvbuf, mine * s->esize,
                                    who)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    s->in_place = (uint8_t)in_place;
    s->sbuf     = in_place ? recvbuf : sendbuf;
    s->rbuf     = recvbuf;
    s->count    = total;
    s->counts   = counts;
    loom_coll_state_hold_op(s, op);
    s->layout   = LOOM_COLL_LAYOUT_VECTOR;
    s->ordered |= !loom_op_is_commutative(op);
    s->len      = comm->size == 1 ? mine * s->esize : 0;
    return loom_coll_launch(req, LOOM_COLL_REDUCE_SCATTERV, total * s->esize,
                            comm->size == 1 || total == 0, req_p);
}

loom_status_t loom_ireduce_scatter(const void *sendbuf, void *recvbuf,
                                   const size_t recvcounts[], loom_datatype_t dt,
                                   loom_op_t op, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_rsv_start(sendbuf, recvbuf, recvcounts, dt, op, comm,
                               "loom_ireduce_scatter", req_p);
}

loom_status_t loom_reduce_scatter(const void *sendbuf, void *recvbuf,
                                  const size_t recvcounts[], loom_datatype_t dt,
                                  loom_op_t op, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;

    return loom_coll_finish(loom_coll_rsv_start(sendbuf, recvbuf, recvcounts, dt, op, comm,
                                                "loom_reduce_scatter", &req),
                            &req, "loom_reduce_scatter");
}

/* ---- alltoallw ------------------------------------------------------------------------ */

/*
 * One side of an alltoallw (@p what: "send" or "recv"): arrays not NULL,
 * every type a loom type, each block and its end within the byte limit.
 * Gives the total bytes and the extent (largest displs[i] + block bytes).
 */
static loom_status_t loom_coll_check_w(const loom_coll_state_t *s, const size_t *counts,
                                       const size_t *displs, const loom_datatype_t *types,
                                       const char *what, const char *who, size_t *total_p,
                                       size_t *extent_p)
{
    size_t total = 0, extent = 0, es, n;

    if (counts == NULL || displs == NULL || types == NULL) {
        loom_error("coll", "%s: %s%s is NULL", who, what,
                   counts == NULL ? "counts" : displs == NULL ? "displs" : "types");
        return LOOM_ERR_INVALID_ARG;
    }
    for (int i = 0; i < s->size; ++i) {
        if ((es = loom_datatype_size(types[i])) == 0) {
            loom_error("coll", "%s: %stypes[%d] = %d is not a loom datatype", who, what, i,
                       (int)types[i]);
            return LOOM_ERR_INVALID_TYPE;
        }
        n = counts[i] * es;
        if (counts[i] > LOOM_COLL_MAX_BYTES / es || displs[i] > LOOM_COLL_MAX_BYTES - n ||
            total > LOOM_COLL_MAX_BYTES - n) {
            loom_error("coll", "%s: %scounts[%d] = %zu elements of %zu bytes at byte "
                       "displacement %zu overflows (limit %zu bytes)", who, what, i,
                       counts[i], es, displs[i], LOOM_COLL_MAX_BYTES);
            return LOOM_ERR_INVALID_COUNT;
        }
        total += n;
        if (n > 0) {
            extent = LOOM_MAX(extent, displs[i] + n);
        }
    }
    *total_p  = total;
    *extent_p = extent;
    return LOOM_OK;
}

/* The own block: the send and receive sides must describe the same bytes. */
static loom_status_t loom_coll_check_w_self(const loom_coll_state_t *s, const char *who)
{
    size_t so, ro, sn = loom_coll_a2aw_send(s, s->rank, &so);
    size_t rn = loom_coll_a2aw_recv(s, s->rank, &ro);

    if (sn == rn) {
        return LOOM_OK;
    }
    loom_error("coll", "%s: rank %d sends itself %zu bytes but receives %zu (sendcounts[%d] "
               "x its type against recvcounts[%d] x its type)", who, s->rank, sn, rn,
               s->rank, s->rank);
    return sn > rn ? LOOM_ERR_TRUNCATED : LOOM_ERR_INVALID_COUNT;
}

/* alltoallw arguments, send side then receive side */
typedef struct loom_coll_w_args {
    const void            *sbuf;
    const size_t          *scounts, *sdispls;
    const loom_datatype_t *stypes;
    void                  *rbuf;
    const size_t          *rcounts, *rdispls;
    const loom_datatype_t *rtypes;
} loom_coll_w_args_t;

static loom_status_t loom_coll_alltoallw_start(const loom_coll_w_args_t *a,
                                               loom_comm_t comm, const char *who,
                                               loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, "alltoallw", LOOM_BYTE, &req);
    int in_place = a->sbuf == LOOM_IN_PLACE;
    size_t stotal, rtotal, sext, rext, so, ro;

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_state(req);
    s->counts  = in_place ? a->rcounts : a->scounts;   /* in place: send = receive side */
    s->displs  = in_place ? a->rdispls : a->sdispls;
    s->types   = in_place ? a->rtypes : a->stypes;
    s->counts2 = a->rcounts;
    s->displs2 = a->rdispls;
    s->types2  = a->rtypes;
    if ((st = loom_coll_check_w(s, a->rcounts, a->rdispls, a->rtypes, "recv", who, &rtotal,
                                &rext)) != LOOM_OK ||
        (!in_place && (st = loom_coll_check_w(s, a->scounts, a->sdispls, a->stypes, "send",
                                              who, &stotal, &sext)) != LOOM_OK) ||
        (st = loom_coll_check_w_self(s, who)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    if ((!in_place && (st = loom_coll_check_buf(a->sbuf, stotal, "sendbuf", who)) != LOOM_OK) ||
        (st = loom_coll_check_buf(a->rbuf, rtotal, "recvbuf", who)) != LOOM_OK ||
        (!in_place && (st = loom_coll_check_alias(a->sbuf, sext, a->rbuf, rext, who)) !=
         LOOM_OK)) {
        return loom_coll_fail(req, st, who);
    }
    s->in_place = (uint8_t)in_place;
    s->sbuf     = in_place ? a->rbuf : a->sbuf;
    s->rbuf     = a->rbuf;
    s->layout   = LOOM_COLL_LAYOUT_VECTOR;
    if (comm->size == 1) {                   /* the own block only */
        s->len  = loom_coll_a2aw_send(s, 0, &so);
        (void)loom_coll_a2aw_recv(s, 0, &ro);
        s->sbuf = (const char *)s->sbuf + so;
        s->rbuf = (char *)s->rbuf + ro;
        return loom_coll_launch(req, LOOM_COLL_ALLTOALLW, 0, 1, req_p);
    }
    return loom_coll_launch(req, LOOM_COLL_ALLTOALLW, rtotal / (size_t)s->size, 0, req_p);
}

#define LOOM_COLL_W_ARGS                                                             \
    { sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes }

loom_status_t loom_ialltoallw(const void *sendbuf, const size_t sendcounts[],
                              const size_t sdispls[], const loom_datatype_t sendtypes[],
                              void *recvbuf, const size_t recvcounts[],
                              const size_t rdispls[], const loom_datatype_t recvtypes[],
                              loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    loom_coll_w_args_t a = LOOM_COLL_W_ARGS;

    return loom_coll_alltoallw_start(&a, comm, "loom_ialltoallw", req_p);
}

loom_status_t loom_alltoallw(const void *sendbuf, const size_t sendcounts[],
                             const size_t sdispls[], const loom_datatype_t sendtypes[],
                             void *recvbuf, const size_t recvcounts[],
                             const size_t rdispls[], const loom_datatype_t recvtypes[],
                             loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_coll_w_args_t a = LOOM_COLL_W_ARGS;
    loom_request_t req = NULL;

    return loom_coll_finish(loom_coll_alltoallw_start(&a, comm, "loom_alltoallw", &req),
                            &req, "loom_alltoallw");
}
