/*
 * mpi_dtype_f90.c: MPI_Type_match_size and MPI_Type_create_f90_integer,
 * _real and _complex (MPI-3.1 17.1.9).
 *
 * match_size returns a predefined named type, as Open MPI does: the
 * Fortran-named integer and real types of loom's mpi.h (MPI_INTEGER1,
 * 2, 4, 8; MPI_REAL, MPI_DOUBLE_PRECISION) and, where mpi.h names no
 * Fortran type of that size, the C type (MPI_LONG_DOUBLE for REAL*16,
 * the C complex types for COMPLEX*8/16/32).
 *
 * create_f90_* picks the smallest C type that holds the requested decimal
 * precision p and exponent range r, as Fortran's SELECTED_*_KIND does on
 * x86-64: integers of range r need 10^r < 2^(bits-1) (r <= 2, 4, 9, 18:
 * 1, 2, 4, 8 bytes); reals need p <= 6 and r <= 37 (float), p <= 15 and
 * r <= 307 (double), p <= 18 and r <= 4931 (x87 long double); either p or
 * r may be MPI_UNDEFINED, not both. The result is a predefined type (it
 * cannot be freed: MPI_ERR_TYPE) with the combiner MPI_COMBINER_F90_* and
 * contents {r} or {p, r}; the same arguments return the same handle, as
 * the standard asks, so the objects live in a list for the process's
 * lifetime. Each is a copy of the matching C type's object, so it moves
 * and reduces exactly as that type does.
 */
#include "mpi_dtype_int.h"
#include "mt_int.h"

#include <float.h>
#include <stdlib.h>
#include <stdio.h>

typedef struct f90_type {
    struct loom_mpi_datatype obj;  /* first: the handle is its address */
    int                      combiner, p, r;
    struct f90_type         *next;
} f90_type_t;

static f90_type_t *f90_types;  /* MPI is funneled: one thread creates them */

int loom_mpi_dtype_f90_info(MPI_Datatype dt, int *combiner, int ints[2], int *nints)
{
    for (f90_type_t *t = f90_types; t != NULL; t = t->next) {
        if (&t->obj == dt) {
            *combiner = t->combiner;
            *nints = t->combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
            ints[0] = *nints == 1 ? t->r : t->p;
            ints[1] = t->r;
            return 1;
        }
    }
    return 0;
}

/* @p v for a type's name: the number, or MPI_UNDEFINED */
static void f90_num(char out[16], int v)
{
    if (v == MPI_UNDEFINED) {
        snprintf(out, 16, "MPI_UNDEFINED");
    } else {
        snprintf(out, 16, "%d", v);
    }
}

/* The cached handle of (combiner, p, r), made from @p like on first use. */
static int f90_handle(int combiner, int p, int r, MPI_Datatype like, const char *call,
                      MPI_Datatype *newtype)
{
    f90_type_t *t;
    char ps[16], rs[16];

    for (t = f90_types; t != NULL; t = t->next) {
        if (t->combiner == combiner && t->p == p && t->r == r) {
            *newtype = &t->obj;
            return MPI_SUCCESS;
        }
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory for the type");
    }
    t->obj.magic = LOOM_MPI_TYPE_MAGIC;
    t->obj.base = like->base;
    t->obj.n = like->n;
    t->obj.size = like->size;
    t->obj.predefined = 1;
    t->obj.committed = 1;
    t->obj.refs = 1;
    t->obj.ebase = like->ebase;
    t->obj.uhandles = 1;
    f90_num(ps, p);
    f90_num(rs, r);
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        snprintf(t->obj.name, sizeof(t->obj.name), "MPI_F90_INTEGER(r=%s)", rs);
    } else {
        snprintf(t->obj.name, sizeof(t->obj.name), "MPI_F90_%s(p=%s,r=%s)",
                 combiner == MPI_COMBINER_F90_REAL ? "REAL" : "COMPLEX", ps, rs);
    }
    t->combiner = combiner;
    t->p = p;
    t->r = r;
    t->next = f90_types;
    f90_types = t;
    *newtype = &t->obj;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    const char *call = "MPI_Type_create_f90_integer";
    MPI_Datatype like = r <= 2 ? MPI_INT8_T : r <= 4 ? MPI_INT16_T
                        : r <= 9 ? MPI_INT32_T : r <= 18 ? MPI_INT64_T : MPI_DATATYPE_NULL;

    if (newtype == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "newtype is NULL");
    }
    if (r < 0 || like == MPI_DATATYPE_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "no integer type has the decimal "
                              "range r = %d (0 <= r <= 18: 1 to 8 bytes)", r);
    }
    return f90_handle(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, like, call, newtype);
}

