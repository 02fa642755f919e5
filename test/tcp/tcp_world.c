/*
 * tcp_world.c: the in-process ranks of the TCP loopback suites (see
 * tcp_world.h): the modex table, the frame pattern and its checks, the
 * world's open, close and progress, and gets with their completions.
 */
#include "tcp_world.h"

#include "cunit_main.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAXKEYS 32

/* ---- an in-process modex -------------------------------------------------------- */

typedef struct modex_entry {
    int     rank;
    char    key[32];
    uint8_t data[64];
    size_t  len;
} modex_entry_t;

static modex_entry_t g_modex[MAXKEYS];
static int g_nmodex;

loom_status_t world_modex_put(void *arg, const char *key, const void *data, size_t len)
{
    modex_entry_t *e = &g_modex[g_nmodex];

    if (g_nmodex == MAXKEYS || len > sizeof(e->data)) {
        return LOOM_ERR_NO_RESOURCE;   /* (also runs in --open-child, outside CUnit) */
    }
    ++g_nmodex;
    e->rank = (int)(intptr_t)arg;
    snprintf(e->key, sizeof(e->key), "%s", key);
    memcpy(e->data, data, len);
    e->len = len;
    return LOOM_OK;
}

loom_status_t world_modex_get(void *arg, int rank, const char *key, void *buf,
                              size_t *len_p)
{
    (void)arg;
    for (int i = 0; i < g_nmodex; ++i) {
        if (g_modex[i].rank == rank && strcmp(g_modex[i].key, key) == 0) {
            if (*len_p < g_modex[i].len) {
                *len_p = g_modex[i].len;
                return LOOM_ERR_TRUNCATED;
            }
            memcpy(buf, g_modex[i].data, g_modex[i].len);
            *len_p = g_modex[i].len;
            return LOOM_OK;
        }
    }
    return LOOM_ERR_NOT_FOUND;
}

/* ---- the ranks ------------------------------------------------------------------ */

typedef struct frame {
    uint32_t seq;
    uint32_t src;
} frame_t;

world_t world;

double world_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void world_on_am(void *arg, int src, const void *data, size_t len)
{
    world_rank_t *s = arg;
    frame_t f;

    if (len < sizeof(f)) {
        ++s->bad;
        return;
    }
    memcpy(&f, data, sizeof(f));
    if ((int)f.src != src || f.seq != s->expect[src]) {
        ++s->bad;
    }
    for (size_t i = sizeof(f); i < len; ++i) {
        if (((const uint8_t *)data)[i] != (uint8_t)(f.seq * 7 + i + (size_t)src)) {
            ++s->bad;
            break;
        }
    }
    s->expect[src] = f.seq + 1;
    ++s->received;
    if (world.on_frame != NULL) {
        world.on_frame(s->rank, src);
    }
}

static int world_on_place(void *arg, int src, const void *head, size_t have, size_t len,
                          loom_tl_place_t *place)
{
    world_rank_t *s = arg;

    if (s->placing[src] || have >= len || len > sizeof(s->pbuf[src]) ||
        have < LOOM_MIN(len, (size_t)LOOM_TL_PLACE_HEAD)) {
        ++s->bad;
        return 0;
    }
    memcpy(s->pbuf[src], head, have);
    s->placing[src]   = 1;
    s->place_len[src] = len;
    place->dst  = s->pbuf[src] + have;
    place->keep = len - have;
    return 1;
}

static void world_on_place_done(void *arg, int src, loom_status_t status)
{
    world_rank_t *s = arg;

    if (!s->placing[src]) {
        ++s->bad;
        return;
    }
    s->placing[src] = 0;
    if (status != LOOM_OK) {
        ++s->place_errs;
        s->place_status = status;
        s->errs_at_place_err = s->errs;
        return;
    }
    ++s->placed;
    world_on_am(arg, src, s->pbuf[src], s->place_len[src]);
}

void world_on_err(void *arg, int peer, loom_status_t status, const char *what)
{
    world_rank_t *s = arg;

    ++s->errs;
    s->err_peer = peer;
    s->err_status = status;
    snprintf(s->err_what, sizeof(s->err_what), "%s", what);
}

