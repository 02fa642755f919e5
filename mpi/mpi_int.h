/*
 * mpi_int.h: the MPI binding's objects and the helpers every mpi/ source uses.
 *
 * Design: a handle is a pointer to one of the small objects below; each
 * starts with a magic number so that a wrong or stale handle is reported as
 * MPI_ERR_COMM / MPI_ERR_TYPE / MPI_ERR_OP instead of crashing. Each PMPI_X
 * validates what loom cannot see (handles, int counts that would wrap when
 * widened to size_t, MPI-only rules), converts to loom's arguments, calls the
 * native API once, and sends any failure through loom_mpi_raise(), which
 * applies the communicator's error handler. loom itself always returns its
 * errors to this layer (MPI_Init sets that mode); the handlers live here.
 *
 * Datatypes are "base loom type x n" where they can be (predefined types,
 * contiguous ones, derived types contiguous after commit). Point-to-point
 * and reductions use the base type with count * n elements; the other
 * collectives move bytes (LOOM_BYTE), so that a send type and a different
 * receive type with the same size agree. Other derived types are
 * `noncontig` and move packed (mpi_dtype.c, mpi_dtype_p2p.c,
 * mpi_dtype_coll.c, mpi_dtype_red.c); loom_mpi_type_check refuses them, so
 * a call that does not handle them fails with MPI_ERR_TYPE instead of
 * moving wrong bytes. Every collective handles them: its entry point sends
 * a call with such a type (loom_mpi_type_coll_nc) to mpi_dtype_coll.c or
 * mpi_dtype_red.c first, which run it again on bytes.
 */
#ifndef LOOM_MPI_INT_H
#define LOOM_MPI_INT_H

#include <loom.h>
#include <mpi.h>
#include "compiler_int.h"
#include "dt_int.h"

#include <stddef.h>
#include <stdint.h>

/* internal to libloom_mpi: calls and the state variable bind inside the
 * library (no PLT, no GOT load on every MPI call) */
#pragma GCC visibility push(hidden)

#define LOOM_MPI_COMM_MAGIC 0x6d636f6du  /* "mcom" */
#define LOOM_MPI_TYPE_MAGIC 0x6d747970u  /* "mtyp" */
#define LOOM_MPI_OP_MAGIC   0x6d6f7073u  /* "mops" */
#define LOOM_MPI_ERRH_MAGIC 0x6d657268u  /* "merh" */
#define LOOM_MPI_DEAD_MAGIC 0x64656164u  /* "dead": freed */

/* ---- library state ---------------------------------------------------------- */

typedef enum loom_mpi_state {
    LOOM_MPI_STATE_PRE_INIT = 0,
    LOOM_MPI_STATE_INITIALIZED,
    LOOM_MPI_STATE_FINALIZED,
} loom_mpi_state_t;

extern loom_mpi_state_t loom_mpi_state;

/* ---- error handlers --------------------------------------------------------- */

typedef enum loom_mpi_errh_kind {
    LOOM_MPI_ERRH_FATAL = 1,
    LOOM_MPI_ERRH_RETURN,
    LOOM_MPI_ERRH_USER,
} loom_mpi_errh_kind_t;

struct loom_mpi_errhandler {
    uint32_t                      magic;
    loom_mpi_errh_kind_t          kind;
    MPI_Comm_errhandler_function *fn;    /* LOOM_MPI_ERRH_USER */
    int                           refs;  /* handle + communicators using it */
    int                           domain;  /* user: LOOM_MPI_ERRH_ON_* (mpi_errors.c) */
};

/* What a user error handler was created for; fn is cast back to its type. */
enum { LOOM_MPI_ERRH_ON_COMM = 0, LOOM_MPI_ERRH_ON_WIN, LOOM_MPI_ERRH_ON_FILE };

/* ---- communicators ------------------------------------------------------------ */

