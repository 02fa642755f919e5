/*
 * loom_info: what this loom build is and how it is configured, like
 * ompi_info or ucx_info.
 *
 *     loom_info                 version, build, transports, every LOOM_* variable
 *     loom_info --collectives   the collective algorithm selection tables
 */
#include "info_int.h"

#include <stdio.h>
#include <string.h>

static void loom_info_usage(FILE *out)
{
    fprintf(out, "usage: loom_info [--collectives] [-h|--help]\n"
                 "  (no option)     version, build configuration, transports, and\n"
                 "                  every LOOM_* variable with its current value\n"
                 "  --collectives   the collective algorithm selection tables\n");
}

int main(int argc, char **argv)
{
    int collectives = 0;

    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--collectives")) {
            collectives = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            loom_info_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "loom_info: unknown option '%s'\n", argv[i]);
            loom_info_usage(stderr);
            return 2;
        }
    }
    /* a bad value is reported (naming the variable) and still printed */
    int bad = loom_info_config_load() != LOOM_OK;
    if (collectives) {
        loom_info_print_collectives(stdout);
    } else {
        loom_info_print_all(stdout);
    }
    return bad ? 1 : 0;
}
