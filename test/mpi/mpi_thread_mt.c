/*
 * mpi_thread_mt.c: MPI_THREAD_MULTIPLE programs (test/mpi/test_mpi_threads.sh).
 *
 *   mpi_thread_mt MODE [THREADS] [ITERS]
 *
 * MODE:
 *   p2p     every thread ping-pongs around the ring on WORLD (its own tag)
 *           and on its own duplicate of WORLD, eager and rendezvous sizes
 *   race    pairs of ranks (even e receives from e + 1): the receiver's
 *           threads take one stream with wildcard-source, wildcard-tag and
 *           specific receives at once; every message is taken exactly once
 *           and each thread sees each sender thread's messages in order
 *   mprobe  the same streams taken with MPI_Mprobe/MPI_Improbe + MPI_Mrecv
 *           (a matched message goes to exactly one thread), sizes up to
 *           rendezvous
 *   coll    each thread duplicates and splits its own communicator (at the
 *           same time as the others: distinct context ids) and runs
 *           barrier, bcast, allreduce and allgather on it
 *   handoff requests started by one thread are completed by another
 *           (MPI_Wait, MPI_Test loop, MPI_Waitall)
 *   bsend   every thread sends buffered (MPI_Bsend / MPI_Ibsend) around the
 *           ring through one attached buffer, which a thread's reclaiming
 *           walk shares with the others' new blocks
 *   bias    the threads take turns calling MPI alone (BIAS_BURST sendrecvs
 *           to this rank, enough for the engine lock to be biased to that
 *           thread, base/mt.c), then all run a ring round at once, so the
 *           others revoke the bias while its owner is inside
 *
 * Every check prints the rank and line and aborts the job (mpi_test_util.h).
 */
#include "mpi_test_util.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>

#define MAX_THREADS 16
#define TAG_DATA 7
#define BIG 40000   /* bytes: above the default eager limit */

static int nthreads = 4, iters = 50, rank, size;
static MPI_Comm thread_comm[MAX_THREADS];

typedef void *(*thread_fn_t)(void *);

static void run_threads(thread_fn_t fn)
{
    pthread_t th[MAX_THREADS];

    for (long t = 0; t < nthreads; ++t) {
        MT_EQ(pthread_create(&th[t], NULL, fn, (void *)t), 0);
    }
    for (int t = 0; t < nthreads; ++t) {
        MT_EQ(pthread_join(th[t], NULL), 0);
    }
}

static void fill(int *buf, int n, int a, int b, int c)
{
    for (int i = 0; i < n; ++i) {
        buf[i] = a * 1000000 + b * 10000 + c + i;
    }
}

static void expect(const int *buf, int n, int a, int b, int c)
{
    for (int i = 0; i < n; ++i) {
        if (buf[i] != a * 1000000 + b * 10000 + c + i) {
            MT_FAIL("element %d of (%d,%d,%d): %d", i, a, b, c, buf[i]);
        }
    }
}

/* ---- p2p: ring exchanges on WORLD and on per-thread duplicates ----------------- */

static void ring_round(MPI_Comm comm, int tag, int t, int it, int *sbuf, int *rbuf)
{
    int n = (it % 5 == 4) ? BIG / (int)sizeof(int) : 1 + it % 64;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_Request req[2];
    MPI_Status st[2];
    int count = -1;

    fill(sbuf, n, rank, t, it);
    MT_OK(MPI_Irecv(rbuf, n, MPI_INT, left, tag, comm, &req[0]));
    if (it % 2 == 0) {
        MT_OK(MPI_Send(sbuf, n, MPI_INT, right, tag, comm));
        MT_OK(MPI_Wait(&req[0], &st[0]));
    } else {
        MT_OK(MPI_Isend(sbuf, n, MPI_INT, right, tag, comm, &req[1]));
        MT_OK(MPI_Waitall(2, req, st));
    }
    MT_EQ(st[0].MPI_SOURCE, left);
    MT_EQ(st[0].MPI_TAG, tag);
    MT_OK(MPI_Get_count(&st[0], MPI_INT, &count));
    MT_EQ(count, n);
    expect(rbuf, n, left, t, it);
}

static void *p2p_thread(void *arg)
{
    int t = (int)(long)arg, flag = -1;
    int *sbuf = malloc(BIG), *rbuf = malloc(BIG);

    MT_CHECK(sbuf != NULL && rbuf != NULL);
    MT_OK(MPI_Is_thread_main(&flag));
    MT_EQ(flag, 0);
    for (int it = 0; it < iters; ++it) {
        ring_round(MPI_COMM_WORLD, 100 + t, t, it, sbuf, rbuf);   /* same comm */
        ring_round(thread_comm[t], TAG_DATA, t, it, sbuf, rbuf);  /* its own comm */
    }
    free(sbuf);
    free(rbuf);
    return NULL;
}

