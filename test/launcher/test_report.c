/*
 * test_report.c: the hang report parser and the summary loomrun prints
 * (launcher/loomrun_report*.c), in one process, from made-up report lines.
 *
 * Each scenario is the text the ranks would write to stderr; it goes
 * through the parser line by line into a loomrun_report_t, and the summary
 * must name the culprit in the words a user reads.
 */
#include "cunit_main.h"
#include "../../launcher/loomrun_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------------ */

/* Feed every line of @p text; returns the number of completed blocks. */
static int feed(loomrun_report_t *rp, const char *text)
{
    int blocks = 0;

    for (const char *p = text; *p != '\0';) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        loomrun_report_rec_t rec;
        int rc = loomrun_report_parse(p, len, rp->nranks, &rec);

        CU_ASSERT_EQUAL(rc, 1);
        if (rc != 1) {
            printf("\nnot parsed: '%.*s'\n", (int)len, p);
        } else {
            blocks += loomrun_report_add(rp, &rec, 1.0) == 1;
        }
        p += len + (nl != NULL);
    }
    return blocks;
}

/* The summary of @p text for @p n ranks (run states optional). */
static char *summarize(int n, const char *text, const loomrun_report_run_t *run)
{
    loomrun_report_t rp;
    char *sum;

    CU_ASSERT_FATAL(loomrun_report_init(&rp, n) == 0);
    feed(&rp, text);
    sum = loomrun_report_summary(&rp, run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    loomrun_report_fini(&rp);
    if (getenv("LOOM_TEST_VERBOSE")) {
        printf("\n%s", sum);
    }
    return sum;
}

static void expect(const char *sum, const char *want)
{
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, want));
    if (strstr(sum, want) == NULL) {
        printf("\nsummary lacks '%s':\n%s", want, sum);
    }
}

static void expect_not(const char *sum, const char *unwanted)
{
    CU_ASSERT_PTR_NULL(strstr(sum, unwanted));
    if (strstr(sum, unwanted) != NULL) {
        printf("\nsummary has '%s':\n%s", unwanted, sum);
    }
}

/* The block of a rank inside collective #seq on WORLD (count seq+1). */
static void in_coll(FILE *f, int r, const char *kind, int seq)
{
    fprintf(f, "loom-report %d begin host=node%d waited=5.0 call=loom_%s\n", r, r / 4, kind);
    fprintf(f, "loom-report %d coll comm=WORLD count=%d\n", r, seq + 1);
    fprintf(f, "loom-report %d active kind=%s comm=WORLD seq=%d alg=ring state=reduce-scatter\n",
            r, kind, seq);
    fprintf(f, "loom-report %d end\n", r);
}

/* ---- the parser ------------------------------------------------------------------------ */

