/*
 * cunit_main.h: one way to run a CUnit suite binary: every test, a summary
 * line, and a non-zero exit status when any assertion failed; and the main
 * of a suite that runs as a singleton loom job.
 */
#ifndef LOOM_TEST_CUNIT_MAIN_H
#define LOOM_TEST_CUNIT_MAIN_H

#include <CUnit/Basic.h>

typedef struct loom_test_case {
    const char  *name;
    CU_TestFunc  fn;
} loom_test_case_t;

/**
 * Register @p cases as suite @p suite_name and run them verbosely.
 * @return the process exit status: 0 if all passed, 1 otherwise.
 */
int loom_test_run_suite(const char *suite_name, const loom_test_case_t *cases,
                        CU_InitializeFunc init, CU_CleanupFunc cleanup);

/**
 * Run @p cases as suite @p suite_name inside a singleton loom job: errors
 * return (LOOM_ERRORS=return), no PMIx server (PMIX_NAMESPACE and PMIX_RANK
 * unset), loom_init before and loom_finalize after. Other settings are the
 * caller's (setenv before the call).
 * @return the process exit status: 0 if all passed and loom finalized, 1 otherwise.
 */
int loom_test_run_singleton(const char *suite_name, const loom_test_case_t *cases);

#endif /* LOOM_TEST_CUNIT_MAIN_H */
