/*
 * ib_iface.c: the verbs (InfiniBand / RoCE) transport, placeholder open.
 *
 * Until the RC transport lands, open() reports LOOM_ERR_UNSUPPORTED when no
 * verbs device is present, which is also the real behaviour on hosts without
 * RDMA hardware: the engine then skips this transport quietly.
 */
#include "../tl.h"
#include "../../core/log_int.h"

#include <infiniband/verbs.h>

static loom_status_t loom_tl_ib_open(const loom_tl_params_t *params,
                                     loom_tl_iface_t **iface_p)
{
    struct ibv_device **list;
    int num = 0;

    (void)params;
    (void)iface_p;
    list = ibv_get_device_list(&num);
    if (list != NULL) {
        ibv_free_device_list(list);
    }
    loom_debug("ib", "%d verbs device(s) found; transport not enabled yet", num);
    return LOOM_ERR_UNSUPPORTED;
}

const loom_tl_ops_t loom_tl_ib_ops = {
    .open = loom_tl_ib_open,
};
