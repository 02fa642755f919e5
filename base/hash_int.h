/*
 * hash_int.h: the one non-cryptographic hash of the runtime, FNV-1a.
 *
 * Design. Where every rank must derive the same value on its own (a
 * communicator's multicast group key, a group's multicast address) and
 * where a short name must tell apart inputs that map alike (the host part
 * of a shared-memory segment name), loom uses FNV-1a (Fowler/Noll/Vo,
 * "xor then multiply" per byte): tiny, no tables, well spread for short
 * keys and fully specified, so its values never change between versions,
 * compilers or hosts. It is not for adversarial input or hash tables under
 * attack. Both functions take the running value, so a key built from
 * several parts is hashed by chaining calls, starting from the offset
 * basis (LOOM_HASH_FNV1A*_INIT); the result equals one call over the
 * parts laid end to end. The 32-bit variant exists because shm names
 * carry 8 hex digits that were defined as 32-bit FNV-1a; folding the
 * 64-bit value would rename every segment for no gain. Callers that hash
 * integers byte by byte in a fixed order (loom_hash_fnv1a64_u32, least
 * significant byte first) get the same value on hosts of either byte
 * order.
 */
#ifndef LOOM_HASH_INT_H
#define LOOM_HASH_INT_H

#include <stddef.h>
#include <stdint.h>

#define LOOM_HASH_FNV1A64_INIT  0xcbf29ce484222325ull   /* offset basis */
#define LOOM_HASH_FNV1A64_PRIME 0x100000001b3ull
#define LOOM_HASH_FNV1A32_INIT  2166136261u
#define LOOM_HASH_FNV1A32_PRIME 16777619u

/** 64-bit FNV-1a of @p len bytes at @p data, continuing from @p h. */
static inline uint64_t loom_hash_fnv1a64(uint64_t h, const void *data, size_t len)
{
    const uint8_t *p = data;

    for (size_t i = 0; i < len; ++i) {
        h = (h ^ p[i]) * LOOM_HASH_FNV1A64_PRIME;
    }
    return h;
}

/** 64-bit FNV-1a of the 4 bytes of @p v, least significant first (any host). */
static inline uint64_t loom_hash_fnv1a64_u32(uint64_t h, uint32_t v)
{
    const uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                           (uint8_t)(v >> 24) };

    return loom_hash_fnv1a64(h, b, sizeof(b));
}

/** 32-bit FNV-1a of @p len bytes at @p data, continuing from @p h. */
static inline uint32_t loom_hash_fnv1a32(uint32_t h, const void *data, size_t len)
{
    const uint8_t *p = data;

    for (size_t i = 0; i < len; ++i) {
        h = (h ^ p[i]) * LOOM_HASH_FNV1A32_PRIME;
    }
    return h;
}

#endif /* LOOM_HASH_INT_H */
