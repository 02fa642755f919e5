/*
 * mpi_rma_rev16.c: the review of session 16's one-sided frames (rma/
 * requests, answers and replies by id as p2p frames, p2p/p2p_am.c).
 *
 *   death   rank 0 issues a fetch-and-op and a small get (both answered by
 *           a REPLY naming an id: no receive is posted for them) to rank
 *           1, which takes no MPI call and is killed before serving them
 *           (rank 0 issues them once rank 1 has said, through a file, that
 *           it left its last MPI call);
 *           rank 0's MPI_Win_flush must fail (the peer's failure), not
 *           wait for ever for a reply that never comes (a hang is the
 *           failure: loomrun kills the survivor 2 s after the death); the
 *           error class is MPI_ERR_OTHER, as for a receive.
 *           Rank 0 locks the target first (over active messages the LOCK
 *           is answered by an ACK that never comes either). Rank 0 prints
 *           "death: flush failed" and leaves with _exit(0). Not for
 *           Win_allocate on one host (direct loads and stores: nothing to
 *           answer).
 *
 *   death_rget  the same with an MPI_Rget (not answered by id: its reply
 *           is a posted receive, which the engine fails with the peer):
 *           the Wait completes (an R-request's error is the next flush's)
 *           and the flush fails with MPI_ERR_OTHER, not with whatever the
 *           reply buffer's unwritten status word held (MPI_ERR_UNKNOWN).
 *   death3  three ranks: rank 2 dies; rank 0 queues an accumulate for it,
 *           finds the failure in a flush to rank 1, then flushes rank 2:
 *           MPI_ERR_OTHER, not a wait for ever.
 *   death3_idle  the same death, but rank 0 sends nothing to rank 2: once
 *           the failure is known, MPI_Win_flush_all succeeds (no
 *           operation of rank 0 was lost with it).
 *   edge    the replies by id in every epoch and corner: each rank to
 *           every rank, itself included, under lock_all, fence and PSCW:
 *           fetch-and-op, compare-and-swap, small gets and
 *           get-accumulates (answered by id), zero-byte get-likes,
 *           MPI_PROC_NULL targets, and an R-form get among them (its
 *           reply still a posted receive); over Win_create, Win_allocate
 *           and dynamic windows; exact values.
 *
 * usage: mpi_rma_rev16 death|edge [create|allocate|dynamic]
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
static void death(const char *flavor, int rget)
{
    char *m;
    MPI_Win w = win_make(flavor, WBYTES, &m);
    int64_t one = 1, res = -1, got[4] = { -1, -1, -1, -1 };
    int rc, cls = -1;

    char gone[128];

    signal(SIGTERM, SIG_IGN);   /* loomrun stops the job 0.25 s after the death */
    /* rank 1 says through this file that it left its last MPI call (the
     * barrier): a request rank 0 issued while rank 1 still polled inside it
     * could be served, and the flush then succeeded (once under load) */
    snprintf(gone, sizeof(gone), "%s/loom-rev16-death.%d", getenv("TMPDIR") != NULL ?
             getenv("TMPDIR") : "/tmp", (int)getpid());
    MT_OK(MPI_Bcast(gone, (int)sizeof(gone), MPI_CHAR, 0, MPI_COMM_WORLD));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        struct timespec ts = { 0, 300 * 1000 * 1000 };

        mt_file_touch(gone);
        nanosleep(&ts, NULL);   /* no MPI call: rank 0's requests wait unserved */
        raise(SIGKILL);
    }
    if (rank == 0 && !mt_file_await(gone, 60.0)) {   /* no MPI call here either */
        MT_FAIL("death (%s): rank 1 never left its barrier (no %s after 60 s)", flavor, gone);
    }
    if (rank == 0 && rget) {
        MPI_Request rq;

        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w));
        MT_OK(MPI_Rget(got, 4, MPI_INT64_T, 1, 8, 4, MPI_INT64_T, w, &rq));
        /* an R-request completes; its error is the next flush's (rma_ops.c) */
        (void)MPI_Wait(&rq, MPI_STATUS_IGNORE);
        rc = MPI_Win_flush(1, w);
        MPI_Error_class(rc, &cls);
        if (rc == MPI_SUCCESS || cls != MPI_ERR_OTHER) {
            MT_FAIL("death (%s): the flush after an Rget from the dead rank 1 returned %d "
                    "(class %d), expected class MPI_ERR_OTHER (the peer's failure)", flavor,
                    rc, cls);
        }
        printf("death: flush failed with class %d (rget)\n", cls);
        fflush(stdout);
    } else if (rank == 0) {
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w));
        MT_OK(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 1, 0, MPI_SUM, w));
        MT_OK(MPI_Get(got, 4, MPI_INT64_T, 1, 8, 4, MPI_INT64_T, w));
        rc = MPI_Win_flush(1, w);
        MPI_Error_class(rc, &cls);
        if (rc == MPI_SUCCESS || cls != MPI_ERR_OTHER) {
            MT_FAIL("death (%s): the flush to the dead rank 1 returned %d (class %d, result "
                    "%lld), expected class MPI_ERR_OTHER (the peer's failure)", flavor, rc,
                    cls, (long long)res);
        }
        printf("death: flush failed with class %d\n", cls);
        fflush(stdout);
    }
    _exit(0);
}

