#include "mt_int.h"
/*
 * status.c: status code strings, generated from LOOM_STATUS_MAP.
 */
#include <loom.h>

const char *loom_strerror(loom_status_t status)
{
    LOOM_MT_GUARD();
    switch (status) {
#define LOOM_STATUS_DESC_(name, value, desc) case LOOM_##name: return desc;
    LOOM_STATUS_MAP(LOOM_STATUS_DESC_)
#undef LOOM_STATUS_DESC_
    }
    return "unknown status";
}

const char *loom_status_name(loom_status_t status)
{
    LOOM_MT_GUARD();
    switch (status) {
#define LOOM_STATUS_NAME_(name, value, desc) case LOOM_##name: return "LOOM_" #name;
    LOOM_STATUS_MAP(LOOM_STATUS_NAME_)
#undef LOOM_STATUS_NAME_
    }
    return "LOOM_UNKNOWN";
}
