/*
 * mpi_group_int.h: MPI_Group objects and what the communicator constructors
 * of mpi_comm_create.c share with mpi_comm.c.
 *
 * An MPI_Group is a list of world ranks (base/group_int.h does the set
 * algebra on such lists) plus this process's rank in it. Groups are
 * independent objects: a communicator does not keep one (MPI_Comm_group
 * builds it from the communicator's world ranks), so an intercommunicator
 * can later answer for its local and its remote group the same way.
 * MPI_GROUP_EMPTY is a static object of size 0; every operation whose
 * result is empty returns it, and freeing it only resets the handle.
 */
#ifndef LOOM_MPI_GROUP_INT_H
#define LOOM_MPI_GROUP_INT_H

#include "mpi_int.h"

#pragma GCC visibility push(hidden)

#define LOOM_MPI_GROUP_MAGIC 0x6d677270u  /* "mgrp" */

struct loom_mpi_group {
    uint32_t magic;
    int      size;
    int      rank;        /* this process's rank in the group, or MPI_UNDEFINED */
    int      predefined;  /* MPI_GROUP_EMPTY: never freed */
    int     *world;       /* group rank -> world rank (NULL when size is 0) */
};

/** 1 if @p g is a live group handle. */
static inline int loom_mpi_group_valid(MPI_Group g)
{
    return g != MPI_GROUP_NULL && g->magic == LOOM_MPI_GROUP_MAGIC;
}

/** Check @p g for @p call (library state and handle); raises MPI_ERR_GROUP. */
int loom_mpi_group_arg(MPI_Group g, const char *call);

/** Parent ranks of @p g's members in @p lcomm (malloc'd into *ranks_p), or
 *  MPI_ERR_GROUP (raised on @p comm) if a member is not in it. */
int loom_mpi_group_to_comm_ranks(MPI_Comm comm, loom_comm_t lcomm, MPI_Group g,
                                 const char *call, int **ranks_p);

#pragma GCC visibility pop

#endif /* LOOM_MPI_GROUP_INT_H */
