/*
 * prog_soak.c: randomized point-to-point soak, run by test_soak.sh under
 * loomrun (np 4). Every rank derives the same plan from a seed, round by
 * round: for every (source, destination) pair a few messages, each with a
 * communicator (WORLD, a dup, a split in reverse rank order, a split into
 * halves), a tag (0..3), a size drawn across every protocol boundary (0,
 * small, around the shm slot and eager limits, rendezvous up to 1 MiB) and a
 * send mode (isend or issend). Receivers pick per round and communicator how
 * they receive: fully specified, ANY_SOURCE with a tag, a source with
 * ANY_TAG, or both wildcards; and whether the receives are posted before
 * the sends (expected path), after them (unexpected path) or are blocking
 * loom_recv calls. A barrier ends each round, so a wildcard never takes a
 * message of the next round.
 *
 * Every message of 40 bytes or more starts with a header (magic, source,
 * destination, communicator, tag, sequence number of its stream, length,
 * checksum of the rest); smaller ones hold a pattern derived from the same
 * fields. A stream is (source, communicator, tag): its messages must arrive
 * in order, each exactly once, with the planned length and intact bytes.
 * Zero lost, duplicated, reordered or corrupted messages, or the run fails.
 *
 * Memory: send and receive buffers come from two arenas touched at start;
 * resident memory (/proc/self/statm) is sampled at 10% and 100% of the
 * rounds, and growing by more than LOOM_SOAK_RSS_SLACK_KB (default 4096)
 * fails the run.
 *
 *   prog_soak [MESSAGES [SEED]]   MESSAGES in the whole job (default 100000)
 */
#include <loom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXNP       16
#define NCOMM       4
#define NTAG        4
#define KMAX        12            /* messages per (source, destination) per round */
#define MAXMSG      (MAXNP * KMAX)
#define ARENA       (48u << 20)   /* per direction */
#define HDR_MAGIC   0x4b414f53u   /* "SOAK" */

typedef struct msg_hdr {
    uint32_t magic, src, dst, comm;
    uint32_t tag, rsvd;
    uint64_t seq;
    uint64_t len;
    uint64_t csum;                /* of the bytes after the header */
} msg_hdr_t;

typedef struct planned {
    uint8_t  src, dst, comm, tag, sync;
    size_t   len;
} planned_t;

static int rank, size, failures;
static loom_comm_t comms[NCOMM];
static int comm_rank_of[NCOMM][MAXNP];   /* world -> comm rank (comm 3: in its half) */
static int world_of[NCOMM][MAXNP];       /* comm rank -> world */
static uint64_t send_seq[MAXNP][NCOMM][NTAG], recv_seq[MAXNP][NCOMM][NTAG];
static uint8_t *send_arena, *recv_arena;
static uint64_t msgs_done, bytes_done;

#define FAIL(...)                                                               \
    do {                                                                        \
        fprintf(stderr, "[%d] SOAK FAILED: ", rank);                            \
        fprintf(stderr, __VA_ARGS__);                                           \
        fprintf(stderr, "\n");                                                  \
        if (++failures > 20) {                                                  \
            loom_abort(1, "soak: too many failures");                           \
        }                                                                       \
    } while (0)

/* ---- randomness and patterns ------------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t stream_key(const planned_t *m, uint64_t seq)
{
    return ((uint64_t)m->src << 56 | (uint64_t)m->dst << 48 | (uint64_t)m->comm << 40 |
            (uint64_t)m->tag << 32) ^ (seq * 0x9e3779b97f4a7c15ull);
}

static uint8_t pattern(uint64_t key, size_t i)
{
    return (uint8_t)((key >> (i % 7 * 8)) + i * 131 + (i >> 9));
}

static uint64_t checksum(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; ++i) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

static void fill(uint8_t *p, const planned_t *m, uint64_t seq)
{
    uint64_t key = stream_key(m, seq);
    msg_hdr_t h;

    for (size_t i = 0; i < m->len; ++i) {
        p[i] = pattern(key, i);
    }
    if (m->len >= sizeof(h)) {
        h = (msg_hdr_t){ HDR_MAGIC, m->src, m->dst, m->comm, m->tag, 0, seq, m->len,
                         checksum(p + sizeof(h), m->len - sizeof(h)) };
        memcpy(p, &h, sizeof(h));
    }
}

/* ---- the plan ------------------------------------------------------------------- */

