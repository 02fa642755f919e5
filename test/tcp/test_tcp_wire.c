/*
 * test_tcp_wire.c: the TCP transport's pure parts, without sockets: the
 * frame parser fed byte streams cut at random places (with EAGAIN and EINTR
 * between the pieces), its protocol-error checks, the handshake validation,
 * and the index+cookie table behind rkeys and get ids.
 */
#include "cunit_main.h"

#include "tcp/tcp_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFRAMES   400
#define NDATA     40
#define DATA_MAX  (3 * 100000)

/* ---- a synthetic stream ------------------------------------------------------- */

typedef struct feeder {
    const uint8_t *bytes;
    size_t         len;
    size_t         pos;
    unsigned       seed;
    size_t         max_piece;
    int            again;         /* next read answers EAGAIN */
    int            fail_errno;    /* after the stream: read fails with it (0: EOF) */
    /* what the callbacks saw */
    size_t         frames;
    size_t         bad;
    uint64_t       expect_seq;
    uint8_t       *data;          /* destination of GET_DATA chunks */
    size_t         data_len;
    size_t         data_got;
    size_t         data_ends;
    int            stop_after;    /* frame() returns LOOM_INPROGRESS on this frame number */
    size_t         reads;         /* reads into a chunk's destination and the buffer at once */
    /* AM frames offered for placement: seq % 3 == 0 declined, 1 taken whole,
     * 2 taken with only half of the rest kept (a truncating receive) */
    uint8_t       *pbuf;          /* destination of the frame being placed */
    int            in_place;      /* between place() and place_end() */
    uint64_t       place_seq;
    size_t         place_len, place_have, place_keep;
    size_t         placed, declined;
    uint64_t       declined_seq;  /* the last frame declined */
} feeder_t;

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

/* Copy @p n bytes from @p src over the pieces of @p iov, in order. */
static void scatter(const struct iovec *iov, int cnt, const uint8_t *src, size_t n)
{
    for (int i = 0; i < cnt && n > 0; ++i) {
        size_t k = LOOM_MIN(n, iov[i].iov_len);
        memcpy(iov[i].iov_base, src, k);
        src += k;
        n -= k;
    }
}

static ssize_t feed_read(void *arg, const struct iovec *iov, int cnt)
{
    feeder_t *f = arg;
    size_t n, len = 0;

    for (int i = 0; i < cnt; ++i) {
        len += iov[i].iov_len;
    }
    if (f->again) {
        f->again = 0;
        errno = (rnd(&f->seed) & 1) ? EAGAIN : EINTR;
        return -1;
    }
    if (f->pos == f->len) {
        if (f->fail_errno != 0) {
            errno = f->fail_errno;
            return -1;
        }
        return 0;
    }
    n = 1 + rnd(&f->seed) % f->max_piece;
    n = LOOM_MIN(n, LOOM_MIN(len, f->len - f->pos));
    scatter(iov, cnt, f->bytes + f->pos, n);
    f->pos += n;
    f->reads += cnt > 1;
    f->again = (rnd(&f->seed) % 4) == 0;
    return (ssize_t)n;
}

static loom_status_t feed_frame(void *arg, unsigned type, const void *body, size_t len)
{
    feeder_t *f = arg;
    uint64_t seq;

    f->bad += f->in_place;   /* nothing may come between a placed frame's parts */
    ++f->frames;
    if (type != LOOM_TCP_AM || len < sizeof(seq)) {
        ++f->bad;
        return LOOM_OK;
    }
    memcpy(&seq, body, sizeof(seq));
    if (seq != f->expect_seq) {
        ++f->bad;
    }
    /* body byte i of frame seq is (seq + i) & 0xff */
    for (size_t i = sizeof(seq); i < len; ++i) {
        if (((const uint8_t *)body)[i] != (uint8_t)(seq + i)) {
            ++f->bad;
            break;
        }
    }
    ++f->expect_seq;
    return (f->stop_after != 0 && (int)f->frames == f->stop_after) ? LOOM_INPROGRESS
                                                                      : LOOM_OK;
}

