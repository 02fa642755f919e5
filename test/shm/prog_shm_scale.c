/*
 * prog_shm_scale.c: rank program for the shm transport at node scale
 * (test/shm/test_shm_scale.sh, test/shm/run_shm_256.sh). Every rank is on
 * one node.
 *
 *   prog_shm_scale mem [rounds]  every ordered pair exchanges messages of
 *                                8, 100 and 2000 bytes for @p rounds rounds
 *                                (each checked byte by byte); rank 0
 *                                prints "MEM ... init=<KiB> after=<KiB>
 *                                transport_init=.. transport_after=..":
 *                                the shared memory in use after loom_init
 *                                and after the exchange, in all and in the
 *                                transport's segment
 *   prog_shm_scale hot           rank 0 sends one message to rank 1, then
 *                                200: "HOT m0=.. m1=.. m2=.." (KiB of the
 *                                transport's segment in use before, after
 *                                the first, after the 200)
 *   prog_shm_scale incast [n]    ranks 1..N-1 each send @p n messages of
 *                                mixed sizes to rank 0, which receives from
 *                                any source and checks every byte and the
 *                                order per sender: "INCAST ok <msgs>"
 *   prog_shm_scale death         every rank exchanges with every other in a
 *                                loop; the last rank kills itself (SIGKILL)
 *                                in the middle; survivors print "DEATH r:
 *                                <status>" for the error they get back
 *                                (run with LOOM_ERRORS=return)
 *
 * Every mode prints "SEG <name>" once (rank 0) for each loom segment it
 * mapped, so the driver can check that /dev/shm holds nothing of the job
 * afterwards. "Memory in use" is counted exactly, whoever else uses the
 * machine: mincore() of this process's mappings of /dev/shm/loom-* tells
 * which pages of those (tmpfs) files exist.
 */
#include <loom.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define TAG_MEM    11
#define TAG_HOT    12
#define TAG_INCAST 13
#define TAG_DEATH  14

static const size_t mem_sizes[] = { 8, 100, 2000 };

static uint8_t pattern(int src, int dst, size_t round, size_t i)
{
    return (uint8_t)((size_t)src * 31u + (size_t)dst * 17u + round * 7u + i * 2654435761u);
}

static unsigned long long transport_kib;   /* the last call's share of the transport's segment */

/*
 * KiB of this process's loom shared-memory mappings that exist (optionally
 * printing names); transport_kib gets the part in the shm transport's
 * segment ("-shm-" in its name), the rest is the collectives'.
 */
static unsigned long long shm_in_use_kib(int print_names)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    unsigned long long pages = 0, tl_pages = 0;
    char line[1024];
    long pg = sysconf(_SC_PAGESIZE);

    if (maps == NULL) {
        return 0;
    }
    while (fgets(line, sizeof(line), maps) != NULL) {
        unsigned long lo, hi;
        char *name = strstr(line, "/dev/shm/loom-");
        if (name == NULL || sscanf(line, "%lx-%lx", &lo, &hi) != 2) {
            continue;
        }
        size_t n = (hi - lo) / (size_t)pg;
        unsigned char *vec = malloc(n);
        unsigned long long here = 0;
        if (vec != NULL && mincore((void *)lo, hi - lo, vec) == 0) {
            for (size_t i = 0; i < n; ++i) {
                here += vec[i] & 1;
            }
        }
        pages += here;
        if (strstr(name, "-shm-") != NULL) {
            tl_pages += here;
        }
        free(vec);
        if (print_names) {
            name[strcspn(name, " \n")] = '\0';
            printf("SEG %s\n", name + strlen("/dev/shm"));
        }
    }
    fclose(maps);
    transport_kib = tl_pages * (unsigned long long)pg / 1024;
    return pages * (unsigned long long)pg / 1024;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One round of the all-pairs exchange at one size; @return errors. */
static int exchange_round(size_t round, size_t n, uint8_t **sbuf, uint8_t **rbuf,
                          loom_request_t *reqs)
{
    int rank = loom_rank(), size = loom_size(), errors = 0;
    size_t nreq = 0;

    for (int p = 0; p < size; ++p) {
        if (p == rank) {
            continue;
        }
        for (size_t i = 0; i < n; ++i) {
            sbuf[p][i] = pattern(rank, p, round, i);
        }
        memset(rbuf[p], 0xee, n);
        loom_irecv(rbuf[p], n, LOOM_BYTE, p, TAG_MEM, LOOM_COMM_WORLD, &reqs[nreq++]);
    }
    for (int k = 1; k < size; ++k) {   /* staggered: not everyone to rank 0 first */
        int p = (rank + k) % size;
        loom_isend(sbuf[p], n, LOOM_BYTE, p, TAG_MEM, LOOM_COMM_WORLD, &reqs[nreq++]);
    }
    if (loom_waitall(nreq, reqs, NULL) != LOOM_OK) {
        fprintf(stderr, "rank %d: waitall failed in round %zu (%zu bytes)\n", rank, round, n);
        return 1;
    }
    for (int p = 0; p < size && errors < 5; ++p) {
        for (size_t i = 0; i < n && p != rank; ++i) {
            if (rbuf[p][i] != pattern(p, rank, round, i)) {
                fprintf(stderr, "rank %d: byte %zu from rank %d wrong in round %zu\n", rank, i,
                        p, round);
                ++errors;
                break;
            }
        }
    }
    return errors;
}

