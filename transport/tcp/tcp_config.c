/*
 * tcp_config.c: the TCP transport's LOOM_TCP_* variables (see tcp_config_int.h).
 */
#include "tcp_config_int.h"

loom_config_var_t loom_tcp_config_vars[LOOM_TCP_CFG_COUNT] = {
    [LOOM_TCP_CFG_IF] = LOOM_CONFIG_VAR("LOOM_TCP_IF", STRING, "",
        "network interface or address the TCP transport listens on"),
    [LOOM_TCP_CFG_SOCKBUF] = LOOM_CONFIG_VAR("LOOM_TCP_SOCKBUF", SIZE, "",
        "TCP socket send/receive buffer size (default: the kernel's autotuning, up to "
        "net.ipv4.tcp_wmem/rmem)"),
};

loom_config_table_t loom_tcp_config = LOOM_CONFIG_TABLE("tcp", loom_tcp_config_vars, NULL);
