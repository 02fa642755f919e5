/*
 * mpi_rma_rev15.c: the review of session 15's one-sided shortcuts: small
 * puts and accumulates built on the stack (rma_ops.c loom_rma_op_am_small,
 * loom_rma_acc_contig_am), short integer accumulates applied element by
 * element at the target (rma_apply.c loom_rma_apply_elems) and the
 * progress hook's idle pass (rma_am.c). Each case holds the shortcut to
 * what the general path (loom_rma_op_general) enforces, with exact data.
 *
 *   errs    ops not defined on the type (MPI_BAND on float, through the
 *           binding's contiguous entry and through a derived contiguous
 *           target type) fail at the origin with MPI_ERR_OP and nothing
 *           lands; negative and overflowing displacements, a put past the
 *           end and one to a rank whose window is empty fail
 *           MPI_ERR_RMA_RANGE; an origin/target size mismatch fails
 *           MPI_ERR_TYPE; outside an epoch MPI_ERR_RMA_SYNC; MPI_PROC_NULL
 *           succeeds and moves nothing.
 *   data    exact data through the shortcuts: accumulates to this rank
 *           itself, MPI_REPLACE and MPI_NO_OP, int32/int64 SUMs of 2..8
 *           elements at odd byte displacements (disp unit 1: unaligned at
 *           the target), a target type whose true lower bound is
 *           negative, a dynamic window (also addressed from MPI_BOTTOM, and
 *           operations of no bytes at address 0).
 *   order   per origin, small (batched) accumulates against large ones (a
 *           request of its own) and MPI_REPLACE on the same words, in one
 *           epoch without flushes: MPI's default accumulate ordering makes
 *           the final value exact.
 *   passive rank 0 targets rank 1, which waits in MPI_Test of a receive
 *           only rank 0's last message completes: the idle hook must
 *           still serve every lock, accumulate and unlock (a hang is the
 *           failure; the driver's timeout catches it).
 *
 *   mt      MPI_THREAD_MULTIPLE: two threads per rank issue small
 *           accumulates and puts (the stack-built requests) to every
 *           rank at once, flushing now and then; exact sums (TSan build:
 *           no race reported).
 *
 * usage: mpi_rma_rev15 errs|data|order|passive|mt [create|allocate]
 */
#include "mpi_test_util.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

static int rank, size;

enum { WBYTES = 4096, NBIG = 1024 };

/* a window of @p bytes at this rank (unit @p unit), zeroed, errors returned */
static MPI_Win win_make(const char *flavor, MPI_Aint bytes, int unit, char **mem_p)
{
    MPI_Win w;
    char *m = NULL;

    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &w));
    } else {
        MT_CHECK((m = calloc(1, bytes > 0 ? (size_t)bytes : 1)) != NULL);
        MT_OK(MPI_Win_create(bytes > 0 ? m : NULL, bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD,
                             &w));
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w));
    if (bytes > 0) {
        memset(m, 0, (size_t)bytes);
    }
    MT_OK(MPI_Win_unlock(rank, w));
    MT_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    *mem_p = m;
    return w;
}

static void win_done(const char *flavor, MPI_Win *w, char *m)
{
    MT_OK(MPI_Win_free(w));
    if (strcmp(flavor, "allocate") != 0) {
        free(m);
    }
}

/* every byte of this rank's window is 0 (nothing landed) */
static void all_zero(MPI_Win w, const char *m, size_t bytes, const char *what)
{
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w));
    for (size_t k = 0; k < bytes; ++k) {
        if (m[k] != 0) {
            MT_FAIL("%s: byte %zu of rank %d's window is %d, expected 0", what, k, rank,
                    m[k]);
        }
    }
    MT_OK(MPI_Win_unlock(rank, w));
}

