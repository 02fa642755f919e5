/*
 * mpi_rma_rev13.c: the review of session 13's one-sided changes (large
 * puts and gets straight between user memory and the window,
 * rma/rma_zcopy.c; small get-like requests in the batch).
 *
 *   order    one lock epoch per origin at every target, each to its own
 *            slot: accumulates and fetch-and-ops/CAS/get-accumulates to one
 *            counter in program order (every fetched value exact), a small
 *            put then a small get of the same bytes (the get sees the put),
 *            a large put then a small get, an accumulate and a
 *            get-accumulate of bytes inside it (held behind its data);
 *   twowin   two windows (one on a duplicate of the world) and the user's
 *            own large messages on the world, interleaved: every large
 *            put lands in its own window, at its own place, and the user's
 *            messages are untouched (tags and contexts separate);
 *   flushes  large puts/gets then flush_local, flush, flush_local_all,
 *            flush_all: the origin buffer reused after each, the target
 *            checks every byte after the epoch; a large get then a put of
 *            the same bytes before the flush: no crash, no hang;
 *   lockall  lock_all, large puts to and gets from every rank (itself
 *            too), unlock_all: every byte, exclusive lockers in between;
 *   sync     fence and PSCW epochs of large puts and gets, a free right
 *            after an epoch of large gets from every rank;
 *   errget   (dynamic window) get, fetch-and-op, CAS, get-accumulate, Rget
 *            and a large get outside the target's attached memory:
 *            MPI_ERR_RMA_RANGE at the flush, the result buffer untouched
 *            (a large get: but the 8 bytes of its error reply);
 *   mt       MPI_THREAD_MULTIPLE: two threads of every rank put and get
 *            large blocks under one lock_all, each flushing its own;
 *
 * usage: mpi_rma_rev13 order|twowin|flushes|lockall|sync|errget|mt [K]
 */
#include "mpi_test_util.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define BIG  (96 * 1024 + 8)   /* a large transfer (>= LOOM_RMA_ZCOPY) */

static int rank, size;

static unsigned char pat(int o, int t, int k, size_t i)
{
    return (unsigned char)(o * 37 + t * 11 + k * 5 + i * 7 + 3);
}

static void fill(unsigned char *b, size_t n, int o, int t, int k)
{
    for (size_t i = 0; i < n; ++i) {
        b[i] = pat(o, t, k, i);
    }
}

static void check(const unsigned char *b, size_t n, int o, int t, int k, const char *what)
{
    for (size_t i = 0; i < n; ++i) {
        if (b[i] != pat(o, t, k, i)) {
            MT_FAIL("%s: origin %d target %d round %d byte %zu: %u != %u", what, o, t, k, i,
                    b[i], pat(o, t, k, i));
        }
    }
}

/* ---- order ---- */

/* per origin slot at each target: a counter, then BIG bytes */
#define OSLOT (BIG + 64)

