/*
 * prog_tcp.c: rank program for test_tcp.sh (run with LOOM_TRANSPORTS=self,tcp).
 *
 *   until FILE  ring traffic (eager and rendezvous sizes, data checked) until
 *               FILE exists, so the script can attack the ranks' ports from
 *               outside meanwhile; rank 0 prints "OK until <iterations>"
 *   die         one ring exchange, then the last rank kills itself with
 *               SIGKILL while the others wait for a message from it: the
 *               survivors must report a tcp error naming it, and not hang
 */
#include <loom.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SMALL 100
#define LARGE (300 * 1000)   /* above any eager limit: rendezvous */

static int rank, size;

static void fill(uint8_t *buf, size_t len, int src, int iter)
{
    for (size_t i = 0; i < len; ++i) {
        buf[i] = (uint8_t)(i * 13 + (size_t)src * 7 + (size_t)iter);
    }
}

static int check(const uint8_t *buf, size_t len, int src, int iter)
{
    for (size_t i = 0; i < len; ++i) {
        if (buf[i] != (uint8_t)(i * 13 + (size_t)src * 7 + (size_t)iter)) {
            fprintf(stderr, "[%d] byte %zu from rank %d differs at iteration %d\n", rank, i,
                    src, iter);
            return 1;
        }
    }
    return 0;
}

/* Send to the right neighbour, receive from the left one, both sizes. */
static int ring_step(uint8_t *sbuf, uint8_t *rbuf, int iter)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static const size_t lens[2] = { SMALL, LARGE };
    loom_request_t reqs[4];
    int bad = 0;

    for (int k = 0; k < 2; ++k) {
        fill(sbuf + k * LARGE, lens[k], rank, iter);
        if (loom_irecv(rbuf + k * LARGE, lens[k], LOOM_BYTE, left, k, LOOM_COMM_WORLD,
                       &reqs[2 * k]) != LOOM_OK ||
            loom_isend(sbuf + k * LARGE, lens[k], LOOM_BYTE, right, k, LOOM_COMM_WORLD,
                       &reqs[2 * k + 1]) != LOOM_OK) {
            return 1;
        }
    }
    if (loom_waitall(4, reqs, NULL) != LOOM_OK) {
        return 1;
    }
    for (int k = 0; k < 2; ++k) {
        bad += check(rbuf + k * LARGE, lens[k], left, iter);
    }
    return bad;
}

static int run_until(const char *path)
{
    uint8_t *sbuf = malloc(2 * LARGE), *rbuf = malloc(2 * LARGE);
    double t0 = loom_wtime();
    int iter = 0, stop = 0, bad = 0;

    while (!stop && !bad) {
        bad = ring_step(sbuf, rbuf, iter++);
        if (rank == 0) {
            stop = access(path, F_OK) == 0 || loom_wtime() - t0 > 60;
            for (int r = 1; r < size; ++r) {
                bad |= loom_send(&stop, 1, LOOM_INT32, r, 9, LOOM_COMM_WORLD) != LOOM_OK;
            }
        } else {
            bad |= loom_recv(&stop, 1, LOOM_INT32, 0, 9, LOOM_COMM_WORLD, NULL) != LOOM_OK;
        }
        usleep(2000);
    }
    if (rank == 0 && !bad) {
        printf("OK until %d\n", iter);
    }
    free(sbuf);
    free(rbuf);
    return bad;
}

static int run_die(void)
{
    uint8_t *sbuf = malloc(2 * LARGE), *rbuf = malloc(2 * LARGE);
    int x = 0;

    if (ring_step(sbuf, rbuf, 0) != 0) {
        fprintf(stderr, "[%d] the first exchange failed\n", rank);
    }
    if (rank == size - 1) {
        fflush(stdout);
        raise(SIGKILL);
    }
    /* never sent: the peer's death must end this wait */
    if (loom_recv(&x, 1, LOOM_INT32, size - 1, 5, LOOM_COMM_WORLD, NULL) == LOOM_OK) {
        fprintf(stderr, "[%d] received from a dead rank?\n", rank);
    } else {
        printf("[%d] receive from dead rank %d failed, as it should\n", rank, size - 1);
    }
    free(sbuf);
    free(rbuf);
    return 1;   /* a job with a dead rank never succeeds */
}

int main(int argc, char **argv)
{
    int bad;

    if (argc < 2 || loom_init(&argc, &argv) != LOOM_OK) {
        fprintf(stderr, "usage: prog_tcp until FILE | die\n");
        return 2;
    }
    rank = loom_rank();
    size = loom_size();
    if (strcmp(argv[1], "until") == 0 && argc == 3) {
        bad = run_until(argv[2]);
    } else if (strcmp(argv[1], "die") == 0) {
        bad = run_die();
    } else {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        bad = 2;
    }
    loom_finalize();
    return bad;
}
