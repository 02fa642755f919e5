/*
 * prog_launch.c: the rank program of the launcher tests. It uses the
 * bootstrap directly (not loom_init) so it tests loomrun and the PMIx
 * client alone. One mode per behaviour:
 *
 *   modex                 publish a rank-specific blob, fence, read and check
 *                         every peer's blob (twice, two fences); print one
 *                         "OK rank=.. size=.." line per rank
 *   exit CODE RANK        RANK exits with CODE after init; the others fence
 *   exit-late CODE RANK MS  after a first fence RANK cuts its connection to
 *                         loomrun (shuts its sockets down, as its exit
 *                         would), waits MS ms and exits with CODE; the
 *                         others are in a second fence by then, which fails,
 *                         and exit 1 long before RANK: loomrun must still
 *                         name RANK (the race of a loaded machine, made
 *                         certain). A survivor whose fence succeeds all the
 *                         same (it came after the cut, or the fence spans
 *                         hosts: PMIx 4.2.2 then completes it without the
 *                         lost rank) says LATE, notes the failure itself,
 *                         as a transport would, and exits 1 too.
 *   cut-hang RANK         the same, but RANK sleeps after the cut: with no
 *                         failure of its own to blame, loomrun names a
 *                         survivor, saying that it saw a peer fail
 *   kill-before RANK      RANK SIGKILLs itself before PMIx init; others fence
 *   kill-after RANK       RANK SIGKILLs itself after init; others fence
 *   abort RANK CODE       RANK calls loom_abort(CODE, msg); others fence
 *   nofinalize RANK       RANK exits 0 after the fence without finalizing
 *   abort-then-kill MS    after a fence rank 1 aborts ("a peer process
 *                         failed", as a survivor over tcp would) and rank 2
 *                         SIGKILLs itself MS ms later: loomrun must name
 *                         rank 2 when MS is short (np >= 3)
 *   hang                  print READY and sleep (timeout, SIGINT tests)
 *   ignore-term           all but rank 0 ignore SIGTERM and sleep; rank 0
 *                         exits 5 once the others are READY
 *   cat                   rank 0 copies stdin to stdout
 *   lines N               N lines per rank, each written in two pieces,
 *                         then a last line without newline
 *   env VAR...            print VAR=value for each VAR
 *   shm                   create a shm segment named by the job's prefix and
 *                         exit without removing it (loomrun must)
 *   shm-hang              the same, then print READY and sleep (loomrun is
 *                         killed: its cleanup guardian must remove it)
 */
#include "bootstrap_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const loom_bootstrap_info_t *job;

static void die(const char *what, loom_status_t st)
{
    printf("FAIL rank=%d %s: %s\n", job ? job->rank : -1, what, loom_strerror(st));
    fflush(stdout);
    exit(1);
}

static void init(void)
{
    loom_status_t st = loom_bootstrap_init(&job);
    if (st != LOOM_OK) {
        die("loom_bootstrap_init", st);
    }
}

static void fence(void)
{
    loom_status_t st = loom_bootstrap_fence();
    if (st != LOOM_OK) {
        die("loom_bootstrap_fence", st);
    }
}

static void finish(void)
{
    loom_bootstrap_finalize();
    exit(0);
}

/* The blob rank r publishes in round k: length and bytes depend on both. */
static size_t blob_fill(int r, int k, unsigned char *buf)
{
    size_t len = 1 + (size_t)((r * 37 + k * 11) % 500);
    for (size_t i = 0; i < len; ++i) {
        buf[i] = (unsigned char)(r * 131 + k * 7 + i);
    }
    return len;
}

static void modex_round(int k)
{
    unsigned char mine[512], want[512], got[512];
    char key[32];
    size_t len;
    loom_status_t st;

    snprintf(key, sizeof(key), "test.blob.%d", k);
    st = loom_bootstrap_put(key, mine, blob_fill(job->rank, k, mine));
    if (st != LOOM_OK) {
        die("put", st);
    }
    fence();
    for (int r = 0; r < job->size; ++r) {
        size_t wl = blob_fill(r, k, want);
        len = sizeof(got);
        st = loom_bootstrap_get(r, key, got, &len);
        if (st != LOOM_OK || len != wl || memcmp(got, want, wl) != 0) {
            printf("FAIL rank=%d blob %s of rank %d: %s, %zu bytes (want %zu)\n",
                   job->rank, key, r, loom_strerror(st), len, wl);
            exit(1);
        }
    }
    /* a too-small buffer is reported with the size needed */
    len = 0;
    st  = loom_bootstrap_get((job->rank + 1) % job->size, key, got, &len);
    if (st != LOOM_ERR_TRUNCATED || len != blob_fill((job->rank + 1) % job->size, k, want)) {
        die("truncated get not reported", st);
    }
}

