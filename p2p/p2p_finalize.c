/*
 * p2p_finalize.c: the point-to-point part of loom_finalize.
 *
 *   1. finalizing = 1: from now on no receive will be posted, so every
 *      unexpected RTS or EAGER_SYNC (a rendezvous send or an ssend this rank
 *      never matched) is answered with a NAK, those held now and those that
 *      arrive later. The sender warns, naming this rank, the tag and the
 *      size, and completes the send with LOOM_ERR_CANCELED instead of
 *      waiting for a FIN or ACK that can never come. An erroneous program
 *      (an unmatched send left behind, possibly in both directions) thus
 *      finalizes with a warning instead of hanging; a correct one never sees
 *      a NAK, because its sends are matched before its peers finalize.
 *      Messages a matched probe took out of matching but no receive read
 *      (the engine's probed list) are NAKed the same way.
 *   2. Progress until every send of this rank completed (a NAK ends the
 *      unmatched ones, so this ends once peers reach finalize too).
 *   3. BYE to every rank, self included, and progress until every rank's
 *      BYE arrived: frames are ordered per pair, so a peer's BYE means all it
 *      sent us has arrived and been handled.
 *
 * The NAK and CANCEL frames themselves are p2p_cancel.c's (the receive
 * path answers them, so they sit below it); this file, near the top of the
 * p2p stack, only runs the sequence.
 */
#include "p2p_setup_int.h"
#include "p2p_engine_int.h"
#include "log_int.h"

/* NAK what is unexpected now, and what a matched probe took but no receive
 * read (its sender waits as well); what arrives later is NAKed on arrival */
static void loom_p2p_nak_all(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_match_unexp_t *u;
    struct loom_message *msg;

    e->finalizing = 1;
    loom_list_for_each(u, &e->match.unexp_all, all_list) {
        loom_p2p_nak_unexp(loom_container_of(u, loom_p2p_unexp_t, m));
    }
    loom_list_for_each(msg, &e->probed, list) {
        loom_p2p_nak_unexp(msg->ux);
    }
}

loom_status_t loom_p2p_drain(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_progress_waiter_t w;
    size_t expected = 0;

    loom_p2p_nak_all();
    loom_progress_waiter_init(&w, "loom_finalize");   /* completing sends */
    while (e->sends_active > 0) {
        loom_progress_wait_step(&w);
    }
    loom_progress_waiter_fini(&w);
    /* BYE to every rank, self included: frames are ordered per pair, so a
     * peer's BYE means all it sent us has arrived and been handled */
    for (int r = 0; r < e->world_size; ++r) {
        if (e->peers[r].ep != NULL) {
            loom_p2p_send_ctl(r, LOOM_P2P_BYE, 0);   /* skips failed peers */
            ++expected;
        }
    }
    loom_progress_waiter_init(&w, "loom_finalize");   /* every rank's BYE */
    while (e->byes_received < expected || !loom_list_is_empty(&e->pending_peers)) {
        loom_progress_wait_step(&w);
    }
    loom_progress_waiter_fini(&w);
    return LOOM_OK;
}
