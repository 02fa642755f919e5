/**
 * @file loom.h
 * @brief loom: a communication runtime for parallel jobs on RDMA clusters.
 *
 * This is the only public header of the native API (include/mpi.h is a thin
 * MPI binding on top of it). Every call returns a ::loom_status_t: LOOM_OK (0)
 * on success, LOOM_INPROGRESS (1) where an operation was started but has not
 * completed, a negative code on error. Every error is also logged once, where
 * it was found, with what was wrong (the argument, the limit, the peer).
 *
 * Threading: loom_init() gives LOOM_THREAD_FUNNELED (call loom from the
 * thread that initialized it). loom_init_thread() grants any level up to
 * LOOM_THREAD_MULTIPLE; with MULTIPLE every call takes one process-wide
 * engine lock (recursive per thread; blocking calls release it while they
 * wait), so any thread may call any function at any time. The other levels
 * take no lock (docs/ARCHITECTURE.md, "Threads").
 */
#ifndef LOOM_H
#define LOOM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 1
#define LOOM_VERSION_PATCH 0
#define LOOM_VERSION_STRING "0.1.0"

#if defined(__GNUC__)
#define LOOM_API __attribute__((visibility("default")))
#else
#define LOOM_API
#endif

/**
 * Every status code, in one table so the enum and loom_strerror() cannot
 * drift. X(name, value, description). Errors are negative; peer and
 * transport failures live in their own range (-100 and below).
 */
#define LOOM_STATUS_MAP(X)                                                        \
    X(OK,                  0,    "success")                                       \
    X(INPROGRESS,          1,    "operation in progress")                         \
    X(ERR_INVALID_ARG,    -1,    "invalid argument")                              \
    X(ERR_NO_MEMORY,      -2,    "out of memory")                                 \
    X(ERR_NO_RESOURCE,    -3,    "resource temporarily exhausted")                \
    X(ERR_UNSUPPORTED,    -4,    "operation not supported")                       \
    X(ERR_TRUNCATED,      -5,    "message truncated: receive buffer too small")   \
    X(ERR_NOT_INITIALIZED,-6,    "loom is not initialized")                       \
    X(ERR_ALREADY_INIT,   -7,    "loom is already initialized")                   \
    X(ERR_FINALIZED,      -8,    "loom was already finalized")                    \
    X(ERR_INVALID_RANK,   -9,    "invalid rank")                                  \
    X(ERR_INVALID_TAG,    -10,   "invalid tag")                                   \
    X(ERR_INVALID_COUNT,  -11,   "invalid count")                                 \
    X(ERR_INVALID_TYPE,   -12,   "invalid datatype")                              \
    X(ERR_INVALID_OP,     -13,   "invalid reduction operation")                   \
    X(ERR_INVALID_COMM,   -14,   "invalid communicator")                          \
    X(ERR_INVALID_REQUEST,-15,   "invalid request")                               \
    X(ERR_INVALID_BUFFER, -16,   "invalid buffer")                                \
    X(ERR_INVALID_ROOT,   -17,   "invalid root")                                  \
    X(ERR_CONFIG,         -18,   "invalid configuration")                         \
    X(ERR_CANCELED,       -19,   "operation canceled")                            \
    X(ERR_TIMEOUT,        -20,   "operation timed out")                           \
    X(ERR_NOT_FOUND,      -21,   "not found")                                     \
    X(ERR_IO,             -22,   "input/output error")                            \
    X(ERR_INTERNAL,       -23,   "internal error")                                \
    X(ERR_BOOTSTRAP,      -24,   "bootstrap (PMIx) failure")                      \
    X(ERR_PEER_FAILED,    -100,  "peer process failed")                           \
    X(ERR_TRANSPORT,      -101,  "transport failure")                             \
    X(ERR_UNREACHABLE,    -102,  "peer unreachable")                              \
    X(ERR_CONNECTION,     -103,  "connection failure")

/** Status codes; see LOOM_STATUS_MAP. */
typedef enum loom_status {
#define LOOM_STATUS_ENUM_(name, value, desc) LOOM_##name = (value),
    LOOM_STATUS_MAP(LOOM_STATUS_ENUM_)
#undef LOOM_STATUS_ENUM_
} loom_status_t;

/**
 * @brief Human-readable description of a status code.
 * @return a static string; "unknown status" for values outside the table.
 */
LOOM_API const char *loom_strerror(loom_status_t status);

/** @brief The symbolic name of a status code, e.g. "LOOM_ERR_TRUNCATED". */
LOOM_API const char *loom_status_name(loom_status_t status);

/* ------------------------------------------------------------------------ */
/* Initialization and job information                                       */
/* ------------------------------------------------------------------------ */

/**
 * @brief Initialize loom: read LOOM_* configuration, connect to the launcher
 * (PMIx), open transports and exchange addresses with every rank.
 *
 * A program started without any launcher runs as a singleton (size 1).
 * @param argc_p, argv_p may be NULL; reserved for launcher arguments.
 * @return LOOM_OK, LOOM_ERR_ALREADY_INIT, LOOM_ERR_FINALIZED, or the failure.
 */
LOOM_API loom_status_t loom_init(int *argc_p, char ***argv_p);

/** Thread levels (the values of MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE). */
typedef enum {
    LOOM_THREAD_SINGLE = 0,   /**< one thread in the process */
    LOOM_THREAD_FUNNELED,     /**< only the initializing thread calls loom */
    LOOM_THREAD_SERIALIZED,   /**< any thread, never two at once (no lock taken) */
    LOOM_THREAD_MULTIPLE      /**< any thread at any time (the engine lock) */
} loom_thread_level_t;

/**
 * @brief loom_init() with a thread level: @p required is granted as asked
 * (every level is supported) and written to @p provided_p on success.
 * MULTIPLE turns the engine lock on; it must be called before any other
 * thread calls loom.
 * @return LOOM_OK, LOOM_ERR_INVALID_ARG (level out of range, NULL
 * @p provided_p), or what loom_init() returns.
 */
LOOM_API loom_status_t loom_init_thread(int *argc_p, char ***argv_p, int required,
                                        int *provided_p);

/** @brief The thread level granted by loom_init_thread() (FUNNELED after loom_init()). */
LOOM_API int loom_query_thread(void);

/**
 * @brief Finalize loom: complete pending traffic, synchronize with the other
 * ranks, release every resource. No loom call is valid afterwards.
 */
LOOM_API loom_status_t loom_finalize(void);

/** @brief 1 between a successful loom_init() and loom_finalize(), else 0. */
LOOM_API int loom_initialized(void);

/** @brief 1 once loom_finalize() has been called, else 0. */
LOOM_API int loom_finalized(void);

/** @brief This process's rank in LOOM_COMM_WORLD (0 before init). */
LOOM_API int loom_rank(void);

/** @brief Number of ranks in LOOM_COMM_WORLD (1 before init). */
LOOM_API int loom_size(void);

/** @brief Rank of this process among the ranks on the same node. */
LOOM_API int loom_local_rank(void);

/** @brief Number of ranks of this job on the same node. */
LOOM_API int loom_local_size(void);

/** @brief Host name of world rank @p rank (NULL if out of range). */
LOOM_API const char *loom_hostname(int rank);

/**
 * @brief Abort the whole job: the launcher prints @p msg naming this rank and
 * tears every rank down; the job exits with @p code. Does not return.
 */
LOOM_API void loom_abort(int code, const char *msg) __attribute__((noreturn));

