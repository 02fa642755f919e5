/*
 * loomrun_ctl.c: encoding and decoding of the head <-> daemon control
 * frames (see loomrun_ctl.h for the format). No I/O and no state: the
 * decoder is a pure function of its input so the fuzz and unit tests can
 * drive it directly.
 */
#include "loomrun_ctl.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The body layout of every type (index = type). */
static const char *const loomrun_ctl_spec[LOOMRUN_CTL_NTYPES] = {
    [LOOMRUN_CTL_HELLO]      = "uuuusb",
    [LOOMRUN_CTL_JOB]        = "uuusssLLLI",
    [LOOMRUN_CTL_STARTED]    = "uu",
    [LOOMRUN_CTL_OUTPUT]     = "uuub",
    [LOOMRUN_CTL_STDIN]      = "b",
    [LOOMRUN_CTL_EXIT]       = "uuuuu",
    [LOOMRUN_CTL_ABORT]      = "uis",
    [LOOMRUN_CTL_SIGNAL]     = "u",
    [LOOMRUN_CTL_FENCE]      = "usb",
    [LOOMRUN_CTL_FENCE_DONE] = "isb",
    [LOOMRUN_CTL_DMDX_REQ]   = "uuu",
    [LOOMRUN_CTL_DMDX_RESP]  = "uuib",
    [LOOMRUN_CTL_ERROR]      = "us",
    [LOOMRUN_CTL_SHUTDOWN]   = "u",
    [LOOMRUN_CTL_NOTE]       = "ui",
};

static const char *const loomrun_ctl_names[LOOMRUN_CTL_NTYPES] = {
    [LOOMRUN_CTL_HELLO] = "HELLO", [LOOMRUN_CTL_JOB] = "JOB",
    [LOOMRUN_CTL_STARTED] = "STARTED", [LOOMRUN_CTL_OUTPUT] = "OUTPUT",
    [LOOMRUN_CTL_STDIN] = "STDIN", [LOOMRUN_CTL_EXIT] = "EXIT",
    [LOOMRUN_CTL_ABORT] = "ABORT", [LOOMRUN_CTL_SIGNAL] = "SIGNAL",
    [LOOMRUN_CTL_FENCE] = "FENCE", [LOOMRUN_CTL_FENCE_DONE] = "FENCE_DONE",
    [LOOMRUN_CTL_DMDX_REQ] = "DMODEX_REQ", [LOOMRUN_CTL_DMDX_RESP] = "DMODEX_RESP",
    [LOOMRUN_CTL_ERROR] = "ERROR", [LOOMRUN_CTL_SHUTDOWN] = "SHUTDOWN",
    [LOOMRUN_CTL_NOTE] = "NOTE",
};

const char *loomrun_ctl_type_name(uint32_t type)
{
    return (type > 0 && type < LOOMRUN_CTL_NTYPES) ? loomrun_ctl_names[type] : "?";
}

static uint32_t loomrun_get32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return ntohl(v);
}

/* ---- decoding ------------------------------------------------------------- */

/* A cursor over one frame body. */
typedef struct loomrun_ctl_cur {
    const uint8_t *p, *end;
} loomrun_ctl_cur_t;

static int loomrun_ctl_take32(loomrun_ctl_cur_t *c, uint32_t *v)
{
    if (c->end - c->p < 4) {
        return -1;
    }
    *v = loomrun_get32(c->p);
    c->p += 4;
    return 0;
}

/* A string: length with its NUL, bytes, the NUL, none inside. */
static const char *loomrun_ctl_take_str(loomrun_ctl_cur_t *c)
{
    const uint8_t *s;
    uint32_t len;

    if (loomrun_ctl_take32(c, &len) != 0 || len == 0 || len > (size_t)(c->end - c->p)) {
        return NULL;
    }
    s = c->p;
    if (s[len - 1] != '\0' || memchr(s, '\0', len - 1) != NULL) {
        return NULL;
    }
    c->p += len;
    return (const char *)s;
}

