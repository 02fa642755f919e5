/*
 * loom_info: what this loom build is and how it is configured, like
 * ompi_info or ucx_info.
 *
 *     loom_info                 version, build, transports, every LOOM_* variable
 *     loom_info --collectives   the collective algorithm selection tables
 */
#include <loom.h>

#include "config_int.h"
#include "tl.h"
#include "../collectives/coll_select.h"

#include <stdio.h>
#include <string.h>

static void loom_info_usage(FILE *out)
{
    fprintf(out, "usage: loom_info [--collectives] [-h|--help]\n"
                 "  (no option)     version, build configuration, transports, and\n"
                 "                  every LOOM_* variable with its current value\n"
                 "  --collectives   the collective algorithm selection tables\n");
}

static void loom_info_print_all(void)
{
    printf("loom %s\n", LOOM_VERSION_STRING);
    printf("build: %s (PMIx %s, verbs %s, tcp %s)\n", LOOM_BUILD_CONFIG,
           LOOM_HAVE_PMIX ? "yes" : "no", LOOM_HAVE_IBV ? "yes" : "no",
           LOOM_HAVE_TCP ? "yes" : "no");
    printf("transports (in order of preference):");
    for (size_t i = 0; i < loom_tl_num_components; ++i) {
        printf(" %s", loom_tl_components[i]->name);
    }
    printf("\n\nconfiguration (environment variables):\n");
    loom_config_print(stdout);
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
    int bad = loom_config_init() != LOOM_OK;
    if (collectives) {
        loom_coll_selection_print(stdout);
    } else {
        loom_info_print_all();
    }
    return bad ? 1 : 0;
}
