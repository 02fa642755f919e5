/*
 * mpi_rma_ib.c: one-sided communication as the verbs (RDMA) windows of
 * rma/rma_ib.c run it, checked exactly. The same program runs over every
 * transport (test_mpi_rma_ib.sh on the host: shared memory and the
 * active-message fallback over tcp; test/verbs/run.sh in the soft-RoCE
 * guest over self,ib, where it goes by RDMA write/read and atomics), and
 * must give the same answers everywhere.
 *
 *   mpi_rma_ib [iters] [noprogress]
 *
 * Sections (Win_create and Win_allocate each):
 *   - every accumulate op on 8-byte elements (MPI_INT64_T, MPI_UINT64_T,
 *     MPI_LONG, MPI_DOUBLE) by Fetch_and_op, Get_accumulate and
 *     Accumulate, to another rank and to itself, against a model: SUM on
 *     integers is a fetch-add, NO_OP a fetch-add of 0, the others a
 *     compare-swap loop; Compare_and_swap hit and miss;
 *   - the same on MPI_INT (active messages on an RDMA window) and on an
 *     int64 at a 4-byte aligned displacement (not atomic-capable: it must
 *     fall back to messages and still be right);
 *   - contention: every rank adds to rank 0 by Accumulate(SUM, int64),
 *     MAX by Fetch_and_op, SUM on a double (compare-swap loop) under
 *     lock_all, iters times; the totals must be exact;
 *   - put/get: contiguous sizes 8 B .. 1.5 MiB (past one RDMA chunk) and a
 *     vector type on either side, under lock/flush, every byte checked;
 *     Rput/Rget;
 *   - exclusive lock contention: get, +1, put under MPI_LOCK_EXCLUSIVE by
 *     every rank, iters times; no lost update;
 *   - with "noprogress": rank 0 makes no MPI call while the others lock
 *     it exclusively, fetch-and-add and compare-swap its counters and put
 *     a flag; over RDMA no target thread is needed.
 */
#include "mpi_win_kinds.h"

#include <stdint.h>
#include <string.h>

static int rank, size;

static MPI_Win make_win(int create, size_t bytes, int unit, void **base_p)
{
    return win_make(create, bytes, unit, base_p);
}

static void free_win(int create, MPI_Win *win, void *base)
{
    MT_OK(MPI_Win_free(win));
    if (create) {
        free(base);
    }
}

/* ---- accumulate ops on one element, against a model ---- */

typedef struct opcase {
    MPI_Op op;
    const char *name;
} opcase_t;

static const opcase_t int_ops[] = {
    { MPI_SUM, "SUM" }, { MPI_PROD, "PROD" }, { MPI_MAX, "MAX" }, { MPI_MIN, "MIN" },
    { MPI_BAND, "BAND" }, { MPI_BOR, "BOR" }, { MPI_BXOR, "BXOR" }, { MPI_LAND, "LAND" },
    { MPI_LOR, "LOR" }, { MPI_LXOR, "LXOR" }, { MPI_REPLACE, "REPLACE" },
    { MPI_NO_OP, "NO_OP" },
};

static int64_t model_i(MPI_Op op, int64_t t, int64_t o)
{
    if (op == MPI_SUM) return (int64_t)((uint64_t)t + (uint64_t)o);
    if (op == MPI_PROD) return (int64_t)((uint64_t)t * (uint64_t)o);
    if (op == MPI_MAX) return t > o ? t : o;
    if (op == MPI_MIN) return t < o ? t : o;
    if (op == MPI_BAND) return t & o;
    if (op == MPI_BOR) return t | o;
    if (op == MPI_BXOR) return t ^ o;
    if (op == MPI_LAND) return t && o;
    if (op == MPI_LOR) return t || o;
    if (op == MPI_LXOR) return !t != !o;
    if (op == MPI_REPLACE) return o;
    return t;   /* NO_OP */
}

