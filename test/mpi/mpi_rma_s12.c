/*
 * mpi_rma_s12.c: the active-message protocol's lazy lock and batched
 * requests (session 12), checked on every window flavor it is given.
 *
 *   lock     every rank increments a counter at one target K times by a
 *            non-atomic get, flush, put under an exclusive lock: the target
 *            holds each origin's requests until its grant, so a lost update
 *            (final count != K x size) means the exclusion broke; then
 *            shared-lock readers race the writers and must only ever see a
 *            whole pair of words (both equal);
 *   order    small puts and accumulates (batched) then a fetch-and-op and a
 *            get (sent alone) to the same ints: REPLACE then SUM in one
 *            epoch apply in order, and the fetch sees the batched values;
 *   batch    under lock_all and under fence, every rank puts sizes 1 B to
 *            6 KiB (some batched, some alone) into every other rank's
 *            window, each byte a function of (origin, size, offset); the
 *            targets check every byte;
 *   pscw     batched puts inside start/complete reach the post/wait side;
 *   range    a batched put outside a dynamic window's attached memory:
 *            MPI_ERR_RMA_RANGE at the flush of that target, the puts of the
 *            same batch before it applied, the next epoch clean.
 *
 * usage: mpi_rma_s12 [create|allocate|dynamic] [K]   (any number of ranks)
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

#define WIN_BYTES (64 * 1024)
#define SLOT      (8 * 1024)   /* batch test: one slot per origin */
/* every window has disp unit 1: displacements are bytes */

static int rank, size;

static unsigned char pattern(int origin, size_t n, size_t i)
{
    return (unsigned char)(origin * 31 + n * 7 + i * 13 + 1);
}

