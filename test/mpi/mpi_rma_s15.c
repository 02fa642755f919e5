/*
 * mpi_rma_s15.c: session 15 of the one-sided layer: atomicity and
 * ordering of the small one-sided requests under load, with exact data.
 *
 *   chain K  [create|allocate]
 *            under lock_all every rank issues K random operations to
 *            random targets, flushing at random points: fetch-and-op SUM
 *            and get-accumulate SUM of random positive int64 amounts, and
 *            compare-and-swap increments (read, CAS, retry) on the chain
 *            counters; accumulates SUM (int64 and int32) and
 *            fetch-and-op SUM on the total counters. Every fetched old
 *            value is logged. Rank 0 gathers the logs: per chain counter,
 *            sorted by old value, each old + amount is the next old,
 *            starting at 0 and ending at the counter's final value (an
 *            update lost, applied twice or torn breaks the chain); the
 *            total counters equal the sum of what every rank added.
 *   lockc K  [create|allocate]
 *            lock contention: K times, lock exclusive a random target
 *            (rank 0 half the time), get its counter, flush, put it + 1,
 *            unlock (a read-modify-write that only the lock makes atomic);
 *            between them, under shared locks, fetch-and-op SUM 1 on a
 *            second counter. Both counters exact at the end.
 *   small    [create|allocate]
 *            the put and accumulate of at most 512 contiguous bytes built
 *            on the stack (rma_ops.c, loom_rma_op_am_small): under
 *            lock_all every rank puts 1..512 bytes at odd byte offsets into
 *            its slot at every rank (disp unit 4), through a contiguous
 *            target type with a true lower bound of 8 bytes (hindexed, one
 *            block) and adds int32 and int64 SUMs there; it scribbles over
 *            each origin buffer right after the call (MPI lets it: the
 *            call copies), then flushes and gets every byte back; a put
 *            past the window's end fails MPI_ERR_RMA_RANGE, one outside
 *            an epoch MPI_ERR_RMA_SYNC, and neither lands.
 *   mt K     [create|allocate]   (MPI_THREAD_MULTIPLE)
 *            two threads per rank, one lock_all, each thread K
 *            fetch-and-op SUM + flush to random targets; the same chain
 *            check over every rank's and thread's log.
 *
 * The window paths these reach depend on the environment (the driver,
 * test_mpi_rma_s15.sh, runs each over CMA windows whose atomics go by
 * active message, LOOM_RMA_CMA=acc, LOOM_RMA_CMA=off, tcp, and Win_allocate
 * in a shared segment).
 *
 * usage: mpi_rma_s15 chain|lockc|small|mt [K] [create|allocate]
 */
