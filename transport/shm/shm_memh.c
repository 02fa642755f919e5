/*
 * shm_memh.c: the registry of regions exposed by mem_pack.
 *
 * Nothing needs registering for process_vm_readv; the registry exists so
 * that the owner side of a pipelined get streams only what this rank
 * exposed: a GET_REQ names the registry entry and generation from the key,
 * and a request outside it (a stale key, a protocol bug, a corrupted frame)
 * gets an error answer instead of a read of arbitrary memory.
 *
 * Entries sit in fixed chunks that never move (the handle given to the
 * engine is the entry's address) and are recycled through a free list; a
 * generation that is odd while exposed tells a live entry from a reused
 * one. mem_pack costs a free-list pop, mem_release a push: no allocation
 * once the registry has grown to the number of rendezvous in flight.
 */
#include "shm_int.h"
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

#define LOOM_SHM_MEMH_MAX_CHUNKS (1u << 16)   /* 16M regions exposed at once */

static loom_shm_memh_t *loom_shm_memh_at(loom_shm_iface_t *iface, uint32_t idx)
{
    return &iface->memh_chunks[idx / LOOM_SHM_MEMH_CHUNK][idx % LOOM_SHM_MEMH_CHUNK];
}

/* Out of line: add a chunk of free entries. */
static loom_status_t loom_shm_memh_grow(loom_shm_iface_t *iface)
{
    uint32_t c = iface->memh_nchunks;
    loom_shm_memh_t **chunks;
    loom_shm_memh_t *chunk;

    if (c == LOOM_SHM_MEMH_MAX_CHUNKS) {
        loom_error("shm", "more than %u regions exposed for rendezvous at once",
                   LOOM_SHM_MEMH_MAX_CHUNKS * LOOM_SHM_MEMH_CHUNK);
        return LOOM_ERR_NO_RESOURCE;
    }
    chunks = realloc(iface->memh_chunks, (c + 1) * sizeof(*chunks));
    if (chunks == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    iface->memh_chunks = chunks;
    chunk = calloc(LOOM_SHM_MEMH_CHUNK, sizeof(*chunk));
    if (chunk == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    chunks[c] = chunk;
    iface->memh_nchunks = c + 1;
    for (uint32_t i = LOOM_SHM_MEMH_CHUNK; i-- > 0;) {
        chunk[i].idx       = c * LOOM_SHM_MEMH_CHUNK + i;
        chunk[i].next_free = iface->memh_free;
        iface->memh_free   = c * LOOM_SHM_MEMH_CHUNK + i + 1;
    }
    return LOOM_OK;
}

loom_status_t loom_shm_mem_pack(loom_tl_iface_t *tl, const void *addr, size_t len,
                                loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p)
{
    loom_shm_iface_t *iface = loom_container_of(tl, loom_shm_iface_t, super);
    loom_shm_rkey_t key;
    loom_shm_memh_t *m;
    loom_status_t status;
    uint32_t idx;

    _Static_assert(sizeof(key) <= LOOM_TL_RKEY_MAX, "shm rkey does not fit");
    if (loom_unlikely(iface->memh_free == 0) && (status = loom_shm_memh_grow(iface)) != LOOM_OK) {
        return status;
    }
    idx = iface->memh_free - 1;
    m   = loom_shm_memh_at(iface, idx);
    iface->memh_free = m->next_free;
    m->addr = (uint64_t)(uintptr_t)addr;
    m->len  = len;
    m->gen |= 1;   /* odd: exposed */

    key.magic    = LOOM_SHM_RKEY_MAGIC;
    key.pid      = (int32_t)iface->pid;
    key.addr     = m->addr;
    key.len      = len;
    key.memh_idx = idx;
    key.memh_gen = m->gen;
    memcpy(rkey->data, &key, sizeof(key));
    *memh_p = (loom_tl_memh_t *)m;
    return LOOM_OK;
}

void loom_shm_mem_release(loom_tl_iface_t *tl, loom_tl_memh_t *memh)
{
    loom_shm_iface_t *iface = loom_container_of(tl, loom_shm_iface_t, super);
    loom_shm_memh_t *m = (loom_shm_memh_t *)memh;

    m->gen += 1;   /* even: no longer exposed; keys that name it are refused */
    m->next_free = iface->memh_free;
    iface->memh_free = m->idx + 1;
}

int loom_shm_memh_covers(loom_shm_iface_t *iface, uint32_t idx, uint32_t gen,
                         uint64_t addr, uint64_t len)
{
    const loom_shm_memh_t *m;

    if (idx / LOOM_SHM_MEMH_CHUNK >= iface->memh_nchunks) {
        return 0;
    }
    m = loom_shm_memh_at(iface, idx);
    return (gen & 1) && m->gen == gen && addr >= m->addr && len <= m->len &&
           addr - m->addr <= m->len - len;
}

void loom_shm_memh_cleanup(loom_shm_iface_t *iface)
{
    for (uint32_t c = 0; c < iface->memh_nchunks; ++c) {
        free(iface->memh_chunks[c]);
    }
    free(iface->memh_chunks);
    iface->memh_chunks  = NULL;
    iface->memh_nchunks = 0;
    iface->memh_free    = 0;
}
