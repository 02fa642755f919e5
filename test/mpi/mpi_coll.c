/*
 * mpi_coll.c: blocking collectives of the MPI binding as an ordinary MPI
 * program (any number of ranks): Barrier, Bcast, Reduce, Allreduce (with
 * every predefined op on the types it applies to, pair types with
 * MINLOC/MAXLOC, MPI_IN_PLACE, a non-commutative user op on a contiguous
 * type), Allgather / Alltoall / Gather / Scatter with different send and
 * receive types of the same signature, Reduce_scatter_block, Reduce_local.
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size;

static void test_bcast(void)
{
    static const int counts[] = { 1, 1000, 100000 };
    static int buf[100000];
    MPI_Datatype quad;

    MT_OK(MPI_Type_contiguous(4, MPI_INT, &quad));
    MT_OK(MPI_Type_commit(&quad));
    for (int root = 0; root < size; ++root) {
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
            int n = counts[c];

            for (int i = 0; i < n; ++i) {
                buf[i] = rank == root ? root * 7 + i : -1;
            }
            /* the root describes the data as quads when it can: same signature */
            if (rank == root && n % 4 == 0) {
                MT_OK(MPI_Bcast(buf, n / 4, quad, root, MPI_COMM_WORLD));
            } else {
                MT_OK(MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD));
            }
            for (int i = 0; i < n; ++i) {
                if (buf[i] != root * 7 + i) {
                    MT_FAIL("bcast root %d n %d: buf[%d] = %d", root, n, i, buf[i]);
                }
            }
        }
    }
    MT_OK(MPI_Type_free(&quad));
}

static void test_reduce(void)
{
    int v[3] = { rank, rank + 1, -rank }, out[3] = { 0, 0, 0 };
    int tri = size * (size - 1) / 2;

    for (int root = 0; root < size; ++root) {
        memset(out, 0, sizeof(out));
        MT_OK(MPI_Reduce(v, out, 3, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        if (rank == root) {
            MT_EQ(out[0], tri);
            MT_EQ(out[1], tri + size);
            MT_EQ(out[2], -tri);
        }
        /* in place at the root */
        int w[2] = { rank, rank * 2 };
        MT_OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : w, w, 2, MPI_INT, MPI_MAX, root,
                         MPI_COMM_WORLD));
        if (rank == root) {
            MT_EQ(w[0], size - 1);
            MT_EQ(w[1], 2 * (size - 1));
        }
    }
}

