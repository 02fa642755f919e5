/*
 * prog_failinject.c: the rank program of test_failinject.sh. A small
 * workload that walks through every phase a rank can die in:
 *
 *   init      loom_init (every rank in the PMIx fence and address exchange)
 *   eager     ring exchange of small messages, both directions (eager)
 *   rndv      ring exchange of 256 KiB messages (rendezvous on every
 *             transport), checked
 *   coll      allreduce (fast path and a 64 KiB one), bcast from a moving
 *             root, alltoall, barrier, checked
 *   finalize  loom_finalize (BYE exchange with every rank)
 *
 *   prog_failinject VICTIM PHASE ITER
 *     VICTIM  world rank that kills itself with SIGKILL (-1: nobody; the
 *             script may then kill a rank from outside)
 *     PHASE   init|eager|rndv|coll|finalize|none
 *     ITER    where in the phase: init 0 = before loom_init, 1 = right
 *             after; eager/rndv/coll: the iteration (in coll: ITER / 4 is
 *             the iteration and ITER % 4 which collective of it);
 *             finalize 0 = before loom_finalize, 1 = after it
 *
 * The rank to die prints "FI died: rank R phase P iter I at T" (T: wall
 * clock, seconds since the epoch, the moment before raise(SIGKILL)) so the
 * script can measure how long the job takes to end after the death.
 *
 * FI_DIR (optional): each rank writes its pid to FI_DIR/<rank>.pid at start
 * (rank from PMIX_RANK, before loom_init) and its current phase to
 * FI_DIR/<rank>.phase, so the script can kill it from outside and say
 * which phase the kill landed in. A clean run prints "OK failinject" (rank
 * 0) and exits 0.
 *
 * FI_NOTERM=1 (optional): ignore SIGTERM, as programs with their own
 * handler effectively do; loomrun must then end the job with SIGKILL.
 *
 * FI_HOLD=R,PHASE,ITER,FILE (optional): rank R stops at that point (as if it
 * were to die there) until FILE exists, printing "FI held: rank R phase P
 * iter I" first; test_security.sh looks at the job's files meanwhile.
 */
#include <loom.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EAGER_ITERS  60
#define EAGER_BYTES  1000
#define RNDV_ITERS   6
#define RNDV_BYTES   (256 * 1024)
#define COLL_ITERS   20
#define BIG_REDUCE   (64 * 1024 / 8)
#define MAXNP        64

enum { PH_INIT, PH_EAGER, PH_RNDV, PH_COLL, PH_FINALIZE, PH_NONE };
static const char *const phase_names[] = { "init", "eager", "rndv", "coll", "finalize",
                                           "none" };

static int rank = -1, size, victim = -1, kill_phase = PH_NONE, kill_iter;
static int phase_fd = -1;
static int hold_rank = -1, hold_phase = PH_NONE, hold_iter;
static char hold_file[512];

#define CHECK(call)                                                                 \
    do {                                                                            \
        loom_status_t st_ = (call);                                                 \
        if (st_ != LOOM_OK) {                                                       \
            fprintf(stderr, "[%d] FI: %s failed: %s\n", rank, #call,                \
                    loom_status_name(st_));                                         \
            return 1;                                                               \
        }                                                                           \
    } while (0)

static void fi_phase(int phase)
{
    if (phase_fd >= 0) {
        char line[32];
        int n = snprintf(line, sizeof(line), "%-10s\n", phase_names[phase]);
        (void)!pwrite(phase_fd, line, (size_t)n, 0);
    }
}

