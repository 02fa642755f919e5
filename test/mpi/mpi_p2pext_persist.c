/*
 * mpi_p2pext_persist.c: persistent requests, generalized requests,
 * MPI_Request_get_status, MPI_Sendrecv_replace and MPI_Cancel, as an
 * ordinary MPI program at any number of ranks (1 sends to itself).
 *   argv[1]: elements per ring message (default 1000 ints; the driver also
 *   runs it with LOOM_EAGER_LIMIT small so they go by rendezvous)
 *   argv[2]: ring iterations (default 100)
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size, left, right, nelem = 1000, iters = 100;

static int val(int iter, int src, int i)
{
    return iter * 1000003 + src * 7919 + i;
}

static void fill(int *buf, int iter, int src)
{
    for (int i = 0; i < nelem; ++i) {
        buf[i] = val(iter, src, i);
    }
}

static void check_buf(const int *buf, int iter, int src)
{
    for (int i = 0; i < nelem; ++i) {
        if (buf[i] != val(iter, src, i)) {
            MT_FAIL("iter %d: element %d from rank %d is %d, expected %d", iter, i, src,
                    buf[i], val(iter, src, i));
        }
    }
}

/* complete the pair [recv, send] with the method iter selects */
static void complete_pair(MPI_Request reqs[2], int iter)
{
    MPI_Status st[2];
    int done = 0, idx, flag, out, ids[2];

    switch (iter % 4) {
    case 0:
        MT_OK(MPI_Waitall(2, reqs, st));
        MT_EQ(st[0].MPI_SOURCE, left);
        MT_EQ(st[0].MPI_TAG, 10);
        break;
    case 1:
        while (done < 2) {
            MT_OK(MPI_Testany(2, reqs, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                MT_CHECK(idx == 0 || idx == 1);
                ++done;
            }
        }
        /* both inactive now: Testany says flag with MPI_UNDEFINED */
        MT_OK(MPI_Testany(2, reqs, &idx, &flag, MPI_STATUS_IGNORE));
        MT_EQ(flag, 1);
        MT_EQ(idx, MPI_UNDEFINED);
        break;
    case 2:
        while (done < 2) {
            MT_OK(MPI_Waitsome(2, reqs, &out, ids, st));
            MT_CHECK(out >= 1 && out <= 2);
            done += out;
        }
        MT_OK(MPI_Waitsome(2, reqs, &out, ids, st));
        MT_EQ(out, MPI_UNDEFINED);
        break;
    default:
        MT_OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
        do {
            MT_OK(MPI_Test(&reqs[0], &flag, &st[0]));
        } while (!flag);
        MT_EQ(st[0].MPI_SOURCE, left);
        break;
    }
    /* persistent handles survive completion */
    MT_CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL);
}

static void test_ring_loop(void)
{
    int *sbuf = malloc(sizeof(int) * (size_t)nelem), *rbuf = malloc(sizeof(int) * (size_t)nelem);
    MPI_Request reqs[2];

    MT_OK(MPI_Recv_init(rbuf, nelem, MPI_INT, left, 10, MPI_COMM_WORLD, &reqs[0]));
    MT_OK(MPI_Send_init(sbuf, nelem, MPI_INT, right, 10, MPI_COMM_WORLD, &reqs[1]));
    for (int iter = 0; iter < iters; ++iter) {
        fill(sbuf, iter, rank);
        memset(rbuf, 0xff, sizeof(int) * (size_t)nelem);
        if (iter % 2 == 0) {
            MT_OK(MPI_Startall(2, reqs));
        } else {
            MT_OK(MPI_Start(&reqs[0]));
            MT_OK(MPI_Start(&reqs[1]));
        }
        complete_pair(reqs, iter);
        check_buf(rbuf, iter, left);
    }
    MT_OK(MPI_Request_free(&reqs[0]));
    MT_OK(MPI_Request_free(&reqs[1]));
    MT_CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
    free(sbuf);
    free(rbuf);
}

