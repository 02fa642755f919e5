/*
 * test_basics.c: the basics (base/) without processes: status strings, the config
 * table and its parsers, log specs, intrusive lists, memory pools.
 */
#include "cunit_main.h"

#include <loom.h>
#include "config_int.h"
#include "base_config_int.h"
#include "p2p_config_int.h"
#include "coll_config_int.h"
#include "runtime_config_int.h"
#include "tl.h"
#include "list_int.h"
#include "log_int.h"
#include "mpool_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_status_strings(void)
{
    static const loom_status_t codes[] = {
#define X(name, value, desc) LOOM_##name,
        LOOM_STATUS_MAP(X)
#undef X
    };

    for (size_t i = 0; i < LOOM_ARRAY_SIZE(codes); ++i) {
        CU_ASSERT_STRING_NOT_EQUAL(loom_strerror(codes[i]), "unknown status");
        CU_ASSERT(strncmp(loom_status_name(codes[i]), "LOOM_", 5) == 0);
        for (size_t j = 0; j < i; ++j) {
            CU_ASSERT(codes[i] != codes[j]);
            CU_ASSERT_STRING_NOT_EQUAL(loom_status_name(codes[i]),
                                       loom_status_name(codes[j]));
        }
    }
    CU_ASSERT_EQUAL(LOOM_OK, 0);
    CU_ASSERT_STRING_EQUAL(loom_status_name(LOOM_ERR_TRUNCATED), "LOOM_ERR_TRUNCATED");
    CU_ASSERT_STRING_EQUAL(loom_strerror((loom_status_t)12345), "unknown status");
    CU_ASSERT(LOOM_ERR_PEER_FAILED <= -100 && LOOM_ERR_CONNECTION <= -100);
}

static void test_config_parse_values(void)
{
    long long v = -1;
    double d = -1;

    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_SIZE, "8k", &v, &d), LOOM_OK);
    CU_ASSERT_EQUAL(v, 8192);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_SIZE, "3M", &v, &d), LOOM_OK);
    CU_ASSERT_EQUAL(v, 3LL << 20);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_SIZE, "2gb", &v, &d), LOOM_OK);
    CU_ASSERT_EQUAL(v, 2LL << 30);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_SIZE, "17", &v, &d), LOOM_OK);
    CU_ASSERT_EQUAL(v, 17);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_SIZE, "-1", &v, &d), LOOM_ERR_CONFIG);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_SIZE, "12q", &v, &d), LOOM_ERR_CONFIG);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_SIZE, "k", &v, &d), LOOM_ERR_CONFIG);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_SIZE, "99999999999g", &v, &d),
                    LOOM_ERR_CONFIG);

    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_BOOL, "yes", &v, &d), LOOM_OK);
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_BOOL, "OFF", &v, &d), LOOM_OK);
    CU_ASSERT_EQUAL(v, 0);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_BOOL, "2", &v, &d), LOOM_ERR_CONFIG);

    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_INT, "010", &v, &d), LOOM_OK);
    CU_ASSERT_EQUAL(v, 10);   /* decimal, never octal */
    v = 99;
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_INT, "0x10", &v, &d),
                    LOOM_ERR_CONFIG);
    CU_ASSERT_EQUAL(v, 99);   /* output written only on success */
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_INT, "-7", &v, &d), LOOM_OK);
    CU_ASSERT_EQUAL(v, -7);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_INT, "7x", &v, &d), LOOM_ERR_CONFIG);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_INT, "", &v, &d), LOOM_ERR_CONFIG);

    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_DOUBLE, "0.05", &v, &d), LOOM_OK);
    CU_ASSERT_DOUBLE_EQUAL(d, 0.05, 1e-12);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_DOUBLE, "nan", &v, &d),
                    LOOM_ERR_CONFIG);
    CU_ASSERT_EQUAL(loom_config_parse_value(LOOM_CFG_TYPE_DOUBLE, "1.5s", &v, &d),
                    LOOM_ERR_CONFIG);
}

/* the registered variable called @p name (every table is registered by then) */
static const loom_config_var_t *cfg(const char *name)
{
    const loom_config_var_t *v = loom_config_find(name);

    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    return v;
}

