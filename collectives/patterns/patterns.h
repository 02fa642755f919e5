/*
 * patterns.h: the rank arithmetic of every collective algorithm, apart from
 * any communication (after UCC's src/coll_patterns). Each function answers
 * "who do I talk to at step k and which blocks move": nothing here sends,
 * allocates or logs, so test/coll/test_patterns.c checks every pattern for
 * every rank count in one process.
 *
 * Conventions: p is the number of ranks (>= 1), r a rank in [0, p). Tree
 * patterns work on "virtual ranks" v = (r - root) mod p so the root is 0.
 * Blocks are numbered 0..n-1; loom_pat_block() splits a count of elements
 * into n nearly equal blocks (the first count % n get one extra element).
 */
#ifndef LOOM_COLL_PATTERNS_H
#define LOOM_COLL_PATTERNS_H

#include <stddef.h>

/* ---- blocks ------------------------------------------------------------------- */

/** Element offset of block @p i when @p count elements are split in @p n blocks. */
static inline size_t loom_pat_block_off(size_t count, int n, int i)
{
    size_t q = count / (size_t)n, rem = count % (size_t)n;
    size_t ui = (size_t)i;
    return ui * q + (ui < rem ? ui : rem);
}

/** Element count of block @p i (see loom_pat_block_off). */
static inline size_t loom_pat_block_len(size_t count, int n, int i)
{
    return count / (size_t)n + ((size_t)i < count % (size_t)n ? 1 : 0);
}

/** Largest power of two <= @p p (p >= 1). */
static inline int loom_pat_pof2_floor(int p)
{
    int x = 1;
    while (x * 2 <= p) {
        x *= 2;
    }
    return x;
}

/** Number of steps of a doubling pattern: ceil(log2 p). */
static inline int loom_pat_log2_ceil(int p)
{
    int k = 0;
    while ((1 << k) < p) {
        ++k;
    }
    return k;
}

/* ---- virtual ranks (root rotation) --------------------------------------------- */

static inline int loom_pat_vrank(int r, int root, int p)
{
    return (r - root + p) % p;
}

static inline int loom_pat_rank(int v, int root, int p)
{
    return (v + root) % p;
}

/* ---- binomial tree (virtual ranks) ---------------------------------------------
 *
 *   p = 8:        0
 *              /  |  \
 *             4   2   1        parent(v) = v with its lowest set bit cleared
 *            / \  |            children(v) = v + 2^j for 2^j < lowbit(v)
 *           6   5 3
 *           |                  subtree(v) = [v, v + min(lowbit(v), p - v))
 *           7
 */

/** Parent of virtual rank @p v, -1 for the root. */
static inline int loom_pat_binomial_parent(int v)
{
    return v == 0 ? -1 : (v & (v - 1));
}

/** Number of virtual ranks in the subtree rooted at @p v (itself included). */
int loom_pat_binomial_subtree(int v, int p);

/**
 * Children of @p v, largest subtree first (the order a bcast sends in; a
 * gather receives them in reverse). Writes at most @p max entries.
 * @return the number of children.
 */
int loom_pat_binomial_children(int v, int p, int *children, int max);

/* ---- recursive doubling with the non-power-of-two pre/post step ---------------
 *
 *   p = 6, pof2 = 4, rem = 2:
 *     ranks  0  1  2  3  4  5
 *     pre:   0->1  2->3           (even ranks < 2*rem hand their data over)
 *     new:   -  0  -  1  2  3     (newrank; "-" = extra, idle in the middle)
 *     steps: newrank ^ 1, newrank ^ 2   (real rank of newrank n: n < rem ? 2n+1 : n+rem)
 *     post:  1->0  3->2           (the result goes back to the extras)
 */
typedef struct loom_pat_rd {
    int p;
    int pof2;
    int rem;      /* p - pof2 */
    int newrank;  /* -1 for an extra rank */
    int buddy;    /* pre/post partner (real rank) or -1 */
} loom_pat_rd_t;

void loom_pat_rd_init(loom_pat_rd_t *rd, int r, int p);

/** Real rank of @p newrank. */
static inline int loom_pat_rd_real(const loom_pat_rd_t *rd, int newrank)
{
    return newrank < rd->rem ? 2 * newrank + 1 : newrank + rd->rem;
}

