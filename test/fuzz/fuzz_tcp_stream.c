/*
 * fuzz_tcp_stream.c: libFuzzer target for the TCP transport's byte stream:
 * the frame parser loom_tcp_rx_progress (transport/tcp/tcp_wire.c) fed the
 * input through a read callback that cuts it at places the input chooses
 * (short reads, EAGAIN, EINTR), and the handshake check loom_tcp_hello_check
 * on every HELLO/ACCEPT body it delivers.
 *
 * Input: byte 0 seeds the read sizes, byte 1 picks the parser's buffer size
 * (small ones force compaction and "frame larger than the buffer") and,
 * divided by 5, a read-ahead bound (fill_max); the rest is the stream.
 * AM frames still arriving are offered for placement (every other one
 * taken, part of its rest kept, the rest dropped). Checked beyond "no
 * crash": every frame body, data chunk and offered head lies inside the
 * bytes read (ASan), chunks never exceed max_data, data chunks fill exactly
 * what data_begin announced, an offer keeps its promises (head whole, rest
 * worth placing, one frame at a time, place_end only after a take), and a
 * parser error leaves a reason in rx->why.
 *
 * Two data chunks in three are scattered instead (data_scatter, a
 * get_iov's pieces): up to FEED_PIECES pieces of random lengths, empty
 * ones among them, more than one readv takes, with a canary byte after
 * each piece that must still be there when the chunk ends.
 */
#include "tcp/tcp_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FEED_PIECES 600
#define FEED_CANARY 0x5c

typedef struct feed {
    const uint8_t *p;
    size_t         left;
    uint32_t       rng;
    uint8_t        sink[1 << 16];
    size_t         chunk_len;     /* announced by data_begin */
    unsigned       frames;
    int            placing;       /* an AM frame taken by feed_place is arriving */
    size_t         place_rest;
    int            scattering;    /* the current chunk goes to piov */
    size_t         npieces;
    struct iovec   piov[FEED_PIECES];
    uint8_t        arena[(1 << 16) + FEED_PIECES];   /* the pieces, a canary after each */
} feed_t;

