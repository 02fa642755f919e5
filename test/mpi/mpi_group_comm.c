/*
 * mpi_group_comm.c: communicators made from groups, at any rank count.
 *
 *   Comm_create        one group everywhere (reversed world), a group that
 *                      leaves ranks out (they get MPI_COMM_NULL), disjoint
 *                      groups in one call (evens pass the evens, odds the
 *                      odds), MPI_GROUP_EMPTY
 *   Comm_create_group  evens and odds at once, twice (the second pair must
 *                      not collide with the first: traffic on all four with
 *                      the same tag), and a group whose non-members do not
 *                      call at all
 *   Comm_split_type    MPI_COMM_TYPE_SHARED (one host: everyone, by key),
 *                      MPI_UNDEFINED -> MPI_COMM_NULL, a bad type
 *   Comm_idup          overlapped with traffic on the parent; two at once
 *   dup_with_info, compare (IDENT/CONGRUENT/SIMILAR/UNEQUAL), test_inter,
 *   set/get_name, and the error classes of bad arguments.
 * Every new communicator carries a ring exchange and an allreduce whose
 * results are checked.
 */
#include "mpi_test_util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me, np;

/* @p c holds world ranks want[0..n-1] in order; traffic and a collective work. */
static void check_comm(MPI_Comm c, int n, const int want[])
{
    int size, rank, sum = 0, got, left, right, mine = -1, w, res;
    MPI_Group gc, gw;

    MT_OK(MPI_Comm_size(c, &size));
    MT_OK(MPI_Comm_rank(c, &rank));
    MT_EQ(size, n);
    for (int i = 0; i < n; ++i) {
        if (want[i] == me) {
            mine = i;
        }
        sum += want[i];
    }
    MT_EQ(rank, mine);
    MT_OK(MPI_Comm_group(c, &gc));            /* the communicator's group is the list */
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &gw));
    for (int i = 0; i < n; ++i) {
        MT_OK(MPI_Group_translate_ranks(gc, 1, &i, gw, &w));
        MT_EQ(w, want[i]);
    }
    MT_OK(MPI_Group_free(&gc));
    MT_OK(MPI_Group_free(&gw));
    MT_OK(MPI_Allreduce(&me, &got, 1, MPI_INT, MPI_SUM, c));
    MT_EQ(got, sum);
    right = (rank + 1) % n;
    left = (rank - 1 + n) % n;
    MT_OK(MPI_Sendrecv(&me, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, c,
                       MPI_STATUS_IGNORE));
    MT_EQ(got, want[left]);
    MT_OK(MPI_Comm_compare(c, c, &res));
    MT_EQ(res, MPI_IDENT);
}

static void test_create_same(MPI_Group gw)
{
    int *rev = malloc(sizeof(int) * (size_t)np), half = (np + 1) / 2, res;
    MPI_Group g;
    MPI_Comm c;

    for (int i = 0; i < np; ++i) rev[i] = np - 1 - i;
    MT_OK(MPI_Group_incl(gw, np, rev, &g));
    MT_OK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    check_comm(c, np, rev);
    MT_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    MT_EQ(res, np == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
    MT_OK(MPI_Comm_free(&c));
    MT_OK(MPI_Group_free(&g));
    /* the first half, as listed by everyone: the others get MPI_COMM_NULL */
    int range[1][3] = { { 0, half - 1, 1 } };
    MT_OK(MPI_Group_range_incl(gw, 1, range, &g));
    MT_OK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    if (me < half) {
        for (int i = 0; i < half; ++i) rev[i] = i;
        check_comm(c, half, rev);
        MT_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
        MT_EQ(res, half == np ? MPI_CONGRUENT : MPI_UNEQUAL);
        MT_OK(MPI_Comm_free(&c));
    } else {
        MT_CHECK(c == MPI_COMM_NULL);
    }
    MT_OK(MPI_Group_free(&g));
    MT_OK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    MT_CHECK(c == MPI_COMM_NULL);
    free(rev);
}

/* My parity class of WORLD as a group, listed backwards; its world ranks in want. */
static int parity_group(MPI_Group gw, MPI_Group *g, int want[])
{
    int n = 0;

    for (int i = np - 1; i >= 0; --i) {
        if (i % 2 == me % 2) {
            want[n++] = i;
        }
    }
    MT_OK(MPI_Group_incl(gw, n, want, g));
    return n;
}

static void test_create_disjoint(MPI_Group gw)
{
    int *want = malloc(sizeof(int) * (size_t)np), n, res;
    MPI_Group g;
    MPI_Comm c, d;

    n = parity_group(gw, &g, want);
    MT_OK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));   /* evens and odds in one call */
    check_comm(c, n, want);
    MT_OK(MPI_Comm_dup(c, &d));
    MT_OK(MPI_Comm_compare(c, d, &res));
    MT_EQ(res, MPI_CONGRUENT);
    MT_OK(MPI_Comm_free(&d));
    MT_OK(MPI_Comm_free(&c));
    MT_OK(MPI_Group_free(&g));
    free(want);
}

