/*
 * test_shm_iface.c: the shm transport through its ops table, in two real
 * processes that play local ranks 0 and 1 of a fake job (no launcher): the
 * segment's life (created by rank 0, unlinked once both mapped it), frames
 * of every size in order, back-pressure on a full fast box, single-copy get,
 * the pipelined get where CMA is off, a peer killed mid-job, bad input,
 * receiving in place (am_peek).
 *
 * Each test forks both ranks; a rank reports failure through its exit
 * status (CUnit assertions do not cross fork), the parent asserts on it.
 */
#include "cunit_main.h"

#include "shm/shm_int.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NRANKS 2
#define BIG    ((size_t)8 << 20)
#define QDEPTH 256

typedef struct frame_hdr {
    uint32_t kind;
    uint32_t seq;
    uint64_t a, b;
} frame_hdr_t;

enum { K_DATA = 1, K_REGION, K_DONE, K_BYE };

/* One rank's state, per process. */
static struct {
    int                   rank;
    int                   fails;
    int                   pipes[NRANKS][2];   /* pipes[r]: bytes for rank r */
    loom_bootstrap_info_t job;
    int                   local_peers[NRANKS];
    int                   node_of_rank[NRANKS];
    const char           *hosts[NRANKS];
    char                  jobid[64];
    loom_tl_iface_t      *iface;
    loom_tl_ep_t         *ep;
    uint8_t               q[QDEPTH][8192];    /* frames received, not yet taken */
    size_t                qlen[QDEPTH];
    uint64_t              qhead;
    uint64_t              nrecv;
    uint8_t               last[8192];         /* the frame wait_frame took */
    size_t                last_len;
    int                   err_peer;
    loom_status_t         err_status;
    int                   seccomp_when;       /* forbid CMA: 1 before open, 2 after */
} t;

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", t.rank,         \
                    __FILE__, __LINE__, #cond);                                   \
            ++t.fails;                                                            \
        }                                                                         \
    } while (0)

static void on_am(void *arg, int src, const void *data, size_t len)
{
    (void)arg;
    if (src != 1 - t.rank || len > sizeof(t.q[0]) || t.nrecv - t.qhead == QDEPTH) {
        fprintf(stderr, "rank %d: frame from %d of %zu bytes\n", t.rank, src, len);
        ++t.fails;
        return;
    }
    memcpy(t.q[t.nrecv % QDEPTH], data, len);
    t.qlen[t.nrecv % QDEPTH] = len;
    ++t.nrecv;
}

static void on_err(void *arg, int peer, loom_status_t status, const char *what)
{
    (void)arg;
    (void)what;
    t.err_peer   = peer;
    t.err_status = status;
}

/* Both ranks pass only when both arrived (through the pipes). */
static void tbarrier(void)
{
    char c = 'b';
    CHECK(write(t.pipes[1 - t.rank][1], &c, 1) == 1);
    CHECK(read(t.pipes[t.rank][0], &c, 1) == 1);
}

/* Progress until *count grows past @p want; @return 0 on timeout. */
static int progress_until(const uint64_t *count, uint64_t want)
{
    time_t deadline = time(NULL) + 20;

    while (*count < want) {
        loom_tl_iface_progress(t.iface);
        if (time(NULL) > deadline) {
            fprintf(stderr, "rank %d: timed out waiting (%llu < %llu)\n", t.rank,
                    (unsigned long long)*count, (unsigned long long)want);
            ++t.fails;
            return 0;
        }
    }
    return 1;
}

static void send_frame(uint32_t kind, uint32_t seq, uint64_t a, uint64_t b,
                       const void *payload, size_t len)
{
    frame_hdr_t h = { kind, seq, a, b };
    loom_status_t s;
    time_t deadline = time(NULL) + 20;

    while ((s = loom_tl_ep_am_send(t.ep, &h, sizeof(h), payload, len)) == LOOM_ERR_NO_RESOURCE &&
           time(NULL) <= deadline) {
        loom_tl_iface_progress(t.iface);
    }
    CHECK(s == LOOM_OK);
}

/* Take the next frame received (progressing until there is one). */
static void wait_frame(uint32_t kind)
{
    if (progress_until(&t.nrecv, t.qhead + 1)) {
        t.last_len = t.qlen[t.qhead % QDEPTH];
        memcpy(t.last, t.q[t.qhead % QDEPTH], t.last_len);
        ++t.qhead;
        CHECK(t.last_len >= sizeof(frame_hdr_t) && ((frame_hdr_t *)t.last)->kind == kind);
    }
}

