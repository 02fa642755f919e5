/*
 * fuzz_launcher_report.c: libFuzzer target for the hang reports loomrun
 * reads from its ranks' stderr (launcher/loomrun_report.c and
 * loomrun_report_sum.c): loomrun_report_parse on every line, the block
 * keeping of loomrun_report_add / _forget, and loomrun_report_summary.
 *
 * Input: byte 0 = number of ranks - 1 (1..256), byte 1 = which ranks have
 * ended (bit r % 8), then lines split at '\n' as loomrun splits a rank's
 * output ("\r" before the newline stays, as a rank may write it). A line
 * that is not a report line and begins with '!' forgets the latest block of
 * rank (byte after '!') % nranks, as output on the rank's stdout does.
 * Checked beyond "no crash, no leak":
 *  - parse returns 0 exactly for lines without the "loom-report " prefix,
 *    writes the record only on success, and a record holds what the
 *    protocol allows: rank in range, terminated strings within their
 *    arrays, world rank in range or "any", coll 0/1, counts >= 0, a finite
 *    wait >= 0;
 *  - add completes a block exactly on "end" lines (generation + 1);
 *  - a summary (after each of the first completed blocks, and at the end
 *    with and without ended ranks) is empty exactly when no rank has a block, and
 *    otherwise lines of "  ...\n", each at most SUM_LINE_MAX bytes, at most
 *    as many as the rules allow (one per communicator, the rank lines and
 *    their "... and N more", one per point-to-point receive, the rest).
 */
#include "loomrun_report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

#define SUM_LINE_MAX 4096   /* a communicator line with 8 kinds of collective is the longest */

static int terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

static void check_rec(const loomrun_report_rec_t *r, int nranks)
{
    CHECK(r->rank >= 0 && r->rank < nranks);
    switch (r->kind) {
    case LOOMRUN_REPORT_BEGIN:
        CHECK(terminated(r->u.begin.host, LOOMRUN_REPORT_NAME_MAX));
        CHECK(terminated(r->u.begin.call, LOOMRUN_REPORT_WORD_MAX));
        CHECK(isfinite(r->u.begin.waited) && r->u.begin.waited >= 0);
        break;
    case LOOMRUN_REPORT_COLL:
        CHECK(terminated(r->u.coll.comm, LOOMRUN_REPORT_NAME_MAX) && r->u.coll.count >= 0);
        break;
    case LOOMRUN_REPORT_ACTIVE:
        CHECK(terminated(r->u.active.kind, LOOMRUN_REPORT_WORD_MAX));
        CHECK(terminated(r->u.active.comm, LOOMRUN_REPORT_NAME_MAX));
        CHECK(terminated(r->u.active.alg, LOOMRUN_REPORT_WORD_MAX));
        CHECK(terminated(r->u.active.state, LOOMRUN_REPORT_WORD_MAX));
        CHECK(r->u.active.seq >= 0);
        break;
    case LOOMRUN_REPORT_PENDING: {
        const loomrun_report_pending_t *p = &r->u.pending;
        CHECK(terminated(p->op, LOOMRUN_REPORT_WORD_MAX));
        CHECK(terminated(p->comm, LOOMRUN_REPORT_NAME_MAX));
        CHECK(terminated(p->proto, LOOMRUN_REPORT_WORD_MAX));
        CHECK(terminated(p->state, LOOMRUN_REPORT_WORD_MAX));
        CHECK(p->world == LOOMRUN_REPORT_ANY || (p->world >= 0 && p->world < nranks));
        CHECK(p->peer >= LOOMRUN_REPORT_ANY && (p->coll == 0 || p->coll == 1));
        break;
    }
    case LOOMRUN_REPORT_END:
        break;
    default:
        __builtin_trap();
    }
}

/* Parse one line and hand it on; returns what add returned (or 0). */
static int take_line(loomrun_report_t *rp, const char *line, size_t len, double now)
{
    static const char prefix[] = LOOMRUN_REPORT_PREFIX;
    loomrun_report_rec_t rec, untouched;
    unsigned gen = rp->generation;
    int rc, added;

    memset(&rec, 0xa5, sizeof(rec));
    memcpy(&untouched, &rec, sizeof(rec));
    rc = loomrun_report_parse(line, len, rp->nranks, &rec);
    CHECK((rc == 0) == (len < sizeof(prefix) - 1 || memcmp(line, prefix, sizeof(prefix) - 1) != 0));
    if (rc != 1) {
        CHECK(rc == 0 || rc == -1);
        CHECK(memcmp(&rec, &untouched, sizeof(rec)) == 0);
        if (rc == 0 && len >= 2 && line[0] == '!') {
            loomrun_report_forget(rp, (uint8_t)line[1] % rp->nranks);
        }
        return 0;
    }
    check_rec(&rec, rp->nranks);
    added = loomrun_report_add(rp, &rec, now);
    CHECK(added == 0 || added == 1);
    CHECK(rp->generation == gen + (unsigned)added);
    CHECK(!added || (rec.kind == LOOMRUN_REPORT_END && rp->latest[rec.rank] != NULL &&
                     rp->latest[rec.rank]->t_done == now));
    return added;
}

/* The summary's shape and size against what the blocks allow. */
static void check_summary(const loomrun_report_t *rp, const loomrun_report_run_t *run)
{
    char *text = loomrun_report_summary(rp, run);
    size_t len, lines = 0, max_lines = 64 + 33 + 2, start = 0;
    int reported = 0;

    CHECK(text != NULL);
    for (int r = 0; r < rp->nranks; ++r) {
        const loomrun_report_block_t *b = rp->latest[r];
        if (b != NULL) {
            ++reported;
            CHECK(b->rank == r && b->ncoll <= LOOMRUN_REPORT_MAX_COMMS &&
                  b->nactive <= LOOMRUN_REPORT_MAX_COMMS &&
                  b->npending <= LOOMRUN_REPORT_MAX_PENDING);
            max_lines += (size_t)b->npending;   /* at most one hint per receive */
        }
    }
    len = strlen(text);
    CHECK((len == 0) == (reported == 0));
    for (size_t i = 0; i < len; ++i) {
        if (text[i] == '\n') {
            CHECK(i - start + 1 <= SUM_LINE_MAX && i - start >= 3);
            CHECK(text[start] == ' ' && text[start + 1] == ' ');
            ++lines;
            start = i + 1;
        }
    }
    CHECK(start == len && lines <= max_lines);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    loomrun_report_run_t run[256];
    loomrun_report_t rp;
    const char *p, *end;
    double now = 0;

    if (size < 2) {
        return 0;
    }
    CHECK(loomrun_report_init(&rp, 1 + data[0]) == 0);
    for (int r = 0; r < rp.nranks; ++r) {
        run[r] = (data[1] >> (r % 8)) & 1 ? LOOMRUN_REPORT_ENDED : LOOMRUN_REPORT_RUNNING;
    }
    p   = (const char *)data + 2;
    end = (const char *)data + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);

        if (take_line(&rp, p, len, now += 0.5) == 1 && rp.generation <= 4) {
            check_summary(&rp, NULL);   /* a few states on the way (each costs) */
        }
        p += len + (nl != NULL);
    }
    check_summary(&rp, NULL);
    check_summary(&rp, run);
    loomrun_report_fini(&rp);
    return 0;
}
