/*
 * runtime_config.c: registers the union of the components' LOOM_* tables
 * (see runtime_config_int.h), in the order loom_info prints them: base, the
 * engine, the collectives, then each transport in order of preference.
 */
#include "runtime_config_int.h"
#include "base_config_int.h"
#include "p2p_config_int.h"
#include "coll_config_int.h"
#include "tl.h"

static loom_config_table_t *const loom_runtime_config_tables[] = {
    &loom_base_config,
    &loom_p2p_config,
    &loom_coll_config,
};

void loom_runtime_config_unload(void)
{
    for (size_t i = 0; i < LOOM_ARRAY_SIZE(loom_runtime_config_tables); ++i) {
        loom_config_unload(loom_runtime_config_tables[i]);
    }
    for (size_t i = 0; i < loom_tl_num_components; ++i) {
        if (loom_tl_components[i]->config != NULL) {
            loom_config_unload(loom_tl_components[i]->config);
        }
    }
}

loom_status_t loom_runtime_config_load(void)
{
    loom_status_t st = LOOM_OK;

    for (size_t i = 0; i < LOOM_ARRAY_SIZE(loom_runtime_config_tables); ++i) {
        if (loom_config_register(loom_runtime_config_tables[i]) != LOOM_OK) {
            st = LOOM_ERR_CONFIG;
        }
    }
    for (size_t i = 0; i < loom_tl_num_components; ++i) {
        loom_config_table_t *t = loom_tl_components[i]->config;

        if (t != NULL && loom_config_register(t) != LOOM_OK) {
            st = LOOM_ERR_CONFIG;
        }
    }
    if (st != LOOM_OK) {
        loom_runtime_config_unload();
    }
    return st;
}
