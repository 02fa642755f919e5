/*
 * floor_pingpong.c: the hardware floor under any shared-memory latency.
 *
 * Two processes hand one 8-byte value back and forth through two cache
 * lines of a shared mapping: side 0 stores i in line A and spins on line B
 * until side 1 echoes it. Half a round trip is what one small message costs
 * when a library does nothing but move a cache line between the two cores,
 * so no MPI library's 8-byte osu_latency can be lower on the same cpus.
 * On a virtual machine the floor depends on where the host placed the two
 * vCPUs, so compare.sh measures it next to every shm osu_latency pair.
 *
 * Where it runs is the launcher's business, as for the ranks it is compared
 * with: compare.sh starts it as 2 processes under loomrun (or mpirun) with
 * the very binding options the osu ranks get, so the floor runs on the cpus
 * ranks 0 and 1 get (loomrun's --bind-to core gives rank i core i, both
 * hwthreads of it on an SMT machine; a rule of its own here could pick two
 * threads of one core instead). The two sides meet in a /dev/shm segment
 * named after the job (PMIX_NAMESPACE; PMIX_RANK says which side), named as
 * libloom names its segments so loomrun's job cleanup removes it should a
 * side die before side 0 unlinks it. Started alone (no PMIX_RANK), it forks
 * its peer and both run where the scheduler puts them.
 *
 * When both sides may run on one cpu only (e.g. taskset -c 1), spinning
 * would burn the peer's time slice, so the waits yield at once: the floor is
 * then a context switch, as for any two ranks sharing that cpu.
 *
 * usage: [loomrun --bind-to core -np 2] floor_pingpong [-i round_trips] [-r trials]
 * Side 0 prints "floor_us <median one-way microseconds over the trials>".
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_LINE 64
#define FLOOR_MEET_SECONDS 30.0   /* how long side 0 and side 1 wait for each other */

/* the spin-wait hint: without it the waiting core piles up loads of the
 * line and flushes its pipeline when the store lands, which measured
 * 0.055 us one way here against 0.035-0.047 with it: the floor is the lower */
#if defined(__x86_64__) || defined(__i386__)
#define FLOOR_PAUSE() __builtin_ia32_pause()
#else
#define FLOOR_PAUSE() ((void)0)
#endif

typedef struct floor_shared {
    _Alignas(FLOOR_LINE) _Atomic uint64_t ping;
    _Alignas(FLOOR_LINE) _Atomic uint64_t pong;
    _Alignas(FLOOR_LINE) _Atomic int here[2];   /* each side, once cpus[] is written */
    cpu_set_t cpus[2];                          /* where each side may run */
} floor_shared_t;

static double floor_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Say where side @p side may run, and that it is here. */
static void floor_arrive(floor_shared_t *sh, int side)
{
    if (sched_getaffinity(0, sizeof(sh->cpus[side]), &sh->cpus[side]) != 0) {
        CPU_ZERO(&sh->cpus[side]);   /* unknown: counted as no cpu, so no yield */
    }
    atomic_store_explicit(&sh->here[side], 1, memory_order_release);
}

/* The job's segment name, the way libloom names its own (bootstrap.c:
 * "/loom-" and the job id with anything but [A-Za-z0-9._-] as '_'). */
static int floor_segment_name(const char *nspace, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "/loom-%s-floor", nspace);

    if (n < 0 || (size_t)n >= cap) {
        return -1;
    }
    for (char *p = buf + 6; p < buf + n - 6; ++p) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-')) {
            *p = '_';
        }
    }
    return 0;
}

/* Side @p side of a launched pair: map the job's segment and meet the other side. */
static floor_shared_t *floor_meet(const char *nspace, int side)
{
    char name[256];
    floor_shared_t *sh = MAP_FAILED;
    int fd;
    double t0 = floor_now();

    if (floor_segment_name(nspace, name, sizeof(name)) != 0) {
        fprintf(stderr, "floor_pingpong: PMIX_NAMESPACE '%s' is too long\n", nspace);
        return NULL;
    }
    fd = shm_open(name, O_RDWR | O_CREAT, 0600);   /* whichever side comes first creates */
    if (fd < 0 || ftruncate(fd, sizeof(*sh)) != 0 ||
        (sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        fprintf(stderr, "floor_pingpong: side %d: /dev/shm%s: %s\n", side, name, strerror(errno));
        goto out_unlink;
    }
    floor_arrive(sh, side);
    while (!atomic_load_explicit(&sh->here[!side], memory_order_acquire)) {
        if (floor_now() - t0 > FLOOR_MEET_SECONDS) {
            fprintf(stderr, "floor_pingpong: side %d: side %d never came in %.0f s "
                    "(run it as 2 processes of one job)\n", side, !side, FLOOR_MEET_SECONDS);
            munmap(sh, sizeof(*sh));
            sh = MAP_FAILED;
            break;
        }
        usleep(1000);
    }
out_unlink:
    if (side == 0 || sh == MAP_FAILED) {
        shm_unlink(name);   /* both are in (or gave up): the name is no longer needed */
    }
    if (fd >= 0) {
        close(fd);
    }
    return sh == MAP_FAILED ? NULL : sh;
}

/* Alone: fork side 1 over an anonymous shared mapping. @return this process's side. */
static int floor_fork(floor_shared_t **sh_p, pid_t *child_p)
{
    floor_shared_t *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);

    if (sh == MAP_FAILED) {
        fprintf(stderr, "floor_pingpong: mmap: %s\n", strerror(errno));
        return -1;
    }
    floor_arrive(sh, 0);
    floor_arrive(sh, 1);   /* the child inherits this process's cpus */
    *sh_p = sh;
    *child_p = fork();
    if (*child_p < 0) {
        fprintf(stderr, "floor_pingpong: fork: %s\n", strerror(errno));
        return -1;
    }
    if (*child_p == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* never spin on after the parent */
        if (getppid() == 1) {
            _exit(1);
        }
        return 1;
    }
    return 0;
}

