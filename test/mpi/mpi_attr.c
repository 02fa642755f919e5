/*
 * mpi_attr.c: attributes and keyvals on communicators, datatypes and
 * windows: copy and delete callbacks counted and their order checked,
 * propagation on MPI_Comm_dup and MPI_Type_dup, replacement and deletion,
 * freed keyvals, errors returned by callbacks (an added error code, seen
 * by the caller), wrong kinds and predefined keyvals (MPI_ERR_KEYVAL), the
 * deprecated MPI-1 calls, and MPI_COMM_SELF's attributes deleted at the
 * start of MPI_Finalize in the reverse order of setting.
 */
#include "mpi_test_util.h"

#include <string.h>

#define LOG_MAX 64

/* What the callbacks saw: one entry per call, in order. */
typedef struct cb_log {
    int  n;
    char what[LOG_MAX];   /* 'c' copy, 'd' delete */
    int  keyval[LOG_MAX];
    long value[LOG_MAX];
    int  fail_code;       /* nonzero: callbacks return it */
} cb_log_t;

static cb_log_t log_;

static void log_add(char what, int keyval, void *value)
{
    if (log_.n < LOG_MAX) {
        log_.what[log_.n]   = what;
        log_.keyval[log_.n] = keyval;
        log_.value[log_.n]  = (long)(intptr_t)value;
        ++log_.n;
    }
}

/* copy: the new value is the old one + 1000 */
static int copy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out,
                   int *flag)
{
    (void)oldcomm;
    MT_CHECK(extra == &log_);
    log_add('c', keyval, in);
    if (log_.fail_code != 0) {
        return log_.fail_code;
    }
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    MT_CHECK(extra == &log_);
    log_add('d', keyval, value);
    return log_.fail_code;
}

static int type_copy_cb(MPI_Datatype oldtype, int keyval, void *extra, void *in,
                        void *out, int *flag)
{
    (void)oldtype;
    (void)extra;
    log_add('c', keyval, in);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete_cb(MPI_Datatype type, int keyval, void *value, void *extra)
{
    (void)type;
    (void)extra;
    log_add('d', keyval, value);
    return MPI_SUCCESS;
}

#define V(x) ((void *)(intptr_t)(x))

static void expect_log(int i, char what, int keyval, long value)
{
    if (i >= log_.n || log_.what[i] != what || log_.keyval[i] != keyval ||
        log_.value[i] != value) {
        MT_FAIL("callback %d: expected %c(keyval %d, value %ld), got %c(keyval %d, "
                "value %ld) of %d calls", i, what, keyval, value,
                i < log_.n ? log_.what[i] : '-', i < log_.n ? log_.keyval[i] : -1,
                i < log_.n ? log_.value[i] : -1L, log_.n);
    }
}

static void test_predefined(void)
{
    int *val = NULL, flag = -1, k = MPI_TAG_UB;

    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
    MT_CHECK(flag == 1 && *val >= 32767);
    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &val, &flag));
    MT_CHECK(flag == 1 && *val >= MPI_ERR_LASTCODE);
    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag));
    MT_EQ(flag, 0);
    MT_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, V(5)), MPI_ERR_KEYVAL);
    MT_ERR(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_HOST), MPI_ERR_KEYVAL);
    MT_ERR(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
    MT_EQ(k, MPI_TAG_UB);
    MT_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, 999999, &val, &flag), MPI_ERR_KEYVAL);
    MT_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &val, &flag),
           MPI_ERR_KEYVAL);
    MT_ERR(MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &val, &flag), MPI_ERR_KEYVAL);
}

