/*
 * mpi_intercomm.c: intercommunicators at any rank count (>= 2 to do work).
 *
 * Three splits of MPI_COMM_WORLD into sides 0 and 1: evens/odds, first
 * half/second half, and rank 0/the rest (odd splits like 1+2, 2+3, 3+4,
 * 1+7). For each: MPI_Intercomm_create over WORLD, then
 *   queries     test_inter, size/rank (local), remote_size, remote_group
 *   p2p         every process to every remote process, received with
 *               MPI_ANY_SOURCE; MPI_SOURCE is the remote rank
 *   collectives barrier, bcast both ways (MPI_ROOT/MPI_PROC_NULL), gather,
 *               scatter, allgather, alltoall, (v) forms, reduce, allreduce,
 *               reduce_scatter_block: every value checked
 *   merge       high = side, high = !side, high equal (lower world rank's
 *               group first), with an allreduce and a ring on the result
 *   dup, split (by local parity; an empty remote side gives MPI_COMM_NULL)
 *   errors      bad local/remote leader (MPI_ERR_RANK), bad root
 *               (MPI_ERR_ROOT), remote_size of an intracomm and a
 *               nonblocking collective on an intercomm (MPI_ERR_COMM)
 */
#include "mpi_test_util.h"

#include <stdlib.h>
#include <string.h>

static int me, np;

/* MT_TRACE=1: say which step each rank is in (to find a hang) */
#define TRACE(step) \
    do { if (getenv("MT_TRACE")) fprintf(stderr, "[%d] mode %d: %s\n", me, mode, step); } while (0)

/* use_nb: the collectives below run as their I-forms + MPI_Wait */
static int use_nb;

#define NB_WRAP(call, icall)                                                       \
    do {                                                                           \
        MPI_Request r_;                                                            \
        int rc_;                                                                   \
        if (!use_nb) {                                                             \
            return call;                                                           \
        }                                                                          \
        rc_ = icall;                                                               \
        return rc_ != MPI_SUCCESS ? rc_ : MPI_Wait(&r_, MPI_STATUS_IGNORE);         \
    } while (0)

static int X_Barrier(MPI_Comm c)
{
    NB_WRAP(MPI_Barrier(c), MPI_Ibarrier(c, &r_));
}

static int X_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    NB_WRAP(MPI_Bcast(b, n, t, root, c), MPI_Ibcast(b, n, t, root, c, &r_));
}

static int X_Gather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                    MPI_Datatype rt, int root, MPI_Comm c)
{
    NB_WRAP(MPI_Gather(sb, sn, st, rb, rn, rt, root, c),
            MPI_Igather(sb, sn, st, rb, rn, rt, root, c, &r_));
}

static int X_Scatter(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                     MPI_Datatype rt, int root, MPI_Comm c)
{
    NB_WRAP(MPI_Scatter(sb, sn, st, rb, rn, rt, root, c),
            MPI_Iscatter(sb, sn, st, rb, rn, rt, root, c, &r_));
}

static int X_Gatherv(const void *sb, int sn, MPI_Datatype st, void *rb, const int *rn,
                     const int *d, MPI_Datatype rt, int root, MPI_Comm c)
{
    NB_WRAP(MPI_Gatherv(sb, sn, st, rb, rn, d, rt, root, c),
            MPI_Igatherv(sb, sn, st, rb, rn, d, rt, root, c, &r_));
}

static int X_Scatterv(const void *sb, const int *sn, const int *d, MPI_Datatype st, void *rb,
                      int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
    NB_WRAP(MPI_Scatterv(sb, sn, d, st, rb, rn, rt, root, c),
            MPI_Iscatterv(sb, sn, d, st, rb, rn, rt, root, c, &r_));
}

static int X_Allgather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                       MPI_Datatype rt, MPI_Comm c)
{
    NB_WRAP(MPI_Allgather(sb, sn, st, rb, rn, rt, c),
            MPI_Iallgather(sb, sn, st, rb, rn, rt, c, &r_));
}