static int run_mem(size_t rounds)
{
    int rank = loom_rank(), size = loom_size(), errors = 0;
    uint8_t **sbuf = calloc((size_t)size, sizeof(*sbuf));
    uint8_t **rbuf = calloc((size_t)size, sizeof(*rbuf));
    loom_request_t *reqs = calloc(2 * (size_t)size, sizeof(*reqs));
    unsigned long long m0, m1, tl0, tl1;
    double t0 = now_s();

    for (int p = 0; p < size; ++p) {
        sbuf[p] = malloc(2000);
        rbuf[p] = malloc(2000);
    }
    loom_barrier(LOOM_COMM_WORLD);
    m0 = shm_in_use_kib(rank == 0);
    tl0 = transport_kib;
    for (size_t r = 0; r < rounds; ++r) {
        errors += exchange_round(r, mem_sizes[r % 3], sbuf, rbuf, reqs);
    }
    loom_barrier(LOOM_COMM_WORLD);
    m1 = shm_in_use_kib(0);
    tl1 = transport_kib;
    if (rank == 0) {
        printf("MEM ranks=%d rounds=%zu init=%llu after=%llu transport_init=%llu "
               "transport_after=%llu exchange_s=%.2f\n", size, rounds, m0, m1, tl0, tl1,
               now_s() - t0);
    }
    for (int p = 0; p < size; ++p) {
        free(sbuf[p]);
        free(rbuf[p]);
    }
    free(sbuf);
    free(rbuf);
    free(reqs);
    return errors;
}

static int run_hot(void)
{
    int rank = loom_rank();
    unsigned long long m0, m1, m2;
    uint64_t v = 0;

    loom_barrier(LOOM_COMM_WORLD);
    (void)shm_in_use_kib(rank == 0);
    m0 = transport_kib;
    if (rank == 0) {
        loom_send(&v, sizeof(v), LOOM_BYTE, 1, TAG_HOT, LOOM_COMM_WORLD);
    } else if (rank == 1) {
        loom_recv(&v, sizeof(v), LOOM_BYTE, 0, TAG_HOT, LOOM_COMM_WORLD, LOOM_STATUS_IGNORE);
    }
    loom_barrier(LOOM_COMM_WORLD);
    (void)shm_in_use_kib(0);
    m1 = transport_kib;
    for (uint64_t i = 1; i <= 200; ++i) {
        if (rank == 0) {
            loom_send(&i, sizeof(i), LOOM_BYTE, 1, TAG_HOT, LOOM_COMM_WORLD);
        } else if (rank == 1) {
            loom_recv(&v, sizeof(v), LOOM_BYTE, 0, TAG_HOT, LOOM_COMM_WORLD, LOOM_STATUS_IGNORE);
            if (v != i) {
                fprintf(stderr, "rank 1: message %llu carried %llu\n", (unsigned long long)i,
                        (unsigned long long)v);
                return 1;
            }
        }
    }
    loom_barrier(LOOM_COMM_WORLD);
    (void)shm_in_use_kib(0);
    m2 = transport_kib;
    if (rank == 0) {
        printf("HOT m0=%llu m1=%llu m2=%llu\n", m0, m1, m2);
    }
    return 0;
}

#define INCAST_MAX 6000
#define INCAST_WIN 64

static size_t incast_len(int src, size_t seq)
{
    static const size_t lens[] = { 16, 40, 176, 177, 1000, INCAST_MAX };   /* >= the (src, seq) head */
    return lens[(seq + (size_t)src) % 6];
}

/* Message seq from src: its first 16 bytes say (src, seq), the rest a pattern. */
static void incast_fill(uint8_t *buf, int src, size_t seq)
{
    uint64_t h[2] = { (uint64_t)src, seq };
    size_t len = incast_len(src, seq);

    memcpy(buf, h, sizeof(h));
    for (size_t i = sizeof(h); i < len; ++i) {
        buf[i] = pattern(src, 0, seq, i);
    }
}

