/*
 * shm_iface.c: the shm transport's ops table: open/close, endpoints,
 * am_send, progress and peer-failure detection. get() is in shm_get.c, the
 * segment in shm_seg.c, the ring in shm_ring.h.
 */
#include "shm_int.h"
#include "shm_config_int.h"
#include "log_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define LOOM_SHM_ATTACH_BACKOFF  1024   /* progress calls between attach tries */
#define LOOM_SHM_CHECK_EVERY     1024   /* progress calls between clock reads */
#define LOOM_SHM_FULL_CHECK      4096   /* refused sends before a liveness check */
#define LOOM_SHM_RING_BYTES_MAX  ((uint64_t)1 << 30)   /* slots of one ring, in all */

static const char *loom_shm_host(const loom_shm_iface_t *iface, int rank)
{
    const char *h = iface->job->hostnames != NULL ? iface->job->hostnames[rank] : NULL;
    return h != NULL ? h : "?";
}

pid_t loom_shm_peer_pid(loom_shm_peer_t *peer)
{
    loom_shm_iface_t *iface = peer->iface;

    if (peer->pid == 0 && iface->seg != NULL) {
        loom_shm_seg_rank_t *r = &iface->seg->ranks[peer->local_idx];
        /* acquire: pairs with the peer's release of its state */
        if (atomic_load_explicit(&r->state, memory_order_acquire) != LOOM_SHM_RANK_NONE) {
            peer->pid = (pid_t)r->pid;
            if (r->pidns != iface->seg->ranks[iface->local_idx].pidns) {
                /* another pid namespace: its pid means nothing here, so no
                 * liveness checks and no CMA for it */
                loom_debug("shm", "rank %d: rank %d (pid %d) is in another pid namespace",
                           iface->job->rank, peer->world_rank, (int)peer->pid);
                peer->pid = -1;
            }
        }
    }
    return peer->pid;
}

void loom_shm_peer_fail(loom_shm_peer_t *peer, loom_status_t status, const char *op,
                        const char *why)
{
    loom_shm_iface_t *iface = peer->iface;
    const loom_tl_params_t *params = &iface->super.params;
    char what[256];

    if (peer->failed) {
        return;
    }
    peer->failed = 1;
    loom_error("shm", "rank %d@%s: peer rank %d@%s (pid %d) %s (transport shm, operation %s)",
               iface->job->rank, loom_shm_host(iface, iface->job->rank), peer->world_rank,
               loom_shm_host(iface, peer->world_rank), (int)loom_shm_peer_pid(peer), why, op);
    snprintf(what, sizeof(what), "shm %s: rank %d@%s %s", op, peer->world_rank,
             loom_shm_host(iface, peer->world_rank), why);
    loom_shm_get_abort(peer, status);
    if (params->err_cb != NULL) {
        params->err_cb(params->cb_arg, peer->world_rank, status, what);
    }
}

/* 1 if the peer's process is gone without having closed its transport. */
static int loom_shm_peer_dead(loom_shm_peer_t *peer)
{
    loom_shm_iface_t *iface = peer->iface;
    pid_t pid = loom_shm_peer_pid(peer);

    if (pid <= 0 || peer->failed) {
        return 0;
    }
    if (atomic_load_explicit(&iface->seg->ranks[peer->local_idx].state,
                             memory_order_acquire) == LOOM_SHM_RANK_CLOSED) {
        return 0;
    }
    return kill(pid, 0) != 0 && errno == ESRCH;
}

static void loom_shm_check_peers(loom_shm_iface_t *iface, const char *op)
{
    for (int i = 0; i < iface->local_size - 1; ++i) {
        loom_shm_peer_t *peer = iface->poll[i];
        if (loom_shm_peer_dead(peer)) {
            loom_shm_peer_fail(peer, LOOM_ERR_PEER_FAILED, op, "exited or was killed");
        }
    }
}

loom_status_t loom_shm_peer_backpressure(loom_shm_peer_t *peer, const char *op)
{
    if (peer->failed) {
        return LOOM_ERR_PEER_FAILED;
    }
    if (++peer->full_count % LOOM_SHM_FULL_CHECK == 0 && loom_shm_peer_dead(peer)) {
        loom_shm_peer_fail(peer, LOOM_ERR_PEER_FAILED, op,
                           "exited or was killed (its ring stayed full)");
        return LOOM_ERR_PEER_FAILED;
    }
    return LOOM_ERR_NO_RESOURCE;
}

