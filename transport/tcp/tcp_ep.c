/*
 * tcp_ep.c: the data path of the TCP transport: am_send, the per-peer send
 * queue, rendezvous gets and the streams that serve them.
 *
 * am_send writes the frame with one sendmsg() when nothing is queued for the
 * peer; what the socket does not take (or everything, while connecting) is
 * copied into a pooled buffer and queued, up to LOOM_TCP_TXQ_MAX bytes per
 * peer, beyond which am_send answers LOOM_ERR_NO_RESOURCE. A queue drains
 * from progress() when epoll reports the socket writable, gathering several
 * frames per sendmsg(). Frames sent from a frame callback inside progress()
 * are corked: queued, and written together before the next read and at the
 * end of progress() (loom_tcp_iface_uncork), so a batch of RTS costs one
 * write of GET_REQs and a batch of finished gets one write of FINs.
 *
 * get() sends GET_REQ(id, address, length, region, cookie); the owner checks
 * the region is exposed and covers the range, then queues a stream that
 * sends the range as GET_DATA chunks straight from the user's buffer (a
 * region exposed with mem_pack_fill has each chunk's bytes produced by its
 * owner's callback when the chunk is armed: a typed send packing as it is
 * read; a producer's error ends the stream with GET_ERR). The
 * queue holds control frames first, then streams: a frame queued later
 * overtakes every stream but one already half written, and a stream goes
 * back to the tail after each chunk (round robin between streams). The
 * requester receives each chunk in place and completes the get when every
 * byte arrived. A get asked from inside another's completion is written at
 * once instead of corked: its caller (a typed receive double-buffering its
 * bounce, p2p_rndv.c) unpacks the bytes that arrived while these stream.
 * Should that write fail the connection, the get is refused, never
 * completed inside the call (test/tcp/test_tcp_rev13.c).
 */
#include "tcp_int.h"
#include "log_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define LOOM_TCP_HDR_LEN sizeof(loom_tcp_frame_hdr_t)
#define LOOM_TCP_IOV     32
/*
 * Bytes one sendmsg() of the queue writes at most. Under BBR (Debian's and
 * many clusters' default) the kernel paces what a socket sends; a write of
 * several MiB (64 queued streams of 1 MiB chunks, or one 4 MiB message)
 * then sits in the socket queue and goes out in timer-driven bursts, while
 * writes of at most 512 KiB keep data flowing (osu_bw over loopback, window
 * 64, medians of 4 alternating runs: 128 KiB-4 MiB 3500-4800 -> 5800-7600
 * MB/s against Open MPI's 5300-8000; 256 KiB per write was slower at 2-4
 * MiB, and osu_latency is unchanged up to 512 KiB and lower above).
 */
#define LOOM_TCP_WRITE_MAX (512u * 1024)
/* frames up to this size are copied into one buffer and sent with send() */
#define LOOM_TCP_SEND_COPY_MAX (4096 + 64)

/* ---- tx buffers --------------------------------------------------------------------- */

static loom_tcp_tx_t *loom_tcp_tx_alloc(loom_tcp_iface_t *iface, size_t frame_len, int must)
{
    loom_tcp_tx_t *tx = NULL;
    uint8_t mem;

    if (frame_len <= LOOM_TCP_SMALL_INLINE) {
        tx  = loom_mpool_get(&iface->tx_small);
        mem = LOOM_TCP_MEM_SMALL;
    } else if (frame_len <= LOOM_TCP_HDR_LEN + LOOM_TCP_MAX_AM) {
        tx  = loom_mpool_get(&iface->tx_large);
        mem = LOOM_TCP_MEM_LARGE;
    }
    if (tx == NULL) {
        if (!must) {
            return NULL;
        }
        /* a frame already half in the socket must be finished whatever it costs */
        tx  = malloc(sizeof(*tx) + frame_len);
        mem = LOOM_TCP_MEM_HEAP;
        if (tx == NULL) {
            return NULL;
        }
    }
    memset(tx, 0, sizeof(*tx));
    loom_list_init(&tx->link);
    tx->mem = mem;
    return tx;
}

static void loom_tcp_tx_free(loom_tcp_iface_t *iface, loom_tcp_tx_t *tx)
{
    free(tx->copy);
    switch (tx->mem) {
    case LOOM_TCP_MEM_SMALL:
        loom_mpool_put(&iface->tx_small, tx);
        break;
    case LOOM_TCP_MEM_LARGE:
        loom_mpool_put(&iface->tx_large, tx);
        break;
    default:
        free(tx);
        break;
    }
}

/* Give the requester GET_ERR(status) for a stream cut short. */
static void loom_tcp_tx_make_err(loom_tcp_tx_t *tx, loom_status_t status)
{
    loom_tcp_frame_hdr_t fh = { .len = sizeof(loom_tcp_get_err_t), .type = LOOM_TCP_GET_ERR };
    loom_tcp_get_err_t err = { .req_id = tx->req_id, .status = status };

    memcpy(tx->head, &fh, sizeof(fh));
    memcpy(tx->head + sizeof(fh), &err, sizeof(err));
    tx->kind   = LOOM_TCP_TX_HEAD;
    tx->len    = sizeof(fh) + sizeof(err);
    tx->off    = 0;
    tx->region = NULL;
}

/*
 * Prepare the stream's next chunk (at tx->next_off). While no control frame
 * waits in the queue (@p alone: only streams, if anything) chunks are
 * LOOM_TCP_CHUNK_MAX: the requester reads each chunk's body with its own
 * readv(), so bigger chunks mean fewer reads (osu_bw's 64 concurrent 4 MiB
 * messages: 1 MiB per chunk instead of 256 KiB). While frames are queued
 * too, LOOM_TCP_CHUNK, so the next frame waits less for the chunk in the
 * socket. A stream of 1 MiB or more that has the connection to itself
 * (@p alone 2: the queue was empty) starts with LOOM_TCP_FIRST_CHUNK. A
 * region exposed by mem_pack_fill has the chunk's bytes produced now;
 * its error (nothing armed) is the get's.
 */
