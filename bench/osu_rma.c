/*
 * osu_rma: the OSU one-sided benchmarks in one program (issue 23), OSU style.
 *
 *   -t put      put latency        (osu_put_latency)
 *   -t get      get latency        (osu_get_latency)
 *   -t put_bw   put bandwidth      (osu_put_bw; -W puts per synchronization)
 *   -t get_bw   get bandwidth      (osu_get_bw)
 *   -t acc      accumulate latency (osu_acc_latency: MPI_SUM on MPI_INT)
 *   -t fop      fetch-and-op latency (MPI_SUM, MPI_LONG_LONG; size 8 only)
 *   -t cas      compare-and-swap latency (MPI_LONG_LONG; size 8 only)
 *   -w fence | lock | flush   synchronization (default flush):
 *        fence: every iteration is fence, op, fence on both ranks (rank 1
 *               answers with the same op: a one-sided ping-pong; the
 *               latency is half a round, as OSU prints it);
 *        lock:  rank 0 does lock(exclusive, 1), op, unlock(1) per iteration
 *               (bandwidth: lock, -W ops, unlock);
 *        flush: rank 0 holds lock(shared, 1) and does op, flush(1) per
 *               iteration (bandwidth: -W ops, flush).
 *   -a create | allocate      window memory: MPI_Win_create on malloc'ed
 *        memory, or MPI_Win_allocate (default allocate).
 * Two ranks; rank 0 is the origin, rank 1 the target (it only waits in
 * a barrier, or answers in fence mode).
 *
 * Validation (untimed, OSU_VALIDATE_ROUNDS per size, before the warm-up):
 * the target sets its window under a lock on itself, the origin runs the
 * operation with the mode's synchronization, and the checks are exact:
 * put: the target's bytes; get: the origin's bytes; acc: initial + added
 * value per int; fop: the fetched old value and the new one; cas: a
 * matching swap (fetched old, stored new) then a failing one (unchanged).
 * The verdict is agreed with point-to-point messages (osu_agree).
 */
#include "osu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { T_PUT, T_GET, T_PUT_BW, T_GET_BW, T_ACC, T_FOP, T_CAS } rma_test_t;
typedef enum { W_FENCE, W_LOCK, W_FLUSH } rma_sync_t;

typedef struct rma_bench {
    osu_ctx_t  ctx;
    rma_test_t test;
    rma_sync_t sync;
    int        allocate;
    MPI_Win    win;
    char      *wbase;      /* window memory (this rank) */
    char      *sbuf, *rbuf;
} rma_bench_t;

static const char *const test_names[] = { "put", "get", "put_bw", "get_bw", "acc", "fop",
                                          "cas" };
static const char *const test_titles[] = {
    "OSU MPI_Put Latency Test", "OSU MPI_Get Latency Test", "OSU MPI_Put Bandwidth Test",
    "OSU MPI_Get Bandwidth Test", "OSU MPI_Accumulate latency Test",
    "OSU MPI_Fetch_and_op latency Test", "OSU MPI_Compare_and_swap latency Test",
};
static const char *const sync_names[] = { "fence", "lock", "flush" };

