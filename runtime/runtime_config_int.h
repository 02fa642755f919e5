/*
 * runtime_config_int.h: the union of the components' LOOM_* tables. The
 * runtime, which sees every layer, holds the one list of the non-transport
 * tables (base, p2p, collectives); the transports' hang off their component
 * descriptors (transport/tl.h). loom_init and loom_info register them all.
 */
#ifndef LOOM_RUNTIME_CONFIG_INT_H
#define LOOM_RUNTIME_CONFIG_INT_H

#include <loom.h>

/**
 * Register and parse every component's table (once; see
 * loom_config_register), base first so LOOM_LOG applies to what follows.
 * Every table is parsed even after a bad value, so all of them are reported;
 * after one, the next call reads them all again (a fixed environment can be
 * retried), as after success it reads none.
 * @return LOOM_OK, or LOOM_ERR_CONFIG.
 */
loom_status_t loom_runtime_config_load(void);

/**
 * Forget every table's parse, so the next load reads the environment again:
 * after a bad value, and after any failed loom_init (a value its user
 * refused later, e.g. LOOM_ERRORS or a LOOM_<COLL>_ALGORITHM name, is read
 * afresh by the retry too).
 */
void loom_runtime_config_unload(void);

#endif /* LOOM_RUNTIME_CONFIG_INT_H */