/** @brief Wall-clock time in seconds from an arbitrary fixed point. */
LOOM_API double loom_wtime(void);

/** @brief Resolution of loom_wtime() in seconds. */
LOOM_API double loom_wtick(void);

/* ------------------------------------------------------------------------ */
/* Datatypes and reduction operations                                       */
/* ------------------------------------------------------------------------ */

/** Contiguous basic datatypes; counts are always in elements. */
typedef enum loom_datatype {
    LOOM_BYTE = 0,
    LOOM_INT8,
    LOOM_INT16,
    LOOM_INT32,
    LOOM_INT64,
    LOOM_UINT8,
    LOOM_UINT16,
    LOOM_UINT32,
    LOOM_UINT64,
    LOOM_FLOAT,
    LOOM_DOUBLE,
    LOOM_LONG_DOUBLE,
    /* value+index pairs for LOOM_MINLOC / LOOM_MAXLOC (C layout of MPI's) */
    LOOM_FLOAT_INT,       /**< struct { float v; int i; } */
    LOOM_DOUBLE_INT,      /**< struct { double v; int i; } */
    LOOM_LONG_INT,        /**< struct { long v; int i; } */
    LOOM_2INT,            /**< struct { int v; int i; } */
    LOOM_SHORT_INT,       /**< struct { short v; int i; } */
    LOOM_LONG_DOUBLE_INT, /**< struct { long double v; int i; } */
    /* appended for MPI's complex and boolean types: sum/prod on complex,
     * land/lor/lxor on bool (and replace on both); nothing else */
    LOOM_FLOAT_COMPLEX,       /**< float _Complex */
    LOOM_DOUBLE_COMPLEX,      /**< double _Complex */
    LOOM_LONG_DOUBLE_COMPLEX, /**< long double _Complex */
    LOOM_BOOL,                /**< _Bool */
    LOOM_DATATYPE_COUNT
} loom_datatype_t;

/**
 * A derived datatype of the datatype engine (datatype/dt_int.h): built by
 * the loom_dtype_* constructors from basic types and other derived ones,
 * committed before use, reference counted. NULL means "none".
 */
typedef struct loom_dt *loom_dtype_t;

/*
 * The derived-datatype API (datatype/dt_api.c over the engine). Every MPI
 * constructor, with the native API's conventions: counts and block lengths
 * are size_t (at most INT64_MAX), displacements and strides ptrdiff_t (in
 * elements of the input's extent, or in bytes for the h- forms), outputs
 * last and written only on success. A new type holds one reference, the
 * caller's, and its own references on its inputs: loom_dtype_free() of an
 * input right after a constructor, or of a type a pending operation still
 * uses, is safe (the object lives until its last holder lets go). Types
 * must be committed (loom_dtype_commit) before data moves; the queries work
 * on any type. Errors: LOOM_ERR_INVALID_TYPE (a NULL or uncommitted type,
 * a predefined one freed), LOOM_ERR_INVALID_COUNT (a count, block length
 * or size past its limit), LOOM_ERR_INVALID_ARG (NULL arrays or outputs,
 * bad subarray/darray arguments, overflowing extents), LOOM_ERR_TRUNCATED
 * (a pack buffer too small); each is logged naming the argument and limit.
 * docs/datatypes.md describes the engine.
 */

/** Array order of loom_dtype_subarray() and loom_dtype_darray(). */
typedef enum loom_dtype_order {
    LOOM_DTYPE_ORDER_C = 0,       /**< row-major: the last dimension is fastest */
    LOOM_DTYPE_ORDER_FORTRAN = 1, /**< column-major: the first dimension is fastest */
} loom_dtype_order_t;

/** Distribution of one dimension of loom_dtype_darray() (MPI_DISTRIBUTE_*). */
typedef enum loom_dtype_distrib {
    LOOM_DTYPE_DISTRIBUTE_BLOCK = 0,
    LOOM_DTYPE_DISTRIBUTE_CYCLIC = 1,
    LOOM_DTYPE_DISTRIBUTE_NONE = 2,
} loom_dtype_distrib_t;

/** darray's default distribution argument (MPI_DISTRIBUTE_DFLT_DARG). */
#define LOOM_DTYPE_DARG_DEFAULT (-1)

/**
 * @brief The derived-datatype handle of basic type @p basic: predefined,
 * committed, never freed. NULL (and a log line) if @p basic is invalid.
 */
LOOM_API loom_dtype_t loom_dtype_basic(loom_datatype_t basic);

/** @brief @p count copies of @p oldtype, one extent apart (MPI_Type_contiguous). */
LOOM_API loom_status_t loom_dtype_contiguous(size_t count, loom_dtype_t oldtype,
                                             loom_dtype_t *newtype_p);

/**
 * @brief @p count blocks of @p blocklen elements of @p oldtype, block k
 * at k x @p stride elements (MPI_Type_vector; a negative stride counts down).
 */
LOOM_API loom_status_t loom_dtype_vector(size_t count, size_t blocklen, ptrdiff_t stride,
                                         loom_dtype_t oldtype, loom_dtype_t *newtype_p);

/** @brief As loom_dtype_vector() with @p stride in bytes (MPI_Type_create_hvector). */
LOOM_API loom_status_t loom_dtype_hvector(size_t count, size_t blocklen, ptrdiff_t stride,
                                          loom_dtype_t oldtype, loom_dtype_t *newtype_p);

/**
 * @brief Block k: @p blocklens[k] elements of @p oldtype at @p displs[k]
 * extents of it (MPI_Type_indexed). The arrays may be NULL only if @p count is 0.
 */
LOOM_API loom_status_t loom_dtype_indexed(size_t count, const size_t blocklens[],
                                          const ptrdiff_t displs[], loom_dtype_t oldtype,
                                          loom_dtype_t *newtype_p);

/** @brief As loom_dtype_indexed() with @p displs in bytes (MPI_Type_create_hindexed). */
LOOM_API loom_status_t loom_dtype_hindexed(size_t count, const size_t blocklens[],
                                           const ptrdiff_t displs[], loom_dtype_t oldtype,
                                           loom_dtype_t *newtype_p);

/** @brief Blocks of one length at @p displs extents (MPI_Type_create_indexed_block). */
LOOM_API loom_status_t loom_dtype_indexed_block(size_t count, size_t blocklen,
                                                const ptrdiff_t displs[], loom_dtype_t oldtype,
                                                loom_dtype_t *newtype_p);

/** @brief Blocks of one length at byte @p displs (MPI_Type_create_hindexed_block). */
LOOM_API loom_status_t loom_dtype_hindexed_block(size_t count, size_t blocklen,
                                                 const ptrdiff_t displs[],
                                                 loom_dtype_t oldtype, loom_dtype_t *newtype_p);

/**
 * @brief Block k: @p blocklens[k] elements of @p types[k] at byte
 * @p displs[k] (MPI_Type_create_struct). The extent is rounded up to the
 * largest alignment of the basic types in it, as a C compiler pads a
 * struct, unless an input carries an explicit upper bound (resized).
 */
LOOM_API loom_status_t loom_dtype_struct(size_t count, const size_t blocklens[],
                                         const ptrdiff_t displs[], const loom_dtype_t types[],
                                         loom_dtype_t *newtype_p);

/**
 * @brief The @p subsizes block at @p starts of an @p ndims-dimensional
 * array of @p sizes elements of @p oldtype (MPI_Type_create_subarray);
 * extent: the whole array. 1 <= ndims <= 64.
 */
