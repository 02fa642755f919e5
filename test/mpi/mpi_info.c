/*
 * mpi_info.c: info objects: every call, the key and value limits, the
 * error classes (MPI_ERR_INFO_KEY, _VALUE, _NOKEY, MPI_ERR_ARG for nthkey,
 * MPI_ERR_INFO for bad handles and for modifying MPI_INFO_ENV), nthkey
 * order, dup independence, truncation by MPI_Info_get, MPI_INFO_ENV's
 * keys, communicator hints (set merges, get copies, dup inherits) and
 * MPI_Alloc_mem with hints.
 */
#include "mpi_test_util.h"

#include <string.h>

static void expect_value(MPI_Info info, const char *key, const char *value)
{
    char buf[MPI_MAX_INFO_VAL];
    int flag = -1, len = -1;

    MT_OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, buf, &flag));
    if (value == NULL) {
        MT_EQ(flag, 0);
        MT_OK(MPI_Info_get_valuelen(info, key, &len, &flag));
        MT_EQ(flag, 0);
        return;
    }
    MT_EQ(flag, 1);
    if (strcmp(buf, value) != 0) {
        MT_FAIL("key '%s': value '%s', expected '%s'", key, buf, value);
    }
    MT_OK(MPI_Info_get_valuelen(info, key, &len, &flag));
    MT_CHECK(flag == 1 && len == (int)strlen(value));
}

static void expect_keys(MPI_Info info, int n, const char *const keys[])
{
    char key[MPI_MAX_INFO_KEY];
    int nkeys = -1;

    MT_OK(MPI_Info_get_nkeys(info, &nkeys));
    MT_EQ(nkeys, n);
    for (int i = 0; i < n; ++i) {
        MT_OK(MPI_Info_get_nthkey(info, i, key));
        if (strcmp(key, keys[i]) != 0) {
            MT_FAIL("key %d is '%s', expected '%s'", i, key, keys[i]);
        }
    }
    MT_ERR(MPI_Info_get_nthkey(info, n, key), MPI_ERR_ARG);
    MT_ERR(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
}

static void test_calls(void)
{
    static const char *const k3[] = {"alpha", "beta", "gamma"};
    static const char *const k2[] = {"alpha", "gamma"};
    MPI_Info info, dup;
    char buf[8];
    int flag;

    MT_OK(MPI_Info_create(&info));
    expect_keys(info, 0, NULL);
    MT_OK(MPI_Info_set(info, "alpha", "1"));
    MT_OK(MPI_Info_set(info, "beta", "two"));
    MT_OK(MPI_Info_set(info, "gamma", "three three"));
    MT_OK(MPI_Info_set(info, "alpha", "one"));       /* replaces, keeps its place */
    expect_keys(info, 3, k3);
    expect_value(info, "alpha", "one");
    expect_value(info, "missing", NULL);
    MT_OK(MPI_Info_dup(info, &dup));
    MT_OK(MPI_Info_delete(info, "beta"));
    expect_keys(info, 2, k2);
    expect_keys(dup, 3, k3);                          /* the dup is independent */
    expect_value(dup, "beta", "two");
    MT_ERR(MPI_Info_delete(info, "beta"), MPI_ERR_INFO_NOKEY);
    /* MPI_Info_get copies at most valuelen characters and a terminator */
    memset(buf, 'x', sizeof(buf));
    MT_OK(MPI_Info_get(info, "gamma", 4, buf, &flag));
    MT_CHECK(flag == 1 && strcmp(buf, "thre") == 0 && buf[5] == 'x');
    MT_OK(MPI_Info_free(&info));
    MT_CHECK(info == MPI_INFO_NULL);
    MT_OK(MPI_Info_free(&dup));
}

static void test_limits(void)
{
    char key[MPI_MAX_INFO_KEY + 8], value[MPI_MAX_INFO_VAL + 8], out[MPI_MAX_INFO_VAL];
    MPI_Info info, freed;
    int flag, n;

    MT_OK(MPI_Info_create(&info));
    memset(key, 'k', sizeof(key));
    key[MPI_MAX_INFO_KEY - 1] = '\0';                  /* longest allowed */
    MT_OK(MPI_Info_set(info, key, "v"));
    key[MPI_MAX_INFO_KEY - 1] = 'k';
    key[MPI_MAX_INFO_KEY] = '\0';                      /* one too long */
    MT_ERR(MPI_Info_set(info, key, "v"), MPI_ERR_INFO_KEY);
    MT_ERR(MPI_Info_get(info, key, 10, out, &flag), MPI_ERR_INFO_KEY);
    MT_ERR(MPI_Info_delete(info, key), MPI_ERR_INFO_KEY);
    MT_ERR(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    memset(value, 'v', sizeof(value));
    value[MPI_MAX_INFO_VAL - 1] = '\0';                /* longest allowed */
    MT_OK(MPI_Info_set(info, "long", value));
    MT_OK(MPI_Info_get_valuelen(info, "long", &n, &flag));
    MT_CHECK(flag == 1 && n == MPI_MAX_INFO_VAL - 1);
    value[MPI_MAX_INFO_VAL - 1] = 'v';
    value[MPI_MAX_INFO_VAL] = '\0';
    MT_ERR(MPI_Info_set(info, "long", value), MPI_ERR_INFO_VALUE);
    MT_ERR(MPI_Info_set(info, "empty", ""), MPI_ERR_INFO_VALUE);
    MT_ERR(MPI_Info_get(info, "long", -1, out, &flag), MPI_ERR_ARG);
    MT_OK(MPI_Info_get_nkeys(info, &n));
    MT_EQ(n, 2);
    /* bad handles */
    MT_ERR(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
    MT_ERR(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
    freed = MPI_INFO_NULL;
    MT_ERR(MPI_Info_free(&freed), MPI_ERR_INFO);
    MT_OK(MPI_Info_free(&info));
}

static void test_env(void)
{
    char value[MPI_MAX_INFO_VAL], key[MPI_MAX_INFO_KEY];
    MPI_Info env = MPI_INFO_ENV, dup;
    int flag, n, size;

    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL - 1, value, &flag));
    MT_CHECK(flag == 1 && strstr(value, "mpi_info") != NULL);
    MT_OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL - 1, value, &flag));
    MT_CHECK(flag == 1 && atoi(value) == size);
    MT_OK(MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL - 1, value, &flag));
    MT_CHECK(flag == 1 && strncmp(value, "MPI_THREAD_", 11) == 0);
    MT_OK(MPI_Info_get(MPI_INFO_ENV, "wdir", MPI_MAX_INFO_VAL - 1, value, &flag));
    MT_CHECK(flag == 1 && value[0] == '/');
    MT_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    MT_CHECK(n >= 5);
    MT_OK(MPI_Info_get_nthkey(MPI_INFO_ENV, 0, key));
    MT_OK(MPI_Info_dup(MPI_INFO_ENV, &dup));          /* a dup is an ordinary info */
    MT_OK(MPI_Info_set(dup, "extra", "1"));
    MT_OK(MPI_Info_free(&dup));
    MT_ERR(MPI_Info_set(MPI_INFO_ENV, "x", "y"), MPI_ERR_INFO);
    MT_ERR(MPI_Info_free(&env), MPI_ERR_INFO);
    MT_CHECK(env == MPI_INFO_ENV);
}

