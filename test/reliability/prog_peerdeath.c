/*
 * prog_peerdeath.c: the rank program of test_peerdeath.sh. The last rank
 * (the victim) kills itself with SIGKILL while the others are blocked in an
 * operation that involves it; the survivors say what their call returned.
 *
 *   prog_peerdeath MODE
 *     recv       rank 0 is in loom_recv from the victim
 *     rndv       rank 0 is in loom_send of 1 MiB (rendezvous) to the victim,
 *                which never posts the receive
 *     flood      rank 0 sends 4 KiB eager messages to the victim, which
 *                never receives them, until a send fails (100000 at most)
 *     anysrc     rank 0 is in loom_recv(LOOM_ANY_SOURCE) and only the victim
 *                would ever send
 *     waitall    rank 0 waits for two receives: one from rank 1 (alive,
 *                sends) and one from the victim (np >= 3)
 *     rndvrecv   rank 0 is in loom_recv of 32 MiB from the victim, which
 *                dies inside its loom_isend of it (after a few loom_test
 *                calls); an LOOM_OK must come with the whole message
 *     unexp      the victim sends three small messages (tags 1..3) and
 *                dies; rank 0 sees them arrive (loom_iprobe), waits past the
 *                death, then receives tag 1, tag 4 (never sent: must fail
 *                with the peer's death), tag 2 and tag 3 (arrived before the
 *                death: must still be delivered)
 *     barrier    every survivor is in loom_barrier
 *     allreduce  every survivor is in a 256 KiB loom_allreduce (message based)
 *     allreduce8 every survivor is in an 8-element loom_allreduce (on one
 *                node: the shared-segment algorithm)
 *
 * Before the death every pair exchanges a message (connections are up) and
 * all ranks meet in a barrier; the victim then sleeps 0.3 s (the survivors
 * are inside their call) and prints "PD died: rank V at T" (T: wall clock)
 * before raise(SIGKILL).
 *
 * loomrun stops the job at the first death: 0.25 s later SIGTERM, 2 s after
 * that SIGKILL. The survivors ignore SIGTERM so the test sees what the
 * library does with the death in those 2.25 s. A survivor whose call returns
 * prints
 *   PD returned: rank R MODE(peer V) -> STATUS after S s at T
 * and with LOOM_ERRORS=return then checks, printing one line each:
 *   PD later: rank R send to V -> STATUS      (a new operation with the dead
 *   PD later: rank R irecv from V -> STATUS    peer fails at once)
 *   PD live: rank R exchange with rank Q -> STATUS  (np >= 3: the survivors
 *                                                    still talk)
 * and leaves with _exit(0) (a finalize with a dead rank is not the point).
 * With LOOM_ERRORS=abort the survivors not in the call under test wait in a
 * receive from the victim (the job must abort, not return).
 */
#include <loom.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RNDV_BYTES   (1024 * 1024)
#define FLOOD_BYTES  4096
#define FLOOD_MAX    100000
#define REDUCE_COUNT (256 * 1024 / 8)
#define TAG_DEAD     5
#define TAG_LIVE     6

static int rank, size, victim;

