/*
 * mpi_dt_coll2_move.c: the data-moving collectives that took non-contiguous
 * derived types last (issue 20): alltoallw / ialltoallw (blocking,
 * nonblocking, MPI_IN_PLACE), the nonblocking v-forms (igatherv,
 * iscatterv, iallgatherv incl. in place, ialltoallv, all in flight at
 * once), intercommunicator collectives (bcast, gather, igather, scatter,
 * allgather, iallgatherv, alltoall, ialltoallw) and the neighbourhood ones
 * (allgather, ineighbor_allgatherv, alltoall, alltoallw,
 * ineighbor_alltoallv) on a Cartesian ring and (3+ ranks) a graph ring.
 * Send and receive types always differ (same 12-int signature, different
 * layouts: mpi_dt_coll2.h); every data int is checked against a value
 * computed here, every gap against its sentinel.
 */
#include "mpi_dt_coll2.h"

#define REG 64   /* ints per peer region */

static int rank, size;

static int *region_buf(int n)
{
    int *b = malloc((size_t)(n > 0 ? n : 1) * REG * sizeof(int));

    MT_CHECK(b != NULL);
    for (int i = 0; i < n * REG; ++i) {
        b[i] = SENT;
    }
    return b;
}

/* 12 ints: base + k */
static void vals12(int *v, int base)
{
    for (int k = 0; k < 12; ++k) {
        v[k] = base + k;
    }
}

static const tspec_t *sty(int i)   /* derived send types */
{
    return &ts[1 + i % 4];
}

static const tspec_t *rty(int i)   /* receive types, MPI_INT included */
{
    return &ts[i % 5];
}

/* ---- alltoallw ---------------------------------------------------------------------- */

static void w_arrays(int me, int n, int send, int *cnt, int *dsp, MPI_Datatype *ty)
{
    for (int p = 0; p < n; ++p) {
        const tspec_t *t = send ? sty(me + p) : rty(me + p + 1);
        cnt[p] = 12 / t->n;
        dsp[p] = p * REG * (int)sizeof(int);
        ty[p] = t->t;
    }
}

static void t_alltoallw(int mode)   /* 0 blocking, 1 nonblocking, 2 in place */
{
    int *sb = region_buf(size), *rb = region_buf(size), v[12];
    int *sc = malloc(4 * (size_t)size * sizeof(int)), *sd = sc + size, *rc = sd + size,
        *rd = rc + size;
    MPI_Datatype *st = malloc(2 * (size_t)size * sizeof(MPI_Datatype)), *rt = st + size;
    MPI_Request req;

    w_arrays(rank, size, 1, sc, sd, st);
    w_arrays(rank, size, 0, rc, rd, rt);
    for (int p = 0; p < size; ++p) {
        vals12(v, rank * 1000 + p * 100);
        if (mode == 2) {
            tput(rb + p * REG, rty(rank + p + 1), 12 / rty(rank + p + 1)->n, v);
        } else {
            tput(sb + p * REG, sty(rank + p), 12 / sty(rank + p)->n, v);
        }
    }
    if (mode == 0) {
        MT_OK(MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD));
    } else if (mode == 1) {
        MT_OK(MPI_Ialltoallw(sb, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD, &req));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        MT_OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rb, rc, rd, rt, MPI_COMM_WORLD));
    }
    for (int p = 0; p < size; ++p) {
        vals12(v, p * 1000 + rank * 100);
        tcheck(rb + p * REG, rty(rank + p + 1), 12 / rty(rank + p + 1)->n, v, "alltoallw");
    }
    free(sb);
    free(rb);
    free(sc);
    free(st);
}

/* ---- nonblocking v-forms -------------------------------------------------------------- */

