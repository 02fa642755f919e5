/*
 * mpi_attr_int.h: the attribute store shared by communicators, datatypes
 * and (later) windows, and the per-object extension that holds it.
 *
 * Design. A keyval is an int: 1..LOOM_MPI_KEYVAL_PREDEF_MAX are MPI's
 * predefined communicator attributes (MPI_TAG_UB ... MPI_LASTUSEDCODE, never
 * in the store: their values are computed on get, and set/delete refuse
 * them); user keyvals are LOOM_MPI_KEYVAL_BASE + an index into one growable
 * table (O(1) lookup). Each keyval records its kind (comm, type, win), its
 * copy and delete callbacks and extra state, and a reference count: the
 * user's handle plus one per attribute using it, so MPI_*_free_keyval
 * leaves attributes already set usable (MPI-3.1 6.7.2). Slots are never
 * reused, so a stale keyval int can never name a newer keyval.
 *
 * An object's attributes are a singly linked list, newest first: deleting
 * from the head runs delete callbacks in the reverse order of setting,
 * which MPI-3.1 8.7.1 requires for MPI_COMM_SELF at MPI_Finalize (and we
 * use everywhere). Setting a key again deletes the old value and moves the
 * key to the head (it is the newest setting). Copies keep the order.
 *
 * Every MPI object that can carry attributes or info hints has ONE pointer
 * field to a loom_mpi_objext_t, allocated on first use, so objects that
 * never use attributes pay one NULL pointer.
 */
#ifndef LOOM_MPI_ATTR_INT_H
#define LOOM_MPI_ATTR_INT_H

#include "mpi_int.h"
#include "mpi_errclass_int.h"

#pragma GCC visibility push(hidden)

/** Predefined communicator keyvals are 1..7 (mpi.h); user keyvals start here. */
#define LOOM_MPI_KEYVAL_PREDEF_MAX 7
#define LOOM_MPI_KEYVAL_BASE       64

typedef enum loom_mpi_attr_kind {
    LOOM_MPI_ATTR_COMM = 0,
    LOOM_MPI_ATTR_TYPE,
    LOOM_MPI_ATTR_WIN,
} loom_mpi_attr_kind_t;

typedef struct loom_mpi_attr {
    int                   keyval;
    void                 *value;
    struct loom_mpi_attr *next;   /* older settings */
} loom_mpi_attr_t;

/** What an MPI object adds for attributes and info hints (one pointer in it). */
typedef struct loom_mpi_objext {
    loom_mpi_attr_t *attrs;   /* newest first */
    MPI_Info         hints;   /* MPI_Comm_set_info; MPI_INFO_NULL if none */
} loom_mpi_objext_t;

/**
 * Run the copy callbacks of every attribute of @p old (an object of @p kind
 * whose handle is @p oldobj) and attach the copies the callbacks ask for to
 * *@p new_p, the extension of @p newobj (allocated here if needed); the info
 * hints are copied too.
 * On a callback error, the attributes already copied are deleted (their
 * delete callbacks run) and the callback's error code is returned; else
 * MPI_SUCCESS (or MPI_ERR_NO_MEM). Nothing is raised: the caller raises.
 */
int loom_mpi_attr_copy_all(loom_mpi_attr_kind_t kind, void *oldobj,
                           loom_mpi_objext_t *old, void *newobj,
                           loom_mpi_objext_t **new_p);

/**
 * Delete every attribute of @p ext (newest first), running the delete
 * callbacks with handle @p obj. Stops at the first callback error and
 * returns its code, leaving that attribute and the older ones in place.
 */
int loom_mpi_attr_delete_all(loom_mpi_attr_kind_t kind, void *obj,
                             loom_mpi_objext_t *ext);

/**
 * Free *@p ext_p without running callbacks (objects reclaimed at finalize,
 * or after loom_mpi_attr_delete_all succeeded) and set it to NULL.
 */
void loom_mpi_objext_free(loom_mpi_objext_t **ext_p);

/** MPI_Finalize, first step: delete MPI_COMM_SELF's attributes (reverse order). */
int loom_mpi_attr_finalize_self(void);

/** MPI_Finalize, last step: free the keyval table and leftover attributes. */
void loom_mpi_attr_cleanup(void);

/** Info objects: free @p info if it is a user info (used by objext teardown). */
void loom_mpi_info_release(MPI_Info info);

/** A new info holding a copy of @p src's keys (MPI_INFO_NULL: empty). */
int loom_mpi_info_copy(MPI_Info src, MPI_Info *dst_p);

/** 1 if @p info is a live info handle (MPI_INFO_ENV included). */
int loom_mpi_info_is_valid(MPI_Info info);

#pragma GCC visibility pop

#endif /* LOOM_MPI_ATTR_INT_H */
