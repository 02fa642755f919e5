/*
 * dt_cursor.c: the data-movement entry points over the packed stream:
 * pack/unpack of any byte range, the iovec producer, and the cursor that
 * strings them together for a pipelined message. All of them check the
 * type (committed) and the range (inside count x size) and hand the
 * committed byte program to the walker (dt_walk.c).
 */
#include "dt_priv.h"

loom_status_t dt_check_committed(const loom_dt_t *dt, const char *op)
{
    if (dt == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: the type is NULL", op);
    }
    if (!dt->committed) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "%s: the type is not committed", op);
    }
    return LOOM_OK;
}

loom_status_t dt_stream_size(size_t count, const loom_dt_t *dt, const char *op, size_t *total)
{
    size_t t;

    if (__builtin_mul_overflow(count, dt->size, &t)) {  /* *total untouched on error */
        return DT_ERR(LOOM_ERR_INVALID_COUNT, "%s: count %zu x size %zu overflows size_t", op,
                      count, dt->size);
    }
    *total = t;
    return LOOM_OK;
}

loom_status_t loom_dt_pack_size(size_t count, const loom_dt_t *dt, size_t *size)
{
    if (dt == NULL) {
        return DT_ERR(LOOM_ERR_INVALID_TYPE, "loom_dt_pack_size: the type is NULL");
    }
    return dt_stream_size(count, dt, "loom_dt_pack_size", size);
}

/* the checks every range operation shares */
static loom_status_t range_check(size_t count, const loom_dt_t *dt, size_t offset, size_t len,
                                 const char *op)
{
    loom_status_t st;
    size_t total;

    if ((st = dt_check_committed(dt, op)) != LOOM_OK ||
        (st = dt_stream_size(count, dt, op, &total)) != LOOM_OK) {
        return st;
    }
    if (offset > total || len > total - offset) {
        return DT_ERR(LOOM_ERR_TRUNCATED, "%s: bytes [%zu, +%zu) are past the end of the "
                      "%zu-byte stream", op, offset, len, total);
    }
    return LOOM_OK;
}

loom_status_t loom_dt_pack_range(const void *inbuf, size_t count, const loom_dt_t *dt,
                                 size_t offset, size_t len, void *outbuf)
{
    dt_walk_t w = { .op = DT_OP_PACK, .stream = outbuf };
    loom_status_t st = range_check(count, dt, offset, len, "loom_dt_pack_range");

    if (st == LOOM_OK) {
        (void)dt_walk_array(&w, dt->bnode, (char *)(uintptr_t)inbuf, offset, len);
    }
    return st;
}

loom_status_t loom_dt_unpack_range(void *outbuf, size_t count, const loom_dt_t *dt,
                                   size_t offset, size_t len, const void *inbuf)
{
    dt_walk_t w = { .op = DT_OP_UNPACK, .stream = (char *)(uintptr_t)inbuf };
    loom_status_t st = range_check(count, dt, offset, len, "loom_dt_unpack_range");

    if (st == LOOM_OK) {
        (void)dt_walk_array(&w, dt->bnode, outbuf, offset, len);
    }
    return st;
}

loom_status_t loom_dt_move_range(void *outbuf, const void *inbuf, size_t count,
                                 const loom_dt_t *dt, size_t offset, size_t len)
{
    dt_walk_t w = { .op = DT_OP_MOVE,
                    .shift = (ptrdiff_t)((uintptr_t)outbuf - (uintptr_t)inbuf) };
    loom_status_t st = range_check(count, dt, offset, len, "loom_dt_move_range");

    if (st == LOOM_OK) {
        (void)dt_walk_array(&w, dt->bnode, (char *)(uintptr_t)inbuf, offset, len);
    }
    return st;
}