static int name_index(const char *s, const char *const names[], int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* Take -t, -w and -a out of argv (the shared driver parses the rest). */
static int rma_parse(rma_bench_t *b, int *argc, char **argv)
{
    int out = 1;

    b->test = T_PUT, b->sync = W_FLUSH, b->allocate = 1;
    for (int i = 1; i < *argc; i++) {
        const char *o = argv[i], *v = i + 1 < *argc ? argv[i + 1] : NULL;
        int k;

        if (strcmp(o, "-t") != 0 && strcmp(o, "-w") != 0 && strcmp(o, "-a") != 0) {
            argv[out++] = argv[i];
            continue;
        }
        if (v == NULL)
            return fprintf(stderr, "osu_rma: %s needs a value\n", o), -1;
        if (o[1] == 't' && (k = name_index(v, test_names, 7)) >= 0)
            b->test = (rma_test_t)k;
        else if (o[1] == 'w' && (k = name_index(v, sync_names, 3)) >= 0)
            b->sync = (rma_sync_t)k;
        else if (o[1] == 'a' && (strcmp(v, "create") == 0 || strcmp(v, "allocate") == 0))
            b->allocate = strcmp(v, "allocate") == 0;
        else
            return fprintf(stderr, "osu_rma: bad value '%s' for %s (-t put|get|put_bw|"
                           "get_bw|acc|fop|cas, -w fence|lock|flush, -a create|allocate)\n",
                           v, o), -1;
        i++;
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

static int is_bw(const rma_bench_t *b) { return b->test == T_PUT_BW || b->test == T_GET_BW; }
static int is_atomic(const rma_bench_t *b) { return b->test == T_FOP || b->test == T_CAS; }

static osu_bench_desc_t rma_desc(const rma_bench_t *b)
{
    osu_bench_desc_t d = {
        .name = "osu_rma", .title = test_titles[b->test], .show_size = 1, .exact_np = 2,
        .elem_size = 1, .min_size = 1, .max_size = 1 << 22,
        .iterations = 10000, .iterations_large = 1000, .skip = 100, .skip_large = 10,
    };

    d.kind = is_bw(b) ? OSU_KIND_BANDWIDTH : OSU_KIND_LATENCY;
    d.has_window = is_bw(b);
    if (b->test == T_ACC)
        d.elem_size = d.min_size = sizeof(int);
    if (is_atomic(b))
        d.elem_size = d.min_size = d.max_size = sizeof(long long);
    if (is_bw(b))
        d.iterations = d.iterations_large = 100, d.skip = d.skip_large = 10;
    return d;
}

/* ---- the operation under test, one call ---- */

static void rma_op(rma_bench_t *b, int target, size_t size, char *src, char *dst)
{
    static long long one = 1;
    int n = (int)size;

    switch (b->test) {
    case T_PUT: case T_PUT_BW:
        MPI_Put(src, n, MPI_CHAR, target, 0, n, MPI_CHAR, b->win);
        break;
    case T_GET: case T_GET_BW:
        MPI_Get(dst, n, MPI_CHAR, target, 0, n, MPI_CHAR, b->win);
        break;
    case T_ACC:
        MPI_Accumulate(src, n / (int)sizeof(int), MPI_INT, target, 0, n / (int)sizeof(int),
                       MPI_INT, MPI_SUM, b->win);
        break;
    case T_FOP:
        MPI_Fetch_and_op(&one, dst, MPI_LONG_LONG, target, 0, MPI_SUM, b->win);
        break;
    case T_CAS:
        MPI_Compare_and_swap(src, src, dst, MPI_LONG_LONG, target, 0, b->win);
        break;
    }
}

/* ---- validation ---- */

/* The target (rank 1) runs @p fn on its own window memory under an exclusive lock. */
static void target_local(rma_bench_t *b, void (*fn)(rma_bench_t *, size_t, uint32_t),
                         size_t size, uint32_t seed)
{
    if (b->ctx.rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, b->win);
        fn(b, size, seed);
        MPI_Win_unlock(1, b->win);
    }
    osu_sync(&b->ctx);
}

static void set_poison(rma_bench_t *b, size_t size, uint32_t seed) { osu_poison(b->wbase, size, seed); }
static void set_fill(rma_bench_t *b, size_t size, uint32_t seed) { osu_fill(b->wbase, size, seed); }
static void set_ints(rma_bench_t *b, size_t size, uint32_t seed)
{
    int *w = (int *)(void *)b->wbase;

    for (size_t i = 0; i < size / sizeof(int); i++)
        w[i] = (int)((seed + i * 7) % 100000);
}
static void set_ll(rma_bench_t *b, size_t size, uint32_t seed)
{
    (void)size;
    *(long long *)(void *)b->wbase = (long long)seed * 3;
}

/* Rank 0 runs one operation to rank 1 inside the mode's synchronization. */
static void origin_once(rma_bench_t *b, size_t size)
{
    if (b->sync == W_FENCE) {
        MPI_Win_fence(0, b->win);
        if (b->ctx.rank == 0)
            rma_op(b, 1, size, b->sbuf, b->rbuf);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, b->win);
    } else if (b->ctx.rank == 0) {
        MPI_Win_lock(b->sync == W_LOCK ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, 1, 0, b->win);
        rma_op(b, 1, size, b->sbuf, b->rbuf);
        if (b->sync == W_FLUSH)
            MPI_Win_flush(1, b->win);
        MPI_Win_unlock(1, b->win);
    }
    osu_sync(&b->ctx);
}

static int check_ll(const osu_ctx_t *ctx, long long got, long long want, const char *what)
{
    if (got == want)
        return 0;
    fprintf(stderr, "osu_rma: validation failed on rank %d: %s is %lld, expected %lld\n",
            ctx->rank, what, got, want);
    return 1;
}

/* The target reads its window under a lock on itself and checks it. */
static int check_target(rma_bench_t *b, size_t size, uint32_t seed, long long want)
{
    int errors = 0;

    if (b->ctx.rank != 1)
        return 0;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, b->win);
    if (b->test == T_PUT || b->test == T_PUT_BW) {
        errors = osu_check(&b->ctx, b->wbase, size, seed, size, "window after MPI_Put");
    } else if (b->test == T_ACC) {
        const int *w = (const int *)(const void *)b->wbase;

        for (size_t i = 0; i < size / sizeof(int) && !errors; i++)
            errors = check_ll(&b->ctx, w[i], (long long)((seed + i * 7) % 100000) +
                              (long long)((seed + i) % 1000), "accumulated int");
    } else {
        errors = check_ll(&b->ctx, *(long long *)(void *)b->wbase, want,
                          "target after the atomic");
    }
    MPI_Win_unlock(1, b->win);
    return errors;
}

