/*
 * mpi_rma_s14.c: session 14 of the one-sided layer.
 *
 *   zcfault  (run with LOOM_RMA_ZCOPY_FAULT=record:E or recv:E, E >= 2)
 *            every E-th large put of each origin fails at its target as
 *            if out of memory (rma/rma_zcopy.c; a rank's own memory is
 *            copied, never faulted). Under lock_all each rank
 *            puts large blocks (64 KiB, 200 003 B) into its slot at every
 *            rank, one per flush, then two large puts and a small one per
 *            flush: a flush covering a failed put must return
 *            MPI_ERR_NO_MEM, every other one MPI_SUCCESS, and a large get
 *            of the slot after each flush must hold exactly the puts that
 *            succeeded. Without the target consuming a failed put's data,
 *            the next large put received those bytes (a wrong block) and
 *            Win_free could wait for ever (the driver's timeout).
 *            E is argv[3]; E = 0: no fault expected (the same program
 *            checks the plain path).
 *
 *   ops      the operations session 14 made cheaper (rma_cma.c's one-call
 *            put/get, rma_apply.c's one-element path, rma_send.c's batch
 *            buffer kept across batches), on Win_create windows (CMA on
 *            one host, active messages over tcp or LOOM_RMA_CMA=off):
 *            under lock_all + flush every rank puts 1 B .. 64 KiB + 3 at
 *            odd offsets into its slot at every rank and gets them back
 *            (exact bytes); K fetch-and-op SUMs on int32/uint32/int64/
 *            uint64 counters at rank 0 and the last rank (each fetched
 *            value above the last this rank saw, the totals exact, the
 *            64-bit ones past 2^32 and the 32-bit ones wrapping), K
 *            CAS increments (read, CAS, retry: total exact), one-element
 *            accumulates (exact); then per iteration lock exclusive, fop,
 *            put, unlock and lock shared, get, unlock (the lock variants).
 *
 * usage: mpi_rma_s14 zcfault [create|allocate|dynamic] [E]   (any ranks)
 *        mpi_rma_s14 ops [K]
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

#define SLOT  (256 * 1024)   /* per origin at each target */
#define BIG   200003
#define SMALL 100            /* a batched put at the end of the slot */

static int rank, size;
static MPI_Aint *addrs;      /* every rank's window base (dynamic), else 0 */

static unsigned char pattern(int t, int i, size_t k)
{
    return (unsigned char)(rank * 29 + t * 11 + i * 7 + k * 13 + 1);
}

static MPI_Aint slot(int t, size_t off)
{
    return addrs[t] + (MPI_Aint)((size_t)rank * SLOT + off);
}

/* the window and its memory; dynamic: attached, addrs filled */
static void win_open(const char *flavor, unsigned char **mem_p, MPI_Win *win_p)
{
    size_t bytes = (size_t)size * SLOT;
    MPI_Aint mine = 0;

    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, mem_p,
                               win_p));
    } else {
        MT_CHECK((*mem_p = calloc(1, bytes)) != NULL);
        if (strcmp(flavor, "dynamic") == 0) {
            MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win_p));
            MT_OK(MPI_Win_attach(*win_p, *mem_p, (MPI_Aint)bytes));
            MT_OK(MPI_Get_address(*mem_p, &mine));
        } else {
            MT_OK(MPI_Win_create(*mem_p, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                 win_p));
        }
    }
    memset(*mem_p, 0, bytes);
    MT_OK(MPI_Win_set_errhandler(*win_p, MPI_ERRORS_RETURN));
    MT_CHECK((addrs = calloc((size_t)size, sizeof(*addrs))) != NULL);
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void win_close(const char *flavor, unsigned char *mem, MPI_Win *win)
{
    if (strcmp(flavor, "dynamic") == 0) {
        MT_OK(MPI_Win_detach(*win, mem));
    }
    MT_OK(MPI_Win_free(win));
    if (strcmp(flavor, "allocate") != 0) {
        free(mem);
    }
    free(addrs);
}

