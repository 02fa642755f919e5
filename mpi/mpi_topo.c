/*
 * mpi_topo.c: process topologies (MPI-3.1 chapter 7): Dims_create, the
 * Cartesian, graph and distributed-graph constructors and queries, Cart_sub,
 * the map calls and Topo_test. See mpi_topo_int.h for the object.
 *
 * Constructors build the new communicator with the native API (split for
 * Cartesian and graph topologies, where ranks beyond the grid get
 * MPI_COMM_NULL; dup for distributed graphs, mpi_topo_dist.c), then attach
 * the topology, computed from the rank in the new communicator. reorder is
 * accepted and ignored: ranks keep their order (what MPI_Cart_map and
 * MPI_Graph_map report too).
 *
 * Error classes (the standard leaves most to the implementation; these
 * follow what MPICH and Open MPI raise): a communicator without the topology
 * the call needs, MPI_ERR_TOPOLOGY; a negative ndims, a non-positive
 * Cartesian dimension, Dims_create's impossible constraints or a shift
 * direction out of range, MPI_ERR_DIMS; a rank argument out of range,
 * MPI_ERR_RANK (also dist-graph neighbours); everything else (a grid larger
 * than the communicator, a coordinate outside a non-periodic dimension, a
 * malformed graph, a NULL output), MPI_ERR_ARG.
 */
#include "mpi_topo_int.h"
#include "topo_int.h"
#include "mt_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(LOOM_TOPO_PROC_NULL == MPI_PROC_NULL, "topo_int.h's PROC_NULL must be MPI's");

/* ---- the object ------------------------------------------------------------------- */

/* Point the arrays of @p t into its data[] (sizes set). */
static void topo_layout(loom_mpi_topo_t *t)
{
    int *p = t->data;

    t->dims     = p; p += t->ndims;
    t->periods  = p; p += t->ndims;
    t->index    = p; p += t->nnodes;
    t->edges    = p; p += t->nedges;
    t->in       = p; p += t->indeg;
    t->out      = p; p += t->outdeg;
    t->sweights = p; p += t->weighted ? t->indeg : 0;
    t->dweights = p;
}

loom_mpi_topo_t *loom_mpi_topo_new(int kind, int ndims, int nnodes, int nedges, int indeg,
                                 int outdeg, int weighted)
{
    size_t n = 2 * (size_t)ndims + (size_t)nnodes + (size_t)nedges +
               (size_t)(indeg + outdeg) * (weighted ? 2 : 1);
    loom_mpi_topo_t *t = malloc(sizeof(*t) + (n ? n : 1) * sizeof(int));

    if (t == NULL) {
        return NULL;
    }
    t->kind     = kind;
    t->ndims    = ndims;
    t->nnodes   = nnodes;
    t->nedges   = nedges;
    t->indeg    = indeg;
    t->outdeg   = outdeg;
    t->weighted = weighted;
    t->nints    = n;
    topo_layout(t);
    return t;
}

int loom_mpi_topo_dup(MPI_Comm from, MPI_Comm to)
{
    loom_mpi_topo_t *t;

    if (from->topo == NULL) {
        return MPI_SUCCESS;
    }
    t = malloc(sizeof(*t) + (from->topo->nints ? from->topo->nints : 1) * sizeof(int));
    if (t == NULL) {
        return MPI_ERR_NO_MEM;
    }
    memcpy(t, from->topo, sizeof(*t) + from->topo->nints * sizeof(int));
    topo_layout(t);
    to->topo = t;
    return MPI_SUCCESS;
}

void loom_mpi_topo_free(MPI_Comm comm)
{
    free(comm->topo);
    comm->topo = NULL;
}

static const char *topo_kind_name(const loom_mpi_topo_t *t)
{
    if (t == NULL) {
        return "no topology";
    }
    switch (t->kind) {
    case MPI_CART:  return "a Cartesian topology";
    case MPI_GRAPH: return "a graph topology";
    default:        return "a distributed graph topology";
    }
}

