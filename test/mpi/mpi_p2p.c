/*
 * mpi_p2p.c: point-to-point calls of the MPI binding, as an ordinary MPI
 * program (any number of ranks >= 2): Send/Recv/Ssend/Rsend, the
 * nonblocking forms, wildcards, MPI_PROC_NULL, Sendrecv(_replace),
 * Probe/Iprobe, Get_count/Get_elements, contiguous derived types against
 * their basic type, eager and rendezvous sizes, and truncation reported as
 * MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN.
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size;

static void fill(int *buf, int n, int seed)
{
    for (int i = 0; i < n; ++i) {
        buf[i] = seed * 1000003 + i;
    }
}

static void expect(const int *buf, int n, int seed)
{
    for (int i = 0; i < n; ++i) {
        if (buf[i] != seed * 1000003 + i) {
            MT_FAIL("element %d of %d: got %d, expected %d (seed %d)", i, n, buf[i],
                    seed * 1000003 + i, seed);
        }
    }
}

/* every blocking send mode, ring-wise, at eager and rendezvous sizes */
static void test_blocking_ring(void)
{
    static const int sizes[] = { 0, 1, 7, 1000, 70000, 300000 };
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *sbuf = malloc(300000 * sizeof(int)), *rbuf = malloc(300000 * sizeof(int));
    MPI_Status st;
    int count;

    MT_CHECK(sbuf != NULL && rbuf != NULL);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
        for (int mode = 0; mode < 3; ++mode) {
            int n = sizes[s], tag = 10 + mode;

            fill(sbuf, n, rank + mode);
            memset(rbuf, 0xff, (size_t)n * sizeof(int));
            if (rank % 2 == 0) {  /* even ranks send first: no deadlock for ssend */
                if (mode == 0) MT_OK(MPI_Send(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD));
                if (mode == 1) MT_OK(MPI_Ssend(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD));
                if (mode == 2) MT_OK(MPI_Rsend(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD));
                MT_OK(MPI_Recv(rbuf, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &st));
            } else {
                MT_OK(MPI_Recv(rbuf, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &st));
                if (mode == 0) MT_OK(MPI_Send(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD));
                if (mode == 1) MT_OK(MPI_Ssend(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD));
                if (mode == 2) MT_OK(MPI_Rsend(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD));
            }
            expect(rbuf, n, prev + mode);
            MT_EQ(st.MPI_SOURCE, prev);
            MT_EQ(st.MPI_TAG, tag);
            MT_OK(MPI_Get_count(&st, MPI_INT, &count));
            MT_EQ(count, n);
        }
    }
    free(sbuf);
    free(rbuf);
}

/*
 * Isend/Issend/Irsend/Irecv with wildcards: rank 0 collects from everyone,
 * on its own communicator so that later traffic cannot match the wildcards.
 */
