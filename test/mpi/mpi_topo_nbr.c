/*
 * mpi_topo_nbr.c: the neighbourhood collectives at any number of ranks,
 * every block checked: halo exchanges on 1-D and 2-D Cartesian grids,
 * periodic and not (MPI_PROC_NULL slots stay untouched), including ranks
 * that are a neighbour twice (periodic dimensions of size 1 and 2, where
 * the block sent towards +d must land in the receiver's -d slot); graphs
 * with duplicate edges and self-loops; distributed graphs (adjacent and
 * general) with a rank that has no neighbours. Blocking and I forms of all
 * five calls, two nonblocking calls in flight at once, blocks large enough
 * for the rendezvous protocol, negative alltoallw displacements, and the
 * error classes of bad arguments.
 *
 * Expected values: the block a rank sends from slot s is (rank, s, k); the
 * receiver's slot j names its neighbour q. On a Cartesian grid it must hold
 * q's block from slot j^1 (the opposite direction); on graphs, the k-th
 * slot naming q holds the block of the k-th slot of q that names us.
 */
#include "mpi_test_util.h"

#include <string.h>

#define MAXD    16
#define SENT    (-7)           /* untouched receive slots */
#define BIG     20000          /* ints per block in the rendezvous test */

typedef struct nbrs {
    int nin, nout, cart, in[MAXD], out[MAXD];
} nbrs_t;

static int rank, size;
static nbrs_t all[64];         /* every rank's lists (allgathered) */

static int val(int sender, int slot, int k)
{
    return (sender * 64 + slot) * 65536 + (k & 0xffff);
}

/* Learn this rank's lists from the topology, then everybody's. */
static void learn(MPI_Comm comm)
{
    nbrs_t me;
    int t, w;

    memset(&me, 0, sizeof(me));
    MT_OK(MPI_Topo_test(comm, &t));
    me.cart = t == MPI_CART;
    if (t == MPI_CART) {
        MT_OK(MPI_Cartdim_get(comm, &t));
        me.nin = me.nout = 2 * t;
        for (int d = 0; d < t; ++d) {
            MT_OK(MPI_Cart_shift(comm, d, 1, &me.in[2 * d], &me.in[2 * d + 1]));
        }
        memcpy(me.out, me.in, sizeof(me.in));
    } else if (t == MPI_GRAPH) {
        MT_OK(MPI_Graph_neighbors_count(comm, rank, &me.nin));
        MT_OK(MPI_Graph_neighbors(comm, rank, MAXD, me.in));
        me.nout = me.nin;
        memcpy(me.out, me.in, sizeof(me.in));
    } else {
        MT_OK(MPI_Dist_graph_neighbors_count(comm, &me.nin, &me.nout, &w));
        MT_OK(MPI_Dist_graph_neighbors(comm, MAXD, me.in, MPI_UNWEIGHTED, MAXD, me.out,
                                       MPI_UNWEIGHTED));
    }
    MT_OK(MPI_Allgather(&me, (int)(sizeof(me) / sizeof(int)), MPI_INT, all,
                        (int)(sizeof(me) / sizeof(int)), MPI_INT, MPI_COMM_WORLD));
}

/* The sender slot whose block lands in receive slot j (-1: none, PROC_NULL). */
static int from_slot(int j)
{
    const nbrs_t *me = &all[rank];
    int q = me->in[j], occ = 0;

    if (q == MPI_PROC_NULL) {
        return -1;
    }
    if (me->cart) {
        return j ^ 1;
    }
    for (int i = 0; i < j; ++i) {
        occ += me->in[i] == q;
    }
    for (int s = 0; s < all[q].nout; ++s) {
        if (all[q].out[s] == rank && occ-- == 0) {
            return s;
        }
    }
    MT_FAIL("rank %d: no slot of rank %d sends to it (graph not symmetric?)", rank, q);
    return -1;
}

