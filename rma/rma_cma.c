/*
 * rma_cma.c: Win_create windows whose ranks share one host, without the
 * target's help (issue 23 stage 2).
 *
 * The user's memory of a Win_create window cannot be moved into a shared
 * segment, but a process of the same user on the same host may read and
 * write it with process_vm_readv/writev (cross-memory attach), as the shm
 * transport's single-copy rendezvous does. At creation every rank of such
 * a window allgathers (pid, window base, address of a probe word), allows
 * its siblings to ptrace-read it (Yama), and reads every peer's probe word
 * once; the ranks agree (allreduce) and the window is "cma" only if all
 * could. It then gets a header-only shared segment (rma_shm.c: the
 * accumulate lock and one lock word per rank), so:
 *   - put/get: one process_vm_writev/readv, scattered over the target
 *     type's segments (at most IOV_MAX pieces per call); complete when the
 *     call returns, so flush has nothing to wait for. Except that a put or
 *     get of 1 to LOOM_RMA_CMA_MSG bytes (default 4 KiB; 0: none) goes by
 *     active message like an accumulate: the system call alone costs more
 *     (8 B put + flush: 1.6-2.4 us by CMA, 0.3-0.45 by message; crossover
 *     between 4 and 8 KiB), but the flush then needs the target's progress,
 *     so under LOOM_RMA_CMA=passive (every access passive) none does;
 *   - accumulate, get_accumulate, fetch-and-op, compare-and-swap: by
 *     active messages, applied by the target in its progress (the default:
 *     one message round trip, 0.8 us at 8 B here, against two syscalls and
 *     a lock, 3.4 us), or with LOOM_RMA_CMA=passive (or its older name
 *     acc) on every rank by a
 *     read-modify-write here under the segment's accumulate lock (read the
 *     target's bytes, loom_rma_apply, write them back: no target progress
 *     at all). Either way every accumulate of the window takes the same
 *     path, so they are element-wise atomic among themselves (MPI's
 *     guarantee; a put racing an accumulate is undefined in MPI);
 *   - lock/unlock/lock_all: CPU atomics on the lock words, as for windows
 *     in a shared segment; fence and PSCW as for every window.
 * LOOM_RMA_CMA=off on any rank (or shm left out of its LOOM_TRANSPORTS, a seccomp filter,
 * a ptrace rule) keeps the active-message path for the window.
 */
#include "rma_priv.h"
#include "log_int.h"
#include "p2p_config_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#define LOOM_RMA_CMA_MAGIC 0x6c6f6f6d636d6121ull
#define LOOM_RMA_CMA_IOV   512   /* remote pieces per syscall (<= IOV_MAX) */
#define LOOM_RMA_CMA_MSG_DEFAULT 4096   /* puts/gets of at most this go by message */

static const volatile uint64_t loom_rma_cma_probe_word = LOOM_RMA_CMA_MAGIC;

/* 1 if every rank could read every peer's probe word */
static int loom_rma_cma_probe(loom_rma_win_t *w, const uint64_t *addrs)
{
    for (int r = 0; r < w->size; ++r) {
        uint64_t word = 0;
        struct iovec l = { &word, sizeof(word) };
        struct iovec rem = { (void *)(uintptr_t)addrs[r], sizeof(word) };

        if (process_vm_readv((pid_t)w->cma_pid[r], &l, 1, &rem, 1, 0) != (ssize_t)sizeof(word) ||
            word != LOOM_RMA_CMA_MAGIC) {
            loom_info("rma", "rank %d: process_vm_readv of rank %d (pid %d) failed (%m): "
                      "Win_create windows use active messages", w->rank, r,
                      (int)w->cma_pid[r]);
            return 0;
        }
    }
    return 1;
}

/*
 * allgather (pid, base, probe address) into @p all (3 x size words; @p probe:
 * size words), fill cma_pid, cma_base (allocated by the caller); probe
 */
static loom_status_t loom_rma_cma_exchange(loom_rma_win_t *w, uint64_t *all, uint64_t *probe,
                                           int *ok_p)
{
    uint64_t mine[3] = { (uint64_t)getpid(), (uint64_t)(uintptr_t)w->base,
                         (uint64_t)(uintptr_t)&loom_rma_cma_probe_word };
    loom_status_t st = loom_allgather(mine, all, 3, LOOM_UINT64, w->comm);

    for (int r = 0; st == LOOM_OK && r < w->size; ++r) {
        w->cma_pid[r]  = all[3 * r];
        w->cma_base[r] = all[3 * r + 1];
        probe[r]       = all[3 * r + 2];
    }
    *ok_p = st == LOOM_OK && loom_rma_cma_probe(w, probe);
    return st;
}

