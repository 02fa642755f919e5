/*
 * mpi_coll_shm.c: the on-node eager collectives (issue 21): MPI_Bcast and
 * MPI_Reduce on the shared segment, where a bcast root and a reduce's
 * non-roots return without waiting and the next operation catches up.
 *
 * A seeded random schedule, the same on every rank, of ROUNDS operations
 * drawn from: Bcast (any root, 1 B .. 9 KiB, so both sides of the 8 KiB
 * shm limit), Reduce (any root, int sum, double sum, a non-commutative
 * user op on 2x2 int matrices, in place at the root or not), Allreduce,
 * Barrier, Ibcast and Ireduce (the request path; sometimes two in flight,
 * then a blocking call, then the waits: operations on the segment in
 * start order across both paths), Allgather and Alltoall (shm for small
 * blocks, in place or not). Runs of several bcasts or reduces in a
 * row with no synchronising operation between them are the point: each
 * reuses the slots the one before last used, while some ranks may still be
 * in it. Every result is checked against values computed locally; the
 * doubles are checked against the right fold x0 + (x1 + (...)): bit for
 * bit under LOOM_DETERMINISTIC=1 (every loom algorithm gives that fold
 * then), else within 1e-9 (the message algorithms above the shm limit
 * fold in their own order). The matrix product is checked exactly (modulo 2^32), so
 * operands out of rank order fail.
 *
 * Usage: mpi_coll_shm [rounds] [seed]   (LOOM_BCAST_ALGORITHM etc. from the
 * environment; the driver test_mpi_coll_shm.sh sets them)
 */
#include "mpi_test_util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAXB 9216   /* largest bcast / reduce in bytes: above the 8 KiB limit */

static int rank, size;
static int exact_doubles;   /* LOOM_DETERMINISTIC=1: bit for bit, else within 1e-9 */

static uint32_t rng_next(uint64_t *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*st >> 33);
}

static unsigned char pat(int round, size_t i, int root)
{
    return (unsigned char)(round * 31 + (int)i * 7 + root * 13 + 1);
}

/* 2x2 int matrices, inout = in * inout (in from the lower rank) */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const uint32_t *a = in;
    uint32_t *b = inout;

    (void)dt;
    for (int k = 0; k < *len; ++k, a += 4, b += 4) {
        uint32_t r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof(r));
    }
}

static uint32_t mat_of(int q, int round, int k, int e)
{
    return (uint32_t)(q * 3 + round + k * 5 + e + 1) * 2654435761u;
}

static double dbl_of(int q, int round, int i)
{
    return ((double)((q * 7919 + round * 104729 + i * 31) % 1000) - 500.0) / (1.0 + q + i % 13);
}

static void check_bcast(int round, size_t n, int root, int nb)
{
    static unsigned char buf[MAXB];
    MPI_Request req;

    for (size_t i = 0; i < n; ++i) {
        buf[i] = rank == root ? pat(round, i, root) : 0xEE;
    }
    if (nb) {
        MT_OK(MPI_Ibcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &req));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        MT_OK(MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
    }
    for (size_t i = 0; i < n; ++i) {
        if (buf[i] != pat(round, i, root)) {
            MT_FAIL("round %d bcast %zu B root %d: byte %zu is %d, want %d", round, n, root,
                    i, buf[i], pat(round, i, root));
        }
    }
}