/* Counts that agree between a send slot and the receive slot it lands in. */
static int cnt_send(int s)
{
    return all[rank].cart ? 1 + (s >> 1) : 2;
}

static int cnt_recv(int j)
{
    return all[rank].cart ? 1 + (j >> 1) : 2;
}

static void check_block(const int *got, int j, int n, const char *what)
{
    int s = from_slot(j), q = all[rank].in[j];

    for (int k = 0; k < n; ++k) {
        int want = s < 0 ? SENT : val(q, s, k);
        if (got[k] != want) {
            MT_FAIL("%s: rank %d slot %d (from %d, its slot %d) element %d = %d, want %d",
                    what, rank, j, q, s, k, got[k], want);
        }
    }
}

static void fill_ints(int *buf, int n, int v)
{
    for (int i = 0; i < n; ++i) {
        buf[i] = v;
    }
}

/* alltoall (blocking) and alltoallv (nonblocking, blocks stored back to front) */
static void run_alltoall(MPI_Comm comm)
{
    const nbrs_t *me = &all[rank];
    int sb[MAXD * 3], rb[MAXD * 3], sc[MAXD], sd[MAXD], rc[MAXD], rd[MAXD], off;
    MPI_Request req;

    for (int s = 0; s < me->nout; ++s) {
        for (int k = 0; k < 3; ++k) {
            sb[3 * s + k] = val(rank, s, k);
        }
    }
    fill_ints(rb, MAXD * 3, SENT);
    MT_OK(MPI_Neighbor_alltoall(sb, 3, MPI_INT, rb, 3, MPI_INT, comm));
    for (int j = 0; j < me->nin; ++j) {
        check_block(rb + 3 * j, j, 3, "Neighbor_alltoall");
    }
    off = 0;
    for (int s = me->nout - 1; s >= 0; --s) {
        sc[s] = cnt_send(s);
        sd[s] = off;
        for (int k = 0; k < sc[s]; ++k) {
            sb[off + k] = val(rank, s, k);
        }
        off += sc[s];
    }
    off = 0;
    for (int j = me->nin - 1; j >= 0; --j) {
        rc[j] = cnt_recv(j);
        rd[j] = off;
        off += rc[j];
    }
    fill_ints(rb, MAXD * 3, SENT);
    MT_OK(MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm, &req));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK(req == MPI_REQUEST_NULL);
    for (int j = 0; j < me->nin; ++j) {
        check_block(rb + rd[j], j, rc[j], "Ineighbor_alltoallv");
    }
}

/* allgather (nonblocking) and allgatherv (blocking, reversed displacements) */
static void run_allgather(MPI_Comm comm)
{
    const nbrs_t *me = &all[rank];
    int v[2] = { rank, -rank }, rb[MAXD * 2], rc[MAXD], rd[MAXD];
    MPI_Request req;

    fill_ints(rb, MAXD * 2, SENT);
    MT_OK(MPI_Ineighbor_allgather(v, 2, MPI_INT, rb, 2, MPI_INT, comm, &req));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int j = 0; j < me->nin; ++j) {
        int q = me->in[j];
        MT_EQ(rb[2 * j], q == MPI_PROC_NULL ? SENT : q);
        MT_EQ(rb[2 * j + 1], q == MPI_PROC_NULL ? SENT : -q);
    }
    fill_ints(rb, MAXD * 2, SENT);
    for (int j = 0; j < me->nin; ++j) {
        rc[j] = 1;
        rd[j] = me->nin - 1 - j;
    }
    MT_OK(MPI_Neighbor_allgatherv(v, 1, MPI_INT, rb, rc, rd, MPI_INT, comm));
    for (int j = 0; j < me->nin; ++j) {
        int q = me->in[j];
        MT_EQ(rb[rd[j]], q == MPI_PROC_NULL ? SENT : q);
    }
}