struct loom_mpi_comm {
    uint32_t              magic;
    loom_comm_t           comm;
    MPI_Errhandler        errh;
    char                  name[MPI_MAX_OBJECT_NAME];
    struct loom_mpi_comm *next;   /* all live MPI communicators */
    struct loom_mpi_objext *ext;  /* attributes and info hints (mpi_attr.c), or NULL */
    struct loom_mpi_topo *topo;   /* process topology (mpi_topo.c), NULL if none */
};

/**
 * The loom communicator behind @p comm, or NULL (after logging nothing: the
 * caller raises MPI_ERR_COMM naming itself) if @p comm is not a live handle.
 */
static inline loom_comm_t loom_mpi_comm_get(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || comm->magic != LOOM_MPI_COMM_MAGIC) {
        return LOOM_COMM_NULL;
    }
    return comm->comm;
}

/** Out of line: raise MPI_ERR_COMM (bad handle) or MPI_ERR_OTHER (not initialized). */
int loom_mpi_comm_arg_error(MPI_Comm comm, const char *call);

/** 1 if @p comm is a live communicator handle and the library is initialized. */
static inline int loom_mpi_comm_live(MPI_Comm comm)
{
    return comm != MPI_COMM_NULL && comm->magic == LOOM_MPI_COMM_MAGIC &&
           loom_mpi_state == LOOM_MPI_STATE_INITIALIZED;
}

/**
 * Check @p comm for MPI call @p call and the library state; on success put
 * the loom communicator in *lcomm_p and return MPI_SUCCESS, else return the
 * raised error class.
 */
static inline int loom_mpi_comm_arg(MPI_Comm comm, const char *call,
                                    loom_comm_t *lcomm_p)
{
    if (__builtin_expect(loom_mpi_comm_live(comm), 1)) {
        *lcomm_p = comm->comm;
        return MPI_SUCCESS;
    }
    *lcomm_p = LOOM_COMM_NULL;
    return loom_mpi_comm_arg_error(comm, call);
}

/**
 * Wrap the new loom communicator @p lcomm made by MPI call @p call from
 * @p parent (whose error handler it inherits); frees @p lcomm on failure.
 * @p lcomm may be LOOM_COMM_NULL for an idup still running: the request
 * writes wrapper->comm when it completes.
 */
int loom_mpi_comm_wrap(MPI_Comm parent, loom_comm_t lcomm, const char *call,
                       MPI_Comm *newcomm_p);

/** Unlink and free wrapper @p comm (its loom communicator is not touched). */
void loom_mpi_comm_destroy(MPI_Comm comm);

/**
 * What a duplicate inherits from @p from (MPI_Comm_dup, MPI_Comm_idup): its
 * topology, its attributes (copy callbacks run) and its info hints. On
 * failure the error is raised on @p from; the caller destroys @p to.
 */
int loom_mpi_comm_inherit(MPI_Comm from, MPI_Comm to, const char *call);

/** The MPI communicator wrapping @p lcomm (MPI_COMM_WORLD if none does). */
MPI_Comm loom_mpi_comm_of(loom_comm_t lcomm);

/* ---- datatypes ---------------------------------------------------------------- */

struct loom_mpi_datatype {
    uint32_t        magic;
    loom_datatype_t base;        /* loom basic type */
    size_t          n;           /* base elements per element of this type */
    size_t          size;        /* MPI_Type_size: bytes of data (no padding) */
    uint8_t         predefined;
    uint8_t         committed;
    uint8_t         user_freed;  /* MPI_Type_free called; kept while referenced */
    int             refs;        /* user handle + op bindings */
    char            name[MPI_MAX_OBJECT_NAME];
    struct loom_mpi_objext *ext; /* attributes (mpi_attr.c), or NULL */
    /* derived datatypes (mpi_dtype.c): NULL / 0 for predefined types */
    struct loom_dt *ldt;         /* the engine's type (faithful constructor record) */
    uint8_t         derived;     /* base/n mean nothing until commit */
    uint8_t         noncontig;   /* committed and not "base x n": pack/unpack */
    int             ebase;       /* the one loom basic type of its elements, or -1 */
    uint8_t         haspair;     /* holds value+index pair elements (MPI_DOUBLE_INT & co.) */
    int             uhandles;    /* user handles (get_contents hands out more) */
    int             ninputs;     /* constructor inputs, retained */
    struct loom_mpi_datatype **inputs;
};

