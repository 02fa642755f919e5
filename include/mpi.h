/**
 * @file mpi.h
 * @brief loom's MPI binding: the MPI-3.1 C interface over loom.h.
 *
 * This header is written by hand for everything that is not a function:
 * handles, constants, predefined objects, callback types. The functions
 * (every one of the MPI-3.1 C binding, with its PMPI_ twin) are declared in
 * mpi_proto.h, generated at build time from the table mpi/mpi_api.txt by
 * mpi/gen_mpi.py and installed beside this header. Usable from C11 and C++.
 *
 * Design: every MPI call maps onto one or a few calls of the native API
 * (include/loom.h); nothing is implemented twice. Handles are pointers to
 * small objects owned by libloom_mpi: a communicator carries its loom_comm_t,
 * its error handler and its name; a datatype is a loom basic type times a
 * repeat count (predefined types have count 1, MPI_Type_contiguous multiplies
 * it), so every supported datatype is contiguous; a user operation is bound
 * lazily, per datatype, to a loom user operation. MPI_Request is a loom
 * request, and MPI_Status has the layout of loom_msg_status_t, so request
 * arrays and status arrays go to loom's wait/test calls without copies.
 *
 * Every MPI_X is a weak alias of PMPI_X, so a profiling library that
 * defines MPI_X and calls PMPI_X works (MPI-3.1 section 14.2).
 *
 * Errors: return values are MPI error classes (codes and classes are the same
 * numbers here). The default handler, MPI_ERRORS_ARE_FATAL, prints the error
 * naming the call and aborts the job; MPI_ERRORS_RETURN returns the class.
 * Calls outside what loom implements (windows, MPI-IO, dynamic processes,
 * ...) link, set their output handles to the null handle, and raise
 * MPI_ERR_UNSUPPORTED_OPERATION naming the call and the missing feature.
 *
 * Threads: MPI_Init_thread grants every level as asked, up to
 * MPI_THREAD_MULTIPLE. Under MULTIPLE every call takes loom's one engine
 * lock (recursive per thread; blocking calls release it while they wait),
 * so any thread may call at any time; SINGLE, FUNNELED and SERIALIZED take
 * no lock (docs/ARCHITECTURE.md, "Threads"). MPI_Init gives SINGLE.
 */
#ifndef LOOM_MPI_H
#define LOOM_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define LOOM_MPI_API __attribute__((visibility("default")))
#else
#define LOOM_MPI_API
#endif

/*
 * Declare MPI_X and its profiling twin PMPI_X with one prototype. The
 * functions of MPI-3.1 come from mpi_proto.h; this is for declarations
 * outside the table (to be folded into mpi/mpi_api.txt).
 */
#define LOOM_MPI_FN(ret, name, args) \
    LOOM_MPI_API ret MPI_##name args; \
    LOOM_MPI_API ret PMPI_##name args;

/* ------------------------------------------------------------------------ */
/* Versions and limits                                                      */
/* ------------------------------------------------------------------------ */

#define MPI_VERSION    3
#define MPI_SUBVERSION 1
#define LOOM_MPI 1   /* lets programs tell loom's binding apart */

#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_ERROR_STRING           256
#define MPI_MAX_OBJECT_NAME            64
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY               36
#define MPI_MAX_INFO_VAL               256
#define MPI_MAX_PORT_NAME              1024
#define MPI_MAX_DATAREP_STRING         128

/* ------------------------------------------------------------------------ */
/* Error classes                                                            */
/* ------------------------------------------------------------------------ */

/**
 * Every error class, in one table so the enum and MPI_Error_string() cannot
 * drift. X(name, value, description). Values follow MPI-3.1 table 8.1.
 */
