/*
 * mpi_coll_shm2.c: review cases of the eager on-node collectives (issue 21)
 * that mpi_coll_shm.c's random schedule does not reach.
 *
 *   mismatch: two ranks both take themselves for a bcast's root (each
 *     returns at once, the eager way); the next collective must fail with
 *     MPI_ERR_ROOT on every rank, and the one after it must work again.
 *   free:     an eager bcast / reduce as the last operation on a dup
 *     before MPI_Comm_free, then a new dup (which may get the same context
 *     id and segment name) running eager operations at once; the last
 *     operation before MPI_Finalize is an eager reduce.
 *   mt:       MPI_THREAD_MULTIPLE, two threads per rank, each running a
 *     schedule of bcast / reduce / allreduce / barrier on its own dup of
 *     MPI_COMM_WORLD: the engine lock is yielded while one thread waits,
 *     so the other's operations (and catch-ups) interleave with it.
 *   after:    a reduce whose root finds a count mismatch while the others
 *     returned (eager); the next call (allreduce, bcast, ibcast) must fail or
 *     give the right data on every rank, never success with stale slots.
 *   nbfree:   nonblocking collectives (iallreduce, ibcast, ialltoall,
 *     ibarrier) started on a dup that is freed before they are waited for:
 *     MPI lets them complete normally (the free only marks the dup); ASan
 *     saw the state machines read the freed communicator.
 *   death:    the last rank exits right after an eager operation: the
 *     others' next call reports the mismatch ([rounds] odd) or the launcher
 *     stops the job ([rounds] even); never a hang.
 *
 * Usage: mpi_coll_shm2 mismatch|free|nbfree|mt|after|death [rounds]
 */
#include "mpi_test_util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, rounds = 200;

static unsigned char pat(int round, size_t i, int root, int salt)
{
    return (unsigned char)(round * 131 + (int)i * 7 + root * 17 + salt * 29);
}

/* one bcast of n bytes from root on comm, checked */
static void do_bcast(MPI_Comm comm, int round, size_t n, int root, int salt)
{
    unsigned char buf[8200];
    int me;

    MPI_Comm_rank(comm, &me);
    for (size_t i = 0; i < n; ++i) {
        buf[i] = me == root ? pat(round, i, root, salt) : 0xee;
    }
    MT_OK(MPI_Bcast(buf, (int)n, MPI_BYTE, root, comm));
    for (size_t i = 0; i < n; ++i) {
        if (buf[i] != pat(round, i, root, salt)) {
            MT_FAIL("bcast round %d salt %d: byte %zu of %zu from root %d is %u, want %u",
                    round, salt, i, n, root, buf[i], pat(round, i, root, salt));
        }
    }
}

/* one reduce (int sum) of n ints to root on comm, checked */
static void do_reduce(MPI_Comm comm, int round, int n, int root, int salt)
{
    int in[1024], out[1024], me, p;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    for (int i = 0; i < n; ++i) {
        in[i] = round * 3 + i + me * 1000 + salt;
        out[i] = -7;
    }
    MT_OK(MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, comm));
    for (int i = 0; me == root && i < n; ++i) {
        int want = p * (round * 3 + i + salt) + 1000 * p * (p - 1) / 2;
        if (out[i] != want) {
            MT_FAIL("reduce round %d salt %d: element %d of %d at root %d is %d, want %d",
                    round, salt, i, n, root, out[i], want);
        }
    }
}

static void do_allreduce(MPI_Comm comm, int round)
{
    int in = round + rank, out = 0;

    MT_OK(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm));
    MT_EQ(out, size * round + size * (size - 1) / 2);
}