static int X_Allgatherv(const void *sb, int sn, MPI_Datatype st, void *rb, const int *rn,
                        const int *d, MPI_Datatype rt, MPI_Comm c)
{
    NB_WRAP(MPI_Allgatherv(sb, sn, st, rb, rn, d, rt, c),
            MPI_Iallgatherv(sb, sn, st, rb, rn, d, rt, c, &r_));
}

static int X_Alltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                      MPI_Datatype rt, MPI_Comm c)
{
    NB_WRAP(MPI_Alltoall(sb, sn, st, rb, rn, rt, c),
            MPI_Ialltoall(sb, sn, st, rb, rn, rt, c, &r_));
}

static int X_Alltoallv(const void *sb, const int *sn, const int *sd, MPI_Datatype st,
                       void *rb, const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm c)
{
    NB_WRAP(MPI_Alltoallv(sb, sn, sd, st, rb, rn, rd, rt, c),
            MPI_Ialltoallv(sb, sn, sd, st, rb, rn, rd, rt, c, &r_));
}

static int X_Alltoallw(const void *sb, const int *sn, const int *sd, const MPI_Datatype *st,
                       void *rb, const int *rn, const int *rd, const MPI_Datatype *rt,
                       MPI_Comm c)
{
    NB_WRAP(MPI_Alltoallw(sb, sn, sd, st, rb, rn, rd, rt, c),
            MPI_Ialltoallw(sb, sn, sd, st, rb, rn, rd, rt, c, &r_));
}

static int X_Reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root,
                    MPI_Comm c)
{
    NB_WRAP(MPI_Reduce(sb, rb, n, t, op, root, c),
            MPI_Ireduce(sb, rb, n, t, op, root, c, &r_));
}

static int X_Allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                       MPI_Comm c)
{
    NB_WRAP(MPI_Allreduce(sb, rb, n, t, op, c), MPI_Iallreduce(sb, rb, n, t, op, c, &r_));
}

static int X_Reduce_scatter_block(const void *sb, void *rb, int n, MPI_Datatype t,
                                  MPI_Op op, MPI_Comm c)
{
    NB_WRAP(MPI_Reduce_scatter_block(sb, rb, n, t, op, c),
            MPI_Ireduce_scatter_block(sb, rb, n, t, op, c, &r_));
}

static int X_Reduce_scatter(const void *sb, void *rb, const int *n, MPI_Datatype t,
                            MPI_Op op, MPI_Comm c)
{
    NB_WRAP(MPI_Reduce_scatter(sb, rb, n, t, op, c),
            MPI_Ireduce_scatter(sb, rb, n, t, op, c, &r_));
}

/* Which side world rank @p w is on in split @p mode. */
static int side_of(int mode, int w)
{
    switch (mode) {
    case 0:  return w % 2;
    case 1:  return w >= np / 2;
    default: return w != 0;
    }
}

/* World ranks of side @p s in order; count returned. */
static int side_members(int mode, int s, int *out)
{
    int n = 0;

    for (int w = 0; w < np; ++w) {
        if (side_of(mode, w) == s) {
            out[n++] = w;
        }
    }
    return n;
}

typedef struct {
    MPI_Comm ic;
    int side, lrank, lsize, rsize;
    int lw[64], rw[64];   /* world ranks of local / remote ranks */
} ictx_t;

