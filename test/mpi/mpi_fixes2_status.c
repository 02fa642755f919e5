/*
 * mpi_fixes2_status.c: MPI_Status_set_elements_x and MPI_Get_elements_x
 * with counts near the top of MPI_Count (found by MPICH's
 * pt2pt/big_count_status). A status keeps bytes in a size_t, so any count
 * whose bytes fit must read back exactly; a count whose bytes do not fit is
 * MPI_ERR_COUNT, and one that fits the status but not an int is
 * MPI_UNDEFINED from MPI_Get_elements / MPI_Get_count.
 */
#include "mpi_test_util.h"

#include <limits.h>

/* set @p n elements of @p dt, read them back as elements of @p dt */
static void roundtrip(MPI_Datatype dt, MPI_Count n)
{
    MPI_Status st;
    MPI_Count got = -1;
    int flag = 1;

    MT_OK(MPI_Status_set_cancelled(&st, 0));
    MT_OK(MPI_Status_set_elements_x(&st, dt, n));
    MT_OK(MPI_Get_elements_x(&st, dt, &got));
    MT_EQ(got, n);
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 0);
}

int main(int argc, char **argv)
{
    const MPI_Count big[] = { 60, 0x3654321f71234567LL, 0x7654321f71234567LL,
                              0x7654321ff1234567LL, LLONG_MAX };
    MPI_Status st;
    MPI_Count got;
    int n;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (size_t i = 0; i < sizeof big / sizeof big[0]; ++i) {
        roundtrip(MPI_BYTE, big[i]);
    }
    roundtrip(MPI_INT, (MPI_Count)(SIZE_MAX / sizeof(int)));
    roundtrip(MPI_DOUBLE, 1LL << 60);
    roundtrip(MPI_2INT, 2 * (1LL << 58));   /* pairs: two elements each */
    /* bytes beyond a size_t: refused, the status left as it was */
    MT_OK(MPI_Status_set_elements_x(&st, MPI_BYTE, 7));
    MT_ERR(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 1LL << 62), MPI_ERR_COUNT);
    MT_ERR(MPI_Status_set_elements_x(&st, MPI_INT, -1), MPI_ERR_COUNT);
    MT_OK(MPI_Get_elements_x(&st, MPI_BYTE, &got));
    MT_EQ(got, 7);
    /* fits the status, not an int */
    MT_OK(MPI_Status_set_elements_x(&st, MPI_BYTE, 0x7654321ff1234567LL));
    MT_OK(MPI_Get_elements(&st, MPI_BYTE, &n));
    MT_EQ(n, MPI_UNDEFINED);
    MT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    MT_EQ(n, MPI_UNDEFINED);
    MT_PASS("mpi_fixes2_status");
    MPI_Finalize();
    return 0;
}
