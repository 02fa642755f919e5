/*
 * mpi_dt_coll2_red.c: reductions on non-contiguous derived types (issue
 * 20): scan / exscan / iscan / iexscan (and in place), reduce_scatter_block
 * and reduce_scatter (blocking, nonblocking, in place) with MPI_SUM over
 * the types of mpi_dt_coll2.h; a non-commutative user op (composition of
 * affine maps x -> a x + b, one map per (a, b) pair of data ints) on a
 * shifted struct and a vector: reduce, allreduce (and in place), iallreduce,
 * ireduce, scan, exscan, reduce_scatter_block, Reduce_local, where the
 * function must receive the user's datatype handle and results must keep
 * rank order; MINLOC / MAXLOC on a vector of MPI_DOUBLE_INT; intercomm
 * allreduce and reduce_scatter (MPI_SUM) and reduce (the user op). Expected values are
 * computed here; gaps must keep their sentinels.
 */
#include "mpi_dt_coll2.h"

static int rank, size;

/* ---- MPI_SUM: the scan family and reduce_scatter ------------------------------------- */

static int sumv(int r, int k)   /* rank r's k-th data int */
{
    return r * 10 + k % 7 + 1;
}

static void sum_expect(int *v, int n, int lo, int hi, int kbase)   /* ranks [lo, hi) */
{
    for (int k = 0; k < n; ++k) {
        v[k] = 0;
        for (int r = lo; r < hi; ++r) {
            v[k] += sumv(r, kbase + k);
        }
    }
}

static void t_scans(const tspec_t *t)
{
    enum { C = 2 };
    int n = C * t->n, v[64], *s = tbuf(t, C), *r[6];
    MPI_Request req[2];

    for (int k = 0; k < n; ++k) {
        v[k] = sumv(rank, k);
    }
    tput(s, t, C, v);
    for (int i = 0; i < 6; ++i) {
        r[i] = tbuf(t, C);
    }
    tput(r[4], t, C, v);   /* in place */
    tput(r[5], t, C, v);
    MT_OK(MPI_Scan(s, r[0], C, t->t, MPI_SUM, MPI_COMM_WORLD));
    MT_OK(MPI_Exscan(s, r[1], C, t->t, MPI_SUM, MPI_COMM_WORLD));
    MT_OK(MPI_Iscan(s, r[2], C, t->t, MPI_SUM, MPI_COMM_WORLD, &req[0]));
    MT_OK(MPI_Iexscan(s, r[3], C, t->t, MPI_SUM, MPI_COMM_WORLD, &req[1]));
    MT_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    MT_OK(MPI_Scan(MPI_IN_PLACE, r[4], C, t->t, MPI_SUM, MPI_COMM_WORLD));
    MT_OK(MPI_Exscan(MPI_IN_PLACE, r[5], C, t->t, MPI_SUM, MPI_COMM_WORLD));
    {   /* reduce and ireduce in place at the root */
        int *a = tbuf(t, C), *b = tbuf(t, C), w[64], root = size / 2;
        for (int k = 0; k < n; ++k) {
            w[k] = sumv(rank, k);
        }
        tput(a, t, C, w);
        tput(b, t, C, w);
        MT_OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : a, rank == root ? a : NULL, C, t->t,
                         MPI_SUM, root, MPI_COMM_WORLD));
        MT_OK(MPI_Ireduce(rank == 0 ? MPI_IN_PLACE : b, rank == 0 ? b : NULL, C, t->t,
                          MPI_SUM, 0, MPI_COMM_WORLD, &req[0]));
        MT_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        sum_expect(w, n, 0, size, 0);
        if (rank == root) {
            tcheck(a, t, C, w, "reduce in place");
        }
        if (rank == 0) {
            tcheck(b, t, C, w, "ireduce in place");
        }
        free(a);
        free(b);
    }
    sum_expect(v, n, 0, rank + 1, 0);
    tcheck(r[0], t, C, v, "scan");
    tcheck(r[2], t, C, v, "iscan");
    tcheck(r[4], t, C, v, "scan in place");
    if (rank > 0) {
        sum_expect(v, n, 0, rank, 0);
        tcheck(r[1], t, C, v, "exscan");
        tcheck(r[3], t, C, v, "iexscan");
        tcheck(r[5], t, C, v, "exscan in place");
    } else {   /* rank 0's recvbuf is undefined: left as it was */
        for (int k = 0; k < n; ++k) {
            v[k] = SENT;
        }
        tcheck(r[1], t, C, v, "exscan at rank 0");
    }
    free(s);
    for (int i = 0; i < 6; ++i) {
        free(r[i]);
    }
}

