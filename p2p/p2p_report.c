/*
 * p2p_report.c: hang reports, the rank's side (the line protocol is in
 * launcher/loomrun_report.h and docs/troubleshooting.md; loomrun turns the
 * blocks of all ranks into one summary).
 *
 * A rank reports when a blocking call made no progress for
 * LOOM_PROGRESS_TIMEOUT seconds (progress.c) or when SIGUSR1 arrived
 * (loomrun sends it before a --timeout teardown). The handler only sets a
 * flag; the next progress pass writes the block, so a rank busy outside
 * loom does not report (and that is what loomrun then says of it):
 *
 *   loom-report 4 begin host=n1 waited=2.0 call=loom_recv
 *   loom-report 4 coll comm=WORLD count=3
 *   loom-report 4 active kind=allreduce comm=WORLD seq=3 alg=ring state=step2
 *   loom-report 4 pending op=recv comm=WORLD peer=3 world=3 tag=9 bytes=4 proto=eager state=posted coll=0
 *   loom-report 4 end
 *
 * Each line goes out with one write() so loomrun's line forwarding keeps it
 * whole. Everything here reads the engine's queues as they are; nothing is
 * allocated, so a report can be written from any progress pass.
 */
#include "p2p_engine_int.h"
#include "log_int.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* the launcher keeps 32 pending lines per block; more would be dropped there */
#define LOOM_P2P_REPORT_MAX_PENDING 32
#define LOOM_P2P_REPORT_MAX_ACTIVE  32
#define LOOM_P2P_REPORT_WORD        64

volatile sig_atomic_t loom_p2p_report_asked;

static struct sigaction loom_p2p_report_old_sa;
static int loom_p2p_report_installed;

/* ---- SIGUSR1 --------------------------------------------------------------------- */

static void loom_p2p_report_on_usr1(int sig)
{
    (void)sig;
    loom_p2p_report_asked = 1;   /* the progress loop does the rest */
}

void loom_p2p_report_signal_install(void)
{
    struct sigaction sa, old;

    loom_p2p_report_asked = 0;
    if (sigaction(SIGUSR1, NULL, &old) != 0) {
        loom_debug("p2p", "cannot read the SIGUSR1 disposition: %m");
        return;
    }
    if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) {
        loom_debug("p2p", "SIGUSR1 is %s by the application: left alone (no hang "
                   "report on loomrun --timeout)", old.sa_handler == SIG_IGN ?
                   "ignored" : "handled");
        return;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = loom_p2p_report_on_usr1;
    sa.sa_flags   = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, &loom_p2p_report_old_sa) != 0) {
        loom_debug("p2p", "cannot install the SIGUSR1 handler: %m");
        return;
    }
    loom_p2p_report_installed = 1;
}

void loom_p2p_report_signal_restore(void)
{
    struct sigaction cur;

    if (!loom_p2p_report_installed) {
        return;
    }
    loom_p2p_report_installed = 0;
    /* the application may have installed its own since: keep that one */
    if (sigaction(SIGUSR1, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) == 0 &&
        cur.sa_handler == loom_p2p_report_on_usr1) {
        sigaction(SIGUSR1, &loom_p2p_report_old_sa, NULL);
    }
    loom_p2p_report_asked = 0;
}

/* ---- lines ----------------------------------------------------------------------- */

static void loom_p2p_report_line(const char *fmt, ...) LOOM_PRINTF(1, 2);

/* "loom-report <rank> " + the text + newline, in one write() */
static void loom_p2p_report_line(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    size_t off, len;
    int n;

    n = snprintf(buf, sizeof(buf), "loom-report %d ", loom_p2p_engine.world_rank);
    off = (size_t)n;
    va_start(ap, fmt);
    n = vsnprintf(buf + off, sizeof(buf) - off - 1, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    len = LOOM_MIN(off + (size_t)n, sizeof(buf) - 2);
    buf[len++] = '\n';
    for (off = 0; off < len;) {
        ssize_t w = write(STDERR_FILENO, buf + off, len - off);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return;
        }
        off += (size_t)w;
    }
}

