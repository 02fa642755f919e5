/*
 * mpi_dt_layout.h: the typed buffers the datatype test programs send and
 * receive (mpi_dt_s13.c, mpi_dt_s14.c): a (type, count, bytes) layout of
 * doubles (contiguous, one row of a subarray, strided, the faces of a 3-D
 * halo, rows with a gap, triples), the sender's array filled through
 * MPI_Unpack of a stream of values, and the receiver's check: MPI_Pack
 * with the receive type gives the stream back (poison after the first
 * `want` values) and nothing outside the type's map was written.
 *
 * Header-only, for test programs: the includer defines
 * `static double value(int src, int c, size_t i)` (value @p i of case @p c
 * sent by rank @p src) before including it.
 */
#ifndef MPI_DT_LAYOUT_H
#define MPI_DT_LAYOUT_H

#include "mpi_test_util.h"

#include <string.h>

#define POISON 0x5a

/* a (type, count) over a buffer of @p bytes, describing @p n doubles */
typedef struct layout {
    MPI_Datatype type;
    int          count;
    size_t       bytes;
} layout_t;

static inline void layout_free(layout_t *l)
{
    if (l->type != MPI_DOUBLE) {
        MT_OK(MPI_Type_free(&l->type));
    }
}

static inline layout_t contig_doubles(size_t n)
{
    return (layout_t){ MPI_DOUBLE, (int)n, n * sizeof(double) };
}

/* one row of n interior doubles of a 3 x (n + 2) array */
static inline layout_t row_subarray(int n)
{
    int sizes[2] = { 3, n + 2 }, sub[2] = { 1, n }, starts[2] = { 1, 1 };
    layout_t l = { MPI_DATATYPE_NULL, 1, 3 * ((size_t)n + 2) * sizeof(double) };

    MT_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &l.type));
    MT_OK(MPI_Type_commit(&l.type));
    return l;
}

/* n doubles, one every other slot */
static inline layout_t strided(int n)
{
    layout_t l = { MPI_DATATYPE_NULL, 1, 2 * (size_t)n * sizeof(double) };

    MT_OK(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &l.type));
    MT_OK(MPI_Type_commit(&l.type));
    return l;
}

/* face @p k (0, 1: subarray; 2: hvector of vectors) of an (n + 2w)^3 array */
static inline layout_t face3d(int k, int n, int w)
{
    int b = n + 2 * w, sizes[3] = { b, b, b }, sub[3] = { n, n, n }, starts[3] = { w, w, w };
    layout_t l = { MPI_DATATYPE_NULL, 1, (size_t)b * (size_t)b * (size_t)b * sizeof(double) };
    MPI_Datatype rows;

    if (k < 2) {
        sub[k] = w;
        starts[k] = n;   /* the + side's interior face */
        MT_OK(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE,
                                       &l.type));
        MT_OK(MPI_Type_commit(&l.type));
        return l;
    }
    MT_OK(MPI_Type_vector(n, w, b, MPI_DOUBLE, &rows));
    MT_OK(MPI_Type_create_hvector(n, 1, (MPI_Aint)b * b * (MPI_Aint)sizeof(double), rows,
                                  &l.type));
    MT_OK(MPI_Type_free(&rows));
    MT_OK(MPI_Type_commit(&l.type));
    return l;
}

/* @p rows rows of @p len doubles, each followed by a gap of one */
static inline layout_t gapped_rows(int rows, int len)
{
    layout_t l = { MPI_DATATYPE_NULL, 1, (size_t)rows * ((size_t)len + 1) * sizeof(double) };

    MT_OK(MPI_Type_vector(rows, len, len + 1, MPI_DOUBLE, &l.type));
    MT_OK(MPI_Type_commit(&l.type));
    return l;
}

/* 3 doubles a piece, enough of them for n doubles */
static inline layout_t triples(size_t n)
{
    layout_t l = { MPI_DATATYPE_NULL, (int)(n / 3 + 1), (n / 3 + 1) * 3 * sizeof(double) };

    MT_OK(MPI_Type_contiguous(3, MPI_DOUBLE, &l.type));
    MT_OK(MPI_Type_commit(&l.type));
    return l;
}

/* the sender's array: the values of case @p c in its type's pieces, -2 elsewhere */
static inline char *fill_send(const layout_t *s, size_t n, int me, int c)
{
    char *a = malloc(s->bytes);
    double *stream = malloc(n * sizeof(double));
    int pos = 0;

    MT_CHECK(a != NULL && stream != NULL);
    for (size_t i = 0; i < s->bytes / sizeof(double); i++) {
        ((double *)a)[i] = -2.0;
    }
    for (size_t i = 0; i < n; i++) {
        stream[i] = value(me, c, i);
    }
    MT_OK(MPI_Unpack(stream, (int)(n * sizeof(double)), &pos, a, s->count, s->type,
                     MPI_COMM_WORLD));
    free(stream);
    return a;
}

/* the receive buffer holds the first @p want values of @p src's case @p c, poison elsewhere */
static inline void check_recv(const layout_t *r, char *b, size_t want, int src, int c)
{
    unsigned char *p = (unsigned char *)b;
    int pos = 0, tsize = 0;
    double poison, *stream;
    size_t n;

    MT_OK(MPI_Type_size(r->type, &tsize));
    n = (size_t)tsize * (size_t)r->count / sizeof(double);   /* the doubles the type holds */
    stream = malloc(n * sizeof(double));
    MT_CHECK(stream != NULL);
    memset(&poison, POISON, sizeof(poison));
    MT_OK(MPI_Pack(b, r->count, r->type, stream, (int)(n * sizeof(double)), &pos,
                   MPI_COMM_WORLD));
    for (size_t i = 0; i < n; i++) {
        double want_v = i < want ? value(src, c, i) : poison;
        if (memcmp(&stream[i], &want_v, sizeof(double)) != 0) {
            MT_FAIL("case %d: double %zu of %zu (want %zu) from rank %d is %g, not %g", c, i,
                    n, want, src, stream[i], want_v);
        }
    }
    memset(stream, POISON, n * sizeof(double));
    pos = 0;
    MT_OK(MPI_Unpack(stream, (int)(n * sizeof(double)), &pos, b, r->count, r->type,
                     MPI_COMM_WORLD));
    for (size_t i = 0; i < r->bytes; i++) {
        if (p[i] != POISON) {
            MT_FAIL("case %d: byte %zu of the receive buffer, outside the type, was written",
                    c, i);
        }
    }
    free(stream);
}

#endif /* MPI_DT_LAYOUT_H */
