/*
 * mpi_dt_api.c: the MPI-3.1 datatype calls issue 20 found missing or
 * different from the standard: MPI_Type_match_size, MPI_Type_create_f90_
 * integer/real/complex (selection by precision and range, same handle for
 * the same arguments, predefined: MPI_Type_free fails, envelope and
 * contents, dup, use in a derived type, point-to-point, reductions and
 * MPI_Pack), and
 * external32 of MPI_LONG/MPI_UNSIGNED_LONG/MPI_LONG_INT (4 bytes per long,
 * MPI-3.1 Table 13.2; sign and zero extension back; a value past 32 bits
 * refused with nothing written). Every expectation is written out by hand.
 * Runs on any number of ranks: ranks exchange with their ring neighbours.
 */
#include "mpi_test_util.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

static void check_match_size(void)
{
    MPI_Datatype t;
    int sz;

    static const struct { int cls, size; MPI_Datatype want; } ok[] = {
        { MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 }, { MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },
        { MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER }, { MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
        { MPI_TYPECLASS_REAL, 4, MPI_REAL }, { MPI_TYPECLASS_REAL, 8, MPI_DOUBLE_PRECISION },
        { MPI_TYPECLASS_REAL, 16, MPI_LONG_DOUBLE },
        { MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX }, { MPI_TYPECLASS_COMPLEX, 16, MPI_DOUBLE_COMPLEX },
        { MPI_TYPECLASS_COMPLEX, 32, MPI_C_LONG_DOUBLE_COMPLEX },
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); ++i) {
        t = MPI_DATATYPE_NULL;
        MT_OK(MPI_Type_match_size(ok[i].cls, ok[i].size, &t));
        MT_CHECK(t == ok[i].want);
        MT_OK(MPI_Type_size(t, &sz));
        MT_EQ(sz, ok[i].size);
    }
    t = MPI_INT;
    MT_ERR(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &t), MPI_ERR_ARG);
    MT_ERR(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t), MPI_ERR_ARG);
    MT_ERR(MPI_Type_match_size(MPI_TYPECLASS_REAL, 2, &t), MPI_ERR_ARG);
    MT_ERR(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 4, &t), MPI_ERR_ARG);
    MT_ERR(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG);
    MT_ERR(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, NULL), MPI_ERR_ARG);
    MT_CHECK(t == MPI_INT); /* untouched on error */
}

/* an f90 type: its size, combiner and integers */
static void check_f90(MPI_Datatype t, int size, int comb, int ni, int i0, int i1)
{
    int sz, n_i, n_a, n_d, c, ints[4] = { -7, -7, -7, -7 };
    MPI_Aint lb, ext;

    MT_OK(MPI_Type_size(t, &sz));
    MT_EQ(sz, size);
    MT_OK(MPI_Type_get_extent(t, &lb, &ext));
    MT_EQ(lb, 0);
    MT_EQ(ext, size);
    MT_OK(MPI_Type_get_envelope(t, &n_i, &n_a, &n_d, &c));
    MT_EQ(c, comb);
    MT_EQ(n_i, ni);
    MT_EQ(n_a, 0);
    MT_EQ(n_d, 0);
    MT_OK(MPI_Type_get_contents(t, 4, 0, 0, ints, NULL, NULL));
    MT_EQ(ints[0], i0);
    if (ni == 2) {
        MT_EQ(ints[1], i1);
    }
    MT_EQ(ints[ni], -7); /* nothing past the integers */
    MT_ERR(MPI_Type_get_contents(t, ni - 1, 0, 0, ints, NULL, NULL), MPI_ERR_ARG);
}

