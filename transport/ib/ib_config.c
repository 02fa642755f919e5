/*
 * ib_config.c: the verbs transport's LOOM_IB_* variables (see ib_config_int.h),
 * with the fault switches its tests use.
 */
#include "ib_config_int.h"

loom_config_var_t loom_ib_config_vars[LOOM_IB_CFG_COUNT] = {
    [LOOM_IB_CFG_DEVICE] = LOOM_CONFIG_VAR("LOOM_IB_DEVICE", STRING, "",
        "verbs device and port, name:port (default: first active port)"),
    [LOOM_IB_CFG_GID_INDEX] = LOOM_CONFIG_VAR_RANGE("LOOM_IB_GID_INDEX", INT, "-1",
        -1, 65535,
        "GID index on RoCE (-1 = the RoCE v2 GID of the interface address)"),
    [LOOM_IB_CFG_LAZY_THRESHOLD] = LOOM_CONFIG_VAR_RANGE("LOOM_IB_LAZY_THRESHOLD", INT, "64",
        0, 1073741824,
        "job size above which RC connections are made on demand"),
    [LOOM_IB_CFG_RCACHE_MAX] = LOOM_CONFIG_VAR("LOOM_IB_RCACHE_MAX", SIZE, "1g",
        "bytes of memory the verbs registration cache may keep registered"),
    [LOOM_IB_CFG_MCAST_THRESHOLD] = LOOM_CONFIG_VAR("LOOM_IB_MCAST_THRESHOLD", SIZE, "64k",
        "largest bcast sent by UD multicast"),
    [LOOM_IB_CFG_MCAST_DROP] = LOOM_CONFIG_VAR_RANGE("LOOM_IB_MCAST_DROP", DOUBLE, "0",
        0, 0.5,
        "test only: fraction of multicast packets dropped on receive"),
    [LOOM_IB_CFG_MCAST_FAULT] = LOOM_CONFIG_VAR_RANGE("LOOM_IB_MCAST_FAULT", INT, "-1",
        -1, 1073741824,
        "test only: this world rank fails to join multicast groups (-1 = off)"),
    [LOOM_IB_CFG_STALL_TIMEOUT] = LOOM_CONFIG_VAR("LOOM_IB_STALL_TIMEOUT", DOUBLE, "4",
        "seconds a peer with work outstanding may go without a completion before it is "
        "declared failed"),
    [LOOM_IB_CFG_STALL_FAULT] = LOOM_CONFIG_VAR_RANGE("LOOM_IB_STALL_FAULT", INT, "-1",
        -1, 1073741824,
        "test only: the ib watchdog of this world rank takes every connected peer for stalled "
        "and declares it failed after LOOM_IB_STALL_TIMEOUT (-1 = off)"),
};

loom_config_table_t loom_ib_config = LOOM_CONFIG_TABLE("ib", loom_ib_config_vars, NULL);
