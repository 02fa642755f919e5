/*
 * inter_int.h: helpers shared by the intercommunicator constructors
 * (comm_create.c) and the intercommunicator collectives (inter_coll.c).
 */
#ifndef LOOM_INTER_INT_H
#define LOOM_INTER_INT_H

#include "coll_int.h"

/** Post a receive and a send with one peer on @p comm's context @p which; wait both. */
loom_status_t loom_inter_swap(loom_comm_t comm, const void *mine, size_t sbytes,
                              void *theirs, size_t rbytes, int peer, int tag,
                              uint32_t which);

/**
 * Collective over intercomm @p inter: the local rank 0s swap @p mine for the
 * remote group's @p theirs, which is then broadcast in the local group.
 */
loom_status_t loom_inter_exchange(loom_comm_t inter, const void *mine, size_t sbytes,
                                  void *theirs, size_t rbytes);

/** Next tag of @p inter's internal traffic (every member calls it in the same order). */
int loom_inter_next_tag(loom_comm_t inter);

/** LOOM_ERR_INVALID_COMM unless @p comm is a live intercommunicator (logged for @p who). */
loom_status_t loom_inter_check_int(loom_comm_t comm, const char *who);

/** As loom_inter_check_int, and @p root is LOOM_ROOT, LOOM_PROC_NULL or a remote rank. */
loom_status_t loom_inter_check_root_int(loom_comm_t comm, int root, const char *who);

/**
 * Like loom_inter_iallreduce, but every process of both groups gets the
 * reduction over both groups (own group's result op the other group's).
 */
loom_status_t loom_inter_iallreduce_both(const void *sendbuf, void *recvbuf, size_t count,
                                         loom_datatype_t dt, loom_op_t op, loom_comm_t comm,
                                         loom_request_t *req_p);

#endif /* LOOM_INTER_INT_H */
