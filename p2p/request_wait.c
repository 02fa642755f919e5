/*
 * request_wait.c: the user's calls on requests: test, wait and their
 * all/any forms, start/startall of persistent requests, get_status, free.
 *
 * Near the top of the p2p stack (docs/p2p.md): these calls run progress
 * and (start) the send and receive paths, and end with the error policy.
 * The request objects they act on are request.c's, below everything that
 * creates requests. The status helpers live here with loom_wait and
 * loom_test, which inline them.
 */
#include "p2p_engine_int.h"
#include "log_int.h"
#include "mt_int.h"

static void loom_request_status_empty(loom_msg_status_t *status)
{
    if (status != LOOM_STATUS_IGNORE) {
        status->source    = LOOM_ANY_SOURCE;
        status->tag       = LOOM_ANY_TAG;
        status->error     = LOOM_OK;
        status->cancelled = 0;
        status->bytes     = 0;
    }
}

void loom_request_status_copy(loom_request_t req, loom_msg_status_t *status)
{
    if (status != LOOM_STATUS_IGNORE) {
        *status = req->msg;
    }
}

loom_status_t loom_request_wait_int(loom_request_t req, loom_msg_status_t *status)
{
    loom_progress_waiter_t w;
    loom_status_t st;

    /* a blocking collective's own name: "loom_allreduce" */
    if (req->kind == LOOM_REQ_GENERIC && req->op_name != NULL) {
        loom_progress_waiter_init(&w, req->op_name);
        w.what_is_op = 1;
    } else {
        loom_progress_waiter_init(&w, "loom_wait");
    }
    while (!req->complete) {
        loom_progress_wait_step(&w);
    }
    loom_progress_waiter_fini(&w);
    loom_request_status_copy(req, status);
    st = req->status;
    loom_request_release(req);
    return st;
}

/* ---- extended requests: persistent and generalized (request_int.h) ---------------- */

static loom_status_t loom_request_check(loom_request_t *req_p, const char *op);

/*
 * The user completes an extended request: a persistent one reports its
 * operation's status (or an empty one while inactive) and becomes inactive,
 * keeping its handle; a generalized one asks its owner for the status, then
 * is released.
 */
static __attribute__((noinline)) loom_status_t
loom_request_ext_finish(loom_request_t *req_p, loom_msg_status_t *status)
{
    loom_request_t req = *req_p;
    loom_status_t st;

    if (req->ext == LOOM_REQ_EXT_PERSIST) {
        if (req->inactive) {
            loom_request_status_empty(status);
            return LOOM_OK;
        }
        loom_request_status_copy(req, status);
        req->inactive = 1;
        return req->status;
    }
    st = loom_request_ext(req)->finish_fn(req, status, 1);
    loom_request_release(req);
    *req_p = LOOM_REQUEST_NULL;
    return st;
}

/* start one persistent request (checked); on failure it stays inactive */
static loom_status_t loom_request_start_one(loom_request_t req)
{
    loom_request_ext_t *x = loom_request_ext(req);
    loom_status_t st;

    loom_request_restart(req);
    if (x->start_fn != NULL) {
        st = x->start_fn(req);
    } else if (x->peer == LOOM_PROC_NULL) {
        if (req->kind == LOOM_REQ_SEND) {
            ++loom_p2p_engine.sends_active;   /* loom_request_complete counts it down */
        }
        loom_request_complete(req, LOOM_OK);
        req->msg.source = LOOM_PROC_NULL;
        st = LOOM_OK;
    } else if (loom_unlikely(x->dt != NULL)) {   /* a non-contiguous type */
        st = x->is_recv ? loom_p2p_irecv_dt_start(req, x->buf, x->bytes, x->dt, x->peer,
                                                  x->tag, req->comm, LOOM_CTX_P2P)
                        : loom_p2p_isend_dt_start(req, x->buf, x->bytes, x->dt, x->peer,
                                                  x->tag, req->comm, LOOM_CTX_P2P, x->flags);
    } else if (x->is_recv) {
        st = loom_p2p_irecv_start(req, x->buf, x->bytes, x->peer, x->tag, req->comm,
                                  LOOM_CTX_P2P);
    } else {
        st = loom_p2p_isend_start(req, x->buf, x->bytes, x->peer, x->tag, req->comm,
                                  LOOM_CTX_P2P, x->flags);
    }
    if (st < 0) {
        req->complete = 1;
        req->inactive = 1;
        req->status   = LOOM_OK;
    }
    return st;
}

