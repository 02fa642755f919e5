/*
 * comm_create.c: loom_comm_dup and loom_comm_split, the communicator
 * constructors that need collectives.
 *
 *   dup:   allreduce(MAX) of loom_comm_context_next() -> same group, new id
 *   split: allgather (color, key) of every rank; allreduce(MAX) of the
 *          next context id; the ranks of my color, ordered by (key, old
 *          rank), form the new group (one id serves every color: the groups
 *          are disjoint, so no process sees two of them)
 */
#include "coll_int.h"
#include "coll_api_int.h"
#include "log_int.h"

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
