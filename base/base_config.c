/*
 * base_config.c: base's LOOM_* variables (see base_config_int.h). Registering
 * the table applies LOOM_LOG at once, so later messages obey it.
 */
#include "base_config_int.h"
#include "log_int.h"

loom_config_var_t loom_base_config_vars[LOOM_BASE_CFG_COUNT] = {
    [LOOM_BASE_CFG_LOG] = LOOM_CONFIG_VAR("LOOM_LOG", STRING, "warn",
        "log level and optional subsystems: error|warn|info|debug|trace[:subsys,...]"),
    [LOOM_BASE_CFG_OVERSUBSCRIBED] = LOOM_CONFIG_VAR("LOOM_OVERSUBSCRIBED", BOOL, "",
        "yield the CPU when idle; set by loomrun when ranks outnumber cores (auto: local "
        "ranks > online cores)"),
    [LOOM_BASE_CFG_BOOTSTRAP_TIMEOUT] = LOOM_CONFIG_VAR_RANGE("LOOM_BOOTSTRAP_TIMEOUT", INT, "300",
        0, 1000000,
        "seconds a bootstrap (PMIx) fence or get waits for the other ranks before failing (0 "
        "= forever)"),
    [LOOM_BASE_CFG_MT_SPIN] = LOOM_CONFIG_VAR_RANGE("LOOM_MT_SPIN", INT, "200", 0, 1000000,
        "MPI_THREAD_MULTIPLE: checks a thread that finds the engine lock taken makes (a "
        "spin-wait hint between them) before it sleeps on it"),
};

/* LOOM_LOG's grammar is the log's: apply it (and refuse what it refuses) */
static loom_status_t loom_base_config_check(loom_config_table_t *table)
{
    const char *spec = loom_config_str(&table->vars[LOOM_BASE_CFG_LOG]);

    if (loom_log_configure(spec) != 0) {
        loom_error("config", "LOOM_LOG='%s' is not valid: expected "
                   "error|warn|info|debug|trace, optionally followed by "
                   ":subsystem[,subsystem...]", spec);
        return LOOM_ERR_CONFIG;
    }
    return LOOM_OK;
}

loom_config_table_t loom_base_config =
    LOOM_CONFIG_TABLE("base", loom_base_config_vars, loom_base_config_check);
