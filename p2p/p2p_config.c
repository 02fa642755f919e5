/*
 * p2p_config.c: the point-to-point engine's LOOM_* variables (see
 * p2p_config_int.h); p2p_setup.c reads them when it starts the engine.
 */
#include "p2p_config_int.h"

#include <string.h>

loom_config_var_t loom_p2p_config_vars[LOOM_P2P_CFG_COUNT] = {
    [LOOM_P2P_CFG_TRANSPORTS] = LOOM_CONFIG_VAR("LOOM_TRANSPORTS", STRING, "",
        "comma-separated transports allowed, from self,shm,ib,tcp (default: all available)"),
    [LOOM_P2P_CFG_EAGER_LIMIT] = LOOM_CONFIG_VAR_RANGE("LOOM_EAGER_LIMIT", SIZE, "",
        0, 1073741824,
        "largest message sent eagerly; larger ones use rendezvous (default: chosen per "
        "transport)"),
    [LOOM_P2P_CFG_RNDV_PUSH] = LOOM_CONFIG_VAR_RANGE("LOOM_RNDV_PUSH", SIZE, "",
        0, 1073741824,
        "bytes of a rendezvous message sent right behind its request-to-send, at most the "
        "eager limit (default: chosen per transport: the eager limit on tcp, 0 elsewhere)"),
    [LOOM_P2P_CFG_ERRORS] = LOOM_CONFIG_VAR("LOOM_ERRORS", STRING, "abort",
        "what a failed operation does: abort (the job, with a message) or return (the error "
        "code)"),
    [LOOM_P2P_CFG_PROGRESS_TIMEOUT] = LOOM_CONFIG_VAR_RANGE("LOOM_PROGRESS_TIMEOUT", DOUBLE, "0",
        0, 1000000,
        "seconds without progress in a blocking call before this rank reports its pending "
        "operations (0 = never)"),
    [LOOM_P2P_CFG_MT_IDLE_SPIN] = LOOM_CONFIG_VAR_RANGE("LOOM_MT_IDLE_SPIN", INT, "64", 0,
        1000000,
        "MPI_THREAD_MULTIPLE, more threads waiting than cores: empty progress passes a "
        "blocking call makes before it gives its core to another thread (0 = at once)"),
};

loom_config_table_t loom_p2p_config = LOOM_CONFIG_TABLE("p2p", loom_p2p_config_vars, NULL);

int loom_p2p_transport_allowed(const char *name)
{
    const char *list = loom_config_str(LOOM_P2P_CFG(TRANSPORTS));
    size_t n = strlen(name);

    if (*list == '\0') {
        return 1;
    }
    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0) {
            return 1;
        }
        p += len + (p[len] == ',' ? 1 : 0);
    }
    return 0;
}
