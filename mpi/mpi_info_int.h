/*
 * mpi_info_int.h: info objects (MPI-3.1 chapter 9) and the pure key/value
 * store under them.
 *
 * Design. An info is an ordered list of (key, value) strings: MPI numbers
 * keys for MPI_Info_get_nthkey, and the natural, stable numbering is the
 * order of first setting (setting a key again replaces its value in
 * place; deleting shifts the later keys down). Infos hold a handful of
 * hints, so a linear search over a small array beats a hash table, and the
 * store is plain C with no MPI in it (test/mpi/test_mpi_info_store.c tests
 * it alone). The MPI layer (mpi_info.c) adds the handle, MPI's limits and
 * error classes, and the predefined MPI_INFO_ENV, filled on first use.
 */
#ifndef LOOM_MPI_INFO_INT_H
#define LOOM_MPI_INFO_INT_H

#include "mpi_int.h"

#include <stddef.h>

#pragma GCC visibility push(hidden)

#define LOOM_MPI_INFO_MAGIC 0x6d696e66u  /* "minf" */

typedef struct loom_mpi_kv {
    char *key;
    char *value;
} loom_mpi_kv_t;

/** An ordered string -> string map; zero-initialized is empty. */
typedef struct loom_mpi_kvstore {
    loom_mpi_kv_t *items;
    size_t         n;
    size_t         cap;
} loom_mpi_kvstore_t;

struct loom_mpi_info {
    uint32_t           magic;
    int                predefined;  /* MPI_INFO_ENV: never freed, read-only */
    int                filled;      /* MPI_INFO_ENV: keys computed */
    loom_mpi_kvstore_t store;
};

/** Set @p key to @p value (copied); 0, or -1 if out of memory (store unchanged). */
int loom_mpi_kvstore_set(loom_mpi_kvstore_t *s, const char *key, const char *value);

/** The value of @p key, or NULL. */
const char *loom_mpi_kvstore_get(const loom_mpi_kvstore_t *s, const char *key);

/** Remove @p key; 1 if it was there, 0 if not. */
int loom_mpi_kvstore_delete(loom_mpi_kvstore_t *s, const char *key);

/** The @p n-th key (0-based, order of first setting), or NULL if n >= count. */
const char *loom_mpi_kvstore_nthkey(const loom_mpi_kvstore_t *s, size_t n);

/** Copy every pair of @p src into @p dst (set semantics); 0 or -1 (no memory). */
int loom_mpi_kvstore_merge(loom_mpi_kvstore_t *dst, const loom_mpi_kvstore_t *src);

/** Free every pair; the store is empty (and reusable) afterwards. */
void loom_mpi_kvstore_clear(loom_mpi_kvstore_t *s);

#pragma GCC visibility pop

#endif /* LOOM_MPI_INFO_INT_H */
