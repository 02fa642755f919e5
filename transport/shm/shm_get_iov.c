/*
 * shm_get_iov.c: the rendezvous reads of non-contiguous datatypes: get_iov
 * (tl.h) scatters one remote range straight into many local pieces, so a
 * vector or subarray receive needs no pack and no bounce buffer; get_riov
 * also gathers from many remote pieces, so a sender with such a type
 * needs no pack either (one process_vm_readv moves many blocks, both
 * sides scattered).
 *
 * Design. Only the single-copy path: where the peer's CMA verdict (made by
 * loom_shm_cma_probe, shm_get.c, on the first get or get_iov from that
 * peer) is not "yes" (LOOM_SHM_CMA=off, refused by ptrace rules or
 * seccomp), the answer is LOOM_ERR_UNSUPPORTED and the engine reads
 * into a buffer with get() and unpacks (a pipelined get through the ring
 * cannot scatter). get_iov is get_riov with one remote piece. Each
 * process_vm_readv passes at most IOV_MAX pieces on each side and at most
 * LOOM_SHM_IOV_CHUNK bytes (the kernel caps one call near 2 GiB): the
 * remote batch is cut first, the local one to its bytes, and the remote
 * one trimmed to the local bytes if those ran short; a partial read
 * resumes where it stopped, inside a piece on either side if need be.
 * Every remote piece a batch takes passes the key check get() makes (the
 * key is this peer's, and covers the piece), so the remote array is
 * checked only as far as it is read. Synchronous: LOOM_OK or an error,
 * never INPROGRESS; the iovec arrays are not kept.
 */
#include "shm_int.h"
#include "log_int.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/uio.h>

#define LOOM_SHM_IOV_CHUNK ((size_t)1 << 30)

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* The next piece of a side: piece @c idx, @c off bytes into it. */
typedef struct loom_shm_iov_pos {
    const struct iovec *iov;
    size_t              cnt;
    size_t              idx;
    size_t              off;
} loom_shm_iov_pos_t;

/* The next at most IOV_MAX pieces and @p max bytes from @p pos: the bytes. */
static size_t loom_shm_iov_batch(const loom_shm_iov_pos_t *pos, size_t max,
                                 struct iovec *out, size_t *n_p)
{
    size_t n = 0, bytes = 0;

    for (size_t i = pos->idx; i < pos->cnt && n < IOV_MAX && bytes < max; ++i) {
        size_t skip = i == pos->idx ? pos->off : 0;
        size_t len = LOOM_MIN(pos->iov[i].iov_len - skip, max - bytes);

        if (len == 0) {
            continue;
        }
        out[n].iov_base = (char *)pos->iov[i].iov_base + skip;
        out[n].iov_len  = len;
        bytes += len;
        ++n;
    }
    *n_p = n;
    return bytes;
}

/* Cut the batch @p b of *n_p pieces to its first @p bytes bytes. */
static void loom_shm_iov_trim(struct iovec *b, size_t *n_p, size_t bytes)
{
    size_t n = 0;

    while (n < *n_p && bytes != 0) {
        b[n].iov_len = LOOM_MIN(b[n].iov_len, bytes);
        bytes -= b[n].iov_len;
        ++n;
    }
    *n_p = n;
}

/* Move @p pos past @p done bytes. */
static void loom_shm_iov_advance(loom_shm_iov_pos_t *pos, size_t done)
{
    while (done != 0 && pos->idx < pos->cnt) {
        size_t left = pos->iov[pos->idx].iov_len - pos->off;

        if (done < left) {
            pos->off += done;
            return;
        }
        done -= left;
        pos->off = 0;
        ++pos->idx;
    }
}

/* Every piece of a remote batch inside the key: LOOM_OK or what is wrong (logged). */
static loom_status_t loom_shm_riov_check(loom_shm_peer_t *peer, const struct iovec *r,
                                         size_t n, const loom_shm_rkey_t *key)
{
    loom_status_t status = LOOM_OK;

    for (size_t i = 0; i < n && status == LOOM_OK; ++i) {
        status = loom_shm_get_check(peer, "get_riov", r[i].iov_len,
                                    (uint64_t)(uintptr_t)r[i].iov_base, key);
    }
    return status;
}

/*
 * Read @p total bytes from the remote pieces of @p rpos into the local
 * pieces of @p lpos (both sides scattered), resuming partial reads.
 */
