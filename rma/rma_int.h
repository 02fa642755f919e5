/*
 * rma_int.h: the one-sided layer (windows, put/get/accumulate, epochs), as
 * the MPI binding sees it. The only header rma/ exports (layers.txt).
 *
 * A window is collective over a communicator: every member exposes a piece
 * of memory (or, dynamic, attaches pieces later). Operations name a target
 * rank, a displacement in the target's disp units and a datatype on each
 * side (engine types, datatype/dt_int.h); the layer moves them by
 *   - direct load/store into a segment every member has mapped
 *     (LOOM_RMA_FLAVOR_SHARED: Win_allocate_shared), or
 *   - active messages over the p2p engine on a private duplicate of the
 *     window's communicator, served by the target from every progress pass
 *     (a hook in the p2p engine's progress, p2p_int.h).
 * See docs/rma.md for the protocol, the epochs and what the verbs stage adds.
 *
 * Errors are loom statuses; the errors MPI gives classes of their own
 * (MPI_ERR_RMA_SYNC, _RANGE, ...) are the LOOM_RMA_ERR_* values below,
 * outside loom's status table (loom_strerror calls them unknown; the MPI
 * binding maps them, loom_rma_strerror names them).
 */
#ifndef LOOM_RMA_INT_H
#define LOOM_RMA_INT_H

#include <loom.h>
#include "dt_int.h"

#include <stddef.h>
#include <stdint.h>

/* RMA-only errors (negative, below loom's table) */
#define LOOM_RMA_ERR_SYNC     ((loom_status_t)-300)  /* call outside / against its epoch */
#define LOOM_RMA_ERR_RANGE    ((loom_status_t)-301)  /* target bytes outside the window */
#define LOOM_RMA_ERR_FLAVOR   ((loom_status_t)-302)  /* wrong window flavor for the call */
#define LOOM_RMA_ERR_SHARED   ((loom_status_t)-303)  /* memory cannot be shared */
#define LOOM_RMA_ERR_ATTACH   ((loom_status_t)-304)  /* attach/detach refused */
#define LOOM_RMA_ERR_LOCKTYPE ((loom_status_t)-305)  /* not shared/exclusive */
#define LOOM_RMA_ERR_DISP     ((loom_status_t)-306)  /* bad disp_unit */

/** Name of an RMA error (or loom_strerror of any other status). */
const char *loom_rma_strerror(loom_status_t st);

typedef enum loom_rma_flavor {
    LOOM_RMA_FLAVOR_CREATE = 1,   /* user memory (Win_create) */
    LOOM_RMA_FLAVOR_ALLOCATE,     /* memory the layer allocates (Win_allocate) */
    LOOM_RMA_FLAVOR_DYNAMIC,      /* attach/detach; displacements are addresses */
    LOOM_RMA_FLAVOR_SHARED,       /* one shared segment per host (Win_allocate_shared) */
} loom_rma_flavor_t;

/** Lock types (values of MPI_LOCK_EXCLUSIVE / MPI_LOCK_SHARED). */
enum { LOOM_RMA_LOCK_EXCLUSIVE = 234, LOOM_RMA_LOCK_SHARED = 235 };

/** Assertions the layer acts on (MPI_MODE_* values). */
enum { LOOM_RMA_MODE_NOCHECK = 1024, LOOM_RMA_MODE_NOSUCCEED = 16384 };

/** The accumulate op "no op" (MPI_NO_OP): fetch without changing the target. */
#define LOOM_RMA_OP_NO_OP ((loom_op_t)255)

/** Kinds of accumulate-like operations. */
typedef enum loom_rma_acc_kind {
    LOOM_RMA_ACC = 1,     /* Accumulate */
    LOOM_RMA_GET_ACC,     /* Get_accumulate (result = target before) */
    LOOM_RMA_FOP,         /* Fetch_and_op (one element) */
    LOOM_RMA_CAS,         /* Compare_and_swap (one element) */
} loom_rma_acc_kind_t;

typedef struct loom_rma_win loom_rma_win_t;

/** Creation hints (info keys). */
typedef struct loom_rma_hints {
    int no_locks;    /* no passive target on this window */
} loom_rma_hints_t;

/**
 * @brief Create a window over @p comm (collective). @p base / @p size:
 * this rank's memory (FLAVOR_CREATE); ALLOCATE and SHARED allocate @p size
 * bytes (zeroed) and return the address by loom_rma_win_base; DYNAMIC
 * ignores both. @p disp_unit > 0.
 * @return LOOM_OK, LOOM_RMA_ERR_SHARED (SHARED over ranks of more than one
 * host), LOOM_RMA_ERR_DISP, LOOM_ERR_NO_MEMORY, or a communication error.
 */
loom_status_t loom_rma_win_create(void *base, size_t size, int disp_unit,
                                  loom_rma_flavor_t flavor, const loom_rma_hints_t *hints,
                                  loom_comm_t comm, loom_rma_win_t **win_p);

