/*
 * mpi_rma_pair: one-sided calls on the value+index pair types
 * (MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
 * MPI_LONG_DOUBLE_INT) land every pair in its C struct at the target, and
 * MPI_MAXLOC/MPI_MINLOC reduce them there (session 20: the padded pairs,
 * 12 bytes of data in a 16-byte struct for MPI_DOUBLE_INT, took the
 * binding's byte paths as count x 12 bytes of C structs, so an accumulate
 * by message failed with MPI_ERR_TYPE or reduced the wrong bytes, and a
 * put/get on a shared-segment window moved too few bytes).
 *
 * Design. For each pair type, window flavor (argv[1]: create, allocate or
 * both), displacement unit (1 and the C struct's size), synchronization
 * (fence; lock/unlock per target) and count (1, 3, 40, 300: the C bytes a
 * multiple of 12 or not, below and above the small-message and CMA
 * limits), the window holds count pairs between two guard pairs, at
 * element 1. Each check reads the target's own memory (or the result
 * buffer) element by element and names the type, case and element:
 *   putget    Put to the next rank, Get it back (guards untouched);
 *   maxloc    Accumulate MAXLOC from every rank to every rank (odd ranks
 *   minloc    through a contiguous type of count pairs) on values with
 *             a distinct winner or a tie (MPI: the lower index wins);
 *   replace   Accumulate MPI_REPLACE;
 *   gacc      Get_accumulate MAXLOC, MINLOC, MPI_REPLACE, MPI_NO_OP from
 *             one origin per target: the result is the old pairs, the
 *             window the reduction (ties both ways);
 *   fop       Fetch_and_op MAXLOC (a tie), MINLOC, REPLACE, NO_OP, and a
 *             MAXLOC the target's pair wins.
 */
#include "mpi_test_util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { float v; int i; } fi_t;
typedef struct { double v; int i; } di_t;
typedef struct { long v; int i; } li_t;
typedef struct { int v; int i; } ii_t;
typedef struct { short v; int i; } si_t;
typedef struct { long double v; int i; } ldi_t;

/* a pair type: its handle, C struct size, index offset, value accessors */
typedef struct pt {
    const char  *name;
    MPI_Datatype type;
    size_t       ext, ioff;
    void       (*setv)(void *p, long v);
    long       (*getv)(const void *p);
} pt_t;

#define PT_ACCESS(tag, T)                                                                 \
    static void set_##tag(void *p, long v)                                                \
    {                                                                                     \
        T x = (T)v;                                                                       \
        memcpy(p, &x, sizeof(x));                                                         \
    }                                                                                     \
    static long get_##tag(const void *p)                                                  \
    {                                                                                     \
        T x;                                                                              \
        memcpy(&x, p, sizeof(x));                                                         \
        return (long)x;                                                                   \
    }
PT_ACCESS(fi, float)
PT_ACCESS(di, double)
PT_ACCESS(li, long)
PT_ACCESS(ii, int)
PT_ACCESS(si, short)
PT_ACCESS(ldi, long double)

#define PT(tag, mt) { #mt, mt, sizeof(tag##_t), offsetof(tag##_t, i), set_##tag, get_##tag }

/* one value+index pair as the test computes with it */
typedef struct ref {
    long v;
    int  i;
} ref_t;

#define NMAX 300            /* the largest count */
#define WELEMS (NMAX + 2)   /* the window: guard, count pairs, guard (and spare) */
#define GUARD ((ref_t){ 77, 77 })

static int rank, size;

/* window under test */
typedef struct wctx {
    const pt_t *t;
    MPI_Win     win;
    char       *base;
    int         du;      /* displacement unit */
    int         lock;    /* 1: lock/unlock per target, 0: fence */
    const char *flavor;
    const char *cas;     /* the case running, for messages */
} wctx_t;

static void pair_set(const pt_t *t, char *buf, size_t k, ref_t r)
{
    char *p = buf + k * t->ext;

    memset(p, 0x5a, t->ext);
    t->setv(p, r.v);
    memcpy(p + t->ioff, &r.i, sizeof(int));
}

static ref_t pair_get(const pt_t *t, const char *buf, size_t k)
{
    ref_t r;
    const char *p = buf + k * t->ext;

    r.v = t->getv(p);
    memcpy(&r.i, p + t->ioff, sizeof(int));
    return r;
}

/* MPI's MAXLOC/MINLOC of two pairs: the larger/smaller value; equal: the lower index */
static ref_t ref_loc(MPI_Op op, ref_t a, ref_t b)
{
    if (a.v == b.v) {
        return (ref_t){ a.v, a.i < b.i ? a.i : b.i };
    }
    return (op == MPI_MAXLOC ? a.v > b.v : a.v < b.v) ? a : b;
}

