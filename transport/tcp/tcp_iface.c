/*
 * tcp_iface.c: the TCP transport's interface: open (listening address,
 * job secret, modex), query, reachable, endpoints, progress and close.
 *
 * Which address to listen on: when every rank of the job runs on this node,
 * 127.0.0.1 (nothing outside the host can even reach the port); otherwise
 * LOOM_TCP_IF (an interface name or an address), else the interface of the
 * default route, else the first interface that is up and not loopback, else
 * the address the host name resolves to.
 */
#include "tcp_int.h"
#include "tcp_config_int.h"
#include "log_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <unistd.h>

#define LOOM_TCP_EVENTS_MAX 32
#define LOOM_TCP_IDLE_POLL_MASK 63   /* idle: one epoll_wait every 64 polls */

extern const loom_tl_ops_t loom_tl_tcp_ops;

void loom_tcp_addr_format(const loom_tcp_addr_t *a, char *buf, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";

    inet_ntop(a->family, a->addr, ip, sizeof(ip));
    snprintf(buf, len, a->family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip,
             (unsigned)ntohs(a->port));
}

const char *loom_tcp_host_of(const loom_tcp_iface_t *iface, int r)
{
    const loom_bootstrap_info_t *job = iface->super.params.job;

    if (job->hostnames == NULL || r < 0 || r >= job->size || job->hostnames[r] == NULL) {
        return "?";
    }
    return job->hostnames[r];
}

const loom_tcp_addr_t *loom_tcp_iface_addr(loom_tl_iface_t *iface)
{
    return &loom_tcp_iface_of(iface)->my_addr;
}

loom_status_t loom_tcp_conn_set_events(loom_tcp_conn_t *conn, uint32_t events)
{
    struct epoll_event ev = { .events = events, .data.ptr = conn };

    if (conn->events == events) {
        return LOOM_OK;
    }
    if (epoll_ctl(conn->iface->epfd, EPOLL_CTL_MOD, conn->fd, &ev) != 0) {
        loom_error("tcp", "epoll_ctl(MOD) of the connection to %s: %m", conn->remote);
        return LOOM_ERR_IO;
    }
    conn->events = events;
    return LOOM_OK;
}

/* ---- picking the listening address ---------------------------------------- */

static int loom_tcp_all_on_this_node(const loom_bootstrap_info_t *job)
{
    if (job->node_of_rank == NULL) {
        return job->local_size == job->size;
    }
    for (int r = 0; r < job->size; ++r) {
        if (job->node_of_rank[r] != job->node_of_rank[job->rank]) {
            return 0;
        }
    }
    return 1;
}

void loom_tcp_addr_from_sockaddr(loom_tcp_addr_t *a, const struct sockaddr *sa)
{
    memset(a, 0, sizeof(*a));
    a->family = sa->sa_family;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        a->port = in->sin_port;
        memcpy(a->addr, &in->sin_addr, sizeof(in->sin_addr));
    } else {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        a->port = in6->sin6_port;
        memcpy(a->addr, &in6->sin6_addr, sizeof(in6->sin6_addr));
    }
}

/* The IPv4 (else IPv6) address of interface @p name, or of the first usable one. */
static int loom_tcp_addr_of_if(const char *name, loom_tcp_addr_t *a)
{
    struct ifaddrs *list, *ifa;
    int found = 0;

    if (getifaddrs(&list) != 0) {
        return 0;
    }
    for (int want = AF_INET; !found && want != 0; want = want == AF_INET ? AF_INET6 : 0) {
        for (ifa = list; ifa != NULL && !found; ifa = ifa->ifa_next) {
            if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != want ||
                !(ifa->ifa_flags & IFF_UP)) {
                continue;
            }
            if (name != NULL ? strcmp(ifa->ifa_name, name) != 0
                             : (ifa->ifa_flags & IFF_LOOPBACK) != 0) {
                continue;
            }
            if (want == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(
                    &((struct sockaddr_in6 *)(void *)ifa->ifa_addr)->sin6_addr)) {
                continue;   /* would need a scope id in every peer's connect */
            }
            loom_tcp_addr_from_sockaddr(a, ifa->ifa_addr);
            found = 1;
        }
    }
    freeifaddrs(list);
    return found;
}

