/*
 * rma_env.c: the one-sided layer's environment settings that are byte
 * counts (LOOM_RMA_ZCOPY, LOOM_RMA_CMA_MSG), parsed one way. At the bottom
 * of the layer's files: it calls none of them.
 */
#include "rma_priv.h"
#include "log_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t loom_rma_env_bytes(const char *name, size_t dflt)
{
    const char *env = getenv(name);
    char *end;
    unsigned long long v;

    if (env == NULL || *env == '\0') {
        return dflt;
    }
    errno = 0;
    v = strtoull(env, &end, 10);   /* takes "-1": refused below */
    /* past 64 bits strtoull says ERANGE and gives its largest value: a
     * count nobody meant (review of session 17: taken silently before) */
    if (*end != '\0' || end == env || strchr(env, '-') != NULL || errno == ERANGE ||
        v > SIZE_MAX) {
        loom_warn("rma", "%s=%s is not a byte count; using %zu", name, env, dflt);
        return dflt;
    }
    return (size_t)v;
}
