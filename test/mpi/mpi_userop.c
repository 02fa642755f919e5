/*
 * mpi_userop.c: user-defined operations (MPI_Op_create) over multi-element
 * datatypes, through every reduction and its nonblocking form.
 *
 * Two datatypes, each with a commutative and a non-commutative op:
 *   triple = MPI_Type_contiguous(3, MPI_DOUBLE):
 *     "tc"  field 0 max, field 1 sum, field 2 min          (commutative)
 *     "tn"  field 0 max, field 1 sum, field 2 left operand (not commutative:
 *           the result's field 2 is rank 0's)
 *   matrix = MPI_Type_contiguous(9, MPI_INT), a row-major 3x3 matrix:
 *     "mc"  position k: max (k % 3 == 0), wrapping sum (1), xor (2)
 *     "mn"  matrix product in modulo-2^32 arithmetic (not commutative)
 *   wide = MPI_Type_contiguous(WIDE, MPI_DOUBLE), 375 KiB, larger than a
 *   chunk of allreduce "cma" holds (the selection must pass it on):
 *     "wd"  field k: sum (k even), max (k odd)                (commutative)
 *           counts 1..4 only
 * Each user function walks whole elements: it fails the job if it gets a
 * datatype other than the one passed to the collective or a count < 1, and
 * (since it reads field by field) a piece cut inside an element gives a
 * wrong result, which the element-by-element check reports.
 *
 * Every value is an exact integer (doubles below 2^53, ints wrapping), so
 * the expected result, computed here as MPI defines it for any op,
 * x0 op (x1 op (... op x(p-1))), must match bit for bit whatever order a
 * commutative op was reduced in.
 *
 * Usage: mpi_userop [-n max] [-b big] [-o ops] [-c colls] [-s step]
 *   -n max    counts 1, 2, 4, ..., max (a power of two) plus a few odd ones
 *   -b big    counts above big run the blocking calls only, root 0, and
 *             the ops tc and mn (time); default: max
 *   -o ops    comma list of tc,tn,mc,mn,wd (default: all)
 *   -c colls  comma list of reduce,ireduce,allreduce,iallreduce,rsb,irsb
 *             (rsb = MPI_Reduce_scatter_block; default: all)
 * Reduce runs with roots 0, p-1 and p/2 (also in place at the root);
 * allreduce also in place; reduce_scatter_block with blocks of
 * max(1, count / p) elements. Forced algorithms come from the environment
 * (LOOM_REDUCE_ALGORITHM, ...), set by test_mpi_userop.sh.
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

typedef struct { double f[3]; } triple_t;
typedef struct { uint32_t m[9]; } mat_t;

#define WIDE 48000   /* doubles per element of "wd": 375 KiB */

/* the datatype the current collective was called with */
static MPI_Datatype g_type;

static void check_args(int *len, MPI_Datatype *dt)
{
    if (*dt != g_type) {
        MT_FAIL("user function called with another datatype than the collective's");
    }
    if (*len < 1) {
        MT_FAIL("user function called with count %d", *len);
    }
}

static void op_tc(void *in_, void *io_, int *len, MPI_Datatype *dt)
{
    const triple_t *in = in_;
    triple_t *io = io_;

    check_args(len, dt);
    for (int i = 0; i < *len; ++i) {
        io[i].f[0] = in[i].f[0] > io[i].f[0] ? in[i].f[0] : io[i].f[0];
        io[i].f[1] = in[i].f[1] + io[i].f[1];
        io[i].f[2] = in[i].f[2] < io[i].f[2] ? in[i].f[2] : io[i].f[2];
    }
}

static void op_tn(void *in_, void *io_, int *len, MPI_Datatype *dt)
{
    const triple_t *in = in_;
    triple_t *io = io_;

    check_args(len, dt);
    for (int i = 0; i < *len; ++i) {
        io[i].f[0] = in[i].f[0] > io[i].f[0] ? in[i].f[0] : io[i].f[0];
        io[i].f[1] = in[i].f[1] + io[i].f[1];
        io[i].f[2] = in[i].f[2];          /* invec comes from the lower rank */
    }
}

static void op_mc(void *in_, void *io_, int *len, MPI_Datatype *dt)
{
    const mat_t *in = in_;
    mat_t *io = io_;

    check_args(len, dt);
    for (int i = 0; i < *len; ++i) {
        for (int k = 0; k < 9; k += 3) {
            uint32_t a = in[i].m[k], b = io[i].m[k];
            io[i].m[k]     = a > b ? a : b;
            io[i].m[k + 1] = in[i].m[k + 1] + io[i].m[k + 1];
            io[i].m[k + 2] = in[i].m[k + 2] ^ io[i].m[k + 2];
        }
    }
}