#define LOOM_MPI_ERR_MAP(X)                                                     \
    X(MPI_SUCCESS,               0,  "no error")                                \
    X(MPI_ERR_BUFFER,            1,  "invalid buffer pointer")                  \
    X(MPI_ERR_COUNT,             2,  "invalid count argument")                  \
    X(MPI_ERR_TYPE,              3,  "invalid datatype")                        \
    X(MPI_ERR_TAG,               4,  "invalid tag")                             \
    X(MPI_ERR_COMM,              5,  "invalid communicator")                    \
    X(MPI_ERR_RANK,              6,  "invalid rank")                            \
    X(MPI_ERR_REQUEST,           7,  "invalid request")                         \
    X(MPI_ERR_ROOT,              8,  "invalid root")                            \
    X(MPI_ERR_GROUP,             9,  "invalid group")                           \
    X(MPI_ERR_OP,                10, "invalid reduction operation")             \
    X(MPI_ERR_TOPOLOGY,          11, "invalid topology")                        \
    X(MPI_ERR_DIMS,              12, "invalid dimension argument")              \
    X(MPI_ERR_ARG,               13, "invalid argument of some other kind")     \
    X(MPI_ERR_UNKNOWN,           14, "unknown error")                           \
    X(MPI_ERR_TRUNCATE,          15, "message truncated")                       \
    X(MPI_ERR_OTHER,             16, "known error not in this list")            \
    X(MPI_ERR_INTERN,            17, "internal error")                          \
    X(MPI_ERR_IN_STATUS,         18, "error code is in status")                 \
    X(MPI_ERR_PENDING,           19, "pending request")                         \
    X(MPI_ERR_ACCESS,            20, "permission denied")                       \
    X(MPI_ERR_AMODE,             21, "invalid file access mode")                \
    X(MPI_ERR_ASSERT,            22, "invalid assert argument")                 \
    X(MPI_ERR_BAD_FILE,          23, "invalid file name")                       \
    X(MPI_ERR_BASE,              24, "invalid base argument")                   \
    X(MPI_ERR_CONVERSION,        25, "data conversion error")                   \
    X(MPI_ERR_DISP,              26, "invalid displacement")                    \
    X(MPI_ERR_DUP_DATAREP,       27, "data representation already defined")     \
    X(MPI_ERR_FILE_EXISTS,       28, "file exists")                             \
    X(MPI_ERR_FILE_IN_USE,       29, "file in use")                             \
    X(MPI_ERR_FILE,              30, "invalid file handle")                     \
    X(MPI_ERR_INFO_KEY,          31, "info key too long")                       \
    X(MPI_ERR_INFO_NOKEY,        32, "info key not defined")                    \
    X(MPI_ERR_INFO_VALUE,        33, "info value too long")                     \
    X(MPI_ERR_INFO,              34, "invalid info object")                     \
    X(MPI_ERR_IO,                35, "input/output error")                      \
    X(MPI_ERR_KEYVAL,            36, "invalid attribute key")                   \
    X(MPI_ERR_LOCKTYPE,          37, "invalid lock type")                       \
    X(MPI_ERR_NAME,              38, "invalid service name")                    \
    X(MPI_ERR_NO_MEM,            39, "out of memory")                           \
    X(MPI_ERR_NOT_SAME,          40, "arguments differ across processes")       \
    X(MPI_ERR_NO_SPACE,          41, "not enough space")                        \
    X(MPI_ERR_NO_SUCH_FILE,      42, "no such file")                            \
    X(MPI_ERR_PORT,              43, "invalid port name")                       \
    X(MPI_ERR_QUOTA,             44, "quota exceeded")                          \
    X(MPI_ERR_READ_ONLY,         45, "read-only file or file system")           \
    X(MPI_ERR_RMA_CONFLICT,      46, "conflicting accesses to a window")        \
    X(MPI_ERR_RMA_SYNC,          47, "wrong synchronization of RMA calls")      \
    X(MPI_ERR_SERVICE,           48, "invalid service name")                    \
    X(MPI_ERR_SIZE,              49, "invalid size argument")                   \
    X(MPI_ERR_SPAWN,             50, "error spawning processes")                \
    X(MPI_ERR_UNSUPPORTED_DATAREP, 51, "unsupported data representation")       \
    X(MPI_ERR_UNSUPPORTED_OPERATION, 52, "operation not supported by loom")     \
    X(MPI_ERR_WIN,               53, "invalid window")                          \
    X(MPI_ERR_RMA_RANGE,         54, "target memory outside the window")        \
    X(MPI_ERR_RMA_ATTACH,        55, "memory cannot be attached")               \
    X(MPI_ERR_RMA_SHARED,        56, "memory cannot be shared")                 \
    X(MPI_ERR_RMA_FLAVOR,        57, "wrong window flavor")                     \
    X(MPI_T_ERR_MEMORY,          58, "MPI_T: out of memory")                    \
    X(MPI_T_ERR_NOT_INITIALIZED, 59, "MPI_T: interface not initialized")        \
    X(MPI_T_ERR_CANNOT_INIT,     60, "MPI_T: interface cannot be initialized")  \
    X(MPI_T_ERR_INVALID_INDEX,   61, "MPI_T: invalid variable or category index") \
    X(MPI_T_ERR_INVALID_ITEM,    62, "MPI_T: invalid enumeration item index")   \
    X(MPI_T_ERR_INVALID_HANDLE,  63, "MPI_T: invalid handle")                   \
    X(MPI_T_ERR_OUT_OF_HANDLES,  64, "MPI_T: no more handles")                  \
    X(MPI_T_ERR_OUT_OF_SESSIONS, 65, "MPI_T: no more sessions")                 \
    X(MPI_T_ERR_INVALID_SESSION, 66, "MPI_T: invalid session")                  \
    X(MPI_T_ERR_CVAR_SET_NOT_NOW, 67, "MPI_T: control variable cannot be set now") \
    X(MPI_T_ERR_CVAR_SET_NEVER,  68, "MPI_T: control variable can never be set") \
    X(MPI_T_ERR_PVAR_NO_STARTSTOP, 69, "MPI_T: variable cannot be started or stopped") \
    X(MPI_T_ERR_PVAR_NO_WRITE,   70, "MPI_T: variable cannot be written")       \
    X(MPI_T_ERR_PVAR_NO_ATOMIC,  71, "MPI_T: variable cannot be read and reset atomically") \
    X(MPI_T_ERR_INVALID_NAME,    72, "MPI_T: invalid variable or category name") \
    X(MPI_T_ERR_INVALID,         73, "MPI_T: invalid use of the interface")

