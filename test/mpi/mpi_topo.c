/*
 * mpi_topo.c: process topologies as an MPI program sees them, at any
 * number of ranks: Dims_create, Cartesian grids (periodic and not, smaller
 * than the communicator, zero-dimensional), Cart_get/rank/coords/shift/
 * sub/map, graphs, distributed graphs (adjacent and general, weighted and
 * not), Topo_test, Comm_dup keeping the topology (and Comm_split not), and
 * the error class of every bad argument under MPI_ERRORS_RETURN. Every
 * check is exact and aborts the job when it fails.
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size;

static void test_dims_create(void)
{
    int d2[2] = { 0, 0 }, d3[3] = { 0, 3, 0 }, d4[4] = { 0, 0, 0, 0 };

    MT_OK(MPI_Dims_create(6, 2, d2));
    MT_CHECK(d2[0] == 3 && d2[1] == 2);
    MT_OK(MPI_Dims_create(6, 3, d3));
    MT_CHECK(d3[0] == 2 && d3[1] == 3 && d3[2] == 1);
    MT_OK(MPI_Dims_create(453600, 3, (int[3]){ 0 }));
    MT_OK(MPI_Dims_create(360, 4, d4));
    MT_CHECK(d4[0] == 6 && d4[1] == 5 && d4[2] == 4 && d4[3] == 3);
    MT_OK(MPI_Dims_create(1, 0, NULL));
    d3[0] = 0; d3[1] = 3; d3[2] = 0;
    MT_ERR(MPI_Dims_create(7, 3, d3), MPI_ERR_DIMS);
    MT_CHECK(d3[0] == 0 && d3[2] == 0);          /* untouched on error */
    d2[0] = -1; d2[1] = 0;
    MT_ERR(MPI_Dims_create(4, 2, d2), MPI_ERR_DIMS);
    MT_ERR(MPI_Dims_create(4, -1, d2), MPI_ERR_DIMS);
    MT_ERR(MPI_Dims_create(-4, 2, d2), MPI_ERR_ARG);
    MT_ERR(MPI_Dims_create(4, 2, NULL), MPI_ERR_ARG);
    d2[0] = 2; d2[1] = 2;
    MT_ERR(MPI_Dims_create(8, 2, d2), MPI_ERR_DIMS);
}

/* Check a whole Cartesian communicator against its description. */
static void check_cart(MPI_Comm cart, int nd, const int *dims, const int *periods)
{
    int r, n, t, d[4], p[4], c[4], c2[4], src, dst;

    MT_OK(MPI_Comm_rank(cart, &r));
    MT_OK(MPI_Comm_size(cart, &n));
    MT_OK(MPI_Topo_test(cart, &t));
    MT_EQ(t, MPI_CART);
    MT_OK(MPI_Cartdim_get(cart, &t));
    MT_EQ(t, nd);
    MT_OK(MPI_Cart_get(cart, 4, d, p, c));
    for (int i = 0, stride = n; i < nd; ++i) {
        MT_EQ(d[i], dims[i]);
        MT_EQ(p[i], periods[i] != 0);
        stride /= dims[i];
        MT_EQ(c[i], (r / stride) % dims[i]);   /* row-major */
    }
    MT_OK(MPI_Cart_rank(cart, c, &t));
    MT_EQ(t, r);
    for (int q = 0; q < n; ++q) {
        MT_OK(MPI_Cart_coords(cart, q, nd, c2));
        MT_OK(MPI_Cart_rank(cart, c2, &t));
        MT_EQ(t, q);
    }
    for (int i = 0; i < nd; ++i) {
        for (int disp = -3; disp <= 3; ++disp) {
            MT_OK(MPI_Cart_shift(cart, i, disp, &src, &dst));
            for (int s = -1; s <= 1; s += 2) {
                int want, got = s > 0 ? dst : src;
                memcpy(c2, c, sizeof(c2));
                c2[i] += s * disp;
                if (!periods[i] && (c2[i] < 0 || c2[i] >= dims[i])) {
                    want = MPI_PROC_NULL;
                    MT_ERR(MPI_Cart_rank(cart, c2, &t), MPI_ERR_ARG);
                } else {
                    MT_OK(MPI_Cart_rank(cart, c2, &want));   /* wraps when periodic */
                }
                MT_EQ(got, want);
            }
        }
    }
}

