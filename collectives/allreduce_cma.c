/*
 * allreduce_cma.c: large allreduce on one node, each rank reducing its own
 * slice of every input read in place with process_vm_readv (CMA).
 *
 *   rank r:  {pid, sendbuf, recvbuf} -> slot[r][n % 2]; arrived[r] = n
 *            wait every arrival (signatures agree)
 *      [the set-up step, before the first call on this comm is selected:
 *       the same publication, then a probe of every peer, the verdict
 *       published, step[r] = 4n+1; wait every step; all agree]
 *            slice r of the result, in chunks of LOOM_COLL_CMA_CHUNK:
 *              acc  = x[p-1] (read from rank p-1's sendbuf straight into
 *                     our recvbuf)
 *              acc  = x[q] op acc  for q = p-2 .. 0  (peers' chunks read
 *                     into a temporary, ours used where it lies)
 *            slice r -> every other rank's recvbuf (process_vm_writev)
 *            step[r] = 4n+2; wait every step: every slice is in our
 *            recvbuf, and nobody reads or writes our buffers any more
 *
 * Data moves once: every input byte is read once by the rank that owns
 * its slice, every result byte written once into each other rank: for
 * p = 2, one single-copy read of half the vector, one reduction of half and
 * one write of that half, against a send, a receive and a staging copy per
 * step for the message-based algorithms. Pushing the result (rather than
 * each rank pulling the others' slices) saves the third wait: when every
 * rank has pushed, every buffer is complete and free. A rank writes only
 * slice r of the others' recvbufs, which only it reads (in place: as
 * input of its own fold, finished before it pushes). The fold x0 op (x1 op (...
 * x(p-1))) is the shared-memory algorithms' own, so results are bitwise
 * those of "shm" and "ordered" (deterministic mode, non-commutative ops).
 * The helpers that publish, read and fail are shared with reduce "cma"
 * (reduce_cma.c, declared in coll_shm.h), and so is the set-up step, which
 * probes a byte of each process's own (loom_coll_cma_probe_byte), not a
 * buffer of the call.
 * Whether process_vm_readv is allowed (not under Yama, seccomp,
 * LOOM_SHM_CMA=off) is the communicator's CMA verdict, found by a set-up
 * step (loom_coll_allreduce_cma_probe) that the selection gives a call
 * while the verdict is unknown: it takes the call's on-node operation
 * number, publishes this rank's buffers, probes every peer, and all ranks
 * agree on the verdict within that operation (every rank sees every
 * rank's result, so all reach the same one). The selection's step
 * (coll_select.c) then selects the call: on "yes" this algorithm, which
 * finds the operation entered and its buffers published and goes on from
 * the arrival; on "no" the step has given the number back and the call
 * runs the message-based algorithm the table gives below cma.
 * Every later call the table gives cma still gets the step, on every rank,
 * unless this rank's verdict is "yes" (then cma itself, which takes the
 * number too): whether a rank knows the verdict when a call is posted
 * depends on timing, so it must not decide whether the call takes an
 * on-node number (ranks that did and ranks that did not would pair up
 * different operations afterwards). When such a call's turn comes, the
 * earlier step has finished on this rank, so the verdict is known and the
 * same on every rank: "no" spends the operation (every rank arrives, waits
 * for every arrival and leaves) and hands the call to the table's
 * message-based algorithm.
 */
#include "coll_shm.h"
#include "config_int.h"
#include "log_int.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * Bytes of a slice reduced at a time: what one chunk of every stream of
 * the fold (the accumulator, our input, at p > 2 a peer's chunk in the
 * scratch) takes together stays within LOOM_COLL_CMA_WORKSET (the L2 of a
 * core here, 1 MiB), so the read and the reduction meet in L2; and as few
 * chunks as that allows: each process_vm_readv pins the peer's pages and
 * has a fixed cost (32 KiB chunks made a 2 MiB allreduce 3.5x slower than
 * 128 KiB; at p = 2, 1 MiB, best of batches under load: 128 KiB 98.7 us,
 * 256 KiB 94, 512 KiB, the whole slice in one read, 92.6).
 */