int loom_mpi_topo_arg(MPI_Comm comm, int kind, const char *call, loom_comm_t *lcomm_p,
                      const loom_mpi_topo_t **topo_p)
{
    int rc = loom_mpi_comm_arg(comm, call, lcomm_p);
    loom_mpi_topo_t want = { .kind = kind };

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm->topo == NULL || (kind != 0 && comm->topo->kind != kind)) {
        return loom_mpi_raise(comm, MPI_ERR_TOPOLOGY, call, "communicator %s has %s, not %s",
                              comm->name, topo_kind_name(comm->topo),
                              kind ? topo_kind_name(&want) : "any topology");
    }
    *topo_p = comm->topo;
    return MPI_SUCCESS;
}

/*
 * Split @p comm_old keeping ranks below @p n (in order); the others get
 * MPI_COMM_NULL. On success *lnew_p is the new communicator (or NULL).
 */
static int topo_split(MPI_Comm comm_old, loom_comm_t lcomm, int n, const char *call,
                      loom_comm_t *lnew_p)
{
    int rank = loom_comm_rank(lcomm);
    loom_status_t st = loom_comm_split(lcomm, rank < n ? 0 : LOOM_UNDEFINED, rank, lnew_p);

    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm_old, st, call);
}

/* Wrap @p lnew (made from @p comm_old) and attach @p t; frees both on failure. */
int loom_mpi_topo_attach(MPI_Comm comm_old, loom_comm_t lnew, loom_mpi_topo_t *t,
                       const char *call, MPI_Comm *newcomm)
{
    int rc;

    if (t == NULL) {
        loom_comm_free(&lnew);
        return loom_mpi_raise(comm_old, MPI_ERR_NO_MEM, call,
                              "out of memory for the topology");
    }
    rc = loom_mpi_comm_wrap(comm_old, lnew, call, newcomm);
    if (rc != MPI_SUCCESS) {
        free(t);
        return rc;
    }
    (*newcomm)->topo = t;
    return MPI_SUCCESS;
}

/* ---- Dims_create ------------------------------------------------------------------ */

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    LOOM_MT_GUARD();
    loom_topo_rc_t trc;

    if (loom_mpi_state != LOOM_MPI_STATE_INITIALIZED) {
        return loom_mpi_comm_arg_error(MPI_COMM_WORLD, "MPI_Dims_create");
    }
    if (ndims < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_DIMS, "MPI_Dims_create", "ndims %d is negative",
                              ndims);
    }
    if (nnodes < 1) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Dims_create",
                              "nnodes %d is not positive", nnodes);
    }
    if (ndims > 0 && dims == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Dims_create", "dims is NULL");
    }
    trc = loom_topo_dims_create(nnodes, ndims, dims);
    if (trc != LOOM_TOPO_OK) {
        for (int i = 0; i < ndims; ++i) {
            if (dims[i] < 0) {
                return loom_mpi_raise(NULL, MPI_ERR_DIMS, "MPI_Dims_create",
                                      "dims[%d] = %d is negative", i, dims[i]);
            }
        }
        return loom_mpi_raise(NULL, MPI_ERR_DIMS, "MPI_Dims_create",
                              "nnodes %d is not the product of the nonzero dims and "
                              "factors for the zero ones (%d dimensions)", nnodes, ndims);
    }
    return MPI_SUCCESS;
}

/* ---- Cartesian ------------------------------------------------------------------------- */

/* Check a Cartesian grid for @p comm of @p size ranks; *n_p its number of ranks. */
static int cart_check(MPI_Comm comm, int size, int ndims, const int dims[],
                      const int periods[], const char *call, int *n_p)
{
    long long n;

    if (ndims < 0) {
        return loom_mpi_raise(comm, MPI_ERR_DIMS, call, "ndims %d is negative", ndims);
    }
    if (ndims > 0 && (dims == NULL || periods == NULL)) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL",
                              dims == NULL ? "dims" : "periods");
    }
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] <= 0) {
            return loom_mpi_raise(comm, MPI_ERR_DIMS, call, "dims[%d] = %d is not positive",
                                  i, dims[i]);
        }
    }
    n = loom_topo_cart_size(ndims, dims, size);
    if (n < 0) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "the grid of %d dimensions has more "
                              "ranks than the communicator (%d)", ndims, size);
    }
    *n_p = (int)n;
    return MPI_SUCCESS;
}