enum {
#define LOOM_MPI_ERR_ENUM_(name, value, desc) name = (value),
    LOOM_MPI_ERR_MAP(LOOM_MPI_ERR_ENUM_)
#undef LOOM_MPI_ERR_ENUM_
    MPI_ERR_LASTCODE = 73
};

/* ------------------------------------------------------------------------ */
/* Handles and basic types                                                  */
/* ------------------------------------------------------------------------ */

typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int       MPI_Fint;

typedef struct loom_mpi_comm       *MPI_Comm;
typedef struct loom_mpi_datatype   *MPI_Datatype;
typedef struct loom_mpi_op         *MPI_Op;
typedef struct loom_mpi_errhandler *MPI_Errhandler;
typedef struct loom_request        *MPI_Request;  /* a loom_request_t */
typedef struct loom_mpi_info       *MPI_Info;     /* only MPI_INFO_NULL */
typedef struct loom_mpi_group      *MPI_Group;    /* unsupported */
typedef struct loom_mpi_win        *MPI_Win;      /* unsupported */
typedef struct loom_mpi_file       *MPI_File;     /* unsupported */
typedef struct loom_mpi_message    *MPI_Message;  /* a loom_message_t */

/**
 * Status of a completed receive or probe. The first three fields are MPI's;
 * the layout is loom_msg_status_t's (checked by the library at build time).
 */
typedef struct MPI_Status {
    int    MPI_SOURCE;
    int    MPI_TAG;
    int    MPI_ERROR;
    int    loom_cancelled_;  /* private: use MPI_Test_cancelled() */
    size_t loom_bytes_;      /* private: use MPI_Get_count() */
} MPI_Status;

#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

/**
 * A status as mpi_f08's TYPE(MPI_Status), for MPI_Status_c2f08/f082c: the
 * three public fields, then the rest of MPI_Status as Fortran integers.
 */
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint loom_internal_[(sizeof(MPI_Status) - 3 * sizeof(int)) / sizeof(MPI_Fint)];
} MPI_F08_status;

/* A status as Fortran integers (MPI_Status_c2f): sizeof(MPI_Status) / sizeof(MPI_Fint). */
#define MPI_STATUS_SIZE 6

#define MPI_F_STATUS_IGNORE     ((MPI_Fint *)0)
#define MPI_F_STATUSES_IGNORE   ((MPI_Fint *)0)
#define MPI_F08_STATUS_IGNORE   ((MPI_F08_status *)0)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)0)

/* Predefined objects (defined in libloom_mpi). */
extern LOOM_MPI_API struct loom_mpi_comm loom_mpi_comm_world;
extern LOOM_MPI_API struct loom_mpi_comm loom_mpi_comm_self;
extern LOOM_MPI_API struct loom_mpi_errhandler loom_mpi_errors_are_fatal;
extern LOOM_MPI_API struct loom_mpi_errhandler loom_mpi_errors_return;

#define MPI_COMM_WORLD (&loom_mpi_comm_world)
#define MPI_COMM_SELF  (&loom_mpi_comm_self)
#define MPI_COMM_NULL  ((MPI_Comm)0)

#define MPI_ERRORS_ARE_FATAL (&loom_mpi_errors_are_fatal)
#define MPI_ERRORS_RETURN    (&loom_mpi_errors_return)
#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0)