static int incast_check(const uint8_t *buf, size_t got, int src, size_t *next)
{
    uint64_t h[2];
    size_t len;

    memcpy(h, buf, sizeof(h));
    if (src <= 0 || h[0] != (uint64_t)src || h[1] != next[src]) {
        fprintf(stderr, "rank 0: from rank %d: message (%llu, %llu), expected (%d, %zu)\n", src,
                (unsigned long long)h[0], (unsigned long long)h[1], src,
                src > 0 ? next[src] : 0);
        return 1;
    }
    len = incast_len(src, next[src]);
    if (got != len) {
        fprintf(stderr, "rank 0: from rank %d: message %zu has %zu bytes, expected %zu\n", src,
                next[src], got, len);
        return 1;
    }
    for (size_t i = 16; i < len; ++i) {
        if (buf[i] != pattern(src, 0, next[src], i)) {
            fprintf(stderr, "rank 0: from rank %d: message %zu byte %zu wrong\n", src,
                    next[src], i);
            return 1;
        }
    }
    ++next[src];
    return 0;
}

static int incast_receive(size_t n)
{
    int size = loom_size(), errors = 0;
    size_t *next = calloc((size_t)size, sizeof(*next));
    size_t total = n * (size_t)(size - 1);
    uint8_t *buf = malloc(INCAST_MAX);
    double t0 = now_s();

    for (size_t k = 0; k < total && errors == 0; ++k) {
        loom_msg_status_t st;
        size_t got = 0;
        if (loom_recv(buf, INCAST_MAX, LOOM_BYTE, LOOM_ANY_SOURCE, TAG_INCAST, LOOM_COMM_WORLD,
                      &st) != LOOM_OK ||
            loom_get_count(&st, LOOM_BYTE, &got) != LOOM_OK) {
            fprintf(stderr, "rank 0: receive %zu failed\n", k);
            ++errors;
            break;
        }
        errors += incast_check(buf, got, st.source, next);
    }
    for (int s = 1; s < size && errors == 0; ++s) {
        if (next[s] != n) {
            fprintf(stderr, "rank 0: %zu messages from rank %d, expected %zu\n", next[s], s, n);
            ++errors;
        }
    }
    if (errors == 0) {
        printf("INCAST ok %zu messages from %d senders in %.2f s\n", total, size - 1,
               now_s() - t0);
    }
    free(buf);
    free(next);
    return errors;
}

static int incast_send(size_t n)
{
    uint8_t (*bufs)[INCAST_MAX] = malloc(sizeof(*bufs) * INCAST_WIN);
    loom_request_t reqs[INCAST_WIN];
    int rank = loom_rank(), errors = 0;

    for (size_t base = 0; base < n; base += INCAST_WIN) {
        size_t m = n - base < INCAST_WIN ? n - base : INCAST_WIN;
        for (size_t i = 0; i < m; ++i) {
            incast_fill(bufs[i], rank, base + i);
            loom_isend(bufs[i], incast_len(rank, base + i), LOOM_BYTE, 0, TAG_INCAST,
                       LOOM_COMM_WORLD, &reqs[i]);
        }
        if (loom_waitall(m, reqs, NULL) != LOOM_OK) {
            fprintf(stderr, "rank %d: incast sends failed\n", rank);
            ++errors;
            break;
        }
    }
    free(bufs);
    return errors;
}

static int run_death(void)
{
    int rank = loom_rank(), size = loom_size();
    uint8_t **sbuf = calloc((size_t)size, sizeof(*sbuf));
    uint8_t **rbuf = calloc((size_t)size, sizeof(*rbuf));
    loom_request_t *reqs = calloc(2 * (size_t)size, sizeof(*reqs));
    loom_status_t s = LOOM_OK;

    signal(SIGTERM, SIG_IGN);   /* see what the library does before loomrun's SIGKILL */
    for (int p = 0; p < size; ++p) {
        sbuf[p] = calloc(1, 2000);
        rbuf[p] = calloc(1, 2000);
    }
    (void)shm_in_use_kib(rank == 0);
    fflush(stdout);
    for (size_t r = 0; r < 1000000 && s == LOOM_OK; ++r) {
        if (rank == size - 1 && r == 20) {
            raise(SIGKILL);
        }
        s = exchange_round(r, mem_sizes[r % 3], sbuf, rbuf, reqs) == 0 ? LOOM_OK
                                                                      : LOOM_ERR_PEER_FAILED;
    }
    printf("DEATH %d: %s\n", rank, s == LOOM_OK ? "no error" : "peer failure");
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "mem";
    size_t arg = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
    int errors;

    if (loom_init(&argc, &argv) != LOOM_OK) {
        return 1;
    }
    if (loom_size() < 2) {
        fprintf(stderr, "prog_shm_scale needs at least 2 ranks\n");
        loom_finalize();
        return 1;
    }
    if (strcmp(mode, "mem") == 0) {
        errors = run_mem(arg != 0 ? arg : 24);
    } else if (strcmp(mode, "hot") == 0) {
        errors = run_hot();
    } else if (strcmp(mode, "incast") == 0) {
        errors = loom_rank() == 0 ? incast_receive(arg != 0 ? arg : 500)
                                  : incast_send(arg != 0 ? arg : 500);
    } else if (strcmp(mode, "death") == 0) {
        errors = run_death();
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        errors = 1;
    }
    fflush(stdout);
    loom_finalize();
    return errors != 0;
}
