/*
 * config_ranges.h: accepted range of numeric LOOM_* variables.
 * R(NAME, min, max). A numeric variable not listed here accepts
 * 0 .. INT_MAX (INT), 0 .. 2^62 (SIZE) or 0 .. 1e9 (DOUBLE): negative values
 * are refused unless a row below allows them.
 */
R(BOOTSTRAP_TIMEOUT,  0,   1000000)
R(EAGER_LIMIT,        0,   1073741824)
R(RNDV_PUSH,          0,   1073741824)
R(PROGRESS_TIMEOUT,   0,   1000000)
R(SHM_RING_SLOTS,     2,   65536)
R(SHM_SLOT_SIZE,      256, 16777216)
R(COLL_SHM_FAULT,     -1,  1073741824)
R(IB_GID_INDEX,       -1,  65535)
R(IB_LAZY_THRESHOLD,  0,   1073741824)
R(IB_MCAST_DROP,      0,   0.5)
R(IB_MCAST_FAULT,     -1,  1073741824)
R(IB_STALL_FAULT,     -1,  1073741824)
