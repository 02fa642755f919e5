/*
 * p2p_setup.c: starting and stopping the point-to-point engine.
 *
 * start: WORLD/SELF -> open every allowed transport (each publishes its
 * address) -> one fence -> per peer, the first transport (in registry
 * order) that reaches it gets an endpoint and sets that peer's protocol
 * thresholds from its capabilities -> the engine's tables. The self
 * transport is always opened: a rank reaches itself through it whatever
 * LOOM_TRANSPORTS says (as UCX's self).
 *
 * stop: close endpoints and transports and free what start made. The
 * engine's pools and matching tables (sized from the peers' eager limits)
 * are made and freed here too (loom_p2p_engine_setup/teardown, at the
 * end). The runtime (runtime/init.c) sequences this between the bootstrap
 * below and the collectives above; finishing traffic first is
 * loom_p2p_drain's work (p2p_finalize.c). At the top of the p2p stack
 * (docs/p2p.md): it registers the receive path's am callbacks and the
 * peer-failure callback (p2p_failure.c) with the transports.
 */
#include "p2p_setup_int.h"
#include "p2p_engine_int.h"
#include "p2p_config_int.h"
#include "log_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* every name in LOOM_TRANSPORTS must be a known transport */
static loom_status_t loom_p2p_setup_transports_check(const char *list)
{
    char valid[128] = "";

    for (size_t i = 0; i < loom_tl_num_components; ++i) {
        snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), "%s%s",
                 i ? "," : "", loom_tl_components[i]->name);
    }
    for (const char *p = list; *p != '\0';) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int known = 0;
        for (size_t i = 0; i < loom_tl_num_components; ++i) {
            const char *name = loom_tl_components[i]->name;
            known |= strlen(name) == len && strncmp(p, name, len) == 0;
        }
        if (!known) {
            loom_error("p2p", "LOOM_TRANSPORTS='%s': '%.*s' is not a transport of this "
                       "build (valid: %s)", list, (int)len, p, valid);
            return LOOM_ERR_CONFIG;
        }
        p += len + (comma ? 1 : 0);
    }
    return LOOM_OK;
}

static loom_status_t loom_p2p_setup_transports_open(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    const char *list = loom_config_str(LOOM_P2P_CFG(TRANSPORTS));
    loom_tl_params_t params = { .job = e->job, .am_cb = loom_p2p_am_handler,
                                .err_cb = loom_p2p_peer_err_handler, .cb_arg = e,
                                .am_place_cb = loom_p2p_am_place,
                                .am_place_done_cb = loom_p2p_am_place_done };
    loom_status_t st = loom_p2p_setup_transports_check(list);

    for (size_t i = 0; st == LOOM_OK && i < loom_tl_num_components; ++i) {
        const loom_tl_component_t *c = loom_tl_components[i];
        loom_tl_iface_t *iface;

        if (strcmp(c->name, "self") != 0 && !loom_p2p_transport_allowed(c->name)) {
            continue;
        }
        st = c->ops->open(&params, &iface);
        if (st == LOOM_ERR_UNSUPPORTED) {
            loom_debug("p2p", "transport %s does not run here; skipped", c->name);
            st = LOOM_OK;
            continue;
        }
        if (st != LOOM_OK) {
            loom_error("p2p", "opening transport %s failed: %s", c->name,
                       loom_strerror(st));
            break;
        }
        if (e->num_ifaces == LOOM_P2P_MAX_IFACES) {
            iface->ops.close(iface);
            continue;
        }
        e->ifaces[e->num_ifaces++] = iface;
    }
    return st;
}

