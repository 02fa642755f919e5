/*
 * mpi_rma_unaligned.c: accumulates at addresses not aligned for their
 * type (session 11 review of the inline one-sided path). A window of disp
 * unit 1 lets a program accumulate at an odd displacement, and an origin
 * buffer may sit at an odd address; MPI allows both. The reduction
 * (loom_op_reduce) loads typed elements, which is undefined there and
 * aborts under UBSan (-fno-sanitize-recover): the inline Accumulate SUM of
 * more than 8 ints, the rma layer's contiguous path (Fetch_and_op and
 * Accumulate of doubles) and the general path (a derived contiguous
 * type, Get_accumulate; over active messages the target's service) must
 * all combine through aligned memory.
 *
 *   mpi_rma_unaligned [rounds]
 *
 * On Win_allocate, Win_allocate_shared and Win_create windows, every rank
 * accumulates into the next rank's window under lock_all, @c rounds times
 * each, at odd displacements (and once from an odd origin address); then
 * every rank checks its own window exactly (integers, and doubles whose
 * sums are exact), and the values Fetch_and_op / Get_accumulate fetched.
 */
#include "mpi_win_kinds.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;


#define WBYTES 512
#define D_INT24 1     /* 24 ints, inline SUM (its vectorized call) */
#define D_DBL5  129   /* 5 doubles, Accumulate SUM (contiguous path) */
#define D_FOP   201   /* 1 double, Fetch_and_op SUM */
#define D_CT    257   /* 2 x contiguous(3, MPI_INT), general path */
#define D_ODDO  301   /* 6 ints from an odd origin address */
#define D_GACC  351   /* 4 long long, Get_accumulate SUM */

static MPI_Win win_open(int kind, char **base_p)
{
    return win_open_bytes(kind, WBYTES, base_p);
}

/* one round of every unaligned accumulate to @p t; @p k counts rounds from 0 */
static void acc_round(MPI_Win win, MPI_Datatype ct, int t, int k)
{
    int i24[24], i6[6];
    char oddbuf[1 + sizeof(i6)];
    double d5[5], one = 2.5, got = -1.0;
    long long ll[4], llr[4];

    for (int i = 0; i < 24; ++i) {
        i24[i] = i + 1 + rank;
    }
    for (int i = 0; i < 5; ++i) {
        d5[i] = i + 0.5;
    }
    for (int i = 0; i < 6; ++i) {
        i6[i] = 100 * i - rank;
    }
    memcpy(oddbuf + 1, i6, sizeof(i6));
    for (int i = 0; i < 4; ++i) {
        ll[i] = (1LL << 40) + i;
    }
    MT_OK(MPI_Accumulate(i24, 24, MPI_INT, t, D_INT24, 24, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Accumulate(d5, 5, MPI_DOUBLE, t, D_DBL5, 5, MPI_DOUBLE, MPI_SUM, win));
    MT_OK(MPI_Fetch_and_op(&one, &got, MPI_DOUBLE, t, D_FOP, MPI_SUM, win));
    MT_OK(MPI_Accumulate(i24, 2, ct, t, D_CT, 2, ct, MPI_SUM, win));
    MT_OK(MPI_Accumulate(oddbuf + 1, 6, MPI_INT, t, D_ODDO, 6, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Get_accumulate(ll, 4, MPI_LONG_LONG, llr, 4, MPI_LONG_LONG, t, D_GACC, 4,
                             MPI_LONG_LONG, MPI_SUM, win));
    MT_OK(MPI_Win_flush(t, win));
    MT_CHECK(got == 2.5 * k);
    for (int i = 0; i < 4; ++i) {
        MT_EQ(llr[i], (long long)k * ll[i]);
    }
}

/* this rank's window after @p rounds rounds from rank @p s */
static void check_mine(const char *base, int s, int rounds)
{
    int v;
    double d;
    long long l;

    for (int i = 0; i < 24; ++i) {
        memcpy(&v, base + D_INT24 + 4 * i, 4);
        MT_EQ(v, rounds * (i + 1 + s));
    }
    for (int i = 0; i < 5; ++i) {
        memcpy(&d, base + D_DBL5 + 8 * i, 8);
        MT_CHECK(d == rounds * (i + 0.5));
    }
    memcpy(&d, base + D_FOP, 8);
    MT_CHECK(d == rounds * 2.5);
    for (int i = 0; i < 6; ++i) {
        memcpy(&v, base + D_CT + 4 * i, 4);
        MT_EQ(v, rounds * (i + 1 + s));
        memcpy(&v, base + D_ODDO + 4 * i, 4);
        MT_EQ(v, rounds * (100 * i - s));
    }
    for (int i = 0; i < 4; ++i) {
        memcpy(&l, base + D_GACC + 8 * i, 8);
        MT_EQ(l, rounds * ((1LL << 40) + i));
    }
}

static void test_kind(int kind, int rounds)
{
    int t = (rank + 1) % size, s = (rank + size - 1) % size;
    MPI_Datatype ct;
    char *base;
    MPI_Win win = win_open(kind, &base);

    MT_OK(MPI_Type_contiguous(3, MPI_INT, &ct));
    MT_OK(MPI_Type_commit(&ct));
    MT_OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < rounds; ++k) {
        acc_round(win, ct, t, k);
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    check_mine(base, s, rounds);
    MT_OK(MPI_Win_unlock(rank, win));
    MT_OK(MPI_Type_free(&ct));
    win_close(kind, &win, base);
    if (rank == 0) {
        printf("  %s: unaligned accumulates exact\n", kind_names[kind]);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int kind = 0; kind < W_KINDS; ++kind) {
        test_kind(kind, rounds);
    }
    MT_PASS("mpi_rma_unaligned");
    MT_OK(MPI_Finalize());
    return 0;
}
