/*
 * test_mpi_types.c: the MPI binding's datatype and operation mapping, in
 * one process (a singleton): the predefined datatype table against the C
 * types, contiguous derived types (size, extent, commit, free, names),
 * Get_count / Get_elements arithmetic, predefined op handles, and user ops:
 * one loom op per (op, datatype), the trampoline's count scaling and its
 * fallback to the basic type for pieces that are not whole elements.
 */
#include "../common/cunit_main.h"
#include "../../mpi/mpi_int.h"

#include <limits.h>
#include <string.h>

static int setup(void)
{
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        return 1;
    }
    return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static int teardown(void)
{
    return MPI_Finalize();
}

static void check_type(MPI_Datatype dt, const char *name, size_t size, size_t extent,
                       loom_datatype_t base)
{
    char got[MPI_MAX_OBJECT_NAME];
    int len = -1, isize = -1;
    MPI_Aint lb = -1, ext = -1;

    CU_ASSERT_EQUAL_FATAL(MPI_Type_get_name(dt, got, &len), MPI_SUCCESS);
    CU_ASSERT_STRING_EQUAL(got, name);
    CU_ASSERT_EQUAL(len, (int)strlen(name));
    CU_ASSERT_EQUAL(MPI_Type_size(dt, &isize), MPI_SUCCESS);
    CU_ASSERT_EQUAL(isize, (int)size);
    CU_ASSERT_EQUAL(MPI_Type_get_extent(dt, &lb, &ext), MPI_SUCCESS);
    CU_ASSERT_EQUAL(lb, 0);
    CU_ASSERT_EQUAL(ext, (MPI_Aint)extent);
    CU_ASSERT_EQUAL(dt->base, base);
}

static void test_predefined_table(void)
{
    size_t n = loom_mpi_type_predefined_count();

    CU_ASSERT_EQUAL(n, 38);  /* 35 + the three C complex types */
    for (size_t i = 0; i < n; ++i) {
        MPI_Datatype dt = loom_mpi_type_predefined(i);

        CU_ASSERT_PTR_NOT_NULL_FATAL(dt);
        CU_ASSERT(loom_mpi_type_is_valid(dt));
        CU_ASSERT(dt->predefined && dt->committed && dt->n == 1);
        CU_ASSERT(strncmp(dt->name, "MPI_", 4) == 0);
        CU_ASSERT(loom_mpi_type_extent(dt) >= dt->size);
        for (size_t j = 0; j < i; ++j) {
            CU_ASSERT(loom_mpi_type_predefined(j) != dt);
        }
    }
    CU_ASSERT_PTR_NULL(loom_mpi_type_predefined(n));

    check_type(MPI_CHAR, "MPI_CHAR", 1, 1, CHAR_MIN < 0 ? LOOM_INT8 : LOOM_UINT8);
    check_type(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 1, LOOM_INT8);
    check_type(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 1, LOOM_UINT8);
    check_type(MPI_BYTE, "MPI_BYTE", 1, 1, LOOM_BYTE);
    check_type(MPI_SHORT, "MPI_SHORT", sizeof(short), sizeof(short), LOOM_INT16);
    check_type(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 2, 2, LOOM_UINT16);
    check_type(MPI_INT, "MPI_INT", 4, 4, LOOM_INT32);
    check_type(MPI_UNSIGNED, "MPI_UNSIGNED", 4, 4, LOOM_UINT32);
    check_type(MPI_LONG, "MPI_LONG", sizeof(long), sizeof(long),
               sizeof(long) == 8 ? LOOM_INT64 : LOOM_INT32);
    check_type(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(long), sizeof(long),
               sizeof(long) == 8 ? LOOM_UINT64 : LOOM_UINT32);
    check_type(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", 8, 8, LOOM_INT64);
    CU_ASSERT_PTR_EQUAL(MPI_LONG_LONG, MPI_LONG_LONG_INT);
    check_type(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 8, 8, LOOM_UINT64);
    check_type(MPI_FLOAT, "MPI_FLOAT", 4, 4, LOOM_FLOAT);
    check_type(MPI_DOUBLE, "MPI_DOUBLE", 8, 8, LOOM_DOUBLE);
    check_type(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double),
               sizeof(long double), LOOM_LONG_DOUBLE);
    check_type(MPI_C_BOOL, "MPI_C_BOOL", 1, 1, LOOM_BOOL);
    check_type(MPI_INT8_T, "MPI_INT8_T", 1, 1, LOOM_INT8);
    check_type(MPI_INT64_T, "MPI_INT64_T", 8, 8, LOOM_INT64);
    check_type(MPI_UINT16_T, "MPI_UINT16_T", 2, 2, LOOM_UINT16);
    check_type(MPI_UINT64_T, "MPI_UINT64_T", 8, 8, LOOM_UINT64);
    check_type(MPI_AINT, "MPI_AINT", sizeof(MPI_Aint), sizeof(MPI_Aint), LOOM_INT64);
    /* pairs: MPI size is the data, extent is the C struct loom moves */
    check_type(MPI_FLOAT_INT, "MPI_FLOAT_INT", 8, 8, LOOM_FLOAT_INT);
    check_type(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 12, 16, LOOM_DOUBLE_INT);
    check_type(MPI_LONG_INT, "MPI_LONG_INT", sizeof(long) + 4,
               sizeof(struct { long v; int i; }), LOOM_LONG_INT);
    check_type(MPI_2INT, "MPI_2INT", 8, 8, LOOM_2INT);
    check_type(MPI_SHORT_INT, "MPI_SHORT_INT", 6, 8, LOOM_SHORT_INT);
    check_type(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(long double) + 4,
               sizeof(struct { long double v; int i; }), LOOM_LONG_DOUBLE_INT);
    /* every basic type has a predefined MPI twin */
    for (int b = 0; b < LOOM_DATATYPE_COUNT; ++b) {
        MPI_Datatype dt = loom_mpi_type_of_base((loom_datatype_t)b);

        CU_ASSERT_PTR_NOT_NULL_FATAL(dt);
        CU_ASSERT_EQUAL(dt->base, (loom_datatype_t)b);
    }
    CU_ASSERT_PTR_NULL(loom_mpi_type_of_base(LOOM_DATATYPE_COUNT));
}

