/*
 * osu_struct: ping-pong of an array of C structs with a hole, described by
 * MPI_Type_create_struct (resized to the C struct's size): the particle
 * exchange of a molecular-dynamics or particle-in-cell code.
 *
 *   struct particle { double pos[2]; int32_t id; (4 bytes padding) double q; }
 *
 * Size: the array's bytes in memory (count x 32; 28 of each 32 are data),
 * 1 KiB to 4 MiB. `-t bytes` sends the same array as MPI_BYTE instead
 * (padding included): the baseline a struct type should approach.
 * Validation (untimed, each size, both directions): the sender's fields
 * hold exact values and its padding 0x77; the receiver's array is poisoned
 * with 0xee; afterwards every field must be the sender's and every padding
 * byte still the poison (with -t bytes: the sender's 0x77).
 */
#include "osu_dtype.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_TAG 1

typedef struct particle {
    double  pos[2];
    int32_t id;
    double  q;
} particle_t;

_Static_assert(sizeof(particle_t) == 32, "the benchmark's sizes assume 32-byte particles");

static const osu_bench_desc_t struct_desc = {
    .name = "osu_struct", .title = "OSU MPI Struct Array (MPI_Type_create_struct) Latency Test",
    .kind = OSU_KIND_LATENCY, .show_size = 1, .exact_np = 2, .elem_size = 32,
    .min_size = 1024, .max_size = 1 << 22,
    .iterations = 1000, .iterations_large = 100, .skip = 100, .skip_large = 10,
};

static int as_bytes;

static void fill(particle_t *p, size_t n, int r, int round)
{
    memset(p, 0x77, n * sizeof(*p));
    for (size_t i = 0; i < n; i++) {
        p[i].pos[0] = osu_dt_value(4 * i, r, round);
        p[i].pos[1] = osu_dt_value(4 * i + 1, r, round);
        p[i].id = (int32_t)osu_dt_value(4 * i + 2, r, round);
        p[i].q = osu_dt_value(4 * i + 3, r, round);
    }
}

static int check(const osu_ctx_t *ctx, const particle_t *p, size_t n, int from, int round,
                 size_t size)
{
    unsigned char pad = as_bytes ? 0x77 : 0xee;

    for (size_t i = 0; i < n; i++) {
        const unsigned char *hole = (const unsigned char *)&p[i] + offsetof(particle_t, id) + 4;

        if (p[i].pos[0] != osu_dt_value(4 * i, from, round))
            return osu_dt_fail(ctx, size, "pos[0]", i, p[i].pos[0], osu_dt_value(4 * i, from, round));
        if (p[i].pos[1] != osu_dt_value(4 * i + 1, from, round))
            return osu_dt_fail(ctx, size, "pos[1]", i, p[i].pos[1],
                               osu_dt_value(4 * i + 1, from, round));
        if (p[i].id != (int32_t)osu_dt_value(4 * i + 2, from, round))
            return osu_dt_fail(ctx, size, "id", i, p[i].id, osu_dt_value(4 * i + 2, from, round));
        if (p[i].q != osu_dt_value(4 * i + 3, from, round))
            return osu_dt_fail(ctx, size, "q", i, p[i].q, osu_dt_value(4 * i + 3, from, round));
        for (int k = 0; k < 4; k++) {
            if (hole[k] != pad)
                return osu_dt_fail(ctx, size, "padding byte (written by the receive)", i,
                                   hole[k], pad);
        }
    }
    return 0;
}

static int validate(const osu_ctx_t *ctx, particle_t *a, particle_t *b, size_t n, int count,
                    MPI_Datatype t, size_t size)
{
    int peer = 1 - ctx->rank, errors = 0;

    for (int round = 0; round < OSU_VALIDATE_ROUNDS; round++) {
        memset(b, 0xee, n * sizeof(*b));
        if (ctx->rank == 0) {
            fill(a, n, 0, round);
            MPI_Send(a, count, t, peer, ST_TAG, MPI_COMM_WORLD);
            MPI_Recv(b, count, t, peer, ST_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errors += check(ctx, b, n, 1, round, size);
        } else {
            MPI_Recv(b, count, t, peer, ST_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errors += check(ctx, b, n, 0, round, size);
            fill(a, n, 1, round);
            MPI_Send(a, count, t, peer, ST_TAG, MPI_COMM_WORLD);
        }
    }
    return errors;
}

static MPI_Datatype particle_type(void)
{
    int bl[] = { 2, 1, 1 };
    MPI_Aint d[] = { offsetof(particle_t, pos), offsetof(particle_t, id),
                     offsetof(particle_t, q) };
    MPI_Datatype ty[] = { MPI_DOUBLE, MPI_INT32_T, MPI_DOUBLE }, s, t;

    MPI_Type_create_struct(3, bl, d, ty, &s);
    MPI_Type_create_resized(s, 0, sizeof(particle_t), &t);
    MPI_Type_free(&s);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    osu_ctx_t ctx;
    int status, failed = 0;
    const char *mode = osu_dt_take_opt(&argc, argv, 't', "struct");
    particle_t *a, *b;
    MPI_Datatype pt;

    if (!osu_init(&ctx, &struct_desc, &argc, &argv, &status))
        return osu_finish(&ctx, status);
    if (strcmp(mode, "struct") != 0 && strcmp(mode, "bytes") != 0) {
        if (ctx.rank == 0)
            fprintf(stderr, "osu_struct: -t %s: use -t struct or -t bytes\n", mode);
        return osu_finish(&ctx, 1);
    }
    as_bytes = strcmp(mode, "bytes") == 0;
    pt = particle_type();
    osu_limit_max_size(&ctx, 2);
    a = osu_alloc(&ctx, ctx.opt.max_size);
    b = osu_alloc(&ctx, ctx.opt.max_size);
    osu_print_header(&ctx);
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        size_t n = size / sizeof(particle_t);
        int count = as_bytes ? (int)(n * sizeof(particle_t)) : (int)n;
        MPI_Datatype t = as_bytes ? MPI_BYTE : pt;
        int errors = ctx.opt.validate
                   ? osu_agree(&ctx, validate(&ctx, a, b, n, count, t, size)) : 0;
        int valid = errors == 0;

        if (!valid)
            failed = osu_report_failure(&ctx, size, errors);
        if (!valid && !ctx.opt.validation_column)
            break;
        osu_print_p2p(&ctx, size, osu_dt_pingpong(&ctx, a, b, count, t, size), valid);
    }
    MPI_Type_free(&pt);
    free(a);
    free(b);
    return osu_finish(&ctx, failed);
}