static void test_parse_good(void)
{
    static const char pend[] = "loom-report 7 pending op=recv comm=split(WORLD)#5 peer=1 "
                               "world=3 tag=9 bytes=4 proto=eager state=posted coll=0";
    loomrun_report_rec_t rec;

    CU_ASSERT_EQUAL(loomrun_report_parse(pend, strlen(pend), 8, &rec), 1);
    CU_ASSERT_EQUAL(rec.kind, LOOMRUN_REPORT_PENDING);
    CU_ASSERT_EQUAL(rec.rank, 7);
    CU_ASSERT_STRING_EQUAL(rec.u.pending.op, "recv");
    CU_ASSERT_STRING_EQUAL(rec.u.pending.comm, "split(WORLD)#5");
    CU_ASSERT_EQUAL(rec.u.pending.peer, 1);
    CU_ASSERT_EQUAL(rec.u.pending.world, 3);
    CU_ASSERT_EQUAL(rec.u.pending.tag, 9);
    CU_ASSERT_EQUAL(rec.u.pending.bytes, 4);
    CU_ASSERT_STRING_EQUAL(rec.u.pending.state, "posted");
    CU_ASSERT_EQUAL(rec.u.pending.coll, 0);

    static const char anyl[] = "loom-report 0 pending op=probe comm=WORLD peer=any world=any "
                               "tag=any bytes=0 proto=eager state=posted coll=0\r";
    CU_ASSERT_EQUAL(loomrun_report_parse(anyl, strlen(anyl), 2, &rec), 1);
    CU_ASSERT_EQUAL(rec.u.pending.world, LOOMRUN_REPORT_ANY);
    CU_ASSERT_EQUAL(rec.u.pending.tag, LOOMRUN_REPORT_ANY);

    static const char beg[] = "loom-report 3 begin host=n1 waited=12.5 call=loom_allreduce "
                              "extra=ignored";
    CU_ASSERT_EQUAL(loomrun_report_parse(beg, strlen(beg), 4, &rec), 1);
    CU_ASSERT_EQUAL(rec.kind, LOOMRUN_REPORT_BEGIN);
    CU_ASSERT_STRING_EQUAL(rec.u.begin.host, "n1");
    CU_ASSERT_DOUBLE_EQUAL(rec.u.begin.waited, 12.5, 1e-9);
    CU_ASSERT_STRING_EQUAL(rec.u.begin.call, "loom_allreduce");

    static const char act[] = "loom-report 2 active kind=bcast comm=dup(WORLD)#4 seq=411 "
                              "alg=binomial state=recv-parent";
    CU_ASSERT_EQUAL(loomrun_report_parse(act, strlen(act), 4, &rec), 1);
    CU_ASSERT_EQUAL(rec.u.active.seq, 411);
    CU_ASSERT_STRING_EQUAL(rec.u.active.alg, "binomial");

    /* a long name is truncated, never overrun */
    char longl[400];
    snprintf(longl, sizeof(longl), "loom-report 0 coll comm=%0300d count=1", 0);
    CU_ASSERT_EQUAL(loomrun_report_parse(longl, strlen(longl), 1, &rec), 1);
    CU_ASSERT_EQUAL(strlen(rec.u.coll.comm), LOOMRUN_REPORT_NAME_MAX - 1);

    /* only the given length counts: the rest of the buffer is not read */
    static const char two[] = "loom-report 1 end\nloom-report 1 begin";
    CU_ASSERT_EQUAL(loomrun_report_parse(two, 17, 2, &rec), 1);
    CU_ASSERT_EQUAL(rec.kind, LOOMRUN_REPORT_END);
}

static void test_parse_bad(void)
{
    static const char *const not_reports[] = {
        "", "loom-repor", "loom-report", "Loom-report 0 end", " loom-report 0 end",
        "hello world", "loom-reports 0 end",
    };
    static const char *const bad[] = {
        "loom-report ", "loom-report x end", "loom-report 4 end", "loom-report -1 end",
        "loom-report 0", "loom-report 0 finish", "loom-report 0 end now",
        "loom-report 0 begin host=a waited=1.0", "loom-report 0 begin call=",
        "loom-report 0 begin waited=-1 call=x", "loom-report 0 begin waited=nan call=x",
        "loom-report 0 coll comm=WORLD", "loom-report 0 coll comm=WORLD count=-2",
        "loom-report 0 coll comm=WORLD count=12x", "loom-report 0 coll comm=WORLD count",
        "loom-report 0 active kind=bcast comm=WORLD",
        "loom-report 0 pending op=recv comm=WORLD world=9 tag=1",
        "loom-report 0 pending op=recv comm=WORLD world=-1 tag=1",
        "loom-report 0 pending op=recv comm=WORLD world=1 tag=1 coll=2",
        "loom-report 0 pending op=recv comm=WORLD world=1 tag=1 bytes=-4",
        "loom-report 0 pending op=recv comm=WORLD world=1 tag=99999999999",
        "loom-report 99999999999999999999999 end",
    };
    loomrun_report_rec_t rec;

    for (size_t i = 0; i < sizeof(not_reports) / sizeof(not_reports[0]); ++i) {
        CU_ASSERT_EQUAL(loomrun_report_parse(not_reports[i], strlen(not_reports[i]), 4, &rec), 0);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        int rc = loomrun_report_parse(bad[i], strlen(bad[i]), 4, &rec);
        CU_ASSERT_EQUAL(rc, -1);
        if (rc != -1) {
            printf("\naccepted: '%s'\n", bad[i]);
        }
    }
}

