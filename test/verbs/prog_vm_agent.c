/*
 * prog_vm_agent.c: the launch agent between the soft-RoCE test guests.
 *
 * The guests of `test/verbs/vm.sh --pair` have no ssh, so loomrun on the
 * first guest starts its daemon on the second through this agent, a small
 * rsh with a shared token:
 *
 *   on vm2 (its init starts it):
 *     prog_vm_agent --serve ADDR --port P --token-file F
 *   on vm1 (loomrun --launch-agent "prog_vm_agent --port P --token-file F --hosts H"):
 *     prog_vm_agent [--port P] --token-file F [--hosts H] HOST WORD...
 *
 * Like ssh, the client joins the words with spaces and the server has
 * /bin/sh run the result, with the client's stdin, stdout and stderr
 * carried over the connection, and the client exits with the command's
 * status (255 if the agent itself failed). The token (hex, in a file both
 * guests read from the shared work folder, drawn anew for every pair of
 * guests by vm.sh) must open the connection: a connection without it is
 * refused and logged, so the listener is not an open remote shell. If the
 * client goes away (loomrun stops its agents with SIGTERM) the server hangs
 * up the command: SIGHUP to its process group, SIGKILL 5 s later.
 *
 * Wire format (TCP): the client sends "LOOMVMA1 <token>\n<command>\n",
 * then frames; the server sends frames. A frame is one kind byte, a 32-bit
 * big-endian length and the bytes: 'i' stdin data, 'I' end of stdin
 * (client to server); 'o' stdout, 'e' stderr, 'x' exit (4 bytes: the
 * command's status as a shell reports it, 128+N for signal N), 'r' refusal
 * text (server to client). A frame never exceeds VMA_FRAME_MAX bytes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define VMA_MAGIC        "LOOMVMA1"
#define VMA_DEFAULT_PORT 7070
#define VMA_FRAME_MAX    65536u
#define VMA_HEADER_MAX   65536u
#define VMA_TOKEN_MAX    128
#define VMA_CONNECT_S    10
#define VMA_HEADER_S     10
#define VMA_HANGUP_S     5
#define VMA_DRAIN_S      10
#define VMA_EXIT_AGENT   255

typedef struct vma_opts {
    const char *serve;       /* --serve ADDR: server mode */
    const char *token_file;
    const char *hosts_file;
    int         port;
    int         first_word;  /* client: argv index of HOST */
} vma_opts_t;

/* A child's pipes and the connection, as the server session sees them. */
typedef struct vma_session {
    int      conn;
    int      in_fd, out_fd, err_fd, pidfd;
    pid_t    pid;
    int      status;          /* -1 until the command is reaped */
    int      stdin_done;      /* the client sent 'I' */
    uint8_t *pend;            /* stdin bytes not yet taken by the command */
    size_t   pend_len, pend_off;
    uint8_t *rx;              /* frames from the client */
    size_t   rx_len;
} vma_session_t;

