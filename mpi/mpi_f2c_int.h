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
 * An index is never reused. Freeing an object drops its entry
 * (loom_mpi_handle_forget: a hash delete, O(1) expected), so f2c of a freed
 * handle's index gives the null handle and a new object at the same address
 * gets a new index; MPI_Finalize frees every table
 * (loom_mpi_handles_cleanup). f2c of an index never handed out returns the
 * null handle. Pure C, no MPI calls:
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

/**
 * Drop @p ptr's entry, if it has one: its index converts to NULL from now
 * on and is not handed out again; @p ptr gets a new index on its next c2f.
 */
void loom_mpi_htab_drop(loom_mpi_htab_t *t, const void *ptr);

/** The handle kinds, one table each. */
typedef enum {
    LOOM_MPI_H_COMM, LOOM_MPI_H_TYPE, LOOM_MPI_H_GROUP, LOOM_MPI_H_REQUEST, LOOM_MPI_H_OP,
    LOOM_MPI_H_INFO, LOOM_MPI_H_WIN, LOOM_MPI_H_FILE, LOOM_MPI_H_ERRH, LOOM_MPI_H_MESSAGE,
    LOOM_MPI_H_KINDS
} loom_mpi_hkind_t;

/** Object @p ptr of kind @p kind is being freed: drop its Fortran index. */
void loom_mpi_handle_forget(loom_mpi_hkind_t kind, const void *ptr);

/** MPI_Finalize: free every table; the predefined handles register again on next use. */
void loom_mpi_handles_cleanup(void);

#pragma GCC visibility pop

#endif /* LOOM_MPI_F2C_INT_H */