/* The real kind of (p, r): 0 float, 1 double, 2 long double; -1 if none. */
static int f90_real_kind(int p, int r)
{
    static const int maxp[] = { FLT_DIG, DBL_DIG, LDBL_DIG };
    static const int maxr[] = { FLT_MAX_10_EXP - 1, DBL_MAX_10_EXP - 1, LDBL_MAX_10_EXP - 1 };

    if ((p == MPI_UNDEFINED && r == MPI_UNDEFINED) || (p != MPI_UNDEFINED && p < 0) ||
        (r != MPI_UNDEFINED && r < 0)) {
        return -1;
    }
    for (int k = 0; k < 3; ++k) {
        if ((p == MPI_UNDEFINED || p <= maxp[k]) && (r == MPI_UNDEFINED || r <= maxr[k])) {
            return k;
        }
    }
    return -1;
}

static int f90_real(int p, int r, int combiner, MPI_Datatype *newtype, const char *call)
{
    static const MPI_Datatype reals[] = { MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE };
    static const MPI_Datatype cplx[] = { MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                         MPI_C_LONG_DOUBLE_COMPLEX };
    int k = f90_real_kind(p, r);

    if (newtype == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "newtype is NULL");
    }
    if (k < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "no real type has precision p = %d and "
                              "range r = %d (at most p %d, r %d; MPI_UNDEFINED for one of "
                              "them, not both)", p, r, LDBL_DIG, LDBL_MAX_10_EXP - 1);
    }
    return f90_handle(combiner, p, r, combiner == MPI_COMBINER_F90_REAL ? reals[k] : cplx[k],
                      call, newtype);
}

#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    return f90_real(p, r, MPI_COMBINER_F90_REAL, newtype, "MPI_Type_create_f90_real");
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    LOOM_MT_GUARD();
    return f90_real(p, r, MPI_COMBINER_F90_COMPLEX, newtype, "MPI_Type_create_f90_complex");
}

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *type)
{
    LOOM_MT_GUARD();
    const char *call = "MPI_Type_match_size";
    MPI_Datatype t = MPI_DATATYPE_NULL;

    if (type == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "type is NULL");
    }
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
        t = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 : size == 4 ? MPI_INTEGER
            : size == 8 ? MPI_INTEGER8 : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_REAL:
        t = size == 4 ? MPI_REAL : size == 8 ? MPI_DOUBLE_PRECISION
            : size == (int)sizeof(long double) ? MPI_LONG_DOUBLE : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_COMPLEX:
        t = size == 8 ? MPI_C_FLOAT_COMPLEX : size == 16 ? MPI_C_DOUBLE_COMPLEX
            : size == 2 * (int)sizeof(long double) ? MPI_C_LONG_DOUBLE_COMPLEX
            : MPI_DATATYPE_NULL;
        break;
    default:
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "typeclass %d is not "
                              "MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX", typeclass);
    }
    if (t == MPI_DATATYPE_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "no %s type of %d bytes",
                              typeclass == MPI_TYPECLASS_INTEGER ? "integer"
                              : typeclass == MPI_TYPECLASS_REAL ? "real" : "complex", size);
    }
    *type = t;
    return MPI_SUCCESS;
}