typedef struct zc_state {
    MPI_Win        win;
    unsigned char *model;   /* [size][SLOT]: what our slot at each target holds */
    unsigned char *src;     /* [2][BIG] */
    unsigned char *dst;     /* [SLOT] */
    int           *nput;    /* [size] large puts sent to each target */
    int            every;
} zc_state_t;

/*
 * A large put of @p n bytes (pattern @p i, from @p src) to @p t at its
 * slot; the model takes it unless it is a faulted one. 1 if it is.
 */
static int zc_put(zc_state_t *s, int t, int i, size_t n, unsigned char *src)
{
    /* our own memory is copied, not sent: never faulted */
    int fails = s->every > 0 && t != rank && ++s->nput[t] % s->every == 0;

    for (size_t k = 0; k < n; ++k) {
        src[k] = pattern(t, i, k);
    }
    MT_OK(MPI_Put(src, (int)n, MPI_BYTE, t, slot(t, 0), (int)n, MPI_BYTE, s->win));
    if (!fails) {
        memcpy(s->model + (size_t)t * SLOT, src, n);
    }
    return fails;
}

/* a batched put of SMALL bytes at the end of the slot (never faulted) */
static void zc_put_small(zc_state_t *s, int t, int i, unsigned char *src)
{
    for (size_t k = 0; k < SMALL; ++k) {
        src[k] = pattern(t, i + 1000, k);
    }
    MT_OK(MPI_Put(src, SMALL, MPI_BYTE, t, slot(t, SLOT - SMALL), SMALL, MPI_BYTE, s->win));
    memcpy(s->model + (size_t)t * SLOT + SLOT - SMALL, src, SMALL);
}

/* the flush of @p t: MPI_ERR_NO_MEM if @p failed, else success; then the slot checked */
static void zc_check(zc_state_t *s, int t, int failed, int round)
{
    unsigned char *m = s->model + (size_t)t * SLOT;

    if (failed) {
        MT_ERR(MPI_Win_flush(t, s->win), MPI_ERR_NO_MEM);
    } else {
        MT_OK(MPI_Win_flush(t, s->win));
    }
    memset(s->dst, 0xee, SLOT);
    MT_OK(MPI_Get(s->dst, SLOT, MPI_BYTE, t, slot(t, 0), SLOT, MPI_BYTE, s->win));
    MT_OK(MPI_Win_flush(t, s->win));
    for (size_t k = 0; k < SLOT; ++k) {
        if (s->dst[k] != m[k]) {
            MT_FAIL("round %d: byte %zu of my slot at rank %d is %d, expected %d (%s)", round,
                    k, t, s->dst[k], m[k], failed ? "after a failed put" : "no fault");
        }
    }
}

