/*
 * mpi_rma_s14.c: session 14 of the one-sided layer.
 *
 *   zcfault  (run with LOOM_RMA_ZCOPY_FAULT=record:E or recv:E, E >= 2)
 *            every E-th large put of each origin fails at its target as
 *            if out of memory (rma/rma_zcopy.c; a rank's own memory is
 *            copied, never faulted). Under lock_all each rank
 *            puts large blocks (64 KiB, 200 003 B) into its slot at every
 *            rank, one per flush, then two large puts and a small one per
 *            flush: a flush covering a failed put must return
 *            MPI_ERR_NO_MEM, every other one MPI_SUCCESS, and a large get
 *            of the slot after each flush must hold exactly the puts that
 *            succeeded. Without the target consuming a failed put's data,
 *            the next large put received those bytes (a wrong block) and
 *            Win_free could wait for ever (the driver's timeout).
 *            E is argv[3]; E = 0: no fault expected (the same program
 *            checks the plain path).
 *
 * usage: mpi_rma_s14 zcfault [create|allocate|dynamic] [E]   (any ranks)
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

#define SLOT  (256 * 1024)   /* per origin at each target */
#define BIG   200003
#define SMALL 100            /* a batched put at the end of the slot */

static int rank, size;
static MPI_Aint *addrs;      /* every rank's window base (dynamic), else 0 */

static unsigned char pattern(int t, int i, size_t k)
{
    return (unsigned char)(rank * 29 + t * 11 + i * 7 + k * 13 + 1);
}

static MPI_Aint slot(int t, size_t off)
{
    return addrs[t] + (MPI_Aint)((size_t)rank * SLOT + off);
}

/* the window and its memory; dynamic: attached, addrs filled */
static void win_open(const char *flavor, unsigned char **mem_p, MPI_Win *win_p)
{
    size_t bytes = (size_t)size * SLOT;
    MPI_Aint mine = 0;

    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, mem_p,
                               win_p));
    } else {
        MT_CHECK((*mem_p = calloc(1, bytes)) != NULL);
        if (strcmp(flavor, "dynamic") == 0) {
            MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win_p));
            MT_OK(MPI_Win_attach(*win_p, *mem_p, (MPI_Aint)bytes));
            MT_OK(MPI_Get_address(*mem_p, &mine));
        } else {
            MT_OK(MPI_Win_create(*mem_p, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                 win_p));
        }
    }
    memset(*mem_p, 0, bytes);
    MT_OK(MPI_Win_set_errhandler(*win_p, MPI_ERRORS_RETURN));
    MT_CHECK((addrs = calloc((size_t)size, sizeof(*addrs))) != NULL);
    MT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void win_close(const char *flavor, unsigned char *mem, MPI_Win *win)
{
    if (strcmp(flavor, "dynamic") == 0) {
        MT_OK(MPI_Win_detach(*win, mem));
    }
    MT_OK(MPI_Win_free(win));
    if (strcmp(flavor, "allocate") != 0) {
        free(mem);
    }
    free(addrs);
}

typedef struct zc_state {
    MPI_Win        win;
    unsigned char *model;   /* [size][SLOT]: what our slot at each target holds */
    unsigned char *src;     /* [2][BIG] */
    unsigned char *dst;     /* [SLOT] */
    int           *nput;    /* [size] large puts sent to each target */
    int            every;
} zc_state_t;

/*
 * A large put of @p n bytes (pattern @p i, from @p src) to @p t at its
 * slot; the model takes it unless it is a faulted one. 1 if it is.
 */
static int zc_put(zc_state_t *s, int t, int i, size_t n, unsigned char *src)
{
    /* our own memory is copied, not sent: never faulted */
    int fails = s->every > 0 && t != rank && ++s->nput[t] % s->every == 0;

    for (size_t k = 0; k < n; ++k) {
        src[k] = pattern(t, i, k);
    }
    MT_OK(MPI_Put(src, (int)n, MPI_BYTE, t, slot(t, 0), (int)n, MPI_BYTE, s->win));
    if (!fails) {
        memcpy(s->model + (size_t)t * SLOT, src, n);
    }
    return fails;
}