/* Die here if this is the chosen point. */
static void fi_point(int phase, int iter)
{
    struct timespec ts;

    if (rank == hold_rank && phase == hold_phase && iter == hold_iter) {
        printf("FI held: rank %d phase %s iter %d\n", rank, phase_names[phase], iter);
        fflush(stdout);
        while (access(hold_file, F_OK) != 0) {
            usleep(10 * 1000);
        }
    }
    if (rank != victim || phase != kill_phase || iter != kill_iter) {
        return;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    printf("FI died: rank %d phase %s iter %d at %ld.%09ld\n", rank, phase_names[phase], iter,
           (long)ts.tv_sec, ts.tv_nsec);
    fflush(stdout);
    raise(SIGKILL);
}

static void fi_files(void)
{
    const char *dir = getenv("FI_DIR");
    char path[512];
    FILE *f;

    if (dir == NULL) {
        return;
    }
    snprintf(path, sizeof(path), "%s/%d.phase", dir, rank);
    phase_fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    fi_phase(PH_INIT);
    snprintf(path, sizeof(path), "%s/%d.pid", dir, rank);
    if ((f = fopen(path, "w")) != NULL) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
}

static uint8_t pat(int src, int iter, size_t i)
{
    return (uint8_t)(i * 31 + (size_t)src * 7 + (size_t)iter * 3);
}

static int check_buf(const uint8_t *buf, size_t len, int src, int iter, const char *what)
{
    for (size_t i = 0; i < len; i += (len > 4096 ? 61 : 1)) {
        if (buf[i] != pat(src, iter, i)) {
            fprintf(stderr, "[%d] FI: %s iteration %d: byte %zu from rank %d is wrong\n",
                    rank, what, iter, i, src);
            return 1;
        }
    }
    return 0;
}

/* Send @p len bytes to both neighbours, receive from both, check. */
static int ring(uint8_t *sbuf, uint8_t *rbuf, size_t len, int iter, const char *what)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    loom_request_t req[4];

    for (size_t i = 0; i < len; ++i) {
        sbuf[i] = pat(rank, iter, i);
    }
    CHECK(loom_irecv(rbuf, len, LOOM_BYTE, left, 1, LOOM_COMM_WORLD, &req[0]));
    CHECK(loom_irecv(rbuf + len, len, LOOM_BYTE, right, 2, LOOM_COMM_WORLD, &req[1]));
    CHECK(loom_isend(sbuf, len, LOOM_BYTE, right, 1, LOOM_COMM_WORLD, &req[2]));
    CHECK(loom_isend(sbuf, len, LOOM_BYTE, left, 2, LOOM_COMM_WORLD, &req[3]));
    CHECK(loom_waitall(4, req, NULL));
    return check_buf(rbuf, len, left, iter, what) ||
           check_buf(rbuf + len, len, right, iter, what);
}

static int phase_p2p(int phase, int iters, size_t len)
{
    uint8_t *sbuf = malloc(len), *rbuf = malloc(2 * len);
    int bad = sbuf == NULL || rbuf == NULL;

    fi_phase(phase);
    for (int it = 0; it < iters && !bad; ++it) {
        fi_point(phase, it);
        bad = ring(sbuf, rbuf, len, it, phase_names[phase]);
    }
    free(sbuf);
    free(rbuf);
    return bad;
}

