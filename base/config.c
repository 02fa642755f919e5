/*
 * config.c: the machinery of the LOOM_* configuration (see config_int.h):
 * the list of registered component tables, the parsers and range checks,
 * and the printout loom_info shows. It declares no variable of its own
 * (base's are in base_config.c).
 */
#include "config_int.h"
#include "log_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* the registered tables, in registration order (loom_info prints them so) */
static loom_config_table_t *loom_config_tables;

static const char *const loom_config_type_names[] = {
    "bool", "int", "size", "double", "string",
};

static const char *const loom_config_type_hint[] = {
    "0, 1, yes, no, on, off, true or false",
    "an integer (decimal)",
    "a byte count, optionally with k, m or g (binary) suffix",
    "a number",
    "text",
};

/* Range of a numeric variable: its own or its type's. */
static void loom_config_range(const loom_config_var_t *v, double *min_p, double *max_p)
{
    if (v->ranged) {
        *min_p = v->min;
        *max_p = v->max;
        return;
    }
    *min_p = 0;
    switch (v->type) {
    case LOOM_CFG_TYPE_INT:    *max_p = INT32_MAX; break;
    case LOOM_CFG_TYPE_SIZE:   *max_p = 4611686018427387904.0; break;
    case LOOM_CFG_TYPE_DOUBLE: *max_p = 1e9; break;
    default:                   *max_p = 1; break;
    }
}

static loom_status_t loom_config_check_range(const loom_config_var_t *v)
{
    double x, lo, hi;

    if (v->type == LOOM_CFG_TYPE_STRING || v->type == LOOM_CFG_TYPE_BOOL) {
        return LOOM_OK;
    }
    x = (v->type == LOOM_CFG_TYPE_DOUBLE) ? v->dval : (double)v->ival;
    loom_config_range(v, &lo, &hi);
    if (x >= lo && x <= hi) {
        return LOOM_OK;
    }
    loom_error("config", "%s='%s' is out of range: it must be between %.15g and %.15g (%s)",
               v->name, v->str, lo, hi, v->desc);
    return LOOM_ERR_CONFIG;
}

static loom_status_t loom_config_parse_bool(const char *s, long long *v_p)
{
    static const char *const yes[] = { "1", "yes", "on", "true" };
    static const char *const no[]  = { "0", "no", "off", "false" };

    for (size_t i = 0; i < LOOM_ARRAY_SIZE(yes); ++i) {
        if (strcasecmp(s, yes[i]) == 0) {
            *v_p = 1;
            return LOOM_OK;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *v_p = 0;
            return LOOM_OK;
        }
    }
    return LOOM_ERR_CONFIG;
}

static loom_status_t loom_config_parse_size(const char *s, long long *v_p)
{
    char *end;
    unsigned long long v, mult = 1;

    if (!isdigit((unsigned char)*s)) {
        return LOOM_ERR_CONFIG;
    }
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0) {
        return LOOM_ERR_CONFIG;
    }
    switch (tolower((unsigned char)*end)) {
    case 'k': mult = 1ULL << 10; ++end; break;
    case 'm': mult = 1ULL << 20; ++end; break;
    case 'g': mult = 1ULL << 30; ++end; break;
    default: break;
    }
    if (tolower((unsigned char)*end) == 'b') {
        ++end;
    }
    if (*end != '\0' || v > (unsigned long long)INT64_MAX / mult) {
        return LOOM_ERR_CONFIG;
    }
    *v_p = (long long)(v * mult);
    return LOOM_OK;
}

