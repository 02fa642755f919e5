/*
 * prog_badinput.c: the bad-input table. Every row is one bad call against
 * include/loom.h, the status it must return, and a text the logged error
 * must contain (the argument and the limit). Run by test_badinput.sh under
 * loomrun with LOOM_ERRORS=return. Modes:
 *
 *   table        before-init rows, loom_init, the main table, loom_finalize,
 *                then the after-finalize rows. Every rank runs every row; a
 *                row's stderr is captured alone (fd 2 is pointed at a memfd
 *                around the call) and checked.
 *   config TEXT  loom_init with a bad LOOM_* variable set by the caller:
 *                it must return LOOM_ERR_CONFIG and log TEXT.
 *   mismatch K   a collective whose arguments differ between ranks (K:
 *                root, count); every rank must finish within a deadline and
 *                at least one must report the mismatch.
 *
 * Substrings may hold $N (the communicator size) and $M (size - 1).
 * A row may name a known bug: when it fails it is reported as XFAIL and
 * does not fail the run; when it passes the run fails (XPASS) so the mark
 * is removed once the bug is fixed. Prints "OK <mode>" on success.
 */
#include <loom.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

static int rank, size;
static int failures, xfails;

/* ---- stderr capture ------------------------------------------------------------- */

static int capture_fd = -1, saved_stderr = -1;
static char captured[8192];

static void capture_begin(void)
{
    fflush(stderr);
    if (capture_fd < 0) {
        capture_fd = memfd_create("badinput-stderr", 0);
        if (capture_fd < 0) {
            perror("memfd_create");
            exit(2);
        }
    }
    if (ftruncate(capture_fd, 0) != 0 || lseek(capture_fd, 0, SEEK_SET) != 0) {
        perror("ftruncate");
        exit(2);
    }
    saved_stderr = dup(2);
    dup2(capture_fd, 2);
}

/* restore stderr; the captured text is in `captured` and is echoed */
static void capture_end(void)
{
    ssize_t n;

    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    n = pread(capture_fd, captured, sizeof(captured) - 1, 0);
    captured[n > 0 ? n : 0] = '\0';
    fputs(captured, stderr);
}

/* ---- the table ------------------------------------------------------------------- */

typedef loom_status_t (*bad_fn_t)(void);

typedef struct bad_case {
    const char   *name;
    const char   *call;     /* the call as written, for the report */
    loom_status_t expect;
    const char   *text;     /* must appear in the logged error ($N, $M expanded) */
    const char   *known;    /* a known bug: failure is XFAIL */
    bad_fn_t      fn;
} bad_case_t;

static int32_t sbuf[64], rbuf[64];
static char not_a_comm[4096];      /* zeroes: no communicator magic */
static loom_comm_t freed_comm;     /* a dup that was freed */
static loom_request_t stale_req;   /* a handle whose request was released */
static loom_op_t freed_op;
static size_t counts[64], displs[64], huge_counts[64];

#define W LOOM_COMM_WORLD
#define NOTCOMM ((loom_comm_t)(void *)not_a_comm)

static void user_sum(const void *in, void *inout, size_t n, loom_datatype_t dt, void *arg)
{
    (void)dt;
    (void)arg;
    for (size_t i = 0; i < n; ++i) {
        ((int32_t *)inout)[i] += ((const int32_t *)in)[i];
    }
}

/* int-returning calls: -1 means the call refused its arguments */
static loom_status_t int_call(int v, loom_status_t if_bad)
{
    return v < 0 ? if_bad : LOOM_OK;
}

/* a stale request handle: a PROC_NULL send request, freed once */
static loom_request_t make_stale_request(void)
{
    loom_request_t r = LOOM_REQUEST_NULL, copy;

    if (loom_isend(sbuf, 1, LOOM_INT32, LOOM_PROC_NULL, 0, W, &r) != LOOM_OK) {
        return LOOM_REQUEST_NULL;
    }
    copy = r;
    loom_request_free(&r);
    return copy;
}

static loom_status_t double_request_free(void)
{
    stale_req = make_stale_request();
    return loom_request_free(&stale_req);
}

static loom_status_t wait_stale(void)
{
    stale_req = make_stale_request();
    return loom_wait(&stale_req, LOOM_STATUS_IGNORE);
}

static loom_status_t test_stale(void)
{
    int flag = 0;
    stale_req = make_stale_request();
    return loom_test(&stale_req, &flag, LOOM_STATUS_IGNORE);
}

static loom_status_t waitall_with_stale(void)
{
    loom_request_t reqs[2] = { LOOM_REQUEST_NULL, make_stale_request() };
    return loom_waitall(2, reqs, NULL);
}

