/*
 * mpi_rma_s13.c: large puts and gets whose data moves straight between the
 * origin's buffer and the target's window (session 13, rma/rma_zcopy.c),
 * mixed with the batched small requests and accumulates of session 12.
 *
 *   mixed    under lock_all, then under fence: even ranks put large blocks
 *            (64 KiB .. 200 KiB + odd bytes) into every other rank's slot,
 *            odd ranks the same bytes in small puts (batched), and between
 *            every two puts every rank adds to counters every origin shares
 *            at each target (MPI_SUM: element-wise atomic); each rank then
 *            gets its blocks back (large gets) before the epoch ends; the
 *            targets check every byte and the exact sums;
 *   excl     a counter held in every word of a 128 KiB block at rank 0 and
 *            at the last rank: each rank K times takes the exclusive lock,
 *            gets the block (large), checks it whole, puts it back plus
 *            one (large), unlocks; readers under shared locks get the
 *            block and must never see it torn. A lost update or a torn
 *            block means an UNLOCK was served before its put's data was in
 *            or while a get still read the window;
 *   lb       a large put and get through a one-block target type whose
 *            data starts 100 bytes in (the data lands there, nothing
 *            around it), a large get into a vector (the copying path) and
 *            an Rput/Rget (the R-forms keep the copying path): same bytes;
 *   pscw     large and small puts inside start/complete reach post/wait;
 *   errors   a large put and a large get past the end of the target's
 *            window: MPI_ERR_RMA_RANGE at the call; origin and target
 *            sizes that differ: MPI_ERR_TYPE at the call; nothing sent, the
 *            next epoch clean;
 *   fetch    small gets, fetch-and-ops and compare-and-swaps, now batched
 *            with the puts and the lock: under a contended exclusive lock
 *            every rank runs a chain of 20 FOP SUMs on one counter (each
 *            old value one more than the last), CAS hits and misses, and
 *            gets of words it put in an earlier epoch; under lock_all, 40
 *            gets from every other rank in one flush;
 *   range    (dynamic windows) a large put and a large get outside the
 *            target's attached memory: MPI_ERR_RMA_RANGE at the flush, the
 *            requests before and after them applied, the next epoch clean.
 *
 * usage: mpi_rma_s13 [create|allocate|dynamic] [K]   (any number of ranks)
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

#define SLOT   (384 * 1024)   /* per origin at each target */
#define NCTR   64             /* shared accumulate counters (ints) */
#define BLOCK  (128 * 1024)   /* excl: the counter block */
/* every window has disp unit 1: displacements are bytes */

static int rank, size;
static size_t win_bytes;   /* size * SLOT + counters */
static MPI_Aint *addrs;    /* every rank's window base (dynamic: displacements) */