/* Make process_vm_readv fail with EPERM in this process, as a container's
 * seccomp policy does. */
static void forbid_cma(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { LOOM_ARRAY_SIZE(filter), filter };

    CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
}

static void rank_setup(int rank)
{
    loom_tl_params_t params = { .job = &t.job, .am_cb = on_am, .err_cb = on_err };

    t.rank = rank;
    t.err_peer = -1;
    for (int r = 0; r < NRANKS; ++r) {
        t.local_peers[r]  = r;
        t.node_of_rank[r] = 0;
        t.hosts[r]        = "testhost";
    }
    t.job = (loom_bootstrap_info_t){
        .rank = rank, .size = NRANKS, .local_rank = rank, .local_size = NRANKS,
        .num_cores = 2, .local_peers = t.local_peers, .node_of_rank = t.node_of_rank,
        .hostnames = t.hosts, .jobid = t.jobid,
    };
    /* rank 0 creates the segment before rank 1 may attach */
    if (rank == 1) {
        tbarrier();
    }
    if (t.seccomp_when == 1) {
        forbid_cma();
    }
    CHECK(loom_tl_shm_ops.open(&params, &t.iface) == LOOM_OK);
    if (rank == 0) {
        tbarrier();
    }
    if (t.iface != NULL) {
        CHECK(loom_tl_shm_ops.ep_create(t.iface, 1 - rank, &t.ep) == LOOM_OK);
    }
    if (t.seccomp_when == 2) {
        forbid_cma();
    }
}

static void rank_teardown(void)
{
    tbarrier();   /* the engine's final fence */
    t.iface->ops.close(t.iface);
}

typedef void (*rank_fn_t)(int rank);

/*
 * Fork both ranks running @p fn with environment @p env ("NAME=value" or
 * NULL). @p killed: the rank expected to die by SIGKILL, or -1.
 */