static void check_pair(const wctx_t *w, const char *buf, size_t k, ref_t want,
                       const char *what)
{
    ref_t got = pair_get(w->t, buf, k);

    if (got.v != want.v || got.i != want.i) {
        MT_FAIL("%s, %s window, disp unit %d, %s, %s: %s element %zu is {%ld, %d}, "
                "expected {%ld, %d}", w->t->name, w->flavor, w->du,
                w->lock ? "lock" : "fence", w->cas, what, k, got.v, got.i, want.v, want.i);
    }
}

/* displacement of window element @p e */
static MPI_Aint disp_of(const wctx_t *w, size_t e)
{
    return (MPI_Aint)(w->du == 1 ? e * w->t->ext : e);
}

/* every element of the window: guards, then @p fill for the count pairs */
static void win_init(wctx_t *w, int n, ref_t (*fill)(int owner, int k))
{
    pair_set(w->t, w->base, 0, GUARD);
    for (int k = 0; k < n; ++k) {
        pair_set(w->t, w->base, (size_t)k + 1, fill(rank, k));
    }
    pair_set(w->t, w->base, (size_t)n + 1, GUARD);
}

static void win_check_guards(const wctx_t *w, int n)
{
    check_pair(w, w->base, 0, GUARD, "window guard");
    check_pair(w, w->base, (size_t)n + 1, GUARD, "window guard");
}

/* a synchronization call, where an operation's error at the target shows: named */
static void sync_ok(const wctx_t *w, int rc, const char *call)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;

    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        MT_FAIL("%s, %s window, disp unit %d, %s, %s: %s failed: %s", w->t->name, w->flavor,
                w->du, w->lock ? "lock" : "fence", w->cas, call, msg);
    }
}

/* the epoch around a phase: fence, or a barrier between lock epochs */
static void epoch_edge(const wctx_t *w)
{
    if (w->lock) {
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    } else {
        sync_ok(w, MPI_Win_fence(0, w->win), "MPI_Win_fence");
    }
}

static void target_open(const wctx_t *w, int t)
{
    if (w->lock) {
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    }
}

static void target_close(const wctx_t *w, int t)
{
    if (w->lock) {
        sync_ok(w, MPI_Win_unlock(t, w->win), "MPI_Win_unlock");
    }
}

/* ---- patterns --------------------------------------------------------------------- */

/* what rank @p r contributes to element @p k: a winner at the top or bottom rank, or a tie */
static ref_t pat_all(int r, int k)
{
    switch (k % 3) {
    case 0:  return (ref_t){ 2 * r + k % 5, 1000 + 7 * r + k };
    case 1:  return (ref_t){ k % 7, 1000 + 7 * (size - 1 - r) + k };   /* tie */
    default: return (ref_t){ (size - 1 - r) + k % 5, 1000 + 7 * r + k };
    }
}

static ref_t pat_low(int r, int k)
{
    (void)r;
    (void)k;
    return (ref_t){ -100, -1 };
}

static ref_t pat_high(int r, int k)
{
    (void)r;
    (void)k;
    return (ref_t){ 100, -1 };
}

/* a target's pairs before a get_accumulate (owner @p r) */
static ref_t pat_old(int r, int k)
{
    return (ref_t){ k % 4, 500 + k + r };
}

/* an origin's pairs for a get_accumulate: larger, smaller or equal values;
 * ties with a lower index on odd elements, a higher one on even */
static ref_t pat_new(int r, int k)
{
    return (ref_t){ (3 * k + r) % 4, k % 2 ? k : 900 + k };
}

static char *pairs_of(const pt_t *t, int n, int r, ref_t (*pat)(int, int))
{
    char *buf = malloc(((size_t)n + 2) * t->ext);

    MT_CHECK(buf != NULL);
    pair_set(t, buf, 0, GUARD);
    for (int k = 0; k < n; ++k) {
        pair_set(t, buf, (size_t)k + 1, pat(r, k));
    }
    pair_set(t, buf, (size_t)n + 1, GUARD);
    return buf;
}

/* ---- phases ----------------------------------------------------------------------- */

