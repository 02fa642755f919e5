/*
 * p2p_engine.c: the engine's process-wide state, at the bottom of the p2p
 * stack (docs/p2p.md "The files as a stack").
 *
 * Every file of the engine reads loom_p2p_engine (peers, pools, matching,
 * queues) and the report reads the stack of running collectives. Defining
 * them here, in a file that calls nothing, keeps "who holds the state" out
 * of the call graph: a file that only reads the state depends on no file
 * above it. The code that fills them is higher up (p2p_setup.c: the pools,
 * the transports and the peers; progress.c: the waiters).
 */
#include "p2p_engine_int.h"

loom_p2p_engine_t loom_p2p_engine;

loom_progress_coll_t *loom_progress_coll_top;