#define MPI_REQUEST_NULL  ((MPI_Request)0)
#define MPI_INFO_NULL     ((MPI_Info)0)
#define MPI_GROUP_NULL    ((MPI_Group)0)
extern LOOM_MPI_API struct loom_mpi_group loom_mpi_group_empty;  /* a real empty group */
#define MPI_GROUP_EMPTY   (&loom_mpi_group_empty)
#define MPI_WIN_NULL      ((MPI_Win)0)
#define MPI_FILE_NULL     ((MPI_File)0)
#define MPI_MESSAGE_NULL  ((MPI_Message)0)
#define MPI_OP_NULL       ((MPI_Op)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)

/* Special values: equal to loom's (the library checks it at build time). */
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG    (-1)
#define MPI_PROC_NULL  (-2)
#define MPI_ROOT       (-3)
#define MPI_UNDEFINED  (-32766)
#define MPI_IN_PLACE   ((void *)1)
#define MPI_BOTTOM     ((void *)0)
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 64      /* bytes MPI_Bsend adds to each message (its block header) */
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL      ((char **)0)
#define MPI_ARGVS_NULL     ((char ***)0)
/*
 * Distinct non-null sentinels for the weights of MPI_Dist_graph_create*:
 * the addresses of two library objects, not small integer casts, because
 * GCC (11+) warns "reading 4 bytes from a region of size 0" when a program
 * passes ((int *)2) as an array argument, which breaks -Werror builds.
 */
extern LOOM_MPI_API int loom_mpi_unweighted, loom_mpi_weights_empty;
#define MPI_UNWEIGHTED     (&loom_mpi_unweighted)
#define MPI_WEIGHTS_EMPTY  (&loom_mpi_weights_empty)
#define MPI_DISPLACEMENT_CURRENT (-54278278)

/* Results of MPI_Comm_compare. */
enum { MPI_IDENT = 0, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL };

/* Thread levels. */
enum {
    MPI_THREAD_SINGLE = 0,
    MPI_THREAD_FUNNELED,
    MPI_THREAD_SERIALIZED,
    MPI_THREAD_MULTIPLE
};

/* Predefined attribute keys for MPI_Comm_get_attr. */
enum {
    MPI_TAG_UB = 1,
    MPI_HOST,
    MPI_IO,
    MPI_WTIME_IS_GLOBAL,
    MPI_APPNUM,
    MPI_UNIVERSE_SIZE,
    MPI_LASTUSEDCODE
};

/* Predefined attribute keys of windows (MPI_Win_get_attr) and their values. */
enum {
    MPI_WIN_BASE = 8,
    MPI_WIN_SIZE,
    MPI_WIN_DISP_UNIT,
    MPI_WIN_CREATE_FLAVOR,
    MPI_WIN_MODEL
};
enum {
    MPI_WIN_FLAVOR_CREATE = 1,
    MPI_WIN_FLAVOR_ALLOCATE,
    MPI_WIN_FLAVOR_DYNAMIC,
    MPI_WIN_FLAVOR_SHARED
};
enum { MPI_WIN_SEPARATE = 1, MPI_WIN_UNIFIED };

/* Assertions of the RMA synchronization calls (bit flags). */
enum {
    MPI_MODE_NOCHECK   = 1024,
    MPI_MODE_NOSTORE   = 2048,
    MPI_MODE_NOPUT     = 4096,
    MPI_MODE_NOPRECEDE = 8192,
    MPI_MODE_NOSUCCEED = 16384
};

/* File access modes (bit flags), seek origins. */
enum {
    MPI_MODE_CREATE          = 1,
    MPI_MODE_RDONLY          = 2,
    MPI_MODE_WRONLY          = 4,
    MPI_MODE_RDWR            = 8,
    MPI_MODE_DELETE_ON_CLOSE = 16,
    MPI_MODE_UNIQUE_OPEN     = 32,
    MPI_MODE_EXCL            = 64,
    MPI_MODE_APPEND          = 128,
    MPI_MODE_SEQUENTIAL      = 256
};
enum { MPI_SEEK_SET = 600, MPI_SEEK_CUR = 602, MPI_SEEK_END = 604 };

/* MPI_Comm_split_type. */
enum { MPI_COMM_TYPE_SHARED = 1 };

/* Topology kinds (MPI_Topo_test is unsupported; the names still exist). */
enum { MPI_GRAPH = 1, MPI_CART, MPI_DIST_GRAPH };

/* Lock types and combiners some programs name even without using them. */
enum { MPI_LOCK_EXCLUSIVE = 234, MPI_LOCK_SHARED = 235 };
enum { MPI_ORDER_C = 56, MPI_ORDER_FORTRAN = 57 };