LOOM_API loom_status_t loom_dtype_subarray(int ndims, const size_t sizes[],
                                           const size_t subsizes[], const size_t starts[],
                                           loom_dtype_order_t order, loom_dtype_t oldtype,
                                           loom_dtype_t *newtype_p);

/**
 * @brief Process @p rank's part of a global array distributed over a
 * grid of @p psizes processes (row-major ranks), @p size in all
 * (MPI_Type_create_darray). @p dargs[i]: the block or cycle length, or
 * LOOM_DTYPE_DARG_DEFAULT.
 */
LOOM_API loom_status_t loom_dtype_darray(int size, int rank, int ndims, const size_t gsizes[],
                                         const loom_dtype_distrib_t distribs[],
                                         const int dargs[], const int psizes[],
                                         loom_dtype_order_t order, loom_dtype_t oldtype,
                                         loom_dtype_t *newtype_p);

/**
 * @brief @p oldtype with lower bound @p lb and extent @p extent
 * (MPI_Type_create_resized): what the next instance's offset is.
 */
LOOM_API loom_status_t loom_dtype_resized(loom_dtype_t oldtype, ptrdiff_t lb,
                                          ptrdiff_t extent, loom_dtype_t *newtype_p);

/** @brief A new type with @p oldtype's layout, committed if it is (MPI_Type_dup). */
LOOM_API loom_status_t loom_dtype_dup(loom_dtype_t oldtype, loom_dtype_t *newtype_p);

/** @brief Prepare @p dt for data movement (idempotent; basic types always are). */
LOOM_API loom_status_t loom_dtype_commit(loom_dtype_t dt);

/**
 * @brief Drop the caller's reference and set *@p dt_p to NULL. The type
 * lives on while types built from it or operations in flight hold it.
 * @return LOOM_ERR_INVALID_TYPE for NULL or a predefined (basic) type.
 */
LOOM_API loom_status_t loom_dtype_free(loom_dtype_t *dt_p);

/** @brief Bytes of data in one instance of @p dt (MPI_Type_size). */
LOOM_API loom_status_t loom_dtype_size(loom_dtype_t dt, size_t *size_p);

/** @brief Lower bound and extent (MPI_Type_get_extent); either output may be NULL. */
LOOM_API loom_status_t loom_dtype_extent(loom_dtype_t dt, ptrdiff_t *lb_p,
                                         ptrdiff_t *extent_p);

/**
 * @brief Bounds of the data alone, without resized markers or struct
 * padding (MPI_Type_get_true_extent); either output may be NULL.
 */
LOOM_API loom_status_t loom_dtype_true_extent(loom_dtype_t dt, ptrdiff_t *true_lb_p,
                                              ptrdiff_t *true_extent_p);

/** @brief Bytes loom_dtype_pack() produces for (count, dt) (MPI_Pack_size, exact). */
LOOM_API loom_status_t loom_dtype_pack_size(size_t count, loom_dtype_t dt, size_t *size_p);

/**
 * @brief Pack (inbuf, count, dt) at @p outbuf + *@p position_p and
 * advance *@p position_p (MPI_Pack). LOOM_ERR_TRUNCATED, nothing written,
 * if the @p outsize-byte buffer has too little room left.
 */
LOOM_API loom_status_t loom_dtype_pack(const void *inbuf, size_t count, loom_dtype_t dt,
                                       void *outbuf, size_t outsize, size_t *position_p);

/**
 * @brief The inverse of loom_dtype_pack(): read @p inbuf + *@p position_p
 * into (outbuf, count, dt), advance *@p position_p (MPI_Unpack).
 * LOOM_ERR_TRUNCATED if fewer bytes than needed are left of @p insize.
 */
LOOM_API loom_status_t loom_dtype_unpack(const void *inbuf, size_t insize,
                                         size_t *position_p, void *outbuf, size_t count,
                                         loom_dtype_t dt);

/** @brief Size of (count, dt) in "external32" (MPI_Pack_external_size). */
LOOM_API loom_status_t loom_dtype_external32_size(size_t count, loom_dtype_t dt,
                                                  size_t *size_p);

/**
 * @brief loom_dtype_pack() in MPI's portable "external32" representation
 * (big-endian, MPI-3.1 Table 13.2 sizes, no padding: MPI_Pack_external).
 */
LOOM_API loom_status_t loom_dtype_pack_external32(const void *inbuf, size_t count,
                                                  loom_dtype_t dt, void *outbuf,
                                                  size_t outsize, size_t *position_p);

/** @brief The inverse of loom_dtype_pack_external32() (MPI_Unpack_external). */
LOOM_API loom_status_t loom_dtype_unpack_external32(const void *inbuf, size_t insize,
                                                    size_t *position_p, void *outbuf,
                                                    size_t count, loom_dtype_t dt);

/** @brief Size in bytes of one element of @p dt (0 if invalid). */
LOOM_API size_t loom_datatype_size(loom_datatype_t dt);

/** @brief Name of @p dt, e.g. "int32" (NULL if invalid). */
LOOM_API const char *loom_datatype_name(loom_datatype_t dt);

/** Predefined reduction operations; user ops follow LOOM_OP_PREDEFINED_COUNT. */
typedef enum loom_op {
    LOOM_OP_NULL = 0,
    LOOM_SUM,
    LOOM_PROD,
    LOOM_MIN,
    LOOM_MAX,
    LOOM_LAND,
    LOOM_LOR,
    LOOM_LXOR,
    LOOM_BAND,
    LOOM_BOR,
    LOOM_BXOR,
    LOOM_MINLOC,
    LOOM_MAXLOC,
    LOOM_REPLACE,
    LOOM_OP_PREDEFINED_COUNT
} loom_op_t;

/**
 * User reduction function: combine @p count elements of @p in into @p inout
 * (inout[i] = in[i] op inout[i]).
 */
typedef void (*loom_user_op_fn_t)(const void *in, void *inout, size_t count,
                                  loom_datatype_t dt, void *arg);

/**
 * @brief Create a user-defined reduction operation.
 * @param commute 1 if the operation is commutative.
 * @param op_p    written on success with the new operation's handle.
 */
LOOM_API loom_status_t loom_op_create(loom_user_op_fn_t fn, void *arg,
                                      int commute, loom_op_t *op_p);

/**
 * @brief Create a user-defined operation whose elements are @p unit bytes,
 * a whole number of basic elements (a struct of three doubles: 24).
 *
 * Collectives then cut vectors only between such elements: @p fn always
 * gets whole elements (its count, in basic elements of dt, is a multiple
 * of unit / size of dt), and a reduction whose vector (or block) is not a
 * whole number of them fails with LOOM_ERR_INVALID_COUNT. @p unit 0 is
 * loom_op_create(): any basic element.
 * @return LOOM_ERR_INVALID_ARG if @p fn or @p op_p is NULL.
 */
LOOM_API loom_status_t loom_op_create_unit(loom_user_op_fn_t fn, void *arg, int commute,
                                           size_t unit, loom_op_t *op_p);

/**
 * @brief Have @p release(arg) (arg as given at creation) run when user
 * operation @p op is finally retired: at loom_op_free(), or, if a
 * nonblocking reduction still uses it then, when the last one ends.
 * @return LOOM_ERR_INVALID_OP if @p op is not a live user operation.
 */
LOOM_API loom_status_t loom_op_set_release(loom_op_t op, void (*release)(void *arg));