/* Wait until @p line holds @p v: spin with the pause hint, or yield the cpu. */
static inline void floor_wait(_Atomic uint64_t *line, uint64_t v, int yield)
{
    while (atomic_load_explicit(line, memory_order_acquire) != v) {
        if (yield) {
            sched_yield();
        } else {
            FLOOR_PAUSE();
        }
    }
}

/* Side 1: echo every value of side 0. */
static void floor_echo(floor_shared_t *sh, long total, int yield)
{
    for (uint64_t v = 1; v <= (uint64_t)total; ++v) {
        floor_wait(&sh->ping, v, yield);
        atomic_store_explicit(&sh->pong, v, memory_order_release);
    }
}

static int floor_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Side 0: @p trials timed runs of @p iters round trips (after one warm-up
 * each). @return the median one-way time in microseconds. */
static double floor_time(floor_shared_t *sh, long iters, long trials, double *oneway, int yield)
{
    double t0 = 0;

    for (long t = 0, v = 1; t < trials; ++t) {
        for (long i = 0; i <= iters; ++i, ++v) {
            if (i == 1) {
                t0 = floor_now();
            }
            atomic_store_explicit(&sh->ping, (uint64_t)v, memory_order_release);
            floor_wait(&sh->pong, (uint64_t)v, yield);
        }
        oneway[t] = (floor_now() - t0) / (double)iters / 2 * 1e6;
    }
    qsort(oneway, (size_t)trials, sizeof(*oneway), floor_cmp);
    return oneway[trials / 2];
}

/* 1 when both sides may run on one and the same cpu only. */
static int floor_one_cpu(const floor_shared_t *sh)
{
    cpu_set_t both;

    CPU_OR(&both, &sh->cpus[0], &sh->cpus[1]);
    return CPU_COUNT(&both) == 1;
}

/* -i and -r into @p iters_p and @p trials_p. @return 0, or 2 (usage). */
static int floor_args(int argc, char **argv, long *iters_p, long *trials_p)
{
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-i") && i + 1 < argc) {
            *iters_p = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            *trials_p = strtol(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: [loomrun --bind-to core -np 2] floor_pingpong "
                    "[-i round_trips] [-r trials]\n");
            return 2;
        }
    }
    if (*iters_p < 1000 || *trials_p < 1 || *trials_p > 1000) {
        fprintf(stderr, "floor_pingpong: -i needs >= 1000 round trips and -r 1..1000 trials\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long iters = 200000, trials = 5;
    const char *rank = getenv("PMIX_RANK"), *nspace = getenv("PMIX_NAMESPACE");
    floor_shared_t *sh = NULL;
    double *oneway;
    pid_t child = -1;
    int side, yield;

    if (floor_args(argc, argv, &iters, &trials) != 0) {
        return 2;
    }
    if (rank != NULL && strcmp(rank, "0") != 0 && strcmp(rank, "1") != 0) {
        fprintf(stderr, "floor_pingpong: rank %s: run it as exactly 2 processes\n", rank);
        return 2;
    }
    if (rank != NULL && nspace != NULL) {
        side = rank[0] - '0';
        sh = floor_meet(nspace, side);
    } else {
        side = floor_fork(&sh, &child);
    }
    if (sh == NULL || side < 0) {
        return 1;
    }
    yield = floor_one_cpu(sh);
    if (side == 1) {
        floor_echo(sh, (iters + 1) * trials, yield);   /* one warm-up round trip per trial */
        if (child == 0) {
            _exit(0);
        }
        return 0;
    }
    oneway = calloc((size_t)trials, sizeof(*oneway));
    if (oneway == NULL) {
        fprintf(stderr, "floor_pingpong: out of memory for %ld trials\n", trials);
        return 1;   /* (side 1 ends too: a launcher ends the job, PDEATHSIG the child) */
    }
    if (yield) {
        fprintf(stderr, "floor_pingpong: both sides on one cpu: each hop is a yield\n");
    }
    printf("floor_us %.3f\n", floor_time(sh, iters, trials, oneway, yield));
    if (child > 0) {
        waitpid(child, NULL, 0);
    }
    free(oneway);
    return 0;
}
