/*
 * tl.c: the transport registry and the default ("unsupported") ops.
 */
#include "tl.h"

#include <string.h>

extern const loom_tl_ops_t loom_tl_self_ops;
extern const loom_tl_ops_t loom_tl_shm_ops;
extern loom_config_table_t loom_shm_config;        /* shm/shm_config.c */
#if LOOM_HAVE_TCP
extern const loom_tl_ops_t loom_tl_tcp_ops;
extern loom_config_table_t loom_tcp_config;        /* tcp/tcp_config.c */
#endif
#if LOOM_HAVE_IBV
extern const loom_tl_ops_t loom_tl_ib_ops;
extern loom_config_table_t loom_ib_config;         /* ib/ib_config.c */
#endif

static const loom_tl_component_t loom_tl_self_component = { "self", &loom_tl_self_ops, NULL };
static const loom_tl_component_t loom_tl_shm_component  = { "shm", &loom_tl_shm_ops,
                                                            &loom_shm_config };
#if LOOM_HAVE_IBV
static const loom_tl_component_t loom_tl_ib_component   = { "ib", &loom_tl_ib_ops,
                                                            &loom_ib_config };
#endif
#if LOOM_HAVE_TCP
static const loom_tl_component_t loom_tl_tcp_component  = { "tcp", &loom_tl_tcp_ops,
                                                            &loom_tcp_config };
#endif

/* order of preference: the engine picks the first that reaches a peer */
const loom_tl_component_t *const loom_tl_components[] = {
    &loom_tl_self_component,
    &loom_tl_shm_component,
#if LOOM_HAVE_IBV
    &loom_tl_ib_component,
#endif
#if LOOM_HAVE_TCP
    &loom_tl_tcp_component,
#endif
};
const size_t loom_tl_num_components = LOOM_ARRAY_SIZE(loom_tl_components);

/* Default ops (after rdma-core's dummy_ops.c): each answers "unsupported". */

static loom_status_t loom_tl_dummy_open(const loom_tl_params_t *params,
                                        loom_tl_iface_t **iface_p)
{
    (void)params;
    (void)iface_p;
    return LOOM_ERR_UNSUPPORTED;
}

static void loom_tl_dummy_query(loom_tl_iface_t *iface, loom_tl_caps_t *caps_p)
{
    (void)iface;
    memset(caps_p, 0, sizeof(*caps_p));
}

static int loom_tl_dummy_reachable(loom_tl_iface_t *iface, int peer)
{
    (void)iface;
    (void)peer;
    return 0;
}

static loom_status_t loom_tl_dummy_ep_create(loom_tl_iface_t *iface, int peer,
                                             loom_tl_ep_t **ep_p)
{
    (void)iface;
    (void)peer;
    (void)ep_p;
    return LOOM_ERR_UNSUPPORTED;
}

static void loom_tl_dummy_ep_destroy(loom_tl_ep_t *ep)
{
    (void)ep;
}

static loom_status_t loom_tl_dummy_am_send(loom_tl_ep_t *ep, const void *hdr,
                                           size_t hdr_len, const void *payload,
                                           size_t payload_len)
{
    (void)ep;
    (void)hdr;
    (void)hdr_len;
    (void)payload;
    (void)payload_len;
    return LOOM_ERR_UNSUPPORTED;
}

static loom_status_t loom_tl_dummy_mem_pack(loom_tl_iface_t *iface, const void *addr,
                                            size_t len, loom_tl_rkey_t *rkey,
                                            loom_tl_memh_t **memh_p)
{
    (void)iface;
    (void)addr;
    (void)len;
    (void)rkey;
    (void)memh_p;
    return LOOM_ERR_UNSUPPORTED;
}

static void loom_tl_dummy_mem_release(loom_tl_iface_t *iface, loom_tl_memh_t *memh)
{
    (void)iface;
    (void)memh;
}

static loom_status_t loom_tl_dummy_get(loom_tl_ep_t *ep, void *local, size_t len,
                                       uint64_t raddr, const loom_tl_rkey_t *rkey,
                                       loom_tl_comp_t *comp)
{
    (void)ep;
    (void)local;
    (void)len;
    (void)raddr;
    (void)rkey;
    (void)comp;
    return LOOM_ERR_UNSUPPORTED;
}

static int loom_tl_dummy_progress(loom_tl_iface_t *iface)
{
    (void)iface;
    return 0;
}

static void loom_tl_dummy_close(loom_tl_iface_t *iface)
{
    (void)iface;
}

static const loom_tl_ops_t loom_tl_dummy_ops = {
    .open        = loom_tl_dummy_open,
    .query       = loom_tl_dummy_query,
    .reachable   = loom_tl_dummy_reachable,
    .ep_create   = loom_tl_dummy_ep_create,
    .ep_destroy  = loom_tl_dummy_ep_destroy,
    .am_send     = loom_tl_dummy_am_send,
    .mem_pack    = loom_tl_dummy_mem_pack,
    .mem_release = loom_tl_dummy_mem_release,
    .get         = loom_tl_dummy_get,
    .progress    = loom_tl_dummy_progress,
    .close       = loom_tl_dummy_close,
};

#define LOOM_TL_DEFAULT_OP(dst, src, op) \
    (dst)->op = (src)->op ? (src)->op : loom_tl_dummy_ops.op

void loom_tl_iface_init(loom_tl_iface_t *iface, const char *name,
                        const loom_tl_ops_t *ops, const loom_tl_params_t *params)
{
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, open);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, query);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, reachable);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, ep_create);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, ep_destroy);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, am_send);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, mem_pack);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, mem_release);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, get);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, progress);
    LOOM_TL_DEFAULT_OP(&iface->ops, ops, close);
    /* optional: NULL means "not offered" (and caps.can_mcast is 0) */
    iface->ops.mc_join  = ops->mc_join;
    iface->ops.mc_bcast = ops->mc_bcast;
    iface->ops.mc_leave = ops->mc_leave;
    /* optional: NULL means "receive through progress only" */
    iface->ops.am_peek    = ops->am_peek;
    iface->ops.am_consume = ops->am_consume;
    /* optional: NULL means "the caller packs" / "get into a buffer and unpack" */
    iface->ops.am_send_pack = ops->am_send_pack;
    iface->ops.get_iov      = ops->get_iov;
    iface->ops.get_riov     = ops->get_riov;
    /* optional: NULL means "expose only bytes that exist" */
    iface->ops.mem_pack_fill = ops->mem_pack_fill;
    /* optional: NULL means "no one-sided work" (the RMA layer uses messages) */
    iface->ops.rma_reg    = ops->rma_reg;
    iface->ops.rma_dereg  = ops->rma_dereg;
    iface->ops.rma_ep     = ops->rma_ep;
    iface->ops.rma_put    = ops->rma_put;
    iface->ops.rma_get    = ops->rma_get;
    iface->ops.rma_atomic = ops->rma_atomic;
    iface->ops.rma_flush  = ops->rma_flush;
    iface->name   = name;
    iface->params = *params;
    iface->ops.query(iface, &iface->caps);
}
