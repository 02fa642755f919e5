/*
 * match_int.h: the tag-matching engine (one per process).
 *
 * MPI matching keys are (context, source, tag); receives may wildcard the
 * source and/or the tag. Two structures hold what is waiting:
 *
 *   posted receives   fully specified ones in hashed buckets keyed by
 *                     (context, source, tag); any receive with a wildcard in
 *                     one wildcard queue. Every posted receive gets a
 *                     sequence number; an arriving message takes the first
 *                     match of its bucket and the first match of the
 *                     wildcard queue and keeps the one posted earlier, so MPI
 *                     order holds across both (the scheme of UCX's
 *                     src/ucp/tag/tag_match.inl and libfabric's
 *                     prov/util/src/util_srx.c).
 *   unexpected msgs   every message is in its hash bucket (fast lookup for a
 *                     fully specified receive) and in one arrival-ordered
 *                     list (lookup for a wildcard receive).
 *
 * Non-overtaking per (source, context) follows because transports deliver in
 * order per pair and matching happens at arrival, in arrival order. Entries
 * are intrusive: the caller embeds them (in requests, in unexpected-message
 * buffers) and owns their memory; nothing here allocates per message. The
 * engine knows nothing of payloads or protocols, so it is unit-tested alone
 * (test/p2p/test_match.c).
 */
#ifndef LOOM_MATCH_INT_H
#define LOOM_MATCH_INT_H

#include <loom.h>
#include "list_int.h"

#include <stdint.h>

/* internal to libloom: calls bind inside the library (no PLT, inlinable) */
#pragma GCC visibility push(hidden)

#define LOOM_MATCH_HASH_BITS 10
#define LOOM_MATCH_BUCKETS   (1u << LOOM_MATCH_HASH_BITS)

/** A posted receive; LOOM_ANY_SOURCE / LOOM_ANY_TAG are wildcards. */
typedef struct loom_match_posted {
    loom_list_t list;   /* bucket or wildcard queue; self-linked when not posted */
    uint64_t    seq;    /* posting order */
    uint32_t    ctx;
    int32_t     src;
    int32_t     tag;
} loom_match_posted_t;

/** An unexpected message (fully specified by its sender). */
typedef struct loom_match_unexp {
    loom_list_t hash_list;  /* in its bucket, arrival order */
    loom_list_t all_list;   /* in the global arrival-ordered list */
    uint32_t    ctx;
    int32_t     src;
    int32_t     tag;
} loom_match_unexp_t;

typedef struct loom_match {
    loom_list_t posted_bucket[LOOM_MATCH_BUCKETS];
    loom_list_t posted_wild;
    loom_list_t unexp_bucket[LOOM_MATCH_BUCKETS];
    loom_list_t unexp_all;
    uint64_t    next_seq;
    size_t      num_posted;
    size_t      num_unexp;
} loom_match_t;

/** Initialize an empty engine. */
void loom_match_init(loom_match_t *m);

/** Fill a posted-receive entry (not yet posted). */
static inline void loom_match_posted_prep(loom_match_posted_t *p, uint32_t ctx,
                                          int src, int tag)
{
    loom_list_init(&p->list);
    p->seq = 0;
    p->ctx = ctx;
    p->src = src;
    p->tag = tag;
}

/** 1 while @p p is in the engine (posted, not yet matched or cancelled). */
static inline int loom_match_posted_is_queued(const loom_match_posted_t *p)
{
    return p->list.next != &p->list;
}

/** Post a receive (after loom_match_unexp_find() found nothing for it). */
void loom_match_posted_add(loom_match_t *m, loom_match_posted_t *p);

/** Bucket index of a fully specified key (Fibonacci hashing: top bits are well mixed). */
static inline uint32_t loom_match_hash(uint32_t ctx, int src, int tag)
{
    uint64_t k = ((uint64_t)ctx << 40) ^ ((uint64_t)(uint32_t)src << 20) ^
                 (uint64_t)(uint32_t)tag;

    k *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(k >> (64 - LOOM_MATCH_HASH_BITS));
}

/** The general case of loom_match_posted_take (a wildcard receive is posted). */
loom_match_posted_t *loom_match_posted_take_slow(loom_match_t *m, uint32_t ctx, int src,
                                                 int tag);

/**
 * Find the earliest-posted receive matching an arriving (ctx, src, tag) and
 * remove it. @return it, or NULL (the message is then unexpected).
 *
 * Inline for the common case, no wildcard receive posted: the first exact
 * hit in the key's bucket is the earliest (a bucket is in posting order).
 */
static inline loom_match_posted_t *loom_match_posted_take(loom_match_t *m, uint32_t ctx,
                                                          int src, int tag)
{
    loom_list_t *bucket, *l;

    if (loom_unlikely(!loom_list_is_empty(&m->posted_wild))) {
        return loom_match_posted_take_slow(m, ctx, src, tag);
    }
    bucket = &m->posted_bucket[loom_match_hash(ctx, src, tag)];
    for (l = bucket->next; l != bucket; l = l->next) {
        loom_match_posted_t *p = loom_list_entry(l, loom_match_posted_t, list);
        if (p->ctx == ctx && p->src == src && p->tag == tag) {
            loom_list_del(&p->list);
            --m->num_posted;
            return p;
        }
    }
    return NULL;
}

/** Remove a posted receive (cancel). @return 1 if it was posted, 0 if not. */
int loom_match_posted_remove(loom_match_t *m, loom_match_posted_t *p);

/** Queue an unexpected message (fully specified ctx, src, tag). */
void loom_match_unexp_add(loom_match_t *m, loom_match_unexp_t *u, uint32_t ctx,
                          int src, int tag);

/**
 * The earliest-arrived unexpected message matching a receive for (ctx, src,
 * tag) (wildcards allowed). Does not remove it (probe); NULL if none.
 */
loom_match_unexp_t *loom_match_unexp_find(loom_match_t *m, uint32_t ctx, int src,
                                          int tag);

/** Remove an unexpected message found by loom_match_unexp_find(). */
void loom_match_unexp_remove(loom_match_t *m, loom_match_unexp_t *u);

/**
 * Matched probe: the earliest-arrived unexpected message matching a receive
 * for (ctx, src, tag) (wildcards allowed), removed from the engine so no
 * later receive or probe can match it; NULL if none. The caller owns the
 * entry from then on (it is no longer counted in num_unexp).
 */
loom_match_unexp_t *loom_match_unexp_take(loom_match_t *m, uint32_t ctx, int src, int tag);

#pragma GCC visibility pop

#endif /* LOOM_MATCH_INT_H */