static void t_reduce_scatter(const tspec_t *t)
{
    enum { C = 2 };
    int *rc = malloc((size_t)size * sizeof(int)), total = 0, before = 0, v[512];
    int *s, *sb, *r[4];
    MPI_Request req[2];

    for (int i = 0; i < size; ++i) {
        rc[i] = i % 2 + 1;
        before += i < rank ? rc[i] : 0;
        total += rc[i];
    }
    /* block: C per rank; v-form: rc[i] per rank; both from the same kind of input */
    s = tbuf(t, C * size);
    sb = tbuf(t, total);
    for (int k = 0; k < C * size * t->n; ++k) {
        v[k] = sumv(rank, k);
    }
    tput(s, t, C * size, v);
    tput(sb, t, total, v);
    r[0] = tbuf(t, C);
    r[1] = tbuf(t, rc[rank]);
    r[2] = tbuf(t, C * size);   /* in place: the whole input */
    r[3] = tbuf(t, C);
    tput(r[2], t, C * size, v);
    MT_OK(MPI_Reduce_scatter_block(s, r[0], C, t->t, MPI_SUM, MPI_COMM_WORLD));
    MT_OK(MPI_Reduce_scatter(sb, r[1], rc, t->t, MPI_SUM, MPI_COMM_WORLD));
    MT_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, r[2], C, t->t, MPI_SUM, MPI_COMM_WORLD));
    MT_OK(MPI_Ireduce_scatter_block(s, r[3], C, t->t, MPI_SUM, MPI_COMM_WORLD, &req[0]));
    MT_OK(MPI_Waitall(1, req, MPI_STATUSES_IGNORE));
    sum_expect(v, C * t->n, 0, size, rank * C * t->n);
    tcheck(r[0], t, C, v, "reduce_scatter_block");
    tcheck(r[2], t, C, v, "reduce_scatter_block in place");
    tcheck(r[3], t, C, v, "ireduce_scatter_block");
    sum_expect(v, rc[rank] * t->n, 0, size, before * t->n);
    tcheck(r[1], t, rc[rank], v, "reduce_scatter");
    /* nonblocking v-form, in place */
    free(r[1]);
    r[1] = tbuf(t, total);
    for (int k = 0; k < total * t->n; ++k) {
        v[k] = sumv(rank, k);
    }
    tput(r[1], t, total, v);
    MT_OK(MPI_Ireduce_scatter(MPI_IN_PLACE, r[1], rc, t->t, MPI_SUM, MPI_COMM_WORLD, &req[1]));
    MT_OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
    sum_expect(v, rc[rank] * t->n, 0, size, before * t->n);
    tcheck(r[1], t, rc[rank], v, "ireduce_scatter in place");
    free(s);
    free(sb);
    free(rc);
    for (int i = 0; i < 4; ++i) {
        free(r[i]);
    }
}

/* ---- a non-commutative user op ------------------------------------------------------- */

static const tspec_t *op_spec;   /* the type the op is used with */
static int op_bad, op_calls;

