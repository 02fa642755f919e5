/*
 * mpi_group.c: MPI groups (MPI-3.1 section 6.3) over the pure set algebra of
 * base/group.c. Each call validates the handles here (MPI_ERR_GROUP), lets
 * the algebra validate ranks and ranges (MPI_ERR_RANK / MPI_ERR_ARG), and
 * wraps the resulting list of world ranks in a new object; an empty result
 * is MPI_GROUP_EMPTY, as Open MPI and MPICH return it. Groups belong to no
 * communicator, so their errors go to MPI_COMM_WORLD's error handler.
 */
#include "mpi_f2c_int.h"
#include "mpi_group_int.h"
#include "group_int.h"
#include "mt_int.h"

#include <stdlib.h>
#include <string.h>

struct loom_mpi_group loom_mpi_group_empty = {
    .magic      = LOOM_MPI_GROUP_MAGIC,
    .size       = 0,
    .rank       = MPI_UNDEFINED,
    .predefined = 1,
    .world      = NULL,
};

int loom_mpi_group_arg(MPI_Group g, const char *call)
{
    if (loom_mpi_state != LOOM_MPI_STATE_INITIALIZED) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, call, "called %s",
                              loom_mpi_state == LOOM_MPI_STATE_PRE_INIT
                                  ? "before MPI_Init" : "after MPI_Finalize");
    }
    if (g == MPI_GROUP_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_GROUP, call, "group is MPI_GROUP_NULL");
    }
    if (g->magic != LOOM_MPI_GROUP_MAGIC) {
        return loom_mpi_raise(NULL, MPI_ERR_GROUP, call,
                              "%p is not a group (freed, or never created)", (void *)g);
    }
    return MPI_SUCCESS;
}

/*
 * A group constructor's output is MPI_GROUP_NULL until it succeeds, so a
 * caller that goes on after an error (MPICH's test harness frees the
 * groups of a failed MPI_Comm_group / MPI_Group_excl) frees a null handle,
 * an MPI_ERR_GROUP, never an uninitialized pointer.
 */
static void loom_mpi_group_out_null(MPI_Group *out)
{
    if (out != NULL) {
        *out = MPI_GROUP_NULL;
    }
}

/* Wrap the malloc'd list @p world of @p n world ranks (taken over) in a group. */
static int loom_mpi_group_make(int n, int *world, const char *call, MPI_Group *group_p)
{
    MPI_Group g;

    if (n == 0) {
        free(world);
        *group_p = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    g = malloc(sizeof(*g));
    if (g == NULL) {
        free(world);
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory for a group "
                              "of %d processes", n);
    }
    *g = (struct loom_mpi_group){ .magic = LOOM_MPI_GROUP_MAGIC, .size = n,
                                  .rank = loom_group_rank_of(n, world, loom_rank()),
                                  .world = world };
    if (g->rank == LOOM_UNDEFINED) {
        g->rank = MPI_UNDEFINED;
    }
    *group_p = g;
    return MPI_SUCCESS;
}

/* A list for @p n world ranks (at least one int), or NULL after raising. */
static int *loom_mpi_group_list(size_t n, const char *call)
{
    int *l = malloc((n + 1) * sizeof(int));

    if (l == NULL) {
        (void)loom_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory for %zu ranks", n);
    }
    return l;
}

/* Raise what the algebra found wrong in the arguments of @p call. */
static int loom_mpi_group_fail(loom_status_t st, const char *call, const char *what,
                               int size)
{
    return loom_mpi_raise(NULL, loom_mpi_class_of(st), call,
                          st == LOOM_ERR_INVALID_RANK
                              ? "%s: a rank is outside the group of %d or listed twice"
                          : st == LOOM_ERR_INVALID_ARG
                              ? "%s: a count is negative, a stride is 0, or a range "
                                "never reaches its last rank (group of %d)"
                              : "%s: out of memory (group of %d)",
                          what, size);
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc, n, *world;

    loom_mpi_group_out_null(group);
    rc = loom_mpi_comm_arg(comm, "MPI_Comm_group", &lcomm);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (group == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_group", "group is NULL");
    }
    n = loom_comm_size(lcomm);
    if ((world = loom_mpi_group_list((size_t)n, "MPI_Comm_group")) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; ++i) {
        world[i] = loom_comm_world_rank(lcomm, i);
    }
    return loom_mpi_group_make(n, world, "MPI_Comm_group", group);
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_remote_group", &lcomm), n, *world;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (group == NULL || !loom_comm_is_inter(lcomm)) {
        return loom_mpi_raise(comm, group == NULL ? MPI_ERR_ARG : MPI_ERR_COMM,
                              "MPI_Comm_remote_group", group == NULL ? "group is NULL"
                              : "communicator is not an intercommunicator");
    }
    n = loom_comm_remote_size(lcomm);
    if ((world = loom_mpi_group_list((size_t)n, "MPI_Comm_remote_group")) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; ++i) {
        world[i] = loom_comm_remote_world_rank(lcomm, i);
    }
    return loom_mpi_group_make(n, world, "MPI_Comm_remote_group", group);
}

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int *size)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_group_arg(group, "MPI_Group_size");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (size == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Group_size", "size is NULL");
    }
    *size = group->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_group_arg(group, "MPI_Group_rank");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Group_rank", "rank is NULL");
    }
    *rank = group->rank;
    return MPI_SUCCESS;
}

