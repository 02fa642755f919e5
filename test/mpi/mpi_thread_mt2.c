/*
 * mpi_thread_mt2.c: MPI_THREAD_MULTIPLE regressions found in review
 * (test/mpi/test_mpi_threads2.sh).
 *
 *   mpi_thread_mt2 MODE [THREADS] [ITERS]
 *
 * MODE:
 *   side   every thread runs MPI_Ialltoallv on its own duplicate of WORLD
 *          and completes it with MPI_Wait / MPI_Waitall while the others do
 *          the same: each nonblocking v-collective keeps its converted
 *          count arrays (side storage) until its own completion call, which
 *          must neither free another thread's arrays nor forget its own
 *   mixed  rank 0 runs at MPI_THREAD_MULTIPLE, the others at
 *          MPI_THREAD_SINGLE (MPI lets processes differ): communicators led
 *          by different ranks must still get distinct context ids on every
 *          member (each of rank 0's communicators carries its own traffic)
 *   idupfree every thread duplicates its own duplicate of WORLD, starts MPI_Comm_idup of the
 *          duplicate and frees the duplicate before the idup completes (MPI:
 *          pending operations complete normally); the new communicator works
 *   errjmp an error handler that longjmps out of the failing call (MPI does
 *          not forbid it): afterwards another thread's MPI calls must still
 *          get the engine lock (a helper thread must finish within 10 s)
 *
 * Every check prints the rank and line and aborts the job (mpi_test_util.h).
 */
#include "mpi_test_util.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16
#define MAX_RANKS   8
#define SIDE_BIG    1500   /* x up to 7 ints: up to 42 kB per peer */

static int nthreads = 4, iters = 50, rank, size;
static MPI_Comm thread_comm[MAX_THREADS];

/* ---- side: concurrent nonblocking v-collectives ---------------------------------- */

/* element i of what rank @p from sends rank @p to in (thread t, iteration it) */
static int side_val(int from, int to, int t, int it, int i)
{
    return ((from * MAX_RANKS + to) * MAX_THREADS + t) * 100000 + it * 100 + i;
}

/* how many ints @p from sends @p to: differs per thread and iteration, and
 * every third round is above the eager limit (the operation then needs
 * several progress passes, during which other threads get in) */
static int side_count(int from, int to, int t, int it)
{
    return (1 + (from + 2 * to + 3 * t + it) % 7) * (it % 3 == 2 ? SIDE_BIG : 1);
}

static void side_round(MPI_Comm comm, int t, int it)
{
    int scount[MAX_RANKS], sdisp[MAX_RANKS], rcount[MAX_RANKS], rdisp[MAX_RANKS];
    static _Thread_local int sbuf[MAX_RANKS * 8 * SIDE_BIG], rbuf[MAX_RANKS * 8 * SIDE_BIG];
    int ns = 0, nr = 0;
    MPI_Request req[2];

    for (int p = 0; p < size; ++p) {
        scount[p] = side_count(rank, p, t, it);
        rcount[p] = side_count(p, rank, t, it);
        sdisp[p] = ns;
        rdisp[p] = nr;
        for (int i = 0; i < scount[p]; ++i) {
            sbuf[ns + i] = side_val(rank, p, t, it, i);
        }
        ns += scount[p];
        nr += rcount[p];
    }
    memset(rbuf, 0xff, (size_t)nr * sizeof(int));
    if (rank % 2 == 1 && (it + t) % 4 == 0) {
        usleep(200);   /* the other ranks' threads wait (and yield) meanwhile */
    }
    MT_OK(MPI_Ialltoallv(sbuf, scount, sdisp, MPI_INT, rbuf, rcount, rdisp, MPI_INT, comm,
                         &req[0]));
    if (it % 2 == 0) {
        MT_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    } else {
        req[1] = MPI_REQUEST_NULL;
        MT_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    }
    MT_EQ(req[0] == MPI_REQUEST_NULL, 1);
    for (int p = 0; p < size; ++p) {
        for (int i = 0; i < rcount[p]; ++i) {
            if (rbuf[rdisp[p] + i] != side_val(p, rank, t, it, i)) {
                MT_FAIL("thread %d iteration %d: element %d from rank %d is %d, not %d", t,
                        it, i, p, rbuf[rdisp[p] + i], side_val(p, rank, t, it, i));
            }
        }
    }
}

