/*
 * test_tcp_conn.c: the TCP transport's connections, with several ranks in
 * one process (tcp_world.h; real sockets on 127.0.0.1, no launcher).
 *
 * Covered: outsiders with a wrong secret, garbage, a frame length meant to
 * exhaust memory or a second HELLO refused while the job goes on; a peer
 * dying (both ends named in the error, a failed get, no hang); an orderly
 * close; an interface with no endpoints of its own still serving a peer;
 * open's listening address choices (LOOM_TCP_IF) and refusals. The data
 * path (frames, back-pressure, gets) is in test_tcp_loop.c.
 */
#include "cunit_main.h"
#include "tcp_world.h"

#include "runtime_config_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- outsiders ---- */

static int connect_to(int r)
{
    const loom_tcp_addr_t *a = loom_tcp_iface_addr(world.iface[r]);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = a->port };
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memcpy(&sin.sin_addr, a->addr, 4);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    return fd;
}

/* Progress the job until the outsider's socket is closed by rank @p r. */
static int refused(int fd)
{
    double t0 = world_now();
    char c;

    while (world_now() - t0 < WORLD_DEADLINE) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        world_progress();
        if (poll(&pfd, 1, 1) == 1) {
            ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
            return n == 0 || (n < 0 && errno == ECONNRESET);
        }
    }
    return 0;
}

static void send_hello(int fd, int src, int dst, const uint8_t *secret, uint32_t magic)
{
    uint8_t buf[sizeof(loom_tcp_frame_hdr_t) + sizeof(loom_tcp_hello_t)];
    loom_tcp_frame_hdr_t fh = { .len = sizeof(loom_tcp_hello_t), .type = LOOM_TCP_HELLO };
    loom_tcp_hello_t h;

    loom_tcp_hello_pack(&h, src, dst, secret);
    h.magic = magic;
    memcpy(buf, &fh, sizeof(fh));
    memcpy(buf + sizeof(fh), &h, sizeof(h));
    CU_ASSERT_EQUAL(send(fd, buf, sizeof(buf), MSG_NOSIGNAL), (ssize_t)sizeof(buf));
}

static void test_outsiders(void)
{
    uint8_t wrong[LOOM_TCP_SECRET_LEN] = { 1, 2, 3 }, secret[LOOM_TCP_SECRET_LEN];
    size_t len = sizeof(secret);
    static const char garbage[] = "GET / HTTP/1.0\r\n\r\n";
    loom_tcp_frame_hdr_t huge = { .len = 1u << 30, .type = LOOM_TCP_HELLO };
    int fd;

    world_open(2, 1);
    world_send(0, 1, 8);
    CU_ASSERT(world_wait_for(world_all_delivered));
    CU_ASSERT_EQUAL_FATAL(world_modex_get(NULL, 0, LOOM_TCP_KEY_SECRET, secret, &len), LOOM_OK);

    fd = connect_to(1);                          /* wrong secret */
    send_hello(fd, 0, 1, wrong, LOOM_TCP_MAGIC);
    CU_ASSERT(refused(fd));
    close(fd);
    fd = connect_to(1);                          /* not loom at all */
    CU_ASSERT(send(fd, garbage, sizeof(garbage), MSG_NOSIGNAL) > 0);
    CU_ASSERT(refused(fd));
    close(fd);
    fd = connect_to(0);                          /* a frame length meant to exhaust memory */
    CU_ASSERT(send(fd, &huge, sizeof(huge), MSG_NOSIGNAL) > 0);
    CU_ASSERT(refused(fd));
    close(fd);
    fd = connect_to(1);                          /* right secret, but rank 0 is connected */
    send_hello(fd, 0, 1, secret, LOOM_TCP_MAGIC);
    CU_ASSERT(refused(fd));
    close(fd);
    fd = connect_to(1);                          /* connects and goes away */
    close(fd);

    /* the job goes on */
    for (unsigned i = 0; i < 50; ++i) {
        world_send(0, 1, world_frame_size(i));
        world_send(1, 0, world_frame_size(i + 1));
    }
    CU_ASSERT(world_wait_for(world_all_delivered));
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 0);
    CU_ASSERT_EQUAL(world.st[0].bad + world.st[1].bad, 0);
    CU_ASSERT(loom_list_is_empty(&loom_tcp_iface_of(world.iface[1])->pending));
    world_close();
}

