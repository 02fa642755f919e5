/*
 * loomrun_hang.c: loomrun's side of hang reports (the line protocol and the
 * summary rules are in loomrun_report.h and docs/troubleshooting.md).
 *
 * Only the loomrun the user started (single host, or the head) reads
 * reports: a daemon forwards its ranks' stderr to the head like any other
 * output. Each line a rank writes to stderr that begins "loom-report " is
 * parsed; a good one is kept (not printed, unless --report-raw or the
 * ranks' LOOM_LOG is debug or trace), a malformed one is printed as it is.
 *
 * Two moments print the summary, once each:
 *  - every rank still running has a report block (ranks report on their own
 *    after LOOM_PROGRESS_TIMEOUT seconds in one blocking call): the job goes
 *    on; a hang report is not a failure. A later summary is printed only if
 *    it says something else. A rank that writes to stdout after its report
 *    has moved on: its block is forgotten.
 *  - --timeout: every rank that catches SIGUSR1 gets it (sending it to one
 *    that does not would kill it: /proc/PID/status says which do); loomrun
 *    waits up to LOOMRUN_HANG_WAIT_S for their blocks, prints the summary of
 *    what came, then the usual timeout message and teardown.
 */
#include "loomrun_int.h"
#include "loomrun_report.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define LOOMRUN_HANG_WAIT_S 1.5   /* for the blocks after SIGUSR1 */

typedef struct loomrun_hang {
    loomrun_report_t  rp;
    int               raw;            /* forward report lines too */
    unsigned          seen_gen;       /* rp.generation last looked at */
    char             *last;           /* body of the last summary printed */
    double            deadline;       /* --timeout: waiting for blocks until then */
    double            t0;             /* SIGUSR1 sent then */
    uint8_t          *expect;         /* --timeout: ranks that should answer */
} loomrun_hang_t;

/* LOOM_LOG of the ranks at debug or trace: they want to see everything. */
static int loomrun_hang_debug_log(char *const *env)
{
    for (char *const *e = env; e != NULL && *e != NULL; ++e) {
        if (strncmp(*e, "LOOM_LOG=", 9) == 0) {
            return strncasecmp(*e + 9, "debug", 5) == 0 || strncasecmp(*e + 9, "trace", 5) == 0;
        }
    }
    return 0;
}

int loomrun_hang_init(loomrun_job_t *job)
{
    loomrun_hang_t *h = calloc(1, sizeof(*h));

    if (h == NULL || loomrun_report_init(&h->rp, job->opts.nranks) != 0 ||
        (h->expect = calloc((size_t)job->opts.nranks, 1)) == NULL) {
        if (h != NULL) {
            loomrun_report_fini(&h->rp);
        }
        free(h);
        fprintf(stderr, "loomrun: out of memory for the hang reports of %d ranks\n",
                job->opts.nranks);
        return -1;
    }
    h->raw = job->opts.report_raw || loomrun_hang_debug_log(job->env);
    job->hang = h;
    return 0;
}

void loomrun_hang_fini(loomrun_job_t *job)
{
    loomrun_hang_t *h = job->hang;

    if (h != NULL) {
        loomrun_report_fini(&h->rp);
        free(h->expect);
        free(h->last);
        free(h);
        job->hang = NULL;
    }
}

/* ---- output ---------------------------------------------------------------------- */

void loomrun_hang_emit(loomrun_job_t *job, int rank, int out_fd, const char *data, size_t len,
                       int end_line)
{
    if (job->hang == NULL || !loomrun_hang_filter(job, rank, out_fd, data, len, end_line)) {
        loomrun_proc_emit_raw(job, rank, out_fd, data, len, end_line);
    }
}

int loomrun_hang_filter(loomrun_job_t *job, int rank, int out_fd, const char *data, size_t len,
                        int end_line)
{
    loomrun_hang_t *h = job->hang;
    size_t start = 0, keep = 0;   /* [start, keep): lines to forward */

    if (out_fd != 2) {
        if (len > 0 && rank >= 0 && rank < h->rp.nranks) {
            loomrun_report_forget(&h->rp, rank);   /* it moved on */
        }
        return 0;
    }
    if (len < sizeof(LOOMRUN_REPORT_PREFIX) - 1 || memmem(data, len, LOOMRUN_REPORT_PREFIX,
                                                          sizeof(LOOMRUN_REPORT_PREFIX) - 1) == NULL) {
        return 0;   /* the usual case: no report line in there */
    }
    while (keep < len) {
        const char *nl = memchr(data + keep, '\n', len - keep);
        size_t end = nl ? (size_t)(nl - data) + 1 : len;
        loomrun_report_rec_t rec;

        if (loomrun_report_parse(data + keep, end - keep, h->rp.nranks, &rec) == 1 &&
            rec.rank == rank) {
            loomrun_report_add(&h->rp, &rec, loomrun_now());
            if (!h->raw) {
                if (keep > start) {
                    loomrun_proc_emit_raw(job, rank, out_fd, data + start, keep - start, 0);
                }
                start = end;
            }
        }   /* a malformed report line, or another rank's, is printed as it is */
        keep = end;
    }
    if (len > start) {
        loomrun_proc_emit_raw(job, rank, out_fd, data + start, len - start, end_line);
    }
    return 1;
}