static void test_comm_hints(void)
{
    static const char *const k2[] = {"loom_a", "loom_b"};
    MPI_Info info, used;
    MPI_Comm c0, c1;
    void *mem = NULL;
    int n;

    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c0));
    MT_OK(MPI_Comm_get_info(c0, &used));               /* none set: empty */
    MT_OK(MPI_Info_get_nkeys(used, &n));
    MT_EQ(n, 0);
    MT_OK(MPI_Info_free(&used));
    MT_OK(MPI_Info_create(&info));
    MT_OK(MPI_Info_set(info, "loom_a", "1"));
    MT_OK(MPI_Comm_set_info(c0, info));
    MT_OK(MPI_Info_set(info, "loom_a", "2"));          /* the comm kept a copy */
    MT_OK(MPI_Info_delete(info, "loom_a"));
    MT_OK(MPI_Info_set(info, "loom_b", "x"));
    MT_OK(MPI_Comm_set_info(c0, info));                /* merged */
    MT_OK(MPI_Comm_get_info(c0, &used));
    expect_keys(used, 2, k2);
    expect_value(used, "loom_a", "1");
    MT_OK(MPI_Info_free(&used));
    MT_OK(MPI_Comm_dup(c0, &c1));                      /* dup inherits the hints */
    MT_OK(MPI_Comm_get_info(c1, &used));
    expect_keys(used, 2, k2);
    MT_OK(MPI_Info_free(&used));
    {   /* dup_with_info takes the given hints instead of the old ones */
        static const char *const kc[] = {"loom_c"};
        MPI_Info ci;
        MPI_Comm c2;
        MT_OK(MPI_Info_create(&ci));
        MT_OK(MPI_Info_set(ci, "loom_c", "3"));
        MT_OK(MPI_Comm_dup_with_info(c0, ci, &c2));
        MT_OK(MPI_Comm_get_info(c2, &used));
        expect_keys(used, 1, kc);
        expect_value(used, "loom_c", "3");
        MT_OK(MPI_Info_free(&used));
        MT_OK(MPI_Comm_free(&c2));
        MT_OK(MPI_Comm_dup_with_info(c0, MPI_INFO_NULL, &c2));   /* no hints at all */
        MT_OK(MPI_Comm_get_info(c2, &used));
        MT_OK(MPI_Info_get_nkeys(used, &n));
        MT_EQ(n, 0);
        MT_OK(MPI_Info_free(&used));
        MT_OK(MPI_Comm_free(&c2));
        MT_OK(MPI_Info_free(&ci));
    }
    MT_ERR(MPI_Comm_get_info(MPI_COMM_NULL, &used), MPI_ERR_COMM);
    /* MPI_Alloc_mem: hints accepted (unknown ones ignored), bad handle refused */
    MT_OK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    MT_OK(MPI_Alloc_mem(1024, info, &mem));
    MT_CHECK(mem != NULL);
    memset(mem, 1, 1024);
    MT_OK(MPI_Free_mem(mem));
    MT_OK(MPI_Info_free(&info));
    MT_OK(MPI_Comm_free(&c1));
    MT_OK(MPI_Comm_free(&c0));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    test_calls();
    test_limits();
    test_env();
    test_comm_hints();
    MT_PASS("mpi_info");
    MT_OK(MPI_Finalize());
    return 0;
}
