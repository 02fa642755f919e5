/*
 * loomrun_net.c: the sockets of the control channel. The head listens on
 * every address (an ephemeral port) and tells each daemon all of its IPv4
 * addresses; the daemon tries them in turn. Connections are nonblocking,
 * TCP_NODELAY, with keepalive probes so that a head whose host vanished is
 * noticed in well under a minute. Frames are queued whole in a per-
 * connection buffer and written as the socket takes them.
 */
#include "loomrun_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LOOMRUN_RX_CHUNK (256u * 1024)

static void loomrun_net_tune(int fd)
{
    int one = 1, idle = 10, intvl = 5, cnt = 3;

    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

int loomrun_net_listen(int *port_p)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t sl = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        fprintf(stderr, "loomrun: socket for the daemons' control channel: %s\n",
                strerror(errno));
        return -1;
    }
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        fprintf(stderr, "loomrun: cannot listen for the daemons (TCP, any address): %s\n",
                strerror(errno));
        close(fd);
        return -1;
    }
    *port_p = ntohs(sa.sin_port);
    return fd;
}

int loomrun_net_addrs(char *buf, size_t len)
{
    struct ifaddrs *list, *ifa;
    size_t used = 0;

    buf[0] = '\0';
    if (getifaddrs(&list) != 0) {
        return -1;
    }
    /* loopback last: it only helps a "daemon" on this very host */
    for (int pass = 0; pass < 2; ++pass) {
        for (ifa = list; ifa != NULL; ifa = ifa->ifa_next) {
            char ip[INET_ADDRSTRLEN];
            int lo;

            if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET ||
                !(ifa->ifa_flags & IFF_UP)) {
                continue;
            }
            lo = (ifa->ifa_flags & IFF_LOOPBACK) != 0;
            if (lo != pass) {
                continue;
            }
            inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)ifa->ifa_addr)->sin_addr,
                      ip, sizeof(ip));
            if (strstr(buf, ip) == NULL && used + strlen(ip) + 2 < len) {
                used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", ip);
            }
        }
    }
    freeifaddrs(list);
    return used > 0 ? 0 : -1;
}

/* Connect to one address within @p timeout seconds; fd or -1 (errno). */
static int loomrun_net_connect_one(const char *ip, int port, double timeout)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    struct pollfd pfd;
    socklen_t el = sizeof(int);
    int fd, err = 0;

    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
        errno = EINVAL;
        return -1;
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 && errno != EINPROGRESS) {
        goto err_close;
    }
    pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
    if (poll(&pfd, 1, (int)(timeout * 1e3)) != 1) {
        errno = ETIMEDOUT;
        goto err_close;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err != 0) {
        errno = err ? err : errno;
        goto err_close;
    }
    loomrun_net_tune(fd);
    return fd;

err_close:
    err = errno;
    close(fd);
    errno = err;
    return -1;
}

int loomrun_net_connect(const char *addrs, int port, char *why, size_t wlen)
{
    char list[1024], *save = NULL;
    size_t used = 0;

    snprintf(list, sizeof(list), "%s", addrs);
    why[0] = '\0';
    for (char *ip = strtok_r(list, ",", &save); ip != NULL; ip = strtok_r(NULL, ",", &save)) {
        int fd = loomrun_net_connect_one(ip, port, 5.0);

        if (fd >= 0) {
            return fd;
        }
        used += (size_t)snprintf(why + used, used < wlen ? wlen - used : 0, "%s%s:%d: %s",
                                 used ? "; " : "", ip, port, strerror(errno));
    }
    return -1;
}

int loomrun_net_accept(int lfd, loomrun_conn_t *c)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    char ip[INET_ADDRSTRLEN] = "?";
    int fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

    if (fd < 0) {
        return -1;
    }
    loomrun_net_tune(fd);
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
    memset(c, 0, sizeof(*c));
    c->fd   = fd;
    c->node = -1;
    snprintf(c->peer, sizeof(c->peer), "%s:%d", ip, ntohs(sa.sin_port));
    return 0;
}

/* ---- framed I/O ------------------------------------------------------------ */

int loomrun_conn_flush(loomrun_conn_t *c)
{
    while (c->fd >= 0 && c->tx_off < c->tx.len) {
        ssize_t n = send(c->fd, c->tx.p + c->tx_off, c->tx.len - c->tx_off, MSG_NOSIGNAL);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
        }
        c->tx_off += (size_t)n;
    }
    if (c->tx_off == c->tx.len) {
        c->tx.len = c->tx_off = 0;
    }
    return 0;
}

int loomrun_conn_send(loomrun_conn_t *c, loomrun_ctl_type_t type, ...)
{
    va_list ap;
    int rc;

    if (c->fd < 0) {
        return -1;
    }
    va_start(ap, type);
    rc = loomrun_ctl_vpack(&c->tx, type, ap);
    va_end(ap);
    if (rc != 0) {
        fprintf(stderr, "loomrun: cannot build a %s message for %s (out of memory, or "
                "over %u bytes)\n", loomrun_ctl_type_name((uint32_t)type), c->peer,
                LOOMRUN_CTL_MAX_FRAME);
        return -1;
    }
    return loomrun_conn_flush(c);
}

int loomrun_conn_fill(loomrun_conn_t *c)
{
    ssize_t n;

    if (c->rx_off > 0) {   /* frames handled: keep only the unread rest */
        memmove(c->rx.p, c->rx.p + c->rx_off, c->rx.len - c->rx_off);
        c->rx.len -= c->rx_off;
        c->rx_off  = 0;
    }
    if (c->rx.cap - c->rx.len < LOOMRUN_RX_CHUNK) {
        size_t cap = c->rx.cap ? c->rx.cap * 2 : 2 * LOOMRUN_RX_CHUNK;
        uint8_t *p = realloc(c->rx.p, cap);

        if (p == NULL) {
            errno = ENOMEM;
            return -1;
        }
        c->rx.p   = p;
        c->rx.cap = cap;
    }
    do {
        n = recv(c->fd, c->rx.p + c->rx.len, c->rx.cap - c->rx.len, 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    }
    if (n == 0) {
        errno = 0;   /* orderly EOF */
        return -1;
    }
    c->rx.len += (size_t)n;
    return 1;
}

int loomrun_conn_next(loomrun_conn_t *c, loomrun_ctl_msg_t *msg, char *why, size_t wlen)
{
    size_t used;
    int rc = loomrun_ctl_decode(c->rx.p + c->rx_off, c->rx.len - c->rx_off, msg, &used,
                                why, wlen);

    if (rc == 1) {
        c->rx_off += used;
    }
    return rc;
}

void loomrun_conn_close(loomrun_conn_t *c)
{
    if (c->fd >= 0) {
        close(c->fd);
    }
    c->fd = -1;
    loomrun_buf_free(&c->rx);
    loomrun_buf_free(&c->tx);
    c->rx_off = c->tx_off = 0;
}
