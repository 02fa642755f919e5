/*
 * comm_create.c: loom_comm_dup and loom_comm_split, the communicator
 * constructors that need collectives.
 *
 *   dup:   allreduce(MAX) of loom_comm_context_next() -> same group, new id
 *   split: allgather (color, key) of every rank; allreduce(MAX) of the
 *          next context id; the ranks of my color, ordered by (key, old
 *          rank), form the new group (one id serves every color: the groups
 *          are disjoint, so no process sees two of them)
 *   create: a split whose color is the list's first member and whose key
 *          is the position in the list (disjoint lists = distinct colors);
 *          the result is checked against the list
 *   create_group: only the listed ranks agree, by a dissemination
 *          allreduce(MAX) of loom_comm_context_next() in point-to-point
 *          messages on the parent's collective context (kind
 *          LOOM_COLL_KIND_CREATE, so no collective's tag and the mismatch
 *          check ignores them; the caller's tag and the round are in the
 *          rest of the tag). An id above everything each member uses is free
 *          on every member, and disjoint lists may share it (they share no
 *          process), so disjoint groups run at once without a global step.
 *   split_type: a split whose color is the host's node index
 *   idup:  a generic request around an iallreduce(MAX) that spreads the
 *          id the parent's rank 0 takes from its own slots of the
 *          nonblocking lane (comm_int.h; the others offer 0): ids led by different processes differ and one
 *          leader never repeats one, so idups on overlapping parents in
 *          flight at once cannot collide (an allreduce(MAX) of per-process
 *          offers could: two processes reserving in opposite orders offer
 *          the same maximum to both). A result of 0 = the leader ran out of
 *          ids. The communicator is made when the iallreduce completes.
 *
 * MPI_THREAD_MULTIPLE: two threads may create communicators on different
 * parents at once, and each creation waits (yielding the engine lock)
 * between taking loom_comm_context_next() and creating the communicator,
 * so two interleaved creations would offer the same "above every live id"
 * and agree on it twice (or, offered in opposite orders on two processes,
 * on the same maximum). So when any member runs at MULTIPLE the blocking
 * constructors take their id as idup does: the leader (rank 0 of the
 * parent, or of the list) offers the next id of its own slots of the
 * nonblocking lane and the agreement takes it; ids led by different
 * processes differ and one leader never repeats one, so no retry and no
 * global step are needed. Processes may run at different levels, so the
 * agreement itself carries "somebody runs at MULTIPLE" and picks the lane
 * (loom_comm_ctx_offer): a process alone cannot know which lane its peers
 * use. When no member runs at MULTIPLE the dense lane is kept.
 */
#include "coll_int.h"
#include "coll_api_int.h"
#include "log_int.h"
#include "bootstrap_int.h"
#include "group_int.h"
#include "inter_int.h"
#include "mt_int.h"

#include <stdio.h>
#include <stdlib.h>

static loom_status_t loom_inter_dup(loom_comm_t inter, loom_comm_t *newcomm_p);
static loom_status_t loom_inter_idup(loom_comm_t inter, loom_comm_t *newcomm_p,
                                     loom_request_t *req_p);
static loom_status_t loom_inter_create(loom_comm_t inter, int n, const int ranks[],
                                       loom_comm_t *newcomm_p);
static loom_status_t loom_inter_split(loom_comm_t inter, int color, int key,
                                      loom_comm_t *newcomm_p);

/* Constructors defined for intracommunicators only refuse an intercomm. */
static loom_status_t loom_comm_intra_only(loom_comm_t comm, const char *who)
{
    if (comm->local == NULL) {
        return LOOM_OK;
    }
    loom_error("coll", "%s: '%s' is an intercommunicator (not supported here)", who,
               comm->name);
    return loom_p2p_error(LOOM_ERR_INVALID_COMM, who);
}

/*
 * What this process offers to a MAX agreement on a new context id (three
 * values, each reduced by MAX): [LOOM_CTX_OFFER_MT] 1 when this process
 * runs at MULTIPLE, [LOOM_CTX_OFFER_DENSE] an id above every live id of the
 * dense lane, [LOOM_CTX_OFFER_SLOT] from the leader its next slot of the
 * nonblocking lane (0 from the others, or when out of ids). Processes may
 * run at different thread levels, so the lane is chosen by the agreement,
 * never by one process alone: the slot when any member runs at MULTIPLE,
 * the dense id when none does. A leader at MULTIPLE takes its slot now
 * (another thread may lead a creation meanwhile); one at a lower level
 * only looks at it, and takes it when the slot was chosen.
 */
enum { LOOM_CTX_OFFER_MT, LOOM_CTX_OFFER_DENSE, LOOM_CTX_OFFER_SLOT, LOOM_CTX_OFFER_N };

static void loom_comm_ctx_offer(int leader, uint32_t offer[LOOM_CTX_OFFER_N])
{
    offer[LOOM_CTX_OFFER_MT]    = loom_mt_active ? 1u : 0u;
    offer[LOOM_CTX_OFFER_DENSE] = loom_comm_context_next();
    offer[LOOM_CTX_OFFER_SLOT]  = 0;
    if (leader) {
        loom_status_t st = loom_mt_active ? loom_comm_context_lead_nb(&offer[LOOM_CTX_OFFER_SLOT])
                           : loom_comm_context_peek_nb(&offer[LOOM_CTX_OFFER_SLOT]);
        if (st != LOOM_OK) {
            offer[LOOM_CTX_OFFER_SLOT] = 0;
        }
    }
}

