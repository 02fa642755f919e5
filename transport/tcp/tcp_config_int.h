/*
 * tcp_config_int.h: the TCP transport's LOOM_TCP_* variables; the table is in
 * tcp_config.c and hangs off the tcp component descriptor
 * (transport/tl.c). Read them as loom_config_str(LOOM_TCP_CFG(IF)).
 */
#ifndef LOOM_TCP_CONFIG_INT_H
#define LOOM_TCP_CONFIG_INT_H

#include "config_int.h"

enum {
    LOOM_TCP_CFG_IF,
    LOOM_TCP_CFG_SOCKBUF,
    LOOM_TCP_CFG_COUNT
};

extern loom_config_var_t loom_tcp_config_vars[LOOM_TCP_CFG_COUNT];
/** Component "tcp". */
extern loom_config_table_t loom_tcp_config;

/** The handle of tcp's variable LOOM_TCP_<name>. */
#define LOOM_TCP_CFG(name) (&loom_tcp_config_vars[LOOM_TCP_CFG_##name])

#endif /* LOOM_TCP_CONFIG_INT_H */