static void check_f90_create(void)
{
    MPI_Datatype t, t2, d;
    int n_i, n_a, n_d, c;
    MPI_Datatype types[1];

    MT_OK(MPI_Type_create_f90_integer(2, &t));
    check_f90(t, 1, MPI_COMBINER_F90_INTEGER, 1, 2, 0);
    MT_OK(MPI_Type_create_f90_integer(4, &t));
    check_f90(t, 2, MPI_COMBINER_F90_INTEGER, 1, 4, 0);
    MT_OK(MPI_Type_create_f90_integer(9, &t));
    check_f90(t, 4, MPI_COMBINER_F90_INTEGER, 1, 9, 0);
    MT_OK(MPI_Type_create_f90_integer(10, &t));
    check_f90(t, 8, MPI_COMBINER_F90_INTEGER, 1, 10, 0);
    MT_OK(MPI_Type_create_f90_integer(18, &t));
    check_f90(t, 8, MPI_COMBINER_F90_INTEGER, 1, 18, 0);
    /* the same arguments, the same handle; it is predefined */
    MT_OK(MPI_Type_create_f90_integer(18, &t2));
    MT_CHECK(t2 == t);
    MT_ERR(MPI_Type_free(&t2), MPI_ERR_TYPE);
    MT_CHECK(t2 == t);
    MT_ERR(MPI_Type_create_f90_integer(19, &t2), MPI_ERR_ARG);
    MT_ERR(MPI_Type_create_f90_integer(-1, &t2), MPI_ERR_ARG);
    MT_ERR(MPI_Type_create_f90_integer(4, NULL), MPI_ERR_ARG);

    MT_OK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
    check_f90(t, 4, MPI_COMBINER_F90_REAL, 2, 6, MPI_UNDEFINED);
    MT_OK(MPI_Type_create_f90_real(7, MPI_UNDEFINED, &t));
    check_f90(t, 8, MPI_COMBINER_F90_REAL, 2, 7, MPI_UNDEFINED);
    MT_OK(MPI_Type_create_f90_real(MPI_UNDEFINED, 37, &t));
    check_f90(t, 4, MPI_COMBINER_F90_REAL, 2, MPI_UNDEFINED, 37);
    MT_OK(MPI_Type_create_f90_real(MPI_UNDEFINED, 38, &t));
    check_f90(t, 8, MPI_COMBINER_F90_REAL, 2, MPI_UNDEFINED, 38);
    MT_OK(MPI_Type_create_f90_real(15, 307, &t));
    check_f90(t, 8, MPI_COMBINER_F90_REAL, 2, 15, 307);
    {   /* a name saying what it is; through the Fortran handle and back */
        char name[MPI_MAX_OBJECT_NAME];
        int len = 0;

        MT_OK(MPI_Type_get_name(t, name, &len));
        MT_CHECK(strcmp(name, "MPI_F90_REAL(p=15,r=307)") == 0);
        MT_CHECK(MPI_Type_f2c(MPI_Type_c2f(t)) == t);
    }
    if (LDBL_DIG >= 18) {
        MT_OK(MPI_Type_create_f90_real(16, MPI_UNDEFINED, &t));
        check_f90(t, (int)sizeof(long double), MPI_COMBINER_F90_REAL, 2, 16, MPI_UNDEFINED);
    }
    MT_ERR(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t2), MPI_ERR_ARG);
    MT_ERR(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t2), MPI_ERR_ARG);
    MT_ERR(MPI_Type_create_f90_real(6, 5000, &t2), MPI_ERR_ARG);
    MT_OK(MPI_Type_create_f90_complex(15, 300, &t));
    check_f90(t, 16, MPI_COMBINER_F90_COMPLEX, 2, 15, 300);
    MT_OK(MPI_Type_create_f90_complex(3, MPI_UNDEFINED, &t2));
    check_f90(t2, 8, MPI_COMBINER_F90_COMPLEX, 2, 3, MPI_UNDEFINED);
    MT_ERR(MPI_Type_create_f90_complex(MPI_UNDEFINED, MPI_UNDEFINED, &t2), MPI_ERR_ARG);
    /* its dup: a DUP of the f90 handle, which contents gives back */
    MT_OK(MPI_Type_dup(t, &d));
    MT_OK(MPI_Type_get_envelope(d, &n_i, &n_a, &n_d, &c));
    MT_EQ(c, MPI_COMBINER_DUP);
    MT_EQ(n_d, 1);
    MT_OK(MPI_Type_get_contents(d, 0, 0, 1, NULL, NULL, types));
    MT_CHECK(types[0] == t);
    MT_OK(MPI_Type_free(&d));
}

