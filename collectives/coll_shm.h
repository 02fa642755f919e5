/*
 * coll_shm.h: the per-communicator shared-memory segment of the on-node
 * collective algorithms ("shm" of barrier, bcast, reduce, allreduce,
 * allgather, alltoall, gather and scatter; the "cma" algorithms).
 *
 * When every rank of a communicator is on this node, the first shared-memory
 * collective on it creates a segment
 * "/loom-<jobid>-coll-<context id>-<world rank of comm rank 0>" (mode 0600;
 * split gives every color one context id, the suffix tells them apart):
 * the lowest rank creates and zeroes it and tells the others by
 * point-to-point message; they map it and answer; the creator unlinks
 * the name once every rank has mapped it, so nothing is left in /dev/shm
 * even if the job is killed afterwards. The mapping is released when the
 * communicator is freed (comm->coll_priv_free).
 *
 * If the segment cannot be set up on every rank (/dev/shm full, a rank
 * that cannot map it), rank 0 tells every rank so in a last message; all of
 * them then run that operation, and every later one on the communicator,
 * with the message-based algorithm the table gives without shm (a notice at
 * info level), never an error.
 *
 * Layout: per rank one cache line holding its arrival counter (C11 atomic,
 * written only by that rank with release order, read by the others with
 * acquire) and the signature (sequence, kind, root, bytes) of its last two
 * operations, then two data slots of LOOM_COLL_SHM_MAX_BYTES used
 * alternately by consecutive operations; after all ranks, one line each
 * of hints (the CPU it last ran on) for waiters when ranks outnumber
 * cores. Shared-memory operations on one communicator run one at a time,
 * in the order they were started (all ranks start collectives in the same
 * order), so the n-th operation publishes
 * arrival n. Reusing slot parity n%2 at operation n is safe: a rank
 * publishes anything of n (slot, signature, arrival) only after seeing
 * every rank arrive at n-1, i.e. after every rank finished reading the
 * slots and signatures of n-2. A rank that sees another rank's signature
 * for operation n differ from its own fails with an error naming both
 * calls (barrier against allreduce, 8 bytes against 16) instead of
 * reading garbage.
 *
 * Eager operations. Most operations wait for every rank's arrival, which
 * gives the rule above for the next one for free (cc->synced_seq = n).
 * bcast's and scatter's roots and reduce's and gather's non-roots do not
 * wait for anybody: they publish and return (bcast's and scatter's
 * non-roots wait for the root only, reduce's and gather's root for
 * everybody). The next operation n+1 then first waits until
 * every rank arrived at n and compares every rank's signature of n
 * (loom_coll_shm_catch_up): two ranks that both took themselves for the
 * root of a bcast learn it there, as with messages (a root only sends).
 * When ranks outnumber cores this is what lets a bcast root return
 * without a context switch, as a root that sends eager messages does.
 */
#ifndef LOOM_COLL_SHM_H
#define LOOM_COLL_SHM_H

#include "coll_comm_int.h"

#include <sched.h>
#include <stdatomic.h>

/** Largest allreduce that runs on the shared-memory algorithm (per rank). */
#define LOOM_COLL_SHM_MAX_BYTES ((size_t)8192)

/*
 * Working set of one chunk of allreduce "cma"'s fold (allreduce_cma.c says
 * why 1 MiB); a chunk holds whole elements of up to three streams, so that
 * algorithm takes elements (a user op's, loom_op_create_unit) of at most a
 * third of it, and the selection gives larger ones to the others.
 */
#define LOOM_COLL_CMA_WORKSET   ((size_t)1024 * 1024)
#define LOOM_COLL_CMA_MAX_ESIZE (LOOM_COLL_CMA_WORKSET / 3)

/*
 * What each rank publishes in its data slot of an operation run with
 * process_vm_readv (allreduce_cma.c, reduce_cma.c; the slots are not used
 * as data there).
 */
typedef struct loom_coll_cma_info {
    uint64_t pid;
    uint64_t sbuf;
    uint64_t rbuf;
    uint64_t probe;    /* a byte the set-up step reads and writes back */
    uint32_t cma_ok;   /* this rank could read every peer (the set-up step only) */
    /* this rank failed (the others stop too). Atomic (sequentially
     * consistent): a bcast or scatter reader loads the root's flag after its
     * read, while the root may be setting it to leave on another rank's
     * mismatch; set before the root returns, it is seen by a reader whose
     * read may have met the user's next use of the buffer. */
    _Atomic uint32_t bad;
    /* reduce "cma" at p = 2 (reduce_cma.c): bytes of its input this
     * non-root has written into the root's result so far (release) */
    _Atomic uint64_t pushed;
} loom_coll_cma_info_t;