static void vma_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void vma_log(const char *fmt, ...)
{
    va_list ap;

    fputs("vm_agent: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static double vma_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- plumbing --------------------------------------------------------------- */

static int vma_write_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) {
            n = write(fd, p, len);
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int vma_send_frame(int fd, char kind, const void *data, size_t len)
{
    uint8_t hdr[5] = { (uint8_t)kind, (uint8_t)(len >> 24), (uint8_t)(len >> 16),
                       (uint8_t)(len >> 8), (uint8_t)len };

    if (vma_write_all(fd, hdr, sizeof(hdr)) != 0) {
        return -1;
    }
    return len > 0 ? vma_write_all(fd, data, len) : 0;
}

/* The next whole frame in @p buf (of @p len bytes): its size, 0 if partial,
 * -1 if malformed. */
static long vma_frame_peek(const uint8_t *buf, size_t len, char *kind_p, uint32_t *dlen_p)
{
    uint32_t dlen;

    if (len < 5) {
        return 0;
    }
    dlen = (uint32_t)buf[1] << 24 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 8 | buf[4];
    if (dlen > VMA_FRAME_MAX) {
        return -1;
    }
    if (len < 5 + (size_t)dlen) {
        return 0;
    }
    *kind_p = (char)buf[0];
    *dlen_p = dlen;
    return 5 + (long)dlen;
}

/* Read the token: hex digits, at least 32, surrounding blanks ignored. */
static int vma_read_token(const char *path, char *tok, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n;

    if (f == NULL) {
        vma_log("cannot read the token file %s: %s", path, strerror(errno));
        return -1;
    }
    n = fread(tok, 1, len - 1, f);
    fclose(f);
    tok[n] = '\0';
    while (n > 0 && (tok[n - 1] == '\n' || tok[n - 1] == ' ')) {
        tok[--n] = '\0';
    }
    if (n < 32 || strspn(tok, "0123456789abcdef") != n) {
        vma_log("the token file %s does not hold 32 to %d hex digits", path, VMA_TOKEN_MAX);
        return -1;
    }
    return 0;
}

/* Constant-time comparison: no timing hint about how much of a guess was right. */
static int vma_token_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    uint8_t diff = (uint8_t)(la != lb);

    for (size_t i = 0; i < la && i < lb; ++i) {
        diff |= (uint8_t)(a[i] ^ b[i]);
    }
    return diff == 0;
}

/* ---- server: one session --------------------------------------------------------- */

/* Start /bin/sh -c @p cmd in its own session, its stdio on three pipes. */
static int vma_session_spawn(vma_session_t *s, const char *cmd)
{
    int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };

    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        vma_log("pipe: %s", strerror(errno));
        goto err_close_pipes;
    }
    s->pid = fork();
    if (s->pid < 0) {
        vma_log("fork: %s", strerror(errno));
        goto err_close_pipes;
    }
    if (s->pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        signal(SIGCHLD, SIG_DFL);
        setsid();
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) {
            _exit(126);
        }
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    s->in_fd = in[1];
    s->out_fd = out[0];
    s->err_fd = err[0];
    fcntl(s->in_fd, F_SETFL, O_NONBLOCK);
    s->pidfd = (int)syscall(SYS_pidfd_open, s->pid, 0);
    return 0;

err_close_pipes:
    for (int i = 0; i < 2; ++i) {
        if (in[i] >= 0) close(in[i]);
        if (out[i] >= 0) close(out[i]);
        if (err[i] >= 0) close(err[i]);
    }
    return -1;
}

/* The client is gone: hang up the command's session, then make sure. */
static void vma_session_hangup(vma_session_t *s)
{
    double end = vma_now() + VMA_HANGUP_S;

    if (s->status >= 0) {
        return;
    }
    kill(-s->pid, SIGHUP);
    while (vma_now() < end) {
        if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
            return;
        }
        usleep(50000);
    }
    kill(-s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
}

/* Frames from the client: stdin data and its end. 0, or -1 if malformed. */
static int vma_session_client_frames(vma_session_t *s)
{
    size_t off = 0;
    long fl;
    char kind;
    uint32_t dlen;

    while ((fl = vma_frame_peek(s->rx + off, s->rx_len - off, &kind, &dlen)) > 0) {
        if (kind == 'I') {
            s->stdin_done = 1;
        } else if (kind != 'i' || s->stdin_done || s->pend_len + dlen > 4 * VMA_FRAME_MAX) {
            return -1;
        } else {
            memcpy(s->pend + s->pend_len, s->rx + off + 5, dlen);
            s->pend_len += dlen;
        }
        off += (size_t)fl;
    }
    memmove(s->rx, s->rx + off, s->rx_len - off);
    s->rx_len -= off;
    return fl < 0 ? -1 : 0;
}

/* Give the command what stdin it takes; close its stdin at the end. */
static void vma_session_feed(vma_session_t *s)
{
    while (s->in_fd >= 0 && s->pend_off < s->pend_len) {
        ssize_t n = write(s->in_fd, s->pend + s->pend_off, s->pend_len - s->pend_off);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            return;
        }
        if (n < 0) {          /* EPIPE: the command closed its stdin; drop the rest */
            s->pend_off = s->pend_len;
            break;
        }
        s->pend_off += (size_t)n;
    }
    if (s->pend_off == s->pend_len) {
        s->pend_off = s->pend_len = 0;
    }
    if (s->stdin_done && s->pend_len == 0 && s->in_fd >= 0) {
        close(s->in_fd);
        s->in_fd = -1;
    }
}