static void *feed_data_begin(void *arg, const loom_tcp_data_hdr_t *dh, size_t len)
{
    feeder_t *f = arg;

    f->bad += f->in_place;
    if (dh->req_id == 0xdead) {
        return NULL;   /* discarded chunk */
    }
    if (dh->offset + len > f->data_len) {
        ++f->bad;
        return NULL;
    }
    return f->data + dh->offset;
}

static loom_status_t feed_data_end(void *arg, const loom_tcp_data_hdr_t *dh, size_t len)
{
    feeder_t *f = arg;

    if (dh->req_id != 0xdead) {
        f->data_got += len;
    }
    ++f->data_ends;
    return LOOM_OK;
}

static const loom_tcp_rx_ops_t feed_ops = {
    .readv = feed_read, .frame = feed_frame,
    .data_begin = feed_data_begin, .data_end = feed_data_end,
};

static int feed_place(void *arg, const void *head, size_t have, size_t len,
                      loom_tl_place_t *place)
{
    feeder_t *f = arg;
    uint64_t seq;

    /* the head is whole, and placing is worth it */
    if (f->in_place || have < LOOM_MIN(len, (size_t)LOOM_TL_PLACE_HEAD) || have >= len ||
        len - have < LOOM_TCP_DIRECT_MIN || have < sizeof(seq)) {
        ++f->bad;
        return 0;
    }
    memcpy(&seq, head, sizeof(seq));
    if (seq % 3 == 0) {
        /* offered once: a second offer of it is a bug */
        f->bad += f->declined != 0 && f->declined_seq == seq;
        f->declined_seq = seq;
        ++f->declined;
        return 0;
    }
    memcpy(f->pbuf, head, have);
    memset(f->pbuf + have, 0, len - have);
    f->in_place   = 1;
    f->place_seq  = seq;
    f->place_len  = len;
    f->place_have = have;
    f->place_keep = seq % 3 == 1 ? len - have : (len - have) / 2;
    place->dst  = f->pbuf + have;
    place->keep = f->place_keep;
    return 1;
}

static loom_status_t feed_place_end(void *arg)
{
    feeder_t *f = arg;
    size_t end = f->place_have + f->place_keep;

    if (!f->in_place || f->place_seq != f->expect_seq) {
        ++f->bad;
    }
    for (size_t i = sizeof(uint64_t); i < f->place_len; ++i) {
        /* kept bytes are the frame's, dropped ones were never written */
        if (f->pbuf[i] != (i < end ? (uint8_t)(f->place_seq + i) : 0)) {
            ++f->bad;
            break;
        }
    }
    f->in_place = 0;
    ++f->placed;
    ++f->frames;
    ++f->expect_seq;
    return LOOM_OK;
}

static const loom_tcp_rx_ops_t feed_place_ops = {
    .readv = feed_read, .frame = feed_frame,
    .data_begin = feed_data_begin, .data_end = feed_data_end,
    .place = feed_place, .place_end = feed_place_end,
};

static size_t put_frame(uint8_t *p, unsigned type, const void *a, size_t a_len,
                        const void *b, size_t b_len)
{
    loom_tcp_frame_hdr_t fh = { .len = (uint32_t)(a_len + b_len), .type = (uint8_t)type };

    memcpy(p, &fh, sizeof(fh));
    memcpy(p + sizeof(fh), a, a_len);
    if (b_len > 0) {
        memcpy(p + sizeof(fh) + a_len, b, b_len);
    }
    return sizeof(fh) + a_len + b_len;
}

/*
 * A stream of NFRAMES AM frames of random sizes (up to max_am) with NDATA
 * GET_DATA chunks mixed in, which together write data[] exactly once, plus
 * one discarded chunk. @return its length.
 */