/* (LOOM_COLL_CMA_WORKSET is in coll_shm.h, for the selection's element limit) */

/* whole elements: s->esize is a user op's element when it has one
 * (loom_coll_state_set_op), at most LOOM_COLL_CMA_MAX_ESIZE (coll_select.c) */
static size_t loom_coll_cma_chunk(const loom_coll_state_t *s)
{
    size_t streams = s->size == 2 ? 2 : 3;
    return LOOM_COLL_CMA_WORKSET / streams / s->esize * s->esize;
}

enum phase { PH_ENTER = 0, PH_ARRIVED, PH_REDUCE, PH_REDUCED };

/* the call's name in messages (allreduce, reduce and bcast share these helpers) */
static const char *loom_coll_cma_what(const loom_coll_state_t *s)
{
    return loom_coll_kind_name(s->kind);
}

/*
 * What the set-up step probes: a byte of this process's own, read and
 * written back (the same value) by every peer. Not a buffer of the call:
 * a reduce's non-roots have no receive buffer, and the send buffer may be
 * read-only memory (a constant), so only this byte tells whether
 * process_vm_writev is allowed too, which allreduce needs.
 */
static uint8_t loom_coll_cma_probe_byte;

loom_coll_cma_info_t *loom_coll_cma_info(const loom_coll_state_t *s, int r)
{
    loom_coll_shm_ctl_t *c = loom_coll_shm_ctl(s, r);
    return (loom_coll_cma_info_t *)(void *)((char *)(c + 1) +
                                            (size_t)(s->shm_seq & 1) * LOOM_COLL_SHM_MAX_BYTES);
}

void loom_coll_cma_step(const loom_coll_state_t *s, unsigned k)
{
    atomic_store_explicit(&loom_coll_shm_ctl(s, s->rank)->step, s->shm_seq << 2 | k,
                          memory_order_release);
}

loom_status_t loom_coll_cma_wait(loom_coll_state_t *s, unsigned k)
{
    uint64_t want = s->shm_seq << 2 | k;

    while (s->peer < s->size) {
        if (atomic_load_explicit(&loom_coll_shm_ctl(s, s->peer)->step,
                                 memory_order_acquire) < want) {
            return loom_coll_idle(s);
        }
        ++s->peer;
    }
    s->peer = 0;
    for (int q = 0; q < s->size; ++q) {
        if (loom_unlikely(loom_coll_cma_info(s, q)->bad)) {
            loom_error("coll", "%s #%llu on %s: rank %d stops: rank %d could not "
                       "move its part of the data", loom_coll_cma_what(s),
                       (unsigned long long)s->seq, s->comm->name, s->rank, q);
            return LOOM_ERR_PEER_FAILED;
        }
    }
    return LOOM_OK;
}

/*
 * Move @p len bytes between @p local and rank @p q's memory at @p remote:
 * read them from there (@p write 0, process_vm_readv) or write them there
 * (process_vm_writev), as many calls as the kernel needs.
 */
static loom_status_t loom_coll_cma_move(const loom_coll_state_t *s, int q, char *local,
                                        uint64_t remote, size_t len, int write)
{
    pid_t pid = (pid_t)loom_coll_cma_info(s, q)->pid;

    for (size_t done = 0; done < len;) {
        struct iovec l = { local + done, len - done };
        struct iovec r = { (void *)(uintptr_t)(remote + done), len - done };
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            int err = n < 0 ? errno : 0;   /* 0 moved: errno is stale */
            loom_error("coll", "%s #%llu on %s: rank %d %s %zu bytes %s rank %d (pid %d) "
                       "with process_vm_%s, %zu of them %s: %s", loom_coll_cma_what(s),
                       (unsigned long long)s->seq, s->comm->name, s->rank,
                       write ? "writing" : "reading", len, write ? "to" : "of", q, (int)pid,
                       write ? "writev" : "readv", done, write ? "written" : "read",
                       err != 0 ? strerror(err) : write ? "nothing written" : "nothing read");
            return err == ESRCH ? LOOM_ERR_PEER_FAILED : LOOM_ERR_IO;
        }
        done += (size_t)n;
    }
    return LOOM_OK;
}

