/*
 * config.c: the LOOM_* configuration table.
 */
#include "config_int.h"
#include "log_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
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
    "an integer",
    "a byte count, optionally with k, m or g (binary) suffix",
    "a number",
    "text",
};

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

    switch (type) {
    case LOOM_CFG_TYPE_BOOL:
        return loom_config_parse_bool(str, int_p);
    case LOOM_CFG_TYPE_SIZE:
        return loom_config_parse_size(str, int_p);
    case LOOM_CFG_TYPE_INT:
        errno = 0;
        *int_p = strtoll(str, &end, 0);
        return (errno == 0 && end != str && *end == '\0') ? LOOM_OK : LOOM_ERR_CONFIG;
    case LOOM_CFG_TYPE_DOUBLE:
        errno = 0;
        *double_p = strtod(str, &end);
        return (errno == 0 && end != str && *end == '\0' && isfinite(*double_p)) ?
               LOOM_OK : LOOM_ERR_CONFIG;
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
