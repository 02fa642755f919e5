/*
 * tl_mc_proto.h: the wire format and bookkeeping of reliable multicast
 * broadcast, without any verbs call (so it is unit-tested and fuzzed on any
 * host; transport/ib/ib_mc.c drives it over a UD queue pair).
 *
 * Design. A broadcast of len bytes is cut into fragments of frag_size bytes
 * (the last one shorter), each a datagram of one header and its payload,
 * multicast by the root. Every member numbers the broadcasts of a group in
 * call order (op), so a datagram names its broadcast and its fragment
 * without any per-sender sequence state. A receiver keeps a bitmap of the
 * fragments it holds (loom_tl_mc_track_t) and detects a gap when a fragment
 * arrives past the highest seen plus one; it answers with a NACK datagram
 * (to the root, unicast) holding a bitmap of missing fragments from a first
 * index on, and with an ACK once complete. The root resends what a NACK
 * names and completes only when every member ACKed, which is what lets it
 * resend from the caller's own buffer: no copy is kept past the call.
 *
 * Header (32 bytes, host order: jobs are homogeneous, as for every other
 * loom wire format): magic, type, flags, sender's member index, group key,
 * op, total length, fragment index (NACK: first index of its bitmap) and
 * fragment size. Every field is validated by loom_tl_mc_decode, which is
 * the only way in for a received datagram (fuzzed: test/fuzz).
 */
#ifndef LOOM_TL_MC_PROTO_H
#define LOOM_TL_MC_PROTO_H

#include <loom.h>

#include <stddef.h>
#include <stdint.h>

#define LOOM_TL_MC_MAGIC      0x6d63u  /* "mc" */
#define LOOM_TL_MC_NACK_BYTES 64       /* bitmap bytes in one NACK: 512 fragments */
#define LOOM_TL_MC_MAX_FRAGS  (1u << 20)

enum {
    LOOM_TL_MC_DATA = 1,   /* a fragment */
    LOOM_TL_MC_ACK  = 2,   /* receiver holds every fragment of op */
    LOOM_TL_MC_NACK = 3,   /* receiver misses the fragments set in the bitmap */
};
#define LOOM_TL_MC_FLAG_POLL 0x1u  /* DATA: the root asks every member for ACK or NACK */

typedef struct loom_tl_mc_hdr {
    uint16_t magic;
    uint8_t  type;
    uint8_t  flags;
    uint32_t src;        /* sender's member index */
    uint64_t key;        /* group */
    uint32_t op;         /* broadcast number on the group */
    uint32_t len;        /* DATA: total bytes of the broadcast */
    uint32_t frag;       /* DATA: fragment index; NACK: bitmap's first index */
    uint32_t frag_size;  /* DATA: bytes per fragment (the last may be shorter) */
} loom_tl_mc_hdr_t;

_Static_assert(sizeof(loom_tl_mc_hdr_t) == 32, "multicast header is 32 bytes on the wire");

/** A datagram as decoded: header, then payload (DATA) or bitmap (NACK). */
typedef struct loom_tl_mc_pkt {
    loom_tl_mc_hdr_t hdr;
    const uint8_t   *body;
    size_t           body_len;
} loom_tl_mc_pkt_t;

/** Fragments of a broadcast of @p len bytes (0 for an empty one). */
static inline uint32_t loom_tl_mc_nfrags(size_t len, uint32_t frag_size)
{
    return (uint32_t)((len + frag_size - 1) / frag_size);
}

/** Bytes of fragment @p i. */
static inline size_t loom_tl_mc_frag_len(size_t len, uint32_t frag_size, uint32_t i)
{
    size_t off = (size_t)i * frag_size;
    return len - off < frag_size ? len - off : frag_size;
}

/**
 * Decode a received datagram of @p len bytes: header checks (magic, type,
 * sender below @p num_members, a DATA fragment inside its broadcast of at
 * most @p max_len bytes with exactly its length of payload, a NACK bitmap
 * of 1..LOOM_TL_MC_NACK_BYTES bytes, an ACK without body).
 * @return LOOM_OK with @p pkt_p filled, LOOM_ERR_TRUNCATED or
 * LOOM_ERR_INVALID_ARG for a malformed datagram (not logged: the caller
 * counts and rate-limits).
 */
loom_status_t loom_tl_mc_decode(const void *data, size_t len, int num_members,
                                size_t max_len, loom_tl_mc_pkt_t *pkt_p);

/** Write header @p h into @p buf (32 bytes). */
void loom_tl_mc_encode(void *buf, const loom_tl_mc_hdr_t *h);

/**
 * Which fragments of one broadcast a receiver holds. The bitmap's storage
 * is the caller's (loom_tl_mc_track_words(max_frags) words), given once.
 */
typedef struct loom_tl_mc_track {
    uint64_t *bits;
    uint32_t  max_frags;
    uint32_t  nfrags;    /* of the current broadcast */
    uint32_t  have;      /* fragments held */
    uint32_t  high;      /* highest index received + 1 */
} loom_tl_mc_track_t;

static inline size_t loom_tl_mc_track_words(uint32_t max_frags)
{
    return ((size_t)max_frags + 63) / 64;
}

/** Start tracking a broadcast of @p nfrags fragments (<= max_frags). */
void loom_tl_mc_track_reset(loom_tl_mc_track_t *t, uint32_t nfrags);

/** Record fragment @p i. @return 1 if new, 0 if a duplicate (or out of range). */
int loom_tl_mc_track_mark(loom_tl_mc_track_t *t, uint32_t i);

/** 1 if fragment @p i is held. */
int loom_tl_mc_track_has(const loom_tl_mc_track_t *t, uint32_t i);

/** 1 when every fragment is held. */
static inline int loom_tl_mc_track_complete(const loom_tl_mc_track_t *t)
{
    return t->have == t->nfrags;
}

/**
 * The NACK bitmap: fragments missing from the first missing one on, at
 * most LOOM_TL_MC_NACK_BYTES * 8 of them, up to @p upto (exclusive; the
 * caller passes high for a gap, nfrags for a timeout). Fills @p mask
 * (LOOM_TL_MC_NACK_BYTES bytes) and @p first_p.
 * @return bytes of @p mask to send (0: nothing missing below @p upto).
 */
size_t loom_tl_mc_track_nack(const loom_tl_mc_track_t *t, uint32_t upto, uint8_t *mask,
                             uint32_t *first_p);

/**
 * Apply a NACK's bitmap to the root's resend set @p resend (nfrags bits):
 * sets the bits of the missing fragments below @p nfrags.
 * @return how many bits were newly set.
 */
uint32_t loom_tl_mc_nack_apply(uint64_t *resend, uint32_t nfrags, uint32_t first,
                               const uint8_t *mask, size_t mask_len);

/** Index of the first bit set in @p bits at or after @p from, below @p n (n if none). */
uint32_t loom_tl_mc_bits_next(const uint64_t *bits, uint32_t n, uint32_t from);

#endif /* LOOM_TL_MC_PROTO_H */