/* Random bytes and mutations of good lines: no crash, no overrun (ASan). */
static void test_parse_fuzz(void)
{
    static const char *const seeds[] = {
        "loom-report 7 pending op=recv comm=WORLD peer=3 world=3 tag=9 bytes=4 "
        "proto=eager state=posted coll=0",
        "loom-report 1 begin host=n1 waited=5.0 call=loom_recv",
        "loom-report 2 active kind=allreduce comm=WORLD seq=4 alg=ring state=x",
    };
    loomrun_report_t rp;
    unsigned seed = 12345;

    CU_ASSERT_FATAL(loomrun_report_init(&rp, 8) == 0);
    for (int it = 0; it < 200000; ++it) {
        const char *s = seeds[it % 3];
        size_t len = strlen(s) - (size_t)(rand_r(&seed) % 8);
        char *buf = malloc(len ? len : 1);   /* exactly len bytes: ASan sees overreads */
        loomrun_report_rec_t rec;

        memcpy(buf, s, len);
        for (int k = rand_r(&seed) % 4; k > 0; --k) {
            buf[(size_t)rand_r(&seed) % len] = (char)(rand_r(&seed) % 256);
        }
        if (loomrun_report_parse(buf, len, 8, &rec) == 1) {
            loomrun_report_add(&rp, &rec, 0);
        }
        free(buf);
    }
    free(loomrun_report_summary(&rp, NULL));
    loomrun_report_fini(&rp);
}

static void test_rank_sets(void)
{
    uint8_t set[12] = { 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1 };
    uint8_t one[4] = { 0, 0, 1, 0 };
    char buf[64], tiny[20];

    CU_ASSERT_STRING_EQUAL(loomrun_report_ranks(set, 12, buf, sizeof(buf)), "ranks 0-6,8,10,11");
    CU_ASSERT_STRING_EQUAL(loomrun_report_ranks(one, 4, buf, sizeof(buf)), "rank 2");
    loomrun_report_ranks(set, 12, tiny, sizeof(tiny));
    CU_ASSERT(strlen(tiny) < sizeof(tiny));
}

/* ---- blocks ----------------------------------------------------------------------------- */

static void test_blocks(void)
{
    loomrun_report_t rp;

    CU_ASSERT_FATAL(loomrun_report_init(&rp, 2) == 0);
    /* lines outside a block are dropped; an unfinished block is not used */
    CU_ASSERT_EQUAL(feed(&rp, "loom-report 0 coll comm=WORLD count=3\n"
                              "loom-report 0 end\n"
                              "loom-report 1 begin host=a waited=1.0 call=loom_recv\n"), 0);
    CU_ASSERT_PTR_NULL(rp.latest[0]);
    CU_ASSERT_PTR_NULL(rp.latest[1]);
    CU_ASSERT_EQUAL(feed(&rp, "loom-report 1 end\n"), 1);
    CU_ASSERT_PTR_NOT_NULL(rp.latest[1]);
    /* a new block replaces the old one; begin again restarts a block */
    CU_ASSERT_EQUAL(feed(&rp, "loom-report 1 begin host=a waited=2.0 call=loom_send\n"
                              "loom-report 1 coll comm=WORLD count=9\n"
                              "loom-report 1 begin host=a waited=3.0 call=loom_barrier\n"
                              "loom-report 1 end\n"), 1);
    CU_ASSERT_STRING_EQUAL(rp.latest[1]->call, "loom_barrier");
    CU_ASSERT_EQUAL(rp.latest[1]->ncoll, 0);
    CU_ASSERT_EQUAL(rp.generation, 2);
    loomrun_report_forget(&rp, 1);
    CU_ASSERT_PTR_NULL(rp.latest[1]);
    loomrun_report_fini(&rp);
}