static loom_status_t loom_tcp_tx_arm_chunk(loom_tcp_tx_t *tx, int alone)
{
    size_t chunk = LOOM_MIN(alone ? (size_t)LOOM_TCP_CHUNK_MAX : (size_t)LOOM_TCP_CHUNK,
                            tx->total - tx->next_off);
    const loom_tcp_region_t *r = tx->region;

    if (tx->next_off == 0 && alone > 1 && tx->total >= LOOM_TCP_CHUNK_MAX) {
        chunk = LOOM_TCP_FIRST_CHUNK;
    }
    if (r != NULL && r->fill != NULL) {
        loom_status_t st = r->fill(r->fill_arg, (size_t)(tx->base - r->addr) + tx->next_off,
                                   chunk, 0);
        if (st != LOOM_OK) {
            return st;
        }
    }
    loom_tcp_frame_hdr_t fh = { .len = (uint32_t)(sizeof(loom_tcp_data_hdr_t) + chunk),
                                .type = LOOM_TCP_GET_DATA };
    loom_tcp_data_hdr_t dh = { .req_id = tx->req_id, .offset = tx->next_off };

    memcpy(tx->head, &fh, sizeof(fh));
    memcpy(tx->head + sizeof(fh), &dh, sizeof(dh));
    tx->len = LOOM_TCP_TX_HEAD_LEN + chunk;
    tx->off = 0;
    return LOOM_OK;
}

/* The unwritten part of @p tx's current frame as iovecs. @return its bytes. */
static size_t loom_tcp_tx_iov(const loom_tcp_tx_t *tx, struct iovec *iov, int *cnt_p)
{
    size_t rest = tx->len - tx->off;
    const uint8_t *chunk;
    size_t hl = LOOM_TCP_TX_HEAD_LEN;
    int cnt = *cnt_p;

    if (tx->kind == LOOM_TCP_TX_BOUNCE) {
        iov[cnt++] = (struct iovec){ (void *)(tx->data + tx->off), rest };
    } else if (tx->kind == LOOM_TCP_TX_HEAD) {
        iov[cnt++] = (struct iovec){ (void *)(tx->head + tx->off), rest };
    } else {
        chunk = tx->copy != NULL ? tx->copy : tx->base + tx->next_off;
        if (tx->off < hl) {
            iov[cnt++] = (struct iovec){ (void *)(tx->head + tx->off), hl - tx->off };
            if (tx->len > hl) {
                iov[cnt++] = (struct iovec){ (void *)chunk, tx->len - hl };
            }
        } else {
            iov[cnt++] = (struct iovec){ (void *)(chunk + (tx->off - hl)), rest };
        }
    }
    *cnt_p = cnt;
    return rest;
}

/*
 * Queue a control frame (a bounce copy) behind the other control frames but
 * ahead of the streams, never in front of a frame already half in the socket.
 */
static void loom_tcp_ep_txq_add_ctl(loom_tcp_ep_t *ep, loom_tcp_tx_t *tx)
{
    loom_list_t *after = ep->ctl_last;

    if (after == &ep->txq && !loom_list_is_empty(&ep->txq) &&
        loom_list_head_entry(&ep->txq, loom_tcp_tx_t, link)->off > 0) {
        after = ep->txq.next;
    }
    loom_list_add_head(after, &tx->link);
    ep->ctl_last = &tx->link;
}

/* Take the head frame @p tx off the queue. */
static void loom_tcp_ep_txq_del(loom_tcp_ep_t *ep, loom_tcp_tx_t *tx)
{
    if (ep->ctl_last == &tx->link) {
        ep->ctl_last = &ep->txq;
    }
    loom_list_del(&tx->link);
}

/*
 * The last chunk of stream @p tx of a filled region is written: with
 * nothing else queued for the peer, let the region's producer make the
 * range the peer is likely to read next (the same length, right after,
 * within the region), so the pack happens while this rank would wait for
 * the next request.
 */
static void loom_tcp_tx_fill_ahead(const loom_tcp_ep_t *ep, const loom_tcp_tx_t *tx)
{
    const loom_tcp_region_t *r = tx->region;
    size_t end = (size_t)(tx->base - r->addr) + tx->total;

    if (r->fill != NULL && end < r->len && loom_list_is_empty(&ep->txq)) {
        (void)r->fill(r->fill_arg, end, LOOM_MIN(tx->total, r->len - end), 1);
    }
}

/* The current frame of @p tx (already off the queue) is written. */
static void loom_tcp_tx_done(loom_tcp_ep_t *ep, loom_tcp_tx_t *tx)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);

    if (tx->kind == LOOM_TCP_TX_BOUNCE) {
        ep->txq_bytes -= tx->len;
    } else if (tx->kind == LOOM_TCP_TX_STREAM) {
        tx->next_off += tx->len - LOOM_TCP_TX_HEAD_LEN;
        free(tx->copy);
        tx->copy = NULL;
        if (tx->err_after) {
            loom_tcp_tx_make_err(tx, LOOM_ERR_CANCELED);
            loom_list_add_tail(&ep->txq, &tx->link);
            return;
        }
        if (tx->next_off < tx->total) {
            loom_status_t st = loom_tcp_tx_arm_chunk(tx, ep->txq_bytes == 0);

            if (st != LOOM_OK) {   /* the region's bytes could not be produced */
                tx->region->streams--;
                loom_tcp_tx_make_err(tx, st);
            }
            loom_list_add_tail(&ep->txq, &tx->link);   /* round robin */
            return;
        }
        loom_tcp_tx_fill_ahead(ep, tx);
        tx->region->streams--;
    }
    loom_tcp_tx_free(iface, tx);
}

