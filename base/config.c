/*
 * config.c: the LOOM_* configuration table.
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

typedef struct loom_config_entry {
    const char         *name;
    loom_config_type_t  type;
    const char         *def;
    const char         *desc;
} loom_config_entry_t;

static const loom_config_entry_t loom_config_table[LOOM_CFG_COUNT] = {
#define X(name, type, def, desc) { "LOOM_" #name, LOOM_CFG_TYPE_##type, def, desc },
#include "config_vars.h"
#undef X
};

typedef struct loom_config_range {
    int    listed;
    double min;
    double max;
} loom_config_range_t;

static const loom_config_range_t loom_config_ranges[LOOM_CFG_COUNT] = {
#define R(name, lo, hi) [LOOM_CFG_##name] = { 1, (lo), (hi) },
#include "config_ranges.h"
#undef R
};

static struct {
    int         set;
    const char *str;
    long long   ival;
    double      dval;
} loom_config_values[LOOM_CFG_COUNT];

static int loom_config_done;

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

/* Range of a numeric variable: its row in config_ranges.h or the default. */
static void loom_config_range(int id, double *min_p, double *max_p)
{
    if (loom_config_ranges[id].listed) {
        *min_p = loom_config_ranges[id].min;
        *max_p = loom_config_ranges[id].max;
        return;
    }
    *min_p = 0;
    switch (loom_config_table[id].type) {
    case LOOM_CFG_TYPE_INT:    *max_p = INT32_MAX; break;
    case LOOM_CFG_TYPE_SIZE:   *max_p = 4611686018427387904.0; break;
    case LOOM_CFG_TYPE_DOUBLE: *max_p = 1e9; break;
    default:                   *max_p = 1; break;
    }
}

static loom_status_t loom_config_check_range(int id)
{
    const loom_config_entry_t *e = &loom_config_table[id];
    double v, lo, hi;

    if (e->type == LOOM_CFG_TYPE_STRING || e->type == LOOM_CFG_TYPE_BOOL) {
        return LOOM_OK;
    }
    v = (e->type == LOOM_CFG_TYPE_DOUBLE) ? loom_config_values[id].dval :
                                            (double)loom_config_values[id].ival;
    loom_config_range(id, &lo, &hi);
    if (v >= lo && v <= hi) {
        return LOOM_OK;
    }
    loom_error("config", "%s='%s' is out of range: it must be between %.15g and %.15g (%s)",
               e->name, loom_config_values[id].str, lo, hi, e->desc);
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

loom_status_t loom_config_init(void)
{
    loom_status_t status = LOOM_OK;

    if (loom_config_done) {
        return LOOM_OK;
    }
    for (int id = 0; id < LOOM_CFG_COUNT; ++id) {
        const loom_config_entry_t *e = &loom_config_table[id];
        const char *env = getenv(e->name);
        int set = env != NULL && *env != '\0';
        const char *str = set ? env : e->def;

        loom_config_values[id].set  = set;
        loom_config_values[id].str  = str;
        loom_config_values[id].ival = 0;
        loom_config_values[id].dval = 0;
        if (*str == '\0') {
            continue; /* automatic: the component decides */
        }
        if (loom_config_parse_value(e->type, str, &loom_config_values[id].ival,
                                    &loom_config_values[id].dval) != LOOM_OK) {
            loom_error("config", "%s='%s' is not valid: expected %s (%s)", e->name,
                       str, loom_config_type_hint[e->type], e->desc);
            status = LOOM_ERR_CONFIG;
        } else if (loom_config_check_range(id) != LOOM_OK) {
            status = LOOM_ERR_CONFIG;
        }
    }
    if (loom_log_configure(loom_config_values[LOOM_CFG_LOG].str) != 0) {
        loom_error("config", "LOOM_LOG='%s' is not valid: expected "
                   "error|warn|info|debug|trace, optionally followed by "
                   ":subsystem[,subsystem...]", loom_config_values[LOOM_CFG_LOG].str);
        status = LOOM_ERR_CONFIG;
    }
    if (status == LOOM_OK) {
        loom_config_done = 1;
    }
    return status;
}

int loom_config_is_set(loom_config_id_t id)
{
    return loom_config_values[id].set;
}

long long loom_config_int(loom_config_id_t id)
{
    return loom_config_values[id].ival;
}

double loom_config_double(loom_config_id_t id)
{
    return loom_config_values[id].dval;
}

const char *loom_config_str(loom_config_id_t id)
{
    const char *s = loom_config_values[id].str;
    return s ? s : "";
}

const char *loom_config_name(loom_config_id_t id)
{
    return loom_config_table[id].name;
}

void loom_config_print(FILE *out)
{
    for (int id = 0; id < LOOM_CFG_COUNT; ++id) {
        const loom_config_entry_t *e = &loom_config_table[id];
        const char *v = loom_config_values[id].str ? loom_config_values[id].str : e->def;
        fprintf(out, "%-28s %-6s value=%-10s default=%-8s %s\n", e->name,
                loom_config_type_names[e->type], *v ? v : "(auto)",
                *e->def ? e->def : "(auto)", e->desc);
    }
}
