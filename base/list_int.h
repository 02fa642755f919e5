/*
 * list_int.h: intrusive circular doubly-linked list (after UCX's ucs/list.h
 * and libuv's queue.h). Elements embed a loom_list_t; the head is a
 * loom_list_t too. Nothing here allocates.
 */
#ifndef LOOM_LIST_INT_H
#define LOOM_LIST_INT_H

#include "compiler_int.h"

typedef struct loom_list {
    struct loom_list *prev;
    struct loom_list *next;
} loom_list_t;

#define LOOM_LIST_HEAD_INIT(name) { &(name), &(name) }

static inline void loom_list_init(loom_list_t *head)
{
    head->prev = head->next = head;
}

static inline int loom_list_is_empty(const loom_list_t *head)
{
    return head->next == head;
}

static inline void loom_list_insert_between_(loom_list_t *elem, loom_list_t *prev,
                                             loom_list_t *next)
{
    elem->prev = prev;
    elem->next = next;
    prev->next = elem;
    next->prev = elem;
}

/** Append at the tail (FIFO order with loom_list_pop_head). */
static inline void loom_list_add_tail(loom_list_t *head, loom_list_t *elem)
{
    loom_list_insert_between_(elem, head->prev, head);
}

static inline void loom_list_add_head(loom_list_t *head, loom_list_t *elem)
{
    loom_list_insert_between_(elem, head, head->next);
}

static inline void loom_list_del(loom_list_t *elem)
{
    elem->prev->next = elem->next;
    elem->next->prev = elem->prev;
    elem->prev = elem->next = elem;
}

static inline loom_list_t *loom_list_pop_head(loom_list_t *head)
{
    loom_list_t *e = head->next;
    if (e == head) {
        return NULL;
    }
    loom_list_del(e);
    return e;
}

static inline size_t loom_list_length(const loom_list_t *head)
{
    size_t n = 0;
    for (const loom_list_t *e = head->next; e != head; e = e->next) {
        ++n;
    }
    return n;
}

#define loom_list_entry(ptr, type, member) loom_container_of(ptr, type, member)

#define loom_list_head_entry(head, type, member) \
    loom_list_entry((head)->next, type, member)

/*
 * The list node inside an entry, by address arithmetic only: the loops below
 * also compute a (never dereferenced) "entry" for the head itself, which is
 * not an entry, so they must not use member access on it (UBSan's alignment
 * check would rightly flag it).
 */
#define loom_list_node_(elem, member) \
    ((loom_list_t *)((char *)(elem) + offsetof(__typeof__(*(elem)), member)))

/* Iterate over entries; safe against deletion of the current entry. */
#define loom_list_for_each_safe(elem, tmp, head, member)                          \
    for (elem = loom_list_entry((head)->next, __typeof__(*elem), member),         \
        tmp = loom_list_entry(loom_list_node_(elem, member)->next,                \
                              __typeof__(*elem), member);                         \
         loom_list_node_(elem, member) != (head);                                 \
         elem = tmp, tmp = loom_list_entry(loom_list_node_(tmp, member)->next,    \
                                           __typeof__(*elem), member))

#define loom_list_for_each(elem, head, member)                                    \
    for (elem = loom_list_entry((head)->next, __typeof__(*elem), member);         \
         loom_list_node_(elem, member) != (head);                                 \
         elem = loom_list_entry(loom_list_node_(elem, member)->next,              \
                                __typeof__(*elem), member))

#endif /* LOOM_LIST_INT_H */
