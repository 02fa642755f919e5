/*
 * mpi_rma_rev17.c: the review of session 17's one-sided change (on a
 * Win_create window whose ranks share a host, puts and gets of at most
 * LOOM_RMA_CMA_MSG bytes go by active message, served in the target's
 * progress, where they were process_vm_writev/readv before).
 *
 *   poll HOW   rank 0 is the target: it waits for a flag every other rank
 *            puts into its window (8 bytes: by message), polling its own
 *            memory inside MPI calls only, while each origin first gets a
 *            word of rank 0's window, then puts the flag and flushes (a
 *            flush that needs rank 0's progress). HOW is the MPI call rank
 *            0 polls with:
 *              sync     MPI_Win_sync under lock_all (MPI's polling call in
 *                       the unified model);
 *              lockself MPI_Win_lock(shared, itself) / read / unlock;
 *              lockall  MPI_Win_lock_all / read / MPI_Win_unlock_all;
 *              acc      as sync, the flag set by MPI_Accumulate(REPLACE).
 *            Each origin then checks the word it got. A hang (a flush
 *            waiting for a target that polls without progress) fails after
 *            30 s with the flags still missing.
 *   excl     rank 0 polls a counter in its window by lock(shared, itself) /
 *            read / unlock while every other rank, K times, locks rank 0
 *            exclusively, gets the counter (8 bytes: by message), flushes,
 *            puts it + 1 (by message) and unlocks: the counter must reach
 *            (size - 1) x K exactly, which it does only if each unlock of
 *            the lock word waits for its put to be applied (a lost
 *            increment leaves rank 0 polling: fails after 30 s).
 *   cross    every rank to the next, K rounds, the same bytes by both paths
 *            with a flush between: an 8-byte put (message) read back by an
 *            8 KiB get (CMA); an 8 KiB put (CMA) read back by an 8-byte get
 *            and an 8-byte Rget (message); an 8-byte get (message) before
 *            an 8 KiB put (CMA) of the same bytes returns the old bytes;
 *            under lock_all, then under fence.
 *   dtype    every rank to the next: a put through a vector target type of
 *            many 2-byte pieces, totalling 4096 bytes (by message) and 4098
 *            (by CMA), read back by a Get and an Rget through the same
 *            type; every byte checked at the origin and the target.
 *   death_unlock  np 2: rank 0 locks rank 1 exclusively, puts 8 bytes (by
 *            message) and unlocks after rank 1 died: the unlock fails with
 *            the peer's error instead of waiting for ever, and the lock
 *            word is free again (a second exclusive lock of rank 1 returns).
 *            Prints "death_unlock: unlock failed with class N".
 *   mt       MPI_THREAD_MULTIPLE: under one lock_all, MT_THREADS threads per
 *            rank each put 8, 4096, 4097 and 16384 bytes (by message and by
 *            CMA) into its own slots of the next rank's window, flush, and
 *            read them back by Get and Rget (checked); then each target
 *            checks the bytes of its origin's last round.
 *
 * usage: mpi_rma_rev17 poll sync|lockself|lockall|acc | excl | cross | dtype | death_unlock | mt
 */
#include "mpi_test_util.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, size;

/* ---- poll ---- */

enum { POLL_ROUNDS = 50 };

/* the flag of origin @p o in round @p k (never 0) */
static int64_t poll_flag(int o, int k)
{
    return (int64_t)o * 1000 + k + 1;
}

/* 1 when every origin's flag of round @p k is in @p mem (words 1..size-1) */
static int poll_all_in(const int64_t *mem, int k)
{
    for (int o = 1; o < size; ++o) {
        if (__atomic_load_n(&mem[o], __ATOMIC_ACQUIRE) != poll_flag(o, k)) {
            return 0;
        }
    }
    return 1;
}