/**
 * First real rank whose contribution @p newrank carries; newrank n carries
 * ranks [loom_pat_rd_first(n), loom_pat_rd_first(n + 1)). n may be pof2 (= p).
 */
static inline int loom_pat_rd_first(const loom_pat_rd_t *rd, int newrank)
{
    return newrank < rd->rem ? 2 * newrank : newrank + rd->rem;
}

/* ---- recursive halving / doubling over pof2 blocks (Rabenseifner) ---------------
 *
 *   pof2 = 4, newrank 1, blocks 0..3:
 *     halving  d=2: window [0,4) keep [0,2) send [2,4) to 3
 *              d=1: window [0,2) keep [1,2) send [0,1) to 0   -> owns block 1
 *     doubling d=1: have [1,2) recv [0,1) from 0
 *              d=2: have [0,2) recv [2,4) from 3              -> owns all
 */

/** Halving step @p d (pof2/2 .. 1): blocks kept [*keep_p, +d), sent [*send_p, +d). */
static inline void loom_pat_halving_step(int newrank, int d, int *keep_p, int *send_p)
{
    int base = newrank & ~(2 * d - 1);
    if (newrank & d) {
        *keep_p = base + d;
        *send_p = base;
    } else {
        *keep_p = base;
        *send_p = base + d;
    }
}

/** Doubling step @p d (1 .. pof2/2): blocks held [*have_p, +d), received [*recv_p, +d). */
static inline void loom_pat_doubling_step(int newrank, int d, int *have_p, int *recv_p)
{
    *have_p = newrank & ~(d - 1);
    *recv_p = (newrank ^ d) & ~(d - 1);
}

/* ---- ring, pairwise, dissemination, chain --------------------------------------
 *
 *   ring allgather, p = 4, rank r at step s (0..p-2):
 *     send block (r - s) to r+1, receive block (r - s - 1) from r-1
 *   ring reduce-scatter (rank r ends owning block r):
 *     send partial block (r - s - 1) to r+1, receive and reduce (r - s - 2)
 *   pairwise exchange (alltoall) step s (1..p-1): send to r+s, receive from r-s
 *   dissemination (barrier) step with dist 2^k < p: send to r+dist, recv r-dist
 *   chain (pipelined bcast), virtual ranks: 0 -> 1 -> 2 -> ... -> p-1
 */
static inline int loom_pat_mod(int x, int p)
{
    return ((x % p) + p) % p;
}

static inline int loom_pat_ring_ag_send_block(int r, int s, int p)
{
    return loom_pat_mod(r - s, p);
}

static inline int loom_pat_ring_ag_recv_block(int r, int s, int p)
{
    return loom_pat_mod(r - s - 1, p);
}

static inline int loom_pat_ring_rs_send_block(int r, int s, int p)
{
    return loom_pat_mod(r - s - 1, p);
}

static inline int loom_pat_ring_rs_recv_block(int r, int s, int p)
{
    return loom_pat_mod(r - s - 2, p);
}

/* ---- Bruck ----------------------------------------------------------------------
 *
 *   allgather (p = 5, rank r): tmp[j] = block (r + j) mod p; tmp[0] = own.
 *     dist 1: send tmp[0,1) to r-1, recv into tmp[1,2) from r+1
 *     dist 2: send tmp[0,2) to r-2, recv into tmp[2,4) from r+2
 *     dist 4: send tmp[0,1) to r-4, recv into tmp[4,5) from r+4
 *   alltoall: tmp[j] = block for rank r + j; at dist 2^k send every tmp[j]
 *     with bit k of j set to r + dist, replace them with what r - dist sends;
 *     at the end tmp[j] came from rank r - j.
 */

/** Blocks moved at Bruck allgather step @p dist. */
static inline int loom_pat_bruck_ag_count(int dist, int p)
{
    return dist < p - dist ? dist : p - dist;
}

/** Blocks moved at Bruck alltoall step @p dist: #{ j in [0,p) : j & dist }. */
int loom_pat_bruck_a2a_count(int dist, int p);

#endif /* LOOM_COLL_PATTERNS_H */