static void check_queries(ictx_t *c)
{
    int flag = 0, n = 0, tr[64], idx[64];
    MPI_Group g, gw;

    MT_OK(MPI_Comm_test_inter(c->ic, &flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Comm_size(c->ic, &n));
    MT_EQ(n, c->lsize);
    MT_OK(MPI_Comm_rank(c->ic, &n));
    MT_EQ(n, c->lrank);
    MT_OK(MPI_Comm_remote_size(c->ic, &n));
    MT_EQ(n, c->rsize);
    MT_OK(MPI_Comm_remote_group(c->ic, &g));
    MT_OK(MPI_Group_size(g, &n));
    MT_EQ(n, c->rsize);
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &gw));
    for (int i = 0; i < c->rsize; ++i) {
        idx[i] = i;
    }
    MT_OK(MPI_Group_translate_ranks(g, c->rsize, idx, gw, tr));
    for (int i = 0; i < c->rsize; ++i) {
        MT_EQ(tr[i], c->rw[i]);
    }
    MT_OK(MPI_Group_free(&g));
    MT_OK(MPI_Comm_group(c->ic, &g));
    MT_OK(MPI_Group_size(g, &n));
    MT_EQ(n, c->lsize);
    MT_OK(MPI_Group_free(&g));
    MT_OK(MPI_Group_free(&gw));
}

#define BIG (1 << 20)

static void check_p2p_large(MPI_Comm ic, const ictx_t *c)
{
    int *big = malloc(BIG * sizeof(int)), *out = malloc(BIG * sizeof(int)), count = -1;
    int flag = 0;
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st;

    if (c->lrank == 0) {   /* nonblocking: at 1+1 each process sends and receives */
        for (int i = 0; i < BIG; ++i) {
            out[i] = me + i;
        }
        MT_OK(MPI_Isend(out, BIG, MPI_INT, c->rsize - 1, 11, ic, &rq));
    }
    if (c->lrank == c->lsize - 1) {
        MT_OK(MPI_Probe(MPI_ANY_SOURCE, 11, ic, &st));
        MT_EQ(st.MPI_SOURCE, 0);
        MT_OK(MPI_Get_count(&st, MPI_INT, &count));
        MT_EQ(count, BIG);
        memset(big, 0, BIG * sizeof(int));
        MT_OK(MPI_Recv(big, BIG, MPI_INT, 0, 11, ic, &st));
        for (int i = 0; i < BIG; i += 4099) {
            MT_EQ(big[i], c->rw[0] + i);
        }
        MT_OK(MPI_Iprobe(MPI_ANY_SOURCE, 11, ic, &flag, &st));
        MT_EQ(flag, 0);
    }
    MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    free(big);
    free(out);
}

static void check_p2p(MPI_Comm ic, const ictx_t *c)
{
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)c->rsize);
    int *out = malloc(sizeof(int) * (size_t)c->rsize), seen[64] = {0};

    for (int j = 0; j < c->rsize; ++j) {
        out[j] = me * 100 + j;
        MT_OK(MPI_Isend(&out[j], 1, MPI_INT, j, 7, ic, &rq[j]));
    }
    for (int j = 0; j < c->rsize; ++j) {
        MPI_Status st;
        int v = -1;
        MT_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, ic, &st));
        MT_CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < c->rsize);
        MT_EQ(v, c->rw[st.MPI_SOURCE] * 100 + c->lrank);
        MT_EQ(seen[st.MPI_SOURCE]++, 0);
    }
    MT_OK(MPI_Waitall(c->rsize, rq, MPI_STATUSES_IGNORE));
    /* a named source too: remote rank 0 -> my rank 0, both ways */
    if (c->lrank == 0) {
        int v = me, got = -1;
        MPI_Status st;
        MT_OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 9, &got, 1, MPI_INT, 0, 9, ic, &st));
        MT_EQ(got, c->rw[0]);
        MT_EQ(st.MPI_SOURCE, 0);
    }
    /* a large (rendezvous) message and a probe: my rank 0 <-> remote last rank */
    check_p2p_large(ic, c);
    free(rq);
    free(out);
}

static int root_arg(const ictx_t *c, int root_side, int root)
{
    if (c->side == root_side) {
        return c->lrank == root ? MPI_ROOT : MPI_PROC_NULL;
    }
    return root;
}

