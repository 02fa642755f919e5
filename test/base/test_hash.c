/*
 * test_hash.c: FNV-1a (base/hash_int.h) against the published test vectors
 * of its authors, chaining, and the byte order of the integer variant: the
 * values feed multicast group keys and addresses that every rank computes
 * on its own and shm segment names, so they must never change.
 */
#include "../common/cunit_main.h"
#include "hash_int.h"

#include <string.h>

static void test_fnv1a64_vectors(void)
{
    CU_ASSERT_EQUAL(loom_hash_fnv1a64(LOOM_HASH_FNV1A64_INIT, "", 0), 0xcbf29ce484222325ull);
    CU_ASSERT_EQUAL(loom_hash_fnv1a64(LOOM_HASH_FNV1A64_INIT, "a", 1), 0xaf63dc4c8601ec8cull);
    CU_ASSERT_EQUAL(loom_hash_fnv1a64(LOOM_HASH_FNV1A64_INIT, "foobar", 6),
                    0x85944171f73967e8ull);
}

static void test_fnv1a32_vectors(void)
{
    CU_ASSERT_EQUAL(loom_hash_fnv1a32(LOOM_HASH_FNV1A32_INIT, "", 0), 0x811c9dc5u);
    CU_ASSERT_EQUAL(loom_hash_fnv1a32(LOOM_HASH_FNV1A32_INIT, "a", 1), 0xe40c292cu);
    CU_ASSERT_EQUAL(loom_hash_fnv1a32(LOOM_HASH_FNV1A32_INIT, "foobar", 6), 0xbf9cf968u);
    /* the host part of the shm segment name of "node 1" (test_shm_iface.c) */
    CU_ASSERT_EQUAL(loom_hash_fnv1a32(LOOM_HASH_FNV1A32_INIT, "node 1", 6), 0x60e49a12u);
}

/* Hashing parts in turn equals hashing them laid end to end. */
static void test_fnv1a_chaining(void)
{
    uint64_t h64 = loom_hash_fnv1a64(LOOM_HASH_FNV1A64_INIT, "foo", 3);
    uint32_t h32 = loom_hash_fnv1a32(LOOM_HASH_FNV1A32_INIT, "fo", 2);

    CU_ASSERT_EQUAL(loom_hash_fnv1a64(h64, "bar", 3), 0x85944171f73967e8ull);
    CU_ASSERT_EQUAL(loom_hash_fnv1a32(h32, "obar", 4), 0xbf9cf968u);
}

/* Integers go in least significant byte first, whatever the host's order:
 * the multicast key of a communicator (context id 7, world ranks 0, 2, 5)
 * as the code before hash_int.h computed it. */
static void test_fnv1a64_u32(void)
{
    static const uint8_t le[4] = { 0x78, 0x56, 0x34, 0x12 };
    static const uint32_t parts[] = { 7, 0, 2, 5 };
    uint64_t h = LOOM_HASH_FNV1A64_INIT;

    CU_ASSERT_EQUAL(loom_hash_fnv1a64_u32(LOOM_HASH_FNV1A64_INIT, 0x12345678u),
                    loom_hash_fnv1a64(LOOM_HASH_FNV1A64_INIT, le, sizeof(le)));
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); ++i) {
        h = loom_hash_fnv1a64_u32(h, parts[i]);
    }
    CU_ASSERT_EQUAL(h, 0x7d15ac78c0ee3635ull);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "FNV-1a 64 test vectors", test_fnv1a64_vectors },
        { "FNV-1a 32 test vectors", test_fnv1a32_vectors },
        { "FNV-1a chaining", test_fnv1a_chaining },
        { "FNV-1a 64 of integers", test_fnv1a64_u32 },
        { NULL, NULL },
    };
    return loom_test_run_suite("core hash", cases, NULL, NULL);
}