/* ---- failures ---- */

static int errs_seen(void)
{
    return world.st[0].errs > 0 && world.st[1].errs > 0;
}

static void test_peer_death(void)
{
    uint8_t *src = calloc(1, 1 << 20), *dst = malloc(1 << 20);
    loom_tl_memh_t *memh;
    loom_tl_rkey_t rkey;
    world_get_op_t op;
    loom_tcp_iface_t *dying;

    world_open(3, 1);
    for (int r = 0; r < 3; ++r) {
        for (int p = 0; p < 3; ++p) {
            if (p != r) {
                world_send(r, p, 100);
            }
        }
    }
    CU_ASSERT(world_wait_for(world_all_delivered));
    /* rank 0 asks rank 2 for data that rank 2 will never send */
    CU_ASSERT_EQUAL_FATAL(loom_tl_mem_pack(world.iface[2], src, 1 << 20, &rkey, &memh),
                          LOOM_OK);
    CU_ASSERT_EQUAL(world_get(0, 2, dst, 1 << 20, (uint64_t)(uintptr_t)src, &rkey, &op),
                    LOOM_INPROGRESS);
    /* rank 2 dies: its sockets close without a BYE, it never progresses again */
    dying = loom_tcp_iface_of(world.iface[2]);
    for (int p = 0; p < 2; ++p) {
        shutdown(dying->peers[p]->conn->fd, SHUT_RDWR);
    }
    world.iface[2] = NULL;   /* world_progress skips it */
    world.n = 2;
    CU_ASSERT(world_wait_for(errs_seen));
    for (int r = 0; r < 2; ++r) {
        CU_ASSERT_EQUAL(world.st[r].errs, 1);
        CU_ASSERT_EQUAL(world.st[r].err_peer, 2);
        CU_ASSERT_EQUAL(world.st[r].err_status, LOOM_ERR_PEER_FAILED);
        /* both ends named: "rank r@host (addr) and rank 2@host (addr)" */
        CU_ASSERT(strstr(world.st[r].err_what, "rank 2@loophost") != NULL);
        CU_ASSERT(strstr(world.st[r].err_what, r == 0 ? "rank 0@loophost" : "rank 1@loophost")
                  != NULL);
        CU_ASSERT(strstr(world.st[r].err_what, "127.0.0.1:") != NULL);
        CU_ASSERT(strstr(world.st[r].err_what, "receive") != NULL);
    }
    CU_ASSERT_EQUAL(op.done, 1);
    CU_ASSERT_EQUAL(op.status, LOOM_ERR_PEER_FAILED);
    /* sending to the dead peer fails at once, the others still talk */
    CU_ASSERT_EQUAL(world_send(0, 2, 10), LOOM_ERR_PEER_FAILED);
    world_send(0, 1, 5000);
    world_send(1, 0, 5000);
    CU_ASSERT(world_wait_for(world_all_delivered));
    CU_ASSERT_EQUAL(world.st[0].errs + world.st[1].errs, 2);
    world.n = 3;
    world.iface[2] = &dying->super;
    loom_tl_mem_release(world.iface[2], memh);
    world_close();
    free(src);
    free(dst);
}

static int place_failed(void)
{
    return world.st[1].place_errs > 0 && world.st[1].errs > 0;
}

/*
 * A peer dies while a frame of it is being received in place: the frame's
 * taker hears of it (place_done with the error) before the peer's failure
 * is reported, and nothing waits for the rest.
 */