static void order_one(MPI_Win win, int t, int k, unsigned char *buf, unsigned char *got)
{
    MPI_Aint base = (MPI_Aint)rank * OSLOT;
    long one = 1, old = -1, expect = 0, cmp, neu, two = 2;
    int lk = (k % 2) ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;

    MT_OK(MPI_Win_lock(lk, t, 0, win));
    /* the counter: acc, fop, acc, cas, gacc in program order */
    MT_OK(MPI_Accumulate(&two, 1, MPI_LONG, t, base, 1, MPI_LONG, MPI_SUM, win));
    expect += 2;
    MT_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, base, MPI_SUM, win));
    MT_OK(MPI_Accumulate(&two, 1, MPI_LONG, t, base, 1, MPI_LONG, MPI_SUM, win));
    MT_OK(MPI_Win_flush(t, win));
    MT_EQ(old, expect);
    expect += 1 + 2;
    cmp = expect;
    neu = 100;
    MT_OK(MPI_Compare_and_swap(&neu, &cmp, &old, MPI_LONG, t, base, win));
    MT_OK(MPI_Get_accumulate(&one, 1, MPI_LONG, &cmp, 1, MPI_LONG, t, base, 1, MPI_LONG,
                             MPI_SUM, win));
    MT_OK(MPI_Win_flush(t, win));
    MT_EQ(old, expect);
    MT_EQ(cmp, 100);
    /* a small put then a small get of the same bytes: batched, in order */
    fill(buf, 256, rank, t, k + 1000);
    memset(got, 0, 256);
    MT_OK(MPI_Put(buf, 256, MPI_BYTE, t, base + 8, 256, MPI_BYTE, win));
    MT_OK(MPI_Get(got, 256, MPI_BYTE, t, base + 8, 256, MPI_BYTE, win));
    MT_OK(MPI_Win_flush(t, win));
    check(got, 256, rank, t, k + 1000, "small get after small put");
    /* a large put, then small requests inside its bytes: held behind its data */
    fill(buf, BIG, rank, t, k);
    MT_OK(MPI_Put(buf, BIG, MPI_BYTE, t, base + 8, BIG, MPI_BYTE, win));
    memset(got, 0, 512);
    MT_OK(MPI_Get(got, 512, MPI_BYTE, t, base + 8 + BIG - 512, 512, MPI_BYTE, win));
    MT_OK(MPI_Accumulate(&one, 1, MPI_LONG, t, base + 8 + 4096, 1, MPI_LONG, MPI_SUM, win));
    MT_OK(MPI_Get_accumulate(&one, 1, MPI_LONG, &old, 1, MPI_LONG, t, base + 8 + 8192, 1,
                             MPI_LONG, MPI_SUM, win));
    MT_OK(MPI_Win_flush(t, win));
    if (memcmp(got, buf + BIG - 512, 512) != 0) {
        MT_FAIL("small get after large put to rank %d round %d: not the put's tail", t, k);
    }
    {
        long w;

        memcpy(&w, buf + 8192, sizeof(w));
        MT_EQ(old, w);   /* the get-accumulate saw the put's data */
        memset(got, 0, 2 * sizeof(long));
        MT_OK(MPI_Get(got, (int)sizeof(long), MPI_BYTE, t, base + 8 + 4096,
                      (int)sizeof(long), MPI_BYTE, win));
        MT_OK(MPI_Get(got + sizeof(long), (int)sizeof(long), MPI_BYTE, t, base + 8 + 8192,
                      (int)sizeof(long), MPI_BYTE, win));
        MT_OK(MPI_Win_flush(t, win));
        memcpy(&w, buf + 4096, sizeof(w));
        memcpy(&old, got, sizeof(old));
        MT_EQ(old, w + 1);
        memcpy(&w, buf + 8192, sizeof(w));
        memcpy(&old, got + sizeof(long), sizeof(old));
        MT_EQ(old, w + 1);
    }
    /* reset the counter for the next round */
    neu = 0;
    MT_OK(MPI_Put(&neu, 1, MPI_LONG, t, base, 1, MPI_LONG, win));
    MT_OK(MPI_Win_unlock(t, win));
}

