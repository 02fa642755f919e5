/*
 * mpi_bsend.c: buffered mode (MPI_Buffer_attach/detach, MPI_Bsend,
 * MPI_Ibsend; MPI_Bsend_init starts through loom_mpi_bsend_try).
 *
 * A buffered send copies the message into the attached buffer and starts
 * an ordinary loom send from the copy; the user's call then completes at
 * once (an MPI_Ibsend returns a request that is already complete). Each
 * message takes a block of its packed size + MPI_BSEND_OVERHEAD (64)
 * bytes: the overhead holds the block's header (its length, the next
 * block, the send request), so the buffer's bookkeeping lives in the
 * buffer itself, as MPI intends, and nothing is allocated per message.
 * Blocks are kept in address order; a new one goes into the first gap
 * large enough (first fit). A block is freed once its send completed:
 * lazily, when a later buffered send needs room (each live send is tested
 * then) and at detach, which waits for every one. Headers are read and
 * written with memcpy, so the user's buffer needs no alignment. A padded
 * value+index pair (MPI_DOUBLE_INT & co., mpi_int.h) is packed into its
 * block as its data (12 bytes per MPI_DOUBLE_INT, what MPI_Pack_size
 * counts), as MPI_Bsend packs it: MPI_Bsend_init's start takes this path.
 *
 * MPI_THREAD_MULTIPLE: a walk of the block list tests sends, and a test
 * runs a progress pass, which may let another thread's buffered send in;
 * the list would change under the walk (and a block whose request is not
 * yet stored would look free). So a buffered send and a reclaiming walk
 * are pinned (loom_mt_pin: no yield inside); detach waits between walks,
 * unpinned, so other threads' calls can still complete its sends.
 */
#include "mpi_p2pext_int.h"
#include "dt_int.h"
#include "mt_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define LOOM_MPI_BSEND_END SIZE_MAX

typedef struct loom_mpi_bsend_hdr {
    size_t         len;    /* bytes of the block: packed size + MPI_BSEND_OVERHEAD */
    size_t         next;   /* offset of the next live block, or LOOM_MPI_BSEND_END */
    loom_request_t req;    /* the send from the block (LOOM_REQUEST_NULL once done) */
} loom_mpi_bsend_hdr_t;

_Static_assert(sizeof(loom_mpi_bsend_hdr_t) <= MPI_BSEND_OVERHEAD,
               "the block header must fit in MPI_BSEND_OVERHEAD");

static struct {
    int    attached;
    char  *base;
    size_t size;
    size_t first;      /* first live block */
    size_t live;
} loom_mpi_bbuf = { 0, NULL, 0, LOOM_MPI_BSEND_END, 0 };

static loom_mpi_bsend_hdr_t loom_mpi_bsend_get(size_t off)
{
    loom_mpi_bsend_hdr_t h;

    memcpy(&h, loom_mpi_bbuf.base + off, sizeof(h));
    return h;
}

static void loom_mpi_bsend_put(size_t off, const loom_mpi_bsend_hdr_t *h)
{
    memcpy(loom_mpi_bbuf.base + off, h, sizeof(*h));
}

/* Unlink every block whose send completed (pinned: no other thread gets in). */
static void loom_mpi_bsend_reclaim_pass(void)
{
    size_t *link = &loom_mpi_bbuf.first, prev = LOOM_MPI_BSEND_END;

    loom_mt_pin();
    for (size_t off = loom_mpi_bbuf.first; off != LOOM_MPI_BSEND_END;) {
        loom_mpi_bsend_hdr_t h = loom_mpi_bsend_get(off);
        int flag = 1;

        if (h.req != LOOM_REQUEST_NULL) {
            loom_test(&h.req, &flag, LOOM_STATUS_IGNORE);
            if (h.req == LOOM_REQUEST_NULL) {
                loom_mpi_bsend_put(off, &h);
            }
        }
        if (h.req == LOOM_REQUEST_NULL) {
            /* unlink: the previous block (or the list head) skips this one */
            if (prev == LOOM_MPI_BSEND_END) {
                *link = h.next;
            } else {
                loom_mpi_bsend_hdr_t p = loom_mpi_bsend_get(prev);
                p.next = h.next;
                loom_mpi_bsend_put(prev, &p);
            }
            --loom_mpi_bbuf.live;
        } else {
            prev = off;
        }
        off = h.next;
    }
    loom_mt_unpin();
}