/* operations of at most this many bytes keep their data in the control line */
#define LOOM_COLL_SHM_SMALL 8

typedef struct loom_coll_shm_ctl {
    _Atomic uint64_t arrived;   /* number of the last operation this rank joined */
    uint64_t         sig[2];    /* signature of operation n at [n % 2] */
    /* tag | 1 << 32 of the collective #s this rank has been waiting in for
     * a while, at [s % 2] (slow path, relaxed): lets ranks that all wait to
     * receive, and so send nothing, still see that they called different
     * collectives; two entries, so that a rank which moved on to #s+1 still
     * shows what it did in #s */
    _Atomic uint64_t waiting[2];
    /* data of operation n at [n % 2] when small: one line carries data,
     * signature and arrival, one cache-line transfer per reader */
    uint8_t          small[2][LOOM_COLL_SHM_SMALL];
    /* steps inside one operation of several phases (allreduce_cma.c):
     * n << 2 | k once this rank finished phase k of operation n (release) */
    _Atomic uint64_t step;
} loom_coll_shm_ctl_t;

_Static_assert(sizeof(loom_coll_shm_ctl_t) == LOOM_CACHE_LINE,
               "the control line is one cache line");

/*
 * Per rank, in an array after every rank's control line and slots: hints
 * read only by waiters when ranks outnumber cores (coll_fast.c), kept off
 * the control line so the common case still moves one line per reader.
 */
typedef struct loom_coll_shm_aux {
    /* 1 + the CPU this rank ran on when it last arrived on the fast path
     * (0: not known); relaxed, a hint for whether to spin or yield */
    _Atomic uint32_t cpu;
    uint8_t          pad[LOOM_CACHE_LINE - sizeof(uint32_t)];
} loom_coll_shm_aux_t;

_Static_assert(sizeof(loom_coll_shm_aux_t) == LOOM_CACHE_LINE, "the aux line is one line");

/* per rank: the control line, then two slots (the aux lines come after all ranks) */
#define LOOM_COLL_SHM_RANK_BYTES (sizeof(loom_coll_shm_ctl_t) + 2 * LOOM_COLL_SHM_MAX_BYTES)

/*
 * After the aux lines: two stages of this many bytes (operation n uses
 * [n % 2]), written only by the root of a bcast of more than
 * LOOM_COLL_SHM_MAX_BYTES ("stage", bcast_shm.c): one bcast has one
 * writer, so one stage per parity serves every rank, and the root returns
 * once its data are in, as it does at 8 KiB. 64 KiB: Open MPI's vader
 * copies up to 32 KiB through its FIFOs and its root does not wait either;
 * above, bcast "cma" reads the root's buffer with one copy (its root waits
 * for the readers). 128 KiB per communicator, whatever its size.
 */
#define LOOM_COLL_SHM_STAGE_BYTES ((size_t)64 * 1024)

/* bytes of the segment of a communicator of @p size ranks (before page rounding) */
#define LOOM_COLL_SHM_SEG_BYTES(size) \
    ((size_t)(size) * (LOOM_COLL_SHM_RANK_BYTES + sizeof(loom_coll_shm_aux_t)) + \
     2 * LOOM_COLL_SHM_STAGE_BYTES)

/*
 * How an operation's data travel, bits 30-31 of its signature: in the
 * slots (every "shm" algorithm and the fast path), in the bcast stage, or
 * read in place (every "cma" algorithm and the CMA set-up step). Ranks
 * may select different algorithms of one kind for one call (a forced
 * LOOM_<COLL>_ALGORITHM or LOOM_OVERSUBSCRIBED set on some ranks only:
 * bcast "stage" on one, "cma" on another, 8-64 KiB); with the same
 * signature a reader would copy a stage or a slot nobody wrote for this
 * call, or read a buffer an older call published, and return success.
 * With the way in the signature they fail with a mismatch instead.
 */