static void run_ranks(rank_fn_t fn, const char *env, int killed)
{
    static int serial;
    pid_t pids[NRANKS];

    snprintf(t.jobid, sizeof(t.jobid), "shmtest.%d@%d", (int)getpid(), ++serial);
    for (int r = 0; r < NRANKS; ++r) {
        CU_ASSERT_FATAL(pipe(t.pipes[r]) == 0);
    }
    for (int r = 0; r < NRANKS; ++r) {
        pids[r] = fork();
        CU_ASSERT_FATAL(pids[r] >= 0);
        if (pids[r] == 0) {
            if (env != NULL) {
                putenv((char *)env);
            }
            rank_setup(r);
            if (t.fails == 0) {
                fn(r);
            }
            _exit(t.fails == 0 ? 0 : 1);
        }
    }
    for (int r = 0; r < NRANKS; ++r) {
        close(t.pipes[r][0]);
        close(t.pipes[r][1]);
    }
    /* reap in exit order: a dead rank must not linger as a zombie */
    for (int n = 0; n < NRANKS; ++n) {
        int ws = 0;
        pid_t pid = waitpid(-1, &ws, 0);
        int r = pid == pids[0] ? 0 : 1;
        CU_ASSERT(pid == pids[0] || pid == pids[1]);
        if (r == killed) {
            CU_ASSERT(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
        } else {
            CU_ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
        }
    }
    /* nothing left behind in /dev/shm */
    char name[LOOM_SHM_NAME_MAX + 1], path[LOOM_SHM_NAME_MAX + 16];
    CU_ASSERT_EQUAL(loom_shm_seg_name(t.jobid, t.hosts[0], name, sizeof(name)), LOOM_OK);
    snprintf(path, sizeof(path), "/dev/shm%s", name);
    CU_ASSERT(access(path, F_OK) != 0 && errno == ENOENT);
}

static uint8_t pattern(size_t i)
{
    return (uint8_t)(i * 2654435761u >> 13);
}

/* Frames of every size, in order, and a fast box filled to back-pressure. */
static void rank_am(int rank)
{
    loom_tl_caps_t caps = t.iface->caps;
    const size_t maxp = caps.max_am - sizeof(frame_hdr_t);
    static uint8_t buf[8192];
    char path[LOOM_SHM_NAME_MAX + 16];
    loom_shm_iface_t *iface = loom_container_of(t.iface, loom_shm_iface_t, super);
    int sent = 0;

    const uint32_t fill = iface->geom.fbox_threshold + iface->geom.fbox_slots;

    CHECK(caps.can_get == 1 && caps.max_am == 8192 && caps.eager_limit <= caps.max_am);
    CHECK(t.iface->ops.reachable(t.iface, 1 - rank) == 1);
    CHECK(t.iface->ops.reachable(t.iface, rank) == 0);
    CHECK(t.iface->ops.reachable(t.iface, 7) == 0);
    tbarrier();
    /* both mapped it: the name is gone already */
    snprintf(path, sizeof(path), "/dev/shm%s", iface->seg_name);
    CHECK(access(path, F_OK) != 0);
    CHECK(loom_tl_ep_am_send(t.ep, buf, caps.max_am + 1, NULL, 0) == LOOM_ERR_INVALID_ARG);

    if (rank == 0) {
        frame_hdr_t h = { K_DATA, 0, 0, 0 };
        loom_status_t s;
        while ((s = loom_tl_ep_am_send(t.ep, &h, sizeof(h), NULL, 0)) == LOOM_OK) {
            h.seq = (uint32_t)++sent;
        }
        /* the FIFO up to the threshold, then the fast box until it is full */
        CHECK(s == LOOM_ERR_NO_RESOURCE && sent == (int)fill);
        tbarrier();
    } else {
        tbarrier();   /* rank 0 filled FIFO and box; now drain them in order */
        for (uint32_t i = 0; i < fill; ++i) {
            wait_frame(K_DATA);
            CHECK(((frame_hdr_t *)t.last)->seq == i);
        }
    }
    /* ping-pong of every size class; rank 1 echoes */
    for (uint32_t i = 0; i < 3000; ++i) {
        size_t len = (i * 37u) % (maxp + 1);
        if (i % 500 == 0) {
            len = maxp;
        }
        if (rank == 0) {
            for (size_t k = 0; k < len; ++k) {
                buf[k] = pattern(k + i);
            }
            send_frame(K_DATA, i, len, 0, buf, len);
            wait_frame(K_DATA);
        } else {
            wait_frame(K_DATA);
            send_frame(K_DATA, i, len, 0, t.last + sizeof(frame_hdr_t),
                       t.last_len - sizeof(frame_hdr_t));
        }
        CHECK(((frame_hdr_t *)t.last)->seq == i && t.last_len == sizeof(frame_hdr_t) + len);
        for (size_t k = 0; k < len && rank == 0; ++k) {
            if (t.last[sizeof(frame_hdr_t) + k] != pattern(k + i)) {
                CHECK(!"payload corrupted");
                break;
            }
        }
    }
    rank_teardown();
}

static uint64_t ncomp;
static loom_status_t last_comp;

static void on_comp(loom_tl_comp_t *self, loom_status_t status)
{
    (void)self;
    last_comp = status;
    ++ncomp;
}

/*
 * Rank 0 exposes a region; rank 1 reads parts of it with get().
 * @p cma_off: LOOM_SHM_CMA=off, so every get must be pipelined; otherwise
 * CMA is used if this machine permits it (said on stderr if not).
 */
static void rank_get(int rank, int cma_off)
{
    uint8_t *buf = malloc(BIG + 123);
    loom_tl_rkey_t rkey;
    loom_tl_memh_t *memh;

    CHECK(buf != NULL);
    if (rank == 0) {
        for (size_t i = 0; i < BIG + 123; ++i) {
            buf[i] = pattern(i);
        }
        CHECK(loom_tl_mem_pack(t.iface, buf, BIG + 123, &rkey, &memh) == LOOM_OK);
        send_frame(K_REGION, 0, (uint64_t)(uintptr_t)buf, BIG + 123, &rkey, sizeof(rkey));
        wait_frame(K_DONE);
        loom_tl_mem_release(t.iface, memh);
    } else {
        static const size_t off[] = { 0, 1, 4096, 777777, 0 };
        static const size_t len[] = { BIG + 123, 1, 8176, 3000000, 0 };
        loom_tl_comp_t comp[LOOM_ARRAY_SIZE(off)];
        uint64_t raddr, inflight = 0;
        int expect_cma = 0;

        wait_frame(K_REGION);
        raddr = ((frame_hdr_t *)t.last)->a;
        memcpy(&rkey, t.last + sizeof(frame_hdr_t), sizeof(rkey));
        memset(buf, 0, BIG + 123);
        /* out of the exposed region: refused, nothing read */
        CHECK(loom_tl_ep_get(t.ep, buf, 2, raddr + BIG + 122, &rkey, &comp[0]) ==
              LOOM_ERR_INVALID_ARG);
        CHECK(loom_tl_ep_get(t.ep, buf, 1, raddr - 1, &rkey, &comp[0]) == LOOM_ERR_INVALID_ARG);
        /* several gets in flight at once (pipelined) or each done at once (CMA) */
        for (size_t g = 0; g < LOOM_ARRAY_SIZE(off); ++g) {
            loom_status_t s;
            comp[g].cb = on_comp;
            s = loom_tl_ep_get(t.ep, buf + off[g], len[g], raddr + off[g], &rkey, &comp[g]);
            if (g == 0) {
                expect_cma = (s == LOOM_OK);
                CHECK(!(cma_off && expect_cma));
                if (!cma_off && !expect_cma) {
                    fprintf(stderr, "note: CMA is not permitted here; tested the fallback\n");
                }
            }
            if (len[g] == 0 || expect_cma) {
                CHECK(s == LOOM_OK);
            } else {
                CHECK(s == LOOM_INPROGRESS);
                ++inflight;
            }
        }
        progress_until(&ncomp, inflight);
        CHECK(ncomp == inflight && (inflight == 0 || last_comp == LOOM_OK));
        for (size_t i = 0; i < BIG + 123; ++i) {
            if (buf[i] != pattern(i)) {
                fprintf(stderr, "rank 1: byte %zu is %u, expected %u\n", i, buf[i], pattern(i));
                CHECK(!"get data corrupted");
                break;
            }
        }
        send_frame(K_DONE, 0, 0, 0, NULL, 0);
    }
    free(buf);
    rank_teardown();
}

static void rank_get_cma(int rank)
{
    rank_get(rank, 0);
}

static void rank_get_pipelined(int rank)
{
    rank_get(rank, 1);
}

/*
 * A pipelined get with a key whose region was released (and its registry
 * entry reused) is refused by the owner: the get completes with an error,
 * nothing is read.
 */
static void rank_get_stale(int rank)
{
    static uint8_t a[100000], b[100000];
    loom_tl_rkey_t rkey;
    loom_tl_memh_t *ma, *mb;

    if (rank == 0) {
        CHECK(loom_tl_mem_pack(t.iface, a, sizeof(a), &rkey, &ma) == LOOM_OK);
        loom_tl_mem_release(t.iface, ma);
        CHECK(loom_tl_mem_pack(t.iface, b, sizeof(b), &rkey, &mb) == LOOM_OK);
        CHECK(mb == ma);   /* the entry was recycled */
        CHECK(loom_tl_mem_pack(t.iface, a, sizeof(a), &rkey, &ma) == LOOM_OK);
        loom_tl_mem_release(t.iface, ma);   /* a's key below is stale */
        send_frame(K_REGION, 0, (uint64_t)(uintptr_t)a, sizeof(a), &rkey, sizeof(rkey));
        wait_frame(K_DONE);
        loom_tl_mem_release(t.iface, mb);
    } else {
        loom_tl_comp_t comp = { on_comp };
        uint64_t raddr;

        wait_frame(K_REGION);
        raddr = ((frame_hdr_t *)t.last)->a;
        memcpy(&rkey, t.last + sizeof(frame_hdr_t), sizeof(rkey));
        memset(b, 0x5a, sizeof(b));
        CHECK(loom_tl_ep_get(t.ep, b, sizeof(b), raddr, &rkey, &comp) == LOOM_INPROGRESS);
        progress_until(&ncomp, 1);
        CHECK(ncomp == 1 && last_comp == LOOM_ERR_INVALID_ARG);
        CHECK(b[0] == 0x5a && b[sizeof(b) - 1] == 0x5a);
        send_frame(K_DONE, 0, 0, 0, NULL, 0);
    }
    rank_teardown();
}

/* Rank 1 dies after attaching; rank 0 must hear of it from progress. */
static void rank_death(int rank)
{
    tbarrier();
    if (rank == 1) {
        raise(SIGKILL);
    }
    time_t deadline = time(NULL) + 10;
    while (t.err_peer < 0 && time(NULL) <= deadline) {
        loom_tl_iface_progress(t.iface);
    }
    CHECK(t.err_peer == 1 && t.err_status == LOOM_ERR_PEER_FAILED);
    CHECK(loom_tl_ep_am_send(t.ep, "x", 1, NULL, 0) == LOOM_ERR_PEER_FAILED);
    t.iface->ops.close(t.iface);
}

/* Rank 0 publishes an inline frame longer than a cell, as a corrupted
 * segment would hold: rank 1 reports rank 0 failed and delivers nothing
 * from it. */
static void rank_corrupt(int rank)
{
    loom_shm_peer_t *peer = loom_container_of(t.ep, loom_shm_peer_t, ep);

    if (rank == 0) {
        uint64_t pos;
        loom_shm_slot_t *slot = loom_shm_fifo_tx_claim(&peer->fifo_tx, (uint16_t)rank, &pos);
        CHECK(slot != NULL);
        if (slot != NULL) {
            loom_shm_fifo_tx_publish(&peer->fifo_tx, slot, pos, LOOM_SHM_INLINE + 1,
                                     LOOM_SHM_FRAME_AM);
        }
        send_frame(K_DATA, 1, 0, 0, NULL, 0);   /* never delivered either */
        tbarrier();
    } else {
        time_t deadline = time(NULL) + 10;
        size_t len;
        tbarrier();   /* both frames are in the FIFO */
        CHECK(loom_tl_ep_am_peek(t.ep, &len) == NULL);   /* progress judges it */
        while (t.err_peer < 0 && time(NULL) <= deadline) {
            loom_tl_iface_progress(t.iface);
        }
        for (int i = 0; i < 1000; ++i) {
            loom_tl_iface_progress(t.iface);
        }
        CHECK(t.err_peer == 0 && t.err_status == LOOM_ERR_TRANSPORT && t.nrecv == 0);
        CHECK(loom_tl_ep_am_peek(t.ep, &len) == NULL);   /* failed: nothing offered */
    }
    rank_teardown();
}

/*
 * A fast-box frame whose span word was scribbled to another count in range
 * (2 or 3 cells for a frame of one cell in place, or for a fragment's
 * cell): taken as written, the consumer's release would skip (and zero)
 * the cells of the frames after it, which are then lost without a word.
 * Rank 1 must instead report rank 0 failed (corrupted segment) and deliver
 * nothing from the scribbled frame on.
 */
static void rank_span_scribble(int rank, uint16_t frag_type, uint16_t span)
{
    loom_shm_peer_t *peer = loom_container_of(t.ep, loom_shm_peer_t, ep);
    loom_shm_iface_t *iface = loom_container_of(t.iface, loom_shm_iface_t, super);
    const uint32_t opened = iface->geom.fbox_threshold + 1;   /* FIFO frames, then the box */

    if (rank == 0) {
        frame_hdr_t h = { K_DATA, opened, 0, 0 };
        loom_shm_slot_t *slot;

        for (uint32_t i = 0; i < opened; ++i) {
            send_frame(K_DATA, i, 0, 0, NULL, 0);
        }
        CHECK(peer->fbox_state == LOOM_SHM_FBOX_OPEN);
        slot = loom_shm_ring_tx_reserve(&peer->fbox_tx);
        CHECK(slot != NULL);
        if (slot != NULL) {
            uint32_t idx = 0;   /* a fragment's index (the fragment itself is not read) */
            memcpy(slot->data, frag_type ? (const void *)&idx : (const void *)&h,
                   frag_type ? sizeof(idx) : sizeof(h));
            loom_shm_ring_tx_commit(&peer->fbox_tx, slot, sizeof(h),
                                    (uint16_t)(LOOM_SHM_FRAME_AM | frag_type));
            slot->rsvd = span;   /* the scribble (rank 1 reads it after the barrier) */
        }
        for (uint32_t i = opened + 1; i < opened + 4; ++i) {
            send_frame(K_DATA, i, 0, 0, NULL, 0);
        }
        tbarrier();
    } else {
        time_t deadline = time(NULL) + 10;
        tbarrier();   /* every frame is published */
        while (t.err_peer < 0 && time(NULL) <= deadline) {
            loom_tl_iface_progress(t.iface);
        }
        for (int i = 0; i < 1000; ++i) {
            loom_tl_iface_progress(t.iface);
        }
        CHECK(t.err_peer == 0 && t.err_status == LOOM_ERR_TRANSPORT);
        CHECK(t.nrecv == opened);   /* the frames before it only */
    }
    rank_teardown();
}

static void rank_span_scribble_inline(int rank)
{
    rank_span_scribble(rank, 0, 3);
}

static void rank_span_scribble_frag(int rank)
{
    rank_span_scribble(rank, LOOM_SHM_FRAME_FRAG, 2);
}

/* What the pack callback of am_send_pack produces: bytes of message seq. */
typedef struct pack_state {
    uint32_t seq;
    size_t   off;
    int      calls;
} pack_state_t;

static void pack_cb(void *arg, void *dst, size_t len)
{
    pack_state_t *ps = arg;
    uint8_t *d = dst;

    for (size_t k = 0; k < len; ++k) {
        d[k] = pattern(ps->off + k + ps->seq);
    }
    ps->off += len;
    ++ps->calls;
}

/* am_send_pack: the payload written by the callback straight into the cell
 * or fragment arrives whole, in order with plain am_send frames, at every
 * size class (inline, fragment, max_am); the callback is not called when
 * the frame is refused, and a frame over max_am is refused. */
static void rank_pack(int rank)
{
    const size_t maxp = t.iface->caps.max_am - sizeof(frame_hdr_t);
    static const size_t lens[] = { 0, 1, 40, 160, 161, 1000, 4096 };
    const uint32_t n = 300;

    /* through the table itself: loom_tl_iface_init may not copy the optional op */
    CHECK(loom_tl_shm_ops.am_send_pack != NULL);
    if (rank == 0) {
        frame_hdr_t h = { K_DATA, 0, 0, 0 };
        pack_state_t ps = { 0, 0, 0 };
        loom_status_t s;

        CHECK(loom_tl_shm_ops.am_send_pack(t.ep, &h, sizeof(h), pack_cb, &ps, maxp + 1) ==
              LOOM_ERR_INVALID_ARG && ps.calls == 0);
        for (uint32_t i = 0; i < n; ++i) {
            size_t len = i % 50 == 49 ? maxp : lens[i % 7];
            time_t deadline = time(NULL) + 20;

            h.seq = i;
            h.a   = len;
            if (i % 3 == 2) {   /* interleave plain frames: one order for both */
                send_frame(K_DATA, i, len, 0, NULL, 0);
                continue;
            }
            for (;;) {
                ps = (pack_state_t){ i, 0, 0 };
                s = loom_tl_shm_ops.am_send_pack(t.ep, &h, sizeof(h), pack_cb, &ps, len);
                if (s != LOOM_ERR_NO_RESOURCE || time(NULL) > deadline) {
                    break;
                }
                CHECK(ps.calls == 0);   /* refused: pack not called */
                loom_tl_iface_progress(t.iface);
            }
            CHECK(s == LOOM_OK && ps.off == len && ps.calls == (len != 0));
        }
    } else {
        for (uint32_t i = 0; i < n; ++i) {
            frame_hdr_t *h = (frame_hdr_t *)t.last;
            wait_frame(K_DATA);
            CHECK(h->seq == i);
            if (i % 3 == 2) {
                CHECK(t.last_len == sizeof(frame_hdr_t));
                continue;
            }
            CHECK(t.last_len == sizeof(frame_hdr_t) + h->a);
            for (size_t k = 0; k < h->a; ++k) {
                if (t.last[sizeof(frame_hdr_t) + k] != pattern(k + i)) {
                    CHECK(!"packed payload corrupted");
                    break;
                }
            }
        }
    }
    rank_teardown();
}

static void test_pack(void)
{
    run_ranks(rank_pack, NULL, -1);
}

/* Receiving in place: am_peek shows the next frame without taking it,
 * am_consume takes it, and progress delivers a frame peeked and left. */
static void rank_peek(int rank)
{
    const frame_hdr_t *f;
    size_t len = 0;

    CHECK(t.iface->ops.am_peek != NULL && t.iface->ops.am_consume != NULL);
    if (rank == 0) {
        for (uint32_t i = 0; i < 10; ++i) {
            send_frame(K_DATA, i, 0, 0, &i, sizeof(i));
        }
        tbarrier();
    } else {
        f = loom_tl_ep_am_peek(t.ep, &len);
        CHECK(f == NULL || len == sizeof(frame_hdr_t) + 4);
        tbarrier();   /* all ten are in the ring */
        for (uint32_t i = 0; i < 2; ++i) {
            f = loom_tl_ep_am_peek(t.ep, &len);
            CHECK(f != NULL && len == sizeof(frame_hdr_t) + sizeof(i) && f->seq == i);
            /* peeking again shows the same frame */
            f = loom_tl_ep_am_peek(t.ep, &len);
            CHECK(f != NULL && f->seq == i);
            loom_tl_ep_am_consume(t.ep);
        }
        f = loom_tl_ep_am_peek(t.ep, &len);
        CHECK(f != NULL && f->seq == 2);
        /* left in place: progress delivers it and the rest, in order */
        for (uint32_t i = 2; i < 10; ++i) {
            wait_frame(K_DATA);
            CHECK(((frame_hdr_t *)t.last)->seq == i);
        }
        CHECK(t.nrecv == 8);
        CHECK(loom_tl_ep_am_peek(t.ep, &len) == NULL);
    }
    rank_teardown();
}

static void test_peek(void)
{
    run_ranks(rank_peek, NULL, -1);
}

static void test_corrupt_frame(void)
{
    run_ranks(rank_corrupt, NULL, -1);
}

static void test_span_scribble(void)
{
    run_ranks(rank_span_scribble_inline, NULL, -1);
    run_ranks(rank_span_scribble_frag, NULL, -1);
}

static void test_am(void)
{
    run_ranks(rank_am, NULL, -1);
}

static void test_get_cma(void)
{
    run_ranks(rank_get_cma, NULL, -1);
}

static void test_get_pipelined(void)
{
    run_ranks(rank_get_pipelined, "LOOM_SHM_CMA=off", -1);
}

static void test_get_seccomp_open(void)
{
    t.seccomp_when = 1;   /* found at open: the notice, then pipelined gets */
    run_ranks(rank_get_pipelined, NULL, -1);
    t.seccomp_when = 0;
}

static void test_get_seccomp_peer(void)
{
    t.seccomp_when = 2;   /* open saw CMA work; the first get's probe fails */
    run_ranks(rank_get_pipelined, NULL, -1);
    t.seccomp_when = 0;
}

static void test_get_stale_key(void)
{
    run_ranks(rank_get_stale, "LOOM_SHM_CMA=off", -1);
}

static void test_peer_death(void)
{
    run_ranks(rank_death, NULL, 1);
}

/* Rank 1 dies between claiming a cell of rank 0's FIFO and publishing it:
 * rank 0 reports it failed, then skips the hole (its claimer, named in the
 * cell, is gone), so frames behind it would flow again. */
static void rank_death_hole(int rank)
{
    loom_shm_iface_t *iface = loom_container_of(t.iface, loom_shm_iface_t, super);

    tbarrier();
    if (rank == 1) {
        loom_shm_peer_t *peer = loom_container_of(t.ep, loom_shm_peer_t, ep);
        uint64_t pos;
        CHECK(loom_shm_fifo_tx_claim(&peer->fifo_tx, (uint16_t)rank, &pos) != NULL && pos == 0);
        raise(SIGKILL);
    }
    time_t deadline = time(NULL) + 15;
    while ((t.err_peer < 0 || iface->fifo_rx.pos == 0) && time(NULL) <= deadline) {
        loom_tl_iface_progress(t.iface);
    }
    CHECK(t.err_peer == 1 && t.err_status == LOOM_ERR_PEER_FAILED);
    CHECK(iface->fifo_rx.pos == 1);   /* the hole was skipped */
    t.iface->ops.close(t.iface);
}

static void test_peer_death_hole(void)
{
    run_ranks(rank_death_hole, NULL, 1);
}

/*
 * Rank 1 claims cell 0 of rank 0's FIFO and stalls before publishing (as
 * under SIGSTOP or a debugger), with three frames behind it; rank 0 acts
 * as if another peer had failed and runs many liveness checks: the hole's
 * claimer is alive, so it is not skipped. Rank 1 then publishes late and
 * sends three laps of the FIFO more (no fast box): every frame arrives, in
 * order, and no peer is reported failed.
 */
static void rank_stall_hole(int rank)
{
    loom_shm_iface_t *iface = loom_container_of(t.iface, loom_shm_iface_t, super);
    loom_shm_peer_t *peer = loom_container_of(t.ep, loom_shm_peer_t, ep);
    uint32_t total = 4 + 3 * iface->geom.fifo_slots;

    tbarrier();
    if (rank == 1) {
        loom_shm_txd_t d;
        frame_hdr_t h = { K_DATA, 0, 0, 0 };
        CHECK(loom_shm_tx_reserve(peer, sizeof(h), &d, "test") == LOOM_OK);
        CHECK(d.fifo == 1 && d.fifo_pos == 0);
        for (uint32_t i = 1; i < 4; ++i) {
            send_frame(K_DATA, i, 0, 0, NULL, 0);
        }
        tbarrier();   /* rank 0 checks the hole stays */
        tbarrier();
        memcpy(d.data, &h, sizeof(h));
        loom_shm_tx_commit(peer, &d, sizeof(h), LOOM_SHM_FRAME_AM);   /* late */
        for (uint32_t i = 4; i < total; ++i) {
            send_frame(K_DATA, i, 0, 0, NULL, 0);
        }
    } else {
        tbarrier();
        iface->nfailed = 1;   /* stands for another local rank that failed */
        for (int tick = 0; tick < 20; ++tick) {
            for (int i = 0; i < 2048; ++i) {   /* > LOOM_SHM_CHECK_EVERY calls */
                iface->last_check.tv_sec = 0;
                loom_tl_iface_progress(t.iface);
            }
        }
        CHECK(iface->fifo_rx.pos == 0 && t.nrecv == 0);   /* waited for the claimer */
        tbarrier();
        for (uint32_t i = 0; i < total && t.fails == 0; ++i) {
            wait_frame(K_DATA);
            CHECK(((frame_hdr_t *)t.last)->seq == i);
        }
        CHECK(t.err_peer < 0);
        iface->nfailed = 0;
    }
    tbarrier();
    t.iface->ops.close(t.iface);
}

static void test_stall_hole(void)
{
    run_ranks(rank_stall_hole, "LOOM_SHM_FBOX_THRESHOLD=0", -1);
}

static void test_open_refusals(void)
{
    static const int one[] = { 0 };
    static const char *const host[] = { "h" };
    loom_bootstrap_info_t job = { .rank = 0, .size = 1, .local_size = 1, .local_peers = one,
                                  .node_of_rank = one, .hostnames = host, .jobid = "x" };
    loom_tl_params_t params = { .job = &job, .am_cb = on_am, .err_cb = on_err };
    loom_tl_iface_t *iface = NULL;
    char name[64];

    CU_ASSERT_EQUAL(loom_tl_shm_ops.open(&params, &iface), LOOM_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NULL(iface);
    CU_ASSERT_EQUAL(loom_shm_seg_name("12.x@y/z", "node 1", name, sizeof(name)), LOOM_OK);
    CU_ASSERT_STRING_EQUAL(name, "/loom-12.x_y_z-shm-node_1-60e49a12");
    /* hosts sharing /dev/shm: names the character rule maps alike still differ */
    CU_ASSERT_EQUAL(loom_shm_seg_name("j", "a@b", name, sizeof(name)), LOOM_OK);
    CU_ASSERT_STRING_EQUAL(name, "/loom-j-shm-a_b-11930f92");
    CU_ASSERT_EQUAL(loom_shm_seg_name("j", "a/b", name, sizeof(name)), LOOM_OK);
    CU_ASSERT_STRING_EQUAL(name, "/loom-j-shm-a_b-3a8e75c1");
    CU_ASSERT_EQUAL(loom_shm_seg_name("12345678", "h", name, 12), LOOM_ERR_INVALID_ARG);
}

/* A bad slot size is a configuration error, found at open (in a child:
 * the configuration is read once per process). */
static void test_bad_config(void)
{
    pid_t pid = fork();
    int ws = 0;

    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        static const int peers[] = { 0, 1 };
        static const char *const host[] = { "h", "h" };
        loom_bootstrap_info_t job = { .rank = 0, .size = 2, .local_size = 2,
                                      .local_peers = peers, .node_of_rank = peers,
                                      .hostnames = host, .jobid = "badcfg" };
        loom_tl_params_t params = { .job = &job, .am_cb = on_am, .err_cb = on_err };
        loom_tl_iface_t *iface = NULL;
        putenv((char *)"LOOM_SHM_SLOT_SIZE=100");
        _exit(loom_tl_shm_ops.open(&params, &iface) == LOOM_ERR_CONFIG ? 0 : 1);
    }
    CU_ASSERT_EQUAL(waitpid(pid, &ws, 0), pid);
    CU_ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "open refusals and segment name", test_open_refusals },
        { "bad region geometry", test_bad_config },
        { "frames of every size, back-pressure, unlink", test_am },
        { "single-copy get (CMA)", test_get_cma },
        { "pipelined get (CMA off)", test_get_pipelined },
        { "pipelined get (CMA forbidden at open)", test_get_seccomp_open },
        { "pipelined get (CMA refused at first get)", test_get_seccomp_peer },
        { "pipelined get with a released region is refused", test_get_stale_key },
        { "peer killed", test_peer_death },
        { "peer killed between FIFO claim and publish", test_peer_death_hole },
        { "claimer stalled between FIFO claim and publish", test_stall_hole },
        { "frame longer than a cell", test_corrupt_frame },
        { "fast-box frame with a scribbled span word", test_span_scribble },
        { "receiving in place (am_peek, am_consume)", test_peek },
        { "am_send_pack: payload packed into the cell or fragment", test_pack },
        { NULL, NULL },
    };
    return loom_test_run_suite("shm transport", cases, NULL, NULL);
}
