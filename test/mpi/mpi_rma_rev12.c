/*
 * mpi_rma_rev12.c: review of the session 12 active-message protocol
 * (batched small puts/accumulates, lazy lock): the cases it got wrong.
 *
 *   mtflush  MPI_THREAD_MULTIPLE, two threads of rank 0 under lock_all:
 *            thread A flushes rank 1 while rank 1 makes no MPI call for a
 *            while; meanwhile thread B puts a small block to rank 1 (it is
 *            batched, and counted in the flush's wait) and then waits for A
 *            outside MPI. A's flush must send B's batch, not wait forever
 *            for an answer to a request nobody sends (an alarm fails the
 *            run). Rank 1 then checks both blocks.
 *   mtstress two threads per rank under one lock_all: each puts its own
 *            block to every rank and accumulates into one counter per
 *            rank, flushing now one target, now all, K rounds (the batch
 *            queues are shared by the threads: TSan checks the engine
 *            lock covers them); every block and counter checked at the end.
 *   mixlock  every rank, target 0 included, K rounds of: an exclusive lock
 *            on rank 0 (get, flush, put of a counter and a pair of words:
 *            a non-atomic increment), then a lock_all whose reads of rank
 *            0's pair must never be torn; exclusive requests wait behind
 *            shared holders from several origins and the target itself
 *            locks its own memory: the final count is K x size.
 *
 * usage: mpi_rma_rev12 mtflush | mtstress [K] | mixlock [K]   (mtflush: 2 ranks or more;
 * meant for LOOM_TRANSPORTS=self,tcp, where every window goes by active
 * messages)
 */
#include "mpi_test_util.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define BLK 64

static MPI_Win mt_win;
static pthread_barrier_t mt_bar;

/* thread B: a batched put issued while thread A waits in its flush */
static void *mt_putter(void *arg)
{
    unsigned char buf[BLK];

    (void)arg;
    usleep(100 * 1000);   /* A is in MPI_Win_flush by now */
    memset(buf, 0xB2, sizeof(buf));
    MT_OK(MPI_Put(buf, BLK, MPI_BYTE, 1, BLK, BLK, MPI_BYTE, mt_win));
    pthread_barrier_wait(&mt_bar);   /* outside MPI until A's flush returned */
    return NULL;
}

static void test_mtflush(int rank)
{
    unsigned char *mem, buf[BLK];
    pthread_t th;

    MT_OK(MPI_Win_allocate(2 * BLK, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &mt_win));
    memset(mem, 0, 2 * BLK);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MT_EQ(pthread_barrier_init(&mt_bar, NULL, 2), 0);
        MT_OK(MPI_Win_lock_all(0, mt_win));
        memset(buf, 0xA1, sizeof(buf));
        MT_OK(MPI_Put(buf, BLK, MPI_BYTE, 1, 0, BLK, MPI_BYTE, mt_win));
        MT_EQ(pthread_create(&th, NULL, mt_putter, NULL), 0);
        alarm(20);   /* a flush that never returns fails the run */
        MT_OK(MPI_Win_flush(1, mt_win));
        pthread_barrier_wait(&mt_bar);
        alarm(0);
        MT_EQ(pthread_join(th, NULL), 0);
        MT_OK(MPI_Win_unlock_all(mt_win));
        pthread_barrier_destroy(&mt_bar);
    } else if (rank == 1) {
        usleep(400 * 1000);   /* no MPI call: rank 0's flush waits meanwhile */
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        for (int i = 0; i < BLK; i++) {
            MT_EQ(mem[i], 0xA1);
            MT_EQ(mem[BLK + i], 0xB2);
        }
    }
    MT_OK(MPI_Win_free(&mt_win));
}

#define NTH 2

static int st_rank, st_size, st_k;
static MPI_Win st_win;

