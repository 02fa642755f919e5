/*
 * loomrun_report.c: parse the ranks' "loom-report" lines, keep each rank's
 * latest block, and build the hang summary (see loomrun_report.h).
 *
 * Everything here is pure: no I/O, no clock, no global state, so the
 * parser can be fuzzed and the summary tested with made-up blocks.
 */
#include "loomrun_report.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the parser ------------------------------------------------------------------- */

typedef enum loomrun_report_ftype {
    LOOMRUN_F_NAME,      /* char[LOOMRUN_REPORT_NAME_MAX] */
    LOOMRUN_F_WORD,      /* char[LOOMRUN_REPORT_WORD_MAX] */
    LOOMRUN_F_COUNT,     /* long >= 0 */
    LOOMRUN_F_RANK,      /* int >= 0, or "any" */
    LOOMRUN_F_TAG,       /* int, or "any" */
    LOOMRUN_F_BYTES,     /* uint64_t */
    LOOMRUN_F_SECS,      /* double >= 0 */
    LOOMRUN_F_FLAG,      /* 0 or 1 */
} loomrun_report_ftype_t;

typedef struct loomrun_report_field {
    const char            *key;
    loomrun_report_ftype_t type;
    size_t                 off;       /* in loomrun_report_rec_t */
    int                    required;
} loomrun_report_field_t;

#define LOOMRUN_RF(key, type, member, req) \
    { key, type, offsetof(loomrun_report_rec_t, u.member), req }

static const loomrun_report_field_t loomrun_report_begin_fields[] = {
    LOOMRUN_RF("host",   LOOMRUN_F_NAME, begin.host,   0),
    LOOMRUN_RF("waited", LOOMRUN_F_SECS, begin.waited, 0),
    LOOMRUN_RF("call",   LOOMRUN_F_WORD, begin.call,   1),
    { NULL, 0, 0, 0 },
};

static const loomrun_report_field_t loomrun_report_coll_fields[] = {
    LOOMRUN_RF("comm",  LOOMRUN_F_NAME,  coll.comm,  1),
    LOOMRUN_RF("count", LOOMRUN_F_COUNT, coll.count, 1),
    { NULL, 0, 0, 0 },
};

static const loomrun_report_field_t loomrun_report_active_fields[] = {
    LOOMRUN_RF("kind",  LOOMRUN_F_WORD,  active.kind,  1),
    LOOMRUN_RF("comm",  LOOMRUN_F_NAME,  active.comm,  1),
    LOOMRUN_RF("seq",   LOOMRUN_F_COUNT, active.seq,   1),
    LOOMRUN_RF("alg",   LOOMRUN_F_WORD,  active.alg,   0),
    LOOMRUN_RF("state", LOOMRUN_F_WORD,  active.state, 0),
    { NULL, 0, 0, 0 },
};

static const loomrun_report_field_t loomrun_report_pending_fields[] = {
    LOOMRUN_RF("op",    LOOMRUN_F_WORD,  pending.op,    1),
    LOOMRUN_RF("comm",  LOOMRUN_F_NAME,  pending.comm,  1),
    LOOMRUN_RF("peer",  LOOMRUN_F_RANK,  pending.peer,  0),
    LOOMRUN_RF("world", LOOMRUN_F_RANK,  pending.world, 1),
    LOOMRUN_RF("tag",   LOOMRUN_F_TAG,   pending.tag,   1),
    LOOMRUN_RF("bytes", LOOMRUN_F_BYTES, pending.bytes, 0),
    LOOMRUN_RF("proto", LOOMRUN_F_WORD,  pending.proto, 0),
    LOOMRUN_RF("state", LOOMRUN_F_WORD,  pending.state, 0),
    LOOMRUN_RF("coll",  LOOMRUN_F_FLAG,  pending.coll,  0),
    { NULL, 0, 0, 0 },
};

static const struct {
    const char                   *name;
    loomrun_report_kind_t         kind;
    const loomrun_report_field_t *fields;
} loomrun_report_kinds[] = {
    { "begin",   LOOMRUN_REPORT_BEGIN,   loomrun_report_begin_fields },
    { "coll",    LOOMRUN_REPORT_COLL,    loomrun_report_coll_fields },
    { "active",  LOOMRUN_REPORT_ACTIVE,  loomrun_report_active_fields },
    { "pending", LOOMRUN_REPORT_PENDING, loomrun_report_pending_fields },
    { "end",     LOOMRUN_REPORT_END,     NULL },
};

