/*
 * shm_get.c: one-sided reads for rendezvous.
 *
 * Single copy: process_vm_readv from the owner's pid, at most 1 GiB per
 * call (the kernel caps one call near 2 GiB) and resuming after partial
 * reads. Pipelined copy where CMA is not permitted:
 *
 *   requester                               owner
 *   get() ---- GET_REQ {id, raddr, len} ---> progress: queue a stream
 *        <--- GET_DATA {id, off} + bytes --- progress: as many chunks (each in
 *        <--- GET_DATA ...               --- a fragment) as there is room for
 *   progress: copy each chunk; at len bytes comp->cb(comp, LOOM_OK)
 *
 * Both sides keep fixed tables of LOOM_SHM_MAX_GETS entries per peer: the
 * requester refuses a get with LOOM_ERR_NO_RESOURCE when its table is full,
 * which also bounds the owner's queue. Nothing here allocates.
 */
#include "shm_int.h"
#include "log_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#define LOOM_SHM_CMA_CHUNK ((size_t)1 << 30)
#define LOOM_SHM_GET_IDX_BITS 8

static const volatile uint64_t loom_shm_probe_word = LOOM_SHM_PROBE_MAGIC;

uint64_t loom_shm_probe_addr(void)
{
    return (uint64_t)(uintptr_t)&loom_shm_probe_word;
}

loom_status_t loom_shm_cma_init(loom_shm_iface_t *iface)
{
    uint64_t word = 0;
    struct iovec liov = { &word, sizeof(word) };
    struct iovec riov = { (void *)(uintptr_t)loom_shm_probe_addr(), sizeof(word) };

    if (iface->cma_mode == LOOM_SHM_CMA_OFF) {
        iface->cma_notice = 1;
        loom_info("shm", "LOOM_SHM_CMA=off: large messages use a pipelined copy through "
                  "the shared segment");
        return LOOM_OK;
    }
    /* Under Yama ptrace_scope=1 a sibling may not read our memory unless we
     * allow it; the local ranks of a job trust each other (Open MPI's vader
     * does the same). Harmless where Yama is absent. */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);

    /* A seccomp filter (containers) may forbid the call outright: reading
     * ourselves tells now; ptrace rules are probed per peer on first get. */
    if (process_vm_readv(iface->pid, &liov, 1, &riov, 1, 0) == (ssize_t)sizeof(word) &&
        word == LOOM_SHM_PROBE_MAGIC) {
        return LOOM_OK;
    }
    if (iface->cma_mode == LOOM_SHM_CMA_ON) {
        loom_error("shm", "LOOM_SHM_CMA=on but process_vm_readv is not available here: %m");
        return LOOM_ERR_TRANSPORT;
    }
    iface->cma_mode   = LOOM_SHM_CMA_OFF;
    iface->cma_notice = 1;
    loom_info("shm", "single-copy process_vm_readv is not available here (%m): large "
              "messages use a pipelined copy through the shared segment");
    return LOOM_OK;
}

/* Decide once per peer whether process_vm_readv may read it (also from shm_get_iov.c). */
loom_status_t loom_shm_cma_probe(loom_shm_peer_t *peer)
{
    loom_shm_iface_t *iface = peer->iface;
    uint64_t word = 0;
    struct iovec liov = { &word, sizeof(word) };
    struct iovec riov;
    pid_t pid = loom_shm_peer_pid(peer);
    ssize_t rc;

    if (iface->cma_mode == LOOM_SHM_CMA_OFF) {
        peer->cma = LOOM_SHM_CMA_NO;   /* the notice came at open */
        return LOOM_OK;
    }
    if (pid == 0) {
        return LOOM_OK;   /* not attached yet (cannot be: it sent us a key); retry next get */
    }
    if (pid > 0) {
        riov.iov_base = (void *)(uintptr_t)iface->seg->ranks[peer->local_idx].probe_addr;
        riov.iov_len  = sizeof(word);
        rc = process_vm_readv(pid, &liov, 1, &riov, 1, 0);
        if (rc == (ssize_t)sizeof(word) && word == LOOM_SHM_PROBE_MAGIC) {
            peer->cma = LOOM_SHM_CMA_YES;
            return LOOM_OK;
        }
        if (rc >= 0) {
            errno = EIO;   /* read, but not what the peer holds there */
        }
    } else {
        errno = ESRCH;    /* its pid is not visible from here (another pid namespace) */
    }
    if (iface->cma_mode == LOOM_SHM_CMA_ON) {
        loom_error("shm", "rank %d: LOOM_SHM_CMA=on but process_vm_readv of rank %d (pid %d) "
                   "is not permitted: %m", iface->job->rank, peer->world_rank, (int)pid);
        return LOOM_ERR_TRANSPORT;
    }
    peer->cma = LOOM_SHM_CMA_NO;
    if (!iface->cma_notice) {
        iface->cma_notice = 1;
        loom_info("shm", "single-copy process_vm_readv of rank %d is not permitted (%m): "
                  "large messages use a pipelined copy through the shared segment",
                  peer->world_rank);
    }
    return LOOM_OK;
}