/* @p s as one protocol value: no blanks or control characters, never empty */
static const char *loom_p2p_report_word(const char *s, char *buf, size_t len)
{
    size_t i = 0;

    for (; s != NULL && s[i] != '\0' && i + 1 < len; ++i) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = c <= ' ' || c == 0x7f ? '_' : (char)c;
    }
    if (i == 0) {
        buf[i++] = '?';
    }
    buf[i] = '\0';
    return buf;
}

/* "17" or "any" */
static const char *loom_p2p_report_int(int v, int any, char *buf, size_t len)
{
    if (v == any) {
        return "any";
    }
    snprintf(buf, len, "%d", v);
    return buf;
}

/* the public call a waiter stands for: "loom_recv", "loom_allreduce" */
static void loom_p2p_report_call(const loom_progress_waiter_t *w, char *buf, size_t len)
{
    if (w->prev == NULL && loom_progress_coll_top != NULL) {
        loom_p2p_report_word(loom_progress_coll_top->call, buf, len);
    } else if (w->what_is_op) {
        char word[LOOM_P2P_REPORT_WORD];
        snprintf(buf, len, "loom_%s", loom_p2p_report_word(w->what, word, sizeof(word)));
    } else {
        loom_p2p_report_word(w->what, buf, len);
    }
}

/* ---- collectives --------------------------------------------------------------- */

static void loom_p2p_report_colls(void)
{
    char name[LOOM_P2P_REPORT_WORD];

    for (loom_comm_t c = loom_comm_live_next(NULL); c != NULL; c = loom_comm_live_next(c)) {
        if (c->coll_seq > 0 || c == LOOM_COMM_WORLD) {
            loom_p2p_report_line("coll comm=%s count=%llu",
                                 loom_p2p_report_word(c->name, name, sizeof(name)),
                                 (unsigned long long)c->coll_seq);
        }
    }
}

typedef struct loom_p2p_report_seen {
    loom_comm_t comm;
    uint64_t    seq;
} loom_p2p_report_seen_t;

/* one "active" line per collective (a composed algorithm's parts share its number) */
static void loom_p2p_report_active(loom_p2p_report_seen_t *seen, int *nseen, loom_comm_t comm,
                                   const char *kind, uint64_t seq, const char *alg,
                                   const char *state)
{
    char w[4][LOOM_P2P_REPORT_WORD];

    if (comm == NULL || kind == NULL) {
        return;
    }
    for (int i = 0; i < *nseen; ++i) {
        if (seen[i].comm == comm && seen[i].seq == seq) {
            return;
        }
    }
    if (*nseen == LOOM_P2P_REPORT_MAX_ACTIVE) {
        return;
    }
    seen[(*nseen)++] = (loom_p2p_report_seen_t){ comm, seq };
    loom_p2p_report_line("active kind=%s comm=%s seq=%llu alg=%s state=%s",
                         loom_p2p_report_word(kind, w[0], sizeof(w[0])),
                         loom_p2p_report_word(comm->name, w[1], sizeof(w[1])),
                         (unsigned long long)seq,
                         loom_p2p_report_word(alg, w[2], sizeof(w[2])),
                         loom_p2p_report_word(state, w[3], sizeof(w[3])));
}

static void loom_p2p_report_actives(void)
{
    loom_p2p_report_seen_t seen[LOOM_P2P_REPORT_MAX_ACTIVE];
    int nseen = 0;
    loom_request_t req;

    for (loom_progress_coll_t *c = loom_progress_coll_top; c != NULL; c = c->prev) {
        loom_p2p_report_active(seen, &nseen, c->comm, c->kind, c->seq, c->alg, c->state);
    }
    loom_list_for_each(req, &loom_p2p_engine.generic_active, list) {
        loom_p2p_report_active(seen, &nseen, req->comm, req->op_name, req->op_seq,
                               req->alg_name,
                               req->phase_fn != NULL ? req->phase_fn(req) : NULL);
    }
}