static loom_status_t loom_request_start_check(loom_request_t *req_p, const char *op)
{
    loom_status_t st = loom_request_check(req_p, op);

    if (st != LOOM_OK) {
        return st;
    }
    if (*req_p == LOOM_REQUEST_NULL || (*req_p)->ext != LOOM_REQ_EXT_PERSIST) {
        loom_error("p2p", "%s: request %p is %s", op, (void *)*req_p,
                   *req_p == LOOM_REQUEST_NULL ? "LOOM_REQUEST_NULL" : "not persistent");
        return LOOM_ERR_INVALID_REQUEST;
    }
    if (!(*req_p)->inactive) {
        loom_error("p2p", "%s: persistent request %p is already active (complete it "
                   "with wait/test before starting it again)", op, (void *)*req_p);
        return LOOM_ERR_INVALID_REQUEST;
    }
    return LOOM_OK;
}

loom_status_t loom_start(loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_request_start_check(req_p, "loom_start");

    if (st == LOOM_OK) {
        st = loom_request_start_one(*req_p);
    }
    return st < 0 ? loom_p2p_error(st, "loom_start") : st;
}

loom_status_t loom_startall(size_t n, loom_request_t reqs[])
{
    LOOM_MT_GUARD();
    loom_status_t st = LOOM_OK;

    if (n > 0 && reqs == NULL) {
        loom_error("p2p", "loom_startall: the request array is NULL with n = %zu", n);
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_startall");
    }
    for (size_t i = 0; i < n && st >= 0; ++i) {
        st = loom_request_start_check(&reqs[i], "loom_startall");
        if (st == LOOM_OK) {
            st = loom_request_start_one(reqs[i]);
        }
    }
    return st < 0 ? loom_p2p_error(st, "loom_startall") : st;
}

