/*
 * osu_halo: halo (ghost-cell) exchange on a periodic Cartesian grid of all
 * ranks, 2-D (default) or 3-D (-d 3), faces described by derived types:
 * the fastest dimension's faces by MPI_Type_vector (3-D: an hvector of
 * vectors, one per plane), the other faces by MPI_Type_create_subarray.
 *
 *   local array: (n + 2w)^d doubles, interior n^d, ghost layers w deep
 *   per dimension k, both directions at once:
 *     Irecv(ghost face -k  <- minus neighbour)   Irecv(ghost face +k <- plus)
 *     Isend(interior face +k -> plus neighbour)  Isend(interior face -k -> minus)
 *   Waitall (4d requests); time = average over ranks of one exchange
 *
 * Size: the bytes of all faces one rank sends (2d faces of n^(d-1) x w
 * cells), 1 KiB to 4 MiB. Faces grow in n up to 1024 (2-D) or 128 (3-D)
 * cells a side and then in depth w, which keeps the array under ~25 MB;
 * 3-D sizes are the nearest the geometry allows below the nominal one, and
 * the size column prints the exact bytes. The grid is MPI_Dims_create's
 * (with np = 2: 2 x 1, so the second dimension's neighbour is the rank
 * itself, and both neighbours of the first are the same rank: the tags
 * keep the directions apart).
 * Validation (untimed, each size, OSU_VALIDATE_ROUNDS rounds): interior
 * cells hold exact values of (rank, cell, round), ghosts the poison -1;
 * after one exchange every cell of the array is checked: interior cells
 * unchanged, each face ghost cell equal to the neighbour's interior cell
 * it mirrors, edge and corner ghosts (not exchanged) still -1.
 */
#include "osu_dtype.h"

#include <stdio.h>
#include <stdlib.h>

#define MAXD 3

static const osu_bench_desc_t halo_desc = {
    .name = "osu_halo", .title = "OSU MPI Halo Exchange (vector + subarray faces) Test",
    .kind = OSU_KIND_COLLECTIVE, .show_size = 1, .exact_np = 0, .elem_size = 8,
    .min_size = 1024, .max_size = 1 << 22,
    .iterations = 1000, .iterations_large = 100, .skip = 100, .skip_large = 10,
};

typedef struct face {
    MPI_Datatype type;
    size_t       off;  /* bytes from the array's start */
} face_t;

typedef struct halo {
    int      d, n, w, big;         /* dimensions, interior side, depth, side with ghosts */
    size_t   cells, bytes;         /* big^d; face bytes sent per exchange */
    MPI_Comm cart;
    int      nb[MAXD][2];          /* minus, plus neighbour per dimension */
    face_t   send[MAXD][2], recv[MAXD][2];
} halo_t;

/* interior side n and depth w for a nominal size (see the file comment) */
static void halo_geometry(halo_t *h, size_t size)
{
    size_t e = size / (2 * (size_t)h->d) / 8, n = 1;

    if (h->d == 2) {
        n = e < 1024 ? e : 1024;
    } else {
        while ((2 * n) * (2 * n) <= e && 2 * n <= 128)
            n *= 2;
    }
    if (n == 0)
        n = 1;
    h->n = (int)n;
    h->w = (int)(h->d == 2 ? e / n : e / (n * n));
    if (h->w < 1)
        h->w = 1;
    h->big = h->n + 2 * h->w;
    h->cells = 1;
    for (int k = 0; k < h->d; k++)
        h->cells *= (size_t)h->big;
    h->bytes = 2 * (size_t)h->d * (h->d == 2 ? n : n * n) * (size_t)h->w * 8;
}

/* where face (k, side) starts along k: interior (send) or ghost (recv) */
static int face_start(const halo_t *h, int side, int ghost)
{
    if (ghost)
        return side == 0 ? 0 : h->n + h->w;
    return side == 0 ? h->w : h->n;
}

