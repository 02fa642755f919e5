/*
 * shm_seg.c: the node's shared segment: name, create, attach, detach.
 *
 * A freshly created segment is zero-filled by ftruncate, which is exactly
 * the formatted state of every region (FIFO cells free, fast boxes empty,
 * fragments free), so the creator only writes the header: it never
 * touches a page another rank may not use, and a page of the segment
 * takes memory only once some rank writes it (see shm_int.h).
 */
#include "shm_int.h"
#include "hash_int.h"
#include "log_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOOM_SHM_PAGE       4096u
#define LOOM_SHM_REGION_MAX ((uint64_t)1 << 30)   /* bytes of one rank's region */

loom_status_t loom_shm_seg_name(const char *jobid, const char *host, char *buf, size_t len)
{
    loom_status_t status = loom_bootstrap_shm_prefix_for(jobid, buf, len);
    size_t n, hl;
    int w;

    if (host == NULL || host[0] == '\0') {
        host = "?";
    }
    hl = strlen(host);
    if (hl > LOOM_SHM_HOST_CHARS) {
        hl = LOOM_SHM_HOST_CHARS;
    }
    /* prefix + "shm-" + host + "-" + 8 hex digits + NUL */
    if (status == LOOM_OK && (n = strlen(buf)) + 4 + hl + 1 + 8 + 1 <= len) {
        memcpy(buf + n, "shm-", 4);
        n += 4;
        for (size_t i = 0; i < hl; ++i) {
            char c = host[i];
            int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
            buf[n++] = ok ? c : '_';
        }
        /* FNV-1a: tells apart host names that the character rule maps alike */
        w = snprintf(buf + n, len - n, "-%08x",
                     (unsigned)loom_hash_fnv1a32(LOOM_HASH_FNV1A32_INIT, host, strlen(host)));
        if (w == 9) {
            return LOOM_OK;
        }
    }
    loom_error("shm", "job id '%s' and host '%s' give no valid shared-memory name within "
               "%zu bytes", jobid != NULL ? jobid : "(null)", host, len);
    return LOOM_ERR_INVALID_ARG;
}