static void check_reduce_int(int round, int n, int root, int in_place, int nb)
{
    static int in[MAXB / 4], out[MAXB / 4];
    MPI_Request req;

    for (int i = 0; i < n; ++i) {
        in[i]  = rank * 1000 + i + round;
        out[i] = -7;
    }
    if (in_place && rank == root) {
        memcpy(out, in, (size_t)n * sizeof(int));
    }
    const void *sb = in_place && rank == root ? MPI_IN_PLACE : (const void *)in;
    if (nb) {
        MT_OK(MPI_Ireduce(sb, out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        MT_OK(MPI_Reduce(sb, out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    }
    for (int i = 0; i < n; ++i) {
        int want = rank == root ? 1000 * (size * (size - 1) / 2) + size * (i + round) : -7;
        if (out[i] != want) {
            MT_FAIL("round %d reduce int x%d root %d%s: [%d] = %d, want %d", round, n, root,
                    in_place ? " in place" : "", i, out[i], want);
        }
    }
}

static void check_reduce_double(int round, int n, int root, int all)
{
    static double in[MAXB / 8], out[MAXB / 8];

    for (int i = 0; i < n; ++i) {
        in[i]  = dbl_of(rank, round, i);
        out[i] = -1.0;
    }
    if (all) {
        MT_OK(MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    } else {
        MT_OK(MPI_Reduce(in, out, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD));
    }
    if (!all && rank != root) {
        return;
    }
    for (int i = 0; i < n; ++i) {
        double want = dbl_of(size - 1, round, i);
        for (int q = size - 2; q >= 0; --q) {
            want = dbl_of(q, round, i) + want;
        }
        int same = exact_doubles ? memcmp(&want, &out[i], sizeof(double)) == 0
                                 : fabs(want - out[i]) <= 1e-9 * (1.0 + fabs(want));
        if (!same) {
            MT_FAIL("round %d %s double x%d root %d: [%d] = %.17g, want the right fold "
                    "%.17g", round, all ? "allreduce" : "reduce", n, root, i, out[i], want);
        }
    }
}

static void check_reduce_mat(int round, int n, int root, MPI_Op op, MPI_Datatype mat)
{
    static uint32_t in[MAXB / 4], out[MAXB / 4];

    for (int k = 0; k < n; ++k) {
        for (int e = 0; e < 4; ++e) {
            in[k * 4 + e] = mat_of(rank, round, k, e);
        }
    }
    MT_OK(MPI_Reduce(in, out, n, mat, op, root, MPI_COMM_WORLD));
    if (rank != root) {
        return;
    }
    for (int k = 0; k < n; ++k) {
        uint32_t acc[4], x[4];
        int one = 1;
        for (int e = 0; e < 4; ++e) {
            acc[e] = mat_of(size - 1, round, k, e);
        }
        for (int q = size - 2; q >= 0; --q) {
            for (int e = 0; e < 4; ++e) {
                x[e] = mat_of(q, round, k, e);
            }
            matmul(x, acc, &one, NULL);
        }
        if (memcmp(acc, &out[k * 4], sizeof(acc)) != 0) {
            MT_FAIL("round %d reduce matrix product x%d root %d: matrix %d differs from "
                    "x0 * (x1 * (...))", round, n, root, k);
        }
    }
}

/* allgather / alltoall of n bytes per block, in place or not */
static void check_allgather(int round, size_t n, int in_place)
{
    static unsigned char sb[MAXB], rb[8 * MAXB];

    n = n * (size_t)size > sizeof(rb) ? sizeof(rb) / (size_t)size : n;
    for (size_t i = 0; i < n; ++i) {
        sb[i] = pat(round, i, rank);
    }
    memset(rb, 0xEE, n * (size_t)size);
    if (in_place) {
        memcpy(rb + (size_t)rank * n, sb, n);
    }
    MT_OK(MPI_Allgather(in_place ? MPI_IN_PLACE : sb, (int)n, MPI_BYTE, rb, (int)n, MPI_BYTE,
                        MPI_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
        for (size_t i = 0; i < n; ++i) {
            if (rb[(size_t)q * n + i] != pat(round, i, q)) {
                MT_FAIL("round %d allgather %zu B%s: byte %zu of rank %d's block is %d", round,
                        n, in_place ? " in place" : "", i, q, rb[(size_t)q * n + i]);
            }
        }
    }
}

static void check_alltoall(int round, size_t n, int in_place)
{
    static unsigned char sb[MAXB], rb[MAXB];

    n = n * (size_t)size > MAXB ? MAXB / (size_t)size : n;
    for (int q = 0; q < size; ++q) {    /* block q: from rank to q */
        for (size_t i = 0; i < n; ++i) {
            sb[(size_t)q * n + i] = pat(round, i, rank * 16 + q);
        }
    }
    memset(rb, 0xEE, n * (size_t)size);
    if (in_place) {
        memcpy(rb, sb, n * (size_t)size);
    }
    MT_OK(MPI_Alltoall(in_place ? MPI_IN_PLACE : sb, (int)n, MPI_BYTE, rb, (int)n, MPI_BYTE,
                       MPI_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
        for (size_t i = 0; i < n; ++i) {
            if (rb[(size_t)q * n + i] != pat(round, i, q * 16 + rank)) {
                MT_FAIL("round %d alltoall %zu B%s: byte %zu of rank %d's block is %d", round,
                        n, in_place ? " in place" : "", i, q, rb[(size_t)q * n + i]);
            }
        }
    }
}

/* two nonblocking operations in flight around a blocking one */
static void check_mixed(int round, int root)
{
    unsigned char b1[64], b2[16];
    int in = rank + round, out = -1;
    MPI_Request r[2];

    for (int i = 0; i < 64; ++i) {
        b1[i] = rank == root ? pat(round, (size_t)i, root) : 0;
    }
    MT_OK(MPI_Ibcast(b1, 64, MPI_BYTE, root, MPI_COMM_WORLD, &r[0]));
    MT_OK(MPI_Ireduce(&in, &out, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &r[1]));
    for (int i = 0; i < 16; ++i) {
        b2[i] = rank == (root + 1) % size ? pat(round, (size_t)i, root + 1) : 0;
    }
    MT_OK(MPI_Bcast(b2, 16, MPI_BYTE, (root + 1) % size, MPI_COMM_WORLD));
    MT_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 64; ++i) {
        MT_EQ(b1[i], pat(round, (size_t)i, root));
    }
    for (int i = 0; i < 16; ++i) {
        MT_EQ(b2[i], pat(round, (size_t)i, root + 1));
    }
    if (rank == root) {
        MT_EQ(out, size * (size - 1) / 2 + size * round);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 400;
    uint64_t st = argc > 2 ? strtoull(argv[2], NULL, 0) : 21;
    static const size_t sizes[] = {1, 2, 3, 5, 8, 9, 16, 63, 256, 1000, 4096, 8192, 8193, 9216};
    MPI_Datatype mat;
    MPI_Op prod;

    MT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    exact_doubles = getenv("LOOM_DETERMINISTIC") != NULL &&
                    strcmp(getenv("LOOM_DETERMINISTIC"), "1") == 0;
    MT_OK(MPI_Type_contiguous(4, MPI_UINT32_T, &mat));
    MT_OK(MPI_Type_commit(&mat));
    MT_OK(MPI_Op_create(matmul, 0, &prod));
    for (int round = 0; round < rounds; ++round) {
        uint32_t what = rng_next(&st) % 12, r = rng_next(&st);
        int root = (int)(r % (uint32_t)size);
        size_t n = sizes[(r >> 8) % (sizeof(sizes) / sizeof(sizes[0]))];

        switch (what) {
        case 0: case 1: case 2:  check_bcast(round, n, root, 0); break;
        case 3:                  check_bcast(round, n, root, 1); break;
        case 4: case 5:          check_reduce_int(round, (int)(n + 3) / 4, root, (r >> 16) & 1,
                                                  (r >> 17) % 4 == 0); break;
        case 6:                  check_reduce_double(round, (int)(n + 7) / 8, root, (r >> 16) & 1);
                                 break;
        case 7:                  check_reduce_mat(round, (int)(n + 15) / 16, root, prod, mat); break;
        case 8:                  check_mixed(round, root); break;
        case 9:                  check_allgather(round, n, (r >> 16) & 1); break;
        case 10:                 check_alltoall(round, n, (r >> 16) & 1); break;
        default:                 MT_OK(MPI_Barrier(MPI_COMM_WORLD)); break;
        }
    }
    MT_OK(MPI_Op_free(&prod));
    MT_OK(MPI_Type_free(&mat));
    MT_OK(MPI_Finalize());
    if (rank == 0) {
        printf("mpi_coll_shm: passed on %d ranks, %d rounds\n", size, rounds);
    }
    return 0;
}
