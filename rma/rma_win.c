/*
 * rma_win.c: window creation and destruction, queries, attach/detach.
 *
 * Every window duplicates its communicator (its active messages never meet
 * the user's traffic, and its fence is a barrier on that duplicate), and
 * allgathers every rank's size and disp unit so the origin checks ranges
 * and converts displacements to bytes itself. SHARED windows live in one
 * segment per host (rma_shm.c); so do ALLOCATE ones whose ranks are all on
 * one host and may use shm (LOOM_TRANSPORTS), with 64-byte aligned
 * pieces, so their put/get are memcpy; other ALLOCATE windows are zeroed,
 * 64-byte aligned heap memory; CREATE ones whose ranks share a host reach
 * each other's memory by process_vm_readv/writev when every rank can
 * (rma_cma.c); CREATE and ALLOCATE ones whose peers are served by a
 * transport with one-sided ops use RDMA (rma_ib.c); DYNAMIC ones keep a list of attached regions and take
 * absolute addresses as displacements (checked by the target).
 */
#include "rma_priv.h"
#include "log_int.h"

#include <stdlib.h>
#include <string.h>

static loom_status_t loom_rma_win_arrays(loom_rma_win_t *w)
{
    size_t n = (size_t)w->size;

    w->sizes     = calloc(n, sizeof(*w->sizes));
    w->units     = calloc(n, sizeof(*w->units));
    w->sent      = calloc(n, sizeof(*w->sent));
    w->done      = calloc(n, sizeof(*w->done));
    w->posts     = calloc(n, sizeof(*w->posts));
    w->completes = calloc(n, sizeof(*w->completes));
    w->deferred  = calloc(n, sizeof(*w->deferred));   /* all LOOM_OK (0) */
    w->lkst      = calloc(n, sizeof(*w->lkst));       /* all LOOM_RMA_LK_NONE */
    w->agg       = calloc(n, sizeof(*w->agg));        /* buffers on first use */
    w->waiters   = calloc(n, sizeof(*w->waiters));    /* a lock never waits for memory */
    w->zc_busy   = calloc(n, sizeof(*w->zc_busy));
    w->zc_gets   = calloc(n, sizeof(*w->zc_gets));
    if (!w->sizes || !w->units || !w->sent || !w->done || !w->posts || !w->completes ||
        !w->deferred || !w->lkst || !w->waiters || !w->agg || !w->zc_busy ||
        !w->zc_gets || loom_rma_zc_init(w) != LOOM_OK) {
        return LOOM_ERR_NO_MEMORY;
    }
    return loom_rma_epoch_init(&w->ep, w->size);
}

static void loom_rma_win_destroy(loom_rma_win_t *w)
{
    if (w->own_mem) {
        free(w->base);
    }
    free(w->sizes);
    free(w->units);
    free(w->sent);
    free(w->done);
    free(w->posts);
    free(w->completes);
    free(w->deferred);
    free(w->regions);
    free(w->waiters);
    free(w->lkst);
    free(w->zc_busy);
    free(w->zc_gets);
    loom_rma_zc_fini(w);
    loom_rma_am_spares_free(w);
    for (int r = 0; w->agg != NULL && r < w->size; ++r) {
        free(w->agg[r].buf);
    }
    free(w->agg);
    while (w->held != NULL) {   /* only if an origin broke the protocol */
        loom_rma_in_t *in = w->held;

        w->held = in->next;
        free(in);
    }
    while (w->in != NULL && w->in->req == NULL) {   /* frames kept by a failed creation */
        loom_rma_in_t *in = w->in;

        w->in = in->next;
        free(in);
    }
    free(w->post_ranks);
    free(w->start_ranks);
    loom_rma_epoch_fini(&w->ep);
    if (w->comm != LOOM_COMM_NULL) {
        loom_comm_free(&w->comm);
    }
    free(w);
}