/* One pipe of the command's output readable: forward it. -1 if the client is gone. */
static int vma_session_output(vma_session_t *s, int *fd, char kind)
{
    uint8_t buf[16384];
    ssize_t n = read(*fd, buf, sizeof(buf));

    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return 0;
    }
    if (n <= 0) {
        close(*fd);
        *fd = -1;
        return 0;
    }
    return vma_send_frame(s->conn, kind, buf, (size_t)n);
}

/* Data or end from the client. -1 when the client is gone or misbehaves. */
static int vma_session_client(vma_session_t *s)
{
    ssize_t n;

    if (s->rx_len == VMA_FRAME_MAX + 5) {
        return -1;
    }
    n = recv(s->conn, s->rx + s->rx_len, VMA_FRAME_MAX + 5 - s->rx_len, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return 0;
    }
    if (n <= 0) {
        return -1;
    }
    s->rx_len += (size_t)n;
    if (vma_session_client_frames(s) != 0) {
        vma_log("malformed frame from the client");
        return -1;
    }
    vma_session_feed(s);
    return 0;
}

static void vma_session_reap(vma_session_t *s)
{
    int ws;

    if (waitpid(s->pid, &ws, WNOHANG) != s->pid) {
        return;
    }
    s->status = WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
    if (s->pidfd >= 0) {
        close(s->pidfd);
        s->pidfd = -1;
    }
}

/* Run the session until the command has exited and its output has ended
 * (or VMA_DRAIN_S after the exit: a descendant may keep the pipes). */
static int vma_session_loop(vma_session_t *s)
{
    double drain_end = 0;

    while (s->out_fd >= 0 || s->err_fd >= 0 || s->status < 0) {
        struct pollfd p[5] = {
            { .fd = s->pend_len == 0 ? s->conn : -1, .events = POLLIN },
            { .fd = s->pend_len > 0 ? s->in_fd : -1, .events = POLLOUT },
            { .fd = s->out_fd, .events = POLLIN },
            { .fd = s->err_fd, .events = POLLIN },
            { .fd = s->pidfd, .events = POLLIN },
        };
        if (s->status >= 0 && drain_end == 0) {
            drain_end = vma_now() + VMA_DRAIN_S;
        }
        if (drain_end > 0 && vma_now() > drain_end) {
            break;
        }
        if (poll(p, 5, s->pidfd >= 0 ? 1000 : 200) < 0 && errno != EINTR) {
            return -1;
        }
        if ((p[0].revents && vma_session_client(s) != 0) ||
            (p[2].revents && vma_session_output(s, &s->out_fd, 'o') != 0) ||
            (p[3].revents && vma_session_output(s, &s->err_fd, 'e') != 0)) {
            return -1;
        }
        if (p[1].revents) {
            vma_session_feed(s);
        }
        vma_session_reap(s);
    }
    return 0;
}

/* Header: magic and token on the first line, the command on the second.
 * Bytes after it are the first frames. Returns the command, or NULL. */
