/*
 * test_loomrun.c: loomrun and the bootstrap, end to end. Every test starts
 * real processes: loomrun with prog_launch as its ranks (modes documented
 * in prog_launch.c), mpirun with the same program, or the program alone.
 *
 * Each run gets its own TMPDIR, which must be empty afterwards (loomrun's
 * PMIx directory is removed on every exit), and no /dev/shm/loom-* segment
 * of the job may survive it. Binaries are found through $BUILD (default
 * build/release) under $LOOM_TOP (default: the current directory).
 */
#include "cunit_main.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEST_RUN_LIMIT 60.0   /* no single run may take longer */

/* Seconds a clean 4-rank job takes here (start + exit), measured once:
 * failure deadlines are "torn down within 3 s" on top of that, so a slow
 * build (sanitizers) does not turn start-up time into a failure. */
static double startup_secs;

static char loomrun_bin[PATH_MAX];
static char prog_bin[PATH_MAX];
static char info_bin[PATH_MAX];

typedef struct test_run {
    pid_t  pid;
    char   dir[64];          /* TMPDIR given to the run; also holds out/err */
    char   out_path[96], err_path[96], in_path[96];
    double t0, secs;
    double t_fail;           /* when loomrun's failure report appeared, 0 if never */
    int    status;           /* exit code, 128+signal, or -1 if we had to kill it */
    char  *out, *err;
} test_run_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The test machinery itself failed (not what is tested): stop here. */
static void require(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "test_loomrun: %s: %s\n", what, strerror(errno));
        exit(1);
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t len = 0;

    if (f != NULL) {
        FILE *m = open_memstream(&buf, &len);
        int c;
        while ((c = fgetc(f)) != EOF) {
            fputc(c, m);
        }
        fclose(m);
        fclose(f);
    }
    return buf ? buf : strdup("");
}

/* Start argv with TMPDIR=run->dir, stdin from @p input (or /dev/null). */
static void run_start(test_run_t *run, const char *input, char *const argv[])
{
    char dirtmpl[] = "/tmp/loomtest.XXXXXX";

    memset(run, 0, sizeof(*run));
    require(mkdtemp(dirtmpl) != NULL, "mkdtemp");
    snprintf(run->dir, sizeof(run->dir), "%s", dirtmpl);
    /* out/err live beside the run's TMPDIR, not in it */
    snprintf(run->out_path, sizeof(run->out_path), "%s.out", run->dir);
    snprintf(run->err_path, sizeof(run->err_path), "%s.err", run->dir);
    snprintf(run->in_path, sizeof(run->in_path), "%s.in", run->dir);
    if (input != NULL) {
        FILE *f = fopen(run->in_path, "w");
        require(f != NULL, run->in_path);
        fputs(input, f);
        fclose(f);
    }
    run->t0  = now_s();
    run->pid = fork();
    require(run->pid >= 0, "fork");
    if (run->pid == 0) {
        int in  = open(input ? run->in_path : "/dev/null", O_RDONLY);
        int out = open(run->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int err = open(run->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        setenv("TMPDIR", run->dir, 1);
        execvp(argv[0], argv);
        _exit(126);
    }
}

/* Note when loomrun's stderr first reports a failure ("loomrun: rank ..."
 * or "loomrun: the job ..." or "loomrun: received ..."). */
static void run_watch_failure(test_run_t *run)
{
    struct stat sb;
    char *err;

    if (run->t_fail > 0 || stat(run->err_path, &sb) != 0 || sb.st_size == 0) {
        return;
    }
    err = slurp(run->err_path);
    if (strstr(err, "loomrun: rank ") || strstr(err, "loomrun: the job ") ||
        strstr(err, "loomrun: received ")) {
        run->t_fail = now_s();
    }
    free(err);
}

/* Wait at most @p limit seconds (then SIGKILL and status -1); read output. */
static void run_wait(test_run_t *run, double limit)
{
    int st;

    for (;;) {
        pid_t p;

        run_watch_failure(run);
        p = waitpid(run->pid, &st, WNOHANG);
        if (p == run->pid) {
            run->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            break;
        }
        if (now_s() - run->t0 > limit) {
            kill(run->pid, SIGKILL);
            waitpid(run->pid, &st, 0);
            run->status = -1;
            break;
        }
        usleep(5000);
    }
    run->secs = now_s() - run->t0;
    if (run->t_fail == 0) {
        run_watch_failure(run);   /* reported just before the exit */
    }
    run->out  = slurp(run->out_path);
    run->err  = slurp(run->err_path);
    if (run->status == -1 || getenv("LOOM_TEST_VERBOSE")) {
        printf("\n--- run took %.2f s, status %d\n--- stdout:\n%s--- stderr:\n%s---\n",
               run->secs, run->status, run->out, run->err);
    }
}

static int count_entries(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;
    int n = 0;

    if (d == NULL) {
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    }
    closedir(d);
    return n;
}

/* /dev/shm segments of the job whose loomrun had pid @p pid */
static int count_job_segments(pid_t pid)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *de;
    char pat[32];
    int n = 0;

    if (d == NULL) {
        return 0;
    }
    snprintf(pat, sizeof(pat), ".%d.", (int)pid);
    while ((de = readdir(d)) != NULL) {
        n += strncmp(de->d_name, "loom-loomrun.", 13) == 0 && strstr(de->d_name, pat);
    }
    closedir(d);
    return n;
}

/* The run left nothing behind; then remove our own files. */
static void run_done(test_run_t *run, int check_leftovers)
{
    if (check_leftovers) {
        int left = count_entries(run->dir);
        CU_ASSERT_EQUAL(left, 0);
        if (left != 0) {
            printf("\nleftover files in TMPDIR %s\n", run->dir);
        }
        CU_ASSERT_EQUAL(count_job_segments(run->pid), 0);
    }
    unlink(run->out_path);
    unlink(run->err_path);
    unlink(run->in_path);
    if (rmdir(run->dir) != 0) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", run->dir);
        (void)!system(cmd);
    }
    free(run->out);
    free(run->err);
}