static void test_death_mid_place(void)
{
    static uint8_t raw[sizeof(loom_tcp_frame_hdr_t) + 20000];
    loom_tcp_frame_hdr_t fh = { .len = 60000, .type = LOOM_TCP_AM };
    struct { uint32_t seq, src; } f = { 1, 0 };
    loom_tcp_iface_t *dying;

    world_open_place(2, 1);
    world_send(0, 1, 8);
    CU_ASSERT(world_wait_for(world_all_delivered));
    /* rank 0 writes the first third of its next frame, then dies */
    dying = loom_tcp_iface_of(world.iface[0]);
    memcpy(raw, &fh, sizeof(fh));
    memcpy(raw + sizeof(fh), &f, sizeof(f));
    for (size_t i = sizeof(f); i < sizeof(raw) - sizeof(fh); ++i) {
        raw[sizeof(fh) + i] = (uint8_t)(f.seq * 7 + i);
    }
    CU_ASSERT_EQUAL(send(dying->peers[1]->conn->fd, raw, sizeof(raw), MSG_NOSIGNAL),
                    (ssize_t)sizeof(raw));
    for (double t0 = world_now(); !world.st[1].placing[0] && world.st[1].bad == 0 &&
                                  world_now() - t0 < WORLD_DEADLINE;) {
        loom_tl_iface_progress(world.iface[1]);
    }
    CU_ASSERT(world.st[1].placing[0]);
    shutdown(dying->peers[1]->conn->fd, SHUT_RDWR);
    world.iface[0] = NULL;
    CU_ASSERT(world_wait_for(place_failed));
    CU_ASSERT_EQUAL(world.st[1].place_errs, 1);
    CU_ASSERT_EQUAL(world.st[1].place_status, LOOM_ERR_PEER_FAILED);
    CU_ASSERT_EQUAL(world.st[1].errs_at_place_err, 0);   /* before the peer's failure */
    CU_ASSERT_EQUAL(world.st[1].errs, 1);
    CU_ASSERT_EQUAL(world.st[1].err_peer, 0);
    CU_ASSERT_FALSE(world.st[1].placing[0]);
    CU_ASSERT_EQUAL(world.st[1].received, 1);
    CU_ASSERT_EQUAL(world.st[1].bad, 0);
    world.iface[0] = &dying->super;
    world_close();
}

static int rank1_gone(void)
{
    loom_tcp_ep_t *ep = loom_tcp_ep_of(world.ep[0][1]);
    return ep->state == LOOM_TCP_EP_CLOSED && ep->conn == NULL;
}

static void test_orderly_close(void)
{
    world_open(2, 1);
    world_send(0, 1, 8);
    world_send(1, 0, 8);
    CU_ASSERT(world_wait_for(world_all_delivered));
    world.iface[1]->ops.close(world.iface[1]);
    world.iface[1] = NULL;
    world.ep[1][0] = NULL;
    CU_ASSERT(world_wait_for(rank1_gone));
    CU_ASSERT_EQUAL(world.st[0].errs, 0);
    CU_ASSERT_EQUAL(world_send(0, 1, 8), LOOM_ERR_CONNECTION);
    world_close();
}

/* A rank whose engine chose other transports still serves a peer that chose tcp. */
static void test_idle_iface_serves(void)
{
    world_open(2, 1);
    world.iface[1]->ops.ep_destroy(world.ep[1][0]);   /* rank 1's engine uses "shm" for 0 */
    world.ep[1][0] = NULL;
    CU_ASSERT_EQUAL(loom_tcp_iface_of(world.iface[1])->num_eps, 0);
    for (unsigned i = 0; i < 20; ++i) {
        CU_ASSERT_EQUAL(world_send(0, 1, world_frame_size(i)), LOOM_OK);
    }
    CU_ASSERT(world_wait_for(world_all_delivered));
    CU_ASSERT_EQUAL(world.st[1].bad, 0);
    CU_ASSERT(loom_tcp_iface_of(world.iface[1])->num_conns > 0);
    world_close();
}