/* loom_start on an ordinary (not persistent) receive; the receive is then matched */
static loom_status_t start_not_persistent(void)
{
    loom_request_t rq[2] = { LOOM_REQUEST_NULL, LOOM_REQUEST_NULL };
    loom_status_t st;

    if (loom_irecv(rbuf, 1, LOOM_INT32, loom_comm_rank(W), 77, W, &rq[0]) != LOOM_OK) {
        return LOOM_ERR_INTERNAL;
    }
    st = loom_start(&rq[0]);
    loom_isend(sbuf, 1, LOOM_INT32, loom_comm_rank(W), 77, W, &rq[1]);
    loom_waitall(2, rq, NULL);
    return st;
}

static loom_status_t double_comm_free(void)
{
    loom_comm_t copy = freed_comm;
    return loom_comm_free(&copy);
}

/* a failed dup leaves LOOM_COMM_NULL, never a stale handle, in its output */
static loom_status_t dup_freed_out(void)
{
    loom_comm_t c = W;
    loom_status_t st = loom_comm_dup(freed_comm, &c);

    if (c != LOOM_COMM_NULL) {
        fprintf(stderr, "loom_comm_dup failed (%d) but left a handle in its output\n", (int)st);
        return LOOM_ERR_INTERNAL;
    }
    return st;
}

static loom_status_t double_op_free(void)
{
    loom_op_t copy = freed_op;
    return loom_op_free(&copy);
}

static loom_status_t free_predefined_op(void)
{
    loom_op_t op = LOOM_SUM;
    return loom_op_free(&op);
}

static loom_status_t free_world(void)
{
    loom_comm_t c = W;
    return loom_comm_free(&c);
}

static loom_status_t free_self(void)
{
    loom_comm_t c = LOOM_COMM_SELF;
    return loom_comm_free(&c);
}

static loom_status_t split_null_out(void)
{
    return loom_comm_split(W, 0, 0, NULL);
}

static loom_status_t test_flag_null(void)
{
    loom_request_t r = LOOM_REQUEST_NULL;
    return loom_test(&r, NULL, LOOM_STATUS_IGNORE);
}

static loom_status_t waitany_index_null(void)
{
    loom_request_t r = LOOM_REQUEST_NULL;
    return loom_waitany(1, &r, NULL, LOOM_STATUS_IGNORE);
}

static loom_status_t testall_flag_null(void)
{
    loom_request_t r = LOOM_REQUEST_NULL;
    return loom_testall(1, &r, NULL, NULL);
}

static loom_status_t testany_flag_null(void)
{
    loom_request_t r = LOOM_REQUEST_NULL;
    size_t idx;
    return loom_testany(1, &r, &idx, NULL, LOOM_STATUS_IGNORE);
}

static loom_status_t cancel_null_request(void)
{
    loom_request_t r = LOOM_REQUEST_NULL;
    return loom_cancel(&r);
}

static loom_status_t get_count_bad_type(void)
{
    loom_msg_status_t st = { 0 };
    size_t n;
    return loom_get_count(&st, (loom_datatype_t)42, &n);
}

/* every rank names the next rank as root: each one is a non-root */
static int other_root(void)
{
    return (loom_comm_rank(W) + 1) % loom_comm_size(W);
}

static loom_status_t gatherv_count_mismatch(void)
{
    for (int i = 0; i < size; ++i) {
        counts[i] = 2;
        displs[i] = (size_t)i * 2;
    }
    /* the root sends 3 elements but says it receives 2 from itself */
    return loom_gatherv(sbuf, 3, rbuf, counts, displs, LOOM_INT32, loom_comm_rank(W), W);
}

static loom_status_t allgatherv_count_mismatch(void)
{
    for (int i = 0; i < size; ++i) {
        counts[i] = 1;
        displs[i] = (size_t)i;
    }
    return loom_allgatherv(sbuf, 2, rbuf, counts, displs, LOOM_INT32, W);
}

/* consistent recvcounts whose byte total overflows size_t */
static loom_status_t allgatherv_count_overflow(void)
{
    for (int i = 0; i < size; ++i) {
        huge_counts[i] = SIZE_MAX / (2 * (size_t)size) + 1;
        displs[i] = 0;
    }
    return loom_allgatherv(sbuf, huge_counts[loom_comm_rank(W)], rbuf, huge_counts, displs,
                           LOOM_INT32, W);
}

