/*
 * compiler_int.h: small compiler helpers used by every layer.
 */
#ifndef LOOM_COMPILER_INT_H
#define LOOM_COMPILER_INT_H

#include <stddef.h>
#include <stdlib.h>

#define loom_likely(x)   __builtin_expect(!!(x), 1)
#define loom_unlikely(x) __builtin_expect(!!(x), 0)

#define LOOM_CACHE_LINE 64
#define LOOM_ALIGNED(n) __attribute__((aligned(n)))
#define LOOM_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#define LOOM_UNUSED __attribute__((unused))

#define loom_container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - offsetof(type, member)))

#define LOOM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define LOOM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LOOM_MAX(a, b) ((a) > (b) ? (a) : (b))
#define LOOM_ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))

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