/* ---- race and mprobe: one stream, many receiving threads ------------------------- */

/* a message: {sender thread, seq, length in ints}, then the payload; seq -1 ends */
#define HDR 3
static int race_seen[MAX_THREADS][4096];
static int race_total;

static int race_len(int t, int seq)
{
    return HDR + ((seq % 7 == 6) ? BIG / (int)sizeof(int) : (seq * 13 + t) % 100);
}

static void *race_send_thread(void *arg)
{
    int t = (int)(long)arg, peer = rank - 1;
    int *buf = malloc(BIG + 64 * sizeof(int));

    MT_CHECK(buf != NULL);
    for (int seq = 0; seq < iters; ++seq) {
        int n = race_len(t, seq);
        buf[0] = t;
        buf[1] = seq;
        buf[2] = n;
        fill(buf + HDR, n - HDR, t, seq, 1);
        MT_OK(MPI_Send(buf, n, MPI_INT, peer, TAG_DATA, MPI_COMM_WORLD));
    }
    free(buf);
    return NULL;
}

/* the message in @p buf (@p count ints) was taken by thread @p t */
static void race_took(const int *buf, int count, int *last)
{
    int s = buf[0], seq = buf[1];

    MT_CHECK(s >= 0 && s < nthreads && seq >= 0 && seq < iters);
    MT_EQ(count, race_len(s, seq));
    MT_EQ(buf[2], count);
    expect(buf + HDR, count - HDR, s, seq, 1);
    if (seq <= last[s]) {
        MT_FAIL("sender thread %d: message %d after %d (MPI order)", s, seq, last[s]);
    }
    last[s] = seq;
    MT_EQ(__atomic_add_fetch(&race_seen[s][seq], 1, __ATOMIC_RELAXED), 1);
    __atomic_add_fetch(&race_total, 1, __ATOMIC_RELAXED);
}

static void *race_recv_thread(void *arg)
{
    int t = (int)(long)arg, peer = rank + 1, last[MAX_THREADS], count;
    int src = t % 3 == 2 ? peer : MPI_ANY_SOURCE, tag = t % 3 == 0 ? MPI_ANY_TAG : TAG_DATA;
    int *buf = malloc(BIG + 64 * sizeof(int));
    MPI_Status st;

    MT_CHECK(buf != NULL);
    for (int i = 0; i < MAX_THREADS; ++i) {
        last[i] = -1;
    }
    for (;;) {
        MT_OK(MPI_Recv(buf, BIG / (int)sizeof(int) + 64, MPI_INT, src, tag, MPI_COMM_WORLD,
                       &st));
        MT_EQ(st.MPI_SOURCE, peer);
        MT_EQ(st.MPI_TAG, TAG_DATA);
        MT_OK(MPI_Get_count(&st, MPI_INT, &count));
        if (count == 1 && buf[0] == -1) {
            break;   /* this thread's end message */
        }
        race_took(buf, count, last);
    }
    free(buf);
    return NULL;
}