static void test_config_env(void)
{
    /* a bad value is refused (and init can be retried once fixed) */
    setenv("LOOM_EAGER_LIMIT", "lots", 1);
    CU_ASSERT_EQUAL(loom_runtime_config_load(), LOOM_ERR_CONFIG);
    setenv("LOOM_EAGER_LIMIT", "16k", 1);
    setenv("LOOM_LOG", "loud", 1);
    CU_ASSERT_EQUAL(loom_runtime_config_load(), LOOM_ERR_CONFIG);
    setenv("LOOM_LOG", "error", 1);
    /* numeric ranges: negative values only where a row allows them */
    setenv("LOOM_PROGRESS_TIMEOUT", "-3", 1);
    CU_ASSERT_EQUAL(loom_runtime_config_load(), LOOM_ERR_CONFIG);
    setenv("LOOM_PROGRESS_TIMEOUT", "2.5", 1);
    setenv("LOOM_BOOTSTRAP_TIMEOUT", "4294967296", 1);
    CU_ASSERT_EQUAL(loom_runtime_config_load(), LOOM_ERR_CONFIG);
    setenv("LOOM_BOOTSTRAP_TIMEOUT", "60", 1);
    setenv("LOOM_SHM_RING_SLOTS", "1", 1);
    CU_ASSERT_EQUAL(loom_runtime_config_load(), LOOM_ERR_CONFIG);
    unsetenv("LOOM_SHM_RING_SLOTS");
#if LOOM_HAVE_IBV
    setenv("LOOM_IB_MCAST_DROP", "1.5", 1);
    CU_ASSERT_EQUAL(loom_runtime_config_load(), LOOM_ERR_CONFIG);
    setenv("LOOM_IB_GID_INDEX", "-1", 1);
    setenv("LOOM_IB_MCAST_DROP", "0.25", 1);
#endif
    CU_ASSERT_EQUAL(loom_runtime_config_load(), LOOM_OK);

    CU_ASSERT_TRUE(loom_config_is_set(cfg("LOOM_EAGER_LIMIT")));
    CU_ASSERT_EQUAL(loom_config_int(cfg("LOOM_EAGER_LIMIT")), 16384);
#if LOOM_HAVE_IBV
    CU_ASSERT_DOUBLE_EQUAL(loom_config_double(cfg("LOOM_IB_MCAST_DROP")), 0.25, 1e-12);
    CU_ASSERT_EQUAL(loom_config_int(cfg("LOOM_IB_GID_INDEX")), -1);
#endif
    CU_ASSERT_DOUBLE_EQUAL(loom_config_double(cfg("LOOM_PROGRESS_TIMEOUT")), 2.5, 1e-12);
    CU_ASSERT_FALSE(loom_config_is_set(cfg("LOOM_SHM_RING_SLOTS")));
    CU_ASSERT_EQUAL(loom_config_int(cfg("LOOM_SHM_RING_SLOTS")), 64);   /* default */
    CU_ASSERT_STRING_EQUAL(loom_config_name(cfg("LOOM_TRANSPORTS")), "LOOM_TRANSPORTS");
    CU_ASSERT_STRING_EQUAL(loom_config_str(cfg("LOOM_TRANSPORTS")), "");
    CU_ASSERT_PTR_NULL(loom_config_find("LOOM_NO_SUCH_VARIABLE"));
    /* a component's handle is the registered variable */
    CU_ASSERT_PTR_EQUAL(LOOM_P2P_CFG(EAGER_LIMIT), cfg("LOOM_EAGER_LIMIT"));
    CU_ASSERT_PTR_EQUAL(LOOM_BASE_CFG(LOG), cfg("LOOM_LOG"));

    /* the printed tables name every variable of every component, once */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    loom_config_print(f);
    fclose(f);
    const loom_config_table_t *tables[16] = { &loom_base_config, &loom_p2p_config,
                                              &loom_coll_config };
    size_t n = 3;
    for (size_t i = 0; i < loom_tl_num_components; ++i) {
        if (loom_tl_components[i]->config != NULL) {
            tables[n++] = loom_tl_components[i]->config;
        }
    }
    for (size_t t = 0; t < n; ++t) {
        char head[64];
        snprintf(head, sizeof(head), "[%s]\n", tables[t]->component);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, head));
        for (int id = 0; id < tables[t]->count; ++id) {
            const char *at = strstr(text, tables[t]->vars[id].name);
            CU_ASSERT_PTR_NOT_NULL_FATAL(at);
            CU_ASSERT_PTR_EQUAL(loom_config_find(tables[t]->vars[id].name),
                                &tables[t]->vars[id]);
        }
    }
    free(text);
}