static void op_mn(void *in_, void *io_, int *len, MPI_Datatype *dt)
{
    const mat_t *in = in_;
    mat_t *io = io_;

    check_args(len, dt);
    for (int i = 0; i < *len; ++i) {
        mat_t c;
        for (int r = 0; r < 3; ++r) {
            for (int col = 0; col < 3; ++col) {
                uint32_t acc = 0;
                for (int k = 0; k < 3; ++k) {
                    acc += in[i].m[3 * r + k] * io[i].m[3 * k + col];
                }
                c.m[3 * r + col] = acc;
            }
        }
        io[i] = c;                        /* inout = in x inout */
    }
}

static void op_wd(void *in_, void *io_, int *len, MPI_Datatype *dt)
{
    const double *in = in_;
    double *io = io_;

    check_args(len, dt);
    for (size_t i = 0; i < (size_t)*len * WIDE; i += 2) {
        io[i]     += in[i];
        io[i + 1] = in[i + 1] > io[i + 1] ? in[i + 1] : io[i + 1];
    }
}

enum { K_TRIPLE, K_MATRIX, K_WIDE };

typedef struct {
    const char        *name;
    MPI_User_function *fn;
    int                commute;
    int                kind;
} op_desc_t;

static const op_desc_t ops[] = {
    {"tc", op_tc, 1, K_TRIPLE},
    {"tn", op_tn, 0, K_TRIPLE},
    {"mc", op_mc, 1, K_MATRIX},
    {"mn", op_mn, 0, K_MATRIX},
    {"wd", op_wd, 1, K_WIDE},
};
#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))

enum { C_REDUCE, C_IREDUCE, C_ALLREDUCE, C_IALLREDUCE, C_RSB, C_IRSB, NCOLLS };
static const char *const coll_names[NCOLLS] = {
    "reduce", "ireduce", "allreduce", "iallreduce", "rsb", "irsb",
};

/* element i of rank r's input, written at @p dst */
static void gen(const op_desc_t *o, int r, size_t i, void *dst)
{
    if (o->kind == K_WIDE) {
        double *w = dst;
        for (size_t k = 0; k < WIDE; ++k) {
            w[k] = (double)(((size_t)r * 3 + i * 5 + k) % 17);
        }
    } else if (o->kind == K_TRIPLE) {
        triple_t *t = dst;
        t->f[0] = (double)((r * 7 + i * 13) % 1000);
        t->f[1] = (double)((r + 3 * i) % 100);
        t->f[2] = (double)r * 1e6 + (double)(i % 997);
    } else {
        mat_t *m = dst;
        for (int k = 0; k < 9; ++k) {
            m->m[k] = (uint32_t)((r * 31 + i * 17 + (size_t)k * 7 + (size_t)(r * k)) % 5);
        }
        m->m[0] += (uint32_t)r;           /* keep ranks apart */
    }
}

static size_t esize_of(const op_desc_t *o)
{
    return o->kind == K_WIDE ? WIDE * sizeof(double) :
           o->kind == K_MATRIX ? sizeof(mat_t) : sizeof(triple_t);
}

/* expected[i] = x0 op (x1 op (... op x(p-1))) for n elements */
static void expect(const op_desc_t *o, MPI_Datatype dt, int p, size_t n, char *exp)
{
    size_t es = esize_of(o);
    char *x = malloc(es);
    int one = 1;

    MT_CHECK(x != NULL);
    for (size_t i = 0; i < n; ++i) {
        char *e = exp + i * es;
        gen(o, p - 1, i, e);
        for (int r = p - 2; r >= 0; --r) {
            gen(o, r, i, x);
            o->fn(x, e, &one, &dt);
        }
    }
    free(x);
}

static void fill(const op_desc_t *o, int r, size_t n, char *buf)
{
    for (size_t i = 0; i < n; ++i) {
        gen(o, r, i, buf + i * esize_of(o));
    }
}

