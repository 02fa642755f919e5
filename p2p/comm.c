/*
 * comm.c: communicator objects, WORLD and SELF, context ids.
 *
 * Context ids: WORLD uses 0 (and 1 for collectives), SELF 2 (and 3); a new
 * communicator gets an even id agreed collectively from
 * loom_comm_context_next(). That function returns an id above every id in
 * use here, not merely the lowest free one: the agreement takes the maximum
 * over the ranks, and only "above all in use" on every rank makes that
 * maximum free on every rank too (with holes, the maximum of lowest-free
 * ids could be in use somewhere).
 *
 * Nonblocking constructors use a second lane of ids (comm_int.h), split
 * among the processes of WORLD: the id is chosen by the new communicator's
 * leader (parent rank 0) alone, from its own interleaved slots (k-th id of
 * world rank w: NB_BASE + 4 (k * world size + w); the id after it, + 2, is
 * the slot's too, for an intercommunicator's hidden local communicator),
 * and spread by an allreduce(MAX) to which the others offer 0 (an
 * intercommunicator has a leader per group: the larger id wins; the other
 * slot is never used). Two constructors with
 * different leaders cannot pick the same id, and one leader never hands out
 * an id twice, so any number of them may be in flight on overlapping
 * parents without a retry or a global step.
 *
 * A freed communicator's memory is kept (marked dead) until finalize, so a
 * stale handle is reported as "freed" instead of being read after free.
 */
#include "p2p_engine_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct loom_comm loom_comm_world_obj;
struct loom_comm loom_comm_self_obj;

static loom_list_t loom_comm_live = LOOM_LIST_HEAD_INIT(loom_comm_live);
static loom_list_t loom_comm_dead = LOOM_LIST_HEAD_INIT(loom_comm_dead);

loom_status_t loom_comm_check(loom_comm_t comm, const char *op)
{
    if (loom_unlikely(loom_p2p_engine.state != LOOM_STATE_INIT)) {
        int before = loom_p2p_engine.state == LOOM_STATE_UNINIT;
        loom_error("p2p", "%s: called %s", op,
                   before ? "before loom_init()" : "after loom_finalize()");
        return before ? LOOM_ERR_NOT_INITIALIZED : LOOM_ERR_FINALIZED;
    }
    if (comm == LOOM_COMM_NULL) {
        loom_error("p2p", "%s: communicator is LOOM_COMM_NULL", op);
        return LOOM_ERR_INVALID_COMM;
    }
    if (comm->magic == LOOM_COMM_DEAD_MAGIC) {
        loom_error("p2p", "%s: communicator %p ('%s') was freed", op, (void *)comm,
                   comm->name);
        return LOOM_ERR_INVALID_COMM;
    }
    if (comm->magic != LOOM_COMM_MAGIC) {
        loom_error("p2p", "%s: %p is not a communicator", op, (void *)comm);
        return LOOM_ERR_INVALID_COMM;
    }
    return LOOM_OK;
}

/* Above every live id of the lane [lo, hi). */
static uint32_t loom_comm_context_above(uint32_t lo, uint32_t hi)
{
    uint32_t next = lo;
    loom_comm_t c;

    loom_list_for_each(c, &loom_comm_live, list) {
        if (c->context_id >= lo && c->context_id < hi && c->context_id + 2 > next) {
            next = c->context_id + 2;
        }
    }
    return next;
}

uint32_t loom_comm_context_next(void)
{
    return loom_comm_context_above(0, LOOM_COMM_CTX_NB_BASE);
}

/* Ids this process has handed out as the leader of a nonblocking constructor. */
static uint32_t loom_comm_ctx_nb_led = 0;

/* This rank's next slot of the nonblocking lane, or LOOM_ERR_NO_RESOURCE (silent). */
loom_status_t loom_comm_context_peek_nb(uint32_t *ctx_p)
{
    uint32_t nworld = (uint32_t)loom_comm_world_obj.size;
    uint32_t me     = (uint32_t)loom_comm_world_obj.rank;
    uint32_t slots  = (UINT32_MAX - LOOM_COMM_CTX_NB_BASE) / 4u / nworld;

    if (loom_comm_ctx_nb_led >= slots) {
        return LOOM_ERR_NO_RESOURCE;
    }
    *ctx_p = LOOM_COMM_CTX_NB_BASE + 4u * (loom_comm_ctx_nb_led * nworld + me);
    return LOOM_OK;
}

loom_status_t loom_comm_context_lead_nb(uint32_t *ctx_p)
{
    loom_status_t st = loom_comm_context_peek_nb(ctx_p);

    if (st != LOOM_OK) {
        loom_error("p2p", "rank %d: out of nonblocking context ids (led %u, the limit at "
                   "%d ranks is %u)", loom_comm_world_obj.rank, loom_comm_ctx_nb_led,
                   loom_comm_world_obj.size,
                   (UINT32_MAX - LOOM_COMM_CTX_NB_BASE) / 4u / (uint32_t)loom_comm_world_obj.size);
        return st;
    }
    loom_comm_ctx_nb_led++;
    return LOOM_OK;
}