/* The Cartesian topology of @p rank on the grid (dims, periods). */
static loom_mpi_topo_t *cart_topo_new(int ndims, const int dims[], const int periods[],
                                      int rank)
{
    loom_mpi_topo_t *t = loom_mpi_topo_new(MPI_CART, ndims, 0, 0, 2 * ndims, 2 * ndims, 0);

    if (t == NULL) {
        return NULL;
    }
    for (int i = 0; i < ndims; ++i) {
        t->dims[i]    = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    loom_topo_cart_neighbors(ndims, t->dims, t->periods, rank, t->in);
    memcpy(t->out, t->in, 2 * (size_t)ndims * sizeof(int));
    return t;
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm, lnew = LOOM_COMM_NULL;
    int n, rc = loom_mpi_comm_arg(comm_old, "MPI_Cart_create", &lcomm);

    (void)reorder;   /* identity placement */
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_cart == NULL) {
        return loom_mpi_raise(comm_old, MPI_ERR_ARG, "MPI_Cart_create", "comm_cart is NULL");
    }
    *comm_cart = MPI_COMM_NULL;
    if ((rc = cart_check(comm_old, loom_comm_size(lcomm), ndims, dims, periods,
                         "MPI_Cart_create", &n)) != MPI_SUCCESS ||
        (rc = topo_split(comm_old, lcomm, n, "MPI_Cart_create", &lnew)) != MPI_SUCCESS ||
        lnew == LOOM_COMM_NULL) {
        return rc;
    }
    return loom_mpi_topo_attach(comm_old, lnew,
                       cart_topo_new(ndims, dims, periods, loom_comm_rank(lnew)),
                       "MPI_Cart_create", comm_cart);
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int rc = loom_mpi_topo_arg(comm, MPI_CART, "MPI_Cartdim_get", &lcomm, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (ndims == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Cartdim_get", "ndims is NULL");
    }
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

/* maxdims must hold every dimension (a truncated coordinate means nothing). */
static int cart_maxdims(MPI_Comm comm, const loom_mpi_topo_t *t, int maxdims,
                        const void *a, const void *b, const void *c, const char *call)
{
    if (maxdims < t->ndims) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "maxdims %d is less than the "
                              "topology's %d dimensions", maxdims, t->ndims);
    }
    if (t->ndims > 0 && (a == NULL || b == NULL || c == NULL)) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "an output array is NULL");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int rc = loom_mpi_topo_arg(comm, MPI_CART, "MPI_Cart_get", &lcomm, &t);

    if (rc != MPI_SUCCESS ||
        (rc = cart_maxdims(comm, t, maxdims, dims, periods, coords, "MPI_Cart_get")) != 0) {
        return rc;
    }
    for (int i = 0; i < t->ndims; ++i) {
        dims[i]    = t->dims[i];
        periods[i] = t->periods[i];
    }
    loom_topo_cart_coords(t->ndims, t->dims, loom_comm_rank(lcomm), coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int bad = 0, rc = loom_mpi_topo_arg(comm, MPI_CART, "MPI_Cart_rank", &lcomm, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank == NULL || (t->ndims > 0 && coords == NULL)) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Cart_rank", "%s is NULL",
                              rank == NULL ? "rank" : "coords");
    }
    if (loom_topo_cart_rank(t->ndims, t->dims, t->periods, coords, rank, &bad) !=
        LOOM_TOPO_OK) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Cart_rank",
                              "coords[%d] = %d is outside [0, %d) of a non-periodic "
                              "dimension", bad, coords[bad], t->dims[bad]);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int rc = loom_mpi_topo_arg(comm, MPI_CART, "MPI_Cart_coords", &lcomm, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank < 0 || rank >= loom_comm_size(lcomm)) {
        return loom_mpi_raise(comm, MPI_ERR_RANK, "MPI_Cart_coords", "rank %d is not in "
                              "[0, %d)", rank, loom_comm_size(lcomm));
    }
    if ((rc = cart_maxdims(comm, t, maxdims, coords, coords, coords,
                           "MPI_Cart_coords")) != MPI_SUCCESS) {
        return rc;
    }
    loom_topo_cart_coords(t->ndims, t->dims, rank, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                    int *rank_dest)
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int rc = loom_mpi_topo_arg(comm, MPI_CART, "MPI_Cart_shift", &lcomm, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank_source == NULL || rank_dest == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Cart_shift", "%s is NULL",
                              rank_source == NULL ? "rank_source" : "rank_dest");
    }
    if (direction < 0 || direction >= t->ndims) {
        return loom_mpi_raise(comm, MPI_ERR_DIMS, "MPI_Cart_shift", "direction %d is not "
                              "a dimension of the %d-dimensional grid", direction, t->ndims);
    }
    loom_topo_cart_shift(t->ndims, t->dims, t->periods, loom_comm_rank(lcomm), direction,
                         disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm, lnew = LOOM_COMM_NULL;
    loom_status_t st;
    int color, key, nd = 0, dims[64], periods[64];
    int *dp = dims, *pp = periods;
    loom_mpi_topo_t *sub;
    int rc = loom_mpi_topo_arg(comm, MPI_CART, "MPI_Cart_sub", &lcomm, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL || (t->ndims > 0 && remain_dims == NULL)) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Cart_sub", "%s is NULL",
                              newcomm == NULL ? "newcomm" : "remain_dims");
    }
    *newcomm = MPI_COMM_NULL;
    if (t->ndims > 64 && (dp = malloc(2 * (size_t)t->ndims * sizeof(int))) == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, "MPI_Cart_sub", "out of memory");
    }
    if (dp != dims) {
        pp = dp + t->ndims;
    }
    for (int d = 0; d < t->ndims; ++d) {
        if (remain_dims[d]) {
            dp[nd]   = t->dims[d];
            pp[nd++] = t->periods[d];
        }
    }
    loom_topo_cart_sub(t->ndims, t->dims, remain_dims, loom_comm_rank(lcomm), &color, &key);
    st = loom_comm_split(lcomm, color, key, &lnew);
    if (st != LOOM_OK) {
        rc = loom_mpi_raise_loom(comm, st, "MPI_Cart_sub");
    } else {
        sub = cart_topo_new(nd, dp, pp, loom_comm_rank(lnew));
        rc = loom_mpi_topo_attach(comm, lnew, sub, "MPI_Cart_sub", newcomm);
    }
    if (dp != dims) {
        free(dp);
    }
    return rc;
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                  int *newrank)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int n, rc = loom_mpi_comm_arg(comm, "MPI_Cart_map", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newrank == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Cart_map", "newrank is NULL");
    }
    if ((rc = cart_check(comm, loom_comm_size(lcomm), ndims, dims, periods, "MPI_Cart_map",
                         &n)) != MPI_SUCCESS) {
        return rc;
    }
    n = loom_topo_map_identity(loom_comm_rank(lcomm), n);
    *newrank = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