/** @brief Free (collective): completes every rank's operations first. */
loom_status_t loom_rma_win_free(loom_rma_win_t *win);

/**
 * @brief May @p win be freed now? LOOM_OK, or LOOM_RMA_ERR_SYNC while an
 * epoch other than a fence one is open (checked before anything is undone).
 */
loom_status_t loom_rma_win_idle(const loom_rma_win_t *win);

/** This rank's base, size, disp unit, flavor. */
void *loom_rma_win_base(const loom_rma_win_t *win);
size_t loom_rma_win_size(const loom_rma_win_t *win);
int loom_rma_win_disp_unit(const loom_rma_win_t *win);
loom_rma_flavor_t loom_rma_win_flavor(const loom_rma_win_t *win);
/** The window's private communicator (a duplicate: same ranks as the parent). */
loom_comm_t loom_rma_win_comm(const loom_rma_win_t *win);

/**
 * @brief Shared windows: rank @p rank's piece (size, disp unit, address in
 * this process). @p rank LOOM_PROC_NULL: the lowest rank with size > 0.
 */
loom_status_t loom_rma_win_shared_query(loom_rma_win_t *win, int rank, size_t *size_p,
                                        int *disp_unit_p, void **base_p);

/** @brief Dynamic windows: expose / withdraw [base, base + size). */
loom_status_t loom_rma_win_attach(loom_rma_win_t *win, void *base, size_t size);
loom_status_t loom_rma_win_detach(loom_rma_win_t *win, const void *base);

/* ---- operations: @p req_p NULL: ordinary; else a request (Rput ...) that
 * completes when the origin buffers may be reused (results written). ---- */

/** @brief Put (ocount, odt) at @p origin into (tcount, tdt) at target @p disp. */
loom_status_t loom_rma_put(loom_rma_win_t *win, const void *origin, size_t ocount,
                           loom_dt_t *odt, int target, ptrdiff_t disp, size_t tcount,
                           loom_dt_t *tdt, loom_request_t *req_p);

/** @brief Get (tcount, tdt) at target @p disp into (ocount, odt) at @p origin. */
loom_status_t loom_rma_get(loom_rma_win_t *win, void *origin, size_t ocount,
                           loom_dt_t *odt, int target, ptrdiff_t disp, size_t tcount,
                           loom_dt_t *tdt, loom_request_t *req_p);

/**
 * @brief Put (@p get 0) or get @p bytes of contiguous origin memory to or
 * from the target's bytes starting at @p disp (in its disp units), when
 * the window is in a shared segment: checks the epoch and the range, then
 * one memcpy. The MPI binding calls it for types that are plain runs of
 * bytes on both sides, before building loom types.
 * @return 1 if not taken (any other window: call loom_rma_put/get), else
 * 0 with *st_p LOOM_OK, LOOM_RMA_ERR_SYNC, _RANGE or LOOM_ERR_INVALID_RANK.
 */
int loom_rma_putget_bytes(loom_rma_win_t *win, int get, void *origin, size_t bytes,
                          int target, ptrdiff_t disp, loom_status_t *st_p);

/**
 * @brief A request that is already complete (an R-operation to
 * MPI_PROC_NULL returns one, as MPICH and Open MPI do, not MPI_REQUEST_NULL).
 */
loom_status_t loom_rma_null_request(loom_rma_win_t *win, loom_request_t *req_p);

/**
 * @brief Accumulate of @p count contiguous @p basic elements (@p kind
 * LOOM_RMA_ACC), Fetch_and_op (LOOM_RMA_FOP) or Compare_and_swap
 * (LOOM_RMA_CAS) of one, at target @p disp, when the window is in a shared
 * segment: under the segment's accumulate lock, as every accumulate of such
 * a window; an accumulate of at most 512 bytes on a window whose
 * accumulates go by message: one request built on the stack, queued,
 * except for a value+index pair whose C struct has padding
 * (LOOM_DOUBLE_INT & co.): the elements are in their C layout, which the
 * target would read as packed pairs, so that one is not taken. @p op:
 * predefined, LOOM_REPLACE or LOOM_RMA_OP_NO_OP (CAS: ignored); @p result:
 * FOP, CAS.
 * @return 1 if not taken (call loom_rma_acc), else 0 with *st_p LOOM_OK,
 * LOOM_RMA_ERR_SYNC, _RANGE, LOOM_ERR_INVALID_OP or _INVALID_RANK.
 */
int loom_rma_acc_contig(loom_rma_win_t *win, loom_rma_acc_kind_t kind, loom_op_t op,
                        loom_datatype_t basic, const void *origin, const void *compare,
                        void *result, size_t count, int target, ptrdiff_t disp,
                        loom_status_t *st_p);

