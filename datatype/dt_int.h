/*
 * dt_int.h: the derived-datatype engine (issue 20), the one header the
 * datatype/ layer exports.
 *
 * A type is a refcounted `loom_dt_t *`. The basic types (the
 * loom_datatype_t enum of loom.h) are predefined objects from
 * loom_dt_basic(); every MPI constructor builds a new object from them.
 * Constructors return a type holding one reference (the caller's) and hold
 * their own references on the types they were built from, so the caller
 * may release an input type right after the call (MPI_Type_free of an
 * input does not affect the new type). loom_dt_release() of a predefined
 * type is a no-op.
 *
 * Before data moves, a type must be committed (loom_dt_commit): that
 * builds the optimised "byte program" (see docs/datatypes.md). Queries
 * work on uncommitted types.
 *
 * Data movement is defined on the packed stream of (buf, count, type): the
 * bytes of the count instances' basic elements in type-map order, instance
 * i at buf + i * extent. Any byte range of that stream can be packed,
 * unpacked or described as an iovec, so a transport can pipeline a large
 * message without a copy of the whole of it.
 *
 * Counts and block lengths are int64_t (negative ones are rejected: the
 * MPI binding passes its int or MPI_Count values through); displacements,
 * strides, bounds and extents are ptrdiff_t (MPI_Aint); sizes are size_t.
 * Every function reports errors by status, logging what was wrong under
 * the "dt" subsystem; outputs are untouched on error.
 */
#ifndef LOOM_DT_INT_H
#define LOOM_DT_INT_H

#include "loom.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

typedef struct loom_dt loom_dt_t;

/** How a type was built (MPI_COMBINER_*), for loom_dt_get_envelope. */
typedef enum loom_dt_combiner {
    LOOM_DT_COMBINER_NAMED = 0,
    LOOM_DT_COMBINER_DUP,
    LOOM_DT_COMBINER_CONTIGUOUS,
    LOOM_DT_COMBINER_VECTOR,
    LOOM_DT_COMBINER_HVECTOR,
    LOOM_DT_COMBINER_INDEXED,
    LOOM_DT_COMBINER_HINDEXED,
    LOOM_DT_COMBINER_INDEXED_BLOCK,
    LOOM_DT_COMBINER_HINDEXED_BLOCK,
    LOOM_DT_COMBINER_STRUCT,
    LOOM_DT_COMBINER_SUBARRAY,
    LOOM_DT_COMBINER_DARRAY,
    LOOM_DT_COMBINER_RESIZED,
} loom_dt_combiner_t;

/** Array order of subarray/darray (MPI_ORDER_C, MPI_ORDER_FORTRAN). */
enum { LOOM_DT_ORDER_C = 0, LOOM_DT_ORDER_FORTRAN = 1 };

/** darray distributions (MPI_DISTRIBUTE_*), and the default argument. */
enum {
    LOOM_DT_DISTRIBUTE_BLOCK = 0,
    LOOM_DT_DISTRIBUTE_CYCLIC = 1,
    LOOM_DT_DISTRIBUTE_NONE = 2,
};
#define LOOM_DT_DISTRIBUTE_DFLT_DARG (-49767)

/* ---- basic types and lifetime ------------------------------------------ */

/** @brief The predefined type of basic type @p basic; NULL if invalid. Never freed. */
loom_dt_t *loom_dt_basic(loom_datatype_t basic);

/*
 * The value+index pairs whose C struct pads its two members
 * (LOOM_DOUBLE_INT: 12 bytes of data in a 16-byte struct; _LONG_INT,
 * _SHORT_INT, _LONG_DOUBLE_INT): their packed stream (size) is shorter
 * than their C struct (extent, loom_datatype_size), so n of them in C
 * layout are not their packed data. dt_basic.c checks the set against the
 * C structs at compile time. One mask, for the MPI binding's inline checks
 * and the one-sided layer alike.
 */
#define LOOM_DT_PADDED_PAIRS                                                                \
    ((1u << LOOM_DOUBLE_INT) | (1u << LOOM_LONG_INT) | (1u << LOOM_SHORT_INT) |            \
     (1u << LOOM_LONG_DOUBLE_INT))

/** @brief 1 if basic type @p b is a value+index pair with C padding (LOOM_DT_PADDED_PAIRS). */
static inline int loom_dt_basic_padded(loom_datatype_t b)
{
    return (unsigned)b < 32 && ((LOOM_DT_PADDED_PAIRS >> (unsigned)b) & 1u);
}