/* Same peer, same tag on both communicators: each message stays on its own. */
static void two_comm_traffic(MPI_Comm c[2], int n, const int want[])
{
    int got[2], tok[2], r[2], sz[2];
    MPI_Request rq[4];

    for (int k = 0; k < 2; ++k) {
        MT_OK(MPI_Comm_rank(c[k], &r[k]));
        MT_OK(MPI_Comm_size(c[k], &sz[k]));
        tok[k] = 1000 * (k + 1) + me;
        MT_OK(MPI_Isend(&tok[k], 1, MPI_INT, (r[k] + 1) % sz[k], 3, c[k], &rq[k]));
    }
    for (int k = 1; k >= 0; --k) {
        MT_OK(MPI_Irecv(&got[k], 1, MPI_INT, (r[k] - 1 + sz[k]) % sz[k], 3, c[k],
                        &rq[2 + k]));
    }
    MT_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 2; ++k) {
        MT_EQ(got[k], 1000 * (k + 1) + want[(r[k] - 1 + n) % n]);
    }
}

static void test_create_group(MPI_Group gw)
{
    int *want = malloc(sizeof(int) * (size_t)np), n, res;
    MPI_Comm c[2];
    MPI_Request rq;
    MPI_Group g;

    n = parity_group(gw, &g, want);
    /* a nonblocking collective on the parent stays in flight meanwhile: its
     * checks must take the agreement's messages for no collective's */
    MT_OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
    for (int k = 0; k < 2; ++k) {                 /* evens and odds at once, twice */
        MT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c[k]));
        check_comm(c[k], n, want);
    }
    MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MT_OK(MPI_Comm_compare(c[0], c[1], &res));
    MT_EQ(res, MPI_CONGRUENT);
    two_comm_traffic(c, n, want);
    /* free one and make it again (its id may come back): still apart */
    MT_OK(MPI_Comm_free(&c[0]));
    MT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 8, &c[0]));
    check_comm(c[0], n, want);
    two_comm_traffic(c, n, want);
    MT_OK(MPI_Comm_free(&c[0]));
    MT_OK(MPI_Comm_free(&c[1]));
    MT_OK(MPI_Group_free(&g));
    free(want);
}

/*
 * Rank 0 keeps testing an Ibarrier on WORLD (held open by the last rank,
 * which sleeps) while the others' create_group messages already wait for it
 * on WORLD's collective context: the barrier's mismatch check must not take
 * them for a wrong collective. Tag 0 reads like the first collective's
 * number, so a check that decoded it as one would fail here (run first).
 */
static void test_create_group_while_waiting(MPI_Group gw)
{
    int *want = malloc(sizeof(int) * (size_t)np), n = np - 1, flag = 0;
    MPI_Request rq;
    MPI_Group g;
    MPI_Comm c;

    for (int i = 0; i < n; ++i) want[i] = i;
    MT_OK(MPI_Group_incl(gw, n, want, &g));
    MT_OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
    if (me == np - 1) {
        usleep(300000);
    } else {
        if (me == 0) {
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.1) {
                MT_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
                MT_EQ(flag, 0);
            }
        }
        MT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c));
        check_comm(c, n, want);
        MT_OK(MPI_Comm_free(&c));
    }
    MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MT_OK(MPI_Group_free(&g));
    free(want);
}

/* Only the members of {np-1, 0, 1} call; the others go on to the barrier. */
static void test_create_group_partial(MPI_Group gw)
{
    int list[3] = { np - 1, 0, 1 }, n = np >= 3 ? 3 : np;
    MPI_Group g;
    MPI_Comm c;

    if (np == 2) {
        list[0] = 1;
        list[1] = 0;
    }
    MT_OK(MPI_Group_incl(gw, n, list, &g));
    if (me == np - 1 || me == 0 || me == 1) {
        MT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 12345, &c));
        check_comm(c, n, list);
        MT_OK(MPI_Comm_free(&c));
    }
    MT_OK(MPI_Group_free(&g));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_split_type(void)
{
    int *want = malloc(sizeof(int) * (size_t)np), n = 0, res;
    MPI_Comm c;

    for (int i = np - 1; i >= 0; --i) want[n++] = i;
    MT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -me, MPI_INFO_NULL, &c));
    check_comm(c, np, want);                      /* loomrun runs every rank here */
    MT_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    MT_EQ(res, np == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
    MT_OK(MPI_Comm_free(&c));
    MT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
                              0, MPI_INFO_NULL, &c));
    if (me == 0) {
        MT_CHECK(c == MPI_COMM_NULL);
    } else {
        for (int i = 1; i < np; ++i) want[i - 1] = i;
        check_comm(c, np - 1, want);
        MT_OK(MPI_Comm_free(&c));
    }
    MT_ERR(MPI_Comm_split_type(MPI_COMM_WORLD, 4711, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG);
    MT_CHECK(c == MPI_COMM_NULL);
    free(want);
}

