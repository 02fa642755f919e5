/*
 * prog_p2p.c: multi-rank point-to-point checks, run by test_p2p.sh under
 * loomrun. One program, one mode per invocation:
 *
 *   sizes [MAX] ring exchange at every size 0..64 MiB (or MAX) across the eager /
 *              rendezvous boundary, receives pre-posted and not, data checked
 *   wildcard   every rank floods rank 0, which receives with ANY_SOURCE /
 *              ANY_TAG mixes; per-(source) order and contents checked
 *   many       10,000 outstanding receives and sends per rank
 *   bothsend   pairs send first (blocking eager, more than the rings hold),
 *              then receive: must not deadlock
 *   random S   seeded random traffic (sizes, tags, destinations); every rank
 *              derives the whole plan from S and checks what it receives
 *              against the log it expects
 *   misc       ssend, truncation, probe, cancel across processes
 *   direct     blocking receives that find their partner's frames already
 *              waiting: another tag, communicator or protocol first, an
 *              earlier wildcard receive, truncation, any tag
 *   badinput   errors with LOOM_ERRORS=return (rank = size, tags, ...)
 *   abort      LOOM_ERRORS=abort: an invalid rank must abort the job
 *   huge       one message of 2 GiB + 3 MiB (rank 0 to the last rank)
 *   unmatched  erroneous on purpose: every rank isends 1 MiB (rendezvous) and
 *              issends 4 bytes to the next rank with tags nobody receives,
 *              frees both requests and finalizes: finalize must end (each
 *              receiver NAKs, each sender warns) instead of hanging
 *   late       rank 1 sends 2.5 s late (LOOM_PROGRESS_TIMEOUT reports)
 *   hang       never returns (np 4; for the hang report test, test_report.sh):
 *              every rank dups WORLD, then rank 0 isends 1 MiB to rank 1
 *              tag 7 (never received: rendezvous), issends 4 bytes to rank 2
 *              tag 8 (never received) and receives 4 bytes from
 *              LOOM_ANY_SOURCE tag 3 (never sent); rank 1 probes rank 0
 *              tag 5; rank 2 receives 16 bytes from rank 1, any tag, on the
 *              dup; rank 3 enters an allreduce on WORLD that nobody else does
 *
 * Prints "OK <mode>" on rank 0 and exits 0 when everything held; any
 * failure prints what differed and exits 1.
 */
#include <loom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, failures;

#define LOOM_HUGE_MIN(a, b) ((a) < (b) ? (a) : (b))

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "[%d] FAILED %s:%d: %s: ", rank, __FILE__, __LINE__, \
                    #cond);                                                     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            ++failures;                                                         \
        }                                                                       \
    } while (0)

#define OKCALL(call) CHECK((call) == LOOM_OK, "%s", #call)

static uint8_t pattern(size_t i, unsigned seed)
{
    return (uint8_t)(i * 131 + seed * 17 + (i >> 11));
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; ++i) {
        p[i] = pattern(i, seed);
    }
}

static size_t verify(const uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; ++i) {
        if (p[i] != pattern(i, seed)) {
            return i;
        }
    }
    return (size_t)-1;
}

/* zero-byte ring token: a cheap barrier-like synchronization */
static void sync_all(void)
{
    char c = 0;
    if (size == 1) {
        return;
    }
    for (int round = 0; round < 2; ++round) {
        if (rank == 0) {
            OKCALL(loom_send(&c, 0, LOOM_BYTE, 1, 999999, LOOM_COMM_WORLD));
            OKCALL(loom_recv(&c, 0, LOOM_BYTE, size - 1, 999999, LOOM_COMM_WORLD, NULL));
        } else {
            OKCALL(loom_recv(&c, 0, LOOM_BYTE, rank - 1, 999999, LOOM_COMM_WORLD, NULL));
            OKCALL(loom_send(&c, 0, LOOM_BYTE, (rank + 1) % size, 999999, LOOM_COMM_WORLD));
        }
    }
}

/* ---- sizes ---------------------------------------------------------------------- */

