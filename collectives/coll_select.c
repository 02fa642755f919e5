/*
 * coll_select.c: which algorithm runs a collective call.
 *
 * One table of rules per collective, read top to bottom: the first rule
 * whose rank and size limits cover the call and whose algorithm is eligible
 * (shared-memory algorithms need every rank of the communicator on this
 * node; vector layouts need an algorithm that handles per-rank counts)
 * wins. LOOM_<COLL>_ALGORITHM forces one algorithm by name; an ineligible
 * forced algorithm falls back to the table with a warning. The limits come
 * from measurements on the development machine (docs/collectives.md).
 *
 * Select once: the answer is the algorithm that runs the call, and no
 * algorithm re-routes it. A call that must reduce in rank order gets the
 * entry's .ordered substitute; a call whose answer depends on a
 * communicator set-up not yet decided (the on-node segment; the CMA
 * verdict; the multicast agreement) gets that set-up step, which selects
 * the call when the outcome is known (loom_coll_select_run: the steps'
 * work in the algorithms' files returns here, which re-dispatches). Rule names are resolved to pointers at init. The
 * blocking calls ask loom_coll_select_blocking, whose answer is cached per
 * communicator, and run the answer's fast member when it has one.
 */
#include "coll_int.h"
#include "coll_select.h"
#include "coll_shm.h"
#include "coll_config_int.h"
#include "coll_fast.h"
#include "coll_comm_int.h"
#include "log_int.h"
#include "p2p_mcast_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ALG(n, fn, fl, d, ...) {.name = n, .progress = fn, .flags = fl, .desc = d, __VA_ARGS__}
#define VEC LOOM_COLL_ALG_VECTOR
#define ORD LOOM_COLL_ALG_ORDERED
/* index of each table's ordered algorithm, named by the others' .ordered */
enum { REDUCE_ORDERED = 2, ALLREDUCE_ORDERED = 4, REDUCE_SCATTER_ORDERED = 1,
       REDUCE_SCATTERV_PAIRWISE = 0 };

static const loom_coll_alg_t barrier_algs[] = {
    ALG("dissemination", loom_coll_barrier_dissemination, 0, "ceil(log2 p) rounds of send r+2^k / recv r-2^k"),
    ALG("shm", loom_coll_barrier_shm, LOOM_COLL_ALG_SHM, "flags in a per-communicator shared segment",
        .fast.barrier = loom_coll_fast_barrier),
};
LOOM_COLL_PROTO(loom_coll_bcast_mcast);         /* bcast_mcast.c */
LOOM_COLL_PROTO(loom_coll_bcast_mcast_agree);
static const loom_coll_alg_t bcast_algs[] = {
    ALG("binomial", loom_coll_bcast_binomial, 0, "binomial tree from the root"),
    ALG("scatter_allgather", loom_coll_bcast_scatter_allgather, 0, "binomial scatter of p blocks + ring allgather"),
    ALG("chain", loom_coll_bcast_chain, 0, "pipelined chain root -> root+1 -> ..., in segments"),
    ALG("shm", loom_coll_bcast_shm, LOOM_COLL_ALG_SHM, "the root's slot in a shared segment, read by every rank",
        .fast.bcast = loom_coll_fast_bcast),
    ALG("mcast", loom_coll_bcast_mcast, LOOM_COLL_ALG_MCAST, "transport multicast up to LOOM_IB_MCAST_THRESHOLD, agreed per communicator, else a tree (bcast_mcast.c)"),
    ALG("stage", loom_coll_bcast_stage, LOOM_COLL_ALG_SHM | LOOM_COLL_ALG_SHM_STAGE | LOOM_COLL_ALG_SHARED_CORES, "eager: the root copies into a 64 KiB stage of the shared segment and returns; the others wait for the root only and copy out; the table gives it only when ranks outnumber cores"),
    ALG("cma", loom_coll_bcast_cma, LOOM_COLL_ALG_CMA | LOOM_COLL_ALG_ONE_WAIT, "every non-root reads the root's buffer with process_vm_readv; the root waits until all have read (2 ranks: the root writes half with process_vm_writev meanwhile)"),
};
static const loom_coll_alg_t reduce_algs[] = {
    ALG("binomial", loom_coll_reduce_binomial, 0, "binomial tree towards the root",
        .ordered = &reduce_algs[REDUCE_ORDERED]),
    ALG("rabenseifner", loom_coll_reduce_rabenseifner, 0, "recursive-halving reduce-scatter + binomial gather",
        .ordered = &reduce_algs[REDUCE_ORDERED]),
    ALG("ordered", loom_coll_reduce_ordered, ORD, "blocks reduced by their owner in rank order + gather (deterministic)"),
    ALG("shm", loom_coll_reduce_shm, LOOM_COLL_ALG_SHM | ORD, "every rank's input in a shared segment, folded by the root; the others do not wait",
        .fast.reduce = loom_coll_fast_reduce),
    ALG("cma", loom_coll_reduce_cma, LOOM_COLL_ALG_CMA | LOOM_COLL_ALG_ONE_WAIT | ORD, "the root reads every input with process_vm_readv and folds it in rank order; the others wait until it has read (2 ranks: the other writes most of its input into the root's result meanwhile)"),
};
/* the ordered allreduce gathering by recursive doubling: the substitute of
 * the two recursive algorithms, not listed (forcing "ordered" gathers by ring) */
static const loom_coll_alg_t allreduce_ordered_rd =
    ALG("ordered", loom_coll_allreduce_ordered_rd, ORD, "ordered reduce-scatter + recursive-doubling allgather");