static int count_lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) {
        ++n;
    }
    return n;
}

/* ---- job sizes and the modex ---------------------------------------------- */

static void check_modex_job(int n)
{
    char nstr[16], line[96];
    char *argv[] = { loomrun_bin, "-n", nstr, prog_bin, "modex", NULL };
    test_run_t run;

    snprintf(nstr, sizeof(nstr), "%d", n);
    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_EQUAL(count_lines_with(run.out, "OK rank="), n);
    CU_ASSERT_EQUAL(count_lines_with(run.out, "FAIL"), 0);
    for (int r = 0; r < n; ++r) {
        /* every rank exactly once, each with the right size and local info */
        snprintf(line, sizeof(line), "OK rank=%d size=%d local_rank=%d local_size=%d ",
                 r, n, r, n);
        CU_ASSERT_EQUAL(count_lines_with(run.out, line), 1);
    }
    snprintf(line, sizeof(line), "oversubscribed=%d",
             n > sysconf(_SC_NPROCESSORS_ONLN) ? 1 : 0);
    CU_ASSERT_EQUAL(count_lines_with(run.out, line), n);
    CU_ASSERT_EQUAL(count_lines_with(run.out, "singleton=0"), n);
    run_done(&run, 1);
}

static void test_modex_1(void)  { check_modex_job(1); }
static void test_modex_2(void)  { check_modex_job(2); }
static void test_modex_4(void)  { check_modex_job(4); }
static void test_modex_16(void) { check_modex_job(16); }
static void test_modex_64(void) { check_modex_job(64); }

/* PMIx 4.2 completes single-node fences itself; this forces the host's
 * fence_nb upcall (what a rank dying before a fence also triggers). */
static void test_modex_fence_upcall(void)
{
    setenv("PMIX_MCA_pmix_server_fence_localonly_opt", "0", 1);
    check_modex_job(4);
    unsetenv("PMIX_MCA_pmix_server_fence_localonly_opt");
}

static void test_singleton(void)
{
    char *argv[] = { prog_bin, "modex", NULL };
    test_run_t run;

    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "OK rank=0 size=1 local_rank=0 local_size=1 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "singleton=1"));
    run_done(&run, 1);
}

