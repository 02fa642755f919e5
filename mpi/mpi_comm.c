/*
 * mpi_comm.c: MPI communicators. An MPI_Comm wraps a loom_comm_t with what
 * only MPI has: an error handler and a name. MPI_COMM_WORLD and
 * MPI_COMM_SELF are static objects; dup and split allocate a wrapper (not
 * on any fast path). Every live wrapper is on one list, so an error found
 * while completing a request (which knows only its loom communicator) can
 * reach the right error handler.
 */
#include "mpi_int.h"
#include "mpi_f2c_int.h"
#include "mpi_attr_int.h"
#include "mpi_group_int.h"
#include "mpi_topo_int.h"
#include "mpi_intercomm_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct loom_mpi_comm loom_mpi_comm_self = {
    .magic = LOOM_MPI_COMM_MAGIC,
    .comm  = LOOM_COMM_SELF,
    .errh  = MPI_ERRORS_ARE_FATAL,
    .name  = "MPI_COMM_SELF",
    .next  = NULL,
};

struct loom_mpi_comm loom_mpi_comm_world = {
    .magic = LOOM_MPI_COMM_MAGIC,
    .comm  = LOOM_COMM_WORLD,
    .errh  = MPI_ERRORS_ARE_FATAL,
    .name  = "MPI_COMM_WORLD",
    .next  = &loom_mpi_comm_self,
};

/* Every live wrapper: WORLD, SELF, then user communicators. */
static MPI_Comm loom_mpi_comm_list = &loom_mpi_comm_world;

int loom_mpi_comm_arg_error(MPI_Comm comm, const char *call)
{
    if (loom_mpi_state == LOOM_MPI_STATE_PRE_INIT) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, call, "called before MPI_Init");
    }
    if (loom_mpi_state == LOOM_MPI_STATE_FINALIZED) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, call, "called after MPI_Finalize");
    }
    if (comm == MPI_COMM_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_COMM, call, "communicator is MPI_COMM_NULL");
    }
    return loom_mpi_raise(NULL, MPI_ERR_COMM, call,
                          "%p is not a communicator (freed, or not initialized)",
                          (void *)comm);
}

MPI_Comm loom_mpi_comm_of(loom_comm_t lcomm)
{
    for (MPI_Comm c = loom_mpi_comm_list; c != NULL; c = c->next) {
        if (c->comm == lcomm) {
            return c;
        }
    }
    return MPI_COMM_WORLD;
}

/* Wrap a new loom communicator; the error handler comes from @p parent
 * (declared in mpi_group_int.h; LOOM_COMM_NULL for a pending idup). */
int loom_mpi_comm_wrap(MPI_Comm parent, loom_comm_t lcomm, const char *call,
                       MPI_Comm *newcomm_p)
{
    MPI_Comm c = calloc(1, sizeof(*c));

    if (c == NULL) {
        if (lcomm != LOOM_COMM_NULL) {
            loom_comm_free(&lcomm);
        }
        return loom_mpi_raise(parent, MPI_ERR_NO_MEM, call,
                              "out of memory for a communicator");
    }
    c->magic = LOOM_MPI_COMM_MAGIC;
    c->comm  = lcomm;
    c->errh  = parent->errh;
    ++c->errh->refs;
    c->next  = loom_mpi_comm_self.next;  /* WORLD, SELF stay first */
    loom_mpi_comm_self.next = c;
    *newcomm_p = c;
    return MPI_SUCCESS;
}

static void loom_mpi_comm_unlink(MPI_Comm comm)
{
    for (MPI_Comm *pp = &loom_mpi_comm_list; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == comm) {
            *pp = comm->next;
            return;
        }
    }
}

/* Free a wrapper (declared in mpi_group_int.h, for an idup that did not start). */
void loom_mpi_comm_destroy(MPI_Comm comm)
{
    MPI_Errhandler errh = comm->errh;

    loom_mpi_comm_unlink(comm);
    loom_mpi_objext_free(&comm->ext);  /* attributes, hints: no callbacks here */
    loom_mpi_topo_free(comm);
    if (--errh->refs == 0 && errh->kind == LOOM_MPI_ERRH_USER) {
        errh->magic = LOOM_MPI_DEAD_MAGIC;
        free(errh);
    }
    comm->magic = LOOM_MPI_DEAD_MAGIC;
    free(comm);
}

void loom_mpi_comm_cleanup(void)
{
    MPI_Comm next;

    for (MPI_Comm c = loom_mpi_comm_self.next; c != NULL; c = next) {
        next = c->next;
        loom_mpi_comm_destroy(c);
    }
    loom_mpi_comm_self.next = NULL;
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_rank", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
    }
    *rank = loom_comm_rank(lcomm);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_size", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (size == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
    }
    *size = loom_comm_size(lcomm);
    return MPI_SUCCESS;
}

