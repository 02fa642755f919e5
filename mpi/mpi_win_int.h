/*
 * mpi_win_int.h: MPI windows as the binding's files see them
 * (mpi_win.c: objects, attributes, errors; mpi_win_ops.c: communication;
 * mpi_win_sync.c: synchronization; mpi_attr.c: window attributes).
 *
 * An MPI_Win is a small object around the one-sided layer's window
 * (rma/rma_int.h) that holds what only MPI has: the error handler, the
 * name, the group, info hints and attributes, and the values the
 * predefined attributes point to.
 *
 * It also keeps the rma layer's fast-path view of the window
 * (loom_rma_fast_t, copied once at creation: it follows the epochs by
 * itself): when the window's pieces are in one shared segment, the
 * communication and flush calls of plain types run inline here (an epoch
 * byte, a range check, a memcpy or a locked element operation, a fence)
 * and call into the rma layer only for everything else.
 */
#ifndef LOOM_MPI_WIN_INT_H
#define LOOM_MPI_WIN_INT_H

#include "mpi_int.h"
#include "mpi_attr_int.h"
#include "rma_int.h"

#pragma GCC visibility push(hidden)

#define LOOM_MPI_WIN_MAGIC 0x6d77696eu  /* "mwin" */

struct loom_mpi_win {
    uint32_t               magic;
    loom_rma_win_t        *rwin;
    MPI_Errhandler         errh;
    MPI_Group              group;
    char                   name[MPI_MAX_OBJECT_NAME];
    struct loom_mpi_objext *ext;     /* attributes and info (mpi_attr.c) */
    /* what the predefined attributes point to */
    void                  *attr_base;
    MPI_Aint               attr_size;
    int                    attr_disp_unit;
    int                    attr_flavor;
    int                    attr_model;
    loom_rma_fast_t        fast;     /* base NULL: no inline path */
};

/** 1 if @p win is a live window handle. */
static inline int loom_mpi_win_valid(MPI_Win win)
{
    return win != MPI_WIN_NULL && win->magic == LOOM_MPI_WIN_MAGIC &&
           loom_mpi_state == LOOM_MPI_STATE_INITIALIZED;
}

/**
 * Target @p rank's byte @p disp (disp units) of a window with an inline
 * path, if [disp, + @p bytes) lies in its piece and its epoch byte is at
 * least @p need (1: operations, 2: passive target); else NULL (the
 * general path then runs and reports what was wrong).
 */
static inline char *loom_mpi_win_fast_addr(MPI_Win win, int rank, MPI_Aint disp,
                                           size_t bytes, uint8_t need)
{
    const loom_rma_fast_t *f = &win->fast;
    int64_t start;

    if (f->base == NULL || (unsigned)rank >= (unsigned)f->size || f->access[rank] < need ||
        disp < 0 || __builtin_mul_overflow((int64_t)disp, (int64_t)f->units[rank], &start) ||
        (uint64_t)start > f->sizes[rank] || bytes > f->sizes[rank] - (uint64_t)start) {
        return NULL;
    }
    return f->base[rank] + start;
}

/**
 * Raise @p errclass for @p call on @p win (its error handler; an invalid
 * @p win: MPI_COMM_WORLD's). Returns the code as loom_mpi_raise does.
 */
int loom_mpi_win_raise(MPI_Win win, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** Raise the MPI class of loom/rma status @p st (MPI_SUCCESS if LOOM_OK). */
int loom_mpi_win_raise_loom(MPI_Win win, loom_status_t st, const char *call);

/** The MPI class of a loom or rma status. */
int loom_mpi_win_class_of(loom_status_t st);

/** MPI_ERR_WIN for an invalid handle, raised on MPI_COMM_WORLD. */
int loom_mpi_win_bad(MPI_Win win, const char *call);

/** The attribute extension of @p win (NULL if not a window): mpi_attr.c. */
loom_mpi_objext_t **loom_mpi_win_ext(MPI_Win win);

/**
 * Predefined window attribute @p keyval (MPI_WIN_BASE ... MPI_WIN_MODEL):
 * 1 and *value_p set if it is one, else 0.
 */
int loom_mpi_win_predef_attr(MPI_Win win, int keyval, void *value_p);

/** Window ranks of the members of @p group (malloc'ed), or an error class raised. */
int loom_mpi_win_group_ranks(MPI_Win win, MPI_Group group, const char *call,
                             int **ranks_p, int *n_p);

#pragma GCC visibility pop

#endif /* LOOM_MPI_WIN_INT_H */
