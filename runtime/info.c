/*
 * info.c: the runtime's description of itself for loom_info (see
 * info_int.h): it reads the transport registry, the components'
 * configuration tables (runtime_config.c) and the collectives' selection,
 * so the tool needs no layer's internals.
 */
#include "info_int.h"
#include "config_int.h"
#include "runtime_config_int.h"
#include "tl.h"
#include "coll_select.h"

loom_status_t loom_info_config_load(void)
{
    return loom_runtime_config_load();
}

void loom_info_print_all(FILE *out)
{
    fprintf(out, "loom %s\n", LOOM_VERSION_STRING);
    fprintf(out, "build: %s (PMIx %s, verbs %s, tcp %s)\n", LOOM_BUILD_CONFIG,
            LOOM_HAVE_PMIX ? "yes" : "no", LOOM_HAVE_IBV ? "yes" : "no",
            LOOM_HAVE_TCP ? "yes" : "no");
    fprintf(out, "transports (in order of preference):");
    for (size_t i = 0; i < loom_tl_num_components; ++i) {
        fprintf(out, " %s", loom_tl_components[i]->name);
    }
    fprintf(out, "\n\nconfiguration (environment variables):\n");
    loom_config_print(out);
}

void loom_info_print_collectives(FILE *out)
{
    loom_coll_selection_print(out);
}
