/*
 * info_int.h: what the runtime tells about itself, for the loom_info tool
 * (tools/loom_info.c), which may see no layer but this one: the build, the
 * transports in order of preference, every LOOM_* variable and the
 * collectives' selection tables. Each call works before loom_init().
 */
#ifndef LOOM_INFO_INT_H
#define LOOM_INFO_INT_H

#include <loom.h>
#include <stdio.h>

/** Parse every LOOM_* variable; a bad value is reported, naming it. */
loom_status_t loom_info_config_load(void);

/** Version, build configuration, transports, every LOOM_* variable. */
void loom_info_print_all(FILE *out);

/** The collective algorithm selection tables. */
void loom_info_print_collectives(FILE *out);

#endif /* LOOM_INFO_INT_H */
