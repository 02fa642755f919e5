/*
 * mpi_pack.c: MPI_Pack, MPI_Unpack and MPI_Pack_size on contiguous types
 * (basic, pair and MPI_Type_contiguous types): positions advance by the
 * packed bytes, several values pack into one buffer and unpack in order, a
 * packed buffer travels as MPI_PACKED from every rank to the next, and bad
 * arguments give MPI's error classes (TRUNCATE, ARG, COUNT, TYPE) under
 * MPI_ERRORS_RETURN.
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size;

typedef struct { double v; int i; } dint_t;

/* int[3], a double-int pair and a triple of doubles into one buffer, and back */
static void test_round_trip(void)
{
    int ints[3] = { rank, rank + 1, -rank }, ints2[3] = { 0 }, psize, total = 0, pos = 0;
    dint_t di = { 2.5 * rank, rank }, di2 = { 0, 0 };
    double tri[3] = { 1.0, 2.0, 3.0 + rank }, tri2[3] = { 0 };
    char buf[256];
    MPI_Datatype t3;

    MT_OK(MPI_Type_contiguous(3, MPI_DOUBLE, &t3));
    MT_OK(MPI_Type_commit(&t3));
    MT_OK(MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &psize));
    MT_EQ(psize, 3 * (int)sizeof(int));
    total += psize;
    MT_OK(MPI_Pack_size(1, MPI_DOUBLE_INT, MPI_COMM_WORLD, &psize));
    MT_CHECK(psize >= 12);
    total += psize;
    MT_OK(MPI_Pack_size(1, t3, MPI_COMM_WORLD, &psize));
    MT_EQ(psize, 3 * (int)sizeof(double));
    total += psize;
    MT_OK(MPI_Pack(ints, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    MT_EQ(pos, 3 * (int)sizeof(int));
    MT_OK(MPI_Pack(&di, 1, MPI_DOUBLE_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    MT_OK(MPI_Pack(tri, 1, t3, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    MT_EQ(pos, total);
    pos = 0;
    MT_OK(MPI_Unpack(buf, total, &pos, ints2, 3, MPI_INT, MPI_COMM_WORLD));
    MT_OK(MPI_Unpack(buf, total, &pos, &di2, 1, MPI_DOUBLE_INT, MPI_COMM_WORLD));
    MT_OK(MPI_Unpack(buf, total, &pos, tri2, 1, t3, MPI_COMM_WORLD));
    MT_EQ(pos, total);
    MT_CHECK(memcmp(ints, ints2, sizeof ints) == 0);
    MT_CHECK(di2.v == di.v && di2.i == di.i);
    MT_CHECK(memcmp(tri, tri2, sizeof tri) == 0);
    MT_OK(MPI_Type_free(&t3));
}

/* a packed buffer goes to the next rank as MPI_PACKED and unpacks there */
static void test_send_packed(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, pos = 0, got[4];
    int mine[4] = { rank, 10 * rank, 100 * rank, 7 }, count;
    char out[64], in[64];
    MPI_Status st;

    MT_OK(MPI_Pack(mine, 4, MPI_INT, out, sizeof out, &pos, MPI_COMM_WORLD));
    MT_OK(MPI_Sendrecv(out, pos, MPI_PACKED, next, 3, in, sizeof in, MPI_PACKED, prev, 3,
                       MPI_COMM_WORLD, &st));
    MT_OK(MPI_Get_count(&st, MPI_PACKED, &count));
    MT_EQ(count, pos);
    pos = 0;
    MT_OK(MPI_Unpack(in, count, &pos, got, 4, MPI_INT, MPI_COMM_WORLD));
    MT_EQ(got[0], prev);
    MT_EQ(got[1], 10 * prev);
    MT_EQ(got[2], 100 * prev);
    MT_EQ(got[3], 7);
}

static void test_errors(void)
{
    int v[4] = { 0 }, pos = 0, psize = 0;
    char buf[8];

    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_ERR(MPI_Pack(v, 4, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    MT_EQ(pos, 0);
    MT_OK(MPI_Pack(v, 2, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    MT_ERR(MPI_Pack(v, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    pos = 9;
    MT_ERR(MPI_Pack(v, 0, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = 0;
    MT_ERR(MPI_Unpack(buf, 8, &pos, v, 3, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    MT_ERR(MPI_Pack(v, -1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MT_ERR(MPI_Pack_size(1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, &psize), MPI_ERR_TYPE);
    MT_ERR(MPI_Pack_size(1, MPI_INT, MPI_COMM_NULL, &psize), MPI_ERR_COMM);
    MT_ERR(MPI_Unpack(buf, 8, NULL, v, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    test_round_trip();
    test_send_packed();
    test_errors();
    MT_PASS("mpi_pack");
    MT_OK(MPI_Finalize());
    return 0;
}
