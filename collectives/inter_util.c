/*
 * inter_util.c: what the intercommunicator constructors (comm_create.c)
 * and the intercommunicator collectives (inter_coll.c, inter_nb.c) share:
 * the argument checks of an intercommunicator call, the tag of the
 * intercomm's internal operations, the leaders' swap, and an exchange
 * between the two groups (leaders swap, local broadcast). Below the three
 * (it calls the API's bcast only), so they call no one in a circle.
 */
#include "inter_int.h"
#include "log_int.h"

loom_status_t loom_inter_check_int(loom_comm_t comm, const char *who)
{
    loom_status_t st = loom_comm_check(comm, who);

    if (st == LOOM_OK && comm->local == NULL) {
        loom_error("coll", "%s: '%s' is not an intercommunicator", who, comm->name);
        st = LOOM_ERR_INVALID_COMM;
    }
    return st;
}

loom_status_t loom_inter_check_root_int(loom_comm_t comm, int root, const char *who)
{
    loom_status_t st = loom_inter_check_int(comm, who);

    if (st == LOOM_OK && !(root == LOOM_ROOT || root == LOOM_PROC_NULL ||
                           (root >= 0 && root < comm->remote_size))) {
        loom_error("coll", "%s: root %d is not LOOM_ROOT, LOOM_PROC_NULL or a rank of "
                   "the remote group of '%s' (size %d)", who, root, comm->name,
                   comm->remote_size);
        st = LOOM_ERR_INVALID_ROOT;
    }
    return st;
}

/* Tag of the intercomm's internal leader swaps (collective context, create kind). */
int loom_inter_next_tag(loom_comm_t inter)
{
    return loom_comm_cg_tag((int)(inter->coll_seq++ & 0x3fffffu), 31);
}

loom_status_t loom_inter_swap(loom_comm_t comm, const void *mine, size_t sbytes,
                              void *theirs, size_t rbytes, int peer, int tag,
                              uint32_t which)
{
    loom_request_t rreq, sreq;
    loom_status_t st, st2;

    st = loom_p2p_irecv_int(theirs, rbytes, peer, tag, comm, which, &rreq);
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_p2p_isend_int(mine, sbytes, peer, tag, comm, which, 0, &sreq);
    if (st != LOOM_OK) {
        loom_request_t r = rreq;
        (void)loom_cancel(&r);
        (void)loom_request_wait_int(rreq, NULL);
        return st;
    }
    st  = loom_request_wait_int(rreq, NULL);
    st2 = loom_request_wait_int(sreq, NULL);
    return st != LOOM_OK ? st : st2;
}

loom_status_t loom_inter_exchange(loom_comm_t inter, const void *mine, size_t sbytes,
                                  void *theirs, size_t rbytes)
{
    int tag = loom_inter_next_tag(inter);
    loom_status_t st = LOOM_OK;
    int32_t ok;

    if (inter->rank == 0) {
        st = loom_inter_swap(inter, mine, sbytes, theirs, rbytes, 0, tag, LOOM_CTX_COLL);
    }
    ok = (int32_t)st;
    if (loom_bcast(&ok, 1, LOOM_INT32, 0, inter->local) != LOOM_OK) {
        return LOOM_ERR_INTERNAL;
    }
    if (ok != LOOM_OK) {
        return (loom_status_t)ok;
    }
    return loom_bcast(theirs, rbytes, LOOM_BYTE, 0, inter->local);
}
