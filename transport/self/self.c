/*
 * self.c: the self transport, a rank's frames to itself.
 *
 * am_send copies the frame into a FIFO (small frames from a pool, larger
 * ones malloc'ed: self traffic above the small size is not latency
 * critical) and progress delivers it, never from inside am_send, so the
 * p2p engine sees self-sends exactly like remote ones. get is a memcpy from
 * the exposed address (same address space); mem_pack only hands the address
 * back. get_iov and get_riov copy piece to piece (a typed self-send is then
 * one copy, neither packed nor unpacked), worth it from small pieces on (no
 * kernel cost per piece). Never pushes back.
 */
#include "tl.h"
#include "iov_int.h"
#include "list_int.h"
#include "log_int.h"
#include "mpool_int.h"

#include <stdlib.h>
#include <string.h>

#define LOOM_SELF_MAX_AM      (64u * 1024)
#define LOOM_SELF_EAGER_LIMIT 8192u
#define LOOM_SELF_SMALL_FRAME 256u
/* pieces from this size on are copied piece to piece rather than packed */
#define LOOM_SELF_IOV_MIN_PIECE 64u

typedef struct loom_self_frame {
    loom_list_t list;
    size_t      len;
    int         pooled;
    uint8_t     data[] LOOM_ALIGNED(16);
} loom_self_frame_t;

typedef struct loom_self_iface {
    loom_tl_iface_t super;
    loom_tl_ep_t    ep;
    loom_list_t     queue;
    loom_mpool_t    frame_pool;
    int             rank;
} loom_self_iface_t;

static loom_self_iface_t *loom_self_iface(loom_tl_iface_t *tl)
{
    return loom_container_of(tl, loom_self_iface_t, super);
}

static void loom_self_query(loom_tl_iface_t *tl, loom_tl_caps_t *caps_p)
{
    (void)tl;
    memset(caps_p, 0, sizeof(*caps_p));
    caps_p->max_am      = LOOM_SELF_MAX_AM;
    caps_p->max_inline  = LOOM_SELF_SMALL_FRAME;
    caps_p->eager_limit = LOOM_SELF_EAGER_LIMIT;
    caps_p->can_get     = 1;
    caps_p->latency_ns  = 20;
    caps_p->iov_min_piece  = LOOM_SELF_IOV_MIN_PIECE;
    caps_p->riov_min_piece = LOOM_SELF_IOV_MIN_PIECE;
}

static int loom_self_reachable(loom_tl_iface_t *tl, int peer)
{
    return peer == loom_self_iface(tl)->rank;
}

static loom_status_t loom_self_ep_create(loom_tl_iface_t *tl, int peer,
                                         loom_tl_ep_t **ep_p)
{
    loom_self_iface_t *iface = loom_self_iface(tl);

    if (peer != iface->rank) {
        return LOOM_ERR_UNREACHABLE;
    }
    *ep_p = &iface->ep;
    return LOOM_OK;
}

static void loom_self_ep_destroy(loom_tl_ep_t *ep)
{
    (void)ep; /* the one endpoint lives in the iface */
}

/* 1 (logged) if a frame of @p len bytes exceeds max_am */
static int loom_self_too_big(size_t len)
{
    if (loom_likely(len <= LOOM_SELF_MAX_AM)) {
        return 0;
    }
    loom_error("self", "am_send of %zu bytes exceeds max_am (%u)", len, LOOM_SELF_MAX_AM);
    return 1;
}

/* A queued frame for @p hdr_len + @p payload_len bytes, its header copied in; NULL: none. */
static loom_self_frame_t *loom_self_frame_new(loom_self_iface_t *iface, const void *hdr,
                                              size_t hdr_len, size_t payload_len)
{
    size_t len = hdr_len + payload_len;
    loom_self_frame_t *f;

    if (len <= LOOM_SELF_SMALL_FRAME) {
        f = loom_mpool_get(&iface->frame_pool);
    } else {
        f = malloc(sizeof(*f) + len);
    }
    if (loom_unlikely(f == NULL)) {
        return NULL;
    }
    f->pooled = len <= LOOM_SELF_SMALL_FRAME;
    f->len    = len;
    memcpy(f->data, hdr, hdr_len);
    return f;
}

static loom_status_t loom_self_am_send(loom_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                       const void *payload, size_t payload_len)
{
    loom_self_iface_t *iface = loom_container_of(ep, loom_self_iface_t, ep);
    loom_self_frame_t *f;

    if (loom_self_too_big(hdr_len + payload_len)) {
        return LOOM_ERR_INVALID_ARG;
    }
    f = loom_self_frame_new(iface, hdr, hdr_len, payload_len);
    if (loom_unlikely(f == NULL)) {
        return LOOM_ERR_NO_RESOURCE; /* the engine queues and retries */
    }
    if (payload_len != 0) {
        memcpy(f->data + hdr_len, payload, payload_len);
    }
    loom_list_add_tail(&iface->queue, &f->list);
    return LOOM_OK;
}

/* tl.h am_send_pack: the payload packed straight into the queued frame. */
static loom_status_t loom_self_am_send_pack(loom_tl_ep_t *ep, const void *hdr,
                                            size_t hdr_len, loom_tl_pack_cb_t pack,
                                            void *pack_arg, size_t payload_len)
{
    loom_self_iface_t *iface = loom_container_of(ep, loom_self_iface_t, ep);
    loom_self_frame_t *f;

    if (loom_self_too_big(hdr_len + payload_len)) {
        return LOOM_ERR_INVALID_ARG;
    }
    f = loom_self_frame_new(iface, hdr, hdr_len, payload_len);
    if (loom_unlikely(f == NULL)) {
        return LOOM_ERR_NO_RESOURCE;
    }
    pack(pack_arg, f->data + hdr_len, payload_len);
    loom_list_add_tail(&iface->queue, &f->list);
    return LOOM_OK;
}