#include "mpi_test_util.h"
#include "rma_chain.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* one exclusive read-modify-write of word 0 at @p t, then maybe a shared fetch-and-op */
static void lockc_round(uint64_t *s, int64_t *incs, int64_t *fops)
{
    int t = rnd(s) % 2 == 0 ? 0 : (int)(rnd(s) % (uint64_t)size);
    int64_t x = -1, one = 1, old;

    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_OK(MPI_Get(&x, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
    MT_OK(MPI_Win_flush(t, win));
    MT_CHECK(x >= 0);
    ++x;
    MT_OK(MPI_Put(&x, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
    MT_OK(MPI_Win_unlock(t, win));
    ++incs[t];
    if (rnd(s) % 3 == 0) {
        t = (int)(rnd(s) % (uint64_t)size);
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        MT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, 1, MPI_SUM, win));
        MT_OK(MPI_Win_unlock(t, win));
        MT_CHECK(old >= 0);
        ++fops[t];
    }
}

static void test_lockc(int k, const char *flavor)
{
    int64_t *cnt = calloc((size_t)size * 2, sizeof(int64_t));
    int64_t *sum = calloc((size_t)size * 2, sizeof(int64_t)), w[NWORDS];
    uint64_t s = 0x2545f4914f6cdd1dULL ^ (uint64_t)(rank + 7) * 0x9e3779b97f4a7c15ULL;

    MT_CHECK(cnt != NULL && sum != NULL);
    win_open(flavor);
    for (int i = 0; i < k; ++i) {
        lockc_round(&s, cnt, cnt + size);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(cnt, sum, size * 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    read_own(w);
    MT_EQ(w[0], sum[rank]);
    MT_EQ(w[1], sum[size + rank]);
    win_close(flavor);
    free(cnt);
    free(sum);
}

enum { SLOT = 2048 };   /* bytes per origin at each target (small mode) */

static unsigned char pat(int t, int i, size_t k)
{
    return (unsigned char)(rank * 31 + t * 17 + i * 5 + k * 11 + 3);
}

/* put n (1..512) bytes at byte @p off of this rank's slot at @p t through a type with lb 8 */
static void small_put(MPI_Win w, int t, int i, size_t n, size_t off, unsigned char *expect)
{
    unsigned char buf[512];
    int blen = (int)n;
    MPI_Aint displ = 8;
    MPI_Datatype tt;

    for (size_t k = 0; k < n; ++k) {
        buf[k] = expect[off + 8 + k] = pat(t, i, k);
    }
    MT_OK(MPI_Type_create_hindexed(1, &blen, &displ, MPI_BYTE, &tt));
    MT_OK(MPI_Type_commit(&tt));
    /* disp in units of 4 bytes: off is a multiple of 4 here, the odd part in the type */
    MT_OK(MPI_Put(buf, (int)n, MPI_BYTE, t, (MPI_Aint)((size_t)rank * SLOT + off) / 4, 1, tt, w));
    memset(buf, 0xEE, sizeof(buf));   /* the call copied it */
    MT_OK(MPI_Type_free(&tt));
}

/* int32 and int64 SUMs on the slot's last 256 bytes */
static void small_acc(MPI_Win w, int t, int i, unsigned char *expect)
{
    int32_t a[16];
    int64_t b[8], cur64;
    int32_t cur32;
    size_t base = SLOT - 256;

    for (int k = 0; k < 16; ++k) {
        a[k] = (int32_t)(i * 16 + k - 77);
        memcpy(&cur32, expect + base + 4 * (size_t)k, 4);
        cur32 += a[k];
        memcpy(expect + base + 4 * (size_t)k, &cur32, 4);
    }
    for (int k = 0; k < 8; ++k) {
        b[k] = (int64_t)(i + 1) * 1000003LL * (k + 1);
        memcpy(&cur64, expect + base + 128 + 8 * (size_t)k, 8);
        cur64 += b[k];
        memcpy(expect + base + 128 + 8 * (size_t)k, &cur64, 8);
    }
    MT_OK(MPI_Accumulate(a, 16, MPI_INT32_T, t, (MPI_Aint)((size_t)rank * SLOT + base) / 4, 16,
                         MPI_INT32_T, MPI_SUM, w));
    MT_OK(MPI_Accumulate(b, 8, MPI_INT64_T, t,
                         (MPI_Aint)((size_t)rank * SLOT + base + 128) / 4, 8, MPI_INT64_T,
                         MPI_SUM, w));
    memset(a, 0xEE, sizeof(a));
    memset(b, 0xEE, sizeof(b));
}

static void test_small(const char *flavor)
{
    size_t bytes = (size_t)size * SLOT;
    unsigned char *m, *expect = calloc((size_t)size, SLOT), *back = malloc(SLOT);
    MPI_Win w;
    int64_t one = 1;

    MT_CHECK(expect != NULL && back != NULL);
    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate((MPI_Aint)bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &w));
    } else {
        MT_CHECK((m = calloc(1, bytes)) != NULL);
        MT_OK(MPI_Win_create(m, (MPI_Aint)bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w));
    memset(m, 0, bytes);
    MT_OK(MPI_Win_unlock(rank, w));
    MT_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* outside an epoch: refused, nothing lands */
    MT_ERR(MPI_Put(&one, 1, MPI_INT64_T, (rank + 1) % size, 0, 1, MPI_INT64_T, w),
           MPI_ERR_RMA_SYNC);
    MT_OK(MPI_Win_lock_all(0, w));
    for (int t = 0; t < size; ++t) {
        unsigned char *ex = expect + (size_t)t * SLOT;
        size_t off = 0;

        for (int i = 0; off + 8 + 512 < SLOT - 256; ++i) {
            size_t n = (size_t)(1 + (i * 97) % 512);

            if (off + 8 + n > SLOT - 256) {
                break;
            }
            small_put(w, t, i, n, off, ex);
            small_acc(w, t, i, ex);
            off = (off + 8 + n + 3) / 4 * 4 + 4;
            if (i % 3 == 0) {
                MT_OK(MPI_Win_flush(t, w));
            }
        }
        /* past the end: 8 bytes from the window's last 4 */
        MT_ERR(MPI_Put(&one, 8, MPI_BYTE, t, (MPI_Aint)(bytes / 4 - 1), 8, MPI_BYTE, w),
               MPI_ERR_RMA_RANGE);
    }
    MT_OK(MPI_Win_flush_all(w));
    for (int t = 0; t < size; ++t) {
        MT_OK(MPI_Get(back, SLOT, MPI_BYTE, t, (MPI_Aint)((size_t)rank * SLOT / 4), SLOT,
                      MPI_BYTE, w));
        MT_OK(MPI_Win_flush(t, w));
        for (size_t k = 0; k < SLOT; ++k) {
            if (back[k] != expect[(size_t)t * SLOT + k]) {
                MT_FAIL("slot of rank %d at rank %d: byte %zu is %u, expected %u", rank, t, k,
                        back[k], expect[(size_t)t * SLOT + k]);
            }
        }
    }
    MT_OK(MPI_Win_unlock_all(w));
    MT_OK(MPI_Win_free(&w));
    if (strcmp(flavor, "allocate") != 0) {
        free(m);
    }
    free(expect);
    free(back);
}

int main(int argc, char **argv)
{
    const char *flavor;
    int k;
    const char *mode = chain_init(&argc, &argv, &k, &flavor);

    if (strcmp(mode, "chain") == 0) {
        test_chain(k, flavor, 6);
    } else if (strcmp(mode, "lockc") == 0) {
        test_lockc(k, flavor);
    } else if (strcmp(mode, "small") == 0) {
        test_small(flavor);
    } else if (strcmp(mode, "mt") == 0) {
        test_mt(k, flavor, 0);
    } else {
        MT_FAIL("unknown mode '%s'", mode);
    }
    MT_PASS("mpi_rma_s15");
    MPI_Finalize();
    return 0;
}