uint64_t loom_shm_pidns(void)
{
    struct stat st;

    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static size_t loom_shm_seg_hdr_bytes(int local_size)
{
    return sizeof(loom_shm_seg_hdr_t) + (size_t)local_size * sizeof(loom_shm_seg_rank_t);
}

static uint64_t loom_shm_seg_region_offset(int local_size)
{
    return LOOM_ALIGN_UP((uint64_t)loom_shm_seg_hdr_bytes(local_size), LOOM_SHM_PAGE);
}

loom_status_t loom_shm_geom_init(loom_shm_geom_t *g)
{
    if (!loom_shm_ring_geometry_ok(g->fbox_slots, LOOM_SHM_SLOT_MIN) ||
        !loom_shm_ring_geometry_ok(g->fifo_slots, LOOM_SHM_SLOT_MIN) ||
        !loom_shm_ring_geometry_ok(2, g->frag_size) || g->nfrags == 0) {
        loom_error("shm", "LOOM_SHM_RING_SLOTS=%u / LOOM_SHM_SLOT_SIZE=%u: slots must be a "
                   "power of two in [2, 1M], the slot size a multiple of %d in [%u, %u] "
                   "(LOOM_SHM_FIFO_SLOTS=%u must be a power of two in [2, 1M] too, "
                   "LOOM_SHM_FRAGS=%u at least 1)", g->fbox_slots, g->frag_size,
                   LOOM_CACHE_LINE, LOOM_SHM_SLOT_MIN, LOOM_SHM_SLOT_MAX, g->fifo_slots,
                   g->nfrags);
        return LOOM_ERR_CONFIG;
    }
    g->fifo_off     = sizeof(loom_shm_region_hdr_t);
    g->fbox_off     = g->fifo_off + loom_shm_fifo_bytes(g->fifo_slots, LOOM_SHM_CELL);
    g->fbox_stride  = loom_shm_ring_bytes(g->fbox_slots, LOOM_SHM_CELL);
    g->frag_off     = LOOM_ALIGN_UP(g->fbox_off + (uint64_t)g->fbox_max * g->fbox_stride,
                                    (uint64_t)LOOM_SHM_PAGE);
    g->frag_stride  = sizeof(loom_shm_frag_hdr_t) + (uint64_t)g->frag_size;
    g->region_bytes = LOOM_ALIGN_UP(g->frag_off + (uint64_t)g->nfrags * g->frag_stride,
                                    (uint64_t)LOOM_SHM_PAGE);
    if (g->region_bytes > LOOM_SHM_REGION_MAX) {
        loom_error("shm", "LOOM_SHM_FRAGS=%u x LOOM_SHM_SLOT_SIZE=%u, LOOM_SHM_FIFO_SLOTS=%u "
                   "and LOOM_SHM_FBOX_MAX=%u x LOOM_SHM_RING_SLOTS=%u give %llu bytes per "
                   "rank: at most %llu", g->nfrags, g->frag_size, g->fifo_slots, g->fbox_max,
                   g->fbox_slots, (unsigned long long)g->region_bytes,
                   (unsigned long long)LOOM_SHM_REGION_MAX);
        return LOOM_ERR_CONFIG;
    }
    return LOOM_OK;
}

/* Bytes of the whole segment: header, rank table, one region per local rank. */
static uint64_t loom_shm_seg_bytes(const loom_shm_iface_t *iface)
{
    return loom_shm_seg_region_offset(iface->local_size) +
           (uint64_t)iface->local_size * iface->geom.region_bytes;
}

/* Hook this rank to its own FIFO and to every peer's region. */
static void loom_shm_seg_hook(loom_shm_iface_t *iface)
{
    const loom_shm_geom_t *g = &iface->geom;
    uint8_t *fifo;

    iface->region = loom_shm_seg_region(iface, iface->local_idx);
    fifo = iface->region + g->fifo_off;
    loom_shm_fifo_rx_init(&iface->fifo_rx, fifo, g->fifo_slots, LOOM_SHM_CELL);
    /* map our FIFO's cells into our page tables now (an add of 0 changes
     * nothing, and senders may already be using it): the receive path
     * takes no page faults; see shm_ring.h */
    for (uint32_t i = 0; i < g->fifo_slots; ++i) {
        loom_shm_slot_t *cell = loom_shm_fifo_cell(iface->fifo_rx.cells, i,
                                                   iface->fifo_rx.mask, LOOM_SHM_CELL);
        atomic_fetch_add_explicit(&cell->seq, 0, memory_order_relaxed);
    }
    for (int j = 0; j < iface->local_size; ++j) {
        loom_shm_peer_t *peer = &iface->peers[j];

        if (j == iface->local_idx) {
            continue;
        }
        peer->region = loom_shm_seg_region(iface, j);
        loom_shm_fifo_tx_init(&peer->fifo_tx, peer->region + g->fifo_off, g->fifo_slots,
                              LOOM_SHM_CELL);
    }
}

/* Register this rank in the mapped segment and hook the regions. */
static void loom_shm_seg_join(loom_shm_iface_t *iface)
{
    loom_shm_seg_hdr_t  *seg = iface->seg;
    loom_shm_seg_rank_t *me  = &seg->ranks[iface->local_idx];
    uint32_t n;

    loom_shm_seg_hook(iface);
    me->pid        = (int32_t)getpid();
    me->probe_addr = loom_shm_probe_addr();
    me->pidns      = loom_shm_pidns();
    /* release: pid and probe address are visible before the state */
    atomic_store_explicit(&me->state, LOOM_SHM_RANK_ATTACHED, memory_order_release);

    n = atomic_fetch_add_explicit(&seg->nattached, 1, memory_order_acq_rel) + 1;
    if (n == (uint32_t)iface->local_size) {
        /* every local rank has it mapped: the name is no longer needed */
        if (shm_unlink(iface->seg_name) != 0 && errno != ENOENT) {
            loom_warn("shm", "shm_unlink(%s) failed: %m", iface->seg_name);
        }
        iface->unlinked = 1;
    }
    loom_debug("shm", "segment %s mapped (%zu bytes, %u of %d local ranks attached)",
               iface->seg_name, iface->seg_size, n, iface->local_size);
}

static int loom_shm_seg_open_excl(const char *name)
{
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);

    if (fd < 0 && errno == EEXIST) {
        /* a job id is unique per launch: this is a leftover of a crash */
        loom_warn("shm", "removing stale shared-memory segment %s", name);
        if (shm_unlink(name) == 0 || errno == ENOENT) {
            fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        }
    }
    return fd;
}