static void compare(const op_desc_t *o, const char *what, size_t count, const char *got,
                    const char *exp, size_t n)
{
    size_t es = esize_of(o);

    for (size_t i = 0; i < n; ++i) {
        if (memcmp(got + i * es, exp + i * es, es) != 0) {
            if (o->kind == K_WIDE) {
                const double *g = (const void *)(got + i * es), *e = (const void *)(exp + i * es);
                size_t k = 0;
                while (g[k] == e[k]) {
                    ++k;
                }
                MT_FAIL("%s op %s count %zu: element %zu field %zu is %g, expected %g", what,
                        o->name, count, i, k, g[k], e[k]);
            } else if (o->kind == K_MATRIX) {
                const mat_t *g = (const void *)(got + i * es), *e = (const void *)(exp + i * es);
                MT_FAIL("%s op %s count %zu: element %zu is {%u %u %u ...}, expected "
                        "{%u %u %u ...}", what, o->name, count, i, g->m[0], g->m[1], g->m[2],
                        e->m[0], e->m[1], e->m[2]);
            } else {
                const triple_t *g = (const void *)(got + i * es);
                const triple_t *e = (const void *)(exp + i * es);
                MT_FAIL("%s op %s count %zu: element %zu is {%g %g %g}, expected {%g %g %g}",
                        what, o->name, count, i, g->f[0], g->f[1], g->f[2], e->f[0],
                        e->f[1], e->f[2]);
            }
        }
    }
}

static void wait_or_not(int nb, MPI_Request *req)
{
    if (nb) {
        MT_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    }
}

typedef struct {
    const op_desc_t *o;
    MPI_Datatype     dt;
    MPI_Op           op;
    int              rank, size;
    char            *sbuf, *rbuf, *exp;
} run_t;

static void run_reduce(run_t *t, size_t n, int nb, int root, int in_place)
{
    size_t es = esize_of(t->o);
    MPI_Request req;
    const void *sb = in_place && t->rank == root ? MPI_IN_PLACE : t->sbuf;

    fill(t->o, t->rank, n, sb == MPI_IN_PLACE ? t->rbuf : t->sbuf);
    if (sb != MPI_IN_PLACE) {
        memset(t->rbuf, 0x5a, n * es);
    }
    if (nb) {
        MT_OK(MPI_Ireduce(sb, t->rbuf, (int)n, t->dt, t->op, root, MPI_COMM_WORLD, &req));
    } else {
        MT_OK(MPI_Reduce(sb, t->rbuf, (int)n, t->dt, t->op, root, MPI_COMM_WORLD));
    }
    wait_or_not(nb, &req);
    if (t->rank == root) {
        compare(t->o, in_place ? (nb ? "MPI_Ireduce(IN_PLACE)" : "MPI_Reduce(IN_PLACE)")
                               : (nb ? "MPI_Ireduce" : "MPI_Reduce"),
                n, t->rbuf, t->exp, n);
    }
}

static void run_allreduce(run_t *t, size_t n, int nb, int in_place)
{
    size_t es = esize_of(t->o);
    MPI_Request req;
    const void *sb = in_place ? MPI_IN_PLACE : t->sbuf;

    fill(t->o, t->rank, n, in_place ? t->rbuf : t->sbuf);
    if (!in_place) {
        memset(t->rbuf, 0x5a, n * es);
    }
    if (nb) {
        MT_OK(MPI_Iallreduce(sb, t->rbuf, (int)n, t->dt, t->op, MPI_COMM_WORLD, &req));
    } else {
        MT_OK(MPI_Allreduce(sb, t->rbuf, (int)n, t->dt, t->op, MPI_COMM_WORLD));
    }
    wait_or_not(nb, &req);
    compare(t->o, in_place ? (nb ? "MPI_Iallreduce(IN_PLACE)" : "MPI_Allreduce(IN_PLACE)")
                           : (nb ? "MPI_Iallreduce" : "MPI_Allreduce"),
            n, t->rbuf, t->exp, n);
}

static void run_rsb(run_t *t, size_t blk, int nb)
{
    size_t es = esize_of(t->o), total = blk * (size_t)t->size;
    MPI_Request req;

    fill(t->o, t->rank, total, t->sbuf);
    memset(t->rbuf, 0x5a, blk * es);
    if (nb) {
        MT_OK(MPI_Ireduce_scatter_block(t->sbuf, t->rbuf, (int)blk, t->dt, t->op,
                                        MPI_COMM_WORLD, &req));
    } else {
        MT_OK(MPI_Reduce_scatter_block(t->sbuf, t->rbuf, (int)blk, t->dt, t->op,
                                       MPI_COMM_WORLD));
    }
    wait_or_not(nb, &req);
    compare(t->o, nb ? "MPI_Ireduce_scatter_block" : "MPI_Reduce_scatter_block", blk,
            t->rbuf, t->exp + (size_t)t->rank * blk * es, blk);
}