/* sizes across every boundary: tiny, small, around slot/eager limits, rendezvous */
static size_t draw_size(uint64_t *s)
{
    static const size_t edges[] = { 128, 256, 1024, 2048, 4096, 8192, 16384, 65536 };
    uint64_t r = rng_next(s) % 1000;

    if (r < 30) {
        return 0;
    }
    if (r < 300) {
        return 1 + rng_next(s) % 64;
    }
    if (r < 600) {
        return 65 + rng_next(s) % 2000;
    }
    if (r < 900) {
        size_t e = edges[rng_next(s) % (sizeof(edges) / sizeof(edges[0]))];
        return e - 96 + rng_next(s) % 193;
    }
    if (r < 960) {
        return 16384 + rng_next(s) % (64u << 10);
    }
    if (r < 995) {
        return 1 + rng_next(s) % 16;
    }
    return (128u << 10) + rng_next(s) % (896u << 10);
}

/* the halves communicator pairs only ranks of the same parity */
static int comm_valid(int c, int s, int d)
{
    return c != 3 || s % 2 == d % 2;
}

/* every rank computes the same plan for round @p round; returns its length */
static size_t make_plan(uint64_t seed, uint64_t round, planned_t *plan)
{
    uint64_t st = seed ^ (round * 0xd1b54a32d192ed03ull);
    size_t n = 0, sent[MAXNP] = { 0 }, recvd[MAXNP] = { 0 };

    for (int s = 0; s < size; ++s) {
        for (int d = 0; d < size; ++d) {
            int k = (int)(rng_next(&st) % (KMAX + 1));
            for (int j = 0; j < k; ++j) {
                planned_t *m = &plan[n++];
                int c;
                do {
                    c = (int)(rng_next(&st) % NCOMM);
                } while (!comm_valid(c, s, d));
                m->src  = (uint8_t)s;
                m->dst  = (uint8_t)d;
                m->comm = (uint8_t)c;
                m->tag  = (uint8_t)(rng_next(&st) % NTAG);
                m->sync = rng_next(&st) % 10 == 0;
                m->len  = draw_size(&st);
                /* keep a round inside the arenas (with room for slack) */
                if (sent[s] + m->len > ARENA / 4 || recvd[d] + m->len > ARENA / 4) {
                    m->len %= 4096;
                }
                sent[s] += m->len;
                recvd[d] += m->len;
            }
        }
    }
    return n;
}

/* ---- checking a received message --------------------------------------------------- */

/* @p exp: the planned message this one must be (its stream's next) */
static void check_msg(const uint8_t *p, size_t bytes, const planned_t *exp, uint64_t seq)
{
    msg_hdr_t h;

    if (bytes != exp->len) {
        FAIL("stream src %d comm %d tag %d seq %llu: %zu bytes, planned %zu", exp->src,
             exp->comm, exp->tag, (unsigned long long)seq, bytes, exp->len);
        return;
    }
    if (bytes >= sizeof(h)) {
        memcpy(&h, p, sizeof(h));
        if (h.magic != HDR_MAGIC || h.src != exp->src || h.dst != exp->dst ||
            h.comm != exp->comm || h.tag != exp->tag || h.len != bytes) {
            FAIL("stream src %d comm %d tag %d: bad header (magic %08x src %u comm %u tag "
                 "%u len %llu)", exp->src, exp->comm, exp->tag, h.magic, h.src, h.comm,
                 h.tag, (unsigned long long)h.len);
        } else if (h.seq != seq) {
            FAIL("stream src %d comm %d tag %d: sequence %llu, expected %llu (%s)",
                 exp->src, exp->comm, exp->tag, (unsigned long long)h.seq,
                 (unsigned long long)seq, h.seq < seq ? "duplicate or reordered" : "lost");
        } else if (h.csum != checksum(p + sizeof(h), bytes - sizeof(h))) {
            FAIL("stream src %d comm %d tag %d seq %llu: checksum mismatch (%zu bytes)",
                 exp->src, exp->comm, exp->tag, (unsigned long long)seq, bytes);
        }
        return;
    }
    uint64_t key = stream_key(exp, seq);
    for (size_t i = 0; i < bytes; ++i) {
        if (p[i] != pattern(key, i)) {
            FAIL("stream src %d comm %d tag %d seq %llu: byte %zu of %zu differs", exp->src,
                 exp->comm, exp->tag, (unsigned long long)seq, i, bytes);
            return;
        }
    }
}

/* ---- one round -------------------------------------------------------------------- */