static const loom_coll_alg_t allreduce_algs[] = {
    ALG("recursive_doubling", loom_coll_allreduce_recursive_doubling, 0, "log2 p exchanges of the whole vector (non-power-of-two pre/post step)",
        .ordered = &allreduce_ordered_rd),
    ALG("rabenseifner", loom_coll_allreduce_rabenseifner, 0, "recursive-halving reduce-scatter + recursive-doubling allgather",
        .ordered = &allreduce_ordered_rd),
    ALG("ring", loom_coll_allreduce_ring, 0, "ring reduce-scatter + ring allgather",
        .ordered = &allreduce_algs[ALLREDUCE_ORDERED]),
    ALG("shm", loom_coll_allreduce_shm, LOOM_COLL_ALG_SHM | ORD, "every rank folds all inputs from a shared segment",
        .fast.allreduce = loom_coll_fast_allreduce),
    ALG("ordered", loom_coll_allreduce_ordered, ORD, "blocks reduced by their owner in rank order + ring allgather (deterministic)"),
    ALG("cma", loom_coll_allreduce_cma, LOOM_COLL_ALG_CMA | ORD, "each rank folds its 1/p slice of every input read with process_vm_readv, then reads the others' slices; when ranks outnumber cores the table gives it only above 16 KiB"),
};
static const loom_coll_alg_t allgather_algs[] = {
    ALG("recursive_doubling", loom_coll_allgather_recursive_doubling, 0, "log2 p exchanges of doubling ranges (non-power-of-two pre/post step)"),
    ALG("ring", loom_coll_allgather_ring, VEC, "p-1 steps passing blocks to the right"),
    ALG("bruck", loom_coll_allgather_bruck, 0, "ceil(log2 p) steps, rotated buffer"),
    ALG("shm", loom_coll_allgather_shm, LOOM_COLL_ALG_SHM, "every rank's block in its slot of a shared segment, read by every rank",
        .fast.move = loom_coll_fast_allgather),
    ALG("cma", loom_coll_allgather_cma, LOOM_COLL_ALG_CMA, "every rank reads every other rank's block with process_vm_readv; when ranks outnumber cores the table gives it only above 64 KiB blocks"),
};
static const loom_coll_alg_t gather_algs[] = {
    ALG("binomial", loom_coll_gather_binomial, 0, "binomial tree, subtrees forwarded whole"),
    ALG("linear", loom_coll_gather_linear, VEC, "the root receives from every rank"),
    ALG("cma", loom_coll_gather_cma, LOOM_COLL_ALG_CMA | LOOM_COLL_ALG_ONE_WAIT, "the root reads every block with process_vm_readv; the others wait until it has (2 ranks: the other writes part of its block meanwhile)"),
    ALG("shm", loom_coll_gather_shm, LOOM_COLL_ALG_SHM, "eager: every non-root copies its block into its slot of a shared segment and returns; the root waits for all and copies out",
        .fast.move = loom_coll_fast_gather),
    ALG("stage", loom_coll_gather_stage, LOOM_COLL_ALG_SHM | LOOM_COLL_ALG_SHM_ALL | LOOM_COLL_ALG_SHM_STAGE, "eager like shm, block r in the 64 KiB stage of the shared segment (p x block <= 64 KiB)",
        .fast.move = loom_coll_fast_gather_stage),
};
static const loom_coll_alg_t scatter_algs[] = {
    ALG("binomial", loom_coll_scatter_binomial, 0, "binomial tree, subtrees forwarded whole"),
    ALG("linear", loom_coll_scatter_linear, VEC, "the root sends to every rank"),
    ALG("cma", loom_coll_scatter_cma, LOOM_COLL_ALG_CMA | LOOM_COLL_ALG_ONE_WAIT, "every rank reads its block of the root's buffer with process_vm_readv; the root waits until all have (2 ranks: the root writes part of it meanwhile)"),
    ALG("shm", loom_coll_scatter_shm, LOOM_COLL_ALG_SHM | LOOM_COLL_ALG_SHM_ALL, "eager: the root copies its p blocks into its slot of a shared segment (p x block <= 8 KiB) and returns; the others wait for the root only",
        .fast.move = loom_coll_fast_scatter),
    ALG("stage", loom_coll_scatter_stage, LOOM_COLL_ALG_SHM | LOOM_COLL_ALG_SHM_ALL | LOOM_COLL_ALG_SHM_STAGE, "eager like shm, through the 64 KiB stage of the shared segment (p x block <= 64 KiB)",
        .fast.move = loom_coll_fast_scatter_stage),
};
static const loom_coll_alg_t alltoall_algs[] = {
    ALG("pairwise", loom_coll_alltoall_pairwise, VEC, "p-1 steps: send to r+s, receive from r-s"),
    ALG("bruck", loom_coll_alltoall_bruck, 0, "ceil(log2 p) steps of packed blocks"),
    ALG("shm", loom_coll_alltoall_shm, LOOM_COLL_ALG_SHM | LOOM_COLL_ALG_SHM_ALL, "every rank's p blocks in its slot of a shared segment (p x block <= 8 KiB), each rank reads its own",
        .fast.move = loom_coll_fast_alltoall),
    ALG("linear", loom_coll_alltoallw_linear, VEC, "every receive, then every send, posted at once (requests in the temporary buffer)"),
    ALG("cma", loom_coll_alltoall_cma, LOOM_COLL_ALG_CMA | LOOM_COLL_ALG_NO_IN_PLACE, "every rank reads its block of every other rank's sendbuf with process_vm_readv (not in place); the table skips it when ranks outnumber cores"),
};
static const loom_coll_alg_t neighbor_algs[] = {
    ALG("linear", loom_coll_neighbor_linear, VEC, "every receive from the sources posted, then every send to the destinations"),
};
static const loom_coll_alg_t reduce_scatter_algs[] = {
    ALG("ring", loom_coll_reduce_scatter_ring, 0, "p-1 steps of partial blocks around the ring",
        .ordered = &reduce_scatter_algs[REDUCE_SCATTER_ORDERED]),
    ALG("ordered", loom_coll_reduce_scatter_ordered, ORD, "every rank sends block i to rank i, which reduces in rank order"),
    ALG("shm", loom_coll_reduce_scatter_shm, LOOM_COLL_ALG_SHM | ORD, "every rank's input in its slot of a shared segment; each rank folds its block of every slot in rank order"),
};
static const loom_coll_alg_t scan_algs[] = {
    ALG("chain", loom_coll_scan_chain, ORD, "p-1 hops: rank r receives the prefix of 0..r-1 from r-1, adds its own, passes it on"),
    ALG("recursive_doubling", loom_coll_scan_recursive_doubling, ORD, "log2 p exchanges with r^2^k, lower range on the left (deterministic: gathers the inputs, folds like chain)"),
};
static const loom_coll_alg_t reduce_scatterv_algs[] = {
    ALG("pairwise", loom_coll_reduce_scatterv_pairwise, VEC | ORD, "p-1 steps: block r+s to r+s, fold block r from r-s (ordered: keep all, fold in rank order)"),
    ALG("ring", loom_coll_reduce_scatterv_ring, VEC, "p-1 steps of partial blocks around the ring (ordered calls run pairwise)",
        .ordered = &reduce_scatterv_algs[REDUCE_SCATTERV_PAIRWISE]),
    ALG("shm", loom_coll_reduce_scatterv_shm, LOOM_COLL_ALG_SHM | VEC | ORD, "every rank's input in its slot of a shared segment; each rank folds its block of every slot in rank order"),
};
static const loom_coll_alg_t alltoallw_algs[] = {
    ALG("linear", loom_coll_alltoallw_linear, VEC, "every receive, then every send, posted at once"),
    ALG("pairwise", loom_coll_alltoallw_pairwise, VEC, "p-1 steps: send to r+s, receive from r-s"),
};

