/*
 * shm_iface.c: the shm transport's ops table: open/close, endpoints, the
 * receiving side (progress over this rank's FIFO and the fast boxes it was
 * told of, am_peek) and peer-failure detection. Sending is in shm_send.c,
 * get() in shm_get.c, the segment in shm_seg.c, the FIFO in shm_fifo.h and
 * the ring (a fast box) in shm_ring.h.
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
#define LOOM_SHM_HOLE_TICKS      3      /* liveness checks before an unidentified hole is warned of */

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
    ++iface->nfailed;
    loom_error("shm", "rank %d@%s: peer rank %d@%s (pid %d) %s (transport shm, operation %s)",
               iface->job->rank, loom_shm_host(iface, iface->job->rank), peer->world_rank,
               loom_shm_host(iface, peer->world_rank), (int)loom_shm_peer_pid(peer), why, op);
    snprintf(what, sizeof(what), "shm %s: rank %d@%s %s", op, peer->world_rank,
             loom_shm_host(iface, peer->world_rank), why);
    loom_shm_get_abort(peer, status);
    loom_shm_frag_reclaim_peer(iface, peer->local_idx);
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
                           "exited or was killed (sends to it stayed refused)");
        return LOOM_ERR_PEER_FAILED;
    }
    return LOOM_ERR_NO_RESOURCE;
}

