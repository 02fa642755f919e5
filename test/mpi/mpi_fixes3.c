/*
 * mpi_fixes3.c: regression programs for the defects of issue #18 (review of
 * the MPI-3.1 work), one mode per defect, chosen by argv[1]:
 *
 *   mprobe    rank 0 sends a rendezvous message (1 MiB), an ssend and an
 *             eager message to rank 1, which only MPI_Mprobe's/MPI_Improbe's
 *             them and never receives. Both ranks must finalize (finalize
 *             NAKs the probed synchronous ones and frees all three) instead
 *             of hanging; the driver checks the warnings.
 *   persist   (3+ ranks) a persistent send on a split communicator that is
 *             freed before MPI_Start: the request keeps the communicator
 *             alive, so the message reaches the right rank on the right
 *             context and not a communicator created afterwards.
 *   collcreate  a collective mismatch queued behind a create_group message
 *             is reported (mode_collcreate), not waited for.
 *   f2c       MPI_Comm_c2f/f2c and the other handle conversions: a freed
 *             handle's index converts back to the null handle.
 *
 * Each mode prints "mpi_fixes3 MODE: passed on N ranks" at the end.
 */
#include "mpi_test_util.h"

#include <string.h>
#include <unistd.h>

static int rank, size;

static void mode_mprobe(void)
{
    enum { BIG = 1 << 20 };
    char *buf = calloc(BIG, 1);
    int small = 7, eager = 9;

    MT_CHECK(buf != NULL);
    if (rank == 0) {
        MPI_Request r[3];
        MT_OK(MPI_Isend(buf, BIG, MPI_CHAR, 1, 5, MPI_COMM_WORLD, &r[0]));
        MT_OK(MPI_Issend(&small, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &r[1]));
        MT_OK(MPI_Isend(&eager, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[2]));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    } else if (rank == 1) {
        MPI_Message m[3];
        MPI_Status st;
        int flag = 0, n = 0;
        MT_OK(MPI_Mprobe(0, 5, MPI_COMM_WORLD, &m[0], &st));
        MT_OK(MPI_Get_count(&st, MPI_CHAR, &n));
        MT_EQ(n, BIG);
        MT_OK(MPI_Mprobe(0, 6, MPI_COMM_WORLD, &m[1], &st));
        while (!flag) {
            MT_OK(MPI_Improbe(0, 7, MPI_COMM_WORLD, &flag, &m[2], &st));
        }
        MT_EQ(st.MPI_TAG, 7);
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    } else {
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(buf);
}

/* world ranks 1 and 2 form c; rank 1's persistent send to c rank 1 (world 2)
 * is started after c was freed and d (which may take c's context id) made */
static void mode_persist(void)
{
    MPI_Comm c, d;
    MPI_Request r = MPI_REQUEST_NULL, rr = MPI_REQUEST_NULL;
    MPI_Status st;
    int x = 42 + rank, y = -1;

    MT_CHECK(size >= 3);
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank >= 1, rank, &c));
    if (rank == 1) {
        MT_OK(MPI_Send_init(&x, 1, MPI_INT, 1, 7, c, &r));
    } else if (rank == 2) {
        MT_OK(MPI_Recv_init(&y, 1, MPI_INT, 0, 7, c, &rr));
    }
    MT_OK(MPI_Comm_free(&c));
    MT_CHECK(c == MPI_COMM_NULL);
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    if (rank == 1) {
        MT_OK(MPI_Start(&r));
        MT_OK(MPI_Wait(&r, &st));
        MT_OK(MPI_Start(&r));   /* a second round, still on the freed c */
        MT_OK(MPI_Wait(&r, &st));
        MT_OK(MPI_Request_free(&r));
    } else if (rank == 2) {
        int flag = 1;
        for (int round = 0; round < 2; ++round) {
            y = -1;
            MT_OK(MPI_Start(&rr));
            MT_OK(MPI_Wait(&rr, &st));
            MT_EQ(y, 43);
            MT_EQ(st.MPI_SOURCE, 0);   /* c rank 0 = world 1 */
            MT_EQ(st.MPI_TAG, 7);
        }
        MT_OK(MPI_Request_free(&rr));
        /* nothing arrived on d, which may have reused c's context id */
        MT_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d, &flag, &st));
        MT_EQ(flag, 0);
    }
    MT_OK(MPI_Barrier(d));
    /* the requests are gone: c's context id is free for a new communicator */
    MT_OK(MPI_Comm_free(&d));
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank >= 1, rank, &c));
    MT_OK(MPI_Barrier(c));
    MT_OK(MPI_Comm_free(&c));
}