/* About once a second (read from the coarse clock every N calls). */
static void loom_shm_liveness_tick(loom_shm_iface_t *iface)
{
    struct timespec now;

    if (++iface->check_count < LOOM_SHM_CHECK_EVERY) {
        return;
    }
    iface->check_count = 0;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    if (now.tv_sec > iface->last_check.tv_sec + 1 ||
        (now.tv_sec == iface->last_check.tv_sec + 1 &&
         now.tv_nsec >= iface->last_check.tv_nsec)) {
        iface->last_check = now;
        loom_shm_check_peers(iface, "progress");
    }
}

loom_status_t loom_shm_iface_attach(loom_shm_iface_t *iface, const char *op)
{
    loom_status_t status;

    if (iface->seg != NULL) {
        return LOOM_OK;
    }
    status = loom_shm_seg_attach(iface);
    if (status == LOOM_INPROGRESS) {
        loom_error("shm", "rank %d@%s: shared-memory segment %s does not exist at %s: the "
                   "lowest local rank (%d) has not opened the shm transport", iface->job->rank,
                   loom_shm_host(iface, iface->job->rank), iface->seg_name, op,
                   iface->job->local_peers[0]);
        status = LOOM_ERR_TRANSPORT;
    }
    return status;
}

static loom_status_t loom_shm_read_config(loom_shm_iface_t *iface)
{
    long long nslots    = loom_config_int(LOOM_SHM_CFG(RING_SLOTS));
    long long slot_size = loom_config_int(LOOM_SHM_CFG(SLOT_SIZE));
    const char *cma     = loom_config_str(LOOM_SHM_CFG(CMA));

    if (nslots < 0 || slot_size < 0 ||
        !loom_shm_ring_geometry_ok((uint64_t)nslots, (uint64_t)slot_size) ||
        (uint64_t)nslots * (uint64_t)slot_size > LOOM_SHM_RING_BYTES_MAX) {
        loom_error("shm", "LOOM_SHM_RING_SLOTS=%lld / LOOM_SHM_SLOT_SIZE=%lld: slots must be a "
                   "power of two in [2, 1M], the slot size a multiple of %d in [%u, %u], and "
                   "a ring at most %llu bytes", nslots, slot_size, LOOM_CACHE_LINE,
                   LOOM_SHM_SLOT_MIN, LOOM_SHM_SLOT_MAX,
                   (unsigned long long)LOOM_SHM_RING_BYTES_MAX);
        return LOOM_ERR_CONFIG;
    }
    iface->nslots    = (uint32_t)nslots;
    iface->slot_size = (uint32_t)slot_size;
    if (cma[0] == '\0' || strcasecmp(cma, "auto") == 0) {
        iface->cma_mode = LOOM_SHM_CMA_AUTO;
    } else if (strcasecmp(cma, "on") == 0) {
        iface->cma_mode = LOOM_SHM_CMA_ON;
    } else if (strcasecmp(cma, "off") == 0) {
        iface->cma_mode = LOOM_SHM_CMA_OFF;
    } else {
        loom_error("shm", "LOOM_SHM_CMA=%s: expected auto, on or off", cma);
        return LOOM_ERR_CONFIG;
    }
    return LOOM_OK;
}

/* Peers table, world->local map, and this rank's place among local ranks. */
static loom_status_t loom_shm_peers_init(loom_shm_iface_t *iface)
{
    const loom_bootstrap_info_t *job = iface->job;
    int n = 0;

    iface->local_of_rank = malloc((size_t)job->size * sizeof(int));
    iface->peers = calloc((size_t)job->local_size, sizeof(*iface->peers));
    iface->poll  = calloc((size_t)job->local_size, sizeof(*iface->poll));
    if (iface->local_of_rank == NULL || iface->peers == NULL || iface->poll == NULL) {
        loom_error("shm", "out of memory for %d local peers", job->local_size);
        return LOOM_ERR_NO_MEMORY;
    }
    for (int r = 0; r < job->size; ++r) {
        iface->local_of_rank[r] = -1;
    }
    iface->local_idx = -1;
    for (int i = 0; i < job->local_size; ++i) {
        loom_shm_peer_t *peer = &iface->peers[i];
        int rank = job->local_peers[i];

        iface->local_of_rank[rank] = i;
        peer->ep.iface   = &iface->super;
        peer->ep.peer    = rank;
        peer->iface      = iface;
        peer->world_rank = rank;
        peer->local_idx  = i;
        peer->max_frame  = loom_shm_ring_max_frame(iface->slot_size);
        peer->gets_free  = ~(uint64_t)0;
        if (rank == job->rank) {
            iface->local_idx = i;
        } else {
            iface->poll[n++] = peer;
        }
    }
    if (iface->local_idx < 0) {
        loom_error("shm", "rank %d is not among its node's local ranks", job->rank);
        return LOOM_ERR_INTERNAL;
    }
    return LOOM_OK;
}