/* dup propagation, replacement, deletion order, NULL_COPY_FN, freed keyvals */
static void test_comm_callbacks(void)
{
    MPI_Comm c0, c1;
    int k1, k2, k3, k1_saved, flag;
    void *v;

    memset(&log_, 0, sizeof(log_));
    MT_OK(MPI_Comm_create_keyval(copy_cb, delete_cb, &k1, &log_));
    MT_OK(MPI_Comm_create_keyval(copy_cb, delete_cb, &k2, &log_));
    MT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &k3, &log_));
    MT_CHECK(k1 != k2 && k2 != k3 && k1 != MPI_KEYVAL_INVALID);
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c0));
    MT_OK(MPI_Comm_get_attr(c0, k1, &v, &flag));
    MT_EQ(flag, 0);
    MT_OK(MPI_Comm_set_attr(c0, k1, V(1)));
    MT_OK(MPI_Comm_set_attr(c0, k2, V(2)));
    MT_OK(MPI_Comm_set_attr(c0, k3, V(3)));
    MT_OK(MPI_Comm_get_attr(c0, k2, &v, &flag));
    MT_CHECK(flag == 1 && v == V(2));
    MT_EQ(log_.n, 0);

    MT_OK(MPI_Comm_dup(c0, &c1));                  /* copies k1, k2; not k3 */
    MT_EQ(log_.n, 2);
    MT_OK(MPI_Comm_get_attr(c1, k1, &v, &flag));
    MT_CHECK(flag == 1 && v == V(1001));
    MT_OK(MPI_Comm_get_attr(c1, k2, &v, &flag));
    MT_CHECK(flag == 1 && v == V(1002));
    MT_OK(MPI_Comm_get_attr(c1, k3, &v, &flag));
    MT_EQ(flag, 0);

    MT_OK(MPI_Comm_set_attr(c0, k1, V(11)));        /* old value deleted first */
    expect_log(2, 'd', k1, 1);
    MT_OK(MPI_Comm_get_attr(c0, k1, &v, &flag));
    MT_CHECK(flag == 1 && v == V(11));
    MT_OK(MPI_Comm_delete_attr(c0, k2));
    expect_log(3, 'd', k2, 2);
    MT_OK(MPI_Comm_get_attr(c0, k2, &v, &flag));
    MT_EQ(flag, 0);
    MT_OK(MPI_Comm_free(&c0));                      /* newest setting first */
    MT_EQ(log_.n, 6);
    expect_log(4, 'd', k1, 11);
    expect_log(5, 'd', k3, 3);
    MT_CHECK(c0 == MPI_COMM_NULL);

    k1_saved = k1;                                  /* freed keyval, still in use */
    MT_OK(MPI_Comm_free_keyval(&k1));
    MT_EQ(k1, MPI_KEYVAL_INVALID);
    MT_OK(MPI_Comm_get_attr(c1, k1_saved, &v, &flag));
    MT_CHECK(flag == 1 && v == V(1001));
    MT_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, k1_saved, V(7)), MPI_ERR_KEYVAL);
    MT_ERR(MPI_Comm_free_keyval(&k1_saved), MPI_ERR_KEYVAL);
    MT_OK(MPI_Comm_free(&c1));                      /* k2 set after k1 by the copy */
    MT_EQ(log_.n, 8);
    MT_CHECK((log_.keyval[6] == k2 && log_.value[6] == 1002 &&
              log_.keyval[7] == k1_saved && log_.value[7] == 1001) ||
             (log_.keyval[7] == k2 && log_.value[7] == 1002 &&
              log_.keyval[6] == k1_saved && log_.value[6] == 1001));
    /* now unused: the keyval is gone */
    MT_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, k1_saved, &v, &flag), MPI_ERR_KEYVAL);
    MT_OK(MPI_Comm_free_keyval(&k2));
    MT_OK(MPI_Comm_free_keyval(&k3));
}

