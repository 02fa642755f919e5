/*
 * tcp_conn.c: connections of the TCP transport: lazy connect, accept, the
 * authenticated handshake, simultaneous-connect races and failures.
 *
 *   connector                         acceptor
 *   connect() ---------------------->  accept()      (unauthenticated, small buffer)
 *   HELLO(me, you, secret) --------->  check magic, version, secret, ranks
 *                                      ours racing and we are lower? -> RACE, close
 *   <------------------------------   ACCEPT(me, you, secret)  (else)
 *   frames <------------------------> frames
 *
 * The connector writes no frame before ACCEPT, so a connection that loses a
 * race carries nothing that could be lost with it; its queued frames stay
 * on the endpoint and leave on the winning connection.
 */
#include "tcp_int.h"
#include "tcp_config_int.h"
#include "log_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define LOOM_TCP_RX_BUDGET (4u << 20)   /* bytes read per connection per progress */
#define LOOM_TCP_ACCEPT_BATCH 16

static double loom_tcp_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

loom_tcp_ep_t *loom_tcp_ep_get_or_create(loom_tcp_iface_t *iface, int peer)
{
    loom_tcp_ep_t *ep = iface->peers[peer];

    if (ep != NULL) {
        return ep;
    }
    ep = calloc(1, sizeof(*ep));
    if (ep == NULL) {
        return NULL;
    }
    ep->super.iface = &iface->super;
    ep->super.peer  = peer;
    ep->state       = LOOM_TCP_EP_IDLE;
    loom_list_init(&ep->txq);
    ep->ctl_last = &ep->txq;
    loom_list_init(&ep->gets);
    loom_list_init(&ep->cork_link);
    snprintf(ep->addr_str, sizeof(ep->addr_str), "(address unknown)");
    iface->peers[peer] = ep;
    return ep;
}

/* ---- failure -------------------------------------------------------------------- */

void loom_tcp_ep_fail(loom_tcp_ep_t *ep, loom_status_t status, const char *op,
                      const char *detail)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);
    int peer = ep->super.peer;
    int placing = ep->conn != NULL && ep->conn->rx.placing;
    char what[512];

    if (ep->state == LOOM_TCP_EP_FAILED) {
        return;
    }
    snprintf(what, sizeof(what),
             "%s over tcp failed between rank %d@%s (%s) and rank %d@%s (%s): %s", op,
             iface->rank, loom_tcp_host_of(iface, iface->rank), iface->my_addr_str, peer,
             loom_tcp_host_of(iface, peer), ep->addr_str, detail);
    ep->state = LOOM_TCP_EP_FAILED;
    if (ep->conn != NULL) {
        loom_tcp_conn_close(ep->conn);
    }
    if (iface->closing) {
        loom_debug("tcp", "%s (while closing)", what);
        return;
    }
    loom_error("tcp", "%s", what);
    loom_tcp_ep_drop_txq(ep);
    loom_tcp_ep_fail_gets(ep, status);
    if (placing) {   /* the frame being received in place will not complete */
        iface->super.params.am_place_done_cb(iface->super.params.cb_arg, peer, status);
    }
    if (iface->super.params.err_cb != NULL) {
        iface->super.params.err_cb(iface->super.params.cb_arg, peer, status, what);
    }
}

/* ---- connection objects ------------------------------------------------------------ */