enum loom_coll_shm_way {
    LOOM_COLL_SHM_WAY_SLOT  = 0,
    LOOM_COLL_SHM_WAY_STAGE = 1,
    LOOM_COLL_SHM_WAY_CMA   = 2,
};
#define LOOM_COLL_SHM_SIG_BYTES_MASK 0x3fffffffu   /* bytes mod 1 GiB */
#define LOOM_COLL_SHM_SIG_WAY_SHIFT  30

/* signature: bytes (30) | way << 30 | seq & 0xffff << 32 | kind << 48
 * | root11 << 52 | absent << 63 */
static inline uint64_t loom_coll_shm_sig(uint64_t seq, int kind, int root, size_t bytes,
                                         enum loom_coll_shm_way way)
{
    return (uint64_t)(bytes & LOOM_COLL_SHM_SIG_BYTES_MASK) |
           (uint64_t)way << LOOM_COLL_SHM_SIG_WAY_SHIFT | (seq & 0xffffu) << 32 |
           (uint64_t)kind << 48 | ((uint64_t)root & 0x7ffu) << 52;
}

/*
 * Bit 63 of a signature: the rank arrived at this operation without taking
 * part, because catching up on the eager operation before it found a
 * mismatch (loom_coll_shm_catch_up). Its slot holds nothing of this
 * operation, so a rank that compares it with its own (any rank that would
 * read that slot, or the root's) fails instead of reading what an earlier
 * operation left there; a later catch-up ignores the bit (the mismatch was
 * reported at this operation).
 */
#define LOOM_COLL_SHM_SIG_ABSENT (1ull << 63)

/**
 * Ranks outnumber cores: should rank @p rank move to another CPU? Reads the
 * @p size ranks' CPU hints in @p aux (1 + CPU, 0 unknown). If our CPU has
 * at least two ranks more than the least crowded CPU of @p allowed (3 + 1
 * on two cores), the highest rank on our CPU (one rank moves per look) gets
 * that CPU. @return the CPU to move to, or -1 to stay.
 */
int loom_coll_shm_balance_target(const loom_coll_shm_aux_t *aux, int size, int rank,
                                 const cpu_set_t *allowed);

/**
 * Called first by a shared-memory algorithm's progress function: sets up
 * the segment on first use and waits for this operation's turn.
 * The selection's set-up step (loom_coll_setup_progress, coll_select.c)
 * calls it first for a call made before the segment was set up, so the
 * algorithms find it set up.
 * @return LOOM_OK once s->shm_seq is this operation's number and the
 * segment may be used, LOOM_INPROGRESS meanwhile, LOOM_ERR_UNSUPPORTED when
 * the segment could not be set up (the set-up step then gives the number
 * back and selects without the segment), or an error.
 */
loom_status_t loom_coll_shm_enter(loom_coll_state_t *s);

/**
 * Before operation s->shm_seq publishes anything: every rank arrived at
 * the one before? (only an eager operation leaves that open)
 */
static inline int loom_coll_shm_synced(const loom_coll_state_t *s)
{
    const loom_coll_comm_t *cc = s->shm;
    return cc->synced_seq + 1 >= s->shm_seq;
}

/**
 * The previous operation was eager (!loom_coll_shm_synced): LOOM_OK once
 * every rank arrived at it and every signature of it agrees (s->peer
 * counts; it is 0 again on return), LOOM_INPROGRESS meanwhile, or the
 * mismatch of that operation, after publishing this rank's arrival at this
 * one (so the others find the same mismatch instead of waiting for us).
 * loom_coll_shm_enter runs it.
 */
loom_status_t loom_coll_shm_catch_up(loom_coll_state_t *s);

/** Mark this operation done (lets the next one on the comm run). */
void loom_coll_shm_leave(loom_coll_state_t *s);

/** Control line of comm rank @p r. */
static inline loom_coll_shm_ctl_t *loom_coll_shm_ctl(const loom_coll_state_t *s, int r)
{
    const loom_coll_comm_t *cc = s->shm;
    return (loom_coll_shm_ctl_t *)(void *)((char *)cc->base +
                                           (size_t)r * LOOM_COLL_SHM_RANK_BYTES);
}

/**
 * Aux line of comm rank @p r in the segment at @p base of a @p size-rank
 * communicator (after every rank's control line and slots).
 */
static inline loom_coll_shm_aux_t *loom_coll_shm_aux_at(void *base, int size, int r)
{
    return (loom_coll_shm_aux_t *)(void *)((char *)base +
                                           (size_t)size * LOOM_COLL_SHM_RANK_BYTES) + r;
}

