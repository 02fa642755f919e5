/*
 * loomrun_report_sum.c: the hang summary built from the ranks' latest
 * report blocks (see loomrun_report.h for the rules).
 *
 *   per communicator with an active collective (WORLD first):
 *       allreduce #412 on WORLD: ranks 0-6 waiting, rank 7 never entered
 *   per rank worth a line (never entered, a peer they wait for, blocked in
 *   point-to-point), identical lines merged:
 *       rank 7 is blocked in loom_recv from rank 3 tag 9 on WORLD (posted, 4 bytes)
 *       rank 3 is blocked in loom_allreduce #412 on WORLD (ring, reduce-scatter)
 *   operations that can never meet:
 *       tags do not match: rank 1 receives tag 2 from rank 0, which sends tag 1 to it
 *   ranks not accounted for above:
 *       rank 5 did not report (busy outside loom?)
 */
#include "loomrun_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOOMRUN_SUM_MAX_COMMS 64    /* communicators grouped */
#define LOOMRUN_SUM_MAX_LINES 32    /* rank lines before "... and N more" */
#define LOOMRUN_SUM_MAX_KINDS 8
#define LOOMRUN_SUM_DESC      512
#define LOOMRUN_SUM_SET       256   /* "ranks 0-6,8" text */

typedef struct loomrun_sum {
    const loomrun_report_t     *rp;
    const loomrun_report_run_t *run;
    FILE       *out;
    int         n;
    uint8_t    *queued;       /* rank has a place in the queue */
    uint8_t    *mentioned;    /* silent or ended rank already named */
    int        *queue;
    int         nqueue;
} loomrun_sum_t;

static const char loomrun_sum_world[] = "WORLD";

static int loomrun_sum_running(const loomrun_sum_t *s, int r)
{
    return s->run == NULL || s->run[r] == LOOMRUN_REPORT_RUNNING;
}

/* Collectives rank @p b started on @p comm; -1 if it does not say
 * (WORLD always counts: a rank without its line has started none). */
static long loomrun_sum_count(const loomrun_report_block_t *b, const char *comm)
{
    for (int i = 0; i < b->ncoll; ++i) {
        if (strcmp(b->coll[i].comm, comm) == 0) {
            return b->coll[i].count;
        }
    }
    return strcmp(comm, loomrun_sum_world) == 0 ? 0 : -1;
}

static const loomrun_report_active_t *loomrun_sum_active(const loomrun_report_block_t *b,
                                                         const char *comm)
{
    for (int i = 0; i < b->nactive; ++i) {
        if (strcmp(b->active[i].comm, comm) == 0) {
            return &b->active[i];
        }
    }
    return NULL;
}

static void loomrun_sum_enqueue(loomrun_sum_t *s, int r)
{
    if (r >= 0 && r < s->n && !s->queued[r]) {
        s->queued[r] = 1;
        s->queue[s->nqueue++] = r;
    }
}

/* ---- one rank's line ----------------------------------------------------------------- */

/* "rank 3" or "rank 3 (rank 1 of split(WORLD)#5)" or "any rank". */
static void loomrun_sum_peer(const loomrun_report_pending_t *o, char *buf, size_t len)
{
    if (o->world == LOOMRUN_REPORT_ANY) {
        snprintf(buf, len, "any rank");
    } else if (strcmp(o->comm, loomrun_sum_world) != 0 && o->peer != LOOMRUN_REPORT_ANY &&
               o->peer != o->world) {
        snprintf(buf, len, "rank %d (rank %d of %s)", o->world, o->peer, o->comm);
    } else {
        snprintf(buf, len, "rank %d", o->world);
    }
}

/* "loom_recv from rank 3 tag 9 on WORLD (posted, 4 bytes)" */
static void loomrun_sum_op(const char *call, const loomrun_report_pending_t *o, char *buf,
                           size_t len)
{
    int is_send = strstr(o->op, "send") != NULL;
    char peer[160], tag[24], how[80];

    loomrun_sum_peer(o, peer, sizeof(peer));
    if (o->tag == LOOMRUN_REPORT_ANY) {
        snprintf(tag, sizeof(tag), "any tag");
    } else {
        snprintf(tag, sizeof(tag), "tag %d", o->tag);
    }
    if (is_send && o->proto[0] != '\0') {
        snprintf(how, sizeof(how), "%s %s, ", o->proto, o->state[0] ? o->state : "?");
    } else {
        snprintf(how, sizeof(how), "%s%s", o->state, o->state[0] ? ", " : "");
    }
    snprintf(buf, len, "%s%s%s%s %s %s on %s (%s%llu byte%s)", call,
             strstr(call, o->op) ? "" : " for a ", strstr(call, o->op) ? "" : o->op,
             is_send ? " to" : " from", peer, tag, o->comm, how, (unsigned long long)o->bytes,
             o->bytes == 1 ? "" : "s");
}

