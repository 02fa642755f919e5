/*
 * group.c: the set algebra of process groups (see group_int.h for the
 * rules). Membership tests go through a sorted copy of the other group
 * (qsort + bsearch: O((n1 + n2) log n2)), so groups of a large job cost no
 * quadratic scan; a duplicate check uses one byte per rank of the group.
 * Nothing here logs: the MPI binding names the call and the offending value.
 */
#include "group_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int id, rank; } loom_group_entry_t;

static int loom_group_entry_cmp(const void *a, const void *b)
{
    const loom_group_entry_t *x = a, *y = b;

    return (x->id > y->id) - (x->id < y->id);
}

/* Sorted (id, rank) index of g, or NULL when out of memory. */
static loom_group_entry_t *loom_group_index(int n, const int g[])
{
    loom_group_entry_t *e = malloc(((size_t)n + 1) * sizeof(*e));

    if (e == NULL) {
        return NULL;
    }
    for (int i = 0; i < n; ++i) {
        e[i] = (loom_group_entry_t){ g[i], i };
    }
    qsort(e, (size_t)n, sizeof(*e), loom_group_entry_cmp);
    return e;
}

/* Rank in the indexed group of process @p id, or -1. */
static int loom_group_index_find(const loom_group_entry_t *e, int n, int id)
{
    loom_group_entry_t key = { id, 0 };
    const loom_group_entry_t *hit = bsearch(&key, e, (size_t)n, sizeof(*e),
                                            loom_group_entry_cmp);

    return hit != NULL ? hit->rank : -1;
}

loom_status_t loom_group_check_ranks(int size, int n, const int ranks[])
{
    unsigned char *seen;
    loom_status_t st = LOOM_OK;

    if (n < 0 || (n > 0 && ranks == NULL)) {
        return LOOM_ERR_INVALID_ARG;
    }
    if (n > size) {
        return LOOM_ERR_INVALID_RANK;   /* some rank is out of range or repeated */
    }
    seen = calloc((size_t)size + 1, 1);
    if (seen == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n && st == LOOM_OK; ++i) {
        if (ranks[i] < 0 || ranks[i] >= size || seen[ranks[i]]) {
            st = LOOM_ERR_INVALID_RANK;
        } else {
            seen[ranks[i]] = 1;
        }
    }
    free(seen);
    return st;
}

loom_status_t loom_group_incl(int size, const int g[], int n, const int ranks[],
                              int out[])
{
    loom_status_t st = loom_group_check_ranks(size, n, ranks);

    if (st != LOOM_OK) {
        return st;
    }
    for (int i = 0; i < n; ++i) {
        out[i] = g[ranks[i]];
    }
    return LOOM_OK;
}

loom_status_t loom_group_excl(int size, const int g[], int n, const int ranks[],
                              int out[])
{
    unsigned char *drop;
    loom_status_t st = loom_group_check_ranks(size, n, ranks);
    int k = 0;

    if (st != LOOM_OK) {
        return st;
    }
    drop = calloc((size_t)size + 1, 1);
    if (drop == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; ++i) {
        drop[ranks[i]] = 1;
    }
    for (int r = 0; r < size; ++r) {
        if (!drop[r]) {
            out[k++] = g[r];
        }
    }
    free(drop);
    return LOOM_OK;
}

/* Number of ranks triplet @p t names over a group of @p size, or an error. */
static loom_status_t loom_group_triplet_len(int size, const int t[3], long long *len_p)
{
    long long first = t[0], last = t[1], stride = t[2];

    if (first < 0 || first >= size || last < 0 || last >= size) {
        return LOOM_ERR_INVALID_RANK;
    }
    if (stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last)) {
        return LOOM_ERR_INVALID_ARG;    /* the triplet never reaches @p last */
    }
    *len_p = (last - first) / stride + 1;
    return LOOM_OK;
}

