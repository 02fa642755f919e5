/*
 * mpi_topo_dist.c: distributed graph topologies (MPI_Dist_graph_create,
 * MPI_Dist_graph_create_adjacent, MPI_Dist_graph_neighbors(_count)).
 *
 * The adjacent form is local: the lists are this rank's neighbours as
 * given. The general form lets any rank name any edges, so each rank learns
 * its in- and out-neighbours with one alltoall of byte counts and one
 * alltoallv of (direction, peer, weight) records on the old communicator;
 * the lists then follow the rank that named each edge, then the order in
 * which it named them. Both duplicate the old communicator and attach the
 * topology. MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are distinct non-null
 * sentinels (mpi.h); the weighted flag is whether MPI_UNWEIGHTED was passed.
 * Error classes as in mpi_topo.c (a neighbour outside the communicator:
 * MPI_ERR_RANK).
 */
#include "mpi_topo_int.h"
#include "mt_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* the objects whose addresses are MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY */
int loom_mpi_unweighted, loom_mpi_weights_empty;

/* One side of an adjacent dist graph: degree, ranks, weights. */
static int dist_check_side(MPI_Comm comm, int size, int deg, const int ranks[],
                           const int weights[], const char *what, const char *call)
{
    if (deg < 0) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s degree %d is negative", what, deg);
    }
    if (deg > 0 && ranks == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL with degree %d", what,
                              deg);
    }
    for (int i = 0; i < deg; ++i) {
        if (ranks[i] < 0 || ranks[i] >= size) {
            return loom_mpi_raise(comm, MPI_ERR_RANK, call, "%s[%d] = %d is not a rank of "
                                  "the communicator (size %d)", what, i, ranks[i], size);
        }
    }
    if (weights == MPI_UNWEIGHTED || deg == 0) {
        return MPI_SUCCESS;
    }
    if (weights == NULL || weights == MPI_WEIGHTS_EMPTY) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s weights are %s with %d edges",
                              what, weights == NULL ? "NULL" : "MPI_WEIGHTS_EMPTY", deg);
    }
    for (int i = 0; i < deg; ++i) {
        if (weights[i] < 0) {
            return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s weight [%d] = %d is negative",
                                  what, i, weights[i]);
        }
    }
    return MPI_SUCCESS;
}

/* Copy @p n weights (none if unweighted or absent). */
static void dist_copy_weights(int *dst, const int *src, int n)
{
    if (n > 0 && src != MPI_UNWEIGHTED && src != MPI_WEIGHTS_EMPTY && src != NULL) {
        memcpy(dst, src, (size_t)n * sizeof(int));
    }
}

/* Duplicate @p lcomm and attach @p t (the dist graph constructors' last step). */
static int dist_finish(MPI_Comm comm_old, loom_comm_t lcomm, loom_mpi_topo_t *t,
                       const char *call, MPI_Comm *newcomm)
{
    loom_comm_t lnew = LOOM_COMM_NULL;
    loom_status_t st = loom_comm_dup(lcomm, &lnew);

    if (st != LOOM_OK) {
        free(t);
        return loom_mpi_raise_loom(comm_old, st, call);
    }
    return loom_mpi_topo_attach(comm_old, lnew, t, call, newcomm);
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    LOOM_MT_GUARD();
    static const char call[] = "MPI_Dist_graph_create_adjacent";
    loom_comm_t lcomm;
    loom_mpi_topo_t *t;
    int weighted, size, rc = loom_mpi_comm_arg(comm_old, call, &lcomm);

    (void)info;      /* no hints are used */
    (void)reorder;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_dist_graph == NULL) {
        return loom_mpi_raise(comm_old, MPI_ERR_ARG, call, "comm_dist_graph is NULL");
    }
    *comm_dist_graph = MPI_COMM_NULL;
    size = loom_comm_size(lcomm);
    if ((rc = dist_check_side(comm_old, size, indegree, sources, sourceweights, "sources",
                              call)) != MPI_SUCCESS ||
        (rc = dist_check_side(comm_old, size, outdegree, destinations, destweights,
                              "destinations", call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED)) {
        return loom_mpi_raise(comm_old, MPI_ERR_ARG, call, "only one of sourceweights and "
                              "destweights is MPI_UNWEIGHTED");
    }
    weighted = sourceweights != MPI_UNWEIGHTED;
    t = loom_mpi_topo_new(MPI_DIST_GRAPH, 0, 0, 0, indegree, outdegree, weighted);
    if (t != NULL) {
        if (indegree > 0) {
            memcpy(t->in, sources, (size_t)indegree * sizeof(int));
        }
        if (outdegree > 0) {
            memcpy(t->out, destinations, (size_t)outdegree * sizeof(int));
        }
        if (weighted) {
            dist_copy_weights(t->sweights, sourceweights, indegree);
            dist_copy_weights(t->dweights, destweights, outdegree);
        }
    }
    return dist_finish(comm_old, lcomm, t, call, comm_dist_graph);
}

