/*
 * loomrun_util.c: the launcher's smallest helpers, with no state and no
 * dependency on the event loop, so that the pieces linked without the loop
 * (the fuzz library's output path) get them from here as loomrun does.
 */
#include "loomrun_int.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double loomrun_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *loomrun_signame(int sig)
{
    static char buf[32];
    const char *abbrev = sigabbrev_np(sig);

    snprintf(buf, sizeof(buf), "SIG%s", abbrev ? abbrev : "?");
    return buf;
}