static void check_bcast(const ictx_t *c, int root_side, int root)
{
    int buf[3] = {-1, -1, -1}, w_root;

    w_root = c->side == root_side ? c->lw[root] : c->rw[root];
    if (c->side == root_side && c->lrank == root) {
        for (int i = 0; i < 3; ++i) {
            buf[i] = 1000 * i + me;
        }
    }
    MT_OK(X_Bcast(buf, 3, MPI_INT, root_arg(c, root_side, root), c->ic));
    for (int i = 0; i < 3; ++i) {
        if (c->side != root_side || c->lrank == root) {
            MT_EQ(buf[i], 1000 * i + w_root);
        } else {
            MT_EQ(buf[i], -1);
        }
    }
}

static void check_rooted(const ictx_t *c, int root_side, int root)
{
    int ra = root_arg(c, root_side, root), amroot = ra == MPI_ROOT;
    int mine[2] = {me, 2 * me}, all[128], cnt[64], dsp[64], one[2] = {-1, -1};

    /* gather: the root gets {w, 2w} of every remote rank */
    memset(all, 0xff, sizeof(all));
    MT_OK(X_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, ra, c->ic));
    for (int j = 0; amroot && j < c->rsize; ++j) {
        MT_EQ(all[2 * j], c->rw[j]);
        MT_EQ(all[2 * j + 1], 2 * c->rw[j]);
    }
    /* scatter: remote rank j gets {j, root's world} */
    for (int j = 0; j < c->rsize; ++j) {
        all[2 * j] = j;
        all[2 * j + 1] = me;
    }
    MT_OK(X_Scatter(all, 2, MPI_INT, one, 2, MPI_INT, ra, c->ic));
    if (c->side != root_side) {
        MT_EQ(one[0], c->lrank);
        MT_EQ(one[1], c->rw[root]);
    }
    /* gatherv: remote rank j sends j + 1 copies of its world rank, blocks reversed */
    for (int j = 0; j < c->rsize; ++j) {
        cnt[j] = j + 1;
    }
    for (int j = c->rsize - 1, off = 0; j >= 0; --j) {
        dsp[j] = off;
        off += cnt[j];
    }
    {
        int sendv[64];
        for (int k = 0; k <= c->lrank; ++k) {
            sendv[k] = me;
        }
        memset(all, 0xff, sizeof(all));
        MT_OK(X_Gatherv(sendv, c->lrank + 1, MPI_INT, all, cnt, dsp, MPI_INT, ra, c->ic));
        for (int j = 0; amroot && j < c->rsize; ++j) {
            for (int k = 0; k < cnt[j]; ++k) {
                MT_EQ(all[dsp[j] + k], c->rw[j]);
            }
        }
        /* scatterv back: remote rank j gets j + 1 values 7000 + j */
        for (int j = 0; j < c->rsize; ++j) {
            for (int k = 0; k < cnt[j]; ++k) {
                all[dsp[j] + k] = 7000 + j;
            }
        }
        memset(sendv, 0, sizeof(sendv));
        MT_OK(X_Scatterv(all, cnt, dsp, MPI_INT, sendv, c->lrank + 1, MPI_INT, ra, c->ic));
        for (int k = 0; c->side != root_side && k <= c->lrank; ++k) {
            MT_EQ(sendv[k], 7000 + c->lrank);
        }
    }
}

