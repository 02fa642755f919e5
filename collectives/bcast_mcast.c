/*
 * bcast_mcast.c: broadcast by the transport's reliable multicast (UD
 * multicast on verbs), for messages up to LOOM_IB_MCAST_THRESHOLD.
 *
 *   first call on a communicator:   every rank joins the group (local)
 *                                   allreduce(MIN) of "joined" over comm
 *                                   all 1: multicast from now on
 *                                   any 0: tree algorithms from now on (info)
 *   each call:    root --- one multicast per fragment ---> every rank
 *                 (the transport resends what is lost; see docs/ib.md)
 *
 * One round trip from the root whatever p, instead of log2(p) tree steps.
 * The algorithm never sees a queue pair: it asks the p2p layer for the
 * communicator's group (p2p/p2p_mcast_int.h). It runs only calls it can
 * multicast: the selection (coll_select.c) gives a call it cannot (too
 * large, a single rank, or the agreed "no") the tree algorithm the table
 * would pick below it, binomial up to 32 KiB or on two ranks, else
 * scatter + allgather (the threshold is capped at 1 MiB, so chain is never
 * the one).
 *
 * The agreement is a set-up step of the communicator, which the
 * selection gives a call while the communicator's outcome is not known:
 * coll_select.c's step runs loom_coll_bcast_mcast_agree here until the
 * outcome is known, then selects the call (this file calls nothing above
 * it: the algorithms sit below the selection). Only the first call that finds the entry unagreed runs the
 * agreement (entry->agreeing); a later call started while it is in flight
 * waits for its outcome (PH_PENDING) rather than agreeing on its own tag.
 * Whether a later call finds the outcome already known depends on timing
 * and differs between ranks, so an agreement of its own would run on some
 * ranks only: its allreduce messages then met a peer that had taken the
 * tree for that call (a mismatch report) or a peer that never answered (a
 * hang), e.g. two MPI_Ibcast in flight on a new communicator over tcp.
 */
#include "coll_int.h"
#include "log_int.h"
#include "p2p_mcast_int.h"

enum phase { PH_START = 0, PH_PENDING, PH_AGREE, PH_BCAST, PH_WAIT };

/* what the request keeps between calls, in its inline scratch bytes */
typedef struct bcast_mcast_scratch {
    loom_p2p_mc_t    *entry;
    loom_p2p_mc_op_t  op;
    int32_t           flag_in;
    int32_t           flag_out;
} bcast_mcast_scratch_t;

_Static_assert(sizeof(bcast_mcast_scratch_t) <= LOOM_COLL_INLINE_TMP,
               "multicast bcast state fits the request's inline bytes");

LOOM_COLL_PROTO(loom_coll_bcast_mcast);
LOOM_COLL_PROTO(loom_coll_bcast_mcast_agree);

/* Every rank's "joined" through a child allreduce(MIN) on this call's tag. */
static loom_status_t bcast_mcast_agree_start(loom_coll_state_t *s, bcast_mcast_scratch_t *x)
{
    loom_coll_state_t args = *s;

    x->flag_in = x->entry->local_ok;
    x->flag_out = 0;
    args.sbuf = &x->flag_in;
    args.rbuf = &x->flag_out;
    args.count = 1;
    args.esize = sizeof(int32_t);
    args.dt = LOOM_INT32;
    args.op = LOOM_MIN;
    args.layout = LOOM_COLL_LAYOUT_UNIFORM;
    args.in_place = 0;
    args.ordered = 0;
    return loom_coll_child_start(s, "bcast/mcast-agree",
                                 loom_coll_allreduce_recursive_doubling, &args);
}

static void bcast_mcast_agreed(loom_coll_state_t *s, bcast_mcast_scratch_t *x)
{
    loom_p2p_mc_agree(x->entry, x->flag_out);
    if (!x->flag_out) {
        loom_info("coll", "bcast on %s (%d ranks): multicast unavailable on some rank%s%s; "
                  "using the tree algorithms", s->comm->name, s->size,
                  x->entry->local_ok ? "" : ", here: ", x->entry->local_ok ? "" : x->entry->why);
    } else {
        loom_info("coll", "bcast on %s (%d ranks): multicast, every rank joined the group",
                  s->comm->name, s->size);
    }
}

/*
 * The communicator's agreement on multicast (see the top): run it, or wait
 * for the call that runs it. LOOM_OK once the outcome is known; the
 * selection's step (loom_coll_mcast_setup_progress, coll_select.c) then
 * selects the call.
 */
loom_status_t loom_coll_bcast_mcast_agree(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    bcast_mcast_scratch_t *x = (bcast_mcast_scratch_t *)(void *)s->inline_tmp;
    loom_status_t st;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = loom_p2p_mc_get(s->comm, &x->entry)) != LOOM_OK) {
                return st;
            }
            if (x->entry->agreed != 0) {
                return LOOM_OK;
            }
            if (x->entry->agreeing) {
                s->phase = PH_PENDING;   /* an earlier call of this comm agrees */
                break;
            }
            if ((st = bcast_mcast_agree_start(s, x)) != LOOM_OK) {
                return st;
            }
            x->entry->agreeing = 1;
            s->phase = PH_AGREE;
            break;
        case PH_PENDING:
            if (x->entry->agreed != 0) {
                return LOOM_OK;
            }
            /* still agreeing; or the agreeing call failed: agree here */
            if (x->entry->agreeing) {
                return LOOM_INPROGRESS;
            }
            s->phase = PH_START;
            break;
        case PH_AGREE:
            st = loom_coll_wait(s);
            if (st != LOOM_INPROGRESS) {
                x->entry->agreeing = 0;
            }
            if (st != LOOM_OK) {
                return st;
            }
            bcast_mcast_agreed(s, x);
            return LOOM_OK;
        default:
            return LOOM_ERR_INTERNAL;
        }
    }
}

/* The selection gives this only for a call it can multicast, on a
 * communicator that agreed to. */
loom_status_t loom_coll_bcast_mcast(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    bcast_mcast_scratch_t *x = (bcast_mcast_scratch_t *)(void *)s->inline_tmp;
    size_t bytes = s->count * s->esize;
    loom_status_t st;

    switch ((enum phase)s->phase) {
    case PH_START:
        if ((st = loom_p2p_mc_get(s->comm, &x->entry)) != LOOM_OK) {
            return st;
        }
        s->phase = PH_BCAST;
        /* fall through */
    case PH_BCAST:
        st = loom_p2p_mc_bcast(x->entry, s->root, s->rbuf, bytes, &x->op);
        if (st == LOOM_ERR_NO_RESOURCE) {
            return LOOM_INPROGRESS;   /* an earlier bcast of this comm is in flight */
        }
        if (st != LOOM_INPROGRESS) {
            return st;
        }
        s->phase = PH_WAIT;
        /* fall through */
    case PH_WAIT:
        /* the transport owns the buffer until it completes (it gives up
         * on a failed member by itself), so no early return here */
        return x->op.done ? x->op.status : LOOM_INPROGRESS;
    default:
        return LOOM_ERR_INTERNAL;
    }
}
