/*
 * gather_scatter_linear.c: linear gather(v) and scatter(v).
 *
 *   gather:  every rank q != root sends its block; the root receives block
 *            q straight into place (displs[q], counts[q]), a window of
 *            LOOM_COLL_MAX_REQS receives at a time
 *   scatter: the mirror image
 *
 * The only algorithms that need no counts away from the root, hence the
 * ones for the v variants; also fine for large blocks.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_POST, PH_WAIT, PH_DONE };

static loom_status_t linear_run(loom_request_t req, int gather)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int is_root = s->rank == s->root;
    size_t blk = s->count * s->esize;
    loom_status_t st;
    char *at;

    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if (!is_root) {
                st = gather ? loom_coll_send(s, s->sbuf, blk, s->root)
                            : loom_coll_recv(s, s->rbuf, blk, s->root);
                if (st != LOOM_OK) {
                    return st;
                }
                s->step  = s->size;
                s->phase = PH_WAIT;
                break;
            }
            at = loom_coll_at(gather ? s->rbuf : s->sbuf, loom_coll_block_off(s, s->rank), s->esize);
            if (gather && at != s->sbuf) {
                memcpy(at, s->sbuf, blk);
            } else if (!gather && at != s->rbuf) {
                memcpy(s->rbuf, at, blk);
            }
            s->phase = PH_POST;
            /* fall through */
        case PH_POST:
            if (s->step >= s->size) {
                s->phase = PH_DONE;
                break;
            }
            for (; s->step < s->size && s->nreq < LOOM_COLL_MAX_REQS; ++s->step) {
                if (s->step == s->rank) {
                    continue;
                }
                at = loom_coll_at(gather ? s->rbuf : s->sbuf, loom_coll_block_off(s, s->step),
                                  s->esize);
                blk = loom_coll_block_len(s, s->step) * s->esize;
                st = gather ? loom_coll_recv(s, at, blk, s->step)
                            : loom_coll_send(s, at, blk, s->step);
                if (st != LOOM_OK) {
                    return st;
                }
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_POST;
            break;
        case PH_DONE:
            return LOOM_OK;
        }
    }
}

loom_status_t loom_coll_gather_linear(loom_request_t req)
{
    return linear_run(req, 1);
}

loom_status_t loom_coll_scatter_linear(loom_request_t req)
{
    return linear_run(req, 0);
}