typedef struct loom_coll_rule {
    int         max_ranks;  /* rule applies to p <= max_ranks */
    size_t      max_bytes;  /* and to message sizes <= max_bytes */
    const char *alg;
    int         shared;     /* LOOM_COLL_RULE_SHARED: only when ranks outnumber cores */
} loom_coll_rule_t;

/* a rule's `shared`: it applies only when ranks outnumber cores
 * (loom_progress_oversubscribed), where a rank waiting for another costs
 * a context switch and the choice between algorithms turns on wake-ups;
 * and only on a communicator of one node (loom_coll_comm_one_node), since
 * "oversubscribed" is a property of each node and every rank must pick
 * the same message algorithm. Not loom_coll_shm_eligible: it turns false
 * when a failed segment's verdict arrives, which a rank that waited for an
 * ibarrier knows and a rank that did not yet may not: allgather at 32 KiB
 * then ran the ring on one rank and recursive doubling on another and hung
 * (review of session 13, test_coll_rev13.sh "verdict"). A shared rule's
 * shm algorithm still meets the eligibility (and the set-up step) below. */
#define LOOM_COLL_RULE_SHARED 1

#define ANY_P INT_MAX
#define ANY_B SIZE_MAX
#define KiB ((size_t)1024)
#define MiB ((size_t)1024 * 1024)

static const loom_coll_rule_t barrier_rules[] = {
    {ANY_P, ANY_B, "shm", 0},
    {ANY_P, ANY_B, "dissemination", 0},
};
/* stage (only when ranks share cores): the root copies into the segment and
 * returns, np 4 on 2 cores 8-64 KiB 4-11 us against cma's 16-29 (load 11);
 * cma: one copy per reader and one wait per rank, also when ranks share
 * cores (np 4 on 2 cores, 16 KiB-1 MiB: 2-25x faster than the trees by
 * message, which need both ranks of every handoff running; docs/collectives.md) */
static const loom_coll_rule_t bcast_rules[] = {
    {ANY_P, LOOM_COLL_SHM_MAX_BYTES, "shm", 0},
    {ANY_P, LOOM_COLL_SHM_STAGE_BYTES, "stage", 0},
    {ANY_P, ANY_B, "cma", 0},
    {ANY_P, 1 * MiB, "mcast", 0},
    {2, ANY_B, "binomial", 0},
    {ANY_P, 32 * KiB, "binomial", 0},
    {ANY_P, 2 * MiB, "scatter_allgather", 0},
    {ANY_P, ANY_B, "chain", 0},
};
static const loom_coll_rule_t reduce_rules[] = {
    {ANY_P, LOOM_COLL_SHM_MAX_BYTES, "shm", 0},
    {ANY_P, ANY_B, "cma", 0},
    {ANY_P, 64 * KiB, "binomial", 0},
    {ANY_P, ANY_B, "rabenseifner", 0},
};
/* cma above 16 KiB also when ranks share cores (session 14): its two waits
 * for every rank cost less than Rabenseifner's 2 log2 p rendezvous steps,
 * each of which needs both ranks of a pair running (np 4 on 2 cores,
 * forced, 6 alternating runs, load 6-7, medians: 32 KiB-512 KiB cma
 * 60-344 us, rabenseifner 183-1750, Open MPI 115-797; np 8, 32 KiB-1 MiB:
 * cma 0.3-4.1 ms, rabenseifner 0.7-5.9, Open MPI 0.6-7.1;
 * docs/collectives.md); at 16 KiB recursive doubling stays (np 8: cma
 * 315 us against rabenseifner's 267) */
static const loom_coll_rule_t allreduce_rules[] = {
    {ANY_P, LOOM_COLL_SHM_MAX_BYTES, "shm", 0},
    {ANY_P, ANY_B, "cma", 0},
    {ANY_P, 16 * KiB, "recursive_doubling", 0},
    {ANY_P, 4 * MiB, "cma", LOOM_COLL_RULE_SHARED},
    {ANY_P, 4 * MiB, "rabenseifner", 0},
    {ANY_P, ANY_B, "ring", 0},
};
/* shm (blocking calls: its fast member) up to 1 KiB blocks: one arrival
 * round, no message (np 2, 1-1024 B: 0.32-0.72 us against bruck's
 * 0.46-1.1 and Open MPI's 0.42-1.0; at 2-4 KiB it was slower than the
 * messages, the 2(p - 1) block copies through other cores' caches);
 * cma above 4 KiB blocks when every rank has a core (np 2 here: 8 KiB 3.5
 * us against recursive doubling's 8-10, 1 MiB 0.4 ms against 1.9;
 * docs/collectives.md); it waits twice, so ranks sharing cores skip it.
 * When ranks share cores recursive doubling at every size (session 13):
 * the ring's p - 1 dependent rendezvous steps are each a wake-up (best of
 * 3, load 6-7: np 4 32 KiB-1 MiB ring 76-3460 us, recursive doubling
 * 64-1650, Open MPI 115-1800; np 8 32-256 KiB ring 855-4660, recursive
 * doubling 550-2820, Open MPI 450-2710). Above 64 KiB blocks cma there
 * too (session 15, its shared rule): its two waits cost less than
 * recursive doubling's log2 p rendezvous steps, each needing both ranks
 * of a pair running (alternating runs at load 5-9, medians: np 8 128
 * KiB-1 MiB cma 1.05-13.0 ms, recursive doubling 2.6-13.9, Open MPI
 * 2.0-14.4; np 4 128-512 KiB cma 0.27-1.05 ms, recursive doubling
 * 0.6-3.6; docs/collectives.md) */
