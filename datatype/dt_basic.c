/*
 * dt_basic.c: the predefined types, one per loom_datatype_t: their sizes,
 * alignments (what rounds a struct's extent) and external32 sizes, plus
 * C long and unsigned long (loom_dt_basic_c_long): the same bytes as the
 * loom integer of their size, but 4 bytes in external32 (MPI-3.1 Table
 * 13.2, as MPICH has it), so MPI_LONG keeps the standard's portable size;
 * the LONG_INT pair's value is such a long.
 *
 * A plain basic type is a single typed LEAF (one element). The MINLOC/
 * MAXLOC pairs are two elements (value, index) in their C layout: a STRUCT
 * of two leaves, so MPI_Type_size(MPI_DOUBLE_INT) is 12 while its extent is
 * 16, get_elements counts 2 per pair (as MPICH and Open MPI do), and
 * external32 packs them without the C padding. The objects are built once
 * (pthread_once) and never freed.
 */
#include "dt_priv.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct basic_info {
    size_t size, align, ext32;
} basic_info_t;

#define BI(t, e) { sizeof(t), _Alignof(t), e }
static const basic_info_t basic_info[DT_BASIC_COUNT] = {
    [LOOM_BYTE]   = BI(unsigned char, 1), [LOOM_INT8]   = BI(int8_t, 1),
    [LOOM_INT16]  = BI(int16_t, 2),       [LOOM_INT32]  = BI(int32_t, 4),
    [LOOM_INT64]  = BI(int64_t, 8),       [LOOM_UINT8]  = BI(uint8_t, 1),
    [LOOM_UINT16] = BI(uint16_t, 2),      [LOOM_UINT32] = BI(uint32_t, 4),
    [LOOM_UINT64] = BI(uint64_t, 8),      [LOOM_FLOAT]  = BI(float, 4),
    [LOOM_DOUBLE] = BI(double, 8),        [LOOM_LONG_DOUBLE] = BI(long double, 16),
    [LOOM_FLOAT_COMPLEX]       = BI(float _Complex, 8),
    [LOOM_DOUBLE_COMPLEX]      = BI(double _Complex, 16),
    [LOOM_LONG_DOUBLE_COMPLEX] = BI(long double _Complex, 32),
    [LOOM_BOOL] = BI(_Bool, 1),
    [DT_BASIC_C_LONG] = BI(long, 4), [DT_BASIC_C_ULONG] = BI(unsigned long, 4),
};

/* the pairs: value type, index type, C struct for offsets */
struct p_fi { float v; int i; };
struct p_di { double v; int i; };
struct p_li { long v; int i; };
struct p_ii { int v; int i; };
struct p_si { short v; int i; };
struct p_ldi { long double v; int i; };

