/*
 * comm_int.h: communicators as the core sees them.
 *
 * A communicator is a group (comm rank -> world rank) and a pair of context
 * ids: context_id for user point-to-point traffic, context_id + 1 for the
 * collectives layer, so the two never match each other's messages.
 * Context ids are agreed collectively when a communicator is created
 * (collectives/comm_create.c: an allreduce(MAX) of loom_comm_context_next()),
 * because creation is itself a collective operation.
 */
#ifndef LOOM_COMM_INT_H
#define LOOM_COMM_INT_H

#include <loom.h>
#include "list_int.h"

#include <stdint.h>

#define LOOM_COMM_MAGIC      0x6c636f6du  /* "lcom" */
#define LOOM_COMM_DEAD_MAGIC 0x64656164u  /* "dead": freed */

struct loom_comm {
    uint32_t     magic;
    uint32_t     context_id;   /* even; context_id + 1 is the collective context */
    int          rank;
    int          size;
    int         *world_ranks;  /* comm rank -> world rank; NULL means identity */
    /* Point-to-point addressing: dest/source ranks name these peers. For an
     * intracommunicator remote_size == size and remote_world == world_ranks
     * (not a copy); for an intercommunicator they are the remote group. */
    int          remote_size;
    int         *remote_world; /* peer rank -> world rank; NULL means identity */
    loom_comm_t  local;        /* intercommunicator: its local group as a hidden
                                * intracommunicator (collectives); NULL otherwise */
    uint64_t     coll_seq;     /* collectives started on this comm (tags, hang reports) */
    void        *coll_priv;    /* the collectives layer's per-communicator state */
    void       (*coll_priv_free)(loom_comm_t comm);
    char         name[32];     /* "WORLD", "SELF", "dup(WORLD)#4", for messages */
    loom_list_t  list;         /* all live communicators */
    /* persistent requests on this comm: while any exists a freed comm stays
     * on the live list (its rank maps and context id in use) with the dead
     * magic, and the last one's release destroys it (MPI: a freed comm's
     * pending operations complete normally) */
    unsigned     persist_refs;
};

/** Context id of point-to-point (0) or collective (1) traffic on @p comm. */
#define LOOM_CTX_P2P  0u
#define LOOM_CTX_COLL 1u

static inline uint32_t loom_comm_ctx(loom_comm_t comm, uint32_t which)
{
    return comm->context_id + which;
}

static inline int loom_comm_to_world(loom_comm_t comm, int rank)
{
    return comm->world_ranks ? comm->world_ranks[rank] : rank;
}

/** World rank of point-to-point peer @p rank (the remote group on an intercomm). */
static inline int loom_comm_peer_world(loom_comm_t comm, int rank)
{
    return comm->remote_world ? comm->remote_world[rank] : rank;
}

/**
 * Check that @p comm is usable by operation @p op; logs a clear error
 * ("loom_send: communicator 0x... was freed") and returns
 * LOOM_ERR_INVALID_COMM, or LOOM_ERR_NOT_INITIALIZED before init.
 */
loom_status_t loom_comm_check(loom_comm_t comm, const char *op);

/*
 * Two lanes of context ids: blocking constructors (dup, split, create,
 * create_group) agree on ids below LOOM_COMM_CTX_NB_BASE; nonblocking ones
 * (idup) on ids from it up. A blocking construction that runs while an idup
 * is still agreeing can therefore never pick the idup's id. In the
 * nonblocking lane the leader of the new communicator picks the id from
 * slots of its own (comm.c), so concurrent idups on overlapping parents
 * never collide.
 */
#define LOOM_COMM_CTX_NB_BASE 0x40000000u

/** Context id above every blocking-lane id in use here (for collective agreement). */
uint32_t loom_comm_context_next(void);

/**
 * A nonblocking-lane id for a constructor this process leads: from this
 * world rank's own slots, never handed out before, so no other constructor
 * (led here or elsewhere) ever gets it, nor the id after it (+ 2, which an
 * intercommunicator's hidden local communicator takes).
 * @return LOOM_OK, or LOOM_ERR_NO_RESOURCE once this rank's slots are used up.
 */
loom_status_t loom_comm_context_lead_nb(uint32_t *ctx_p);

/**
 * The id loom_comm_context_lead_nb() would hand out next, without taking it.
 * @return LOOM_OK, or LOOM_ERR_NO_RESOURCE once this rank's slots are used up.
 */
loom_status_t loom_comm_context_peek_nb(uint32_t *ctx_p);

/**
 * Create a communicator object (not collective: the caller agreed on the
 * group and @p context_id). @p world_ranks is copied (NULL = identity).
 */
loom_status_t loom_comm_create_int(const char *name, uint32_t context_id, int rank,
                                   int size, const int *world_ranks,
                                   loom_comm_t *comm_p);

/**
 * Create an intercommunicator object (not collective): local group
 * @p world_ranks (my rank @p rank), remote group @p remote_world, context
 * @p context_id; its hidden local intracommunicator gets @p context_id + 2.
 */
loom_status_t loom_comm_create_inter_int(const char *name, uint32_t context_id, int rank,
                                         int size, const int *world_ranks,
                                         int remote_size, const int *remote_world,
                                         loom_comm_t *comm_p);

/** Destroy a communicator object made by loom_comm_create_int. */
void loom_comm_destroy_int(loom_comm_t comm);

/** A persistent request on @p comm was created: the comm outlives a free until it goes. */
static inline void loom_comm_persist_ref(loom_comm_t comm)
{
    ++comm->persist_refs;
}

/** A persistent request on @p comm was released; a freed comm's last one destroys it. */
void loom_comm_persist_unref(loom_comm_t comm);

/** Find the communicator whose point-to-point or collective context is @p ctx. */
loom_comm_t loom_comm_find_by_context(uint32_t ctx);

/** Set up WORLD and SELF after bootstrap; tear all communicators down. */
loom_status_t loom_comm_init(int world_rank, int world_size);
void loom_comm_cleanup(void);

#endif /* LOOM_COMM_INT_H */