static void test_zcfault(const char *flavor, int every)
{
    zc_state_t s = { .every = every };
    unsigned char *mem;
    int rounds = 2 * (every > 0 ? every : 2) + 1;

    win_open(flavor, &mem, &s.win);
    MT_CHECK((s.model = calloc((size_t)size, SLOT)) != NULL);
    MT_CHECK((s.src = malloc(2 * BIG)) != NULL && (s.dst = malloc(SLOT)) != NULL);
    MT_CHECK((s.nput = calloc((size_t)size, sizeof(int))) != NULL);
    MT_OK(MPI_Win_lock_all(0, s.win));
    for (int i = 0; i < rounds; ++i) {   /* one large put per flush */
        for (int d = 0; d < size; ++d) {
            int t = (rank + d) % size;
            int f = zc_put(&s, t, i, i % 2 ? 65536 : BIG, s.src);

            zc_check(&s, t, f, i);
        }
    }
    for (int i = 0; i < rounds; ++i) {   /* two large and a small one per flush */
        for (int d = 0; d < size; ++d) {
            int t = (rank + d) % size;
            int f = zc_put(&s, t, 100 + i, i % 2 ? BIG : 65536, s.src);

            f |= zc_put(&s, t, 200 + i, i % 2 ? 65536 : BIG, s.src + BIG);
            zc_put_small(&s, t, i, s.dst);
            zc_check(&s, t, f, 100 + i);
        }
    }
    MT_OK(MPI_Win_unlock_all(s.win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    win_close(flavor, mem, &s.win);
    free(s.model);
    free(s.src);
    free(s.dst);
    free(s.nput);
}

/* ---- ops ---- */

#define OSLOT (70 * 1024)             /* per origin: the put/get bytes */
#define NCTR  8                       /* counters: 4 types x (fop, cas/acc) */

static const size_t op_sizes[] = { 1, 7, 8, 64, 4096, 65539 };

/* counters start here (after every origin's slot), 8-byte each */
static MPI_Aint ctr_at(int i)
{
    return (MPI_Aint)((size_t)size * OSLOT + (size_t)i * 8);
}

static void ops_putget(MPI_Win win, unsigned char *src, unsigned char *dst)
{
    for (size_t z = 0; z < sizeof(op_sizes) / sizeof(op_sizes[0]); ++z) {
        size_t n = op_sizes[z], off = 1 + z;   /* odd offsets */

        for (int d = 0; d < size; ++d) {
            int t = (rank + d) % size;
            MPI_Aint at = (MPI_Aint)((size_t)rank * OSLOT + off);

            for (size_t k = 0; k < n; ++k) {
                src[k] = pattern(t, (int)z, k);
            }
            memset(dst, 0, n + 1);
            MT_OK(MPI_Put(src, (int)n, MPI_BYTE, t, at, (int)n, MPI_BYTE, win));
            MT_OK(MPI_Win_flush(t, win));
            MT_OK(MPI_Get(dst, (int)n, MPI_BYTE, t, at, (int)n, MPI_BYTE, win));
            MT_OK(MPI_Win_flush(t, win));
            if (memcmp(src, dst, n) != 0 || dst[n] != 0) {
                MT_FAIL("put/get of %zu bytes at rank %d: bytes differ", n, t);
            }
        }
    }
}

/* K fetch-and-op SUMs of @p inc on counter @p c (type @p dt) at @p t: values rise */
static void ops_fop(MPI_Win win, int t, int c, MPI_Datatype dt, int k)
{
    uint64_t last = 0, inc8 = 1u << 30, old8 = 0;
    uint32_t inc4 = 3u << 30, old4 = 0;
    int wide = dt == MPI_INT64_T || dt == MPI_UINT64_T;

    for (int i = 0; i < k; ++i) {
        MT_OK(MPI_Fetch_and_op(wide ? (void *)&inc8 : (void *)&inc4,
                               wide ? (void *)&old8 : (void *)&old4, dt, t, ctr_at(c),
                               MPI_SUM, win));
        MT_OK(MPI_Win_flush(t, win));
        if (wide) {
            MT_CHECK(i == 0 || old8 > last);   /* other ranks' adds in between: never less */
            last = old8;
        }
    }
}

/* K increments by compare-and-swap (read by NO_OP fetch, CAS, retry) of int64 counter @p c */
static void ops_cas(MPI_Win win, int t, int c, int k)
{
    for (int i = 0; i < k; ++i) {
        int64_t old, want, got, dummy = 0;

        do {
            MT_OK(MPI_Fetch_and_op(&dummy, &old, MPI_INT64_T, t, ctr_at(c), MPI_NO_OP, win));
            MT_OK(MPI_Win_flush(t, win));
            want = old + 1;
            MT_OK(MPI_Compare_and_swap(&want, &old, &got, MPI_INT64_T, t, ctr_at(c), win));
            MT_OK(MPI_Win_flush(t, win));
        } while (got != old);
    }
}

/* lock exclusive: fop + put, unlock; lock shared: get, unlock (the lock rows) */
static void ops_locks(MPI_Win win, int k, unsigned char *src, unsigned char *dst)
{
    for (int i = 0; i < k; ++i) {
        int t = (rank + 1 + i) % size;
        int64_t one = 1, old = -1;
        MPI_Aint at = (MPI_Aint)((size_t)rank * OSLOT + 3);

        for (size_t b = 0; b < 8; ++b) {
            src[b] = pattern(t, 1000 + i, b);
        }
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        MT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, ctr_at(6), MPI_SUM, win));
        MT_OK(MPI_Put(src, 8, MPI_BYTE, t, at, 8, MPI_BYTE, win));
        MT_OK(MPI_Win_unlock(t, win));
        MT_CHECK(old >= 0);
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        MT_OK(MPI_Get(dst, 8, MPI_BYTE, t, at, 8, MPI_BYTE, win));
        MT_OK(MPI_Win_unlock(t, win));
        MT_CHECK(memcmp(src, dst, 8) == 0);
    }
}