/* The active collective the rank's blocking call is about. */
static const loomrun_report_active_t *loomrun_sum_main_active(const loomrun_report_block_t *b)
{
    for (int i = 0; i < b->nactive; ++i) {
        if (strncmp(b->call, "loom_", 5) == 0 && strcmp(b->call + 5, b->active[i].kind) == 0) {
            return &b->active[i];
        }
    }
    return b->nactive > 0 ? &b->active[0] : NULL;
}

/* "loom_allreduce #412 on WORLD (ring, reduce-scatter; waiting on rank 7)" */
static void loomrun_sum_coll(const loomrun_sum_t *s, const loomrun_report_block_t *b,
                             const loomrun_report_active_t *a, char *buf, size_t len)
{
    uint8_t *peers = calloc((size_t)s->n, 1);
    char set[LOOMRUN_SUM_SET] = "", paren[LOOMRUN_SUM_SET + 128] = "";
    int npeers = 0;
    size_t off;

    for (int i = 0; peers != NULL && i < b->npending; ++i) {
        const loomrun_report_pending_t *o = &b->pending[i];
        if (o->coll && o->world >= 0 && o->world < s->n && strcmp(o->comm, a->comm) == 0) {
            npeers += !peers[o->world];
            peers[o->world] = 1;
        }
    }
    if (npeers > 0) {
        loomrun_report_ranks(peers, s->n, set, sizeof(set));
    }
    free(peers);
    off = (size_t)snprintf(paren, sizeof(paren), "%s", a->alg);
    if (a->state[0] != '\0') {
        off += (size_t)snprintf(paren + off, sizeof(paren) - off, "%s%s", off ? ", " : "",
                                a->state);
    }
    if (npeers > 0 && off < sizeof(paren)) {
        snprintf(paren + off, sizeof(paren) - off, "%swaiting on %s", off ? "; " : "", set);
    }
    if (strncmp(b->call, "loom_", 5) == 0 && strcmp(b->call + 5, a->kind) == 0) {
        snprintf(buf, len, "%s #%ld on %s%s%s%s", b->call, a->seq, a->comm,
                 paren[0] ? " (" : "", paren, paren[0] ? ")" : "");
    } else {
        snprintf(buf, len, "%s for %s #%ld on %s%s%s%s", b->call, a->kind, a->seq, a->comm,
                 paren[0] ? " (" : "", paren, paren[0] ? ")" : "");
    }
}

/* What rank @p r is doing, without the rank: "is blocked in ..." */
static void loomrun_sum_describe(const loomrun_sum_t *s, int r, char *buf, size_t len)
{
    const loomrun_report_block_t *b = s->rp->latest[r];
    const loomrun_report_active_t *a;
    const loomrun_report_pending_t *first = NULL;
    int more = 0;
    size_t off;

    if (b == NULL) {
        snprintf(buf, len, loomrun_sum_running(s, r) ? "did not report (busy outside loom?)"
                                                     : "ended");
        return;
    }
    for (int i = 0; i < b->npending; ++i) {
        if (!b->pending[i].coll) {
            more += first != NULL;
            first = first ? first : &b->pending[i];
        }
    }
    /* written in place: "is blocked in " then what */
    off = (size_t)snprintf(buf, len, "is blocked in ");
    if (off >= len) {
        return;
    }
    if (first != NULL) {
        loomrun_sum_op(b->call, first, buf + off, len - off);
        if (more > 0) {
            off = strlen(buf);
            snprintf(buf + off, len - off, "; %d more pending operation%s", more,
                     more == 1 ? "" : "s");
        }
    } else if ((a = loomrun_sum_main_active(b)) != NULL) {
        loomrun_sum_coll(s, b, a, buf + off, len - off);
    } else {
        snprintf(buf + off, len - off, "%s", b->call);
    }
}

/* Queue the ranks @p r waits for outside collectives (the chain). */
static void loomrun_sum_follow(loomrun_sum_t *s, int r)
{
    const loomrun_report_block_t *b = s->rp->latest[r];

    for (int i = 0; b != NULL && i < b->npending; ++i) {
        int w = b->pending[i].world;
        if (!b->pending[i].coll && w >= 0 && w < s->n && w != r &&
            (s->rp->latest[w] != NULL || !s->mentioned[w])) {
            loomrun_sum_enqueue(s, w);
        }
    }
}