/* persistent and ordinary requests in one array */
static void test_mixed_array(void)
{
    int a = 0, b = 0, sa = rank + 100, sb = rank + 200;
    MPI_Request reqs[4];
    MPI_Status st[4];

    MT_OK(MPI_Recv_init(&a, 1, MPI_INT, left, 20, MPI_COMM_WORLD, &reqs[0]));
    MT_OK(MPI_Ssend_init(&sa, 1, MPI_INT, right, 20, MPI_COMM_WORLD, &reqs[2]));
    for (int iter = 0; iter < 10; ++iter) {
        MT_OK(MPI_Irecv(&b, 1, MPI_INT, left, 21, MPI_COMM_WORLD, &reqs[1]));
        MT_OK(MPI_Isend(&sb, 1, MPI_INT, right, 21, MPI_COMM_WORLD, &reqs[3]));
        MT_OK(MPI_Start(&reqs[0]));
        MT_OK(MPI_Start(&reqs[2]));
        MT_OK(MPI_Waitall(4, reqs, st));
        MT_EQ(a, left + 100 + iter);
        MT_EQ(b, left + 200 + iter);
        MT_EQ(st[0].MPI_TAG, 20);
        MT_EQ(st[1].MPI_TAG, 21);
        MT_CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL);
        MT_CHECK(reqs[1] == MPI_REQUEST_NULL && reqs[3] == MPI_REQUEST_NULL);
        ++sa;
        ++sb;
    }
    MT_OK(MPI_Request_free(&reqs[0]));
    MT_OK(MPI_Request_free(&reqs[2]));
}

static void check_empty(const MPI_Status *st)
{
    int count = -1;

    MT_EQ(st->MPI_SOURCE, MPI_ANY_SOURCE);
    MT_EQ(st->MPI_TAG, MPI_ANY_TAG);
    MT_OK(MPI_Get_count(st, MPI_INT, &count));
    MT_EQ(count, 0);
}

static void test_inactive(void)
{
    int v = 0, idx = -2, flag = 0, out = -2, ids[2];
    MPI_Request reqs[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL }, plain;
    MPI_Status st;

    MT_OK(MPI_Recv_init(&v, 1, MPI_INT, left, 30, MPI_COMM_WORLD, &reqs[0]));
    st.MPI_SOURCE = 77;
    MT_OK(MPI_Wait(&reqs[0], &st));                 /* returns at once */
    check_empty(&st);
    MT_CHECK(reqs[0] != MPI_REQUEST_NULL);
    MT_OK(MPI_Test(&reqs[0], &flag, &st));
    MT_EQ(flag, 1);
    check_empty(&st);
    MT_OK(MPI_Waitany(2, reqs, &idx, &st));
    MT_EQ(idx, MPI_UNDEFINED);
    MT_OK(MPI_Waitsome(2, reqs, &out, ids, MPI_STATUSES_IGNORE));
    MT_EQ(out, MPI_UNDEFINED);
    MT_OK(MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE));
    MT_EQ(flag, 1);
    MT_OK(MPI_Request_get_status(reqs[0], &flag, &st));
    MT_EQ(flag, 1);
    check_empty(&st);

    /* errors: start of an active, a null or an ordinary request; bad arguments */
    MT_OK(MPI_Start(&reqs[0]));
    MT_ERR(MPI_Start(&reqs[0]), MPI_ERR_REQUEST);
    MT_ERR(MPI_Startall(1, reqs), MPI_ERR_REQUEST);
    MT_ERR(MPI_Start(&reqs[1]), MPI_ERR_REQUEST);
    MT_OK(MPI_Irecv(&idx, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &plain));
    MT_ERR(MPI_Start(&plain), MPI_ERR_REQUEST);
    MT_OK(MPI_Wait(&plain, MPI_STATUS_IGNORE));
    MT_ERR(MPI_Send_init(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &plain), MPI_ERR_RANK);
    MT_ERR(MPI_Send_init(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &plain), MPI_ERR_TAG);
    MT_ERR(MPI_Recv_init(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &plain), MPI_ERR_COUNT);
    MT_ERR(MPI_Recv_init(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &plain), MPI_ERR_COMM);
    MT_ERR(MPI_Startall(-1, reqs), MPI_ERR_COUNT);

    /* complete the started receive; an active persistent request freed
     * completes in the background and goes */
    {
        int s = 31, r2 = 0;
        MPI_Request sreq, rreq;

        MT_OK(MPI_Send(&s, 1, MPI_INT, right, 30, MPI_COMM_WORLD));
        MT_OK(MPI_Wait(&reqs[0], &st));
        MT_EQ(v, 31);
        MT_EQ(st.MPI_SOURCE, left);
        MT_OK(MPI_Request_free(&reqs[0]));           /* inactive: freed now */
        MT_CHECK(reqs[0] == MPI_REQUEST_NULL);

        MT_OK(MPI_Recv_init(&r2, 1, MPI_INT, left, 32, MPI_COMM_WORLD, &rreq));
        MT_OK(MPI_Start(&rreq));
        MT_OK(MPI_Request_free(&rreq));               /* active: freed at completion */
        MT_OK(MPI_Send_init(&s, 1, MPI_INT, right, 32, MPI_COMM_WORLD, &sreq));
        MT_OK(MPI_Start(&sreq));
        MT_OK(MPI_Request_free(&sreq));
        /* the ring's next message on another tag: once it is here, so is tag 32 */
        MT_OK(MPI_Sendrecv(&s, 1, MPI_INT, right, 33, &v, 1, MPI_INT, left, 33,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        MT_EQ(r2, 31);
    }
}

static void test_proc_null_rsend(void)
{
    int v = 5, r = -1;
    MPI_Request reqs[2];
    MPI_Status st;

    MT_OK(MPI_Recv_init(&r, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[0]));
    MT_OK(MPI_Send_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[1]));
    for (int i = 0; i < 3; ++i) {
        MT_OK(MPI_Startall(2, reqs));
        MT_OK(MPI_Wait(&reqs[0], &st));
        MT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
        MT_OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
    }
    MT_EQ(r, -1);
    MT_OK(MPI_Request_free(&reqs[0]));
    MT_OK(MPI_Request_free(&reqs[1]));

    /* ready mode: the receive is posted before the barrier, the send after */
    MT_OK(MPI_Recv_init(&r, 1, MPI_INT, left, 40, MPI_COMM_WORLD, &reqs[0]));
    MT_OK(MPI_Rsend_init(&v, 1, MPI_INT, right, 40, MPI_COMM_WORLD, &reqs[1]));
    for (int i = 0; i < 5; ++i) {
        v = rank * 10 + i;
        MT_OK(MPI_Start(&reqs[0]));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        MT_OK(MPI_Start(&reqs[1]));
        MT_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        MT_EQ(r, left * 10 + i);
    }
    MT_OK(MPI_Request_free(&reqs[0]));
    MT_OK(MPI_Request_free(&reqs[1]));
}