static void test_allreduce_ops(void)
{
    double d = rank + 0.5, dmin, dmax, dsum, dprod;
    long long ll = (long long)rank << 33, llsum;
    unsigned char uc = (unsigned char)(1u << (rank % 8)), ucor, ucand;
    int flag = rank % 2, land, lor, lxor, bx = rank, bxor;
    long double ld = rank, ldsum;
    float f = 1.0f + rank, fprod;
    long long expect = 0;
    int expect_xor = 0;

    MT_OK(MPI_Allreduce(&d, &dmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(&d, &dprod, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD));
    MT_CHECK(dmin == 0.5 && dmax == size - 0.5);
    MT_CHECK(dsum == size * size / 2.0);
    MT_OK(MPI_Allreduce(&ll, &llsum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) {
        expect += (long long)r << 33;
        expect_xor ^= r;
    }
    MT_EQ(llsum, expect);
    MT_OK(MPI_Allreduce(&uc, &ucor, 1, MPI_UNSIGNED_CHAR, MPI_BOR, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(&uc, &ucand, 1, MPI_UNSIGNED_CHAR, MPI_BAND, MPI_COMM_WORLD));
    MT_EQ(ucor, size >= 8 ? 0xff : (1u << size) - 1);
    MT_EQ(ucand, size == 1 ? 1 : 0);
    MT_OK(MPI_Allreduce(&flag, &land, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(&flag, &lor, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(&flag, &lxor, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD));
    MT_EQ(land, 0);
    MT_EQ(lor, size > 1);
    MT_EQ(lxor, (size / 2) % 2);
    MT_OK(MPI_Allreduce(&bx, &bxor, 1, MPI_INT, MPI_BXOR, MPI_COMM_WORLD));
    MT_EQ(bxor, expect_xor);
    MT_OK(MPI_Allreduce(&ld, &ldsum, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK(ldsum == (long double)(size * (size - 1) / 2));
    MT_OK(MPI_Allreduce(&f, &fprod, 1, MPI_FLOAT, MPI_PROD, MPI_COMM_WORLD));
    float fexp = 1.0f;
    for (int r = 0; r < size; ++r) {
        fexp *= 1.0f + r;
    }
    MT_CHECK(fprod == fexp);
}

static void test_allreduce_big_inplace(void)
{
    enum { N = 200003 };
    static int buf[N];
    MPI_Datatype tri;

    for (int i = 0; i < N; ++i) {
        buf[i] = i + rank;
    }
    MT_OK(MPI_Allreduce(MPI_IN_PLACE, buf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; ++i) {
        if (buf[i] != size * i + size * (size - 1) / 2) {
            MT_FAIL("allreduce in place: buf[%d] = %d", i, buf[i]);
        }
    }
    /* a contiguous type of 3 ints reduces as 3 ints per element */
    MT_OK(MPI_Type_contiguous(3, MPI_INT, &tri));
    MT_OK(MPI_Type_commit(&tri));
    for (int i = 0; i < 300; ++i) {
        buf[i] = rank;
    }
    MT_OK(MPI_Allreduce(MPI_IN_PLACE, buf, 100, tri, MPI_MAX, MPI_COMM_WORLD));
    for (int i = 0; i < 300; ++i) {
        MT_EQ(buf[i], size - 1);
    }
    MT_OK(MPI_Type_free(&tri));
    /* count 0 is legal */
    MT_OK(MPI_Allreduce(MPI_IN_PLACE, buf, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
}

static void test_minloc_maxloc(void)
{
    struct { double v; int i; } dp = { (rank * 37) % size + 0.25, rank }, dmin, dmax;
    struct { int v; int i; } ip = { rank % 2, rank }, imin, imax;
    struct { float v; int i; } fp = { -(float)rank, rank }, fmin;
    struct { long v; int i; } lp = { 5, rank }, lmax;
    struct { short v; int i; } sp = { (short)(rank == size - 1 ? -3 : 7), rank }, smin;
    struct { long double v; int i; } ldp = { rank, rank }, ldmax;

    MT_OK(MPI_Allreduce(&dp, &dmin, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(&dp, &dmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    MT_CHECK(dmin.v == 0.25 && dmin.i == 0);
    MT_CHECK(dmax.v == size - 1 + 0.25);
    MT_OK(MPI_Allreduce(&ip, &imin, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(&ip, &imax, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
    MT_CHECK(imin.v == 0 && imin.i == 0);                       /* ties: lowest index */
    MT_CHECK(size == 1 || (imax.v == 1 && imax.i == 1));
    MT_OK(MPI_Allreduce(&fp, &fmin, 1, MPI_FLOAT_INT, MPI_MINLOC, MPI_COMM_WORLD));
    MT_CHECK(fmin.i == size - 1);
    MT_OK(MPI_Allreduce(&lp, &lmax, 1, MPI_LONG_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    MT_CHECK(lmax.v == 5 && lmax.i == 0);
    MT_OK(MPI_Allreduce(&sp, &smin, 1, MPI_SHORT_INT, MPI_MINLOC, MPI_COMM_WORLD));
    MT_CHECK(smin.v == -3 && smin.i == size - 1);
    MT_OK(MPI_Allreduce(&ldp, &ldmax, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    MT_CHECK(ldmax.i == size - 1);
}

/* non-commutative: a o b = a, so the result is rank 0's value */
static int user_calls;
static MPI_Datatype user_tri;

static void keep_first(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int tsize = 0;

    MT_CHECK(*dt == user_tri || *dt == MPI_INT32_T || *dt == MPI_INT);
    MPI_Type_size(*dt, &tsize);
    memcpy(inout, in, (size_t)*len * (size_t)tsize);
    ++user_calls;
}

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int tsize = 0;

    MPI_Type_size(*dt, &tsize);
    for (int i = 0; i < *len * tsize / 4; ++i) {
        ((int *)inout)[i] += ((int *)in)[i];
    }
}

static void test_user_ops(void)
{
    MPI_Op first, add;
    int buf[15], out[15], commute = -1;

    MT_OK(MPI_Type_contiguous(3, MPI_INT, &user_tri));
    MT_OK(MPI_Type_commit(&user_tri));
    MT_OK(MPI_Op_create(keep_first, 0, &first));
    MT_OK(MPI_Op_create(add_ints, 1, &add));
    MT_OK(MPI_Op_commutative(first, &commute));
    MT_EQ(commute, 0);
    for (int i = 0; i < 15; ++i) {
        buf[i] = rank * 100 + i;
    }
    MT_OK(MPI_Allreduce(buf, out, 5, user_tri, first, MPI_COMM_WORLD));
    for (int i = 0; i < 15; ++i) {
        MT_EQ(out[i], i);
    }
    MT_CHECK(size == 1 || user_calls > 0);
    MT_OK(MPI_Reduce(buf, out, 15, MPI_INT, add, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1) {
        for (int i = 0; i < 15; ++i) {
            MT_EQ(out[i], 100 * size * (size - 1) / 2 + size * i);
        }
    }
    /* local reduction with a user op and with a predefined op */
    int a[3] = { 1, 2, 3 }, b[3] = { 10, 20, 30 };
    MT_OK(MPI_Reduce_local(a, b, 1, user_tri, add));
    MT_CHECK(b[0] == 11 && b[1] == 22 && b[2] == 33);
    MT_OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_PROD));
    MT_CHECK(b[0] == 11 && b[1] == 44 && b[2] == 99);
    MT_OK(MPI_Op_free(&first));
    MT_OK(MPI_Op_free(&add));
    MT_CHECK(first == MPI_OP_NULL);
    MT_OK(MPI_Type_free(&user_tri));
}

static void test_allgather_alltoall(void)
{
    MPI_Datatype quad;
    int *rbuf = malloc((size_t)size * 4 * sizeof(int));
    int *sbuf = malloc((size_t)size * 4 * sizeof(int));

    MT_CHECK(rbuf != NULL && sbuf != NULL);
    MT_OK(MPI_Type_contiguous(4, MPI_INT, &quad));
    MT_OK(MPI_Type_commit(&quad));
    /* send 4 ints, receive 1 quad per rank: same signature */
    int mine[4] = { rank, rank + 1, rank + 2, rank + 3 };
    MT_OK(MPI_Allgather(mine, 4, MPI_INT, rbuf, 1, quad, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) {
        for (int k = 0; k < 4; ++k) {
            MT_EQ(rbuf[4 * r + k], r + k);
        }
    }
    /* in place: my block is already in the receive buffer */
    for (int i = 0; i < 4 * size; ++i) {
        rbuf[i] = i / 4 == rank ? rank * 10 + i % 4 : -1;
    }
    MT_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, 4, MPI_INT,
                        MPI_COMM_WORLD));
    for (int i = 0; i < 4 * size; ++i) {
        MT_EQ(rbuf[i], (i / 4) * 10 + i % 4);
    }
    /* alltoall: block j goes to rank j */
    for (int j = 0; j < size; ++j) {
        for (int k = 0; k < 4; ++k) {
            sbuf[4 * j + k] = rank * 1000 + j * 10 + k;
        }
    }
    MT_OK(MPI_Alltoall(sbuf, 1, quad, rbuf, 4, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; ++i) {
        for (int k = 0; k < 4; ++k) {
            MT_EQ(rbuf[4 * i + k], i * 1000 + rank * 10 + k);
        }
    }
    MT_OK(MPI_Type_free(&quad));
    free(rbuf);
    free(sbuf);
}

static void test_gather_scatter(void)
{
    int *all = malloc((size_t)size * 2 * sizeof(int));
    int two[2];

    MT_CHECK(all != NULL);
    for (int root = 0; root < size; ++root) {
        two[0] = rank;
        two[1] = -rank;
        MT_OK(MPI_Gather(two, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD));
        if (rank == root) {
            for (int r = 0; r < size; ++r) {
                MT_CHECK(all[2 * r] == r && all[2 * r + 1] == -r);
            }
            /* in place at the root, recvbuf significant only there */
            all[2 * root] = 99;
            all[2 * root + 1] = 98;
        }
        MT_OK(MPI_Gather(rank == root ? MPI_IN_PLACE : two, 2, MPI_INT,
                         rank == root ? all : NULL, 2, MPI_INT, root, MPI_COMM_WORLD));
        if (rank == root) {
            MT_CHECK(all[2 * root] == 99 && all[2 * root + 1] == 98);
            for (int i = 0; i < 2 * size; ++i) {
                all[i] = i * 3 + root;
            }
        }
        MT_OK(MPI_Scatter(all, 2, MPI_INT, two, 2, MPI_INT, root, MPI_COMM_WORLD));
        MT_CHECK(two[0] == 2 * rank * 3 + root && two[1] == (2 * rank + 1) * 3 + root);
        MT_OK(MPI_Scatter(all, 2, MPI_INT, rank == root ? MPI_IN_PLACE : two, 2, MPI_INT,
                          root, MPI_COMM_WORLD));
        MT_CHECK(two[0] == 2 * rank * 3 + root);
    }
    free(all);
}

static void test_reduce_scatter_block(void)
{
    int *sbuf = malloc((size_t)size * 3 * sizeof(int)), rbuf[3];

    MT_CHECK(sbuf != NULL);
    for (int i = 0; i < 3 * size; ++i) {
        sbuf[i] = i + rank;
    }
    MT_OK(MPI_Reduce_scatter_block(sbuf, rbuf, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < 3; ++k) {
        MT_EQ(rbuf[k], size * (3 * rank + k) + size * (size - 1) / 2);
    }
    free(sbuf);
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    test_bcast();
    test_reduce();
    test_allreduce_ops();
    test_allreduce_big_inplace();
    test_minloc_maxloc();
    test_user_ops();
    test_allgather_alltoall();
    test_gather_scatter();
    test_reduce_scatter_block();
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));

    MT_PASS("mpi_coll");
    MT_OK(MPI_Finalize());
    return 0;
}