static size_t build_stream(uint8_t *out, const uint8_t *src_data, unsigned seed)
{
    uint8_t body[LOOM_TCP_MAX_AM];
    size_t len = 0, data_off = 0;
    size_t chunk = DATA_MAX / NDATA;
    unsigned s = seed;

    for (uint64_t seq = 0; seq < NFRAMES; ++seq) {
        size_t blen = sizeof(seq) + (rnd(&s) % 8 == 0 ? rnd(&s) % (LOOM_TCP_MAX_AM - 8)
                                                      : rnd(&s) % 200);
        memcpy(body, &seq, sizeof(seq));
        for (size_t i = sizeof(seq); i < blen; ++i) {
            body[i] = (uint8_t)(seq + i);
        }
        len += put_frame(out + len, LOOM_TCP_AM, body, blen, NULL, 0);
        if (seq % (NFRAMES / NDATA) == 3 && data_off < DATA_MAX) {
            loom_tcp_data_hdr_t dh = { .req_id = 7, .offset = data_off };
            len += put_frame(out + len, LOOM_TCP_GET_DATA, &dh, sizeof(dh),
                             src_data + data_off, chunk);
            data_off += chunk;
        }
        if (seq == NFRAMES / 2) {
            loom_tcp_data_hdr_t dh = { .req_id = 0xdead, .offset = 0 };
            len += put_frame(out + len, LOOM_TCP_GET_DATA, &dh, sizeof(dh), src_data, 5000);
        }
    }
    return len;
}

/*
 * Feed streams cut at every piece size through @p ops, with the read-ahead
 * unbounded and bounded (as the transport does during gets), with large and
 * tiny budgets (the parser must pick up where it stopped). @p place: AM
 * frames are offered for placement, and some are taken, whole or truncated.
 */
static void parser_trials(const loom_tcp_rx_ops_t *ops, int place)
{
    size_t cap = (size_t)NFRAMES * (LOOM_TCP_MAX_AM + 300) + DATA_MAX + 100000;
    uint8_t *stream = malloc(cap);
    uint8_t *src = malloc(DATA_MAX);
    uint8_t *dst = malloc(DATA_MAX);
    uint8_t *pbuf = malloc(LOOM_TCP_MAX_AM);
    static const size_t pieces[] = { 1, 7, 100, 4096, 5000, 70000, 1u << 20 };
    size_t placed = 0, declined = 0, two_piece_reads = 0;

    CU_ASSERT_FATAL(stream != NULL && src != NULL && dst != NULL && pbuf != NULL);
    for (size_t i = 0; i < DATA_MAX; ++i) {
        src[i] = (uint8_t)(i * 31 + 7 + (unsigned)place);
    }
    for (unsigned trial = 0; trial < LOOM_ARRAY_SIZE(pieces) * 2; ++trial) {
        size_t len = build_stream(stream, src, 1000 + trial + 1000 * (unsigned)place);
        feeder_t f = { .bytes = stream, .len = len, .seed = trial + 1,
                       .max_piece = pieces[trial % LOOM_ARRAY_SIZE(pieces)],
                       .data = dst, .data_len = DATA_MAX, .pbuf = pbuf };
        loom_tcp_rx_t rx;
        loom_status_t st = LOOM_OK;
        int calls = 0;

        CU_ASSERT_FATAL(len <= cap);
        memset(dst, 0, DATA_MAX);
        CU_ASSERT_FATAL(loom_tcp_rx_init(&rx, LOOM_TCP_RX_BUF, LOOM_TCP_MAX_AM,
                                         LOOM_TCP_CHUNK) == LOOM_OK);
        rx.fill_max = trial >= LOOM_ARRAY_SIZE(pieces) ? LOOM_TCP_RX_PEEK : 0;
        while (st == LOOM_OK && calls < 10000000) {
            st = loom_tcp_rx_progress(&rx, ops, &f, trial & 1 ? 1 : 1u << 20);
            ++calls;
        }
        CU_ASSERT_EQUAL(st, LOOM_ERR_CONNECTION);
        CU_ASSERT(rx.eof);
        CU_ASSERT_EQUAL(f.bad, 0);
        CU_ASSERT_EQUAL(f.frames, NFRAMES);
        CU_ASSERT_FALSE(f.in_place);
        CU_ASSERT_EQUAL(f.data_got, DATA_MAX);
        CU_ASSERT_EQUAL(f.data_ends, NDATA + 1);
        CU_ASSERT(memcmp(src, dst, DATA_MAX) == 0);
        placed += f.placed;
        declined += f.declined;
        two_piece_reads += f.reads;
        loom_tcp_rx_cleanup(&rx);
    }
    /* large pieces: chunk tails were read together with the frames after them */
    CU_ASSERT(two_piece_reads > 0);
    CU_ASSERT(place ? placed > 20 && declined > 10 : placed + declined == 0);
    free(stream);
    free(src);
    free(dst);
    free(pbuf);
}

