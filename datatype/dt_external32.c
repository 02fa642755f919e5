/*
 * dt_external32.c: MPI_Pack_external/MPI_Unpack_external in "external32"
 * (MPI-3.1 13.5.2): every basic element big-endian, in the table's sizes,
 * and no padding (a DOUBLE_INT is 12 bytes). The walker runs over the
 * typed tree (its leaves know their basic type) with a per-element
 * callback; complex types are two big-endian parts; long double is
 * IEEE binary128 (16 bytes), converted from and to x87 80-bit extended
 * precision where that is the native format (the conversion keeps every
 * bit of an x87 value; unpack rounds a binary128 down to 64 mantissa bits).
 * C long and unsigned long (loom_dt_basic_c_long) are 4 bytes, as MPI-3.1
 * Table 13.2 and MPICH have them (Open MPI 4.1 writes 4 bytes too but
 * reports 8 from MPI_Pack_external_size): unpack sign- or zero-extends;
 * pack first checks every such value fits 32 bits, in a pass of its own,
 * and refuses the whole call (LOOM_ERR_INVALID_ARG, nothing written)
 * rather than truncate silently as the peers do.
 */
#include "dt_priv.h"

#include <float.h>
#include <string.h>

typedef struct x32 {
    char       *p;     /* the external32 side, advancing */
    bool        pack;
} x32_t;

/* native (host order) n bytes <-> big-endian n bytes */
static void swap_copy(char *dst, const char *src, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (size_t i = 0; i < n; ++i) {
        dst[i] = src[n - 1 - i];
    }
#else
    memcpy(dst, src, n);
#endif
}

static void put_be64(char *dst, uint64_t v)
{
    for (int i = 7; i >= 0; --i, v >>= 8) {
        dst[i] = (char)(v & 0xff);
    }
}

static uint64_t get_be64(const char *src)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; ++i) {
        v = v << 8 | (unsigned char)src[i];
    }
    return v;
}

#if LDBL_MANT_DIG == 64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* x87 extended (64-bit mantissa with explicit integer bit) -> binary128 */
static void ld_to_ext(char *dst, const char *src)
{
    uint64_t m, m63;
    uint16_t se;

    memcpy(&m, src, 8);
    memcpy(&se, src + 8, 2);
    m63 = m & 0x7fffffffffffffffull;
    put_be64(dst, (uint64_t)se << 48 | m63 >> 15);
    put_be64(dst + 8, (m63 & 0x7fff) << 49);
}

static void ext_to_ld(char *dst, const char *src)
{
    uint64_t hi = get_be64(src), lo = get_be64(src + 8), m;
    uint16_t se = (uint16_t)(hi >> 48);

    m = (hi & 0xffffffffffffull) << 15 | lo >> 49;
    if ((se & 0x7fff) != 0) {
        m |= 1ull << 63;
    }
    memset(dst, 0, sizeof(long double));
    memcpy(dst, &m, 8);
    memcpy(dst + 8, &se, 2);
}
#define DT_HAVE_LD_EXT32 1
#elif LDBL_MANT_DIG == 113
static void ld_to_ext(char *dst, const char *src)
{
    swap_copy(dst, src, 16);
}

static void ext_to_ld(char *dst, const char *src)
{
    swap_copy(dst, src, 16);
}
#define DT_HAVE_LD_EXT32 1
#else
#define DT_HAVE_LD_EXT32 0
#endif

/* a C long (signed or not) at mem <-> 4 big-endian bytes */
static void x32_long(x32_t *x, char *mem, bool is_unsigned)
{
    long v;
    uint32_t u;

    if (x->pack) {
        memcpy(&v, mem, sizeof(v));
        u = (uint32_t)(unsigned long)v;
        for (int i = 3; i >= 0; --i, u >>= 8) {
            x->p[i] = (char)(u & 0xff);
        }
        return;
    }
    u = (uint32_t)(unsigned char)x->p[0] << 24 | (uint32_t)(unsigned char)x->p[1] << 16 |
        (uint32_t)(unsigned char)x->p[2] << 8 | (uint32_t)(unsigned char)x->p[3];
    v = is_unsigned ? (long)(unsigned long)u : (long)(int32_t)u;
    memcpy(mem, &v, sizeof(v));
}

/* one element of basic type b at mem <-> the external32 side */
static void x32_elem(x32_t *x, char *mem, int b)
{
    size_t e = dt_basic_ext32_size(b);

    switch (b) {
    case DT_BASIC_C_LONG:
    case DT_BASIC_C_ULONG:
        x32_long(x, mem, b == DT_BASIC_C_ULONG);
        break;
    case LOOM_FLOAT_COMPLEX:
    case LOOM_DOUBLE_COMPLEX:
        swap_copy(x->pack ? x->p : mem, x->pack ? mem : x->p, e / 2);
        swap_copy((x->pack ? x->p : mem) + e / 2, (x->pack ? mem : x->p) + e / 2, e / 2);
        break;
#if DT_HAVE_LD_EXT32
    case LOOM_LONG_DOUBLE:
        x->pack ? ld_to_ext(x->p, mem) : ext_to_ld(mem, x->p);
        break;
    case LOOM_LONG_DOUBLE_COMPLEX:
        x->pack ? ld_to_ext(x->p, mem) : ext_to_ld(mem, x->p);
        x->pack ? ld_to_ext(x->p + 16, mem + sizeof(long double))
                : ext_to_ld(mem + sizeof(long double), x->p + 16);
        break;
#endif
    default:
        swap_copy(x->pack ? x->p : mem, x->pack ? mem : x->p, e);
        break;
    }
    x->p += e;
}

static int x32_leaf(void *ctx, char *addr, size_t len, const dt_node_t *leaf)
{
    for (size_t off = 0; off < len; off += leaf->size) {
        x32_elem(ctx, addr + off, leaf->basic);
    }
    return 0;
}

