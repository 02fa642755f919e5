/*
 * mpi_rma_s18.c: session 18 of the one-sided layer: an accumulate of at
 * least LOOM_RMA_ZCOPY bytes (64 KiB) from a contiguous origin buffer to one
 * target segment goes by a header and a data message sent from the
 * origin's buffer (rma/rma_zcopy.c), received into scratch at the target
 * and applied there once whole, instead of being packed into the request.
 *
 *   sum      under lock_all (then under fence) every rank adds a block of
 *            NB ints (96 KiB + 12 B) to the same block at every rank, K
 *            rounds, and one int to a counter there between them: every
 *            element exactly K times the origins' sum (element-wise
 *            atomicity between origins), the counter exact;
 *   order    one exclusive epoch per origin, to its own slot at the next
 *            rank, no flush in between: a large REPLACE, a second large
 *            REPLACE, a small REPLACE inside it, a large SUM of ones, a
 *            small SUM; a fetch-and-op (MPI_NO_OP) then sees them all (an
 *            accumulate's later requests wait for its data); a large MAX
 *            on doubles over a REPLACE (4 bytes off alignment in the
 *            window: the target combines through its bounce buffers); a large REPLACE from a vector
 *            origin type (the copying path) after a direct one, and an
 *            Raccumulate (the copying path) before a direct SUM: each in
 *            program order;
 *   range    (dynamic windows) a large accumulate outside the target's
 *            attached memory: MPI_ERR_RMA_RANGE at the flush, the requests
 *            before and after it applied, nothing written where it
 *            pointed; (other flavors) past the window's end:
 *            MPI_ERR_RMA_RANGE at the call;
 *   fault E  (run with LOOM_RMA_ZCOPY_FAULT=record:E or recv:E) every
 *            E-th large put or accumulate of each origin fails at its
 *            target as if out of memory: one large SUM per flush to the
 *            next rank, the flush of a failed one MPI_ERR_NO_MEM, every
 *            other MPI_SUCCESS, and a large get after each flush holds
 *            exactly the sums that succeeded.
 *
 * usage: mpi_rma_s18 create|allocate|dynamic [K] [E]   (any number of ranks;
 *        E > 0: the fault test alone)
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

enum {
    NB    = 24579,         /* ints in a large block: 96 KiB + 12 B */
    NBD   = 9000,          /* doubles in the MAX block: 72 000 B */
    NCTR  = 1,
};

static int rank, size;
static MPI_Aint *addrs;    /* every rank's window base (dynamic: displacements) */
static size_t win_bytes;

/* the window: the shared SUM block, a counter, then one slot per origin */
#define SUM_OFF  ((size_t)0)
#define CTR_OFF  (SUM_OFF + NB * sizeof(int))
#define SLOT_OFF (CTR_OFF + 8)
#define SLOT     ((size_t)NB * sizeof(int) + (size_t)NBD * sizeof(double))

static MPI_Aint at(int t, size_t off)
{
    return addrs[t] + (MPI_Aint)off;
}

static size_t slot_of(int origin)
{
    return SLOT_OFF + (size_t)origin * SLOT;
}

static int val(int o, long i)
{
    return (o + 1) * (int)(i % 1000 + 1);
}

/* ---- sum ---- */

