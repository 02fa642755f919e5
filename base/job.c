/*
 * job.c: the public job-information calls (loom_rank, loom_size, ...).
 *
 * They read what the bootstrap found at init; before loom_init() (and after
 * loom_finalize()) the process describes itself as a singleton: rank 0 of
 * 1 on its own host. loom_abort() works at any time.
 */
#include "bootstrap_int.h"
#include "mt_int.h"

#include <time.h>
#include <unistd.h>

int loom_rank(void)
{
    LOOM_MT_GUARD();
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    return info ? info->rank : 0;
}

int loom_size(void)
{
    LOOM_MT_GUARD();
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    return info ? info->size : 1;
}

int loom_local_rank(void)
{
    LOOM_MT_GUARD();
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    return info ? info->local_rank : 0;
}

int loom_local_size(void)
{
    LOOM_MT_GUARD();
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    return info ? info->local_size : 1;
}

const char *loom_hostname(int rank)
{
    LOOM_MT_GUARD();
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    static char self_host[256];

    if (info != NULL) {
        return (rank >= 0 && rank < info->size) ? info->hostnames[rank] : NULL;
    }
    if (rank != 0) {
        return NULL;
    }
    if (self_host[0] == '\0' && gethostname(self_host, sizeof(self_host) - 1) != 0) {
        return "localhost";
    }
    return self_host;
}

void loom_abort(int code, const char *msg)
{
    /* LOOM_MT_NO_GUARD: abort must not wait for a thread that holds the lock */
    loom_bootstrap_abort(code, msg);
}

double loom_wtime(void)
{
    /* LOOM_MT_NO_GUARD: a clock read; touches no engine state */
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double loom_wtick(void)
{
    /* LOOM_MT_NO_GUARD: a clock read; touches no engine state */
    struct timespec ts;

    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0) {
        return 1e-9;
    }
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