static int loomrun_ctl_field(loomrun_ctl_cur_t *c, char f, loomrun_ctl_msg_t *m)
{
    uint32_t n;

    switch (f) {
    case 'u':
    case 'i':
        return loomrun_ctl_take32(c, &m->u[m->nu++]);
    case 's':
        return (m->s[m->ns++] = loomrun_ctl_take_str(c)) ? 0 : -1;
    case 'b':
        if (loomrun_ctl_take32(c, &n) != 0 || n > (size_t)(c->end - c->p)) {
            return -1;
        }
        m->blob = c->p;
        m->blob_len = n;
        c->p += n;
        return 0;
    case 'L':
        if (loomrun_ctl_take32(c, &n) != 0 || n > (size_t)(c->end - c->p) / 5) {
            return -1;   /* every entry takes at least 5 bytes */
        }
        m->list[m->nlist].p = c->p;
        m->list[m->nlist++].n = n;
        for (uint32_t i = 0; i < n; ++i) {
            if (loomrun_ctl_take_str(c) == NULL) {
                return -1;
            }
        }
        return 0;
    case 'I':
        if (loomrun_ctl_take32(c, &n) != 0 || n > (size_t)(c->end - c->p) / 4) {
            return -1;
        }
        m->arr = c->p;
        m->arr_n = n;
        c->p += (size_t)n * 4;
        return 0;
    default:
        return -1;
    }
}

int loomrun_ctl_decode(const uint8_t *buf, size_t len, loomrun_ctl_msg_t *msg,
                       size_t *used_p, char *why, size_t wlen)
{
    loomrun_ctl_cur_t c;
    uint32_t blen, type;
    const char *spec;

    if (len < LOOMRUN_CTL_HDR_LEN) {
        return 0;
    }
    blen = loomrun_get32(buf);
    type = loomrun_get32(buf + 4);
    if (type == 0 || type >= LOOMRUN_CTL_NTYPES) {
        snprintf(why, wlen, "unknown message type %u", type);
        return -1;
    }
    if (blen > LOOMRUN_CTL_MAX_FRAME) {
        snprintf(why, wlen, "%s frame of %u bytes exceeds the %u-byte limit",
                 loomrun_ctl_names[type], blen, LOOMRUN_CTL_MAX_FRAME);
        return -1;
    }
    if (len - LOOMRUN_CTL_HDR_LEN < blen) {
        return 0;
    }
    memset(msg, 0, sizeof(*msg));
    msg->type = type;
    c.p   = buf + LOOMRUN_CTL_HDR_LEN;
    c.end = c.p + blen;
    for (spec = loomrun_ctl_spec[type]; *spec != '\0'; ++spec) {
        if (loomrun_ctl_field(&c, *spec, msg) != 0) {
            snprintf(why, wlen, "%s frame of %u bytes: field %d ('%c') is malformed",
                     loomrun_ctl_names[type], blen, (int)(spec - loomrun_ctl_spec[type]),
                     *spec);
            return -1;
        }
    }
    if (c.p != c.end) {
        snprintf(why, wlen, "%s frame: %zu bytes left after the last field",
                 loomrun_ctl_names[type], (size_t)(c.end - c.p));
        return -1;
    }
    *used_p = LOOMRUN_CTL_HDR_LEN + (size_t)blen;
    return 1;
}

const char *loomrun_ctl_list_next(loomrun_ctl_list_t *l)
{
    const char *s;
    uint32_t len;

    if (l->n == 0) {
        return NULL;
    }
    /* the decoder checked every entry */
    len = loomrun_get32(l->p);
    s = (const char *)l->p + 4;
    l->p += 4 + (size_t)len;
    --l->n;
    return s;
}

uint32_t loomrun_ctl_arr(const loomrun_ctl_msg_t *msg, uint32_t i)
{
    return i < msg->arr_n ? loomrun_get32(msg->arr + (size_t)i * 4) : 0;
}