static char *vma_session_header(vma_session_t *s, const char *token, const char *peer)
{
    char *nl1, *nl2, *hdr = (char *)s->rx;
    struct timeval tv = { .tv_sec = VMA_HEADER_S };
    const char *why = "no header";

    setsockopt(s->conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    for (;;) {
        ssize_t n = recv(s->conn, s->rx + s->rx_len, VMA_HEADER_MAX - 1 - s->rx_len, 0);
        if (n <= 0) {
            goto err_refuse;
        }
        s->rx_len += (size_t)n;
        s->rx[s->rx_len] = '\0';
        if ((nl1 = strchr(hdr, '\n')) != NULL && (nl2 = strchr(nl1 + 1, '\n')) != NULL) {
            break;
        }
        if (s->rx_len == VMA_HEADER_MAX - 1) {
            why = "header too long";
            goto err_refuse;
        }
    }
    tv.tv_sec = 0;
    setsockopt(s->conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    *nl1 = *nl2 = '\0';
    if (strncmp(hdr, VMA_MAGIC " ", sizeof(VMA_MAGIC)) != 0 ||
        !vma_token_equal(hdr + sizeof(VMA_MAGIC), token)) {
        why = "wrong token";
        goto err_refuse;
    }
    return nl1 + 1;

err_refuse:
    vma_log("refused a connection from %s: %s", peer, why);
    vma_send_frame(s->conn, 'r', why, strlen(why));
    return NULL;
}

static void vma_session_run(int conn, const char *token, const char *peer)
{
    vma_session_t s = { .conn = conn, .in_fd = -1, .out_fd = -1, .err_fd = -1, .pidfd = -1,
                        .status = -1 };
    char *cmd, *copy = NULL;
    size_t hlen;
    uint8_t st[4];

    s.rx = malloc(VMA_HEADER_MAX + VMA_FRAME_MAX + 5);
    s.pend = malloc(5 * VMA_FRAME_MAX);
    if (s.rx == NULL || s.pend == NULL || (cmd = vma_session_header(&s, token, peer)) == NULL ||
        (copy = strdup(cmd)) == NULL) {
        goto out_free;
    }
    hlen = (size_t)(cmd - (char *)s.rx) + strlen(cmd) + 1;
    memmove(s.rx, s.rx + hlen, s.rx_len - hlen);
    s.rx_len -= hlen;
    if (vma_session_client_frames(&s) != 0 || vma_session_spawn(&s, copy) != 0) {
        goto out_free;
    }
    vma_log("%s: pid %d: %s", peer, (int)s.pid, copy);
    vma_session_feed(&s);
    if (vma_session_loop(&s) != 0) {
        if (s.status < 0) {
            vma_log("%s: the client is gone; hanging up pid %d", peer, (int)s.pid);
            vma_session_hangup(&s);
        } else {
            vma_log("%s: pid %d ended with status %d; the client left", peer, (int)s.pid,
                    s.status);
        }
        goto out_free;
    }
    st[0] = (uint8_t)(s.status >> 24);
    st[1] = (uint8_t)(s.status >> 16);
    st[2] = (uint8_t)(s.status >> 8);
    st[3] = (uint8_t)s.status;
    vma_send_frame(conn, 'x', st, sizeof(st));
    vma_log("%s: pid %d ended with status %d", peer, (int)s.pid, s.status);

out_free:
    free(copy);
    free(s.rx);
    free(s.pend);
}

/* ---- server: listening -------------------------------------------------------------- */

static int vma_serve(const vma_opts_t *o)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->port) };
    char token[VMA_TOKEN_MAX + 2];
    int lfd, one = 1;

    if (vma_read_token(o->token_file, token, sizeof(token)) != 0) {
        return VMA_EXIT_AGENT;
    }
    if (inet_pton(AF_INET, o->serve, &sa.sin_addr) != 1) {
        vma_log("--serve needs an IPv4 address, not '%s'", o->serve);
        return VMA_EXIT_AGENT;
    }
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 16) != 0) {
        vma_log("cannot listen on %s:%d: %s", o->serve, o->port, strerror(errno));
        return VMA_EXIT_AGENT;
    }
    signal(SIGCHLD, SIG_IGN);   /* sessions are reaped by the kernel */
    signal(SIGPIPE, SIG_IGN);
    vma_log("serving on %s:%d", o->serve, o->port);
    for (;;) {
        struct sockaddr_in peer;
        socklen_t pl = sizeof(peer);
        char name[64], ip[INET_ADDRSTRLEN];
        int conn = accept4(lfd, (struct sockaddr *)&peer, &pl, SOCK_CLOEXEC);

        if (conn < 0) {
            if (errno != EINTR && errno != ECONNABORTED) {
                vma_log("accept: %s", strerror(errno));
                sleep(1);
            }
            continue;
        }
        inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof(ip));
        snprintf(name, sizeof(name), "%s:%d", ip, ntohs(peer.sin_port));
        setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (fork() == 0) {
            close(lfd);
            signal(SIGCHLD, SIG_DFL);
            vma_session_run(conn, token, name);
            _exit(0);
        }
        close(conn);
    }
}