/** Extent (bytes between consecutive elements) of a valid datatype. */
static inline size_t loom_mpi_type_extent(MPI_Datatype dt)
{
    return dt->n * loom_datatype_size(dt->base);
}

/*
 * The value+index pairs whose C struct has padding (MPI_DOUBLE_INT: 12 bytes
 * of data in a 16-byte struct; MPI_LONG_INT, MPI_SHORT_INT,
 * MPI_LONG_DOUBLE_INT: the engine's loom_dt_basic_padded, dt_int.h). MPI
 * moves a type's data, not its padding: a
 * {double, int} struct type sent to MPI_DOUBLE_INT must fit, and
 * MPI_Pack_size says 12. So point-to-point, MPI_Pack/Unpack and statuses
 * treat a "base x n" type of these as packed, through the engine's pair
 * type (loom_mpi_type_ldt), like a non-contiguous derived type; the
 * collectives keep moving the C struct between ranks that all name pairs.
 * One-sided calls
 * move them packed through the engine too, into the target's C structs
 * (rma_apply.c widens them to reduce): mpi_win_ops.c's byte paths, which
 * move count x size bytes from the address, leave them out.
 */
/** 1 if @p dt is "pair x n" of a padded pair (predefined, or contiguous/dup of one). */
static inline int loom_mpi_type_padpair(MPI_Datatype dt)
{
    return !dt->derived && loom_dt_basic_padded(dt->base);
}

/**
 * 1 if a status or a pack of @p dt counts packed bytes (its data without
 * padding): a non-contiguous or uncommitted derived type, or a padded pair.
 */
static inline int loom_mpi_type_packed(MPI_Datatype dt)
{
    return dt->noncontig || (dt->derived && !dt->committed) || loom_mpi_type_padpair(dt);
}

/**
 * Validate @p dt for communication (a live, committed type) and @p count;
 * returns MPI_SUCCESS or MPI_ERR_TYPE / MPI_ERR_COUNT.
 */
static inline int loom_mpi_type_check(MPI_Datatype dt, int count)
{
    if (dt == MPI_DATATYPE_NULL || dt->magic != LOOM_MPI_TYPE_MAGIC || dt->user_freed ||
        !dt->committed || dt->noncontig) {
        return MPI_ERR_TYPE;
    }
    return count < 0 ? MPI_ERR_COUNT : MPI_SUCCESS;
}

/**
 * As loom_mpi_type_check, but accepting non-contiguous derived types too:
 * for the calls that move them by packing (mpi_dtype_p2p.c).
 */
static inline int loom_mpi_type_check_any(MPI_Datatype dt, int count)
{
    if (dt == MPI_DATATYPE_NULL || dt->magic != LOOM_MPI_TYPE_MAGIC || dt->user_freed ||
        !dt->committed) {
        return MPI_ERR_TYPE;
    }
    return count < 0 ? MPI_ERR_COUNT : MPI_SUCCESS;
}

/** The engine type of a valid @p dt (predefined: a basic or cached contiguous one), or NULL. */
struct loom_dt *loom_mpi_type_ldt(MPI_Datatype dt);

/* mpi_dtype.c: the derived-type halves of mpi_datatype.c's calls */
int loom_mpi_dtype_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype,
                              const char *call);
int loom_mpi_dtype_dup(MPI_Datatype old, MPI_Datatype *newtype, const char *call);
int loom_mpi_dtype_shadow(MPI_Datatype dt, MPI_Datatype old, int count, const char *call);
int loom_mpi_dtype_commit(MPI_Datatype dt);
void loom_mpi_dtype_destroy(MPI_Datatype dt);