static void mode_sizes(size_t max)
{
    static const size_t sizes[] = {
        0, 1, 8, 63, 64, 100, 1000, 4000, 4064, 4065, 4096, 4097, 8000, 8192, 8193,
        12345, 65536, 100000, 1u << 20, (1u << 20) + 1, 8u << 20, 64u << 20,
    };
    uint8_t *s = malloc(max), *r = malloc(max + 64);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && sizes[k] <= max; ++k) {
        for (int preposted = 0; preposted < 2; ++preposted) {
            size_t n = sizes[k], bad;
            loom_request_t rq, sq;
            loom_msg_status_t st;

            fill(s, n, (unsigned)(rank * 1000 + k));
            memset(r, 0xee, n + 64);
            if (preposted) {
                OKCALL(loom_irecv(r, n + 64, LOOM_BYTE, left, (int)k, LOOM_COMM_WORLD, &rq));
                sync_all();
                OKCALL(loom_isend(s, n, LOOM_BYTE, right, (int)k, LOOM_COMM_WORLD, &sq));
            } else {
                OKCALL(loom_isend(s, n, LOOM_BYTE, right, (int)k, LOOM_COMM_WORLD, &sq));
                sync_all();  /* the message is (likely) unexpected when posted */
                OKCALL(loom_irecv(r, n + 64, LOOM_BYTE, left, (int)k, LOOM_COMM_WORLD, &rq));
            }
            OKCALL(loom_wait(&rq, &st));
            OKCALL(loom_wait(&sq, NULL));
            CHECK(st.bytes == n && st.source == left && st.tag == (int)k,
                  "size %zu: status bytes %zu source %d tag %d", n, st.bytes, st.source,
                  st.tag);
            bad = verify(r, n, (unsigned)(left * 1000 + k));
            CHECK(bad == (size_t)-1, "size %zu (preposted %d): byte %zu differs", n,
                  preposted, bad);
            CHECK(r[n] == 0xee, "size %zu: wrote past the message", n);
        }
    }
    free(s);
    free(r);
}

/* ---- wildcard storm ------------------------------------------------------------- */

#define STORM_N 400

static size_t storm_size(int src, int i)
{
    /* mostly small, every 7th above any eager limit */
    return (i % 7 == 3) ? 20000 + (size_t)src * 10 : (size_t)((i * 13 + src) % 300) + 8;
}

static void mode_wildcard(void)
{
    uint8_t *buf = malloc(30000);

    if (rank != 0) {
        for (int i = 0; i < STORM_N; ++i) {
            size_t n = storm_size(rank, i);
            fill(buf, n, (unsigned)(rank * 7919 + i));
            memcpy(buf, &i, sizeof(i));
            OKCALL(loom_send(buf, n, LOOM_BYTE, 0, i % 5, LOOM_COMM_WORLD));
        }
    } else {
        int *next = calloc((size_t)size, sizeof(int));
        int total = (size - 1) * STORM_N;
        for (int k = 0; k < total; ++k) {
            loom_msg_status_t st;
            int idx = -1, src;
            /* any source, any tag: per-source order must hold */
            OKCALL(loom_recv(buf, 30000, LOOM_BYTE, LOOM_ANY_SOURCE, LOOM_ANY_TAG,
                             LOOM_COMM_WORLD, &st));
            src = st.source;
            CHECK(src > 0 && src < size, "bad source %d", src);
            if (src <= 0 || src >= size) {
                break;
            }
            memcpy(&idx, buf, sizeof(idx));
            CHECK(idx == next[src], "from %d: got message %d, expected %d", src, idx,
                  next[src]);
            CHECK(st.tag == idx % 5 && st.bytes == storm_size(src, idx),
                  "from %d msg %d: tag %d bytes %zu", src, idx, st.tag, st.bytes);
            next[src] = idx + 1;
        }
        free(next);
    }
    sync_all();
    /* phase 2: rank 0 takes tags in reverse order with ANY_SOURCE */
    if (rank != 0) {
        for (int i = 0; i < 50; ++i) {
            int v = rank * 1000 + i;
            OKCALL(loom_send(&v, 1, LOOM_INT32, 0, i % 5, LOOM_COMM_WORLD));
        }
    } else {
        for (int tag = 4; tag >= 0; --tag) {
            int last[64];
            for (int s = 0; s < 64; ++s) {
                last[s] = -1;
            }
            for (int k = 0; k < (size - 1) * 10; ++k) {
                loom_msg_status_t st;
                int v;
                OKCALL(loom_recv(&v, 1, LOOM_INT32, LOOM_ANY_SOURCE, tag, LOOM_COMM_WORLD, &st));
                CHECK(v / 1000 == st.source && (v % 1000) % 5 == tag && v % 1000 > last[st.source],
                      "tag %d: got %d from %d after %d", tag, v, st.source, last[st.source]);
                last[st.source] = v % 1000;
            }
        }
    }
    free(buf);
}