/* incl (@p excl = 0) or excl of @p n listed ranks. */
static int loom_mpi_group_select(MPI_Group group, int n, const int ranks[], int excl,
                                 MPI_Group *newgroup, const char *call)
{
    loom_status_t st;
    int rc, *world;

    loom_mpi_group_out_null(newgroup);
    rc = loom_mpi_group_arg(group, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newgroup == NULL || n < 0 || (n > 0 && ranks == NULL)) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "%s", newgroup == NULL
                              ? "newgroup is NULL" : n < 0 ? "n is negative"
                              : "ranks is NULL");
    }
    if ((world = loom_mpi_group_list((size_t)group->size, call)) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    st = excl ? loom_group_excl(group->size, group->world, n, ranks, world)
              : loom_group_incl(group->size, group->world, n, ranks, world);
    if (st != LOOM_OK) {
        free(world);
        return loom_mpi_group_fail(st, call, "ranks", group->size);
    }
    return loom_mpi_group_make(excl ? group->size - n : n, world, call, newgroup);
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    LOOM_MT_GUARD();
    return loom_mpi_group_select(group, n, ranks, 0, newgroup, "MPI_Group_incl");
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    LOOM_MT_GUARD();
    return loom_mpi_group_select(group, n, ranks, 1, newgroup, "MPI_Group_excl");
}

/* range_incl / range_excl: expand the triplets, then incl / excl. */
static int loom_mpi_group_range(MPI_Group group, int n, int ranges[][3], int excl,
                                MPI_Group *newgroup, const char *call)
{
    loom_status_t st;
    int rc, *list, count = 0;

    loom_mpi_group_out_null(newgroup);
    rc = loom_mpi_group_arg(group, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newgroup == NULL || n < 0 || (n > 0 && ranges == NULL)) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "%s", newgroup == NULL
                              ? "newgroup is NULL" : n < 0 ? "n is negative"
                              : "ranges is NULL");
    }
    if ((list = loom_mpi_group_list((size_t)group->size, call)) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    st = loom_group_range_expand(group->size, n, (const int (*)[3])ranges, list, &count);
    if (st != LOOM_OK) {
        free(list);
        return loom_mpi_group_fail(st, call, "ranges", group->size);
    }
    rc = loom_mpi_group_select(group, count, list, excl, newgroup, call);
    free(list);
    return rc;
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    LOOM_MT_GUARD();
    return loom_mpi_group_range(group, n, ranges, 0, newgroup, "MPI_Group_range_incl");
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    LOOM_MT_GUARD();
    return loom_mpi_group_range(group, n, ranges, 1, newgroup, "MPI_Group_range_excl");
}

typedef enum { LOOM_MPI_UNION, LOOM_MPI_INTERSECTION, LOOM_MPI_DIFFERENCE } loom_mpi_setop_t;