/** @brief Release a user-defined operation created by loom_op_create(). */
LOOM_API loom_status_t loom_op_free(loom_op_t *op_p);

/** @brief Name of @p op, e.g. "sum" (NULL if invalid). */
LOOM_API const char *loom_op_name(loom_op_t op);

/**
 * @brief Apply @p op elementwise: inout[i] = in[i] op inout[i].
 * @return LOOM_ERR_INVALID_OP if @p op is not defined for @p dt.
 */
LOOM_API loom_status_t loom_op_reduce(loom_op_t op, const void *in, void *inout,
                                      size_t count, loom_datatype_t dt);

/* ------------------------------------------------------------------------ */
/* Communicators                                                            */
/* ------------------------------------------------------------------------ */

/** Opaque communicator handle. */
typedef struct loom_comm *loom_comm_t;

extern LOOM_API struct loom_comm loom_comm_world_obj;
extern LOOM_API struct loom_comm loom_comm_self_obj;

/** Every rank of the job. */
#define LOOM_COMM_WORLD (&loom_comm_world_obj)
/** This rank alone. */
#define LOOM_COMM_SELF  (&loom_comm_self_obj)
#define LOOM_COMM_NULL  ((loom_comm_t)0)

/** @brief This process's rank in @p comm, or -1 if @p comm is invalid. */
LOOM_API int loom_comm_rank(loom_comm_t comm);

/** @brief Number of ranks in @p comm, or -1 if @p comm is invalid. */
LOOM_API int loom_comm_size(loom_comm_t comm);

/** @brief World rank of rank @p rank of @p comm, or -1 if invalid. */
LOOM_API int loom_comm_world_rank(loom_comm_t comm, int rank);

/**
 * @brief Duplicate @p comm: same group, new context (traffic never crosses).
 * Collective over @p comm. On any error *newcomm_p is LOOM_COMM_NULL.
 */
LOOM_API loom_status_t loom_comm_dup(loom_comm_t comm, loom_comm_t *newcomm_p);

/**
 * @brief Split @p comm by @p color, ordering ranks by (@p key, old rank).
 * A negative color (LOOM_UNDEFINED) yields LOOM_COMM_NULL, and so does any
 * error. Collective.
 */
LOOM_API loom_status_t loom_comm_split(loom_comm_t comm, int color, int key,
                                       loom_comm_t *newcomm_p);

/** @brief Free a communicator made by dup/split; sets *comm_p to NULL. */
LOOM_API loom_status_t loom_comm_free(loom_comm_t *comm_p);

#define LOOM_UNDEFINED (-32766)

/* ---- communicators from groups (collectives/comm_create.c) ---- */

/**
 * @brief Make a communicator of the @p n ranks @p ranks of @p comm (new rank
 * i is old rank ranks[i]). Collective over all of @p comm; ranks not listed
 * get LOOM_COMM_NULL. Different ranks may pass different lists if the lists
 * are disjoint (each rank passes the list it belongs to, or n = 0): one call
 * then makes one communicator per list.
 * @return LOOM_ERR_INVALID_RANK for a rank out of range or listed twice,
 * LOOM_ERR_INVALID_ARG if the members of one list passed different lists.
 */
LOOM_API loom_status_t loom_comm_create(loom_comm_t comm, int n, const int ranks[],
                                        loom_comm_t *newcomm_p);

/**
 * @brief Like loom_comm_create, but collective over the listed ranks only:
 * the other ranks of @p comm do not take part. The members agree on a
 * context id among themselves (messages on @p comm's collective context,
 * told apart by @p tag, 0..LOOM_TAG_UB), so disjoint lists may run it at
 * the same time. A caller not in the list gets LOOM_COMM_NULL at once.
 */
LOOM_API loom_status_t loom_comm_create_group(loom_comm_t comm, int n, const int ranks[],
                                              int tag, loom_comm_t *newcomm_p);

/** Split types of loom_comm_split_type (MPI_COMM_TYPE_SHARED). */
#define LOOM_COMM_TYPE_SHARED 1

/**
 * @brief Split @p comm into the ranks that share a host (@p type
 * LOOM_COMM_TYPE_SHARED), ordered by (@p key, old rank); LOOM_UNDEFINED
 * gives LOOM_COMM_NULL. Collective over @p comm.
 */
LOOM_API loom_status_t loom_comm_split_type(loom_comm_t comm, int type, int key,
                                            loom_comm_t *newcomm_p);

struct loom_request;  /* loom_request_t, declared with point-to-point below */

/**
 * @brief Nonblocking loom_comm_dup: *newcomm_p is LOOM_COMM_NULL now and is
 * written with the new communicator when *req_p completes (wait/test), so
 * the location must stay valid until then. Collective over @p comm, ordered
 * with @p comm's other collectives. (@p req_p is a loom_request_t *.)
 */
LOOM_API loom_status_t loom_comm_idup(loom_comm_t comm, loom_comm_t *newcomm_p,
                                      struct loom_request **req_p);

/* ---- intercommunicators ---- */

/**
 * @brief Intercommunicator of the group of @p local_comm and the group led by
 * @p remote_leader (a rank of @p peer_comm); the leaders exchange the groups
 * over @p peer_comm with @p tag. Collective over @p local_comm; @p peer_comm,
 * @p remote_leader and @p tag matter at @p local_leader only. Point-to-point
 * ranks of the result name the remote group; rank/size give the local one.
 */
LOOM_API loom_status_t loom_intercomm_create(loom_comm_t local_comm, int local_leader,
                                             loom_comm_t peer_comm, int remote_leader,
                                             int tag, loom_comm_t *newcomm_p);

/**
 * @brief Intracommunicator of both groups of @p inter: the group passing
 * @p high = 0 first; with equal @p high, the group whose rank 0 has the
 * lower world rank first. Collective over both groups.
 */
LOOM_API loom_status_t loom_intercomm_merge(loom_comm_t inter, int high,
                                            loom_comm_t *newcomm_p);

/** @brief 1 if @p comm is an intercommunicator, else 0. */
LOOM_API int loom_comm_is_inter(loom_comm_t comm);
/** @brief Size of the remote group of an intercommunicator (0 for an intracomm). */
LOOM_API int loom_comm_remote_size(loom_comm_t comm);
/** @brief World rank of remote rank @p rank of an intercommunicator, or -1. */
LOOM_API int loom_comm_remote_world_rank(loom_comm_t comm, int rank);

/* ------------------------------------------------------------------------ */
/* Point-to-point                                                           */
/* ------------------------------------------------------------------------ */

#define LOOM_ANY_SOURCE (-1)
#define LOOM_ANY_TAG    (-1)
#define LOOM_PROC_NULL  (-2)
/** Largest valid tag (tags are 0..LOOM_TAG_UB). */
#define LOOM_TAG_UB     0x7fffffff

/** Opaque request handle; LOOM_REQUEST_NULL once completed and released. */
typedef struct loom_request *loom_request_t;
#define LOOM_REQUEST_NULL ((loom_request_t)0)

/** What a completed receive (or probe) reports. */
typedef struct loom_msg_status {
    int           source;    /**< sender's rank in the communicator */
    int           tag;       /**< message tag */
    loom_status_t error;     /**< LOOM_OK, LOOM_ERR_TRUNCATED, ... */
    int           cancelled; /**< 1 if the operation was cancelled */
    size_t        bytes;     /**< bytes received (or that a probe found) */
} loom_msg_status_t;

/** Pass where a status is not wanted. */
#define LOOM_STATUS_IGNORE ((loom_msg_status_t *)0)

