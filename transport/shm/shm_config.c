/*
 * shm_config.c: the shared-memory transport's LOOM_SHM_* variables (see
 * shm_config_int.h); shm_iface.c reads them at open and shm_seg.c checks the geometry they give
 * (the per-rank region of shm_int.h).
 */
#include "shm_config_int.h"

loom_config_var_t loom_shm_config_vars[LOOM_SHM_CFG_COUNT] = {
    [LOOM_SHM_CFG_RING_SLOTS] = LOOM_CONFIG_VAR_RANGE("LOOM_SHM_RING_SLOTS", INT, "64",
        2, 65536,
        "cells (192 bytes each) in each fast box, the ring a busy pair of local ranks "
        "sends through, a power of two"),
    [LOOM_SHM_CFG_SLOT_SIZE] = LOOM_CONFIG_VAR_RANGE("LOOM_SHM_SLOT_SIZE", SIZE, "8k",
        256, 16777216,
        "bytes of a shared-memory fragment: the largest frame (eager message plus header); "
        "frames above 176 bytes travel in a fragment of the sender's pool"),
    [LOOM_SHM_CFG_FIFO_SLOTS] = LOOM_CONFIG_VAR_RANGE("LOOM_SHM_FIFO_SLOTS", INT, "128",
        2, 65536,
        "cells (192 bytes each) in each rank's receive FIFO, shared by every local sender "
        "without a fast box, a power of two"),
    [LOOM_SHM_CFG_FRAGS] = LOOM_CONFIG_VAR_RANGE("LOOM_SHM_FRAGS", INT, "16", 1, 65536,
        "fragments in each rank's send pool (frames above 176 bytes in flight, to all peers)"),
    [LOOM_SHM_CFG_FBOX_MAX] = LOOM_CONFIG_VAR_RANGE("LOOM_SHM_FBOX_MAX", INT, "16", 0, 65536,
        "fast boxes a rank receives through at most (one per busy sender, first come "
        "first served; 0: every frame through the FIFO)"),
    [LOOM_SHM_CFG_FBOX_THRESHOLD] = LOOM_CONFIG_VAR_RANGE("LOOM_SHM_FBOX_THRESHOLD", INT, "16",
        0, 1000000000,
        "frames a rank sends a local peer through the peer's FIFO before it asks for a fast "
        "box (0: never)"),
    [LOOM_SHM_CFG_CMA] = LOOM_CONFIG_VAR("LOOM_SHM_CMA", STRING, "auto",
        "single-copy rendezvous with process_vm_readv: auto|on|off (off = pipelined copy "
        "through the shared segment)"),
};

loom_config_table_t loom_shm_config = LOOM_CONFIG_TABLE("shm", loom_shm_config_vars, NULL);
