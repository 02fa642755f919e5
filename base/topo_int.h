/*
 * topo_int.h: the arithmetic of process topologies (MPI-3.1 chapter 7), apart
 * from any communicator: balanced grid factorisation (dims_create),
 * Cartesian rank <-> coordinates, shifts, sub-grids, and the neighbour
 * lists the neighbourhood collectives walk. Nothing here sends, allocates
 * or logs, so test/coll/test_topo.c checks it exhaustively in one process.
 * A core basic (pure, like group_int.h): the MPI layer and the collectives
 * may both include it.
 *
 * Conventions: a Cartesian grid is row-major (the last dimension varies
 * fastest, as MPI specifies); LOOM_TOPO_PROC_NULL (= LOOM_PROC_NULL = -2)
 * marks a missing neighbour at a non-periodic edge.
 *
 * Neighbour order and matching. A Cartesian rank lists 2*ndims neighbours:
 * for each dimension d, first the source of a +1 shift (the neighbour in
 * the negative direction), then the destination (positive direction). The
 * block a rank sends to its positive neighbour must land in that
 * neighbour's negative slot and vice versa, also when both are the same
 * rank (a periodic dimension of size 1 or 2). Messages between two ranks
 * match in posting order, so each rank posts its receives in slot order and
 * its sends in loom_topo_cart_send_slot() order (per dimension: positive
 * direction first, then negative): the k-th message from r to q then always
 * lands in the slot of q that names r in the same dimension and direction
 * of travel. Graphs pair the k-th occurrence of q in r's list with the k-th
 * occurrence of r in q's list (MPI requires symmetric adjacency there), so
 * plain slot order is right for them.
 */
#ifndef LOOM_TOPO_INT_H
#define LOOM_TOPO_INT_H

#define LOOM_TOPO_PROC_NULL (-2)

/** Outcome of the checks below (the MPI layer maps them to error classes). */
typedef enum loom_topo_rc {
    LOOM_TOPO_OK       = 0,
    LOOM_TOPO_ERR_ARG  = -1,   /* a value out of range (nnodes, coordinate) */
    LOOM_TOPO_ERR_DIMS = -2,   /* dims cannot describe the grid asked for */
} loom_topo_rc_t;

/**
 * MPI_Dims_create: fill the zero entries of @p dims (length @p ndims) so
 * that the product is @p nnodes. Among all ways, the chosen one minimises
 * max - min of the filled entries; among equal spreads it takes the one
 * whose entries, read from the smallest up, are largest first (the larger
 * minimum, then the larger second smallest, ...): both rules are MPICH's,
 * whose test suite checks thousands of answers. Filled entries are
 * non-increasing; nonzero entries are kept.
 * @return LOOM_TOPO_OK; LOOM_TOPO_ERR_ARG if nnodes < 1 or ndims < 0;
 *         LOOM_TOPO_ERR_DIMS if an entry is negative or the fixed entries'
 *         product does not divide nnodes (or equals it not with no zero left).
 *         @p dims is unchanged on error.
 */
loom_topo_rc_t loom_topo_dims_create(int nnodes, int ndims, int dims[]);

/**
 * Number of ranks of the grid @p dims (product), or -1 if an entry is < 1
 * or the product exceeds @p limit.
 */
long long loom_topo_cart_size(int ndims, const int dims[], long long limit);

/**
 * Rank of @p coords; periodic dimensions wrap any value, others must be in
 * [0, dims[d]). @return LOOM_TOPO_OK or LOOM_TOPO_ERR_ARG (*bad_dim_p says
 * which dimension, if not NULL).
 */
loom_topo_rc_t loom_topo_cart_rank(int ndims, const int dims[], const int periods[],
                                   const int coords[], int *rank_p, int *bad_dim_p);

/** Coordinates of @p rank (0 <= rank < product of dims). */
void loom_topo_cart_coords(int ndims, const int dims[], int rank, int coords[]);

/**
 * MPI_Cart_shift of @p rank by @p disp along @p direction: the rank that
 * sends to us (source, coordinate - disp) and the one we send to (dest,
 * coordinate + disp); LOOM_TOPO_PROC_NULL past a non-periodic edge.
 */
void loom_topo_cart_shift(int ndims, const int dims[], const int periods[], int rank,
                          int direction, int disp, int *src_p, int *dst_p);

/**
 * MPI_Cart_sub: the sub-grid of @p rank keeping the dimensions with
 * remain[d] != 0. *color_p numbers the sub-grid (row-major rank over the
 * dropped dimensions), *key_p is the rank inside it (row-major over the
 * kept ones): a split by (color, key) builds the sub-communicators.
 */
void loom_topo_cart_sub(int ndims, const int dims[], const int remain[], int rank,
                        int *color_p, int *key_p);

/**
 * The 2*ndims neighbours of @p rank in slot order (dimension d: slot 2d the
 * negative-direction neighbour, slot 2d+1 the positive one).
 */
void loom_topo_cart_neighbors(int ndims, const int dims[], const int periods[], int rank,
                              int nbrs[]);

/** The slot whose block is the i-th send a Cartesian rank posts (see atop). */
static inline int loom_topo_cart_send_slot(int i)
{
    return i ^ 1;
}

/**
 * Check an MPI_Graph_create graph: @p nnodes >= 0, index non-decreasing
 * from >= 0, every edge in [0, nnodes). @return LOOM_TOPO_OK, or
 * LOOM_TOPO_ERR_ARG with the offending index entry in *bad_node_p or the
 * offending edge in *bad_edge_p (the other one -1; both -1: nnodes < 0).
 */
loom_topo_rc_t loom_topo_graph_check(int nnodes, const int index[], const int edges[],
                                     int *bad_node_p, int *bad_edge_p);

/** Neighbours of node @p rank of an MPI graph: edges[*first_p .. + *count_p). */
static inline void loom_topo_graph_neighbors(const int index[], int rank, int *first_p,
                                             int *count_p)
{
    int first = rank == 0 ? 0 : index[rank - 1];

    *first_p = first;
    *count_p = index[rank] - first;
}

/**
 * MPI_Cart_map / MPI_Graph_map with the identity mapping: @p rank keeps
 * its rank if it is below @p nnodes, else gets -1 (MPI_UNDEFINED).
 */
static inline int loom_topo_map_identity(int rank, int nnodes)
{
    return rank < nnodes ? rank : -1;
}

#endif /* LOOM_TOPO_INT_H */
