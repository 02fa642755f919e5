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
 *   mix      what the review found sound, checked: each rank against the
 *            next, R epochs (exclusive lock, lock_all, shared lock in
 *            turn) of O random operations each: accumulates (SUM, REPLACE,
 *            MAX, BXOR; a third of them 64 KiB or more, the large path),
 *            get-accumulates, fetch-and-ops and compare-and-swaps on the
 *            same bytes, large puts and gets of other bytes beside them,
 *            flush_local (the origin buffers freed at once) and flush
 *            between; every fetched value and, after each epoch, every
 *            byte as a serial model in program order says. It fails
 *            (a fetch that overtook a large accumulate) if the target lets
 *            an origin's large accumulate pass the one before it as it lets
 *            large puts and gets pass.
 *   death    (np 2) rank 1 says through a file that it left its last MPI
 *            call, then is killed; rank 0 locks it, issues a large
 *            accumulate (its header and data to a dead rank) and ends the
 *            epoch with MPI_Win_flush, flush_local or unlock (the third
 *            argument): MPI_ERR_OTHER, not a wait for ever; prints
 *            "death: ... failed with class" and leaves with _exit(0).
 *
 * usage: mpi_rma_rev18 noop|mix [create|allocate|dynamic] [R O]   (any number of ranks)
 *        mpi_rma_rev18 death create flush|flush_local|unlock         (2 ranks)
 */
#include "mpi_test_util.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

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

/* a window of @p ints ints at each rank (disp unit 1) */
typedef struct win_ctx {
    MPI_Win  win;
    int     *mem;
    int      dyn, alloc;
} win_ctx_t;

