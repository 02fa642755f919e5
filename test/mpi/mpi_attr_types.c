/*
 * mpi_attr_types.c: the complex, boolean and other basic types: sizes and
 * names, MPI_COMPLEX / MPI_C_COMPLEX aliases, sum and product on every
 * complex type and land/lor/lxor on MPI_C_BOOL through MPI_Allreduce,
 * MPI_Reduce and MPI_Reduce_local (values are small Gaussian integers and
 * booleans, so every result is exact whatever the reduction order), the
 * refused pairs (MPI_ERR_OP), and MPI_AINT / MPI_COUNT / MPI_2INT reductions.
 */
#include "mpi_test_util.h"

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#define N 37

static int rank, size;

static void test_sizes(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int sz, len;

    MT_CHECK(MPI_COMPLEX == MPI_C_FLOAT_COMPLEX && MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX);
    MT_CHECK(MPI_DOUBLE_COMPLEX == MPI_C_DOUBLE_COMPLEX);
    MT_OK(MPI_Type_size(MPI_C_FLOAT_COMPLEX, &sz));
    MT_EQ(sz, sizeof(float _Complex));
    MT_OK(MPI_Type_size(MPI_C_DOUBLE_COMPLEX, &sz));
    MT_EQ(sz, sizeof(double _Complex));
    MT_OK(MPI_Type_size(MPI_C_LONG_DOUBLE_COMPLEX, &sz));
    MT_EQ(sz, sizeof(long double _Complex));
    MT_OK(MPI_Type_size(MPI_C_BOOL, &sz));
    MT_EQ(sz, sizeof(bool));
    MT_OK(MPI_Type_size(MPI_WCHAR, &sz));
    MT_EQ(sz, sizeof(wchar_t));
    MT_OK(MPI_Type_size(MPI_AINT, &sz));
    MT_EQ(sz, sizeof(MPI_Aint));
    MT_OK(MPI_Type_size(MPI_OFFSET, &sz));
    MT_EQ(sz, sizeof(MPI_Offset));
    MT_OK(MPI_Type_size(MPI_COUNT, &sz));
    MT_EQ(sz, sizeof(MPI_Count));
    MT_OK(MPI_Type_size(MPI_2INT, &sz));
    MT_EQ(sz, 2 * sizeof(int));
    MT_OK(MPI_Type_get_name(MPI_C_DOUBLE_COMPLEX, name, &len));
    MT_CHECK(strcmp(name, "MPI_C_DOUBLE_COMPLEX") == 0);
}

/* element j of rank r: a small Gaussian integer */
static double complex zval(int r, int j)
{
    return (double)((r + j) % 3 - 1) + (double)((r * 3 + j) % 2 + (j % 4 == 0)) * I;
}

static double complex zexpect(int j, int prod)
{
    double complex acc = prod ? 1 : 0;

    for (int r = 0; r < size; ++r) {
        acc = prod ? acc * zval(r, j) : acc + zval(r, j);
    }
    return acc;
}

#define COMPLEX_CASE(T, DT)                                                             \
    do {                                                                                \
        T in[N], out[N];                                                                \
        for (int p = 0; p < 2; ++p) {                                                   \
            for (int j = 0; j < N; ++j) {                                               \
                in[j] = (T)zval(rank, j);                                               \
                out[j] = 0;                                                             \
            }                                                                           \
            MT_OK(MPI_Allreduce(in, out, N, DT, p ? MPI_PROD : MPI_SUM, MPI_COMM_WORLD)); \
            for (int j = 0; j < N; ++j) {                                               \
                double complex e = zexpect(j, p);                                       \
                if (creal(out[j]) != creal(e) || cimag(out[j]) != cimag(e)) {           \
                    MT_FAIL("%s %s element %d: %g%+gi, expected %g%+gi", #DT,           \
                            p ? "prod" : "sum", j, (double)creal(out[j]),               \
                            (double)cimag(out[j]), creal(e), cimag(e));                 \
                }                                                                       \
            }                                                                           \
        }                                                                               \
    } while (0)

