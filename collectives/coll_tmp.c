/*
 * coll_tmp.c: the collectives' temporary buffers and the orphan list, at
 * the bottom of the collectives' stack (they call nothing of the other
 * collectives files).
 *
 * A temporary buffer is the request's inline bytes when small, an element
 * of a pool of 64 KiB buffers up to that, else malloc'd. The orphan list
 * keeps what a failed collective left in flight (requests not complete,
 * with the temporary buffer they may still read or write) until it
 * completes, and the empty sends and draining receives that the mismatch
 * check (coll_check.c) posts to release peers; it is swept at each such
 * post and at the next collective's start. The list is the error path
 * only: malloc is fine there.
 */
#include "coll_tmp_int.h"
#include "log_int.h"
#include "mpool_int.h"

#include <stdlib.h>

#define LOOM_COLL_POOL_ELEM ((size_t)64 * 1024)

static loom_mpool_t loom_coll_tmp_pool;
static int          loom_coll_tmp_pool_ready;

static loom_coll_orphan_t *loom_coll_orphans;
int loom_coll_orphans_pending;

loom_status_t loom_coll_tmp_alloc(loom_coll_state_t *s, size_t bytes)
{
    loom_assert(s->tmp_kind == TMP_NONE);
    s->tmp_bytes = bytes;
    if (bytes <= LOOM_COLL_INLINE_TMP) {
        s->tmp      = s->inline_tmp;
        s->tmp_kind = TMP_INLINE;
        return LOOM_OK;
    }
    if (bytes <= LOOM_COLL_POOL_ELEM) {
        if (!loom_coll_tmp_pool_ready) {
            if (loom_mpool_init(&loom_coll_tmp_pool, "collective temporaries",
                                LOOM_COLL_POOL_ELEM, 4, 0) != LOOM_OK) {
                return LOOM_ERR_NO_MEMORY;
            }
            loom_coll_tmp_pool_ready = 1;
        }
        s->tmp = loom_mpool_get(&loom_coll_tmp_pool);
        if (s->tmp == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        s->tmp_kind = TMP_POOL;
        return LOOM_OK;
    }
    s->tmp = malloc(bytes);
    if (s->tmp == NULL) {
        loom_error("coll", "%s: cannot allocate %zu bytes of temporary buffer",
                   s->comm->name, bytes);
        return LOOM_ERR_NO_MEMORY;
    }
    s->tmp_kind = TMP_MALLOC;
    return LOOM_OK;
}

void loom_coll_tmp_free(void *tmp, uint8_t kind)
{
    switch (kind) {
    case TMP_POOL:   loom_mpool_put(&loom_coll_tmp_pool, tmp); break;
    case TMP_MALLOC: free(tmp); break;
    default: break;
    }
}

/* Keep @p o until its requests complete (o->tmp must outlive them). */
void loom_coll_orphan_add(loom_coll_orphan_t *o)
{
    o->next = loom_coll_orphans;
    loom_coll_orphans = o;
    loom_coll_orphans_pending = 1;
}

void loom_coll_orphans_sweep(void)
{
    loom_coll_orphan_t **pp = &loom_coll_orphans, *o;

    while ((o = *pp) != NULL) {
        int busy = 0;
        for (int i = 0; i < o->nreq; ++i) {
            busy |= !loom_request_is_complete(o->reqs[i]);
        }
        if (busy) {
            pp = &o->next;
            continue;
        }
        for (int i = 0; i < o->nreq; ++i) {
            loom_request_release(o->reqs[i]);
        }
        loom_coll_tmp_free(o->tmp, o->tmp_kind);
        *pp = o->next;
        free(o);
    }
    loom_coll_orphans_pending = loom_coll_orphans != NULL;
}

/* One message with @p peer (@p send: an empty send, else a receive of
 * @p bytes) whose request and buffer the orphan list keeps until done. */
static loom_status_t loom_coll_orphan_post(loom_comm_t comm, int peer, int tag,
                                           size_t bytes, int send)
{
    loom_coll_orphan_t *o = calloc(1, sizeof(*o));
    loom_status_t st;

    if (o == NULL || (o->tmp = calloc(1, bytes ? bytes : 1)) == NULL) {
        free(o);
        return LOOM_ERR_NO_MEMORY;
    }
    o->tmp_kind = TMP_MALLOC;
    st = send ? loom_p2p_isend_int(o->tmp, 0, peer, tag, comm, LOOM_CTX_COLL, 0, &o->reqs[0])
              : loom_p2p_irecv_int(o->tmp, bytes, peer, tag, comm, LOOM_CTX_COLL,
                                   &o->reqs[0]);
    if (st != LOOM_OK) {
        free(o->tmp);
        free(o);
        return st;
    }
    o->nreq = 1;
    loom_coll_orphan_add(o);
    loom_coll_orphans_sweep();
    return LOOM_OK;
}

loom_status_t loom_coll_orphan_send(loom_comm_t comm, int dst, int tag)
{
    return loom_coll_orphan_post(comm, dst, tag, 0, 1);
}

loom_status_t loom_coll_orphan_drain(loom_comm_t comm, int src, int tag, size_t bytes)
{
    return loom_coll_orphan_post(comm, src, tag, bytes, 0);
}
