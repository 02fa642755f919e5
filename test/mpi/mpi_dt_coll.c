/*
 * mpi_dt_coll.c: blocking collectives with a non-contiguous derived type
 * (issue 20): vector(3, 2, 4) of MPI_INT (ints 0 1 4 5 8 9 of every
 * 10), on either side or both, mixed with contiguous MPI_INT on the other
 * side, with MPI_IN_PLACE; gatherv/allgatherv/scatterv/alltoallv with
 * gaps between the blocks; reductions on it; the nonblocking forms (all in
 * flight at once, on a type freed right after starting them); and the error class of what
 * MPI_ERR_TYPE still refuses (a predefined op on mixed basic types, a pair
 * type mixed with others, a user op on a type whose data overflow its
 * extent; the rest is mpi_dt_coll2*.c's), MPI_ERR_COUNT for packed sizes
 * that would overflow. Values are written out by hand:
 * the k-th int of rank r's packed data is r * 1000 + k.
 */
#include "mpi_test_util.h"

#include <string.h>

static const int off[6] = { 0, 1, 4, 5, 8, 9 };
static MPI_Datatype vec;
static int rank, size;

#define EXT 10

static int *vbuf(int ninst)
{
    int *b = malloc((size_t)(ninst * EXT + 1) * sizeof(int));
    MT_CHECK(b != NULL);
    for (int i = 0; i < ninst * EXT + 1; ++i) {
        b[i] = -1;
    }
    return b;
}

/* instance i element e of @p b holds @p base + first + i * 6 + e */
static void fill(int *b, int ninst, int base)
{
    for (int i = 0; i < ninst; ++i) {
        for (int e = 0; e < 6; ++e) {
            b[off[e] + i * EXT] = base + i * 6 + e;
        }
    }
}

/* the map of @p b holds @p want(k) for packed int k; everything else -1 */
static void check(const int *b, int ninst, int (*want)(int k), const char *what)
{
    for (int j = 0; j < ninst * EXT + 1; ++j) {
        int i = j / EXT, r = j % EXT, e = -1;
        for (int x = 0; x < 6; ++x) {
            if (off[x] == r && i < ninst) {
                e = x;
            }
        }
        int w = e < 0 ? -1 : want(i * 6 + e);
        if (b[j] != w) {
            MT_FAIL("%s: int %d is %d, expected %d", what, j, b[j], w);
        }
    }
}

static int g_root, g_per;
static int want_root(int k) { return g_root * 1000 + k; }
/* block of g_per instances (6 * g_per ints) per rank, in rank order */
static int want_blocks(int k) { return (k / (6 * g_per)) * 1000 + k % (6 * g_per); }
static int want_sum(int k)
{
    return size * k + 1000 * (size * (size - 1) / 2);
}
/* alltoall: block j of rank r's send data goes to rank j */
static int want_a2a(int k) { return (k / 6) * 1000 + rank * 6 + k % 6; }

static void t_bcast(void)
{
    int *b = vbuf(3);
    int c[18];

    g_root = size - 1;
    if (rank == g_root) {
        fill(b, 3, rank * 1000);
    }
    MT_OK(MPI_Bcast(b, 3, vec, g_root, MPI_COMM_WORLD));
    check(b, 3, want_root, "bcast vec");
    /* the root's vec to contiguous ints elsewhere */
    if (rank == g_root) {
        MT_OK(MPI_Bcast(b, 3, vec, g_root, MPI_COMM_WORLD));
    } else {
        MT_OK(MPI_Bcast(c, 18, MPI_INT, g_root, MPI_COMM_WORLD));
        for (int k = 0; k < 18; ++k) {
            MT_EQ(c[k], want_root(k));
        }
    }
    free(b);
}

