/**
 * @file mpi.h
 * @brief loom's MPI binding: a subset of MPI-3.1 (C bindings) over loom.h.
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
 * Calls outside the subset (windows, topologies, non-contiguous datatypes,
 * ...) link and raise MPI_ERR_UNSUPPORTED_OPERATION naming the call.
 *
 * Threads: MPI_THREAD_FUNNELED at most (loom is single-threaded).
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

/* Declare MPI_X and its profiling twin PMPI_X with one prototype. */
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
    X(MPI_ERR_RMA_FLAVOR,        57, "wrong window flavor")

enum {
#define LOOM_MPI_ERR_ENUM_(name, value, desc) name = (value),
    LOOM_MPI_ERR_MAP(LOOM_MPI_ERR_ENUM_)
#undef LOOM_MPI_ERR_ENUM_
    MPI_ERR_LASTCODE = 57
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
typedef struct loom_mpi_message    *MPI_Message;  /* unsupported */

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
#define MPI_GROUP_EMPTY   (&loom_mpi_group_empty)  /* groups block below */
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

/* Topology kinds (MPI_Topo_test is unsupported; the names still exist). */
enum { MPI_GRAPH = 1, MPI_CART, MPI_DIST_GRAPH };

/* Lock types and combiners some programs name even without using them. */
enum { MPI_LOCK_EXCLUSIVE = 234, MPI_LOCK_SHARED = 235 };
enum { MPI_ORDER_C = 56, MPI_ORDER_FORTRAN = 57 };

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

/** User reduction: inoutvec[i] = invec[i] op inoutvec[i], *len elements. */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
                               MPI_Datatype *datatype);

/** User error handler (MPI_Comm_create_errhandler). */
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errcode, ...);

/* ------------------------------------------------------------------------ */
/* Environment                                                              */
/* ------------------------------------------------------------------------ */

LOOM_MPI_FN(int, Init, (int *argc, char ***argv))
LOOM_MPI_FN(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
LOOM_MPI_FN(int, Initialized, (int *flag))
LOOM_MPI_FN(int, Finalize, (void))
LOOM_MPI_FN(int, Finalized, (int *flag))
LOOM_MPI_FN(int, Abort, (MPI_Comm comm, int errorcode))
LOOM_MPI_FN(int, Query_thread, (int *provided))
LOOM_MPI_FN(int, Is_thread_main, (int *flag))
LOOM_MPI_FN(int, Get_version, (int *version, int *subversion))
LOOM_MPI_FN(int, Get_library_version, (char *version, int *resultlen))
LOOM_MPI_FN(int, Get_processor_name, (char *name, int *resultlen))
LOOM_MPI_FN(double, Wtime, (void))
LOOM_MPI_FN(double, Wtick, (void))
LOOM_MPI_FN(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
LOOM_MPI_FN(int, Free_mem, (void *base))
LOOM_MPI_FN(int, Get_address, (const void *location, MPI_Aint *address))
LOOM_MPI_FN(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
LOOM_MPI_FN(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

LOOM_MPI_FN(int, Error_string, (int errorcode, char *string, int *resultlen))
LOOM_MPI_FN(int, Error_class, (int errorcode, int *errorclass))
LOOM_MPI_FN(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
LOOM_MPI_FN(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
LOOM_MPI_FN(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *fn,
                                          MPI_Errhandler *errhandler))
LOOM_MPI_FN(int, Errhandler_free, (MPI_Errhandler *errhandler))
LOOM_MPI_FN(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))

/* ------------------------------------------------------------------------ */
/* Communicators                                                            */
/* ------------------------------------------------------------------------ */

LOOM_MPI_FN(int, Comm_rank, (MPI_Comm comm, int *rank))
LOOM_MPI_FN(int, Comm_size, (MPI_Comm comm, int *size))
LOOM_MPI_FN(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
LOOM_MPI_FN(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
LOOM_MPI_FN(int, Comm_free, (MPI_Comm *comm))
LOOM_MPI_FN(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
LOOM_MPI_FN(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
LOOM_MPI_FN(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
LOOM_MPI_FN(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val,
                                 int *flag))
LOOM_MPI_FN(int, Comm_test_inter, (MPI_Comm comm, int *flag))

/* ------------------------------------------------------------------------ */
/* Point-to-point                                                           */
/* ------------------------------------------------------------------------ */

LOOM_MPI_FN(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest,
                        int tag, MPI_Comm comm))
LOOM_MPI_FN(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                         int tag, MPI_Comm comm))
LOOM_MPI_FN(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                         int tag, MPI_Comm comm))
LOOM_MPI_FN(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source,
                        int tag, MPI_Comm comm, MPI_Status *status))
LOOM_MPI_FN(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                         int tag, MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source,
                         int tag, MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            int dest, int sendtag, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int source, int recvtag,
                            MPI_Comm comm, MPI_Status *status))
LOOM_MPI_FN(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype,
                                    int dest, int sendtag, int source, int recvtag,
                                    MPI_Comm comm, MPI_Status *status))
LOOM_MPI_FN(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
LOOM_MPI_FN(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag,
                          MPI_Status *status))
LOOM_MPI_FN(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype,
                             int *count))
LOOM_MPI_FN(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype,
                                int *count))

