/*
 * mpi_dt_pipe: the pipelined typed rendezvous (docs/p2p.md "Derived
 * datatypes": a typed send that packs sends its RTS after the first bytes
 * and packs the rest while the receiver reads) and the typed tcp paths,
 * checked byte for byte.
 *
 * Design. Every rank sends to the next one (ring) and receives from the
 * previous one, so at 2-4 ranks every pair is busy at once. The messages
 * are large (above the pipeline's 64 KiB threshold and many of its 64 KiB
 * steps, 100 KiB-3 MiB) with small pieces (8-byte column elements, a
 * struct of 20 bytes in a 24-byte extent, 3-D subarray rows), so the
 * sender packs instead of letting the receiver read its pieces. Each case
 * sends with one type and receives with another of the same signature
 * (vector -> contiguous doubles, struct -> the same struct, subarray ->
 * vector of another stride), checks every byte of the receive buffer
 * (gaps keep their poison), the status (MPI_Get_count, MPI_Get_elements),
 * then repeats with a receive one element short (MPI_ERR_TRUNCATE, the
 * first bytes delivered, Get_elements of the partial data); a column and
 * a truncated struct also go from each rank to itself. Values encode
 * (sender, case, stream position), so a piece out of place fails.
 * argv[1] == "small": fewer and smaller cases (sanitizer builds).
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

#define POISON 0x5a

static int rank, size, small;
static int hop = 1;   /* the ring's step: 0 sends to itself (the self transport) */

/* the value of double number @p i of case @p c from rank @p src */
static double value(int src, int c, size_t i)
{
    return (double)src * 1e9 + (double)c * 1e7 + (double)i;
}

/*
 * ---- case 1: a column (vector of 8-byte pieces) -> contiguous doubles, or
 * (blk != 0) a vector of blk-double blocks at stride 2 blk (pieces large
 * enough for the receiver's scattered read); truncate: an element (a
 * block) less ----
 */
static void case_column(int c, size_t rows, int cols, int blk, int truncate)
{
    int next = (rank + hop) % size, prev = (rank + size - hop) % size;
    double *a = malloc(rows * (size_t)cols * sizeof(double));
    size_t want = truncate ? rows - (blk ? (size_t)blk : 1) : rows;
    size_t slots = blk ? 2 * rows : rows + 1;
    double *b = malloc(slots * sizeof(double));
    MPI_Datatype col, rt = MPI_DOUBLE;
    MPI_Request rq[2];
    MPI_Status st[2];
    int count = -1, elems = -1, rcount = (int)want;

    MT_CHECK(a != NULL && b != NULL);
    for (size_t i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            a[i * (size_t)cols + (size_t)j] = j == 1 ? value(rank, c, i) : -2.0;
        }
    }
    memset(b, POISON, slots * sizeof(double));
    MT_OK(MPI_Type_vector((int)rows, 1, cols, MPI_DOUBLE, &col));
    MT_OK(MPI_Type_commit(&col));
    if (blk) {
        MT_OK(MPI_Type_vector((int)(want / (size_t)blk), blk, 2 * blk, MPI_DOUBLE, &rt));
        MT_OK(MPI_Type_commit(&rt));
        rcount = 1;
    }
    MT_OK(MPI_Irecv(b, rcount, rt, prev, c, MPI_COMM_WORLD, &rq[0]));
    MT_OK(MPI_Isend(a + 1, 1, col, next, c, MPI_COMM_WORLD, &rq[1]));
    if (truncate) {
        MT_ERR(MPI_Waitall(2, rq, st), MPI_ERR_IN_STATUS);
        MT_EQ(st[0].MPI_ERROR, MPI_ERR_TRUNCATE);
        MT_EQ(st[1].MPI_ERROR, MPI_SUCCESS);
    } else {
        MT_OK(MPI_Waitall(2, rq, st));
    }
    MT_OK(MPI_Get_count(&st[0], rt, &count));
    MT_OK(MPI_Get_elements(&st[0], rt, &elems));
    MT_EQ(count, rcount);
    MT_EQ(elems, want);
    for (size_t k = 0, i = 0; k < slots; k++) {
        int data = blk ? (k / (size_t)blk) % 2 == 0 && i < want : k < want;

        if (data && b[k] != value(prev, c, i)) {
            MT_FAIL("case %d (column of %zu, blocks %d): element %zu is %g, expected %g", c,
                    rows, blk, i, b[k], value(prev, c, i));
        }
        for (size_t q = 0; !data && q < sizeof(double); q++) {
            MT_EQ(((unsigned char *)&b[k])[q], POISON);
        }
        i += data;
    }
    if (blk) {
        MT_OK(MPI_Type_free(&rt));
    }
    MT_OK(MPI_Type_free(&col));
    free(a);
    free(b);
}

