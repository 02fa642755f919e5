/*
 * launcher_shim.c: the one loop function the launcher's output path links
 * against, for the fuzz targets only.
 *
 * loomrun_proc.c forwards output through the hang-report filter
 * (loomrun_hang.c), which calls loomrun_signal_job from loomrun_loop.c;
 * that file also holds the event loop, which pulls the head, the daemons,
 * the PMIx server and loomrun's main(). The fuzz library leaves it out and
 * takes this from here: a job signal the fuzz targets must never reach
 * (they run no job). The clock and the signal names come from
 * loomrun_util.c, as in loomrun.
 */
#include "loomrun_int.h"

void loomrun_signal_job(loomrun_loop_t *lp, int sig)
{
    (void)lp;
    (void)sig;
    __builtin_trap();   /* only the --timeout teardown signals a job */
}