/** The explanation for a type loom_mpi_type_check refused ("not committed", ...). */
const char *loom_mpi_type_why(MPI_Datatype dt);

/* ---- non-contiguous derived types in communication (mpi_dtype_p2p.c) -------- */

/**
 * Pack (buf, count, dt) into a new malloc'ed buffer of *bytes_p bytes
 * (at least 1 byte allocated). Returns MPI_SUCCESS or a class (raised on
 * @p comm for @p call).
 */
int loom_mpi_dt_pack_tmp(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                         const char *call, void **tmp_p, size_t *bytes_p);

/** Unpack the first @p bytes of @p tmp into (buf, count, dt). */
int loom_mpi_dt_unpack_tmp(MPI_Comm comm, void *buf, int count, MPI_Datatype dt,
                           const void *tmp, size_t bytes, const char *call);

/**
 * A nonblocking receive of a non-contiguous type: the engine's typed
 * receive (loom_irecv_dt), straight into the type's memory; the request
 * holds a reference on the type until it completes.
 */
int loom_mpi_dt_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag,
                      MPI_Comm comm, MPI_Request *request, const char *call);

/** A nonblocking send of a non-contiguous type (loom_isend_dt / loom_issend_dt). */
int loom_mpi_dt_isend(int sync, const void *buf, int count, MPI_Datatype dt, int dest,
                      int tag, MPI_Comm comm, MPI_Request *request, const char *call);

/** Blocking send (mode 0 standard, 's' synchronous, 'b' buffered: packed) of a derived type. */
int loom_mpi_dt_send(int mode, const void *buf, int count, MPI_Datatype dt, int dest,
                     int tag, MPI_Comm comm, const char *call);

/** Blocking receive (from @p message if not NULL) into a non-contiguous type. */
int loom_mpi_dt_recv_any(void *buf, int count, MPI_Datatype dt, int source, int tag,
                         MPI_Comm comm, MPI_Message *message, MPI_Status *status,
                         const char *call);

/** loom_mpi_dt_irecv, or MPI_Imrecv of @p message when not NULL. */
int loom_mpi_dt_irecv_any(void *buf, int count, MPI_Datatype dt, int source, int tag,
                          MPI_Comm comm, MPI_Message *message, MPI_Request *request,
                          const char *call);

/**
 * A persistent operation (@p kind 0 send, 1 synchronous send, 2 receive)
 * on a non-contiguous type: the engine's typed persistent request.
 */
int loom_mpi_dt_persist_init(int kind, void *buf, int count, MPI_Datatype dt, int peer,
                             int tag, MPI_Comm comm, MPI_Request *request, const char *call);

/** MPI_Request_free of @p req: nothing left to do (the engine drops its type reference). */
void loom_mpi_dt_persist_forget(MPI_Request req);

/**
 * MPI_Cancel of @p req if it wraps a nonblocking collective on packed
 * temporaries (cancels the inner request; *st_p its outcome): 1, else 0.
 */
int loom_mpi_dt_cancel(MPI_Request req, loom_status_t *st_p);
/** MPI_Cancel of a persistent operation on a non-contiguous type: now always 0 (the
 *  engine's request is cancelled as any). */
int loom_mpi_dt_persist_cancel(MPI_Request req, loom_status_t *st_p);
/** The class a failed MPI_Start of such a request already raised: now always
 *  MPI_SUCCESS (MPI_Start reports the engine's error itself). */
int loom_mpi_dt_persist_start_class(MPI_Request req);

/**
 * Complete nonblocking collective @p inner on packed temporaries: at its
 * completion unpack @p rtmp (if not NULL) into (ubuf, ucount, utype), free
 * @p rtmp and @p stmp. *request is the wrapping request.
 */