static void world_open_with(int n, int same_node, int place)
{
    memset(&world, 0, sizeof(world));
    g_nmodex = 0;
    world.n = n;
    for (int r = 0; r < n; ++r) {
        world.node_of_rank[r] = same_node ? 0 : r;
        world.hosts[r] = same_node ? "loophost" : "otherhost";
    }
    for (int r = 0; r < n; ++r) {
        loom_tl_params_t params = { .job = &world.job[r], .am_cb = world_on_am,
                                    .err_cb = world_on_err, .cb_arg = &world.st[r],
                                    .am_place_cb = place ? world_on_place : NULL,
                                    .am_place_done_cb = place ? world_on_place_done : NULL };
        loom_tcp_modex_t modex = { world_modex_put, world_modex_get,
                                   (void *)(intptr_t)r };

        world.job[r] = (loom_bootstrap_info_t){ .rank = r, .size = n, .local_size = n,
                                                .node_of_rank = world.node_of_rank,
                                                .hostnames = world.hosts, .jobid = "tcp-test" };
        world.st[r].rank = r;
        CU_ASSERT_EQUAL_FATAL(loom_tcp_iface_open_modex(&params, &modex, &world.iface[r]),
                              LOOM_OK);
        CU_ASSERT_STRING_EQUAL(world.iface[r]->name, "tcp");
        CU_ASSERT(world.iface[r]->caps.max_am >= 64 * 1024 && world.iface[r]->caps.can_get);
    }
    /* (the engine fences here) */
    for (int r = 0; r < n; ++r) {
        for (int p = 0; p < n; ++p) {
            if (p == r) {
                CU_ASSERT_FALSE(world.iface[r]->ops.reachable(world.iface[r], p));
                continue;
            }
            CU_ASSERT(world.iface[r]->ops.reachable(world.iface[r], p));
            CU_ASSERT_EQUAL_FATAL(world.iface[r]->ops.ep_create(world.iface[r], p,
                                                                &world.ep[r][p]), LOOM_OK);
        }
    }
}

void world_open(int n, int same_node)
{
    world_open_with(n, same_node, 0);
}

void world_open_place(int n, int same_node)
{
    world_open_with(n, same_node, 1);
}

void world_close(void)
{
    for (int r = 0; r < world.n; ++r) {
        if (world.iface[r] == NULL) {
            continue;
        }
        for (int p = 0; p < world.n; ++p) {
            if (world.ep[r][p] != NULL) {
                world.iface[r]->ops.ep_destroy(world.ep[r][p]);
            }
        }
        world.iface[r]->ops.close(world.iface[r]);
        world.iface[r] = NULL;
    }
}

void world_progress(void)
{
    for (int r = 0; r < world.n; ++r) {
        if (world.iface[r] != NULL) {
            loom_tl_iface_progress(world.iface[r]);
        }
    }
}

loom_status_t world_send(int src, int dst, size_t len)
{
    static uint8_t buf[LOOM_TCP_MAX_AM];
    frame_t f = { .seq = world.st[src].sent[dst], .src = (uint32_t)src };
    loom_status_t st;

    len = LOOM_MAX(len, sizeof(f));
    memcpy(buf, &f, sizeof(f));
    for (size_t i = sizeof(f); i < len; ++i) {
        buf[i] = (uint8_t)(f.seq * 7 + i + (size_t)src);
    }
    /* the header / payload split is the engine's business: vary it */
    st = loom_tl_ep_am_send(world.ep[src][dst], buf, LOOM_MIN(len, 24 + f.seq % 5),
                            buf + LOOM_MIN(len, 24 + f.seq % 5),
                            len - LOOM_MIN(len, 24 + f.seq % 5));
    if (st == LOOM_OK) {
        ++world.st[src].sent[dst];
    }
    return st;
}

int world_all_delivered(void)
{
    for (int r = 0; r < world.n; ++r) {
        for (int p = 0; p < world.n; ++p) {
            if (p != r && world.st[p].expect[r] != world.st[r].sent[p]) {
                return 0;
            }
        }
    }
    return 1;
}

int world_wait_for(int (*cond)(void))
{
    double t0 = world_now();

    while (!cond()) {
        if (world_now() - t0 > WORLD_DEADLINE) {
            return 0;
        }
        world_progress();
    }
    return 1;
}

size_t world_frame_size(unsigned i)
{
    switch (i % 6) {
    case 0: return 8;
    case 1: return 100 + i % 300;
    case 2: return LOOM_TCP_SMALL_INLINE + 1;
    case 3: return 4096 + i;
    case 4: return LOOM_TCP_MAX_AM;
    default: return 20000 + (i * 7919) % 40000;
    }
}

/* ---- gets ---------------------------------------------------------------------- */

void world_get_done(loom_tl_comp_t *comp, loom_status_t status)
{
    world_get_op_t *g = loom_container_of(comp, world_get_op_t, comp);

    g->done++;
    g->status = status;
}

loom_status_t world_get(int r, int owner, void *dst, size_t len, uint64_t raddr,
                        const loom_tl_rkey_t *rkey, world_get_op_t *op)
{
    loom_status_t st;

    op->comp.cb = world_get_done;
    op->done = 0;
    st = loom_tl_ep_get(world.ep[r][owner], dst, len, raddr, rkey, &op->comp);
    if (st == LOOM_OK) {
        op->done = 1;
        op->status = LOOM_OK;
    }
    return st;
}
