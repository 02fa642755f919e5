/*
 * dt_node.c: the typed nodes' lifetime and the prefix sums of an indexed or
 * struct node, below both the constructors (dt_construct.c, dt_array.c)
 * that build nodes and the commit (dt_commit.c) that rewrites them, so
 * neither calls into the other for them (the datatype files form a stack:
 * test/base/test_file_stacks.sh).
 */
#include "dt_priv.h"

#include <stdlib.h>

dt_node_t *dt_node_new(dt_kind_t kind, size_t count)
{
    dt_node_t *n = calloc(1, sizeof(*n));

    if (n == NULL) {
        return NULL;
    }
    n->kind = kind;
    n->basic = -1;
    n->count = count;
    if (kind == DT_IDX || kind == DT_STRUCT) {
        n->blens = malloc(sizeof(*n->blens) * (count + 1));
        n->displs = malloc(sizeof(*n->displs) * (count + 1));
        n->prefix = malloc(sizeof(*n->prefix) * (count + 1));
        n->kids = kind == DT_STRUCT ? malloc(sizeof(*n->kids) * (count + 1)) : NULL;
        if (n->blens == NULL || n->displs == NULL || n->prefix == NULL ||
            (kind == DT_STRUCT && n->kids == NULL)) {
            dt_node_free(n);
            return NULL;
        }
    }
    return n;
}

void dt_node_free(dt_node_t *n)
{
    if (n == NULL) {
        return;
    }
    free(n->blens);
    free(n->displs);
    free(n->prefix);
    free(n->kids);
    free(n);
}

void dt_node_free_tree(dt_node_t *n)
{
    if (n == NULL || (n->kind == DT_LEAF && n->basic >= 0)) {
        return; /* NULL, or a predefined leaf */
    }
    if (n->kind == DT_STRUCT) {
        for (size_t k = 0; k < n->count; ++k) {
            dt_node_free_tree(n->kids[k]);
        }
    } else if (n->kind != DT_LEAF) {
        dt_node_free_tree(n->child);
    }
    dt_node_free(n);
}

bool dt_node_finish_idx(dt_node_t *n)
{
    size_t sz = 0, ne = 0;

    for (size_t k = 0; k < n->count; ++k) {
        const dt_node_t *c = n->kind == DT_STRUCT ? n->kids[k] : n->child;
        size_t bs, be;

        n->prefix[k] = sz;
        if (__builtin_mul_overflow(n->blens[k], c->size, &bs) ||
            __builtin_add_overflow(sz, bs, &sz) ||
            __builtin_mul_overflow(n->blens[k], c->nelems, &be) ||
            __builtin_add_overflow(ne, be, &ne)) {
            return false;
        }
    }
    n->prefix[n->count] = sz;
    n->size = sz;
    n->nelems = ne;
    return true;
}
