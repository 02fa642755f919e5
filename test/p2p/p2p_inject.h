/*
 * p2p_inject.h: what the singleton engine suites (test_push.c, test_place.c,
 * test_p2pext.c) share: byte patterns that show where each byte came from,
 * progress passes, an RTS injected into the engine as if rank 0 (this
 * process) sent it, back-pressure to self, and the singleton's main.
 */
#ifndef LOOM_TEST_P2P_INJECT_H
#define LOOM_TEST_P2P_INJECT_H

#include "../common/cunit_main.h"
#include <loom.h>
#include "p2p_int.h"
#include "comm_int.h"
#include "request_int.h"
#include "p2p_engine_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INJECT_PUSH 4096u   /* LOOM_RNDV_PUSH of these suites */

/* pattern @p seed over p[0, n) */
static inline void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; ++i) {
        p[i] = (uint8_t)(i * 13 + seed + (i >> 9));
    }
}

/* 1 if p[from, to) holds the pattern of @p seed at those offsets */
static inline int holds(const uint8_t *p, size_t from, size_t to, unsigned seed)
{
    for (size_t i = from; i < to; ++i) {
        if (p[i] != (uint8_t)(i * 13 + seed + (i >> 9))) {
            fprintf(stderr, "byte %zu differs\n", i);
            return 0;
        }
    }
    return 1;
}

static inline void drain(void)
{
    for (int i = 0; i < 8; ++i) {
        loom_progress();
    }
}

/* An RTS from rank 0 for @p len bytes at @p src, with @p pushed bytes to follow. */
static inline void inject_rts(int tag, uint64_t sreq, size_t len, uint32_t pushed,
                              const void *src)
{
    loom_p2p_hdr_rts_t h;

    memset(&h, 0, sizeof(h));
    h.base = (loom_p2p_hdr_t){ .type = LOOM_P2P_RTS,
                               .ctx = loom_comm_ctx(LOOM_COMM_WORLD, LOOM_CTX_P2P),
                               .src = 0, .tag = tag, .len = len };
    h.sreq   = sreq;
    h.raddr  = (uint64_t)(uintptr_t)src;
    h.pushed = pushed;
    loom_p2p_am_handler(&loom_p2p_engine, 0, &h, sizeof(h));
}

/*
 * Back-pressure to self: a stray ACK put in peer 0's queue, so that frames
 * sent to self later wait behind it (until progress sends it).
 */
static inline void block_queue(void)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_p2p_peer_t *peer = &e->peers[0];
    loom_p2p_pending_t *item = loom_mpool_get(&e->pending_pool);
    loom_p2p_hdr_ctl_t ack = { .type = LOOM_P2P_ACK, .sreq = 0 };

    CU_ASSERT_PTR_NOT_NULL_FATAL(item);
    memset(item, 0, sizeof(*item));
    memcpy(item->hdr, &ack, sizeof(ack));
    item->hdr_len = sizeof(ack);
    loom_list_add_tail(&peer->pending, &item->list);
    peer->in_pending = 1;
    loom_list_add_tail(&e->pending_peers, &peer->pending_link);
}

/* Run @p cases as suite @p name in a singleton (errors return, pushes of INJECT_PUSH). */
static inline int inject_main(const char *name, const loom_test_case_t *cases)
{
    setenv("LOOM_RNDV_PUSH", "4096", 1);
    return loom_test_run_singleton(name, cases);
}

#endif /* LOOM_TEST_P2P_INJECT_H */
