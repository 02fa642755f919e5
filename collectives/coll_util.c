/*
 * coll_util.c: what every algorithm shares: posting the point-to-point
 * messages of a step, waiting for them, child collectives, and temporary
 * buffers that do not call malloc for small sizes.
 */
#include "coll_int.h"
#include "log_int.h"
#include "mpool_int.h"

#include <stdlib.h>

enum { TMP_NONE = 0, TMP_INLINE, TMP_POOL, TMP_MALLOC };

#define LOOM_COLL_POOL_ELEM ((size_t)64 * 1024)

static loom_mpool_t loom_coll_tmp_pool;
static int          loom_coll_tmp_pool_ready;

loom_status_t loom_coll_send(loom_coll_state_t *s, const void *buf, size_t bytes, int peer)
{
    loom_status_t st;

    loom_assert(s->nreq < LOOM_COLL_MAX_REQS);
    st = loom_p2p_isend_int(buf, bytes, peer, s->tag, s->comm, LOOM_CTX_COLL, 0,
                            &s->reqs[s->nreq]);
    if (loom_likely(st == LOOM_OK)) {
        ++s->nreq;
    }
    return st;
}

loom_status_t loom_coll_recv(loom_coll_state_t *s, void *buf, size_t bytes, int peer)
{
    loom_status_t st;

    loom_assert(s->nreq < LOOM_COLL_MAX_REQS);
    st = loom_p2p_irecv_int(buf, bytes, peer, s->tag, s->comm, LOOM_CTX_COLL,
                            &s->reqs[s->nreq]);
    if (loom_likely(st == LOOM_OK)) {
        ++s->nreq;
    }
    return st;
}

loom_status_t loom_coll_wait(loom_coll_state_t *s)
{
    loom_status_t st = LOOM_OK;

    if (s->child != NULL && !loom_request_is_complete(s->child)) {
        return LOOM_INPROGRESS;
    }
    for (int i = 0; i < s->nreq; ++i) {
        if (!loom_request_is_complete(s->reqs[i])) {
            return LOOM_INPROGRESS;
        }
    }
    if (s->child != NULL) {
        st = s->child->status;
        loom_request_release(s->child);
        s->child = NULL;
    }
    for (int i = 0; i < s->nreq; ++i) {
        if (s->reqs[i]->status != LOOM_OK && st == LOOM_OK) {
            st = s->reqs[i]->status;
        }
        loom_request_release(s->reqs[i]);
    }
    s->nreq = 0;
    return st;
}

loom_status_t loom_coll_child_start(loom_coll_state_t *s, const char *name,
                                    loom_request_progress_fn_t progress_fn,
                                    const loom_coll_state_t *args)
{
    loom_coll_state_t *cs;
    loom_request_t child;
    loom_status_t st;

    st = loom_request_generic_alloc(s->comm, name, progress_fn, loom_coll_state_cleanup,
                                    &child);
    if (st != LOOM_OK) {
        return st;
    }
    cs = loom_coll_state(child);
    memcpy(cs, args, sizeof(*cs));
    cs->phase     = 0;
    cs->step      = 0;
    cs->nreq      = 0;
    cs->child     = NULL;
    cs->tmp       = NULL;
    cs->tmp_bytes = 0;
    cs->tmp_kind  = TMP_NONE;
    cs->tag       = s->tag;
    child->op_seq = s->comm->coll_seq;
    s->child      = child;
    loom_request_generic_start(child);
    return LOOM_OK;
}

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

void loom_coll_state_cleanup(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);

    /* on error, requests may still be in flight: let them finish unattended */
    for (int i = 0; i < s->nreq; ++i) {
        if (loom_request_is_complete(s->reqs[i])) {
            loom_request_release(s->reqs[i]);
        } else {
            s->reqs[i]->user_freed = 1;
        }
    }
    s->nreq = 0;
    if (s->child != NULL) {
        if (loom_request_is_complete(s->child)) {
            loom_request_release(s->child);
        } else {
            s->child->user_freed = 1;
        }
        s->child = NULL;
    }
    switch (s->tmp_kind) {
    case TMP_POOL:   loom_mpool_put(&loom_coll_tmp_pool, s->tmp); break;
    case TMP_MALLOC: free(s->tmp); break;
    default: break;
    }
    s->tmp      = NULL;
    s->tmp_kind = TMP_NONE;
}