typedef struct rx {
    uint8_t        comm;
    uint8_t       *buf;
} rx_t;

typedef struct round_state {
    planned_t   *plan;
    size_t       nplan;
    /* per stream (src, comm, tag) this round: planned messages in order */
    const planned_t *queue[MAXNP][NCOMM][NTAG][KMAX];
    int          qlen[MAXNP][NCOMM][NTAG], qpos[MAXNP][NCOMM][NTAG];
    rx_t         rx[MAXMSG];
    loom_request_t rxreq[MAXMSG];
    size_t       nrx, recv_off;
    loom_request_t tx[MAXMSG];
    size_t       ntx;
} round_state_t;

/* a receive completed with @p st: find its stream's next planned message */
static void on_recv(round_state_t *r, const rx_t *x, const loom_msg_status_t *st)
{
    int src = st->source >= 0 && st->source < size ? world_of[x->comm][st->source] : -1;
    int tag = st->tag;

    if (src < 0 || tag < 0 || tag >= NTAG) {
        FAIL("comm %d: message from unexpected source %d tag %d", x->comm, st->source, tag);
        return;
    }
    int *pos = &r->qpos[src][x->comm][tag];
    if (*pos >= r->qlen[src][x->comm][tag]) {
        FAIL("stream src %d comm %d tag %d: one message more than the %d planned (duplicate)",
             src, x->comm, tag, r->qlen[src][x->comm][tag]);
        return;
    }
    check_msg(x->buf, st->bytes, r->queue[src][x->comm][tag][*pos],
              recv_seq[src][x->comm][tag]);
    ++*pos;
    ++recv_seq[src][x->comm][tag];
    ++msgs_done;
    bytes_done += st->bytes;
}

static uint8_t *recv_alloc(round_state_t *r, size_t len)
{
    uint8_t *p;

    len = (len + 63) & ~(size_t)63;
    if (r->recv_off + len > ARENA) {
        return NULL;
    }
    p = recv_arena + r->recv_off;
    r->recv_off += len;
    return p;
}

/* receives for messages @p idx[0..n) of one group (same receive pattern) */
static void post_group(round_state_t *r, int c, int src, int tag, const size_t *idx,
                       size_t n, int blocking)
{
    size_t maxlen = 0;

    for (size_t i = 0; i < n; ++i) {
        maxlen = r->plan[idx[i]].len > maxlen ? r->plan[idx[i]].len : maxlen;
    }
    for (size_t i = 0; i < n; ++i) {
        rx_t *x = &r->rx[r->nrx];
        const planned_t *m = &r->plan[idx[i]];
        int s = src == LOOM_ANY_SOURCE ? LOOM_ANY_SOURCE : comm_rank_of[c][m->src];
        int t = tag == LOOM_ANY_TAG ? LOOM_ANY_TAG : m->tag;
        size_t len = src == LOOM_ANY_SOURCE || tag == LOOM_ANY_TAG ? maxlen : m->len;

        x->comm = (uint8_t)c;
        x->buf  = recv_alloc(r, len + 1);
        if (x->buf == NULL) {
            loom_abort(1, "soak: receive arena exhausted");
        }
        if (blocking) {
            loom_msg_status_t st;
            if (loom_recv(x->buf, len, LOOM_BYTE, s, t, comms[c], &st) != LOOM_OK) {
                FAIL("loom_recv(src %d, tag %d) on comm %d failed", s, t, c);
                continue;
            }
            on_recv(r, x, &st);
            continue;
        }
        if (loom_irecv(x->buf, len, LOOM_BYTE, s, t, comms[c], &r->rxreq[r->nrx]) !=
            LOOM_OK) {
            FAIL("loom_irecv(src %d, tag %d) on comm %d failed", s, t, c);
            continue;
        }
        ++r->nrx;
    }
}