/* MPI_Type_create_darray distributions. */
enum {
    MPI_DISTRIBUTE_BLOCK = 121,
    MPI_DISTRIBUTE_CYCLIC,
    MPI_DISTRIBUTE_NONE
};
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* MPI_Type_match_size classes. */
enum { MPI_TYPECLASS_INTEGER = 1, MPI_TYPECLASS_REAL, MPI_TYPECLASS_COMPLEX };

/* MPI_Type_get_envelope combiners. */
enum {
    MPI_COMBINER_NAMED = 1,
    MPI_COMBINER_DUP,
    MPI_COMBINER_CONTIGUOUS,
    MPI_COMBINER_VECTOR,
    MPI_COMBINER_HVECTOR,
    MPI_COMBINER_INDEXED,
    MPI_COMBINER_HINDEXED,
    MPI_COMBINER_INDEXED_BLOCK,
    MPI_COMBINER_HINDEXED_BLOCK,
    MPI_COMBINER_STRUCT,
    MPI_COMBINER_SUBARRAY,
    MPI_COMBINER_DARRAY,
    MPI_COMBINER_F90_REAL,
    MPI_COMBINER_F90_COMPLEX,
    MPI_COMBINER_F90_INTEGER,
    MPI_COMBINER_RESIZED
};

/* ------------------------------------------------------------------------ */
/* Datatypes                                                                */
/* ------------------------------------------------------------------------ */

extern LOOM_MPI_API struct loom_mpi_datatype
    loom_mpi_dt_char, loom_mpi_dt_signed_char, loom_mpi_dt_unsigned_char,
    loom_mpi_dt_byte, loom_mpi_dt_packed, loom_mpi_dt_short,
    loom_mpi_dt_unsigned_short, loom_mpi_dt_int, loom_mpi_dt_unsigned,
    loom_mpi_dt_long, loom_mpi_dt_unsigned_long, loom_mpi_dt_long_long,
    loom_mpi_dt_unsigned_long_long, loom_mpi_dt_float, loom_mpi_dt_double,
    loom_mpi_dt_long_double, loom_mpi_dt_wchar, loom_mpi_dt_c_bool,
    loom_mpi_dt_int8, loom_mpi_dt_int16, loom_mpi_dt_int32, loom_mpi_dt_int64,
    loom_mpi_dt_uint8, loom_mpi_dt_uint16, loom_mpi_dt_uint32,
    loom_mpi_dt_uint64, loom_mpi_dt_aint, loom_mpi_dt_offset,
    loom_mpi_dt_count, loom_mpi_dt_float_int, loom_mpi_dt_double_int,
    loom_mpi_dt_long_int, loom_mpi_dt_2int, loom_mpi_dt_short_int,
    loom_mpi_dt_long_double_int;

#define MPI_CHAR               (&loom_mpi_dt_char)
#define MPI_SIGNED_CHAR        (&loom_mpi_dt_signed_char)
#define MPI_UNSIGNED_CHAR      (&loom_mpi_dt_unsigned_char)
#define MPI_BYTE               (&loom_mpi_dt_byte)
#define MPI_PACKED             (&loom_mpi_dt_packed)
#define MPI_SHORT              (&loom_mpi_dt_short)
#define MPI_UNSIGNED_SHORT     (&loom_mpi_dt_unsigned_short)
#define MPI_INT                (&loom_mpi_dt_int)
#define MPI_UNSIGNED           (&loom_mpi_dt_unsigned)
#define MPI_LONG               (&loom_mpi_dt_long)
#define MPI_UNSIGNED_LONG      (&loom_mpi_dt_unsigned_long)
#define MPI_LONG_LONG_INT      (&loom_mpi_dt_long_long)
#define MPI_LONG_LONG          MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG (&loom_mpi_dt_unsigned_long_long)
#define MPI_FLOAT              (&loom_mpi_dt_float)
#define MPI_DOUBLE             (&loom_mpi_dt_double)
#define MPI_LONG_DOUBLE        (&loom_mpi_dt_long_double)
#define MPI_WCHAR              (&loom_mpi_dt_wchar)
#define MPI_C_BOOL             (&loom_mpi_dt_c_bool)
#define MPI_INT8_T             (&loom_mpi_dt_int8)
#define MPI_INT16_T            (&loom_mpi_dt_int16)
#define MPI_INT32_T            (&loom_mpi_dt_int32)
#define MPI_INT64_T            (&loom_mpi_dt_int64)
#define MPI_UINT8_T            (&loom_mpi_dt_uint8)
#define MPI_UINT16_T           (&loom_mpi_dt_uint16)
#define MPI_UINT32_T           (&loom_mpi_dt_uint32)
#define MPI_UINT64_T           (&loom_mpi_dt_uint64)
#define MPI_AINT               (&loom_mpi_dt_aint)
#define MPI_OFFSET             (&loom_mpi_dt_offset)
#define MPI_COUNT              (&loom_mpi_dt_count)
#define MPI_FLOAT_INT          (&loom_mpi_dt_float_int)
#define MPI_DOUBLE_INT         (&loom_mpi_dt_double_int)
#define MPI_LONG_INT           (&loom_mpi_dt_long_int)
#define MPI_2INT               (&loom_mpi_dt_2int)
#define MPI_SHORT_INT          (&loom_mpi_dt_short_int)
#define MPI_LONG_DOUBLE_INT    (&loom_mpi_dt_long_double_int)

