/*
 * rma_lat.c: one-sided latency at 8 B timed per operation, for the
 * soft-RoCE guest (test/verbs/bench_rma.sh), where perftest's
 * ib_read_lat/ib_atomic_lat report the median ("t_typical") of
 * individually timed operations and the mean is dominated by the
 * emulator's scheduling outliers. An ordinary MPI program (built with
 * loomcc, or mpicc for Open MPI).
 *
 *   rma_lat [-n ITERS] [-s] [put|get|fop|cas ...]
 *
 * Two ranks, Win_allocate of 64 bytes (disp unit 1: put/get at byte 0,
 * fop at 8, cas at 16, the -s flag at 56); rank 0 holds a shared lock on rank
 * 1 and times each "operation + MPI_Win_flush(1)" alone; rank 1 waits in
 * a barrier, or with -s sleeps (usleep(1000) polls of its own window until
 * rank 0 puts a flag there), as perftest's passive side does: only for
 * windows whose target needs no progress (RDMA, shared segment). Prints
 * per test: "rma_lat TEST 8 MIN MEDIAN MEAN" (us), after checking the
 * data (put/get round trip, fop's and cas's old values).
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* one operation of TEST to rank 1, then flush; @p i varies the data */
static void one_op(const char *test, MPI_Win win, int64_t i, int64_t *res)
{
    int64_t one = 1, cmp = i;

    if (strcmp(test, "put") == 0) {
        MPI_Put(&i, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win);
    } else if (strcmp(test, "get") == 0) {
        MPI_Get(res, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win);
    } else if (strcmp(test, "fop") == 0) {
        MPI_Fetch_and_op(&one, res, MPI_INT64_T, 1, 8, MPI_SUM, win);
    } else {
        int64_t next = i + 1;

        MPI_Compare_and_swap(&next, &cmp, res, MPI_INT64_T, 1, 16, win);
    }
    MPI_Win_flush(1, win);
}

static int run(const char *test, MPI_Win win, int iters, double *t)
{
    int64_t res = -1, i;
    int bad = 0;

    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (i = 0; i < iters + 50; ++i) {
        double t0 = MPI_Wtime();

        one_op(test, win, i, &res);
        if (i >= 50) {
            t[i - 50] = (MPI_Wtime() - t0) * 1e6;
        }
        if (strcmp(test, "fop") == 0 && res != i) {
            bad = 1;
        } else if (strcmp(test, "cas") == 0 && res != i) {
            bad = 1;
        }
    }
    if (strcmp(test, "put") == 0) {
        one_op("get", win, 0, &res);
        bad = res != i - 1;
    }
    MPI_Win_unlock(1, win);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, iters = 2000, a = 1, bad = 0, sleepy = 0;
    const char *def[] = { "put", "get", "fop", "cas" };
    double *t;
    int64_t *base;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > a + 1 && strcmp(argv[a], "-n") == 0) {
        iters = atoi(argv[a + 1]);
        a += 2;
    }
    if (argc > a && strcmp(argv[a], "-s") == 0) {
        sleepy = 1;
        ++a;
    }
    if (size != 2 || iters < 1 || (t = malloc(sizeof(double) * (size_t)iters)) == NULL) {
        if (rank == 0) {
            fprintf(stderr, "rma_lat: two ranks and -n >= 1\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
        return 2;
    }
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int k = 0; k < (a < argc ? argc - a : 4); ++k) {
        const char *test = a < argc ? argv[a + k] : def[k];

        memset(base, 0, 64);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double sum = 0;

            bad |= run(test, win, iters, t);
            for (int i = 0; i < iters; ++i) {
                sum += t[i];
            }
            qsort(t, (size_t)iters, sizeof(*t), cmp_d);
            printf("rma_lat %s 8 %.2f %.2f %.2f%s\n", test, t[0], t[iters / 2], sum / iters,
                   bad ? " FAIL: wrong data" : "");
            fflush(stdout);
            if (sleepy) {   /* wake rank 1 */
                int64_t flag = 1;

                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                MPI_Put(&flag, 1, MPI_INT64_T, 1, 56, 1, MPI_INT64_T, win);
                MPI_Win_unlock(1, win);
            }
        } else if (sleepy) {
            while (__atomic_load_n(&base[7], __ATOMIC_ACQUIRE) == 0) {
                usleep(1000);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    free(t);
    MPI_Finalize();
    return bad;
}