/* Unlink every block whose send completed (@p wait: until every one did). */
static void loom_mpi_bsend_reclaim(int wait)
{
    loom_mpi_bsend_reclaim_pass();
    while (wait && loom_mpi_bbuf.live > 0) {
        (void)loom_progress();   /* unpinned: other threads may run */
        loom_mpi_bsend_reclaim_pass();
    }
}

/*
 * First fit: the offset of a free run of @p need bytes, linked into the
 * list, or LOOM_MPI_BSEND_END (and *largest_p: the largest free run).
 */
static size_t loom_mpi_bsend_fit(size_t need, size_t *largest_p)
{
    size_t end = 0, prev = LOOM_MPI_BSEND_END, largest = 0, off = loom_mpi_bbuf.first;

    for (;;) {
        size_t limit = off == LOOM_MPI_BSEND_END ? loom_mpi_bbuf.size : off;
        loom_mpi_bsend_hdr_t h;

        if (limit - end >= need) {
            h = (loom_mpi_bsend_hdr_t){ .len = need, .next = off, .req = LOOM_REQUEST_NULL };
            loom_mpi_bsend_put(end, &h);
            if (prev == LOOM_MPI_BSEND_END) {
                loom_mpi_bbuf.first = end;
            } else {
                loom_mpi_bsend_hdr_t p = loom_mpi_bsend_get(prev);
                p.next = end;
                loom_mpi_bsend_put(prev, &p);
            }
            ++loom_mpi_bbuf.live;
            return end;
        }
        largest = limit - end > largest ? limit - end : largest;
        if (off == LOOM_MPI_BSEND_END) {
            *largest_p = largest;
            return LOOM_MPI_BSEND_END;
        }
        h    = loom_mpi_bsend_get(off);
        end  = off + h.len;
        prev = off;
        off  = h.next;
    }
}

/* bytes of the live blocks */
static size_t loom_mpi_bsend_used(void)
{
    size_t used = 0;

    for (size_t off = loom_mpi_bbuf.first; off != LOOM_MPI_BSEND_END;) {
        loom_mpi_bsend_hdr_t h = loom_mpi_bsend_get(off);
        used += h.len;
        off = h.next;
    }
    return used;
}

/* A block for @p need bytes (reclaiming finished sends first if needed). */
static int loom_mpi_bsend_alloc(size_t need, size_t msg, size_t *off_p, char *why,
                                size_t why_len)
{
    size_t largest = 0;

    if (!loom_mpi_bbuf.attached) {
        snprintf(why, why_len, "no buffer is attached (MPI_Buffer_attach) for a %zu-byte "
                 "message", msg);
        return MPI_ERR_BUFFER;
    }
    *off_p = loom_mpi_bsend_fit(need, &largest);
    if (*off_p == LOOM_MPI_BSEND_END && loom_mpi_bbuf.live > 0) {
        loom_mpi_bsend_reclaim(0);
        *off_p = loom_mpi_bsend_fit(need, &largest);
    }
    if (*off_p == LOOM_MPI_BSEND_END) {
        snprintf(why, why_len, "the attached buffer has no room: the message needs %zu "
                 "bytes (%zu packed + MPI_BSEND_OVERHEAD %d), available: %zu of %zu bytes "
                 "free, largest free block %zu (%zu buffered sends pending)", need, msg,
                 MPI_BSEND_OVERHEAD, loom_mpi_bbuf.size - loom_mpi_bsend_used(),
                 loom_mpi_bbuf.size, largest, loom_mpi_bbuf.live);
        return MPI_ERR_BUFFER;
    }
    return MPI_SUCCESS;
}

