/*
 * fuzz_config.c: libFuzzer target for LOOM_* parsing: every value type of
 * loom_config_parse_value (base/config.c) and the LOOM_LOG grammar of
 * loom_log_configure (base/log.c).
 *
 * Input: byte 0 picks the type (mod 6: bool, int, size, double, string,
 * LOOM_LOG), the rest is the value text (cut at the first NUL). Checked
 * beyond "no crash": an accepted SIZE is what the digits and suffix say, a
 * rejected BOOL/SIZE leaves the output untouched, an accepted DOUBLE is finite.
 */
#include "config_int.h"
#include "log_int.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the byte count a SIZE text means, independently of config.c; -1 if invalid */
static long double expected_size(const char *s)
{
    long double v = 0;
    const char *p = s;

    if (!isdigit((unsigned char)*p)) {
        return -1;
    }
    while (isdigit((unsigned char)*p)) {
        v = v * 10 + (*p++ - '0');
    }
    switch (tolower((unsigned char)*p)) {
    case 'k': v *= 1024.0L; ++p; break;
    case 'm': v *= 1048576.0L; ++p; break;
    case 'g': v *= 1073741824.0L; ++p; break;
    default: break;
    }
    if (tolower((unsigned char)*p) == 'b') {
        ++p;
    }
    return *p == '\0' ? v : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;
    long long iv = 0x5a5a5a5a;
    double dv = 42.0;
    loom_status_t st;
    unsigned which;

    if (size == 0) {
        return 0;
    }
    which = data[0] % 6;
    text = malloc(size);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    if (which == 5) {
        (void)loom_log_configure(text);
        (void)loom_log_enabled(LOOM_LOG_LEVEL_DEBUG, "p2p");
        free(text);
        return 0;
    }
    st = loom_config_parse_value((loom_config_type_t)which, text, &iv, &dv);
    if (st != LOOM_OK && (which == LOOM_CFG_TYPE_BOOL || which == LOOM_CFG_TYPE_SIZE) &&
        iv != 0x5a5a5a5a) {
        /* a rejected value must not have been half-written (INT and DOUBLE
         * write their output before checking it: reported, harmless today) */
        __builtin_trap();
    }
    if (st == LOOM_OK && which == LOOM_CFG_TYPE_DOUBLE && !isfinite(dv)) {
        __builtin_trap();
    }
    if (which == LOOM_CFG_TYPE_SIZE) {
        long double want = expected_size(text);
        int valid = want >= 0 && want <= (long double)INT64_MAX;
        if ((st == LOOM_OK) != valid || (st == LOOM_OK && (long double)iv != want)) {
            __builtin_trap();
        }
    }
    if (which == LOOM_CFG_TYPE_BOOL && st == LOOM_OK && iv != 0 && iv != 1) {
        __builtin_trap();
    }
    free(text);
    return 0;
}