/* ---- 10,000 outstanding ------------------------------------------------------------ */

static void mode_many(void)
{
    enum { N = 10000 };
    int *in = malloc(N * sizeof(int)), *out = malloc(N * sizeof(int));
    loom_request_t *reqs = malloc(2 * N * sizeof(*reqs));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (int i = 0; i < N; ++i) {
        in[i] = rank * N + i;
        out[i] = -1;
        OKCALL(loom_irecv(&out[i], 1, LOOM_INT32, left, i % 3, LOOM_COMM_WORLD, &reqs[i]));
    }
    for (int i = 0; i < N; ++i) {
        OKCALL(loom_isend(&in[i], 1, LOOM_INT32, right, i % 3, LOOM_COMM_WORLD, &reqs[N + i]));
    }
    OKCALL(loom_waitall(2 * N, reqs, NULL));
    for (int i = 0; i < N; ++i) {
        if (out[i] != left * N + i) {
            CHECK(0, "receive %d got %d, expected %d", i, out[i], left * N + i);
            break;
        }
    }
    free(in);
    free(out);
    free(reqs);
}

/* ---- both sides send first -------------------------------------------------------- */

/* never returns: every rank blocks in a different way (see the header) */
static void mode_hang(void)
{
    static uint8_t big[1 << 20];
    uint8_t small[16] = { 0 };
    int one = 1, sum = 0;
    loom_comm_t dup;
    loom_request_t r1, r2;

    OKCALL(loom_comm_dup(LOOM_COMM_WORLD, &dup));
    printf("HANG READY %d\n", rank);
    fflush(stdout);
    switch (rank) {
    case 0:
        OKCALL(loom_isend(big, sizeof(big), LOOM_BYTE, 1, 7, LOOM_COMM_WORLD, &r1));
        OKCALL(loom_issend(small, 4, LOOM_BYTE, 2, 8, LOOM_COMM_WORLD, &r2));
        OKCALL(loom_recv(small, 4, LOOM_BYTE, LOOM_ANY_SOURCE, 3, LOOM_COMM_WORLD, NULL));
        break;
    case 1:
        OKCALL(loom_probe(0, 5, LOOM_COMM_WORLD, NULL));
        break;
    case 2:
        OKCALL(loom_recv(small, sizeof(small), LOOM_BYTE, 1, LOOM_ANY_TAG, dup, NULL));
        break;
    default:
        OKCALL(loom_allreduce(&one, &sum, 1, LOOM_INT32, LOOM_SUM, LOOM_COMM_WORLD));
        break;
    }
    fprintf(stderr, "[%d] mode hang: a blocking call returned\n", rank);
    ++failures;
}

static void mode_bothsend(void)
{
    enum { N = 2000, LEN = 3000 };
    int partner = rank ^ 1;
    static uint8_t big_s[1 << 20], big_r[1 << 20];
    loom_request_t rq;
    uint8_t *buf;

    if (partner >= size) {
        return;
    }
    buf = malloc(LEN);
    /* far more than the rings hold: the sender must drain incoming meanwhile */
    for (int i = 0; i < N; ++i) {
        fill(buf, LEN, (unsigned)(rank + i));
        OKCALL(loom_send(buf, LEN, LOOM_BYTE, partner, 1, LOOM_COMM_WORLD));
    }
    for (int i = 0; i < N; ++i) {
        size_t bad;
        OKCALL(loom_recv(buf, LEN, LOOM_BYTE, partner, 1, LOOM_COMM_WORLD, NULL));
        bad = verify(buf, LEN, (unsigned)(partner + i));
        CHECK(bad == (size_t)-1, "message %d: byte %zu differs", i, bad);
    }
    /* rendezvous both ways at once (nonblocking send, blocking receive) */
    fill(big_s, sizeof(big_s), (unsigned)rank);
    OKCALL(loom_isend(big_s, sizeof(big_s), LOOM_BYTE, partner, 2, LOOM_COMM_WORLD, &rq));
    OKCALL(loom_recv(big_r, sizeof(big_r), LOOM_BYTE, partner, 2, LOOM_COMM_WORLD, NULL));
    OKCALL(loom_wait(&rq, NULL));
    CHECK(verify(big_r, sizeof(big_r), (unsigned)partner) == (size_t)-1, "1 MiB differs");
    free(buf);
}