static void test_cart(void)
{
    int dims[2] = { 0, 0 }, periods[2], n, r;
    MPI_Comm cart, dup, split, sub;

    MT_OK(MPI_Dims_create(size, 2, dims));
    for (int per = 0; per < 4; ++per) {
        periods[0] = per & 1;
        periods[1] = per >> 1;
        MT_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, per & 1, &cart));
        MT_CHECK(cart != MPI_COMM_NULL);
        check_cart(cart, 2, dims, periods);
        /* a duplicate keeps the topology; a split does not */
        MT_OK(MPI_Comm_dup(cart, &dup));
        check_cart(dup, 2, dims, periods);
        {   /* so does a nonblocking duplicate */
            MPI_Comm idup;
            MPI_Request req;
            MT_OK(MPI_Comm_idup(cart, &idup, &req));
            MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            check_cart(idup, 2, dims, periods);
            MT_OK(MPI_Comm_free(&idup));
        }
        MT_OK(MPI_Comm_split(cart, 0, 0, &split));
        MT_OK(MPI_Topo_test(split, &n));
        MT_EQ(n, MPI_UNDEFINED);
        MT_ERR(MPI_Cartdim_get(split, &n), MPI_ERR_TOPOLOGY);
        MT_OK(MPI_Comm_free(&split));
        /* rows (keep dimension 1) and columns (keep dimension 0) */
        for (int keep = 0; keep < 2; ++keep) {
            int remain[2] = { keep == 0, keep == 1 }, c[2], sc;
            MT_OK(MPI_Cart_sub(dup, remain, &sub));
            MT_OK(MPI_Comm_size(sub, &n));
            MT_EQ(n, dims[keep]);
            MT_OK(MPI_Cart_coords(cart, rank, 2, c));
            MT_OK(MPI_Comm_rank(sub, &r));
            MT_EQ(r, c[keep]);
            check_cart(sub, 1, &dims[keep], &periods[keep]);
            MT_OK(MPI_Cart_coords(sub, r, 1, &sc));
            MT_EQ(sc, c[keep]);
            MT_OK(MPI_Comm_free(&sub));
        }
        {   /* nothing kept: a zero-dimensional grid of one rank */
            int remain[2] = { 0, 0 };
            MT_OK(MPI_Cart_sub(cart, remain, &sub));
            MT_OK(MPI_Comm_size(sub, &n));
            MT_EQ(n, 1);
            check_cart(sub, 0, NULL, NULL);
            MT_OK(MPI_Comm_free(&sub));
        }
        MT_OK(MPI_Comm_free(&dup));
        MT_OK(MPI_Comm_free(&cart));
    }
    /* a 1-D grid of size - 1 ranks: the last rank is left out */
    n = size > 1 ? size - 1 : 1;
    periods[0] = 1;
    MT_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &n, periods, 0, &cart));
    MT_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, &n, periods, &r));
    if (rank < n) {
        MT_CHECK(cart != MPI_COMM_NULL);
        MT_EQ(r, rank);
        check_cart(cart, 1, &n, periods);
        MT_OK(MPI_Comm_free(&cart));
    } else {
        MT_CHECK(cart == MPI_COMM_NULL);
        MT_EQ(r, MPI_UNDEFINED);
    }
    /* zero dimensions: rank 0 alone */
    MT_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    MT_CHECK((cart != MPI_COMM_NULL) == (rank == 0));
    if (cart != MPI_COMM_NULL) {
        check_cart(cart, 0, NULL, NULL);
        MT_OK(MPI_Cart_rank(cart, NULL, &r));
        MT_EQ(r, 0);
        MT_OK(MPI_Comm_free(&cart));
    }
}