static void loom_shm_iface_free(loom_shm_iface_t *iface)
{
    loom_shm_memh_cleanup(iface);
    free(iface->local_of_rank);
    free(iface->peers);
    free(iface->poll);
    free(iface);
}

static loom_status_t loom_shm_iface_open(const loom_tl_params_t *params,
                                         loom_tl_iface_t **iface_p)
{
    const loom_bootstrap_info_t *job = params->job;
    loom_shm_iface_t *iface;
    loom_status_t status;

    if (job->local_size < 2) {
        return LOOM_ERR_UNSUPPORTED;
    }
    if ((status = loom_config_register(&loom_shm_config)) != LOOM_OK) {
        return status;
    }
    iface = calloc(1, sizeof(*iface));
    if (iface == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    iface->job        = job;
    iface->local_size = job->local_size;
    iface->pid        = getpid();
    status = loom_shm_read_config(iface);
    if (status == LOOM_OK) {
        status = loom_shm_seg_name(job->jobid, loom_shm_host(iface, job->rank),
                                   iface->seg_name, sizeof(iface->seg_name));
    }
    if (status == LOOM_OK) {
        status = loom_shm_peers_init(iface);
    }
    if (status != LOOM_OK) {
        goto err_free;
    }
    if ((status = loom_shm_cma_init(iface)) != LOOM_OK) {
        goto err_free;
    }
    iface->creator = (iface->local_idx == 0);
    if (iface->creator && (status = loom_shm_seg_create(iface)) != LOOM_OK) {
        goto err_free;
    }
    clock_gettime(CLOCK_MONOTONIC_COARSE, &iface->last_check);
    loom_tl_iface_init(&iface->super, "shm", &loom_tl_shm_ops, params);
    *iface_p = &iface->super;
    return LOOM_OK;

err_free:
    loom_shm_iface_free(iface);
    return status;
}

static void loom_shm_iface_close(loom_tl_iface_t *tl)
{
    loom_shm_iface_t *iface = loom_container_of(tl, loom_shm_iface_t, super);

    loom_shm_seg_detach(iface);
    loom_shm_iface_free(iface);
}

static void loom_shm_iface_query(loom_tl_iface_t *tl, loom_tl_caps_t *caps_p)
{
    loom_shm_iface_t *iface = loom_container_of(tl, loom_shm_iface_t, super);
    size_t max_am = loom_shm_ring_max_frame(iface->slot_size);

    memset(caps_p, 0, sizeof(*caps_p));
    caps_p->max_am      = max_am;
    caps_p->max_inline  = max_am;   /* every frame is copied once into the ring */
    /* Everything that fits one frame (the engine takes its header off).
     * Measured here: a 4 KiB message costs 0.65 us eagerly and 2.5 us by
     * single-copy rendezvous (RTS, process_vm_readv, FIN), 2 KiB 0.35 vs
     * 2.0 us: the copy through the ring wins at every size a slot holds. */
    caps_p->eager_limit = max_am;
    caps_p->can_get     = 1;
    caps_p->can_mcast   = 0;
    caps_p->latency_ns  = 150;
}

static int loom_shm_iface_reachable(loom_tl_iface_t *tl, int peer)
{
    loom_shm_iface_t *iface = loom_container_of(tl, loom_shm_iface_t, super);

    return peer >= 0 && peer < iface->job->size && peer != iface->job->rank &&
           iface->local_of_rank[peer] >= 0;
}

static loom_status_t loom_shm_ep_create(loom_tl_iface_t *tl, int peer, loom_tl_ep_t **ep_p)
{
    loom_shm_iface_t *iface = loom_container_of(tl, loom_shm_iface_t, super);
    loom_status_t status;

    if (!loom_shm_iface_reachable(tl, peer)) {
        loom_error("shm", "rank %d@%s cannot reach rank %d through shared memory (not on "
                   "this node)", iface->job->rank, loom_shm_host(iface, iface->job->rank), peer);
        return LOOM_ERR_UNREACHABLE;
    }
    status = loom_shm_iface_attach(iface, "ep_create");
    if (status != LOOM_OK) {
        return status;
    }
    *ep_p = &iface->peers[iface->local_of_rank[peer]].ep;
    return LOOM_OK;
}

static void loom_shm_ep_destroy(loom_tl_ep_t *ep)
{
    (void)ep;   /* embedded in the peer table, freed by close */
}

/* am_send's everything-else: errors, back-pressure, frames copied with memcpy */
static __attribute__((noinline)) loom_status_t
loom_shm_ep_am_send_slow(loom_shm_peer_t *peer, const void *hdr, size_t hdr_len,
                         const void *payload, size_t payload_len)
{
    if (loom_unlikely(hdr_len + payload_len > peer->max_frame)) {
        loom_error("shm", "am_send of %zu bytes to rank %d exceeds max_am (%u)",
                   hdr_len + payload_len, peer->world_rank, peer->max_frame);
        return LOOM_ERR_INVALID_ARG;
    }
    if (loom_likely(!peer->failed &&
                    loom_shm_ring_tx_send2(&peer->tx, LOOM_SHM_FRAME_AM, hdr, hdr_len,
                                           payload, payload_len))) {
        peer->full_count = 0;
        return LOOM_OK;
    }
    return loom_shm_peer_backpressure(peer, "am_send");
}

/*
 * The latency path: a header and a payload of at most 32 bytes each (word
 * moves, no call; 64 bytes always fit a slot, LOOM_SHM_SLOT_SIZE >= 256)
 * to a live peer whose ring has room and was not full before.
 */
static loom_status_t loom_shm_ep_am_send(loom_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                         const void *payload, size_t payload_len)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);
    loom_shm_slot_t *slot;

    if (loom_likely(hdr_len <= 32 && payload_len <= 32 && !peer->failed &&
                    peer->full_count == 0 &&
                    (slot = loom_shm_ring_tx_reserve(&peer->tx)) != NULL)) {
        loom_copy_le32(slot->data, hdr, hdr_len);
        loom_copy_le32(slot->data + hdr_len, payload, payload_len);
        loom_shm_ring_tx_commit(&peer->tx, slot, (uint32_t)(hdr_len + payload_len),
                                LOOM_SHM_FRAME_AM);
        return LOOM_OK;
    }
    return loom_shm_ep_am_send_slow(peer, hdr, hdr_len, payload, payload_len);
}