/* ---- seeded random traffic -------------------------------------------------------- */

typedef struct plan_msg {
    int    src, dst, tag, idx;   /* idx: position in the sender's sequence */
    size_t len;
} plan_msg_t;

static uint64_t rng_state;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t plan_len(void)
{
    uint64_t r = rng() % 100;
    if (r < 60) {
        return rng() % 64;
    }
    if (r < 90) {
        return rng() % 8192;
    }
    if (r < 98) {
        return rng() % 200000;
    }
    return rng() % (3u << 20);
}

static plan_msg_t *plan_make(uint64_t seed, int per_rank, int *count_p)
{
    int total = size * per_rank;
    plan_msg_t *plan = malloc((size_t)total * sizeof(*plan));

    rng_state = seed * 2654435761u + 1;
    for (int s = 0, k = 0; s < size; ++s) {
        for (int i = 0; i < per_rank; ++i, ++k) {
            plan[k].src = s;
            plan[k].dst = (int)(rng() % (uint64_t)size);
            plan[k].tag = (int)(rng() % 4);
            plan[k].idx = i;
            plan[k].len = plan_len();
        }
    }
    *count_p = total;
    return plan;
}

static void mode_random(uint64_t seed)
{
    enum { PER_RANK = 300, WINDOW = 16 };
    int total, expected = 0, *cursor = calloc((size_t)size, sizeof(int));
    plan_msg_t *plan = plan_make(seed, PER_RANK, &total);
    loom_request_t *sreqs = malloc(PER_RANK * sizeof(*sreqs));
    uint8_t **sbufs = malloc(PER_RANK * sizeof(*sbufs));
    uint8_t *rbuf = malloc(3u << 20);
    int nsend = 0;

    for (int k = 0; k < total; ++k) {
        expected += plan[k].dst == rank;
    }
    /* my sends, nonblocking, all at once */
    for (int k = rank * PER_RANK; k < (rank + 1) * PER_RANK; ++k) {
        uint8_t *b = malloc(plan[k].len + sizeof(int));
        fill(b, plan[k].len, (unsigned)(k * 31));
        if (plan[k].len >= sizeof(int)) {
            memcpy(b, &plan[k].idx, sizeof(int));
        }
        OKCALL(loom_isend(b, plan[k].len, LOOM_BYTE, plan[k].dst, plan[k].tag,
                          LOOM_COMM_WORLD, &sreqs[nsend]));
        sbufs[nsend++] = b;
        if (nsend % WINDOW == 0) {
            loom_progress();
        }
    }
    /* receive with wildcards; each message must be the next expected from its
     * source (any tag: per-source order) */
    for (int got = 0; got < expected; ++got) {
        loom_msg_status_t st;
        int src, k;
        OKCALL(loom_recv(rbuf, 3u << 20, LOOM_BYTE, LOOM_ANY_SOURCE, LOOM_ANY_TAG,
                         LOOM_COMM_WORLD, &st));
        src = st.source;
        if (src < 0 || src >= size) {
            CHECK(0, "bad source %d", src);
            break;
        }
        /* find the source's next message to me in the plan */
        for (k = src * PER_RANK + cursor[src]; k < (src + 1) * PER_RANK && plan[k].dst != rank; ++k) {
        }
        if (k >= (src + 1) * PER_RANK) {
            CHECK(0, "unexpected extra message from %d", src);
            break;
        }
        cursor[src] = k - src * PER_RANK + 1;
        CHECK(st.tag == plan[k].tag && st.bytes == plan[k].len,
              "seed %llu: from %d expected msg %d (tag %d, %zu bytes), got tag %d, %zu bytes",
              (unsigned long long)seed, src, plan[k].idx, plan[k].tag, plan[k].len, st.tag,
              st.bytes);
        if (st.bytes == plan[k].len && plan[k].len >= sizeof(int)) {
            int idx;
            memcpy(&idx, rbuf, sizeof(idx));
            CHECK(idx == plan[k].idx, "from %d: got message %d, expected %d", src, idx,
                  plan[k].idx);
        }
    }
    OKCALL(loom_waitall((size_t)nsend, sreqs, NULL));
    for (int i = 0; i < nsend; ++i) {
        free(sbufs[i]);
    }
    free(sbufs);
    free(plan);
    free(cursor);
    free(sreqs);
    free(rbuf);
}