static loom_tcp_conn_t *loom_tcp_conn_new(loom_tcp_iface_t *iface, int fd, int incoming,
                                          const char *remote)
{
    loom_tcp_conn_t *conn = calloc(1, sizeof(*conn));
    struct epoll_event ev;
    loom_status_t st;

    if (conn == NULL) {
        return NULL;
    }
    /* an unauthenticated peer gets a buffer for the handshake only */
    st = incoming ? loom_tcp_rx_init(&conn->rx, 256, sizeof(loom_tcp_hello_t), 0)
                  : loom_tcp_rx_init(&conn->rx, LOOM_TCP_RX_BUF,
                                     LOOM_TCP_MAX_AM + sizeof(loom_tcp_get_req_t),
                                     LOOM_TCP_CHUNK_MAX);
    if (st != LOOM_OK) {
        goto err_free_conn;
    }
    conn->fd     = fd;
    conn->iface  = iface;
    conn->events = incoming ? EPOLLIN : (EPOLLIN | EPOLLOUT);
    conn->state  = incoming ? LOOM_TCP_CONN_HS_WAIT : LOOM_TCP_CONN_CONNECTING;
    loom_list_init(&conn->link);
    snprintf(conn->remote, sizeof(conn->remote), "%s", remote);
    ev.events   = conn->events;
    ev.data.ptr = conn;
    if (epoll_ctl(iface->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        loom_error("tcp", "epoll_ctl(ADD) of the connection to %s: %m", remote);
        goto err_cleanup_rx;
    }
    ++iface->num_conns;
    return conn;

err_cleanup_rx:
    loom_tcp_rx_cleanup(&conn->rx);
err_free_conn:
    free(conn);
    return NULL;
}

void loom_tcp_conn_close(loom_tcp_conn_t *conn)
{
    loom_tcp_iface_t *iface = conn->iface;

    if (conn->state == LOOM_TCP_CONN_DEAD) {
        return;
    }
    epoll_ctl(iface->epfd, EPOLL_CTL_DEL, conn->fd, NULL);
    close(conn->fd);
    if (iface->hot == conn) {
        iface->hot = NULL;
    }
    conn->fd = -1;
    if (conn->ep != NULL && conn->ep->conn == conn) {
        conn->ep->conn = NULL;
    }
    conn->state = LOOM_TCP_CONN_DEAD;
    loom_list_del(&conn->link);
    loom_list_add_tail(&iface->dead, &conn->link);
}

void loom_tcp_conn_reap(loom_tcp_iface_t *iface)
{
    loom_list_t *e;

    while ((e = loom_list_pop_head(&iface->dead)) != NULL) {
        loom_tcp_conn_t *conn = loom_list_entry(e, loom_tcp_conn_t, link);
        loom_tcp_rx_cleanup(&conn->rx);
        free(conn);
        --iface->num_conns;
    }
}

void loom_tcp_conn_expire(loom_tcp_iface_t *iface)
{
    double now = loom_tcp_now();
    loom_tcp_conn_t *conn, *tmp;

    loom_list_for_each_safe(conn, tmp, &iface->pending, link) {
        if (now - conn->t_accept > LOOM_TCP_HS_TIMEOUT) {
            loom_warn("tcp", "rank %d: dropped connection from %s: no handshake within %.0f s",
                      iface->rank, conn->remote, LOOM_TCP_HS_TIMEOUT);
            loom_tcp_conn_close(conn);
        }
    }
}

/*
 * Latency first (no Nagle). Buffers: Linux grows each socket's buffers up
 * to net.ipv4.tcp_wmem/rmem (4 and 32 MiB on Debian) as the transfer needs;
 * setting SO_SNDBUF/SO_RCVBUF turns that autotuning off and is capped by
 * net.core.wmem_max/rmem_max, so it is done only when LOOM_TCP_SOCKBUF asks.
 */
static void loom_tcp_sock_setup(int fd)
{
    int one = 1;

    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (loom_config_is_set(LOOM_TCP_CFG(SOCKBUF))) {
        long long v = loom_config_int(LOOM_TCP_CFG(SOCKBUF));
        int size = v > INT_MAX ? INT_MAX : (int)v;

        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    }
}

/* Write a handshake frame; it is the first write on the socket, so it fits. */
static loom_status_t loom_tcp_conn_send_hs(loom_tcp_conn_t *conn, unsigned type, int peer)
{
    loom_tcp_iface_t *iface = conn->iface;
    loom_tcp_frame_hdr_t fh = { .len = sizeof(loom_tcp_hello_t), .type = (uint8_t)type };
    loom_tcp_hello_t h;
    ssize_t n;

    loom_tcp_hello_pack(&h, iface->rank, peer, iface->secret);
    memcpy(conn->hs, &fh, sizeof(fh));
    memcpy(conn->hs + sizeof(fh), &h, sizeof(h));
    do {
        n = send(conn->fd, conn->hs, sizeof(conn->hs), MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(conn->hs)) {
        snprintf(conn->rx.why, sizeof(conn->rx.why), "handshake write: %s",
                 n < 0 ? strerror(errno) : "short write");
        return LOOM_ERR_CONNECTION;
    }
    return LOOM_OK;
}

/* ---- outgoing ----------------------------------------------------------------------- */

loom_status_t loom_tcp_ep_connect(loom_tcp_ep_t *ep)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);
    struct sockaddr_storage ss;
    socklen_t sl;
    loom_tcp_conn_t *conn;
    int fd;

    if (loom_tcp_iface_secret(iface) != LOOM_OK || !ep->have_addr) {
        loom_tcp_ep_fail(ep, LOOM_ERR_UNREACHABLE, "connect",
                         "no job secret or no published address");
        return LOOM_ERR_UNREACHABLE;
    }
    memset(&ss, 0, sizeof(ss));
    if (ep->addr.family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        in->sin_family = AF_INET;
        in->sin_port   = ep->addr.port;
        memcpy(&in->sin_addr, ep->addr.addr, sizeof(in->sin_addr));
        sl = sizeof(*in);
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port   = ep->addr.port;
        memcpy(&in6->sin6_addr, ep->addr.addr, sizeof(in6->sin6_addr));
        sl = sizeof(*in6);
    }
    fd = socket(ep->addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        loom_tcp_ep_fail(ep, LOOM_ERR_CONNECTION, "connect", strerror(errno));
        return LOOM_ERR_CONNECTION;
    }
    loom_tcp_sock_setup(fd);
    if (connect(fd, (struct sockaddr *)&ss, sl) != 0 && errno != EINPROGRESS) {
        loom_tcp_ep_fail(ep, LOOM_ERR_CONNECTION, "connect", strerror(errno));
        goto err_close_fd;
    }
    conn = loom_tcp_conn_new(iface, fd, 0, ep->addr_str);
    if (conn == NULL) {
        loom_tcp_ep_fail(ep, LOOM_ERR_NO_MEMORY, "connect", "out of memory");
        goto err_close_fd;
    }
    conn->ep  = ep;
    ep->conn  = conn;
    ep->state = LOOM_TCP_EP_CONNECTING;
    loom_debug("tcp", "rank %d: connecting to rank %d at %s", iface->rank, ep->super.peer,
               ep->addr_str);
    return LOOM_OK;   /* EPOLLOUT says when connect() is done */

err_close_fd:
    close(fd);
    return LOOM_ERR_CONNECTION;
}