/* errors returned by callbacks reach the caller (an added code here) */
static void test_callback_errors(void)
{
    MPI_Comm c0, c1 = MPI_COMM_WORLD;
    int k, eclass, ecode, cls, flag;
    void *v;

    MT_OK(MPI_Add_error_class(&eclass));
    MT_OK(MPI_Add_error_code(eclass, &ecode));
    memset(&log_, 0, sizeof(log_));
    MT_OK(MPI_Comm_create_keyval(copy_cb, delete_cb, &k, &log_));
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c0));
    MT_OK(MPI_Comm_set_errhandler(c0, MPI_ERRORS_RETURN));
    MT_OK(MPI_Comm_set_attr(c0, k, V(5)));
    log_.fail_code = ecode;
    MT_EQ(MPI_Comm_dup(c0, &c1), ecode);
    MT_OK(MPI_Error_class(ecode, &cls));
    MT_EQ(cls, eclass);
    MT_CHECK(c1 == MPI_COMM_NULL);
    MT_EQ(MPI_Comm_delete_attr(c0, k), ecode);      /* kept on failure */
    MT_OK(MPI_Comm_get_attr(c0, k, &v, &flag));
    MT_CHECK(flag == 1 && v == V(5));
    MT_EQ(MPI_Comm_set_attr(c0, k, V(6)), ecode);    /* replacing fails too */
    MT_EQ(MPI_Comm_free(&c0), ecode);
    MT_CHECK(c0 != MPI_COMM_NULL);
    log_.fail_code = 0;
    MT_OK(MPI_Comm_free(&c0));
    MT_CHECK(c0 == MPI_COMM_NULL);
    expect_log(log_.n - 1, 'd', k, 5);
    MT_OK(MPI_Comm_free_keyval(&k));
}

static void test_types(void)
{
    MPI_Datatype t2, t2dup;
    int kt, kc, flag;
    void *v;

    memset(&log_, 0, sizeof(log_));
    MT_OK(MPI_Type_create_keyval(type_copy_cb, type_delete_cb, &kt, NULL));
    MT_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
    MT_OK(MPI_Type_contiguous(2, MPI_INT, &t2));
    MT_OK(MPI_Type_commit(&t2));
    MT_OK(MPI_Type_set_attr(t2, kt, V(42)));
    MT_ERR(MPI_Type_set_attr(t2, kc, V(1)), MPI_ERR_KEYVAL);     /* comm keyval */
    MT_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, kt, V(1)), MPI_ERR_KEYVAL);
    MT_OK(MPI_Type_dup(t2, &t2dup));
    expect_log(0, 'c', kt, 42);
    MT_OK(MPI_Type_get_attr(t2dup, kt, &v, &flag));
    MT_CHECK(flag == 1 && v == V(42));
    MT_OK(MPI_Type_free(&t2));
    expect_log(1, 'd', kt, 42);
    MT_OK(MPI_Type_delete_attr(t2dup, kt));
    expect_log(2, 'd', kt, 42);
    MT_OK(MPI_Type_free(&t2dup));
    MT_EQ(log_.n, 3);
    /* predefined types carry attributes too */
    MT_OK(MPI_Type_set_attr(MPI_DOUBLE, kt, V(9)));
    MT_OK(MPI_Type_get_attr(MPI_DOUBLE, kt, &v, &flag));
    MT_CHECK(flag == 1 && v == V(9));
    MT_OK(MPI_Type_delete_attr(MPI_DOUBLE, kt));
    expect_log(3, 'd', kt, 9);
    MT_ERR(MPI_Type_get_attr(MPI_DATATYPE_NULL, kt, &v, &flag), MPI_ERR_TYPE);
    MT_ERR(MPI_Comm_free_keyval(&kt), MPI_ERR_KEYVAL);            /* wrong kind */
    MT_OK(MPI_Type_free_keyval(&kt));
    MT_EQ(kt, MPI_KEYVAL_INVALID);
    MT_OK(MPI_Comm_free_keyval(&kc));
}

