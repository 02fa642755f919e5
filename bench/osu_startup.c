/*
 * osu_startup: start-up time and shared memory in use, at any rank count.
 *
 * Built like every bench/ program for both loom and Open MPI, and driven
 * over a list of rank counts by bench/scale.sh. One run:
 *
 *   t_start = now                         (before MPI_Init, CLOCK_REALTIME)
 *   MPI_Init; t_init = now
 *   barrier; measure "init"               (shared memory right after init)
 *   all-pairs exchange of each -m size    (checked data, every ordered pair)
 *   barrier; measure "exchange"
 *   MPI_Finalize
 *
 * Times: the launcher side passes its own clock before it started the job
 * (-t SECONDS since the epoch, e.g. `date +%s.%N`); rank 0 prints the
 * largest t_init - launch over ranks (launch to MPI_Init return, what a user
 * waits for) and the largest t_init - t_start (MPI_Init alone).
 *
 * Shared memory "in use" is counted at a barrier so nothing changes under
 * the measurement (every rank reads its own /proc/self/smaps, then the
 * results are reduced to rank 0), for the MAP_SHARED file mappings of the
 * ranks, split by where the file lives: "shm_" for /dev/shm (tmpfs: the
 * libraries' segments, RAM), "other_" for the rest (e.g. the PMIx dstore in
 * /tmp, on disk):
 *   *_alloc_kB  pages allocated to those files (what `du -k` reports for
 *             them): each rank lists the (device, inode) of every mapping and
 *             its st_blocks (fstat through /proc/self/map_files, which also
 *             works after the file was unlinked); rank 0 unites the lists.
 *             Segments a library unlinked count as long as some rank maps them.
 *   *_pss_kB  sum over ranks of the Pss of those mappings: the pages mapped
 *             somewhere, each counted once across the job.
 *   shm_rss_kB  sum over ranks of their Rss (touched pages, once per rank),
 *   shm_map_kB  sum of their sizes (address space mapped, once per rank).
 *   meminfo_delta_kB  /proc/meminfo Shmem minus the -b baseline (read by the
 *             launcher side just before the launch): whole machine, so other
 *             jobs add noise, but it also sees pages nobody maps any more.
 *
 * The exchange: for each size and d = 1 .. n-1, rank r posts -r receives
 * from r-d and -r sends to r+d and waits for all of them (so every ordered
 * pair carries every size -r times), each message a pattern of (size,
 * round, sender, receiver) checked with its status on arrival. The default -r 20 exceeds Open MPI vader's
 * fast-box threshold (16 messages), so both libraries are measured with
 * every pair "busy". Ranks wait in MPI_Waitall/MPI_Barrier only, never in
 * a spin loop of this program.
 */
#include "osu_util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SU_TAG        7
#define SU_MAX_SIZES  8
#define SU_MAX_FILES  4096          /* distinct shared files one rank maps */
#define SU_ROUNDS     20            /* > Open MPI vader's fast-box threshold (16) */

static const osu_bench_desc_t startup_desc = {
    .name = "osu_startup", .title = "OSU-style MPI Start-up and Shared Memory Test",
    .kind = OSU_KIND_LATENCY,
};

/** Options (identical on every rank: parsed from the same argv). */
typedef struct su_options {
    double   launch;               /**< -t: launcher's clock at launch, 0 = unknown */
    long     base_shmem_kb;        /**< -b: /proc/meminfo Shmem before launch, -1 = unknown */
    size_t   sizes[SU_MAX_SIZES];  /**< -m: exchange sizes */
    int      nsizes;
    int      rounds;               /**< -r: messages of each size per ordered pair */
    int      hold_s;               /**< -p: seconds rank 0 holds each phase */
    int      verbose;              /**< -v: rank 0 lists its shared files */
} su_options_t;

/** Where a shared file lives: /dev/shm (tmpfs: RAM) or elsewhere. */
enum { SU_DEVSHM = 0, SU_OTHER = 1, SU_NCLASS = 2 };