int loom_mpi_dt_wrap_coll(MPI_Request inner, void *rtmp, void *ubuf, int ucount,
                          MPI_Datatype utype, void *stmp, MPI_Comm comm,
                          MPI_Request *request, const char *call);

/** Sendrecv where either type needs packing. */
int loom_mpi_dt_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         int dest, int sendtag, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                         MPI_Status *status, const char *call);

/* ---- collectives with non-contiguous types (mpi_dtype_coll.c, mpi_dtype_red.c) ---- */

/**
 * 1 if a collective must convert @p dt: a live, committed, non-contiguous
 * derived type (pair types included: collectives expand their pairs).
 */
static inline int loom_mpi_type_coll_nc(MPI_Datatype dt)
{
    return dt != MPI_DATATYPE_NULL && dt->magic == LOOM_MPI_TYPE_MAGIC && !dt->user_freed &&
           dt->committed && dt->noncontig;
}

/** 1 if any of the @p n types (NULL: none) is one loom_mpi_type_coll_nc converts. */
int loom_mpi_types_coll_nc(int n, const MPI_Datatype types[]);

/** One block of a collective's buffer: @p count elements of @p dt at @p buf. */
typedef struct loom_mpi_dtblk {
    char        *buf;
    int          count;
    MPI_Datatype dt;
} loom_mpi_dtblk_t;

/**
 * One side (send or receive) of a collective as the inner call sees it:
 * the blocks in a temporary one after the other, in an "inner" form
 * (packed bytes, pairs as C structs, or the type's own layout for a user
 * op), with int counts and displacements in bytes.
 */
typedef struct loom_mpi_dtside {
    char             *tmp;
    int               n;
    int              *counts;   /* n byte counts, then n byte displacements */
    int              *displs;
    loom_mpi_dtblk_t *blk;      /* the user's blocks (copied), unpacked at the end */
    int               layout;   /* inner form: the type's layout (user op), else packed */
    size_t            bytes;
} loom_mpi_dtside_t;

int loom_mpi_dts_make(MPI_Comm comm, const loom_mpi_dtblk_t blk[], int n, int layout,
                      int fill, const char *call, loom_mpi_dtside_t *s);
int loom_mpi_dts_out(MPI_Comm comm, loom_mpi_dtside_t *s, int rc, const char *call);
void loom_mpi_dts_free(loom_mpi_dtside_t *s);
int loom_mpi_dts_wrap(int rc, MPI_Request inner, loom_mpi_dtside_t *s, loom_mpi_dtside_t *r,
                      MPI_Comm comm, MPI_Request *request, const char *call);

/* (@p request NULL: blocking; else the nonblocking form) */
int loom_mpi_dtc_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                       MPI_Request *request, const char *call);
int loom_mpi_dtc_move(int which, const void *sbuf, int scount, MPI_Datatype stype,
                      void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                      MPI_Request *request, const char *call);
int loom_mpi_dtc_gatherv(int which, const void *sbuf, int scount, MPI_Datatype stype,
                         void *rbuf, const int rcounts[], const int rdispls[],
                         MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *request,
                         const char *call);
int loom_mpi_dtc_scatterv(const void *sbuf, const int scounts[], const int sdispls[],
                          MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                          int root, MPI_Comm comm, MPI_Request *request, const char *call);
int loom_mpi_dtc_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                           MPI_Datatype stype, void *rbuf, const int rcounts[],
                           const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                           MPI_Request *request, const char *call);
int loom_mpi_dtc_alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                           const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                           const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                           MPI_Request *request, const char *call);

/** 1 if an alltoallw on @p comm has a type to convert (sendtypes ignored in place). */
int loom_mpi_dtc_w_any(MPI_Comm comm, const void *sbuf, const MPI_Datatype stypes[],
                       const MPI_Datatype rtypes[]);
