/*
 * tcp_slots.c: objects by (index, random cookie), for the regions a rank
 * exposes to get() and for its own outstanding gets.
 *
 * A peer names a region by the index and cookie of its rkey. The index finds
 * the slot at once; the 64-bit cookie, drawn afresh each time a slot is
 * filled, makes a stale rkey (region released, slot reused) or a forged one
 * miss, so a peer can read only what its owner currently exposes.
 */
#include "tcp_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define LOOM_TCP_SLOTS_NONE UINT32_MAX
#define LOOM_TCP_SLOTS_INIT 64

static uint64_t loom_tcp_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

loom_status_t loom_tcp_slots_init(loom_tcp_slots_t *t, uint32_t max_slots)
{
    memset(t, 0, sizeof(*t));
    t->max_slots = max_slots;
    t->free_head = LOOM_TCP_SLOTS_NONE;
    if (getrandom(&t->rng, sizeof(t->rng), 0) != (ssize_t)sizeof(t->rng)) {
        /* no entropy source: still unique per process and time */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        t->rng = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^
                 ((uint64_t)getpid() << 16);
    }
    return LOOM_OK;
}

void loom_tcp_slots_cleanup(loom_tcp_slots_t *t)
{
    free(t->v);
    t->v = NULL;
    t->cap = t->used = 0;
    t->free_head = LOOM_TCP_SLOTS_NONE;
}

uint64_t loom_tcp_slots_random(loom_tcp_slots_t *t)
{
    uint64_t r;

    do {
        r = loom_tcp_splitmix64(&t->rng);
    } while (r == 0);
    return r;
}

/* Slow path: double the table and chain the new slots into the free list. */
static loom_status_t loom_tcp_slots_grow(loom_tcp_slots_t *t)
{
    uint32_t ncap = t->cap ? t->cap * 2 : LOOM_TCP_SLOTS_INIT;
    loom_tcp_slot_t *nv;

    if (ncap > t->max_slots) {
        ncap = t->max_slots;
    }
    if (ncap <= t->cap) {
        return LOOM_ERR_NO_RESOURCE;
    }
    nv = realloc(t->v, (size_t)ncap * sizeof(*nv));
    if (nv == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (uint32_t i = ncap; i-- > t->cap;) {
        nv[i].obj       = NULL;
        nv[i].cookie    = 0;
        nv[i].next_free = t->free_head;
        t->free_head    = i;
    }
    t->v   = nv;
    t->cap = ncap;
    return LOOM_OK;
}

loom_status_t loom_tcp_slots_add(loom_tcp_slots_t *t, void *obj, uint32_t *idx_p,
                                 uint64_t *cookie_p)
{
    loom_tcp_slot_t *s;
    uint32_t idx;

    if (t->free_head == LOOM_TCP_SLOTS_NONE) {
        loom_status_t st = loom_tcp_slots_grow(t);
        if (st != LOOM_OK) {
            return st;
        }
    }
    idx = t->free_head;
    s = &t->v[idx];
    t->free_head = s->next_free;
    s->obj    = obj;
    s->cookie = loom_tcp_slots_random(t);
    ++t->used;
    *idx_p    = idx;
    *cookie_p = s->cookie;
    return LOOM_OK;
}

void *loom_tcp_slots_find(const loom_tcp_slots_t *t, uint32_t idx, uint64_t cookie)
{
    if (idx >= t->cap || cookie == 0 || t->v[idx].cookie != cookie) {
        return NULL;
    }
    return t->v[idx].obj;
}

void *loom_tcp_slots_find_id(const loom_tcp_slots_t *t, uint64_t id)
{
    uint32_t idx = (uint32_t)id;

    if (idx >= t->cap || t->v[idx].cookie == 0 ||
        (t->v[idx].cookie & 0xffffffffull) != id >> 32) {
        return NULL;
    }
    return t->v[idx].obj;
}

void loom_tcp_slots_remove(loom_tcp_slots_t *t, uint32_t idx)
{
    loom_tcp_slot_t *s;

    if (idx >= t->cap || t->v[idx].cookie == 0) {
        return;
    }
    s = &t->v[idx];
    s->obj       = NULL;
    s->cookie    = 0;
    s->next_free = t->free_head;
    t->free_head = idx;
    --t->used;
}