static void *mprobe_recv_thread(void *arg)
{
    int t = (int)(long)arg, peer = rank + 1, last[MAX_THREADS], count, flag;
    int *buf = malloc(BIG + 64 * sizeof(int));
    MPI_Message msg;
    MPI_Status st;

    MT_CHECK(buf != NULL);
    for (int i = 0; i < MAX_THREADS; ++i) {
        last[i] = -1;
    }
    for (;;) {
        if (t % 2 == 0) {
            MT_OK(MPI_Mprobe(MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &msg, &st));
        } else {
            do {
                MT_OK(MPI_Improbe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
            } while (!flag && sched_yield() == 0);
        }
        MT_EQ(st.MPI_SOURCE, peer);
        MT_OK(MPI_Get_count(&st, MPI_INT, &count));
        MT_OK(MPI_Mrecv(buf, count, MPI_INT, &msg, &st));
        MT_CHECK(msg == MPI_MESSAGE_NULL);
        if (count == 1 && buf[0] == -1) {
            break;
        }
        race_took(buf, count, last);
    }
    free(buf);
    return NULL;
}

static void race(thread_fn_t recv_fn)
{
    int end = -1;

    if (rank % 2 == 1) {
        run_threads(race_send_thread);
        for (int t = 0; t < nthreads; ++t) {   /* one end message per receiving thread */
            MT_OK(MPI_Send(&end, 1, MPI_INT, rank - 1, TAG_DATA, MPI_COMM_WORLD));
        }
    } else if (rank + 1 < size) {
        run_threads(recv_fn);
        MT_EQ(race_total, nthreads * iters);
        for (int s = 0; s < nthreads; ++s) {
            for (int seq = 0; seq < iters; ++seq) {
                MT_EQ(race_seen[s][seq], 1);
            }
        }
    }
}

/* ---- coll: collectives on per-thread communicators made concurrently ------------- */

static void *coll_thread(void *arg)
{
    int t = (int)(long)arg, v, sum, *all = malloc((size_t)size * 2 * sizeof(int));
    MPI_Comm dup, half;
    int hrank, hsize;

    MT_CHECK(all != NULL);
    MT_OK(MPI_Comm_dup(thread_comm[t], &dup));
    MT_OK(MPI_Comm_split(dup, rank % 2, size - rank, &half));
    MT_OK(MPI_Comm_rank(half, &hrank));
    MT_OK(MPI_Comm_size(half, &hsize));
    MT_EQ(hsize, (size + 1 - rank % 2) / 2);
    for (int it = 0; it < iters; ++it) {
        MT_OK(MPI_Barrier(dup));
        v = rank == it % size ? t * 1000 + it : -1;
        MT_OK(MPI_Bcast(&v, 1, MPI_INT, it % size, dup));
        MT_EQ(v, t * 1000 + it);
        v = rank + t + it;
        MT_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup));
        MT_EQ(sum, size * (size - 1) / 2 + size * (t + it));
        int pair[2] = {rank, t * 100 + it};
        MT_OK(MPI_Allgather(pair, 2, MPI_INT, all, 2, MPI_INT, half));
        for (int q = 0; q < hsize; ++q) {   /* key size - rank: descending ranks */
            MT_EQ(all[2 * q + 1], t * 100 + it);
            MT_EQ(all[2 * q] % 2, rank % 2);
            if (q > 0) {
                MT_CHECK(all[2 * q] < all[2 * q - 2]);
            }
        }
        MT_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_MAX, half));
    }
    MT_OK(MPI_Comm_free(&half));
    MT_OK(MPI_Comm_free(&dup));
    free(all);
    return NULL;
}

/* ---- handoff: requests completed by a thread that did not start them ------------- */

static MPI_Request handoff_req[MAX_THREADS];
static int handoff_buf[MAX_THREADS];

static void *handoff_thread(void *arg)
{
    int t = (int)(long)arg, flag = 0;
    MPI_Status st;

    if (t % 2 == 0) {
        MT_OK(MPI_Wait(&handoff_req[t], &st));
    } else {
        do {
            MT_OK(MPI_Test(&handoff_req[t], &flag, &st));
        } while (!flag && sched_yield() == 0);
    }
    MT_CHECK(handoff_req[t] == MPI_REQUEST_NULL);
    MT_EQ(st.MPI_TAG, 200 + t);
    MT_EQ(handoff_buf[t], ((rank - 1 + size) % size) * 100 + t);
    return NULL;
}

static void *handoff_sender(void *arg)
{
    MPI_Request *reqs = arg;
    MT_OK(MPI_Waitall(nthreads, reqs, MPI_STATUSES_IGNORE));
    return NULL;
}

static void handoff(void)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size, val[MAX_THREADS];
    MPI_Request sreq[MAX_THREADS];
    pthread_t th;

    for (int it = 0; it < iters / 10 + 1; ++it) {
        for (int t = 0; t < nthreads; ++t) {
            MT_OK(MPI_Irecv(&handoff_buf[t], 1, MPI_INT, left, 200 + t, MPI_COMM_WORLD,
                            &handoff_req[t]));
        }
        for (int t = 0; t < nthreads; ++t) {
            val[t] = rank * 100 + t;
            MT_OK(MPI_Isend(&val[t], 1, MPI_INT, right, 200 + t, MPI_COMM_WORLD, &sreq[t]));
        }
        MT_EQ(pthread_create(&th, NULL, handoff_sender, sreq), 0);
        run_threads(handoff_thread);
        MT_EQ(pthread_join(th, NULL), 0);
        for (int t = 0; t < nthreads; ++t) {
            MT_CHECK(sreq[t] == MPI_REQUEST_NULL);
        }
    }
}

/* ---- bsend: one attached buffer, many threads ------------------------------------ */

#define BSEND_INTS 24