loom_status_t loom_coll_cma_read(const loom_coll_state_t *s, int q, void *dst, uint64_t src,
                                 size_t len)
{
    return loom_coll_cma_move(s, q, dst, src, len, 0);
}

loom_status_t loom_coll_cma_write(const loom_coll_state_t *s, int q, uint64_t dst,
                                  const void *src, size_t len)
{
    /* process_vm_writev only reads the local iovec */
    return loom_coll_cma_move(s, q, (char *)(uintptr_t)src, dst, len, 1);
}

loom_status_t loom_coll_cma_push_rest(loom_coll_state_t *s, int q, uint64_t dst,
                                      const char *src, size_t at, size_t end)
{
    loom_status_t st = loom_coll_cma_write(s, q, dst + at, src + at, end - at);

    if (st == LOOM_OK) {
        atomic_store_explicit(&loom_coll_cma_info(s, s->rank)->pushed, end,
                              memory_order_release);
    }
    return st;
}

loom_status_t loom_coll_cma_pushed(loom_coll_state_t *s, int q, size_t want, size_t *got)
{
    const loom_coll_cma_info_t *in = loom_coll_cma_info(s, q);

    *got = (size_t)atomic_load_explicit(&in->pushed, memory_order_acquire);
    if (*got >= want) {
        return LOOM_OK;
    }
    if (loom_unlikely(in->bad)) {
        loom_error("coll", "%s #%llu on %s: rank %d stops: rank %d could not write its "
                   "part of the data", loom_coll_cma_what(s), (unsigned long long)s->seq,
                   s->comm->name, s->rank, q);
        return LOOM_ERR_PEER_FAILED;
    }
    return loom_coll_idle(s);
}

/* The set-up step: may we read and write every peer? (published, then agreed) */
static int loom_coll_cma_probe(const loom_coll_state_t *s)
{
    const loom_config_var_t *cma = loom_config_find("LOOM_SHM_CMA");   /* shm's */
    const char *mode = cma != NULL ? loom_config_str(cma) : "";
    uint8_t byte;

    if (strcasecmp(mode, "off") == 0) {
        return 0;
    }
    for (int q = 0; q < s->size; ++q) {
        loom_coll_cma_info_t *in = loom_coll_cma_info(s, q);
        struct iovec l = { &byte, 1 }, r = { (void *)(uintptr_t)in->probe, 1 };
        /* read its probe byte and write it back (the value never changes) */
        if (q != s->rank && (process_vm_readv((pid_t)in->pid, &l, 1, &r, 1, 0) != 1 ||
                             process_vm_writev((pid_t)in->pid, &l, 1, &r, 1, 0) != 1)) {
            loom_info("coll", "%s: rank %d cannot read or write rank %d with "
                      "process_vm_readv/writev (%m)", s->comm->name, s->rank, q);
            return 0;
        }
    }
    return 1;
}

/* Every rank's verdict: all may read (1) or none does (0). */
static int loom_coll_cma_agree(loom_coll_state_t *s)
{
    loom_coll_comm_t *cc = s->shm;

    cc->cma = LOOM_COLL_CMA_YES;
    for (int q = 0; q < s->size; ++q) {
        if (!loom_coll_cma_info(s, q)->cma_ok) {
            cc->cma = LOOM_COLL_CMA_NO;
        }
    }
    if (cc->cma == LOOM_COLL_CMA_NO && s->rank == 0) {
        loom_info("coll", "%s: process_vm_readv is not available between every pair of "
                  "ranks; large allreduce, reduce and bcast use message-based algorithms",
                  s->comm->name);
    }
    return cc->cma == LOOM_COLL_CMA_YES;
}

