/*
 * mpi_requests.c: completion calls of the MPI binding as an ordinary MPI
 * program (>= 2 ranks): Wait, Test, Waitall, Testall, Waitany, Testany,
 * Waitsome, Testsome (with MPI_REQUEST_NULL entries and empty arrays),
 * Request_free, Cancel + Test_cancelled for receives and sends, and
 * MPI_ERR_IN_STATUS with per-request MPI_ERROR under MPI_ERRORS_RETURN.
 */
#include "mpi_test_util.h"

#include <string.h>

#define NREQ 16

static int rank, size;

/* rank 0 posts NREQ receives from rank 1, which sends them in reverse order */
static void post_pattern(MPI_Request reqs[NREQ], int vals[NREQ], int tag0)
{
    if (rank == 0) {
        for (int i = 0; i < NREQ; ++i) {
            vals[i] = -1;
            MT_OK(MPI_Irecv(&vals[i], 1, MPI_INT, 1, tag0 + i, MPI_COMM_WORLD, &reqs[i]));
        }
    }
}

static void send_pattern(int tag0)
{
    if (rank == 1) {
        for (int i = NREQ - 1; i >= 0; --i) {
            int v = tag0 + i;
            MT_OK(MPI_Send(&v, 1, MPI_INT, 0, tag0 + i, MPI_COMM_WORLD));
        }
    }
}

static void test_wait_test(void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag = 0, v = 0, x = 5;

    /* null requests complete at once with an empty status */
    MT_OK(MPI_Wait(&req, &st));
    MT_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);
    MT_EQ(st.MPI_TAG, MPI_ANY_TAG);
    MT_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    MT_EQ(flag, 1);

    if (rank == 0) {
        MT_OK(MPI_Irecv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req));
        MT_OK(MPI_Test(&req, &flag, &st));
        MT_EQ(flag, 0);                       /* rank 1 sends after the barrier */
        MT_CHECK(req != MPI_REQUEST_NULL);
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        do {
            MT_OK(MPI_Test(&req, &flag, &st));
        } while (!flag);
        MT_CHECK(req == MPI_REQUEST_NULL);
        MT_EQ(v, 5);
        MT_EQ(st.MPI_SOURCE, 1);
        MT_EQ(st.MPI_TAG, 1);
    } else {
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1) {
            MT_OK(MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        }
    }
}