/* ---- pending point-to-point operations ----------------------------------------- */

/** One pending operation, as the report and the failure messages describe it. */
typedef struct loom_p2p_report_op {
    const char *op;      /* recv, send, ssend, probe */
    loom_comm_t comm;
    int         peer;    /* comm rank or LOOM_ANY_SOURCE */
    int         world;   /* world rank or -1 */
    int         tag;     /* or LOOM_ANY_TAG */
    size_t      bytes;
    const char *proto;   /* eager, rndv, sync */
    const char *state;   /* posted, queued, rts-sent, reading, wait-ack */
    int         coll;    /* on the collective context */
} loom_p2p_report_op_t;

/* called for each pending operation; returns nonzero to stop the walk */
typedef int (*loom_p2p_report_fn_t)(const loom_p2p_report_op_t *op, void *arg);

static int loom_p2p_report_recv(loom_request_t req, const char *state,
                                loom_p2p_report_fn_t fn, void *arg)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_p2p_req_t *rq = loom_p2p_req(req);
    const loom_match_posted_t *p = &rq->posted;
    loom_p2p_report_op_t op = { .op = "recv", .comm = req->comm, .peer = p->src,
                                .world = -1, .tag = p->tag, .bytes = rq->len,
                                .state = state, .coll = (int)(p->ctx & 1u) };
    size_t limit = e->max_eager;

    if (req->comm == NULL) {
        return 0;
    }
    if (rq->peer >= 0) {            /* matched: the sender is known */
        op.world = rq->peer;
        op.peer  = req->msg.source;
        op.tag   = req->msg.tag;
        op.bytes = rq->msg_len;
    } else if (p->src >= 0 && p->src < req->comm->remote_size) {
        op.world = loom_comm_peer_world(req->comm, p->src);
    }
    if (op.world >= 0) {
        limit = e->peers[op.world].eager_limit;
    }
    op.proto = (rq->peer >= 0 && (req->flags & LOOM_REQ_FLAG_MATCHED)) || op.bytes > limit
                   ? "rndv" : "eager";
    return fn(&op, arg);
}

static int loom_p2p_report_posted(loom_p2p_report_fn_t fn, void *arg)
{
    loom_match_t *m = &loom_p2p_engine.match;
    loom_match_posted_t *p;

    loom_list_for_each(p, &m->posted_wild, list) {
        if (loom_p2p_report_recv(loom_p2p_req_from_posted(p), "posted", fn, arg)) {
            return 1;
        }
    }
    for (uint32_t b = 0; b < LOOM_MATCH_BUCKETS; ++b) {
        loom_list_for_each(p, &m->posted_bucket[b], list) {
            if (loom_p2p_report_recv(loom_p2p_req_from_posted(p), "posted", fn, arg)) {
                return 1;
            }
        }
    }
    return 0;
}

static int loom_p2p_report_send(loom_request_t req, const char *state,
                                loom_p2p_report_fn_t fn, void *arg)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);
    loom_p2p_report_op_t op = { .op = (req->flags & LOOM_REQ_FLAG_SSEND) ? "ssend" : "send",
                                .comm = req->comm, .peer = req->msg.source,
                                .world = rq->peer, .tag = req->msg.tag, .bytes = rq->len,
                                .proto = "eager", .state = state,
                                .coll = (req->flags & LOOM_REQ_FLAG_COLL) != 0 };

    if (req->flags & LOOM_REQ_FLAG_RNDV) {
        op.proto = "rndv";
        op.state = state != NULL ? state : "rts-sent";
    } else if (req->flags & LOOM_REQ_FLAG_SYNC) {
        op.proto = "sync";
        op.state = state != NULL ? state : "wait-ack";
    }
    return req->comm != NULL && fn(&op, arg);
}