static void t_nb_v(void)
{
    const tspec_t *vec = &ts[T_VEC], *str = &ts[T_STR], *shf = &ts[T_SHF], *idx = &ts[T_IDX];
    int cr = rank % 2 + 1;   /* this rank's multiple of 12 ints */
    int *c = malloc(8 * (size_t)size * sizeof(int)), *d = c + size, *c2 = d + size,
        *d2 = c2 + size, *c3 = d2 + size, *d3 = c3 + size, *c4 = d3 + size, *d4 = c4 + size;
    int *gs = tbuf(vec, 2 * cr), *gr = tbuf(str, 9 * size);             /* igatherv */
    int *ss = tbuf(vec, 5 * size), *sr = tbuf(shf, 6 * cr);             /* iscatterv */
    int *as = tbuf(str, 4 * cr), *ar = tbuf(idx, 7 * size);             /* iallgatherv */
    int *ts_ = tbuf(vec, 3 * size), *tr = tbuf(shf, 7 * size);          /* ialltoallv */
    int *ip = tbuf(idx, 7 * size);                                      /* in place */
    int v[64], w[64];
    MPI_Request req[5];

    for (int p = 0; p < size; ++p) {
        int cp = p % 2 + 1;
        c[p] = 4 * cp;   d[p] = 9 * p;    /* gatherv: STR elements at 9 STR extents */
        c2[p] = 2 * cp;  d2[p] = 5 * p;   /* scatterv: VEC elements */
        c3[p] = 3 * cp;  d3[p] = 7 * p;   /* allgatherv: IDX elements */
        c4[p] = 3 * cr;  d4[p] = 7 * p;   /* alltoallv receive: SHF (what p sends me) */
    }
    for (int k = 0; k < 24; ++k) {
        v[k] = rank * 1000 + k;
    }
    tput(gs, vec, 2 * cr, v);
    tput(as, str, 4 * cr, v);
    tput(ip + 7 * rank * idx->ext, idx, 3 * cr, v);
    if (rank == 0) {
        for (int p = 0; p < size; ++p) {
            for (int k = 0; k < 24; ++k) {
                w[k] = 500000 + p * 1000 + k;
            }
            tput(ss + 5 * p * vec->ext, vec, 2 * (p % 2 + 1), w);
        }
    }
    for (int p = 0; p < size; ++p) {   /* alltoallv: 6 x (p%2+1) ints to p */
        for (int k = 0; k < 12; ++k) {
            w[k] = rank * 1000 + p * 100 + k;
        }
        tput(ts_ + 3 * p * vec->ext, vec, p % 2 + 1, w);
    }
    {
        int sc4[64], sd4[64];
        for (int p = 0; p < size; ++p) {
            sc4[p] = p % 2 + 1;
            sd4[p] = 3 * p;
        }
        MT_OK(MPI_Igatherv(gs, 2 * cr, vec->t, gr, c, d, str->t, 0, MPI_COMM_WORLD, &req[0]));
        MT_OK(MPI_Iscatterv(ss, c2, d2, vec->t, sr, 6 * cr, shf->t, 0, MPI_COMM_WORLD,
                            &req[1]));
        MT_OK(MPI_Iallgatherv(as, 4 * cr, str->t, ar, c3, d3, idx->t, MPI_COMM_WORLD,
                              &req[2]));
        MT_OK(MPI_Ialltoallv(ts_, sc4, sd4, vec->t, tr, c4, d4, shf->t, MPI_COMM_WORLD,
                             &req[3]));
        MT_OK(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ip, c3, d3, idx->t,
                              MPI_COMM_WORLD, &req[4]));
        MT_OK(MPI_Waitall(5, req, MPI_STATUSES_IGNORE));
    }
    for (int p = 0; p < size; ++p) {
        int cp = p % 2 + 1;
        for (int k = 0; k < 24; ++k) {
            v[k] = p * 1000 + k;
        }
        if (rank == 0) {
            tcheck(gr + 9 * p * str->ext, str, 4 * cp, v, "igatherv");
        }
        tcheck(ar + 7 * p * idx->ext, idx, 3 * cp, v, "iallgatherv");
        tcheck(ip + 7 * p * idx->ext, idx, 3 * cp, v, "iallgatherv in place");
        for (int k = 0; k < 12; ++k) {
            w[k] = p * 1000 + rank * 100 + k;
        }
        tcheck(tr + 7 * p * shf->ext, shf, 3 * cr, w, "ialltoallv");
    }
    for (int k = 0; k < 24; ++k) {
        v[k] = 500000 + rank * 1000 + k;
    }
    tcheck(sr, shf, 6 * cr, v, "iscatterv");
    /* alltoallv in place: SHF, 3 x ((rank + p) % 2 + 1) elements per block */
    {
        int ac[64], ad[64], *ab = tbuf(shf, 7 * size);
        for (int p = 0; p < size; ++p) {
            ac[p] = 3 * ((rank + p) % 2 + 1);
            ad[p] = 7 * p;
            for (int k = 0; k < 12; ++k) {
                w[k] = rank * 1000 + p * 100 + k;
            }
            tput(ab + ad[p] * shf->ext, shf, ac[p], w);
        }
        MT_OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ab, ac, ad, shf->t,
                            MPI_COMM_WORLD));
        for (int p = 0; p < size; ++p) {
            for (int k = 0; k < 12; ++k) {
                w[k] = p * 1000 + rank * 100 + k;
            }
            tcheck(ab + ad[p] * shf->ext, shf, ac[p], w, "alltoallv in place");
        }
        free(ab);
    }
    free(c); free(gs); free(gr); free(ss); free(sr); free(as); free(ar); free(ts_); free(tr);
    free(ip);
}

