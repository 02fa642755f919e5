/*
 * prog_mcast.c: rank program for multicast broadcast (bcast algorithm
 * "mcast" over UD multicast), run by loomrun inside the soft-RoCE guest
 * (test/verbs/run.sh) with LOOM_TRANSPORTS=self,ib.
 *
 *   prog_mcast bcast [N] sizes 0 .. LOOM_IB_MCAST_THRESHOLD around the
 *                        fragment boundaries, every root, several datatypes,
 *                        on WORLD, a dup, a reversed-order split, a split
 *                        without rank 0 and halves; N (300) back-to-back
 *                        broadcasts with rotating roots; nonblocking
 *                        broadcasts in flight together. Every byte checked.
 *                        Then the transport's counters: multicast must have
 *                        carried them (and, with LOOM_IB_MCAST_DROP > 0,
 *                        dropped datagrams must have been resent).
 *   prog_mcast fallback  the same data checks where multicast cannot run
 *                        (LOOM_IB_MCAST_FAULT or THRESHOLD=0): no broadcast
 *                        may have gone by multicast.
 * Exit 0 on success; every failure prints a line with "FAIL".
 */
#include <loom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if LOOM_HAVE_IBV
#include "../../transport/ib/ib_int.h"
#endif

static int failures;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "FAIL rank %d: ", loom_rank());               \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
            ++failures;                                                   \
        }                                                                 \
    } while (0)

static uint8_t pat(uint64_t seed, size_t i)
{
    uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;
    return (uint8_t)(x >> 29 ^ x >> 47);
}

/* One broadcast of @p bytes from @p root on @p comm, checked. */
static void one(loom_comm_t comm, const char *name, size_t bytes, int root, uint64_t seed,
                uint8_t *buf)
{
    int me = loom_comm_rank(comm);
    size_t i, bad = 0, first = 0;
    loom_status_t st;

    for (i = 0; i < bytes + 16; ++i) {
        buf[i] = me == root || i >= bytes ? pat(seed, i) : (uint8_t)~pat(seed, i);
    }
    st = loom_bcast(buf, bytes, LOOM_UINT8, root, comm);
    CHECK(st == LOOM_OK, "bcast %zu B root %d on %s: %s", bytes, root, name,
          loom_strerror(st));
    for (i = 0; i < bytes + 16; ++i) {
        if (buf[i] != pat(seed, i) && bad++ == 0) {
            first = i;
        }
    }
    CHECK(bad == 0, "bcast %zu B root %d on %s: %zu wrong bytes, first at %zu", bytes, root,
          name, bad, first);
}

static void sizes(loom_comm_t comm, const char *name, size_t thr, uint8_t *buf)
{
    static const size_t base[] = { 0, 1, 31, 4063, 4064, 4065, 8128, 8129, 10000, 32768 };
    size_t list[16], n = 0;
    int p = loom_comm_size(comm);

    for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); ++i) {
        if (base[i] <= thr) {
            list[n++] = base[i];
        }
    }
    list[n++] = thr - 1;
    list[n++] = thr;
    for (size_t i = 0; i < n; ++i) {
        for (int root = 0; root < p; ++root) {
            one(comm, name, list[i], (root + (int)i) % p, i * 131 + (size_t)root, buf);
        }
    }
}

static void typed(loom_comm_t comm, const char *name)
{
    double d[700];
    int32_t v[1000];
    int me = loom_comm_rank(comm), root = loom_comm_size(comm) - 1;

    for (int i = 0; i < 1000; ++i) {
        v[i] = me == root ? i * 7 - 3 : -1;
    }
    for (int i = 0; i < 700; ++i) {
        d[i] = me == root ? i * 0.25 : -1.0;
    }
    CHECK(loom_bcast(v, 1000, LOOM_INT32, root, comm) == LOOM_OK, "int32 bcast on %s", name);
    CHECK(loom_bcast(d, 700, LOOM_DOUBLE, root, comm) == LOOM_OK, "double bcast on %s", name);
    for (int i = 0; i < 1000; ++i) {
        CHECK(v[i] == i * 7 - 3, "int32 bcast on %s: element %d is %d", name, i, v[i]);
        if (v[i] != i * 7 - 3) {
            break;
        }
    }
    for (int i = 0; i < 700; ++i) {
        CHECK(d[i] == i * 0.25, "double bcast on %s: element %d", name, i);
        if (d[i] != i * 0.25) {
            break;
        }
    }
}

static int reps = 300;

static void many(loom_comm_t comm, const char *name, uint8_t *buf)
{
    int p = loom_comm_size(comm);

    for (int it = 0; it < reps; ++it) {
        one(comm, name, 64 + (size_t)(it * 97) % 9000, it % p, 5000 + (uint64_t)it, buf);
    }
}