/* ------------------------------------------------------------------------ */
/* Requests                                                                 */
/* ------------------------------------------------------------------------ */

LOOM_MPI_FN(int, Wait, (MPI_Request *request, MPI_Status *status))
LOOM_MPI_FN(int, Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]))
LOOM_MPI_FN(int, Waitany, (int count, MPI_Request requests[], int *index,
                           MPI_Status *status))
LOOM_MPI_FN(int, Waitsome, (int incount, MPI_Request requests[], int *outcount,
                            int indices[], MPI_Status statuses[]))
LOOM_MPI_FN(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
LOOM_MPI_FN(int, Testall, (int count, MPI_Request requests[], int *flag,
                           MPI_Status statuses[]))
LOOM_MPI_FN(int, Testany, (int count, MPI_Request requests[], int *index, int *flag,
                           MPI_Status *status))
LOOM_MPI_FN(int, Testsome, (int incount, MPI_Request requests[], int *outcount,
                            int indices[], MPI_Status statuses[]))
LOOM_MPI_FN(int, Request_free, (MPI_Request *request))
LOOM_MPI_FN(int, Cancel, (MPI_Request *request))
LOOM_MPI_FN(int, Test_cancelled, (const MPI_Status *status, int *flag))

/* ------------------------------------------------------------------------ */
/* Collectives                                                              */
/* ------------------------------------------------------------------------ */

LOOM_MPI_FN(int, Barrier, (MPI_Comm comm))
LOOM_MPI_FN(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root,
                         MPI_Comm comm))
LOOM_MPI_FN(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root,
                          MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Reduce, (const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
LOOM_MPI_FN(int, Ireduce, (const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                           MPI_Request *request))
LOOM_MPI_FN(int, Allreduce, (const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
LOOM_MPI_FN(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request))
LOOM_MPI_FN(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf,
                                        int recvcount, MPI_Datatype datatype,
                                        MPI_Op op, MPI_Comm comm))
LOOM_MPI_FN(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf,
                                         int recvcount, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm,
                                         MPI_Request *request))
LOOM_MPI_FN(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count,
                                MPI_Datatype datatype, MPI_Op op))
LOOM_MPI_FN(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm))
LOOM_MPI_FN(int, Iallgather, (const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request))
LOOM_MPI_FN(int, Allgatherv, (const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm))
LOOM_MPI_FN(int, Iallgatherv, (const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request))
LOOM_MPI_FN(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int root, MPI_Comm comm))
LOOM_MPI_FN(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype,
                           int root, MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm))
LOOM_MPI_FN(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm,
                            MPI_Request *request))
LOOM_MPI_FN(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype,
                           int root, MPI_Comm comm))
LOOM_MPI_FN(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype,
                            int root, MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Scatterv, (const void *sendbuf, const int sendcounts[],
                            const int displs[], MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm))
LOOM_MPI_FN(int, Iscatterv, (const void *sendbuf, const int sendcounts[],
                             const int displs[], MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm))
