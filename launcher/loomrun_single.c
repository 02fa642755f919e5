/*
 * loomrun_single.c: the role of a loomrun whose job runs on this host alone
 * (no --host or --hostfile, or every rank placed here).
 *
 * A role is a table of what differs between a single host, the head of a
 * multi-host job and a daemon (loomrun_role_ops_t in loomrun_int.h); the
 * shared loop (loomrun_loop.c) calls through it. This one judges every end
 * itself (loomrun_classify_exit, loomrun_abort_event), prints the one
 * failure message, forwards signals to its ranks, and keeps the ranks' hang
 * reports (loomrun_hang.c): the output hook is loomrun_hang_emit and the
 * --timeout wait is the hang reports'. It has no fds of its own, no timers
 * and nothing to start or stop.
 *
 * The head (loomrun_head.c) is this role plus daemons: it reuses the
 * functions exported here for what both do, so the two cannot drift apart.
 * Layering: this file calls the loop and the hang reports, never the head
 * or the daemon.
 */
#include "loomrun_int.h"

#include <signal.h>
#include <stdio.h>

void loomrun_single_report_failure(loomrun_loop_t *lp, const char *msg)
{
    if (lp->nalive > 0) {
        fprintf(stderr, "loomrun: %s; stopping the job (%d of %d ranks still running)\n",
                msg, lp->nalive, lp->job->opts.nranks);
    } else {
        fprintf(stderr, "loomrun: %s\n", msg);
    }
}

void loomrun_single_report_kill(loomrun_loop_t *lp)
{
    if (lp->nalive > 0 && !lp->job->opts.quiet) {
        fprintf(stderr, "loomrun: %d rank(s) still running 2 s after SIGTERM: "
                "sending SIGKILL\n", lp->nalive);
    }
}

void loomrun_single_on_signal(loomrun_loop_t *lp, int sig)
{
    if (lp->signals_seen > 1) {
        /* asked again: no more patience */
        loomrun_signal_job(lp, SIGKILL);
        lp->phase          = LOOMRUN_KILL;
        lp->phase_deadline = 0;
        return;
    }
    loomrun_signal_job(lp, sig);
    loomrun_fail(lp, 128 + sig, "received %s: forwarded it to the ranks", loomrun_signame(sig));
}

void loomrun_single_event(loomrun_loop_t *lp, loomrun_event_t *ev)
{
    if (ev->type == LOOMRUN_EVENT_ABORT) {
        loomrun_abort_event(lp, ev);
    }   /* fences and direct modex need other nodes: none here */
}

/* ---- what a single host does not have ------------------------------------------ */

static int loomrun_single_start(loomrun_loop_t *lp)
{
    (void)lp;
    return 0;
}

static void loomrun_single_stop(loomrun_loop_t *lp)
{
    (void)lp;
}

static void loomrun_single_signal_remote(loomrun_loop_t *lp, int sig)
{
    (void)lp;
    (void)sig;
}

static int loomrun_single_reaped(loomrun_loop_t *lp, pid_t pid, int wstatus)
{
    (void)lp;
    (void)pid;
    (void)wstatus;
    return 0;
}

static void loomrun_single_rank_noted(loomrun_loop_t *lp, int rank, int peer)
{
    (void)lp;
    (void)rank;
    (void)peer;
}

static double loomrun_single_tick(loomrun_loop_t *lp, double now)
{
    (void)now;
    return loomrun_hang_deadline(lp);
}

static int loomrun_single_poll_fill(loomrun_loop_t *lp, struct pollfd *pfd, int n)
{
    (void)lp;
    (void)pfd;
    return n;
}

static void loomrun_single_poll_handle(loomrun_loop_t *lp, struct pollfd *pfd, int from, int to)
{
    (void)lp;
    (void)pfd;
    (void)from;
    (void)to;
}

static int loomrun_single_may_end(const loomrun_loop_t *lp)
{
    (void)lp;
    return 1;
}

const loomrun_role_ops_t loomrun_role_single = {
    .start          = loomrun_single_start,
    .stop           = loomrun_single_stop,
    .report_failure = loomrun_single_report_failure,
    .report_kill    = loomrun_single_report_kill,
    .on_signal      = loomrun_single_on_signal,
    .signal_remote  = loomrun_single_signal_remote,
    .event          = loomrun_single_event,
    .reaped         = loomrun_single_reaped,
    .rank_ended     = loomrun_classify_exit,
    .rank_noted     = loomrun_single_rank_noted,
    .tick           = loomrun_single_tick,
    .poll_fill      = loomrun_single_poll_fill,
    .poll_handle    = loomrun_single_poll_handle,
    .timeout_begin  = loomrun_hang_timeout_begin,
    .timeout_check  = loomrun_hang_check,
    .may_end        = loomrun_single_may_end,
    .emit           = loomrun_hang_emit,
};