/* (a1, b1) o (a2, b2) = (a1 a2, a1 b2 + b1): inout = in o inout */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *x = in;
    int *y = inout;
    const tspec_t *t = op_spec;

    ++op_calls;
    if (dt == NULL || *dt != t->t) {
        ++op_bad;
        return;
    }
    for (int e = 0; e < *len; ++e) {
        for (int m = 0; m + 1 < t->n; m += 2) {
            int pa = e * t->ext + t->off[m], pb = e * t->ext + t->off[m + 1];
            int a1 = x[pa], b1 = x[pb], a2 = y[pa], b2 = y[pb];
            y[pa] = a1 * a2;
            y[pb] = a1 * b2 + b1;
        }
    }
}

static void aff_vals(int *v, int n, int r)
{
    for (int k = 0; k < n; k += 2) {
        v[k] = 1 + (r + k / 2) % 2;
        v[k + 1] = r * 3 + k / 2 + 1;
    }
}

/* maps of ranks [lo, hi) composed in rank order, the k-th of (n ints) */
static void aff_expect(int *v, int n, int lo, int hi, int kbase)
{
    int w[512];

    for (int k = 0; k < n; k += 2) {
        v[k] = 1;
        v[k + 1] = 0;
    }
    for (int r = lo; r < hi; ++r) {
        aff_vals(w, kbase + n, r);
        for (int k = 0; k < n; k += 2) {   /* v = v o w_r */
            int a = v[k] * w[kbase + k], b = v[k] * w[kbase + k + 1] + v[k + 1];
            v[k] = a;
            v[k + 1] = b;
        }
    }
}

