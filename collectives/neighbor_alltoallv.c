/*
 * neighbor_alltoallv.c: the neighbourhood all-to-all over explicit rank
 * lists (loom_neighbor_alltoallv, loom_ineighbor_alltoallv): block i of
 * the send side goes to destinations[i], block j of the receive side comes
 * from sources[j]; counts and displacements are in bytes, so one call
 * serves every MPI neighbourhood collective (allgather(v), alltoall(v,w)).
 *
 *   rank r, in-degree 3, out-degree 2 ("linear"):
 *
 *     PH_RECV   irecv <- sources[0], sources[1], sources[2]   (all at once)
 *     PH_SEND   isend -> destinations[0], destinations[1]
 *     PH_WAIT   until every request completed; check received sizes
 *
 * Every receive is posted before any send, and nothing waits in between,
 * so no rank can hold back a send another rank's receive needs: any graph
 * completes, whatever the sizes (rendezvous included). The requests live
 * in the collective's temporary buffer (inline for up to 16, then the
 * collectives' pool), not in the state's fixed request array, because a
 * rank may have any number of neighbours.
 *
 * Matching: all messages of one call carry the collective's tag; two
 * messages between the same pair match in posting order. So the k-th send
 * to q in the destination list lands in the k-th receive from this rank in
 * q's source list; a caller that needs another pairing (MPI's Cartesian
 * neighbours, base/topo_int.h) orders its destination list accordingly.
 * LOOM_PROC_NULL entries keep their slot and move nothing.
 *
 * A failed call (a mismatch found by the slow path, a wrong size) cancels
 * its receives not yet matched, finishes the matched ones and lets its
 * sends complete on their own (released at completion).
 *
 * This file is the algorithm (below the selection); the public calls that
 * check the lists and start the request are in coll_api_neighbor.c, the
 * state they share in coll_neighbor_int.h.
 */
#include "coll_neighbor_int.h"
#include "log_int.h"

enum phase { PH_RECV = 0, PH_SEND, PH_WAIT, PH_DONE };

const char *loom_coll_neighbor_phase_name(loom_request_t req)
{
    switch ((enum phase)loom_coll_nbr_state(req)->c.phase) {
    case PH_RECV: return "post-receives";
    case PH_SEND: return "post-sends";
    case PH_WAIT: return "wait";
    default:      return "done";
    }
}

/* A receive of the wrong size: the ranks passed different counts or types. */
static loom_status_t nbr_size_error(const loom_coll_nbr_state_t *s, int i, loom_request_t r)
{
    loom_error("coll", "neighbor_alltoallv #%llu on %s: rank %d expected %zu bytes from "
               "rank %d (source slot %d) but %s %zu: the ranks passed different counts or "
               "datatypes", (unsigned long long)s->c.seq, s->c.comm->name, s->c.rank,
               s->c.counts2[i], s->sources[i], i,
               r->status == LOOM_ERR_TRUNCATED ? "the message was larger than" : "received",
               r->status == LOOM_ERR_TRUNCATED ? s->c.counts2[i] : r->msg.bytes);
    return r->status == LOOM_ERR_TRUNCATED ? LOOM_ERR_TRUNCATED : LOOM_ERR_INVALID_COUNT;
}

/* Everything completed: check sizes and statuses, release the requests. */
static loom_status_t nbr_finish(loom_coll_nbr_state_t *s)
{
    loom_status_t st = LOOM_OK;
    int n = s->indeg + s->outdeg;

    for (int i = 0; i < n; ++i) {
        loom_request_t r = s->nreqs[i];

        if (r == NULL) {
            continue;
        }
        if (i < s->indeg && st == LOOM_OK &&
            (r->status == LOOM_ERR_TRUNCATED ||
             (r->status == LOOM_OK && r->msg.bytes != s->c.counts2[i]))) {
            st = nbr_size_error(s, i, r);
        } else if (r->status != LOOM_OK && st == LOOM_OK) {
            st = r->status;
        }
        loom_request_release(r);
        s->nreqs[i] = NULL;
    }
    s->c.failed |= st != LOOM_OK;
    return st;
}