/* consistent counts of SIZE_MAX / 4 int32 each: more bytes than memory holds */
static loom_status_t alltoallv_count_overflow(void)
{
    for (int i = 0; i < size; ++i) {
        huge_counts[i] = SIZE_MAX / 4;
        displs[i] = 0;
    }
    return loom_alltoallv(sbuf, huge_counts, displs, rbuf, huge_counts, displs, LOOM_INT32,
                          W);
}

#define R(name, expect, text, known, call)                                      \
    static loom_status_t bad_##name(void) { return call; }
#include "badinput_table.h"
#undef R

static const bad_case_t bad_table[] = {
#define R(name, expect, text, known, call) { #name, #call, expect, text, known, bad_##name },
#include "badinput_table.h"
#undef R
};

#define B(name, expect, text, known, call)                                      \
    static loom_status_t before_##name(void) { return call; }
#include "badinput_before.h"
#undef B

static const bad_case_t before_table[] = {
#define B(name, expect, text, known, call) { #name, #call, expect, text, known, before_##name },
#include "badinput_before.h"
#undef B
};

/* ---- running rows ------------------------------------------------------------------ */

/* expand $N and $M in @p text */
static void expand(const char *text, char *out, size_t len)
{
    size_t o = 0;

    for (const char *p = text; *p != '\0' && o + 16 < len; ++p) {
        if (p[0] == '$' && (p[1] == 'N' || p[1] == 'M')) {
            o += (size_t)snprintf(out + o, len - o, "%d", p[1] == 'N' ? size : size - 1);
            ++p;
        } else {
            out[o++] = *p;
        }
    }
    out[o] = '\0';
}

static void run_row(const bad_case_t *c)
{
    char want[256];
    loom_status_t st;
    int ok;

    printf("[%d] CASE %s\n", rank, c->name);
    fflush(stdout);
    expand(c->text, want, sizeof(want));
    capture_begin();
    st = c->fn();
    capture_end();
    ok = st == c->expect && (want[0] == '\0' || strstr(captured, want) != NULL);
    if (ok && c->known == NULL) {
        return;
    }
    if (!ok && c->known != NULL) {
        ++xfails;
        printf("[%d] XFAIL %s (%s): %s returned %s\n", rank, c->name, c->known, c->call,
               loom_status_name(st));
        return;
    }
    ++failures;
    if (ok) {
        printf("[%d] XPASS %s: marked '%s' but now passes; remove the mark\n", rank,
               c->name, c->known);
        return;
    }
    printf("[%d] FAIL %s: %s\n      returned %s, expected %s\n      log should "
           "contain \"%s\"; it was: %s\n", rank, c->name, c->call, loom_status_name(st),
           loom_status_name(c->expect), want, captured[0] ? captured : "(nothing)\n");
}

static int is_crash_row(const bad_case_t *c)
{
    return c->known != NULL && strncmp(c->known, "crash", 5) == 0;
}

/* rows known to crash run alone (mode row) so they cannot stop the table */
static void run_table(const bad_case_t *t, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (size < 2 && strstr(t[i].name, "non_root") != NULL) {
            continue;   /* needs a rank that is not the root */
        }
        if (is_crash_row(&t[i])) {
            printf("[%d] SKIP %s (%s): run alone by test_badinput.sh\n", rank, t[i].name,
                   t[i].known);
            continue;
        }
        run_row(&t[i]);
    }
}

/* handles the rows need: a freed communicator and a freed user op */
static int setup_handles(void)
{
    loom_comm_t c = LOOM_COMM_NULL;

    if (loom_comm_dup(W, &c) != LOOM_OK) {
        return -1;
    }
    freed_comm = c;
    if (loom_comm_free(&c) != LOOM_OK || c != LOOM_COMM_NULL) {
        return -1;
    }
    if (loom_op_create(user_sum, NULL, 1, &freed_op) != LOOM_OK) {
        return -1;
    }
    loom_op_t copy = freed_op;
    return loom_op_free(&copy) == LOOM_OK ? 0 : -1;
}

/* after finalize: every call says so */
static loom_status_t after_send(void)
{
    return loom_send(sbuf, 1, LOOM_INT32, 0, 0, W);
}

static loom_status_t after_allreduce(void)
{
    return loom_allreduce(sbuf, rbuf, 1, LOOM_INT32, LOOM_SUM, W);
}

static loom_status_t after_init(void)
{
    return loom_init(NULL, NULL);
}

static loom_status_t after_finalize(void)
{
    return loom_finalize();
}

static loom_status_t after_wait(void)
{
    loom_request_t r = LOOM_REQUEST_NULL;
    return loom_wait(&r, LOOM_STATUS_IGNORE);
}

static loom_status_t after_dup(void)
{
    loom_comm_t c;
    return loom_comm_dup(W, &c);
}