static void test_contiguous(void)
{
    MPI_Datatype tri, six, empty, dup, gone;
    char name[MPI_MAX_OBJECT_NAME];
    int len, size;

    CU_ASSERT_EQUAL_FATAL(MPI_Type_contiguous(3, MPI_INT, &tri), MPI_SUCCESS);
    check_type(tri, "", 12, 12, LOOM_INT32);
    CU_ASSERT_EQUAL(tri->n, 3);
    CU_ASSERT_FALSE(tri->committed);
    CU_ASSERT_EQUAL(loom_mpi_type_check(tri, 1), MPI_ERR_TYPE);  /* not committed */
    CU_ASSERT_EQUAL(MPI_Type_commit(&tri), MPI_SUCCESS);
    CU_ASSERT_EQUAL(loom_mpi_type_check(tri, 1), MPI_SUCCESS);
    CU_ASSERT_EQUAL(loom_mpi_type_check(tri, -1), MPI_ERR_COUNT);

    CU_ASSERT_EQUAL(MPI_Type_contiguous(2, tri, &six), MPI_SUCCESS);
    CU_ASSERT_EQUAL(six->n, 6);
    CU_ASSERT_EQUAL(MPI_Type_size(six, &size), MPI_SUCCESS);
    CU_ASSERT_EQUAL(size, 24);
    CU_ASSERT_EQUAL(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &dup), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Type_size(dup, &size), MPI_SUCCESS);
    CU_ASSERT_EQUAL(size, 24);
    CU_ASSERT_EQUAL(loom_mpi_type_extent(dup), 32);
    CU_ASSERT_EQUAL(MPI_Type_free(&dup), MPI_SUCCESS);

    CU_ASSERT_EQUAL(MPI_Type_contiguous(0, MPI_INT, &empty), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Type_size(empty, &size), MPI_SUCCESS);
    CU_ASSERT_EQUAL(size, 0);

    CU_ASSERT_EQUAL(MPI_Type_set_name(six, "six ints"), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Type_get_name(six, name, &len), MPI_SUCCESS);
    CU_ASSERT_STRING_EQUAL(name, "six ints");
    CU_ASSERT_EQUAL(MPI_Type_dup(tri, &dup), MPI_SUCCESS);
    CU_ASSERT(dup != tri && dup->committed && dup->n == 3);

    gone = six;
    CU_ASSERT_EQUAL(MPI_Type_free(&six), MPI_SUCCESS);
    CU_ASSERT_PTR_NULL(six);
    CU_ASSERT_FALSE(loom_mpi_type_is_valid(MPI_DATATYPE_NULL));
    (void)gone;  /* freed memory: not touched again */
    CU_ASSERT_EQUAL(MPI_Type_free(&(MPI_Datatype){ MPI_INT }), MPI_ERR_TYPE);
    CU_ASSERT_EQUAL(MPI_Type_size(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE);
    CU_ASSERT_EQUAL(MPI_Type_contiguous(-1, MPI_INT, &six), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(MPI_Type_contiguous(INT_MAX, tri, &six), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(MPI_Type_commit(NULL), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(MPI_Type_free(&empty), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Type_free(&dup), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Type_free(&tri), MPI_SUCCESS);
}

static MPI_Status status_of(size_t bytes)
{
    MPI_Status st;

    memset(&st, 0, sizeof(st));
    st.loom_bytes_ = bytes;
    return st;
}

static void test_get_count(void)
{
    MPI_Datatype tri, empty;
    MPI_Status st;
    int c;

    MPI_Type_contiguous(3, MPI_INT, &tri);
    MPI_Type_contiguous(0, MPI_INT, &empty);
    st = status_of(12);
    CU_ASSERT_EQUAL(MPI_Get_count(&st, MPI_INT, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, 3);
    CU_ASSERT_EQUAL(MPI_Get_count(&st, tri, &c), MPI_SUCCESS);  /* need not be committed */
    CU_ASSERT_EQUAL(c, 1);
    CU_ASSERT_EQUAL(MPI_Get_elements(&st, tri, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, 3);
    CU_ASSERT_EQUAL(MPI_Get_count(&st, MPI_DOUBLE, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, MPI_UNDEFINED);
    st = status_of(8);
    CU_ASSERT_EQUAL(MPI_Get_count(&st, tri, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, MPI_UNDEFINED);
    st = status_of(0);
    CU_ASSERT_EQUAL(MPI_Get_count(&st, tri, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, 0);
    CU_ASSERT_EQUAL(MPI_Get_count(&st, empty, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, 0);
    st = status_of(4);
    CU_ASSERT_EQUAL(MPI_Get_count(&st, empty, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, MPI_UNDEFINED);
    st = status_of(24);   /* a pair's data, 12 bytes, is what a status counts */
    CU_ASSERT_EQUAL(MPI_Get_count(&st, MPI_DOUBLE_INT, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, 2);
    CU_ASSERT_EQUAL(MPI_Get_elements(&st, MPI_DOUBLE_INT, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, 4);
    st = status_of(20);   /* one pair and a double */
    CU_ASSERT_EQUAL(MPI_Get_count(&st, MPI_DOUBLE_INT, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, MPI_UNDEFINED);
    CU_ASSERT_EQUAL(MPI_Get_elements(&st, MPI_DOUBLE_INT, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, 3);
    st = status_of(16);   /* an unpadded pair: its C struct is its data */
    CU_ASSERT_EQUAL(MPI_Get_count(&st, MPI_2INT, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, 2);
    st = status_of(((size_t)INT_MAX + 1) * 4);   /* more elements than an int holds */
    CU_ASSERT_EQUAL(MPI_Get_count(&st, MPI_INT, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, MPI_UNDEFINED);
    CU_ASSERT_EQUAL(MPI_Get_count(&st, MPI_DOUBLE, &c), MPI_SUCCESS);
    CU_ASSERT_EQUAL(c, (INT_MAX + 1LL) / 2);
    CU_ASSERT_EQUAL(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &c), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(MPI_Get_count(&st, MPI_DATATYPE_NULL, &c), MPI_ERR_TYPE);
    MPI_Type_free(&tri);
    MPI_Type_free(&empty);
}

static void test_predefined_ops(void)
{
    static const struct { MPI_Op op; loom_op_t lop; } map[] = {
        { MPI_MAX, LOOM_MAX },       { MPI_MIN, LOOM_MIN },       { MPI_SUM, LOOM_SUM },
        { MPI_PROD, LOOM_PROD },     { MPI_LAND, LOOM_LAND },     { MPI_BAND, LOOM_BAND },
        { MPI_LOR, LOOM_LOR },       { MPI_BOR, LOOM_BOR },       { MPI_LXOR, LOOM_LXOR },
        { MPI_BXOR, LOOM_BXOR },     { MPI_MINLOC, LOOM_MINLOC }, { MPI_MAXLOC, LOOM_MAXLOC },
        { MPI_REPLACE, LOOM_REPLACE },
    };
    loom_op_t lop;
    int commute;
    MPI_Op sum = MPI_SUM;

    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); ++i) {
        CU_ASSERT_EQUAL(loom_mpi_op_resolve(map[i].op, MPI_INT, &lop), MPI_SUCCESS);
        CU_ASSERT_EQUAL(lop, map[i].lop);
        CU_ASSERT_EQUAL(MPI_Op_commutative(map[i].op, &commute), MPI_SUCCESS);
        CU_ASSERT_EQUAL(commute, 1);
    }
    CU_ASSERT_EQUAL(loom_mpi_op_resolve(MPI_OP_NULL, MPI_INT, &lop), MPI_ERR_OP);
    CU_ASSERT_EQUAL(MPI_Op_free(&sum), MPI_ERR_OP);
    CU_ASSERT_PTR_EQUAL(sum, MPI_SUM);
}

/* what the user function saw last */
static int seen_len, seen_calls;
static MPI_Datatype seen_type;

static void add_and_record(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int tsize = 0;

    MPI_Type_size(*dt, &tsize);
    for (int i = 0; i < *len * tsize / 4; ++i) {
        ((int *)inout)[i] += ((int *)in)[i];
    }
    seen_len  = *len;
    seen_type = *dt;
    ++seen_calls;
}

static void test_user_op_trampoline(void)
{
    MPI_Datatype tri;
    MPI_Op op;
    loom_op_t l1, l2, l3;
    int in[6] = { 1, 2, 3, 4, 5, 6 }, inout[6] = { 10, 20, 30, 40, 50, 60 };
    int commute = -1;

    MPI_Type_contiguous(3, MPI_INT, &tri);
    MPI_Type_commit(&tri);
    CU_ASSERT_EQUAL_FATAL(MPI_Op_create(add_and_record, 0, &op), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Op_commutative(op, &commute), MPI_SUCCESS);
    CU_ASSERT_EQUAL(commute, 0);
    /* one loom op per datatype, made once */
    CU_ASSERT_EQUAL(loom_mpi_op_resolve(op, tri, &l1), MPI_SUCCESS);
    CU_ASSERT_EQUAL(loom_mpi_op_resolve(op, tri, &l2), MPI_SUCCESS);
    CU_ASSERT_EQUAL(loom_mpi_op_resolve(op, MPI_INT, &l3), MPI_SUCCESS);
    CU_ASSERT_EQUAL(l1, l2);
    CU_ASSERT_NOT_EQUAL(l1, l3);
    CU_ASSERT(l1 >= LOOM_OP_PREDEFINED_COUNT && l3 >= LOOM_OP_PREDEFINED_COUNT);

    /* loom counts basic elements: 6 ints are 2 elements of tri */
    CU_ASSERT_EQUAL(loom_op_reduce(l1, in, inout, 6, LOOM_INT32), LOOM_OK);
    CU_ASSERT_EQUAL(seen_len, 2);
    CU_ASSERT_PTR_EQUAL(seen_type, tri);
    CU_ASSERT(inout[0] == 11 && inout[5] == 66);
    /* a piece that is not whole elements of tri is refused (the binding's
     * unit is tri's size): the user function only ever sees whole tris */
    seen_calls = 0;
    CU_ASSERT_EQUAL(loom_op_reduce(l1, in, inout, 4, LOOM_INT32), LOOM_ERR_INVALID_COUNT);
    CU_ASSERT_EQUAL(seen_calls, 0);
    CU_ASSERT(inout[3] == 44 && inout[4] == 55);
    /* through the MPI call */
    CU_ASSERT_EQUAL(MPI_Reduce_local(in, inout, 2, tri, op), MPI_SUCCESS);
    CU_ASSERT_EQUAL(seen_len, 2);
    CU_ASSERT_PTR_EQUAL(seen_type, tri);
    CU_ASSERT(inout[0] == 12 && inout[5] == 72);
    CU_ASSERT_EQUAL(MPI_Reduce_local(in, inout, 6, MPI_INT, op), MPI_SUCCESS);
    CU_ASSERT_PTR_EQUAL(seen_type, MPI_INT);
    CU_ASSERT_EQUAL(seen_len, 6);

    /* the binding keeps tri alive after MPI_Type_free, until MPI_Op_free */
    MPI_Datatype kept = tri;
    CU_ASSERT_EQUAL(MPI_Type_free(&tri), MPI_SUCCESS);
    CU_ASSERT_EQUAL(kept->magic, LOOM_MPI_TYPE_MAGIC);
    CU_ASSERT_FALSE(loom_mpi_type_is_valid(kept));     /* but not for the user */
    seen_calls = 0;
    CU_ASSERT_EQUAL(loom_op_reduce(l1, in, inout, 3, LOOM_INT32), LOOM_OK);
    CU_ASSERT_EQUAL(seen_calls, 1);
    CU_ASSERT_PTR_EQUAL(seen_type, kept);
    CU_ASSERT_EQUAL(MPI_Op_free(&op), MPI_SUCCESS);
    CU_ASSERT_PTR_NULL(op);
    CU_ASSERT_EQUAL(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG);
}

static void test_reduce_local_predefined(void)
{
    double a[3] = { 1, 5, 3 }, b[3] = { 4, 2, 6 };
    struct { double v; int i; } p[2] = { { 1.0, 7 }, { 9.0, 1 } }, q[2] = { { 1.0, 3 }, { 2.0, 2 } };

    CU_ASSERT_EQUAL(MPI_Reduce_local(a, b, 3, MPI_DOUBLE, MPI_MAX), MPI_SUCCESS);
    CU_ASSERT(b[0] == 4 && b[1] == 5 && b[2] == 6);
    CU_ASSERT_EQUAL(MPI_Reduce_local(p, q, 2, MPI_DOUBLE_INT, MPI_MINLOC), MPI_SUCCESS);
    CU_ASSERT(q[0].v == 1.0 && q[0].i == 3 && q[1].v == 2.0 && q[1].i == 2);
    CU_ASSERT_EQUAL(MPI_Reduce_local(a, b, 3, MPI_DOUBLE, MPI_BXOR), MPI_ERR_OP);
    CU_ASSERT_EQUAL(MPI_Reduce_local(a, b, -1, MPI_DOUBLE, MPI_SUM), MPI_ERR_COUNT);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "predefined datatype table", test_predefined_table },
        { "contiguous derived types", test_contiguous },
        { "Get_count / Get_elements", test_get_count },
        { "predefined operations", test_predefined_ops },
        { "user op trampoline and bindings", test_user_op_trampoline },
        { "Reduce_local with predefined ops", test_reduce_local_predefined },
        { NULL, NULL },
    };
    return loom_test_run_suite("mpi types and ops", cases, setup, teardown);
}