/* session 18: at 2 ranks shm up to its 8 KiB slot (2-8 KiB blocks: 2-3x
 * faster than recursive doubling, alternating runs; Open MPI 0.67 / 2.97 /
 * 3.60 us at 2 / 4 / 8 KiB in the nine-repetition record, where recursive
 * doubling's 2 KiB was 1.22x) */
static const loom_coll_rule_t allgather_rules[] = {
    {2, LOOM_COLL_SHM_MAX_BYTES, "shm", 0},
    {ANY_P, 1 * KiB, "shm", 0},
    {ANY_P, 1 * KiB, "bruck", 0},
    {ANY_P, 4 * KiB, "recursive_doubling", 0},
    {ANY_P, ANY_B, "cma", 0},
    {ANY_P, 16 * KiB, "recursive_doubling", 0},
    {ANY_P, 64 * KiB, "recursive_doubling", LOOM_COLL_RULE_SHARED},
    {ANY_P, ANY_B, "cma", LOOM_COLL_RULE_SHARED},
    {ANY_P, ANY_B, "recursive_doubling", LOOM_COLL_RULE_SHARED},
    {ANY_P, ANY_B, "ring", 0},
};
/* binomial forwards whole subtrees through temporary buffers (the root
 * holds p blocks when it is not rank 0): only for small blocks, where its
 * log p latency pays; large blocks go straight to and from their place */
/* cma (session 13) up to 32 KiB blocks on one node: the root reads every
 * block, one wait per rank, where binomial's inner ranks wait for their
 * children and forward whole subtrees (best of 4-5 runs, load 7-10: np 4
 * 16/32 KiB 12.7/17.1 us against binomial's 20.5/24.8, np 8 32/47 against
 * 45/68; above, linear was faster; docs/collectives.md). When ranks share
 * cores, first stage (p x block <= 64 KiB): its non-roots leave at once,
 * where cma's wait for the root to be scheduled (by the argument that
 * made gather shm win, session 12; not measured: load 10+) */
/* session 18: cma at any block size at 2 ranks, where both ranks share the
 * copy (move_cma.c's split; quiet, best of 3, 64 KiB / 1 MiB / 4 MiB:
 * 4.9 / 54.5 / 302 us against linear's 8.2 / 104.6 / 703) */
static const loom_coll_rule_t gather_rules[] = {
    {ANY_P, LOOM_COLL_SHM_MAX_BYTES, "shm", 0},
    {ANY_P, LOOM_COLL_SHM_STAGE_BYTES, "stage", LOOM_COLL_RULE_SHARED},
    {2, ANY_B, "cma", 0},
    {ANY_P, 32 * KiB, "cma", 0},
    {ANY_P, 32 * KiB, "binomial", 0},
    {ANY_P, ANY_B, "linear", 0},
};
/* session 13: stage (p x block <= 64 KiB) to 8 KiB blocks, and to its
 * limit when ranks share cores (np 4, 4-16 KiB: 3.4-5.2 us against cma's
 * 7.9-20); cma on one node at 2 ranks (16 KiB-1 MiB: 0.25-0.85x Open
 * MPI, best of 4) and up to 128 KiB blocks (np 8 16-32 KiB 8-30 us
 * against binomial's 220-255; above, linear was faster at np 4 and 8);
 * binomial's rendezvous levels forward whole subtrees, each level a
 * wake-up when ranks share cores (docs/collectives.md) */
static const loom_coll_rule_t scatter_rules[] = {
    {ANY_P, LOOM_COLL_SHM_MAX_BYTES, "shm", 0},
    {ANY_P, 8 * KiB, "stage", 0},
    {ANY_P, LOOM_COLL_SHM_STAGE_BYTES, "stage", LOOM_COLL_RULE_SHARED},
    {2, ANY_B, "cma", 0},
    {ANY_P, 128 * KiB, "cma", 0},
    {ANY_P, 32 * KiB, "binomial", 0},
    {ANY_P, ANY_B, "linear", 0},
};
/* shm: on one node, while p x block <= 8 KiB (the slot; the algorithm's
 * own limit: to 4 KiB blocks at 2 ranks, 2 KiB at 3-4); from 5 ranks to
 * 1 KiB blocks as before (1025-1638 B blocks at 5-7 ranks would fit the
 * slot but were not measured: OSU's sizes are powers of 2); with
 * its blocking fast member also at 2 ranks (np 2, 1-1024 B: 0.34-0.7 us
 * against bruck's 0.48-1.1 and Open MPI's 0.42-1.1, session 12). Session
 * 16 raised the rule from 1 KiB to 4 KiB blocks: session 12 had shm slower
 * than the messages at 2-4 KiB at load 12, but with the machine quiet
 * (others stopped, 5 alternating runs, medians) np 2 2/4 KiB took 0.36/0.86
 * us against pairwise's 0.83/1.26 and Open MPI's 0.65/3.09, np 4 2 KiB 3.9
 * against pairwise's 5.0 and Open MPI's 8.5 (docs/collectives.md);
 * linear (session 15) at 5-16 ranks above bruck's limit: pairwise keeps
 * LOOM_COLL_MAX_REQS / 2 = 4 steps in flight and waits for all of them, so
 * p = 8 takes two rounds of wake-ups where linear takes one (np 8 on 2
 * cores, 4 alternating runs at load 14, medians 2 KiB-1 MiB: 0.3-1.3x
 * pairwise's; docs/collectives.md); to 4 ranks every step fits pairwise's
 * window already */
static const loom_coll_rule_t alltoall_rules[] = {
    {4, 4 * KiB, "shm", 0},
    {ANY_P, 1 * KiB, "shm", 0},
    {ANY_P, 256, "bruck", 0},
    {4, ANY_B, "pairwise", 0},
    {16, ANY_B, "linear", 0},
    {ANY_P, ANY_B, "pairwise", 0},
};
/* shm (session 14) while the whole input fits the slot: one arrival round
 * instead of p - 1 dependent message steps (3 alternating runs, minimum:
 * np 2 64 B-8 KiB 0.52-2.3 us against 0.59-2.97 by messages; np 4 and 8
 * 2-10x below them at most sizes; docs/collectives.md); at 2 ranks to
 * 32 B the one eager exchange stays (0.49 us against shm's 0.52) */