static void run_order(int k)
{
    size_t bytes = (size_t)size * OSLOT;
    unsigned char *mem = calloc(1, bytes), *buf = malloc(BIG), *got = malloc(BIG);
    MPI_Win win;

    MT_CHECK(mem && buf && got);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int r = 0; r < k; ++r) {
        for (int i = 1; i <= size; ++i) {
            order_one(win, (rank + i) % size, r, buf, got);
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
    free(mem);
    free(buf);
    free(got);
}

/* ---- twowin ---- */

static void run_twowin(int k)
{
    size_t slot = 2 * BIG + 256, bytes = (size_t)size * slot;
    unsigned char *m1 = calloc(1, bytes), *m2 = calloc(1, bytes);
    unsigned char *b1 = malloc(BIG), *b2 = malloc(BIG + 100), *u = malloc(BIG + 50);
    unsigned char *ur = malloc(BIG + 50);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Comm dup;
    MPI_Win w1, w2;

    MT_CHECK(m1 && m2 && b1 && b2 && u && ur);
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_OK(MPI_Win_create(m1, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w1));
    MT_OK(MPI_Win_create(m2, (MPI_Aint)bytes, 1, MPI_INFO_NULL, dup, &w2));
    for (int r = 0; r < k; ++r) {
        MPI_Request rq[2];

        MT_OK(MPI_Win_lock_all(0, w1));
        MT_OK(MPI_Win_lock_all(0, w2));
        fill(u, BIG + 50, rank, to, r + 77);
        MT_OK(MPI_Irecv(ur, BIG + 50, MPI_BYTE, from, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]));
        for (int i = 0; i < size; ++i) {
            MPI_Aint d = (MPI_Aint)(rank * slot);

            fill(b1, BIG, rank, i, r);
            fill(b2, BIG + 100, rank, i, r + 1);
            MT_OK(MPI_Put(b1, BIG, MPI_BYTE, i, d, BIG, MPI_BYTE, w1));
            MT_OK(MPI_Put(b2, BIG + 100, MPI_BYTE, i, d + 3, BIG + 100, MPI_BYTE, w2));
            MT_OK(MPI_Put(b2, BIG, MPI_BYTE, i, d + BIG + 200, BIG, MPI_BYTE, w1));
            if (i == 0) {
                MT_OK(MPI_Isend(u, BIG + 50, MPI_BYTE, to, 3, MPI_COMM_WORLD, &rq[1]));
            }
            MT_OK(MPI_Win_flush_local(i, w1));
            MT_OK(MPI_Win_flush_local(i, w2));
        }
        MT_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        check(ur, BIG + 50, from, rank, r + 77, "user message");
        MT_OK(MPI_Win_unlock_all(w2));
        MT_OK(MPI_Win_unlock_all(w1));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int o = 0; o < size; ++o) {
            check(m1 + o * slot, BIG, o, rank, r, "window 1");
            check(m1 + o * slot + BIG + 200, BIG, o, rank, r + 1, "window 1 second put");
            check(m2 + o * slot + 3, BIG + 100, o, rank, r + 1, "window 2");
        }
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MT_OK(MPI_Win_free(&w2));
    MT_OK(MPI_Win_free(&w1));
    MT_OK(MPI_Comm_free(&dup));
    free(m1);
    free(m2);
    free(b1);
    free(b2);
    free(u);
    free(ur);
}

/* ---- flushes ---- */

static void run_flushes(int k)
{
    size_t slot = 4 * BIG, bytes = (size_t)size * slot;
    unsigned char *mem = calloc(1, bytes), *buf = malloc(BIG), *got = malloc(BIG);
    MPI_Win win;

    MT_CHECK(mem && buf && got);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int r = 0; r < k; ++r) {
        MT_OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < size; ++i) {
            MPI_Aint d = (MPI_Aint)(rank * slot);

            fill(buf, BIG, rank, i, r);
            MT_OK(MPI_Put(buf, BIG, MPI_BYTE, i, d, BIG, MPI_BYTE, win));
            MT_OK(MPI_Win_flush_local(i, win));
            fill(buf, BIG, rank, i, r + 1);   /* reused */
            MT_OK(MPI_Put(buf, BIG, MPI_BYTE, i, d + BIG, BIG, MPI_BYTE, win));
            MT_OK(MPI_Win_flush_local_all(win));
            fill(buf, BIG, rank, i, r + 2);
            MT_OK(MPI_Put(buf, BIG, MPI_BYTE, i, d + 2 * BIG, BIG, MPI_BYTE, win));
            MT_OK(MPI_Win_flush(i, win));
            memset(got, 0, BIG);
            MT_OK(MPI_Get(got, BIG, MPI_BYTE, i, d + BIG, BIG, MPI_BYTE, win));
            MT_OK(MPI_Win_flush_local(i, win));
            check(got, BIG, rank, i, r + 1, "get after flush_local");
            /* conflicting: a large get then a put of the same bytes, one epoch */
            MT_OK(MPI_Get(got, BIG, MPI_BYTE, i, d + 3 * BIG, BIG, MPI_BYTE, win));
            fill(buf, BIG, rank, i, r + 3);
            MT_OK(MPI_Put(buf, BIG, MPI_BYTE, i, d + 3 * BIG, BIG, MPI_BYTE, win));
            MT_OK(MPI_Win_flush_all(win));
        }
        MT_OK(MPI_Win_unlock_all(win));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int o = 0; o < size; ++o) {
            check(mem + o * slot, BIG, o, rank, r, "flush_local");
            check(mem + o * slot + BIG, BIG, o, rank, r + 1, "flush_local_all");
            check(mem + o * slot + 2 * BIG, BIG, o, rank, r + 2, "flush");
            check(mem + o * slot + 3 * BIG, BIG, o, rank, r + 3, "put after get");
        }
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MT_OK(MPI_Win_free(&win));
    free(mem);
    free(buf);
    free(got);
}