/** Aux line of comm rank @p r of this operation's communicator. */
static inline loom_coll_shm_aux_t *loom_coll_shm_aux(const loom_coll_state_t *s, int r)
{
    const loom_coll_comm_t *cc = s->shm;
    return loom_coll_shm_aux_at(cc->base, s->size, r);
}

/**
 * Data of comm rank @p r for this operation (parity of s->shm_seq): in its
 * control line up to LOOM_COLL_SHM_SMALL bytes, else in its slot.
 */
static inline void *loom_coll_shm_slot(const loom_coll_state_t *s, int r)
{
    loom_coll_shm_ctl_t *c = loom_coll_shm_ctl(s, r);
    size_t par = (size_t)(s->shm_seq & 1);

    if (s->count * s->esize <= LOOM_COLL_SHM_SMALL) {
        return c->small[par];
    }
    return (char *)(c + 1) + par * LOOM_COLL_SHM_MAX_BYTES;
}

/** The stage of this operation (parity of s->shm_seq), after the aux lines. */
static inline void *loom_coll_shm_stage(const loom_coll_state_t *s)
{
    const loom_coll_comm_t *cc = s->shm;
    return (char *)cc->base +
           (size_t)s->size * (LOOM_COLL_SHM_RANK_BYTES + sizeof(loom_coll_shm_aux_t)) +
           (size_t)(s->shm_seq & 1) * LOOM_COLL_SHM_STAGE_BYTES;
}

/**
 * The whole slot of comm rank @p r for this operation (parity of
 * s->shm_seq), never the control line's small field: for data of several
 * blocks (alltoall's p blocks).
 */
static inline void *loom_coll_shm_slot_whole(const loom_coll_state_t *s, int r)
{
    return (char *)(loom_coll_shm_ctl(s, r) + 1) +
           (size_t)(s->shm_seq & 1) * LOOM_COLL_SHM_MAX_BYTES;
}

/** The signature way of an eager gather/scatter: the stage (@p stage) or slots. */
static inline enum loom_coll_shm_way loom_coll_shm_way_of(int stage)
{
    return stage ? LOOM_COLL_SHM_WAY_STAGE : LOOM_COLL_SHM_WAY_SLOT;
}

/**
 * Gather "shm"/"stage": where comm rank @p q's block of @p blk bytes is in
 * this operation: block q of the stage (@p stage), or q's own slot.
 */
static inline char *loom_coll_shm_gather_block(const loom_coll_state_t *s, int q, size_t blk,
                                               int stage)
{
    return stage ? (char *)loom_coll_shm_stage(s) + (size_t)q * blk
                 : (char *)loom_coll_shm_slot(s, q);
}

/**
 * Scatter "shm"/"stage": where root @p root's p blocks travel in this
 * operation: the stage (@p stage), or the root's whole slot.
 */
static inline char *loom_coll_shm_scatter_area(const loom_coll_state_t *s, int root, int stage)
{
    return stage ? (char *)loom_coll_shm_stage(s) : (char *)loom_coll_shm_slot_whole(s, root);
}

/**
 * Report whether every rank has arrived at this operation (s->peer counts
 * ranks seen so far). @return 1 when all arrived.
 */
int loom_coll_shm_all_arrived(loom_coll_state_t *s);

/**
 * Wait step of a shared-memory algorithm: LOOM_OK once every rank arrived
 * and the signatures agree, LOOM_INPROGRESS meanwhile (running the
 * mismatch check on the slow path), or the mismatch error.
 */
loom_status_t loom_coll_shm_wait(loom_coll_state_t *s);

/** Signature mismatch message for operation @p seq (shared with coll_fast.c). */
loom_status_t loom_coll_shm_sig_error(loom_comm_t comm, uint64_t seq, uint64_t mine,
                                      int peer, uint64_t theirs);

/**
 * The root's signature of this operation against ours, once the root
 * arrived (a non-root that reads from or waits for the root only).
 * @return LOOM_OK when they agree, else the mismatch (logged).
 */