/*
 * (3 ranks, run with LOOM_BCAST_ALGORITHM=chain and a point-to-point barrier)
 * Rank 0 starts an ibcast rooted at 2 (chain 2 -> 0 -> 1), then
 * create_group({0, 1}) sends rank 1 a create message and waits for rank 1;
 * rank 2's ibcast reaches rank 0, whose progress forwards it to rank 1,
 * queued behind the create message. Rank 1 calls a barrier instead: its
 * mismatch check must look past the create message, report "rank 1 called
 * barrier but rank 0 called bcast" and fail (the job aborts), not hang.
 */
static void mode_collcreate(void)
{
    MPI_Group world_group, pair;
    MPI_Comm c;
    MPI_Request r;
    int v = 5, ranks[2] = { 0, 1 };

    MT_CHECK(size == 3);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    MT_OK(MPI_Group_incl(world_group, 2, ranks, &pair));
    if (rank == 0) {
        MT_OK(MPI_Ibcast(&v, 1, MPI_INT, 2, MPI_COMM_WORLD, &r));
        MT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, pair, 3, &c));
        MT_FAIL("create_group returned although rank 1 never called it");
    } else if (rank == 2) {
        MT_OK(MPI_Ibcast(&v, 1, MPI_INT, 2, MPI_COMM_WORLD, &r));
        MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MT_OK(MPI_Recv(&v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_FAIL("rank 1 never sends tag 99");
    } else {
        usleep(300000);   /* the create message and the bcast's are queued here */
        MPI_Barrier(MPI_COMM_WORLD);
        MT_FAIL("the barrier returned although rank 0 called bcast");
    }
}

static void f2c_op_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void f2c_errh_fn(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
}

/* every freeable kind: c2f, free, then f2c of the old index is the null
 * handle (the table entry went with the object); predefined ones stay */
static void mode_f2c(void)
{
    MPI_Comm c;
    MPI_Datatype t;
    MPI_Group g;
    MPI_Info info;
    MPI_Op op;
    MPI_Errhandler eh;
    MPI_Request r;
    MPI_Fint fc, ft, fg, fi, fo, fe, fr;
    int x = 0;

    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MT_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    MT_OK(MPI_Info_create(&info));
    MT_OK(MPI_Op_create(f2c_op_fn, 1, &op));
    MT_OK(MPI_Comm_create_errhandler(f2c_errh_fn, &eh));
    MT_OK(MPI_Send_init(&x, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &r));
    fc = MPI_Comm_c2f(c);
    ft = MPI_Type_c2f(t);
    fg = MPI_Group_c2f(g);
    fi = MPI_Info_c2f(info);
    fo = MPI_Op_c2f(op);
    fe = MPI_Errhandler_c2f(eh);
    fr = MPI_Request_c2f(r);
    MT_CHECK(MPI_Comm_f2c(fc) == c && MPI_Type_f2c(ft) == t && MPI_Group_f2c(fg) == g &&
             MPI_Info_f2c(fi) == info && MPI_Op_f2c(fo) == op &&
             MPI_Errhandler_f2c(fe) == eh && MPI_Request_f2c(fr) == r);
    MT_OK(MPI_Comm_free(&c));
    MT_OK(MPI_Type_free(&t));
    MT_OK(MPI_Group_free(&g));
    MT_OK(MPI_Info_free(&info));
    MT_OK(MPI_Op_free(&op));
    MT_OK(MPI_Errhandler_free(&eh));
    MT_OK(MPI_Request_free(&r));
    MT_CHECK(MPI_Comm_f2c(fc) == MPI_COMM_NULL);
    MT_CHECK(MPI_Type_f2c(ft) == MPI_DATATYPE_NULL);
    MT_CHECK(MPI_Group_f2c(fg) == MPI_GROUP_NULL);
    MT_CHECK(MPI_Info_f2c(fi) == MPI_INFO_NULL);
    MT_CHECK(MPI_Op_f2c(fo) == MPI_OP_NULL);
    MT_CHECK(MPI_Errhandler_f2c(fe) == MPI_ERRHANDLER_NULL);
    MT_CHECK(MPI_Request_f2c(fr) == MPI_REQUEST_NULL);
    MT_CHECK(MPI_Comm_f2c(1) == MPI_COMM_WORLD && MPI_Comm_f2c(2) == MPI_COMM_SELF);
    MT_CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_INT)) == MPI_INT);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(mode, "mprobe") == 0) {
        mode_mprobe();
    } else if (strcmp(mode, "persist") == 0) {
        mode_persist();
    } else if (strcmp(mode, "f2c") == 0) {
        mode_f2c();
    } else if (strcmp(mode, "collcreate") == 0) {
        mode_collcreate();
    } else {
        MT_FAIL("unknown mode '%s' (mprobe, persist, f2c)", mode);
    }
    MPI_Finalize();
    if (rank == 0) {
        printf("mpi_fixes3 %s: passed on %d ranks\n", mode, size);
    }
    return 0;
}