/* ---- lockall ---- */

static void run_lockall(int k)
{
    size_t slot = BIG, bytes = (size_t)size * slot + BIG;   /* + an exclusive block */
    unsigned char *mem = calloc(1, bytes), *buf = malloc(BIG), *got = malloc(BIG);
    unsigned char *outs = malloc((size_t)size * BIG);
    MPI_Win win;

    MT_CHECK(mem && buf && got && outs);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int r = 0; r < k; ++r) {
        MT_OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < size; ++i) {   /* each from its own buffer until the flush */
            fill(outs + (size_t)i * BIG, BIG, rank, i, r);
            MT_OK(MPI_Put(outs + (size_t)i * BIG, BIG, MPI_BYTE, i, (MPI_Aint)(rank * slot), BIG,
                          MPI_BYTE, win));
        }
        MT_OK(MPI_Win_flush_all(win));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));   /* every origin's puts are in */
        for (int i = 0; i < size; ++i) {
            int o = (rank + i) % size;

            memset(got, 0, BIG);
            MT_OK(MPI_Get(got, BIG, MPI_BYTE, i, (MPI_Aint)(o * slot), BIG, MPI_BYTE, win));
            MT_OK(MPI_Win_flush(i, win));
            check(got, BIG, o, i, r, "lock_all get");
        }
        MT_OK(MPI_Win_unlock_all(win));
        /* an exclusive block at rank 0: whole at every lock */
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MT_OK(MPI_Get(got, BIG, MPI_BYTE, 0, (MPI_Aint)(size * slot), BIG, MPI_BYTE, win));
        MT_OK(MPI_Win_flush(0, win));
        for (size_t j = 1; j < BIG; ++j) {
            if (got[j] != got[0]) {
                MT_FAIL("torn exclusive block at byte %zu: %u != %u", j, got[j], got[0]);
            }
        }
        memset(buf, got[0] + 1, BIG);
        MT_OK(MPI_Put(buf, BIG, MPI_BYTE, 0, (MPI_Aint)(size * slot), BIG, MPI_BYTE, win));
        MT_OK(MPI_Win_unlock(0, win));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (rank == 0) {
        MT_EQ(mem[size * slot], (unsigned char)(k * size));
    }
    MT_OK(MPI_Win_free(&win));
    free(outs);
    free(mem);
    free(buf);
    free(got);
}

/* ---- sync ---- */