static void loom_tcp_conn_connected(loom_tcp_conn_t *conn)
{
    loom_tcp_ep_t *ep = conn->ep;
    int err = 0;
    socklen_t len = sizeof(err);

    if (getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
    }
    if (err != 0) {
        loom_tcp_ep_fail(ep, LOOM_ERR_CONNECTION, "connect", strerror(err));
        return;
    }
    if (loom_tcp_conn_send_hs(conn, LOOM_TCP_HELLO, ep->super.peer) != LOOM_OK) {
        loom_tcp_ep_fail(ep, LOOM_ERR_CONNECTION, "connect", conn->rx.why);
        return;
    }
    conn->state = LOOM_TCP_CONN_HS_SENT;
    if (loom_tcp_conn_set_events(conn, EPOLLIN) != LOOM_OK) {
        loom_tcp_ep_fail(ep, LOOM_ERR_IO, "connect", "epoll_ctl failed");
    }
}

/* The acceptor's answer to our HELLO. */
static loom_status_t loom_tcp_conn_on_answer(loom_tcp_conn_t *conn, unsigned type,
                                             const void *body, size_t len)
{
    loom_tcp_iface_t *iface = conn->iface;
    loom_tcp_ep_t *ep = conn->ep;
    int src = -1;
    loom_status_t st;

    if (type != LOOM_TCP_ACCEPT && type != LOOM_TCP_RACE) {
        snprintf(conn->rx.why, sizeof(conn->rx.why), "answered the handshake with frame "
                 "type %u", type);
        return LOOM_ERR_CONNECTION;
    }
    st = loom_tcp_hello_check(body, len, iface->rank, iface->size, iface->secret, &src,
                              conn->rx.why, sizeof(conn->rx.why));
    if (st == LOOM_OK && src != ep->super.peer) {
        snprintf(conn->rx.why, sizeof(conn->rx.why), "answered by rank %d", src);
        st = LOOM_ERR_CONNECTION;
    }
    if (st != LOOM_OK) {
        return st;
    }
    if (type == LOOM_TCP_RACE) {
        loom_debug("tcp", "rank %d: rank %d connects to us at the same time and wins",
                   iface->rank, src);
        loom_tcp_conn_close(conn);
        ep->state = LOOM_TCP_EP_WAIT_PEER;
        return LOOM_ERR_CANCELED;
    }
    conn->state = LOOM_TCP_CONN_UP;
    ep->state   = LOOM_TCP_EP_UP;
    loom_debug("tcp", "rank %d: connected to rank %d at %s", iface->rank, src, ep->addr_str);
    loom_tcp_ep_flush(ep);
    return conn->state == LOOM_TCP_CONN_DEAD ? LOOM_ERR_CANCELED : LOOM_OK;
}