/*
 * Complex, C++ and Fortran types. Complex types have the C99 _Complex
 * layout (MPI_COMPLEX and MPI_DOUBLE_COMPLEX, Fortran's, the same); the
 * Fortran types are the C types of the same size (INTEGER = int, REAL =
 * float, DOUBLE PRECISION = double, LOGICAL = int). Sizes loom has no C
 * type for are MPI_DATATYPE_NULL, as MPI allows for optional types.
 */
extern LOOM_MPI_API struct loom_mpi_datatype
    loom_mpi_dt_c_float_complex, loom_mpi_dt_c_double_complex,
    loom_mpi_dt_c_long_double_complex, loom_mpi_dt_cxx_bool,
    loom_mpi_dt_character, loom_mpi_dt_logical, loom_mpi_dt_integer,
    loom_mpi_dt_real, loom_mpi_dt_double_precision, loom_mpi_dt_2integer,
    loom_mpi_dt_2real, loom_mpi_dt_2double_precision, loom_mpi_dt_integer1,
    loom_mpi_dt_integer2, loom_mpi_dt_integer8;

#define MPI_C_FLOAT_COMPLEX         (&loom_mpi_dt_c_float_complex)
#define MPI_C_COMPLEX               MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX        (&loom_mpi_dt_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX   (&loom_mpi_dt_c_long_double_complex)
#define MPI_CXX_BOOL                (&loom_mpi_dt_cxx_bool)
#define MPI_CXX_FLOAT_COMPLEX       MPI_C_FLOAT_COMPLEX
#define MPI_CXX_DOUBLE_COMPLEX      MPI_C_DOUBLE_COMPLEX
#define MPI_CXX_LONG_DOUBLE_COMPLEX MPI_C_LONG_DOUBLE_COMPLEX
#define MPI_CHARACTER               (&loom_mpi_dt_character)
#define MPI_LOGICAL                 (&loom_mpi_dt_logical)
#define MPI_INTEGER                 (&loom_mpi_dt_integer)
#define MPI_REAL                    (&loom_mpi_dt_real)
#define MPI_DOUBLE_PRECISION        (&loom_mpi_dt_double_precision)
#define MPI_COMPLEX                 MPI_C_FLOAT_COMPLEX
#define MPI_DOUBLE_COMPLEX          MPI_C_DOUBLE_COMPLEX
#define MPI_2INTEGER                (&loom_mpi_dt_2integer)
#define MPI_2REAL                   (&loom_mpi_dt_2real)
#define MPI_2DOUBLE_PRECISION       (&loom_mpi_dt_2double_precision)
#define MPI_INTEGER1                (&loom_mpi_dt_integer1)
#define MPI_INTEGER2                (&loom_mpi_dt_integer2)
#define MPI_INTEGER4                MPI_INTEGER
#define MPI_INTEGER8                (&loom_mpi_dt_integer8)
#define MPI_INTEGER16               MPI_DATATYPE_NULL
#define MPI_REAL2                   MPI_DATATYPE_NULL
#define MPI_REAL4                   MPI_REAL
#define MPI_REAL8                   MPI_DOUBLE_PRECISION
#define MPI_REAL16                  MPI_DATATYPE_NULL
#define MPI_COMPLEX4                MPI_DATATYPE_NULL
#define MPI_COMPLEX8                MPI_C_FLOAT_COMPLEX
#define MPI_COMPLEX16               MPI_C_DOUBLE_COMPLEX
#define MPI_COMPLEX32               MPI_DATATYPE_NULL

/* ------------------------------------------------------------------------ */
/* Reduction operations                                                     */
/* ------------------------------------------------------------------------ */