/** @brief Number of whole @p dt elements in a received message. */
LOOM_API loom_status_t loom_get_count(const loom_msg_status_t *st,
                                      loom_datatype_t dt, size_t *count_p);

/** @brief Blocking standard-mode send (returns when @p buf may be reused). */
LOOM_API loom_status_t loom_send(const void *buf, size_t count, loom_datatype_t dt,
                                 int dest, int tag, loom_comm_t comm);

/** @brief Blocking synchronous send: returns once the receive has matched. */
LOOM_API loom_status_t loom_ssend(const void *buf, size_t count, loom_datatype_t dt,
                                  int dest, int tag, loom_comm_t comm);

/** @brief Blocking receive; @p src may be LOOM_ANY_SOURCE, @p tag LOOM_ANY_TAG. */
LOOM_API loom_status_t loom_recv(void *buf, size_t count, loom_datatype_t dt,
                                 int src, int tag, loom_comm_t comm,
                                 loom_msg_status_t *status);

/** @brief Nonblocking standard-mode send. */
LOOM_API loom_status_t loom_isend(const void *buf, size_t count, loom_datatype_t dt,
                                  int dest, int tag, loom_comm_t comm,
                                  loom_request_t *req_p);

/** @brief Nonblocking synchronous send. */
LOOM_API loom_status_t loom_issend(const void *buf, size_t count, loom_datatype_t dt,
                                   int dest, int tag, loom_comm_t comm,
                                   loom_request_t *req_p);

/** @brief Nonblocking receive. */
LOOM_API loom_status_t loom_irecv(void *buf, size_t count, loom_datatype_t dt,
                                  int src, int tag, loom_comm_t comm,
                                  loom_request_t *req_p);

/**
 * @brief Test a request without blocking. When complete, sets *flag_p to 1,
 * fills @p status, releases the request and sets *req_p to LOOM_REQUEST_NULL.
 * Testing LOOM_REQUEST_NULL reports complete with an empty status.
 * @return the operation's own error once complete (e.g. LOOM_ERR_TRUNCATED).
 */
LOOM_API loom_status_t loom_test(loom_request_t *req_p, int *flag_p,
                                 loom_msg_status_t *status);

/** @brief Block until the request completes; see loom_test(). */
LOOM_API loom_status_t loom_wait(loom_request_t *req_p, loom_msg_status_t *status);

/** @brief Wait for all @p n requests; @p statuses may be NULL. */
LOOM_API loom_status_t loom_waitall(size_t n, loom_request_t reqs[],
                                    loom_msg_status_t statuses[]);

/** @brief Test all @p n requests; *flag_p is 1 only if all completed. */
LOOM_API loom_status_t loom_testall(size_t n, loom_request_t reqs[], int *flag_p,
                                    loom_msg_status_t statuses[]);

/**
 * @brief Wait for any one of @p n requests; *index_p gets its index, or
 * (size_t)-1 if all were LOOM_REQUEST_NULL.
 */
LOOM_API loom_status_t loom_waitany(size_t n, loom_request_t reqs[],
                                    size_t *index_p, loom_msg_status_t *status);

/** @brief Test any one of @p n requests without blocking. */
LOOM_API loom_status_t loom_testany(size_t n, loom_request_t reqs[],
                                    size_t *index_p, int *flag_p,
                                    loom_msg_status_t *status);

/** @brief Blocking probe for a matching message; fills @p status. */
LOOM_API loom_status_t loom_probe(int src, int tag, loom_comm_t comm,
                                  loom_msg_status_t *status);

/** @brief Nonblocking probe; *flag_p is 1 if a matching message is waiting. */
LOOM_API loom_status_t loom_iprobe(int src, int tag, loom_comm_t comm, int *flag_p,
                                   loom_msg_status_t *status);

/**
 * @brief Cancel a pending receive or send. Complete it with loom_wait/test;
 * the status then has cancelled = 1 unless the operation had already
 * matched. A send can be withdrawn while its receiver still holds it
 * unmatched and waits for it to be received (a synchronous send, or one
 * above the eager limit); a standard eager send is delivered and completes
 * not cancelled. Cancelling a collective returns LOOM_ERR_UNSUPPORTED.
 */
LOOM_API loom_status_t loom_cancel(loom_request_t *req_p);

/**
 * @brief Release a request without waiting; the operation still completes
 * in the background. Sets *req_p to LOOM_REQUEST_NULL.
 */
LOOM_API loom_status_t loom_request_free(loom_request_t *req_p);

/**
 * @brief Drive communication: poll every transport once and advance pending
 * protocols and collectives. @return the number of events processed.
 */
LOOM_API int loom_progress(void);

/* ---- point-to-point additions: persistent requests, matched probe ---- */

/**
 * @brief Create an inactive persistent standard-mode send (@p sync 0) or
 * synchronous send (@p sync 1) request: loom_start() sends the buffer's
 * current contents; completing the request (wait/test) makes it inactive
 * again instead of releasing it, and it can be started again. Free it with
 * loom_request_free(). Arguments are checked here, as by loom_isend().
 */
LOOM_API loom_status_t loom_send_init(const void *buf, size_t count, loom_datatype_t dt,
                                      int dest, int tag, int sync, loom_comm_t comm,
                                      loom_request_t *req_p);

/** @brief Create an inactive persistent receive; see loom_send_init(). */
LOOM_API loom_status_t loom_recv_init(void *buf, size_t count, loom_datatype_t dt,
                                      int src, int tag, loom_comm_t comm,
                                      loom_request_t *req_p);

/**
 * @brief Start an inactive persistent request. Waiting on or testing an
 * inactive persistent request returns at once with an empty status.
 * @return LOOM_ERR_INVALID_REQUEST if it is not persistent or already active.
 */
LOOM_API loom_status_t loom_start(loom_request_t *req_p);

/** @brief loom_start() on each of @p n requests, in order; stops at the first error. */
LOOM_API loom_status_t loom_startall(size_t n, loom_request_t reqs[]);

/**
 * @brief Non-destructive test: *flag_p = 1 when @p req is complete (or
 * LOOM_REQUEST_NULL, or an inactive persistent request), with @p status
 * filled, but the request is neither released nor made inactive.
 */
LOOM_API loom_status_t loom_request_get_status(loom_request_t req, int *flag_p,
                                               loom_msg_status_t *status);

/**
 * A message taken out of matching by loom_mprobe()/loom_improbe(): no other
 * receive can match it; receive it with loom_mrecv()/loom_imrecv().
 */
typedef struct loom_message *loom_message_t;
#define LOOM_MESSAGE_NULL    ((loom_message_t)0)
/** What a matched probe of LOOM_PROC_NULL returns; receiving it gets nothing. */
#define LOOM_MESSAGE_NO_PROC ((loom_message_t)1)

/**
 * @brief Blocking matched probe: wait for a message matching (@p src,
 * @p tag) on @p comm, remove it from the unexpected queue and return it in
 * *msg_p (eager data or a rendezvous announcement; the data of a
 * rendezvous is read only by loom_mrecv). @p status as for loom_probe().
 */
LOOM_API loom_status_t loom_mprobe(int src, int tag, loom_comm_t comm, loom_message_t *msg_p,
                                   loom_msg_status_t *status);

/** @brief Nonblocking matched probe: *flag_p = 0 and *msg_p untouched if none. */
LOOM_API loom_status_t loom_improbe(int src, int tag, loom_comm_t comm, int *flag_p,
                                    loom_message_t *msg_p, loom_msg_status_t *status);

