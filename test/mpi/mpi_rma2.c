/*
 * mpi_rma2.c: the one-sided fast paths of issue 23 stage 2, checked exactly
 * (run at np 1..8 by test_mpi_rma2.sh, and over self,tcp, where the same
 * calls take the active-message path and must give the same answers).
 *
 *   mpi_rma2 [iters]
 *
 * Sections:
 *   - contiguous put/get on Win_allocate and Win_create windows, with disp
 *     units 1 and 8, a derived contiguous type, a type with a true lower
 *     bound (resized), and odd sizes: the target's bytes and the origin's
 *     fetched bytes compared with a model, neighbours untouched;
 *   - errors through the fast path (MPI_ERRORS_RETURN): out of range ->
 *     MPI_ERR_RMA_RANGE, negative disp -> MPI_ERR_RMA_RANGE, a count of 0
 *     at the end is fine, no epoch -> MPI_ERR_RMA_SYNC;
 *   - Get_accumulate whose result buffer overlaps its origin buffer;
 *   - MAXLOC Get_accumulate on MPI_DOUBLE_INT through a vector type
 *     (packed pairs widened to C structs at the target);
 *   - a dynamic window: one put spanning two regions attached side by
 *     side; after detaching one, MPI_ERR_RMA_RANGE at the flush;
 *   - atomicity of fetch-and-op: every rank adds 1 to every target's
 *     counter iters times in random target order under lock_all; the
 *     fetched values of one target over all ranks must be exactly the
 *     permutation 0 .. size*iters-1 (no duplicate, no gap), and the final
 *     value size*iters;
 *   - a CAS spin lock (0 -> rank+1 on rank 0) guarding a plain get/put
 *     increment of another counter: mutual exclusion is exact only if CAS
 *     is atomic with respect to every origin and flush orders the put;
 *   - with "noprogress": lock/get/put/unlock contention on a target that
 *     makes no MPI call (Win_allocate in a segment); "noprogress-create":
 *     on Win_create by CMA too (the driver sets LOOM_RMA_CMA=passive or
 *     LOOM_RMA_CMA_MSG=0: by default a put or get of at most 4 KiB there
 *     goes by message, which the target serves in its MPI calls).
 */
#include "mpi_win_kinds.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static unsigned char pat(int r, size_t i, int round)
{
    return (unsigned char)(r * 31 + (int)i * 7 + round * 13 + 1);
}

static MPI_Win make_win(int create, size_t bytes, int unit, unsigned char **base_p)
{
    void *base = NULL;
    MPI_Win win = win_make(create, bytes, unit, &base);

    *base_p = base;
    return win;
}

static void free_win(int create, MPI_Win *win, unsigned char *base)
{
    MT_OK(MPI_Win_free(win));
    if (create) {
        free(base);
    }
}

