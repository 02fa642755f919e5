/*
 * fuzz_mcast_frag.c: libFuzzer target for the multicast broadcast's
 * datagram decoder and fragment bookkeeping (transport/tl_mc_proto.c), as
 * the verbs transport's receive path uses them (transport/ib/ib_mc_bcast.c):
 * decode, then for DATA copy the payload to its place in the broadcast
 * buffer and mark it; for NACK apply the bitmap to the root's resend set.
 *
 * Input: byte 0 = group size (1..16), byte 1 = the receiver's expected
 * length class; then datagrams, each a 2-byte length and that many bytes.
 * Checked beyond "no crash": a decoded DATA fragment lies inside a buffer
 * of the decoder's max_len (each an exact-size allocation, so ASan sees
 * any overrun), has exactly its fragment length, a sender below the group
 * size; marks never exceed the fragment count; a NACK only sets bits below
 * the broadcast's fragment count; the NACK a receiver would send back
 * decodes again.
 */
#include "tl_mc_proto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LEN   65536u
#define MAX_FRAGS (MAX_LEN / 16 + 1)

static void check(int cond)
{
    if (!cond) {
        abort();
    }
}

static void on_data(const loom_tl_mc_pkt_t *p, int members, uint8_t *buf,
                    loom_tl_mc_track_t *t, uint32_t *cur_len)
{
    const loom_tl_mc_hdr_t *h = &p->hdr;
    uint32_t nf = loom_tl_mc_nfrags(h->len, h->frag_size);
    size_t off = (size_t)h->frag * h->frag_size;

    check(h->src < (uint32_t)members && h->len <= MAX_LEN && h->frag < nf);
    check(p->body_len == loom_tl_mc_frag_len(h->len, h->frag_size, h->frag));
    check(off + p->body_len <= h->len);
    if (*cur_len != h->len || nf > t->max_frags) {
        if (nf > t->max_frags) {
            return;   /* the transport bounds fragments by its own frag size */
        }
        *cur_len = h->len;
        loom_tl_mc_track_reset(t, nf);
    }
    if (loom_tl_mc_track_mark(t, h->frag)) {
        memcpy(buf + off, p->body, p->body_len);
    }
    check(t->have <= t->nfrags && t->high <= t->nfrags);
}

static void on_nack(const loom_tl_mc_pkt_t *p, uint64_t *resend, uint32_t nf)
{
    uint32_t added = loom_tl_mc_nack_apply(resend, nf, p->hdr.frag, p->body, p->body_len);

    check(added <= p->body_len * 8);
    check(loom_tl_mc_bits_next(resend, nf, 0) <= nf);
}

/* The NACK this receiver would send must decode. */
static void answer(const loom_tl_mc_track_t *t)
{
    uint8_t out[sizeof(loom_tl_mc_hdr_t) + LOOM_TL_MC_NACK_BYTES];
    loom_tl_mc_hdr_t h = { LOOM_TL_MC_MAGIC, LOOM_TL_MC_NACK, 0, 0, 1, 0, 0, 0, 0 };
    loom_tl_mc_pkt_t p;
    size_t n = loom_tl_mc_track_nack(t, t->nfrags, out + sizeof(h), &h.frag);

    if (n == 0) {
        check(loom_tl_mc_track_complete(t));
        return;
    }
    check(!loom_tl_mc_track_has(t, h.frag));
    loom_tl_mc_encode(out, &h);
    check(loom_tl_mc_decode(out, sizeof(h) + n, 1, MAX_LEN, &p) == LOOM_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint64_t bits[(MAX_FRAGS + 63) / 64];
    uint64_t resend[(MAX_FRAGS + 63) / 64] = { 0 };
    loom_tl_mc_track_t t = { bits, MAX_FRAGS, 0, 0, 0 };
    uint8_t *buf;
    uint32_t cur_len = 0;
    int members;
    size_t pos = 2;

    if (size < 2) {
        return 0;
    }
    members = 1 + data[0] % 16;
    buf = malloc(MAX_LEN);
    if (buf == NULL) {
        return 0;
    }
    loom_tl_mc_track_reset(&t, 0);
    while (pos + 2 <= size) {
        size_t len = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
        uint8_t *copy;
        loom_tl_mc_pkt_t p;

        pos += 2;
        len = len < size - pos ? len : size - pos;
        copy = malloc(len ? len : 1);   /* exact size: ASan catches over-reads */
        if (copy == NULL) {
            break;
        }
        memcpy(copy, data + pos, len);
        pos += len;
        if (loom_tl_mc_decode(copy, len, members, MAX_LEN >> (data[1] % 8), &p) == LOOM_OK) {
            if (p.hdr.type == LOOM_TL_MC_DATA) {
                on_data(&p, members, buf, &t, &cur_len);
            } else if (p.hdr.type == LOOM_TL_MC_NACK) {
                on_nack(&p, resend, t.nfrags ? t.nfrags : MAX_FRAGS);
            } else {
                check(p.hdr.type == LOOM_TL_MC_ACK && p.body_len == 0);
            }
        }
        free(copy);
    }
    answer(&t);
    free(buf);
    return 0;
}
