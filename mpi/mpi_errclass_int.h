/*
 * mpi_errclass_int.h: error classes and codes added at run time
 * (MPI_Add_error_class / _code / _string).
 *
 * Design. Predefined classes are 0..MPI_ERR_LASTCODE and each is its own
 * code. Added classes and codes share one number space above that,
 * handed out in order, so MPI_LASTUSEDCODE is simply the last one given;
 * one table indexed by (code - MPI_ERR_LASTCODE - 1) holds each added
 * value's class (a class is its own class) and its string, so lookups are
 * O(1). A predefined code's string cannot be changed (MPI_ERR_ARG, as
 * MPI-3.1 8.5 says).
 */
#ifndef LOOM_MPI_ERRCLASS_INT_H
#define LOOM_MPI_ERRCLASS_INT_H

#pragma GCC visibility push(hidden)

/** The value of MPI_LASTUSEDCODE: the largest error code or class in use. */
int loom_mpi_errcode_last(void);

/** The class of @p code (predefined or added), or -1 if @p code is not one. */
int loom_mpi_errcode_class(int code);

/** The string attached to added code or class @p code ("" if none), or NULL. */
const char *loom_mpi_errcode_string(int code);

/** Forget every added class and code (MPI_Finalize). */
void loom_mpi_errcode_cleanup(void);

#pragma GCC visibility pop

#endif /* LOOM_MPI_ERRCLASS_INT_H */