/* Four nonblocking broadcasts in flight together (different roots). */
static void nonblocking(loom_comm_t comm, const char *name, uint8_t *bufs)
{
    loom_request_t reqs[4];
    int p = loom_comm_size(comm), me = loom_comm_rank(comm);
    size_t len = 6000;

    for (int k = 0; k < 4; ++k) {
        uint8_t *b = bufs + (size_t)k * len;
        for (size_t i = 0; i < len; ++i) {
            b[i] = me == k % p ? pat(900 + (uint64_t)k, i) : 0;
        }
        CHECK(loom_ibcast(b, len, LOOM_UINT8, k % p, comm, &reqs[k]) == LOOM_OK,
              "ibcast %d on %s", k, name);
    }
    CHECK(loom_waitall(4, reqs, NULL) == LOOM_OK, "waitall on %s", name);
    for (int k = 0; k < 4; ++k) {
        for (size_t i = 0; i < len; ++i) {
            if (bufs[(size_t)k * len + i] != pat(900 + (uint64_t)k, i)) {
                CHECK(0, "ibcast %d on %s: byte %zu wrong", k, name, i);
                break;
            }
        }
    }
}

static void run_comm(loom_comm_t comm, const char *name, size_t thr, uint8_t *buf)
{
    if (comm == NULL) {
        return;
    }
    sizes(comm, name, thr, buf);
    typed(comm, name);
    nonblocking(comm, name, buf);
}

static void stats(int want_mcast)
{
    unsigned long mine[5] = { 0 }, all[5];
    double drop = getenv("LOOM_IB_MCAST_DROP") ? atof(getenv("LOOM_IB_MCAST_DROP")) : 0;
#if LOOM_HAVE_IBV
    loom_tl_ib_mc_stats_t st;
    loom_tl_ib_mc_stats(&st);
    mine[0] = st.done; mine[1] = st.sent; mine[2] = st.resent; mine[3] = st.dropped;
    mine[4] = st.nacks;
    printf("rank %d: multicast broadcasts %lu, fragments sent %lu, resent %lu, dropped %lu, "
           "nacks %lu, staged %lu, malformed %lu, groups %d\n", loom_rank(), st.done, st.sent,
           st.resent, st.dropped, st.nacks, st.staged, st.bad, st.groups_joined);
#endif
    loom_allreduce(mine, all, 5, LOOM_UINT64, LOOM_SUM, LOOM_COMM_WORLD);
    if (want_mcast) {
        CHECK(mine[0] > 0, "no broadcast went by multicast on this rank");
        CHECK(drop <= 0 || (all[3] > 0 && all[2] > 0),
              "LOOM_IB_MCAST_DROP=%g but %lu dropped, %lu resent", drop, all[3], all[2]);
    } else if (getenv("LOOM_IB_MCAST_FAULT") != NULL) {
        /* communicators without the refused rank may still use multicast */
        CHECK(loom_rank() != atoi(getenv("LOOM_IB_MCAST_FAULT")) || mine[0] == 0,
              "%lu broadcasts went by multicast on the rank refused the group", mine[0]);
    } else {
        CHECK(all[0] == 0, "%lu broadcasts went by multicast in fallback mode", all[0]);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "bcast";
    if (argc > 2) {
        reps = atoi(argv[2]);
    }
    const char *t = getenv("LOOM_IB_MCAST_THRESHOLD");
    size_t thr = t && atol(t) > 0 ? (size_t)atol(t) : 65536;
    loom_comm_t dup = NULL, rev = NULL, tail = NULL, half = NULL;
    uint8_t *buf;
    int me, p;

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 1;
    }
    me = loom_rank();
    p = loom_size();
    buf = malloc(thr + 64 > 24000 ? thr + 64 : 24000);
    if (buf == NULL) {
        return 1;
    }
    loom_comm_dup(LOOM_COMM_WORLD, &dup);
    loom_comm_split(LOOM_COMM_WORLD, 0, p - me, &rev);
    loom_comm_split(LOOM_COMM_WORLD, me == 0 ? LOOM_UNDEFINED : 1, me, &tail);
    loom_comm_split(LOOM_COMM_WORLD, me % 2, me, &half);
    run_comm(LOOM_COMM_WORLD, "WORLD", thr, buf);
    run_comm(rev, "reversed", thr, buf);
    many(dup, "dup", buf);
    run_comm(tail, "without-0", thr, buf);
    run_comm(half, "half", thr < 16384 ? thr : 16384, buf);
    many(LOOM_COMM_WORLD, "WORLD", buf);
    stats(strcmp(mode, "fallback") != 0);
    loom_comm_free(&dup);
    loom_comm_free(&rev);
    if (tail != NULL) {
        loom_comm_free(&tail);
    }
    loom_comm_free(&half);
    free(buf);
    loom_finalize();
    if (failures == 0) {
        printf("OK %s rank %d\n", mode, me);
    }
    return failures != 0;
}
