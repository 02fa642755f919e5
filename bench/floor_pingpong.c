/*
 * floor_pingpong.c: the hardware floor under any shared-memory latency.
 *
 * Two processes hand one 8-byte value back and forth through two cache
 * lines of a shared mapping: the parent stores i in line A and spins on
 * line B until the child echoes it. Half a round trip is what one small
 * message costs when a library does nothing but move a cache line between
 * the two cores, so no MPI library's 8-byte osu_latency can be lower on the
 * same pair of cores. compare.sh runs it next to osu_latency with the same
 * binding and prints it beside the latency target, because on a virtual
 * machine the floor depends on where the host placed the two vCPUs.
 *
 * usage: floor_pingpong [--bind core|none] [-i round_trips] [-r trials]
 * Prints "floor_us <median one-way microseconds over the trials>".
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_LINE 64

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
} floor_shared_t;

static double floor_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Bind to the @p which-th cpu loomrun and mpirun would give rank @p which. */
static int floor_bind(int which)
{
    cpu_set_t allowed, one;
    int seen = 0;

    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
        return -1;
    }
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &allowed) && seen++ == which) {
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            return sched_setaffinity(0, sizeof(one), &one);
        }
    }
    return -1;    /* fewer than two cpus: stay unbound */
}

static int floor_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long iters = 200000, trials = 5, total;
    int bind = 1;
    floor_shared_t *sh;
    double *oneway, t0 = 0;
    pid_t child;

    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--bind") && i + 1 < argc) {
            bind = !strcmp(argv[++i], "core");
        } else if (!strcmp(argv[i], "-i") && i + 1 < argc) {
            iters = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            trials = strtol(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: floor_pingpong [--bind core|none] [-i round_trips] "
                    "[-r trials]\n");
            return 2;
        }
    }
    if (iters < 1000 || trials < 1 || trials > 1000) {
        fprintf(stderr, "floor_pingpong: -i needs >= 1000 round trips and -r 1..1000 trials\n");
        return 2;
    }
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    oneway = calloc((size_t)trials, sizeof(*oneway));
    if (sh == MAP_FAILED || oneway == NULL) {
        fprintf(stderr, "floor_pingpong: out of memory: %s\n", strerror(errno));
        return 1;
    }
    total = (iters + 1) * trials;   /* one warm-up round trip per trial */
    child = fork();
    if (child < 0) {
        fprintf(stderr, "floor_pingpong: fork: %s\n", strerror(errno));
        return 1;
    }
    if (bind) {
        (void)floor_bind(child == 0 ? 1 : 0);
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* never spin on after the parent */
        if (getppid() == 1) {
            _exit(1);
        }
        for (uint64_t v = 1; v <= (uint64_t)total; ++v) {
            while (atomic_load_explicit(&sh->ping, memory_order_acquire) != v) {
                FLOOR_PAUSE();
            }
            atomic_store_explicit(&sh->pong, v, memory_order_release);
        }
        _exit(0);
    }
    for (long t = 0, v = 1; t < trials; ++t) {
        for (long i = 0; i <= iters; ++i, ++v) {
            if (i == 1) {
                t0 = floor_now();
            }
            atomic_store_explicit(&sh->ping, (uint64_t)v, memory_order_release);
            while (atomic_load_explicit(&sh->pong, memory_order_acquire) != (uint64_t)v) {
                FLOOR_PAUSE();
            }
        }
        oneway[t] = (floor_now() - t0) / (double)iters / 2 * 1e6;
    }
    waitpid(child, NULL, 0);
    qsort(oneway, (size_t)trials, sizeof(*oneway), floor_cmp);
    printf("floor_us %.3f\n", oneway[trials / 2]);
    free(oneway);
    return 0;
}
