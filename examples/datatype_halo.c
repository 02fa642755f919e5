/*
 * datatype_halo.c: a 1-D ring of ranks, each owning a 2-D block of a grid,
 * exchanges the columns at its block's left and right edges with the
 * derived-datatype API of loom.h.
 *
 *   loomrun -n 4 build/release/examples/datatype_halo
 *
 * Each rank's block is ROWS x (COLS + 2) doubles, row-major: columns 1..COLS
 * are its own, columns 0 and COLS + 1 are ghost columns for its
 * neighbours' edge columns. One column is loom_dtype_vector(ROWS, 1,
 * COLS + 2, double): a strided type the engine copies without per-element
 * work. The edge columns are packed with loom_dtype_pack into one
 * contiguous message, sent as bytes, and unpacked straight into the ghost
 * columns with loom_dtype_unpack (a typed send, loom_send_dt, will do the
 * packing itself). A struct type then packs a record to the portable
 * external32 form. Exits non-zero if any value is wrong.
 */
#include <loom.h>

#include <stdio.h>
#include <stdlib.h>

#define ROWS 6
#define COLS 4
#define WIDTH (COLS + 2)

#define CHECK(call)                                                             \
    do {                                                                        \
        loom_status_t st_ = (call);                                             \
        if (st_ != LOOM_OK) {                                                   \
            fprintf(stderr, "rank %d: %s failed: %s\n", loom_rank(), #call,     \
                    loom_strerror(st_));                                        \
            loom_abort(1, "datatype_halo failed");                              \
        }                                                                       \
    } while (0)

/* the value rank r stores at (row, column) of its own part */
static double value(int r, int row, int col)
{
    return r * 1000.0 + row * 10.0 + col;
}

/* pack my edge columns (1 and COLS) into buf, back to back */
static size_t pack_edges(const double *grid, loom_dtype_t column, char *buf, size_t cap)
{
    size_t pos = 0;

    CHECK(loom_dtype_pack(&grid[1], 1, column, buf, cap, &pos));
    CHECK(loom_dtype_pack(&grid[COLS], 1, column, buf, cap, &pos));
    return pos;
}

static int exchange(double *grid, loom_dtype_t column, int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size, bad = 0;
    size_t colbytes = 0, pos = 0;
    char out[2 * ROWS * sizeof(double)], in_l[sizeof(out)], in_r[sizeof(out)];
    loom_request_t req[2];

    CHECK(loom_dtype_pack_size(1, column, &colbytes));
    size_t n = pack_edges(grid, column, out, sizeof(out));
    CHECK(loom_irecv(in_l, n, LOOM_BYTE, left, 1, LOOM_COMM_WORLD, &req[0]));
    CHECK(loom_irecv(in_r, n, LOOM_BYTE, right, 2, LOOM_COMM_WORLD, &req[1]));
    CHECK(loom_send(out, n, LOOM_BYTE, right, 1, LOOM_COMM_WORLD));
    CHECK(loom_send(out, n, LOOM_BYTE, left, 2, LOOM_COMM_WORLD));
    CHECK(loom_waitall(2, req, NULL));
    /* the left neighbour's right edge (its second column) -> my column 0 */
    pos = colbytes;
    CHECK(loom_dtype_unpack(in_l, n, &pos, &grid[0], 1, column));
    /* the right neighbour's left edge (its first column) -> my column COLS + 1 */
    pos = 0;
    CHECK(loom_dtype_unpack(in_r, n, &pos, &grid[COLS + 1], 1, column));
    for (int i = 0; i < ROWS; ++i) {
        bad += grid[i * WIDTH] != value(left, i, COLS);
        bad += grid[i * WIDTH + COLS + 1] != value(right, i, 1);
    }
    return bad;
}

/* a record in external32: big-endian, no padding, the same on any machine */
static int record_external32(void)
{
    struct rec { int32_t id; double x; } r = { 0x01020304, 1.0 };
    size_t bl[] = { 1, 1 }, pos = 0, sz = 0;
    ptrdiff_t d[] = { offsetof(struct rec, id), offsetof(struct rec, x) };
    loom_dtype_t ty[] = { loom_dtype_basic(LOOM_INT32), loom_dtype_basic(LOOM_DOUBLE) };
    loom_dtype_t t = NULL;
    unsigned char buf[16];

    CHECK(loom_dtype_struct(2, bl, d, ty, &t));
    CHECK(loom_dtype_commit(t));
    CHECK(loom_dtype_external32_size(1, t, &sz));
    CHECK(loom_dtype_pack_external32(&r, 1, t, buf, sizeof(buf), &pos));
    CHECK(loom_dtype_free(&t));
    /* 4 bytes of id, 8 of x; 1.0 is 3f f0 00 ... */
    return sz != 12 || pos != 12 || buf[0] != 1 || buf[3] != 4 || buf[4] != 0x3f ||
           buf[5] != 0xf0;
}

int main(int argc, char **argv)
{
    double *grid = calloc(ROWS * WIDTH, sizeof(*grid));
    loom_dtype_t column = NULL;
    int rank, size, bad;

    CHECK(loom_init(&argc, &argv));
    rank = loom_rank();
    size = loom_size();
    for (int i = 0; i < ROWS; ++i) {
        for (int j = 1; j <= COLS; ++j) {
            grid[i * WIDTH + j] = value(rank, i, j);
        }
    }
    CHECK(loom_dtype_vector(ROWS, 1, WIDTH, loom_dtype_basic(LOOM_DOUBLE), &column));
    CHECK(loom_dtype_commit(column));
    bad = exchange(grid, column, rank, size);
    bad += record_external32();
    CHECK(loom_dtype_free(&column));
    if (bad == 0 && rank == 0) {
        printf("datatype_halo: %d ranks exchanged %d-row edge columns with a vector type\n",
               size, ROWS);
    }
    if (bad != 0) {
        fprintf(stderr, "rank %d: %d wrong values\n", rank, bad);
    }
    free(grid);
    CHECK(loom_finalize());
    return bad != 0;
}