/**
 * @brief The predefined type of C long (@p is_unsigned 0) or unsigned long
 * (1): natively the loom integer of sizeof(long) bytes (loom_dt_basic_of
 * says which), but 4 bytes in external32 as MPI-3.1 Table 13.2 has it for
 * MPI_LONG and MPI_UNSIGNED_LONG; packing a value that does not fit 32 bits
 * is refused (LOOM_ERR_INVALID_ARG, nothing written). Never freed.
 */
loom_dt_t *loom_dt_basic_c_long(int is_unsigned);

/** @brief Take one more reference on @p dt (no-op for predefined types). */
void loom_dt_retain(loom_dt_t *dt);

/**
 * @brief Drop one reference; the last one frees @p dt and drops its
 * references on its input types. NULL and predefined types: no-op.
 */
void loom_dt_release(loom_dt_t *dt);

/**
 * @brief Build the optimised byte program (idempotent; predefined types
 * are always committed). Required before pack/unpack/iov/external32.
 */
loom_status_t loom_dt_commit(loom_dt_t *dt);

/** @brief 1 if @p dt is committed. */
int loom_dt_is_committed(const loom_dt_t *dt);

/*
 * ---- constructors: *newtype receives one reference, the caller's; the
 * new type holds its own references on its inputs. Errors: a NULL input
 * type or types[k] -> LOOM_ERR_INVALID_TYPE; a negative count or block
 * length, or a size past SIZE_MAX -> LOOM_ERR_INVALID_COUNT; NULL arrays,
 * bounds past PTRDIFF_MAX, bad subarray/darray arguments ->
 * LOOM_ERR_INVALID_ARG; *newtype is untouched on error.
 */

/** @brief MPI_Type_dup: same type map, a new object (committed if @p old is). */
loom_status_t loom_dt_create_dup(loom_dt_t *old, loom_dt_t **newtype);
/** @brief @p count copies of @p old, one extent apart (MPI_Type_contiguous). */
loom_status_t loom_dt_create_contiguous(int64_t count, loom_dt_t *old, loom_dt_t **newtype);
/** @brief @p stride in elements of @p old's extent (MPI_Type_vector). */
loom_status_t loom_dt_create_vector(int64_t count, int64_t blocklen, int64_t stride,
                                    loom_dt_t *old, loom_dt_t **newtype);
/** @brief @p stride in bytes (MPI_Type_create_hvector). */
loom_status_t loom_dt_create_hvector(int64_t count, int64_t blocklen, ptrdiff_t stride,
                                     loom_dt_t *old, loom_dt_t **newtype);
/** @brief @p displs in multiples of @p old's extent. */
loom_status_t loom_dt_create_indexed(int64_t count, const int64_t blocklens[],
                                     const int64_t displs[], loom_dt_t *old,
                                     loom_dt_t **newtype);
/** @brief @p displs in bytes. */
loom_status_t loom_dt_create_hindexed(int64_t count, const int64_t blocklens[],
                                      const ptrdiff_t displs[], loom_dt_t *old,
                                      loom_dt_t **newtype);
/** @brief Blocks of @p blocklen at @p displs in multiples of @p old's extent. */
loom_status_t loom_dt_create_indexed_block(int64_t count, int64_t blocklen,
                                           const int64_t displs[], loom_dt_t *old,
                                           loom_dt_t **newtype);
/** @brief Blocks of @p blocklen at byte @p displs. */
loom_status_t loom_dt_create_hindexed_block(int64_t count, int64_t blocklen,
                                            const ptrdiff_t displs[], loom_dt_t *old,
                                            loom_dt_t **newtype);
/**
 * @brief MPI_Type_create_struct. Its extent is rounded up to the largest
 * alignment of the basic types in it (MPICH/Open MPI on x86-64), unless an
 * input carries an explicit upper bound (a resized type).
 */
loom_status_t loom_dt_create_struct(int64_t count, const int64_t blocklens[],
                                    const ptrdiff_t displs[], loom_dt_t *const types[],
                                    loom_dt_t **newtype);
/** @brief New lb and extent (explicit bound markers, MPI-3.1 4.1.7). */
loom_status_t loom_dt_create_resized(loom_dt_t *old, ptrdiff_t lb, ptrdiff_t extent,
                                     loom_dt_t **newtype);
/** @brief MPI_Type_create_subarray; @p order is LOOM_DT_ORDER_C or _FORTRAN. */
loom_status_t loom_dt_create_subarray(int ndims, const int64_t sizes[],
                                      const int64_t subsizes[], const int64_t starts[],
                                      int order, loom_dt_t *old, loom_dt_t **newtype);
