/*
 * coll_config_int.h: the collectives' LOOM_* variables (deterministic mode,
 * the forced algorithm of each collective, the rebalancing switch, the
 * test-only fault of the on-node segment); the table is in coll_config.c,
 * the machinery in base/config_int.h. Read them as
 * loom_config_int(LOOM_COLL_CFG(DETERMINISTIC)). Exported to the runtime,
 * which registers the table.
 */
#ifndef LOOM_COLL_CONFIG_INT_H
#define LOOM_COLL_CONFIG_INT_H

#include "config_int.h"

enum {
    LOOM_COLL_CFG_DETERMINISTIC,
    LOOM_COLL_CFG_BARRIER_ALGORITHM,
    LOOM_COLL_CFG_BCAST_ALGORITHM,
    LOOM_COLL_CFG_REDUCE_ALGORITHM,
    LOOM_COLL_CFG_ALLREDUCE_ALGORITHM,
    LOOM_COLL_CFG_ALLGATHER_ALGORITHM,
    LOOM_COLL_CFG_GATHER_ALGORITHM,
    LOOM_COLL_CFG_SCATTER_ALGORITHM,
    LOOM_COLL_CFG_ALLTOALL_ALGORITHM,
    LOOM_COLL_CFG_REDUCE_SCATTER_ALGORITHM,
    LOOM_COLL_CFG_NEIGHBOR_ALGORITHM,
    LOOM_COLL_CFG_SCAN_ALGORITHM,
    LOOM_COLL_CFG_EXSCAN_ALGORITHM,
    LOOM_COLL_CFG_REDUCE_SCATTERV_ALGORITHM,
    LOOM_COLL_CFG_ALLTOALLW_ALGORITHM,
    LOOM_COLL_CFG_REBALANCE,        /* LOOM_COLL_REBALANCE */
    LOOM_COLL_CFG_SHM_FAULT,        /* LOOM_COLL_SHM_FAULT */
    LOOM_COLL_CFG_COUNT
};

extern loom_config_var_t loom_coll_config_vars[LOOM_COLL_CFG_COUNT];
/** Component "collectives". */
extern loom_config_table_t loom_coll_config;

/** The handle of the collectives' variable @p name (an id above without its prefix). */
#define LOOM_COLL_CFG(name) (&loom_coll_config_vars[LOOM_COLL_CFG_##name])

#endif /* LOOM_COLL_CONFIG_INT_H */