static void test_nonblocking_wildcards(void)
{
    int val[3], got[3 * 64];
    MPI_Request reqs[3 * 64];
    MPI_Status sts[3 * 64];
    int seen[64] = { 0 };
    MPI_Comm wc;

    MT_CHECK(size <= 64);
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &wc));
    if (rank != 0) {
        for (int m = 0; m < 3; ++m) {
            val[m] = rank * 10 + m;
        }
        MT_OK(MPI_Isend(&val[0], 1, MPI_INT, 0, 100, wc, &reqs[0]));
        MT_OK(MPI_Issend(&val[1], 1, MPI_INT, 0, 101, wc, &reqs[1]));
        MT_OK(MPI_Irsend(&val[2], 1, MPI_INT, 0, 102, wc, &reqs[2]));
        MT_OK(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
        for (int m = 0; m < 3; ++m) {
            MT_CHECK(reqs[m] == MPI_REQUEST_NULL);
        }
        MT_OK(MPI_Comm_free(&wc));
        return;
    }
    int n = 3 * (size - 1);
    for (int i = 0; i < n; ++i) {
        MT_OK(MPI_Irecv(&got[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, wc,
                        &reqs[i]));
    }
    MT_OK(MPI_Waitall(n, reqs, sts));
    for (int i = 0; i < n; ++i) {
        int src = sts[i].MPI_SOURCE, m = sts[i].MPI_TAG - 100;

        MT_CHECK(src >= 1 && src < size && m >= 0 && m < 3);
        MT_EQ(got[i], src * 10 + m);
        MT_EQ(sts[i].MPI_ERROR, MPI_SUCCESS);
        seen[src] |= 1 << m;
    }
    for (int r = 1; r < size; ++r) {
        MT_EQ(seen[r], 7);
    }
    MT_OK(MPI_Comm_free(&wc));
}

static void test_proc_null(void)
{
    int x = 42;
    MPI_Status st;
    MPI_Request req;
    int count = -1;

    MT_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
    MT_OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    MT_EQ(x, 42);
    MT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    MT_EQ(st.MPI_TAG, MPI_ANY_TAG);
    MT_OK(MPI_Get_count(&st, MPI_INT, &count));
    MT_EQ(count, 0);
    MT_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Wait(&req, &st));
    MT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    MT_OK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, &x, 1, MPI_INT, MPI_PROC_NULL, 1,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void test_sendrecv(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    static int sbuf[100000], rbuf[100000];
    MPI_Status st;
    int count;

    /* everyone sends to the right at once: Sendrecv must not deadlock */
    fill(sbuf, 100000, rank);
    MT_OK(MPI_Sendrecv(sbuf, 100000, MPI_INT, next, 7, rbuf, 100000, MPI_INT, prev, 7,
                       MPI_COMM_WORLD, &st));
    expect(rbuf, 100000, prev);
    MT_EQ(st.MPI_SOURCE, prev);
    MT_OK(MPI_Get_count(&st, MPI_INT, &count));
    MT_EQ(count, 100000);

    fill(rbuf, 1000, rank);
    MT_OK(MPI_Sendrecv_replace(rbuf, 1000, MPI_INT, next, 8, MPI_ANY_SOURCE, 8,
                               MPI_COMM_WORLD, &st));
    expect(rbuf, 1000, prev);
    MT_EQ(st.MPI_SOURCE, prev);
}

static void test_probe(void)
{
    MPI_Status st;
    int flag = 0, count = -1, buf[64];

    if (rank == 1) {
        fill(buf, 33, 9);
        MT_OK(MPI_Send(buf, 33, MPI_INT, 0, 77, MPI_COMM_WORLD));
        MT_OK(MPI_Send(buf, 5, MPI_CHAR, 0, 78, MPI_COMM_WORLD));
    } else if (rank == 0) {
        MT_OK(MPI_Probe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &st));
        MT_EQ(st.MPI_SOURCE, 1);
        MT_EQ(st.MPI_TAG, 77);
        MT_OK(MPI_Get_count(&st, MPI_INT, &count));
        MT_EQ(count, 33);
        MT_OK(MPI_Recv(buf, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
        expect(buf, 33, 9);
        while (!flag) {
            MT_OK(MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        }
        MT_EQ(st.MPI_TAG, 78);
        /* 5 bytes are not a whole number of ints */
        MT_OK(MPI_Get_count(&st, MPI_INT, &count));
        MT_EQ(count, MPI_UNDEFINED);
        MT_OK(MPI_Get_count(&st, MPI_CHAR, &count));
        MT_EQ(count, 5);
        MT_OK(MPI_Get_elements(&st, MPI_BYTE, &count));
        MT_EQ(count, 5);
        MT_OK(MPI_Recv(buf, 64, MPI_CHAR, 1, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                         MPI_STATUS_IGNORE));
        MT_EQ(flag, 0);
    }
}

/* a contiguous type of 3 ints travels as 3 ints; pairs as their C layout */
static void test_derived_and_pairs(void)
{
    MPI_Datatype tri;
    MPI_Status st;
    int buf[30], count;
    struct { double v; int i; } pairs[4];

    MT_OK(MPI_Type_contiguous(3, MPI_INT, &tri));
    MT_OK(MPI_Type_commit(&tri));
    if (rank == 0) {
        fill(buf, 30, 4);
        MT_OK(MPI_Send(buf, 10, tri, 1, 3, MPI_COMM_WORLD));
        MT_OK(MPI_Send(buf, 30, MPI_INT, 1, 4, MPI_COMM_WORLD));
        for (int i = 0; i < 4; ++i) {
            pairs[i].v = i * 1.5;
            pairs[i].i = -i;
        }
        MT_OK(MPI_Send(pairs, 4, MPI_DOUBLE_INT, 1, 5, MPI_COMM_WORLD));
    } else if (rank == 1) {
        MT_OK(MPI_Recv(buf, 30, MPI_INT, 0, 3, MPI_COMM_WORLD, &st));
        expect(buf, 30, 4);
        MT_OK(MPI_Get_count(&st, tri, &count));
        MT_EQ(count, 10);
        memset(buf, 0, sizeof(buf));
        MT_OK(MPI_Recv(buf, 10, tri, 0, 4, MPI_COMM_WORLD, &st));
        expect(buf, 30, 4);
        MT_OK(MPI_Get_elements(&st, tri, &count));
        MT_EQ(count, 30);
        MT_OK(MPI_Recv(pairs, 4, MPI_DOUBLE_INT, 0, 5, MPI_COMM_WORLD, &st));
        for (int i = 0; i < 4; ++i) {
            MT_CHECK(pairs[i].v == i * 1.5 && pairs[i].i == -i);
        }
        MT_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &count));
        MT_EQ(count, 4);
        MT_OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &count));
        MT_EQ(count, 8);
    }
    MT_OK(MPI_Type_free(&tri));
    MT_CHECK(tri == MPI_DATATYPE_NULL);
}

