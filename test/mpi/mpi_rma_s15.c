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

#include <pthread.h>
#include <stdint.h>
#include <string.h>

enum { NCHAIN = 3, NTOTAL = 2, NWORDS = NCHAIN + NTOTAL + 1, NTHREADS = 2 };
/* window layout (int64 words): chain counters, total counters, an int32 pair */

typedef struct { int64_t t, c, old, v; } entry_t;   /* one fetched value */

static int rank, size;
static MPI_Win win;
static int64_t *mem;

static uint64_t rnd(uint64_t *s)   /* xorshift64 */
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void win_open(const char *flavor)
{
    MPI_Aint bytes = NWORDS * (MPI_Aint)sizeof(int64_t);

    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate(bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                               &win));
    } else {
        MT_CHECK((mem = calloc(NWORDS, sizeof(int64_t))) != NULL);
        MT_OK(MPI_Win_create(mem, bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &win));
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    memset(mem, 0, (size_t)bytes);
    MT_OK(MPI_Win_unlock(rank, win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void win_close(const char *flavor)
{
    MT_OK(MPI_Win_free(&win));
    if (strcmp(flavor, "allocate") != 0) {
        free(mem);
    }
}

/* this rank's own window words, read under its own lock (after a barrier) */
static void read_own(int64_t *w)
{
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    memcpy(w, mem, NWORDS * sizeof(int64_t));
    MT_OK(MPI_Win_unlock(rank, win));
}

static int entry_cmp(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;

    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->c != y->c) return x->c < y->c ? -1 : 1;
    return x->old < y->old ? -1 : x->old > y->old;
}

/*
 * Gather every rank's log to rank 0 and check each chain counter: sorted
 * by old value, old_0 = 0, old_{i+1} = old_i + v_i, the last old + v the
 * counter's final value (finals: every rank's chain words, gathered).
 */
static void chain_check(const entry_t *log, int n)
{
    int *counts = calloc((size_t)size, sizeof(int)), *displs = calloc((size_t)size, sizeof(int));
    int64_t mine[NWORDS], *finals = calloc((size_t)size * NWORDS, sizeof(int64_t));
    entry_t *all = NULL;
    int total = 0, nb = n * 4;

    MT_CHECK(counts != NULL && displs != NULL && finals != NULL);
    read_own(mine);
    MT_OK(MPI_Gather(mine, NWORDS, MPI_INT64_T, finals, NWORDS, MPI_INT64_T, 0,
                     MPI_COMM_WORLD));
    MT_OK(MPI_Gather(&nb, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        for (int r = 0; r < size; ++r) {
            displs[r] = total;
            total += counts[r];
        }
        MT_CHECK((all = malloc((size_t)total / 4 * sizeof(*all) + 1)) != NULL);
    }
    MT_OK(MPI_Gatherv(log, nb, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0,
                      MPI_COMM_WORLD));
    if (rank == 0) {
        int m = total / 4, i = 0;

        qsort(all, (size_t)m, sizeof(*all), entry_cmp);
        for (int t = 0; t < size; ++t) {
            for (int c = 0; c < NCHAIN; ++c) {
                int64_t expect = 0;

                for (; i < m && all[i].t == t && all[i].c == c; ++i) {
                    if (all[i].old != expect) {
                        MT_FAIL("counter %d at rank %d: a fetched old value %lld where the "
                                "chain expects %lld (entry %d)", c, t, (long long)all[i].old,
                                (long long)expect, i);
                    }
                    expect += all[i].v;
                }
                MT_EQ(finals[t * NWORDS + c], expect);
            }
        }
        MT_EQ(i, m);
        free(all);
    }
    free(finals);
    free(counts);
    free(displs);
}

/* a CAS increment of chain counter @p c at @p t by @p v; returns the old value it replaced */
static int64_t cas_add(int t, int c, int64_t v)
{
    int64_t seen, want, got, none = 0;

    MT_OK(MPI_Fetch_and_op(&none, &seen, MPI_INT64_T, t, c, MPI_NO_OP, win));
    MT_OK(MPI_Win_flush(t, win));
    for (;;) {
        want = seen + v;
        MT_OK(MPI_Compare_and_swap(&want, &seen, &got, MPI_INT64_T, t, c, win));
        MT_OK(MPI_Win_flush(t, win));
        if (got == seen) {
            return got;
        }
        seen = got;
    }
}

/* one random operation; a fetched value is logged at log[*n] (valid after a flush) */
static void chain_op(uint64_t *s, entry_t *log, int *n, int64_t *acc, int64_t *tot,
                     int32_t *tot32)
{
    int t = (int)(rnd(s) % (uint64_t)size), kind = (int)(rnd(s) % 6);
    int64_t v = (int64_t)(rnd(s) % 1000) + 1;
    int c = (int)(rnd(s) % NCHAIN);
    entry_t *e = &log[*n];

    e->t = t;
    e->c = c;
    e->v = v;
    switch (kind) {
    case 0: case 1:
        MT_OK(MPI_Fetch_and_op(&e->v, &e->old, MPI_INT64_T, t, c, MPI_SUM, win));
        ++*n;
        break;
    case 2:
        MT_OK(MPI_Get_accumulate(&e->v, 1, MPI_INT64_T, &e->old, 1, MPI_INT64_T, t, c, 1,
                                 MPI_INT64_T, MPI_SUM, win));
        ++*n;
        break;
    case 3:
        e->old = cas_add(t, c, v);
        ++*n;
        break;
    case 4:
        c = (int)(rnd(s) % NTOTAL);
        tot[t * NTOTAL + c] += v;
        *acc = v;   /* the origin buffer stays until a flush: one per operation */
        MT_OK(MPI_Accumulate(acc, 1, MPI_INT64_T, t, NCHAIN + c, 1, MPI_INT64_T, MPI_SUM,
                             win));
        break;
    default: {
        static int32_t one[2] = { 3, -1 };   /* both int32 halves of the last word */

        tot32[t * 2]     += 3;
        tot32[t * 2 + 1] += -1;
        MT_OK(MPI_Accumulate(one, 2, MPI_INT32_T, t, NCHAIN + NTOTAL, 2, MPI_INT32_T,
                             MPI_SUM, win));
        break;
    }
    }
    switch (rnd(s) % 8) {
    case 0: MT_OK(MPI_Win_flush(t, win));   break;
    case 1: MT_OK(MPI_Win_flush_all(win));  break;
    default: break;
    }
}

/* the total counters at every rank equal what every rank added */
static void totals_check(const int64_t *tot, const int32_t *tot32)
{
    int64_t *sum = calloc((size_t)size * NTOTAL, sizeof(int64_t)), w[NWORDS];
    int32_t *sum32 = calloc((size_t)size * 2, sizeof(int32_t)), half[2];

    MT_CHECK(sum != NULL && sum32 != NULL);
    MT_OK(MPI_Allreduce(tot, sum, size * NTOTAL, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(tot32, sum32, size * 2, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD));
    read_own(w);
    for (int c = 0; c < NTOTAL; ++c) {
        MT_EQ(w[NCHAIN + c], sum[rank * NTOTAL + c]);
    }
    memcpy(half, &w[NCHAIN + NTOTAL], sizeof(half));
    MT_EQ(half[0], sum32[rank * 2]);
    MT_EQ(half[1], sum32[rank * 2 + 1]);
    free(sum);
    free(sum32);
}

static void test_chain(int k, const char *flavor)
{
    entry_t *log = calloc((size_t)k + 1, sizeof(*log));
    int64_t *acc = calloc((size_t)k, sizeof(int64_t));
    int64_t *tot = calloc((size_t)size * NTOTAL, sizeof(int64_t));
    int32_t *tot32 = calloc((size_t)size * 2, sizeof(int32_t));
    uint64_t s = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(rank + 1) * 0x100000001b3ULL;
    int n = 0;

    MT_CHECK(log != NULL && acc != NULL && tot != NULL && tot32 != NULL);
    win_open(flavor);
    MT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < k; ++i) {
        chain_op(&s, log, &n, &acc[i], tot, tot32);
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    chain_check(log, n);
    totals_check(tot, tot32);
    win_close(flavor);
    free(log);
    free(acc);
    free(tot);
    free(tot32);
}

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

typedef struct { int k, id, n; entry_t *log; } mt_arg_t;

static void *mt_thread(void *p)
{
    mt_arg_t *a = p;
    uint64_t s = 0x853c49e6748fea9bULL ^ (uint64_t)(rank * NTHREADS + a->id + 1) * 0xda942042e4dd58b5ULL;

    for (int i = 0; i < a->k; ++i) {
        entry_t *e = &a->log[a->n++];

        e->t = (int64_t)(rnd(&s) % (uint64_t)size);
        e->c = (int64_t)(rnd(&s) % NCHAIN);
        e->v = (int64_t)(rnd(&s) % 100) + 1;
        MT_OK(MPI_Fetch_and_op(&e->v, &e->old, MPI_INT64_T, (int)e->t, (MPI_Aint)e->c,
                               MPI_SUM, win));
        MT_OK(MPI_Win_flush((int)e->t, win));
    }
    return NULL;
}

static void test_mt(int k, const char *flavor)
{
    mt_arg_t a[NTHREADS];
    pthread_t th[NTHREADS];
    entry_t *log = calloc((size_t)k * NTHREADS + 1, sizeof(*log));
    int n = 0;

    MT_CHECK(log != NULL);
    win_open(flavor);
    MT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < NTHREADS; ++i) {
        a[i] = (mt_arg_t){ k, i, 0, log + (size_t)i * k };
        MT_CHECK(pthread_create(&th[i], NULL, mt_thread, &a[i]) == 0);
    }
    for (int i = 0; i < NTHREADS; ++i) {
        MT_CHECK(pthread_join(th[i], NULL) == 0);
        n += a[i].n;
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_EQ(n, k * NTHREADS);
    chain_check(log, n);
    win_close(flavor);
    free(log);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int k = argc > 2 ? atoi(argv[2]) : 200, provided = 0;
    const char *flavor = argc > 3 ? argv[3] : "create";

    if (strcmp(mode, "mt") == 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        MT_EQ(provided, MPI_THREAD_MULTIPLE);
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(k > 0 && size >= 1 && size <= 64);
    if (strcmp(mode, "chain") == 0) {
        test_chain(k, flavor);
    } else if (strcmp(mode, "lockc") == 0) {
        test_lockc(k, flavor);
    } else if (strcmp(mode, "small") == 0) {
        test_small(flavor);
    } else if (strcmp(mode, "mt") == 0) {
        test_mt(k, flavor);
    } else {
        MT_FAIL("unknown mode '%s'", mode);
    }
    MT_PASS("mpi_rma_s15");
    MPI_Finalize();
    return 0;
}