/* ---- client ------------------------------------------------------------------------------ */

/* HOST's address: its line "NAME ADDR" in the hosts file, or HOST itself. */
static int vma_resolve(const char *hosts_file, const char *host, struct in_addr *addr)
{
    char line[512], name[256], ip[64];
    FILE *f = hosts_file != NULL ? fopen(hosts_file, "r") : NULL;
    int found = 0;

    if (hosts_file != NULL && f == NULL) {
        vma_log("cannot read the hosts file %s: %s", hosts_file, strerror(errno));
        return -1;
    }
    while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL) {
        found = sscanf(line, "%255s %63s", name, ip) == 2 && name[0] != '#' &&
                strcmp(name, host) == 0;
    }
    if (f != NULL) {
        fclose(f);
    }
    if (inet_pton(AF_INET, found ? ip : host, addr) != 1) {
        vma_log("unknown host %s (not in %s, not an IPv4 address)", host,
                hosts_file != NULL ? hosts_file : "any hosts file");
        return -1;
    }
    return 0;
}

/* Connect within VMA_CONNECT_S seconds; the socket or -1. */
static int vma_connect(const char *host, struct in_addr addr, int port)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                              .sin_addr = addr };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), err = 0, one = 1;
    socklen_t el = sizeof(err);
    struct pollfd p = { .fd = fd, .events = POLLOUT };

    if (fd < 0) {
        vma_log("socket: %s", strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 && errno != EINPROGRESS) {
        err = errno;
    } else if (poll(&p, 1, VMA_CONNECT_S * 1000) != 1) {
        err = ETIMEDOUT;
    } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0) {
        err = errno;
    }
    if (err != 0) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &addr, ip, sizeof(ip));
        vma_log("cannot reach the agent of %s at %s:%d: %s", host, ip, port, strerror(err));
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, 0);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* "LOOMVMA1 TOKEN\nWORD WORD...\n", as ssh joins its words. */
static char *vma_client_header(const char *token, int nwords, char **words)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (f == NULL) {
        return NULL;
    }
    fprintf(f, "%s %s\n", VMA_MAGIC, token);
    for (int i = 0; i < nwords; ++i) {
        fprintf(f, "%s%s", i ? " " : "", words[i]);
    }
    fputc('\n', f);
    fclose(f);
    if (buf != NULL && (len > VMA_HEADER_MAX - 1 || strchr(strchr(buf, '\n') + 1, '\n') !=
                                                       buf + len - 1)) {
        vma_log("the command is too long or holds a newline");
        free(buf);
        return NULL;
    }
    return buf;
}

/* Frames from the server. The exit status once it came, else -1 (and
 * VMA_EXIT_AGENT in *fatal_p on a refusal or a malformed frame). */
static int vma_client_frames(uint8_t *rx, size_t *rx_len, const char *host, int *fatal_p)
{
    size_t off = 0;
    long fl;
    char kind;
    uint32_t dlen;
    int status = -1;

    while (status < 0 && (fl = vma_frame_peek(rx + off, *rx_len - off, &kind, &dlen)) > 0) {
        const uint8_t *d = rx + off + 5;
        if (kind == 'o' || kind == 'e') {
            vma_write_all(kind == 'o' ? 1 : 2, d, dlen);
        } else if (kind == 'x' && dlen == 4) {
            status = (int)((uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3]);
        } else if (kind == 'r') {
            vma_log("the agent of %s refused the connection: %.*s", host, (int)dlen, d);
            *fatal_p = VMA_EXIT_AGENT;
            return -1;
        } else {
            fl = -1;
            break;
        }
        off += (size_t)fl;
    }
    if (fl < 0) {
        vma_log("malformed frame from the agent of %s", host);
        *fatal_p = VMA_EXIT_AGENT;
        return -1;
    }
    memmove(rx, rx + off, *rx_len - off);
    *rx_len -= off;
    return status;
}