/*
 * death3: rank 2 dies; rank 0 queues an accumulate to it (batched, not yet
 * sent), then flushes a fetch-and-op to the live rank 1 (the failure is
 * found there), then flushes rank 2: that flush must fail, not hang (the
 * queued accumulate must not count as answered before its send failed).
 */
static void death3(const char *flavor, int idle)
{
    char *m;
    MPI_Win w = win_make(flavor, WBYTES, &m);
    int64_t one = 1, res = -1;
    int rc, cls = -1, token = 0;

    signal(SIGTERM, SIG_IGN);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* rank 2 dies only once ranks 0 and 1 have left the barrier (a barrier
     * that loses a member before its last message arrives fails) */
    if (rank == 2) {
        MT_OK(MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_OK(MPI_Recv(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        raise(SIGKILL);
    }
    MT_OK(MPI_Send(&token, 1, MPI_INT, 2, 7, MPI_COMM_WORLD));
    if (rank == 1) {   /* serves rank 0 until its last message */
        MT_OK(MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        _exit(0);
    }
    if (rank == 0 && idle) {
        struct timespec ts = { 0, 300 * 1000 * 1000 };

        nanosleep(&ts, NULL);
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w));
        MT_OK(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 1, 0, MPI_SUM, w));
        MT_OK(MPI_Win_flush(1, w));
        /* a receive from rank 2 fails once its failure is known */
        MT_ERR(MPI_Recv(&token, 1, MPI_INT, 2, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
               MPI_ERR_OTHER);
        MT_EQ(res, 0);
        MT_OK(MPI_Win_flush_all(w));   /* nothing was sent to rank 2: no error */
        MT_OK(MPI_Win_unlock(1, w));
        MT_OK(MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
        printf("death3 idle: flush_all succeeded\n");
        fflush(stdout);
    } else if (rank == 0) {
        struct timespec ts = { 0, 300 * 1000 * 1000 };

        nanosleep(&ts, NULL);   /* rank 2 is gone, not yet found so */
        MT_OK(MPI_Win_lock_all(0, w));
        (void)MPI_Accumulate(&one, 1, MPI_INT64_T, 2, 16, 1, MPI_INT64_T, MPI_SUM, w);
        MT_OK(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 1, 0, MPI_SUM, w));
        MT_OK(MPI_Win_flush(1, w));   /* rank 2's failure is found here */
        MT_EQ(res, 0);
        rc = MPI_Win_flush(2, w);
        MPI_Error_class(rc, &cls);
        if (rc == MPI_SUCCESS || cls != MPI_ERR_OTHER) {
            MT_FAIL("death3 (%s): the flush to the dead rank 2 returned %d (class %d), "
                    "expected class MPI_ERR_OTHER", flavor, rc, cls);
        }
        MT_OK(MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
        printf("death3: flush failed with class %d\n", cls);
        fflush(stdout);
    }
    _exit(0);
}

enum { EDGE_ROUNDS = 6 };

/* the window for edge: @p flavor, WBYTES at this rank; *base_p: target
 * displacement of word 0 at each rank (0, or the attached address) */
static MPI_Win edge_win(const char *flavor, char **mem_p, MPI_Aint **base_p)
{
    MPI_Aint *base = calloc((size_t)size, sizeof(*base)), mine;
    MPI_Win w;

    MT_CHECK(base != NULL);
    if (strcmp(flavor, "dynamic") != 0) {
        *base_p = base;
        return win_make(flavor, WBYTES, mem_p);
    }
    MT_CHECK((*mem_p = calloc(1, WBYTES)) != NULL);
    MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MT_OK(MPI_Win_attach(w, *mem_p, WBYTES));
    MT_OK(MPI_Get_address(*mem_p, &mine));
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD));
    MT_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    *base_p = base;
    return w;
}

/*
 * One round of round @p k to every target: word rank of the target counts
 * this rank's fetch-and-ops (old value k), word size + rank holds k by CAS,
 * the gets read the target's word 2 * size + 1 (the target's rank + 100).
 * @p sync: 0 under lock_all (flush_all), else inside a fence/PSCW epoch
 * the caller closes.
 */
static void edge_round(MPI_Win w, const MPI_Aint *base, int k, int64_t *res, int64_t *cas,
                       int64_t *got, int64_t *gacc, int64_t *rget)
{
    int64_t one = 1, cmp = k, nv = k + 1, none = 0;
    MPI_Request rq[64];
    int nrq = 0;

    for (int t = 0; t < size; ++t) {
        MPI_Aint d = base[t];

        MT_OK(MPI_Fetch_and_op(&one, &res[t], MPI_INT64_T, t, d + 8 * rank, MPI_SUM, w));
        MT_OK(MPI_Compare_and_swap(&nv, &cmp, &cas[t], MPI_INT64_T, t,
                                   d + 8 * (size + rank), w));
        MT_OK(MPI_Get(&got[t], 1, MPI_INT64_T, t, d + 8 * (2 * size + 1), 1, MPI_INT64_T, w));
        MT_OK(MPI_Get_accumulate(&none, 1, MPI_INT64_T, &gacc[t], 1, MPI_INT64_T, t,
                                 d + 8 * (2 * size + 1), 1, MPI_INT64_T, MPI_NO_OP, w));
        /* zero bytes and no target: nothing moves, nothing to answer */
        MT_OK(MPI_Get(got, 0, MPI_INT64_T, t, d, 0, MPI_INT64_T, w));
        MT_OK(MPI_Get_accumulate(&none, 0, MPI_INT64_T, gacc, 0, MPI_INT64_T, t, d, 0,
                                 MPI_INT64_T, MPI_SUM, w));
        MT_OK(MPI_Fetch_and_op(&one, &none, MPI_INT64_T, MPI_PROC_NULL, 0, MPI_SUM, w));
        MT_OK(MPI_Get(&none, 1, MPI_INT64_T, MPI_PROC_NULL, 0, 1, MPI_INT64_T, w));
        if (nrq < 64) {
            MT_OK(MPI_Rget(&rget[t], 1, MPI_INT64_T, t, d + 8 * (2 * size + 1), 1,
                           MPI_INT64_T, w, &rq[nrq++]));
        }
    }
    MT_OK(MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));
}