static void phase_putget(wctx_t *w, int n)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char *src = pairs_of(w->t, n, rank, pat_all), *got = pairs_of(w->t, n, rank, pat_low);

    w->cas = "put";
    win_init(w, n, pat_low);
    epoch_edge(w);
    target_open(w, next);
    MT_OK(MPI_Put(src + w->t->ext, n, w->t->type, next, disp_of(w, 1), n, w->t->type, w->win));
    target_close(w, next);
    epoch_edge(w);
    for (int k = 0; k < n; ++k) {
        check_pair(w, w->base, (size_t)k + 1, pat_all(prev, k), "window");
    }
    win_check_guards(w, n);
    w->cas = "get";
    epoch_edge(w);
    target_open(w, next);
    MT_OK(MPI_Get(got + w->t->ext, n, w->t->type, next, disp_of(w, 1), n, w->t->type, w->win));
    target_close(w, next);
    epoch_edge(w);
    for (int k = 0; k < n; ++k) {
        check_pair(w, got, (size_t)k + 1, pat_all(rank, k), "result");
    }
    check_pair(w, got, 0, GUARD, "result guard");
    check_pair(w, got, (size_t)n + 1, GUARD, "result guard");
    free(src);
    free(got);
}

/* MAXLOC or MINLOC from every rank to every rank; odd ranks name the target
 * as one contiguous type of n pairs */
static void phase_loc_all(wctx_t *w, int n, MPI_Op op)
{
    char *src = pairs_of(w->t, n, rank, pat_all);
    MPI_Datatype contig;

    w->cas = op == MPI_MAXLOC ? "accumulate MAXLOC from all" : "accumulate MINLOC from all";
    MT_OK(MPI_Type_contiguous(n, w->t->type, &contig));
    MT_OK(MPI_Type_commit(&contig));
    win_init(w, n, op == MPI_MAXLOC ? pat_low : pat_high);
    epoch_edge(w);
    for (int i = 0; i < size; ++i) {
        int t = (rank + i) % size;

        target_open(w, t);
        if (rank % 2) {
            MT_OK(MPI_Accumulate(src + w->t->ext, n, w->t->type, t, disp_of(w, 1), 1, contig,
                                 op, w->win));
        } else {
            MT_OK(MPI_Accumulate(src + w->t->ext, n, w->t->type, t, disp_of(w, 1), n,
                                 w->t->type, op, w->win));
        }
        target_close(w, t);
    }
    epoch_edge(w);
    for (int k = 0; k < n; ++k) {
        ref_t want = (op == MPI_MAXLOC ? pat_low : pat_high)(rank, k);

        for (int r = 0; r < size; ++r) {
            want = ref_loc(op, want, pat_all(r, k));
        }
        check_pair(w, w->base, (size_t)k + 1, want, "window");
    }
    win_check_guards(w, n);
    MT_OK(MPI_Type_free(&contig));
    free(src);
}

static void phase_replace(wctx_t *w, int n)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char *src = pairs_of(w->t, n, rank, pat_new);

    w->cas = "accumulate MPI_REPLACE";
    win_init(w, n, pat_old);
    epoch_edge(w);
    target_open(w, next);
    MT_OK(MPI_Accumulate(src + w->t->ext, n, w->t->type, next, disp_of(w, 1), n, w->t->type,
                         MPI_REPLACE, w->win));
    target_close(w, next);
    epoch_edge(w);
    for (int k = 0; k < n; ++k) {
        check_pair(w, w->base, (size_t)k + 1, pat_new(prev, k), "window");
    }
    win_check_guards(w, n);
    free(src);
}

/* Get_accumulate of @p op from each rank to the next: old pairs back, reduction there */
static void phase_gacc(wctx_t *w, int n, MPI_Op op, const char *cas)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char *src = pairs_of(w->t, n, rank, pat_new), *got = pairs_of(w->t, n, rank, pat_low);

    w->cas = cas;
    win_init(w, n, pat_old);
    epoch_edge(w);
    target_open(w, next);
    MT_OK(MPI_Get_accumulate(src + w->t->ext, n, w->t->type, got + w->t->ext, n, w->t->type,
                             next, disp_of(w, 1), n, w->t->type, op, w->win));
    target_close(w, next);
    epoch_edge(w);
    for (int k = 0; k < n; ++k) {
        ref_t old = pat_old(next, k), in = pat_new(prev, k), mine = pat_old(rank, k);
        ref_t want = op == MPI_REPLACE ? in : op == MPI_NO_OP ? mine : ref_loc(op, mine, in);

        check_pair(w, got, (size_t)k + 1, old, "result");
        check_pair(w, w->base, (size_t)k + 1, want, "window");
    }
    check_pair(w, got, 0, GUARD, "result guard");
    check_pair(w, got, (size_t)n + 1, GUARD, "result guard");
    win_check_guards(w, n);
    free(src);
    free(got);
}