/* ---- incoming ----------------------------------------------------------------------- */

loom_status_t loom_tcp_conn_accept(loom_tcp_iface_t *iface)
{
    for (int i = 0; i < LOOM_TCP_ACCEPT_BATCH; ++i) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        loom_tcp_addr_t a;
        loom_tcp_conn_t *conn;
        char remote[64];
        int fd;

        fd = accept4(iface->listener.fd, (struct sockaddr *)&ss, &sl,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                loom_error("tcp", "rank %d: accept() on %s: %m", iface->rank,
                           iface->my_addr_str);
            }
            return LOOM_OK;
        }
        loom_tcp_addr_from_sockaddr(&a, (struct sockaddr *)&ss);
        loom_tcp_addr_format(&a, remote, sizeof(remote));
        loom_tcp_sock_setup(fd);
        conn = loom_tcp_conn_new(iface, fd, 1, remote);
        if (conn == NULL) {
            close(fd);
            continue;
        }
        conn->t_accept = loom_tcp_now();
        loom_list_add_tail(&iface->pending, &conn->link);
    }
    return LOOM_OK;
}

/* Make @p conn the connection of @p ep and answer ACCEPT. */
static loom_status_t loom_tcp_conn_adopt(loom_tcp_conn_t *conn, loom_tcp_ep_t *ep)
{
    loom_tcp_iface_t *iface = conn->iface;

    if (ep->conn != NULL) {
        /* our own outgoing connection lost the race: it never carried a frame */
        loom_debug("tcp", "rank %d: rank %d connects to us at the same time and wins",
                   iface->rank, ep->super.peer);
        loom_tcp_conn_close(ep->conn);
    }
    loom_list_del(&conn->link);
    conn->ep  = ep;
    ep->conn  = conn;
    snprintf(ep->addr_str, sizeof(ep->addr_str), "%s", conn->remote);
    if (loom_tcp_conn_send_hs(conn, LOOM_TCP_ACCEPT, ep->super.peer) != LOOM_OK) {
        loom_tcp_ep_fail(ep, LOOM_ERR_CONNECTION, "accept", conn->rx.why);
        return LOOM_ERR_CANCELED;
    }
    conn->state = LOOM_TCP_CONN_UP;
    ep->state   = LOOM_TCP_EP_UP;
    loom_debug("tcp", "rank %d: accepted rank %d from %s", iface->rank, ep->super.peer,
               conn->remote);
    return LOOM_INPROGRESS;   /* stop parsing: the buffer grows first */
}