/* a ring as a graph: node i is linked to i-1 and i+1 (one node: no edges) */
static void test_graph(void)
{
    int index[64], edges[128], ne = 0, t, nn, nedges, nb[8], cnt;
    MPI_Comm graph, dup;

    for (int i = 0; i < size; ++i) {
        if (size > 1) {
            edges[ne++] = (i + size - 1) % size;
            edges[ne++] = (i + 1) % size;
        }
        index[i] = ne;
    }
    MT_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 1, &graph));
    MT_OK(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &t));
    MT_EQ(t, rank);
    MT_OK(MPI_Comm_dup(graph, &dup));
    MT_OK(MPI_Topo_test(dup, &t));
    MT_EQ(t, MPI_GRAPH);
    MT_OK(MPI_Graphdims_get(dup, &nn, &nedges));
    MT_EQ(nn, size);
    MT_EQ(nedges, ne);
    {
        int gi[64], ge[128];
        MT_OK(MPI_Graph_get(dup, size, ne, gi, ge));
        MT_CHECK(memcmp(gi, index, (size_t)size * sizeof(int)) == 0);
        MT_CHECK(memcmp(ge, edges, (size_t)ne * sizeof(int)) == 0);
    }
    for (int q = 0; q < size; ++q) {
        MT_OK(MPI_Graph_neighbors_count(dup, q, &cnt));
        MT_EQ(cnt, size > 1 ? 2 : 0);
        MT_OK(MPI_Graph_neighbors(dup, q, 8, nb));
        for (int k = 0; k < cnt; ++k) {
            MT_EQ(nb[k], edges[(q == 0 ? 0 : index[q - 1]) + k]);
        }
    }
    /* errors */
    MT_ERR(MPI_Graph_neighbors_count(dup, size, &cnt), MPI_ERR_RANK);
    MT_ERR(MPI_Graph_neighbors(dup, -1, 8, nb), MPI_ERR_RANK);
    MT_ERR(MPI_Cart_shift(dup, 0, 1, &t, &cnt), MPI_ERR_TOPOLOGY);
    MT_ERR(MPI_Dist_graph_neighbors_count(dup, &t, &cnt, &nn), MPI_ERR_TOPOLOGY);
    MT_OK(MPI_Comm_free(&dup));
    MT_OK(MPI_Comm_free(&graph));
    /* fewer nodes than ranks: the rest get MPI_COMM_NULL */
    index[0] = 0;
    MT_OK(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &graph));
    MT_CHECK((graph != MPI_COMM_NULL) == (rank == 0));
    if (graph != MPI_COMM_NULL) {
        MT_OK(MPI_Graph_neighbors_count(graph, 0, &cnt));
        MT_EQ(cnt, 0);
        MT_OK(MPI_Comm_free(&graph));
    }
    index[0] = 1;
    edges[0] = 1;                                  /* node 1 of a 1-node graph */
    MT_ERR(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &graph), MPI_ERR_ARG);
    MT_CHECK(graph == MPI_COMM_NULL);
    MT_ERR(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &graph),
           MPI_ERR_ARG);
    index[0] = -1;
    MT_ERR(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &graph), MPI_ERR_ARG);
}

/* Dist graph neighbours as MPI reports them. */
static void dist_get(MPI_Comm dg, int *in, int *inw, int *nin, int *out, int *outw,
                     int *nout, int *weighted)
{
    int t;

    MT_OK(MPI_Topo_test(dg, &t));
    MT_EQ(t, MPI_DIST_GRAPH);
    MT_OK(MPI_Dist_graph_neighbors_count(dg, nin, nout, weighted));
    MT_OK(MPI_Dist_graph_neighbors(dg, *nin, in, inw, *nout, out, outw));
}

