/*
 * coll_api_rooted.c: public gather(v), scatter(v) and alltoall(v): argument
 * checks, LOOM_IN_PLACE, then the same launch path as coll_api.c.
 */
#include "coll_int.h"
#include "coll_api_int.h"
#include "log_int.h"
#include "mt_int.h"

/*
 * The arguments gather(v) and scatter(v) share, seen from one side: this
 * rank's block (@p own: sendbuf of a gather, recvbuf of a scatter) and the
 * root's p blocks (@p whole). Filled by loom_coll_rooted_check().
 */
typedef struct loom_coll_rooted {
    const void   *own;
    size_t        count;    /* this rank's elements (resolved at the root) */
    const void   *whole;
    const size_t *counts;   /* v variants: significant at the root */
    const size_t *displs;
    int           root;
    int           vector;
    int           gather;   /* 1: gather family, 0: scatter family */
    size_t        own_off;  /* out: the root's own block in whole */
    size_t        total;    /* out: elements of whole */
    size_t        extent;   /* out: its largest displs[i] + counts[i] */
} loom_coll_rooted_t;

/* Check root, counts, IN_PLACE and buffers; the error is logged. */
static loom_status_t loom_coll_rooted_check(const loom_coll_state_t *s, loom_coll_rooted_t *a,
                                            const char *who)
{
    const char *wn = a->gather ? "recv" : "send";     /* the root's side */
    int is_root = a->root == s->rank;
    loom_status_t st;

    if ((st = loom_coll_check_root(s, a->root, who)) != LOOM_OK ||
        (a->vector && (st = loom_coll_check_count(s, a->count, 1, who)) != LOOM_OK)) {
        return st;
    }
    if (a->own == LOOM_IN_PLACE && !is_root) {
        loom_error("coll", "%s: LOOM_IN_PLACE is valid only at the root (%d), not at "
                   "rank %d", who, a->root, s->rank);
        return LOOM_ERR_INVALID_BUFFER;
    }
    a->own_off = 0;
    a->total = a->extent = a->count * (size_t)s->size;
    if (a->vector && is_root) {
        if (a->counts == NULL || a->displs == NULL) {
            loom_error("coll", "%s: %scounts or displs is NULL at the root", who, wn);
            return LOOM_ERR_INVALID_ARG;
        }
        if ((st = loom_coll_check_vec(s, a->counts, a->displs, wn, who, &a->total,
                                      &a->extent)) != LOOM_OK) {
            return st;
        }
        if (a->own != LOOM_IN_PLACE && a->counts[a->root] != a->count) {
            loom_error("coll", "%s: the root %s %zu elements but %scounts[%d] is %zu", who,
                       a->gather ? "sends" : "receives", a->count, wn, a->root,
                       a->counts[a->root]);
            return LOOM_ERR_INVALID_COUNT;
        }
        a->count   = a->counts[a->root];
        a->own_off = a->displs[a->root];
    } else if (!a->vector) {
        if ((st = loom_coll_check_count(s, a->count, (size_t)s->size, who)) != LOOM_OK) {
            return st;
        }
        a->own_off = a->count * (size_t)a->root;
    }
    if (a->own != LOOM_IN_PLACE &&
        (st = loom_coll_check_buf(a->own, a->count, a->gather ? "sendbuf" : "recvbuf",
                                  who)) != LOOM_OK) {
        return st;
    }
    if (!is_root) {
        return LOOM_OK;
    }
    if ((st = loom_coll_check_buf(a->whole, a->total, a->gather ? "recvbuf" : "sendbuf",
                                  who)) != LOOM_OK || a->own == LOOM_IN_PLACE) {
        return st;
    }
    return a->gather ? loom_coll_check_alias(a->own, a->count * s->esize, a->whole,
                                             a->extent * s->esize, who)
                     : loom_coll_check_alias(a->whole, a->extent * s->esize, a->own,
                                             a->count * s->esize, who);
}