extern LOOM_MPI_API struct loom_mpi_op
    loom_mpi_op_max, loom_mpi_op_min, loom_mpi_op_sum, loom_mpi_op_prod,
    loom_mpi_op_land, loom_mpi_op_band, loom_mpi_op_lor, loom_mpi_op_bor,
    loom_mpi_op_lxor, loom_mpi_op_bxor, loom_mpi_op_minloc,
    loom_mpi_op_maxloc, loom_mpi_op_replace;

#define MPI_MAX     (&loom_mpi_op_max)
#define MPI_MIN     (&loom_mpi_op_min)
#define MPI_SUM     (&loom_mpi_op_sum)
#define MPI_PROD    (&loom_mpi_op_prod)
#define MPI_LAND    (&loom_mpi_op_land)
#define MPI_BAND    (&loom_mpi_op_band)
#define MPI_LOR     (&loom_mpi_op_lor)
#define MPI_BOR     (&loom_mpi_op_bor)
#define MPI_LXOR    (&loom_mpi_op_lxor)
#define MPI_BXOR    (&loom_mpi_op_bxor)
#define MPI_MINLOC  (&loom_mpi_op_minloc)
#define MPI_MAXLOC  (&loom_mpi_op_maxloc)
#define MPI_REPLACE (&loom_mpi_op_replace)

/* MPI_NO_OP: for RMA accumulates only; collectives refuse it (MPI_ERR_OP). */
extern LOOM_MPI_API struct loom_mpi_op loom_mpi_op_no_op;
#define MPI_NO_OP   (&loom_mpi_op_no_op)

/** User reduction: inoutvec[i] = invec[i] op inoutvec[i], *len elements. */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
                               MPI_Datatype *datatype);

/** User error handler (MPI_Comm_create_errhandler). */
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errcode, ...);

/* ------------------------------------------------------------------------ */
/* Callbacks                                                                */
/* ------------------------------------------------------------------------ */

/* Error handlers of windows and files; the pre-MPI-2.2 names. */
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errcode, ...);
typedef void MPI_File_errhandler_function(MPI_File *file, int *errcode, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function  MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Comm_errhandler_function MPI_Handler_function;

/* Attribute copy and delete callbacks (MPI-3.1 6.7; the MPI-1 forms). */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval,
                                        void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval,
                                        void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval,
                                       void *extra_state, void *attribute_val_in,
                                       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval,
                                         void *attribute_val, void *extra_state);
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out,
                              int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val,
                                void *extra_state);

/* Generalized requests (MPI_Grequest_start). */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

/* User data representations (MPI_Register_datarep). */
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent,
                                        void *extra_state);
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype,
                                            int count, void *filebuf,
                                            MPI_Offset position, void *extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)

/*
 * The predefined attribute callbacks: real functions (MPI-3.1 6.7.2), so a
 * program may also call them. NULL_COPY says "do not copy", DUP copies the
 * attribute value (the pointer), NULL_DELETE does nothing.
 */
LOOM_MPI_API int loom_mpi_comm_null_copy_fn(MPI_Comm oldcomm, int keyval, void *extra,
                                            void *in, void *out, int *flag);
LOOM_MPI_API int loom_mpi_comm_dup_fn(MPI_Comm oldcomm, int keyval, void *extra,
                                      void *in, void *out, int *flag);
LOOM_MPI_API int loom_mpi_comm_null_delete_fn(MPI_Comm comm, int keyval, void *val,
                                              void *extra);
LOOM_MPI_API int loom_mpi_type_null_copy_fn(MPI_Datatype oldtype, int keyval, void *extra,
                                            void *in, void *out, int *flag);
LOOM_MPI_API int loom_mpi_type_dup_fn(MPI_Datatype oldtype, int keyval, void *extra,
                                      void *in, void *out, int *flag);
LOOM_MPI_API int loom_mpi_type_null_delete_fn(MPI_Datatype type, int keyval, void *val,
                                              void *extra);
LOOM_MPI_API int loom_mpi_win_null_copy_fn(MPI_Win oldwin, int keyval, void *extra,
                                           void *in, void *out, int *flag);
LOOM_MPI_API int loom_mpi_win_dup_fn(MPI_Win oldwin, int keyval, void *extra, void *in,
                                     void *out, int *flag);
LOOM_MPI_API int loom_mpi_win_null_delete_fn(MPI_Win win, int keyval, void *val,
                                             void *extra);