/* Child of open_with_if(): open with the environment it was given, report on fd 3. */
static int open_child(int same_node)
{
    static const int nodes_same[] = { 0, 0 }, nodes_diff[] = { 0, 1 };
    static const char *const hosts[] = { "a", "b" };
    loom_bootstrap_info_t job = { .rank = 0, .size = 2, .local_size = 1,
                                  .node_of_rank = same_node ? nodes_same : nodes_diff,
                                  .hostnames = hosts, .jobid = "if" };
    loom_tl_params_t params = { .job = &job, .am_cb = world_on_am, .err_cb = world_on_err };
    loom_tcp_modex_t modex = { world_modex_put, world_modex_get, NULL };
    loom_tl_iface_t *iface = NULL;
    loom_tcp_addr_t a = { 0 };
    loom_status_t st;

    loom_runtime_config_load();
    st = loom_tcp_iface_open_modex(&params, &modex, &iface);
    if (st == LOOM_OK) {
        a = *loom_tcp_iface_addr(iface);
        iface->ops.close(iface);
    }
    if (write(3, &st, sizeof(st)) < 0 || write(3, &a, sizeof(a)) < 0) {
        return 2;
    }
    return 0;
}

/* LOOM_TCP_IF is read once per process: try each value in a fresh process. */
static int open_with_if(const char *value, int same_node, loom_tcp_addr_t *addr_p)
{
    int fds[2], ws = 0;
    pid_t pid;
    loom_status_t st = LOOM_ERR_INTERNAL;

    CU_ASSERT_FATAL(pipe(fds) == 0);
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        if (value != NULL) {
            setenv("LOOM_TCP_IF", value, 1);
        } else {
            unsetenv("LOOM_TCP_IF");
        }
        dup2(fds[1], 3);
        execl("/proc/self/exe", "test_tcp_conn", "--open-child", same_node ? "1" : "0",
              (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    CU_ASSERT(read(fds[0], &st, sizeof(st)) == sizeof(st));
    CU_ASSERT(read(fds[0], addr_p, sizeof(*addr_p)) == sizeof(*addr_p));
    close(fds[0]);
    waitpid(pid, &ws, 0);
    CU_ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    return st;
}

static void test_open_choices(void)
{
    loom_bootstrap_info_t job = { .rank = 0, .size = 1, .local_size = 1 };
    loom_tl_params_t params = { .job = &job, .am_cb = world_on_am, .err_cb = world_on_err };
    loom_tcp_modex_t modex = { world_modex_put, world_modex_get, NULL };
    loom_tl_iface_t *iface = NULL;
    loom_tcp_addr_t a;
    const uint32_t lo = htonl(INADDR_LOOPBACK);

    /* alone: nobody to talk to */
    CU_ASSERT_EQUAL(loom_tcp_iface_open_modex(&params, &modex, &iface), LOOM_ERR_UNSUPPORTED);
    /* one node: loopback only */
    CU_ASSERT_EQUAL(open_with_if(NULL, 1, &a), LOOM_OK);
    CU_ASSERT(a.family == AF_INET && memcmp(a.addr, &lo, 4) == 0 && a.port != 0);
    /* explicit interface name and address */
    CU_ASSERT_EQUAL(open_with_if("lo", 0, &a), LOOM_OK);
    CU_ASSERT(memcmp(a.addr, &lo, 4) == 0);
    CU_ASSERT_EQUAL(open_with_if("127.0.0.1", 0, &a), LOOM_OK);
    CU_ASSERT(memcmp(a.addr, &lo, 4) == 0);
    /* nonsense is a configuration error, not a silent fallback */
    CU_ASSERT_EQUAL(open_with_if("no-such-if0", 0, &a), LOOM_ERR_CONFIG);
    /* several nodes, nothing said: some address of this host */
    {
        loom_status_t st = open_with_if(NULL, 0, &a);
        CU_ASSERT(st == LOOM_OK || st == LOOM_ERR_UNSUPPORTED);
    }
}

int main(int argc, char **argv)
{
    static const loom_test_case_t cases[] = {
        { "outsiders refused, the job goes on", test_outsiders },
        { "peer death: named error, failed get, no hang", test_peer_death },
        { "peer death in the middle of a frame received in place", test_death_mid_place },
        { "orderly close is not an error", test_orderly_close },
        { "an idle interface still serves", test_idle_iface_serves },
        { "open: listening address choices", test_open_choices },
        { NULL, NULL },
    };

    if (argc == 3 && strcmp(argv[1], "--open-child") == 0) {
        return open_child(atoi(argv[2]));
    }
    loom_runtime_config_load();
    return loom_test_run_suite("tcp transport: connections", cases, NULL, NULL);
}
