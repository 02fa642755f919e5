/*
 * alltoall_bruck.c: Bruck's alltoall, ceil(log2 p) steps for small blocks.
 *
 *   rotate: tmp[j] = my block for rank (r + j) mod p
 *   step dist = 1, 2, 4, ...: pack every tmp[j] with (j & dist) != 0, send
 *       the pack to r + dist, receive the same positions from r - dist and
 *       unpack them into tmp
 *   finally tmp[j] came from rank (r - j) mod p: copy it there.
 *
 *   p = 4, r = 0:  dist 1 moves j = 1, 3;  dist 2 moves j = 2, 3
 *
 * Sends about (n/2) log2(p) bytes per rank instead of n, in log2(p)
 * messages instead of p-1: the choice for tiny blocks.
 */
#include "coll_int.h"

enum phase { PH_START = 0, PH_STEP, PH_WAIT, PH_DONE };

static void bruck_pack(loom_coll_state_t *s, char *tmp, char *pack, int dist, int unpack)
{
    size_t blk = s->count * s->esize, k = 0;

    for (int j = 0; j < s->size; ++j) {
        if (j & dist) {
            if (unpack) {
                memcpy(tmp + (size_t)j * blk, pack + k * blk, blk);
            } else {
                memcpy(pack + k * blk, tmp + (size_t)j * blk, blk);
            }
            ++k;
        }
    }
}

loom_status_t loom_coll_alltoall_bruck(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    int p = s->size, r = s->rank, dist, cnt;
    size_t blk = s->count * s->esize, half = (size_t)(p / 2 + 1) * blk;
    char *tmp = s->tmp, *spack, *rpack;
    loom_status_t st;

    for (;;) {
        tmp   = s->tmp;
        spack = tmp != NULL ? tmp + (size_t)p * blk : NULL;
        rpack = spack != NULL ? spack + half : NULL;
        switch ((enum phase)s->phase) {
        case PH_START:
            if ((st = loom_coll_tmp_alloc(s, (size_t)p * blk + 2 * half)) != LOOM_OK) {
                return st;
            }
            for (int j = 0; j < p; ++j) {
                memcpy((char *)s->tmp + (size_t)j * blk,
                       (const char *)s->sbuf + (size_t)loom_pat_mod(r + j, p) * blk, blk);
            }
            s->phase = PH_STEP;
            break;
        case PH_STEP:
            dist = 1 << s->step;
            if (dist >= p) {
                s->phase = PH_DONE;
                break;
            }
            cnt = loom_pat_bruck_a2a_count(dist, p);
            bruck_pack(s, tmp, spack, dist, 0);
            if ((st = loom_coll_recv(s, rpack, (size_t)cnt * blk,
                                     loom_pat_mod(r - dist, p))) != LOOM_OK ||
                (st = loom_coll_send(s, spack, (size_t)cnt * blk,
                                     loom_pat_mod(r + dist, p))) != LOOM_OK) {
                return st;
            }
            s->phase = PH_WAIT;
            /* fall through */
        case PH_WAIT:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            bruck_pack(s, tmp, rpack, 1 << s->step, 1);
            ++s->step;
            s->phase = PH_STEP;
            break;
        case PH_DONE:
            for (int j = 0; j < p; ++j) {
                memcpy((char *)s->rbuf + (size_t)loom_pat_mod(r - j, p) * blk,
                       tmp + (size_t)j * blk, blk);
            }
            return LOOM_OK;
        }
    }
}