static double wall(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* isend + recv + wait of one int32 with @p peer */
static loom_status_t exchange(int peer, int tag, int out, int *in_p)
{
    loom_request_t req;
    loom_status_t st, st2;

    st = loom_isend(&out, 1, LOOM_INT32, peer, tag, LOOM_COMM_WORLD, &req);
    if (st != LOOM_OK) {
        return st;
    }
    st  = loom_recv(in_p, 1, LOOM_INT32, peer, tag, LOOM_COMM_WORLD, NULL);
    st2 = loom_wait(&req, NULL);
    return st != LOOM_OK ? st : st2;
}

static int warm_up(void)
{
    int in = -1;

    /* every pair once: every connection is made before the death */
    for (int q = 0; q < size; ++q) {
        if (q == rank) {
            continue;
        }
        if (exchange(q, 1, rank, &in) != LOOM_OK || in != q) {
            fprintf(stderr, "[%d] PD: warm-up exchange with %d failed\n", rank, q);
            return 1;
        }
    }
    return loom_barrier(LOOM_COMM_WORLD) != LOOM_OK;
}

#define BIG_BYTES (32u << 20)

static uint8_t pat(size_t i)
{
    return (uint8_t)(i * 7 + 3);
}

static void die(const char *mode)
{
    if (strcmp(mode, "rndvrecv") == 0) {
        uint8_t *big = malloc(BIG_BYTES);
        loom_request_t req;
        int flag = 0;
        for (size_t i = 0; big != NULL && i < BIG_BYTES; ++i) {
            big[i] = pat(i);
        }
        if (big != NULL &&
            loom_isend(big, BIG_BYTES, LOOM_BYTE, 0, TAG_DEAD, LOOM_COMM_WORLD, &req) == LOOM_OK) {
            for (int i = 0; i < 3 && !flag; ++i) {
                loom_test(&req, &flag, NULL);
            }
        }
        printf("PD dies during its isend (completed: %d)\n", flag);
    } else if (strcmp(mode, "unexp") == 0) {
        for (int t = 1; t <= 3; ++t) {
            int v = 100 + t;
            loom_send(&v, 1, LOOM_INT32, 0, t, LOOM_COMM_WORLD);
        }
    }
    usleep(300 * 1000);
    printf("PD died: rank %d at %.6f\n", rank, wall());
    fflush(stdout);
    raise(SIGKILL);
}

/* mode unexp at rank 0: prints "PD unexp: rank 0 tag T -> STATUS" per
 * receive; returns the status of the tag-4 receive (the one that must fail) */
static loom_status_t unexp_receive(void)
{
    static const int order[4] = { 1, 4, 2, 3 };
    loom_status_t st, st4 = LOOM_OK;
    int flag = 0;

    while (!flag) {   /* all three are here (they arrive in order) */
        if (loom_iprobe(victim, 3, LOOM_COMM_WORLD, &flag, NULL) != LOOM_OK) {
            return LOOM_ERR_INTERNAL;
        }
    }
    usleep(1500 * 1000);   /* the sender is dead by now */
    for (int k = 0; k < 4; ++k) {
        int v = -1;
        st = loom_recv(&v, 1, LOOM_INT32, victim, order[k], LOOM_COMM_WORLD, NULL);
        if (st == LOOM_OK && v != 100 + order[k]) {
            st = LOOM_ERR_INTERNAL;
        }
        printf("PD unexp: rank 0 tag %d -> %s\n", order[k], loom_status_name(st));
        if (order[k] == 4) {
            st4 = st;
        }
    }
    return st4;
}

/* The call under test, at a survivor. */
static loom_status_t blocked_call(const char *mode)
{
    static uint8_t big[RNDV_BYTES];
    static int64_t red[REDUCE_COUNT];
    int x = 0, y = 0;

    if (strcmp(mode, "recv") == 0) {
        return rank == 0 ? loom_recv(&x, 1, LOOM_INT32, victim, TAG_DEAD, LOOM_COMM_WORLD, NULL)
                         : LOOM_INPROGRESS;
    }
    if (strcmp(mode, "rndv") == 0) {
        return rank == 0 ? loom_send(big, sizeof(big), LOOM_BYTE, victim, TAG_DEAD,
                                     LOOM_COMM_WORLD)
                         : LOOM_INPROGRESS;
    }
    if (strcmp(mode, "flood") == 0) {
        loom_status_t st = LOOM_INPROGRESS;
        for (int i = 0; rank == 0 && i < FLOOD_MAX; ++i) {
            if ((st = loom_send(big, FLOOD_BYTES, LOOM_BYTE, victim, TAG_DEAD,
                                LOOM_COMM_WORLD)) != LOOM_OK) {
                break;
            }
        }
        return st;
    }
    if (strcmp(mode, "rndvrecv") == 0) {
        uint8_t *buf;
        loom_status_t st;
        if (rank != 0) {
            return LOOM_INPROGRESS;
        }
        if ((buf = malloc(BIG_BYTES)) == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        st = loom_recv(buf, BIG_BYTES, LOOM_BYTE, victim, TAG_DEAD, LOOM_COMM_WORLD, NULL);
        for (size_t i = 0; st == LOOM_OK && i < BIG_BYTES; i += 4093) {
            if (buf[i] != pat(i)) {
                printf("PD corrupt: rank 0 byte %zu of the 32 MiB message is wrong\n", i);
                st = LOOM_ERR_INTERNAL;
            }
        }
        free(buf);
        return st;
    }
    if (strcmp(mode, "unexp") == 0) {
        return rank == 0 ? unexp_receive() : LOOM_INPROGRESS;
    }
    if (strcmp(mode, "anysrc") == 0) {
        return rank == 0 ? loom_recv(&x, 1, LOOM_INT32, LOOM_ANY_SOURCE, TAG_DEAD,
                                     LOOM_COMM_WORLD, NULL)
                         : LOOM_INPROGRESS;
    }
    if (strcmp(mode, "waitall") == 0) {
        loom_request_t req[2];
        if (rank == 1) {   /* the live sender: after the death */
            usleep(500 * 1000);
            return loom_send(&y, 1, LOOM_INT32, 0, TAG_DEAD, LOOM_COMM_WORLD) == LOOM_OK ?
                   LOOM_INPROGRESS : LOOM_ERR_INTERNAL;
        }
        if (rank != 0 ||
            loom_irecv(&x, 1, LOOM_INT32, 1, TAG_DEAD, LOOM_COMM_WORLD, &req[0]) != LOOM_OK ||
            loom_irecv(&y, 1, LOOM_INT32, victim, TAG_DEAD, LOOM_COMM_WORLD, &req[1]) !=
            LOOM_OK) {
            return rank == 0 ? LOOM_ERR_INTERNAL : LOOM_INPROGRESS;
        }
        return loom_waitall(2, req, NULL);
    }
    if (strcmp(mode, "barrier") == 0) {
        return loom_barrier(LOOM_COMM_WORLD);
    }
    if (strcmp(mode, "allreduce") == 0 || strcmp(mode, "allreduce8") == 0) {
        size_t n = strcmp(mode, "allreduce8") == 0 ? 8 : REDUCE_COUNT;
        for (size_t i = 0; i < n; ++i) {
            red[i] = rank;
        }
        return loom_allreduce(LOOM_IN_PLACE, red, n, LOOM_INT64, LOOM_SUM, LOOM_COMM_WORLD);
    }
    fprintf(stderr, "[%d] PD: unknown mode %s\n", rank, mode);
    return LOOM_ERR_INVALID_ARG;
}

/* After the failure: new operations with the dead peer, and the live ones. */
static void later(void)
{
    int x = 0;
    loom_request_t req = LOOM_REQUEST_NULL;
    loom_status_t st;

    if (rank == 0) {
        printf("PD later: rank %d send to %d -> %s\n", rank, victim,
               loom_status_name(loom_send(&x, 1, LOOM_INT32, victim, 9, LOOM_COMM_WORLD)));
        st = loom_irecv(&x, 1, LOOM_INT32, victim, 9, LOOM_COMM_WORLD, &req);
        if (st == LOOM_OK) {
            st = loom_wait(&req, NULL);
        }
        printf("PD later: rank %d irecv from %d -> %s\n", rank, victim, loom_status_name(st));
    }
    if (size >= 3 && rank <= 1) {
        int peer = 1 - rank, in = -1;
        st = exchange(peer, TAG_LIVE, rank, &in);
        if (st == LOOM_OK && in != peer) {
            st = LOOM_ERR_INTERNAL;
        }
        printf("PD live: rank %d exchange with rank %d -> %s\n", rank, peer,
               loom_status_name(st));
    }
}

int main(int argc, char **argv)
{
    const char *errors = getenv("LOOM_ERRORS");
    loom_status_t st;
    int errors_return = errors != NULL && strcmp(errors, "return") == 0;
    double t0;

    if (argc != 2 || loom_init(&argc, &argv) != LOOM_OK) {
        fprintf(stderr, "usage: prog_peerdeath recv|rndv|flood|anysrc|waitall|barrier|"
                "allreduce|allreduce8|rndvrecv|unexp\n");
        return 2;
    }
    rank   = loom_rank();
    size   = loom_size();
    victim = size - 1;
    signal(SIGTERM, SIG_IGN);
    if (warm_up() != 0) {
        return 1;
    }
    if (rank == victim) {
        die(argv[1]);
    }
    t0 = wall();
    st = blocked_call(argv[1]);
    if (st == LOOM_INPROGRESS && !errors_return) {
        int x;
        st = loom_recv(&x, 1, LOOM_INT32, victim, TAG_DEAD, LOOM_COMM_WORLD, NULL);
        printf("PD bystander: rank %d recv from %d -> %s\n", rank, victim,
               loom_status_name(st));
    } else if (st != LOOM_INPROGRESS) {
        printf("PD returned: rank %d %s(peer %d) -> %s after %.3f s at %.6f\n", rank, argv[1],
               victim, loom_status_name(st), wall() - t0, wall());
    }
    fflush(stdout);
    if (errors_return) {
        later();
    }
    printf("PD done: rank %d\n", rank);
    fflush(stdout);
    _exit(0);
}