/* ---- intercommunicators ----------------------------------------------------------------- */

static void t_inter(void)
{
    MPI_Comm local, ic;
    int g = rank % 2, lr, lsize, rsize, v[64], *b, *r, *s;
    const tspec_t *vec = &ts[T_VEC], *str = &ts[T_STR], *idx = &ts[T_IDX], *shf = &ts[T_SHF];
    MPI_Request req;

    if (size < 2) {
        return;
    }
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, g, rank, &local));
    MT_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, g == 0 ? 1 : 0, 77, &ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MPI_Comm_rank(local, &lr);
    MPI_Comm_size(local, &lsize);
    MPI_Comm_remote_size(ic, &rsize);

    /* bcast: group 0's rank 0 to group 1 (VEC x 2 -> STR x 4) */
    b = tbuf(str, 4);
    vals12(v, 500);
    if (g == 0) {
        tput(b, vec, 2, v);
        MT_OK(MPI_Bcast(b, 2, vec->t, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, ic));
        tcheck(b, vec, 2, lr == 0 ? v : NULL, "inter bcast root side");
    } else {
        MT_OK(MPI_Bcast(b, 4, str->t, 0, ic));
        tcheck(b, str, 4, v, "inter bcast");
    }
    free(b);

    /* allgather: SHF x 6 out, IDX x 3 per remote rank in */
    s = tbuf(shf, 6);
    r = tbuf(idx, 3 * rsize);
    vals12(v, g * 10000 + lr * 100);
    tput(s, shf, 6, v);
    MT_OK(MPI_Allgather(s, 6, shf->t, r, 3, idx->t, ic));
    for (int j = 0; j < rsize; ++j) {
        vals12(v, (1 - g) * 10000 + j * 100);
        tcheck(r + 3 * j * idx->ext, idx, 3, v, "inter allgather");
    }
    free(s);
    free(r);

    /* alltoall: VEC x 2 to each remote rank, STR x 4 from each */
    s = tbuf(vec, 2 * rsize);
    r = tbuf(str, 4 * rsize);
    for (int j = 0; j < rsize; ++j) {
        vals12(v, g * 100000 + lr * 1000 + j * 100);
        tput(s + 2 * j * vec->ext, vec, 2, v);
    }
    MT_OK(MPI_Alltoall(s, 2, vec->t, r, 4, str->t, ic));
    for (int j = 0; j < rsize; ++j) {
        vals12(v, (1 - g) * 100000 + j * 1000 + lr * 100);
        tcheck(r + 4 * j * str->ext, str, 4, v, "inter alltoall");
    }
    free(s);
    free(r);

    /* gather (blocking, then nonblocking) to group 0's rank 0: VEC x 2 -> IDX x 3 */
    for (int nb = 0; nb < 2; ++nb) {
        s = tbuf(vec, 2);
        r = tbuf(idx, 3 * rsize);
        vals12(v, 7000 + lr * 100 + nb);
        tput(s, vec, 2, v);
        int root = g == 1 ? 0 : lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
        if (nb) {
            MT_OK(MPI_Igather(s, 2, vec->t, r, 3, idx->t, root, ic, &req));
            MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MT_OK(MPI_Gather(s, 2, vec->t, r, 3, idx->t, root, ic));
        }
        for (int j = 0; g == 0 && lr == 0 && j < rsize; ++j) {
            vals12(v, 7000 + j * 100 + nb);
            tcheck(r + 3 * j * idx->ext, idx, 3, v, "inter gather");
        }
        if (!(g == 0 && lr == 0)) {
            tcheck(r, idx, 3 * rsize, NULL, "inter gather, not the root");
        }
        free(s);
        free(r);
    }

    /* scatter from group 1's rank 0 (MPI_ROOT) to group 0: IDX x 3 -> SHF x 6 */
    s = tbuf(idx, 3 * rsize);
    r = tbuf(shf, 6);
    {
        int root = g == 0 ? 0 : lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
        for (int j = 0; root == MPI_ROOT && j < rsize; ++j) {
            vals12(v, 8000 + j * 100);
            tput(s + 3 * j * idx->ext, idx, 3, v);
        }
        MT_OK(MPI_Scatter(s, 3, idx->t, r, 6, shf->t, root, ic));
        vals12(v, 8000 + lr * 100);
        tcheck(r, shf, 6, g == 0 ? v : NULL, "inter scatter");
    }
    free(s);
    free(r);

    /* iallgatherv: VEC x 2 out, STR x 4 per remote rank in at 5 STR extents */
    {
        int c[64], d[64];
        s = tbuf(vec, 2);
        r = tbuf(str, 5 * rsize);
        vals12(v, g * 10000 + lr * 100 + 40);
        tput(s, vec, 2, v);
        for (int j = 0; j < rsize; ++j) {
            c[j] = 4;
            d[j] = 5 * j;
        }
        MT_OK(MPI_Iallgatherv(s, 2, vec->t, r, c, d, str->t, ic, &req));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int j = 0; j < rsize; ++j) {
            vals12(v, (1 - g) * 10000 + j * 100 + 40);
            tcheck(r + 5 * j * str->ext, str, 4, v, "inter iallgatherv");
        }
        free(s);
        free(r);
    }

    /* ialltoallw: per remote rank j, send sty(lr + j), receive rty(...) */
    {
        int *sb = region_buf(rsize), *rb = region_buf(rsize);
        int sc[64], sd[64], rc[64], rd[64];
        MPI_Datatype st[64], rt[64];

        for (int j = 0; j < rsize; ++j) {
            const tspec_t *a = sty(g + lr + j), *bt = rty(lr + j);
            sc[j] = 12 / a->n; sd[j] = j * REG * (int)sizeof(int); st[j] = a->t;
            rc[j] = 12 / bt->n; rd[j] = j * REG * (int)sizeof(int); rt[j] = bt->t;
            vals12(v, g * 100000 + lr * 1000 + j * 100);
            tput(sb + j * REG, a, sc[j], v);
        }
        MT_OK(MPI_Ialltoallw(sb, sc, sd, st, rb, rc, rd, rt, ic, &req));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int j = 0; j < rsize; ++j) {
            vals12(v, (1 - g) * 100000 + j * 1000 + lr * 100);
            tcheck(rb + j * REG, rty(lr + j), rc[j], v, "inter ialltoallw");
        }
        free(sb);
        free(rb);
    }
    (void)lsize;
    MT_OK(MPI_Comm_free(&ic));
    MT_OK(MPI_Comm_free(&local));
}

