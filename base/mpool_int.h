/*
 * mpool_int.h: fixed-size object pool. Get and put are inline and never
 * call malloc once the pool is warm; growing is out of line (after UCX's
 * ucs/datastruct/mpool.inl). Objects are cache-line aligned. Not thread-safe:
 * loom is single-threaded per process.
 */
#ifndef LOOM_MPOOL_INT_H
#define LOOM_MPOOL_INT_H

#include "compiler_int.h"
#include <loom.h>

typedef struct loom_mpool_elem {
    struct loom_mpool_elem *next;
} loom_mpool_elem_t;

typedef struct loom_mpool_chunk {
    struct loom_mpool_chunk *next;
} loom_mpool_chunk_t;

typedef struct loom_mpool {
    loom_mpool_elem_t  *free_list;
    loom_mpool_chunk_t *chunks;
    size_t              elem_size;     /* rounded up to the alignment */
    size_t              elems_per_chunk;
    size_t              max_elems;     /* 0 = unlimited */
    size_t              num_elems;     /* allocated so far */
    size_t              in_use;
    const char         *name;          /* for error messages */
} loom_mpool_t;

/**
 * Initialize a pool of @p elem_size objects, growing @p elems_per_chunk at a
 * time, at most @p max_elems in all (0 = no limit).
 */
loom_status_t loom_mpool_init(loom_mpool_t *mp, const char *name, size_t elem_size,
                              size_t elems_per_chunk, size_t max_elems);

/** Release every chunk. Objects still in use become invalid. */
void loom_mpool_cleanup(loom_mpool_t *mp);

/** Out-of-line slow path: add one chunk. */
loom_status_t loom_mpool_grow(loom_mpool_t *mp);

/** @return an object, or NULL when the pool is at its limit or out of memory. */
static inline void *loom_mpool_get(loom_mpool_t *mp)
{
    loom_mpool_elem_t *e = mp->free_list;
    if (loom_unlikely(e == NULL)) {
        if (loom_mpool_grow(mp) != LOOM_OK) {
            return NULL;
        }
        e = mp->free_list;
    }
    mp->free_list = e->next;
    ++mp->in_use;
    return e;
}

static inline void loom_mpool_put(loom_mpool_t *mp, void *obj)
{
    loom_mpool_elem_t *e = (loom_mpool_elem_t *)obj;
    e->next = mp->free_list;
    mp->free_list = e;
    --mp->in_use;
}

#endif /* LOOM_MPOOL_INT_H */