static void win_open(win_ctx_t *c, const char *flavor, size_t ints)
{
    MPI_Aint mine = 0, bytes = (MPI_Aint)(ints * sizeof(int));

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

/* ---- mix ---- */

enum {
    MA   = 65536,            /* ints accumulated into, per origin's slot */
    MP   = 32768,            /* ints put into (large puts, none overlapping per flush) */
    MQ   = 32768,            /* ints only read (large gets) */
    SLOT = MA + MP + MQ,     /* 512 KiB per origin at each target */
    MBIG = 16384,            /* ints of the smallest large operation: 64 KiB */
    MIX_BUFS = 4096,         /* origin buffers held between two flushes, at most */
};

/* a fetched result and what it must be, checked at the next flush */
typedef struct mix_fetch {
    struct mix_fetch *next;
    int              *res, *expect;
    int               n;
    const char       *what;
} mix_fetch_t;

/* one origin's state against its target t: the model of its slot there */
typedef struct mix {
    const win_ctx_t *c;
    int              t, round, op;
    uint64_t         rs;
    int             *a, *pm;      /* the model of the slot's accumulated and put parts */
    size_t           pput;        /* ints put since the last flush (puts do not overlap) */
    void           **bufs;        /* origin buffers: the library's until local completion */
    int              nbufs;
    mix_fetch_t     *fetches;
} mix_t;

static unsigned mix_rnd(mix_t *m)
{
    m->rs = m->rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(m->rs >> 33);
}

/* byte offset of int @p i of origin @p o's slot */
static size_t mix_off(int o, size_t i)
{
    return ((size_t)o * SLOT + i) * sizeof(int);
}

/* the constant value of int @p i of the read-only part of origin @p o's slot */
static int mix_q(int o, size_t i)
{
    return o * 7 + (int)i * 3;
}

/* an origin buffer of @p n ints; ownership: the library's until the next flush(_local) */
static int *mix_buf(mix_t *m, size_t n)
{
    int *b = malloc(n * sizeof(int));

    MT_CHECK(b != NULL && m->nbufs < MIX_BUFS);
    m->bufs[m->nbufs++] = b;
    return b;
}

/* after a flush or flush_local: the origin buffers are the program's again */
static void mix_bufs_free(mix_t *m)
{
    for (int i = 0; i < m->nbufs; ++i) {
        free(m->bufs[i]);
    }
    m->nbufs = 0;
}

/* a result to check at the next flush: @p n ints fetched, the model's @p expect now */
static int *mix_fetch(mix_t *m, const int *expect, int n, const char *what)
{
    mix_fetch_t *f = calloc(1, sizeof(*f));

    MT_CHECK(f != NULL && (f->res = malloc((size_t)n * sizeof(int))) != NULL &&
             (f->expect = malloc((size_t)n * sizeof(int))) != NULL);
    memcpy(f->expect, expect, (size_t)n * sizeof(int));
    f->n    = n;
    f->what = what;
    f->next = m->fetches;
    m->fetches = f;
    return f->res;
}

/* after a flush: every fetched result must be the model's value at its call */
static void mix_fetches_check(mix_t *m)
{
    while (m->fetches != NULL) {
        mix_fetch_t *f = m->fetches;

        m->fetches = f->next;
        for (int i = 0; i < f->n; ++i) {
            if (f->res[i] != f->expect[i]) {
                MT_FAIL("mix: round %d, a %s to rank %d: element %d fetched %d, expected %d "
                        "(the accumulates before it in program order)", m->round, f->what,
                        m->t, i, f->res[i], f->expect[i]);
            }
        }
        free(f->res);
        free(f->expect);
        free(f);
    }
}

/* an accumulate of @p n ints at A + @p off: SUM, REPLACE, MAX or BXOR */
static void mix_acc(mix_t *m, int n, int off)
{
    static const char *names[] = { "SUM", "REPLACE", "MAX", "BXOR" };
    int *b = mix_buf(m, (size_t)n), k = (int)(mix_rnd(m) % 4);
    MPI_Op op = k == 0 ? MPI_SUM : k == 1 ? MPI_REPLACE : k == 2 ? MPI_MAX : MPI_BXOR;

    for (int i = 0; i < n; ++i) {
        int *v = &m->a[off + i];

        b[i] = (int)(mix_rnd(m) % 1000) - 300;
        *v = k == 0 ? *v + b[i] : k == 1 ? b[i] : k == 2 ? (b[i] > *v ? b[i] : *v) : *v ^ b[i];
    }
    if (MPI_Accumulate(b, n, MPI_INT, m->t, at(m->t, mix_off(rank, (size_t)off)), n, MPI_INT,
                       op, m->c->win) != MPI_SUCCESS) {
        MT_FAIL("mix: round %d: MPI_Accumulate %s of %d ints to rank %d failed", m->round,
                names[k], n, m->t);
    }
}

/* a get-accumulate (SUM) of @p n ints at A + @p off: fetches the model before it */
static void mix_gacc(mix_t *m, int n, int off)
{
    int *b = mix_buf(m, (size_t)n);
    int *res = mix_fetch(m, m->a + off, n, "get-accumulate");

    for (int i = 0; i < n; ++i) {
        b[i] = (int)(mix_rnd(m) % 100);
        m->a[off + i] += b[i];
    }
    MT_OK(MPI_Get_accumulate(b, n, MPI_INT, res, n, MPI_INT, m->t,
                             at(m->t, mix_off(rank, (size_t)off)), n, MPI_INT, MPI_SUM,
                             m->c->win));
}

/* a fetch-and-op (SUM of 5 or MPI_NO_OP), or a compare-and-swap that may match */
static void mix_atomic(mix_t *m, int off, int cas)
{
    int *b = mix_buf(m, 2);
    int *res = mix_fetch(m, m->a + off, 1, cas ? "compare-and-swap" : "fetch-and-op");
    MPI_Aint d = at(m->t, mix_off(rank, (size_t)off));

    if (cas) {
        b[0] = (int)(mix_rnd(m) % 50);
        b[1] = mix_rnd(m) % 2 ? m->a[off] : m->a[off] + 1;
        m->a[off] = m->a[off] == b[1] ? b[0] : m->a[off];
        MT_OK(MPI_Compare_and_swap(&b[0], &b[1], res, MPI_INT, m->t, d, m->c->win));
        return;
    }
    b[0] = 5;
    if (mix_rnd(m) % 2) {
        MT_OK(MPI_Fetch_and_op(b, res, MPI_INT, m->t, d, MPI_NO_OP, m->c->win));
    } else {
        m->a[off] += 5;
        MT_OK(MPI_Fetch_and_op(b, res, MPI_INT, m->t, d, MPI_SUM, m->c->win));
    }
}

/* a flush: the buffers free, the results checked, the put part free again */
static void mix_flush(mix_t *m)
{
    MT_OK(MPI_Win_flush(m->t, m->c->win));
    mix_bufs_free(m);
    mix_fetches_check(m);
    m->pput = 0;
}

/* a large put into the put part, after the last one's bytes (a flush once it is used up) */
static void mix_put(mix_t *m)
{
    int n = MBIG + (int)(mix_rnd(m) % 4096), *b;

    if (m->pput + (size_t)n > MP) {
        mix_flush(m);
    }
    b = mix_buf(m, (size_t)n);
    for (int i = 0; i < n; ++i) {
        b[i] = (int)mix_rnd(m);
    }
    memcpy(m->pm + m->pput, b, (size_t)n * sizeof(int));
    MT_OK(MPI_Put(b, n, MPI_INT, m->t, at(m->t, mix_off(rank, MA + m->pput)), n, MPI_INT,
                  m->c->win));
    m->pput += (size_t)n;
}

/* a large get of the read-only part */
static void mix_get(mix_t *m)
{
    int n = MBIG + (int)(mix_rnd(m) % 8192), off = (int)(mix_rnd(m) % (unsigned)(MQ - n));
    int *expect = malloc((size_t)n * sizeof(int)), *res;

    MT_CHECK(expect != NULL);
    for (int i = 0; i < n; ++i) {
        expect[i] = mix_q(rank, (size_t)(off + i));
    }
    res = mix_fetch(m, expect, n, "large get");
    free(expect);
    MT_OK(MPI_Get(res, n, MPI_INT, m->t, at(m->t, mix_off(rank, (size_t)(MA + MP + off))), n,
                  MPI_INT, m->c->win));
}

/* one operation (a third of them large), a flush_local or a flush */
static void mix_one(mix_t *m)
{
    unsigned r = mix_rnd(m) % 100;
    int n = mix_rnd(m) % 3 == 0 ? MBIG + (int)(mix_rnd(m) % (MA / 2))
                                : 1 + (int)(mix_rnd(m) % 200);
    int off = (int)(mix_rnd(m) % (unsigned)(MA - n));

    if (r < 40) {
        mix_acc(m, n, off);
    } else if (r < 55) {
        mix_gacc(m, n, off);
    } else if (r < 72) {
        mix_atomic(m, off, r >= 65);
    } else if (r < 78) {
        mix_put(m);
    } else if (r < 84) {
        mix_get(m);
    } else if (r < 90) {
        MT_OK(MPI_Win_flush_local(m->t, m->c->win));
        mix_bufs_free(m);
    } else {
        mix_flush(m);
    }
}

/* @p n ints at byte @p off of this origin's slot at its target, against @p model */
static void mix_compare(mix_t *m, size_t off, const int *model, int n, const char *what)
{
    int *got = malloc((size_t)n * sizeof(int));

    MT_CHECK(got != NULL);
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, m->t, 0, m->c->win));
    MT_OK(MPI_Get(got, n, MPI_INT, m->t, at(m->t, off), n, MPI_INT, m->c->win));
    MT_OK(MPI_Win_unlock(m->t, m->c->win));
    for (int i = 0; i < n; ++i) {
        if (got[i] != model[i]) {
            MT_FAIL("mix: round %d: element %d %s at rank %d is %d, expected %d", m->round, i,
                    what, m->t, got[i], model[i]);
        }
    }
    free(got);
}

