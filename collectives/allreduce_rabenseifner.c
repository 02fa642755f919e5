/*
 * allreduce_rabenseifner.c: Rabenseifner's allreduce: recursive-halving
 * reduce-scatter, then recursive-doubling allgather, over pof2 blocks (with
 * the non-power-of-two pre/post step of coll_rd_prepost.c).
 *
 *   pof2 = 4, newrank 1:
 *     halving  d=2: send blocks [2,4) to 3, fold [0,2) from 3
 *              d=1: send block 0 to 0, fold block 1 from 0   -> owns block 1
 *     doubling d=1: send block 1 to 0, receive block 0
 *              d=2: send [0,2) to 3, receive [2,4)            -> has all
 *
 * 2 log2(p) steps moving 2n(p-1)/p bytes: medium and large vectors.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_PRE_WAIT, PH_HALVE, PH_HALVE_WAIT, PH_DOUBLE,
             PH_DOUBLE_WAIT, PH_POST_WAIT, PH_DONE };

/* elements of pof2-blocks [b, b + d): offset returned, count in *n_p */
static size_t rab_range(const loom_coll_state_t *s, int pof2, int b, int d, size_t *n_p)
{
    size_t lo = loom_pat_block_off(s->count, pof2, b);
    *n_p = loom_pat_block_off(s->count, pof2, b + d) - lo;
    return lo;
}

static loom_status_t rab_exchange(loom_coll_state_t *s, int peer, size_t soff, size_t sn,
                                  void *rdst, size_t rn)
{
    loom_status_t st = loom_coll_recv(s, rdst, rn * s->esize, peer);
    if (st != LOOM_OK) {
        return st;
    }
    return loom_coll_send(s, loom_coll_at(s->rbuf, soff, s->esize), sn * s->esize, peer);
}

loom_status_t loom_coll_allreduce_rabenseifner(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    size_t so, sn, ko, kn;
    int keep, send, have, recv;
    loom_pat_rd_t rd;
    loom_status_t st;

    loom_pat_rd_init(&rd, s->rank, s->size);
    for (;;) {
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = loom_coll_rd_pre_start(s, &rd)) != LOOM_OK) {
                return st;
            }
            if (rd.newrank < 0) {        /* extra: wait for the result */
                s->phase = PH_POST_WAIT;
                break;
            }
            s->phase = PH_PRE_WAIT;
            /* fall through */
        case PH_PRE_WAIT:
            if ((st = loom_coll_rd_pre_fold(s, &rd)) != LOOM_OK) {
                return st;
            }
            s->step  = rd.pof2 / 2;
            s->phase = PH_HALVE;
            /* fall through */
        case PH_HALVE:
            if (s->step < 1) {
                s->step  = 1;
                s->phase = PH_DOUBLE;
                break;
            }
            loom_pat_halving_step(rd.newrank, s->step, &keep, &send);
            so = rab_range(s, rd.pof2, send, s->step, &sn);
            (void)rab_range(s, rd.pof2, keep, s->step, &kn);
            st = rab_exchange(s, loom_pat_rd_real(&rd, rd.newrank ^ s->step), so, sn, s->tmp, kn);
            if (st != LOOM_OK) {
                return st;
            }
            s->phase = PH_HALVE_WAIT;
            /* fall through */
        case PH_HALVE_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            loom_pat_halving_step(rd.newrank, s->step, &keep, &send);
            ko = rab_range(s, rd.pof2, keep, s->step, &kn);
            loom_coll_reduce(s, s->tmp, loom_coll_at(s->rbuf, ko, s->esize), kn);
            s->step /= 2;
            s->phase = PH_HALVE;
            break;
        case PH_DOUBLE:
            if (s->step >= rd.pof2) {
                if ((st = loom_coll_rd_post(s, &rd)) != LOOM_OK) {
                    return st;
                }
                s->phase = PH_POST_WAIT;
                break;
            }
            loom_pat_doubling_step(rd.newrank, s->step, &have, &recv);
            so = rab_range(s, rd.pof2, have, s->step, &sn);
            ko = rab_range(s, rd.pof2, recv, s->step, &kn);
            st = rab_exchange(s, loom_pat_rd_real(&rd, rd.newrank ^ s->step), so, sn,
                              loom_coll_at(s->rbuf, ko, s->esize), kn);
            if (st != LOOM_OK) {
                return st;
            }
            s->phase = PH_DOUBLE_WAIT;
            /* fall through */
        case PH_DOUBLE_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->step *= 2;
            s->phase = PH_DOUBLE;
            break;
        case PH_POST_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->phase = PH_DONE;
            /* fall through */
        case PH_DONE:
            return LOOM_OK;
        }
    }
}