/* Relay stdin up and output down until the exit status arrives. */
static int vma_client_relay(int fd, const char *host)
{
    static uint8_t rx[VMA_FRAME_MAX + 5], in[VMA_FRAME_MAX];
    size_t rx_len = 0;
    int stdin_open = 1, fatal = 0;

    for (;;) {
        struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
                               { .fd = stdin_open ? 0 : -1, .events = POLLIN } };
        ssize_t n;
        int status;

        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return VMA_EXIT_AGENT;
        }
        if (p[1].revents) {
            n = read(0, in, sizeof(in));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                stdin_open = 0;
            }
            if (vma_send_frame(fd, n > 0 ? 'i' : 'I', in, n > 0 ? (size_t)n : 0) != 0) {
                stdin_open = 0;   /* the server's answer (or its absence) says why */
            }
        }
        if (p[0].revents) {
            n = recv(fd, rx + rx_len, sizeof(rx) - rx_len, 0);
            if (n <= 0 && !(n < 0 && errno == EINTR)) {
                vma_log("the agent of %s closed the connection before the command's status",
                        host);
                return VMA_EXIT_AGENT;
            }
            rx_len += n > 0 ? (size_t)n : 0;
            status = vma_client_frames(rx, &rx_len, host, &fatal);
            if (fatal || status >= 0) {
                return fatal ? fatal : status;
            }
        }
    }
}

static int vma_client(const vma_opts_t *o, int argc, char **argv)
{
    char token[VMA_TOKEN_MAX + 2], *hdr;
    const char *host = argv[o->first_word];
    struct in_addr addr;
    int fd, rc;

    if (o->first_word + 1 >= argc) {
        vma_log("usage: prog_vm_agent --token-file F [--port P] [--hosts FILE] HOST COMMAND...");
        return VMA_EXIT_AGENT;
    }
    if (vma_read_token(o->token_file, token, sizeof(token)) != 0 ||
        vma_resolve(o->hosts_file, host, &addr) != 0) {
        return VMA_EXIT_AGENT;
    }
    hdr = vma_client_header(token, argc - o->first_word - 1, argv + o->first_word + 1);
    if (hdr == NULL || (fd = vma_connect(host, addr, o->port)) < 0) {
        free(hdr);
        return VMA_EXIT_AGENT;
    }
    signal(SIGPIPE, SIG_IGN);
    rc = vma_write_all(fd, hdr, strlen(hdr)) == 0 ? vma_client_relay(fd, host) : VMA_EXIT_AGENT;
    free(hdr);
    close(fd);
    return rc;
}

/* ---- options ------------------------------------------------------------------------------- */

static int vma_parse(int argc, char **argv, vma_opts_t *o)
{
    int i;

    o->port = VMA_DEFAULT_PORT;
    for (i = 1; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (!strcmp(argv[i], "--serve")) {
            o->serve = argv[i + 1];
        } else if (!strcmp(argv[i], "--port")) {
            o->port = atoi(argv[i + 1]);
        } else if (!strcmp(argv[i], "--token-file")) {
            o->token_file = argv[i + 1];
        } else if (!strcmp(argv[i], "--hosts")) {
            o->hosts_file = argv[i + 1];
        } else {
            break;
        }
    }
    o->first_word = i;
    if (o->token_file == NULL || o->port <= 0 || o->port > 65535 ||
        (o->serve == NULL && i >= argc) || (i < argc && strncmp(argv[i], "--", 2) == 0)) {
        vma_log("usage: prog_vm_agent --serve ADDR [--port P] --token-file F\n"
                "       prog_vm_agent [--port P] --token-file F [--hosts FILE] HOST COMMAND...");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    vma_opts_t o = { 0 };

    if (vma_parse(argc, argv, &o) != 0) {
        return VMA_EXIT_AGENT;
    }
    return o.serve != NULL ? vma_serve(&o) : vma_client(&o, argc, argv);
}