static inline loom_status_t loom_coll_shm_check_root(const loom_coll_state_t *s)
{
    size_t par = s->shm_seq & 1;
    uint64_t mine = loom_coll_shm_ctl(s, s->rank)->sig[par];
    uint64_t theirs = loom_coll_shm_ctl(s, s->root)->sig[par];

    if (loom_likely(mine == theirs)) {
        return LOOM_OK;
    }
    return loom_coll_shm_sig_error(s->comm, s->seq, mine, s->root, theirs);
}

/**
 * Wait step of a non-root that reads the root's data (bcast, scatter):
 * LOOM_OK once the root arrived at this operation (acquire) with our
 * signature, LOOM_INPROGRESS meanwhile (running the mismatch check on the
 * slow path), or the mismatch (s->failed set).
 */
loom_status_t loom_coll_shm_wait_root(loom_coll_state_t *s);

/**
 * Publish this rank's arrival (and signature, data travelling @p way) at
 * this operation.
 */
static inline void loom_coll_shm_arrive_way(loom_coll_state_t *s, int absent,
                                            enum loom_coll_shm_way way)
{
    loom_coll_shm_ctl_t *c = loom_coll_shm_ctl(s, s->rank);
    int root = loom_coll_kind_rooted(s->kind) ? s->root : 0;

    c->sig[s->shm_seq & 1] = loom_coll_shm_sig(s->seq, s->kind, root,
                                               s->kind == LOOM_COLL_BARRIER ? 0 :
                                               s->count * s->esize, way) |
                             (absent ? LOOM_COLL_SHM_SIG_ABSENT : 0);
    atomic_store_explicit(&c->arrived, s->shm_seq, memory_order_release);
}

/**
 * Publish this rank's arrival (and signature) at this operation of a slot
 * algorithm; @p absent: without taking part (LOOM_COLL_SHM_SIG_ABSENT;
 * nothing in the slot).
 */
static inline void loom_coll_shm_arrive_as(loom_coll_state_t *s, int absent)
{
    loom_coll_shm_arrive_way(s, absent, LOOM_COLL_SHM_WAY_SLOT);
}

/** Publish this rank's arrival (and signature) at this operation. */
static inline void loom_coll_shm_arrive(loom_coll_state_t *s)
{
    loom_coll_shm_arrive_as(s, 0);
}

/**
 * First step of an algorithm that publishes its input: enter the segment
 * (loom_coll_shm_enter), copy @p bytes at @p src to this rank's data
 * (@p whole: loom_coll_shm_slot_whole, else loom_coll_shm_slot), arrive.
 * @return loom_coll_shm_enter's status; nothing is published unless LOOM_OK.
 */
loom_status_t loom_coll_shm_publish_in(loom_coll_state_t *s, int whole, const void *src,
                                       size_t bytes);

/** loom_coll_shm_publish_in into loom_coll_shm_slot (see there). */
static inline loom_status_t loom_coll_shm_publish(loom_coll_state_t *s, const void *src,
                                                  size_t bytes)
{
    return loom_coll_shm_publish_in(s, 0, src, bytes);
}

/**
 * Publish, then wait for every rank (the non-eager algorithms' steps):
 * at s->phase 0 loom_coll_shm_publish_in(@p whole, @p src, @p bytes), then
 * s->phase 1 and loom_coll_shm_wait. @return LOOM_OK once every rank
 * arrived and the signatures agree, LOOM_INPROGRESS meanwhile (call again),
 * or the error of entering or of the signatures.
 */
loom_status_t loom_coll_shm_exchange(loom_coll_state_t *s, int whole, const void *src,
                                     size_t bytes);

/**
 * Fold every rank's slot into @p dst in the order of the ordered
 * algorithms: dst = slot[0] op (slot[1] op (... op slot[p-1])), so the
 * result is the same bits on every rank (LOOM_DETERMINISTIC) and operands
 * of non-commutative ops stay in rank order. After loom_coll_shm_wait.
 */
void loom_coll_shm_fold_slots(loom_coll_state_t *s, void *dst);

/**
 * Compare every rank's signature of this operation with ours, after
 * loom_coll_shm_all_arrived(), ignoring the bits of @p ignore (a catch-up
 * ignores LOOM_COLL_SHM_SIG_ABSENT, and then also the way of a pair of
 * which one was absent: an absent rank never selected the operation's
 * algorithm, so its signature has the slots' way whatever the others
 * ran). @return LOOM_OK or the mismatch (logged).
 */
