/*
 * coll_select.h: what the rest of loom may ask of the collectives layer.
 */
#ifndef LOOM_COLL_SELECT_H
#define LOOM_COLL_SELECT_H

#include <loom.h>
#include <stdio.h>

/** Validate LOOM_<COLL>_ALGORITHM settings (called from loom_init). */
loom_status_t loom_coll_init(void);

/** Print every collective's selection table (loom_info --collectives). */
void loom_coll_selection_print(FILE *out);

#endif /* LOOM_COLL_SELECT_H */