static void test_errs(const char *flavor)
{
    int t = (rank + 1) % size, tb = t == 1 ? (t + 1) % size : t;
    char *m;
    /* rank 1 exposes nothing (a zero-size window) */
    MPI_Aint bytes = rank == 1 ? 0 : WBYTES;
    MPI_Win w = win_make(flavor, bytes, 8, &m);
    float f[2] = { 1.0f, 2.0f };
    int64_t one[4] = { 1, 1, 1, 1 };
    MPI_Datatype f2;

    MT_OK(MPI_Type_contiguous(2, MPI_FLOAT, &f2));
    MT_OK(MPI_Type_commit(&f2));
    MT_ERR(MPI_Accumulate(one, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, w),
           MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Put(one, 2, MPI_INT64_T, t, 0, 2, MPI_INT64_T, w), MPI_ERR_RMA_SYNC);
    MT_OK(MPI_Win_lock_all(0, w));
    /* an op not defined on the type: refused here, not at the target (one whose
     * window holds the bytes: which of two errors wins is not this case) */
    MT_ERR(MPI_Accumulate(f, 1, MPI_FLOAT, tb, 0, 1, MPI_FLOAT, MPI_BAND, w), MPI_ERR_OP);
    MT_ERR(MPI_Accumulate(f, 2, MPI_FLOAT, tb, 0, 1, f2, MPI_BAND, w), MPI_ERR_OP);
    MT_ERR(MPI_Accumulate(f, 2, MPI_FLOAT, tb, 0, 2, MPI_FLOAT, MPI_LXOR, w), MPI_ERR_OP);
    /* ranges: negative, wrapping past 64 bits, past the end */
    MT_ERR(MPI_Accumulate(one, 1, MPI_INT64_T, t, -1, 1, MPI_INT64_T, MPI_SUM, w),
           MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Put(one, 2, MPI_INT64_T, t, -1, 2, MPI_INT64_T, w), MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Accumulate(one, 1, MPI_INT64_T, t, (MPI_Aint)(((uint64_t)1 << 61)), 1,
                          MPI_INT64_T, MPI_SUM, w), MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Put(one, 2, MPI_INT64_T, t, (MPI_Aint)(((uint64_t)1 << 61)), 2, MPI_INT64_T, w),
           MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Accumulate(one, 2, MPI_INT64_T, t, WBYTES / 8 - 1, 2, MPI_INT64_T, MPI_SUM, w),
           MPI_ERR_RMA_RANGE);
    if (t == 1) {   /* an empty window: every byte is out of range */
        MT_ERR(MPI_Put(one, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, w), MPI_ERR_RMA_RANGE);
        MT_ERR(MPI_Accumulate(one, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, w),
               MPI_ERR_RMA_RANGE);
    }
    /* nothing to move: no error, even at an empty window */
    MT_OK(MPI_Put(one, 0, MPI_INT64_T, t, 0, 0, MPI_INT64_T, w));
    MT_OK(MPI_Accumulate(one, 0, MPI_INT64_T, t, 0, 0, MPI_INT64_T, MPI_SUM, w));
    MT_OK(MPI_Win_flush(t, w));
    /* origin and target sizes differ */
    MT_ERR(MPI_Put(one, 3, MPI_INT64_T, t, 0, 2, MPI_INT64_T, w), MPI_ERR_TYPE);
    /* MPI_PROC_NULL: nothing moves, no error */
    MT_OK(MPI_Put(one, 2, MPI_INT64_T, MPI_PROC_NULL, 0, 2, MPI_INT64_T, w));
    MT_OK(MPI_Accumulate(one, 2, MPI_INT64_T, MPI_PROC_NULL, 0, 2, MPI_INT64_T, MPI_SUM, w));
    MT_OK(MPI_Win_flush_all(w));
    MT_OK(MPI_Win_unlock_all(w));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    all_zero(w, m, (size_t)bytes, "errs");
    MT_OK(MPI_Type_free(&f2));
    win_done(flavor, &w, m);
}

/* odd-displacement int32/int64 SUMs of 2..8 elements into @p t's slot of this rank */
static void data_unaligned(MPI_Win w, int t, int64_t *e64, int32_t *e32)
{
    MPI_Aint slot = (MPI_Aint)rank * 256;

    for (int n = 2; n <= 8; ++n) {
        int64_t a[8];
        int32_t b[8];

        for (int k = 0; k < n; ++k) {
            a[k] = (int64_t)(n * 1000 + k) << 33 | (int64_t)(rank + 1);
            b[k] = n * 100 + k + rank;
            e64[k] += a[k];
            e32[k] += b[k];
        }
        MT_OK(MPI_Accumulate(a, n, MPI_INT64_T, t, slot + 1, n, MPI_INT64_T, MPI_SUM, w));
        MT_OK(MPI_Accumulate(b, n, MPI_INT32_T, t, slot + 1 + 64 + 2, n, MPI_INT32_T,
                             MPI_SUM, w));
    }
}

