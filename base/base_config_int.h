/*
 * base_config_int.h: base's own LOOM_* variables (the log, the bootstrap, the
 * oversubscription switch, the engine lock's spin); the table is in
 * base_config.c, the machinery in config_int.h. Read them as loom_config_int(LOOM_BASE_CFG(BOOTSTRAP_TIMEOUT)).
 */
#ifndef LOOM_BASE_CONFIG_INT_H
#define LOOM_BASE_CONFIG_INT_H

#include "config_int.h"

enum {
    LOOM_BASE_CFG_LOG,
    LOOM_BASE_CFG_OVERSUBSCRIBED,
    LOOM_BASE_CFG_BOOTSTRAP_TIMEOUT,
    LOOM_BASE_CFG_MT_SPIN,
    LOOM_BASE_CFG_COUNT
};

extern loom_config_var_t loom_base_config_vars[LOOM_BASE_CFG_COUNT];
/** Component "base"; registering it also configures the log (LOOM_LOG). */
extern loom_config_table_t loom_base_config;

/** The handle of base's variable LOOM_<name>. */
#define LOOM_BASE_CFG(name) (&loom_base_config_vars[LOOM_BASE_CFG_##name])

#endif /* LOOM_BASE_CONFIG_INT_H */
