/*
 * rma_shm.c: the shared segment of Win_allocate_shared.
 *
 * One segment per window (the ranks of a shared window are on one host:
 * checked, else LOOM_RMA_ERR_SHARED on every rank; an ALLOCATE window
 * whose ranks share a host uses one too, unless LOOM_TRANSPORTS leaves shm
 * out on any of its ranks (agreed with an allreduce), and falls back to heap memory when it cannot): a header (accumulate
 * lock, one lock word per rank) then every rank's piece, contiguous in
 * rank order as MPI's default asks (ALLOCATE: each piece 64-byte aligned). Named like the other segments of a job
 * ("/loom-<job>-rma-<context id>-<world rank of rank 0>", mode 0600);
 * rank 0 creates it, the others map it after a barrier, and rank 0
 * unlinks it after a second one, so nothing is left in /dev/shm even if
 * the job dies later. Every rank agrees on failure with an allreduce.
 *
 * loom_rma_win_fast hands the MPI binding a view of such a window (piece
 * addresses, sizes, disp units, the epoch's per-target answers, the
 * accumulate lock) for its inline put/get/accumulate/flush path.
 */
#include "rma_priv.h"
#include "bootstrap_int.h"
#include "p2p_config_int.h"
#include "log_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LOOM_RMA_SHM_ALIGN 64

static size_t loom_rma_shm_hdr_bytes(int size)
{
    size_t b = sizeof(loom_rma_shm_hdr_t) + (size_t)size * sizeof(atomic_int);

    return (b + LOOM_RMA_SHM_ALIGN - 1) & ~(size_t)(LOOM_RMA_SHM_ALIGN - 1);
}

static void loom_rma_shm_name(loom_rma_win_t *w, char *name, size_t len)
{
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    const char *job = info && info->jobid ? info->jobid : "nojob";

    snprintf(name, len, "/loom-%s-rma-%u-%d", job, w->comm->context_id,
             loom_comm_world_rank(w->comm, 0));
    for (char *c = name + 1; *c; ++c) {
        if (*c == '/') {
            *c = '_';
        }
    }
}

int loom_rma_shm_one_host(loom_rma_win_t *w)
{
    const char *me = loom_hostname(loom_rank());

    for (int r = 0; r < w->size; ++r) {
        const char *h = loom_hostname(loom_comm_world_rank(w->comm, r));

        if (me == NULL || h == NULL || strcmp(me, h) != 0) {
            return 0;
        }
    }
    return 1;
}

static void *loom_rma_shm_map(const char *name, size_t bytes, int create)
{
    int fd = shm_open(name, O_RDWR | (create ? O_CREAT | O_EXCL : 0), 0600);
    void *base;

    if (fd < 0 && create && errno == EEXIST) {   /* a killed job's leftover */
        shm_unlink(name);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd < 0) {
        loom_info("rma", "shm_open(%s): %m", name);
        return NULL;
    }
    if (create && (errno = posix_fallocate(fd, 0, (off_t)bytes)) != 0) {
        loom_info("rma", "reserving %zu bytes for %s: %m", bytes, name);
        close(fd);
        return NULL;
    }
    base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return base == MAP_FAILED ? NULL : base;
}

/* every rank's verdict: LOOM_OK only if all are fine */
static loom_status_t loom_rma_shm_agree(loom_rma_win_t *w, int bad)
{
    int32_t any = bad, all = 0;
    loom_status_t st = loom_allreduce(&any, &all, 1, LOOM_INT32, LOOM_MAX, w->comm);

    return st != LOOM_OK ? st : all ? LOOM_RMA_ERR_SHARED : LOOM_OK;
}

/* where rank @p r's piece starts, with every piece before it */
static size_t loom_rma_shm_offset(const loom_rma_win_t *w, int r)
{
    size_t off = loom_rma_shm_hdr_bytes(w->size);
    size_t align = w->flavor == LOOM_RMA_FLAVOR_SHARED ? 1 : LOOM_RMA_SHM_ALIGN;

    for (int q = 0; q < r; ++q) {
        off = (off + w->sizes[q] + align - 1) & ~(align - 1);
    }
    return off;
}