static loom_status_t after_irecv(void)
{
    loom_request_t r;
    return loom_irecv(rbuf, 1, LOOM_INT32, 0, 0, W, &r);
}

static loom_status_t after_barrier(void)
{
    return loom_barrier(W);
}

static const bad_case_t after_table[] = {
    { "send_after_finalize", "loom_send(...)", LOOM_ERR_FINALIZED,
      "loom_send: called after loom_finalize()", NULL, after_send },
    { "irecv_after_finalize", "loom_irecv(...)", LOOM_ERR_FINALIZED,
      "loom_irecv: called after loom_finalize()", NULL, after_irecv },
    { "allreduce_after_finalize", "loom_allreduce(...)", LOOM_ERR_FINALIZED,
      "loom_allreduce: called after loom_finalize()", NULL, after_allreduce },
    { "barrier_after_finalize", "loom_barrier(W)", LOOM_ERR_FINALIZED,
      "loom_barrier: called after loom_finalize()", NULL, after_barrier },
    { "dup_after_finalize", "loom_comm_dup(W, &c)", LOOM_ERR_FINALIZED,
      "after loom_finalize()", NULL, after_dup },
    { "wait_after_finalize", "loom_wait(&null)", LOOM_ERR_FINALIZED,
      "loom_wait: called after loom_finalize()", NULL, after_wait },
    { "init_after_finalize", "loom_init(NULL, NULL)", LOOM_ERR_FINALIZED,
      "cannot be initialized again", NULL, after_init },
    { "finalize_twice", "loom_finalize()", LOOM_ERR_FINALIZED, "already finalized",
      NULL, after_finalize },
};

#define NROWS(t) (sizeof(t) / sizeof((t)[0]))

static int mode_table(int argc, char **argv)
{
    size_t total = NROWS(before_table) + NROWS(bad_table) + NROWS(after_table);

    size = 1;
    run_table(before_table, NROWS(before_table));
    if (loom_init(&argc, &argv) != LOOM_OK) {
        fprintf(stderr, "loom_init failed\n");
        return 1;
    }
    rank = loom_rank();
    size = loom_size();
    for (int i = 0; i < 64; ++i) {
        sbuf[i] = rank * 100 + i;
    }
    if (setup_handles() != 0) {
        fprintf(stderr, "[%d] setting up the handles failed\n", rank);
        return 1;
    }
    run_table(bad_table, NROWS(bad_table));
    /* nothing of the above may have broken the library: a real collective */
    int32_t one = 1, sum = 0;
    if (loom_allreduce(&one, &sum, 1, LOOM_INT32, LOOM_SUM, W) != LOOM_OK || sum != size) {
        printf("[%d] FAIL allreduce after the table: sum %d, expected %d\n", rank, sum,
               size);
        ++failures;
    }
    if (loom_finalize() != LOOM_OK) {
        printf("[%d] FAIL loom_finalize after the table\n", rank);
        ++failures;
    }
    run_table(after_table, NROWS(after_table));
    printf("[%d] %zu rows: %d failed, %d known bugs (XFAIL)\n", rank, total, failures,
           xfails);
    if (failures == 0) {
        printf("OK table %zu\n", total);
    }
    return failures != 0;
}

/* ---- bad LOOM_* settings: loom_init must refuse them ----------------------------- */

static int mode_config(int argc, char **argv, const char *text)
{
    loom_status_t st;

    capture_begin();
    st = loom_init(&argc, &argv);
    capture_end();
    if (st == LOOM_OK) {
        printf("FAIL config: loom_init accepted the setting (expected %s)\n",
               loom_status_name(LOOM_ERR_CONFIG));
        loom_finalize();
        return 1;
    }
    if (st != LOOM_ERR_CONFIG || strstr(captured, text) == NULL) {
        printf("FAIL config: loom_init returned %s (expected %s); log should contain "
               "\"%s\"; it was: %s\n", loom_status_name(st),
               loom_status_name(LOOM_ERR_CONFIG), text, captured[0] ? captured : "(nothing)");
        return 1;
    }
    printf("OK config\n");
    return 0;
}

/* ---- mismatched collective arguments ----------------------------------------------- */

/* drive @p req until done or @p secs passed: the status, or LOOM_ERR_TIMEOUT */
static loom_status_t wait_deadline(loom_request_t *req, double secs)
{
    double t0 = loom_wtime();
    int flag = 0;
    loom_status_t st = LOOM_OK;

    while (!flag && loom_wtime() - t0 < secs) {
        st = loom_test(req, &flag, LOOM_STATUS_IGNORE);
        if (st < 0) {
            return st;
        }
    }
    return flag ? st : LOOM_ERR_TIMEOUT;
}