/** @brief MPI_Type_create_darray (process grid in row-major order). */
loom_status_t loom_dt_create_darray(int size, int rank, int ndims, const int64_t gsizes[],
                                    const int distribs[], const int64_t dargs[],
                                    const int psizes[], int order, loom_dt_t *old,
                                    loom_dt_t **newtype);

/* ---- introspection ------------------------------------------------------- */

/** @brief Bytes of data in one instance (MPI_Type_size). */
size_t loom_dt_size(const loom_dt_t *dt);
/** @brief lb and extent (MPI_Type_get_extent); either pointer may be NULL. */
void loom_dt_get_extent(const loom_dt_t *dt, ptrdiff_t *lb, ptrdiff_t *extent);
/** @brief True lb and extent, ignoring markers and padding (MPI_Type_get_true_extent). */
void loom_dt_get_true_extent(const loom_dt_t *dt, ptrdiff_t *true_lb, ptrdiff_t *true_extent);
/** @brief Number of basic elements in one instance. */
size_t loom_dt_num_elements(const loom_dt_t *dt);

/**
 * @brief 1 if (count, dt) of a committed @p dt is the single contiguous
 * byte range [buf + true_lb, + count * size): the caller may memcpy.
 */
int loom_dt_is_contig(const loom_dt_t *dt, size_t count);

/**
 * @brief MPI_Type_get_envelope: counts of the integers, addresses and
 * types that loom_dt_get_contents returns, and the combiner.
 */
void loom_dt_get_envelope(const loom_dt_t *dt, int *num_ints, int *num_addrs,
                          int *num_types, loom_dt_combiner_t *combiner);

/**
 * @brief MPI_Type_get_contents in MPI's order for each combiner (e.g.
 * VECTOR: ints {count, blocklen, stride}, types {old}; SUBARRAY: ints
 * {ndims, sizes[], subsizes[], starts[], order}). Arrays must hold at least
 * the envelope's counts (max_* are checked: LOOM_ERR_INVALID_ARG if short).
 * Each returned type carries a new reference the caller releases (none for
 * predefined types, as MPI). NAMED types have no contents:
 * LOOM_ERR_INVALID_TYPE.
 */
loom_status_t loom_dt_get_contents(const loom_dt_t *dt, int max_ints, int max_addrs,
                                   int max_types, int64_t ints[], ptrdiff_t addrs[],
                                   loom_dt_t *types[]);

/** @brief The basic type of a predefined type, else -1. */
int loom_dt_basic_of(const loom_dt_t *dt);

/**
 * @brief MPI_Get_elements: the number of basic elements in the first
 * @p nbytes of the packed stream of (count, dt) (count unbounded: nbytes
 * may exceed one instance). *elements = LOOM_UNDEFINED if @p nbytes ends
 * inside a basic element.
 */
loom_status_t loom_dt_get_elements(const loom_dt_t *dt, size_t nbytes, int64_t *elements);

/* ---- packing: the native packed stream ----------------------------------- */

/** @brief Bytes of the packed stream of (count, dt); overflow: LOOM_ERR_INVALID_COUNT. */
loom_status_t loom_dt_pack_size(size_t count, const loom_dt_t *dt, size_t *size);

/**
 * @brief Copy bytes [offset, offset + len) of the packed stream of
 * (inbuf, count, dt) into @p outbuf (which receives exactly len bytes).
 * The range must lie inside the stream (LOOM_ERR_TRUNCATED otherwise).
 */
loom_status_t loom_dt_pack_range(const void *inbuf, size_t count, const loom_dt_t *dt,
                                 size_t offset, size_t len, void *outbuf);
/** @brief The inverse: scatter @p len bytes of @p inbuf to stream bytes [offset, +len). */
loom_status_t loom_dt_unpack_range(void *outbuf, size_t count, const loom_dt_t *dt,
                                   size_t offset, size_t len, const void *inbuf);

/**
 * @brief 1 when every stream byte of (buf, count, @p a) lies at the same
 * place as that of (buf, count, @p b) for every buf and count (the same
 * committed byte program: two handles of one vector, say), else 0.
 */
int loom_dt_same_layout(const loom_dt_t *a, const loom_dt_t *b);

/**
 * @brief Copy the memory behind stream bytes [offset, offset + len) of
 * (inbuf, count, dt) to the same places of (outbuf, count, dt): one pass,
 * no packed stream (the two layouts must not overlap).
 */
loom_status_t loom_dt_move_range(void *outbuf, const void *inbuf, size_t count,
                                 const loom_dt_t *dt, size_t offset, size_t len);