static void test_parser_random_splits(void)
{
    parser_trials(&feed_ops, 0);
}

/*
 * The same with AM frames offered for placement: taken frames (whole or
 * truncated) and declined ones keep their order with the rest, and
 * GET_DATA chunks still land in place.
 */
static void test_parser_place(void)
{
    parser_trials(&feed_place_ops, 1);
}

/* The stream ends in the middle of a taken frame: the owner learns it is still placing. */
static void test_parser_place_eof(void)
{
    static uint8_t buf[3 * 20000], pbuf[20000];
    uint8_t body[20000];
    uint64_t seq = 1;
    loom_tcp_rx_t rx;
    feeder_t f = { .seed = 3, .max_piece = 700, .pbuf = pbuf, .expect_seq = 1 };
    loom_status_t st;
    size_t len;

    memcpy(body, &seq, sizeof(seq));
    for (size_t i = sizeof(seq); i < sizeof(body); ++i) {
        body[i] = (uint8_t)(seq + i);
    }
    len = put_frame(buf, LOOM_TCP_AM, body, sizeof(body), NULL, 0);
    f.bytes = buf;
    f.len = len - 5000;
    CU_ASSERT_FATAL(loom_tcp_rx_init(&rx, LOOM_TCP_RX_BUF, LOOM_TCP_MAX_AM,
                                     LOOM_TCP_CHUNK) == LOOM_OK);
    do {
        st = loom_tcp_rx_progress(&rx, &feed_place_ops, &f, 1u << 20);
    } while (st == LOOM_OK);
    CU_ASSERT_EQUAL(st, LOOM_ERR_CONNECTION);
    CU_ASSERT(rx.eof);
    CU_ASSERT(rx.placing);
    CU_ASSERT(f.in_place);
    CU_ASSERT_EQUAL(f.placed, 0);
    CU_ASSERT_EQUAL(f.bad, 0);
    loom_tcp_rx_cleanup(&rx);
}

static loom_status_t run_stream(const uint8_t *bytes, size_t len, size_t max_piece,
                                int fail_errno, loom_tcp_rx_t *rx, feeder_t *f)
{
    loom_status_t st;

    memset(f, 0, sizeof(*f));
    f->bytes = bytes;
    f->len = len;
    f->seed = 5;
    f->max_piece = max_piece;
    f->fail_errno = fail_errno;
    loom_tcp_rx_init(rx, 4096, 1000, 2000);
    do {
        st = loom_tcp_rx_progress(rx, &feed_ops, f, 1u << 20);
    } while (st == LOOM_OK);
    return st;
}

