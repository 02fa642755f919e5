/*
 * mpi_dt_coll2.h: what the mpi_dt_coll2*.c programs share: a small set of
 * derived types over MPI_INT, each described independently of MPI by its
 * data offsets (in ints) and extent, and helpers that write and check
 * buffers of such types: data ints must hold exactly the expected values
 * and every other int of the buffer (gaps, slack) its sentinel.
 *
 *   INT  MPI_INT                                  1 int,  extent 1
 *   VEC  vector(3, 2, 4, MPI_INT)                 6 ints, extent 10
 *   IDX  indexed({1,2,1}, {0,2,6}) resized to 8   4 ints, extent 8
 *   STR  struct(2 ints at 0, 1 int at 12 bytes) resized to 24 bytes
 *                                                 3 ints, extent 6
 *   SHF  struct(int at 4, int at 12 bytes)        2 ints, lb 4, extent 3 (true lb 4)
 *
 * 12 ints are 12, 2, 3, 4 or 6 elements of these: blocks of "12 ints"
 * match between any two of them (same signature, different layouts).
 */
#ifndef MPI_DT_COLL2_H
#define MPI_DT_COLL2_H

#include "mpi_test_util.h"

#include <string.h>

#define SENT (-7)
#define SLACK 16

typedef struct tspec {
    const char  *name;
    MPI_Datatype t;
    int          n;       /* data ints per element */
    int          ext;     /* extent in ints */
    int          lb;      /* lower bound in ints */
    int          off[6];  /* data ints, in typemap order, from the element's origin */
} tspec_t;

enum { T_INT = 0, T_VEC, T_IDX, T_STR, T_SHF, T_COUNT };

static tspec_t ts[T_COUNT] = {
    { "MPI_INT", MPI_DATATYPE_NULL, 1, 1, 0, { 0 } },
    { "vector", MPI_DATATYPE_NULL, 6, 10, 0, { 0, 1, 4, 5, 8, 9 } },
    { "indexed", MPI_DATATYPE_NULL, 4, 8, 0, { 0, 2, 3, 6 } },
    { "struct", MPI_DATATYPE_NULL, 3, 6, 0, { 0, 1, 3 } },
    { "shifted", MPI_DATATYPE_NULL, 2, 3, 1, { 1, 3 } },
};

static void types_init(void)
{
    int bl_i[3] = { 1, 2, 1 }, d_i[3] = { 0, 2, 6 }, bl_s[2] = { 2, 1 }, bl_h[2] = { 1, 1 };
    MPI_Aint d_s[2] = { 0, 12 }, d_h[2] = { 4, 12 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT }, a, b;

    ts[T_INT].t = MPI_INT;
    MT_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &ts[T_VEC].t));
    MT_OK(MPI_Type_indexed(3, bl_i, d_i, MPI_INT, &a));
    MT_OK(MPI_Type_create_resized(a, 0, 8 * sizeof(int), &ts[T_IDX].t));
    MT_OK(MPI_Type_create_struct(2, bl_s, d_s, ty, &b));
    MT_OK(MPI_Type_create_resized(b, 0, 24, &ts[T_STR].t));
    MT_OK(MPI_Type_create_struct(2, bl_h, d_h, ty, &ts[T_SHF].t));
    for (int i = T_VEC; i < T_COUNT; ++i) {
        MT_OK(MPI_Type_commit(&ts[i].t));
    }
    MT_OK(MPI_Type_free(&a));
    MT_OK(MPI_Type_free(&b));
}

static void types_free(void)
{
    for (int i = T_VEC; i < T_COUNT; ++i) {
        MT_OK(MPI_Type_free(&ts[i].t));
    }
}

/* ints a buffer of @p count elements of @p t spans (with slack) */
static int tspan(const tspec_t *t, int count)
{
    return count * t->ext + t->ext + SLACK;
}

static int *tbuf(const tspec_t *t, int count)
{
    int n = tspan(t, count);
    int *b = malloc((size_t)n * sizeof(int));

    MT_CHECK(b != NULL);
    for (int i = 0; i < n; ++i) {
        b[i] = SENT;
    }
    return b;
}

/* position (in ints) of the k-th data int of (count, t) */
static int tpos(const tspec_t *t, int k)
{
    return (k / t->n) * t->ext + t->off[k % t->n];
}

/* write vals[k] into the k-th data int of @p count elements */
static void tput(int *b, const tspec_t *t, int count, const int *vals)
{
    for (int k = 0; k < count * t->n; ++k) {
        b[tpos(t, k)] = vals[k];
    }
}

/*
 * check the data ints against @p vals (NULL: not checked) and that every
 * other int between the first and the last data int holds SENT
 */
static void tcheck_at(const int *b, const tspec_t *t, int count, const int *vals,
                      const char *what, int line)
{
    int n = count > 0 ? tpos(t, count * t->n - 1) + 1 : 0;
    char *isdata = calloc((size_t)n + 1, 1);

    MT_CHECK(isdata != NULL);
    for (int k = 0; k < count * t->n; ++k) {
        int p = tpos(t, k);
        isdata[p] = 1;
        if (vals != NULL && b[p] != vals[k]) {
            MT_FAIL("line %d, %s (%s x %d): data int %d (at %d) is %d, expected %d", line,
                    what, t->name, count, k, p, b[p], vals[k]);
        }
    }
    for (int i = 0; i < n; ++i) {
        if (!isdata[i] && b[i] != SENT) {
            MT_FAIL("line %d, %s (%s x %d): gap int %d was written (%d)", line, what, t->name,
                    count, i, b[i]);
        }
    }
    free(isdata);
}
#define tcheck(b, t, count, vals, what) tcheck_at((b), (t), (count), (vals), (what), __LINE__)

#endif /* MPI_DT_COLL2_H */
