/*
 * osu_util.c: options, headers, result lines, buffers, data patterns and
 * the validation verdict shared by every benchmark in bench/. See
 * osu_util.h for the design; this file is plain MPI and libc.
 */
#include "osu_util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OSU_BENCH_VERSION "loom-bench 1.0 (OSU 5.x format)"

static void osu_usage(const osu_ctx_t *ctx)
{
    const osu_bench_desc_t *d = ctx->desc;

    printf("Usage: %s [options]\n", d->name);
    printf("Options:\n");
    if (d->show_size) {
        printf("  -m, --message-size          [MIN:]MAX  set the minimum and/or the maximum message size\n"
               "                              to MIN and/or MAX bytes (default %zu:%zu)\n",
               d->min_size, d->max_size);
        printf("  -M, --mem-limit SIZE        per-process memory limit in bytes (default %u)\n",
               OSU_MEM_LIMIT);
    }
    printf("  -i, --iterations ITER       timed iterations per size (default %d, %d above %d bytes)\n",
           d->iterations, d->iterations_large, OSU_LARGE_SIZE);
    printf("  -x, --warmup ITER           warm-up iterations before timing (default %d, %d above %d bytes)\n",
           d->skip, d->skip_large, OSU_LARGE_SIZE);
    if (d->has_window)
        printf("  -W, --window-size SIZE      messages in flight before an acknowledgement (default 64, at most %d)\n",
               OSU_MAX_WINDOW);
    if (d->kind == OSU_KIND_COLLECTIVE)
        printf("  -f, --full                  print min and max latency and the iteration count\n");
    printf("  -c, --validation            print a Validation column (Pass/Fail)\n"
           "      --no-validation         skip the untimed per-size validation (on by default)\n");
    printf("  -v, --version               print the version\n"
           "  -h, --help                  print this help\n");
}

/* Parse a non-negative integer that must fit @p max; -1 when malformed. */
static long long osu_parse_num(const char *s, long long max)
{
    char *end = NULL;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0 || v > max)
        return -1;
    return v;
}

/* -m [MIN:]MAX, MIN:, :MAX; returns 0 or -1. */
static int osu_parse_sizes(osu_options_t *o, const char *arg)
{
    char buf[64];
    char *colon;
    long long v;

    if (strlen(arg) >= sizeof(buf))
        return -1;
    strcpy(buf, arg);
    colon = strchr(buf, ':');
    if (colon == NULL) {
        v = osu_parse_num(buf, LLONG_MAX);
        if (v < 0)
            return -1;
        o->max_size = (size_t)v;
        return 0;
    }
    *colon = '\0';
    if (buf[0] != '\0') {
        v = osu_parse_num(buf, LLONG_MAX);
        if (v < 0)
            return -1;
        o->min_size = (size_t)v;
    }
    if (colon[1] != '\0') {
        v = osu_parse_num(colon + 1, LLONG_MAX);
        if (v < 0)
            return -1;
        o->max_size = (size_t)v;
    }
    return 0;
}

enum { OSU_OPT_NO_VALIDATION = 1000 };

/* Returns 0 to run, 1 to exit 0 (help/version), -1 on a bad option. */
static int osu_parse(osu_ctx_t *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'v' },
        { "message-size", required_argument, NULL, 'm' },
        { "iterations", required_argument, NULL, 'i' },
        { "warmup", required_argument, NULL, 'x' },
        { "window-size", required_argument, NULL, 'W' },
        { "full", no_argument, NULL, 'f' },
        { "validation", no_argument, NULL, 'c' },
        { "no-validation", no_argument, NULL, OSU_OPT_NO_VALIDATION },
        { "mem-limit", required_argument, NULL, 'M' },
        { NULL, 0, NULL, 0 },
    };
    const osu_bench_desc_t *d = ctx->desc;
    osu_options_t *o = &ctx->opt;
    long long v;
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, "hvm:i:x:W:fcM:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            if (ctx->rank == 0)
                osu_usage(ctx);
            return 1;
        case 'v':
            if (ctx->rank == 0)
                printf("# %s %s\n", d->title, OSU_BENCH_VERSION);
            return 1;
        case 'm':
            if (!d->show_size || osu_parse_sizes(o, optarg) != 0)
                goto bad_option;
            break;
        case 'i':
            v = osu_parse_num(optarg, INT_MAX);
            if (v < 1)
                goto bad_option;
            o->iterations = o->iterations_large = (int)v;
            break;
        case 'x':
            v = osu_parse_num(optarg, INT_MAX);
            if (v < 0)
                goto bad_option;
            o->skip = o->skip_large = (int)v;
            break;
        case 'W':
            v = osu_parse_num(optarg, OSU_MAX_WINDOW);
            if (!d->has_window || v < 1)
                goto bad_option;
            o->window = (int)v;
            break;
        case 'f':
            if (d->kind != OSU_KIND_COLLECTIVE)
                goto bad_option;
            o->full = 1;
            break;
        case 'c':
            o->validate = 1;
            o->validation_column = 1;
            break;
        case OSU_OPT_NO_VALIDATION:
            o->validate = 0;
            o->validation_column = 0;
            break;
        case 'M':
            v = osu_parse_num(optarg, LLONG_MAX);
            if (v < 1)
                goto bad_option;
            o->mem_limit = (size_t)v;
            break;
        default:
            goto bad_option;
        }
    }
    if (optind < argc) {
        if (ctx->rank == 0)
            fprintf(stderr, "%s: unexpected argument '%s'\n", d->name, argv[optind]);
        return -1;
    }
    return 0;