/* ---- summaries ----------------------------------------------------------------------- */

/* The lead's example: 8 ranks, rank 7 waits for a send of rank 3 that never
 * comes (rank 3 went on into the allreduce). */
static void test_missing_send(void)
{
    char *text = NULL, *sum;
    size_t len;
    FILE *f = open_memstream(&text, &len);

    for (int r = 0; r < 7; ++r) {
        in_coll(f, r, "allreduce", 412);
    }
    fprintf(f, "loom-report 7 begin host=node1 waited=5.0 call=loom_recv\n"
               "loom-report 7 coll comm=WORLD count=412\n"
               "loom-report 7 pending op=recv comm=WORLD peer=3 world=3 tag=9 bytes=4 "
               "proto=eager state=posted coll=0\n"
               "loom-report 7 end\n");
    fclose(f);
    sum = summarize(8, text, NULL);
    expect(sum, "  allreduce #412 on WORLD: ranks 0-6 waiting, rank 7 never entered\n");
    expect(sum, "  rank 7 is blocked in loom_recv from rank 3 tag 9 on WORLD (posted, 4 bytes)\n");
    expect(sum, "  rank 3 is blocked in loom_allreduce #412 on WORLD (ring, reduce-scatter)\n");
    /* rank 7's line comes before the peer it waits for */
    CU_ASSERT(strstr(sum, "rank 7 is blocked") < strstr(sum, "rank 3 is blocked"));
    expect_not(sum, "did not report");
    free(sum);
    free(text);
}

/* Rank 2 skips the allreduce: its next collective (a barrier) has the same
 * number; rank 3 skipped it and went on to finalize. */
static void test_skipped_collective(void)
{
    char *text = NULL, *sum;
    size_t len;
    FILE *f = open_memstream(&text, &len);

    in_coll(f, 0, "allreduce", 5);
    in_coll(f, 1, "allreduce", 5);
    in_coll(f, 2, "barrier", 5);
    fclose(f);
    sum = summarize(3, text, NULL);
    expect(sum, "collective #5 on WORLD does not match: ranks 0,1 in allreduce, "
                "rank 2 in barrier\n");
    expect(sum, "rank 2 is blocked in loom_barrier #5 on WORLD");
    expect_not(sum, "rank 0 is");
    free(sum);
    free(text);

    text = NULL;
    f = open_memstream(&text, &len);
    in_coll(f, 0, "bcast", 3);
    in_coll(f, 1, "bcast", 3);
    in_coll(f, 2, "bcast", 3);
    fprintf(f, "loom-report 3 begin host=node0 waited=5.1 call=loom_finalize\n"
               "loom-report 3 coll comm=WORLD count=3\n"
               "loom-report 3 end\n");
    fclose(f);
    sum = summarize(4, text, NULL);
    expect(sum, "  bcast #3 on WORLD: ranks 0-2 waiting, rank 3 never entered\n");
    expect(sum, "  rank 3 is blocked in loom_finalize\n");
    free(sum);
    free(text);
}

static void test_mismatched_tags(void)
{
    static const char text[] =
        "loom-report 0 begin host=h waited=5.0 call=loom_send\n"
        "loom-report 0 coll comm=WORLD count=0\n"
        "loom-report 0 pending op=send comm=WORLD peer=1 world=1 tag=1 bytes=1048576 "
        "proto=rndv state=rts-sent coll=0\n"
        "loom-report 0 end\n"
        "loom-report 1 begin host=h waited=5.0 call=loom_recv\n"
        "loom-report 1 pending op=recv comm=WORLD peer=0 world=0 tag=2 bytes=1048576 "
        "proto=rndv state=posted coll=0\n"
        "loom-report 1 end\n";
    char *sum = summarize(2, text, NULL);

    expect(sum, "rank 0 is blocked in loom_send to rank 1 tag 1 on WORLD "
                "(rndv rts-sent, 1048576 bytes)\n");
    expect(sum, "rank 1 is blocked in loom_recv from rank 0 tag 2 on WORLD (posted, 1048576 bytes)");
    expect(sum, "tags do not match: rank 1 receives tag 2 from rank 0 on WORLD, "
                "which sends tag 1 to it\n");
    expect_not(sum, "#");   /* no collective line */
    free(sum);
}