loom_status_t loom_request_get_status(loom_request_t req, int *flag_p,
                                      loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    loom_request_t r = req;
    loom_status_t st = loom_request_check(&r, "loom_request_get_status");

    if (st == LOOM_OK && flag_p == NULL) {
        loom_error("p2p", "loom_request_get_status: flag_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error(st, "loom_request_get_status");
    }
    if (req == LOOM_REQUEST_NULL || req->inactive) {
        loom_request_status_empty(status);
        *flag_p = 1;
        return LOOM_OK;
    }
    if (!req->complete) {
        loom_progress_poll_user();
    }
    *flag_p = req->complete;
    if (!req->complete) {
        return LOOM_OK;
    }
    if (req->ext == LOOM_REQ_EXT_GREQ) {
        return loom_request_ext(req)->finish_fn(req, status, 0);
    }
    loom_request_status_copy(req, status);
    return req->status < 0 ? req->status : LOOM_OK;
}

/* ---- public completion calls -------------------------------------------------- */

static loom_status_t loom_request_check(loom_request_t *req_p, const char *op)
{
    if (loom_unlikely(loom_p2p_engine.state != LOOM_STATE_INIT)) {
        loom_error("p2p", "%s: called %s", op,
                   loom_p2p_engine.state == LOOM_STATE_UNINIT ?
                   "before loom_init()" : "after loom_finalize()");
        return loom_p2p_engine.state == LOOM_STATE_UNINIT ?
               LOOM_ERR_NOT_INITIALIZED : LOOM_ERR_FINALIZED;
    }
    if (loom_unlikely(req_p == NULL)) {
        loom_error("p2p", "%s: the request pointer is NULL", op);
        return LOOM_ERR_INVALID_ARG;
    }
    if (*req_p != LOOM_REQUEST_NULL &&
        loom_unlikely((*req_p)->kind == 0 || (*req_p)->kind > LOOM_REQ_GENERIC ||
                      (*req_p)->user_freed)) {
        loom_error("p2p", "%s: request %p is not active (already completed or "
                   "freed)", op, (void *)*req_p);
        return LOOM_ERR_INVALID_REQUEST;
    }
    return LOOM_OK;
}

/* complete *req_p for the user: status out, release, NULL the handle */
static loom_status_t loom_request_finish_user(loom_request_t *req_p,
                                              loom_msg_status_t *status)
{
    loom_request_t req = *req_p;
    loom_status_t st = req->status;

    if (loom_unlikely(req->ext != LOOM_REQ_EXT_NONE)) {
        return loom_request_ext_finish(req_p, status);
    }
    loom_request_status_copy(req, status);
    loom_request_release(req);
    *req_p = LOOM_REQUEST_NULL;
    return st;
}

loom_status_t loom_test(loom_request_t *req_p, int *flag_p, loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_request_check(req_p, "loom_test");

    if (st == LOOM_OK && flag_p == NULL) {
        loom_error("p2p", "loom_test: flag_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error(st, "loom_test");
    }
    if (*req_p == LOOM_REQUEST_NULL) {
        loom_request_status_empty(status);
        *flag_p = 1;
        return LOOM_OK;
    }
    if (!(*req_p)->complete) {
        loom_progress_poll_user();
        if (!(*req_p)->complete) {
            *flag_p = 0;
            return LOOM_OK;
        }
    }
    *flag_p = 1;
    st = loom_request_finish_user(req_p, status);
    return st < 0 ? loom_p2p_error(st, "loom_test") : st;
}

/* the world rank a receive waits on (a named source), else -1 */
static int loom_request_peer(loom_request_t req)
{
    const loom_match_posted_t *p = &loom_p2p_req(req)->posted;

    if (req->kind != LOOM_REQ_RECV || req->comm == NULL ||
        req->comm->magic != LOOM_COMM_MAGIC || p->src < 0 || p->src >= req->comm->remote_size) {
        return -1;
    }
    return loom_comm_peer_world(req->comm, p->src);
}

loom_status_t loom_wait(loom_request_t *req_p, loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_request_check(req_p, "loom_wait");

    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error(st, "loom_wait");
    }
    if (*req_p == LOOM_REQUEST_NULL) {
        loom_request_status_empty(status);
        return LOOM_OK;
    }
    if (!(*req_p)->complete) {
        loom_progress_wait_on(*req_p, loom_request_peer(*req_p), "loom_wait");
    }
    st = loom_request_finish_user(req_p, status);
    return st < 0 ? loom_p2p_error(st, "loom_wait") : st;
}

static loom_status_t loom_request_check_array(size_t n, loom_request_t reqs[],
                                              const char *op)
{
    if (n > 0 && reqs == NULL) {
        loom_error("p2p", "%s: the request array is NULL with n = %zu", op, n);
        return LOOM_ERR_INVALID_ARG;
    }
    for (size_t i = 0; i < n; ++i) {
        loom_status_t st = loom_request_check(&reqs[i], op);
        if (st != LOOM_OK) {
            return st;
        }
    }
    if (n == 0) {
        return loom_request_check(&(loom_request_t){ LOOM_REQUEST_NULL }, op);
    }
    return LOOM_OK;
}

/* complete every finished request of reqs[]; @return first error */
static loom_status_t loom_request_finish_all(size_t n, loom_request_t reqs[],
                                             loom_msg_status_t statuses[])
{
    loom_status_t first = LOOM_OK;

    for (size_t i = 0; i < n; ++i) {
        loom_msg_status_t *st_p = statuses ? &statuses[i] : LOOM_STATUS_IGNORE;
        loom_status_t st;

        if (reqs[i] == LOOM_REQUEST_NULL) {
            loom_request_status_empty(st_p);
            continue;
        }
        st = loom_request_finish_user(&reqs[i], st_p);
        if (st < 0 && first == LOOM_OK) {
            first = st;
        }
    }
    return first;
}

static int loom_request_all_complete(size_t n, loom_request_t reqs[])
{
    for (size_t i = 0; i < n; ++i) {
        if (reqs[i] != LOOM_REQUEST_NULL && !reqs[i]->complete) {
            return 0;
        }
    }
    return 1;
}

loom_status_t loom_waitall(size_t n, loom_request_t reqs[], loom_msg_status_t statuses[])
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_request_check_array(n, reqs, "loom_waitall");
    loom_progress_waiter_t w;
    size_t done = 0;

    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error(st, "loom_waitall");
    }
    loom_progress_waiter_init(&w, "loom_waitall");
    /* requests complete roughly in order: resume the scan where it stopped */
    while (done < n) {
        if (reqs[done] == LOOM_REQUEST_NULL || reqs[done]->complete) {
            ++done;
            continue;
        }
        loom_progress_wait_step(&w);
    }
    loom_progress_waiter_fini(&w);
    st = loom_request_finish_all(n, reqs, statuses);
    return st < 0 ? loom_p2p_error(st, "loom_waitall") : st;
}

