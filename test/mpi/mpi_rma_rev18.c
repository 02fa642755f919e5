/*
 * mpi_rma_rev18.c: the review of session 18's one-sided change (a large
 * contiguous accumulate sends its data from the origin buffer as a message
 * of its own, rma/rma_zcopy.c) and of the paths beside it.
 *
 *   noop     MPI_Accumulate with MPI_NO_OP (which the large path leaves to
 *            the copying one) changes nothing and succeeds: small and large
 *            (64 KiB and more), with a valid origin buffer and with NULL,
 *            between SUMs of the same origin to the same bytes, under an
 *            exclusive lock (the LOCK, the SUMs and the no-ops leave in one
 *            batch), under lock_all with an Raccumulate, and under fence;
 *            to the next rank and to itself. Each flush, unlock and fence
 *            MPI_SUCCESS, every element exactly the SUMs. Before the fix a
 *            batched no-op (it carries no data) was refused by the target
 *            as a malformed request: MPI_ERR_ARG at the flush.
 *
 * usage: mpi_rma_rev18 noop [create|allocate|dynamic]   (any number of ranks)
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

enum {
    NS = 6,        /* ints of a small accumulate */
    NL = 20000,    /* ints of a large one: 80 000 B, above LOOM_RMA_ZCOPY's 64 KiB */
};

static int rank, size;
static MPI_Aint *addrs;   /* every rank's window base (dynamic: its address; else 0) */

/* the displacement of byte @p off of rank @p t's window (disp unit 1) */
static MPI_Aint at(int t, size_t off)
{
    return addrs[t] + (MPI_Aint)off;
}

/* the window: [0, NL) ints, summed into by one origin at a time */
typedef struct win_ctx {
    MPI_Win  win;
    int     *mem;
    int      dyn, alloc;
} win_ctx_t;

static void win_open(win_ctx_t *c, const char *flavor)
{
    MPI_Aint mine = 0, bytes = (MPI_Aint)(NL * sizeof(int));

    memset(c, 0, sizeof(*c));
    c->dyn   = strcmp(flavor, "dynamic") == 0;
    c->alloc = strcmp(flavor, "allocate") == 0;
    if (c->alloc) {
        MT_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c->mem, &c->win));
    } else {
        MT_CHECK((c->mem = malloc((size_t)bytes)) != NULL);
        if (c->dyn) {
            MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &c->win));
            MT_OK(MPI_Win_attach(c->win, c->mem, bytes));
            MT_OK(MPI_Get_address(c->mem, &mine));
        } else {
            MT_OK(MPI_Win_create(c->mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c->win));
        }
    }
    MT_OK(MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN));
    MT_CHECK((addrs = calloc((size_t)size, sizeof(*addrs))) != NULL);
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
}

static void win_close(win_ctx_t *c)
{
    if (c->dyn) {
        MT_OK(MPI_Win_detach(c->win, c->mem));
    }
    MT_OK(MPI_Win_free(&c->win));
    if (!c->alloc) {
        free(c->mem);
    }
    free(addrs);
    addrs = NULL;
}

/* ---- noop ---- */

/*
 * To target @p t: SUM of ones (small), NO_OP small and large (origin
 * @p nul: NULL), SUM of ones (large); each element of [0, NS) gains 2,
 * every other 1.
 */
static void noop_round(const win_ctx_t *c, int t, const int *ones, int nul)
{
    const int *o = nul ? NULL : ones;

    MT_OK(MPI_Accumulate(ones, NS, MPI_INT, t, at(t, 0), NS, MPI_INT, MPI_SUM, c->win));
    MT_OK(MPI_Accumulate(o, NS, MPI_INT, t, at(t, 0), NS, MPI_INT, MPI_NO_OP, c->win));
    MT_OK(MPI_Accumulate(o, NL, MPI_INT, t, at(t, 0), NL, MPI_INT, MPI_NO_OP, c->win));
    MT_OK(MPI_Accumulate(ones, NL, MPI_INT, t, at(t, 0), NL, MPI_INT, MPI_SUM, c->win));
}

/* this rank's window after @p rounds rounds of noop_round */
static void noop_check(const win_ctx_t *c, int rounds, const char *what)
{
    for (long i = 0; i < NL; ++i) {
        int expect = (i < NS ? 2 : 1) * rounds;

        if (c->mem[i] != expect) {
            MT_FAIL("noop (%s): element %ld is %d, expected %d", what, i, c->mem[i], expect);
        }
    }
}

static void noop_zero(win_ctx_t *c)
{
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, c->win));
    memset(c->mem, 0, NL * sizeof(int));
    MT_OK(MPI_Win_unlock(rank, c->win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* the window's own memory, read under a lock of itself (direct windows: a load) */
static void noop_settle(win_ctx_t *c)
{
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, c->win));
    MT_OK(MPI_Win_unlock(rank, c->win));
}

static void test_noop(win_ctx_t *c)
{
    int *ones = malloc(NL * sizeof(int));
    int t = (rank + 1) % size, res[NS];
    MPI_Request rq;

    MT_CHECK(ones != NULL);
    for (long i = 0; i < NL; ++i) {
        ones[i] = 1;
    }
    /* exclusive lock: LOCK, SUM, NO_OPs, SUM in one batch; then again with NULL */
    noop_zero(c);
    for (int nul = 0; nul < 2; ++nul) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, c->win));
        noop_round(c, t, ones, nul);
        MT_OK(MPI_Win_flush(t, c->win));
        noop_round(c, t, ones, nul);
        MT_OK(MPI_Win_unlock(t, c->win));
    }
    noop_settle(c);
    noop_check(c, 4, "lock");

    /* lock_all: to the next rank and to itself, an Raccumulate NO_OP among them */
    noop_zero(c);
    MT_OK(MPI_Win_lock_all(0, c->win));
    noop_round(c, t, ones, 0);
    MT_OK(MPI_Raccumulate(ones, NS, MPI_INT, t, at(t, 0), NS, MPI_INT, MPI_NO_OP, c->win, &rq));
    MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MT_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, res, NS, MPI_INT, t, at(t, 0), NS, MPI_INT,
                             MPI_NO_OP, c->win));
    MT_OK(MPI_Win_flush_all(c->win));
    for (int i = 0; i < NS; ++i) {
        MT_EQ(res[i], 2);   /* the SUMs before it (t's window: its origin is this rank) */
    }
    MT_OK(MPI_Win_unlock_all(c->win));
    noop_settle(c);
    noop_check(c, 1, "lock_all");
    noop_zero(c);
    MT_OK(MPI_Win_lock_all(0, c->win));
    noop_round(c, rank, ones, 1);
    MT_OK(MPI_Win_unlock_all(c->win));
    noop_settle(c);
    noop_check(c, 1, "self");

    /* fence */
    noop_zero(c);
    MT_OK(MPI_Win_fence(0, c->win));
    noop_round(c, t, ones, 0);
    MT_OK(MPI_Win_fence(0, c->win));
    noop_check(c, 1, "fence");
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(ones);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "noop";
    const char *flavor = argc > 2 ? argv[2] : "create";
    win_ctx_t c;

    MT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    win_open(&c, flavor);
    if (strcmp(what, "noop") == 0) {
        test_noop(&c);
    } else {
        MT_FAIL("unknown test %s (noop)", what);
    }
    win_close(&c);
    MT_PASS("mpi_rma_rev18");
    MPI_Finalize();
    return 0;
}