/* ---- graphs ------------------------------------------------------------------------------ */

static int graph_check(MPI_Comm comm, int size, int nnodes, const int index[],
                       const int edges[], const char *call)
{
    int bad_node, bad_edge;

    if (nnodes < 0 || nnodes > size) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "nnodes %d is not in [0, %d] (the "
                              "communicator's size)", nnodes, size);
    }
    if (nnodes > 0 && (index == NULL || (index[nnodes - 1] > 0 && edges == NULL))) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL",
                              index == NULL ? "index" : "edges");
    }
    if (loom_topo_graph_check(nnodes, index, edges, &bad_node, &bad_edge) != LOOM_TOPO_OK) {
        return bad_node >= 0
            ? loom_mpi_raise(comm, MPI_ERR_ARG, call, "index[%d] = %d is negative or smaller "
                             "than the entry before it", bad_node, index[bad_node])
            : loom_mpi_raise(comm, MPI_ERR_ARG, call, "edges[%d] = %d is not a node of the "
                             "graph of %d nodes", bad_edge, edges[bad_edge], nnodes);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm, lnew = LOOM_COMM_NULL;
    loom_mpi_topo_t *t;
    int first, count, nedges, rc = loom_mpi_comm_arg(comm_old, "MPI_Graph_create", &lcomm);

    (void)reorder;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_graph == NULL) {
        return loom_mpi_raise(comm_old, MPI_ERR_ARG, "MPI_Graph_create", "comm_graph is NULL");
    }
    *comm_graph = MPI_COMM_NULL;
    if ((rc = graph_check(comm_old, loom_comm_size(lcomm), nnodes, index, edges,
                          "MPI_Graph_create")) != MPI_SUCCESS ||
        (rc = topo_split(comm_old, lcomm, nnodes, "MPI_Graph_create", &lnew)) != 0 ||
        lnew == LOOM_COMM_NULL) {
        return rc;
    }
    nedges = index[nnodes - 1];
    loom_topo_graph_neighbors(index, loom_comm_rank(lnew), &first, &count);
    t = loom_mpi_topo_new(MPI_GRAPH, 0, nnodes, nedges, count, count, 0);
    if (t != NULL) {
        memcpy(t->index, index, (size_t)nnodes * sizeof(int));
        memcpy(t->edges, edges, (size_t)nedges * sizeof(int));
        memcpy(t->in, edges + first, (size_t)count * sizeof(int));
        memcpy(t->out, edges + first, (size_t)count * sizeof(int));
    }
    return loom_mpi_topo_attach(comm_old, lnew, t, "MPI_Graph_create", comm_graph);
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int rc = loom_mpi_topo_arg(comm, MPI_GRAPH, "MPI_Graphdims_get", &lcomm, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nnodes == NULL || nedges == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Graphdims_get", "%s is NULL",
                              nnodes == NULL ? "nnodes" : "nedges");
    }
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}