static const loom_coll_rule_t reduce_scatter_rules[] = {
    {2, 32, "ring", 0},
    {ANY_P, LOOM_COLL_SHM_MAX_BYTES, "shm", 0},
    {ANY_P, ANY_B, "ring", 0},
};
static const loom_coll_rule_t neighbor_rules[] = {
    {ANY_P, ANY_B, "linear", 0},
};
/* bytes: the whole vector of one rank (scan), the total input (reduce_scatter),
 * the average block (alltoallw) */
static const loom_coll_rule_t scan_rules[] = {
    {2, ANY_B, "chain", 0},
    {ANY_P, 256 * KiB, "recursive_doubling", 0},
    {ANY_P, ANY_B, "chain", 0},
};
static const loom_coll_rule_t reduce_scatterv_rules[] = {
    {2, 32, "pairwise", 0},
    {ANY_P, LOOM_COLL_SHM_MAX_BYTES, "shm", 0},
    {ANY_P, 64 * KiB, "pairwise", 0},
    {ANY_P, ANY_B, "ring", 0},
};
static const loom_coll_rule_t alltoallw_rules[] = {
    {8, 64 * KiB, "linear", 0},
    {ANY_P, ANY_B, "pairwise", 0},
};

#define TABLE(n, algs, rules, cfg) \
    {n, algs, LOOM_ARRAY_SIZE(algs), rules, LOOM_ARRAY_SIZE(rules), cfg}

static const struct loom_coll_table {
    const char             *name;
    const loom_coll_alg_t  *algs;
    size_t                  num_algs;
    const loom_coll_rule_t *rules;
    size_t                  num_rules;
    const loom_config_var_t *cfg;
} loom_coll_tables[LOOM_COLL_TYPE_COUNT] = {
    [LOOM_COLL_BARRIER]   = TABLE("barrier", barrier_algs, barrier_rules, LOOM_COLL_CFG(BARRIER_ALGORITHM)),
    [LOOM_COLL_BCAST]     = TABLE("bcast", bcast_algs, bcast_rules, LOOM_COLL_CFG(BCAST_ALGORITHM)),
    [LOOM_COLL_REDUCE]    = TABLE("reduce", reduce_algs, reduce_rules, LOOM_COLL_CFG(REDUCE_ALGORITHM)),
    [LOOM_COLL_ALLREDUCE] = TABLE("allreduce", allreduce_algs, allreduce_rules, LOOM_COLL_CFG(ALLREDUCE_ALGORITHM)),
    [LOOM_COLL_ALLGATHER] = TABLE("allgather", allgather_algs, allgather_rules, LOOM_COLL_CFG(ALLGATHER_ALGORITHM)),
    [LOOM_COLL_GATHER]    = TABLE("gather", gather_algs, gather_rules, LOOM_COLL_CFG(GATHER_ALGORITHM)),
    [LOOM_COLL_SCATTER]   = TABLE("scatter", scatter_algs, scatter_rules, LOOM_COLL_CFG(SCATTER_ALGORITHM)),
    [LOOM_COLL_ALLTOALL]  = TABLE("alltoall", alltoall_algs, alltoall_rules, LOOM_COLL_CFG(ALLTOALL_ALGORITHM)),
    [LOOM_COLL_REDUCE_SCATTER] = TABLE("reduce_scatter", reduce_scatter_algs, reduce_scatter_rules, LOOM_COLL_CFG(REDUCE_SCATTER_ALGORITHM)),
    [LOOM_COLL_NEIGHBOR]  = TABLE("neighbor", neighbor_algs, neighbor_rules, LOOM_COLL_CFG(NEIGHBOR_ALGORITHM)),
    [LOOM_COLL_SCAN]      = TABLE("scan", scan_algs, scan_rules, LOOM_COLL_CFG(SCAN_ALGORITHM)),
    [LOOM_COLL_EXSCAN]    = TABLE("exscan", scan_algs, scan_rules, LOOM_COLL_CFG(EXSCAN_ALGORITHM)),
    [LOOM_COLL_REDUCE_SCATTERV] = TABLE("reduce_scatterv", reduce_scatterv_algs, reduce_scatterv_rules, LOOM_COLL_CFG(REDUCE_SCATTERV_ALGORITHM)),
    [LOOM_COLL_ALLTOALLW] = TABLE("alltoallw", alltoallw_algs, alltoallw_rules, LOOM_COLL_CFG(ALLTOALLW_ALGORITHM)),
};

/* most rules of one table (loom_coll_init checks) */
#define LOOM_COLL_MAX_RULES 12

static const loom_coll_alg_t *loom_coll_forced[LOOM_COLL_TYPE_COUNT];
/* each rule's algorithm, resolved from its name once (loom_coll_init) */
static const loom_coll_alg_t *loom_coll_rule_alg[LOOM_COLL_TYPE_COUNT][LOOM_COLL_MAX_RULES];
static int loom_coll_forced_warned[LOOM_COLL_TYPE_COUNT];
static int loom_coll_det;
static int loom_coll_ready;

static const loom_coll_alg_t *loom_coll_find(const struct loom_coll_table *t,
                                             const char *name)
{
    for (size_t i = 0; i < t->num_algs; ++i) {
        if (strcmp(t->algs[i].name, name) == 0) {
            return &t->algs[i];
        }
    }
    return NULL;
}

/* The rules' names to algorithm pointers: a name not in its table is a
 * bug of this file, reported as such. */
static loom_status_t loom_coll_resolve_rules(int c)
{
    const struct loom_coll_table *t = &loom_coll_tables[c];

    if (t->num_rules > LOOM_COLL_MAX_RULES) {
        loom_error("coll", "the %s table has %zu rules (limit %d)", t->name, t->num_rules,
                   LOOM_COLL_MAX_RULES);
        return LOOM_ERR_INTERNAL;
    }
    for (size_t i = 0; i < t->num_rules; ++i) {
        loom_coll_rule_alg[c][i] = loom_coll_find(t, t->rules[i].alg);
        if (loom_coll_rule_alg[c][i] == NULL) {
            loom_error("coll", "%s rule %zu names '%s', not a %s algorithm", t->name, i,
                       t->rules[i].alg, t->name);
            return LOOM_ERR_INTERNAL;
        }
    }
    return LOOM_OK;
}