LOOM_MPI_FN(int, Ialltoall, (const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request))
LOOM_MPI_FN(int, Alltoallv, (const void *sendbuf, const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm))
LOOM_MPI_FN(int, Ialltoallv, (const void *sendbuf, const int sendcounts[],
                              const int sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request))

/* ------------------------------------------------------------------------ */
/* Datatypes and operations                                                 */
/* ------------------------------------------------------------------------ */

LOOM_MPI_FN(int, Type_size, (MPI_Datatype datatype, int *size))
LOOM_MPI_FN(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb,
                                   MPI_Aint *extent))
LOOM_MPI_FN(int, Type_get_name, (MPI_Datatype datatype, char *type_name,
                                 int *resultlen))
LOOM_MPI_FN(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
LOOM_MPI_FN(int, Type_contiguous, (int count, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype))
LOOM_MPI_FN(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
LOOM_MPI_FN(int, Type_commit, (MPI_Datatype *datatype))
LOOM_MPI_FN(int, Type_free, (MPI_Datatype *datatype))
LOOM_MPI_FN(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
LOOM_MPI_FN(int, Op_free, (MPI_Op *op))
LOOM_MPI_FN(int, Op_commutative, (MPI_Op op, int *commute))

/* ------------------------------------------------------------------------ */
/* Outside the subset: these link and raise MPI_ERR_UNSUPPORTED_OPERATION    */
/* ------------------------------------------------------------------------ */

LOOM_MPI_FN(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                              MPI_Comm comm, MPI_Win *win))
LOOM_MPI_FN(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info,
                                MPI_Comm comm, void *baseptr, MPI_Win *win))
LOOM_MPI_FN(int, Win_free, (MPI_Win *win))
LOOM_MPI_FN(int, Win_fence, (int assert_, MPI_Win win))
LOOM_MPI_FN(int, Win_lock, (int lock_type, int rank, int assert_, MPI_Win win))
LOOM_MPI_FN(int, Win_unlock, (int rank, MPI_Win win))
LOOM_MPI_FN(int, Put, (const void *origin_addr, int origin_count,
                       MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Win win))
LOOM_MPI_FN(int, Get, (void *origin_addr, int origin_count,
                       MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Win win))
LOOM_MPI_FN(int, Accumulate, (const void *origin_addr, int origin_count,
                              MPI_Datatype origin_datatype, int target_rank,
                              MPI_Aint target_disp, int target_count,
                              MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
LOOM_MPI_FN(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[],
                               const int periods[], int reorder, MPI_Comm *comm_cart))
LOOM_MPI_FN(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
LOOM_MPI_FN(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
LOOM_MPI_FN(int, Cart_shift, (MPI_Comm comm, int direction, int disp,
                              int *rank_source, int *rank_dest))
LOOM_MPI_FN(int, Dims_create, (int nnodes, int ndims, int dims[]))
LOOM_MPI_FN(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[],
                                const int edges[], int reorder, MPI_Comm *comm_graph))
LOOM_MPI_FN(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree,
                                              const int sources[],
                                              const int sourceweights[],
                                              int outdegree,
                                              const int destinations[],
                                              const int destweights[],
                                              MPI_Info info, int reorder,
                                              MPI_Comm *comm_dist_graph))
LOOM_MPI_FN(int, Type_vector, (int count, int blocklength, int stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype))
LOOM_MPI_FN(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride,
                                       MPI_Datatype oldtype, MPI_Datatype *newtype))
LOOM_MPI_FN(int, Type_indexed, (int count, const int array_of_blocklengths[],
                                const int array_of_displacements[],
                                MPI_Datatype oldtype, MPI_Datatype *newtype))
LOOM_MPI_FN(int, Type_create_struct, (int count, const int array_of_blocklengths[],
                                      const MPI_Aint array_of_displacements[],
                                      const MPI_Datatype array_of_types[],
                                      MPI_Datatype *newtype))
LOOM_MPI_FN(int, Type_create_subarray, (int ndims, const int array_of_sizes[],
                                        const int array_of_subsizes[],
                                        const int array_of_starts[], int order,
                                        MPI_Datatype oldtype, MPI_Datatype *newtype))
LOOM_MPI_FN(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb,
                                       MPI_Aint extent, MPI_Datatype *newtype))
