/*
 * config_int.h: the machinery of the LOOM_* configuration; the variables
 * belong to the components that read them.
 *
 * A component declares its variables in a table of its own folder (e.g.
 * transport/shm/shm_config.c): one loom_config_var_t per variable (full
 * name, type, default, meaning, accepted range), indexed by the
 * component's id enum, and a loom_config_table_t naming the component.
 * loom_config_register() lists the table (for loom_config_print, i.e.
 * loom_info) and parses its variables from the environment once: a bad
 * value is an error naming the variable, the value and what is accepted.
 * The parsed value sits in the variable itself, so a variable's address is
 * its handle: loom_config_int(LOOM_SHM_CFG(RING_SLOTS)) is one load, and
 * hot paths never parse. The runtime (runtime/runtime_config.c) registers
 * the union: base, p2p, collectives and each transport's table (which hangs
 * off its component descriptor, transport/tl.h).
 *
 * A LOOM_* variable no table declares is ignored, as it always was.
 */
#ifndef LOOM_CONFIG_INT_H
#define LOOM_CONFIG_INT_H

#include <loom.h>
#include "compiler_int.h"

#include <stdio.h>

typedef enum loom_config_type {
    LOOM_CFG_TYPE_BOOL,     /* 0/1/yes/no/on/off/true/false */
    LOOM_CFG_TYPE_INT,      /* decimal */
    LOOM_CFG_TYPE_SIZE,     /* bytes, with k/m/g (binary) suffixes */
    LOOM_CFG_TYPE_DOUBLE,
    LOOM_CFG_TYPE_STRING,   /* validated by its user */
} loom_config_type_t;

/** One variable: its declaration (constant) and its parsed value. */
typedef struct loom_config_var {
    const char         *name;     /**< "LOOM_SHM_RING_SLOTS" */
    loom_config_type_t  type;
    const char         *def;      /**< parsed like a user value; "" = unset/automatic */
    const char         *desc;
    int                 ranged;   /**< 1: [min, max] below; 0: the type's range: */
    double              min, max; /*    0 .. INT_MAX, 0 .. 2^62 bytes, 0 .. 1e9 */
    /* filled by loom_config_register */
    int                 set;      /**< the user set it (non-empty) */
    const char         *str;      /**< the text in force (the default if unset) */
    long long           ival;     /**< BOOL, INT, SIZE */
    double              dval;     /**< DOUBLE */
} loom_config_var_t;

/** A row of a component's table (designated by its id: [ID] = LOOM_CONFIG_VAR(...)). */
#define LOOM_CONFIG_VAR(name, type, def, desc) \
    { name, LOOM_CFG_TYPE_##type, def, desc, 0, 0, 0, 0, NULL, 0, 0 }
/** A numeric row with its accepted range [lo, hi] (negative values only this way). */
#define LOOM_CONFIG_VAR_RANGE(name, type, def, lo, hi, desc) \
    { name, LOOM_CFG_TYPE_##type, def, desc, 1, (lo), (hi), 0, NULL, 0, 0 }

/** A component's variables. */
typedef struct loom_config_table {
    const char               *component;   /**< "shm", printed by loom_info */
    loom_config_var_t        *vars;
    int                       count;
    /** optional: checks across the parsed values (e.g. base configures the log) */
    loom_status_t           (*check)(struct loom_config_table *table);
    int                       loaded;      /**< parsed without error */
    int                       listed;      /**< on the registered list */
    struct loom_config_table *next;
} loom_config_table_t;

/** Initializer of a table over the array @p vars. */
#define LOOM_CONFIG_TABLE(component, vars, check) \
    { component, vars, (int)LOOM_ARRAY_SIZE(vars), check, 0, 0, NULL }

/**
 * List @p table for loom_config_print and parse its variables from the
 * environment, once (later calls return LOOM_OK at once; a failed parse is
 * redone by the next call, so a fixed environment can be retried).
 * @return LOOM_OK, or LOOM_ERR_CONFIG after logging every bad value.
 */
loom_status_t loom_config_register(loom_config_table_t *table);

/** Forget @p table's parse: the next loom_config_register reads the environment again. */
static inline void loom_config_unload(loom_config_table_t *table)
{
    table->loaded = 0;
}

/**
 * The registered variable called @p name ("LOOM_SHM_CMA"), for a component
 * that reads another's setting without seeing its header; NULL if no
 * registered table declares it. A linear search: look up once, not per call.
 */
const loom_config_var_t *loom_config_find(const char *name);

/** Parse one value (used by tests and by loom_config_register). */
loom_status_t loom_config_parse_value(loom_config_type_t type, const char *str,
                                      long long *int_p, double *double_p);

/** 1 if the user set the variable (non-empty), 0 if the default applies. */
static inline int loom_config_is_set(const loom_config_var_t *v)
{
    return v->set;
}

/** The value of a BOOL, INT or SIZE variable (0 before its table is registered). */
static inline long long loom_config_int(const loom_config_var_t *v)
{
    return v->ival;
}

/** The value of a DOUBLE variable. */
static inline double loom_config_double(const loom_config_var_t *v)
{
    return v->dval;
}

/** The text in force ("" if unset and without default, or not yet parsed). */
static inline const char *loom_config_str(const loom_config_var_t *v)
{
    return v->str ? v->str : "";
}

/** "LOOM_EAGER_LIMIT" */
static inline const char *loom_config_name(const loom_config_var_t *v)
{
    return v->name;
}

/** Print every registered table, by component (name, type, value, default, meaning). */
void loom_config_print(FILE *out);

#endif /* LOOM_CONFIG_INT_H */