/* ---- generalized requests ---- */

typedef struct greq_state {
    int queries, frees, cancels, cancelled, query_rc;
    MPI_Request self;
} greq_state_t;

static int greq_query(void *extra, MPI_Status *status)
{
    greq_state_t *g = extra;

    ++g->queries;
    status->MPI_SOURCE = 3;
    status->MPI_TAG = 44;
    MPI_Status_set_elements(status, MPI_INT, 3);
    MPI_Status_set_cancelled(status, g->cancelled);
    return g->query_rc;
}

static int greq_free(void *extra)
{
    ++((greq_state_t *)extra)->frees;
    return MPI_SUCCESS;
}

/* cancel completes the request from the callback, as a real one would */
static int greq_cancel(void *extra, int complete)
{
    greq_state_t *g = extra;

    ++g->cancels;
    if (!complete) {
        g->cancelled = 1;
        MT_OK(MPI_Grequest_complete(g->self));
    }
    return MPI_SUCCESS;
}

static void test_grequest(void)
{
    greq_state_t a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
    MPI_Request reqs[3], r;
    MPI_Status st[3];
    int flag = -1, count = -1, out = 0, ids[3], x = 0, sx = rank;

    MT_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &a, &r));
    MT_OK(MPI_Test(&r, &flag, &st[0]));
    MT_EQ(flag, 0);
    MT_OK(MPI_Request_get_status(r, &flag, &st[0]));
    MT_EQ(flag, 0);
    MT_EQ(a.queries, 0);
    MT_OK(MPI_Grequest_complete(r));
    MT_ERR(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
    MT_OK(MPI_Request_get_status(r, &flag, &st[0]));   /* query, no free */
    MT_EQ(flag, 1);
    MT_EQ(a.queries, 1);
    MT_EQ(a.frees, 0);
    MT_EQ(st[0].MPI_TAG, 44);
    MT_OK(MPI_Wait(&r, &st[0]));
    MT_CHECK(r == MPI_REQUEST_NULL);
    MT_EQ(a.queries, 2);
    MT_EQ(a.frees, 1);
    MT_EQ(st[0].MPI_SOURCE, 3);
    MT_OK(MPI_Get_count(&st[0], MPI_INT, &count));
    MT_EQ(count, 3);
    MT_OK(MPI_Test_cancelled(&st[0], &flag));
    MT_EQ(flag, 0);

    /* completed from its cancel callback, waited with an ordinary pair */
    MT_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &b, &reqs[0]));
    b.self = reqs[0];
    MT_OK(MPI_Irecv(&x, 1, MPI_INT, left, 50, MPI_COMM_WORLD, &reqs[1]));
    MT_OK(MPI_Isend(&sx, 1, MPI_INT, right, 50, MPI_COMM_WORLD, &reqs[2]));
    MT_OK(MPI_Cancel(&reqs[0]));
    MT_EQ(b.cancels, 1);
    MT_OK(MPI_Waitall(3, reqs, st));
    MT_EQ(b.queries, 1);
    MT_EQ(b.frees, 1);
    MT_OK(MPI_Test_cancelled(&st[0], &flag));
    MT_EQ(flag, 1);
    MT_EQ(x, left);

    /* freed before completion: free_fn runs at MPI_Grequest_complete */
    MT_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &c, &r));
    c.self = r;
    MT_OK(MPI_Request_free(&r));
    MT_CHECK(r == MPI_REQUEST_NULL);
    MT_EQ(c.frees, 0);
    MT_OK(MPI_Grequest_complete(c.self));
    MT_EQ(c.frees, 1);
    MT_EQ(c.queries, 0);

    /* a query_fn error comes back as the call's error / MPI_ERR_IN_STATUS */
    d.query_rc = MPI_ERR_OTHER;
    MT_OK(MPI_Grequest_start(greq_query, greq_free, NULL, &d, &reqs[0]));
    MT_OK(MPI_Grequest_start(greq_query, greq_free, NULL, &a, &reqs[1]));
    MT_OK(MPI_Testsome(2, reqs, &out, ids, st));
    MT_EQ(out, 0);
    MT_OK(MPI_Grequest_complete(reqs[1]));
    MT_OK(MPI_Testsome(2, reqs, &out, ids, st));
    MT_EQ(out, 1);
    MT_EQ(ids[0], 1);
    MT_OK(MPI_Grequest_complete(reqs[0]));
    MT_ERR(MPI_Waitall(1, reqs, st), MPI_ERR_IN_STATUS);
    MT_EQ(st[0].MPI_ERROR, MPI_ERR_OTHER);
    MT_EQ(d.frees, 1);

    /* an ordinary request is not a generalized one */
    MT_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    MT_ERR(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

static void test_get_status(void)
{
    int v = -1, s = rank + 1, flag = -1, t = 0;
    MPI_Request r;
    MPI_Status st, st2;

    MT_OK(MPI_Irecv(&v, 1, MPI_INT, left, 60, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Request_get_status(r, &flag, &st));
    MT_EQ(flag, 0);                                  /* nobody sent yet */
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Send(&s, 1, MPI_INT, right, 60, MPI_COMM_WORLD));
    do {
        MT_OK(MPI_Request_get_status(r, &flag, &st));
    } while (!flag);
    MT_CHECK(r != MPI_REQUEST_NULL);                 /* not freed */
    MT_EQ(st.MPI_SOURCE, left);
    MT_OK(MPI_Request_get_status(r, &flag, &st));    /* again: same answer */
    MT_EQ(flag, 1);
    MT_OK(MPI_Wait(&r, &st2));
    MT_EQ(st2.MPI_SOURCE, left);
    MT_EQ(st2.MPI_TAG, 60);
    MT_EQ(v, left + 1);
    MT_OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    MT_EQ(flag, 1);
    check_empty(&st);
    (void)t;
}

static void test_sendrecv_replace(void)
{
    static const int sizes[] = { 1, 1000, 70000 };

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
        int n = sizes[k], count = -1;
        int *buf = malloc(sizeof(int) * (size_t)n);
        MPI_Status st;

        for (int i = 0; i < n; ++i) {
            buf[i] = rank * 100000 + i;
        }
        MT_OK(MPI_Sendrecv_replace(buf, n, MPI_INT, right, 70, left, 70, MPI_COMM_WORLD,
                                   &st));
        for (int i = 0; i < n; ++i) {
            if (buf[i] != left * 100000 + i) {
                MT_FAIL("sendrecv_replace %d: element %d is %d", n, i, buf[i]);
            }
        }
        MT_EQ(st.MPI_SOURCE, left);
        MT_OK(MPI_Get_count(&st, MPI_INT, &count));
        MT_EQ(count, n);
        free(buf);
    }
}