/* LOOM_<COLL>_ALGORITHM to an algorithm pointer (NULL when unset). */
static loom_status_t loom_coll_resolve_forced(int c)
{
    const struct loom_coll_table *t = &loom_coll_tables[c];
    const char *want = loom_config_str(t->cfg);
    char valid[256] = "";

    loom_coll_forced[c] = NULL;
    if (!loom_config_is_set(t->cfg)) {
        return LOOM_OK;
    }
    loom_coll_forced[c] = loom_coll_find(t, want);
    if (loom_coll_forced[c] != NULL) {
        return LOOM_OK;
    }
    for (size_t i = 0; i < t->num_algs; ++i) {
        snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), "%s%s",
                 i ? ", " : "", t->algs[i].name);
    }
    loom_error("coll", "%s='%s' is not a %s algorithm; valid: %s",
               loom_config_name(t->cfg), want, t->name, valid);
    return LOOM_ERR_CONFIG;
}

loom_status_t loom_coll_init(void)
{
    loom_status_t st = loom_config_register(&loom_coll_config);

    if (st != LOOM_OK) {
        return st;
    }
    loom_coll_det = loom_config_int(LOOM_COLL_CFG(DETERMINISTIC)) != 0;
    for (int c = 0; c < LOOM_COLL_TYPE_COUNT; ++c) {
        if ((st = loom_coll_resolve_rules(c)) != LOOM_OK ||
            (st = loom_coll_resolve_forced(c)) != LOOM_OK) {
            return st;
        }
    }
    loom_coll_ready = 1;
    return LOOM_OK;
}

int loom_coll_deterministic(void)
{
    if (!loom_coll_ready) {
        (void)loom_coll_init();
    }
    return loom_coll_det;
}

/*
 * Can @p alg run the call? Only from the call's properties and the
 * communicator's on-node segment, never from the CMA verdict, which a rank
 * may or may not know yet when the call is posted (see loom_coll_select):
 * @p cma_no is set only once the call's own CMA step found "no", in
 * operation order, so on every rank alike.
 */
static int loom_coll_eligible(const loom_coll_alg_t *alg, loom_comm_t comm, size_t bytes,
                              const loom_coll_state_t *s, int cma_no)
{
    if ((alg->flags & LOOM_COLL_ALG_SHM) &&
        (!loom_coll_shm_eligible(comm) ||
         bytes > ((alg->flags & LOOM_COLL_ALG_SHM_STAGE) ? LOOM_COLL_SHM_STAGE_BYTES
                                                          : LOOM_COLL_SHM_MAX_BYTES))) {
        return 0;
    }
    if ((alg->flags & LOOM_COLL_ALG_SHM_ALL) &&
        bytes > ((alg->flags & LOOM_COLL_ALG_SHM_STAGE) ? LOOM_COLL_SHM_STAGE_BYTES
                                                        : LOOM_COLL_SHM_MAX_BYTES) /
                (size_t)(comm->size > 0 ? comm->size : 1)) {
        return 0;
    }
    if ((alg->flags & LOOM_COLL_ALG_CMA) &&
        (!loom_coll_shm_eligible(comm) || cma_no || s->esize > LOOM_COLL_CMA_MAX_ESIZE)) {
        return 0;
    }
    if (s->layout == LOOM_COLL_LAYOUT_VECTOR && !(alg->flags & LOOM_COLL_ALG_VECTOR)) {
        return 0;
    }
    if ((alg->flags & LOOM_COLL_ALG_NO_IN_PLACE) && s->in_place) {
        return 0;
    }
    return 1;
}

/*
 * The table skips `cma` when ranks outnumber cores (forcing it still runs
 * it): each of its three phases waits for every rank, a round of context
 * switches per phase when ranks share cores (np 4 on 2 cores: 32 KiB 300 us
 * against rabenseifner's 156, 512 KiB 1.27 ms against 0.43). Algorithms
 * that wait once per rank (LOOM_COLL_ALG_ONE_WAIT) stay, and so does an
 * algorithm a shared rule names (allreduce cma above 16 KiB: re-measured in
 * session 14, its two waits beat Rabenseifner's 2 log2 p rendezvous steps
 * at np 4 and 8 on 2 cores). Conversely bcast
 * "stage" (two copies, a root that does not wait) is given only when ranks
 * share cores: with a core each, "cma"'s single copy was faster (np 2,
 * 16-32 KiB: 3.7-4.6 us against 7.6-18, load 11). Scatter "shm" and
 * "stage" run whether or not ranks share cores (session 13: np 4 on 2
 * cores, 1-128 B, 0.1-0.7 us against binomial's 1.8-5.4 and Open MPI's
 * 0.1-2.4; session 12 had kept binomial there; docs/collectives.md).
 */
static int loom_coll_needs_cores(const loom_coll_alg_t *alg)
{
    int shared = loom_progress_oversubscribed();

    return ((alg->flags & LOOM_COLL_ALG_CMA) && !(alg->flags & LOOM_COLL_ALG_ONE_WAIT) &&
            shared) ||
           ((alg->flags & LOOM_COLL_ALG_SHARED_CORES) && !shared);
}

