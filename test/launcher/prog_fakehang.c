/*
 * prog_fakehang.c: a rank that pretends to hang and writes the hang report
 * a loom rank would (docs/troubleshooting.md "loomrun's hang summary"), to test
 * loomrun's side alone: the parser, the summary, --timeout, --report-raw.
 * It is not a PMIx client (loomrun accepts an exit 0 without one).
 *
 *   prog_fakehang usr1 SCENARIO   report on SIGUSR1 (as for --timeout), wait
 *                                 for SIGTERM
 *   prog_fakehang auto SCENARIO   report after $LOOM_PROGRESS_TIMEOUT s, stay
 *                                 2 s more, exit 0
 *
 * Scenarios (the rank and size come from PMIX_RANK / FAKEHANG_SIZE):
 *   missing-send  the last rank waits in loom_recv from rank 3 % size tag 9;
 *                 the others are inside allreduce #412 on WORLD
 *   skip          the last rank is in barrier #5, the others in allreduce #5
 *   tags          rank 0 sends tag 1 (rendezvous) to rank 1, which receives
 *                 tag 2; other ranks are in loom_finalize
 *   silent        like missing-send, but the last rank never reports (it
 *                 does not catch SIGUSR1: busy outside loom)
 * Every rank also writes a normal stderr line and a malformed report line
 * before its block: loomrun must forward both.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t fakehang_asked;

static void fakehang_on_usr1(int sig)
{
    (void)sig;
    fakehang_asked = 1;
}

/* One line, one write (as the rank side does). */
static void fakehang_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fakehang_line(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
    va_end(ap);
    if (n > 0 && n < (int)sizeof(buf) - 1) {
        buf[n++] = '\n';
        (void)!write(2, buf, (size_t)n);
    }
}

static void fakehang_in_coll(int r, const char *kind, int seq)
{
    fakehang_line("loom-report %d begin host=fake waited=5.0 call=loom_%s", r, kind);
    fakehang_line("loom-report %d coll comm=WORLD count=%d", r, seq + 1);
    fakehang_line("loom-report %d active kind=%s comm=WORLD seq=%d alg=ring state=step2",
                  r, kind, seq);
    fakehang_line("loom-report %d pending op=recv comm=WORLD peer=%d world=%d tag=-12 "
                  "bytes=64 proto=eager state=posted coll=1", r, r ? r - 1 : 1, r ? r - 1 : 1);
    fakehang_line("loom-report %d end", r);
}

static void fakehang_report(const char *scenario, int r, int n)
{
    int last = r == n - 1;

    fakehang_line("rank %d: an ordinary stderr line", r);
    fakehang_line("loom-report %d bogus line that is not a report", r);
    if (!strcmp(scenario, "missing-send") || !strcmp(scenario, "silent")) {
        if (!last) {
            fakehang_in_coll(r, "allreduce", 412);
            return;
        }
        fakehang_line("loom-report %d begin host=fake waited=5.0 call=loom_recv", r);
        fakehang_line("loom-report %d coll comm=WORLD count=412", r);
        fakehang_line("loom-report %d pending op=recv comm=WORLD peer=%d world=%d tag=9 "
                      "bytes=4 proto=eager state=posted coll=0", r, 3 % n, 3 % n);
        fakehang_line("loom-report %d end", r);
    } else if (!strcmp(scenario, "skip")) {
        fakehang_in_coll(r, last ? "barrier" : "allreduce", 5);
    } else if (r <= 1) {   /* tags */
        fakehang_line("loom-report %d begin host=fake waited=5.0 call=loom_%s", r,
                      r ? "recv" : "send");
        fakehang_line("loom-report %d pending op=%s comm=WORLD peer=%d world=%d tag=%d "
                      "bytes=1048576 proto=rndv state=%s coll=0", r, r ? "recv" : "send",
                      1 - r, 1 - r, r ? 2 : 1, r ? "posted" : "rts-sent");
        fakehang_line("loom-report %d end", r);
    } else {
        fakehang_line("loom-report %d begin host=fake waited=5.0 call=loom_finalize", r);
        fakehang_line("loom-report %d end", r);
    }
}

int main(int argc, char **argv)
{
    const char *rs = getenv("PMIX_RANK"), *ns = getenv("FAKEHANG_SIZE");
    const char *pt = getenv("LOOM_PROGRESS_TIMEOUT");
    int r = rs ? atoi(rs) : 0, n = ns ? atoi(ns) : 1;
    struct timespec tick = { 0, 20 * 1000 * 1000 };

    if (argc < 3 || (strcmp(argv[1], "usr1") && strcmp(argv[1], "auto"))) {
        fprintf(stderr, "usage: prog_fakehang usr1|auto SCENARIO\n");
        return 2;
    }
    if (!strcmp(argv[1], "usr1")) {
        if (!(strcmp(argv[2], "silent") == 0 && r == n - 1)) {
            signal(SIGUSR1, fakehang_on_usr1);
        }
        printf("READY %d\n", r);
        fflush(stdout);
        for (;;) {
            nanosleep(&tick, NULL);
            if (fakehang_asked) {
                fakehang_asked = 0;
                fakehang_report(argv[2], r, n);
            }
        }
    }
    sleep(pt ? (unsigned)atoi(pt) : 1);
    if (!(strcmp(argv[2], "silent") == 0 && r == n - 1)) {
        fakehang_report(argv[2], r, n);
    }
    sleep(2);
    return 0;
}