static loom_status_t loom_shm_get_riov_read(loom_shm_peer_t *peer, loom_shm_iov_pos_t *lpos,
                                            loom_shm_iov_pos_t *rpos, size_t total,
                                            const loom_shm_rkey_t *key, const char *op)
{
    struct iovec liov[IOV_MAX], riov[IOV_MAX];
    size_t done = 0;

    while (done < total) {
        size_t ln = 0, rn = 0;
        size_t rbytes = loom_shm_iov_batch(rpos, LOOM_MIN(total - done, LOOM_SHM_IOV_CHUNK),
                                           riov, &rn);
        size_t bytes = loom_shm_iov_batch(lpos, rbytes, liov, &ln);
        loom_status_t status;
        ssize_t rc;

        if (bytes == 0) {
            loom_error("shm", "%s from rank %d: the remote pieces end %zu bytes short "
                       "of the %zu asked for", op, peer->world_rank, total - done, total);
            return LOOM_ERR_INVALID_ARG;
        }
        loom_shm_iov_trim(riov, &rn, bytes);
        if ((status = loom_shm_riov_check(peer, riov, rn, key)) != LOOM_OK) {
            return status;
        }
        rc = process_vm_readv(peer->pid, liov, (unsigned long)ln, riov, (unsigned long)rn, 0);
        if (rc > 0) {
            loom_shm_iov_advance(lpos, (size_t)rc);
            loom_shm_iov_advance(rpos, (size_t)rc);
            done += (size_t)rc;
        } else if (!(rc < 0 && errno == EINTR)) {
            return loom_shm_cma_error(peer, op, rc,
                                      (uint64_t)(uintptr_t)riov[0].iov_base, bytes,
                                      LOOM_MAX(ln, rn));
        }
    }
    return LOOM_OK;
}

/*
 * The peer can be read with process_vm_readv: LOOM_OK, UNSUPPORTED, or its
 * failure. @p op: the read asking (NULL: only a question, nothing to read),
 * which fails the peer if it is gone rather than call it unsupported (a
 * first probe of a dead peer says "no", and a sender that did not pack
 * cannot be read any other way).
 */
static loom_status_t loom_shm_riov_usable(loom_shm_peer_t *peer, const char *op)
{
    loom_status_t status;

    if (peer->failed) {
        return LOOM_ERR_PEER_FAILED;
    }
    if (peer->cma == LOOM_SHM_CMA_UNKNOWN && (status = loom_shm_cma_probe(peer)) != LOOM_OK) {
        return status;
    }
    if (peer->cma == LOOM_SHM_CMA_YES) {
        return LOOM_OK;
    }
    if (op != NULL && loom_shm_peer_pid(peer) > 0 && kill(loom_shm_peer_pid(peer), 0) != 0 && errno == ESRCH) {
        loom_shm_peer_fail(peer, LOOM_ERR_PEER_FAILED, op,
                           "exited or was killed (no such process)");
        return LOOM_ERR_PEER_FAILED;
    }
    return LOOM_ERR_UNSUPPORTED;   /* off or refused: the engine reads with get() */
}

loom_status_t loom_shm_ep_get_riov(loom_tl_ep_t *ep, const struct iovec *liov, size_t lcnt,
                                   const struct iovec *riov, size_t rcnt,
                                   const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);
    loom_shm_iov_pos_t lpos = { .iov = liov, .cnt = lcnt, .idx = 0, .off = 0 };
    loom_shm_iov_pos_t rpos = { .iov = riov, .cnt = rcnt, .idx = 0, .off = 0 };
    loom_status_t status = loom_shm_riov_usable(peer, lcnt == 0 && rcnt == 0 ? NULL
                                                                             : "get_riov");
    loom_shm_rkey_t key;
    size_t total = 0;

    (void)comp;   /* always synchronous */
    if (status != LOOM_OK || (lcnt == 0 && rcnt == 0)) {
        return status;
    }
    for (size_t i = 0; i < lcnt; ++i) {
        if (__builtin_add_overflow(total, liov[i].iov_len, &total)) {
            loom_error("shm", "get_riov from rank %d: the %zu local pieces overflow size_t",
                       peer->world_rank, lcnt);
            return LOOM_ERR_INVALID_ARG;
        }
    }
    memcpy(&key, rkey->data, sizeof(key));
    return total == 0 ? LOOM_OK : loom_shm_get_riov_read(peer, &lpos, &rpos, total, &key,
                                                                 "get_riov");
}

loom_status_t loom_shm_ep_get_iov(loom_tl_ep_t *ep, const struct iovec *iov, size_t iovcnt,
                                  uint64_t raddr, const loom_tl_rkey_t *rkey,
                                  loom_tl_comp_t *comp)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);
    loom_shm_iov_pos_t pos = { .iov = iov, .cnt = iovcnt, .idx = 0, .off = 0 };
    loom_shm_iov_pos_t rpos = { .cnt = 1, .idx = 0, .off = 0 };
    struct iovec whole;
    loom_shm_rkey_t key;
    loom_status_t status = loom_shm_riov_usable(peer, NULL);
    size_t total = 0;

    (void)comp;   /* always synchronous */
    if (status != LOOM_OK) {
        return status;
    }
    for (size_t i = 0; i < iovcnt; ++i) {
        if (__builtin_add_overflow(total, iov[i].iov_len, &total)) {
            loom_error("shm", "get_iov from rank %d: the %zu pieces overflow size_t",
                       peer->world_rank, iovcnt);
            return LOOM_ERR_INVALID_ARG;
        }
    }
    memcpy(&key, rkey->data, sizeof(key));
    if ((status = loom_shm_get_check(peer, "get_iov", total, raddr, &key)) != LOOM_OK ||
        total == 0) {
        return status;
    }
    whole.iov_base = (void *)(uintptr_t)raddr;   /* one remote piece, checked above */
    whole.iov_len  = total;
    rpos.iov = &whole;
    return loom_shm_get_riov_read(peer, &pos, &rpos, total, &key, "get_iov");
}