/* The first frame of an incoming connection: it must be a valid HELLO. */
static loom_status_t loom_tcp_conn_on_hello(loom_tcp_conn_t *conn, unsigned type,
                                            const void *body, size_t len)
{
    loom_tcp_iface_t *iface = conn->iface;
    char *why = conn->rx.why;
    loom_tcp_ep_t *ep;
    int src = -1;
    loom_status_t st;

    if (type != LOOM_TCP_HELLO) {
        snprintf(why, sizeof(conn->rx.why), "first frame of type %u, not a handshake", type);
        return LOOM_ERR_CONNECTION;
    }
    if (loom_tcp_iface_secret(iface) != LOOM_OK) {
        snprintf(why, sizeof(conn->rx.why), "job secret unavailable");
        return LOOM_ERR_CONNECTION;
    }
    st = loom_tcp_hello_check(body, len, iface->rank, iface->size, iface->secret, &src, why,
                              sizeof(conn->rx.why));
    if (st != LOOM_OK) {
        return st;
    }
    ep = loom_tcp_ep_get_or_create(iface, src);
    if (ep == NULL) {
        snprintf(why, sizeof(conn->rx.why), "out of memory");
        return LOOM_ERR_CONNECTION;
    }
    switch (ep->state) {
    case LOOM_TCP_EP_IDLE:
    case LOOM_TCP_EP_WAIT_PEER:
        return loom_tcp_conn_adopt(conn, ep);
    case LOOM_TCP_EP_CONNECTING:
        if (src < iface->rank) {
            return loom_tcp_conn_adopt(conn, ep);   /* the lower rank's connection wins */
        }
        loom_debug("tcp", "rank %d: connection race with rank %d: ours wins", iface->rank,
                   src);
        loom_tcp_conn_send_hs(conn, LOOM_TCP_RACE, src);
        loom_tcp_conn_close(conn);
        return LOOM_ERR_CANCELED;
    case LOOM_TCP_EP_UP:
        /*
         * The leftover of a race: the peer's own connection, made before it
         * adopted ours and closed it. Nothing was written on it but HELLO.
         */
        loom_debug("tcp", "rank %d: dropped a second connection from rank %d (%s): "
                   "already connected", iface->rank, src, conn->remote);
        loom_tcp_conn_close(conn);
        return LOOM_ERR_CANCELED;
    default:
        snprintf(why, sizeof(conn->rx.why), "rank %d is already closed or failed", src);
        return LOOM_ERR_CONNECTION;
    }
}

/* ---- reading -------------------------------------------------------------------------- */

static ssize_t loom_tcp_conn_rx_readv(void *arg, const struct iovec *iov, int cnt)
{
    loom_tcp_conn_t *conn = arg;

    /* the replies to the frames dispatched so far leave before we read on */
    if (!loom_list_is_empty(&conn->iface->corked)) {
        loom_tcp_iface_uncork(conn->iface);
        if (conn->state == LOOM_TCP_CONN_DEAD) {
            errno = ECONNABORTED;   /* failed while writing; already reported */
            return -1;
        }
    }
    if (cnt == 1) {
        return recv(conn->fd, iov[0].iov_base, iov[0].iov_len, 0);
    }
    return readv(conn->fd, iov, cnt);
}