/* unlink the block at @p off (its send failed to start) */
static void loom_mpi_bsend_drop(size_t off)
{
    loom_mpi_bsend_hdr_t h = loom_mpi_bsend_get(off);

    h.req = LOOM_REQUEST_NULL;
    loom_mpi_bsend_put(off, &h);
    loom_mpi_bsend_reclaim(0);   /* completed or null blocks go; nothing waits */
}

/*
 * Copy the @p msg bytes of @p count elements of @p dt at @p buf into @p dst:
 * the C layout, or for a padded pair (mpi_int.h: MPI_Bsend_init's start
 * comes here with MPI_DOUBLE_INT & co.) the engine's packed data, which a
 * typed receive of the pair expects, as MPI_Bsend sends it.
 */
static int loom_mpi_bsend_copy(void *dst, const void *buf, int count, MPI_Datatype dt,
                               size_t msg, char *why, size_t why_len)
{
    loom_dt_t *ldt;
    loom_status_t st;

    if (!loom_mpi_type_padpair(dt)) {
        memcpy(dst, buf, msg);
        return MPI_SUCCESS;
    }
    ldt = loom_mpi_type_ldt(dt);
    st = ldt == NULL ? LOOM_ERR_NO_MEMORY
                     : loom_dt_pack_range(buf, (size_t)count, ldt, 0, msg, dst);
    if (st != LOOM_OK) {
        snprintf(why, why_len, "packing %d elements of %s (%zu bytes) failed: %s", count,
                 dt->name, msg, loom_strerror(st));
        return loom_mpi_class_of(st);
    }
    return MPI_SUCCESS;
}

static int loom_mpi_bsend_try_pinned(const void *buf, int count, MPI_Datatype dt, int dest,
                                     int tag, MPI_Comm comm, char *why, size_t why_len)
{
    loom_comm_t lcomm = loom_mpi_comm_get(comm);
    size_t n, msg, off;
    loom_mpi_bsend_hdr_t h;
    loom_status_t st;
    int rc = loom_mpi_type_check(dt, count);
    int packed;

    if (rc != MPI_SUCCESS) {
        snprintf(why, why_len, rc == MPI_ERR_COUNT ? "count %d is negative"
                 : "datatype is uncommitted or non-contiguous (count %d)", count);
        return rc;
    }
    if (dest == MPI_PROC_NULL) {
        return MPI_SUCCESS;   /* no message, no buffer space */
    }
    packed = loom_mpi_type_padpair(dt);   /* its data without padding: bytes */
    n   = (size_t)count * (packed ? dt->size : dt->n);
    msg = packed ? n : n * loom_datatype_size(dt->base);
    if (msg > 0 && buf == NULL) {
        snprintf(why, why_len, "buffer is NULL with count %d", count);
        return MPI_ERR_BUFFER;
    }
    rc = loom_mpi_bsend_alloc(msg + MPI_BSEND_OVERHEAD, msg, &off, why, why_len);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (msg > 0 && (rc = loom_mpi_bsend_copy(loom_mpi_bbuf.base + off + MPI_BSEND_OVERHEAD,
                                             buf, count, dt, msg, why, why_len)) != 0) {
        loom_mpi_bsend_drop(off);
        return rc;
    }
    h = loom_mpi_bsend_get(off);
    st = loom_isend(loom_mpi_bbuf.base + off + MPI_BSEND_OVERHEAD, n,
                    packed ? LOOM_BYTE : dt->base, dest, tag, lcomm, &h.req);
    if (st != LOOM_OK) {
        loom_mpi_bsend_drop(off);
        snprintf(why, why_len, "loom reported %s (%s)", loom_status_name(st),
                 loom_strerror(st));
        return loom_mpi_class_of(st);
    }
    loom_mpi_bsend_put(off, &h);
    return MPI_SUCCESS;
}

