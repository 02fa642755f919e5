/*
 * mpi_p2pext_mprobe.c: matched probe as an ordinary MPI program at any
 * number of ranks. Every rank (rank 0 too) sends K messages of mixed sizes
 * (eager and rendezvous) and tags to rank 0, which takes them with
 * MPI_Mprobe/MPI_Improbe (wildcard and named source and tag) and, between
 * the probe and MPI_Mrecv/MPI_Imrecv, receives another message with an
 * MPI_ANY_SOURCE/MPI_ANY_TAG MPI_Recv: that receive must never get the
 * probed message. Every message arrives exactly once, intact, in order per
 * sender. Also MPI_PROC_NULL (MPI_MESSAGE_NO_PROC), truncation and error
 * classes.
 *   argv[1]: ints in a "big" message (default 20000); argv[2]: K (12)
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size, big = 20000, K = 12;

static int msg_len(int src, int k)
{
    return (src + k) % 3 == 0 ? big : 2 + (k * 7 + src) % 50;
}

static int msg_tag(int k)
{
    return 10 + k % 3;
}

static void fill(int *buf, int src, int k)
{
    int n = msg_len(src, k);

    buf[0] = src;
    buf[1] = k;
    for (int i = 2; i < n; ++i) {
        buf[i] = src * 977 + k * 131 + i;
    }
}

/* a received message is intact: its id, its length, its data */
static void check_msg(const int *buf, const MPI_Status *st)
{
    int src = buf[0], k = buf[1], count = -1;

    MT_EQ(st->MPI_SOURCE, src);
    MT_EQ(st->MPI_TAG, msg_tag(k));
    MT_OK(MPI_Get_count(st, MPI_INT, &count));
    MT_EQ(count, msg_len(src, k));
    for (int i = 2; i < count; ++i) {
        if (buf[i] != src * 977 + k * 131 + i) {
            MT_FAIL("message %d from %d: element %d is %d", k, src, i, buf[i]);
        }
    }
}

/* match order per sender: k must follow on from the last one matched */
static void matched(int *next_k, int src, int k)
{
    if (next_k[src] != k) {
        MT_FAIL("message %d from rank %d matched when %d was next (MPI order)", k, src,
                next_k[src]);
    }
    ++next_k[src];
}

static void send_all(MPI_Request *reqs, int **bufs)
{
    for (int k = 0; k < K; ++k) {
        bufs[k] = malloc(sizeof(int) * (size_t)msg_len(rank, k));
        fill(bufs[k], rank, k);
        MT_OK(MPI_Isend(bufs[k], msg_len(rank, k), MPI_INT, 0, msg_tag(k), MPI_COMM_WORLD,
                        &reqs[k]));
    }
}

/* probe one message with the selector round @p i picks: wildcards, a named
 * source, or the exact (source, tag) of that source's next message */
static void probe_one(int i, const int *next_k, MPI_Message *m, MPI_Status *st)
{
    int flag = 0, src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG, s = i % size;

    if (i % 4 == 1 && next_k[s] < K) {
        src = s;
    } else if (i % 4 == 2 && next_k[s] < K) {
        src = s;
        tag = msg_tag(next_k[s]);
    }
    if (i % 2 == 0) {
        MT_OK(MPI_Mprobe(src, tag, MPI_COMM_WORLD, m, st));
    } else {
        while (!flag) {
            MT_OK(MPI_Improbe(src, tag, MPI_COMM_WORLD, &flag, m, st));
        }
    }
    MT_CHECK(*m != MPI_MESSAGE_NULL && *m != MPI_MESSAGE_NO_PROC);
}

