/*
 * dt_pack: pack/unpack throughput of a vector type through MPI_Pack and
 * MPI_Unpack against a hand-written C loop doing the same copy, one
 * process (the datatype engine alone, no communication).
 *
 *   type: MPI_Type_vector(size / B, B / e, S x B / e, base) with blocks of
 *         B bytes (-b B: 4 = MPI_INT, 8, 16, ... = MPI_DOUBLE x B/8) spaced
 *         S blocks apart (-s S, default 2: every other block)
 *   hand loop: out[i] = in[i * stride] for one-element blocks, else for each
 *   block, for each element: out[k++] = in[i * stride + j]
 *
 * Size: the packed bytes, 1 KiB to 4 MiB. Columns: MPI_Pack MB/s, the
 * hand loop's MB/s, their time ratio (MPI_Pack time / loop time: the
 * issue's target is <= 1.2), then the same three for MPI_Unpack; each the
 * best of 8 alternating bursts (see rates()). The value column compare.sh
 * reads is the second (MPI_Pack MB/s).
 * Validation (untimed, each size): MPI_Pack's bytes must equal the hand
 * loop's; MPI_Unpack into a poisoned buffer must equal the hand unpack's
 * result, gaps included (still the poison).
 */
#include "osu_dtype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const osu_bench_desc_t pack_desc = {
    .name = "dt_pack", .title = "MPI_Pack/MPI_Unpack of a vector type vs a hand loop",
    .kind = OSU_KIND_BANDWIDTH, .show_size = 1, .exact_np = 1, .elem_size = 16,
    .min_size = 1024, .max_size = 1 << 22,
    .iterations = 2000, .iterations_large = 100, .skip = 20, .skip_large = 5,
};

typedef struct vec {
    size_t bs, esz, per, stride, nblk;  /* block bytes, element bytes, elements per
                                           block, stride in elements, blocks */
    MPI_Datatype type;
} vec_t;

/* the hand loops, per element size (what a C programmer writes) */
static void hand_pack(const vec_t *v, const void *in, void *out)
{
    size_t k = 0;

    if (v->esz == 4) {  /* blocks of one int */
        const int32_t *s = in;
        int32_t *d = out;

        for (size_t i = 0; i < v->nblk; i++)
            d[i] = s[i * v->stride];
    } else if (v->per == 1) {  /* a column of doubles */
        const double *s = in;
        double *d = out;

        for (size_t i = 0; i < v->nblk; i++)
            d[i] = s[i * v->stride];
    } else {
        const double *s = in;
        double *d = out;

        for (size_t i = 0; i < v->nblk; i++)
            for (size_t j = 0; j < v->per; j++)
                d[k++] = s[i * v->stride + j];
    }
}

static void hand_unpack(const vec_t *v, const void *in, void *out)
{
    size_t k = 0;

    if (v->esz == 4) {
        const int32_t *s = in;
        int32_t *d = out;

        for (size_t i = 0; i < v->nblk; i++)
            d[i * v->stride] = s[i];
    } else if (v->per == 1) {
        const double *s = in;
        double *d = out;

        for (size_t i = 0; i < v->nblk; i++)
            d[i * v->stride] = s[i];
    } else {
        const double *s = in;
        double *d = out;

        for (size_t i = 0; i < v->nblk; i++)
            for (size_t j = 0; j < v->per; j++)
                d[i * v->stride + j] = s[k++];
    }
}

static void mpi_pack(const vec_t *v, const void *in, void *out, size_t size)
{
    int pos = 0;

    MPI_Pack(in, 1, v->type, out, (int)size, &pos, MPI_COMM_WORLD);
}

static void mpi_unpack(const vec_t *v, const void *in, void *out, size_t size)
{
    int pos = 0;

    MPI_Unpack(in, (int)size, &pos, out, 1, v->type, MPI_COMM_WORLD);
}

typedef void (*copy_fn_t)(const vec_t *v, const void *in, void *out, size_t size);

static void hand_pack_fn(const vec_t *v, const void *in, void *out, size_t size)
{
    (void)size;
    hand_pack(v, in, out);
}

static void hand_unpack_fn(const vec_t *v, const void *in, void *out, size_t size)
{
    (void)size;
    hand_unpack(v, in, out);
}

/*
 * MB/s of the four copies of @p size, out[0..3] = MPI_Pack, its loop,
 * MPI_Unpack, its loop: the iterations are split in ROUNDS bursts that
 * alternate between the four, and each keeps its best burst, so a busy
 * machine (other work slows some bursts down, never speeds one up) skews
 * the ratios far less than one long run of each would.
 */
#define ROUNDS 8

static void rates(const osu_ctx_t *ctx, const vec_t *v, const char *src, char *pk,
                  char *hk, char *u1, char *u2, size_t size, double out[4])
{
    copy_fn_t fn[4] = { mpi_pack, hand_pack_fn, mpi_unpack, hand_unpack_fn };
    const void *in[4] = { src, src, hk, hk };
    void *dst[4] = { pk, hk, u1, u2 };
    double best[4] = { 0, 0, 0, 0 };
    int iters, skip, per;

    osu_loop_counts(ctx, size, &iters, &skip);
    per = iters / ROUNDS > 0 ? iters / ROUNDS : 1;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < skip; i++)
            fn[k](v, in[k], dst[k], size);
    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < 4; k++) {
            double t0 = MPI_Wtime(), t;

            for (int i = 0; i < per; i++)
                fn[k](v, in[k], dst[k], size);
            t = MPI_Wtime() - t0;
            if (best[k] == 0 || t < best[k])
                best[k] = t;
        }
    }
    for (int k = 0; k < 4; k++)
        out[k] = (double)size * per / (best[k] * 1e6);
}

