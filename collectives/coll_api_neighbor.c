/*
 * coll_api_neighbor.c: the public neighbourhood all-to-all calls
 * (loom_neighbor_alltoallv, loom_ineighbor_alltoallv): check both sides'
 * rank lists, byte counts and displacements, fill the request state and
 * launch the call through the selection. The algorithm that moves the
 * data is neighbor_alltoallv.c (which says how); this file sits with the
 * other API files at the top of the collectives' stack.
 */
#include "coll_api_int.h"
#include "coll_neighbor_int.h"
#include "log_int.h"
#include "mt_int.h"

/* One side's lists: ranks in range, arrays present, byte ranges that fit. */
static loom_status_t nbr_check_side(const loom_coll_state_t *c, int deg, const int ranks[],
                                    const void *buf, const size_t bytes[],
                                    const size_t displs[], const char *what,
                                    const char *who)
{
    if (deg < 0) {
        loom_error("coll", "%s: %s degree %d is negative", who, what, deg);
        return LOOM_ERR_INVALID_ARG;
    }
    if (deg > 0 && (ranks == NULL || bytes == NULL || displs == NULL)) {
        loom_error("coll", "%s: %s degree %d but its %s array is NULL", who, what, deg,
                   ranks == NULL ? "rank" : bytes == NULL ? "byte count" : "displacement");
        return LOOM_ERR_INVALID_ARG;
    }
    for (int i = 0; i < deg; ++i) {
        if (ranks[i] != LOOM_PROC_NULL && (ranks[i] < 0 || ranks[i] >= c->size)) {
            loom_error("coll", "%s: %s[%d] = %d is not a rank of %s (size %d)", who, what,
                       i, ranks[i], c->comm->name, c->size);
            return LOOM_ERR_INVALID_RANK;
        }
        if (bytes[i] > LOOM_COLL_MAX_BYTES || displs[i] > LOOM_COLL_MAX_BYTES - bytes[i]) {
            loom_error("coll", "%s: %s block %d: %zu bytes at offset %zu overflows (limit "
                       "%zu bytes)", who, what, i, bytes[i], displs[i], LOOM_COLL_MAX_BYTES);
            return LOOM_ERR_INVALID_COUNT;
        }
        if (bytes[i] > 0 && (buf == NULL || buf == LOOM_IN_PLACE)) {
            loom_error("coll", "%s: %s buffer is %s but block %d has %zu bytes", who, what,
                       buf == NULL ? "NULL" : "LOOM_IN_PLACE (not valid here)", i,
                       bytes[i]);
            return LOOM_ERR_INVALID_BUFFER;
        }
    }
    return LOOM_OK;
}

static loom_status_t nbr_start(const void *sendbuf, int outdegree, const int destinations[],
                               const size_t sendbytes[], const size_t sdispls[],
                               void *recvbuf, int indegree, const int sources[],
                               const size_t recvbytes[], const size_t rdispls[],
                               loom_comm_t comm, const char *who, loom_request_t *req_p)
{
    loom_coll_nbr_state_t *s;
    loom_request_t req;
    loom_status_t st = loom_coll_check_req(req_p, who) != LOOM_OK ? LOOM_ERR_INVALID_ARG :
                       loom_coll_begin(comm, who, "neighbor_alltoallv", LOOM_BYTE, &req);

    if (st != LOOM_OK) {
        return st;
    }
    s = loom_coll_nbr_state(req);
    if ((st = nbr_check_side(&s->c, indegree, sources, recvbuf, recvbytes, rdispls,
                             "sources", who)) != LOOM_OK ||
        (st = nbr_check_side(&s->c, outdegree, destinations, sendbuf, sendbytes, sdispls,
                             "destinations", who)) != LOOM_OK) {
        return loom_coll_fail(req, st, who);
    }
    s->c.sbuf    = sendbuf;
    s->c.rbuf    = recvbuf;
    s->c.counts  = sendbytes;
    s->c.displs  = sdispls;
    s->c.counts2 = recvbytes;
    s->c.displs2 = rdispls;
    s->c.layout  = LOOM_COLL_LAYOUT_VECTOR;
    s->dests     = destinations;
    s->sources   = sources;
    s->outdeg    = outdegree;
    s->indeg     = indegree;
    s->nreqs     = NULL;
    req->cleanup_fn = loom_coll_neighbor_cleanup;
    req->phase_fn   = loom_coll_neighbor_phase_name;
    return loom_coll_launch(req, LOOM_COLL_NEIGHBOR, 0, 0, req_p);
}

loom_status_t loom_ineighbor_alltoallv(const void *sendbuf, int outdegree,
                                       const int destinations[], const size_t sendbytes[],
                                       const size_t sdispls[], void *recvbuf,
                                       int indegree, const int sources[],
                                       const size_t recvbytes[], const size_t rdispls[],
                                       loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return nbr_start(sendbuf, outdegree, destinations, sendbytes, sdispls, recvbuf,
                     indegree, sources, recvbytes, rdispls, comm,
                     "loom_ineighbor_alltoallv", req_p);
}

loom_status_t loom_neighbor_alltoallv(const void *sendbuf, int outdegree,
                                      const int destinations[], const size_t sendbytes[],
                                      const size_t sdispls[], void *recvbuf, int indegree,
                                      const int sources[], const size_t recvbytes[],
                                      const size_t rdispls[], loom_comm_t comm)
{
    LOOM_MT_GUARD();
    loom_request_t req = NULL;

    return loom_coll_finish(nbr_start(sendbuf, outdegree, destinations, sendbytes, sdispls,
                                      recvbuf, indegree, sources, recvbytes, rdispls, comm,
                                      "loom_neighbor_alltoallv", &req),
                            &req, "loom_neighbor_alltoallv");
}