/* external32 bytes of one instance of a typed node */
static size_t x32_size(const dt_node_t *n)
{
    size_t s = 0;

    switch (n->kind) {
    case DT_LEAF:
        return dt_basic_ext32_size(n->basic);
    case DT_VEC:
        return n->count * n->blocklen * x32_size(n->child);
    case DT_IDX:
        /* the external32 size scales with the native one: elements per block */
        return n->child->size == 0 ? 0 : n->size / n->child->size * x32_size(n->child);
    default:
        for (size_t k = 0; k < n->count; ++k) {
            s += n->blens[k] * x32_size(n->kids[k]);
        }
        return s;
    }
}

/* has the typed tree a leaf that @p pred accepts? */
static bool x32_any(const dt_node_t *n, bool (*pred)(int basic))
{
    if (n->kind == DT_LEAF) {
        return pred(n->basic);
    }
    if (n->kind == DT_STRUCT) {
        for (size_t k = 0; k < n->count; ++k) {
            if (x32_any(n->kids[k], pred)) {
                return true;
            }
        }
        return false;
    }
    return x32_any(n->child, pred);
}

/* a long double we cannot convert */
static bool x32_is_unsupported(int b)
{
    return !DT_HAVE_LD_EXT32 && (b == LOOM_LONG_DOUBLE || b == LOOM_LONG_DOUBLE_COMPLEX);
}

static bool x32_is_long(int b)
{
    return b == DT_BASIC_C_LONG || b == DT_BASIC_C_ULONG;
}

/* the pre-pass of a pack holding C longs: does every one fit 32 bits? */
typedef struct x32_range {
    size_t index;   /* elements seen */
    long   bad;     /* the first value that does not fit */
} x32_range_t;

static int x32_range_leaf(void *ctx, char *addr, size_t len, const dt_node_t *leaf)
{
    x32_range_t *r = ctx;

    for (size_t off = 0; off < len; off += leaf->size, ++r->index) {
        long v;

        if (!x32_is_long(leaf->basic)) {
            continue;
        }
        memcpy(&v, addr + off, sizeof(v));
        if (leaf->basic == DT_BASIC_C_LONG ? (v < INT32_MIN || v > INT32_MAX)
                                           : ((unsigned long)v > UINT32_MAX)) {
            r->bad = v;
            return 1;
        }
    }
    return 0;
}

static loom_status_t x32_check_longs(char *mem, const loom_dt_t *dt, size_t total,
                                     const char *op)
{
    x32_range_t r = { 0, 0 };
    dt_walk_t w = { .op = DT_OP_FN, .fn = x32_range_leaf, .ctx = &r };

    if (!x32_any(dt->tnode, x32_is_long) || dt_walk_array(&w, dt->tnode, mem, 0, total) == 0) {
        return LOOM_OK;
    }
    return DT_ERR(LOOM_ERR_INVALID_ARG, "%s: element %zu, a C long of value %ld, does not fit "
                  "the 4 bytes external32 gives MPI_LONG/MPI_UNSIGNED_LONG (MPI-3.1 Table "
                  "13.2); nothing was packed", op, r.index, r.bad);
}

loom_status_t loom_dt_external32_size(size_t count, const loom_dt_t *dt, size_t *size)
{
    if (dt == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "loom_dt_external32_size: the type is NULL");
    }
    size_t s;

    if (__builtin_mul_overflow(count, x32_size(dt->tnode), &s)) {  /* *size untouched */
        return DT_ERR(LOOM_ERR_INVALID_COUNT, "loom_dt_external32_size: count %zu overflows",
                      count);
    }
    *size = s;
    return LOOM_OK;
}

static loom_status_t x32_run(char *mem, size_t count, const loom_dt_t *dt, char *ext,
                             size_t extsize, size_t *position, bool pack, const char *op)
{
    x32_t x = { .pack = pack };
    dt_walk_t w = { .op = DT_OP_FN, .fn = x32_leaf, .ctx = &x };
    size_t need, total;
    loom_status_t st;

    if ((st = dt_check_committed(dt, op)) != LOOM_OK ||
        (st = dt_stream_size(count, dt, op, &total)) != LOOM_OK ||
        (st = loom_dt_external32_size(count, dt, &need)) != LOOM_OK) {
        return st;
    }
    if (x32_any(dt->tnode, x32_is_unsupported)) {
        return DT_ERR(LOOM_ERR_UNSUPPORTED, "%s: long double has no external32 conversion "
                      "on this platform", op);
    }
    if (*position > extsize || need > extsize - *position) {
        return DT_ERR(LOOM_ERR_TRUNCATED, "%s: %zu bytes at position %zu exceed the %zu-byte "
                      "buffer", op, need, *position, extsize);
    }
    if (pack && (st = x32_check_longs(mem, dt, total, op)) != LOOM_OK) {
        return st;
    }
    x.p = ext + *position;
    (void)dt_walk_array(&w, dt->tnode, mem, 0, total);
    *position += need;
    return LOOM_OK;
}

loom_status_t loom_dt_pack_external32(const void *inbuf, size_t count, const loom_dt_t *dt,
                                      void *outbuf, size_t outsize, size_t *position)
{
    return x32_run((char *)(uintptr_t)inbuf, count, dt, outbuf, outsize, position, true,
                   "loom_dt_pack_external32");
}

loom_status_t loom_dt_unpack_external32(const void *inbuf, size_t insize, size_t *position,
                                        void *outbuf, size_t count, const loom_dt_t *dt)
{
    return x32_run(outbuf, count, dt, (char *)(uintptr_t)inbuf, insize, position, false,
                   "loom_dt_unpack_external32");
}