/* The edges this rank names (MPI_Dist_graph_create's input), checked. */
typedef struct dist_edges {
    int        n;
    const int *sources, *degrees, *destinations, *weights;
    int        nedges;
} dist_edges_t;

static int dist_check_edges(MPI_Comm comm, int size, dist_edges_t *e, const char *call)
{
    long long total = 0;

    if (e->n < 0) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "n %d is negative", e->n);
    }
    if (e->n > 0 && (e->sources == NULL || e->degrees == NULL)) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL with n = %d",
                              e->sources == NULL ? "sources" : "degrees", e->n);
    }
    for (int i = 0; i < e->n; ++i) {
        if (e->sources[i] < 0 || e->sources[i] >= size) {
            return loom_mpi_raise(comm, MPI_ERR_RANK, call, "sources[%d] = %d is not a rank "
                                  "of the communicator (size %d)", i, e->sources[i], size);
        }
        if (e->degrees[i] < 0) {
            return loom_mpi_raise(comm, MPI_ERR_ARG, call, "degrees[%d] = %d is negative", i,
                                  e->degrees[i]);
        }
        total += e->degrees[i];
        if (total > INT_MAX / 3) {
            return loom_mpi_raise(comm, MPI_ERR_ARG, call, "more than %d edges", INT_MAX / 3);
        }
    }
    e->nedges = (int)total;
    return dist_check_side(comm, size, e->nedges, e->destinations, e->weights,
                           "destinations", call);
}

/*
 * The exchange: every edge s -> d (weight w) becomes the record {0, d, w}
 * for rank s (an out-neighbour) and {1, s, w} for rank d (an in-neighbour).
 * Records are 3 ints; counts are bytes. *recv_p gets what this rank was
 * sent, in sender-rank order, *rbytes_p its size.
 */
static loom_status_t dist_exchange(loom_comm_t lcomm, const dist_edges_t *e, int weighted,
                                   int **recv_p, size_t *rbytes_p)
{
    int size = loom_comm_size(lcomm), *sbuf = NULL, *rbuf = NULL;
    size_t *cnt = calloc(5 * (size_t)size, sizeof(size_t)), rtotal = 0;
    size_t *rcnt = cnt + size, *sdisp = rcnt + size, *rdisp = sdisp + size, *cur = rdisp + size;
    loom_status_t st = LOOM_ERR_NO_MEMORY;
    const size_t rec = 3 * sizeof(int);

    if (cnt == NULL) {
        return st;
    }
    for (int i = 0, k = 0; i < e->n; ++i) {
        for (int j = 0; j < e->degrees[i]; ++j, ++k) {
            cnt[e->sources[i]] += rec;
            cnt[e->destinations[k]] += rec;
        }
    }
    for (int p = 1; p < size; ++p) {
        sdisp[p] = sdisp[p - 1] + cnt[p - 1];
    }
    memcpy(cur, sdisp, (size_t)size * sizeof(size_t));
    sbuf = malloc((size_t)e->nedges * 2 * rec + 1);
    if (sbuf == NULL) {
        goto out;
    }
    for (int i = 0, k = 0; i < e->n; ++i) {
        for (int j = 0; j < e->degrees[i]; ++j, ++k) {
            int s = e->sources[i], d = e->destinations[k], w = weighted ? e->weights[k] : 0;
            int *o = (int *)(void *)((char *)sbuf + cur[s]), *in;
            o[0] = 0; o[1] = d; o[2] = w;
            cur[s] += rec;
            in = (int *)(void *)((char *)sbuf + cur[d]);
            in[0] = 1; in[1] = s; in[2] = w;
            cur[d] += rec;
        }
    }
    st = loom_alltoall(cnt, rcnt, 1, LOOM_UINT64, lcomm);
    if (st != LOOM_OK) {
        goto out;
    }
    for (int p = 0; p < size; ++p) {
        rdisp[p] = rtotal;
        rtotal  += rcnt[p];
    }
    st = LOOM_ERR_NO_MEMORY;
    if ((rbuf = malloc(rtotal + 1)) == NULL) {
        goto out;
    }
    st = loom_alltoallv(sbuf, cnt, sdisp, rbuf, rcnt, rdisp, LOOM_BYTE, lcomm);
out:
    free(sbuf);
    free(cnt);
    if (st != LOOM_OK) {
        free(rbuf);
        return st;
    }
    *recv_p   = rbuf;
    *rbytes_p = rtotal;
    return LOOM_OK;
}

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "counts travel as LOOM_UINT64");