bad_option:
    if (ctx->rank == 0) {
        if (c == '?' && optopt != 0)
            fprintf(stderr, "%s: unknown option or missing value: -%c\n", d->name, optopt);
        else if (c == '?')
            fprintf(stderr, "%s: unknown option '%s'\n", d->name, argv[optind - 1]);
        else if (optarg == NULL || c == 'W' || c == 'm')
            fprintf(stderr, "%s: option -%c%s%s does not apply or is out of range\n",
                    d->name, c, optarg ? " " : "", optarg ? optarg : "");
        else
            fprintf(stderr, "%s: invalid value for -%c: '%s'\n", d->name, c, optarg);
        osu_usage(ctx);
    }
    return -1;
}

/* Round the sizes to whole elements (OSU's reductions count floats), then
 * require min <= max. */
static int osu_check_sizes(osu_ctx_t *ctx)
{
    osu_options_t *o = &ctx->opt;
    size_t e = ctx->desc->elem_size;

    o->min_size = (o->min_size + e - 1) / e * e;
    o->max_size -= o->max_size % e;
    if (o->min_size == 0 && e > 1)
        o->min_size = e;
    if (o->max_size > INT_MAX) {
        if (ctx->rank == 0)
            fprintf(stderr, "%s: largest size %zu is above %d bytes (MPI counts are int)\n",
                    ctx->desc->name, o->max_size, INT_MAX);
        return -1;
    }
    if (o->max_size < o->min_size) {
        if (ctx->rank == 0)
            fprintf(stderr, "%s: message sizes %zu:%zu are empty (sizes are whole "
                    "multiples of %zu bytes and min <= max)\n", ctx->desc->name,
                    o->min_size, o->max_size, e);
        return -1;
    }
    return 0;
}

int osu_init(osu_ctx_t *ctx, const osu_bench_desc_t *desc, int *argc, char ***argv,
             int *status_p)
{
    int rc;

    MPI_Init(argc, argv);
    memset(ctx, 0, sizeof(*ctx));
    ctx->desc = desc;
    MPI_Comm_rank(MPI_COMM_WORLD, &ctx->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ctx->nranks);
    ctx->opt = (osu_options_t){
        .min_size = desc->min_size, .max_size = desc->max_size,
        .iterations = desc->iterations, .iterations_large = desc->iterations_large,
        .skip = desc->skip, .skip_large = desc->skip_large,
        .window = 64, .validate = 1, .mem_limit = OSU_MEM_LIMIT,
    };
    rc = osu_parse(ctx, *argc, *argv);
    if (rc != 0) {
        *status_p = rc > 0 ? 0 : 1;
        return 0;
    }
    *status_p = 1;
    if (osu_check_sizes(ctx) != 0)
        return 0;
    if ((desc->exact_np != 0 && ctx->nranks != desc->exact_np) ||
        (desc->exact_np == 0 && ctx->nranks < 2)) {
        if (ctx->rank == 0)
            fprintf(stderr, "%s: needs %s %d ranks, got %d\n", desc->name,
                    desc->exact_np ? "exactly" : "at least",
                    desc->exact_np ? desc->exact_np : 2, ctx->nranks);
        return 0;
    }
    *status_p = 0;
    return 1;
}

int osu_finish(osu_ctx_t *ctx, int failed)
{
    (void)ctx;
    fflush(stdout);
    MPI_Finalize();
    return failed ? 1 : 0;
}

void osu_print_header(const osu_ctx_t *ctx)
{
    const osu_options_t *o = &ctx->opt;

    if (ctx->rank != 0)
        return;
    printf("# %s\n", ctx->desc->title);
    if (ctx->desc->kind == OSU_KIND_BANDWIDTH)
        printf("# Window size: %d\n", o->window);
    if (ctx->desc->kind != OSU_KIND_COLLECTIVE) {
        printf("%-*s%*s", 10, "# Size", OSU_FIELD_WIDTH,
               ctx->desc->kind == OSU_KIND_LATENCY ? "Latency (us)" : "Bandwidth (MB/s)");
    } else {
        if (ctx->desc->show_size)
            printf("%-*s%*s", 10, "# Size", OSU_FIELD_WIDTH, "Avg Latency(us)");
        else
            printf("# Avg Latency(us)");
        if (o->full)
            printf("%*s%*s%*s", OSU_FIELD_WIDTH, "Min Latency(us)", OSU_FIELD_WIDTH,
                   "Max Latency(us)", 12, "Iterations");
    }
    if (o->validation_column)
        printf("%*s", 12, "Validation");
    printf("\n");
    fflush(stdout);
}

