/*
 * compiler_int.h: small compiler helpers used by every layer.
 */
#ifndef LOOM_COMPILER_INT_H
#define LOOM_COMPILER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define loom_likely(x)   __builtin_expect(!!(x), 1)
#define loom_unlikely(x) __builtin_expect(!!(x), 0)

#define LOOM_CACHE_LINE 64
#define LOOM_ALIGNED(n) __attribute__((aligned(n)))
#define LOOM_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#define LOOM_UNUSED __attribute__((unused))

#define loom_container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * The spin-wait hint, once per iteration of a loop that polls a line
 * another core writes. Without it the spinning core keeps many loads of
 * the line in flight and flushes its pipeline when the writer's store
 * invalidates them, which delays the reaction it waits for.
 */
static inline void loom_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#define LOOM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define LOOM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LOOM_MAX(a, b) ((a) > (b) ? (a) : (b))
#define LOOM_ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))

/*
 * Copy @p n <= 32 bytes without a libc call: (possibly overlapping)
 * word moves that read only [src, src + n) and write only [dst, dst + n).
 * For the small-message paths (a frame into an shm slot, an eager payload
 * into the user's buffer), where a memcpy call is a measurable share of the
 * latency. dst and src must not overlap each other.
 */
static inline void loom_copy_le32(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    uint64_t a, b;

    if (n >= 16) {
        uint64_t c, e;
        memcpy(&a, s, 8);
        memcpy(&b, s + 8, 8);
        memcpy(&c, s + n - 16, 8);
        memcpy(&e, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + 8, &b, 8);
        memcpy(d + n - 16, &c, 8);
        memcpy(d + n - 8, &e, 8);
    } else if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else if (n != 0) {
        d[0]      = s[0];
        d[n >> 1] = s[n >> 1];
        d[n - 1]  = s[n - 1];
    }
}

/* Any @p n: loom_copy_le32 up to 32 bytes, memcpy above. */
static inline void loom_copy_small(void *dst, const void *src, size_t n)
{
    if (n > 32) {
        memcpy(dst, src, n);
    } else {
        loom_copy_le32(dst, src, n);
    }
}

/* A 32- or 64-bit integer (@p esize 4 or 8 bytes) at @p p, any alignment. */
static inline uint64_t loom_load_int(const void *p, size_t esize)
{
    uint64_t v8;
    uint32_t v4;

    if (esize == 8) {
        memcpy(&v8, p, 8);
        return v8;
    }
    memcpy(&v4, p, 4);
    return v4;
}

/* Store @p v as a 32- or 64-bit integer (@p esize) at @p p, any alignment. */
static inline void loom_store_int(void *p, uint64_t v, size_t esize)
{
    uint32_t v4 = (uint32_t)v;

    if (esize == 8) {
        memcpy(p, &v, 8);
    } else {
        memcpy(p, &v4, 4);
    }
}

void loom_assert_fail(const char *expr, const char *file, int line)
    __attribute__((noreturn));

/* Invariants only: bad user input is a returned error, never an assert. */
#ifdef LOOM_DEBUG
#define loom_assert(expr) \
    ((expr) ? (void)0 : loom_assert_fail(#expr, __FILE__, __LINE__))
#else
#define loom_assert(expr) ((void)0)
#endif

#endif /* LOOM_COMPILER_INT_H */