/* Copy min(max, n) ints (MPI: max is the length of the caller's array). */
int loom_mpi_topo_copy_out(MPI_Comm comm, int *dst, int max, const int *src, int n,
                         const char *what, const char *call)
{
    if (max < 0) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "max%s %d is negative", what, max);
    }
    if (max > 0 && n > 0 && dst == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    if (n > 0 && max > 0) {
        memcpy(dst, src, (size_t)(n < max ? n : max) * sizeof(int));
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int rc = loom_mpi_topo_arg(comm, MPI_GRAPH, "MPI_Graph_get", &lcomm, &t);

    if (rc != MPI_SUCCESS ||
        (rc = loom_mpi_topo_copy_out(comm, index, maxindex, t->index, t->nnodes, "index",
                            "MPI_Graph_get")) != MPI_SUCCESS) {
        return rc;
    }
    return loom_mpi_topo_copy_out(comm, edges, maxedges, t->edges, t->nedges, "edges",
                         "MPI_Graph_get");
}

/* The neighbours of graph node @p rank (MPI_ERR_RANK if it is not a node). */
static int graph_node(MPI_Comm comm, const loom_mpi_topo_t *t, int rank, const char *call,
                      int *first_p, int *count_p)
{
    if (rank < 0 || rank >= t->nnodes) {
        return loom_mpi_raise(comm, MPI_ERR_RANK, call, "rank %d is not a node of the graph "
                              "of %d nodes", rank, t->nnodes);
    }
    loom_topo_graph_neighbors(t->index, rank, first_p, count_p);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int first, count;
    int rc = loom_mpi_topo_arg(comm, MPI_GRAPH, "MPI_Graph_neighbors_count", &lcomm, &t);

    if (rc != MPI_SUCCESS ||
        (rc = graph_node(comm, t, rank, "MPI_Graph_neighbors_count", &first, &count)) != 0) {
        return rc;
    }
    if (nneighbors == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Graph_neighbors_count",
                              "nneighbors is NULL");
    }
    *nneighbors = count;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    LOOM_MT_GUARD();
    const loom_mpi_topo_t *t;
    loom_comm_t lcomm;
    int first, count;
    int rc = loom_mpi_topo_arg(comm, MPI_GRAPH, "MPI_Graph_neighbors", &lcomm, &t);

    if (rc != MPI_SUCCESS ||
        (rc = graph_node(comm, t, rank, "MPI_Graph_neighbors", &first, &count)) != 0) {
        return rc;
    }
    return loom_mpi_topo_copy_out(comm, neighbors, maxneighbors, t->edges + first, count,
                         "neighbors", "MPI_Graph_neighbors");
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                   int *newrank)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int n, rc = loom_mpi_comm_arg(comm, "MPI_Graph_map", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newrank == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Graph_map", "newrank is NULL");
    }
    if ((rc = graph_check(comm, loom_comm_size(lcomm), nnodes, index, edges,
                          "MPI_Graph_map")) != MPI_SUCCESS) {
        return rc;
    }
    n = loom_topo_map_identity(loom_comm_rank(lcomm), nnodes);
    *newrank = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Topo_test", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (status == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Topo_test", "status is NULL");
    }
    *status = comm->topo != NULL ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