static void check_job_info(void)
{
    int lr_found = 0;

    if (loom_rank() != job->rank || loom_size() != job->size ||
        loom_local_rank() != job->local_rank || loom_local_size() != job->local_size) {
        die("loom_rank/size disagree with the bootstrap", LOOM_ERR_INTERNAL);
    }
    for (int i = 0; i < job->local_size; ++i) {
        lr_found += job->local_peers[i] == job->rank && i == job->local_rank;
        if (i > 0 && job->local_peers[i] <= job->local_peers[i - 1]) {
            die("local_peers not ascending", LOOM_ERR_INTERNAL);
        }
    }
    for (int r = 0; r < job->size; ++r) {
        if (job->hostnames[r] == NULL || strcmp(loom_hostname(r), job->hostnames[r]) != 0 ||
            job->node_of_rank[r] != 0) {
            die("host names or node indexes wrong (one node expected)", LOOM_ERR_INTERNAL);
        }
    }
    if (!lr_found || loom_hostname(job->size) != NULL || loom_wtick() <= 0 ||
        job->num_cores < 1) {
        die("local rank, hostname range, wtick or core count wrong", LOOM_ERR_INTERNAL);
    }
}

static int mode_modex(void)
{
    unsigned char buf[8];
    size_t len = sizeof(buf);
    double t0 = loom_wtime();

    init();
    check_job_info();
    modex_round(0);
    modex_round(1);
    if (loom_bootstrap_get(0, "test.never.put", buf, &len) != LOOM_ERR_NOT_FOUND) {
        die("missing key not reported as NOT_FOUND", LOOM_ERR_INTERNAL);
    }
    if (loom_wtime() < t0) {
        die("loom_wtime went backwards", LOOM_ERR_INTERNAL);
    }
    printf("OK rank=%d size=%d local_rank=%d local_size=%d host=%s singleton=%d "
           "oversubscribed=%d jobid=%s\n", job->rank, job->size, job->local_rank,
           job->local_size, job->hostnames[job->rank], job->singleton,
           job->oversubscribed, job->jobid);
    fflush(stdout);
    finish();
    return 0;
}

static int env_rank(void)
{
    const char *r = getenv("PMIX_RANK");
    return r ? atoi(r) : 0;
}

static void ready(void)
{
    printf("READY %d\n", job ? job->rank : env_rank());
    fflush(stdout);
}

/* Shut down every socket of this process: the PMIx server sees this rank's
 * connection close, as when it exits, while the rank lives on. */