static int mode_mismatch(int argc, char **argv, const char *kind, const char *text)
{
    loom_request_t req = LOOM_REQUEST_NULL;
    loom_status_t st;
    int32_t buf[256] = { 0 };
    int reported, any_reported = 0, timed_out = 0, any_timed_out = 0;

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 1;
    }
    rank = loom_rank();
    size = loom_size();
    capture_begin();
    if (strcmp(kind, "root") == 0) {        /* rank 0 says root 0, the others root 1 */
        st = loom_ibcast(buf, 16, LOOM_INT32, rank == 0 ? 0 : 1, W, &req);
    } else {                                /* the root sends 64, the others take 16 */
        st = loom_ibcast(buf, rank == 0 ? 64 : 16, LOOM_INT32, 0, W, &req);
    }
    if (st == LOOM_OK) {
        st = wait_deadline(&req, 10.0);
    }
    capture_end();
    timed_out = st == LOOM_ERR_TIMEOUT;
    reported  = st < 0 && !timed_out && strstr(captured, text) != NULL;
    printf("[%d] mismatch %s: %s%s\n", rank, kind, loom_status_name(st),
           reported ? " (reported)" : "");
    fflush(stdout);
    /* agree on the outcome */
    int32_t flags[2] = { reported, timed_out }, sums[2] = { 0, 0 };
    if (timed_out) {
        /* the collective is stuck on WORLD; nothing more can be agreed */
        printf("FAIL mismatch %s: rank %d still waiting after 10 s (not detected)\n",
               kind, rank);
        fflush(stdout);
        _exit(1);
    }
    /* an on-node bcast is eager (docs/collectives.md): its root returns at
     * once and every rank learns of the mismatch at the next collective,
     * which then fails once naming it; the one after it works again */
    capture_begin();
    st = loom_allreduce(flags, sums, 2, LOOM_INT32, LOOM_SUM, W);
    capture_end();
    if (st != LOOM_OK) {
        if (strstr(captured, text) == NULL) {
            printf("FAIL mismatch %s: allreduce afterwards failed (%s) without naming it\n",
                   kind, loom_status_name(st));
            return 1;
        }
        flags[0] = 1;     /* reported, by this call */
        if (loom_allreduce(flags, sums, 2, LOOM_INT32, LOOM_SUM, W) != LOOM_OK) {
            printf("FAIL mismatch %s: the second allreduce afterwards failed too\n", kind);
            return 1;
        }
    }
    any_reported  = sums[0] > 0;
    any_timed_out = sums[1] > 0;
    loom_finalize();
    if (!any_reported || any_timed_out) {
        if (rank == 0) {
            printf("FAIL mismatch %s: no rank reported it (expected a log with \"%s\")\n",
                   kind, text);
        }
        return 1;
    }
    if (rank == 0) {
        printf("OK mismatch %s\n", kind);
    }
    return 0;
}

/* one row of the main table alone (rows known to crash) */
static int mode_row(int argc, char **argv, const char *name)
{
    for (size_t i = 0; i < NROWS(bad_table); ++i) {
        if (strcmp(bad_table[i].name, name) != 0) {
            continue;
        }
        if (loom_init(&argc, &argv) != LOOM_OK || setup_handles() != 0) {
            return 1;
        }
        rank = loom_rank();
        size = loom_size();
        run_row(&bad_table[i]);
        loom_finalize();
        if (failures == 0) {
            printf("OK row %s\n", name);
        }
        return failures != 0;
    }
    fprintf(stderr, "no row named %s\n", name);
    return 2;
}

/* names of the rows that run alone */
static int mode_list_crash(void)
{
    for (size_t i = 0; i < NROWS(bad_table); ++i) {
        if (is_crash_row(&bad_table[i])) {
            printf("%s\n", bad_table[i].name);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "table";

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "table") == 0) {
        return mode_table(argc, argv);
    }
    if (strcmp(mode, "row") == 0 && argc > 2) {
        return mode_row(argc, argv, argv[2]);
    }
    if (strcmp(mode, "list-crash") == 0) {
        return mode_list_crash();
    }
    if (strcmp(mode, "config") == 0 && argc > 2) {
        return mode_config(argc, argv, argv[2]);
    }
    if (strcmp(mode, "mismatch") == 0 && argc > 3) {
        return mode_mismatch(argc, argv, argv[2], argv[3]);
    }
    fprintf(stderr, "usage: %s table | row NAME | list-crash | config TEXT | "
            "mismatch root|count TEXT\n", argv[0]);
    return 2;
}