/*
 * acc (n bytes at byte offset off of our slice) = x0 op (x1 op (... x(p-1))).
 * The last rank, not in place, with an op whose operands commute bit for
 * bit, starts from x(p-2) op x(p-1) = x(p-1) op x(p-2): x(p-2) read straight
 * into acc and ours folded in, instead of copying ours into acc and reading
 * x(p-2) into the scratch (a copy of the slice less, which at p = 2 made
 * the last rank the slower one).
 */
static loom_status_t loom_coll_cma_fold(loom_coll_state_t *s, size_t off, size_t n)
{
    char *acc = (char *)s->rbuf + off, *peer = ((loom_coll_comm_t *)s->shm)->cma_tmp;
    const char *own = (const char *)s->sbuf + off;
    int last = s->size - 1, q = last - 1;
    loom_status_t st = LOOM_OK;

    if (s->sbuf == s->rbuf && s->rank != last) {   /* in place: acc is ours */
        memcpy(peer + LOOM_COLL_CMA_WORKSET / 2, own, n);
        own = peer + LOOM_COLL_CMA_WORKSET / 2;
    }
    if (s->rank != last) {
        st = loom_coll_cma_read(s, last, acc, loom_coll_cma_info(s, last)->sbuf + off, n);
    } else if (own != acc && loom_op_commutes_exactly(s->op, s->dt)) {
        if ((st = loom_coll_cma_read(s, q, acc, loom_coll_cma_info(s, q)->sbuf + off, n)) ==
            LOOM_OK) {
            loom_coll_reduce(s, own, acc, n / s->esize);
        }
        --q;
    } else if (own != acc) {
        memcpy(acc, own, n);
    }
    if (st != LOOM_OK) {
        return st;
    }
    for (; q >= 0; --q) {
        if (q == s->rank) {
            loom_coll_reduce(s, own, acc, n / s->esize);
            continue;
        }
        st = loom_coll_cma_read(s, q, peer, loom_coll_cma_info(s, q)->sbuf + off, n);
        if (st != LOOM_OK) {
            return st;
        }
        loom_coll_reduce(s, peer, acc, n / s->esize);
    }
    return LOOM_OK;
}

/* Our slice of the result into every other rank's recvbuf. */
static loom_status_t loom_coll_cma_push(loom_coll_state_t *s)
{
    size_t off = loom_pat_block_off(s->count, s->size, s->rank) * s->esize;
    size_t len = loom_pat_block_len(s->count, s->size, s->rank) * s->esize;
    loom_status_t st = LOOM_OK;

    for (int i = 1; i < s->size && len > 0 && st == LOOM_OK; ++i) {
        int q = (s->rank + i) % s->size;   /* spread the writers over the owners */

        st = loom_coll_cma_write(s, q, loom_coll_cma_info(s, q)->rbuf + off,
                                 (const char *)s->rbuf + off, len);
    }
    return st;
}

/* Our slice of the result, chunk by chunk. */
static loom_status_t loom_coll_cma_reduce(loom_coll_state_t *s)
{
    size_t off = loom_pat_block_off(s->count, s->size, s->rank) * s->esize;
    size_t len = loom_pat_block_len(s->count, s->size, s->rank) * s->esize;
    size_t chunk = loom_coll_cma_chunk(s);
    loom_coll_comm_t *cc = s->shm;
    loom_status_t st = LOOM_OK;

    /* a peer's chunk (below WORKSET / 2) and our own when in place (above);
     * at p = 2 out of place every read lands in the result (the last rank:
     * when the op commutes exactly, see loom_coll_cma_fold) */
    int scratch = s->size > 2 || s->sbuf == s->rbuf ||
                  (s->rank == s->size - 1 && !loom_op_commutes_exactly(s->op, s->dt));

    if (scratch && cc->cma_tmp == NULL &&
        (cc->cma_tmp = malloc(LOOM_COLL_CMA_WORKSET)) == NULL) {
        loom_error("coll", "%s: cannot allocate %zu bytes of scratch for allreduce",
                   s->comm->name, LOOM_COLL_CMA_WORKSET);
        return LOOM_ERR_NO_MEMORY;
    }
    for (size_t pos = 0; pos < len && st == LOOM_OK; pos += chunk) {
        st = loom_coll_cma_fold(s, off + pos, len - pos < chunk ? len - pos : chunk);
    }
    return st;
}