/* The agreed id, or LOOM_ERR_NO_RESOURCE when the leader had no slot to offer. */
static loom_status_t loom_comm_ctx_agreed(loom_comm_t comm, int leader,
                                          const uint32_t agreed[LOOM_CTX_OFFER_N],
                                          uint32_t *ctx_p)
{
    uint32_t slot = agreed[LOOM_CTX_OFFER_SLOT], taken = 0;

    if (agreed[LOOM_CTX_OFFER_MT] == 0) {
        *ctx_p = agreed[LOOM_CTX_OFFER_DENSE];
        return LOOM_OK;
    }
    if (slot == 0) {
        loom_error("coll", "rank %d of '%s': the leader of this communicator creation is "
                   "out of context ids", comm->rank, comm->name);
        return LOOM_ERR_NO_RESOURCE;
    }
    if (leader && !loom_mt_active &&
        (loom_comm_context_lead_nb(&taken) != LOOM_OK || taken != slot)) {
        loom_error("coll", "rank %d of '%s': the context id %u this leader offered is no "
                   "longer its next one (%u)", comm->rank, comm->name, slot, taken);
        return LOOM_ERR_INTERNAL;
    }
    *ctx_p = slot;
    return LOOM_OK;
}

static loom_status_t loom_comm_agree_context(loom_comm_t comm, uint32_t *ctx_p)
{
    uint32_t mine[LOOM_CTX_OFFER_N], agreed[LOOM_CTX_OFFER_N] = {0, 0, 0};
    loom_status_t st;

    loom_comm_ctx_offer(comm->rank == 0, mine);
    st = loom_allreduce(mine, agreed, LOOM_CTX_OFFER_N, LOOM_UINT32, LOOM_MAX, comm);
    if (st == LOOM_OK) {
        st = loom_comm_ctx_agreed(comm, comm->rank == 0, agreed, ctx_p);
    }
    return st;
}

/*
 * The start constructors share: the caller's handle reads LOOM_COMM_NULL if
 * the call fails; @p comm is a live communicator; @p newcomm_p is not NULL.
 */
static loom_status_t loom_comm_ctor_args(loom_comm_t comm, loom_comm_t *newcomm_p,
                                         const char *who)
{
    loom_status_t st;

    if (newcomm_p != NULL) {
        *newcomm_p = LOOM_COMM_NULL;   /* what the caller holds if this fails */
    }
    if ((st = loom_comm_check(comm, who)) != LOOM_OK) {
        return loom_p2p_error(st, who);
    }
    if (newcomm_p == NULL) {
        loom_error("coll", "%s: newcomm_p is NULL", who);
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, who);
    }
    return LOOM_OK;
}

loom_status_t loom_comm_dup(loom_comm_t comm, loom_comm_t *newcomm_p)
{
    LOOM_MT_GUARD();
    char name[32];
    uint32_t ctx;
    loom_status_t st;

    if ((st = loom_comm_ctor_args(comm, newcomm_p, "loom_comm_dup")) != LOOM_OK) {
        return st;
    }
    if (comm->local != NULL) {
        return loom_inter_dup(comm, newcomm_p);
    }
    if ((st = loom_comm_agree_context(comm, &ctx)) != LOOM_OK) {
        return st;
    }
    snprintf(name, sizeof(name), "dup(%.20s)#%u", comm->name, ctx);
    st = loom_comm_create_int(name, ctx, comm->rank, comm->size, comm->world_ranks,
                              newcomm_p);
    return st == LOOM_OK ? st : loom_p2p_error(st, "loom_comm_dup");
}

typedef struct { int color, key, rank; } loom_split_entry_t;

