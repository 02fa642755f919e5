/*
 * tcp_wire.c: the frame parser and the handshake checks of the TCP
 * transport. Pure byte logic over a read callback, so the unit tests can
 * feed it streams cut at random places.
 *
 * The parser keeps one buffer per connection and dispatches every whole
 * frame from it without copying. GET_DATA bodies are the exception: once
 * their header is parsed they go straight to the destination the owner of
 * the parser names (the user's receive buffer), first from what is already
 * buffered, then by reading from the socket into the destination itself
 * (one readv() that also fills the buffer with what follows). The owner may
 * bound how far ahead the parser reads into its buffer (fill_max) while it
 * expects data chunks, so that a chunk's body is not first pulled into the
 * buffer with the header before it and copied out again.
 *
 * A GET_DATA body may also go to a list of pieces (ops->data_scatter, a
 * typed receive's get_iov): the same two steps, the buffered bytes copied
 * piece by piece, the rest read with one readv() over up to
 * LOOM_TCP_RX_SCATTER of the pieces (and the buffer behind them).
 *
 * An AM frame whose body is not all in yet is offered to the owner
 * (ops->place) once its first bytes are: if the owner takes it, the rest
 * of its body is received in place the same way (an eager message read
 * straight into the receive buffer that matched it, the pushed part of a
 * rendezvous into its receive). The read-ahead is not bounded for this: a
 * stream of frames is still read in large pieces, and only a frame cut by
 * the end of a read is placed (reading each frame's body apart from the
 * next header costs a syscall per frame and, over loopback, made the
 * sender's copies slower: the reader then follows the writer closely).
 */
#include "tcp_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOOM_TCP_HDR_LEN   sizeof(loom_tcp_frame_hdr_t)
#define LOOM_TCP_DHDR_LEN  sizeof(loom_tcp_data_hdr_t)

/* destination pieces one direct read fills at most (a readv of these + the buffer) */
#define LOOM_TCP_RX_SCATTER 256

/* internal outcome of a parsing step */
enum { RX_NEED = 2, RX_AGAIN = 3 };