void loom_tcp_ep_drop_txq(loom_tcp_ep_t *ep)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);
    loom_list_t *e;

    while ((e = loom_list_pop_head(&ep->txq)) != NULL) {
        loom_tcp_tx_t *tx = loom_list_entry(e, loom_tcp_tx_t, link);
        if (tx->kind == LOOM_TCP_TX_STREAM && tx->region != NULL) {
            tx->region->streams--;
        }
        loom_tcp_tx_free(iface, tx);
    }
    ep->ctl_last  = &ep->txq;
    ep->txq_bytes = 0;
}

/* ---- writing ---------------------------------------------------------------------------- */

static void loom_tcp_ep_advance(loom_tcp_ep_t *ep, size_t n)
{
    while (n > 0 && !loom_list_is_empty(&ep->txq)) {
        loom_tcp_tx_t *tx = loom_list_head_entry(&ep->txq, loom_tcp_tx_t, link);
        size_t rest = tx->len - tx->off;

        if (n < rest) {
            tx->off += n;
            return;
        }
        n -= rest;
        loom_tcp_ep_txq_del(ep, tx);
        loom_tcp_tx_done(ep, tx);
    }
}

static loom_status_t loom_tcp_ep_send_failed(loom_tcp_ep_t *ep, int err)
{
    loom_tcp_ep_fail(ep, (err == EPIPE || err == ECONNRESET) ? LOOM_ERR_PEER_FAILED
                                                             : LOOM_ERR_CONNECTION,
                     "send", strerror(err));
    return LOOM_ERR_CONNECTION;
}

/* Cut the gathered @p iov (@p bytes in all) to at most @p max bytes. @return its bytes. */
static size_t loom_tcp_iov_trim(struct iovec *iov, int *cnt_p, size_t bytes, size_t max)
{
    size_t acc = 0;
    int i;

    if (bytes <= max) {
        return bytes;
    }
    for (i = 0; acc + iov[i].iov_len < max; ++i) {
        acc += iov[i].iov_len;
    }
    iov[i].iov_len = max - acc;
    *cnt_p = i + 1;
    return max;
}

loom_status_t loom_tcp_ep_flush(loom_tcp_ep_t *ep)
{
    loom_tcp_conn_t *conn = ep->conn;

    if (ep->state != LOOM_TCP_EP_UP || conn == NULL || conn->state != LOOM_TCP_CONN_UP) {
        return LOOM_OK;
    }
    while (!loom_list_is_empty(&ep->txq)) {
        struct iovec iov[LOOM_TCP_IOV];
        struct msghdr msg = { .msg_iov = iov };
        size_t bytes = 0;
        loom_tcp_tx_t *tx;
        ssize_t n;
        int cnt = 0;

        loom_list_for_each(tx, &ep->txq, link) {
            if (cnt + 2 > LOOM_TCP_IOV || bytes >= LOOM_TCP_WRITE_MAX) {
                break;
            }
            bytes += loom_tcp_tx_iov(tx, iov, &cnt);
        }
        bytes = loom_tcp_iov_trim(iov, &cnt, bytes, LOOM_TCP_WRITE_MAX);
        msg.msg_iovlen = (size_t)cnt;
        n = sendmsg(conn->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                return loom_tcp_conn_set_events(conn, EPOLLIN | EPOLLOUT);
            }
            return loom_tcp_ep_send_failed(ep, errno);
        }
        loom_tcp_ep_advance(ep, (size_t)n);
        if ((size_t)n < bytes) {
            return loom_tcp_conn_set_events(conn, EPOLLIN | EPOLLOUT);
        }
    }
    return loom_tcp_conn_set_events(conn, EPOLLIN);
}

/* Corking: queue @p ep's frames until loom_tcp_iface_uncork writes them. */
static void loom_tcp_ep_cork(loom_tcp_ep_t *ep)
{
    if (loom_list_is_empty(&ep->cork_link)) {
        loom_list_add_tail(&loom_tcp_ep_iface(ep)->corked, &ep->cork_link);
    }
}

/* Flush now, or at uncork when called from a frame callback in progress(). */
static loom_status_t loom_tcp_ep_flush_soon(loom_tcp_ep_t *ep)
{
    if (loom_tcp_ep_iface(ep)->corking) {
        loom_tcp_ep_cork(ep);
        return LOOM_OK;
    }
    return loom_tcp_ep_flush(ep);
}

void loom_tcp_iface_uncork(loom_tcp_iface_t *iface)
{
    loom_list_t *e;

    while ((e = loom_list_pop_head(&iface->corked)) != NULL) {
        loom_tcp_ep_flush(loom_list_entry(e, loom_tcp_ep_t, cork_link));
    }
}

/*
 * Copy the frame (header, a, b) into @p tx, leaving out its first @p skip
 * bytes (already in the socket): only the unsent rest is queued.
 */
static void loom_tcp_tx_fill(loom_tcp_tx_t *tx, const loom_tcp_frame_hdr_t *fh,
                             const void *a, size_t a_len, const void *b, size_t b_len,
                             size_t skip)
{
    const struct iovec parts[3] = { { (void *)fh, LOOM_TCP_HDR_LEN }, { (void *)a, a_len },
                                    { (void *)b, b_len } };
    uint8_t *p = tx->data;

    for (int i = 0; i < 3; ++i) {
        size_t k = LOOM_MIN(skip, parts[i].iov_len);

        skip -= k;
        if (parts[i].iov_len > k) {
            memcpy(p, (const uint8_t *)parts[i].iov_base + k, parts[i].iov_len - k);
            p += parts[i].iov_len - k;
        }
    }
    tx->kind = LOOM_TCP_TX_BOUNCE;
    tx->len  = (size_t)(p - tx->data);
}

