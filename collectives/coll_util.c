/*
 * coll_util.c: what every algorithm shares: posting the point-to-point
 * messages of a step, waiting for them (and checking what arrived),
 * child collectives, temporary buffers that do not call malloc for small
 * sizes, and the orderly end of a failed collective.
 *
 * A failed collective completes with its error at once, but memory that
 * the network may still write or read must outlive it: its unmatched
 * receives are cancelled; a receive already matched (its data moving) is
 * progressed to completion before anything is freed; a send the peer never
 * matched, or a part (child) still running, is handed with the temporary
 * buffer to the orphan list (coll_tmp.c), which releases both once they
 * complete.
 */
#include "coll_shm.h"
#include "log_int.h"
#include "coll_tmp_int.h"

#include <stdlib.h>

void loom_coll_state_hold_op(loom_coll_state_t *s, loom_op_t op)
{
    if (s->op_held) {
        loom_op_release(s->op);
    }
    s->op      = op;
    s->op_held = 1;
    loom_op_retain(op);
}

loom_status_t loom_coll_state_set_op(loom_coll_state_t *s, loom_op_t op, size_t count,
                                     const char *who, size_t *count_p)
{
    size_t unit = loom_op_unit(op, s->dt);

    loom_coll_state_hold_op(s, op);
    if (loom_likely(unit == 1)) {       /* predefined ops: the basic element */
        *count_p = count;
        return LOOM_OK;
    }
    if (count % unit != 0) {
        loom_error("coll", "%s: count %zu of datatype '%s' is not a whole number of "
                   "elements of operation '%s' (%zu '%s' each)", who, count,
                   loom_datatype_name(s->dt), loom_op_name(op), unit,
                   loom_datatype_name(s->dt));
        return LOOM_ERR_INVALID_COUNT;
    }
    s->unit   = unit;
    s->esize *= unit;
    *count_p  = count / unit;
    return LOOM_OK;
}

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
        s->rlen[s->nreq++] = bytes;
    }
    return st;
}

/* A receive of the wrong size: the ranks disagree on the count or type. */
static loom_status_t loom_coll_recv_size_error(loom_coll_state_t *s, int i)
{
    loom_request_t r = s->reqs[i];
    const char *name = loom_coll_kind_name(s->kind);

    if (r->status == LOOM_ERR_TRUNCATED) {
        loom_error("coll", "%s #%llu on %s: rank %d expected %zu bytes from rank %d but the "
                   "message was larger (truncated, see above): the ranks passed different "
                   "counts or datatypes", name, (unsigned long long)s->seq, s->comm->name,
                   s->rank, s->rlen[i], r->msg.source);
        return LOOM_ERR_TRUNCATED;
    }
    loom_error("coll", "%s #%llu on %s: rank %d expected %zu bytes from rank %d but received "
               "%zu: the ranks passed different counts or datatypes", name,
               (unsigned long long)s->seq, s->comm->name, s->rank, s->rlen[i],
               r->msg.source, r->msg.bytes);
    return LOOM_ERR_INVALID_COUNT;
}

loom_status_t loom_coll_wait(loom_coll_state_t *s)
{
    loom_status_t st = LOOM_OK;

    if (s->child != NULL && !loom_request_is_complete(s->child)) {
        return LOOM_INPROGRESS;   /* the child watches for mismatches itself */
    }
    for (int i = 0; i < s->nreq; ++i) {
        if (!loom_request_is_complete(s->reqs[i])) {
            return loom_coll_idle(s);
        }
    }
    if (s->child != NULL) {
        st = s->child->status;
        loom_request_release(s->child);
        s->child = NULL;
    }
    for (int i = 0; i < s->nreq; ++i) {
        loom_request_t r = s->reqs[i];
        if (loom_unlikely(r->kind == LOOM_REQ_RECV && st == LOOM_OK &&
                          (r->status == LOOM_ERR_TRUNCATED ||
                           (r->status == LOOM_OK && r->msg.bytes != s->rlen[i])))) {
            st = loom_coll_recv_size_error(s, i);
        } else if (r->status != LOOM_OK && st == LOOM_OK) {
            st = r->status;
        }
        loom_request_release(r);
    }
    s->nreq = 0;
    s->idle = 0;
    s->failed |= st != LOOM_OK;
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
    cs->is_child  = 1;
    cs->comm_held = 0;            /* the parent holds the comm */
    cs->op_held   = 0;            /* the parent holds the op */
    cs->idle      = 0;
    cs->idle_check = 0;
    child->op_seq = s->seq;
    s->child      = child;
    loom_request_generic_start(child);
    return LOOM_OK;
}

