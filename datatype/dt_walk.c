/*
 * dt_walk.c: the range walker every data movement goes through. It visits
 * the memory behind stream bytes [off, off + len) of an array of node
 * instances, in stream order, and for each contiguous piece packs, unpacks,
 * moves it to the same place in another buffer of the same layout (a
 * typed send to this very process whose receive has the same type),
 * appends an iovec entry or calls a function (external32).
 *
 * There is no saved state: a walk seeks to `off` by division in arrays
 * and vectors and by binary search in the prefix sums of indexed and
 * struct blocks, so resuming at any offset costs O(depth x log blocks).
 *
 * The hot path: a vector whose blocks are contiguous byte runs (what
 * commit turns a vector of contiguous data into) packs and unpacks with
 * one loop of fixed-length copies, specialised for 4, 8 and 16 bytes;
 * there is no per-element or per-byte interpretation anywhere. Whole
 * instances of an indexed list of byte runs (what commit makes of a struct
 * of basic fields: the particle of osu_struct is runs of 20 and 8 bytes)
 * copy in one loop over instances and runs with inline small copies, not
 * a descent and a memcpy call per run (13 ns a 32-byte particle before).
 */
#include "dt_priv.h"

#include <string.h>

static int emit(dt_walk_t *w, char *addr, size_t len, const dt_node_t *leaf)
{
    struct iovec *last;

    if (len == 0) {
        return 0;
    }
    switch (w->op) {
    case DT_OP_PACK:
        memcpy(w->stream, addr, len);
        w->stream += len;
        break;
    case DT_OP_UNPACK:
        memcpy(addr, w->stream, len);
        w->stream += len;
        break;
    case DT_OP_MOVE:
        memcpy(addr + w->shift, addr, len);
        break;
    case DT_OP_IOV:
        last = w->iov_n > 0 ? &w->iov[w->iov_n - 1] : NULL;
        if (last != NULL && (char *)last->iov_base + last->iov_len == addr) {
            last->iov_len += len;
        } else if (w->iov_n == w->iov_max) {
            return 1;
        } else {
            w->iov[w->iov_n++] = (struct iovec){ .iov_base = addr, .iov_len = len };
        }
        break;
    default:
        if (w->fn(w->ctx, addr, len, leaf) != 0) {
            return 1;
        }
        break;
    }
    w->done += len;
    return 0;
}

/*
 * nb blocks of n_ bytes, stride apart, into (PACK) or out of (UNPACK) the
 * stream. One loop per direction and block size: with n_ a constant each
 * memcpy is one or two moves, and no branch is left inside the loop (gcc
 * -O2 does not unswitch loops); 32 and 64 bytes are inline moves too. The
 * small sizes are unrolled four times:
 * the rolled loop ran 4-byte blocks at half the speed of a hand-written
 * C loop (bench/dt_pack, docs/datatypes.md "Pack speed").
 */
#define DT_PACK_LOOP(n_)                                                         \
    for (size_t i_ = 0; i_ < nb; ++i_, mem += stride, s += (n_)) {               \
        memcpy(s, mem, (n_));                                                    \
    }
#define DT_UNPACK_LOOP(n_)                                                       \
    for (size_t i_ = 0; i_ < nb; ++i_, mem += stride, s += (n_)) {               \
        memcpy(mem, s, (n_));                                                    \
    }
#define DT_PACK_LOOP4(n_)                                                        \
    for (; nb >= 4; nb -= 4, mem += 4 * stride, s += 4 * (n_)) {                 \
        memcpy(s, mem, (n_));                                                    \
        memcpy(s + (n_), mem + stride, (n_));                                    \
        memcpy(s + 2 * (n_), mem + 2 * stride, (n_));                            \
        memcpy(s + 3 * (n_), mem + 3 * stride, (n_));                            \
    }                                                                            \
    DT_PACK_LOOP(n_)