/* ---- the summary ------------------------------------------------------------------ */

/* Print the summary under @p header (unless it says what the last one said). */
static void loomrun_hang_print(loomrun_loop_t *lp, const char *header, int always)
{
    loomrun_job_t *job = lp->job;
    loomrun_hang_t *h = job->hang;
    loomrun_report_run_t *run = calloc((size_t)job->opts.nranks, sizeof(*run));
    char *body = NULL;

    if (run != NULL) {
        for (int r = 0; r < job->opts.nranks; ++r) {
            run[r] = job->ranks[r].alive ? LOOMRUN_REPORT_RUNNING : LOOMRUN_REPORT_ENDED;
            if (!job->ranks[r].alive) {
                loomrun_report_forget(&h->rp, r);   /* an ended rank waits for nothing */
            }
        }
        body = loomrun_report_summary(&h->rp, run);
    }
    free(run);
    if (body == NULL || body[0] == '\0' ||
        (!always && h->last != NULL && strcmp(h->last, body) == 0)) {
        free(body);
        return;
    }
    fprintf(stderr, "loomrun: %s:\n%s", header, body);
    fflush(stderr);
    free(h->last);
    h->last = body;
}

/* Every running rank has a block: the job looks hung. */
static void loomrun_hang_auto(loomrun_loop_t *lp)
{
    loomrun_job_t *job = lp->job;
    loomrun_hang_t *h = job->hang;
    double waited = -1;
    char header[160];

    for (int r = 0; r < job->opts.nranks; ++r) {
        const loomrun_report_block_t *b = h->rp.latest[r];
        if (job->ranks[r].alive && b == NULL) {
            return;
        }
        if (job->ranks[r].alive && (waited < 0 || b->waited < waited)) {
            waited = b->waited;
        }
    }
    if (waited < 0) {
        return;   /* nobody running */
    }
    snprintf(header, sizeof(header), "job appears hung (rank reports after %.1f s without "
             "progress)", waited);
    loomrun_hang_print(lp, header, 0);
}

/* ---- --timeout ----------------------------------------------------------------------- */

int loomrun_hang_timeout_begin(loomrun_loop_t *lp, double now)
{
    loomrun_job_t *job = lp->job;
    loomrun_hang_t *h = job->hang;
    int nexpect = 0;

    if (h == NULL) {
        return 0;
    }
    for (int r = 0; r < job->opts.nranks; ++r) {
        loomrun_rank_t *rk = &job->ranks[r];
        loomrun_report_forget(&h->rp, r);   /* only what they say now counts */
        free(h->rp.reading[r]);
        h->rp.reading[r] = NULL;
        /* a remote rank's daemon makes the same check before it signals */
        h->expect[r] = rk->alive && (rk->node != job->my_node ||
                                     loomrun_proc_catches(rk->pid, SIGUSR1));
        nexpect += h->expect[r];
    }
    if (nexpect == 0) {
        return 0;
    }
    loomrun_signal_job(lp, SIGUSR1);
    h->t0       = now;
    h->deadline = now + LOOMRUN_HANG_WAIT_S;
    return 1;
}

/* --timeout: all the expected blocks are in, or the wait is over. */
static int loomrun_hang_timeout_due(loomrun_loop_t *lp, double now)
{
    loomrun_job_t *job = lp->job;
    loomrun_hang_t *h = job->hang;

    if (now >= h->deadline) {
        return 1;
    }
    for (int r = 0; r < job->opts.nranks; ++r) {
        if (h->expect[r] && job->ranks[r].alive && h->rp.latest[r] == NULL) {
            return 0;
        }
    }
    return 1;
}

double loomrun_hang_deadline(const loomrun_loop_t *lp)
{
    const loomrun_hang_t *h = lp->job->hang;

    return h != NULL ? h->deadline : 0;
}

int loomrun_hang_check(loomrun_loop_t *lp, double now)
{
    loomrun_hang_t *h = lp->job->hang;
    char header[160];

    if (h == NULL) {
        return 0;
    }
    if (h->deadline > 0) {
        if (lp->failed) {
            h->deadline = 0;   /* something else ended the job meanwhile */
            return 0;
        }
        if (!loomrun_hang_timeout_due(lp, now)) {
            return 0;
        }
        h->deadline = 0;
        snprintf(header, sizeof(header), "--timeout %g s: the ranks' state (reports after "
                 "SIGUSR1)", lp->job->opts.timeout);
        loomrun_hang_print(lp, header, 1);
        return 1;
    }
    if (h->rp.generation != h->seen_gen) {
        h->seen_gen = h->rp.generation;
        if (!lp->failed) {
            loomrun_hang_auto(lp);
        }
    }
    return 0;
}
