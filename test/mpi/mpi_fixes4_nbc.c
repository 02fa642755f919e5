/*
 * mpi_fixes4_nbc.c: nonblocking collectives of the same and of different
 * kinds in flight at once, with blocking collectives and point-to-point
 * between them (regression for two MPI_Ibcast in flight over tcp hanging
 * or failing with "bcast #N ... had finished its part").
 *
 * The defect: the "mcast" bcast agrees once per communicator whether every
 * rank joined a multicast group (an allreduce). A second bcast started
 * while the first one's agreement was still in flight ran an agreement of
 * its own, but only on the ranks where the outcome was not known yet: the
 * others took the tree at once, so the extra agreement's messages met a
 * finished bcast (mismatch report) or nobody (hang). It shows on the first
 * bcasts of a communicator, so every round here uses a fresh MPI_Comm_dup
 * (kept until the end, so no context id and its agreed entry is reused),
 * and the even ranks complete the first MPI_Ibcast before they start the
 * second while the odd ranks start both at once: before the fix the ranks
 * then disagreed on every such communicator. Sizes alternate between one
 * int (tcp: mcast) and 16 KiB (above the shm bcast's limit on the default
 * transports, so mcast there too). After the bcast pair, an Iallreduce, an
 * Ibarrier, an Iallgather and a third Ibcast are in flight together around
 * a blocking Allreduce, Bcast and a Sendrecv ring; everything is checked
 * exactly. Usage: mpi_fixes4_nbc [rounds] (default 16).
 */
#include "mpi_test_util.h"

#define BIG    4096   /* ints: 16 KiB */
#define MAXRND 64

static int val(int round, int which, int i)
{
    return round * 1000003 + which * 100000 + i;
}

/* root's data in, everyone's checked out */
static void fill(int *buf, int n, int round, int which, int me, int root)
{
    for (int i = 0; i < n; ++i) {
        buf[i] = me == root ? val(round, which, i) : -1;
    }
}

static void check(const int *buf, int n, int round, int which)
{
    for (int i = 0; i < n; ++i) {
        if (buf[i] != val(round, which, i)) {
            MT_FAIL("round %d bcast %d: element %d is %d, expected %d", round, which, i,
                    buf[i], val(round, which, i));
        }
    }
}

/* two bcasts of one kind in flight on a fresh communicator, skewed start */
static void bcast_pair(MPI_Comm c, int round, int me, int np, int *a, int *b, int n)
{
    MPI_Request rq[2];
    int root = round % np, got = -1, right = (me + 1) % np, left = (me + np - 1) % np;

    fill(a, n, round, 1, me, root);
    fill(b, n, round, 2, me, root);
    MT_OK(MPI_Ibcast(a, n, MPI_INT, root, c, &rq[0]));
    if (me % 2 == 0) {
        MT_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    }
    MT_OK(MPI_Ibcast(b, n, MPI_INT, root, c, &rq[1]));
    MT_OK(MPI_Sendrecv(&me, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, c,
                       MPI_STATUS_IGNORE));
    MT_EQ(got, left);
    MT_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    check(a, n, round, 1);
    check(b, n, round, 2);
}

/* different kinds in flight together, blocking ones and p2p between */
static void mixed(MPI_Comm c, int round, int me, int np, int *a, int *gath)
{
    MPI_Request rq[4];
    int root = (round + 1) % np, sum = -1, mx = -1, blk = -1, got = -1, one = me + round;

    fill(a, 1, round, 3, me, root);
    MT_OK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c, &rq[0]));
    MT_OK(MPI_Ibcast(a, 1, MPI_INT, root, c, &rq[1]));
    MT_OK(MPI_Ibarrier(c, &rq[2]));
    MT_OK(MPI_Allreduce(&me, &mx, 1, MPI_INT, MPI_MAX, c));
    MT_OK(MPI_Iallgather(&one, 1, MPI_INT, gath, 1, MPI_INT, c, &rq[3]));
    MT_OK(MPI_Sendrecv(&me, 1, MPI_INT, (me + np - 1) % np, 7, &got, 1, MPI_INT,
                       (me + 1) % np, 7, c, MPI_STATUS_IGNORE));
    blk = me == 0 ? round : -1;
    MT_OK(MPI_Bcast(&blk, 1, MPI_INT, 0, c));
    MT_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    MT_EQ(mx, np - 1);
    MT_EQ(got, (me + 1) % np);
    MT_EQ(blk, round);
    MT_EQ(sum, np * (np - 1) / 2 + np * round);
    check(a, 1, round, 3);
    for (int q = 0; q < np; ++q) {
        MT_EQ(gath[q], q + round);
    }
}

int main(int argc, char **argv)
{
    static int a[BIG], b[BIG], gath[1024];
    MPI_Comm comms[MAXRND];
    int me, np, rounds = argc > 1 ? atoi(argv[1]) : 16;

    MT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MT_CHECK(rounds > 0 && rounds <= MAXRND && np <= 1024);
    for (int r = 0; r < rounds; ++r) {
        MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[r]));
        MPI_Comm_set_errhandler(comms[r], MPI_ERRORS_RETURN);
        bcast_pair(comms[r], r, me, np, a, b, r % 2 ? BIG : 1);
        mixed(comms[r], r, me, np, a, gath);
        /* and on WORLD, whose bcasts agreed in round 0 */
        bcast_pair(MPI_COMM_WORLD, r, me, np, a, b, r % 2 ? 1 : BIG);
    }
    for (int r = 0; r < rounds; ++r) {
        MT_OK(MPI_Comm_free(&comms[r]));
    }
    MT_PASS("mpi_fixes4_nbc");
    MT_OK(MPI_Finalize());
    return 0;
}
