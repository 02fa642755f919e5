/**
 * @file osu_util.h
 * @brief Shared driver for loom's OSU-style micro-benchmarks.
 *
 * Design: every benchmark in bench/ is an ordinary MPI program, written once
 * against the MPI API, so the same source builds with Open MPI's mpicc and
 * with loom's loomcc and the comparison is one program measured twice. The
 * options (-m [MIN:]MAX, -i, -x, -W, -f, -c, -M, -h, -v), the defaults
 * (iterations, warm-up, large-message threshold, window) and the output
 * (header line, "# Size" column of width 10, values of width 20 with two
 * decimals) follow the OSU micro-benchmarks 5.x, so existing parsers work.
 *
 * Validation differs from OSU on purpose: it is on by default and runs
 * outside the timed loop, once per size before the warm-up, with data that
 * depends on the size, the validation round and the ranks (so stale data of
 * an earlier size or round is caught too). A wrong answer prints which rank,
 * size and element, and the run exits non-zero. The ranks agree on the
 * verdict with plain send/receive, not with the collective under test.
 * `-c` adds OSU's "Validation" column; `--no-validation` turns it off.
 *
 * The driver owns option parsing, buffers, headers and result lines; a
 * collective benchmark only supplies an ops table (osu_coll_ops_t) with the
 * timed call and its check, and osu_coll_main() runs OSU's loop around it.
 */
#ifndef LOOM_BENCH_OSU_UTIL_H
#define LOOM_BENCH_OSU_UTIL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define OSU_FIELD_WIDTH     20
#define OSU_FLOAT_PRECISION 2
#define OSU_LARGE_SIZE      8192          /* above: iterations_large, skip_large */
#define OSU_MEM_LIMIT       (512u << 20)  /* -M default, bytes per process */
#define OSU_VALIDATE_ROUNDS 2             /* untimed checked rounds per size */
#define OSU_MAX_WINDOW      1024          /* -W limit (OSU: MAX_REQ_NUM 1000) */
#define OSU_TAG_AGREE       31000         /* tags the driver keeps for itself */

/** What the benchmark measures: sets the header and the result columns. */
typedef enum osu_kind {
    OSU_KIND_LATENCY,     /**< point-to-point, microseconds */
    OSU_KIND_BANDWIDTH,   /**< point-to-point, MB/s (10^6 bytes) */
    OSU_KIND_COLLECTIVE,  /**< average latency over ranks, -f adds min/max */
} osu_kind_t;

/** Static description of one benchmark: name, header and OSU defaults. */
typedef struct osu_bench_desc {
    const char *name;         /**< program name, e.g. "osu_latency" */
    const char *title;        /**< "OSU MPI Latency Test" */
    osu_kind_t  kind;
    int         show_size;    /**< 0 for barrier (no size column, no -m) */
    int         has_window;   /**< accepts -W (bw, bibw) */
    int         exact_np;     /**< required number of ranks, 0 = any >= 2 */
    size_t      elem_size;    /**< sizes are multiples of this (4 for float sums) */
    size_t      min_size;     /**< default smallest size */
    size_t      max_size;     /**< default largest size */
    int         iterations, iterations_large;
    int         skip, skip_large;
} osu_bench_desc_t;

/** Options after parsing the command line (identical on every rank). */
typedef struct osu_options {
    size_t min_size, max_size;
    int    iterations, iterations_large;
    int    skip, skip_large;
    int    window;
    int    full;             /**< -f: min, max and iteration columns */
    int    validate;         /**< untimed validation per size (default on) */
    int    validation_column;/**< -c: print OSU's Pass/Fail column */
    size_t mem_limit;        /**< -M: bytes per process */
} osu_options_t;

/** Process-wide context every benchmark gets from osu_init(). */
typedef struct osu_ctx {
    const osu_bench_desc_t *desc;
    osu_options_t opt;
    int rank, nranks;
} osu_ctx_t;

/**
 * @brief MPI_Init, then parse argv against @p desc's defaults.
 * @param status_p on a 0 return: main()'s exit status (0 after -h/-v, 1 on a
 *        bad option or rank count, the message printed once by rank 0).
 * @return 1 to run the benchmark; 0 to stop: call osu_finish() and exit.
 */
int osu_init(osu_ctx_t *ctx, const osu_bench_desc_t *desc, int *argc, char ***argv,
             int *status_p);

/** @brief Finalize MPI and turn @p failed into main()'s exit status. */
int osu_finish(osu_ctx_t *ctx, int failed);

/** @brief Print the OSU header lines (rank 0 only). */
void osu_print_header(const osu_ctx_t *ctx);

/**
 * @brief Print one point-to-point result line (rank 0 only).
 * @param value latency in us or bandwidth in MB/s.
 * @param valid 1 pass, 0 fail; printed only with -c.
 */
