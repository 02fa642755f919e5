/*
 * mpi_rma_s16.c: session 16 of the one-sided layer: the small requests and
 * their answers as p2p frames (p2p_am.c, rma_am.c's loom_rma_am_frame_in),
 * with exact data.
 *
 *   chain K  [create|allocate]
 *            as mpi_rma_s15's: under lock_all every rank issues K random
 *            fetch-and-ops, get-accumulates, CAS increments, accumulates
 *            (int64, int32 pairs) and small gets to random targets with
 *            random flushes; every fetched old value is logged and the
 *            chains checked whole at rank 0, the totals exact.
 *   order K  [create|allocate]
 *            mixed large and small requests from one origin to one target
 *            without a flush between them: a put of 128 KiB (header and
 *            data apart, rma_zcopy.c), a small SUM on word 0, an 8 KiB
 *            REPLACE accumulate (one message, more than a frame), a small
 *            SUM on word 1, fetch-and-op / get-accumulate NO_OP reads; each
 *            must see exactly the ones issued before it (the small ones
 *            leave as frames, the large ones as messages); a large get of
 *            the slot after the flush sees them all. K rounds to every target, the final slots
 *            checked by their owner.
 *   press K  [create|allocate]
 *            back-pressure: each rank streams K get-accumulates SUM 1 as
 *            R-forms (each request a frame of its own) with batched
 *            accumulates and fetch-and-ops among them to the next rank,
 *            which is not progressing (odd ranks sleep first), before one
 *            flush; the fetched old values must count every increment
 *            issued before each, in issue order, and the final counter all.
 *   mt K     [create|allocate]   (MPI_THREAD_MULTIPLE)
 *            two threads per rank, K fetch-and-ops and get-accumulates each
 *            with flushes between some, the chain check.
 *
 * The driver (test_mpi_rma_s16.sh) runs each over CMA windows (atomics by
 * message), LOOM_RMA_CMA=off, tcp, self (np 1), and LOOM_RMA_AM=off.
 *
 * usage: mpi_rma_s16 chain|order|press|mt [K] [create|allocate]
 */
#include "mpi_test_util.h"
#include "rma_chain.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* ---- order: large and small requests of one origin apply in the order issued ---- */

enum { SLOTW = 16384, ACCW = 1024 };   /* words per origin slot (128 KiB); 8 KiB accumulate */

static int64_t order_base(int r, int o)
{
    return (int64_t)r * 1000 + o + 1;
}

/* one round to @p t: everything issued before the flush, the reads checked after it */
static void order_round(int r, int t, int64_t *big, int64_t *acc, int64_t *back)
{
    MPI_Aint slot = (MPI_Aint)rank * SLOTW;
    int64_t base = order_base(r, rank), five = 5, three = 3, none = 0, old0 = -1, old1 = -1,
            old2 = -1;

    for (int i = 0; i < SLOTW; ++i) {
        big[i] = base;
    }
    for (int i = 0; i < ACCW; ++i) {
        acc[i] = base + 1;
    }
    MT_OK(MPI_Put(big, SLOTW, MPI_INT64_T, t, slot, SLOTW, MPI_INT64_T, win));
    MT_OK(MPI_Accumulate(&five, 1, MPI_INT64_T, t, slot, 1, MPI_INT64_T, MPI_SUM, win));
    MT_OK(MPI_Accumulate(acc, ACCW, MPI_INT64_T, t, slot + 1, ACCW, MPI_INT64_T, MPI_REPLACE,
                         win));
    MT_OK(MPI_Accumulate(&three, 1, MPI_INT64_T, t, slot + 1, 1, MPI_INT64_T, MPI_SUM, win));
    MT_OK(MPI_Fetch_and_op(&none, &old0, MPI_INT64_T, t, slot, MPI_NO_OP, win));
    MT_OK(MPI_Get_accumulate(&none, 1, MPI_INT64_T, &old1, 1, MPI_INT64_T, t, slot + 1, 1,
                             MPI_INT64_T, MPI_NO_OP, win));
    MT_OK(MPI_Get_accumulate(&none, 1, MPI_INT64_T, &old2, 1, MPI_INT64_T, t,
                             slot + ACCW + 1, 1, MPI_INT64_T, MPI_NO_OP, win));
    MT_OK(MPI_Win_flush(t, win));
    /* (a get is not ordered with accumulates on a CMA window: read after the flush) */
    MT_OK(MPI_Get(back, SLOTW, MPI_INT64_T, t, slot, SLOTW, MPI_INT64_T, win));
    MT_OK(MPI_Win_flush(t, win));
    MT_EQ(old0, base + 5);
    MT_EQ(old1, base + 1 + 3);
    MT_EQ(old2, base);
    MT_EQ(back[0], base + 5);
    MT_EQ(back[1], base + 1 + 3);
    MT_EQ(back[2], base + 1);
    MT_EQ(back[ACCW], base + 1);
    MT_EQ(back[ACCW + 1], base);
    MT_EQ(back[SLOTW - 1], base);
}