static void check_all(const ictx_t *c)
{
    int all[128], out[64], cnt[64], dsp[64], sdsp[64], sum = 0, got = -1, mx = -1;

    MT_OK(X_Barrier(c->ic));
    MT_OK(X_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, c->ic));
    for (int j = 0; j < c->rsize; ++j) {
        MT_EQ(all[j], c->rw[j]);
        out[j] = me * 1000 + j;
        cnt[j] = 1;
        dsp[j] = c->rsize - 1 - j;
        sum += c->rw[j];
    }
    MT_OK(X_Allgatherv(&me, 1, MPI_INT, all, cnt, dsp, MPI_INT, c->ic));
    for (int j = 0; j < c->rsize; ++j) {
        MT_EQ(all[c->rsize - 1 - j], c->rw[j]);
    }
    MT_OK(X_Alltoall(out, 1, MPI_INT, all, 1, MPI_INT, c->ic));
    for (int j = 0; j < c->rsize; ++j) {
        MT_EQ(all[j], c->rw[j] * 1000 + c->lrank);
    }
    for (int j = 0; j < c->rsize; ++j) {
        sdsp[j] = j;
    }
    MT_OK(X_Alltoallv(out, cnt, sdsp, MPI_INT, all, cnt, dsp, MPI_INT, c->ic));
    for (int j = 0; j < c->rsize; ++j) {
        MT_EQ(all[c->rsize - 1 - j], c->rw[j] * 1000 + c->lrank);
    }
    {   /* alltoallw: the same exchange, byte displacements, per-peer types */
        MPI_Datatype ts[64];
        int bs[64], bd[64];
        for (int j = 0; j < c->rsize; ++j) {
            ts[j] = MPI_INT;
            bs[j] = j * (int)sizeof(int);
            bd[j] = (c->rsize - 1 - j) * (int)sizeof(int);
            all[j] = -1;
        }
        MT_OK(X_Alltoallw(out, cnt, bs, ts, all, cnt, bd, ts, c->ic));
        for (int j = 0; j < c->rsize; ++j) {
            MT_EQ(all[c->rsize - 1 - j], c->rw[j] * 1000 + c->lrank);
        }
    }
    MT_OK(X_Allreduce(&me, &got, 1, MPI_INT, MPI_SUM, c->ic));
    MT_EQ(got, sum);
    MT_OK(X_Allreduce(&me, &mx, 1, MPI_INT, MPI_MAX, c->ic));
    MT_EQ(mx, c->rw[c->rsize - 1]);
}

/*
 * Reduce_scatter with per-rank counts: both groups' vectors have the same
 * length T (MPI-3.1 5.10.1), the sum of each group's own counts; local rank
 * i gets (i + 1) * R(R + 1) elements of the remote group's reduced vector,
 * so T = L(L + 1)R(R + 1)/2 on both sides.
 */
static void check_reduce_scatter(const ictx_t *c, int sum)
{
    int unit = c->rsize * (c->rsize + 1), mine = (c->lrank + 1) * unit;
    int total = c->lsize * (c->lsize + 1) / 2 * unit, off = c->lrank * (c->lrank + 1) / 2 * unit;
    int *counts = malloc(sizeof(int) * (size_t)c->lsize);
    int *sb = malloc(sizeof(int) * (size_t)total), *rb = malloc(sizeof(int) * (size_t)mine);

    for (int i = 0; i < c->lsize; ++i) {
        counts[i] = (i + 1) * unit;
    }
    for (int k = 0; k < total; ++k) {
        sb[k] = me + k;
    }
    MT_OK(X_Reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, c->ic));
    for (int k = 0; k < mine; ++k) {
        MT_EQ(rb[k], sum + c->rsize * (off + k));
    }
    free(counts);
    free(sb);
    free(rb);
}

/* Reduce to root; reduce_scatter_block (totals lsize * rsize on both sides). */
static void check_reductions(const ictx_t *c, int root_side, int root)
{
    int ra = root_arg(c, root_side, root), got = -1, sum = 0, n = c->lsize * c->rsize;
    int *sb = malloc(sizeof(int) * (size_t)n), *rb = malloc(sizeof(int) * (size_t)n);

    for (int j = 0; j < c->rsize; ++j) {
        sum += c->rw[j];
    }
    MT_OK(X_Reduce(&me, &got, 1, MPI_INT, MPI_SUM, ra, c->ic));
    if (ra == MPI_ROOT) {
        MT_EQ(got, sum);
    } else {
        MT_EQ(got, -1);
    }
    for (int k = 0; k < n; ++k) {
        sb[k] = me + k;
    }
    MT_OK(X_Reduce_scatter_block(sb, rb, c->rsize, MPI_INT, MPI_SUM, c->ic));
    for (int k = 0; k < c->rsize; ++k) {
        MT_EQ(rb[k], sum + c->rsize * (c->lrank * c->rsize + k));
    }
    free(sb);
    free(rb);
    check_reduce_scatter(c, sum);
}

