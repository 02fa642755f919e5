/*
 * mpi_f2c.c: handle conversion between C and Fortran (MPI-3.1 17.2.4):
 * MPI_<Kind>_c2f / _f2c for every handle kind, and MPI_Status_c2f / _f2c.
 *
 * Design (see mpi_f2c_int.h): one table per kind; each table registers its
 * predefined handles on first use, in the order listed below, so
 * MPI_COMM_WORLD is 1, MPI_COMM_SELF 2, the predefined datatypes 1..N in
 * mpi_datatype.c's order, the predefined ops 1..13, MPI_INFO_ENV 1,
 * MPI_ERRORS_ARE_FATAL 1 and MPI_ERRORS_RETURN 2; 0 is always the null
 * handle. Conversion functions cannot report errors (they return a
 * handle), so an unknown index converts to the null handle, and a table
 * that cannot grow (out of memory) converts a handle to -1, which f2c
 * maps back to the null handle.
 */
#include "mpi_int.h"
#include "mpi_f2c_int.h"
#include "mt_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- the pure table ----------------------------------------------------------------- */

static size_t loom_mpi_htab_hash(const void *ptr, size_t mask)
{
    uint64_t x = (uint64_t)(uintptr_t)ptr;

    x ^= x >> 33;               /* a 64-bit finalizer: pointers share low bits */
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x & mask;
}

static void loom_mpi_htab_insert(loom_mpi_hslot_t *slots, size_t nslots, const void *ptr,
                                 int32_t idx)
{
    size_t i = loom_mpi_htab_hash(ptr, nslots - 1);

    while (slots[i].ptr != NULL) {
        i = (i + 1) & (nslots - 1);
    }
    slots[i].ptr = ptr;
    slots[i].idx = idx;
}

/* Keep the hash at most half full and the index array one larger than n. */
static int loom_mpi_htab_grow(loom_mpi_htab_t *t)
{
    if (t->n + 1 >= t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        const void **p = cap > INT32_MAX ? NULL : realloc(t->ptrs, cap * sizeof(*p));

        if (p == NULL) {
            return -1;
        }
        t->ptrs = p;
        t->cap  = cap;
    }
    if (2 * (t->n + 1) > t->nslots) {
        size_t nslots = t->nslots ? 2 * t->nslots : 64;
        loom_mpi_hslot_t *s = calloc(nslots, sizeof(*s));

        if (s == NULL) {
            return -1;
        }
        for (size_t i = 0; i < t->nslots; ++i) {
            if (t->slots[i].ptr != NULL) {
                loom_mpi_htab_insert(s, nslots, t->slots[i].ptr, t->slots[i].idx);
            }
        }
        free(t->slots);
        t->slots  = s;
        t->nslots = nslots;
    }
    return 0;
}

int32_t loom_mpi_htab_c2f(loom_mpi_htab_t *t, const void *ptr)
{
    if (ptr == NULL) {
        return 0;
    }
    if (t->nslots > 0) {
        for (size_t i = loom_mpi_htab_hash(ptr, t->nslots - 1); t->slots[i].ptr != NULL;
             i = (i + 1) & (t->nslots - 1)) {
            if (t->slots[i].ptr == ptr) {
                return t->slots[i].idx;
            }
        }
    }
    if (loom_mpi_htab_grow(t) != 0) {
        return -1;
    }
    if (t->n == 0) {
        t->ptrs[t->n++] = NULL;  /* index 0: the null handle */
    }
    t->ptrs[t->n] = ptr;
    loom_mpi_htab_insert(t->slots, t->nslots, ptr, (int32_t)t->n);
    return (int32_t)t->n++;
}

const void *loom_mpi_htab_f2c(const loom_mpi_htab_t *t, int32_t idx)
{
    if (idx <= 0 || (size_t)idx >= t->n) {
        return NULL;
    }
    return t->ptrs[idx];
}

