/*
 * mpi_mt_s16.c: MPI_THREAD_MULTIPLE, session 16: waiting without the engine
 * lock (p2p/progress.c loom_progress_mt_await; test/mpi/test_mpi_mt_s16.sh).
 *
 *   mpi_mt_s16 MODE [THREADS] [ITERS]
 *
 * MODE:
 *   detach  np 2. On rank 0 thread 0 blocks in MPI_Recv (it drives
 *           progress); once it does, threads 1..T-2 post a receive each and
 *           MPI_Wait on it, and thread T-1 waits on a receive nobody sends.
 *           A coordinator thread (outside MPI until then) waits until all
 *           T-1 waits left the engine lock (loom's count of lock-free waits
 *           rose by T-1), cancels thread T-1's receive, and only then tells
 *           rank 1 to send: so every one of those requests is completed by
 *           another thread (the driver, or the canceller) while its waiter
 *           holds no lock. Fails at once when the library has no lock-free
 *           wait (the count's symbol is missing), and hangs (the driver's
 *           timeout fails it) if a waiter never leaves the lock.
 *   mix     np 2. Every thread ping-pongs with the same thread of the other
 *           rank on its own tag, eager and rendezvous sizes, each round
 *           completed by a different call (MPI_Wait, MPI_Recv, MPI_Waitall,
 *           MPI_Waitany, MPI_Waitsome, an MPI_Test loop); every few rounds a
 *           receive nobody sends is cancelled and waited on, and a send is
 *           freed before it completes (MPI_Request_free). Data checked.
 *           Under TSan: no report (the complete flag and the status are
 *           handed from the completing thread to the lock-free waiter).
 *
 * Every check prints the rank and line and aborts the job (mpi_test_util.h).
 */
#include "mpi_test_util.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#define MAX_THREADS 16
#define BIG 40000          /* bytes: above the default eager limit */
#define TAG_DRIVER 100
#define TAG_GO     900
#define TAG_NEVER  777     /* nobody sends it */

static int nthreads = 4, iters = 20, rank;
static pthread_barrier_t bar;

/* loom's internals the detach mode watches (dlsym: the test fails without them) */
static unsigned long *detached_waits;
static uintptr_t *driver;