/* LOOM_DT_PADDED_PAIRS (dt_int.h) names exactly the pairs whose struct pads */
#define PADDED_OK(b, s, vt)                                                                 \
    _Static_assert((sizeof(struct s) != sizeof(vt) + sizeof(int)) ==                      \
                   ((LOOM_DT_PADDED_PAIRS >> (b)) & 1u), #b " and LOOM_DT_PADDED_PAIRS disagree")
PADDED_OK(LOOM_FLOAT_INT, p_fi, float);
PADDED_OK(LOOM_DOUBLE_INT, p_di, double);
PADDED_OK(LOOM_LONG_INT, p_li, long);
PADDED_OK(LOOM_2INT, p_ii, int);
PADDED_OK(LOOM_SHORT_INT, p_si, short);
PADDED_OK(LOOM_LONG_DOUBLE_INT, p_ldi, long double);

typedef struct pair_info {
    int       vtype;
    ptrdiff_t ioff;
    size_t    extent, align;
} pair_info_t;

#define PI(s, vt) { vt, offsetof(struct s, i), sizeof(struct s), _Alignof(struct s) }
static const pair_info_t pair_info[DT_BASIC_COUNT] = {
    [LOOM_FLOAT_INT]       = PI(p_fi, LOOM_FLOAT),
    [LOOM_DOUBLE_INT]      = PI(p_di, LOOM_DOUBLE),
    [LOOM_LONG_INT]        = PI(p_li, DT_BASIC_C_LONG),
    [LOOM_2INT]            = PI(p_ii, LOOM_INT32),
    [LOOM_SHORT_INT]       = PI(p_si, LOOM_INT16),
    [LOOM_LONG_DOUBLE_INT] = PI(p_ldi, LOOM_LONG_DOUBLE),
};

static loom_dt_t basic_dt[DT_BASIC_COUNT];
static dt_node_t basic_node[DT_BASIC_COUNT];
/* the pairs' byte programs: one run of the data bytes, or two */
static dt_node_t *pair_bnode[DT_BASIC_COUNT];
static pthread_once_t basic_once = PTHREAD_ONCE_INIT;

static bool is_pair(int b)
{
    return pair_info[b].extent != 0;
}

static void init_pair(int b)
{
    const pair_info_t *p = &pair_info[b];
    dt_node_t *n = &basic_node[b];
    loom_status_t st = LOOM_OK;
    static size_t one[2] = { 1, 1 };

    n->kind = DT_STRUCT;
    n->basic = -1;
    n->count = 2;
    n->blens = one;
    n->displs = calloc(2, sizeof(*n->displs));
    n->kids = calloc(2, sizeof(*n->kids));
    n->prefix = calloc(3, sizeof(*n->prefix));
    if (n->displs == NULL || n->kids == NULL || n->prefix == NULL) {
        abort(); /* once, at first use, a few bytes: nothing to return to */
    }
    n->displs[1] = p->ioff;
    n->kids[0] = &basic_node[p->vtype];
    n->kids[1] = &basic_node[LOOM_INT32];
    n->extent = (ptrdiff_t)p->extent;
    n->nelems = 2;
    (void)dt_node_finish_idx(n);
    pair_bnode[b] = dt_normalize(n, &st);
    if (pair_bnode[b] == NULL) {
        abort();
    }
    basic_dt[b].align = p->align;
    basic_dt[b].true_ub = p->ioff + (ptrdiff_t)sizeof(int);
}

static void basic_init(void)
{
    /* leaves first: the pairs point at them */
    for (int b = 0; b < DT_BASIC_COUNT; ++b) {
        if (!is_pair(b)) {
            basic_node[b] = (dt_node_t){ .kind = DT_LEAF, .basic = b,
                                         .size = basic_info[b].size,
                                         .extent = (ptrdiff_t)basic_info[b].size,
                                         .nelems = 1 };
        }
    }
    for (int b = 0; b < DT_BASIC_COUNT; ++b) {
        loom_dt_t *dt = &basic_dt[b];

        dt->predefined = dt->committed = true;
        dt->combiner = LOOM_DT_COMBINER_NAMED;
        dt->tnode = &basic_node[b];
        dt->align = basic_info[b].align;
        dt->true_ub = (ptrdiff_t)basic_info[b].size;
        if (is_pair(b)) {
            init_pair(b);
        }
        dt->bnode = is_pair(b) ? pair_bnode[b] : &basic_node[b];
        dt->size = dt->tnode->size;
        dt->nelems = dt->tnode->nelems;
        dt->ub = dt->tnode->extent;
    }
}

loom_dt_t *loom_dt_basic(loom_datatype_t basic)
{
    if ((unsigned)basic >= LOOM_DATATYPE_COUNT) {
        loom_error("dt", "loom_dt_basic: %d is not a basic type (0..%d)", (int)basic,
                   LOOM_DATATYPE_COUNT - 1);
        return NULL;
    }
    pthread_once(&basic_once, basic_init);
    return &basic_dt[basic];
}

loom_dt_t *loom_dt_basic_c_long(int is_unsigned)
{
    pthread_once(&basic_once, basic_init);
    return &basic_dt[is_unsigned ? DT_BASIC_C_ULONG : DT_BASIC_C_LONG];
}

int loom_dt_basic_of(const loom_dt_t *dt)
{
    int b = dt->predefined ? (int)(dt - basic_dt) : -1;

    if (b == DT_BASIC_C_LONG) {
        return sizeof(long) == 8 ? LOOM_INT64 : LOOM_INT32;
    }
    if (b == DT_BASIC_C_ULONG) {
        return sizeof(long) == 8 ? LOOM_UINT64 : LOOM_UINT32;
    }
    return b;
}

size_t dt_basic_align(int basic)
{
    return basic_info[basic].align;
}

size_t dt_basic_ext32_size(int basic)
{
    return basic_info[basic].ext32;
}