/* ---- misc: ssend, truncation, probe, cancel ------------------------------------------ */

static void mode_misc(void)
{
    int partner = rank ^ 1, v = 0, flag = 0;
    static uint8_t big[200000], small[1000];
    loom_msg_status_t st;
    loom_request_t rq;

    if (partner >= size) {
        return;
    }
    if (rank % 2 == 0) {
        v = 42;
        OKCALL(loom_ssend(&v, 1, LOOM_INT32, partner, 1, LOOM_COMM_WORLD));
        fill(big, sizeof(big), 5);
        /* both truncated at the receiver; the next message is intact */
        CHECK(loom_send(big, 2000, LOOM_BYTE, partner, 2, LOOM_COMM_WORLD) == LOOM_OK, "send");
        CHECK(loom_send(big, sizeof(big), LOOM_BYTE, partner, 2, LOOM_COMM_WORLD) == LOOM_OK,
              "send big");
        v = 7;
        OKCALL(loom_send(&v, 1, LOOM_INT32, partner, 3, LOOM_COMM_WORLD));
        OKCALL(loom_issend(big, sizeof(big), LOOM_BYTE, partner, 4, LOOM_COMM_WORLD, &rq));
        OKCALL(loom_wait(&rq, NULL));
    } else {
        OKCALL(loom_probe(partner, 1, LOOM_COMM_WORLD, &st));
        CHECK(st.bytes == sizeof(int), "probe bytes %zu", st.bytes);
        OKCALL(loom_recv(&v, 1, LOOM_INT32, partner, 1, LOOM_COMM_WORLD, NULL));
        CHECK(v == 42, "ssend value %d", v);
        CHECK(loom_recv(small, sizeof(small), LOOM_BYTE, partner, 2, LOOM_COMM_WORLD, &st) ==
              LOOM_ERR_TRUNCATED && st.bytes == sizeof(small) &&
              verify(small, sizeof(small), 5) == (size_t)-1, "eager truncation");
        CHECK(loom_recv(small, sizeof(small), LOOM_BYTE, partner, 2, LOOM_COMM_WORLD, &st) ==
              LOOM_ERR_TRUNCATED && st.bytes == sizeof(small) &&
              verify(small, sizeof(small), 5) == (size_t)-1, "rendezvous truncation");
        OKCALL(loom_irecv(&v, 1, LOOM_INT32, partner, 99, LOOM_COMM_WORLD, &rq));
        OKCALL(loom_cancel(&rq));
        OKCALL(loom_wait(&rq, &st));
        CHECK(st.cancelled == 1, "cancelled %d", st.cancelled);
        OKCALL(loom_recv(&v, 1, LOOM_INT32, partner, 3, LOOM_COMM_WORLD, NULL));
        CHECK(v == 7, "after truncation got %d", v);
        do {
            OKCALL(loom_iprobe(LOOM_ANY_SOURCE, 4, LOOM_COMM_WORLD, &flag, &st));
        } while (!flag);
        CHECK(st.bytes == sizeof(big) && st.source == partner, "iprobe rendezvous");
        OKCALL(loom_recv(big, sizeof(big), LOOM_BYTE, partner, 4, LOOM_COMM_WORLD, NULL));
        CHECK(verify(big, sizeof(big), 5) == (size_t)-1, "issend data");
    }
}

/* ---- direct: blocking receives meeting frames already in the ring ------------------ */

/* the receiver of a pair, after its partner's frames have landed in the ring */
static int32_t direct_recv(int partner, int tag, loom_comm_t comm)
{
    int32_t v = -1;

    OKCALL(loom_recv(&v, 1, LOOM_INT32, partner, tag, comm, NULL));
    return v;
}

/* groups of frames, each sent once the receiver asks for it: a receive that
 * takes the general path drains the ring into the unexpected queue, so each
 * group starts with an empty ring and an empty queue */