/* gather (counts == NULL) and gatherv (counts, displs significant at the root) */
static loom_status_t loom_coll_gather_start(const void *sendbuf, size_t sendcount,
                                            void *recvbuf, const size_t *counts,
                                            const size_t *displs, loom_datatype_t dt,
                                            int root, loom_comm_t comm, int vector,
                                            const char *who, loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, vector ? "gatherv" : "gather", dt, &req);
    loom_coll_rooted_t a = { .own = sendbuf, .count = sendcount, .whole = recvbuf,
                             .counts = counts, .displs = displs, .root = root,
                             .vector = vector, .gather = 1 };
    size_t own_off;

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_state(req);
    if ((st = loom_coll_rooted_check(s, &a, who)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    sendcount = a.count;
    own_off   = a.own_off;
    s->in_place = sendbuf == LOOM_IN_PLACE;
    s->sbuf   = s->in_place ? loom_coll_at(recvbuf, own_off, s->esize) : sendbuf;
    s->rbuf   = recvbuf;
    s->count  = sendcount;
    s->root   = root;
    s->layout = vector ? LOOM_COLL_LAYOUT_VECTOR : LOOM_COLL_LAYOUT_UNIFORM;
    s->counts = counts;
    s->displs = displs;
    s->len    = sendcount * s->esize;
    if (comm->size == 1) {
        s->rbuf = loom_coll_at(recvbuf, own_off, s->esize);
        return loom_coll_launch(req, LOOM_COLL_GATHER, 0, 1, req_p);
    }
    return loom_coll_launch(req, LOOM_COLL_GATHER, sendcount * s->esize,
                            !vector && sendcount == 0, req_p);
}

loom_status_t loom_igather(const void *sendbuf, void *recvbuf, size_t count,
                           loom_datatype_t dt, int root, loom_comm_t comm,
                           loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_gather_start(sendbuf, count, recvbuf, NULL, NULL, dt, root, comm, 0,
                                  "loom_igather", req_p);
}

loom_status_t loom_gather(const void *sendbuf, void *recvbuf, size_t count,
                          loom_datatype_t dt, int root, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    const loom_coll_alg_t *alg = loom_coll_move_fast(sendbuf, recvbuf, count, dt, root, comm,
                                                     LOOM_COLL_GATHER);
    loom_request_t req = NULL;

    if (alg != NULL) {
        return alg->fast.move(sendbuf, recvbuf, count * loom_datatype_size(dt), root, comm);
    }
    return loom_coll_finish(loom_coll_gather_start(sendbuf, count, recvbuf, NULL, NULL, dt,
                                                   root, comm, 0, "loom_gather", &req),
                            &req, "loom_gather");
}

loom_status_t loom_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                            const size_t recvcounts[], const size_t displs[],
                            loom_datatype_t dt, int root, loom_comm_t comm,
                            loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_gather_start(sendbuf, sendcount, recvbuf, recvcounts, displs, dt,
                                  root, comm, 1, "loom_igatherv", req_p);
}

loom_status_t loom_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                           const size_t recvcounts[], const size_t displs[],
                           loom_datatype_t dt, int root, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;
    return loom_coll_finish(loom_coll_gather_start(sendbuf, sendcount, recvbuf, recvcounts,
                                                   displs, dt, root, comm, 1,
                                                   "loom_gatherv", &req),
                            &req, "loom_gatherv");
}