void loom_mpi_htab_free(loom_mpi_htab_t *t)
{
    free(t->ptrs);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

/* linear probing: delete by shifting later entries of the run back (no tombstones) */
void loom_mpi_htab_drop(loom_mpi_htab_t *t, const void *ptr)
{
    size_t mask = t->nslots - 1, i, j;

    if (ptr == NULL || t->nslots == 0) {
        return;
    }
    for (i = loom_mpi_htab_hash(ptr, mask); t->slots[i].ptr != ptr; i = (i + 1) & mask) {
        if (t->slots[i].ptr == NULL) {
            return;   /* never converted */
        }
    }
    t->ptrs[t->slots[i].idx] = NULL;
    t->slots[i].ptr = NULL;
    for (j = (i + 1) & mask; t->slots[j].ptr != NULL; j = (j + 1) & mask) {
        size_t home = loom_mpi_htab_hash(t->slots[j].ptr, mask);

        /* move j into the hole at i unless its home lies cyclically in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            t->slots[i] = t->slots[j];
            t->slots[j].ptr = NULL;
            i = j;
        }
    }
}

/* ---- one table per kind, predefined handles first -------------------------------- */

static loom_mpi_htab_t loom_mpi_htabs[LOOM_MPI_H_KINDS];
static uint8_t         loom_mpi_htab_ready[LOOM_MPI_H_KINDS];

static void loom_mpi_htab_predefine(loom_mpi_hkind_t kind)
{
    loom_mpi_htab_t *t = &loom_mpi_htabs[kind];
    const MPI_Op ops[] = {
        MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
        MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE,
    };
    MPI_Datatype dt;

    loom_mpi_htab_ready[kind] = 1;
    switch (kind) {
    case LOOM_MPI_H_COMM:
        (void)loom_mpi_htab_c2f(t, MPI_COMM_WORLD);
        (void)loom_mpi_htab_c2f(t, MPI_COMM_SELF);
        break;
    case LOOM_MPI_H_TYPE:
        for (size_t i = 0; (dt = loom_mpi_type_predefined(i)) != MPI_DATATYPE_NULL; ++i) {
            (void)loom_mpi_htab_c2f(t, dt);
        }
        break;
    case LOOM_MPI_H_GROUP:
        (void)loom_mpi_htab_c2f(t, MPI_GROUP_EMPTY);  /* no-op while it is NULL */
        break;
    case LOOM_MPI_H_OP:
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i) {
            (void)loom_mpi_htab_c2f(t, ops[i]);
        }
        break;
    case LOOM_MPI_H_INFO:
        (void)loom_mpi_htab_c2f(t, MPI_INFO_ENV);
        break;
    case LOOM_MPI_H_ERRH:
        (void)loom_mpi_htab_c2f(t, MPI_ERRORS_ARE_FATAL);
        (void)loom_mpi_htab_c2f(t, MPI_ERRORS_RETURN);
        break;
    default:
        break;
    }
}

void loom_mpi_handle_forget(loom_mpi_hkind_t kind, const void *ptr)
{
    if (loom_mpi_htab_ready[kind]) {
        loom_mpi_htab_drop(&loom_mpi_htabs[kind], ptr);
    }
}

void loom_mpi_handles_cleanup(void)
{
    for (int k = 0; k < LOOM_MPI_H_KINDS; ++k) {
        loom_mpi_htab_free(&loom_mpi_htabs[k]);
        loom_mpi_htab_ready[k] = 0;
    }
}

static MPI_Fint loom_mpi_c2f(loom_mpi_hkind_t kind, const void *ptr)
{
    if (!loom_mpi_htab_ready[kind]) {
        loom_mpi_htab_predefine(kind);
    }
    return (MPI_Fint)loom_mpi_htab_c2f(&loom_mpi_htabs[kind], ptr);
}

static void *loom_mpi_f2c(loom_mpi_hkind_t kind, MPI_Fint idx)
{
    if (!loom_mpi_htab_ready[kind]) {
        loom_mpi_htab_predefine(kind);
    }
    return (void *)(uintptr_t)loom_mpi_htab_f2c(&loom_mpi_htabs[kind], (int32_t)idx);
}

/*
 * The generated table's rule is a literal `#pragma weak MPI_X = PMPI_X`
 * line before each definition, so the functions are written out in full.
 */
#pragma weak MPI_Comm_c2f = PMPI_Comm_c2f
MPI_Fint PMPI_Comm_c2f(MPI_Comm comm)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_COMM, comm);
}

#pragma weak MPI_Comm_f2c = PMPI_Comm_f2c
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm)
{
    LOOM_MT_GUARD();
    return (MPI_Comm)loom_mpi_f2c(LOOM_MPI_H_COMM, comm);
}

#pragma weak MPI_Type_c2f = PMPI_Type_c2f
MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_TYPE, datatype);
}

#pragma weak MPI_Type_f2c = PMPI_Type_f2c
MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype)
{
    LOOM_MT_GUARD();
    return (MPI_Datatype)loom_mpi_f2c(LOOM_MPI_H_TYPE, datatype);
}