static loom_status_t loom_tcp_conn_rx_frame(void *arg, unsigned type, const void *body,
                                            size_t len)
{
    loom_tcp_conn_t *conn = arg;
    loom_status_t st;

    switch (conn->state) {
    case LOOM_TCP_CONN_HS_WAIT:
        return loom_tcp_conn_on_hello(conn, type, body, len);
    case LOOM_TCP_CONN_HS_SENT:
        return loom_tcp_conn_on_answer(conn, type, body, len);
    case LOOM_TCP_CONN_UP:
        st = loom_tcp_ep_rx_frame(conn->ep, type, body, len);
        return conn->state == LOOM_TCP_CONN_DEAD ? LOOM_ERR_CANCELED : st;
    default:
        return LOOM_ERR_CANCELED;
    }
}

static void *loom_tcp_conn_rx_data_begin(void *arg, const loom_tcp_data_hdr_t *dh,
                                         size_t len)
{
    loom_tcp_conn_t *conn = arg;

    if (conn->state != LOOM_TCP_CONN_UP) {
        return NULL;
    }
    return loom_tcp_ep_rx_data_begin(conn->ep, dh, len);
}

static int loom_tcp_conn_rx_data_scatter(void *arg, const loom_tcp_data_hdr_t *dh,
                                         size_t len, loom_tcp_scatter_t *sc)
{
    loom_tcp_conn_t *conn = arg;

    return conn->iface->iov_gets > 0 && conn->state == LOOM_TCP_CONN_UP &&
           loom_tcp_ep_rx_data_scatter(conn->ep, dh, len, sc);
}

static loom_status_t loom_tcp_conn_rx_data_end(void *arg, const loom_tcp_data_hdr_t *dh,
                                               size_t len)
{
    loom_tcp_conn_t *conn = arg;
    loom_status_t st;

    if (conn->state != LOOM_TCP_CONN_UP) {
        snprintf(conn->rx.why, sizeof(conn->rx.why), "data before the handshake");
        return LOOM_ERR_TRANSPORT;
    }
    st = loom_tcp_ep_rx_data_end(conn->ep, dh, len);
    return conn->state == LOOM_TCP_CONN_DEAD ? LOOM_ERR_CANCELED : st;
}

static int loom_tcp_conn_rx_place(void *arg, const void *head, size_t have, size_t len,
                                  loom_tl_place_t *place)
{
    loom_tcp_conn_t *conn = arg;

    if (conn->state != LOOM_TCP_CONN_UP) {
        return 0;   /* a handshake frame: the parser delivers it whole */
    }
    return loom_tcp_ep_rx_place(conn->ep, head, have, len, place);
}

static loom_status_t loom_tcp_conn_rx_place_end(void *arg)
{
    loom_tcp_conn_t *conn = arg;

    loom_tcp_ep_rx_place_end(conn->ep);
    return conn->state == LOOM_TCP_CONN_DEAD ? LOOM_ERR_CANCELED : LOOM_OK;
}

static const loom_tcp_rx_ops_t loom_tcp_conn_rx_ops = {
    .readv      = loom_tcp_conn_rx_readv,
    .frame      = loom_tcp_conn_rx_frame,
    .data_begin = loom_tcp_conn_rx_data_begin,
    .data_scatter = loom_tcp_conn_rx_data_scatter,
    .data_end   = loom_tcp_conn_rx_data_end,
    .place      = loom_tcp_conn_rx_place,
    .place_end  = loom_tcp_conn_rx_place_end,
};

