/*
 * alltoallw_linear.c: alltoall, alltoallv and alltoallw with every message
 * posted at once ("linear" in all three tables).
 *
 *   rank r:  receive from r-1, r-2, ..., r-(p-1)   p-1 receives, posted first
 *            send to     r+1, r+2, ..., r+(p-1)   p-1 sends
 *            copy its own block, wait for all 2(p-1)
 *
 * One round, no ordering between peers: the fewest round trips for small
 * blocks and small communicators, at the price of 2(p-1) requests in
 * flight (more than the LOOM_COLL_MAX_REQS the state holds, so they live
 * in the temporary buffer, ahead of the in-place snapshot). Posting every
 * receive before any send keeps it deadlock-free whatever the message
 * sizes; the peers go in pairwise order (r+s), so the p first sends do
 * not all meet at rank 0. Against "pairwise" (LOOM_COLL_MAX_REQS / 2 = 4
 * steps in flight, then a wait for all of them): at p = 8 its 7 steps are
 * one round instead of two, each round a wake-up of every rank when ranks
 * share cores (session 15, docs/collectives.md).
 *
 * Blocks: alltoallw's per-peer counts, types and byte displacements
 * (loom_coll_a2aw_send/recv); alltoall's uniform blocks and alltoallv's
 * counts/displs in elements of s->esize (send side counts/displs,
 * receive side counts2/displs2, as alltoall_pairwise.c reads them).
 * In place: the send side is read from a snapshot of recvbuf.
 *
 * Its requests are its own, so it settles them itself when it fails:
 * receives not matched are cancelled, matched ones finished; a send still
 * in flight is released when it completes, and the temporary buffer (which
 * it may still read) is then left allocated rather than freed under it.
 */
#include "coll_int.h"
#include "log_int.h"

enum phase { PH_START = 0, PH_WAIT, PH_DONE };

static loom_request_t *a2aw_reqs(const loom_coll_state_t *s)
{
    return (loom_request_t *)s->tmp;
}

static size_t a2aw_head(const loom_coll_state_t *s)
{
    return LOOM_ALIGN_UP(2 * (size_t)s->size * sizeof(loom_request_t), 16);
}

/* Failure: settle what is in flight (see above); @return @p st. */
static loom_status_t a2aw_linear_abort(loom_coll_state_t *s, loom_status_t st)
{
    loom_request_t *reqs = a2aw_reqs(s);
    int busy = 0;

    for (size_t i = 0; i < s->len; ++i) {
        loom_request_t r = reqs[i];
        if (!loom_request_is_complete(r) && r->kind == LOOM_REQ_RECV) {
            (void)loom_cancel(&r);
            while (!loom_request_is_complete(r)) {
                (void)loom_progress();
            }
        }
        if (loom_request_is_complete(r)) {
            loom_request_release(r);
        } else {
            r->user_freed = 1;        /* released when it completes */
            busy = 1;
        }
    }
    s->len = 0;
    if (busy) {                       /* a send may still read it: never free it */
        s->tmp      = NULL;
        s->tmp_kind = 0;              /* TMP_NONE (coll_util.c): nothing to release */
    }
    s->failed = 1;
    return st;
}

/* Bytes and byte offset of the block from rank @p i (receive side). */
static size_t a2a_linear_recv(const loom_coll_state_t *s, int i, size_t *off_p)
{
    if (s->kind == LOOM_COLL_ALLTOALLW) {
        return loom_coll_a2aw_recv(s, i, off_p);
    }
    if (s->layout == LOOM_COLL_LAYOUT_VECTOR) {
        *off_p = s->displs2[i] * s->esize;
        return s->counts2[i] * s->esize;
    }
    *off_p = (size_t)i * s->count * s->esize;
    return s->count * s->esize;
}

/* Bytes and byte offset of the block for rank @p i (send side). */
static size_t a2a_linear_send(const loom_coll_state_t *s, int i, size_t *off_p)
{
    if (s->kind == LOOM_COLL_ALLTOALLW) {
        return loom_coll_a2aw_send(s, i, off_p);
    }
    if (s->layout == LOOM_COLL_LAYOUT_VECTOR) {
        *off_p = s->displs[i] * s->esize;
        return s->counts[i] * s->esize;
    }
    *off_p = (size_t)i * s->count * s->esize;
    return s->count * s->esize;
}

