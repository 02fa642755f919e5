/*
 * prog_check.h: the failure-counting check of the test/coll MPI-style
 * programs (prog_*.c). CHECK(cond, fmt, ...) counts a failure and names the
 * rank, file and line; it does not stop the program, so every rank reports
 * every failure before the program's own exit status says how many there
 * were. The including file defines `int rank` and `int failures`; one
 * that may fail many times over (a sweep of sizes and algorithms) defines
 * PROG_CHECK_PRINT_MAX first: every failure is still counted, only the
 * first that many are printed. OKCALL(call): CHECK that a loom call
 * returned LOOM_OK (the includer includes loom.h).
 */
#ifndef LOOM_TEST_COLL_PROG_CHECK_H
#define LOOM_TEST_COLL_PROG_CHECK_H

#include <limits.h>
#include <stdio.h>

#ifndef PROG_CHECK_PRINT_MAX
#define PROG_CHECK_PRINT_MAX INT_MAX
#endif

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond) && ++failures <= PROG_CHECK_PRINT_MAX) {                          \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, "\n");                                                    \
        }                                                                             \
    } while (0)

#define OKCALL(call) CHECK((call) == LOOM_OK, "%s failed", #call)

#endif /* LOOM_TEST_COLL_PROG_CHECK_H */