static void t_gather_scatter(void)
{
    int *s = vbuf(2), *r = vbuf(2 * size), *c = malloc((size_t)size * 12 * sizeof(int));

    MT_CHECK(c != NULL);
    g_per = 2;
    g_root = 0;
    fill(s, 2, rank * 1000);
    MT_OK(MPI_Gather(s, 2, vec, r, 2, vec, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        check(r, 2 * size, want_blocks, "gather vec->vec");
    }
    /* contiguous receive of packed sends */
    MT_OK(MPI_Gather(s, 2, vec, c, 12, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        for (int k = 0; k < 12 * size; ++k) {
            MT_EQ(c[k], want_blocks(k));
        }
    }
    /* allgather vec -> vec, and in place */
    free(r);
    r = vbuf(2 * size);
    MT_OK(MPI_Allgather(s, 2, vec, r, 2, vec, MPI_COMM_WORLD));
    check(r, 2 * size, want_blocks, "allgather");
    free(r);
    r = vbuf(2 * size);
    fill(r + rank * 2 * EXT, 2, rank * 1000);
    MT_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, 2, vec, MPI_COMM_WORLD));
    check(r, 2 * size, want_blocks, "allgather in place");
    /* scatter: root's vec blocks to contiguous ints, then to vec */
    for (int k = 0; k < 12; ++k) {
        c[k] = -5;
    }
    if (rank == 0) {
        for (int i = 0; i < size; ++i) {
            fill(r + i * 2 * EXT, 2, i * 1000);
        }
    }
    MT_OK(MPI_Scatter(r, 2, vec, c, 12, MPI_INT, 0, MPI_COMM_WORLD));
    for (int k = 0; k < 12; ++k) {
        MT_EQ(c[k], rank * 1000 + k);
    }
    free(s);
    s = vbuf(2);
    MT_OK(MPI_Scatter(r, 2, vec, s, 2, vec, 0, MPI_COMM_WORLD));
    g_root = rank;
    check(s, 2, want_root, "scatter vec->vec");
    free(s);
    free(r);
    free(c);
}

static void t_alltoall(void)
{
    int *s = vbuf(size), *r = vbuf(size), *c = malloc((size_t)size * 6 * sizeof(int));

    MT_CHECK(c != NULL);
    fill(s, size, rank * 1000);
    MT_OK(MPI_Alltoall(s, 1, vec, r, 1, vec, MPI_COMM_WORLD));
    check(r, size, want_a2a, "alltoall vec");
    MT_OK(MPI_Alltoall(s, 1, vec, c, 6, MPI_INT, MPI_COMM_WORLD));
    for (int k = 0; k < 6 * size; ++k) {
        MT_EQ(c[k], want_a2a(k));
    }
    free(s);
    free(r);
    free(c);
}