/* The merged comm holds want[] in order; allreduce and a ring work on it. */
static void check_merged(MPI_Comm m, const int want[])
{
    int size, rank, sum = -1, got = -1;

    MT_OK(MPI_Comm_size(m, &size));
    MT_EQ(size, np);
    MT_OK(MPI_Comm_rank(m, &rank));
    MT_EQ(want[rank], me);
    MT_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, m));
    MT_EQ(sum, np * (np - 1) / 2);
    MT_OK(MPI_Sendrecv(&me, 1, MPI_INT, (rank + 1) % np, 3, &got, 1, MPI_INT,
                       (rank + np - 1) % np, 3, m, MPI_STATUS_IGNORE));
    MT_EQ(got, want[(rank + np - 1) % np]);
}

static void check_merge(const ictx_t *c)
{
    int want[64], n = 0, hi[3] = {c->side, !c->side, 0};
    int first[3] = {0, 1, c->lw[0] < c->rw[0] ? c->side : !c->side};
    MPI_Comm m;

    for (int k = 0; k < 3; ++k) {
        const int *a = c->side == first[k] ? c->lw : c->rw;
        const int *b = c->side == first[k] ? c->rw : c->lw;
        int na = c->side == first[k] ? c->lsize : c->rsize;
        n = 0;
        for (int i = 0; i < na; ++i) {
            want[n++] = a[i];
        }
        for (int i = 0; n < np; ++i) {
            want[n++] = b[i];
        }
        MT_OK(MPI_Intercomm_merge(c->ic, hi[k], &m));
        check_merged(m, want);
        MT_OK(MPI_Comm_free(&m));
    }
}

static void check_dup_split(ictx_t *c)
{
    ictx_t d = *c;
    MPI_Comm s;
    int rs = 0, ls = 0, sum = 0, got = -1;

    MT_OK(MPI_Comm_dup(c->ic, &d.ic));
    check_p2p(d.ic, &d);
    check_all(&d);
    MT_OK(MPI_Comm_free(&d.ic));
    MT_EQ(d.ic == MPI_COMM_NULL, 1);
    /* split by local parity, key reverses the order */
    /* a color on one side only, MPI_UNDEFINED on the other: MPI_COMM_NULL everywhere */
    MT_OK(MPI_Comm_split(c->ic, c->side == 0 ? 5 : MPI_UNDEFINED, 0, &s));
    MT_EQ(s == MPI_COMM_NULL, 1);
    MT_OK(MPI_Comm_split(c->ic, c->lrank % 2, -c->lrank, &s));
    for (int j = c->rsize - 1; j >= 0; --j) {
        if (j % 2 == c->lrank % 2) {
            sum += c->rw[j];
            ++rs;
        }
    }
    for (int i = 0; i < c->lsize; ++i) {
        ls += i % 2 == c->lrank % 2;
    }
    if (rs == 0) {
        MT_EQ(s == MPI_COMM_NULL, 1);
        return;
    }
    MT_OK(MPI_Comm_remote_size(s, &got));
    MT_EQ(got, rs);
    MT_OK(MPI_Comm_size(s, &got));
    MT_EQ(got, ls);
    MT_OK(MPI_Allreduce(&me, &got, 1, MPI_INT, MPI_SUM, s));
    MT_EQ(got, sum);
    MT_OK(MPI_Comm_free(&s));
}