/* Name of the interface of the IPv4 default route, from /proc/net/route. */
static int loom_tcp_default_route_if(char *name, size_t len)
{
    char line[256], ifname[IFNAMSIZ + 1];
    unsigned long dest, gw, flags;
    FILE *f = fopen("/proc/net/route", "r");
    int found = 0;

    if (f == NULL) {
        return 0;
    }
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "%16s %lx %lx %lx", ifname, &dest, &gw, &flags) == 4 &&
            dest == 0 && (flags & 0x1) /* RTF_UP */) {
            snprintf(name, len, "%s", ifname);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static int loom_tcp_addr_of_hostname(loom_tcp_addr_t *a)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
    char host[256];
    int found = 0;

    if (gethostname(host, sizeof(host)) != 0 || getaddrinfo(host, NULL, &hints, &res) != 0) {
        return 0;
    }
    for (ai = res; ai != NULL && !found; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET &&
            ((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr.s_addr !=
                htonl(INADDR_LOOPBACK)) {
            loom_tcp_addr_from_sockaddr(a, ai->ai_addr);
            found = 1;
        }
    }
    freeaddrinfo(res);
    return found;
}

/* Fill @p a (port 0) with the address to listen on; @p how says why. */
static loom_status_t loom_tcp_pick_addr(const loom_bootstrap_info_t *job,
                                        loom_tcp_addr_t *a, const char **how)
{
    const char *want = loom_config_str(LOOM_TCP_CFG(IF));
    char ifname[IFNAMSIZ + 1];

    memset(a, 0, sizeof(*a));
    if (want != NULL && want[0] != '\0') {
        *how = "LOOM_TCP_IF";
        if (inet_pton(AF_INET, want, a->addr) == 1) {
            a->family = AF_INET;
            return LOOM_OK;
        }
        if (inet_pton(AF_INET6, want, a->addr) == 1) {
            a->family = AF_INET6;
            return LOOM_OK;
        }
        if (loom_tcp_addr_of_if(want, a)) {
            return LOOM_OK;
        }
        loom_error("tcp", "LOOM_TCP_IF=%s is neither an address nor an interface with an "
                   "address that is up (see `ip addr`)", want);
        return LOOM_ERR_CONFIG;
    }
    if (loom_tcp_all_on_this_node(job)) {
        uint32_t lo = htonl(INADDR_LOOPBACK);

        *how = "every rank on this node";
        a->family = AF_INET;
        memcpy(a->addr, &lo, sizeof(lo));
        return LOOM_OK;
    }
    *how = "interface of the default route";
    if (loom_tcp_default_route_if(ifname, sizeof(ifname)) && loom_tcp_addr_of_if(ifname, a)) {
        return LOOM_OK;
    }
    *how = "first interface up";
    if (loom_tcp_addr_of_if(NULL, a)) {
        return LOOM_OK;
    }
    *how = "host name";
    if (loom_tcp_addr_of_hostname(a)) {
        return LOOM_OK;
    }
    loom_error("tcp", "no network address to listen on for a multi-node job "
               "(no default route, no interface up, host name unresolvable); set LOOM_TCP_IF");
    return LOOM_ERR_UNSUPPORTED;
}

/* ---- open ------------------------------------------------------------------- */

static loom_status_t loom_tcp_listen(loom_tcp_iface_t *iface, const char *how)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    struct epoll_event ev;
    loom_tcp_addr_t *a = &iface->my_addr;
    int fd;

    memset(&ss, 0, sizeof(ss));
    if (a->family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        in->sin_family = AF_INET;
        memcpy(&in->sin_addr, a->addr, sizeof(in->sin_addr));
        sl = sizeof(*in);
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        memcpy(&in6->sin6_addr, a->addr, sizeof(in6->sin6_addr));
        sl = sizeof(*in6);
    }
    fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        loom_error("tcp", "socket(): %m");
        return LOOM_ERR_IO;
    }
    loom_tcp_addr_format(a, iface->my_addr_str, sizeof(iface->my_addr_str));
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        loom_error("tcp", "cannot listen on %s (%s): %m", iface->my_addr_str, how);
        goto err_close_fd;
    }
    loom_tcp_addr_from_sockaddr(a, (struct sockaddr *)&ss);
    loom_tcp_addr_format(a, iface->my_addr_str, sizeof(iface->my_addr_str));
    iface->listener.fd          = fd;
    iface->listener.is_listener = 1;
    iface->listener.iface       = iface;
    iface->listener.events      = EPOLLIN;
    ev.events   = EPOLLIN;
    ev.data.ptr = &iface->listener;
    if (epoll_ctl(iface->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        loom_error("tcp", "epoll_ctl(ADD) of the listening socket: %m");
        goto err_close_fd;
    }
    loom_debug("tcp", "rank %d listening on %s (%s)", iface->rank, iface->my_addr_str, how);
    return LOOM_OK;

err_close_fd:
    close(fd);
    iface->listener.fd = -1;
    return LOOM_ERR_IO;
}