/* CAS: pass 0 swaps base -> base + 5; pass 1 compares with base again: no swap */
static int validate_cas(rma_bench_t *b, size_t size, uint32_t seed, long long base)
{
    long long cmp = base, nv = base + 5;
    int errors = 0, r0 = b->ctx.rank == 0;

    target_local(b, set_ll, size, seed);
    for (int pass = 0; pass < 2; pass++) {
        *(long long *)(void *)b->rbuf = -1;
        if (b->sync == W_FENCE)
            MPI_Win_fence(0, b->win);
        else if (r0)
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, b->win);
        if (r0)
            MPI_Compare_and_swap(&nv, &cmp, b->rbuf, MPI_LONG_LONG, 1, 0, b->win);
        if (b->sync == W_FENCE)
            MPI_Win_fence(MPI_MODE_NOSUCCEED, b->win);
        else if (r0)
            MPI_Win_unlock(1, b->win);
        osu_sync(&b->ctx);
        if (r0)
            errors += check_ll(&b->ctx, *(long long *)(void *)b->rbuf,
                               pass == 0 ? base : base + 5, "compare-and-swap result");
        errors += check_target(b, size, seed, base + 5);
    }
    return errors;
}

static int validate_round(rma_bench_t *b, size_t size, int round)
{
    uint32_t seed = osu_seed(size, round, 0, 1);
    long long base = (long long)seed * 3;
    int errors = 0, r0 = b->ctx.rank == 0;

    switch (b->test) {
    case T_PUT: case T_PUT_BW:
        osu_fill(b->sbuf, size, seed);
        target_local(b, set_poison, size, seed);
        origin_once(b, size);
        return check_target(b, size, seed, 0);
    case T_GET: case T_GET_BW:
        osu_poison(b->rbuf, size, seed);
        target_local(b, set_fill, size, seed);
        origin_once(b, size);
        return r0 ? osu_check(&b->ctx, b->rbuf, size, seed, size, "MPI_Get result") : 0;
    case T_ACC:
        for (size_t i = 0; i < size / sizeof(int); i++)
            ((int *)(void *)b->sbuf)[i] = (int)((seed + i) % 1000);
        target_local(b, set_ints, size, seed);
        origin_once(b, size);
        return check_target(b, size, seed, 0);
    case T_FOP:
        *(long long *)(void *)b->rbuf = -1;
        target_local(b, set_ll, size, seed);
        origin_once(b, size);
        if (r0)
            errors = check_ll(&b->ctx, *(long long *)(void *)b->rbuf, base, "fetched value");
        return errors + check_target(b, size, seed, base + 1);
    case T_CAS:
        return validate_cas(b, size, seed, base);
    }
    return 0;
}

/* ---- timing ---- */

/* rank 0's loop for lock and flush modes; the target waits in osu_sync */
static double time_passive(rma_bench_t *b, size_t size, int iters, int skip)
{
    int per = is_bw(b) ? b->ctx.opt.window : 1;
    double t0 = 0.0;

    if (b->sync == W_FLUSH)
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, b->win);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t0 = MPI_Wtime();
        if (b->sync == W_LOCK)
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, b->win);
        for (int k = 0; k < per; k++)
            rma_op(b, 1, size, b->sbuf, b->rbuf);
        if (b->sync == W_LOCK)
            MPI_Win_unlock(1, b->win);
        else
            MPI_Win_flush(1, b->win);
    }
    t0 = MPI_Wtime() - t0;
    if (b->sync == W_FLUSH)
        MPI_Win_unlock(1, b->win);
    return t0;
}

