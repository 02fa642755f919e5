/*
 * group_int.h: process groups as pure set algebra.
 *
 * A group is an ordered list of distinct process identities (world ranks):
 * element i is the process of group rank i. Every function here is pure:
 * it reads its input lists and writes an output list the caller sized, and
 * communicates with nobody, so test/base/test_group.c checks each against a
 * brute-force reference for many groups in one process. The MPI binding
 * (mpi/mpi_group.c) keeps these lists in its MPI_Group objects; a
 * communicator's group is the list of its world ranks (an intercommunicator
 * will later carry two such lists, local and remote).
 *
 * Order rules are MPI-3.1's (section 6.3.2):
 *   union         all of g1, then the members of g2 not in g1, in g2 order
 *   intersection  the members of g1 also in g2, in g1 order
 *   difference    the members of g1 not in g2, in g1 order
 *   incl          the listed ranks, in list order
 *   excl          g1 without the listed ranks, in g1 order
 *   range triplets (first, last, stride) expand first, first+stride, ... up
 *   to last (stride may be negative, never 0).
 *
 * Errors: a listed rank outside [0, size) or listed twice is
 * LOOM_ERR_INVALID_RANK (MPI_ERR_RANK); a negative count, stride 0 or a
 * triplet that never reaches its last rank is LOOM_ERR_INVALID_ARG
 * (MPI_ERR_ARG). Functions that need a scratch index allocate it
 * (LOOM_ERR_NO_MEMORY when that fails); outputs are written only on success.
 */
#ifndef LOOM_GROUP_INT_H
#define LOOM_GROUP_INT_H

#include <loom.h>

/* Results of loom_group_compare (the values of MPI's IDENT/SIMILAR/UNEQUAL). */
#define LOOM_GROUP_IDENT   0
#define LOOM_GROUP_SIMILAR 2
#define LOOM_GROUP_UNEQUAL 3

/**
 * Check @p n group ranks of a group of @p size: each in [0, size), none twice.
 * @return LOOM_OK, LOOM_ERR_INVALID_ARG (n < 0) or LOOM_ERR_INVALID_RANK.
 */
loom_status_t loom_group_check_ranks(int size, int n, const int ranks[]);

/** out[i] = g[ranks[i]] for the @p n checked ranks (out holds n). */
loom_status_t loom_group_incl(int size, const int g[], int n, const int ranks[],
                              int out[]);

/** g without the @p n checked ranks, in g order (out holds size - n). */
loom_status_t loom_group_excl(int size, const int g[], int n, const int ranks[],
                              int out[]);

/**
 * Expand @p n triplets (first, last, stride) over a group of @p size into
 * group ranks (@p out holds @p size: more would repeat a rank); *count_p
 * gets how many. Checks every rule above.
 */
loom_status_t loom_group_range_expand(int size, int n, const int ranges[][3], int out[],
                                      int *count_p);

/** Union of g1 (n1) and g2 (n2) in MPI order; out holds n1 + n2. */
loom_status_t loom_group_union(int n1, const int g1[], int n2, const int g2[], int out[],
                               int *count_p);

/** Members of g1 also in g2, in g1 order; out holds n1. */
loom_status_t loom_group_intersection(int n1, const int g1[], int n2, const int g2[],
                                      int out[], int *count_p);

/** Members of g1 not in g2, in g1 order; out holds n1. */
loom_status_t loom_group_difference(int n1, const int g1[], int n2, const int g2[],
                                    int out[], int *count_p);

/**
 * For each of the @p n ranks of g1: its rank in g2, LOOM_UNDEFINED if that
 * process is not in g2, LOOM_PROC_NULL for LOOM_PROC_NULL.
 * @return LOOM_ERR_INVALID_RANK for a rank outside g1.
 */
loom_status_t loom_group_translate(int n1, const int g1[], int n, const int ranks1[],
                                   int n2, const int g2[], int ranks2[]);

/** LOOM_GROUP_IDENT (same members, same order), _SIMILAR (same set) or _UNEQUAL. */
int loom_group_compare(int n1, const int g1[], int n2, const int g2[]);

/** Group rank of process @p id in g (n members), or LOOM_UNDEFINED. */
int loom_group_rank_of(int n, const int g[], int id);

#endif /* LOOM_GROUP_INT_H */
