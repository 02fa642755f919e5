/*
 * mpi_rma_fast.c: the MPI binding's inline one-sided path (session 11):
 * windows in one shared segment (Win_allocate on one host,
 * Win_allocate_shared) run Put/Get of plain types, Accumulate (SUM,
 * REPLACE), Fetch_and_op (SUM, REPLACE, NO_OP) and Compare_and_swap of
 * 32/64-bit integers, and the flush calls, without entering the rma
 * layer. Checked exactly, on both window kinds (and on Win_create, where
 * the same calls take the general path and must give the same answers):
 *
 *   mpi_rma_fast [iters]
 *
 *   - epochs: an operation outside every epoch, to a target not locked,
 *     after a fence with MPI_MODE_NOSUCCEED, outside the Win_start group
 *     -> MPI_ERR_RMA_SYNC; flush inside a fence epoch, flush_all inside a
 *     PSCW one -> MPI_ERR_RMA_SYNC; flush of MPI_ANY_SOURCE (-1) ->
 *     MPI_ERR_RANK; out of range, negative disp -> MPI_ERR_RMA_RANGE; an
 *     op the inline path does not take (MPI_MAX) still right; a passive epoch on one target then on another (the
 *     first's access goes away);
 *   - every element operation once with a known result: FOP SUM / REPLACE
 *     / NO_OP, CAS matching and not, on MPI_INT, MPI_LONG_LONG,
 *     MPI_UNSIGNED, MPI_UINT64_T (wrap-around), Accumulate SUM and REPLACE
 *     of 4 ints (the inline loop) and of 24 (the inline call of the
 *     vectorized reduce);
 *   - no lost update: every rank adds to every target's counters iters
 *     times under lock_all, mixing inline FOP SUM (int64), inline
 *     Accumulate SUM (int32) and general-path accumulates on the same
 *     elements (a contiguous derived type, Get_accumulate): the final
 *     values are exact, and the values FOP fetched from one counter over
 *     all ranks are distinct.
 */
#include "mpi_win_kinds.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;


#define WBYTES 256   /* per rank: [0,8) int64 counter, [8,12) int32 counter, scratch after */

static MPI_Win win_open(int kind, char **base_p)
{
    return win_open_bytes(kind, WBYTES, base_p);
}

/* ---- epochs and errors ---- */