/* scatter (counts == NULL) and scatterv (counts, displs significant at the root) */
static loom_status_t loom_coll_scatter_start(const void *sendbuf, const size_t *counts,
                                             const size_t *displs, void *recvbuf,
                                             size_t recvcount, loom_datatype_t dt,
                                             int root, loom_comm_t comm, int vector,
                                             const char *who, loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, vector ? "scatterv" : "scatter", dt, &req);
    loom_coll_rooted_t a = { .own = recvbuf, .count = recvcount, .whole = sendbuf,
                             .counts = counts, .displs = displs, .root = root,
                             .vector = vector, .gather = 0 };
    size_t own_off;

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_state(req);
    if ((st = loom_coll_rooted_check(s, &a, who)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    recvcount = a.count;
    own_off   = a.own_off;
    s->in_place = recvbuf == LOOM_IN_PLACE;
    s->sbuf   = sendbuf;
    s->rbuf   = s->in_place ? loom_coll_at(sendbuf, own_off, s->esize) : recvbuf;
    s->count  = recvcount;
    s->root   = root;
    s->layout = vector ? LOOM_COLL_LAYOUT_VECTOR : LOOM_COLL_LAYOUT_UNIFORM;
    s->counts = counts;
    s->displs = displs;
    s->len    = recvcount * s->esize;
    if (comm->size == 1) {
        s->sbuf = loom_coll_at(sendbuf, own_off, s->esize);
        return loom_coll_launch(req, LOOM_COLL_SCATTER, 0, 1, req_p);
    }
    return loom_coll_launch(req, LOOM_COLL_SCATTER, recvcount * s->esize,
                            !vector && recvcount == 0, req_p);
}

loom_status_t loom_iscatter(const void *sendbuf, void *recvbuf, size_t count,
                            loom_datatype_t dt, int root, loom_comm_t comm,
                            loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_scatter_start(sendbuf, NULL, NULL, recvbuf, count, dt, root, comm, 0,
                                   "loom_iscatter", req_p);
}

loom_status_t loom_scatter(const void *sendbuf, void *recvbuf, size_t count,
                           loom_datatype_t dt, int root, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    const loom_coll_alg_t *alg = loom_coll_move_fast(recvbuf, sendbuf, count, dt, root, comm,
                                                     LOOM_COLL_SCATTER);
    loom_request_t req = NULL;

    if (alg != NULL) {
        return alg->fast.move(sendbuf, recvbuf, count * loom_datatype_size(dt), root, comm);
    }
    return loom_coll_finish(loom_coll_scatter_start(sendbuf, NULL, NULL, recvbuf, count,
                                                    dt, root, comm, 0, "loom_scatter",
                                                    &req),
                            &req, "loom_scatter");
}

loom_status_t loom_iscatterv(const void *sendbuf, const size_t sendcounts[],
                             const size_t displs[], void *recvbuf, size_t recvcount,
                             loom_datatype_t dt, int root, loom_comm_t comm,
                             loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_scatter_start(sendbuf, sendcounts, displs, recvbuf, recvcount, dt,
                                   root, comm, 1, "loom_iscatterv", req_p);
}

loom_status_t loom_scatterv(const void *sendbuf, const size_t sendcounts[],
                            const size_t displs[], void *recvbuf, size_t recvcount,
                            loom_datatype_t dt, int root, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;
    return loom_coll_finish(loom_coll_scatter_start(sendbuf, sendcounts, displs, recvbuf,
                                                    recvcount, dt, root, comm, 1,
                                                    "loom_scatterv", &req),
                            &req, "loom_scatterv");
}

/*
 * alltoallv's own block: a rank's send and receive counts for itself must
 * agree (one type on both sides). The algorithms copy it locally and trust
 * this: "linear" copies the send side's count to the receive block, which
 * a larger send count overran (review of session 15, prog_coll_rev15 self).
 */
static loom_status_t loom_coll_check_vec_self(const loom_coll_state_t *s, const size_t *scounts,
                                              const size_t *rcounts, const char *who)
{
    size_t sn = scounts[s->rank], rn = rcounts[s->rank];

    if (sn == rn) {
        return LOOM_OK;
    }
    loom_error("coll", "%s on %s: rank %d sends itself %zu elements but receives %zu "
               "(sendcounts[%d] against recvcounts[%d])", who, s->comm->name, s->rank, sn,
               rn, s->rank, s->rank);
    return sn > rn ? LOOM_ERR_TRUNCATED : LOOM_ERR_INVALID_COUNT;
}

/* alltoall (counts == NULL) and alltoallv */
static loom_status_t loom_coll_alltoall_start(const void *sendbuf, const size_t *scounts,
                                              const size_t *sdispls, void *recvbuf,
                                              const size_t *rcounts, const size_t *rdispls,
                                              size_t count, loom_datatype_t dt,
                                              loom_comm_t comm, int vector,
                                              const char *who, loom_request_t *req_p)
{
    loom_coll_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, vector ? "alltoallv" : "alltoall", dt,
                                       &req);
    size_t stotal, rtotal, sext, rext;

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_state(req);
    if (vector) {
        if (sendbuf == LOOM_IN_PLACE) {
            scounts = rcounts;
            sdispls = rdispls;
        }
        if ((st = loom_coll_check_vec(s, scounts, sdispls,
                                      sendbuf == LOOM_IN_PLACE ? "recv" : "send", who,
                                      &stotal, &sext)) !=
            LOOM_OK ||
            (st = loom_coll_check_vec(s, rcounts, rdispls, "recv", who, &rtotal, &rext)) !=
            LOOM_OK ||
            (st = loom_coll_check_vec_self(s, scounts, rcounts, who)) != LOOM_OK) {
            return loom_coll_fail(req, st, who);
        }
    } else {
        if ((st = loom_coll_check_count(s, count, (size_t)s->size, who)) != LOOM_OK) {
            return loom_coll_fail(req, st, who);
        }
        stotal = rtotal = sext = rext = count * (size_t)s->size;
    }
    if ((sendbuf != LOOM_IN_PLACE &&
         (st = loom_coll_check_buf(sendbuf, stotal, "sendbuf", who)) != LOOM_OK) ||
        (st = loom_coll_check_buf(recvbuf, rtotal, "recvbuf", who)) != LOOM_OK ||
        (st = loom_coll_check_alias(sendbuf, sext * s->esize, recvbuf, rext * s->esize,
                                    who)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    s->in_place = sendbuf == LOOM_IN_PLACE;
    s->sbuf    = s->in_place ? recvbuf : sendbuf;
    s->rbuf    = recvbuf;
    s->count   = count;
    s->layout  = vector ? LOOM_COLL_LAYOUT_VECTOR : LOOM_COLL_LAYOUT_UNIFORM;
    s->counts  = scounts;
    s->displs  = sdispls;
    s->counts2 = rcounts;
    s->displs2 = rdispls;
    if (comm->size == 1) {
        s->len  = (vector ? rcounts[0] : count) * s->esize;
        s->sbuf = vector ? loom_coll_at(s->sbuf, sdispls[0], s->esize) : s->sbuf;
        s->rbuf = vector ? loom_coll_at(recvbuf, rdispls[0], s->esize) : recvbuf;
        return loom_coll_launch(req, LOOM_COLL_ALLTOALL, 0, 1, req_p);
    }
    return loom_coll_launch(req, LOOM_COLL_ALLTOALL, rtotal * s->esize / (size_t)s->size,
                            !vector && count == 0, req_p);
}

loom_status_t loom_ialltoall(const void *sendbuf, void *recvbuf, size_t count,
                             loom_datatype_t dt, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_alltoall_start(sendbuf, NULL, NULL, recvbuf, NULL, NULL, count, dt,
                                    comm, 0, "loom_ialltoall", req_p);
}

loom_status_t loom_alltoall(const void *sendbuf, void *recvbuf, size_t count,
                            loom_datatype_t dt, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    const loom_coll_alg_t *alg = loom_coll_move_fast(sendbuf, recvbuf, count, dt, 0, comm,
                                                     LOOM_COLL_ALLTOALL);
    loom_request_t req = NULL;

    if (alg != NULL) {
        return alg->fast.move(sendbuf, recvbuf, count * loom_datatype_size(dt), 0, comm);
    }
    return loom_coll_finish(loom_coll_alltoall_start(sendbuf, NULL, NULL, recvbuf, NULL,
                                                     NULL, count, dt, comm, 0,
                                                     "loom_alltoall", &req),
                            &req, "loom_alltoall");
}

loom_status_t loom_ialltoallv(const void *sendbuf, const size_t sendcounts[],
                              const size_t sdispls[], void *recvbuf,
                              const size_t recvcounts[], const size_t rdispls[],
                              loom_datatype_t dt, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_coll_alltoall_start(sendbuf, sendcounts, sdispls, recvbuf, recvcounts,
                                    rdispls, 0, dt, comm, 1, "loom_ialltoallv", req_p);
}

loom_status_t loom_alltoallv(const void *sendbuf, const size_t sendcounts[],
                             const size_t sdispls[], void *recvbuf,
                             const size_t recvcounts[], const size_t rdispls[],
                             loom_datatype_t dt, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;
    return loom_coll_finish(loom_coll_alltoall_start(sendbuf, sendcounts, sdispls, recvbuf,
                                                     recvcounts, rdispls, 0, dt, comm, 1,
                                                     "loom_alltoallv", &req),
                            &req, "loom_alltoallv");
}