static void test_mutual_recv(void)
{
    static const char text[] =
        "loom-report 0 begin host=h waited=5.0 call=loom_recv\n"
        "loom-report 0 pending op=recv comm=WORLD peer=1 world=1 tag=0 bytes=8 proto=eager "
        "state=posted coll=0\n"
        "loom-report 0 end\n"
        "loom-report 1 begin host=h waited=5.0 call=loom_recv\n"
        "loom-report 1 pending op=recv comm=WORLD peer=0 world=0 tag=0 bytes=8 proto=eager "
        "state=posted coll=0\n"
        "loom-report 1 end\n";
    char *sum = summarize(2, text, NULL);

    expect(sum, "deadlock: ranks 0 and 1 each wait to receive from the other on WORLD");
    CU_ASSERT_PTR_NULL(strstr(strstr(sum, "deadlock") + 1, "deadlock"));   /* once */
    free(sum);
}

/* Ranks that did not report, ranks that ended, and rank 2 waiting for a
 * silent one: every one of them is named. */
static void test_not_reporting(void)
{
    char *text = NULL, *sum;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    loomrun_report_run_t run[9] = { 0 };

    for (int r = 0; r < 6; ++r) {
        in_coll(f, r, "barrier", 0);
    }
    fclose(f);
    run[8] = LOOMRUN_REPORT_ENDED;
    sum = summarize(9, text, run);
    expect(sum, "  barrier #0 on WORLD: ranks 0-5 waiting, ranks 6,7 did not report "
                "(busy outside loom?), rank 8 ended\n");
    /* the missing ranks explain it: no line for each rank waiting */
    expect_not(sum, "are blocked in loom_barrier");
    free(sum);
    free(text);

    /* everyone inside, nobody missing: what they wait on is shown */
    text = NULL;
    f = open_memstream(&text, &len);
    for (int r = 0; r < 3; ++r) {
        in_coll(f, r, "barrier", 0);
    }
    fclose(f);
    sum = summarize(3, text, NULL);
    expect(sum, "  barrier #0 on WORLD: ranks 0-2 waiting\n");
    expect(sum, "ranks 0-2 are blocked in loom_barrier #0 on WORLD (ring, reduce-scatter)");
    free(sum);
    free(text);

    /* no collective: the silent ranks get their own line, the chain too */
    sum = summarize(4, "loom-report 2 begin host=h waited=6.0 call=loom_recv\n"
                       "loom-report 2 pending op=recv comm=WORLD peer=3 world=3 tag=5 "
                       "bytes=16 proto=eager state=posted coll=0\n"
                       "loom-report 2 end\n", NULL);
    expect(sum, "rank 2 is blocked in loom_recv from rank 3 tag 5 on WORLD (posted, 16 bytes)\n");
    expect(sum, "  rank 3 did not report (busy outside loom?)\n");
    expect(sum, "  ranks 0,1 did not report (busy outside loom?)\n");
    free(sum);
}

/* Two communicators: half the ranks in a bcast on a split, the other half
 * in a barrier on WORLD; collective-internal operations name their peers. */
