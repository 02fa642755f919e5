/*
 * p2p_failure.c: a peer process failed (the transports' peer-failure
 * callback, registered by p2p_setup.c).
 *
 * The peer is marked failed (new operations with it fail at once), loomrun
 * is told, and, unless LOOM_ERRORS=return, the job aborts naming the peer
 * and the user's operation it interrupts. Otherwise everything that waits
 * on it completes with its error: queued frames' sends, sends awaiting its
 * ACK/FIN, posted receives that name it (or take any source on a
 * communicator that contains it), a frame it was sending in place, a
 * rendezvous it was pushing. Finalize stops waiting for its BYE.
 *
 * In the p2p stack (docs/p2p.md) it sits above the send and receive paths
 * and the hang report, whose words name the interrupted operation; no file
 * calls it, the transports reach it through the callback.
 */
#include "p2p_engine_int.h"
#include "bootstrap_int.h"
#include "log_int.h"

#include <stdio.h>
#include <stdlib.h>

/*
 * Does a posted receive wait on @p world_rank? Yes if it names it, or if it
 * takes LOOM_ANY_SOURCE on a communicator that contains it: as MPI-4 does
 * for a failed process, a pending wildcard receive fails (it might have
 * been waiting for exactly that rank's message). Wildcard receives posted
 * later are not failed: they may still match a live rank.
 */
static int loom_p2p_posted_waits_on(const loom_match_posted_t *p, int world_rank)
{
    loom_comm_t comm = loom_p2p_req_from_posted((loom_match_posted_t *)p)->comm;

    if (comm == NULL) {
        return 0;
    }
    if (p->src == LOOM_ANY_SOURCE) {
        return loom_comm_has_world(comm, world_rank);
    }
    return p->src >= 0 && p->src < comm->remote_size &&
           loom_comm_peer_world(comm, p->src) == world_rank;
}

static void loom_p2p_fail_posted_list(loom_list_t *list, int world_rank,
                                      loom_status_t status)
{
    loom_match_posted_t *p, *tmp;

    loom_list_for_each_safe(p, tmp, list, list) {
        if (loom_p2p_posted_waits_on(p, world_rank)) {
            loom_match_posted_remove(&loom_p2p_engine.match, p);
            loom_p2p_recv_complete(loom_p2p_req_from_posted(p), status);
        }
    }
}

/* posted receives waiting on @p world_rank fail with it */
static void loom_p2p_fail_posted_from(int world_rank, loom_status_t status)
{
    loom_match_t *m = &loom_p2p_engine.match;

    loom_p2p_fail_posted_list(&m->posted_wild, world_rank, status);
    for (uint32_t b = 0; b < LOOM_MATCH_BUCKETS; ++b) {
        loom_p2p_fail_posted_list(&m->posted_bucket[b], world_rank, status);
    }
}

/* complete everything that waits on a failed peer with its error */
static void loom_p2p_peer_fail_all(loom_p2p_peer_t *peer, loom_status_t status)
{
    loom_list_t *l;

    while ((l = loom_list_pop_head(&peer->pending)) != NULL) {
        loom_p2p_pending_t *item = loom_list_entry(l, loom_p2p_pending_t, list);
        if (item->req != NULL) {
            loom_p2p_send_req_fail(item->req, status);
        }
        loom_p2p_pending_free(item);
    }
    loom_p2p_pending_unlink_idle(peer);
    while (!loom_list_is_empty(&peer->awaiting)) {
        loom_p2p_send_req_fail(loom_list_head_entry(&peer->awaiting, struct loom_request,
                                                    list), status);
    }
    loom_p2p_fail_posted_from(loom_p2p_peer_rank(peer), status);
    /* a frame it was receiving in place will not complete */
    loom_p2p_am_place_done(NULL, loom_p2p_peer_rank(peer), status);
    peer->push_ux = NULL;   /* its receive fails: the data stayed with the dead peer */
    if (peer->push_req != NULL) {
        loom_request_t req = peer->push_req;

        peer->push_req = NULL;
        loom_p2p_rndv_push_abandon(req, status);
    }
}

void loom_p2p_peer_err_handler(void *arg, int peer, loom_status_t status,
                               const char *what)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    char user_op[192], during[224] = "";

    (void)arg;
    if (peer < 0 || peer >= e->world_size || e->peers[peer].failed != LOOM_OK) {
        return;
    }
    e->peers[peer].failed = status < 0 ? status : LOOM_ERR_PEER_FAILED;
    ++e->peer_failures;
    /* loomrun: whatever this rank does next follows from the peer's failure */
    loom_bootstrap_note_peer_failure(peer);
    /* the user's operation it interrupts, named before it is failed */
    loom_p2p_report_pending_with(peer, user_op, sizeof(user_op));
    if (user_op[0] != '\0') {
        snprintf(during, sizeof(during), "; pending: %s", user_op);
    }
    if (!e->errors_return) {
        loom_error("p2p", "rank %s: peer rank %d (%s) failed (%s): aborting the job "
                   "(LOOM_ERRORS=abort)%s", loom_log_identity(), peer,
                   loom_p2p_peer_host(peer), what, during);
        loom_abort(1, "a peer process failed");
    }
    loom_error("p2p", "rank %s: peer rank %d (%s) failed (%s): operations with it "
               "complete with %s%s", loom_log_identity(), peer, loom_p2p_peer_host(peer),
               what, loom_status_name(e->peers[peer].failed), during);
    loom_p2p_peer_fail_all(&e->peers[peer], e->peers[peer].failed);
    if (!e->peers[peer].bye) {     /* finalize will not wait for its BYE */
        e->peers[peer].bye = 1;
        ++e->byes_received;
    }
}