/* Describe the queue (following chains), merge identical lines, print. */
static void loomrun_sum_rank_lines(loomrun_sum_t *s)
{
    char (*desc)[LOOMRUN_SUM_DESC] = calloc((size_t)s->n, sizeof(*desc));
    uint8_t *set = calloc((size_t)s->n, 1), *done = calloc((size_t)s->n, 1);
    char ranks[LOOMRUN_SUM_SET];
    int lines = 0, skipped = 0;

    for (int q = 0; desc != NULL && q < s->nqueue; ++q) {
        loomrun_sum_describe(s, s->queue[q], desc[q], sizeof(desc[q]));
        loomrun_sum_follow(s, s->queue[q]);
    }
    for (int q = 0; desc != NULL && set != NULL && done != NULL && q < s->nqueue; ++q) {
        int same = 0;
        if (done[q]) {
            continue;
        }
        memset(set, 0, (size_t)s->n);
        for (int k = q; k < s->nqueue; ++k) {
            if (!done[k] && strcmp(desc[k], desc[q]) == 0) {
                done[k] = 1;
                set[s->queue[k]] = 1;
                ++same;
            }
        }
        if (lines++ >= LOOMRUN_SUM_MAX_LINES) {
            skipped += same;
            continue;
        }
        loomrun_report_ranks(set, s->n, ranks, sizeof(ranks));
        if (same > 1 && strncmp(desc[q], "is ", 3) == 0) {
            fprintf(s->out, "  %s are %s\n", ranks, desc[q] + 3);
        } else {
            fprintf(s->out, "  %s %s\n", ranks, desc[q]);
        }
    }
    if (skipped > 0) {
        fprintf(s->out, "  ... and %d more rank%s\n", skipped, skipped == 1 ? "" : "s");
    }
    free(desc);
    free(set);
    free(done);
}

/* ---- one line per communicator ----------------------------------------------------- */

typedef struct loomrun_sum_group {
    const char *comm;
    long        seq;                  /* the highest collective number inside */
    uint8_t    *waiting, *never, *left, *silent, *ended, *scratch;
    const char *kinds[LOOMRUN_SUM_MAX_KINDS];
    int         nkind[LOOMRUN_SUM_MAX_KINDS], nkinds;
} loomrun_sum_group_t;

/* Sort rank @p r of the job into the group's sets. */
static void loomrun_sum_classify(loomrun_sum_t *s, loomrun_sum_group_t *g, int r)
{
    const loomrun_report_block_t *b = s->rp->latest[r];
    const loomrun_report_active_t *a;
    long count;
    int k;

    if (b == NULL) {
        if (strcmp(g->comm, loomrun_sum_world) == 0) {
            (loomrun_sum_running(s, r) ? g->silent : g->ended)[r] = 1;
            s->mentioned[r] = 1;
        }
        return;
    }
    a = loomrun_sum_active(b, g->comm);
    if (a != NULL && a->seq == g->seq) {
        g->waiting[r] = 1;
        for (k = 0; k < g->nkinds && strcmp(g->kinds[k], a->kind) != 0; ++k) {
        }
        if (k == g->nkinds && g->nkinds < LOOMRUN_SUM_MAX_KINDS) {
            g->kinds[g->nkinds++] = a->kind;
        }
        g->nkind[k < LOOMRUN_SUM_MAX_KINDS ? k : 0]++;
        return;
    }
    count = loomrun_sum_count(b, g->comm);
    if (count >= 0) {   /* -1: not a member, or no collective there yet */
        (count <= g->seq ? g->never : g->left)[r] = 1;
    }
}

/* ", ranks 5,6 did not report (busy outside loom?)" when the set is not empty */
static void loomrun_sum_part(const loomrun_sum_t *s, const uint8_t *set, const char *what,
                             int *any_p)
{
    char ranks[LOOMRUN_SUM_SET];
    int n = 0;

    for (int r = 0; r < s->n; ++r) {
        n += set[r] != 0;
    }
    if (n > 0) {
        fprintf(s->out, "%s%s %s", *any_p ? ", " : "",
                loomrun_report_ranks(set, s->n, ranks, sizeof(ranks)), what);
        *any_p = 1;
    }
}

/* The ranks inside the collective whose kind is not the most common one. */
static void loomrun_sum_odd_kinds(loomrun_sum_t *s, const loomrun_sum_group_t *g)
{
    int major = 0;

    for (int k = 1; k < g->nkinds; ++k) {
        major = g->nkind[k] > g->nkind[major] ? k : major;
    }
    for (int r = 0; r < s->n; ++r) {
        const loomrun_report_active_t *a;
        if (g->waiting[r] && (a = loomrun_sum_active(s->rp->latest[r], g->comm)) != NULL &&
            strcmp(a->kind, g->kinds[major]) != 0) {
            loomrun_sum_enqueue(s, r);
        }
    }
}