/* one poll of rank 0's own memory inside the MPI call(s) of @p how */
static int poll_once(MPI_Win win, const int64_t *mem, const char *how, int k)
{
    int in;

    if (strcmp(how, "lockself") == 0) {
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        in = poll_all_in(mem, k);
        MT_OK(MPI_Win_unlock(0, win));
        return in;
    }
    if (strcmp(how, "lockall") == 0) {
        MT_OK(MPI_Win_lock_all(0, win));
        in = poll_all_in(mem, k);
        MT_OK(MPI_Win_unlock_all(win));
        return in;
    }
    MT_OK(MPI_Win_sync(win));
    return poll_all_in(mem, k);
}

/* rank 0: wait for round @p k's flags, polling only inside @p how's calls */
static void poll_target(MPI_Win win, const int64_t *mem, const char *how, int k)
{
    double end = mt_now() + 30.0;

    while (!poll_once(win, mem, how, k)) {
        if (mt_now() > end) {
            MT_FAIL("poll %s round %d: the origins' flags are not in rank 0's window after "
                    "30 s of polling inside MPI calls (first word %lld): their flush waits "
                    "for a progress the polling call does not make", how, k,
                    (long long)(size > 1 ? mem[1] : 0));
        }
    }
}

/* an origin: get rank 0's word 0, put (or accumulate) the flag, flush */
static void poll_origin(MPI_Win win, const char *how, int k)
{
    int64_t flag = poll_flag(rank, k), got = -1;

    MT_OK(MPI_Get(&got, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
    if (strcmp(how, "acc") == 0) {
        MT_OK(MPI_Accumulate(&flag, 1, MPI_INT64_T, 0, rank, 1, MPI_INT64_T, MPI_REPLACE,
                             win));
    } else {
        MT_OK(MPI_Put(&flag, 1, MPI_INT64_T, 0, rank, 1, MPI_INT64_T, win));
    }
    MT_OK(MPI_Win_flush(0, win));
    MT_EQ(got, 7777 + k);
}

static void poll(const char *how)
{
    int64_t *mem = calloc((size_t)size, sizeof(int64_t));
    int all = strcmp(how, "sync") == 0 || strcmp(how, "acc") == 0;
    MPI_Win win;

    MT_CHECK(mem != NULL && size > 1);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)(size * sizeof(int64_t)), sizeof(int64_t),
                         MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int k = 0; k < POLL_ROUNDS; ++k) {
        if (rank == 0) {
            __atomic_store_n(&mem[0], 7777 + k, __ATOMIC_RELEASE);
        }
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (all) {
            MT_OK(MPI_Win_lock_all(0, win));
        }
        if (rank == 0) {
            poll_target(win, mem, how, k);
        } else {
            if (!all) {
                MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            }
            poll_origin(win, how, k);
            if (!all) {
                MT_OK(MPI_Win_unlock(0, win));
            }
        }
        if (all) {
            MT_OK(MPI_Win_unlock_all(win));
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
    free(mem);
}

/* ---- excl ---- */

enum { EXCL_ROUNDS = 200 };

static void excl(void)
{
    int64_t *mem = calloc(1, sizeof(int64_t)), want = (int64_t)(size - 1) * EXCL_ROUNDS, v;
    MPI_Win win;

    MT_CHECK(mem != NULL && size > 1);
    MT_OK(MPI_Win_create(mem, sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        double end = mt_now() + 30.0;

        for (v = 0; v != want;) {
            MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            v = __atomic_load_n(mem, __ATOMIC_ACQUIRE);
            MT_OK(MPI_Win_unlock(0, win));
            if (v > want || mt_now() > end) {
                MT_FAIL("excl: the counter is %lld, %lld expected (after 30 s: an increment "
                        "lost, an unlock that released the lock word before its put "
                        "landed)", (long long)v, (long long)want);
            }
        }
    } else {
        for (int i = 0; i < EXCL_ROUNDS; ++i) {
            MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            MT_OK(MPI_Get(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
            MT_OK(MPI_Win_flush(0, win));
            ++v;
            MT_OK(MPI_Put(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
            MT_OK(MPI_Win_unlock(0, win));
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
    free(mem);
}

/* ---- cross ---- */

enum { CROSS_BIG = 8192, CROSS_ROUNDS = 30 };

static unsigned char cross_pat(int o, int k, int i)
{
    return (unsigned char)(o * 41 + k * 19 + i * 7 + 3);
}

/* wait for the previous accesses to @p t: a flush (lock_all) or a fence */
static void cross_sync(MPI_Win win, int t, int fence)
{
    if (fence) {
        MT_OK(MPI_Win_fence(0, win));
    } else {
        MT_OK(MPI_Win_flush(t, win));
    }
}

static void cross_round(MPI_Win win, int t, int k, int fence, unsigned char *big,
                        unsigned char *back)
{
    unsigned char small[8], got[8], old[8];
    MPI_Request rq;

    for (int i = 0; i < 8; ++i) {
        small[i] = cross_pat(rank, k, 1000 + i);
    }
    MT_OK(MPI_Put(small, 8, MPI_BYTE, t, 0, 8, MPI_BYTE, win));            /* message */
    cross_sync(win, t, fence);
    MT_OK(MPI_Get(back, CROSS_BIG, MPI_BYTE, t, 0, CROSS_BIG, MPI_BYTE, win));   /* CMA */
    cross_sync(win, t, fence);
    MT_CHECK(memcmp(back, small, 8) == 0);
    for (int i = 0; i < CROSS_BIG; ++i) {
        big[i] = cross_pat(rank, k, i);
    }
    MT_OK(MPI_Get(old, 8, MPI_BYTE, t, 0, 8, MPI_BYTE, win));              /* message */
    cross_sync(win, t, fence);
    MT_OK(MPI_Put(big, CROSS_BIG, MPI_BYTE, t, 0, CROSS_BIG, MPI_BYTE, win));    /* CMA */
    cross_sync(win, t, fence);
    MT_CHECK(memcmp(old, small, 8) == 0);
    MT_OK(MPI_Get(got, 8, MPI_BYTE, t, 4000, 8, MPI_BYTE, win));           /* message */
    cross_sync(win, t, fence);
    MT_CHECK(memcmp(got, big + 4000, 8) == 0);
    if (!fence) {
        memset(got, 0, sizeof(got));
        MT_OK(MPI_Rget(got, 8, MPI_BYTE, t, 8000, 8, MPI_BYTE, win, &rq));
        MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        MT_CHECK(memcmp(got, big + 8000, 8) == 0);
    }
}

static void cross(void)
{
    unsigned char *mem = calloc(1, CROSS_BIG), *big = malloc(CROSS_BIG),
                  *back = malloc(CROSS_BIG);
    int t = (rank + 1) % size;
    MPI_Win win;

    MT_CHECK(mem != NULL && big != NULL && back != NULL);
    MT_OK(MPI_Win_create(mem, CROSS_BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < CROSS_ROUNDS; ++k) {
        cross_round(win, t, k, 0, big, back);
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Win_fence(0, win));
    for (int k = 0; k < CROSS_ROUNDS; ++k) {
        cross_round(win, t, k, 1, big, back);
    }
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
    free(mem);
    free(big);
    free(back);
}

/* ---- dtype ---- */

enum { DT_STRIDE = 4, DT_SLOT = 2 * 4098 * 2 + 64 };

static unsigned char dt_pat(int o, int n, long i)
{
    return (unsigned char)(o * 29 + n * 7 + i * 3 + 5);
}

/* the target bytes of piece byte @p i (2-byte pieces at stride DT_STRIDE) */
static long dt_off(long i)
{
    return (i / 2) * DT_STRIDE + i % 2;
}

MT_OWN_DATA static void dt_check_target(const unsigned char *slot, int o, int n)
{
    for (long i = 0; i < n; ++i) {
        if (slot[dt_off(i)] != dt_pat(o, n, i)) {
            MT_FAIL("dtype: origin %d, %d bytes: target byte of piece byte %ld is %d, "
                    "expected %d", o, n, i, slot[dt_off(i)], dt_pat(o, n, i));
        }
    }
}

MT_OWN_DATA static void dt_check(const unsigned char *b, int o, int n, const char *what)
{
    for (long i = 0; i < n; ++i) {
        if (b[i] != dt_pat(o, n, i)) {
            MT_FAIL("dtype (%s): %d bytes: byte %ld is %d, expected %d", what, n, i, b[i],
                    dt_pat(o, n, i));
        }
    }
}

static void dtype(void)
{
    static const int totals[2] = { 4096, 4098 };
    size_t bytes = 2 * (size_t)DT_SLOT;
    unsigned char *mem = calloc(1, bytes), *src = malloc(4098), *dst = malloc(4098);
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Win win;

    MT_CHECK(mem != NULL && src != NULL && dst != NULL);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_lock_all(0, win));
    for (int s = 0; s < 2; ++s) {
        int n = totals[s];
        MPI_Datatype ty;
        MPI_Request rq;

        MT_OK(MPI_Type_vector(n / 2, 2, DT_STRIDE, MPI_BYTE, &ty));
        MT_OK(MPI_Type_commit(&ty));
        for (long i = 0; i < n; ++i) {
            src[i] = dt_pat(rank, n, i);
        }
        MT_OK(MPI_Put(src, n, MPI_BYTE, t, (MPI_Aint)s * DT_SLOT, 1, ty, win));
        MT_OK(MPI_Win_flush(t, win));
        memset(dst, 0, (size_t)n);
        MT_OK(MPI_Get(dst, n, MPI_BYTE, t, (MPI_Aint)s * DT_SLOT, 1, ty, win));
        MT_OK(MPI_Win_flush(t, win));
        dt_check(dst, rank, n, "get");
        memset(dst, 0, (size_t)n);
        MT_OK(MPI_Rget(dst, n, MPI_BYTE, t, (MPI_Aint)s * DT_SLOT, 1, ty, win, &rq));
        MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        dt_check(dst, rank, n, "Rget at its wait");
        MT_OK(MPI_Type_free(&ty));
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int s = 0; s < 2; ++s) {
        dt_check_target(mem + (size_t)s * DT_SLOT, from, totals[s]);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
    free(mem);
    free(src);
    free(dst);
}

/* ---- death_unlock ---- */

static void death_unlock(void)
{
    int64_t *mem = calloc(4, sizeof(int64_t)), v = 42;
    MPI_Win win;
    int rc, cls = -1;

    MT_CHECK(mem != NULL && size == 2);
    MT_OK(MPI_Win_create(mem, 4 * sizeof(int64_t), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    signal(SIGTERM, SIG_IGN);   /* loomrun stops the job after the death */
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        struct timespec ts = { 0, 300 * 1000 * 1000 };

        nanosleep(&ts, NULL);   /* no MPI call: rank 0's put waits unserved */
        raise(SIGKILL);
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
    MT_OK(MPI_Put(&v, 1, MPI_INT64_T, 1, 8, 1, MPI_INT64_T, win));
    rc = MPI_Win_unlock(1, win);
    MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS || cls != MPI_ERR_OTHER) {
        MT_FAIL("death_unlock: the unlock of the dead rank 1 returned %d (class %d), "
                "expected class MPI_ERR_OTHER (the peer's failure)", rc, cls);
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));   /* the lock word was released */
    (void)MPI_Win_unlock(1, win);
    printf("death_unlock: unlock failed with class %d\n", cls);
    fflush(stdout);
    _exit(0);
}

/* ---- mt ---- */

enum { MT_THREADS = 3, MT_ROUNDS = 20, MT_NSIZES = 4, MT_SLOT = 16384 + 64 };

static const int mt_sizes[MT_NSIZES] = { 8, 4096, 4097, 16384 };

static unsigned char mt_pat(int o, int th, int k, int s, long i)
{
    return (unsigned char)(o * 31 + th * 17 + k * 13 + s * 7 + i * 3 + 1);
}

/* slot of thread @p th's size @p s in a target's window */
static MPI_Aint mt_slot(int th, int s)
{
    return ((MPI_Aint)th * MT_NSIZES + s) * MT_SLOT;
}

MT_OWN_DATA static void mt_fill(unsigned char *b, int th, int k, int s)
{
    for (long i = 0; i < mt_sizes[s]; ++i) {
        b[i] = mt_pat(rank, th, k, s, i);
    }
}

MT_OWN_DATA static void mt_check(const unsigned char *b, int o, int th, int k, int s,
                                 const char *what)
{
    for (long i = 0; i < mt_sizes[s]; ++i) {
        if (b[i] != mt_pat(o, th, k, s, i)) {
            MT_FAIL("mt (%s): origin %d thread %d round %d, %d bytes: byte %ld is %d, "
                    "expected %d", what, o, th, k, mt_sizes[s], i, b[i],
                    mt_pat(o, th, k, s, i));
        }
    }
}

typedef struct mt_arg {
    MPI_Win win;
    int     th;
} mt_arg_t;

static void *mt_thread(void *p)
{
    const mt_arg_t *a = p;
    unsigned char *src = malloc(MT_SLOT), *dst = malloc(MT_SLOT);
    int t = (rank + 1) % size;

    MT_CHECK(src != NULL && dst != NULL);
    for (int k = 0; k < MT_ROUNDS; ++k) {
        for (int s = 0; s < MT_NSIZES; ++s) {
            MPI_Request rq;

            mt_fill(src, a->th, k, s);
            MT_OK(MPI_Put(src, mt_sizes[s], MPI_BYTE, t, mt_slot(a->th, s), mt_sizes[s],
                          MPI_BYTE, a->win));
            MT_OK(MPI_Win_flush(t, a->win));
            memset(dst, 0, (size_t)mt_sizes[s]);
            MT_OK(MPI_Rget(dst, mt_sizes[s], MPI_BYTE, t, mt_slot(a->th, s), mt_sizes[s],
                           MPI_BYTE, a->win, &rq));
            MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            mt_check(dst, rank, a->th, k, s, "Rget");
            memset(dst, 0, (size_t)mt_sizes[s]);
            MT_OK(MPI_Get(dst, mt_sizes[s], MPI_BYTE, t, mt_slot(a->th, s), mt_sizes[s],
                          MPI_BYTE, a->win));
            MT_OK(MPI_Win_flush(t, a->win));
            mt_check(dst, rank, a->th, k, s, "get");
        }
    }
    free(src);
    free(dst);
    return NULL;
}

static void mt(void)
{
    size_t bytes = (size_t)MT_THREADS * MT_NSIZES * MT_SLOT;
    unsigned char *mem = calloc(1, bytes);
    pthread_t th[MT_THREADS];
    mt_arg_t a[MT_THREADS];
    MPI_Win win;

    MT_CHECK(mem != NULL);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < MT_THREADS; ++i) {
        a[i] = (mt_arg_t){ win, i };
        MT_CHECK(pthread_create(&th[i], NULL, mt_thread, &a[i]) == 0);
    }
    for (int i = 0; i < MT_THREADS; ++i) {
        MT_CHECK(pthread_join(th[i], NULL) == 0);
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < MT_THREADS; ++i) {
        for (int s = 0; s < MT_NSIZES; ++s) {
            mt_check(mem + mt_slot(i, s), (rank + size - 1) % size, i, MT_ROUNDS - 1, s,
                     "at the target");
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
    free(mem);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int provided = -1;

    if (strcmp(mode, "mt") == 0) {
        MT_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    } else {
        MT_OK(MPI_Init(&argc, &argv));
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "mt") == 0) {
        MT_EQ(provided, MPI_THREAD_MULTIPLE);
        mt();
    } else if (strcmp(mode, "poll") == 0 && argc > 2) {
        poll(argv[2]);
    } else if (strcmp(mode, "excl") == 0) {
        excl();
    } else if (strcmp(mode, "cross") == 0) {
        cross();
    } else if (strcmp(mode, "dtype") == 0) {
        dtype();
    } else if (strcmp(mode, "death_unlock") == 0) {
        death_unlock();
    } else {
        MT_FAIL("usage: mpi_rma_rev17 poll sync|lockself|lockall|acc | excl | cross | dtype | death_unlock | mt");
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_rma_rev17");
    MPI_Finalize();
    return 0;
}