static inline loom_status_t loom_coll_shm_check_sigs(const loom_coll_state_t *s,
                                                     uint64_t ignore)
{
    const uint64_t way = (uint64_t)3 << LOOM_COLL_SHM_SIG_WAY_SHIFT;
    size_t par = s->shm_seq & 1;
    uint64_t mine = loom_coll_shm_ctl(s, s->rank)->sig[par];

    for (int q = 0; q < s->size; ++q) {
        uint64_t theirs = loom_coll_shm_ctl(s, q)->sig[par];
        uint64_t drop = (ignore & LOOM_COLL_SHM_SIG_ABSENT) &&
                        ((mine | theirs) & LOOM_COLL_SHM_SIG_ABSENT) ? ignore | way : ignore;
        if (loom_unlikely((theirs & ~drop) != (mine & ~drop))) {
            return loom_coll_shm_sig_error(s->comm, s->seq, mine & ~drop, q, theirs & ~drop);
        }
    }
    return LOOM_OK;
}

/** Every rank's signature of this operation against ours (see above). */
static inline loom_status_t loom_coll_shm_check(const loom_coll_state_t *s)
{
    return loom_coll_shm_check_sigs(s, 0);
}

/* ---- operations that read peers with process_vm_readv (allreduce_cma.c) */

/** Rank @p r's published pid and buffers for this operation. */
loom_coll_cma_info_t *loom_coll_cma_info(const loom_coll_state_t *s, int r);

/** Publish that this rank finished phase @p k of this operation (release). */
void loom_coll_cma_step(const loom_coll_state_t *s, unsigned k);

/**
 * Wait for phase @p k of this operation on every rank (s->peer counts).
 * @return LOOM_OK once every rank published step k and none flagged a
 * failure (s->peer is 0 again), LOOM_INPROGRESS meanwhile, or
 * LOOM_ERR_PEER_FAILED when one did (logged).
 */
loom_status_t loom_coll_cma_wait(loom_coll_state_t *s, unsigned k);

/** Read @p len bytes at @p src in rank @p q's memory into @p dst (errors logged). */
loom_status_t loom_coll_cma_read(const loom_coll_state_t *s, int q, void *dst, uint64_t src,
                                 size_t len);

/** Write @p len bytes at @p src into rank @p q's memory at @p dst (errors logged). */
loom_status_t loom_coll_cma_write(const loom_coll_state_t *s, int q, uint64_t dst,
                                  const void *src, size_t len);

/**
 * Two ranks sharing one copy: write [@p at, @p end) of @p src into rank @p q's
 * memory at @p dst + @p at, then publish `pushed` = @p end (errors logged).
 */
loom_status_t loom_coll_cma_push_rest(loom_coll_state_t *s, int q, uint64_t dst,
                                      const char *src, size_t at, size_t end);

/**
 * The other side: LOOM_OK once rank @p q published `pushed` >= @p want (*got
 * is what it published), LOOM_INPROGRESS meanwhile, LOOM_ERR_PEER_FAILED
 * when it flagged a failure (logged).
 */
loom_status_t loom_coll_cma_pushed(loom_coll_state_t *s, int q, size_t want, size_t *got);

/** This rank's pid and buffers for this operation, then its arrival. */
void loom_coll_cma_publish(loom_coll_state_t *s);

/**
 * First steps of an operation run with process_vm_readv: at s->phase 0 enter
 * the segment and publish (loom_coll_cma_publish) unless this call's set-up
 * step did already, then s->phase 1: wait for every rank (a failed wait
 * leaves the segment). @return LOOM_OK (s->peer is 0 again),
 * LOOM_INPROGRESS meanwhile, or the error.
 */
loom_status_t loom_coll_cma_join(loom_coll_state_t *s);

/**
 * First step of a cma algorithm, in its phase 0 (a no-op in any other):
 * enter the segment (loom_coll_shm_enter) and publish
 * (loom_coll_cma_publish) unless this call's set-up step did; then
 * s->phase is 1 (arrived) and s->peer 0.
 * @return LOOM_OK, or loom_coll_shm_enter's status (phase still 0).
 */
loom_status_t loom_coll_cma_enter(loom_coll_state_t *s);

/** A local failure @p st: flag it, publish step 2, leave; @return @p st. */
loom_status_t loom_coll_cma_fail(loom_coll_state_t *s, loom_status_t st);

#endif /* LOOM_COLL_SHM_H */