/* Copy a whole frame into @p tx and queue it (behind the control frames). */
static void loom_tcp_ep_enqueue(loom_tcp_ep_t *ep, loom_tcp_tx_t *tx,
                                const loom_tcp_frame_hdr_t *fh, const void *a, size_t a_len,
                                const void *b, size_t b_len)
{
    loom_tcp_tx_fill(tx, fh, a, a_len, b, b_len, 0);
    ep->txq_bytes += tx->len;
    loom_tcp_ep_txq_add_ctl(ep, tx);
}

/*
 * One write of a frame. A small one is gathered on the stack and goes out
 * with send(): the kernel then copies one buffer instead of importing and
 * walking three iovecs, which is measurable at a few microseconds per
 * message over loopback.
 */
static ssize_t loom_tcp_ep_write(int fd, const loom_tcp_frame_hdr_t *fh, const void *a,
                                 size_t a_len, const void *b, size_t b_len, size_t total)
{
    struct iovec iov[3] = { { (void *)fh, LOOM_TCP_HDR_LEN }, { (void *)a, a_len },
                            { (void *)b, b_len } };
    struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 3 };
    uint8_t small[LOOM_TCP_SEND_COPY_MAX];

    if (total <= sizeof(small)) {
        memcpy(small, fh, LOOM_TCP_HDR_LEN);
        if (a_len > 0) {
            memcpy(small + LOOM_TCP_HDR_LEN, a, a_len);
        }
        if (b_len > 0) {
            memcpy(small + LOOM_TCP_HDR_LEN + a_len, b, b_len);
        }
        return send(fd, small, total, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    return sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Fast path: the peer is up and nothing is queued; write directly. */
static loom_status_t loom_tcp_ep_send_now(loom_tcp_ep_t *ep, const loom_tcp_frame_hdr_t *fh,
                                          const void *a, size_t a_len, const void *b,
                                          size_t b_len)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);
    size_t total = LOOM_TCP_HDR_LEN + a_len + b_len;
    loom_tcp_tx_t *tx;
    ssize_t n;

    do {
        n = loom_tcp_ep_write(ep->conn->fd, fh, a, a_len, b, b_len, total);
    } while (n < 0 && errno == EINTR);
    if ((size_t)n == total) {
        return LOOM_OK;
    }
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            return loom_tcp_ep_send_failed(ep, errno);
        }
        n = 0;
    }
    /* the rest waits in the queue; a half-written frame cannot be refused */
    tx = loom_tcp_tx_alloc(iface, total - (size_t)n, n > 0);
    if (tx == NULL) {
        if (n == 0) {
            return LOOM_ERR_NO_RESOURCE;
        }
        loom_tcp_ep_fail(ep, LOOM_ERR_NO_MEMORY, "send", "out of memory for a frame");
        return LOOM_ERR_NO_MEMORY;
    }
    loom_tcp_tx_fill(tx, fh, a, a_len, b, b_len, (size_t)n);
    ep->txq_bytes += tx->len;
    loom_tcp_ep_txq_add_ctl(ep, tx);
    return loom_tcp_conn_set_events(ep->conn, EPOLLIN | EPOLLOUT);
}

loom_status_t loom_tcp_ep_send_frame(loom_tcp_ep_t *ep, unsigned type, const void *a,
                                     size_t a_len, const void *b, size_t b_len, int force)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);
    loom_tcp_frame_hdr_t fh = { .len = (uint32_t)(a_len + b_len), .type = (uint8_t)type };
    size_t total = LOOM_TCP_HDR_LEN + a_len + b_len;
    loom_tcp_tx_t *tx;

    if (loom_unlikely(ep->state >= LOOM_TCP_EP_CLOSED)) {
        if (ep->state == LOOM_TCP_EP_CLOSED) {
            loom_error("tcp", "rank %d: cannot send to rank %d@%s: it has finalized",
                       iface->rank, ep->super.peer, loom_tcp_host_of(iface, ep->super.peer));
            return LOOM_ERR_CONNECTION;
        }
        return LOOM_ERR_PEER_FAILED;   /* reported when it failed */
    }
    if (ep->state == LOOM_TCP_EP_UP && loom_list_is_empty(&ep->txq)) {
        /* a frame callback's reply is corked: one write for the whole batch */
        if (!iface->corking || total > LOOM_TCP_SMALL_INLINE ||
            (tx = loom_tcp_tx_alloc(iface, total, 0)) == NULL) {
            return loom_tcp_ep_send_now(ep, &fh, a, a_len, b, b_len);
        }
        loom_tcp_ep_enqueue(ep, tx, &fh, a, a_len, b, b_len);
        loom_tcp_ep_cork(ep);
        return LOOM_OK;
    }
    if (!force && ep->txq_bytes + total > LOOM_TCP_TXQ_MAX) {
        return LOOM_ERR_NO_RESOURCE;
    }
    tx = loom_tcp_tx_alloc(iface, total, force);
    if (tx == NULL) {
        return force ? LOOM_ERR_NO_MEMORY : LOOM_ERR_NO_RESOURCE;
    }
    loom_tcp_ep_enqueue(ep, tx, &fh, a, a_len, b, b_len);
    if (ep->state == LOOM_TCP_EP_IDLE) {
        return loom_tcp_ep_connect(ep);   /* the frame leaves after the handshake */
    }
    return LOOM_OK;
}

loom_status_t loom_tcp_am_send(loom_tl_ep_t *tl_ep, const void *hdr, size_t hdr_len,
                               const void *payload, size_t payload_len)
{
    loom_tcp_ep_t *ep = loom_tcp_ep_of(tl_ep);

    if (loom_unlikely(hdr_len + payload_len > LOOM_TCP_MAX_AM)) {
        loom_error("tcp", "am_send to rank %d: frame of %zu bytes exceeds max_am %u",
                   tl_ep->peer, hdr_len + payload_len, LOOM_TCP_MAX_AM);
        return LOOM_ERR_INVALID_ARG;
    }
    return loom_tcp_ep_send_frame(ep, LOOM_TCP_AM, hdr, hdr_len, payload, payload_len, 0);
}