#pragma weak MPI_Group_c2f = PMPI_Group_c2f
MPI_Fint PMPI_Group_c2f(MPI_Group group)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_GROUP, group);
}

#pragma weak MPI_Group_f2c = PMPI_Group_f2c
MPI_Group PMPI_Group_f2c(MPI_Fint group)
{
    LOOM_MT_GUARD();
    return (MPI_Group)loom_mpi_f2c(LOOM_MPI_H_GROUP, group);
}

#pragma weak MPI_Request_c2f = PMPI_Request_c2f
MPI_Fint PMPI_Request_c2f(MPI_Request request)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_REQUEST, request);
}

#pragma weak MPI_Request_f2c = PMPI_Request_f2c
MPI_Request PMPI_Request_f2c(MPI_Fint request)
{
    LOOM_MT_GUARD();
    return (MPI_Request)loom_mpi_f2c(LOOM_MPI_H_REQUEST, request);
}

#pragma weak MPI_Op_c2f = PMPI_Op_c2f
MPI_Fint PMPI_Op_c2f(MPI_Op op)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_OP, op);
}

#pragma weak MPI_Op_f2c = PMPI_Op_f2c
MPI_Op PMPI_Op_f2c(MPI_Fint op)
{
    LOOM_MT_GUARD();
    return (MPI_Op)loom_mpi_f2c(LOOM_MPI_H_OP, op);
}

#pragma weak MPI_Info_c2f = PMPI_Info_c2f
MPI_Fint PMPI_Info_c2f(MPI_Info info)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_INFO, info);
}

#pragma weak MPI_Info_f2c = PMPI_Info_f2c
MPI_Info PMPI_Info_f2c(MPI_Fint info)
{
    LOOM_MT_GUARD();
    return (MPI_Info)loom_mpi_f2c(LOOM_MPI_H_INFO, info);
}

#pragma weak MPI_Win_c2f = PMPI_Win_c2f
MPI_Fint PMPI_Win_c2f(MPI_Win win)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_WIN, win);
}

#pragma weak MPI_Win_f2c = PMPI_Win_f2c
MPI_Win PMPI_Win_f2c(MPI_Fint win)
{
    LOOM_MT_GUARD();
    return (MPI_Win)loom_mpi_f2c(LOOM_MPI_H_WIN, win);
}

#pragma weak MPI_File_c2f = PMPI_File_c2f
MPI_Fint PMPI_File_c2f(MPI_File file)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_FILE, file);
}

#pragma weak MPI_File_f2c = PMPI_File_f2c
MPI_File PMPI_File_f2c(MPI_Fint file)
{
    LOOM_MT_GUARD();
    return (MPI_File)loom_mpi_f2c(LOOM_MPI_H_FILE, file);
}

#pragma weak MPI_Errhandler_c2f = PMPI_Errhandler_c2f
MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_ERRH, errhandler);
}

#pragma weak MPI_Errhandler_f2c = PMPI_Errhandler_f2c
MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler)
{
    LOOM_MT_GUARD();
    return (MPI_Errhandler)loom_mpi_f2c(LOOM_MPI_H_ERRH, errhandler);
}

#pragma weak MPI_Message_c2f = PMPI_Message_c2f
MPI_Fint PMPI_Message_c2f(MPI_Message message)
{
    LOOM_MT_GUARD();
    return loom_mpi_c2f(LOOM_MPI_H_MESSAGE, message);
}

#pragma weak MPI_Message_f2c = PMPI_Message_f2c
MPI_Message PMPI_Message_f2c(MPI_Fint message)
{
    LOOM_MT_GUARD();
    return (MPI_Message)loom_mpi_f2c(LOOM_MPI_H_MESSAGE, message);
}

/* ---- statuses ------------------------------------------------------------------------------ */

_Static_assert(sizeof(MPI_Status) == MPI_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_STATUS_SIZE must be sizeof(MPI_Status) / sizeof(MPI_Fint)");

#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    LOOM_MT_GUARD();
    if (c_status == MPI_STATUS_IGNORE || f_status == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Status_c2f", "%s is NULL",
                              f_status == NULL ? "f_status" : "c_status");
    }
    memcpy(f_status, c_status, sizeof(*c_status));
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    LOOM_MT_GUARD();
    if (c_status == MPI_STATUS_IGNORE || f_status == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Status_f2c", "%s is NULL",
                              f_status == NULL ? "f_status" : "c_status");
    }
    memcpy(c_status, f_status, sizeof(*c_status));
    return MPI_SUCCESS;
}