/* Fetch_and_op on elements 1..5 of the next rank: the old pair back, the new one there */
static ref_t pat_fop_old(int r, int k)
{
    static const ref_t old[5] = { { 5, 100 }, { 5, 3 }, { 2, 2 }, { 2, 2 }, { 8, 50 } };

    (void)r;
    return k < 5 ? old[k] : GUARD;
}

static void phase_fop(wctx_t *w)
{
    static const MPI_Op ops[5] = { MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP, MPI_MAXLOC };
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    ref_t in[5] = { { 5, rank }, { 4, 200 + rank }, { 9, 300 + rank }, { 1, 1 }, { 7, 1 } };
    ref_t pin[5] = { { 5, prev }, { 4, 200 + prev }, { 9, 300 + prev }, { 1, 1 }, { 7, 1 } };
    ref_t want[5] = { { 5, prev }, pin[1], pin[2], { 2, 2 }, { 8, 50 } };
    char *src = pairs_of(w->t, 5, rank, pat_low), *got = pairs_of(w->t, 5, rank, pat_low);

    w->cas = "fetch_and_op MAXLOC tie, MINLOC, REPLACE, NO_OP, MAXLOC kept";
    for (int k = 0; k < 5; ++k) {
        pair_set(w->t, src, (size_t)k + 1, in[k]);
    }
    win_init(w, 5, pat_fop_old);
    epoch_edge(w);
    target_open(w, next);
    for (int k = 0; k < 5; ++k) {
        MT_OK(MPI_Fetch_and_op(src + (size_t)(k + 1) * w->t->ext,
                               got + (size_t)(k + 1) * w->t->ext, w->t->type, next,
                               disp_of(w, (size_t)k + 1), ops[k], w->win));
    }
    target_close(w, next);
    epoch_edge(w);
    for (int k = 0; k < 5; ++k) {
        check_pair(w, got, (size_t)k + 1, pat_fop_old(next, k), "result");
        check_pair(w, w->base, (size_t)k + 1, want[k], "window");
    }
    win_check_guards(w, 5);
    free(src);
    free(got);
}

/* ---- driver ----------------------------------------------------------------------- */

static void run_window(const pt_t *t, const char *flavor, int du)
{
    static const int counts[] = { 1, 3, 40, NMAX };
    wctx_t w = { .t = t, .du = du, .flavor = flavor };
    MPI_Aint bytes = (MPI_Aint)(WELEMS * t->ext);
    void *mem = NULL;

    if (strcmp(flavor, "allocate") == 0) {
        MT_OK(MPI_Win_allocate(bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &w.base, &w.win));
    } else {
        MT_OK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mem));
        w.base = mem;
        MT_OK(MPI_Win_create(mem, bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &w.win));
    }
    MT_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
    for (w.lock = 0; w.lock < 2; ++w.lock) {
        if (!w.lock) {
            MT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
        }
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
            int n = counts[c];

            phase_putget(&w, n);
            phase_loc_all(&w, n, MPI_MAXLOC);
            phase_loc_all(&w, n, MPI_MINLOC);
            phase_replace(&w, n);
            phase_gacc(&w, n, MPI_MAXLOC, "get_accumulate MAXLOC");
            phase_gacc(&w, n, MPI_MINLOC, "get_accumulate MINLOC");
            phase_gacc(&w, n, MPI_REPLACE, "get_accumulate MPI_REPLACE");
            phase_gacc(&w, n, MPI_NO_OP, "get_accumulate MPI_NO_OP");
        }
        phase_fop(&w);
        if (!w.lock) {
            MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
        }
    }
    MT_OK(MPI_Win_free(&w.win));
    if (mem != NULL) {
        MT_OK(MPI_Free_mem(mem));
    }
}

int main(int argc, char **argv)
{
    const pt_t types[] = {
        PT(fi, MPI_FLOAT_INT), PT(di, MPI_DOUBLE_INT), PT(li, MPI_LONG_INT),
        PT(ii, MPI_2INT),      PT(si, MPI_SHORT_INT),  PT(ldi, MPI_LONG_DOUBLE_INT),
    };
    const char *which = argc > 1 ? argv[1] : "both";

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); ++i) {
        const pt_t *t = &types[i];

        for (int f = 0; f < 2; ++f) {
            const char *flavor = f ? "allocate" : "create";

            if (strcmp(which, "both") != 0 && strcmp(which, flavor) != 0) {
                continue;
            }
            run_window(t, flavor, 1);
            run_window(t, flavor, (int)t->ext);
        }
    }
    MT_PASS("mpi_rma_pair");
    MT_OK(MPI_Finalize());
    return 0;
}