static int loom_mpi_group_setop(MPI_Group g1, MPI_Group g2, loom_mpi_setop_t op,
                                MPI_Group *newgroup, const char *call)
{
    loom_status_t st;
    int rc, *world, count = 0;

    loom_mpi_group_out_null(newgroup);
    if ((rc = loom_mpi_group_arg(g1, call)) != MPI_SUCCESS ||
        (rc = loom_mpi_group_arg(g2, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (newgroup == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    }
    world = loom_mpi_group_list((size_t)g1->size + (size_t)g2->size, call);
    if (world == NULL) {
        return MPI_ERR_NO_MEM;
    }
    switch (op) {
    case LOOM_MPI_UNION:
        st = loom_group_union(g1->size, g1->world, g2->size, g2->world, world, &count);
        break;
    case LOOM_MPI_INTERSECTION:
        st = loom_group_intersection(g1->size, g1->world, g2->size, g2->world, world,
                                     &count);
        break;
    default:
        st = loom_group_difference(g1->size, g1->world, g2->size, g2->world, world,
                                   &count);
        break;
    }
    if (st != LOOM_OK) {
        free(world);
        return loom_mpi_group_fail(st, call, "groups", g1->size);
    }
    return loom_mpi_group_make(count, world, call, newgroup);
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    LOOM_MT_GUARD();
    return loom_mpi_group_setop(group1, group2, LOOM_MPI_UNION, newgroup,
                                "MPI_Group_union");
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    LOOM_MT_GUARD();
    return loom_mpi_group_setop(group1, group2, LOOM_MPI_INTERSECTION, newgroup,
                                "MPI_Group_intersection");
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    LOOM_MT_GUARD();
    return loom_mpi_group_setop(group1, group2, LOOM_MPI_DIFFERENCE, newgroup,
                                "MPI_Group_difference");
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                               MPI_Group group2, int ranks2[])
{
    LOOM_MT_GUARD();
    static const char call[] = "MPI_Group_translate_ranks";
    loom_status_t st;
    int rc;

    if ((rc = loom_mpi_group_arg(group1, call)) != MPI_SUCCESS ||
        (rc = loom_mpi_group_arg(group2, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (n < 0 || (n > 0 && (ranks1 == NULL || ranks2 == NULL))) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "%s", n < 0 ? "n is negative"
                              : ranks1 == NULL ? "ranks1 is NULL" : "ranks2 is NULL");
    }
    st = loom_group_translate(group1->size, group1->world, n, ranks1, group2->size,
                              group2->world, ranks2);
    if (st != LOOM_OK) {
        return loom_mpi_group_fail(st, call, "ranks1", group1->size);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    LOOM_MT_GUARD();
    int rc, r;

    if ((rc = loom_mpi_group_arg(group1, "MPI_Group_compare")) != MPI_SUCCESS ||
        (rc = loom_mpi_group_arg(group2, "MPI_Group_compare")) != MPI_SUCCESS) {
        return rc;
    }
    if (result == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Group_compare", "result is NULL");
    }
    r = loom_group_compare(group1->size, group1->world, group2->size, group2->world);
    *result = r == LOOM_GROUP_IDENT ? MPI_IDENT
              : r == LOOM_GROUP_SIMILAR ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group *group)
{
    LOOM_MT_GUARD();
    int rc;

    if (group == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Group_free", "group is NULL");
    }
    if ((rc = loom_mpi_group_arg(*group, "MPI_Group_free")) != MPI_SUCCESS) {
        return rc;
    }
    if (!(*group)->predefined) {   /* MPI_GROUP_EMPTY: the handle is reset only */
        loom_mpi_handle_forget(LOOM_MPI_H_GROUP, *group);
        (*group)->magic = LOOM_MPI_DEAD_MAGIC;
        free((*group)->world);
        free(*group);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int loom_mpi_group_to_comm_ranks(MPI_Comm comm, loom_comm_t lcomm, MPI_Group g,
                                 const char *call, int **ranks_p)
{
    int size = loom_comm_size(lcomm), *cw, *ranks;
    loom_status_t st;

    cw = loom_mpi_group_list((size_t)size, call);
    ranks = loom_mpi_group_list((size_t)g->size, call);
    if (cw == NULL || ranks == NULL) {
        free(cw);
        free(ranks);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < size; ++i) {
        cw[i] = loom_comm_world_rank(lcomm, i);
    }
    for (int i = 0; i < g->size; ++i) {
        ranks[i] = i;
    }
    st = loom_group_translate(g->size, g->world, g->size, ranks, size, cw, ranks);
    free(cw);
    for (int i = 0; st == LOOM_OK && i < g->size; ++i) {
        if (ranks[i] == LOOM_UNDEFINED) {
            free(ranks);
            return loom_mpi_raise(comm, MPI_ERR_GROUP, call, "group member %d (world rank "
                                  "%d) is not in the communicator", i, g->world[i]);
        }
    }
    if (st != LOOM_OK) {
        free(ranks);
        return loom_mpi_raise(comm, loom_mpi_class_of(st), call, "translating the group");
    }
    *ranks_p = ranks;
    return MPI_SUCCESS;
}
