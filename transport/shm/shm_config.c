/*
 * shm_config.c: the shared-memory transport's LOOM_SHM_* variables (see
 * shm_config_int.h); shm_iface.c checks the ring geometry when it opens.
 */
#include "shm_config_int.h"

loom_config_var_t loom_shm_config_vars[LOOM_SHM_CFG_COUNT] = {
    [LOOM_SHM_CFG_RING_SLOTS] = LOOM_CONFIG_VAR_RANGE("LOOM_SHM_RING_SLOTS", INT, "64",
        2, 65536,
        "slots in each shared-memory ring (one ring per pair of local ranks), a power of two"),
    [LOOM_SHM_CFG_SLOT_SIZE] = LOOM_CONFIG_VAR_RANGE("LOOM_SHM_SLOT_SIZE", SIZE, "8k",
        256, 16777216,
        "bytes per shared-memory ring slot (payload plus header)"),
    [LOOM_SHM_CFG_CMA] = LOOM_CONFIG_VAR("LOOM_SHM_CMA", STRING, "auto",
        "single-copy rendezvous with process_vm_readv: auto|on|off (off = pipelined copy "
        "through the segment)"),
};

loom_config_table_t loom_shm_config = LOOM_CONFIG_TABLE("shm", loom_shm_config_vars, NULL);