static void case_mismatch(void)
{
    MPI_Comm c;
    unsigned char buf[64];
    int root, err, cls;

    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MT_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    do_bcast(c, 1, 64, 0, 0);                   /* the segment is set up */
    /* ranks 0 and 1 each name themselves the root; the others name 0 */
    root = rank == 1 ? 1 : 0;
    memset(buf, rank, sizeof(buf));
    err = MPI_Bcast(buf, 64, MPI_BYTE, root, c);
    MT_EQ(err, MPI_SUCCESS);                    /* found at the next call */
    err = MPI_Barrier(c);
    MPI_Error_class(err, &cls);
    MT_EQ(cls, MPI_ERR_ROOT);
    MT_OK(MPI_Barrier(c));                      /* usable again */
    do_bcast(c, 2, 100, size - 1, 1);
    do_reduce(c, 3, 10, size - 1, 1);
    do_allreduce(c, 4);
    MT_OK(MPI_Comm_free(&c));
}

static void case_free(void)
{
    for (int r = 0; r < rounds; ++r) {
        MPI_Comm c;

        MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        do_bcast(c, r, (size_t)(1 + r % 3 * 4000), r % size, 0);
        if (r % 2) {
            do_reduce(c, r, 1 + r % 100, (r + 1) % size, 0);
        }
        MT_OK(MPI_Comm_free(&c));
    }
    do_reduce(MPI_COMM_WORLD, 7, 5, size - 1, 3);
}

struct mt_arg {
    MPI_Comm comm;
    int salt;
};

static void *mt_thread(void *p)
{
    struct mt_arg *a = p;
    uint64_t st = 12345u + (unsigned)a->salt;

    for (int r = 0; r < rounds; ++r) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        unsigned x = (unsigned)(st >> 33);
        int root = (int)(x % (unsigned)size);

        switch (x / 7u % 5u) {
        case 0: case 1: do_bcast(a->comm, r, 1 + x % 8200, root, a->salt); break;
        case 2: case 3: do_reduce(a->comm, r, 1 + (int)(x % 1024), root, a->salt); break;
        default:
            if (x & 1) {
                MT_OK(MPI_Barrier(a->comm));
            } else {
                do_allreduce(a->comm, r);
            }
        }
    }
    return NULL;
}

static void case_mt(void)
{
    struct mt_arg a[2];
    pthread_t t[2];

    for (int i = 0; i < 2; ++i) {
        MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a[i].comm));
        a[i].salt = i + 1;
    }
    for (int i = 0; i < 2; ++i) {
        MT_EQ(pthread_create(&t[i], NULL, mt_thread, &a[i]), 0);
    }
    for (int i = 0; i < 2; ++i) {
        MT_EQ(pthread_join(t[i], NULL), 0);
    }
    for (int i = 0; i < 2; ++i) {
        MT_OK(MPI_Comm_free(&a[i].comm));
    }
}

/*
 * A reduce whose root finds a count mismatch (its error) while the others
 * returned at once (eager): they find it when the next call catches up. That
 * next call must fail on every rank: an allreduce whose root-of-before
 * proceeded would fold the slots the others never filled (their previous
 * inputs) and return success with a wrong sum.
 */
static void case_after(void)
{
    MPI_Comm c;
    MPI_Request req;
    unsigned char b[32];
    int in[8], out[8], err, cls = -1, x, sum = -1;

    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MT_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    for (int i = 0; i < 8; ++i) {
        in[i] = i;
    }
    /* k: the call after the failed reduce: allreduce, bcast from a rank
     * that returned from the reduce at once, the same as an Ibcast */
    for (int k = 0; k < 3; ++k) {
        for (int r = 0; r < 3; ++r) {             /* slots of both parities filled */
            do_allreduce(c, 100 + r);
            do_bcast(c, 50 + r, 32, 1, k);
        }
        err = MPI_Reduce(in, out, rank == 0 ? 4 : 8, MPI_INT, MPI_SUM, 0, c);
        MPI_Error_class(err, &cls);
        if (rank == 0) {
            MT_EQ(cls, MPI_ERR_COUNT);
        } else {
            MT_EQ(err, MPI_SUCCESS);              /* eager: nobody waits */
        }
        x = rank + 1;
        memset(b, rank == 1 ? 0x5a : 0, sizeof(b));
        if (k == 0) {
            err = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
            if (err == MPI_SUCCESS && sum != size * (size + 1) / 2) {
                MT_FAIL("allreduce after a failed reduce returned success with sum %d, "
                        "want %d", sum, size * (size + 1) / 2);
            }
        } else {
            err = k == 1 ? MPI_Bcast(b, 32, MPI_BYTE, 1, c)
                         : MPI_Ibcast(b, 32, MPI_BYTE, 1, c, &req);
            if (k == 2 && err == MPI_SUCCESS) {
                err = MPI_Wait(&req, MPI_STATUS_IGNORE);
            }
            if (err == MPI_SUCCESS && b[31] != 0x5a) {
                MT_FAIL("bcast %d after a failed reduce returned success with byte %u, "
                        "want 0x5a", k, b[31]);
            }
        }
        if (rank != 0) {
            MPI_Error_class(err, &cls);
            MT_EQ(cls, MPI_ERR_COUNT);           /* the reduce's mismatch, found now */
        }
        MT_OK(MPI_Barrier(c));                    /* usable again */
        do_allreduce(c, 7);
    }
    MT_OK(MPI_Comm_free(&c));
}