/*
 * Write a frame built whole in @p tx (a typed send's) at once when the
 * connection is up and idle: LOOM_OK with @p tx freed when all of it went,
 * else the unsent rest stays queued in @p tx (a half-written frame cannot
 * be refused).
 */
static loom_status_t loom_tcp_ep_send_built(loom_tcp_ep_t *ep, loom_tcp_tx_t *tx)
{
    ssize_t n;

    do {
        n = send(ep->conn->fd, tx->data, tx->len, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if ((size_t)n == tx->len) {
        loom_tcp_tx_free(loom_tcp_ep_iface(ep), tx);
        return LOOM_OK;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        loom_tcp_tx_free(loom_tcp_ep_iface(ep), tx);
        return loom_tcp_ep_send_failed(ep, errno);
    }
    tx->off = n > 0 ? (size_t)n : 0;
    ep->txq_bytes += tx->len;
    loom_tcp_ep_txq_add_ctl(ep, tx);
    return loom_tcp_conn_set_events(ep->conn, EPOLLIN | EPOLLOUT);
}

/*
 * tl.h am_send_pack: the frame (TCP header, @p hdr, then the payload that
 * @p pack writes) is built once in a buffer of the transport's tx pools,
 * then written from it, or queued as it is: the payload is packed straight
 * into memory the transport owns, never into a buffer of the caller's.
 * Back-pressure as am_send (the queue's byte cap, no pooled buffer):
 * LOOM_ERR_NO_RESOURCE before @p pack is called.
 */
loom_status_t loom_tcp_am_send_pack(loom_tl_ep_t *tl_ep, const void *hdr, size_t hdr_len,
                                    loom_tl_pack_cb_t pack, void *pack_arg, size_t payload_len)
{
    loom_tcp_ep_t *ep = loom_tcp_ep_of(tl_ep);
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);
    loom_tcp_frame_hdr_t fh = { .len = (uint32_t)(hdr_len + payload_len),
                                .type = LOOM_TCP_AM };
    size_t total = LOOM_TCP_HDR_LEN + hdr_len + payload_len;
    int idle = ep->state == LOOM_TCP_EP_UP && loom_list_is_empty(&ep->txq);
    loom_tcp_tx_t *tx;

    if (loom_unlikely(hdr_len + payload_len > LOOM_TCP_MAX_AM)) {
        loom_error("tcp", "am_send_pack to rank %d: frame of %zu bytes exceeds max_am %u",
                   tl_ep->peer, hdr_len + payload_len, LOOM_TCP_MAX_AM);
        return LOOM_ERR_INVALID_ARG;
    }
    if (loom_unlikely(ep->state >= LOOM_TCP_EP_CLOSED)) {
        return loom_tcp_ep_send_frame(ep, LOOM_TCP_AM, hdr, hdr_len, NULL, 0, 0);  /* says why */
    }
    if ((!idle && ep->txq_bytes + total > LOOM_TCP_TXQ_MAX) ||
        (tx = loom_tcp_tx_alloc(iface, total, 0)) == NULL) {
        return LOOM_ERR_NO_RESOURCE;
    }
    memcpy(tx->data, &fh, LOOM_TCP_HDR_LEN);
    memcpy(tx->data + LOOM_TCP_HDR_LEN, hdr, hdr_len);
    pack(pack_arg, tx->data + LOOM_TCP_HDR_LEN + hdr_len, payload_len);
    tx->kind = LOOM_TCP_TX_BOUNCE;
    tx->len  = total;
    if (idle && !iface->corking) {
        return loom_tcp_ep_send_built(ep, tx);
    }
    ep->txq_bytes += tx->len;
    loom_tcp_ep_txq_add_ctl(ep, tx);
    if (idle) {
        loom_tcp_ep_cork(ep);   /* from a frame callback: one write for the batch */
        return LOOM_OK;
    }
    if (ep->state == LOOM_TCP_EP_IDLE) {
        return loom_tcp_ep_connect(ep);   /* the frame leaves after the handshake */
    }
    return LOOM_OK;
}

/* ---- rendezvous: the owner's side ---------------------------------------------------- */

loom_status_t loom_tcp_mem_pack(loom_tl_iface_t *tl_iface, const void *addr, size_t len,
                                 loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p)
{
    loom_tcp_iface_t *iface = loom_tcp_iface_of(tl_iface);
    loom_tcp_region_t *r = loom_mpool_get(&iface->region_pool);
    loom_tcp_rkey_t rk;
    loom_status_t st;

    if (r == NULL) {
        return LOOM_ERR_NO_RESOURCE;
    }
    st = loom_tcp_slots_add(&iface->regions, r, &r->idx, &r->cookie);
    if (st != LOOM_OK) {
        loom_mpool_put(&iface->region_pool, r);
        return st;
    }
    r->addr     = addr;
    r->len      = len;
    r->streams  = 0;
    r->fill     = NULL;
    r->fill_arg = NULL;
    memset(&rk, 0, sizeof(rk));
    rk.region = r->idx;
    rk.cookie = r->cookie;
    rk.addr   = (uint64_t)(uintptr_t)addr;
    rk.len    = len;
    memset(rkey, 0, sizeof(*rkey));
    memcpy(rkey->data, &rk, sizeof(rk));
    *memh_p = (loom_tl_memh_t *)r;
    return LOOM_OK;
}

loom_status_t loom_tcp_mem_pack_fill(loom_tl_iface_t *tl_iface, const void *addr, size_t len,
                                      loom_tl_fill_cb_t fill, void *fill_arg,
                                      loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p)
{
    loom_status_t st = loom_tcp_mem_pack(tl_iface, addr, len, rkey, memh_p);

    if (st == LOOM_OK) {
        loom_tcp_region_t *r = (loom_tcp_region_t *)*memh_p;

        r->fill     = fill;
        r->fill_arg = fill_arg;
    }
    return st;
}

/*
 * Streams still reading a released region: one not yet started becomes a
 * GET_ERR; one half way through a chunk finishes that chunk from a copy
 * and then sends GET_ERR. The requester's get fails; nothing reads freed
 * memory.
 */
static void loom_tcp_region_cut_streams(loom_tcp_iface_t *iface, loom_tcp_region_t *r)
{
    for (int p = 0; p < iface->size && r->streams > 0; ++p) {
        loom_tcp_ep_t *ep = iface->peers[p];
        loom_tcp_tx_t *tx;
        int unusable = 0;

        if (ep == NULL) {
            continue;
        }
        loom_list_for_each(tx, &ep->txq, link) {
            if (tx->kind != LOOM_TCP_TX_STREAM || tx->region != r) {
                continue;
            }
            r->streams--;
            tx->region = NULL;
            if (tx->off == 0) {
                loom_tcp_tx_make_err(tx, LOOM_ERR_CANCELED);
                continue;
            }
            tx->err_after = 1;
            tx->copy = malloc(tx->len - LOOM_TCP_TX_HEAD_LEN);
            if (tx->copy == NULL) {
                unusable = 1;   /* cannot finish the frame: the byte stream is lost */
                continue;
            }
            memcpy(tx->copy, tx->base + tx->next_off, tx->len - LOOM_TCP_TX_HEAD_LEN);
        }
        if (unusable) {
            loom_tcp_ep_fail(ep, LOOM_ERR_NO_MEMORY, "mem_release",
                             "out of memory finishing a chunk of a released region");
        }
    }
}

void loom_tcp_mem_release(loom_tl_iface_t *tl_iface, loom_tl_memh_t *memh)
{
    loom_tcp_iface_t *iface = loom_tcp_iface_of(tl_iface);
    loom_tcp_region_t *r = (loom_tcp_region_t *)memh;

    if (r == NULL) {
        return;
    }
    if (r->streams > 0) {
        loom_debug("tcp", "rank %d: region %p released while %u peer(s) still read it",
                   iface->rank, (const void *)r->addr, r->streams);
        loom_tcp_region_cut_streams(iface, r);
    }
    loom_tcp_slots_remove(&iface->regions, r->idx);
    loom_mpool_put(&iface->region_pool, r);
}

static loom_status_t loom_tcp_ep_on_get_req(loom_tcp_ep_t *ep, const void *body, size_t len)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);
    loom_tcp_get_req_t req;
    loom_tcp_get_err_t err = { 0 };
    loom_tcp_region_t *r;
    loom_tcp_tx_t *tx;
    uint64_t base;

    if (len != sizeof(req)) {
        snprintf(ep->conn->rx.why, sizeof(ep->conn->rx.why), "GET_REQ of %zu bytes", len);
        return LOOM_ERR_TRANSPORT;
    }
    memcpy(&req, body, sizeof(req));
    r = loom_tcp_slots_find(&iface->regions, req.region, req.cookie);
    base = r != NULL ? (uint64_t)(uintptr_t)r->addr : 0;
    if (r == NULL || req.raddr < base || req.len > r->len || req.raddr - base > r->len - req.len) {
        loom_error("tcp", "rank %d@%s asked rank %d@%s for %llu bytes at 0x%llx (region %u): "
                   "not exposed (stale or forged key), refused", ep->super.peer,
                   loom_tcp_host_of(iface, ep->super.peer), iface->rank,
                   loom_tcp_host_of(iface, iface->rank), (unsigned long long)req.len,
                   (unsigned long long)req.raddr, (unsigned)req.region);
        err.req_id = req.req_id;
        err.status = LOOM_ERR_INVALID_BUFFER;
        return loom_tcp_ep_send_frame(ep, LOOM_TCP_GET_ERR, &err, sizeof(err), NULL, 0, 1);
    }
    tx = loom_tcp_tx_alloc(iface, 0, 1);
    if (tx == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    tx->kind     = LOOM_TCP_TX_STREAM;
    tx->region   = r;
    tx->req_id   = req.req_id;
    tx->base     = r->addr + (req.raddr - base);
    tx->total    = req.len;
    tx->next_off = 0;
    /* 2: the queue is empty, nothing but this stream to send */
    err.status = loom_tcp_tx_arm_chunk(tx, loom_list_is_empty(&ep->txq) ? 2
                                           : ep->txq_bytes == 0);
    if (err.status != LOOM_OK) {
        loom_error("tcp", "rank %d@%s asked rank %d@%s for %llu bytes at 0x%llx: producing "
                   "them failed (%s), refused", ep->super.peer,
                   loom_tcp_host_of(iface, ep->super.peer), iface->rank,
                   loom_tcp_host_of(iface, iface->rank), (unsigned long long)req.len,
                   (unsigned long long)req.raddr, loom_strerror(err.status));
        loom_tcp_tx_free(iface, tx);
        err.req_id = req.req_id;
        return loom_tcp_ep_send_frame(ep, LOOM_TCP_GET_ERR, &err, sizeof(err), NULL, 0, 1);
    }
    r->streams++;
    loom_list_add_tail(&ep->txq, &tx->link);
    return loom_tcp_ep_flush_soon(ep);
}