/* 1 if @p req has a frame still queued for @p peer */
static int loom_p2p_report_queued(const loom_p2p_peer_t *peer, loom_request_t req)
{
    const loom_p2p_pending_t *item;

    loom_list_for_each(item, &peer->pending, list) {
        if (item->req == req) {
            return 1;
        }
    }
    return 0;
}

static int loom_p2p_report_peer_sends(loom_p2p_peer_t *peer, loom_p2p_report_fn_t fn,
                                      void *arg)
{
    loom_p2p_pending_t *item;
    loom_request_t req;

    loom_list_for_each(item, &peer->pending, list) {
        if (item->req != NULL && item->req->kind == LOOM_REQ_SEND && !item->req->complete &&
            loom_p2p_report_send(item->req, "queued", fn, arg)) {
            return 1;
        }
    }
    loom_list_for_each(req, &peer->awaiting, list) {
        if (!loom_p2p_report_queued(peer, req) && loom_p2p_report_send(req, NULL, fn, arg)) {
            return 1;
        }
    }
    return 0;
}

/* every blocking loom_probe on the waiter stack */
static int loom_p2p_report_probes(loom_p2p_report_fn_t fn, void *arg)
{
    for (loom_progress_waiter_t *w = loom_p2p_engine.waiter; w != NULL; w = w->prev) {
        loom_p2p_report_op_t op = { .op = "probe", .comm = w->probe_comm,
                                    .peer = w->probe_src, .world = -1, .tag = w->probe_tag,
                                    .bytes = 0, .proto = "eager", .state = "posted" };
        if (w->probe_comm == NULL) {
            continue;
        }
        if (w->probe_src >= 0 && w->probe_src < w->probe_comm->remote_size) {
            op.world = loom_comm_peer_world(w->probe_comm, w->probe_src);
        }
        if (fn(&op, arg)) {
            return 1;
        }
    }
    return 0;
}

/* Walk every pending operation (receives, sends, probes). 1 if @p fn stopped it. */
static int loom_p2p_report_walk(loom_p2p_report_fn_t fn, void *arg)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_p2p_req_t *rq;

    if (loom_p2p_report_posted(fn, arg)) {
        return 1;
    }
    loom_list_for_each(rq, &e->recv_reading, reading) {
        if (loom_p2p_report_recv(loom_p2p_req_from_posted(&rq->posted), "reading", fn,
                                 arg)) {
            return 1;
        }
    }
    for (int r = 0; r < e->world_size; ++r) {
        loom_request_t placed = e->peers[r].place_req;

        /* an eager message arriving in place (a rendezvous one is reading) */
        if (placed != NULL && e->peers[r].place_type != LOOM_P2P_RNDV_DATA &&
            loom_p2p_report_recv(placed, "reading", fn, arg)) {
            return 1;
        }
        if (loom_p2p_report_peer_sends(&e->peers[r], fn, arg)) {
            return 1;
        }
    }
    return loom_p2p_report_probes(fn, arg);
}

typedef struct loom_p2p_report_count {
    int shown;
    int more;
} loom_p2p_report_count_t;

static int loom_p2p_report_pending_line(const loom_p2p_report_op_t *op, void *arg)
{
    loom_p2p_report_count_t *n = arg;
    char name[LOOM_P2P_REPORT_WORD], peer[16], world[16], tag[16];

    if (n->shown == LOOM_P2P_REPORT_MAX_PENDING) {
        ++n->more;
        return 0;
    }
    ++n->shown;
    loom_p2p_report_line("pending op=%s comm=%s peer=%s world=%s tag=%s bytes=%zu "
                         "proto=%s state=%s coll=%d", op->op,
                         loom_p2p_report_word(op->comm->name, name, sizeof(name)),
                         loom_p2p_report_int(op->peer, LOOM_ANY_SOURCE, peer, sizeof(peer)),
                         loom_p2p_report_int(op->world, -1, world, sizeof(world)),
                         loom_p2p_report_int(op->tag, LOOM_ANY_TAG, tag, sizeof(tag)),
                         op->bytes, op->proto, op->state, op->coll);
    return 0;
}