/* The same program under Open MPI's mpirun (which hosts PMIx too). */
static void test_mpirun_interop(void)
{
    char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "3",
                     prog_bin, "modex", NULL };
    test_run_t run;

    if (access("/usr/bin/mpirun", X_OK) != 0) {
        printf("\nmpirun is not installed (apt-get install openmpi-bin): test not run\n");
        CU_FAIL("mpirun missing");
        return;
    }
    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_EQUAL(count_lines_with(run.out, "OK rank="), 3);
    for (int r = 0; r < 3; ++r) {
        char line[64];
        snprintf(line, sizeof(line), "OK rank=%d size=3 local_rank=%d local_size=3 ", r, r);
        CU_ASSERT_EQUAL(count_lines_with(run.out, line), 1);
    }
    run_done(&run, 0);   /* mpirun's own session files are its business */
}

/* ---- failures ------------------------------------------------------------------ */

/* loomrun -n 4 prog <mode args>: status, time, and what stderr must say
 * (and, when @p unwanted is not NULL, must not); stdout is returned in
 * @p out_p when that is not NULL (the caller frees it). */
static void check_failure_out(const char *const mode[], int want_status, double max_secs,
                              const char *const want_err[], const char *unwanted,
                              char **out_p)
{
    char *argv[12] = { loomrun_bin, "-n", "4", prog_bin };
    int k = 4;
    test_run_t run;

    for (int i = 0; mode[i] != NULL; ++i) {
        argv[k++] = (char *)mode[i];
    }
    argv[k] = NULL;
    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, want_status);
    /* the whole job is down within max_secs of the failure report (the poll
     * that notices the report adds up to 5 ms) */
    CU_ASSERT(run.t_fail > 0);
    CU_ASSERT(run.t_fail > 0 && run.t0 + run.secs - run.t_fail < max_secs);
    if (run.t_fail > 0 && run.t0 + run.secs - run.t_fail >= max_secs) {
        printf("\njob took %.2f s after the failure report (limit %.1f s)\n",
               run.t0 + run.secs - run.t_fail, max_secs);
    }
    CU_ASSERT(run.secs < max_secs + 4 * startup_secs + 2);
    for (int i = 0; want_err[i] != NULL; ++i) {
        CU_ASSERT_PTR_NOT_NULL(strstr(run.err, want_err[i]));
        if (strstr(run.err, want_err[i]) == NULL) {
            printf("\nstderr lacks '%s':\n%s\n", want_err[i], run.err);
        }
    }
    if (unwanted != NULL) {
        CU_ASSERT_PTR_NULL(strstr(run.err, unwanted));
        if (strstr(run.err, unwanted) != NULL) {
            printf("\nstderr has '%s':\n%s\n", unwanted, run.err);
        }
    }
    /* one clear message: exactly one loomrun line says what happened */
    CU_ASSERT_EQUAL(count_lines_with(run.err, "loomrun: rank "), 1);
    if (count_lines_with(run.err, "loomrun: rank ") != 1) {
        printf("\nstderr:\n%s\n", run.err);
    }
    if (out_p != NULL) {
        *out_p = strdup(run.out);
    }
    run_done(&run, 1);
}

static void check_failure(const char *const mode[], int want_status, double max_secs,
                          const char *const want_err[])
{
    check_failure_out(mode, want_status, max_secs, want_err, NULL, NULL);
}

static void test_exit_code(void)
{
    const char *mode[] = { "exit", "3", "1", NULL };
    const char *want[] = { "rank 1 (pid ", "exited with status 3", NULL };
    check_failure(mode, 3, 3.0, want);
}

static void test_kill_before_init(void)
{
    const char *mode[] = { "kill-before", "2", NULL };
    const char *want[] = { "rank 2 (pid ", "SIGKILL", "before it connected", NULL };
    check_failure(mode, 128 + SIGKILL, 3.0, want);
}

static void test_kill_after_init(void)
{
    const char *mode[] = { "kill-after", "2", NULL };
    const char *want[] = { "rank 2 (pid ", "killed by signal 9 (SIGKILL", NULL };
    check_failure(mode, 128 + SIGKILL, 3.0, want);
}

/*
 * The survivors' ends come first, long before the culprit's: rank 1 cuts its
 * connection (the others' fence fails at once; they exit 1) and exits 3
 * only 0.5 s later. What decides is what the survivors told loomrun (they
 * saw a peer fail), not the order of the ends: rank 1 is named, with its
 * status, and a survivor after it.
 */