static void loom_self_frame_free(loom_self_iface_t *iface, loom_self_frame_t *f)
{
    if (f->pooled) {
        loom_mpool_put(&iface->frame_pool, f);
    } else {
        free(f);
    }
}

static int loom_self_progress(loom_tl_iface_t *tl)
{
    loom_self_iface_t *iface = loom_self_iface(tl);
    const loom_tl_params_t *p = &tl->params;
    int n = 0;

    /* frames queued by the callbacks wait for the next pass: bounded work */
    for (size_t todo = loom_list_is_empty(&iface->queue) ? 0 :
                       loom_list_length(&iface->queue); todo > 0; --todo) {
        loom_self_frame_t *f = loom_list_entry(loom_list_pop_head(&iface->queue),
                                               loom_self_frame_t, list);
        p->am_cb(p->cb_arg, iface->rank, f->data, f->len);
        loom_self_frame_free(iface, f);
        ++n;
    }
    return n;
}

static loom_status_t loom_self_mem_pack(loom_tl_iface_t *tl, const void *addr, size_t len,
                                        loom_tl_rkey_t *rkey, loom_tl_memh_t **memh_p)
{
    (void)tl;
    (void)len;
    memset(rkey, 0, sizeof(*rkey));
    *memh_p = (loom_tl_memh_t *)(uintptr_t)addr; /* nothing to register */
    return LOOM_OK;
}

static void loom_self_mem_release(loom_tl_iface_t *tl, loom_tl_memh_t *memh)
{
    (void)tl;
    (void)memh;
}

static loom_status_t loom_self_get(loom_tl_ep_t *ep, void *local, size_t len,
                                   uint64_t raddr, const loom_tl_rkey_t *rkey,
                                   loom_tl_comp_t *comp)
{
    (void)ep;
    (void)rkey;
    (void)comp;
    if (len != 0) {
        memcpy(local, (const void *)(uintptr_t)raddr, len);
    }
    return LOOM_OK;
}

/* tl.h get_riov: the first sum(liov) bytes of the pieces @p riov into @p liov */
static loom_status_t loom_self_get_riov(loom_tl_ep_t *ep, const struct iovec *liov,
                                        size_t lcnt, const struct iovec *riov, size_t rcnt,
                                        const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp)
{
    (void)ep;
    (void)rkey;
    (void)comp;
    if (!loom_iov_copy(liov, lcnt, riov, rcnt)) {
        loom_error("self", "get_riov: the remote pieces end before the %zu local ones",
                   lcnt);
        return LOOM_ERR_INVALID_ARG;
    }
    return LOOM_OK;
}

/* tl.h get_iov: one remote range into local pieces */
static loom_status_t loom_self_get_iov(loom_tl_ep_t *ep, const struct iovec *iov,
                                       size_t iovcnt, uint64_t raddr,
                                       const loom_tl_rkey_t *rkey, loom_tl_comp_t *comp)
{
    struct iovec whole = { (void *)(uintptr_t)raddr, SIZE_MAX };

    return loom_self_get_riov(ep, iov, iovcnt, &whole, 1, rkey, comp);
}

static void loom_self_close(loom_tl_iface_t *tl)
{
    loom_self_iface_t *iface = loom_self_iface(tl);
    loom_list_t *e;

    while ((e = loom_list_pop_head(&iface->queue)) != NULL) {
        loom_self_frame_free(iface, loom_list_entry(e, loom_self_frame_t, list));
    }
    loom_mpool_cleanup(&iface->frame_pool);
    free(iface);
}

extern const loom_tl_ops_t loom_tl_self_ops;

static loom_status_t loom_self_open(const loom_tl_params_t *params,
                                    loom_tl_iface_t **iface_p)
{
    loom_self_iface_t *iface = calloc(1, sizeof(*iface));
    loom_status_t st;

    if (iface == NULL) {
        loom_error("self", "out of memory opening the self transport");
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_mpool_init(&iface->frame_pool, "self frames",
                         sizeof(loom_self_frame_t) + LOOM_SELF_SMALL_FRAME, 64, 0);
    if (st != LOOM_OK) {
        free(iface);
        return st;
    }
    loom_list_init(&iface->queue);
    iface->rank      = params->job->rank;
    iface->ep.iface  = &iface->super;
    iface->ep.peer   = iface->rank;
    loom_tl_iface_init(&iface->super, "self", &loom_tl_self_ops, params);
    *iface_p = &iface->super;
    return LOOM_OK;
}

const loom_tl_ops_t loom_tl_self_ops = {
    .open        = loom_self_open,
    .query       = loom_self_query,
    .reachable   = loom_self_reachable,
    .ep_create   = loom_self_ep_create,
    .ep_destroy  = loom_self_ep_destroy,
    .am_send     = loom_self_am_send,
    .am_send_pack = loom_self_am_send_pack,
    .mem_pack    = loom_self_mem_pack,
    .mem_release = loom_self_mem_release,
    .get         = loom_self_get,
    .get_iov     = loom_self_get_iov,
    .get_riov    = loom_self_get_riov,
    .progress    = loom_self_progress,
    .close       = loom_self_close,
};