static void cut_connection(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;

    while (d != NULL && (de = readdir(d)) != NULL) {
        struct stat st;
        int fd = atoi(de->d_name);
        if (de->d_name[0] != '.' && fd != dirfd(d) && fstat(fd, &st) == 0 &&
            S_ISSOCK(st.st_mode)) {
            shutdown(fd, SHUT_RDWR);
        }
    }
    if (d != NULL) {
        closedir(d);
    }
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* exit-late and cut-hang (after init) */
static int mode_cut(const char *mode, int argc, char **argv)
{
    int late = !strcmp(mode, "exit-late");
    int who = atoi(argv[late ? 3 : 2]);

    fence();
    if (job->rank == who) {
        sleep_ms(300);   /* the others are in the next fence by then */
        cut_connection();
        if (!late) {
            for (;;) {
                pause();
            }
        }
        sleep_ms(argc > 4 ? atoi(argv[4]) : 500);
        _exit(atoi(argv[2]));
    }
    if (loom_bootstrap_fence() == LOOM_OK) {
        printf("LATE rank=%d\n", job->rank);
        fflush(stdout);
        loom_bootstrap_note_peer_failure(who);
        exit(1);
    }
    printf("FAIL rank=%d loom_bootstrap_fence after the cut\n", job->rank);
    fflush(stdout);
    exit(1);
}

static int mode_failure(const char *mode, int argc, char **argv)
{
    int who = argc > 3 ? atoi(argv[3]) : 0;

    if (!strcmp(mode, "kill-before")) {
        who = atoi(argv[2]);
        if (env_rank() == who) {
            raise(SIGKILL);
        }
    }
    init();
    if (!strcmp(mode, "exit") && job->rank == who) {
        exit(atoi(argv[2]));
    }
    if (!strcmp(mode, "exit-late") || !strcmp(mode, "cut-hang")) {
        return mode_cut(mode, argc, argv);
    }
    if (!strcmp(mode, "kill-after") && job->rank == atoi(argv[2])) {
        raise(SIGKILL);
    }
    if (!strcmp(mode, "abort") && job->rank == atoi(argv[2])) {
        char msg[64];
        snprintf(msg, sizeof(msg), "test abort message from rank %d", job->rank);
        loom_abort(argc > 3 ? atoi(argv[3]) : 1, msg);
    }
    fence();
    if (!strcmp(mode, "nofinalize") && job->rank == atoi(argv[2])) {
        exit(0);
    }
    if (!strcmp(mode, "abort-then-kill")) {
        struct timespec ts = { atoi(argv[2]) / 1000, (atoi(argv[2]) % 1000) * 1000000L };
        if (job->rank == 1) {
            loom_abort(1, "a peer process failed");
        }
        if (job->rank == 2) {
            nanosleep(&ts, NULL);
            raise(SIGKILL);
        }
        for (;;) {
            pause();
        }
    }
    finish();
    return 0;
}

static int mode_hang(int ignore_term)
{
    init();
    if (ignore_term && job->rank != 0) {
        signal(SIGTERM, SIG_IGN);
    }
    ready();
    if (ignore_term && job->rank == 0) {
        fence();      /* everyone ignores SIGTERM by now */
        exit(5);
    }
    if (ignore_term) {
        fence();
    }
    for (;;) {
        pause();
    }
}

static int mode_cat(void)
{
    char buf[4096];
    ssize_t n;

    init();
    while (job->rank == 0 && (n = read(0, buf, sizeof(buf))) > 0) {
        if (write(1, buf, (size_t)n) != n) {
            return 1;
        }
    }
    finish();
    return 0;
}

static int mode_lines(int n)
{
    struct timespec pause_ts = { 0, 20000 };
    char a[128], b[128];

    init();
    for (int i = 0; i < n; ++i) {
        int la = snprintf(a, sizeof(a), "rank %d line %d: first half ", job->rank, i);
        int lb = snprintf(b, sizeof(b), "second half of %d/%d\n", job->rank, i);
        if (write(1, a, (size_t)la) != la) {
            return 1;
        }
        nanosleep(&pause_ts, NULL);   /* let other ranks' writes slip in */
        if (write(1, b, (size_t)lb) != lb) {
            return 1;
        }
    }
    printf("tail of rank %d", job->rank);   /* no newline */
    fflush(stdout);
    finish();
    return 0;
}

static int mode_shm(int hang)
{
    char name[LOOM_BOOTSTRAP_SHM_PREFIX_MAX + 16];
    loom_status_t st;
    int fd;

    init();
    st = loom_bootstrap_shm_prefix(name, LOOM_BOOTSTRAP_SHM_PREFIX_MAX);
    if (st != LOOM_OK) {
        die("loom_bootstrap_shm_prefix", st);
    }
    snprintf(name + strlen(name), 16, "test-r%d", job->rank);
    fd = shm_open(name, O_CREAT | O_RDWR | O_EXCL, 0600);
    if (fd < 0) {
        die("shm_open", LOOM_ERR_IO);
    }
    close(fd);
    printf("SHM %s\n", name);
    fflush(stdout);
    if (hang) {
        ready();
        for (;;) {
            pause();
        }
    }
    finish();
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "modex";

    if (!strcmp(mode, "modex")) {
        return mode_modex();
    }
    if (!strcmp(mode, "exit") || !strcmp(mode, "abort") || !strcmp(mode, "exit-late")) {
        return argc > 3 ? mode_failure(mode, argc, argv) : 2;
    }
    if (!strcmp(mode, "kill-before") || !strcmp(mode, "kill-after") || !strcmp(mode, "cut-hang") ||
        !strcmp(mode, "nofinalize") || !strcmp(mode, "abort-then-kill")) {
        return argc > 2 ? mode_failure(mode, argc, argv) : 2;
    }
    if (!strcmp(mode, "hang") || !strcmp(mode, "ignore-term")) {
        return mode_hang(!strcmp(mode, "ignore-term"));
    }
    if (!strcmp(mode, "cat")) {
        return mode_cat();
    }
    if (!strcmp(mode, "lines")) {
        return mode_lines(argc > 2 ? atoi(argv[2]) : 10);
    }
    if (!strcmp(mode, "shm") || !strcmp(mode, "shm-hang")) {
        return mode_shm(!strcmp(mode, "shm-hang"));
    }
    if (!strcmp(mode, "env")) {
        for (int i = 2; i < argc; ++i) {
            printf("%s=%s\n", argv[i], getenv(argv[i]) ? getenv(argv[i]) : "(unset)");
        }
        return 0;
    }
    if (!strcmp(mode, "cpus")) {   /* where loomrun bound this rank */
        cpu_set_t set;
        int first = -1;
        if (sched_getaffinity(0, sizeof(set), &set) != 0) {
            return 1;
        }
        for (int c = CPU_SETSIZE - 1; c >= 0; --c) {
            first = CPU_ISSET(c, &set) ? c : first;
        }
        printf("CPUS rank=%s n=%d first=%d\n", getenv("PMIX_RANK") ? getenv("PMIX_RANK") : "?",
               CPU_COUNT(&set), first);
        return 0;
    }
    fprintf(stderr, "prog_launch: unknown mode '%s'\n", mode);
    return 2;
}