/* ---- the end of a failed collective --------------------------------------------- */

static loom_status_t loom_coll_aborted(loom_request_t req)
{
    (void)req;
    return LOOM_ERR_CANCELED;
}

/*
 * Stop what a failed collective has in flight: cancel receives not matched
 * yet and finish the matched ones (their data is moving into our buffers);
 * stop a running child. @return 1 if something is still in flight.
 */
static int loom_coll_state_stop(loom_coll_state_t *s)
{
    int busy = 0;

    for (int i = 0; i < s->nreq; ++i) {
        loom_request_t r = s->reqs[i];
        if (!loom_request_is_complete(r) && r->kind == LOOM_REQ_RECV) {
            (void)loom_cancel(&r);
            while (!loom_request_is_complete(r)) {
                (void)loom_progress();   /* matched: the data is on its way */
            }
        }
        busy |= !loom_request_is_complete(r);
    }
    if (s->child != NULL && !loom_request_is_complete(s->child)) {
        s->child->progress_fn = loom_coll_aborted;  /* ends at the next pass */
        busy = 1;
    }
    return busy;
}

void loom_coll_state_cleanup(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_coll_comm_t *cc = s->shm;
    int failed = s->failed || s->nreq > 0 || s->child != NULL;
    int busy = failed && loom_coll_state_stop(s);
    loom_coll_orphan_t *o = busy ? calloc(1, sizeof(*o)) : NULL;

    for (int i = 0; i < s->nreq; ++i) {
        loom_request_t r = s->reqs[i];
        if (loom_request_is_complete(r)) {
            loom_request_release(r);
        } else if (o != NULL) {
            o->reqs[o->nreq++] = r;
        } else {
            r->user_freed = 1;        /* out of memory: released at completion */
        }
    }
    s->nreq = 0;
    if (s->child != NULL) {
        if (loom_request_is_complete(s->child)) {
            loom_request_release(s->child);
        } else if (o != NULL) {
            o->reqs[o->nreq++] = s->child;
        } else {
            s->child->user_freed = 1;
        }
        s->child = NULL;
    }
    if (o != NULL) {
        /* inline bytes live in this request: only a send of at most
         * LOOM_COLL_INLINE_TMP bytes may still read them, from pool memory
         * that stays mapped, so they need no keeping */
        if (s->tmp_kind != TMP_INLINE) {
            o->tmp      = s->tmp;
            o->tmp_kind = s->tmp_kind;
        }
        loom_coll_orphan_add(o);
    } else if (!busy) {
        loom_coll_tmp_free(s->tmp, s->tmp_kind);
    }                                 /* else out of memory: leak, never free live memory */
    s->tmp      = NULL;
    s->tmp_kind = TMP_NONE;
    if (cc != NULL && cc->done_seq + 1 == s->shm_seq) {
        cc->done_seq = s->shm_seq;    /* a failed shm operation: let the next run */
        if (cc->state == LOOM_COLL_SHM_SETUP) {
            cc->state = LOOM_COLL_SHM_FAILED;  /* half set up: never trust it */
        }
    }
    if (cc != NULL && cc->done_seq == s->shm_seq && cc->synced_seq < s->shm_seq) {
        /* left unsynced (here, or by the algorithm's own leave on its
         * error: a CMA step that found a peer's message): the next one's
         * catch-up names this call, not an older eager one (#0 if none) */
        cc->eager_seq = s->seq;
    }
    if (s->op_held) {
        s->op_held = 0;
        loom_op_release(s->op);
    }
    if (!s->is_child) {
        loom_coll_record_done(s, failed);
    }
    if (s->comm_held) {
        s->comm_held = 0;
        loom_comm_persist_unref(s->comm);   /* last: a freed comm goes here */
    }
}