static void test_all(void)
{
    MPI_Request reqs[NREQ + 2];
    MPI_Status sts[NREQ + 2];
    int vals[NREQ], flag = 0;

    MT_OK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
    post_pattern(reqs, vals, 200);
    send_pattern(200);
    if (rank == 0) {
        reqs[NREQ] = reqs[NREQ + 1] = MPI_REQUEST_NULL;
        MT_OK(MPI_Waitall(NREQ + 2, reqs, sts));
        for (int i = 0; i < NREQ; ++i) {
            MT_EQ(vals[i], 200 + i);
            MT_EQ(sts[i].MPI_TAG, 200 + i);
            MT_CHECK(reqs[i] == MPI_REQUEST_NULL);
        }
    }
    post_pattern(reqs, vals, 300);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MT_OK(MPI_Testall(NREQ, reqs, &flag, sts));
        MT_EQ(flag, 0);
        for (int i = 0; i < NREQ; ++i) {
            MT_CHECK(reqs[i] != MPI_REQUEST_NULL);  /* not all done: none released */
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    send_pattern(300);
    if (rank == 0) {
        do {
            MT_OK(MPI_Testall(NREQ, reqs, &flag, sts));
        } while (!flag);
        for (int i = 0; i < NREQ; ++i) {
            MT_EQ(vals[i], 300 + i);
            MT_EQ(sts[i].MPI_SOURCE, 1);
        }
    }
}

static void test_any(void)
{
    MPI_Request reqs[NREQ];
    MPI_Status st;
    int vals[NREQ], idx = -2, flag = 0, done = 0, mask[NREQ] = { 0 };

    for (int i = 0; i < NREQ; ++i) {
        reqs[i] = MPI_REQUEST_NULL;
    }
    MT_OK(MPI_Waitany(NREQ, reqs, &idx, &st));
    MT_EQ(idx, MPI_UNDEFINED);
    MT_OK(MPI_Testany(NREQ, reqs, &idx, &flag, &st));
    MT_EQ(flag, 1);
    MT_EQ(idx, MPI_UNDEFINED);

    post_pattern(reqs, vals, 400);
    send_pattern(400);
    if (rank == 0) {
        while (done < NREQ / 2) {
            MT_OK(MPI_Waitany(NREQ, reqs, &idx, &st));
            MT_CHECK(idx >= 0 && idx < NREQ && !mask[idx]);
            MT_EQ(st.MPI_TAG, 400 + idx);
            MT_EQ(vals[idx], 400 + idx);
            MT_CHECK(reqs[idx] == MPI_REQUEST_NULL);
            mask[idx] = 1;
            ++done;
        }
        while (done < NREQ) {
            MT_OK(MPI_Testany(NREQ, reqs, &idx, &flag, &st));
            if (flag) {
                MT_CHECK(idx >= 0 && idx < NREQ && !mask[idx]);
                MT_EQ(vals[idx], 400 + idx);
                mask[idx] = 1;
                ++done;
            }
        }
    }
}

static void test_some(void)
{
    MPI_Request reqs[NREQ];
    MPI_Status sts[NREQ];
    int vals[NREQ], idx[NREQ], out = -2, done = 0, mask[NREQ] = { 0 };

    for (int i = 0; i < NREQ; ++i) {
        reqs[i] = MPI_REQUEST_NULL;
    }
    MT_OK(MPI_Waitsome(NREQ, reqs, &out, idx, sts));
    MT_EQ(out, MPI_UNDEFINED);
    MT_OK(MPI_Testsome(NREQ, reqs, &out, idx, sts));
    MT_EQ(out, MPI_UNDEFINED);

    post_pattern(reqs, vals, 500);
    send_pattern(500);
    if (rank == 0) {
        int use_wait = 1;

        while (done < NREQ) {
            if (use_wait) {
                MT_OK(MPI_Waitsome(NREQ, reqs, &out, idx, sts));
                MT_CHECK(out >= 1);
            } else {
                MT_OK(MPI_Testsome(NREQ, reqs, &out, idx, MPI_STATUSES_IGNORE));
                MT_CHECK(out >= 0);
            }
            for (int k = 0; k < out; ++k) {
                MT_CHECK(idx[k] >= 0 && idx[k] < NREQ && !mask[idx[k]]);
                MT_EQ(vals[idx[k]], 500 + idx[k]);
                if (use_wait) {
                    MT_EQ(sts[k].MPI_TAG, 500 + idx[k]);
                }
                mask[idx[k]] = 1;
            }
            done += out;
            use_wait = !use_wait;
        }
    }
}

static void test_free_cancel(void)
{
    MPI_Request req;
    MPI_Status st;
    int v = 0, flag = -1, x = 77, count = -1;

    /* a freed send still delivers */
    if (rank == 1) {
        MT_OK(MPI_Isend(&x, 1, MPI_INT, 0, 600, MPI_COMM_WORLD, &req));
        MT_OK(MPI_Request_free(&req));
        MT_CHECK(req == MPI_REQUEST_NULL);
    } else if (rank == 0) {
        MT_OK(MPI_Recv(&v, 1, MPI_INT, 1, 600, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_EQ(v, 77);
    }

    /* a receive nobody matches is cancelled */
    MT_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 601, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Cancel(&req));
    MT_OK(MPI_Wait(&req, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Get_count(&st, MPI_INT, &count));
    MT_EQ(count, 0);

    /* a send cannot be withdrawn: the cancel fails, the send completes */
    if (rank == 1) {
        MT_OK(MPI_Isend(&x, 1, MPI_INT, 0, 602, MPI_COMM_WORLD, &req));
        MT_OK(MPI_Cancel(&req));
        MT_OK(MPI_Wait(&req, &st));
        MT_OK(MPI_Test_cancelled(&st, &flag));
        MT_EQ(flag, 0);
    } else if (rank == 0) {
        MT_OK(MPI_Recv(&v, 1, MPI_INT, 1, 602, MPI_COMM_WORLD, &st));
        MT_OK(MPI_Test_cancelled(&st, &flag));
        MT_EQ(flag, 0);
    }

    /* a collective request cannot be cancelled */
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    MT_ERR(MPI_Cancel(&req), MPI_ERR_REQUEST);
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_ERR(MPI_Request_free(&req), MPI_ERR_REQUEST);  /* MPI_REQUEST_NULL */
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* one of several requests fails: MPI_ERR_IN_STATUS, the others succeed */
static void test_in_status(void)
{
    MPI_Request reqs[3];
    MPI_Status sts[3];
    int a[4], b[1], c[4], out, idx[3];

    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int round = 0; round < 2; ++round) {
        if (rank == 1) {
            int data[4] = { 1, 2, 3, 4 };

            for (int t = 0; t < 3; ++t) {
                MT_OK(MPI_Send(data, 4, MPI_INT, 0, 700 + t, MPI_COMM_WORLD));
            }
        } else if (rank == 0) {
            MT_OK(MPI_Irecv(a, 4, MPI_INT, 1, 700, MPI_COMM_WORLD, &reqs[0]));
            MT_OK(MPI_Irecv(b, 1, MPI_INT, 1, 701, MPI_COMM_WORLD, &reqs[1]));  /* short */
            MT_OK(MPI_Irecv(c, 4, MPI_INT, 1, 702, MPI_COMM_WORLD, &reqs[2]));
            if (round == 0) {
                MT_ERR(MPI_Waitall(3, reqs, sts), MPI_ERR_IN_STATUS);
                MT_EQ(sts[0].MPI_ERROR, MPI_SUCCESS);
                MT_EQ(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE);
                MT_EQ(sts[2].MPI_ERROR, MPI_SUCCESS);
                MT_EQ(c[3], 4);
            } else {
                int failed = 0, done = 0;

                while (done < 3) {
                    int rc = MPI_Waitsome(3, reqs, &out, idx, sts);

                    MT_CHECK(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS);
                    for (int k = 0; k < out; ++k) {
                        MT_EQ(sts[k].MPI_ERROR,
                              idx[k] == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
                        failed += idx[k] == 1;
                    }
                    done += out;
                }
                MT_EQ(failed, 1);
            }
        }
    }
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_CHECK(size >= 2);

    test_wait_test();
    test_all();
    test_any();
    test_some();
    test_free_cancel();
    test_in_status();

    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_requests");
    MT_OK(MPI_Finalize());
    return 0;
}