/* this rank's receives of the round, communicator by communicator */
static void post_receives(round_state_t *r, uint64_t *st, int blocking)
{
    size_t idx[MAXMSG];

    for (int c = 0; c < NCOMM; ++c) {
        int mode = (int)(rng_next(st) % 4);   /* 0 exact, 1 any/any, 2 any/tag, 3 src/any */
        for (int a = 0; a < (mode == 1 ? 1 : mode == 2 ? NTAG : mode == 3 ? size : 1); ++a) {
            size_t n = 0;
            for (size_t i = 0; i < r->nplan; ++i) {
                const planned_t *m = &r->plan[i];
                if (m->dst != rank || m->comm != c || (mode == 2 && m->tag != a) ||
                    (mode == 3 && m->src != a)) {
                    continue;
                }
                idx[n++] = i;
            }
            if (n == 0) {
                continue;
            }
            if (mode == 0) {      /* in plan order: each stream's order holds */
                for (size_t i = 0; i < n; ++i) {
                    post_group(r, c, 0, 0, &idx[i], 1, blocking);
                }
            } else {
                post_group(r, c, mode == 3 ? 0 : LOOM_ANY_SOURCE,
                           mode == 2 ? 0 : LOOM_ANY_TAG, idx, n, blocking);
            }
        }
    }
}

static void post_sends(round_state_t *r)
{
    size_t off = 0;

    for (size_t i = 0; i < r->nplan; ++i) {
        const planned_t *m = &r->plan[i];
        uint64_t *seq;
        uint8_t *p;
        loom_status_t st;

        if (m->src != rank) {
            continue;
        }
        seq = &send_seq[m->dst][m->comm][m->tag];
        p = send_arena + off;
        off += (m->len + 63) & ~(size_t)63;
        fill(p, m, (*seq)++);
        st = (m->sync ? loom_issend : loom_isend)(p, m->len, LOOM_BYTE,
                                                  comm_rank_of[m->comm][m->dst], m->tag,
                                                  comms[m->comm], &r->tx[r->ntx]);
        if (st != LOOM_OK) {
            FAIL("isend of %zu bytes to %d failed: %s", m->len, m->dst, loom_strerror(st));
            continue;
        }
        ++r->ntx;
    }
}

static void complete_receives(round_state_t *r, int use_test)
{
    for (size_t done = 0; done < r->nrx;) {
        loom_msg_status_t st;
        size_t i;
        int flag = 1;
        loom_status_t s;

        s = use_test ? loom_testany(r->nrx, r->rxreq, &i, &flag, &st)
                     : loom_waitany(r->nrx, r->rxreq, &i, &st);
        if (s != LOOM_OK) {
            FAIL("waitany/testany: %s", loom_strerror(s));
            return;
        }
        if (!flag) {
            continue;
        }
        on_recv(r, &r->rx[i], &st);
        ++done;
    }
}

static void run_round(round_state_t *r, uint64_t seed, uint64_t round)
{
    uint64_t st = seed ^ (round * 0xa0761d6478bd642full) ^ ((uint64_t)rank << 17);
    int order = (int)(rng_next(&st) % 3);   /* 0 receives first, 1 sends first, 2 blocking */

    memset(r->qlen, 0, sizeof(r->qlen));
    memset(r->qpos, 0, sizeof(r->qpos));
    r->nplan = make_plan(seed, round, r->plan);
    r->nrx = r->ntx = r->recv_off = 0;
    for (size_t i = 0; i < r->nplan; ++i) {
        const planned_t *m = &r->plan[i];
        if (m->dst == rank) {
            r->queue[m->src][m->comm][m->tag][r->qlen[m->src][m->comm][m->tag]++] = m;
        }
    }
    if (order == 0) {
        post_receives(r, &st, 0);
        post_sends(r);
    } else {
        post_sends(r);
        post_receives(r, &st, order == 2);
    }
    complete_receives(r, rng_next(&st) % 2);
    if (loom_waitall(r->ntx, r->tx, NULL) != LOOM_OK) {
        FAIL("waitall of %zu sends failed", r->ntx);
    }
    for (int s = 0; s < size; ++s) {
        for (int c = 0; c < NCOMM; ++c) {
            for (int t = 0; t < NTAG; ++t) {
                if (r->qpos[s][c][t] != r->qlen[s][c][t]) {
                    FAIL("round %llu stream src %d comm %d tag %d: %d of %d messages "
                         "arrived (lost)", (unsigned long long)round, s, c, t,
                         r->qpos[s][c][t], r->qlen[s][c][t]);
                }
            }
        }
    }
    if (loom_barrier(LOOM_COMM_WORLD) != LOOM_OK) {
        FAIL("barrier after round %llu", (unsigned long long)round);
    }
}

/* ---- setup, memory, main ---------------------------------------------------------- */