/* fence and PSCW epochs of large puts and gets, and a free right behind one */
static void run_sync(int k)
{
    size_t slot = BIG, bytes = 2 * slot;
    unsigned char *mem = calloc(1, bytes), *buf = malloc(BIG), *got = malloc(BIG);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Group world, peers;
    int pr[2] = { to, from };
    MPI_Win win;

    MT_CHECK(mem && buf && got);
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MT_OK(MPI_Group_incl(world, to == from ? 1 : 2, pr, &peers));
    for (int r = 0; r < k; ++r) {
        MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
        fill(buf, BIG, rank, to, r);
        MT_OK(MPI_Put(buf, BIG, MPI_BYTE, to, 0, BIG, MPI_BYTE, win));
        MT_OK(MPI_Win_fence(0, win));
        check(mem, BIG, from, rank, r, "fence put");
        fill(mem + slot, BIG, rank, rank, r + 1);
        MT_OK(MPI_Win_fence(0, win));
        MT_OK(MPI_Get(got, BIG, MPI_BYTE, from, (MPI_Aint)slot, BIG, MPI_BYTE, win));
        MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        check(got, BIG, from, from, r + 1, "fence get");
        /* PSCW: put to the next, get from the previous */
        MT_OK(MPI_Win_post(peers, 0, win));
        MT_OK(MPI_Win_start(peers, 0, win));
        fill(buf, BIG, rank, to, r + 2);
        MT_OK(MPI_Put(buf, BIG, MPI_BYTE, to, 0, BIG, MPI_BYTE, win));
        MT_OK(MPI_Get(got, BIG, MPI_BYTE, from, (MPI_Aint)slot, BIG, MPI_BYTE, win));
        MT_OK(MPI_Win_complete(win));
        MT_OK(MPI_Win_wait(win));
        check(got, BIG, from, from, r + 1, "pscw get");
        check(mem, BIG, from, rank, r + 2, "pscw put");
        /* the last epoch's large gets, then the free */
        MT_OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < size; ++i) {
            MT_OK(MPI_Get(got, BIG, MPI_BYTE, i, (MPI_Aint)slot, BIG, MPI_BYTE, win));
            MT_OK(MPI_Win_flush(i, win));
            check(got, BIG, i, i, r + 1, "get before free");
        }
        MT_OK(MPI_Win_unlock_all(win));
        MT_OK(MPI_Win_free(&win));
    }
    MT_OK(MPI_Group_free(&peers));
    MT_OK(MPI_Group_free(&world));
    free(mem);
    free(buf);
    free(got);
}

/* ---- errget ---- */

static void untouched(const unsigned char *b, size_t from, size_t n, const char *what)
{
    for (size_t i = from; i < n; ++i) {
        if (b[i] != 0xa5) {
            MT_FAIL("%s: result byte %zu written (%u) by a failed operation", what, i, b[i]);
        }
    }
}

/*
 * Dynamic windows: get-like operations outside the target's attached
 * memory fail with MPI_ERR_RMA_RANGE at the flush and leave the result
 * buffer as it was (a large get: all but the 8 bytes its error reply
 * carries, docs/rma.md).
 */