void osu_print_p2p(const osu_ctx_t *ctx, size_t size, double value, int valid);

/**
 * @brief Reduce each rank's average latency to avg/min/max on rank 0 and
 *        print one collective result line there. Collective call.
 */
void osu_print_coll(const osu_ctx_t *ctx, size_t size, double local_us,
                    int iterations, int valid);

/** @brief Iterations and warm-up for @p size (OSU's small/large split). */
void osu_loop_counts(const osu_ctx_t *ctx, size_t size, int *iters_p, int *skip_p);

/** @brief Next size in the 0, 1, 2, 4, ... (or elem, 2*elem, ...) series. */
size_t osu_next_size(const osu_ctx_t *ctx, size_t size);

/**
 * @brief Lower the largest size (by halving) until @p bytes_per_byte times it
 *        fits the -M limit; rank 0 prints a note when it had to.
 */
void osu_limit_max_size(osu_ctx_t *ctx, size_t bytes_per_byte);

/** @brief Page-aligned zeroed buffer of @p bytes (at least 1); aborts on OOM. */
void *osu_alloc(const osu_ctx_t *ctx, size_t bytes);

/** @brief Seed for a data pattern: mixes size, round and two rank numbers. */
uint32_t osu_seed(size_t size, int round, int a, int b);

/** @brief Fill @p len bytes with the pattern of @p seed. */
void osu_fill(void *buf, size_t len, uint32_t seed);

/** @brief Fill with bytes that differ from every pattern byte of @p seed. */
void osu_poison(void *buf, size_t len, uint32_t seed);

/**
 * @brief Check a pattern; on the first wrong byte print (stderr) which rank,
 *        size, element and what was expected, then return 1; else 0.
 * @param what names the buffer in the message, e.g. "block from rank 3".
 */
int osu_check(const osu_ctx_t *ctx, const void *buf, size_t len, uint32_t seed,
              size_t size, const char *what);

/** @brief Integer-valued float for element @p i of rank @p r (exact sums). */
float osu_float_value(size_t i, int r, uint32_t seed);

/**
 * @brief Check float sums against n(n+1)/2 * value(i, rank 0); prints the
 *        first wrong element like osu_check(). Returns 1 on error.
 */
int osu_check_float_sum(const osu_ctx_t *ctx, const float *buf, size_t count,
                        uint32_t seed, size_t size, const char *what);

/**
 * @brief Sum @p local_errors over all ranks with point-to-point messages
 *        only (never the collective under test); the total on every rank.
 */
int osu_agree(const osu_ctx_t *ctx, int local_errors);

/**
 * @brief Synchronize all ranks with point-to-point messages only, so the
 *        point-to-point benchmarks run before any collective works.
 */
void osu_sync(const osu_ctx_t *ctx);

/**
 * @brief Check a receive status: source, tag and a count of @p size bytes
 *        (MPI_CHAR); prints what differs and returns 1, else 0.
 */
int osu_check_status(const osu_ctx_t *ctx, const MPI_Status *st, int source,
                     int tag, size_t size);

/** @brief Validation window for @p size: the -W window, capped at 16 MiB. */
int osu_validation_window(const osu_ctx_t *ctx, size_t size);

/**
 * @brief One untimed, checked round of a windowed exchange with the other
 *        rank of a pair: post osu_validation_window() receives (if
 *        @p do_recv) into distinct poisoned slices of @p rbuf and as many
 *        sends (if @p do_send) of distinct patterns from @p sbuf, wait, check.
 * @return this rank's error count.
 */
int osu_window_validate(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                        int round, int tag, int do_send, int do_recv);

/**
 * @brief Report a validation failure once (rank 0) for @p size.
 * @return 1 so callers can write `failed = osu_report_failure(...)`.
 */
int osu_report_failure(const osu_ctx_t *ctx, size_t size, int errors);

/** Operations a collective benchmark supplies to osu_coll_main(). */
typedef struct osu_coll_ops {
    /** Bytes of send and receive buffer needed for message size @p size. */
    void (*buffer_sizes)(const osu_ctx_t *ctx, size_t size, size_t *send_p,
                         size_t *recv_p);
    /** The timed call (buffers hold @p size bytes per rank/block). */
    void (*run)(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size);
    /** Untimed check of one round; returns this rank's error count. */
    int (*validate)(const osu_ctx_t *ctx, void *sbuf, void *rbuf, size_t size,
                    int round);
    /** 1 for the barrier benchmark: no barrier between timed calls. */
    int is_barrier;
} osu_coll_ops_t;

/** @brief main() of a collective benchmark: OSU's timing loop around @p ops. */
int osu_coll_main(const osu_bench_desc_t *desc, const osu_coll_ops_t *ops,
                  int argc, char **argv);

#endif /* LOOM_BENCH_OSU_UTIL_H */