/* thresholds for a peer served by @p iface (chosen once, here) */
static void loom_p2p_setup_peer_thresholds(loom_p2p_peer_t *peer, loom_tl_iface_t *iface)
{
    const loom_tl_caps_t *caps = &iface->caps;
    size_t frame_max = caps->max_am > LOOM_P2P_EAGER_HDR_MAX ?
                       caps->max_am - LOOM_P2P_EAGER_HDR_MAX : 0;
    size_t limit = LOOM_MIN(caps->eager_limit, frame_max);

    if (loom_config_is_set(LOOM_P2P_CFG(EAGER_LIMIT))) {
        limit = LOOM_MIN((size_t)loom_config_int(LOOM_P2P_CFG(EAGER_LIMIT)), frame_max);
    }
    peer->can_rndv = (uint8_t)(caps->can_get != 0 && caps->max_am >= LOOM_P2P_HDR_MAX);
    if (!peer->can_rndv) {
        limit = frame_max;   /* eager is all there is */
    }
    peer->eager_limit = limit;
    peer->rndv_push = 0;
    if (peer->can_rndv) {
        size_t push = loom_config_is_set(LOOM_P2P_CFG(RNDV_PUSH)) ?
                      (size_t)loom_config_int(LOOM_P2P_CFG(RNDV_PUSH)) : caps->rndv_push;
        /* a rendezvous message is longer than the eager limit, so the pushed
         * part is always a strict prefix; the frame fits caps.max_am */
        peer->rndv_push = LOOM_MIN(push, LOOM_MIN(limit, caps->max_am -
                                                         sizeof(loom_p2p_hdr_ctl_t)));
    }
    peer->can_peek = (uint8_t)(iface->ops.am_peek != NULL && iface->ops.am_consume != NULL);
}

static loom_status_t loom_p2p_setup_peers(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;

    e->peers = calloc((size_t)e->world_size, sizeof(*e->peers));
    if (e->peers == NULL) {
        loom_error("p2p", "out of memory for %d peers", e->world_size);
        return LOOM_ERR_NO_MEMORY;
    }
    for (int r = 0; r < e->world_size; ++r) {
        loom_p2p_peer_t *peer = &e->peers[r];
        loom_status_t st = LOOM_ERR_UNREACHABLE;

        loom_list_init(&peer->pending);
        loom_list_init(&peer->awaiting);
        loom_list_init(&peer->pending_link);
        for (int i = 0; i < e->num_ifaces && st == LOOM_ERR_UNREACHABLE; ++i) {
            if (!e->ifaces[i]->ops.reachable(e->ifaces[i], r)) {
                continue;
            }
            st = e->ifaces[i]->ops.ep_create(e->ifaces[i], r, &peer->ep);
            if (st != LOOM_OK) {
                loom_error("p2p", "rank %s: connecting to rank %d (%s) over %s failed: "
                           "%s", loom_log_identity(), r, e->job->hostnames[r],
                           e->ifaces[i]->name, loom_strerror(st));
                return st;
            }
            loom_p2p_setup_peer_thresholds(peer, e->ifaces[i]);
            e->max_eager = LOOM_MAX(e->max_eager, peer->eager_limit);
        }
        if (st != LOOM_OK) {
            loom_error("p2p", "rank %s: no transport reaches rank %d (%s) (open: %d "
                       "transports; LOOM_TRANSPORTS='%s')", loom_log_identity(), r,
                       e->job->hostnames[r], e->num_ifaces,
                       loom_config_str(LOOM_P2P_CFG(TRANSPORTS)));
            return st;
        }
    }
    return LOOM_OK;
}

/* split the open transports into those serving a peer and the others */
static void loom_p2p_setup_poll_lists(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;

    e->num_busy = e->num_idle = 0;
    for (int i = 0; i < e->num_ifaces; ++i) {
        int serves = 0;
        for (int r = 0; r < e->world_size && !serves; ++r) {
            serves = e->peers[r].ep != NULL && e->peers[r].ep->iface == e->ifaces[i];
        }
        if (serves) {
            e->busy_ifaces[e->num_busy++] = e->ifaces[i];
        } else {
            e->idle_ifaces[e->num_idle++] = e->ifaces[i];
            loom_debug("p2p", "transport %s serves no peer: polled every %u passes",
                       e->ifaces[i]->name, LOOM_P2P_IDLE_POLL);
        }
    }
}