static void test_dist_graph(void)
{
    /* adjacent: r -> r+1 twice and r -> r+2; sources mirror it */
    int src[3] = { (rank + size - 1) % size, (rank + size - 1) % size, (rank + 2 * size - 2) % size };
    int dst[3] = { (rank + 1) % size, (rank + 1) % size, (rank + 2) % size };
    int sw[3] = { 1, 2, 3 }, dw[3] = { 4, 5, 6 };
    int in[16], inw[16], out[16], outw[16], nin, nout, weighted;
    MPI_Comm dg, dup;

    MT_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, src, sw, 3, dst, dw,
                                         MPI_INFO_NULL, 0, &dg));
    MT_OK(MPI_Comm_dup(dg, &dup));
    dist_get(dup, in, inw, &nin, out, outw, &nout, &weighted);
    MT_CHECK(nin == 3 && nout == 3 && weighted == 1);
    MT_CHECK(memcmp(in, src, sizeof(src)) == 0 && memcmp(out, dst, sizeof(dst)) == 0);
    MT_CHECK(memcmp(inw, sw, sizeof(sw)) == 0 && memcmp(outw, dw, sizeof(dw)) == 0);
    MT_OK(MPI_Comm_free(&dup));
    MT_OK(MPI_Comm_free(&dg));
    /* unweighted, and a rank without neighbours (the last one) */
    nin = rank == size - 1 ? 0 : 1;
    MT_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, src, MPI_UNWEIGHTED, nin, dst,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    dist_get(dg, in, inw, &nin, out, outw, &nout, &weighted);
    MT_CHECK(nin == (rank == size - 1 ? 0 : 1) && nout == nin && weighted == 0);
    MT_OK(MPI_Comm_free(&dg));
    /* general: rank 0 names every edge q -> q+1 (weight 10q); others none */
    {
        int sources[64], degrees[64], dests[64], w[64], n = rank == 0 ? size : 0;
        for (int q = 0; q < n; ++q) {
            sources[q] = q;
            degrees[q] = 1;
            dests[q]   = (q + 1) % size;
            w[q]       = 10 * q;
        }
        MT_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests,
                                    n ? w : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 1, &dg));
        dist_get(dg, in, inw, &nin, out, outw, &nout, &weighted);
        MT_CHECK(nin == 1 && nout == 1 && weighted == 1);
        MT_EQ(in[0], (rank + size - 1) % size);
        MT_EQ(inw[0], 10 * ((rank + size - 1) % size));
        MT_EQ(out[0], (rank + 1) % size);
        MT_EQ(outw[0], 10 * rank);
        MT_OK(MPI_Comm_free(&dg));
        /* every rank names its own two out-edges, one twice: r -> r+1, r -> r+1 */
        sources[0] = rank;
        degrees[0] = 2;
        dests[0] = dests[1] = (rank + 1) % size;
        MT_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, sources, degrees, dests,
                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
        dist_get(dg, in, inw, &nin, out, outw, &nout, &weighted);
        MT_CHECK(nin == 2 && nout == 2 && weighted == 0);
        MT_CHECK(in[0] == (rank + size - 1) % size && in[1] == in[0]);
        MT_CHECK(out[0] == (rank + 1) % size && out[1] == out[0]);
        MT_OK(MPI_Comm_free(&dg));
    }
    /* errors */
    src[0] = size;
    MT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 0, dst,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
           MPI_ERR_RANK);
    MT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, src, MPI_UNWEIGHTED, 0, dst,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
           MPI_ERR_ARG);
    sw[0] = -5;
    src[0] = 0;
    MT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, sw, 0, dst,
                                          MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg),
           MPI_ERR_ARG);
    {
        int one = 1, bad = -1;
        MT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &bad, MPI_UNWEIGHTED,
                                     MPI_INFO_NULL, 0, &dg), MPI_ERR_RANK);
        MT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &bad, &one, MPI_UNWEIGHTED,
                                     MPI_INFO_NULL, 0, &dg), MPI_ERR_ARG);
    }
    MT_ERR(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &nin, &nout, &weighted),
           MPI_ERR_TOPOLOGY);
}

static void test_cart_errors(void)
{
    int dims[2] = { size + 1, 1 }, periods[2] = { 0, 0 }, coords[2] = { 0, 0 }, r, s;
    MPI_Comm cart = MPI_COMM_WORLD;

    MT_ERR(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), MPI_ERR_ARG);
    MT_CHECK(cart == MPI_COMM_NULL);
    dims[0] = 0;
    MT_ERR(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), MPI_ERR_DIMS);
    MT_ERR(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &cart), MPI_ERR_DIMS);
    MT_ERR(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &r), MPI_ERR_DIMS);
    MT_ERR(MPI_Cartdim_get(MPI_COMM_WORLD, &r), MPI_ERR_TOPOLOGY);
    MT_ERR(MPI_Cart_rank(MPI_COMM_WORLD, coords, &r), MPI_ERR_TOPOLOGY);
    MT_ERR(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &r), MPI_ERR_TOPOLOGY);
    MT_ERR(MPI_Cart_create(MPI_COMM_NULL, 2, dims, periods, 0, &cart), MPI_ERR_COMM);
    dims[0] = size;
    MT_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    coords[0] = size;
    MT_ERR(MPI_Cart_rank(cart, coords, &r), MPI_ERR_ARG);
    coords[0] = -1;
    MT_ERR(MPI_Cart_rank(cart, coords, &r), MPI_ERR_ARG);
    MT_ERR(MPI_Cart_coords(cart, size, 2, coords), MPI_ERR_RANK);
    MT_ERR(MPI_Cart_coords(cart, 0, 1, coords), MPI_ERR_ARG);
    MT_ERR(MPI_Cart_shift(cart, 2, 1, &r, &s), MPI_ERR_DIMS);
    MT_ERR(MPI_Cart_shift(cart, -1, 1, &r, &s), MPI_ERR_DIMS);
    MT_ERR(MPI_Graphdims_get(cart, &r, &s), MPI_ERR_TOPOLOGY);
    MT_OK(MPI_Topo_test(MPI_COMM_WORLD, &r));
    MT_EQ(r, MPI_UNDEFINED);
    MT_OK(MPI_Comm_free(&cart));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    test_dims_create();
    test_cart();
    test_graph();
    test_dist_graph();
    test_cart_errors();
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_topo");
    MT_OK(MPI_Finalize());
    return 0;
}