/* the slot at @p t matches the expected sums (read back by a get) */
static void data_check_slot(MPI_Win w, int t, const int64_t *e64, const int32_t *e32)
{
    unsigned char back[256];

    MT_OK(MPI_Get(back, 256, MPI_BYTE, t, (MPI_Aint)rank * 256, 256, MPI_BYTE, w));
    MT_OK(MPI_Win_flush(t, w));
    for (int k = 0; k < 8; ++k) {
        int64_t v64;
        int32_t v32;

        memcpy(&v64, back + 1 + 8 * k, 8);
        memcpy(&v32, back + 1 + 64 + 2 + 4 * k, 4);
        if (v64 != e64[k] || v32 != e32[k]) {
            MT_FAIL("rank %d's slot at %d, element %d: int64 %lld (expected %lld), int32 %d "
                    "(expected %d)", rank, t, k, (long long)v64, (long long)e64[k], v32,
                    e32[k]);
        }
    }
}

/* MPI_REPLACE then MPI_NO_OP (a get-accumulate) through the small path */
static void data_replace(MPI_Win w, int t)
{
    MPI_Aint at = (MPI_Aint)size * 256 + (MPI_Aint)rank * 16;
    int64_t v[2] = { 7 + rank, -3 - rank }, got[2] = { 0, 0 };

    MT_OK(MPI_Accumulate(v, 2, MPI_INT64_T, t, at, 2, MPI_INT64_T, MPI_SUM, w));
    MT_OK(MPI_Accumulate(v, 2, MPI_INT64_T, t, at, 2, MPI_INT64_T, MPI_REPLACE, w));
    MT_OK(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, got, 2, MPI_INT64_T, t, at, 2,
                             MPI_INT64_T, MPI_NO_OP, w));
    MT_OK(MPI_Win_flush(t, w));
    MT_EQ(got[0], v[0]);
    MT_EQ(got[1], v[1]);
}

/* a put through a target type whose true lower bound is -8 (bytes) */
static void data_neg_lb(MPI_Win w, int t)
{
    MPI_Aint at = (MPI_Aint)size * 256 + (MPI_Aint)size * 16 + (MPI_Aint)rank * 32 + 8;
    MPI_Aint displ = -8;
    int blen = 16;
    unsigned char src[16], back[32];
    MPI_Datatype tt;

    for (int k = 0; k < 16; ++k) {
        src[k] = (unsigned char)(rank * 16 + k + 1);
    }
    MT_OK(MPI_Type_create_hindexed(1, &blen, &displ, MPI_BYTE, &tt));
    MT_OK(MPI_Type_commit(&tt));
    MT_OK(MPI_Put(src, 16, MPI_BYTE, t, at, 1, tt, w));
    MT_OK(MPI_Win_flush(t, w));
    MT_OK(MPI_Get(back, 32, MPI_BYTE, t, at - 8, 32, MPI_BYTE, w));
    MT_OK(MPI_Win_flush(t, w));
    for (int k = 0; k < 32; ++k) {
        unsigned char want = k < 16 ? src[k] : 0;

        if (back[k] != want) {
            MT_FAIL("negative lb: byte %d at rank %d is %u, expected %u", k, t, back[k], want);
        }
    }
    MT_OK(MPI_Type_free(&tt));
}

/*
 * A dynamic window addressed from MPI_BOTTOM: target_disp 0, the addresses
 * in the target type (at the next rank and at this one), and operations of
 * no bytes at address 0: none is out of range.
 */
static void data_bottom(MPI_Win w, int64_t *mem, const MPI_Aint *addr)
{
    int t = (rank + 1) % size, blen = 1;
    int64_t v = 100 + rank, mine = 77 + rank;
    MPI_Aint at = addr[t] + rank * 16, self;
    MPI_Datatype tt, ts;

    MT_OK(MPI_Get_address(mem + 2 * size, &self));
    MT_OK(MPI_Type_create_hindexed(1, &blen, &at, MPI_INT64_T, &tt));
    MT_OK(MPI_Type_create_hindexed(1, &blen, &self, MPI_INT64_T, &ts));
    MT_OK(MPI_Type_commit(&tt));
    MT_OK(MPI_Type_commit(&ts));
    MT_OK(MPI_Accumulate(&v, 1, MPI_INT64_T, t, 0, 1, tt, MPI_SUM, w));
    MT_OK(MPI_Put(&mine, 1, MPI_INT64_T, rank, 0, 1, ts, w));
    MT_OK(MPI_Put(&v, 0, MPI_INT64_T, t, 0, 0, MPI_INT64_T, w));
    MT_OK(MPI_Put(&v, 0, MPI_INT64_T, rank, 0, 0, MPI_INT64_T, w));
    MT_OK(MPI_Win_flush_all(w));
    MT_OK(MPI_Type_free(&tt));
    MT_OK(MPI_Type_free(&ts));
}