/* ---- the block ------------------------------------------------------------------- */

void loom_p2p_report_write(const loom_progress_waiter_t *w, double waited, int timeout)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_p2p_report_count_t n = { 0, 0 };
    char call[LOOM_P2P_REPORT_WORD], host[LOOM_P2P_REPORT_WORD];

    loom_p2p_report_call(w, call, sizeof(call));
    if (timeout) {
        loom_warn("p2p", "%s: no progress for %.1f s (LOOM_PROGRESS_TIMEOUT); %zu sends "
                  "incomplete, %zu receives posted, %zu unexpected messages; the "
                  "loom-report lines say what this rank waits for", call, waited,
                  e->sends_active, e->match.num_posted, e->match.num_unexp);
    }
    loom_p2p_report_line("begin host=%s waited=%.1f call=%s",
                         loom_p2p_report_word(e->job != NULL ? e->job->hostnames[e->world_rank]
                                                             : NULL, host, sizeof(host)),
                         waited, call);
    loom_p2p_report_colls();
    loom_p2p_report_actives();
    loom_p2p_report_walk(loom_p2p_report_pending_line, &n);
    loom_p2p_report_line("end");
    if (n.more != 0) {
        loom_warn("p2p", "hang report: %d more pending operations not listed", n.more);
    }
}

void loom_p2p_report_asked_run(void)
{
    loom_progress_waiter_t *w = loom_p2p_engine.waiter;

    loom_p2p_report_asked = 0;
    if (w != NULL) {
        loom_p2p_report_write(w, w->start > 0 ? loom_wtime() - w->start : 0.0, 0);
    }
}

/* ---- the operation a peer's failure interrupts -------------------------------- */

typedef struct loom_p2p_report_find {
    int                  peer;   /* world rank */
    int                  found;
    loom_p2p_report_op_t op;
} loom_p2p_report_find_t;

static int loom_p2p_report_match_peer(const loom_p2p_report_op_t *op, void *arg)
{
    loom_p2p_report_find_t *f = arg;

    if (op->world == f->peer ||
        (op->peer == LOOM_ANY_SOURCE && loom_comm_has_world(op->comm, f->peer) &&
         !f->found)) {
        f->op    = *op;
        f->found = op->world == f->peer ? 2 : 1;   /* a named one beats a wildcard */
        return f->found == 2;
    }
    return 0;
}

void loom_p2p_report_pending_with(int peer, char *buf, size_t len)
{
    loom_p2p_report_find_t f = { .peer = peer, .found = 0 };
    const loom_p2p_report_op_t *op = &f.op;
    char call[LOOM_P2P_REPORT_WORD], me[24], rank[24], tag[24];
    int is_recv;

    buf[0] = '\0';
    loom_p2p_report_walk(loom_p2p_report_match_peer, &f);
    if (!f.found || loom_p2p_engine.waiter == NULL) {
        return;
    }
    is_recv = strcmp(op->op, "send") != 0 && strcmp(op->op, "ssend") != 0;
    loom_p2p_report_call(loom_p2p_engine.waiter, call, sizeof(call));
    snprintf(me, sizeof(me), "loom_%s", op->op);
    if (op->peer == LOOM_ANY_SOURCE) {
        snprintf(rank, sizeof(rank), "any rank");
    } else {
        snprintf(rank, sizeof(rank), "rank %d", op->peer);
    }
    if (op->tag == LOOM_ANY_TAG) {
        snprintf(tag, sizeof(tag), "any tag");
    } else {
        snprintf(tag, sizeof(tag), "tag %d", op->tag);
    }
    snprintf(buf, len, "%s%s%s %s %s %s on %s%s (%zu bytes, %s)",
             call, strcmp(call, me) == 0 ? "" : ": ", strcmp(call, me) == 0 ? "" : op->op,
             is_recv ? "from" : "to", rank, tag, op->comm->name,
             op->coll ? " (collective traffic)" : "", op->bytes, op->state);
}