#define DT_UNPACK_LOOP4(n_)                                                      \
    for (; nb >= 4; nb -= 4, mem += 4 * stride, s += 4 * (n_)) {                 \
        memcpy(mem, s, (n_));                                                    \
        memcpy(mem + stride, s + (n_), (n_));                                    \
        memcpy(mem + 2 * stride, s + 2 * (n_), (n_));                            \
        memcpy(mem + 3 * stride, s + 3 * (n_), (n_));                            \
    }                                                                            \
    DT_UNPACK_LOOP(n_)

/* MOVE: each block to the same place @p shift bytes away (no stream) */
#define DT_MOVE_LOOP(n_)                                                         \
    for (; nb > 0; --nb, mem += stride) {                                        \
        memcpy(mem + shift, mem, (n_));                                          \
    }
#define DT_MOVE_LOOP4(n_)                                                        \
    for (; nb >= 4; nb -= 4, mem += 4 * stride) {                                \
        memcpy(mem + shift, mem, (n_));                                          \
        memcpy(mem + stride + shift, mem + stride, (n_));                        \
        memcpy(mem + 2 * stride + shift, mem + 2 * stride, (n_));                \
        memcpy(mem + 3 * stride + shift, mem + 3 * stride, (n_));                \
    }                                                                            \
    DT_MOVE_LOOP(n_)

static void move_blocks(char *mem, ptrdiff_t shift, size_t nb, size_t bs, ptrdiff_t stride)
{
    switch (bs) {
    case 4:
        DT_MOVE_LOOP4(4);
        break;
    case 8:
        DT_MOVE_LOOP4(8);
        break;
    case 16:
        DT_MOVE_LOOP4(16);
        break;
    default:
        DT_MOVE_LOOP(bs);
        break;
    }
}

static char *pack_blocks(char *s, const char *mem, size_t nb, size_t bs, ptrdiff_t stride)
{
    switch (bs) {
    case 4:
        DT_PACK_LOOP4(4);
        break;
    case 8:
        DT_PACK_LOOP4(8);
        break;
    case 16:
        DT_PACK_LOOP4(16);
        break;
    case 32:
        DT_PACK_LOOP(32);
        break;
    case 64:
        DT_PACK_LOOP(64);
        break;
    default:
        DT_PACK_LOOP(bs);
        break;
    }
    return s;
}

static const char *unpack_blocks(const char *s, char *mem, size_t nb, size_t bs,
                                 ptrdiff_t stride)
{
    switch (bs) {
    case 4:
        DT_UNPACK_LOOP4(4);
        break;
    case 8:
        DT_UNPACK_LOOP4(8);
        break;
    case 16:
        DT_UNPACK_LOOP4(16);
        break;
    case 32:
        DT_UNPACK_LOOP(32);
        break;
    case 64:
        DT_UNPACK_LOOP(64);
        break;
    default:
        DT_UNPACK_LOOP(bs);
        break;
    }
    return s;
}

/* memcpy of @p n bytes, inline for the short runs of a struct (no call) */
static inline void copy_short(char *d, const char *s, size_t n)
{
    if (n >= 16 && n <= 32) {
        memcpy(d, s, 16);
        memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 8 && n < 16) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; ++i) {
            d[i] = s[i];
        }
    } else {
        memcpy(d, s, n);
    }
}

/* an indexed list of byte runs (commit's form of a struct of fields) */
static bool runs_idx(const dt_node_t *n)
{
    const dt_node_t *c = n->child;

    return n->kind == DT_IDX && c->kind == DT_LEAF && c->extent == (ptrdiff_t)c->size;
}

/* PACK/UNPACK @p ni whole instances at @p p of runs_idx node @p n */
static void copy_runs(dt_walk_t *w, const dt_node_t *n, char *p, size_t ni)
{
    size_t nr = n->count, cs = n->child->size;
    const ptrdiff_t *d = n->displs;
    const size_t *bl = n->blens;
    char *s = w->stream;

    /* one loop per direction: no branch on it inside (see DT_PACK_LOOP) */
    if (w->op == DT_OP_MOVE) {
        for (size_t i = 0; i < ni; ++i, p += n->extent) {
            for (size_t k = 0; k < nr; ++k) {
                copy_short(p + d[k] + w->shift, p + d[k], bl[k] * cs);
            }
        }
    } else if (w->op == DT_OP_PACK) {
        for (size_t i = 0; i < ni; ++i, p += n->extent) {
            for (size_t k = 0; k < nr; s += bl[k] * cs, ++k) {
                copy_short(s, p + d[k], bl[k] * cs);
            }
        }
    } else {
        for (size_t i = 0; i < ni; ++i, p += n->extent) {
            for (size_t k = 0; k < nr; s += bl[k] * cs, ++k) {
                copy_short(p + d[k], s, bl[k] * cs);
            }
        }
    }
    w->stream = s;
    w->done += ni * n->size;
}