/* ---- rendezvous: the requester's side -------------------------------------------------- */

static void loom_tcp_get_complete(loom_tcp_get_t *g, loom_status_t status)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(g->ep);
    loom_tl_comp_t *comp = g->comp;

    loom_list_del(&g->link);
    loom_tcp_slots_remove(&iface->get_table, g->idx);
    if (g->iov != NULL) {
        iface->iov_gets--;
        free(g->iov);
        g->iov = NULL;
    }
    loom_mpool_put(&iface->get_pool, g);
    if (!iface->closing) {
        iface->in_get_cb++;
        comp->cb(comp, status);
        iface->in_get_cb--;
    }
}

void loom_tcp_ep_fail_gets(loom_tcp_ep_t *ep, loom_status_t status)
{
    while (!loom_list_is_empty(&ep->gets)) {
        loom_tcp_get_complete(loom_list_head_entry(&ep->gets, loom_tcp_get_t, link), status);
    }
}

/*
 * Ask @p ep's peer for @p len bytes at @p raddr into @p local (one range) or,
 * @p local NULL, into the @p iovcnt pieces @p iov, which the get then owns
 * (freed at its completion or here on failure).
 */
static loom_status_t loom_tcp_get_start(loom_tcp_ep_t *ep, void *local, struct iovec *iov,
                                        size_t iovcnt, size_t len, uint64_t raddr,
                                        const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);
    loom_tcp_get_req_t req = { 0 };
    loom_tcp_rkey_t rk;
    loom_tcp_get_t *g;
    loom_status_t st;

    g = loom_mpool_get(&iface->get_pool);
    if (g == NULL) {
        free(iov);
        return LOOM_ERR_NO_RESOURCE;
    }
    g->iov    = iov;
    g->iovcnt = iovcnt;
    st = loom_tcp_slots_add(&iface->get_table, g, &g->idx, &g->cookie);
    if (st != LOOM_OK) {
        goto err_put_get;
    }
    memcpy(&rk, rkey->data, sizeof(rk));
    g->ep       = ep;
    g->dst      = local;
    g->len      = len;
    g->received = 0;
    g->comp     = comp;
    loom_list_init(&g->link);
    req.req_id = loom_tcp_slots_id(g->idx, g->cookie);
    req.raddr  = raddr;
    req.len    = len;
    req.cookie = rk.cookie;
    req.region = rk.region;
    st = loom_tcp_ep_send_frame(ep, LOOM_TCP_GET_REQ, &req, sizeof(req), NULL, 0, 0);
    if (st == LOOM_OK && iface->in_get_cb > 0 && iface->corking) {
        /*
         * The next get of a message whose last one just arrived: the caller
         * works on that one (a typed receive unpacks its bounce) before
         * progress uncorks, so ask now and the owner streams meanwhile. A
         * write that fails the connection fails the gets listed on it, and
         * their completions run now: this one is not listed yet, so it is
         * refused instead of completing inside this call (tl.h: a get that
         * answers LOOM_INPROGRESS completes from a later progress, and the
         * caller still uses its buffer after the call).
         */
        (void)loom_tcp_ep_flush(ep);
        if (ep->state >= LOOM_TCP_EP_CLOSED) {
            st = LOOM_ERR_PEER_FAILED;
        }
    }
    if (st != LOOM_OK) {
        goto err_remove_slot;
    }
    loom_list_add_tail(&ep->gets, &g->link);
    iface->iov_gets += g->iov != NULL;
    return LOOM_INPROGRESS;

