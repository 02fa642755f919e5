/*
 * mpi_thread_level.c: the thread levels (test/mpi/test_mpi_threads.sh).
 *
 *   mpi_thread_level LEVEL      (0 SINGLE .. 3 MULTIPLE; 4: plain MPI_Init)
 *
 * MPI_Init_thread grants the level asked for, MPI_Query_thread repeats it,
 * MPI_Is_thread_main is true on the initializing thread only. Under
 * SERIALIZED and MULTIPLE, two threads then take turns (a pthread mutex
 * serializes them) exchanging with the neighbours, which SERIALIZED allows
 * without loom taking any lock.
 */
#include "mpi_test_util.h"

#include <pthread.h>
#include <sched.h>

static int rank, size;
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    int t = (int)(long)arg, flag = -1;

    MT_OK(MPI_Is_thread_main(&flag));
    MT_EQ(flag, 0);
    for (int it = 0; it < 20; ++it) {
        int out = rank * 1000 + t * 100 + it, in = -1, done = 0;
        MPI_Request req[2];
        /* one call per turn: blocking while holding the turn could wait for
         * a message the other thread of a neighbour has yet to send */
        MT_EQ(pthread_mutex_lock(&turn), 0);
        MT_OK(MPI_Irecv(&in, 1, MPI_INT, (rank - 1 + size) % size, t, MPI_COMM_WORLD,
                        &req[0]));
        MT_OK(MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, t, MPI_COMM_WORLD, &req[1]));
        MT_EQ(pthread_mutex_unlock(&turn), 0);
        while (!done) {
            MT_EQ(pthread_mutex_lock(&turn), 0);
            MT_OK(MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE));
            MT_EQ(pthread_mutex_unlock(&turn), 0);
            if (!done) {
                sched_yield();
            }
        }
        MT_EQ(in, ((rank - 1 + size) % size) * 1000 + t * 100 + it);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int arg = argc > 1 ? atoi(argv[1]) : 3, level = arg, provided = -1, flag = 0;
    pthread_t th[2];

    if (level == 4) {
        MT_OK(MPI_Init(&argc, &argv));
        level = MPI_THREAD_SINGLE;
    } else {
        MT_OK(MPI_Init_thread(&argc, &argv, level, &provided));
        MT_EQ(provided, level);
    }
    MT_OK(MPI_Query_thread(&provided));
    MT_EQ(provided, level);
    MT_OK(MPI_Is_thread_main(&flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (level >= MPI_THREAD_SERIALIZED && size > 1) {
        /* a size-1 job would send to itself while the other thread holds the turn */
        for (long t = 0; t < 2; ++t) {
            MT_EQ(pthread_create(&th[t], NULL, worker, (void *)t), 0);
        }
        for (int t = 0; t < 2; ++t) {
            MT_EQ(pthread_join(th[t], NULL), 0);
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("mpi_thread_level %d: passed on %d ranks\n", arg, size);
    }
    MT_OK(MPI_Finalize());
    return 0;
}
