/*
 * prog_ib_tl.c: rank program that drives the verbs transport directly (no
 * p2p engine), run by loomrun inside the soft-RoCE guest (test/verbs/run.sh).
 *
 *   prog_ib_tl am      every rank sends frames of every size class to every
 *                      other rank; order, content and flow control checked
 *   prog_ib_tl get     rendezvous reads from the left neighbour with the
 *                      exposed and the destination buffers reused through
 *                      malloc/free, munmap/mmap (same address), and
 *                      madvise(DONTNEED): a stale registration shows up as
 *                      wrong data; cache hits and invalidations are counted
 *   prog_ib_tl kill    (2 ranks) rank 0 dies while rank 1 RDMA-reads 64 MB
 *                      from it: rank 1 must get a named error, not hang
 *   prog_ib_tl stall   (2 ranks) rank 0's watchdog (LOOM_IB_STALL_FAULT=0)
 *                      declares rank 1 failed; rank 1, only waiting, must be
 *                      told within 2 s
 *   prog_ib_tl lat [N] (2 ranks) transport-only ping-pong of 8-byte frames
 *                      (no p2p engine): prints "lat-tl 8 MIN MEDIAN MEAN" in
 *                      us one-way, for test/verbs/bench.sh
 * Exit 0 on success; every failure prints a line with "FAIL".
 */
#include <stdio.h>

#if !LOOM_HAVE_IBV
int main(void)
{
    fprintf(stderr, "prog_ib_tl: built without verbs headers (libibverbs-dev)\n");
    return 2;
}
#else
#include "../../transport/ib/ib_int.h"
#include "../../transport/ib/ib_config_int.h"
#include "base_config_int.h"
#include "runtime_config_int.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { T_DATA = 1, T_RKEY, T_DONE };

typedef struct test_hdr {
    uint32_t type;
    uint32_t seq;
    uint64_t raddr;
    uint64_t len;
    uint64_t seed;
} test_hdr_t;

typedef struct test_announce {
    int            valid;
    uint64_t       raddr, len, seed;
    loom_tl_rkey_t rkey;
} test_announce_t;

static const loom_bootstrap_info_t *job;
static loom_tl_iface_t *tl;
static loom_tl_ep_t **eps;
static uint32_t *next_seq;        /* per source */
static int *done_from;            /* DONE frames per source */
static test_announce_t *announce; /* per source */
static int failures;
static int err_peer = -1;
static loom_status_t err_status;
static char err_what[256];