/* Rank 0 draws the job secret; every rank reads it after the fence. */
static loom_status_t loom_tcp_publish(loom_tcp_iface_t *iface)
{
    loom_status_t st;

    if (iface->rank == 0) {
        if (getrandom(iface->secret, sizeof(iface->secret), 0) !=
            (ssize_t)sizeof(iface->secret)) {
            loom_error("tcp", "getrandom() for the job secret: %m");
            return LOOM_ERR_IO;
        }
        iface->have_secret = 1;
        st = iface->modex.put(iface->modex.arg, LOOM_TCP_KEY_SECRET, iface->secret,
                              sizeof(iface->secret));
        if (st != LOOM_OK) {
            return st;
        }
    }
    return iface->modex.put(iface->modex.arg, LOOM_TCP_KEY_ADDR, &iface->my_addr,
                            sizeof(iface->my_addr));
}

loom_status_t loom_tcp_iface_secret(loom_tcp_iface_t *iface)
{
    size_t len = sizeof(iface->secret);
    loom_status_t st;

    if (iface->have_secret) {
        return LOOM_OK;
    }
    st = iface->modex.get(iface->modex.arg, 0, LOOM_TCP_KEY_SECRET, iface->secret, &len);
    if (st != LOOM_OK || len != sizeof(iface->secret)) {
        loom_error("tcp", "rank %d: cannot read the job secret published by rank 0: %s",
                   iface->rank, st != LOOM_OK ? loom_strerror(st) : "wrong length");
        return st != LOOM_OK ? st : LOOM_ERR_BOOTSTRAP;
    }
    iface->have_secret = 1;
    return LOOM_OK;
}

static loom_status_t loom_tcp_iface_pools(loom_tcp_iface_t *iface)
{
    const size_t small = sizeof(loom_tcp_tx_t) + LOOM_TCP_SMALL_INLINE;
    const size_t large = sizeof(loom_tcp_tx_t) + sizeof(loom_tcp_frame_hdr_t) +
                         LOOM_TCP_MAX_AM;
    loom_status_t st;

    st = loom_mpool_init(&iface->tx_small, "tcp small frames", small, 64, 65536);
    if (st != LOOM_OK) {
        return st;
    }
    /* 256 frames of 64 KiB: 16 MiB of queued large frames at most */
    st = loom_mpool_init(&iface->tx_large, "tcp large frames", large, 4, 256);
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_mpool_init(&iface->region_pool, "tcp regions", sizeof(loom_tcp_region_t),
                         64, 0);
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_mpool_init(&iface->get_pool, "tcp gets", sizeof(loom_tcp_get_t), 64, 0);
    if (st != LOOM_OK) {
        return st;
    }
    loom_tcp_slots_init(&iface->regions, 1u << 20);
    loom_tcp_slots_init(&iface->get_table, 1u << 20);
    return LOOM_OK;
}