static void data_dynamic(void)
{
    int64_t *mem = calloc(2 * (size_t)size + 1, sizeof(int64_t));
    MPI_Aint *addr = malloc((size_t)size * sizeof(MPI_Aint)), mine;
    int t = (rank + 1) % size;
    int64_t v[2] = { 5 + rank, 11 };
    MPI_Win w;

    MT_CHECK(mem != NULL && addr != NULL);
    MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MT_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    MT_OK(MPI_Win_attach(w, mem, (2 * (MPI_Aint)size + 1) * (MPI_Aint)sizeof(int64_t)));
    MT_OK(MPI_Get_address(mem, &mine));
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock_all(0, w));
    MT_OK(MPI_Accumulate(v, 2, MPI_INT64_T, t, addr[t] + rank * 16, 2, MPI_INT64_T, MPI_SUM,
                         w));
    MT_OK(MPI_Accumulate(v, 2, MPI_INT64_T, t, addr[t] + rank * 16, 2, MPI_INT64_T, MPI_SUM,
                         w));
    data_bottom(w, mem, addr);
    MT_OK(MPI_Win_unlock_all(w));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w));
    for (int o = 0; o < size; ++o) {
        if ((o + 1) % size == rank) {
            MT_EQ(mem[2 * o], 2 * (5 + o) + 100 + o);
            MT_EQ(mem[2 * o + 1], 22);
        }
    }
    MT_EQ(mem[2 * size], 77 + rank);
    MT_OK(MPI_Win_unlock(rank, w));
    MT_OK(MPI_Win_detach(w, mem));
    MT_OK(MPI_Win_free(&w));
    free(mem);
    free(addr);
}

static void test_data(const char *flavor)
{
    char *m;
    MPI_Win w = win_make(flavor, WBYTES, 1, &m);

    MT_OK(MPI_Win_lock_all(0, w));
    for (int t = 0; t < size; ++t) {   /* t == rank: this rank itself */
        int64_t e64[8] = { 0 };
        int32_t e32[8] = { 0 };

        data_unaligned(w, t, e64, e32);
        MT_OK(MPI_Win_flush(t, w));
        data_check_slot(w, t, e64, e32);
        data_replace(w, t);
        data_neg_lb(w, t);
    }
    MT_OK(MPI_Win_unlock_all(w));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    win_done(flavor, &w, m);
    data_dynamic();
}

