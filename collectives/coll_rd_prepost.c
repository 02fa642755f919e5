/*
 * coll_rd_prepost.c: the non-power-of-two pre and post steps shared by the
 * recursive-doubling and Rabenseifner allreduces (rank arithmetic in
 * patterns/: loom_pat_rd_t).
 *
 *   p = 6 (pof2 = 4, rem = 2):
 *     pre:   0 -> 1, 2 -> 3    extras hand their vector over; the buddy
 *                              folds it into its own (received into tmp)
 *     ...    the power-of-two algorithm on newranks 0..3
 *     post:  1 -> 0, 3 -> 2    extras get the result
 */
#include "coll_int.h"

loom_status_t loom_coll_rd_pre_start(loom_coll_state_t *s, const loom_pat_rd_t *rd)
{
    size_t bytes = s->count * s->esize;
    loom_status_t st;

    if (s->sbuf != s->rbuf) {
        memcpy(s->rbuf, s->sbuf, bytes);
    }
    if (rd->newrank < 0) {            /* extra: hand over, wait for the result */
        if ((st = loom_coll_send(s, s->rbuf, bytes, rd->buddy)) != LOOM_OK) {
            return st;
        }
        return loom_coll_recv(s, s->rbuf, bytes, rd->buddy);
    }
    if ((st = loom_coll_tmp_alloc(s, bytes)) != LOOM_OK) {
        return st;
    }
    return rd->buddy >= 0 ? loom_coll_recv(s, s->tmp, bytes, rd->buddy) : LOOM_OK;
}

loom_status_t loom_coll_rd_pre_fold(loom_coll_state_t *s, const loom_pat_rd_t *rd)
{
    loom_status_t st = loom_coll_wait(s);

    if (st == LOOM_OK && rd->buddy >= 0) {
        loom_coll_reduce(s, s->tmp, s->rbuf, s->count);
    }
    return st;
}

loom_status_t loom_coll_rd_post(loom_coll_state_t *s, const loom_pat_rd_t *rd)
{
    return rd->buddy >= 0 ? loom_coll_send(s, s->rbuf, s->count * s->esize, rd->buddy)
                          : LOOM_OK;
}