static void *bsend_thread(void *arg)
{
    int t = (int)(long)arg, out[BSEND_INTS], in[BSEND_INTS];
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_Request req;

    for (int it = 0; it < iters; ++it) {
        for (int k = 0; k < 3; ++k) {   /* three in flight: the walk has blocks to test */
            fill(out, BSEND_INTS, rank, t, 3 * it + k);
            if (k == 0) {
                MT_OK(MPI_Bsend(out, BSEND_INTS, MPI_INT, right, 300 + t, MPI_COMM_WORLD));
            } else {
                MT_OK(MPI_Ibsend(out, BSEND_INTS, MPI_INT, right, 300 + t, MPI_COMM_WORLD,
                                 &req));
                MT_OK(k == 1 ? MPI_Request_free(&req) : MPI_Wait(&req, MPI_STATUS_IGNORE));
            }
            memset(out, 0xff, sizeof(out));   /* the buffered copy must not change */
        }
        for (int k = 0; k < 3; ++k) {
            MT_OK(MPI_Recv(in, BSEND_INTS, MPI_INT, left, 300 + t, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
            expect(in, BSEND_INTS, left, t, 3 * it + k);
        }
    }
    return NULL;
}

static void bsend(void)
{
    /* room for a few messages per thread only: blocks are reclaimed and reused */
    int len = nthreads * 8 * (BSEND_INTS * (int)sizeof(int) + MPI_BSEND_OVERHEAD), dlen = 0;
    void *b = malloc((size_t)len), *back = NULL;

    MT_CHECK(b != NULL);
    MT_OK(MPI_Buffer_attach(b, len));
    run_threads(bsend_thread);
    MT_OK(MPI_Buffer_detach(&back, &dlen));
    MT_CHECK(back == b);
    MT_EQ(dlen, len);
    free(b);
}

/* ---- bias: one thread alone long enough to own the lock, then all at once ---------- */

#define BIAS_BURST 1200   /* calls alone: above the lock's streak (1024 takes) */
static int bias_done;     /* iterations whose solo burst has finished (atomic) */

/* BIAS_BURST sendrecvs to this rank on the thread's own communicator, checked */
static void bias_burst(int t, int it)
{
    for (int k = 0; k < BIAS_BURST; ++k) {
        int v = t * 1000000 + it * 10000 + k, r = -1;
        MT_OK(MPI_Sendrecv(&v, 1, MPI_INT, rank, k % 32, &r, 1, MPI_INT, rank, k % 32,
                           thread_comm[t], MPI_STATUS_IGNORE));
        MT_EQ(r, v);
    }
}

static void *bias_thread(void *arg)
{
    int t = (int)(long)arg;
    int *sbuf = malloc(BIG), *rbuf = malloc(BIG);

    MT_CHECK(sbuf != NULL && rbuf != NULL);
    for (int it = 0; it < iters; ++it) {
        if (it % nthreads == t) {
            bias_burst(t, it);
            __atomic_store_n(&bias_done, it + 1, __ATOMIC_RELEASE);
        }
        while (__atomic_load_n(&bias_done, __ATOMIC_ACQUIRE) < it + 1) {
            sched_yield();
        }
        ring_round(MPI_COMM_WORLD, 100 + t, t, it, sbuf, rbuf);   /* all at once */
    }
    free(sbuf);
    free(rbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "p2p";
    int provided = -1, flag = 0;

    MT_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MT_EQ(provided, MPI_THREAD_MULTIPLE);
    MT_OK(MPI_Query_thread(&provided));
    MT_EQ(provided, MPI_THREAD_MULTIPLE);
    MT_OK(MPI_Is_thread_main(&flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    nthreads = argc > 2 ? atoi(argv[2]) : nthreads;
    iters    = argc > 3 ? atoi(argv[3]) : iters;
    MT_CHECK(nthreads >= 1 && nthreads <= MAX_THREADS && iters >= 1 && iters <= 4096);
    for (int t = 0; t < nthreads; ++t) {
        MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[t]));
    }
    if (strcmp(mode, "p2p") == 0) {
        run_threads(p2p_thread);
    } else if (strcmp(mode, "race") == 0) {
        race(race_recv_thread);
    } else if (strcmp(mode, "mprobe") == 0) {
        race(mprobe_recv_thread);
    } else if (strcmp(mode, "coll") == 0) {
        run_threads(coll_thread);
    } else if (strcmp(mode, "handoff") == 0) {
        handoff();
    } else if (strcmp(mode, "bsend") == 0) {
        bsend();
    } else if (strcmp(mode, "bias") == 0) {
        run_threads(bias_thread);
    } else {
        MT_FAIL("unknown mode '%s'", mode);
    }
    for (int t = 0; t < nthreads; ++t) {
        MT_OK(MPI_Comm_free(&thread_comm[t]));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("mpi_thread_mt %s: %d threads x %d iterations passed on %d ranks\n", mode,
               nthreads, iters, size);
    }
    MT_OK(MPI_Finalize());
    return 0;
}