/* ---- neighbourhood ------------------------------------------------------------------------ */

/*
 * Two neighbours per rank, slot 0 and 1, and the sender's slot that reaches
 * slot j is 1 - j (a ring: left/right in a Cartesian dimension, or a graph
 * whose neighbour lists are (i + 1, i - 1)).
 */
static void t_nbr_comm(MPI_Comm c, const int src[2], const char *what)
{
    const tspec_t *vec = &ts[T_VEC], *idx = &ts[T_IDX], *shf = &ts[T_SHF];
    int *s, *r, v[12], sc[2], sd[2], rc[2], rd[2];
    MPI_Datatype st[2], rt[2];
    MPI_Request req;

    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    /* allgather: VEC x 2 out, IDX x 3 per neighbour in */
    s = tbuf(vec, 2);
    r = tbuf(idx, 6);
    vals12(v, rank * 1000);
    tput(s, vec, 2, v);
    MT_OK(MPI_Neighbor_allgather(s, 2, vec->t, r, 3, idx->t, c));
    for (int j = 0; j < 2; ++j) {
        vals12(v, src[j] * 1000);
        tcheck(r + 3 * j * idx->ext, idx, 3, v, what);
    }
    free(s);
    free(r);

    /* alltoallw: slot j sends sty(j) and receives rty(j + 2) */
    s = region_buf(2);
    r = region_buf(2);
    for (int j = 0; j < 2; ++j) {
        sc[j] = 12 / sty(j)->n; sd[j] = j * REG * (int)sizeof(int); st[j] = sty(j)->t;
        rc[j] = 12 / rty(j + 2)->n; rd[j] = j * REG * (int)sizeof(int); rt[j] = rty(j + 2)->t;
        vals12(v, rank * 1000 + j * 100);
        tput(s + j * REG, sty(j), sc[j], v);
    }
    {
        MPI_Aint sda[2] = { sd[0], sd[1] }, rda[2] = { rd[0], rd[1] };
        MT_OK(MPI_Neighbor_alltoallw(s, sc, sda, st, r, rc, rda, rt, c));
    }
    for (int j = 0; j < 2; ++j) {
        vals12(v, src[j] * 1000 + (1 - j) * 100);
        tcheck(r + j * REG, rty(j + 2), rc[j], v, what);
    }
    free(s);
    free(r);

    /* alltoall: STR x 4 per slot out, VEC x 2 per slot in */
    s = tbuf(&ts[T_STR], 8);
    r = tbuf(vec, 4);
    for (int j = 0; j < 2; ++j) {
        vals12(v, rank * 1000 + j * 100 + 20);
        tput(s + 4 * j * ts[T_STR].ext, &ts[T_STR], 4, v);
    }
    MT_OK(MPI_Neighbor_alltoall(s, 4, ts[T_STR].t, r, 2, vec->t, c));
    for (int j = 0; j < 2; ++j) {
        vals12(v, src[j] * 1000 + (1 - j) * 100 + 20);
        tcheck(r + 2 * j * vec->ext, vec, 2, v, what);
    }
    free(s);
    free(r);

    /* ineighbor_allgatherv: IDX x 3 out, SHF x 6 per slot in, at 7 SHF extents */
    s = tbuf(idx, 3);
    r = tbuf(shf, 14);
    vals12(v, rank * 1000 + 30);
    tput(s, idx, 3, v);
    rc[0] = rc[1] = 6;
    rd[0] = 0;
    rd[1] = 7;
    MT_OK(MPI_Ineighbor_allgatherv(s, 3, idx->t, r, rc, rd, shf->t, c, &req));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int j = 0; j < 2; ++j) {
        vals12(v, src[j] * 1000 + 30);
        tcheck(r + rd[j] * shf->ext, shf, 6, v, what);
    }
    free(s);
    free(r);

    /* ineighbor_alltoallv: SHF x 6 per slot out, VEC x 2 per slot in */
    s = tbuf(shf, 20);
    r = tbuf(vec, 6);
    for (int j = 0; j < 2; ++j) {
        sc[j] = 6; sd[j] = 10 * j;
        rc[j] = 2; rd[j] = 3 * j;
        vals12(v, rank * 1000 + j * 100 + 50);
        tput(s + 10 * j * shf->ext, shf, 6, v);
    }
    MT_OK(MPI_Ineighbor_alltoallv(s, sc, sd, shf->t, r, rc, rd, vec->t, c, &req));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int j = 0; j < 2; ++j) {
        vals12(v, src[j] * 1000 + (1 - j) * 100 + 50);
        tcheck(r + 3 * j * vec->ext, vec, 2, v, what);
    }
    free(s);
    free(r);
}

static void t_nbr(void)
{
    int dims[1] = { size }, periods[1] = { 1 }, src[2];
    MPI_Comm cart, graph;

    MT_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    MT_OK(MPI_Cart_shift(cart, 0, 1, &src[0], &src[1]));
    t_nbr_comm(cart, src, "cartesian ring");
    MT_OK(MPI_Comm_free(&cart));
    if (size >= 3) {
        int *index = malloc((size_t)size * sizeof(int)), *edges = malloc(2 * (size_t)size *
                                                                          sizeof(int));
        for (int i = 0; i < size; ++i) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i + 1) % size;
            edges[2 * i + 1] = (i - 1 + size) % size;
        }
        MT_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
        src[0] = (rank + 1) % size;
        src[1] = (rank - 1 + size) % size;
        t_nbr_comm(graph, src, "graph ring");
        MT_OK(MPI_Comm_free(&graph));
        free(index);
        free(edges);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    types_init();
    for (int mode = 0; mode < 3; ++mode) {
        t_alltoallw(mode);
    }
    t_nb_v();
    t_inter();
    t_nbr();
    types_free();
    MT_PASS("mpi_dt_coll2_move");
    MPI_Finalize();
    return 0;
}