static void loom_comm_fill(loom_comm_t comm, const char *name, uint32_t context_id,
                           int rank, int size, int *world_ranks)
{
    comm->magic          = LOOM_COMM_MAGIC;
    comm->context_id     = context_id;
    comm->rank           = rank;
    comm->size           = size;
    comm->world_ranks    = world_ranks;
    comm->remote_size    = size;
    comm->remote_world   = world_ranks;
    comm->local          = NULL;
    comm->coll_seq       = 0;
    comm->coll_priv      = NULL;
    comm->coll_priv_free = NULL;
    comm->persist_refs   = 0;
    snprintf(comm->name, sizeof(comm->name), "%s", name);
    loom_list_add_tail(&loom_comm_live, &comm->list);
}

loom_status_t loom_comm_create_int(const char *name, uint32_t context_id, int rank,
                                   int size, const int *world_ranks,
                                   loom_comm_t *comm_p)
{
    loom_comm_t comm;
    int *ranks = NULL;

    if ((context_id & 1u) != 0 || loom_comm_find_by_context(context_id) != NULL) {
        loom_error("p2p", "communicator '%s': context id %u is odd or in use", name,
                   context_id);
        return LOOM_ERR_INTERNAL;
    }
    comm = calloc(1, sizeof(*comm));
    if (comm == NULL) {
        loom_error("p2p", "communicator '%s': out of memory", name);
        return LOOM_ERR_NO_MEMORY;
    }
    if (world_ranks != NULL) {
        ranks = malloc((size_t)size * sizeof(*ranks));
        if (ranks == NULL) {
            loom_error("p2p", "communicator '%s': out of memory for %d ranks", name,
                       size);
            free(comm);
            return LOOM_ERR_NO_MEMORY;
        }
        memcpy(ranks, world_ranks, (size_t)size * sizeof(*ranks));
    }
    loom_comm_fill(comm, name, context_id, rank, size, ranks);
    loom_debug("p2p", "communicator '%s': context %u, rank %d of %d", name, context_id,
               rank, size);
    *comm_p = comm;
    return LOOM_OK;
}

static void loom_comm_release_parts(loom_comm_t comm)
{
    if (comm->coll_priv_free != NULL) {
        comm->coll_priv_free(comm);
    }
    comm->coll_priv = NULL;
    comm->coll_priv_free = NULL;
    if (comm->remote_world != comm->world_ranks) {
        free(comm->remote_world);
    }
    free(comm->world_ranks);
    comm->world_ranks = NULL;
    comm->remote_world = NULL;
    if (comm->local != NULL) {
        loom_comm_destroy_int(comm->local);
        comm->local = NULL;
    }
    loom_list_del(&comm->list);
}

loom_status_t loom_comm_create_inter_int(const char *name, uint32_t context_id, int rank,
                                         int size, const int *world_ranks,
                                         int remote_size, const int *remote_world,
                                         loom_comm_t *comm_p)
{
    char lname[32];
    loom_comm_t comm = LOOM_COMM_NULL, local = LOOM_COMM_NULL;
    int *remote = malloc((size_t)remote_size * sizeof(*remote));
    loom_status_t st = LOOM_ERR_NO_MEMORY;

    if (remote == NULL) {
        loom_error("p2p", "intercommunicator '%s': out of memory for %d remote ranks",
                   name, remote_size);
        return st;
    }
    memcpy(remote, remote_world, (size_t)remote_size * sizeof(*remote));
    snprintf(lname, sizeof(lname), "local(%.20s)", name);
    st = loom_comm_create_int(lname, context_id + 2, rank, size, world_ranks, &local);
    if (st == LOOM_OK) {
        st = loom_comm_create_int(name, context_id, rank, size, world_ranks, &comm);
    }
    if (st != LOOM_OK) {
        free(remote);
        if (local != LOOM_COMM_NULL) {
            loom_comm_destroy_int(local);
        }
        return st;
    }
    comm->remote_size  = remote_size;
    comm->remote_world = remote;
    comm->local        = local;
    *comm_p = comm;
    return LOOM_OK;
}

void loom_comm_destroy_int(loom_comm_t comm)
{
    loom_comm_release_parts(comm);
    comm->magic = LOOM_COMM_DEAD_MAGIC;
    loom_list_add_tail(&loom_comm_dead, &comm->list);
}