static void test_ops(int k)
{
    size_t bytes = (size_t)size * OSLOT + NCTR * 8;
    unsigned char *mem, *src, *dst;
    static const MPI_Datatype fdt[4] = { MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T, MPI_UINT64_T };
    MPI_Win win;
    int last = size - 1;

    MT_CHECK((mem = calloc(1, bytes)) != NULL);
    MT_CHECK((src = malloc(OSLOT)) != NULL && (dst = malloc(OSLOT)) != NULL);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Win_lock_all(0, win));
    ops_putget(win, src, dst);
    for (int c = 0; c < 4; ++c) {
        ops_fop(win, 0, c, fdt[c], k);
        ops_fop(win, last, c, fdt[c], k);
    }
    ops_cas(win, 0, 4, k);
    ops_cas(win, last, 4, k);
    for (int i = 0; i < k; ++i) {   /* one-element accumulates (int32 SUM) */
        int32_t two = 2;

        MT_OK(MPI_Accumulate(&two, 1, MPI_INT32_T, 0, ctr_at(5), 1, MPI_INT32_T, MPI_SUM, win));
        MT_OK(MPI_Accumulate(&two, 1, MPI_INT32_T, last, ctr_at(5), 1, MPI_INT32_T, MPI_SUM,
                             win));
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    ops_locks(win, k, src, dst);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    {   /* the lock rows' fetch-and-op +1s, k per rank, spread over the ranks */
        int64_t mine, all = 0;

        memcpy(&mine, mem + ctr_at(6), 8);
        MT_OK(MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
        MT_EQ(all, (int64_t)k * size);
    }
    if (rank == 0 || rank == last) {   /* the totals (both if one rank: counted twice) */
        uint64_t n = (uint64_t)k * (uint64_t)size * (size == 1 ? 2 : 1), v8;
        uint32_t v4;
        int32_t a4;
        int64_t l8;

        for (int c = 0; c < 2; ++c) {
            memcpy(&v4, mem + ctr_at(c), 4);
            MT_EQ(v4, (uint32_t)(n * (3u << 30)));   /* wraps */
        }
        for (int c = 2; c < 4; ++c) {
            memcpy(&v8, mem + ctr_at(c), 8);
            MT_EQ(v8, n << 30);
        }
        memcpy(&l8, mem + ctr_at(4), 8);
        MT_EQ(l8, (int64_t)n);
        memcpy(&a4, mem + ctr_at(5), 4);
        MT_EQ(a4, (int32_t)(2 * n));
    }
    MT_OK(MPI_Win_free(&win));
    free(mem);
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *flavor = argc > 2 ? argv[2] : "create";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 1 && size <= 16);
    if (strcmp(mode, "zcfault") == 0) {
        test_zcfault(flavor, argc > 3 ? atoi(argv[3]) : 0);
    } else if (strcmp(mode, "ops") == 0) {
        test_ops(argc > 2 ? atoi(argv[2]) : 50);
    } else {
        MT_FAIL("unknown mode '%s'", mode);
    }
    MT_PASS("mpi_rma_s14");
    MPI_Finalize();
    return 0;
}
