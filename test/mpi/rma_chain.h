/*
 * rma_chain.h: the chain check the one-sided test programs share
 * (mpi_rma_s15.c, mpi_rma_s16.c). Under lock_all every rank issues random
 * fetch-and-ops, get-accumulates, CAS increments and accumulates to random
 * targets with random flushes and logs every fetched old value; rank 0
 * gathers the logs and checks each counter's chain (sorted, each old +
 * amount is the next old, from 0 to the counter's final value: a lost,
 * doubled or torn update breaks it), and every rank its totals, exactly.
 * Header-only: the including program owns rank, size, win and mem through
 * the statics below (one program, one window at a time).
 */
#ifndef LOOM_TEST_RMA_CHAIN_H
#define LOOM_TEST_RMA_CHAIN_H

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

static void win_open_n(const char *flavor, MPI_Aint bytes)
{

    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate(bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                               &win));
    } else {
        MT_CHECK((mem = calloc(1, (size_t)bytes)) != NULL);
        MT_OK(MPI_Win_create(mem, bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &win));
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    memset(mem, 0, (size_t)bytes);
    MT_OK(MPI_Win_unlock(rank, win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void win_open(const char *flavor)
{
    win_open_n(flavor, NWORDS * (MPI_Aint)sizeof(int64_t));
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

/*
 * One random operation of the first @p kinds: 6 (fetch-and-op, get-accumulate,
 * CAS increment, accumulates of int64 and of int32 pairs) or 7 (and a small
 * get); a fetched value is logged at log[*n] (valid after a flush).
 */
static void chain_op(uint64_t *s, entry_t *log, int *n, int64_t *acc, int64_t *tot,
                     int32_t *tot32, int kinds)
{
    int t = (int)(rnd(s) % (uint64_t)size), kind = (int)(rnd(s) % (uint64_t)kinds);
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
    case 6:   /* a small get: answered by a REPLY by id; >= 0 is all it may say */
        MT_OK(MPI_Get(&e->old, 1, MPI_INT64_T, t, c, 1, MPI_INT64_T, win));
        MT_OK(MPI_Win_flush(t, win));
        MT_CHECK(e->old >= 0);
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

static void test_chain(int k, const char *flavor, int kinds)
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
        chain_op(&s, log, &n, &acc[i], tot, tot32, kinds);
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

/* ---- mt: two threads per rank (MPI_THREAD_MULTIPLE), the chain check ---- */

typedef struct { int k, id, n, mixed; entry_t *log; } mt_arg_t;

/*
 * K fetch-and-ops from one thread, each flushed; @p mixed: every other one a
 * get-accumulate, a flush after one in three, a flush_all at the end.
 */
static void *mt_thread(void *p)
{
    mt_arg_t *a = p;
    uint64_t s = 0x853c49e6748fea9bULL ^ (uint64_t)(rank * NTHREADS + a->id + 1) * 0xda942042e4dd58b5ULL;

    for (int i = 0; i < a->k; ++i) {
        entry_t *e = &a->log[a->n++];

        e->t = (int64_t)(rnd(&s) % (uint64_t)size);
        e->c = (int64_t)(rnd(&s) % NCHAIN);
        e->v = (int64_t)(rnd(&s) % 100) + 1;
        if (a->mixed && i % 2 == 1) {
            MT_OK(MPI_Get_accumulate(&e->v, 1, MPI_INT64_T, &e->old, 1, MPI_INT64_T, (int)e->t,
                                     (MPI_Aint)e->c, 1, MPI_INT64_T, MPI_SUM, win));
        } else {
            MT_OK(MPI_Fetch_and_op(&e->v, &e->old, MPI_INT64_T, (int)e->t, (MPI_Aint)e->c,
                                   MPI_SUM, win));
        }
        if (!a->mixed || rnd(&s) % 3 == 0) {
            MT_OK(MPI_Win_flush((int)e->t, win));
        }
    }
    if (a->mixed) {
        MT_OK(MPI_Win_flush_all(win));
    }
    return NULL;
}

static void test_mt(int k, const char *flavor, int mixed)
{
    mt_arg_t a[NTHREADS];
    pthread_t th[NTHREADS];
    entry_t *log = calloc((size_t)k * NTHREADS + 1, sizeof(*log));
    int n = 0;

    MT_CHECK(log != NULL);
    win_open(flavor);
    MT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < NTHREADS; ++i) {
        a[i] = (mt_arg_t){ k, i, 0, mixed, log + (size_t)i * k };
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

/*
 * MPI_Init (MPI_Init_thread MULTIPLE for mode "mt") and the arguments
 * "MODE [K] [create|allocate]"; returns MODE.
 */
static const char *chain_init(int *argc, char ***argv, int *k, const char **flavor)
{
    const char *mode = *argc > 1 ? (*argv)[1] : "";
    int provided = 0;

    *k      = *argc > 2 ? atoi((*argv)[2]) : 200;
    *flavor = *argc > 3 ? (*argv)[3] : "create";
    if (strcmp(mode, "mt") == 0) {
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        MT_EQ(provided, MPI_THREAD_MULTIPLE);
    } else {
        MPI_Init(argc, argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(*k > 0 && size >= 1 && size <= 64);
    return mode;
}

#endif /* LOOM_TEST_RMA_CHAIN_H */
