/*
 * osu_column: ping-pong of one column of a row-major matrix of doubles,
 * described as MPI_Type_vector(rows, 1, cols, MPI_DOUBLE): the classic
 * strided transfer of a linear algebra code.
 *
 *   rank 0: Send(column 1 of A) -> Recv(into column 1 of A')   } latency =
 *   rank 1: Recv(into column 2 of B) -> Send(column 2 of B)    } time / 2 iters
 *
 * Size: the column's data bytes (rows x 8), 1 KiB to 4 MiB by default; the
 * matrix has -n COLS columns (default 8), so it takes cols x size bytes.
 * Validation (untimed, each size, OSU_VALIDATE_ROUNDS rounds, both
 * directions): the sender's matrix holds exact values, the receiver's is
 * poisoned with -1, and every cell of the receiving matrix is checked: its
 * column must hold the sender's column, every other cell the poison.
 */
#include "osu_dtype.h"

#include <stdio.h>
#include <stdlib.h>

#define COL_TAG 1

static const osu_bench_desc_t column_desc = {
    .name = "osu_column", .title = "OSU MPI Matrix Column (MPI_Type_vector) Latency Test",
    .kind = OSU_KIND_LATENCY, .show_size = 1, .exact_np = 2, .elem_size = 8,
    .min_size = 1024, .max_size = 1 << 22,
    .iterations = 1000, .iterations_large = 100, .skip = 100, .skip_large = 10,
};

static int ncols = 8;

/* the column of rank @p r's matrix the exchange uses */
static int col_of(int r)
{
    return 1 + r;
}

static void fill(double *m, size_t rows, int r, int round)
{
    for (size_t i = 0; i < rows * (size_t)ncols; i++)
        m[i] = osu_dt_value(i, r, round);
}

static void poison(double *m, size_t rows)
{
    for (size_t i = 0; i < rows * (size_t)ncols; i++)
        m[i] = -1.0;
}

/* every cell of @p m after receiving column col_of(from) of rank from's matrix */
static int check(const osu_ctx_t *ctx, const double *m, size_t rows, int from, int round,
                 size_t size)
{
    int mine = col_of(ctx->rank);

    for (size_t i = 0; i < rows; i++) {
        for (int c = 0; c < ncols; c++) {
            size_t at = i * (size_t)ncols + (size_t)c;
            double want = c == mine
                ? osu_dt_value(i * (size_t)ncols + (size_t)col_of(from), from, round) : -1.0;

            if (m[at] != want)
                return osu_dt_fail(ctx, size, c == mine ? "received column"
                                   : "cell outside the column", at, m[at], want);
        }
    }
    return 0;
}

static int validate(const osu_ctx_t *ctx, double *a, double *b, size_t rows,
                    MPI_Datatype col, size_t size)
{
    int peer = 1 - ctx->rank, errors = 0;

    for (int round = 0; round < OSU_VALIDATE_ROUNDS; round++) {
        if (ctx->rank == 0) {
            fill(a, rows, 0, round);
            poison(b, rows);
            MPI_Send(a + col_of(0), 1, col, peer, COL_TAG, MPI_COMM_WORLD);
            MPI_Recv(b + col_of(0), 1, col, peer, COL_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errors += check(ctx, b, rows, 1, round, size);
        } else {
            poison(b, rows);
            MPI_Recv(b + col_of(1), 1, col, peer, COL_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errors += check(ctx, b, rows, 0, round, size);
            fill(b, rows, 1, round);
            MPI_Send(b + col_of(1), 1, col, peer, COL_TAG, MPI_COMM_WORLD);
        }
    }
    return errors;
}

int main(int argc, char **argv)
{
    osu_ctx_t ctx;
    int status, failed = 0;
    double *a, *b;

    ncols = atoi(osu_dt_take_opt(&argc, argv, 'n', "8"));
    if (!osu_init(&ctx, &column_desc, &argc, &argv, &status))
        return osu_finish(&ctx, status);
    if (ncols < 3) {
        if (ctx.rank == 0)
            fprintf(stderr, "osu_column: -n %d: the matrix needs at least 3 columns\n", ncols);
        return osu_finish(&ctx, 1);
    }
    osu_limit_max_size(&ctx, 2 * (size_t)ncols);
    a = osu_alloc(&ctx, ctx.opt.max_size * (size_t)ncols);
    b = osu_alloc(&ctx, ctx.opt.max_size * (size_t)ncols);
    osu_print_header(&ctx);
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        size_t rows = size / 8;
        MPI_Datatype col;
        int errors, valid;

        MPI_Type_vector((int)rows, 1, ncols, MPI_DOUBLE, &col);
        MPI_Type_commit(&col);
        errors = ctx.opt.validate ? osu_agree(&ctx, validate(&ctx, a, b, rows, col, size)) : 0;
        valid = errors == 0;
        if (!valid)
            failed = osu_report_failure(&ctx, size, errors);
        if (valid || ctx.opt.validation_column) {
            double us = ctx.rank == 0
                ? osu_dt_pingpong(&ctx, a + col_of(0), b + col_of(0), 1, col, size)
                : osu_dt_pingpong(&ctx, NULL, b + col_of(1), 1, col, size);
            osu_print_p2p(&ctx, size, us, valid);
        }
        MPI_Type_free(&col);
        if (!valid && !ctx.opt.validation_column)
            break;
    }
    free(a);
    free(b);
    return osu_finish(&ctx, failed);
}