static void copy_blocks(dt_walk_t *w, char *mem, size_t nb, size_t bs, ptrdiff_t stride)
{
    if (w->op == DT_OP_PACK) {
        w->stream = pack_blocks(w->stream, mem, nb, bs, stride);
    } else if (w->op == DT_OP_MOVE) {
        move_blocks(mem, w->shift, nb, bs, stride);
    } else {
        w->stream = (char *)(uintptr_t)unpack_blocks(w->stream, mem, nb, bs, stride);
    }
    w->done += nb * bs;
}

/*
 * PACK/UNPACK of stream bytes [off, off + len) of equal blocks of bs
 * contiguous bytes, stride apart from base: a partial first block, the
 * whole ones in one tight loop, a partial last block.
 */
static int strided(dt_walk_t *w, char *base, size_t bs, ptrdiff_t stride, size_t off,
                   size_t len, const dt_node_t *leaf)
{
    size_t k = off / bs, o = off % bs, take;

    if (o != 0) {
        take = bs - o < len ? bs - o : len;
        (void)emit(w, base + (ptrdiff_t)k * stride + o, take, leaf);
        len -= take;
        ++k;
    }
    copy_blocks(w, base + (ptrdiff_t)k * stride, len / bs, bs, stride);
    k += len / bs;
    return emit(w, base + (ptrdiff_t)k * stride, len % bs, leaf);
}

static bool is_copy(const dt_walk_t *w)
{
    return w->op == DT_OP_PACK || w->op == DT_OP_UNPACK || w->op == DT_OP_MOVE;
}

/* a vector whose blocks are contiguous bytes */
static bool flat_vec(const dt_node_t *n)
{
    const dt_node_t *c = n->child;

    return n->kind == DT_VEC && c->kind == DT_LEAF &&
           (n->blocklen == 1 || c->extent == (ptrdiff_t)c->size);
}

/*
 * IOV of stream bytes [off, off + len) of equal blocks of bs contiguous
 * bytes, stride apart (stride != bs: no two blocks touch): the first
 * block through emit (it may extend the previous piece), the others one
 * entry each in a tight loop until the array is full. Through emit a
 * column of doubles cost ~90 instructions a piece.
 */
static int iov_strided(dt_walk_t *w, char *base, size_t bs, ptrdiff_t stride, size_t off,
                       size_t len, const dt_node_t *leaf)
{
    size_t k = off / bs, o = off % bs, take = bs - o < len ? bs - o : len;

    if (emit(w, base + (ptrdiff_t)k * stride + o, take, leaf) != 0) {
        return 1;
    }
    for (len -= take, ++k; len > 0 && w->iov_n < w->iov_max; len -= take, ++k) {
        take = bs < len ? bs : len;
        w->iov[w->iov_n++] = (struct iovec){ .iov_base = base + (ptrdiff_t)k * stride,
                                             .iov_len = take };
        w->done += take;
    }
    return len > 0;
}

/*
 * PACK/UNPACK @p bl whole instances at @p p of flat vector @p c (a plane
 * of a 3-D face: rows of contiguous bytes): one tight loop each, without
 * the seek and dispatch of dt_walk_array per instance (halo3d's faces are
 * vectors of such planes; the walk per plane cost as much as copying its
 * four 32-byte rows).
 */
static void copy_flat_vecs(dt_walk_t *w, const dt_node_t *c, char *p, size_t bl)
{
    size_t bs = c->blocklen * c->child->size;

    for (size_t j = 0; j < bl; ++j, p += c->extent) {
        copy_blocks(w, p, c->count, bs, c->stride);
    }
}