/* the buffered send, pinned: its block is linked before its request is stored */
int loom_mpi_bsend_try(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                       MPI_Comm comm, char *why, size_t why_len)
{
    int rc;

    loom_mt_pin();
    rc = loom_mpi_bsend_try_pinned(buf, count, dt, dest, tag, comm, why, why_len);
    loom_mt_unpin();
    return rc;
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    LOOM_MT_GUARD();
    if (size < 0 || (buffer == NULL && size > 0)) {
        return loom_mpi_raise(NULL, size < 0 ? MPI_ERR_ARG : MPI_ERR_BUFFER,
                              "MPI_Buffer_attach", size < 0 ? "size %d is negative"
                              : "buffer is NULL with size %d", size);
    }
    if (loom_mpi_bbuf.attached) {
        return loom_mpi_raise(NULL, MPI_ERR_BUFFER, "MPI_Buffer_attach",
                              "a buffer is already attached (%zu bytes at %p); detach it "
                              "first", loom_mpi_bbuf.size, (void *)loom_mpi_bbuf.base);
    }
    /* a zero-byte buffer is still "attached": bsends then fail for want of room */
    loom_mpi_bbuf.attached = 1;
    loom_mpi_bbuf.base  = buffer;
    loom_mpi_bbuf.size  = (size_t)size;
    loom_mpi_bbuf.first = LOOM_MPI_BSEND_END;
    loom_mpi_bbuf.live  = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    LOOM_MT_GUARD();
    if (buffer_addr == NULL || size == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Buffer_detach", "%s is NULL",
                              size == NULL ? "size" : "buffer_addr");
    }
    if (!loom_mpi_bbuf.attached) {
        /* as MPICH: detaching nothing returns a null buffer of size 0 */
        *(void **)buffer_addr = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    loom_mpi_bsend_reclaim(1);   /* blocks until every buffered message went */
    *(void **)buffer_addr = loom_mpi_bbuf.base;
    *size = (int)loom_mpi_bbuf.size;
    loom_mpi_bbuf.attached = 0;
    loom_mpi_bbuf.base  = NULL;
    loom_mpi_bbuf.size  = 0;
    loom_mpi_bbuf.first = LOOM_MPI_BSEND_END;
    loom_mpi_bbuf.live  = 0;
    return MPI_SUCCESS;
}

/* Bsend / Ibsend: checks, then the buffered send, raising once */
static int loom_mpi_bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request, const char *call)
{
    loom_comm_t lcomm;
    char why[320];
    loom_status_t st;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request != NULL) {
        *request = MPI_REQUEST_NULL;
    }
    rc = loom_mpi_bsend_try(buf, count, dt, dest, tag, comm, why, sizeof(why));
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(comm, rc, call, "%s", why);
    }
    if (request == NULL) {
        return MPI_SUCCESS;
    }
    /* the message is in the buffer: the user's request is complete already */
    st = loom_isend(NULL, 0, LOOM_BYTE, LOOM_PROC_NULL, 0, lcomm, request);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, call);
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    LOOM_MT_GUARD();
    if (loom_mpi_type_noncontig(datatype) && loom_mpi_comm_live(comm)) {
        return loom_mpi_dt_send('b', buf, count, datatype, dest, tag, comm, "MPI_Bsend");
    }
    return loom_mpi_bsend(buf, count, datatype, dest, tag, comm, NULL, "MPI_Bsend");
}

#pragma weak MPI_Ibsend = PMPI_Ibsend
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    LOOM_MT_GUARD();
    if (request == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, "MPI_Ibsend", "request is NULL");
    }
    if (loom_mpi_type_noncontig(datatype) && loom_mpi_comm_live(comm)) {
        /* the attached buffer takes a copy at once: the packed temporary can go */
        void *tmp;
        size_t bytes;
        int rc = loom_mpi_dt_pack_tmp(comm, buf, count, datatype, "MPI_Ibsend", &tmp,
                                      &bytes);
        if (rc == MPI_SUCCESS) {
            rc = loom_mpi_bsend(tmp, (int)bytes, MPI_PACKED, dest, tag, comm, request,
                                "MPI_Ibsend");
            free(tmp);
        }
        return rc;
    }
    return loom_mpi_bsend(buf, count, datatype, dest, tag, comm, request, "MPI_Ibsend");
}