static face_t face_subarray(const halo_t *h, int k, int start)
{
    int sizes[MAXD], sub[MAXD], starts[MAXD];
    face_t f = { MPI_DATATYPE_NULL, 0 };

    for (int i = 0; i < h->d; i++) {
        sizes[i] = h->big;
        sub[i] = i == k ? h->w : h->n;
        starts[i] = i == k ? start : h->w;
    }
    MPI_Type_create_subarray(h->d, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &f.type);
    MPI_Type_commit(&f.type);
    return f;
}

/* the fastest dimension's face: rows of w cells, one per interior row */
static face_t face_vector(const halo_t *h, int start)
{
    face_t f = { MPI_DATATYPE_NULL, 0 };
    size_t b = (size_t)h->big;
    MPI_Datatype rows;

    MPI_Type_vector(h->n, h->w, h->big, MPI_DOUBLE, &rows);
    if (h->d == 2) {
        f.type = rows;
        f.off = ((size_t)h->w * b + (size_t)start) * 8;
    } else {
        MPI_Type_create_hvector(h->n, 1, (MPI_Aint)(b * b * 8), rows, &f.type);
        MPI_Type_free(&rows);
        f.off = ((size_t)h->w * b * b + (size_t)h->w * b + (size_t)start) * 8;
    }
    MPI_Type_commit(&f.type);
    return f;
}

static void halo_types(halo_t *h)
{
    for (int k = 0; k < h->d; k++) {
        for (int s = 0; s < 2; s++) {
            for (int g = 0; g < 2; g++) {
                face_t f = k == h->d - 1 ? face_vector(h, face_start(h, s, g))
                                         : face_subarray(h, k, face_start(h, s, g));
                if (g)
                    h->recv[k][s] = f;
                else
                    h->send[k][s] = f;
            }
        }
    }
}

static void halo_free_types(halo_t *h)
{
    for (int k = 0; k < h->d; k++) {
        for (int s = 0; s < 2; s++) {
            MPI_Type_free(&h->send[k][s].type);
            MPI_Type_free(&h->recv[k][s].type);
        }
    }
}

static void halo_exchange(const halo_t *h, double *a)
{
    MPI_Request req[4 * MAXD];
    char *base = (char *)a;
    int nr = 0;

    for (int k = 0; k < h->d; k++) {
        MPI_Irecv(base + h->recv[k][0].off, 1, h->recv[k][0].type, h->nb[k][0], 2 * k,
                  h->cart, &req[nr++]);
        MPI_Irecv(base + h->recv[k][1].off, 1, h->recv[k][1].type, h->nb[k][1], 2 * k + 1,
                  h->cart, &req[nr++]);
        MPI_Isend(base + h->send[k][1].off, 1, h->send[k][1].type, h->nb[k][1], 2 * k,
                  h->cart, &req[nr++]);
        MPI_Isend(base + h->send[k][0].off, 1, h->send[k][0].type, h->nb[k][0], 2 * k + 1,
                  h->cart, &req[nr++]);
    }
    MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
}

static void coords_of(const halo_t *h, size_t i, int c[MAXD])
{
    for (int k = h->d - 1; k >= 0; k--, i /= (size_t)h->big)
        c[k] = (int)(i % (size_t)h->big);
}

static size_t index_of(const halo_t *h, const int c[MAXD])
{
    size_t i = 0;

    for (int k = 0; k < h->d; k++)
        i = i * (size_t)h->big + (size_t)c[k];
    return i;
}

static int outside(const halo_t *h, int c)
{
    return c < h->w || c >= h->w + h->n;
}

static void fill(const halo_t *h, double *a, int rank, int round)
{
    int c[MAXD], out;

    for (size_t i = 0; i < h->cells; i++) {
        coords_of(h, i, c);
        out = 0;
        for (int k = 0; k < h->d; k++)
            out += outside(h, c[k]);
        a[i] = out ? -1.0 : osu_dt_value(i, rank, round);
    }
}