/* A local failure: tell the others (they stop at their next wait), leave. */
loom_status_t loom_coll_cma_fail(loom_coll_state_t *s, loom_status_t st)
{
    loom_coll_cma_info(s, s->rank)->bad = 1;
    loom_coll_cma_step(s, 2);
    loom_coll_shm_leave(s);
    s->failed = 1;
    return st;
}

/* This rank's pid and buffers for operation s->shm_seq, then its arrival. */
void loom_coll_cma_publish(loom_coll_state_t *s)
{
    loom_coll_cma_info_t *me = loom_coll_cma_info(s, s->rank);
    loom_coll_comm_t *cc = s->shm;

    if (cc->pid == 0) {
        cc->pid = (uint64_t)getpid();
    }
    me->pid    = cc->pid;
    me->sbuf   = (uint64_t)(uintptr_t)s->sbuf;
    me->rbuf   = (uint64_t)(uintptr_t)s->rbuf;
    me->probe  = (uint64_t)(uintptr_t)&loom_coll_cma_probe_byte;
    me->cma_ok = 0;
    me->bad    = 0;
    atomic_store_explicit(&me->pushed, 0, memory_order_relaxed);   /* before the arrival */
    loom_coll_shm_arrive_way(s, 0, LOOM_COLL_SHM_WAY_CMA);
}

loom_status_t loom_coll_cma_enter(loom_coll_state_t *s)
{
    loom_status_t st;

    if (s->phase != PH_ENTER) {
        return LOOM_OK;
    }
    if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
        return st;    /* the selection runs it only on a set-up segment */
    }
    /* published already when this call's set-up step found the verdict */
    if (atomic_load_explicit(&loom_coll_shm_ctl(s, s->rank)->arrived,
                             memory_order_relaxed) != s->shm_seq) {
        loom_coll_cma_publish(s);
    }
    s->peer  = 0;
    s->phase = PH_ARRIVED;
    return LOOM_OK;
}

loom_status_t loom_coll_cma_join(loom_coll_state_t *s)
{
    loom_status_t st;

    if ((st = loom_coll_cma_enter(s)) != LOOM_OK) {
        return st;
    }
    if ((st = loom_coll_shm_wait(s)) != LOOM_OK) {
        return st == LOOM_INPROGRESS ? st : (loom_coll_shm_leave(s), st);
    }
    s->peer = 0;
    return LOOM_OK;
}

enum probe_phase { PR_ENTER = 0, PR_ARRIVED, PR_AGREE, PR_SPEND };

/* The verdict is known: keep the operation for this algorithm ("yes"), or
 * give its number back so the next on-node operation may run ("no"). */
static loom_status_t loom_coll_cma_probe_done(loom_coll_state_t *s)
{
    if (((loom_coll_comm_t *)s->shm)->cma != LOOM_COLL_CMA_YES) {
        loom_coll_shm_leave(s);
        s->shm = NULL;
    }
    return LOOM_OK;
}

/*
 * The verdict was "no" before this call's turn: the operation is spent as
 * every rank spends it (each took its number, since the selection gives
 * the step whatever the verdict; see coll_select.c). We arrived; wait for
 * every arrival before leaving, as every on-node operation does: that is
 * what lets the next operation reuse the slots of the one before this
 * (a rank in operation n + 1 knows every rank has left n - 1), and it
 * compares the signatures, so a rank that called something else is
 * reported here rather than later.
 */