static const uint8_t secret[LOOM_TCP_SECRET_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static uint32_t next_rand(feed_t *f)
{
    f->rng = f->rng * 1103515245u + 12345u;
    return f->rng >> 16;
}

static ssize_t feed_read(void *arg, const struct iovec *iov, int cnt)
{
    feed_t *f = arg;
    uint32_t r = next_rand(f);
    size_t n, len = 0;

    for (int i = 0; i < cnt; ++i) {
        len += iov[i].iov_len;
    }
    if (f->left == 0) {
        return 0;                          /* end of stream */
    }
    if (r % 13 == 0) {
        errno = (r & 1) ? EAGAIN : EINTR;
        return -1;
    }
    n = 1 + r % 97;
    n = n < len ? n : len;
    n = n < f->left ? n : f->left;
    for (int i = 0, k = 0; i < cnt && (size_t)k < n; ++i) {
        size_t piece = n - (size_t)k < iov[i].iov_len ? n - (size_t)k : iov[i].iov_len;
        memcpy(iov[i].iov_base, f->p + k, piece);   /* every piece must be writable */
        k += (int)piece;
    }
    f->p += n;
    f->left -= n;
    return (ssize_t)n;
}

static loom_status_t feed_frame(void *arg, unsigned type, const void *body, size_t len)
{
    feed_t *f = arg;
    uint8_t sum = 0;
    int src;
    char why[128];

    if (f->placing) {
        __builtin_trap();                  /* nothing between a taken frame's parts */
    }
    for (size_t i = 0; i < len; ++i) {
        sum ^= ((const uint8_t *)body)[i];  /* every byte must be readable */
    }
    f->sink[0] = sum;
    if (type == LOOM_TCP_HELLO || type == LOOM_TCP_ACCEPT) {
        why[0] = '\0';
        if (loom_tcp_hello_check(body, len, 1, 4, secret, &src, why, sizeof(why)) ==
            LOOM_OK) {
            if (src < 0 || src >= 4 || src == 1) {
                __builtin_trap();
            }
        } else if (why[0] == '\0') {
            __builtin_trap();              /* a refusal must say why */
        }
    }
    ++f->frames;
    return type == LOOM_TCP_BYE ? LOOM_INPROGRESS : LOOM_OK;
}

static void *feed_data_begin(void *arg, const loom_tcp_data_hdr_t *dh, size_t len)
{
    feed_t *f = arg;

    if (len > sizeof(f->sink) || f->placing || f->scattering) {
        __builtin_trap();                  /* above max_data, or inside a body */
    }
    f->chunk_len = len;
    return (dh->req_id & 1) ? NULL : f->sink;   /* discard some chunks */
}

/* scatter two chunks in three into random pieces over arena (the seed "get" reaches it) */
static int feed_data_scatter(void *arg, const loom_tcp_data_hdr_t *dh, size_t len,
                             loom_tcp_scatter_t *sc)
{
    feed_t *f = arg;
    size_t left = len, at = 0, n = 0;

    if (len == 0 || len > sizeof(f->sink) || f->placing || f->scattering) {
        __builtin_trap();                  /* empty, above max_data, or inside a body */
    }
    (void)dh;
    if (next_rand(f) % 3 == 0) {
        return 0;                          /* a plain get's chunk: data_begin */
    }
    while (left > 0 || (n < FEED_PIECES && next_rand(f) % 4 == 0)) {
        uint32_t r = next_rand(f);
        size_t plen = r % 5 == 0 ? 0 : 1 + r % ((size_t)1 << (r % 14));

        plen = n == FEED_PIECES - 1 ? left : (plen < left ? plen : left);
        f->piov[n].iov_base = f->arena + at;
        f->piov[n].iov_len  = plen;
        f->arena[at + plen] = FEED_CANARY;
        at += plen + 1;
        left -= plen;
        ++n;
        if (n == FEED_PIECES) {
            break;
        }
    }
    f->npieces    = n;
    f->scattering = 1;
    f->chunk_len  = len;
    sc->iov = f->piov;
    sc->cnt = n;
    sc->idx = 0;
    sc->off = 0;
    return 1;
}

static loom_status_t feed_data_end(void *arg, const loom_tcp_data_hdr_t *dh, size_t len)
{
    feed_t *f = arg;

    (void)dh;
    if (len != f->chunk_len) {
        __builtin_trap();
    }
    if (f->scattering) {
        for (size_t i = 0; i < f->npieces; ++i) {
            if (((uint8_t *)f->piov[i].iov_base)[f->piov[i].iov_len] != FEED_CANARY) {
                __builtin_trap();          /* a write between pieces */
            }
        }
        f->scattering = 0;
    }
    return LOOM_OK;
}

/* take every other AM frame offered, keeping part of its rest */
static int feed_place(void *arg, const void *head, size_t have, size_t len,
                      loom_tl_place_t *place)
{
    feed_t *f = arg;
    uint8_t sum = 0;

    if (f->placing || have >= len || len - have < LOOM_TCP_DIRECT_MIN ||
        have < (len < LOOM_TL_PLACE_HEAD ? len : LOOM_TL_PLACE_HEAD)) {
        __builtin_trap();                  /* the offer's promises */
    }
    for (size_t i = 0; i < have; ++i) {
        sum ^= ((const uint8_t *)head)[i]; /* every head byte must be readable */
    }
    f->sink[0] = sum;
    if ((next_rand(f) & 1) == 0) {
        return 0;
    }
    f->placing    = 1;
    f->place_rest = len - have;
    place->keep   = f->place_rest - f->place_rest / (1 + next_rand(f) % 3);
    place->dst    = place->keep <= sizeof(f->sink) ? f->sink : NULL;
    if (place->dst == NULL) {
        place->keep = 0;
    }
    return 1;
}

static loom_status_t feed_place_end(void *arg)
{
    feed_t *f = arg;

    if (!f->placing) {
        __builtin_trap();
    }
    f->placing = 0;
    ++f->frames;
    return LOOM_OK;
}

static const loom_tcp_rx_ops_t feed_ops = {
    .readv      = feed_read,
    .frame      = feed_frame,
    .data_begin = feed_data_begin,
    .data_scatter = feed_data_scatter,
    .data_end   = feed_data_end,
    .place      = feed_place,
    .place_end  = feed_place_end,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static feed_t f;
    loom_tcp_rx_t rx;
    size_t caps[] = { 16, 64, 256, 4096, 65536 };
    loom_status_t st = LOOM_OK;

    if (size < 2) {
        return 0;
    }
    f.p = data + 2;
    f.left = size - 2;
    f.rng = data[0] * 2654435761u;
    f.frames = 0;
    f.placing = 0;
    f.scattering = 0;
    if (loom_tcp_rx_init(&rx, caps[data[1] % 5], caps[data[1] % 5] - 8,
                         sizeof(f.sink)) != LOOM_OK) {
        return 0;
    }
    rx.fill_max = (size_t[]){ 0, 1, 24, 4096 }[(data[1] / 5) & 3];
    for (int rounds = 0; rounds < 10000; ++rounds) {
        st = loom_tcp_rx_progress(&rx, &feed_ops, &f, 1 + data[0]);
        if (st != LOOM_OK && st != LOOM_INPROGRESS) {
            break;
        }
        if (f.left == 0 && st == LOOM_OK && rx.dst_left == 0 && rx.pos == rx.end) {
            break;
        }
    }
    if (st == LOOM_ERR_TRANSPORT && rx.why[0] == '\0') {
        __builtin_trap();                  /* a protocol error must say why */
    }
    loom_tcp_rx_cleanup(&rx);
    return 0;
}