/* The forced algorithm if it can run the call, else the table's answer. */
static const loom_coll_alg_t *loom_coll_select_table(loom_coll_type_t type, loom_comm_t comm,
                                                     size_t bytes, const loom_coll_state_t *s,
                                                     int cma_no)
{
    const struct loom_coll_table *t = &loom_coll_tables[type];
    const loom_coll_alg_t *alg = loom_coll_forced[type];

    if (alg != NULL) {
        if (loom_coll_eligible(alg, comm, bytes, s, cma_no)) {
            return alg;
        }
        if (!loom_coll_forced_warned[type]) {
            loom_coll_forced_warned[type] = 1;
            loom_warn("coll", "%s=%s cannot run this call (%zu bytes on %s of %d ranks%s%s); "
                      "using the selection table", loom_config_name(t->cfg), alg->name,
                      bytes, comm->name, comm->size,
                      s->layout == LOOM_COLL_LAYOUT_VECTOR ? ", per-rank counts" :
                      (alg->flags & LOOM_COLL_ALG_NO_IN_PLACE) && s->in_place ? ", in place" : "",
                      (alg->flags & LOOM_COLL_ALG_CMA) && s->esize > LOOM_COLL_CMA_MAX_ESIZE
                      ? ", elements of a user op larger than its chunk" : "");
        }
    }
    for (size_t i = 0; i < t->num_rules; ++i) {
        const loom_coll_rule_t *r = &t->rules[i];
        if (comm->size <= r->max_ranks && bytes <= r->max_bytes &&
            (!r->shared || (loom_progress_oversubscribed() && loom_coll_comm_one_node(comm)))) {
            alg = loom_coll_rule_alg[type][i];
            /* a shared rule names the cores' condition itself: it overrides
             * the algorithm's own default (allreduce cma, session 14) */
            if (loom_coll_eligible(alg, comm, bytes, s, cma_no) &&
                (r->shared || !loom_coll_needs_cores(alg))) {
                return alg;
            }
        }
    }
    /* every table ends with an algorithm that runs anything of its kind */
    for (size_t i = 0; i < t->num_algs; ++i) {
        if (loom_coll_eligible(&t->algs[i], comm, bytes, s, cma_no)) {
            return &t->algs[i];
        }
    }
    return &t->algs[0];
}

LOOM_COLL_PROTO(loom_coll_setup_progress);
static LOOM_COLL_PROTO(loom_coll_mcast_setup_progress);
static LOOM_COLL_PROTO(loom_coll_cma_setup_progress);

/* the answer while the communicator's on-node segment is not set up yet */
const loom_coll_alg_t loom_coll_alg_setup =
    ALG("shm-setup", loom_coll_setup_progress, 0, "the on-node segment's set-up, then the selection");

/* the answer while the communicator's multicast agreement is not known */
static const loom_coll_alg_t loom_coll_alg_mcast_setup =
    ALG("mcast-agree", loom_coll_mcast_setup_progress, 0, "the multicast agreement, then the selection");

/* the answer while the communicator's CMA verdict is not known (it runs
 * in the segment: flagged CMA, so the shm set-up step keeps the turn) */
const loom_coll_alg_t loom_coll_alg_cma_setup =
    ALG("cma-probe", loom_coll_cma_setup_progress, LOOM_COLL_ALG_CMA, "the process_vm_readv probe and verdict, then the selection");

enum { BCAST_BINOMIAL = 0, BCAST_SCATTER_ALLGATHER = 1 };

/*
 * mcast, or what runs the call when multicast cannot: the tree the table
 * gives below mcast (binomial up to 32 KiB or on two ranks, else scatter +
 * allgather: the threshold is at most 1 MiB), or, while the communicator
 * has not agreed whether every rank joined the group, the agreement step.
 */
static const loom_coll_alg_t *loom_coll_select_mcast(const loom_coll_alg_t *alg,
                                                     loom_comm_t comm, size_t bytes)
{
    loom_p2p_mc_t *entry;

    if (comm->size >= 2 && bytes <= loom_p2p_mc_threshold()) {
        if (loom_p2p_mc_get(comm, &entry) != LOOM_OK || entry->agreed == 0) {
            return &loom_coll_alg_mcast_setup;   /* which reports an error */
        }
        if (entry->agreed > 0) {
            return alg;
        }
    }
    return comm->size <= 2 || bytes <= 32 * KiB ? &bcast_algs[BCAST_BINOMIAL]
                                                : &bcast_algs[BCAST_SCATTER_ALLGATHER];
}

/*
 * The selection; @p cma_done: this call's CMA step has run (the verdict is
 * known, and the same on every rank, for this operation).
 *
 * Whether a call takes an on-node operation number must be the same on
 * every rank, so it must not depend on what a rank happens to know when
 * the call is posted. The CMA verdict does: a rank that has finished the
 * first large allreduce knows it, a rank that posted a second one before
 * may not. So the table is read without the verdict (cma is eligible from
 * the call's properties alone), and a call it gives cma gets the CMA step,
 * which always takes the number, unless this rank knows "yes" (cma itself,
 * which takes it too). The step decides in operation order: "no" spends
 * the operation on every rank and selects again with cma_done, which skips
 * cma, giving the same message-based algorithm as before on every rank.
 */
static const loom_coll_alg_t *loom_coll_select_at(loom_coll_type_t type, loom_comm_t comm,
                                                  size_t bytes, const loom_coll_state_t *s,
                                                  int cma_done)
{
    const loom_coll_alg_t *alg;

    if (!loom_coll_ready) {
        (void)loom_coll_init();
    }
    alg = loom_coll_select_table(type, comm, bytes, s,
                                 cma_done && loom_coll_comm_get(comm)->cma != LOOM_COLL_CMA_YES);
    if (alg->flags & LOOM_COLL_ALG_MCAST) {
        return loom_coll_select_mcast(alg, comm, bytes);
    }
    if (s->ordered && alg->ordered != NULL) {
        alg = alg->ordered;
    }
    if ((alg->flags & (LOOM_COLL_ALG_SHM | LOOM_COLL_ALG_CMA)) && s->shm == NULL &&
        loom_coll_comm_get(comm)->state != LOOM_COLL_SHM_READY) {
        return &loom_coll_alg_setup;   /* eligible, so not FAILED: not decided yet */
    }
    if ((alg->flags & LOOM_COLL_ALG_CMA) && !cma_done &&
        loom_coll_comm_get(comm)->cma != LOOM_COLL_CMA_YES) {
        return &loom_coll_alg_cma_setup;   /* unknown, or "no" that others may not know */
    }
    return alg;
}

const loom_coll_alg_t *loom_coll_select(loom_coll_type_t type, loom_comm_t comm,
                                        size_t bytes, const loom_coll_state_t *s)
{
    return loom_coll_select_at(type, comm, bytes, s, 0);
}

const loom_coll_alg_t *loom_coll_select_after_cma(loom_coll_type_t type, loom_comm_t comm,
                                                  size_t bytes, const loom_coll_state_t *s)
{
    return loom_coll_select_at(type, comm, bytes, s, 1);
}