static loom_status_t loom_coll_cma_spend(loom_coll_state_t *s)
{
    loom_status_t st = loom_coll_shm_wait(s);

    if (st != LOOM_OK) {
        return st == LOOM_INPROGRESS ? st : (loom_coll_shm_leave(s), st);
    }
    s->peer = 0;
    return loom_coll_cma_probe_done(s);
}

/*
 * The communicator's CMA set-up step (see the top): LOOM_OK once the
 * verdict is known, with the on-node operation still entered and this
 * rank's buffers published on "yes" (loom_coll_allreduce_cma continues
 * from there), given back on "no"; LOOM_INPROGRESS meanwhile; or an error.
 * A call selected while the verdict was not "yes" may find it known when
 * its turn comes (an earlier call agreed, on this rank or before it was
 * posted): it probes nothing then; on "no" it still arrives and waits for
 * every arrival (loom_coll_cma_spend), as the other ranks do in it.
 */
loom_status_t loom_coll_allreduce_cma_probe(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st;

    switch ((enum probe_phase)s->phase) {
    case PR_ENTER:
        if ((st = loom_coll_shm_enter(s)) != LOOM_OK) {
            if (st == LOOM_ERR_UNSUPPORTED) {   /* no segment: no CMA either */
                loom_coll_shm_leave(s);
                s->shm = NULL;
                return LOOM_OK;
            }
            return st;
        }
        switch (((loom_coll_comm_t *)s->shm)->cma) {
        case LOOM_COLL_CMA_YES:
            return LOOM_OK;              /* the algorithm publishes */
        case LOOM_COLL_CMA_NO:
            loom_coll_cma_publish(s);    /* arrives, as every rank does */
            s->phase = PR_SPEND;
            return loom_coll_cma_spend(s);
        default:
            break;
        }
        loom_coll_cma_publish(s);
        s->phase = PR_ARRIVED;
        /* fall through */
    case PR_ARRIVED:
        if ((st = loom_coll_shm_wait(s)) != LOOM_OK) {
            return st == LOOM_INPROGRESS ? st : (loom_coll_shm_leave(s), st);
        }
        s->peer = 0;
        loom_coll_cma_info(s, s->rank)->cma_ok = (uint32_t)loom_coll_cma_probe(s);
        loom_coll_cma_step(s, 1);
        s->phase = PR_AGREE;
        /* fall through */
    case PR_AGREE:
        if ((st = loom_coll_cma_wait(s, 1)) != LOOM_OK) {
            return st == LOOM_INPROGRESS ? st : loom_coll_cma_fail(s, st);
        }
        (void)loom_coll_cma_agree(s);
        return loom_coll_cma_probe_done(s);
    case PR_SPEND:
        return loom_coll_cma_spend(s);
    }
    return LOOM_ERR_INTERNAL;
}

/* Selected only on a communicator whose CMA verdict is "yes". */
loom_status_t loom_coll_allreduce_cma(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st = LOOM_OK;

    switch ((enum phase)s->phase) {
    case PH_ENTER:
    case PH_ARRIVED:
        if ((st = loom_coll_cma_join(s)) != LOOM_OK) {
            return st;
        }
        s->phase = PH_REDUCE;
        /* fall through */
    case PH_REDUCE:
        if ((st = loom_coll_cma_reduce(s)) != LOOM_OK ||
            (st = loom_coll_cma_push(s)) != LOOM_OK) {
            return loom_coll_cma_fail(s, st);
        }
        loom_coll_cma_step(s, 2);
        s->phase = PH_REDUCED;
        /* fall through */
    case PH_REDUCED:
        /* every slice is in our recvbuf, and nobody reads or writes our
         * buffers any more */
        if ((st = loom_coll_cma_wait(s, 2)) != LOOM_OK) {
            return st == LOOM_INPROGRESS ? st : (loom_coll_shm_leave(s), s->failed = 1, st);
        }
        loom_coll_shm_leave(s);
        return LOOM_OK;
    }
    return LOOM_ERR_INTERNAL;
}