/* one thread's rounds: its block at every rank, +1 on every rank's counter */
static void *st_worker(void *arg)
{
    int th = (int)(long)arg;
    long long one = 1;
    unsigned char buf[BLK];

    for (int i = 0; i < st_k; i++) {
        for (int t = 0; t < st_size; t++) {
            MPI_Aint slot = (MPI_Aint)(8 + (st_rank * NTH + th) * BLK);

            memset(buf, (unsigned char)(st_rank * 16 + th * 4 + i % 4 + 1), sizeof(buf));
            MT_OK(MPI_Put(buf, BLK, MPI_BYTE, t, slot, BLK, MPI_BYTE, st_win));
            MT_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, t, 0, 1, MPI_LONG_LONG, MPI_SUM,
                                 st_win));
            if ((i + t) % 3 == 0) {
                MT_OK(MPI_Win_flush(t, st_win));
            }
        }
        if (i % 4 == th) {
            MT_OK(MPI_Win_flush_all(st_win));
        }
    }
    return NULL;
}

static void test_mtstress(int rank, int size, int k)
{
    size_t bytes = 8 + (size_t)size * NTH * BLK;
    unsigned char *mem;
    pthread_t th[NTH];
    long long cnt;

    st_rank = rank;
    st_size = size;
    st_k = k;
    MT_OK(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &st_win));
    memset(mem, 0, bytes);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock_all(0, st_win));
    for (long t = 0; t < NTH; t++) {
        MT_EQ(pthread_create(&th[t], NULL, st_worker, (void *)t), 0);
    }
    for (int t = 0; t < NTH; t++) {
        MT_EQ(pthread_join(th[t], NULL), 0);
    }
    MT_OK(MPI_Win_unlock_all(st_win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, st_win));
    memcpy(&cnt, mem, sizeof(cnt));
    MT_EQ(cnt, (long long)size * NTH * k);
    for (int o = 0; o < size; o++) {
        for (int t = 0; t < NTH; t++) {
            const unsigned char *b = mem + 8 + (o * NTH + t) * BLK;

            for (int i = 0; i < BLK; i++) {
                MT_EQ(b[i], (unsigned char)(o * 16 + t * 4 + (k - 1) % 4 + 1));
            }
        }
    }
    MT_OK(MPI_Win_unlock(rank, st_win));
    MT_OK(MPI_Win_free(&st_win));
}

static void test_mixlock(int rank, int size, int k)
{
    long long *mem, v, pair[2];
    MPI_Win win;

    MT_OK(MPI_Win_allocate(3 * sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mem, &win));
    mem[0] = mem[1] = mem[2] = 0;
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < k; i++) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MT_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_flush(0, win));
        v++;
        pair[0] = pair[1] = v;
        MT_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
        MT_OK(MPI_Put(pair, 2, MPI_LONG_LONG, 0, 1, 2, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_unlock(0, win));
        MT_OK(MPI_Win_lock_all(0, win));
        MT_OK(MPI_Get(pair, 2, MPI_LONG_LONG, 0, 1, 2, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_flush(0, win));
        if (pair[0] != pair[1]) {
            MT_FAIL("round %d: lock_all reader saw a torn pair %lld/%lld", i, pair[0], pair[1]);
        }
        MT_OK(MPI_Win_unlock_all(win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MT_EQ(mem[0], (long long)k * size);
        MT_EQ(mem[1], (long long)k * size);
        MT_OK(MPI_Win_unlock(0, win));
    }
    MT_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    int provided, rank, size;

    MT_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MT_EQ(provided, MPI_THREAD_MULTIPLE);
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (argc > 1 && strcmp(argv[1], "mtflush") == 0) {
        MT_CHECK(size >= 2);
        test_mtflush(rank);
    } else if (argc > 1 && strcmp(argv[1], "mtstress") == 0) {
        test_mtstress(rank, size, argc > 2 ? atoi(argv[2]) : 50);
    } else if (argc > 1 && strcmp(argv[1], "mixlock") == 0) {
        test_mixlock(rank, size, argc > 2 ? atoi(argv[2]) : 50);
    } else {
        MT_FAIL("usage: mpi_rma_rev12 mtflush | mtstress [K] | mixlock [K]");
    }
    MT_OK(MPI_Finalize());
    if (rank == 0) {
        printf("mpi_rma_rev12 %s: ok\n", argv[1]);
    }
    return 0;
}