/* Build this rank's dist graph from the records it received. */
static loom_mpi_topo_t *dist_from_records(const int *recs, size_t nrec, int weighted)
{
    int indeg = 0, outdeg = 0, ni = 0, no = 0;
    loom_mpi_topo_t *t;

    for (size_t i = 0; i < nrec; ++i) {
        indeg  += recs[3 * i] == 1;
        outdeg += recs[3 * i] == 0;
    }
    t = loom_mpi_topo_new(MPI_DIST_GRAPH, 0, 0, 0, indeg, outdeg, weighted);
    for (size_t i = 0; t != NULL && i < nrec; ++i) {
        const int *r = recs + 3 * i;
        if (r[0] == 1) {
            if (weighted) {
                t->sweights[ni] = r[2];
            }
            t->in[ni++] = r[1];
        } else {
            if (weighted) {
                t->dweights[no] = r[2];
            }
            t->out[no++] = r[1];
        }
    }
    return t;
}

#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                           const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    LOOM_MT_GUARD();
    static const char call[] = "MPI_Dist_graph_create";
    dist_edges_t e = { n, sources, degrees, destinations, weights, 0 };
    loom_comm_t lcomm;
    loom_status_t st;
    loom_mpi_topo_t *t;
    int *recs = NULL, weighted = weights != MPI_UNWEIGHTED;
    size_t rbytes = 0;
    int rc = loom_mpi_comm_arg(comm_old, call, &lcomm);

    (void)info;
    (void)reorder;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_dist_graph == NULL) {
        return loom_mpi_raise(comm_old, MPI_ERR_ARG, call, "comm_dist_graph is NULL");
    }
    *comm_dist_graph = MPI_COMM_NULL;
    if ((rc = dist_check_edges(comm_old, loom_comm_size(lcomm), &e, call)) != MPI_SUCCESS) {
        return rc;
    }
    st = dist_exchange(lcomm, &e, weighted, &recs, &rbytes);
    if (st != LOOM_OK) {
        return st == LOOM_ERR_NO_MEMORY
            ? loom_mpi_raise(comm_old, MPI_ERR_NO_MEM, call, "out of memory for %d edges",
                             e.nedges)
            : loom_mpi_raise_loom(comm_old, st, call);
    }
    t = dist_from_records(recs, rbytes / (3 * sizeof(int)), weighted);
    free(recs);
    return dist_finish(comm_old, lcomm, t, call, comm_dist_graph);
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                    int *weighted)
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int rc = loom_mpi_topo_arg(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors_count",
                               &lcomm, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (indegree == NULL || outdegree == NULL || weighted == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Dist_graph_neighbors_count",
                              "an output argument is NULL");
    }
    *indegree  = t->indeg;
    *outdegree = t->outdeg;
    *weighted  = t->weighted;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                              int sourceweights[], int maxoutdegree, int destinations[],
                              int destweights[])
{
    LOOM_MT_GUARD();
    static const char call[] = "MPI_Dist_graph_neighbors";
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int rc = loom_mpi_topo_arg(comm, MPI_DIST_GRAPH, call, &lcomm, &t);

    if (rc != MPI_SUCCESS ||
        (rc = loom_mpi_topo_copy_out(comm, sources, maxindegree, t->in, t->indeg, "sources",
                            call)) != MPI_SUCCESS ||
        (rc = loom_mpi_topo_copy_out(comm, destinations, maxoutdegree, t->out, t->outdeg,
                            "destinations", call)) != MPI_SUCCESS) {
        return rc;
    }
    if (t->weighted && sourceweights != MPI_UNWEIGHTED && sourceweights != NULL &&
        sourceweights != MPI_WEIGHTS_EMPTY && maxindegree > 0 && t->indeg > 0) {
        memcpy(sourceweights, t->sweights,
               (size_t)(t->indeg < maxindegree ? t->indeg : maxindegree) * sizeof(int));
    }
    if (t->weighted && destweights != MPI_UNWEIGHTED && destweights != NULL &&
        destweights != MPI_WEIGHTS_EMPTY && maxoutdegree > 0 && t->outdeg > 0) {
        memcpy(destweights, t->dweights,
               (size_t)(t->outdeg < maxoutdegree ? t->outdeg : maxoutdegree) * sizeof(int));
    }
    return MPI_SUCCESS;
}
