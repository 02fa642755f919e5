/*
 * request.c: request objects: the pool, generic requests (collectives)
 * and the creation of extended ones (persistent, generalized).
 *
 * Requests come from one memory pool; a released request has kind 0, so a
 * stale handle is reported as invalid rather than silently reused (the pool
 * link overwrites only the first word, not kind).
 *
 * In the p2p stack (docs/p2p.md) this file is low: the send and receive
 * paths allocate requests and progress runs the generic ones, so it calls
 * nothing above the engine's state and the communicators. The user's calls
 * that complete or start requests (wait, test, start, free), which run
 * progress and the protocols, are request_wait.c, near the top.
 */
#include "p2p_engine_int.h"
#include "log_int.h"

#include <string.h>

loom_request_t loom_request_alloc(loom_request_kind_t kind, loom_comm_t comm)
{
    loom_request_t req = loom_mpool_get(&loom_p2p_engine.req_pool);

    if (loom_unlikely(req == NULL)) {
        loom_error("p2p", "cannot allocate a request (%zu in use)",
                   loom_p2p_engine.req_pool.in_use);
        return NULL;
    }
    req->kind       = (uint8_t)kind;
    req->user_freed = 0;
    req->ext        = LOOM_REQ_EXT_NONE;
    req->comm       = comm;
    loom_p2p_req(req)->dt = NULL;   /* a contiguous operation unless typed */
    loom_request_restart(req);
    return req;
}

void loom_request_release(loom_request_t req)
{
    loom_p2p_req_release(req);
}

/* ---- generic requests ------------------------------------------------------ */

loom_status_t loom_request_generic_alloc(loom_comm_t comm, const char *op_name,
                                         loom_request_progress_fn_t progress_fn,
                                         loom_request_cleanup_fn_t cleanup_fn,
                                         loom_request_t *req_p)
{
    loom_request_t req = loom_request_alloc(LOOM_REQ_GENERIC, comm);

    if (req == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    req->op_name     = op_name;
    req->op_seq      = comm != NULL ? comm->coll_seq : 0;
    req->alg_name    = NULL;
    req->phase_fn    = NULL;
    req->progress_fn = progress_fn;
    req->cleanup_fn  = cleanup_fn;
    *req_p = req;
    return LOOM_OK;
}

static inline void loom_request_generic_finish(loom_request_t req, loom_status_t status)
{
    if (req->cleanup_fn != NULL) {
        req->cleanup_fn(req);
    }
    loom_request_complete(req, status);
}

void loom_request_generic_start(loom_request_t req)
{
    loom_status_t status = req->progress_fn(req);

    if (status == LOOM_INPROGRESS) {
        loom_list_add_tail(&loom_p2p_engine.generic_active, &req->list);
        return;
    }
    loom_request_generic_finish(req, status);
}

int loom_request_generic_progress(void)
{
    static int running;
    loom_list_t *head = &loom_p2p_engine.generic_active;
    loom_list_t *e, *next;
    int done = 0;

    /* a progress_fn that blocks (and so progresses) must not re-enter the
     * list it is being called from, nor itself */
    if (running) {
        return 0;
    }
    running = 1;
    /* requests started by a progress_fn land at the tail and run this pass */
    for (e = head->next; e != head; e = next) {
        loom_request_t req = loom_list_entry(e, struct loom_request, list);
        loom_status_t status = req->progress_fn(req);

        next = e->next;
        if (status != LOOM_INPROGRESS) {
            loom_list_del(&req->list);
            loom_request_generic_finish(req, status);
            ++done;
        }
    }
    running = 0;
    return done;
}

/* ---- extended requests: persistent and generalized (request_int.h) ---------------- */

/* an extended request's common fields; inactive for a persistent one */
static loom_status_t loom_request_ext_alloc(loom_request_kind_t kind, loom_comm_t comm,
                                            uint8_t ext, loom_request_t *req_p)
{
    loom_request_t req = loom_request_alloc(kind, comm);

    if (req == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    memset(loom_request_ext(req), 0, sizeof(loom_request_ext_t));
    req->ext = ext;
    req->op_name  = NULL;
    req->op_seq   = 0;
    req->alg_name = NULL;
    req->phase_fn = NULL;
    req->progress_fn = NULL;
    req->cleanup_fn  = NULL;
    if (ext == LOOM_REQ_EXT_PERSIST) {
        loom_comm_persist_ref(comm);   /* a free of comm waits for this request */
        req->complete = 1;       /* inactive: waits return at once */
        req->inactive = 1;
        req->status   = LOOM_OK;
    }
    *req_p = req;
    return LOOM_OK;
}

loom_status_t loom_request_persist_custom(loom_comm_t comm, const char *op_name,
                                          loom_request_start_fn_t start_fn,
                                          loom_request_t *req_p)
{
    loom_status_t st = loom_request_ext_alloc(LOOM_REQ_GENERIC, comm, LOOM_REQ_EXT_PERSIST,
                                              req_p);

    if (st == LOOM_OK) {
        (*req_p)->op_name = op_name;
        loom_request_ext(*req_p)->start_fn = start_fn;
    }
    return st;
}

loom_status_t loom_request_greq_alloc(loom_comm_t comm, loom_request_finish_fn_t finish_fn,
                                      loom_request_t *req_p)
{
    loom_status_t st = loom_request_ext_alloc(LOOM_REQ_GENERIC, comm, LOOM_REQ_EXT_GREQ,
                                              req_p);

    if (st == LOOM_OK) {
        (*req_p)->op_name = "grequest";
        loom_request_ext(*req_p)->finish_fn = finish_fn;
    }
    return st;
}

void loom_request_ext_complete(loom_request_t req, loom_status_t status)
{
    loom_request_complete(req, status);
}

/* the persistent request's arguments, checked as loom_isend/loom_irecv check them */
loom_status_t loom_request_persist_p2p_dt(void *buf, size_t count, loom_dt_t *dt, int peer,
                                          int tag, unsigned flags, int is_recv,
                                          loom_comm_t comm, loom_request_t *req_p)
{
    loom_status_t st = loom_request_persist_p2p(buf, count, peer, tag, flags, is_recv, comm,
                                                req_p);

    if (st == LOOM_OK) {
        loom_dt_retain(dt);   /* released when the request is freed */
        loom_request_ext(*req_p)->dt = dt;
    }
    return st;
}

loom_status_t loom_request_persist_p2p(void *buf, size_t bytes, int peer, int tag,
                                       unsigned flags, int is_recv, loom_comm_t comm,
                                       loom_request_t *req_p)
{
    loom_request_kind_t kind = is_recv ? LOOM_REQ_RECV : LOOM_REQ_SEND;
    loom_status_t st = loom_request_ext_alloc(kind, comm, LOOM_REQ_EXT_PERSIST, req_p);
    loom_request_ext_t *x;

    if (st != LOOM_OK) {
        return st;
    }
    x = loom_request_ext(*req_p);
    x->buf     = buf;
    x->bytes   = bytes;
    x->peer    = peer;
    x->tag     = tag;
    x->flags   = flags;
    x->is_recv = (uint8_t)is_recv;
    /* a receive's posted entry is read by hang reports and loom_request_peer */
    loom_match_posted_prep(&loom_p2p_req(*req_p)->posted, 0, peer, tag);
    return LOOM_OK;
}
