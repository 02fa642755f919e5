/*
 * p2p_rdma.c: the engine's choice of transport per peer, for the
 * one-sided layer (p2p_rdma_int.h).
 */
#include "p2p_rdma_int.h"
#include "p2p_engine_int.h"

loom_tl_iface_t *loom_p2p_peer_iface(int world_rank)
{
    const loom_p2p_engine_t *e = &loom_p2p_engine;
    const loom_p2p_peer_t *peer;

    if (e->peers == NULL || world_rank < 0 || world_rank >= e->world_size ||
        world_rank == e->world_rank) {
        return NULL;
    }
    peer = &e->peers[world_rank];
    if (peer->ep == NULL || peer->failed != LOOM_OK) {
        return NULL;
    }
    return peer->ep->iface;
}
