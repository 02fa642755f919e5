/*
 * mpi_dt_s14: the typed paths session 14 changed (docs/p2p.md "Derived
 * datatypes"), checked byte for byte:
 *   - many typed rendezvous messages in flight at once, round after round:
 *     ten 3-D halo faces (vectors of planes of rows, subarrays) to the next
 *     rank in one batch, so the sender holds more pipelined copies and piece
 *     arrays than the engine keeps for reuse (p2p_frame.c's cache of 8), and
 *     every later round reuses kept copies (each round sends other values:
 *     a stale copy is caught);
 *   - small typed eager messages, hundreds in a row between one pair, so
 *     the pair moves from the FIFO to its fast box (pre-faulted when it is
 *     claimed) and laps the box several times.
 *
 * Design. Every rank sends to the next one (ring; one rank: to itself) and
 * receives from the previous one with ANOTHER type of the same signature
 * (a face as rows with gaps, as contiguous doubles, as another face's
 * type). The sender's array holds a stream of values (sender, case,
 * position) in its type's pieces, -2 elsewhere; the receive buffer is
 * poisoned, and afterwards MPI_Pack with the receive type must give the
 * stream back (poison after the delivered values), and unpacking a poison
 * stream over the type must leave the whole buffer poison (nothing outside
 * the type was written). In each batch some receives use MPI_ANY_SOURCE
 * (source and tag checked), one counts triples (MPI_Get_count
 * MPI_UNDEFINED where the doubles are not a multiple of 3), and in the
 * first and every 8th batch of each size one is truncated (a strided
 * type 7 doubles short: MPI_ERR_TRUNCATE in its status, MPI_Get_elements
 * the delivered doubles).
 * argv[1] == "small": the largest size and most rounds are left out
 * (sanitizer builds).
 */
#include "mpi_test_util.h"

#include <string.h>

#define BATCH  10          /* messages in flight each way per round */

static int rank, size, small;

static double value(int src, int c, size_t i)
{
    return (double)src * 1e9 + (double)c * 1e5 + (double)i;
}

#include "mpi_dt_layout.h"

/* one message of a batch: what is sent, how it is received */
typedef struct msg {
    layout_t s, r;
    size_t   n, want;      /* doubles sent, doubles delivered */
    int      c, mode;      /* case; mode 0 plain, 1 any source, 2 truncated, 3 triples */
    char    *a, *b;
} msg_t;

/* message @p j of a batch of faces of side @p n, depth @p w */
static void msg_make(msg_t *m, int j, int n, int w, int c, int trunc)
{
    size_t cnt = (size_t)n * (size_t)n * (size_t)w;

    *m = (msg_t){ .s = face3d(j % 3, n, w), .n = cnt, .want = cnt, .c = c,
                  .mode = j == 7 && trunc ? 2 : j == 8 ? 3 : j % 2 };
    if (m->mode == 2) {
        m->r = strided((int)cnt - 7);
        m->want = cnt - 7;
    } else if (m->mode == 3) {
        m->r = triples(cnt);
    } else if (j % 3 == 0) {
        m->r = gapped_rows(n * w, n);
    } else if (j % 3 == 1) {
        m->r = face3d((j + 1) % 3, n, w);
    } else {
        m->r = (layout_t){ MPI_DOUBLE, (int)cnt, cnt * sizeof(double) };
    }
    m->a = fill_send(&m->s, cnt, rank, c);
    m->b = malloc(m->r.bytes);
    MT_CHECK(m->b != NULL);
    memset(m->b, POISON, m->r.bytes);
}

/* the status, counts and bytes of received message @p m (from @p prev) */
static void msg_check(msg_t *m, const MPI_Status *st, int prev)
{
    int count = -1, elems = -1;

    MT_EQ(st->MPI_ERROR, m->mode == 2 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
    MT_EQ(st->MPI_SOURCE, prev);
    MT_EQ(st->MPI_TAG, m->c);
    MT_OK(MPI_Get_count(st, m->r.type, &count));
    MT_OK(MPI_Get_elements(st, m->r.type, &elems));
    MT_EQ(elems, (int)m->want);
    if (m->mode == 3) {
        MT_EQ(count, m->n % 3 == 0 ? (int)(m->n / 3) : MPI_UNDEFINED);
    } else if (m->r.type == MPI_DOUBLE) {
        MT_EQ(count, (int)m->want);
    } else {
        MT_EQ(count, 1);
    }
    check_recv(&m->r, m->b, m->want, prev, m->c);
    layout_free(&m->s);
    layout_free(&m->r);
    free(m->a);
    free(m->b);
}

/* one round: BATCH faces each way, all in flight at once (@p trunc: one truncated) */
static void batch(int n, int w, int round, int trunc)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, c0 = round * BATCH;
    msg_t m[BATCH];
    MPI_Request rq[2 * BATCH];
    MPI_Status st[2 * BATCH];

    for (int j = 0; j < BATCH; j++) {
        msg_make(&m[j], j, n, w, c0 + j, trunc);
        MT_OK(MPI_Irecv(m[j].b, m[j].r.count, m[j].r.type,
                        m[j].mode == 1 ? MPI_ANY_SOURCE : prev, c0 + j, MPI_COMM_WORLD,
                        &rq[j]));
    }
    for (int j = 0; j < BATCH; j++) {
        MT_OK(MPI_Isend(m[j].a, m[j].s.count, m[j].s.type, next, c0 + j, MPI_COMM_WORLD,
                        &rq[BATCH + j]));
    }
    if (trunc) {
        MT_ERR(MPI_Waitall(2 * BATCH, rq, st), MPI_ERR_IN_STATUS);
    } else {
        MT_OK(MPI_Waitall(2 * BATCH, rq, st));
        for (int j = 0; j < BATCH; j++) {
            st[j].MPI_ERROR = MPI_SUCCESS;   /* not set by a call that succeeded */
            st[BATCH + j].MPI_ERROR = MPI_SUCCESS;
        }
    }
    for (int j = 0; j < BATCH; j++) {
        MT_EQ(st[BATCH + j].MPI_ERROR, MPI_SUCCESS);
        msg_check(&m[j], &st[j], prev);
    }
}

int main(int argc, char **argv)
{
    /* eager (256 B faces), rendezvous, pipelined (92 KiB, 370 KiB) */
    static const int nw[][3] = { { 4, 2, 150 }, { 16, 3, 4 }, { 48, 5, 4 }, { 96, 5, 3 } };
    int round = 0, sizes = (int)(sizeof(nw) / sizeof(nw[0]));

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    small = argc > 1 && strcmp(argv[1], "small") == 0;

    for (int i = 0; i < sizes - (small ? 1 : 0); i++) {
        int rounds = small && nw[i][2] > 10 ? 40 : nw[i][2];

        for (int r = 0; r < rounds; r++) {
            batch(nw[i][0], nw[i][1], round++, r % 8 == 0);
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("mpi_dt_s14: passed on %d ranks (%d messages each)\n", size, round * BATCH);
    }
    MT_OK(MPI_Finalize());
    return 0;
}