static void run_errget(int k)
{
    size_t n = 4096;
    unsigned char *mem = calloc(1, n), *res = malloc(BIG);
    MPI_Aint *addr = malloc((size_t)size * sizeof(*addr)), mine;
    long one = 1, cmp = 0;
    MPI_Win win;

    MT_CHECK(mem && res && addr);
    MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Win_attach(win, mem, (MPI_Aint)n));
    MT_OK(MPI_Get_address(mem, &mine));
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    for (int r = 0; r < k; ++r) {
        int t = (rank + 1 + r) % size;
        MPI_Aint out = addr[t] + (MPI_Aint)n + 64;   /* past the attached memory */
        MPI_Request rq;

        MT_OK(MPI_Win_lock_all(0, win));
        memset(res, 0xa5, BIG);
        MT_OK(MPI_Get(res, 256, MPI_BYTE, t, out, 256, MPI_BYTE, win));
        MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
        untouched(res, 0, BIG, "get");
        MT_OK(MPI_Fetch_and_op(&one, res, MPI_LONG, t, out, MPI_SUM, win));
        MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
        untouched(res, 0, BIG, "fetch_and_op");
        MT_OK(MPI_Compare_and_swap(&one, &cmp, res, MPI_LONG, t, out, win));
        MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
        untouched(res, 0, BIG, "compare_and_swap");
        MT_OK(MPI_Get_accumulate(&one, 1, MPI_LONG, res, 1, MPI_LONG, t, out, 1, MPI_LONG,
                                 MPI_SUM, win));
        MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
        untouched(res, 0, BIG, "get_accumulate");
        MT_OK(MPI_Rget(res, 512, MPI_BYTE, t, out, 512, MPI_BYTE, win, &rq));
        MPI_Wait(&rq, MPI_STATUS_IGNORE);   /* its error reaches the flush */
        MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
        untouched(res, 0, BIG, "rget");
        MT_OK(MPI_Get(res, BIG, MPI_BYTE, t, out, BIG, MPI_BYTE, win));
        MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
        untouched(res, t == rank ? 0 : 8, BIG, "large get");
        MT_OK(MPI_Win_unlock_all(win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_detach(win, mem));
    MT_OK(MPI_Win_free(&win));
    free(addr);
    free(mem);
    free(res);
}

/* ---- mt ---- */

typedef struct mt_arg {
    MPI_Win        win;
    int            th, k;
    size_t         slot;
} mt_arg_t;

static void *mt_worker(void *p)
{
    mt_arg_t *a = p;
    unsigned char *buf = malloc(BIG), *got = malloc(BIG);

    MT_CHECK(buf && got);
    for (int r = 0; r < a->k; ++r) {
        for (int i = 0; i < size; ++i) {
            MPI_Aint d = (MPI_Aint)(((size_t)rank * 2 + (size_t)a->th) * a->slot);

            fill(buf, BIG, rank * 2 + a->th, i, r);
            MT_OK(MPI_Put(buf, BIG, MPI_BYTE, i, d, BIG, MPI_BYTE, a->win));
            MT_OK(MPI_Win_flush(i, a->win));
            memset(got, 0, BIG);
            MT_OK(MPI_Get(got, BIG, MPI_BYTE, i, d, BIG, MPI_BYTE, a->win));
            MT_OK(MPI_Win_flush(i, a->win));
            check(got, BIG, rank * 2 + a->th, i, r, "mt get");
        }
    }
    free(buf);
    free(got);
    return NULL;
}

static void run_mt(int k)
{
    size_t slot = BIG, bytes = (size_t)size * 2 * slot;
    unsigned char *mem = calloc(1, bytes);
    mt_arg_t a[2];
    pthread_t th;
    MPI_Win win;

    MT_CHECK(mem);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < 2; ++i) {
        a[i].win = win;
        a[i].th = i;
        a[i].k = k;
        a[i].slot = slot;
    }
    MT_EQ(pthread_create(&th, NULL, mt_worker, &a[1]), 0);
    mt_worker(&a[0]);
    MT_EQ(pthread_join(th, NULL), 0);
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
    free(mem);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "order";
    int k = argc > 2 ? atoi(argv[2]) : 5, provided = 0;

    if (strcmp(mode, "mt") == 0) {
        MT_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
        MT_EQ(provided, MPI_THREAD_MULTIPLE);
    } else {
        MT_OK(MPI_Init(&argc, &argv));
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "order") == 0) {
        run_order(k);
    } else if (strcmp(mode, "twowin") == 0) {
        run_twowin(k);
    } else if (strcmp(mode, "flushes") == 0) {
        run_flushes(k);
    } else if (strcmp(mode, "lockall") == 0) {
        run_lockall(k);
    } else if (strcmp(mode, "mt") == 0) {
        run_mt(k);
    } else if (strcmp(mode, "sync") == 0) {
        run_sync(k);
    } else if (strcmp(mode, "errget") == 0) {
        run_errget(k);
    } else {
        MT_FAIL("unknown mode %s", mode);
    }
    MPI_Finalize();
    return 0;
}