/* The line of one communicator; queues the ranks that explain it. */
static void loomrun_sum_group_line(loomrun_sum_t *s, loomrun_sum_group_t *g)
{
    int any = 0, culprits = s->nqueue;

    for (int r = 0; r < s->n; ++r) {
        loomrun_sum_classify(s, g, r);
    }
    if (g->nkinds <= 1) {
        fprintf(s->out, "  %s #%ld on %s: ", g->nkinds ? g->kinds[0] : "collective", g->seq,
                g->comm);
        loomrun_sum_part(s, g->waiting, "waiting", &any);
    } else {
        fprintf(s->out, "  collective #%ld on %s does not match: ", g->seq, g->comm);
        for (int k = 0; k < g->nkinds; ++k) {
            char what[LOOMRUN_REPORT_WORD_MAX + 8];
            for (int r = 0; r < s->n; ++r) {
                const loomrun_report_active_t *a = s->rp->latest[r] ?
                    loomrun_sum_active(s->rp->latest[r], g->comm) : NULL;
                g->scratch[r] = g->waiting[r] && a != NULL && strcmp(a->kind, g->kinds[k]) == 0;
            }
            snprintf(what, sizeof(what), "in %s", g->kinds[k]);
            loomrun_sum_part(s, g->scratch, what, &any);
        }
        loomrun_sum_odd_kinds(s, g);
    }
    loomrun_sum_part(s, g->never, "never entered", &any);
    loomrun_sum_part(s, g->left, "already left it", &any);
    loomrun_sum_part(s, g->silent, "did not report (busy outside loom?)", &any);
    loomrun_sum_part(s, g->ended, "ended", &any);
    fputc('\n', s->out);
    for (int r = 0; r < s->n; ++r) {
        if (g->never[r]) {
            loomrun_sum_enqueue(s, r);
        }
    }
    for (int r = 0; r < s->n; ++r) {
        culprits -= g->silent[r] || g->ended[r];   /* missing ranks explain it too */
    }
    if (s->nqueue == culprits) {
        /* everyone is inside and nobody is missing: show what they wait on */
        for (int r = 0; r < s->n; ++r) {
            if (g->waiting[r]) {
                loomrun_sum_enqueue(s, r);
            }
        }
    }
}

/* ---- operations that can never meet -------------------------------------------------- */

/* Rank @p r's receive @p o from a given rank, against that rank's own operations. */
static void loomrun_sum_pair(loomrun_sum_t *s, int r, const loomrun_report_pending_t *o)
{
    const loomrun_report_block_t *bw = s->rp->latest[o->world];
    int w = o->world;

    for (int i = 0; bw != NULL && i < bw->npending; ++i) {
        const loomrun_report_pending_t *q = &bw->pending[i];
        if (q->coll || strcmp(q->comm, o->comm) != 0 ||
            (q->world != r && q->world != LOOMRUN_REPORT_ANY)) {
            continue;
        }
        if (strstr(q->op, "send") != NULL && q->world == r && o->tag != LOOMRUN_REPORT_ANY &&
            q->tag != o->tag) {
            fprintf(s->out, "  tags do not match: rank %d receives tag %d from rank %d on %s, "
                    "which sends tag %d to it\n", r, o->tag, w, o->comm, q->tag);
            return;
        }
        if (strcmp(q->op, "recv") == 0 && strcmp(o->op, "recv") == 0 &&
            (r < w || q->world == LOOMRUN_REPORT_ANY)) {
            fprintf(s->out, "  deadlock: ranks %d and %d each wait to receive from the other "
                    "on %s before sending\n", r < w ? r : w, r < w ? w : r, o->comm);
            return;
        }
    }
}

static void loomrun_sum_hints(loomrun_sum_t *s)
{
    for (int r = 0; r < s->n; ++r) {
        const loomrun_report_block_t *b = s->rp->latest[r];
        for (int i = 0; b != NULL && i < b->npending; ++i) {
            const loomrun_report_pending_t *o = &b->pending[i];
            if (!o->coll && (strcmp(o->op, "recv") == 0 || strcmp(o->op, "probe") == 0) &&
                o->world >= 0 && o->world < s->n && o->world != r) {
                loomrun_sum_pair(s, r, o);
            }
        }
    }
}

/* ---- the whole summary -------------------------------------------------------------- */