static int walk_vec(dt_walk_t *w, const dt_node_t *n, char *base, size_t off, size_t len)
{
    const dt_node_t *c = n->child;
    size_t bs = n->blocklen * c->size, k = off / bs, o = off % bs, take;
    bool flat_kids = is_copy(w) && flat_vec(c);

    if (flat_vec(n) && is_copy(w)) {
        return strided(w, base, bs, n->stride, off, len, c);
    }
    if (flat_vec(n) && w->op == DT_OP_IOV && n->stride != (ptrdiff_t)bs) {
        return iov_strided(w, base, bs, n->stride, off, len, c);
    }
    for (; len > 0; len -= take, o = 0, ++k) {
        take = bs - o < len ? bs - o : len;
        if (flat_kids && take == bs) {
            copy_flat_vecs(w, c, base + (ptrdiff_t)k * n->stride, n->blocklen);
            continue;
        }
        if (dt_walk_array(w, c, base + (ptrdiff_t)k * n->stride, o, take) != 0) {
            return 1;
        }
    }
    return 0;
}

static int walk_idx(dt_walk_t *w, const dt_node_t *n, char *base, size_t off, size_t len)
{
    size_t lo = 0, hi = n->count, o, take;

    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;

        if (n->prefix[mid] <= off) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    o = off - n->prefix[lo];
    for (size_t k = lo; len > 0; len -= take, o = 0, ++k) {
        const dt_node_t *c = n->kind == DT_STRUCT ? n->kids[k] : n->child;

        take = n->prefix[k + 1] - n->prefix[k] - o;
        take = take < len ? take : len;
        if (take > 0 && dt_walk_array(w, c, base + n->displs[k], o, take) != 0) {
            return 1;
        }
    }
    return 0;
}

static int walk_node(dt_walk_t *w, const dt_node_t *n, char *base, size_t off, size_t len)
{
    switch (n->kind) {
    case DT_LEAF:
        return emit(w, base + off, len, n);
    case DT_VEC:
        return walk_vec(w, n, base, off, len);
    default:
        return walk_idx(w, n, base, off, len);
    }
}

int dt_walk_array(dt_walk_t *w, const dt_node_t *n, char *base, size_t off, size_t len)
{
    size_t i, o, take;
    char *p;

    if (len == 0) {
        return 0;
    }
    if (n->kind == DT_LEAF && n->extent == (ptrdiff_t)n->size) {
        return emit(w, base + off, len, n);
    }
    if (n->kind == DT_LEAF && is_copy(w)) {
        /* runs spaced by the extent (a resized run, a vector's block of them) */
        return strided(w, base, n->size, n->extent, off, len, n);
    }
    i = off / n->size;
    o = off % n->size;
    p = base + (ptrdiff_t)i * n->extent;
    if (o != 0) {
        /* the rest of an instance first, so a range starting inside one (a
         * pipelined pack's step, a bounce's unpack) still takes the fast
         * loops below for the whole instances after it: without this a
         * struct array went one instance at a time (2x a 1 MiB pack) */
        take = n->size - o < len ? n->size - o : len;
        if (walk_node(w, n, p, o, take) != 0) {
            return 1;
        }
        len -= take;
        o = 0;
        p += n->extent;
    }
    if (len >= n->size && runs_idx(n) && is_copy(w)) {
        size_t ni = len / n->size;   /* whole instances: one loop over them */

        copy_runs(w, n, p, ni);
        len -= ni * n->size;
        p += (ptrdiff_t)ni * n->extent;
    }
    for (; len > 0; len -= take, o = 0, p += n->extent) {
        take = n->size - o < len ? n->size - o : len;
        if (take == n->size && flat_vec(n) && is_copy(w)) {
            /* whole instances of a flat vector: no seeking, no dispatch */
            copy_blocks(w, p, n->count, n->blocklen * n->child->size, n->stride);
            continue;
        }
        if (walk_node(w, n, p, o, take) != 0) {
            return 1;
        }
    }
    return 0;
}