/** @brief Receive a probed message; sets *msg_p to LOOM_MESSAGE_NULL. */
LOOM_API loom_status_t loom_mrecv(void *buf, size_t count, loom_datatype_t dt,
                                  loom_message_t *msg_p, loom_msg_status_t *status);

/** @brief Nonblocking loom_mrecv(). */
LOOM_API loom_status_t loom_imrecv(void *buf, size_t count, loom_datatype_t dt,
                                   loom_message_t *msg_p, loom_request_t *req_p);

/* ---- point-to-point on derived datatypes ---- */

/**
 * @defgroup loom_p2p_dt Point-to-point on derived datatypes
 *
 * The calls above with a ::loom_dtype_t (committed) in place of a basic
 * type: @p count counts elements of the type, instance i at
 * buf + i x extent; @p buf may be NULL for a type of absolute addresses.
 * The message is the type's packed stream (its basic elements in type-map
 * order), so sender and receiver may use different types with the same
 * bytes (a vector sent, a contiguous run received). Statuses count bytes:
 * a receive of more bytes than count x size fails with
 * LOOM_ERR_TRUNCATED after delivering what fits. A type that is
 * contiguous for @p count takes the basic-type path unchanged; a
 * non-contiguous one is packed straight into the transport's frame and
 * unpacked straight from it (eager), or read into its pieces (rendezvous),
 * without a copy of the whole message where the transport can (see
 * docs/p2p.md "Derived datatypes"). The type may be released (MPI_Type_free)
 * while an operation on it is pending. Errors as the basic-type calls, and
 * LOOM_ERR_INVALID_TYPE for a NULL or uncommitted type.
 * @{
 */

/** @brief loom_send() of @p count elements of derived type @p dt. */
LOOM_API loom_status_t loom_send_dt(const void *buf, size_t count, loom_dtype_t dt,
                                    int dest, int tag, loom_comm_t comm);
/** @brief loom_ssend() of @p count elements of derived type @p dt. */
LOOM_API loom_status_t loom_ssend_dt(const void *buf, size_t count, loom_dtype_t dt,
                                     int dest, int tag, loom_comm_t comm);
/** @brief loom_isend() of @p count elements of derived type @p dt. */
LOOM_API loom_status_t loom_isend_dt(const void *buf, size_t count, loom_dtype_t dt,
                                     int dest, int tag, loom_comm_t comm,
                                     loom_request_t *req_p);
/** @brief loom_issend() of @p count elements of derived type @p dt. */
LOOM_API loom_status_t loom_issend_dt(const void *buf, size_t count, loom_dtype_t dt,
                                      int dest, int tag, loom_comm_t comm,
                                      loom_request_t *req_p);
/** @brief loom_recv() into @p count elements of derived type @p dt (status in bytes). */
LOOM_API loom_status_t loom_recv_dt(void *buf, size_t count, loom_dtype_t dt, int src,
                                    int tag, loom_comm_t comm, loom_msg_status_t *status);
/** @brief loom_irecv() into @p count elements of derived type @p dt. */
LOOM_API loom_status_t loom_irecv_dt(void *buf, size_t count, loom_dtype_t dt, int src,
                                     int tag, loom_comm_t comm, loom_request_t *req_p);
/**
 * @brief loom_send_init() of derived type @p dt: each loom_start() sends
 * the buffer's current contents; the request holds the type until freed.
 */
LOOM_API loom_status_t loom_send_init_dt(const void *buf, size_t count, loom_dtype_t dt,
                                         int dest, int tag, int sync, loom_comm_t comm,
                                         loom_request_t *req_p);
/** @brief loom_recv_init() of derived type @p dt. */
LOOM_API loom_status_t loom_recv_init_dt(void *buf, size_t count, loom_dtype_t dt, int src,
                                         int tag, loom_comm_t comm, loom_request_t *req_p);
/** @brief loom_mrecv() into @p count elements of derived type @p dt. */
LOOM_API loom_status_t loom_mrecv_dt(void *buf, size_t count, loom_dtype_t dt,
                                     loom_message_t *msg_p, loom_msg_status_t *status);
/** @brief loom_imrecv() into @p count elements of derived type @p dt. */
LOOM_API loom_status_t loom_imrecv_dt(void *buf, size_t count, loom_dtype_t dt,
                                      loom_message_t *msg_p, loom_request_t *req_p);
/** @} */

/* ------------------------------------------------------------------------ */
/* Collectives                                                              */
/* ------------------------------------------------------------------------ */

/** Pass as the send buffer for in-place collectives. */
#define LOOM_IN_PLACE ((void *)1)

LOOM_API loom_status_t loom_barrier(loom_comm_t comm);
LOOM_API loom_status_t loom_ibarrier(loom_comm_t comm, loom_request_t *req_p);

LOOM_API loom_status_t loom_bcast(void *buf, size_t count, loom_datatype_t dt,
                                  int root, loom_comm_t comm);
LOOM_API loom_status_t loom_ibcast(void *buf, size_t count, loom_datatype_t dt,
                                   int root, loom_comm_t comm, loom_request_t *req_p);

/** @brief Reduce into @p recvbuf at @p root (@p recvbuf ignored elsewhere). */
LOOM_API loom_status_t loom_reduce(const void *sendbuf, void *recvbuf, size_t count,
                                   loom_datatype_t dt, loom_op_t op, int root,
                                   loom_comm_t comm);
LOOM_API loom_status_t loom_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                                    loom_datatype_t dt, loom_op_t op, int root,
                                    loom_comm_t comm, loom_request_t *req_p);

LOOM_API loom_status_t loom_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                                      loom_datatype_t dt, loom_op_t op,
                                      loom_comm_t comm);
LOOM_API loom_status_t loom_iallreduce(const void *sendbuf, void *recvbuf,
                                       size_t count, loom_datatype_t dt, loom_op_t op,
                                       loom_comm_t comm, loom_request_t *req_p);

/** @brief Every rank contributes @p count elements; recvbuf holds size*count. */
LOOM_API loom_status_t loom_allgather(const void *sendbuf, void *recvbuf, size_t count,
                                      loom_datatype_t dt, loom_comm_t comm);
LOOM_API loom_status_t loom_iallgather(const void *sendbuf, void *recvbuf,
                                       size_t count, loom_datatype_t dt,
                                       loom_comm_t comm, loom_request_t *req_p);

/** @brief Variable counts (in elements) and displacements (in elements). */
LOOM_API loom_status_t loom_allgatherv(const void *sendbuf, size_t sendcount,
                                       void *recvbuf, const size_t recvcounts[],
                                       const size_t displs[], loom_datatype_t dt,
                                       loom_comm_t comm);
LOOM_API loom_status_t loom_iallgatherv(const void *sendbuf, size_t sendcount,
                                        void *recvbuf, const size_t recvcounts[],
                                        const size_t displs[], loom_datatype_t dt,
                                        loom_comm_t comm, loom_request_t *req_p);

LOOM_API loom_status_t loom_gather(const void *sendbuf, void *recvbuf, size_t count,
                                   loom_datatype_t dt, int root, loom_comm_t comm);
LOOM_API loom_status_t loom_igather(const void *sendbuf, void *recvbuf, size_t count,
                                    loom_datatype_t dt, int root, loom_comm_t comm,
                                    loom_request_t *req_p);