/* A bounded decimal integer of exactly @p len bytes. */
static int loomrun_report_long(const char *s, size_t len, long min, long max, long *v_p)
{
    char buf[24], *end;
    long v;

    if (len == 0 || len >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (!(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9'))) {
        return -1;
    }
    errno = 0;
    v = strtol(buf, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max) {
        return -1;
    }
    *v_p = v;
    return 0;
}

static int loomrun_report_any(const char *s, size_t len)
{
    return len == 3 && memcmp(s, "any", 3) == 0;
}

/* Store value @p v (@p len bytes) of field @p f into @p rec. 0 or -1. */
static int loomrun_report_store(const loomrun_report_field_t *f, const char *v, size_t len,
                                loomrun_report_rec_t *rec)
{
    char *dst = (char *)rec + f->off, buf[40], *end;
    long l;

    switch (f->type) {
    case LOOMRUN_F_NAME:
    case LOOMRUN_F_WORD: {
        size_t cap = f->type == LOOMRUN_F_NAME ? LOOMRUN_REPORT_NAME_MAX : LOOMRUN_REPORT_WORD_MAX;
        size_t n = len < cap - 1 ? len : cap - 1;   /* truncated, never overrun */
        if (len == 0) {
            return -1;
        }
        memcpy(dst, v, n);
        dst[n] = '\0';
        return 0;
    }
    case LOOMRUN_F_COUNT:
        if (loomrun_report_long(v, len, 0, LONG_MAX, &l) != 0) {
            return -1;
        }
        memcpy(dst, &l, sizeof(l));
        return 0;
    case LOOMRUN_F_RANK:
    case LOOMRUN_F_TAG: {
        int i = LOOMRUN_REPORT_ANY;
        if (!loomrun_report_any(v, len)) {
            if (loomrun_report_long(v, len, f->type == LOOMRUN_F_RANK ? 0 : INT_MIN, INT_MAX,
                                    &l) != 0) {
                return -1;
            }
            i = (int)l;
        }
        memcpy(dst, &i, sizeof(i));
        return 0;
    }
    case LOOMRUN_F_FLAG: {
        int i;
        if (len != 1 || (v[0] != '0' && v[0] != '1')) {
            return -1;
        }
        i = v[0] - '0';
        memcpy(dst, &i, sizeof(i));
        return 0;
    }
    case LOOMRUN_F_BYTES:
    case LOOMRUN_F_SECS:
        if (len == 0 || len >= sizeof(buf) || v[0] == '-' || v[0] == '+') {
            return -1;
        }
        memcpy(buf, v, len);
        buf[len] = '\0';
        errno = 0;
        if (f->type == LOOMRUN_F_BYTES) {
            unsigned long long u = strtoull(buf, &end, 10);
            uint64_t u64 = (uint64_t)u;
            if (errno != 0 || *end != '\0') {
                return -1;
            }
            memcpy(dst, &u64, sizeof(u64));
        } else {
            double d = strtod(buf, &end);
            if (errno != 0 || *end != '\0' || !isfinite(d) || d < 0) {
                return -1;
            }
            memcpy(dst, &d, sizeof(d));
        }
        return 0;
    }
    return -1;
}

/* The next blank-separated word of [*p, end): its start and length. */
static int loomrun_report_word(const char **p, const char *end, const char **w_p, size_t *n_p)
{
    const char *s = *p, *e;

    while (s < end && (*s == ' ' || *s == '\t')) {
        ++s;
    }
    if (s == end) {
        *p = s;
        return 0;
    }
    for (e = s; e < end && *e != ' ' && *e != '\t'; ++e) {
    }
    *w_p = s;
    *n_p = (size_t)(e - s);
    *p = e;
    return 1;
}

/* The key=value words from @p p on, for the fields of one kind. 0 or -1. */
static int loomrun_report_fields(const char *p, const char *end,
                                 const loomrun_report_field_t *fields, loomrun_report_rec_t *rec)
{
    unsigned seen = 0, need = 0;
    const char *w;
    size_t n;

    for (unsigned i = 0; fields != NULL && fields[i].key != NULL; ++i) {
        need |= fields[i].required ? 1u << i : 0;
    }
    while (loomrun_report_word(&p, end, &w, &n)) {
        const char *eq = memchr(w, '=', n);
        size_t klen;

        if (eq == NULL || fields == NULL) {
            return -1;   /* "end" takes nothing; other words are key=value */
        }
        klen = (size_t)(eq - w);
        for (unsigned i = 0; fields[i].key != NULL; ++i) {
            if (strlen(fields[i].key) == klen && memcmp(fields[i].key, w, klen) == 0) {
                if (loomrun_report_store(&fields[i], eq + 1, n - klen - 1, rec) != 0) {
                    return -1;
                }
                seen |= 1u << i;
            }
        }   /* an unknown key: a newer rank's extra field */
    }
    return (seen & need) == need ? 0 : -1;
}

int loomrun_report_parse(const char *line, size_t len, int nranks, loomrun_report_rec_t *rec)
{
    static const size_t plen = sizeof(LOOMRUN_REPORT_PREFIX) - 1;
    const char *p = line + plen, *end = line + len, *w;
    loomrun_report_rec_t r;
    size_t n;
    long rank;

    if (len < plen || memcmp(line, LOOMRUN_REPORT_PREFIX, plen) != 0) {
        return 0;
    }
    while (end > p && (end[-1] == '\r' || end[-1] == '\n')) {
        --end;
    }
    memset(&r, 0, sizeof(r));
    r.u.pending.peer = r.u.pending.world = r.u.pending.tag = LOOMRUN_REPORT_ANY;
    if (!loomrun_report_word(&p, end, &w, &n) ||
        loomrun_report_long(w, n, 0, (long)nranks - 1, &rank) != 0 ||
        !loomrun_report_word(&p, end, &w, &n)) {
        return -1;
    }
    r.rank = (int)rank;
    for (size_t k = 0; k < sizeof(loomrun_report_kinds) / sizeof(loomrun_report_kinds[0]); ++k) {
        if (strlen(loomrun_report_kinds[k].name) == n &&
            memcmp(loomrun_report_kinds[k].name, w, n) == 0) {
            r.kind = loomrun_report_kinds[k].kind;
            if (loomrun_report_fields(p, end, loomrun_report_kinds[k].fields, &r) != 0) {
                return -1;
            }
            if (r.kind == LOOMRUN_REPORT_PENDING && r.u.pending.world != LOOMRUN_REPORT_ANY &&
                r.u.pending.world >= nranks) {
                return -1;
            }
            *rec = r;
            return 1;
        }
    }
    return -1;
}

/* ---- the blocks ------------------------------------------------------------------- */

int loomrun_report_init(loomrun_report_t *rp, int nranks)
{
    memset(rp, 0, sizeof(*rp));
    rp->latest  = calloc((size_t)nranks, sizeof(*rp->latest));
    rp->reading = calloc((size_t)nranks, sizeof(*rp->reading));
    if (rp->latest == NULL || rp->reading == NULL) {
        loomrun_report_fini(rp);
        return -1;
    }
    rp->nranks = nranks;
    return 0;
}

void loomrun_report_fini(loomrun_report_t *rp)
{
    for (int r = 0; r < rp->nranks; ++r) {
        free(rp->latest[r]);
        free(rp->reading[r]);
    }
    free(rp->latest);
    free(rp->reading);
    memset(rp, 0, sizeof(*rp));
}

void loomrun_report_forget(loomrun_report_t *rp, int rank)
{
    if (rank >= 0 && rank < rp->nranks) {
        free(rp->latest[rank]);
        rp->latest[rank] = NULL;
    }
}

/* A line between begin and end into the block being read. */
static void loomrun_report_put(loomrun_report_block_t *b, const loomrun_report_rec_t *rec)
{
    switch (rec->kind) {
    case LOOMRUN_REPORT_COLL:
        if (b->ncoll < LOOMRUN_REPORT_MAX_COMMS) {
            b->coll[b->ncoll++] = rec->u.coll;
            return;
        }
        break;
    case LOOMRUN_REPORT_ACTIVE:
        if (b->nactive < LOOMRUN_REPORT_MAX_COMMS) {
            b->active[b->nactive++] = rec->u.active;
            return;
        }
        break;
    case LOOMRUN_REPORT_PENDING:
        if (b->npending < LOOMRUN_REPORT_MAX_PENDING) {
            b->pending[b->npending++] = rec->u.pending;
            return;
        }
        break;
    default:
        return;
    }
    ++b->dropped;
}

int loomrun_report_add(loomrun_report_t *rp, const loomrun_report_rec_t *rec, double now)
{
    int r = rec->rank;
    loomrun_report_block_t *b;

    if (r < 0 || r >= rp->nranks) {
        return 0;
    }
    b = rp->reading[r];
    if (rec->kind == LOOMRUN_REPORT_BEGIN) {
        if (b == NULL && (b = rp->reading[r] = malloc(sizeof(*b))) == NULL) {
            return -1;
        }
        memset(b, 0, sizeof(*b));   /* a begin without end before it: restart */
        b->rank   = r;
        b->waited = rec->u.begin.waited;
        memcpy(b->host, rec->u.begin.host, sizeof(b->host));
        memcpy(b->call, rec->u.begin.call, sizeof(b->call));
        return 0;
    }
    if (b == NULL) {
        return 0;                   /* not inside a block */
    }
    if (rec->kind != LOOMRUN_REPORT_END) {
        loomrun_report_put(b, rec);
        return 0;
    }
    b->t_done = now;
    free(rp->latest[r]);
    rp->latest[r]  = b;
    rp->reading[r] = NULL;
    ++rp->generation;
    return 1;
}

/* ---- rank sets ---------------------------------------------------------------------- */

char *loomrun_report_ranks(const uint8_t *set, int nranks, char *buf, size_t len)
{
    size_t off = 0;
    int count = 0;

    for (int r = 0; r < nranks; ++r) {
        count += set[r] != 0;
    }
    off = (size_t)snprintf(buf, len, "%s", count == 1 ? "rank " : "ranks ");
    for (int r = 0, first = 1; r < nranks && off < len; ++r) {
        int e = r;
        if (!set[r]) {
            continue;
        }
        while (e + 1 < nranks && set[e + 1]) {
            ++e;
        }
        if (off + 24 >= len) {
            snprintf(buf + off, len - off, "%s...", first ? "" : ",");
            return buf;
        }
        /* 3-5 but 3,4: a range of two reads better as a list */
        off += (size_t)(e == r ? snprintf(buf + off, len - off, "%s%d", first ? "" : ",", r)
                               : snprintf(buf + off, len - off, "%s%d%c%d", first ? "" : ",",
                                          r, e == r + 1 ? ',' : '-', e));
        first = 0;
        r = e;
    }
    return buf;
}