/*
 * This rank asked for LOOM_RMA_CMA=passive (@p env) and the window is not
 * (another rank did not ask, or the window is not CMA): say so, since its
 * passive target then needs its MPI calls (review of session 17: silent).
 */
static void loom_rma_cma_not_passive(const loom_rma_win_t *w, const char *env)
{
    loom_warn("rma", "rank %d: LOOM_RMA_CMA=%s here, but not on every rank of the window "
              "(or the window is not CMA): its accumulates, and puts and gets of at most "
              "LOOM_RMA_CMA_MSG bytes, go by message and need the target's MPI calls",
              w->rank, env);
}

/*
 * The window's ranks agree on the path (every input below may differ per
 * rank: LOOM_RMA_CMA, LOOM_TRANSPORTS, the probe), so every rank runs the
 * same collectives: the first allreduce (max of: this rank will not or is
 * out of memory, wants AM accumulates) also stands for the barrier behind
 * every rank's prctl, the second is over the probes.
 */
loom_status_t loom_rma_cma_setup(loom_rma_win_t *w)
{
    const char *env = getenv("LOOM_RMA_CMA");
    size_t n = (size_t)w->size;
    uint64_t *all = NULL, *probe = NULL;
    int32_t mine[2], any[2] = { 1, 1 };
    int ok = 0;
    loom_status_t st;

    if (!loom_rma_shm_one_host(w)) {
        return LOOM_OK;   /* the same answer on every rank */
    }
    mine[0] = (env != NULL && strcmp(env, "off") == 0) || !loom_p2p_transport_allowed("shm");
    mine[1] = env == NULL || (strcmp(env, "passive") != 0 && strcmp(env, "acc") != 0);
    if (!mine[0]) {   /* out of memory here: this rank will not either */
        (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
        all = malloc(3 * sizeof(uint64_t) * n);
        probe = malloc(sizeof(uint64_t) * n);
        w->cma_pid  = calloc(n, sizeof(*w->cma_pid));
        w->cma_base = calloc(n, sizeof(*w->cma_base));
        mine[0] = all == NULL || probe == NULL || w->cma_pid == NULL || w->cma_base == NULL;
    }
    st = loom_allreduce(mine, any, 2, LOOM_INT32, LOOM_MAX, w->comm);
    w->cma_acc = !any[1];
    w->cma_msg_max = w->cma_acc ? 0 : loom_rma_env_bytes("LOOM_RMA_CMA_MSG",
                                                           LOOM_RMA_CMA_MSG_DEFAULT);
    if (st == LOOM_OK && !any[0] && (st = loom_rma_cma_exchange(w, all, probe, &ok)) == LOOM_OK) {
        mine[0] = !ok;
        st = loom_allreduce(mine, any, 1, LOOM_INT32, LOOM_MAX, w->comm);
    }
    if (st == LOOM_OK && !any[0]) {
        st = loom_rma_shm_create_hdr(w);   /* lock words, accumulate lock (or none: AM) */
        w->cma = st == LOOM_OK && w->shm != NULL;
    }
    free(all);
    free(probe);
    if (!w->cma) {   /* some rank will not or cannot: active messages everywhere */
        loom_rma_cma_free(w);
    }
    if (st == LOOM_OK && !mine[1] && !(w->cma && w->cma_acc)) {
        loom_rma_cma_not_passive(w, env);
    }
    return st;
}

void loom_rma_cma_free(loom_rma_win_t *w)
{
    free(w->cma_pid);
    free(w->cma_base);
    w->cma_pid = NULL;
    w->cma_base = NULL;
}

static loom_status_t loom_rma_cma_fail(const loom_rma_win_t *w, int target, int write,
                                       size_t bytes)
{
    int err = errno;

    loom_error("rma", "rank %d: process_vm_%sv of %zu bytes %s rank %d (pid %d) failed: %s",
               w->rank, write ? "write" : "read", bytes, write ? "to" : "from", target,
               (int)w->cma_pid[target], strerror(err));
    return err == ESRCH ? LOOM_ERR_PEER_FAILED : LOOM_ERR_TRANSPORT;
}

/*
 * Move @p bytes between the local stream @p buf and the target's segments
 * (at its base + @p start); @p write: local -> target.
 */
static loom_status_t loom_rma_cma_move(loom_rma_win_t *w, int target, int write, char *buf,
                                       const loom_rma_seg_t *segs, size_t nseg, int64_t start)
{
    struct iovec riov[LOOM_RMA_CMA_IOV];
    char *tbase = (char *)(uintptr_t)w->cma_base[target] + start;
    size_t i = 0, pos = 0;

    while (i < nseg) {
        size_t n = 0, chunk = 0;

        for (; i < nseg && n < LOOM_RMA_CMA_IOV; ++i) {
            if (segs[i].len == 0) {
                continue;
            }
            riov[n].iov_base  = tbase + segs[i].off;
            riov[n++].iov_len = segs[i].len;
            chunk += segs[i].len;
        }
        while (chunk > 0) {   /* a short transfer: go on from where it stopped */
            struct iovec l = { buf + pos, chunk };
            ssize_t rc = write ? process_vm_writev((pid_t)w->cma_pid[target], &l, 1, riov, n, 0)
                               : process_vm_readv((pid_t)w->cma_pid[target], &l, 1, riov, n, 0);
            size_t k = 0;

            if (rc <= 0) {
                return loom_rma_cma_fail(w, target, write, chunk);
            }
            pos += (size_t)rc;
            chunk -= (size_t)rc;
            for (size_t done = (size_t)rc; done > 0 && k < n;) {   /* drop what moved */
                size_t d = done < riov[k].iov_len ? done : riov[k].iov_len;

                riov[k].iov_base = (char *)riov[k].iov_base + d;
                riov[k].iov_len -= d;
                done -= d;
                k += riov[k].iov_len == 0;
            }
            memmove(riov, riov + k, (n - k) * sizeof(*riov));
            n -= k;
        }
    }
    return LOOM_OK;
}

loom_status_t loom_rma_cma_putget(loom_rma_win_t *w, int target, int write, void *buf,
                                  int64_t start, size_t bytes)
{
    struct iovec l = { buf, bytes };
    struct iovec r = { (char *)(uintptr_t)w->cma_base[target] + start, bytes };
    ssize_t rc = write ? process_vm_writev((pid_t)w->cma_pid[target], &l, 1, &r, 1, 0)
                       : process_vm_readv((pid_t)w->cma_pid[target], &l, 1, &r, 1, 0);
    loom_rma_seg_t rest;

    if (rc == (ssize_t)bytes) {
        return LOOM_OK;
    }
    if (rc < 0) {
        return loom_rma_cma_fail(w, target, write, bytes);
    }
    rest.off = rc;   /* a short transfer (a page boundary): the general loop goes on */
    rest.len = bytes - (size_t)rc;
    return loom_rma_cma_move(w, target, write, (char *)buf + rc, &rest, 1, start);
}

/*
 * The accumulate family: read, combine here, write back, under the
 * accumulate lock. The target's pieces are read into one stream and
 * combined as one segment: a type's pieces are whole elements, but for the
 * value+index pairs, whose stream loom_rma_apply handles as packed pairs.
 */
static loom_status_t loom_rma_cma_rmw(loom_rma_win_t *w, const loom_rma_cma_op_t *o)
{
    loom_rma_seg_t whole = { 0, o->bytes };
    char *tmp = malloc(o->bytes ? o->bytes : 1);
    loom_status_t st;

    if (tmp == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    while (atomic_exchange_explicit(&w->shm->acc_lock, 1, memory_order_acquire)) {
    }
    st = loom_rma_cma_move(w, o->target, 0, tmp, o->segs, o->nseg, o->start);
    if (st == LOOM_OK) {
        st = loom_rma_apply(o->kind, o->op, o->basic, tmp, &whole, 1, o->in, o->cmp, o->fetch);
    }
    if (st == LOOM_OK && !(o->kind == LOOM_RMA_K_GACC && o->op == LOOM_RMA_OP_NO_OP)) {
        st = loom_rma_cma_move(w, o->target, 1, tmp, o->segs, o->nseg, o->start);
    }
    atomic_store_explicit(&w->shm->acc_lock, 0, memory_order_release);
    free(tmp);
    return st;
}

loom_status_t loom_rma_cma_op(loom_rma_win_t *w, const loom_rma_cma_op_t *o)
{
    switch (o->kind) {
    case LOOM_RMA_K_PUT:
        return loom_rma_cma_move(w, o->target, 1, (char *)(uintptr_t)o->in, o->segs, o->nseg,
                                 o->start);
    case LOOM_RMA_K_GET:
        return loom_rma_cma_move(w, o->target, 0, o->fetch, o->segs, o->nseg, o->start);
    default:
        return loom_rma_cma_rmw(w, o);
    }
}
