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
 *   idup:  a generic request around an iallreduce(MAX) of an id from the
 *          nonblocking lane (comm_int.h); the communicator is made when it
 *          completes
 */
#include "coll_int.h"
#include "coll_api_int.h"
#include "log_int.h"
#include "bootstrap_int.h"
#include "group_int.h"

#include <stdio.h>
#include <stdlib.h>

static loom_status_t loom_comm_agree_context(loom_comm_t comm, uint32_t *ctx_p)
{
    uint32_t mine = loom_comm_context_next(), agreed = 0;
    loom_status_t st;

    st = loom_allreduce(&mine, &agreed, 1, LOOM_UINT32, LOOM_MAX, comm);
    if (st == LOOM_OK) {
        *ctx_p = agreed;
    }
    return st;
}

loom_status_t loom_comm_dup(loom_comm_t comm, loom_comm_t *newcomm_p)
{
    char name[32];
    uint32_t ctx;
    loom_status_t st;

    if (newcomm_p != NULL) {
        *newcomm_p = LOOM_COMM_NULL;   /* what the caller holds if this fails */
    }
    if ((st = loom_comm_check(comm, "loom_comm_dup")) != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_dup");
    }
    if (newcomm_p == NULL) {
        loom_error("coll", "loom_comm_dup: newcomm_p is NULL");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_comm_dup");
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
    loom_status_t st, bad;
    int me;

    if (newcomm_p != NULL) {
        *newcomm_p = LOOM_COMM_NULL;
    }
    if ((st = loom_comm_check(comm, "loom_comm_create")) != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_create");
    }
    if (newcomm_p == NULL) {
        loom_error("coll", "loom_comm_create: newcomm_p is NULL");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_comm_create");
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

/* Tag of round @p round: tag bits 0-15 | kind | round (5 bits) | tag bits 16-21. */
static int loom_comm_cg_tag(int tag, int round)
{
    uint32_t t = (uint32_t)tag;

    return (int)((t & 0xffffu) | LOOM_COLL_KIND_CREATE << LOOM_COLL_TAG_KIND_SHIFT |
                 ((uint32_t)round & 0x1fu) << LOOM_COLL_TAG_ROOT_SHIFT |
                 (t >> 16 & 0x3fu) << 25);
}

/* Send *val to @p to, receive from @p from, keep the maximum. */
static loom_status_t loom_comm_cg_exchange(loom_comm_t comm, int to, int from, int tag,
                                           uint32_t *val)
{
    uint32_t in = 0;
    loom_request_t rreq, sreq;
    loom_status_t st, st2;

    st = loom_p2p_irecv_int(&in, sizeof(in), from, tag, comm, LOOM_CTX_COLL, &rreq);
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_p2p_isend_int(val, sizeof(*val), to, tag, comm, LOOM_CTX_COLL, 0, &sreq);
    if (st != LOOM_OK) {
        loom_request_t r = rreq;
        (void)loom_cancel(&r);
        (void)loom_request_wait_int(rreq, NULL);
        return st;
    }
    st  = loom_request_wait_int(rreq, NULL);
    st2 = loom_request_wait_int(sreq, NULL);
    if (st == LOOM_OK && in > *val) {
        *val = in;
    }
    return st != LOOM_OK ? st : st2;
}

/* Agree with the other @p n - 1 listed ranks (me = position) on a context id. */
static loom_status_t loom_comm_cg_agree(loom_comm_t comm, int n, const int ranks[], int me,
                                        int tag, uint32_t *ctx_p)
{
    uint32_t val = loom_comm_context_next();
    loom_status_t st;
    int round = 0;

    for (int k = 1; k < n; k <<= 1, ++round) {
        st = loom_comm_cg_exchange(comm, ranks[(me + k) % n], ranks[(me - k + n) % n],
                                   loom_comm_cg_tag(tag, round), &val);
        if (st != LOOM_OK) {
            loom_error("coll", "loom_comm_create_group on '%s' (tag %d): agreeing on a "
                       "context id with ranks %d and %d failed: %s", comm->name, tag,
                       ranks[(me + k) % n], ranks[(me - k + n) % n], loom_strerror(st));
            return st;
        }
    }
    *ctx_p = val;
    return LOOM_OK;
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
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    int color = LOOM_UNDEFINED;
    loom_status_t st;

    if (newcomm_p != NULL) {
        *newcomm_p = LOOM_COMM_NULL;
    }
    if ((st = loom_comm_check(comm, "loom_comm_split_type")) != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_split_type");
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
    uint32_t        mine;       /* this process's offer (nonblocking lane) */
    uint32_t        agreed;     /* the iallreduce's result */
    loom_request_t  child;      /* the iallreduce */
    loom_comm_t     parent;
    loom_comm_t    *newcomm_p;  /* written at completion */
} loom_comm_idup_state_t;

_Static_assert(sizeof(loom_comm_idup_state_t) <= LOOM_REQ_PRIV_SIZE,
               "the idup state must fit in a request's private area");

static loom_status_t loom_comm_idup_progress(loom_request_t req)
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
    snprintf(name, sizeof(name), "idup(%.19s)#%u", parent->name, s->agreed);
    st = loom_comm_create_int(name, s->agreed, parent->rank, parent->size,
                              parent->world_ranks, s->newcomm_p);
    if (st != LOOM_OK) {
        loom_error("coll", "loom_comm_idup of '%s': context id %u is taken here (another "
                   "idup on an overlapping communicator ran at the same time)",
                   parent->name, s->agreed);
    }
    return st;
}

loom_status_t loom_comm_idup(loom_comm_t comm, loom_comm_t *newcomm_p,
                             loom_request_t *req_p)
{
    loom_comm_idup_state_t *s;
    loom_request_t req;
    loom_status_t st;

    if (newcomm_p != NULL) {
        *newcomm_p = LOOM_COMM_NULL;
    }
    if ((st = loom_comm_check(comm, "loom_comm_idup")) != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_idup");
    }
    if (newcomm_p == NULL || req_p == NULL) {
        loom_error("coll", "loom_comm_idup: %s is NULL", req_p ? "newcomm_p" : "req_p");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_comm_idup");
    }
    st = loom_request_generic_alloc(comm, "comm_idup", loom_comm_idup_progress, NULL, &req);
    if (st != LOOM_OK) {
        return loom_p2p_error(st, "loom_comm_idup");
    }
    s = (loom_comm_idup_state_t *)(void *)req->priv;
    *s = (loom_comm_idup_state_t){ .mine = loom_comm_context_reserve_nb(),
                                   .parent = comm, .newcomm_p = newcomm_p };
    st = loom_iallreduce(&s->mine, &s->agreed, 1, LOOM_UINT32, LOOM_MAX, comm, &s->child);
    if (st != LOOM_OK) {
        loom_request_release(req);
        return loom_p2p_error(st, "loom_comm_idup");
    }
    loom_request_generic_start(req);
    *req_p = req;
    return LOOM_OK;
}