static void test_parser_errors(void)
{
    uint8_t buf[8192], body[3000] = { 0 };
    loom_tcp_data_hdr_t dh = { .req_id = 1, .offset = 0 };
    loom_tcp_frame_hdr_t fh = { .len = 4, .type = 99 };
    loom_tcp_rx_t rx;
    feeder_t f;
    size_t len;

    /* frame longer than max_body */
    len = put_frame(buf, LOOM_TCP_AM, body, 1001, NULL, 0);
    CU_ASSERT_EQUAL(run_stream(buf, len, 50, 0, &rx, &f), LOOM_ERR_TRANSPORT);
    CU_ASSERT(strstr(rx.why, "too long") != NULL);
    CU_ASSERT_EQUAL(f.frames, 0);
    loom_tcp_rx_cleanup(&rx);

    /* unknown frame type */
    memcpy(buf, &fh, sizeof(fh));
    CU_ASSERT_EQUAL(run_stream(buf, sizeof(fh) + 4, 3, 0, &rx, &f), LOOM_ERR_TRANSPORT);
    CU_ASSERT(strstr(rx.why, "unknown") != NULL);
    loom_tcp_rx_cleanup(&rx);

    /* data chunk longer than max_data, and one shorter than its own header */
    len = put_frame(buf, LOOM_TCP_GET_DATA, &dh, sizeof(dh), body, 2001);
    CU_ASSERT_EQUAL(run_stream(buf, len, 50, 0, &rx, &f), LOOM_ERR_TRANSPORT);
    loom_tcp_rx_cleanup(&rx);
    len = put_frame(buf, LOOM_TCP_GET_DATA, &dh, 4, NULL, 0);
    CU_ASSERT_EQUAL(run_stream(buf, len, 50, 0, &rx, &f), LOOM_ERR_TRANSPORT);
    loom_tcp_rx_cleanup(&rx);

    /* end of stream in the middle of a frame, and in the middle of data */
    len = put_frame(buf, LOOM_TCP_AM, body, 500, NULL, 0);
    CU_ASSERT_EQUAL(run_stream(buf, len - 1, 10, 0, &rx, &f), LOOM_ERR_CONNECTION);
    CU_ASSERT(rx.eof);
    CU_ASSERT_EQUAL(f.frames, 0);
    loom_tcp_rx_cleanup(&rx);

    /* a read error is reported with its errno, after the whole frames */
    len = put_frame(buf, LOOM_TCP_AM, body, 8, NULL, 0);
    CU_ASSERT_EQUAL(run_stream(buf, len, 10, ECONNRESET, &rx, &f), LOOM_ERR_IO);
    CU_ASSERT_EQUAL(rx.err, ECONNRESET);
    CU_ASSERT_EQUAL(f.frames, 1);
    loom_tcp_rx_cleanup(&rx);
}

static void test_parser_stop(void)
{
    uint8_t buf[4096], body[64] = { 0 };
    loom_tcp_rx_t rx;
    size_t len = 0;
    feeder_t f;

    for (uint64_t seq = 0; seq < 3; ++seq) {
        memcpy(body, &seq, sizeof(seq));
        for (size_t i = sizeof(seq); i < 20; ++i) {
            body[i] = (uint8_t)(seq + i);
        }
        len += put_frame(buf + len, LOOM_TCP_AM, body, 20, NULL, 0);
    }
    memset(&f, 0, sizeof(f));
    f.bytes = buf;
    f.len = len;
    f.seed = 1;
    f.max_piece = len;   /* may arrive all at once */
    f.stop_after = 1;
    CU_ASSERT_FATAL(loom_tcp_rx_init(&rx, 128, 64, 0) == LOOM_OK);
    loom_status_t st;
    do {
        st = loom_tcp_rx_progress(&rx, &feed_ops, &f, 1u << 20);
    } while (st == LOOM_OK);
    CU_ASSERT_EQUAL(st, LOOM_INPROGRESS);
    CU_ASSERT_EQUAL(f.frames, 1);
    /* the handshake grew the buffer: buffered bytes survive the resize */
    CU_ASSERT_EQUAL(loom_tcp_rx_resize(&rx, 8192, 1000, 1000), LOOM_OK);
    do {
        st = loom_tcp_rx_progress(&rx, &feed_ops, &f, 1u << 20);
    } while (st == LOOM_OK);
    CU_ASSERT_EQUAL(st, LOOM_ERR_CONNECTION);
    CU_ASSERT_EQUAL(f.frames, 3);
    CU_ASSERT_EQUAL(f.bad, 0);
    loom_tcp_rx_cleanup(&rx);
}

