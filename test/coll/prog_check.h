/*
 * prog_check.h: the failure-counting check of the test/coll MPI-style
 * programs (prog_*.c). CHECK(cond, fmt, ...) counts a failure and names the
 * rank, file and line; it does not stop the program, so every rank reports
 * every failure before the program's own exit status says how many there
 * were. The including file defines `int rank` and `int failures`.
 */
#ifndef LOOM_TEST_COLL_PROG_CHECK_H
#define LOOM_TEST_COLL_PROG_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            ++failures;                                                               \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, "\n");                                                    \
        }                                                                             \
    } while (0)

#endif /* LOOM_TEST_COLL_PROG_CHECK_H */