static void test_lock(MPI_Win win, long long *mem, int target, int k)
{
    long long v, pair[2];

    if (rank == target) {
        mem[0] = mem[1] = mem[2] = 0;
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < k; i++) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
        MT_OK(MPI_Get(&v, 1, MPI_LONG_LONG, target, 0, 1, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_flush(target, win));
        v++;
        MT_OK(MPI_Put(&v, 1, MPI_LONG_LONG, target, 0, 1, MPI_LONG_LONG, win));
        pair[0] = pair[1] = v;   /* words 1 and 2 written together */
        MT_OK(MPI_Put(pair, 2, MPI_LONG_LONG, target, 8, 2, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_unlock(target, win));
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        MT_OK(MPI_Get(pair, 2, MPI_LONG_LONG, target, 8, 2, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_unlock(target, win));
        if (pair[0] != pair[1]) {
            MT_FAIL("shared reader saw a torn pair %lld/%lld at target %d", pair[0], pair[1],
                    target);
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    MT_OK(MPI_Get(&v, 1, MPI_LONG_LONG, target, 0, 1, MPI_LONG_LONG, win));
    MT_OK(MPI_Win_unlock(target, win));
    MT_EQ(v, (long long)k * size);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* one int per origin at the next rank: REPLACE, SUM (batched), FOP, GET (alone) */
static void test_order(MPI_Win win, int *mem)
{
    int t = (rank + 1) % size, seven = 7, five = 5, three = 3, old = -1, got = -1;
    MPI_Aint d = (MPI_Aint)(rank * sizeof(int));   /* disp unit 1 */

    for (int o = 0; o < size; o++) {
        mem[o] = -100;
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    MT_OK(MPI_Accumulate(&seven, 1, MPI_INT, t, d, 1, MPI_INT, MPI_REPLACE, win));
    MT_OK(MPI_Accumulate(&five, 1, MPI_INT, t, d, 1, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Fetch_and_op(&three, &old, MPI_INT, t, d, MPI_SUM, win));
    MT_OK(MPI_Accumulate(&three, 1, MPI_INT, t, d, 1, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &got, 1, MPI_INT, t, d, 1, MPI_INT,
                             MPI_NO_OP, win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_EQ(old, 12);
    MT_EQ(got, 18);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_EQ(mem[(rank + size - 1) % size], 18);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void put_sizes(MPI_Win win, int t, unsigned char *src)
{
    size_t off = 0;

    for (size_t n = 1; n <= 6144; n = n * 3 + 1) {
        for (size_t i = 0; i < n; i++) {
            src[off + i] = pattern(rank, n, i);
        }
        MT_OK(MPI_Put(src + off, (int)n, MPI_BYTE, t, (MPI_Aint)((size_t)rank * SLOT + off),
                      (int)n, MPI_BYTE, win));
        off += n;
    }
}

static void check_sizes(const unsigned char *mem, int origin)
{
    size_t off = 0;

    for (size_t n = 1; n <= 6144; n = n * 3 + 1) {
        for (size_t i = 0; i < n; i++) {
            if (mem[(size_t)origin * SLOT + off + i] != pattern(origin, n, i)) {
                MT_FAIL("byte %zu of the %zu-byte put from rank %d: %d, expected %d", i, n,
                        origin, mem[(size_t)origin * SLOT + off + i], pattern(origin, n, i));
            }
        }
        off += n;
    }
}

static void test_batch(MPI_Win win, unsigned char *mem, int fence)
{
    static unsigned char src[SLOT * 8];

    if (size > WIN_BYTES / SLOT) {
        return;
    }
    memset(mem, 0, WIN_BYTES);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (fence) {
        MT_OK(MPI_Win_fence(0, win));
    } else {
        MT_OK(MPI_Win_lock_all(0, win));
    }
    for (int t = 0; t < size; t++) {
        if (t != rank) {
            put_sizes(win, t, src + (size_t)t % 8 * SLOT);
        }
    }
    if (fence) {
        MT_OK(MPI_Win_fence(0, win));
    } else {
        MT_OK(MPI_Win_unlock_all(win));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (int o = 0; o < size; o++) {
        if (o != rank) {
            check_sizes(mem, o);
        }
    }
    if (fence) {
        MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* rank 0 exposes, the others put into it inside start/complete */
static void test_pscw(MPI_Win win, unsigned char *mem)
{
    static unsigned char src[SLOT];
    MPI_Group world, g;
    int zero = 0;

    if (size < 2 || size > WIN_BYTES / SLOT) {
        return;
    }
    memset(mem, 0, WIN_BYTES);
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MPI_Group others;

        MT_OK(MPI_Group_excl(world, 1, &zero, &others));
        MT_OK(MPI_Win_post(others, 0, win));
        MT_OK(MPI_Win_wait(win));
        for (int o = 1; o < size; o++) {
            check_sizes(mem, o);
        }
        MT_OK(MPI_Group_free(&others));
    } else {
        MT_OK(MPI_Group_incl(world, 1, &zero, &g));
        MT_OK(MPI_Win_start(g, 0, win));
        put_sizes(win, 0, src);
        MT_OK(MPI_Win_complete(win));
        MT_OK(MPI_Group_free(&g));
    }
    MT_OK(MPI_Group_free(&world));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* dynamic only: a bad address in the middle of a batch */
static void test_range(MPI_Win win, int *mem, MPI_Aint *addrs)
{
    int t = (rank + 1) % size, v = 40 + rank, w = 50 + rank;

    mem[0] = mem[1] = 0;
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_OK(MPI_Put(&v, 1, MPI_INT, t, addrs[t], 1, MPI_INT, win));
    MT_OK(MPI_Put(&v, 1, MPI_INT, t, addrs[t] + 4096 * 1024, 1, MPI_INT, win));
    MT_OK(MPI_Put(&w, 1, MPI_INT, t, addrs[t] + (MPI_Aint)sizeof(int), 1, MPI_INT, win));
    MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
    MT_OK(MPI_Win_unlock(t, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_EQ(mem[0], 40 + (rank + size - 1) % size);
    MT_EQ(mem[1], 50 + (rank + size - 1) % size);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));   /* checked before the next epoch writes */
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_OK(MPI_Put(&w, 1, MPI_INT, t, addrs[t], 1, MPI_INT, win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_EQ(mem[0], 50 + (rank + size - 1) % size);
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "create";
    int k = argc > 2 ? atoi(argv[2]) : 50;
    static MPI_Aint addrs[1024];
    unsigned char *mem = NULL;
    MPI_Aint mine;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size <= 1024 && k > 0);
    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    } else {
        mem = malloc(WIN_BYTES);
        MT_CHECK(mem != NULL);
        if (strcmp(flavor, "dynamic") == 0) {
            MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            MT_OK(MPI_Win_attach(win, mem, WIN_BYTES));
        } else {
            MT_OK(MPI_Win_create(mem, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        }
    }
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Get_address(mem, &mine));
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    if (strcmp(flavor, "dynamic") == 0) {
        test_range(win, (int *)(void *)mem, addrs);   /* displacements are addresses */
    } else {
        test_lock(win, (long long *)(void *)mem, 0, k);
        test_lock(win, (long long *)(void *)mem, size - 1, k);
        test_order(win, (int *)(void *)mem);
        test_batch(win, mem, 0);
        test_batch(win, mem, 1);
        test_pscw(win, mem);
    }
    if (strcmp(flavor, "dynamic") == 0) {
        MT_OK(MPI_Win_detach(win, mem));
    }
    MT_OK(MPI_Win_free(&win));
    if (strcmp(flavor, "allocate") != 0) {
        free(mem);
    }
    MT_PASS("mpi_rma_s12");
    MPI_Finalize();
    return 0;
}
