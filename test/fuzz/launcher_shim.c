/*
 * launcher_shim.c: the two loop functions the launcher's output path links
 * against, for the fuzz targets only.
 *
 * loomrun_proc.c forwards output through the hang-report filter
 * (loomrun_hang.c), which needs loomrun_now and loomrun_signal_job from
 * loomrun_loop.c; that file also holds the event loop, which pulls the
 * head, the daemons, the PMIx server and loomrun's main(). The fuzz
 * library leaves it out and takes these two from here: the same clock,
 * and a job signal the fuzz targets must never reach (they run no job).
 */
#include "loomrun_int.h"

#include <time.h>

double loomrun_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void loomrun_signal_job(loomrun_loop_t *lp, int sig)
{
    (void)lp;
    (void)sig;
    __builtin_trap();   /* only the --timeout teardown signals a job */
}