/* A component's own table: defaults, its range, the parse kept, the retry. */
enum { TEST_CFG_LEVEL, TEST_CFG_MODE, TEST_CFG_COUNT };
static loom_config_var_t test_cfg_vars[TEST_CFG_COUNT] = {
    [TEST_CFG_LEVEL] = LOOM_CONFIG_VAR_RANGE("LOOM_TEST_CFG_LEVEL", INT, "5", -2, 9, "a level"),
    [TEST_CFG_MODE]  = LOOM_CONFIG_VAR("LOOM_TEST_CFG_MODE", STRING, "", "a mode"),
};
static loom_config_table_t test_cfg = LOOM_CONFIG_TABLE("test", test_cfg_vars, NULL);
/* a table with a row missing is refused */
static loom_config_var_t test_cfg_holey_vars[3] = {
    [0] = LOOM_CONFIG_VAR("LOOM_TEST_CFG_HOLEY0", INT, "0", "first"),
    [2] = LOOM_CONFIG_VAR("LOOM_TEST_CFG_HOLEY2", INT, "0", "third"),
};
static loom_config_table_t test_cfg_holey = LOOM_CONFIG_TABLE("holey", test_cfg_holey_vars, NULL);

static void test_config_table(void)
{
    unsetenv("LOOM_TEST_CFG_MODE");
    setenv("LOOM_TEST_CFG_LEVEL", "-3", 1);
    CU_ASSERT_EQUAL(loom_config_register(&test_cfg), LOOM_ERR_CONFIG);
    setenv("LOOM_TEST_CFG_LEVEL", "-2", 1);
    CU_ASSERT_EQUAL(loom_config_register(&test_cfg), LOOM_OK);
    CU_ASSERT_EQUAL(loom_config_int(&test_cfg_vars[TEST_CFG_LEVEL]), -2);
    CU_ASSERT_FALSE(loom_config_is_set(&test_cfg_vars[TEST_CFG_MODE]));
    CU_ASSERT_STRING_EQUAL(loom_config_str(&test_cfg_vars[TEST_CFG_MODE]), "");
    /* parsed once: a later change of the environment is not seen... */
    setenv("LOOM_TEST_CFG_LEVEL", "7", 1);
    CU_ASSERT_EQUAL(loom_config_register(&test_cfg), LOOM_OK);
    CU_ASSERT_EQUAL(loom_config_int(&test_cfg_vars[TEST_CFG_LEVEL]), -2);
    /* ...until the table is unloaded */
    loom_config_unload(&test_cfg);
    CU_ASSERT_EQUAL(loom_config_register(&test_cfg), LOOM_OK);
    CU_ASSERT_EQUAL(loom_config_int(&test_cfg_vars[TEST_CFG_LEVEL]), 7);
    unsetenv("LOOM_TEST_CFG_LEVEL");
    loom_config_unload(&test_cfg);
    CU_ASSERT_EQUAL(loom_config_register(&test_cfg), LOOM_OK);
    CU_ASSERT_EQUAL(loom_config_int(&test_cfg_vars[TEST_CFG_LEVEL]), 5);
    CU_ASSERT_PTR_EQUAL(loom_config_find("LOOM_TEST_CFG_MODE"), &test_cfg_vars[TEST_CFG_MODE]);
    CU_ASSERT_EQUAL(loom_config_register(&test_cfg_holey), LOOM_ERR_CONFIG);
}