static void test_exit_after_survivors(void)
{
    const char *mode[] = { "exit-late", "3", "1", "500", NULL };
    const char *want[] = { "loomrun: rank 1 (pid ", "exited with status 3; as a consequence, "
                           "rank ", "exited with status 1 (after it saw ", NULL };
    char *out = NULL;

    check_failure_out(mode, 3, 3.0, want, NULL, &out);
    /* every survivor failed (in the fence, or noted it itself when late) */
    CU_ASSERT_EQUAL(count_lines_with(out ? out : "", "FAIL rank=") +
                    count_lines_with(out ? out : "", "LATE rank="), 3);
    free(out);
}

/* Only consequences and no failure of its own (the rank that cut its
 * connection lives on): after a wait, a survivor is named as such. */
static void test_only_consequences(void)
{
    const char *mode[] = { "cut-hang", "2", NULL };
    const char *want[] = { "exited with status 1 (after it saw ", NULL };
    check_failure_out(mode, 1, 3.0, want, "loomrun: rank 2 (pid ", NULL);
}

static void test_abort(void)
{
    const char *mode[] = { "abort", "3", "7", NULL };
    const char *want[] = { "rank 3 (pid ", "aborted the job with status 7",
                           "test abort message from rank 3", NULL };
    /* a code the shell sees as it is needs no explanation */
    check_failure_out(mode, 7, 3.0, want, "loomrun exits with", NULL);
}

/* Codes outside 1..255: the shell gets the code modulo 256 (as with
 * mpirun), and loomrun says so; an abort never exits 0. */
static void test_abort_code_negative(void)
{
    const char *mode[] = { "abort", "1", "-1", NULL };
    const char *want[] = { "rank 1 (pid ", "aborted the job with status -1: test abort "
                           "message from rank 1; loomrun exits with 255 (-1 mod 256)", NULL };
    check_failure(mode, 255, 3.0, want);
}

static void test_abort_code_large(void)
{
    const char *mode[] = { "abort", "2", "263", NULL };
    const char *want[] = { "rank 2 (pid ", "aborted the job with status 263: test abort "
                           "message from rank 2; loomrun exits with 7 (263 mod 256)", NULL };
    check_failure(mode, 7, 3.0, want);
}

static void test_abort_code_zero(void)
{
    const char *mode256[] = { "abort", "1", "256", NULL };
    const char *want256[] = { "aborted the job with status 256: ", "; loomrun exits with 1 "
                              "(256 mod 256 is 0: an abort never exits 0)", NULL };
    const char *mode0[] = { "abort", "3", "0", NULL };
    const char *want0[] = { "rank 3 (pid ", "aborted the job with status 0: ",
                            "; loomrun exits with 1 (code 0: an abort never exits 0)", NULL };

    check_failure(mode256, 1, 3.0, want256);
    check_failure(mode0, 1, 3.0, want0);
}

/* A survivor's abort reaches loomrun just before the death that caused it
 * (as over tcp): the dead rank is named, the abort mentioned after it. */
static void test_abort_then_death(void)
{
    const char *mode[] = { "abort-then-kill", "30", NULL };
    const char *want[] = { "rank 2 (pid ", "killed by signal 9 (SIGKILL",
                           "; as a consequence, rank 1 (pid ", "a peer process failed", NULL };
    check_failure(mode, 128 + SIGKILL, 3.0, want);
}

/* ... but an abort with no death soon after it is the cause itself. */
static void test_abort_then_late_death(void)
{
    const char *mode[] = { "abort-then-kill", "1500", NULL };
    const char *want[] = { "rank 1 (pid ", "aborted the job with status 1: a peer process "
                           "failed; stopping", NULL };
    check_failure(mode, 1, 3.0, want);
}

static void test_no_finalize(void)
{
    const char *mode[] = { "nofinalize", "1", NULL };
    const char *want[] = { "rank 1 (pid ", "without finalizing", NULL };
    check_failure(mode, 1, 3.0, want);
}

/* Ranks that ignore SIGTERM are SIGKILLed: the job is down within 3 s. */
static void test_sigterm_ignored(void)
{
    const char *mode[] = { "ignore-term", NULL };
    const char *want[] = { "rank 0 (pid ", "exited with status 5", "SIGKILL", NULL };
    check_failure(mode, 5, 3.0, want);
}

