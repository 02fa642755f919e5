/*
 * shm_get_iov.c: the rendezvous read of a receiver whose datatype is not
 * contiguous (tl.h get_iov): one process_vm_readv scatters one remote
 * range straight into many local pieces, so a vector or subarray receive
 * needs no pack and no bounce buffer.
 *
 * Design. Only the single-copy path: where the peer's CMA verdict (made by
 * loom_shm_cma_probe, shm_get.c, on the first get or get_iov from that
 * peer) is not "yes" (LOOM_SHM_CMA=off, refused by ptrace rules or
 * seccomp), the answer is LOOM_ERR_UNSUPPORTED and the engine reads
 * into a buffer with get() and unpacks (a pipelined get through the ring
 * cannot scatter). Each call passes at most IOV_MAX local pieces and at
 * most LOOM_SHM_IOV_CHUNK bytes (the kernel caps one call near 2 GiB); a
 * partial read resumes where it stopped, inside a piece if need be. The
 * key check is the one get() makes (the key is this peer's, and covers
 * the range). Synchronous: LOOM_OK or an error, never INPROGRESS; the
 * iovec array is not kept.
 */
#include "shm_int.h"
#include "log_int.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/uio.h>

#define LOOM_SHM_IOV_CHUNK ((size_t)1 << 30)

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* Where the next local byte goes: piece @c idx, @c off bytes into it. */
typedef struct loom_shm_iov_pos {
    const struct iovec *iov;
    size_t              cnt;
    size_t              idx;
    size_t              off;
} loom_shm_iov_pos_t;

/* The next at most IOV_MAX pieces and LOOM_SHM_IOV_CHUNK bytes from @p pos. */
static size_t loom_shm_iov_batch(const loom_shm_iov_pos_t *pos, struct iovec *out,
                                 size_t *n_p)
{
    size_t n = 0, bytes = 0;

    for (size_t i = pos->idx; i < pos->cnt && n < IOV_MAX && bytes < LOOM_SHM_IOV_CHUNK;
         ++i) {
        size_t skip = i == pos->idx ? pos->off : 0;
        size_t len = LOOM_MIN(pos->iov[i].iov_len - skip, LOOM_SHM_IOV_CHUNK - bytes);

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

/* Read [raddr, raddr + total) into the pieces of @p pos, resuming partial reads. */
static loom_status_t loom_shm_get_iov_read(loom_shm_peer_t *peer, loom_shm_iov_pos_t *pos,
                                           uint64_t raddr, size_t total)
{
    struct iovec liov[IOV_MAX];
    size_t done = 0;

    while (done < total) {
        size_t n = 0;
        size_t bytes = loom_shm_iov_batch(pos, liov, &n);
        struct iovec riov = { (void *)(uintptr_t)(raddr + done), bytes };
        ssize_t rc = process_vm_readv(peer->pid, liov, (unsigned long)n, &riov, 1, 0);

        if (rc > 0) {
            loom_shm_iov_advance(pos, (size_t)rc);
            done += (size_t)rc;
        } else if (!(rc < 0 && errno == EINTR)) {
            return loom_shm_cma_error(peer, "get_iov", rc, raddr + done, bytes, n);
        }
    }
    return LOOM_OK;
}

loom_status_t loom_shm_ep_get_iov(loom_tl_ep_t *ep, const struct iovec *iov, size_t iovcnt,
                                  uint64_t raddr, const loom_tl_rkey_t *rkey,
                                  loom_tl_comp_t *comp)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);
    loom_shm_iov_pos_t pos = { .iov = iov, .cnt = iovcnt, .idx = 0, .off = 0 };
    loom_shm_rkey_t key;
    loom_status_t status;
    size_t total = 0;

    (void)comp;   /* always synchronous */
    if (peer->failed) {
        return LOOM_ERR_PEER_FAILED;
    }
    if (peer->cma == LOOM_SHM_CMA_UNKNOWN && (status = loom_shm_cma_probe(peer)) != LOOM_OK) {
        return status;
    }
    if (peer->cma != LOOM_SHM_CMA_YES) {
        return LOOM_ERR_UNSUPPORTED;   /* off or refused: the engine reads with get() */
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
    return loom_shm_get_iov_read(peer, &pos, raddr, total);
}