static int in_list(const char *list, const char *name)
{
    size_t l = strlen(name);

    for (const char *p = list; p != NULL && *p != '\0';) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == l && strncmp(p, name, l) == 0) {
            return 1;
        }
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* one count through every selected collective */
static void run_count(run_t *t, size_t n, const char *colls, int big)
{
    int roots[3] = {0, t->size - 1, t->size / 2};
    size_t blk = n / (size_t)t->size > 0 ? n / (size_t)t->size : 1;

    for (int c = 0; c < NCOLLS; ++c) {
        int nb = c == C_IREDUCE || c == C_IALLREDUCE || c == C_IRSB;
        if (!in_list(colls, coll_names[c]) || (big && nb)) {
            continue;
        }
        g_type = t->dt;
        switch (c) {
        case C_REDUCE:
        case C_IREDUCE:
            for (int k = 0; k < (big ? 1 : 3); ++k) {
                if (k > 0 && (roots[k] == roots[0] || roots[k] == roots[k - 1])) {
                    continue;
                }
                run_reduce(t, n, nb, roots[k], 0);
            }
            if (!big) {
                run_reduce(t, n, nb, roots[1], 1);
            }
            break;
        case C_ALLREDUCE:
        case C_IALLREDUCE:
            run_allreduce(t, n, nb, 0);
            if (!big) {
                run_allreduce(t, n, nb, 1);
            }
            break;
        default:                               /* the expectation covers p * blk */
            run_rsb(t, blk, nb);
            break;
        }
    }
}

int main(int argc, char **argv)
{
    size_t max = 1024, big = 0;
    const char *oplist = "tc,tn,mc,mn,wd";
    const char *colls = "reduce,ireduce,allreduce,iallreduce,rsb,irsb";
    static const size_t odd[] = {3, 7, 13, 100, 1001};
    size_t counts[64];
    int ncounts = 0;
    run_t t;

    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-n") == 0) {
            max = strtoull(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "-b") == 0) {
            big = strtoull(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "-o") == 0) {
            oplist = argv[i + 1];
        } else if (strcmp(argv[i], "-c") == 0) {
            colls = argv[i + 1];
        } else {
            MT_FAIL("unknown option %s", argv[i]);
        }
    }
    if (big == 0) {
        big = max;
    }
    for (size_t n = 1; n <= max; n *= 2) {
        counts[ncounts++] = n;
    }
    for (size_t k = 0; k < sizeof(odd) / sizeof(odd[0]); ++k) {
        if (odd[k] < max) {
            counts[ncounts++] = odd[k];
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.size);
    for (int k = 0; k < NOPS; ++k) {
        const op_desc_t *o = &ops[k];
        size_t es = esize_of(o), cap = (o->kind == K_WIDE ? 4 : max) + (size_t)t.size;
        int commute = -1;

        if (!in_list(oplist, o->name)) {
            continue;
        }
        t.o = o;
        MT_OK(MPI_Type_contiguous(o->kind == K_WIDE ? WIDE : o->kind == K_MATRIX ? 9 : 3,
                                  o->kind == K_MATRIX ? MPI_INT : MPI_DOUBLE, &t.dt));
        MT_OK(MPI_Type_commit(&t.dt));
        MT_OK(MPI_Op_create(o->fn, o->commute, &t.op));
        MT_OK(MPI_Op_commutative(t.op, &commute));
        MT_EQ(commute, o->commute);
        t.sbuf = malloc(cap * es);
        t.rbuf = malloc(cap * es);
        t.exp  = malloc(cap * es);
        MT_CHECK(t.sbuf != NULL && t.rbuf != NULL && t.exp != NULL);
        for (int c = 0; c < ncounts; ++c) {
            size_t n = counts[c], blk = n / (size_t)t.size > 0 ? n / (size_t)t.size : 1;
            int is_big = n > big;
            if ((is_big && strcmp(o->name, "tc") != 0 && strcmp(o->name, "mn") != 0) ||
                (o->kind == K_WIDE && n > 4)) {
                continue;
            }
            g_type = t.dt;
            expect(o, t.dt, t.size, n > blk * (size_t)t.size ? n : blk * (size_t)t.size,
                   t.exp);
            run_count(&t, n, colls, is_big);
        }
        free(t.sbuf);
        free(t.rbuf);
        free(t.exp);
        MT_OK(MPI_Op_free(&t.op));
        MT_OK(MPI_Type_free(&t.dt));
    }
    MT_PASS("mpi_userop");
    MPI_Finalize();
    return 0;
}