/** One shared file mapped by a rank: identity, class and allocated kB. */
typedef struct su_file {
    uint64_t dev, ino, cls, alloc_kb;
} su_file_t;

#define SU_FILE_WORDS 4   /* uint64_t per su_file_t, for MPI_Gatherv */

/** What one rank sees in its own /proc/self/smaps, per class. */
typedef struct su_usage {
    uint64_t pss_kb[SU_NCLASS], rss_kb[SU_NCLASS], map_kb[SU_NCLASS];
    su_file_t files[SU_MAX_FILES];
    int nfiles;
} su_usage_t;

static double su_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void su_usage_print(void)
{
    printf("Usage: osu_startup [-t LAUNCH_EPOCH_S] [-b SHMEM_KB] [-m SIZE,SIZE,...] [-r ROUNDS]\n"
           "                   [-p SECONDS] [-v]\n"
           "  -t  launcher's clock (seconds since the epoch) just before the launch\n"
           "  -b  /proc/meminfo Shmem (kB) just before the launch, for shmem_delta_kB\n"
           "  -m  sizes every ordered pair exchanges (default 8,65536; 0 = no exchange)\n"
           "  -r  messages of each size per ordered pair and step (default %d: above\n"
           "      Open MPI vader's fast-box threshold, so busy pairs get their fast boxes)\n"
           "  -p  rank 0 holds every measured phase this many seconds (external du)\n"
           "  -v  rank 0 lists the shared files it maps, with allocated kB\n", SU_ROUNDS);
}

/* "8,65536" -> sizes; "0" -> none. Returns 0 or -1. */
static int su_parse_sizes(su_options_t *o, const char *arg)
{
    const char *p = arg;

    o->nsizes = 0;
    while (*p != '\0') {
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(p, &end, 10);
        if (errno != 0 || end == p || v > (1ull << 30) || o->nsizes == SU_MAX_SIZES)
            return -1;
        if (v > 0)
            o->sizes[o->nsizes++] = (size_t)v;
        p = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0')
            return -1;
    }
    return 0;
}

/* Returns 1 to run, 0 after -h, -1 on a bad option. */
static int su_parse(su_options_t *o, int argc, char **argv)
{
    int c;

    *o = (su_options_t){ .base_shmem_kb = -1, .sizes = { 8, 65536 }, .nsizes = 2,
                         .rounds = SU_ROUNDS };
    while ((c = getopt(argc, argv, "t:b:m:r:p:vh")) != -1) {
        switch (c) {
        case 't': o->launch = strtod(optarg, NULL); break;
        case 'b': o->base_shmem_kb = strtol(optarg, NULL, 10); break;
        case 'm': if (su_parse_sizes(o, optarg) != 0) return -1; break;
        case 'r': o->rounds = atoi(optarg); if (o->rounds < 1 || o->rounds > 1000) return -1; break;
        case 'p': o->hold_s = atoi(optarg); break;
        case 'v': o->verbose = 1; break;
        case 'h': return 0;
        default: return -1;
        }
    }
    return 1;
}

/* Allocated kB of the file behind mapping @p range ("start-end"), or of @p path. */
static uint64_t su_file_alloc_kb(const char *range, const char *path)
{
    char mf[96];
    struct stat st;
    int fd;

    snprintf(mf, sizeof(mf), "/proc/self/map_files/%s", range);
    fd = open(mf, O_RDONLY);
    if (fd >= 0) {
        int rc = fstat(fd, &st);

        close(fd);
        if (rc == 0)
            return (uint64_t)st.st_blocks / 2;
    }
    if (path[0] == '/' && stat(path, &st) == 0)
        return (uint64_t)st.st_blocks / 2;
    return 0;
}

static int su_class_of(const char *path)
{
    return strncmp(path, "/dev/shm/", 9) == 0 ? SU_DEVSHM : SU_OTHER;
}