/**
 * The origin's fast-path view of a window whose pieces are all in one
 * shared segment (SHARED windows, ALLOCATE ones on one host), for the MPI
 * binding's inline path (mpi/mpi_win_int.h): every pointer stays valid
 * until the window is freed and follows its epochs, so the binding copies
 * the view once at creation. access[r]: 0 no operation to rank r may be
 * issued now, 1 one may (fence or PSCW access epoch), 2 one may and a
 * flush of r is allowed (passive target epoch); access[size]: 2 when a
 * flush of all targets is allowed. Anything the view does not cover
 * (other windows, types, errors) goes through the calls above.
 */
typedef struct loom_rma_fast {
    char *const          *base;     /* [size] every rank's piece here; NULL: no view */
    const uint64_t       *sizes;    /* [size] bytes of every piece */
    const int            *units;    /* [size] disp units */
    const uint8_t        *access;   /* [size + 1] see above */
    _Atomic int          *acc_lock; /* held around every accumulate of the window */
    int                   size;
} loom_rma_fast_t;

/** @brief Fill @p fast_p (base NULL when @p win is not in a shared segment). */
void loom_rma_win_fast(loom_rma_win_t *win, loom_rma_fast_t *fast_p);

/** One element's Fetch_and_op or Compare_and_swap (loom_rma_am_atomic). */
typedef struct loom_rma_am_atomic {
    loom_datatype_t basic;     /* an element of at most 8 bytes */
    loom_op_t       op;        /* FOP: one valid on basic, LOOM_REPLACE or LOOM_RMA_OP_NO_OP */
    const void     *origin;    /* NULL only with LOOM_RMA_OP_NO_OP */
    const void     *compare;   /* non-NULL: Compare_and_swap (op ignored) */
    void           *result;
    int             target;
    ptrdiff_t       disp;
} loom_rma_am_atomic_t;

/**
 * @brief Fetch_and_op / Compare_and_swap of one element on a window whose
 * accumulates go by active message (not in a shared segment, not CMA
 * accumulates, not dynamic, not to this rank): one message built in one
 * block, the reply received into one block, no datatype engine
 * (rma_am.c). Same protocol and ordering as loom_rma_acc's.
 * @return 1 if not taken (call loom_rma_acc), else 0 with *st_p LOOM_OK,
 * LOOM_RMA_ERR_SYNC, _RANGE, LOOM_ERR_INVALID_RANK or a send error.
 */
int loom_rma_am_atomic(loom_rma_win_t *win, const loom_rma_am_atomic_t *a,
                       loom_status_t *st_p);

/** Arguments of an accumulate-like operation. */
typedef struct loom_rma_acc_args {
    loom_rma_acc_kind_t kind;
    const void     *origin;     /* NULL allowed for LOOM_RMA_OP_NO_OP */
    size_t          ocount;
    loom_dt_t      *odt;
    void           *result;     /* GET_ACC, FOP, CAS */
    size_t          rcount;
    loom_dt_t      *rdt;
    const void     *compare;    /* CAS */
    int             target;
    ptrdiff_t       disp;
    size_t          tcount;
    loom_dt_t      *tdt;
    loom_datatype_t basic;      /* the element type the op works on */
    loom_op_t       op;         /* predefined, LOOM_REPLACE or LOOM_RMA_OP_NO_OP */
} loom_rma_acc_args_t;

/** @brief Accumulate, Get_accumulate, Fetch_and_op or Compare_and_swap. */
loom_status_t loom_rma_acc(loom_rma_win_t *win, const loom_rma_acc_args_t *a,
                           loom_request_t *req_p);

/* ---- synchronization ---- */

loom_status_t loom_rma_fence(loom_rma_win_t *win, int assert_flags);
loom_status_t loom_rma_lock(loom_rma_win_t *win, int lock_type, int target, int assert_flags);
loom_status_t loom_rma_unlock(loom_rma_win_t *win, int target);
loom_status_t loom_rma_lock_all(loom_rma_win_t *win, int assert_flags);
loom_status_t loom_rma_unlock_all(loom_rma_win_t *win);
/** @brief Complete operations to @p target (LOOM_ANY_SOURCE: all) at origin and target. */
loom_status_t loom_rma_flush(loom_rma_win_t *win, int target);
loom_status_t loom_rma_sync(loom_rma_win_t *win);
/** @brief A full memory fence, out of line (the binding's inline flush of a window in a
 *  shared segment: no progress pass, unlike loom_rma_sync). */
void loom_rma_mem_fence(void);
/** PSCW: @p ranks are window ranks. */
loom_status_t loom_rma_post(loom_rma_win_t *win, int n, const int ranks[], int assert_flags);
loom_status_t loom_rma_start(loom_rma_win_t *win, int n, const int ranks[], int assert_flags);
loom_status_t loom_rma_complete(loom_rma_win_t *win);
loom_status_t loom_rma_wait(loom_rma_win_t *win);
loom_status_t loom_rma_test(loom_rma_win_t *win, int *flag_p);

#endif /* LOOM_RMA_INT_H */