/* fence: latency tests ping-pong (rank 0's op, fence, rank 1's op, fence);
 * bandwidth: rank 0's -W ops between two fences */
static double time_fence(rma_bench_t *b, size_t size, int iters, int skip)
{
    int per = is_bw(b) ? b->ctx.opt.window : 1;
    double t0 = 0.0;

    MPI_Win_fence(0, b->win);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t0 = MPI_Wtime();
        if (b->ctx.rank == 0)
            for (int k = 0; k < per; k++)
                rma_op(b, 1, size, b->sbuf, b->rbuf);
        MPI_Win_fence(0, b->win);
        if (!is_bw(b)) {
            if (b->ctx.rank == 1)
                rma_op(b, 0, size, b->sbuf, b->rbuf);
            MPI_Win_fence(0, b->win);
        }
    }
    t0 = MPI_Wtime() - t0;
    MPI_Win_fence(MPI_MODE_NOSUCCEED, b->win);
    return is_bw(b) ? t0 : t0 / 2.0;
}

static double rma_time(rma_bench_t *b, size_t size)
{
    int iters, skip;
    double t = 0.0;

    osu_loop_counts(&b->ctx, size, &iters, &skip);
    osu_sync(&b->ctx);
    if (b->sync == W_FENCE)
        t = time_fence(b, size, iters, skip);
    else if (b->ctx.rank == 0)
        t = time_passive(b, size, iters, skip);
    osu_sync(&b->ctx);
    if (is_bw(b))
        return t > 0.0 ? (double)size * b->ctx.opt.window * iters / t / 1e6 : 0.0;
    return t * 1e6 / iters;
}

static void rma_win_open(rma_bench_t *b, size_t bytes)
{
    if (b->allocate) {
        MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b->wbase, &b->win);
    } else {
        b->wbase = osu_alloc(&b->ctx, bytes);
        MPI_Win_create(b->wbase, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b->win);
    }
    memset(b->wbase, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    rma_bench_t b;
    osu_bench_desc_t desc;
    int status, failed = 0;

    memset(&b, 0, sizeof(b));
    if (rma_parse(&b, &argc, argv) != 0)
        return 1;
    desc = rma_desc(&b);
    if (!osu_init(&b.ctx, &desc, &argc, &argv, &status))
        return osu_finish(&b.ctx, status);
    if (is_atomic(&b))   /* one 8-byte element, whatever -m says (OSU prints 8) */
        b.ctx.opt.min_size = b.ctx.opt.max_size = sizeof(long long);
    osu_limit_max_size(&b.ctx, 3);
    b.sbuf = osu_alloc(&b.ctx, b.ctx.opt.max_size);
    b.rbuf = osu_alloc(&b.ctx, b.ctx.opt.max_size);
    rma_win_open(&b, b.ctx.opt.max_size);
    if (b.ctx.rank == 0)
        printf("# synchronization: %s, window: %s\n", sync_names[b.sync],
               b.allocate ? "MPI_Win_allocate" : "MPI_Win_create");
    osu_print_header(&b.ctx);
    for (size_t size = b.ctx.opt.min_size; size <= b.ctx.opt.max_size;
         size = osu_next_size(&b.ctx, size)) {
        int errors = 0, valid;

        for (int round = 0; b.ctx.opt.validate && round < OSU_VALIDATE_ROUNDS; round++)
            errors += validate_round(&b, size, round);
        errors = b.ctx.opt.validate ? osu_agree(&b.ctx, errors) : 0;
        valid = errors == 0;
        if (!valid)
            failed = osu_report_failure(&b.ctx, size, errors);
        if (!valid && !b.ctx.opt.validation_column)
            break;
        osu_print_p2p(&b.ctx, size, rma_time(&b, size), valid);
    }
    MPI_Win_free(&b.win);
    if (!b.allocate)
        free(b.wbase);
    free(b.sbuf);
    free(b.rbuf);
    return osu_finish(&b.ctx, failed);
}
