/*
 * mpool.c: out-of-line parts of the object pool.
 */
#include "mpool_int.h"
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

loom_status_t loom_mpool_init(loom_mpool_t *mp, const char *name, size_t elem_size,
                              size_t elems_per_chunk, size_t max_elems)
{
    if (elem_size == 0 || elems_per_chunk == 0) {
        loom_error("core", "memory pool '%s': element size (%zu) and chunk "
                   "count (%zu) must be positive", name, elem_size, elems_per_chunk);
        return LOOM_ERR_INVALID_ARG;
    }
    memset(mp, 0, sizeof(*mp));
    mp->name            = name;
    mp->elem_size       = LOOM_ALIGN_UP(LOOM_MAX(elem_size, sizeof(loom_mpool_elem_t)),
                                        (size_t)LOOM_CACHE_LINE);
    mp->elems_per_chunk = elems_per_chunk;
    mp->max_elems       = max_elems;
    return LOOM_OK;
}

loom_status_t loom_mpool_grow(loom_mpool_t *mp)
{
    size_t n = mp->elems_per_chunk;
    loom_mpool_chunk_t *chunk;
    char *base;

    if (mp->max_elems != 0) {
        if (mp->num_elems >= mp->max_elems) {
            return LOOM_ERR_NO_RESOURCE;
        }
        n = LOOM_MIN(n, mp->max_elems - mp->num_elems);
    }
    /* the chunk header takes one element slot so objects stay aligned */
    if (posix_memalign((void **)&chunk, LOOM_CACHE_LINE, (n + 1) * mp->elem_size) != 0) {
        loom_error("core", "memory pool '%s': cannot allocate %zu objects of %zu bytes",
                   mp->name, n, mp->elem_size);
        return LOOM_ERR_NO_MEMORY;
    }
    chunk->next = mp->chunks;
    mp->chunks  = chunk;
    base        = (char *)chunk + mp->elem_size;
    for (size_t i = n; i-- > 0;) {
        loom_mpool_elem_t *e = (loom_mpool_elem_t *)(base + i * mp->elem_size);
        e->next       = mp->free_list;
        mp->free_list = e;
    }
    mp->num_elems += n;
    return LOOM_OK;
}

void loom_mpool_cleanup(loom_mpool_t *mp)
{
    loom_mpool_chunk_t *c = mp->chunks, *next;

    if (mp->in_use != 0) {
        loom_debug("core", "memory pool '%s' released with %zu objects in use",
                   mp->name, mp->in_use);
    }
    for (; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    memset(mp, 0, sizeof(*mp));
}