static void test_order(int k, const char *flavor)
{
    int64_t *big = malloc(SLOTW * sizeof(int64_t)), *acc = malloc(ACCW * sizeof(int64_t));
    int64_t *back = malloc(SLOTW * sizeof(int64_t));

    MT_CHECK(big != NULL && acc != NULL && back != NULL);
    win_open_n(flavor, (MPI_Aint)size * SLOTW * (MPI_Aint)sizeof(int64_t));
    MT_OK(MPI_Win_lock_all(0, win));
    for (int r = 0; r < k; ++r) {
        for (int i = 0; i < size; ++i) {
            order_round(r, (rank + i) % size, big, acc, back);
        }
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (int o = 0; o < size; ++o) {
        const int64_t *s = mem + (size_t)o * SLOTW;
        int64_t base = order_base(k - 1, o);

        MT_EQ(s[0], base + 5);
        MT_EQ(s[1], base + 1 + 3);
        for (int i = 2; i <= ACCW; ++i) {
            MT_EQ(s[i], base + 1);
        }
        for (int i = ACCW + 1; i < SLOTW; ++i) {
            MT_EQ(s[i], base);
        }
    }
    MT_OK(MPI_Win_unlock(rank, win));
    win_close(flavor);
    free(big);
    free(acc);
    free(back);
}

/* ---- press: many frames before one flush, to a target that does not progress ---- */

static void test_press(int k, const char *flavor)
{
    int t = (rank + 1) % size;
    int64_t *old = malloc((size_t)k * sizeof(int64_t)), *want = malloc((size_t)k * sizeof(int64_t));
    MPI_Request *req = malloc((size_t)k * sizeof(MPI_Request));
    int64_t one = 1, incs = 0, w[NWORDS];
    int nreq = 0;

    MT_CHECK(old != NULL && want != NULL && req != NULL);
    win_open(flavor);
    MT_OK(MPI_Win_lock_all(0, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank % 2 == 1) {
        usleep(200000);   /* no MPI call: requests pile up against this rank */
    }
    for (int i = 0; i < k; ++i) {
        want[i] = incs++;
        old[i] = -1;
        if (i % 13 == 5) {   /* batched, answered by id */
            MT_OK(MPI_Fetch_and_op(&one, &old[i], MPI_INT64_T, t, 0, MPI_SUM, win));
        } else {             /* a request of its own, its reply to a posted receive */
            MT_OK(MPI_Rget_accumulate(&one, 1, MPI_INT64_T, &old[i], 1, MPI_INT64_T, t, 0, 1,
                                      MPI_INT64_T, MPI_SUM, win, &req[nreq++]));
        }
        if (i % 7 == 3) {    /* batched, no answer of its own */
            MT_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, win));
            ++incs;
        }
    }
    MT_OK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    MT_OK(MPI_Win_flush_all(win));
    for (int i = 0; i < k; ++i) {
        if (old[i] != want[i]) {
            MT_FAIL("operation %d of %d to rank %d fetched %lld, %lld increments were issued "
                    "before it", i, k, t, (long long)old[i], (long long)want[i]);
        }
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    read_own(w);
    MT_EQ(w[0], incs);   /* (every rank issues the same sequence) */
    win_close(flavor);
    free(old);
    free(want);
    free(req);
}

int main(int argc, char **argv)
{
    const char *flavor;
    int k;
    const char *mode = chain_init(&argc, &argv, &k, &flavor);

    if (strcmp(mode, "chain") == 0) {
        test_chain(k, flavor, 7);
    } else if (strcmp(mode, "order") == 0) {
        test_order(k, flavor);
    } else if (strcmp(mode, "press") == 0) {
        test_press(k, flavor);
    } else if (strcmp(mode, "mt") == 0) {
        test_mt(k, flavor, 1);
    } else {
        MT_FAIL("unknown mode '%s'", mode);
    }
    MT_PASS("mpi_rma_s16");
    MPI_Finalize();
    return 0;
}