static void receive_all(void)
{
    int total = size * K, got = 0, *next_k = calloc((size_t)size, sizeof(int));
    int *a = malloc(sizeof(int) * (size_t)big), *b = malloc(sizeof(int) * (size_t)big);

    for (int i = 0; got < total; ++i) {
        MPI_Message m;
        MPI_Status pst, st;
        MPI_Request r;
        int psrc, count = -1, have_b = total - got >= 2;

        probe_one(i, next_k, &m, &pst);
        MT_OK(MPI_Get_count(&pst, MPI_INT, &count));
        psrc = pst.MPI_SOURCE;
        if (have_b) {
            /* a wildcard receive in between takes another message, never m */
            MT_OK(MPI_Recv(b, big, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                           &st));
            if (b[0] == psrc) {
                MT_CHECK(b[1] != next_k[psrc]);   /* next_k[psrc] is the probed one */
            }
        }
        a[0] = a[1] = -1;
        if (i % 3 == 0) {
            MT_OK(MPI_Imrecv(a, big, MPI_INT, &m, &r));
            MT_CHECK(m == MPI_MESSAGE_NULL);
            MT_OK(MPI_Wait(&r, &pst));
        } else {
            MT_OK(MPI_Mrecv(a, big, MPI_INT, &m, &pst));
            MT_CHECK(m == MPI_MESSAGE_NULL);
        }
        MT_EQ(a[0], psrc);
        matched(next_k, psrc, a[1]);   /* the probe matched it first */
        check_msg(a, &pst);
        MT_EQ(count, msg_len(psrc, a[1]));
        ++got;
        if (have_b) {
            matched(next_k, b[0], b[1]);
            check_msg(b, &st);
            ++got;
        }
    }
    for (int s = 0; s < size; ++s) {
        MT_EQ(next_k[s], K);
    }
    free(next_k);
    free(a);
    free(b);
}

static void test_many(void)
{
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)K);
    int **bufs = malloc(sizeof(int *) * (size_t)K);

    send_all(reqs, bufs);
    if (rank == 0) {
        receive_all();
    }
    MT_OK(MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; ++k) {
        free(bufs[k]);
    }
    free(bufs);
    free(reqs);
}

static void test_proc_null_and_errors(void)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    MPI_Request r;
    int flag = 0, count = -1, buf[4] = { 0 }, small[2];

    MT_OK(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &m, &st));
    MT_CHECK(m == MPI_MESSAGE_NO_PROC);
    MT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    MT_OK(MPI_Mrecv(buf, 4, MPI_INT, &m, &st));
    MT_CHECK(m == MPI_MESSAGE_NULL);
    MT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    MT_OK(MPI_Get_count(&st, MPI_INT, &count));
    MT_EQ(count, 0);
    MT_OK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
    MT_EQ(flag, 1);
    MT_CHECK(m == MPI_MESSAGE_NO_PROC);
    MT_OK(MPI_Imrecv(buf, 4, MPI_INT, &m, &r));
    MT_OK(MPI_Wait(&r, &st));
    MT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);

    /* nothing there: flag 0, message untouched */
    m = MPI_MESSAGE_NULL;
    MT_OK(MPI_Improbe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &m, &st));
    MT_EQ(flag, 0);
    MT_CHECK(m == MPI_MESSAGE_NULL);
    MT_ERR(MPI_Mrecv(buf, 4, MPI_INT, &m, &st), MPI_ERR_REQUEST);
    MT_ERR(MPI_Imrecv(buf, 4, MPI_INT, &m, &r), MPI_ERR_REQUEST);
    MT_ERR(MPI_Mprobe(size, 0, MPI_COMM_WORLD, &m, &st), MPI_ERR_RANK);
    MT_ERR(MPI_Mprobe(0, -7, MPI_COMM_WORLD, &m, &st), MPI_ERR_TAG);
    MT_ERR(MPI_Improbe(0, 0, MPI_COMM_NULL, &flag, &m, &st), MPI_ERR_COMM);

    /* truncation: the probed message is longer than the receive */
    buf[0] = 1;
    buf[1] = 2;
    buf[2] = 3;
    MT_OK(MPI_Isend(buf, 3, MPI_INT, rank, 998, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Mprobe(rank, 998, MPI_COMM_WORLD, &m, &st));
    MT_ERR(MPI_Mrecv(small, 2, MPI_INT, &m, &st), MPI_ERR_TRUNCATE);
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_EQ(small[0], 1);
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (argc > 1) {
        big = atoi(argv[1]);
    }
    if (argc > 2) {
        K = atoi(argv[2]);
    }
    test_proc_null_and_errors();
    test_many();
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_p2pext_mprobe");
    MT_OK(MPI_Finalize());
    return 0;
}