/* one info line per transport: which peers it serves, with what thresholds */
static void loom_p2p_setup_log_selection(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;

    for (int i = 0; i < e->num_ifaces; ++i) {
        char ranks[256] = "", rndv[80];
        size_t len = 0, eager = 0, push = 0;
        int count = 0;

        for (int r = 0; r < e->world_size; ++r) {
            if (e->peers[r].ep == NULL || e->peers[r].ep->iface != e->ifaces[i]) {
                continue;
            }
            eager = e->peers[r].eager_limit;
            push  = e->peers[r].rndv_push;
            if (len + 16 < sizeof(ranks)) {
                len += (size_t)snprintf(ranks + len, sizeof(ranks) - len, "%s%d",
                                        count ? "," : "", r);
            } else if (len + 4 < sizeof(ranks) && ranks[len - 1] != '.') {
                len += (size_t)snprintf(ranks + len, sizeof(ranks) - len, "...");
            }
            ++count;
        }
        if (push != 0) {
            snprintf(rndv, sizeof(rndv), "by get, its first %zu bytes sent behind the "
                     "request", push);
        } else {
            snprintf(rndv, sizeof(rndv), "%s",
                     e->ifaces[i]->caps.can_get ? "by get" : "unavailable");
        }
        loom_info("p2p", "transport %s serves %d peer(s) [%s]; eager limit %zu bytes, "
                  "rendezvous %s", e->ifaces[i]->name, count, ranks, eager, rndv);
    }
}

static loom_status_t loom_p2p_setup_policy(void)
{
    const char *errors = loom_config_str(LOOM_P2P_CFG(ERRORS));

    if (strcmp(errors, "abort") == 0) {
        loom_p2p_engine.errors_return = 0;
    } else if (strcmp(errors, "return") == 0) {
        loom_p2p_engine.errors_return = 1;
    } else {
        loom_error("p2p", "LOOM_ERRORS='%s' is not valid: expected abort or return",
                   errors);
        return LOOM_ERR_CONFIG;
    }
    loom_p2p_engine.progress_timeout = loom_config_double(LOOM_P2P_CFG(PROGRESS_TIMEOUT));
    loom_p2p_engine.mt_idle_spin = (unsigned)loom_config_int(LOOM_P2P_CFG(MT_IDLE_SPIN));
    return LOOM_OK;
}

static void loom_p2p_setup_close_transports(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;

    if (e->peers != NULL) {
        for (int r = 0; r < e->world_size; ++r) {
            if (e->peers[r].ep != NULL) {
                e->peers[r].ep->iface->ops.ep_destroy(e->peers[r].ep);
            }
        }
    }
    for (int i = e->num_ifaces; i-- > 0;) {
        e->ifaces[i]->ops.close(e->ifaces[i]);
    }
    e->num_ifaces = e->num_busy = e->num_idle = 0;
    free(e->peers);
    e->peers = NULL;
}

/* transports, peers, engine; on failure everything here is undone */
static loom_status_t loom_p2p_setup_engine(void)
{
    loom_status_t st = loom_p2p_setup_transports_open();

    if (st != LOOM_OK) {
        goto err_close_transports;
    }
    st = loom_bootstrap_fence();
    if (st != LOOM_OK) {
        goto err_close_transports;
    }
    st = loom_p2p_setup_peers();
    if (st != LOOM_OK) {
        goto err_close_transports;
    }
    loom_p2p_setup_poll_lists();
    st = loom_p2p_engine_setup();
    if (st != LOOM_OK) {
        goto err_teardown_engine;
    }
    return LOOM_OK;

err_teardown_engine:
    loom_p2p_engine_teardown();
err_close_transports:
    loom_p2p_setup_close_transports();
    return st;
}

loom_status_t loom_p2p_check_state(const char *caller, int finalizing)
{
    loom_p2p_state_t state = loom_p2p_engine.state;

    if (!finalizing && state != LOOM_STATE_UNINIT) {
        loom_error("p2p", "%s: %s", caller, state == LOOM_STATE_INIT ?
                   "already initialized" : "loom was finalized; it cannot be "
                   "initialized again");
        return state == LOOM_STATE_INIT ? LOOM_ERR_ALREADY_INIT : LOOM_ERR_FINALIZED;
    }
    if (finalizing && state != LOOM_STATE_INIT) {
        loom_error("p2p", "%s: %s", caller, state == LOOM_STATE_UNINIT ?
                   "loom is not initialized" : "already finalized");
        return state == LOOM_STATE_UNINIT ? LOOM_ERR_NOT_INITIALIZED :
               LOOM_ERR_FINALIZED;
    }
    return LOOM_OK;
}