/* ---- encoding ------------------------------------------------------------- */

void loomrun_buf_free(loomrun_buf_t *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

static int loomrun_buf_put(loomrun_buf_t *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        uint8_t *p;

        while (cap < b->len + n) {
            cap *= 2;
        }
        if ((p = realloc(b->p, cap)) == NULL) {
            return -1;
        }
        b->p   = p;
        b->cap = cap;
    }
    if (n > 0) {
        memcpy(b->p + b->len, data, n);
    }
    b->len += n;
    return 0;
}

static int loomrun_buf_put32(loomrun_buf_t *b, uint32_t v)
{
    v = htonl(v);
    return loomrun_buf_put(b, &v, 4);
}

static int loomrun_buf_put_str(loomrun_buf_t *b, const char *s)
{
    size_t len = strlen(s) + 1;

    return (len > UINT32_MAX || loomrun_buf_put32(b, (uint32_t)len) != 0) ? -1 :
           loomrun_buf_put(b, s, len);
}

static int loomrun_ctl_pack_field(loomrun_buf_t *b, char f, va_list *ap)
{
    const void *data;
    size_t n;
    int rc = 0, cnt;

    switch (f) {
    case 'u': return loomrun_buf_put32(b, va_arg(*ap, unsigned));
    case 'i': return loomrun_buf_put32(b, (uint32_t)va_arg(*ap, int));
    case 's': return loomrun_buf_put_str(b, va_arg(*ap, const char *));
    case 'b':
        data = va_arg(*ap, const void *);
        n    = va_arg(*ap, size_t);
        return (n > UINT32_MAX || loomrun_buf_put32(b, (uint32_t)n) != 0) ? -1 :
               loomrun_buf_put(b, data, n);
    case 'L': {
        char *const *list = va_arg(*ap, char *const *);
        cnt = va_arg(*ap, int);
        rc = loomrun_buf_put32(b, (uint32_t)cnt);
        for (int i = 0; rc == 0 && i < cnt; ++i) {
            rc = loomrun_buf_put_str(b, list[i]);
        }
        return rc;
    }
    case 'I': {
        const int *arr = va_arg(*ap, const int *);
        cnt = va_arg(*ap, int);
        rc = loomrun_buf_put32(b, (uint32_t)cnt);
        for (int i = 0; rc == 0 && i < cnt; ++i) {
            rc = loomrun_buf_put32(b, (uint32_t)arr[i]);
        }
        return rc;
    }
    default:
        return -1;
    }
}

int loomrun_ctl_pack(loomrun_buf_t *b, loomrun_ctl_type_t type, ...)
{
    va_list ap;
    int rc;

    va_start(ap, type);
    rc = loomrun_ctl_vpack(b, type, ap);
    va_end(ap);
    return rc;
}

int loomrun_ctl_vpack(loomrun_buf_t *b, loomrun_ctl_type_t type, va_list ap)
{
    size_t start = b->len, blen;
    const char *spec;
    uint32_t be;
    va_list aq;
    int rc;

    if (type <= 0 || type >= LOOMRUN_CTL_NTYPES ||
        loomrun_buf_put32(b, 0) != 0 || loomrun_buf_put32(b, (uint32_t)type) != 0) {
        b->len = start;
        return -1;
    }
    rc = 0;
    va_copy(aq, ap);
    for (spec = loomrun_ctl_spec[type]; rc == 0 && *spec != '\0'; ++spec) {
        rc = loomrun_ctl_pack_field(b, *spec, &aq);
    }
    va_end(aq);
    blen = b->len - start - LOOMRUN_CTL_HDR_LEN;
    if (rc != 0 || blen > LOOMRUN_CTL_MAX_FRAME) {
        b->len = start;
        return -1;
    }
    be = htonl((uint32_t)blen);
    memcpy(b->p + start, &be, 4);
    return 0;
}