LOOM_MPI_FN(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype,
                        void *outbuf, int outsize, int *position, MPI_Comm comm))
LOOM_MPI_FN(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf,
                          int outcount, MPI_Datatype datatype, MPI_Comm comm))
LOOM_MPI_FN(int, Comm_spawn, (const char *command, char *argv[], int maxprocs,
                              MPI_Info info, int root, MPI_Comm comm,
                              MPI_Comm *intercomm, int array_of_errcodes[]))
LOOM_MPI_FN(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
LOOM_MPI_FN(int, Group_incl, (MPI_Group group, int n, const int ranks[],
                              MPI_Group *newgroup))
LOOM_MPI_FN(int, Group_free, (MPI_Group *group))
LOOM_MPI_FN(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
LOOM_MPI_FN(int, Intercomm_create, (MPI_Comm local_comm, int local_leader,
                                    MPI_Comm peer_comm, int remote_leader, int tag,
                                    MPI_Comm *newintercomm))
LOOM_MPI_FN(int, Scan, (const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
LOOM_MPI_FN(int, Exscan, (const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
LOOM_MPI_FN(int, Reduce_scatter, (const void *sendbuf, void *recvbuf,
                                  const int recvcounts[], MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm))
LOOM_MPI_FN(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                         int tag, MPI_Comm comm))
LOOM_MPI_FN(int, Buffer_attach, (void *buffer, int size))
LOOM_MPI_FN(int, Send_init, (const void *buf, int count, MPI_Datatype datatype,
                             int dest, int tag, MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source,
                             int tag, MPI_Comm comm, MPI_Request *request))
LOOM_MPI_FN(int, Start, (MPI_Request *request))
LOOM_MPI_FN(int, Startall, (int count, MPI_Request array_of_requests[]))
LOOM_MPI_FN(int, Info_create, (MPI_Info *info))
LOOM_MPI_FN(int, File_open, (MPI_Comm comm, const char *filename, int amode,
                             MPI_Info info, MPI_File *fh))

/* ---- groups and intracommunicator construction (declarations to fold into the table) ---- */

/* MPI_GROUP_EMPTY: a real empty group, distinct from MPI_GROUP_NULL. */
extern LOOM_MPI_API struct loom_mpi_group loom_mpi_group_empty;

/* Split types of MPI_Comm_split_type. */
#ifndef MPI_COMM_TYPE_SHARED
#define MPI_COMM_TYPE_SHARED 1
#endif

LOOM_MPI_FN(int, Group_size, (MPI_Group group, int *size))
LOOM_MPI_FN(int, Group_rank, (MPI_Group group, int *rank))
LOOM_MPI_FN(int, Group_excl, (MPI_Group group, int n, const int ranks[],
                              MPI_Group *newgroup))
LOOM_MPI_FN(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3],
                                    MPI_Group *newgroup))
LOOM_MPI_FN(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3],
                                    MPI_Group *newgroup))
LOOM_MPI_FN(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
LOOM_MPI_FN(int, Group_intersection, (MPI_Group group1, MPI_Group group2,
                                      MPI_Group *newgroup))
LOOM_MPI_FN(int, Group_difference, (MPI_Group group1, MPI_Group group2,
                                    MPI_Group *newgroup))
LOOM_MPI_FN(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[],
                                         MPI_Group group2, int ranks2[]))
LOOM_MPI_FN(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
LOOM_MPI_FN(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag,
                                     MPI_Comm *newcomm))
LOOM_MPI_FN(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info,
                                   MPI_Comm *newcomm))
LOOM_MPI_FN(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
LOOM_MPI_FN(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))

/* ---- intercommunicators (declarations to fold into the table) ---- */
LOOM_MPI_FN(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
LOOM_MPI_FN(int, Comm_remote_size, (MPI_Comm comm, int *size))
LOOM_MPI_FN(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))

#ifdef __cplusplus
}
#endif

#endif /* LOOM_MPI_H */