/**
 * @brief The memory pieces holding stream bytes [offset, offset + *bytes):
 * at most @p max_iov pieces (adjacent ones merged) and at most
 * @p max_bytes bytes. Out: *n_iov pieces, *bytes covered (stops early when
 * the pieces run out, so the next call starts at offset + *bytes).
 */
loom_status_t loom_dt_iov(const void *buf, size_t count, const loom_dt_t *dt,
                          size_t offset, size_t max_bytes, struct iovec *iov,
                          size_t max_iov, size_t *n_iov, size_t *bytes);

/**
 * @brief Move the position (*idx, *off: piece, bytes into it) in the @p n
 * pieces @p iov past @p bytes bytes. LOOM_ERR_TRUNCATED if the pieces end
 * first (the position is then their end).
 */
loom_status_t loom_dt_iov_skip(const struct iovec *iov, size_t n, size_t *idx, size_t *off,
                               size_t bytes);

/**
 * @brief The smallest range holding every non-empty piece of @p iov:
 * [*lo_p, *lo_p + *len_p) (0, 0 for none). LOOM_ERR_INVALID_ARG if a
 * piece wraps the address space.
 */
loom_status_t loom_dt_iov_span(const struct iovec *iov, size_t n, uintptr_t *lo_p,
                               size_t *len_p);

/**
 * A resumable position in the packed stream of (buf, count, dt). The
 * cursor holds a reference on dt (released by loom_dt_cursor_fini, once
 * per init; loom_dt_cursor_borrow takes none, for a cursor that lives
 * only while its caller holds the type); buf stays the caller's. Each call seeks from the position in
 * O(depth x log blocks), so pos is the whole state: save it and seek()
 * back to retransmit, or forward to skip; pack, unpack and iov calls may
 * alternate. A cursor is not shared between threads; the type may be.
 */
typedef struct loom_dt_cursor {
    loom_dt_t *dt;
    char      *buf;
    size_t     count;
    size_t     pos;     /**< next stream byte */
    size_t     total;   /**< count * size */
    int        held;    /**< 1: holds a reference on dt */
} loom_dt_cursor_t;

/** @brief Start at stream byte 0; @p dt must be committed. */
loom_status_t loom_dt_cursor_init(loom_dt_cursor_t *cur, const void *buf, size_t count,
                                  loom_dt_t *dt);
/**
 * @brief As loom_dt_cursor_init without taking a reference: for a cursor
 * used only inside a call that holds the type anyway (an eager send packs
 * its frame before it returns), so it pays no atomic pair per message.
 */
loom_status_t loom_dt_cursor_borrow(loom_dt_cursor_t *cur, const void *buf, size_t count,
                                    loom_dt_t *dt);
/** @brief Release the cursor's reference on its type (none if borrowed). */
void loom_dt_cursor_fini(loom_dt_cursor_t *cur);
/** @brief Move to stream byte @p pos (<= total). */
loom_status_t loom_dt_cursor_seek(loom_dt_cursor_t *cur, size_t pos);
/** @brief Pack up to @p max bytes into @p dst; *len = bytes packed (0 at the end). */
loom_status_t loom_dt_cursor_pack(loom_dt_cursor_t *cur, void *dst, size_t max, size_t *len);
/** @brief Unpack @p len bytes of @p src at the position (TRUNCATED past the end). */
loom_status_t loom_dt_cursor_unpack(loom_dt_cursor_t *cur, const void *src, size_t len);
/** @brief Next pieces from the position (see loom_dt_iov), advancing by *bytes. */
loom_status_t loom_dt_cursor_iov(loom_dt_cursor_t *cur, size_t max_bytes, struct iovec *iov,
                                 size_t max_iov, size_t *n_iov, size_t *bytes);

/* ---- external32 (MPI-3.1 13.5.2) ----------------------------------------- */

/** @brief Size of (count, dt) in external32 (MPI_Pack_external_size). */
loom_status_t loom_dt_external32_size(size_t count, const loom_dt_t *dt, size_t *size);

/**
 * @brief MPI_Pack_external: (inbuf, count, dt) in big-endian external32
 * at outbuf + *position, advancing *position. LOOM_ERR_TRUNCATED if
 * @p outsize is too small (nothing written).
 */
loom_status_t loom_dt_pack_external32(const void *inbuf, size_t count, const loom_dt_t *dt,
                                      void *outbuf, size_t outsize, size_t *position);
/** @brief MPI_Unpack_external: the inverse, reading inbuf + *position. */
loom_status_t loom_dt_unpack_external32(const void *inbuf, size_t insize, size_t *position,
                                        void *outbuf, size_t count, const loom_dt_t *dt);

#endif /* LOOM_DT_INT_H */