err_remove_slot:
    loom_tcp_slots_remove(&iface->get_table, g->idx);
err_put_get:
    free(g->iov);
    g->iov = NULL;
    loom_mpool_put(&iface->get_pool, g);
    return st;
}

loom_status_t loom_tcp_get(loom_tl_ep_t *tl_ep, void *local, size_t len, uint64_t raddr,
                           const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp)
{
    if (len == 0) {
        return LOOM_OK;
    }
    return loom_tcp_get_start(loom_tcp_ep_of(tl_ep), local, NULL, 0, len, raddr, rkey, comp);
}

/*
 * get() into pieces (session 15): the chunks are read from the socket
 * straight into the receive's own pieces (tcp_wire.c, data_scatter), so a
 * typed receive whose pieces are large enough (the engine's
 * iov_min_piece) needs no bounce and no unpack. Ownership: the caller's
 * @p iov array may go when this returns (it is copied); the memory it
 * names is written until the get completes.
 */
loom_status_t loom_tcp_get_iov(loom_tl_ep_t *tl_ep, const struct iovec *iov, size_t iovcnt,
                               uint64_t raddr, const loom_tl_rkey_t *rkey,
                               loom_tl_comp_t *comp)
{
    struct iovec *copy;
    size_t len = 0;

    for (size_t i = 0; i < iovcnt; ++i) {
        len += iov[i].iov_len;
    }
    if (len == 0) {
        return LOOM_OK;
    }
    copy = malloc(iovcnt * sizeof(*copy));
    if (copy == NULL) {
        return LOOM_ERR_NO_RESOURCE;
    }
    memcpy(copy, iov, iovcnt * sizeof(*copy));
    loom_debug("tcp", "get_iov from rank %d: %zu bytes into %zu pieces", tl_ep->peer, len,
               iovcnt);
    return loom_tcp_get_start(loom_tcp_ep_of(tl_ep), NULL, copy, iovcnt, len, raddr, rkey,
                              comp);
}

/* The live get a chunk names, if it is ours and asked of this peer. */
static loom_tcp_get_t *loom_tcp_ep_chunk_owner(loom_tcp_ep_t *ep, const loom_tcp_data_hdr_t *dh)
{
    loom_tcp_get_t *g = loom_tcp_slots_find_id(&loom_tcp_ep_iface(ep)->get_table, dh->req_id);

    return g != NULL && g->ep == ep ? g : NULL;
}

/*
 * A chunk continues its get, or the get is not its (chunk_get): the owner
 * streams a get's range once, in order (one TX_STREAM), so a chunk starts
 * at the bytes received so far. A chunk sent twice or ahead would
 * otherwise count bytes never written, and the get would complete with
 * holes in its destination (review of session 15).
 */
