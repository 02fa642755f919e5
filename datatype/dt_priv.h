/*
 * dt_priv.h: the datatype layer's own definitions (not exported).
 *
 * A type has two trees of dt_node_t:
 *   - the typed tree (tnode), built by the constructors: leaves are single
 *     basic elements, so it knows element counts (get_elements) and types
 *     (external32). A derived type's tnode points at its inputs' tnodes
 *     (kept alive by the references the type holds on its inputs).
 *   - the byte program (bnode), built by loom_dt_commit from the typed
 *     tree: leaves are untyped contiguous byte runs, adjacent blocks merged,
 *     contiguous runs collapsed (dt_commit.c). Owned wholly by the type.
 * Both are walked by the same range walker (dt_walk.c).
 *
 * Node kinds (one instance of a node = the bytes its walk visits, in
 * order; `size` packed bytes; instances of a node in an array are
 * `extent` bytes apart):
 *   LEAF    `size` contiguous bytes (typed tree: one element of `basic`)
 *   VEC     `count` blocks of `blocklen` child instances, block k at k*stride
 *   IDX     `count` blocks of blens[k] child instances at displs[k]
 *   STRUCT  as IDX with a child per block (kids[k])
 * IDX and STRUCT keep prefix[k] = packed bytes before block k (count + 1
 * entries) for the binary search that seeks into them.
 */
#ifndef LOOM_DT_PRIV_H
#define LOOM_DT_PRIV_H

#include "dt_int.h"
#include "log_int.h"

#include <stdbool.h>

typedef enum dt_kind { DT_LEAF, DT_VEC, DT_IDX, DT_STRUCT } dt_kind_t;

typedef struct dt_node dt_node_t;
struct dt_node {
    dt_kind_t  kind;
    int        basic;     /* LEAF of the typed tree: its loom_datatype_t; -1 in bytes */
    size_t     size;      /* packed bytes of one instance */
    ptrdiff_t  extent;    /* distance between instances in an array */
    size_t     nelems;    /* basic elements in one instance */
    size_t     count;     /* VEC/IDX/STRUCT: blocks */
    size_t     blocklen;  /* VEC: child instances per block */
    ptrdiff_t  stride;    /* VEC: bytes between blocks */
    size_t    *blens;     /* IDX/STRUCT */
    ptrdiff_t *displs;    /* IDX/STRUCT */
    size_t    *prefix;    /* IDX/STRUCT: count + 1 packed-byte offsets */
    dt_node_t *child;     /* VEC/IDX */
    dt_node_t **kids;     /* STRUCT */
};

struct loom_dt {
    int                refs;        /* atomic; unused for predefined */
    bool               predefined;
    bool               committed;
    bool               has_lb_mark; /* explicit bounds (resized), sticky */
    bool               has_ub_mark;
    loom_dt_combiner_t combiner;
    size_t             size;
    size_t             nelems;
    size_t             align;       /* largest alignment of its basic types */
    ptrdiff_t          lb, ub, true_lb, true_ub;
    dt_node_t         *tnode;       /* typed tree (owned unless predefined or `impl`) */
    dt_node_t         *bnode;       /* byte program after commit (owned unless predefined) */
    loom_dt_t         *impl;        /* subarray/darray: the type built for them, whose tnode is ours */
    int                n_ints, n_addrs, n_types;
    int64_t           *ints;        /* contents */
    ptrdiff_t         *addrs;
    loom_dt_t        **types;       /* one reference each (none for predefined) */
};

/* dt_basic.c: the engine's basic types are loom_datatype_t's plus C long
 * and unsigned long, which are 4 bytes in external32 (MPI-3.1 Table 13.2)
 * whatever their native size (loom_dt_basic_c_long) */
enum { DT_BASIC_C_LONG = LOOM_DATATYPE_COUNT, DT_BASIC_C_ULONG, DT_BASIC_COUNT };
size_t dt_basic_align(int basic);
size_t dt_basic_ext32_size(int basic);

/* dt_construct.c: a new derived object with the given contents (copied);
 * takes references on types[] */
loom_dt_t *dt_alloc(loom_dt_combiner_t comb, int n_ints, const int64_t *ints, int n_addrs,
                    const ptrdiff_t *addrs, int n_types, loom_dt_t *const *types);
/* make dt (fresh from dt_alloc) a renamed copy of inner, holding a reference on it */
loom_status_t dt_wrap(loom_dt_t *dt, loom_dt_t *inner, loom_dt_t **newtype);
/* placement bounds: blocks of blens[k] instances of types[k] at displs[k] */
loom_status_t dt_set_bounds(loom_dt_t *dt, size_t count, const size_t *blens,
                            const ptrdiff_t *displs, loom_dt_t *const *types, bool is_struct);
/* a node of `count` (blens, displs, kids) blocks; NULL on no memory */
dt_node_t *dt_node_new(dt_kind_t kind, size_t count);
void dt_node_free(dt_node_t *n);
void dt_node_free_tree(dt_node_t *n);
/* prefix[] from blens and the children's sizes; false on size overflow */
bool dt_node_finish_idx(dt_node_t *n);

/* dt_commit.c */
dt_node_t *dt_normalize(const dt_node_t *t, loom_status_t *st);

/* dt_walk.c: the range walker */
enum { DT_OP_PACK, DT_OP_UNPACK, DT_OP_MOVE, DT_OP_IOV, DT_OP_FN };
typedef int (*dt_leaf_fn_t)(void *ctx, char *addr, size_t len, const dt_node_t *leaf);
typedef struct dt_walk {
    int           op;
    char         *stream;    /* PACK: destination; UNPACK: source; advances */
    ptrdiff_t     shift;     /* MOVE: each piece goes to its address + shift */
    struct iovec *iov;       /* IOV */
    size_t        iov_max, iov_n;
    size_t        done;      /* stream bytes handled so far */
    dt_leaf_fn_t  fn;        /* FN */
    void         *ctx;
} dt_walk_t;
/* walk stream bytes [off, off + len) of count instances of n at base;
 * returns 1 if stopped early (IOV full; w->done says how far) */
int dt_walk_array(dt_walk_t *w, const dt_node_t *n, char *base, size_t off, size_t len);

/* checks shared by the movement entry points */
loom_status_t dt_check_committed(const loom_dt_t *dt, const char *op);
loom_status_t dt_stream_size(size_t count, const loom_dt_t *dt, const char *op, size_t *total);

/* log under "dt" and yield the status (a GNU statement expression, as gcc and clang take) */
#define DT_ERR(st, ...) __extension__({ loom_error("dt", __VA_ARGS__); (st); })

#endif /* LOOM_DT_PRIV_H */
