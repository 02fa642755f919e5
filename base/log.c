/*
 * log.c: leveled, subsystem-filtered logging to stderr.
 */
#include "log_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define LOOM_LOG_MAX_SUBSYS 16

loom_log_level_t loom_log_max_level = LOOM_LOG_LEVEL_WARN;

static loom_log_level_t loom_log_base_level = LOOM_LOG_LEVEL_WARN;
static char loom_log_subsys[LOOM_LOG_MAX_SUBSYS][16];
static int  loom_log_num_subsys;
static char loom_log_ident[96];

static const char *const loom_log_level_names[] = {
    "error", "warn", "info", "debug", "trace",
};

static int loom_log_parse_level(const char *s, size_t len, loom_log_level_t *level_p)
{
    for (size_t i = 0; i < LOOM_ARRAY_SIZE(loom_log_level_names); ++i) {
        if (strlen(loom_log_level_names[i]) == len &&
            strncasecmp(s, loom_log_level_names[i], len) == 0) {
            *level_p = (loom_log_level_t)i;
            return 0;
        }
    }
    return -1;
}

int loom_log_configure(const char *spec)
{
    const char *colon, *p;
    loom_log_level_t level;
    size_t len;

    if (spec == NULL || *spec == '\0') {
        spec = "warn";
    }
    colon = strchr(spec, ':');
    len   = colon ? (size_t)(colon - spec) : strlen(spec);
    if (loom_log_parse_level(spec, len, &level) != 0) {
        return -1;
    }
    loom_log_num_subsys = 0;
    for (p = colon ? colon + 1 : NULL; p != NULL && *p != '\0';) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == 0 || n >= sizeof(loom_log_subsys[0]) ||
            loom_log_num_subsys == LOOM_LOG_MAX_SUBSYS) {
            return -1;
        }
        memcpy(loom_log_subsys[loom_log_num_subsys], p, n);
        loom_log_subsys[loom_log_num_subsys][n] = '\0';
        ++loom_log_num_subsys;
        p = comma ? comma + 1 : NULL;
    }
    /* a subsystem list raises only those subsystems above warn */
    loom_log_base_level = loom_log_num_subsys ? LOOM_LOG_LEVEL_WARN : level;
    loom_log_max_level  = level;
    return 0;
}

void loom_log_set_identity(int rank, const char *host)
{
    snprintf(loom_log_ident, sizeof(loom_log_ident), "%d@%s", rank,
             host ? host : "?");
}

const char *loom_log_identity(void)
{
    /* before the bootstrap names the rank: the process id and host */
    if (loom_log_ident[0] == '\0') {
        char host[64] = "?";
        gethostname(host, sizeof(host) - 1);
        snprintf(loom_log_ident, sizeof(loom_log_ident), "pid %d@%s", (int)getpid(), host);
    }
    return loom_log_ident;
}

int loom_log_enabled(loom_log_level_t level, const char *subsys)
{
    if (level <= loom_log_base_level) {
        return 1;
    }
    for (int i = 0; i < loom_log_num_subsys; ++i) {
        if (strcmp(loom_log_subsys[i], subsys) == 0) {
            return level <= loom_log_max_level;
        }
    }
    return 0;
}

void loom_log_emit(loom_log_level_t level, const char *subsys, const char *fmt, ...)
{
    int saved_errno = errno;
    char msg[1024];
    va_list ap;
    static const char *const tags[] = { "ERROR", "WARN", "INFO", "DEBUG", "TRACE" };

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* one write per line so lines of concurrent ranks never interleave */
    fprintf(stderr, "loom[%s] %s %s: %s\n", loom_log_identity(), tags[level], subsys, msg);
    fflush(stderr);
    errno = saved_errno;
}

void loom_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "loom[%s] assertion failed: %s at %s:%d\n", loom_log_identity(), expr,
            file, line);
    abort();
}
