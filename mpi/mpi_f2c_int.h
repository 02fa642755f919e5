/*
 * mpi_f2c_int.h: the handle tables behind MPI_<Kind>_c2f / _f2c.
 *
 * Design. A C handle is a pointer; a Fortran handle (MPI_Fint) is a small
 * integer. Each kind of handle has one table: an array from index to
 * pointer, and an open-addressing hash from pointer to index, so both
 * directions are O(1). Index 0 is the kind's null handle (every null
 * handle is the null pointer); the predefined handles are registered
 * first, in a fixed order, so they get the same small indices in every
 * process and run; other handles get the next index on their first c2f.
 * An index is never reused: a freed object's pointer may come back for a
 * new object, which then simply has the old index (both directions stay
 * consistent), and the tables only grow with distinct pointers. f2c of an
 * index never handed out returns the null handle. Pure C, no MPI calls:
 * test/mpi/test_mpi_handles.c tests it alone.
 */
#ifndef LOOM_MPI_F2C_INT_H
#define LOOM_MPI_F2C_INT_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

typedef struct loom_mpi_hslot {
    const void *ptr;   /* NULL: empty */
    int32_t     idx;
} loom_mpi_hslot_t;

typedef struct loom_mpi_htab {
    const void      **ptrs;    /* index -> pointer; ptrs[0] = NULL */
    size_t            n, cap;
    loom_mpi_hslot_t *slots;   /* pointer -> index, power-of-two size */
    size_t            nslots;
} loom_mpi_htab_t;

/** The index of @p ptr (0 for NULL), assigned now if new; -1 if out of memory. */
int32_t loom_mpi_htab_c2f(loom_mpi_htab_t *t, const void *ptr);

/** The pointer of index @p idx, or NULL if never handed out. */
const void *loom_mpi_htab_f2c(const loom_mpi_htab_t *t, int32_t idx);

/** Free the table (it is empty and usable again afterwards). */
void loom_mpi_htab_free(loom_mpi_htab_t *t);

#pragma GCC visibility pop

#endif /* LOOM_MPI_F2C_INT_H */