void osu_print_p2p(const osu_ctx_t *ctx, size_t size, double value, int valid)
{
    if (ctx->rank != 0)
        return;
    printf("%-*zu%*.*f", 10, size, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, value);
    if (ctx->opt.validation_column)
        printf("%*s", 12, valid ? "Pass" : "Fail");
    printf("\n");
    fflush(stdout);
}

void osu_print_coll(const osu_ctx_t *ctx, size_t size, double local_us,
                    int iterations, int valid)
{
    double vmin = 0, vmax = 0, vsum = 0;

    MPI_Reduce(&local_us, &vmin, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local_us, &vmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local_us, &vsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (ctx->rank != 0)
        return;
    if (ctx->desc->show_size)
        printf("%-*zu%*.*f", 10, size, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION,
               vsum / ctx->nranks);
    else
        printf("%*.*f", 17, OSU_FLOAT_PRECISION, vsum / ctx->nranks);
    if (ctx->opt.full)
        printf("%*.*f%*.*f%*d", OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, vmin,
               OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, vmax, 12, iterations);
    if (ctx->opt.validation_column)
        printf("%*s", 12, valid ? "Pass" : "Fail");
    printf("\n");
    fflush(stdout);
}

void osu_loop_counts(const osu_ctx_t *ctx, size_t size, int *iters_p, int *skip_p)
{
    int large = size > OSU_LARGE_SIZE;

    *iters_p = large ? ctx->opt.iterations_large : ctx->opt.iterations;
    *skip_p = large ? ctx->opt.skip_large : ctx->opt.skip;
}

size_t osu_next_size(const osu_ctx_t *ctx, size_t size)
{
    return size == 0 ? ctx->desc->elem_size : size * 2;
}

void osu_limit_max_size(osu_ctx_t *ctx, size_t bytes_per_byte)
{
    osu_options_t *o = &ctx->opt;
    size_t before = o->max_size;

    while (o->max_size > o->min_size && o->max_size > ctx->desc->elem_size &&
           o->max_size > o->mem_limit / bytes_per_byte) {
        o->max_size /= 2;
        o->max_size -= o->max_size % ctx->desc->elem_size;
    }
    if (o->max_size != before && ctx->rank == 0)
        printf("# Max message size lowered from %zu to %zu bytes by the memory limit "
               "(-M %zu)\n", before, o->max_size, o->mem_limit);
}

void *osu_alloc(const osu_ctx_t *ctx, size_t bytes)
{
    void *p = NULL;
    int rc = posix_memalign(&p, 4096, bytes ? bytes : 1);

    if (rc != 0) {
        fprintf(stderr, "%s: rank %d: cannot allocate %zu bytes: %s\n",
                ctx->desc->name, ctx->rank, bytes, strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
        return NULL;
    }
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

uint32_t osu_seed(size_t size, int round, int a, int b)
{
    uint64_t h = (uint64_t)size * 0x9E3779B97F4A7C15ull;

    h ^= ((uint64_t)(uint32_t)round << 40) ^ ((uint64_t)(uint32_t)a << 20) ^ (uint32_t)b;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static inline uint8_t osu_pattern_byte(size_t i, uint32_t seed)
{
    return (uint8_t)((seed + (uint32_t)i * 2654435761u) >> 24);
}

void osu_fill(void *buf, size_t len, uint32_t seed)
{
    uint8_t *p = buf;

    for (size_t i = 0; i < len; i++)
        p[i] = osu_pattern_byte(i, seed);
}

void osu_poison(void *buf, size_t len, uint32_t seed)
{
    uint8_t *p = buf;

    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)~osu_pattern_byte(i, seed);
}

int osu_check(const osu_ctx_t *ctx, const void *buf, size_t len, uint32_t seed,
              size_t size, const char *what)
{
    const uint8_t *p = buf;

    for (size_t i = 0; i < len; i++) {
        uint8_t want = osu_pattern_byte(i, seed);

        if (p[i] != want) {
            fprintf(stderr, "%s: validation failed on rank %d, size %zu: %s: byte %zu "
                    "is 0x%02x, expected 0x%02x\n", ctx->desc->name, ctx->rank, size,
                    what, i, p[i], want);
            return 1;
        }
    }
    return 0;
}

float osu_float_value(size_t i, int r, uint32_t seed)
{
    return (float)((r + 1) * (int)(((uint32_t)i + seed) % 61u + 1u));
}

int osu_check_float_sum(const osu_ctx_t *ctx, const float *buf, size_t count,
                        uint32_t seed, size_t size, const char *what)
{
    float scale = (float)ctx->nranks * (float)(ctx->nranks + 1) / 2.0f;

    for (size_t i = 0; i < count; i++) {
        float want = scale * osu_float_value(i, 0, seed);

        if (buf[i] != want) {
            fprintf(stderr, "%s: validation failed on rank %d, size %zu: %s: element %zu "
                    "is %g, expected %g\n", ctx->desc->name, ctx->rank, size, what, i,
                    (double)buf[i], (double)want);
            return 1;
        }
    }
    return 0;
}

int osu_agree(const osu_ctx_t *ctx, int local_errors)
{
    int total = local_errors, v = 0;

    if (ctx->rank == 0) {
        for (int r = 1; r < ctx->nranks; r++) {
            MPI_Recv(&v, 1, MPI_INT, r, OSU_TAG_AGREE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += v;
        }
        for (int r = 1; r < ctx->nranks; r++)
            MPI_Send(&total, 1, MPI_INT, r, OSU_TAG_AGREE + 1, MPI_COMM_WORLD);
    } else {
        MPI_Send(&local_errors, 1, MPI_INT, 0, OSU_TAG_AGREE, MPI_COMM_WORLD);
        MPI_Recv(&total, 1, MPI_INT, 0, OSU_TAG_AGREE + 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
    return total;
}

void osu_sync(const osu_ctx_t *ctx)
{
    (void)osu_agree(ctx, 0);
}

int osu_check_status(const osu_ctx_t *ctx, const MPI_Status *st, int source,
                     int tag, size_t size)
{
    int count = -1;

    MPI_Get_count(st, MPI_CHAR, &count);
    if (st->MPI_SOURCE == source && st->MPI_TAG == tag && count >= 0 &&
        (size_t)count == size)
        return 0;
    fprintf(stderr, "%s: validation failed on rank %d, size %zu: status says source %d "
            "tag %d count %d, expected source %d tag %d count %zu\n", ctx->desc->name,
            ctx->rank, size, st->MPI_SOURCE, st->MPI_TAG, count, source, tag, size);
    return 1;
}

#define OSU_VALIDATE_BYTES (16u << 20)

int osu_validation_window(const osu_ctx_t *ctx, size_t size)
{
    size_t cap = size ? OSU_VALIDATE_BYTES / size : (size_t)ctx->opt.window;

    if (cap < 1)
        cap = 1;
    return cap < (size_t)ctx->opt.window ? (int)cap : ctx->opt.window;
}

/* Slice @p j of a window round gets its own pattern: stale slices show. */
static uint32_t osu_window_seed(size_t size, int round, int j, int src, int dst)
{
    return osu_seed(size, (round << 17) | j, src, dst);
}

int osu_window_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                        int round, int tag, int do_send, int do_recv)
{
    static MPI_Request reqs[2 * OSU_MAX_WINDOW];
    static MPI_Status stats[2 * OSU_MAX_WINDOW];
    int peer = 1 - ctx->rank, nwin = osu_validation_window(ctx, size), nreq = 0;
    int errors = 0, nrecv = 0;
    char what[64];

    for (int j = 0; do_recv && j < nwin; j++) {
        char *slice = (char *)rbuf + (size_t)j * size;

        osu_poison(slice, size, osu_window_seed(size, round, j, peer, ctx->rank));
        MPI_Irecv(slice, (int)size, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &reqs[nreq++]);
    }
    nrecv = nreq;
    for (int j = 0; do_send && j < nwin; j++) {
        char *slice = (char *)sbuf + (size_t)j * size;

        osu_fill(slice, size, osu_window_seed(size, round, j, ctx->rank, peer));
        MPI_Isend(slice, (int)size, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &reqs[nreq++]);
    }
    MPI_Waitall(nreq, reqs, stats);
    for (int j = 0; j < nrecv && errors == 0; j++) {
        snprintf(what, sizeof(what), "message %d of the window from rank %d", j, peer);
        errors += osu_check_status(ctx, &stats[j], peer, tag, size);
        errors += osu_check(ctx, (char *)rbuf + (size_t)j * size, size,
                            osu_window_seed(size, round, j, peer, ctx->rank), size, what);
    }
    return errors;
}

int osu_report_failure(const osu_ctx_t *ctx, size_t size, int errors)
{
    if (ctx->rank == 0) {
        fflush(stdout);
        fprintf(stderr, "%s: VALIDATION FAILED at size %zu (%d error%s across ranks; "
                "details above)\n", ctx->desc->name, size, errors, errors == 1 ? "" : "s");
    }
    return 1;
}