static const size_t sizes[] = { 65536, 70001, 3, 150007 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static unsigned char pattern(int origin, int t, size_t n, size_t i)
{
    return (unsigned char)(origin * 31 + t * 17 + n * 7 + i * 13 + 1);
}

static MPI_Aint at(int t, size_t off)
{
    return addrs[t] + (MPI_Aint)off;
}

/* the bytes of size @p n from @p src to @p t at its slot offset @p off */
static void put_block(MPI_Win win, int t, const unsigned char *src, size_t off, size_t n)
{
    MPI_Aint d = at(t, (size_t)rank * SLOT + off);

    if (rank % 2 == 0 || n < 4096) {
        MT_OK(MPI_Put(src, (int)n, MPI_BYTE, t, d, (int)n, MPI_BYTE, win));
        return;
    }
    for (size_t p = 0; p < n; p += 3000) {   /* small puts: batched */
        int len = (int)(n - p < 3000 ? n - p : 3000);

        MT_OK(MPI_Put(src + p, len, MPI_BYTE, t, d + (MPI_Aint)p, len, MPI_BYTE, win));
    }
}

static void fill(unsigned char *src, int t)
{
    size_t off = 0;

    for (size_t s = 0; s < NSIZES; s++) {
        for (size_t i = 0; i < sizes[s]; i++) {
            src[off + i] = pattern(rank, t, sizes[s], i);
        }
        off += sizes[s];
    }
}

static void check_slot(const unsigned char *mem, int origin)
{
    size_t off = 0;

    for (size_t s = 0; s < NSIZES; s++) {
        for (size_t i = 0; i < sizes[s]; i++) {
            unsigned char want = pattern(origin, rank, sizes[s], i);

            if (mem[(size_t)origin * SLOT + off + i] != want) {
                MT_FAIL("byte %zu of the %zu-byte block from rank %d: %d, expected %d", i,
                        sizes[s], origin, mem[(size_t)origin * SLOT + off + i], want);
            }
        }
        off += sizes[s];
    }
}

/* puts to every other rank, a SUM to every counter between any two */
static void mixed_puts(MPI_Win win, unsigned char *src)
{
    int one = rank + 1;

    for (int t = 0; t < size; t++) {
        size_t off = 0;

        if (t == rank) {
            continue;
        }
        fill(src + (size_t)t * SLOT, t);
        for (size_t s = 0; s < NSIZES; s++) {
            put_block(win, t, src + (size_t)t * SLOT + off, off, sizes[s]);
            for (int c = 0; c < NCTR; c += 7) {
                MT_OK(MPI_Accumulate(&one, 1, MPI_INT, t, at(t, (size_t)size * SLOT +
                                                                 (size_t)c * sizeof(int)),
                                     1, MPI_INT, MPI_SUM, win));
            }
            off += sizes[s];
        }
    }
}

/* large gets of what this rank put, after a flush (same epoch) */
static void mixed_getback(MPI_Win win, const unsigned char *src, unsigned char *got)
{
    for (int t = 0; t < size; t++) {
        size_t n = sizes[0] + sizes[1] + sizes[2];

        if (t == rank) {
            continue;
        }
        memset(got, 0, n);
        MT_OK(MPI_Get(got, (int)n, MPI_BYTE, t, at(t, (size_t)rank * SLOT), (int)n, MPI_BYTE,
                      win));
        MT_OK(MPI_Win_flush(t, win));
        if (memcmp(got, src + (size_t)t * SLOT, n) != 0) {
            MT_FAIL("a large get of %zu bytes from rank %d differs from what was put", n, t);
        }
    }
}

static void mixed_check(const unsigned char *mem)
{
    const int *ctr = (const int *)(const void *)(mem + (size_t)size * SLOT);
    int want = 0;

    for (int o = 0; o < size; o++) {
        if (o != rank) {
            check_slot(mem, o);
            want += (o + 1) * (int)NSIZES;   /* o adds o + 1 after each of its blocks */
        }
    }
    for (int c = 0; c < NCTR; c++) {
        MT_EQ(ctr[c], c % 7 == 0 ? want : 0);
    }
}

static void test_mixed(MPI_Win win, unsigned char *mem, int fence)
{
    unsigned char *src = malloc((size_t)size * SLOT), *got = malloc(SLOT);

    MT_CHECK(src != NULL && got != NULL);
    memset(mem, 0, win_bytes);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (fence) {
        MT_OK(MPI_Win_fence(0, win));
    } else {
        MT_OK(MPI_Win_lock_all(0, win));
    }
    mixed_puts(win, src);
    if (fence) {
        MT_OK(MPI_Win_fence(0, win));   /* the gets back in an epoch of their own */
        for (int t = 0; t < size; t++) {
            size_t n = sizes[0] + sizes[1];

            if (t != rank) {
                MT_OK(MPI_Get(got, (int)n, MPI_BYTE, t, at(t, (size_t)rank * SLOT), (int)n,
                              MPI_BYTE, win));
                MT_OK(MPI_Win_fence(0, win));
                MT_CHECK(memcmp(got, src + (size_t)t * SLOT, n) == 0);
                MT_OK(MPI_Win_fence(0, win));
            }
        }
        MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        /* the other ranks' loops have the same length: the fences pair up */
    } else {
        MT_OK(MPI_Win_flush_all(win));
        mixed_getback(win, src, got);
        MT_OK(MPI_Win_unlock_all(win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    mixed_check(mem);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(src);
    free(got);
}

static void block_check(const long long *b, long long v, int target, const char *who)
{
    for (size_t i = 0; i < BLOCK / sizeof(long long); i++) {
        if (b[i] != b[0] || (v >= 0 && b[i] != v)) {
            MT_FAIL("%s saw a torn block at rank %d: word %zu is %lld, word 0 %lld", who,
                    target, i, b[i], b[0]);
        }
    }
}

static void test_excl(MPI_Win win, unsigned char *mem, int target, int k)
{
    long long *b = malloc(BLOCK);
    MPI_Aint d = at(target, 0);

    MT_CHECK(b != NULL);
    memset(mem, 0, BLOCK);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < k; i++) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
        MT_OK(MPI_Get(b, BLOCK, MPI_BYTE, target, d, BLOCK, MPI_BYTE, win));
        MT_OK(MPI_Win_flush(target, win));
        block_check(b, -1, target, "the exclusive holder");
        for (size_t w = 0; w < BLOCK / sizeof(long long); w++) {
            b[w]++;
        }
        MT_OK(MPI_Put(b, BLOCK, MPI_BYTE, target, d, BLOCK, MPI_BYTE, win));
        MT_OK(MPI_Win_unlock(target, win));
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        MT_OK(MPI_Get(b, BLOCK, MPI_BYTE, target, d, BLOCK, MPI_BYTE, win));
        MT_OK(MPI_Win_unlock(target, win));
        block_check(b, -1, target, "a shared reader");
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    MT_OK(MPI_Get(b, BLOCK, MPI_BYTE, target, d, BLOCK, MPI_BYTE, win));
    MT_OK(MPI_Win_unlock(target, win));
    block_check(b, (long long)k * size, target, "the final reader");
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(b);
}

/* one contiguous block of @p n bytes that starts 100 bytes in */
static MPI_Datatype lb_type(int n)
{
    MPI_Aint at100 = 100;
    MPI_Datatype t;

    MT_OK(MPI_Type_create_hindexed(1, &n, &at100, MPI_BYTE, &t));
    MT_OK(MPI_Type_commit(&t));
    return t;
}

static void test_lb(MPI_Win win, unsigned char *mem)
{
    enum { N = 100000 };
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    unsigned char *src = malloc(N), *got = calloc(1, 2 * N);
    MPI_Datatype lt = lb_type(N), vec;
    MPI_Request rq[2];

    MT_CHECK(src != NULL && got != NULL);
    for (size_t i = 0; i < N; i++) {
        src[i] = pattern(rank, t, N, i);
    }
    memset(mem, 0, win_bytes);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    /* disp 800, data 100 bytes into the type: the bytes land at 900 */
    MT_OK(MPI_Put(src, N, MPI_BYTE, t, at(t, 800), 1, lt, win));
    MT_OK(MPI_Win_flush(t, win));
    MT_OK(MPI_Get(got, N, MPI_BYTE, t, at(t, 800), 1, lt, win));
    MT_OK(MPI_Win_flush(t, win));
    MT_CHECK(memcmp(got, src, N) == 0);
    MT_OK(MPI_Type_vector(N / 100, 100, 200, MPI_BYTE, &vec));
    MT_OK(MPI_Type_commit(&vec));
    memset(got, 0, 2 * N);
    MT_OK(MPI_Get(got, 1, vec, t, at(t, 900), N, MPI_BYTE, win));   /* the copying path */
    MT_OK(MPI_Win_flush(t, win));
    for (size_t i = 0; i < N; i++) {
        MT_EQ(got[i / 100 * 200 + i % 100], src[i]);
    }
    MT_OK(MPI_Rput(src, N, MPI_BYTE, t, at(t, 200000), N, MPI_BYTE, win, &rq[0]));
    MT_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MT_OK(MPI_Win_flush(t, win));
    MT_OK(MPI_Rget(got, N, MPI_BYTE, t, at(t, 200000), N, MPI_BYTE, win, &rq[1]));
    MT_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    MT_CHECK(memcmp(got, src, N) == 0);
    MT_OK(MPI_Win_unlock(t, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (size_t i = 0; i < N; i++) {
        MT_EQ(mem[900 + i], pattern(from, rank, N, i));
        MT_EQ(mem[200000 + i], pattern(from, rank, N, i));
    }
    MT_EQ(mem[899], 0);
    MT_EQ(mem[900 + N], 0);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Type_free(&lt));
    MT_OK(MPI_Type_free(&vec));
    free(src);
    free(got);
}

/* rank 0 exposes, the others put into it inside start/complete */
static void test_pscw(MPI_Win win, unsigned char *mem)
{
    unsigned char *src = malloc(SLOT);
    MPI_Group world, g;
    int zero = 0;

    MT_CHECK(src != NULL);
    memset(mem, 0, win_bytes);
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MPI_Group others;

        MT_OK(MPI_Group_excl(world, 1, &zero, &others));
        MT_OK(MPI_Win_post(others, 0, win));
        MT_OK(MPI_Win_wait(win));
        for (int o = 1; o < size; o++) {
            check_slot(mem, o);
        }
        MT_OK(MPI_Group_free(&others));
    } else {
        size_t off = 0;

        fill(src, 0);
        MT_OK(MPI_Group_incl(world, 1, &zero, &g));
        MT_OK(MPI_Win_start(g, 0, win));
        for (size_t s = 0; s < NSIZES; s++) {
            put_block(win, 0, src + off, off, sizes[s]);
            off += sizes[s];
        }
        MT_OK(MPI_Win_complete(win));
        MT_OK(MPI_Group_free(&g));
    }
    MT_OK(MPI_Group_free(&world));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(src);
}

/* errors found at the origin call (not dynamic windows: the target checks those) */
static void test_errors(MPI_Win win, unsigned char *mem)
{
    enum { N = 100000 };
    int t = (rank + 1) % size;
    unsigned char *src = malloc(N);

    MT_CHECK(src != NULL);
    memset(src, 0x5a, N);
    memset(mem, 0, win_bytes);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_ERR(MPI_Put(src, N, MPI_BYTE, t, (MPI_Aint)win_bytes - N + 1, N, MPI_BYTE, win),
           MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Get(src, N, MPI_BYTE, t, (MPI_Aint)win_bytes - 10, N, MPI_BYTE, win),
           MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Put(src, N, MPI_BYTE, t, 0, N - 1, MPI_BYTE, win), MPI_ERR_TYPE);
    MT_ERR(MPI_Get(src, N - 8, MPI_BYTE, t, 0, N, MPI_BYTE, win), MPI_ERR_TYPE);
    MT_OK(MPI_Put(src, N, MPI_BYTE, t, (MPI_Aint)win_bytes - N, N, MPI_BYTE, win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (size_t i = 0; i < win_bytes; i++) {
        MT_EQ(mem[i], i >= win_bytes - N ? 0x5a : 0);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(src);
}

static void test_fetch(MPI_Win win, unsigned char *mem)
{
    long long *w = (long long *)(void *)mem, one = 1, old = -1, prev = -1, got[40];
    long long mine = 1000 + rank, cmp, res;
    int t = size - 1;

    memset(mem, 0, win_bytes);
    for (int i = 0; i < 40; i++) {
        w[64 + i] = rank * 100 + i;   /* read by the others under lock_all */
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    for (int i = 0; i < 20; i++) {   /* one chain, no flush between: batched in order */
        MT_OK(MPI_Fetch_and_op(&one, i == 0 ? &prev : &old, MPI_LONG_LONG, t, at(t, 0),
                               MPI_SUM, win));
        if (i > 0) {
            MT_OK(MPI_Win_flush(t, win));
            MT_EQ(old, prev + i);
        }
    }
    MT_OK(MPI_Put(&mine, 1, MPI_LONG_LONG, t, at(t, 8 * (size_t)(8 + rank)), 1, MPI_LONG_LONG,
                  win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    cmp = 1000 + rank;
    res = -1;
    mine = 2000 + rank;
    MT_OK(MPI_Compare_and_swap(&mine, &cmp, &res, MPI_LONG_LONG, t, at(t, 8 * (size_t)(8 + rank)),
                               win));
    MT_OK(MPI_Win_flush(t, win));   /* MPI orders a CAS and a get only by a flush */
    MT_OK(MPI_Get(&old, 1, MPI_LONG_LONG, t, at(t, 8 * (size_t)(8 + rank)), 1, MPI_LONG_LONG,
                  win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_EQ(res, 1000 + rank);   /* hit */
    MT_EQ(old, 2000 + rank);
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    MT_OK(MPI_Compare_and_swap(&mine, &cmp, &res, MPI_LONG_LONG, t, at(t, 8 * (size_t)(8 + rank)),
                               win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_EQ(res, 2000 + rank);   /* miss: unchanged */
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == t) {
        MT_EQ(w[0], 20LL * size);
    }
    MT_OK(MPI_Win_lock_all(0, win));
    for (int o = 0; o < size; o++) {
        if (o == rank) {
            continue;
        }
        for (int i = 0; i < 40; i++) {
            MT_OK(MPI_Get(&got[i], 1, MPI_LONG_LONG, o, at(o, 8 * (size_t)(64 + i)), 1,
                          MPI_LONG_LONG, win));
        }
        MT_OK(MPI_Win_flush(o, win));
        for (int i = 0; i < 40; i++) {
            MT_EQ(got[i], o * 100 + i);
        }
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* dynamic only: large requests outside the attached memory, found by the target */
static void test_range(MPI_Win win, unsigned char *mem)
{
    enum { N = 100000 };
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    unsigned char *src = malloc(N), *got = malloc(N);

    MT_CHECK(src != NULL && got != NULL);
    for (size_t i = 0; i < N; i++) {
        src[i] = pattern(rank, t, N, i);
    }
    memset(mem, 0, win_bytes);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_OK(MPI_Put(src, N, MPI_BYTE, t, at(t, 0), N, MPI_BYTE, win));
    MT_OK(MPI_Put(src, N, MPI_BYTE, t, at(t, win_bytes - N / 2), N, MPI_BYTE, win));
    MT_OK(MPI_Put(src, N, MPI_BYTE, t, at(t, 2 * N), N, MPI_BYTE, win));
    MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
    MT_OK(MPI_Get(got, N, MPI_BYTE, t, at(t, win_bytes + 4096), N, MPI_BYTE, win));
    MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
    MT_OK(MPI_Get(got, N, MPI_BYTE, t, at(t, 2 * N), N, MPI_BYTE, win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_CHECK(memcmp(got, src, N) == 0);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (size_t i = 0; i < N; i++) {
        MT_EQ(mem[i], pattern(from, rank, N, i));
        MT_EQ(mem[2 * N + i], pattern(from, rank, N, i));
    }
    MT_EQ(mem[win_bytes - N / 2], 0);   /* the refused put wrote nothing */
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));   /* the next epoch is clean */
    MT_OK(MPI_Put(src, N, MPI_BYTE, t, at(t, 3 * N), N, MPI_BYTE, win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_EQ(mem[3 * N + N - 1], pattern(from, rank, N, N - 1));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(src);
    free(got);
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "create";
    int k = argc > 2 ? atoi(argv[2]) : 20, dyn;
    unsigned char *mem = NULL;
    MPI_Aint mine;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 1 && size <= 16 && k > 0);
    dyn = strcmp(flavor, "dynamic") == 0;
    win_bytes = (size_t)size * SLOT + NCTR * sizeof(int);
    if (win_bytes < 4 * 100000) {
        win_bytes = 4 * 100000;   /* test_range, test_lb */
    }
    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate((MPI_Aint)win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                               &win));
    } else {
        MT_CHECK((mem = malloc(win_bytes)) != NULL);
        if (dyn) {
            MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            MT_OK(MPI_Win_attach(win, mem, (MPI_Aint)win_bytes));
        } else {
            MT_OK(MPI_Win_create(mem, (MPI_Aint)win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &win));
        }
    }
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_CHECK((addrs = calloc((size_t)size, sizeof(*addrs))) != NULL);
    mine = 0;
    if (dyn) {
        MT_OK(MPI_Get_address(mem, &mine));
    }
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    if (size > 1) {
        test_mixed(win, mem, 0);
        test_mixed(win, mem, 1);
        test_excl(win, mem, 0, k);
        test_excl(win, mem, size - 1, k);
        test_lb(win, mem);
        test_pscw(win, mem);
        test_fetch(win, mem);
        if (dyn) {
            test_range(win, mem);
        } else {
            test_errors(win, mem);
        }
    }
    if (dyn) {
        MT_OK(MPI_Win_detach(win, mem));
    }
    MT_OK(MPI_Win_free(&win));
    if (strcmp(flavor, "allocate") != 0) {
        free(mem);
    }
    free(addrs);
    MT_PASS("mpi_rma_s13");
    MPI_Finalize();
    return 0;
}
