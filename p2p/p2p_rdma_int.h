/*
 * p2p_rdma_int.h: which transport the p2p engine chose for a peer, for
 * the one-sided layer (rma/rma_ib.c), which puts RDMA work on that
 * transport's endpoints (tl.h rma_* ops) instead of sending messages.
 *
 * Design. The engine picks one transport per peer at setup (self, shm,
 * tcp, ib in order of preference, as LOOM_TRANSPORTS allows); the RMA
 * layer follows that choice, so a peer that the engine reaches by shared
 * memory keeps the shared-memory paths and only peers reached by a
 * transport offering one-sided ops get RDMA. Read-only: nothing here
 * changes the engine's state.
 */
#ifndef LOOM_P2P_RDMA_INT_H
#define LOOM_P2P_RDMA_INT_H

#include <loom.h>
#include "tl.h"

/**
 * @brief The transport serving world rank @p world_rank, or NULL (this
 * process, an unreachable or failed peer, or no engine).
 */
loom_tl_iface_t *loom_p2p_peer_iface(int world_rank);

#endif /* LOOM_P2P_RDMA_INT_H */