static void test_epochs(MPI_Win win)
{
    int peer = (rank + 1) % size, other = (rank + 2) % size, prev = (rank + size - 1) % size;
    long long v = 7, r = 0;
    MPI_Group world, one, from;

    MT_ERR(MPI_Put(&v, 1, MPI_LONG_LONG, peer, 16, 1, MPI_LONG_LONG, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Fetch_and_op(&v, &r, MPI_LONG_LONG, peer, 16, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Win_flush(peer, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);

    MT_OK(MPI_Win_fence(0, win));
    MT_ERR(MPI_Win_flush(peer, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Put(&v, 1, MPI_LONG_LONG, peer, WBYTES - 4, 1, MPI_LONG_LONG, win),
           MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Get(&r, 1, MPI_LONG_LONG, peer, -8, 1, MPI_LONG_LONG, win), MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Fetch_and_op(&v, &r, MPI_LONG_LONG, peer, WBYTES, MPI_SUM, win),
           MPI_ERR_RMA_RANGE);
    MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    MT_ERR(MPI_Get(&r, 1, MPI_LONG_LONG, peer, 16, 1, MPI_LONG_LONG, win), MPI_ERR_RMA_SYNC);

    /* lock one target: another is out of the epoch; flush(-1) is a bad rank */
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    if (other != peer) {
        MT_ERR(MPI_Put(&v, 1, MPI_LONG_LONG, other, 16, 1, MPI_LONG_LONG, win),
               MPI_ERR_RMA_SYNC);
        MT_ERR(MPI_Win_flush(other, win), MPI_ERR_RMA_SYNC);
    }
    MT_ERR(MPI_Win_flush(MPI_ANY_SOURCE, win), MPI_ERR_RANK);
    MT_OK(MPI_Win_flush(MPI_PROC_NULL, win));
    MT_OK(MPI_Win_flush_all(win));
    MT_OK(MPI_Win_unlock(peer, win));
    MT_ERR(MPI_Win_flush(peer, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Put(&v, 1, MPI_LONG_LONG, peer, 16, 1, MPI_LONG_LONG, win), MPI_ERR_RMA_SYNC);

    /* a fence epoch then a lock: only the locked target afterwards */
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    if (other != peer) {
        MT_ERR(MPI_Get(&r, 1, MPI_LONG_LONG, other, 16, 1, MPI_LONG_LONG, win),
               MPI_ERR_RMA_SYNC);
    }
    MT_OK(MPI_Win_unlock(peer, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* PSCW: a ring; every rank starts a group of {peer} only */
    MT_OK(MPI_Win_get_group(win, &world));
    MT_OK(MPI_Group_incl(world, 1, &peer, &one));
    MT_OK(MPI_Group_incl(world, 1, &prev, &from));
    MT_OK(MPI_Win_post(from, 0, win));
    MT_OK(MPI_Win_start(one, 0, win));
    MT_OK(MPI_Get(&r, 1, MPI_LONG_LONG, peer, 16, 1, MPI_LONG_LONG, win));
    if (other != peer) {
        MT_ERR(MPI_Put(&v, 1, MPI_LONG_LONG, other, 16, 1, MPI_LONG_LONG, win),
               MPI_ERR_RMA_SYNC);
    }
    MT_ERR(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    MT_OK(MPI_Win_complete(win));
    MT_OK(MPI_Win_wait(win));
    MT_OK(MPI_Group_free(&one));
    MT_OK(MPI_Group_free(&from));
    MT_OK(MPI_Group_free(&world));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* ---- element operations with known results ---- */

static void test_elements(MPI_Win win)
{
    int peer = (rank + 1) % size;
    long long ll, llr, llc;
    int i4, i4r, ints[4] = { 1, -2, 3, 1 << 30 }, back[4], many[24], manyback[24];
    unsigned u4, u4r;
    uint64_t u8, u8r;

    /* scratch at 32.. of the peer's window, mine from the rank before me */
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win));
    ll = 5;
    MT_OK(MPI_Put(&ll, 1, MPI_LONG_LONG, peer, 32, 1, MPI_LONG_LONG, win));
    MT_OK(MPI_Win_flush(peer, win));   /* nor is an accumulate after a put */
    ll = 3;
    MT_OK(MPI_Fetch_and_op(&ll, &llr, MPI_LONG_LONG, peer, 32, MPI_SUM, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(llr, 5);
    MT_OK(MPI_Fetch_and_op(NULL, &llr, MPI_LONG_LONG, peer, 32, MPI_NO_OP, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(llr, 8);
    ll = -40;
    MT_OK(MPI_Fetch_and_op(&ll, &llr, MPI_LONG_LONG, peer, 32, MPI_REPLACE, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(llr, 8);
    ll = 100, llc = -41;   /* no match: unchanged */
    MT_OK(MPI_Compare_and_swap(&ll, &llc, &llr, MPI_LONG_LONG, peer, 32, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(llr, -40);
    llc = -40;             /* match: swapped */
    MT_OK(MPI_Compare_and_swap(&ll, &llc, &llr, MPI_LONG_LONG, peer, 32, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(llr, -40);
    ll = 9;                /* MPI_MAX: not inline, same window, same lock */
    MT_OK(MPI_Fetch_and_op(&ll, &llr, MPI_LONG_LONG, peer, 32, MPI_MAX, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(llr, 100);
    MT_OK(MPI_Get(&llr, 1, MPI_LONG_LONG, peer, 32, 1, MPI_LONG_LONG, win));
    MT_OK(MPI_Win_flush(peer, win));
    MT_EQ(llr, 100);

    i4 = 2147483647;       /* int32: SUM wraps as two's complement would */
    MT_OK(MPI_Put(&i4, 1, MPI_INT, peer, 40, 1, MPI_INT, win));
    MT_OK(MPI_Win_flush(peer, win));   /* nor is an accumulate after a put */
    i4 = 1;
    MT_OK(MPI_Fetch_and_op(&i4, &i4r, MPI_INT, peer, 40, MPI_SUM, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(i4r, 2147483647);
    MT_OK(MPI_Fetch_and_op(NULL, &i4r, MPI_INT, peer, 40, MPI_NO_OP, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(i4r, -2147483647 - 1);
    i4 = 12, i4r = -2147483647 - 1;
    MT_OK(MPI_Compare_and_swap(&i4, &i4r, &i4r, MPI_INT, peer, 40, win));  /* result == compare */
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(i4r, -2147483647 - 1);
    MT_OK(MPI_Get(&i4r, 1, MPI_INT, peer, 40, 1, MPI_INT, win));
    MT_OK(MPI_Win_flush(peer, win));
    MT_EQ(i4r, 12);

    u4 = 0xfffffffeu;
    MT_OK(MPI_Put(&u4, 1, MPI_UNSIGNED, peer, 44, 1, MPI_UNSIGNED, win));
    MT_OK(MPI_Win_flush(peer, win));   /* nor is an accumulate after a put */
    u4 = 3;
    MT_OK(MPI_Fetch_and_op(&u4, &u4r, MPI_UNSIGNED, peer, 44, MPI_SUM, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(u4r, 0xfffffffeu);
    MT_OK(MPI_Fetch_and_op(NULL, &u4r, MPI_UNSIGNED, peer, 44, MPI_NO_OP, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_EQ(u4r, 1);
    u8 = UINT64_MAX;
    MT_OK(MPI_Put(&u8, 1, MPI_UINT64_T, peer, 48, 1, MPI_UINT64_T, win));
    MT_OK(MPI_Win_flush(peer, win));   /* nor is an accumulate after a put */
    u8 = 2;
    MT_OK(MPI_Fetch_and_op(&u8, &u8r, MPI_UINT64_T, peer, 48, MPI_SUM, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_CHECK(u8r == UINT64_MAX);
    MT_OK(MPI_Fetch_and_op(NULL, &u8r, MPI_UINT64_T, peer, 48, MPI_NO_OP, win));
    MT_OK(MPI_Win_flush(peer, win));   /* results are ready after a flush */
    MT_CHECK(u8r == 1);

    /* Accumulate of several ints: REPLACE then SUM, disp 56 */
    MT_OK(MPI_Accumulate(ints, 4, MPI_INT, peer, 56, 4, MPI_INT, MPI_REPLACE, win));
    MT_OK(MPI_Accumulate(ints, 4, MPI_INT, peer, 56, 4, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Win_flush(peer, win));   /* a get is not ordered after accumulates */
    MT_OK(MPI_Get(back, 4, MPI_INT, peer, 56, 4, MPI_INT, win));
    /* 24 ints (past the inline loop: the vectorized reduce) summed twice at 128 */
    for (int k = 0; k < 24; ++k) {
        many[k] = k * 1000 - 7;
    }
    MT_OK(MPI_Accumulate(many, 24, MPI_INT, peer, 128, 24, MPI_INT, MPI_REPLACE, win));
    MT_OK(MPI_Accumulate(many, 24, MPI_INT, peer, 128, 24, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Accumulate(many, 24, MPI_INT, peer, 128, 24, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Win_flush(peer, win));
    MT_OK(MPI_Get(manyback, 24, MPI_INT, peer, 128, 24, MPI_INT, win));
    MT_OK(MPI_Win_unlock(peer, win));
    for (int k = 0; k < 4; ++k) {
        MT_EQ(back[k], (int)(2u * (unsigned)ints[k]));
    }
    for (int k = 0; k < 24; ++k) {
        MT_EQ(manyback[k], 3 * many[k]);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* ---- no lost update among inline and general accumulates ---- */

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;

    return (x > y) - (x < y);
}

static void test_contention(MPI_Win win, char *base, int iters)
{
    long long one = 1, *got = malloc(sizeof(long long) * (size_t)iters * (size_t)size);
    long long *all = malloc(sizeof(long long) * (size_t)iters * (size_t)size * (size_t)size);
    int i1 = 1, i2[2] = { 2, 0 }, gres[2];
    long long ll2[2] = { 1, 2 };
    MPI_Datatype pair;
    long long fop_per_target;
    int n = 0;

    MT_CHECK(got != NULL && all != NULL);
    MT_OK(MPI_Type_contiguous(1, MPI_LONG_LONG, &pair));
    MT_OK(MPI_Type_commit(&pair));
    MT_OK(MPI_Win_lock_all(0, win));
    for (int it = 0; it < iters; ++it) {
        for (int k = 0; k < size; ++k) {
            int t = (rank + k + it) % size;

            /* inline FOP SUM (int64) and Accumulate SUM (int32) */
            MT_OK(MPI_Fetch_and_op(&one, &got[n++], MPI_LONG_LONG, t, 0, MPI_SUM, win));
            MT_OK(MPI_Accumulate(&i1, 1, MPI_INT, t, 8, 1, MPI_INT, MPI_SUM, win));
            if (it % 4 == 0) {   /* general path: derived type, Get_accumulate */
                MT_OK(MPI_Accumulate(&ll2[1], 1, pair, t, 0, 1, pair, MPI_SUM, win));
                MT_OK(MPI_Get_accumulate(i2, 1, MPI_INT, gres, 1, MPI_INT, t, 8, 1,
                                         MPI_INT, MPI_SUM, win));
            }
        }
        if (it % 8 == 0) {
            MT_OK(MPI_Win_flush_all(win));
        }
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    {   /* per target: iters*size FOPs of 1 and (iters+3)/4*size adds of 2 */
        long long extra = (long long)((iters + 3) / 4) * size;
        long long c64, want64 = (long long)iters * size + 2 * extra;
        int c32, want32 = iters * size + 2 * (int)extra;

        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        memcpy(&c64, base, 8);
        memcpy(&c32, base + 8, 4);
        MT_OK(MPI_Win_unlock(rank, win));
        MT_EQ(c64, want64);
        MT_EQ(c32, want32);
    }
    /* every FOP's fetched value on rank 0's counter, over all ranks: distinct */
    fop_per_target = iters;
    {
        long long *mine0 = malloc(sizeof(long long) * (size_t)iters);
        int m = 0;

        MT_CHECK(mine0 != NULL);
        for (int it = 0, idx = 0; it < iters; ++it) {
            for (int k = 0; k < size; ++k, ++idx) {
                if ((rank + k + it) % size == 0) {
                    mine0[m++] = got[idx];
                }
            }
        }
        MT_EQ(m, fop_per_target);
        MT_OK(MPI_Allgather(mine0, iters, MPI_LONG_LONG, all, iters, MPI_LONG_LONG,
                            MPI_COMM_WORLD));
        qsort(all, (size_t)iters * (size_t)size, sizeof(long long), cmp_ll);
        for (size_t j = 1; j < (size_t)iters * (size_t)size; ++j) {
            if (all[j] == all[j - 1]) {
                MT_FAIL("two fetch-and-ops on rank 0 fetched %lld: an update was lost",
                        all[j]);
            }
        }
        free(mine0);
    }
    MT_OK(MPI_Type_free(&pair));
    free(got);
    free(all);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 200;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int kind = 0; kind < W_KINDS; ++kind) {
        char *base;
        MPI_Win win = win_open(kind, &base);

        test_epochs(win);
        test_elements(win);
        test_contention(win, base, iters);
        win_close(kind, &win, base);
        if (rank == 0) {
            printf("mpi_rma_fast: %s ok\n", kind_names[kind]);
        }
    }
    MT_PASS("mpi_rma_fast");
    MT_OK(MPI_Finalize());
    return 0;
}