static void test_multiple_comms(void)
{
    char *text = NULL, *sum;
    size_t len;
    FILE *f = open_memstream(&text, &len);

    for (int r = 0; r < 4; ++r) {
        fprintf(f, "loom-report %d begin host=h waited=5.0 call=loom_%s\n", r,
                r < 2 ? "bcast" : "barrier");
        fprintf(f, "loom-report %d coll comm=WORLD count=%d\n", r, r < 2 ? 7 : 8);
        fprintf(f, "loom-report %d coll comm=split(WORLD)#5 count=%d\n", r, r < 2 ? 3 : 2);
        if (r < 2) {
            fprintf(f, "loom-report %d active kind=bcast comm=split(WORLD)#5 seq=2 "
                       "alg=binomial state=recv\n", r);
            fprintf(f, "loom-report %d pending op=recv comm=split(WORLD)#5 peer=%d world=%d "
                       "tag=any bytes=64 proto=eager state=posted coll=1\n", r, 1, r + 2);
        } else {
            fprintf(f, "loom-report %d active kind=barrier comm=WORLD seq=7 alg=dissemination "
                       "state=round1\n", r);
        }
        fprintf(f, "loom-report %d end\n", r);
    }
    fclose(f);
    sum = summarize(4, text, NULL);
    expect(sum, "  barrier #7 on WORLD: ranks 2,3 waiting, ranks 0,1 never entered\n");
    expect(sum, "  bcast #2 on split(WORLD)#5: ranks 0,1 waiting, ranks 2,3 never entered\n");
    /* WORLD first */
    CU_ASSERT(strstr(sum, "barrier #7 on WORLD") < strstr(sum, "bcast #2 on split"));
    expect(sum, "rank 0 is blocked in loom_bcast #2 on split(WORLD)#5 (binomial, recv; "
                "waiting on rank 2)\n");
    expect(sum, "ranks 2,3 are blocked in loom_barrier #7 on WORLD (dissemination, round1)\n");
    free(sum);
    free(text);
}

/* Many ranks: lines merge, ranges read "0-6,8", the output stays bounded. */
static void test_ranges_and_bounds(void)
{
    char *text = NULL, *sum;
    size_t len;
    FILE *f = open_memstream(&text, &len);

    for (int r = 0; r < 10; ++r) {
        if (r != 7 && r != 9) {
            in_coll(f, r, "allgather", 2);
        }
    }
    fprintf(f, "loom-report 7 begin host=h waited=5.0 call=loom_compute_never\n"
               "loom-report 7 end\n");
    fclose(f);
    sum = summarize(10, text, NULL);
    expect(sum, "allgather #2 on WORLD: ranks 0-6,8 waiting, rank 7 never entered, "
                "rank 9 did not report (busy outside loom?)\n");
    free(sum);
    free(text);

    /* 200 ranks each blocked on its own receive: at most 32 rank lines */
    text = NULL;
    f = open_memstream(&text, &len);
    for (int r = 0; r < 200; ++r) {
        fprintf(f, "loom-report %d begin host=h waited=5.0 call=loom_recv\n"
                   "loom-report %d pending op=recv comm=WORLD peer=%d world=%d tag=%d "
                   "bytes=1 proto=eager state=posted coll=0\n"
                   "loom-report %d end\n", r, r, (r + 1) % 200, (r + 1) % 200, r, r);
    }
    fclose(f);
    sum = summarize(200, text, NULL);
    expect(sum, "... and 168 more ranks\n");
    CU_ASSERT(strlen(sum) < 8000);
    free(sum);
    free(text);

    sum = summarize(3, "", NULL);
    CU_ASSERT_STRING_EQUAL(sum, "");   /* nobody reported: nothing to say */
    free(sum);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "parse: well-formed lines",                     test_parse_good },
        { "parse: malformed and foreign lines",           test_parse_bad },
        { "parse: random mutations (no crash)",           test_parse_fuzz },
        { "rank sets: 0-6,8",                             test_rank_sets },
        { "blocks: begin/end, replace, forget",           test_blocks },
        { "summary: missing send (the lead's example)",   test_missing_send },
        { "summary: a rank skipping a collective",        test_skipped_collective },
        { "summary: mismatched tags",                     test_mismatched_tags },
        { "summary: two ranks receiving from each other", test_mutual_recv },
        { "summary: ranks not reporting, ranks ended",    test_not_reporting },
        { "summary: several communicators",               test_multiple_comms },
        { "summary: ranges, merged lines, bounds",        test_ranges_and_bounds },
        { NULL, NULL },
    };
    return loom_test_run_suite("report", cases, NULL, NULL);
}