#define MPI_COMM_NULL_COPY_FN   loom_mpi_comm_null_copy_fn
#define MPI_COMM_DUP_FN         loom_mpi_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN loom_mpi_comm_null_delete_fn
#define MPI_TYPE_NULL_COPY_FN   loom_mpi_type_null_copy_fn
#define MPI_TYPE_DUP_FN         loom_mpi_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN loom_mpi_type_null_delete_fn
#define MPI_WIN_NULL_COPY_FN    loom_mpi_win_null_copy_fn
#define MPI_WIN_DUP_FN          loom_mpi_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN  loom_mpi_win_null_delete_fn
#define MPI_NULL_COPY_FN        loom_mpi_comm_null_copy_fn
#define MPI_DUP_FN              loom_mpi_comm_dup_fn
#define MPI_NULL_DELETE_FN      loom_mpi_comm_null_delete_fn

/* ------------------------------------------------------------------------ */
/* Other predefined objects                                                 */
/* ------------------------------------------------------------------------ */

/* The environment's info (MPI_Init's "command", "argv", ...). */
extern LOOM_MPI_API struct loom_mpi_info loom_mpi_info_env;
#define MPI_INFO_ENV (&loom_mpi_info_env)

/* The message MPI_Mprobe/MPI_Improbe return for MPI_PROC_NULL. */
#define MPI_MESSAGE_NO_PROC ((MPI_Message)1)   /* MPI_Mprobe of MPI_PROC_NULL (loom's LOOM_MESSAGE_NO_PROC) */

/* ------------------------------------------------------------------------ */
/* Tool information interface (MPI_T, MPI-3.1 chapter 14.3)                 */
/* ------------------------------------------------------------------------ */

typedef struct loom_mpi_t_enum         *MPI_T_enum;
typedef struct loom_mpi_t_cvar_handle  *MPI_T_cvar_handle;
typedef struct loom_mpi_t_pvar_handle  *MPI_T_pvar_handle;
typedef struct loom_mpi_t_pvar_session *MPI_T_pvar_session;

#define MPI_T_ENUM_NULL         ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL  ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL  ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES  ((MPI_T_pvar_handle)1)

enum {
    MPI_T_VERBOSITY_USER_BASIC = 221,
    MPI_T_VERBOSITY_USER_DETAIL,
    MPI_T_VERBOSITY_USER_ALL,
    MPI_T_VERBOSITY_TUNER_BASIC,
    MPI_T_VERBOSITY_TUNER_DETAIL,
    MPI_T_VERBOSITY_TUNER_ALL,
    MPI_T_VERBOSITY_MPIDEV_BASIC,
    MPI_T_VERBOSITY_MPIDEV_DETAIL,
    MPI_T_VERBOSITY_MPIDEV_ALL
};
enum {
    MPI_T_BIND_NO_OBJECT = 9700,
    MPI_T_BIND_MPI_COMM,
    MPI_T_BIND_MPI_DATATYPE,
    MPI_T_BIND_MPI_ERRHANDLER,
    MPI_T_BIND_MPI_FILE,
    MPI_T_BIND_MPI_GROUP,
    MPI_T_BIND_MPI_OP,
    MPI_T_BIND_MPI_REQUEST,
    MPI_T_BIND_MPI_WIN,
    MPI_T_BIND_MPI_MESSAGE,
    MPI_T_BIND_MPI_INFO
};
enum {
    MPI_T_SCOPE_CONSTANT = 60438,
    MPI_T_SCOPE_READONLY,
    MPI_T_SCOPE_LOCAL,
    MPI_T_SCOPE_GROUP,
    MPI_T_SCOPE_GROUP_EQ,
    MPI_T_SCOPE_ALL,
    MPI_T_SCOPE_ALL_EQ
};
enum {
    MPI_T_PVAR_CLASS_STATE = 240,
    MPI_T_PVAR_CLASS_LEVEL,
    MPI_T_PVAR_CLASS_SIZE,
    MPI_T_PVAR_CLASS_PERCENTAGE,
    MPI_T_PVAR_CLASS_HIGHWATERMARK,
    MPI_T_PVAR_CLASS_LOWWATERMARK,
    MPI_T_PVAR_CLASS_COUNTER,
    MPI_T_PVAR_CLASS_AGGREGATE,
    MPI_T_PVAR_CLASS_TIMER,
    MPI_T_PVAR_CLASS_GENERIC
};

/* ------------------------------------------------------------------------ */
/* Functions                                                                */
/* ------------------------------------------------------------------------ */

/*
 * Every function of the MPI-3.1 C binding and its PMPI_ twin, generated
 * from mpi/mpi_api.txt by mpi/gen_mpi.py (installed beside this header).
 * Those outside loom's subset (windows/RMA, MPI-IO, dynamic processes, ...)
 * link and raise MPI_ERR_UNSUPPORTED_OPERATION naming the call.
 */
#include "mpi_proto.h"

#ifdef __cplusplus
}
#endif

#endif /* LOOM_MPI_H */