static void direct_group(int partner, int is_sender)
{
    char go = 0;

    if (is_sender) {
        OKCALL(loom_recv(&go, 0, LOOM_BYTE, partner, 1, LOOM_COMM_WORLD, NULL));
    } else {
        OKCALL(loom_send(&go, 0, LOOM_BYTE, partner, 1, LOOM_COMM_WORLD));
        usleep(20000);   /* let the group land in the ring before receiving */
    }
}

static void direct_sender(int partner, loom_comm_t dup)
{
    static uint8_t big[200000];
    int32_t v[8] = { 70, 50, 31, 32, 11, 12, 90, 91 };
    uint8_t buf[64];
    loom_request_t rq;

    direct_group(partner, 1);
    OKCALL(loom_send(&v[0], 1, LOOM_INT32, partner, 7, LOOM_COMM_WORLD));
    OKCALL(loom_send(&v[1], 1, LOOM_INT32, partner, 5, LOOM_COMM_WORLD));
    direct_group(partner, 1);
    OKCALL(loom_send(&v[2], 1, LOOM_INT32, partner, 3, LOOM_COMM_WORLD));
    OKCALL(loom_send(&v[3], 1, LOOM_INT32, partner, 3, LOOM_COMM_WORLD));
    fill(buf, sizeof(buf), 8);
    direct_group(partner, 1);
    OKCALL(loom_send(buf, sizeof(buf), LOOM_BYTE, partner, 8, LOOM_COMM_WORLD));
    direct_group(partner, 1);
    OKCALL(loom_send(buf, 12, LOOM_BYTE, partner, 4242, LOOM_COMM_WORLD));
    direct_group(partner, 1);
    OKCALL(loom_send(&v[4], 1, LOOM_INT32, partner, 1, dup));
    OKCALL(loom_send(&v[5], 1, LOOM_INT32, partner, 1, LOOM_COMM_WORLD));
    direct_group(partner, 1);
    OKCALL(loom_issend(&v[6], 1, LOOM_INT32, partner, 9, LOOM_COMM_WORLD, &rq));
    OKCALL(loom_send(&v[7], 1, LOOM_INT32, partner, 9, LOOM_COMM_WORLD));
    OKCALL(loom_wait(&rq, NULL));
    direct_group(partner, 1);
    OKCALL(loom_send(NULL, 0, LOOM_BYTE, partner, 6, LOOM_COMM_WORLD));
    direct_group(partner, 1);
    fill(big, sizeof(big), 10);
    OKCALL(loom_isend(big, sizeof(big), LOOM_BYTE, partner, 10, LOOM_COMM_WORLD, &rq));
    OKCALL(loom_send(&v[0], 1, LOOM_INT32, partner, 10, LOOM_COMM_WORLD));
    OKCALL(loom_wait(&rq, NULL));
}

static void direct_receiver(int partner, loom_comm_t dup)
{
    static uint8_t big[200000];
    uint8_t buf[100];
    loom_msg_status_t st;
    loom_request_t rq;
    int32_t w = -1;
    size_t n = 0;

    direct_group(partner, 0);
    CHECK(direct_recv(partner, 5, LOOM_COMM_WORLD) == 50, "tag 5 behind a tag 7 frame");
    CHECK(direct_recv(partner, 7, LOOM_COMM_WORLD) == 70, "tag 7 after it");
    /* an earlier receive takes the first message, not the blocking one */
    OKCALL(loom_irecv(&w, 1, LOOM_INT32, LOOM_ANY_SOURCE, 3, LOOM_COMM_WORLD, &rq));
    direct_group(partner, 0);
    CHECK(direct_recv(partner, 3, LOOM_COMM_WORLD) == 32, "blocking receive after irecv");
    OKCALL(loom_wait(&rq, NULL));
    CHECK(w == 31, "earlier wildcard irecv got %d", (int)w);
    direct_group(partner, 0);
    CHECK(loom_recv(buf, 16, LOOM_BYTE, partner, 8, LOOM_COMM_WORLD, &st) ==
          LOOM_ERR_TRUNCATED && st.bytes == 16 && verify(buf, 16, 8) == (size_t)-1,
          "truncated in place (bytes %zu)", st.bytes);
    direct_group(partner, 0);
    OKCALL(loom_recv(buf, sizeof(buf), LOOM_BYTE, partner, LOOM_ANY_TAG, LOOM_COMM_WORLD,
                     &st));
    OKCALL(loom_get_count(&st, LOOM_BYTE, &n));
    CHECK(st.tag == 4242 && st.source == partner && st.error == LOOM_OK && n == 12 &&
          verify(buf, 12, 8) == (size_t)-1, "any-tag status: tag %d source %d count %zu",
          st.tag, st.source, n);
    direct_group(partner, 0);
    CHECK(direct_recv(partner, 1, LOOM_COMM_WORLD) == 12, "world behind a dup frame");
    CHECK(direct_recv(partner, 1, dup) == 11, "dup after it");
    direct_group(partner, 0);
    CHECK(direct_recv(partner, 9, LOOM_COMM_WORLD) == 90, "ssend first, in order");
    CHECK(direct_recv(partner, 9, LOOM_COMM_WORLD) == 91, "standard send second");
    direct_group(partner, 0);
    st.bytes = 99;
    OKCALL(loom_recv(NULL, 0, LOOM_BYTE, partner, 6, LOOM_COMM_WORLD, &st));
    CHECK(st.bytes == 0 && st.tag == 6, "zero bytes: %zu tag %d", st.bytes, st.tag);
    direct_group(partner, 0);
    OKCALL(loom_recv(big, sizeof(big), LOOM_BYTE, partner, 10, LOOM_COMM_WORLD, NULL));
    CHECK(verify(big, sizeof(big), 10) == (size_t)-1, "rendezvous ahead of eager");
    CHECK(direct_recv(partner, 10, LOOM_COMM_WORLD) == 70, "eager behind rendezvous");
}