static loom_status_t loom_rma_shm_pieces(loom_rma_win_t *w)
{

    w->shm_base = calloc((size_t)w->size, sizeof(*w->shm_base));
    if (w->shm_base == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (int r = 0; r < w->size; ++r) {
        w->shm_base[r] = (char *)w->seg + loom_rma_shm_offset(w, r);
    }
    w->shm    = w->seg;
    w->base   = w->shm_base[w->rank];
    w->direct = 1;
    return LOOM_OK;
}

/* create (rank 0), map (all), unlink: w->seg of w->seg_bytes, or an error on every rank */
static loom_status_t loom_rma_shm_map_all(loom_rma_win_t *w)
{
    char name[128];
    loom_status_t st;

    loom_rma_shm_name(w, name, sizeof(name));
    if ((st = loom_rma_shm_agree(w, !loom_rma_shm_one_host(w))) != LOOM_OK) {
        return st;
    }
    if (w->rank == 0) {
        w->seg = loom_rma_shm_map(name, w->seg_bytes, 1);   /* zeroed by the kernel */
    }
    st = loom_rma_shm_agree(w, w->rank == 0 && w->seg == NULL);
    if (st == LOOM_OK && w->rank != 0) {
        w->seg = loom_rma_shm_map(name, w->seg_bytes, 0);
    }
    if (st == LOOM_OK) {
        st = loom_rma_shm_agree(w, w->seg == NULL);
    }
    if (w->rank == 0) {
        shm_unlink(name);
    }
    return st;
}

loom_status_t loom_rma_shm_create(loom_rma_win_t *w, int required)
{
    size_t total = loom_rma_shm_offset(w, w->size);
    loom_status_t st;

    if (!required && !loom_rma_shm_one_host(w)) {
        return LOOM_OK;   /* every rank sees the same hosts */
    }
    /* LOOM_TRANSPORTS may differ per rank: a segment only if every rank
     * allows shm, decided together (a rank that returned alone would leave
     * the others in map_all's allreduces) */
    if (!required && (st = loom_rma_shm_agree(w, !loom_p2p_transport_allowed("shm"))) !=
                     LOOM_OK) {
        return st == LOOM_RMA_ERR_SHARED ? LOOM_OK : st;   /* heap on every rank */
    }
    w->seg_bytes = (total + 4095) & ~(size_t)4095;
    st = loom_rma_shm_map_all(w);
    if (st == LOOM_OK) {
        st = loom_rma_shm_pieces(w);
    }
    if (st != LOOM_OK) {
        loom_rma_shm_free(w);
        w->direct = 0;
    }
    return st == LOOM_RMA_ERR_SHARED && !required ? LOOM_OK : st;   /* heap instead */
}

loom_status_t loom_rma_shm_create_hdr(loom_rma_win_t *w)
{
    loom_status_t st;

    w->seg_bytes = (loom_rma_shm_hdr_bytes(w->size) + 4095) & ~(size_t)4095;
    st = loom_rma_shm_map_all(w);
    if (st == LOOM_OK) {
        w->shm = w->seg;
        return LOOM_OK;
    }
    if (w->seg != NULL) {
        munmap(w->seg, w->seg_bytes);
        w->seg = NULL;
    }
    return st == LOOM_RMA_ERR_SHARED ? LOOM_OK : st;   /* active messages instead */
}

void loom_rma_shm_free(loom_rma_win_t *w)
{
    if (w->seg == NULL) {
        return;   /* heap or user memory: rma_win.c's */
    }
    munmap(w->seg, w->seg_bytes);
    w->seg = NULL;
    w->shm = NULL;
    if (w->cma) {
        return;   /* a header-only segment: base is the user's memory */
    }
    w->base = NULL;
    free(w->shm_base);
    w->shm_base = NULL;
}

void loom_rma_shm_lock(loom_rma_win_t *w, int target, int type)
{
    atomic_int *lw = &w->shm->lockw[target];

    for (;;) {
        int v = atomic_load_explicit(lw, memory_order_relaxed);

        if (type == LOOM_RMA_LOCK_EXCLUSIVE ? v == 0 : v >= 0) {
            int nv = type == LOOM_RMA_LOCK_EXCLUSIVE ? -1 : v + 1;

            if (atomic_compare_exchange_weak_explicit(lw, &v, nv, memory_order_acquire,
                                                      memory_order_relaxed)) {
                return;
            }
            continue;
        }
        loom_progress();   /* serve others while the holder works */
    }
}

void loom_rma_shm_unlock(loom_rma_win_t *w, int target)
{
    atomic_int *lw = &w->shm->lockw[target];

    if (atomic_load_explicit(lw, memory_order_relaxed) < 0) {
        atomic_store_explicit(lw, 0, memory_order_release);
    } else {
        atomic_fetch_sub_explicit(lw, 1, memory_order_release);
    }
}

void loom_rma_win_fast(loom_rma_win_t *w, loom_rma_fast_t *f)
{
    memset(f, 0, sizeof(*f));
    if (!w->direct) {
        return;   /* heap, user or attached memory: the general calls */
    }
    f->base     = w->shm_base;
    f->sizes    = w->sizes;
    f->units    = w->units;
    f->access   = w->ep.ok;
    f->acc_lock = &w->shm->acc_lock;
    f->size     = w->size;
}
