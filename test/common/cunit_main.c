/*
 * cunit_main.c: shared CUnit driver for loom's suite binaries.
 */
#include "cunit_main.h"

#include <loom.h>
#include <stdio.h>
#include <stdlib.h>

int loom_test_run_suite(const char *suite_name, const loom_test_case_t *cases,
                        CU_InitializeFunc init, CU_CleanupFunc cleanup)
{
    CU_pSuite suite;
    unsigned failures;

    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: cannot initialize the registry: %s\n", CU_get_error_msg());
        return 1;
    }
    suite = CU_add_suite(suite_name, init, cleanup);
    if (suite == NULL) {
        fprintf(stderr, "CUnit: cannot add suite %s: %s\n", suite_name, CU_get_error_msg());
        goto err_cleanup_registry;
    }
    for (const loom_test_case_t *c = cases; c->name != NULL; ++c) {
        if (CU_add_test(suite, c->name, c->fn) == NULL) {
            fprintf(stderr, "CUnit: cannot add test %s: %s\n", c->name, CU_get_error_msg());
            goto err_cleanup_registry;
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    if (CU_get_number_of_suites_failed() != 0) {
        failures += 1;  /* init or cleanup of the suite failed */
    }
    CU_cleanup_registry();
    return failures == 0 ? 0 : 1;

err_cleanup_registry:
    CU_cleanup_registry();
    return 1;
}

int loom_test_run_singleton(const char *suite_name, const loom_test_case_t *cases)
{
    int rc;

    setenv("LOOM_ERRORS", "return", 1);
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
    if (loom_init(NULL, NULL) != LOOM_OK) {
        fprintf(stderr, "loom_init failed\n");
        return 1;
    }
    rc = loom_test_run_suite(suite_name, cases, NULL, NULL);
    if (loom_finalize() != LOOM_OK) {
        fprintf(stderr, "loom_finalize failed\n");
        return 1;
    }
    return rc;
}