/** A neighbourhood collective's blocks holding a converted type (mpi_topo_nbr.c). */
int loom_mpi_dtc_nbr(const loom_mpi_dtblk_t sblk[], int outdeg, const loom_mpi_dtblk_t rblk[],
                     int indeg, MPI_Comm comm, MPI_Request *request, const char *call);

/** The reductions on a non-contiguous type (or a user op on one): mpi_dtype_red.c. */
typedef enum {
    LOOM_MPI_DTR_REDUCE = 0, LOOM_MPI_DTR_ALLREDUCE, LOOM_MPI_DTR_RSB, LOOM_MPI_DTR_RS,
    LOOM_MPI_DTR_SCAN, LOOM_MPI_DTR_EXSCAN,
} loom_mpi_dtr_kind_t;

/**
 * Reduction @p kind on derived type @p dt: @p count elements (RSB: per
 * rank), @p rcounts for reduce_scatter, @p root for reduce.
 */
int loom_mpi_dtr(loom_mpi_dtr_kind_t kind, const void *sbuf, void *rbuf, int count,
                 const int rcounts[], MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                 MPI_Request *request, const char *call);

/** MPI_Reduce_local on a non-contiguous type. */
int loom_mpi_dtr_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt,
                       MPI_Op op);

/**
 * A user op applied to whole elements of non-contiguous @p dt laid out as
 * the type (unit: its extent; the function gets @p dt): mpi_op.c.
 */
int loom_mpi_op_resolve_layout(MPI_Op op, MPI_Datatype dt, loom_op_t *lop_p);

/**
 * 1 if point-to-point must move a live, committed @p dt through the engine
 * (mpi_dtype_p2p.c): a non-contiguous derived type, or a padded pair.
 */
static inline int loom_mpi_type_noncontig(MPI_Datatype dt)
{
    return loom_mpi_type_check_any(dt, 0) == MPI_SUCCESS &&
           (dt->noncontig || loom_mpi_type_padpair(dt));
}

/** 1 if @p dt is a live datatype handle (committed or not). */
int loom_mpi_type_is_valid(MPI_Datatype dt);

/** Keep @p dt alive for an op binding; release drops it (and frees if unused). */
void loom_mpi_type_retain(MPI_Datatype dt);
void loom_mpi_type_release(MPI_Datatype dt);

/** The predefined MPI type whose loom base is @p base, n = 1 (NULL if none). */
MPI_Datatype loom_mpi_type_of_base(loom_datatype_t base);

/** Number of predefined datatypes, and the i-th (tests iterate them). */
size_t loom_mpi_type_predefined_count(void);
MPI_Datatype loom_mpi_type_predefined(size_t i);

/* ---- operations ----------------------------------------------------------------- */

typedef struct loom_mpi_op_binding loom_mpi_op_binding_t;

struct loom_mpi_op {
    uint32_t               magic;
    loom_op_t              op;         /* predefined: the loom op */
    MPI_User_function     *fn;         /* user op, else NULL */
    int                    commute;
    uint8_t                predefined;
    const char            *name;       /* "MPI_SUM", "user" */
    loom_mpi_op_binding_t *bindings;   /* user op: one loom op per datatype */
};

/**
 * The loom operation that applies @p op to elements of @p dt (predefined:
 * the fixed one; user: bound lazily to (@p op, @p dt)). Returns MPI_SUCCESS,
 * MPI_ERR_OP, or MPI_ERR_NO_MEM.
 */
int loom_mpi_op_resolve(MPI_Op op, MPI_Datatype dt, loom_op_t *lop_p);

/**
 * Validate a reduction's datatype (committed), @p count (>= 0) and @p op,
 * raising the error on @p comm for @p call; fill loom's element count and
 * op (mpi_coll.c; the scan family uses it too). Returns MPI_SUCCESS or the
 * class raised.
 */
int loom_mpi_red_args(MPI_Comm comm, MPI_Datatype dt, int count, MPI_Op op,
                      const char *call, size_t *lcount_p, loom_op_t *lop_p);