static void test_deprecated_and_windows(void)
{
    MPI_Comm c0, c1;
    int k, kw, flag;
    void *v;

    MT_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL));
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c0));
    MT_OK(MPI_Attr_put(c0, k, V(77)));
    MT_OK(MPI_Attr_get(c0, k, &v, &flag));
    MT_CHECK(flag == 1 && v == V(77));
    MT_OK(MPI_Comm_dup(c0, &c1));                   /* MPI_DUP_FN copies the value */
    MT_OK(MPI_Comm_get_attr(c1, k, &v, &flag));
    MT_CHECK(flag == 1 && v == V(77));
    {   /* and so does a nonblocking duplicate, at the call */
        MPI_Comm c2;
        MPI_Request req;
        MT_OK(MPI_Comm_idup(c0, &c2, &req));
        MT_OK(MPI_Comm_get_attr(c2, k, &v, &flag));
        MT_CHECK(flag == 1 && v == V(77));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MT_OK(MPI_Comm_free(&c2));
    }
    MT_OK(MPI_Attr_delete(c0, k));
    MT_OK(MPI_Attr_get(c0, k, &v, &flag));
    MT_EQ(flag, 0);
    MT_OK(MPI_Comm_free(&c1));
    MT_OK(MPI_Comm_free(&c0));
    MT_OK(MPI_Keyval_free(&k));
    MT_EQ(k, MPI_KEYVAL_INVALID);

    MT_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kw, NULL));
    MT_ERR(MPI_Win_set_attr(MPI_WIN_NULL, kw, V(1)), MPI_ERR_WIN);
    MT_ERR(MPI_Win_get_attr(MPI_WIN_NULL, kw, &v, &flag), MPI_ERR_WIN);
    MT_ERR(MPI_Win_delete_attr(MPI_WIN_NULL, kw), MPI_ERR_WIN);
    MT_ERR(MPI_Type_free_keyval(&kw), MPI_ERR_KEYVAL);
    MT_OK(MPI_Win_free_keyval(&kw));
}

/* MPI_COMM_SELF at finalize: reverse order of setting, before MPI shuts down */
static int self_order[8];
static int self_n;
static int self_finalized_seen = -1;

static int self_delete_cb(MPI_Comm comm, int keyval, void *value, void *extra)
{
    int size = -1;

    (void)keyval;
    (void)extra;
    if (self_n < 8) {
        self_order[self_n++] = (int)(intptr_t)value;
    }
    MPI_Finalized(&self_finalized_seen);
    /* MPI still works: communicate on MPI_COMM_SELF */
    if (comm != MPI_COMM_SELF || MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS ||
        size < 1) {
        self_finalized_seen = 99;
    }
    return MPI_SUCCESS;
}

static void set_self_attrs(void)
{
    int ka, kb, kc;

    MT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_cb, &ka, NULL));
    MT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_cb, &kb, NULL));
    MT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_cb, &kc, NULL));
    MT_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kb, V(2)));
    MT_OK(MPI_Comm_set_attr(MPI_COMM_SELF, ka, V(1)));
    MT_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kc, V(3)));
    MT_OK(MPI_Comm_free_keyval(&kc));  /* still deleted at finalize */
}

int main(int argc, char **argv)
{
    int rank;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    test_predefined();
    test_comm_callbacks();
    test_callback_errors();
    test_types();
    test_deprecated_and_windows();
    set_self_attrs();
    MT_PASS("mpi_attr (before finalize)");
    MT_OK(MPI_Finalize());
    if (self_n != 3 || self_order[0] != 3 || self_order[1] != 1 || self_order[2] != 2 ||
        self_finalized_seen != 0) {
        fprintf(stderr, "[rank %d] MPI_COMM_SELF delete callbacks at finalize: %d calls "
                "(values %d %d %d, expected 3 1 2), MPI_Finalized said %d (expected 0)\n",
                rank, self_n, self_order[0], self_order[1], self_order[2],
                self_finalized_seen);
        return 1;
    }
    if (rank == 0) {
        printf("mpi_attr: MPI_COMM_SELF attributes deleted in reverse order at finalize\n");
    }
    return 0;
}