loom_status_t loom_p2p_configure(void)
{
    loom_status_t st = loom_p2p_setup_policy();

    if (st != LOOM_OK) {
        return st;
    }
    loom_progress_setup();
    /* before the bootstrap: loomrun may ask for a report once we are its client */
    loom_p2p_report_signal_install();
    return LOOM_OK;
}

void loom_p2p_unconfigure(void)
{
    loom_p2p_report_signal_restore();
}

loom_status_t loom_p2p_start(const loom_bootstrap_info_t *job)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_status_t st;

    e->job = job;
    e->oversubscribed = job->oversubscribed;
    e->world_rank = job->rank;
    e->world_size = job->size;
    e->max_eager  = 0;
    st = loom_comm_init(e->world_rank, e->world_size);
    if (st != LOOM_OK) {
        e->job = NULL;
        return st;
    }
    st = loom_p2p_setup_engine();
    if (st != LOOM_OK) {
        loom_comm_cleanup();
        e->job = NULL;
        return st;
    }
    e->state = LOOM_STATE_INIT;
    loom_p2p_setup_log_selection();
    return LOOM_OK;
}

void loom_p2p_stop(int finalized)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;

    loom_comm_cleanup();
    loom_p2p_engine_teardown();
    loom_p2p_setup_close_transports();
    e->state = finalized ? LOOM_STATE_FINALIZED : LOOM_STATE_UNINIT;
    e->job = NULL;
}

int loom_p2p_started(void)
{
    return loom_p2p_engine.state == LOOM_STATE_INIT;
}

int loom_p2p_stopped(void)
{
    return loom_p2p_engine.state == LOOM_STATE_FINALIZED;
}

/* ---- the engine's pools and matching (sized once the peers' eager limits are known) -- */

loom_status_t loom_p2p_engine_setup(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    size_t large = sizeof(loom_p2p_unexp_t) + LOOM_MAX(e->max_eager, LOOM_P2P_UNEXP_SMALL);
    loom_status_t st;

    loom_match_init(&e->match);
    loom_list_init(&e->pending_peers);
    loom_list_init(&e->get_retry);
    loom_list_init(&e->generic_active);
    loom_list_init(&e->recv_reading);
    loom_list_init(&e->probed);
    e->sends_active  = 0;
    e->byes_received = 0;
    e->finalizing    = 0;
    st = loom_mpool_init(&e->req_pool, "requests", sizeof(struct loom_request), 128, 0);
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_mpool_init(&e->pending_pool, "queued frames", sizeof(loom_p2p_pending_t),
                         64, 0);
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_mpool_init(&e->unexp_small_pool, "unexpected (small)",
                         sizeof(loom_p2p_unexp_t) + LOOM_P2P_UNEXP_SMALL, 128, 0);
    if (st != LOOM_OK) {
        return st;
    }
    return loom_mpool_init(&e->unexp_large_pool, "unexpected (eager)", large, 16, 0);
}

/* messages taken by a matched probe and never received: warn, free them and
 * their handles (finalize NAKed the synchronous ones already) */
static void loom_p2p_probed_free_all(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    struct loom_message *msg, *tmp;
    size_t left = loom_list_length(&e->probed);

    if (left != 0) {
        loom_warn("p2p", "finalize: %zu messages taken by a matched probe (loom_mprobe/"
                  "loom_improbe) were never received", left);
    }
    loom_list_for_each_safe(msg, tmp, &e->probed, list) {
        loom_list_del(&msg->list);
        loom_p2p_unexp_free(msg->ux);
        free(msg);
    }
}

void loom_p2p_engine_teardown(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_match_unexp_t *u, *tmp;
    size_t left = e->match.num_unexp;

    if (left != 0) {
        loom_warn("p2p", "finalize: %zu unexpected messages were never received", left);
    }
    loom_list_for_each_safe(u, tmp, &e->match.unexp_all, all_list) {
        loom_match_unexp_remove(&e->match, u);
        loom_p2p_unexp_free(loom_container_of(u, loom_p2p_unexp_t, m));
    }
    loom_p2p_probed_free_all();
    loom_p2p_sreq_cleanup();
    loom_p2p_frame_cleanup();
    loom_mpool_cleanup(&e->unexp_large_pool);
    loom_mpool_cleanup(&e->unexp_small_pool);
    loom_mpool_cleanup(&e->pending_pool);
    loom_mpool_cleanup(&e->req_pool);
}