/*
 * alltoallw: per-block datatypes (even send slots: 2 x MPI_INT, odd ones:
 * 1 x a contiguous pair of ints, the same type signature), received as
 * 2 x MPI_INT below the receive pointer (negative byte displacements).
 */
static void run_alltoallw(MPI_Comm comm)
{
    const nbrs_t *me = &all[rank];
    int sb[MAXD * 2], store[MAXD * 2 + 8], *rb = store + MAXD * 2 + 4;
    int sc[MAXD], rc[MAXD];
    MPI_Aint sd[MAXD], rd[MAXD];
    MPI_Datatype pair, st[MAXD], rt[MAXD];

    MT_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MT_OK(MPI_Type_commit(&pair));
    for (int s = 0; s < me->nout; ++s) {
        sb[2 * s]     = val(rank, s, 0);
        sb[2 * s + 1] = val(rank, s, 1);
        sc[s] = 1;
        sd[s] = (MPI_Aint)(2 * s * sizeof(int));
        st[s] = s % 2 ? pair : MPI_INT;
        if (s % 2 == 0) {
            sc[s] = 2;                    /* 2 x MPI_INT = 1 x pair: same signature */
        }
    }
    fill_ints(store, MAXD * 2 + 8, SENT);
    for (int j = 0; j < me->nin; ++j) {
        rc[j] = 2;
        rt[j] = MPI_INT;
        rd[j] = -(MPI_Aint)((2 * (me->nin - j) + 2) * sizeof(int));  /* below rb */
    }
    MT_OK(MPI_Neighbor_alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm));
    for (int j = 0; j < me->nin; ++j) {
        check_block(rb - 2 * (me->nin - j) - 2, j, 2, "Neighbor_alltoallw");
    }
    for (int i = MAXD * 2 + 2; i < MAXD * 2 + 8; ++i) {
        MT_EQ(store[i], SENT);            /* nothing written at or above rb - 2 */
    }
    MT_OK(MPI_Type_free(&pair));
}

/* Rendezvous-sized blocks, two nonblocking calls in flight on one communicator. */
static void run_big(MPI_Comm comm)
{
    const nbrs_t *me = &all[rank];
    static int sb[MAXD * BIG], rb[MAXD * BIG];
    int v = rank * 3, g[MAXD];
    MPI_Request reqs[2];

    for (int s = 0; s < me->nout; ++s) {
        for (int k = 0; k < BIG; ++k) {
            sb[s * BIG + k] = val(rank, s, k);
        }
    }
    fill_ints(rb, me->nin * BIG, SENT);
    fill_ints(g, MAXD, SENT);
    MT_OK(MPI_Ineighbor_alltoall(sb, BIG, MPI_INT, rb, BIG, MPI_INT, comm, &reqs[0]));
    MT_OK(MPI_Ineighbor_allgather(&v, 1, MPI_INT, g, 1, MPI_INT, comm, &reqs[1]));
    MT_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    for (int j = 0; j < me->nin; ++j) {
        check_block(rb + j * BIG, j, BIG, "Ineighbor_alltoall (big)");
        MT_EQ(g[j], me->in[j] == MPI_PROC_NULL ? SENT : me->in[j] * 3);
    }
}

static void run_all(MPI_Comm comm, int big)
{
    learn(comm);
    MT_CHECK(all[rank].nin <= MAXD && all[rank].nout <= MAXD);
    run_alltoall(comm);
    run_allgather(comm);
    run_alltoallw(comm);
    if (big) {
        run_big(comm);
    }
}

static void test_cart(void)
{
    int dims[2] = { 0, 0 }, periods[2], ring[2] = { 1, size };
    MPI_Comm cart;

    MT_OK(MPI_Dims_create(size, 2, dims));
    for (int per = 0; per < 4; ++per) {
        periods[0] = per & 1;
        periods[1] = per >> 1;
        MT_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
        run_all(cart, per == 0 || per == 3);
        MT_OK(MPI_Comm_free(&cart));
    }
    /* 1 x size, both periodic: the size-1 dimension makes every rank its own
     * neighbour twice; at size 2 the ring neighbour is both neighbours */
    periods[0] = periods[1] = 1;
    MT_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, ring, periods, 0, &cart));
    run_all(cart, 1);
    MT_OK(MPI_Comm_free(&cart));
    periods[0] = 0;
    MT_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &size, periods, 0, &cart));
    run_all(cart, 0);
    MT_OK(MPI_Comm_free(&cart));
}