/* the value cell @p i must hold after one exchange */
static double expected(const halo_t *h, size_t i, int rank, int round)
{
    int c[MAXD], out = 0, dim = 0;

    coords_of(h, i, c);
    for (int k = 0; k < h->d; k++) {
        if (outside(h, c[k])) {
            out++;
            dim = k;
        }
    }
    if (out == 0)
        return osu_dt_value(i, rank, round);
    if (out > 1)
        return -1.0;
    if (c[dim] < h->w) {
        c[dim] += h->n;
        return osu_dt_value(index_of(h, c), h->nb[dim][0], round);
    }
    c[dim] -= h->n;
    return osu_dt_value(index_of(h, c), h->nb[dim][1], round);
}

static int validate(const osu_ctx_t *ctx, const halo_t *h, double *a)
{
    int errors = 0;

    /* every round on every rank, failed or not: the neighbours wait for it */
    for (int round = 0; round < OSU_VALIDATE_ROUNDS; round++) {
        fill(h, a, ctx->rank, round);
        halo_exchange(h, a);
        for (size_t i = 0; i < h->cells && errors == 0; i++) {
            double want = expected(h, i, ctx->rank, round);

            if (a[i] != want) {
                errors += osu_dt_fail(ctx, h->bytes, "cell of the local array", i, a[i], want);
                break;
            }
        }
    }
    return errors;
}

static double halo_time(const osu_ctx_t *ctx, const halo_t *h, double *a, int *iters_p)
{
    int iters, skip;
    double t0 = 0.0;

    osu_loop_counts(ctx, h->bytes, &iters, &skip);
    osu_sync(ctx);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t0 = MPI_Wtime();
        halo_exchange(h, a);
    }
    *iters_p = iters;
    return (MPI_Wtime() - t0) * 1e6 / iters;
}

static int halo_cart(const osu_ctx_t *ctx, halo_t *h)
{
    int dims[MAXD] = { 0 }, periods[MAXD] = { 1, 1, 1 };

    MPI_Dims_create(ctx->nranks, h->d, dims);
    if (MPI_Cart_create(MPI_COMM_WORLD, h->d, dims, periods, 0, &h->cart) != MPI_SUCCESS)
        return 1;
    for (int k = 0; k < h->d; k++)
        MPI_Cart_shift(h->cart, k, 1, &h->nb[k][0], &h->nb[k][1]);
    if (ctx->rank == 0 && h->d == 2)
        printf("# 2-D periodic grid %d x %d\n", dims[0], dims[1]);
    else if (ctx->rank == 0)
        printf("# 3-D periodic grid %d x %d x %d\n", dims[0], dims[1], dims[2]);
    return 0;
}

int main(int argc, char **argv)
{
    osu_ctx_t ctx;
    halo_t h = { .d = atoi(osu_dt_take_opt(&argc, argv, 'd', "2")) };
    int status, failed = 0;
    double *a;

    if (!osu_init(&ctx, &halo_desc, &argc, &argv, &status))
        return osu_finish(&ctx, status);
    if (h.d != 2 && h.d != 3) {
        if (ctx.rank == 0)
            fprintf(stderr, "osu_halo: -d %d: use -d 2 or -d 3\n", h.d);
        return osu_finish(&ctx, 1);
    }
    osu_print_header(&ctx);
    if (halo_cart(&ctx, &h) != 0)
        return osu_finish(&ctx, 1);
    size_t most = 1;
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        halo_geometry(&h, size);
        most = h.cells > most ? h.cells : most;
    }
    a = osu_alloc(&ctx, most * 8);
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        int errors, valid, iters = 0;
        double us;

        halo_geometry(&h, size);
        halo_types(&h);
        errors = ctx.opt.validate ? osu_agree(&ctx, validate(&ctx, &h, a)) : 0;
        valid = errors == 0;
        if (!valid)
            failed = osu_report_failure(&ctx, h.bytes, errors);
        if (valid || ctx.opt.validation_column) {
            us = halo_time(&ctx, &h, a, &iters);
            osu_print_coll(&ctx, h.bytes, us, iters, valid);
        }
        halo_free_types(&h);
        if (!valid && !ctx.opt.validation_column)
            break;
    }
    MPI_Comm_free(&h.cart);
    free(a);
    return osu_finish(&ctx, failed);
}