static void test_abort_singleton(void)
{
    char *argv[] = { prog_bin, "abort", "0", "9", NULL };
    test_run_t run;

    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 9);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "test abort message from rank 0"));
    CU_ASSERT_PTR_NULL(strstr(run.err, "mod 256"));
    run_done(&run, 1);

    argv[3] = "-1";
    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 255);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "aborted with status -1: test abort message from "
                                  "rank 0; exit status 255 (-1 mod 256)"));
    run_done(&run, 1);
}

static void test_timeout(void)
{
    char *argv[] = { loomrun_bin, "--timeout", "1", "-n", "2", prog_bin, "hang", NULL };
    test_run_t run;

    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 124);
    CU_ASSERT(run.secs >= 1.0 && run.secs < 4.0 + startup_secs);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "--timeout 1 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "rank 0 (pid "));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "rank 1 (pid "));
    run_done(&run, 1);
}

/* Ctrl-C: SIGINT to loomrun once every rank is up. */
static void test_sigint(void)
{
    char *argv[] = { loomrun_bin, "-n", "3", prog_bin, "hang", NULL };
    test_run_t run;
    double t_sig;
    char *out;
    int ready = 0;

    run_start(&run, NULL, argv);
    while (ready < 3 && now_s() - run.t0 < 10) {
        usleep(20000);
        out   = slurp(run.out_path);
        ready = count_lines_with(out, "READY");
        free(out);
    }
    CU_ASSERT_EQUAL(ready, 3);
    t_sig = now_s();
    kill(run.pid, SIGINT);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 128 + SIGINT);
    CU_ASSERT(now_s() - t_sig < 3.0 + startup_secs / 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "SIGINT"));
    run_done(&run, 1);
}

/* ---- I/O, environment, files -------------------------------------------------- */

/* Lines written in two pieces by 4 ranks come out whole, tagged, none lost. */
static void test_output_lines(void)
{
    char *argv[] = { loomrun_bin, "--tag-output", "-n", "4", prog_bin, "lines", "300", NULL };
    test_run_t run;
    int good = 0, bad = 0;

    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    for (char *save = NULL, *l = strtok_r(run.out, "\n", &save); l != NULL;
         l = strtok_r(NULL, "\n", &save)) {
        int tag, r, i, r2, i2, n = -1;
        if (sscanf(l, "[%d] rank %d line %d: first half second half of %d/%d%n", &tag, &r,
                   &i, &r2, &i2, &n) == 5 && n == (int)strlen(l) && tag == r && r == r2 &&
            i == i2) {
            ++good;
        } else if (sscanf(l, "[%d] tail of rank %d%n", &tag, &r, &n) == 2 &&
                   n == (int)strlen(l) && tag == r) {
            ++good;    /* the partial last line, flushed at exit */
        } else {
            ++bad;
            if (bad < 5) {
                printf("\nbad line: '%s'\n", l);
            }
        }
    }
    CU_ASSERT_EQUAL(good, 4 * 301);
    CU_ASSERT_EQUAL(bad, 0);
    run_done(&run, 1);
}

