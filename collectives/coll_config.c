/*
 * coll_config.c: the collectives' LOOM_* variables (see coll_config_int.h);
 * coll_select.c validates the forced algorithms at loom_init.
 */
#include "coll_config_int.h"

loom_config_var_t loom_coll_config_vars[LOOM_COLL_CFG_COUNT] = {
    [LOOM_COLL_CFG_DETERMINISTIC] = LOOM_CONFIG_VAR("LOOM_DETERMINISTIC", BOOL, "0",
        "allreduce/reduce give bitwise-identical floating-point results whatever the "
        "algorithm or rank placement"),
    [LOOM_COLL_CFG_BARRIER_ALGORITHM] = LOOM_CONFIG_VAR("LOOM_BARRIER_ALGORITHM", STRING, "",
        "force the barrier algorithm (see loom_info --collectives)"),
    [LOOM_COLL_CFG_BCAST_ALGORITHM] = LOOM_CONFIG_VAR("LOOM_BCAST_ALGORITHM", STRING, "",
        "force the bcast algorithm"),
    [LOOM_COLL_CFG_REDUCE_ALGORITHM] = LOOM_CONFIG_VAR("LOOM_REDUCE_ALGORITHM", STRING, "",
        "force the reduce algorithm"),
    [LOOM_COLL_CFG_ALLREDUCE_ALGORITHM] = LOOM_CONFIG_VAR(
        "LOOM_ALLREDUCE_ALGORITHM", STRING, "",
        "force the allreduce algorithm"),
    [LOOM_COLL_CFG_ALLGATHER_ALGORITHM] = LOOM_CONFIG_VAR(
        "LOOM_ALLGATHER_ALGORITHM", STRING, "",
        "force the allgather algorithm"),
    [LOOM_COLL_CFG_GATHER_ALGORITHM] = LOOM_CONFIG_VAR("LOOM_GATHER_ALGORITHM", STRING, "",
        "force the gather algorithm"),
    [LOOM_COLL_CFG_SCATTER_ALGORITHM] = LOOM_CONFIG_VAR("LOOM_SCATTER_ALGORITHM", STRING, "",
        "force the scatter algorithm"),
    [LOOM_COLL_CFG_ALLTOALL_ALGORITHM] = LOOM_CONFIG_VAR("LOOM_ALLTOALL_ALGORITHM", STRING, "",
        "force the alltoall algorithm"),
    [LOOM_COLL_CFG_REDUCE_SCATTER_ALGORITHM] = LOOM_CONFIG_VAR(
        "LOOM_REDUCE_SCATTER_ALGORITHM", STRING, "",
        "force the reduce_scatter_block algorithm"),
    [LOOM_COLL_CFG_NEIGHBOR_ALGORITHM] = LOOM_CONFIG_VAR("LOOM_NEIGHBOR_ALGORITHM", STRING, "",
        "force the neighbourhood collectives' algorithm"),
    [LOOM_COLL_CFG_SCAN_ALGORITHM] = LOOM_CONFIG_VAR("LOOM_SCAN_ALGORITHM", STRING, "",
        "force the scan algorithm"),
    [LOOM_COLL_CFG_EXSCAN_ALGORITHM] = LOOM_CONFIG_VAR("LOOM_EXSCAN_ALGORITHM", STRING, "",
        "force the exscan algorithm"),
    [LOOM_COLL_CFG_REDUCE_SCATTERV_ALGORITHM] = LOOM_CONFIG_VAR(
        "LOOM_REDUCE_SCATTERV_ALGORITHM", STRING, "",
        "force the algorithm of reduce_scatter with per-rank counts (MPI_Reduce_scatter)"),
    [LOOM_COLL_CFG_ALLTOALLW_ALGORITHM] = LOOM_CONFIG_VAR(
        "LOOM_ALLTOALLW_ALGORITHM", STRING, "",
        "force the alltoallw algorithm"),
    [LOOM_COLL_CFG_REBALANCE] = LOOM_CONFIG_VAR("LOOM_COLL_REBALANCE", BOOL, "1",
        "ranks outnumber cores, unbound: the highest rank on a CPU with two more of the "
        "node's ranks than another moves itself there, and back if the job got no faster (CPU "
        "mask kept)"),
    [LOOM_COLL_CFG_SHM_FAULT] = LOOM_CONFIG_VAR_RANGE("LOOM_COLL_SHM_FAULT", INT, "-1",
        -1, 1073741824,
        "testing: this communicator rank fails to map the on-node collective segment, as if "
        "/dev/shm were full (-1 = off)"),
};

loom_config_table_t loom_coll_config =
    LOOM_CONFIG_TABLE("collectives", loom_coll_config_vars, NULL);