loom_comm_t loom_comm_find_by_context(uint32_t ctx)
{
    loom_comm_t c;

    loom_list_for_each(c, &loom_comm_live, list) {
        if (c->context_id == (ctx & ~1u)) {
            return c;
        }
    }
    return NULL;
}

loom_status_t loom_comm_init(int world_rank, int world_size)
{
    int *self_rank = malloc(sizeof(*self_rank));

    if (self_rank == NULL) {
        loom_error("p2p", "out of memory creating LOOM_COMM_SELF");
        return LOOM_ERR_NO_MEMORY;
    }
    *self_rank = world_rank;
    loom_list_init(&loom_comm_live);
    loom_list_init(&loom_comm_dead);
    loom_comm_fill(&loom_comm_world_obj, "WORLD", 0, world_rank, world_size, NULL);
    loom_comm_fill(&loom_comm_self_obj, "SELF", 2, 0, 1, self_rank);
    return LOOM_OK;
}

void loom_comm_cleanup(void)
{
    loom_comm_t c, tmp;

    loom_list_for_each(c, &loom_comm_live, list) {
        c->local = NULL;   /* a hidden local comm is on this list itself */
    }
    loom_list_for_each_safe(c, tmp, &loom_comm_live, list) {
        loom_comm_release_parts(c);
        c->magic = LOOM_COMM_DEAD_MAGIC;
        if (c != LOOM_COMM_WORLD && c != LOOM_COMM_SELF) {
            free(c);
        }
    }
    loom_list_for_each_safe(c, tmp, &loom_comm_dead, list) {
        loom_list_del(&c->list);
        free(c);
    }
    /* WORLD and SELF read as "not initialized" again, not "freed" */
    loom_comm_world_obj.magic = 0;
    loom_comm_self_obj.magic  = 0;
}

/* ---- public ------------------------------------------------------------------- */

int loom_comm_rank(loom_comm_t comm)
{
    LOOM_MT_GUARD();
    return loom_comm_check(comm, "loom_comm_rank") == LOOM_OK ? comm->rank : -1;
}

int loom_comm_size(loom_comm_t comm)
{
    LOOM_MT_GUARD();
    return loom_comm_check(comm, "loom_comm_size") == LOOM_OK ? comm->size : -1;
}

int loom_comm_world_rank(loom_comm_t comm, int rank)
{
    LOOM_MT_GUARD();
    if (loom_comm_check(comm, "loom_comm_world_rank") != LOOM_OK) {
        return -1;
    }
    if (rank < 0 || rank >= comm->size) {
        loom_error("p2p", "loom_comm_world_rank: rank %d is out of range for "
                   "communicator '%s' of size %d", rank, comm->name, comm->size);
        return -1;
    }
    return loom_comm_to_world(comm, rank);
}

loom_status_t loom_comm_free(loom_comm_t *comm_p)
{
    LOOM_MT_GUARD();
    loom_status_t st;

    if (comm_p == NULL) {
        loom_error("p2p", "loom_comm_free: comm_p is NULL");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_comm_free");
    }
    st = loom_comm_check(*comm_p, "loom_comm_free");
    if (st != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_free");
    }
    if (*comm_p == LOOM_COMM_WORLD || *comm_p == LOOM_COMM_SELF) {
        loom_error("p2p", "loom_comm_free: LOOM_COMM_%s cannot be freed",
                   (*comm_p)->name);
        return loom_p2p_error(LOOM_ERR_INVALID_COMM, "loom_comm_free");
    }
    if ((*comm_p)->persist_refs > 0) {
        /* marked for deallocation: unusable by name, kept for its requests */
        (*comm_p)->magic = LOOM_COMM_DEAD_MAGIC;
    } else {
        loom_comm_destroy_int(*comm_p);
    }
    *comm_p = LOOM_COMM_NULL;
    return LOOM_OK;
}

void loom_comm_persist_unref(loom_comm_t comm)
{
    if (--comm->persist_refs == 0 && comm->magic == LOOM_COMM_DEAD_MAGIC &&
        comm != LOOM_COMM_WORLD && comm != LOOM_COMM_SELF) {
        loom_comm_destroy_int(comm);   /* freed while the request existed */
    }
}

/* ---- engine-private --------------------------------------------------------------- */

loom_comm_t loom_comm_live_next(loom_comm_t prev)
{
    loom_list_t *next = prev == NULL ? loom_comm_live.next : prev->list.next;

    return next == &loom_comm_live ? NULL : loom_list_entry(next, struct loom_comm, list);
}

int loom_comm_has_world(loom_comm_t comm, int world_rank)
{
    if (comm->remote_world == NULL) {
        return world_rank >= 0 && world_rank < comm->remote_size;
    }
    for (int i = 0; i < comm->remote_size; ++i) {
        if (comm->remote_world[i] == world_rank) {
            return 1;
        }
    }
    return 0;
}