static void *side_thread(void *arg)
{
    int t = (int)(long)arg;

    for (int it = 0; it < iters; ++it) {
        side_round(thread_comm[t], t, it);
    }
    return NULL;
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t th[MAX_THREADS];

    for (long t = 0; t < nthreads; ++t) {
        MT_EQ(pthread_create(&th[t], NULL, fn, (void *)t), 0);
    }
    for (int t = 0; t < nthreads; ++t) {
        MT_EQ(pthread_join(th[t], NULL), 0);
    }
}

/* ---- mixed: thread levels differ between processes -------------------------------- */

/*
 * Rank 0 is in a communicator with each other rank r, made with
 * MPI_Comm_create_group on the group {r, 0} (led by r, a SINGLE process),
 * then one more with {0, 1} (led by rank 0). Each carries its own message.
 */
static void mixed(void)
{
    MPI_Comm pair[MAX_RANKS + 1];
    MPI_Group world, g;
    int n = 0;

    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    for (int r = 1; r <= size; ++r) {
        int ranks[2] = {r % size, r < size ? 0 : 1};  /* the last: {0, 1} */

        if (rank != ranks[0] && rank != ranks[1]) {
            continue;
        }
        MT_OK(MPI_Group_incl(world, 2, ranks, &g));
        MT_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &pair[n]));
        MT_OK(MPI_Group_free(&g));
        ++n;
    }
    MT_OK(MPI_Group_free(&world));
    /* every communicator: its leader sends its number, the other checks it */
    for (int k = 0; k < n; ++k) {
        int me, v = -1;

        MT_OK(MPI_Comm_rank(pair[k], &me));
        if (me == 0) {
            v = 1000 + k * 0 + rank;
            MT_OK(MPI_Send(&v, 1, MPI_INT, 1, 9, pair[k]));
        }
    }
    for (int k = 0; k < n; ++k) {
        int me, v = -1, leader = -1;
        MPI_Group pg, wg;
        int zero = 0;

        MT_OK(MPI_Comm_rank(pair[k], &me));
        if (me == 1) {
            MT_OK(MPI_Comm_group(pair[k], &pg));
            MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
            MT_OK(MPI_Group_translate_ranks(pg, 1, &zero, wg, &leader));
            MT_OK(MPI_Group_free(&pg));
            MT_OK(MPI_Group_free(&wg));
            MT_OK(MPI_Recv(&v, 1, MPI_INT, 0, 9, pair[k], MPI_STATUS_IGNORE));
            MT_EQ(v, 1000 + leader);
        }
    }
    for (int k = 0; k < n; ++k) {
        MT_OK(MPI_Comm_free(&pair[k]));
    }
}

/* ---- idupfree: the parent of a pending idup is freed --------------------------------- */

static void *idupfree_thread(void *arg)
{
    int t = (int)(long)arg;

    for (int it = 0; it < iters; ++it) {
        MPI_Comm parent, child;
        MPI_Request req;
        int n = -1, v = rank + t, sum = -1;

        MT_OK(MPI_Comm_dup(thread_comm[t], &parent));   /* its own: no collective race */
        if (rank == 1) {
            usleep(2000);   /* the others' idups are pending when they free */
        }
        MT_OK(MPI_Comm_idup(parent, &child, &req));
        MT_OK(MPI_Comm_free(&parent));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MT_OK(MPI_Comm_size(child, &n));
        MT_EQ(n, size);
        MT_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, child));
        MT_EQ(sum, size * (size - 1) / 2 + size * t);
        MT_OK(MPI_Comm_free(&child));
    }
    return NULL;
}

/* ---- errjmp: an error handler that does not return ------------------------------- */

static jmp_buf errjmp_env;
static int errjmp_class = -1;

static void errjmp_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    MT_OK(MPI_Error_class(*code, &errjmp_class));
    longjmp(errjmp_env, 1);
}

static void *errjmp_helper(void *arg)
{
    int r = -1;

    (void)arg;
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    MT_EQ(r, rank);
    return NULL;
}

/* the calls of errjmp: each fails, in the native call or in the MPI layer's
 * argument checks (mpi_p2p.c's hot calls lock only on those paths) */
