/*
 * loomrun_report.h: hang reports, from the ranks' "loom-report" lines to
 * the one summary loomrun prints.
 *
 * A rank whose blocking loom call makes no progress for
 * LOOM_PROGRESS_TIMEOUT seconds, or that gets SIGUSR1 (loomrun sends it
 * before a --timeout teardown), writes a block of lines to its stderr:
 *
 *   loom-report <rank> begin host=<host> waited=<s> call=<loom_allreduce|...>
 *   loom-report <rank> coll comm=<name> count=<collectives started on comm>
 *   loom-report <rank> active kind=<coll> comm=<name> seq=<n> alg=<a> state=<s>
 *   loom-report <rank> pending op=<recv|send|ssend|probe> comm=<name>
 *       peer=<comm rank|any> world=<world rank|any> tag=<tag|any> bytes=<n>
 *       proto=<eager|rndv|sync> state=<posted|queued|rts-sent|...> coll=<0|1>
 *   loom-report <rank> end
 *
 * (the pending line is one line; the protocol, fixed by the lead, is in
 * docs/troubleshooting.md "loomrun's hang summary"). One "coll" line per live
 * communicator with collectives, and always one for WORLD; lines between
 * begin and end come in any order; values hold no spaces; a new block
 * replaces the rank's previous one.
 *
 * Three pure layers, each unit-tested (test/launcher/test_report.c) and the
 * parser fuzzable: loomrun_report_parse turns one line into a record
 * without allocating; a loomrun_report_t keeps, per rank, the block being
 * read and the latest complete one; loomrun_report_summary reads the
 * latest blocks and the ranks' run states and writes the text loomrun
 * prints. The summary groups by communicator: for the highest collective
 * number any rank is inside, the ranks inside it are "waiting", those that
 * have not started it "never entered" it (with what they are blocked in
 * instead), and ranks that did not report are named as such. Then one line
 * per rank that matters: the ones that never entered, the peers they wait
 * for (following the chain), and every rank blocked in point-to-point
 * operations outside a collective; matched pairs of operations that can
 * never meet (tags that differ, two ranks receiving from each other) get a
 * line of their own.
 */
#ifndef LOOMRUN_REPORT_H
#define LOOMRUN_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define LOOMRUN_REPORT_PREFIX      "loom-report "
#define LOOMRUN_REPORT_NAME_MAX    64   /* communicator and host names, truncated */
#define LOOMRUN_REPORT_WORD_MAX    32   /* call, kind, alg, state, op, proto */
#define LOOMRUN_REPORT_MAX_COMMS   32   /* coll / active lines kept per block */
#define LOOMRUN_REPORT_MAX_PENDING 32   /* pending lines kept per block */
#define LOOMRUN_REPORT_ANY         (-1) /* peer, world or tag "any" */

typedef enum loomrun_report_kind {
    LOOMRUN_REPORT_BEGIN = 1,
    LOOMRUN_REPORT_COLL,
    LOOMRUN_REPORT_ACTIVE,
    LOOMRUN_REPORT_PENDING,
    LOOMRUN_REPORT_END,
} loomrun_report_kind_t;

/** "coll comm=... count=..." */
typedef struct loomrun_report_coll {
    char     comm[LOOMRUN_REPORT_NAME_MAX];
    long     count;
} loomrun_report_coll_t;

/** "active kind=... comm=... seq=... alg=... state=..." */
typedef struct loomrun_report_active {
    char     kind[LOOMRUN_REPORT_WORD_MAX];
    char     comm[LOOMRUN_REPORT_NAME_MAX];
    long     seq;
    char     alg[LOOMRUN_REPORT_WORD_MAX];
    char     state[LOOMRUN_REPORT_WORD_MAX];
} loomrun_report_active_t;

/** "pending op=... comm=... peer=... world=... tag=... bytes=... ..." */
typedef struct loomrun_report_pending {
    char     op[LOOMRUN_REPORT_WORD_MAX];
    char     comm[LOOMRUN_REPORT_NAME_MAX];
    int      peer;                 /* comm rank, or LOOMRUN_REPORT_ANY */
    int      world;                /* world rank, or LOOMRUN_REPORT_ANY */
    int      tag;                  /* or LOOMRUN_REPORT_ANY */
    uint64_t bytes;
    char     proto[LOOMRUN_REPORT_WORD_MAX];
    char     state[LOOMRUN_REPORT_WORD_MAX];
    int      coll;                 /* part of an active collective */
} loomrun_report_pending_t;