loom_status_t loom_shm_cma_error(loom_shm_peer_t *peer, const char *op, ssize_t rc,
                                 uint64_t raddr, size_t n, size_t pieces)
{
    char into[48] = "";

    if (rc < 0 && errno == ESRCH) {
        loom_shm_peer_fail(peer, LOOM_ERR_PEER_FAILED, op,
                           "exited or was killed (process_vm_readv: no such process)");
        return LOOM_ERR_PEER_FAILED;
    }
    if (rc == 0) {
        errno = EFAULT;
    }
    if (pieces > 1) {
        int saved = errno;   /* for %m below */

        snprintf(into, sizeof(into), " into %zu pieces", pieces);
        errno = saved;
    }
    loom_error("shm", "rank %d: process_vm_readv of %zu bytes at 0x%llx%s from rank %d "
               "(pid %d) failed: %m (transport shm, operation %s)", peer->iface->job->rank, n,
               (unsigned long long)raddr, into, peer->world_rank, (int)peer->pid, op);
    return LOOM_ERR_TRANSPORT;
}

static loom_status_t loom_shm_get_cma(loom_shm_peer_t *peer, void *local, size_t len,
                                      uint64_t raddr)
{
    size_t done = 0;

    while (done < len) {
        size_t n = LOOM_MIN(len - done, LOOM_SHM_CMA_CHUNK);
        struct iovec liov = { (uint8_t *)local + done, n };
        struct iovec riov = { (void *)(uintptr_t)(raddr + done), n };
        ssize_t rc = process_vm_readv(peer->pid, &liov, 1, &riov, 1, 0);

        if (rc > 0) {
            done += (size_t)rc;   /* a partial read resumes where it stopped */
        } else if (!(rc < 0 && errno == EINTR)) {
            return loom_shm_cma_error(peer, "get", rc, raddr + done, n, 1);
        }
    }
    return LOOM_OK;
}

static loom_status_t loom_shm_get_pipelined(loom_shm_peer_t *peer, void *local, size_t len,
                                            uint64_t raddr, const loom_shm_rkey_t *key,
                                            loom_tl_comp_t *comp)
{
    loom_shm_get_op_t *op;
    loom_shm_get_req_t req;
    loom_status_t status;
    int idx;

    if (peer->gets_free == 0) {
        return LOOM_ERR_NO_RESOURCE;
    }
    idx = __builtin_ctzll(peer->gets_free);
    op  = &peer->gets[idx];
    req.id       = (uint32_t)idx | (op->gen << LOOM_SHM_GET_IDX_BITS);
    req.memh_idx = key->memh_idx;
    req.memh_gen = key->memh_gen;
    req.rsvd     = 0;
    req.raddr = raddr;
    req.len   = len;
    status   = loom_shm_tx_send2(peer, LOOM_SHM_FRAME_GET_REQ, &req, sizeof(req), NULL, 0,
                                 "get");
    if (status != LOOM_OK) {
        return status;
    }
    op->comp     = comp;
    op->local    = local;
    op->len      = len;
    op->received = 0;
    peer->gets_free &= ~((uint64_t)1 << idx);
    ++peer->iface->ngets;
    return LOOM_INPROGRESS;
}

loom_status_t loom_shm_get_check(loom_shm_peer_t *peer, const char *op, size_t len,
                                 uint64_t raddr, const loom_shm_rkey_t *key)
{
    if (key->magic != LOOM_SHM_RKEY_MAGIC || raddr < key->addr || len > key->len ||
        raddr - key->addr > key->len - len ||
        (peer->pid > 0 && key->pid != (int32_t)peer->pid)) {
        loom_error("shm", "%s of %zu bytes at 0x%llx from rank %d: the key (pid %d, region "
                   "0x%llx + %llu) does not cover it", op, len, (unsigned long long)raddr,
                   peer->world_rank, (int)key->pid, (unsigned long long)key->addr,
                   (unsigned long long)key->len);
        return LOOM_ERR_INVALID_ARG;
    }
    return LOOM_OK;
}

