/*
 * p2p_config_int.h: the point-to-point engine's LOOM_* variables (transports
 * allowed, protocol thresholds, error policy, hang report); the table is in
 * p2p_config.c, the machinery in base/config_int.h. Read them as
 * loom_config_str(LOOM_P2P_CFG(TRANSPORTS)). Exported: the runtime
 * registers the table, the collectives read LOOM_TRANSPORTS.
 */
#ifndef LOOM_P2P_CONFIG_INT_H
#define LOOM_P2P_CONFIG_INT_H

#include "config_int.h"

enum {
    LOOM_P2P_CFG_TRANSPORTS,
    LOOM_P2P_CFG_EAGER_LIMIT,
    LOOM_P2P_CFG_RNDV_PUSH,
    LOOM_P2P_CFG_ERRORS,
    LOOM_P2P_CFG_PROGRESS_TIMEOUT,
    LOOM_P2P_CFG_MT_IDLE_SPIN,
    LOOM_P2P_CFG_COUNT
};

extern loom_config_var_t loom_p2p_config_vars[LOOM_P2P_CFG_COUNT];
/** Component "p2p". */
extern loom_config_table_t loom_p2p_config;

/** The handle of the engine's variable LOOM_<name>. */
#define LOOM_P2P_CFG(name) (&loom_p2p_config_vars[LOOM_P2P_CFG_##name])

/**
 * 1 if LOOM_TRANSPORTS lets transport @p name run: unset, or listing it.
 * (self always runs; the caller decides that.)
 */
int loom_p2p_transport_allowed(const char *name);

#endif /* LOOM_P2P_CONFIG_INT_H */