/* Take up to a batch of frames from one peer's ring. */
static int loom_shm_peer_poll(loom_shm_peer_t *peer, const loom_tl_params_t *params)
{
    loom_shm_slot_t *slot;
    int n = 0;

    /* a failed peer's frames are not delivered: the engine was told it failed */
    while (n < LOOM_SHM_RX_BATCH && loom_likely(!peer->failed) &&
           (slot = loom_shm_ring_rx_peek(&peer->rx)) != NULL) {
        if (loom_unlikely(slot->len > peer->max_frame)) {
            /* only a peer scribbling on the segment writes this: trust nothing more from it */
            loom_shm_peer_fail(peer, LOOM_ERR_TRANSPORT, "progress",
                               "wrote a frame longer than a slot (corrupted segment)");
        } else if (loom_likely(slot->type == LOOM_SHM_FRAME_AM)) {
            params->am_cb(params->cb_arg, peer->world_rank, slot->data, slot->len);
        } else {
            loom_shm_get_frame(peer, slot);
        }
        loom_shm_ring_rx_release(&peer->rx);
        ++n;
    }
    return n;
}

/* Not attached yet: try now and then (the creator may not have opened). */
static int loom_shm_progress_attach(loom_shm_iface_t *iface)
{
    if (iface->attach_backoff > 0) {
        --iface->attach_backoff;
        return 0;
    }
    if (loom_shm_seg_attach(iface) == LOOM_INPROGRESS) {
        iface->attach_backoff = LOOM_SHM_ATTACH_BACKOFF;
    }
    return 0;
}