static void test_idup(void)
{
    int *want = malloc(sizeof(int) * (size_t)np), got = -1, res, flag = 0;
    MPI_Comm c[2];
    MPI_Request rq[2];

    for (int i = 0; i < np; ++i) want[i] = i;
    MT_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c[0], &rq[0]));
    /* traffic on the parent while the dup agrees */
    MT_OK(MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % np, 9, &got, 1, MPI_INT,
                       (me - 1 + np) % np, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_EQ(got, (me - 1 + np) % np);
    MT_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c[1], &rq[1]));
    MT_OK(MPI_Allreduce(&me, &got, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    MT_EQ(got, np - 1);
    MT_OK(MPI_Test(&rq[1], &flag, MPI_STATUS_IGNORE));   /* may or may not be done */
    MT_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 2; ++k) {
        check_comm(c[k], np, want);
        MT_OK(MPI_Comm_compare(c[k], MPI_COMM_WORLD, &res));
        MT_EQ(res, MPI_CONGRUENT);
    }
    MT_OK(MPI_Comm_compare(c[0], c[1], &res));
    MT_EQ(res, MPI_CONGRUENT);
    MT_OK(MPI_Comm_free(&c[0]));
    MT_OK(MPI_Comm_free(&c[1]));
    free(want);
}

static void test_misc(void)
{
    MPI_Comm c;
    int res, flag = 1, len;
    char name[MPI_MAX_OBJECT_NAME];

    MT_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c));
    MT_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    MT_EQ(res, MPI_CONGRUENT);
    MT_OK(MPI_Comm_test_inter(c, &flag));
    MT_EQ(flag, 0);
    MT_OK(MPI_Comm_set_name(c, "from groups"));
    MT_OK(MPI_Comm_get_name(c, name, &len));
    MT_EQ(len, 11);
    MT_EQ(strcmp(name, "from groups"), 0);
    MT_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res));
    MT_EQ(res, np == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
    MT_OK(MPI_Comm_free(&c));
}

static void test_errors(MPI_Group gw)
{
    MPI_Comm c = MPI_COMM_NULL, half;
    MPI_Group g;
    int last = np - 1;

    MT_ERR(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP);
    MT_ERR(MPI_Comm_create(MPI_COMM_NULL, gw, &c), MPI_ERR_COMM);
    MT_ERR(MPI_Comm_create_group(MPI_COMM_WORLD, gw, -1, &c), MPI_ERR_TAG);
    MT_ERR(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c), MPI_ERR_GROUP);
    MT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 0, &c));   /* no member */
    MT_CHECK(c == MPI_COMM_NULL);
    MT_ERR(MPI_Comm_create(MPI_COMM_WORLD, gw, NULL), MPI_ERR_ARG);
    MT_ERR(MPI_Comm_idup(MPI_COMM_NULL, &c, NULL), MPI_ERR_COMM);
    MT_CHECK(c == MPI_COMM_NULL);
    if (np > 1) {
        /* a group member that is not in the communicator: MPI_ERR_GROUP */
        MT_OK(MPI_Comm_split(MPI_COMM_WORLD, me == last, 0, &half));
        int pair[2] = { me, last };
        if (me != last) {
            MT_OK(MPI_Group_incl(gw, 2, pair, &g));
            MT_ERR(MPI_Comm_create_group(half, g, 0, &c), MPI_ERR_GROUP);
            /* collective over half: the error still takes part, nobody hangs */
            MT_ERR(MPI_Comm_create(half, g, &c), MPI_ERR_GROUP);
            MT_CHECK(c == MPI_COMM_NULL);
            MT_OK(MPI_Group_free(&g));
        } else {
            MT_OK(MPI_Comm_create(half, MPI_GROUP_EMPTY, &c));   /* half is just me */
            MT_CHECK(c == MPI_COMM_NULL);
        }
        MT_OK(MPI_Comm_free(&half));
    }
}

int main(int argc, char **argv)
{
    MPI_Group gw;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &gw));
    if (np >= 3) {
        test_create_group_while_waiting(gw);
    }
    test_create_same(gw);
    test_create_disjoint(gw);
    test_create_group(gw);
    test_create_group_partial(gw);
    test_split_type();
    test_idup();
    test_misc();
    test_errors(gw);
    MT_OK(MPI_Group_free(&gw));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_group_comm");
    MT_OK(MPI_Finalize());
    return 0;
}