/* LOOM_INPROGRESS while a request is pending (s->c.step: first one not seen done). */
static loom_status_t nbr_wait(loom_coll_nbr_state_t *s)
{
    int n = s->indeg + s->outdeg;

    while (s->c.step < n && (s->nreqs[s->c.step] == NULL ||
                             loom_request_is_complete(s->nreqs[s->c.step]))) {
        ++s->c.step;
    }
    if (s->c.step < n) {
        return loom_coll_idle(&s->c);
    }
    return nbr_finish(s);
}

static loom_status_t nbr_post(loom_coll_nbr_state_t *s, int i, int recv)
{
    loom_coll_state_t *c = &s->c;
    int j = recv ? i : i - s->indeg;
    int peer = recv ? s->sources[j] : s->dests[j];

    if (peer == LOOM_PROC_NULL) {
        return LOOM_OK;
    }
    if (recv) {
        return loom_p2p_irecv_int((char *)c->rbuf + c->displs2[j], c->counts2[j], peer,
                                  c->tag, c->comm, LOOM_CTX_COLL, &s->nreqs[i]);
    }
    return loom_p2p_isend_int((const char *)c->sbuf + c->displs[j], c->counts[j], peer,
                              c->tag, c->comm, LOOM_CTX_COLL, 0, &s->nreqs[i]);
}

loom_status_t loom_coll_neighbor_linear(loom_request_t req)
{
    loom_coll_nbr_state_t *s = loom_coll_nbr_state(req);
    int n = s->indeg + s->outdeg;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->c.phase) {
        case PH_RECV:
            if ((st = loom_coll_tmp_alloc(&s->c, (size_t)(n > 0 ? n : 1) *
                                          sizeof(loom_request_t))) != LOOM_OK) {
                return st;
            }
            s->nreqs = s->c.tmp;
            memset(s->nreqs, 0, (size_t)n * sizeof(loom_request_t));
            for (int i = 0; i < s->indeg; ++i) {
                if ((st = nbr_post(s, i, 1)) != LOOM_OK) {
                    return st;
                }
            }
            s->c.phase = PH_SEND;
            break;
        case PH_SEND:
            for (int i = s->indeg; i < n; ++i) {
                if ((st = nbr_post(s, i, 0)) != LOOM_OK) {
                    return st;
                }
            }
            s->c.step  = 0;
            s->c.phase = PH_WAIT;
            break;
        case PH_WAIT:
            if ((st = nbr_wait(s)) != LOOM_OK) {
                return st;
            }
            s->c.phase = PH_DONE;
            break;
        case PH_DONE:
            return LOOM_OK;
        }
    }
}

/*
 * Cleanup of a call that ends with requests still out (an error): cancel
 * unmatched receives and finish matched ones; sends are released when they
 * complete. Then the generic cleanup (temporary buffer, records).
 */
void loom_coll_neighbor_cleanup(loom_request_t req)
{
    loom_coll_nbr_state_t *s = loom_coll_nbr_state(req);
    int n = s->indeg + s->outdeg;

    for (int i = 0; s->nreqs != NULL && i < n; ++i) {
        loom_request_t r = s->nreqs[i];

        if (r == NULL) {
            continue;
        }
        s->c.failed = 1;
        if (!loom_request_is_complete(r) && i < s->indeg) {
            (void)loom_cancel(&r);
            while (!loom_request_is_complete(r)) {
                (void)loom_progress();     /* matched: its data is on the way */
            }
        }
        if (loom_request_is_complete(r)) {
            loom_request_release(r);
        } else {
            r->user_freed = 1;              /* a send: released once it completes */
        }
        s->nreqs[i] = NULL;
    }
    s->nreqs = NULL;
    loom_coll_state_cleanup(req);
}