static void su_file_add(su_usage_t *u, uint64_t dev, uint64_t ino, const char *range,
                        const char *path, int verbose)
{
    for (int i = 0; i < u->nfiles; i++)
        if (u->files[i].dev == dev && u->files[i].ino == ino)
            return;
    if (u->nfiles == SU_MAX_FILES)
        return;
    u->files[u->nfiles] = (su_file_t){ dev, ino, (uint64_t)su_class_of(path),
                                        su_file_alloc_kb(range, path) };
    if (verbose)
        printf("#   file %s: %" PRIu64 " kB allocated\n", path,
               u->files[u->nfiles].alloc_kb);
    u->nfiles++;
}

/* Parse one smaps header line; returns 1 for a shared file mapping. */
static int su_smaps_header(const char *line, char *range, size_t rlen, uint64_t *dev,
                           uint64_t *ino, char *path, size_t plen)
{
    unsigned long start, end, off, inode;
    unsigned maj, min;
    char perms[8];
    int n = 0;

    if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &start, &end, perms, &off, &maj, &min,
               &inode, &n) < 7)
        return -1;
    snprintf(range, rlen, "%lx-%lx", start, end);
    snprintf(path, plen, "%s", line + n);
    path[strcspn(path, "\n")] = '\0';
    *dev = ((uint64_t)maj << 32) | min;
    *ino = inode;
    return perms[3] == 's' && inode != 0;
}

/* Read /proc/self/smaps into @p u. Returns 0, or -1 when unreadable. */
static int su_usage_read(su_usage_t *u, int verbose)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512], range[64], path[256];
    uint64_t dev = 0, ino = 0, kb;
    int shared = 0, h, c = SU_OTHER;

    memset(u->pss_kb, 0, sizeof(u->pss_kb));
    memset(u->rss_kb, 0, sizeof(u->rss_kb));
    memset(u->map_kb, 0, sizeof(u->map_kb));
    u->nfiles = 0;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        if ((h = su_smaps_header(line, range, sizeof(range), &dev, &ino, path,
                                 sizeof(path))) >= 0) {
            shared = h;
            c = su_class_of(path);
            if (shared)
                su_file_add(u, dev, ino, range, path, verbose);
        } else if (shared && sscanf(line, "Pss: %" SCNu64, &kb) == 1) {
            u->pss_kb[c] += kb;
        } else if (shared && sscanf(line, "Rss: %" SCNu64, &kb) == 1) {
            u->rss_kb[c] += kb;
        } else if (shared && sscanf(line, "Size: %" SCNu64, &kb) == 1) {
            u->map_kb[c] += kb;
        }
    }
    fclose(f);
    return 0;
}