/* ---- case 2: struct {double; int; float; 4 bytes gap} x n, both sides ---- */

typedef struct particle {
    double x;
    int    id;
    float  w;
    char   gap[8];
} particle_t;

static MPI_Datatype particle_type(void)
{
    int bl[3] = { 1, 1, 1 };
    MPI_Aint d[3] = { offsetof(particle_t, x), offsetof(particle_t, id),
                      offsetof(particle_t, w) };
    MPI_Datatype ty[3] = { MPI_DOUBLE, MPI_INT, MPI_FLOAT }, s, t;

    MT_OK(MPI_Type_create_struct(3, bl, d, ty, &s));
    MT_OK(MPI_Type_create_resized(s, 0, sizeof(particle_t), &t));
    MT_OK(MPI_Type_free(&s));
    MT_OK(MPI_Type_commit(&t));
    return t;
}

static void case_struct(int c, size_t n, int truncate)
{
    int next = (rank + hop) % size, prev = (rank + size - hop) % size;
    particle_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
    MPI_Datatype t = particle_type();
    size_t want = truncate ? n - 1 : n;
    MPI_Request rq[2];
    MPI_Status st[2];
    int count = -1, elems = -1;

    MT_CHECK(a != NULL && b != NULL);
    memset(a, 0x11, n * sizeof(*a));
    for (size_t i = 0; i < n; i++) {
        a[i].x  = value(rank, c, i);
        a[i].id = (int)(i * 7 + (size_t)rank);
        a[i].w  = (float)i * 0.5f;
    }
    memset(b, POISON, n * sizeof(*b));
    MT_OK(MPI_Irecv(b, (int)want, t, prev, c, MPI_COMM_WORLD, &rq[0]));
    MT_OK(MPI_Isend(a, (int)n, t, next, c, MPI_COMM_WORLD, &rq[1]));
    if (truncate) {
        MT_ERR(MPI_Waitall(2, rq, st), MPI_ERR_IN_STATUS);
        MT_EQ(st[0].MPI_ERROR, MPI_ERR_TRUNCATE);
    } else {
        MT_OK(MPI_Waitall(2, rq, st));
    }
    MT_OK(MPI_Get_count(&st[0], t, &count));
    MT_OK(MPI_Get_elements(&st[0], t, &elems));
    MT_EQ(count, want);
    MT_EQ(elems, 3 * want);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *gap = (const unsigned char *)&b[i] + offsetof(particle_t, gap);

        if (i < want && (b[i].x != value(prev, c, i) || b[i].id != (int)(i * 7 + (size_t)prev) ||
                         b[i].w != (float)i * 0.5f)) {
            MT_FAIL("case %d (struct x %zu): particle %zu is {%g, %d, %g}", c, n, i, b[i].x,
                    b[i].id, (double)b[i].w);
        }
        for (size_t k = 0; k < sizeof(b[i].gap); k++) {
            MT_EQ(gap[k], POISON);
        }
        if (i >= want) {
            for (size_t k = 0; k < sizeof(b[i]); k++) {
                MT_EQ(((const unsigned char *)&b[i])[k], POISON);
            }
        }
    }
    MT_OK(MPI_Type_free(&t));
    free(a);
    free(b);
}

/*
 * ---- case 3: a 3-D subarray face (n x n rows of w doubles) -> a vector of
 * rows of w doubles with stride 2w (another layout, the same signature);
 * a partial count checks Get_elements of the first bytes only ----
 */
