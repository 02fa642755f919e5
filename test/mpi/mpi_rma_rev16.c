/*
 * mpi_rma_rev16.c: the review of session 16's one-sided frames (rma/
 * requests, answers and replies by id as p2p frames, p2p/p2p_am.c).
 *
 *   death   rank 0 issues a fetch-and-op and a small get (both answered by
 *           a REPLY naming an id: no receive is posted for them) to rank
 *           1, which takes no MPI call and is killed before serving them;
 *           rank 0's MPI_Win_flush must fail (the peer's failure), not
 *           wait for ever for a reply that never comes (a hang is the
 *           failure: loomrun kills the survivor 2 s after the death).
 *           Rank 0 locks the target first (over active messages the LOCK
 *           is answered by an ACK that never comes either). Rank 0 prints
 *           "death: flush failed" and leaves with _exit(0). Not for
 *           Win_allocate on one host (direct loads and stores: nothing to
 *           answer).
 *
 * usage: mpi_rma_rev16 death [create|allocate]
 */
#include "mpi_test_util.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, size;

enum { WBYTES = 4096 };

/* a window of @p bytes at this rank, zeroed, errors returned */
static MPI_Win win_make(const char *flavor, MPI_Aint bytes, char **mem_p)
{
    MPI_Win w;
    char *m = NULL;

    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &w));
        memset(m, 0, (size_t)bytes);
    } else {
        MT_CHECK((m = calloc(1, (size_t)bytes)) != NULL);
        MT_OK(MPI_Win_create(m, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    }
    MT_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    *mem_p = m;
    return w;
}

/* the target dies with the requests unserved: the flush fails, not hangs */
static void death(const char *flavor)
{
    char *m;
    MPI_Win w = win_make(flavor, WBYTES, &m);
    int64_t one = 1, res = -1, got[4] = { -1, -1, -1, -1 };
    int rc, cls = -1;

    signal(SIGTERM, SIG_IGN);   /* loomrun stops the job 0.25 s after the death */
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        struct timespec ts = { 0, 300 * 1000 * 1000 };

        nanosleep(&ts, NULL);   /* no MPI call: rank 0's requests wait unserved */
        raise(SIGKILL);
    }
    if (rank == 0) {
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w));
        MT_OK(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 1, 0, MPI_SUM, w));
        MT_OK(MPI_Get(got, 4, MPI_INT64_T, 1, 8, 4, MPI_INT64_T, w));
        rc = MPI_Win_flush(1, w);
        MPI_Error_class(rc, &cls);
        if (rc == MPI_SUCCESS) {
            MT_FAIL("death (%s): the flush to the dead rank 1 succeeded (result %lld)",
                    flavor, (long long)res);
        }
        printf("death: flush failed with class %d\n", cls);
        fflush(stdout);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *flavor = argc > 2 ? argv[2] : "create";

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (strcmp(mode, "death") == 0) {
        MT_CHECK(size == 2);
        death(flavor);
    }
    MT_FAIL("usage: mpi_rma_rev16 death [create|allocate]");
    return 1;
}