loom_status_t loom_shm_ep_get(loom_tl_ep_t *ep, void *local, size_t len, uint64_t raddr,
                              const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);
    loom_status_t status;
    loom_shm_rkey_t key;

    if (peer->failed) {
        return LOOM_ERR_PEER_FAILED;
    }
    memcpy(&key, rkey->data, sizeof(key));
    if ((status = loom_shm_get_check(peer, "get", len, raddr, &key)) != LOOM_OK || len == 0) {
        return status;
    }
    if (loom_unlikely(peer->cma == LOOM_SHM_CMA_UNKNOWN) &&
        (status = loom_shm_cma_probe(peer)) != LOOM_OK) {
        return status;
    }
    if (loom_likely(peer->cma == LOOM_SHM_CMA_YES)) {
        return loom_shm_get_cma(peer, local, len, raddr);
    }
    return loom_shm_get_pipelined(peer, local, len, raddr, &key, comp);
}

/* Owner side: queue the region a GET_REQ asks for. */
static void loom_shm_get_serve(loom_shm_peer_t *peer, const uint8_t *data, uint32_t len)
{
    loom_shm_get_req_t req;
    loom_shm_stream_t *s;

    if (len != sizeof(req) || peer->stream_count == LOOM_SHM_MAX_GETS) {
        loom_error("shm", "rank %d: malformed or excess get request from rank %d (%u bytes, "
                   "%u queued)", peer->iface->job->rank, peer->world_rank, len,
                   peer->stream_count);
        return;
    }
    memcpy(&req, data, sizeof(req));
    s = &peer->streams[(peer->stream_head + peer->stream_count) % LOOM_SHM_MAX_GETS];
    s->id     = req.id;
    s->status = LOOM_OK;
    s->addr   = (const uint8_t *)(uintptr_t)req.raddr;
    s->len    = req.len;
    s->sent   = 0;
    if (!loom_shm_memh_covers(peer->iface, req.memh_idx, req.memh_gen, req.raddr, req.len)) {
        /* never read what this rank does not expose: answer an error instead */
        loom_error("shm", "rank %d@%s: get request from rank %d@%s for %llu bytes at 0x%llx "
                   "is outside every exposed region (registry entry %u, generation %u) "
                   "(transport shm, operation get)", peer->iface->job->rank,
                   peer->iface->job->hostnames[peer->iface->job->rank], peer->world_rank,
                   peer->iface->job->hostnames[peer->world_rank], (unsigned long long)req.len,
                   (unsigned long long)req.raddr, req.memh_idx, req.memh_gen);
        s->status = LOOM_ERR_INVALID_ARG;
        s->len    = 0;
    }
    ++peer->stream_count;
    ++peer->iface->nstreams;
}

/* Requester side: the get in flight that frame id @p id answers, or NULL. */
static loom_shm_get_op_t *loom_shm_get_op(loom_shm_peer_t *peer, uint32_t id)
{
    uint32_t idx = id & ((1u << LOOM_SHM_GET_IDX_BITS) - 1);

    if (idx >= LOOM_SHM_MAX_GETS || (peer->gets_free >> idx & 1) ||
        id >> LOOM_SHM_GET_IDX_BITS != peer->gets[idx].gen) {
        return NULL;
    }
    return &peer->gets[idx];
}

/* Requester side: free the get's entry, then tell the engine. */
static void loom_shm_get_complete(loom_shm_peer_t *peer, loom_shm_get_op_t *op,
                                  loom_status_t status)
{
    loom_tl_comp_t *comp = op->comp;
    uint32_t idx = (uint32_t)(op - peer->gets);

    op->gen = (op->gen + 1) & ((1u << (32 - LOOM_SHM_GET_IDX_BITS)) - 1);
    peer->gets_free |= (uint64_t)1 << idx;
    --peer->iface->ngets;
    comp->cb(comp, status);
}

/* Requester side: place one chunk; complete the get at its last byte. */
static void loom_shm_get_data(loom_shm_peer_t *peer, const uint8_t *data, uint32_t len)
{
    loom_shm_get_data_t d = { 0 };
    loom_shm_get_op_t *op;
    size_t n;

    if (len >= sizeof(d)) {
        memcpy(&d, data, sizeof(d));
    }
    n  = len >= sizeof(d) ? len - sizeof(d) : 0;
    op = loom_shm_get_op(peer, d.id);
    if (len < sizeof(d) || op == NULL || d.offset > op->len ||
        n > op->len - d.offset) {
        loom_error("shm", "rank %d: unexpected get data from rank %d (id %u, offset %llu, "
                   "%zu bytes)", peer->iface->job->rank, peer->world_rank, d.id,
                   (unsigned long long)d.offset, n);
        return;
    }
    memcpy(op->local + d.offset, data + sizeof(d), n);
    op->received += n;
    if (op->received == op->len) {
        loom_shm_get_complete(peer, op, LOOM_OK);
    }
}