/** One parsed line. */
typedef struct loomrun_report_rec {
    loomrun_report_kind_t kind;
    int      rank;
    union {
        struct {
            char   host[LOOMRUN_REPORT_NAME_MAX];
            double waited;
            char   call[LOOMRUN_REPORT_WORD_MAX];
        } begin;
        loomrun_report_coll_t    coll;
        loomrun_report_active_t  active;
        loomrun_report_pending_t pending;
    } u;
} loomrun_report_rec_t;

/** A rank's complete report. */
typedef struct loomrun_report_block {
    int      rank;
    char     host[LOOMRUN_REPORT_NAME_MAX];
    double   waited;
    char     call[LOOMRUN_REPORT_WORD_MAX];
    int      ncoll, nactive, npending;
    int      dropped;              /* lines past the limits above */
    loomrun_report_coll_t    coll[LOOMRUN_REPORT_MAX_COMMS];
    loomrun_report_active_t  active[LOOMRUN_REPORT_MAX_COMMS];
    loomrun_report_pending_t pending[LOOMRUN_REPORT_MAX_PENDING];
    double   t_done;               /* when its "end" line came (caller's clock) */
} loomrun_report_block_t;

/** The latest blocks of every rank of a job. */
typedef struct loomrun_report {
    int       nranks;
    loomrun_report_block_t **latest;    /* nranks entries, NULL = none */
    loomrun_report_block_t **reading;   /* begun, no end yet */
    unsigned  generation;               /* +1 per completed block */
} loomrun_report_t;

/** What the summary knows of a rank besides its report. */
typedef enum loomrun_report_run {
    LOOMRUN_REPORT_RUNNING = 0,
    LOOMRUN_REPORT_ENDED,               /* exited or killed */
} loomrun_report_run_t;

/**
 * Parse one line (without its newline; @p len bytes, no NUL needed).
 * Returns 1 and fills @p rec for a well-formed report line, 0 if the line
 * is not a report line (no "loom-report " prefix), -1 if it has the prefix
 * but is malformed (unknown kind, missing or bad field, rank out of
 * [0, @p nranks)). Unknown key=value fields are ignored (newer ranks may
 * add some); @p rec is written only on success. Allocates nothing.
 */
int  loomrun_report_parse(const char *line, size_t len, int nranks, loomrun_report_rec_t *rec);

/** Initialise for @p nranks ranks. 0, or -1 (ENOMEM). */
int  loomrun_report_init(loomrun_report_t *rp, int nranks);

/** Free every block. */
void loomrun_report_fini(loomrun_report_t *rp);

/**
 * Take one parsed line of rank @p rec->rank. "end" completes the block
 * begun by "begin" (which replaces the rank's latest block); lines outside
 * a begin/end pair are dropped. Returns 1 when a block was completed, 0
 * otherwise, -1 out of memory. @p now stamps a completed block.
 */
int  loomrun_report_add(loomrun_report_t *rp, const loomrun_report_rec_t *rec, double now);

/** Forget rank @p rank's blocks (it was seen running again). */
void loomrun_report_forget(loomrun_report_t *rp, int rank);

/**
 * The summary of the latest blocks as lines, each starting with two
 * spaces and ending with a newline; @p run gives every rank's run state
 * (NULL: all running). Returns a malloc'd string (empty when no rank has
 * reported), or NULL out of memory.
 */
char *loomrun_report_summary(const loomrun_report_t *rp, const loomrun_report_run_t *run);

/**
 * Write the ranks of @p set (nranks flags) as "rank 7" or "ranks 0-6,8"
 * into @p buf (truncated with "..." when too long). Returns @p buf.
 */
char *loomrun_report_ranks(const uint8_t *set, int nranks, char *buf, size_t len);

#endif /* LOOMRUN_REPORT_H */