loom_status_t loom_group_range_expand(int size, int n, const int ranges[][3], int out[],
                                      int *count_p)
{
    long long total = 0, len;
    loom_status_t st;
    int k = 0;

    if (n < 0 || (n > 0 && ranges == NULL)) {
        return LOOM_ERR_INVALID_ARG;
    }
    for (int i = 0; i < n; ++i) {
        if ((st = loom_group_triplet_len(size, ranges[i], &len)) != LOOM_OK) {
            return st;
        }
        total += len;
        if (total > size) {
            return LOOM_ERR_INVALID_RANK;   /* more ranks than the group: a repeat */
        }
    }
    for (int i = 0; i < n; ++i) {
        (void)loom_group_triplet_len(size, ranges[i], &len);
        for (long long j = 0; j < len; ++j) {
            out[k++] = (int)(ranges[i][0] + j * ranges[i][2]);
        }
    }
    if ((st = loom_group_check_ranks(size, k, out)) != LOOM_OK) {
        return st;
    }
    *count_p = k;
    return LOOM_OK;
}

/* Members of g1 whose presence in g2 is @p keep_present, in g1 order (@p out
 * may be NULL: only count them). */
static loom_status_t loom_group_filter(int n1, const int g1[], int n2, const int g2[],
                                       int keep_present, int out[], int *count_p)
{
    loom_group_entry_t *idx = loom_group_index(n2, g2);
    int k = 0;

    if (idx == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n1; ++i) {
        if ((loom_group_index_find(idx, n2, g1[i]) >= 0) == keep_present) {
            if (out != NULL) {
                out[k] = g1[i];
            }
            ++k;
        }
    }
    free(idx);
    *count_p = k;
    return LOOM_OK;
}

loom_status_t loom_group_union(int n1, const int g1[], int n2, const int g2[], int out[],
                               int *count_p)
{
    int k;
    loom_status_t st = loom_group_filter(n2, g2, n1, g1, 0, out + n1, &k);

    if (st != LOOM_OK) {
        return st;
    }
    if (n1 > 0) {
        memcpy(out, g1, (size_t)n1 * sizeof(int));
    }
    *count_p = n1 + k;
    return LOOM_OK;
}

loom_status_t loom_group_intersection(int n1, const int g1[], int n2, const int g2[],
                                      int out[], int *count_p)
{
    return loom_group_filter(n1, g1, n2, g2, 1, out, count_p);
}

loom_status_t loom_group_difference(int n1, const int g1[], int n2, const int g2[],
                                    int out[], int *count_p)
{
    return loom_group_filter(n1, g1, n2, g2, 0, out, count_p);
}

loom_status_t loom_group_translate(int n1, const int g1[], int n, const int ranks1[],
                                   int n2, const int g2[], int ranks2[])
{
    loom_group_entry_t *idx;

    if (n < 0 || (n > 0 && (ranks1 == NULL || ranks2 == NULL))) {
        return LOOM_ERR_INVALID_ARG;
    }
    for (int i = 0; i < n; ++i) {
        if (ranks1[i] != LOOM_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= n1)) {
            return LOOM_ERR_INVALID_RANK;
        }
    }
    idx = loom_group_index(n2, g2);
    if (idx == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; ++i) {
        int r = ranks1[i] == LOOM_PROC_NULL ? LOOM_PROC_NULL
                : loom_group_index_find(idx, n2, g1[ranks1[i]]);
        ranks2[i] = r == -1 ? LOOM_UNDEFINED : r;
    }
    free(idx);
    return LOOM_OK;
}

int loom_group_compare(int n1, const int g1[], int n2, const int g2[])
{
    int common = 0;

    if (n1 != n2) {
        return LOOM_GROUP_UNEQUAL;
    }
    if (n1 == 0 || memcmp(g1, g2, (size_t)n1 * sizeof(int)) == 0) {
        return LOOM_GROUP_IDENT;
    }
    /* same size, members distinct: similar iff every member of g1 is in g2 */
    if (loom_group_filter(n1, g1, n2, g2, 1, NULL, &common) != LOOM_OK) {
        return LOOM_GROUP_UNEQUAL;
    }
    return common == n1 ? LOOM_GROUP_SIMILAR : LOOM_GROUP_UNEQUAL;
}

int loom_group_rank_of(int n, const int g[], int id)
{
    for (int i = 0; i < n; ++i) {
        if (g[i] == id) {
            return i;
        }
    }
    return LOOM_UNDEFINED;
}