/* The requests ahead of the in-place snapshot of the receive side. */
static loom_status_t a2a_linear_snapshot(loom_coll_state_t *s)
{
    return loom_coll_a2a_snapshot(s, a2aw_head(s), a2a_linear_recv);
}

/* The own block: a local copy of the send side's bytes into the receive
 * block. The API checked the two sizes agree (alltoallw:
 * loom_coll_check_w_self; alltoallv: loom_coll_check_vec_self, which was
 * missing: a larger send count overran recvbuf, prog_coll_rev15 self). */
static void a2a_linear_self(loom_coll_state_t *s)
{
    size_t so, ro, n = a2a_linear_send(s, s->rank, &so);

    (void)a2a_linear_recv(s, s->rank, &ro);
    if (n > 0) {
        memmove((char *)s->rbuf + ro, (const char *)s->sbuf + so, n);
    }
}

static loom_status_t a2aw_linear_post(loom_coll_state_t *s)
{
    loom_request_t *reqs = a2aw_reqs(s);
    int p = s->size, r = s->rank;
    size_t off, n;
    loom_status_t st = LOOM_OK;

    for (int k = 1; k < p && st == LOOM_OK; ++k) {
        int from = loom_pat_mod(r - k, p);
        n  = a2a_linear_recv(s, from, &off);
        st = loom_p2p_irecv_int((char *)s->rbuf + off, n, from, s->tag, s->comm,
                                LOOM_CTX_COLL, &reqs[s->len]);
        s->len += st == LOOM_OK;
    }
    for (int k = 1; k < p && st == LOOM_OK; ++k) {
        int to = loom_pat_mod(r + k, p);
        n  = a2a_linear_send(s, to, &off);
        st = loom_p2p_isend_int((const char *)s->sbuf + off, n, to, s->tag, s->comm,
                                LOOM_CTX_COLL, 0, &reqs[s->len]);
        s->len += st == LOOM_OK;
    }
    return st;
}

/* LOOM_INPROGRESS until all are complete; then check and release them. */
static loom_status_t a2aw_linear_wait(loom_coll_state_t *s)
{
    loom_request_t *reqs = a2aw_reqs(s);
    loom_status_t st = LOOM_OK;
    size_t off;

    for (size_t i = 0; i < s->len; ++i) {
        if (!loom_request_is_complete(reqs[i])) {
            st = loom_coll_idle(s);
            return st == LOOM_INPROGRESS ? st : a2aw_linear_abort(s, st);
        }
    }
    for (size_t i = 0; i < s->len && st == LOOM_OK; ++i) {
        loom_request_t r = reqs[i];
        size_t want = r->kind == LOOM_REQ_RECV ? a2a_linear_recv(s, r->msg.source, &off) : 0;
        if (r->kind == LOOM_REQ_RECV && (r->status == LOOM_ERR_TRUNCATED ||
                                         (r->status == LOOM_OK && r->msg.bytes != want))) {
            loom_error("coll", "%s #%llu on %s: rank %d expected %zu bytes from rank "
                       "%d but received %s%zu: the ranks passed different counts or types",
                       loom_coll_kind_name(s->kind), (unsigned long long)s->seq,
                       s->comm->name, s->rank, want,
                       r->msg.source, r->status == LOOM_ERR_TRUNCATED ? "more, " : "",
                       r->msg.bytes);
            st = r->status == LOOM_ERR_TRUNCATED ? LOOM_ERR_TRUNCATED : LOOM_ERR_INVALID_COUNT;
        } else if (r->status != LOOM_OK) {
            st = r->status;
        }
    }
    if (st != LOOM_OK) {
        return a2aw_linear_abort(s, st);
    }
    for (size_t i = 0; i < s->len; ++i) {
        loom_request_release(reqs[i]);
    }
    s->len = 0;
    return LOOM_OK;
}

loom_status_t loom_coll_alltoallw_linear(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = a2a_linear_snapshot(s)) != LOOM_OK) {
                return st;
            }
            s->len = 0;               /* requests posted */
            if ((st = a2aw_linear_post(s)) != LOOM_OK) {
                return a2aw_linear_abort(s, st);
            }
            a2a_linear_self(s);
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = a2aw_linear_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_DONE;
            /* fall through */
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
