/*
 * mpi_win_kinds.h: the three kinds of window the one-sided test programs
 * run every case on (Win_allocate, Win_allocate_shared, Win_create over
 * malloc'd memory), opened zeroed and synchronized, and closed.
 *
 * Include after mpi_test_util.h. win_open() zeroes the calling rank's
 * bytes under an exclusive self-lock and ends with a barrier, so no rank
 * writes into a peer's window before the peer has cleared it.
 */
#ifndef LOOM_TEST_MPI_WIN_KINDS_H
#define LOOM_TEST_MPI_WIN_KINDS_H

#include "mpi_test_util.h"

#include <stdlib.h>
#include <string.h>

enum { W_ALLOC, W_SHARED, W_CREATE, W_KINDS };

static const char *const kind_names[] = { "Win_allocate", "Win_allocate_shared",
                                          "Win_create" };

/** A window of @p bytes per rank (disp unit 1, MPI_ERRORS_RETURN), zeroed. */
static inline MPI_Win win_open_bytes(int kind, MPI_Aint bytes, char **base_p)
{
    MPI_Win win;
    char *base = NULL;
    int me = -1;

    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    if (kind == W_ALLOC) {
        MT_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    } else if (kind == W_SHARED) {
        MT_OK(MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    } else {
        MT_CHECK((base = malloc((size_t)bytes)) != NULL);
        MT_OK(MPI_Win_create(base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    }
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    memset(base, 0, (size_t)bytes);
    MT_OK(MPI_Win_unlock(me, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    *base_p = base;
    return win;
}

/** Free a window of win_open_bytes() and, for Win_create, its memory. */
static inline void win_close(int kind, MPI_Win *win, char *base)
{
    MT_OK(MPI_Win_free(win));
    if (kind == W_CREATE) {
        free(base);
    }
}

/**
 * A window of @p bytes with disp unit @p unit: Win_create over calloc'd
 * memory when @p create, else Win_allocate zeroed; ends with a barrier.
 */
static inline MPI_Win win_make(int create, size_t bytes, int unit, void **base_p)
{
    MPI_Win win;

    if (create) {
        *base_p = calloc(1, bytes);
        MT_CHECK(*base_p != NULL);
        MT_OK(MPI_Win_create(*base_p, (MPI_Aint)bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD,
                             &win));
    } else {
        MT_OK(MPI_Win_allocate((MPI_Aint)bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, base_p,
                               &win));
        memset(*base_p, 0, bytes);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    return win;
}

#endif