static int loom_tcp_chunk_continues(const loom_tcp_get_t *g, const loom_tcp_data_hdr_t *dh,
                                    size_t len)
{
    return dh->offset == g->received && len <= g->len - g->received;
}

static loom_tcp_get_t *loom_tcp_ep_chunk_get(loom_tcp_ep_t *ep, const loom_tcp_data_hdr_t *dh,
                                             size_t len)
{
    loom_tcp_get_t *g = loom_tcp_ep_chunk_owner(ep, dh);

    return g != NULL && loom_tcp_chunk_continues(g, dh, len) ? g : NULL;
}

int loom_tcp_ep_rx_data_scatter(loom_tcp_ep_t *ep, const loom_tcp_data_hdr_t *dh, size_t len,
                                loom_tcp_scatter_t *sc)
{
    loom_tcp_get_t *g = loom_tcp_ep_chunk_get(ep, dh, len);
    size_t skip;

    if (g == NULL || g->iov == NULL) {
        return 0;   /* data_begin decides: a plain get's range, or discarded */
    }
    sc->iov = g->iov;
    sc->cnt = g->iovcnt;
    sc->idx = 0;
    sc->off = 0;
    /* chunks come in order, a few per get: seek from the first piece each time */
    for (skip = dh->offset; skip >= g->iov[sc->idx].iov_len && skip > 0; ++sc->idx) {
        skip -= g->iov[sc->idx].iov_len;
    }
    sc->off = skip;
    return 1;
}

void *loom_tcp_ep_rx_data_begin(loom_tcp_ep_t *ep, const loom_tcp_data_hdr_t *dh, size_t len)
{
    loom_tcp_get_t *g = loom_tcp_ep_chunk_get(ep, dh, len);

    if (g == NULL || g->iov != NULL) {
        loom_debug("tcp", "discarding %zu bytes of data from rank %d for no current get",
                   len, ep->super.peer);
        return NULL;
    }
    return g->dst + dh->offset;
}

loom_status_t loom_tcp_ep_rx_data_end(loom_tcp_ep_t *ep, const loom_tcp_data_hdr_t *dh,
                                      size_t len)
{
    loom_tcp_get_t *g = loom_tcp_ep_chunk_owner(ep, dh);

    if (g == NULL) {
        return LOOM_OK;   /* no live get of ours (ended, or a stale id): dropped */
    }
    if (!loom_tcp_chunk_continues(g, dh, len)) {
        /* its bytes were dropped; the connection fails, and the get with it */
        snprintf(ep->conn->rx.why, sizeof(ep->conn->rx.why),
                 "data chunk of %zu bytes at %llu, its get has %zu of %zu", len,
                 (unsigned long long)dh->offset, g->received, g->len);
        return LOOM_ERR_TRANSPORT;
    }
    g->received += len;
    if (g->received >= g->len) {
        loom_tcp_get_complete(g, LOOM_OK);
    }
    return LOOM_OK;
}

int loom_tcp_ep_rx_place(loom_tcp_ep_t *ep, const void *head, size_t have, size_t len,
                         loom_tl_place_t *place)
{
    const loom_tl_params_t *params = &loom_tcp_ep_iface(ep)->super.params;

    if (params->am_place_cb == NULL || loom_tcp_ep_iface(ep)->closing) {
        return 0;
    }
    return params->am_place_cb(params->cb_arg, ep->super.peer, head, have, len, place);
}

void loom_tcp_ep_rx_place_end(loom_tcp_ep_t *ep)
{
    const loom_tl_params_t *params = &loom_tcp_ep_iface(ep)->super.params;

    if (!loom_tcp_ep_iface(ep)->closing) {
        params->am_place_done_cb(params->cb_arg, ep->super.peer, LOOM_OK);
    }
}

static loom_status_t loom_tcp_ep_on_get_err(loom_tcp_ep_t *ep, const void *body, size_t len)
{
    loom_tcp_get_err_t err;
    loom_tcp_get_t *g;

    if (len != sizeof(err)) {
        snprintf(ep->conn->rx.why, sizeof(ep->conn->rx.why), "GET_ERR of %zu bytes", len);
        return LOOM_ERR_TRANSPORT;
    }
    memcpy(&err, body, sizeof(err));
    g = loom_tcp_slots_find_id(&loom_tcp_ep_iface(ep)->get_table, err.req_id);
    if (g != NULL && g->ep == ep) {
        loom_error("tcp", "get of %zu bytes from rank %d failed there: %s", g->len,
                   ep->super.peer, loom_strerror(err.status));
        loom_tcp_get_complete(g, err.status < 0 ? (loom_status_t)err.status
                                                : LOOM_ERR_TRANSPORT);
    }
    return LOOM_OK;
}

/* ---- frames of an established connection ---------------------------------------------- */

loom_status_t loom_tcp_ep_rx_frame(loom_tcp_ep_t *ep, unsigned type, const void *body,
                                   size_t len)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);

    switch (type) {
    case LOOM_TCP_AM:
        iface->super.params.am_cb(iface->super.params.cb_arg, ep->super.peer, body, len);
        return LOOM_OK;
    case LOOM_TCP_GET_REQ:
        return loom_tcp_ep_on_get_req(ep, body, len);
    case LOOM_TCP_GET_ERR:
        return loom_tcp_ep_on_get_err(ep, body, len);
    case LOOM_TCP_BYE:
        loom_debug("tcp", "rank %d: rank %d closes", iface->rank, ep->super.peer);
        ep->state = LOOM_TCP_EP_CLOSED;
        return LOOM_OK;
    default:
        snprintf(ep->conn->rx.why, sizeof(ep->conn->rx.why),
                 "unexpected frame type %u on an established connection", type);
        return LOOM_ERR_TRANSPORT;
    }
}