LOOM_API loom_status_t loom_gatherv(const void *sendbuf, size_t sendcount,
                                    void *recvbuf, const size_t recvcounts[],
                                    const size_t displs[], loom_datatype_t dt,
                                    int root, loom_comm_t comm);
LOOM_API loom_status_t loom_igatherv(const void *sendbuf, size_t sendcount,
                                     void *recvbuf, const size_t recvcounts[],
                                     const size_t displs[], loom_datatype_t dt,
                                     int root, loom_comm_t comm, loom_request_t *req_p);

LOOM_API loom_status_t loom_scatter(const void *sendbuf, void *recvbuf, size_t count,
                                    loom_datatype_t dt, int root, loom_comm_t comm);
LOOM_API loom_status_t loom_iscatter(const void *sendbuf, void *recvbuf, size_t count,
                                     loom_datatype_t dt, int root, loom_comm_t comm,
                                     loom_request_t *req_p);

LOOM_API loom_status_t loom_scatterv(const void *sendbuf, const size_t sendcounts[],
                                     const size_t displs[], void *recvbuf,
                                     size_t recvcount, loom_datatype_t dt, int root,
                                     loom_comm_t comm);
LOOM_API loom_status_t loom_iscatterv(const void *sendbuf, const size_t sendcounts[],
                                      const size_t displs[], void *recvbuf,
                                      size_t recvcount, loom_datatype_t dt, int root,
                                      loom_comm_t comm, loom_request_t *req_p);

/** @brief Block j of rank i's sendbuf goes to block i of rank j's recvbuf. */
LOOM_API loom_status_t loom_alltoall(const void *sendbuf, void *recvbuf, size_t count,
                                     loom_datatype_t dt, loom_comm_t comm);
LOOM_API loom_status_t loom_ialltoall(const void *sendbuf, void *recvbuf, size_t count,
                                      loom_datatype_t dt, loom_comm_t comm,
                                      loom_request_t *req_p);

LOOM_API loom_status_t loom_alltoallv(const void *sendbuf, const size_t sendcounts[],
                                      const size_t sdispls[], void *recvbuf,
                                      const size_t recvcounts[], const size_t rdispls[],
                                      loom_datatype_t dt, loom_comm_t comm);
LOOM_API loom_status_t loom_ialltoallv(const void *sendbuf, const size_t sendcounts[],
                                       const size_t sdispls[], void *recvbuf,
                                       const size_t recvcounts[],
                                       const size_t rdispls[], loom_datatype_t dt,
                                       loom_comm_t comm, loom_request_t *req_p);

/** @brief Reduce size*count elements, then rank i keeps block i (count elems). */
LOOM_API loom_status_t loom_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                 size_t count, loom_datatype_t dt,
                                                 loom_op_t op, loom_comm_t comm);
LOOM_API loom_status_t loom_ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                  size_t count, loom_datatype_t dt,
                                                  loom_op_t op, loom_comm_t comm,
                                                  loom_request_t *req_p);

/* ---- neighbourhood collectives (process topologies) ---- */

/**
 * @brief Neighbourhood all-to-all over explicit rank lists, in bytes.
 *
 * Block i of @p sendbuf (@p sendbytes[i] bytes at offset @p sdispls[i]) goes
 * to comm rank @p destinations[i]; block j of @p recvbuf (@p recvbytes[j]
 * bytes at @p rdispls[j]) comes from @p sources[j]. A LOOM_PROC_NULL entry
 * keeps its block untouched. Collective over @p comm: every rank calls it,
 * with lists that agree (the sends a rank lists to q are the receives q
 * lists from it). Several messages between the same two ranks match in
 * list order: the k-th entry naming q in the destination list fills the
 * k-th entry naming this rank in q's source list. The arrays and buffers
 * are read until the call completes. No LOOM_IN_PLACE.
 * @return LOOM_OK; LOOM_ERR_INVALID_RANK for a rank outside @p comm;
 *         LOOM_ERR_INVALID_COUNT / LOOM_ERR_TRUNCATED if a received block
 *         has another size than the receiver listed.
 */
LOOM_API loom_status_t loom_neighbor_alltoallv(const void *sendbuf, int outdegree,
                                               const int destinations[],
                                               const size_t sendbytes[],
                                               const size_t sdispls[], void *recvbuf,
                                               int indegree, const int sources[],
                                               const size_t recvbytes[],
                                               const size_t rdispls[], loom_comm_t comm);

/** @brief Nonblocking loom_neighbor_alltoallv(). */
LOOM_API loom_status_t loom_ineighbor_alltoallv(const void *sendbuf, int outdegree,
                                                const int destinations[],
                                                const size_t sendbytes[],
                                                const size_t sdispls[], void *recvbuf,
                                                int indegree, const int sources[],
                                                const size_t recvbytes[],
                                                const size_t rdispls[], loom_comm_t comm,
                                                loom_request_t *req_p);
/* ---- scan family, reduce_scatter with per-rank counts, alltoallw ---------- */

/**
 * @brief Inclusive prefix reduction: rank i receives x0 op x1 op ... op xi
 * (operands in rank order, so non-commutative operations are right).
 *
 * @p sendbuf may be LOOM_IN_PLACE (the input is taken from @p recvbuf).
 * Under LOOM_DETERMINISTIC=1 every algorithm gives the bits of the left fold
 * ((x0 op x1) op ...) op xi. LOOM_SCAN_ALGORITHM forces an algorithm.
 */
LOOM_API loom_status_t loom_scan(const void *sendbuf, void *recvbuf, size_t count,
                                 loom_datatype_t dt, loom_op_t op, loom_comm_t comm);
/** @brief Nonblocking loom_scan(); complete @p req_p with loom_wait()/loom_test(). */
LOOM_API loom_status_t loom_iscan(const void *sendbuf, void *recvbuf, size_t count,
                                  loom_datatype_t dt, loom_op_t op, loom_comm_t comm,
                                  loom_request_t *req_p);

/**
 * @brief Exclusive prefix reduction: rank i > 0 receives x0 op ... op x(i-1);
 * rank 0's @p recvbuf is left untouched (MPI: undefined).
 *
 * @p sendbuf may be LOOM_IN_PLACE. LOOM_EXSCAN_ALGORITHM forces an algorithm.
 */
LOOM_API loom_status_t loom_exscan(const void *sendbuf, void *recvbuf, size_t count,
                                   loom_datatype_t dt, loom_op_t op, loom_comm_t comm);
/** @brief Nonblocking loom_exscan(). */
LOOM_API loom_status_t loom_iexscan(const void *sendbuf, void *recvbuf, size_t count,
                                    loom_datatype_t dt, loom_op_t op, loom_comm_t comm,
                                    loom_request_t *req_p);

/**
 * @brief Reduce sum(recvcounts) elements, then rank i keeps the i-th block
 * (recvcounts[i] elements, blocks consecutive in @p sendbuf).
 *
 * @p sendbuf may be LOOM_IN_PLACE (the input is read from @p recvbuf, which
 * then holds the whole vector; the result lands at its start). Counts may
 * be 0. LOOM_REDUCE_SCATTERV_ALGORITHM forces an algorithm.
 */
LOOM_API loom_status_t loom_reduce_scatter(const void *sendbuf, void *recvbuf,
                                           const size_t recvcounts[], loom_datatype_t dt,
                                           loom_op_t op, loom_comm_t comm);
