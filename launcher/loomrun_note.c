/*
 * loomrun_note.c: ranks telling loomrun that they saw a peer fail.
 *
 * Why. One death brings others: when a rank dies, every survivor's PMIx
 * fence fails and it exits 1, and over tcp a survivor sees the connection
 * close and aborts. The dead rank's socket closes before the kernel reports
 * its exit, so on a loaded machine the survivors' ends often reach loomrun
 * first, and no order of waitpid can tell loomrun which end came first in
 * cause. Only the ranks know: the bootstrap (and the p2p engine, through
 * it) writes one note "RANK PEER\n" when it first sees a peer fail
 * (base/bootstrap_int.h, loom_bootstrap_note_peer_failure), and loomrun
 * then takes that rank's own end, whatever it is, as a consequence.
 *
 * How. One pipe per node, made here before the ranks are forked; its write
 * end is inherited by every rank (loomrun_proc.c clears close-on-exec in
 * the child only) and named in LOOM_BOOTSTRAP_NOTE_ENV. Both ends are
 * non-blocking: a rank never waits on loomrun, and a note that does not fit
 * is lost, which only makes the choice of culprit less sure. A note is in
 * the pipe before the rank can exit, abort or die of it, so reading the
 * pipe just before judging any end (a reap, an abort event) always sees
 * the notes that explain it: no timing is involved. A daemon forwards each
 * note to the head (a NOTE frame, ahead of the EXIT or ABORT it explains
 * on the same connection), so the head chooses across hosts.
 */
#include "loomrun_int.h"
#include "bootstrap_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Move @p fd to 3 or above (a rank's 0-2 are its stdio), close-on-exec. */
static int loomrun_note_high_fd(int fd)
{
    int high;

    if (fd > 2) {
        return fd;
    }
    high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return high;
}

int loomrun_note_init(loomrun_job_t *job)
{
    int fds[2];

    job->note_rfd = job->note_wfd = -1;
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        fprintf(stderr, "loomrun: pipe for the ranks' notes: %s\n", strerror(errno));
        return -1;
    }
    job->note_rfd = loomrun_note_high_fd(fds[0]);
    job->note_wfd = loomrun_note_high_fd(fds[1]);
    if (job->note_rfd < 0 || job->note_wfd < 0) {
        fprintf(stderr, "loomrun: pipe for the ranks' notes: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

void loomrun_note_seen(loomrun_loop_t *lp, int rank, int peer)
{
    loomrun_job_t *job = lp->job;
    loomrun_rank_t *rk;

    if (rank < 0 || rank >= job->opts.nranks) {
        return;
    }
    rk = &job->ranks[rank];
    if (rk->saw_failure) {
        return;   /* the first one counts */
    }
    rk->saw_failure = 1;
    rk->failed_peer = peer >= 0 && peer < job->opts.nranks && peer != rank ? peer : -1;
    lp->role->rank_noted(lp, rank, rk->failed_peer);   /* a daemon tells the head */
}

/* One line "RANK PEER" from a rank of this node (others are ignored: a
 * rank can only speak for itself, and only once). */
static void loomrun_note_line(loomrun_loop_t *lp, const char *line)
{
    loomrun_job_t *job = lp->job;
    int rank, peer;

    if (sscanf(line, "%d %d", &rank, &peer) == 2 && rank >= 0 && rank < job->opts.nranks &&
        job->ranks[rank].node == job->my_node) {
        loomrun_note_seen(lp, rank, peer);
    }
}

void loomrun_note_read(loomrun_loop_t *lp)
{
    loomrun_job_t *job = lp->job;
    char buf[4096];
    ssize_t n;

    while (job->note_rfd >= 0 &&
           (n = read(job->note_rfd, buf, sizeof(buf))) != 0) {
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;   /* EAGAIN: all read */
        }
        for (ssize_t i = 0; i < n; ++i) {
            if (buf[i] == '\n') {
                job->note_part[job->note_len] = '\0';
                loomrun_note_line(lp, job->note_part);
                job->note_len = 0;
            } else if (job->note_len < sizeof(job->note_part) - 1) {
                job->note_part[job->note_len++] = buf[i];
            }
        }
    }
}