static unsigned long load_ul(const unsigned long *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void fill(int *buf, int n, int a, int b)
{
    for (int i = 0; i < n; ++i) {
        buf[i] = a * 100000 + b * 1000 + i;
    }
}

static void expect(const int *buf, int n, int a, int b)
{
    for (int i = 0; i < n; ++i) {
        if (buf[i] != a * 100000 + b * 1000 + i) {
            MT_FAIL("element %d of (%d,%d): %d", i, a, b, buf[i]);
        }
    }
}

static int round_len(int t, int it)
{
    return ((it + t) % 3 == 2) ? BIG / (int)sizeof(int) : 1 + (it * 7 + t) % 50;
}

/* ---- detach: waits completed by other threads while their waiters hold no lock ---- */

static MPI_Request never_req;           /* thread T-1's receive, cancelled by the coordinator */
static int never_posted;
static unsigned long round_base;        /* the lock-free wait count at the round's start */

static void detach_rank0_thread(long t, int it)
{
    static int rbuf[MAX_THREADS][BIG / sizeof(int)];
    MPI_Status st;
    MPI_Request req;
    int n = round_len((int)t, it), dummy;

    if (t == 0) {   /* the driver: blocked until rank 1 is told to finish */
        MT_OK(MPI_Recv(&dummy, 1, MPI_INT, 1, TAG_DRIVER, MPI_COMM_WORLD, &st));
        MT_EQ(dummy, it);
        return;
    }
    while (__atomic_load_n(driver, __ATOMIC_ACQUIRE) == 0) {
        sched_yield();   /* thread 0 is not in its wait yet */
    }
    if (t == nthreads - 1) {
        int flag = 0;

        MT_OK(MPI_Irecv(&dummy, 1, MPI_INT, 1, TAG_NEVER, MPI_COMM_WORLD, &req));
        __atomic_store(&never_req, &req, __ATOMIC_RELAXED);
        __atomic_store_n(&never_posted, 1, __ATOMIC_RELEASE);
        MT_OK(MPI_Wait(&req, &st));
        MT_OK(MPI_Test_cancelled(&st, &flag));
        MT_EQ(flag, 1);
        MT_CHECK(req == MPI_REQUEST_NULL);
        return;
    }
    MT_OK(MPI_Irecv(rbuf[t], n, MPI_INT, 1, (int)t, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Wait(&req, &st));
    MT_EQ(st.MPI_SOURCE, 1);
    MT_EQ(st.MPI_TAG, t);
    expect(rbuf[t], n, it, (int)t);
}

/* rank 0's coordinator: every waiter left the lock; cancel; let rank 1 send */
static void detach_coordinate(int it)
{
    unsigned long want = round_base + (unsigned long)(nthreads - 1);
    MPI_Request req;

    while (load_ul(detached_waits) < want) {
        sched_yield();
    }
    while (!__atomic_load_n(&never_posted, __ATOMIC_ACQUIRE)) {
        sched_yield();
    }
    __atomic_load(&never_req, &req, __ATOMIC_RELAXED);
    MT_OK(MPI_Cancel(&req));
    MT_OK(MPI_Send(&it, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD));
}

static void *detach_thread(void *arg)
{
    long t = (long)arg;

    for (int it = 0; it < iters; ++it) {
        pthread_barrier_wait(&bar);   /* the coordinator read round_base */
        detach_rank0_thread(t, it);
        pthread_barrier_wait(&bar);
    }
    return NULL;
}

static void detach_rank1(void)
{
    static int sbuf[BIG / sizeof(int)];
    int go;

    for (int it = 0; it < iters; ++it) {
        MT_OK(MPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_EQ(go, it);
        for (int t = 1; t < nthreads - 1; ++t) {
            int n = round_len(t, it);

            fill(sbuf, n, it, t);
            MT_OK(MPI_Send(sbuf, n, MPI_INT, 0, t, MPI_COMM_WORLD));
        }
        MT_OK(MPI_Send(&it, 1, MPI_INT, 0, TAG_DRIVER, MPI_COMM_WORLD));
    }
}

static void run_detach(void)
{
    pthread_t th[MAX_THREADS];

    detached_waits = dlsym(RTLD_DEFAULT, "loom_progress_mt_detached_waits");
    driver = dlsym(RTLD_DEFAULT, "loom_progress_driver");
    if (detached_waits == NULL || driver == NULL) {
        MT_FAIL("the library has no lock-free wait (loom_progress_mt_detached_waits, "
                "loom_progress_driver not found)");
    }
    MT_CHECK(nthreads >= 3);
    if (rank == 1) {
        detach_rank1();
        return;
    }
    MT_EQ(pthread_barrier_init(&bar, NULL, (unsigned)nthreads + 1), 0);
    for (long t = 0; t < nthreads; ++t) {
        MT_EQ(pthread_create(&th[t], NULL, detach_thread, (void *)t), 0);
    }
    for (int it = 0; it < iters; ++it) {
        round_base = load_ul(detached_waits);
        __atomic_store_n(&never_posted, 0, __ATOMIC_RELAXED);
        pthread_barrier_wait(&bar);
        detach_coordinate(it);
        pthread_barrier_wait(&bar);
    }
    for (int t = 0; t < nthreads; ++t) {
        MT_EQ(pthread_join(th[t], NULL), 0);
    }
    pthread_barrier_destroy(&bar);
}

/* ---- mix: every completion call, cancel and free, from many threads at once ---------- */

/* one exchange with the peer's thread @p t, completed by call number @p how */
static void mix_round(int t, int it, int how, int *sbuf, int *rbuf)
{
    int peer = 1 - rank, n = round_len(t, it), idx = -1, outc = 0, ind[2], flag = 0;
    MPI_Request req[2];
    MPI_Status st[2];

    fill(sbuf, n, rank * 10 + it % 10, t);
    memset(rbuf, 0xff, (size_t)n * sizeof(int));
    if (how == 1) {   /* blocking receive, sends nonblocking */
        MT_OK(MPI_Isend(sbuf, n, MPI_INT, peer, t, MPI_COMM_WORLD, &req[0]));
        MT_OK(MPI_Recv(rbuf, n, MPI_INT, peer, t, MPI_COMM_WORLD, &st[1]));
        MT_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        expect(rbuf, n, peer * 10 + it % 10, t);
        return;
    }
    MT_OK(MPI_Irecv(rbuf, n, MPI_INT, peer, t, MPI_COMM_WORLD, &req[1]));
    MT_OK(MPI_Isend(sbuf, n, MPI_INT, peer, t, MPI_COMM_WORLD, &req[0]));
    switch (how) {
    case 0:
        MT_OK(MPI_Wait(&req[1], &st[1]));
        MT_OK(MPI_Wait(&req[0], &st[0]));
        break;
    case 2:
        MT_OK(MPI_Waitall(2, req, st));
        break;
    case 3:
        for (int k = 0; k < 2; ++k) {
            MT_OK(MPI_Waitany(2, req, &idx, &st[0]));
            MT_CHECK(idx == 0 || idx == 1);
        }
        break;
    case 4:
        for (int left = 2; left > 0; left -= outc) {
            MT_OK(MPI_Waitsome(2, req, &outc, ind, st));
            MT_CHECK(outc >= 1 && outc <= left);
        }
        break;
    default:
        while (!flag) {
            MT_OK(MPI_Testall(2, req, &flag, st));
        }
        break;
    }
    MT_CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL);
    expect(rbuf, n, peer * 10 + it % 10, t);
}

/* a receive nobody sends, cancelled and waited on; a send freed while active */
static void mix_cancel_free(int t, int it, int *sbuf, int *rbuf)
{
    int peer = 1 - rank, flag = 0, n = round_len(t, it);
    MPI_Request req;
    MPI_Status st;

    MT_OK(MPI_Irecv(rbuf, 1, MPI_INT, peer, TAG_NEVER + t, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Cancel(&req));
    MT_OK(MPI_Wait(&req, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);
    /* freed before it completes: loom releases it when it does */
    fill(sbuf, n, 50 + rank, t);
    MT_OK(MPI_Isend(sbuf, n, MPI_INT, peer, 2 * MAX_THREADS + t, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Request_free(&req));
    MT_OK(MPI_Recv(rbuf, n, MPI_INT, peer, 2 * MAX_THREADS + t, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE));
    expect(rbuf, n, 50 + peer, t);
    /* the freed send's buffer may still be read until the peer has it: sync */
    MT_OK(MPI_Sendrecv(&flag, 1, MPI_INT, peer, 3 * MAX_THREADS + t, &n, 1, MPI_INT, peer,
                       3 * MAX_THREADS + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void *mix_thread(void *arg)
{
    int t = (int)(long)arg;
    int *sbuf = malloc(BIG), *rbuf = malloc(BIG);

    MT_CHECK(sbuf != NULL && rbuf != NULL);
    for (int it = 0; it < iters; ++it) {
        mix_round(t, it, (it + t) % 6, sbuf, rbuf);
        if (it % 4 == t % 4) {
            mix_cancel_free(t, it, sbuf, rbuf);
        }
    }
    free(sbuf);
    free(rbuf);
    return NULL;
}

static void run_mix(void)
{
    pthread_t th[MAX_THREADS];

    for (long t = 0; t < nthreads; ++t) {
        MT_EQ(pthread_create(&th[t], NULL, mix_thread, (void *)t), 0);
    }
    for (int t = 0; t < nthreads; ++t) {
        MT_EQ(pthread_join(th[t], NULL), 0);
    }
}

int main(int argc, char **argv)
{
    int provided = 0, size;
    const char *mode = argc > 1 ? argv[1] : "mix";

    if (argc > 2) {
        nthreads = atoi(argv[2]);
    }
    if (argc > 3) {
        iters = atoi(argv[3]);
    }
    MT_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MT_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_EQ(size, 2);
    MT_CHECK(nthreads >= 1 && nthreads <= MAX_THREADS);
    if (strcmp(mode, "detach") == 0) {
        run_detach();
    } else if (strcmp(mode, "mix") == 0) {
        run_mix();
    } else {
        MT_FAIL("unknown mode %s", mode);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("mpi_mt_s16 %s: %d threads x %d iterations passed on %d ranks\n", mode,
               nthreads, iters, size);
    }
    MT_OK(MPI_Finalize());
    return 0;
}
