/*
 * p2p_am_int.h: the engine's side of the frames for layers above it
 * (p2p_am.c; the layers' side is in p2p_int.h). Not exported: only the
 * receive path (p2p_recv.c) hands an arriving AM frame here.
 */
#ifndef LOOM_P2P_AM_INT_H
#define LOOM_P2P_AM_INT_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/**
 * An AM frame of @p len bytes (header included) arrived from world rank
 * @p world_src: hand its payload to the registered function, or log and
 * drop it (malformed, or no function for its id).
 */
void loom_p2p_am_dispatch(int world_src, const void *frame, size_t len);

#pragma GCC visibility pop

#endif /* LOOM_P2P_AM_INT_H */