static void t_reduce(void)
{
    int *s = vbuf(2), *r = vbuf(2);

    fill(s, 2, rank * 1000);
    MT_OK(MPI_Allreduce(s, r, 2, vec, MPI_SUM, MPI_COMM_WORLD));
    check(r, 2, want_sum, "allreduce");
    free(r);
    r = vbuf(2);
    MT_OK(MPI_Reduce(s, r, 2, vec, MPI_SUM, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1) {
        check(r, 2, want_sum, "reduce");
    } else {
        check(r, 0, want_sum, "reduce non-root untouched");
    }
    MT_OK(MPI_Allreduce(MPI_IN_PLACE, s, 2, vec, MPI_SUM, MPI_COMM_WORLD));
    check(s, 2, want_sum, "allreduce in place");
    free(s);
    free(r);
}

/* v-collectives: rank i has i + 1 instances; blocks one instance apart */
static int vc[16], vd[16], vtotal;

static void vlayout(void)
{
    int d = 0;
    for (int i = 0; i < size; ++i) {
        vc[i] = i + 1;
        vd[i] = d;
        d += vc[i] + 1;
    }
    vtotal = d;
}

/* instance q of a v buffer: int e holds (owner block i, t = q - vd[i]) -> f(i, t, e) */
static void vcheck(const int *b, int (*f)(int i, int t, int e), const char *what)
{
    for (int q = 0; q < vtotal; ++q) {
        int i = -1;
        for (int k = 0; k < size; ++k) {
            if (q >= vd[k] && q < vd[k] + vc[k]) {
                i = k;
            }
        }
        for (int r = 0; r < EXT; ++r) {
            int e = -1;
            for (int x = 0; x < 6; ++x) {
                e = off[x] == r ? x : e;
            }
            int w = i < 0 || e < 0 ? -1 : f(i, q - vd[i], e);
            if (b[q * EXT + r] != w) {
                MT_FAIL("%s: instance %d int %d is %d, expected %d", what, q, r,
                        b[q * EXT + r], w);
            }
        }
    }
}

static int vgather_want(int i, int t, int e) { return i * 1000 + t * 6 + e; }
static int va2a_want(int i, int t, int e) { return i * 1000 + rank * 100 + t * 6 + e; }

static void t_vcoll(void)
{
    int *s = vbuf(size + 1), *r = vbuf(vtotal), *rc = vbuf(size + 1);
    int sc[16], rcn[16], rd[16];

    fill(s, rank + 1, rank * 1000);
    MT_OK(MPI_Gatherv(s, rank + 1, vec, r, vc, vd, vec, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        vcheck(r, vgather_want, "gatherv");
    }
    free(r);
    r = vbuf(vtotal);
    MT_OK(MPI_Allgatherv(s, rank + 1, vec, r, vc, vd, vec, MPI_COMM_WORLD));
    vcheck(r, vgather_want, "allgatherv");
    /* scatterv back: rank i gets its i + 1 instances */
    MT_OK(MPI_Scatterv(r, vc, vd, vec, rc, rank + 1, vec, size - 1, MPI_COMM_WORLD));
    g_root = rank;
    check(rc, rank + 1, want_root, "scatterv");
    /* alltoallv: i + 1 instances to rank i, rank + 1 from everyone */
    free(r);
    free(s);
    s = vbuf(vtotal);
    r = vbuf(vtotal);
    for (int j = 0; j < size; ++j) {
        for (int t = 0; t < vc[j]; ++t) {
            for (int e = 0; e < 6; ++e) {
                s[(vd[j] + t) * EXT + off[e]] = rank * 1000 + j * 100 + t * 6 + e;
            }
        }
        sc[j] = vc[j];
        rcn[j] = rank + 1;
        rd[j] = j * (rank + 2);
    }
    free(r);
    r = vbuf(size * (rank + 2));
    MT_OK(MPI_Alltoallv(s, sc, vd, vec, r, rcn, rd, vec, MPI_COMM_WORLD));
    for (int j = 0; j < size; ++j) {  /* the receive layout, for vcheck */
        vc[j] = rcn[j];
        vd[j] = rd[j];
    }
    vtotal = size * (rank + 2);
    vcheck(r, va2a_want, "alltoallv");
    vlayout();
    free(s);
    free(r);
    free(rc);
}

/* the nonblocking forms, all in flight at once, on a dup freed right away */
static void t_nb(void)
{
    int *b = vbuf(3), *s = vbuf(2), *g = vbuf(2 * size), *sc = vbuf(2), *ag = vbuf(2 * size);
    int *as = vbuf(size), *ar = vbuf(size), *rs = vbuf(2), *rr = vbuf(2), *rd = vbuf(2);
    MPI_Request req[7];
    MPI_Datatype d;

    MT_OK(MPI_Type_dup(vec, &d));
    MT_OK(MPI_Type_commit(&d));
    g_root = size - 1;
    g_per = 2;
    if (rank == g_root) {
        fill(b, 3, rank * 1000);
        for (int i = 0; i < size; ++i) {
            fill(g + i * 2 * EXT, 2, i * 1000);
        }
    }
    fill(s, 2, rank * 1000);
    fill(as, size, rank * 1000);
    fill(rs, 2, rank * 1000);
    MT_OK(MPI_Ibcast(b, 3, d, g_root, MPI_COMM_WORLD, &req[0]));
    MT_OK(MPI_Iscatter(g, 2, d, sc, 2, d, g_root, MPI_COMM_WORLD, &req[1]));
    MT_OK(MPI_Iallgather(s, 2, d, ag, 2, d, MPI_COMM_WORLD, &req[2]));
    MT_OK(MPI_Ialltoall(as, 1, d, ar, 1, d, MPI_COMM_WORLD, &req[3]));
    MT_OK(MPI_Iallreduce(rs, rr, 2, d, MPI_SUM, MPI_COMM_WORLD, &req[4]));
    MT_OK(MPI_Ireduce(rs, rd, 2, d, MPI_SUM, 0, MPI_COMM_WORLD, &req[5]));
    MT_OK(MPI_Type_free(&d));
    free(s);
    s = vbuf(2 * size);
    MT_OK(MPI_Igather(rs, 2, vec, s, 2, vec, 0, MPI_COMM_WORLD, &req[6]));
    MT_OK(MPI_Waitall(7, req, MPI_STATUSES_IGNORE));
    check(b, 3, want_root, "ibcast");
    check(ag, 2 * size, want_blocks, "iallgather");
    check(ar, size, want_a2a, "ialltoall");
    check(rr, 2, want_sum, "iallreduce");
    if (rank == 0) {
        check(rd, 2, want_sum, "ireduce");
        check(s, 2 * size, want_blocks, "igather");
    }
    g_root = rank;
    check(sc, 2, want_root, "iscatter");
    int *all[] = { b, s, g, sc, ag, as, ar, rs, rr, rd };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
        free(all[i]);
    }
}

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)dt;
}

