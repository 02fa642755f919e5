/*
 * log_int.h: leveled logging. The level is checked before any formatting;
 * errno is preserved across a log call. Messages are prefixed with this
 * process's rank and host once the bootstrap knows them:
 *     loom[3@node7] ERROR shm: ...
 * LOOM_LOG=level[:subsys,subsys...], e.g. LOOM_LOG=debug:shm,p2p shows debug
 * messages of those subsystems and warnings and errors of all.
 */
#ifndef LOOM_LOG_INT_H
#define LOOM_LOG_INT_H

#include "compiler_int.h"

typedef enum loom_log_level {
    LOOM_LOG_LEVEL_ERROR = 0,
    LOOM_LOG_LEVEL_WARN,
    LOOM_LOG_LEVEL_INFO,
    LOOM_LOG_LEVEL_DEBUG,
    LOOM_LOG_LEVEL_TRACE,
} loom_log_level_t;

/* Highest level enabled for any subsystem: the inline check. */
extern loom_log_level_t loom_log_max_level;

/** Parse a LOOM_LOG value; 0 on success, -1 (and *err names why) on error. */
int loom_log_configure(const char *spec);

/** Set the "rank@host" identity shown in each line. */
void loom_log_set_identity(int rank, const char *host);

/** "rank@host" of this process, for error messages that name both ends. */
const char *loom_log_identity(void);

int loom_log_enabled(loom_log_level_t level, const char *subsys);

void loom_log_emit(loom_log_level_t level, const char *subsys, const char *fmt, ...)
    LOOM_PRINTF(3, 4);

#define loom_log_(level, subsys, ...)                                           \
    do {                                                                        \
        if (loom_unlikely((level) <= loom_log_max_level) &&                      \
            loom_log_enabled((level), (subsys))) {                              \
            loom_log_emit((level), (subsys), __VA_ARGS__);                      \
        }                                                                       \
    } while (0)

#define loom_error(subsys, ...) loom_log_(LOOM_LOG_LEVEL_ERROR, subsys, __VA_ARGS__)
#define loom_warn(subsys, ...)  loom_log_(LOOM_LOG_LEVEL_WARN, subsys, __VA_ARGS__)
#define loom_info(subsys, ...)  loom_log_(LOOM_LOG_LEVEL_INFO, subsys, __VA_ARGS__)
#define loom_debug(subsys, ...) loom_log_(LOOM_LOG_LEVEL_DEBUG, subsys, __VA_ARGS__)
#define loom_trace(subsys, ...) loom_log_(LOOM_LOG_LEVEL_TRACE, subsys, __VA_ARGS__)

#endif /* LOOM_LOG_INT_H */