static void test_stdin_to_rank0(void)
{
    static const char input[] = "first line\nsecond line\nno newline at the end";
    char *argv[] = { loomrun_bin, "-n", "3", prog_bin, "cat", NULL };
    test_run_t run;

    run_start(&run, input, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_STRING_EQUAL(run.out, input);   /* once, unchanged, untagged */
    run_done(&run, 1);
}

static void test_environment(void)
{
    char *argv[] = { loomrun_bin, "-x", "LOOM_TEST_A=hello world", "-x", "LOOM_TEST_B",
                     "-n", "4", prog_bin, "env", "LOOM_TEST_A", "LOOM_TEST_B",
                     "LOOM_OVERSUBSCRIBED", NULL };
    char *argv_user[] = { loomrun_bin, "-x", "LOOM_OVERSUBSCRIBED=0", "-n", "4", prog_bin,
                          "env", "LOOM_OVERSUBSCRIBED", NULL };
    int many = 4 > sysconf(_SC_NPROCESSORS_ONLN);
    test_run_t run;

    setenv("LOOM_TEST_B", "from loomrun", 1);
    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    unsetenv("LOOM_TEST_B");
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_EQUAL(count_lines_with(run.out, "LOOM_TEST_A=hello world\n"), 4);
    CU_ASSERT_EQUAL(count_lines_with(run.out, "LOOM_TEST_B=from loomrun\n"), 4);
    CU_ASSERT_EQUAL(count_lines_with(run.out, many ? "LOOM_OVERSUBSCRIBED=1\n" :
                                     "LOOM_OVERSUBSCRIBED=0\n"), 4);
    run_done(&run, 1);

    /* the user's own setting wins */
    run_start(&run, NULL, argv_user);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_EQUAL(count_lines_with(run.out, "LOOM_OVERSUBSCRIBED=0\n"), 4);
    run_done(&run, 1);
}

/* Ranks fitting the cores get one core each (in loomrun's own mask); more
 * ranks than cores run unbound; --bind-to none leaves them alone. */
static void test_binding(void)
{
    char *fit[] = { loomrun_bin, "-n", "2", "--report-bindings", prog_bin, "cpus", NULL };
    char *none[] = { loomrun_bin, "-n", "2", "--bind-to", "none", prog_bin, "cpus", NULL };
    char *over[] = { loomrun_bin, "-n", "3", prog_bin, "cpus", NULL };
    char *forced[] = { loomrun_bin, "-n", "3", "--bind-to", "core", prog_bin, "cpus", NULL };
    cpu_set_t mine;
    int ncpu, bound_line;
    test_run_t run;
    char want[64];

    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(mine), &mine), 0);
    ncpu = CPU_COUNT(&mine);
    snprintf(want, sizeof(want), "n=%d ", ncpu);
    run_start(&run, NULL, fit);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    bound_line = ncpu >= 2;          /* a 1-cpu runner oversubscribes 2 ranks */
    CU_ASSERT_EQUAL(count_lines_with(run.out, bound_line ? "n=1 " : want), 2);
    CU_ASSERT_EQUAL(count_lines_with(run.err, bound_line ? " bound to cpu " : "not bound"), 2);
    for (int c = 0; bound_line && c < CPU_SETSIZE; ++c) {   /* two different cpus */
        char first[32];
        snprintf(first, sizeof(first), "first=%d\n", c);
        CU_ASSERT(count_lines_with(run.out, first) <= 1);
        CU_ASSERT(count_lines_with(run.out, first) == 0 || CPU_ISSET(c, &mine));
    }
    run_done(&run, 1);

    run_start(&run, NULL, none);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_EQUAL(count_lines_with(run.out, want), 2);
    run_done(&run, 1);

    if (ncpu >= 3) {
        return;    /* the oversubscribed cases need more ranks than cpus */
    }
    run_start(&run, NULL, over);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_EQUAL(count_lines_with(run.out, want), 3);
    run_done(&run, 1);

    run_start(&run, NULL, forced);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_EQUAL(count_lines_with(run.out, "n=1 "), 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "ranks share them"));
    run_done(&run, 1);
}

/* loomrun counts the cpus it may use, not the machine's: started on one cpu
 * (as under taskset or a cpuset), 2 ranks are oversubscribed and unbound. */
static void test_binding_cpuset(void)
{
    char *argv[] = { loomrun_bin, "-n", "2", prog_bin, "env", "LOOM_OVERSUBSCRIBED", NULL };
    cpu_set_t mine, one;
    test_run_t run;

    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(mine), &mine), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &mine)) {
            CPU_SET(c, &one);
            break;
        }
    }
    CU_ASSERT_EQUAL_FATAL(sched_setaffinity(0, sizeof(one), &one), 0);
    run_start(&run, NULL, argv);    /* loomrun inherits the one-cpu mask */
    sched_setaffinity(0, sizeof(mine), &mine);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_EQUAL(count_lines_with(run.out, "LOOM_OVERSUBSCRIBED=1\n"), 2);
    run_done(&run, 1);
}

/* Segments named by the job's prefix and left by the ranks are removed. */
static void test_shm_cleanup(void)
{
    char *argv[] = { loomrun_bin, "-n", "2", prog_bin, "shm", NULL };
    test_run_t run;
    int found = 0;

    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    for (char *save = NULL, *l = strtok_r(run.out, "\n", &save); l != NULL;
         l = strtok_r(NULL, "\n", &save)) {
        char path[PATH_MAX];
        if (strncmp(l, "SHM /loom-", 10) == 0) {
            snprintf(path, sizeof(path), "/dev/shm/%s", l + 5);
            CU_ASSERT_EQUAL(access(path, F_OK), -1);   /* gone */
            ++found;
        }
    }
    CU_ASSERT_EQUAL(found, 2);
    run_done(&run, 1);
}

