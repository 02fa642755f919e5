/*
 * match.c: the tag-matching engine (see match_int.h for the design).
 */
#include "match_int.h"

static inline int loom_match_is_wild(int src, int tag)
{
    return src == LOOM_ANY_SOURCE || tag == LOOM_ANY_TAG;
}

/* does a receive for (ctx, rsrc, rtag) accept a message (ctx, src, tag)? */
static inline int loom_match_accepts(int rsrc, int rtag, int src, int tag)
{
    return (rsrc == src || rsrc == LOOM_ANY_SOURCE) &&
           (rtag == tag || rtag == LOOM_ANY_TAG);
}

void loom_match_init(loom_match_t *m)
{
    for (uint32_t i = 0; i < LOOM_MATCH_BUCKETS; ++i) {
        loom_list_init(&m->posted_bucket[i]);
        loom_list_init(&m->unexp_bucket[i]);
    }
    loom_list_init(&m->posted_wild);
    loom_list_init(&m->unexp_all);
    m->next_seq   = 1;
    m->num_posted = 0;
    m->num_unexp  = 0;
}

void loom_match_posted_add(loom_match_t *m, loom_match_posted_t *p)
{
    loom_list_t *q = loom_match_is_wild(p->src, p->tag) ?
                     &m->posted_wild :
                     &m->posted_bucket[loom_match_hash(p->ctx, p->src, p->tag)];

    p->seq = m->next_seq++;
    loom_list_add_tail(q, &p->list);
    ++m->num_posted;
}

static loom_match_posted_t *loom_match_posted_first_exact(loom_list_t *bucket,
                                                          uint32_t ctx, int src,
                                                          int tag)
{
    loom_match_posted_t *p;

    /* other keys may share the bucket: the first exact hit is the earliest */
    loom_list_for_each(p, bucket, list) {
        if (p->ctx == ctx && p->src == src && p->tag == tag) {
            return p;
        }
    }
    return NULL;
}

static loom_match_posted_t *loom_match_posted_first_wild(loom_list_t *wild,
                                                         uint32_t ctx, int src,
                                                         int tag)
{
    loom_match_posted_t *p;

    loom_list_for_each(p, wild, list) {
        if (p->ctx == ctx && loom_match_accepts(p->src, p->tag, src, tag)) {
            return p;
        }
    }
    return NULL;
}

loom_match_posted_t *loom_match_posted_take_slow(loom_match_t *m, uint32_t ctx, int src,
                                                 int tag)
{
    loom_list_t *bucket = &m->posted_bucket[loom_match_hash(ctx, src, tag)];
    loom_match_posted_t *exact = NULL, *wild = NULL, *p;

    if (!loom_list_is_empty(bucket)) {
        exact = loom_match_posted_first_exact(bucket, ctx, src, tag);
    }
    if (loom_unlikely(!loom_list_is_empty(&m->posted_wild))) {
        wild = loom_match_posted_first_wild(&m->posted_wild, ctx, src, tag);
    }
    if (wild != NULL && (exact == NULL || wild->seq < exact->seq)) {
        p = wild;
    } else {
        p = exact;
    }
    if (p != NULL) {
        loom_list_del(&p->list);
        --m->num_posted;
    }
    return p;
}

int loom_match_posted_remove(loom_match_t *m, loom_match_posted_t *p)
{
    if (!loom_match_posted_is_queued(p)) {
        return 0;
    }
    loom_list_del(&p->list);
    --m->num_posted;
    return 1;
}

void loom_match_unexp_add(loom_match_t *m, loom_match_unexp_t *u, uint32_t ctx,
                          int src, int tag)
{
    u->ctx = ctx;
    u->src = src;
    u->tag = tag;
    loom_list_add_tail(&m->unexp_bucket[loom_match_hash(ctx, src, tag)],
                       &u->hash_list);
    loom_list_add_tail(&m->unexp_all, &u->all_list);
    ++m->num_unexp;
}

loom_match_unexp_t *loom_match_unexp_find(loom_match_t *m, uint32_t ctx, int src,
                                          int tag)
{
    loom_match_unexp_t *u;

    if (m->num_unexp == 0) {
        return NULL;
    }
    if (!loom_match_is_wild(src, tag)) {
        loom_list_t *bucket = &m->unexp_bucket[loom_match_hash(ctx, src, tag)];
        loom_list_for_each(u, bucket, hash_list) {
            if (u->ctx == ctx && u->src == src && u->tag == tag) {
                return u;
            }
        }
        return NULL;
    }
    loom_list_for_each(u, &m->unexp_all, all_list) {
        if (u->ctx == ctx && loom_match_accepts(src, tag, u->src, u->tag)) {
            return u;
        }
    }
    return NULL;
}

void loom_match_unexp_remove(loom_match_t *m, loom_match_unexp_t *u)
{
    loom_list_del(&u->hash_list);
    loom_list_del(&u->all_list);
    --m->num_unexp;
}

loom_match_unexp_t *loom_match_unexp_take(loom_match_t *m, uint32_t ctx, int src, int tag)
{
    loom_match_unexp_t *u = loom_match_unexp_find(m, ctx, src, tag);

    if (u != NULL) {
        loom_match_unexp_remove(m, u);
        loom_list_init(&u->hash_list);   /* self-linked: owned by the prober */
        loom_list_init(&u->all_list);
    }
    return u;
}
