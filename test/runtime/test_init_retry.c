/*
 * test_init_retry.c: a loom_init that fails on a configuration value leaves
 * nothing behind, and a retry with the environment fixed reads it afresh
 * and succeeds (runtime/init.c). Both kinds of refusal: a value its table
 * rejects while parsing (LOOM_EAGER_LIMIT=lots) and values their users
 * reject after parsing (LOOM_ERRORS, the engine's policy;
 * LOOM_BARRIER_ALGORITHM, resolved by the collectives). The last init
 * succeeds only if none of the earlier bad values was kept. Singleton: no
 * launcher needed.
 */
#include "../common/cunit_main.h"

#include <loom.h>
#include <stdlib.h>

/* loom_init fails with @p bad set, then succeeds once it is unset */
static void init_fails_then_retries(const char *name, const char *bad)
{
    CU_ASSERT_EQUAL_FATAL(setenv(name, bad, 1), 0);
    CU_ASSERT_EQUAL(loom_init(NULL, NULL), LOOM_ERR_CONFIG);
    CU_ASSERT_FALSE(loom_initialized());
    CU_ASSERT_EQUAL(loom_init(NULL, NULL), LOOM_ERR_CONFIG);   /* still bad: still refused */
    CU_ASSERT_EQUAL_FATAL(unsetenv(name), 0);
}

static void test_retry_after_bad_values(void)
{
    init_fails_then_retries("LOOM_ERRORS", "sometimes");
    init_fails_then_retries("LOOM_BARRIER_ALGORITHM", "no_such_algorithm");
    init_fails_then_retries("LOOM_EAGER_LIMIT", "lots");
    CU_ASSERT_EQUAL_FATAL(loom_init(NULL, NULL), LOOM_OK);
    CU_ASSERT_TRUE(loom_initialized());
    CU_ASSERT_EQUAL(loom_finalize(), LOOM_OK);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "a failed loom_init can be retried with the environment fixed",
          test_retry_after_bad_values },
        { NULL, NULL },
    };
    return loom_test_run_suite("init retry", cases, NULL, NULL);
}