static void t_userop(const tspec_t *t)
{
    enum { C = 3 };
    int n = C * t->n, v[512], *s = tbuf(t, C * size), *r[8], root = size - 1;
    MPI_Op op;
    MPI_Request req[2];

    op_spec = t;
    op_bad = 0;
    MT_OK(MPI_Op_create(affine, 0, &op));
    aff_vals(v, C * size * t->n, rank);
    tput(s, t, C * size, v);
    for (int i = 0; i < 8; ++i) {
        r[i] = tbuf(t, C);
    }
    tput(r[2], t, C, v);   /* allreduce in place */
    MT_OK(MPI_Reduce(s, r[0], C, t->t, op, root, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(s, r[1], C, t->t, op, MPI_COMM_WORLD));
    MT_OK(MPI_Allreduce(MPI_IN_PLACE, r[2], C, t->t, op, MPI_COMM_WORLD));
    MT_OK(MPI_Iallreduce(s, r[3], C, t->t, op, MPI_COMM_WORLD, &req[0]));
    MT_OK(MPI_Ireduce(s, r[4], C, t->t, op, 0, MPI_COMM_WORLD, &req[1]));
    MT_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    MT_OK(MPI_Scan(s, r[5], C, t->t, op, MPI_COMM_WORLD));
    MT_OK(MPI_Exscan(s, r[6], C, t->t, op, MPI_COMM_WORLD));
    MT_OK(MPI_Reduce_scatter_block(s, r[7], C, t->t, op, MPI_COMM_WORLD));
    MT_EQ(op_bad, 0);
    aff_expect(v, n, 0, size, 0);
    tcheck(r[1], t, C, v, "user op allreduce");
    tcheck(r[2], t, C, v, "user op allreduce in place");
    tcheck(r[3], t, C, v, "user op iallreduce");
    tcheck(r[0], t, C, rank == root ? v : NULL, "user op reduce");
    tcheck(r[4], t, C, rank == 0 ? v : NULL, "user op ireduce");
    aff_expect(v, n, 0, rank + 1, 0);
    tcheck(r[5], t, C, v, "user op scan");
    if (rank > 0) {
        aff_expect(v, n, 0, rank, 0);
        tcheck(r[6], t, C, v, "user op exscan");
    }
    aff_expect(v, n, 0, size, rank * n);
    tcheck(r[7], t, C, v, "user op reduce_scatter_block");
    /* Reduce_local: inout = in o inout, in = rank's maps, inout = rank 0's */
    {
        int *in = tbuf(t, C), *io = tbuf(t, C), a[512], b[512];
        aff_vals(a, n, rank + 1);
        aff_vals(b, n, 0);
        tput(in, t, C, a);
        tput(io, t, C, b);
        MT_OK(MPI_Reduce_local(in, io, C, t->t, op));
        for (int k = 0; k < n; k += 2) {
            int a2 = a[k] * b[k], b2 = a[k] * b[k + 1] + a[k + 1];
            b[k] = a2;
            b[k + 1] = b2;
        }
        tcheck(io, t, C, b, "Reduce_local");
        free(in);
        free(io);
    }
    MT_EQ(op_bad, 0);
    MT_OK(MPI_Op_free(&op));
    free(s);
    for (int i = 0; i < 8; ++i) {
        free(r[i]);
    }
}

/* ---- MINLOC / MAXLOC on a vector of MPI_DOUBLE_INT ------------------------------------ */

typedef struct { double v; int i; } di_t;

static di_t di_of(int r, int k)
{
    di_t p = { (double)((r * 7 + k * 3) % 5), r + 10 * k };
    return p;
}

static void t_minloc(void)
{
    enum { C = 2, EXT = 3, NP = 2 * C };   /* vector(2, 1, 2): pairs 0 and 2 of 3 */
    MPI_Datatype vt;
    di_t s[C * EXT], r[4][C * EXT], sent = { -1.0, -7 };
    MPI_Request req;

    MT_OK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE_INT, &vt));
    MT_OK(MPI_Type_commit(&vt));
    for (int i = 0; i < C * EXT; ++i) {
        s[i] = sent;
        for (int j = 0; j < 4; ++j) {
            r[j][i] = sent;
        }
    }
    for (int k = 0; k < NP; ++k) {
        s[(k / 2) * EXT + (k % 2) * 2] = di_of(rank, k);
    }
    MT_OK(MPI_Allreduce(s, r[0], C, vt, MPI_MINLOC, MPI_COMM_WORLD));
    MT_OK(MPI_Reduce(s, r[1], C, vt, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    MT_OK(MPI_Iallreduce(s, r[2], C, vt, MPI_MINLOC, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_OK(MPI_Scan(s, r[3], C, vt, MPI_MINLOC, MPI_COMM_WORLD));
    for (int k = 0; k < NP; ++k) {
        di_t mn = di_of(0, k), mx = di_of(0, k), sc = di_of(0, k);
        int pos = (k / 2) * EXT + (k % 2) * 2;
        for (int q = 1; q < size; ++q) {
            di_t p = di_of(q, k);
            if (p.v < mn.v || (p.v == mn.v && p.i < mn.i)) {
                mn = p;
            }
            if (p.v > mx.v || (p.v == mx.v && p.i < mx.i)) {
                mx = p;
            }
            if (q <= rank && (p.v < sc.v || (p.v == sc.v && p.i < sc.i))) {
                sc = p;
            }
        }
        if (r[0][pos].v != mn.v || r[0][pos].i != mn.i || r[2][pos].v != mn.v ||
            r[2][pos].i != mn.i) {
            MT_FAIL("minloc pair %d: (%g, %d) / (%g, %d), expected (%g, %d)", k, r[0][pos].v,
                    r[0][pos].i, r[2][pos].v, r[2][pos].i, mn.v, mn.i);
        }
        if (rank == 0 && (r[1][pos].v != mx.v || r[1][pos].i != mx.i)) {
            MT_FAIL("maxloc pair %d: (%g, %d), expected (%g, %d)", k, r[1][pos].v,
                    r[1][pos].i, mx.v, mx.i);
        }
        if (r[3][pos].v != sc.v || r[3][pos].i != sc.i) {
            MT_FAIL("minloc scan pair %d: (%g, %d), expected (%g, %d)", k, r[3][pos].v,
                    r[3][pos].i, sc.v, sc.i);
        }
    }
    for (int e = 0; e < C; ++e) {   /* the gap pair of every element is untouched */
        for (int j = 0; j < 4; ++j) {
            MT_CHECK(r[j][e * EXT + 1].v == sent.v && r[j][e * EXT + 1].i == sent.i);
        }
    }
    MT_OK(MPI_Type_free(&vt));
}

/* ---- intercommunicator reductions ---------------------------------------------------- */

static void t_inter(void)
{
    const tspec_t *vec = &ts[T_VEC], *shf = &ts[T_SHF];
    MPI_Comm local, ic;
    int g = rank % 2, lr, rsize, v[64], *s, *r;

    if (size < 2) {
        return;
    }
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, g, rank, &local));
    MT_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, g == 0 ? 1 : 0, 78, &ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MPI_Comm_rank(local, &lr);
    MPI_Comm_remote_size(ic, &rsize);
    /* allreduce: each group gets the sum of the other group's data */
    s = tbuf(vec, 2);
    r = tbuf(vec, 2);
    for (int k = 0; k < 12; ++k) {
        v[k] = g * 1000 + lr * 10 + k;
    }
    tput(s, vec, 2, v);
    MT_OK(MPI_Allreduce(s, r, 2, vec->t, MPI_SUM, ic));
    for (int k = 0; k < 12; ++k) {
        v[k] = 0;
        for (int j = 0; j < rsize; ++j) {
            v[k] += (1 - g) * 1000 + j * 10 + k;
        }
    }
    tcheck(r, vec, 2, v, "inter allreduce");
    free(s);
    free(r);
    /* reduce_scatter: 6 VEC elements in all, spread over each group's ranks */
    {
        int lsize, rc[64], before = 0, n6 = 6 * vec->n;
        MPI_Comm_size(local, &lsize);
        for (int i = 0; i < lsize; ++i) {
            rc[i] = 6 / lsize + (i < 6 % lsize);
            before += i < lr ? rc[i] : 0;
        }
        s = tbuf(vec, 6);
        r = tbuf(vec, rc[lr]);
        for (int k = 0; k < n6; ++k) {
            v[k] = g * 1000 + lr * 10 + k;
        }
        tput(s, vec, 6, v);
        MT_OK(MPI_Reduce_scatter(s, r, rc, vec->t, MPI_SUM, ic));
        for (int k = 0; k < rc[lr] * vec->n; ++k) {
            v[k] = 0;
            for (int j = 0; j < rsize; ++j) {
                v[k] += (1 - g) * 1000 + j * 10 + before * vec->n + k;
            }
        }
        tcheck(r, vec, rc[lr], v, "inter reduce_scatter");
        free(s);
        free(r);
    }
    /* reduce with the user op, group 1 to group 0's rank 0: remote rank order */
    {
        MPI_Op op;
        int root = g == 1 ? 0 : lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
        op_spec = shf;
        op_bad = 0;
        MT_OK(MPI_Op_create(affine, 0, &op));
        s = tbuf(shf, 3);
        r = tbuf(shf, 3);
        aff_vals(v, 6, lr);
        tput(s, shf, 3, v);
        MT_OK(MPI_Reduce(s, r, 3, shf->t, op, root, ic));
        MT_EQ(op_bad, 0);
        if (root == MPI_ROOT) {
            aff_expect(v, 6, 0, rsize, 0);
            tcheck(r, shf, 3, v, "inter reduce, user op");
        } else {
            tcheck(r, shf, 3, NULL, "inter reduce, not the root");
        }
        free(s);
        free(r);
        MT_OK(MPI_Op_free(&op));
    }
    MT_OK(MPI_Comm_free(&ic));
    MT_OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    types_init();
    for (int i = T_VEC; i < T_COUNT; ++i) {
        t_scans(&ts[i]);
        t_reduce_scatter(&ts[i]);
    }
    t_userop(&ts[T_SHF]);
    t_userop(&ts[T_VEC]);
    t_minloc();
    t_inter();
    types_free();
    MT_PASS("mpi_dt_coll2_red");
    MPI_Finalize();
    return 0;
}