static void loom_tcp_iface_free(loom_tcp_iface_t *iface)
{
    loom_tcp_slots_cleanup(&iface->get_table);
    loom_tcp_slots_cleanup(&iface->regions);
    loom_mpool_cleanup(&iface->get_pool);
    loom_mpool_cleanup(&iface->region_pool);
    loom_mpool_cleanup(&iface->tx_large);
    loom_mpool_cleanup(&iface->tx_small);
    free(iface->peers);
    free(iface);
}

loom_status_t loom_tcp_iface_open_modex(const loom_tl_params_t *params,
                                        const loom_tcp_modex_t *modex,
                                        loom_tl_iface_t **iface_p)
{
    const loom_bootstrap_info_t *job = params->job;
    loom_tcp_iface_t *iface;
    const char *how = "";
    loom_status_t st;

    if (job->size < 2) {
        return LOOM_ERR_UNSUPPORTED;   /* nobody to talk to */
    }
    if ((st = loom_config_register(&loom_tcp_config)) != LOOM_OK) {
        return st;
    }
    iface = calloc(1, sizeof(*iface));
    if (iface == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    iface->modex = *modex;
    iface->rank  = job->rank;
    iface->size  = job->size;
    iface->listener.fd = -1;
    loom_list_init(&iface->pending);
    loom_list_init(&iface->dead);
    loom_list_init(&iface->corked);
    iface->peers = calloc((size_t)job->size, sizeof(*iface->peers));
    st = iface->peers == NULL ? LOOM_ERR_NO_MEMORY : loom_tcp_iface_pools(iface);
    if (st != LOOM_OK) {
        goto err_free_iface;
    }
    iface->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (iface->epfd < 0) {
        loom_error("tcp", "epoll_create1(): %m");
        st = LOOM_ERR_IO;
        goto err_free_iface;
    }
    st = loom_tcp_pick_addr(job, &iface->my_addr, &how);
    if (st != LOOM_OK) {
        goto err_close_epoll;
    }
    st = loom_tcp_listen(iface, how);
    if (st != LOOM_OK) {
        goto err_close_epoll;
    }
    st = loom_tcp_publish(iface);
    if (st != LOOM_OK) {
        goto err_close_listener;
    }
    loom_tl_iface_init(&iface->super, "tcp", &loom_tl_tcp_ops, params);
    *iface_p = &iface->super;
    return LOOM_OK;

err_close_listener:
    close(iface->listener.fd);
err_close_epoll:
    close(iface->epfd);
err_free_iface:
    loom_tcp_iface_free(iface);
    return st;
}

static loom_status_t loom_tcp_bootstrap_put(void *arg, const char *key, const void *data,
                                            size_t len)
{
    (void)arg;
    return loom_bootstrap_put(key, data, len);
}

static loom_status_t loom_tcp_bootstrap_get(void *arg, int rank, const char *key,
                                            void *buf, size_t *len_p)
{
    (void)arg;
    return loom_bootstrap_get(rank, key, buf, len_p);
}

static loom_status_t loom_tcp_open(const loom_tl_params_t *params,
                                   loom_tl_iface_t **iface_p)
{
    static const loom_tcp_modex_t modex = {
        .put = loom_tcp_bootstrap_put,
        .get = loom_tcp_bootstrap_get,
    };

    return loom_tcp_iface_open_modex(params, &modex, iface_p);
}

/* ---- query, reachable, endpoints -------------------------------------------- */

static void loom_tcp_query(loom_tl_iface_t *tl_iface, loom_tl_caps_t *caps_p)
{
    (void)tl_iface;
    memset(caps_p, 0, sizeof(*caps_p));
    caps_p->max_am      = LOOM_TCP_MAX_AM;
    caps_p->max_inline  = LOOM_TCP_MAX_AM;   /* always a copy into the socket anyway */
    caps_p->eager_limit = LOOM_TCP_EAGER_LIMIT;
    caps_p->can_get     = 1;
    /* a get asks the owner to stream (GET_REQ, then data): the first
     * eager-sized piece travels behind the RTS while that request does */
    caps_p->rndv_push   = LOOM_TCP_EAGER_LIMIT;
    caps_p->can_mcast   = 0;
    caps_p->latency_ns  = 20000;
}

static loom_status_t loom_tcp_ep_load_addr(loom_tcp_ep_t *ep)
{
    loom_tcp_iface_t *iface = loom_tcp_ep_iface(ep);
    size_t len = sizeof(ep->addr);
    loom_status_t st;

    if (ep->have_addr) {
        return LOOM_OK;
    }
    st = iface->modex.get(iface->modex.arg, ep->super.peer, LOOM_TCP_KEY_ADDR, &ep->addr,
                          &len);
    if (st != LOOM_OK || len != sizeof(ep->addr) ||
        (ep->addr.family != AF_INET && ep->addr.family != AF_INET6)) {
        loom_debug("tcp", "rank %d has no usable tcp address (%s)", ep->super.peer,
                   st != LOOM_OK ? loom_strerror(st) : "malformed");
        return st != LOOM_OK ? st : LOOM_ERR_UNREACHABLE;
    }
    loom_tcp_addr_format(&ep->addr, ep->addr_str, sizeof(ep->addr_str));
    ep->have_addr = 1;
    return LOOM_OK;
}

static int loom_tcp_reachable(loom_tl_iface_t *tl_iface, int peer)
{
    loom_tcp_iface_t *iface = loom_tcp_iface_of(tl_iface);
    loom_tcp_ep_t *ep;

    if (peer < 0 || peer >= iface->size || peer == iface->rank) {
        return 0;
    }
    ep = loom_tcp_ep_get_or_create(iface, peer);
    return ep != NULL && loom_tcp_ep_load_addr(ep) == LOOM_OK &&
           ep->addr.family == iface->my_addr.family;
}

static loom_status_t loom_tcp_ep_create(loom_tl_iface_t *tl_iface, int peer,
                                        loom_tl_ep_t **ep_p)
{
    loom_tcp_iface_t *iface = loom_tcp_iface_of(tl_iface);
    loom_tcp_ep_t *ep;
    loom_status_t st;

    if (peer < 0 || peer >= iface->size || peer == iface->rank) {
        loom_error("tcp", "ep_create: rank %d is not a peer of rank %d (job of %d)", peer,
                   iface->rank, iface->size);
        return LOOM_ERR_INVALID_RANK;
    }
    ep = loom_tcp_ep_get_or_create(iface, peer);
    if (ep == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_tcp_ep_load_addr(ep);
    if (st != LOOM_OK) {
        loom_error("tcp", "rank %d@%s: no tcp address from rank %d@%s: %s", iface->rank,
                   loom_tcp_host_of(iface, iface->rank), peer, loom_tcp_host_of(iface, peer),
                   loom_strerror(st));
        return LOOM_ERR_UNREACHABLE;
    }
    if (!ep->engine_owned) {
        ep->engine_owned = 1;
        ++iface->num_eps;
    }
    *ep_p = &ep->super;
    return LOOM_OK;
}

static void loom_tcp_ep_destroy(loom_tl_ep_t *tl_ep)
{
    loom_tcp_ep_t *ep = loom_tcp_ep_of(tl_ep);

    /* the connection serves the peer until close(): it may still send to us */
    if (ep->engine_owned) {
        ep->engine_owned = 0;
        --loom_tcp_ep_iface(ep)->num_eps;
    }
}

/* ---- progress and close ------------------------------------------------------ */

/* One epoll_wait() and the events it reports. @return their number. */
static int loom_tcp_iface_dispatch(loom_tcp_iface_t *iface)
{
    struct epoll_event ev[LOOM_TCP_EVENTS_MAX];
    int n = epoll_wait(iface->epfd, ev, LOOM_TCP_EVENTS_MAX, 0);

    if (n < 0) {
        if (errno != EINTR) {
            loom_error("tcp", "epoll_wait(): %m");
        }
        return 0;
    }
    for (int i = 0; i < n; ++i) {
        loom_tcp_conn_t *conn = ev[i].data.ptr;

        if (conn->is_listener) {
            loom_tcp_conn_accept(iface);
        } else {
            loom_tcp_conn_events(conn, ev[i].events);
        }
    }
    return n;
}

static int loom_tcp_progress(loom_tl_iface_t *tl_iface)
{
    loom_tcp_iface_t *iface = loom_tcp_iface_of(tl_iface);
    int n;

    /*
     * Serving nobody (shm or ib reach every peer, the usual case on one
     * node): no syscall per engine poll; look for a peer that chose tcp
     * anyway once in a while.
     */
    if (iface->num_eps == 0 && iface->num_conns == 0 &&
        (++iface->poll_count & LOOM_TCP_IDLE_POLL_MASK) != 0) {
        return 0;
    }
    iface->corking = 1;
    if (iface->hot != NULL && (++iface->hot_polls & 15) != 0 &&
        loom_list_is_empty(&iface->hot->ep->txq)) {
        n = loom_tcp_conn_read_hot(iface);
    } else {
        n = loom_tcp_iface_dispatch(iface);
    }
    iface->corking = 0;
    if (!loom_list_is_empty(&iface->corked)) {
        loom_tcp_iface_uncork(iface);
    }
    if (!loom_list_is_empty(&iface->pending) && (++iface->poll_count & 255) == 0) {
        loom_tcp_conn_expire(iface);
    }
    if (!loom_list_is_empty(&iface->dead)) {
        loom_tcp_conn_reap(iface);
    }
    return n;
}

/* Say BYE to every connected peer so its EOF is not taken for a failure. */
static void loom_tcp_say_bye(loom_tcp_iface_t *iface)
{
    for (int r = 0; r < iface->size; ++r) {
        loom_tcp_ep_t *ep = iface->peers[r];

        if (ep != NULL && ep->state == LOOM_TCP_EP_UP) {
            if (loom_tcp_ep_send_frame(ep, LOOM_TCP_BYE, NULL, 0, NULL, 0, 1) == LOOM_OK) {
                loom_tcp_ep_flush(ep);
            }
        }
    }
}

static void loom_tcp_close(loom_tl_iface_t *tl_iface)
{
    loom_tcp_iface_t *iface = loom_tcp_iface_of(tl_iface);

    iface->closing = 1;
    loom_tcp_say_bye(iface);
    for (int r = 0; r < iface->size; ++r) {
        loom_tcp_ep_t *ep = iface->peers[r];

        if (ep == NULL) {
            continue;
        }
        if (ep->conn != NULL) {
            shutdown(ep->conn->fd, SHUT_WR);
            loom_tcp_conn_close(ep->conn);
        }
        loom_tcp_ep_drop_txq(ep);
        loom_tcp_ep_fail_gets(ep, LOOM_ERR_CANCELED);
        free(ep);
    }
    while (!loom_list_is_empty(&iface->pending)) {
        loom_tcp_conn_close(loom_list_head_entry(&iface->pending, loom_tcp_conn_t, link));
    }
    loom_tcp_conn_reap(iface);
    close(iface->listener.fd);
    close(iface->epfd);
    loom_tcp_iface_free(iface);
}

const loom_tl_ops_t loom_tl_tcp_ops = {
    .open        = loom_tcp_open,
    .query       = loom_tcp_query,
    .reachable   = loom_tcp_reachable,
    .ep_create   = loom_tcp_ep_create,
    .ep_destroy  = loom_tcp_ep_destroy,
    .am_send     = loom_tcp_am_send,
    .am_send_pack = loom_tcp_am_send_pack,
    .mem_pack    = loom_tcp_mem_pack,
    .mem_pack_fill = loom_tcp_mem_pack_fill,
    .mem_release = loom_tcp_mem_release,
    .get         = loom_tcp_get,
    .get_iov     = loom_tcp_get_iov,
    .progress    = loom_tcp_progress,
    .close       = loom_tcp_close,
};
