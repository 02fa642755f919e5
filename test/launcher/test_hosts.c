/*
 * test_hosts.c: the pure parts of multi-host loomrun, in one process:
 * --host and hostfile parsing, rank placement (by slot, by node,
 * oversubscribed, the daemon's rebuild of the map), and the control
 * protocol's encoder and decoder, including every kind of malformed frame
 * the decoder must refuse (the head reads frames from anyone who connects
 * before the secret is checked).
 */
#include "cunit_main.h"
#include "../../launcher/loomrun_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static loomrun_opts_t opts;
static char why[512];

static void opts_reset(void)
{
    for (int i = 0; i < opts.nhosts; ++i) {
        free(opts.hosts[i].name);
    }
    free(opts.hosts);
    memset(&opts, 0, sizeof(opts));
    why[0] = '\0';
}

static int parse(const char *list)
{
    opts_reset();
    return loomrun_hosts_parse_list(&opts, list, why, sizeof(why));
}

static void test_host_list(void)
{
    CU_ASSERT_EQUAL_FATAL(parse("a:2,b,node-3.cluster:4"), 0);
    CU_ASSERT_EQUAL_FATAL(opts.nhosts, 3);
    CU_ASSERT_STRING_EQUAL(opts.hosts[0].name, "a");
    CU_ASSERT_EQUAL(opts.hosts[0].slots, 2);
    CU_ASSERT_EQUAL(opts.hosts[1].slots, 1);
    CU_ASSERT_STRING_EQUAL(opts.hosts[2].name, "node-3.cluster");
    CU_ASSERT_EQUAL(opts.hosts[2].slots, 4);
    /* a host named twice gets the sum of its slots */
    CU_ASSERT_EQUAL_FATAL(parse("a,b:2,a:3"), 0);
    CU_ASSERT_EQUAL(opts.nhosts, 2);
    CU_ASSERT_EQUAL(opts.hosts[0].slots, 4);
}

static void test_host_list_errors(void)
{
    const char *bad[] = { "", "a:", "a:x", "a:0", "a:-1", "a:99999999999", "a,,b", "a,",
                          ",a", "bad host", "a;b", "a:2:3", ":2" };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        CU_ASSERT_EQUAL(parse(bad[i]), -1);
        CU_ASSERT(why[0] != '\0');
    }
}

static int parse_file(const char *text)
{
    char path[] = "/tmp/loom-hostfile-XXXXXX";
    int fd = mkstemp(path), rc;

    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    opts_reset();
    rc = loomrun_hosts_parse_file(&opts, path, why, sizeof(why));
    unlink(path);
    return rc;
}

static void test_hostfile(void)
{
    CU_ASSERT_EQUAL_FATAL(parse_file("# cluster\n\nn1 slots=2\n  n2   # one slot\n"
                                     "n3 slots=4 max_slots=8\nn4:3\n"), 0);
    CU_ASSERT_EQUAL_FATAL(opts.nhosts, 4);
    CU_ASSERT_EQUAL(opts.hosts[0].slots, 2);
    CU_ASSERT_EQUAL(opts.hosts[1].slots, 1);
    CU_ASSERT_EQUAL(opts.hosts[2].slots, 4);
    CU_ASSERT_STRING_EQUAL(opts.hosts[3].name, "n4");
    CU_ASSERT_EQUAL(opts.hosts[3].slots, 3);
    CU_ASSERT_EQUAL(parse_file("n1 cpus=2\n"), -1);
    CU_ASSERT(strstr(why, ":1:") != NULL && strstr(why, "cpus=2") != NULL);
    CU_ASSERT_EQUAL(parse_file("n1 slots=two\n"), -1);
    CU_ASSERT_EQUAL(parse_file("# nothing\n\n"), -1);
    CU_ASSERT(strstr(why, "names no host") != NULL);
    opts_reset();
    CU_ASSERT_EQUAL(loomrun_hosts_parse_file(&opts, "/nonexistent/hostfile", why,
                                             sizeof(why)), -1);
}

