/*
 * fuzz_launcher_ctl.c: libFuzzer target for the multi-host control channel
 * decoder loomrun_ctl_decode (launcher/loomrun_ctl.c), which reads what a
 * daemon (or anyone who connects to the head's port) sends.
 *
 * Input: the bytes as they came from the socket; decoded frame after
 * frame, as the head does, until the decoder wants more bytes or refuses
 * one. Checked beyond "no crash" (ASan sees every read past the input):
 *  - a frame's size is at least the header and at most what is there;
 *    every string, blob, list entry and array the message points to lies
 *    inside the frame, and the fields' counts match the type's spec;
 *  - every proper prefix of a good frame is "need more" (0), never an error;
 *  - a refusal says why (a non-empty, terminated message);
 *  - packing the decoded fields again with loomrun_ctl_pack gives the very
 *    same bytes (the encoding is canonical), and those decode to the same
 *    message.
 */
#include "loomrun_ctl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* Fields per type ('u'+'i', 's', 'L', 'b', 'I'), from the specs in loomrun_ctl.h. */
static const struct { int nu, ns, nlist, blob, arr; } spec_counts[LOOMRUN_CTL_NTYPES] = {
    [LOOMRUN_CTL_HELLO]      = { 4, 1, 0, 1, 0 },
    [LOOMRUN_CTL_JOB]        = { 3, 3, 3, 0, 1 },
    [LOOMRUN_CTL_STARTED]    = { 2, 0, 0, 0, 0 },
    [LOOMRUN_CTL_OUTPUT]     = { 3, 0, 0, 1, 0 },
    [LOOMRUN_CTL_STDIN]      = { 0, 0, 0, 1, 0 },
    [LOOMRUN_CTL_EXIT]       = { 5, 0, 0, 0, 0 },
    [LOOMRUN_CTL_ABORT]      = { 2, 1, 0, 0, 0 },
    [LOOMRUN_CTL_SIGNAL]     = { 1, 0, 0, 0, 0 },
    [LOOMRUN_CTL_FENCE]      = { 1, 1, 0, 1, 0 },
    [LOOMRUN_CTL_FENCE_DONE] = { 1, 1, 0, 1, 0 },
    [LOOMRUN_CTL_DMDX_REQ]   = { 3, 0, 0, 0, 0 },
    [LOOMRUN_CTL_DMDX_RESP]  = { 3, 0, 0, 1, 0 },
    [LOOMRUN_CTL_ERROR]      = { 1, 1, 0, 0, 0 },
    [LOOMRUN_CTL_SHUTDOWN]   = { 1, 0, 0, 0, 0 },
    [LOOMRUN_CTL_NOTE]       = { 2, 0, 0, 0, 0 },
};

static int inside(const uint8_t *lo, const uint8_t *hi, const void *p, size_t n)
{
    const uint8_t *q = p;

    return q >= lo && q <= hi && n <= (size_t)(hi - q);
}

/* A list's strings as an array for the packer (NULL-terminated; caller frees). */
static char **list_strings(loomrun_ctl_list_t l, const uint8_t *lo, const uint8_t *hi)
{
    char **v = calloc((size_t)l.n + 1, sizeof(*v));
    const char *s;
    size_t i = 0;

    CHECK(v != NULL);
    while ((s = loomrun_ctl_list_next(&l)) != NULL) {
        CHECK(inside(lo, hi, s, strlen(s) + 1));
        v[i++] = (char *)(uintptr_t)s;
    }
    return v;
}

/* Where the message points, against the frame [lo, hi), and its field counts. */
static void check_msg(const loomrun_ctl_msg_t *m, const uint8_t *lo, const uint8_t *hi)
{
    CHECK(m->type > 0 && m->type < LOOMRUN_CTL_NTYPES);
    CHECK(m->nu == spec_counts[m->type].nu && m->ns == spec_counts[m->type].ns &&
          m->nlist == spec_counts[m->type].nlist);
    CHECK((m->blob != NULL) == spec_counts[m->type].blob);
    CHECK(spec_counts[m->type].arr || (m->arr == NULL && m->arr_n == 0));
    for (int i = 0; i < m->ns; ++i) {
        CHECK(m->s[i] != NULL && inside(lo, hi, m->s[i], strlen(m->s[i]) + 1));
    }
    if (m->blob != NULL) {
        CHECK(inside(lo, hi, m->blob, m->blob_len));
    }
    if (m->arr != NULL) {
        CHECK(m->arr_n <= (size_t)(hi - lo) / 4 && inside(lo, hi, m->arr, (size_t)m->arr_n * 4));
    }
    for (int i = 0; i < m->nlist; ++i) {
        free(list_strings(m->list[i], lo, hi));
    }
}

/* The 'I' array as ints for the packer (caller frees). */
static int *arr_ints(const loomrun_ctl_msg_t *m)
{
    int *v = malloc(((size_t)m->arr_n + 1) * sizeof(*v));

    CHECK(v != NULL);
    for (uint32_t i = 0; i < m->arr_n; ++i) {
        v[i] = (int)loomrun_ctl_arr(m, i);
    }
    return v;
}

