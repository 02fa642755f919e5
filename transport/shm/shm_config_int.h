/*
 * shm_config_int.h: the shared-memory transport's LOOM_SHM_* variables (region
 * geometry, fast boxes, single-copy mode); the table is in shm_config.c and hangs off
 * the shm component descriptor (transport/tl.c). Read them as
 * loom_config_int(LOOM_SHM_CFG(RING_SLOTS)).
 */
#ifndef LOOM_SHM_CONFIG_INT_H
#define LOOM_SHM_CONFIG_INT_H

#include "config_int.h"

enum {
    LOOM_SHM_CFG_RING_SLOTS,
    LOOM_SHM_CFG_SLOT_SIZE,
    LOOM_SHM_CFG_FIFO_SLOTS,
    LOOM_SHM_CFG_FRAGS,
    LOOM_SHM_CFG_FBOX_MAX,
    LOOM_SHM_CFG_FBOX_THRESHOLD,
    LOOM_SHM_CFG_CMA,
    LOOM_SHM_CFG_COUNT
};

extern loom_config_var_t loom_shm_config_vars[LOOM_SHM_CFG_COUNT];
/** Component "shm". */
extern loom_config_table_t loom_shm_config;

/** The handle of shm's variable LOOM_SHM_<name>. */
#define LOOM_SHM_CFG(name) (&loom_shm_config_vars[LOOM_SHM_CFG_##name])

#endif /* LOOM_SHM_CONFIG_INT_H */
