/*
 * mpi_topo_int.h: process topologies in the MPI binding (mpi_topo.c, the
 * neighbourhood collectives in mpi_topo_nbr.c).
 *
 * A topology communicator is an ordinary new communicator (its own
 * context: split or dup of the old one, so reorder is always "identity")
 * whose wrapper points to one loom_mpi_topo_t: the kind, what the MPI
 * queries return (Cartesian dims and periods, the whole graph, or the dist
 * graph's weights) and this rank's neighbour lists in MPI's slot order,
 * computed once at creation, which the neighbourhood collectives walk.
 * Everything lives in one allocation; MPI_Comm_dup copies it, MPI_Comm_free
 * frees it. The arithmetic is base/topo.c.
 */
#ifndef LOOM_MPI_TOPO_INT_H
#define LOOM_MPI_TOPO_INT_H

#include "mpi_int.h"

#pragma GCC visibility push(hidden)

typedef struct loom_mpi_topo {
    int    kind;       /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    int    ndims;      /* cart: dims[ndims], periods[ndims] (0/1) */
    int    nnodes;     /* graph: index[nnodes], edges[nedges] */
    int    nedges;
    int    indeg;      /* neighbour lists, MPI's order: in[indeg] (sources) ... */
    int    outdeg;     /* ... and out[outdeg] (destinations) */
    int    weighted;   /* dist graph: sweights[indeg], dweights[outdeg] are set */
    int   *dims, *periods, *index, *edges, *in, *out, *sweights, *dweights;
    size_t nints;      /* ints in data[] */
    int    data[];
} loom_mpi_topo_t;

/**
 * Copy the topology of @p from to the new wrapper @p to (MPI_Comm_dup,
 * MPI_Comm_idup). @return MPI_SUCCESS, or MPI_ERR_NO_MEM (nothing raised,
 * @p to unchanged: the caller destroys it).
 */
int loom_mpi_topo_dup(MPI_Comm from, MPI_Comm to);

/** Free the topology a wrapper carries (its destruction). */
void loom_mpi_topo_free(MPI_Comm comm);

/**
 * The topology of @p comm for MPI call @p call: any kind if @p kind is 0,
 * else that kind (raises MPI_ERR_TOPOLOGY naming what the communicator has).
 * Also checks @p comm itself (MPI_ERR_COMM). Returns MPI_SUCCESS or the class.
 */
int loom_mpi_topo_arg(MPI_Comm comm, int kind, const char *call, loom_comm_t *lcomm_p,
                      const loom_mpi_topo_t **topo_p);

/* ---- shared by the constructors (mpi_topo.c, mpi_topo_dist.c) ---- */

/** A topology object with room for every array (NULL if out of memory). */
loom_mpi_topo_t *loom_mpi_topo_new(int kind, int ndims, int nnodes, int nedges, int indeg,
                                   int outdeg, int weighted);

/**
 * Wrap the new communicator @p lnew made from @p comm_old by @p call and
 * attach @p t (NULL: out of memory, raised); frees both on failure.
 */
int loom_mpi_topo_attach(MPI_Comm comm_old, loom_comm_t lnew, loom_mpi_topo_t *t,
                         const char *call, MPI_Comm *newcomm);

/** Copy min(@p max, @p n) ints to the caller's array @p dst (MPI's query rule). */
int loom_mpi_topo_copy_out(MPI_Comm comm, int *dst, int max, const int *src, int n,
                           const char *what, const char *call);

#pragma GCC visibility pop

#endif /* LOOM_MPI_TOPO_INT_H */