loom_status_t loom_dt_iov(const void *buf, size_t count, const loom_dt_t *dt,
                          size_t offset, size_t max_bytes, struct iovec *iov,
                          size_t max_iov, size_t *n_iov, size_t *bytes)
{
    dt_walk_t w = { .op = DT_OP_IOV, .iov = iov, .iov_max = max_iov };
    loom_status_t st = range_check(count, dt, offset, 0, "loom_dt_iov");
    size_t total;

    if (st != LOOM_OK) {
        return st;
    }
    (void)dt_stream_size(count, dt, "loom_dt_iov", &total);
    if (max_bytes > total - offset) {
        max_bytes = total - offset;
    }
    (void)dt_walk_array(&w, dt->bnode, (char *)(uintptr_t)buf, offset, max_bytes);
    *n_iov = w.iov_n;
    *bytes = w.done;
    return LOOM_OK;
}

static loom_status_t cursor_start(loom_dt_cursor_t *cur, const void *buf, size_t count,
                                  loom_dt_t *dt, const char *op)
{
    loom_status_t st;
    size_t total;

    if ((st = dt_check_committed(dt, op)) != LOOM_OK ||
        (st = dt_stream_size(count, dt, op, &total)) != LOOM_OK) {
        return st;
    }
    *cur = (loom_dt_cursor_t){ .dt = dt, .buf = (char *)(uintptr_t)buf, .count = count,
                               .pos = 0, .total = total, .held = 0 };
    return LOOM_OK;
}

loom_status_t loom_dt_cursor_borrow(loom_dt_cursor_t *cur, const void *buf, size_t count,
                                    loom_dt_t *dt)
{
    return cursor_start(cur, buf, count, dt, "loom_dt_cursor_borrow");
}

loom_status_t loom_dt_cursor_init(loom_dt_cursor_t *cur, const void *buf, size_t count,
                                  loom_dt_t *dt)
{
    loom_status_t st = cursor_start(cur, buf, count, dt, "loom_dt_cursor_init");

    if (st == LOOM_OK) {
        loom_dt_retain(dt);
        cur->held = 1;
    }
    return st;
}

void loom_dt_cursor_fini(loom_dt_cursor_t *cur)
{
    if (cur != NULL && cur->dt != NULL) {
        if (cur->held) {
            loom_dt_release(cur->dt);
        }
        cur->dt = NULL;
    }
}

loom_status_t loom_dt_cursor_seek(loom_dt_cursor_t *cur, size_t pos)
{
    if (pos > cur->total) {
        return DT_ERR(LOOM_ERR_TRUNCATED, "loom_dt_cursor_seek: position %zu is past the end "
                      "of the %zu-byte stream", pos, cur->total);
    }
    cur->pos = pos;
    return LOOM_OK;
}

/* the cursor's type and range were checked when it started (committed,
 * count x size, pos <= total): its moves walk without checking again */
loom_status_t loom_dt_cursor_pack(loom_dt_cursor_t *cur, void *dst, size_t max, size_t *len)
{
    size_t n = cur->total - cur->pos < max ? cur->total - cur->pos : max;
    dt_walk_t w = { .op = DT_OP_PACK, .stream = dst };

    (void)dt_walk_array(&w, cur->dt->bnode, cur->buf, cur->pos, n);
    cur->pos += n;
    *len = n;
    return LOOM_OK;
}

loom_status_t loom_dt_cursor_unpack(loom_dt_cursor_t *cur, const void *src, size_t len)
{
    dt_walk_t w = { .op = DT_OP_UNPACK, .stream = (char *)(uintptr_t)src };

    if (len > cur->total - cur->pos) {
        return DT_ERR(LOOM_ERR_TRUNCATED, "loom_dt_cursor_unpack: bytes [%zu, +%zu) are past "
                      "the end of the %zu-byte stream", cur->pos, len, cur->total);
    }
    (void)dt_walk_array(&w, cur->dt->bnode, cur->buf, cur->pos, len);
    cur->pos += len;
    return LOOM_OK;
}

loom_status_t loom_dt_cursor_iov(loom_dt_cursor_t *cur, size_t max_bytes, struct iovec *iov,
                                 size_t max_iov, size_t *n_iov, size_t *bytes)
{
    loom_status_t st = loom_dt_iov(cur->buf, cur->count, cur->dt, cur->pos, max_bytes, iov,
                                   max_iov, n_iov, bytes);

    if (st == LOOM_OK) {
        cur->pos += *bytes;
    }
    return st;
}