/* Place @p n ranks on "list" and compare the node of each rank to @p want. */
static void check_map(const char *list, int n, int map_by, int over, const int *want,
                      int nnodes)
{
    loomrun_map_t map;

    CU_ASSERT_EQUAL_FATAL(parse(list), 0);
    CU_ASSERT_EQUAL_FATAL(loomrun_map_build(opts.hosts, opts.nhosts, n, map_by, over, &map,
                                            why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(map.nnodes, nnodes);
    for (int r = 0; r < n; ++r) {
        CU_ASSERT_EQUAL(map.node_of[r], want[r]);
    }
    /* grouped by node, ascending within a node */
    for (int k = 0; k < map.nnodes; ++k) {
        for (int i = 0; i < map.count[k]; ++i) {
            int r = map.ranks[map.first[k] + i];
            CU_ASSERT_EQUAL(map.node_of[r], k);
            CU_ASSERT(i == 0 || r > map.ranks[map.first[k] + i - 1]);
        }
    }
    loomrun_map_free(&map);
}

static void test_map(void)
{
    check_map("a:2,b:2", 3, LOOMRUN_MAP_SLOT, 0, (int[]){ 0, 0, 1 }, 2);
    check_map("a:2,b:2", 4, LOOMRUN_MAP_NODE, 0, (int[]){ 0, 1, 0, 1 }, 2);
    check_map("a:1,b:3", 4, LOOMRUN_MAP_NODE, 0, (int[]){ 0, 1, 1, 1 }, 2);
    check_map("a:2,b:2,c:2", 3, LOOMRUN_MAP_NODE, 0, (int[]){ 0, 1, 2 }, 3);
    check_map("a:1,b:1", 5, LOOMRUN_MAP_SLOT, 1, (int[]){ 0, 1, 0, 1, 0 }, 2);
    /* rank 0 on the second host listed: nodes are numbered by first rank */
    check_map("a:2,b:2,c:2", 2, LOOMRUN_MAP_SLOT, 0, (int[]){ 0, 0 }, 1);
}

static void test_map_errors_and_rebuild(void)
{
    loomrun_map_t map, copy;
    int node_of[5];

    CU_ASSERT_EQUAL_FATAL(parse("a:2,b:2"), 0);
    CU_ASSERT_EQUAL(loomrun_map_build(opts.hosts, opts.nhosts, 5, LOOMRUN_MAP_SLOT, 0, &map,
                                      why, sizeof(why)), -1);
    CU_ASSERT(strstr(why, "5 ranks do not fit the 4 slots") != NULL);
    CU_ASSERT_EQUAL_FATAL(loomrun_map_build(opts.hosts, opts.nhosts, 4, LOOMRUN_MAP_NODE, 0,
                                            &map, why, sizeof(why)), 0);
    /* what a daemon receives: names and the node of every rank */
    CU_ASSERT_EQUAL_FATAL(loomrun_map_from(map.names, map.nnodes, map.node_of, 4, &copy), 0);
    CU_ASSERT_EQUAL(copy.nnodes, 2);
    CU_ASSERT_EQUAL(memcmp(copy.node_of, map.node_of, 4 * sizeof(int)), 0);
    CU_ASSERT_EQUAL(memcmp(copy.ranks, map.ranks, 4 * sizeof(int)), 0);
    loomrun_map_free(&copy);
    memcpy(node_of, (int[]){ 0, 2, 0, 1, 0 }, sizeof(node_of));  /* node 2 before node 1 */
    CU_ASSERT_EQUAL(loomrun_map_from(map.names, 2, node_of, 5, &copy), -1);
    memcpy(node_of, (int[]){ 0, 0, 0, 0, 0 }, sizeof(node_of));  /* node 1 gets no rank */
    CU_ASSERT_EQUAL(loomrun_map_from(map.names, 2, node_of, 5, &copy), -1);
    loomrun_map_free(&map);
    CU_ASSERT_EQUAL(loomrun_hosts_is_local("n1", "n1"), 1);
    CU_ASSERT_EQUAL(loomrun_hosts_is_local("n2", "n1"), 0);
    CU_ASSERT_EQUAL(loomrun_hosts_is_local("localhost", NULL), 1);
}

/* ---- the control protocol ---------------------------------------------------- */

static void test_ctl_roundtrip(void)
{
    char *names[] = { "n1", "n2" }, *argv[] = { "/bin/prog", "arg with space", "" };
    char *env[] = { "A=1", "B=x=y" };
    int node_of[] = { 0, 0, 1, 1, 1 };
    loomrun_buf_t b = { 0 };
    loomrun_ctl_msg_t m;
    loomrun_ctl_list_t l;
    size_t used;

    CU_ASSERT_EQUAL_FATAL(loomrun_ctl_pack(&b, LOOMRUN_CTL_JOB, 3u, 5u, 1u, "ns.1", "/work",
                                           "head", names, 2, argv, 3, env, 2, node_of, 5), 0);
    CU_ASSERT_EQUAL_FATAL(loomrun_ctl_pack(&b, LOOMRUN_CTL_OUTPUT, 4u, 2u, 1u,
                                           (const void *)"line\n", (size_t)5), 0);
    /* every shorter prefix asks for more bytes, never errs */
    for (size_t n = 0; n < b.len; ++n) {
        int rc = loomrun_ctl_decode(b.p, n, &m, &used, why, sizeof(why));
        CU_ASSERT(rc == 0 || (rc == 1 && used <= n));
    }
    CU_ASSERT_EQUAL_FATAL(loomrun_ctl_decode(b.p, b.len, &m, &used, why, sizeof(why)), 1);
    CU_ASSERT_EQUAL(m.type, LOOMRUN_CTL_JOB);
    CU_ASSERT_EQUAL(m.u[0], 3);
    CU_ASSERT_EQUAL(m.u[1], 5);
    CU_ASSERT_STRING_EQUAL(m.s[0], "ns.1");
    CU_ASSERT_STRING_EQUAL(m.s[2], "head");
    l = m.list[1];
    CU_ASSERT_EQUAL(l.n, 3);
    CU_ASSERT_STRING_EQUAL(loomrun_ctl_list_next(&l), "/bin/prog");
    CU_ASSERT_STRING_EQUAL(loomrun_ctl_list_next(&l), "arg with space");
    CU_ASSERT_STRING_EQUAL(loomrun_ctl_list_next(&l), "");
    CU_ASSERT_PTR_NULL(loomrun_ctl_list_next(&l));
    CU_ASSERT_EQUAL(m.arr_n, 5);
    CU_ASSERT_EQUAL(loomrun_ctl_arr(&m, 4), 1);
    CU_ASSERT_EQUAL_FATAL(loomrun_ctl_decode(b.p + used, b.len - used, &m, &used, why,
                                             sizeof(why)), 1);
    CU_ASSERT_EQUAL(m.type, LOOMRUN_CTL_OUTPUT);
    CU_ASSERT_EQUAL(m.blob_len, 5);
    CU_ASSERT_EQUAL(memcmp(m.blob, "line\n", 5), 0);
    loomrun_buf_free(&b);
}

static int decode_raw(uint32_t type, const void *body, uint32_t len);

/* NOTE "ui": a rank and the peer it saw fail, -1 when it does not know. */
static void test_ctl_note(void)
{
    loomrun_buf_t b = { 0 };
    loomrun_ctl_msg_t m;
    size_t used, off;

    CU_ASSERT_EQUAL_FATAL(loomrun_ctl_pack(&b, LOOMRUN_CTL_NOTE, 3u, -1), 0);
    CU_ASSERT_EQUAL_FATAL(loomrun_ctl_pack(&b, LOOMRUN_CTL_NOTE, 7u, 2), 0);
    CU_ASSERT_EQUAL_FATAL(loomrun_ctl_decode(b.p, b.len, &m, &used, why, sizeof(why)), 1);
    CU_ASSERT_EQUAL(used, 16);
    CU_ASSERT_EQUAL(m.type, LOOMRUN_CTL_NOTE);
    CU_ASSERT_EQUAL(m.nu, 2);
    CU_ASSERT_EQUAL(m.u[0], 3);
    CU_ASSERT_EQUAL((int)m.u[1], -1);
    CU_ASSERT_STRING_EQUAL(loomrun_ctl_type_name(m.type), "NOTE");
    off = used;
    CU_ASSERT_EQUAL_FATAL(loomrun_ctl_decode(b.p + off, b.len - off, &m, &used, why,
                                             sizeof(why)), 1);
    CU_ASSERT_EQUAL(m.u[0], 7);
    CU_ASSERT_EQUAL((int)m.u[1], 2);
    loomrun_buf_free(&b);
    /* one field short, one too many */
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_NOTE, "\0\0\0\3", 4), -1);
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_NOTE, "\0\0\0\3\xff\xff\xff\xff\0\0\0\0", 12), -1);
}

