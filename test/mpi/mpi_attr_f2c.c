/*
 * mpi_attr_f2c.c: C <-> Fortran handle conversion: round trips for every
 * kind (predefined handles at fixed small indices, user handles on first
 * conversion, the same index on every later one), null handles at 0,
 * unknown indices to the null handle, and MPI_Status_c2f / _f2c.
 */
#include "mpi_test_util.h"

#include <string.h>

static void test_predefined(void)
{
    MT_EQ(MPI_Comm_c2f(MPI_COMM_NULL), 0);
    MT_EQ(MPI_Comm_c2f(MPI_COMM_WORLD), 1);
    MT_EQ(MPI_Comm_c2f(MPI_COMM_SELF), 2);
    MT_CHECK(MPI_Comm_f2c(1) == MPI_COMM_WORLD && MPI_Comm_f2c(0) == MPI_COMM_NULL);
    MT_CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE);
    MT_CHECK(MPI_Type_c2f(MPI_INT) > 0 && MPI_Type_c2f(MPI_INT) < 64);
    MT_CHECK(MPI_Type_c2f(MPI_C_DOUBLE_COMPLEX) != MPI_Type_c2f(MPI_C_FLOAT_COMPLEX));
    MT_EQ(MPI_Type_c2f(MPI_DATATYPE_NULL), 0);
    MT_EQ(MPI_Op_c2f(MPI_MAX), 1);
    MT_EQ(MPI_Op_c2f(MPI_REPLACE), 13);
    MT_CHECK(MPI_Op_f2c(3) == MPI_SUM);
    MT_EQ(MPI_Errhandler_c2f(MPI_ERRORS_ARE_FATAL), 1);
    MT_CHECK(MPI_Errhandler_f2c(2) == MPI_ERRORS_RETURN);
    MT_EQ(MPI_Info_c2f(MPI_INFO_ENV), 1);
    MT_EQ(MPI_Info_c2f(MPI_INFO_NULL), 0);
    MT_CHECK(MPI_Request_f2c(0) == MPI_REQUEST_NULL);
    MT_CHECK(MPI_Win_f2c(0) == MPI_WIN_NULL && MPI_File_f2c(0) == MPI_FILE_NULL);
    MT_CHECK(MPI_Group_f2c(0) == MPI_GROUP_NULL);
    MT_CHECK(MPI_Message_f2c(0) == MPI_MESSAGE_NULL);
    MT_EQ(MPI_Win_c2f(MPI_WIN_NULL), 0);
    MT_EQ(MPI_File_c2f(MPI_FILE_NULL), 0);
    MT_EQ(MPI_Message_c2f(MPI_MESSAGE_NULL), 0);
    MT_EQ(MPI_Group_c2f(MPI_GROUP_NULL), 0);
    /* indices never handed out convert to the null handle */
    MT_CHECK(MPI_Comm_f2c(12345) == MPI_COMM_NULL);
    MT_CHECK(MPI_Comm_f2c(-7) == MPI_COMM_NULL);
    MT_CHECK(MPI_Info_f2c(999) == MPI_INFO_NULL);
    MT_CHECK(MPI_Request_f2c(4242) == MPI_REQUEST_NULL);
}

static void user_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; ++i) {
        int a = ((int *)in)[i], *b = &((int *)inout)[i];
        *b = a > *b ? a : *b;
    }
}

static void test_user_handles(void)
{
    MPI_Comm comms[40];
    MPI_Fint f[40];
    MPI_Info info;
    MPI_Datatype t;
    MPI_Request req;
    MPI_Op op;
    int x = 0, y = 0, rank;

    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    /* many handles: the table grows and keeps every mapping */
    for (int i = 0; i < 40; ++i) {
        MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]));
        f[i] = MPI_Comm_c2f(comms[i]);
        MT_CHECK(f[i] > 2);
        for (int j = 0; j < i; ++j) {
            MT_CHECK(f[j] != f[i]);
        }
    }
    for (int i = 0; i < 40; ++i) {
        MT_CHECK(MPI_Comm_f2c(f[i]) == comms[i]);
        MT_EQ(MPI_Comm_c2f(comms[i]), f[i]);          /* stable */
    }
    for (int i = 0; i < 40; ++i) {
        MT_OK(MPI_Comm_free(&comms[i]));
    }
    MT_OK(MPI_Info_create(&info));
    MT_CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info);
    MT_CHECK(MPI_Info_c2f(info) > 1);
    MT_OK(MPI_Info_free(&info));
    MT_OK(MPI_Type_contiguous(4, MPI_INT, &t));
    MT_CHECK(MPI_Type_f2c(MPI_Type_c2f(t)) == t);
    MT_OK(MPI_Type_free(&t));
    MT_OK(MPI_Op_create(user_max, 1, &op));
    MT_CHECK(MPI_Op_c2f(op) > 13 && MPI_Op_f2c(MPI_Op_c2f(op)) == op);
    MT_OK(MPI_Op_free(&op));
    /* a request converted while pending and used through its Fortran index */
    MT_OK(MPI_Irecv(&y, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &req));
    {
        MPI_Fint fr = MPI_Request_c2f(req);
        MPI_Request back = MPI_Request_f2c(fr);

        MT_CHECK(back == req && fr > 0);
        x = 77 + rank;
        MT_OK(MPI_Send(&x, 1, MPI_INT, rank, 5, MPI_COMM_WORLD));
        MT_OK(MPI_Wait(&back, MPI_STATUS_IGNORE));
        MT_EQ(y, 77 + rank);
    }
}

static void test_status(void)
{
    MPI_Status s, back;
    MPI_Fint f[MPI_STATUS_SIZE];
    int x = 3, y = 0, rank, count;

    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Sendrecv(&x, 1, MPI_INT, rank, 9, &y, 1, MPI_INT, rank, 9, MPI_COMM_WORLD,
                       &s));
    MT_OK(MPI_Status_c2f(&s, f));
    memset(&back, 0xff, sizeof(back));
    MT_OK(MPI_Status_f2c(f, &back));
    MT_CHECK(back.MPI_SOURCE == rank && back.MPI_TAG == 9);
    MT_OK(MPI_Get_count(&back, MPI_INT, &count));
    MT_EQ(count, 1);
    MT_ERR(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG);
    MT_ERR(MPI_Status_f2c(NULL, &back), MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    test_predefined();
    test_user_handles();
    test_status();
    MT_PASS("mpi_attr_f2c");
    MT_OK(MPI_Finalize());
    return 0;
}