/* small SUM, large SUM (a request of its own) and REPLACE on the same words, no flush */
static void test_order(const char *flavor)
{
    char *m;
    MPI_Win w = win_make(flavor, (MPI_Aint)size * NBIG * 8, 8, &m);
    int64_t *big = calloc(NBIG, sizeof(int64_t)), small[4], back[NBIG];
    int t = (rank + 1) % size;
    MPI_Aint at = (MPI_Aint)rank * NBIG;

    MT_CHECK(big != NULL);
    for (int k = 0; k < NBIG; ++k) {
        big[k] = k + 1;
    }
    MT_OK(MPI_Win_lock_all(0, w));
    for (int r = 0; r < 20; ++r) {
        for (int k = 0; k < 4; ++k) {
            small[k] = 1000 * r + k;
        }
        MT_OK(MPI_Accumulate(small, 4, MPI_INT64_T, t, at, 4, MPI_INT64_T, MPI_REPLACE, w));
        MT_OK(MPI_Accumulate(big, NBIG, MPI_INT64_T, t, at, NBIG, MPI_INT64_T, MPI_SUM, w));
        MT_OK(MPI_Accumulate(small, 2, MPI_INT64_T, t, at + 1, 2, MPI_INT64_T, MPI_SUM, w));
    }
    MT_OK(MPI_Win_flush(t, w));
    MT_OK(MPI_Get(back, NBIG, MPI_INT64_T, t, at, NBIG, MPI_INT64_T, w));
    MT_OK(MPI_Win_flush(t, w));
    MT_OK(MPI_Win_unlock_all(w));
    /* word k: the last REPLACE, + (k + 1) of the last large SUM, words 1 and 2 + the
     * last small SUM's small[0] and small[1]; past word 3: 20 large SUMs */
    for (int k = 0; k < 8; ++k) {
        int64_t want = k >= 4 ? 20 * (int64_t)(k + 1)
                              : small[k] + k + 1 + (k == 1 ? small[0] : k == 2 ? small[1] : 0);

        if (back[k] != want) {
            MT_FAIL("order: word %d at rank %d is %lld, expected %lld", k, t,
                    (long long)back[k], (long long)want);
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(big);
    win_done(flavor, &w, m);
}

/* rank 1 only tests a receive while rank 0 locks, accumulates and unlocks at it */
static void test_passive(const char *flavor)
{
    char *m;
    MPI_Win w = win_make(flavor, 64, 8, &m);
    int64_t v[2] = { 3, 4 };
    int token = 0, done = 0;

    if (rank == 0 && size > 1) {
        for (int r = 0; r < 200; ++r) {
            MT_OK(MPI_Win_lock(r % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, 1, 0, w));
            MT_OK(MPI_Accumulate(v, 2, MPI_INT64_T, 1, 0, 2, MPI_INT64_T, MPI_SUM, w));
            MT_OK(MPI_Win_unlock(1, w));
        }
        MT_OK(MPI_Send(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
    } else if (rank == 1) {
        MPI_Request rq;

        MT_OK(MPI_Irecv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq));
        while (!done) {
            MT_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
        }
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w));
        MT_EQ(((int64_t *)(void *)m)[0], 600);
        MT_EQ(((int64_t *)(void *)m)[1], 800);
        MT_OK(MPI_Win_unlock(1, w));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    win_done(flavor, &w, m);
}

enum { MT_THREADS = 2, MT_OPS = 300 };

typedef struct { MPI_Win w; int id; } mt_arg_t;

/* one thread: small accumulates (the stack-built request) to every rank, puts to its own slot */
static void *mt_thread(void *p)
{
    const mt_arg_t *a = p;
    int64_t v[2] = { 1, (int64_t)a->id + 2 };

    for (int i = 0; i < MT_OPS; ++i) {
        int t = (rank + i) % size;
        int64_t mark = (int64_t)i;

        MT_OK(MPI_Accumulate(v, 2, MPI_INT64_T, t, 0, 2, MPI_INT64_T, MPI_SUM, a->w));
        MT_OK(MPI_Put(&mark, 1, MPI_INT64_T, t, 2 + rank * MT_THREADS + a->id, 1, MPI_INT64_T,
                      a->w));
        if (i % 7 == 0) {
            MT_OK(MPI_Win_flush(t, a->w));
        }
    }
    return NULL;
}

/* MPI_THREAD_MULTIPLE: two threads per rank through the shortcuts at once, exact sums */
static void test_mt(const char *flavor)
{
    char *m;
    MPI_Win w = win_make(flavor, (2 + (MPI_Aint)size * MT_THREADS) * 8, 8, &m);
    mt_arg_t a[MT_THREADS];
    pthread_t th[MT_THREADS];
    const int64_t *words = (const int64_t *)(const void *)m;
    int64_t per = 0;

    MT_OK(MPI_Win_lock_all(0, w));
    for (int i = 0; i < MT_THREADS; ++i) {
        a[i] = (mt_arg_t){ w, i };
        MT_CHECK(pthread_create(&th[i], NULL, mt_thread, &a[i]) == 0);
    }
    for (int i = 0; i < MT_THREADS; ++i) {
        MT_CHECK(pthread_join(th[i], NULL) == 0);
    }
    MT_OK(MPI_Win_unlock_all(w));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* per origin thread, the operations that reached this rank */
    for (int o = 0; o < size; ++o) {
        for (int i = 0; i < MT_OPS; ++i) {
            per += (o + i) % size == rank;
        }
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w));
    MT_EQ(words[0], per * MT_THREADS);
    MT_EQ(words[1], per * (2 + 3));   /* ids 0 and 1 add 2 and 3 */
    MT_OK(MPI_Win_unlock(rank, w));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    win_done(flavor, &w, m);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *flavor = argc > 2 ? argv[2] : "create";
    int provided = 0;

    if (strcmp(mode, "mt") == 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        MT_EQ(provided, MPI_THREAD_MULTIPLE);
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 2 && size <= 8);
    if (strcmp(mode, "errs") == 0) {
        test_errs(flavor);
    } else if (strcmp(mode, "data") == 0) {
        test_data(flavor);
    } else if (strcmp(mode, "order") == 0) {
        test_order(flavor);
    } else if (strcmp(mode, "passive") == 0) {
        test_passive(flavor);
    } else if (strcmp(mode, "mt") == 0) {
        test_mt(flavor);
    } else {
        MT_FAIL("unknown mode '%s'", mode);
    }
    MT_PASS("mpi_rma_rev15");
    MPI_Finalize();
    return 0;
}