/* node i: i+1, i-1, i+1, i-1 (each edge twice; self-loops at size 1) */
static void test_graph(void)
{
    int index[64], edges[256], ne = 0;
    MPI_Comm graph;

    for (int i = 0; i < size; ++i) {
        for (int k = 0; k < 4; ++k) {
            edges[ne++] = (i + (k % 2 ? size - 1 : 1)) % size;
        }
        index[i] = ne;
    }
    MT_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
    run_all(graph, 1);
    MT_OK(MPI_Comm_free(&graph));
    /* a ring of the first size - 1 nodes; the last node has no neighbours */
    ne = 0;
    for (int i = 0; i < size; ++i) {
        if (i < size - 1 && size > 2) {
            edges[ne++] = (i + 1) % (size - 1);
            edges[ne++] = (i + size - 2) % (size - 1);
        }
        index[i] = ne;
    }
    MT_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
    run_all(graph, 0);
    MT_OK(MPI_Comm_free(&graph));
}

static void test_dist_graph(void)
{
    int n = size > 1 ? size - 1 : 1, in[3], out[3], deg = rank < n && size > 1 ? 3 : 0;
    MPI_Comm dg;

    /* adjacent: r -> r+1 (twice), r -> r+2 on the first n ranks; the last is alone */
    for (int k = 0; k < 3; ++k) {
        out[k] = (rank + (k < 2 ? 1 : 2)) % n;
        in[k]  = (rank + n - (k < 2 ? 1 : 2) % n) % n;
    }
    MT_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, in, MPI_UNWEIGHTED, deg, out,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    run_all(dg, 1);
    MT_OK(MPI_Comm_free(&dg));
    /* general: every rank names r -> r+1 and r -> r-1 (mod size) */
    {
        int src = rank, two = 2, dst[2] = { (rank + 1) % size, (rank + size - 1) % size };
        MT_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &two, dst, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &dg));
        run_all(dg, 0);
        MT_OK(MPI_Comm_free(&dg));
    }
}

static void test_errors(void)
{
    int dims[1] = { size }, periods[1] = { 1 }, b[4] = { 0 }, r[4];
    MPI_Comm cart;
    MPI_Request req;

    MT_ERR(MPI_Neighbor_alltoall(b, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_TOPOLOGY);
    MT_ERR(MPI_Ineighbor_allgather(b, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD, &req),
           MPI_ERR_TOPOLOGY);
    MT_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    MT_ERR(MPI_Neighbor_alltoall(b, -1, MPI_INT, r, 1, MPI_INT, cart), MPI_ERR_COUNT);
    MT_ERR(MPI_Neighbor_allgather(b, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, cart),
           MPI_ERR_TYPE);
    MT_ERR(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, r, 1, MPI_INT, cart),
           MPI_ERR_BUFFER);
    MT_ERR(MPI_Ineighbor_alltoall(b, 1, MPI_INT, r, 1, MPI_INT, cart, NULL),
           MPI_ERR_REQUEST);
    MT_ERR(MPI_Neighbor_alltoallv(b, NULL, NULL, MPI_INT, r, NULL, NULL, MPI_INT, cart),
           MPI_ERR_ARG);
    MT_OK(MPI_Comm_free(&cart));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_CHECK(size <= 64);
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    test_cart();
    test_graph();
    test_dist_graph();
    test_errors();
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_topo_nbr");
    MT_OK(MPI_Finalize());
    return 0;
}