static void test_log_spec(void)
{
    CU_ASSERT_EQUAL(loom_log_configure("debug:shm,p2p"), 0);
    CU_ASSERT_TRUE(loom_log_enabled(LOOM_LOG_LEVEL_DEBUG, "shm"));
    CU_ASSERT_FALSE(loom_log_enabled(LOOM_LOG_LEVEL_DEBUG, "tcp"));
    CU_ASSERT_TRUE(loom_log_enabled(LOOM_LOG_LEVEL_WARN, "tcp"));
    CU_ASSERT_FALSE(loom_log_enabled(LOOM_LOG_LEVEL_TRACE, "shm"));
    CU_ASSERT_EQUAL(loom_log_configure("INFO"), 0);
    CU_ASSERT_TRUE(loom_log_enabled(LOOM_LOG_LEVEL_INFO, "anything"));
    CU_ASSERT_EQUAL(loom_log_configure("verbose"), -1);
    CU_ASSERT_EQUAL(loom_log_configure("debug:"), 0);
    CU_ASSERT_EQUAL(loom_log_configure("debug:a,,b"), -1);
    CU_ASSERT_EQUAL(loom_log_configure("error"), 0);
    loom_log_set_identity(3, "nodeA");
    CU_ASSERT_STRING_EQUAL(loom_log_identity(), "3@nodeA");
}

typedef struct item {
    int         value;
    loom_list_t link;
} item_t;

static void test_list(void)
{
    loom_list_t head;
    item_t items[5], *it, *tmp;
    int expect = 0;

    loom_list_init(&head);
    CU_ASSERT_TRUE(loom_list_is_empty(&head));
    CU_ASSERT_PTR_NULL(loom_list_pop_head(&head));
    for (int i = 0; i < 5; ++i) {
        items[i].value = i;
        loom_list_add_tail(&head, &items[i].link);
    }
    CU_ASSERT_EQUAL(loom_list_length(&head), 5);
    loom_list_for_each(it, &head, link) {
        CU_ASSERT_EQUAL(it->value, expect);
        ++expect;
    }
    /* delete the odd ones while iterating */
    loom_list_for_each_safe(it, tmp, &head, link) {
        if (it->value % 2) {
            loom_list_del(&it->link);
        }
    }
    CU_ASSERT_EQUAL(loom_list_length(&head), 3);
    loom_list_add_head(&head, &items[1].link);
    it = loom_list_entry(loom_list_pop_head(&head), item_t, link);
    CU_ASSERT_EQUAL(it->value, 1);
    it = loom_list_head_entry(&head, item_t, link);
    CU_ASSERT_EQUAL(it->value, 0);
}

static void test_mpool(void)
{
    loom_mpool_t mp;
    void *objs[10];

    CU_ASSERT_EQUAL(loom_mpool_init(&mp, "bad", 0, 4, 0), LOOM_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL_FATAL(loom_mpool_init(&mp, "test", 100, 4, 10), LOOM_OK);
    for (int i = 0; i < 10; ++i) {
        objs[i] = loom_mpool_get(&mp);
        CU_ASSERT_PTR_NOT_NULL_FATAL(objs[i]);
        CU_ASSERT_EQUAL((uintptr_t)objs[i] % LOOM_CACHE_LINE, 0);
        memset(objs[i], 0xa5, 100);   /* ASan checks the object really has 100 bytes */
    }
    CU_ASSERT_PTR_NULL(loom_mpool_get(&mp));   /* at its limit */
    CU_ASSERT_EQUAL(mp.in_use, 10);
    loom_mpool_put(&mp, objs[3]);
    CU_ASSERT_PTR_EQUAL(loom_mpool_get(&mp), objs[3]);   /* LIFO reuse, no growth */
    CU_ASSERT_EQUAL(mp.num_elems, 10);
    for (int i = 0; i < 10; ++i) {
        loom_mpool_put(&mp, objs[i]);
    }
    CU_ASSERT_EQUAL(mp.in_use, 0);
    loom_mpool_cleanup(&mp);

    /* unlimited pool grows chunk by chunk */
    CU_ASSERT_EQUAL_FATAL(loom_mpool_init(&mp, "grow", 8, 2, 0), LOOM_OK);
    for (int i = 0; i < 10; ++i) {
        objs[i] = loom_mpool_get(&mp);
        CU_ASSERT_PTR_NOT_NULL(objs[i]);
    }
    CU_ASSERT_EQUAL(mp.num_elems, 10);
    loom_mpool_cleanup(&mp);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "status strings", test_status_strings },
        { "config value parsers", test_config_parse_values },
        { "config from environment", test_config_env },
        { "config: a component's own table", test_config_table },
        { "log spec", test_log_spec },
        { "intrusive list", test_list },
        { "memory pool", test_mpool },
        { NULL, NULL },
    };
    return loom_test_run_suite("core basics", cases, NULL, NULL);
}
