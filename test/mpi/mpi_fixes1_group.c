/*
 * mpi_fixes1_group.c: empty groups from MPI_Group_incl and null outputs of
 * failed group constructors (regression for MPICH's group/groupnullincl).
 *
 * MPICH's test harness goes on after a failed MPI_Intercomm_create: it
 * takes the group of the null communicator, excludes a rank from that and
 * frees both groups. Loom left the output handles of the failed calls
 * untouched, so the harness freed uninitialized handles (SIGSEGV). A failed
 * MPI_Comm_group / MPI_Group_* constructor now leaves MPI_GROUP_NULL, whose
 * free is a plain MPI_ERR_GROUP. Each output starts as MPI_GROUP_EMPTY here
 * (a valid handle) so a call that leaves it alone is caught.
 */
#include "mpi_test_util.h"

/* MPI_Group_incl of no ranks (ranks NULL or not) is a group equal to MPI_GROUP_EMPTY */
static void check_empty_incl(MPI_Group group)
{
    int ranks[1] = {0}, result = -1;
    MPI_Group out;

    for (int i = 0; i < 2; ++i) {
        out = MPI_GROUP_NULL;
        MT_OK(MPI_Group_incl(group, 0, i == 0 ? NULL : ranks, &out));
        MT_CHECK(out != MPI_GROUP_NULL);
        MT_OK(MPI_Group_compare(out, MPI_GROUP_EMPTY, &result));
        MT_EQ(result, MPI_IDENT);
        if (out != MPI_GROUP_EMPTY) {
            MT_OK(MPI_Group_free(&out));
        }
    }
}

/* every failed constructor leaves MPI_GROUP_NULL in its output */
static void check_null_outputs(MPI_Group world)
{
    int bad[1] = {1 << 20}, range[1][3] = {{0, 1 << 20, 1}};
    MPI_Group g, excl;

    g = MPI_GROUP_EMPTY;
    MT_ERR(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM);
    MT_CHECK(g == MPI_GROUP_NULL);
    excl = MPI_GROUP_EMPTY;
    MT_ERR(MPI_Group_excl(g, 1, bad, &excl), MPI_ERR_GROUP);
    MT_CHECK(excl == MPI_GROUP_NULL);
    MT_ERR(MPI_Group_free(&g), MPI_ERR_GROUP);
    MT_ERR(MPI_Group_free(&excl), MPI_ERR_GROUP);

    g = MPI_GROUP_EMPTY;
    MT_ERR(MPI_Group_incl(MPI_GROUP_NULL, 0, NULL, &g), MPI_ERR_GROUP);
    MT_CHECK(g == MPI_GROUP_NULL);
    g = MPI_GROUP_EMPTY;
    MT_ERR(MPI_Group_incl(world, 1, bad, &g), MPI_ERR_RANK);
    MT_CHECK(g == MPI_GROUP_NULL);
    g = MPI_GROUP_EMPTY;
    MT_ERR(MPI_Group_range_incl(world, 1, range, &g), MPI_ERR_RANK);
    MT_CHECK(g == MPI_GROUP_NULL);
    g = MPI_GROUP_EMPTY;
    MT_ERR(MPI_Group_union(world, MPI_GROUP_NULL, &g), MPI_ERR_GROUP);
    MT_CHECK(g == MPI_GROUP_NULL);
}

int main(int argc, char **argv)
{
    MPI_Group world;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    check_empty_incl(world);
    check_empty_incl(MPI_GROUP_EMPTY);
    check_null_outputs(world);
    MT_OK(MPI_Group_free(&world));
    MT_OK(MPI_Finalize());
    printf("mpi_fixes1_group: ok\n");
    return 0;
}