/*
 * Truncation is MPI_ERR_TRUNCATE, returned. A call that completes one
 * operation leaves the status's MPI_ERROR as the caller had it (MPI-3.1
 * 3.2.5: undefined there; MPICH and Open MPI do not touch it), failed or not.
 */
static void test_truncate(void)
{
    int buf[8] = { 0 }, flag = 0;
    MPI_Request req;
    MPI_Status st;

    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (rank == 0) {
        MT_OK(MPI_Send(buf, 8, MPI_INT, 1, 20, MPI_COMM_WORLD));
        MT_OK(MPI_Send(buf, 8, MPI_INT, 1, 21, MPI_COMM_WORLD));
        MT_OK(MPI_Send(buf, 8, MPI_INT, 1, 22, MPI_COMM_WORLD));
        MT_OK(MPI_Send(buf, 8, MPI_INT, 1, 23, MPI_COMM_WORLD));
    } else if (rank == 1) {
        st.MPI_ERROR = MPI_ERR_DIMS;
        MT_ERR(MPI_Recv(buf, 4, MPI_INT, 0, 20, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
        MT_EQ(st.MPI_ERROR, MPI_ERR_DIMS);
        MT_OK(MPI_Irecv(buf, 2, MPI_INT, 0, 21, MPI_COMM_WORLD, &req));
        MT_ERR(MPI_Wait(&req, &st), MPI_ERR_TRUNCATE);
        MT_CHECK(req == MPI_REQUEST_NULL);
        MT_EQ(st.MPI_ERROR, MPI_ERR_DIMS);
        st.MPI_ERROR = MPI_ERR_TOPOLOGY;
        MT_OK(MPI_Probe(0, 22, MPI_COMM_WORLD, &st));
        MT_EQ(st.MPI_ERROR, MPI_ERR_TOPOLOGY);
        while (!flag) {
            MT_OK(MPI_Iprobe(0, 23, MPI_COMM_WORLD, &flag, &st));
        }
        MT_EQ(st.MPI_ERROR, MPI_ERR_TOPOLOGY);
        MT_OK(MPI_Recv(buf, 8, MPI_INT, 0, 22, MPI_COMM_WORLD, &st));
        MT_EQ(st.MPI_ERROR, MPI_ERR_TOPOLOGY);
        MT_OK(MPI_Irecv(buf, 8, MPI_INT, 0, 23, MPI_COMM_WORLD, &req));
        for (flag = 0; !flag;) {
            MT_OK(MPI_Test(&req, &flag, &st));
        }
        MT_EQ(st.MPI_ERROR, MPI_ERR_TOPOLOGY);
    }
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_CHECK(size >= 2);

    test_blocking_ring();
    test_nonblocking_wildcards();
    test_proc_null();
    test_sendrecv();
    test_probe();
    test_derived_and_pairs();
    test_truncate();

    MT_PASS("mpi_p2p");
    MT_OK(MPI_Finalize());
    return 0;
}