/* The full pass: deliver what the rings hold, push streams, liveness. */
static __attribute__((noinline)) int loom_shm_progress_full(loom_shm_iface_t *iface)
{
    const int npeers = iface->local_size - 1;
    uint32_t idx;
    int n = 0;

    if (loom_unlikely(iface->seg == NULL)) {
        return loom_shm_progress_attach(iface);
    }
    if (loom_unlikely(iface->in_progress)) {
        return 0;   /* called from an am callback: frames in use stay put */
    }
    iface->in_progress = 1;
    /* round-robin start, so a busy low-numbered peer cannot starve others */
    idx = iface->rr;
    iface->rr = (idx + 1 == (uint32_t)npeers) ? 0 : idx + 1;
    for (int i = 0; i < npeers; ++i) {
        n += loom_shm_peer_poll(iface->poll[idx], &iface->super.params);
        idx = (idx + 1 == (uint32_t)npeers) ? 0 : idx + 1;
    }
    if (iface->nstreams != 0) {
        n += loom_shm_get_push(iface);
    }
    loom_shm_liveness_tick(iface);
    iface->in_progress = 0;
    return n;
}

/*
 * Progress. The idle pass (every ring empty, nothing to stream) is the
 * loop a blocking call spins in, so it is kept to one load per peer ring
 * and a counter: the sooner a spinning rank sees the line its peer just
 * wrote, the lower the latency. Anything else takes the full pass.
 */
static int loom_shm_iface_progress(loom_tl_iface_t *tl)
{
    loom_shm_iface_t *iface = loom_container_of(tl, loom_shm_iface_t, super);
    loom_shm_peer_t *const *poll = iface->poll;
    const int npeers = iface->local_size - 1;

    if (loom_likely(iface->seg != NULL && iface->nstreams == 0)) {
        int i = 0;
        while (i < npeers && !loom_shm_ring_rx_ready(&poll[i]->rx)) {
            ++i;
        }
        if (i == npeers) {
            if (loom_likely(++iface->check_count < LOOM_SHM_CHECK_EVERY)) {
                return 0;
            }
            --iface->check_count;   /* the full pass counts it again */
        }
    }
    return loom_shm_progress_full(iface);
}

/*
 * am_peek: the peer's next frame, in place. Only an am frame of a sane
 * length is offered; a get frame, a corrupt length, a failed peer or a
 * progress pass under way (its frames stay put) leave it to progress.
 */
static const void *loom_shm_ep_am_peek(loom_tl_ep_t *ep, size_t *len_p)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);
    loom_shm_slot_t *slot;

    if (loom_unlikely(peer->rx.cur == NULL || peer->failed || peer->iface->in_progress)) {
        return NULL;   /* not attached yet, failed, or called from an am callback */
    }
    slot = loom_shm_ring_rx_peek(&peer->rx);
    if (slot == NULL ||
        loom_unlikely(slot->type != LOOM_SHM_FRAME_AM || slot->len > peer->max_frame)) {
        return NULL;
    }
    *len_p = slot->len;
    return slot->data;
}

static void loom_shm_ep_am_consume(loom_tl_ep_t *ep)
{
    loom_shm_ring_rx_release(&loom_container_of(ep, loom_shm_peer_t, ep)->rx);
}

const loom_tl_ops_t loom_tl_shm_ops = {
    .open        = loom_shm_iface_open,
    .query       = loom_shm_iface_query,
    .reachable   = loom_shm_iface_reachable,
    .ep_create   = loom_shm_ep_create,
    .ep_destroy  = loom_shm_ep_destroy,
    .am_send     = loom_shm_ep_am_send,
    .am_peek     = loom_shm_ep_am_peek,
    .am_consume  = loom_shm_ep_am_consume,
    .mem_pack    = loom_shm_mem_pack,
    .mem_release = loom_shm_mem_release,
    .get         = loom_shm_ep_get,
    .get_iov     = loom_shm_ep_get_iov,
    .progress    = loom_shm_iface_progress,
    .close       = loom_shm_iface_close,
};