static long rss_kb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    if (f == NULL || fscanf(f, "%ld %ld", &pages, &resident) != 2) {
        resident = -1;
    }
    if (f != NULL) {
        fclose(f);
    }
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* WORLD, a dup, WORLD in reverse order, halves by parity (in world order) */
static int setup_comms(void)
{
    comms[0] = LOOM_COMM_WORLD;
    if (loom_comm_dup(LOOM_COMM_WORLD, &comms[1]) != LOOM_OK ||
        loom_comm_split(LOOM_COMM_WORLD, 0, size - rank, &comms[2]) != LOOM_OK ||
        loom_comm_split(LOOM_COMM_WORLD, rank % 2, rank, &comms[3]) != LOOM_OK) {
        return -1;
    }
    /* the same table on every rank (the plan uses it for every pair) */
    for (int w = 0; w < size; ++w) {
        comm_rank_of[0][w] = comm_rank_of[1][w] = w;
        comm_rank_of[2][w] = size - 1 - w;
        comm_rank_of[3][w] = w / 2;
    }
    for (int c = 0; c < NCOMM; ++c) {
        for (int r = 0; r < loom_comm_size(comms[c]); ++r) {
            world_of[c][r] = loom_comm_world_rank(comms[c], r);
            if (world_of[c][r] < 0 || comm_rank_of[c][world_of[c][r]] != r) {
                fprintf(stderr, "[%d] comm %d: rank %d is world rank %d, not as split "
                        "promised\n", rank, c, r, world_of[c][r]);
                return -1;
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 12345;
    const char *slack_env = getenv("LOOM_SOAK_RSS_SLACK_KB");
    long slack = slack_env ? atol(slack_env) : 4096, rss10 = -1, rss50 = -1, rss100;
    static round_state_t rs;
    static planned_t plan[MAXNP * MAXNP * KMAX];
    uint64_t round = 0, planned_total = 0, sums[3], mine[3];
    double t0;

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 1;
    }
    rank = loom_rank();
    size = loom_size();
    if (size > MAXNP || setup_comms() != 0) {
        fprintf(stderr, "[%d] soak: setup failed (np %d, at most %d)\n", rank, size, MAXNP);
        return 1;
    }
    send_arena = malloc(ARENA);
    recv_arena = malloc(ARENA);
    if (send_arena == NULL || recv_arena == NULL) {
        return 1;
    }
    /* touch every page now (not 0: malloc + memset 0 may become calloc) */
    memset(send_arena, 0xa5, ARENA);
    memset(recv_arena, 0x5a, ARENA);
    rs.plan = plan;
    t0 = loom_wtime();
    while (planned_total < total) {
        run_round(&rs, seed, round++);
        planned_total += rs.nplan;
        if (rss10 < 0 && planned_total * 10 >= total) {
            rss10 = rss_kb();
        }
        if (rss50 < 0 && planned_total * 2 >= total) {
            rss50 = rss_kb();
        }
    }
    rss100 = rss_kb();
    mine[0] = msgs_done;
    mine[1] = bytes_done;
    mine[2] = (uint64_t)failures;
    loom_allreduce(mine, sums, 3, LOOM_UINT64, LOOM_SUM, LOOM_COMM_WORLD);
    if (sums[0] != planned_total) {
        FAIL("%llu messages received in the job, %llu planned",
             (unsigned long long)sums[0], (unsigned long long)planned_total);
    }
    if (rss10 < 0 || rss100 - rss10 > slack) {
        FAIL("resident memory grew from %ld KiB (10%%) to %ld KiB (100%%): more than %ld "
             "KiB", rss10, rss100, slack);
    }
    printf("[%d] rss %ld KiB at 10%%, %ld KiB at 50%%, %ld KiB at 100%% (%+ld KiB)\n", rank,
           rss10, rss50, rss100, rss100 - rss10);
    fflush(stdout);
    loom_barrier(LOOM_COMM_WORLD);
    if (rank == 0) {
        printf("soak: %llu messages (%.1f MiB) in %llu rounds on %d ranks, %.1f s, "
               "%llu failures\n", (unsigned long long)sums[0], (double)sums[1] / 1048576.0,
               (unsigned long long)round, size, loom_wtime() - t0,
               (unsigned long long)sums[2]);
    }
    loom_comm_free(&comms[1]);
    loom_comm_free(&comms[2]);
    loom_comm_free(&comms[3]);
    if (loom_finalize() != LOOM_OK) {
        FAIL("loom_finalize");
    }
    if (failures == 0 && rank == 0) {
        printf("OK soak\n");
    }
    free(send_arena);
    free(recv_arena);
    return failures != 0;
}
