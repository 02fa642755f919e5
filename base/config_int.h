/*
 * config_int.h: the one configuration table. Every LOOM_* variable is
 * declared in config_vars.h, parsed once by loom_config_init() (bad values
 * are an error naming the variable, the value and what is accepted) and
 * read through the accessors below.
 */
#ifndef LOOM_CONFIG_INT_H
#define LOOM_CONFIG_INT_H

#include <loom.h>
#include <stdio.h>

typedef enum loom_config_id {
#define X(name, type, def, desc) LOOM_CFG_##name,
#include "config_vars.h"
#undef X
    LOOM_CFG_COUNT
} loom_config_id_t;

typedef enum loom_config_type {
    LOOM_CFG_TYPE_BOOL,
    LOOM_CFG_TYPE_INT,
    LOOM_CFG_TYPE_SIZE,
    LOOM_CFG_TYPE_DOUBLE,
    LOOM_CFG_TYPE_STRING,
} loom_config_type_t;

/** Parse every variable from the environment. Idempotent. */
loom_status_t loom_config_init(void);

/** Parse one value (used by tests and by loom_config_init). */
loom_status_t loom_config_parse_value(loom_config_type_t type, const char *str,
                                      long long *int_p, double *double_p);

/** 1 if the user set the variable (non-empty), 0 if the default applies. */
int         loom_config_is_set(loom_config_id_t id);
long long   loom_config_int(loom_config_id_t id);   /* BOOL, INT, SIZE */
double      loom_config_double(loom_config_id_t id);
const char *loom_config_str(loom_config_id_t id);   /* raw text, "" if unset */
const char *loom_config_name(loom_config_id_t id);  /* "LOOM_EAGER_LIMIT" */

/** Print the whole table (name, type, current value, default, meaning). */
void loom_config_print(FILE *out);

#endif /* LOOM_CONFIG_INT_H */
