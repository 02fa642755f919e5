/*
 * mpi_dt_rev13: the review of session 13's double bounce (docs/p2p.md
 * "Derived datatypes", loom_p2p_rndv_get_ahead): a typed receive over tcp
 * bigger than one 1 MiB bounce reads its chunks alternately into two
 * bounces and asks for the next chunk before it unpacks the last. Sizes
 * sit on the chunk edges, small enough to run under the sanitizers too
 * (mpi_dt_s13 leaves its one double-bounced size out there). Chunks start
 * at P + k MiB, P the bytes the sender pushed behind its RTS (tcp: 65408,
 * LOOM_TCP_EAGER_LIMIT, when the pair is idle; else 0), so each size is
 * taken relative to both.
 *
 * Design. Every rank sends to the next one (ring; one rank: to itself) n
 * contiguous bytes of a pattern (sender, case, index) and receives from
 * the previous one into a vector of single bytes at stride 2 (pieces too
 * small to read in place: the bounce path), over a poisoned buffer with a
 * poisoned tail past the type's extent. Sizes, past P = 0 and P = 65408:
 * P + 1 MiB + 1 (a 1-byte second chunk), P + 2 MiB, P + 2 MiB + 3,
 * P + 3 MiB - 1. Each runs: plain; received with MPI_ANY_SOURCE;
 * truncated inside the second chunk (P + 1 MiB + 10) and at the first
 * one's end (P + 1 MiB: the status class MPI_ERR_TRUNCATE, the delivered
 * prefix, Get_elements); received late (the sender's RTS waits unexpected
 * behind a barrier). argv[1] == "small": only the sizes past P = 65408
 * (the TSan build, ~5x slower).
 * Every even byte of the receive is checked against the pattern, every
 * odd one and the tail must still be poison.
 */
#include "mpi_test_util.h"

#include <string.h>

#define MIB    ((size_t)1 << 20)
#define POISON 0xa5
#define TAIL   64
#define PUSH   ((size_t)65408)   /* what a tcp sender pushes behind its RTS */

static int rank, size;

static unsigned char pat(int src, int c, size_t i)
{
    return (unsigned char)(i * 7 + (i >> 11) + (size_t)c * 13 + (size_t)src * 101);
}

/*
 * mode: 0 plain, 1 any source, 2 truncated mid-chunk, 3 truncated at a
 * chunk end (chunks from @p p), 4 late
 */
static void exchange(int c, size_t n, size_t p, int mode)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, elems = -1, count = -1;
    size_t want = mode == 2 ? p + MIB + 10 : mode == 3 ? p + MIB : n;
    size_t room = mode >= 2 && mode <= 3 ? want : n, span = 2 * room + TAIL;
    unsigned char *a = malloc(n), *b = malloc(span);
    MPI_Datatype strided;
    MPI_Request rq[2];
    MPI_Status st[2];

    MT_CHECK(a != NULL && b != NULL);
    for (size_t i = 0; i < n; i++) {
        a[i] = pat(rank, c, i);
    }
    memset(b, POISON, span);
    MT_OK(MPI_Type_vector((int)room, 1, 2, MPI_UNSIGNED_CHAR, &strided));
    MT_OK(MPI_Type_commit(&strided));
    if (mode == 4) {
        MT_OK(MPI_Isend(a, (int)n, MPI_UNSIGNED_CHAR, next, c, MPI_COMM_WORLD, &rq[1]));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));   /* the RTS arrives before the receive */
        MT_OK(MPI_Irecv(b, 1, strided, prev, c, MPI_COMM_WORLD, &rq[0]));
    } else {
        MT_OK(MPI_Irecv(b, 1, strided, mode == 1 ? MPI_ANY_SOURCE : prev, c, MPI_COMM_WORLD,
                        &rq[0]));
        MT_OK(MPI_Isend(a, (int)n, MPI_UNSIGNED_CHAR, next, c, MPI_COMM_WORLD, &rq[1]));
    }
    if (want < n) {
        MT_ERR(MPI_Waitall(2, rq, st), MPI_ERR_IN_STATUS);
        MT_EQ(st[0].MPI_ERROR, MPI_ERR_TRUNCATE);
        MT_EQ(st[1].MPI_ERROR, MPI_SUCCESS);
    } else {
        MT_OK(MPI_Waitall(2, rq, st));
    }
    MT_EQ(st[0].MPI_SOURCE, prev);
    MT_EQ(st[0].MPI_TAG, c);
    MT_OK(MPI_Get_elements(&st[0], strided, &elems));
    MT_OK(MPI_Get_count(&st[0], strided, &count));
    MT_EQ(elems, (int)want);
    MT_EQ(count, 1);
    for (size_t i = 0; i < span; i++) {
        unsigned char w = i % 2 == 0 && i / 2 < want ? pat(prev, c, i / 2) : POISON;

        if (b[i] != w) {
            MT_FAIL("case %d (%zu bytes, mode %d): receive byte %zu is 0x%02x, not 0x%02x", c,
                    n, mode, i, b[i], w);
        }
    }
    MT_OK(MPI_Type_free(&strided));
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { MIB + 1, 2 * MIB, 2 * MIB + 3, 3 * MIB - 1 };
    static const size_t pushed[] = { 0, PUSH };
    int c = 1, small;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    small = argc > 1 && strcmp(argv[1], "small") == 0;
    for (size_t k = small ? 1 : 0; k < 2; k++) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            for (int mode = 0; mode < 5; mode++) {
                if ((mode == 2 || mode == 3) && sizes[i] <= MIB + 10) {
                    continue;   /* truncation needs a message past the cut */
                }
                exchange(c++, pushed[k] + sizes[i], pushed[k], mode);
            }
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("mpi_dt_rev13: passed on %d ranks (%d cases)\n", size, c - 1);
    }
    MT_OK(MPI_Finalize());
    return 0;
}