/* 1 if the process of local rank @p idx is gone (its pid says ESRCH). */
static int loom_shm_claimer_gone(loom_shm_iface_t *iface, int idx)
{
    pid_t pid;

    if (idx < 0 || idx >= iface->local_size || idx == iface->local_idx) {
        return 0;
    }
    pid = loom_shm_peer_pid(&iface->peers[idx]);
    return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

/*
 * Once a peer failed, a FIFO cell claimed but unpublished (the head is
 * past it, its seq still says free) is skipped if, and only if, its
 * claimer (stored in the cell at claim, shm_fifo.h) is a process that is
 * gone: it cannot publish late, so the survivors' frames behind it flow
 * again and no cell is ever written after it was handed to the next lap.
 * A claimer alive but stalled is waited for, however long. A hole whose
 * claimer never stored its identity (killed right after its claim CAS) is
 * not skipped: warned about once, after LOOM_SHM_HOLE_TICKS checks.
 */
static void loom_shm_fifo_unblock(loom_shm_iface_t *iface)
{
    loom_shm_fifo_rx_t *rx = &iface->fifo_rx;
    loom_shm_fifo_ctl_t *ctl = (loom_shm_fifo_ctl_t *)(iface->region + iface->geom.fifo_off);
    int who;

    if (iface->nfailed == 0 ||
        (who = loom_shm_fifo_rx_hole(rx, atomic_load_explicit(&ctl->head,
                                                              memory_order_relaxed))) < 0) {
        iface->hole_ticks = 0;
        return;
    }
    if (iface->hole_pos != rx->pos) {
        iface->hole_pos   = rx->pos;
        iface->hole_ticks = 0;
    }
    if (who > 0 && loom_shm_claimer_gone(iface, who - 1)) {
        loom_warn("shm", "rank %d: receive FIFO cell %llu was claimed by rank %d, which died "
                  "before filling it: skipped", iface->job->rank, (unsigned long long)rx->pos,
                  iface->peers[who - 1].world_rank);
        loom_shm_fifo_rx_release(rx);
        iface->hole_ticks = 0;
        return;
    }
    if (++iface->hole_ticks == LOOM_SHM_HOLE_TICKS && who == 0) {
        loom_warn("shm", "rank %d: receive FIFO blocked at cell %llu, claimed by a rank that "
                  "has not said who it is (killed right after its claim, or stopped): frames "
                  "behind it wait", iface->job->rank, (unsigned long long)rx->pos);
    }
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
        loom_shm_fifo_unblock(iface);
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

static loom_status_t loom_shm_read_cma(loom_shm_iface_t *iface)
{
    const char *cma = loom_config_str(LOOM_SHM_CFG(CMA));

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

/* A setting known to be in [0, UINT32_MAX] by its declared range. */
static uint32_t loom_shm_cfg_u32(loom_config_var_t *var)
{
    long long v = loom_config_int(var);
    return v < 0 ? 0 : (uint32_t)v;
}

static loom_status_t loom_shm_read_config(loom_shm_iface_t *iface)
{
    loom_shm_geom_t *g = &iface->geom;

    memset(g, 0, sizeof(*g));
    g->fbox_slots     = loom_shm_cfg_u32(LOOM_SHM_CFG(RING_SLOTS));
    g->frag_size      = loom_shm_cfg_u32(LOOM_SHM_CFG(SLOT_SIZE));
    g->fifo_slots     = loom_shm_cfg_u32(LOOM_SHM_CFG(FIFO_SLOTS));
    g->nfrags         = loom_shm_cfg_u32(LOOM_SHM_CFG(FRAGS));
    g->fbox_max       = loom_shm_cfg_u32(LOOM_SHM_CFG(FBOX_MAX));
    g->fbox_threshold = loom_shm_cfg_u32(LOOM_SHM_CFG(FBOX_THRESHOLD));
    if (g->fbox_max == 0) {
        g->fbox_threshold = 0;   /* no boxes at all */
    }
    if (loom_shm_geom_init(g) != LOOM_OK) {
        return LOOM_ERR_CONFIG;
    }
    return loom_shm_read_cma(iface);
}

/* Peers table, world->local map, and this rank's place among local ranks. */
static loom_status_t loom_shm_peers_init(loom_shm_iface_t *iface)
{
    const loom_bootstrap_info_t *job = iface->job;
    int n = 0;

    iface->local_of_rank = malloc((size_t)job->size * sizeof(int));
    iface->peers = calloc((size_t)job->local_size, sizeof(*iface->peers));
    iface->poll  = calloc((size_t)job->local_size, sizeof(*iface->poll));
    iface->boxes = calloc((size_t)iface->geom.fbox_max + 1, sizeof(*iface->boxes));
    if (iface->local_of_rank == NULL || iface->peers == NULL || iface->poll == NULL ||
        iface->boxes == NULL) {
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
        peer->max_frame  = iface->geom.frag_size;
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
    free(iface->boxes);
    free(iface->frag_free);
    free(iface->frag_out);
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
    if (job->local_size > UINT16_MAX) {
        /* a FIFO cell names its sender in 16 bits */
        loom_warn("shm", "%d local ranks: the shm transport serves at most %d", job->local_size,
                  UINT16_MAX);
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
    if (status == LOOM_OK) {
        status = loom_shm_frag_init(iface);
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
    size_t max_am = iface->geom.frag_size;

    memset(caps_p, 0, sizeof(*caps_p));
    caps_p->max_am      = max_am;
    caps_p->max_inline  = max_am;   /* every frame is copied once, into a cell or fragment */
    /* Everything that fits one frame (the engine takes its header off).
     * Measured here: a 4 KiB message costs 0.65 us eagerly and 2.5 us by
     * single-copy rendezvous (RTS, process_vm_readv, FIN), 2 KiB 0.35 vs
     * 2.0 us: the copy through shared memory wins at every size a
     * fragment holds. */
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

/*
 * 1 if a fast-box frame's span word is the one its producer writes: 1 for
 * a fragment's cell; for a frame held in the cells, the count its length
 * takes (at most LOOM_SHM_BOX_INLINE bytes). Any other count, even one in
 * range, would make the release skip (and zero) the cells of the frames
 * after it, which would then be lost without a word.
 */
static inline int loom_shm_box_span_ok(const loom_shm_slot_t *slot)
{
    if (slot->type & LOOM_SHM_FRAME_FRAG) {
        return slot->rsvd == 1;
    }
    return slot->len <= LOOM_SHM_BOX_INLINE &&
           slot->rsvd == loom_shm_ring_span_of(slot->len, LOOM_SHM_CELL);
}

/*
 * The bytes of a frame: in its cell (cells, in a fast box: @p in_box), or
 * in the sender's fragment (*frag_p). NULL if corrupt.
 */
static const uint8_t *loom_shm_frame_data(loom_shm_peer_t *peer, const loom_shm_slot_t *slot,
                                          int in_box, loom_shm_frag_hdr_t **frag_p)
{
    loom_shm_iface_t *iface = peer->iface;
    uint32_t idx;

    *frag_p = NULL;
    if (in_box && loom_unlikely(!loom_shm_box_span_ok(slot))) {
        return NULL;
    }
    if (!(slot->type & LOOM_SHM_FRAME_FRAG)) {   /* a box frame's length: checked above */
        return in_box || slot->len <= LOOM_SHM_INLINE ? slot->data : NULL;
    }
    memcpy(&idx, slot->data, sizeof(idx));
    if (idx >= iface->geom.nfrags || slot->len > iface->geom.frag_size) {
        return NULL;
    }
    *frag_p = loom_shm_frag(iface, peer->local_idx, idx);
    return (const uint8_t *)(*frag_p + 1);
}

/* Hand a fragment back to its sender. */
static void loom_shm_frag_return(loom_shm_frag_hdr_t *frag)
{
    if (frag != NULL) {
        /* release: our reads of the fragment are done before the sender reuses it */
        atomic_store_explicit(&frag->busy, 0, memory_order_release);
    }
}

/* The peer announced its fast box: poll it from now on (its later frames are there). */
static void loom_shm_fbox_accept(loom_shm_peer_t *peer, const uint8_t *data, uint32_t len)
{
    loom_shm_iface_t *iface = peer->iface;
    uint32_t idx = UINT32_MAX;
    uint8_t *box;

    if (len == sizeof(idx)) {
        memcpy(&idx, data, sizeof(idx));
    }
    if (idx >= iface->geom.fbox_max || peer->fbox_rx.cur != NULL ||
        iface->nboxes >= iface->geom.fbox_max) {
        loom_shm_peer_fail(peer, LOOM_ERR_TRANSPORT, "progress",
                           "announced an invalid fast box (corrupted segment)");
        return;
    }
    box = iface->region + iface->geom.fbox_off + (uint64_t)idx * iface->geom.fbox_stride;
    loom_shm_ring_rx_init(&peer->fbox_rx, box, iface->geom.fbox_slots, LOOM_SHM_CELL);
    loom_shm_ring_prefault(box, iface->geom.fbox_slots, LOOM_SHM_CELL);   /* map it here too */
    iface->boxes[iface->nboxes++] = peer;
    loom_debug("shm", "rank %d: rank %d sends through fast box %u from now on",
               iface->job->rank, peer->world_rank, idx);
}

/* Deliver one frame from a live peer, and hand its fragment back. */
static void loom_shm_deliver(loom_shm_peer_t *peer, const loom_shm_slot_t *slot, int in_box,
                             const loom_tl_params_t *params)
{
    loom_shm_frag_hdr_t *frag;
    const uint8_t *data = loom_shm_frame_data(peer, slot, in_box, &frag);
    uint32_t type = slot->type & LOOM_SHM_FRAME_TYPE;

    if (loom_unlikely(data == NULL)) {
        /* only a peer scribbling on the segment writes this: trust nothing more from it */
        loom_shm_peer_fail(peer, LOOM_ERR_TRANSPORT, "progress",
                           "wrote a frame longer than a cell or fragment, or with a wrong "
                           "span word (corrupted segment)");
        return;
    }
    if (loom_likely(type == LOOM_SHM_FRAME_AM)) {
        params->am_cb(params->cb_arg, peer->world_rank, data, slot->len);
    } else if (type == LOOM_SHM_FRAME_FBOX) {
        loom_shm_fbox_accept(peer, data, slot->len);
    } else {
        loom_shm_get_frame(peer, type, data, slot->len);
    }
    loom_shm_frag_return(frag);
}

/* Take up to a batch of frames from this rank's FIFO. */
static int loom_shm_fifo_poll(loom_shm_iface_t *iface, const loom_tl_params_t *params)
{
    loom_shm_slot_t *slot;
    int n = 0;

    while (n < LOOM_SHM_RX_BATCH && (slot = loom_shm_fifo_rx_peek(&iface->fifo_rx)) != NULL) {
        uint32_t src = loom_shm_fifo_src(slot);

        if (loom_likely(src < (uint32_t)iface->local_size && src != (uint32_t)iface->local_idx)) {
            /* a failed peer's frames are not delivered: the engine was told it failed */
            if (loom_likely(!iface->peers[src].failed)) {
                loom_shm_deliver(&iface->peers[src], slot, 0, params);
            }
        } else {
            loom_error("shm", "rank %d: frame from local rank %u in its FIFO dropped (only "
                       "%d local ranks: corrupted segment)", iface->job->rank, src,
                       iface->local_size);
        }
        loom_shm_fifo_rx_release(&iface->fifo_rx);
        ++n;
    }
    return n;
}

/* Take up to a batch of frames from one peer's fast box. */
static int loom_shm_box_poll(loom_shm_peer_t *peer, const loom_tl_params_t *params)
{
    loom_shm_slot_t *slot;
    int n = 0;

    while (n < LOOM_SHM_RX_BATCH && loom_likely(!peer->failed) &&
           (slot = loom_shm_ring_rx_peek(&peer->fbox_rx)) != NULL) {
        loom_shm_deliver(peer, slot, 1, params);
        loom_shm_ring_rx_release(&peer->fbox_rx);
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

/* The full pass: deliver what the FIFO and boxes hold, push streams, liveness. */
static __attribute__((noinline)) int loom_shm_progress_full(loom_shm_iface_t *iface)
{
    const loom_tl_params_t *params = &iface->super.params;
    uint32_t idx;
    int n = 0;

    if (loom_unlikely(iface->seg == NULL)) {
        return loom_shm_progress_attach(iface);
    }
    if (loom_unlikely(iface->in_progress)) {
        return 0;   /* called from an am callback: frames in use stay put */
    }
    iface->in_progress = 1;
    n += loom_shm_fifo_poll(iface, params);
    /* round-robin start, so a busy box cannot starve the others */
    if (iface->nboxes != 0) {
        idx = iface->box_rr < iface->nboxes ? iface->box_rr : 0;
        iface->box_rr = idx + 1;
        for (uint32_t i = 0; i < iface->nboxes; ++i) {
            n += loom_shm_box_poll(iface->boxes[idx], params);
            idx = (idx + 1 == iface->nboxes) ? 0 : idx + 1;
        }
    }
    if (iface->nstreams != 0) {
        n += loom_shm_get_push(iface);
    }
    loom_shm_liveness_tick(iface);
    iface->in_progress = 0;
    return n;
}

/*
 * Progress. The idle pass (FIFO and boxes empty, nothing to stream) is the
 * loop a blocking call spins in, so it is kept to one load for the FIFO,
 * one per open box, and a counter: the sooner a spinning rank sees the line
 * its peer just wrote, the lower the latency. Anything else takes the full
 * pass.
 */
static int loom_shm_iface_progress(loom_tl_iface_t *tl)
{
    loom_shm_iface_t *iface = loom_container_of(tl, loom_shm_iface_t, super);

    if (loom_likely(iface->seg != NULL && iface->nstreams == 0) &&
        !loom_shm_fifo_rx_ready(&iface->fifo_rx)) {
        loom_shm_peer_t *const *boxes = iface->boxes;
        const uint32_t nboxes = iface->nboxes;
        uint32_t i = 0;

        while (i < nboxes && !loom_shm_ring_rx_ready(&boxes[i]->fbox_rx)) {
            ++i;
        }
        if (i == nboxes) {
            if (loom_likely(++iface->check_count < LOOM_SHM_CHECK_EVERY)) {
                return 0;
            }
            --iface->check_count;   /* the full pass counts it again */
        }
    }
    return loom_shm_progress_full(iface);
}

/*
 * am_peek: the peer's next frame, in place: at the head of its fast box,
 * or at the head of our FIFO if the peer has no box and the head is its.
 * Only an am frame of a sane length is offered; anything else, a failed
 * peer or a progress pass under way (its frames stay put) leave it to
 * progress.
 */
static const void *loom_shm_ep_am_peek(loom_tl_ep_t *ep, size_t *len_p)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);
    loom_shm_iface_t *iface = peer->iface;
    loom_shm_frag_hdr_t *frag;
    loom_shm_slot_t *slot;
    const uint8_t *data;

    if (loom_unlikely(iface->seg == NULL || peer->failed || iface->in_progress)) {
        return NULL;   /* not attached yet, failed, or called from an am callback */
    }
    if (peer->fbox_rx.cur != NULL) {
        slot = loom_shm_ring_rx_peek(&peer->fbox_rx);
        peer->peek_fifo = 0;
    } else {
        slot = loom_shm_fifo_rx_peek(&iface->fifo_rx);
        if (slot != NULL && loom_shm_fifo_src(slot) != (uint32_t)peer->local_idx) {
            slot = NULL;   /* another peer's frame comes first */
        }
        peer->peek_fifo = 1;
    }
    if (slot == NULL || (slot->type & LOOM_SHM_FRAME_TYPE) != LOOM_SHM_FRAME_AM ||
        loom_unlikely((data = loom_shm_frame_data(peer, slot, !peer->peek_fifo, &frag)) ==
                      NULL)) {
        return NULL;
    }
    peer->peek_frag = frag;
    *len_p = slot->len;
    return data;
}

static void loom_shm_ep_am_consume(loom_tl_ep_t *ep)
{
    loom_shm_peer_t *peer = loom_container_of(ep, loom_shm_peer_t, ep);

    loom_shm_frag_return(peer->peek_frag);
    peer->peek_frag = NULL;
    if (peer->peek_fifo) {
        loom_shm_fifo_rx_release(&peer->iface->fifo_rx);
    } else {
        loom_shm_ring_rx_release(&peer->fbox_rx);
    }
}

const loom_tl_ops_t loom_tl_shm_ops = {
    .open        = loom_shm_iface_open,
    .query       = loom_shm_iface_query,
    .reachable   = loom_shm_iface_reachable,
    .ep_create   = loom_shm_ep_create,
    .ep_destroy  = loom_shm_ep_destroy,
    .am_send     = loom_shm_ep_am_send,
    .am_send_pack = loom_shm_ep_am_send_pack,
    .am_peek     = loom_shm_ep_am_peek,
    .am_consume  = loom_shm_ep_am_consume,
    .mem_pack    = loom_shm_mem_pack,
    .mem_release = loom_shm_mem_release,
    .get         = loom_shm_ep_get,
    .get_iov     = loom_shm_ep_get_iov,
    .get_riov    = loom_shm_ep_get_riov,
    .progress    = loom_shm_iface_progress,
    .close       = loom_shm_iface_close,
};