loom_status_t loom_testall(size_t n, loom_request_t reqs[], int *flag_p,
                           loom_msg_status_t statuses[])
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_request_check_array(n, reqs, "loom_testall");

    if (st == LOOM_OK && flag_p == NULL) {
        loom_error("p2p", "loom_testall: flag_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error(st, "loom_testall");
    }
    if (!loom_request_all_complete(n, reqs)) {
        loom_progress_poll_user();
        if (!loom_request_all_complete(n, reqs)) {
            *flag_p = 0;
            return LOOM_OK;
        }
    }
    *flag_p = 1;
    st = loom_request_finish_all(n, reqs, statuses);
    return st < 0 ? loom_p2p_error(st, "loom_testall") : st;
}

/* index of a complete request, n if none, (size_t)-1 if all are NULL */
static size_t loom_request_find_any(size_t n, loom_request_t reqs[])
{
    int any_active = 0;

    for (size_t i = 0; i < n; ++i) {
        if (reqs[i] == LOOM_REQUEST_NULL || reqs[i]->inactive) {
            continue;   /* MPI: an inactive persistent request counts as null */
        }
        if (reqs[i]->complete) {
            return i;
        }
        any_active = 1;
    }
    return any_active ? n : (size_t)-1;
}

static loom_status_t loom_request_any_common(size_t n, loom_request_t reqs[],
                                             size_t *index_p, int *flag_p,
                                             loom_msg_status_t *status,
                                             const char *op)
{
    loom_status_t st = loom_request_check_array(n, reqs, op);
    loom_progress_waiter_t w;
    size_t idx;

    if (st == LOOM_OK && index_p == NULL) {
        loom_error("p2p", "%s: index_p is NULL", op);
        st = LOOM_ERR_INVALID_ARG;
    }
    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error(st, op);
    }
    idx = loom_request_find_any(n, reqs);
    if (idx == n && flag_p != NULL) {   /* testany: one progress pass only */
        loom_progress_poll_user();
        idx = loom_request_find_any(n, reqs);
        if (idx == n) {
            *flag_p = 0;
            return LOOM_OK;
        }
    }
    if (idx == n) {
        loom_progress_waiter_init(&w, op);
        do {
            loom_progress_wait_step(&w);
            idx = loom_request_find_any(n, reqs);
        } while (idx == n);
        loom_progress_waiter_fini(&w);
    }
    if (flag_p != NULL) {
        *flag_p = 1;
    }
    *index_p = idx;
    if (idx == (size_t)-1) {
        loom_request_status_empty(status);
        return LOOM_OK;
    }
    st = loom_request_finish_user(&reqs[idx], status);
    return st < 0 ? loom_p2p_error(st, op) : st;
}

loom_status_t loom_waitany(size_t n, loom_request_t reqs[], size_t *index_p,
                           loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    return loom_request_any_common(n, reqs, index_p, NULL, status, "loom_waitany");
}

loom_status_t loom_testany(size_t n, loom_request_t reqs[], size_t *index_p,
                           int *flag_p, loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    if (flag_p == NULL) {
        loom_error("p2p", "loom_testany: flag_p is NULL");
        return loom_p2p_error(LOOM_ERR_INVALID_ARG, "loom_testany");
    }
    return loom_request_any_common(n, reqs, index_p, flag_p, status, "loom_testany");
}

loom_status_t loom_request_free(loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_request_check(req_p, "loom_request_free");

    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error(st, "loom_request_free");
    }
    if (*req_p == LOOM_REQUEST_NULL) {
        return LOOM_OK;
    }
    if ((*req_p)->complete) {
        if ((*req_p)->ext == LOOM_REQ_EXT_PERSIST) {
            loom_comm_persist_unref((*req_p)->comm);   /* its hold on a freed comm */
            loom_dt_release(loom_request_ext(*req_p)->dt);   /* a typed one's type */
        }
        loom_request_release(*req_p);
    } else {
        (*req_p)->user_freed = 1;
    }
    *req_p = LOOM_REQUEST_NULL;
    return LOOM_OK;
}
