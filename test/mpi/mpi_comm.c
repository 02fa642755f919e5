/*
 * mpi_comm.c: communicators of the MPI binding as an ordinary MPI program
 * (any number of ranks): Comm_dup (traffic isolation, inherited error
 * handler), Comm_split (colors, reversed keys, MPI_UNDEFINED),
 * Comm_compare (IDENT, CONGRUENT, SIMILAR, UNEQUAL), collectives and
 * point-to-point on derived communicators, names, attributes, Comm_free.
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size;

static void test_dup(void)
{
    MPI_Comm dup;
    MPI_Errhandler eh;
    int r, s, result, a = rank, b = -1, c = -1, sum;

    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MT_OK(MPI_Comm_rank(dup, &r));
    MT_OK(MPI_Comm_size(dup, &s));
    MT_EQ(r, rank);
    MT_EQ(s, size);
    MT_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
    MT_EQ(result, MPI_IDENT);
    MT_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    MT_EQ(result, MPI_CONGRUENT);
    /* the dup inherited MPI_ERRORS_RETURN */
    MT_OK(MPI_Comm_get_errhandler(dup, &eh));
    MT_CHECK(eh == MPI_ERRORS_RETURN);
    MT_OK(MPI_Errhandler_free(&eh));
    MT_ERR(MPI_Send(&a, 1, MPI_INT, size, 0, dup), MPI_ERR_RANK);

    /* same tag, same peers, two communicators: messages never cross */
    if (size >= 2) {
        if (rank == 0) {
            int x = 1, y = 2;
            MT_OK(MPI_Send(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
            MT_OK(MPI_Send(&y, 1, MPI_INT, 1, 5, dup));
        } else if (rank == 1) {
            MT_OK(MPI_Recv(&c, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE));
            MT_OK(MPI_Recv(&b, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MT_EQ(b, 1);
            MT_EQ(c, 2);
        }
    }
    MT_OK(MPI_Allreduce(&a, &sum, 1, MPI_INT, MPI_SUM, dup));
    MT_EQ(sum, size * (size - 1) / 2);
    MT_OK(MPI_Comm_free(&dup));
    MT_CHECK(dup == MPI_COMM_NULL);
}

static void test_split(void)
{
    MPI_Comm half, rev, none, self_like;
    int r, s, result, sum, color = rank % 2;

    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half));
    MT_OK(MPI_Comm_rank(half, &r));
    MT_OK(MPI_Comm_size(half, &s));
    MT_EQ(r, rank / 2);
    MT_EQ(s, color == 0 ? (size + 1) / 2 : size / 2);
    MT_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
    int expect = 0;
    for (int q = color; q < size; q += 2) {
        expect += q;
    }
    MT_EQ(sum, expect);
    if (s >= 2) {
        /* point-to-point by the new ranks */
        int token = r == 0 ? 1000 + color : -1;
        MT_OK(MPI_Bcast(&token, 1, MPI_INT, 0, half));
        MT_EQ(token, 1000 + color);
        MT_OK(MPI_Sendrecv_replace(&token, 1, MPI_INT, (r + 1) % s, 3, (r + s - 1) % s, 3,
                                   half, MPI_STATUS_IGNORE));
        MT_EQ(token, 1000 + color);
    }
    MT_OK(MPI_Comm_compare(MPI_COMM_WORLD, half, &result));
    MT_EQ(result, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);

    /* same group in reverse order: SIMILAR (CONGRUENT with one rank) */
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    MT_OK(MPI_Comm_rank(rev, &r));
    MT_EQ(r, size - 1 - rank);
    MT_OK(MPI_Comm_compare(MPI_COMM_WORLD, rev, &result));
    MT_EQ(result, size == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
    MT_OK(MPI_Barrier(rev));

    /* MPI_UNDEFINED: no communicator */
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none));
    if (rank == 0) {
        MT_CHECK(none != MPI_COMM_NULL);
        MT_OK(MPI_Comm_size(none, &s));
        MT_EQ(s, 1);
        MT_OK(MPI_Comm_compare(none, MPI_COMM_SELF, &result));
        MT_EQ(result, MPI_CONGRUENT);
        MT_OK(MPI_Comm_free(&none));
    } else {
        MT_CHECK(none == MPI_COMM_NULL);
    }
    /* one communicator per rank */
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &self_like));
    MT_OK(MPI_Comm_compare(self_like, MPI_COMM_SELF, &result));
    MT_EQ(result, MPI_CONGRUENT);
    MT_OK(MPI_Comm_free(&self_like));
    MT_OK(MPI_Comm_free(&rev));
    MT_OK(MPI_Comm_free(&half));
}

static void test_names_attrs(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, flag, *val, inter = -1;
    MPI_Comm dup;

    MT_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    MT_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
    MT_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    MT_CHECK(strcmp(name, "MPI_COMM_SELF") == 0);
    MT_OK(MPI_Comm_dup(MPI_COMM_SELF, &dup));
    MT_OK(MPI_Comm_get_name(dup, name, &len));
    MT_EQ(len, 0);
    MT_OK(MPI_Comm_set_name(dup, "my communicator"));
    MT_OK(MPI_Comm_get_name(dup, name, &len));
    MT_CHECK(strcmp(name, "my communicator") == 0);
    MT_OK(MPI_Comm_test_inter(dup, &inter));
    MT_EQ(inter, 0);
    MT_OK(MPI_Comm_free(&dup));

    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
    MT_CHECK(flag && *val >= 32767);
    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag));
    MT_CHECK(flag && *val == 0);
    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag));
    MT_CHECK(flag && *val == size);
    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag));
    MT_EQ(flag, 0);

    /* the largest tag works */
    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
    int x = rank, y = -1;
    MT_OK(MPI_Sendrecv(&x, 1, MPI_INT, rank, *val, &y, 1, MPI_INT, rank, *val,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_EQ(y, rank);
}

static void test_free_errors(void)
{
    MPI_Comm world = MPI_COMM_WORLD, null = MPI_COMM_NULL;

    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_ERR(MPI_Comm_free(&world), MPI_ERR_COMM);
    MT_ERR(MPI_Comm_free(&null), MPI_ERR_COMM);
    MT_ERR(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &null), MPI_ERR_ARG);
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    test_dup();
    test_split();
    test_names_attrs();
    test_free_errors();

    MT_PASS("mpi_comm");
    MT_OK(MPI_Finalize());
    return 0;
}