/* this rank's window: zero, the read-only parts of every origin's slot filled */
static void mix_fill(win_ctx_t *c)
{
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, c->win));
    memset(c->mem, 0, (size_t)size * SLOT * sizeof(int));
    for (int o = 0; o < size; ++o) {
        for (size_t i = 0; i < MQ; ++i) {
            c->mem[(size_t)o * SLOT + MA + MP + i] = mix_q(o, i);
        }
    }
    MT_OK(MPI_Win_unlock(rank, c->win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/*
 * Each rank against the next: @p rounds epochs (an exclusive lock,
 * lock_all, a shared lock in turn) of @p ops random operations, seeded by
 * the rank: small and large accumulates, get-accumulates, fetch-and-ops
 * and compare-and-swaps on the same bytes, large puts and gets beside
 * them, flush_local and flush between; every fetched value and, after the
 * epoch, every byte of the slot as a serial model of the program says.
 */
static void test_mix(win_ctx_t *c, int rounds, int ops)
{
    mix_t m = { .c = c, .t = (rank + 1) % size,
                .rs = 0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1) };

    MT_CHECK((m.a = calloc(MA, sizeof(int))) != NULL &&
             (m.pm = calloc(MP, sizeof(int))) != NULL &&
             (m.bufs = calloc(MIX_BUFS, sizeof(void *))) != NULL);
    mix_fill(c);
    for (m.round = 0; m.round < rounds; ++m.round) {
        int mode = m.round % 3;

        if (mode == 1) {
            MT_OK(MPI_Win_lock_all(0, c->win));
        } else {
            MT_OK(MPI_Win_lock(mode == 0 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, m.t, 0,
                               c->win));
        }
        for (m.op = 0; m.op < ops; ++m.op) {
            mix_one(&m);
        }
        MT_OK(mode == 1 ? MPI_Win_unlock_all(c->win) : MPI_Win_unlock(m.t, c->win));
        mix_bufs_free(&m);
        mix_fetches_check(&m);
        m.pput = 0;
        mix_compare(&m, mix_off(rank, 0), m.a, MA, "accumulated");
        mix_compare(&m, mix_off(rank, MA), m.pm, MP, "put");
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(m.a);
    free(m.pm);
    free(m.bufs);
}

/* ---- death ---- */

/* a large accumulate to a rank killed before it serves it: @p how ends the epoch, in error */
static void test_death(win_ctx_t *c, const char *how)
{
    int *src = calloc(NL, sizeof(int)), rc, cls = -1;
    char gone[128];

    MT_CHECK(src != NULL && size == 2);
    signal(SIGTERM, SIG_IGN);   /* loomrun stops the job shortly after the death */
    snprintf(gone, sizeof(gone), "%s/loom-rev18-death.%d",
             getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp", (int)getpid());
    MT_OK(MPI_Bcast(gone, (int)sizeof(gone), MPI_CHAR, 0, MPI_COMM_WORLD));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        struct timespec ts = { 0, 300 * 1000 * 1000 };

        mt_file_touch(gone);
        nanosleep(&ts, NULL);   /* no MPI call: rank 0's requests wait unserved */
        raise(SIGKILL);
    }
    if (!mt_file_await(gone, 60.0)) {
        MT_FAIL("death: rank 1 never left its barrier (no %s after 60 s)", gone);
    }
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c->win));
    /* an error at the call is right too, once the failure is known */
    rc = MPI_Accumulate(src, NL, MPI_INT, 1, at(1, 0), NL, MPI_INT, MPI_SUM, c->win);
    if (rc == MPI_SUCCESS) {
        rc = strcmp(how, "unlock") == 0        ? MPI_Win_unlock(1, c->win)
             : strcmp(how, "flush_local") == 0 ? MPI_Win_flush_local(1, c->win)
                                               : MPI_Win_flush(1, c->win);
    }
    MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS || cls != MPI_ERR_OTHER) {
        MT_FAIL("death: a large accumulate to the dead rank 1, then %s: %d (class %d), "
                "expected class MPI_ERR_OTHER (the peer's failure)", how, rc, cls);
    }
    printf("death: %s failed with class %d\n", how, cls);
    fflush(stdout);
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "noop";
    const char *flavor = argc > 2 ? argv[2] : "create";
    int death = strcmp(what, "death") == 0;
    int rounds = argc > 3 && !death ? atoi(argv[3]) : 6, ops = argc > 4 ? atoi(argv[4]) : 40;
    int mix = strcmp(what, "mix") == 0;
    win_ctx_t c;

    MT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(rounds > 0 && ops > 0);
    if (!mix && !death && strcmp(what, "noop") != 0) {
        MT_FAIL("unknown test %s (noop, mix, death)", what);
    }
    win_open(&c, flavor, mix ? (size_t)size * SLOT : NL);
    if (death) {
        test_death(&c, argc > 3 ? argv[3] : "flush");
    } else if (mix) {
        test_mix(&c, rounds, ops);
    } else {
        test_noop(&c);
    }
    win_close(&c);
    MT_PASS("mpi_rma_rev18");
    MPI_Finalize();
    return 0;
}
