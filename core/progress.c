/*
 * progress.c: the progress engine.
 *
 * One pass polls every open transport (which delivers frames to the p2p
 * engine's am handler and completes gets), then retries frames and gets
 * that met back-pressure, then runs every active generic request
 * (collectives). Blocking calls loop over passes; a pass that finds nothing
 * yields the CPU when ranks outnumber cores, and after LOOM_PROGRESS_TIMEOUT
 * seconds without events the rank reports what it is waiting for.
 */
#include "p2p_engine_int.h"
#include "log_int.h"

#include <sched.h>

int loom_progress_int(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    int n = 0;

    for (int i = 0; i < e->num_busy; ++i) {
        n += loom_tl_iface_progress(e->busy_ifaces[i]);
    }
    if (loom_unlikely(e->num_idle != 0) && (++e->idle_tick % LOOM_P2P_IDLE_POLL) == 0) {
        for (int i = 0; i < e->num_idle; ++i) {
            n += loom_tl_iface_progress(e->idle_ifaces[i]);
        }
    }
    if (loom_unlikely(!loom_list_is_empty(&e->pending_peers) ||
                      !loom_list_is_empty(&e->get_retry))) {
        n += loom_p2p_pending_progress();
    }
    if (!loom_list_is_empty(&e->generic_active)) {
        n += loom_request_generic_progress();
    }
    return n;
}

int loom_progress(void)
{
    if (loom_unlikely(loom_p2p_engine.state != LOOM_STATE_INIT)) {
        return 0;
    }
    return loom_progress_int();
}

int loom_progress_oversubscribed(void)
{
    return loom_p2p_engine.oversubscribed;
}

void loom_progress_idle(void)
{
    if (loom_p2p_engine.oversubscribed) {
        sched_yield();
    }
}

/* idle passes between clock reads (a clock read costs about as much as a pass) */
#define LOOM_PROGRESS_CLOCK_INTERVAL 4096u

void loom_progress_wait_step(loom_progress_waiter_t *w)
{
    double now;

    if (loom_progress_int() != 0) {
        w->idle = 0;
        w->start = 0;
        return;
    }
    if (loom_p2p_engine.oversubscribed) {
        sched_yield();
    }
    if (loom_likely(loom_p2p_engine.progress_timeout <= 0) ||
        (++w->idle % LOOM_PROGRESS_CLOCK_INTERVAL) != 0) {
        return;
    }
    now = loom_wtime();
    if (w->start == 0) {
        w->start = now;
    } else if (!w->reported && now - w->start >= loom_p2p_engine.progress_timeout) {
        w->reported = 1;
        loom_progress_report(w->what, now - w->start);
    }
}

static void loom_progress_report_peers(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_p2p_peer_t *p;

    loom_list_for_each(p, &e->pending_peers, pending_link) {
        loom_warn("p2p", "  %zu frames queued for rank %d (%s) by back-pressure",
                  loom_list_length(&p->pending), (int)(p - e->peers),
                  e->job->hostnames[p - e->peers]);
    }
}

void loom_progress_report(const char *where, double waited)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_match_posted_t *p;
    loom_request_t req;
    int shown = 0;

    loom_warn("p2p", "%s: no progress for %.1f s (LOOM_PROGRESS_TIMEOUT); %zu sends "
              "incomplete, %zu receives posted, %zu unexpected messages",
              where, waited, e->sends_active, e->match.num_posted, e->match.num_unexp);
    loom_progress_report_peers();
    loom_list_for_each(p, &e->match.posted_wild, list) {
        if (shown++ < 8) {
            loom_warn("p2p", "  posted receive ctx %u source %d tag %d (wildcard)",
                      p->ctx, p->src, p->tag);
        }
    }
    for (uint32_t b = 0; b < LOOM_MATCH_BUCKETS && shown < 8; ++b) {
        loom_list_for_each(p, &e->match.posted_bucket[b], list) {
            if (shown++ < 8) {
                loom_warn("p2p", "  posted receive ctx %u source %d tag %d",
                          p->ctx, p->src, p->tag);
            }
        }
    }
    loom_list_for_each(req, &e->generic_active, list) {
        loom_warn("p2p", "  %s #%llu on %s in progress", req->op_name ? req->op_name : "?",
                  (unsigned long long)req->op_seq, req->comm ? req->comm->name : "?");
    }
}