/* pairs (0,1), (2,3), ...: the odd rank receives with its partner's frames
 * already waiting (another tag, communicator or protocol first, an earlier
 * wildcard receive, truncation, any tag): order and status as MPI says */
static void mode_direct(void)
{
    int partner = rank ^ 1;
    loom_comm_t dup;

    OKCALL(loom_comm_dup(LOOM_COMM_WORLD, &dup));
    if (partner < size) {
        if (rank % 2 == 0) {
            direct_sender(partner, dup);
        } else {
            direct_receiver(partner, dup);
        }
    }
    OKCALL(loom_comm_free(&dup));
}

/* ---- beyond 2 GiB: rank 0 -> rank size-1 (itself when alone) ----------------------- */

static void huge_stamp(uint8_t *p, size_t n)
{
    memset(p, 0x5a, n);
    for (size_t off = 0; off + sizeof(uint64_t) <= n; off += 4096) {
        uint64_t v = off / 4096 + 1;
        memcpy(p + off, &v, sizeof(v));
    }
}

static size_t huge_check(const uint8_t *p, size_t n)
{
    for (size_t off = 0; off < n; off += 4096) {
        uint64_t v = 0, want = off / 4096 + 1;
        size_t end = LOOM_HUGE_MIN(off + 4096, n), i = off;
        if (off + sizeof(v) <= n) {   /* a tail shorter than a stamp has none */
            memcpy(&v, p + off, sizeof(v));
            if (v != want) {
                return off;
            }
            i += sizeof(v);
        }
        for (; i < end; ++i) {
            if (p[i] != 0x5a) {
                return i;
            }
        }
    }
    return (size_t)-1;
}

static void mode_huge(void)
{
    size_t n = ((size_t)2 << 30) + (3u << 20) + 5;   /* > 2 GiB, > INT_MAX */
    int dst = size - 1;
    uint8_t *s = NULL, *r = NULL;
    loom_request_t sq = LOOM_REQUEST_NULL, rq = LOOM_REQUEST_NULL;
    loom_msg_status_t st;

    if (rank == 0) {
        s = malloc(n);
        CHECK(s != NULL, "malloc %zu", n);
        huge_stamp(s, n);
        OKCALL(loom_isend(s, n, LOOM_BYTE, dst, 1, LOOM_COMM_WORLD, &sq));
    }
    if (rank == dst) {
        r = calloc(1, n);
        CHECK(r != NULL, "calloc %zu", n);
        OKCALL(loom_irecv(r, n, LOOM_BYTE, 0, 1, LOOM_COMM_WORLD, &rq));
        OKCALL(loom_wait(&rq, &st));
        CHECK(st.bytes == n, "received %zu of %zu bytes", st.bytes, n);
        CHECK(huge_check(r, n) == (size_t)-1, "byte %zu differs", huge_check(r, n));
    }
    OKCALL(loom_wait(&sq, NULL));
    free(s);
    free(r);
}

