/*
 * mpi_dtype_int.h: what mpi_dtype_f90.c (the parameterized Fortran types
 * of MPI_Type_create_f90_*) tells mpi_dtype.c's envelope and contents.
 */
#ifndef LOOM_MPI_DTYPE_INT_H
#define LOOM_MPI_DTYPE_INT_H

#include "mpi_int.h"

/**
 * If @p dt came from MPI_Type_create_f90_{integer,real,complex}: its
 * combiner (MPI_COMBINER_F90_*) in *combiner and its integers ({r} or
 * {p, r}, *nints of them, at most 2) in ints; returns 1. Else 0.
 */
int loom_mpi_dtype_f90_info(MPI_Datatype dt, int *combiner, int ints[2], int *nints);

#endif /* LOOM_MPI_DTYPE_INT_H */
