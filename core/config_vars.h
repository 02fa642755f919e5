/*
 * config_vars.h: every LOOM_* environment variable, in one table.
 * X(NAME, TYPE, default, description)
 *   NAME: the variable is LOOM_<NAME>, the id LOOM_CFG_<NAME>.
 *   TYPE: BOOL (0/1/yes/no/on/off/true/false), INT, SIZE (accepts k/m/g
 *         suffixes, binary), DOUBLE, STRING (validated by its user).
 *   default: a string parsed like a user value; "" means unset/automatic.
 * Add a variable here and nowhere else; loom_info prints this table.
 */
X(LOG,                   STRING, "warn", "log level and optional subsystems: error|warn|info|debug|trace[:subsys,...]")
X(OVERSUBSCRIBED,        BOOL,   "",     "yield the CPU when idle; set by loomrun when ranks outnumber cores (auto: local ranks > online cores)")
X(BOOTSTRAP_TIMEOUT,     INT,    "300",  "seconds a bootstrap (PMIx) fence or get waits for the other ranks before failing (0 = forever)")
X(TRANSPORTS,            STRING, "",     "comma-separated transports allowed, from self,shm,ib,tcp (default: all available)")
X(EAGER_LIMIT,           SIZE,   "",     "largest message sent eagerly; larger ones use rendezvous (default: chosen per transport)")
X(RNDV_PUSH,             SIZE,   "",     "bytes of a rendezvous message sent right behind its request-to-send, at most the eager limit (default: chosen per transport: the eager limit on tcp, 0 elsewhere)")
X(ERRORS,                STRING, "abort","what a failed operation does: abort (the job, with a message) or return (the error code)")
X(PROGRESS_TIMEOUT,      DOUBLE, "0",    "seconds without progress in a blocking call before this rank reports its pending operations (0 = never)")
X(SHM_RING_SLOTS,        INT,    "64",   "slots in each shared-memory ring (one ring per pair of local ranks), a power of two")
X(SHM_SLOT_SIZE,         SIZE,   "8k",   "bytes per shared-memory ring slot (payload plus header)")
X(SHM_CMA,               STRING, "auto", "single-copy rendezvous with process_vm_readv: auto|on|off (off = pipelined copy through the segment)")
X(DETERMINISTIC,         BOOL,   "0",    "allreduce/reduce give bitwise-identical floating-point results whatever the algorithm or rank placement")
X(BARRIER_ALGORITHM,     STRING, "",     "force the barrier algorithm (see loom_info --collectives)")
X(BCAST_ALGORITHM,       STRING, "",     "force the bcast algorithm")
X(REDUCE_ALGORITHM,      STRING, "",     "force the reduce algorithm")
X(ALLREDUCE_ALGORITHM,   STRING, "",     "force the allreduce algorithm")
X(ALLGATHER_ALGORITHM,   STRING, "",     "force the allgather algorithm")
X(GATHER_ALGORITHM,      STRING, "",     "force the gather algorithm")
X(SCATTER_ALGORITHM,     STRING, "",     "force the scatter algorithm")
X(ALLTOALL_ALGORITHM,    STRING, "",     "force the alltoall algorithm")
X(REDUCE_SCATTER_ALGORITHM, STRING, "",  "force the reduce_scatter_block algorithm")
X(NEIGHBOR_ALGORITHM,    STRING, "",     "force the neighbourhood collectives' algorithm")
X(COLL_REBALANCE,         BOOL,   "1",    "ranks outnumber cores, unbound: the highest rank on a CPU with two more of the node's ranks than another moves itself there, and back if the job got no faster (CPU mask kept)")
X(COLL_SHM_FAULT,         INT,    "-1",   "testing: this communicator rank fails to map the on-node collective segment, as if /dev/shm were full (-1 = off)")
X(IB_DEVICE,             STRING, "",     "verbs device and port, name:port (default: first active port)")
X(IB_GID_INDEX,          INT,    "-1",   "GID index on RoCE (-1 = the RoCE v2 GID of the interface address)")
X(IB_LAZY_THRESHOLD,     INT,    "64",   "job size above which RC connections are made on demand")
X(IB_RCACHE_MAX,         SIZE,   "1g",   "bytes of memory the verbs registration cache may keep registered")
X(IB_MCAST_THRESHOLD,    SIZE,   "64k",  "largest bcast sent by UD multicast")
X(IB_MCAST_DROP,         DOUBLE, "0",    "test only: fraction of multicast packets dropped on receive")
X(IB_MCAST_FAULT,        INT,    "-1",   "test only: this world rank fails to join multicast groups (-1 = off)")
X(IB_STALL_TIMEOUT,      DOUBLE, "4",    "seconds a peer with work outstanding may go without a completion before it is declared failed")
X(IB_STALL_FAULT,        INT,    "-1",   "test only: the ib watchdog of this world rank takes every connected peer for stalled and declares it failed after LOOM_IB_STALL_TIMEOUT (-1 = off)")
X(TCP_IF,                STRING, "",     "network interface or address the TCP transport listens on")
X(TCP_SOCKBUF,           SIZE,   "",     "TCP socket send/receive buffer size (default: the kernel's autotuning, up to net.ipv4.tcp_wmem/rmem)")