/* the last rank dies right after an eager operation; the others' next
 * collective must report it (or the launcher end the job), never hang */
static void case_death(void)
{
    int err, cls = -1;

    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    do_bcast(MPI_COMM_WORLD, 1, 64, 0, 0);
    if (rank == 0 || rounds % 2 == 0) {
        do_bcast(MPI_COMM_WORLD, 2, 64, 0, 0);       /* eager root, last op */
    } else {
        do_reduce(MPI_COMM_WORLD, 2, 4, 0, 0);       /* mismatch too: nobody waits */
    }
    if (rank == size - 1) {
        _exit(0);
    }
    err = MPI_Barrier(MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    fprintf(stderr, "[rank %d] barrier after the death: class %d\n", rank, cls);
    _exit(err == MPI_SUCCESS ? 5 : 0);
}

/* nonblocking collectives outlive the free of their communicator */
static void case_nbfree(void)
{
    for (int r = 0; r < rounds; ++r) {
        MPI_Comm dup;
        MPI_Request reqs[4];
        long sum = rank + r, all = 0, b = rank == r % size ? 1000 + r : -1;
        int *sbuf = malloc((size_t)size * sizeof(int)), *rbuf = malloc((size_t)size * sizeof(int));

        MT_CHECK(sbuf != NULL && rbuf != NULL);
        for (int i = 0; i < size; ++i) {
            sbuf[i] = rank * 1000 + i + r;
            rbuf[i] = -1;
        }
        MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        MT_OK(MPI_Iallreduce(&sum, &all, 1, MPI_LONG, MPI_SUM, dup, &reqs[0]));
        MT_OK(MPI_Ibcast(&b, 1, MPI_LONG, r % size, dup, &reqs[1]));
        MT_OK(MPI_Ialltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dup, &reqs[2]));
        MT_OK(MPI_Ibarrier(dup, &reqs[3]));
        MT_OK(MPI_Comm_free(&dup));
        MT_EQ(dup == MPI_COMM_NULL, 1);
        MT_OK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
        MT_EQ(all, (long)size * (size - 1) / 2 + (long)size * r);
        MT_EQ(b, 1000 + r);
        for (int i = 0; i < size; ++i) {
            MT_EQ(rbuf[i], i * 1000 + rank + r);
        }
        free(sbuf);
        free(rbuf);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "free";
    int provided;

    if (argc > 2) {
        rounds = atoi(argv[2]);
    }
    MT_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (strcmp(mode, "mismatch") == 0) {
        case_mismatch();
    } else if (strcmp(mode, "after") == 0) {
        case_after();
    } else if (strcmp(mode, "nbfree") == 0) {
        case_nbfree();
    } else if (strcmp(mode, "death") == 0) {
        case_death();
    } else if (strcmp(mode, "mt") == 0) {
        MT_EQ(provided, MPI_THREAD_MULTIPLE);
        case_mt();
    } else {
        case_free();
    }
    MT_OK(MPI_Finalize());
    if (rank == 0) {
        printf("mpi_coll_shm2 %s: passed\n", mode);
    }
    return 0;
}