/* compare, idup overlapped with a collective, Comm_create (MPI-2.2) on the intercomm. */
static void check_more(const ictx_t *c, MPI_Comm local)
{
    MPI_Comm d = MPI_COMM_NULL, cr;
    MPI_Request r[2];
    MPI_Group lg, sub;
    int res = -1, got = -1, sum = 0, flag = 0, keep, rkeep, excl;

    MT_OK(MPI_Comm_compare(c->ic, c->ic, &res));
    MT_EQ(res, MPI_IDENT);
    MT_OK(MPI_Comm_compare(c->ic, local, &res));
    MT_EQ(res, MPI_UNEQUAL);
    for (int j = 0; j < c->rsize; ++j) {
        sum += c->rw[j];
    }
    MT_OK(MPI_Comm_idup(c->ic, &d, &r[0]));
    MT_OK(MPI_Iallreduce(&me, &got, 1, MPI_INT, MPI_SUM, c->ic, &r[1]));
    MT_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    MT_EQ(got, sum);
    MT_OK(MPI_Comm_test_inter(d, &flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Comm_compare(c->ic, d, &res));
    MT_EQ(res, MPI_CONGRUENT);
    got = -1;
    MT_OK(MPI_Allreduce(&me, &got, 1, MPI_INT, MPI_SUM, d));
    MT_EQ(got, sum);
    check_p2p(d, c);
    MT_OK(MPI_Comm_free(&d));
    /* Comm_create: each side keeps all but its last rank (a side of one keeps it) */
    keep = c->lsize > 1 ? c->lsize - 1 : 1;
    rkeep = c->rsize > 1 ? c->rsize - 1 : 1;
    MT_OK(MPI_Comm_group(c->ic, &lg));
    excl = c->lsize - 1;
    if (keep < c->lsize) {
        MT_OK(MPI_Group_excl(lg, 1, &excl, &sub));
    } else {
        MT_OK(MPI_Group_incl(lg, 1, &excl, &sub));
    }
    MT_OK(MPI_Comm_create(c->ic, sub, &cr));
    if (c->lrank >= keep) {
        MT_EQ(cr == MPI_COMM_NULL, 1);
    } else {
        MT_OK(MPI_Comm_remote_size(cr, &got));
        MT_EQ(got, rkeep);
        MT_OK(MPI_Comm_size(cr, &got));
        MT_EQ(got, keep);
        sum = 0;
        for (int j = 0; j < rkeep; ++j) {
            sum += c->rw[j];
        }
        MT_OK(MPI_Allreduce(&me, &got, 1, MPI_INT, MPI_SUM, cr));
        MT_EQ(got, sum);
        MT_OK(MPI_Comm_free(&cr));
    }
    MT_OK(MPI_Group_free(&sub));
    /* one side passes MPI_GROUP_EMPTY: everyone gets MPI_COMM_NULL */
    MT_OK(MPI_Comm_create(c->ic, c->side == 0 ? MPI_GROUP_EMPTY : lg, &cr));
    MT_EQ(cr == MPI_COMM_NULL, 1);
    MT_OK(MPI_Group_free(&lg));
}

static void check_errors(const ictx_t *c, MPI_Comm local)
{
    MPI_Comm bad = MPI_COMM_NULL;
    MPI_Request rq;
    int x = 0;

    MT_ERR(MPI_Intercomm_create(local, c->lsize, MPI_COMM_WORLD, 0, 5, &bad), MPI_ERR_RANK);
    MT_EQ(bad == MPI_COMM_NULL, 1);
    MT_ERR(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, np, 5, &bad), MPI_ERR_RANK);
    MT_EQ(bad == MPI_COMM_NULL, 1);
    MT_ERR(MPI_Intercomm_create(local, 0, local, 0, 6, &bad), MPI_ERR_ARG);  /* overlap */
    MT_EQ(bad == MPI_COMM_NULL, 1);
    MT_ERR(MPI_Bcast(&x, 1, MPI_INT, c->rsize, c->ic), MPI_ERR_ROOT);
    MT_ERR(MPI_Reduce(&x, &x, 1, MPI_INT, MPI_SUM, -7, c->ic), MPI_ERR_ROOT);
    MT_ERR(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, c->ic), MPI_ERR_BUFFER);
    MT_ERR(MPI_Comm_remote_size(local, &x), MPI_ERR_COMM);
    MT_ERR(MPI_Ibarrier(c->ic, NULL), MPI_ERR_REQUEST);
    MT_ERR(MPI_Ibcast(&x, 1, MPI_INT, -7, c->ic, &rq), MPI_ERR_ROOT);
    MT_ERR(MPI_Intercomm_merge(local, 0, &bad), MPI_ERR_COMM);
}