static void t_unsupported(void)
{
    int bl[2] = { 1, 1 }, x[64] = { 0 };
    MPI_Aint d[2] = { 0, 8 }, dp[2] = { 0, 16 };
    MPI_Datatype t[2] = { MPI_INT, MPI_DOUBLE }, tp[2] = { MPI_INT, MPI_DOUBLE_INT }, st, sp,
                 ov;
    MPI_Op op;

    MT_OK(MPI_Type_create_struct(2, bl, d, t, &st));
    MT_OK(MPI_Type_commit(&st));
    /* a predefined op on mixed basic types */
    MT_ERR(MPI_Allreduce(x, x + 32, 1, st, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    /* a pair type mixed with another type in a collective */
    MT_OK(MPI_Type_create_struct(2, bl, dp, tp, &sp));
    MT_OK(MPI_Type_commit(&sp));
    MT_ERR(MPI_Bcast(x, 1, sp, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    /* a user op on a type whose data overflow its extent (whole elements impossible) */
    MT_OK(MPI_Type_create_resized(vec, 0, 4, &ov));
    MT_OK(MPI_Type_commit(&ov));
    MT_OK(MPI_Op_create(user_fn, 1, &op));
    MT_ERR(MPI_Allreduce(x, x + 32, 1, ov, op, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MT_OK(MPI_Op_free(&op));
    MT_OK(MPI_Type_free(&ov));
    MT_OK(MPI_Type_free(&sp));
    MT_OK(MPI_Type_free(&st));
}

/*
 * Count overflow in the packed views is MPI_ERR_COUNT, never a wrapped
 * size: a 2^60-byte vector x 16 blocks in Scatterv once summed to 0 bytes
 * (and "succeeded"); k x recvcount of an empty non-contiguous type once
 * wrapped an int in Allgather.
 */
static void t_overflow(void)
{
    MPI_Datatype g, big, e0, empty;
    int x[64] = { 0 }, counts[1] = { 16 }, displs[1] = { 0 }, bl0 = 0;
    MPI_Aint d0 = 0;

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MT_OK(MPI_Type_contiguous(1 << 30, MPI_CHAR, &g));
    MT_OK(MPI_Type_vector(1 << 30, 1, 2, g, &big));   /* 2^60 bytes of data */
    MT_OK(MPI_Type_commit(&big));
    MT_ERR(MPI_Scatterv(x, counts, displs, big, x + 32, 0, MPI_INT, 0, MPI_COMM_SELF),
           MPI_ERR_COUNT);
    MT_ERR(MPI_Gatherv(x, 0, MPI_INT, x + 32, counts, displs, big, 0, MPI_COMM_SELF),
           MPI_ERR_COUNT);
    MT_OK(MPI_Type_free(&big));
    MT_OK(MPI_Type_free(&g));
    if (size >= 2) {   /* every rank fails the same check before any communication */
        MT_OK(MPI_Type_create_hindexed(1, &bl0, &d0, MPI_INT, &e0));
        MT_OK(MPI_Type_create_resized(e0, 0, 4, &empty));   /* size 0, extent 4 */
        MT_OK(MPI_Type_commit(&empty));
        MT_ERR(MPI_Allgather(x, 0, MPI_INT, x + 32, 0x7fffffff / size + 1, empty,
                             MPI_COMM_WORLD), MPI_ERR_COUNT);
        MT_OK(MPI_Type_free(&empty));
        MT_OK(MPI_Type_free(&e0));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
    MT_OK(MPI_Type_commit(&vec));
    t_bcast();
    t_gather_scatter();
    t_alltoall();
    t_reduce();
    t_nb();
    if (size <= 16) {
        vlayout();
        t_vcoll();
    }
    t_unsupported();
    t_overflow();
    MT_OK(MPI_Type_free(&vec));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("mpi_dt_coll: passed on %d ranks\n", size);
    }
    MPI_Finalize();
    return 0;
}