/* f90 types move data: in a vector, ring send/recv, pack */
static void check_f90_data(void)
{
    int rank, size, pos = 0, upos = 0;
    MPI_Datatype r8, i4, v;
    double src[6], dst[6];
    int32_t iv[3] = { -1, 2, -3 }, iback[3] = { 0 };
    char buf[64];

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_OK(MPI_Type_create_f90_real(12, 100, &r8));
    MT_OK(MPI_Type_create_f90_integer(8, &i4));
    MT_OK(MPI_Type_vector(3, 1, 2, r8, &v));
    MT_OK(MPI_Type_commit(&v));
    for (int i = 0; i < 6; ++i) {
        src[i] = rank * 10 + i;
        dst[i] = -1.0;
    }
    MT_OK(MPI_Sendrecv(src, 1, v, (rank + 1) % size, 5, dst, 1, v, (rank + size - 1) % size, 5,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 6; ++i) {
        MT_CHECK(dst[i] == (i % 2 ? -1.0 : ((rank + size - 1) % size) * 10 + i));
    }
    {   /* a reduction on the f90 types: as on double and int32 */
        double x[2] = { rank + 0.5, -rank }, sx[2];
        int32_t k = rank + 1, sk = 0;

        MT_OK(MPI_Allreduce(x, sx, 2, r8, MPI_SUM, MPI_COMM_WORLD));
        MT_CHECK(sx[0] == size * (size - 1) / 2.0 + 0.5 * size);
        MT_CHECK(sx[1] == -size * (size - 1) / 2.0);
        MT_OK(MPI_Allreduce(&k, &sk, 1, i4, MPI_MAX, MPI_COMM_WORLD));
        MT_EQ(sk, size);
    }
    MT_OK(MPI_Pack(iv, 3, i4, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    MT_EQ(pos, 12);
    MT_OK(MPI_Unpack(buf, pos, &upos, iback, 3, i4, MPI_COMM_WORLD));
    MT_CHECK(iback[0] == -1 && iback[1] == 2 && iback[2] == -3);
    MT_OK(MPI_Type_free(&v));
}

/* external32 of C long: 4 bytes (MPI-3.1 Table 13.2) */
static void check_external32_long(void)
{
    long l[3] = { 0x01020304L, -2L, 7L }, lb[3] = { 0 };
    unsigned long ul[2] = { 0xfffffffeUL, 5UL }, ulb[2] = { 0 };
    struct { long v; int i; } li[2] = { { -3L, 9 }, { 4L, -1 } }, lib[2];
    unsigned char out[64];
    MPI_Aint sz = 0, pos = 0, upos = 0;
    MPI_Datatype c3;

    MT_OK(MPI_Pack_external_size("external32", 3, MPI_LONG, &sz));
    MT_EQ(sz, 12);
    MT_OK(MPI_Pack_external_size("external32", 2, MPI_UNSIGNED_LONG, &sz));
    MT_EQ(sz, 8);
    MT_OK(MPI_Pack_external_size("external32", 2, MPI_LONG_INT, &sz));
    MT_EQ(sz, 16);
    MT_OK(MPI_Pack_external_size("external32", 1, MPI_LONG_LONG, &sz));
    MT_EQ(sz, 8);
    MT_OK(MPI_Pack_external("external32", l, 3, MPI_LONG, out, sizeof(out), &pos));
    MT_EQ(pos, 12);
    MT_CHECK(memcmp(out, "\x01\x02\x03\x04\xff\xff\xff\xfe\0\0\0\x07", 12) == 0);
    MT_OK(MPI_Unpack_external("external32", out, pos, &upos, lb, 3, MPI_LONG));
    MT_CHECK(lb[0] == 0x01020304L && lb[1] == -2L && lb[2] == 7L);
    pos = upos = 0;
    MT_OK(MPI_Pack_external("external32", ul, 2, MPI_UNSIGNED_LONG, out, sizeof(out), &pos));
    MT_CHECK(memcmp(out, "\xff\xff\xff\xfe\0\0\0\x05", 8) == 0);
    MT_OK(MPI_Unpack_external("external32", out, pos, &upos, ulb, 2, MPI_UNSIGNED_LONG));
    MT_CHECK(ulb[0] == 0xfffffffeUL && ulb[1] == 5UL);
    pos = upos = 0;
    MT_OK(MPI_Pack_external("external32", li, 2, MPI_LONG_INT, out, sizeof(out), &pos));
    MT_EQ(pos, 16);
    MT_CHECK(memcmp(out, "\xff\xff\xff\xfd\0\0\0\x09\0\0\0\x04\xff\xff\xff\xff", 16) == 0);
    MT_OK(MPI_Unpack_external("external32", out, pos, &upos, lib, 2, MPI_LONG_INT));
    MT_CHECK(lib[0].v == -3L && lib[0].i == 9 && lib[1].v == 4L && lib[1].i == -1);
    /* a derived type of longs too; out of range: refused, nothing written */
    MT_OK(MPI_Type_contiguous(3, MPI_LONG, &c3));
    MT_OK(MPI_Type_commit(&c3));
    MT_OK(MPI_Pack_external_size("external32", 1, c3, &sz));
    MT_EQ(sz, 12);
    if (sizeof(long) == 8) {
        l[1] = (long)INT32_MAX + 1;
        memset(out, 0xee, sizeof(out));
        pos = 0;
        MT_ERR(MPI_Pack_external("external32", l, 1, c3, out, sizeof(out), &pos), MPI_ERR_ARG);
        MT_EQ(pos, 0);
        MT_CHECK(out[0] == 0xee && out[11] == 0xee);
        ul[0] = (unsigned long)UINT32_MAX + 1;
        MT_ERR(MPI_Pack_external("external32", ul, 1, MPI_UNSIGNED_LONG, out, sizeof(out), &pos),
               MPI_ERR_ARG);
    }
    MT_OK(MPI_Type_free(&c3));
    /* native MPI_Pack of a long keeps its 8 bytes */
    int npos = 0, nsz = 0;
    MT_OK(MPI_Pack_size(2, MPI_LONG, MPI_COMM_WORLD, &nsz));
    MT_EQ(nsz, 2 * (int)sizeof(long));
    MT_OK(MPI_Pack(l, 2, MPI_LONG, out, sizeof(out), &npos, MPI_COMM_WORLD));
    MT_EQ(npos, 2 * (int)sizeof(long));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_match_size();
    check_f90_create();
    check_f90_data();
    check_external32_long();
    MT_PASS("mpi_dt_api");
    MPI_Finalize();
    return 0;
}