/*
 * A set-up step is done: select the call, once, with the outcome known,
 * give the on-node turn back if the answer does not use the segment, and
 * run the answer. The steps of the layers below (the multicast agreement,
 * the CMA probe) return here rather than select themselves: the
 * algorithms' files sit below this one and call nothing of it.
 */
static loom_status_t loom_coll_select_run(loom_request_t req, int cma_done)
{
    loom_coll_state_t *s = loom_coll_state(req);
    /* the bytes the launch selected with: reduce_scatter_block's s->count
     * is one block, its launch took all p (every rank must choose alike) */
    size_t bytes = s->kind == LOOM_COLL_BARRIER ? 0 : s->count * s->esize;
    const loom_coll_alg_t *alg;

    if (s->kind == LOOM_COLL_REDUCE_SCATTER) {
        bytes *= (size_t)s->size;
    }
    alg = loom_coll_select_at((loom_coll_type_t)s->kind, s->comm, bytes, s, cma_done);
    if (s->shm != NULL && !(alg->flags & (LOOM_COLL_ALG_SHM | LOOM_COLL_ALG_CMA))) {
        loom_coll_shm_leave(s);       /* not expected: the segment is set up now */
        s->shm = NULL;
    }
    req->progress_fn = alg->progress;
    req->alg_name    = alg->name;
    return alg->progress(req);
}

/*
 * The communicator set-up step of a call whose selection depends on it:
 * take the call's number among the on-node operations, and when its turn
 * comes, set the segment up (the first of them) or find it set up or
 * failed (the others); then select, with the segment's state known, and
 * run what the selection gives. A call that ends up without the segment
 * gives its number back at once, so the next on-node operation may run.
 */
loom_status_t loom_coll_setup_progress(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st = loom_coll_shm_enter(s);

    if (st != LOOM_OK && st != LOOM_ERR_UNSUPPORTED) {
        return st;                    /* waiting for its turn or the peers, or failed */
    }
    if (st == LOOM_ERR_UNSUPPORTED) {
        loom_coll_shm_leave(s);
        s->shm = NULL;
    }
    s->phase = 0;
    s->step  = 0;
    s->peer  = 0;
    return loom_coll_select_run(req, 0);
}

/* The multicast agreement (bcast_mcast.c), then the selection. */
static loom_status_t loom_coll_mcast_setup_progress(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st = loom_coll_bcast_mcast_agree(req);

    if (st != LOOM_OK) {
        return st;
    }
    s->phase = 0;
    s->step  = 0;
    return loom_coll_select_run(req, 0);
}

/* The CMA probe and verdict (allreduce_cma.c), or the operation spent on
 * "no", then the selection: "yes" gives allreduce or reduce cma, which goes
 * on in the operation the probe entered; "no" what the table gives below cma. */
static loom_status_t loom_coll_cma_setup_progress(loom_request_t req)
{
    loom_coll_state_t *s = loom_coll_state(req);
    loom_status_t st = loom_coll_allreduce_cma_probe(req);

    if (st != LOOM_OK) {
        return st;
    }
    s->phase = 0;
    s->step  = 0;
    s->peer  = 0;
    return loom_coll_select_run(req, 1);
}

/* The algorithm loom_barrier/loom_bcast/loom_allreduce of @p bytes runs on
 * @p cc's communicator, remembered per kind for the last size asked. */
const loom_coll_alg_t *loom_coll_select_blocking(loom_coll_comm_t *cc, loom_comm_t comm,
                                                 loom_coll_type_t type, size_t bytes)
{
    loom_coll_state_t probe;

    if (comm->local != NULL) {
        return NULL;      /* an intercommunicator: the request path reports it */
    }
    memset(&probe, 0, offsetof(loom_coll_state_t, inline_tmp));
    probe.comm   = comm;
    probe.layout = LOOM_COLL_LAYOUT_UNIFORM;
    probe.shm    = cc;    /* the segment's state does not matter: the fast path checks it */
    cc->fast_alg[type]   = loom_coll_select(type, comm, bytes, &probe);
    cc->fast_bytes[type] = bytes;
    return cc->fast_alg[type];
}

static void loom_coll_print_size(FILE *out, size_t b)
{
    if (b == ANY_B) {
        fprintf(out, "%10s", "any");
    } else if (b >= MiB && b % MiB == 0) {
        fprintf(out, "%7zu MiB", b / MiB);
    } else if (b >= KiB && b % KiB == 0) {
        fprintf(out, "%7zu KiB", b / KiB);
    } else {
        fprintf(out, "%8zu B", b);
    }
}

void loom_coll_selection_print(FILE *out)
{
    if (!loom_coll_ready) {
        (void)loom_coll_init();
    }
    fprintf(out, "collective selection (first matching eligible rule wins; "
            "LOOM_DETERMINISTIC=%d)\n", loom_coll_det);
    for (int c = 0; c < LOOM_COLL_TYPE_COUNT; ++c) {
        const struct loom_coll_table *t = &loom_coll_tables[c];
        fprintf(out, "\n%s  (%s%s%s)\n", t->name, loom_config_name(t->cfg),
                loom_coll_forced[c] ? " = " : " unset",
                loom_coll_forced[c] ? loom_coll_forced[c]->name : "");
        fprintf(out, "  %-10s %10s  %s\n", "ranks <=", "bytes <=", "algorithm");
        for (size_t i = 0; i < t->num_rules; ++i) {
            const loom_coll_rule_t *r = &t->rules[i];
            if (r->max_ranks == ANY_P) {
                fprintf(out, "  %-10s ", "any");
            } else {
                fprintf(out, "  %-10d ", r->max_ranks);
            }
            loom_coll_print_size(out, r->max_bytes);
            fprintf(out, "  %s%s\n", r->alg,
                    r->shared ? " (only when ranks outnumber cores)" : "");
        }
        fprintf(out, "  algorithms:\n");
        for (size_t i = 0; i < t->num_algs; ++i) {
            fprintf(out, "    %-20s %s%s\n", t->algs[i].name, t->algs[i].desc,
                    (t->algs[i].flags & (LOOM_COLL_ALG_SHM | LOOM_COLL_ALG_CMA)) ?
                    " [on-node only]" : "");
        }
    }
}