static uint64_t model_u(MPI_Op op, uint64_t t, uint64_t o)
{
    if (op == MPI_MAX) return t > o ? t : o;
    if (op == MPI_MIN) return t < o ? t : o;
    return (uint64_t)model_i(op, (int64_t)t, (int64_t)o);
}

/*
 * Rank 1 (or rank 0 on itself when alone, and rank 0 on itself too)
 * applies each op to slot i of target @p t with Fetch_and_op, then
 * Get_accumulate, then Accumulate; checks the fetched values and the
 * final target value. The slots hold distinct starting values.
 */
static void check_int_ops(MPI_Win win, int64_t *mem, MPI_Datatype dt, int is_unsigned, int t)
{
    size_t nops = sizeof(int_ops) / sizeof(int_ops[0]);
    int origin = size > 1 ? (t == 0 ? 1 : 0) : 0;

    for (size_t i = 0; i < nops; ++i) {
        mem[i] = -5 - 3 * (int64_t)i;   /* negative: MAX/MIN differ signed vs unsigned */
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == origin) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        for (size_t i = 0; i < nops; ++i) {
            int64_t o = (int64_t)(7 + 5 * i), res = 0, want = -5 - 3 * (int64_t)i, res2 = 0;
            MPI_Op op = int_ops[i].op;

            MT_OK(MPI_Fetch_and_op(&o, &res, dt, t, (MPI_Aint)i, op, win));
            MT_OK(MPI_Win_flush(t, win));
            if (res != want) {
                MT_FAIL("Fetch_and_op %s: fetched %lld, want %lld", int_ops[i].name,
                        (long long)res, (long long)want);
            }
            want = is_unsigned ? (int64_t)model_u(op, (uint64_t)want, (uint64_t)o)
                               : model_i(op, want, o);
            MT_OK(MPI_Get_accumulate(&o, 1, dt, &res2, 1, dt, t, (MPI_Aint)i, 1, dt, op, win));
            MT_OK(MPI_Win_flush(t, win));
            if (res2 != want) {
                MT_FAIL("Get_accumulate %s: fetched %lld, want %lld", int_ops[i].name,
                        (long long)res2, (long long)want);
            }
            want = is_unsigned ? (int64_t)model_u(op, (uint64_t)want, (uint64_t)o)
                               : model_i(op, want, o);
            if (op != MPI_NO_OP) {
                MT_OK(MPI_Accumulate(&o, 1, dt, t, (MPI_Aint)i, 1, dt, op, win));
                want = is_unsigned ? (int64_t)model_u(op, (uint64_t)want, (uint64_t)o)
                                   : model_i(op, want, o);
            }
            MT_OK(MPI_Win_flush(t, win));
            MT_OK(MPI_Get(&res, 1, dt, t, (MPI_Aint)i, 1, dt, win));
            MT_OK(MPI_Win_flush(t, win));
            if (res != want) {
                MT_FAIL("after %s x3 on rank %d: %lld, want %lld", int_ops[i].name, t,
                        (long long)res, (long long)want);
            }
        }
        MT_OK(MPI_Win_unlock(t, win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_cas(MPI_Win win, int64_t *mem, int t)
{
    int origin = size > 1 ? (t == 0 ? 1 : 0) : 0;
    int64_t v = 42, cmp = 9, old = -1, got = 0;
    double dv = 2.5, dcmp = 1.25, dold = 0, *dmem = (double *)(void *)(mem + 1);

    mem[0] = 9;
    *dmem = 1.25;
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == origin) {
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        MT_OK(MPI_Compare_and_swap(&v, &cmp, &old, MPI_INT64_T, t, 0, win));   /* hit */
        MT_OK(MPI_Win_flush(t, win));
        MT_EQ(old, 9);
        MT_OK(MPI_Compare_and_swap(&cmp, &cmp, &old, MPI_INT64_T, t, 0, win)); /* miss */
        MT_OK(MPI_Win_flush(t, win));
        MT_EQ(old, 42);
        MT_OK(MPI_Compare_and_swap(&dv, &dcmp, &dold, MPI_DOUBLE, t, 1, win));
        MT_OK(MPI_Win_flush(t, win));
        MT_CHECK(dold == 1.25);
        MT_OK(MPI_Get(&got, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
        MT_OK(MPI_Get(&dold, 1, MPI_DOUBLE, t, 1, 1, MPI_DOUBLE, win));
        MT_OK(MPI_Win_unlock(t, win));
        MT_EQ(got, 42);
        MT_CHECK(dold == 2.5);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* double ops by the compare-swap loop, and MPI_INT / misaligned int64 by messages */
static void check_other_types(MPI_Win win, int64_t *mem, int t, int create)
{
    int origin = size > 1 ? (t == 0 ? 1 : 0) : 0;
    double *d = (double *)(void *)mem, dres = 0, two = 2.0;
    int *ip = (int *)(void *)(mem + 8), one = 1, ires = 0;   /* disp 8 units of 8 B */
    int64_t m = 0, mres = 0, three = 3;
    MPI_Win bw;
    void *bbase;

    d[0] = 1.5;
    ip[0] = 10;
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == origin) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        MT_OK(MPI_Fetch_and_op(&two, &dres, MPI_DOUBLE, t, 0, MPI_SUM, win));
        MT_OK(MPI_Accumulate(&two, 1, MPI_DOUBLE, t, 0, 1, MPI_DOUBLE, MPI_PROD, win));
        MT_OK(MPI_Fetch_and_op(&one, &ires, MPI_INT, t, 8, MPI_SUM, win));   /* int units */
        MT_OK(MPI_Win_flush(t, win));
        MT_CHECK(dres == 1.5);
        MT_EQ(ires, 10);
        MT_OK(MPI_Fetch_and_op(NULL, &dres, MPI_DOUBLE, t, 0, MPI_NO_OP, win));
        MT_OK(MPI_Fetch_and_op(NULL, &ires, MPI_INT, t, 8, MPI_NO_OP, win));
        MT_OK(MPI_Win_unlock(t, win));
        MT_CHECK(dres == 7.0);
        MT_EQ(ires, 11);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* an int64 at byte 4 of a disp-unit-1 window: not 8-byte aligned.
     * MPI_RMA_IB_MISALIGNED=0 skips it: UBSan flags the shared-memory and
     * message paths' reduce on such an element (collectives/op.c loads an
     * int64_t there), a finding outside this test's subject */
    if (getenv("MPI_RMA_IB_MISALIGNED") != NULL && atoi(getenv("MPI_RMA_IB_MISALIGNED")) == 0) {
        return;
    }
    bw = make_win(create, 32, 1, &bbase);
    memcpy((char *)bbase + 4, &(int64_t){ 100 }, 8);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == origin) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, bw));
        MT_OK(MPI_Fetch_and_op(&three, &mres, MPI_INT64_T, t, 4, MPI_SUM, bw));
        MT_OK(MPI_Accumulate(&three, 1, MPI_INT64_T, t, 4, 1, MPI_INT64_T, MPI_MAX, bw));
        MT_OK(MPI_Win_flush(t, bw));   /* a get is not ordered after an accumulate */
        MT_OK(MPI_Get(&m, 1, MPI_INT64_T, t, 4, 1, MPI_INT64_T, bw));
        MT_OK(MPI_Win_unlock(t, bw));
        MT_EQ(mres, 100);
        MT_EQ(m, 103);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free_win(create, &bw, bbase);
}

/* ---- contention under lock_all ---- */

static void check_contention(int create, int iters)
{
    void *base;
    MPI_Win win = make_win(create, 4 * sizeof(int64_t), sizeof(int64_t), &base);
    int64_t *mem = base, one = 1, mx, res;
    double done = 1.0;

    MT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < iters; ++i) {
        mx = (int64_t)rank * 1000 + i;
        MT_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_SUM, win));
        MT_OK(MPI_Fetch_and_op(&mx, &res, MPI_LONG, 0, 1, MPI_MAX, win));
        MT_OK(MPI_Accumulate(&done, 1, MPI_DOUBLE, 0, 2, 1, MPI_DOUBLE, MPI_SUM, win));
        if (i % 16 == 0) {
            MT_OK(MPI_Win_flush(0, win));
        }
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        double dsum;

        memcpy(&dsum, &mem[2], sizeof(dsum));
        MT_EQ(mem[0], (int64_t)size * iters);
        MT_EQ(mem[1], (int64_t)(size - 1) * 1000 + iters - 1);
        if (dsum != (double)size * iters) {
            MT_FAIL("double SUM by %d ranks x %d: %.1f", size, iters, dsum);
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free_win(create, &win, base);
}

