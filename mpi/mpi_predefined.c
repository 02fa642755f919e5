/*
 * mpi_predefined.c: the predefined objects mpi.h names beyond the basic C
 * datatypes and operations: C++ and Fortran datatypes, MPI_NO_OP, and
 * MPI_Pcontrol (the complex types, MPI_C_BOOL and the predefined
 * attribute callbacks are in mpi_datatype.c and mpi_attr.c).
 *
 * Datatypes follow mpi_datatype.c's "loom basic type x n" model:
 *   - the Fortran types are the C types of the same size (INTEGER = int32,
 *     REAL = float, DOUBLE PRECISION = double, LOGICAL = int32, the pair
 *     types for MINLOC/MAXLOC: 2INTEGER = loom's 2INT, 2REAL = 2 floats),
 *     usable everywhere their C twin is;
 *   - CHARACTER and C++ bool are bytes (LOOM_BYTE x size): they move in
 *     point-to-point and the byte-moving collectives, and loom refuses
 *     arithmetic on bytes, so a reduction on them fails with an MPI error
 *     instead of computing a wrong result.
 */
#include "mpi_int.h"
#include "mt_int.h"

#include <stdbool.h>

/* X(ident, MPI name, loom base, n, MPI_Type_size) */
#define LOOM_MPI_EXTRA_TYPE_MAP(X)                                                   \
    X(cxx_bool,               "MPI_CXX_BOOL",          LOOM_BYTE, sizeof(bool),     \
      sizeof(bool))                                                                 \
    X(character,              "MPI_CHARACTER",         LOOM_BYTE, 1, 1)             \
    X(logical,                "MPI_LOGICAL",           LOOM_INT32, 1, 4)            \
    X(integer,                "MPI_INTEGER",           LOOM_INT32, 1, 4)            \
    X(real,                   "MPI_REAL",              LOOM_FLOAT, 1, sizeof(float)) \
    X(double_precision,       "MPI_DOUBLE_PRECISION",  LOOM_DOUBLE, 1, sizeof(double)) \
    X(2integer,               "MPI_2INTEGER",          LOOM_2INT, 1, 8)             \
    X(2real,                  "MPI_2REAL",             LOOM_FLOAT, 2, 2 * sizeof(float)) \
    X(2double_precision,      "MPI_2DOUBLE_PRECISION", LOOM_DOUBLE, 2,              \
      2 * sizeof(double))                                                           \
    X(integer1,               "MPI_INTEGER1",          LOOM_INT8, 1, 1)             \
    X(integer2,               "MPI_INTEGER2",          LOOM_INT16, 1, 2)            \
    X(integer8,               "MPI_INTEGER8",          LOOM_INT64, 1, 8)

#define LOOM_MPI_EXTRA_DT_(attr, ident, mpi_name, base_, n_, size_)              \
    attr struct loom_mpi_datatype loom_mpi_dt_##ident = {                        \
        .magic = LOOM_MPI_TYPE_MAGIC, .base = (base_), .n = (n_),                \
        .size = (size_), .predefined = 1, .committed = 1, .refs = 1,             \
        .name = mpi_name,                                                        \
    };
#define LOOM_MPI_STRONG_DT_(ident, mpi_name, base_, n_, size_) \
    LOOM_MPI_EXTRA_DT_(, ident, mpi_name, base_, n_, size_)
LOOM_MPI_EXTRA_TYPE_MAP(LOOM_MPI_STRONG_DT_)
#undef LOOM_MPI_STRONG_DT_
#undef LOOM_MPI_EXTRA_DT_

_Static_assert(sizeof(int) == 4, "MPI_INTEGER/MPI_2INTEGER assume a 4-byte int");

/* Not an operation for the collectives: loom_mpi_op_resolve() says MPI_ERR_OP. */
struct loom_mpi_op loom_mpi_op_no_op = {
    .magic = 0, .predefined = 1, .name = "MPI_NO_OP",
};

/* ---- profiling control -------------------------------------------------------- */

/**
 * MPI_Pcontrol: no effect without a profiling library (MPI-3.1 section
 * 14.2.4); a PMPI tool that defines MPI_Pcontrol sees the call instead.
 */
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    LOOM_MT_GUARD();
    (void)level;
    return MPI_SUCCESS;
}