/* an unmatched send is withdrawn (ssend, rendezvous, persistent ssend); a
 * matched one completes not cancelled; what was withdrawn never arrives */
static void test_cancel_sends(void)
{
    enum { BIG = 200000 };   /* above any eager limit */
    int *big = calloc(BIG, sizeof(int)), s = rank, v = -1, flag = -1, count = -1;
    MPI_Request r, p, q;
    MPI_Status st;

    MT_OK(MPI_Issend(&s, 1, MPI_INT, right, 83, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Cancel(&r));
    MT_OK(MPI_Wait(&r, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Isend(big, BIG, MPI_INT, right, 84, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Cancel(&r));
    MT_OK(MPI_Wait(&r, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Ssend_init(&s, 1, MPI_INT, right, 86, MPI_COMM_WORLD, &q));
    MT_OK(MPI_Start(&q));
    MT_OK(MPI_Cancel(&q));
    MT_OK(MPI_Wait(&q, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);
    /* a receive posted before the send: it matches at arrival, the cancel
     * comes too late */
    MT_OK(MPI_Irecv(&v, 1, MPI_INT, left, 85, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    s = rank + 1000;
    MT_OK(MPI_Issend(&s, 1, MPI_INT, right, 85, MPI_COMM_WORLD, &p));
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_EQ(v, left + 1000);
    MT_OK(MPI_Cancel(&p));
    MT_OK(MPI_Wait(&p, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 0);
    /* the withdrawn messages are gone: the next one on each tag is the new one */
    s = rank + 2000;
    MT_OK(MPI_Send(&s, 1, MPI_INT, right, 83, MPI_COMM_WORLD));
    MT_OK(MPI_Send(&s, 1, MPI_INT, right, 84, MPI_COMM_WORLD));
    MT_OK(MPI_Start(&q));                               /* restarted: delivered */
    MT_OK(MPI_Recv(&v, 1, MPI_INT, left, 83, MPI_COMM_WORLD, &st));
    MT_EQ(v, left + 2000);
    MT_OK(MPI_Recv(big, BIG, MPI_INT, left, 84, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Get_count(&st, MPI_INT, &count));
    MT_EQ(count, 1);
    MT_EQ(big[0], left + 2000);
    MT_OK(MPI_Recv(&v, 1, MPI_INT, left, 86, MPI_COMM_WORLD, &st));
    MT_EQ(v, left + 2000);
    MT_OK(MPI_Wait(&q, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 0);
    MT_OK(MPI_Request_free(&q));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    MT_EQ(flag, 0);                                     /* nothing left over */
    free(big);
}

static void test_cancel(void)
{
    int v = -1, s = rank, flag = -1;
    MPI_Request r;
    MPI_Status st;

    /* a posted receive nobody sends to */
    MT_OK(MPI_Irecv(&v, 1, MPI_INT, left, 80, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Cancel(&r));
    MT_OK(MPI_Wait(&r, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);

    /* a persistent receive: cancelled, then restarted and used */
    MT_OK(MPI_Recv_init(&v, 1, MPI_INT, left, 81, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Start(&r));
    MT_OK(MPI_Cancel(&r));
    MT_OK(MPI_Wait(&r, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));   /* nobody sends tag 81 before all cancelled */
    MT_OK(MPI_Start(&r));
    MT_OK(MPI_Send(&s, 1, MPI_INT, right, 81, MPI_COMM_WORLD));
    MT_OK(MPI_Wait(&r, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 0);
    MT_EQ(v, left);
    MT_OK(MPI_Request_free(&r));

    /* an eager send already delivered cannot be withdrawn: not cancelled */
    MT_OK(MPI_Isend(&s, 1, MPI_INT, right, 82, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Cancel(&r));
    MT_OK(MPI_Wait(&r, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 0);
    MT_OK(MPI_Recv(&v, 1, MPI_INT, left, 82, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_EQ(v, left);
    MT_ERR(MPI_Cancel(NULL), MPI_ERR_REQUEST);
    test_cancel_sends();
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (argc > 1) {
        nelem = atoi(argv[1]);
    }
    if (argc > 2) {
        iters = atoi(argv[2]);
    }
    left  = (rank + size - 1) % size;
    right = (rank + 1) % size;
    test_ring_loop();
    test_mixed_array();
    test_inactive();
    test_proc_null_rsend();
    test_grequest();
    test_get_status();
    test_sendrecv_replace();
    test_cancel();
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_p2pext_persist");
    MT_OK(MPI_Finalize());
    return 0;
}
