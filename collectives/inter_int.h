/*
 * inter_int.h: helpers shared by the intercommunicator constructors
 * (comm_create.c) and the intercommunicator collectives (inter_coll.c,
 * inter_nb.c), defined in inter_util.c below all three, and the tag of
 * comm_create_group's rounds, which the intercomm's leader swaps reuse.
 */
#ifndef LOOM_INTER_INT_H
#define LOOM_INTER_INT_H

#include "coll_int.h"

/* Tag of round @p round: tag bits 0-15 | kind | round (5 bits) | tag bits 16-21. */
static inline int loom_comm_cg_tag(int tag, int round)
{
    uint32_t t = (uint32_t)tag;

    return (int)((t & 0xffffu) | LOOM_COLL_KIND_CREATE << LOOM_COLL_TAG_KIND_SHIFT |
                 ((uint32_t)round & 0x1fu) << LOOM_COLL_TAG_ROOT_SHIFT |
                 (t >> 16 & 0x3fu) << 25);
}

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
