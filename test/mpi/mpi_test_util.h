/*
 * mpi_test_util.h: checks for the MPI test programs (test/mpi/mpi_*.c).
 *
 * The programs are ordinary MPI programs: they include only <mpi.h> and the
 * C library, build with loomcc and run under loomrun. A failed check prints
 * the rank, the line and the expression (with the values for the _EQ forms)
 * and aborts the job, so the driver sees a non-zero exit.
 */
#ifndef LOOM_TEST_MPI_UTIL_H
#define LOOM_TEST_MPI_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * MT_OWN_DATA marks a test's own fill and compare loops over buffers only
 * the calling thread touches: ThreadSanitizer does not instrument them
 * (a call per byte made such loops most of a suite's time under TSan);
 * the library's accesses to the same buffers are still checked.
 */
#if defined(__GNUC__) || defined(__clang__)
#define MT_OWN_DATA __attribute__((no_sanitize("thread")))
#else
#define MT_OWN_DATA
#endif

/* index of the first byte where @p a and @p b differ in [0, n), or -1 */
static inline long mt_first_diff(const void *a, const void *b, long n)
{
    const unsigned char *x = a, *y = b;

    if (n <= 0 || memcmp(a, b, (size_t)n) == 0) {
        return -1;
    }
    for (long i = 0; i < n; ++i) {
        if (x[i] != y[i]) {
            return i;
        }
    }
    return -1;
}

/* seconds on the monotonic clock: for a test's own deadlines (never a timed assertion) */
static inline double mt_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int mpi_test_rank(void)
{
    int rank = -1, flag = 0;

    MPI_Initialized(&flag);
    if (flag) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    return rank;
}

#define MT_FAIL(...)                                                               \
    do {                                                                           \
        fprintf(stderr, "[rank %d] %s:%d: ", mpi_test_rank(), __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                       \
        fflush(stderr);                                                            \
        MPI_Abort(MPI_COMM_WORLD, 3);                                              \
    } while (0)

#define MT_CHECK(cond)                                                             \
    do {                                                                           \
        if (!(cond)) {                                                             \
            MT_FAIL("check failed: %s", #cond);                                    \
        }                                                                          \
    } while (0)

/* a == b for integer-valued expressions, printing both */
#define MT_EQ(a, b)                                                                \
    do {                                                                           \
        long long mt_a_ = (long long)(a), mt_b_ = (long long)(b);                  \
        if (mt_a_ != mt_b_) {                                                      \
            MT_FAIL("%s == %s failed: %lld != %lld", #a, #b, mt_a_, mt_b_);        \
        }                                                                          \
    } while (0)

/* an MPI call that must succeed */
#define MT_OK(call) MT_EQ((call), MPI_SUCCESS)

/* an MPI call that must fail with error class @p cls (under MPI_ERRORS_RETURN) */
#define MT_ERR(call, cls)                                                          \
    do {                                                                           \
        int mt_rc_ = (call), mt_cls_ = -1;                                         \
        MPI_Error_class(mt_rc_, &mt_cls_);                                         \
        if (mt_rc_ == MPI_SUCCESS || mt_cls_ != (cls)) {                           \
            MT_FAIL("%s returned %d (class %d), expected class %s (%d)", #call,    \
                    mt_rc_, mt_cls_, #cls, (int)(cls));                            \
        }                                                                          \
    } while (0)

/* print one line from rank 0 when a program passes */
/*
 * A side channel between ranks that takes no MPI call (a test that must know
 * another rank has left the library): mt_file_touch creates the empty file
 * @p path; mt_file_await waits for it (1 ms naps), removes it and returns 1,
 * or returns 0 after @p secs.
 */
static inline void mt_file_touch(const char *path)
{
    FILE *f = fopen(path, "w");

    if (f == NULL) {
        MT_FAIL("cannot create %s", path);
    }
    fclose(f);
}

static inline int mt_file_await(const char *path, double secs)
{
    struct timespec ms = { 0, 1000 * 1000 };
    double end = mt_now() + secs;

    while (access(path, F_OK) != 0) {
        if (mt_now() > end) {
            return 0;
        }
        nanosleep(&ms, NULL);
    }
    unlink(path);
    return 1;
}

#define MT_PASS(name)                                                              \
    do {                                                                           \
        int mt_size_;                                                              \
        MPI_Comm_size(MPI_COMM_WORLD, &mt_size_);                                  \
        if (mpi_test_rank() == 0) {                                                \
            printf("%s: passed on %d ranks\n", (name), mt_size_);                  \
        }                                                                          \
    } while (0)

#endif /* LOOM_TEST_MPI_UTIL_H */