static int coll_step(int it, int64_t *big, int64_t *a2a)
{
    int64_t v[8], sum[8], expect = (int64_t)size * (size - 1) / 2;
    int root = it % size;
    uint8_t bc[4096];

    fi_point(PH_COLL, 4 * it);
    for (int i = 0; i < 8; ++i) {
        v[i] = rank + i * it;
    }
    CHECK(loom_allreduce(v, sum, 8, LOOM_INT64, LOOM_SUM, LOOM_COMM_WORLD));
    if (sum[0] != expect || sum[7] != expect + (int64_t)size * 7 * it) {
        fprintf(stderr, "[%d] FI: allreduce %d gave %lld\n", rank, it, (long long)sum[0]);
        return 1;
    }
    fi_point(PH_COLL, 4 * it + 1);
    for (size_t i = 0; i < sizeof(bc); ++i) {
        bc[i] = rank == root ? pat(root, it, i) : 0;
    }
    CHECK(loom_bcast(bc, sizeof(bc), LOOM_BYTE, root, LOOM_COMM_WORLD));
    if (check_buf(bc, sizeof(bc), root, it, "bcast")) {
        return 1;
    }
    fi_point(PH_COLL, 4 * it + 2);
    for (int q = 0; q < size; ++q) {
        a2a[q] = (int64_t)rank * 1000 + q + it;
    }
    CHECK(loom_alltoall(a2a, a2a + MAXNP, 1, LOOM_INT64, LOOM_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
        if (a2a[MAXNP + q] != (int64_t)q * 1000 + rank + it) {
            fprintf(stderr, "[%d] FI: alltoall %d: block %d is wrong\n", rank, it, q);
            return 1;
        }
    }
    fi_point(PH_COLL, 4 * it + 3);
    if (it % 5 == 4) {
        for (int i = 0; i < BIG_REDUCE; ++i) {
            big[i] = rank;
        }
        CHECK(loom_allreduce(LOOM_IN_PLACE, big, BIG_REDUCE, LOOM_INT64, LOOM_SUM,
                             LOOM_COMM_WORLD));
        if (big[0] != expect || big[BIG_REDUCE - 1] != expect) {
            fprintf(stderr, "[%d] FI: large allreduce %d is wrong\n", rank, it);
            return 1;
        }
    }
    CHECK(loom_barrier(LOOM_COMM_WORLD));
    return 0;
}

static int phase_coll(void)
{
    int64_t *big = malloc(BIG_REDUCE * sizeof(int64_t)), a2a[2 * MAXNP];
    int bad = big == NULL || size > MAXNP;

    fi_phase(PH_COLL);
    for (int it = 0; it < COLL_ITERS && !bad; ++it) {
        bad = coll_step(it, big, a2a);
    }
    free(big);
    return bad;
}

static int parse_phase(const char *s)
{
    for (int p = 0; p <= PH_NONE; ++p) {
        if (strcmp(s, phase_names[p]) == 0) {
            return p;
        }
    }
    return -1;
}

static int parse_phase(const char *s);

/* FI_HOLD=R,PHASE,ITER,FILE */
static void fi_hold_parse(void)
{
    const char *h = getenv("FI_HOLD");
    char phase[16];
    int n = 0;

    if (h != NULL && sscanf(h, "%d,%15[a-z],%d,%n", &hold_rank, phase, &hold_iter, &n) == 3 &&
        n > 0 && (hold_phase = parse_phase(phase)) >= 0) {
        snprintf(hold_file, sizeof(hold_file), "%s", h + n);
    } else {
        hold_rank = -1;
    }
}

int main(int argc, char **argv)
{
    const char *env_rank = getenv("PMIX_RANK");
    loom_status_t st;
    int bad;

    if (argc != 4 || (kill_phase = parse_phase(argv[2])) < 0) {
        fprintf(stderr, "usage: prog_failinject VICTIM init|eager|rndv|coll|finalize|none "
                "ITER\n");
        return 2;
    }
    victim    = atoi(argv[1]);
    kill_iter = atoi(argv[3]);
    rank      = env_rank != NULL ? atoi(env_rank) : 0;
    fi_hold_parse();
    if (getenv("FI_NOTERM") != NULL && strcmp(getenv("FI_NOTERM"), "1") == 0) {
        signal(SIGTERM, SIG_IGN);
    }
    fi_files();
    fi_point(PH_INIT, 0);
    if ((st = loom_init(&argc, &argv)) != LOOM_OK) {
        fprintf(stderr, "[%d] FI: loom_init failed: %s\n", rank, loom_status_name(st));
        return 1;
    }
    rank = loom_rank();
    size = loom_size();
    fi_point(PH_INIT, 1);
    bad = phase_p2p(PH_EAGER, EAGER_ITERS, EAGER_BYTES) ||
          phase_p2p(PH_RNDV, RNDV_ITERS, RNDV_BYTES) || phase_coll();
    fi_phase(PH_FINALIZE);
    fi_point(PH_FINALIZE, 0);
    if ((st = loom_finalize()) != LOOM_OK) {
        fprintf(stderr, "[%d] FI: loom_finalize failed: %s\n", rank, loom_status_name(st));
        bad = 1;
    }
    fi_phase(PH_NONE);
    fi_point(PH_FINALIZE, 1);
    if (!bad && rank == 0) {
        printf("OK failinject np %d\n", size);
    }
    return bad;
}