/* A frame of @p type with @p body (network order words written by hand). */
static int decode_raw(uint32_t type, const void *body, uint32_t len)
{
    uint8_t buf[256];
    uint32_t h[2] = { htonl(len), htonl(type) };
    loomrun_ctl_msg_t m;
    size_t used;

    memcpy(buf, h, 8);
    memcpy(buf + 8, body, len);
    why[0] = '\0';
    return loomrun_ctl_decode(buf, 8 + len, &m, &used, why, sizeof(why));
}

static void test_ctl_malformed(void)
{
    uint8_t hdr[8];
    uint32_t big[2] = { htonl(LOOMRUN_CTL_MAX_FRAME + 1), htonl(LOOMRUN_CTL_OUTPUT) };
    loomrun_ctl_msg_t m;
    size_t used;

    /* an oversized frame is refused from its header alone */
    memcpy(hdr, big, 8);
    CU_ASSERT_EQUAL(loomrun_ctl_decode(hdr, 8, &m, &used, why, sizeof(why)), -1);
    CU_ASSERT(strstr(why, "exceeds") != NULL);
    CU_ASSERT_EQUAL(decode_raw(0, "", 0), -1);
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_NTYPES, "", 0), -1);
    CU_ASSERT(strstr(why, "unknown message type") != NULL);
    /* ERROR "us": a string without its NUL, with a NUL inside, too long */
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_ERROR, "\0\0\0\1\0\0\0\2ab", 10), -1);
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_ERROR, "\0\0\0\1\0\0\0\3a\0\0", 11), -1);
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_ERROR, "\0\0\0\1\0\0\0\x09" "ab\0", 11), -1);
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_ERROR, "\0\0\0\1\0\0\0\0", 8), -1);
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_ERROR, "\0\0\0\1\0\0\0\3ab\0", 11), 1);
    /* bytes after the last field; a field cut short */
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_SIGNAL, "\0\0\0\x09X", 5), -1);
    CU_ASSERT(strstr(why, "left after") != NULL);
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_SIGNAL, "\0\0\0", 3), -1);
    /* a blob longer than the frame; a list or array count beyond it */
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_STDIN, "\0\0\0\x10" "abc", 7), -1);
    CU_ASSERT_EQUAL(decode_raw(LOOMRUN_CTL_JOB, "\0\0\0\0" "\0\0\0\1" "\0\0\0\0"
                               "\0\0\0\1\0" "\0\0\0\1\0" "\0\0\0\1\0"
                               "\xff\xff\xff\xff", 31), -1);
    CU_ASSERT(strstr(why, "field 6 ('L')") != NULL);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "--host lists",                        test_host_list },
        { "--host errors",                       test_host_list_errors },
        { "hostfiles",                           test_hostfile },
        { "placement by slot, node, oversubscribed", test_map },
        { "placement errors, the daemon's copy, local names", test_map_errors_and_rebuild },
        { "control frames: encode, decode, partial", test_ctl_roundtrip },
        { "control frames: malformed input refused", test_ctl_malformed },
        { "control frames: NOTE",                 test_ctl_note },
        { NULL, NULL },
    };
    int rc = loom_test_run_suite("launcher hosts and control protocol", cases, NULL, NULL);

    opts_reset();
    return rc;
}
