/*
 * dt_query.c: introspection: size, bounds, envelope and contents (the
 * constructor's arguments, kept verbatim by dt_alloc), the contiguity
 * test for the p2p fast path, the same-layout test of two types (a typed
 * message to this process moved in one pass), and MPI_Get_elements, which seeks into the
 * typed tree (its leaves are single basic elements) with the same prefix
 * arithmetic as the walker, so it costs O(depth x blocks), not O(bytes).
 */
#include "dt_priv.h"

#include <string.h>

size_t loom_dt_size(const loom_dt_t *dt)
{
    return dt->size;
}

void loom_dt_get_extent(const loom_dt_t *dt, ptrdiff_t *lb, ptrdiff_t *extent)
{
    if (lb != NULL) {
        *lb = dt->lb;
    }
    if (extent != NULL) {
        *extent = dt->ub - dt->lb;
    }
}

void loom_dt_get_true_extent(const loom_dt_t *dt, ptrdiff_t *true_lb, ptrdiff_t *true_extent)
{
    if (true_lb != NULL) {
        *true_lb = dt->true_lb;
    }
    if (true_extent != NULL) {
        *true_extent = dt->true_ub - dt->true_lb;
    }
}

size_t loom_dt_num_elements(const loom_dt_t *dt)
{
    return dt->nelems;
}

int loom_dt_is_contig(const loom_dt_t *dt, size_t count)
{
    const dt_node_t *b = dt != NULL && dt->committed ? dt->bnode : NULL;

    if (b == NULL) {
        return 0;
    }
    if (b->kind == DT_IDX && b->count == 1 &&
        b->child->kind == DT_LEAF && b->child->extent == (ptrdiff_t)b->child->size) {
        /* one run at a displacement: blens[0] runs of the child back to back
         * (a subarray of one row is one block of bytes past 0) */
    } else if (b->kind != DT_LEAF) {
        return 0;
    }
    return count <= 1 || b->extent == (ptrdiff_t)b->size;
}

/* two byte programs visit the same bytes in the same order */
static bool node_same(const dt_node_t *a, const dt_node_t *b)
{
    if (a == b) {
        return true;
    }
    if (a->kind != b->kind || a->size != b->size || a->extent != b->extent ||
        a->count != b->count) {
        return false;
    }
    switch (a->kind) {
    case DT_LEAF:
        return true;
    case DT_VEC:
        return a->blocklen == b->blocklen && a->stride == b->stride &&
               node_same(a->child, b->child);
    default:
        if (memcmp(a->blens, b->blens, a->count * sizeof(*a->blens)) != 0 ||
            memcmp(a->displs, b->displs, a->count * sizeof(*a->displs)) != 0) {
            return false;
        }
        if (a->kind == DT_IDX) {
            return node_same(a->child, b->child);
        }
        for (size_t k = 0; k < a->count; ++k) {
            if (!node_same(a->kids[k], b->kids[k])) {
                return false;
            }
        }
        return true;
    }
}

int loom_dt_same_layout(const loom_dt_t *a, const loom_dt_t *b)
{
    if (a == b) {
        return 1;
    }
    return a != NULL && b != NULL && a->committed && b->committed && node_same(a->bnode, b->bnode);
}

void loom_dt_get_envelope(const loom_dt_t *dt, int *num_ints, int *num_addrs,
                          int *num_types, loom_dt_combiner_t *combiner)
{
    *num_ints = dt->predefined ? 0 : dt->n_ints;
    *num_addrs = dt->predefined ? 0 : dt->n_addrs;
    *num_types = dt->predefined ? 0 : dt->n_types;
    *combiner = dt->combiner;
}

loom_status_t loom_dt_get_contents(const loom_dt_t *dt, int max_ints, int max_addrs,
                                   int max_types, int64_t ints[], ptrdiff_t addrs[],
                                   loom_dt_t *types[])
{
    static const char op[] = "loom_dt_get_contents";

    if (dt == NULL || dt->predefined) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: a %s type has no contents", op,
                      dt == NULL ? "NULL" : "predefined");
    }
    if (max_ints < dt->n_ints || max_addrs < dt->n_addrs || max_types < dt->n_types) {
        return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: arrays of %d ints, %d addresses, %d types "
                      "are shorter than the envelope's %d, %d, %d", op, max_ints, max_addrs,
                      max_types, dt->n_ints, dt->n_addrs, dt->n_types);
    }
    if (dt->n_ints > 0) {
        memcpy(ints, dt->ints, sizeof(*ints) * (size_t)dt->n_ints);
    }
    if (dt->n_addrs > 0) {
        memcpy(addrs, dt->addrs, sizeof(*addrs) * (size_t)dt->n_addrs);
    }
    for (int i = 0; i < dt->n_types; ++i) {
        types[i] = dt->types[i];
        loom_dt_retain(types[i]);
    }
    return LOOM_OK;
}

static int64_t elems_in(const dt_node_t *n, size_t nb);

/* elements in the first nb bytes of an array of c; -1 inside an element */
static int64_t elems_arr(const dt_node_t *c, size_t nb)
{
    int64_t e;

    if (nb == 0 || c->size == 0) {
        return 0;
    }
    e = elems_in(c, nb % c->size);
    return e < 0 ? -1 : (int64_t)(nb / c->size * c->nelems) + e;
}

/* elements in the first nb (< size) bytes of one instance of n */
static int64_t elems_in(const dt_node_t *n, size_t nb)
{
    int64_t e = 0, r;
    size_t k, bs;

    if (nb == 0) {
        return 0;
    }
    switch (n->kind) {
    case DT_LEAF:
        return -1;
    case DT_VEC:
        bs = n->blocklen * n->child->size;
        r = elems_arr(n->child, nb % bs);
        return r < 0 ? -1 : (int64_t)(nb / bs * n->blocklen * n->child->nelems) + r;
    default:
        for (k = 0; n->prefix[k + 1] <= nb; ++k) {
            e += (int64_t)(n->blens[k] * (n->kind == DT_STRUCT ? n->kids[k] : n->child)->nelems);
        }
        r = elems_arr(n->kind == DT_STRUCT ? n->kids[k] : n->child, nb - n->prefix[k]);
        return r < 0 ? -1 : e + r;
    }
}

loom_status_t loom_dt_get_elements(const loom_dt_t *dt, size_t nbytes, int64_t *elements)
{
    int64_t e;

    if (dt == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "loom_dt_get_elements: the type is NULL");
    }
    if (dt->size == 0) {
        *elements = 0;
        return LOOM_OK;
    }
    e = elems_in(dt->tnode, nbytes % dt->size);
    *elements = e < 0 ? LOOM_UNDEFINED : (int64_t)(nbytes / dt->size * dt->nelems) + e;
    return LOOM_OK;
}