/* every rank's size and disp unit (one allgather of pairs) */
static loom_status_t loom_rma_win_exchange(loom_rma_win_t *w)
{
    uint64_t mine[2] = { w->bytes, (uint64_t)w->disp_unit };
    uint64_t *all = malloc(2 * sizeof(uint64_t) * (size_t)w->size);
    loom_status_t st;

    if (all == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_allgather(mine, all, 2, LOOM_UINT64, w->comm);
    for (int r = 0; st == LOOM_OK && r < w->size; ++r) {
        w->sizes[r] = all[2 * r];
        w->units[r] = (int)all[2 * r + 1];
    }
    free(all);
    return st;
}

static loom_status_t loom_rma_win_memory(loom_rma_win_t *w, void *base)
{
    void *mem = NULL;

    switch (w->flavor) {
    case LOOM_RMA_FLAVOR_CREATE:
        w->base = base;
        return LOOM_OK;
    case LOOM_RMA_FLAVOR_ALLOCATE:
        if (w->direct) {
            return LOOM_OK;   /* a piece of the shared segment */
        }
        if (posix_memalign(&mem, 64, w->bytes ? w->bytes : 1) != 0) {
            loom_error("rma", "rank %d: allocating a window of %zu bytes failed", w->rank,
                       w->bytes);
            return LOOM_ERR_NO_MEMORY;
        }
        memset(mem, 0, w->bytes);
        w->base    = mem;
        w->own_mem = 1;
        return LOOM_OK;
    case LOOM_RMA_FLAVOR_DYNAMIC:
        w->base  = NULL;
        w->bytes = 0;
        return LOOM_OK;
    case LOOM_RMA_FLAVOR_SHARED:
        return LOOM_OK;   /* after the exchange (rma_shm.c) */
    }
    return LOOM_ERR_INVALID_ARG;
}

loom_status_t loom_rma_win_create(void *base, size_t size, int disp_unit,
                                  loom_rma_flavor_t flavor, const loom_rma_hints_t *hints,
                                  loom_comm_t comm, loom_rma_win_t **win_p)
{
    loom_rma_win_t *w;
    loom_status_t st;

    if (disp_unit <= 0) {
        return LOOM_RMA_ERR_DISP;
    }
    if ((w = calloc(1, sizeof(*w))) == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    w->flavor    = flavor;
    w->bytes     = size;
    w->disp_unit = disp_unit;
    w->excl      = -1;
    w->rops_tail = &w->rops;
    w->in_tail   = &w->in;
    w->held_tail = &w->held;
    if (hints != NULL) {
        w->hints = *hints;
    }
    st = loom_comm_dup(comm, &w->comm);
    if (st == LOOM_OK) {
        w->rank = loom_comm_rank(w->comm);
        w->size = loom_comm_size(w->comm);
        st = loom_rma_win_arrays(w);
    }
    if (st == LOOM_OK) {
        /* frames may come as soon as a peer's creation returned: taken from
         * now on, served once it is complete (rma_am.c) */
        loom_rma_am_register(w);
        st = loom_rma_win_exchange(w);
    }
    if (st == LOOM_OK &&
        (flavor == LOOM_RMA_FLAVOR_SHARED || flavor == LOOM_RMA_FLAVOR_ALLOCATE)) {
        st = loom_rma_shm_create(w, flavor == LOOM_RMA_FLAVOR_SHARED);
    }
    if (st == LOOM_OK) {
        st = loom_rma_win_memory(w, base);
    }
    if (st == LOOM_OK && flavor == LOOM_RMA_FLAVOR_CREATE) {
        st = loom_rma_cma_setup(w);   /* one host: process_vm_readv/writev (rma_cma.c) */
    }
    if (st == LOOM_OK) {
        st = loom_rma_rdma_setup(w);  /* other transports' one-sided ops (rma_ib.c) */
    }
    if (st != LOOM_OK) {
        loom_rma_am_unregister(w);   /* (not linked: nothing) */
        loom_rma_shm_free(w);
        loom_rma_cma_free(w);
        loom_rma_rdma_free(w);
        loom_rma_win_destroy(w);
        return st;
    }
    loom_rma_am_ready(w);
    *win_p = w;
    return LOOM_OK;
}

loom_status_t loom_rma_win_free(loom_rma_win_t *w)
{
    loom_status_t st = loom_rma_epoch_idle(&w->ep);

    if (st != LOOM_OK) {
        return st;
    }
    st = loom_rma_am_flush(w, -1);
    {
        /* always: the other ranks wait in it whatever our targets said */
        loom_status_t bst = loom_barrier(w->comm);  /* nobody targets us any more */

        st = st == LOOM_OK ? bst : st;
    }
    loom_rma_am_drain(w);
    loom_rma_am_unregister(w);
    loom_rma_shm_free(w);
    loom_rma_cma_free(w);
    loom_rma_rdma_free(w);
    loom_rma_win_destroy(w);
    return st;
}

loom_status_t loom_rma_win_idle(const loom_rma_win_t *w)
{
    return loom_rma_epoch_idle(&w->ep);
}

void *loom_rma_win_base(const loom_rma_win_t *w)
{
    return w->base;
}

size_t loom_rma_win_size(const loom_rma_win_t *w)
{
    return w->bytes;
}

int loom_rma_win_disp_unit(const loom_rma_win_t *w)
{
    return w->disp_unit;
}

loom_rma_flavor_t loom_rma_win_flavor(const loom_rma_win_t *w)
{
    return w->flavor;
}

loom_comm_t loom_rma_win_comm(const loom_rma_win_t *w)
{
    return w->comm;
}

loom_status_t loom_rma_win_shared_query(loom_rma_win_t *w, int rank, size_t *size_p,
                                        int *disp_unit_p, void **base_p)
{
    if (w->flavor != LOOM_RMA_FLAVOR_SHARED) {
        return LOOM_RMA_ERR_FLAVOR;   /* MPI-3.1; MPI-4.0 allows every flavor */
    }
    if (rank == LOOM_PROC_NULL) {
        for (rank = 0; rank < w->size - 1 && w->sizes[rank] == 0; ++rank) {
        }
    }
    if (rank < 0 || rank >= w->size) {
        return LOOM_ERR_INVALID_RANK;
    }
    *size_p      = w->sizes[rank];
    *disp_unit_p = w->units[rank];
    *base_p      = *size_p > 0 ? w->shm_base[rank] : NULL;   /* an empty piece: NULL */
    return LOOM_OK;
}

loom_status_t loom_rma_win_attach(loom_rma_win_t *w, void *base, size_t size)
{
    if (w->flavor != LOOM_RMA_FLAVOR_DYNAMIC) {
        return LOOM_RMA_ERR_FLAVOR;
    }
    if (base == NULL && size != 0) {
        return LOOM_RMA_ERR_ATTACH;
    }
    if (w->nregions == w->cap_regions) {
        int cap = w->cap_regions ? 2 * w->cap_regions : 4;
        loom_rma_region_t *r = realloc(w->regions, (size_t)cap * sizeof(*r));

        if (r == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        w->regions     = r;
        w->cap_regions = cap;
    }
    w->regions[w->nregions].base   = base;
    w->regions[w->nregions++].size = size;
    return LOOM_OK;
}

loom_status_t loom_rma_win_detach(loom_rma_win_t *w, const void *base)
{
    if (w->flavor != LOOM_RMA_FLAVOR_DYNAMIC) {
        return LOOM_RMA_ERR_FLAVOR;
    }
    for (int i = 0; i < w->nregions; ++i) {
        if (w->regions[i].base == base) {
            w->regions[i] = w->regions[--w->nregions];
            return LOOM_OK;
        }
    }
    return LOOM_RMA_ERR_ATTACH;
}