static void edge_check(int k, const int64_t *res, const int64_t *cas, const int64_t *got,
                       const int64_t *gacc, const int64_t *rget)
{
    for (int t = 0; t < size; ++t) {
        if (res[t] != k || cas[t] != k || got[t] != t + 100 || gacc[t] != t + 100 ||
            rget[t] != t + 100) {
            MT_FAIL("edge: round %d at rank %d from target %d: fetch %lld cas %lld get %lld "
                    "get_acc %lld rget %lld (expected %d, %d, %d x3)", k, rank, t,
                    (long long)res[t], (long long)cas[t], (long long)got[t],
                    (long long)gacc[t], (long long)rget[t], k, k, t + 100);
        }
    }
}

static void edge(const char *flavor)
{
    char *m;
    MPI_Aint *base;
    MPI_Win w = edge_win(flavor, &m, &base);
    int64_t *v = calloc((size_t)size * 5, sizeof(int64_t));
    int64_t me = rank + 100;
    MPI_Group world, all;
    int k = 0;

    MT_CHECK(v != NULL && WBYTES >= 8 * (2 * size + 2));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w));
    memcpy(m + 8 * (2 * size + 1), &me, sizeof(me));
    MT_OK(MPI_Win_unlock(rank, w));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    all = world;
    for (int r = 0; r < EDGE_ROUNDS; ++r, ++k) {
        int sync = r % 3;   /* lock_all, fence, PSCW */

        memset(v, 0xee, (size_t)size * 5 * sizeof(int64_t));
        if (sync == 0) {
            MT_OK(MPI_Win_lock_all(0, w));
        } else if (sync == 1) {
            MT_OK(MPI_Win_fence(0, w));
        } else {
            MT_OK(MPI_Win_post(all, 0, w));
            MT_OK(MPI_Win_start(all, 0, w));
        }
        edge_round(w, base, k, v, v + size, v + 2 * size, v + 3 * size, v + 4 * size);
        if (sync == 0) {
            MT_OK(MPI_Win_flush_all(w));
            edge_check(k, v, v + size, v + 2 * size, v + 3 * size, v + 4 * size);
            MT_OK(MPI_Win_unlock_all(w));
        } else if (sync == 1) {
            MT_OK(MPI_Win_fence(0, w));
            edge_check(k, v, v + size, v + 2 * size, v + 3 * size, v + 4 * size);
        } else {
            MT_OK(MPI_Win_complete(w));
            edge_check(k, v, v + size, v + 2 * size, v + 3 * size, v + 4 * size);
            MT_OK(MPI_Win_wait(w));
        }
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MT_OK(MPI_Group_free(&world));
    MT_OK(MPI_Win_free(&w));
    if (strcmp(flavor, "allocate") != 0) {
        free(m);
    }
    free(v);
    free(base);
    MT_PASS("mpi_rma_rev16 edge");
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
        death(flavor, 0);
    }
    if (strcmp(mode, "death_rget") == 0) {
        MT_CHECK(size == 2);
        death(flavor, 1);
    }
    if (strcmp(mode, "death3") == 0) {
        MT_CHECK(size == 3);
        death3(flavor, 0);
    }
    if (strcmp(mode, "death3_idle") == 0) {
        MT_CHECK(size == 3);
        death3(flavor, 1);
    }
    if (strcmp(mode, "edge") == 0) {
        edge(flavor);
        MT_OK(MPI_Finalize());
        return 0;
    }
    MT_FAIL("usage: mpi_rma_rev16 death|death_rget|death3|death3_idle|edge [create|allocate|dynamic]");
    return 1;
}
