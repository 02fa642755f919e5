/*
 * p2p_sreq.c: ids for send requests that wait for a peer's ACK or FIN.
 *
 * An EAGER_SYNC or RTS frame carries an id the receiver echoes back in its
 * ACK/FIN. The id is (generation << 32 | slot) in a table of waiting
 * requests rather than the request's address, so a corrupt, stale or
 * duplicated reply is detected and reported instead of completing (or
 * crashing on) whatever the address now holds. Only synchronous and
 * rendezvous sends use the table; the eager fast path never touches it. The
 * table grows by doubling (amortized, off the fast path) and slots are
 * reused LIFO, so it stays as small as the peak number of waiting sends.
 */
#include "p2p_engine_int.h"
#include "log_int.h"

#include <stdlib.h>

#define LOOM_P2P_SREQ_FREE_END UINT32_MAX

typedef struct loom_p2p_sreq_slot {
    loom_request_t req;        /* NULL when free */
    uint32_t       gen;        /* never 0: an all-zero id is never valid */
    uint32_t       next_free;
} loom_p2p_sreq_slot_t;

static struct {
    loom_p2p_sreq_slot_t *slots;
    uint32_t              cap;
    uint32_t              free_head;
} loom_p2p_sreq = { NULL, 0, LOOM_P2P_SREQ_FREE_END };

static loom_status_t loom_p2p_sreq_grow(void)
{
    uint32_t cap = loom_p2p_sreq.cap ? loom_p2p_sreq.cap * 2 : 256;
    loom_p2p_sreq_slot_t *slots;

    if (cap <= loom_p2p_sreq.cap || cap == LOOM_P2P_SREQ_FREE_END) {
        loom_error("p2p", "too many synchronous/rendezvous sends waiting (%u)",
                   loom_p2p_sreq.cap);
        return LOOM_ERR_NO_RESOURCE;
    }
    slots = realloc(loom_p2p_sreq.slots, (size_t)cap * sizeof(*slots));
    if (slots == NULL) {
        loom_error("p2p", "out of memory for %u waiting send requests", cap);
        return LOOM_ERR_NO_MEMORY;
    }
    for (uint32_t i = cap; i-- > loom_p2p_sreq.cap;) {
        slots[i].req       = NULL;
        slots[i].gen       = 1;
        slots[i].next_free = loom_p2p_sreq.free_head;
        loom_p2p_sreq.free_head = i;
    }
    loom_p2p_sreq.slots = slots;
    loom_p2p_sreq.cap   = cap;
    return LOOM_OK;
}

loom_status_t loom_p2p_sreq_register(loom_request_t req, uint64_t *id_p)
{
    loom_p2p_sreq_slot_t *slot;
    uint32_t idx;

    if (loom_unlikely(loom_p2p_sreq.free_head == LOOM_P2P_SREQ_FREE_END)) {
        loom_status_t st = loom_p2p_sreq_grow();
        if (st != LOOM_OK) {
            return st;
        }
    }
    idx  = loom_p2p_sreq.free_head;
    slot = &loom_p2p_sreq.slots[idx];
    loom_p2p_sreq.free_head = slot->next_free;
    slot->req = req;
    *id_p = ((uint64_t)slot->gen << 32) | idx;
    return LOOM_OK;
}

loom_request_t loom_p2p_sreq_find(uint64_t id)
{
    uint32_t idx = (uint32_t)id, gen = (uint32_t)(id >> 32);
    loom_p2p_sreq_slot_t *slot;

    if (idx >= loom_p2p_sreq.cap) {
        return NULL;
    }
    slot = &loom_p2p_sreq.slots[idx];
    return slot->gen == gen ? slot->req : NULL;
}

loom_request_t loom_p2p_sreq_take(uint64_t id)
{
    uint32_t idx = (uint32_t)id, gen = (uint32_t)(id >> 32);
    loom_request_t req = loom_p2p_sreq_find(id);
    loom_p2p_sreq_slot_t *slot;

    if (req == NULL) {
        return NULL;
    }
    slot = &loom_p2p_sreq.slots[idx];
    slot->req       = NULL;
    slot->gen       = gen + 1 == 0 ? 1 : gen + 1;
    slot->next_free = loom_p2p_sreq.free_head;
    loom_p2p_sreq.free_head = idx;
    return req;
}

void loom_p2p_sreq_cleanup(void)
{
    free(loom_p2p_sreq.slots);
    loom_p2p_sreq.slots     = NULL;
    loom_p2p_sreq.cap       = 0;
    loom_p2p_sreq.free_head = LOOM_P2P_SREQ_FREE_END;
}