int loom_mpi_comm_inherit(MPI_Comm from, MPI_Comm to, const char *call)
{
    /* a duplicate keeps the topology (MPI-3.1 7.4) */
    int rc = loom_mpi_topo_dup(from, to);

    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(from, rc, call,
                              "out of memory copying the communicator's topology");
    }
    /* attributes (copy callbacks) and info hints */
    rc = loom_mpi_attr_copy_all(LOOM_MPI_ATTR_COMM, from, from->ext, to, &to->ext);
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(from, rc, call, "copying the attributes failed with error %d",
                              rc);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm, lnew = LOOM_COMM_NULL;
    loom_status_t st;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_dup", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_dup", "newcomm is NULL");
    }
    st = loom_comm_dup(lcomm, &lnew);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(comm, st, "MPI_Comm_dup");
    }
    rc = loom_mpi_comm_wrap(comm, lnew, "MPI_Comm_dup", newcomm);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = loom_mpi_comm_inherit(comm, *newcomm, "MPI_Comm_dup");
    if (rc != MPI_SUCCESS) {
        (void)loom_comm_free(&lnew);
        loom_mpi_comm_destroy(*newcomm);
        *newcomm = MPI_COMM_NULL;
    }
    return rc;
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm, lnew = LOOM_COMM_NULL;
    loom_status_t st;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_split", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_split", "newcomm is NULL");
    }
    /* loom takes any negative color as "undefined"; MPI only MPI_UNDEFINED. */
    if (color < 0 && color != MPI_UNDEFINED) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_split",
                              "color %d is negative and not MPI_UNDEFINED", color);
    }
    st = loom_comm_split(lcomm, color == MPI_UNDEFINED ? LOOM_UNDEFINED : color, key,
                         &lnew);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(comm, st, "MPI_Comm_split");
    }
    if (lnew == LOOM_COMM_NULL) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return loom_mpi_comm_wrap(comm, lnew, "MPI_Comm_split", newcomm);
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm *comm)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    loom_status_t st;
    int rc;

    if (comm == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Comm_free", "comm is NULL");
    }
    rc = loom_mpi_comm_arg(*comm, "MPI_Comm_free", &lcomm);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
        return loom_mpi_raise(*comm, MPI_ERR_COMM, "MPI_Comm_free",
                              "%s is predefined and cannot be freed", (*comm)->name);
    }
    /* delete callbacks first; one failing makes the call fail, comm kept */
    rc = loom_mpi_attr_delete_all(LOOM_MPI_ATTR_COMM, *comm, (*comm)->ext);
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(*comm, rc, "MPI_Comm_free",
                              "an attribute delete callback returned error %d", rc);
    }
    st = loom_comm_free(&lcomm);
    if (st != LOOM_OK) {
        return loom_mpi_raise_loom(*comm, st, "MPI_Comm_free");
    }
    loom_mpi_handle_forget(LOOM_MPI_H_COMM, *comm);
    loom_mpi_comm_destroy(*comm);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

static int loom_mpi_int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

/* Compare the groups of two communicators of the same size @p n. */
static int loom_mpi_group_compare(loom_comm_t a, loom_comm_t b, int n, int *result_p)
{
    int *ra, *rb;
    int same_order = 1;

    ra = malloc(2 * (size_t)n * sizeof(int));
    if (ra == NULL) {
        return MPI_ERR_NO_MEM;
    }
    rb = ra + n;
    for (int i = 0; i < n; ++i) {
        ra[i] = loom_comm_world_rank(a, i);
        rb[i] = loom_comm_world_rank(b, i);
        same_order &= ra[i] == rb[i];
    }
    if (same_order) {
        *result_p = MPI_CONGRUENT;
    } else {
        qsort(ra, (size_t)n, sizeof(int), loom_mpi_int_cmp);
        qsort(rb, (size_t)n, sizeof(int), loom_mpi_int_cmp);
        *result_p = memcmp(ra, rb, (size_t)n * sizeof(int)) == 0 ? MPI_SIMILAR
                                                                 : MPI_UNEQUAL;
    }
    free(ra);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    LOOM_MT_GUARD();
    loom_comm_t a, b;
    int n, rc;

    rc = loom_mpi_comm_arg(comm1, "MPI_Comm_compare", &a);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = loom_mpi_comm_arg(comm2, "MPI_Comm_compare", &b);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (result == NULL) {
        return loom_mpi_raise(comm1, MPI_ERR_ARG, "MPI_Comm_compare", "result is NULL");
    }
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    n = loom_comm_size(a);
    if (n != loom_comm_size(b)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    rc = loom_mpi_group_compare(a, b, n, result);
    if (rc == MPI_SUCCESS && (loom_comm_is_inter(a) || loom_comm_is_inter(b))) {
        rc = loom_mpi_inter_compare(a, b, result);   /* remote groups: mpi_intercomm.c */
    }
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(comm1, rc, "MPI_Comm_compare",
                              "out of memory comparing groups of %d ranks", n);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_get_name", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_name == NULL || resultlen == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_get_name", "%s is NULL",
                              comm_name == NULL ? "comm_name" : "resultlen");
    }
    memcpy(comm_name, comm->name, sizeof(comm->name));
    *resultlen = (int)strlen(comm->name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_set_name", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_name == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_set_name", "comm_name is NULL");
    }
    /* MPI: longer names are truncated to MPI_MAX_OBJECT_NAME - 1. */
    snprintf(comm->name, sizeof(comm->name), "%s", comm_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_test_inter", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_test_inter", "flag is NULL");
    }
    *flag = loom_comm_is_inter(lcomm);
    return MPI_SUCCESS;
}