static void mode_badinput(void)
{
    int v = 0;
    loom_request_t rq;

    CHECK(loom_send(&v, 1, LOOM_INT32, size, 0, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_RANK, "rank=size");
    CHECK(loom_irecv(&v, 1, LOOM_INT32, size + 5, 0, LOOM_COMM_WORLD, &rq) == LOOM_ERR_INVALID_RANK,
          "recv rank");
    CHECK(loom_send(&v, 1, LOOM_INT32, 0, -3, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_TAG, "tag<0");
    CHECK(loom_send(NULL, 3, LOOM_INT32, 0, 0, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_BUFFER, "NULL");
    CHECK(loom_send(&v, (size_t)-1, LOOM_INT32, 0, 0, LOOM_COMM_WORLD) == LOOM_ERR_INVALID_COUNT,
          "negative count");
    CHECK(loom_send(&v, 1, LOOM_INT32, 0, 0, LOOM_COMM_NULL) == LOOM_ERR_INVALID_COMM, "NULL comm");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    if (loom_init(&argc, &argv) != LOOM_OK) {
        fprintf(stderr, "loom_init failed\n");
        return 1;
    }
    rank = loom_rank();
    size = loom_size();
    if (strcmp(mode, "sizes") == 0) {
        mode_sizes(argc > 2 ? strtoull(argv[2], NULL, 10) : 64u << 20);
    } else if (strcmp(mode, "wildcard") == 0) {
        mode_wildcard();
    } else if (strcmp(mode, "many") == 0) {
        mode_many();
    } else if (strcmp(mode, "bothsend") == 0) {
        mode_bothsend();
    } else if (strcmp(mode, "random") == 0) {
        mode_random(argc > 2 ? strtoull(argv[2], NULL, 10) : 1);
    } else if (strcmp(mode, "misc") == 0) {
        mode_misc();
    } else if (strcmp(mode, "direct") == 0) {
        mode_direct();
    } else if (strcmp(mode, "huge") == 0) {
        mode_huge();
    } else if (strcmp(mode, "late") == 0) {
        /* rank 1 sends after 2.5 s: with LOOM_PROGRESS_TIMEOUT=1 rank 0 reports */
        int v = 5;
        if (rank == 1) {
            usleep(2500000);
            OKCALL(loom_send(&v, 1, LOOM_INT32, 0, 1, LOOM_COMM_WORLD));
        } else if (rank == 0) {
            v = 0;
            OKCALL(loom_recv(&v, 1, LOOM_INT32, 1, 1, LOOM_COMM_WORLD, NULL));
            CHECK(v == 5, "late value %d", v);
        }
    } else if (strcmp(mode, "unmatched") == 0) {
        static char big[1 << 20];
        static int v = 1;
        loom_request_t r1, r2;
        int to = (rank + 1) % size;
        OKCALL(loom_isend(big, sizeof(big), LOOM_BYTE, to, 77, LOOM_COMM_WORLD, &r1));
        OKCALL(loom_issend(&v, 1, LOOM_INT32, to, 78, LOOM_COMM_WORLD, &r2));
        OKCALL(loom_request_free(&r1));
        OKCALL(loom_request_free(&r2));
    } else if (strcmp(mode, "hang") == 0 && size >= 4) {
        mode_hang();
    } else if (strcmp(mode, "badinput") == 0) {
        mode_badinput();
    } else if (strcmp(mode, "abort") == 0) {
        int v = 0;
        loom_send(&v, 1, LOOM_INT32, size + 1, 0, LOOM_COMM_WORLD);
        fprintf(stderr, "[%d] invalid send returned under LOOM_ERRORS=abort\n", rank);
        return 3;
    } else {
        fprintf(stderr, "usage: prog_p2p sizes [MAX]|wildcard|many|bothsend|random SEED|misc|direct|"
                "badinput|abort|late|huge|unmatched|hang (np >= 4)\n");
        loom_finalize();
        return 2;
    }
    if (loom_finalize() != LOOM_OK) {
        fprintf(stderr, "[%d] loom_finalize failed\n", rank);
        ++failures;
    }
    if (failures == 0 && rank == 0) {
        printf("OK %s (np %d)\n", mode, size);
    }
    return failures == 0 ? 0 : 1;
}