static void case_subarray(int c, int n, int w, int truncate)
{
    int next = (rank + hop) % size, prev = (rank + size - hop) % size;
    int big = n + 2 * w, sizes[3] = { big, big, big }, sub[3] = { n, n, w };
    int starts[3] = { w, w, w };
    size_t cells = (size_t)big * big * big, rows = (size_t)n * n;
    double *a = malloc(cells * sizeof(double));
    double *b = malloc(rows * 2 * (size_t)w * sizeof(double));
    MPI_Datatype face, vec;
    MPI_Request rq[2];
    MPI_Status st[2];
    int elems = -1, count = -1;
    size_t k = 0;

    MT_CHECK(a != NULL && b != NULL);
    for (size_t i = 0; i < cells; i++) {
        a[i] = -3.0;
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            for (int l = 0; l < w; l++) {
                a[(((size_t)(i + w) * big) + (size_t)(j + w)) * big + (size_t)(l + w)] =
                    value(rank, c, k++);
            }
        }
    }
    memset(b, POISON, rows * 2 * (size_t)w * sizeof(double));
    MT_OK(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &face));
    MT_OK(MPI_Type_commit(&face));
    /* the receive: rows of w doubles, every other row-slot; truncate: a row less */
    MT_OK(MPI_Type_vector((int)rows - (truncate ? 1 : 0), w, 2 * w, MPI_DOUBLE, &vec));
    MT_OK(MPI_Type_commit(&vec));
    MT_OK(MPI_Irecv(b, 1, vec, prev, c, MPI_COMM_WORLD, &rq[0]));
    MT_OK(MPI_Isend(a, 1, face, next, c, MPI_COMM_WORLD, &rq[1]));
    if (truncate) {
        MT_ERR(MPI_Waitall(2, rq, st), MPI_ERR_IN_STATUS);
        MT_EQ(st[0].MPI_ERROR, MPI_ERR_TRUNCATE);
        MT_OK(MPI_Get_count(&st[0], vec, &count));
        MT_EQ(count, 1);
    } else {
        MT_OK(MPI_Waitall(2, rq, st));
        MT_OK(MPI_Get_count(&st[0], vec, &count));
        MT_EQ(count, 1);
    }
    MT_OK(MPI_Get_elements(&st[0], vec, &elems));
    MT_EQ(elems, (rows - (truncate ? 1 : 0)) * (size_t)w);
    k = 0;
    for (size_t r = 0; r < rows; r++) {
        for (int l = 0; l < 2 * w; l++) {
            double got = b[r * 2 * (size_t)w + (size_t)l];
            int data = l < w && !(truncate && r == rows - 1);

            if (data && got != value(prev, c, k)) {
                MT_FAIL("case %d (subarray %dx%dx%d): row %zu element %d is %g, expected %g",
                        c, n, n, w, r, l, got, value(prev, c, k));
            }
            if (!data) {
                const unsigned char *p = (const unsigned char *)&b[r * 2 * (size_t)w + (size_t)l];

                for (size_t q = 0; q < sizeof(double); q++) {
                    MT_EQ(p[q], POISON);
                }
            }
            k += l < w;
        }
    }
    MT_OK(MPI_Type_free(&face));
    MT_OK(MPI_Type_free(&vec));
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    static const size_t rows[] = { 12800, 131072, 393216 };   /* 100 KiB, 1, 3 MiB */
    static const size_t parts[] = { 5000, 70000 };            /* 100 KiB, 1.3 MiB */
    int c = 0;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    small = argc > 1 && strcmp(argv[1], "small") == 0;
    for (int t = 0; t < 2; t++) {
        for (size_t i = 0; i < (small ? 2u : 3u); i++) {
            case_column(++c, rows[i], i == 0 ? 3 : 8, 0, t);
            case_column(++c, rows[i], 8, 128, t);   /* 1 KiB blocks: get_iov */
        }
        for (size_t i = 0; i < (small ? 1u : 2u); i++) {
            case_struct(++c, parts[i], t);
        }
        case_subarray(++c, small ? 48 : 96, 4, t);   /* 72 KiB, 288 KiB */
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    hop = 0;   /* to itself: the RTS arrives while the sender still packs */
    case_column(++c, rows[1], 8, 0, 0);
    case_struct(++c, parts[1], 1);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_dt_pipe");
    MT_OK(MPI_Finalize());
    return 0;
}