static void test_usage_errors(void)
{
    struct { char *argv[8]; int status; const char *err; } cases[] = {
        { { loomrun_bin, NULL }, 2, "no program" },
        { { loomrun_bin, "-n", "0", prog_bin, NULL }, 2, "-n needs" },
        { { loomrun_bin, "-n", "2x", prog_bin, NULL }, 2, "-n needs" },
        { { loomrun_bin, prog_bin, NULL }, 2, "give -n" },
        { { loomrun_bin, "--bogus", "-n", "1", prog_bin, NULL }, 2, "unknown option" },
        { { loomrun_bin, "--timeout", "-1", "-n", "1", prog_bin, NULL }, 2, "--timeout" },
        { { loomrun_bin, "-x", "1BAD", "-n", "1", prog_bin, NULL }, 2, "-x needs" },
        { { loomrun_bin, "--bind-to", "socket", "-n", "1", prog_bin, NULL }, 2,
          "--bind-to takes core, hwthread or none, not 'socket'" },
        { { loomrun_bin, "-n", "1", "/nonexistent/prog", NULL }, 127, "no such" },
        { { loomrun_bin, "-n", "1", "no-such-program-anywhere", NULL }, 127, "no such" },
        /* multi-host options: all checked before anything starts */
        { { loomrun_bin, "--host", "a:x", prog_bin, NULL }, 2, "--host a:x" },
        { { loomrun_bin, "--host", "a,,b", prog_bin, NULL }, 2, "not a host name" },
        { { loomrun_bin, "--hostfile", "/nonexistent/hosts", prog_bin, NULL }, 2,
          "cannot read hostfile" },
        { { loomrun_bin, "--host", "a:1,b:1", "-n", "3", prog_bin, NULL }, 2,
          "3 ranks do not fit the 2 slots" },
        { { loomrun_bin, "--host", "a", "--map-by", "core", prog_bin, NULL }, 2,
          "--map-by takes slot or node" },
        { { loomrun_bin, "--host", "a", "--launch-agent", " ", prog_bin, NULL }, 2,
          "--launch-agent needs" },
        { { loomrun_bin, "--host", "a", "--launch-timeout", "0", prog_bin, NULL }, 2,
          "--launch-timeout" },
        { { loomrun_bin, "--daemon", NULL }, 2, "not by hand" },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        test_run_t run;
        run_start(&run, NULL, cases[i].argv);
        run_wait(&run, TEST_RUN_LIMIT);
        CU_ASSERT_EQUAL(run.status, cases[i].status);
        CU_ASSERT_PTR_NOT_NULL(strstr(run.err, cases[i].err));
        run_done(&run, 1);
    }
}

static void test_help_version(void)
{
    char *help[] = { loomrun_bin, "--help", NULL };
    char *version[] = { loomrun_bin, "--version", NULL };
    char *info[] = { info_bin, NULL };
    test_run_t run;

    run_start(&run, NULL, help);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "usage: loomrun -n N"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "--tag-output"));
    run_done(&run, 1);

    run_start(&run, NULL, version);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "loomrun (loom) "));
    run_done(&run, 1);

    run_start(&run, NULL, info);
    run_wait(&run, TEST_RUN_LIMIT);
    CU_ASSERT_EQUAL(run.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "transports"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "LOOM_OVERSUBSCRIBED"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "LOOM_BOOTSTRAP_TIMEOUT"));
    run_done(&run, 1);
}

/* ---- driver ------------------------------------------------------------------- */

static int suite_calibrate(void)
{
    char *argv[] = { loomrun_bin, "-n", "4", prog_bin, "modex", NULL };
    test_run_t run;

    run_start(&run, NULL, argv);
    run_wait(&run, TEST_RUN_LIMIT);
    startup_secs = run.secs;
    printf("\na clean 4-rank job takes %.2f s here\n", startup_secs);
    run_done(&run, 0);
    return run.status == 0 ? 0 : 1;
}

