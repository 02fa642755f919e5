/*
 * prog_hang.c: real loom programs that hang, for the hang summary tests
 * (test/launcher/test_hang.sh). Each rank first does PROG_HANG_WARMUP
 * allreduces on WORLD, so the collective numbers are not all 0, prints
 * "READY <rank>", then:
 *
 *   missing-send  the last rank receives 4 bytes from rank 3 % size, tag 9,
 *                 which never sends; the others enter allreduce #WARMUP
 *   skip          the last rank skips the allreduce and waits in a receive
 *                 from rank 0, tag 5, that rank 0 never sends (a rank
 *                 entering another collective instead is caught earlier:
 *                 the collectives' mismatch check aborts the job);
 *                 the others enter allreduce #WARMUP
 *   tags          rank 0 sends 1 MiB (rendezvous) to rank 1 with tag 1,
 *                 rank 1 receives from rank 0 with tag 2; the others
 *                 finalize
 *
 * None of them ever returns from there; loomrun --timeout (or the user's
 * LOOM_PROGRESS_TIMEOUT) must explain why.
 */
#include <loom.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG_HANG_WARMUP 3
#define PROG_HANG_BIG    (1u << 20)

static void prog_hang_check(loom_status_t st, const char *what)
{
    if (st != LOOM_OK) {
        fprintf(stderr, "prog_hang: %s: %s\n", what, loom_strerror(st));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int r, n, one = 1, sum = 0;
    char *big;

    if (argc < 2) {
        fprintf(stderr, "usage: prog_hang missing-send|skip|tags\n");
        return 2;
    }
    prog_hang_check(loom_init(&argc, &argv), "loom_init");
    r = loom_rank();
    n = loom_size();
    for (int i = 0; i < PROG_HANG_WARMUP; ++i) {
        prog_hang_check(loom_allreduce(&one, &sum, 1, LOOM_INT32, LOOM_SUM, LOOM_COMM_WORLD),
                        "warm-up allreduce");
    }
    printf("READY %d\n", r);
    fflush(stdout);
    if (!strcmp(argv[1], "missing-send") || !strcmp(argv[1], "skip")) {
        int skip = !strcmp(argv[1], "skip");
        if (r == n - 1 && !skip) {
            prog_hang_check(loom_recv(&sum, 1, LOOM_INT32, 3 % n, 9, LOOM_COMM_WORLD, NULL),
                            "recv");
        } else if (r == n - 1) {
            prog_hang_check(loom_recv(&sum, 1, LOOM_INT32, 0, 5, LOOM_COMM_WORLD, NULL),
                            "recv");
        } else {
            prog_hang_check(loom_allreduce(&one, &sum, 1, LOOM_INT32, LOOM_SUM,
                                           LOOM_COMM_WORLD), "allreduce");
        }
    } else if (!strcmp(argv[1], "tags") && r <= 1 && n >= 2) {
        big = calloc(PROG_HANG_BIG, 1);
        if (big == NULL) {
            return 1;
        }
        if (r == 0) {
            prog_hang_check(loom_send(big, PROG_HANG_BIG, LOOM_BYTE, 1, 1, LOOM_COMM_WORLD),
                            "send");
        } else {
            prog_hang_check(loom_recv(big, PROG_HANG_BIG, LOOM_BYTE, 0, 2, LOOM_COMM_WORLD,
                                      NULL), "recv");
        }
        free(big);
    }
    loom_finalize();
    return 0;
}
