/*
 * ib_config_int.h: the verbs transport's LOOM_IB_* variables, its test-only
 * fault switches included; the table is in ib_config.c and hangs off the
 * ib component descriptor (transport/tl.c). Read them as
 * loom_config_int(LOOM_IB_CFG(LAZY_THRESHOLD)). The p2p engine reads
 * LOOM_IB_MCAST_THRESHOLD by name (loom_config_find), not through this
 * header.
 */
#ifndef LOOM_IB_CONFIG_INT_H
#define LOOM_IB_CONFIG_INT_H

#include "config_int.h"

enum {
    LOOM_IB_CFG_DEVICE,
    LOOM_IB_CFG_GID_INDEX,
    LOOM_IB_CFG_LAZY_THRESHOLD,
    LOOM_IB_CFG_RCACHE_MAX,
    LOOM_IB_CFG_MCAST_THRESHOLD,
    LOOM_IB_CFG_MCAST_DROP,
    LOOM_IB_CFG_MCAST_FAULT,
    LOOM_IB_CFG_STALL_TIMEOUT,
    LOOM_IB_CFG_STALL_FAULT,
    LOOM_IB_CFG_COUNT
};

extern loom_config_var_t loom_ib_config_vars[LOOM_IB_CFG_COUNT];
/** Component "ib". */
extern loom_config_table_t loom_ib_config;

/** The handle of ib's variable LOOM_IB_<name>. */
#define LOOM_IB_CFG(name) (&loom_ib_config_vars[LOOM_IB_CFG_##name])

#endif /* LOOM_IB_CONFIG_INT_H */