loom_status_t loom_shm_seg_create(loom_shm_iface_t *iface)
{
    uint64_t size = loom_shm_seg_bytes(iface);
    loom_shm_seg_hdr_t *seg;
    loom_status_t status;
    int fd;

    fd = loom_shm_seg_open_excl(iface->seg_name);
    if (fd < 0) {
        loom_error("shm", "cannot create shared-memory segment %s: %m", iface->seg_name);
        return LOOM_ERR_IO;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        loom_error("shm", "cannot size shared-memory segment %s to %llu bytes: %m "
                   "(is /dev/shm large enough?)", iface->seg_name, (unsigned long long)size);
        status = LOOM_ERR_NO_MEMORY;
        goto err_unlink;
    }
    seg = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == MAP_FAILED) {
        loom_error("shm", "cannot map shared-memory segment %s (%llu bytes): %m",
                   iface->seg_name, (unsigned long long)size);
        status = LOOM_ERR_NO_MEMORY;
        goto err_unlink;
    }
    close(fd);

    seg->local_size    = (uint32_t)iface->local_size;
    seg->geom          = iface->geom;
    seg->region_offset = loom_shm_seg_region_offset(iface->local_size);
    seg->size          = size;
    /* release: the geometry is visible before the magic */
    atomic_store_explicit(&seg->magic, LOOM_SHM_MAGIC, memory_order_release);

    iface->seg      = seg;
    iface->seg_size = size;
    loom_shm_seg_join(iface);
    return LOOM_OK;

err_unlink:
    close(fd);
    shm_unlink(iface->seg_name);
    return status;
}

/* The mapped segment's geometry must be the one this rank computed. */
static loom_status_t loom_shm_seg_check(loom_shm_iface_t *iface, const loom_shm_seg_hdr_t *seg,
                                        uint64_t size)
{
    const loom_shm_geom_t *g = &iface->geom;

    if (seg->local_size != (uint32_t)iface->local_size || seg->size != size ||
        memcmp(&seg->geom, g, sizeof(*g)) != 0) {
        loom_error("shm", "segment %s has %u local ranks, %u fast-box slots, fragments of "
                   "%u bytes, but this rank expects %d, %u and %u: the LOOM_SHM_* sizes "
                   "(RING_SLOTS, SLOT_SIZE, FIFO_SLOTS, FRAGS, FBOX_MAX, FBOX_THRESHOLD) must "
                   "be the same on every rank", iface->seg_name, seg->local_size,
                   seg->geom.fbox_slots, seg->geom.frag_size, iface->local_size, g->fbox_slots,
                   g->frag_size);
        return LOOM_ERR_CONFIG;
    }
    return LOOM_OK;
}

loom_status_t loom_shm_seg_attach(loom_shm_iface_t *iface)
{
    uint64_t size = loom_shm_seg_bytes(iface);
    loom_shm_seg_hdr_t *seg;
    loom_status_t status;
    struct stat st;
    int fd;

    fd = shm_open(iface->seg_name, O_RDWR, 0);
    if (fd < 0) {
        if (errno == ENOENT) {
            return LOOM_INPROGRESS;
        }
        loom_error("shm", "cannot open shared-memory segment %s: %m", iface->seg_name);
        return LOOM_ERR_IO;
    }
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)loom_shm_seg_hdr_bytes(iface->local_size)) {
        close(fd);
        return LOOM_INPROGRESS;   /* the creator is between shm_open and ftruncate */
    }
    seg = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (seg == MAP_FAILED) {
        loom_error("shm", "cannot map shared-memory segment %s (%lld bytes): %m",
                   iface->seg_name, (long long)st.st_size);
        return LOOM_ERR_NO_MEMORY;
    }
    /* acquire: pairs with the creator's release of the magic */
    if (atomic_load_explicit(&seg->magic, memory_order_acquire) != LOOM_SHM_MAGIC) {
        munmap(seg, (size_t)st.st_size);
        return LOOM_INPROGRESS;
    }
    status = loom_shm_seg_check(iface, seg, (uint64_t)st.st_size);
    if (status != LOOM_OK) {
        munmap(seg, (size_t)st.st_size);
        return status;
    }
    iface->seg      = seg;
    iface->seg_size = size;
    loom_shm_seg_join(iface);
    return LOOM_OK;
}

void loom_shm_seg_detach(loom_shm_iface_t *iface)
{
    if (iface->seg != NULL) {
        /* release: peers that see CLOSED will not mistake our exit for a crash */
        atomic_store_explicit(&iface->seg->ranks[iface->local_idx].state,
                              LOOM_SHM_RANK_CLOSED, memory_order_release);
        munmap(iface->seg, iface->seg_size);
        iface->seg = NULL;
    }
    if (!iface->unlinked) {
        /* some local rank never attached: nobody else will remove the name */
        if (shm_unlink(iface->seg_name) != 0 && errno != ENOENT) {
            loom_warn("shm", "shm_unlink(%s) failed: %m", iface->seg_name);
        }
        iface->unlinked = 1;
    }
}