static void test_complex(void)
{
    float complex a[2] = {1 + 2 * I, -3 + 0.5f * I}, b[2] = {2 - I, 4 * I};

    COMPLEX_CASE(float complex, MPI_C_FLOAT_COMPLEX);
    COMPLEX_CASE(double complex, MPI_C_DOUBLE_COMPLEX);
    COMPLEX_CASE(long double complex, MPI_C_LONG_DOUBLE_COMPLEX);
    COMPLEX_CASE(float complex, MPI_COMPLEX);
    COMPLEX_CASE(double complex, MPI_DOUBLE_COMPLEX);
    /* Reduce_local: inout = in op inout */
    MT_OK(MPI_Reduce_local(a, b, 2, MPI_C_FLOAT_COMPLEX, MPI_PROD));
    MT_CHECK(crealf(b[0]) == 4 && cimagf(b[0]) == 3);      /* (1+2i)(2-i) */
    MT_CHECK(crealf(b[1]) == -2 && cimagf(b[1]) == -12);   /* (-3+0.5i)(4i) */
    MT_OK(MPI_Reduce_local(a, b, 2, MPI_C_FLOAT_COMPLEX, MPI_SUM));
    MT_CHECK(crealf(b[0]) == 5 && cimagf(b[0]) == 5);
}

static void test_bool(void)
{
    bool in[N], out[N], e_and, e_or, e_xor;
    const MPI_Op ops[3] = {MPI_LAND, MPI_LOR, MPI_LXOR};

    for (int o = 0; o < 3; ++o) {
        for (int j = 0; j < N; ++j) {
            in[j] = (rank + j) % 3 == 0 || (j % 7 == 0);
            out[j] = !in[j];
        }
        MT_OK(MPI_Reduce(in, out, N, MPI_C_BOOL, ops[o], size - 1, MPI_COMM_WORLD));
        if (rank != size - 1) {
            continue;
        }
        for (int j = 0; j < N; ++j) {
            e_and = true;
            e_or = e_xor = false;
            for (int r = 0; r < size; ++r) {
                bool v = (r + j) % 3 == 0 || (j % 7 == 0);
                e_and = e_and && v;
                e_or = e_or || v;
                e_xor = e_xor != v;
            }
            MT_EQ(out[j], o == 0 ? e_and : o == 1 ? e_or : e_xor);
        }
    }
}

static void test_refused(void)
{
    bool b[2] = {true, false}, bo[2];
    double complex z[2] = {1, 2}, zo[2];

    MT_ERR(MPI_Allreduce(b, bo, 2, MPI_C_BOOL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    MT_ERR(MPI_Allreduce(b, bo, 2, MPI_C_BOOL, MPI_MAX, MPI_COMM_WORLD), MPI_ERR_OP);
    MT_ERR(MPI_Allreduce(b, bo, 2, MPI_C_BOOL, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    MT_ERR(MPI_Allreduce(z, zo, 2, MPI_C_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_WORLD),
           MPI_ERR_OP);
    MT_ERR(MPI_Allreduce(z, zo, 2, MPI_C_DOUBLE_COMPLEX, MPI_LAND, MPI_COMM_WORLD),
           MPI_ERR_OP);
    MT_ERR(MPI_Reduce_local(z, zo, 2, MPI_C_DOUBLE_COMPLEX, MPI_MINLOC), MPI_ERR_OP);
    MT_ERR(MPI_Reduce_local(b, bo, 2, MPI_C_BOOL, MPI_BXOR), MPI_ERR_OP);
    /* replace is defined on every type */
    MT_OK(MPI_Reduce_local(z, zo, 2, MPI_C_DOUBLE_COMPLEX, MPI_REPLACE));
    MT_CHECK(creal(zo[1]) == 2);
}

static void test_other_basic(void)
{
    MPI_Aint a = (MPI_Aint)rank + 1, as;
    MPI_Count c = (MPI_Count)1 << 40, cs;
    struct { int v; int i; } p = {(rank * 7) % 5, rank}, pm;

    MT_OK(MPI_Allreduce(&a, &as, 1, MPI_AINT, MPI_SUM, MPI_COMM_WORLD));
    MT_EQ(as, (MPI_Aint)size * (size + 1) / 2);
    MT_OK(MPI_Allreduce(&c, &cs, 1, MPI_COUNT, MPI_SUM, MPI_COMM_WORLD));
    MT_EQ(cs, ((MPI_Count)1 << 40) * size);
    MT_OK(MPI_Allreduce(&p, &pm, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
    {
        int best = -1, at = -1;
        for (int r = 0; r < size; ++r) {
            if ((r * 7) % 5 > best) {
                best = (r * 7) % 5;
                at = r;
            }
        }
        MT_CHECK(pm.v == best && pm.i == at);
    }
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    test_sizes();
    test_complex();
    test_bool();
    test_refused();
    test_other_basic();
    MT_PASS("mpi_attr_types");
    MT_OK(MPI_Finalize());
    return 0;
}