#define FAIL(...)                                                                 \
    do {                                                                          \
        fprintf(stderr, "rank %d: FAIL ", job->rank);                            \
        fprintf(stderr, __VA_ARGS__);                                             \
        fputc('\n', stderr);                                                      \
        ++failures;                                                               \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t pattern(uint64_t seed, size_t i)
{
    return (uint8_t)((seed * 131u + i * 7u + (i >> 9)) & 0xff);
}

static void on_am(void *arg, int src, const void *data, size_t len)
{
    test_hdr_t h;
    const uint8_t *p = (const uint8_t *)data + sizeof(h);
    size_t i, n;

    (void)arg;
    if (len < sizeof(h)) {
        FAIL("frame of %zu bytes from rank %d", len, src);
        return;
    }
    memcpy(&h, data, sizeof(h));
    n = len - sizeof(h);
    switch (h.type) {
    case T_DATA:
        if (h.seq != next_seq[src]) {
            FAIL("rank %d frame seq %u, expected %u", src, h.seq, next_seq[src]);
        }
        next_seq[src] = h.seq + 1;
        for (i = 0; i < n; ++i) {
            if (p[i] != pattern(h.seq + (uint64_t)src, i)) {
                FAIL("rank %d frame %u byte %zu of %zu wrong", src, h.seq, i, n);
                break;
            }
        }
        break;
    case T_RKEY:
        announce[src].raddr = h.raddr;
        announce[src].len = h.len;
        announce[src].seed = h.seed;
        memcpy(&announce[src].rkey, p, LOOM_MIN(n, sizeof(loom_tl_rkey_t)));
        announce[src].valid = 1;
        break;
    case T_DONE:
        ++done_from[src];
        break;
    default:
        FAIL("unknown frame type %u from rank %d", h.type, src);
    }
}

static void on_err(void *arg, int peer, loom_status_t status, const char *what)
{
    (void)arg;
    if (err_peer < 0) {
        err_peer = peer;
        err_status = status;
        snprintf(err_what, sizeof(err_what), "%s", what);
    }
}

static void progress_until(int *flag, int want, double timeout, const char *what)
{
    double end = now_s() + timeout;
    while (*flag < want) {
        loom_tl_iface_progress(tl);
        if (now_s() > end) {
            FAIL("timeout after %.0f s waiting for %s", timeout, what);
            loom_bootstrap_abort(1, "prog_ib_tl timeout");
        }
    }
}

static void send_frame(int peer, test_hdr_t *h, const void *payload, size_t len)
{
    double end = now_s() + 60;
    loom_status_t st;

    while ((st = loom_tl_ep_am_send(eps[peer], h, sizeof(*h), payload, len)) ==
           LOOM_ERR_NO_RESOURCE) {
        loom_tl_iface_progress(tl);
        if (now_s() > end) {
            FAIL("send to rank %d blocked by back-pressure for 60 s", peer);
            loom_bootstrap_abort(1, "prog_ib_tl stuck");
        }
    }
    if (st != LOOM_OK) {
        FAIL("am_send to rank %d: %s", peer, loom_strerror(st));
    }
}

/* ---- am: every size class to every peer, interleaved ----------------------------- */

static void test_am(void)
{
    const size_t max = tl->caps.max_am - sizeof(test_hdr_t);
    const size_t sizes[] = { 0, 1, 8, 60, 100, 200, 1000, 4000, max };
    const uint32_t nmsg = 3000;
    uint8_t *buf = malloc(max);
    uint32_t seq;
    int peer, all;
    size_t i, n;
    double t0 = now_s();

    for (seq = 0; seq < nmsg; ++seq) {
        for (peer = 0; peer < job->size; ++peer) {
            test_hdr_t h = { .type = T_DATA, .seq = seq };
            if (peer == job->rank) {
                continue;
            }
            n = sizes[(seq + (uint32_t)peer) % LOOM_ARRAY_SIZE(sizes)];
            for (i = 0; i < n; ++i) {
                buf[i] = pattern(seq + (uint64_t)job->rank, i);
            }
            send_frame(peer, &h, buf, n);
        }
    }
    for (peer = 0; peer < job->size; ++peer) {
        int got = 0;
        if (peer == job->rank) {
            continue;
        }
        all = (int)nmsg;
        while (got < all) {
            got = (int)next_seq[peer];
            loom_tl_iface_progress(tl);
            if (now_s() - t0 > 180) {
                FAIL("only %d of %d frames from rank %d after 180 s", got, all, peer);
                break;
            }
        }
    }
    free(buf);
    printf("rank %d: am: %u frames to each of %d peers in %.2f s\n", job->rank, nmsg,
           job->size - 1, now_s() - t0);
}

/* ---- get: rendezvous with buffer reuse ---------------------------------------------- */

typedef enum { REUSE_MALLOC, REUSE_MMAP_FIXED, REUSE_MMAP, REUSE_MADVISE, REUSE_COUNT } reuse_t;
static const char *const reuse_name[] = { "malloc/free", "munmap/mmap MAP_FIXED",
                                          "munmap/mmap", "madvise(DONTNEED)" };

/* Give back @p buf the way @p how does, and get the next buffer of @p len. */
static uint8_t *reuse_buffer(reuse_t how, uint8_t *buf, size_t len)
{
    void *p;

    switch (how) {
    case REUSE_MALLOC:
        free(buf);
        return malloc(len);
    case REUSE_MMAP_FIXED:
        p = mmap(buf, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
                 (buf ? MAP_FIXED : 0), -1, 0);
        if (buf != NULL && p != MAP_FAILED) {
            return p;   /* MAP_FIXED replaced the pages: munmap is not called */
        }
        return p == MAP_FAILED ? NULL : p;
    case REUSE_MMAP:
        if (buf != NULL) {
            munmap(buf, len);
        }
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    default:
        if (buf != NULL) {
            madvise(buf, len, MADV_DONTNEED);
            return buf;
        }
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
}

static int expect_get_error;

static void get_done(loom_tl_comp_t *self, loom_status_t status)
{
    (void)self;
    if (status != LOOM_OK && !expect_get_error) {
        FAIL("get completed with %s", loom_strerror(status));
    }
    ++done_from[job->rank];   /* own slot counts completed gets */
}

static void get_round(reuse_t how, int round, size_t len, uint8_t *expo, uint8_t *dest)
{
    int right = (job->rank + 1) % job->size, left = (job->rank + job->size - 1) % job->size;
    uint64_t seed = (uint64_t)round * 1000 + (uint64_t)job->rank;
    test_hdr_t h = { .type = T_RKEY, .raddr = (uintptr_t)expo, .len = len, .seed = seed };
    loom_tl_rkey_t rkey;
    loom_tl_memh_t *memh;
    loom_tl_comp_t comp = { get_done };
    loom_status_t st;
    int want_done = done_from[right] + 1, want_gets = done_from[job->rank] + 1, one = 1;
    size_t i;

    for (i = 0; i < len; ++i) {
        expo[i] = pattern(seed, i);
    }
    memset(dest, 0xee, len);
    st = loom_tl_mem_pack(tl, expo, len, &rkey, &memh);
    if (st != LOOM_OK) {
        FAIL("mem_pack(%zu bytes): %s", len, loom_strerror(st));
        return;
    }
    send_frame(right, &h, &rkey, sizeof(rkey));
    progress_until(&announce[left].valid, 1, 60, "the left neighbour's rkey");
    announce[left].valid = 0;
    while ((st = loom_tl_ep_get(eps[left], dest, announce[left].len, announce[left].raddr,
                                &announce[left].rkey, &comp)) == LOOM_ERR_NO_RESOURCE) {
        loom_tl_iface_progress(tl);
    }
    if (st == LOOM_OK) {
        get_done(&comp, LOOM_OK);
    } else if (st != LOOM_INPROGRESS) {
        FAIL("get: %s", loom_strerror(st));
    }
    progress_until(&done_from[job->rank], want_gets, 60, "the RDMA read");
    for (i = 0; i < announce[left].len; ++i) {
        if (dest[i] != pattern(announce[left].seed, i)) {
            FAIL("%s round %d: byte %zu of %zu read from rank %d is %#x, expected %#x "
                 "(stale registration?)", reuse_name[how], round, i, (size_t)announce[left].len,
                 left, dest[i], pattern(announce[left].seed, i));
            break;
        }
    }
    h.type = T_DONE;
    send_frame(left, &h, NULL, 0);
    progress_until(&done_from[right], want_done, 60, "the right neighbour's DONE");
    loom_tl_mem_release(tl, memh);
    (void)one;
}

static void test_get(void)
{
    loom_tl_ib_rcache_stats_t st;
    size_t max = (size_t)loom_config_int(LOOM_IB_CFG(RCACHE_MAX));
    const size_t big[] = { 65536, 1 << 20, 3 << 20 }, small[] = { 65536, 262144, 200000 };
    const size_t *sizes = max < (16u << 20) ? small : big;
    int how, round, k;
    double t0 = now_s();

    for (how = 0; how < REUSE_COUNT; ++how) {
        for (k = 0; k < 3; ++k) {
            uint8_t *expo = NULL, *dest = NULL;
            size_t len = sizes[k];
            for (round = 0; round < 4; ++round) {
                expo = reuse_buffer((reuse_t)how, expo, len);
                dest = reuse_buffer((reuse_t)how, dest, len);
                if (expo == NULL || dest == NULL) {
                    FAIL("allocating %zu bytes", len);
                    return;
                }
                get_round((reuse_t)how, round + 4 * k + 12 * how, len, expo, dest);
            }
            if (how == REUSE_MALLOC) {
                free(expo);
                free(dest);
            } else {
                munmap(expo, len);
                munmap(dest, len);
            }
        }
    }
    loom_tl_ib_rcache_stats(loom_tl_ib_rcache_current(), &st);
    printf("rank %d: get: %d rounds in %.2f s; rcache: %lu registrations, %lu hits, "
           "%lu invalidated, %lu evicted, %zu bytes\n", job->rank, REUSE_COUNT * 12,
           now_s() - t0, st.regs, st.hits, st.invalidated, st.evicted, st.bytes);
    if (!st.caching) {
        printf("rank %d: sanitizer build: cache reuse checks skipped\n", job->rank);
        if (st.bytes != 0) {
            FAIL("a non-caching registration cache still holds %zu bytes", st.bytes);
        }
        return;
    }
    if (st.hits == 0) {
        FAIL("the registration cache never hit (malloc/free reuse should)");
    }
    if (st.invalidated == 0) {
        FAIL("no region was invalidated by munmap/madvise");
    }
    if (max < (16u << 20) && st.evicted == 0) {
        FAIL("LOOM_IB_RCACHE_MAX=%zu but nothing was evicted", max);
    }
    if (st.bytes > max) {
        FAIL("cache holds %zu bytes, above LOOM_IB_RCACHE_MAX=%zu", st.bytes, max);
    }
}

/* ---- lat: transport-only ping-pong --------------------------------------------------- */

static int lat_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void test_lat(int iters)
{
    int peer = 1 - job->rank, i, warm = 1000;
    uint64_t payload = 0x1122334455667788ull;
    test_hdr_t h = { .type = T_DONE };
    double *t = calloc((size_t)iters, sizeof(*t)), sum = 0;

    if (t == NULL) {
        FAIL("no memory for %d samples", iters);
        return;
    }
    for (i = -warm; i < iters; ++i) {
        int want = done_from[peer] + 1;
        double t0 = now_s();
        if (job->rank == 0) {
            send_frame(peer, &h, &payload, sizeof(payload));
        }
        while (done_from[peer] < want) {
            loom_tl_iface_progress(tl);
        }
        if (job->rank == 1) {
            send_frame(peer, &h, &payload, sizeof(payload));
        }
        if (i >= 0) {
            t[i] = (now_s() - t0) * 1e6 / 2;
            sum += t[i];
        }
    }
    qsort(t, (size_t)iters, sizeof(*t), lat_cmp);
    if (job->rank == 0) {
        printf("lat-tl 8 %.2f %.2f %.2f\n", t[0], t[iters / 2], sum / iters);
    }
    free(t);
}

/* Register @p buf for remote reads and announce it to @p peer (T_RKEY frame). */
static int expose_to(int peer, void *buf, size_t len, loom_tl_memh_t **memh_p)
{
    test_hdr_t h = { .type = T_RKEY, .len = len, .raddr = (uintptr_t)buf };
    loom_tl_rkey_t rkey;

    if (loom_tl_mem_pack(tl, buf, len, &rkey, memh_p) != LOOM_OK) {
        FAIL("mem_pack of %zu bytes", len);
        return -1;
    }
    send_frame(peer, &h, &rkey, sizeof(rkey));
    return 0;
}

/* ---- kill: the peer dies in the middle of an RDMA READ ----------------------------------- */

static void test_kill(void)
{
    const size_t len = 32u << 20;
    uint8_t *buf = malloc(len);
    loom_tl_memh_t *memh;
    loom_tl_comp_t comp = { get_done };
    test_hdr_t h = { .type = T_DONE };
    loom_status_t st;
    sigset_t set;
    double t0;

    memset(buf, 0x5a, len);
    if (job->rank == 0) {
        if (expose_to(1, buf, len, &memh) != 0) {
            return;
        }
        progress_until(&done_from[1], 1, 60, "rank 1's read to start");
        if (getenv("PROG_IB_SIMULATE_DEATH") != NULL) {
            printf("rank 0: rank 1 is reading; destroying my QPs\n");
            tl->ops.close(tl);   /* what the kernel does to a killed process */
            loom_bootstrap_fence();
            loom_bootstrap_finalize();
            exit(0);
        }
        printf("rank 0: rank 1 is reading; killing myself\n");
        fflush(stdout);
        raise(SIGKILL);
    }
    /* the launcher SIGTERMs survivors 0.25 s after a death and SIGKILLs them
     * 2 s later: hold SIGTERM so the error can be seen and checked */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    progress_until(&announce[0].valid, 1, 60, "rank 0's rkey");
    /* read the region over and over: rank 0 dies while one of them runs */
    t0 = now_s();
    while (err_peer < 0 && now_s() - t0 < 30) {
        int reads = done_from[1];
        st = loom_tl_ep_get(eps[0], buf, len, announce[0].raddr, &announce[0].rkey, &comp);
        if (st != LOOM_INPROGRESS) {
            break;
        }
        if (reads == 0) {
            send_frame(0, &h, NULL, 0);
        }
        while (done_from[1] == reads && now_s() - t0 < 30) {
            loom_tl_iface_progress(tl);
        }
    }
    if (err_peer != 0) {
        FAIL("no error reported %.1f s after the reads started (last get: %s)", now_s() - t0,
             loom_strerror(st));
    } else {
        printf("rank 1: PASS kill: %d reads of 32 MB, then after %.2f s: %s (%s)\n",
               done_from[1], now_s() - t0, err_what, loom_strerror(err_status));
    }
    fflush(stdout);
    if (getenv("PROG_IB_SIMULATE_DEATH") != NULL) {
        loom_bootstrap_fence();
        loom_bootstrap_finalize();
        exit(failures != 0);
    }
    _exit(failures != 0);
}

/* ---- stall: one side's watchdog fails the connection; the other learns at once ------------ */

static void progress_until_error(double t0, double limit)
{
    while (err_peer < 0 && now_s() - t0 < limit) {
        loom_tl_iface_progress(tl);
    }
}

/*
 * Rank 0's watchdog (LOOM_IB_STALL_FAULT=0: it takes every connected peer
 * for stalled) declares rank 1 failed after LOOM_IB_STALL_TIMEOUT s. Rank 1
 * has nothing outstanding, it only waits: it must be told by rank 0 and fail
 * the connection within 2 s of rank 0's declaration, not at a hang timeout.
 * Both count from the end of setup's fence (the ranks may be on two hosts,
 * whose clocks differ; the fence ends within milliseconds everywhere).
 */
static void test_stall(void)
{
    double t0 = now_s(), dt, dt_decl = 0;
    size_t sz = sizeof(dt_decl);
    int peer = 1 - job->rank;

    progress_until_error(t0, 60);
    dt = now_s() - t0;
    if (err_peer != peer || err_status != LOOM_ERR_PEER_FAILED) {
        loom_tl_ib_ep_t *ep = loom_container_of(eps[peer], loom_tl_ib_ep_t, super);
        FAIL("no failure of rank %d after %.1f s (err_peer %d, %s; endpoint state %d)", peer,
             dt, err_peer, loom_strerror(err_status), (int)ep->state);
    } else {
        printf("rank %d: error for rank %d after %.2f s: %s\n", job->rank, peer, dt, err_what);
    }
    if (job->rank == 0) {
        loom_bootstrap_put("stall.dt", &dt, sizeof(dt));
    }
    loom_bootstrap_fence();
    if (job->rank == 1 && failures == 0) {
        if (loom_bootstrap_get(0, "stall.dt", &dt_decl, &sz) != LOOM_OK) {
            FAIL("no declaration time from rank 0");
        } else if (dt - dt_decl > 2.0) {
            FAIL("told %.2f s after rank 0 declared the connection failed (limit 2 s)",
                 dt - dt_decl);
        } else {
            printf("rank 1: PASS stall: told %.2f s after rank 0 declared it failed\n",
                   dt - dt_decl);
        }
    }
}

static loom_status_t setup(void)
{
    loom_tl_params_t params = { .am_cb = on_am, .err_cb = on_err };
    loom_status_t st;
    int peer;

    loom_runtime_config_load();
    loom_log_configure(loom_config_str(LOOM_BASE_CFG(LOG)));
    st = loom_bootstrap_init(&job);
    if (st != LOOM_OK) {
        return st;
    }
    loom_log_set_identity(job->rank, job->hostnames[job->rank]);
    params.job = job;
    st = loom_tl_ib_ops.open(&params, &tl);
    if (st != LOOM_OK) {
        fprintf(stderr, "rank %d: FAIL opening the ib transport: %s\n", job->rank,
                loom_strerror(st));
        return st;
    }
    st = loom_bootstrap_fence();
    eps = calloc((size_t)job->size, sizeof(*eps));
    next_seq = calloc((size_t)job->size, sizeof(*next_seq));
    done_from = calloc((size_t)job->size, sizeof(*done_from));
    announce = calloc((size_t)job->size, sizeof(*announce));
    for (peer = 0; st == LOOM_OK && peer < job->size; ++peer) {
        if (peer == job->rank) {
            continue;
        }
        if (!tl->ops.reachable(tl, peer)) {
            fprintf(stderr, "rank %d: FAIL rank %d unreachable over ib\n", job->rank, peer);
            return LOOM_ERR_UNREACHABLE;
        }
        st = tl->ops.ep_create(tl, peer, &eps[peer]);
    }
    return st;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "am";
    int rank;

    if (setup() != LOOM_OK) {
        return 2;
    }
    if (!strcmp(mode, "am")) {
        test_am();
    } else if (!strcmp(mode, "get")) {
        test_get();
    } else if (!strcmp(mode, "lat") && job->size == 2) {
        test_lat(argc > 2 && atoi(argv[2]) >= 10 ? atoi(argv[2]) : 2000);
    } else if (!strcmp(mode, "stall") && job->size == 2) {
        test_stall();
    } else if (!strcmp(mode, "kill") && job->size == 2) {
        expect_get_error = 1;
        test_kill();
    } else {
        FAIL("unknown mode '%s' (am, get, lat, kill or stall with 2 ranks)", mode);
    }
    rank = job->rank;
    loom_bootstrap_fence();
    tl->ops.close(tl);
    loom_bootstrap_finalize();
    if (failures == 0) {
        printf("rank %d: PASS %s\n", rank, mode);
    }
    return failures != 0;
}
#endif /* LOOM_HAVE_IBV */