/* Requester side: the owner refused the get (it logged why). */
static void loom_shm_get_refused(loom_shm_peer_t *peer, const uint8_t *data, uint32_t len)
{
    loom_shm_get_err_t e = { 0 };
    loom_shm_get_op_t *op;

    if (len == sizeof(e)) {
        memcpy(&e, data, sizeof(e));
    }
    op = loom_shm_get_op(peer, e.id);
    if (len != sizeof(e) || op == NULL || e.status >= 0) {
        loom_error("shm", "rank %d: unexpected get error from rank %d (id %u)",
                   peer->iface->job->rank, peer->world_rank, e.id);
        return;
    }
    loom_shm_get_complete(peer, op, (loom_status_t)e.status);
}

void loom_shm_get_frame(loom_shm_peer_t *peer, uint32_t type, const uint8_t *data,
                        uint32_t len)
{
    switch (type) {
    case LOOM_SHM_FRAME_GET_REQ:
        loom_shm_get_serve(peer, data, len);
        break;
    case LOOM_SHM_FRAME_GET_DATA:
        loom_shm_get_data(peer, data, len);
        break;
    case LOOM_SHM_FRAME_GET_ERR:
        loom_shm_get_refused(peer, data, len);
        break;
    default:
        loom_error("shm", "rank %d: frame of unknown type %u from rank %d dropped",
                   peer->iface->job->rank, type, peer->world_rank);
        break;
    }
}

/* Send the next frame of stream @p s: a chunk, or the refusal. @return 1 if sent. */
static int loom_shm_get_push_frame(loom_shm_peer_t *peer, loom_shm_stream_t *s)
{
    const size_t chunk = peer->max_frame - sizeof(loom_shm_get_data_t);
    loom_shm_get_data_t d = { .id = s->id, .rsvd = 0, .offset = s->sent };
    size_t len = LOOM_MIN(chunk, s->len - s->sent);
    loom_shm_txd_t txd;

    if (loom_unlikely(s->status != LOOM_OK)) {
        loom_shm_get_err_t e = { .id = s->id, .status = s->status };
        return loom_shm_tx_send2(peer, LOOM_SHM_FRAME_GET_ERR, &e, sizeof(e), NULL, 0,
                                 "get") == LOOM_OK;
    }
    if (loom_shm_tx_reserve(peer, sizeof(d) + len, &txd, "get") != LOOM_OK) {
        return 0;
    }
    memcpy(txd.data, &d, sizeof(d));
    memcpy(txd.data + sizeof(d), s->addr + s->sent, len);
    loom_shm_tx_commit(peer, &txd, (uint32_t)(sizeof(d) + len), LOOM_SHM_FRAME_GET_DATA);
    s->sent += len;
    return 1;
}

/* Stream the head region to one peer while there is room. */
static int loom_shm_get_push_peer(loom_shm_peer_t *peer)
{
    int n = 0;

    while (peer->stream_count != 0 && !peer->failed) {
        loom_shm_stream_t *s = &peer->streams[peer->stream_head];

        if (!loom_shm_get_push_frame(peer, s)) {
            break;
        }
        ++n;
        if (s->sent == s->len) {
            peer->stream_head = (peer->stream_head + 1) % LOOM_SHM_MAX_GETS;
            --peer->stream_count;
            --peer->iface->nstreams;
        }
    }
    return n;
}

int loom_shm_get_push(loom_shm_iface_t *iface)
{
    int n = 0;

    for (int i = 0; i < iface->local_size - 1; ++i) {
        loom_shm_peer_t *peer = iface->poll[i];
        if (peer->stream_count != 0 && !peer->failed) {
            n += loom_shm_get_push_peer(peer);
        }
    }
    return n;
}

void loom_shm_get_abort(loom_shm_peer_t *peer, loom_status_t status)
{
    peer->iface->nstreams -= peer->stream_count;
    peer->stream_count = 0;
    for (uint32_t idx = 0; idx < LOOM_SHM_MAX_GETS; ++idx) {
        if (!(peer->gets_free >> idx & 1)) {
            loom_shm_get_complete(peer, &peer->gets[idx], status);
        }
    }
}
