/*
 * p2p_mcast.c: communicators' multicast groups (design in p2p_mcast_int.h).
 */
#include "p2p_mcast_int.h"
#include "p2p_engine_int.h"
#include "config_int.h"
#include "hash_int.h"
#include "log_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static loom_p2p_mc_t **loom_p2p_mc_entries;
static size_t loom_p2p_mc_num, loom_p2p_mc_cap;
/* (loom cannot be initialized twice, so entries never outlive their transport's use) */

/* LOOM_IB_MCAST_THRESHOLD is the ib transport's (transport/ib/ib_config.c):
 * looked up by name once found (loom_init registers every table; a call
 * before that answers 0 and looks again next time); in a build without ib
 * there is no multicast transport and the threshold is 0 for good */
size_t loom_p2p_mc_threshold(void)
{
    static const loom_config_var_t none;   /* value 0 */
    static const loom_config_var_t *var;
    const loom_config_var_t *v = __atomic_load_n(&var, __ATOMIC_ACQUIRE);
    long long t;

    if (loom_unlikely(v == NULL)) {
        v = loom_config_find("LOOM_IB_MCAST_THRESHOLD");
        if (v == NULL) {
            if (LOOM_HAVE_IBV) {
                return 0;
            }
            v = &none;
        }
        __atomic_store_n(&var, v, __ATOMIC_RELEASE);
    }
    t = loom_config_int(v);
    return t <= 0 ? 0 : (size_t)t;
}

/* FNV-1a of the context id and the members' world ranks (same on every rank) */
static uint64_t loom_p2p_mc_key(loom_comm_t comm)
{
    uint64_t h = loom_hash_fnv1a64_u32(LOOM_HASH_FNV1A64_INIT, (uint32_t)comm->context_id);

    for (int i = 0; i < comm->size; ++i) {
        h = loom_hash_fnv1a64_u32(h, (uint32_t)loom_comm_to_world(comm, i));
    }
    return h;
}

/* The transport serving every other member, if it offers multicast. */
static loom_tl_iface_t *loom_p2p_mc_iface(loom_comm_t comm, const char **why_p)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_tl_iface_t *iface = NULL;

    for (int i = 0; i < comm->size; ++i) {
        int w = loom_comm_to_world(comm, i);
        if (i == comm->rank) {
            continue;
        }
        if (e->peers[w].ep == NULL ||
            (iface != NULL && e->peers[w].ep->iface != iface)) {
            *why_p = "its ranks are not all reached through one transport";
            return NULL;
        }
        iface = e->peers[w].ep->iface;
    }
    if (iface == NULL || !iface->caps.can_mcast || iface->ops.mc_join == NULL) {
        *why_p = iface ? "its transport has no multicast" : "no transport";
        return NULL;
    }
    return iface;
}

static loom_status_t loom_p2p_mc_join(loom_comm_t comm, loom_p2p_mc_t *m)
{
    const char *why = NULL;
    loom_tl_iface_t *iface = loom_p2p_mc_iface(comm, &why);
    loom_tl_mc_params_t params;
    int *members;
    loom_status_t st;

    if (iface == NULL) {
        snprintf(m->why, sizeof(m->why), "%s", why);
        return LOOM_OK;
    }
    members = malloc((size_t)comm->size * sizeof(int));
    if (members == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (int i = 0; i < comm->size; ++i) {
        members[i] = loom_comm_to_world(comm, i);
    }
    params = (loom_tl_mc_params_t){ m->key, members, comm->size, comm->rank };
    st = iface->ops.mc_join(iface, &params, &m->mc);
    free(members);
    if (st == LOOM_OK) {
        m->local_ok = m->mc->joined;
        snprintf(m->why, sizeof(m->why), "%s", m->local_ok ? "" :
                 "joining the group failed (LOOM_LOG=info:ib says why)");
    }
    return st;
}

loom_status_t loom_p2p_mc_get(loom_comm_t comm, loom_p2p_mc_t **entry_p)
{
    uint64_t key = loom_p2p_mc_key(comm);
    loom_p2p_mc_t *m;
    loom_status_t st;

    for (size_t i = 0; i < loom_p2p_mc_num; ++i) {
        m = loom_p2p_mc_entries[i];
        if (m->key == key && m->context_id == comm->context_id && m->size == comm->size) {
            *entry_p = m;
            return LOOM_OK;
        }
    }
    if (loom_p2p_mc_num == loom_p2p_mc_cap) {
        size_t cap = loom_p2p_mc_cap ? 2 * loom_p2p_mc_cap : 8;
        loom_p2p_mc_t **grown = realloc(loom_p2p_mc_entries, cap * sizeof(*grown));
        if (grown == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        loom_p2p_mc_entries = grown;
        loom_p2p_mc_cap = cap;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    m->context_id = comm->context_id;
    m->key = key;
    m->size = comm->size;
    st = loom_p2p_mc_join(comm, m);
    if (st != LOOM_OK) {
        free(m);
        return st;
    }
    loom_p2p_mc_entries[loom_p2p_mc_num++] = m;
    *entry_p = m;
    return LOOM_OK;
}

void loom_p2p_mc_agree(loom_p2p_mc_t *e, int all_ok)
{
    e->agreed = all_ok ? 1 : -1;
    if (e->mc != NULL) {
        e->mc->agreed = e->agreed;
    }
}

static void loom_p2p_mc_done(loom_tl_comp_t *comp, loom_status_t status)
{
    loom_p2p_mc_op_t *op = loom_container_of(comp, loom_p2p_mc_op_t, comp);

    op->status = status;
    op->done = 1;
}

loom_status_t loom_p2p_mc_bcast(loom_p2p_mc_t *e, int root, void *buf, size_t len,
                                loom_p2p_mc_op_t *op)
{
    loom_tl_mc_t *mc = e->mc;

    op->comp.cb = loom_p2p_mc_done;
    op->done = 0;
    op->status = LOOM_INPROGRESS;
    return mc->iface->ops.mc_bcast(mc, root, buf, len, &op->comp);
}