/* ---- exclusive lock: no lost update ---- */

static void check_excl(int create, int iters)
{
    void *base;
    MPI_Win win = make_win(create, sizeof(int64_t), sizeof(int64_t), &base);
    int64_t v;

    for (int i = 0; i < iters; ++i) {
        int t = i % size;

        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        MT_OK(MPI_Get(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
        MT_OK(MPI_Win_flush(t, win));
        ++v;
        MT_OK(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
        MT_OK(MPI_Win_unlock(t, win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    {
        int64_t want = 0, got = *(int64_t *)base;

        for (int i = 0; i < iters; ++i) {
            want += i % size == rank;
        }
        MT_EQ(got, want * size);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free_win(create, &win, base);
}

/* ---- put/get data ---- */

static unsigned char pat(int r, size_t i, int round)
{
    return (unsigned char)(r * 31 + (int)(i % 251) * 7 + round * 13 + 1);
}

static void check_putget_size(MPI_Win win, unsigned char *mem, size_t n, int round)
{
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    unsigned char *out = malloc(n), *in = malloc(n);
    MPI_Request rq;

    MT_CHECK(out != NULL && in != NULL);
    for (size_t i = 0; i < n; ++i) {
        out[i] = pat(rank, i, round);
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    if (round & 1) {
        MT_OK(MPI_Rput(out, (int)n, MPI_BYTE, t, 0, (int)n, MPI_BYTE, win, &rq));
        MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        MT_OK(MPI_Put(out, (int)n, MPI_BYTE, t, 0, (int)n, MPI_BYTE, win));
    }
    MT_OK(MPI_Win_unlock(t, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (size_t i = 0; i < n; ++i) {
        if (mem[i] != pat(from, i, round)) {
            MT_FAIL("put of %zu B from rank %d: byte %zu is %u, want %u", n, from, i, mem[i],
                    pat(from, i, round));
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    if (round & 1) {
        MT_OK(MPI_Rget(in, (int)n, MPI_BYTE, t, 0, (int)n, MPI_BYTE, win, &rq));
        MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        MT_OK(MPI_Get(in, (int)n, MPI_BYTE, t, 0, (int)n, MPI_BYTE, win));
        MT_OK(MPI_Win_flush(t, win));
    }
    MT_OK(MPI_Win_unlock(t, win));
    MT_CHECK(memcmp(in, out, n) == 0);   /* t holds what we put */
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(out);
    free(in);
}

/* a vector type on the target side of a put, on both sides of a get */
static void check_vector(MPI_Win win, int64_t *mem)
{
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    int64_t src[16], back[32];
    MPI_Datatype vec;

    MT_OK(MPI_Type_vector(16, 1, 2, MPI_INT64_T, &vec));
    MT_OK(MPI_Type_commit(&vec));
    for (int i = 0; i < 32; ++i) {
        mem[i] = -1;
        back[i] = -7;
    }
    for (int i = 0; i < 16; ++i) {
        src[i] = rank * 100 + i;
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    MT_OK(MPI_Put(src, 16, MPI_INT64_T, t, 0, 1, vec, win));
    MT_OK(MPI_Win_unlock(t, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 32; ++i) {
        MT_EQ(mem[i], i % 2 ? -1 : from * 100 + i / 2);
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    MT_OK(MPI_Get(back, 1, vec, t, 0, 1, vec, win));
    MT_OK(MPI_Win_unlock(t, win));
    for (int i = 0; i < 32; ++i) {
        MT_EQ(back[i], i % 2 ? -7 : rank * 100 + i / 2);
    }
    MT_OK(MPI_Type_free(&vec));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_putget(int create)
{
    static const size_t sizes[] = { 8, 100, 4096, 65536, (size_t)3 << 19 };
    size_t max = sizes[sizeof(sizes) / sizeof(sizes[0]) - 1];
    void *base;
    MPI_Win win = make_win(create, max, 1, &base);

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
        check_putget_size(win, base, sizes[k], (int)k);
    }
    check_vector(win, base);
    free_win(create, &win, base);
}

/* ---- passive target without the target's progress ---- */

static void check_noprogress(int create, int k)
{
    void *base;
    MPI_Win win = make_win(create, 4 * sizeof(int64_t), sizeof(int64_t), &base);
    volatile int64_t *mem = base;
    int64_t one = 1, res, v, flag = 1, zero = 0;

    if (rank == 0) {
        double t0 = MPI_Wtime();

        while (__atomic_load_n(&mem[3], __ATOMIC_ACQUIRE) != size - 1) {
            if (MPI_Wtime() - t0 > 60.0) {
                MT_FAIL("rank 0: %lld of %d flags after 60 s without MPI calls (create %d): "
                        "the origins needed the target's progress", (long long)mem[3],
                        size - 1, create);
            }
        }
        MT_EQ(mem[0], (int64_t)(size - 1) * k);
        MT_EQ(mem[1], (int64_t)(size - 1) * k);
    } else {
        for (int i = 0; i < k; ++i) {
            MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            MT_OK(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 0, 0, MPI_SUM, win));
            MT_OK(MPI_Get(&v, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, win));
            MT_OK(MPI_Win_flush(0, win));
            ++v;
            MT_OK(MPI_Put(&v, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, win));
            MT_OK(MPI_Win_unlock(0, win));
        }
        /* the last one raises the flag: a CAS loop of its own */
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MT_OK(MPI_Fetch_and_op(&flag, &res, MPI_INT64_T, 0, 3, MPI_SUM, win));
        MT_OK(MPI_Compare_and_swap(&one, &zero, &res, MPI_INT64_T, 0, 2, win));
        MT_OK(MPI_Win_unlock(0, win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MT_EQ(mem[2], 1);
    }
    free_win(create, &win, base);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 50;
    int noprogress = argc > 2 && strcmp(argv[2], "noprogress") == 0;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int create = 0; create <= 1; ++create) {
        void *base;
        MPI_Win win = make_win(create, 16 * sizeof(int64_t), sizeof(int64_t), &base);

        for (int t = 0; t < (size > 1 ? 2 : 1); ++t) {
            check_int_ops(win, base, MPI_INT64_T, 0, t);
            check_int_ops(win, base, MPI_UINT64_T, 1, t);
            check_int_ops(win, base, MPI_LONG, 0, t);
            check_cas(win, base, t);
            check_other_types(win, base, t, create);
        }
        free_win(create, &win, base);
        check_contention(create, iters);
        check_excl(create, iters);
        check_putget(create);
        if (noprogress && size > 1) {
            check_noprogress(create, iters);
        }
    }
    MT_PASS(noprogress ? "mpi_rma_ib noprogress" : "mpi_rma_ib");
    MT_OK(MPI_Finalize());
    return 0;
}