static int validate(const osu_ctx_t *ctx, const vec_t *v, char *src, char *p1, char *p2,
                    char *u1, char *u2, size_t size)
{
    size_t span = v->nblk * v->stride * v->esz;

    osu_fill(src, span, osu_seed(size, 0, 0, 0));
    memset(p1, 0x11, size);
    memset(p2, 0x22, size);
    mpi_pack(v, src, p1, size);
    hand_pack(v, src, p2);
    for (size_t i = 0; i < size; i++)
        if (p1[i] != p2[i])
            return osu_dt_fail(ctx, size, "MPI_Pack byte (vs the hand loop)", i,
                               (unsigned char)p1[i], (unsigned char)p2[i]);
    osu_poison(u1, span, osu_seed(size, 1, 0, 0));
    memcpy(u2, u1, span);
    mpi_unpack(v, p2, u1, size);
    hand_unpack(v, p2, u2);
    for (size_t i = 0; i < span; i++)
        if (u1[i] != u2[i])
            return osu_dt_fail(ctx, size, "MPI_Unpack byte (vs the hand loop)", i,
                               (unsigned char)u1[i], (unsigned char)u2[i]);
    return 0;
}

static int vec_setup(vec_t *v, size_t bs, size_t sfac, size_t size)
{
    v->bs = bs;
    v->esz = bs == 4 ? 4 : 8;
    v->per = bs / v->esz;
    v->stride = sfac * v->per;
    v->nblk = size / bs;
    return MPI_Type_vector((int)v->nblk, (int)v->per, (int)v->stride,
                           v->esz == 4 ? MPI_INT32_T : MPI_DOUBLE, &v->type) != MPI_SUCCESS ||
           MPI_Type_commit(&v->type) != MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    osu_ctx_t ctx;
    long bs = atol(osu_dt_take_opt(&argc, argv, 'b', "8"));
    long sfac = atol(osu_dt_take_opt(&argc, argv, 's', "2"));
    int status, failed = 0;
    char *src, *p1, *p2, *u1, *u2;

    if (!osu_init(&ctx, &pack_desc, &argc, &argv, &status))
        return osu_finish(&ctx, status);
    if ((bs != 4 && (bs < 8 || bs % 8 != 0 || bs > 4096)) || sfac < 1 || sfac > 64) {
        fprintf(stderr, "dt_pack: -b %ld -s %ld: blocks of 4 or a multiple of 8 bytes up to "
                "4096, spaced 1 to 64 blocks apart\n", bs, sfac);
        return osu_finish(&ctx, 1);
    }
    osu_limit_max_size(&ctx, 2 + 3 * (size_t)sfac);
    src = osu_alloc(&ctx, ctx.opt.max_size * (size_t)sfac);
    u1 = osu_alloc(&ctx, ctx.opt.max_size * (size_t)sfac);
    u2 = osu_alloc(&ctx, ctx.opt.max_size * (size_t)sfac);
    p1 = osu_alloc(&ctx, ctx.opt.max_size);
    p2 = osu_alloc(&ctx, ctx.opt.max_size);
    printf("# %s\n# blocks of %ld bytes, every %ld blocks; ratio = time / hand loop time\n",
           pack_desc.title, bs, sfac);
    printf("%-10s%20s%16s%10s%20s%16s%10s%s\n", "# Size", "MPI_Pack (MB/s)", "loop (MB/s)",
           "ratio", "MPI_Unpack (MB/s)", "loop (MB/s)", "ratio",
           ctx.opt.validation_column ? "  Validation" : "");
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        vec_t v;
        int valid;
        double pk, hp, up, hu;

        if (size % (size_t)bs != 0 || vec_setup(&v, (size_t)bs, (size_t)sfac, size) != 0)
            continue;
        valid = !ctx.opt.validate || validate(&ctx, &v, src, p1, p2, u1, u2, size) == 0;
        if (!valid)
            failed = osu_report_failure(&ctx, size, 1);
        if (valid || ctx.opt.validation_column) {
            double r[4];

            rates(&ctx, &v, src, p1, p2, u1, u2, size, r);
            pk = r[0], hp = r[1], up = r[2], hu = r[3];
            printf("%-10zu%20.2f%16.2f%10.2f%20.2f%16.2f%10.2f%s\n", size, pk, hp, hp / pk, up,
                   hu, hu / up, ctx.opt.validation_column ? (valid ? "        Pass" : "        Fail")
                                                          : "");
            fflush(stdout);
        }
        MPI_Type_free(&v.type);
        if (!valid && !ctx.opt.validation_column)
            break;
    }
    free(src);
    free(u1);
    free(u2);
    free(p1);
    free(p2);
    return osu_finish(&ctx, failed);
}