/* Communicators with an active collective, WORLD first. */
static int loomrun_sum_comms(const loomrun_sum_t *s, const char **comms)
{
    int n = 0;

    for (int pass = 0; pass < 2; ++pass) {
        for (int r = 0; r < s->n; ++r) {
            const loomrun_report_block_t *b = s->rp->latest[r];
            for (int i = 0; b != NULL && i < b->nactive; ++i) {
                const char *c = b->active[i].comm;
                int k;
                if ((strcmp(c, loomrun_sum_world) == 0) != (pass == 0)) {
                    continue;
                }
                for (k = 0; k < n && strcmp(comms[k], c) != 0; ++k) {
                }
                if (k == n && n < LOOMRUN_SUM_MAX_COMMS) {
                    comms[n++] = c;
                }
            }
        }
    }
    return n;
}

/* One communicator's line; -1 out of memory. */
static int loomrun_sum_group(loomrun_sum_t *s, const char *comm)
{
    loomrun_sum_group_t g = { .comm = comm, .seq = -1 };
    uint8_t *sets = calloc(6, (size_t)s->n);

    if (sets == NULL) {
        return -1;
    }
    g.waiting = sets;
    g.never   = sets + s->n;
    g.left    = sets + 2 * s->n;
    g.silent  = sets + 3 * s->n;
    g.ended   = sets + 4 * s->n;
    g.scratch = sets + 5 * s->n;
    for (int r = 0; r < s->n; ++r) {
        const loomrun_report_active_t *a = s->rp->latest[r] ?
            loomrun_sum_active(s->rp->latest[r], comm) : NULL;
        if (a != NULL && a->seq > g.seq) {
            g.seq = a->seq;
        }
    }
    loomrun_sum_group_line(s, &g);
    free(sets);
    return 0;
}

/* Ranks neither in a group line nor in a rank line. */
static void loomrun_sum_rest(loomrun_sum_t *s)
{
    uint8_t *set = calloc((size_t)s->n, 1);
    char ranks[LOOMRUN_SUM_SET];

    for (int pass = 0; set != NULL && pass < 2; ++pass) {
        int any = 0;
        for (int r = 0; r < s->n; ++r) {
            set[r] = s->rp->latest[r] == NULL && !s->mentioned[r] && !s->queued[r] &&
                     loomrun_sum_running(s, r) == (pass == 0);
            any |= set[r];
        }
        if (any) {
            fprintf(s->out, "  %s %s\n", loomrun_report_ranks(set, s->n, ranks, sizeof(ranks)),
                    pass == 0 ? "did not report (busy outside loom?)" : "ended");
        }
    }
    free(set);
}

char *loomrun_report_summary(const loomrun_report_t *rp, const loomrun_report_run_t *run)
{
    loomrun_sum_t s = { .rp = rp, .run = run, .n = rp->nranks };
    const char *comms[LOOMRUN_SUM_MAX_COMMS];
    char *text = NULL;
    size_t len = 0;
    int reported = 0, ncomms, rc = 0;

    for (int r = 0; r < rp->nranks; ++r) {
        reported += rp->latest[r] != NULL;
    }
    if (reported == 0) {
        return strdup("");
    }
    s.queued    = calloc((size_t)s.n, 1);
    s.mentioned = calloc((size_t)s.n, 1);
    s.queue     = calloc((size_t)s.n, sizeof(int));
    s.out       = open_memstream(&text, &len);
    if (s.queued == NULL || s.mentioned == NULL || s.queue == NULL || s.out == NULL) {
        rc = -1;
        goto out_free;
    }
    ncomms = loomrun_sum_comms(&s, comms);
    for (int c = 0; rc == 0 && c < ncomms; ++c) {
        rc = loomrun_sum_group(&s, comms[c]);
    }
    for (int r = 0; r < s.n; ++r) {
        const loomrun_report_block_t *b = rp->latest[r];
        int p2p = 0;
        for (int i = 0; b != NULL && i < b->npending; ++i) {
            if (!b->pending[i].coll) {
                loomrun_sum_enqueue(&s, r);
                p2p = 1;
            }
        }
        /* blocked in something else (finalize), or only in collective
         * receives of a collective it no longer lists as active: no group
         * line names it, so a rank line must */
        if (b != NULL && b->nactive == 0 && !p2p) {
            loomrun_sum_enqueue(&s, r);
        }
    }
    loomrun_sum_rank_lines(&s);
    loomrun_sum_hints(&s);
    loomrun_sum_rest(&s);
out_free:
    if (s.out != NULL) {
        fclose(s.out);
    }
    free(s.queued);
    free(s.mentioned);
    free(s.queue);
    if (rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}