static void test_hello_check(void)
{
    uint8_t secret[LOOM_TCP_SECRET_LEN], other[LOOM_TCP_SECRET_LEN];
    loom_tcp_hello_t h, bad;
    char why[128];
    int src = -1;

    for (int i = 0; i < LOOM_TCP_SECRET_LEN; ++i) {
        secret[i] = (uint8_t)(i * 17 + 3);
    }
    memcpy(other, secret, sizeof(other));
    other[LOOM_TCP_SECRET_LEN - 1] ^= 1;

    loom_tcp_hello_pack(&h, 2, 5, secret);
    CU_ASSERT_EQUAL(loom_tcp_hello_check(&h, sizeof(h), 5, 8, secret, &src, why,
                                         sizeof(why)), LOOM_OK);
    CU_ASSERT_EQUAL(src, 2);

    src = -1;
    loom_tcp_hello_pack(&bad, 2, 5, other);   /* one bit off */
    CU_ASSERT_EQUAL(loom_tcp_hello_check(&bad, sizeof(bad), 5, 8, secret, &src, why,
                                         sizeof(why)), LOOM_ERR_CONNECTION);
    CU_ASSERT(strstr(why, "secret") != NULL);
    CU_ASSERT_EQUAL(src, -1);

    bad = h;
    bad.magic = __builtin_bswap32(LOOM_TCP_MAGIC);
    CU_ASSERT_EQUAL(loom_tcp_hello_check(&bad, sizeof(bad), 5, 8, secret, &src, why,
                                         sizeof(why)), LOOM_ERR_CONNECTION);
    CU_ASSERT(strstr(why, "magic") != NULL);

    bad = h;
    bad.version = LOOM_TCP_VERSION + 1;
    CU_ASSERT_EQUAL(loom_tcp_hello_check(&bad, sizeof(bad), 5, 8, secret, &src, why,
                                         sizeof(why)), LOOM_ERR_CONNECTION);
    CU_ASSERT(strstr(why, "version") != NULL);

    /* addressed to another rank, sender out of range or claiming to be us */
    CU_ASSERT_EQUAL(loom_tcp_hello_check(&h, sizeof(h), 4, 8, secret, &src, why,
                                         sizeof(why)), LOOM_ERR_CONNECTION);
    loom_tcp_hello_pack(&bad, 8, 5, secret);
    CU_ASSERT_EQUAL(loom_tcp_hello_check(&bad, sizeof(bad), 5, 8, secret, &src, why,
                                         sizeof(why)), LOOM_ERR_CONNECTION);
    loom_tcp_hello_pack(&bad, -1, 5, secret);
    CU_ASSERT_EQUAL(loom_tcp_hello_check(&bad, sizeof(bad), 5, 8, secret, &src, why,
                                         sizeof(why)), LOOM_ERR_CONNECTION);
    loom_tcp_hello_pack(&bad, 5, 5, secret);
    CU_ASSERT_EQUAL(loom_tcp_hello_check(&bad, sizeof(bad), 5, 8, secret, &src, why,
                                         sizeof(why)), LOOM_ERR_CONNECTION);
    /* truncated or padded */
    CU_ASSERT_EQUAL(loom_tcp_hello_check(&h, sizeof(h) - 1, 5, 8, secret, &src, why,
                                         sizeof(why)), LOOM_ERR_CONNECTION);
    CU_ASSERT(strstr(why, "bytes") != NULL);
}