loom_status_t loom_config_parse_value(loom_config_type_t type, const char *str,
                                      long long *int_p, double *double_p)
{
    char *end;
    long long ival;
    double dval;

    switch (type) {
    case LOOM_CFG_TYPE_BOOL:
        return loom_config_parse_bool(str, int_p);
    case LOOM_CFG_TYPE_SIZE:
        return loom_config_parse_size(str, int_p);
    case LOOM_CFG_TYPE_INT:
        /* decimal only: "010" is ten, not octal eight */
        errno = 0;
        ival = strtoll(str, &end, 10);
        if (errno != 0 || end == str || *end != '\0') {
            return LOOM_ERR_CONFIG;
        }
        *int_p = ival;
        return LOOM_OK;
    case LOOM_CFG_TYPE_DOUBLE:
        errno = 0;
        dval = strtod(str, &end);
        if (errno != 0 || end == str || *end != '\0' || !isfinite(dval)) {
            return LOOM_ERR_CONFIG;
        }
        *double_p = dval;
        return LOOM_OK;
    case LOOM_CFG_TYPE_STRING:
        return LOOM_OK;
    }
    return LOOM_ERR_CONFIG;
}

/* Parse one variable from the environment (or its default). */
static loom_status_t loom_config_var_load(loom_config_var_t *v)
{
    const char *env = getenv(v->name);
    int set = env != NULL && *env != '\0';

    v->set  = set;
    v->str  = set ? env : v->def;
    v->ival = 0;
    v->dval = 0;
    if (*v->str == '\0') {
        return LOOM_OK; /* automatic: the component decides */
    }
    if (loom_config_parse_value(v->type, v->str, &v->ival, &v->dval) != LOOM_OK) {
        loom_error("config", "%s='%s' is not valid: expected %s (%s)", v->name, v->str,
                   loom_config_type_hint[v->type], v->desc);
        return LOOM_ERR_CONFIG;
    }
    return loom_config_check_range(v);
}

static void loom_config_list(loom_config_table_t *table)
{
    loom_config_table_t **tail = &loom_config_tables;

    if (table->listed) {
        return;
    }
    while (*tail != NULL) {
        tail = &(*tail)->next;
    }
    table->next = NULL;
    *tail = table;
    table->listed = 1;
}

loom_status_t loom_config_register(loom_config_table_t *table)
{
    loom_status_t status = LOOM_OK;

    if (table->loaded) {
        return LOOM_OK;
    }
    loom_config_list(table);
    for (int id = 0; id < table->count; ++id) {
        loom_config_var_t *v = &table->vars[id];

        if (v->name == NULL || v->def == NULL || v->desc == NULL) {
            loom_error("config", "component %s: variable %d of %d has no row in its table",
                       table->component, id, table->count);
            status = LOOM_ERR_CONFIG;
        } else if (loom_config_var_load(v) != LOOM_OK) {
            status = LOOM_ERR_CONFIG;
        }
    }
    /* run even after a bad value, so every error is reported at once */
    if (table->check != NULL && table->check(table) != LOOM_OK) {
        status = LOOM_ERR_CONFIG;
    }
    if (status == LOOM_OK) {
        table->loaded = 1;
    }
    return status;
}

const loom_config_var_t *loom_config_find(const char *name)
{
    for (const loom_config_table_t *t = loom_config_tables; t != NULL; t = t->next) {
        for (int id = 0; id < t->count; ++id) {
            if (t->vars[id].name != NULL && strcmp(t->vars[id].name, name) == 0) {
                return &t->vars[id];
            }
        }
    }
    return NULL;
}

void loom_config_print(FILE *out)
{
    for (const loom_config_table_t *t = loom_config_tables; t != NULL; t = t->next) {
        fprintf(out, "[%s]\n", t->component);
        for (int id = 0; id < t->count; ++id) {
            const loom_config_var_t *e = &t->vars[id];
            const char *v = e->str ? e->str : e->def;

            if (e->name == NULL) {
                continue;
            }
            fprintf(out, "%-28s %-6s value=%-10s default=%-8s %s\n", e->name,
                    loom_config_type_names[e->type], *v ? v : "(auto)",
                    *e->def ? e->def : "(auto)", e->desc);
        }
    }
}
