/*
 * cunit_main.h: one way to run a CUnit suite binary: every test, a summary
 * line, and a non-zero exit status when any assertion failed.
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

#endif /* LOOM_TEST_CUNIT_MAIN_H */