static int suite_init(void)
{
    const char *build = getenv("BUILD"), *top = getenv("LOOM_TOP");
    char base[PATH_MAX];

    build = (build && *build) ? build : "build/release";
    if (build[0] == '/') {
        snprintf(base, sizeof(base), "%s", build);
    } else {
        snprintf(base, sizeof(base), "%s/%s", (top && *top) ? top : ".", build);
    }
    snprintf(loomrun_bin, sizeof(loomrun_bin), "%.3900s/bin/loomrun", base);
    snprintf(info_bin, sizeof(info_bin), "%.3900s/bin/loom_info", base);
    snprintf(prog_bin, sizeof(prog_bin), "%.3900s/test/launcher/prog_launch", base);
    if (access(loomrun_bin, X_OK) != 0 || access(prog_bin, X_OK) != 0) {
        fprintf(stderr, "test_loomrun: %s or %s missing (set BUILD=)\n", loomrun_bin,
                prog_bin);
        return 1;
    }
    /* a run we time must not inherit a debugging setting that slows it */
    unsetenv("LOOM_OVERSUBSCRIBED");
    /* ThreadSanitizer sleeps 1 s in every exiting process by default: that
     * second is TSan's, not the teardown's (the deadlines below are real) */
    setenv("TSAN_OPTIONS", "atexit_sleep_ms=0", 0);
    return suite_calibrate();
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "1 rank: distinct ranks, sizes, every blob",   test_modex_1 },
        { "2 ranks: distinct ranks, sizes, every blob",  test_modex_2 },
        { "4 ranks: distinct ranks, sizes, every blob",  test_modex_4 },
        { "16 ranks: distinct ranks, sizes, every blob", test_modex_16 },
        { "64 ranks: distinct ranks, sizes, every blob", test_modex_64 },
        { "4 ranks, fences through the fence_nb upcall", test_modex_fence_upcall },
        { "singleton without a launcher",                test_singleton },
        { "same program under Open MPI mpirun",          test_mpirun_interop },
        { "rank exits 3 -> loomrun exits 3",             test_exit_code },
        { "exit 3 after the survivors' exits: still it", test_exit_after_survivors },
        { "only consequences: a survivor, said so",      test_only_consequences },
        { "SIGKILL before PMIx init",                    test_kill_before_init },
        { "SIGKILL after PMIx init",                     test_kill_after_init },
        { "loom_abort -> message and code",              test_abort },
        { "loom_abort(-1) -> 255, said so",              test_abort_code_negative },
        { "loom_abort(263) -> 7, said so",               test_abort_code_large },
        { "loom_abort(256), (0) -> 1, said so",          test_abort_code_zero },
        { "loom_abort as a singleton",                   test_abort_singleton },
        { "abort, then the death behind it: the death",  test_abort_then_death },
        { "abort, death 1.5 s later: the abort",         test_abort_then_late_death },
        { "exit 0 without finalizing is a failure",      test_no_finalize },
        { "SIGTERM ignored -> SIGKILL within 3 s",       test_sigterm_ignored },
        { "--timeout",                                   test_timeout },
        { "SIGINT to loomrun",                           test_sigint },
        { "output forwarded by whole lines",             test_output_lines },
        { "stdin goes to rank 0",                        test_stdin_to_rank0 },
        { "-x and LOOM_OVERSUBSCRIBED",                  test_environment },
        { "--bind-to: one core each, unbound when oversubscribed", test_binding },
        { "a one-cpu mask makes 2 ranks oversubscribed",  test_binding_cpuset },
        { "shm segments removed",                        test_shm_cleanup },
        { "usage errors",                                test_usage_errors },
        { "--help, --version, loom_info",                test_help_version },
        { NULL, NULL },
    };
    static loom_test_case_t chosen[sizeof(cases) / sizeof(cases[0])];
    const char *only = getenv("LOOM_TEST_ONLY");
    size_t n = 0;

    /* LOOM_TEST_ONLY=text: only the tests whose name contains it (to
     * repeat one under load) */
    for (size_t i = 0; cases[i].name != NULL; ++i) {
        if (only == NULL || *only == '\0' || strstr(cases[i].name, only) != NULL) {
            chosen[n++] = cases[i];
        }
    }
    chosen[n] = (loom_test_case_t){ NULL, NULL };
    return loom_test_run_suite("launcher", chosen, suite_init, NULL);
}