static void test_sum(MPI_Win win, unsigned char *mem, int k, int fence)
{
    int *src = malloc(NB * sizeof(int)), one = 1, expect = 0;
    int *sum = (int *)(void *)(mem + SUM_OFF), *ctr = (int *)(void *)(mem + CTR_OFF);

    MT_CHECK(src != NULL);
    for (long i = 0; i < NB; ++i) {
        src[i] = val(rank, i);
    }
    memset(mem + SUM_OFF, 0, NB * sizeof(int) + 8);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (fence) {
        MT_OK(MPI_Win_fence(0, win));
    } else {
        MT_OK(MPI_Win_lock_all(0, win));
    }
    for (int r = 0; r < k; ++r) {
        for (int d = 0; d < size; ++d) {
            int t = (rank + d) % size;

            MT_OK(MPI_Accumulate(src, NB, MPI_INT, t, at(t, SUM_OFF), NB, MPI_INT, MPI_SUM,
                                 win));
            MT_OK(MPI_Accumulate(&one, 1, MPI_INT, t, at(t, CTR_OFF), 1, MPI_INT, MPI_SUM,
                                 win));
        }
        if (fence && r % 3 == 2) {
            MT_OK(MPI_Win_fence(0, win));
        } else if (!fence && r % 2 == 1) {
            MT_OK(MPI_Win_flush_all(win));
        }
    }
    if (fence) {
        MT_OK(MPI_Win_fence(0, win));
    } else {
        MT_OK(MPI_Win_unlock_all(win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int o = 0; o < size; ++o) {
        expect += o + 1;
    }
    for (long i = 0; i < NB; ++i) {
        if (sum[i] != k * expect * (int)(i % 1000 + 1)) {
            MT_FAIL("sum (%s): element %ld is %d, expected %d", fence ? "fence" : "lock_all", i,
                    sum[i], k * expect * (int)(i % 1000 + 1));
        }
    }
    MT_EQ(*ctr, k * size);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(src);
}

/* ---- order ---- */

static void order_ints(MPI_Win win, int t, int *a, int *b, int *ones)
{
    int c[4] = { -7, -8, -9, -10 }, five = 5, old = -1;
    size_t s = slot_of(rank);

    for (long i = 0; i < NB; ++i) {
        a[i] = -(int)i;
        b[i] = val(rank, i) + 3;
        ones[i] = 1;
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_OK(MPI_Accumulate(a, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_REPLACE, win));
    MT_OK(MPI_Accumulate(b, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_REPLACE, win));
    MT_OK(MPI_Accumulate(c, 4, MPI_INT, t, at(t, s + 100 * sizeof(int)), 4, MPI_INT,
                         MPI_REPLACE, win));
    MT_OK(MPI_Accumulate(ones, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Accumulate(&five, 1, MPI_INT, t, at(t, s + 7 * sizeof(int)), 1, MPI_INT,
                         MPI_SUM, win));
    MT_OK(MPI_Fetch_and_op(NULL, &old, MPI_INT, t, at(t, s + 7 * sizeof(int)), MPI_NO_OP, win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_EQ(old, val(rank, 7) + 3 + 1 + 5);
}

static void order_ints_check(const int *slot, int origin)
{
    for (long i = 0; i < NB; ++i) {
        int e = i >= 100 && i < 104 ? -7 - (int)(i - 100) + 1 : val(origin, i) + 3 + 1;

        e += i == 7 ? 5 : 0;
        if (slot[i] != e) {
            MT_FAIL("order: origin %d element %ld is %d, expected %d", origin, i, slot[i], e);
        }
    }
}

static double dval(int o, long i, int second)
{
    return second ? (double)((i * 7 + o) % 101) - 50.0 : (double)((i * 13 + o) % 97) - 48.0;
}

static void order_doubles(MPI_Win win, int t, double *d0, double *d1)
{
    size_t s = slot_of(rank) + NB * sizeof(int);

    for (long i = 0; i < NBD; ++i) {
        d0[i] = dval(rank, i, 0);
        d1[i] = dval(rank, i, 1);
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_OK(MPI_Accumulate(d0, NBD, MPI_DOUBLE, t, at(t, s), NBD, MPI_DOUBLE, MPI_REPLACE, win));
    MT_OK(MPI_Accumulate(d1, NBD, MPI_DOUBLE, t, at(t, s), NBD, MPI_DOUBLE, MPI_MAX, win));
    MT_OK(MPI_Win_unlock(t, win));
}

/* the doubles sit 4 bytes off alignment in the window (the target's
 * bounce path): read them with memcpy */
static void order_doubles_check(const unsigned char *mem, int origin)
{
    const unsigned char *d = mem + slot_of(origin) + NB * sizeof(int);

    for (long i = 0; i < NBD; ++i) {
        double a = dval(origin, i, 0), b = dval(origin, i, 1), e = a > b ? a : b, v;

        memcpy(&v, d + i * sizeof(double), sizeof(v));
        if (v != e) {
            MT_FAIL("order (MAX): origin %d element %ld is %g, expected %g", origin, i, v, e);
        }
    }
}

/*
 * The copying path beside the direct one: a direct REPLACE then a REPLACE
 * from a vector origin (every other int of a 2*NB buffer) of other values,
 * then an Raccumulate SUM of ones (copying) and a direct SUM of twos.
 */
static void order_copying(MPI_Win win, int t, int *a, int *wide, int *ones)
{
    size_t s = slot_of(rank);
    MPI_Datatype vec;
    MPI_Request rq;

    for (long i = 0; i < NB; ++i) {
        a[i] = 11;
        wide[2 * i] = val(rank, i);
        wide[2 * i + 1] = -1;
        ones[i] = 1;
    }
    MT_OK(MPI_Type_vector(NB, 1, 2, MPI_INT, &vec));
    MT_OK(MPI_Type_commit(&vec));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_OK(MPI_Accumulate(a, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_REPLACE, win));
    MT_OK(MPI_Accumulate(wide, 1, vec, t, at(t, s), NB, MPI_INT, MPI_REPLACE, win));
    MT_OK(MPI_Raccumulate(ones, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_SUM, win, &rq));
    MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (long i = 0; i < NB; ++i) {
        ones[i] = 2;   /* the Raccumulate's buffer is free after its wait */
    }
    MT_OK(MPI_Accumulate(ones, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_OK(MPI_Type_free(&vec));
}

static void order_copying_check(const int *slot, int origin)
{
    for (long i = 0; i < NB; ++i) {
        if (slot[i] != val(origin, i) + 3) {
            MT_FAIL("order (copying): origin %d element %ld is %d, expected %d", origin, i,
                    slot[i], val(origin, i) + 3);
        }
    }
}

static void test_order(MPI_Win win, unsigned char *mem)
{
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    int *a = malloc(NB * sizeof(int)), *b = malloc(NB * sizeof(int));
    int *ones = malloc(NB * sizeof(int)), *wide = malloc(2 * NB * sizeof(int));
    double *d0 = malloc(NBD * sizeof(double)), *d1 = malloc(NBD * sizeof(double));
    const int *slot = (const int *)(const void *)(mem + slot_of(from));

    MT_CHECK(a != NULL && b != NULL && ones != NULL && wide != NULL && d0 != NULL &&
             d1 != NULL);
    order_ints(win, t, a, b, ones);
    order_doubles(win, t, d0, d1);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    order_ints_check(slot, from);
    order_doubles_check(mem, from);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    order_copying(win, t, a, wide, ones);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    order_copying_check(slot, from);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(a);
    free(b);
    free(ones);
    free(wide);
    free(d0);
    free(d1);
}

/* ---- range ---- */

static void test_range(MPI_Win win, unsigned char *mem, int dyn)
{
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    int *src = malloc(NB * sizeof(int));
    size_t s = slot_of(rank), far = win_bytes + 8192;
    const int *slot = (const int *)(const void *)(mem + slot_of(from));

    MT_CHECK(src != NULL);
    for (long i = 0; i < NB; ++i) {
        src[i] = 2;
    }
    memset(mem + slot_of(from), 0, NB * sizeof(int));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MT_OK(MPI_Accumulate(src, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_SUM, win));
    if (dyn) {
        /* outside the attached memory: the target finds it */
        MT_OK(MPI_Accumulate(src, NB, MPI_INT, t, at(t, far), NB, MPI_INT, MPI_SUM, win));
        MT_OK(MPI_Accumulate(src, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_SUM, win));
        MT_ERR(MPI_Win_flush(t, win), MPI_ERR_RMA_RANGE);
    } else {
        /* past the window's end: refused at the call, nothing sent */
        MT_ERR(MPI_Accumulate(src, NB, MPI_INT, t, at(t, win_bytes - 4), NB, MPI_INT, MPI_SUM,
                              win), MPI_ERR_RMA_RANGE);
        MT_OK(MPI_Accumulate(src, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_SUM, win));
        MT_OK(MPI_Win_flush(t, win));
    }
    MT_OK(MPI_Accumulate(src, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Win_unlock(t, win));   /* the next flush is clean */
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (long i = 0; i < NB; ++i) {
        if (slot[i] != 6) {
            MT_FAIL("range: origin %d element %ld is %d, expected 6", from, i, slot[i]);
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(src);
}

/* ---- fault ---- */

static void test_fault(MPI_Win win, unsigned char *mem, int every, int rounds)
{
    int t = (rank + 1) % size;
    int *src = malloc(NB * sizeof(int)), *got = malloc(NB * sizeof(int)), model = 0;
    size_t s = slot_of(rank);

    MT_CHECK(src != NULL && got != NULL);
    memset(mem + slot_of((rank + size - 1) % size), 0, NB * sizeof(int));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock_all(0, win));
    for (int r = 1; r <= rounds; ++r) {
        int fails = r % every == 0;

        for (long i = 0; i < NB; ++i) {
            src[i] = r;
        }
        MT_OK(MPI_Accumulate(src, NB, MPI_INT, t, at(t, s), NB, MPI_INT, MPI_SUM, win));
        if (fails) {
            MT_ERR(MPI_Win_flush(t, win), MPI_ERR_NO_MEM);
        } else {
            MT_OK(MPI_Win_flush(t, win));
            model += r;
        }
        MT_OK(MPI_Get(got, NB, MPI_INT, t, at(t, s), NB, MPI_INT, win));
        MT_OK(MPI_Win_flush(t, win));
        for (long i = 0; i < NB; ++i) {
            if (got[i] != model) {
                MT_FAIL("fault: round %d element %ld is %d, expected %d", r, i, got[i], model);
            }
        }
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(src);
    free(got);
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "create";
    int k = argc > 2 ? atoi(argv[2]) : 10, every = argc > 3 ? atoi(argv[3]) : 0, dyn;
    unsigned char *mem = NULL;
    MPI_Aint mine = 0;
    MPI_Win win;

    MT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 1 && size <= 16 && k > 0 && every >= 0);
    dyn = strcmp(flavor, "dynamic") == 0;
    win_bytes = SLOT_OFF + (size_t)size * SLOT;
    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate((MPI_Aint)win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                               &win));
    } else {
        MT_CHECK((mem = malloc(win_bytes)) != NULL);
        if (dyn) {
            MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            MT_OK(MPI_Win_attach(win, mem, (MPI_Aint)win_bytes));
            MT_OK(MPI_Get_address(mem, &mine));
        } else {
            MT_OK(MPI_Win_create(mem, (MPI_Aint)win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &win));
        }
    }
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_CHECK((addrs = calloc((size_t)size, sizeof(*addrs))) != NULL);
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    if (every > 0 && size > 1) {
        test_fault(win, mem, every, 3 * every + 1);
    } else if (every == 0) {
        test_sum(win, mem, k, 0);
        test_sum(win, mem, k, 1);
        test_order(win, mem);
        if (size > 1) {
            test_range(win, mem, dyn);
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
    MT_PASS("mpi_rma_s18");
    MPI_Finalize();
    return 0;
}
