/*
 * prog_tcp_dt_s15.c: rank program for test_tcp_dt_s15.sh (run with
 * LOOM_TRANSPORTS=self,tcp): typed rendezvous receives over tcp whose
 * pieces are large enough to be read straight into them (tcp's get_iov,
 * session 15), in a ring of all ranks.
 *
 * Each case sends (buf, 1, stype) to the right neighbour and receives
 * (buf, 1, rtype) from the left one, both types of doubles with the same
 * number of elements but different layouts; the receive buffer is
 * poisoned first and afterwards every element is checked: each selected
 * one holds the sender's value for its place in the stream, every other
 * one the poison.
 *   contiguous -> vector of 96-double blocks (768 B pieces), 100 KiB-3 MiB
 *     (one get into up to 1024 pieces, then several: 4096 pieces at 3 MiB)
 *   vector -> vector of another block length and stride
 *   column (vector of single doubles) -> indexed of mixed blocks (1 to 1100
 *     doubles, 2.9 KiB on average: tiny pieces inside the reads too)
 * Rank 0 prints "OK dt_s15 <cases>" when every rank passed.
 */
#include <loom.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON (-7.0)
#define NIDX   2000

static int rank, size;

/* the value of element @p i of the packed stream rank @p src sends in case @p c */
static double value(size_t i, int src, int c)
{
    return (double)(i * 3 + 1) + (double)src * 1e9 + (double)c * 1e7;
}

/* element offsets (in doubles) of a type's stream, in stream order */
typedef struct layout {
    size_t *off;
    size_t  n, extent;   /* elements; doubles the buffer spans */
} layout_t;

static void layout_vector(layout_t *l, size_t count, size_t blocklen, size_t stride)
{
    l->n = count * blocklen;
    l->extent = (count - 1) * stride + blocklen;
    l->off = malloc(l->n * sizeof(*l->off));
    for (size_t b = 0, k = 0; b < count; ++b) {
        for (size_t e = 0; e < blocklen; ++e) {
            l->off[k++] = b * stride + e;
        }
    }
}

static void layout_indexed(layout_t *l, const size_t *lens, const ptrdiff_t *displs,
                           size_t count)
{
    size_t k = 0;

    l->n = 0;
    l->extent = 0;
    for (size_t b = 0; b < count; ++b) {
        l->n += lens[b];
        if ((size_t)displs[b] + lens[b] > l->extent) {
            l->extent = (size_t)displs[b] + lens[b];
        }
    }
    l->off = malloc(l->n * sizeof(*l->off));
    for (size_t b = 0; b < count; ++b) {
        for (size_t e = 0; e < lens[b]; ++e) {
            l->off[k++] = (size_t)displs[b] + e;
        }
    }
}

/* one ring exchange of case @p c: 0 if every element arrived and nothing else changed */
static int exchange(int c, loom_dtype_t st, const layout_t *sl, loom_dtype_t rt,
                    const layout_t *rl)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, bad = 0;
    double *sbuf = malloc(sl->extent * sizeof(double));
    double *rbuf = malloc(rl->extent * sizeof(double));
    loom_msg_status_t stat[2];
    loom_request_t req[2];
    size_t k = 0;

    memset(stat, 0, sizeof(stat));
    for (size_t i = 0; i < sl->extent; ++i) {
        sbuf[i] = -1.0;
    }
    for (size_t i = 0; i < sl->n; ++i) {
        sbuf[sl->off[i]] = value(i, rank, c);
    }
    for (size_t i = 0; i < rl->extent; ++i) {
        rbuf[i] = POISON;
    }
    if (loom_irecv_dt(rbuf, 1, rt, left, c, LOOM_COMM_WORLD, &req[0]) != LOOM_OK ||
        loom_isend_dt(sbuf, 1, st, right, c, LOOM_COMM_WORLD, &req[1]) != LOOM_OK ||
        loom_waitall(2, req, stat) != LOOM_OK || stat[0].bytes != rl->n * sizeof(double)) {
        fprintf(stderr, "[%d] case %d: the exchange failed (%zu bytes received)\n", rank, c,
                stat[0].bytes);
        bad = 1;
    }
    for (size_t i = 0; i < rl->extent && bad < 10; ++i) {
        double want = k < rl->n && rl->off[k] == i ? value(k++, left, c) : POISON;

        if (rbuf[i] != want) {
            fprintf(stderr, "[%d] case %d: element %zu is %g, not %g (from rank %d)\n", rank,
                    c, i, rbuf[i], want, left);
            ++bad;
        }
    }
    free(sbuf);
    free(rbuf);
    return bad;
}

/* run case @p c with the two types (committed here, freed after) and layouts */
static int run_case(int c, loom_dtype_t st, layout_t *sl, loom_dtype_t rt, layout_t *rl)
{
    int bad;

    loom_dtype_commit(st);
    loom_dtype_commit(rt);
    bad = exchange(c, st, sl, rt, rl);
    loom_dtype_free(&st);
    loom_dtype_free(&rt);
    free(sl->off);
    free(rl->off);
    return bad;
}

int main(int argc, char **argv)
{
    static const size_t counts[] = { 133, 1024, 1500, 4096 };   /* of 768 B blocks */
    static size_t lens[NIDX];
    static ptrdiff_t displs[NIDX];
    loom_dtype_t st, rt, dbl;
    layout_t sl, rl;
    size_t total = 0, at = 0;
    int bad = 0, c = 0, all = 0;

    loom_init(&argc, &argv);
    rank = loom_rank();
    size = loom_size();
    dbl = loom_dtype_basic(LOOM_DOUBLE);
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); ++i) {
        size_t n = counts[i] * 96;

        loom_dtype_contiguous(n, dbl, &st);
        loom_dtype_vector(counts[i], 96, 101, dbl, &rt);
        layout_vector(&sl, 1, n, n);
        layout_vector(&rl, counts[i], 96, 101);
        bad += run_case(c++, st, &sl, rt, &rl);
    }
    /* 768 B pieces at stride 97 into 1536 B pieces at stride 200 */
    loom_dtype_vector(1200, 96, 97, dbl, &st);
    loom_dtype_vector(600, 192, 200, dbl, &rt);
    layout_vector(&sl, 1200, 96, 97);
    layout_vector(&rl, 600, 192, 200);
    bad += run_case(c++, st, &sl, rt, &rl);
    /* a column into mixed blocks with gaps */
    for (size_t b = 0; b < NIDX; ++b) {
        lens[b] = b % 3 == 0 ? 1 + b % 5 : b % 3 == 1 ? 40 + b % 17 : 1000 + b % 101;
        displs[b] = (ptrdiff_t)at;
        at += lens[b] + 1 + b % 4;
        total += lens[b];
    }
    loom_dtype_vector(total, 1, 2, dbl, &st);
    loom_dtype_indexed(NIDX, lens, displs, dbl, &rt);
    layout_vector(&sl, total, 1, 2);
    layout_indexed(&rl, lens, displs, NIDX);
    bad += run_case(c++, st, &sl, rt, &rl);
    loom_allreduce(&bad, &all, 1, LOOM_INT32, LOOM_SUM, LOOM_COMM_WORLD);
    if (rank == 0 && all == 0) {
        printf("OK dt_s15 %d\n", c);
    }
    loom_finalize();
    return all != 0;
}
