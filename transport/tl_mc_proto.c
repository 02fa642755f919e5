/*
 * tl_mc_proto.c: decoding and fragment bookkeeping of reliable multicast
 * broadcast (design in tl_mc_proto.h). No verbs, no allocation.
 */
#include "tl_mc_proto.h"

#include <string.h>

static loom_status_t loom_tl_mc_check_data(const loom_tl_mc_pkt_t *p, size_t max_len)
{
    const loom_tl_mc_hdr_t *h = &p->hdr;
    uint32_t n;

    if (h->frag_size == 0 || h->len == 0 || h->len > max_len) {
        return LOOM_ERR_INVALID_ARG;
    }
    n = loom_tl_mc_nfrags(h->len, h->frag_size);
    if (n > LOOM_TL_MC_MAX_FRAGS || h->frag >= n) {
        return LOOM_ERR_INVALID_ARG;
    }
    if (p->body_len != loom_tl_mc_frag_len(h->len, h->frag_size, h->frag)) {
        return LOOM_ERR_TRUNCATED;
    }
    return LOOM_OK;
}

loom_status_t loom_tl_mc_decode(const void *data, size_t len, int num_members,
                                size_t max_len, loom_tl_mc_pkt_t *pkt_p)
{
    loom_tl_mc_pkt_t p;
    loom_status_t status = LOOM_OK;

    if (data == NULL || len < sizeof(p.hdr)) {
        return LOOM_ERR_TRUNCATED;
    }
    memcpy(&p.hdr, data, sizeof(p.hdr));
    p.body = (const uint8_t *)data + sizeof(p.hdr);
    p.body_len = len - sizeof(p.hdr);
    if (p.hdr.magic != LOOM_TL_MC_MAGIC || num_members <= 0 ||
        p.hdr.src >= (uint32_t)num_members || (p.hdr.flags & ~LOOM_TL_MC_FLAG_POLL) != 0) {
        return LOOM_ERR_INVALID_ARG;
    }
    switch (p.hdr.type) {
    case LOOM_TL_MC_DATA:
        status = loom_tl_mc_check_data(&p, max_len);
        break;
    case LOOM_TL_MC_ACK:
        status = p.body_len == 0 ? LOOM_OK : LOOM_ERR_INVALID_ARG;
        break;
    case LOOM_TL_MC_NACK:
        if (p.body_len == 0 || p.body_len > LOOM_TL_MC_NACK_BYTES ||
            p.hdr.frag >= LOOM_TL_MC_MAX_FRAGS) {
            status = LOOM_ERR_INVALID_ARG;
        }
        break;
    default:
        status = LOOM_ERR_INVALID_ARG;
        break;
    }
    if (status == LOOM_OK) {
        *pkt_p = p;
    }
    return status;
}

void loom_tl_mc_encode(void *buf, const loom_tl_mc_hdr_t *h)
{
    memcpy(buf, h, sizeof(*h));
}

void loom_tl_mc_track_reset(loom_tl_mc_track_t *t, uint32_t nfrags)
{
    t->nfrags = nfrags <= t->max_frags ? nfrags : t->max_frags;
    t->have = 0;
    t->high = 0;
    memset(t->bits, 0, loom_tl_mc_track_words(t->nfrags) * sizeof(uint64_t));
}

int loom_tl_mc_track_has(const loom_tl_mc_track_t *t, uint32_t i)
{
    return i < t->nfrags && (t->bits[i / 64] >> (i % 64) & 1u);
}

int loom_tl_mc_track_mark(loom_tl_mc_track_t *t, uint32_t i)
{
    if (i >= t->nfrags || loom_tl_mc_track_has(t, i)) {
        return 0;
    }
    t->bits[i / 64] |= (uint64_t)1 << (i % 64);
    ++t->have;
    if (i + 1 > t->high) {
        t->high = i + 1;
    }
    return 1;
}

size_t loom_tl_mc_track_nack(const loom_tl_mc_track_t *t, uint32_t upto, uint8_t *mask,
                             uint32_t *first_p)
{
    uint32_t first, i, last = 0;
    int any = 0;

    if (upto > t->nfrags) {
        upto = t->nfrags;
    }
    for (first = 0; first < upto && loom_tl_mc_track_has(t, first); ++first) {
    }
    if (first >= upto) {
        return 0;
    }
    memset(mask, 0, LOOM_TL_MC_NACK_BYTES);
    for (i = first; i < upto && i - first < LOOM_TL_MC_NACK_BYTES * 8; ++i) {
        if (!loom_tl_mc_track_has(t, i)) {
            mask[(i - first) / 8] |= (uint8_t)(1u << ((i - first) % 8));
            last = i - first;
            any = 1;
        }
    }
    *first_p = first;
    return any ? last / 8 + 1 : 0;
}

uint32_t loom_tl_mc_nack_apply(uint64_t *resend, uint32_t nfrags, uint32_t first,
                               const uint8_t *mask, size_t mask_len)
{
    uint32_t added = 0;
    size_t b;

    for (b = 0; b < mask_len * 8; ++b) {
        uint64_t i = (uint64_t)first + b;
        if (i >= nfrags) {
            break;
        }
        if ((mask[b / 8] >> (b % 8) & 1u) && !(resend[i / 64] >> (i % 64) & 1u)) {
            resend[i / 64] |= (uint64_t)1 << (i % 64);
            ++added;
        }
    }
    return added;
}

uint32_t loom_tl_mc_bits_next(const uint64_t *bits, uint32_t n, uint32_t from)
{
    uint32_t i = from;

    while (i < n) {
        uint64_t w = bits[i / 64] >> (i % 64);
        if (w != 0) {
            i += (uint32_t)__builtin_ctzll(w);
            return i < n ? i : n;
        }
        i = (i / 64 + 1) * 64;
    }
    return n;
}