/** @brief Nonblocking loom_reduce_scatter(); @p recvcounts is read until completion. */
LOOM_API loom_status_t loom_ireduce_scatter(const void *sendbuf, void *recvbuf,
                                            const size_t recvcounts[], loom_datatype_t dt,
                                            loom_op_t op, loom_comm_t comm,
                                            loom_request_t *req_p);

/**
 * @brief Alltoall with a count, a datatype and a byte displacement per peer:
 * sendcounts[j] elements of sendtypes[j] at byte sdispls[j] go to rank j,
 * recvcounts[i] elements of recvtypes[i] from rank i land at byte rdispls[i].
 *
 * Both sides of a message must have the same size in bytes. @p sendbuf may
 * be LOOM_IN_PLACE (the send arguments are then ignored and the receive
 * side describes both). The arrays are read until completion (nonblocking
 * form). LOOM_ALLTOALLW_ALGORITHM forces an algorithm.
 */
LOOM_API loom_status_t loom_alltoallw(const void *sendbuf, const size_t sendcounts[],
                                      const size_t sdispls[],
                                      const loom_datatype_t sendtypes[], void *recvbuf,
                                      const size_t recvcounts[], const size_t rdispls[],
                                      const loom_datatype_t recvtypes[], loom_comm_t comm);
/** @brief Nonblocking loom_alltoallw(). */
LOOM_API loom_status_t loom_ialltoallw(const void *sendbuf, const size_t sendcounts[],
                                       const size_t sdispls[],
                                       const loom_datatype_t sendtypes[], void *recvbuf,
                                       const size_t recvcounts[], const size_t rdispls[],
                                       const loom_datatype_t recvtypes[],
                                       loom_comm_t comm, loom_request_t *req_p);
/* ---- intercommunicator collectives (MPI-3.1 5.2.2) ---- */

/** Root argument of the root itself in an intercomm rooted collective. */
#define LOOM_ROOT (-3)

/*
 * Collectives over both groups of an intercommunicator. Rooted ones: the
 * root passes LOOM_ROOT, the rest of its group LOOM_PROC_NULL, the other
 * group the root's remote rank. Byte counts (LOOM_BYTE) unless a datatype
 * is given; per-rank arrays are indexed by remote rank, except
 * loom_inter_reduce_scatter's @p recvcounts (local group). Reductions give
 * each group the reduction of the other group's data.
 */
/** @brief Barrier over both groups. */
LOOM_API loom_status_t loom_inter_barrier(loom_comm_t comm);
/** @brief Broadcast from a root in one group to every process of the other. */
LOOM_API loom_status_t loom_inter_bcast(void *buf, size_t bytes, int root, loom_comm_t comm);
/** @brief Root receives recvbytes[r] at displs[r] from each remote rank r. */
LOOM_API loom_status_t loom_inter_gatherv(const void *sendbuf, size_t sendbytes,
                                          void *recvbuf, const size_t recvbytes[],
                                          const size_t displs[], int root,
                                          loom_comm_t comm);
/** @brief Root sends sendbytes[r] from displs[r] to each remote rank r. */
LOOM_API loom_status_t loom_inter_scatterv(const void *sendbuf, const size_t sendbytes[],
                                           const size_t displs[], void *recvbuf,
                                           size_t recvbytes, int root, loom_comm_t comm);
/** @brief Every process receives every remote process's block. */
LOOM_API loom_status_t loom_inter_allgatherv(const void *sendbuf, size_t sendbytes,
                                             void *recvbuf, const size_t recvbytes[],
                                             const size_t displs[], loom_comm_t comm);
/** @brief Block r of the send buffer goes to remote rank r, and back. */
LOOM_API loom_status_t loom_inter_alltoallv(const void *sendbuf, const size_t sendbytes[],
                                            const size_t sdispls[], void *recvbuf,
                                            const size_t recvbytes[],
                                            const size_t rdispls[], loom_comm_t comm);
/** @brief The root receives the reduction of the other group's buffers. */
LOOM_API loom_status_t loom_inter_reduce(const void *sendbuf, void *recvbuf, size_t count,
                                         loom_datatype_t dt, loom_op_t op, int root,
                                         loom_comm_t comm);
/** @brief Each process receives the reduction of the other group's buffers. */
LOOM_API loom_status_t loom_inter_allreduce(const void *sendbuf, void *recvbuf,
                                            size_t count, loom_datatype_t dt, loom_op_t op,
                                            loom_comm_t comm);
/**
 * @brief The reduction of the other group's vectors (sum of @p recvcounts
 * elements; both groups' sums must agree) is scattered by @p recvcounts.
 */
LOOM_API loom_status_t loom_inter_reduce_scatter(const void *sendbuf, void *recvbuf,
                                                 const size_t recvcounts[],
                                                 loom_datatype_t dt, loom_op_t op,
                                                 loom_comm_t comm);
/*
 * Nonblocking forms of the intercommunicator collectives (same arguments;
 * the buffers and the byte arrays' targets stay in use until *req_p
 * completes; the count/displacement arrays are read at the call).
 */
/** @brief Nonblocking loom_inter_barrier. */
LOOM_API loom_status_t loom_inter_ibarrier(loom_comm_t comm, loom_request_t *req_p);
/** @brief Nonblocking loom_inter_bcast. */
LOOM_API loom_status_t loom_inter_ibcast(void *buf, size_t bytes, int root,
                                         loom_comm_t comm, loom_request_t *req_p);
/** @brief Nonblocking loom_inter_gatherv. */
LOOM_API loom_status_t loom_inter_igatherv(const void *sendbuf, size_t sendbytes,
                                           void *recvbuf, const size_t recvbytes[],
                                           const size_t displs[], int root,
                                           loom_comm_t comm, loom_request_t *req_p);
/** @brief Nonblocking loom_inter_scatterv. */
LOOM_API loom_status_t loom_inter_iscatterv(const void *sendbuf, const size_t sendbytes[],
                                            const size_t displs[], void *recvbuf,
                                            size_t recvbytes, int root, loom_comm_t comm,
                                            loom_request_t *req_p);
/** @brief Nonblocking loom_inter_allgatherv. */
LOOM_API loom_status_t loom_inter_iallgatherv(const void *sendbuf, size_t sendbytes,
                                              void *recvbuf, const size_t recvbytes[],
                                              const size_t displs[], loom_comm_t comm,
                                              loom_request_t *req_p);
/** @brief Nonblocking loom_inter_alltoallv. */
LOOM_API loom_status_t loom_inter_ialltoallv(const void *sendbuf, const size_t sendbytes[],
                                             const size_t sdispls[], void *recvbuf,
                                             const size_t recvbytes[],
                                             const size_t rdispls[], loom_comm_t comm,
                                             loom_request_t *req_p);
/** @brief Nonblocking loom_inter_reduce. */
LOOM_API loom_status_t loom_inter_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                                          loom_datatype_t dt, loom_op_t op, int root,
                                          loom_comm_t comm, loom_request_t *req_p);
/** @brief Nonblocking loom_inter_allreduce. */
LOOM_API loom_status_t loom_inter_iallreduce(const void *sendbuf, void *recvbuf,
                                             size_t count, loom_datatype_t dt,
                                             loom_op_t op, loom_comm_t comm,
                                             loom_request_t *req_p);
/** @brief Nonblocking loom_inter_reduce_scatter. */
LOOM_API loom_status_t loom_inter_ireduce_scatter(const void *sendbuf, void *recvbuf,
                                                  const size_t recvcounts[],
                                                  loom_datatype_t dt, loom_op_t op,
                                                  loom_comm_t comm, loom_request_t *req_p);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_H */