static void test_slots(void)
{
    loom_tcp_slots_t t;
    int objs[300];
    uint32_t idx[300];
    uint64_t cookie[300];

    CU_ASSERT_FATAL(loom_tcp_slots_init(&t, 200) == LOOM_OK);
    for (int i = 0; i < 200; ++i) {
        CU_ASSERT_EQUAL_FATAL(loom_tcp_slots_add(&t, &objs[i], &idx[i], &cookie[i]), LOOM_OK);
        CU_ASSERT(cookie[i] != 0);
    }
    /* bounded */
    CU_ASSERT_EQUAL(loom_tcp_slots_add(&t, &objs[200], &idx[200], &cookie[200]),
                    LOOM_ERR_NO_RESOURCE);
    for (int i = 0; i < 200; ++i) {
        CU_ASSERT_PTR_EQUAL(loom_tcp_slots_find(&t, idx[i], cookie[i]), &objs[i]);
        CU_ASSERT_PTR_EQUAL(loom_tcp_slots_find_id(&t, loom_tcp_slots_id(idx[i], cookie[i])),
                            &objs[i]);
        /* a forged cookie, a cookie of another slot, an index out of range */
        CU_ASSERT_PTR_NULL(loom_tcp_slots_find(&t, idx[i], cookie[i] ^ 1));
        CU_ASSERT_PTR_NULL(loom_tcp_slots_find(&t, idx[i], cookie[(i + 1) % 200]));
        CU_ASSERT_PTR_NULL(loom_tcp_slots_find(&t, idx[i], 0));
    }
    CU_ASSERT_PTR_NULL(loom_tcp_slots_find(&t, 200, cookie[0]));
    CU_ASSERT_PTR_NULL(loom_tcp_slots_find(&t, UINT32_MAX, cookie[0]));
    CU_ASSERT_PTR_NULL(loom_tcp_slots_find_id(&t, ((uint64_t)1 << 32) | 250u));

    /* a released slot's key goes stale, even once the slot is reused */
    loom_tcp_slots_remove(&t, idx[17]);
    CU_ASSERT_PTR_NULL(loom_tcp_slots_find(&t, idx[17], cookie[17]));
    loom_tcp_slots_remove(&t, idx[17]);   /* twice: harmless */
    CU_ASSERT_EQUAL(t.used, 199);
    CU_ASSERT_EQUAL(loom_tcp_slots_add(&t, &objs[250], &idx[250], &cookie[250]), LOOM_OK);
    CU_ASSERT_EQUAL(idx[250], idx[17]);
    CU_ASSERT(cookie[250] != cookie[17]);
    CU_ASSERT_PTR_NULL(loom_tcp_slots_find(&t, idx[17], cookie[17]));
    CU_ASSERT_PTR_EQUAL(loom_tcp_slots_find(&t, idx[250], cookie[250]), &objs[250]);
    for (int i = 0; i < 200; ++i) {
        loom_tcp_slots_remove(&t, idx[i == 17 ? 250 : i]);
    }
    CU_ASSERT_EQUAL(t.used, 0);
    loom_tcp_slots_cleanup(&t);
}

static void test_rkey_fits(void)
{
    CU_ASSERT(sizeof(loom_tcp_rkey_t) <= LOOM_TL_RKEY_MAX);
    CU_ASSERT_EQUAL(sizeof(loom_tcp_frame_hdr_t), 8);
    CU_ASSERT(LOOM_TCP_RX_BUF >= sizeof(loom_tcp_frame_hdr_t) + LOOM_TCP_MAX_AM +
                                 sizeof(loom_tcp_get_req_t));
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "parser: random splits, EAGAIN/EINTR, in-place data", test_parser_random_splits },
        { "parser: AM frames received in place, taken or declined", test_parser_place },
        { "parser: end of stream inside a frame received in place", test_parser_place_eof },
        { "parser: protocol and stream errors", test_parser_errors },
        { "parser: stop after a frame, resize keeps bytes", test_parser_stop },
        { "handshake validation", test_hello_check },
        { "index+cookie table (rkeys, get ids)", test_slots },
        { "wire sizes", test_rkey_fits },
        { NULL, NULL },
    };
    return loom_test_run_suite("tcp wire", cases, NULL, NULL);
}