static void loom_tcp_conn_read_error(loom_tcp_conn_t *conn, loom_status_t st)
{
    loom_tcp_iface_t *iface = conn->iface;
    loom_tcp_ep_t *ep = conn->ep;
    const char *detail = conn->rx.why;
    loom_status_t report = LOOM_ERR_TRANSPORT;

    if (st == LOOM_ERR_CONNECTION && conn->rx.eof) {
        detail = "connection closed by the peer (process gone?)";
        report = LOOM_ERR_PEER_FAILED;
    } else if (st == LOOM_ERR_IO) {
        detail = strerror(conn->rx.err);
        report = conn->rx.err == ECONNRESET ? LOOM_ERR_PEER_FAILED : LOOM_ERR_CONNECTION;
    }
    if (conn->state == LOOM_TCP_CONN_HS_WAIT) {
        if (conn->rx.eof || st == LOOM_ERR_IO) {
            /* a racing peer that gave up its connection, or a port probe */
            loom_debug("tcp", "rank %d: connection from %s ended before the handshake",
                       iface->rank, conn->remote);
        } else {
            loom_warn("tcp", "rank %d@%s: dropped connection from %s: %s", iface->rank,
                      loom_tcp_host_of(iface, iface->rank), conn->remote, detail);
        }
        loom_tcp_conn_close(conn);
        return;
    }
    if (ep->state == LOOM_TCP_EP_CLOSED && conn->rx.eof && !conn->rx.placing) {
        loom_tcp_conn_close(conn);   /* BYE, then end of stream: an orderly close */
        return;
    }
    loom_tcp_ep_fail(ep, report, conn->state == LOOM_TCP_CONN_UP ? "receive" : "handshake",
                     detail);
}

static void loom_tcp_conn_read(loom_tcp_conn_t *conn)
{
    for (;;) {
        loom_status_t st;

        /* data of our gets may follow: read ahead little, so it lands in place */
        conn->rx.fill_max = conn->ep != NULL && !loom_list_is_empty(&conn->ep->gets)
                                ? LOOM_TCP_RX_PEEK : 0;
        st = loom_tcp_rx_progress(&conn->rx, &loom_tcp_conn_rx_ops, conn,
                                  LOOM_TCP_RX_BUDGET);
        if (conn->state == LOOM_TCP_CONN_DEAD) {
            return;
        }
        if (st == LOOM_OK) {
            /* the rest of a chunk is on its way: the next poll reads it directly */
            if (conn->rx.dst_left > 0) {
                conn->iface->hot = conn;
            } else if (conn->iface->hot == conn) {
                conn->iface->hot = NULL;
            }
            return;
        }
        if (st != LOOM_INPROGRESS) {
            loom_tcp_conn_read_error(conn, st);
            return;
        }
        /* a HELLO was accepted: full-size buffer, then the queued frames */
        st = loom_tcp_rx_resize(&conn->rx, LOOM_TCP_RX_BUF,
                                LOOM_TCP_MAX_AM + sizeof(loom_tcp_get_req_t),
                                LOOM_TCP_CHUNK_MAX);
        if (st != LOOM_OK) {
            loom_tcp_ep_fail(conn->ep, st, "accept", "out of memory");
            return;
        }
        if (loom_tcp_ep_flush(conn->ep) != LOOM_OK) {
            return;
        }
    }
}

/*
 * While a chunk body streams in, a poll reads the socket straight away: one
 * syscall per burst instead of epoll_wait() and then the read. epoll still
 * runs every 16th poll, and whenever this peer has frames of ours queued
 * (they wait for EPOLLOUT).
 */
int loom_tcp_conn_read_hot(loom_tcp_iface_t *iface)
{
    loom_tcp_conn_t *conn = iface->hot;
    size_t left = conn->rx.dst_left, end = conn->rx.end;

    iface->hot = NULL;
    loom_tcp_conn_read(conn);
    return conn->state == LOOM_TCP_CONN_DEAD || conn->rx.dst_left != left ||
           conn->rx.end != end;
}

void loom_tcp_conn_events(loom_tcp_conn_t *conn, uint32_t events)
{
    if (conn->state == LOOM_TCP_CONN_DEAD) {
        return;   /* closed earlier in this batch of events */
    }
    if (conn->state == LOOM_TCP_CONN_CONNECTING) {
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
            loom_tcp_conn_connected(conn);
        }
        return;
    }
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
        loom_tcp_conn_read(conn);
    }
    if ((events & EPOLLOUT) && conn->state == LOOM_TCP_CONN_UP) {
        loom_tcp_ep_flush(conn->ep);
    }
}