/* Pack @p m again by its type's spec. 0 or -1. */
static int repack(loomrun_buf_t *b, const loomrun_ctl_msg_t *m, const uint8_t *lo,
                  const uint8_t *hi)
{
    const uint32_t *u = m->u;
    const char *const *s = m->s;
    char **l0, **l1, **l2;
    int *arr, rc;

    switch ((loomrun_ctl_type_t)m->type) {
    case LOOMRUN_CTL_HELLO:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_HELLO, u[0], u[1], u[2], u[3], s[0],
                                m->blob, m->blob_len);
    case LOOMRUN_CTL_JOB:
        l0 = list_strings(m->list[0], lo, hi);
        l1 = list_strings(m->list[1], lo, hi);
        l2 = list_strings(m->list[2], lo, hi);
        arr = arr_ints(m);
        rc = loomrun_ctl_pack(b, LOOMRUN_CTL_JOB, u[0], u[1], u[2], s[0], s[1], s[2],
                              l0, (int)m->list[0].n, l1, (int)m->list[1].n,
                              l2, (int)m->list[2].n, arr, (int)m->arr_n);
        free(l0);
        free(l1);
        free(l2);
        free(arr);
        return rc;
    case LOOMRUN_CTL_STARTED:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_STARTED, u[0], u[1]);
    case LOOMRUN_CTL_OUTPUT:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_OUTPUT, u[0], u[1], u[2], m->blob, m->blob_len);
    case LOOMRUN_CTL_STDIN:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_STDIN, m->blob, m->blob_len);
    case LOOMRUN_CTL_EXIT:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_EXIT, u[0], u[1], u[2], u[3], u[4]);
    case LOOMRUN_CTL_ABORT:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_ABORT, u[0], (int)u[1], s[0]);
    case LOOMRUN_CTL_SIGNAL:
    case LOOMRUN_CTL_SHUTDOWN:
        return loomrun_ctl_pack(b, (loomrun_ctl_type_t)m->type, u[0]);
    case LOOMRUN_CTL_FENCE:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_FENCE, u[0], s[0], m->blob, m->blob_len);
    case LOOMRUN_CTL_FENCE_DONE:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_FENCE_DONE, (int)u[0], s[0], m->blob,
                                m->blob_len);
    case LOOMRUN_CTL_DMDX_REQ:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_DMDX_REQ, u[0], u[1], u[2]);
    case LOOMRUN_CTL_DMDX_RESP:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_DMDX_RESP, u[0], u[1], (int)u[2], m->blob,
                                m->blob_len);
    case LOOMRUN_CTL_ERROR:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_ERROR, u[0], s[0]);
    case LOOMRUN_CTL_NOTE:
        return loomrun_ctl_pack(b, LOOMRUN_CTL_NOTE, u[0], (int)u[1]);
    default:
        return -1;
    }
}

/* Two decodings of the same bytes at different addresses say the same. */
static void check_same(const loomrun_ctl_msg_t *a, const uint8_t *abase,
                       const loomrun_ctl_msg_t *b, const uint8_t *bbase)
{
    CHECK(a->type == b->type && a->nu == b->nu && a->ns == b->ns && a->nlist == b->nlist);
    CHECK(memcmp(a->u, b->u, sizeof(a->u)) == 0);
    for (int i = 0; i < a->ns; ++i) {
        CHECK((const uint8_t *)a->s[i] - abase == (const uint8_t *)b->s[i] - bbase);
    }
    CHECK(a->blob_len == b->blob_len && a->arr_n == b->arr_n);
    CHECK(a->blob == NULL || a->blob - abase == b->blob - bbase);
    CHECK(a->arr == NULL || a->arr - abase == b->arr - bbase);
    for (int i = 0; i < a->nlist; ++i) {
        CHECK(a->list[i].n == b->list[i].n && a->list[i].p - abase == b->list[i].p - bbase);
    }
}

/* Everything about one good frame of @p used bytes at @p f. */
static void check_frame(const uint8_t *f, size_t used, const loomrun_ctl_msg_t *m)
{
    loomrun_buf_t b = { 0 };
    loomrun_ctl_msg_t m2;
    size_t used2 = 0, cuts[4] = { 0, LOOMRUN_CTL_HDR_LEN - 1, LOOMRUN_CTL_HDR_LEN, used - 1 };
    char why[128];

    CHECK(used >= LOOMRUN_CTL_HDR_LEN);
    check_msg(m, f, f + used);
    for (int i = 0; i < 4; ++i) {   /* a frame still arriving is not an error */
        if (cuts[i] < used) {
            CHECK(loomrun_ctl_decode(f, cuts[i], &m2, &used2, why, sizeof(why)) == 0);
        }
    }
    CHECK(repack(&b, m, f, f + used) == 0);
    CHECK(b.len == used && memcmp(b.p, f, used) == 0);
    CHECK(loomrun_ctl_decode(b.p, b.len, &m2, &used2, why, sizeof(why)) == 1 && used2 == used);
    check_same(m, f, &m2, b.p);
    loomrun_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;

    while (off < size) {
        loomrun_ctl_msg_t m;
        size_t used = 0;
        char why[128];
        int rc;

        why[0] = '\0';
        rc = loomrun_ctl_decode(data + off, size - off, &m, &used, why, sizeof(why));
        if (rc == 0) {
            break;                       /* the head waits for more */
        }
        if (rc < 0) {
            CHECK(why[0] != '\0' && memchr(why, '\0', sizeof(why)) != NULL);
            break;                       /* the head drops the connection */
        }
        CHECK(rc == 1 && used <= size - off);
        CHECK(loomrun_ctl_type_name(m.type)[0] != '?');
        check_frame(data + off, used, &m);
        off += used;
    }
    return 0;
}
