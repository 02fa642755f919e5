/*
 * mpi_comm_create.c: the communicator constructors that take a group or run
 * without blocking (MPI-3.1 section 6.4.2): MPI_Comm_create,
 * MPI_Comm_create_group, MPI_Comm_split_type, MPI_Comm_idup and
 * MPI_Comm_dup_with_info. Each translates the group into ranks of the
 * parent and calls one native constructor (collectives/comm_create.c),
 * then wraps the result like MPI_Comm_dup does (mpi_comm.c).
 *
 * Info arguments are accepted and not interpreted (loom has no
 * communicator hints); info objects themselves are mpi_info.c's.
 */
#include "mpi_group_int.h"
#include "mpi_attr_int.h"
#include "mpi_info_int.h"
#include "mt_int.h"

#include <stdlib.h>

_Static_assert(MPI_COMM_TYPE_SHARED == LOOM_COMM_TYPE_SHARED &&
               MPI_UNDEFINED == LOOM_UNDEFINED, "split types pass through unchanged");

/* Common checks of create / create_group: comm, group, newcomm. */
static int loom_mpi_create_args(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm,
                                const char *call, loom_comm_t *lcomm_p)
{
    int rc = loom_mpi_comm_arg(comm, call, lcomm_p);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    }
    *newcomm = MPI_COMM_NULL;
    if (group == MPI_GROUP_NULL || group->magic != LOOM_MPI_GROUP_MAGIC) {
        return loom_mpi_raise(comm, MPI_ERR_GROUP, call, "%s",
                              group == MPI_GROUP_NULL ? "group is MPI_GROUP_NULL"
                                                      : "group is not a live group");
    }
    return MPI_SUCCESS;
}

/* Wrap @p lnew (LOOM_COMM_NULL: not a member) after a native call returned @p st. */
static int loom_mpi_create_finish(MPI_Comm comm, loom_status_t st, loom_comm_t lnew,
                                  const char *call, MPI_Comm *newcomm)
{
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(comm, st, call);
    }
    if (lnew == LOOM_COMM_NULL) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return loom_mpi_comm_wrap(comm, lnew, call, newcomm);
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm, lnew = LOOM_COMM_NULL;
    loom_status_t st;
    int *ranks = NULL, rc;

    rc = loom_mpi_create_args(comm, group, newcomm, "MPI_Comm_create", &lcomm);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = loom_mpi_group_to_comm_ranks(comm, lcomm, group, "MPI_Comm_create", &ranks);
    if (rc != MPI_SUCCESS) {
        /* still take part (as a non-member), so the other ranks do not hang */
        (void)loom_comm_create(lcomm, 0, NULL, &lnew);
        return rc;
    }
    st = loom_comm_create(lcomm, group->size, ranks, &lnew);
    free(ranks);
    return loom_mpi_create_finish(comm, st, lnew, "MPI_Comm_create", newcomm);
}

#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm, lnew = LOOM_COMM_NULL;
    loom_status_t st;
    int *ranks = NULL, rc;

    rc = loom_mpi_create_args(comm, group, newcomm, "MPI_Comm_create_group", &lcomm);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (tag < 0 || tag > LOOM_TAG_UB) {
        return loom_mpi_raise(comm, MPI_ERR_TAG, "MPI_Comm_create_group",
                              "tag %d is outside 0..MPI_TAG_UB", tag);
    }
    if (group->rank == MPI_UNDEFINED) {
        return MPI_SUCCESS;   /* not a member (MPI_GROUP_EMPTY too): MPI_COMM_NULL */
    }
    rc = loom_mpi_group_to_comm_ranks(comm, lcomm, group, "MPI_Comm_create_group",
                                      &ranks);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    st = loom_comm_create_group(lcomm, group->size, ranks, tag, &lnew);
    free(ranks);
    return loom_mpi_create_finish(comm, st, lnew, "MPI_Comm_create_group", newcomm);
}

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm, lnew = LOOM_COMM_NULL;
    loom_status_t st;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_split_type", &lcomm);

    (void)info;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_split_type", "newcomm is NULL");
    }
    /* an unknown type still takes part (as MPI_UNDEFINED) in the native call,
     * so the other ranks do not hang; it fails there with MPI_ERR_ARG */
    st = loom_comm_split_type(lcomm, split_type, key, &lnew);
    return loom_mpi_create_finish(comm, st, lnew, "MPI_Comm_split_type", newcomm);
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    loom_status_t st;
    MPI_Comm c = MPI_COMM_NULL;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_idup", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL || request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_idup", "%s is NULL",
                              newcomm == NULL ? "newcomm" : "request");
    }
    /* the wrapper exists now; the request fills in its loom communicator */
    rc = loom_mpi_comm_wrap(comm, LOOM_COMM_NULL, "MPI_Comm_idup", &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* topology, attributes and hints are copied at the call (as MPI_Comm_dup) */
    rc = loom_mpi_comm_inherit(comm, c, "MPI_Comm_idup");
    if (rc != MPI_SUCCESS) {
        loom_mpi_comm_destroy(c);
        return rc;
    }
    st = loom_comm_idup(lcomm, &c->comm, request);
    if (st != LOOM_OK) {
        /* nothing was started: the wrapper goes again */
        loom_mpi_comm_destroy(c);
        return loom_mpi_raise_loom(comm, st, "MPI_Comm_idup");
    }
    *newcomm = c;
    return MPI_SUCCESS;
}

/*
 * A duplicate whose hints are @p info's, not @p comm's (MPI-3.1 6.4.2):
 * MPI_Comm_dup copies the old hints with the attributes, so they are
 * dropped before the new ones are set. loom interprets no hint; they are
 * kept for MPI_Comm_get_info.
 */
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    LOOM_MT_GUARD();
    int rc = PMPI_Comm_dup(comm, newcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((*newcomm)->ext != NULL && (*newcomm)->ext->hints != MPI_INFO_NULL) {
        loom_mpi_kvstore_clear(&(*newcomm)->ext->hints->store);
    }
    rc = PMPI_Comm_set_info(*newcomm, info);
    if (rc != MPI_SUCCESS) {
        (void)PMPI_Comm_free(newcomm);
    }
    return rc;
}