static int loom_split_cmp(const void *a, const void *b)
{
    const loom_split_entry_t *x = a, *y = b;
    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Members of @p color from the gathered (color, key) pairs, in new-rank order. */
static loom_status_t loom_split_build(loom_comm_t comm, const int *ck, int color,
                                      uint32_t ctx, loom_comm_t *newcomm_p)
{
    loom_split_entry_t *e = malloc((size_t)comm->size * sizeof(*e));
    int *world = malloc((size_t)comm->size * sizeof(*world));
    int n = 0, me = -1;
    char name[32];
    loom_status_t st = LOOM_ERR_NO_MEMORY;

    if (e == NULL || world == NULL) {
        loom_error("coll", "loom_comm_split: out of memory for %d ranks", comm->size);
        goto out_free;
    }
    for (int r = 0; r < comm->size; ++r) {
        if (ck[2 * r] == color) {
            e[n++] = (loom_split_entry_t){color, ck[2 * r + 1], r};
        }
    }
    qsort(e, (size_t)n, sizeof(*e), loom_split_cmp);
    for (int i = 0; i < n; ++i) {
        world[i] = loom_comm_to_world(comm, e[i].rank);
        if (e[i].rank == comm->rank) {
            me = i;
        }
    }
    snprintf(name, sizeof(name), "split(%.12s)#%d", comm->name, color & 0xffffff);
    st = loom_comm_create_int(name, ctx, me, n, world, newcomm_p);
out_free:
    free(world);
    free(e);
    return st;
}

loom_status_t loom_comm_split(loom_comm_t comm, int color, int key, loom_comm_t *newcomm_p)
{
    LOOM_MT_GUARD();
    int mine[2] = {color, key}, *all;
    uint32_t ctx;
    loom_status_t st;

    if (newcomm_p != NULL) {
        *newcomm_p = LOOM_COMM_NULL;   /* what the caller holds if this fails */
    }
    if ((st = loom_comm_check(comm, "loom_comm_split")) != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_split");
    }
    if (newcomm_p == NULL || (color < 0 && color != LOOM_UNDEFINED)) {
        loom_error("coll", "loom_comm_split: %s", newcomm_p == NULL ? "newcomm_p is NULL"
                   : "color must be >= 0 or LOOM_UNDEFINED");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_comm_split");
    }
    if (comm->local != NULL) {
        return loom_inter_split(comm, color, key, newcomm_p);
    }
    all = malloc((size_t)comm->size * 2 * sizeof(int));
    if (all == NULL) {
        loom_error("coll", "loom_comm_split: out of memory for %d ranks", comm->size);
        return loom_p2p_error(LOOM_ERR_NO_MEMORY, "loom_comm_split");
    }
    st = loom_allgather(mine, all, 2, LOOM_INT32, comm);
    if (st == LOOM_OK) {
        st = loom_comm_agree_context(comm, &ctx);
    }
    if (st == LOOM_OK) {
        if (color == LOOM_UNDEFINED) {
            *newcomm_p = LOOM_COMM_NULL;
        } else {
            st = loom_split_build(comm, all, color, ctx, newcomm_p);
        }
    }
    free(all);
    return st < 0 ? loom_p2p_error(st, "loom_comm_split") : st;
}

/* ---- create: from a list of ranks, collective over the parent ------------------- */

/* Does the new communicator hold exactly the listed ranks, in list order? */
static int loom_comm_matches(loom_comm_t comm, loom_comm_t newcomm, int n,
                             const int ranks[])
{
    if (newcomm->size != n) {
        return 0;
    }
    for (int i = 0; i < n; ++i) {
        if (loom_comm_to_world(newcomm, i) != loom_comm_to_world(comm, ranks[i])) {
            return 0;
        }
    }
    return 1;
}

/* Position of this process in the rank list, or -1. */
static int loom_comm_list_pos(loom_comm_t comm, int n, const int ranks[])
{
    for (int i = 0; i < n; ++i) {
        if (ranks[i] == comm->rank) {
            return i;
        }
    }
    return -1;
}

loom_status_t loom_comm_create(loom_comm_t comm, int n, const int ranks[],
                               loom_comm_t *newcomm_p)
{
    LOOM_MT_GUARD();
    loom_status_t st, bad;
    int me;

    if ((st = loom_comm_ctor_args(comm, newcomm_p, "loom_comm_create")) != LOOM_OK) {
        return st;
    }
    if (comm->local != NULL) {
        return loom_inter_create(comm, n, ranks, newcomm_p);
    }
    /* a bad list still takes part (as a non-member): the others do not hang */
    bad = loom_group_check_ranks(comm->size, n, ranks);
    if (bad != LOOM_OK) {
        loom_error("coll", "loom_comm_create: the list of %d ranks of '%s' (size %d) has "
                   "a rank out of range or twice", n, comm->name, comm->size);
    }
    me = bad == LOOM_OK ? loom_comm_list_pos(comm, n, ranks) : -1;
    st = loom_comm_split(comm, me >= 0 ? ranks[0] : LOOM_UNDEFINED, me, newcomm_p);
    if (st == LOOM_OK && *newcomm_p != LOOM_COMM_NULL &&
        !loom_comm_matches(comm, *newcomm_p, n, ranks)) {
        loom_error("coll", "loom_comm_create on '%s': rank %d's list of %d ranks differs "
                   "from the list of another member (%d members share its first rank)",
                   comm->name, comm->rank, n, (*newcomm_p)->size);
        loom_comm_destroy_int(*newcomm_p);
        *newcomm_p = LOOM_COMM_NULL;
        st = LOOM_ERR_INVALID_ARG;
    } else if (st == LOOM_OK && bad != LOOM_OK) {
        st = bad;
    }
    return st < 0 ? loom_p2p_error(st, "loom_comm_create") : st;
}

/* ---- create_group: collective over the listed ranks only ------------------------- */

/* Send val[] to @p to, receive from @p from, keep the maximum of each. */
static loom_status_t loom_comm_cg_exchange(loom_comm_t comm, int to, int from, int tag,
                                           uint32_t val[LOOM_CTX_OFFER_N])
{
    uint32_t in[LOOM_CTX_OFFER_N] = {0, 0, 0};
    loom_request_t rreq, sreq;
    loom_status_t st, st2;

    st = loom_p2p_irecv_int(in, sizeof(in), from, tag, comm, LOOM_CTX_COLL, &rreq);
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_p2p_isend_int(val, sizeof(in), to, tag, comm, LOOM_CTX_COLL, 0, &sreq);
    if (st != LOOM_OK) {
        loom_request_t r = rreq;
        (void)loom_cancel(&r);
        (void)loom_request_wait_int(rreq, NULL);
        return st;
    }
    st  = loom_request_wait_int(rreq, NULL);
    st2 = loom_request_wait_int(sreq, NULL);
    for (int k = 0; st == LOOM_OK && k < LOOM_CTX_OFFER_N; ++k) {
        val[k] = in[k] > val[k] ? in[k] : val[k];
    }
    return st != LOOM_OK ? st : st2;
}

/* Agree with the other @p n - 1 listed ranks (me = position) on a context id. */
static loom_status_t loom_comm_cg_agree(loom_comm_t comm, int n, const int ranks[], int me,
                                        int tag, uint32_t *ctx_p)
{
    uint32_t val[LOOM_CTX_OFFER_N];
    loom_status_t st;
    int round = 0;

    loom_comm_ctx_offer(me == 0, val);
    for (int k = 1; k < n; k <<= 1, ++round) {
        st = loom_comm_cg_exchange(comm, ranks[(me + k) % n], ranks[(me - k + n) % n],
                                   loom_comm_cg_tag(tag, round), val);
        if (st != LOOM_OK) {
            loom_error("coll", "loom_comm_create_group on '%s' (tag %d): agreeing on a "
                       "context id with ranks %d and %d failed: %s", comm->name, tag,
                       ranks[(me + k) % n], ranks[(me - k + n) % n], loom_strerror(st));
            return st;
        }
    }
    return loom_comm_ctx_agreed(comm, me == 0, val, ctx_p);
}

/* The communicator of the listed ranks with context @p ctx. */
static loom_status_t loom_comm_from_list(loom_comm_t comm, const char *what, int n,
                                         const int ranks[], int me, uint32_t ctx,
                                         loom_comm_t *newcomm_p)
{
    int *world = malloc((size_t)n * sizeof(*world));
    char name[32];
    loom_status_t st;

    if (world == NULL) {
        loom_error("coll", "%s: out of memory for %d ranks", what, n);
        return LOOM_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; ++i) {
        world[i] = loom_comm_to_world(comm, ranks[i]);
    }
    snprintf(name, sizeof(name), "group(%.12s)#%u", comm->name, ctx);
    st = loom_comm_create_int(name, ctx, me, n, world, newcomm_p);
    free(world);
    return st;
}

static loom_status_t loom_comm_cg_check(loom_comm_t comm, int n, const int ranks[],
                                        int tag, loom_comm_t *newcomm_p)
{
    loom_status_t st = loom_comm_check(comm, "loom_comm_create_group");

    if (st != LOOM_OK) {
        return st;
    }
    if (comm->local != NULL) {
        return loom_comm_intra_only(comm, "loom_comm_create_group");
    }
    if (newcomm_p == NULL) {
        loom_error("coll", "loom_comm_create_group: newcomm_p is NULL");
        return LOOM_ERR_INVALID_ARG;
    }
    if (tag < 0) {
        loom_error("coll", "loom_comm_create_group: tag %d is negative", tag);
        return LOOM_ERR_INVALID_TAG;
    }
    st = loom_group_check_ranks(comm->size, n, ranks);
    if (st != LOOM_OK) {
        loom_error("coll", "loom_comm_create_group: the list of %d ranks of '%s' (size %d) "
                   "has a rank out of range or twice", n, comm->name, comm->size);
    }
    return st;
}

loom_status_t loom_comm_create_group(loom_comm_t comm, int n, const int ranks[], int tag,
                                     loom_comm_t *newcomm_p)
{
    LOOM_MT_GUARD();
    uint32_t ctx;
    loom_status_t st;
    int me;

    if (newcomm_p != NULL) {
        *newcomm_p = LOOM_COMM_NULL;
    }
    if ((st = loom_comm_cg_check(comm, n, ranks, tag, newcomm_p)) != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_create_group");
    }
    me = loom_comm_list_pos(comm, n, ranks);
    if (me < 0) {
        return LOOM_OK;            /* not a member: nothing to agree on */
    }
    st = loom_comm_cg_agree(comm, n, ranks, me, tag, &ctx);
    if (st == LOOM_OK) {
        st = loom_comm_from_list(comm, "loom_comm_create_group", n, ranks, me, ctx,
                                 newcomm_p);
    }
    return st < 0 ? loom_p2p_error(st, "loom_comm_create_group") : st;
}

/* ---- split_type --------------------------------------------------------------------- */

loom_status_t loom_comm_split_type(loom_comm_t comm, int type, int key,
                                   loom_comm_t *newcomm_p)
{
    LOOM_MT_GUARD();
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    int color = LOOM_UNDEFINED;
    loom_status_t st;

    if (newcomm_p != NULL) {
        *newcomm_p = LOOM_COMM_NULL;
    }
    if ((st = loom_comm_check(comm, "loom_comm_split_type")) != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_split_type");
    }
    if ((st = loom_comm_intra_only(comm, "loom_comm_split_type")) != LOOM_OK) {
        return st;
    }
    if (type == LOOM_COMM_TYPE_SHARED) {
        int w = loom_comm_to_world(comm, comm->rank);
        color = info != NULL && info->node_of_rank != NULL ? info->node_of_rank[w] : 0;
    } else if (type != LOOM_UNDEFINED) {
        /* still take part (as LOOM_UNDEFINED), so the other ranks do not hang */
        loom_error("coll", "loom_comm_split_type on '%s': unknown split type %d (only "
                   "LOOM_COMM_TYPE_SHARED or LOOM_UNDEFINED)", comm->name, type);
    }
    st = loom_comm_split(comm, color, key, newcomm_p);
    if (st == LOOM_OK && type != LOOM_COMM_TYPE_SHARED && type != LOOM_UNDEFINED) {
        st = loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_comm_split_type");
    }
    return st;
}

/* ---- idup ----------------------------------------------------------------------------- */

typedef struct loom_comm_idup_state {
    uint32_t        mine;       /* the leader's id at rank 0, 0 elsewhere */
    uint32_t        agreed;     /* the leader's id, spread (0: it had none) */
    loom_request_t  child;      /* the iallreduce(MAX) that spreads it */
    loom_comm_t     parent;
    loom_comm_t    *newcomm_p;  /* written at completion */
} loom_comm_idup_state_t;

_Static_assert(sizeof(loom_comm_idup_state_t) <= LOOM_REQ_PRIV_SIZE,
               "the idup state must fit in a request's private area");

static loom_status_t loom_comm_idup_step(loom_request_t req)
{
    loom_comm_idup_state_t *s = (loom_comm_idup_state_t *)(void *)req->priv;
    loom_comm_t parent = s->parent;
    char name[32];
    loom_status_t st;

    if (!loom_request_is_complete(s->child)) {
        return LOOM_INPROGRESS;
    }
    st = s->child->status;
    loom_request_release(s->child);
    s->child = LOOM_REQUEST_NULL;
    if (st != LOOM_OK) {
        return st;
    }
    if (s->agreed == 0) {
        loom_error("coll", "loom_comm_idup of '%s': its rank 0 has no context id left",
                   parent->name);
        return LOOM_ERR_NO_RESOURCE;
    }
    snprintf(name, sizeof(name), "idup(%.14s)#%u", parent->name, s->agreed);
    st = loom_comm_create_int(name, s->agreed, parent->rank, parent->size,
                              parent->world_ranks, s->newcomm_p);
    if (st != LOOM_OK) {
        loom_error("coll", "loom_comm_idup of '%s': context id %u from its rank 0 is "
                   "taken here", parent->name, s->agreed);
    }
    return st;
}

/*
 * An idup holds its parent (as a persistent request does) until it
 * completes: MPI lets the parent be freed while the idup is pending (by
 * this thread, or under MPI_THREAD_MULTIPLE by another), and the iallreduce
 * and the new communicator still read it.
 */
static loom_status_t loom_comm_idup_progress(loom_request_t req)
{
    loom_comm_t parent = ((loom_comm_idup_state_t *)(void *)req->priv)->parent;
    loom_status_t st = loom_comm_idup_step(req);

    if (st != LOOM_INPROGRESS) {
        loom_comm_persist_unref(parent);
    }
    return st;
}

loom_status_t loom_comm_idup(loom_comm_t comm, loom_comm_t *newcomm_p,
                             loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    loom_comm_idup_state_t *s;
    loom_request_t req;
    loom_status_t st;

    if ((st = loom_comm_ctor_args(comm, newcomm_p, "loom_comm_idup")) != LOOM_OK) {
        return st;
    }
    if (req_p == NULL) {
        loom_error("coll", "loom_comm_idup: req_p is NULL");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_comm_idup");
    }
    if (comm->local != NULL) {
        return loom_inter_idup(comm, newcomm_p, req_p);
    }
    st = loom_request_generic_alloc(comm, "comm_idup", loom_comm_idup_progress, NULL, &req);
    if (st != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_idup");
    }
    s = (loom_comm_idup_state_t *)(void *)req->priv;
    *s = (loom_comm_idup_state_t){ .parent = comm, .newcomm_p = newcomm_p };
    if (comm->rank == 0 && loom_comm_context_lead_nb(&s->mine) != LOOM_OK) {
        s->mine = 0;  /* the others learn it from the result */
    }
    loom_comm_persist_ref(comm);
    st = loom_iallreduce(&s->mine, &s->agreed, 1, LOOM_UINT32, LOOM_MAX, comm, &s->child);
    if (st != LOOM_OK) {
        loom_comm_persist_unref(comm);
        loom_request_release(req);
        return loom_p2p_error(st, "loom_comm_idup");
    }
    loom_request_generic_start(req);
    *req_p = req;
    return LOOM_OK;
}

/* ---- intercommunicators ------------------------------------------------------------ */
/*
 * Intercomm_create: each group agrees on a context id by allreduce(MAX) on
 * its local comm; the leaders swap {size, id} and then the world ranks of
 * their groups over peer_comm with the caller's tag, take the larger id and
 * broadcast {status, remote size, id} and the remote ranks on the local
 * comm. The intercomm uses id, its hidden local intracomm id + 2 (both are
 * above every id in use on every member of both groups). A bad argument at
 * a leader travels in the broadcast status, so every member fails alike.
 *
 * Intercomm-internal agreements (dup, split, merge) use the same shape over
 * the intercomm itself: local step on the hidden local comm, leader (local
 * rank 0) to leader swap on the intercomm's collective context, local bcast.
 */

/* Context id free on every member of both groups of @p inter (and id + 2). */
static loom_status_t loom_inter_agree_context(loom_comm_t inter, uint32_t *ctx_p)
{
    uint32_t mine, theirs = 0;
    loom_status_t st = loom_comm_agree_context(inter->local, &mine);

    if (st == LOOM_OK) {
        st = loom_inter_exchange(inter, &mine, sizeof(mine), &theirs, sizeof(theirs));
    }
    *ctx_p = mine > theirs ? mine : theirs;
    return st;
}

static int *loom_comm_world_list(loom_comm_t comm)
{
    int *w = malloc((size_t)comm->size * sizeof(*w));

    for (int i = 0; w != NULL && i < comm->size; ++i) {
        w[i] = loom_comm_to_world(comm, i);
    }
    return w;
}

int loom_comm_is_inter(loom_comm_t comm)
{
    LOOM_MT_GUARD();
    return loom_comm_check(comm, "loom_comm_is_inter") == LOOM_OK && comm->local != NULL;
}

int loom_comm_remote_size(loom_comm_t comm)
{
    LOOM_MT_GUARD();
    if (loom_comm_check(comm, "loom_comm_remote_size") != LOOM_OK) {
        return -1;
    }
    return comm->local != NULL ? comm->remote_size : 0;
}

int loom_comm_remote_world_rank(loom_comm_t comm, int rank)
{
    LOOM_MT_GUARD();
    if (loom_comm_check(comm, "loom_comm_remote_world_rank") != LOOM_OK ||
        comm->local == NULL || rank < 0 || rank >= comm->remote_size) {
        loom_error("p2p", "loom_comm_remote_world_rank: rank %d is not a remote rank "
                   "of intercommunicator %p", rank, (void *)comm);
        return -1;
    }
    return loom_comm_peer_world(comm, rank);
}

static int loom_inter_in_group(loom_comm_t comm, int world_rank)
{
    for (int i = 0; i < comm->size; ++i) {
        if (loom_comm_to_world(comm, i) == world_rank) {
            return 1;
        }
    }
    return 0;
}

/* Leader side of Intercomm_create: validate, swap sizes/ids, then the ranks. */
static loom_status_t loom_inter_leader(loom_comm_t local, loom_comm_t peer, int rleader,
                                       int tag, uint32_t info[3], int **remote_p)
{
    uint32_t mine[2] = {(uint32_t)local->size, info[2]}, theirs[2] = {0, 0};
    int *lw = NULL;
    loom_status_t st;

    if ((st = loom_comm_check(peer, "loom_intercomm_create")) != LOOM_OK) {
        return st;
    }
    if (rleader < 0 || rleader >= peer->remote_size || tag < 0) {
        loom_error("coll", "loom_intercomm_create: remote leader %d is not a rank of "
                   "peer communicator '%s' (size %d), or tag %d < 0", rleader, peer->name,
                   peer->remote_size, tag);
        return rleader < 0 || rleader >= peer->remote_size ? LOOM_ERR_INVALID_RANK
                                                           : LOOM_ERR_INVALID_TAG;
    }
    st = loom_inter_swap(peer, mine, sizeof(mine), theirs, sizeof(theirs), rleader, tag,
                         LOOM_CTX_P2P);
    if (st != LOOM_OK) {
        return st;
    }
    lw = loom_comm_world_list(local);
    *remote_p = malloc((size_t)theirs[0] * sizeof(int));
    if (lw == NULL || *remote_p == NULL) {
        free(lw);
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_inter_swap(peer, lw, (size_t)local->size * sizeof(int), *remote_p,
                         (size_t)theirs[0] * sizeof(int), rleader, tag, LOOM_CTX_P2P);
    free(lw);
    info[1] = theirs[0];
    info[2] = theirs[1] > info[2] ? theirs[1] : info[2];
    for (uint32_t i = 0; st == LOOM_OK && i < theirs[0]; ++i) {
        if (loom_inter_in_group(local, (*remote_p)[i])) {   /* both leaders see it */
            loom_error("coll", "loom_intercomm_create: world rank %d is in both groups "
                       "(the groups must be disjoint)", (*remote_p)[i]);
            st = LOOM_ERR_INVALID_ARG;
        }
    }
    return st;
}

static loom_status_t loom_intercomm_check(loom_comm_t local, int leader, loom_comm_t *n_p)
{
    loom_status_t st;

    if (n_p != NULL) {
        *n_p = LOOM_COMM_NULL;
    }
    if ((st = loom_comm_check(local, "loom_intercomm_create")) != LOOM_OK) {
        return st;
    }
    if (n_p == NULL || local->local != NULL) {
        loom_error("coll", "loom_intercomm_create: %s", n_p == NULL ? "newcomm_p is NULL"
                   : "the local communicator is an intercommunicator");
        return n_p == NULL ? LOOM_ERR_INVALID_ARG : LOOM_ERR_INVALID_COMM;
    }
    if (leader < 0 || leader >= local->size) {
        loom_error("coll", "loom_intercomm_create: local leader %d is not a rank of '%s' "
                   "(size %d)", leader, local->name, local->size);
        return LOOM_ERR_INVALID_RANK;
    }
    return LOOM_OK;
}

loom_status_t loom_intercomm_create(loom_comm_t local, int local_leader, loom_comm_t peer,
                                    int remote_leader, int tag, loom_comm_t *newcomm_p)
{
    LOOM_MT_GUARD();
    uint32_t info[3] = {LOOM_OK, 0, 0};   /* status, remote size, context id */
    int *remote = NULL, *lw = NULL;
    char name[32];
    loom_status_t st = loom_intercomm_check(local, local_leader, newcomm_p);

    if (st != LOOM_OK) {
        return loom_p2p_error(st, "loom_intercomm_create");
    }
    if ((st = loom_comm_agree_context(local, &info[2])) != LOOM_OK) {
        return st;
    }
    if (local->rank == local_leader) {
        info[0] = (uint32_t)loom_inter_leader(local, peer, remote_leader, tag, info, &remote);
    }
    if ((st = loom_bcast(info, 3, LOOM_UINT32, local_leader, local)) == LOOM_OK &&
        (st = (loom_status_t)(int32_t)info[0]) == LOOM_OK) {
        if (local->rank != local_leader) {
            remote = malloc((size_t)info[1] * sizeof(int));
        }
        st = remote == NULL ? LOOM_ERR_NO_MEMORY
             : loom_bcast(remote, info[1], LOOM_INT32, local_leader, local);
    }
    lw = loom_comm_world_list(local);
    if (st == LOOM_OK && lw == NULL) {
        st = LOOM_ERR_NO_MEMORY;
    }
    if (st == LOOM_OK) {
        snprintf(name, sizeof(name), "inter(%.16s)#%u", local->name, info[2]);
        st = loom_comm_create_inter_int(name, info[2], local->rank, local->size, lw,
                                        (int)info[1], remote, newcomm_p);
    }
    free(lw);
    free(remote);
    return st == LOOM_OK ? st : loom_p2p_error(st, "loom_intercomm_create");
}

/* Shared checks of the intercomm-only constructors. */
static loom_status_t loom_inter_arg(loom_comm_t inter, const void *out, const char *who)
{
    loom_status_t st = loom_comm_check(inter, who);

    if (st != LOOM_OK) {
        return st;
    }
    if (inter->local == NULL || out == NULL) {
        loom_error("coll", "%s: %s", who, out == NULL ? "output pointer is NULL"
                   : "communicator is not an intercommunicator");
        return out == NULL ? LOOM_ERR_INVALID_ARG : LOOM_ERR_INVALID_COMM;
    }
    return LOOM_OK;
}

loom_status_t loom_intercomm_merge(loom_comm_t inter, int high, loom_comm_t *newcomm_p)
{
    LOOM_MT_GUARD();
    uint32_t ctx = 0;
    int32_t mine = high ? 1 : 0, theirs = 0;
    int n, first_local, *w;
    char name[32];
    loom_status_t st = loom_inter_arg(inter, newcomm_p, "loom_intercomm_merge");

    if (st != LOOM_OK) {
        return loom_p2p_error(st, "loom_intercomm_merge");
    }
    *newcomm_p = LOOM_COMM_NULL;
    if ((st = loom_inter_agree_context(inter, &ctx)) != LOOM_OK ||
        (st = loom_inter_exchange(inter, &mine, sizeof(mine), &theirs,
                                  sizeof(theirs))) != LOOM_OK) {
        return loom_p2p_error(st, "loom_intercomm_merge");
    }
    /* low group first; equal: the group whose rank 0 has the lower world rank */
    first_local = mine != theirs ? mine < theirs
                  : loom_comm_to_world(inter, 0) < loom_comm_peer_world(inter, 0);
    n = inter->size + inter->remote_size;
    if ((w = malloc((size_t)n * sizeof(*w))) == NULL) {
        return loom_p2p_error(LOOM_ERR_NO_MEMORY, "loom_intercomm_merge");
    }
    for (int i = 0; i < inter->size; ++i) {
        w[(first_local ? 0 : inter->remote_size) + i] = loom_comm_to_world(inter, i);
    }
    for (int i = 0; i < inter->remote_size; ++i) {
        w[(first_local ? inter->size : 0) + i] = loom_comm_peer_world(inter, i);
    }
    snprintf(name, sizeof(name), "merge(%.16s)#%u", inter->name, ctx);
    st = loom_comm_create_int(name, ctx, inter->rank + (first_local ? 0 : inter->remote_size),
                              n, w, newcomm_p);
    free(w);
    return st == LOOM_OK ? st : loom_p2p_error(st, "loom_intercomm_merge");
}

/* dup of an intercommunicator: same groups, a context id agreed by both. */
static loom_status_t loom_inter_dup(loom_comm_t inter, loom_comm_t *newcomm_p)
{
    uint32_t ctx = 0;
    int *lw, *rw;
    char name[32];
    loom_status_t st = loom_inter_agree_context(inter, &ctx);

    if (st != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_dup");
    }
    lw = loom_comm_world_list(inter);
    rw = malloc((size_t)inter->remote_size * sizeof(*rw));
    if (lw == NULL || rw == NULL) {
        st = LOOM_ERR_NO_MEMORY;
    } else {
        for (int i = 0; i < inter->remote_size; ++i) {
            rw[i] = loom_comm_peer_world(inter, i);
        }
        snprintf(name, sizeof(name), "dup(%.20s)#%u", inter->name, ctx);
        st = loom_comm_create_inter_int(name, ctx, inter->rank, inter->size, lw,
                                        inter->remote_size, rw, newcomm_p);
    }
    free(lw);
    free(rw);
    return st == LOOM_OK ? st : loom_p2p_error(st, "loom_comm_dup");
}

/* World ranks of @p color's members in (color, key) pairs @p ck of @p comm's
 * local (remote = 0) or remote group, ordered by (key, rank); count in *n_p. */
static int *loom_inter_split_side(loom_comm_t inter, const int *ck, int n, int color,
                                  int remote, int *n_p, int *me_p)
{
    loom_split_entry_t *e = malloc((size_t)n * sizeof(*e) + 1);
    int *w = malloc((size_t)n * sizeof(*w) + 1), k = 0;

    if (e == NULL || w == NULL) {
        free(e);
        free(w);
        return NULL;
    }
    for (int r = 0; r < n; ++r) {
        if (ck[2 * r] == color) {
            e[k++] = (loom_split_entry_t){color, ck[2 * r + 1], r};
        }
    }
    qsort(e, (size_t)k, sizeof(*e), loom_split_cmp);
    for (int i = 0; i < k; ++i) {
        w[i] = remote ? loom_comm_peer_world(inter, e[i].rank)
                      : loom_comm_to_world(inter, e[i].rank);
        if (!remote && e[i].rank == inter->rank) {
            *me_p = i;
        }
    }
    free(e);
    *n_p = k;
    return w;
}

static loom_status_t loom_inter_split_build(loom_comm_t inter, const int *lck,
                                            const int *rck, int color, uint32_t ctx,
                                            loom_comm_t *newcomm_p)
{
    int nl = 0, nr = 0, me = -1;
    int *lw = loom_inter_split_side(inter, lck, inter->size, color, 0, &nl, &me);
    int *rw = loom_inter_split_side(inter, rck, inter->remote_size, color, 1, &nr, &me);
    char name[32];
    loom_status_t st = LOOM_OK;

    if (lw == NULL || rw == NULL) {
        st = LOOM_ERR_NO_MEMORY;
    } else if (nr > 0) {   /* an empty remote side gives LOOM_COMM_NULL */
        snprintf(name, sizeof(name), "split(%.12s)#%d", inter->name, color & 0xffffff);
        st = loom_comm_create_inter_int(name, ctx, me, nl, lw, nr, rw, newcomm_p);
    }
    free(lw);
    free(rw);
    return st;
}

/* split of an intercommunicator: both groups split; colors pair up across. */
static loom_status_t loom_inter_split(loom_comm_t inter, int color, int key,
                                      loom_comm_t *newcomm_p)
{
    int mine[2] = {color, key};
    int *lck = malloc((size_t)inter->size * 2 * sizeof(int));
    int *rck = malloc((size_t)inter->remote_size * 2 * sizeof(int));
    uint32_t ctx = 0;
    loom_status_t st = LOOM_ERR_NO_MEMORY;

    if (lck != NULL && rck != NULL &&
        (st = loom_allgather(mine, lck, 2, LOOM_INT32, inter->local)) == LOOM_OK &&
        (st = loom_inter_exchange(inter, lck, (size_t)inter->size * 2 * sizeof(int), rck,
                                  (size_t)inter->remote_size * 2 * sizeof(int))) == LOOM_OK &&
        (st = loom_inter_agree_context(inter, &ctx)) == LOOM_OK && color >= 0) {
        st = loom_inter_split_build(inter, lck, rck, color, ctx, newcomm_p);
    }
    free(lck);
    free(rck);
    return st == LOOM_OK ? st : loom_p2p_error(st, "loom_comm_split");
}

/* World ranks of local ranks @p ranks (n of them; NULL list: n = 0); my place in *me_p. */
static int *loom_inter_list_world(loom_comm_t inter, int n, const int ranks[], int *me_p)
{
    int *w = malloc((size_t)n * sizeof(*w) + 1);

    *me_p = -1;
    for (int i = 0; w != NULL && i < n; ++i) {
        w[i] = loom_comm_to_world(inter, ranks[i]);
        if (ranks[i] == inter->rank) {
            *me_p = i;
        }
    }
    return w;
}

/*
 * create on an intercommunicator (MPI-2.2): each group passes a subgroup of
 * itself; the members of each get an intercomm of the two subgroups; if
 * either is empty, everyone gets LOOM_COMM_NULL. A bad list takes part as
 * an empty one, so the other group does not hang, and then fails.
 */
static loom_status_t loom_inter_create(loom_comm_t inter, int n, const int ranks[],
                                       loom_comm_t *newcomm_p)
{
    loom_status_t bad = loom_group_check_ranks(inter->size, n, ranks), st;
    int32_t ln, rn = 0;
    int me = -1, *lw, *rw = NULL;
    uint32_t ctx = 0;
    char name[32];

    if (bad != LOOM_OK) {
        loom_error("coll", "loom_comm_create: the list of %d ranks of intercommunicator "
                   "'%s' (local size %d) has a rank out of range or twice", n, inter->name,
                   inter->size);
        n = 0;
    }
    ln = n;
    lw = loom_inter_list_world(inter, n, ranks, &me);
    st = lw == NULL ? LOOM_ERR_NO_MEMORY
         : loom_inter_exchange(inter, &ln, sizeof(ln), &rn, sizeof(rn));
    if (st == LOOM_OK && (rw = malloc((size_t)rn * sizeof(*rw) + 1)) == NULL) {
        st = LOOM_ERR_NO_MEMORY;
    }
    if (st == LOOM_OK) {
        st = loom_inter_exchange(inter, lw, (size_t)n * sizeof(int), rw,
                                 (size_t)rn * sizeof(int));
    }
    if (st == LOOM_OK) {
        st = loom_inter_agree_context(inter, &ctx);
    }
    if (st == LOOM_OK && me >= 0 && rn > 0) {
        snprintf(name, sizeof(name), "create(%.16s)#%u", inter->name, ctx);
        st = loom_comm_create_inter_int(name, ctx, me, n, lw, rn, rw, newcomm_p);
    }
    free(lw);
    free(rw);
    st = st != LOOM_OK ? st : bad;
    return st == LOOM_OK ? st : loom_p2p_error(st, "loom_comm_create");
}

/*
 * idup of an intercommunicator: one intercomm iallreduce(MAX) over both
 * groups (point-to-point only, its tag taken now, so it never depends on
 * what else runs meanwhile) of the ids the two groups' rank 0 take from
 * their own slots of the nonblocking lane (the others offer 0): the larger
 * wins, and its slot's next id (+ 2) is the hidden local comm's. 0 = both
 * leaders ran out of ids.
 */
typedef struct {
    uint32_t       mine, agreed;
    loom_request_t child;
    loom_comm_t    inter;
    loom_comm_t   *newcomm_p;
} loom_inter_idup_state_t;

_Static_assert(sizeof(loom_inter_idup_state_t) <= LOOM_REQ_PRIV_SIZE,
               "the intercomm idup state must fit in a request's private area");

static loom_status_t loom_inter_idup_step(loom_request_t req)
{
    loom_inter_idup_state_t *s = (loom_inter_idup_state_t *)(void *)req->priv;
    loom_comm_t c = s->inter;
    int *lw, *rw;
    char name[32];
    loom_status_t st;

    if (!loom_request_is_complete(s->child)) {
        return LOOM_INPROGRESS;
    }
    st = s->child->status;
    loom_request_release(s->child);
    s->child = LOOM_REQUEST_NULL;
    if (st != LOOM_OK) {
        return st;
    }
    if (s->agreed == 0) {
        loom_error("coll", "loom_comm_idup of '%s': no context id left at either "
                   "group's rank 0", c->name);
        return LOOM_ERR_NO_RESOURCE;
    }
    lw = loom_comm_world_list(c);
    rw = malloc((size_t)c->remote_size * sizeof(*rw) + 1);
    for (int i = 0; rw != NULL && i < c->remote_size; ++i) {
        rw[i] = loom_comm_peer_world(c, i);
    }
    snprintf(name, sizeof(name), "idup(%.14s)#%u", c->name, s->agreed);
    st = lw == NULL || rw == NULL ? LOOM_ERR_NO_MEMORY
         : loom_comm_create_inter_int(name, s->agreed, c->rank, c->size, lw,
                                      c->remote_size, rw, s->newcomm_p);
    free(lw);
    free(rw);
    return st;
}

/* The intercommunicator idup holds its parent as loom_comm_idup_progress does. */
static loom_status_t loom_inter_idup_progress(loom_request_t req)
{
    loom_comm_t inter = ((loom_inter_idup_state_t *)(void *)req->priv)->inter;
    loom_status_t st = loom_inter_idup_step(req);

    if (st != LOOM_INPROGRESS) {
        loom_comm_persist_unref(inter);
    }
    return st;
}

static loom_status_t loom_inter_idup(loom_comm_t inter, loom_comm_t *newcomm_p,
                                     loom_request_t *req_p)
{
    loom_inter_idup_state_t *s;
    loom_request_t req;
    loom_status_t st;

    st = loom_request_generic_alloc(inter, "comm_idup", loom_inter_idup_progress, NULL,
                                    &req);
    if (st != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_idup");
    }
    s = (loom_inter_idup_state_t *)(void *)req->priv;
    /* each group's rank 0 leads (the larger id wins); its slot covers mine + 2 */
    *s = (loom_inter_idup_state_t){ .inter = inter, .newcomm_p = newcomm_p };
    if (inter->rank == 0 && loom_comm_context_lead_nb(&s->mine) != LOOM_OK) {
        s->mine = 0;
    }
    loom_comm_persist_ref(inter);
    st = loom_inter_iallreduce_both(&s->mine, &s->agreed, 1, LOOM_UINT32, LOOM_MAX, inter,
                                    &s->child);
    if (st != LOOM_OK) {
        loom_comm_persist_unref(inter);
        loom_request_release(req);
        return loom_p2p_error(st, "loom_comm_idup");
    }
    loom_request_generic_start(req);
    *req_p = req;
    return LOOM_OK;
}