/* Several nonblocking intercomm collectives in flight at once, waited in reverse. */
static void check_overlap(const ictx_t *c)
{
    MPI_Request r[4];
    int sum = 0, a = -1, b = -1, bc = c->side == 0 && c->lrank == 0 ? 77 : -1, ag[64];

    for (int j = 0; j < c->rsize; ++j) {
        sum += c->rw[j];
    }
    MT_OK(MPI_Iallreduce(&me, &a, 1, MPI_INT, MPI_SUM, c->ic, &r[0]));
    MT_OK(MPI_Ibcast(&bc, 1, MPI_INT, c->side == 0 ? (c->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL)
                                                   : 0, c->ic, &r[1]));
    MT_OK(MPI_Iallgather(&me, 1, MPI_INT, ag, 1, MPI_INT, c->ic, &r[2]));
    MT_OK(MPI_Iallreduce(&me, &b, 1, MPI_INT, MPI_MAX, c->ic, &r[3]));
    for (int k = 3; k >= 0; --k) {
        MT_OK(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
    }
    MT_EQ(a, sum);
    MT_EQ(b, c->rw[c->rsize - 1]);
    if (c->side == 1 || c->lrank == 0) {
        MT_EQ(bc, 77);
    }
    for (int j = 0; j < c->rsize; ++j) {
        MT_EQ(ag[j], c->rw[j]);
    }
}

static void run_split(int mode)
{
    ictx_t c;
    MPI_Comm local;
    int side = side_of(mode, me);

    memset(&c, 0, sizeof(c));
    c.side = side;
    c.lsize = side_members(mode, side, c.lw);
    c.rsize = side_members(mode, !side, c.rw);
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, side, me, &local));
    MT_OK(MPI_Comm_rank(local, &c.lrank));
    MT_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, c.rw[0], 40 + mode, &c.ic));
    TRACE("check_queries");
    check_queries(&c);
    TRACE("check_p2p");
    check_p2p(c.ic, &c);
    TRACE("check_bcast");
    check_bcast(&c, 0, 0);
    TRACE("check_bcast");
    check_bcast(&c, 1, c.rsize > 1 && side == 0 ? c.rsize - 1 : (side == 1 ? c.lsize - 1 : 0));
    TRACE("check_rooted");
    check_rooted(&c, 0, 0);
    TRACE("check_rooted");
    check_rooted(&c, 1, side == 1 ? c.lsize - 1 : c.rsize - 1);
    TRACE("check_all");
    check_all(&c);
    TRACE("check_reductions");
    check_reductions(&c, 1, 0);
    TRACE("check_reductions");
    check_reductions(&c, 0, side == 0 ? c.lsize - 1 : c.rsize - 1);
    TRACE("check_merge");
    check_merge(&c);
    TRACE("check_dup_split");
    check_dup_split(&c);
    TRACE("check_errors");
    TRACE("check_more");
    check_more(&c, local);
    check_errors(&c, local);
    TRACE("nonblocking");
    use_nb = 1;
    check_bcast(&c, 0, 0);
    check_rooted(&c, 1, side == 1 ? c.lsize - 1 : c.rsize - 1);
    check_all(&c);
    check_reductions(&c, 1, 0);
    check_reductions(&c, 0, side == 0 ? c.lsize - 1 : c.rsize - 1);
    check_overlap(&c);
    use_nb = 0;
    MT_OK(MPI_Comm_free(&c.ic));
    MT_OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_CHECK(np <= 64);
    for (int mode = 0; np >= 2 && mode < 3; ++mode) {
        run_split(mode);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        printf("mpi_intercomm passed on %d ranks\n", np);
    }
    return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