/* /proc/meminfo Shmem in kB, or -1. */
static long su_meminfo_shmem(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    long kb = -1;

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "Shmem: %ld", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

static int su_file_cmp(const void *a, const void *b)
{
    const su_file_t *x = a, *y = b;

    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : (x->ino > y->ino);
}

/* Rank 0: unite every rank's file list; distinct files and kB per class. */
static void su_files_unite(const osu_ctx_t *ctx, const su_usage_t *u, int *files,
                           uint64_t *alloc_kb)
{
    int n = ctx->nranks, *counts = NULL, *displs = NULL, total = 0;
    int mine = u->nfiles * SU_FILE_WORDS;
    uint64_t *all = NULL;

    if (ctx->rank == 0) {
        counts = calloc((size_t)n, sizeof(int));
        displs = calloc((size_t)n, sizeof(int));
    }
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (ctx->rank == 0) {
        for (int i = 0; i < n; i++) {
            displs[i] = total;
            total += counts[i];
        }
        all = malloc(((size_t)total + 1) * sizeof(uint64_t));
    }
    MPI_Gatherv(u->files, mine, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
    for (int c = 0; c < SU_NCLASS; c++)
        files[c] = 0, alloc_kb[c] = 0;
    if (ctx->rank == 0) {
        su_file_t *fs = (su_file_t *)all;
        int nf = total / SU_FILE_WORDS;

        qsort(fs, (size_t)nf, sizeof(su_file_t), su_file_cmp);
        for (int i = 0; i < nf; i++) {
            if (i > 0 && su_file_cmp(&fs[i], &fs[i - 1]) == 0)
                continue;
            files[fs[i].cls]++;
            alloc_kb[fs[i].cls] += fs[i].alloc_kb;
        }
    }
    free(counts);
    free(displs);
    free(all);
}

/* Rank 0: one "shm" line; sums[] holds pss, rss, map for each class. */
static void su_print(const su_options_t *o, const char *phase, const int *files,
                     const uint64_t *alloc_kb, const uint64_t *sums)
{
    long shmem = su_meminfo_shmem();

    printf("shm phase=%s shm_files=%d shm_alloc_kB=%" PRIu64 " shm_pss_kB=%" PRIu64
           " shm_rss_kB=%" PRIu64 " shm_map_kB=%" PRIu64 " other_files=%d other_alloc_kB=%"
           PRIu64 " other_pss_kB=%" PRIu64 " meminfo_shmem_kB=%ld meminfo_delta_kB=%ld\n",
           phase, files[SU_DEVSHM], alloc_kb[SU_DEVSHM], sums[0], sums[1], sums[2],
           files[SU_OTHER], alloc_kb[SU_OTHER], sums[3], shmem,
           o->base_shmem_kb >= 0 && shmem >= 0 ? shmem - o->base_shmem_kb : -1L);
}

/* Collective: measure phase @p phase and print one "shm" line on rank 0. */
static int su_measure(const osu_ctx_t *ctx, const su_options_t *o, const char *phase)
{
    static su_usage_t u;
    uint64_t local[6], sums[6] = { 0 }, alloc_kb[SU_NCLASS];
    int ok, all_ok, files[SU_NCLASS];

    MPI_Barrier(MPI_COMM_WORLD);
    if (ctx->rank == 0 && o->verbose)
        printf("# shared files mapped by rank 0 at %s:\n", phase);
    ok = su_usage_read(&u, o->verbose && ctx->rank == 0) == 0;
    for (int c = 0; c < SU_NCLASS; c++) {
        local[3 * c] = u.pss_kb[c];
        local[3 * c + 1] = u.rss_kb[c];
        local[3 * c + 2] = u.map_kb[c];
    }
    MPI_Reduce(local, sums, 6, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    su_files_unite(ctx, &u, files, alloc_kb);
    if (ctx->rank == 0) {
        su_print(o, phase, files, alloc_kb, sums);
        if (!all_ok)
            fprintf(stderr, "osu_startup: some rank could not read /proc/self/smaps; "
                    "the %s sums are short\n", phase);
        if (o->hold_s > 0) {
            printf("# holding %d s at phase %s\n", o->hold_s, phase);
            fflush(stdout);
            sleep((unsigned)o->hold_s);
        }
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return all_ok ? 0 : 1;
}

/* Step @p d of one size: @p rounds messages to r+d, as many from r-d.
 * Returns this rank's error count. */
static int su_exchange_step(const osu_ctx_t *ctx, char *sbuf, char *rbuf, size_t size,
                            int rounds, int d, MPI_Request *reqs, MPI_Status *sts)
{
    int n = ctx->nranks, r = ctx->rank, errors = 0;
    int dst = (r + d) % n, src = (r - d + n) % n;
    char what[64];

    for (int k = 0; k < rounds; k++) {
        osu_poison(rbuf + (size_t)k * size, size, osu_seed(size, k, src, r));
        MPI_Irecv(rbuf + (size_t)k * size, (int)size, MPI_CHAR, src, SU_TAG,
                  MPI_COMM_WORLD, &reqs[k]);
    }
    for (int k = 0; k < rounds; k++) {
        osu_fill(sbuf + (size_t)k * size, size, osu_seed(size, k, r, dst));
        MPI_Isend(sbuf + (size_t)k * size, (int)size, MPI_CHAR, dst, SU_TAG,
                  MPI_COMM_WORLD, &reqs[rounds + k]);
    }
    MPI_Waitall(2 * rounds, reqs, sts);
    for (int k = 0; k < rounds; k++) {
        snprintf(what, sizeof(what), "message %d of %d from rank %d", k + 1, rounds, src);
        errors += osu_check_status(ctx, &sts[k], src, SU_TAG, size);
        errors += osu_check(ctx, rbuf + (size_t)k * size, size, osu_seed(size, k, src, r),
                            size, what);
    }
    return errors;
}

/* Every size, every peer distance; returns the error total over all ranks. */
static int su_exchange(const osu_ctx_t *ctx, const su_options_t *o, double *secs)
{
    size_t max = 1;
    int errors = 0, total = 0;
    char *sbuf, *rbuf;
    MPI_Request *reqs;
    MPI_Status *sts;
    double t0, dt, dt_max = 0.0;

    for (int i = 0; i < o->nsizes; i++)
        max = o->sizes[i] > max ? o->sizes[i] : max;
    sbuf = osu_alloc(ctx, max * (size_t)o->rounds);
    rbuf = osu_alloc(ctx, max * (size_t)o->rounds);
    reqs = osu_alloc(ctx, (size_t)o->rounds * 2 * sizeof(MPI_Request));
    sts = osu_alloc(ctx, (size_t)o->rounds * 2 * sizeof(MPI_Status));
    t0 = MPI_Wtime();
    for (int i = 0; i < o->nsizes; i++)
        for (int d = 1; d < ctx->nranks; d++)
            errors += su_exchange_step(ctx, sbuf, rbuf, o->sizes[i], o->rounds, d, reqs, sts);
    dt = MPI_Wtime() - t0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&dt, &dt_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    *secs = dt_max;
    free(sbuf);
    free(rbuf);
    free(reqs);
    free(sts);
    return total;
}

/* Rank 0 prints the start-up line: the largest times over ranks. */
static void su_report_init(const osu_ctx_t *ctx, const su_options_t *o, double t_start,
                           double t_init)
{
    double local[2] = { t_init - t_start, o->launch > 0 ? t_init - o->launch : -1.0 };
    double max[2] = { 0.0, 0.0 };

    MPI_Reduce(local, max, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (ctx->rank == 0) {
        printf("# %s (loom-bench 1.0)\n", startup_desc.title);
        printf("startup np=%d init_max_s=%.6f launch_to_init_s=%.6f\n", ctx->nranks,
               max[0], max[1]);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    double t_start = su_now(), t_init, xsecs = 0.0;
    osu_ctx_t ctx = { .desc = &startup_desc };
    su_options_t o;
    int parsed, failed = 0, errors;

    MPI_Init(&argc, &argv);
    t_init = su_now();
    MPI_Comm_rank(MPI_COMM_WORLD, &ctx.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ctx.nranks);
    parsed = su_parse(&o, argc, argv);
    if (parsed <= 0) {
        if (ctx.rank == 0)
            su_usage_print();
        MPI_Finalize();
        return parsed < 0;
    }
    su_report_init(&ctx, &o, t_start, t_init);
    failed |= su_measure(&ctx, &o, "init");
    if (o.nsizes > 0 && ctx.nranks > 1) {
        errors = su_exchange(&ctx, &o, &xsecs);
        if (ctx.rank == 0)
            printf("exchange sizes=%d time_s=%.6f errors=%d\n", o.nsizes, xsecs, errors);
        failed |= errors != 0;
        failed |= su_measure(&ctx, &o, "exchange");
    }
    if (ctx.rank == 0)
        printf("result %s\n", failed ? "FAIL" : "Pass");
    MPI_Finalize();
    return failed;
}