/* put @p n bytes at byte @p off of the right neighbour with @p type (count n / tsize) */
static void putget_case(int create, int unit, size_t off, size_t n, MPI_Datatype type,
                        int tsize, int round)
{
    size_t wbytes = 512;
    unsigned char *base, src[256], got[256];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win win = make_win(create, wbytes, unit, &base);
    MPI_Aint disp = (MPI_Aint)(off / (size_t)unit);
    int count = (int)(n / (size_t)tsize);

    for (size_t i = 0; i < n; ++i) {
        src[i] = pat(rank, i, round);
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    MT_OK(MPI_Put(src, count, type, right, disp, count, type, win));
    MT_OK(MPI_Win_flush(right, win));
    memset(got, 0, sizeof(got));
    MT_OK(MPI_Get(got, count, type, right, disp, count, type, win));
    MT_OK(MPI_Win_unlock(right, win));
    MT_CHECK(memcmp(got, src, n) == 0);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (size_t i = 0; i < wbytes; ++i) {
        unsigned char want = i >= off && i < off + n ? pat(left, i - off, round) : 0;

        if (base[i] != want) {
            MT_FAIL("rank %d: window byte %zu is %u, expected %u (off %zu, n %zu, unit %d)",
                    rank, i, base[i], want, off, n, unit);
        }
    }
    MT_OK(MPI_Win_unlock(rank, win));
    free_win(create, &win, base);
}

static void test_putget(void)
{
    MPI_Datatype c3, lbtype;

    MT_OK(MPI_Type_contiguous(3, MPI_INT, &c3));
    MT_OK(MPI_Type_commit(&c3));
    /* one int whose data sits 4 bytes after its address (true lb 4, extent 8) */
    MT_OK(MPI_Type_create_indexed_block(1, 1, (int[]){ 1 }, MPI_INT, &lbtype));
    MT_OK(MPI_Type_commit(&lbtype));
    for (int create = 0; create < 2; ++create) {
        putget_case(create, 1, 0, 8, MPI_BYTE, 1, 0);
        putget_case(create, 1, 3, 1, MPI_CHAR, 1, 1);
        putget_case(create, 1, 5, 255, MPI_BYTE, 1, 2);
        putget_case(create, 8, 16, 40, MPI_LONG_LONG, 8, 3);
        putget_case(create, 4, 12, 36, c3, 12, 4);
        putget_case(create, 1, 100, 8, MPI_DOUBLE, 8, 5);
    }
    /* the lb type: its data lands at disp + 4 */
    for (int create = 0; create < 2; ++create) {
        unsigned char *base;
        MPI_Win win = make_win(create, 64, 1, &base);
        int src[2] = { -1, 1000 + rank }, got[2] = { -7, -7 };
        int right = (rank + 1) % size, left = (rank + size - 1) % size, v;

        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        MT_OK(MPI_Put(src, 1, lbtype, right, 8, 1, lbtype, win));
        MT_OK(MPI_Win_flush(right, win));
        MT_OK(MPI_Get(got, 1, lbtype, right, 8, 1, lbtype, win));
        MT_OK(MPI_Win_unlock(right, win));
        MT_EQ(got[0], -7);
        MT_EQ(got[1], 1000 + rank);
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        memcpy(&v, base + 12, sizeof(v));
        MT_EQ(v, 1000 + left);
        memcpy(&v, base + 8, sizeof(v));
        MT_EQ(v, 0);
        free_win(create, &win, base);
    }
    MT_OK(MPI_Type_free(&c3));
    MT_OK(MPI_Type_free(&lbtype));
}

static void test_errors(void)
{
    for (int create = 0; create < 2; ++create) {
        unsigned char *base;
        MPI_Win win = make_win(create, 64, 4, &base);
        int v[20] = { 0 };
        int t = (rank + 1) % size;

        MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        MT_ERR(MPI_Put(v, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        MT_ERR(MPI_Put(v, 1, MPI_INT, t, 16, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
        MT_ERR(MPI_Get(v, 2, MPI_INT, t, 15, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
        MT_ERR(MPI_Put(v, 1, MPI_INT, t, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
        MT_ERR(MPI_Put(v, 17, MPI_INT, t, 0, 17, MPI_INT, win), MPI_ERR_RMA_RANGE);
        MT_OK(MPI_Put(v, 0, MPI_INT, t, 16, 0, MPI_INT, win));
        MT_OK(MPI_Put(v, 16, MPI_INT, t, 0, 16, MPI_INT, win));
        MT_OK(MPI_Put(v, 1, MPI_INT, MPI_PROC_NULL, 99, 1, MPI_INT, win));
        MT_OK(MPI_Win_unlock(t, win));
        free_win(create, &win, base);
    }
}

/* Get_accumulate with result == origin: the fetched old values replace the operands */
static void test_gacc_overlap(void)
{
    unsigned char *base;
    MPI_Win win = make_win(0, 4 * sizeof(int), sizeof(int), &base);
    int buf[4];

    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int i = 0; i < 4; ++i) {
        ((int *)(void *)base)[i] = 10 * i;
    }
    MT_OK(MPI_Win_unlock(rank, win));
    for (int i = 0; i < 4; ++i) {
        buf[i] = i + 1;
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    MT_OK(MPI_Get_accumulate(buf, 4, MPI_INT, buf, 4, MPI_INT, rank, 0, 4, MPI_INT, MPI_SUM,
                             win));
    MT_OK(MPI_Win_unlock(rank, win));
    for (int i = 0; i < 4; ++i) {
        MT_EQ(buf[i], 10 * i);
        MT_EQ(((int *)(void *)base)[i], 10 * i + i + 1);
    }
    free_win(0, &win, base);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;

    return (x > y) - (x < y);
}

static void test_fop_permutation(int iters, int create)
{
    unsigned char *base;
    MPI_Win win = make_win(create, sizeof(long long), sizeof(long long), &base);
    long long one = 1, *mine = malloc((size_t)size * (size_t)iters * sizeof(long long));
    long long *all = rank == 0 ? malloc((size_t)size * (size_t)size * (size_t)iters *
                                        sizeof(long long)) : NULL;
    int *order = malloc((size_t)size * (size_t)iters * sizeof(int)), n = size * iters;

    srand(1234u + (unsigned)rank);
    for (int i = 0; i < n; ++i) {
        order[i] = i % size;
    }
    for (int i = n - 1; i > 0; --i) {
        int j = rand() % (i + 1), x = order[i];

        order[i] = order[j];
        order[j] = x;
    }
    MT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < n; ++i) {
        int t = order[i];

        MT_OK(MPI_Fetch_and_op(&one, &mine[i], MPI_LONG_LONG, t, 0, MPI_SUM, win));
        if (i % 7 == 0) {
            MT_OK(MPI_Win_flush(t, win));
        }
    }
    MT_OK(MPI_Win_unlock_all(win));
    /* regroup my fetched values by target: all[t][rank*iters ...] */
    for (int t = 0; t < size; ++t) {
        long long *v = malloc((size_t)iters * sizeof(long long)), *g = NULL;
        int k = 0;

        for (int i = 0; i < n; ++i) {
            if (order[i] == t) {
                v[k++] = mine[i];
            }
        }
        MT_EQ(k, iters);
        g = rank == 0 ? all + (size_t)t * (size_t)n : NULL;
        MT_OK(MPI_Gather(v, iters, MPI_LONG_LONG, g, iters, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
        free(v);
    }
    if (rank == 0) {
        for (int t = 0; t < size; ++t) {
            long long *g = all + (size_t)t * (size_t)n;

            qsort(g, (size_t)n, sizeof(long long), cmp_ll);
            for (int i = 0; i < n; ++i) {
                if (g[i] != i) {
                    MT_FAIL("target %d: fetched values are not 0..%d: sorted[%d] = %lld",
                            t, n - 1, i, g[i]);
                }
            }
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_EQ(*(long long *)(void *)base, (long long)n);
    free(mine);
    free(all);
    free(order);
    free_win(create, &win, base);
}

/* a CAS spin lock on slot 0 of rank 0 guards a get/put increment of slot 1 */
static void test_cas_mutex(int iters, int create)
{
    unsigned char *base;
    MPI_Win win = make_win(create, 2 * sizeof(long long), sizeof(long long), &base);
    long long zero = 0, me = rank + 1, old, v;

    MT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < iters; ++i) {
        do {
            MT_OK(MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG_LONG, 0, 0, win));
            MT_OK(MPI_Win_flush(0, win));
        } while (old != 0);
        MT_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, 1, 1, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_flush(0, win));
        ++v;
        MT_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, 1, 1, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_flush(0, win));
        MT_OK(MPI_Compare_and_swap(&zero, &me, &old, MPI_LONG_LONG, 0, 0, win));
        MT_OK(MPI_Win_flush(0, win));
        MT_EQ(old, me);
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MT_EQ(((long long *)(void *)base)[1], (long long)iters * size);
        MT_EQ(((long long *)(void *)base)[0], 0);
    }
    free_win(create, &win, base);
}

/* MAXLOC on MPI_DOUBLE_INT through a vector (elements split from their padding) */
static void test_pairs(int create)
{
    typedef struct { double v; int i; } di_t;
    unsigned char *base;
    MPI_Win win = make_win(create, 10 * sizeof(di_t), sizeof(di_t), &base);
    di_t *w = (di_t *)(void *)base, src[10], old[10];
    MPI_Datatype vec;
    int right = (rank + 1) % size;

    MT_OK(MPI_Type_vector(5, 1, 2, MPI_DOUBLE_INT, &vec));
    MT_OK(MPI_Type_commit(&vec));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int k = 0; k < 10; ++k) {
        w[k].v = k % 3 == 0 ? 100.0 : 1.0;   /* every third: keeps its value */
        w[k].i = -k;
    }
    MT_OK(MPI_Win_unlock(rank, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < 10; ++k) {
        src[k].v = 50.0;
        src[k].i = 1000 * rank + k;
        old[k].v = -1.0;
        old[k].i = -1;
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MT_OK(MPI_Get_accumulate(src, 1, vec, old, 1, vec, right, 0, 1, vec, MPI_MAXLOC, win));
    MT_OK(MPI_Win_unlock(right, win));
    for (int k = 0; k < 10; k += 2) {   /* the fetched old values */
        MT_CHECK(old[k].v == (k % 3 == 0 ? 100.0 : 1.0));
        MT_EQ(old[k].i, -k);
    }
    MT_EQ(old[1].i, -1);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int k = 0; k < 10; ++k) {
        int left = (rank + size - 1) % size, keep = k % 2 == 1 || k % 3 == 0;

        MT_CHECK(w[k].v == (keep ? (k % 3 == 0 ? 100.0 : 1.0) : 50.0));
        MT_EQ(w[k].i, keep ? -k : 1000 * left + k);
    }
    MT_OK(MPI_Win_unlock(rank, win));
    MT_OK(MPI_Type_free(&vec));
    free_win(create, &win, base);
}

/* one put spanning two regions attached next to each other; a gap: RANGE */
static void test_dynamic_span(void)
{
    static int mem[64];
    int src[40], got[40], right = (rank + 1) % size;
    MPI_Aint *addr = malloc((size_t)size * sizeof(MPI_Aint)), mine;
    MPI_Win win;

    MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    memset(mem, 0, sizeof(mem));
    MT_OK(MPI_Win_attach(win, mem, 32 * sizeof(int)));
    MT_OK(MPI_Win_attach(win, mem + 32, 32 * sizeof(int)));
    MT_OK(MPI_Get_address(mem, &mine));
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    for (int i = 0; i < 40; ++i) {
        src[i] = 100 * rank + i;
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MT_OK(MPI_Put(src, 40, MPI_INT, right, addr[right] + 12 * (MPI_Aint)sizeof(int), 40, MPI_INT,
                  win));
    MT_OK(MPI_Win_flush(right, win));
    MT_OK(MPI_Get(got, 40, MPI_INT, right, addr[right] + 12 * (MPI_Aint)sizeof(int), 40, MPI_INT,
                  win));
    MT_OK(MPI_Win_unlock(right, win));
    MT_CHECK(memcmp(got, src, sizeof(src)) == 0);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_detach(win, mem + 32));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MT_OK(MPI_Put(src, 40, MPI_INT, right, addr[right] + 12 * (MPI_Aint)sizeof(int), 40, MPI_INT,
                  win));
    MT_ERR(MPI_Win_flush(right, win), MPI_ERR_RMA_RANGE);
    MT_OK(MPI_Win_unlock(right, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_detach(win, mem));
    MT_OK(MPI_Win_free(&win));
    free(addr);
}

/*
 * Passive target without the target's help (mpi_rma2 N noprogress: the
 * driver passes it where windows are direct or CMA): rank 0 makes no MPI
 * call while every other rank does lock(exclusive)/get/put+1/unlock on its
 * counter k times; rank 0 watches the counter in its own memory and must
 * see (size-1)*k within 30 s. Over active messages this would never end.
 */
static void test_no_progress(int k, int create)
{
    unsigned char *base;
    MPI_Win win = make_win(create, sizeof(long long), sizeof(long long), &base);
    long long want = (long long)(size - 1) * k, v;

    if (rank == 0) {
        double t0 = MPI_Wtime();   /* a clock, not a progress call */

        while (__atomic_load_n((long long *)(void *)base, __ATOMIC_ACQUIRE) != want) {
            if (MPI_Wtime() - t0 > 30.0) {
                MT_FAIL("rank 0: counter %lld of %lld after 30 s without MPI calls: passive "
                        "target needed the target's progress (create %d)",
                        *(long long *)(void *)base, want, create);
            }
        }
    } else {
        for (int i = 0; i < k; ++i) {
            MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            MT_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
            MT_OK(MPI_Win_flush(0, win));
            ++v;
            MT_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
            MT_OK(MPI_Win_unlock(0, win));
        }
    }
    free_win(create, &win, base);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 100;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    test_putget();
    test_errors();
    test_gacc_overlap();
    test_dynamic_span();
    test_pairs(0);
    test_pairs(1);
    for (int create = 0; create < 2; ++create) {
        test_fop_permutation(iters, create);
        test_cas_mutex(iters / 4 + 1, create);
    }
    if (argc > 2 && strncmp(argv[2], "noprogress", 10) == 0 && size > 1) {
        test_no_progress(iters, 0);
        if (strcmp(argv[2], "noprogress-create") == 0) {
            test_no_progress(iters, 1);
        }
    }
    MT_PASS("mpi_rma2");
    MT_OK(MPI_Finalize());
    return 0;
}