loom_status_t loom_tcp_rx_init(loom_tcp_rx_t *rx, size_t cap, size_t max_body,
                               size_t max_data)
{
    memset(rx, 0, sizeof(*rx));
    rx->buf = malloc(cap);
    if (rx->buf == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    rx->cap      = cap;
    rx->max_body = max_body;
    rx->max_data = max_data;
    return LOOM_OK;
}

loom_status_t loom_tcp_rx_resize(loom_tcp_rx_t *rx, size_t cap, size_t max_body,
                                 size_t max_data)
{
    size_t avail = rx->end - rx->pos;
    uint8_t *nbuf;

    if (cap < avail) {
        return LOOM_ERR_INVALID_ARG;
    }
    nbuf = malloc(cap);
    if (nbuf == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    memcpy(nbuf, rx->buf + rx->pos, avail);
    free(rx->buf);
    rx->buf      = nbuf;
    rx->cap      = cap;
    rx->pos      = 0;
    rx->end      = avail;
    rx->max_body = max_body;
    rx->max_data = max_data;
    return LOOM_OK;
}

void loom_tcp_rx_cleanup(loom_tcp_rx_t *rx)
{
    free(rx->buf);
    rx->buf = NULL;
    rx->cap = rx->pos = rx->end = 0;
}

/* Turn a read result into a parser outcome. */
static int loom_tcp_rx_read_result(loom_tcp_rx_t *rx, ssize_t r)
{
    if (r > 0) {
        return LOOM_OK;
    }
    if (r == 0) {
        rx->eof = 1;
        return LOOM_ERR_CONNECTION;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return RX_AGAIN;
    }
    if (errno == EINTR) {
        return RX_NEED;      /* just try again */
    }
    rx->err = errno;
    return LOOM_ERR_IO;
}

/* One read into the pieces @p iov; account it. */
static int loom_tcp_rx_readv(loom_tcp_rx_t *rx, const loom_tcp_rx_ops_t *ops, void *arg,
                             const struct iovec *iov, int cnt, size_t *done_p,
                             int *short_p, size_t *got_p)
{
    size_t want = 0;
    ssize_t r;
    int st;

    for (int i = 0; i < cnt; ++i) {
        want += iov[i].iov_len;
    }
    r = ops->readv(arg, iov, cnt);
    st = loom_tcp_rx_read_result(rx, r);
    if (st == LOOM_OK) {
        *got_p = (size_t)r;
        *done_p += (size_t)r;
        *short_p = (size_t)r < want;
    }
    return st;
}

/*
 * Read more bytes into the buffer, compacting it first when needed. With
 * rx->fill_max set, read no further ahead than that (or than the frame
 * being assembled needs), so data chunks are left in the socket for
 * loom_tcp_rx_data to read in place.
 */
static int loom_tcp_rx_fill(loom_tcp_rx_t *rx, const loom_tcp_rx_ops_t *ops, void *arg,
                            size_t *done_p, int *short_p)
{
    struct iovec iov;
    size_t got = 0;
    int st;

    if (rx->pos == rx->end) {
        rx->pos = rx->end = 0;
    } else if (rx->pos > 0 && rx->cap - rx->end < rx->cap / 2) {
        memmove(rx->buf, rx->buf + rx->pos, rx->end - rx->pos);
        rx->end -= rx->pos;
        rx->pos = 0;
    }
    iov.iov_base = rx->buf + rx->end;
    iov.iov_len  = rx->cap - rx->end;
    if (rx->fill_max != 0) {
        iov.iov_len = LOOM_MIN(iov.iov_len, LOOM_MAX(rx->fill_max, rx->need));
    }
    st = loom_tcp_rx_readv(rx, ops, arg, &iov, 1, done_p, short_p, &got);
    if (st == LOOM_OK) {
        rx->end += got;
    }
    return st;
}

static int loom_tcp_rx_protocol_error(loom_tcp_rx_t *rx, const char *what, unsigned type,
                                      size_t len)
{
    snprintf(rx->why, sizeof(rx->why), "%s (frame type %u, length %zu)", what, type, len);
    return LOOM_ERR_TRANSPORT;
}

/* Start receiving the rest of a body in place (dst NULL or keep 0: drop it). */
static void loom_tcp_rx_dst_begin(loom_tcp_rx_t *rx, void *dst, size_t len, size_t keep)
{
    rx->sc.iov   = NULL;
    rx->dst      = dst;
    rx->dst_len  = len;
    rx->dst_left = len;
    rx->dst_keep = dst != NULL ? LOOM_MIN(keep, len) : 0;
}

/* Move the scatter position @p n bytes on (empty pieces are stepped over). */
static void loom_tcp_sc_advance(loom_tcp_scatter_t *sc, size_t n)
{
    while (sc->idx < sc->cnt && n >= sc->iov[sc->idx].iov_len - sc->off) {
        n -= sc->iov[sc->idx].iov_len - sc->off;
        sc->idx++;
        sc->off = 0;
    }
    sc->off += n;   /* n is 0 past the last piece: the chunk fits the pieces */
}

/* Copy @p n buffered body bytes to the scatter position and move it on. */
static void loom_tcp_sc_copy(loom_tcp_scatter_t *sc, const uint8_t *src, size_t n)
{
    while (n > 0 && sc->idx < sc->cnt) {
        size_t m = LOOM_MIN(n, sc->iov[sc->idx].iov_len - sc->off);

        memcpy((uint8_t *)sc->iov[sc->idx].iov_base + sc->off, src, m);
        src += m;
        n   -= m;
        loom_tcp_sc_advance(sc, m);
    }
}

/*
 * The pieces of the next @p want bytes from the scatter position, at most
 * @p max of them, into @p iov: @return their count; *bytes_p what they hold.
 */
static int loom_tcp_sc_iov(const loom_tcp_scatter_t *sc, size_t want, struct iovec *iov,
                           int max, size_t *bytes_p)
{
    size_t idx = sc->idx, off = sc->off, bytes = 0;
    int n = 0;

    while (bytes < want && idx < sc->cnt && n < max) {
        size_t m = LOOM_MIN(want - bytes, sc->iov[idx].iov_len - off);

        if (m > 0) {
            iov[n].iov_base = (uint8_t *)sc->iov[idx].iov_base + off;
            iov[n].iov_len  = m;
            ++n;
            bytes += m;
        }
        ++idx;
        off = 0;
    }
    *bytes_p = bytes;
    return n;
}

/* Keep @p n buffered body bytes at body offset @p off (one range or the pieces). */
static void loom_tcp_rx_keep(loom_tcp_rx_t *rx, size_t off, const uint8_t *src, size_t n)
{
    if (rx->sc.iov != NULL) {
        loom_tcp_sc_copy(&rx->sc, src, n);
    } else {
        memcpy(rx->dst + off, src, n);
    }
}

/*
 * Offer the AM frame at rx->pos, cut after its first body bytes, to the
 * owner. LOOM_OK: taken (its buffered bytes consumed, the rest in place);
 * RX_NEED: more bytes first (its head is not in), or declined.
 */
static int loom_tcp_rx_place(loom_tcp_rx_t *rx, const loom_tcp_rx_ops_t *ops, void *arg,
                             const loom_tcp_frame_hdr_t *hdr)
{
    size_t have = rx->end - rx->pos - LOOM_TCP_HDR_LEN;
    size_t head = LOOM_MIN((size_t)hdr->len, (size_t)LOOM_TL_PLACE_HEAD);
    loom_tl_place_t place = { NULL, 0 };

    if (have < head) {
        rx->need = head - have;
        return RX_NEED;
    }
    if (!ops->place(arg, rx->buf + rx->pos + LOOM_TCP_HDR_LEN, have, hdr->len, &place)) {
        rx->place_asked = 1;   /* (rx->need is still the whole frame's) */
        return RX_NEED;
    }
    rx->placing      = 1;
    rx->pos          = rx->end;   /* everything buffered belongs to this frame */
    loom_tcp_rx_dst_begin(rx, place.dst, hdr->len - have, place.keep);
    return LOOM_OK;
}

/* Parse the frame at rx->pos if it is whole. RX_NEED if more bytes are needed. */
static int loom_tcp_rx_parse_one(loom_tcp_rx_t *rx, const loom_tcp_rx_ops_t *ops,
                                 void *arg)
{
    size_t avail = rx->end - rx->pos;
    loom_tcp_frame_hdr_t hdr;
    size_t dlen;

    if (avail < LOOM_TCP_HDR_LEN) {
        rx->need = LOOM_TCP_HDR_LEN - avail;
        return RX_NEED;
    }
    memcpy(&hdr, rx->buf + rx->pos, LOOM_TCP_HDR_LEN);
    if (hdr.type < LOOM_TCP_HELLO || hdr.type > LOOM_TCP_BYE) {
        return loom_tcp_rx_protocol_error(rx, "unknown frame type", hdr.type, hdr.len);
    }
    if (hdr.type != LOOM_TCP_GET_DATA) {
        if (hdr.len > rx->max_body) {
            return loom_tcp_rx_protocol_error(rx, "frame too long", hdr.type, hdr.len);
        }
        if (avail < LOOM_TCP_HDR_LEN + hdr.len) {
            rx->need = LOOM_TCP_HDR_LEN + hdr.len - avail;
            if (hdr.type == LOOM_TCP_AM && ops->place != NULL && !rx->place_asked &&
                rx->need >= LOOM_TCP_DIRECT_MIN) {
                return loom_tcp_rx_place(rx, ops, arg, &hdr);
            }
            return RX_NEED;
        }
        rx->place_asked  = 0;
        rx->pos += LOOM_TCP_HDR_LEN + hdr.len;
        return ops->frame(arg, hdr.type, rx->buf + rx->pos - hdr.len, hdr.len);
    }
    if (hdr.len < LOOM_TCP_DHDR_LEN || hdr.len - LOOM_TCP_DHDR_LEN > rx->max_data) {
        return loom_tcp_rx_protocol_error(rx, "bad data chunk length", hdr.type, hdr.len);
    }
    if (avail < LOOM_TCP_HDR_LEN + LOOM_TCP_DHDR_LEN) {
        rx->need = LOOM_TCP_HDR_LEN + LOOM_TCP_DHDR_LEN - avail;
        return RX_NEED;
    }
    memcpy(&rx->dh, rx->buf + rx->pos + LOOM_TCP_HDR_LEN, LOOM_TCP_DHDR_LEN);
    rx->pos += LOOM_TCP_HDR_LEN + LOOM_TCP_DHDR_LEN;
    dlen = hdr.len - LOOM_TCP_DHDR_LEN;
    if (dlen > 0 && ops->data_scatter != NULL &&
        ops->data_scatter(arg, &rx->dh, dlen, &rx->sc)) {
        rx->dst      = NULL;   /* every byte goes to rx->sc's pieces */
        rx->dst_len  = dlen;
        rx->dst_left = dlen;
        rx->dst_keep = dlen;
    } else {
        loom_tcp_rx_dst_begin(rx, ops->data_begin(arg, &rx->dh, dlen), dlen, dlen);
    }
    if (dlen == 0) {
        return ops->data_end(arg, &rx->dh, 0);
    }
    return LOOM_OK;
}

/*
 * Read the kept rest of an in-place body (@p want bytes) straight into its
 * destination, and in the same call whatever follows it into the (empty)
 * buffer, as Open MPI's endpoint cache does: the frames after a body cost
 * no extra read.
 */
static int loom_tcp_rx_direct(loom_tcp_rx_t *rx, const loom_tcp_rx_ops_t *ops, void *arg,
                              size_t want, size_t *done_p, int *short_p)
{
    struct iovec iov[LOOM_TCP_RX_SCATTER + 1];
    size_t got = 0, cover = want;
    int n = 1, st;

    rx->pos = rx->end = 0;   /* called with nothing buffered */
    if (rx->sc.iov != NULL) {
        n = loom_tcp_sc_iov(&rx->sc, want, iov, LOOM_TCP_RX_SCATTER, &cover);
    } else {
        iov[0].iov_base = rx->dst + (rx->dst_len - rx->dst_left);
        iov[0].iov_len  = want;
    }
    if (cover == want) {   /* else more pieces follow: the next read goes to them too */
        iov[n].iov_base = rx->buf;
        iov[n].iov_len  = rx->fill_max != 0 ? LOOM_MIN(rx->fill_max, rx->cap) : rx->cap;
        ++n;
    }
    if (n == 0) {   /* (the owner checked the chunk fits its pieces) */
        return loom_tcp_rx_protocol_error(rx, "data chunk past its pieces", LOOM_TCP_GET_DATA,
                                          rx->dst_len);
    }
    want = cover;
    st = loom_tcp_rx_readv(rx, ops, arg, iov, n, done_p, short_p, &got);
    if (st == LOOM_OK) {
        if (got > want) {
            rx->end = got - want;
            got = want;
        }
        rx->dst_left -= got;
        if (rx->sc.iov != NULL) {
            loom_tcp_sc_advance(&rx->sc, got);
        }
    }
    return st;
}

/*
 * Move an in-place body: first what is buffered, then straight from the
 * socket into the destination; bytes past dst_keep are dropped. LOOM_OK
 * once the body is complete.
 */
static int loom_tcp_rx_data(loom_tcp_rx_t *rx, const loom_tcp_rx_ops_t *ops, void *arg,
                            size_t *done_p, int *short_p)
{
    while (rx->dst_left > 0) {
        size_t avail = rx->end - rx->pos;
        size_t off = rx->dst_len - rx->dst_left;
        size_t kept_left = rx->dst_keep > off ? rx->dst_keep - off : 0;
        int st;

        if (avail > 0) {
            size_t n = LOOM_MIN(avail, rx->dst_left);
            if (kept_left > 0) {
                loom_tcp_rx_keep(rx, off, rx->buf + rx->pos, LOOM_MIN(n, kept_left));
            }
            rx->pos += n;
            rx->dst_left -= n;
            continue;
        }
        if (*short_p) {
            return RX_AGAIN;   /* the last read drained the socket */
        }
        if (kept_left >= LOOM_TCP_DIRECT_MIN) {
            st = loom_tcp_rx_direct(rx, ops, arg, kept_left, done_p, short_p);
        } else {
            rx->need = rx->dst_left;
            st = loom_tcp_rx_fill(rx, ops, arg, done_p, short_p);
        }
        if (st != LOOM_OK && st != RX_NEED) {
            return st;
        }
    }
    if (rx->placing) {
        rx->placing = 0;
        return ops->place_end(arg);
    }
    return ops->data_end(arg, &rx->dh, rx->dst_len);
}

loom_status_t loom_tcp_rx_progress(loom_tcp_rx_t *rx, const loom_tcp_rx_ops_t *ops,
                                   void *arg, size_t budget)
{
    size_t done = 0;
    int short_read = 0;
    int st;

    for (;;) {
        if (rx->dst_left > 0) {
            st = loom_tcp_rx_data(rx, ops, arg, &done, &short_read);
        } else {
            st = loom_tcp_rx_parse_one(rx, ops, arg);
        }
        if (st == LOOM_OK) {
            continue;
        }
        if (st != RX_NEED) {
            return st == RX_AGAIN ? LOOM_OK : (loom_status_t)st;
        }
        /* every whole frame in the buffer is dispatched: read more, if allowed */
        if (short_read || done >= budget) {
            return LOOM_OK;
        }
        if (rx->end - rx->pos == rx->cap) {
            return loom_tcp_rx_protocol_error(rx, "frame larger than the buffer", 0,
                                              rx->cap);
        }
        st = loom_tcp_rx_fill(rx, ops, arg, &done, &short_read);
        if (st == RX_AGAIN) {
            return LOOM_OK;
        }
        if (st != LOOM_OK && st != RX_NEED) {
            return (loom_status_t)st;
        }
    }
}

void loom_tcp_hello_pack(loom_tcp_hello_t *h, int src, int dst, const uint8_t *secret)
{
    memset(h, 0, sizeof(*h));
    h->magic    = LOOM_TCP_MAGIC;
    h->version  = LOOM_TCP_VERSION;
    h->src_rank = src;
    h->dst_rank = dst;
    memcpy(h->secret, secret, LOOM_TCP_SECRET_LEN);
}

/* Compare without an early exit, so timing does not reveal the prefix. */
static int loom_tcp_secret_equal(const uint8_t *a, const uint8_t *b)
{
    unsigned diff = 0;

    for (size_t i = 0; i < LOOM_TCP_SECRET_LEN; ++i) {
        diff |= (unsigned)(a[i] ^ b[i]);
    }
    return diff == 0;
}

loom_status_t loom_tcp_hello_check(const void *body, size_t len, int my_rank, int size,
                                   const uint8_t *secret, int *src_p, char *why,
                                   size_t why_len)
{
    loom_tcp_hello_t h;

    if (len != sizeof(h)) {
        snprintf(why, why_len, "handshake of %zu bytes, expected %zu", len, sizeof(h));
        return LOOM_ERR_CONNECTION;
    }
    memcpy(&h, body, sizeof(h));
    if (h.magic != LOOM_TCP_MAGIC) {
        snprintf(why, why_len, "bad magic 0x%08x (not loom, or other byte order)",
                 (unsigned)h.magic);
        return LOOM_ERR_CONNECTION;
    }
    if (h.version != LOOM_TCP_VERSION) {
        snprintf(why, why_len, "protocol version %u, this library speaks %u",
                 (unsigned)h.version, LOOM_TCP_VERSION);
        return LOOM_ERR_CONNECTION;
    }
    if (!loom_tcp_secret_equal(h.secret, secret)) {
        snprintf(why, why_len, "wrong job secret (not a rank of this job)");
        return LOOM_ERR_CONNECTION;
    }
    if (h.dst_rank != my_rank) {
        snprintf(why, why_len, "addressed to rank %d, this is rank %d", (int)h.dst_rank,
                 my_rank);
        return LOOM_ERR_CONNECTION;
    }
    if (h.src_rank < 0 || h.src_rank >= size || h.src_rank == my_rank) {
        snprintf(why, why_len, "claims to be rank %d of a %d-rank job", (int)h.src_rank,
                 size);
        return LOOM_ERR_CONNECTION;
    }
    *src_p = h.src_rank;
    return LOOM_OK;
}
