/*
 * p2p_setup_int.h: how the runtime starts and stops the point-to-point
 * engine (p2p_setup.c). The one p2p header above the collectives' view:
 * only runtime/init.c includes it.
 *
 * Order at init: loom_p2p_check_state -> config -> loom_p2p_configure ->
 * bootstrap -> loom_p2p_start -> collectives. At finalize:
 * loom_p2p_check_state -> loom_p2p_drain + last fence -> loom_p2p_stop ->
 * collectives' cleanup -> bootstrap -> loom_p2p_unconfigure.
 */
#ifndef LOOM_P2P_SETUP_INT_H
#define LOOM_P2P_SETUP_INT_H

#include "bootstrap_int.h"

/**
 * LOOM_OK if the engine may start (@p finalizing 0: never started) or stop
 * (@p finalizing 1: running); else the error, logged under @p caller.
 */
loom_status_t loom_p2p_check_state(const char *caller, int finalizing);

/** Error policy and progress timeout from the configuration; hang-report signal. */
loom_status_t loom_p2p_configure(void);

/** Undo loom_p2p_configure (the signal handler). */
void loom_p2p_unconfigure(void);

/**
 * WORLD and SELF, every allowed transport opened, one fence, one endpoint
 * per peer, the engine's tables. On failure nothing is left open.
 */
loom_status_t loom_p2p_start(const loom_bootstrap_info_t *job);

/** Free communicators, the engine's tables, endpoints and transports. */
void loom_p2p_stop(int finalized);

/**
 * Finalize's drain (p2p_finalize.c): refuse (NAK) every unexpected RTS and
 * EAGER_SYNC, since no receive will be posted any more; finish sends (a
 * peer's NAK ends a send it will never match); exchange BYE with every peer.
 */
loom_status_t loom_p2p_drain(void);

/** loom_initialized() / loom_finalized() */
int loom_p2p_started(void);
int loom_p2p_stopped(void);

#endif /* LOOM_P2P_SETUP_INT_H */