static const char *const errjmp_calls[] = {
    "MPI_Send to no such rank", "MPI_Isend to no such rank", "MPI_Recv from no such rank",
    "MPI_Irecv from no such rank", "MPI_Ssend of a negative count",
    "MPI_Irecv of MPI_DATATYPE_NULL",
};
#define ERRJMP_NCALLS ((int)(sizeof(errjmp_calls) / sizeof(errjmp_calls[0])))

/* run errjmp call @p k (it must not return) */
static void errjmp_call(int k)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int v = 1;

    switch (k) {
    case 0: (void)MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD); break;
    case 1: (void)MPI_Isend(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req); break;
    case 2: (void)MPI_Recv(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); break;
    case 3: (void)MPI_Irecv(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req); break;
    case 4: (void)MPI_Ssend(&v, -1, MPI_INT, rank, 0, MPI_COMM_WORLD); break;
    default: (void)MPI_Irecv(&v, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, &req); break;
    }
}

static const int errjmp_want[] = {
    MPI_ERR_RANK, MPI_ERR_RANK, MPI_ERR_RANK, MPI_ERR_RANK, MPI_ERR_COUNT, MPI_ERR_TYPE,
};

/* a handler that longjmp's out of each failing call, then another thread
 * must still get the engine lock */
static void errjmp(void)
{
    MPI_Errhandler eh;
    pthread_t th;
    struct timespec until;
    int rc;

    MT_OK(MPI_Comm_create_errhandler(errjmp_handler, &eh));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    for (int k = 0; k < ERRJMP_NCALLS; ++k) {
        errjmp_class = -1;
        if (setjmp(errjmp_env) == 0) {
            errjmp_call(k);
            MT_FAIL("%s returned instead of calling the handler", errjmp_calls[k]);
        }
        if (errjmp_class != errjmp_want[k]) {
            MT_FAIL("%s: the handler got class %d, want %d", errjmp_calls[k], errjmp_class,
                    errjmp_want[k]);
        }
        MT_EQ(pthread_create(&th, NULL, errjmp_helper, NULL), 0);
        MT_EQ(clock_gettime(CLOCK_REALTIME, &until), 0);
        until.tv_sec += 10;
        rc = pthread_timedjoin_np(th, NULL, &until);
        if (rc == ETIMEDOUT) {
            MT_FAIL("a thread's MPI_Comm_rank still waits for the engine lock 10 s after an "
                    "error handler longjmp'd out of %s", errjmp_calls[k]);
        }
        MT_EQ(rc, 0);
    }
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MT_OK(MPI_Errhandler_free(&eh));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "side";
    int required = MPI_THREAD_MULTIPLE, provided = -1, wrank = -1;

    if (strcmp(mode, "mixed") == 0) {
        const char *r = getenv("PMIX_RANK");
        wrank = r != NULL ? atoi(r) : 0;
        required = wrank == 0 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    }
    MT_OK(MPI_Init_thread(&argc, &argv, required, &provided));
    MT_EQ(provided, required);
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    nthreads = argc > 2 ? atoi(argv[2]) : nthreads;
    iters    = argc > 3 ? atoi(argv[3]) : iters;
    MT_CHECK(nthreads >= 1 && nthreads <= MAX_THREADS && iters >= 1 && size <= MAX_RANKS);
    if (strcmp(mode, "side") == 0 || strcmp(mode, "idupfree") == 0) {
        for (int t = 0; t < nthreads; ++t) {
            MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[t]));
        }
        run_threads(strcmp(mode, "side") == 0 ? side_thread : idupfree_thread);
        for (int t = 0; t < nthreads; ++t) {
            MT_OK(MPI_Comm_free(&thread_comm[t]));
        }
    } else if (strcmp(mode, "mixed") == 0) {
        MT_EQ(wrank, rank);
        mixed();
    } else if (strcmp(mode, "errjmp") == 0) {
        errjmp();
    } else {
        MT_FAIL("unknown mode '%s'", mode);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("mpi_thread_mt2 %s: %d threads x %d iterations passed on %d ranks\n", mode,
               nthreads, iters, size);
    }
    MT_OK(MPI_Finalize());
    return 0;
}