/* a batched put of SMALL bytes at the end of the slot (never faulted) */
static void zc_put_small(zc_state_t *s, int t, int i, unsigned char *src)
{
    for (size_t k = 0; k < SMALL; ++k) {
        src[k] = pattern(t, i + 1000, k);
    }
    MT_OK(MPI_Put(src, SMALL, MPI_BYTE, t, slot(t, SLOT - SMALL), SMALL, MPI_BYTE, s->win));
    memcpy(s->model + (size_t)t * SLOT + SLOT - SMALL, src, SMALL);
}

/* the flush of @p t: MPI_ERR_NO_MEM if @p failed, else success; then the slot checked */
static void zc_check(zc_state_t *s, int t, int failed, int round)
{
    unsigned char *m = s->model + (size_t)t * SLOT;

    if (failed) {
        MT_ERR(MPI_Win_flush(t, s->win), MPI_ERR_NO_MEM);
    } else {
        MT_OK(MPI_Win_flush(t, s->win));
    }
    memset(s->dst, 0xee, SLOT);
    MT_OK(MPI_Get(s->dst, SLOT, MPI_BYTE, t, slot(t, 0), SLOT, MPI_BYTE, s->win));
    MT_OK(MPI_Win_flush(t, s->win));
    for (size_t k = 0; k < SLOT; ++k) {
        if (s->dst[k] != m[k]) {
            MT_FAIL("round %d: byte %zu of my slot at rank %d is %d, expected %d (%s)", round,
                    k, t, s->dst[k], m[k], failed ? "after a failed put" : "no fault");
        }
    }
}

static void test_zcfault(const char *flavor, int every)
{
    zc_state_t s = { .every = every };
    unsigned char *mem;
    int rounds = 2 * (every > 0 ? every : 2) + 1;

    win_open(flavor, &mem, &s.win);
    MT_CHECK((s.model = calloc((size_t)size, SLOT)) != NULL);
    MT_CHECK((s.src = malloc(2 * BIG)) != NULL && (s.dst = malloc(SLOT)) != NULL);
    MT_CHECK((s.nput = calloc((size_t)size, sizeof(int))) != NULL);
    MT_OK(MPI_Win_lock_all(0, s.win));
    for (int i = 0; i < rounds; ++i) {   /* one large put per flush */
        for (int d = 0; d < size; ++d) {
            int t = (rank + d) % size;
            int f = zc_put(&s, t, i, i % 2 ? 65536 : BIG, s.src);

            zc_check(&s, t, f, i);
        }
    }
    for (int i = 0; i < rounds; ++i) {   /* two large and a small one per flush */
        for (int d = 0; d < size; ++d) {
            int t = (rank + d) % size;
            int f = zc_put(&s, t, 100 + i, i % 2 ? BIG : 65536, s.src);

            f |= zc_put(&s, t, 200 + i, i % 2 ? 65536 : BIG, s.src + BIG);
            zc_put_small(&s, t, i, s.dst);
            zc_check(&s, t, f, 100 + i);
        }
    }
    MT_OK(MPI_Win_unlock_all(s.win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    win_close(flavor, mem, &s.win);
    free(s.model);
    free(s.src);
    free(s.dst);
    free(s.nput);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *flavor = argc > 2 ? argv[2] : "create";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(size >= 1 && size <= 16);
    if (strcmp(mode, "zcfault") == 0) {
        test_zcfault(flavor, argc > 3 ? atoi(argv[3]) : 0);
    } else {
        MT_FAIL("unknown mode '%s'", mode);
    }
    MT_PASS("mpi_rma_s14");
    MPI_Finalize();
    return 0;
}
