/*
 * coll_tmp_int.h: the temporary buffers' kinds and the orphan list of
 * coll_tmp.c, for the end of a failed collective (coll_util.c).
 * loom_coll_tmp_alloc and the orphans' sweep and posts are in coll_int.h.
 */
#ifndef LOOM_COLL_TMP_INT_H
#define LOOM_COLL_TMP_INT_H

#include "coll_int.h"

/* s->tmp_kind */
enum { TMP_NONE = 0, TMP_INLINE, TMP_POOL, TMP_MALLOC };

/* what a failed collective left in flight (error path only: malloc is fine) */
typedef struct loom_coll_orphan {
    struct loom_coll_orphan *next;
    loom_request_t           reqs[LOOM_COLL_MAX_REQS + 1];
    int                      nreq;
    void                    *tmp;
    uint8_t                  tmp_kind;
} loom_coll_orphan_t;

/** Free a temporary buffer @p tmp of kind @p kind (TMP_*; inline: nothing). */
void loom_coll_tmp_free(void *tmp, uint8_t kind);

/** Keep @p o (malloc'd) until its requests complete, then free it and o->tmp. */
void loom_coll_orphan_add(loom_coll_orphan_t *o);

#endif /* LOOM_COLL_TMP_INT_H */