/* ---- errors ----------------------------------------------------------------------- */

/** The MPI error class for a loom status (MPI_SUCCESS for LOOM_OK). */
int loom_mpi_class_of(loom_status_t status);

/**
 * Raise error class @p errclass found by MPI call @p call on @p comm
 * (NULL or invalid: MPI_COMM_WORLD): apply its error handler. FATAL prints
 * "<call>: <class name>: <detail>" and aborts the job; RETURN and user
 * handlers return @p errclass (after calling the user function).
 */
int loom_mpi_raise(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** Raise the class of loom status @p st returned by @p loom_call inside @p call. */
int loom_mpi_raise_loom(MPI_Comm comm, loom_status_t st, const char *call);

/** Name of an error class, "MPI_ERR_RANK" (NULL if not a class). */
const char *loom_mpi_class_name(int errclass);

/** Convert the error field of @p n statuses from loom statuses to classes. */
void loom_mpi_status_convert(MPI_Status *statuses, size_t n);

/*
 * A call that completes one operation (MPI_Recv, MPI_Wait, MPI_Test,
 * MPI_Probe, MPI_Mprobe, ...) returns its error and leaves the status's
 * MPI_ERROR as the caller had it: MPI-3.1 3.2.5 calls the field undefined
 * there, MPICH and Open MPI leave it alone, and programs check that. loom
 * writes its own error into the field, so these calls read it first and put
 * it back.
 */
static inline int loom_mpi_status_error_get(const MPI_Status *st)
{
    return st != MPI_STATUS_IGNORE ? st->MPI_ERROR : 0;
}

static inline void loom_mpi_status_error_put(MPI_Status *st, int error)
{
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_ERROR = error;
    }
}

/* ---- requests ------------------------------------------------------------------------ */

/**
 * Side storage of a nonblocking v-collective: the size_t count and
 * displacement arrays loom reads until the operation completes. Freed when
 * the request completes through MPI_Wait/Test*, or (after MPI_Request_free)
 * when a later completion call or MPI_Finalize finds it complete.
 */
typedef struct loom_mpi_side {
    MPI_Request           req;
    struct loom_mpi_side *next;
    long                  idx;       /* index in owner's array, -1 */
    const MPI_Request    *owner;     /* array of the completion call using it, NULL */
    int                   orphaned;  /* MPI_Request_free was called */
    size_t                arrays[];  /* the converted counts and displacements */
} loom_mpi_side_t;

extern size_t loom_mpi_side_count;

/** Allocate side storage for @p nelem size_t values (not yet attached). */
loom_mpi_side_t *loom_mpi_side_alloc(size_t nelem);

/** Attach @p side to @p req, or free it if @p req is NULL (start failed). */
void loom_mpi_side_attach(loom_mpi_side_t *side, MPI_Request req);

/** Before completing @p n requests: note which carry side storage. */
void loom_mpi_side_mark(size_t n, const MPI_Request reqs[]);

/** After completing: free the side storage of those now MPI_REQUEST_NULL. */
void loom_mpi_side_sweep(size_t n, const MPI_Request reqs[]);

/** Test orphaned side requests; with @p wait, complete them all. */
void loom_mpi_side_reap(int wait);

/**
 * Blocking-call scratch: @p nelem size_t values, grown as needed and kept
 * (the blocking v-collectives reuse it; no allocation once warm).
 */
size_t *loom_mpi_scratch(size_t nelem);

/** Release the scratch buffer (MPI_Finalize). */
void loom_mpi_scratch_free(void);

/* ---- lifecycle hooks ---------------------------------------------------------------- */

/** Free every user communicator wrapper, user op binding (MPI_Finalize). */
void loom_mpi_comm_cleanup(void);

/** Remember the thread that called MPI_Init (MPI_Is_thread_main). */
void loom_mpi_thread_init(void);

#pragma GCC visibility pop

#endif /* LOOM_MPI_INT_H */
